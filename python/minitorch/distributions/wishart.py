"""Wishart over positive-definite matrices, sampled by the Bartlett decomposition (reparameterized through the
Chi2 draws on its diagonal)."""

import math
import numbers
import warnings

from minitorch import _C, _composite_shape, _creation, _dtype_info, _size, linalg, special
from minitorch import functional as _functional
from minitorch.distributions import constraints
from minitorch.distributions.chi2 import Chi2
from minitorch.distributions.exp_family import ExponentialFamily
from minitorch.distributions.multivariate_normal import _precision_to_scale_tril
from minitorch.distributions.utils import lazy_property

__all__ = ["Wishart"]

_LOG_2 = math.log(2)


def _cholesky_solve(B, L):
    # (L L^T)^-1 B by two triangular solves
    return linalg.solve_triangular(
        L.transpose(-2, -1), linalg.solve_triangular(L, B, upper=False), upper=True
    )


def _mvdigamma(x, p):
    """The multivariate digamma function: sum_i digamma(x - i / 2), i < p."""
    if not bool((x > (p - 1) / 2).all()):
        raise AssertionError("Wrong domain for multivariate digamma function.")
    steps = _C.arange(p, dtype=x.dtype, device=x.device) / 2
    return _C.digamma(x.unsqueeze(-1) - steps).sum(-1)


