"""The operator registry and torch.ops: the operators torch.library defines (`OpDef`: schema, kernels per
dispatch key, fake and autograd registrations), their callables (`OpOverload`, `OpOverloadPacket`) and the
attribute namespaces `torch.ops.<ns>.<op>.<overload>` they appear in.

PyTorch dispatches an operator through a key set in C++ (Python/fx tracing, Autograd, then a backend). Here an
OpOverload's call does the same in order: a `__torch_function__` override (an fx Proxy) records the call; a
CompositeImplicitAutograd kernel runs as plain code; when an input requires grad, a registered autograd formula
(or, for a custom_op without one, a node whose backward raises) wraps the backend kernel; else the kernel of the
first tensor argument's device runs ("CPU"/"CUDA"/"Meta", then CompositeExplicitAutograd). `torch.ops.aten.<op>`
maps an aten name to the torch function of that name (every overload is that function).
"""

import sys
import types

from minitorch import _C, overrides
from minitorch._library.schema import bind
from minitorch.autograd.function import Function

__all__ = ["OpDef", "OpOverload", "OpOverloadPacket", "lookup", "ops", "register_def", "remove_def"]

# {"ns::name": {overload name: OpDef}}
_REGISTRY = {}

# dispatch keys (as torch.library spells them) -> the slot our dispatcher looks up
_KEY_SLOTS = {
    "cpu": "cpu",
    "cuda": "cuda",
    "meta": "meta",
    "compositeimplicitautograd": "implicit",
    "compositeexplicitautograd": "default",
    "default": "default",
    "": "implicit",
    "autograd": "autograd",
    "autogradcpu": "autograd",
    "autogradcuda": "autograd",
}


def dispatch_slot(key):
    """Our kernel slot for a dispatch key or device type; ValueError for one we do not know."""
    slot = _KEY_SLOTS.get((key or "").lower())
    if slot is None:
        raise ValueError(f"Unknown dispatch key or device type: {key!r}")
    return slot


class OpDef:
    """One defined operator overload: its schema and what is registered for it."""

    def __init__(self, schema, *, custom=False):
        self.schema = schema
        self.kernels = {}
        self.fake = None
        self.backward = None
        self.setup_context = None
        self.custom = custom  # defined by custom_op: below autograd, so a missing formula raises in backward
        self._function = None

    @property
    def qualname(self):
        """ "ns::name" """
        return self.schema.name

    @property
    def dotted(self):
        """ "ns.name.overload" as PyTorch prints an OpOverload."""
        ns, name = self.schema.name.split("::")
        return f"{ns}.{name}.{self.schema.overload_name or 'default'}"


def register_def(opdef, *, replace=False, where=""):
    """Adds a definition; RuntimeError (PyTorch's words) when that name and overload already exist."""
    overloads = _REGISTRY.setdefault(opdef.qualname, {})
    key = opdef.schema.overload_name
    if key in overloads and not replace:
        raise RuntimeError(
            f"Tried to register an operator ({opdef.schema}) with the same name and overload name multiple "
            "times. Each overload's schema should only be registered with a single call to def(). Duplicate "
            f"registration: {where}. Original registration: {getattr(overloads[key], 'where', '')}"
        )
    opdef.where = where
    overloads[key] = opdef
    return opdef


def remove_def(qualname, overload):
    """Drops a definition (Library._destroy)."""
    overloads = _REGISTRY.get(qualname)
    if overloads is not None:
        overloads.pop(overload, None)
        if not overloads:
            del _REGISTRY[qualname]


def lookup(qualname, overload=""):
    """The OpDef of "ns::name" (and overload), or None."""
    return _REGISTRY.get(qualname, {}).get(overload)


def _tensors(values):
    for v in values:
        if _C._is_tensor(v):
            yield v
        elif isinstance(v, (list, tuple)):
            yield from (e for e in v if _C._is_tensor(e))


def _split(schema, values):
    """Positional and keyword arguments for a kernel from one value per schema argument."""
    args, kwargs = [], {}
    for a, v in zip(schema.arguments, values):
        if a.kwarg_only:
            kwargs[a.name] = v
        else:
            args.append(v)
    return args, kwargs


def _not_implemented(opdef, backend):
    name = opdef.qualname
    have = ", ".join(k.upper() if k in ("cpu", "cuda") else k for k in opdef.kernels)
    return NotImplementedError(
        f"Could not run '{name}' with arguments from the '{backend}' backend. This could be because the operator "
        "doesn't exist for this backend, or was omitted during the selective/custom build process (if using "
        f"custom build). '{name}' is only available for these backends: [{have}]."
    )


def _backend_kernel(opdef, values):
    tensors = list(_tensors(values))
    device = tensors[0].device.type if tensors else "cpu"
    if device == "meta" and opdef.fake is not None and "meta" not in opdef.kernels:
        return opdef.fake
    kernel = opdef.kernels.get(device) or opdef.kernels.get("default")
    if kernel is None:
        raise _not_implemented(opdef, {"cpu": "CPU", "cuda": "CUDA", "meta": "Meta"}.get(device, device))
    return kernel


