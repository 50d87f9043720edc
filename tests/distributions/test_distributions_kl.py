"""kl_divergence and its registry: every closed form against numerical integration (scipy.integrate.quad) or exact
sums of scipy's densities in float64, Monte Carlo for the Dirichlet; dispatch to the most specific rule,
ambiguity warnings, NotImplementedError in PyTorch's words; gradients through the KL."""

import math
import warnings

import numpy as np
import pytest
import scipy.integrate as si
import scipy.stats as st

import minitorch

D = minitorch.distributions
F64 = minitorch.float64


def T(x, grad=False):
    t = minitorch.tensor(np.asarray(x, dtype=np.float64), dtype=F64)
    return t.requires_grad_() if grad else t


def _np(t):
    return t.detach().numpy()


def _kl_quad(p, q, lo, hi):
    """KL(p || q) of two frozen scipy distributions by adaptive quadrature over [lo, hi]."""

    def f(x):
        lp = p.logpdf(x)
        return 0.0 if lp == -np.inf else math.exp(lp) * (lp - q.logpdf(x))

    # split at 0 and the medians, where densities often have kinks or spikes
    pts = sorted({lo, hi, *[v for v in (0.0, float(p.median()), float(q.median())) if lo < v < hi]})
    return sum(si.quad(f, a, b, limit=400, epsabs=1e-13, epsrel=1e-11)[0] for a, b in zip(pts[:-1], pts[1:]))


def _kl_sum(p, q, top):
    k = np.arange(top + 1)
    lp = p.logpmf(k)
    m = np.isfinite(lp)
    return float(np.sum(np.exp(lp[m]) * (lp[m] - q.logpmf(k[m]))))


