"""Operator schemas: parsing PyTorch's schema language ("ns::name.overload(Tensor x, int n=1) -> Tensor"), checking
a call's arguments against one, and inferring one from a Python function's type annotations."""

import inspect
import re
import typing

from minitorch import _C

__all__ = ["Argument", "FunctionSchema", "infer_schema", "parse_schema"]

# the base types a schema may name; `?` makes a type optional and `[]`/`[N]` a list of it
_BASE_TYPES = frozenset((
    "Tensor", "int", "SymInt", "float", "bool", "str", "Scalar", "ScalarType", "Device", "Layout",
    "MemoryFormat", "Generator", "Dimname", "Storage", "Stream", "Any", "complex", "t", "GraphModule",
))  # fmt: skip

_TOKEN = re.compile(
    r"\s*(?:(?P<arrow>->)|(?P<scope>::)|(?P<number>-?\d+(?:\.\d*)?(?:[eE][-+]?\d+)?)|"
    r"(?P<ident>[A-Za-z_][A-Za-z0-9_]*)|(?P<string>'[^']*'|\"[^\"]*\")|(?P<punct>[()\[\],?!*=.|]))"
)


class Argument:
    """One argument or return of a schema: its name, type (as the schema spells it), default (None when it has
    none, `_NO_DEFAULT` distinguishes a default of None), whether it is keyword-only, and its alias annotation."""

    def __init__(self, name, type_str, default_text=None, kwarg_only=False, alias=None, is_write=False):
        self.name = name
        self.type = type_str
        self.default_text = default_text
        self.kwarg_only = kwarg_only
        self.alias = alias
        self.is_write = is_write

    @property
    def has_default_value(self):
        """Whether the schema gives this argument a default."""
        return self.default_text is not None

    @property
    def default_value(self):
        """The default as a Python value (None when there is none)."""
        return _default_value(self.default_text, self.type) if self.default_text is not None else None

    @property
    def alias_info(self):
        """The alias annotation ("a", "a!"), or None."""
        if self.alias is None:
            return None
        return self.alias + ("!" if self.is_write else "")

    def _type_text(self):
        if self.alias is None:
            return self.type
        ann = f"({self.alias}{'!' if self.is_write else ''})"
        # the annotation sits after the base type, before any list or optional suffix
        m = re.match(r"([A-Za-z]+)(.*)", self.type)
        return m.group(1) + ann + m.group(2)

    def __str__(self):
        out = self._type_text()
        if self.name:
            out += " " + self.name
        if self.default_text is not None:
            text = self.default_text
            if self.type.startswith("float") and re.fullmatch(r"[-+\d.eE]+", text):
                # PyTorch prints the C++ double with 17 digits, an integral one with a bare point (2.)
                text = f"{float(text):.17g}"
                if not re.search(r"[.eEn]", text):
                    text += "."
            out += "=" + text
        return out

    __repr__ = __str__


class FunctionSchema:
    """A parsed schema: `name` ("ns::op"), `overload_name` ("" for the default overload), `arguments`,
    `returns`; str() prints it in PyTorch's form."""

    def __init__(self, name, overload_name, arguments, returns):
        self.name = name
        self.overload_name = overload_name
        self.arguments = arguments
        self.returns = returns

    @property
    def is_mutable(self):
        """Whether some argument is annotated as written (`Tensor(a!)`)."""
        return any(a.is_write for a in self.arguments)

    def __str__(self):
        args, star = [], False
        for a in self.arguments:
            if a.kwarg_only and not star:
                args.append("*")
                star = True
            args.append(str(a))
        if len(self.returns) == 1 and not self.returns[0].name:
            rets = str(self.returns[0])
        else:
            rets = "(" + ", ".join(str(r) for r in self.returns) + ")"
        name = self.name + (f".{self.overload_name}" if self.overload_name else "")
        return f"{name}({', '.join(args)}) -> {rets}"

    __repr__ = __str__


