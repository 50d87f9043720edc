"""torch.jit.script and the ScriptModule/ScriptFunction classes that script and trace return.

What is captured: ``script`` records a module's forward (or a function) with fx symbolic tracing; when that
succeeds the result runs fx's generated code for it. ``.graph`` is then a TorchScript-IR view of the capture
(jit._ir: torch._C.Graph's API and text format) and ``.code`` TorchScript-style code; the fx Graph stays
private (``_mt_fx_graph``) for our own passes and jit.save. Python that a symbolic trace cannot follow (control
flow on tensor values, iteration over tensors, data-dependent Python) makes the result run the original Python
eagerly instead: ``.code`` is then the function's source, ``.graph`` is None and ``captured`` is False. Results equal eager either way. Submodules are shared with the original module, so
parameters, buffers and the state dict are the original's.
"""

import functools
import inspect
import os
import sys
import textwrap
import threading
import types
import typing
import warnings

from minitorch import _C
from minitorch.fx._symbolic_trace import Tracer
from minitorch.fx.graph_module import _exec_forward
from minitorch.fx.proxy import TraceError
from minitorch.jit import _ir
from minitorch.jit._schema import Schema
from minitorch.jit.frontend import NotSupportedError, check_syntax
from minitorch.nn.modules.module import Module

__all__ = [
    "RecursiveScriptModule",
    "ScriptFunction",
    "ScriptModule",
    "export",
    "ignore",
    "interface",
    "is_scripting",
    "script",
    "script_method",
    "unused",
]

_state = threading.local()

# Python-level reasons a symbolic trace stops; script then falls back to running the Python eagerly
_FALLBACK_ERRORS = (
    TraceError,
    NotImplementedError,
    TypeError,
    RuntimeError,
    AttributeError,
    ValueError,
    IndexError,
    KeyError,
)


def is_scripting():
    """True while script is capturing a function or running one it could not capture (as PyTorch's inside
    compiled TorchScript); False in ordinary Python."""
    return getattr(_state, "scripting", 0) > 0


class _Scripting:
    def __enter__(self):
        _state.scripting = getattr(_state, "scripting", 0) + 1

    def __exit__(self, *exc):
        _state.scripting -= 1


# ---------------------------------------------------------------- decorators


class FunctionModifiers:
    """How script treats a decorated function (the ``_torchscript_modifier`` attribute)."""

    UNUSED = "unused (ignored and replaced with raising of an exception)"
    IGNORE = "ignore (leave as a call to Python, cannot be torch.jit.save'd)"
    EXPORT = "export (compile this function even if nothing calls it)"
    DEFAULT = "default (compile if called from a exported function / forward)"
    COPY_TO_SCRIPT_WRAPPER = "if this method is not scripted, copy the python method onto the scripted model"
    _DROP = "_drop (function is fully ignored, declaration can be unscriptable)"


def export(fn):
    """Marks a method to be compiled although forward does not call it; here it stays callable on the
    scripted module."""
    fn._torchscript_modifier = FunctionModifiers.EXPORT
    return fn


def unused(fn):
    """Marks a method that scripted code never calls (TorchScript replaces it by a raise)."""
    if isinstance(fn, property):
        prop = fn
        prop.fget._torchscript_modifier = FunctionModifiers.UNUSED
        if prop.fset:
            prop.fset._torchscript_modifier = FunctionModifiers.UNUSED
        return prop
    fn._torchscript_modifier = FunctionModifiers.UNUSED
    return fn


def ignore(drop=False, **kwargs):
    """Marks a function to stay Python (``@torch.jit.ignore`` or ``@torch.jit.ignore(drop=True)``)."""
    if callable(drop):
        drop._torchscript_modifier = FunctionModifiers.IGNORE
        return drop
    if not isinstance(drop, bool):
        raise RuntimeError(f"Argument to @torch.jit.ignore must be a bool or a function but got {drop}")  # noqa: TRY004  (PyTorch's class)
    drop_on_export = kwargs.pop("drop_on_export", None)
    if drop_on_export is not None:
        drop = drop_on_export

    def decorator(fn):
        fn._torchscript_modifier = FunctionModifiers.UNUSED if drop else FunctionModifiers.IGNORE
        return fn

    return decorator


