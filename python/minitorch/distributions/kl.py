"""kl_divergence(p, q) and its registry: closed forms per (type of p, type of q) pair, chosen by the most specific
registered match (register_kl adds rules)."""

import functools
import math
import warnings

from minitorch import _C, _composite_shape, linalg
from minitorch import _composite_math as _cm
from minitorch import functional as _functional
from minitorch.autograd import engine, grad_mode
from minitorch.distributions.bernoulli import Bernoulli
from minitorch.distributions.beta import Beta
from minitorch.distributions.binomial import Binomial
from minitorch.distributions.categorical import Categorical
from minitorch.distributions.cauchy import Cauchy
from minitorch.distributions.continuous_bernoulli import ContinuousBernoulli
from minitorch.distributions.dirichlet import Dirichlet
from minitorch.distributions.distribution import Distribution
from minitorch.distributions.exp_family import ExponentialFamily
from minitorch.distributions.exponential import Exponential
from minitorch.distributions.gamma import Gamma
from minitorch.distributions.geometric import Geometric
from minitorch.distributions.gumbel import Gumbel
from minitorch.distributions.half_normal import HalfNormal
from minitorch.distributions.independent import Independent
from minitorch.distributions.laplace import Laplace
from minitorch.distributions.lowrank_multivariate_normal import (
    LowRankMultivariateNormal,
    _batch_lowrank_logdet,
    _batch_lowrank_mahalanobis,
)
from minitorch.distributions.multivariate_normal import MultivariateNormal, _batch_mahalanobis
from minitorch.distributions.normal import Normal
from minitorch.distributions.one_hot_categorical import OneHotCategorical
from minitorch.distributions.pareto import Pareto
from minitorch.distributions.poisson import Poisson
from minitorch.distributions.transformed_distribution import TransformedDistribution
from minitorch.distributions.uniform import Uniform
from minitorch.distributions.utils import _sum_rightmost, euler_constant
from minitorch.nn import functional as F

__all__ = ["kl_divergence", "register_kl"]

# The registered rules, and a cache from concrete type pairs to the rule dispatch chose for them.
_KL_REGISTRY = {}
_KL_MEMOIZE = {}


def register_kl(type_p, type_q):
    """Decorator registering ``fn(p, q)`` as KL(p || q) for p an instance of ``type_p`` and q of ``type_q``.

    Lookup takes the most specific registered pair by subclass order; when the order on p and the order on q
    disagree (two rules, each more specific on one side) it warns (RuntimeWarning) and takes the one more specific
    in p: register a rule for the exact pair to settle it."""
    if not isinstance(type_p, type) and issubclass(type_p, Distribution):
        raise TypeError(f"Expected type_p to be a Distribution subclass but got {type_p}")
    if not isinstance(type_q, type) and issubclass(type_q, Distribution):
        raise TypeError(f"Expected type_q to be a Distribution subclass but got {type_q}")

    def decorator(fun):
        _KL_REGISTRY[type_p, type_q] = fun
        _KL_MEMOIZE.clear()  # a new rule can change what any pair dispatches to
        return fun

    return decorator


@functools.total_ordering
class _Match:
    """A registered (type_p, type_q) ordered lexicographically by specificity: a <= b when a's first type is a
    subclass of b's, ties going on to the next type."""

    __slots__ = ["types"]

    def __init__(self, *types):
        self.types = types

    def __eq__(self, other):
        return self.types == other.types

    def __le__(self, other):
        for x, y in zip(self.types, other.types):
            if not issubclass(x, y):
                return False
            if x is not y:
                break
        return True


def _dispatch_kl(type_p, type_q):
    matches = [(bp, bq) for bp, bq in _KL_REGISTRY if issubclass(type_p, bp) and issubclass(type_q, bq)]
    if not matches:
        return NotImplemented
    left_p, left_q = min(_Match(*m) for m in matches).types
    right_q, right_p = min(_Match(*reversed(m)) for m in matches).types
    left_fun = _KL_REGISTRY[left_p, left_q]
    right_fun = _KL_REGISTRY[right_p, right_q]
    if left_fun is not right_fun:
        warnings.warn(
            f"Ambiguous kl_divergence({type_p.__name__}, {type_q.__name__}). "
            f"Please register_kl({left_p.__name__}, {right_q.__name__})",
            RuntimeWarning,
            stacklevel=2,
        )
    return left_fun


