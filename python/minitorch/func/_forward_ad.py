"""Forward-mode AD (torch.autograd.forward_ad, re-exported there): dual tensors that carry (primal, tangent, level).

A dual tensor is a `DualTensor`, a Tensor subclass whose storage aliases its primal (so it is a tensor to
isinstance, and after its level exits it behaves as the plain primal, as PyTorch's dual tensors do) and whose
Python attributes hold the primal, the tangent and the level. While a level is active, every op on a dual
tensor comes to `dispatch`: torch functions through `__torch_function__` (a TorchFunctionMode pushed with the
outermost level, so a dual is served before a vmap BatchedTensor in the same call; the dual's own
`__torch_function__` where the mode is not on the stack), Tensor methods and operators through the methods this
class defines over every Tensor method. `dispatch` takes the innermost (highest) level among the arguments,
computes the primal result with the op on the primals, and the tangent with the op's JVP rule
(`autograd/_jvp_rules.py`) over primals and tangents; both are ordinary calls, so a primal or tangent that is itself a
dual of an outer level (forward-over-forward, func.jvp nested) or a BatchedTensor (jacfwd's batched tangents)
dispatches again, and a primal that requires grad records the reverse-mode graph of both (forward-over-reverse:
Hessian-vector products). An op without a rule gets the generic JVP, J t by the double-vjp trick through the
reverse-mode engine, after a one-time warning naming it: slower, never silently wrong.
"""

import contextlib
import math
import re
import sys
import threading
import warnings
from typing import Any, NamedTuple

from minitorch import _C
from minitorch.func._batched import STATE as _VMAP_STATE
from minitorch.func._batched import call_plain, check_requires_grad_call, namespace_attr
from minitorch.overrides import (
    TorchFunctionMode,
    _mode_stack,
    enable_torch_function_dispatch,
)

__all__ = [
    "UnpackedDualTensor",
    "dual_level",
    "enter_dual_level",
    "exit_dual_level",
    "make_dual",
    "unpack_dual",
]


# ------------------------------------------------------------------------------------------------ levels


class _State(threading.local):
    def __init__(self):
        self.levels = []  # active levels, outermost first
        self.entries = []  # per level: (the dispatch extent it entered, the mode it pushed or None)
        self.wrapping = (
            False  # a DualTensor being built around a dual primal (its alias reads the dual as such)
        )
        # per level: dual gradients stored in .grad, kept alive while the level lives (the binding hands back the
        # Python object only while it exists; a new wrapper would be a plain tensor)
        self.kept = {}
        # per level: weak references to the plain tensors an in-place op made dual (_become_dual), made plain again
        # when the level exits
        self.converted = {}
        self.user = set()  # the levels entered by enter_dual_level (not by a transform)
        self.functorch = set()  # the levels of func.jvp and jacfwd (their duals are functorch's wrappers)
        self.passes = []  # the dual backward passes running (_Pass), innermost last
        self.rerun = 0  # inside _second_order's re-run of an op: nothing to record


STATE = _State()


class _DualMode(TorchFunctionMode):
    """Serves torch functions holding a dual tensor before any other handler (vmap's BatchedTensor included)."""

    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        if not _has_dual(args, kwargs):
            return func(*args, **kwargs)
        # the mode stays on the stack while the dual is served, so calls inside (rules) find it first again
        stack = _mode_stack()
        stack.append(self)
        try:
            return dispatch(_key_of(func), args, kwargs)
        finally:
            stack.pop()


def _push_level():
    level = STATE.levels[-1] + 1 if STATE.levels else 0
    extent = enable_torch_function_dispatch()
    extent.__enter__()
    mode = None
    if not STATE.levels:
        mode = _DualMode()
        _mode_stack().append(mode)
    STATE.levels.append(level)
    STATE.entries.append((extent, mode))
    return level


def _pop_level():
    STATE.kept.pop(STATE.levels[-1], None)
    STATE.user.discard(STATE.levels[-1])
    STATE.functorch.discard(STATE.levels[-1])
    for ref in STATE.converted.pop(STATE.levels[-1], ()):
        x = ref()
        if type(x) is DualTensor:
            _become_plain(x)
    STATE.levels.pop()
    if not STATE.levels:
        _C._fwad_clear_records()
    extent, mode = STATE.entries.pop()
    if mode is not None:
        stack = _mode_stack()
        if mode in stack:
            stack.remove(mode)
    extent.__exit__(None, None, None)


def _current_level():
    return STATE.levels[-1] if STATE.levels else -1


def enter_dual_level():
    """Enters a new forward grad level and returns it; make_dual/unpack_dual use it by default. Only one level
    may be active (PyTorch's rule); torch.func.jvp nests levels of its own for higher-order forward gradients."""
    if STATE.levels:
        raise RuntimeError("Nested forward mode AD is not supported at the moment")
    level = _push_level()
    STATE.user.add(level)
    return level


def exit_dual_level(*, level=None):
    """Exits the last entered forward grad level: the tangents of its dual tensors are gone."""
    if level is None:
        level = _current_level()
    if level < 0:
        raise RuntimeError("Dual level must be a positive number.")
    if not STATE.levels or STATE.levels[-1] != level:
        raise RuntimeError(
            "Trying to exit a forward AD level that was not the last one that was created. This is not supported."
        )
    _pop_level()


class dual_level(contextlib.ContextDecorator):
    """Context manager (or decorator) in which forward AD runs: enters a level on entry, exits it on exit."""

    def __enter__(self):
        return enter_dual_level()

    def __exit__(self, exc_type, exc, tb):
        exit_dual_level()
        return False


@contextlib.contextmanager
def _nested_level(functorch=False):
    """A level for torch.func's transforms, which may nest (jvp of jvp). A functorch transform (func.jvp, jacfwd
    and what builds on them) refuses to run inside a dual_level the user entered, as PyTorch's (its levels and
    the autograd API's are one stack there); autograd.functional's, which PyTorch computes without forward AD,
    does not."""
    if functorch and STATE.user:
        raise RuntimeError("Nested forward mode AD is not supported at the moment")
    level = _push_level()
    if functorch:
        STATE.functorch.add(level)
    try:
        yield level
    finally:
        if STATE.levels and STATE.levels[-1] == level:
            _pop_level()


# ------------------------------------------------------------------------------------------------ dual tensors


class UnpackedDualTensor(NamedTuple):
    """What unpack_dual returns: the primal (a tensor) and the tangent (None when the tensor has none)."""

    primal: Any
    tangent: Any


def _is_active(level):
    return level in STATE.levels


def _plain_tensor(x):
    """The innermost ordinary tensor behind x (a DualTensor's primal, a BatchedTensor's value)."""
    while True:
        t = type(x)
        if t is DualTensor:
            x = x._primal
        elif t.__name__ == "BatchedTensor":
            x = x._value
        else:
            return x


def _make(primal, tangent, level):
    plain = _plain_tensor(primal)
    if primal is plain and primal.requires_grad:
        # a view keeps the primal's autograd history: an escaped dual used as a tensor still backpropagates
        d = DualTensor(_view_of=primal)
    elif type(primal) is DualTensor or primal is plain:
        STATE.wrapping = True
        try:
            d = DualTensor(primal) if primal.requires_grad else DualTensor(_alias_of=primal)
        finally:
            STATE.wrapping = False
    else:
        d = DualTensor(_alias_of=plain)
    d._primal = primal
    d._tangent = tangent
    d._level = level
    return d


def make_dual(tensor, tangent, *, level=None):
    """A dual tensor: `tensor`'s value (aliased) with `tangent` attached at `level` (the current one by
    default). Both must be floating point or complex and of the same size; their dtypes may differ (a real tangent
    on a complex primal is a direction along the real axis, as PyTorch allows)."""
    if level is None:
        level = _current_level()
    if level < 0:
        raise RuntimeError(
            "Trying to create a dual Tensor for forward AD but no level exists, make sure to enter_dual_level() "
            "first."
        )
    # PyTorch's checks, in its order (a non-tensor fails on is_floating_point with Python's AttributeError)
    if not (tensor.is_floating_point() or tensor.is_complex()):
        raise ValueError(f"Expected primal to be floating point or complex, but got: {tensor.dtype}")
    if not (tangent.is_floating_point() or tangent.is_complex()):
        raise ValueError(f"Expected tangent to be floating point or complex, but got: {tangent.dtype}")
    if not STATE.levels:
        raise RuntimeError(
            "Trying to access a forward AD level with an invalid index. This index was either not created or is "
            "already deleted."
        )
    if not _is_active(level):
        raise RuntimeError("Invalid level given to _make_dual")
    _refuse_batched("_make_dual", tensor, tangent)
    if type(tensor) is DualTensor and tensor._level == level:
        raise RuntimeError(
            "Making a dual Tensor based on a Tensor that already has a forward gradient at the same level "
            f"{level} is not supported."
        )
    if tuple(tensor.shape) != tuple(tangent.shape):
        raise RuntimeError(
            "Trying to set a forward gradient that has a different size than that of the original Tensor, this "
            f"is not supported. Tensor is of size {list(tensor.shape)} while the given forward gradient is of size "
            f"{list(tangent.shape)}."
        )
    if (
        type(tangent) is _C.Tensor
        and type(tensor) is _C.Tensor
        and tangent.stride() != tensor.stride()
        and not _overlapping(tensor)
    ):
        # the tangent in the primal's layout (PyTorch copies a tangent whose metadata differs): its views then
        # match the primal's, and an in-place op can write it in place (_store_tangent)
        tangent = tangent.new_empty_strided(tuple(tensor.shape), tensor.stride()).copy_(tangent)
    if isinstance(tensor, _C.Tensor) and type(tensor) is not DualTensor:
        # PyTorch's dual is a view of the primal: a non-leaf (ViewBackward0) when the primal requires grad, so
        # gradients reach the primal through it and the dual's own .grad, requires_grad_ and in-place checks are
        # a view's, not the primal's
        tensor = tensor.view_as(tensor)
    return _make(tensor, tangent, level)


def unpack_dual(tensor, *, level=None):
    """(primal, tangent) of a dual tensor at `level` (the current one by default); tangent is None for a tensor
    without one at that level, and outside any level."""
    if level is None:
        level = _current_level()
    if level < 0:
        return UnpackedDualTensor(tensor, None)
    if not (_C._is_tensor(tensor) or type(tensor).__name__ == "BatchedTensor"):
        raise TypeError(
            f"_unpack_dual(): argument 'dual' (position 1) must be Tensor, not {type(tensor).__name__}"
        )
    if type(tensor) is DualTensor and not _is_active(level) and _is_active(_strip_dead(tensor)._level):
        raise RuntimeError("Invalid level given to _fw_primal")
    _refuse_batched("_unpack_dual", tensor)
    primal, tangent = _split(tensor, level)
    return UnpackedDualTensor(primal, tangent)


