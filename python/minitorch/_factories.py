"""torch factories written in Python: empty_strided, asarray, frombuffer and from_file (tensor and as_tensor are in
_creation)."""

import builtins
import math
import os
import warnings

import numpy as np

from minitorch import _C, _argcheck, _creation
from minitorch._dtype_names import scalar_name
from minitorch._out import write_out
from minitorch.autograd import grad_mode

__all__ = ["asarray", "empty_permuted", "empty_strided", "from_file", "frombuffer", "range"]


def _write_out(result, out):
    """out= of a factory: out's dtype wins and a resize is silent, as PyTorch's factories."""
    if out is None:
        return result
    with grad_mode.no_grad():
        return write_out(result, out, dtype=None, warn_resize=False)


def _int_tuple(fname, name, pos, value):
    """A size or stride argument as a tuple of ints, with PyTorch's TypeError for anything else."""
    if isinstance(value, (tuple, list)) and all(
        isinstance(v, int) and not isinstance(v, bool) for v in value
    ):
        return tuple(value)
    raise TypeError(
        f"{fname}(): argument '{name}' (position {pos}) must be tuple of ints, not {type(value).__name__}"
    )


def _empty_strided(fname, size, stride, dtype, layout, device, requires_grad, pin_memory):
    size, stride = _int_tuple(fname, "size", 1, size), _int_tuple(fname, "stride", 2, stride)
    if len(size) != len(stride):
        raise RuntimeError(
            f"dimensionality of sizes ({len(size)}) must match dimensionality of strides ({len(stride)})"
        )
    for s in size:
        if s < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {s}: {list(size)}")
    if any(st < 0 for st in stride):
        raise RuntimeError(
            f"Storage size calculation overflowed with sizes={list(size)} and strides={list(stride)}"
        )
    n = 0 if any(s == 0 for s in size) else 1 + sum((s - 1) * st for s, st in zip(size, stride))
    # made under no_grad: the result is a fresh tensor, not a view of the flat buffer under it
    with grad_mode.no_grad():
        r = _C.empty(n, dtype=dtype, device=device).as_strided(size, stride)
    return r.requires_grad_(True) if requires_grad else r


def empty_strided(
    size, stride, *, dtype=None, layout=None, device=None, requires_grad=False, pin_memory=False
):
    """An uninitialized tensor with the given sizes and strides, over storage just large enough for them."""
    return _empty_strided("empty_strided", size, stride, dtype, layout, device, requires_grad, pin_memory)


def empty_permuted(
    size, physical_layout, *, dtype=None, layout=None, device=None, requires_grad=False, pin_memory=False
):
    """An uninitialized tensor of shape `size` whose memory runs in the dim order physical_layout (outermost
    first): empty_permuted((2, 3, 4), (0, 2, 1)) has strides (12, 1, 3)."""
    size = _int_tuple("empty_permuted", "size", 1, size)
    order = _int_tuple("empty_permuted", "physical_layout", 2, physical_layout)
    if len(size) != len(order):
        raise RuntimeError(
            "Number of dimensions in size does not match the length of the physical_layout; i.e. len(size) = "
            f"{len(size)} is not equal to len(physical_layout) = {len(order)}"
        )
    if sorted(order) != list(builtins.range(len(size))):
        raise RuntimeError(f"physical_layout must be a permutation of the dimensions, but got {list(order)}")
    stride = [0] * len(size)
    step = 1
    for d in reversed(order):
        stride[d] = step
        step *= builtins.max(size[d], 1)
    return _empty_strided("empty_permuted", size, stride, dtype, layout, device, requires_grad, pin_memory)


def _is_numpy(obj):
    return type(obj).__module__ == "numpy" and hasattr(obj, "__array_interface__")


_UNSET = object()  # asarray's requires_grad not given: PyTorch 2.15 then follows obj's own flag
_WARNED_ASARRAY_GRAD = False


