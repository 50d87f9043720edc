"""torch.fx.proxy: Proxy (a traced value that records what is done to it), Attribute, TracerBase, TraceError."""

import copy
import dis
import enum
import inspect
import operator
import sys
import types

from minitorch import _C, _handover, overrides
from minitorch.fx.graph import _MAGIC, _REFLECTABLE, Graph
from minitorch.fx.node import Node, map_aggregate

__all__ = ["Attribute", "Proxy", "TraceError", "TracerBase"]


class TraceError(ValueError):
    """A traced program did something a symbolic trace cannot record (control flow on a Proxy, iteration)."""


_BASE_TYPES = (str, int, float, bool, complex, bytes, type(None), type(Ellipsis), range)


class TracerBase:
    """Node and Proxy creation shared by the tracers: create_proxy turns Python arguments into graph
    arguments (create_arg), creates the node and wraps it in a Proxy."""

    graph: Graph
    record_stack_traces = False
    trace_asserts = False
    proxy_buffer_attributes = False
    traced_func_name = "forward"

    def create_node(self, kind, target, args, kwargs, name=None, type_expr=None):
        """A node inserted into the tracer's graph."""
        return self.graph.create_node(kind, target, args, kwargs, name, type_expr)

    def proxy(self, node):
        """The Proxy over node."""
        return Proxy(node, self)

    def create_proxy(self, kind, target, args, kwargs, name=None, type_expr=None, proxy_factory_fn=None):
        """A Proxy over a new node kind(target, args, kwargs); args and kwargs are converted by create_arg."""
        public = None
        if kind == "call_function":
            public = getattr(target, "_mt_public_name", None)
            target = overrides.original_function(target)
        args_ = self.create_arg(args)
        kwargs_ = self.create_arg(kwargs)
        if not isinstance(args_, tuple) or not isinstance(kwargs_, dict):
            raise TypeError("create_proxy: args must convert to a tuple and kwargs to a dict")
        node = self.create_node(kind, target, args_, kwargs_, name, type_expr)
        if public is not None:
            node._mt_public = (target, public)
        return self.proxy(node) if proxy_factory_fn is None else proxy_factory_fn(node)

    def create_arg(self, a):
        """A graph argument for the Python value a: Proxies become their nodes, containers are converted
        element by element, plain constants stay; anything else raises NotImplementedError."""
        if isinstance(a, Proxy):
            return a.node
        if isinstance(a, Node):
            return a
        if isinstance(a, tuple) and hasattr(a, "_fields"):
            args = tuple(self.create_arg(x) for x in a)
            return self.create_node("call_function", type(a), args, {})
        if isinstance(a, tuple):
            return (
                type(a)(self.create_arg(x) for x in a)
                if type(a) is not tuple
                else tuple(self.create_arg(x) for x in a)
            )
        if isinstance(a, list):
            return [self.create_arg(x) for x in a]
        if isinstance(a, dict):
            out = {}
            for k, v in a.items():
                k = self.create_arg(k)
                if isinstance(k, Node):
                    raise RuntimeError(  # noqa: TRY004  (PyTorch's class)
                        f"Keys for dictionaries used as an argument cannot contain a Node. Got key: {k}"
                    )
                out[k] = self.create_arg(v)
            return out
        if isinstance(a, slice):
            return slice(self.create_arg(a.start), self.create_arg(a.stop), self.create_arg(a.step))
        if isinstance(a, _BASE_TYPES) or _is_constant_like(a):
            return a
        raise NotImplementedError(f"argument of type: {type(a)}")

    def to_bool(self, obj):
        """What bool() of a Proxy does: TraceError (a symbolic value has no truth value)."""
        raise TraceError("symbolically traced variables cannot be used as inputs to control flow")

    def iter(self, obj):
        """What iterating a Proxy does outside tuple unpacking: TraceError."""
        raise TraceError(
            "Proxy object cannot be iterated. This can be attempted when the Proxy is used in a loop or as a "
            "*args or **kwargs function argument. See the torch.fx docs on pytorch.org for a more detailed "
            "explanation of what types of control flow can be traced, and check out the Proxy docstring for "
            "help troubleshooting Proxy iteration errors"
        )

    def keys(self, obj):
        """proxy.keys(), recorded as a method call."""
        return Attribute(obj, "keys")()


class GraphAppendingTracer(TracerBase):
    """The tracer of a Proxy made directly over a graph's node: it appends to that graph."""

    def __init__(self, graph):
        super().__init__()
        self.graph = graph
        self.scope = None


def _is_constant_like(a):
    """dtypes, devices, enums and functions (a torch function wrapped for __torch_function__ dispatch too, as a
    torch.cond branch): values the generated code can name."""
    return isinstance(
        a,
        (
            _C.dtype,
            _C.device,
            enum.Enum,
            type,
            types.FunctionType,
            types.BuiltinFunctionType,
            overrides._DispatchingFunction,
        ),
    )


def _unpack_count(frame):
    """The length of the tuple being unpacked at the calling frame's current instruction, or None."""
    try:
        for inst in dis.get_instructions(frame.f_code):
            if inst.offset == frame.f_lasti:
                return inst.argval if inst.opname == "UNPACK_SEQUENCE" else None
    except Exception:  # noqa: BLE001  (no bytecode to look at: not an unpacking)
        return None
    return None


