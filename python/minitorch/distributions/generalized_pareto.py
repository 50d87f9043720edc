"""GeneralizedPareto with loc, scale and concentration (shape xi); rsample by the inverse cdf."""

import math
import numbers
from typing import ClassVar

from minitorch import _C, _compare, _size
from minitorch.distributions import constraints
from minitorch.distributions.distribution import Distribution
from minitorch.distributions.utils import broadcast_all

__all__ = ["GeneralizedPareto"]


class GeneralizedPareto(Distribution):
    """The generalized Pareto distribution: survival ``(1 + xi z)^(-1/xi)`` with ``z = (x - loc) / scale``
    (``exp(-z)`` at xi = 0), on ``x >= loc`` (and ``x <= loc - scale / xi`` when xi < 0)."""

    arg_constraints: ClassVar[dict] = {
        "loc": constraints.real,
        "scale": constraints.positive,
        "concentration": constraints.real,
    }
    has_rsample = True

    def __init__(self, loc, scale, concentration, validate_args=None):
        self.loc, self.scale, self.concentration = broadcast_all(loc, scale, concentration)
        if all(isinstance(v, numbers.Number) for v in (loc, scale, concentration)):
            batch_shape = _size.Size()
        else:
            batch_shape = self.loc.size()
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        """A new instance with the batch dims expanded (as views, no copy) to ``batch_shape``."""
        return self._expand_params(
            GeneralizedPareto, ("loc", "scale", "concentration"), batch_shape, _instance
        )

    def _safe_concentration(self):
        # xi near 0 takes the exponential limit; elsewhere the formulas divide by xi
        eq_zero = _compare.isclose(self.concentration, _C.zeros_like(self.concentration))
        return eq_zero, _C._where(eq_zero, 1.0, self.concentration)

    def _z(self, x):
        return (x - self.loc) / self.scale

    def rsample(self, sample_shape=()):
        """The inverse cdf of a uniform: differentiable in all parameters."""
        shape = tuple(self._extended_shape(sample_shape))
        return self.icdf(_C.rand(shape, dtype=self.loc.dtype, device=self.loc.device))

    def log_prob(self, value):
        """Log of the probability density at ``value``."""
        if self._validate_args:
            self._validate_sample(value)
        z = self._z(value)
        eq_zero, xi = self._safe_concentration()
        y = 1 / xi + _C.ones_like(z)
        nonzero = _C._where(y == 0, y, y * _C.log1p(xi * z))
        return -self.scale.log() - _C._where(eq_zero, z, nonzero)

    def log_survival_function(self, value):
        """``log(1 - cdf(value))``."""
        if self._validate_args:
            self._validate_sample(value)
        z = self._z(value)
        eq_zero, xi = self._safe_concentration()
        return _C._where(eq_zero, -z, -_C.log1p(xi * z) / xi)

    def log_cdf(self, value):
        """``log(cdf(value))``."""
        return _C.log1p(-_C.exp(self.log_survival_function(value)))

    def cdf(self, value):
        """The cumulative distribution function at ``value``."""
        return _C.exp(self.log_cdf(value))

    def icdf(self, value):
        """The inverse cumulative distribution function at ``value``."""
        eq_zero, xi = self._safe_concentration()
        logu = _C.log1p(-value)
        nonzero = self.loc + self.scale / xi * _C.expm1(-xi * logu)
        return _C._where(eq_zero, self.loc - self.scale * logu, nonzero)

    @property
    def mean(self):
        """``loc + scale / (1 - xi)`` for xi < 1, NaN otherwise."""
        valid = self.concentration < 1
        xi = _C._where(valid, self.concentration, 0.5)
        return _C._where(valid, self.loc + self.scale / (1 - xi), math.nan)

    @property
    def variance(self):
        """``scale^2 / ((1 - xi)^2 (1 - 2 xi))`` for xi < 1/2, NaN otherwise."""
        valid = self.concentration < 0.5
        xi = _C._where(valid, self.concentration, 0.25)
        return _C._where(valid, self.scale**2 / ((1 - xi) ** 2 * (1 - 2 * xi)), math.nan)

    def entropy(self):
        """The entropy, ``log(scale) + xi + 1``."""
        return (_C.log(self.scale) + self.concentration + 1).expand(tuple(self._batch_shape))

    @property
    def mode(self):
        """The mode, ``loc``."""
        return self.loc

    @constraints.dependent_property(is_discrete=False, event_dim=0)
    def support(self):
        """``[loc, loc - scale / xi]`` for xi < 0, ``[loc, inf)`` otherwise."""
        lower = self.loc
        upper = _C._where(self.concentration < 0, lower - self.scale / self.concentration, math.inf)
        return constraints.interval(lower, upper)
