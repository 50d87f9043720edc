"""Bernoulli: a 0/1 variable with probability probs (or sigmoid(logits)) of 1."""

import math
import numbers
from typing import ClassVar

from minitorch import _C, _size
from minitorch.autograd import grad_mode
from minitorch.distributions import constraints
from minitorch.distributions.exp_family import ExponentialFamily
from minitorch.distributions.utils import broadcast_all, lazy_property, logits_to_probs, probs_to_logits
from minitorch.nn import functional as F

__all__ = ["Bernoulli"]


class Bernoulli(ExponentialFamily):
    """A 0/1 variable that is 1 with probability ``probs`` (or ``sigmoid(logits)``); the other parameter is
    derived on first use."""

    arg_constraints: ClassVar[dict] = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.boolean
    has_enumerate_support = True
    _mean_carrier_measure = 0

    def __init__(self, probs=None, logits=None, validate_args=None):
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        if probs is not None:
            is_scalar = isinstance(probs, numbers.Number)
            (self.probs,) = broadcast_all(probs)
        else:
            is_scalar = isinstance(logits, numbers.Number)
            (self.logits,) = broadcast_all(logits)
        self._param = self.probs if probs is not None else self.logits
        batch_shape = _size.Size() if is_scalar else self._param.size()
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        """A new instance with the batch dims expanded (as views, no copy) to ``batch_shape``."""
        new = self._get_checked_instance(Bernoulli, _instance)
        batch_shape = _size.Size(batch_shape)
        if "probs" in self.__dict__:
            new.probs = self.probs.expand(batch_shape)
            new._param = new.probs
        if "logits" in self.__dict__:
            new.logits = self.logits.expand(batch_shape)
            new._param = new.logits
        super(Bernoulli, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def _new(self, *args, **kwargs):
        return self._param.new(*args, **kwargs)

    @property
    def mean(self):
        """The mean, ``probs``."""
        return self.probs

    @property
    def mode(self):
        """1 where ``probs > 0.5``, 0 below, NaN at exactly 0.5 (two modes)."""
        mode = (self.probs >= 0.5).to(self.probs.dtype)
        return mode.masked_fill(self.probs == 0.5, math.nan)

    @property
    def variance(self):
        """The variance, ``probs * (1 - probs)``."""
        return self.probs * (1 - self.probs)

    @lazy_property
    def logits(self):
        """The log-odds (binary) or normalized log-probabilities, derived from ``probs`` on first use."""
        return probs_to_logits(self.probs, is_binary=True)

    @lazy_property
    def probs(self):
        """The probabilities, derived from ``logits`` on first use."""
        return logits_to_probs(self.logits, is_binary=True)

    @property
    def param_shape(self):
        """The shape of the parameter tensor (probs or logits)."""
        return self._param.size()

    def sample(self, sample_shape=()):
        """A sample of shape ``sample_shape + batch_shape + event_shape``, without gradient."""
        shape = self._extended_shape(sample_shape)
        with grad_mode.no_grad():
            p = self.probs.expand(shape)
            return (_C.rand(tuple(shape), dtype=p.dtype, device=p.device) < p).to(p.dtype)

    def log_prob(self, value):
        """Log of the probability density / mass at ``value``."""
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        return -F.binary_cross_entropy_with_logits(logits, value, reduction="none")

    def entropy(self):
        """The entropy of each distribution of the batch."""
        return F.binary_cross_entropy_with_logits(self.logits, self.probs, reduction="none")

    def enumerate_support(self, expand=True):
        """Every value of the support along dim 0 (batch dims expanded unless ``expand`` is False)."""
        values = _C.arange(2, dtype=self._param.dtype, device=self._param.device)
        values = values.view((-1,) + (1,) * len(self._batch_shape))
        if expand:
            values = values.expand((-1,) + tuple(self._batch_shape))
        return values

    @property
    def _natural_params(self):
        return (_C.log(self.probs) - _C.log1p(-self.probs),)

    def _log_normalizer(self, x):
        return _C.log1p(_C.exp(x))