class Proxy:
    """A value during symbolic tracing: every operation on it (operators, tensor methods through attribute
    access, torch functions through __torch_function__) appends a node to the tracer's graph and returns a
    new Proxy. It has no data: using it where Python needs a concrete value (``if``, ``len``, iteration)
    raises TraceError/RuntimeError."""

    def __init__(self, node, tracer=None):
        if tracer is None:
            tracer = GraphAppendingTracer(node.graph)
        self.tracer = tracer
        self.node = node

    def __repr__(self):
        return f"Proxy({self.node.name})"

    def __getattr__(self, k):
        # pybind11's argument casters probe any object for its cross-module conduit: that is no tensor attribute
        if (k.startswith("__") and k.endswith("__")) or k == "_pybind11_conduit_v1_":
            raise AttributeError(k)
        _refuse_inside_torch_function(k)
        return Attribute(self, k)

    def __getstate__(self):
        return self.__dict__

    def __setstate__(self, d):
        self.__dict__ = d

    def __deepcopy__(self, memo):
        out = Proxy.__new__(type(self))
        memo[id(self)] = out
        out.__dict__ = {
            k: (v if k in ("tracer", "node") else copy.deepcopy(v, memo)) for k, v in self.__dict__.items()
        }
        return out

    def __call__(self, *args, **kwargs):
        return self.tracer.create_proxy("call_method", "__call__", (self, *args), kwargs)

    def __iter__(self):
        frame = inspect.currentframe()
        caller = frame.f_back if frame is not None else None
        n = _unpack_count(caller) if caller is not None else None
        if n is not None:
            return (self[i] for i in range(n))
        return self.tracer.iter(self)

    def __abs__(self):
        return self.tracer.create_proxy("call_function", operator.abs, (self,), {})

    def __bool__(self):
        return self.tracer.to_bool(self)

    def keys(self):
        """The traced value's keys(), recorded (for ** unpacking of a traced dict)."""
        return self.tracer.keys(self)

    def __len__(self):
        raise RuntimeError(
            "'len' is not supported in symbolic tracing by default. If you want this call to be recorded, "
            "please call torch.fx.wrap('len') at module scope"
        )

    @classmethod
    def __torch_function__(cls, orig_method, types, args=None, kwargs=None):
        args = args if args else ()
        kwargs = kwargs if kwargs else {}
        tracers = {}

        def find_tracer(a):
            if isinstance(a, cls):
                tracers[a.tracer] = None

        map_aggregate(args, find_tracer)
        map_aggregate(kwargs, find_tracer)
        if len(tracers) > 1:
            raise RuntimeError(
                f"Found multiple different tracers {list(tracers.keys())} while trying to trace operations "
                f"{orig_method}"
            )
        tracer = next(iter(tracers))
        method = overrides.is_tensor_method(orig_method)
        if method == "__getitem__":
            return tracer.create_proxy("call_function", operator.getitem, args, kwargs)
        if method == "__setitem__":
            return tracer.create_proxy("call_function", operator.setitem, args, kwargs)
        if method is not None:
            # a Tensor method called on a real tensor with a Proxy argument (buffer.add(x))
            return tracer.create_proxy("call_method", method, args, kwargs)
        return tracer.create_proxy("call_function", orig_method, args, kwargs)


def _refuse_inside_torch_function(what):
    """Raises where the Proxy is used inside a torch function written in Python that holds it (``F.softmax(p)``
    reading ``p.softmax``, called outside a trace or bound before one): the function refuses the call and hands it
    to __torch_function__ as itself (_handover.py), so the graph records F.softmax as PyTorch's does (PyTorch's
    Python functions test has_torch_function at their entry), not what its body does with the Proxy."""
    if _handover.deferred(sys._getframe(2)):
        raise AttributeError(f"'Proxy' object has no attribute '{what}' inside a torch function")


class Attribute(Proxy):
    """``proxy.name``: a method call when called (call_method), else a getattr node created on first use."""

    def __init__(self, root, attr):
        self.root = root
        self.attr = attr
        self.tracer = root.tracer
        self._node = None

    @property
    def node(self):
        """The getattr node, created on first use (a call records call_method instead)."""
        if self._node is None:
            self._node = self.tracer.create_proxy("call_function", getattr, (self.root, self.attr), {}).node
        return self._node

    def __call__(self, *args, **kwargs):
        return self.tracer.create_proxy("call_method", self.attr, (self.root, *args), kwargs)


def _install_magic_methods():
    for name in _MAGIC:
        fn = getattr(operator, name, None)
        if fn is None:
            continue  # "div": Python 2's operator, kept in the codegen table only

        def impl(*args, _fn=fn):
            _refuse_inside_torch_function(_fn.__name__)
            tracer = args[0].tracer
            return tracer.create_proxy("call_function", _fn, args, {})

        impl.__name__ = f"__{name.strip('_')}__"
        setattr(Proxy, f"__{name.strip('_')}__", impl)
    for name in _REFLECTABLE:
        fn = getattr(operator, name, None)
        if fn is None:
            continue

        def rimpl(self, rhs, _fn=fn):
            _refuse_inside_torch_function(_fn.__name__)
            return self.tracer.create_proxy("call_function", _fn, (rhs, self), {})

        rimpl.__name__ = f"__r{name.strip('_')}__"
        setattr(Proxy, f"__r{name.strip('_')}__", rimpl)


_install_magic_methods()
