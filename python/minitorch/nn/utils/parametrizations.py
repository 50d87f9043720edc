"""nn.utils.parametrizations: weight_norm, spectral_norm and orthogonal written as parametrizations
(nn.utils.parametrize), with PyTorch's state_dict layout and errors."""

from enum import Enum, auto

from minitorch import _C, _argcheck, linalg
from minitorch._compare import allclose
from minitorch._composite_shape import vdot
from minitorch._ops import where
from minitorch.autograd.grad_mode import no_grad
from minitorch.nn import functional as F
from minitorch.nn import modules as _modules
from minitorch.nn.modules.module import Module
from minitorch.nn.utils import parametrize

__all__ = ["orthogonal", "spectral_norm", "weight_norm"]


def _mH(x):
    # the conjugate transpose of the last two dims
    return x.mT.conj() if x.is_complex() else x.mT


# ---- weight norm: w = g * v / ||v||, the norm taken over every dim but `dim` (over all of v when dim is -1)
def _wrap_dim(dim, ndim):
    if not -ndim <= dim < ndim:
        raise IndexError(
            f"Dimension out of range (expected to be in range of [{-ndim}, {ndim - 1}], but got {dim})"
        )
    return dim % ndim


def norm_except_dim(v, pow=2, dim=0):
    """The p-norm of v over every dim except ``dim``, keeping the reduced dims (size 1); over all of v (a
    0-dim result) when dim is -1. torch.norm_except_dim."""
    _argcheck.check_tensor_like("norm_except_dim", "v", 1, v)
    for pos, (name, value) in enumerate((("pow", pow), ("dim", dim)), 2):  # ATen's int64 pow and dim
        if not _argcheck._int_like(value, True):
            raise TypeError(
                f"norm_except_dim(): argument '{name}' (position {pos}) must be int, not {type(value).__name__}"
            )
    dim = int(dim)
    if dim == -1:
        return v.norm(pow)
    dim = _wrap_dim(dim, v.dim())
    if v.shape[dim] == 0:  # PyTorch's view(size(dim), -1) (view(-1, size(dim)) for the last dim) of nothing
        shape = "[-1, 0]" if dim == v.dim() - 1 and dim != 0 else "[0, -1]"
        raise RuntimeError(
            f"cannot reshape tensor of 0 elements into shape {shape} because the unspecified dimension size -1 "
            "can be any value and is ambiguous"
        )
    others = [d for d in range(v.dim()) if d != dim]
    if (
        not others
    ):  # a vector: each element's own norm, as PyTorch's view(size(0), -1).norm(pow, 1) (in the graph)
        return v.reshape(-1, 1).norm(pow, 1)
    return v.norm(pow, others, keepdim=True)


def _weight_norm(v, g, dim=0):
    """g * v / ||v|| with the norm of norm_except_dim; torch._weight_norm."""
    return v * (g / norm_except_dim(v, 2, dim))


class _WeightNorm(Module):
    def __init__(self, dim=0):
        super().__init__()
        self.dim = -1 if dim is None else dim

    def forward(self, weight_g, weight_v):
        return _weight_norm(weight_v, weight_g, self.dim)

    def right_inverse(self, weight):
        return norm_except_dim(weight, 2, self.dim), weight


def weight_norm(module, name="weight", dim=0):
    """Splits ``module.<name>`` into a magnitude ``original0`` (g) and a direction ``original1`` (v) under
    ``module.parametrizations.<name>``; the weight is g * v / ||v|| (norm per slice along ``dim``, over the
    whole tensor when dim is None). state_dicts of the legacy nn.utils.weight_norm (``<name>_g``/``<name>_v``)
    load into it."""
    parametrize.register_parametrization(module, name, _WeightNorm(dim), unsafe=True)

    def _legacy_keys(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs):
        g_key, v_key = f"{prefix}{name}_g", f"{prefix}{name}_v"
        if g_key in state_dict and v_key in state_dict:
            state_dict[f"{prefix}parametrizations.{name}.original0"] = state_dict.pop(g_key)
            state_dict[f"{prefix}parametrizations.{name}.original1"] = state_dict.pop(v_key)

    module._register_load_state_dict_pre_hook(_legacy_keys)
    return module


