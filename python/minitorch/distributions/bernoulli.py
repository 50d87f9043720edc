"""Bernoulli: a 0/1 variable with probability probs (or sigmoid(logits)) of 1."""

import minitorch
from minitorch.distributions.distribution import Distribution, _as_tensor

__all__ = ["Bernoulli"]


class Bernoulli(Distribution):
    def __init__(self, probs=None, logits=None, validate_args=None):
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        if probs is not None:
            self.probs = _as_tensor(probs)
            eps = 1.1920928955078125e-07 if self.probs.dtype != minitorch.float64 else 2.220446049250313e-16
            ps = self.probs.clamp(min=eps, max=1 - eps)
            self.logits = minitorch.log(ps) - minitorch.log1p(-ps)
        else:
            self.logits = _as_tensor(logits)
            self.probs = minitorch.sigmoid(self.logits)
        super().__init__(self.probs.shape, validate_args=validate_args)

    @property
    def mean(self):
        return self.probs

    @property
    def mode(self):
        return (self.probs >= 0.5).to(self.probs.dtype)

    @property
    def variance(self):
        return self.probs * (1 - self.probs)

    def sample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        with minitorch.no_grad():
            u = minitorch.rand(tuple(shape), dtype=self.probs.dtype, device=self.probs.device)
            return (u < self.probs.detach().expand(shape)).to(self.probs.dtype)

    def log_prob(self, value):
        value = _as_tensor(value, self.probs)
        return -minitorch.nn.functional.binary_cross_entropy_with_logits(
            self.logits.expand_as(value) if self.logits.dim() <= value.dim() else self.logits,
            value,
            reduction="none",
        )

    def entropy(self):
        return minitorch.nn.functional.binary_cross_entropy_with_logits(
            self.logits, self.probs, reduction="none"
        )
