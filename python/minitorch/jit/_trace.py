"""torch.jit.trace: capture a function or module by running it on example inputs.

The run uses fx's tracing machinery with Proxies that also carry real values: every torch function, tensor
method, operator and leaf-module call is recorded as a graph node *and* executed, so Python in the traced code
sees real values. Tensors, Python numbers derived from tensors (sizes, ``numel()``) and tuples/lists of them
stay symbolic; anything else (dtypes, devices, bools from comparisons) becomes a constant of the trace. Where
Python consumes a tensor's value (``if tensor:``, ``float(t)``, ``t.item()``, ``len(t)``, iterating a tensor),
the value is used as it was during this run and a TracerWarning says so, as PyTorch's tracer does.
"""

import difflib
import inspect
import math
import threading
import warnings

from minitorch import _C
from minitorch._random import get_rng_state, set_rng_state
from minitorch.fx.node import map_aggregate
from minitorch.fx.proxy import Proxy
from minitorch.jit import _ir
from minitorch.jit._script import RecursiveScriptModule, ScriptFunction, _ConstantTracer
from minitorch.nn.modules.module import Module

__all__ = [
    "TopLevelTracedModule",
    "TracedModule",
    "TracerWarning",
    "TracingCheckError",
    "is_tracing",
    "trace",
    "trace_module",
]

_state = threading.local()


class TracerWarning(Warning):
    """A traced program did something the trace records as a constant (it may not generalize)."""

    @staticmethod
    def ignore_lib_warnings():
        """Silences TracerWarnings raised from inside the library (not from user code)."""
        warnings.filterwarnings("ignore", category=TracerWarning, module="torch.(?!jit)")
        warnings.filterwarnings("ignore", "torch::jit::fuser::cuda")


class TracingCheckError(Exception):
    """check_trace found the trace inconsistent (a different graph when traced again, or constants that
    changed between traces)."""

    def __init__(self, graph_diff_error, tensor_compare_error, extra_msg=None):
        self.message = "Tracing failed sanity checks!\n"
        if extra_msg is not None:
            self.message += extra_msg + "\n"
        if graph_diff_error is not None:
            self.message += "ERROR: Graphs differed across invocations!\n"
            self.message += _indent(graph_diff_error) + "\n"
        if tensor_compare_error is not None:
            self.message += (
                "ERROR: Tensor-valued Constant nodes differed in value across invocations. This often indicates "
                "that the tracer has encountered untraceable code.\n"
            )
            self.message += _indent(tensor_compare_error) + "\n"
        super().__init__(self.message)


def _indent(s):
    return "\n".join("\t" + line for line in s.splitlines())


def is_tracing():
    """True while torch.jit.trace is running the traced code."""
    return getattr(_state, "tracing", 0) > 0


def _warn_concrete(what):
    warnings.warn(
        f"Converting a tensor to a {what} might cause the trace to be incorrect. We can't record the data flow "
        "of Python values, so this value will be treated as a constant in the future. This means that the trace "
        "might not generalize to other inputs!",
        TracerWarning,
        stacklevel=3,
    )


def _symbolic(value):
    """Whether a traced value stays a graph value (else it becomes a constant of the trace)."""
    if isinstance(value, _C.Tensor):
        return True
    if type(value) in (int, float, complex):
        return True
    if isinstance(value, (tuple, list)):
        return any(_symbolic(v) for v in value)
    if isinstance(value, dict):
        return any(_symbolic(v) for v in value.values())
    return False


def _unwrap(a):
    return map_aggregate(a, lambda x: x._mt_value if isinstance(x, _TracedValue) else x)


_CONCRETE_METHODS = {"item": "Python number", "tolist": "Python list", "numpy": "NumPy array"}


class _TracedMethod:
    def __init__(self, owner, name):
        self.owner = owner
        self.name = name

    def __call__(self, *args, **kwargs):
        value = self.owner._mt_value
        if isinstance(value, _C.Tensor) and self.name in _CONCRETE_METHODS:
            _warn_concrete(_CONCRETE_METHODS[self.name])
            return getattr(value, self.name)(*_unwrap(args), **_unwrap(kwargs))
        return self.owner.tracer.create_proxy("call_method", self.name, (self.owner, *args), kwargs)


