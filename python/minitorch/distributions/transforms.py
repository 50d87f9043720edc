"""Transforms: invertible maps with log|det J|, used by TransformedDistribution and constraint_registry."""

import math
import numbers

from minitorch import _C, _composite_shape, _dtype_info, _size, linalg
from minitorch import functional as _functional
from minitorch.distributions import constraints
from minitorch.distributions.utils import (
    _sum_rightmost,
    broadcast_all,
    lazy_property,
    tril_matrix_to_vec,
    vec_to_tril_matrix,
)
from minitorch.nn import functional as F

__all__ = [
    "AbsTransform",
    "AffineTransform",
    "CatTransform",
    "ComposeTransform",
    "CorrCholeskyTransform",
    "CumulativeDistributionTransform",
    "ExpTransform",
    "IndependentTransform",
    "LowerCholeskyTransform",
    "PositiveDefiniteTransform",
    "PowerTransform",
    "ReshapeTransform",
    "SigmoidTransform",
    "SoftmaxTransform",
    "SoftplusTransform",
    "StackTransform",
    "StickBreakingTransform",
    "TanhTransform",
    "Transform",
    "identity_transform",
]


def _finfo(dtype):
    return _dtype_info.finfo(dtype)


class Transform:
    """An invertible (or pseudo-invertible) map ``x -> y`` between ``domain`` and ``codomain`` with a computable
    ``log_abs_det_jacobian``. Subclasses write ``_call`` and/or ``_inverse``. ``cache_size=1`` remembers the
    last ``(x, y)`` pair, so inverting a value the transform produced returns the original ``x`` exactly (a
    sample's inverse is free and exact, which matters where the inverse is lossy, e.g. tanh near +-1)."""

    bijective = False
    domain = None
    codomain = None

    def __init__(self, cache_size=0):
        self._cache_size = cache_size
        self._inv = None
        if cache_size == 0:
            pass
        elif cache_size == 1:
            self._cached_x_y = None, None
        else:
            raise ValueError("cache_size must be 0 or 1")
        super().__init__()

    def __getstate__(self):
        state = self.__dict__.copy()
        state["_inv"] = None
        return state

    @property
    def event_dim(self):
        """The number of rightmost dims that form one event."""
        if self.domain.event_dim == self.codomain.event_dim:
            return self.domain.event_dim
        raise ValueError("Please use either .domain.event_dim or .codomain.event_dim")

    @property
    def inv(self):
        """The inverse transform (``t.inv.inv is t``)."""
        inv = self._inv
        if inv is None:
            inv = _InverseTransform(self)
            self._inv = inv
        return inv

    @property
    def sign(self):
        """The sign of the Jacobian's determinant (+1 or -1) for a monotone univariate bijection."""
        raise NotImplementedError

    def with_cache(self, cache_size=1):
        """This transform with a cache of size ``cache_size`` (0 or 1)."""
        if self._cache_size == cache_size:
            return self
        if type(self).__init__ is Transform.__init__:
            return type(self)(cache_size=cache_size)
        raise NotImplementedError(f"{type(self)}.with_cache is not implemented")

    def __eq__(self, other):
        return self is other

    def __ne__(self, other):
        return not self.__eq__(other)

    __hash__ = object.__hash__

    def __call__(self, x):
        """``y = t(x)``."""
        if self._cache_size == 0:
            return self._call(x)
        x_old, y_old = self._cached_x_y
        if x is x_old:
            return y_old
        y = self._call(x)
        self._cached_x_y = x, y
        return y

    def _inv_call(self, y):
        if self._cache_size == 0:
            return self._inverse(y)
        x_old, y_old = self._cached_x_y
        if y is y_old:
            return x_old
        x = self._inverse(y)
        self._cached_x_y = x, y
        return x

    def _call(self, x):
        raise NotImplementedError

    def _inverse(self, y):
        raise NotImplementedError

    def log_abs_det_jacobian(self, x, y):
        """``log |dy/dx|`` given the input and the output."""
        raise NotImplementedError

    def __repr__(self):
        return self.__class__.__name__ + "()"

    def forward_shape(self, shape):
        """The output shape for an input of ``shape``."""
        return shape

    def inverse_shape(self, shape):
        """The input shape for an output of ``shape``."""
        return shape


