"""Kumaraswamy on (0, 1): (1 - (1 - U)^(1/b))^(1/a) for uniform U."""

import math
from typing import ClassVar

from minitorch import _C
from minitorch.distributions import constraints
from minitorch.distributions.transformed_distribution import TransformedDistribution
from minitorch.distributions.transforms import AffineTransform, PowerTransform
from minitorch.distributions.uniform import Uniform
from minitorch.distributions.utils import broadcast_all, euler_constant

__all__ = ["Kumaraswamy"]


def _moments(a, b, n):
    # E[X^n] = b B(1 + n/a, b)
    arg1 = 1 + n / a
    return b * _C.exp(_C.lgamma(arg1) + _C.lgamma(b) - _C.lgamma(arg1 + b))


class Kumaraswamy(TransformedDistribution):
    """The Kumaraswamy distribution with ``concentration1`` (a) and ``concentration0`` (b): density
    ``a b x^(a-1) (1 - x^a)^(b-1)`` on (0, 1); rsample is reparameterized (closed-form inverse cdf)."""

    arg_constraints: ClassVar[dict] = {
        "concentration1": constraints.positive,
        "concentration0": constraints.positive,
    }
    support = constraints.unit_interval
    has_rsample = True

    def __init__(self, concentration1, concentration0, validate_args=None):
        self.concentration1, self.concentration0 = broadcast_all(concentration1, concentration0)
        base = Uniform(
            _C.full_like(self.concentration0, 0),
            _C.full_like(self.concentration0, 1),
            validate_args=validate_args,
        )
        transforms = [
            PowerTransform(exponent=self.concentration0.reciprocal()),
            AffineTransform(loc=1.0, scale=-1.0),
            PowerTransform(exponent=self.concentration1.reciprocal()),
        ]
        super().__init__(base, transforms, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        """A new instance with the batch dims expanded (as views, no copy) to ``batch_shape``."""
        new = self._get_checked_instance(Kumaraswamy, _instance)
        new.concentration1 = self.concentration1.expand(batch_shape)
        new.concentration0 = self.concentration0.expand(batch_shape)
        return super().expand(batch_shape, _instance=new)

    @property
    def mean(self):
        """``b B(1 + 1/a, b)``."""
        return _moments(self.concentration1, self.concentration0, 1)

    @property
    def mode(self):
        """``((a - 1) / (a b - 1))^(1/a)`` where a, b >= 1 (not both 1); NaN elsewhere. (PyTorch 2.15's formula
        evaluates log1p(-b) and gives NaN for every b > 1: this one is the density's maximum.)"""
        a, b = self.concentration1, self.concentration0
        log_mode = (_C.log(a - 1) - _C.log(a * b - 1)) / a
        return log_mode.masked_fill((b < 1) | (a < 1) | ((a == 1) & (b == 1)), math.nan).exp()

    @property
    def variance(self):
        """``E[X^2] - E[X]^2``."""
        return _moments(self.concentration1, self.concentration0, 2) - self.mean.pow(2)

    def entropy(self):
        """The entropy of each distribution of the batch."""
        t1 = 1 - self.concentration1.reciprocal()
        t0 = 1 - self.concentration0.reciprocal()
        h0 = _C.digamma(self.concentration0 + 1) + euler_constant
        return t0 + t1 * h0 - _C.log(self.concentration1) - _C.log(self.concentration0)