def _autograd_function(opdef):
    """An autograd.Function whose forward runs the backend kernel (with grad off, as below PyTorch's Autograd
    key) and whose backward is the registered formula, or raises when none is registered."""
    if opdef._function is not None:
        return opdef._function
    schema = opdef.schema

    def forward(ctx, *values):
        args, kwargs = _split(schema, values)
        out = _backend_kernel(opdef, values)(*args, **kwargs)
        if opdef.setup_context is not None:
            opdef.setup_context(ctx, tuple(values), out)
        return out

    def backward(ctx, *grads):
        if opdef.backward is None:
            raise RuntimeError(
                f"Trying to backward through {opdef.dotted} but no autograd formula was registered. Please use "
                "register_autograd to add one."
            )
        res = opdef.backward(ctx, *grads)
        res = tuple(res) if isinstance(res, (tuple, list)) else (res,)
        if len(res) != len(schema.arguments):
            raise RuntimeError(
                f"Expected the backward formula of {opdef.dotted} to return {len(schema.arguments)} gradients "
                f"(one per input), got {len(res)}"
            )
        return res

    name = schema.name.split("::")[1]
    fn = type(name, (Function,), {"forward": staticmethod(forward), "backward": staticmethod(backward)})
    opdef._function = fn
    return fn


def call_op(opdef, args, kwargs):
    """Runs an operator as the dispatcher would (see the module's docstring)."""
    values = bind(opdef.schema, args, kwargs)
    implicit = opdef.kernels.get("implicit")
    if implicit is not None:
        return implicit(*args, **kwargs)
    needs_grad = _C.is_grad_enabled() and any(t.requires_grad for t in _tensors(values))
    if needs_grad:
        if "autograd" in opdef.kernels and opdef.backward is None:
            a, k = _split(opdef.schema, values)
            return opdef.kernels["autograd"](*a, **k)
        if opdef.backward is not None or opdef.custom:
            return _autograd_function(opdef).apply(*values)
    a, k = _split(opdef.schema, values)
    return _backend_kernel(opdef, values)(*a, **k)


class OpOverload:
    """One overload of an operator, torch.ops.<ns>.<op>.<overload>: callable, with `_schema`, `name()`,
    `namespace`, `overloadpacket`."""

    def __init__(self, packet, overload_name):
        self.overloadpacket = packet
        self._overloadname = overload_name or "default"
        self._key = overload_name
        self.namespace = packet._ns
        self.__name__ = f"{packet._name}.{self._overloadname}"
        self.__qualname__ = self.__name__
        self.__module__ = f"torch.ops.{packet._ns}"
        self._mt_public_name = f"torch.ops.{packet._ns}.{packet._name}.{self._overloadname}"

    @property
    def _opdef(self):
        opdef = lookup(self.overloadpacket._qualname, self._key)
        if opdef is None:
            raise RuntimeError(f"operator {self.overloadpacket._qualname} does not exist")
        return opdef

    @property
    def _schema(self):
        return self._opdef.schema

    def name(self):
        """ "ns::op" or "ns::op.overload" """
        return self.overloadpacket._qualname + (f".{self._key}" if self._key else "")

    def __call__(self, *args, **kwargs):
        relevant = overrides._relevant(args, kwargs)
        if overrides.has_torch_function(relevant):
            return overrides.handle_torch_function(self, relevant, *args, **kwargs)
        return call_op(self._opdef, args, kwargs)

    def __repr__(self):
        return f"{self.overloadpacket._ns}.{self.__name__}"

    def __reduce__(self):
        return (_resolve, (self.overloadpacket._ns, self.overloadpacket._name, self._overloadname))


class OpOverloadPacket:
    """torch.ops.<ns>.<op>: the operator with all its overloads; `.default` and `.<overload>` are OpOverloads,
    calling the packet calls the overload whose schema accepts the arguments."""

    def __init__(self, ns, name):
        self._ns = ns
        self._name = name
        self._qualname = f"{ns}::{name}"
        self.__name__ = name
        self.__qualname__ = name
        self.__module__ = f"torch.ops.{ns}"
        self._mt_public_name = f"torch.ops.{ns}.{name}"
        self._cache = {}

    def overloads(self):
        """The overload names ("default" for the unnamed one)."""
        return [k or "default" for k in _REGISTRY.get(self._qualname, {})]

    def __getattr__(self, key):
        if key.startswith("__"):
            raise AttributeError(key)
        overload = "" if key == "default" else key
        if lookup(self._qualname, overload) is None:
            raise AttributeError(
                f"The underlying op of '{self._ns}.{self._name}' has no overload name '{key}'"
            )
        op = self._cache.get(overload)
        if op is None:
            op = self._cache[overload] = OpOverload(self, overload)
        setattr(self, key, op)
        return op

    def __call__(self, *args, **kwargs):
        names = list(_REGISTRY.get(self._qualname, {}))
        if not names:
            raise RuntimeError(f"operator {self._qualname} does not exist")
        if len(names) == 1 or overrides.has_torch_function(overrides._relevant(args, kwargs)):
            return getattr(self, names[0] or "default")(*args, **kwargs)
        errors = []
        for n in names:
            try:
                values = bind(lookup(self._qualname, n).schema, args, kwargs)
            except RuntimeError as e:
                errors.append(str(e))
                continue
            del values
            return getattr(self, n or "default")(*args, **kwargs)
        raise RuntimeError(
            "Overloaded torch operator invoked from Python failed to match any schema:\n"
            + "\n\n".join(errors)
        )

    def __repr__(self):
        return f"{self._ns}.{self._name}"

    def __reduce__(self):
        return (_resolve, (self._ns, self._name, None))


