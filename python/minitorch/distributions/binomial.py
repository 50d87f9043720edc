"""Binomial with total_count and probs or logits; vectorized sampling (inversion / BTRS)."""

from typing import ClassVar

from minitorch import _C, _size
from minitorch.distributions import _sampling, constraints
from minitorch.distributions.distribution import Distribution
from minitorch.distributions.utils import broadcast_all, lazy_property, logits_to_probs, probs_to_logits

__all__ = ["Binomial"]


def _relu_half(x):
    # max(x, 0) written so that its gradient at 0 is 1/2 (the average of the one-sided slopes)
    return (x.clamp(min=0) + x - x.clamp(max=0)) / 2


class Binomial(Distribution):
    """The number of successes in ``total_count`` independent trials with success probability ``probs`` (or
    ``sigmoid(logits)``); total_count broadcasts with the probabilities."""

    arg_constraints: ClassVar[dict] = {
        "total_count": constraints.nonnegative_integer,
        "probs": constraints.unit_interval,
        "logits": constraints.real,
    }
    has_enumerate_support = True

    def __init__(self, total_count=1, probs=None, logits=None, validate_args=None):
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        if probs is not None:
            self.total_count, self.probs = broadcast_all(total_count, probs)
            self.total_count = self.total_count.type_as(self.probs)
        else:
            self.total_count, self.logits = broadcast_all(total_count, logits)
            self.total_count = self.total_count.type_as(self.logits)
        self._param = self.probs if probs is not None else self.logits
        super().__init__(self._param.size(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        """A new instance with the batch dims expanded (as views, no copy) to ``batch_shape``."""
        new = self._get_checked_instance(Binomial, _instance)
        batch_shape = _size.Size(batch_shape)
        new.total_count = self.total_count.expand(batch_shape)
        if "probs" in self.__dict__:
            new.probs = self.probs.expand(batch_shape)
            new._param = new.probs
        if "logits" in self.__dict__:
            new.logits = self.logits.expand(batch_shape)
            new._param = new.logits
        super(Binomial, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def _new(self, *args, **kwargs):
        return self._param.new(*args, **kwargs)

    @constraints.dependent_property(is_discrete=True, event_dim=0)
    def support(self):
        """The constraint of the values the distribution takes."""
        return constraints.integer_interval(0, self.total_count)

    @property
    def mean(self):
        """The mean, ``total_count * probs``."""
        return self.total_count * self.probs

    @property
    def mode(self):
        """The mode."""
        return ((self.total_count + 1) * self.probs).floor().clamp(max=self.total_count)

    @property
    def variance(self):
        """The variance, ``total_count * probs * (1 - probs)``."""
        return self.total_count * self.probs * (1 - self.probs)

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
        shape = tuple(self._extended_shape(sample_shape))
        return _sampling._binomial_sample(
            self.total_count.detach().expand(shape), self.probs.detach().expand(shape)
        )

    def log_prob(self, value):
        """Log of the probability density / mass at ``value``."""
        if self._validate_args:
            self._validate_sample(value)
        n = self.total_count
        # log(1 + e^logits) = relu(logits) + log1p(e^-|logits|): no overflow for large |logits|
        normalize = n * _relu_half(self.logits) + n * _C.log1p(_C.exp(-self.logits.abs())) - _C.lgamma(n + 1)
        return value * self.logits - _C.lgamma(value + 1) - _C.lgamma(n - value + 1) - normalize

    def entropy(self):
        """The entropy of each distribution of the batch."""
        total = int(self.total_count.max())
        if not self.total_count.min() == total:
            raise NotImplementedError("Inhomogeneous total count not supported by `entropy`.")
        lp = self.log_prob(self.enumerate_support(False))
        return -(_C.exp(lp) * lp).sum(0)

    def enumerate_support(self, expand=True):
        """Every value of the support along dim 0 (batch dims expanded unless ``expand`` is False)."""
        total = int(self.total_count.max())
        if not self.total_count.min() == total:
            raise NotImplementedError("Inhomogeneous total count not supported by `enumerate_support`.")
        values = _C.arange(1 + total, dtype=self._param.dtype, device=self._param.device)
        values = values.view((-1,) + (1,) * len(self._batch_shape))
        if expand:
            values = values.expand((-1,) + tuple(self._batch_shape))
        return values
