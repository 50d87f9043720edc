"""Gumbel (type-I extreme value) with loc and scale, as a transformed Uniform."""

import math
import numbers
from typing import ClassVar

from minitorch import _C, _dtype_info
from minitorch.distributions import constraints
from minitorch.distributions.transformed_distribution import TransformedDistribution
from minitorch.distributions.transforms import AffineTransform, ExpTransform
from minitorch.distributions.uniform import Uniform
from minitorch.distributions.utils import broadcast_all, euler_constant

__all__ = ["Gumbel"]


class Gumbel(TransformedDistribution):
    """``loc - scale * log(-log U)`` for ``U ~ Uniform(tiny, 1 - eps)``; density
    ``exp(-(z + e^-z)) / scale`` with ``z = (x - loc) / scale``."""

    arg_constraints: ClassVar[dict] = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real

    def __init__(self, loc, scale, validate_args=None):
        self.loc, self.scale = broadcast_all(loc, scale)
        fi = _dtype_info.finfo(self.loc.dtype)
        if isinstance(loc, numbers.Number) and isinstance(scale, numbers.Number):
            base = Uniform(fi.tiny, 1 - fi.eps, validate_args=validate_args)
        else:
            base = Uniform(
                _C.full_like(self.loc, fi.tiny),
                _C.full_like(self.loc, 1 - fi.eps),
                validate_args=validate_args,
            )
        transforms = [
            ExpTransform().inv,
            AffineTransform(loc=0, scale=-_C.ones_like(self.scale)),
            ExpTransform().inv,
            AffineTransform(loc=loc, scale=-self.scale),
        ]
        super().__init__(base, transforms, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        """A new instance with the batch dims expanded (as views, no copy) to ``batch_shape``."""
        new = self._get_checked_instance(Gumbel, _instance)
        new.loc = self.loc.expand(batch_shape)
        new.scale = self.scale.expand(batch_shape)
        return super().expand(batch_shape, _instance=new)

    def log_prob(self, value):
        """Log of the probability density / mass at ``value``."""
        if self._validate_args:
            self._validate_sample(value)
        y = (self.loc - value) / self.scale
        return (y - y.exp()) - self.scale.log()

    @property
    def mean(self):
        """The mean, ``loc + scale * euler_constant``."""
        return self.loc + self.scale * euler_constant

    @property
    def mode(self):
        """The mode, ``loc``."""
        return self.loc

    @property
    def stddev(self):
        """The standard deviation, ``(math.pi / math.sqrt(6)) * scale``."""
        return (math.pi / math.sqrt(6)) * self.scale

    @property
    def variance(self):
        """The variance, ``stddev.pow(2)``."""
        return self.stddev.pow(2)

    def entropy(self):
        """The entropy of each distribution of the batch."""
        return self.scale.log() + (1 + euler_constant)