# (ours p, ours q, scipy p, scipy q, integration range or ('sum', top))
CONT = {
    "Normal-Normal": (D.Normal(T(0.3), T(1.5)), D.Normal(T(-1.0), T(0.7)), st.norm(0.3, 1.5), st.norm(-1, 0.7)),
    "Laplace-Laplace": (D.Laplace(T(0.3), T(1.5)), D.Laplace(T(-1.0), T(0.7)), st.laplace(0.3, 1.5),
                        st.laplace(-1, 0.7)),
    "Cauchy-Cauchy": (D.Cauchy(T(0.3), T(1.5)), D.Cauchy(T(-1.0), T(0.7)), st.cauchy(0.3, 1.5), st.cauchy(-1, 0.7)),
    "Gumbel-Gumbel": (D.Gumbel(T(0.3), T(1.5)), D.Gumbel(T(-1.0), T(0.7)), st.gumbel_r(0.3, 1.5),
                      st.gumbel_r(-1, 0.7)),
    "Exponential-Exponential": (D.Exponential(T(0.5)), D.Exponential(T(2.0)), st.expon(scale=2.0),
                                st.expon(scale=0.5)),
    "Gamma-Gamma": (D.Gamma(T(2.5), T(1.5)), D.Gamma(T(0.8), T(0.6)), st.gamma(2.5, scale=1 / 1.5),
                    st.gamma(0.8, scale=1 / 0.6)),
    "Beta-Beta": (D.Beta(T(2.5), T(1.5)), D.Beta(T(0.8), T(3.0)), st.beta(2.5, 1.5), st.beta(0.8, 3.0)),
    "HalfNormal-HalfNormal": (D.HalfNormal(T(1.5)), D.HalfNormal(T(0.7)), st.halfnorm(scale=1.5),
                              st.halfnorm(scale=0.7)),
    "Uniform-Uniform": (D.Uniform(T(0.2), T(0.9)), D.Uniform(T(0.0), T(2.0)), st.uniform(0.2, 0.7),
                        st.uniform(0, 2)),
    "LogNormal-LogNormal": (D.LogNormal(T(0.3), T(0.5)), D.LogNormal(T(-0.2), T(0.9)),
                            st.lognorm(0.5, scale=math.exp(0.3)), st.lognorm(0.9, scale=math.exp(-0.2))),
    "Beta-Exponential": (D.Beta(T(2.5), T(1.5)), D.Exponential(T(2.0)), st.beta(2.5, 1.5), st.expon(scale=0.5)),
    "Beta-Gamma": (D.Beta(T(2.5), T(1.5)), D.Gamma(T(2.0), T(3.0)), st.beta(2.5, 1.5), st.gamma(2.0, scale=1 / 3)),
    "Beta-Normal": (D.Beta(T(2.5), T(1.5)), D.Normal(T(0.2), T(0.7)), st.beta(2.5, 1.5), st.norm(0.2, 0.7)),
    "Beta-Uniform": (D.Beta(T(2.5), T(1.5)), D.Uniform(T(-1.0), T(2.0)), st.beta(2.5, 1.5), st.uniform(-1, 3)),
    "Exponential-Gamma": (D.Exponential(T(0.5)), D.Gamma(T(2.0), T(3.0)), st.expon(scale=2.0),
                          st.gamma(2.0, scale=1 / 3)),
    "Exponential-Gumbel": (D.Exponential(T(1.5)), D.Gumbel(T(0.3), T(2.0)), st.expon(scale=1 / 1.5),
                           st.gumbel_r(0.3, 2.0)),
    "Exponential-Normal": (D.Exponential(T(1.5)), D.Normal(T(0.3), T(2.0)), st.expon(scale=1 / 1.5),
                           st.norm(0.3, 2.0)),
    "Gamma-Exponential": (D.Gamma(T(2.5), T(1.5)), D.Exponential(T(0.7)), st.gamma(2.5, scale=1 / 1.5),
                          st.expon(scale=1 / 0.7)),
    "Gamma-Normal": (D.Gamma(T(2.5), T(1.5)), D.Normal(T(1.0), T(2.0)), st.gamma(2.5, scale=1 / 1.5),
                     st.norm(1.0, 2.0)),
    "Gumbel-Normal": (D.Gumbel(T(0.3), T(1.5)), D.Normal(T(1.0), T(2.0)), st.gumbel_r(0.3, 1.5),
                      st.norm(1.0, 2.0)),
    "Laplace-Normal": (D.Laplace(T(0.3), T(1.5)), D.Normal(T(1.0), T(2.0)), st.laplace(0.3, 1.5),
                       st.norm(1.0, 2.0)),
    "Normal-Gumbel": (D.Normal(T(0.3), T(1.5)), D.Gumbel(T(1.0), T(2.0)), st.norm(0.3, 1.5), st.gumbel_r(1.0, 2.0)),
    "Normal-Laplace": (D.Normal(T(0.3), T(1.5)), D.Laplace(T(1.0), T(2.0)), st.norm(0.3, 1.5), st.laplace(1.0, 2.0)),
    "Uniform-Beta": (D.Uniform(T(0.2), T(0.9)), D.Beta(T(2.5), T(1.5)), st.uniform(0.2, 0.7), st.beta(2.5, 1.5)),
    "Uniform-Exponential": (D.Uniform(T(0.2), T(0.9)), D.Exponential(T(2.0)), st.uniform(0.2, 0.7),
                            st.expon(scale=0.5)),
    "Uniform-Gamma": (D.Uniform(T(0.2), T(0.9)), D.Gamma(T(2.0), T(3.0)), st.uniform(0.2, 0.7),
                      st.gamma(2.0, scale=1 / 3)),
    "Uniform-Gumbel": (D.Uniform(T(0.2), T(0.9)), D.Gumbel(T(0.3), T(2.0)), st.uniform(0.2, 0.7),
                       st.gumbel_r(0.3, 2.0)),
    "Uniform-Normal": (D.Uniform(T(0.2), T(0.9)), D.Normal(T(0.3), T(2.0)), st.uniform(0.2, 0.7),
                       st.norm(0.3, 2.0)),
    "Pareto-Pareto": (D.Pareto(T(1.5), T(3.0)), D.Pareto(T(1.0), T(2.0)), st.pareto(3.0, scale=1.5),
                      st.pareto(2.0, scale=1.0)),
    "Pareto-Exponential": (D.Pareto(T(1.5), T(3.0)), D.Exponential(T(0.7)), st.pareto(3.0, scale=1.5),
                           st.expon(scale=1 / 0.7)),
    "Pareto-Gamma": (D.Pareto(T(1.5), T(3.0)), D.Gamma(T(2.0), T(0.7)), st.pareto(3.0, scale=1.5),
                     st.gamma(2.0, scale=1 / 0.7)),
    "Pareto-Normal": (D.Pareto(T(1.5), T(3.5)), D.Normal(T(1.0), T(2.0)), st.pareto(3.5, scale=1.5),
                      st.norm(1.0, 2.0)),
    "Uniform-Pareto": (D.Uniform(T(1.2), T(1.9)), D.Pareto(T(1.0), T(2.0)), st.uniform(1.2, 0.7),
                       st.pareto(2.0, scale=1.0)),
}  # fmt: skip


