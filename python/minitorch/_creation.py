"""tensor() and as_tensor(): tensors from Python data (nested lists, numbers, NumPy arrays, tensors)."""

import builtins

import numpy as np

from minitorch import _C, _argcheck
from minitorch._device import factory_device
from minitorch._dtype_names import cpp_name

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
    _C.complex64: np.complex64,
    _C.complex128: np.complex128,
}
_of_np = {v: k for k, v in _np_of.items()}


def _infer(data):
    """The dtype PyTorch infers for Python data: Python bools, ints, floats and complex numbers count as bool,
    int64, the default float dtype and its complex twin; tensors, NumPy arrays and NumPy scalars bring their own dtype; all are promoted."""
    found = {}  # the distinct dtypes, in the order first met (promotion is a join: repeats change nothing)
    scalar_dtypes = {builtins.bool: _C.bool, builtins.int: _C.int64, builtins.float: _C.get_default_dtype()}

    def walk(x):
        if type(x) is list or type(x) is tuple:
            kinds = set(map(type, x))
            if kinds <= _NUMBER_TYPES:  # a row of Python numbers: its types at once, not per element
                for t in (builtins.bool, builtins.int, builtins.float):
                    if t in kinds:
                        found[scalar_dtypes[t]] = None
                return
        if isinstance(x, _C.Tensor):
            found[x.dtype] = None
        elif isinstance(x, (np.ndarray, np.generic)):
            if x.dtype.type not in _of_np:
                raise TypeError(f"can't convert np.ndarray of type numpy.{x.dtype}.")
            found[_of_np[x.dtype.type]] = None
        elif isinstance(x, (list, tuple, range)):
            for e in x:
                walk(e)
        elif isinstance(x, builtins.bool):
            found[_C.bool] = None
        elif isinstance(x, builtins.int):
            found[_C.int64] = None
        elif isinstance(x, builtins.float):
            found[_C.get_default_dtype()] = None
        elif isinstance(x, complex):
            found[_C.get_default_dtype().to_complex()] = None
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
    found = list(found)
    out = found[0]
    for d in found[1:]:
        out = _C.promote_types(out, d)
    return out


def _flatten_tensors(data, dtype):
    # A tensor inside a sequence is a scalar there, as in PyTorch: it must hold exactly one element (its shape is
    # dropped), else PyTorch's error, which follows the result's dtype (an integral one converts through
    # __index__, hence the other message).
    if isinstance(data, _C.Tensor):
        if data.numel() != 1:
            if dtype.is_floating_point or dtype.is_complex:
                raise ValueError("only one element tensors can be converted to Python scalars")
            raise TypeError("only integer tensors of a single element can be converted to an index")
        return data.item()
    if isinstance(data, (list, tuple, range)):
        if (type(data) is list or type(data) is tuple) and set(map(type, data)) <= _NUMBER_TYPES:
            return data  # a row of Python numbers: NumPy reads it as it is
        return [_flatten_tensors(x, dtype) for x in data]
    return data


_NUMBER_TYPES = frozenset((builtins.bool, builtins.int, builtins.float))
_FLAT_NP = {_C.float32: np.float32, _C.float64: np.float64, _C.int64: np.int64, _C.bool: np.bool_}
_F32_MAX = 3.4028234663852886e38


def _flat_numbers(data, dtype):
    """tensor() of a short flat list of Python numbers, the common case, without the general walk (12 us against
    PyTorch's 4.5 for tensor([1., 2., 3.])); None where the general path must decide (other element types, other
    dtypes, float32 overflow, which NumPy would warn about, an int out of int64's range)."""
    kinds = set(map(type, data))
    if not kinds <= _NUMBER_TYPES:
        return None
    if dtype is None:
        dtype = (
            _C.get_default_dtype()
            if builtins.float in kinds
            else _C.int64
            if builtins.int in kinds
            else _C.bool
        )
    npd = _FLAT_NP.get(dtype)
    if npd is None or (npd is np.float32 and not builtins.max(map(abs, data)) <= _F32_MAX):
        return None
    try:
        arr = np.array(data, dtype=npd)
    except (OverflowError, ValueError, TypeError):
        return None
    return _C._from_numpy_copy(arr)


