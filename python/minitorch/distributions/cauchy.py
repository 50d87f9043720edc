"""Cauchy (Lorentz) with loc and scale; rsample by the inverse cdf."""

import math
import numbers
from typing import ClassVar

from minitorch import _C, _size
from minitorch.distributions import constraints
from minitorch.distributions.distribution import Distribution
from minitorch.distributions.utils import broadcast_all

__all__ = ["Cauchy"]


class Cauchy(Distribution):
    """The Cauchy distribution: median ``loc``, half width at half maximum ``scale``."""

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
        return self._expand_params(Cauchy, ("loc", "scale"), batch_shape, _instance)

    @property
    def mean(self):
        """The mean."""
        return _C.full(tuple(self._extended_shape()), math.nan, dtype=self.loc.dtype, device=self.loc.device)

    @property
    def mode(self):
        """The mode, ``loc``."""
        return self.loc

    @property
    def variance(self):
        """The variance."""
        return _C.full(tuple(self._extended_shape()), math.inf, dtype=self.loc.dtype, device=self.loc.device)

    def rsample(self, sample_shape=()):
        """A reparameterized sample of shape ``sample_shape + batch_shape + event_shape``: differentiable in the parameters."""
        shape = self._extended_shape(sample_shape)
        u = _C.rand(tuple(shape), dtype=self.loc.dtype, device=self.loc.device)
        return self.loc + _C.tan(math.pi * (u - 0.5)) * self.scale

    def log_prob(self, value):
        """Log of the probability density / mass at ``value``."""
        if self._validate_args:
            self._validate_sample(value)
        return -math.log(math.pi) - self.scale.log() - (((value - self.loc) / self.scale) ** 2).log1p()

    def cdf(self, value):
        """The cumulative distribution function at ``value``."""
        if self._validate_args:
            self._validate_sample(value)
        return _C.atan((value - self.loc) / self.scale) / math.pi + 0.5

    def icdf(self, value):
        """The inverse cumulative distribution function at ``value``."""
        return _C.tan(math.pi * (value - 0.5)) * self.scale + self.loc

    def entropy(self):
        """The entropy of each distribution of the batch."""
        return math.log(4 * math.pi) + self.scale.log()
