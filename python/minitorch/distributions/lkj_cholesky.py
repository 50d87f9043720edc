"""LKJCholesky: Cholesky factors of correlation matrices with density proportional to det(M)^(eta - 1), sampled
by the onion method (Lewandowski, Kurowicka and Joe, 2009, section 3)."""

import math
from typing import ClassVar

from minitorch import _C, _composite_shape, _dtype_info, _size, special
from minitorch.autograd import grad_mode
from minitorch.distributions import constraints
from minitorch.distributions.beta import Beta
from minitorch.distributions.distribution import Distribution
from minitorch.distributions.utils import broadcast_all

__all__ = ["LKJCholesky"]


class LKJCholesky(Distribution):
    """The LKJ distribution over lower Cholesky factors ``L`` of ``dim x dim`` correlation matrices: the
    correlation matrix ``L @ L.T`` has density proportional to ``det(L @ L.T)^(concentration - 1)``
    (``concentration = 1``: uniform over correlation matrices)."""

    arg_constraints: ClassVar[dict] = {"concentration": constraints.positive}
    support = constraints.corr_cholesky

    def __init__(self, dim, concentration=1.0, validate_args=None):
        if dim < 2:
            raise ValueError(f"Expected dim to be an integer greater than or equal to 2. Found dim={dim}.")
        self.dim = dim
        (self.concentration,) = broadcast_all(concentration)
        # Row i of L (i >= 1) is sqrt(y_i) times a uniform direction in R^i, y_i ~ Beta(i / 2, marginal - (i - 1) / 2)
        # (the onion method's step 2b; row 0 is e_0 and ignores its draw). PyTorch 2.15 draws Beta(i - 1/2, ...)
        # for i >= 2, which gives rows past the second the wrong marginals: every off-diagonal correlation of
        # LKJ(eta) in dimension d is (r + 1) / 2 ~ Beta(eta - 1 + d/2, eta - 1 + d/2), which these draws keep.
        marginal = self.concentration + 0.5 * (self.dim - 2)
        offset = _C.arange(self.dim - 1, dtype=self.concentration.dtype, device=self.concentration.device)
        offset = _C.cat([offset.new_zeros((1,)), offset])
        self._beta = Beta(0.5 * offset + 0.5, marginal.unsqueeze(-1) - 0.5 * offset)
        super().__init__(self.concentration.size(), _size.Size((dim, dim)), validate_args)

    def expand(self, batch_shape, _instance=None):
        """A new instance with the batch dims expanded (as views, no copy) to ``batch_shape``."""
        new = self._get_checked_instance(LKJCholesky, _instance)
        batch_shape = _size.Size(batch_shape)
        new.dim = self.dim
        new.concentration = self.concentration.expand(batch_shape)
        new._beta = self._beta.expand(tuple(batch_shape) + (self.dim,))
        super(LKJCholesky, new).__init__(batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def sample(self, sample_shape=()):
        """Cholesky factors by the onion method, without gradient."""
        with grad_mode.no_grad():
            y = self._beta.sample(sample_shape).unsqueeze(-1)
            u = _C.randn(tuple(self._extended_shape(sample_shape)), dtype=y.dtype, device=y.device).tril(-1)
            norm = u.pow(2).sum(-1, keepdim=True).sqrt()
            # the first row has no strictly-lower entries: its direction is empty (0, not 0 / 0)
            direction = _C._where(norm > 0, u / _C._where(norm > 0, norm, 1.0), 0.0)
            w = y.sqrt() * direction
            tiny = _dtype_info.finfo(w.dtype).tiny
            diag = (1 - w.pow(2).sum(-1)).clamp(min=tiny).sqrt()
            return w + _composite_shape.diag_embed(diag)

    def log_prob(self, value):
        """Log of the density of the factor ``value`` (with respect to its strictly-lower entries)."""
        if self._validate_args:
            self._validate_sample(value)
        diag = value.diagonal(0, -1, -2)[..., 1:]
        order = _C.arange(2, self.dim + 1, device=self.concentration.device)
        order = 2 * (self.concentration - 1).unsqueeze(-1) + self.dim - order
        unnormalized = (order * diag.log()).sum(-1)
        dm1 = self.dim - 1
        alpha = self.concentration + 0.5 * dm1
        normalizer = (
            0.5 * dm1 * math.log(math.pi) + special.multigammaln(alpha - 0.5, dm1) - _C.lgamma(alpha) * dm1
        )
        return unnormalized - normalizer