def tensor(data, *, dtype=None, device=None, requires_grad=False, pin_memory=False):
    """Copies `data` into a new tensor; dtype is inferred as PyTorch does (floats -> default dtype)."""
    if dtype is not None and not isinstance(dtype, _C.dtype):
        raise TypeError(f"tensor(): argument 'dtype' must be minitorch.dtype, not {type(dtype).__name__}")
    if (type(data) is list or type(data) is tuple) and 0 < len(data) <= 256:
        out = _flat_numbers(data, dtype)
        if out is not None:
            device = factory_device(device)
            if device is not None:
                out = out.to(device)
            if requires_grad:
                out.requires_grad_(True)
            return out
    if isinstance(data, np.generic):  # a NumPy scalar keeps its dtype, as a 0-dim array does
        data = np.asarray(data)
    if isinstance(data, _C.Tensor):
        out = data.detach().to(dtype=dtype or data.dtype, device=device or data.device, copy=True)
    else:
        device = factory_device(device)
        if isinstance(data, np.ndarray):
            arr = data
            if dtype is None and arr.dtype.kind not in "biufc":
                raise TypeError(f"can't convert np.ndarray of type numpy.{arr.dtype}.")
            if not arr.dtype.isnative:  # tensor() copies anyway, so it can also fix the byte order
                arr = arr.astype(arr.dtype.newbyteorder("="))
        else:
            if dtype is None:
                dtype = _infer(data)
            data = _flatten_tensors(data, dtype)
            with np.errstate(over="ignore"):  # out-of-range floats become inf, silently, as in PyTorch
                arr = np.array(data, dtype=_np_of.get(dtype, np.float32))
            if arr.dtype == object:
                raise ValueError("expected sequence of equal-length lists")
        if dtype == _C.bfloat16:
            # np.array, not np.ascontiguousarray: the latter turns a 0-dim array into shape (1,)
            out = _C._from_numpy_copy(np.array(arr, dtype=np.float32, order="C")).to(_C.bfloat16)
        else:
            if dtype is not None:
                arr = arr.astype(_np_of[dtype], copy=False)
            # np.asarray copies only an array that is not C-contiguous; the copy into memory of our own is
            # _from_numpy_copy's
            out = _C._from_numpy_copy(np.asarray(arr, order="C"))
        if arr.size == 0 and not isinstance(data, np.ndarray):
            # an empty list has no NumPy strides to keep (NumPy gives zeros): PyTorch's are the contiguous ones
            out = _C.empty(out.shape, dtype=out.dtype)
        if device is not None:
            out = out.to(device)
    if requires_grad:
        out.requires_grad_(True)
    return out


def as_tensor(data, *, dtype=None, device=None):
    """Like tensor(), but shares memory with a NumPy array or tensor when dtype and device already match."""
    if isinstance(data, _C.Tensor):
        if dtype is None and device is None:  # the tensor itself: no keyword conversion to pay for
            return data
        return data.to(dtype=dtype or data.dtype, device=device or data.device)
    device = factory_device(device)
    if isinstance(data, np.ndarray) and (dtype is None or _np_of.get(dtype) == data.dtype.type):
        try:
            out = _C.from_numpy(data)
        except (TypeError, ValueError):
            return tensor(data, dtype=dtype, device=device)
        return out if device is None else out.to(device)
    return tensor(data, dtype=dtype, device=device)


# The types is_tensor accepts: the Tensor class and the Python tensor types that register themselves (the
# sparse layouts of minitorch.sparse, which cannot subclass the C++ Tensor).
_TENSOR_TYPES = (_C.Tensor,)


def register_tensor_type(cls):
    """Makes is_tensor() true for instances of `cls` (a tensor type written in Python)."""
    global _TENSOR_TYPES
    if cls not in _TENSOR_TYPES:
        _TENSOR_TYPES = (*_TENSOR_TYPES, cls)


