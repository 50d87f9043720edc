"""Categorical: a distribution over {0, ..., K-1} given by probs or logits (the last dimension)."""

from minitorch import _C, _size, _torch_functions
from minitorch.autograd import grad_mode
from minitorch.distributions.distribution import Distribution, _as_tensor, broadcast_shapes

__all__ = ["Categorical"]


class Categorical(Distribution):
    """A distribution over ``{0, ..., K-1}`` given by ``probs`` (normalized along the last dim) or ``logits``."""

    has_enumerate_support = True

    def __init__(self, probs=None, logits=None, validate_args=None):
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        if probs is not None:
            probs = _as_tensor(probs)
            if probs.dim() < 1:
                raise ValueError("`probs` parameter must be at least one-dimensional.")
            if (validate_args if validate_args is not None else self._validate_args) and bool(
                (probs < 0).any()
            ):
                raise ValueError(
                    f"Expected parameter probs (Tensor of shape {tuple(probs.shape)}) of distribution "
                    f"Categorical(probs: {probs.size()}) to satisfy the constraint Simplex(), but found invalid values"
                )
            self.probs = probs / probs.sum(-1, keepdim=True)
            self.logits = _C.log(self.probs.clamp(min=_tiny(self.probs.dtype)))
        else:
            logits = _as_tensor(logits)
            if logits.dim() < 1:
                raise ValueError("`logits` parameter must be at least one-dimensional.")
            self.logits = logits - logits.logsumexp(dim=-1, keepdim=True)
            self.probs = _C.softmax(self.logits, dim=-1)
        self._param = self.probs
        self._num_events = self.probs.size(-1)
        super().__init__(self.probs.shape[:-1], validate_args=validate_args)

    @property
    def param_shape(self):
        """The shape of ``probs``/``logits``: ``batch_shape + (K,)``."""
        return self._param.size()

    @property
    def mean(self):
        """Undefined for a categorical variable: NaN, as PyTorch."""
        return _C.full(self._extended_shape(), float("nan"), dtype=self.probs.dtype)

    @property
    def mode(self):
        """The most likely category of each distribution of the batch."""
        return self.probs.argmax(dim=-1)

    @property
    def variance(self):
        """Undefined for a categorical variable: NaN, as PyTorch."""
        return _C.full(self._extended_shape(), float("nan"), dtype=self.probs.dtype)

    def sample(self, sample_shape=()):
        # Inverse-CDF sampling: one uniform per draw against the cumulative probabilities (the first index whose
        # cdf exceeds u), which needs no multinomial kernel and handles any batch shape.
        """Draws category indices (int64) of shape ``sample_shape + batch_shape`` (no gradient)."""
        sample_shape = _size.Size(sample_shape)
        with grad_mode.no_grad():
            probs = self.probs.detach()
            cdf = probs.cumsum(-1)
            cdf = cdf / cdf[..., -1:]
            shape = tuple(sample_shape) + tuple(self._batch_shape)
            u = _C.rand(shape + (1,), dtype=cdf.dtype, device=cdf.device)
            below = (cdf.expand(shape + (self._num_events,)) <= u).sum(-1)
            return below.clamp(max=self._num_events - 1).long()

    def log_prob(self, value):
        """Log-probability of the categories in ``value`` (broadcast against the batch), differentiable."""
        value = _as_tensor(value).long()
        if (
            self._validate_args
            and value.numel()
            and (bool((value < 0).any()) or bool((value >= self._num_events).any()))
        ):
            raise ValueError(
                f"Expected value argument (Tensor of shape {tuple(value.shape)}) to be within the support "
                f"(IntegerInterval(lower_bound=0, upper_bound={self._num_events - 1})) of the distribution "
                f"{self}, but found invalid values:\n{value}"
            )
        value = value.unsqueeze(-1)
        shape = broadcast_shapes(value.shape[:-1], self.logits.shape[:-1])
        logits = self.logits.expand(tuple(shape) + (self._num_events,))
        value = value.expand(tuple(shape) + (1,))
        return logits.gather(-1, value).squeeze(-1)

    def entropy(self):
        """The entropy of each distribution of the batch."""
        logits = self.logits.clamp(min=_torch_functions.finfo(self.logits.dtype).min)
        return -(logits * self.probs).sum(-1)

    def enumerate_support(self, expand=True):
        """All categories ``0..K-1``, shaped ``(K,) + (1,) * len(batch_shape)`` (expanded over the batch if ``expand``)."""
        values = _C.arange(self._num_events, dtype=_C.int64, device=self.probs.device)
        values = values.view((-1,) + (1,) * len(self._batch_shape))
        if expand:
            values = values.expand((-1,) + tuple(self._batch_shape))
        return values


def _tiny(dtype):
    return {_C.float64: 2.2250738585072014e-308, _C.float16: 6.103515625e-05}.get(
        dtype, 1.1754943508222875e-38
    )
