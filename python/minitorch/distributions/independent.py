"""Independent: reinterprets some batch dims of a distribution as event dims (log_prob sums over them)."""

from typing import ClassVar

from minitorch import _size
from minitorch.distributions import constraints
from minitorch.distributions.distribution import Distribution
from minitorch.distributions.utils import _sum_rightmost

__all__ = ["Independent"]


class Independent(Distribution):
    """Treats the ``reinterpreted_batch_ndims`` rightmost batch dims of ``base_distribution`` as event dims:
    ``Independent(Normal(loc, scale), 1)`` is a diagonal Gaussian over vectors."""

    arg_constraints: ClassVar[dict] = {}

    def __init__(self, base_distribution, reinterpreted_batch_ndims, validate_args=None):
        if reinterpreted_batch_ndims > len(base_distribution.batch_shape):
            raise ValueError(
                "Expected reinterpreted_batch_ndims <= len(base_distribution.batch_shape), "
                f"actual {reinterpreted_batch_ndims} vs {len(base_distribution.batch_shape)}"
            )
        shape = tuple(base_distribution.batch_shape) + tuple(base_distribution.event_shape)
        event_dim = reinterpreted_batch_ndims + len(base_distribution.event_shape)
        self.base_dist = base_distribution
        self.reinterpreted_batch_ndims = reinterpreted_batch_ndims
        super().__init__(
            shape[: len(shape) - event_dim], shape[len(shape) - event_dim :], validate_args=validate_args
        )

    def expand(self, batch_shape, _instance=None):
        """A new instance with the batch dims expanded (as views, no copy) to ``batch_shape``."""
        new = self._get_checked_instance(Independent, _instance)
        batch_shape = _size.Size(batch_shape)
        new.base_dist = self.base_dist.expand(
            tuple(batch_shape) + tuple(self.event_shape[: self.reinterpreted_batch_ndims])
        )
        new.reinterpreted_batch_ndims = self.reinterpreted_batch_ndims
        Distribution.__init__(new, batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def has_rsample(self):
        """Whether the base distribution can be reparameterized."""
        return self.base_dist.has_rsample

    @property
    def has_enumerate_support(self):
        """Whether the support can be enumerated (not across reinterpreted dims)."""
        if self.reinterpreted_batch_ndims > 0:
            return False
        return self.base_dist.has_enumerate_support

    @constraints.dependent_property
    def support(self):
        """The constraint of the values the distribution takes."""
        result = self.base_dist.support
        if self.reinterpreted_batch_ndims:
            result = constraints.independent(result, self.reinterpreted_batch_ndims)
        return result

    @property
    def mean(self):
        """The mean, ``base.mean``."""
        return self.base_dist.mean

    @property
    def mode(self):
        """The mode, ``base.mode``."""
        return self.base_dist.mode

    @property
    def variance(self):
        """The variance, ``base.variance``."""
        return self.base_dist.variance

    def sample(self, sample_shape=()):
        """A sample of shape ``sample_shape + batch_shape + event_shape``, without gradient."""
        return self.base_dist.sample(sample_shape)

    def rsample(self, sample_shape=()):
        """A reparameterized sample of shape ``sample_shape + batch_shape + event_shape``: differentiable in the parameters."""
        return self.base_dist.rsample(sample_shape)

    def log_prob(self, value):
        """Log of the probability density / mass at ``value``."""
        return _sum_rightmost(self.base_dist.log_prob(value), self.reinterpreted_batch_ndims)

    def entropy(self):
        """The entropy of each distribution of the batch."""
        return _sum_rightmost(self.base_dist.entropy(), self.reinterpreted_batch_ndims)

    def enumerate_support(self, expand=True):
        """Every value of the support along dim 0 (batch dims expanded unless ``expand`` is False)."""
        if self.reinterpreted_batch_ndims > 0:
            raise NotImplementedError("Enumeration over cartesian product is not implemented")
        return self.base_dist.enumerate_support(expand=expand)

    def __repr__(self):
        return f"{self.__class__.__name__}({self.base_dist}, {self.reinterpreted_batch_ndims})"
