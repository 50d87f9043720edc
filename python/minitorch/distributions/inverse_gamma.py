"""InverseGamma: 1 / X for X ~ Gamma(concentration, rate)."""

import math
from typing import ClassVar

from minitorch import _C
from minitorch.distributions import constraints
from minitorch.distributions.gamma import Gamma
from minitorch.distributions.transformed_distribution import TransformedDistribution
from minitorch.distributions.transforms import PowerTransform

__all__ = ["InverseGamma"]


class InverseGamma(TransformedDistribution):
    """``1 / X`` with ``X ~ Gamma(concentration, rate)``; rsample is reparameterized through the Gamma."""

    arg_constraints: ClassVar[dict] = {"concentration": constraints.positive, "rate": constraints.positive}
    support = constraints.positive
    has_rsample = True

    def __init__(self, concentration, rate, validate_args=None):
        base = Gamma(concentration, rate, validate_args=validate_args)
        neg_one = -base.rate.new_ones(())
        super().__init__(base, PowerTransform(neg_one), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        """A new instance with the batch dims expanded (as views, no copy) to ``batch_shape``."""
        new = self._get_checked_instance(InverseGamma, _instance)
        return super().expand(batch_shape, _instance=new)

    @property
    def concentration(self):
        """The shape (alpha) of the underlying Gamma."""
        return self.base_dist.concentration

    @property
    def rate(self):
        """The rate of the underlying Gamma (the scale of this distribution)."""
        return self.base_dist.rate

    @property
    def mean(self):
        """``rate / (concentration - 1)``, inf for concentration <= 1."""
        return _C._where(self.concentration > 1, self.rate / (self.concentration - 1), math.inf)

    @property
    def mode(self):
        """``rate / (concentration + 1)``."""
        return self.rate / (self.concentration + 1)

    @property
    def variance(self):
        """``rate^2 / ((concentration - 1)^2 (concentration - 2))``, inf for concentration <= 2."""
        v = self.rate.square() / ((self.concentration - 1).square() * (self.concentration - 2))
        return _C._where(self.concentration > 2, v, math.inf)

    def entropy(self):
        """The entropy of each distribution of the batch."""
        return (
            self.concentration
            + self.rate.log()
            + self.concentration.lgamma()
            - (1 + self.concentration) * self.concentration.digamma()
        )
