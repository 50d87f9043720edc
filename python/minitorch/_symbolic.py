"""torch.sym_int, sym_float, sym_max, sym_min, sym_not, sym_sqrt, sym_ite, sym_sum: PyTorch's shape arithmetic that
stays symbolic under tracing. minitorch traces no symbolic shapes, so they meet plain numbers (and objects with
PyTorch's __sym_*__ hooks, or a __torch_function__), and compute as PyTorch's do on those."""

import builtins
import math
import sys

import numpy as np

__all__ = ["sym_float", "sym_int", "sym_ite", "sym_max", "sym_min", "sym_not", "sym_sqrt", "sym_sum"]

_ALL_TYPES = (np.integer, np.floating, int, float)  # (in the order PyTorch's message lists them)
_FLOAT_TYPES = (np.floating, float)


def _overrides():
    return sys.modules["minitorch.overrides"]  # (read at call time: the package's import order)


def sym_not(a):
    """not a (a SymBool's negation where a has __sym_not__)"""
    o = _overrides()
    if o.has_torch_function_unary(a):
        return o.handle_torch_function(sym_not, (a,), a)
    if hasattr(a, "__sym_not__"):
        return a.__sym_not__()
    return not a


def sym_float(a):
    """float(a)"""
    o = _overrides()
    if o.has_torch_function_unary(a):
        return o.handle_torch_function(sym_float, (a,), a)
    if hasattr(a, "__sym_float__"):
        return a.__sym_float__()
    return builtins.float(a)


def sym_int(a):
    """int(a), truncating"""
    o = _overrides()
    if o.has_torch_function_unary(a):
        return o.handle_torch_function(sym_int, (a,), a)
    return builtins.int(a)


def _extreme(pick, a, b):
    for v in (a, b):
        if not isinstance(v, _ALL_TYPES):
            raise AssertionError(f"expected {_ALL_TYPES}, got {type(v)}")  # noqa: TRY004 - PyTorch's type
    r = pick(a, b)
    return builtins.float(r) if isinstance(a, _FLOAT_TYPES) or isinstance(b, _FLOAT_TYPES) else r


def sym_max(a, b):
    """max(a, b), a float where either is one"""
    o = _overrides()
    if o.has_torch_function((a, b)):
        return o.handle_torch_function(sym_max, (a, b), a, b)
    return _extreme(builtins.max, a, b)


def sym_min(a, b):
    """min(a, b), a float where either is one"""
    o = _overrides()
    if o.has_torch_function((a, b)):
        return o.handle_torch_function(sym_min, (a, b), a, b)
    return _extreme(builtins.min, a, b)


def sym_sqrt(a):
    """math.sqrt(a)"""
    o = _overrides()
    if o.has_torch_function_unary(a):
        return o.handle_torch_function(sym_sqrt, (a,), a)
    if hasattr(a, "__sym_sqrt__"):
        return a.__sym_sqrt__()
    return math.sqrt(a)


def sym_ite(b, t, f):
    """t if b else f, for a bool b and t, f of one type"""
    o = _overrides()
    if o.has_torch_function((b, t, f)):
        return o.handle_torch_function(sym_ite, (b, t, f), b, t, f)
    if not isinstance(b, builtins.bool):
        raise AssertionError(f"expected SymBool or bool, got {type(b)}")  # noqa: TRY004 - PyTorch's type
    if type(t) is not type(f):
        raise AssertionError(f"type mismatch: {type(t)} vs {type(f)}")
    return t if b else f


def sym_sum(*args):
    """sum of the arguments (or of the one list or tuple given)"""
    items = args[0] if len(args) == 1 and isinstance(args[0], (list, tuple)) else args
    o = _overrides()
    if o.has_torch_function(items):
        return o.handle_torch_function(sym_sum, items, items)
    return builtins.sum(items)


# ---- value-range assertions on (here always concrete) sizes: the check is all that is left of them
_INT64 = (-(2**63), 2**63 - 1)


def _constrain(size, lo, hi):
    value = int(size.item() if hasattr(size, "item") else size)
    if not lo <= value <= hi:
        raise RuntimeError(f"Invalid value range for {value} between [{lo}, {hi}].")


def sym_constrain_range(size, *, min=None, max=None):
    """Asserts min <= size <= max (a bound left out is int64's); returns None."""
    _constrain(size, _INT64[0] if min is None else min, _INT64[1] if max is None else max)


def sym_constrain_range_for_size(size, *, min=None, max=None):
    """sym_constrain_range for a size: min defaults to 0."""
    _constrain(size, 0 if min is None else min, _INT64[1] if max is None else max)


def sym_fresh_size(expr):
    """expr as a new (unbacked, under tracing) size: its value through a tensor, as PyTorch's."""
    return sys.modules["minitorch"].tensor(expr).item()


__all__ += ["sym_constrain_range", "sym_constrain_range_for_size", "sym_fresh_size"]
