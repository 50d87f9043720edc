"""PyTorch's legacy tensor API that older scripts still use: FloatTensor & co. (and torch.cuda's), Tensor.type
with a legacy type or its name, set_default_tensor_type. The constructor itself, shared with Tensor(...) and
Tensor.new(...), is _creation.legacy_new."""

from minitorch import _C, _creation
from minitorch._switches import warn_once as _warn_once

__all__ = [
    "BFloat16Tensor",
    "BoolTensor",
    "ByteTensor",
    "CharTensor",
    "DoubleTensor",
    "FloatTensor",
    "HalfTensor",
    "IntTensor",
    "LongTensor",
    "ShortTensor",
    "set_default_tensor_type",
]

_TYPES = (
    ("DoubleTensor", _C.float64),
    ("FloatTensor", _C.float32),
    ("HalfTensor", _C.float16),
    ("BFloat16Tensor", _C.bfloat16),
    ("LongTensor", _C.int64),
    ("IntTensor", _C.int32),
    ("ShortTensor", _C.int16),
    ("CharTensor", _C.int8),
    ("ByteTensor", _C.uint8),
    ("BoolTensor", _C.bool),
)
_CLASS_NAME = {dt: name for name, dt in _TYPES}
# PyTorch names complex tensors' types but has no legacy classes for them
_CLASS_NAME.update({_C.complex64: "ComplexFloatTensor", _C.complex128: "ComplexDoubleTensor"})


class tensortype(type):
    """The metaclass of FloatTensor & co.: calling one builds a tensor of its dtype and device, and
    isinstance(t, FloatTensor) asks whether t is a float32 tensor on that device type, as in PyTorch."""

    def __instancecheck__(cls, obj):
        return (
            isinstance(obj, _C.Tensor)
            and obj.dtype == cls.dtype
            and obj.device.type == ("cuda" if cls.is_cuda else "cpu")
        )

    def __subclasscheck__(cls, sub):
        return sub is cls

    def __call__(cls, *args, **kwargs):
        if cls.is_cuda:
            _warn_once(
                "cuda constructors",
                "The torch.cuda.*DtypeTensor constructors are no longer recommended. It's best to use methods such "
                "as torch.tensor(data, dtype=*, device='cuda') to create tensors.",
            )
        return _creation.legacy_new(cls.dtype, "cuda" if cls.is_cuda else "cpu", args, kwargs)


def _make_type(name, dtype, is_cuda):
    module = "minitorch.cuda" if is_cuda else "minitorch"
    doc = f"Legacy constructor of {dtype} tensors on the {'GPU' if is_cuda else 'CPU'}; prefer minitorch.tensor."
    return tensortype(
        name,
        (),
        {
            "__module__": module,
            "__qualname__": name,
            "__doc__": doc,
            "dtype": dtype,
            "is_cuda": is_cuda,
            "is_sparse": False,
        },
    )


_CPU_TYPES = {name: _make_type(name, dt, False) for name, dt in _TYPES}
_CUDA_TYPES = {name: _make_type(name, dt, True) for name, dt in _TYPES}
DoubleTensor = _CPU_TYPES["DoubleTensor"]
FloatTensor = _CPU_TYPES["FloatTensor"]
HalfTensor = _CPU_TYPES["HalfTensor"]
BFloat16Tensor = _CPU_TYPES["BFloat16Tensor"]
LongTensor = _CPU_TYPES["LongTensor"]
IntTensor = _CPU_TYPES["IntTensor"]
ShortTensor = _CPU_TYPES["ShortTensor"]
CharTensor = _CPU_TYPES["CharTensor"]
ByteTensor = _CPU_TYPES["ByteTensor"]
BoolTensor = _CPU_TYPES["BoolTensor"]


def cuda_types():
    """{name: class} of the torch.cuda.*Tensor legacy types, for minitorch.cuda to export."""
    return dict(_CUDA_TYPES)


# ---- Tensor.type(str or class), set_default_tensor_type


def _type_from_name(name):
    """'torch.FloatTensor' / 'torch.cuda.LongTensor' (or 'minitorch....') -> the legacy class."""
    parts = name.split(".")
    if len(parts) >= 2 and parts[0] in ("torch", "minitorch"):
        table = _CUDA_TYPES if parts[1:-1] == ["cuda"] else _CPU_TYPES if len(parts) == 2 else None
        if table is not None and parts[-1] in table:
            return table[parts[-1]]
    return None


def _tensor_type(self, dtype=None, non_blocking=False, **kwargs):
    """t.type() names t's legacy type ('torch.FloatTensor'); t.type(T) converts t to T, where T is a dtype, a
    legacy type such as minitorch.DoubleTensor or its name; t itself when it already is one."""
    non_blocking = kwargs.pop("async", non_blocking)
    if kwargs:
        raise TypeError(f"type() got an unexpected keyword argument '{next(iter(kwargs))}'")
    if dtype is None:
        where = {"cuda": "cuda.", "meta": "meta."}.get(self.device.type, "")
        return f"torch.{where}{_CLASS_NAME[self.dtype]}"
    if isinstance(dtype, str):
        cls = _type_from_name(dtype)
        if cls is None:
            raise ValueError(f"invalid type: '{dtype}'")
        dtype = cls
    if isinstance(dtype, _C.dtype):
        return self if self.dtype == dtype else self.to(dtype, non_blocking=non_blocking)
    if isinstance(dtype, tensortype):
        target = "cuda" if dtype.is_cuda else "cpu"
        if self.dtype == dtype.dtype and self.device.type == target:
            return self
        if target == "cuda" and not self.is_cuda:
            return self.to(
                device=_creation._legacy_device("cuda"), dtype=dtype.dtype, non_blocking=non_blocking
            )
        if target == "cpu" and self.is_cuda:
            return self.to(device="cpu", dtype=dtype.dtype, non_blocking=non_blocking)
        return self.to(dtype.dtype, non_blocking=non_blocking)
    if isinstance(dtype, type):
        # PyTorch's class for a type object it cannot convert to
        raise ValueError(f"invalid type: '{dtype.__module__}.{dtype.__qualname__}'".replace("builtins.", ""))  # noqa: TRY004
    raise TypeError("dtype must be a type, str, or dtype object")


def set_default_tensor_type(t):
    """Deprecated: sets the default floating dtype (and, for a torch.cuda type, the default device) from a
    legacy type or its name."""
    if isinstance(t, str):
        cls = _type_from_name(t)
        if cls is None:
            module, _, attr = t.rpartition(".")
            raise AttributeError(f"module '{module or t}' has no attribute '{attr}'")
        t = cls
    _warn_once(
        "set_default_tensor_type",
        "torch.set_default_tensor_type() is deprecated as of PyTorch 2.1, please use torch.set_default_dtype() "
        "and torch.set_default_device() as alternatives.",
    )
    if not isinstance(t, tensortype):
        raise TypeError("invalid type object: only floating-point types are supported as the default type")
    if not t.dtype.is_floating_point:
        raise TypeError("only floating-point types are supported as the default type")
    if t.is_cuda:
        _creation._legacy_device("cuda")
    _C.set_default_dtype(t.dtype)
    # a torch.cuda type also moves the factories to the GPU; going back to a CPU type undoes only that
    was_cuda = _creation._legacy_default_device_type == "cuda"
    _creation._legacy_default_device_type = "cuda" if t.is_cuda else "cpu"
    if t.is_cuda:
        _C._set_default_device("cuda")
    elif was_cuda:
        _C._set_default_device("cpu")


# Tensor.type's conversions to a legacy type or its name (the C++ method takes a dtype only)
_C.Tensor.type = _tensor_type
