"""LowRankMultivariateNormal: a Gaussian with covariance cov_factor @ cov_factor.T + diag(cov_diag), evaluated
through the Woodbury identity and the matrix determinant lemma (only a rank x rank Cholesky factorization)."""

import math
from typing import ClassVar

from minitorch import _C, _composite_shape, _size, linalg
from minitorch.distributions import constraints
from minitorch.distributions.distribution import Distribution
from minitorch.distributions.multivariate_normal import _batch_mahalanobis, _batch_mv
from minitorch.distributions.utils import _standard_normal, lazy_property

__all__ = ["LowRankMultivariateNormal"]


def _batch_capacitance_tril(W, D):
    # the Cholesky factor of the capacitance C = I + W^T D^-1 W (rank x rank)
    m = W.size(-1)
    K = (W.transpose(-2, -1) / D.unsqueeze(-2)) @ W
    return linalg.cholesky(K + _C.eye(m, dtype=K.dtype, device=K.device))


def _batch_lowrank_logdet(W, D, capacitance_tril):
    # log|W W^T + D| = log|C| + log|D| (matrix determinant lemma)
    return 2 * capacitance_tril.diagonal(0, -2, -1).log().sum(-1) + D.log().sum(-1)


def _batch_lowrank_mahalanobis(W, D, x, capacitance_tril):
    # x^T (W W^T + D)^-1 x = x^T D^-1 x - |L_C^-1 W^T D^-1 x|^2 (Woodbury)
    wt_dinv_x = _batch_mv(W.transpose(-2, -1) / D.unsqueeze(-2), x)
    return (x.pow(2) / D).sum(-1) - _batch_mahalanobis(capacitance_tril, wt_dinv_x)


