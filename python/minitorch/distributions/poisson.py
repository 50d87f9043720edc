"""Poisson with rate; vectorized sampling (inversion below rate 10, transformed rejection above)."""

import numbers
from typing import ClassVar

from minitorch import _C, _size
from minitorch import _composite_math as _cm
from minitorch.distributions import _sampling, constraints
from minitorch.distributions.exp_family import ExponentialFamily
from minitorch.distributions.utils import broadcast_all

__all__ = ["Poisson"]


class Poisson(ExponentialFamily):
    """The Poisson distribution: ``P(k) = rate^k e^-rate / k!`` on the nonnegative integers."""

    arg_constraints: ClassVar[dict] = {"rate": constraints.nonnegative}
    support = constraints.nonnegative_integer

    def __init__(self, rate, validate_args=None):
        (self.rate,) = broadcast_all(rate)
        batch_shape = _size.Size() if isinstance(rate, numbers.Number) else self.rate.size()
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        """A new instance with the batch dims expanded (as views, no copy) to ``batch_shape``."""
        return self._expand_params(Poisson, ("rate",), batch_shape, _instance)

    @property
    def mean(self):
        """The mean, ``rate``."""
        return self.rate

    @property
    def mode(self):
        """The mode, ``rate.floor()``."""
        return self.rate.floor()

    @property
    def variance(self):
        """The variance, ``rate``."""
        return self.rate

    def sample(self, sample_shape=()):
        """A sample of shape ``sample_shape + batch_shape + event_shape``, without gradient."""
        shape = tuple(self._extended_shape(sample_shape))
        return _sampling._poisson_sample(self.rate.detach().expand(shape))

    def log_prob(self, value):
        """Log of the probability density / mass at ``value``."""
        if self._validate_args:
            self._validate_sample(value)
        rate, value = broadcast_all(self.rate, value)
        return _cm.xlogy(value, rate) - rate - (value + 1).lgamma()

    @property
    def _natural_params(self):
        return (_C.log(self.rate),)

    def _log_normalizer(self, x):
        return _C.exp(x)
