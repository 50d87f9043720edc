"""Laplace (double exponential) with loc and scale; rsample by the inverse cdf."""

import numbers
from typing import ClassVar

from minitorch import _C, _dtype_info, _size
from minitorch.distributions import constraints
from minitorch.distributions.distribution import Distribution
from minitorch.distributions.utils import broadcast_all

__all__ = ["Laplace"]


class Laplace(Distribution):
    """The Laplace distribution: density ``exp(-|x - loc| / scale) / (2 scale)``."""

    arg_constraints: ClassVar[dict] = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    def __init__(self, loc, scale, validate_args=None):
        self.loc, self.scale = broadcast_all(loc, scale)
        if isinstance(loc, numbers.Number) and isinstance(scale, numbers.Number):
            batch_shape = _size.Size()
        else:
            batch_shape = self.loc.size()
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        """A new instance with the batch dims expanded (as views, no copy) to ``batch_shape``."""
        return self._expand_params(Laplace, ("loc", "scale"), batch_shape, _instance)

    @property
    def mean(self):
        """The mean, ``loc``."""
        return self.loc

    @property
    def mode(self):
        """The mode, ``loc``."""
        return self.loc

    @property
    def variance(self):
        """The variance, ``2 * scale.pow(2)``."""
        return 2 * self.scale.pow(2)

    @property
    def stddev(self):
        """The standard deviation, ``(2**0.5) * scale``."""
        return (2**0.5) * self.scale

    def rsample(self, sample_shape=()):
        """A reparameterized sample of shape ``sample_shape + batch_shape + event_shape``: differentiable in the parameters."""
        shape = self._extended_shape(sample_shape)
        eps = _dtype_info.finfo(self.loc.dtype).eps
        # u uniform on (eps - 1, 1): |u| < 1 keeps log1p(-|u|) finite
        u = _C.rand(tuple(shape), dtype=self.loc.dtype, device=self.loc.device) * (2 - eps) + (eps - 1)
        return self.loc - self.scale * u.sign() * _C.log1p(-u.abs())

    def log_prob(self, value):
        """Log of the probability density / mass at ``value``."""
        if self._validate_args:
            self._validate_sample(value)
        return -_C.log(2 * self.scale) - (value - self.loc).abs() / self.scale

    def cdf(self, value):
        """The cumulative distribution function at ``value``."""
        if self._validate_args:
            self._validate_sample(value)
        d = value - self.loc
        return 0.5 - 0.5 * d.sign() * _C.expm1(-d.abs() / self.scale)

    def icdf(self, value):
        """The inverse cumulative distribution function at ``value``."""
        term = value - 0.5
        return self.loc - self.scale * term.sign() * _C.log1p(-2 * term.abs())

    def entropy(self):
        """The entropy of each distribution of the batch."""
        return 1 + _C.log(2 * self.scale)
