"""Chi2: the Gamma(df / 2, 1 / 2) distribution."""

from typing import ClassVar

from minitorch import _size
from minitorch.distributions import constraints
from minitorch.distributions.gamma import Gamma
from minitorch.distributions.utils import broadcast_all

__all__ = ["Chi2"]


class Chi2(Gamma):
    """The chi-squared distribution with ``df`` degrees of freedom, ``Gamma(df / 2, 1 / 2)``."""

    arg_constraints: ClassVar[dict] = {"df": constraints.positive}

    def __init__(self, df, validate_args=None):
        (df,) = broadcast_all(df)
        super().__init__(0.5 * df, 0.5, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        """A new instance with the batch dims expanded (as views, no copy) to ``batch_shape``."""
        new = self._get_checked_instance(Chi2, _instance)
        return super().expand(_size.Size(batch_shape), new)

    @property
    def df(self):
        """The degrees of freedom, ``2 * concentration``."""
        return self.concentration * 2
