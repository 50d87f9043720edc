# ruff: noqa: N999  (the module keeps PyTorch's name, torch.distributions.studentT)
"""StudentT with df, loc and scale; rsample through a reparameterized Chi2."""

import math
from typing import ClassVar

from minitorch import _C, _size
from minitorch.distributions import constraints
from minitorch.distributions.chi2 import Chi2
from minitorch.distributions.distribution import Distribution
from minitorch.distributions.utils import _standard_normal, broadcast_all

__all__ = ["StudentT"]


class StudentT(Distribution):
    """Student's t with ``df`` degrees of freedom, location ``loc`` and scale ``scale``:
    ``loc + scale * Z / sqrt(V / df)`` for standard normal Z and ``V ~ Chi2(df)``."""

    arg_constraints: ClassVar[dict] = {
        "df": constraints.positive,
        "loc": constraints.real,
        "scale": constraints.positive,
    }
    support = constraints.real
    has_rsample = True

    def __init__(self, df, loc=0.0, scale=1.0, validate_args=None):
        self.df, self.loc, self.scale = broadcast_all(df, loc, scale)
        self._chi2 = Chi2(self.df)
        super().__init__(self.df.size(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        """A new instance with the batch dims expanded (as views, no copy) to ``batch_shape``."""
        new = self._get_checked_instance(StudentT, _instance)
        batch_shape = _size.Size(batch_shape)
        new.df = self.df.expand(batch_shape)
        new.loc = self.loc.expand(batch_shape)
        new.scale = self.scale.expand(batch_shape)
        new._chi2 = self._chi2.expand(batch_shape)
        super(StudentT, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def mean(self):
        """``loc`` where df > 1, NaN elsewhere."""
        return self.loc.masked_fill(self.df <= 1, math.nan)

    @property
    def mode(self):
        """The mode, ``loc``."""
        return self.loc

    @property
    def variance(self):
        """``scale^2 df / (df - 2)`` for df > 2, inf for 1 < df <= 2, NaN for df <= 1."""
        df = self.df
        finite = self.scale.pow(2) * df / _C._where(df > 2, df - 2, _C.ones_like(df))
        v = _C._where(df > 2, finite, math.inf)
        return v.masked_fill(df <= 1, math.nan)

    def rsample(self, sample_shape=()):
        """A reparameterized sample of shape ``sample_shape + batch_shape + event_shape``: differentiable in the parameters."""
        shape = self._extended_shape(sample_shape)
        x = _standard_normal(shape, dtype=self.df.dtype, device=self.df.device)
        z = self._chi2.rsample(sample_shape)
        return self.loc + self.scale * x * _C.rsqrt(z / self.df)

    def log_prob(self, value):
        """Log of the probability density / mass at ``value``."""
        if self._validate_args:
            self._validate_sample(value)
        y = (value - self.loc) / self.scale
        norm = (
            self.scale.log()
            + 0.5 * self.df.log()
            + 0.5 * math.log(math.pi)
            + _C.lgamma(0.5 * self.df)
            - _C.lgamma(0.5 * (self.df + 1.0))
        )
        return -0.5 * (self.df + 1.0) * _C.log1p(y**2.0 / self.df) - norm

    def entropy(self):
        """The entropy of each distribution of the batch."""
        lbeta = _C.lgamma(0.5 * self.df) + math.lgamma(0.5) - _C.lgamma(0.5 * (self.df + 1))
        return (
            self.scale.log()
            + 0.5 * (self.df + 1) * (_C.digamma(0.5 * (self.df + 1)) - _C.digamma(0.5 * self.df))
            + 0.5 * self.df.log()
            + lbeta
        )