def asarray(obj, *, dtype=None, device=None, copy=None, requires_grad=_UNSET):
    """obj as a tensor: a tensor itself (or a NumPy array's memory, shared) when dtype and device allow and
    copy is not True; a copy when copy=True; copy=False where a copy is needed raises ValueError. A tensor's
    requires_grad carries over unless requires_grad is given (PyTorch 2.15's rule, with its warning)."""
    if (
        requires_grad is _UNSET
        and dtype is None
        and device is None
        and not copy
        and isinstance(obj, _C.Tensor)
    ):
        if obj.requires_grad:
            _warn_asarray_grad()
        return obj  # the common call, answered before the checks below (they cost 5x the whole call)
    given = requires_grad is not _UNSET
    if not given:
        requires_grad = isinstance(obj, _C.Tensor) and obj.requires_grad
        if requires_grad:
            _warn_asarray_grad()
    elif type(requires_grad) is not bool:  # PyTorch's parser takes no int for it
        raise TypeError(
            f"asarray(): argument 'requires_grad' must be bool, not {type(requires_grad).__name__}"
        )
    if isinstance(obj, _C.Tensor):
        src = obj
    elif _is_numpy(obj) and getattr(obj, "ndim", 0) > 0:
        src = _C.from_numpy(obj) if obj.flags.writeable and obj.dtype.isnative else _creation.tensor(obj)
    else:
        if copy is False:
            raise ValueError("can't alias arbitrary sequence into a tensor.")
        r = _creation.tensor(obj, dtype=dtype, device=device)
        return r.requires_grad_(True) if requires_grad else r
    want_dtype = dtype or src.dtype
    want_device = _C.device(device) if device is not None else src.device
    if copy is False:
        if want_dtype != src.dtype:
            raise ValueError(
                f"can't alias tensor with dtype '{scalar_name(src.dtype)}' into dtype "
                f"'{scalar_name(want_dtype)}'."
            )
        if want_device.type != src.device.type:
            raise ValueError(f"can't alias tensor on device '{src.device}' into device '{want_device}'.")
    r = src.to(dtype=want_dtype, device=want_device)
    if copy and r is src:
        r = src.clone()
    if r.requires_grad == requires_grad:
        return r
    # PyTorch sets the flag on the result itself: a leaf it returns unconverted (obj too) changes in place;
    # a graph's tensor loses its history by detaching
    if not requires_grad:
        return r.detach() if not r.is_leaf else r.requires_grad_(False)
    if not (r.is_floating_point() or r.is_complex()):
        raise RuntimeError("Only Tensors of floating point and complex dtype can require gradients")
    return r.requires_grad_(True)


def _warn_asarray_grad():
    global _WARNED_ASARRAY_GRAD
    if not _WARNED_ASARRAY_GRAD:  # PyTorch warns once per process
        _WARNED_ASARRAY_GRAD = True
        warnings.warn(
            "torch.asarray: unspecified requires_grad now defaults to obj.requires_grad instead of False. Pass "
            "requires_grad=False explicitly to get the old behavior and silence this warning.",
            UserWarning,
            stacklevel=3,
        )


_WARNED_READONLY = False


def _bytes_as(arr, dtype):
    """A uint8 NumPy array as a tensor of dtype sharing its memory (from_numpy keeps arr alive; the dtype view
    covers the dtypes NumPy lacks, bfloat16 among them)."""
    t = _C.from_numpy(arr)
    return t if dtype == _C.uint8 else t.view(dtype)


def frombuffer(buffer, *, dtype=None, count=-1, offset=0, requires_grad=False):
    """A 1-D tensor over an object's buffer (bytes, bytearray, array.array, mmap, ...), sharing its memory:
    count elements of dtype from byte offset (count -1: all that remain)."""
    if dtype is None:
        raise TypeError('frombuffer() missing 1 required positional arguments: "dtype"')
    try:
        view = memoryview(buffer)
    except TypeError:
        raise ValueError("object does not implement Python buffer protocol.") from None
    if not view.c_contiguous:
        raise RuntimeError(
            "could not retrieve a contiguous buffer from the given object (non-contiguous buffers are not supported)"
        )
    nbytes = view.nbytes
    if nbytes == 0 or count == 0:
        raise ValueError(f"both buffer length ({nbytes}) and count ({count}) must not be 0")
    if offset < 0 or offset >= nbytes:
        raise ValueError(
            f"offset ({offset} bytes) must be non-negative and no greater than buffer length ({nbytes} bytes) minus 1"
        )
    size = dtype.itemsize
    left = nbytes - offset
    if count < 0:
        if left % size:
            raise ValueError(
                f"buffer length ({left} bytes) after offset ({offset} bytes) must be a multiple of element size "
                f"({size})"
            )
        count = left // size
    elif count * size > left:
        raise ValueError(
            f"requested buffer length ({count} * {size} bytes) after offset ({offset} bytes) must not be greater "
            f"than actual buffer length ({nbytes} bytes)"
        )
    global _WARNED_READONLY
    if view.readonly and not _WARNED_READONLY:
        # PyTorch warns once per process; the tensor still writes through to the buffer
        _WARNED_READONLY = True
        warnings.warn(
            "The given buffer is not writable, and PyTorch does not support non-writable tensors. This means you can "
            "write to the underlying (supposedly non-writable) buffer using the tensor. You may want to copy the "
            "buffer to protect its data or make it writable before converting it to a tensor. This type of warning "
            "will be suppressed for the rest of this program.",
            UserWarning,
            stacklevel=2,
        )
    raw = np.frombuffer(view.cast("B"), dtype=np.uint8, count=count * size, offset=offset)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t = _bytes_as(raw, dtype)
    return t.requires_grad_() if requires_grad else t