class Wishart(ExponentialFamily):
    """The Wishart distribution over ``p x p`` positive-definite matrices with ``df`` degrees of freedom (> p - 1)
    and scale given by exactly one of ``covariance_matrix``, ``precision_matrix`` or ``scale_tril``: the law of
    ``sum_k x_k x_k^T`` for ``df`` draws ``x_k ~ N(0, covariance)`` when df is an integer."""

    support = constraints.positive_definite
    has_rsample = True
    _mean_carrier_measure = 0

    @property
    def arg_constraints(self):
        """The constraints of the parameters (df's bound depends on the dimension)."""
        return {
            "covariance_matrix": constraints.positive_definite,
            "precision_matrix": constraints.positive_definite,
            "scale_tril": constraints.lower_cholesky,
            "df": constraints.greater_than(self.event_shape[-1] - 1),
        }

    def __init__(
        self, df, covariance_matrix=None, precision_matrix=None, scale_tril=None, validate_args=None
    ):
        if (covariance_matrix is not None) + (scale_tril is not None) + (precision_matrix is not None) != 1:
            raise AssertionError(
                "Exactly one of covariance_matrix or precision_matrix or scale_tril may be specified."
            )
        param = next(p for p in (covariance_matrix, precision_matrix, scale_tril) if p is not None)
        if param.dim() < 2:
            raise ValueError(
                "scale_tril must be at least two-dimensional, with optional leading batch dimensions"
            )
        if isinstance(df, numbers.Number):
            batch_shape = _size.Size(param.shape[:-2])
            self.df = _creation.tensor(df, dtype=param.dtype, device=param.device)
        else:
            batch_shape = _size.Size(_functional.broadcast_shapes(tuple(param.shape[:-2]), tuple(df.shape)))
            self.df = df.expand(batch_shape)
        event_shape = param.shape[-2:]
        if bool((self.df <= event_shape[-1] - 1).any()):
            raise ValueError(
                f"Value of df={df} expected to be greater than ndim - 1 = {event_shape[-1] - 1}."
            )
        expanded = param.expand(tuple(batch_shape) + (-1, -1))
        if scale_tril is not None:
            self.scale_tril = expanded
        elif covariance_matrix is not None:
            self.covariance_matrix = expanded
        else:
            self.precision_matrix = expanded
        if bool((self.df < event_shape[-1]).any()):
            warnings.warn(
                "Low df values detected. Singular samples are highly likely to occur for ndim - 1 < df < ndim.",
                stacklevel=2,
            )
        super().__init__(batch_shape, event_shape, validate_args=validate_args)
        if scale_tril is not None:
            self._unbroadcasted_scale_tril = scale_tril
        elif covariance_matrix is not None:
            self._unbroadcasted_scale_tril = linalg.cholesky(covariance_matrix)
        else:
            self._unbroadcasted_scale_tril = _precision_to_scale_tril(precision_matrix)
        self._dist_chi2 = self._bartlett_chi2(batch_shape)

    def _bartlett_chi2(self, batch_shape):
        # the squared diagonal of the Bartlett factor: chi2(df - i) for i = 0..p-1
        p = self._event_shape[-1]
        L = self._unbroadcasted_scale_tril
        steps = _C.arange(p, dtype=L.dtype, device=L.device).expand(tuple(batch_shape) + (-1,))
        return Chi2(df=self.df.unsqueeze(-1) - steps)

    def expand(self, batch_shape, _instance=None):
        """A new instance with the batch dims expanded (as views, no copy) to ``batch_shape``."""
        new = self._get_checked_instance(Wishart, _instance)
        batch_shape = _size.Size(batch_shape)
        cov_shape = tuple(batch_shape) + tuple(self.event_shape)
        new._unbroadcasted_scale_tril = self._unbroadcasted_scale_tril.expand(cov_shape)
        new.df = self.df.expand(batch_shape)
        for name in ("covariance_matrix", "scale_tril", "precision_matrix"):
            if name in self.__dict__:
                setattr(new, name, getattr(self, name).expand(cov_shape))
        super(Wishart, new).__init__(batch_shape, self.event_shape, validate_args=False)
        new._dist_chi2 = new._bartlett_chi2(batch_shape)
        new._validate_args = self._validate_args
        return new

    def _matrix_shape(self):
        return tuple(self._batch_shape) + tuple(self._event_shape)

    @lazy_property
    def scale_tril(self):
        """The lower Cholesky factor of the scale matrix."""
        return self._unbroadcasted_scale_tril.expand(self._matrix_shape())

    @lazy_property
    def covariance_matrix(self):
        """The scale matrix ``scale_tril @ scale_tril.T``."""
        L = self._unbroadcasted_scale_tril
        return (L @ L.transpose(-2, -1)).expand(self._matrix_shape())

    @lazy_property
    def precision_matrix(self):
        """The inverse of the scale matrix."""
        L = self._unbroadcasted_scale_tril
        eye = _C.eye(self._event_shape[-1], dtype=L.dtype, device=L.device)
        return _cholesky_solve(eye, L).expand(self._matrix_shape())

    def _df_matrix(self):
        return self.df.view(tuple(self._batch_shape) + (1, 1))

    @property
    def mean(self):
        """The mean, ``df * covariance_matrix``."""
        return self._df_matrix() * self.covariance_matrix

    @property
    def mode(self):
        """``(df - p - 1) * covariance_matrix`` where df > p + 1, NaN otherwise."""
        factor = self.df - self.covariance_matrix.shape[-1] - 1
        factor = factor.masked_fill(factor <= 0, math.nan)
        return factor.view(tuple(self._batch_shape) + (1, 1)) * self.covariance_matrix

    @property
    def variance(self):
        """Entrywise variances, ``df (V_ij^2 + V_ii V_jj)``."""
        V = self.covariance_matrix
        d = V.diagonal(0, -2, -1)
        return self._df_matrix() * (V.pow(2) + d.unsqueeze(-1) * d.unsqueeze(-2))

    def _bartlett_sampling(self, sample_shape):
        p = self._event_shape[-1]
        eps = _dtype_info.finfo(self._unbroadcasted_scale_tril.dtype).eps
        diag = self._dist_chi2.rsample(sample_shape).sqrt().clamp(min=eps)
        normal = _C.randn(
            tuple(sample_shape) + tuple(self._batch_shape) + (p, p), dtype=diag.dtype, device=diag.device
        ).tril(-1)
        noise = normal + _composite_shape.diag_embed(diag)
        chol = self._unbroadcasted_scale_tril @ noise
        return chol @ chol.transpose(-2, -1)

    def rsample(self, sample_shape=(), max_try_correction=None):
        """``(L A)(L A)^T`` with ``A`` lower-triangular: sqrt(chi2(df - i)) on the diagonal, standard normals
        below (Bartlett). Samples that round to singular matrices are redrawn up to ``max_try_correction`` times
        (default 10), with a warning; a sample that stays singular is returned as is."""
        max_try_correction = 10 if max_try_correction is None else max_try_correction
        sample_shape = _size.Size(sample_shape)
        sample = self._bartlett_sampling(sample_shape)
        singular = ~self.support.check(sample)
        if bool(singular.any()):
            warnings.warn("Singular sample detected.", stacklevel=2)
            for _ in range(max_try_correction):
                redraw = self._bartlett_sampling(sample_shape)
                sample = _C._where(singular.unsqueeze(-1).unsqueeze(-1), redraw, sample)
                singular = ~self.support.check(sample)
                if not bool(singular.any()):
                    break
        return sample

    def _log_det_scale_half(self):
        return self._unbroadcasted_scale_tril.diagonal(0, -2, -1).log().sum(-1)

    def log_prob(self, value):
        """Log of the probability density at ``value`` (a positive-definite matrix)."""
        if self._validate_args:
            self._validate_sample(value)
        nu = self.df
        p = self._event_shape[-1]
        trace = _cholesky_solve(value, self._unbroadcasted_scale_tril).diagonal(0, -2, -1).sum(-1)
        return (
            -nu * (p * _LOG_2 / 2 + self._log_det_scale_half())
            - special.multigammaln(nu / 2, p)
            + (nu - p - 1) / 2 * linalg.slogdet(value).logabsdet
            - trace / 2
        )

    def entropy(self):
        """The entropy of each distribution of the batch."""
        nu = self.df
        p = self._event_shape[-1]
        return (
            (p + 1) * (p * _LOG_2 / 2 + self._log_det_scale_half())
            + special.multigammaln(nu / 2, p)
            - (nu - p - 1) / 2 * _mvdigamma(nu / 2, p)
            + nu * p / 2
        )

    @property
    def _natural_params(self):
        nu = self.df
        p = self._event_shape[-1]
        return -self.precision_matrix / 2, (nu - p - 1) / 2

    def _log_normalizer(self, x, y):
        p = self._event_shape[-1]
        return (y + (p + 1) / 2) * (-linalg.slogdet(-2 * x).logabsdet + _LOG_2 * p) + special.multigammaln(
            y + (p + 1) / 2, p
        )