def script_method(fn):
    """The legacy ScriptModule method decorator: the method is kept as Python."""
    warnings.warn(
        "`torch.jit.script_method` is deprecated. Please switch to `torch.compile` or `torch.export`.",
        FutureWarning,
        stacklevel=2,
    )
    return fn


def interface(obj):
    """Declares a TorchScript interface type; here the class itself."""
    if not inspect.isclass(obj):
        raise RuntimeError("interface must be applied to a class")
    return obj


# ---------------------------------------------------------------- capture


class _ConstantTracer(Tracer):
    """A Tracer that keeps tensors created inside the traced code in its own ``constants`` (get_attr
    targets _tensor_constantN) instead of setting them on the traced module."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.constants = {}

    def create_node(self, kind, target, args, kwargs, name=None, type_expr=None):
        node = super().create_node(kind, target, args, kwargs, name, type_expr)
        source = _user_frame()
        if source is not None:
            node.meta["_mt_source"] = source
        return node

    def is_leaf_module(self, m, module_qualified_name):
        """Standard nn modules and modules already scripted or traced (kept as calls, as PyTorch keeps
        ScriptModule calls opaque in a trace)."""
        return isinstance(m, ScriptModule) or super().is_leaf_module(m, module_qualified_name)

    def create_arg(self, a):
        if isinstance(a, _C.Tensor) and not _is_member(self.root, a) and id(a) not in self.tensor_attrs:
            for name, c in self.constants.items():
                if c is a:
                    return self.create_node("get_attr", name, (), {})
            name = f"_tensor_constant{len(self.constants)}"
            self.constants[name] = a
            return self.create_node("get_attr", name, (), {})
        return super().create_arg(a)


_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _user_frame():
    """(file, line, column, function) of the innermost frame outside minitorch: where the captured code made
    the node (the '# file:line:col' of the IR's nodes; column 0 where Python does not say)."""
    frame = sys._getframe(2)
    while frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(_PACKAGE_DIR + os.sep):
        frame = frame.f_back
    if frame is None:
        return None
    # the span of the expression running (Python 3.11's positions): its column, and where a script fetches the
    # modules it calls (jit._ir orders them as Python evaluates them)
    line, col, end_line, end_col = frame.f_lineno, 0, None, None
    positions = getattr(frame.f_code, "co_positions", None)
    if positions is not None:
        for i, pos in enumerate(positions()):
            if i == frame.f_lasti // 2:
                if None not in pos:
                    line, end_line, col, end_col = pos
                break
    return (frame.f_code.co_filename, line, col, frame.f_code.co_name, end_line, end_col)


def _is_member(root, t):
    return any(t is p for _, p in root.named_parameters()) or any(t is b for _, b in root.named_buffers())


def _source_of(fn):
    try:
        return textwrap.dedent(inspect.getsource(fn))
    except (OSError, TypeError):
        return ""


_MODULE_INTERNALS = frozenset((
    "training", "_parameters", "_buffers", "_non_persistent_buffers_set", "_modules", "_forward_pre_hooks",
    "_forward_pre_hooks_with_kwargs", "_forward_hooks", "_forward_hooks_with_kwargs",
    "_forward_hooks_always_called", "_state_dict_hooks", "_load_state_dict_pre_hooks",
    "_load_state_dict_post_hooks",
))  # fmt: skip


class ScriptModule(Module):
    """Base of the modules script and trace return (also subclassable, as PyTorch's legacy API)."""

    def __init__(self):
        super().__init__()

    # save(f, _extra_files=None): installed by jit._serialization (torch.jit.save)

    def define(self, src):
        """Compiling TorchScript source is not supported here (RuntimeError)."""
        raise RuntimeError("ScriptModule.define: compiling TorchScript source is not supported by minitorch")


class RecursiveScriptModule(ScriptModule):
    """A scripted or traced module. It shares the original's parameters, buffers and submodules (its state
    dict is the original's); forward runs the captured code when there is one (``captured``), else the
    original forward. Other methods and attributes of the original stay reachable."""

    _mt_scripted = (
        True  # its eager forward counts as scripted code (is_scripting()); traced modules' does not
    )

    def __init__(self, orig, graph=None, constants=None, code=None, *, original_name=None):
        super().__init__()
        d = self.__dict__
        d["_parameters"] = dict(orig._parameters)
        d["_buffers"] = dict(orig._buffers)
        d["_non_persistent_buffers_set"] = set(orig._non_persistent_buffers_set)
        d["_modules"] = {k: self._mt_wrap_child(v) for k, v in orig._modules.items()}
        d["training"] = orig.training
        for k, v in orig.__dict__.items():
            if k not in _MODULE_INTERNALS and not k.startswith("_mt_"):
                d.setdefault(k, v)
        d["_mt_cls"] = type(orig)
        d["original_name"] = original_name or type(orig).__name__
        d["_mt_constants"] = dict(constants or {})
        d.update(d["_mt_constants"])
        d["_mt_graph"] = graph
        d["_mt_code"] = code
        d["_mt_ir"] = {}
        d["_mt_forward"] = None
        if graph is not None:
            self._mt_compile()

    @classmethod
    def _mt_wrap_child(cls, m):
        """A user-defined submodule as a script module of its own (running its Python, with .code its source),
        as PyTorch's scripted and traced modules hold script modules all the way down; standard nn modules and
        script modules stay as they are."""
        if m is None or isinstance(m, ScriptModule):
            return m
        mod = type(m).__module__ or ""
        if mod == "minitorch.nn" or mod.startswith("minitorch.nn."):
            return m
        child_cls = cls._mt_child_class()
        fwd = getattr(type(m), "forward", None)
        return child_cls(m, code=_source_of(fwd) if fwd is not None else "")

    @classmethod
    def _mt_child_class(cls):
        return RecursiveScriptModule

    def __getstate__(self):
        # the compiled forward and the IR views are rebuilt from the graph when unpickled
        return {k: v for k, v in self.__dict__.items() if k not in ("_mt_forward", "_mt_ir")}

    def __setstate__(self, state):
        Module.__setstate__(self, state)
        self.__dict__["_mt_forward"] = None
        self.__dict__["_mt_ir"] = {}
        if self.__dict__.get("_mt_graph") is not None:
            self._mt_compile()

    def _mt_compile(self):
        graph = self.__dict__["_mt_graph"]
        py = graph.python_code(root_module="self")
        self.__dict__["_mt_code"] = None
        self.__dict__["_mt_fx_code"] = py.src
        self.__dict__["_mt_forward"] = _exec_forward(py.src, py.globals)

    @property
    def captured(self):
        """Whether forward runs captured code (False: the original Python, run eagerly)."""
        return self.__dict__["_mt_graph"] is not None

    @property
    def _mt_fx_graph(self):
        """The captured fx Graph of forward (what runs; our passes and jit.save read it), or None."""
        return self.__dict__["_mt_graph"]

    def _mt_view(self, inline):
        views = self.__dict__.setdefault("_mt_ir", {})
        if inline not in views:
            views[inline] = _ir.build_graph(
                self.__dict__["_mt_graph"],
                traced=not self._mt_scripted,
                root=self,
                constants=self.__dict__["_mt_constants"],
                inline=inline,
            )
        return views[inline]

    @property
    def graph(self):
        """forward's capture as TorchScript IR (torch._C.Graph's API, printed in its text format), or None when
        forward runs eagerly."""
        return None if self.__dict__["_mt_graph"] is None else self._mt_view(False)

    @property
    def inlined_graph(self):
        """graph with the common standard submodules' calls expanded into their ops (jit._ir)."""
        return None if self.__dict__["_mt_graph"] is None else self._mt_view(True)

    @property
    def code(self):
        """The captured forward as TorchScript-style code, or forward's source when it runs eagerly."""
        if self.__dict__["_mt_graph"] is None:
            return self.__dict__["_mt_code"]
        return _ir.graph_code(self.graph, "forward")

    @property
    def code_with_constants(self):
        """(code, {'c0': tensor, ...}): code and the tensors its CONSTANTS.cN name."""
        if self.__dict__["_mt_graph"] is None:
            return self.code, {}
        return self.code, _ir.code_constants(self.graph)

    def forward(self, *args, **kwargs):
        """The captured code on the inputs, or the original forward when nothing was captured."""
        fwd = self.__dict__["_mt_forward"]
        if fwd is not None:
            return fwd(self, *args, **kwargs)
        if not self._mt_scripted:
            return self.__dict__["_mt_cls"].forward(self, *args, **kwargs)
        with _Scripting():
            return self.__dict__["_mt_cls"].forward(self, *args, **kwargs)

    def __getattr__(self, name):
        try:
            return super().__getattr__(name)
        except AttributeError:
            pass
        cls = self.__dict__.get("_mt_cls")
        if cls is not None and not name.startswith("__"):
            attr = inspect.getattr_static(cls, name, None)
            if isinstance(attr, (types.FunctionType, staticmethod, classmethod, property)):
                return attr.__get__(self, type(self))
            if attr is not None:
                return attr
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def _get_name(self):
        return "RecursiveScriptModule"

    def extra_repr(self):
        """original_name=<the scripted class>."""
        return f"original_name={self.__dict__['original_name']}"

    def __repr__(self):
        return Module.__repr__(self)


class ScriptFunction:
    """A scripted or traced function: callable, with ``graph``/``code`` of what was captured (or the source
    and graph None when it runs eagerly), ``name``, ``qualified_name`` and ``save``."""

    def __init__(self, fn, gm=None, code=None, name=None, traced=False):
        self._fn = fn
        self._gm = gm
        self._traced = traced
        self._ir = None
        self._code = code if code is not None else (None if gm is not None else _source_of(fn))
        self.name = name or getattr(fn, "__name__", "fn")
        self.qualified_name = f"__torch__.{self.name}"
        self.__name__ = self.name
        self.__qualname__ = getattr(fn, "__qualname__", self.name)
        self.__doc__ = getattr(fn, "__doc__", None)
        self.__wrapped__ = fn
        self._schema = None  # set by script (traced functions take nested inputs, untyped)

    def __call__(self, *args, **kwargs):
        if self._schema is not None:
            self._schema.check(args, kwargs)
        if self._gm is not None:
            return self._gm(*args, **kwargs)
        with _Scripting():
            return self._fn(*args, **kwargs)

    @property
    def captured(self):
        """Whether calls run captured code (False: the Python function runs eagerly)."""
        return self._gm is not None

    @property
    def _mt_fx_graph(self):
        """The captured fx Graph (what runs; our passes and jit.save read it), or None."""
        return self._gm.graph if self._gm is not None else None

    @property
    def graph(self):
        """The capture as TorchScript IR (torch._C.Graph's API and text format), or None when the function runs
        eagerly."""
        if self._gm is None:
            return None
        if self._ir is None:
            consts = {
                n.target: getattr(self._gm, n.target) for n in self._gm.graph.nodes if n.op == "get_attr"
            }
            self._ir = _ir.build_graph(self._gm.graph, traced=self._traced, constants=consts)
        return self._ir

    @property
    def inlined_graph(self):
        """The graph (a function calls no submodules to inline)."""
        return self.graph

    @property
    def code(self):
        """The capture as TorchScript-style code, or the function's source when it runs eagerly."""
        if self._code is not None:
            return self._code
        return _ir.graph_code(self.graph, self.name)

    @property
    def code_with_constants(self):
        """(code, {'c0': tensor, ...}): code and the tensors its CONSTANTS.cN name."""
        return self.code, ({} if self._gm is None else _ir.code_constants(self.graph))

    @property
    def schema(self):
        """TorchScript's schema from the annotations (``f(Tensor x, int n=2) -> Tensor``); for a loaded function,
        name(argument names)."""
        if self._schema is not None:
            return self._schema
        if self._fn is not None:
            params = list(inspect.signature(self._fn).parameters)
        else:
            params = [n.target for n in self._gm.graph.nodes if n.op == "placeholder"]
        return f"{self.name}({', '.join(params)})"

    def __repr__(self):
        return f"<torch.jit.ScriptFunction object {self.name}>"

    def __get__(self, obj, objtype=None):
        # a scripted function assigned as a class attribute binds like a method
        if obj is None:
            return self
        return functools.partial(self, obj)


# ---------------------------------------------------------------- script


def _check_scriptable_function(fn):
    if fn.__name__ == "<lambda>":
        code = fn.__code__
        raise _LambdaNotSupported(
            None, f"Expected a single top-level function: {code.co_filename}:{code.co_firstlineno}"
        )


class _LambdaNotSupported(NotSupportedError, RuntimeError):
    """A lambda passed to script: PyTorch raises RuntimeError with these words; the class is also
    torch.jit.frontend.NotSupportedError, the frontend's kind of refusal."""

    def __str__(self):
        return self.msg


def _user_code(obj):
    # minitorch's own functions and modules are not written for TorchScript's frontend (PyTorch's are)
    mod = getattr(obj, "__module__", None) or ""
    return not (mod == "minitorch" or mod.startswith("minitorch."))


def _may_be_none(fn, skip_self=False):
    """Whether a parameter of fn may be None (annotated Optional, or None by default). A symbolic trace passes
    a Proxy there, which `is None` never matches: the capture would keep one branch of TorchScript's Optional
    refinement (`if mask is None: ...`) for every call, so such a function runs its Python instead."""
    try:
        params = list(inspect.signature(fn).parameters.values())
    except (TypeError, ValueError):
        return False
    if skip_self:
        params = params[1:]
    union_types = tuple(t for t in (typing.Union, getattr(types, "UnionType", None)) if t is not None)
    for p in params:
        if p.default is None:
            return True
        ann = p.annotation
        if isinstance(ann, str):
            if "Optional" in ann or "None" in ann:
                return True
        elif typing.get_origin(ann) in union_types and type(None) in typing.get_args(ann):
            return True
    return False


def _trace_function(fn):
    """fx's symbolic trace of fn through _ConstantTracer (so its nodes carry where the code made them), as a
    GraphModule holding the tensors the code created."""
    from minitorch.fx.graph_module import GraphModule

    tracer = _ConstantTracer()
    graph = tracer.trace(fn)
    for k, v in tracer.constants.items():
        setattr(tracer.root, k, v)
    return GraphModule(tracer.root, graph, fn.__name__)


def _script_function(fn):
    _check_scriptable_function(fn)
    if _user_code(fn):
        check_syntax(fn)
    try:
        if _may_be_none(fn):
            raise TraceError("a parameter may be None")
        with _Scripting():
            gm = _trace_function(fn)
    except _FALLBACK_ERRORS:
        gm = None
    out = ScriptFunction(fn, gm)
    try:
        out._schema = Schema(fn, out.name)
    except (TypeError, ValueError):  # a callable without a signature
        out._schema = None
    return out


def _compiled_methods(cls):
    """The methods script compiles: forward and the @torch.jit.export ones (not @ignore/@unused)."""
    out = []
    for name, attr in vars(cls).items():
        if not isinstance(attr, types.FunctionType):
            continue
        modifier = getattr(attr, "_torchscript_modifier", FunctionModifiers.DEFAULT)
        if (
            name == "forward"
            and modifier == FunctionModifiers.DEFAULT
            or modifier == FunctionModifiers.EXPORT
        ):
            out.append(attr)
    return out


def _script_module(mod):
    if _user_code(type(mod)):
        for fn in _compiled_methods(type(mod)):
            check_syntax(fn)
    tracer = _ConstantTracer()
    try:
        fwd = getattr(type(mod), "forward", None)
        if fwd is not None and _may_be_none(fwd, skip_self=True):
            raise TraceError("a parameter of forward may be None")
        with _Scripting():
            graph = tracer.trace(mod)
    except _FALLBACK_ERRORS:
        fwd = getattr(type(mod), "forward", None)
        return RecursiveScriptModule(mod, code=_source_of(fwd) if fwd is not None else "")
    return RecursiveScriptModule(mod, graph, tracer.constants)


def script(obj, optimize=None, _frames_up=0, _rcb=None, example_inputs=None):
    """A ScriptModule (for an nn.Module) or ScriptFunction (for a function) that computes what obj computes:
    through captured code when a symbolic trace can follow it, else by running the Python (see the module
    docstring). ScriptModules and ScriptFunctions are returned unchanged; classes, dicts and lists too."""
    warnings.warn(
        "`torch.jit.script` is deprecated. Please switch to `torch.compile` or `torch.export`.",
        FutureWarning,
        stacklevel=2,
    )
    if optimize is not None:
        warnings.warn(
            "`optimize` is deprecated and has no effect. Use `with torch.jit.optimized_execution()` instead",
            FutureWarning,
            stacklevel=2,
        )
    if isinstance(obj, (ScriptModule, ScriptFunction)):
        return obj
    if isinstance(obj, Module):
        return _script_module(obj)
    if inspect.isclass(obj) or isinstance(obj, (dict, list)):
        return obj
    if isinstance(obj, types.FunctionType):
        return _script_function(obj)
    if isinstance(obj, types.MethodType):
        raise NotSupportedError(None, "torch.jit.script: script the module, not one of its bound methods")
    if callable(obj):
        return obj
    raise RuntimeError(f"torch.jit.script: cannot compile an object of type {type(obj).__name__}")
