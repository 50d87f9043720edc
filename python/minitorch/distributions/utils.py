"""Helpers shared by the distributions: broadcasting parameters, probs/logits conversion, lazy properties."""

import functools
import numbers

from minitorch import _C, _composite_shape, _creation, _dtype_info
from minitorch.autograd import grad_mode

__all__ = [
    "broadcast_all",
    "clamp_probs",
    "lazy_property",
    "logits_to_probs",
    "probs_to_logits",
    "tril_matrix_to_vec",
    "vec_to_tril_matrix",
]

euler_constant = 0.57721566490153286060  # Euler-Mascheroni


def broadcast_all(*values):
    """Broadcasts tensors and numbers together; numbers take the dtype and device of the first tensor (or the
    default dtype when there is none)."""
    if not all(isinstance(v, (_C.Tensor, numbers.Number)) for v in values):
        raise ValueError(
            "Input arguments must all be instances of Number, torch.Tensor or objects implementing __torch_function__."
        )
    if not all(isinstance(v, _C.Tensor) for v in values):
        dtype, device = _C.get_default_dtype(), None
        for v in values:
            if isinstance(v, _C.Tensor):
                dtype, device = v.dtype, v.device
                break
        values = [
            v if isinstance(v, _C.Tensor) else _creation.tensor(v, dtype=dtype, device=device) for v in values
        ]
    return _composite_shape.broadcast_tensors(*values)


def _standard_normal(shape, dtype, device):
    return _C.randn(tuple(shape), dtype=dtype, device=device)


def _sum_rightmost(value, dim):
    """Sums out the ``dim`` rightmost dimensions of ``value``."""
    if dim == 0:
        return value
    inner = 1
    for d in value.shape[value.dim() - dim :]:
        inner *= d
    return value.reshape(tuple(value.shape[: value.dim() - dim]) + (inner,)).sum(-1)


def finfo(dtype):
    """Machine limits of a floating dtype (minitorch.finfo)."""
    return _dtype_info.finfo(dtype)


def clamp_probs(probs):
    """Clamps probabilities into ``[eps, 1 - eps]`` for the dtype's machine epsilon."""
    eps = finfo(probs.dtype).eps
    return probs.clamp(min=eps, max=1 - eps)


def probs_to_logits(probs, is_binary=False):
    """Probabilities to logits (log-odds when ``is_binary``), clamped away from 0 and 1."""
    ps = clamp_probs(probs)
    if is_binary:
        return _C.log(ps) - _C.log1p(-ps)
    return _C.log(ps)


def logits_to_probs(logits, is_binary=False):
    """Logits to probabilities: softmax over the last dim, or sigmoid when ``is_binary``."""
    if is_binary:
        return _C.sigmoid(logits)
    return _C.softmax(logits, -1)


class lazy_property:
    """A property computed on first access and then stored on the instance (so later reads are attribute reads).
    Computed with gradients enabled, as PyTorch's: a parameter derived inside ``no_grad`` still tracks its
    source."""

    def __init__(self, wrapped):
        self.wrapped = wrapped
        functools.update_wrapper(self, wrapped)

    def __get__(self, instance, owner=None):
        if instance is None:
            return _lazy_property_and_property(self.wrapped)
        with grad_mode.enable_grad():
            value = self.wrapped(instance)
        setattr(instance, self.wrapped.__name__, value)
        return value


class _lazy_property_and_property(lazy_property, property):
    """What a lazy property looks like on the class: both a property (for documentation tools) and a
    lazy_property (so argument validation can skip parameters not yet computed)."""

    def __init__(self, wrapped):
        property.__init__(self, wrapped)


def _tril_mask(n, diag, device):
    r = _C.arange(n, device=device)
    return r < r.view(-1, 1) + (diag + 1)


def tril_matrix_to_vec(mat, diag=0):
    """The lower-triangular entries (offset ``diag``) of a batch of square matrices, in row order."""
    n = mat.shape[-1]
    if diag < -n or diag >= n:
        raise ValueError(f"diag ({diag}) provided is outside [{-n}, {n - 1}].")
    return mat[..., _tril_mask(n, diag, mat.device)]


def vec_to_tril_matrix(vec, diag=0):
    """Inverse of ``tril_matrix_to_vec``: a batch of lower-triangular matrices from their packed rows."""
    m = vec.shape[-1]
    n = (-(1 + 2 * diag) + ((1 + 2 * diag) ** 2 + 8 * m + 4 * abs(diag) * (diag + 1)) ** 0.5) / 2
    if round(n) - n > finfo(vec.dtype).eps:
        raise ValueError(
            f"The size of last dimension is {m} which cannot be expressed as "
            "the lower triangular part of a square D x D matrix."
        )
    n = round(n)
    mat = _C.zeros(tuple(vec.shape[:-1]) + (n, n), dtype=vec.dtype, device=vec.device)
    mask = _tril_mask(n, diag, vec.device)
    flat = mat.reshape(tuple(vec.shape[:-1]) + (n * n,))
    idx = mask.reshape(-1).nonzero().squeeze(-1)
    # scatter (not an in-place masked store) keeps the result differentiable in vec
    flat = flat.scatter(-1, idx.expand(tuple(vec.shape)), vec)
    return flat.reshape(tuple(vec.shape[:-1]) + (n, n))
