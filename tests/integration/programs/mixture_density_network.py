# Follows tonyduan/mixture-density-network (src/blocks.py and examples/ex_1d.py; Bishop's 1994 mixture density
# network): a pi network (log_softmax mixture weights) and a normal network (means and exp-parametrized scales,
# diagonal / isotropic / isotropic-across-clusters / fixed noise) over an inverted sine, where one x has several
# y; the loss by einsum of z-scores and logsumexp, sampling by searchsorted over the cumulative weights, randn_like
# and gather. Adapted: 1000 iterations instead of 2000, the plots (matplotlib) left out. Added: the loss checked
# against torch.distributions' MixtureSameFamily(Categorical, Independent(Normal)) (it omits the 2 pi constant),
# every noise type run, and the samples' spread compared with the data's.
import math
from enum import Enum, auto

import numpy as np
import torch
import torch.nn as nn  # noqa: PLR0402  (the repository's imports)
import torch.optim as optim  # noqa: PLR0402
from torch.distributions import Categorical, Independent, MixtureSameFamily, Normal

np.random.seed(0)
torch.manual_seed(0)


class NoiseType(Enum):
    DIAGONAL = auto()
    ISOTROPIC = auto()
    ISOTROPIC_ACROSS_CLUSTERS = auto()
    FIXED = auto()


class MixtureDensityNetwork(nn.Module):
    def __init__(
        self, dim_in, dim_out, n_components, hidden_dim, noise_type=NoiseType.DIAGONAL, fixed_noise_level=None
    ):
        super().__init__()
        assert (fixed_noise_level is not None) == (noise_type is NoiseType.FIXED)
        num_sigma_channels = {
            NoiseType.DIAGONAL: dim_out * n_components,
            NoiseType.ISOTROPIC: n_components,
            NoiseType.ISOTROPIC_ACROSS_CLUSTERS: 1,
            NoiseType.FIXED: 0,
        }[noise_type]
        self.dim_in, self.dim_out, self.n_components = dim_in, dim_out, n_components
        self.noise_type, self.fixed_noise_level = noise_type, fixed_noise_level
        self.pi_network = nn.Sequential(
            nn.Linear(dim_in, hidden_dim),
            nn.ReLU(),
            nn.Linear(hidden_dim, hidden_dim),
            nn.ReLU(),
            nn.Linear(hidden_dim, n_components),
        )
        self.normal_network = nn.Sequential(
            nn.Linear(dim_in, hidden_dim),
            nn.ReLU(),
            nn.Linear(hidden_dim, hidden_dim),
            nn.ReLU(),
            nn.Linear(hidden_dim, dim_out * n_components + num_sigma_channels),
        )

    def forward(self, x, eps=1e-6):
        log_pi = torch.log_softmax(self.pi_network(x), dim=-1)
        normal_params = self.normal_network(x)
        mu = normal_params[..., : self.dim_out * self.n_components]
        sigma = normal_params[..., self.dim_out * self.n_components :]
        if self.noise_type is NoiseType.DIAGONAL:
            sigma = torch.exp(sigma + eps)
        if self.noise_type is NoiseType.ISOTROPIC:
            sigma = torch.exp(sigma + eps).repeat(1, self.dim_out)
        if self.noise_type is NoiseType.ISOTROPIC_ACROSS_CLUSTERS:
            sigma = torch.exp(sigma + eps).repeat(1, self.n_components * self.dim_out)
        if self.noise_type is NoiseType.FIXED:
            sigma = torch.full_like(mu, fill_value=self.fixed_noise_level)
        mu = mu.reshape(-1, self.n_components, self.dim_out)
        sigma = sigma.reshape(-1, self.n_components, self.dim_out)
        return log_pi, mu, sigma

    def loss(self, x, y):
        log_pi, mu, sigma = self.forward(x)
        z_score = (y.unsqueeze(1) - mu) / sigma
        normal_loglik = -0.5 * torch.einsum("bij,bik->bi", z_score, z_score) - torch.sum(
            torch.log(sigma), dim=-1
        )
        loglik = torch.logsumexp(log_pi + normal_loglik, dim=-1)
        return -loglik

    def sample(self, x):
        log_pi, mu, sigma = self.forward(x)
        cum_pi = torch.cumsum(torch.exp(log_pi), dim=-1)
        rvs = torch.rand(len(x), 1).to(x)
        rand_pi = torch.searchsorted(cum_pi, rvs)
        rand_normal = torch.randn_like(mu) * sigma + mu
        samples = torch.gather(rand_normal, index=rand_pi.unsqueeze(-1), dim=1).squeeze(dim=1)
        return samples


