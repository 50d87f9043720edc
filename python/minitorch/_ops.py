"""Re-exports the C++ ops as minitorch.<name> functions (the table lives in csrc/ops/), plus the few
that PyTorch defines with Python-level overloads."""

from minitorch import _C

_skip = {"Tensor", "dtype", "device", "OutOfMemoryError"}
__all__ = [
    n
    for n in dir(_C)
    if not n.startswith("_") and n not in _skip and not isinstance(getattr(_C, n), _C.dtype)
]
globals().update({n: getattr(_C, n) for n in __all__})


def where(condition, input=None, other=None, *, out=None):
    """where(cond, x, y) picks x where cond holds, else y; where(cond) is nonzero(cond, as_tuple=True)."""
    if input is None and other is None:
        return condition.nonzero(as_tuple=True)  # a 0-dim condition counts as one element, as PyTorch
    if out is not None:
        return _C._where(condition, input, other, out=out)
    return _C._where(condition, input, other)


__all__.append("where")
