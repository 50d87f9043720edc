"""OneHotCategorical: a Categorical whose samples are one-hot vectors (event shape (K,))."""

from typing import ClassVar

from minitorch import _C, _size
from minitorch.distributions import constraints
from minitorch.distributions.categorical import Categorical
from minitorch.distributions.distribution import Distribution
from minitorch.nn import functional as F

__all__ = ["OneHotCategorical", "OneHotCategoricalStraightThrough"]


class OneHotCategorical(Distribution):
    """One-hot vectors over K categories with ``probs`` (normalized) or ``logits``."""

    arg_constraints: ClassVar[dict] = {"probs": constraints.simplex, "logits": constraints.real_vector}
    support = constraints.one_hot
    has_enumerate_support = True

    def __init__(self, probs=None, logits=None, validate_args=None):
        self._categorical = Categorical(probs, logits)
        super().__init__(
            self._categorical.batch_shape, self._categorical.param_shape[-1:], validate_args=validate_args
        )

    def expand(self, batch_shape, _instance=None):
        """A new instance with the batch dims expanded (as views, no copy) to ``batch_shape``."""
        new = self._get_checked_instance(OneHotCategorical, _instance)
        batch_shape = _size.Size(batch_shape)
        new._categorical = self._categorical.expand(batch_shape)
        super(OneHotCategorical, new).__init__(batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def _new(self, *args, **kwargs):
        return self._categorical._new(*args, **kwargs)

    @property
    def _param(self):
        return self._categorical._param

    @property
    def probs(self):
        """The probabilities, derived from ``logits`` on first use."""
        return self._categorical.probs

    @property
    def logits(self):
        """The log-odds (binary) or normalized log-probabilities, derived from ``probs`` on first use."""
        return self._categorical.logits

    @property
    def mean(self):
        """The mean, ``probs``."""
        return self._categorical.probs

    @property
    def mode(self):
        """The mode."""
        probs = self._categorical.probs
        return F.one_hot(probs.argmax(-1), num_classes=probs.shape[-1]).to(probs.dtype)

    @property
    def variance(self):
        """The variance, ``probs * (1 - probs)``."""
        return self._categorical.probs * (1 - self._categorical.probs)

    @property
    def param_shape(self):
        """The shape of the parameter tensor (probs or logits)."""
        return self._categorical.param_shape

    def sample(self, sample_shape=()):
        """A sample of shape ``sample_shape + batch_shape + event_shape``, without gradient."""
        probs = self._categorical.probs
        indices = self._categorical.sample(_size.Size(sample_shape))
        return F.one_hot(indices, self._categorical._num_events).to(probs.dtype)

    def log_prob(self, value):
        """Log of the probability density / mass at ``value``."""
        if self._validate_args:
            self._validate_sample(value)
        return self._categorical.log_prob(value.max(-1)[1])

    def entropy(self):
        """The entropy of each distribution of the batch."""
        return self._categorical.entropy()

    def enumerate_support(self, expand=True):
        """Every value of the support along dim 0 (batch dims expanded unless ``expand`` is False)."""
        n = self.event_shape[0]
        values = _C.eye(n, dtype=self._param.dtype, device=self._param.device)
        values = values.view((n,) + (1,) * len(self.batch_shape) + (n,))
        if expand:
            values = values.expand((n,) + tuple(self.batch_shape) + (n,))
        return values


class OneHotCategoricalStraightThrough(OneHotCategorical):
    """OneHotCategorical with the straight-through gradient: rsample is the one-hot sample in the forward pass
    and carries the gradient of ``probs`` (Bengio et al., 2013)."""

    has_rsample = True

    def rsample(self, sample_shape=()):
        """A reparameterized sample of shape ``sample_shape + batch_shape + event_shape``: differentiable in the parameters."""
        samples = self.sample(sample_shape)
        probs = self._categorical.probs
        return samples + (probs - probs.detach())
