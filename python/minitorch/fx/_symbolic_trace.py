"""torch.fx symbolic tracing: Tracer, symbolic_trace, wrap, PH and the concrete_args checks.

A trace calls the module's forward with Proxies for its inputs while (1) the torch namespaces dispatch
__torch_function__ (minitorch.overrides), so ``torch.add``/``F.relu`` on a Proxy records a call_function node;
(2) ``nn.Module.__call__`` is patched, so calling a leaf module records call_module and calling any other
module traces into its forward; (3) ``nn.Module.__getattr__`` is patched, so reading a parameter records
get_attr. Everything is restored when the trace ends, also when it raises.
"""

import builtins
import functools
import inspect
import math
import sys
import threading
import types
import warnings

from minitorch import _C, overrides
from minitorch.fx.graph import Graph
from minitorch.fx.node import _side_effectful_functions, has_side_effect
from minitorch.fx.proxy import Proxy, TracerBase
from minitorch.nn.modules.container import Sequential
from minitorch.nn.modules.module import Module
from minitorch.nn.parameter import Parameter

__all__ = ["PH", "Tracer", "is_fx_tracing", "symbolic_trace", "wrap"]

_orig_module_call = Module.__call__
_orig_module_getattr = Module.__getattr__
_tracing = threading.local()
_trace_lock = threading.RLock()

_CO_VARARGS = inspect.CO_VARARGS
_CO_VARKEYWORDS = inspect.CO_VARKEYWORDS


def is_fx_tracing():
    """True inside a symbolic trace."""
    return getattr(_tracing, "depth", 0) > 0


class PHBase:
    """Marks an input in concrete_args that stays symbolic (a placeholder)."""

    def __repr__(self):
        return "PH"


PH = PHBase()


@has_side_effect
def _assert_is_none(value, msg):
    if value is not None:
        raise AssertionError(msg)


@has_side_effect
def _assert(condition, message):
    """torch._assert: raise AssertionError(message) unless condition holds (kept by dead-code elimination)."""
    if not condition:
        raise AssertionError(message)


class _Patcher:
    """Attribute and dict-entry patches undone in reverse order."""

    def __init__(self):
        self._undo = []

    def patch_attr(self, obj, name, value):
        had = name in vars(obj)
        old = vars(obj).get(name)
        setattr(obj, name, value)
        self._undo.append(lambda: setattr(obj, name, old) if had else delattr(obj, name))

    def patch_dict(self, d, name, value):
        had = name in d
        old = d.get(name)
        d[name] = value
        self._undo.append(lambda: d.__setitem__(name, old) if had else d.pop(name, None))

    def restore(self):
        while self._undo:
            self._undo.pop()()


# (id(globals), name) -> globals: the functions wrap() registered, patched in their module during a trace
_wrapped_fns = {}


def wrap(fn_or_name):
    """Called at module scope, makes calls to the named global function (or the function itself) in that
    module appear as call_function nodes during tracing instead of being traced through, e.g. for functions
    with control flow or for ``len``."""
    if not callable(fn_or_name) and not isinstance(fn_or_name, str):
        # PyTorch's class and words
        raise AssertionError("Unsupported type for global function! Must be either a callable or string name")  # noqa: TRY004
    if callable(fn_or_name):
        name = fn_or_name.__name__
    else:
        name = fn_or_name
    frame = inspect.currentframe().f_back
    if frame.f_code.co_name != "<module>":
        raise NotImplementedError("wrap must be called at the top level of a module")
    _wrapped_fns[(id(frame.f_globals), name)] = frame.f_globals
    return fn_or_name


def _find_proxy(args, kwargs):
    found = []

    def visit(a):
        if isinstance(a, Proxy):
            found.append(a)
        elif isinstance(a, (list, tuple)):
            for x in a:
                visit(x)
        elif isinstance(a, dict):
            for x in a.values():
                visit(x)

    visit(args)
    visit(kwargs)
    return found[0] if found else None


