"""Normal (Gaussian) with loc and scale; rsample is reparameterized (loc + scale * eps)."""

import math

from minitorch import _C
from minitorch.distributions.distribution import Distribution, _as_tensor, broadcast_shapes

__all__ = ["Normal"]


class Normal(Distribution):
    """The normal (Gaussian) distribution with mean ``loc`` and standard deviation ``scale``."""

    has_rsample = True

    def __init__(self, loc, scale, validate_args=None):
        loc, scale = _as_tensor(loc), _as_tensor(scale)
        shape = broadcast_shapes(loc.shape, scale.shape)
        self.loc, self.scale = loc.expand(shape), scale.expand(shape)
        if (validate_args if validate_args is not None else self._validate_args) and bool(
            (self.scale <= 0).any()
        ):
            raise ValueError(
                f"Expected parameter scale (Tensor of shape {tuple(self.scale.shape)}) of distribution "
                f"Normal(loc: {self.loc.size()}, scale: {self.scale.size()}) to satisfy the constraint "
                f"GreaterThan(lower_bound=0.0), but found invalid values:\n{self.scale}"
            )
        super().__init__(shape, validate_args=validate_args)

    @property
    def mean(self):
        """``loc``."""
        return self.loc

    @property
    def mode(self):
        """``loc``."""
        return self.loc

    @property
    def stddev(self):
        """``scale``."""
        return self.scale

    @property
    def variance(self):
        """``scale ** 2``."""
        return self.scale.pow(2)

    def rsample(self, sample_shape=()):
        """``loc + eps * scale`` with standard normal ``eps``: differentiable in ``loc`` and ``scale``."""
        shape = self._extended_shape(sample_shape)
        eps = _C.randn(tuple(shape), dtype=self.loc.dtype, device=self.loc.device)
        return self.loc + eps * self.scale

    def log_prob(self, value):
        """Log-density at ``value``."""
        value = _as_tensor(value, self.loc)
        var = self.scale**2
        return -((value - self.loc) ** 2) / (2 * var) - self.scale.log() - math.log(math.sqrt(2 * math.pi))

    def cdf(self, value):
        """The cumulative distribution function at ``value``."""
        value = _as_tensor(value, self.loc)
        return 0.5 * (1 + _C.erf((value - self.loc) * self.scale.reciprocal() / math.sqrt(2)))

    def entropy(self):
        """The entropy, per element of the batch."""
        return 0.5 + 0.5 * math.log(2 * math.pi) + _C.log(self.scale)
