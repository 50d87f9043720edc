"""MultivariateNormal with loc and one of covariance_matrix / precision_matrix / scale_tril (computations run on
the Cholesky factor, through linalg.cholesky and linalg.solve_triangular)."""

import math
from typing import ClassVar

from minitorch import _C, _composite_shape, _size, linalg
from minitorch import functional as _functional
from minitorch.distributions import constraints
from minitorch.distributions.distribution import Distribution
from minitorch.distributions.utils import _standard_normal, lazy_property

__all__ = ["MultivariateNormal"]


def _batch_mv(bmat, bvec):
    """Matrix-vector products over broadcast batch dims."""
    return (bmat @ bvec.unsqueeze(-1)).squeeze(-1)


def _batch_mahalanobis(bL, bx):
    """``x^T (L L^T)^{-1} x`` for Cholesky factors ``bL`` (batch ``B``) and vectors ``bx`` (batch ``S + B`` or
    anything broadcastable): one triangular solve per factor with every sample as a right-hand side."""
    n = bx.size(-1)
    lb = tuple(bL.shape[:-2])
    xb = tuple(bx.shape[:-1])
    lead = len(xb) - len(lb)
    if lead >= 0 and xb[lead:] == lb:
        # the common case (samples in front of the factor's batch): fold the samples into columns
        s = 1
        for d in xb[:lead]:
            s *= d
        flat_l = bL.reshape(-1, n, n)
        b = flat_l.size(0)
        rhs = bx.reshape(s, b, n).permute(1, 2, 0)  # (b, n, s)
        m = linalg.solve_triangular(flat_l, rhs, upper=False).pow(2).sum(-2)  # (b, s)
        return m.t().reshape(xb)
    shape = tuple(_functional.broadcast_shapes(lb, xb))
    sol = linalg.solve_triangular(
        bL.expand(shape + (n, n)), bx.expand(shape + (n,)).unsqueeze(-1), upper=False
    )
    return sol.squeeze(-1).pow(2).sum(-1)


def _precision_to_scale_tril(P):
    # With J the exchange matrix, chol(J P J) = J U J for the upper factor U of P = U^T U... so the reversed
    # Cholesky factor of the flipped precision gives L^{-T} without forming the covariance; then invert it.
    lf = linalg.cholesky(_composite_shape.flip(P, (-2, -1)))
    l_inv = _composite_shape.flip(lf, (-2, -1)).transpose(-2, -1)
    eye = _C.eye(P.shape[-1], dtype=P.dtype, device=P.device)
    return linalg.solve_triangular(l_inv, eye, upper=False)