class _TracedValue(Proxy):
    """A Proxy that also holds the value computed during the tracing run."""

    def __init__(self, node, tracer, value):
        self.tracer = tracer
        self.node = node
        self._mt_value = value

    def __getattr__(self, k):
        if k.startswith("__") and k.endswith("__"):
            raise AttributeError(k)
        v = getattr(self._mt_value, k)
        if callable(v) and not isinstance(v, _C.Tensor):
            return _TracedMethod(self, k)
        return self.tracer.create_proxy("call_function", getattr, (self, k), {})

    def _tensor_check(self, what):
        if isinstance(self._mt_value, _C.Tensor):
            _warn_concrete(what)

    def __bool__(self):
        if self.tracer.guard_on_data_raises and isinstance(self._mt_value, _C.Tensor):
            # export: a branch on a tensor's data would bake the example's branch into the program
            from minitorch.fx.experimental.symbolic_shapes import GuardOnDataDependentSymNode

            raise GuardOnDataDependentSymNode(
                "Could not guard on data-dependent expression: Python control flow (bool) on the value of "
                f"{self.node.name}, a tensor computed from the inputs. Rewrite the branch with torch.cond, or "
                "compute both sides and select with torch.where."
            )
        self._tensor_check("Python boolean")
        return bool(self._mt_value)

    def __int__(self):
        self._tensor_check("Python integer")
        return int(self._mt_value)

    def __float__(self):
        self._tensor_check("Python float")
        return float(self._mt_value)

    def __complex__(self):
        self._tensor_check("Python complex")
        return complex(self._mt_value)

    def __index__(self):
        self._tensor_check("Python index")
        return self._mt_value.__index__()

    def __len__(self):
        value = self._mt_value
        if isinstance(value, _C.Tensor):
            if value.dim() == 0:
                raise TypeError("len() of a 0-d tensor")
            warnings.warn(
                "Using len to get tensor shape might cause the trace to be incorrect. Recommended usage would be "
                "tensor.shape[0]. Passing a tensor of different shape might lead to errors or silently give "
                "incorrect results.",
                TracerWarning,
                stacklevel=2,
            )
        return len(value)

    def __iter__(self):
        value = self._mt_value
        if isinstance(value, _C.Tensor):
            if value.dim() == 0:
                raise TypeError("iteration over a 0-d tensor")
            warnings.warn(
                "Iterating over a tensor might cause the trace to be incorrect. Passing a tensor of different "
                "shape won't change the number of iterations executed (and might lead to errors or silently give "
                "incorrect results).",
                TracerWarning,
                stacklevel=2,
            )
        if isinstance(value, dict):
            return iter(value)
        return (self[i] for i in range(len(value)))

    def __contains__(self, item):
        return _unwrap(item) in self._mt_value

    def keys(self):
        return self._mt_value.keys()

    def __repr__(self):
        return repr(self._mt_value)

    def __str__(self):
        return str(self._mt_value)

    def __format__(self, spec):
        return format(self._mt_value, spec)


_VALID_INPUT = "Only Tensors and (possibly nested) Lists, Dicts, and Tuples of Tensors can be traced"


def _type_str(value):
    """TorchScript's name for the type of value (Tensor, int, Tuple[Tensor, int], List[Tensor], ...)."""
    if isinstance(value, _C.Tensor):
        return "Tensor"
    if isinstance(value, tuple):
        return f"Tuple[{', '.join(_type_str(v) for v in value)}]"
    if isinstance(value, list):
        return f"List[{_type_str(value[0]) if value else 'Tensor'}]"
    if isinstance(value, dict):
        k, v = next(iter(value.items())) if value else ("", None)
        return f"Dict[{type(k).__name__}, {_type_str(v) if value else 'Tensor'}]"
    return type(value).__name__


def _traceable(value):
    if isinstance(value, _C.Tensor):
        return True
    if isinstance(value, (tuple, list)):
        return all(_traceable(v) for v in value)
    if isinstance(value, dict):
        return all(_traceable(v) for v in value.values())
    return False


def _check_inputs(args, kwargs):
    if not _traceable(args):
        raise RuntimeError(f"Type '{_type_str(args)}' cannot be traced. {_VALID_INPUT}")
    if kwargs and not _traceable(kwargs):
        raise RuntimeError(f"Type '{_type_str(kwargs)}' cannot be traced. {_VALID_INPUT}")


