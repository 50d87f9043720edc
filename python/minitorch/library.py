"""torch.library: defining operators from Python (custom_op, Library.define/impl, register_fake,
register_autograd, register_kernel) that then appear as torch.ops.<namespace>.<op>; opcheck tests one."""

import inspect
import warnings

from minitorch import _C
from minitorch._library import ops as _ops
from minitorch._library.custom_ops import CustomOpDef, custom_op
from minitorch._library.schema import infer_schema, parse_schema

__all__ = [
    "Library",
    "custom_op",
    "define",
    "fallthrough_kernel",
    "get_ctx",
    "impl",
    "impl_abstract",
    "infer_schema",
    "opcheck",
    "register_autograd",
    "register_fake",
    "register_kernel",
]

# namespaces a "DEF" Library holds (PyTorch allows one TORCH_LIBRARY block per namespace)
_DEF_NAMESPACES = {
    "aten": "/__w/pytorch/pytorch/build/aten/src/ATen/RegisterSchema.cpp:6",
    "prim": "",
    "prims": "",
}


def _caller():
    frame = inspect.stack()[2]
    return f"{frame.filename}:{frame.lineno}"


class Library:
    """torch.library.Library(ns, kind): "DEF" owns a namespace (one per namespace), "FRAGMENT" adds definitions
    to it, "IMPL" only registers kernels; `define(schema)` declares an operator, `impl(name, fn, key)` gives
    it a kernel. `_destroy()` removes what it registered."""

    def __init__(self, ns, kind, dispatch_key=""):
        if kind not in ("IMPL", "DEF", "FRAGMENT"):
            raise ValueError(f"Unsupported kind: {kind}")
        if ns in ("prim", "prims") and kind == "DEF":
            raise ValueError(ns, " is a reserved namespace. Please try creating a library with another name.")
        where = _caller()
        if kind == "DEF":
            if ns in _DEF_NAMESPACES:
                raise RuntimeError(
                    f"Only a single TORCH_LIBRARY can be used to register the namespace {ns}; please put all of "
                    "your definitions in a single TORCH_LIBRARY block.  If you were trying to specify "
                    "implementations, consider using TORCH_LIBRARY_IMPL (which can be duplicated).  If you "
                    "really intended to define operators for a single namespace in a distributed way, you can "
                    "use TORCH_LIBRARY_FRAGMENT to explicitly indicate this.  Previous registration of "
                    f"TORCH_LIBRARY was registered at {_DEF_NAMESPACES[ns]}; latest registration was registered "
                    f"at {where}"
                )
            _DEF_NAMESPACES[ns] = where
        self.ns = ns
        self.kind = kind
        self.dispatch_key = dispatch_key
        self._defs = []
        self._impls = []
        self._where = where

    def __repr__(self):
        return f"Library(kind={self.kind}, ns={self.ns}, dispatch_key={self.dispatch_key})>"

    def define(self, schema, alias_analysis="", *, tags=()):
        """Declares an operator from its schema ("name(Tensor x) -> Tensor"); returns its name."""
        if self.kind == "IMPL":
            raise RuntimeError("define() is not allowed on a Library of kind IMPL")
        parsed = parse_schema(schema)
        if "::" in parsed.name:
            ns = parsed.name.split("::")[0]
            if ns != self.ns:
                block = "TORCH_LIBRARY_FRAGMENT" if self.kind == "FRAGMENT" else "TORCH_LIBRARY"
                raise RuntimeError(
                    f"Explicitly provided namespace ({ns}) in schema string does not match namespace of "
                    f"enclosing {block} block ({self.ns}).  Move this definition to the (unique) TORCH_LIBRARY "
                    "block corresponding to this namespace (and consider deleting the namespace from your "
                    f"schema string.)  (Error occurred while processing {block} block at {self._where})"
                )
        else:
            parsed.name = f"{self.ns}::{parsed.name}"
        _ops.register_def(_ops.OpDef(parsed), where=f"registered at {_caller()}")
        self._defs.append((parsed.name, parsed.overload_name))
        return parsed.name.split("::")[1] + (f".{parsed.overload_name}" if parsed.overload_name else "")

    def _opdef(self, op_name):
        if isinstance(op_name, (_ops.OpOverload, _ops.OpOverloadPacket)):
            op_name = op_name.name() if isinstance(op_name, _ops.OpOverload) else op_name._qualname
        name, _, overload = op_name.partition(".")
        qual = name if "::" in name else f"{self.ns}::{name}"
        opdef = _ops.lookup(qual, overload)
        if opdef is None:
            raise RuntimeError(
                f"operator {qual}{'.' + overload if overload else ''} does not exist (define it before "
                "registering an implementation)"
            )
        return opdef

    def impl(self, op_name, fn, dispatch_key="", *, with_keyset=False, allow_override=False):
        """Registers fn as op_name's kernel for dispatch_key ("CPU", "CUDA", "Meta", "Autograd",
        "CompositeImplicitAutograd", "CompositeExplicitAutograd"; default: this Library's key)."""
        if not callable(fn):
            raise TypeError(f"Input function is required to be a callable but found type {type(fn)}")
        if fn is fallthrough_kernel:
            raise NotImplementedError(
                "Library.impl(..., fallthrough_kernel): minitorch has no dispatch keys to fall through"
            )
        key = dispatch_key or self.dispatch_key or "CompositeImplicitAutograd"
        opdef = self._opdef(op_name)
        slot = _ops.dispatch_slot(key)
        if slot in opdef.kernels and not allow_override:
            raise RuntimeError(
                f"This is not allowed since there's already a kernel registered from python overriding "
                f"{opdef.qualname.split('::')[1]}'s behavior for {key} dispatch key and {self.ns} namespace."
            )
        opdef.kernels[slot] = fn
        self._impls.append((opdef, slot))

    def _register_fake(self, op_name, fn):
        self._opdef(op_name).fake = fn

    def _destroy(self):
        """Removes this Library's definitions and kernels (and its hold on the namespace)."""
        for opdef, slot in self._impls:
            opdef.kernels.pop(slot, None)
        for name, overload in self._defs:
            _ops.remove_def(name, overload)
        if self.kind == "DEF":
            _DEF_NAMESPACES.pop(self.ns, None)
        self._defs, self._impls = [], []