def kl_divergence(p, q):
    """KL(p || q) = E_p[log p(x) - log q(x)], one value per element of the batch.

    Raises NotImplementedError when no rule is registered for the pair."""
    try:
        fun = _KL_MEMOIZE[type(p), type(q)]
    except KeyError:
        fun = _dispatch_kl(type(p), type(q))
        _KL_MEMOIZE[type(p), type(q)] = fun
    if fun is NotImplemented:
        raise NotImplementedError(
            f"No KL(p || q) is implemented for p type {p.__class__.__name__} and q type {q.__class__.__name__}"
        )
    return fun(p, q)


def _infinite_like(t):
    return _C.full_like(t, math.inf)


def _x_log_x(t):
    return _cm.xlogy(t, t)  # 0 at t = 0


def _batch_trace_XXT(bmat):
    """trace(X X^T) (the squared Frobenius norm) over any batch dims."""
    n, m = bmat.size(-1), bmat.size(-2)
    return bmat.reshape(-1, m * n).pow(2).sum(-1).reshape(tuple(bmat.shape[:-2]))


# ---------------------------------------------------------------------------------------------- same family


@register_kl(Bernoulli, Bernoulli)
def _kl_bernoulli_bernoulli(p, q):
    # p log(p/q) + (1-p) log((1-p)/(1-q)), each log-ratio through softplus of the logits (no 0/0)
    t1 = p.probs * (F.softplus(-q.logits) - F.softplus(-p.logits))
    t1 = t1.masked_fill(q.probs == 0, math.inf).masked_fill(p.probs == 0, 0.0)
    t2 = (1 - p.probs) * (F.softplus(q.logits) - F.softplus(p.logits))
    t2 = t2.masked_fill(q.probs == 1, math.inf).masked_fill(p.probs == 1, 0.0)
    return t1 + t2


@register_kl(Beta, Beta)
def _kl_beta_beta(p, q):
    sp = p.concentration1 + p.concentration0
    sq = q.concentration1 + q.concentration0
    t1 = q.concentration1.lgamma() + q.concentration0.lgamma() + sp.lgamma()
    t2 = p.concentration1.lgamma() + p.concentration0.lgamma() + sq.lgamma()
    t3 = (p.concentration1 - q.concentration1) * _C.digamma(p.concentration1)
    t4 = (p.concentration0 - q.concentration0) * _C.digamma(p.concentration0)
    t5 = (sq - sp) * _C.digamma(sp)
    return t1 - t2 + t3 + t4 + t5


@register_kl(Binomial, Binomial)
def _kl_binomial_binomial(p, q):
    if bool((p.total_count < q.total_count).any()):
        raise NotImplementedError(
            "KL between Binomials where q.total_count > p.total_count is not implemented"
        )
    kl = p.total_count * (p.probs * (p.logits - q.logits) + (-p.probs).log1p() - (-q.probs).log1p())
    # p reaches counts q cannot
    return kl.masked_fill(p.total_count > q.total_count, math.inf)


@register_kl(Categorical, Categorical)
def _kl_categorical_categorical(p, q):
    t = p.probs * (p.logits - q.logits)
    t = t.masked_fill((q.probs == 0).expand_as(t), math.inf)
    t = t.masked_fill((p.probs == 0).expand_as(t), 0.0)
    return t.sum(-1)


@register_kl(ContinuousBernoulli, ContinuousBernoulli)
def _kl_continuous_bernoulli_continuous_bernoulli(p, q):
    t1 = p.mean * (p.logits - q.logits)
    t2 = p._cont_bern_log_norm() + _C.log1p(-p.probs)
    t3 = -q._cont_bern_log_norm() - _C.log1p(-q.probs)
    return t1 + t2 + t3


