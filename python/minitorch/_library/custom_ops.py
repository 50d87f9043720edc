"""torch.library.custom_op's object: CustomOpDef, a Python function registered as the operator
torch.ops.<ns>.<name>, with register_fake, register_autograd and register_kernel."""

from minitorch._library import ops as _ops
from minitorch._library.schema import infer_schema, parse_schema

__all__ = ["CustomOpDef", "custom_op"]


def _split_name(qualname):
    if not isinstance(qualname, str) or qualname.count("::") != 1:
        raise ValueError(f"Expected qualname to be of the form 'namespace::name', got {qualname!r}")
    return qualname.split("::")


class CustomOpDef:
    """What custom_op returns: calling it calls torch.ops.<ns>.<name>.default."""

    def __init__(self, namespace, name, schema_text, fn, device_types):
        self._namespace = namespace
        self._name = name
        self._init_fn = fn
        self.__wrapped__ = fn
        self.__name__ = name
        self.__doc__ = fn.__doc__
        schema = parse_schema(f"{namespace}::{name}{schema_text}")
        self._opdef = _ops.register_def(_ops.OpDef(schema, custom=True), replace=True)
        self.register_kernel(device_types)(fn)

    @property
    def _qualname(self):
        return f"{self._namespace}::{self._name}"

    @property
    def _opoverload(self):
        return getattr(getattr(_ops.ops, self._namespace), self._name).default

    def __call__(self, *args, **kwargs):
        return self._opoverload(*args, **kwargs)

    def __repr__(self):
        return f"<CustomOpDef({self._qualname})>"

    def register_kernel(self, device_types, fn=None, /):
        """Registers fn as the implementation for device_types ("cpu", "cuda", a sequence, or None for all);
        usable as a decorator."""

        def inner(fn):
            if device_types is None:
                self._opdef.kernels["default"] = fn
            else:
                for d in [device_types] if isinstance(device_types, str) else device_types:
                    self._opdef.kernels[_ops.dispatch_slot(d)] = fn
            return fn

        return inner if fn is None else inner(fn)

    def register_fake(self, fn, /):
        """Registers the FakeTensor/meta implementation (shapes and dtypes of the outputs)."""
        self._opdef.fake = fn
        return fn

    def register_autograd(self, backward, /, *, setup_context=None):
        """Registers backward(ctx, *grads) -> one gradient per input, and setup_context(ctx, inputs, output)
        that saves what backward needs."""
        self._opdef.backward = backward
        self._opdef.setup_context = setup_context


def custom_op(name, fn=None, /, *, mutates_args, device_types=None, schema=None):
    """torch.library.custom_op: wraps a type-annotated function as the operator `name` ("ns::op"); the schema
    is inferred from the annotations unless given. Usable as @custom_op(name, mutates_args=...) or directly."""

    def inner(fn):
        ns, opname = _split_name(name)
        text = schema if schema is not None else infer_schema(fn, mutates_args=mutates_args)
        return CustomOpDef(ns, opname, text, fn, device_types)

    return inner if fn is None else inner(fn)