@pytest.mark.parametrize("pair", sorted(CONT))
def test_kl_continuous_against_quadrature(pair):
    p, q, sp_p, sp_q = CONT[pair]
    lo, hi = sp_p.support()
    lo = max(lo, float(sp_p.ppf(1e-15)) - 1.0) if np.isinf(lo) else lo
    hi = min(hi, float(sp_p.ppf(1 - 1e-15)) + 1.0) if np.isinf(hi) else hi
    if pair.startswith(("Cauchy", "Pareto")):
        # heavy tails: integrate over the quantile instead, KL = int_0^1 (log p - log q)(F_p^-1(u)) du
        def f(u):
            x = sp_p.ppf(u)
            return sp_p.logpdf(x) - sp_q.logpdf(x)

        ref = si.quad(f, 0, 1, limit=400, epsabs=1e-13, epsrel=1e-11, points=[0.5])[0]
    else:
        ref = _kl_quad(sp_p, sp_q, lo, hi)
    np.testing.assert_allclose(_np(D.kl_divergence(p, q)), ref, rtol=2e-6, atol=1e-9)


DISC = {
    "Bernoulli-Bernoulli": (D.Bernoulli(T(0.3)), D.Bernoulli(T(0.8)), st.bernoulli(0.3), st.bernoulli(0.8), 1),
    "Binomial-Binomial": (D.Binomial(10, T(0.3)), D.Binomial(10, T(0.6)), st.binom(10, 0.3), st.binom(10, 0.6), 10),
    "Geometric-Geometric": (D.Geometric(T(0.3)), D.Geometric(T(0.6)), st.geom(0.3, loc=-1), st.geom(0.6, loc=-1),
                            400),
    "Poisson-Poisson": (D.Poisson(T(3.5)), D.Poisson(T(1.2)), st.poisson(3.5), st.poisson(1.2), 200),
    "Bernoulli-Poisson": (D.Bernoulli(T(0.3)), D.Poisson(T(1.2)), st.bernoulli(0.3), st.poisson(1.2), 1),
}  # fmt: skip


@pytest.mark.parametrize("pair", sorted(DISC))
def test_kl_discrete_against_sums(pair):
    p, q, sp_p, sp_q, top = DISC[pair]
    np.testing.assert_allclose(_np(D.kl_divergence(p, q)), _kl_sum(sp_p, sp_q, top), rtol=1e-10)


def test_kl_categorical_and_one_hot():
    pp = np.array([[0.2, 0.3, 0.5], [0.0, 0.4, 0.6]])
    qq = np.array([[0.1, 0.6, 0.3], [0.5, 0.25, 0.25]])
    ref = [np.sum(pp[0] * np.log(pp[0] / qq[0])), np.sum(pp[1, 1:] * np.log(pp[1, 1:] / qq[1, 1:]))]
    for cls in (D.Categorical, D.OneHotCategorical):
        np.testing.assert_allclose(_np(D.kl_divergence(cls(T(pp)), cls(T(qq)))), ref, rtol=1e-12)
    # q gives no mass where p does: infinite
    inf = D.kl_divergence(D.Categorical(T([0.5, 0.5])), D.Categorical(T([1.0, 0.0])))
    assert _np(inf) == math.inf
    kl = _np(D.kl_divergence(D.Bernoulli(T([0.0, 0.3])), D.Bernoulli(T([0.5, 1.0]))))
    assert kl[0] == pytest.approx(math.log(2), rel=1e-14) and kl[1] == math.inf


def test_kl_binomial_unequal_counts():
    kl = D.kl_divergence(D.Binomial(T([5.0, 7.0]), T([0.3, 0.3])), D.Binomial(T([5.0, 5.0]), T([0.4, 0.4])))
    assert _np(kl)[1] == math.inf and np.isfinite(_np(kl)[0])
    with pytest.raises(NotImplementedError, match="q.total_count > p.total_count is not implemented"):
        D.kl_divergence(D.Binomial(3, T(0.3)), D.Binomial(5, T(0.3)))