def _default_value(text, type_str):
    if text == "None":
        return None
    if text in ("True", "False"):
        return text == "True"
    if text[:1] in "'\"":
        return text[1:-1]
    if text.startswith("["):
        inner = text[1:-1].strip()
        base = type_str.split("[")[0]
        return [_default_value(t.strip(), base) for t in inner.split(",")] if inner else []
    if type_str.split("[")[0].rstrip("?") in ("int", "SymInt") and "[" in type_str:
        return [int(text)]  # int[2] x=1 broadcasts
    try:
        return int(text)
    except ValueError:
        return float(text)


class _Parser:
    def __init__(self, text):
        self.text = text
        self.toks = []  # (kind, value, start, end)
        pos = 0
        while pos < len(text):
            if text[pos:].strip() == "":
                break
            m = _TOKEN.match(text, pos)
            if m is None:
                self._fail_at(pos, pos + 1, f"unexpected character '{text[pos]}' here:")
            kind = m.lastgroup
            start = m.start(kind)
            self.toks.append((kind if kind != "punct" else m.group(kind), m.group(kind), start, m.end()))
            pos = m.end()
        self.toks.append(("eof", "", len(text), len(text) + 1))
        self.i = 0

    def _fail_at(self, start, end, msg):
        caret = " " * start + "~" * max(end - start, 1) + " <--- HERE"
        raise RuntimeError(f"{msg}\n{self.text}\n{caret}\n")

    def peek(self, k=0):
        return self.toks[min(self.i + k, len(self.toks) - 1)]

    def next(self):
        tok = self.peek()
        self.i += 1
        return tok

    def expect(self, kind):
        tok = self.next()
        if tok[0] != kind:
            self._fail_at(tok[2], tok[3], f"expected {kind} but found '{tok[0]}' here:")
        return tok

    def accept(self, kind):
        if self.peek()[0] == kind:
            return self.next()
        return None

    def name(self):
        first = self.expect("ident")[1]
        if self.accept("scope"):
            first += "::" + self.expect("ident")[1]
        overload = ""
        if self.accept("."):
            overload = self.expect("ident")[1]
        return first, overload

    def type_(self):
        tok = self.expect("ident")
        base = tok[1]
        if base not in _BASE_TYPES:
            self._fail_at(
                tok[2],
                tok[3],
                "\nunknown type specifier. Common valid schema types include Tensor, SymInt, int, float, bool, "
                "Scalar; for a full list, please see "
                "https://github.com/pytorch/pytorch/blob/main/aten/src/ATen/native/README.md#func :",
            )
        alias, is_write = None, False
        if self.peek()[0] == "(":
            self.next()
            alias = self.expect("ident")[1]
            if self.accept("!"):
                is_write = True
            if self.accept("arrow"):
                self.expect("*")
            self.expect(")")
        suffix = ""
        while True:
            if self.accept("?"):
                suffix += "?"
            elif self.accept("["):
                n = self.accept("number")
                self.expect("]")
                suffix += f"[{n[1]}]" if n else "[]"
            else:
                break
        return base + suffix, alias, is_write

    def default(self):
        tok = self.peek()
        if tok[0] == "[":
            start = tok[2]
            depth = 0
            while True:
                t = self.next()
                if t[0] == "[":
                    depth += 1
                elif t[0] == "]":
                    depth -= 1
                    if depth == 0:
                        return self.text[start : t[3]]
                elif t[0] == "eof":
                    self._fail_at(t[2], t[3], "expected ] but found 'eof' here:")
        tok = self.next()
        if tok[0] not in ("ident", "number", "string"):
            self._fail_at(tok[2], tok[3], f"expected a default value but found '{tok[0]}' here:")
        return tok[1]

    def argument(self, kwarg_only, is_return=False):
        type_str, alias, is_write = self.type_()
        name = ""
        if self.peek()[0] == "ident":
            name = self.next()[1]
        elif not is_return:
            tok = self.peek()
            self._fail_at(tok[2], tok[3], f"expected ident but found '{tok[0]}' here:")
        default = None
        if not is_return and self.accept("="):
            default = self.default()
        return Argument(name, type_str, default, kwarg_only, alias, is_write)

    def arguments(self):
        self.expect("(")
        args, kwarg_only = [], False
        if self.accept(")"):
            return args
        while True:
            if self.accept("*"):
                kwarg_only = True
            else:
                args.append(self.argument(kwarg_only))
            if self.accept(")"):
                return args
            if not self.accept(","):
                tok = self.peek()
                self._fail_at(tok[2], tok[3], f"expected ) but found '{tok[0]}' here:")

    def returns(self):
        if self.peek()[0] == "(":
            self.next()
            rets = []
            if self.accept(")"):
                return rets
            while True:
                rets.append(self.argument(False, is_return=True))
                if self.accept(")"):
                    return rets
                self.expect(",")
        return [self.argument(False, is_return=True)]


