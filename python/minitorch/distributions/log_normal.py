"""LogNormal: exp of a Normal(loc, scale)."""

from typing import ClassVar

from minitorch.distributions import constraints
from minitorch.distributions.normal import Normal
from minitorch.distributions.transformed_distribution import TransformedDistribution
from minitorch.distributions.transforms import ExpTransform

__all__ = ["LogNormal"]


class LogNormal(TransformedDistribution):
    """``Y = exp(X)`` with ``X ~ Normal(loc, scale)``; rsample is reparameterized."""

    arg_constraints: ClassVar[dict] = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.positive
    has_rsample = True

    def __init__(self, loc, scale, validate_args=None):
        base_dist = Normal(loc, scale, validate_args=validate_args)
        super().__init__(base_dist, ExpTransform(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        """A new instance with the batch dims expanded (as views, no copy) to ``batch_shape``."""
        new = self._get_checked_instance(LogNormal, _instance)
        return super().expand(batch_shape, _instance=new)

    @property
    def loc(self):
        """The location, ``base.loc``."""
        return self.base_dist.loc

    @property
    def scale(self):
        """The scale, ``base.scale``."""
        return self.base_dist.scale

    @property
    def mean(self):
        """The mean, ``(loc + scale.pow(2) / 2).exp()``."""
        return (self.loc + self.scale.pow(2) / 2).exp()

    @property
    def mode(self):
        """The mode, ``(loc - scale.square()).exp()``."""
        return (self.loc - self.scale.square()).exp()

    @property
    def variance(self):
        """The variance."""
        s2 = self.scale.pow(2)
        return s2.expm1() * (2 * self.loc + s2).exp()

    def entropy(self):
        """The entropy of each distribution of the batch."""
        return self.base_dist.entropy() + self.loc