def gen_data(n=512):
    y = np.linspace(-1, 1, n)
    x = 7 * np.sin(5 * y) + 0.5 * y + 0.5 * np.random.randn(*y.shape)
    return x[:, np.newaxis], y[:, np.newaxis]


x, y = gen_data()
x = torch.Tensor(x)
y = torch.Tensor(y)

# ---- the loss is the mixture's negative log-likelihood, up to the 2 pi constant
for noise_type, level in [
    (NoiseType.DIAGONAL, None),
    (NoiseType.ISOTROPIC, None),
    (NoiseType.ISOTROPIC_ACROSS_CLUSTERS, None),
    (NoiseType.FIXED, 0.3),
]:
    # dim_out 1, as the example: the loss's einsum("bij,bik->bi") is (sum of z)^2, the squared norm only then
    m = MixtureDensityNetwork(1, 1, 3, hidden_dim=16, noise_type=noise_type, fixed_noise_level=level)
    log_pi, mu, sigma = m(x)
    assert log_pi.shape == (512, 3) and mu.shape == (512, 3, 1) and sigma.shape == (512, 3, 1)
    mixture = MixtureSameFamily(Categorical(logits=log_pi), Independent(Normal(mu, sigma), 1))
    reference = -mixture.log_prob(y) - 0.5 * math.log(2 * math.pi)
    assert torch.allclose(m.loss(x, y), reference, rtol=1e-5, atol=1e-5), (
        noise_type,
        m.loss(x, y)[:3],
        reference[:3],
    )
    if noise_type is NoiseType.ISOTROPIC_ACROSS_CLUSTERS:
        assert torch.equal(sigma, sigma[:1, :1, :1].expand_as(sigma)) is False  # varies with x only
        assert torch.allclose(sigma, sigma[:, :1, :1].expand_as(sigma))
    if noise_type is NoiseType.FIXED:
        assert torch.equal(sigma, torch.full_like(sigma, 0.3))

# ---- ex_1d.py's training
model = MixtureDensityNetwork(1, 1, n_components=3, hidden_dim=50)
optimizer = optim.Adam(model.parameters(), lr=0.005)

n_iterations = 1000
for i in range(n_iterations):
    optimizer.zero_grad()
    loss = model.loss(x, y).mean()
    loss.backward()
    optimizer.step()
    if i == 0:
        first = loss.item()
    if i % 100 == 0:
        print(f"Iter: {i}\t" + f"Loss: {loss.data:.2f}")

print("loss %.3f -> %.3f" % (first, loss.item()))
assert loss.item() < first - 1.0, (first, loss.item())

with torch.no_grad():
    samples = model.sample(x)
    log_pi, mu, sigma = model(x)
assert samples.shape == (512, 1)
# an x of the inverted sine has several y: the mixture must use more than one component
assert (log_pi.exp().max(-1).values < 0.9).float().mean() > 0.2
# samples spread like the data (y is uniform on [-1, 1])
print(
    "samples: mean %.3f std %.3f; data: mean %.3f std %.3f"
    % (samples.mean(), samples.std(), y.mean(), y.std())
)
assert abs(samples.mean().item() - y.mean().item()) < 0.15
assert abs(samples.std().item() - y.std().item()) < 0.15
# the model's samples are as likely under the data's conditional as the data themselves, roughly: their NLL
# under the fitted mixture is close to the training NLL
assert abs(model.loss(x, samples).mean().item() - loss.item()) < 0.5
print("mixture_density_network: ok")