def is_tensor(obj):
    """True when `obj` is a minitorch Tensor (or a sparse tensor)."""
    return isinstance(obj, _TENSOR_TYPES)


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


# ---- the legacy constructor: Tensor(...), FloatTensor(...) & co. (python/minitorch/_legacy.py) and t.new(...)

_LEGACY_SIGNATURES = (
    " * (*, torch.device device = None)",
    " * (torch.Storage storage)",
    " * (Tensor other)",
    " * (tuple of ints size, *, torch.device device = None)",
    " * (object data, *, torch.device device = None)",
)
# 'cuda' after set_default_tensor_type(a torch.cuda type): where Tensor(...) then creates
_legacy_default_device_type = "cpu"


def _parser_type_name(v):
    """How PyTorch's argument parser names an argument's type in its messages (a list by its elements' types)."""
    if isinstance(v, _C.Tensor):  # a subclass too (Parameter), as PyTorch's listing says Tensor
        return "Tensor"
    if isinstance(v, list):
        return "list of [" + ", ".join(sorted({_parser_type_name(i) for i in v})) + "]"
    return _argcheck._kind_name(v)


def _invalid_new_arguments(args, kwargs, why):
    got = ", ".join(
        ["Tensor" if isinstance(a, _C.Tensor) else type(a).__name__ for a in args]
        + [f"{k}={_parser_type_name(v)}" for k, v in kwargs.items()]
    )
    if kwargs and not args:
        got += ", "
    lines = list(_LEGACY_SIGNATURES)
    lines.insert(1, f"      didn't match because {why}")
    return TypeError(
        f"new() received an invalid combination of arguments - got ({got}), but expected one of:\n"
        + "\n".join(lines)
        + "\n"
    )


def _tensor_options(dtype, device_type):
    return (
        f"TensorOptions(dtype={cpp_name(dtype)}, device={device_type}, layout=Strided, "
        "requires_grad=false (default), pinned_memory=false (default), memory_format=(nullopt))"
    )


def _legacy_device(device_type):
    """Where a legacy constructor creates its tensor: the CPU or the current CUDA device (starting CUDA, which
    raises PyTorch's "no GPU" / "not compiled with CUDA" errors). The default device does not apply."""
    if device_type == "cpu":
        return _C.device("cpu")
    _C._cuda_init()
    return _C.device("cuda", _C._cuda_current_device())


def _is_sequence(obj):
    """What PyTorch accepts as data: a sequence as PySequence_Check sees it (indexable, with a length);
    not an iterator, set or dict."""
    return isinstance(obj, np.ndarray) or (
        hasattr(type(obj), "__getitem__") and hasattr(type(obj), "__len__") and not isinstance(obj, dict)
    )


def _size_like(a):
    """PyTorch's is_int_or_symint: an int (not a bool), a NumPy integer, a one-element integer or bool tensor."""
    if isinstance(a, _C.Tensor):
        return a.numel() == 1 and not (a.is_floating_point() or a.is_complex())
    return isinstance(a, (builtins.int, np.integer)) and not isinstance(a, builtins.bool)


def _legacy_size_entry(a, pos):
    """One entry of the legacy constructor's varargs size, in PyTorch's words when it is none."""
    if isinstance(a, _C.Tensor) and _size_like(a):
        if a.dtype == _C.bool:
            raise RuntimeError(
                "Expected scalar.isIntegral( false) to be true, but got false.  (Could this error message be "
                "improved?  If so, please report an enhancement request to PyTorch.)"
            )
        return builtins.int(a.item())
    if isinstance(a, (builtins.int, np.integer)):
        return builtins.int(a)
    raise TypeError(
        f"new(): argument 'size' failed to unpack the object at pos {pos} with error "
        f'"type must be tuple of ints,but got {_argcheck._type_name(a)}"'
    )