class _ValueTracer(_ConstantTracer):
    """Records while running on real values (see the module docstring)."""

    # a traced tensor's bool: jit.trace warns and keeps the example's branch, export raises (as PyTorch's)
    guard_on_data_raises = False

    def __init__(self, args, kwargs):
        super().__init__(autowrap_modules=(math,))
        self._args = tuple(args)
        self._kwargs = dict(kwargs or {})
        self._next_value = None

    def create_args_for_root(self, root_fn, is_module, concrete_args=None):
        fn = inspect.unwrap(root_fn)
        params = list(inspect.signature(fn).parameters.values())
        if is_module:
            params = params[1:]
        positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
        var = next((p for p in params if p.kind == p.VAR_POSITIONAL), None)
        if len(self._args) > len(positional) and var is None:
            raise TypeError(
                f"{fn.__name__}() takes {len(positional) + int(is_module)} positional arguments but "
                f"{len(self._args) + int(is_module)} were given"
            )
        proxies = []
        for i, a in enumerate(self._args):
            name = positional[i].name if i < len(positional) else f"{var.name}_{i - len(positional)}"
            proxies.append(self._input(name, a))
        kw_names = list(self._kwargs)
        proxies += [self._input(k, self._kwargs[k]) for k in kw_names]
        npos = len(self._args)
        root = self.root

        def run(*a):
            call_args, call_kwargs = a[:npos], dict(zip(kw_names, a[npos:]))
            if is_module:
                return root_fn(root, *call_args, **call_kwargs)
            return root_fn(*call_args, **call_kwargs)

        return run, proxies

    def _input(self, name, value):
        self._next_value = value
        return self.create_proxy("placeholder", name, (), {})

    def create_proxy(self, kind, target, args, kwargs, name=None, type_expr=None, proxy_factory_fn=None):
        if kind == "placeholder":
            value = self._next_value
        elif kind == "get_attr":
            value = self._fetch(target)
        else:
            value = self._compute(kind, target, args, kwargs)
        if kind in ("placeholder", "get_attr") or _symbolic(value):
            proxy = super().create_proxy(
                kind,
                target,
                args,
                kwargs,
                name,
                type_expr,
                proxy_factory_fn=lambda node: _TracedValue(node, self, value),
            )
            # the type the IR view (jit._ir) prints for the value: complete for tensors, as PyTorch's trace
            proxy.node.meta["_mt_jit_type"] = _ir._type_of(value)
            return proxy
        return value

    def _fetch(self, target):
        if target in self.constants:
            return self.constants[target]
        self._mt_passthrough += 1
        try:
            obj = self.root
            for atom in target.split("."):
                obj = getattr(obj, atom)
            return obj
        finally:
            self._mt_passthrough -= 1

    def _compute(self, kind, target, args, kwargs):
        a, k = _unwrap(args), _unwrap(kwargs)
        self._mt_passthrough += 1
        try:
            if kind == "call_function":
                return target(*a, **k)
            if kind == "call_method":
                return getattr(a[0], target)(*a[1:], **k)
            if kind == "call_module":
                return self.root.get_submodule(target)(*a, **k)
            raise RuntimeError(f"jit.trace: unexpected node kind {kind}")
        finally:
            self._mt_passthrough -= 1


class TracedModule(RecursiveScriptModule):
    """A module captured by torch.jit.trace (shares the original's parameters and submodules)."""

    _mt_scripted = False

    @classmethod
    def _mt_child_class(cls):
        return TracedModule

    def _get_name(self):
        return self.__dict__["original_name"]

    def extra_repr(self):
        """original_name=<the traced class>."""
        return f"original_name={self.__dict__['original_name']}"


class TopLevelTracedModule(TracedModule):
    """What torch.jit.trace returns for a module."""


def _record(func, args, kwargs, is_module, method="forward"):
    """(graph, constants) of func (a module's `method`) run on args/kwargs."""
    _check_inputs(args, kwargs)
    tracer = _ValueTracer(args, kwargs)
    tracer.traced_func_name = method
    _state.tracing = getattr(_state, "tracing", 0) + 1
    try:
        graph = tracer.trace(func)
    finally:
        _state.tracing -= 1
    graph.eliminate_dead_code()
    return graph, tracer.constants, tracer.root


def _as_tuple(example_inputs):
    # as PyTorch's: a tensor is one input, anything else is iterated (so None and numbers raise TypeError)
    if isinstance(example_inputs, _C.Tensor):
        return (example_inputs,)
    if isinstance(example_inputs, tuple):
        return example_inputs
    return tuple(example_inputs)


def _clone(a):
    def one(x):
        if isinstance(x, _C.Tensor):
            c = x.detach().clone()
            return c.requires_grad_(x.requires_grad) if x.is_floating_point() else c
        return x

    return map_aggregate(a, one)