class MultivariateNormal(Distribution):
    """The multivariate normal over vectors (event shape ``(n,)``) with mean ``loc`` and exactly one of a
    positive-definite ``covariance_matrix``, a positive-definite ``precision_matrix``, or a lower-triangular
    ``scale_tril`` with positive diagonal (``covariance = scale_tril @ scale_tril.T``)."""

    arg_constraints: ClassVar[dict] = {
        "loc": constraints.real_vector,
        "covariance_matrix": constraints.positive_definite,
        "precision_matrix": constraints.positive_definite,
        "scale_tril": constraints.lower_cholesky,
    }
    support = constraints.real_vector
    has_rsample = True

    def __init__(
        self, loc, covariance_matrix=None, precision_matrix=None, scale_tril=None, validate_args=None
    ):
        if loc.dim() < 1:
            raise ValueError("loc must be at least one-dimensional.")
        if (covariance_matrix is not None) + (scale_tril is not None) + (precision_matrix is not None) != 1:
            raise ValueError(
                "Exactly one of covariance_matrix or precision_matrix or scale_tril may be specified."
            )
        if scale_tril is not None:
            if scale_tril.dim() < 2:
                raise ValueError(
                    "scale_tril matrix must be at least two-dimensional, with optional leading batch dimensions"
                )
            batch_shape = _functional.broadcast_shapes(tuple(scale_tril.shape[:-2]), tuple(loc.shape[:-1]))
            self.scale_tril = scale_tril.expand(tuple(batch_shape) + (-1, -1))
        elif covariance_matrix is not None:
            if covariance_matrix.dim() < 2:
                raise ValueError(
                    "covariance_matrix must be at least two-dimensional, with optional leading batch dimensions"
                )
            batch_shape = _functional.broadcast_shapes(
                tuple(covariance_matrix.shape[:-2]), tuple(loc.shape[:-1])
            )
            self.covariance_matrix = covariance_matrix.expand(tuple(batch_shape) + (-1, -1))
        else:
            if precision_matrix.dim() < 2:
                raise ValueError(
                    "precision_matrix must be at least two-dimensional, with optional leading batch dimensions"
                )
            batch_shape = _functional.broadcast_shapes(
                tuple(precision_matrix.shape[:-2]), tuple(loc.shape[:-1])
            )
            self.precision_matrix = precision_matrix.expand(tuple(batch_shape) + (-1, -1))
        self.loc = loc.expand(tuple(batch_shape) + (-1,))
        super().__init__(batch_shape, self.loc.shape[-1:], validate_args=validate_args)
        if scale_tril is not None:
            self._unbroadcasted_scale_tril = scale_tril
        elif covariance_matrix is not None:
            self._unbroadcasted_scale_tril = linalg.cholesky(covariance_matrix)
        else:
            self._unbroadcasted_scale_tril = _precision_to_scale_tril(precision_matrix)

    def expand(self, batch_shape, _instance=None):
        """A new instance with the batch dims expanded (as views, no copy) to ``batch_shape``."""
        new = self._get_checked_instance(MultivariateNormal, _instance)
        batch_shape = _size.Size(batch_shape)
        loc_shape = tuple(batch_shape) + tuple(self.event_shape)
        cov_shape = loc_shape + tuple(self.event_shape)
        new.loc = self.loc.expand(loc_shape)
        new._unbroadcasted_scale_tril = self._unbroadcasted_scale_tril
        for name in ("covariance_matrix", "scale_tril", "precision_matrix"):
            if name in self.__dict__:
                setattr(new, name, getattr(self, name).expand(cov_shape))
        super(MultivariateNormal, new).__init__(batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def _matrix_shape(self):
        return tuple(self._batch_shape) + tuple(self._event_shape) + tuple(self._event_shape)

    @lazy_property
    def scale_tril(self):
        """The lower Cholesky factor of the covariance, broadcast to the batch."""
        return self._unbroadcasted_scale_tril.expand(self._matrix_shape())

    @lazy_property
    def covariance_matrix(self):
        """The covariance, ``scale_tril @ scale_tril.T``, broadcast to the batch."""
        L = self._unbroadcasted_scale_tril
        return (L @ L.transpose(-2, -1)).expand(self._matrix_shape())

    @lazy_property
    def precision_matrix(self):
        # (L L^T)^{-1} = L^{-T} L^{-1}
        """The inverse covariance, ``L^-T L^-1``, broadcast to the batch."""
        L = self._unbroadcasted_scale_tril
        eye = _C.eye(L.shape[-1], dtype=L.dtype, device=L.device)
        l_inv = linalg.solve_triangular(L, eye, upper=False)
        return (l_inv.transpose(-2, -1) @ l_inv).expand(self._matrix_shape())

    @property
    def mean(self):
        """The mean, ``loc``."""
        return self.loc

    @property
    def mode(self):
        """The mode, ``loc``."""
        return self.loc

    @property
    def variance(self):
        """The variance."""
        return (
            self._unbroadcasted_scale_tril.pow(2)
            .sum(-1)
            .expand(tuple(self._batch_shape) + tuple(self._event_shape))
        )

    def rsample(self, sample_shape=()):
        """``loc + L eps`` with standard normal ``eps``: differentiable in loc and the factor."""
        shape = self._extended_shape(sample_shape)
        eps = _standard_normal(shape, dtype=self.loc.dtype, device=self.loc.device)
        return self.loc + _batch_mv(self._unbroadcasted_scale_tril, eps)

    def log_prob(self, value):
        """Log of the probability density / mass at ``value``."""
        if self._validate_args:
            self._validate_sample(value)
        diff = value - self.loc
        m = _batch_mahalanobis(self._unbroadcasted_scale_tril, diff)
        half_log_det = self._unbroadcasted_scale_tril.diagonal(0, -2, -1).log().sum(-1)
        return -0.5 * (self._event_shape[0] * math.log(2 * math.pi) + m) - half_log_det

    def entropy(self):
        """The entropy of each distribution of the batch."""
        half_log_det = self._unbroadcasted_scale_tril.diagonal(0, -2, -1).log().sum(-1)
        h = 0.5 * self._event_shape[0] * (1.0 + math.log(2 * math.pi)) + half_log_det
        if len(self._batch_shape) == 0:
            return h
        return h.expand(self._batch_shape)
