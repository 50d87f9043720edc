"""Weibull with scale and concentration: scale * Exponential(1) ** (1 / concentration)."""

from typing import ClassVar

from minitorch import _C
from minitorch.distributions import constraints
from minitorch.distributions.exponential import Exponential
from minitorch.distributions.transformed_distribution import TransformedDistribution
from minitorch.distributions.transforms import AffineTransform, PowerTransform
from minitorch.distributions.utils import broadcast_all, euler_constant

__all__ = ["Weibull"]


class Weibull(TransformedDistribution):
    """The two-parameter Weibull distribution with ``scale`` (lambda) and ``concentration`` (k)."""

    arg_constraints: ClassVar[dict] = {"scale": constraints.positive, "concentration": constraints.positive}
    support = constraints.positive

    def __init__(self, scale, concentration, validate_args=None):
        self.scale, self.concentration = broadcast_all(scale, concentration)
        self.concentration_reciprocal = self.concentration.reciprocal()
        base = Exponential(_C.ones_like(self.scale), validate_args=validate_args)
        transforms = [
            PowerTransform(exponent=self.concentration_reciprocal),
            AffineTransform(loc=0, scale=self.scale),
        ]
        super().__init__(base, transforms, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        """A new instance with the batch dims expanded (as views, no copy) to ``batch_shape``."""
        new = self._get_checked_instance(Weibull, _instance)
        new.scale = self.scale.expand(batch_shape)
        new.concentration = self.concentration.expand(batch_shape)
        new.concentration_reciprocal = new.concentration.reciprocal()
        base = self.base_dist.expand(batch_shape)
        transforms = [
            PowerTransform(exponent=new.concentration_reciprocal),
            AffineTransform(loc=0, scale=new.scale),
        ]
        TransformedDistribution.__init__(new, base, transforms, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def mean(self):
        """``scale * Gamma(1 + 1/k)``."""
        return self.scale * _C.exp(_C.lgamma(1 + self.concentration_reciprocal))

    @property
    def mode(self):
        """``scale ((k - 1) / k)^(1/k)`` (NaN for k < 1, as PyTorch)."""
        return self.scale * ((self.concentration - 1) / self.concentration) ** self.concentration.reciprocal()

    @property
    def variance(self):
        """``scale^2 (Gamma(1 + 2/k) - Gamma(1 + 1/k)^2)``."""
        return self.scale.pow(2) * (
            _C.exp(_C.lgamma(1 + 2 * self.concentration_reciprocal))
            - _C.exp(2 * _C.lgamma(1 + self.concentration_reciprocal))
        )

    def entropy(self):
        """The entropy of each distribution of the batch."""
        return (
            euler_constant * (1 - self.concentration_reciprocal)
            + _C.log(self.scale * self.concentration_reciprocal)
            + 1
        )
