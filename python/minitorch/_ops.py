"""Re-exports the C++ ops as minitorch.<name> functions (the table lives in csrc/ops/), plus the few
that PyTorch defines with Python-level overloads."""

from minitorch import _C, _argcheck

_skip = {"Tensor", "dtype", "device", "OutOfMemoryError"}
__all__ = [
    n
    for n in dir(_C)
    if not n.startswith("_") and n not in _skip and not isinstance(getattr(_C, n), _C.dtype)
]
globals().update({n: getattr(_C, n) for n in __all__})


_NOT_GIVEN = object()
_WHERE_SIGNATURES = (
    "Tensor condition",
    "Tensor condition, Tensor input, Tensor other, *, Tensor out=None",
    "Tensor condition, Scalar self, Tensor other",
    "Tensor condition, Tensor input, Scalar other",
    "Tensor condition, Scalar self, Scalar other",
)


def where(condition, input=_NOT_GIVEN, other=_NOT_GIVEN, *, out=None):
    """where(cond, x, y) picks x where cond holds, else y; where(cond) is nonzero(cond, as_tuple=True)."""
    if input is _NOT_GIVEN and other is _NOT_GIVEN and out is None:
        if type(condition) is not _C.Tensor and not isinstance(condition, _C.Tensor):
            _argcheck.check_call("where", _WHERE_SIGNATURES[:1], (condition,), {})
        return condition.nonzero(as_tuple=True)  # a 0-dim condition counts as one element, as PyTorch
    if input is _NOT_GIVEN or other is _NOT_GIVEN or input is None or other is None:
        # PyTorch's overloads take both or neither (where(c, None) is no call of nonzero's)
        given = tuple(v for v in (condition, input, other) if v is not _NOT_GIVEN)
        _argcheck.check_call("where", _WHERE_SIGNATURES, given, {} if out is None else {"out": out})
    if out is not None:
        return _C._where(condition, input, other, out=out)
    return _C._where(condition, input, other)


__all__.append("where")