@register_kl(Dirichlet, Dirichlet)
def _kl_dirichlet_dirichlet(p, q):
    a0p = p.concentration.sum(-1)
    a0q = q.concentration.sum(-1)
    t1 = a0p.lgamma() - a0q.lgamma()
    t2 = (p.concentration.lgamma() - q.concentration.lgamma()).sum(-1)
    t3 = p.concentration - q.concentration
    t4 = p.concentration.digamma() - a0p.digamma().unsqueeze(-1)
    return t1 - t2 + (t3 * t4).sum(-1)


@register_kl(Exponential, Exponential)
def _kl_exponential_exponential(p, q):
    r = q.rate / p.rate
    return -r.log() + r - 1


@register_kl(ExponentialFamily, ExponentialFamily)
def _kl_expfamily_expfamily(p, q):
    # The Bregman divergence of the log normalizer F: F(eta_q) - F(eta_p) - <eta_q - eta_p, grad F(eta_p)>.
    if type(p) is not type(q):
        raise NotImplementedError(
            "The cross KL-divergence between different exponential families cannot be computed using Bregman "
            "divergences"
        )
    p_nparams = [t.detach().requires_grad_() for t in p._natural_params]
    q_nparams = q._natural_params
    with grad_mode.enable_grad():
        lg = p._log_normalizer(*p_nparams)
        grads = engine.grad(lg.sum(), p_nparams, create_graph=True)
    result = q._log_normalizer(*q_nparams) - lg
    for pn, qn, g in zip(p_nparams, q_nparams, grads):
        result = result - _sum_rightmost((qn - pn) * g, len(q.event_shape))
    return result


@register_kl(Gamma, Gamma)
def _kl_gamma_gamma(p, q):
    t1 = q.concentration * (p.rate / q.rate).log()
    t2 = _C.lgamma(q.concentration) - _C.lgamma(p.concentration)
    t3 = (p.concentration - q.concentration) * _C.digamma(p.concentration)
    t4 = (q.rate - p.rate) * (p.concentration / p.rate)
    return t1 + t2 + t3 + t4


@register_kl(Gumbel, Gumbel)
def _kl_gumbel_gumbel(p, q):
    ct1 = p.scale / q.scale
    ct2 = q.loc / q.scale
    ct3 = p.loc / q.scale
    t1 = -ct1.log() - ct2 + ct3
    t2 = ct1 * euler_constant
    t3 = _C.exp(ct2 + (1 + ct1).lgamma() - ct3)
    return t1 + t2 + t3 - (1 + euler_constant)


@register_kl(Geometric, Geometric)
def _kl_geometric_geometric(p, q):
    return -p.entropy() - _C.log1p(-q.probs) / p.probs - q.logits


@register_kl(HalfNormal, HalfNormal)
def _kl_halfnormal_halfnormal(p, q):
    return _kl_normal_normal(p.base_dist, q.base_dist)


@register_kl(Laplace, Laplace)
def _kl_laplace_laplace(p, q):
    ratio = p.scale / q.scale
    d = (p.loc - q.loc).abs()
    return -ratio.log() + d / q.scale + ratio * _C.exp(-d / p.scale) - 1


@register_kl(MultivariateNormal, MultivariateNormal)
def _kl_multivariatenormal_multivariatenormal(p, q):
    # 1/2 [tr(S_q^-1 S_p) + (mu_q - mu_p)^T S_q^-1 (mu_q - mu_p) - n + log det S_q - log det S_p], all through the
    # Cholesky factors: tr(S_q^-1 S_p) = ||L_q^-1 L_p||_F^2.
    if p.event_shape != q.event_shape:
        raise ValueError(
            "KL-divergence between two Multivariate Normals with different event shapes cannot be computed"
        )
    lp, lq = p._unbroadcasted_scale_tril, q._unbroadcasted_scale_tril
    half_term1 = lq.diagonal(0, -2, -1).log().sum(-1) - lp.diagonal(0, -2, -1).log().sum(-1)
    batch = tuple(_functional.broadcast_shapes(tuple(lq.shape[:-2]), tuple(lp.shape[:-2])))
    n = p.event_shape[0]
    term2 = _batch_trace_XXT(
        linalg.solve_triangular(lq.expand(batch + (n, n)), lp.expand(batch + (n, n)), upper=False)
    )
    term3 = _batch_mahalanobis(lq, q.loc - p.loc)
    return half_term1 + 0.5 * (term2 + term3 - n)


