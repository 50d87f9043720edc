"""tensor() and as_tensor(): tensors from Python data (nested lists, numbers, NumPy arrays, tensors)."""

import builtins

import numpy as np

from minitorch import _C
from minitorch._device import factory_device

_np_of = {
    _C.bool: np.bool_,
    _C.uint8: np.uint8,
    _C.int8: np.int8,
    _C.int16: np.int16,
    _C.int32: np.int32,
    _C.int64: np.int64,
    _C.float16: np.float16,
    _C.float32: np.float32,
    _C.float64: np.float64,
}
_of_np = {v: k for k, v in _np_of.items()}


def _infer(data):
    """The dtype PyTorch infers for Python data: Python bools, ints and floats count as bool, int64 and the
    default float dtype; tensors, NumPy arrays and NumPy scalars bring their own dtype; all are promoted."""
    found = []

    def walk(x):
        if isinstance(x, _C.Tensor):
            found.append(x.dtype)
        elif isinstance(x, (np.ndarray, np.generic)):
            if x.dtype.type not in _of_np:
                raise TypeError(f"can't convert np.ndarray of type numpy.{x.dtype}.")
            found.append(_of_np[x.dtype.type])
        elif isinstance(x, (list, tuple, range)):
            for e in x:
                walk(e)
        elif isinstance(x, builtins.bool):
            found.append(_C.bool)
        elif isinstance(x, builtins.int):
            found.append(_C.int64)
        elif isinstance(x, builtins.float):
            found.append(_C.get_default_dtype())
        elif isinstance(x, complex):
            raise TypeError("complex tensors are not supported by minitorch")
        elif isinstance(x, (str, bytes)):
            if x is data:
                raise TypeError(f"new(): invalid data type '{type(x).__name__}'")
            # PyTorch walks into a str as a sequence
            raise ValueError(f"too many dimensions '{type(x).__name__}'")  # noqa: TRY004
        else:  # None and other objects: PyTorch's C++ infer_scalar_type raises a RuntimeError
            raise RuntimeError(f"Could not infer dtype of {type(x).__name__}")  # noqa: TRY004

    walk(data)
    if not found:
        return _C.get_default_dtype()
    out = found[0]
    for d in found[1:]:
        out = _C.promote_types(out, d)
    return out


def _flatten_tensors(data):
    # A tensor inside a sequence is a scalar there, as in PyTorch: it must hold exactly one element (its shape is
    # dropped), else PyTorch's error (integer tensors go through __index__, hence the other message).
    if isinstance(data, _C.Tensor):
        if data.numel() != 1:
            if data.is_floating_point():
                raise ValueError("only one element tensors can be converted to Python scalars")
            raise TypeError("only integer tensors of a single element can be converted to an index")
        return data.item()
    if isinstance(data, (list, tuple, range)):
        return [_flatten_tensors(x) for x in data]
    return data


def tensor(data, *, dtype=None, device=None, requires_grad=False, pin_memory=False):
    """Copies `data` into a new tensor; dtype is inferred as PyTorch does (floats -> default dtype)."""
    if dtype is not None and not isinstance(dtype, _C.dtype):
        raise TypeError(f"tensor(): argument 'dtype' must be minitorch.dtype, not {type(dtype).__name__}")
    if isinstance(data, np.generic):  # a NumPy scalar keeps its dtype, as a 0-dim array does
        data = np.asarray(data)
    if isinstance(data, _C.Tensor):
        out = data.detach().to(dtype=dtype or data.dtype, device=device or data.device, copy=True)
    else:
        device = factory_device(device)
        if isinstance(data, np.ndarray):
            arr = data
            if dtype is None and arr.dtype.kind not in "biuf":
                raise TypeError(f"can't convert np.ndarray of type numpy.{arr.dtype}.")
            if not arr.dtype.isnative:  # tensor() copies anyway, so it can also fix the byte order
                arr = arr.astype(arr.dtype.newbyteorder("="))
        else:
            if dtype is None:
                dtype = _infer(data)
            data = _flatten_tensors(data)
            with np.errstate(over="ignore"):  # out-of-range floats become inf, silently, as in PyTorch
                arr = np.array(data, dtype=_np_of.get(dtype, np.float32))
            if arr.dtype == object:
                raise ValueError("expected sequence of equal-length lists")
        if dtype == _C.bfloat16:
            # np.array, not np.ascontiguousarray: the latter turns a 0-dim array into shape (1,)
            out = _C.from_numpy(np.array(arr, dtype=np.float32, order="C")).to(_C.bfloat16)
        else:
            if dtype is not None:
                arr = arr.astype(_np_of[dtype], copy=False)
            out = _C.from_numpy(np.array(arr, copy=True, order="C"))
        if device is not None:
            out = out.to(device)
    if requires_grad:
        out.requires_grad_(True)
    return out


def as_tensor(data, dtype=None, device=None):
    """Like tensor(), but shares memory with a NumPy array or tensor when dtype and device already match."""
    if isinstance(data, _C.Tensor):
        return data.to(dtype=dtype or data.dtype, device=device or data.device)
    device = factory_device(device)
    if isinstance(data, np.ndarray) and (dtype is None or _np_of.get(dtype) == data.dtype.type):
        try:
            out = _C.from_numpy(data)
        except (TypeError, ValueError):
            return tensor(data, dtype=dtype, device=device)
        return out if device is None else out.to(device)
    return tensor(data, dtype=dtype, device=device)


def is_tensor(obj):
    """True when `obj` is a minitorch Tensor."""
    return isinstance(obj, _C.Tensor)


def is_floating_point(t):
    """True when `t` has a floating-point dtype (float16, bfloat16, float32, float64)."""
    if not isinstance(t, _C.Tensor):
        raise TypeError(
            f"is_floating_point(): argument 'input' (position 1) must be Tensor, not {type(t).__name__}"
        )
    return t.is_floating_point()


def numel(t):
    """The number of elements of `t`."""
    if not isinstance(t, _C.Tensor):
        raise TypeError(f"numel(): argument 'input' (position 1) must be Tensor, not {type(t).__name__}")
    return t.numel()


def _legacy_new(*args):
    """What Tensor(...) builds, as PyTorch's legacy constructor: Tensor() is empty, Tensor(2, 3) or
    Tensor(Size) uninitialized of that shape, Tensor(data) a copy of data in the default float dtype."""
    from minitorch._size import Size

    dtype = _C.get_default_dtype()
    if not args:
        return _C.empty(0, dtype=dtype)
    if all(isinstance(a, builtins.int) and not isinstance(a, builtins.bool) for a in args):
        return _C.empty(args, dtype=dtype)
    if len(args) == 1 and isinstance(args[0], Size):
        return _C.empty(tuple(args[0]), dtype=dtype)
    if len(args) == 1:
        return tensor(args[0], dtype=dtype)
    raise TypeError(
        f"Tensor() received an invalid combination of arguments: got {tuple(type(a).__name__ for a in args)}"
    )