def _resolve(ns, name, overload):
    packet = getattr(getattr(ops, ns), name)
    return packet if overload is None else getattr(packet, overload)


class _OpNamespace(types.ModuleType):
    """torch.ops.<ns>: its operators as attributes."""

    def __init__(self, name):
        super().__init__(f"torch.ops.{name}")
        self.name = name
        self.__file__ = "torch.ops"

    def __getattr__(self, op_name):
        if op_name.startswith("__"):
            raise AttributeError(op_name)
        if f"{self.name}::{op_name}" not in _REGISTRY:
            raise AttributeError(f"'_OpNamespace' '{self.name}' object has no attribute '{op_name}'")
        packet = OpOverloadPacket(self.name, op_name)
        setattr(self, op_name, packet)
        return packet


class _AtenOverload:
    """torch.ops.aten.<op>.<overload>: the torch function of that name (our ops are not split by overload)."""

    def __init__(self, fn, name, overload):
        self._fn = fn
        self.__name__ = f"{name}.{overload}"
        self._mt_public_name = f"torch.ops.aten.{name}.{overload}"
        self.namespace = "aten"

    def __call__(self, *args, **kwargs):
        return self._fn(*args, **kwargs)

    def name(self):
        """ "aten::op" or "aten::op.overload" """
        base, overload = self.__name__.split(".")
        return f"aten::{base}" + ("" if overload == "default" else f".{overload}")

    def __repr__(self):
        return f"aten.{self.__name__}"


class _AtenPacket:
    def __init__(self, fn, name):
        self._fn = fn
        self._name = name
        self.__name__ = name
        self._mt_public_name = f"torch.ops.aten.{name}"

    def __getattr__(self, overload):
        if overload.startswith("__"):
            raise AttributeError(overload)
        op = _AtenOverload(self._fn, self._name, overload)
        setattr(self, overload, op)
        return op

    def __call__(self, *args, **kwargs):
        return self._fn(*args, **kwargs)

    def __repr__(self):
        return f"aten.{self._name}"


class _AtenNamespace(_OpNamespace):
    def __getattr__(self, op_name):
        if op_name.startswith("__"):
            raise AttributeError(op_name)
        fn = None
        for mod in ("minitorch", "minitorch._C", "minitorch.nn.functional"):
            # the torch namespace sits above this layer; it is found, not imported
            fn = getattr(sys.modules.get(mod), op_name, None)
            if callable(fn):
                break
        if not callable(fn):
            raise AttributeError(f"'_OpNamespace' 'aten' object has no attribute '{op_name}'")  # noqa: TRY004
        packet = _AtenPacket(overrides.original_function(fn), op_name)
        setattr(self, op_name, packet)
        return packet

    def _mt_packet(self, op_name):
        """torch.ops.aten.<op_name> as a name even where we have no function of that name (convolution_backward):
        the key the flop counter files counts under, as PyTorch's counts are keyed by aten packets."""
        packet = self.__dict__.get(op_name)
        if packet is None:
            try:
                packet = getattr(self, op_name)
            except AttributeError:
                packet = _AtenPacket(_no_function(op_name), op_name)
                setattr(self, op_name, packet)
        return packet


def _no_function(name):
    def call(*args, **kwargs):
        raise NotImplementedError(f"torch.ops.aten.{name} has no minitorch function of that name")

    return call


class _Ops(types.ModuleType):
    """torch.ops: one namespace per attribute, created on first access."""

    def __init__(self):
        super().__init__("torch.ops")
        self.__file__ = "_ops.py"

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        ns = _AtenNamespace(name) if name == "aten" else _OpNamespace(name)
        setattr(self, name, ns)
        return ns

    def load_library(self, path):
        """PyTorch loads a shared library of C++ operators; ours are defined from Python only."""
        raise NotImplementedError(
            "torch.ops.load_library: minitorch has no C++ operator registration; define operators with "
            "torch.library (custom_op, Library.define/impl)"
        )


ops = _Ops()
