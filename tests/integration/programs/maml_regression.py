# Follows functorch's MAML sine-regression examples (functorch/examples/maml_regression/evjang_transforms.py and
# evjang_transforms_module.py, from Eric Jang's maml-jax): a 1-40-40-1 ReLU net as a function of its parameter
# list, the inner adaptation step by functorch.grad, the per-task outer losses by functorch.vmap over a batch of
# tasks (so the outer backward runs through vmap(grad(...))), Adam on the meta-parameters; then the module form
# with functorch.make_functional, and a 5-step adaptation at test time by torch.autograd.grad(create_graph=True).
# Adapted: 300 outer iterations instead of 20000, the plots (matplotlib) left out, and the test-time call
# net(t_x, t_params) of evjang_transforms.py put in the order net takes (as the module version has it). Added:
# the vmapped outer loss checked against a loop over tasks, and the meta-learned net must adapt better than a
# freshly initialized one.
import math

import numpy as np
import torch
from functorch import grad, make_functional, vmap
from torch import nn
from torch.nn import functional as F

torch.manual_seed(0)
np.random.seed(0)


def net(params, x):
    x = F.linear(x, params[0], params[1])
    x = F.relu(x)

    x = F.linear(x, params[2], params[3])
    x = F.relu(x)

    x = F.linear(x, params[4], params[5])
    return x


params = [
    torch.Tensor(40, 1).uniform_(-1.0, 1.0).requires_grad_(),
    torch.Tensor(40).zero_().requires_grad_(),
    torch.Tensor(40, 40).uniform_(-1.0 / math.sqrt(40), 1.0 / math.sqrt(40)).requires_grad_(),
    torch.Tensor(40).zero_().requires_grad_(),
    torch.Tensor(1, 40).uniform_(-1.0 / math.sqrt(40), 1.0 / math.sqrt(40)).requires_grad_(),
    torch.Tensor(1).zero_().requires_grad_(),
]
init_params = [p.detach().clone() for p in params]


def mse_loss(x, y):
    return torch.mean((x - y) ** 2)


opt = torch.optim.Adam(params, lr=1e-2)
alpha = 0.1

K = 20
losses = []
num_tasks = 4


def sample_tasks(outer_batch_size, inner_batch_size):
    As = []
    phases = []
    for _ in range(outer_batch_size):
        As.append(np.random.uniform(low=0.1, high=0.5))
        phases.append(np.random.uniform(low=0.0, high=np.pi))

    def get_batch():
        xs, ys = [], []
        for A, phase in zip(As, phases):
            x = np.random.uniform(low=-5.0, high=5.0, size=(inner_batch_size, 1))
            y = A * np.sin(x + phase)
            xs.append(x)
            ys.append(y)
        return torch.tensor(np.array(xs), dtype=torch.float), torch.tensor(np.array(ys), dtype=torch.float)

    x1, y1 = get_batch()
    x2, y2 = get_batch()
    return x1, y1, x2, y2


def get_loss_for_task(x1, y1, x2, y2):
    def inner_loss(params, x1, y1):
        f = net(params, x1)
        loss = mse_loss(f, y1)
        return loss

    grads = grad(inner_loss)(tuple(params), x1, y1)
    new_params = [(params[i] - alpha * grads[i]) for i in range(len(params))]

    v_f = net(new_params, x2)
    return mse_loss(v_f, y2)


# the vmapped outer loss and its meta-gradient equal a loop over the tasks
task = sample_tasks(num_tasks, K)
batched = vmap(get_loss_for_task)(*task)
looped = torch.stack([get_loss_for_task(*(t[i] for t in task)) for i in range(num_tasks)])
assert torch.allclose(batched, looped, rtol=1e-5, atol=1e-6), (batched, looped)
g_batched = torch.autograd.grad(batched.mean(), params)
g_looped = torch.autograd.grad(looped.mean(), params)
for a, b in zip(g_batched, g_looped):
    assert torch.allclose(a, b, rtol=1e-4, atol=1e-6), (a - b).abs().max()