# Libraries made by the functional API, one FRAGMENT per namespace, kept alive here
_FRAGMENTS = {}


def _fragment(ns):
    lib = _FRAGMENTS.get(ns)
    if lib is None:
        lib = _FRAGMENTS[ns] = Library(ns, "FRAGMENT")
    return lib


def define(qualname, schema, *, lib=None, tags=()):
    """Defines the operator qualname ("ns::op") with schema ("(Tensor x) -> Tensor")."""
    if not isinstance(qualname, str):
        # torch.library.define(lib, schema) is the older spelling of Library.define
        return qualname.define(schema)
    ns, name = qualname.split("::")
    lib = lib if lib is not None else _fragment(ns)
    return lib.define(name + schema, tags=tags)


def _resolve_opdef(op):
    if isinstance(op, CustomOpDef):
        return op._opdef
    if isinstance(op, _ops.OpOverload):
        return op._opdef
    if isinstance(op, _ops.OpOverloadPacket):
        op = op._qualname
    name, _, overload = op.partition(".")
    opdef = _ops.lookup(name, overload)
    if opdef is None:
        raise RuntimeError(f"operator {op} does not exist")
    return opdef


def impl(qualname, types, func=None, *, lib=None):
    """Registers a kernel: impl("ns::op", "cpu")(fn) for device types, or impl(lib, "op", "CPU")(fn) (the
    older form: a Library, an op name and a dispatch key)."""
    if isinstance(qualname, Library):
        library, name, key = qualname, types, func if isinstance(func, str) else ""

        def register(fn):
            library.impl(name, fn, key)
            return fn

        return register

    def register(fn):
        opdef = _resolve_opdef(qualname)
        for t in [types] if isinstance(types, str) else types:
            opdef.kernels[_ops.dispatch_slot(t)] = fn
        return fn

    return register if func is None else register(func)


