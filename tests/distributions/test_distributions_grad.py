"""Gradients of minitorch.distributions: reparameterized samples (rsample) against finite differences of the
inverse cdf at the sample's fixed quantile, or against known derivatives of expectations; the implicit Gamma
gradient against scipy's gammaincinv; log_prob / entropy / cdf by gradcheck in float64."""

import math

import numpy as np
import pytest
import scipy.special as sp
import scipy.stats as st

import minitorch
from minitorch.distributions import _sampling

D = minitorch.distributions
F64 = minitorch.float64


def T(x, grad=False):
    t = minitorch.tensor(np.asarray(x, dtype=np.float64), dtype=F64)
    return t.requires_grad_() if grad else t


def _np(t):
    return t.detach().numpy()


def _fd_quantile(ppf_of_params, params, i, u, rel=1e-6):
    """d/d params[i] of the inverse cdf at fixed quantiles u (central differences in float64)."""
    h = rel * max(abs(params[i]), 1.0)
    up = list(params)
    dn = list(params)
    up[i] += h
    dn[i] -= h
    return (ppf_of_params(*up).ppf(u) - ppf_of_params(*dn).ppf(u)) / (2 * h)


# family: (constructor taking scalar float64 tensors, parameter values, scipy frozen distribution from values)
REPARAM = {
    "Normal": (D.Normal, [0.3, 1.7], lambda m, s: st.norm(m, s)),
    "Uniform": (D.Uniform, [-0.5, 2.0], lambda lo, hi: st.uniform(lo, hi - lo)),
    "Laplace": (D.Laplace, [0.3, 1.7], lambda m, s: st.laplace(m, s)),
    "Exponential": (D.Exponential, [2.5], lambda r: st.expon(scale=1 / r)),
    "Cauchy": (D.Cauchy, [0.3, 1.7], lambda m, s: st.cauchy(m, s)),
    "LogNormal": (D.LogNormal, [0.3, 0.6], lambda m, s: st.lognorm(s=s, scale=math.exp(m))),
    "HalfNormal": (D.HalfNormal, [1.7], lambda s: st.halfnorm(scale=s)),
    "HalfCauchy": (D.HalfCauchy, [1.7], lambda s: st.halfcauchy(scale=s)),
    "Gamma": (D.Gamma, [2.3, 1.5], lambda a, r: st.gamma(a, scale=1 / r)),
    "Gamma_small": (D.Gamma, [0.2, 3.0], lambda a, r: st.gamma(a, scale=1 / r)),
    "Chi2": (D.Chi2, [3.5], lambda k: st.chi2(k)),
    "Pareto": (D.Pareto, [1.5, 2.5], lambda s, a: st.pareto(a, scale=s)),
    "Weibull": (D.Weibull, [1.5, 2.5], lambda s, k: st.weibull_min(k, scale=s)),
    "InverseGamma": (D.InverseGamma, [2.3, 1.5], lambda a, r: st.invgamma(a, scale=r)),
    "Gumbel": (D.Gumbel, [0.3, 1.7], lambda m, s: st.gumbel_r(m, s)),
}


@pytest.mark.parametrize("name", sorted(REPARAM))
def test_rsample_gradient_is_the_quantile_derivative(name):
    # For these families rsample moves each draw along its quantile: dx/dtheta = d F^-1(u; theta) / dtheta with
    # u = F(x) fixed; checked per draw against finite differences of scipy's ppf.
    cls, values, ref = REPARAM[name]
    for i in range(len(values)):
        minitorch.manual_seed(3 + i)
        params = [T(v, grad=True) for v in values]
        x = cls(*params).rsample((200,))
        assert x.requires_grad
        xs = _np(x)
        u = ref(*values).cdf(xs)
        keep = (u > 1e-10) & (u < 1 - 1e-10)  # finite differences of the ppf are unreliable at the far tails
        fd = _fd_quantile(ref, values, i, u[keep])
        # the draws are independent of each other, so a random projection of the per-draw derivatives checks each
        w = np.random.default_rng(i).normal(size=xs.shape) * keep
        (gw,) = minitorch.autograd.grad((x * T(w)).sum(), [params[i]], retain_graph=True)
        np.testing.assert_allclose(_np(gw), (w[keep] * fd).sum(), rtol=2e-5, atol=1e-8)
        (g,) = minitorch.autograd.grad(x.sum(), [params[i]])
        if keep.all():
            np.testing.assert_allclose(_np(g), fd.sum(), rtol=2e-5)