class _InverseTransform(Transform):
    """The inverse of a transform (reach it through ``Transform.inv``)."""

    def __init__(self, transform):
        super().__init__(cache_size=transform._cache_size)
        self._inv = transform

    @constraints.dependent_property(is_discrete=False)
    def domain(self):
        """The constraint of valid inputs."""
        return self._inv.codomain

    @constraints.dependent_property(is_discrete=False)
    def codomain(self):
        """The constraint of the outputs."""
        return self._inv.domain

    @property
    def bijective(self):
        """Whether the transform is a bijection."""
        return self._inv.bijective

    @property
    def sign(self):
        """The sign of the Jacobian's determinant (+1 increasing, -1 decreasing)."""
        return self._inv.sign

    @property
    def inv(self):
        """The inverse transform."""
        return self._inv

    def with_cache(self, cache_size=1):
        """This transform with a cache of size ``cache_size`` (0 or 1)."""
        return self.inv.with_cache(cache_size).inv

    def __eq__(self, other):
        return isinstance(other, _InverseTransform) and self._inv == other._inv

    __hash__ = object.__hash__

    def __repr__(self):
        return f"{self.__class__.__name__}({self._inv!r})"

    def __call__(self, x):
        return self._inv._inv_call(x)

    def log_abs_det_jacobian(self, x, y):
        """``log |dy/dx|`` at input ``x`` and output ``y``."""
        return -self._inv.log_abs_det_jacobian(y, x)

    def forward_shape(self, shape):
        """The output shape for an input of ``shape``."""
        return self._inv.inverse_shape(shape)

    def inverse_shape(self, shape):
        """The input shape for an output of ``shape``."""
        return self._inv.forward_shape(shape)


class ComposeTransform(Transform):
    """The chain ``parts[-1] o ... o parts[0]``; the parts do their own caching."""

    def __init__(self, parts, cache_size=0):
        if cache_size:
            parts = [p.with_cache(cache_size) for p in parts]
        super().__init__(cache_size=cache_size)
        self.parts = list(parts)

    def __eq__(self, other):
        return isinstance(other, ComposeTransform) and self.parts == other.parts

    __hash__ = object.__hash__

    @constraints.dependent_property(is_discrete=False)
    def domain(self):
        """The constraint of valid inputs."""
        if not self.parts:
            return constraints.real
        domain = self.parts[0].domain
        # the chain's event rank is the largest any part needs, walking back from the output
        event_dim = self.parts[-1].codomain.event_dim
        for part in reversed(self.parts):
            event_dim += part.domain.event_dim - part.codomain.event_dim
            event_dim = max(event_dim, part.domain.event_dim)
        if event_dim > domain.event_dim:
            domain = constraints.independent(domain, event_dim - domain.event_dim)
        return domain

    @constraints.dependent_property(is_discrete=False)
    def codomain(self):
        """The constraint of the outputs."""
        if not self.parts:
            return constraints.real
        codomain = self.parts[-1].codomain
        event_dim = self.parts[0].domain.event_dim
        for part in self.parts:
            event_dim += part.codomain.event_dim - part.domain.event_dim
            event_dim = max(event_dim, part.codomain.event_dim)
        if event_dim > codomain.event_dim:
            codomain = constraints.independent(codomain, event_dim - codomain.event_dim)
        return codomain

    @lazy_property
    def bijective(self):
        """Whether the transform is a bijection."""
        return all(p.bijective for p in self.parts)

    @lazy_property
    def sign(self):
        """The sign of the Jacobian's determinant (+1 increasing, -1 decreasing)."""
        s = 1
        for p in self.parts:
            s = s * p.sign
        return s

    @property
    def inv(self):
        """The inverse transform."""
        inv = self._inv
        if inv is None:
            inv = ComposeTransform([p.inv for p in reversed(self.parts)])
            self._inv = inv
            inv._inv = self
        return inv

    def with_cache(self, cache_size=1):
        """This transform with a cache of size ``cache_size`` (0 or 1)."""
        if self._cache_size == cache_size:
            return self
        return ComposeTransform(self.parts, cache_size=cache_size)

    def __call__(self, x):
        for part in self.parts:
            x = part(x)
        return x

    def log_abs_det_jacobian(self, x, y):
        """``log |dy/dx|`` at input ``x`` and output ``y``."""
        if not self.parts:
            return _C.zeros_like(x)
        xs = [x]
        for part in self.parts[:-1]:
            xs.append(part(xs[-1]))  # free when the parts cache
        xs.append(y)
        total = None
        event_dim = self.domain.event_dim
        for part, a, b in zip(self.parts, xs[:-1], xs[1:]):
            term = _sum_rightmost(part.log_abs_det_jacobian(a, b), event_dim - part.domain.event_dim)
            total = term if total is None else total + term
            event_dim += part.codomain.event_dim - part.domain.event_dim
        return total

    def forward_shape(self, shape):
        """The output shape for an input of ``shape``."""
        for part in self.parts:
            shape = part.forward_shape(shape)
        return shape

    def inverse_shape(self, shape):
        """The input shape for an output of ``shape``."""
        for part in reversed(self.parts):
            shape = part.inverse_shape(shape)
        return shape

    def __repr__(self):
        return self.__class__.__name__ + "(\n    " + ",\n    ".join(repr(p) for p in self.parts) + "\n)"