def _refuse_batched(op, *tensors):
    """make_dual/unpack_dual of a tensor vmap batches: PyTorch has no batching rule for them (its transforms make
    their duals below vmap's layer, as ours call _make) and refuses in these words."""
    if not _VMAP_STATE.levels:
        return
    live = {lv.id for lv in _VMAP_STATE.levels}
    for x in tensors:
        while True:
            if type(x) is DualTensor:
                x = x._primal
            elif type(x).__name__ == "BatchedTensor":
                if x._level in live:
                    raise RuntimeError(
                        f"Batching rule not implemented for aten::{op}; the fallback path doesn't work on out= or "
                        "view ops."
                    )
                x = x._value
            else:
                break


def _split(x, level):
    """(primal, tangent) of x at `level`: a dual of a dead level counts as its primal; a dual of an outer level
    has no tangent here."""
    while type(x) is DualTensor and not _is_active(x._level):
        x = x._primal
    if type(x) is DualTensor and x._level == level:
        return x._primal, x._tangent
    return x, None


def _strip_dead(x):
    while type(x) is DualTensor and not _is_active(x._level):
        x = x._primal
    return x


# ------------------------------------------------------------------------------------------------ dispatch


def _key_of(func):
    from minitorch.func._batched import key_of
    from minitorch.overrides import is_tensor_method

    name = is_tensor_method(func)
    if name is not None:
        return "Tensor." + name
    return key_of(func)


def _public(key):
    """The callable of a key, looked up at call time so that it is the dispatching wrapper while one is on."""
    return namespace_attr(key)


def _public_checked(key):
    fn = _public(key)
    if fn is None:
        raise RuntimeError(f"forward AD: cannot call {key}")
    return fn


def _call(key, args, kwargs):
    """Runs op `key` on the given (un-dualed at this level) arguments through the public spellings."""
    return call_plain(key, args, kwargs, _public_checked)


def _dispatching(func):
    """func itself, or, for a torch function bound before the dispatch was on (``jvp(torch.sin, ...)``), its
    dispatching spelling: the builtin would read a dual tensor as its primal and drop the tangent."""
    from minitorch.overrides import resolve_name

    if resolve_name(func) is None:
        return func
    key = _key_of(func)

    def call(*args, **kwargs):
        # looked up per call: the dispatching wrapper exists only while a level holds the dispatch on (a lookup
        # made before the level gave the builtin back, and jacfwd(torch.sin) computed zeros)
        try:
            fn = _public(key) or func
        except (AttributeError, KeyError, ImportError):
            fn = func
        return fn(*args, **kwargs)

    call.__name__ = getattr(func, "__name__", "call")
    call.__wrapped__ = func
    return call


def _has_dual(args, kwargs):
    for a in args:
        t = type(a)
        if t is DualTensor:
            return True
        if (t is list or t is tuple) and any(type(b) is DualTensor for b in a):
            return True
    if kwargs:
        return _has_dual(tuple(kwargs.values()), None)
    return False


def _max_level(args, kwargs):
    lv = -1
    for a in list(args) + list(kwargs.values()):
        t = type(a)
        if t is DualTensor:
            a = _strip_dead(a)
            if type(a) is DualTensor and a._level > lv:
                lv = a._level
        elif t is list or t is tuple:
            for b in a:
                if type(b) is DualTensor:
                    b = _strip_dead(b)
                    if type(b) is DualTensor and b._level > lv:
                        lv = b._level
    return lv


def _rule_tangent(p, tan):
    """The tangent a rule sees for primal p: a real tangent of a complex primal (make_dual keeps it as given, as
    PyTorch's) in the primal's dtype, so that ops needing equal dtypes (dot, mm) take it."""
    if tan is not None and tan.dtype != p.dtype and not tan.is_complex() and p.is_complex():
        return tan.to(p.dtype)
    return tan


def _unwrap(x, level, tangents, where):
    """x with the duals of `level` replaced by their primals (dead levels stripped); their tangents go to
    tangents[where] (a list of them for a list argument)."""
    t = type(x)
    if t is DualTensor:
        p, tan = _split(x, level)
        if tan is not None:
            tangents[where] = _rule_tangent(p, tan)
        return p
    if t is list or t is tuple:
        out, tans, any_t = [], [], False
        for y in x:
            p, tan = _split(y, level) if type(y) is DualTensor else (y, None)
            tan = _rule_tangent(p, tan)
            out.append(p)
            tans.append(tan)
            any_t = any_t or tan is not None
        if any_t:
            tangents[where] = tans
        return t(out)
    return x


# Operators as the op (rule key) they run, with reflected ones swapping their operands.
_OPERATOR_OPS = {
    "__add__": "add", "__radd__": "add", "__iadd__": "add", "__sub__": "sub", "__rsub__": "sub",
    "__isub__": "sub", "__mul__": "mul", "__rmul__": "mul", "__imul__": "mul", "__truediv__": "div",
    "__rtruediv__": "div", "__itruediv__": "div", "__floordiv__": "floor_divide",
    "__rfloordiv__": "floor_divide", "__ifloordiv__": "floor_divide", "__mod__": "remainder",
    "__rmod__": "remainder", "__imod__": "remainder", "__pow__": "pow", "__rpow__": "pow", "__ipow__": "pow",
    "__matmul__": "matmul", "__rmatmul__": "matmul", "__neg__": "neg", "__pos__": "positive", "__abs__": "abs",
    "__getitem__": "Tensor.__getitem__", "__eq__": "eq", "__ne__": "ne", "__lt__": "lt", "__le__": "le",
    "__gt__": "gt", "__ge__": "ge", "__and__": "bitwise_and", "__rand__": "bitwise_and",
    "__iand__": "bitwise_and", "__or__": "bitwise_or", "__ror__": "bitwise_or", "__ior__": "bitwise_or",
    "__xor__": "bitwise_xor", "__rxor__": "bitwise_xor", "__ixor__": "bitwise_xor", "__invert__": "bitwise_not",
    "__lshift__": "bitwise_left_shift", "__rlshift__": "bitwise_left_shift",
    "__rshift__": "bitwise_right_shift", "__rrshift__": "bitwise_right_shift",
}  # fmt: skip


_SELF_SECOND = []  # [the schema's methods whose self is the op's second argument], filled on first use


def _self_second():
    """The methods ops.schema declares with self second (where(condition, self, other): Tensor.where(condition,
    other); polygamma(n, self)): the rule of the op binds a method call's first two arguments swapped."""
    if not _SELF_SECOND:
        names = set()
        for row in _C._op_schema():
            params = row[3].partition("(")[2].partition(")")[0].split(",")
            method = row[0] == "func" and "method" in row[4].split() and len(params) > 1
            if method and params[1].split()[-1] == "self" and params[0].split()[-1] != "self":
                names.add(row[1])
        _SELF_SECOND.append(frozenset(names))
    return _SELF_SECOND[0]


def _rule_key(key):
    """(rule key, operands swapped, in place) for a dispatch key."""
    if key.startswith("Tensor."):
        name = key[7:]
        if name in _OPERATOR_OPS:
            return _OPERATOR_OPS[name], name.startswith("__r"), name.startswith("__i")
        inplace = name.endswith("_") and not name.endswith("__")
        base = name[:-1] if inplace else name
        from minitorch.autograd._jvp_rules import JVP_RULES

        if "Tensor." + base in JVP_RULES:
            return "Tensor." + base, False, inplace
        return base, base in _self_second(), inplace
    ns, _, name = key.rpartition(".")
    if name.endswith("_") and not name.endswith("__") and not ns:
        return name[:-1], False, True
    return key, False, False


def dispatch(key, args, kwargs=None):
    """Runs op `key` on arguments that may hold dual tensors (see the module docstring)."""
    kwargs = kwargs or {}
    level = _max_level(args, kwargs)
    if level < 0:
        args = tuple(_unwrap(a, -1, {}, None) for a in args)
        kwargs = {k: _unwrap(v, -1, {}, None) for k, v in kwargs.items()}
        return _call(key, args, kwargs)
    if "out" in kwargs and kwargs["out"] is not None:
        raise NotImplementedError(
            f"Trying to use forward AD with {key.rpartition('.')[2]}_out that does not support it because it is an "
            "out= function"
        )
    tangents = {}
    pargs = tuple(_unwrap(a, level, tangents, i) for i, a in enumerate(args))
    pkwargs = {k: _unwrap(v, level, tangents, k) for k, v in kwargs.items()}
    rkey, swapped, inplace = _rule_key(key)
    if _C.is_inference_mode_enabled():
        # inference mode turns forward AD off, as PyTorch's: the op runs on the primals, its result has no tangent
        res = _call(key, pargs, pkwargs)
        return args[0] if inplace and res is pargs[0] else res
    if inplace or key == "Tensor.__setitem__":
        return _inplace(key, args, kwargs, pargs, pkwargs, tangents, level)
    if not tangents:
        return _call(key, pargs, pkwargs)
    from minitorch.autograd import _jvp_rules

    rule = _jvp_rules.get_rule(rkey)
    if rule is not None and rule.composite:
        from minitorch.func._batched import _original

        try:
            return call_plain(key, args, kwargs, _original)  # the composite's own ops dispatch the duals
        except RuntimeError as e:
            if "bound before the dual level was entered" not in str(e):
                raise
            # a path of the composite calling a _C builtin directly (it refused the dual): the generic JVP
            return _generic(key, pargs, pkwargs, tangents, level, warn=rkey)
    if rule is None or rule.generic:
        out = _generic(key, pargs, pkwargs, tangents, level, warn=rkey if rule is None else None)
        if not STATE.rerun and _C.is_grad_enabled():
            _record(key, pargs, pkwargs, tangents, level, out)
        return out
    primal = rule.primal_result(pargs, pkwargs) if rule.primal is not None and not swapped else None
    result, aux = primal if primal is not None else (_call(key, pargs, pkwargs), None)
    if rule.none:
        return result
    rargs, rkwargs, rtangents = pargs, pkwargs, tangents
    if swapped and len(pargs) > 1:
        rargs = (pargs[1], pargs[0]) + pargs[2:]
        rtangents = {(1 - k if k in (0, 1) else k): v for k, v in tangents.items()}
    elif swapped:  # a self-second method given its other arguments by keyword (x.where(condition=c, other=y))
        second = rule.names[1]
        rargs, rkwargs = (), {**pkwargs, second: pargs[0]}
        rtangents = {(second if k == 0 else k): v for k, v in tangents.items()}
    tan = rule.apply(rargs, rkwargs, rtangents, result, key, aux)
    if tan is _jvp_rules.GENERIC:
        out = _generic(key, pargs, pkwargs, tangents, level)
    else:
        out = _attach(result, _dealias(result, tan, pargs, pkwargs, tangents), level, (args, kwargs))
    if not STATE.rerun and _C.is_grad_enabled():
        _record(key, pargs, pkwargs, tangents, level, out)
    return out