def _recording(orig):
    """orig, recorded as one call_function node when a Proxy is among its arguments."""

    @functools.wraps(orig)
    def wrapped(*args, **kwargs):
        proxy = _find_proxy(args, kwargs)
        if proxy is not None:
            out = proxy.tracer.create_proxy("call_function", orig, args, kwargs)
            node = getattr(out, "node", None)
            if node is not None:
                node.meta["is_wrapped"] = True  # the generated code re-registers it with wrap()
            return out
        return orig(*args, **kwargs)

    wrapped._mt_fx_wrapped = orig
    return wrapped


def _patch_varargs(fn, nargs):
    """fn with *args/**kwargs (and keyword-only parameters) turned into ordinary positional parameters, so
    the tracer can pass one Proxy for each."""
    co = fn.__code__
    flags = co.co_flags & ~(_CO_VARARGS | _CO_VARKEYWORDS)
    code = co.replace(co_flags=flags, co_argcount=nargs, co_kwonlyargcount=0, co_posonlyargcount=0)
    return types.FunctionType(code, fn.__globals__, fn.__name__, fn.__defaults__, fn.__closure__)


class Tracer(TracerBase):
    """Records a Module's forward (or a function) into a Graph. Override is_leaf_module to choose which
    submodules are recorded as call_module instead of being traced into, create_arg for new argument kinds,
    call_module to change module calls."""

    # > 0 while a subclass runs real code inside the trace (jit.trace computing values): module calls and
    # attribute reads then behave as outside it
    _mt_passthrough = 0

    def __init__(self, autowrap_modules=(math,), autowrap_functions=(), param_shapes_constant=False):
        super().__init__()
        self._autowrap_function_ids = {
            id(v)
            for m in autowrap_modules
            for k, v in vars(m).items()
            if not k.startswith("_") and callable(v)
        }
        self._autowrap_function_ids.update(id(f) for f in autowrap_functions)
        self._autowrap_search = list(autowrap_modules)
        self.param_shapes_constant = param_shapes_constant
        self.submodule_paths = None
        self.root = None
        self.tensor_attrs = {}

    # ---- arguments
    def create_arg(self, a):
        """Adds to TracerBase.create_arg: parameters, buffers and modules of the root become get_attr nodes;
        other tensors become constants stored on the root as _tensor_constantN."""
        if isinstance(a, Parameter):
            for n, p in self.root.named_parameters():
                if a is p:
                    return self.create_node("get_attr", n, (), {})
            raise NameError("parameter is not a member of this module")
        if isinstance(a, _C.Tensor):
            for n, b in self.root.named_buffers():
                if a is b:
                    return self.create_node("get_attr", n, (), {})
        elif isinstance(a, Module):
            for n, m in self.root.named_modules():
                if a is m:
                    return self.create_node("get_attr", n, (), {})
        if isinstance(a, _C.Tensor):
            hit = self.tensor_attrs.get(id(a))
            if hit is None or hit[1] is not a:
                name = self._fresh_qualname("_tensor_constant")
                hit = self.tensor_attrs[id(a)] = (name, a)
                setattr(self.root, name, a)
            return self.create_node("get_attr", hit[0], (), {})
        return super().create_arg(a)

    def _fresh_qualname(self, prefix):
        i = 0
        while hasattr(self.root, f"{prefix}{i}"):
            i += 1
        return f"{prefix}{i}"

    # ---- modules
    def is_leaf_module(self, m, module_qualified_name):
        """The modules of minitorch.nn (but Sequential) are recorded as calls; others are traced into."""
        mod = type(m).__module__ or ""
        return (mod == "minitorch.nn" or mod.startswith("minitorch.nn.")) and not isinstance(m, Sequential)

    def path_of_module(self, mod):
        """The qualified name of mod inside the root (NameError when it is not a submodule)."""
        if self.submodule_paths is not None:
            hit = self.submodule_paths.get(id(mod))
            if hit is not None:
                return hit
        for n, p in self.root.named_modules():
            if mod is p:
                return n
        raise NameError("module is not installed as a submodule")

    def call_module(self, m, forward, args, kwargs):
        """A call_module node for a leaf module, else the trace of its forward."""
        name = self.path_of_module(m)
        if not self.is_leaf_module(m, name):
            return forward(*args, **kwargs)
        return self.create_proxy("call_module", name, args, kwargs)

    def getattr(self, attr, attr_val, parameter_proxy_cache):
        """What reading module attribute attr gives during the trace: a get_attr Proxy for a parameter of the
        root (and for a buffer when proxy_buffer_attributes), else the value itself."""

        def proxy_for(collection):
            for n, p in collection:
                if attr_val is p:
                    if n not in parameter_proxy_cache:
                        parameter_proxy_cache[n] = self.create_proxy("get_attr", n, (), {})
                    return parameter_proxy_cache[n]
            return None

        if isinstance(attr_val, Proxy):  # a traced value swapped in (functional_call inside the trace)
            return attr_val
        if isinstance(attr_val, Parameter):
            hit = proxy_for(self.root.named_parameters())
            if hit is not None:
                return hit
        if self.proxy_buffer_attributes and isinstance(attr_val, _C.Tensor):
            hit = proxy_for(self.root.named_buffers())
            if hit is not None:
                return hit
        return attr_val

    # ---- inputs
    def _placeholder(self, name, concrete_args, sig, fn):
        if concrete_args is not None and name in concrete_args:
            value = concrete_args[name]
            param = sig.parameters[name]
            default = () if param.default is inspect.Parameter.empty else (param.default,)
            if isinstance(value, PHBase):
                return self.create_proxy("placeholder", name, default, {})
            out = self.create_proxy("placeholder", f"{name}_1", default, {})
            if type(value) in (bool, int, float, str, complex):
                # torch._assert when the package has it (PyTorch's generated code names it), else ours
                assert_fn = getattr(sys.modules.get("minitorch"), "_assert", _assert)
                _side_effectful_functions.add(assert_fn)
                self.create_proxy(
                    "call_function",
                    assert_fn,
                    (
                        out == value,
                        f"{name} has been specialized to have value {value} but got another value",
                    ),
                    {},
                )
            elif value is None:
                self.create_proxy(
                    "call_function",
                    _assert_is_none,
                    (out, f"{name} has been specialized to have value None but got another value"),
                    {},
                )
            else:
                warnings.warn(
                    f"Was not able to add assertion to guarantee correct input {name} to specialized function. "
                    "It is up to the user to make sure that your inputs match the inputs you specialized the "
                    "function with.",
                    stacklevel=3,
                )
            return value
        if name.startswith("*"):
            default = ()
        else:
            param = sig.parameters[name]
            default = () if param.default is inspect.Parameter.empty else (param.default,)
        ann = getattr(fn, "__annotations__", {}).get(name.lstrip("*"))
        return self.create_proxy(
            "placeholder", name, default, {}, type_expr=ann if isinstance(ann, type) else None
        )

    def create_args_for_root(self, root_fn, is_module, concrete_args=None):
        """(function to call, its arguments): a placeholder Proxy per parameter of root_fn (self is the
        root), *args/**kwargs included; concrete_args fixes some to values."""
        fn = inspect.unwrap(root_fn)
        co = fn.__code__
        total = co.co_argcount + co.co_kwonlyargcount
        names = list(co.co_varnames)
        args = []
        skip = 0
        if is_module:
            if total == 0:
                raise RuntimeError("``self`` argument cannot be part of *args expansion!")
            skip = 1
            args.append(self.root)
        sig = inspect.signature(fn)
        arg_names = names[skip:total]
        if isinstance(concrete_args, tuple):
            if len(arg_names) != len(concrete_args):
                raise RuntimeError(
                    f"Tracing expected {len(arg_names)} arguments but got {len(concrete_args)} concrete arguments"
                )
            concrete_args = dict(zip(arg_names, concrete_args))
        if concrete_args is not None:
            unknown = [k for k in concrete_args if k not in sig.parameters]
            if unknown:
                raise TypeError(f"concrete_args names {unknown} are not parameters of {fn.__name__}")
        args.extend(self._placeholder(n, concrete_args, sig, fn) for n in arg_names)
        if co.co_kwonlyargcount > 0 or co.co_flags & (_CO_VARARGS | _CO_VARKEYWORDS):
            i = total
            if co.co_flags & _CO_VARARGS:
                args.append(self._placeholder("*" + names[i], None, sig, fn))
                i += 1
            if co.co_flags & _CO_VARKEYWORDS:
                args.append(self._placeholder("**" + names[i], None, sig, fn))
            root_fn = _patch_varargs(root_fn, len(args))
        return root_fn, args

    # ---- the trace
    def trace(self, root, concrete_args=None):
        """The Graph of root (a Module's forward or a function) called on placeholders."""
        if isinstance(root, Module):
            self.root = root
            fn = getattr(type(root), self.traced_func_name, None)
            if fn is None:
                raise AssertionError(
                    f"traced_func_name={self.traced_func_name} doesn't exist in {type(root).__name__}"
                )
            self.submodule_paths = {id(m): n for n, m in root.named_modules()}
        else:
            self.root = Module()
            fn = root
        if not isinstance(fn, types.FunctionType):
            raise AssertionError(f"Expected FunctionType, got {type(fn)}")  # noqa: TRY004  (PyTorch's class)
        tracer_cls = getattr(self, "__class__", None)
        self.graph = Graph(tracer_cls=tracer_cls)
        self.graph._co_fields = {"co_name": fn.__code__.co_name, "co_filename": fn.__code__.co_filename}
        self.tensor_attrs = {}
        self._collect_tensor_attrs(self.root, [])
        fn_globals = fn.__globals__
        fn, args = self.create_args_for_root(fn, isinstance(root, Module), concrete_args)
        parameter_proxy_cache = {}
        tracer = self

        # the patches are class attributes, seen by every thread: other threads' modules run as usual
        owner = threading.get_ident()

        def module_getattr(mod, attr):
            value = _orig_module_getattr(mod, attr)
            if tracer._mt_passthrough or threading.get_ident() != owner:
                return value
            return tracer.getattr(attr, value, parameter_proxy_cache)

        def module_call(mod, *args, **kwargs):
            if tracer._mt_passthrough or threading.get_ident() != owner:
                return _orig_module_call(mod, *args, **kwargs)

            def forward(*a, **k):
                return _orig_module_call(mod, *a, **k)

            tracer._autowrap(patcher, getattr(getattr(mod, "forward", mod), "__globals__", {}))
            return tracer.call_module(mod, forward, args, kwargs)

        patcher = _Patcher()
        _tracing.depth = getattr(_tracing, "depth", 0) + 1
        try:
            with _trace_lock, overrides.enable_torch_function_dispatch(tensor_methods=True):
                patcher.patch_attr(Module, "__getattr__", module_getattr)
                patcher.patch_attr(Module, "__call__", module_call)
                self._patch_wrapped(patcher)
                self._autowrap(patcher, fn_globals)
                for m in self._autowrap_search:
                    self._autowrap(patcher, vars(m))
                try:
                    result = fn(*args)
                finally:
                    patcher.restore()
                self.create_node("output", "output", (self.create_arg(result),), {}, type_expr=None)
        finally:
            _tracing.depth -= 1
            self.submodule_paths = None
        return self.graph

    def _collect_tensor_attrs(self, m, prefix):
        for k, v in vars(m).items():
            if isinstance(v, _C.Tensor):
                self.tensor_attrs[id(v)] = (".".join([*prefix, k]), v)
        for k, child in m.named_children():
            self._collect_tensor_attrs(child, [*prefix, k])

    def _patch_wrapped(self, patcher):
        for (_, name), g in list(_wrapped_fns.items()):
            orig = g.get(name, getattr(builtins, name, None))
            if orig is None or getattr(orig, "_mt_fx_wrapped", None) is not None:
                continue
            patcher.patch_dict(g, name, _recording(orig))

    def _autowrap(self, patcher, g):
        if not self._autowrap_function_ids:
            return
        for name, value in list(g.items()):
            if not name.startswith("_") and callable(value) and id(value) in self._autowrap_function_ids:
                patcher.patch_dict(g, name, _recording(value))


def symbolic_trace(root, concrete_args=None):
    """The GraphModule of root (an nn.Module or a function) recorded by symbolic tracing: the graph of what
    forward does to Proxy inputs, with standard nn modules as call_module leaves. concrete_args (name ->
    value) specializes inputs to constants (control flow on them is then resolved while tracing)."""
    from minitorch.fx.graph_module import GraphModule

    tracer = Tracer()
    graph = tracer.trace(root, concrete_args)
    name = type(root).__name__ if isinstance(root, Module) else root.__name__
    return GraphModule(tracer.root, graph, name)
