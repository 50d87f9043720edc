"""HalfNormal: |X| for X ~ Normal(0, scale)."""

import math
from typing import ClassVar

from minitorch import _C
from minitorch.distributions import constraints
from minitorch.distributions.normal import Normal
from minitorch.distributions.transformed_distribution import TransformedDistribution
from minitorch.distributions.transforms import AbsTransform

__all__ = ["HalfNormal"]


class HalfNormal(TransformedDistribution):
    """``|X|`` with ``X ~ Normal(0, scale)``; rsample is reparameterized."""

    arg_constraints: ClassVar[dict] = {"scale": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True

    def __init__(self, scale, validate_args=None):
        base_dist = Normal(0, scale, validate_args=False)
        super().__init__(base_dist, AbsTransform(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        """A new instance with the batch dims expanded (as views, no copy) to ``batch_shape``."""
        new = self._get_checked_instance(HalfNormal, _instance)
        return super().expand(batch_shape, _instance=new)

    @property
    def scale(self):
        """The scale, ``base.scale``."""
        return self.base_dist.scale

    @property
    def mean(self):
        """The mean, ``scale * math.sqrt(2 / math.pi)``."""
        return self.scale * math.sqrt(2 / math.pi)

    @property
    def mode(self):
        """The mode, ``zeros_like(scale)``."""
        return _C.zeros_like(self.scale)

    @property
    def variance(self):
        """The variance, ``scale.pow(2) * (1 - 2 / math.pi)``."""
        return self.scale.pow(2) * (1 - 2 / math.pi)

    def log_prob(self, value):
        """Log of the probability density / mass at ``value``."""
        if self._validate_args:
            self._validate_sample(value)
        lp = self.base_dist.log_prob(value) + math.log(2)
        return _C._where(value >= 0, lp, -math.inf)

    def cdf(self, value):
        """The cumulative distribution function at ``value``."""
        if self._validate_args:
            self._validate_sample(value)
        return 2 * self.base_dist.cdf(value) - 1

    def icdf(self, prob):
        """The inverse cumulative distribution function at ``value``."""
        return self.base_dist.icdf((prob + 1) / 2)

    def entropy(self):
        """The entropy of each distribution of the batch."""
        return self.base_dist.entropy() - math.log(2)