def _shares_storage(t, tree):
    """Whether plain tensor t shares storage with a plain tensor of an argument (a list argument's members too)."""
    if type(tree) is _C.Tensor:
        return t._is_view_of(tree)
    if type(tree) is list or type(tree) is tuple:
        return any(type(u) is _C.Tensor and t._is_view_of(u) for u in tree)
    return False


def _dealias(result, tan, pargs, pkwargs, tangents):
    """The tangent(s) of a result that is not a view of an input, cloned where a rule handed back (a view of) an
    input's tangent (add with one dual operand, contiguous, to): an in-place op writes tangents in place
    (_store_tangent), which must not reach the input's. A view's tangent stays a view of its base's. Runs on every
    op, so written for speed: a fresh tangent costs one storage comparison per input tangent."""
    if type(tan) is _C.Tensor:
        if type(result) is not _C.Tensor:
            return tan
        for u in tangents.values():
            if _shares_storage(tan, u):
                break
        else:
            return tan
        for a in pargs:
            if _shares_storage(result, a):
                return tan
        for a in pkwargs.values():
            if _shares_storage(result, a):
                return tan
        return tan.clone()
    if isinstance(result, (tuple, list)) and isinstance(tan, (tuple, list)):
        return type(tan)(_dealias(r, t, pargs, pkwargs, tangents) for r, t in zip(result, tan))
    return tan


def _overlapping(t):
    """Whether t's elements share memory (an expanded dim): it cannot be written in place."""
    return any(st == 0 and sz > 1 for st, sz in zip(t.stride(), t.shape))


def _store_tangent(d, new_t):
    """Sets a dual's tangent after an in-place op: written into its tangent in place where that is a plain tensor
    that can hold it, so that the tangents of d's views (views of its tangent) and of its base follow, as
    PyTorch's; else the new tangent replaces it."""
    old = d._tangent
    if (
        type(old) is _C.Tensor
        and _C._is_tensor(new_t)
        and type(new_t) is not DualTensor
        and type(new_t).__name__ != "BatchedTensor"
        and tuple(old.shape) == tuple(new_t.shape)
        and not (old.requires_grad and old.is_leaf)
        and not _overlapping(old)
        and (old.is_complex() or not new_t.is_complex())
    ):
        if new_t is not old:
            old.copy_(new_t)
        return
    d._tangent = new_t


def _outplace_key(key):
    if key.startswith("Tensor."):
        name = key[7:]
        if name.startswith("__i"):
            return "Tensor.__" + name[3:]
        return "Tensor." + name[:-1]
    ns, _, name = key.rpartition(".")
    return (ns + "." if ns else "") + name[:-1]


def _inplace(key, args, kwargs, pargs, pkwargs, tangents, level):
    """An in-place op: the primal is updated in place (PyTorch's in-place checks apply), the tangent is the
    out-of-place op's."""
    self = args[0] if args else None
    views = None  # a fresh tangent's plain views to make dual (see _become_dual_for_write)
    if type(self) is not DualTensor or _strip_dead(self)._level != level:
        if not tangents or not _C._is_tensor(self):
            return _call(key, pargs, pkwargs)
        if not _differentiable(self) or (self.requires_grad and self.is_leaf and _C.is_grad_enabled()):
            # PyTorch's own refusal (an integer result, a leaf that requires grad), or a result without tangent
            res = _call(key, pargs, pkwargs)
            return self if res is pargs[0] else res
        if not _can_become_dual(self):
            raise RuntimeError(
                f"forward AD: the in-place {key} would write a dual tensor into a {type(self).__name__} without a "
                "tangent at this level, which cannot become dual here; use the out-of-place op instead."
            )
        # a plain tensor written with a dual becomes dual, its tangent zeros but for the written part (PyTorch's)
        views = _become_dual_for_write(self, level)
        pargs = (self._primal, *pargs[1:])
    name = key.rpartition(".")[2]
    shape = tuple(self.shape)
    if name == "copy_":
        src_t = tangents.get(1, tangents.get("src"))
        new_t = _C.zeros(shape, dtype=self.dtype) if src_t is None else src_t.expand(shape).clone()
    elif name in _FILLS or name == "__setitem__":
        new_t = None
        if name == "fill_" and tangents.get(1) is not None:
            new_t = tangents[1].expand(shape).clone()
        elif name == "__setitem__":
            new_t = _rule_tangent(self._primal, self._tangent).clone()
            val_t = tangents.get(2)
            new_t[pargs[1]] = 0.0 if val_t is None else val_t
    else:
        STATE.rerun += 1  # the out-of-place op's node is not in the graph: its record would go unused
        try:
            res = dispatch(_outplace_key(key), args, kwargs)
        finally:
            STATE.rerun -= 1
        new_t = _split(res, level)[1] if type(res) is DualTensor else None
        if new_t is not None:
            new_t = _fit(new_t, _split(res, level)[0])
    record = (
        not STATE.rerun
        and type(new_t) is _C.Tensor
        and new_t.requires_grad
        and _C.is_grad_enabled()
        and type(pargs[0]) is _C.Tensor
        and pargs[0].requires_grad
    )
    if record:  # what the re-run needs of self before the write: its value and tangent
        old_self = (pargs[0].detach().clone(), tangents[0].clone() if tangents.get(0) is not None else None)
    _call(key, pargs, pkwargs)  # the primal, in place
    if record:
        _record_inplace(_outplace_key(key), old_self, pargs, pkwargs, tangents, level)
    if new_t is None:
        new_t = _zeros_like(self._primal)
    if views is not None:
        # a tangent of its own: the op's, in the dtype its rule gave (PyTorch's f64.copy_(f32 dual) has an f32 one)
        new_t = new_t if tuple(new_t.shape) == shape else new_t.expand(shape).clone()
        self._tangent = _views_dual(views, self._primal, new_t, level)
        return None if name == "__setitem__" else self
    if _differentiable(new_t):
        # written into the tangent the tensor has, so in that tangent's dtype (which make_dual lets differ)
        new_t = _tangent_as(new_t, self._tangent if _C._is_tensor(self._tangent) else self)
    _store_tangent(self, new_t)
    return None if name == "__setitem__" else self


def _can_become_dual(x):
    """Whether the plain tensor x (a Tensor, not a Parameter or another subclass, whose class would change) can
    be made dual in place."""
    return type(x) is _C.Tensor or (type(x) is DualTensor and not _is_active(x._level))


def _become_dual(x, tangent, level):
    """Makes the plain tensor x a dual of `level` in place (its class becomes DualTensor, whose layout is
    Tensor's): its primal is an alias of itself (a view, so that in-place ops on it reach x's autograd history),
    and it turns plain again when the level exits."""
    import weakref

    if type(x) is DualTensor:  # a dual of a finished level: its primal is the plain value
        primal = _strip_dead(x)
    else:
        primal = x.view_as(x)
        x.__class__ = DualTensor
        STATE.converted.setdefault(level, []).append(weakref.ref(x))
    x._primal, x._tangent, x._level = primal, tangent, level


def _become_plain(x):
    """Undoes _become_dual when its level exits: x is a plain tensor again, as PyTorch's."""
    x.__class__ = _C.Tensor
    for attr in ("_primal", "_tangent", "_level"):
        x.__dict__.pop(attr, None)


def _become_dual_for_write(x, level):
    """Makes x dual before an in-place op writes a dual into it. A view of a tensor (its base) makes the base dual
    too, with zeros, and x's tangent is the matching view of the base's (PyTorch's rule: a view's tangent is a view
    of its base's), so the write reaches the base; the base's other views taken before become dual with it
    (_views_dual); returns None then. Else x gets a fresh tangent the op sets, and the views of x to make dual with
    that tangent are returned (a list, empty for a view whose base stays plain)."""
    base = x._base if type(x) is _C.Tensor else None
    if base is not None and _differentiable(base):
        bt = None
        if type(base) is DualTensor and base._level == level and type(base._tangent) is _C.Tensor:
            bt = base._tangent
        elif _can_become_dual(base) and not (base.requires_grad and base.is_leaf):
            bp = _strip_dead(base)
            views = _C._live_views(base)
            bt = bp.new_empty_strided(tuple(bp.shape), bp.stride()).zero_()
            _become_dual(base, bt, level)
            _views_dual(views, bp, bt, level)  # x among them
        if type(x) is DualTensor:
            return None
        if bt is not None and bt.stride() == _strip_dead(base).stride() and not _overlapping(bt):
            _become_dual(x, _C._replay_view_on(x, bt), level)
            return None
    views = _C._live_views(x) if base is None else []
    _become_dual(x, _C.zeros_like(x), level)
    return views


def _views_dual(views, primal, tangent, level):
    """Makes the plain views of a tensor that just became dual (its live tracked views, _C._live_views: taken
    before, so their ops do not reach the dispatch) dual with the matching views of its tangent, as PyTorch's views
    read their tangent from their base's. `primal`: the base's value, whose layout the views' replay assumes; the
    tangent is laid out as it where there are views. Returns the tangent."""
    if not views or type(tangent) is not _C.Tensor or _overlapping(primal):
        return tangent
    if tangent.stride() != primal.stride():
        tangent = tangent.new_empty_strided(tuple(primal.shape), primal.stride()).copy_(tangent)
    for v in views:
        if _can_become_dual(v) and _differentiable(v):
            _become_dual(v, _C._replay_view_on(v, tangent), level)
    return tangent


def _public_or_method(key):
    try:
        return _public(key) is not None
    except (AttributeError, KeyError):
        return False


def _differentiable(x):
    """Whether x's dtype can carry a tangent (floating point or complex, as PyTorch's forward AD)."""
    try:
        return x.is_floating_point() or x.is_complex()
    except AttributeError:
        return False


def _tangent_as(tan, like):
    """tan in like's dtype, except that a complex tangent of a real value stays complex, as PyTorch's (the cast
    would drop its imaginary part; a complex tangent on a real primal gives such results)."""
    if tan.dtype == like.dtype or (tan.is_complex() and not like.is_complex()):
        return tan
    return tan.to(like.dtype)


def _fit(tan, result, inputs=None):
    """The tangent shaped and typed as the result it belongs to (terms may broadcast lower-rank tangents). Where
    an input's tangent has another dtype than its primal (make_dual allows a float64 tangent on a float32 primal),
    the rule's dtype stays, as PyTorch's formulas keep it (sin of a float32 primal with a float64 tangent has a
    float64 tangent); `inputs` (the op's args and kwargs, duals included) tells."""
    if tan is None or result is None:
        return None
    if tuple(tan.shape) != tuple(result.shape):
        tan = tan.expand(tuple(result.shape))
    if tan.dtype == result.dtype or (inputs is not None and _mixed_tangents(inputs)):
        return tan
    return _tangent_as(tan, result)