def register_kernel(op, device_types, func=None, /, *, lib=None):
    """Registers func as op's implementation for device_types."""
    if isinstance(op, CustomOpDef):
        return op.register_kernel(device_types, func)
    return impl(op, device_types if device_types is not None else "default", func, lib=lib)


def register_fake(op, func=None, /, *, lib=None, _stacklevel=1, allow_override=False):
    """Registers the fake (shape-only) implementation of op; usable as a decorator."""

    def register(fn):
        _resolve_opdef(op).fake = fn
        return fn

    return register if func is None else register(func)


def impl_abstract(qualname, func=None, *, lib=None, _stacklevel=1):
    """The older name of register_fake (deprecated in PyTorch, with this warning)."""
    warnings.warn(
        "`torch.library.impl_abstract` was renamed to `torch.library.register_fake`. Please use that instead; we "
        "will remove `torch.library.impl_abstract` in a future version of PyTorch.",
        FutureWarning,
        stacklevel=2,
    )
    return register_fake(qualname, func, lib=lib)


def fallthrough_kernel():
    """A kernel that defers to the next dispatch key (PyTorch's sentinel); registering it here is refused."""
    raise NotImplementedError("fallthrough_kernel() should never be called.")


def register_autograd(op, backward, /, *, setup_context=None, lib=None):
    """Registers the backward formula (and setup_context) of op."""
    opdef = _resolve_opdef(op)
    opdef.backward = backward
    opdef.setup_context = setup_context


def get_ctx():
    """PyTorch's fake-implementation context (for data-dependent output shapes); fake implementations run on
    meta tensors here, so there is none."""
    raise RuntimeError(
        "torch.library.get_ctx: no fake-tensor context is active (minitorch has no FakeTensorMode)"
    )


def _same(a, b):
    return (
        a.shape == b.shape and a.dtype == b.dtype and bool((a == b).all())
        if a.numel()
        else a.shape == b.shape
    )


_OPCHECK_UTILS = ("test_schema", "test_autograd_registration", "test_faketensor", "test_aot_dispatch_dynamic")


def opcheck(op, args, kwargs=None, *, test_utils=_OPCHECK_UTILS, raise_exception=True, atol=None, rtol=None):
    """torch.library.opcheck with PyTorch's four tests: test_schema (outputs do not alias inputs; only
    arguments the schema marks as written change), test_autograd_registration (an op whose inputs require grad
    has an autograd registration, or its outputs do not silently require grad), test_faketensor (the fake
    implementation's outputs have the real ones' shapes and dtypes) and test_aot_dispatch_dynamic (here: the op
    under torch.compile gives the eager results). Returns {test: "SUCCESS"} or raises OpCheckError."""
    kwargs = kwargs or {}
    if isinstance(test_utils, str):
        test_utils = (test_utils,)
    if not isinstance(test_utils, (tuple, list)) or not set(test_utils) <= set(_OPCHECK_UTILS):
        raise ValueError(
            f"opcheck(op, ..., test_utils={test_utils}), expected test_utils to be subset of {_OPCHECK_UTILS} but "
            "it was not"
        )
    opdef = _resolve_opdef(op)
    caller = op if callable(op) else getattr(getattr(_ops.ops, opdef.qualname.split("::")[0]), opdef.qualname)
    checks = {
        "test_schema": _check_schema,
        "test_autograd_registration": _check_autograd_registration,
        "test_faketensor": _check_fake,
        "test_aot_dispatch_dynamic": _check_compiled,
    }
    results = {}
    for test in test_utils:
        try:
            checks[test](opdef, caller, args, kwargs)
            results[test] = "SUCCESS"
        except Exception as e:  # reported as PyTorch's OpCheckError
            if raise_exception:
                raise OpCheckError(
                    f"opcheck(op, ...): {test} failed with {e} (scroll up for stack trace)"
                ) from e
            results[test] = e
    return results


