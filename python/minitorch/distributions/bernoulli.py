"""Bernoulli: a 0/1 variable with probability probs (or sigmoid(logits)) of 1."""

from minitorch import _C, nn
from minitorch.autograd import grad_mode
from minitorch.distributions.distribution import Distribution, _as_tensor

__all__ = ["Bernoulli"]


class Bernoulli(Distribution):
    """A 0/1 variable that is 1 with probability ``probs`` (or ``sigmoid(logits)``)."""

    def __init__(self, probs=None, logits=None, validate_args=None):
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        if probs is not None:
            self.probs = _as_tensor(probs)
            eps = 1.1920928955078125e-07 if self.probs.dtype != _C.float64 else 2.220446049250313e-16
            ps = self.probs.clamp(min=eps, max=1 - eps)
            self.logits = _C.log(ps) - _C.log1p(-ps)
        else:
            self.logits = _as_tensor(logits)
            self.probs = _C.sigmoid(self.logits)
        super().__init__(self.probs.shape, validate_args=validate_args)

    @property
    def mean(self):
        """The mean, ``probs``."""
        return self.probs

    @property
    def mode(self):
        """1 where ``probs >= 0.5``, else 0."""
        return (self.probs >= 0.5).to(self.probs.dtype)

    @property
    def variance(self):
        """``probs * (1 - probs)``."""
        return self.probs * (1 - self.probs)

    def sample(self, sample_shape=()):
        """Draws 0/1 values of shape ``sample_shape + batch_shape`` (no gradient)."""
        shape = self._extended_shape(sample_shape)
        with grad_mode.no_grad():
            u = _C.rand(tuple(shape), dtype=self.probs.dtype, device=self.probs.device)
            return (u < self.probs.detach().expand(shape)).to(self.probs.dtype)

    def log_prob(self, value):
        """Log-probability of ``value`` (0 or 1), differentiable in the parameters."""
        value = _as_tensor(value, self.probs)
        return -nn.functional.binary_cross_entropy_with_logits(
            self.logits.expand_as(value) if self.logits.dim() <= value.dim() else self.logits,
            value,
            reduction="none",
        )

    def entropy(self):
        """The entropy of each variable of the batch."""
        return nn.functional.binary_cross_entropy_with_logits(self.logits, self.probs, reduction="none")
