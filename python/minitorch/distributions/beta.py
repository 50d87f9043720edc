"""Beta over [0, 1], a two-category Dirichlet; rsample is reparameterized through it."""

import numbers
from typing import ClassVar

from minitorch import _C, _creation, _size
from minitorch.distributions import constraints
from minitorch.distributions.dirichlet import Dirichlet
from minitorch.distributions.exp_family import ExponentialFamily
from minitorch.distributions.utils import broadcast_all

__all__ = ["Beta"]


class Beta(ExponentialFamily):
    """The Beta distribution with ``concentration1`` (alpha) and ``concentration0`` (beta)."""

    arg_constraints: ClassVar[dict] = {
        "concentration1": constraints.positive,
        "concentration0": constraints.positive,
    }
    support = constraints.unit_interval
    has_rsample = True

    def __init__(self, concentration1, concentration0, validate_args=None):
        if isinstance(concentration1, numbers.Number) and isinstance(concentration0, numbers.Number):
            both = _creation.tensor([float(concentration1), float(concentration0)])
        else:
            concentration1, concentration0 = broadcast_all(concentration1, concentration0)
            both = _C.stack([concentration1, concentration0], -1)
        self._dirichlet = Dirichlet(both, validate_args=validate_args)
        super().__init__(self._dirichlet._batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        """A new instance with the batch dims expanded (as views, no copy) to ``batch_shape``."""
        new = self._get_checked_instance(Beta, _instance)
        batch_shape = _size.Size(batch_shape)
        new._dirichlet = self._dirichlet.expand(batch_shape)
        super(Beta, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def mean(self):
        """The mean, ``concentration1 / (concentration1 + concentration0)``."""
        return self.concentration1 / (self.concentration1 + self.concentration0)

    @property
    def mode(self):
        """The mode, ``_dirichlet.mode[..., 0]``."""
        return self._dirichlet.mode[..., 0]

    @property
    def variance(self):
        """The variance."""
        total = self.concentration1 + self.concentration0
        return self.concentration1 * self.concentration0 / (total.pow(2) * (total + 1))

    def rsample(self, sample_shape=()):
        """A reparameterized sample of shape ``sample_shape + batch_shape + event_shape``: differentiable in the parameters."""
        return self._dirichlet.rsample(sample_shape).select(-1, 0)

    def log_prob(self, value):
        """Log of the probability density / mass at ``value``."""
        if self._validate_args:
            self._validate_sample(value)
        return self._dirichlet.log_prob(_C.stack([value, 1.0 - value], -1))

    def entropy(self):
        """The entropy of each distribution of the batch."""
        return self._dirichlet.entropy()

    @property
    def concentration1(self):
        """The first concentration (alpha)."""
        return self._dirichlet.concentration[..., 0]

    @property
    def concentration0(self):
        """The second concentration (beta)."""
        return self._dirichlet.concentration[..., 1]

    @property
    def _natural_params(self):
        return (self.concentration1, self.concentration0)

    def _log_normalizer(self, x, y):
        return _C.lgamma(x) + _C.lgamma(y) - _C.lgamma(x + y)