def parse_schema(text, *, name_required=True):
    """A FunctionSchema from PyTorch's schema text ("ns::name.overload(args) -> returns"); without
    name_required the text may start at the argument list ("(Tensor x) -> Tensor", name "")."""
    p = _Parser(text)
    if p.peek()[0] == "(" and not name_required:
        name, overload = "", ""
    else:
        name, overload = p.name()
    args = p.arguments()
    p.expect("arrow")
    rets = p.returns()
    p.expect("eof")
    return FunctionSchema(name, overload, args, rets)


# ---- checking a call against a schema


def _type_name(v):
    if _C._is_tensor(v):
        return "Tensor"
    return type(v).__name__


def _matches(t, v):
    if t.endswith("?"):
        return v is None or _matches(t[:-1], v)
    if t.endswith("]"):
        base = t[: t.index("[")]
        if base in ("int", "SymInt") and isinstance(v, int) and not isinstance(v, bool):
            return True  # int[2] accepts one int
        return isinstance(v, (list, tuple)) and all(_matches(base, e) for e in v)
    if t == "Tensor":
        return _C._is_tensor(v)
    if t in ("int", "SymInt"):
        return isinstance(v, int) and not isinstance(v, bool)
    if t == "float":
        return isinstance(v, (int, float)) and not isinstance(v, bool)
    if t == "bool":
        return isinstance(v, bool)
    if t == "str":
        return isinstance(v, str)
    if t == "Scalar":
        return isinstance(v, (int, float, complex, bool))
    return True


def bind(schema, args, kwargs):
    """The call's arguments as one value per schema argument (defaults filled in), checked against the
    schema's types with PyTorch's messages."""
    decl = str(schema)
    fname = schema.name + (f".{schema.overload_name}" if schema.overload_name else "")
    positional = [a for a in schema.arguments if not a.kwarg_only]
    if len(args) > len(positional):
        raise RuntimeError(
            f"{fname}() expected at most {len(positional)} argument(s) but received {len(args)} argument(s). "
            f"Declaration: {decl}"
        )
    names = {a.name for a in schema.arguments}
    for k in kwargs:
        if k not in names:
            raise RuntimeError(f"Unknown keyword argument '{k}' for operator '{fname}'. Schema: {decl}")
    values = []
    for i, a in enumerate(schema.arguments):
        if i < len(args):
            if a.name in kwargs:
                raise RuntimeError(f"Argument '{a.name}' specified both as positional and keyword argument")
            v = args[i]
        elif a.name in kwargs:
            v = kwargs[a.name]
        elif a.has_default_value:
            v = a.default_value
        else:
            raise RuntimeError(f"{fname}() is missing value for argument '{a.name}'. Declaration: {decl}")
        if not _matches(a.type, v):
            kind = "Position" if i < len(args) else "Keyword"
            where = f"Position: {i}" if i < len(args) else f"Keyword: {a.name}"
            del kind
            raise RuntimeError(
                f"{fname}() Expected a value of type '{a.type}' for argument '{a.name}' but instead found type "
                f"'{_type_name(v)}'.\n{where}\nValue: {v}\nDeclaration: {decl}\n"
                f"Cast error details: Unable to cast {v} to {a.type}"
            )
        values.append(v)
    return values


# ---- inferring a schema from annotations