def _build(func, graph, constants, root, is_module):
    if is_module:
        return TopLevelTracedModule(func, graph, constants, original_name=type(func).__name__)
    from minitorch.fx.graph_module import GraphModule

    for k, v in constants.items():
        setattr(root, k, v)
    gm = GraphModule(root, graph, getattr(func, "__name__", "fn"))
    return ScriptFunction(func, gm, traced=True)


def _flatten(x):
    out = []
    map_aggregate(x, out.append)
    return out


def _check_trace(func, traced, inputs_list, kwargs, tolerance, is_module, method="forward"):
    from minitorch import _compare

    other = method != "forward"
    for inputs in inputs_list:
        args = _as_tuple(inputs)
        # the same random numbers for the second trace and for both runs below
        rng = get_rng_state()
        graph, constants, _ = _record(func, _clone(args), _clone(kwargs), is_module, method)
        set_rng_state(rng)
        if other:
            _prefix_constants(graph, constants, method)
        # the fx code of the two recordings (what runs) is what must agree
        new_code = graph.python_code("self").src
        if other:
            old_code = traced.__dict__[method]._fx_code
        else:
            old_code = traced.__dict__["_mt_fx_code"] if is_module else traced._gm.code
        if new_code != old_code:
            diff = "\n".join(difflib.unified_diff(old_code.splitlines(), new_code.splitlines(), lineterm=""))
            raise TracingCheckError(f"Graph diff:\n{_indent(diff)}", None)
        if other:
            old_constants = traced.__dict__[method]._constants
        else:
            old_constants = (
                traced.__dict__["_mt_constants"]
                if is_module
                else {k: getattr(traced._gm, k) for k in constants}
            )
        for k, v in constants.items():
            if k not in old_constants or not _compare.equal(v, old_constants[k]):
                raise TracingCheckError(
                    None, f"Node:\n\t\t{k}\n\tTensor-valued constant differs between traces"
                )
        from minitorch.autograd.grad_mode import no_grad

        with no_grad():
            got = (getattr(traced, method) if other else traced)(*_clone(args), **_clone(kwargs))
            set_rng_state(rng)
            want = (getattr(func, method) if other else func)(*_clone(args), **_clone(kwargs))
        for i, (g, w) in enumerate(zip(_flatten(got), _flatten(want))):
            if isinstance(w, _C.Tensor) and isinstance(g, _C.Tensor):
                ok = (
                    g.shape == w.shape
                    and g.dtype == w.dtype
                    and _compare.allclose(g, w, rtol=tolerance, atol=1e-5, equal_nan=True)
                )
                if not ok:
                    warnings.warn(
                        f"Output nr {i + 1}. of the traced function does not match the corresponding output of the "
                        f"Python function. Detailed error:\nTensor-likes are not close!\n\n{_mismatch(g, w)}",
                        TracerWarning,
                        stacklevel=4,
                    )


def _mismatch(g, w):
    if g.shape != w.shape:
        return f"The values for attribute 'shape' do not match: {g.shape} != {w.shape}."
    diff = (g.double() - w.double()).abs()
    return f"Greatest absolute difference: {diff.max().item()}"


def trace(
    func,
    example_inputs=None,
    optimize=None,
    check_trace=True,
    check_inputs=None,
    check_tolerance=1e-5,
    strict=True,
    _force_outplace=False,
    _module_class=None,
    _compilation_unit=None,
    example_kwarg_inputs=None,
    _store_inputs=True,
):
    """Runs func (a function or nn.Module) on example_inputs and returns what it did as a ScriptFunction or
    traced ScriptModule: calling it replays the recorded operations (see the module docstring for what is
    recorded and what becomes a constant). check_trace traces again on check_inputs (default: the example
    inputs) and raises TracingCheckError if the recording differs, and warns (TracerWarning) if the replay's
    outputs differ from the Python function's."""
    warnings.warn(
        "`torch.jit.trace` is deprecated. Please switch to `torch.compile` or `torch.export`.",
        FutureWarning,
        stacklevel=2,
    )
    if isinstance(func, (RecursiveScriptModule, ScriptFunction)):
        warnings.warn(
            "The input to trace is already a ScriptModule, tracing it is a no-op. Returning the object as is.",
            stacklevel=2,
        )
        return func
    if isinstance(func, Module):
        return trace_module(
            func,
            {"forward": example_inputs if example_kwarg_inputs is None else ()},
            None,
            check_trace,
            check_inputs and [{"forward": c} for c in check_inputs],
            check_tolerance,
            strict,
            _force_outplace,
            _module_class,
            _compilation_unit,
            example_inputs_is_kwarg=example_kwarg_inputs is not None,
            _store_inputs=_store_inputs,
            _kwargs=example_kwarg_inputs,
        )
    if inspect.ismethod(func) and isinstance(func.__self__, Module) and func.__name__ == "forward":
        return trace(func.__self__, example_inputs, None, check_trace, check_inputs, check_tolerance, strict)
    if not inspect.isfunction(func):
        raise RuntimeError(
            f"torch.jit.trace expects a Python function or an nn.Module, got {type(func).__name__}"
        )
    kwargs = example_kwarg_inputs or {}
    args = _as_tuple(example_inputs) if example_kwarg_inputs is None or example_inputs is not None else ()
    graph, constants, root = _record(func, args, kwargs, False)
    traced = _build(func, graph, constants, root, False)
    if check_trace:
        _check_trace(func, traced, check_inputs or [args], kwargs, check_tolerance, False)
    return traced


