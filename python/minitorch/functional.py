"""Functions PyTorch writes in Python over its ops (its torch/functional.py): broadcast_shapes, and
repeat_interleave composed of views and index_select, nansum/nanmean over masked_fill and sum, so autograd
and every device come for free."""

from collections.abc import Sequence

import numpy as np

from minitorch import _C, _argcheck
from minitorch._creation import tensor
from minitorch._dtype_names import cpp_name as _cpp_name
from minitorch._dtype_names import scalar_name as _scalar_name
from minitorch._out import write_out
from minitorch._size import Size

__all__ = ["broadcast_shapes", "nanmean", "nansum", "repeat", "repeat_interleave"]


def broadcast_shapes(*shapes):
    """The shape that tensors of the given shapes broadcast to (NumPy's rule); an int is a 1-d shape."""
    shapes = [(s,) if isinstance(s, int) else s for s in shapes if s is not None]  # PyTorch passes over None
    for s in shapes:  # PyTorch's words for anything but an int or a sequence (a tensor or float included)
        if not isinstance(s, Sequence):
            shown = s.item() if isinstance(s, _C.Tensor) and s.dim() == 0 else s
            raise RuntimeError(  # noqa: TRY004  (PyTorch's class)
                f"Input shapes should be of type ints, a tuple of ints, or a list of ints, got {shown}"
            )
    ndim = max((len(s) for s in shapes), default=0)
    out = [1] * ndim
    for k, s in enumerate(shapes):
        # PyTorch's order: each shape's last dim first; its size-oblivious guard on `n == 1` takes only a bool
        # (a tensor's or a NumPy number's comparison is not one), then a mismatch with what came before, then
        # the sign
        for i in range(-1, -1 - len(s), -1):
            n = s[i]
            one = n == 1
            if type(one) is not bool:
                kind = "<class 'torch.Tensor'>" if isinstance(n, _C.Tensor) else str(type(one))
                raise AssertionError(f"Expected bool, got {kind}")
            if one or n == out[i]:
                continue
            if out[i] != 1:
                raise RuntimeError(
                    f"Attempting to broadcast a dimension of length {n} at {i}! Mismatching argument "
                    f"at index {k} had {s}; but expected shape should be broadcastable to {out}"
                )
            if n < 0:
                raise ValueError("Attempting to broadcast a dimension with negative length!")
            out[i] = n
    for i, n in enumerate(out):
        if not isinstance(n, int):  # torch.Size's own refusal (a float size passes the comparisons)
            raise TypeError(f"torch.Size() takes an iterable of 'int' (item {i} is '{type(n).__name__}')")
    return Size(out)


def _repeat_counts(repeats, n):
    counts = np.asarray(repeats.tolist() if isinstance(repeats, _C.Tensor) else repeats, dtype=np.int64)
    if counts.ndim > 1:
        raise RuntimeError("repeat_interleave only accept 1D vector as repeat")
    if (counts < 0).any():
        raise RuntimeError("repeats can not be negative")
    if counts.ndim == 1 and counts.size != 1 and counts.size != n:
        raise RuntimeError(
            "repeats must have the same size as input along dim, but got "
            f"repeats.size(0) = {counts.size} and input.size(0) = {n}"
        )
    return np.broadcast_to(counts.reshape(-1), (n,))


_REPEAT_INTERLEAVE_SIGS = [
    _argcheck._signature(s)
    for s in (
        "Tensor input, Tensor repeats, int? dim=None, *, int? output_size=None",
        "Tensor repeats, *, int? output_size=None",
        "Tensor input, int repeats, int? dim=None, *, int? output_size=None",
    )
]


_NO_REPEATS = object()  # repeats not given: the one-argument overload (None itself is no overload's)