@pytest.mark.parametrize(
    "alpha", [1e-3, 0.01, 0.3, 0.999, 1.0, 2.5, 7.0, 30.0, 300.0, 3000.0, 9999.0, 1.0e4, 2e4, 1e5, 1e6]
)
def test_standard_gamma_grad_accuracy(alpha):
    # d x / d alpha at fixed quantile, against finite differences of scipy's gammaincinv; the documented accuracy:
    # ~1e-9 relative below alpha = 1e4 (limited here by the finite differences), 1e-6 above (Wilson-Hilferty)
    u = np.array([1e-8, 1e-4, 0.05, 0.3, 0.5, 0.7, 0.95, 1 - 1e-4, 1 - 1e-8])
    x = sp.gammaincinv(alpha, u)
    keep = x > 1e-280  # where x underflows the quantile map is flat in double precision
    x, u = x[keep], u[keep]
    # differences of log x: x spans hundreds of orders of magnitude for small alpha, log x stays well scaled
    h = alpha * 1e-6
    fd = x * (np.log(sp.gammaincinv(alpha + h, u)) - np.log(sp.gammaincinv(alpha - h, u))) / (2 * h)
    ours = _np(_sampling._standard_gamma_grad(T(x), T(np.full_like(x, alpha))))
    tol = 1e-6 if alpha < 1e4 else 2e-6
    np.testing.assert_allclose(ours, fd, rtol=tol)


def test_standard_gamma_grad_float32():
    alpha = np.array([0.05, 0.5, 3.0, 40.0], dtype=np.float32)
    x = sp.gammaincinv(alpha.astype(np.float64), 0.4)
    g = _sampling._standard_gamma_grad(minitorch.tensor(x.astype(np.float32)), minitorch.tensor(alpha))
    assert g.dtype == minitorch.float32
    a64 = alpha.astype(np.float64)
    h = a64 * 1e-5
    fd = (sp.gammaincinv(a64 + h, 0.4) - sp.gammaincinv(a64 - h, 0.4)) / (2 * h)
    np.testing.assert_allclose(_np(g), fd, rtol=1e-5)


def test_gamma_rsample_gradient_large_batch_and_rate():
    # x = g / rate: d x / d rate = -x / rate exactly; d x / d alpha from the implicit gradient
    minitorch.manual_seed(0)
    a = T([0.3, 4.0, 50.0], grad=True)
    r = T([2.0, 0.5, 1.0], grad=True)
    x = D.Gamma(a, r).rsample((1000,))
    ga, gr = minitorch.autograd.grad(x.sum(), [a, r])
    np.testing.assert_allclose(_np(gr), -(_np(x) / _np(r)).sum(0), rtol=1e-10)
    g = _np(x) * _np(r)  # the standard-gamma draws
    u = sp.gammainc(_np(a), g)
    h = _np(a) * 1e-6
    fd = (sp.gammaincinv(_np(a) + h, u) - sp.gammaincinv(_np(a) - h, u)) / (2 * h)
    np.testing.assert_allclose(_np(ga), (fd / _np(r)).sum(0), rtol=1e-5)


