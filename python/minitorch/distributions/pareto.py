"""Pareto (type I) with scale and alpha: scale * exp(Exponential(alpha))."""

from typing import ClassVar

from minitorch.distributions import constraints
from minitorch.distributions.exponential import Exponential
from minitorch.distributions.transformed_distribution import TransformedDistribution
from minitorch.distributions.transforms import AffineTransform, ExpTransform
from minitorch.distributions.utils import broadcast_all

__all__ = ["Pareto"]


class Pareto(TransformedDistribution):
    """The Pareto distribution: density ``alpha scale^alpha / x^(alpha + 1)`` on ``x >= scale``."""

    arg_constraints: ClassVar[dict] = {"alpha": constraints.positive, "scale": constraints.positive}

    def __init__(self, scale, alpha, validate_args=None):
        self.scale, self.alpha = broadcast_all(scale, alpha)
        base = Exponential(self.alpha, validate_args=validate_args)
        super().__init__(
            base, [ExpTransform(), AffineTransform(loc=0, scale=self.scale)], validate_args=validate_args
        )

    def expand(self, batch_shape, _instance=None):
        """A new instance with the batch dims expanded (as views, no copy) to ``batch_shape``."""
        new = self._get_checked_instance(Pareto, _instance)
        new.scale = self.scale.expand(batch_shape)
        new.alpha = self.alpha.expand(batch_shape)
        return super().expand(batch_shape, _instance=new)

    @property
    def mean(self):
        """``alpha scale / (alpha - 1)``, infinite for alpha <= 1."""
        a = self.alpha.clamp(min=1)
        return a * self.scale / (a - 1)

    @property
    def mode(self):
        """The mode, ``scale``."""
        return self.scale

    @property
    def variance(self):
        """``scale^2 alpha / ((alpha - 1)^2 (alpha - 2))``, infinite for alpha <= 2."""
        a = self.alpha.clamp(min=2)
        return self.scale.pow(2) * a / ((a - 1).pow(2) * (a - 2))

    @constraints.dependent_property(is_discrete=False, event_dim=0)
    def support(self):
        """``[scale, inf)``."""
        return constraints.greater_than_eq(self.scale)

    def entropy(self):
        """The entropy of each distribution of the batch."""
        return (self.scale / self.alpha).log() + (1 + self.alpha.reciprocal())