identity_transform = ComposeTransform([])


class IndependentTransform(Transform):
    """Treats ``reinterpreted_batch_ndims`` more rightmost dims of ``base_transform`` as part of the event: the
    map is unchanged, ``log_abs_det_jacobian`` sums them out."""

    def __init__(self, base_transform, reinterpreted_batch_ndims, cache_size=0):
        super().__init__(cache_size=cache_size)
        self.base_transform = base_transform.with_cache(cache_size)
        self.reinterpreted_batch_ndims = reinterpreted_batch_ndims

    def with_cache(self, cache_size=1):
        """This transform with a cache of size ``cache_size`` (0 or 1)."""
        if self._cache_size == cache_size:
            return self
        return IndependentTransform(
            self.base_transform, self.reinterpreted_batch_ndims, cache_size=cache_size
        )

    @constraints.dependent_property(is_discrete=False)
    def domain(self):
        """The constraint of valid inputs."""
        return constraints.independent(self.base_transform.domain, self.reinterpreted_batch_ndims)

    @constraints.dependent_property(is_discrete=False)
    def codomain(self):
        """The constraint of the outputs."""
        return constraints.independent(self.base_transform.codomain, self.reinterpreted_batch_ndims)

    @property
    def bijective(self):
        """Whether the transform is a bijection."""
        return self.base_transform.bijective

    @property
    def sign(self):
        """The sign of the Jacobian's determinant (+1 increasing, -1 decreasing)."""
        return self.base_transform.sign

    def _call(self, x):
        if x.dim() < self.domain.event_dim:
            raise ValueError("Too few dimensions on input")
        return self.base_transform(x)

    def _inverse(self, y):
        if y.dim() < self.codomain.event_dim:
            raise ValueError("Too few dimensions on input")
        return self.base_transform.inv(y)

    def log_abs_det_jacobian(self, x, y):
        """``log |dy/dx|`` at input ``x`` and output ``y``."""
        return _sum_rightmost(self.base_transform.log_abs_det_jacobian(x, y), self.reinterpreted_batch_ndims)

    def __repr__(self):
        return f"{self.__class__.__name__}({self.base_transform!r}, {self.reinterpreted_batch_ndims})"

    def forward_shape(self, shape):
        """The output shape for an input of ``shape``."""
        return self.base_transform.forward_shape(shape)

    def inverse_shape(self, shape):
        """The input shape for an output of ``shape``."""
        return self.base_transform.inverse_shape(shape)


class ReshapeTransform(Transform):
    """Reshapes the rightmost ``in_shape`` of a tensor to ``out_shape`` (unit Jacobian)."""

    bijective = True

    def __init__(self, in_shape, out_shape, cache_size=0):
        self.in_shape = _size.Size(in_shape)
        self.out_shape = _size.Size(out_shape)
        if self.in_shape.numel() != self.out_shape.numel():
            raise ValueError("in_shape, out_shape have different numbers of elements")
        super().__init__(cache_size=cache_size)

    @constraints.dependent_property
    def domain(self):
        """The constraint of valid inputs."""
        return constraints.independent(constraints.real, len(self.in_shape))

    @constraints.dependent_property
    def codomain(self):
        """The constraint of the outputs."""
        return constraints.independent(constraints.real, len(self.out_shape))

    def with_cache(self, cache_size=1):
        """This transform with a cache of size ``cache_size`` (0 or 1)."""
        if self._cache_size == cache_size:
            return self
        return ReshapeTransform(self.in_shape, self.out_shape, cache_size=cache_size)

    def _call(self, x):
        batch = tuple(x.shape[: x.dim() - len(self.in_shape)])
        return x.reshape(batch + tuple(self.out_shape))

    def _inverse(self, y):
        batch = tuple(y.shape[: y.dim() - len(self.out_shape)])
        return y.reshape(batch + tuple(self.in_shape))

    def log_abs_det_jacobian(self, x, y):
        """``log |dy/dx|`` at input ``x`` and output ``y``."""
        batch = tuple(x.shape[: x.dim() - len(self.in_shape)])
        return x.new_zeros(batch)

    def forward_shape(self, shape):
        """The output shape for an input of ``shape``."""
        if len(shape) < len(self.in_shape):
            raise ValueError("Too few dimensions on input")
        cut = len(shape) - len(self.in_shape)
        if tuple(shape[cut:]) != tuple(self.in_shape):
            raise ValueError(f"Shape mismatch: expected {shape[cut:]} but got {self.in_shape}")
        return _size.Size(tuple(shape[:cut]) + tuple(self.out_shape))

    def inverse_shape(self, shape):
        """The input shape for an output of ``shape``."""
        if len(shape) < len(self.out_shape):
            raise ValueError("Too few dimensions on input")
        cut = len(shape) - len(self.out_shape)
        if tuple(shape[cut:]) != tuple(self.out_shape):
            raise ValueError(f"Shape mismatch: expected {shape[cut:]} but got {self.out_shape}")
        return _size.Size(tuple(shape[:cut]) + tuple(self.in_shape))


