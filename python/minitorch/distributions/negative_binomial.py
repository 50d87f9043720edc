"""NegativeBinomial: successes before total_count failures, sampled as a Gamma-Poisson mixture."""

from typing import ClassVar

from minitorch import _C, _size
from minitorch.autograd import grad_mode
from minitorch.distributions import _sampling, constraints
from minitorch.distributions.distribution import Distribution
from minitorch.distributions.gamma import Gamma
from minitorch.distributions.utils import broadcast_all, lazy_property, logits_to_probs, probs_to_logits
from minitorch.nn import functional as F

__all__ = ["NegativeBinomial"]


class NegativeBinomial(Distribution):
    """The number of successes of Bernoulli(probs) trials before ``total_count`` failures (a real
    ``total_count`` is allowed): ``P(k) = C(k + r - 1, k) p^k (1 - p)^r``."""

    arg_constraints: ClassVar[dict] = {
        "total_count": constraints.greater_than_eq(0),
        "probs": constraints.half_open_interval(0.0, 1.0),
        "logits": constraints.real,
    }
    support = constraints.nonnegative_integer

    def __init__(self, total_count, probs=None, logits=None, validate_args=None):
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
        new = self._get_checked_instance(NegativeBinomial, _instance)
        batch_shape = _size.Size(batch_shape)
        new.total_count = self.total_count.expand(batch_shape)
        if "probs" in self.__dict__:
            new.probs = self.probs.expand(batch_shape)
            new._param = new.probs
        if "logits" in self.__dict__:
            new.logits = self.logits.expand(batch_shape)
            new._param = new.logits
        super(NegativeBinomial, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def _new(self, *args, **kwargs):
        return self._param.new(*args, **kwargs)

    @property
    def mean(self):
        """``total_count p / (1 - p)``."""
        return self.total_count * _C.exp(self.logits)

    @property
    def mode(self):
        """``floor((total_count - 1) p / (1 - p))``, at least 0."""
        return ((self.total_count - 1) * self.logits.exp()).floor().clamp(min=0.0)

    @property
    def variance(self):
        """``mean / (1 - p)``."""
        return self.mean / _C.sigmoid(-self.logits)

    @lazy_property
    def logits(self):
        """The log-odds of a success, derived from ``probs`` on first use."""
        return probs_to_logits(self.probs, is_binary=True)

    @lazy_property
    def probs(self):
        """The probability of a success, derived from ``logits`` on first use."""
        return logits_to_probs(self.logits, is_binary=True)

    @property
    def param_shape(self):
        """The shape of the parameter tensor (probs or logits)."""
        return self._param.size()

    @lazy_property
    def _gamma(self):
        return Gamma(concentration=self.total_count, rate=_C.exp(-self.logits), validate_args=False)

    def sample(self, sample_shape=()):
        """``Poisson(Gamma(total_count, (1 - p) / p))`` draws, without gradient."""
        with grad_mode.no_grad():
            return _sampling._poisson_sample(self._gamma.sample(sample_shape=sample_shape))

    def log_prob(self, value):
        """Log of the probability mass at ``value``."""
        if self._validate_args:
            self._validate_sample(value)
        unnormalized = self.total_count * F.logsigmoid(-self.logits) + value * F.logsigmoid(self.logits)
        normalization = (
            -_C.lgamma(self.total_count + value) + _C.lgamma(1.0 + value) + _C.lgamma(self.total_count)
        )
        # r = 0 and k = 0: the point mass at 0, probability 1
        normalization = normalization.masked_fill(self.total_count + value == 0.0, 0.0)
        return unnormalized - normalization
