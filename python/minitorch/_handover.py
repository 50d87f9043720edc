"""Hands a call that a tensor-like argument made fail to the outermost torch function of the call.

PyTorch tests each public function's arguments for ``__torch_function__`` at its entry (`has_torch_function` in
the functions it writes in Python, the argument parser in C++), so ``torch.linalg.norm(x)`` for a tensor-like x
reaches x's ``__torch_function__`` as torch.linalg.norm, whatever norm calls inside. Ours test only once a call
failed, so that valid calls pay nothing: the builtin that refuses x (csrc/python/arg_errors.cpp), `_argcheck`'s
wrappers, and the public functions written in Python, whose bodies `install` puts inside a handler. The first to
see the failure is the innermost; it hands the call over only when no frame above it, within the library, is
another such catcher holding a tensor-like argument (`deferred`): it re-raises instead, and the outermost answers.

The plain public functions (``F.relu``, ``F.softmax``, ``torch.tensordot``...) get no wrapper, which would cost
each call a frame and a repacking of its arguments: `install` recompiles each one's body inside ``try: ...
except <refusals>: <hand over>`` in its own frame (a try costs nothing until it raises), from its source, with
its lines and names as they were. Compiling them takes about 0.3 s, so the code objects are cached beside the
module's .pyc, keyed by the source's size and modification time as the .pyc is."""

import ast
import importlib.util
import inspect
import linecache
import marshal
import os
import sys

from minitorch import _C

# Functions that are not ops: settings, predicates and factories of non-tensors, which PyTorch's
# get_ignored_functions() also leaves alone (a Proxy passed to is_tensor must get False, not a graph node).
IGNORED = frozenset((
    "is_tensor", "is_storage", "is_grad_enabled", "is_inference_mode_enabled", "set_grad_enabled",
    "get_default_dtype", "set_default_dtype", "get_default_device", "set_default_device",
    "manual_seed", "seed", "initial_seed", "get_num_threads", "set_num_threads", "get_num_interop_threads",
    "set_num_interop_threads", "set_printoptions", "save", "load", "from_numpy", "from_dlpack", "can_cast",
    "promote_types", "typename", "compile", "use_deterministic_algorithms",
    "are_deterministic_algorithms_enabled", "is_autocast_enabled", "set_autocast_enabled",
    "get_autocast_dtype", "set_autocast_dtype", "clear_autocast_cache", "is_autocast_cache_enabled",
    "set_autocast_cache_enabled", "is_inference", "is_floating_point_type", "set_float32_matmul_precision",
    "get_float32_matmul_precision", "is_anomaly_enabled", "set_anomaly_enabled", "has_torch_function",
    "handle_torch_function", "has_torch_function_unary", "has_torch_function_variadic",
))  # fmt: skip

# (module, PyTorch's name for it): the torch namespaces, whose plain functions `install` rewrites and whose
# functions overrides' dispatch intercepts inside an extent
NAMESPACES = (
    ("minitorch", "torch"),
    ("minitorch.nn.functional", "torch.nn.functional"),
    ("minitorch.special", "torch.special"),
    ("minitorch.linalg", "torch.linalg"),
    ("minitorch.fft", "torch.fft"),
)

_WRAPPER = "wrapper"  # a catcher whose frame holds the call as its locals `args` and `kwargs`
# code object -> _WRAPPER (`_argcheck`'s wrappers) or the public function whose rewritten body it is
CATCHERS = {}


class HandOver(BaseException):
    """Raised by a Tensor subclass's dispatch (overrides._subclass_dispatch) inside a public function that holds
    the subclass instance as an argument: that function is handed the call, not the op it runs inside (a
    BaseException, so that no `except Exception` in between swallows it)."""


# the errors a refused call may raise, which the catchers look behind
REFUSALS = (AttributeError, RuntimeError, IndexError, ValueError, TypeError, NotImplementedError, HandOver)
NO_ANSWER = object()
# minitorch.overrides' answer for a call holding tensor-likes, (func, candidates, args, kwargs) -> result or
# NO_ANSWER: registered by overrides itself when imported (the first refused call imports it, _C._import_overrides)
handler = None
_VERSION = 3  # of the rewrite (raise it with any change to _compile): a cache of another is recompiled
_CO_VARARGS, _CO_VARKEYWORDS = inspect.CO_VARARGS, inspect.CO_VARKEYWORDS
_CO_NOT_PLAIN = inspect.CO_GENERATOR | inspect.CO_COROUTINE | inspect.CO_ASYNC_GENERATOR


def catches(code):
    """registers the code of a wrapper (`_argcheck`'s) that hands a refused call over from its except clause"""
    CATCHERS[code] = _WRAPPER


def _library(frame):
    name = frame.f_globals.get("__name__")
    return type(name) is str and (name == "minitorch" or name.startswith("minitorch."))


def _tensor_like(v):
    return hasattr(type(v), "__torch_function__") and not isinstance(v, _C.Tensor) and not isinstance(v, type)