def _mixed_tangents(inputs):
    """Whether a dual argument of this level has a tangent whose dtype differs from its primal's."""
    args, kwargs = inputs
    for a in (*args, *kwargs.values()):
        for x in a if type(a) is list or type(a) is tuple else (a,):
            if type(x) is DualTensor:
                x = _strip_dead(x)
                if type(x) is DualTensor and _is_active(x._level) and x._tangent.dtype != x._primal.dtype:
                    return True
    return False


def _attach(result, tan, level, inputs=None):
    """The result(s) made dual with their tangents; non-floating results (indices, masks) get none. `inputs`:
    see _fit."""
    if _C._is_tensor(result) or type(result).__name__ == "BatchedTensor":
        if not _differentiable(result):
            return result
        if tan is None:
            tan = _zeros_like(result)
        return _make(result, _fit(tan, result, inputs), level)
    if isinstance(result, (tuple, list)):
        tans = tan if isinstance(tan, (tuple, list)) else (tan,) * len(result)
        parts = [_attach(r, t, level, inputs) if _is_tensorish(r) else r for r, t in zip(result, tans)]
        t = type(result)
        if t is tuple or t is list:
            return t(parts)
        return t(parts)  # a return_types structseq
    return result


def _zeros_like(x):
    if type(x).__name__ == "BatchedTensor":
        return _public("zeros_like")(x)
    return _C.zeros_like(_plain_tensor(x)) if type(x) is not DualTensor else _public("zeros_like")(x)


def _is_tensorish(x):
    return _C._is_tensor(x) or type(x).__name__ == "BatchedTensor"


_warned = set()


def _warn_generic(rkey):
    if rkey not in _warned:
        _warned.add(rkey)
        warnings.warn(
            f"forward AD: {rkey} has no JVP rule; its Jacobian-vector product is computed by the double-vjp "
            "trick through reverse mode (correct, but slower). Add a rule to minitorch/autograd/_jvp_rules.py.",
            UserWarning,
            stacklevel=4,
        )


def _generic(key, pargs, pkwargs, tangents, level, warn=None):
    """J t by the double-vjp trick: with u a dummy cotangent, g(u) = J^T u is linear in u and the gradient of
    <g(u), t> with respect to u is J t. The primal result comes from the same run, so random ops (dropout) get
    the tangent of the mask they drew. Complex primals and outputs too: reverse mode's conjugate Wirtinger
    convention (PyTorch's) makes g(u) = conj(A)^T u + B^T conj(u), for J t = A t + B conj(t), which is the adjoint
    of J under the real inner product Re(a^H b); g is real-linear in u and its own vjp is the adjoint's adjoint,
    J t (tests/autograd/test_forward_ad_complex.py checks it against finite differences)."""
    from minitorch.autograd.engine import grad as _grad
    from minitorch.autograd.grad_mode import enable_grad

    # the differentiated inputs: (where, position in a list or None, primal, tangent)
    slots = []
    for where, tan in tangents.items():
        src = pargs[where] if isinstance(where, int) else pkwargs[where]
        if isinstance(tan, list):
            slots.extend((where, i, src[i], t) for i, t in enumerate(tan) if t is not None)
        else:
            slots.append((where, None, src, tan))
    for _, _, p, _ in slots:
        if type(p) is not _C.Tensor and not isinstance(p, _C.Tensor) or type(p) is DualTensor:
            raise NotImplementedError(
                f"forward AD: {key} has no JVP rule, and the generic one (through reverse mode) needs plain "
                "tensors as primals (this call nests forward levels or vmap); add a rule to "
                "minitorch/autograd/_jvp_rules.py."
            )
    for *_, p, t in slots:
        if t.is_complex() and not p.is_complex():
            # the vjp of a real primal is real: the trick would drop the tangent's imaginary part
            raise NotImplementedError(
                f"forward AD: {key} has no JVP rule, and the generic one (through reverse mode) cannot take a "
                "complex tangent of a real primal; make the primal complex (x.to(torch.complex128)) or split the "
                "tangent into its real and imaginary parts."
            )
    batched = [t for *_, t in slots if type(t).__name__ == "BatchedTensor"]
    with enable_grad():
        stand = []
        for where, i, p, t in slots:
            stand.append(p.view_as(p) if p.requires_grad else p.detach().requires_grad_())
        args, kwargs = list(pargs), dict(pkwargs)
        for (where, i, _, _), s in zip(slots, stand):
            if isinstance(where, int):
                if i is None:
                    args[where] = s
                else:
                    seq = list(args[where])
                    seq[i] = s
                    args[where] = type(pargs[where])(seq)
            elif i is None:
                kwargs[where] = s
            else:
                seq = list(kwargs[where])
                seq[i] = s
                kwargs[where] = type(pkwargs[where])(seq)
        out = _call(key, tuple(args), kwargs)
        flat = list(out) if isinstance(out, (tuple, list)) else [out]
        live = [
            (j, o) for j, o in enumerate(flat) if _C._is_tensor(o) and _differentiable(o) and o.requires_grad
        ]
        tans = [None] * len(flat)
        if live and warn is not None:
            _warn_generic(warn)
        if live:
            us = [_C.zeros_like(o).requires_grad_() for _, o in live]
            g = _grad([o for _, o in live], stand, us, create_graph=True, allow_unused=True)
            pairs = [(gi, t) for gi, (*_, t) in zip(g, slots) if gi is not None and gi.requires_grad]
            keep = any(p.requires_grad for *_, p, _ in slots) or any(
                getattr(t, "requires_grad", False) for *_, t in slots
            )
            if pairs:
                if batched:
                    jv = _batched_grads(pairs, us, keep)
                else:
                    jv = _grad(
                        [gi for gi, _ in pairs],
                        us,
                        [t.to(gi.dtype) if t.dtype != gi.dtype else t for gi, t in pairs],
                        create_graph=keep,
                        retain_graph=True,
                        allow_unused=True,
                    )
                for (j, o), v in zip(live, jv):
                    tans[j] = v if keep or v is None else v.detach()
    if not any(p.requires_grad for *_, p, _ in slots):
        flat = [o.detach() if _C._is_tensor(o) else o for o in flat]
    if isinstance(out, (tuple, list)):
        res = type(out)(flat) if type(out) in (tuple, list) else type(out)(tuple(flat))
        return _attach(res, tans, level)
    return _attach(flat[0], tans[0], level)


def _batched_grads(pairs, us, keep):
    """The second vjp of the trick for tangents batched by vmap (jacfwd's basis): one backward per entry."""
    from minitorch.autograd.engine import grad as _grad
    from minitorch.func._batched import _select_level, level_of, stack_results

    lvl = max(t._level for _, t in pairs if type(t).__name__ == "BatchedTensor")
    outs = []
    for i in range(level_of(lvl).size):
        ts = [_select_level(t, lvl, i) for _, t in pairs]
        r = _grad([gi for gi, _ in pairs], us, ts, create_graph=keep, retain_graph=True, allow_unused=True)
        outs.append([_C.zeros_like(u) if v is None else v for v, u in zip(r, us)])
    return stack_results(outs, lvl, "forward AD")


# ------------------------------------------------------------------------------------------------ the class

# Methods that read metadata or leave the autograd world: they run on the primal and drop the tangent.
_ON_PRIMAL = frozenset((
    "size", "dim", "ndimension", "numel", "nelement", "stride", "is_contiguous", "element_size", "get_device",
    "is_floating_point", "is_complex", "data_ptr", "storage_offset", "item", "tolist", "numpy", "__bool__",
    "__float__", "__int__", "__index__", "__len__", "register_hook", "retain_grad",
    "requires_grad_", "is_inference", "is_pinned", "is_shared", "is_signed", "is_same_size", "is_conj",
    "is_neg", "is_nonzero", "equal", "allclose", "_register_hook", "_remove_hook", "_is_view_of",
    "_storage_bytes", "_storage_key", "_storage_nbytes", "untyped_storage_nbytes", "__array__", "__dlpack__",
    "__dlpack_device__", "register_post_accumulate_grad_hook", "_register_post_accumulate_grad_hook",
    "record_stream", "count_nonzero", "nonzero", "argwhere", "argmax", "argmin", "argsort", "bincount",
    "histc", "bucketize", "isclose", "is_coalesced", "dense_dim", "sparse_dim", "type",
))  # fmt: skip
# Results that have no tangent: the op runs on the primal and its result is a plain tensor (the schema's factories
# of a tensor, new_zeros..., say so by their `jvp: none` rows)
_NO_TANGENT = frozenset(("detach", "new_tensor", "new"))
# In-place writes of values that do not depend on self's: the tangent is zeros (fill_'s value's, when it has one):
# the schema's `jvp: zero` rows
_FILLS = frozenset({name for name, key, value in _C._op_schema_rules() if key == "jvp" and value == "zero"})
_SKIP = frozenset((
    "__init__", "__repr__", "__str__", "__format__", "__hash__", "__reduce__", "__reduce_ex__", "__iter__",
    "__setitem__", "_pybind11_conduit_v1_", "__init_subclass__", "__subclasshook__", "__getattribute__",
    "__setattr__", "__delattr__", "__new__", "__dir__", "__sizeof__", "__class__", "__deepcopy__", "__copy__",
    "_make_subclass", "__torch_function__",
))  # fmt: skip