def _integer_counts(counts):
    # PyTorch's kernel takes integer counts only
    if isinstance(counts, _C.Tensor) and (
        counts.is_floating_point() or counts.is_complex() or counts.dtype == _C.bool
    ):
        op = "repeat_interleave_cuda" if counts.is_cuda else "repeat_interleave_cpu"
        raise NotImplementedError(f"\"{op}\" not implemented for '{_scalar_name(counts.dtype)}'")


def repeat_interleave(input, repeats=_NO_REPEATS, dim=None, *, output_size=None):
    """Repeats each element (each slice along ``dim``) ``repeats`` times; ``repeat_interleave(counts)`` alone
    gives each index ``counts[i]`` times."""
    if not isinstance(input, _C.Tensor):
        arg = "'input'" if repeats is not _NO_REPEATS else "'repeats'"
        raise TypeError(
            f"repeat_interleave(): argument {arg} (position 1) must be Tensor, not {type(input).__name__}"
        )
    if (
        repeats is None
        or (
            repeats is not _NO_REPEATS
            and not (_argcheck._tensor_like(repeats) or _argcheck._int_like(repeats, True))
        )
        or (dim is not None and not _argcheck._int_like(dim, True))
        or (repeats is _NO_REPEATS and dim is not None)
    ):
        # PyTorch's parser refuses them, in its words (the counts-only overload has no dim)
        args = (input,) if repeats is _NO_REPEATS else (input, repeats)
        kwargs = {} if output_size is None else {"output_size": output_size}
        if dim is not None:
            kwargs["dim"] = dim
        _argcheck.check_call("repeat_interleave", _REPEAT_INTERLEAVE_SIGS, args, kwargs)
    if dim is not None:
        dim = int(dim)  # a NumPy int or a 0-dim integer tensor, as the parser's int
    if repeats is _NO_REPEATS:
        repeats = None
    if repeats is None:  # the one-argument overload: indices repeated by the counts in input
        _integer_counts(input)
        if input.dim() != 1:
            raise RuntimeError("repeat_interleave only accept 1D vector as repeat")
        counts = _repeat_counts(input, input.numel())
        idx = np.repeat(np.arange(counts.size, dtype=np.int64), counts)
        if output_size is not None and idx.size != output_size:
            raise RuntimeError("allocated size does not match required size")
        return tensor(idx, dtype=input.dtype, device=input.device)
    if input.dim() == 0 and dim is not None:
        # PyTorch's errors for a dim of a 0-dim input: an int count wraps the dim against the input made 1-d
        # and asks for the one after it; a tensor count asks the 0-dim input for its size
        if isinstance(repeats, _C.Tensor):
            raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
        if repeats < 0:  # an int count is checked before the dim
            raise RuntimeError("Repeats must be non-negative")
        raise IndexError(
            f"Dimension out of range (expected to be in range of [-1, 0], but got {dim if not -1 <= dim <= 0 else 1})"
        )
    x = input.reshape(-1) if dim is None else input
    if x.dim() == 0:
        x = x.reshape(1)
    d = 0 if dim is None else dim
    nd = x.dim()
    if not -nd <= d < nd:
        raise IndexError(
            f"Dimension out of range (expected to be in range of [{-nd}, {nd - 1}], but got {d})"
        )
    d %= nd
    _integer_counts(repeats)  # after the dim's checks, as PyTorch's
    n = x.shape[d]
    if isinstance(repeats, int) or (
        isinstance(repeats, _C.Tensor) and repeats.numel() == 1 and repeats.dim() <= 1
    ):
        r = int(repeats) if isinstance(repeats, int) else int(repeats.item())
        if r < 0:
            raise RuntimeError("Repeats must be non-negative")
        # a view that expands a new axis after d, copied once (never a view of input: a reshape of the
        # expansion of a one-long dim, or of r == 1, was input's own storage, which writes went through to)
        shape = list(x.shape)
        y = x.unsqueeze(d + 1).expand(*shape[: d + 1], r, *shape[d + 1 :])
        out = y.clone(memory_format=_C.contiguous_format).view(*shape[:d], n * r, *shape[d + 1 :])
    else:
        counts = _repeat_counts(repeats, n)
        idx = np.repeat(np.arange(n, dtype=np.int64), counts)
        out = x.index_select(d, tensor(idx, dtype=_C.int64, device=x.device))
    if output_size is not None and out.shape[d] != output_size:
        if not isinstance(repeats, _C.Tensor):  # PyTorch checks an int count's product first, in its words
            raise RuntimeError(
                f"repeat_interleave: Invalid output_size, expected {out.shape[d]} but got {output_size}"
            )
        raise RuntimeError("allocated size does not match required size")
    return out