def _lowrank_precision_factor(q):
    # A = L_C^-1 W^T D^-1, so that Sigma_q^-1 = D^-1 - A^T A (Woodbury)
    wt_dinv = q._unbroadcasted_cov_factor.transpose(-2, -1) / q._unbroadcasted_cov_diag.unsqueeze(-2)
    return linalg.solve_triangular(q._capacitance_tril, wt_dinv, upper=False)


def _lowrank_logdet(d):
    return _batch_lowrank_logdet(d._unbroadcasted_cov_factor, d._unbroadcasted_cov_diag, d._capacitance_tril)


def _lowrank_mahalanobis(q, x):
    return _batch_lowrank_mahalanobis(
        q._unbroadcasted_cov_factor, q._unbroadcasted_cov_diag, x, q._capacitance_tril
    )


def _check_gaussian_events(p, q):
    if p.event_shape != q.event_shape:
        raise ValueError(
            "KL-divergence between two (Low Rank) Multivariate Normals with different event shapes cannot be "
            "computed"
        )


@register_kl(LowRankMultivariateNormal, LowRankMultivariateNormal)
def _kl_lowrank_lowrank(p, q):
    # 1/2 [log|S_q| - log|S_p| + tr(S_q^-1 S_p) + mahalanobis_q(mu_q - mu_p) - n] with S_q^-1 = D_q^-1 - A^T A and
    # S_p = W_p W_p^T + D_p: tr = sum(D_p / D_q) + |D_q^-1/2 W_p|^2 - |A D_p^1/2|^2 - |A W_p|^2
    _check_gaussian_events(p, q)
    A = _lowrank_precision_factor(q)
    wp, dp, dq = p._unbroadcasted_cov_factor, p._unbroadcasted_cov_diag, q._unbroadcasted_cov_diag
    trace = (
        (dp / dq).sum(-1)
        + _batch_trace_XXT(wp * dq.rsqrt().unsqueeze(-1))
        - _batch_trace_XXT(A * dp.sqrt().unsqueeze(-2))
        - _batch_trace_XXT(A @ wp)
    )
    logdet = _lowrank_logdet(q) - _lowrank_logdet(p)
    return 0.5 * (logdet + trace + _lowrank_mahalanobis(q, q.loc - p.loc) - p.event_shape[0])


@register_kl(MultivariateNormal, LowRankMultivariateNormal)
def _kl_multivariatenormal_lowrank(p, q):
    _check_gaussian_events(p, q)
    A = _lowrank_precision_factor(q)
    lp = p._unbroadcasted_scale_tril
    trace = _batch_trace_XXT(lp * q._unbroadcasted_cov_diag.rsqrt().unsqueeze(-1)) - _batch_trace_XXT(A @ lp)
    logdet = _lowrank_logdet(q) - 2 * lp.diagonal(0, -2, -1).log().sum(-1)
    return 0.5 * (logdet + trace + _lowrank_mahalanobis(q, q.loc - p.loc) - p.event_shape[0])