class DualTensor(_C.Tensor):
    """A tensor with a tangent at a forward AD level (see the module docstring). Its storage aliases the
    primal; `_primal`, `_tangent` and `_level` hold the dual parts (in Tensor's instance dict: no slots of its
    own, so that a plain Tensor written with a dual can become one in place, _become_dual)."""

    __slots__ = ()
    # forward AD's extent dispatches duals (overrides.py): the bindings' look for Tensor subclasses, which runs
    # outside the transforms too, leaves them alone
    _mt_transform_only = True

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        return dispatch(_key_of(func), args, kwargs or {})

    # metadata: the primal's (which may be a BatchedTensor, whose logical shape differs from the alias)
    @property
    def shape(self):
        """The primal's shape."""
        return self._primal.shape

    @property
    def dtype(self):
        """The primal's dtype (the tangent's may differ, as make_dual allows)."""
        return self._primal.dtype

    @property
    def device(self):
        """The primal's device."""
        return self._primal.device

    @property
    def ndim(self):
        """The primal's number of dims."""
        return self._primal.ndim

    @property
    def requires_grad(self):
        """Whether the primal requires grad (reverse mode over the forward computation)."""
        return self._primal.requires_grad

    @requires_grad.setter
    def requires_grad(self, value):
        self._primal.requires_grad = value

    @property
    def grad_fn(self):
        """The primal's autograd node."""
        return self._primal.grad_fn

    @property
    def is_leaf(self):
        """Whether the primal is an autograd leaf."""
        return self._primal.is_leaf

    @property
    def grad(self):
        """The primal's accumulated gradient."""
        return self._primal.grad

    @property
    def data(self):
        """The primal's data, without the tangent (as PyTorch's .data, which forward AD does not see)."""
        return self._primal.data

    @property
    def T(self):
        """The dims reversed, tangent included."""
        return dispatch("Tensor.permute", (self, tuple(range(self.dim() - 1, -1, -1))))

    @property
    def mT(self):
        """The last two dims swapped, tangent included."""
        return dispatch("Tensor.transpose", (self, -2, -1))

    @property
    def mH(self):
        """The conjugate of mT, tangent included (mT for real dtypes)."""
        t = self.mT
        return dispatch("Tensor.conj", (t,)) if self.dtype.is_complex else t

    @property
    def H(self):
        """The conjugate of T, tangent included (T for real dtypes)."""
        t = self.T
        return dispatch("Tensor.conj", (t,)) if self.dtype.is_complex else t

    def __repr__(self):
        p = repr(self._primal)
        if not _is_active(self._level) or not p.endswith(")"):
            return p
        from minitorch._tensor_str import _add_suffixes

        # PyTorch's last suffix, formatted as it is (a 0-dim tangent prints as its number)
        return _add_suffixes(p[:-1], [f"tangent={self._tangent}"], len("tensor("))

    __str__ = __repr__

    def __format__(self, spec):
        return repr(self) if not spec else format(self._primal, spec)

    __hash__ = object.__hash__

    def __iter__(self):
        if self.dim() == 0:
            raise TypeError("iteration over a 0-d tensor")
        return iter(dispatch("Tensor.unbind", (self, 0)))

    def __setitem__(self, index, value):
        dispatch("Tensor.__setitem__", (self, index, value))

    def __reduce_ex__(self, protocol):
        # a pickled or deep-copied dual is its primal (the tangent belongs to a level that will be gone)
        return self._primal.__reduce_ex__(protocol)

    def requires_grad_(self, requires_grad=True):
        """Sets requires_grad on the primal and returns this dual tensor (its tangent kept); inside a torch.func
        transform PyTorch's RuntimeError, as for any tensor there."""
        check_requires_grad_call(sys._getframe(1))
        self._primal.requires_grad_(requires_grad)
        return self

    def backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None):
        """Accumulates the primal's gradients; with create_graph=True they carry tangents (autograd_backward)."""
        from minitorch.autograd.engine import backward

        backward(self, gradient, retain_graph, create_graph, inputs=inputs)

    def retain_grad(self):
        """Retains the primal's gradient."""
        self._primal.retain_grad()

    def __deepcopy__(self, memo):
        import copy

        return copy.deepcopy(self._primal, memo)


class DualBuiltinError(RuntimeError):
    """A live dual tensor reached a builtin directly (_builtin_reached): vmap's rules, which call the builtins on
    values, catch it and run the op through forward AD instead (the check runs while the arguments convert, before
    the op)."""


def _builtin_reached(x):
    """Called by the C++ Tensor conversion when a DualTensor reaches a builtin directly: a builtin of the torch
    namespaces hands a dual to its dispatching spelling first, however it was bound (overrides'
    _builtin_function_dispatch), so this is a _C function outside them, a private one, or the machinery calling a
    builtin on values (vmap's rules): with its level active the builtin would compute on the primal and drop the
    tangent without a word, so that raises."""
    if _is_active(x._level) and not STATE.wrapping:
        raise DualBuiltinError(
            "forward AD: a dual tensor reached a minitorch builtin that was bound before the dual level was "
            "entered and has no forward-mode dispatch (a private torch._C function); it would compute on the "
            "primal and drop the tangent. Call the public op (torch.sin(x), F.relu(x)) instead."
        )


def _method(name):
    key = "Tensor." + name

    def m(self, *args, **kwargs):
        return dispatch(key, (self, *args), kwargs)

    m.__name__ = name
    m.__qualname__ = f"DualTensor.{name}"
    return m


def _on_primal(name):
    def m(self, *args, **kwargs):
        return getattr(_strip_primal(self), name)(*args, **kwargs)

    m.__name__ = name
    return m


def _strip_primal(x):
    return x._primal if type(x) is DualTensor else x


def _no_tangent(name):
    def m(self, *args, **kwargs):
        return getattr(self._primal, name)(*args, **kwargs)

    m.__name__ = name
    return m


def _install_methods():
    for name, attr in list(vars(_C.Tensor).items()):
        if name in _SKIP or name in vars(DualTensor) or not callable(attr) or isinstance(attr, type):
            continue
        if name in _ON_PRIMAL:
            setattr(DualTensor, name, _on_primal(name))
        elif name in _NO_TANGENT:
            setattr(DualTensor, name, _no_tangent(name))
        else:
            setattr(DualTensor, name, _method(name))


# C++ properties that read metadata of the primal (the alias's own would reach the builtin with a dual)
_PRIMAL_PROPERTIES = (
    "is_cuda", "is_cpu", "is_meta", "itemsize", "nbytes", "_version", "output_nr", "retains_grad", "_base",
    "__cuda_array_interface__",
)  # fmt: skip


def _primal_property(name):
    def get(self):
        return getattr(self._primal, name)

    return property(get, doc=f"The primal's {name}.")


for _n in _PRIMAL_PROPERTIES:
    if hasattr(_C.Tensor, _n) and _n not in vars(DualTensor):
        setattr(DualTensor, _n, _primal_property(_n))
# real and imag are views with a tangent: through their functions' rules
DualTensor.real = property(
    lambda self: self if not self.dtype.is_complex else dispatch("real", (self,), {}),
    doc="The real part, tangent included (a real dual's is itself, as PyTorch's).",
)
DualTensor.imag = property(
    lambda self: dispatch("imag", (self,), {}), doc="The imaginary part, tangent included."
)

_install_methods()
_C._set_dual_tensor_type(DualTensor, _builtin_reached)
# PyTorch's dual tensor is a torch.Tensor: code that names a tensor's type (type(p).__name__, messages) reads
# Tensor, as there (the class is still told apart by identity: `type(x) is DualTensor`)
DualTensor.__name__ = DualTensor.__qualname__ = "Tensor"
DualTensor.__module__ = "minitorch"
_ = math  # the rules' scope uses math through _jvp_rules


# ------------------------------------------------------------------------------------------------ transforms


class NestedReverseError(NotImplementedError):
    """A reverse-mode transform met dual tensors whose primals are duals of other levels or batched by vmap."""


def tree_has_dual(tree):
    """Whether a pytree of arguments holds a dual tensor of an active level."""
    if not STATE.levels:
        return False
    from minitorch.func._pytree import tree_flatten

    return any(
        type(x) is DualTensor and _is_active(_strip_dead(x)._level) or _batched_dual(x)
        for x in tree_flatten(tree)[0]
    )


def _batched_dual(x):
    """Whether x is a vmap BatchedTensor whose value holds a live dual (vmap entered with a dual argument)."""
    while type(x).__name__ == "BatchedTensor":
        x = x._value
        if type(x) is DualTensor and _is_active(_strip_dead(x)._level):
            return True
    return False


def through_reverse(fn, args, name="transform"):
    """fn(*args) for a reverse-mode transform (func.grad, jacrev) called on dual tensors: fn runs on the primals
    and the tangent of each floating output is J t by the double-vjp trick over fn's own (differentiable) result,
    which is forward-over-reverse: jvp(grad(f)) gives Hessian-vector products."""
    from minitorch.autograd.engine import grad as _grad
    from minitorch.autograd.grad_mode import enable_grad
    from minitorch.func._pytree import tree_flatten, tree_unflatten

    flat, spec = tree_flatten(args)
    level = max(
        (_strip_dead(x if type(x) is DualTensor else x._value)._level for x in flat if _dual_or_batched(x)),
        default=-1,
    )
    slots, stand = [], []
    new = list(flat)
    vmap_level = None  # the vmap level batching dual arguments (vmap(grad(f)) called on a dual)
    with enable_grad():
        for i, x in enumerate(flat):
            if _batched_dual(x):
                # a dual batched by the innermost vmap (vmap(grad(f))(dual)): fn runs inside that vmap on a batched
                # stand-in of the primal, and the trick runs on the batched values, whose graph is one graph for
                # the whole batch (each entry's gradient depends on its own entry only)
                d = x._value
                if type(d) is not DualTensor or not _batched_dual_ok(x, d, level, vmap_level):
                    raise NestedReverseError(
                        f"forward AD: {name} inside vmap of a dual tensor is supported for a dual batched by one "
                        "vmap (vmap(grad(f))(dual)); this one is nested deeper: its tangent would be lost"
                    )
                vmap_level = x._level
                p, t = d._primal, d._tangent
                sv = p.view_as(p) if p.requires_grad else p.detach().requires_grad_()
                new[i] = _batched_type()(sv, vmap_level)
                slots.append(_rule_tangent(p, t))
                stand.append(sv)
                continue
            if type(x) is not DualTensor:
                continue
            p, t = _split(x, level)
            if t is None:
                new[i] = p
                continue
            if not isinstance(p, _C.Tensor) or type(p) is DualTensor:
                raise NestedReverseError(
                    f"forward AD: {name} on dual tensors nested in other forward levels or vmap is not supported"
                )
            s = p.view_as(p) if p.requires_grad else p.detach().requires_grad_()
            new[i] = s
            slots.append(_rule_tangent(p, t))
            stand.append(s)
        # the primals are plain tensors: fn runs outside the vmap levels that may batch the tangents (jacfwd's
        # basis), so that its reverse-mode transform does not expand them along those levels
        if vmap_level is not None and any(type(t).__name__ == "BatchedTensor" for t in slots):
            raise NestedReverseError(
                f"forward AD: {name} inside vmap of a dual tensor, with tangents batched by another vmap (jacfwd), "
                "is not supported"
            )
        # (a vmap that batches the primals stays: fn is vmapped over them)
        if vmap_level is None:
            saved, _VMAP_STATE.levels = _VMAP_STATE.levels, []
            _VMAP_STATE.suspended = saved + _VMAP_STATE.suspended
        try:
            out = fn(*tree_unflatten(new, spec))
        finally:
            if vmap_level is None:
                _VMAP_STATE.levels = saved
                _VMAP_STATE.suspended = _VMAP_STATE.suspended[len(saved) :]
        flat_out, out_spec = tree_flatten(out)
        # the outputs' values: a batched output's value holds the whole batch (an output vmap does not batch
        # depends on no batched input, so it gets no tangent from them)
        values = [_batched_value(o, vmap_level) for o in flat_out]
        live = [
            (j, v)
            for j, v in enumerate(values)
            if isinstance(v, _C.Tensor) and _differentiable(v) and v.requires_grad
        ]
        tans = [None] * len(flat_out)
        if live and stand:
            us = [_C.zeros_like(o).requires_grad_() for _, o in live]
            g = _grad([o for _, o in live], stand, us, create_graph=True, allow_unused=True)
            pairs = [(gi, t) for gi, t in zip(g, slots) if gi is not None and gi.requires_grad]
            keep = any(p.requires_grad for p in stand if p.grad_fn is not None) or any(
                getattr(t, "requires_grad", False) for t in slots
            )
            if pairs:
                if any(type(t).__name__ == "BatchedTensor" for _, t in pairs):
                    jv = _batched_grads(pairs, us, keep)
                else:
                    jv = _grad(
                        [gi for gi, _ in pairs],
                        us,
                        [t for _, t in pairs],
                        create_graph=keep,
                        retain_graph=True,
                        allow_unused=True,
                    )
                for (j, _), v in zip(live, jv):
                    tans[j] = v
    # the stand-ins' graph served the trick only: where nothing given required grad, the results hold none (as
    # PyTorch's func.grad of a dual)
    grad_given = any((_C._is_tensor(x) or _batched_dual(x)) and x.requires_grad for x in flat) or any(
        getattr(t, "requires_grad", False) for t in slots
    )
    res = []
    for j, o in enumerate(flat_out):
        v = values[j]
        batched = v is not o
        if isinstance(v, _C.Tensor) and _differentiable(v):
            if not grad_given:
                v = v.detach()
                tans[j] = tans[j].detach() if _C._is_tensor(tans[j]) else tans[j]
            d = _attach(v, tans[j], level)
            # a batched output is batched again around its dual, as vmap holds a dual it was given (ops mixing it
            # with that input see one form)
            res.append(_batched_type()(d, vmap_level) if batched else d)
        else:
            res.append(o)
    return tree_unflatten(res, out_spec)


