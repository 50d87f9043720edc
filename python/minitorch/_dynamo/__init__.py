"""torch._dynamo for minitorch: graph capture for torch.compile (capture by a concrete-valued torch.fx trace,
guards, recompiles, graph breaks), explain, reset, the backend registry and config.

What differs from PyTorch's Dynamo: capture traces calls on Proxies instead of interpreting bytecode, so a
graph break splits the function between statements of its source (resume.py) rather than between bytecode
instructions, and a break inside a loop or try runs it eagerly as a whole; ``print``, ``.item()`` and clock reads
are graph breaks, as in Dynamo; other Python side effects (appending to a list, assigning attributes, globals)
are recorded around the capture and replayed after each call (side_effects.py), and a call of a C method whose
writes cannot be recorded is a graph break; shapes are specialized and guarded (or size-generic with
dynamic=True/automatic dynamic)."""

from minitorch._dynamo import config, exc, utils
from minitorch._dynamo.backends import list_backends, lookup_backend, register_backend
from minitorch._dynamo.capture import is_capturing as is_compiling
from minitorch._dynamo.decorators import (
    allow_in_graph,
    assume_constant_result,
    disable,
    graph_break,
    mark_dynamic,
    mark_static,
    maybe_mark_dynamic,
)
from minitorch._dynamo.eval_frame import CompiledFunction, OptimizedModule, reset
from minitorch._dynamo.explain import ExplainOutput, explain

__all__ = [
    "CompiledFunction",
    "ExplainOutput",
    "OptimizedModule",
    "allow_in_graph",
    "assume_constant_result",
    "config",
    "disable",
    "exc",
    "explain",
    "graph_break",
    "is_compiling",
    "list_backends",
    "lookup_backend",
    "mark_dynamic",
    "mark_static",
    "maybe_mark_dynamic",
    "optimize",
    "register_backend",
    "reset",
    "run",
    "utils",
]


def optimize(
    backend="inductor",
    *,
    nopython=False,
    dynamic=None,
    disable=False,
    guard_export_fn=None,
    guard_fail_fn=None,
    rebuild_ctx=None,
):
    """The older spelling of torch.compile: ``optimize(backend)(fn)``."""
    from minitorch._dynamo.api import compile as _compile

    def wrap(fn):
        return _compile(fn, fullgraph=nopython, dynamic=dynamic, backend=backend, disable=disable)

    return wrap


def run(fn=None):
    """Runs fn with already-compiled graphs only (no new captures): the compiled callable's original code
    otherwise, as the "eager_on_recompile" stance."""
    from minitorch._dynamo.eval_frame import set_stance

    if fn is None:
        return set_stance("eager_on_recompile")
    import functools

    @functools.wraps(fn)
    def inner(*a, **k):
        with set_stance("eager_on_recompile"):
            return fn(*a, **k)

    return inner