# ---- spectral norm: w / sigma(w), sigma estimated by power iteration on the weight seen as a matrix
class _SpectralNorm(Module):
    def __init__(self, weight, n_power_iterations=1, dim=0, eps=1e-12):
        super().__init__()
        ndim = weight.ndim
        if dim >= ndim or dim < -ndim:
            raise IndexError(
                f"Dimension out of range (expected to be in range of [-{ndim}, {ndim - 1}] but got {dim})"
            )
        if n_power_iterations <= 0:
            raise ValueError(
                f"Expected n_power_iterations to be positive, but got n_power_iterations={n_power_iterations}"
            )
        self.dim = dim if dim >= 0 else dim + ndim
        self.eps = eps
        if ndim > 1:
            self.n_power_iterations = n_power_iterations
            weight_mat = self._reshape_weight_to_matrix(weight)
            h, w = weight_mat.size()
            u = weight_mat.new_empty(h).normal_(0, 1)
            v = weight_mat.new_empty(w).normal_(0, 1)
            self.register_buffer("_u", F.normalize(u, dim=0, eps=self.eps))
            self.register_buffer("_v", F.normalize(v, dim=0, eps=self.eps))
            # start from good singular vectors rather than random ones
            self._power_method(weight_mat, 15)

    def _reshape_weight_to_matrix(self, weight):
        if self.dim != 0:
            weight = weight.permute(self.dim, *(d for d in range(weight.dim()) if d != self.dim))
        return weight.flatten(1)

    def _power_method(self, weight_mat, n_power_iterations):
        # u and v are updated in place: they are the buffers the state_dict saves
        with no_grad():
            for _ in range(n_power_iterations):
                self._u.copy_(F.normalize(_C.mv(weight_mat, self._v), dim=0, eps=self.eps))
                self._v.copy_(F.normalize(_C.mv(_mH(weight_mat), self._u), dim=0, eps=self.eps))

    def forward(self, weight):
        if weight.ndim == 1:
            return F.normalize(weight, dim=0, eps=self.eps)
        weight_mat = self._reshape_weight_to_matrix(weight)
        if self.training:
            self._power_method(weight_mat, self.n_power_iterations)
        # copies: backward must see the u, v of this forward even if a later access updates the buffers
        u = self._u.clone()
        v = self._v.clone()
        sigma = vdot(u, _C.mv(weight_mat, v))
        return weight / sigma

    def right_inverse(self, value):
        # weight / sigma(weight) is scale-invariant, so any value is its own preimage up to scale
        return value


def _transposed_conv_classes():
    names = ("ConvTranspose1d", "ConvTranspose2d", "ConvTranspose3d")
    return tuple(getattr(_modules, c) for c in names if hasattr(_modules, c))