@register_kl(LowRankMultivariateNormal, MultivariateNormal)
def _kl_lowrank_multivariatenormal(p, q):
    # tr(S_q^-1 S_p) = |L_q^-1 W_p|^2 + |L_q^-1 D_p^1/2|^2
    _check_gaussian_events(p, q)
    lq = q._unbroadcasted_scale_tril
    wp = p._unbroadcasted_cov_factor
    n, rank = p.event_shape[0], wp.size(-1)
    batch = tuple(_functional.broadcast_shapes(tuple(lq.shape[:-2]), tuple(wp.shape[:-2])))
    lq_b = lq.expand(batch + (n, n))
    d_half = _composite_shape.diag_embed(p._unbroadcasted_cov_diag.sqrt()).expand(batch + (n, n))
    trace = _batch_trace_XXT(linalg.solve_triangular(lq_b, wp.expand(batch + (n, rank)), upper=False))
    trace = trace + _batch_trace_XXT(linalg.solve_triangular(lq_b, d_half, upper=False))
    logdet = 2 * lq.diagonal(0, -2, -1).log().sum(-1) - _lowrank_logdet(p)
    return 0.5 * (logdet + trace + _batch_mahalanobis(lq, q.loc - p.loc) - n)


@register_kl(Normal, Normal)
def _kl_normal_normal(p, q):
    var_ratio = (p.scale / q.scale).pow(2)
    t1 = ((p.loc - q.loc) / q.scale).pow(2)
    return 0.5 * (var_ratio + t1 - 1 - var_ratio.log())


@register_kl(OneHotCategorical, OneHotCategorical)
def _kl_onehotcategorical_onehotcategorical(p, q):
    return _kl_categorical_categorical(p._categorical, q._categorical)


@register_kl(Pareto, Pareto)
def _kl_pareto_pareto(p, q):
    scale_ratio = p.scale / q.scale
    alpha_ratio = q.alpha / p.alpha
    result = q.alpha * scale_ratio.log() - alpha_ratio.log() + alpha_ratio - 1
    # p puts mass below q's lower bound
    return result.masked_fill(p.scale < q.scale, math.inf)


@register_kl(Poisson, Poisson)
def _kl_poisson_poisson(p, q):
    return p.rate * (p.rate.log() - q.rate.log()) - (p.rate - q.rate)


@register_kl(TransformedDistribution, TransformedDistribution)
def _kl_transformed_transformed(p, q):
    # KL is invariant under a common bijection
    if p.transforms != q.transforms:
        raise NotImplementedError
    if p.event_shape != q.event_shape:
        raise NotImplementedError
    return kl_divergence(p.base_dist, q.base_dist)


@register_kl(Uniform, Uniform)
def _kl_uniform_uniform(p, q):
    result = ((q.high - q.low) / (p.high - p.low)).log()
    return result.masked_fill((q.low > p.low) | (q.high < p.high), math.inf)


@register_kl(Independent, Independent)
def _kl_independent_independent(p, q):
    if p.reinterpreted_batch_ndims != q.reinterpreted_batch_ndims:
        raise NotImplementedError
    return _sum_rightmost(kl_divergence(p.base_dist, q.base_dist), p.reinterpreted_batch_ndims)


@register_kl(Cauchy, Cauchy)
def _kl_cauchy_cauchy(p, q):
    t1 = ((p.scale + q.scale).pow(2) + (p.loc - q.loc).pow(2)).log()
    t2 = (4 * p.scale * q.scale).log()
    return t1 - t2


# ------------------------------------------------------------------------------------------ different families


@register_kl(Bernoulli, Poisson)
def _kl_bernoulli_poisson(p, q):
    return -p.entropy() - (p.probs * q.rate.log() - q.rate)


@register_kl(Beta, ContinuousBernoulli)
@register_kl(Uniform, ContinuousBernoulli)
def _kl_to_continuous_bernoulli(p, q):
    # -H(p) - E_p[log q(x)], with log q(x) = x logit(q) + log(1 - q) + log C(q)
    result = -p.entropy() - p.mean * q.logits - _C.log1p(-q.probs) - q._cont_bern_log_norm()
    if isinstance(p, Uniform):
        # (PyTorch 2.15 also calls Uniform(0, 1) infinitely far, comparing with >= / <=: the strict test is right)
        result = result.masked_fill((p.high > 1) | (p.low < 0), math.inf)
    return result


@register_kl(ContinuousBernoulli, Exponential)
def _kl_continuous_bernoulli_exponential(p, q):
    return -p.entropy() - _C.log(q.rate) + q.rate * p.mean