# PyTorch's parser words every refusal (three positionals: output_size is keyword-only) and takes NumPy's
# names (axis=, x=); the body checks only what decides its path
repeat_interleave = _argcheck.parsing(repeat_interleave, _REPEAT_INTERLEAVE_SIGS, upfront=False)


def _sizes_keyword(fn, arg, positional, kwargs):
    """The int-list argument of a ``*sizes`` method given positionally or as PyTorch's keyword (``repeats=``,
    ``size=``), with PyTorch's parser errors."""
    if not positional and arg not in kwargs:
        raise TypeError(f'{fn}() missing 1 required positional arguments: "{arg}"')
    for k in kwargs:
        if k != arg:
            raise TypeError(f"{fn}() got an unexpected keyword argument '{k}'")
    if kwargs:
        if positional:
            raise TypeError(f"{fn}() got multiple values for argument '{arg}'")
        value = kwargs[arg]
        if not isinstance(value, (list, tuple)):
            raise TypeError(f"{fn}(): argument '{arg}' must be tuple of ints, not {type(value).__name__}")
        return tuple(value)
    return positional


def repeat(self, *repeats, **kwargs):
    """Tensor.repeat's calls that are not plain ints (keywords, tensors or bools for counts, a negative count,
    too few counts): PyTorch's checks and errors, then the op (csrc/ops/shape.cpp repeat; the Tensor method is
    bound in C++ and takes the plain calls itself, csrc/python/bind_shape.cpp)."""
    if kwargs:  # (Tensor.repeat's binding reads the counts and passes them plain, () too)
        repeats = _sizes_keyword("repeat", "repeats", repeats, kwargs)
    if len(repeats) == 1 and isinstance(repeats[0], (list, tuple)):
        repeats = tuple(repeats[0])
    # NumPy integers are ints to PyTorch's parser (x.repeat(np.int64(2), 1))
    repeats = tuple(int(r) if isinstance(r, np.integer) else r for r in repeats)
    for i, r in enumerate(repeats):
        if isinstance(r, int) and not -(2**63) <= r < 2**63:
            raise TypeError(
                f"repeat(): argument 'repeats' failed to unpack the object at pos {i + 1} with error "
                '"Overflow when unpacking long long"'
            )
        if not isinstance(r, int) or isinstance(r, bool):
            raise TypeError(
                f"repeat(): argument 'repeats' must be tuple of ints, but found element of type {type(r).__name__}"
            )
    if len(repeats) < self.dim():
        raise RuntimeError(
            "Number of dimensions of repeat dims can not be smaller than number of dimensions of tensor"
        )
    shape = [1] * (len(repeats) - self.dim()) + list(self.shape)
    out = [r * s for r, s in zip(repeats, shape)]
    for o in out:
        if o < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {o}: {out}")
    # checked in Python ints: a size or the element count past int64 would wrap in C++
    numel = 1
    for o in out:
        numel *= o
    if any(o >= 2**63 for o in out) or (numel >= 2**63):
        raise RuntimeError(f"repeat(): the result size {out} overflows")
    return _C._repeat(self, list(repeats))


