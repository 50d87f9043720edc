"""Normal (Gaussian) with loc and scale; rsample is reparameterized (loc + scale * eps)."""

import math
import numbers
from typing import ClassVar

from minitorch import _C, _size
from minitorch.autograd import grad_mode
from minitorch.distributions import constraints
from minitorch.distributions.exp_family import ExponentialFamily
from minitorch.distributions.utils import _standard_normal, broadcast_all

__all__ = ["Normal"]


class Normal(ExponentialFamily):
    """The normal distribution with mean ``loc`` and standard deviation ``scale``."""

    arg_constraints: ClassVar[dict] = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True
    _mean_carrier_measure = 0

    def __init__(self, loc, scale, validate_args=None):
        self.loc, self.scale = broadcast_all(loc, scale)
        if isinstance(loc, numbers.Number) and isinstance(scale, numbers.Number):
            batch_shape = _size.Size()
        else:
            batch_shape = self.loc.size()
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        """A new instance with the batch dims expanded (as views, no copy) to ``batch_shape``."""
        new = self._get_checked_instance(Normal, _instance)
        batch_shape = _size.Size(batch_shape)
        new.loc = self.loc.expand(batch_shape)
        new.scale = self.scale.expand(batch_shape)
        super(Normal, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def mean(self):
        """The mean, ``loc``."""
        return self.loc

    @property
    def mode(self):
        """The mode, ``loc``."""
        return self.loc

    @property
    def stddev(self):
        """The standard deviation, ``scale``."""
        return self.scale

    @property
    def variance(self):
        """The variance, ``stddev.pow(2)``."""
        return self.stddev.pow(2)

    def sample(self, sample_shape=()):
        """A sample of shape ``sample_shape + batch_shape + event_shape``, without gradient."""
        with grad_mode.no_grad():
            return self.rsample(sample_shape)

    def rsample(self, sample_shape=()):
        """``loc + eps * scale`` with standard normal ``eps``: differentiable in ``loc`` and ``scale``."""
        shape = self._extended_shape(sample_shape)
        eps = _standard_normal(shape, dtype=self.loc.dtype, device=self.loc.device)
        return self.loc + eps * self.scale

    def log_prob(self, value):
        """Log of the probability density / mass at ``value``."""
        if self._validate_args:
            self._validate_sample(value)
        var = self.scale**2
        return -((value - self.loc) ** 2) / (2 * var) - self.scale.log() - math.log(math.sqrt(2 * math.pi))

    def cdf(self, value):
        """The cumulative distribution function at ``value``."""
        if self._validate_args:
            self._validate_sample(value)
        return 0.5 * (1 + _C.erf((value - self.loc) * self.scale.reciprocal() / math.sqrt(2)))

    def icdf(self, value):
        """The inverse cumulative distribution function at ``value``."""
        return self.loc + self.scale * _C.erfinv(2 * value - 1) * math.sqrt(2)

    def entropy(self):
        """The entropy of each distribution of the batch."""
        return 0.5 + 0.5 * math.log(2 * math.pi) + _C.log(self.scale)

    @property
    def _natural_params(self):
        return (self.loc / self.scale.pow(2), -0.5 * self.scale.pow(2).reciprocal())

    def _log_normalizer(self, x, y):
        return -0.25 * x.pow(2) / y + 0.5 * _C.log(-math.pi / y)