def _holds_tensor_like(values):
    for v in values:
        if _tensor_like(v):
            return True
        if type(v) in (list, tuple):
            for e in v:
                if _tensor_like(e):
                    return True
    return False


def _live_subclass(v):
    """whether v is an instance of a Tensor subclass whose __torch_function__ answers now"""
    t = type(v)
    if t is _C.Tensor or not isinstance(v, _C.Tensor) or _C._torch_function_state() != 0:
        return False
    overrides = sys.modules.get("minitorch.overrides")
    return overrides is not None and overrides._subclass_overrides(t)


def holds_overriding(values):
    """_holds_tensor_like, counting instances of the Tensor subclasses that dispatch too"""
    for v in values:
        if _tensor_like(v) or _live_subclass(v):
            return True
        if type(v) in (list, tuple):
            for e in v:
                if _tensor_like(e) or _live_subclass(e):
                    return True
    return False


def _call_of(frame, fn):
    """(args, kwargs) of the call fn's frame runs, as PyTorch's Python functions hand theirs over: the parameters
    without a default by position, the others by keyword (``handle_torch_function(relu, (input,), input,
    inplace=inplace)``); all of them by position before a *args"""
    co, loc = frame.f_code, frame.f_locals
    names, npos = co.co_varnames, co.co_argcount
    first_kw = npos if co.co_flags & _CO_VARARGS else npos - len(fn.__defaults__ or ())
    args = [loc[n] for n in names[:first_kw] if n in loc]
    kwargs = {n: loc[n] for n in names[first_kw : npos + co.co_kwonlyargcount] if n in loc}
    i = npos + co.co_kwonlyargcount
    if co.co_flags & _CO_VARARGS:
        args += list(loc.get(names[i], ()))
        i += 1
    if co.co_flags & _CO_VARKEYWORDS:
        kwargs.update(loc.get(names[i]) or {})
    return tuple(args), kwargs


def _values(frame, how):
    if how is _WRAPPER:
        loc = frame.f_locals
        return list(loc.get("args") or ()) + list((loc.get("kwargs") or {}).values())
    args, kwargs = _call_of(frame, how)
    return list(args) + list(kwargs.values())


def deferred(frame):
    """whether frame or one above it, up to the first outside the library, is a catcher holding a tensor-like
    argument: the call that failed below is that one's to hand over"""
    while frame is not None and _library(frame):
        how = CATCHERS.get(frame.f_code)
        if how is not None and _holds_tensor_like(_values(frame, how)):
            return True
        frame = frame.f_back
    return False


def deferred_subclass(frame):
    """whether frame or one above it, up to the first outside the library, is a catcher holding an argument that
    overrides (a Tensor subclass's instance included): an op the function runs on that instance hands the call
    to it instead (raises HandOver), so that the handler sees ``F.relu``, not ``torch.relu``, as PyTorch's
    test at each public entry has it. Only the subclass path asks, so plain calls pay nothing."""
    while frame is not None and _library(frame):
        how = CATCHERS.get(frame.f_code)
        if how is not None and holds_overriding(_values(frame, how)):
            return True
        frame = frame.f_back
    return False


def _handing_over(frame, fn):
    """whether fn's call is being handed over already above frame (a handler that runs fn itself with the
    tensor-like, as vmap's decompositions do: a second handover would loop)"""
    overrides = sys.modules.get("minitorch.overrides")
    dispatch = getattr(getattr(overrides, "_dispatch", None), "__code__", None)
    while frame is not None:
        if frame.f_code is dispatch:
            public = frame.f_locals.get("public_api")
            if public is fn or getattr(public, "_mt_original", None) is fn:
                return True
        frame = frame.f_back
    return False


def refused():
    """The handler of a rewritten function (its caller, inside its except clause): what a tensor-like argument's
    __torch_function__ answers for the function, or NO_ANSWER (the error is re-raised)."""
    frame = sys._getframe(1)
    fn = CATCHERS[frame.f_code]
    args, kwargs = _call_of(frame, fn)
    if not holds_overriding(list(args) + list(kwargs.values())):
        return NO_ANSWER
    if deferred_subclass(frame.f_back) or _handing_over(frame.f_back, fn):
        return NO_ANSWER
    vals = list(args) + list(kwargs.values())
    vals += [e for v in vals if type(v) in (list, tuple) for e in v]
    return answer(fn, vals, args, kwargs)


def answer(func, candidates, args, kwargs):
    """what overrides' handler answers for func (importing overrides first), or NO_ANSWER"""
    if handler is None:
        _C._import_overrides()
    if handler is None:
        return NO_ANSWER
    return handler(func, candidates, args, kwargs)


# ---------------------------------------------------------------------------------------------------------
# The rewrite

_HANDLER = """
try:
    pass
except __mt_refusals__:
    __mt_answer__ = __mt_refused__()
    if __mt_answer__ is __mt_no_answer__:
        raise
    return __mt_answer__
"""


