# The TorchScript schema of a scripted function, from its annotations, and PyTorch's checks of a call against it.
"""A scripted function's schema (``g(Tensor x, int n=2) -> Tensor``) from its Python annotations, as
TorchScript writes it (an unannotated argument is a Tensor), and the argument checks TorchScript makes when
the function is called: arity, keyword names, and the types of Tensor, int, float, bool, str arguments and
their Optional forms, in PyTorch's words. Container types are named in the schema but not checked."""

import inspect
import types
import typing

from minitorch import _C

__all__ = ["Schema"]

_SCALARS = {int: "int", float: "float", bool: "bool", str: "str", complex: "complex"}


def _type_str(t):
    """TorchScript's spelling of an annotation in a schema; None for an annotation it has no name for."""
    if t is inspect.Parameter.empty or t is _C.Tensor:
        return "Tensor"
    if t in _SCALARS:
        return _SCALARS[t]
    if t is type(None) or t is None:
        return "NoneType"
    origin, args = typing.get_origin(t), typing.get_args(t)
    if origin in (typing.Union, types.UnionType) and len(args) == 2 and type(None) in args:
        inner = _type_str(args[0] if args[1] is type(None) else args[1])
        return None if inner is None else inner + "?"
    if origin is list and len(args) == 1:
        inner = _type_str(args[0])
        return None if inner is None else inner + "[]"
    if origin is tuple and args:
        parts = [_type_str(a) for a in args]
        return None if None in parts else "(" + ", ".join(parts) + ")"
    if origin is dict and len(args) == 2:
        k, v = _type_str(args[0]), _type_str(args[1])
        return None if None in (k, v) else f"Dict({k}, {v})"
    return None


def _default_str(v):
    if isinstance(v, bool) or v is None:
        return str(v)
    if isinstance(v, float):
        r = repr(v)
        return r[:-1] if r.endswith(".0") else r  # TorchScript prints 1.0 as "1."
    if isinstance(v, str):
        return f'"{v}"'
    return repr(v)


# what each checked type refuses: TorchScript converts bool to int and int/bool to float, and takes None for a
# Tensor (an undefined tensor)
_NOT_TENSOR = (bool, int, float, complex, str, list, tuple, dict)
_REFUSES = {
    "Tensor": _NOT_TENSOR,
    "int": (float, complex, str, list, tuple, dict, type(None)),
    "float": (complex, str, list, tuple, dict, type(None)),
    "bool": (float, complex, str, list, tuple, dict, type(None)),
    "str": (bool, int, float, complex, list, tuple, dict, _C.Tensor, type(None)),
}


class Schema:
    """The schema of fn (a Python function) under the given name, and ``check(args, kwargs)``."""

    def __init__(self, fn, name):
        self.name = name
        self.sig = inspect.signature(fn)
        try:
            hints = typing.get_type_hints(fn)
        except Exception:  # noqa: BLE001  (an annotation that does not evaluate: named as written)
            hints = dict(getattr(fn, "__annotations__", {}))
        self.params = []
        parts = []
        for p in self.sig.parameters.values():
            ann = hints.get(p.name, inspect.Parameter.empty)
            ts = _type_str(ann)
            self.params.append((p, ts, ann is inspect.Parameter.empty))
            spelled = ts or getattr(ann, "__name__", str(ann))
            part = f"{spelled} {p.name}"
            if p.default is not inspect.Parameter.empty:
                part += "=" + _default_str(p.default)
            parts.append(part)
        ret = hints.get("return", inspect.Parameter.empty)
        ret_s = _type_str(ret) or getattr(ret, "__name__", str(ret))
        self.text = f"{name}({', '.join(parts)}) -> {ret_s}"
        self.simple = all(
            p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) for p in self.sig.parameters.values()
        )

    def __str__(self):
        return self.text

    def check(self, args, kwargs):
        """Raises RuntimeError as TorchScript does when args/kwargs do not fit the schema."""
        if not self.simple:
            return
        params = self.params
        if len(args) > len(params):
            raise RuntimeError(
                f"{self.name}() expected at most {len(params)} argument(s) but received {len(args)} argument(s). "
                f"Declaration: {self.text}"
            )
        names = [p.name for p, _, _ in params]
        for k in kwargs:
            if k not in names:
                raise RuntimeError(
                    f"Unknown keyword argument '{k}' for operator '{self.name}'. Schema: {self.text}"
                )
            if names.index(k) < len(args):
                raise RuntimeError(
                    f"Argument '{k}' specified both as positional and keyword argument. Schema: {self.text}"
                )
        for i, (p, ts, inferred) in enumerate(params):
            if i < len(args):
                v = args[i]
            elif p.name in kwargs:
                v = kwargs[p.name]
            elif p.default is not inspect.Parameter.empty:
                continue
            else:
                raise RuntimeError(
                    f"{self.name}() is missing value for argument '{p.name}'. Declaration: {self.text}"
                )
            self._check_value(i, p.name, ts, inferred, v)

    def _check_value(self, pos, name, ts, inferred, v):
        if ts is None:
            return
        optional = ts.endswith("?")
        base = ts[:-1] if optional else ts
        refused = _REFUSES.get(base)
        if refused is None or (optional and v is None):
            return
        if not isinstance(v, refused):
            return
        if inferred:
            expected = "Tensor (inferred)"
            note = f"Inferred '{name}' to be of type 'Tensor' because it was not annotated with an explicit type.\n"
        else:
            expected = f"Optional[{base}]" if optional else base
            note = ""
        raise RuntimeError(
            f"{self.name}() Expected a value of type '{expected}' for argument '{name}' but instead found type "
            f"'{type(v).__name__}'.\n{note}Position: {pos}\nValue: {v!r}\nDeclaration: {self.text}"
        )
