"""The out= keyword of the functions written in Python: PyTorch's checks, resize and copy in one place.

The C++ ops get out= from bind_out.cpp; a Python composite computes its result and hands it here with `out`.
PyTorch refuses a differentiable call with out= (for the ops it differentiates as one), an out of another dtype
(exactly for most ops, castable for some, each op with its own wording) or another device, and resizes an out
of another shape, warning when it had elements. A plain `out.copy_(result)` would cast silently instead: an
int64 out of a norm would hold a truncated value.
"""

from minitorch import _C
from minitorch._dtype_names import cpp_name, scalar_name

_EXACT = "Expected out tensor to have dtype {expected_cpp}, but got {got_cpp} instead"
_CASTABLE = "result type {expected} can't be cast to the desired output type {got}"


def _dtype_error(message, result, out):
    return RuntimeError(
        message.format(
            expected=scalar_name(result.dtype),
            got=scalar_name(out.dtype),
            expected_cpp=cpp_name(result.dtype),
            got_cpp=cpp_name(out.dtype),
        )
    )


def write_out(result, out, name=None, dtype="exact", dtype_error=None, warn_resize=True):
    """Write `result` (a tensor, or a list/tuple of them) into `out` and return `out`; `result` when out is None.

    name: the op PyTorch names in "functions with out=... arguments don't support automatic differentiation"
    (None: PyTorch differentiates the op as a composite, so out joins the graph); dtype: "exact" (out's dtype must
    equal the result's), "castable" (the result must cast to it) or None (out's dtype wins, as the factories);
    dtype_error: the op's own wording of a dtype mismatch, formatted with `expected`/`got` (ScalarType names,
    "Double") and `expected_cpp`/`got_cpp` (C++ names, "double"); warn_resize: False for the factories, which
    resize silently.
    """
    if out is None:
        return result
    if isinstance(result, (list, tuple)):
        if len(out) != len(result):
            raise RuntimeError(f"Expected {len(result)} output tensors, but got {len(out)}")
        for o, r in zip(out, result):
            write_out(r, o, name, dtype, dtype_error, warn_resize)
        return out
    if dtype == "exact" and result.dtype != out.dtype:
        raise _dtype_error(dtype_error or _EXACT, result, out)
    if dtype == "castable" and not _C.can_cast(result.dtype, out.dtype):
        raise _dtype_error(dtype_error or _CASTABLE, result, out)
    grad = _C.is_grad_enabled() and (result.requires_grad or (name is not None and out.requires_grad))
    if not grad:
        return _C._write_out(out, result, warn_resize)
    if name is not None:  # an out that requires grad too, as PyTorch's check reads every argument
        raise RuntimeError(
            f"{name}(): functions with out=... arguments don't support automatic differentiation, but one of "
            "the arguments requires grad."
        )
    _C._write_out(out, result.detach(), warn_resize)  # the checks and the resize
    return out.copy_(result)  # recorded: out joins the graph as PyTorch's composites' outs do