def _check_autograd_registration(opdef, caller, args, kwargs):
    flat = [t for v in (*args, *kwargs.values()) for t in _flat_tensors(v)]
    if not any(t.requires_grad for t in flat):
        return  # as PyTorch's opcheck: nothing to test
    if opdef.custom or opdef.backward is not None or {"autograd", "implicit"} & set(opdef.kernels):
        return
    ids = {id(t) for t in flat}
    outs = _flat_tensors(caller(*args, **kwargs))
    if any(t.requires_grad and id(t) not in ids for t in outs):
        raise AssertionError(
            f"{opdef.qualname}: at least one output of this operator has requires_grad=True but the operator does "
            "not have an autograd kernel defined at an autograd key (e.g. DispatchKey::Autograd). This could mean "
            "that you have incorrectly registered an autograd kernel to a non-Autograd DispatchKey, which may lead "
            "to silently incorrect results. If your operator consists of regular PyTorch operations, consider not "
            "using an operator at all or registering your operator as CompositeImplicitAutograd. If you have an "
            "autograd.Function registered to a backend (CPU/CUDA/XPU) key, the correct location for it is the "
            "Autograd key."
        )


def _check_compiled(opdef, caller, args, kwargs):
    import sys

    # torch.compile sits above this module: reached through the package root, which loads it lazily
    compiled = sys.modules["minitorch"].compile(lambda *a, **k: caller(*a, **k), backend="eager")
    clone = [t.detach().clone() if _C._is_tensor(t) else t for t in args]
    eager = _flat_tensors(caller(*args, **kwargs))
    got = _flat_tensors(compiled(*clone, **kwargs))
    if len(eager) != len(got) or not all(_same(a.detach(), b.detach()) for a, b in zip(eager, got)):
        raise RuntimeError(f"{opdef.qualname}: the op under torch.compile gives results different from eager")


class OpCheckError(Exception):
    """What opcheck raises when a test fails."""


def _flat_tensors(v):
    if _C._is_tensor(v):
        return [v]
    if isinstance(v, (list, tuple)):
        return [t for e in v for t in _flat_tensors(e)]
    return []


def _check_schema(opdef, caller, args, kwargs):
    from minitorch._library.schema import bind

    values = bind(opdef.schema, args, kwargs)
    before = [[t.clone() for t in _flat_tensors(v)] for v in values]
    out = caller(*args, **kwargs)
    ins = {t.data_ptr() for v in values for t in _flat_tensors(v) if t.numel()}
    if any(t.numel() and t.data_ptr() in ins for t in _flat_tensors(out)):
        raise RuntimeError(
            "The output of this custom operator (1) must not also be an input to this custom operator and (2) "
            "may not alias any inputs to this custom operator or other returns. The most common way to trigger "
            "this error is if we have y = custom_op(x) and y and x are the same Tensor. Please instead return a "
            "clone of the offending output tensor(s) (e.g. return x.clone()) or refactor the custom operator to "
            "not return y."
        )
    for a, v, old in zip(opdef.schema.arguments, values, before):
        if a.is_write:
            continue
        for t, o in zip(_flat_tensors(v), old):
            if not _same(t, o):
                raise RuntimeError(
                    f"{opdef.qualname} mutated argument '{a.name}', which its schema does not mark as mutable "
                    f"(declare it in mutates_args). Schema: {opdef.schema}"
                )


def _check_fake(opdef, caller, args, kwargs):
    if opdef.fake is None:
        return
    real = _flat_tensors(caller(*args, **kwargs))
    fake = _flat_tensors(opdef.fake(*args, **kwargs))
    if len(real) != len(fake) or any(r.shape != f.shape or r.dtype != f.dtype for r, f in zip(real, fake)):
        raise RuntimeError(
            "The fake implementation's outputs do not match the real ones: "
            f"{[(tuple(f.shape), f.dtype) for f in fake]} vs {[(tuple(r.shape), r.dtype) for r in real]}"
        )