for it in range(300):
    loss2 = 0.0
    opt.zero_grad()
    task = sample_tasks(num_tasks, K)
    inner_losses = vmap(get_loss_for_task)(task[0], task[1], task[2], task[3])
    loss2 = sum(inner_losses) / len(inner_losses)
    loss2.backward()

    opt.step()

    if it % 50 == 0:
        print("Iteration %d -- Outer Loss: %.4f" % (it, loss2))
    losses.append(loss2.item())

first, last = np.mean(losses[:30]), np.mean(losses[-30:])
print("outer loss: first 30 iterations %.4f, last 30 %.4f" % (first, last))
assert last < 0.6 * first, (first, last)


def adapt_and_test(t_params, t_A, t_b, t_x, t_y):
    for k in range(5):
        t_f = net(t_params, t_x)
        t_loss = F.l1_loss(t_f, t_y)
        grads = torch.autograd.grad(t_loss, t_params, create_graph=True)
        t_params = [(t_params[i] - alpha * grads[i]) for i in range(len(params))]
    test_x = torch.arange(-2 * math.pi, 2 * math.pi, step=0.01).unsqueeze(1)
    test_y = t_A * torch.sin(test_x + t_b)
    test_f = net(t_params, test_x)
    return mse_loss(test_f, test_y).item()


meta_err, scratch_err = [], []
for _ in range(20):
    t_A = torch.tensor(0.0).uniform_(0.1, 0.5)
    t_b = torch.tensor(0.0).uniform_(0.0, math.pi)
    t_x = torch.empty(10, 1).uniform_(-5, 5)
    t_y = t_A * torch.sin(t_x + t_b)
    meta_err.append(adapt_and_test(params, t_A, t_b, t_x, t_y))
    scratch_err.append(adapt_and_test([p.clone().requires_grad_() for p in init_params], t_A, t_b, t_x, t_y))
print(
    "test MSE after 5 adaptation steps: meta-learned %.4f, from the initialization %.4f"
    % (np.mean(meta_err), np.mean(scratch_err))
)
assert np.mean(meta_err) < np.mean(scratch_err), (np.mean(meta_err), np.mean(scratch_err))

# ---- evjang_transforms_module.py: the same meta-step with a module made functional


class ThreeLayerNet(nn.Module):
    def __init__(self):
        super(ThreeLayerNet, self).__init__()
        self.fc1 = nn.Linear(1, 40)
        self.relu1 = nn.ReLU()
        self.fc2 = nn.Linear(40, 40)
        self.relu2 = nn.ReLU()
        self.fc3 = nn.Linear(40, 1)

    def forward(self, x):
        x = self.fc1(x)
        x = self.relu1(x)
        x = self.fc2(x)
        x = self.relu2(x)
        x = self.fc3(x)
        return x


fnet, mparams = make_functional(ThreeLayerNet())
assert len(mparams) == 6 and all(p.requires_grad for p in mparams)
mopt = torch.optim.Adam(mparams, lr=1e-2)


def get_loss_for_task_module(x1, y1, x2, y2):
    def inner_loss(params, x1, y1):
        f = fnet(params, x1)
        loss = mse_loss(f, y1)
        return loss

    grads = grad(inner_loss)(mparams, x1, y1)
    new_params = [(mparams[i] - alpha * grads[i]) for i in range(len(mparams))]

    v_f = fnet(new_params, x2)
    return mse_loss(v_f, y2)


eval_task = sample_tasks(25, K)
with torch.no_grad():
    before = vmap(get_loss_for_task_module)(*eval_task).mean().item()
for it in range(150):
    mopt.zero_grad()
    task = sample_tasks(num_tasks, K)
    inner_losses = vmap(get_loss_for_task_module)(task[0], task[1], task[2], task[3])
    loss2 = sum(inner_losses) / len(inner_losses)
    loss2.backward()
    mopt.step()
with torch.no_grad():
    after = vmap(get_loss_for_task_module)(*eval_task).mean().item()
print("module form: outer loss on 25 held-out tasks %.4f before, %.4f after 150 iterations" % (before, after))
assert after < 0.7 * before, (before, after)
print("maml_regression: ok")