def test_kl_dirichlet_monte_carlo():
    a, b = np.array([0.7, 2.0, 4.0]), np.array([1.5, 1.0, 3.0])
    p, q = st.dirichlet(a), st.dirichlet(b)
    x = p.rvs(size=400_000, random_state=0)
    diff = p.logpdf(x.T) - q.logpdf(x.T)
    ours = _np(D.kl_divergence(D.Dirichlet(T(a)), D.Dirichlet(T(b))))
    assert abs(ours - diff.mean()) < 5 * diff.std() / math.sqrt(diff.size)
    # and Beta-Beta is the two-category case
    np.testing.assert_allclose(
        _np(D.kl_divergence(D.Beta(T(0.7), T(2.0)), D.Beta(T(1.5), T(1.0)))),
        _np(D.kl_divergence(D.Dirichlet(T([0.7, 2.0])), D.Dirichlet(T([1.5, 1.0])))),
        rtol=1e-12,
    )


def test_kl_infinite_pairs_and_support_mismatch():
    inf_pairs = [
        (D.Normal(T(0.0), T(1.0)), D.Gamma(T(1.0), T(1.0))),
        (D.Normal(T(0.0), T(1.0)), D.Uniform(T(0.0), T(1.0))),
        (D.Normal(T(0.0), T(1.0)), D.Exponential(T(1.0))),
        (D.Normal(T(0.0), T(1.0)), D.Beta(T(1.0), T(1.0))),
        (D.Exponential(T(1.0)), D.Uniform(T(0.0), T(1.0))),
        (D.Gamma(T(1.0), T(1.0)), D.Beta(T(1.0), T(1.0))),
        (D.Laplace(T(0.0), T(1.0)), D.Exponential(T(1.0))),
        (D.Gumbel(T(0.0), T(1.0)), D.Exponential(T(1.0))),
        (D.Poisson(T(1.0)), D.Bernoulli(T(0.5))),
        (D.Poisson(T(1.0)), D.Binomial(3, T(0.5))),
        (D.Normal(T(0.0), T(1.0)), D.Pareto(T(1.0), T(1.0))),
        (D.Pareto(T(1.0), T(1.0)), D.Uniform(T(0.0), T(5.0))),
        (D.Pareto(T(1.0), T(1.0)), D.Exponential(T(1.0))),  # alpha <= 1: no finite mean
        (D.Pareto(T(1.0), T(2.0)), D.Pareto(T(1.5), T(2.0))),  # p below q's support
    ]
    for p, q in inf_pairs:
        assert _np(D.kl_divergence(p, q)) == math.inf, (p, q)
    # uniform against a narrower uniform, or Beta against a uniform not covering [0, 1]
    assert _np(D.kl_divergence(D.Uniform(T(0.0), T(2.0)), D.Uniform(T(0.5), T(3.0)))) == math.inf
    assert _np(D.kl_divergence(D.Beta(T(2.0), T(2.0)), D.Uniform(T(0.1), T(3.0)))) == math.inf
    assert _np(D.kl_divergence(D.Uniform(T(-1.0), T(0.5)), D.Exponential(T(1.0)))) == math.inf


def test_kl_batched_and_independent():
    p = D.Normal(T([[0.0, 1.0], [2.0, 3.0]]), T([[1.0, 2.0], [0.5, 1.5]]))
    q = D.Normal(T([0.5, -0.5]), T([1.0, 1.0]))
    kl = D.kl_divergence(p, q)
    assert kl.shape == (2, 2)
    mp, sp_, mq, sq = _np(p.loc), _np(p.scale), _np(q.loc), _np(q.scale)
    # the closed form in NumPy
    np.testing.assert_allclose(_np(kl), np.log(sq / sp_) + (sp_**2 + (mp - mq) ** 2) / (2 * sq**2) - 0.5)
    ind = D.kl_divergence(D.Independent(p, 1), D.Independent(q.expand((2, 2)), 1))
    np.testing.assert_allclose(_np(ind), _np(kl).sum(-1), rtol=1e-12)
    with pytest.raises(NotImplementedError):
        D.kl_divergence(D.Independent(p, 1), D.Independent(p, 2))
    # transformed distributions with the same transforms reduce to their bases
    t = D.kl_divergence(D.LogNormal(T(0.0), T(1.0)), D.LogNormal(T(1.0), T(2.0)))
    np.testing.assert_allclose(
        _np(t), _np(D.kl_divergence(D.Normal(T(0.0), T(1.0)), D.Normal(T(1.0), T(2.0))))
    )
    with pytest.raises(NotImplementedError):
        D.kl_divergence(
            D.TransformedDistribution(D.Normal(T(0.0), T(1.0)), D.transforms.ExpTransform()),
            D.TransformedDistribution(D.Normal(T(0.0), T(1.0)), D.transforms.SigmoidTransform()),
        )


