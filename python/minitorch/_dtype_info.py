"""torch.finfo and torch.iinfo: the numerical properties of the floating and integer dtypes."""

import math

from minitorch import _C

__all__ = ["finfo", "iinfo"]


def _dname(dtype):
    return str(dtype).replace("torch.", "")


# bits, eps, max, tiny (smallest normal), by definition of each IEEE-style format
_FINFO = {
    "float32": (32, 2.0**-23, (2 - 2.0**-23) * 2.0**127, 2.0**-126),
    "float64": (64, 2.0**-52, (2 - 2.0**-52) * 2.0**1023, 2.0**-1022),
    "float16": (16, 2.0**-10, 65504.0, 2.0**-14),
    "bfloat16": (16, 2.0**-7, (2 - 2.0**-7) * 2.0**127, 2.0**-126),
}
_IINFO = {
    "int64": (64, -(2**63), 2**63 - 1),
    "int32": (32, -(2**31), 2**31 - 1),
    "int16": (16, -(2**15), 2**15 - 1),
    "int8": (8, -128, 127),
    "uint8": (8, 0, 255),
}


def _check_dtype_arg(cls, t):
    if not isinstance(t, _C.dtype):
        raise TypeError(f"{cls}(): argument 'type' (position 1) must be torch.dtype, not {type(t).__name__}")


class finfo:
    """Numerical properties of a floating dtype (default: the default dtype): bits, eps, max, min, tiny,
    smallest_normal, resolution and dtype, as PyTorch's torch.finfo."""

    def __init__(self, type=None):
        if type is None:
            type = _C.get_default_dtype()
        _check_dtype_arg("finfo", type)
        if type.is_complex:  # a complex dtype's properties are those of its parts
            type = type.to_real()
        name = _dname(type)
        if name not in _FINFO:
            raise TypeError(
                "torch.finfo() requires a floating point input type. Use torch.iinfo to handle 'torch.finfo'"
            )
        self.bits, self.eps, self.max, self.tiny = _FINFO[name]
        self.min = -self.max
        self.smallest_normal = self.tiny
        # PyTorch's (and NumPy's) resolution: 10 ** -(decimal digits the format carries)
        self.resolution = 10.0 ** -math.floor(-math.log10(self.eps))
        self.dtype = name

    def __eq__(self, other):
        return isinstance(other, finfo) and self.dtype == other.dtype

    def __hash__(self):
        return hash(("finfo", self.dtype))

    def __repr__(self):
        return (
            f"finfo(resolution={self.resolution:g}, min={self.min:g}, max={self.max:g}, eps={self.eps:g}, "
            f"smallest_normal={self.smallest_normal:g}, tiny={self.tiny:g}, dtype={self.dtype})"
        )

    __str__ = __repr__


class iinfo:
    """Numerical properties of an integer dtype: bits, max, min and dtype, as PyTorch's torch.iinfo."""

    def __init__(self, type):
        _check_dtype_arg("iinfo", type)
        name = _dname(type)
        if name == "bool":
            raise TypeError("torch.bool is not supported by torch.iinfo")
        if name not in _IINFO:
            raise TypeError(
                "torch.iinfo() requires an integer input type. Use torch.finfo to handle 'torch.iinfo'"
            )
        self.bits, self.min, self.max = _IINFO[name]
        self.dtype = name

    def __eq__(self, other):
        return isinstance(other, iinfo) and self.dtype == other.dtype

    def __hash__(self):
        return hash(("iinfo", self.dtype))

    def __repr__(self):
        return f"iinfo(min={float(self.min):g}, max={float(self.max):g}, dtype={self.dtype})"

    __str__ = __repr__