def _rewritable(fn):
    co = getattr(fn, "__code__", None)
    return (
        type(fn).__name__ == "function"
        and co is not None
        and not co.co_freevars
        and not co.co_flags & _CO_NOT_PLAIN
        and fn.__qualname__ == fn.__name__ == co.co_name
        and getattr(fn, "__wrapped__", None) is None
        and not hasattr(fn, "_parse")
    )


def _source_lines(co):
    lines = linecache.getlines(co.co_filename)
    first = co.co_firstlineno
    if not lines or first > len(lines):
        return None, first
    try:
        block = inspect.getblock(lines[first - 1 :])
    except Exception:  # noqa: BLE001 - a source the tokenizer cannot read is left as it is
        return None, first
    return "".join(block), first


def _compile(fn):
    """fn's code with its body inside the handler, or None where its source cannot be read back"""
    co = fn.__code__
    src, first = _source_lines(co)
    if src is None:
        return None
    indented = src[:1] in (" ", "\t")
    if indented:  # a def inside an if or try at module level: parsed in place, columns kept
        src, first = "if 1:\n" + src, first - 1
    try:
        tree = ast.parse(src)
    except SyntaxError:
        return None
    fdef = tree.body[0].body[0] if indented else tree.body[0]
    if not isinstance(fdef, ast.FunctionDef) or fdef.name != co.co_name:
        return None
    # (the decorators stay: never run, as only the function's code is taken, they keep its first line theirs)
    body = fdef.body
    docstring = isinstance(body[0], ast.Expr) and isinstance(getattr(body[0], "value", None), ast.Constant)
    doc = body[:1] if docstring else []
    rest = body[len(doc) :]
    if not rest:
        return None
    handler = ast.parse(_HANDLER).body[0]
    for node in ast.walk(handler):  # the handler's lines are the def's
        if "lineno" in node._attributes:
            node.lineno = node.end_lineno = fdef.lineno
            node.col_offset = node.end_col_offset = 0
    handler.body = rest
    fdef.body = [*doc, handler]
    ast.increment_lineno(tree, first - 1)
    module = compile(tree, co.co_filename, "exec", dont_inherit=True)
    for c in _codes(module):
        if c.co_name == co.co_name and c.co_firstlineno == co.co_firstlineno:
            return c if _signature(c) == _signature(co) else None
    return None


def _signature(co):
    """what a code object must keep to replace another under the same function object"""
    n = co.co_argcount + co.co_kwonlyargcount
    flags = co.co_flags & (_CO_VARARGS | _CO_VARKEYWORDS)
    return (
        co.co_argcount,
        co.co_kwonlyargcount,
        co.co_posonlyargcount,
        co.co_freevars,
        flags,
        co.co_varnames[:n],
    )


def _codes(module):
    for c in module.co_consts:
        if hasattr(c, "co_code"):
            yield c
            yield from _codes(c)


def _cache_path(source):
    try:
        pyc = importlib.util.cache_from_source(source)
    except (NotImplementedError, ValueError):
        return None
    return pyc[: -len(".pyc")] + ".handover"


def _load(path, stamp):
    try:
        with open(path, "rb") as f:
            data = marshal.load(f)
    except (OSError, EOFError, ValueError, TypeError):
        return {}
    if not isinstance(data, tuple) or len(data) != 3 or data[:2] != (_VERSION, stamp):
        return {}
    return data[2]


def _store(path, stamp, codes):
    tmp = f"{path}.{os.getpid()}.tmp"
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(tmp, "wb") as f:
            marshal.dump((_VERSION, stamp, codes), f)
        os.replace(tmp, path)  # atomic: processes writing at once leave one whole file
    except OSError:
        try:
            os.unlink(tmp)
        except OSError:
            pass


def install():
    """Rewrites the plain public functions of the torch namespaces (see the module docstring)."""
    by_file = {}
    for modname, _ in NAMESPACES:
        mod = sys.modules.get(modname)
        if mod is None:
            continue
        for name, fn in list(vars(mod).items()):
            if name.startswith("_") or name in IGNORED or not _rewritable(fn) or fn.__code__ in CATCHERS:
                continue
            if not (fn.__module__ or "").startswith("minitorch"):
                continue
            by_file.setdefault(fn.__code__.co_filename, {})[id(fn)] = fn
    for source, fns in by_file.items():
        try:
            st = os.stat(source)
        except OSError:
            continue
        stamp = (st.st_mtime_ns, st.st_size)
        path = _cache_path(source)
        cached = _load(path, stamp) if path else {}
        changed = False
        for fn in fns.values():
            key = (fn.__name__, fn.__code__.co_firstlineno)
            code = cached.get(key)
            if code is None and key not in cached:
                code = cached[key] = _compile(fn)
                changed = True
            if code is None:
                continue
            g = fn.__globals__
            g["__mt_refusals__"], g["__mt_refused__"], g["__mt_no_answer__"] = REFUSALS, refused, NO_ANSWER
            fn.__code__ = code
            CATCHERS[code] = fn
        if changed and path:
            _store(path, stamp, cached)