@register_kl(ContinuousBernoulli, Normal)
def _kl_continuous_bernoulli_normal(p, q):
    t1 = -p.entropy()
    t2 = 0.5 * (math.log(2.0 * math.pi) + (q.loc / q.scale).square()) + _C.log(q.scale)
    t3 = (p.variance + p.mean.square() - 2.0 * q.loc * p.mean) / (2.0 * q.scale.square())
    return t1 + t2 + t3


@register_kl(ContinuousBernoulli, Uniform)
def _kl_continuous_bernoulli_uniform(p, q):
    result = -p.entropy() + (q.high - q.low).log()
    # infinite when the uniform misses part of [0, 1] (PyTorch 2.15 also when it is exactly [0, 1])
    return result.masked_fill((q.low > 0) | (q.high < 1), math.inf)


@register_kl(ContinuousBernoulli, Pareto)
def _kl_continuous_bernoulli_infinity(p, q):
    return _infinite_like(p.probs)


@register_kl(Beta, Exponential)
def _kl_beta_exponential(p, q):
    return -p.entropy() - q.rate.log() + q.rate * (p.concentration1 / (p.concentration1 + p.concentration0))


@register_kl(Beta, Gamma)
def _kl_beta_gamma(p, q):
    t1 = -p.entropy()
    t2 = q.concentration.lgamma() - q.concentration * q.rate.log()
    t3 = (q.concentration - 1) * (
        p.concentration1.digamma() - (p.concentration1 + p.concentration0).digamma()
    )
    t4 = q.rate * p.concentration1 / (p.concentration1 + p.concentration0)
    return t1 + t2 - t3 + t4


@register_kl(Beta, Normal)
def _kl_beta_normal(p, q):
    mean = p.concentration1 / (p.concentration1 + p.concentration0)
    var_q = q.scale.pow(2)
    t1 = -p.entropy()
    t2 = 0.5 * (var_q * 2 * math.pi).log()
    second_moment = mean * (1 - mean) / (p.concentration1 + p.concentration0 + 1) + mean.pow(2)
    return t1 + t2 + (0.5 * second_moment - q.loc * mean + 0.5 * q.loc.pow(2)) / var_q


@register_kl(Beta, Uniform)
def _kl_beta_uniform(p, q):
    result = -p.entropy() + (q.high - q.low).log()
    return result.masked_fill((q.low > 0) | (q.high < 1), math.inf)


@register_kl(Exponential, Beta)
@register_kl(Exponential, ContinuousBernoulli)
@register_kl(Exponential, Pareto)
@register_kl(Exponential, Uniform)
def _kl_exponential_infinity(p, q):
    return _infinite_like(p.rate)


@register_kl(Exponential, Gamma)
def _kl_exponential_gamma(p, q):
    ratio = q.rate / p.rate
    t1 = -q.concentration * _C.log(ratio)
    return t1 + ratio + q.concentration.lgamma() + q.concentration * euler_constant - (1 + euler_constant)


@register_kl(Exponential, Gumbel)
def _kl_exponential_gumbel(p, q):
    prod = p.rate * q.scale
    ratio = q.loc / q.scale
    return prod.log() - 1 - ratio + _C.exp(ratio) * prod / (prod + 1) + prod.reciprocal()


@register_kl(Exponential, Normal)
def _kl_exponential_normal(p, q):
    var_q = q.scale.pow(2)
    rate2 = p.rate.pow(2)
    t1 = 0.5 * _C.log(rate2 * var_q * 2 * math.pi)
    return t1 - 1 + (rate2.reciprocal() - q.loc / p.rate + q.loc.pow(2) * 0.5) / var_q


@register_kl(Gamma, Beta)
@register_kl(Gamma, ContinuousBernoulli)
@register_kl(Gamma, Pareto)
@register_kl(Gamma, Uniform)
def _kl_gamma_infinity(p, q):
    return _infinite_like(p.concentration)


