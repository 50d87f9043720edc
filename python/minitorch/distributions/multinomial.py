"""Multinomial: counts of total_count Categorical draws over K categories."""

import math
from typing import ClassVar

from minitorch import _C, _creation, _size
from minitorch.distributions import constraints
from minitorch.distributions.binomial import Binomial
from minitorch.distributions.categorical import Categorical
from minitorch.distributions.distribution import Distribution
from minitorch.distributions.utils import broadcast_all

__all__ = ["Multinomial"]


class Multinomial(Distribution):
    """Count vectors (event shape ``(K,)``) of ``total_count`` (an int) independent Categorical(probs) draws."""

    arg_constraints: ClassVar[dict] = {"probs": constraints.simplex, "logits": constraints.real_vector}

    def __init__(self, total_count=1, probs=None, logits=None, validate_args=None):
        if not isinstance(total_count, int):
            raise NotImplementedError("inhomogeneous total_count is not supported")
        self.total_count = total_count
        self._categorical = Categorical(probs=probs, logits=logits)
        self._binomial = Binomial(total_count=total_count, probs=self.probs)
        super().__init__(
            self._categorical.batch_shape, self._categorical.param_shape[-1:], validate_args=validate_args
        )

    def expand(self, batch_shape, _instance=None):
        """A new instance with the batch dims expanded (as views, no copy) to ``batch_shape``."""
        new = self._get_checked_instance(Multinomial, _instance)
        batch_shape = _size.Size(batch_shape)
        new.total_count = self.total_count
        new._categorical = self._categorical.expand(batch_shape)
        new._binomial = self._binomial.expand(tuple(batch_shape) + tuple(self.event_shape))
        super(Multinomial, new).__init__(batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def _new(self, *args, **kwargs):
        return self._categorical._new(*args, **kwargs)

    @constraints.dependent_property(is_discrete=True, event_dim=1)
    def support(self):
        """The constraint of the values the distribution takes."""
        return constraints.multinomial(self.total_count)

    @property
    def logits(self):
        """The log-odds (binary) or normalized log-probabilities, derived from ``probs`` on first use."""
        return self._categorical.logits

    @property
    def probs(self):
        """The probabilities, derived from ``logits`` on first use."""
        return self._categorical.probs

    @property
    def param_shape(self):
        """The shape of the parameter tensor (probs or logits)."""
        return self._categorical.param_shape

    @property
    def mean(self):
        """The mean, ``probs * total_count``."""
        return self.probs * self.total_count

    @property
    def variance(self):
        """The variance, ``total_count * probs * (1 - probs)``."""
        return self.total_count * self.probs * (1 - self.probs)

    def sample(self, sample_shape=()):
        """A sample of shape ``sample_shape + batch_shape + event_shape``, without gradient."""
        sample_shape = _size.Size(sample_shape)
        draws = self._categorical.sample(_size.Size((self.total_count,) + tuple(sample_shape)))
        draws = draws.permute(*range(1, draws.dim()), 0)  # the draws last
        counts = _C.zeros(tuple(self._extended_shape(sample_shape)), dtype=draws.dtype, device=draws.device)
        counts = counts.scatter_add(-1, draws, _C.ones_like(draws))
        return counts.type_as(self.probs)

    def entropy(self):
        """The entropy of each distribution of the batch."""
        n = _creation.tensor(self.total_count, dtype=self.probs.dtype, device=self.probs.device)
        term1 = n * self._categorical.entropy() - _C.lgamma(n + 1)
        support = self._binomial.enumerate_support(expand=False)[1:]
        binomial_probs = _C.exp(self._binomial.log_prob(support))
        term2 = (binomial_probs * _C.lgamma(support + 1)).sum([0, -1])
        return term1 + term2

    def log_prob(self, value):
        """Log of the probability density / mass at ``value``."""
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        log_factorial_n = _C.lgamma(value.sum(-1) + 1)
        log_factorial_xs = _C.lgamma(value + 1).sum(-1)
        # a category of probability 0 that was never drawn contributes 0 (not -inf * 0)
        logits = logits.masked_fill((value == 0) & (logits == -math.inf), 0.0)
        return log_factorial_n - log_factorial_xs + (logits * value).sum(-1)