def _dual_or_batched(x):
    """A dual tensor, or a vmap BatchedTensor whose value is one (vmap called on a dual)."""
    return type(x) is DualTensor or (_batched_dual(x) and type(x._value) is DualTensor)


def _batched_type():
    from minitorch.func._batched import BatchedTensor

    return BatchedTensor


def _batched_dual_ok(x, d, level, vmap_level):
    """Whether through_reverse handles this batched dual: one vmap (the innermost, the same for every such
    argument) over a dual of `level` whose primal is a plain tensor."""
    return (
        _VMAP_STATE.levels
        and x._level == _VMAP_STATE.levels[-1].id
        and vmap_level in (None, x._level)
        and d._level == level
        and type(d._primal) is _C.Tensor
    )


def _batched_value(o, vmap_level):
    """o's value where vmap_level batches it (o itself otherwise)."""
    if vmap_level is not None and type(o).__name__ == "BatchedTensor" and o._level == vmap_level:
        return o._value
    return o


# ------------------------------------------------------------------------------------------------ autograd API


def functorch_dual(x):
    """Whether x is a dual of a live func.jvp/jacfwd level (autograd.grad of it inside the transform refuses)."""
    if type(x) is not DualTensor:
        return False
    x = _strip_dead(x)
    return type(x) is DualTensor and x._level in STATE.functorch


def holds_dual(tensors):
    """Whether a list of tensors (None allowed) holds a dual tensor, of a live level or not."""
    return any(type(t) is DualTensor for t in tensors)


def _split_all(xs, level):
    pairs = [_split(x, level) if type(x) is DualTensor else (x, None) for x in xs]
    return [p for p, _ in pairs], [t for _, t in pairs]


def _add(a, b):
    return b if a is None else a if b is None else a + b


# ------------------------------------------------------------------------ the backward pass of dual tensors
#
# PyTorch runs its backward formulas under forward AD, so a gradient inside a dual level is dual. Ours: the C++
# engine carries a tangent beside each gradient (csrc/autograd/engine_dual.h): a node's formula (linear in the
# gradients) maps the tangents, and the term the formula's saved tensors' tangents add comes from here
# (_second_order), from the record dispatch kept of the op (_record). Hooks get make_dual(g, g_t) through
# _pass_make and what they return is split back (_pass_split); retain_grad stores the dual (_pass_retain).


class _Pass(NamedTuple):
    level: int
    create_graph: bool
    keep: list  # the duals handed to hooks, alive for the pass (the engine holds only their impls)
    old: dict  # backward(create_graph=True): id(leaf) -> the tangent its dual .grad had before the pass


def _pass():
    return STATE.passes[-1]


def _pass_make(g, t):
    d = _make(g, t, _pass().level)
    _pass().keep.append(d)
    return d


def _pass_split(r):
    if type(r) is DualTensor:
        p, t = _split(r, _pass().level)
        return p, None if t is None else _fit(t, p)
    return r, None


def _pass_retain(old, g):
    """retain_grad's .grad after the gradient g (dual where it has a tangent, as PyTorch's) reached it."""
    from minitorch.autograd.grad_mode import no_grad

    level = _pass().level
    with no_grad():
        p, t = _pass_split(g)
        if old is None:
            p, t = p.clone(), None if t is None else t.clone()
        else:
            op_, ot = _split(_strip_dead(old), level) if type(old) is DualTensor else (old, None)
            p, t = op_ + p, _add(ot, t)
    if t is None:
        return p
    d = _make(p, t, level)
    STATE.kept.setdefault(level, []).append(d)
    return d


def _pass_store_leaf(leaf, t):
    """backward(create_graph=True): the leaf's .grad (just accumulated) becomes dual, its tangent t plus the one
    its dual .grad had (PyTorch's AccumulateGrad sums dual gradients)."""
    _set_dual_grad(leaf, _add(_pass().old.pop(id(leaf), None), t), _pass().level)


def _set_dual_grad(leaf, t, level):
    g = _strip_dead(leaf.grad)
    if t is None or g is None:
        return
    g = g._primal if type(g) is DualTensor else g
    dual = _make(g, _fit(t, g), level)
    STATE.wrapping = True  # the .grad setter is a builtin: it stores the dual (a Python object) as such
    try:
        leaf.grad = dual
        STATE.kept.setdefault(level, []).append(dual)
    finally:
        STATE.wrapping = False


# Each op's second-order term, as declared: ops.schema's `dual_term:` on the op's row (reached by its name, its
# aliases and their Tensor./F. spellings), else the `dual_term` of its rule row in autograd/_jvp_rules.py (the
# composites, by rule key or plain name), else the private row a public wrapper calls (`_hypot` for hypot,
# `_special_i0e` for special.i0e, special.psi's digamma); undeclared: the re-run. `linear`: the tangent is the op
# on the tangents, so no term and no record; `zero`: the rule selects or masks the tangent by the primal's value,
# flat wherever it is differentiable, so the term is zero; `zero_real`: zero where every argument is real, the
# re-run for a complex one (abs, sgn, angle: smooth off 0 in the complex plane); a C++ term (csrc/autograd/dual_terms.cpp, generated from the schema):
# the call laid out by _LAYOUTS (by the C++ function the row names; a unary row's expression: _unary_layout).
# CXX_TERMS off (benchmarks/bench_hvp.py and the tests compare the two) re-runs the `zero` and C++ ones too.
CXX_TERMS = True
_NAMESPACES = ("", "Tensor", "F")  # the spellings that reach a schema row by its name
_DUAL_KINDS = {}  # rule key -> (kind, schema op, layout), filled as keys are met (_dual_kind)
_DUAL_DECLARED = []  # [(schema op or alias -> (op, value)), (composite rule key -> value)], built on first use


def _dual_declared():
    if not _DUAL_DECLARED:
        from minitorch.autograd._jvp_rules import JVP_RULES

        schema = {name: (name, v) for name, key, v in _C._op_schema_rules() if key == "dual_term"}
        for row in _C._op_schema():
            if row[1] in schema:
                for alias in re.findall(r"(\w+)(?:\[[^\]]*\])?", row[5]):
                    schema.setdefault(alias, schema[row[1]])
        rows = {k: r["dual_term"] for k, r in JVP_RULES.items() if isinstance(r, dict) and "dual_term" in r}
        _DUAL_DECLARED[:] = [schema, rows]
    return _DUAL_DECLARED


def _dual_kind(rkey):
    """(kind, schema op, layout) of a rule key: kind linear | zero | zero_real | fallback | cxx; for cxx, the schema row whose
    C++ term it takes and the function that lays a call out for it."""
    hit = _DUAL_KINDS.get(rkey)
    if hit is not None:
        return hit
    schema, rows = _dual_declared()
    ns, _, name = rkey.rpartition(".")
    op, value = schema.get(name, (None, None)) if ns in _NAMESPACES else (None, None)
    if value is None:  # a composite's row, by its key or (Tensor.sum) its plain name
        op, value = None, rows.get(rkey) or (rows.get(name) if ns in _NAMESPACES else None)
    # the private row a public wrapper calls, with the wrapper's rule (tests check they agree)
    if value is None:
        op, value = schema.get(_private_row(ns, name), (None, "fallback"))
    if value in ("linear", "zero", "zero_real", "fallback"):
        hit = (value, None, None)
    else:
        fn = value.split()[1] if value.startswith("fn ") else None
        hit = ("cxx", op, _LAYOUTS[fn] if fn else _unary_layout)
    _DUAL_KINDS[rkey] = hit
    return hit


# the kernels public wrappers call under another name than _<name>
_WRAPPED_ROWS = {"prelu": "_prelu_kernel"}


def _private_row(ns, name):
    """The schema row behind a public wrapper's rule key: `_<name>` (hypot's _hypot), F.prelu's _prelu_kernel,
    torch.special's `_special_<name>` or the op a special.* alias names (special.psi: digamma); None where there is
    none."""
    if ns in _NAMESPACES:
        return _WRAPPED_ROWS.get(name, "_" + name)
    if ns == "special":
        from minitorch.autograd._jvp_rules import _SPECIAL_ALIASES

        return _SPECIAL_ALIASES.get(name, "_special_" + name)
    return None


_UNARY_KWARGS = ({}, {"inplace": False}, {"approximate": "none"})
_NUMBER = (int, float)
_MSE_REDUCTIONS = ("mean", "sum", "none")

# The layouts: a call's (tensor arguments in the term's layout, their tangents, number parameters) for its op's C++
# term; () where this call's term is zero (a product or quotient by a number); None for the re-run (arguments
# that are not plain tensors, forms the term does not cover). Each takes (op, swapped, positional arguments,
# keyword arguments, the tangent of argument i).


def _unary_layout(op, swapped, pargs, pkwargs, tan):
    if len(pargs) == 1 and type(pargs[0]) is _C.Tensor and pkwargs in _UNARY_KWARGS:
        return (pargs[0],), (tan(0),), ()
    return None


def _mul_div_layout(op, swapped, pargs, pkwargs, tan):
    T = _C.Tensor
    if len(pargs) != 2 or pkwargs and (op == "mul" or pkwargs.get("rounding_mode") is not None):
        return None
    i, j = (1, 0) if swapped else (0, 1)  # a / b of pargs[i], pargs[j]
    a, b = pargs[i], pargs[j]
    if type(a) is not T and type(a) is not bool and isinstance(a, _NUMBER):
        if type(b) is not T:
            return None
        if op == "mul":
            return ()  # by a number: linear
        return (None, b), (None, tan(j)), (float(a),)
    if type(a) is not T:
        return None
    if type(b) is not T:
        return () if isinstance(b, (*_NUMBER, bool)) else None
    return (a, b), (tan(i), tan(j)), ()


