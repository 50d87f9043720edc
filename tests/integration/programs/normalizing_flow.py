# A RealNVP normalizing flow on two moons, in the style of the widely copied real-nvp-pytorch notebook
# (senya-ashukha/real-nvp-pytorch): a distributions.MultivariateNormal prior, alternating binary masks, scale nets
# ending in Tanh and translation nets, f (data -> latent, with log|det J|) and g (latent -> data), trained by
# maximum likelihood with Adam. sklearn's make_moons is replaced by the same construction in torch.
import math

import numpy as np
import torch
from torch import distributions, nn

torch.manual_seed(0)


def make_moons(n, noise=0.05):
    n_out = n // 2
    n_in = n - n_out
    t_out = torch.rand(n_out) * math.pi
    t_in = torch.rand(n_in) * math.pi
    outer = torch.stack([torch.cos(t_out), torch.sin(t_out)], 1)
    inner = torch.stack([1 - torch.cos(t_in), 1 - torch.sin(t_in) - 0.5], 1)
    x = torch.cat([outer, inner])
    return x + noise * torch.randn_like(x)


class RealNVP(nn.Module):
    def __init__(self, nets, nett, mask, prior):
        super().__init__()
        self.prior = prior
        self.mask = nn.Parameter(mask, requires_grad=False)
        self.t = torch.nn.ModuleList([nett() for _ in range(len(mask))])
        self.s = torch.nn.ModuleList([nets() for _ in range(len(mask))])

    def g(self, z):
        x = z
        for i in range(len(self.t)):
            x_ = x * self.mask[i]
            s = self.s[i](x_) * (1 - self.mask[i])
            t = self.t[i](x_) * (1 - self.mask[i])
            x = x_ + (1 - self.mask[i]) * (x * torch.exp(s) + t)
        return x

    def f(self, x):
        log_det_J, z = x.new_zeros(x.shape[0]), x
        for i in reversed(range(len(self.t))):
            z_ = self.mask[i] * z
            s = self.s[i](z_) * (1 - self.mask[i])
            t = self.t[i](z_) * (1 - self.mask[i])
            z = (1 - self.mask[i]) * (z - t) * torch.exp(-s) + z_
            log_det_J -= s.sum(dim=1)
        return z, log_det_J

    def log_prob(self, x):
        z, logp = self.f(x)
        return self.prior.log_prob(z) + logp

    def sample(self, batchSize):
        z = self.prior.sample((batchSize, 1))
        x = self.g(z)
        return x


def nets():
    return nn.Sequential(
        nn.Linear(2, 64), nn.LeakyReLU(), nn.Linear(64, 64), nn.LeakyReLU(), nn.Linear(64, 2), nn.Tanh()
    )


def nett():
    return nn.Sequential(
        nn.Linear(2, 64), nn.LeakyReLU(), nn.Linear(64, 64), nn.LeakyReLU(), nn.Linear(64, 2)
    )


masks = torch.from_numpy(np.array([[0, 1], [1, 0]] * 3).astype(np.float32))
prior = distributions.MultivariateNormal(torch.zeros(2), torch.eye(2))
flow = RealNVP(nets, nett, masks, prior)

# the same standard normal prior spelled as a diagonal Gaussian over vectors
diag = distributions.Independent(distributions.Normal(torch.zeros(2), torch.ones(2)), 1)
z = torch.randn(5, 2)
assert torch.allclose(prior.log_prob(z), diag.log_prob(z), atol=1e-5)

optimizer = torch.optim.Adam([p for p in flow.parameters() if p.requires_grad == True], lr=1e-3)
test = make_moons(1000)
with torch.no_grad():
    nll_before = -flow.log_prob(test).mean().item()
losses = []
for t in range(400):
    noisy_moons = make_moons(256)
    loss = -flow.log_prob(noisy_moons).mean()
    optimizer.zero_grad()
    loss.backward(retain_graph=True)
    optimizer.step()
    losses.append(loss.item())
    if t % 100 == 0:
        print("iter %s:" % t, "loss = %.3f" % loss)

with torch.no_grad():
    nll_after = -flow.log_prob(test).mean().item()
    # the flow is invertible: g(f(x)) = x
    z, _ = flow.f(test)
    assert torch.allclose(flow.g(z), test, atol=1e-4)
    # samples land on the moons: the trained model finds them far likelier than the prior does
    x = flow.sample(1000)
    assert x.shape == (1000, 1, 2) and torch.isfinite(x).all()
    x = x.squeeze(1)
    assert flow.log_prob(x).mean() > prior.log_prob(x).mean() + 0.5
print(f"held-out NLL {nll_before:.3f} -> {nll_after:.3f}")
assert nll_after < nll_before - 1.0, (nll_before, nll_after)
assert sum(losses[-50:]) / 50 < sum(losses[:50]) / 50 - 0.8
print("normalizing_flow: ok")