def test_kl_exponential_family_bregman():
    # the generic rule (Bregman divergence of the log normalizer) agrees with the closed forms
    bregman = D.kl._kl_expfamily_expfamily
    pairs = [
        (D.Normal(T([0.3, 1.0]), T([1.5, 0.4])), D.Normal(T([-1.0, 0.0]), T([0.7, 2.0]))),
        (D.Gamma(T([2.5, 0.5]), T([1.5, 2.0])), D.Gamma(T([0.8, 3.0]), T([0.6, 1.0]))),
        (D.Exponential(T([0.5, 3.0])), D.Exponential(T([2.0, 1.0]))),
        (D.Poisson(T([3.5, 0.2])), D.Poisson(T([1.2, 4.0]))),
        (D.Bernoulli(T([0.3, 0.9])), D.Bernoulli(T([0.8, 0.2]))),
        (D.Beta(T([2.5, 0.5]), T([1.5, 2.0])), D.Beta(T([0.8, 3.0]), T([3.0, 1.0]))),
        (D.Dirichlet(T([[0.7, 2.0, 4.0]])), D.Dirichlet(T([[1.5, 1.0, 3.0]]))),
    ]
    for p, q in pairs:
        np.testing.assert_allclose(_np(bregman(p, q)), _np(D.kl_divergence(p, q)), rtol=1e-9, err_msg=type(p))
    with pytest.raises(
        NotImplementedError, match="cross KL-divergence between different exponential families"
    ):
        D.kl_divergence(D.Normal(0.0, 1.0), D.Bernoulli(0.5))  # only the generic rule matches: it refuses


def test_kl_gradients():
    assert minitorch.autograd.gradcheck(
        lambda m, s: D.kl_divergence(D.Normal(m, s), D.Normal(T([0.1, 0.2]), T([1.0, 2.0]))),
        (T([0.3, -1.0], grad=True), T([1.5, 0.4], grad=True)),
    )
    assert minitorch.autograd.gradcheck(
        lambda a, b: D.kl_divergence(D.Beta(a, b), D.Beta(T(1.0), T(2.0))),
        (T([0.7, 2.0], grad=True), T([1.5, 3.0], grad=True)),
    )
    assert minitorch.autograd.gradcheck(
        lambda lg: D.kl_divergence(D.Categorical(logits=lg), D.Categorical(T([0.2, 0.3, 0.5]))),
        (T([0.1, -0.4, 0.3], grad=True),),
    )


# ---- the registry


class _MyNormal(D.Normal):
    pass


class _MyNormal2(_MyNormal):
    pass


def test_registry_dispatch_most_specific_and_not_implemented():
    p, q = _MyNormal(T(0.0), T(1.0)), _MyNormal(T(1.0), T(1.0))
    # a subclass falls back to its parent's rule
    np.testing.assert_allclose(_np(D.kl_divergence(p, q)), 0.5)
    saved = dict(D.kl._KL_REGISTRY)
    try:

        @D.register_kl(_MyNormal, D.Normal)
        def _mine(p, q):
            return T(42.0)

        assert (
            _np(D.kl_divergence(p, q)) == 42.0
        )  # more specific than (Normal, Normal): registering cleared the cache
        assert _np(D.kl_divergence(_MyNormal2(T(0.0), T(1.0)), q)) == 42.0
        assert _np(D.kl_divergence(D.Normal(T(0.0), T(1.0)), q)) == 0.5

        @D.register_kl(D.Normal, _MyNormal2)
        def _theirs(p, q):
            return T(7.0)

        # (MyNormal, Normal) and (Normal, MyNormal2) each win on one side: a warning, p's order decides
        with pytest.warns(RuntimeWarning, match="Ambiguous kl_divergence\\(_MyNormal, _MyNormal2\\)"):
            assert _np(D.kl_divergence(p, _MyNormal2(T(0.0), T(1.0)))) == 42.0
    finally:
        D.kl._KL_REGISTRY.clear()
        D.kl._KL_REGISTRY.update(saved)
        D.kl._KL_MEMOIZE.clear()
    with pytest.raises(NotImplementedError) as e:
        D.kl_divergence(D.Cauchy(T(1.0), T(1.0)), D.Normal(T(0.0), T(1.0)))
    assert str(e.value) == "No KL(p || q) is implemented for p type Cauchy and q type Normal"
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        D.kl_divergence(D.Normal(T(0.0), T(1.0)), D.Normal(T(1.0), T(1.0)))