@register_kl(Gamma, Exponential)
def _kl_gamma_exponential(p, q):
    return -p.entropy() - q.rate.log() + q.rate * p.concentration / p.rate


@register_kl(Gamma, Normal)
def _kl_gamma_normal(p, q):
    var_q = q.scale.pow(2)
    rate2 = p.rate.pow(2)
    t1 = 0.5 * _C.log(rate2 * var_q * 2 * math.pi) - p.concentration - p.concentration.lgamma()
    t2 = 0.5 * (p.concentration.pow(2) + p.concentration) / rate2
    t3 = q.loc * p.concentration / p.rate
    t4 = 0.5 * q.loc.pow(2)
    return t1 + (p.concentration - 1) * p.concentration.digamma() + (t2 - t3 + t4) / var_q


@register_kl(Gumbel, Beta)
@register_kl(Gumbel, ContinuousBernoulli)
@register_kl(Gumbel, Exponential)
@register_kl(Laplace, Beta)
@register_kl(Laplace, ContinuousBernoulli)
@register_kl(Laplace, Exponential)
@register_kl(Laplace, Gamma)
@register_kl(Laplace, Pareto)
@register_kl(Laplace, Uniform)
def _kl_laplace_infinity(p, q):
    return _infinite_like(p.loc)


@register_kl(Gumbel, Normal)
def _kl_gumbel_normal(p, q):
    param_ratio = p.scale / q.scale
    t1 = (param_ratio / math.sqrt(2 * math.pi)).log()
    t2 = (math.pi * param_ratio * 0.5).pow(2) / 3
    t3 = ((p.loc + p.scale * euler_constant - q.loc) / q.scale).pow(2) * 0.5
    return -t1 + t2 + t3 - (euler_constant + 1)


@register_kl(Laplace, Normal)
def _kl_laplace_normal(p, q):
    var_q = q.scale.pow(2)
    ratio = p.scale.pow(2) / var_q
    t1 = 0.5 * _C.log(2 * ratio / math.pi)
    return -t1 + ratio + (0.5 * p.loc.pow(2) - p.loc * q.loc + 0.5 * q.loc.pow(2)) / var_q - 1


@register_kl(Normal, Beta)
@register_kl(Normal, ContinuousBernoulli)
@register_kl(Normal, Exponential)
@register_kl(Normal, Gamma)
@register_kl(Normal, Pareto)
@register_kl(Normal, Uniform)
def _kl_normal_infinity(p, q):
    return _infinite_like(p.loc)


@register_kl(Normal, Gumbel)
def _kl_normal_gumbel(p, q):
    mean_ratio = p.loc / q.scale
    var_ratio = (p.scale / q.scale).pow(2)
    loc_ratio = q.loc / q.scale
    t1 = var_ratio.log() * 0.5
    t2 = mean_ratio - loc_ratio
    t3 = _C.exp(-mean_ratio + 0.5 * var_ratio + loc_ratio)
    return -t1 + t2 + t3 - (0.5 * (1 + math.log(2 * math.pi)))


@register_kl(Normal, Laplace)
def _kl_normal_laplace(p, q):
    d = p.loc - q.loc
    ratio = p.scale / q.scale
    z = d / p.scale
    t2 = math.sqrt(2 / math.pi) * p.scale * _C.exp(-0.5 * z.pow(2))
    t3 = d * _C.erf(math.sqrt(0.5) * z)
    return -_C.log(ratio) + (t2 + t3) / q.scale - (0.5 * (1 + math.log(0.5 * math.pi)))


@register_kl(Beta, Pareto)
@register_kl(Pareto, Beta)
@register_kl(Pareto, ContinuousBernoulli)
@register_kl(Pareto, Uniform)
def _kl_to_pareto_or_from_pareto_infinity(p, q):
    return _infinite_like(p.scale if isinstance(p, Pareto) else p.concentration1)


