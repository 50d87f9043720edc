"""torch.jit: script, trace, ScriptModule/ScriptFunction, save/load of what we saved, and the decorators and
helpers TorchScript code calls.

minitorch has no TorchScript compiler: ``script`` and ``trace`` capture Python with fx (symbolic tracing for
script, tracing on example inputs for trace) and run the generated Python; what cannot be captured runs
eagerly (see _script.py and _trace.py for exactly what is captured).
"""

import contextlib as _contextlib
import typing as _typing
import warnings

from minitorch.jit import annotations, frontend  # noqa: F401
from minitorch.jit._async import Future, fork, wait
from minitorch.jit._freeze import freeze, optimize_for_inference, run_frozen_optimizations
from minitorch.jit._script import (
    RecursiveScriptModule,
    ScriptFunction,
    ScriptModule,
    export,
    ignore,
    interface,
    is_scripting,
    script,
    script_method,
    unused,
)
from minitorch.jit._serialization import load, save
from minitorch.jit._trace import (
    TopLevelTracedModule,
    TracedModule,
    TracerWarning,
    TracingCheckError,
    is_tracing,
    trace,
    trace_module,
)
from minitorch.jit.annotations import annotate

__all__ = [
    "Attribute",
    "CompilationUnit",
    "Error",
    "Final",
    "Future",
    "RecursiveScriptModule",
    "ScriptFunction",
    "ScriptModule",
    "ScriptWarning",
    "TopLevelTracedModule",
    "TracedModule",
    "TracerWarning",
    "TracingCheckError",
    "annotate",
    "enable_onednn_fusion",
    "export",
    "export_opnames",
    "fork",
    "freeze",
    "fuser",
    "ignore",
    "interface",
    "is_scripting",
    "is_tracing",
    "isinstance",
    "load",
    "onednn_fusion_enabled",
    "optimize_for_inference",
    "optimized_execution",
    "run_frozen_optimizations",
    "save",
    "script",
    "script_if_tracing",
    "script_method",
    "set_fusion_strategy",
    "strict_fusion",
    "trace",
    "trace_module",
    "unused",
    "wait",
]

Final = _typing.Final


class Error(RuntimeError):
    """What TorchScript raises for an error inside scripted code (torch.jit.Error)."""


class ScriptWarning(Warning):
    """A warning about scripted code."""


def Attribute(value, type):
    """Declares a ScriptModule attribute's type; in Python it is the value."""
    return value


def script_if_tracing(fn):
    """fn (scripted lazily by PyTorch when called during tracing; here traced like any other code)."""
    return fn


_script_if_tracing = script_if_tracing


def _overload(func):
    """Declares one typed signature of a function TorchScript compiles per overload (torchvision's ops use it);
    in Python the last definition of the name is what runs, so the declaration is returned unchanged."""
    return func


def _overload_method(func):
    """_overload for a method."""
    return func


def _unwrap_optional(x):
    """x, refined from Optional[T] to T (TorchScript's assertion that it is not None)."""
    if x is None:
        raise AssertionError("Unwrapping null optional")
    return x


class CompilationUnit:
    """TorchScript compilation units compile TorchScript source, which minitorch cannot do."""

    def __init__(self, lang=None, _frames_up=0):
        if lang is not None:
            raise RuntimeError(
                "torch.jit.CompilationUnit: compiling TorchScript source is not supported by minitorch"
            )


_fusion = {"strategy": [("STATIC", 2), ("DYNAMIC", 10)], "onednn": False}


def set_fusion_strategy(strategy):
    """Sets the fusion strategy (kept for scripts that set it; nothing here fuses); returns the previous one."""
    old, _fusion["strategy"] = _fusion["strategy"], list(strategy)
    return old


def enable_onednn_fusion(enabled):
    """Turns TorchScript's oneDNN fusion on or off (recorded; nothing here fuses)."""
    _fusion["onednn"] = bool(enabled)


def onednn_fusion_enabled():
    """Whether enable_onednn_fusion(True) was called."""
    return _fusion["onednn"]


@_contextlib.contextmanager
def optimized_execution(should_optimize):
    """Context manager for TorchScript's optimizing executor (no effect here)."""
    yield


@_contextlib.contextmanager
def fuser(name):
    """Context manager choosing TorchScript's fuser ("fuser0", "fuser1", "fuser2", "none"; no effect here)."""
    if name not in ("fuser0", "fuser1", "fuser2", "fuser3", "none"):
        raise Exception(f"unrecognized fuser option (name: {name})")  # noqa: TRY002  (PyTorch's class)
    yield


class strict_fusion:
    """Context manager asserting everything inside fuses (TorchScript only; no effect here)."""

    def __enter__(self):
        if not is_scripting():
            warnings.warn("Only works in script mode", stacklevel=2)

    def __exit__(self, *exc):
        return False


def export_opnames(m):
    """The names of the operations a captured module's graph calls."""
    graph = getattr(m, "graph", None)
    if graph is None:
        return []
    from minitorch.fx._names import qualified_name

    names = set()
    for n in graph.nodes:
        if n.op == "call_function":
            names.add(qualified_name(n.target))
        elif n.op == "call_method":
            names.add(f"Tensor.{n.target}")
        elif n.op == "call_module":
            names.add(type(m.get_submodule(n.target)).__name__)
    return sorted(names)


def _isinstance(obj, target_type):
    origin = _typing.get_origin(target_type)
    args = _typing.get_args(target_type)
    if target_type is _typing.Any:
        return True
    if origin is None:
        return _builtins_isinstance(obj, target_type)
    if origin is _typing.Union:
        return any(_isinstance(obj, t) for t in args)
    if origin is list:
        return _builtins_isinstance(obj, list) and (not args or all(_isinstance(x, args[0]) for x in obj))
    if origin is dict:
        return _builtins_isinstance(obj, dict) and (
            not args or all(_isinstance(k, args[0]) and _isinstance(v, args[1]) for k, v in obj.items())
        )
    if origin is tuple:
        if not _builtins_isinstance(obj, tuple):
            return False
        if not args:
            return True
        if len(args) == 2 and args[1] is Ellipsis:
            return all(_isinstance(x, args[0]) for x in obj)
        return len(obj) == len(args) and all(_isinstance(x, t) for x, t in zip(obj, args))
    return _builtins_isinstance(obj, origin)


_builtins_isinstance = isinstance


def isinstance(obj, target_type):
    """isinstance that understands typing containers (List[int], Dict[str, Tensor], Optional[...], ...), as
    TorchScript refines types."""
    return _isinstance(obj, target_type)
