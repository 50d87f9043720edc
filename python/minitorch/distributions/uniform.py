"""Uniform on [low, high); rsample is reparameterized (low + u * (high - low))."""

import math
import numbers

from minitorch import _C, _size
from minitorch.distributions import constraints
from minitorch.distributions.distribution import Distribution
from minitorch.distributions.utils import broadcast_all

__all__ = ["Uniform"]


class Uniform(Distribution):
    """The uniform distribution on the half-open interval ``[low, high)``."""

    has_rsample = True

    @property
    def arg_constraints(self):
        """The constraints of the parameters (they depend on each other's values)."""
        return {"low": constraints.less_than(self.high), "high": constraints.greater_than(self.low)}

    def __init__(self, low, high, validate_args=None):
        self.low, self.high = broadcast_all(low, high)
        if isinstance(low, numbers.Number) and isinstance(high, numbers.Number):
            batch_shape = _size.Size()
        else:
            batch_shape = self.low.size()
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        """A new instance with the batch dims expanded (as views, no copy) to ``batch_shape``."""
        return self._expand_params(Uniform, ("low", "high"), batch_shape, _instance)

    @constraints.dependent_property(is_discrete=False, event_dim=0)
    def support(self):
        """The constraint of the values the distribution takes."""
        return constraints.interval(self.low, self.high)

    @property
    def mean(self):
        """The mean, ``(high + low) / 2``."""
        return (self.high + self.low) / 2

    @property
    def mode(self):
        """NaN: every point of the interval is a mode."""
        return math.nan * self.high

    @property
    def stddev(self):
        """The standard deviation, ``(high - low) / 12**0.5``."""
        return (self.high - self.low) / 12**0.5

    @property
    def variance(self):
        """The variance, ``(high - low).pow(2) / 12``."""
        return (self.high - self.low).pow(2) / 12

    def rsample(self, sample_shape=()):
        """A reparameterized sample of shape ``sample_shape + batch_shape + event_shape``: differentiable in the parameters."""
        shape = self._extended_shape(sample_shape)
        u = _C.rand(tuple(shape), dtype=self.low.dtype, device=self.low.device)
        return self.low + u * (self.high - self.low)

    def log_prob(self, value):
        """Log of the probability density / mass at ``value``."""
        if self._validate_args:
            self._validate_sample(value)
        inside = (self.low <= value).to(self.low.dtype) * (self.high > value).to(self.low.dtype)
        return _C.log(inside) - _C.log(self.high - self.low)

    def cdf(self, value):
        """The cumulative distribution function at ``value``."""
        if self._validate_args:
            self._validate_sample(value)
        return ((value - self.low) / (self.high - self.low)).clamp(min=0, max=1)

    def icdf(self, value):
        """The inverse cumulative distribution function at ``value``."""
        return value * (self.high - self.low) + self.low

    def entropy(self):
        """The entropy of each distribution of the batch."""
        return _C.log(self.high - self.low)