class ExpTransform(Transform):
    """``y = exp(x)``."""

    domain = constraints.real
    codomain = constraints.positive
    bijective = True
    sign = +1

    def __eq__(self, other):
        return isinstance(other, ExpTransform)

    __hash__ = object.__hash__

    def _call(self, x):
        return x.exp()

    def _inverse(self, y):
        return y.log()

    def log_abs_det_jacobian(self, x, y):
        """``log |dy/dx|`` at input ``x`` and output ``y``."""
        return x


class PowerTransform(Transform):
    """``y = x ** exponent`` on the positive reals."""

    domain = constraints.positive
    codomain = constraints.positive
    bijective = True

    def __init__(self, exponent, cache_size=0):
        super().__init__(cache_size=cache_size)
        (self.exponent,) = broadcast_all(exponent)

    def with_cache(self, cache_size=1):
        """This transform with a cache of size ``cache_size`` (0 or 1)."""
        if self._cache_size == cache_size:
            return self
        return PowerTransform(self.exponent, cache_size=cache_size)

    @lazy_property
    def sign(self):
        """The sign of the Jacobian's determinant (+1 increasing, -1 decreasing)."""
        return self.exponent.sign()

    def __eq__(self, other):
        return isinstance(other, PowerTransform) and bool(self.exponent.eq(other.exponent).all().item())

    __hash__ = object.__hash__

    def _call(self, x):
        return x.pow(self.exponent)

    def _inverse(self, y):
        return y.pow(1 / self.exponent)

    def log_abs_det_jacobian(self, x, y):
        """``log |dy/dx|`` at input ``x`` and output ``y``."""
        return (self.exponent * y / x).abs().log()

    def forward_shape(self, shape):
        """The output shape for an input of ``shape``."""
        return _functional.broadcast_shapes(shape, tuple(self.exponent.shape))

    def inverse_shape(self, shape):
        """The input shape for an output of ``shape``."""
        return _functional.broadcast_shapes(shape, tuple(self.exponent.shape))


def _clipped_sigmoid(x):
    fi = _finfo(x.dtype)
    return _C.sigmoid(x).clamp(min=fi.tiny, max=1.0 - fi.eps)


class SigmoidTransform(Transform):
    """``y = sigmoid(x)``, ``x = logit(y)``; y is kept inside (0, 1) so the inverse stays finite."""

    domain = constraints.real
    codomain = constraints.unit_interval
    bijective = True
    sign = +1

    def __eq__(self, other):
        return isinstance(other, SigmoidTransform)

    __hash__ = object.__hash__

    def _call(self, x):
        return _clipped_sigmoid(x)

    def _inverse(self, y):
        fi = _finfo(y.dtype)
        y = y.clamp(min=fi.tiny, max=1.0 - fi.eps)
        return y.log() - (-y).log1p()

    def log_abs_det_jacobian(self, x, y):
        # log sigmoid'(x) = log sigmoid(x) + log sigmoid(-x), each a softplus: stable for large |x|
        """``log |dy/dx|`` at input ``x`` and output ``y``."""
        return -F.softplus(-x) - F.softplus(x)


