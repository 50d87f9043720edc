"""Categorical: a distribution over {0, ..., K-1} given by probs or logits (the last dimension)."""

import math
from typing import ClassVar

from minitorch import _C, _composite_shape, _dtype_info, _size
from minitorch.autograd import grad_mode
from minitorch.distributions import constraints
from minitorch.distributions.distribution import Distribution
from minitorch.distributions.utils import lazy_property, logits_to_probs, probs_to_logits

__all__ = ["Categorical"]


class Categorical(Distribution):
    """A distribution over ``{0, ..., K-1}`` given by ``probs`` (normalized along the last dim) or ``logits``
    (normalized by logsumexp)."""

    arg_constraints: ClassVar[dict] = {
        "probs": constraints.simplex,
        "logits": constraints.independent(constraints.real, 1),
    }
    has_enumerate_support = True

    def __init__(self, probs=None, logits=None, validate_args=None):
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        if probs is not None:
            if probs.dim() < 1:
                raise ValueError("`probs` parameter must be at least one-dimensional.")
            self.probs = probs / probs.sum(-1, keepdim=True)
        else:
            if logits.dim() < 1:
                raise ValueError("`logits` parameter must be at least one-dimensional.")
            self.logits = logits - logits.logsumexp(dim=-1, keepdim=True)
        self._param = self.probs if probs is not None else self.logits
        self._num_events = self._param.size()[-1]
        batch_shape = self._param.size()[:-1] if self._param.dim() > 1 else _size.Size()
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        """A new instance with the batch dims expanded (as views, no copy) to ``batch_shape``."""
        new = self._get_checked_instance(Categorical, _instance)
        batch_shape = _size.Size(batch_shape)
        param_shape = tuple(batch_shape) + (self._num_events,)
        if "probs" in self.__dict__:
            new.probs = self.probs.expand(param_shape)
            new._param = new.probs
        if "logits" in self.__dict__:
            new.logits = self.logits.expand(param_shape)
            new._param = new.logits
        new._num_events = self._num_events
        super(Categorical, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def _new(self, *args, **kwargs):
        return self._param.new(*args, **kwargs)

    @constraints.dependent_property(is_discrete=True, event_dim=0)
    def support(self):
        """The constraint of the values the distribution takes."""
        return constraints.integer_interval(0, self._num_events - 1)

    @lazy_property
    def logits(self):
        """The log-odds (binary) or normalized log-probabilities, derived from ``probs`` on first use."""
        return probs_to_logits(self.probs)

    @lazy_property
    def probs(self):
        """The probabilities, derived from ``logits`` on first use."""
        return logits_to_probs(self.logits)

    @property
    def param_shape(self):
        """The shape of the parameter tensor (probs or logits)."""
        return self._param.size()

    @property
    def mean(self):
        """Undefined for a categorical variable: NaN, as PyTorch."""
        return _C.full(
            tuple(self._extended_shape()), math.nan, dtype=self.probs.dtype, device=self.probs.device
        )

    @property
    def mode(self):
        """The mode, ``probs.argmax(dim=-1)``."""
        return self.probs.argmax(dim=-1)

    @property
    def variance(self):
        """Undefined for a categorical variable: NaN, as PyTorch."""
        return _C.full(
            tuple(self._extended_shape()), math.nan, dtype=self.probs.dtype, device=self.probs.device
        )

    def sample(self, sample_shape=()):
        """Category indices (int64) of shape ``sample_shape + batch_shape``."""
        # Inverse-CDF: one uniform per draw against the cumulative probabilities (the count of cdf entries
        # <= u is the category), any batch shape in one pass and reproducible under manual_seed.
        sample_shape = _size.Size(sample_shape)
        with grad_mode.no_grad():
            cdf = self.probs.detach().cumsum(-1)
            cdf = cdf / cdf[..., -1:]
            shape = tuple(sample_shape) + tuple(self._batch_shape)
            u = _C.rand(shape + (1,), dtype=cdf.dtype, device=cdf.device)
            below = (cdf.expand(shape + (self._num_events,)) <= u).sum(-1)
            return below.clamp(max=self._num_events - 1).long()

    def log_prob(self, value):
        """Log of the probability density / mass at ``value``."""
        if self._validate_args:
            self._validate_sample(value)
        value = value.long().unsqueeze(-1)
        value, log_pmf = _composite_shape.broadcast_tensors(value, self.logits)
        return log_pmf.gather(-1, value[..., :1]).squeeze(-1)

    def entropy(self):
        """The entropy of each distribution of the batch."""
        logits = self.logits.clamp(min=_dtype_info.finfo(self.logits.dtype).min)
        return -(logits * self.probs).sum(-1)

    def enumerate_support(self, expand=True):
        """Every value of the support along dim 0 (batch dims expanded unless ``expand`` is False)."""
        values = _C.arange(self._num_events, dtype=_C.int64, device=self._param.device)
        values = values.view((-1,) + (1,) * len(self._batch_shape))
        if expand:
            values = values.expand((-1,) + tuple(self._batch_shape))
        return values