def trace_module(
    mod,
    inputs,
    optimize=None,
    check_trace=True,
    check_inputs=None,
    check_tolerance=1e-5,
    strict=True,
    _force_outplace=False,
    _module_class=None,
    _compilation_unit=None,
    example_inputs_is_kwarg=False,
    _store_inputs=True,
    _kwargs=None,
):
    """trace for a module: inputs maps method names to example inputs; each method is traced on its own
    (forward becomes what calling the module runs; another method is an attribute with its own graph and
    code), and check_inputs is a list of such dicts."""
    if not isinstance(mod, Module):
        raise AttributeError("expected torch.nn.Module as the first argument")  # noqa: TRY004  (PyTorch's class)
    if not isinstance(inputs, dict):
        raise AttributeError("expected a dictionary of (method_name, input) pairs")  # noqa: TRY004  (PyTorch's class)
    for name in inputs:
        getattr(mod, name)  # a missing method raises the module's AttributeError, as PyTorch's
    kwargs = _kwargs or {}
    if "forward" in inputs:
        args = _as_tuple(inputs["forward"]) if not example_inputs_is_kwarg else ()
        graph, constants, _ = _record(mod, args, kwargs, True)
        traced = _build(mod, graph, constants, None, True)
    else:
        traced = TopLevelTracedModule(mod, original_name=type(mod).__name__)
    for name, example in inputs.items():
        if name == "forward":
            continue
        margs = _as_tuple(example)
        graph, constants, _ = _record(mod, margs, {}, True, name)
        _prefix_constants(graph, constants, name)
        traced.__dict__[name] = _TracedModuleMethod(traced, name, graph, constants)
    if check_trace:
        for name, example in inputs.items():
            checks = [c[name] for c in check_inputs] if check_inputs else [example]
            _check_trace(
                mod, traced, checks, kwargs if name == "forward" else {}, check_tolerance, True, name
            )
    return traced


def _prefix_constants(graph, constants, method):
    """Renames a method's tensor constants (get_attr targets) so that they cannot clash with forward's."""
    renamed = {}
    for node in graph.nodes:
        if node.op == "get_attr" and node.target in constants:
            node.target = f"_{method}{node.target}"
    for k in list(constants):
        renamed[f"_{method}{k}"] = constants.pop(k)
    constants.update(renamed)


class _TracedModuleMethod:
    """A traced module's method other than forward (trace_module): callable, with ``graph`` and ``code`` of
    what was recorded, run on the traced module's (the original's) parameters."""

    def __init__(self, owner, name, graph, constants):
        from minitorch.fx.graph_module import _exec_forward

        self.name = name
        self._owner = owner
        self._graph = graph
        self._constants = dict(constants)
        owner.__dict__.update(self._constants)
        py = graph.python_code(root_module="self")
        self._fx_code = py.src
        self._fn = _exec_forward(py.src, py.globals)
        self._ir = None

    def __call__(self, *args, **kwargs):
        return self._fn(self._owner, *args, **kwargs)

    @property
    def graph(self):
        """The method's recording as TorchScript IR (torch._C.Graph's API and text format)."""
        if self._ir is None:
            self._ir = _ir.build_graph(self._graph, traced=True, root=self._owner, constants=self._constants)
        return self._ir

    @property
    def code(self):
        """The recording as TorchScript-style code (``def <name>(self, ...)``)."""
        return _ir.graph_code(self.graph, self.name)

    def __repr__(self):
        return f"<traced method {self.name} of {self._owner.original_name}>"
