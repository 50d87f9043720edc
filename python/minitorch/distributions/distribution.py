"""The Distribution base class: shapes, argument validation and the sample/log_prob interface."""

from minitorch import _C, _creation, _size, _torch_functions
from minitorch import functional as _functional
from minitorch.autograd import grad_mode

__all__ = ["Distribution"]


class Distribution:
    """Base class of the distributions: batch and event shapes, sampling and log-probability interface."""

    has_rsample = False
    _validate_args = True

    @staticmethod
    def set_default_validate_args(value):
        """Turns argument validation of every distribution on or off."""
        if value not in (True, False):
            raise ValueError
        Distribution._validate_args = value

    def __init__(self, batch_shape=(), event_shape=(), validate_args=None):
        self._batch_shape = _size.Size(batch_shape)
        self._event_shape = _size.Size(event_shape)
        if validate_args is not None:
            self._validate_args = validate_args

    @property
    def batch_shape(self):
        """The shape over which parameters are batched."""
        return self._batch_shape

    @property
    def event_shape(self):
        """The shape of a single sample."""
        return self._event_shape

    def _extended_shape(self, sample_shape=()):
        return _size.Size(tuple(sample_shape) + tuple(self._batch_shape) + tuple(self._event_shape))

    def sample(self, sample_shape=()):
        """A sample of shape ``sample_shape + batch_shape + event_shape``, without gradient."""
        with grad_mode.no_grad():
            return self.rsample(sample_shape)

    def rsample(self, sample_shape=()):
        """A reparameterized sample (differentiable in the parameters) where the distribution has one."""
        raise NotImplementedError

    def sample_n(self, n):
        """``n`` samples (deprecated spelling of ``sample((n,))``)."""
        return self.sample(_size.Size((n,)))

    def log_prob(self, value):
        """Log of the probability (density) of ``value``."""
        raise NotImplementedError

    def entropy(self):
        """The entropy, per element of the batch."""
        raise NotImplementedError

    @property
    def mean(self):
        """The mean."""
        raise NotImplementedError(f"{self.__class__} does not implement mean")

    @property
    def variance(self):
        """The variance."""
        raise NotImplementedError(f"{self.__class__} does not implement variance")

    @property
    def stddev(self):
        """The standard deviation."""
        return self.variance.sqrt()

    def perplexity(self):
        """``exp(entropy)``."""
        return _C.exp(self.entropy())

    def __repr__(self):
        names = [k for k in ("probs", "logits", "loc", "scale") if k in self.__dict__]
        args = ", ".join(
            f"{k}: {self.__dict__[k] if self.__dict__[k].numel() == 1 else self.__dict__[k].size()}"
            for k in names
        )
        return f"{self.__class__.__name__}({args})"


def _as_tensor(x, like=None):
    if isinstance(x, _C.Tensor):
        return x
    dtype = like.dtype if isinstance(like, _C.Tensor) else _C.get_default_dtype()
    return _creation.tensor(x, dtype=dtype)


def probs_to_logits(probs, is_binary=False):
    """Probabilities to logits (log-odds when ``is_binary``), clamped away from 0 and 1."""
    eps = _torch_functions.finfo(probs.dtype).eps
    ps = probs.clamp(min=eps, max=1 - eps)
    if is_binary:
        return _C.log(ps) - _C.log1p(-ps)
    return _C.log(ps)


def logits_to_probs(logits, is_binary=False):
    """Logits to probabilities: softmax over the last dim, or sigmoid when ``is_binary``."""
    if is_binary:
        return _C.sigmoid(logits)
    return _C.softmax(logits, dim=-1)


def broadcast_shapes(*shapes):
    """The broadcast of several shapes (minitorch.broadcast_shapes)."""
    return _functional.broadcast_shapes(*shapes)