class LowRankMultivariateNormal(Distribution):
    """A multivariate normal with mean ``loc`` and covariance ``cov_factor @ cov_factor.T + diag(cov_diag)``
    (``cov_factor`` of shape ``batch + (n, rank)``): densities cost O(n rank^2) instead of O(n^3)."""

    arg_constraints: ClassVar[dict] = {
        "loc": constraints.real_vector,
        "cov_factor": constraints.independent(constraints.real, 2),
        "cov_diag": constraints.independent(constraints.positive, 1),
    }
    support = constraints.real_vector
    has_rsample = True

    def __init__(self, loc, cov_factor, cov_diag, validate_args=None):
        if loc.dim() < 1:
            raise ValueError("loc must be at least one-dimensional.")
        event_shape = loc.shape[-1:]
        if cov_factor.dim() < 2:
            raise ValueError(
                "cov_factor must be at least two-dimensional, with optional leading batch dimensions"
            )
        if tuple(cov_factor.shape[-2:-1]) != tuple(event_shape):
            raise ValueError(f"cov_factor must be a batch of matrices with shape {event_shape[0]} x m")
        if tuple(cov_diag.shape[-1:]) != tuple(event_shape):
            raise ValueError(f"cov_diag must be a batch of vectors with shape {event_shape}")
        try:
            loc_, self.cov_factor, cov_diag_ = _composite_shape.broadcast_tensors(
                loc.unsqueeze(-1), cov_factor, cov_diag.unsqueeze(-1)
            )
        except RuntimeError as e:
            raise ValueError(
                f"Incompatible batch shapes: loc {loc.shape}, cov_factor {cov_factor.shape}, cov_diag {cov_diag.shape}"
            ) from e
        self.loc = loc_[..., 0]
        self.cov_diag = cov_diag_[..., 0]
        self._unbroadcasted_cov_factor = cov_factor
        self._unbroadcasted_cov_diag = cov_diag
        self._capacitance_tril = _batch_capacitance_tril(cov_factor, cov_diag)
        super().__init__(self.loc.shape[:-1], event_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        """A new instance with the batch dims expanded (as views, no copy) to ``batch_shape``."""
        new = self._get_checked_instance(LowRankMultivariateNormal, _instance)
        batch_shape = _size.Size(batch_shape)
        loc_shape = tuple(batch_shape) + tuple(self.event_shape)
        new.loc = self.loc.expand(loc_shape)
        new.cov_diag = self.cov_diag.expand(loc_shape)
        new.cov_factor = self.cov_factor.expand(loc_shape + tuple(self.cov_factor.shape[-1:]))
        new._unbroadcasted_cov_factor = self._unbroadcasted_cov_factor
        new._unbroadcasted_cov_diag = self._unbroadcasted_cov_diag
        new._capacitance_tril = self._capacitance_tril
        super(LowRankMultivariateNormal, new).__init__(batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def _matrix_shape(self):
        return tuple(self._batch_shape) + tuple(self._event_shape) * 2

    @property
    def mean(self):
        """The mean, ``loc``."""
        return self.loc

    @property
    def mode(self):
        """The mode, ``loc``."""
        return self.loc

    @lazy_property
    def variance(self):
        """The diagonal of the covariance, ``(cov_factor^2).sum(-1) + cov_diag``."""
        v = self._unbroadcasted_cov_factor.pow(2).sum(-1) + self._unbroadcasted_cov_diag
        return v.expand(tuple(self._batch_shape) + tuple(self._event_shape))

    @lazy_property
    def scale_tril(self):
        """The lower Cholesky factor of the covariance: ``D^1/2 chol(I + D^-1/2 W W^T D^-1/2)``."""
        n = self._event_shape[0]
        d_sqrt = self._unbroadcasted_cov_diag.sqrt().unsqueeze(-1)
        w = self._unbroadcasted_cov_factor / d_sqrt
        K = w @ w.transpose(-2, -1) + _C.eye(n, dtype=w.dtype, device=w.device)
        return (d_sqrt * linalg.cholesky(K)).expand(self._matrix_shape())

    @lazy_property
    def covariance_matrix(self):
        """The covariance, ``cov_factor @ cov_factor.T + diag(cov_diag)``."""
        W = self._unbroadcasted_cov_factor
        cov = W @ W.transpose(-2, -1) + _composite_shape.diag_embed(self._unbroadcasted_cov_diag)
        return cov.expand(self._matrix_shape())

    @lazy_property
    def precision_matrix(self):
        """The inverse covariance by Woodbury: ``D^-1 - A^T A`` with ``A = L_C^-1 W^T D^-1``."""
        wt_dinv = self._unbroadcasted_cov_factor.transpose(-2, -1) / self._unbroadcasted_cov_diag.unsqueeze(
            -2
        )
        A = linalg.solve_triangular(self._capacitance_tril, wt_dinv, upper=False)
        prec = (
            _composite_shape.diag_embed(self._unbroadcasted_cov_diag.reciprocal()) - A.transpose(-2, -1) @ A
        )
        return prec.expand(self._matrix_shape())

    def rsample(self, sample_shape=()):
        """``loc + W eps_W + sqrt(D) eps_D`` with standard normal noise: differentiable in all parameters."""
        shape = tuple(self._extended_shape(sample_shape))
        w_shape = shape[:-1] + tuple(self.cov_factor.shape[-1:])
        eps_w = _standard_normal(w_shape, dtype=self.loc.dtype, device=self.loc.device)
        eps_d = _standard_normal(shape, dtype=self.loc.dtype, device=self.loc.device)
        return (
            self.loc
            + _batch_mv(self._unbroadcasted_cov_factor, eps_w)
            + self._unbroadcasted_cov_diag.sqrt() * eps_d
        )

    def log_prob(self, value):
        """Log of the probability density at ``value``."""
        if self._validate_args:
            self._validate_sample(value)
        diff = value - self.loc
        W, D, L = self._unbroadcasted_cov_factor, self._unbroadcasted_cov_diag, self._capacitance_tril
        m = _batch_lowrank_mahalanobis(W, D, diff, L)
        log_det = _batch_lowrank_logdet(W, D, L)
        return -0.5 * (self._event_shape[0] * math.log(2 * math.pi) + log_det + m)

    def entropy(self):
        """The entropy of each distribution of the batch."""
        log_det = _batch_lowrank_logdet(
            self._unbroadcasted_cov_factor, self._unbroadcasted_cov_diag, self._capacitance_tril
        )
        h = 0.5 * (self._event_shape[0] * (1.0 + math.log(2 * math.pi)) + log_det)
        if len(self._batch_shape) == 0:
            return h
        return h.expand(self._batch_shape)