class SoftplusTransform(Transform):
    """``y = log(1 + exp(x))`` (linear above x = 20, as F.softplus)."""

    domain = constraints.real
    codomain = constraints.positive
    bijective = True
    sign = +1

    def __eq__(self, other):
        return isinstance(other, SoftplusTransform)

    __hash__ = object.__hash__

    def _call(self, x):
        return F.softplus(x)

    def _inverse(self, y):
        return (-y).expm1().neg().log() + y

    def log_abs_det_jacobian(self, x, y):
        """``log |dy/dx|`` at input ``x`` and output ``y``."""
        return -F.softplus(-x)


class TanhTransform(Transform):
    """``y = tanh(x)``. The inverse is atanh unclamped (as PyTorch): use ``cache_size=1`` to invert samples that
    rounded to +-1 exactly."""

    domain = constraints.real
    codomain = constraints.interval(-1.0, 1.0)
    bijective = True
    sign = +1

    def __eq__(self, other):
        return isinstance(other, TanhTransform)

    __hash__ = object.__hash__

    def _call(self, x):
        return x.tanh()

    def _inverse(self, y):
        return y.atanh()

    def log_abs_det_jacobian(self, x, y):
        # log(1 - tanh(x)^2) = 2 (log 2 - x - softplus(-2x)): no cancellation where tanh(x) rounds to 1
        """``log |dy/dx|`` at input ``x`` and output ``y``."""
        return 2.0 * (math.log(2.0) - x - F.softplus(-2.0 * x))


class AbsTransform(Transform):
    """``y = |x|`` (not injective: the inverse picks the nonnegative root)."""

    domain = constraints.real
    codomain = constraints.positive

    def __eq__(self, other):
        return isinstance(other, AbsTransform)

    __hash__ = object.__hash__

    def _call(self, x):
        return x.abs()

    def _inverse(self, y):
        return y


class AffineTransform(Transform):
    """``y = loc + scale * x``, pointwise; ``event_dim`` rightmost dims form one event (their log-Jacobians
    are summed)."""

    bijective = True

    def __init__(self, loc, scale, event_dim=0, cache_size=0):
        super().__init__(cache_size=cache_size)
        self.loc = loc
        self.scale = scale
        self._event_dim = event_dim

    @property
    def event_dim(self):
        """The number of rightmost dims that form one event."""
        return self._event_dim

    @constraints.dependent_property(is_discrete=False)
    def domain(self):
        """The constraint of valid inputs."""
        return (
            constraints.real
            if self.event_dim == 0
            else constraints.independent(constraints.real, self.event_dim)
        )

    @constraints.dependent_property(is_discrete=False)
    def codomain(self):
        """The constraint of the outputs."""
        return (
            constraints.real
            if self.event_dim == 0
            else constraints.independent(constraints.real, self.event_dim)
        )

    def with_cache(self, cache_size=1):
        """This transform with a cache of size ``cache_size`` (0 or 1)."""
        if self._cache_size == cache_size:
            return self
        return AffineTransform(self.loc, self.scale, self.event_dim, cache_size=cache_size)

    def __eq__(self, other):
        if not isinstance(other, AffineTransform):
            return False
        for a, b in ((self.loc, other.loc), (self.scale, other.scale)):
            if isinstance(a, numbers.Number) and isinstance(b, numbers.Number):
                if a != b:
                    return False
            elif not bool((a == b).all().item()):
                return False
        return True

    __hash__ = object.__hash__

    @property
    def sign(self):
        """The sign of the Jacobian's determinant (+1 increasing, -1 decreasing)."""
        if isinstance(self.scale, numbers.Number):
            s = float(self.scale)
            return 1 if s > 0 else -1 if s < 0 else 0
        return self.scale.sign()

    def _call(self, x):
        return self.loc + self.scale * x

    def _inverse(self, y):
        return (y - self.loc) / self.scale

    def log_abs_det_jacobian(self, x, y):
        """``log |dy/dx|`` at input ``x`` and output ``y``."""
        shape = tuple(x.shape)
        if isinstance(self.scale, numbers.Number):
            result = _C.full_like(x, math.log(abs(self.scale)))
        else:
            result = self.scale.abs().log()
        if self.event_dim:
            result = result.reshape(tuple(result.shape[: result.dim() - self.event_dim]) + (-1,)).sum(-1)
            shape = shape[: len(shape) - self.event_dim]
        return result.expand(shape)

    def forward_shape(self, shape):
        """The output shape for an input of ``shape``."""
        return _functional.broadcast_shapes(
            shape, tuple(getattr(self.loc, "shape", ())), tuple(getattr(self.scale, "shape", ()))
        )

    def inverse_shape(self, shape):
        """The input shape for an output of ``shape``."""
        return self.forward_shape(shape)