def test_beta_dirichlet_rsample_expected_gradients():
    # Beta/Dirichlet rsample normalizes reparameterized Gamma draws: its per-draw gradient is pathwise, not the
    # quantile one, so check its expectation: d E[x] / d alpha for Beta(a, b) is b / (a + b)^2, and d E[x^2] / d a
    # is d/da [a (a + 1) / ((a + b)(a + b + 1))]
    minitorch.manual_seed(1)
    n = 200_000
    a = T(1.5, grad=True)
    b = T(3.0, grad=True)
    x = D.Beta(a, b).rsample((n,))
    ga, gb = minitorch.autograd.grad(x.mean(), [a, b], retain_graph=True)
    np.testing.assert_allclose(_np(ga), 3.0 / 4.5**2, rtol=0.02)
    np.testing.assert_allclose(_np(gb), -1.5 / 4.5**2, rtol=0.02)
    ga2, gb2 = minitorch.autograd.grad((x * x).mean(), [a, b])

    def m2(a, b):
        return a * (a + 1) / ((a + b) * (a + b + 1))

    h = 1e-6
    np.testing.assert_allclose(_np(ga2), (m2(1.5 + h, 3.0) - m2(1.5 - h, 3.0)) / (2 * h), rtol=0.03)
    np.testing.assert_allclose(_np(gb2), (m2(1.5, 3.0 + h) - m2(1.5, 3.0 - h)) / (2 * h), rtol=0.03)
    # Dirichlet: d E[x_i] / d alpha_j = (delta_ij a0 - a_i) / a0^2
    alpha = T([0.7, 2.0, 4.0], grad=True)
    x = D.Dirichlet(alpha).rsample((n,))
    jac = np.stack(
        [_np(minitorch.autograd.grad(x[:, i].mean(), [alpha], retain_graph=True)[0]) for i in range(3)]
    )
    al = np.array([0.7, 2.0, 4.0])
    a0 = al.sum()
    exact = (np.eye(3) * a0 - al[:, None]) / a0**2
    np.testing.assert_allclose(jac, exact, atol=0.01 * np.abs(exact).max())


def test_studentt_rsample_gradients():
    minitorch.manual_seed(2)
    n = 200_000
    df = T(9.0, grad=True)
    loc = T(0.5, grad=True)
    scale = T(2.0, grad=True)
    x = D.StudentT(df, loc, scale).rsample((n,))
    _, gloc, gscale = minitorch.autograd.grad(x.sum(), [df, loc, scale])
    assert _np(gloc) == pytest.approx(n)
    np.testing.assert_allclose(_np(gscale), ((_np(x) - 0.5) / 2.0).sum(), rtol=1e-10)
    # E[(x - loc)^2] = scale^2 df / (df - 2): its df-derivative is -2 scale^2 / (df - 2)^2
    df = T(9.0, grad=True)
    y = D.StudentT(df).rsample((n,))
    (g,) = minitorch.autograd.grad((y * y).mean(), [df])
    np.testing.assert_allclose(_np(g), -2.0 / 49.0, rtol=0.1)


def _seeded(fn, seed=0):
    # the same noise on every call, so a sample is a smooth function of the parameters (for gradcheck)
    def run(*args):
        minitorch.manual_seed(seed)
        return fn(*args)

    return run


