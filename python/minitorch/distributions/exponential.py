"""Exponential with rate; rsample by the inverse cdf."""

import numbers
from typing import ClassVar

from minitorch import _C, _size
from minitorch.distributions import constraints
from minitorch.distributions.exp_family import ExponentialFamily
from minitorch.distributions.utils import broadcast_all

__all__ = ["Exponential"]


def _standard_exponential(shape, dtype, device):
    # -log1p(-u) for u in [0, 1): finite, and exactly 0 only when u is
    return -_C.log1p(-_C.rand(tuple(shape), dtype=dtype, device=device))


class Exponential(ExponentialFamily):
    """The exponential distribution with ``rate`` (density ``rate * exp(-rate x)`` on x >= 0)."""

    arg_constraints: ClassVar[dict] = {"rate": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True
    _mean_carrier_measure = 0

    def __init__(self, rate, validate_args=None):
        (self.rate,) = broadcast_all(rate)
        batch_shape = _size.Size() if isinstance(rate, numbers.Number) else self.rate.size()
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        """A new instance with the batch dims expanded (as views, no copy) to ``batch_shape``."""
        return self._expand_params(Exponential, ("rate",), batch_shape, _instance)

    @property
    def mean(self):
        """The mean, ``rate.reciprocal()``."""
        return self.rate.reciprocal()

    @property
    def mode(self):
        """The mode, ``zeros_like(rate)``."""
        return _C.zeros_like(self.rate)

    @property
    def stddev(self):
        """The standard deviation, ``rate.reciprocal()``."""
        return self.rate.reciprocal()

    @property
    def variance(self):
        """The variance, ``rate.pow(-2)``."""
        return self.rate.pow(-2)

    def rsample(self, sample_shape=()):
        """A reparameterized sample of shape ``sample_shape + batch_shape + event_shape``: differentiable in the parameters."""
        shape = self._extended_shape(sample_shape)
        return _standard_exponential(shape, self.rate.dtype, self.rate.device) / self.rate

    def log_prob(self, value):
        """Log of the probability density / mass at ``value``."""
        if self._validate_args:
            self._validate_sample(value)
        return self.rate.log() - self.rate * value

    def cdf(self, value):
        """The cumulative distribution function at ``value``."""
        if self._validate_args:
            self._validate_sample(value)
        return 1 - _C.exp(-self.rate * value)

    def icdf(self, value):
        """The inverse cumulative distribution function at ``value``."""
        return -_C.log1p(-value) / self.rate

    def entropy(self):
        """The entropy of each distribution of the batch."""
        return 1.0 - _C.log(self.rate)

    @property
    def _natural_params(self):
        return (-self.rate,)

    def _log_normalizer(self, x):
        return -_C.log(-x)