def test_registry_contents():
    # the pairs a user most often reaches for are all registered
    reg = D.kl._KL_REGISTRY
    for pair in [(D.Normal, D.Normal), (D.MultivariateNormal, D.MultivariateNormal), (D.Independent, D.Independent),
                 (D.Categorical, D.Categorical), (D.Bernoulli, D.Bernoulli), (D.Beta, D.Beta), (D.Gamma, D.Gamma),
                 (D.Dirichlet, D.Dirichlet), (D.Exponential, D.Exponential), (D.Laplace, D.Laplace),
                 (D.Uniform, D.Uniform), (D.Poisson, D.Poisson), (D.TransformedDistribution,
                 D.TransformedDistribution)]:  # fmt: skip
        assert pair in reg, pair


def _cb_pdf(p):
    c = 2.0 if p == 0.5 else 2 * math.atanh(1 - 2 * p) / (1 - 2 * p)
    return lambda x: c * p**x * (1 - p) ** (1 - x)


def test_kl_continuous_bernoulli():
    def kl(logp, logq, lo, hi):
        return si.quad(lambda x: math.exp(logp(x)) * (logp(x) - logq(x)), lo, hi, limit=200, epsabs=1e-13)[0]

    def cb(p):
        f = _cb_pdf(p)
        return lambda x: math.log(f(x))

    cases = [
        (D.ContinuousBernoulli(T(0.2)), D.ContinuousBernoulli(T(0.9)), cb(0.2), cb(0.9), 0, 1),
        (D.Beta(T(2.0), T(3.0)), D.ContinuousBernoulli(T(0.3)), st.beta(2, 3).logpdf, cb(0.3), 0, 1),
        (
            D.Uniform(T(0.2), T(0.7)),
            D.ContinuousBernoulli(T(0.3)),
            st.uniform(0.2, 0.5).logpdf,
            cb(0.3),
            0.2,
            0.7,
        ),
        (D.Uniform(T(0.0), T(1.0)), D.ContinuousBernoulli(T(0.3)), st.uniform(0, 1).logpdf, cb(0.3), 0, 1),
        (D.ContinuousBernoulli(T(0.2)), D.Exponential(T(2.0)), cb(0.2), st.expon(scale=0.5).logpdf, 0, 1),
        (D.ContinuousBernoulli(T(0.2)), D.Normal(T(0.3), T(2.0)), cb(0.2), st.norm(0.3, 2).logpdf, 0, 1),
        (D.ContinuousBernoulli(T(0.2)), D.Uniform(T(-1.0), T(2.0)), cb(0.2), st.uniform(-1, 3).logpdf, 0, 1),
        (D.ContinuousBernoulli(T(0.2)), D.Uniform(T(0.0), T(1.0)), cb(0.2), st.uniform(0, 1).logpdf, 0, 1),
    ]
    for p, q, logp, logq, lo, hi in cases:
        np.testing.assert_allclose(
            _np(D.kl_divergence(p, q)), kl(logp, logq, lo, hi), rtol=1e-6, err_msg=(p, q)
        )
    for p, q in [
        (D.ContinuousBernoulli(T(0.2)), D.Uniform(T(0.1), T(2.0))),
        (D.Uniform(T(0.5), T(1.5)), D.ContinuousBernoulli(T(0.3))),
        (D.Normal(T(0.0), T(1.0)), D.ContinuousBernoulli(T(0.3))),
        (D.ContinuousBernoulli(T(0.2)), D.Pareto(T(1.0), T(2.0))),
    ]:
        assert _np(D.kl_divergence(p, q)) == math.inf