def legacy_new(dtype, device_type, args, kwargs, exact_type=True, default_device=None):
    """PyTorch's legacy constructor, for FloatTensor(...) & co., Tensor(...) and t.new(...).

    () is empty; (Tensor) an alias of it (a typed constructor requires its dtype and device type);
    (int, ...) or (torch.Size) uninitialized of that size; (sequence or array) a copy converted to `dtype`.
    keyword device= must name `device_type`; without it the tensor goes to `default_device` (t.new: t's device)
    or the CPU / current GPU. `exact_type` is False for Tensor(other), which aliases any dtype."""
    from minitorch._size import Size

    unknown = [k for k in kwargs if k not in ("device", "size", "data", "other")]
    if unknown:
        raise _invalid_new_arguments(
            args, kwargs, f"some of the keywords were incorrect: {', '.join(unknown)}"
        )
    kwargs = dict(kwargs)
    device = kwargs.pop("device", None)
    if device is not None and not isinstance(device, _C.device):
        device = _C.device(device)
    if kwargs:  # size=, data= or other= name the positional argument
        if args or len(kwargs) != 1:
            raise _invalid_new_arguments(args, kwargs, "some of the keywords were incorrect")
        ((kind, value),) = kwargs.items()
        if kind == "size":
            if not isinstance(value, (tuple, list, Size)):
                raise _invalid_new_arguments(args, {kind: value}, "some of the keywords were incorrect: size")
            args = tuple(value) if len(value) else (Size(()),)
        else:
            args = (value,)
    if device is not None and device.type != device_type:
        raise RuntimeError(
            f"legacy constructor expects device type: {device_type} but device type: {device.type} was passed"
        )

    if len(args) == 1 and isinstance(args[0], _C.Tensor):
        other = args[0]
        if device is not None:
            raise RuntimeError(
                "Legacy tensor constructor of the form torch.Tensor(tensor, device=device) is not supported.  "
                "Use torch.tensor(...) or torch.as_tensor(...) instead."
            )
        if exact_type and (other.dtype != dtype or other.device.type != device_type):
            raise TypeError(
                f"expected {_tensor_options(dtype, device_type)} "
                f"(got {_tensor_options(other.dtype, other.device.type)})"
            )
        # an alias, as PyTorch's: the same storage, and a gradient flows back to `other`
        return other.view(other.shape)
    if device is None:
        device = default_device or _legacy_device(device_type)
    if not args:
        return _C.empty(0, dtype=dtype, device=device)
    if len(args) == 1 and isinstance(args[0], Size):
        return _C.empty(tuple(args[0]), dtype=dtype, device=device)

    # PyTorch's varargs size: a first argument that is an int (not a bool) or a one-element integer tensor makes
    # every argument a size, each then read as its int list reads them (a bool counts as 0/1 after the first)
    if _size_like(args[0]):
        try:
            return _C.empty(
                tuple(_legacy_size_entry(a, pos) for pos, a in enumerate(args, 1)), dtype=dtype, device=device
            )
        except (
            TypeError
        ) as e:  # a size that overflows int64: the parser's error, under the constructor's name
            if str(e).startswith("empty(): "):
                raise TypeError("new(): " + str(e)[len("empty(): ") :]) from None
            raise
    if len(args) > 1:
        marked = ", ".join(f"!{_parser_type_name(a)}!" for a in args)
        raise _invalid_new_arguments(args, {}, f"some of the arguments have invalid types: ({marked})")

    data = args[0]
    if isinstance(data, (str, bytes)):
        raise TypeError(f"new(): invalid data type '{type(data).__name__}'")
    if not _is_sequence(data):
        raise TypeError(f"new(): data must be a sequence (got {type(data).__name__})")
    return tensor(data, dtype=dtype, device=device)


def _legacy_new(*args, **kwargs):
    """What minitorch.Tensor(...) builds (the C++ constructor calls this): legacy_new with the default dtype,
    where Tensor(other) aliases a tensor of any dtype."""
    return legacy_new(_C.get_default_dtype(), _legacy_default_device_type, args, kwargs, exact_type=False)
