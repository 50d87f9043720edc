# Bayesian regression and a mixture model with torch.distributions, as Pyro's "Bayesian Regression" and
# "Gaussian Mixture Model" tutorials do them, written in plain PyTorch the way the reparameterization-trick
# tutorials do: a mean-field Normal guide over the weights (softplus-positive scales through
# constraints/biject_to), the ELBO from rsample + log_prob, the KL term both by Monte Carlo and by
# kl_divergence, Adam; posterior predictive from samples. Then a 1-D Gaussian mixture fit by maximum likelihood
# with MixtureSameFamily(Categorical, Normal) and by EM with the posterior responsibilities, a LogNormal as a
# TransformedDistribution(Normal, ExpTransform), Independent for a diagonal multivariate Normal, and
# sample-statistics checks of a few distributions. Synthetic data in place of the tutorials' datasets.
import math

import torch
import torch.distributions as dist
from torch.distributions import constraints, kl_divergence, transform_to

torch.manual_seed(0)

# ---- data: y = X w + b + noise, with a known noise scale
N, D = 200, 3
true_w, true_b, noise = torch.tensor([1.5, -2.0, 0.5]), 0.7, 0.3
X = torch.randn(N, D)
y = X @ true_w + true_b + noise * torch.randn(N)

# prior p(w, b) = N(0, 1); likelihood N(X w + b, noise)
prior = dist.Normal(torch.zeros(D + 1), torch.ones(D + 1))

# guide q(w, b) = N(loc, softplus(raw_scale)): unconstrained parameters mapped through transform_to
loc = torch.zeros(D + 1, requires_grad=True)
to_positive = transform_to(constraints.positive)
raw_scale = to_positive.inv(torch.full((D + 1,), 0.5)).detach().requires_grad_()
optim = torch.optim.Adam([loc, raw_scale], lr=0.05)


def elbo(num_samples=8, analytic_kl=True):
    q = dist.Normal(loc, to_positive(raw_scale))
    theta = q.rsample((num_samples,))  # (S, D+1), differentiable in loc and raw_scale
    w, b = theta[:, :D], theta[:, D]
    mean = X @ w.T + b  # (N, S)
    log_lik = dist.Normal(mean, noise).log_prob(y[:, None]).sum(0)  # (S,)
    if analytic_kl:
        kl = kl_divergence(q, prior).sum()
    else:
        kl = (q.log_prob(theta) - prior.log_prob(theta)).sum(-1)
    return (log_lik - kl).mean()


losses = []
for step in range(400):
    optim.zero_grad()
    loss = -elbo()
    loss.backward()
    optim.step()
    losses.append(loss.item())
    if step % 100 == 0:
        print(f"step {step:4d}  -ELBO {loss.item():10.3f}")
assert losses[-1] < losses[0] / 10, (losses[0], losses[-1])

post = dist.Normal(loc.detach(), to_positive(raw_scale).detach())
print("posterior mean", post.mean, "std", post.stddev)
torch.testing.assert_close(post.mean[:D], true_w, atol=0.1, rtol=0)
assert abs(post.mean[D].item() - true_b) < 0.1
# the exact posterior (conjugate: Gaussian prior and likelihood) for comparison: the guide's means match it
Xb = torch.cat([X, torch.ones(N, 1)], 1)
precision = torch.eye(D + 1) + Xb.T @ Xb / noise**2
exact_mean = torch.linalg.solve(precision, Xb.T @ y / noise**2)
exact_cov = torch.linalg.inv(precision)
torch.testing.assert_close(post.mean, exact_mean, atol=0.02, rtol=0)
# the guide's scales shrank from the prior's 1 toward mean-field VI's optimum, 1/sqrt(precision's diagonal)
assert (post.stddev < 0.2).all() and (post.stddev > 0.5 * precision.diagonal().rsqrt()).all(), post.stddev
exact = dist.MultivariateNormal(exact_mean, covariance_matrix=exact_cov)
print("exact posterior std", exact.stddev)

# the Monte Carlo KL agrees with the analytic one on average
with torch.no_grad():
    q = dist.Normal(loc, to_positive(raw_scale))
    theta = q.sample((20000,))
    mc_kl = (q.log_prob(theta) - prior.log_prob(theta)).sum(-1).mean()
    an_kl = kl_divergence(q, prior).sum()
print("KL analytic", an_kl.item(), "Monte Carlo", mc_kl.item())
assert abs(mc_kl - an_kl) < 0.05 * an_kl + 0.05

# posterior predictive at new points: mean and a 90% interval from samples
x_new = torch.tensor([[0.0, 0.0, 0.0], [1.0, -1.0, 2.0]])
with torch.no_grad():
    theta = post.sample((4000,))
    mu = x_new @ theta[:, :D].T + theta[:, D]
    y_pred = dist.Normal(mu, noise).sample()
lo, hi = y_pred.quantile(torch.tensor([0.05, 0.95]), dim=1)
want = x_new @ true_w + true_b
print("predictive 90% intervals", torch.stack([lo, hi], 1), "truth", want)
assert ((lo < want) & (want < hi)).all()