def spectral_norm(module, name="weight", n_power_iterations=1, eps=1e-12, dim=None):
    """Makes ``module.<name>`` read as W / sigma(W), sigma the largest singular value of W reshaped to a matrix
    with ``dim`` (default 0, 1 for ConvTranspose) as rows, estimated by ``n_power_iterations`` power-iteration
    steps at every access in training mode. The singular vector estimates are the buffers ``_u`` and ``_v`` of
    ``module.parametrizations.<name>[0]``."""
    weight = getattr(module, name, None)
    if not isinstance(weight, _C.Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")  # noqa: TRY004  (PyTorch's exception type)
    if dim is None:
        dim = 1 if isinstance(module, _transposed_conv_classes()) else 0
    parametrize.register_parametrization(module, name, _SpectralNorm(weight, n_power_iterations, dim, eps))
    return module


# ---- orthogonal: Q from an unconstrained matrix by matrix_exp / Cayley of a skew part, or Householder products
_EPS = {"float32": 1.1920928955078125e-07, "float64": 2.220446049250313e-16}


def _find_linalg(name):
    # torch.linalg.<name>, or torch.<name> (geqrf) which the linalg package defines too
    return getattr(linalg, name, None) or getattr(getattr(linalg, "_decomp", None), name, None)


def _linalg(name):
    fn = _find_linalg(name)
    if fn is None:
        raise NotImplementedError(
            f"orthogonal() needs torch.linalg.{name}, which this build does not have yet"
        )
    return fn


def _is_orthogonal(q):
    n, k = q.size(-2), q.size(-1)
    eye = _C.eye(k, dtype=q.dtype, device=q.device)
    real = q.real if q.is_complex() else q
    eps = 10.0 * n * _EPS.get(str(real.dtype).split(".")[-1], 1.1920928955078125e-07)
    return allclose(_mH(q) @ q, eye, atol=eps)


def _make_orthogonal(a):
    """The Q of a = QR (a tall) with diag(R) real and non-negative, so Q is unique."""
    q, r = _linalg("qr")(a)
    return q * r.diagonal(dim1=-2, dim2=-1).sgn().unsqueeze(-2)


def _geqrf(a):
    geqrf = _find_linalg("geqrf")
    return geqrf(a) if geqrf is not None else _geqrf_py(a)


def _geqrf_py(a):
    """LAPACK's geqrf (Householder QR in compact form: R on and above the diagonal, the reflectors' tails
    below it, their scales in tau), one column at a time over the whole batch."""
    a = a.clone()
    m, n = a.size(-2), a.size(-1)
    k = min(m, n)
    tau = a.new_zeros(*a.shape[:-2], k)
    for j in range(k):
        x = a[..., j:, j]
        alpha = x[..., 0]
        xnorm = x[..., 1:].norm(dim=-1) if m - j > 1 else _C.zeros_like(alpha)
        beta = -_C.sign(alpha) * (alpha * alpha + xnorm * xnorm).sqrt()
        beta = where(alpha == 0, -(xnorm), beta)
        active = xnorm != 0
        safe_beta = where(active, beta, _C.ones_like(beta))
        t = where(active, (beta - alpha) / safe_beta, _C.zeros_like(beta))
        denom = where(active, alpha - beta, _C.ones_like(beta))
        v = x / denom.unsqueeze(-1)
        v[..., 0] = 1.0
        v = where(active.unsqueeze(-1), v, _C.zeros_like(v))
        # H = I - t v v^T applied to the trailing columns
        if j + 1 < n:
            rest = a[..., j:, j + 1 :]
            w = (v.unsqueeze(-1) * rest).sum(-2, keepdim=True)
            rest -= t.unsqueeze(-1).unsqueeze(-1) * v.unsqueeze(-1) * w
        new_col = v.clone()
        new_col[..., 0] = where(active, beta, alpha)
        a[..., j:, j] = new_col
        tau[..., j] = t
    return a, tau


class _OrthMaps(Enum):
    matrix_exp = auto()
    cayley = auto()
    householder = auto()


class _Orthogonal(Module):
    def __init__(self, weight, orthogonal_map, *, use_trivialization=True):
        super().__init__()
        if weight.is_complex() and orthogonal_map == _OrthMaps.householder:
            raise ValueError("The householder parametrization does not support complex tensors.")
        self.shape = weight.shape
        self.orthogonal_map = orthogonal_map
        if use_trivialization:
            self.register_buffer("base", None)

    def forward(self, X):
        n, k = X.size(-2), X.size(-1)
        transposed = n < k
        if transposed:
            X = X.mT
            n, k = k, n
        if self.orthogonal_map in (_OrthMaps.matrix_exp, _OrthMaps.cayley):
            X = X.tril()
            if n != k:
                X = _C.cat([X, X.new_zeros(n, n - k).expand(*X.shape[:-2], -1, -1)], dim=-1)
            A = X - _mH(X)
            if self.orthogonal_map == _OrthMaps.matrix_exp:
                Q = _linalg("matrix_exp")(A)
            else:
                eye = _C.eye(n, dtype=A.dtype, device=A.device)
                Q = _linalg("solve")(eye - 0.5 * A, eye + 0.5 * A)
            if n != k:
                Q = Q[..., :k]
        else:
            A = X.tril(diagonal=-1)
            tau = 2.0 / (1.0 + (A * A).sum(dim=-2))
            Q = _linalg("householder_product")(A, tau)
            Q = Q * X.diagonal(dim1=-2, dim2=-1).int().unsqueeze(-2)
        if hasattr(self, "base"):
            Q = self.base @ Q
        if transposed:
            Q = Q.mT
        return Q

    def right_inverse(self, Q):
        with no_grad():
            if Q.shape != self.shape:
                raise ValueError(
                    f"Expected a matrix or batch of matrices of shape {self.shape}. Got a tensor of shape {Q.shape}."
                )
            Q_init = Q
            n, k = Q.size(-2), Q.size(-1)
            transpose = n < k
            if transpose:
                Q = Q.mT
                n, k = k, n
            if not hasattr(self, "base"):
                if self.orthogonal_map in (_OrthMaps.cayley, _OrthMaps.matrix_exp):
                    raise NotImplementedError(
                        "It is not possible to assign to the matrix exponential or the Cayley parametrizations when "
                        "use_trivialization=False."
                    )
                # the reflectors of Q's QR, with a diagonal of +-1 that forward turns into column signs
                A, tau = _geqrf(Q)
                d = A.diagonal(dim1=-2, dim2=-1)
                sign = d.sign()
                d.copy_(where(tau == 0.0, -sign, sign))
                return A.mT if transpose else A
            if n == k:
                Q = Q.clone() if _is_orthogonal(Q) else _make_orthogonal(Q)
            else:
                # complete the tall Q to a square orthogonal base with random columns
                N = _C.randn(*(tuple(Q.size()[:-2]) + (n, n - k)), dtype=Q.dtype, device=Q.device)
                Q = _make_orthogonal(_C.cat([Q, N], dim=-1))
            self.base = Q
            # forward(-I) is the identity for every map, so base alone gives the value
            neg_id = _C.zeros_like(Q_init)
            neg_id.diagonal(dim1=-2, dim2=-1).fill_(-1.0)
            return neg_id


def orthogonal(module, name="weight", orthogonal_map=None, *, use_trivialization=True):
    """Makes ``module.<name>`` (a matrix or batch of matrices) orthogonal -- orthonormal columns when tall,
    rows when wide -- through ``orthogonal_map``: "matrix_exp" or "cayley" of a skew-symmetric matrix, or
    "householder" reflectors (default: matrix_exp for square or complex weights, householder otherwise). With
    ``use_trivialization`` the parametrization keeps a ``base`` buffer (dynamic trivialization)."""
    weight = getattr(module, name, None)
    if not isinstance(weight, _C.Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")  # noqa: TRY004  (PyTorch's exception type)
    if weight.ndim < 2:
        raise ValueError(f"Expected a matrix or batch of matrices. Got a tensor of {weight.ndim} dimensions.")
    if orthogonal_map is None:
        orthogonal_map = (
            "matrix_exp" if weight.size(-2) == weight.size(-1) or weight.is_complex() else "householder"
        )
    orth_enum = getattr(_OrthMaps, orthogonal_map, None)
    if orth_enum is None:
        raise ValueError(
            f'orthogonal_map has to be one of "matrix_exp", "cayley", "householder". Got: {orthogonal_map}'
        )
    orth = _Orthogonal(weight, orth_enum, use_trivialization=use_trivialization)
    parametrize.register_parametrization(module, name, orth, unsafe=True)
    return module