@_argcheck.parses(
    "Tensor input, int[1]? dim=None, bool keepdim=False, *, ScalarType? dtype=None, Tensor? out=None",
    upfront=False,
)
def nansum(input, dim=None, keepdim=False, *, dtype=None, out=None):
    """torch.nansum: the sum with NaNs counted as zero (integer and bool inputs sum as they are); the
    gradient is zero where the input is NaN. One reduction (csrc/ops/reduce.cpp), its checks there. With out=,
    computed in out's dtype (PyTorch's nansum_out), the kernel writing into out when it has the result's shape
    (bind_out.cpp's _nansum_out)."""
    if isinstance(dim, int):
        dim = [dim]
    if out is None:
        return _C._nansum(input, dim, keepdim, dtype=dtype)
    if _C.is_grad_enabled() and (input.requires_grad or out.requires_grad):
        raise RuntimeError(
            "nansum(): functions with out=... arguments don't support automatic differentiation, but one of "
            "the arguments requires grad."
        )
    # PyTorch's nansum_out hands an integer or bool input, or an integer or bool dtype=, to sum_out (whose
    # out dtype check words it); a floating one checks dtype= against out itself
    inexact = input.is_floating_point() or input.is_complex()
    exact_dtype = dtype is not None and not (dtype.is_floating_point or dtype.is_complex)
    if dtype is not None and dtype != out.dtype:
        if not inexact or exact_dtype:
            raise RuntimeError(
                f"Expected out tensor to have dtype {_cpp_name(dtype)}, but got {_cpp_name(out.dtype)} instead"
            )
        raise RuntimeError(
            f"nansum: provided dtype must match dtype of result. Got {_scalar_name(out.dtype)} and "
            f"{_scalar_name(dtype)}."
        )
    if exact_dtype and inexact:
        return write_out(_C._nansum(input, dim, keepdim, dtype=dtype), out, "nansum")
    r = _C._nansum_out(out, input, dim or [], keepdim)
    return out if r is None else _C._write_out(out, r, True)


@_argcheck.parses(
    "Tensor input, int[1]? dim=None, bool keepdim=False, *, ScalarType? dtype=None, Tensor? out=None"
)
def nanmean(input, dim=None, keepdim=False, *, dtype=None, out=None):
    """torch.nanmean: the mean over the elements that are not NaN (NaN where every element is)."""
    if not (input.is_floating_point() or input.is_complex()):
        raise NotImplementedError(
            f"nanmean(): expected input to have floating point or complex dtype but got {_scalar_name(input.dtype)}"
        )
    if dtype is not None and not (dtype.is_floating_point or dtype.is_complex):
        raise RuntimeError(
            "nanmean(): could not infer output dtype. Optional dtype must be either a floating point or complex "
            f"dtype. Got: {_scalar_name(dtype)}"
        )
    if isinstance(dim, _C.Tensor):  # one integral element, which PyTorch's parser takes for the dim list
        dim = [int(dim.reshape(-1)[0].item())]
    if out is not None and dtype is None:
        dtype = out.dtype  # PyTorch's out= variant computes in the out tensor's dtype
    count = input.isnan().logical_not().sum(dim, keepdim=keepdim)
    result = nansum(input, dim, keepdim, dtype=dtype).div(count)
    return write_out(result, out, "nansum")


# The method spellings: the signatures without self, so a refusal counts positions as PyTorch's methods do
# (x.nansum(0, 1): keepdim is position 2)
TENSOR_METHOD_FORMS = {
    "repeat_interleave": _argcheck.parsing(
        repeat_interleave.__wrapped__,
        [
            "Tensor repeats, int? dim=None, *, SymInt? output_size=None",
            "SymInt repeats, int? dim=None, *, SymInt? output_size=None",
        ],
        method=True,
        upfront=False,
    ),
    "nansum": _argcheck.parsing(
        nansum.__wrapped__,
        ["int[1]? dim=None, bool keepdim=False, *, ScalarType? dtype=None"],
        method=True,
        upfront=False,
    ),
    "nanmean": _argcheck.parsing(
        nanmean.__wrapped__,
        ["int[1]? dim=None, bool keepdim=False, *, ScalarType? dtype=None"],
        method=True,
    ),
}
