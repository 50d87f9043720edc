"""LogisticNormal: a Normal pushed onto the simplex by stick breaking."""

from typing import ClassVar

from minitorch.distributions import constraints
from minitorch.distributions.normal import Normal
from minitorch.distributions.transformed_distribution import TransformedDistribution
from minitorch.distributions.transforms import StickBreakingTransform

__all__ = ["LogisticNormal"]


class LogisticNormal(TransformedDistribution):
    """``StickBreakingTransform()(X)`` for ``X ~ Normal(loc, scale)`` over K-vectors: a distribution on the
    (K+1)-simplex; rsample is reparameterized."""

    arg_constraints: ClassVar[dict] = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.simplex
    has_rsample = True

    def __init__(self, loc, scale, validate_args=None):
        base = Normal(loc, scale, validate_args=validate_args)
        if not base.batch_shape:
            base = base.expand([1])
        super().__init__(base, StickBreakingTransform(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        """A new instance with the batch dims expanded (as views, no copy) to ``batch_shape``."""
        new = self._get_checked_instance(LogisticNormal, _instance)
        return super().expand(batch_shape, _instance=new)

    @property
    def loc(self):
        """The mean of the underlying Normal."""
        return self.base_dist.base_dist.loc

    @property
    def scale(self):
        """The standard deviation of the underlying Normal."""
        return self.base_dist.base_dist.scale