def _pad_last(x, left, right, value):
    return F.pad(x, [left, right], value=value)


class CorrCholeskyTransform(Transform):
    """Unconstrained vectors of length D(D-1)/2 to Cholesky factors of D x D correlation matrices (rows of unit
    norm): tanh to (-1, 1), then a signed stick-breaking of each row."""

    domain = constraints.real_vector
    codomain = constraints.corr_cholesky
    bijective = True

    def _call(self, x):
        x = x.tanh()
        eps = _finfo(x.dtype).eps
        x = x.clamp(min=-1 + eps, max=1 - eps)
        r = vec_to_tril_matrix(x, diag=-1)
        z1m_cumprod_sqrt = (1 - r**2).sqrt().cumprod(-1)
        r = r + _C.eye(r.shape[-1], dtype=r.dtype, device=r.device)
        return r * _pad_last(z1m_cumprod_sqrt[..., :-1], 1, 0, 1.0)

    def _inverse(self, y):
        y_cumsum = 1 - (y * y).cumsum(-1)
        shifted = _pad_last(y_cumsum[..., :-1], 1, 0, 1.0)
        t = tril_matrix_to_vec(y, diag=-1) / tril_matrix_to_vec(shifted, diag=-1).sqrt()
        return (t.log1p() - t.neg().log1p()) / 2

    def log_abs_det_jacobian(self, x, y, intermediates=None):
        # The Jacobian of x against the packed strictly-lower part of y (the spaces differ in dimension).
        """``log |dy/dx|`` at input ``x`` and output ``y``."""
        y1m_cumsum = 1 - (y * y).cumsum(-1)
        stick = 0.5 * tril_matrix_to_vec(y1m_cumsum, diag=-2).log().sum(-1)
        tanh_part = -2 * (x + F.softplus(-2 * x) - math.log(2.0)).sum(-1)
        return stick + tanh_part

    def forward_shape(self, shape):
        """The output shape for an input of ``shape``."""
        if len(shape) < 1:
            raise ValueError("Too few dimensions on input")
        n = shape[-1]
        d = round((0.25 + 2 * n) ** 0.5 + 0.5)
        if d * (d - 1) // 2 != n:
            raise ValueError("Input is not a flattened lower-diagonal number")
        return _size.Size(tuple(shape[:-1]) + (d, d))

    def inverse_shape(self, shape):
        """The input shape for an output of ``shape``."""
        if len(shape) < 2:
            raise ValueError("Too few dimensions on input")
        if shape[-2] != shape[-1]:
            raise ValueError("Input is not square")
        d = shape[-1]
        return _size.Size(tuple(shape[:-2]) + (d * (d - 1) // 2,))


class SoftmaxTransform(Transform):
    """Unconstrained vectors to the simplex by exp and normalization (not bijective: the inverse is log)."""

    domain = constraints.real_vector
    codomain = constraints.simplex

    def __eq__(self, other):
        return isinstance(other, SoftmaxTransform)

    __hash__ = object.__hash__

    def _call(self, x):
        p = (x - x.max(-1, True)[0]).exp()
        return p / p.sum(-1, True)

    def _inverse(self, y):
        return y.log()

    def forward_shape(self, shape):
        """The output shape for an input of ``shape``."""
        if len(shape) < 1:
            raise ValueError("Too few dimensions on input")
        return shape

    def inverse_shape(self, shape):
        """The input shape for an output of ``shape``."""
        if len(shape) < 1:
            raise ValueError("Too few dimensions on input")
        return shape


class StickBreakingTransform(Transform):
    """Unconstrained K-vectors to the (K+1)-simplex by stick breaking: each coordinate, through a sigmoid
    (offset so that x = 0 maps to the uniform point), takes its share of what is left of the stick. Bijective."""

    domain = constraints.real_vector
    codomain = constraints.simplex
    bijective = True

    def __eq__(self, other):
        return isinstance(other, StickBreakingTransform)

    __hash__ = object.__hash__

    @staticmethod
    def _offset_log(k, like):
        # log(K - i) for i = 0..K-1: the number of pieces still to be cut, after which sigmoid(0 - log) = 1/(K-i+1)
        return _C.arange(k, 0, -1, dtype=like.dtype, device=like.device).log()

    def _call(self, x):
        z = _clipped_sigmoid(x - self._offset_log(x.shape[-1], x))
        rest = (1 - z).cumprod(-1)
        return _pad_last(z, 0, 1, 1.0) * _pad_last(rest, 1, 0, 1.0)

    def _inverse(self, y):
        crop = y[..., :-1]
        remaining = (1 - crop.cumsum(-1)).clamp(min=_finfo(y.dtype).tiny)
        return crop.log() - remaining.log() + self._offset_log(crop.shape[-1], y)

    def log_abs_det_jacobian(self, x, y):
        """``log |dy/dx|`` at input ``x`` and output ``y``."""
        x = x - self._offset_log(x.shape[-1], x)
        # 1 - sigmoid(x) = exp(-x) sigmoid(x), so each factor is y_i * (1 - z_i) / z_i... in logs:
        return (-x + F.logsigmoid(x) + y[..., :-1].log()).sum(-1)

    def forward_shape(self, shape):
        """The output shape for an input of ``shape``."""
        if len(shape) < 1:
            raise ValueError("Too few dimensions on input")
        return _size.Size(tuple(shape[:-1]) + (shape[-1] + 1,))

    def inverse_shape(self, shape):
        """The input shape for an output of ``shape``."""
        if len(shape) < 1:
            raise ValueError("Too few dimensions on input")
        return _size.Size(tuple(shape[:-1]) + (shape[-1] - 1,))


class LowerCholeskyTransform(Transform):
    """Unconstrained square matrices to lower-triangular ones with a positive (exponentiated) diagonal."""

    domain = constraints.independent(constraints.real, 2)
    codomain = constraints.lower_cholesky

    def __eq__(self, other):
        return isinstance(other, LowerCholeskyTransform)

    __hash__ = object.__hash__

    def _call(self, x):
        return x.tril(-1) + _composite_shape.diag_embed(x.diagonal(0, -2, -1).exp())

    def _inverse(self, y):
        return y.tril(-1) + _composite_shape.diag_embed(y.diagonal(0, -2, -1).log())


class PositiveDefiniteTransform(Transform):
    """Unconstrained square matrices to positive-definite ones, ``L L^T`` of their LowerCholeskyTransform."""

    domain = constraints.independent(constraints.real, 2)
    codomain = constraints.positive_definite

    def __eq__(self, other):
        return isinstance(other, PositiveDefiniteTransform)

    __hash__ = object.__hash__

    def _call(self, x):
        lower = LowerCholeskyTransform()(x)
        return lower @ lower.transpose(-2, -1)

    def _inverse(self, y):
        return LowerCholeskyTransform().inv(linalg.cholesky(y))


def _check_dim(dim, t, what):
    if not (-t.dim() <= dim < t.dim()):
        raise AssertionError(f"dim {dim} out of range for {what} with {t.dim()} dimensions")


class CatTransform(Transform):
    """Applies ``tseq[i]`` to the i-th slice (of ``lengths[i]``) along ``dim``, as torch.cat joins them."""

    def __init__(self, tseq, dim=0, lengths=None, cache_size=0):
        if not all(isinstance(t, Transform) for t in tseq):
            raise AssertionError("All elements of tseq must be Transform instances")
        if cache_size:
            tseq = [t.with_cache(cache_size) for t in tseq]
        super().__init__(cache_size=cache_size)
        self.transforms = list(tseq)
        self.lengths = [1] * len(self.transforms) if lengths is None else list(lengths)
        if len(self.lengths) != len(self.transforms):
            raise AssertionError(
                f"lengths ({len(self.lengths)}) must match transforms ({len(self.transforms)})"
            )
        self.dim = dim

    @lazy_property
    def event_dim(self):
        """The number of rightmost dims that form one event."""
        return max(t.event_dim for t in self.transforms)

    @lazy_property
    def length(self):
        """The total size along ``dim`` (the sum of ``lengths``)."""
        return sum(self.lengths)

    def with_cache(self, cache_size=1):
        """This transform with a cache of size ``cache_size`` (0 or 1)."""
        if self._cache_size == cache_size:
            return self
        return CatTransform(self.transforms, self.dim, self.lengths, cache_size)

    def _pieces(self, t, name):
        _check_dim(self.dim, t, "tensor")
        if t.size(self.dim) != self.length:
            raise AssertionError(
                f"{name}.size({self.dim}) = {t.size(self.dim)} must equal length {self.length}"
            )
        start = 0
        for length in self.lengths:
            yield t.narrow(self.dim, start, length)
            start += length

    def _call(self, x):
        return _C.cat([tr(p) for tr, p in zip(self.transforms, self._pieces(x, "x"))], self.dim)

    def _inverse(self, y):
        return _C.cat([tr.inv(p) for tr, p in zip(self.transforms, self._pieces(y, "y"))], self.dim)

    def log_abs_det_jacobian(self, x, y):
        """``log |dy/dx|`` at input ``x`` and output ``y``."""
        terms = []
        for tr, a, b in zip(self.transforms, self._pieces(x, "x"), self._pieces(y, "y")):
            term = tr.log_abs_det_jacobian(a, b)
            if tr.event_dim < self.event_dim:
                term = _sum_rightmost(term, self.event_dim - tr.event_dim)
            terms.append(term)
        dim = self.dim - x.dim() if self.dim >= 0 else self.dim
        dim += self.event_dim
        # the cat dim survives the event reduction: concatenate; it was summed away: add
        if dim < 0:
            return _C.cat(terms, dim)
        return sum(terms)

    @property
    def bijective(self):
        """Whether the transform is a bijection."""
        return all(t.bijective for t in self.transforms)

    @constraints.dependent_property
    def domain(self):
        """The constraint of valid inputs."""
        return constraints.cat([t.domain for t in self.transforms], self.dim, self.lengths)

    @constraints.dependent_property
    def codomain(self):
        """The constraint of the outputs."""
        return constraints.cat([t.codomain for t in self.transforms], self.dim, self.lengths)


class StackTransform(Transform):
    """Applies ``tseq[i]`` to the i-th slice along ``dim``, as torch.stack joins them."""

    def __init__(self, tseq, dim=0, cache_size=0):
        if not all(isinstance(t, Transform) for t in tseq):
            raise AssertionError("All elements of tseq must be Transform instances")
        if cache_size:
            tseq = [t.with_cache(cache_size) for t in tseq]
        super().__init__(cache_size=cache_size)
        self.transforms = list(tseq)
        self.dim = dim

    def with_cache(self, cache_size=1):
        """This transform with a cache of size ``cache_size`` (0 or 1)."""
        if self._cache_size == cache_size:
            return self
        return StackTransform(self.transforms, self.dim, cache_size)

    def _slices(self, t, name):
        _check_dim(self.dim, t, "tensor")
        if t.size(self.dim) != len(self.transforms):
            raise AssertionError(
                f"{name}.size({self.dim}) = {t.size(self.dim)} must equal len(transforms) {len(self.transforms)}"
            )
        return [t.select(self.dim, i) for i in range(t.size(self.dim))]

    def _call(self, x):
        return _C.stack([tr(p) for tr, p in zip(self.transforms, self._slices(x, "x"))], self.dim)

    def _inverse(self, y):
        return _C.stack([tr.inv(p) for tr, p in zip(self.transforms, self._slices(y, "y"))], self.dim)

    def log_abs_det_jacobian(self, x, y):
        """``log |dy/dx|`` at input ``x`` and output ``y``."""
        terms = [
            tr.log_abs_det_jacobian(a, b)
            for tr, a, b in zip(self.transforms, self._slices(x, "x"), self._slices(y, "y"))
        ]
        return _C.stack(terms, self.dim)

    @property
    def bijective(self):
        """Whether the transform is a bijection."""
        return all(t.bijective for t in self.transforms)

    @constraints.dependent_property
    def domain(self):
        """The constraint of valid inputs."""
        return constraints.stack([t.domain for t in self.transforms], self.dim)

    @constraints.dependent_property
    def codomain(self):
        """The constraint of the outputs."""
        return constraints.stack([t.codomain for t in self.transforms], self.dim)


class CumulativeDistributionTransform(Transform):
    """``y = distribution.cdf(x)`` onto the unit interval (a copula's building block)."""

    bijective = True
    codomain = constraints.unit_interval
    sign = +1

    def __init__(self, distribution, cache_size=0):
        super().__init__(cache_size=cache_size)
        self.distribution = distribution

    @property
    def domain(self):
        """The constraint of valid inputs."""
        return self.distribution.support

    def _call(self, x):
        return self.distribution.cdf(x)

    def _inverse(self, y):
        return self.distribution.icdf(y)

    def log_abs_det_jacobian(self, x, y):
        """``log |dy/dx|`` at input ``x`` and output ``y``."""
        return self.distribution.log_prob(x)

    def with_cache(self, cache_size=1):
        """This transform with a cache of size ``cache_size`` (0 or 1)."""
        if self._cache_size == cache_size:
            return self
        return CumulativeDistributionTransform(self.distribution, cache_size=cache_size)