@pytest.mark.parametrize(
    "fn, args",
    [
        (lambda m, s: D.Normal(m, s).rsample((3,)), ([0.3, -1.0], [1.5, 0.2])),
        (lambda lo, hi: D.Uniform(lo, hi).rsample((3,)), ([0.0, -1.0], [2.0, 3.0])),
        (lambda m, s: D.Laplace(m, s).rsample((3,)), ([0.3, -1.0], [1.5, 0.2])),
        (lambda r: D.Exponential(r).rsample((3,)), ([0.5, 3.0],)),
        (lambda m, s: D.LogNormal(m, s).rsample((3,)), ([0.3, -1.0], [0.5, 0.2])),
        (lambda m, s: D.Cauchy(m, s).rsample((3,)), ([0.3, -1.0], [1.5, 0.2])),
        (lambda s: D.HalfNormal(s).rsample((3,)), ([1.5, 0.2],)),
        (lambda m, s: D.Gumbel(m, s).rsample((3,)), ([0.3, -1.0], [1.5, 0.2])),
        (lambda a, b: D.Kumaraswamy(a, b).rsample((3,)), ([0.5, 2.0], [1.5, 0.7])),
        (lambda s, a: D.Pareto(s, a).rsample((3,)), ([0.5, 2.0], [1.5, 3.0])),
        (lambda s, k: D.Weibull(s, k).rsample((3,)), ([0.5, 2.0], [1.5, 0.7])),
        (lambda m, s: D.LogisticNormal(m, s).rsample((3,)), ([0.5, -1.0], [1.5, 0.7])),
        (lambda lg: D.RelaxedBernoulli(T(0.7), logits=lg).rsample((3,)), ([0.3, -1.0],)),
        (lambda p: D.RelaxedBernoulli(T(0.7), probs=p).rsample((3,)), ([0.3, 0.8],)),
        (lambda lg: D.RelaxedOneHotCategorical(T(0.7), logits=lg).rsample((3,)), ([0.3, -1.0, 0.2],)),
        (lambda t: D.RelaxedOneHotCategorical(t, logits=T([0.3, -1.0, 0.2])).rsample((3,)), (0.7,)),
    ],
)
def test_rsample_gradcheck_at_fixed_noise(fn, args):
    inputs = tuple(T(a, grad=True) for a in args)
    assert minitorch.autograd.gradcheck(_seeded(fn), inputs)


LOGPROB_GRADCHECK = [
    (lambda m, s: D.Normal(m, s).log_prob(T([0.2, 3.0])), ([0.3, -1.0], [1.5, 0.7])),
    (lambda m, s: D.Laplace(m, s).log_prob(T([0.2, 3.0])), ([0.3, -1.0], [1.5, 0.7])),
    (lambda m, s: D.Cauchy(m, s).log_prob(T([0.2, 3.0])), ([0.3, -1.0], [1.5, 0.7])),
    (lambda a, r: D.Gamma(a, r).log_prob(T([0.2, 3.0])), ([0.5, 3.0], [1.5, 0.7])),
    (lambda a, b: D.Beta(a, b).log_prob(T([0.2, 0.9])), ([0.5, 3.0], [1.5, 0.7])),
    (lambda a: D.Dirichlet(a).log_prob(T([0.2, 0.3, 0.5])), ([0.5, 3.0, 1.2],)),
    (lambda df, m, s: D.StudentT(df, m, s).log_prob(T([0.2, 3.0])), ([3.0, 5.0], [0.3, -1.0], [1.5, 0.7])),
    (lambda r: D.Poisson(r).log_prob(T([0.0, 3.0])), ([0.5, 3.0],)),
    (lambda p: D.Binomial(7, p).log_prob(T([0.0, 3.0])), ([0.5, 0.3],)),
    (lambda lg: D.Binomial(7, logits=lg).log_prob(T([0.0, 3.0])), ([0.5, -0.3],)),
    (lambda p: D.Geometric(p).log_prob(T([0.0, 3.0])), ([0.5, 0.3],)),
    (lambda p: D.Bernoulli(p).log_prob(T([0.0, 1.0])), ([0.5, 0.3],)),
    (
        lambda lg: D.Categorical(logits=lg).log_prob(minitorch.tensor([2, 0])),
        ([[0.5, 0.3, -1.0], [0.1, 0.2, 0.3]],),
    ),
    (lambda lg: D.Multinomial(5, logits=lg).log_prob(T([2.0, 0.0, 3.0])), ([0.5, 0.3, -1.0],)),
    (lambda m, s: D.LogNormal(m, s).log_prob(T([0.2, 3.0])), ([0.3, -1.0], [1.5, 0.7])),
    (lambda s: D.HalfNormal(s).log_prob(T([0.2, 3.0])), ([1.5, 0.7],)),
    (lambda m, s: D.Gumbel(m, s).log_prob(T([0.2, 3.0])), ([0.3, -1.0], [1.5, 0.7])),
    (lambda lo, hi: D.Uniform(lo, hi).log_prob(T([0.2, 0.5])), ([0.0, -1.0], [2.0, 3.0])),
    (lambda t, lg: D.RelaxedBernoulli(t, logits=lg).log_prob(T([0.2, 0.9])), (0.6, [0.5, -0.3])),
    (
        lambda t: D.RelaxedOneHotCategorical(t, logits=T([0.5, -0.3, 0.1])).log_prob(T([0.2, 0.3, 0.5])),
        (0.6,),
    ),
]