@register_kl(Pareto, Exponential)
def _kl_pareto_exponential(p, q):
    prod = p.scale * q.rate
    result = (p.alpha / prod).log() - p.alpha.reciprocal() + p.alpha * prod / (p.alpha - 1) - 1
    return result.masked_fill(p.alpha <= 1, math.inf)  # p has no finite mean


@register_kl(Pareto, Gamma)
def _kl_pareto_gamma(p, q):
    common = p.scale.log() + p.alpha.reciprocal()
    t1 = p.alpha.log() - common
    t2 = q.concentration.lgamma() - q.concentration * q.rate.log()
    t3 = (1 - q.concentration) * common
    t4 = q.rate * p.alpha * p.scale / (p.alpha - 1)
    return (t1 + t2 + t3 + t4 - 1).masked_fill(p.alpha <= 1, math.inf)


@register_kl(Pareto, Normal)
def _kl_pareto_normal(p, q):
    var2 = 2 * q.scale.pow(2)
    common = p.scale / (p.alpha - 1)
    t1 = (math.sqrt(2 * math.pi) * q.scale * p.alpha / p.scale).log()
    t3 = p.alpha * common.pow(2) / (p.alpha - 2)
    t4 = (p.alpha * common - q.loc).pow(2)
    return (t1 - p.alpha.reciprocal() + (t3 + t4) / var2 - 1).masked_fill(p.alpha <= 2, math.inf)


@register_kl(Uniform, Pareto)
def _kl_uniform_pareto(p, q):
    width = p.high - p.low
    t1 = (q.alpha * q.scale.pow(q.alpha) * width).log()
    t2 = (_x_log_x(p.high) - _x_log_x(p.low) - width) / width
    return (t2 * (q.alpha + 1) - t1).masked_fill(p.low < q.scale, math.inf)


@register_kl(Poisson, Bernoulli)
@register_kl(Poisson, Binomial)
def _kl_poisson_infinity(p, q):
    return _infinite_like(p.rate)


@register_kl(Uniform, Beta)
def _kl_uniform_beta(p, q):
    width = p.high - p.low
    t1 = _C.log(width)
    t2 = (q.concentration1 - 1) * (_x_log_x(p.high) - _x_log_x(p.low) - width) / width
    t3 = (q.concentration0 - 1) * (_x_log_x(1 - p.high) - _x_log_x(1 - p.low) + width) / width
    t4 = (
        q.concentration1.lgamma() + q.concentration0.lgamma() - (q.concentration1 + q.concentration0).lgamma()
    )
    result = t3 + t4 - t1 - t2
    return result.masked_fill((p.high > 1) | (p.low < 0), math.inf)


@register_kl(Uniform, Exponential)
def _kl_uniform_exponential(p, q):
    result = q.rate * (p.high + p.low) / 2 - ((p.high - p.low) * q.rate).log()
    return result.masked_fill(p.low < 0, math.inf)


@register_kl(Uniform, Gamma)
def _kl_uniform_gamma(p, q):
    width = p.high - p.low
    t1 = width.log()
    t2 = q.concentration.lgamma() - q.concentration * q.rate.log()
    t3 = (1 - q.concentration) * (_x_log_x(p.high) - _x_log_x(p.low) - width) / width
    t4 = q.rate * (p.high + p.low) / 2
    result = -t1 + t2 + t3 + t4
    return result.masked_fill(p.low < 0, math.inf)


@register_kl(Uniform, Gumbel)
def _kl_uniform_gumbel(p, q):
    common = q.scale / (p.high - p.low)
    hi = (p.high - q.loc) / q.scale
    lo = (p.low - q.loc) / q.scale
    return common.log() + 0.5 * (hi + lo) - common * (_C.exp(-hi) - _C.exp(-lo))


@register_kl(Uniform, Normal)
def _kl_uniform_normal(p, q):
    width = p.high - p.low
    t1 = (math.sqrt(math.pi * 2) * q.scale / width).log()
    t2 = width.pow(2) / 12
    t3 = ((p.high + p.low - 2 * q.loc) / 2).pow(2)
    return t1 + 0.5 * (t2 + t3) / q.scale.pow(2)