def _annotation_type(ann):
    """The schema type of a Python annotation, or None when it has none."""
    tensor = _C.Tensor
    # an int is inferred as SymInt, as PyTorch does (a size may be symbolic under export)
    simple = {tensor: "Tensor", int: "SymInt", float: "float", bool: "bool", str: "str"}
    if ann in simple:
        return simple[ann]
    for name, t in (("ScalarType", "dtype"), ("Device", "device")):
        if getattr(_C, t, None) is ann:
            return name
    origin = typing.get_origin(ann)
    args = typing.get_args(ann)
    if origin in (typing.Union, getattr(__import__("types"), "UnionType", None)):
        rest = [a for a in args if a is not type(None)]
        if set(rest) == {int, float, bool}:
            return "Scalar?" if len(rest) < len(args) else "Scalar"
        if len(rest) == 1 and len(args) == 2:
            inner = _annotation_type(rest[0])
            if inner is not None and not inner.endswith("?") and inner != "str[]":
                return inner + "?"
        return None
    import collections.abc

    if origin in (list, typing.List, collections.abc.Sequence, typing.Sequence) and len(args) == 1:  # noqa: UP006
        inner = _annotation_type(args[0])
        if inner in ("Tensor", "Tensor?", "SymInt", "float", "bool", "Scalar"):
            return inner + "[]"
    return None


def _default_text(v):
    if v is None or isinstance(v, bool):
        return str(v)
    if isinstance(v, (int, float)):
        return repr(v)
    if isinstance(v, str):
        return f'"{v}"'
    return None


def infer_schema(prototype_function, /, *, mutates_args, op_name=None):
    """The schema text of a Python function from its type annotations, as torch.library.infer_schema: "(Tensor
    x, float a=2.0) -> Tensor", prefixed by op_name when given; mutates_args names the arguments it writes (or
    "unknown": every Tensor argument)."""
    # string annotations (from __future__ import annotations) are resolved in the function's globals
    sig = inspect.signature(prototype_function, eval_str=True)

    def fail(what):
        raise ValueError(f"infer_schema(func): {what} Got func with signature {sig})")

    params, seen_star = [], False
    names = set()
    for name, p in sig.parameters.items():
        names.add(name)
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            fail("We don't support varargs or varkwargs.")
        if p.annotation is p.empty:
            fail(f"Parameter {name} must have a type annotation.")
        t = _annotation_type(p.annotation)
        if t is None:
            fail(f"Parameter {name} has unsupported type {p.annotation}.")
        default = None
        if p.default is not p.empty:
            default = _default_text(p.default)
            if default is None:
                fail(
                    f"Parameter {name} has an unsupported default value type {type(p.default)}. Please file an issue on GitHub so we can prioritize this."
                )
        writes = mutates_args == "unknown" or (not isinstance(mutates_args, str) and name in mutates_args)
        type_text = t
        if writes and t.startswith("Tensor"):
            # the alias set is named after the parameter's position, as PyTorch's infer_schema does
            type_text = f"Tensor(a{len(names) - 1}!)" + t[len("Tensor") :]
        piece = f"{type_text} {name}" + (f"={default}" if default is not None else "")
        if p.kind == p.KEYWORD_ONLY and not seen_star:
            params.append("*")
            seen_star = True
        params.append(piece)
    if mutates_args != "unknown":
        if isinstance(mutates_args, str):
            raise ValueError(
                "mutates_args must be 'unknown' or an Iterable[str] naming the arguments the op mutates"
            )
        missing = set(mutates_args) - names
        if missing:
            fail(
                f"{missing} in mutates_args were not found in the custom op's signature. mutates_args should "
                "contain the names of all args that the custom op mutates, or just the string 'unknown' if you "
                "don't know."
            )
    ret = sig.return_annotation
    if ret is inspect.Signature.empty:
        fail("No return type annotation was provided. Please add one.")
    if ret is None or ret is type(None):
        rets = "()"
    elif typing.get_origin(ret) is tuple:
        parts = [_annotation_type(a) for a in typing.get_args(ret)]
        if any(p is None for p in parts):
            fail(f"Return has unsupported type {ret}.")
        rets = "(" + ", ".join(parts) + ")"
    else:
        rets = _annotation_type(ret)
        if rets is None:
            fail(f"Return has unsupported type {ret}.")
    return f"{op_name or ''}({', '.join(params)}) -> {rets}"
