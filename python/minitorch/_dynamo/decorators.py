"""torch._dynamo's decorators: disable, allow_in_graph, assume_constant_result, mark_dynamic, mark_static,
maybe_mark_dynamic, and graph_break.

``disable(fn)`` makes fn run eagerly even when called from compiled code: inside a capture its call is recorded
as one opaque node (fn runs as written each time the graph runs) instead of being traced into. allow_in_graph
does the same (fn itself becomes a node). assume_constant_result calls fn once at capture time and bakes in
its value.
"""

import functools

from minitorch import _C
from minitorch._dynamo.capture import GraphBreak, current_tracer, is_capturing, proxies_in

__all__ = [
    "allow_in_graph",
    "assume_constant_result",
    "disable",
    "graph_break",
    "mark_dynamic",
    "mark_static",
    "maybe_mark_dynamic",
]


def _opaque(fn, attr):
    """fn wrapped so that a capture records a call of it as one node."""
    if getattr(fn, attr, False):
        return fn

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        tracer = current_tracer()
        if tracer is not None and is_capturing() and not tracer._mt_passthrough and proxies_in(args, kwargs):
            return tracer.create_proxy("call_function", fn, args, kwargs)
        return fn(*args, **kwargs)

    setattr(wrapper, attr, True)
    wrapper._torchdynamo_orig_callable = fn
    return wrapper


def disable(fn=None, recursive=True, *, reason=None, wrapping=True):
    """fn (or, used as @disable(...), the decorated function) run eagerly, also from compiled code. A Module
    is compiled-proof through its forward."""
    if fn is None:
        return functools.partial(disable, recursive=recursive, reason=reason, wrapping=wrapping)
    from minitorch._dynamo.eval_frame import CompiledFunction
    from minitorch.nn.modules.module import Module

    if isinstance(fn, CompiledFunction):
        fn = fn._torchdynamo_orig_callable
    if isinstance(fn, Module):
        fn.forward = _opaque(fn.forward, "_torchdynamo_disable")
        return fn
    if not callable(fn):
        raise AssertionError("fn must be callable")  # noqa: TRY004  (PyTorch's class and words)
    return _opaque(fn, "_torchdynamo_disable")


def allow_in_graph(fn):
    """fn recorded as a single node of captured graphs (not traced into)."""
    if isinstance(fn, (list, tuple)):
        return [allow_in_graph(x) for x in fn]
    if not callable(fn):
        raise TypeError("allow_in_graph expects a callable")
    return _opaque(fn, "_torchdynamo_allow_in_graph")


def assume_constant_result(fn):
    """fn's result is taken as a constant of the graph (computed once, at capture time, on the real values)."""

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        tracer = current_tracer()
        if tracer is not None and is_capturing() and not tracer._mt_passthrough and proxies_in(args, kwargs):
            from minitorch.fx.node import map_aggregate
            from minitorch.fx.proxy import Proxy

            def real(a):
                return tracer.values[a.node] if isinstance(a, Proxy) else a

            return fn(*map_aggregate(args, real), **map_aggregate(kwargs, real))
        return fn(*args, **kwargs)

    wrapper._dynamo_marked_constant = True
    return wrapper


def _check_tensor(t, attr):
    if not isinstance(t, _C.Tensor):
        # PyTorch's class and words: it sets the attribute on whatever it is given
        raise AttributeError(f"'{type(t).__name__}' object has no attribute '{attr}'")  # noqa: TRY004


def mark_dynamic(t, index, *, min=None, max=None, hint_override=None, specialize_on=None):
    """Marks dim(s) of t dynamic: the first capture with t as an input is size-generic. Recorded on the
    tensor as ``_dynamo_dynamic_indices``, as PyTorch does (dims are not checked here, as there)."""
    if proxies_in((t,), {}):
        return
    _check_tensor(t, "_dynamo_dynamic_indices")
    indices = [index] if isinstance(index, int) else list(index)
    if not hasattr(t, "_dynamo_dynamic_indices"):
        t._dynamo_dynamic_indices = set()
    t._dynamo_dynamic_indices.update(indices)
    if min is not None or max is not None:
        ranges = getattr(t, "_dynamo_dynamic_range", set())
        ranges.update((i, min, max) for i in indices)
        t._dynamo_dynamic_range = ranges


def maybe_mark_dynamic(t, index):
    """As mark_dynamic (a hint PyTorch may ignore; we follow it)."""
    mark_dynamic(t, index)


def mark_static(t, index=None):
    """Marks t (or dims of it) static: recorded as ``_dynamo_static_indices``; a marked-dynamic dim is unmarked."""
    _check_tensor(t, "_dynamo_static_indices")
    indices = range(t.dim()) if index is None else ([index] if isinstance(index, int) else list(index))
    if not hasattr(t, "_dynamo_static_indices"):
        t._dynamo_static_indices = set()
    t._dynamo_static_indices.update(indices)
    dyn = getattr(t, "_dynamo_dynamic_indices", None)
    if dyn:
        dyn.difference_update(indices)


def graph_break(msg=""):
    """A user-placed graph break: inside a capture the compiled callable is split there into the graphs before
    and after it (fullgraph=True raises Unsupported with PyTorch's words); outside one, nothing."""
    tracer = current_tracer()
    if tracer is not None and is_capturing() and not tracer._mt_passthrough:
        raise GraphBreak(
            "Call to `torch._dynamo.graph_break()`",
            f"User-inserted graph break. Message: {msg or None}",
            ["Remove the `torch._dynamo.graph_break()` call."],
        )
