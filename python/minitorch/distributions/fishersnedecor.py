"""FisherSnedecor (the F distribution): a ratio of scaled Gamma variables; rsample through them."""

import math
import numbers
from typing import ClassVar

from minitorch import _C, _dtype_info, _size
from minitorch.autograd import grad_mode
from minitorch.distributions import constraints
from minitorch.distributions.distribution import Distribution
from minitorch.distributions.gamma import Gamma
from minitorch.distributions.utils import broadcast_all

__all__ = ["FisherSnedecor"]


class FisherSnedecor(Distribution):
    """The F distribution with ``df1`` and ``df2`` degrees of freedom: ``(X1 / df1) / (X2 / df2)`` for
    chi-squared X1, X2."""

    arg_constraints: ClassVar[dict] = {"df1": constraints.positive, "df2": constraints.positive}
    support = constraints.positive
    has_rsample = True

    def __init__(self, df1, df2, validate_args=None):
        self.df1, self.df2 = broadcast_all(df1, df2)
        self._gamma1 = Gamma(self.df1 * 0.5, self.df1)
        self._gamma2 = Gamma(self.df2 * 0.5, self.df2)
        if isinstance(df1, numbers.Number) and isinstance(df2, numbers.Number):
            batch_shape = _size.Size()
        else:
            batch_shape = self.df1.size()
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        """A new instance with the batch dims expanded (as views, no copy) to ``batch_shape``."""
        new = self._get_checked_instance(FisherSnedecor, _instance)
        batch_shape = _size.Size(batch_shape)
        new.df1 = self.df1.expand(batch_shape)
        new.df2 = self.df2.expand(batch_shape)
        new._gamma1 = self._gamma1.expand(batch_shape)
        new._gamma2 = self._gamma2.expand(batch_shape)
        super(FisherSnedecor, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def mean(self):
        """``df2 / (df2 - 2)``, NaN for df2 <= 2."""
        df2 = self.df2.masked_fill(self.df2 <= 2, math.nan)
        return df2 / (df2 - 2)

    @property
    def mode(self):
        """``(df1 - 2) / df1 * df2 / (df2 + 2)``, NaN for df1 <= 2."""
        mode = (self.df1 - 2) / self.df1 * self.df2 / (self.df2 + 2)
        return mode.masked_fill(self.df1 <= 2, math.nan)

    @property
    def variance(self):
        """``2 df2^2 (df1 + df2 - 2) / (df1 (df2 - 2)^2 (df2 - 4))``, NaN for df2 <= 4."""
        df2 = self.df2.masked_fill(self.df2 <= 4, math.nan)
        return 2 * df2.pow(2) * (self.df1 + df2 - 2) / (self.df1 * (df2 - 2).pow(2) * (df2 - 4))

    def rsample(self, sample_shape=()):
        """A reparameterized sample, the ratio of two reparameterized Gamma draws."""
        shape = tuple(self._extended_shape(sample_shape))
        x1 = self._gamma1.rsample(sample_shape).view(shape)
        x2 = self._gamma2.rsample(sample_shape).view(shape)
        tiny = _dtype_info.finfo(x2.dtype).tiny
        with grad_mode.no_grad():
            x2.clamp_(min=tiny)
        y = x1 / x2
        with grad_mode.no_grad():
            y.clamp_(min=tiny)
        return y

    def log_prob(self, value):
        """Log of the probability density at ``value``."""
        if self._validate_args:
            self._validate_sample(value)
        ct1 = self.df1 * 0.5
        ct2 = self.df2 * 0.5
        ct3 = self.df1 / self.df2
        t1 = (ct1 + ct2).lgamma() - ct1.lgamma() - ct2.lgamma()
        t2 = ct1 * ct3.log() + (ct1 - 1) * _C.log(value)
        t3 = (ct1 + ct2) * _C.log1p(ct3 * value)
        return t1 + t2 - t3
