"""ContinuousBernoulli on [0, 1]: density proportional to p^x (1 - p)^(1 - x) (Loaiza-Ganem & Cunningham, 2019)."""

import math
import numbers
from typing import ClassVar

from minitorch import _C, _size
from minitorch.autograd import grad_mode
from minitorch.distributions import constraints
from minitorch.distributions.exp_family import ExponentialFamily
from minitorch.distributions.utils import (
    broadcast_all,
    clamp_probs,
    lazy_property,
    logits_to_probs,
    probs_to_logits,
)
from minitorch.nn import functional as F

__all__ = ["ContinuousBernoulli"]


class ContinuousBernoulli(ExponentialFamily):
    """The continuous Bernoulli with ``probs`` in (0, 1) or ``logits`` (not a probability / log-odds, despite the
    names). Near probs = 1/2 the closed forms cancel: inside ``lims`` Taylor expansions are used instead."""

    arg_constraints: ClassVar[dict] = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.unit_interval
    _mean_carrier_measure = 0
    has_rsample = True

    def __init__(self, probs=None, logits=None, lims=(0.499, 0.501), validate_args=None):
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        if probs is not None:
            is_scalar = isinstance(probs, numbers.Number)
            (self.probs,) = broadcast_all(probs)
            # checked before clamping (validation below would see the clamped values)
            if validate_args is not None and not bool(self.arg_constraints["probs"].check(self.probs).all()):
                raise ValueError("The parameter probs has invalid values")
            self.probs = clamp_probs(self.probs)
        else:
            is_scalar = isinstance(logits, numbers.Number)
            (self.logits,) = broadcast_all(logits)
        self._param = self.probs if probs is not None else self.logits
        self._lims = lims
        super().__init__(_size.Size() if is_scalar else self._param.size(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        """A new instance with the batch dims expanded (as views, no copy) to ``batch_shape``."""
        new = self._get_checked_instance(ContinuousBernoulli, _instance)
        new._lims = self._lims
        batch_shape = _size.Size(batch_shape)
        if "probs" in self.__dict__:
            new.probs = self.probs.expand(batch_shape)
            new._param = new.probs
        if "logits" in self.__dict__:
            new.logits = self.logits.expand(batch_shape)
            new._param = new.logits
        super(ContinuousBernoulli, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def _new(self, *args, **kwargs):
        return self._param.new(*args, **kwargs)

    def _outside_unstable_region(self):
        return (self.probs <= self._lims[0]) | (self.probs > self._lims[1])

    def _cut_probs(self):
        return _C._where(self._outside_unstable_region(), self.probs, self._lims[0])

    def _cont_bern_log_norm(self):
        """The log normalizing constant ``log(2 atanh(1 - 2p) / (1 - 2p))`` as a function of probs."""
        p = self._cut_probs()
        below = _C._where(p <= 0.5, p, 0.0)
        above = _C._where(p >= 0.5, p, 1.0)
        log_norm = _C.log((_C.log1p(-p) - _C.log(p)).abs()) - _C._where(
            p <= 0.5, _C.log1p(-2.0 * below), _C.log(2.0 * above - 1.0)
        )
        x = (self.probs - 0.5).pow(2)
        taylor = math.log(2.0) + (4.0 / 3.0 + 104.0 / 45.0 * x) * x
        return _C._where(self._outside_unstable_region(), log_norm, taylor)

    @property
    def mean(self):
        """``p / (2p - 1) + 1 / (log(1 - p) - log p)`` (a Taylor series near 1/2)."""
        p = self._cut_probs()
        mus = p / (2.0 * p - 1.0) + 1.0 / (_C.log1p(-p) - _C.log(p))
        x = self.probs - 0.5
        taylor = 0.5 + (1.0 / 3.0 + 16.0 / 45.0 * x.pow(2)) * x
        return _C._where(self._outside_unstable_region(), mus, taylor)

    @property
    def stddev(self):
        """The standard deviation."""
        return self.variance.sqrt()

    @property
    def variance(self):
        """``p (p - 1) / (1 - 2p)^2 + 1 / (log(1 - p) - log p)^2`` (a Taylor series near 1/2)."""
        p = self._cut_probs()
        v = p * (p - 1.0) / (1.0 - 2.0 * p).pow(2) + 1.0 / (_C.log1p(-p) - _C.log(p)).pow(2)
        x = (self.probs - 0.5).pow(2)
        taylor = 1.0 / 12.0 - (1.0 / 15.0 - 128.0 / 945.0 * x) * x
        return _C._where(self._outside_unstable_region(), v, taylor)

    @lazy_property
    def logits(self):
        """``logit(probs)``, derived on first use."""
        return probs_to_logits(self.probs, is_binary=True)

    @lazy_property
    def probs(self):
        """``sigmoid(logits)`` clamped inside (0, 1), derived on first use."""
        return clamp_probs(logits_to_probs(self.logits, is_binary=True))

    @property
    def param_shape(self):
        """The shape of the parameter tensor (probs or logits)."""
        return self._param.size()

    def sample(self, sample_shape=()):
        """The inverse cdf of uniform draws, without gradient."""
        shape = tuple(self._extended_shape(sample_shape))
        u = _C.rand(shape, dtype=self.probs.dtype, device=self.probs.device)
        with grad_mode.no_grad():
            return self.icdf(u)

    def rsample(self, sample_shape=()):
        """The inverse cdf of uniform draws: differentiable in the parameter."""
        shape = tuple(self._extended_shape(sample_shape))
        return self.icdf(_C.rand(shape, dtype=self.probs.dtype, device=self.probs.device))

    def log_prob(self, value):
        """Log of the probability density at ``value``."""
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        return (
            -F.binary_cross_entropy_with_logits(logits, value, reduction="none") + self._cont_bern_log_norm()
        )

    def cdf(self, value):
        """The cumulative distribution function at ``value`` (0 below 0, 1 above 1)."""
        if self._validate_args:
            self._validate_sample(value)
        p = self._cut_probs()
        cdfs = (p.pow(value) * (1.0 - p).pow(1.0 - value) + p - 1.0) / (2.0 * p - 1.0)
        unbounded = _C._where(self._outside_unstable_region(), cdfs, value)
        return _C._where(value <= 0.0, 0.0, _C._where(value >= 1.0, 1.0, unbounded))

    def icdf(self, value):
        """The inverse cumulative distribution function at ``value``."""
        p = self._cut_probs()
        inv = (_C.log1p(-p + value * (2.0 * p - 1.0)) - _C.log1p(-p)) / (_C.log(p) - _C.log1p(-p))
        return _C._where(self._outside_unstable_region(), inv, value)

    def entropy(self):
        """The entropy of each distribution of the batch."""
        log_p0 = _C.log1p(-self.probs)
        log_p1 = _C.log(self.probs)
        return self.mean * (log_p0 - log_p1) - self._cont_bern_log_norm() - log_p0

    @property
    def _natural_params(self):
        return (self.logits,)

    def _log_normalizer(self, x):
        # log((e^x - 1) / x), a Taylor series near x = 0
        out = (x <= self._lims[0] - 0.5) | (x > self._lims[1] - 0.5)
        cut = _C._where(out, x, self._lims[0] - 0.5)
        log_norm = _C.log(_C.expm1(cut).abs()) - _C.log(cut.abs())
        taylor = 0.5 * x + x.pow(2) / 24.0 - x.pow(4) / 2880.0
        return _C._where(out, log_norm, taylor)
