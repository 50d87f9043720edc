# Follows pytorch/examples reinforcement_learning/reinforce.py: a Policy network (Linear, Dropout, ReLU,
# softmax), actions sampled from torch.distributions.Categorical, log_prob saved per step, discounted returns
# normalized with eps, Adam. Gym's CartPole is replaced by a small corridor of our own (no download, no gym):
# the agent starts in the middle and gets +1 for reaching the right end, -1 for the left; observations are
# one-hot positions.
import numpy as np
import torch
import torch.nn.functional as F
from torch import nn, optim
from torch.distributions import Categorical

gamma = 0.99
torch.manual_seed(543)
rng = np.random.default_rng(543)
N = 11


class Corridor:
    def reset(self):
        self.pos = N // 2
        return self.obs()

    def obs(self):
        o = np.zeros(N, dtype=np.float32)
        o[self.pos] = 1
        return o

    def step(self, action):
        self.pos += 1 if action == 1 else -1
        if self.pos == N - 1:
            return self.obs(), 1.0, True
        if self.pos == 0:
            return self.obs(), -1.0, True
        return self.obs(), -0.01, False


class Policy(nn.Module):
    def __init__(self):
        super().__init__()
        self.affine1 = nn.Linear(N, 64)
        self.dropout = nn.Dropout(p=0.2)
        self.affine2 = nn.Linear(64, 2)
        self.saved_log_probs = []
        self.rewards = []

    def forward(self, x):
        x = self.affine1(x)
        x = self.dropout(x)
        x = F.relu(x)
        action_scores = self.affine2(x)
        return F.softmax(action_scores, dim=1)


policy = Policy()
optimizer = optim.Adam(policy.parameters(), lr=1e-2)
eps = np.finfo(np.float32).eps.item()


def select_action(state):
    state = torch.from_numpy(state).float().unsqueeze(0)
    probs = policy(state)
    m = Categorical(probs)
    action = m.sample()
    policy.saved_log_probs.append(m.log_prob(action))
    return action.item()


def finish_episode():
    R = 0
    policy_loss = []
    returns = []
    for r in policy.rewards[::-1]:
        R = r + gamma * R
        returns.insert(0, R)
    returns = torch.tensor(returns)
    if len(returns) > 1:
        returns = (returns - returns.mean()) / (returns.std() + eps)
    for log_prob, R in zip(policy.saved_log_probs, returns):
        policy_loss.append(-log_prob * R)
    optimizer.zero_grad()
    policy_loss = torch.cat(policy_loss).sum()
    policy_loss.backward()
    optimizer.step()
    del policy.rewards[:]
    del policy.saved_log_probs[:]


env = Corridor()


def untrained_length(episodes=20):
    total = 0
    for _ in range(episodes):
        state = env.reset()
        for t in range(1, 100):
            state, _, done = env.step(select_action(state))
            if done:
                break
        total += t
    del policy.saved_log_probs[:]
    return total / episodes


baseline = untrained_length()
wins, lengths = [], []
for i_episode in range(300):
    state, ep_reward = env.reset(), 0
    for t in range(1, 100):
        action = select_action(state)
        state, reward, done = env.step(action)
        policy.rewards.append(reward)
        ep_reward += reward
        if done:
            break
    wins.append(reward > 0)
    lengths.append(t)
    finish_episode()
    if i_episode % 50 == 0:
        print(f"Episode {i_episode}\tLast reward: {ep_reward:.2f}\twins in last 50: {sum(wins[-50:])}")
late = sum(lengths[-50:]) / 50
print("episode length", baseline, "->", late, "(shortest possible:", N // 2, ")")
assert sum(wins[-50:]) >= 48 and late < 1.3 * (N // 2) < baseline, (sum(wins[-50:]), baseline, late)
with torch.no_grad():
    policy.eval()
    assert policy(torch.eye(N)[1:-1])[:, 1].min() > 0.5  # moving right is preferred everywhere
print("reinforce: ok")