def from_file(
    filename,
    shared=None,
    size=0,
    *,
    dtype=None,
    layout=None,
    device=None,
    pin_memory=False,
    requires_grad=False,
):
    """size elements of dtype (default: the default dtype) mapped from a file. shared=True maps it shared (writes
    reach the file, which is created or grown to fit); otherwise the tensor is a private copy-on-write map."""
    dtype = dtype or _C.get_default_dtype()
    name = os.fspath(filename)
    nbytes = size * dtype.itemsize
    if size < 0:
        raise RuntimeError(f"unable to mmap {nbytes} bytes from file <{name}>: Cannot allocate memory (12)")
    if shared:
        # PyTorch opens a shared map read-write, creating the file and growing it to the mapping's size
        with open(name, "ab"):
            pass
        if os.path.getsize(name) < nbytes:
            os.truncate(name, nbytes)
    elif not os.path.exists(name):
        raise RuntimeError(f"unable to open file <{name}> in read-only mode: No such file or directory (2)")
    have = os.path.getsize(name)
    if have < nbytes:
        raise RuntimeError(
            f"file <{name}> size <{have}> is smaller than the required mapping size <{nbytes}>"
        )
    if nbytes == 0:
        t = _C.empty(0, dtype=dtype)
    else:
        raw = np.memmap(name, dtype=np.uint8, mode="r+" if shared else "c", shape=(nbytes,))
        t = _bytes_as(raw, dtype)
    if device is not None:
        t = t.to(device)
    return t.requires_grad_() if requires_grad else t


_PLAIN_NUMBERS = (int, float)


_RANGE_ARG = object()  # a parameter not given (None is a value there: PyTorch's Scalar refuses it)


def range(
    start=_RANGE_ARG,
    end=_RANGE_ARG,
    step=1,
    *,
    out=None,
    dtype=None,
    layout=None,
    device=None,
    requires_grad=False,
):
    """Deprecated: start, start + step, ... up to and including end, in the default float dtype unless dtype is
    given (torch.arange excludes end and keeps integer arguments integral)."""
    # PyTorch's two signatures both need start and end; its parser names every required parameter from the
    # first one missing on (its words, its plural)
    if start is _RANGE_ARG or end is _RANGE_ARG:
        raise _argcheck.missing_arguments("range", ["start", "end"] if start is _RANGE_ARG else ["end"])
    warnings.warn(
        "torch.range is deprecated and will be removed in a future release because its behavior is inconsistent "
        "with Python's range builtin. Instead, use torch.arange, which produces values in [start, end).",
        UserWarning,
        stacklevel=3,  # (through _argcheck's wrapper: the caller's line)
    )
    if not (type(start) in _PLAIN_NUMBERS and type(end) in _PLAIN_NUMBERS and type(step) in _PLAIN_NUMBERS):
        for pos, (name, v) in enumerate((("start", start), ("end", end), ("step", step)), 1):
            _argcheck.check_number("range", name, pos, v)  # the parser's Number: a 0-dim tensor without grad
        start, end, step = (v.item() if isinstance(v, _C.Tensor) else v for v in (start, end, step))
    dt = dtype if dtype is not None else out.dtype if out is not None else None
    if dt is not None and (dt == _C.bool or dt.is_complex):  # ATen's dispatch, before the kernel's checks
        where = (
            out.device if out is not None else _C.device(device) if device is not None else _C.device("cpu")
        )
        raise NotImplementedError(f"\"range_{where.type}\" not implemented for '{scalar_name(dt)}'")
    if not math.isfinite(step):
        raise RuntimeError(f"step must be finite but got {step:g}")
    if step == 0:
        raise RuntimeError("step must be nonzero")
    if not (math.isfinite(start) and math.isfinite(end)):  # ATen prints the doubles as C++ streams them
        raise RuntimeError(f"unsupported range: {start:g} -> {end:g}")
    if (step > 0 and end < start) or (step < 0 and end > start):
        raise RuntimeError("upper bound and lower bound inconsistent with step sign")
    # PyTorch's count: the quotient in double, truncated, plus one (not Python's floor division, whose exact
    # quotient of range(0, 1, 0.1) is 9.99...: one value short)
    count = int((float(end) - float(start)) / float(step) + 1)
    if out is None and (dtype is None or dtype.is_floating_point):
        # one arange pass: its float loop is the same start + i * step in double, rounded once to dtype; an
        # end half a step past the last value makes its count ours (checked: huge starts can round it away)
        # and, being a float, its dtype the default one
        stop = start + (count - 0.5) * step
        if math.ceil((stop - start) / step) == count:
            if dtype is None and device is None and not requires_grad:
                return _C.arange(start, stop, step)  # keywords cost the binding more than the op here
            return _C.arange(start, stop, step, dtype=dtype, device=device, requires_grad=requires_grad)
    dtype = _C.get_default_dtype() if dtype is None else dtype
    # each value start + i * step in double (PyTorch's accumulate type), then the result dtype
    values = _C.arange(count, dtype=_C.float64, device=device) * step + start
    result = values.to(dtype).requires_grad_(requires_grad)
    return _write_out(result, out)