def _pow_layout(op, swapped, pargs, pkwargs, tan):
    e = pargs[1] if len(pargs) == 2 else None
    if swapped or pkwargs or type(pargs[0]) is not _C.Tensor or type(e) is bool or not isinstance(e, _NUMBER):
        return None
    return (pargs[0],), (tan(0),), (float(e),)


def _mm_layout(op, swapped, pargs, pkwargs, tan):
    T = _C.Tensor
    k = 1 if op == "addmm" else 0
    if len(pargs) != k + 2 or (pkwargs.keys() - {"beta", "alpha"} if k else pkwargs):
        return None
    alpha = pkwargs.get("alpha", 1)
    i, j = (k + 1, k) if swapped else (k, k + 1)
    a, b = pargs[i], pargs[j]
    if type(a) is not T or type(b) is not T or a.dim() != 2 or b.dim() != 2 or not isinstance(alpha, _NUMBER):
        return None
    return (a, b), (tan(i), tan(j)), (float(alpha),)


def _linear_layout(op, swapped, pargs, pkwargs, tan):
    if len(pargs) not in (2, 3) or pkwargs.keys() - {"bias"}:
        return None
    x, w = pargs[0], pargs[1]
    if type(x) is not _C.Tensor or type(w) is not _C.Tensor or x.dim() < 2 or w.dim() != 2:
        return None
    return (x, w), (tan(0), tan(1)), ()


def _softmax_layout(op, swapped, pargs, pkwargs, tan):
    n = len(pargs)
    dim = pargs[1] if n == 2 and not pkwargs else pkwargs.get("dim") if n == 1 and len(pkwargs) == 1 else None
    x = pargs[0]
    if type(dim) is not int or type(x) is not _C.Tensor or x.dim() == 0:
        return None
    return (x,), (tan(0),), (float(dim),)


def _mse_loss_layout(op, swapped, pargs, pkwargs, tan):
    red = pkwargs.get("reduction", "mean")
    if len(pargs) != 2 or pkwargs.keys() - {"reduction"} or red not in _MSE_REDUCTIONS:
        return None
    x, y = pargs
    if type(x) is not _C.Tensor or type(y) is not _C.Tensor or x.shape != y.shape or not x.numel():
        return None
    return (x, y), (tan(0), tan(1)), (2.0 / x.numel() if red == "mean" else 2.0,)


def _gelu_layout(op, swapped, pargs, pkwargs, tan):
    approximate = pkwargs.get("approximate", "none") if pkwargs.keys() <= {"approximate"} else None
    if len(pargs) != 1 or type(pargs[0]) is not _C.Tensor or approximate not in ("none", "tanh"):
        return None
    return (pargs[0],), (tan(0),), (float(approximate == "tanh"),)


_LN2 = math.log(2.0)


def _tensors_layout(op, swapped, pargs, pkwargs, tan):
    """Two tensor operands (atan2, hypot, logaddexp(2)); logaddexp2's term reads ln 2."""
    if len(pargs) != 2 or pkwargs or type(pargs[0]) is not _C.Tensor or type(pargs[1]) is not _C.Tensor:
        return None
    return (pargs[0], pargs[1]), (tan(0), tan(1)), (_LN2 if op == "logaddexp2" else 1.0,)


def _xlogy_layout(op, swapped, pargs, pkwargs, tan):
    T = _C.Tensor
    if len(pargs) != 2 or pkwargs or type(pargs[1]) is not T:
        return (
            () if len(pargs) == 2 and not pkwargs and isinstance(pargs[1], _NUMBER) else None
        )  # linear in x
    a = pargs[0]
    if type(a) is T:
        return (a, pargs[1]), (tan(0), tan(1)), (0.0,)
    if type(a) is bool or not isinstance(a, _NUMBER):
        return None
    return (None, pargs[1]), (None, tan(1)), (float(a),)


def _logsumexp_layout(op, swapped, pargs, pkwargs, tan):
    args = dict(zip(("input", "dim", "keepdim"), pargs), **pkwargs)
    x, dim, keepdim = args.pop("input", None), args.pop("dim", None), args.pop("keepdim", False)
    if args or type(x) is not _C.Tensor or x.dim() == 0 or type(keepdim) is not bool:
        return None
    dims = [dim] if type(dim) is int else list(dim) if isinstance(dim, (list, tuple)) else None
    if not dims or any(type(d) is not int or not -x.dim() <= d < x.dim() for d in dims):
        return None
    return (x,), (tan(0),), (float(keepdim), *(float(d % x.dim()) for d in dims))


def _cumprod_layout(op, swapped, pargs, pkwargs, tan):
    """cumprod(x, dim) (zeros in x included: the term takes the products that skip them)."""
    args = dict(zip(("input", "dim"), pargs), **pkwargs)
    x, dim, dtype = args.pop("input", None), args.pop("dim", None), args.pop("dtype", None)
    if args or len(pargs) > 2 or type(x) is not _C.Tensor or x.dim() == 0 or type(dim) is not int:
        return None
    if not -x.dim() <= dim < x.dim() or dtype not in (None, x.dtype):
        return None
    return (x,), (tan(0),), (float(dim % x.dim()),)


def _prelu_layout(op, swapped, pargs, pkwargs, tan):
    if len(pargs) != 2 or pkwargs or type(pargs[0]) is not _C.Tensor or type(pargs[1]) is not _C.Tensor:
        return None
    return (pargs[0], pargs[1]), (tan(0), tan(1)), ()


# by the C++ function a schema row's `dual_term: fn <function>` names (tests/autograd/test_forward_over_reverse.py
# checks that each has one)
_LAYOUTS = {
    "mul_term": _mul_div_layout,
    "div_term": _mul_div_layout,
    "pow_term": _pow_layout,
    "mm_term": _mm_layout,
    "linear_term": _linear_layout,
    "softmax_term": _softmax_layout,
    "log_softmax_term": _softmax_layout,
    "mse_loss_term": _mse_loss_layout,
    "gelu_term": _gelu_layout,
    "atan2_term": _tensors_layout,
    "hypot_term": _tensors_layout,
    "logaddexp_term": _tensors_layout,
    "xlogy_term": _xlogy_layout,
    "logsumexp_term": _logsumexp_layout,
    "cumprod_term": _cumprod_layout,
    "prelu_term": _prelu_layout,
}


def _record(key, pargs, pkwargs, tangents, level, result):
    """Keeps, by the node the op made, what the dual backward pass needs for that node's second-order term: the
    op, its primal arguments and their tangents, and for the ops whose term is C++ what it reads. Only where a
    result's tangent depends on a primal that requires grad (its tangent requires grad, and the op's term is not
    declared linear or zero): elsewhere the term is zero."""
    rkey, swapped, _ = _rule_key(key)
    kind, op, layout = _dual_kind(rkey)
    if kind == "linear":
        return
    spec = None
    if kind == "zero_real":
        if CXX_TERMS and not any(type(a) is _C.Tensor and a.is_complex() for a in pargs):
            return
        kind = "fallback"
    if CXX_TERMS and kind != "fallback":
        if kind == "zero":
            return
        spec = layout(op, swapped, pargs, pkwargs, tangents.get)
        if spec == ():
            return
        if spec is not None:
            spec = (op, *spec)
    flat = list(result) if isinstance(result, (tuple, list)) else [result]
    nodes = []
    for j, r in enumerate(flat):
        if type(r) is not DualTensor:
            continue
        p, t = r._primal, r._tangent
        if type(t) is not _C.Tensor or not t.requires_grad or type(p) is not _C.Tensor:
            continue
        node = p.grad_fn
        if node is None:
            continue
        for n, outs in nodes:
            if n is node:
                outs.append((j, p.output_nr))
                break
        else:
            nodes.append((node, [(j, p.output_nr)]))
    for node, outs in nodes:
        term = None
        if (
            spec is not None
            and len(nodes) == 1
            and len(outs) == 1
            and outs[0][0] == 0
            and all(u is None or type(u) is _C.Tensor for u in spec[2])
        ):
            r = flat[0]
            term = (*spec[:3], r._primal, r._tangent, spec[3], level, outs[0][1])
        _C._fwad_set_record(node, (key, pargs, pkwargs, tangents, level, outs), term)


def _record_inplace(key, old_self, pargs, pkwargs, tangents, level):
    """The record of an in-place op (see _record): the C++ in-place path ran the out-of-place op on a clone of self
    (node N, whose input 0 is that clone's edge) and gave self N's history, or through a view gave its base
    CopySlices(old base, N's result). The re-run uses self's value and tangent from before the write, and the term
    for self goes to N's input 0."""
    p = pargs[0]
    node = p.grad_fn
    if node is None:
        return
    if p._base is not None:  # a view: its history is AsStrided(CopySlices(base, N))
        cs = node.next_functions[0][0] if node.next_functions else None
        if cs is None or not cs.name().endswith("CopySlices") or len(cs.next_functions) < 2:
            return
        node = cs.next_functions[1][0]
        if node is None:
            return
    if not node.next_functions or node.next_functions[0][0] is None:
        return
    value, tangent = old_self
    tans = dict(tangents)
    if tangent is not None:
        tans[0] = tangent
    _C._fwad_set_record(
        node, (key, (value, *pargs[1:]), pkwargs, tans, level, [(0, 0)], node.next_functions[0]), None
    )


class _FunctionRecord(NamedTuple):
    """What the dual backward pass needs of a custom autograd.Function applied to duals: PyTorch runs its
    backward under forward AD, with the saved tensors and the tensors kept on ctx dual where they are the
    Function's dual inputs or its outputs (the tangents jvp gave them), so the backward's own derivative along
    those tangents is the node's second-order term (_function_terms)."""

    cls: type
    ctx: object
    inputs: tuple  # forward's primal inputs (the node's edges)
    saved: tuple  # save_for_backward's tensors (an output as a detached alias: no strong link to the node)
    tangent_of: dict  # id(an input, an output or its alias) -> (the primal to use, its tangent)
    level: int
    outputs: tuple  # (shape, dtype, device) of each tensor output: backward's zeros for a missing gradient


