"""torch.testing.make_tensor: a random tensor of a given shape and dtype, with PyTorch's default ranges."""

import collections.abc
import math
import warnings

from minitorch import _C
from minitorch._dtype_info import finfo, iinfo
from minitorch.autograd.grad_mode import no_grad


def _dtypes(*names):
    # the dtypes this build lacks (uint32, float8, ...) are left out: make_tensor refuses them as unsupported
    return [getattr(_C, n) for n in names if hasattr(_C, n)]


_INTEGRAL = _dtypes("uint8", "int8", "int16", "int32", "int64", "uint16", "uint32", "uint64")
_FLOATING = _dtypes("float16", "bfloat16", "float32", "float64")
_COMPLEX = _dtypes("complex32", "complex64", "complex128")
_BOOL_OR_INTEGRAL = [_C.bool, *_INTEGRAL]


def _low_high(dtype, low, high, lowest, highest, default_low, default_high):
    """low and high checked, clamped into [lowest, highest] and, for integer dtypes, rounded up."""
    low = default_low if low is None else low
    high = default_high if high is None else high
    if any(isinstance(v, float) and math.isnan(v) for v in (low, high)):
        raise ValueError(f"`low` and `high` cannot be NaN, but got low={low} and high={high}")
    if low == high and dtype in _FLOATING + _COMPLEX:
        warnings.warn(
            "Passing `low==high` to `torch.testing.make_tensor` for floating or complex types is deprecated since "
            "2.1 and will be removed in 2.3. Use `torch.full(...)` instead.",
            FutureWarning,
            stacklevel=3,
        )
    elif low >= high:
        raise ValueError(f"`low` must be less than `high`, but got {low} >= {high}")
    elif high < lowest or low >= highest:
        raise ValueError(
            f"The value interval specified by `low` and `high` is [{low}, {high}), but {dtype} only supports "
            f"[{lowest}, {highest})"
        )
    low, high = min(max(low, lowest), highest), min(max(high, lowest), highest)
    if dtype in _BOOL_OR_INTEGRAL:
        return math.ceil(low), math.ceil(high)
    return low, high


def make_tensor(
    *shape,
    dtype,
    device,
    low=None,
    high=None,
    requires_grad=False,
    noncontiguous=False,
    exclude_zero=False,
    memory_format=None,
):
    """A tensor of shape filled uniformly from [low, high). Defaults: bool [0, 2), unsigned [0, 10), signed
    integers [-9, 10), floating and complex [-9, 9) (each part); a low or high outside the dtype's finite range
    is clamped to it. noncontiguous gives a strided view (when there are two or more elements); exclude_zero
    replaces zeros by 1 (integers, bool) or finfo(dtype).tiny."""
    if len(shape) == 1 and isinstance(shape[0], collections.abc.Sequence):
        shape = shape[0]
    shape = tuple(shape)
    if noncontiguous and memory_format is not None:
        raise ValueError(
            "The parameters `noncontiguous` and `memory_format` are mutually exclusive, but got "
            f"noncontiguous={noncontiguous} and memory_format={memory_format}"
        )
    if requires_grad and dtype in _BOOL_OR_INTEGRAL:
        raise ValueError(
            f"`requires_grad=True` is not supported for boolean and integral dtypes, but got dtype={dtype}"
        )
    noncontiguous = noncontiguous and math.prod(shape) > 1
    if noncontiguous:
        # every other element of a tensor twice as wide along the last dim
        shape = (*shape[:-1], 2 * shape[-1])
    if dtype == _C.bool:
        low, high = _low_high(dtype, low, high, 0, 2, 0, 2)
        result = _C.randint(low, high, shape, device=device, dtype=dtype)
    elif dtype in _INTEGRAL:
        info = iinfo(dtype)
        # randint's high is exclusive: int64's max + 1 would not fit
        top = info.max + (0 if dtype == _C.int64 else 1)
        low, high = _low_high(dtype, low, high, info.min, top, -9, 10)
        result = _C.randint(low, high, shape, device=device, dtype=dtype)
    elif dtype in _FLOATING + _COMPLEX:
        info = finfo(dtype)
        low, high = _low_high(dtype, low, high, info.min, info.max, -9, 9)
        result = _C.empty(shape, device=device, dtype=dtype)
        target = _C.view_as_real(result) if dtype in _COMPLEX else result
        with no_grad():
            if high - low >= info.max:
                # the width itself would overflow the dtype: draw half the range and double
                target.uniform_(low / 2, high / 2).mul_(2)
            else:
                target.uniform_(low, high)
    else:
        raise TypeError(
            f"The requested dtype '{dtype}' is not supported by torch.testing.make_tensor(). To request support, "
            "file an issue at: https://github.com/pytorch/pytorch/issues"
        )
    if noncontiguous:
        result = result[..., 1::2]
    elif memory_format is not None:
        result = result.clone(memory_format=memory_format)
    if exclude_zero:
        result[result == 0] = 1 if dtype in _BOOL_OR_INTEGRAL else finfo(dtype).tiny
    if dtype in _FLOATING + _COMPLEX:
        result.requires_grad = requires_grad
    return result