@pytest.mark.parametrize("idx", range(len(LOGPROB_GRADCHECK)))
def test_log_prob_gradcheck(idx):
    fn, args = LOGPROB_GRADCHECK[idx]
    assert minitorch.autograd.gradcheck(fn, tuple(T(a, grad=True) for a in args))


@pytest.mark.parametrize(
    "fn, args",
    [
        (lambda m, s: D.Normal(m, s).entropy(), ([0.3, -1.0], [1.5, 0.7])),
        (lambda a, r: D.Gamma(a, r).entropy(), ([0.5, 3.0], [1.5, 0.7])),
        (lambda a, b: D.Beta(a, b).entropy(), ([0.5, 3.0], [1.5, 0.7])),
        (lambda a: D.Dirichlet(a).entropy(), ([0.5, 3.0, 1.2],)),
        (lambda df: D.StudentT(df).entropy(), ([3.0, 5.0],)),
        (lambda lg: D.Categorical(logits=lg).entropy(), ([0.5, 0.3, -1.0],)),
        (lambda lg: D.Bernoulli(logits=lg).entropy(), ([0.5, -2.0],)),
        (lambda p: D.Binomial(6, p).entropy(), ([0.5, 0.2],)),
        (lambda p: D.Geometric(p).entropy(), ([0.5, 0.2],)),
    ],
)
def test_entropy_gradcheck(fn, args):
    assert minitorch.autograd.gradcheck(fn, tuple(T(a, grad=True) for a in args))


def test_gamma_cdf_gradcheck():
    # d/dx P(a, x) is the density; d/da through the implicit-gradient series
    assert minitorch.autograd.gradcheck(
        lambda a, r, x: D.Gamma(a, r).cdf(x),
        (T([0.5, 3.0, 20.0], grad=True), T([1.5, 0.7, 1.0], grad=True), T([0.2, 3.0, 25.0], grad=True)),
    )
    assert minitorch.autograd.gradcheck(lambda k: D.Chi2(k).cdf(T([0.5, 4.0])), (T([1.0, 6.0], grad=True),))


def test_exponential_family_entropy_matches_closed_form():
    # the generic Bregman entropy (ExponentialFamily.entropy) against each family's closed form (Beta and Dirichlet
    # give no carrier measure, as PyTorch's: closed form only)
    cases = [
        D.Normal(T([0.3, -1.0]), T([1.5, 0.7])),
        D.Gamma(T([0.5, 3.0]), T([1.5, 0.7])),
        D.Exponential(T([0.5, 3.0])),
        D.Bernoulli(T([0.2, 0.6])),
    ]
    for d in cases:
        np.testing.assert_allclose(_np(D.ExponentialFamily.entropy(d)), _np(d.entropy()), rtol=1e-10)


def test_sample_has_no_graph_rsample_has_one():
    loc = T([0.0, 1.0], grad=True)
    d = D.Normal(loc, T([1.0, 2.0]))
    assert not d.sample().requires_grad
    assert d.rsample().requires_grad
    g = D.Gamma(T([2.0], grad=True), T([1.0]))
    assert not g.sample().requires_grad and g.rsample().requires_grad
    with pytest.raises(NotImplementedError):
        D.Poisson(T([1.0])).rsample()