def _record_function(cls, ctx, pargs, tangents, out_tangents, level):
    """Records, by the node a custom Function's apply made, what _function_terms reads (see _FunctionRecord);
    nothing where the apply recorded no node."""
    keep = ctx.__dict__.pop("_dual_keep", None)
    del ctx._keep_for_dual
    if keep is None:
        return
    saved, outs = keep
    node = next((o.grad_fn for o in outs if o.grad_fn is not None), None)
    if node is None:
        return
    tangent_of = {}
    for i, t in tangents.items():
        x = pargs[i] if isinstance(i, int) else None
        if type(x) is _C.Tensor and type(t) is _C.Tensor:
            tangent_of[id(x)] = (x, t)
    # an output's tangent is the one jvp gave it; it is looked up by the object forward returned (what ctx and
    # save_for_backward hold; alive as long as they hold it, so its id is not reused meanwhile)
    tans = out_tangents if isinstance(out_tangents, (tuple, list)) else (out_tangents,)
    alias = {}
    for o, t in zip(outs, tans):
        if type(t) is _C.Tensor and _differentiable(o):
            a = alias[id(o)] = o.detach()
            tangent_of[id(o)] = tangent_of[id(a)] = (a, _fit(t, o))
    if not tangent_of:
        return
    saved = tuple(alias.get(id(x), x) for x in saved)
    geometry = tuple((o.shape, o.dtype, o.device) for o in outs)
    rec = _FunctionRecord(cls, ctx, tuple(pargs), saved, tangent_of, level, geometry)
    _C._fwad_set_record(node, rec, None)


def _function_terms(rec, grads):
    """A custom Function node's second-order term: its backward re-run on the node's incoming gradients with
    the saved tensors and ctx's tensors dual (their tangents from the record), as PyTorch's backward runs under
    forward AD; the tangent of each input's gradient is the term for that input (the gradients' own tangents
    reach the inputs through the engine's linear pass)."""
    from minitorch.autograd.function import FunctionCtx
    from minitorch.autograd.grad_mode import set_grad_enabled

    create = _pass().create_graph
    level = rec.level

    def dual(x):
        if type(x) is _C.Tensor:
            hit = rec.tangent_of.get(id(x))
            if hit is None:
                return x
            p, t = hit
            return _make(p if create else p.detach(), t if create else t.detach(), level)
        if type(x) is tuple or type(x) is list:
            return type(x)(dual(y) for y in x)
        return x

    ctx = FunctionCtx.__new__(type(rec.ctx))
    for k, v in vars(rec.ctx).items():
        setattr(ctx, k, dual(v))
    ctx._saved_tensors = tuple(dual(t) for t in rec.saved)
    ctx._in_jvp = False
    gs = [g if g is None or create else g.detach() for g in grads]
    if getattr(ctx, "materialize_grads", True):
        gs = [
            _C.zeros(shape, dtype=dt, device=dev) if g is None else g
            for g, (shape, dt, dev) in zip(gs, rec.outputs)
        ]
    with set_grad_enabled(create):
        STATE.rerun += 1
        try:
            res = rec.cls.backward(ctx, *gs)
        finally:
            STATE.rerun -= 1
    res = res if isinstance(res, tuple) else (res,)
    terms = []
    for x, r in zip(rec.inputs, res):
        if type(r) is not DualTensor or type(x) is not _C.Tensor or not x.requires_grad:
            continue
        t = _split(r, level)[1]
        if t is not None:
            terms.append((x, t))
    return terms


def _second_order(rec, grads):
    """A recorded node's second-order term: for each primal input x_i that requires grad, the gradient of
    <g, rule(x, t)> with respect to x_i at the tangents t held fixed (the derivative of the node's backward
    formula along the tangents of what it saved; exact because the rules agree with the formulas). One re-run
    of the op's rule on fresh stand-ins of its inputs and one local backward. Returns (x_i, term) pairs."""
    from minitorch.autograd.engine import grad as _grad
    from minitorch.autograd.grad_mode import enable_grad

    if type(rec) is _FunctionRecord:
        if not STATE.passes or _pass().level != rec.level or not _is_active(rec.level):
            return []
        return _function_terms(rec, grads)
    key, pargs, pkwargs, tangents, level, outs, *self_edge = rec
    if not STATE.passes or _pass().level != level or not _is_active(level):
        return []
    create = _pass().create_graph
    origs, stand = [], []
    if self_edge:  # an in-place op's self, overwritten since: its old value, the term to N's input 0 (edge)
        s0 = pargs[0].detach().requires_grad_()
        origs.append(self_edge[0])
        stand.append(s0)
        pargs = (s0, *pargs[1:])

    def fresh(x):
        if type(x) is _C.Tensor and x.requires_grad:
            s = x.view_as(x) if create else x.detach().requires_grad_()
            origs.append(x)
            stand.append(s)
            return s
        if type(x) is list or type(x) is tuple:
            return type(x)(fresh(y) for y in x)
        return x

    def dual(x, t):
        if t is None:
            return x
        if type(x) is list or type(x) is tuple:
            return type(x)(dual(y, u) for y, u in zip(x, t))
        return _make(x, t if create else t.detach(), level)

    with enable_grad():
        args = [a if self_edge and i == 0 else fresh(a) for i, a in enumerate(pargs)]
        kwargs = {k: fresh(v) for k, v in pkwargs.items()}
        if not stand:
            return []
        for where, t in tangents.items():
            if isinstance(where, int):
                args[where] = dual(args[where], t)
            else:
                kwargs[where] = dual(kwargs[where], t)
        STATE.rerun += 1
        try:
            res = dispatch(key, tuple(args), kwargs)
        finally:
            STATE.rerun -= 1
        flat = list(res) if isinstance(res, (tuple, list)) else [res]
        zs, us = [], []
        for j, nr in outs:
            g = grads[nr] if nr < len(grads) else None
            r = flat[j] if j < len(flat) else None
            if g is None or type(r) is not DualTensor:
                continue
            z = _split(r, level)[1]
            if type(z) is not _C.Tensor or not z.requires_grad:
                continue
            zs.append(z)
            us.append(g if g.dtype == z.dtype or g.is_complex() != z.is_complex() else g.to(z.dtype))
        if not zs:
            return []
        terms = _grad(zs, stand, us, create_graph=create, allow_unused=True)
    return [(x, t) for x, t in zip(origs, terms) if t is not None]


def _dual_pass(out_p, gp, gt, retain_graph, create_graph, in_p, allow_unused, level, old=None):
    """One backward pass of the engine with the tangents gt of the cotangents beside them: (gradients of in_p,
    their tangents)."""
    from minitorch.autograd.engine import _run_backward

    STATE.passes.append(_Pass(level, create_graph, [], {} if old is None else old))
    try:
        return _run_backward(
            not in_p,
            out_p,
            gp,
            gt,
            retain_graph,
            create_graph,
            in_p,
            allow_unused,
            _pass_make,
            _pass_split,
            _second_order,
            _pass_retain,
            _pass_store_leaf,
            level,
            _engine=_C._run_backward_dual,
        )
    finally:
        STATE.passes.pop()


def autograd_grad(outputs, inputs, grads, retain_graph, create_graph, allow_unused, materialize_grads):
    """torch.autograd.grad where outputs, inputs or grad_outputs are dual tensors: the gradient of the primals,
    dual with its own tangent where the backward pass has one (forward over reverse, as PyTorch's backward
    formulas run under forward AD: Hessian-vector products through the autograd API). A dual of a finished level
    counts as its primal."""
    from minitorch.autograd.engine import grad as _grad

    level = _max_level(list(outputs) + list(inputs) + [g for g in grads if g is not None], {})
    out_p, _ = _split_all(outputs, level)
    in_p, _ = _split_all(inputs, level)
    gp, gt = _split_all(grads, level)
    out_p, in_p, gp = ([_strip_dead(x) for x in xs] for xs in (out_p, in_p, gp))
    if level < 0:
        return _grad(
            out_p,
            in_p,
            gp,
            retain_graph=retain_graph,
            create_graph=create_graph,
            allow_unused=allow_unused,
            materialize_grads=materialize_grads,
        )
    res, tans = _dual_pass(out_p, gp, gt, retain_graph, create_graph, in_p, allow_unused, level)
    out = []
    for r, t, p in zip(res, tans, in_p):
        if r is None:
            out.append(_C.zeros_like(p) if materialize_grads else None)
        elif t is None:
            out.append(r)
        else:
            out.append(_make(r, _fit(t, r), level))
    return tuple(out)


def _leaves(roots):
    """The autograd leaves (AccumulateGrad variables) reached from the graphs of `roots`."""
    seen, stack, leaves = set(), [], []
    for r in roots:
        if r is not None and r.grad_fn is not None:
            stack.append(r.grad_fn)
        elif r is not None and r.requires_grad:
            leaves.append(r)
    while stack:
        node = stack.pop()
        if node in seen:
            continue
        seen.add(node)
        var = getattr(node, "variable", None)
        if var is not None:
            leaves.append(var)
        for nxt, _ in node.next_functions:
            if nxt is not None and nxt not in seen:
                stack.append(nxt)
    unique = []
    for leaf in leaves:
        if not any(leaf is u for u in unique):
            unique.append(leaf)
    return unique


def autograd_backward(tensors, grads, retain_graph, create_graph, inputs):
    """torch.autograd.backward where tensors or grad_tensors are dual: the primals' gradients accumulate into
    .grad; with create_graph=True (PyTorch's backward formulas then record under forward AD) an accumulated
    gradient is dual with the tangent the backward pass gives it, added to the tangent a dual .grad had (PyTorch
    detaches a leaf's .grad, tangent included, otherwise)."""
    from minitorch.autograd.engine import backward as _backward
    from minitorch.autograd.grad_mode import set_grad_enabled

    level = _max_level(list(tensors) + [g for g in grads if g is not None] + list(inputs or ()), {})
    out_p, _ = _split_all(tensors, level)
    gp, gt = _split_all(grads, level)
    out_p, gp = ([_strip_dead(x) for x in xs] for xs in (out_p, gp))
    in_p = None if inputs is None else [_strip_dead(_split(i, level)[0]) for i in inputs]
    if level < 0:
        _backward(out_p, gp, retain_graph, create_graph, inputs=in_p)
        return
    if in_p is not None:
        if len(in_p) == 0:
            raise RuntimeError("`inputs` argument to `backward()` cannot be empty.")
        leaves = in_p
    else:
        leaves = _leaves(out_p) if create_graph else []
    old = {id(leaf): _split(leaf.grad, level)[1] for leaf in leaves if type(leaf.grad) is DualTensor}
    if in_p is None:
        # the engine makes each leaf's .grad dual as it accumulates (_pass_store_leaf); what it did not reach
        # keeps its old tangent
        _dual_pass(out_p, gp, gt, retain_graph, create_graph, [], True, level, old)
        for leaf in leaves:
            if id(leaf) in old:
                _set_dual_grad(leaf, old[id(leaf)], level)
        return
    # accumulate only into the given leaves, as engine.backward does on the plain path
    res, tans = _dual_pass(out_p, gp, gt, retain_graph, create_graph, in_p, True, level)
    with set_grad_enabled(create_graph):
        for leaf, g in zip(in_p, res):
            if g is None:
                continue
            prev = _strip_dead(leaf.grad)
            prev = prev._primal if type(prev) is DualTensor else prev
            leaf.grad = (g if create_graph else g.clone()) if prev is None else prev + g
    if create_graph:
        for leaf, t in zip(in_p, tans):
            _set_dual_grad(leaf, _add(old.get(id(leaf)), t), level)
