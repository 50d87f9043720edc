"""Geometric: the number of failures before the first success, with probs or logits."""

import numbers
from typing import ClassVar

from minitorch import _C, _dtype_info, _size
from minitorch.autograd import grad_mode
from minitorch.distributions import constraints
from minitorch.distributions.distribution import Distribution
from minitorch.distributions.utils import broadcast_all, lazy_property, logits_to_probs, probs_to_logits
from minitorch.nn import functional as F

__all__ = ["Geometric"]


class Geometric(Distribution):
    """``P(k) = (1 - p)^k p`` for k = 0, 1, ...: the failures before the first success of Bernoulli(p) trials
    (``p`` in (0, 1])."""

    arg_constraints: ClassVar[dict] = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.nonnegative_integer

    def __init__(self, probs=None, logits=None, validate_args=None):
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        if probs is not None:
            (self.probs,) = broadcast_all(probs)
        else:
            (self.logits,) = broadcast_all(logits)
        given = probs if probs is not None else logits
        batch_shape = _size.Size() if isinstance(given, numbers.Number) else given.size()
        super().__init__(batch_shape, validate_args=validate_args)
        if self._validate_args and probs is not None:
            value = self.probs
            valid = value > 0
            if not bool(valid.all()):
                raise ValueError(
                    f"Expected parameter probs ({type(value).__name__} of shape {tuple(value.shape)}) "
                    f"of distribution {self!r} to be positive but found invalid values:\n{value.detach()[~valid]}"
                )

    def expand(self, batch_shape, _instance=None):
        """A new instance with the batch dims expanded (as views, no copy) to ``batch_shape``."""
        new = self._get_checked_instance(Geometric, _instance)
        batch_shape = _size.Size(batch_shape)
        if "probs" in self.__dict__:
            new.probs = self.probs.expand(batch_shape)
        if "logits" in self.__dict__:
            new.logits = self.logits.expand(batch_shape)
        super(Geometric, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def mean(self):
        """The mean, ``1.0 / probs - 1.0``."""
        return 1.0 / self.probs - 1.0

    @property
    def mode(self):
        """The mode, ``zeros_like(probs)``."""
        return _C.zeros_like(self.probs)

    @property
    def variance(self):
        """The variance, ``(1.0 / probs - 1.0) / probs``."""
        return (1.0 / self.probs - 1.0) / self.probs

    @lazy_property
    def logits(self):
        """The log-odds (binary) or normalized log-probabilities, derived from ``probs`` on first use."""
        return probs_to_logits(self.probs, is_binary=True)

    @lazy_property
    def probs(self):
        """The probabilities, derived from ``logits`` on first use."""
        return logits_to_probs(self.logits, is_binary=True)

    def sample(self, sample_shape=()):
        """``floor(log U / log(1 - p))``: the inverse cdf of a uniform in (0, 1]."""
        shape = tuple(self._extended_shape(sample_shape))
        tiny = _dtype_info.finfo(self.probs.dtype).tiny
        with grad_mode.no_grad():
            u = _C.rand(shape, dtype=self.probs.dtype, device=self.probs.device).clamp(min=tiny)
            return (u.log() / (-self.probs).log1p()).floor()

    def log_prob(self, value):
        """Log of the probability density / mass at ``value``."""
        if self._validate_args:
            self._validate_sample(value)
        value, probs = broadcast_all(value, self.probs)
        # p = 1 and k = 0: log1p(-1) * 0 would be -inf * 0 = NaN; the probability is 1
        probs = probs.masked_fill((probs == 1) & (value == 0), 0.0)
        return value * (-probs).log1p() + self.probs.log()

    def entropy(self):
        """The entropy of each distribution of the batch."""
        return F.binary_cross_entropy_with_logits(self.logits, self.probs, reduction="none") / self.probs