# ---- a 1-D Gaussian mixture: data from three components
weights = torch.tensor([0.5, 0.3, 0.2])
means, scales = torch.tensor([-4.0, 0.0, 5.0]), torch.tensor([1.0, 0.5, 1.5])
z = dist.Categorical(probs=weights).sample((3000,))
data = dist.Normal(means[z], scales[z]).sample()

# maximum likelihood by gradient ascent on MixtureSameFamily's log_prob
logits = torch.zeros(3, requires_grad=True)
start = data.quantile(torch.tensor([0.2, 0.6, 0.9]))  # a spread-out start, as k-means++-style seeding gives
mu = start.clone().requires_grad_()
log_sigma = torch.zeros(3, requires_grad=True)
opt = torch.optim.Adam([logits, mu, log_sigma], lr=0.1)
for step in range(300):
    opt.zero_grad()
    gmm = dist.MixtureSameFamily(dist.Categorical(logits=logits), dist.Normal(mu, log_sigma.exp()))
    nll = -gmm.log_prob(data).mean()
    nll.backward()
    opt.step()
order = mu.detach().argsort()
print("ML fit: weights", logits.softmax(0)[order], "means", mu[order], "scales", log_sigma.exp()[order])
torch.testing.assert_close(mu.detach()[order], means, atol=0.25, rtol=0)
torch.testing.assert_close(logits.detach().softmax(0)[order], weights, atol=0.05, rtol=0)

# EM with the components' posterior responsibilities, from the same start
pi, m, s = torch.full((3,), 1 / 3), start.clone(), torch.ones(3)
for _ in range(100):
    log_r = dist.Normal(m, s).log_prob(data[:, None]) + pi.log()  # (N, K)
    r = (log_r - log_r.logsumexp(1, keepdim=True)).exp()
    nk = r.sum(0)
    pi, m = nk / len(data), (r * data[:, None]).sum(0) / nk
    s = ((r * (data[:, None] - m) ** 2).sum(0) / nk).sqrt()
print("EM fit: weights", pi, "means", m, "scales", s)
torch.testing.assert_close(m, means, atol=0.25, rtol=0)
em = dist.MixtureSameFamily(dist.Categorical(probs=pi), dist.Normal(m, s))
assert em.log_prob(data).mean() >= gmm.log_prob(data).mean().detach() - 1e-3
torch.testing.assert_close(em.mean, (pi * m).sum())

# ---- a few more pieces of torch.distributions
lognormal = dist.TransformedDistribution(dist.Normal(0.5, 0.4), [dist.transforms.ExpTransform()])
ref = dist.LogNormal(0.5, 0.4)
v = torch.tensor([0.5, 1.0, 3.0])
torch.testing.assert_close(lognormal.log_prob(v), ref.log_prob(v))
samples = lognormal.sample((20000,))
assert abs(samples.mean() - ref.mean) < 0.03, (samples.mean(), ref.mean)

diag = dist.Independent(dist.Normal(torch.zeros(4), torch.tensor([1.0, 2.0, 0.5, 1.5])), 1)
full = dist.MultivariateNormal(
    torch.zeros(4), covariance_matrix=torch.diag(torch.tensor([1.0, 4.0, 0.25, 2.25]))
)
pts = torch.randn(5, 4)
assert diag.batch_shape == () and diag.event_shape == (4,)
torch.testing.assert_close(diag.log_prob(pts), full.log_prob(pts))
torch.testing.assert_close(diag.entropy(), full.entropy())
torch.testing.assert_close(kl_divergence(full, full), torch.tensor(0.0), atol=1e-6, rtol=0)

for d, mean, var in [
    (dist.Gamma(3.0, 2.0), 1.5, 0.75),
    (dist.Beta(2.0, 5.0), 2 / 7, 10 / (49 * 8)),
    (dist.Poisson(4.0), 4.0, 4.0),
    (dist.Exponential(0.5), 2.0, 4.0),
]:
    x = d.sample((40000,))
    print(type(d).__name__, "sample mean/var", x.mean().item(), x.var().item())
    assert abs(x.mean().item() - mean) < 0.05 * mean + 0.01
    assert abs(x.var().item() - var) < 0.1 * var + 0.01
    torch.testing.assert_close(d.mean, torch.tensor(mean))
    torch.testing.assert_close(d.variance, torch.tensor(var))

# rsample's reparameterization: the gradient of E[x^2] under N(mu, 1) is 2 mu
mu0 = torch.tensor(1.5, requires_grad=True)
(dist.Normal(mu0, 1.0).rsample((100000,)) ** 2).mean().backward()
assert abs(mu0.grad.item() - 3.0) < 0.05, mu0.grad
assert math.isclose(dist.Normal(0.0, 1.0).cdf(torch.tensor(1.96)).item(), 0.9750021, rel_tol=1e-5)
print("bayesian_regression_vi: ok")
