"""Generates the op tables from csrc/ops/ops.schema (the op surface, declared once): run by the build, which
includes what it writes, and by the tests, which compare the schema with the built extension.

    python scripts/gen_ops.py OUT_DIR        # writes OUT_DIR/generated/: the files of outputs()
    python scripts/gen_ops.py --stubs        # adds the stub lines python/minitorch/_C.pyi lacks for the
                                             # schema's ops and their forms (no build needed), and for the
                                             # Python methods on Tensor (the composites'; with a build)

Files are rewritten only when their text changes, so an unchanged schema costs no recompilation.
"""

import inspect
import os
import re
import sys
import types

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCHEMA = os.path.join(ROOT, "csrc", "ops", "ops.schema")

KINDS = ("unary", "binary", "func")
KEYS = {
    "functor",
    "dtype",
    "variants",
    "aliases",
    "autocast",
    "grad",
    "grad_self",
    "grad_other",
    "save",
    "binding",
    "call",
    "out",
    "refuse",
    "jvp",
    "jvp_args",
    "jvp_absent",
    "dual_term",
    "vmap",
    "rules",
    "nogil",
    "torch_function",
    "gil",
    "operators",
    "keyword",
    "deprecated",
    "module",
    "before",
}
# forward-mode rules: `jvp`, or one `jvp_<input>` term per differentiable tensor input
JVP_TERM = re.compile(r"^jvp_[a-z_][a-z0-9_]*$")
# what a rule says of its terms (not terms themselves): the Python parameters it binds, and what an argument
# without a tangent is in its scope (`jvp_absent: none`: t_<arg> is None, the rule decides; default zeros)
JVP_OPTIONS = ("jvp_args", "jvp_absent")
# the keys that hold Python for the transforms (forward AD, vmap), handed to Python through _op_schema_rules()
TRANSFORM_KEYS = ("jvp", *JVP_OPTIONS, "vmap", "rules")
# the second-order term of forward-over-reverse (`dual_term:`): linear | zero | zero_real | fallback | fn <function>
# [t_result] | (a unary row) a C++ expression; DUAL_SCOPE is what the expression reads (dual_terms_inc)
DUAL_WORDS = ("linear", "zero", "zero_real", "fallback")
DUAL_FN = re.compile(r"^fn ([a-z_][a-z0-9_]*)( t_result)?$")
DUAL_SCOPE = ("grad", "self", "t_self", "result", "t_result")
# a func's binding beyond its signature: how the call releases the GIL, a __torch_function__ last overload, the
# submodule of _C it binds into, a statement run under the GIL before the call
FUNC_BINDING_KEYS = ("nogil", "torch_function", "module", "before")
# func argument types: (C++ parameter type, how the binding turns it into the value the call reads). A type
# with a conversion arrives as a py::handle named <name>_obj (python/bind_kinds.h's, which names its kind in the
# pybind11 signature, for the messages of arg_errors.cpp).
ARG_TYPES = {
    "Tensor": ("const Tensor&", None),
    # PyTorch's Tensor(a!) self: written in place, the method returns the very object (fill_, uniform_)
    "Tensor(a!)": ("const Tensor&", None),
    "Tensor?": ("std::optional<Tensor>", None),
    # PyTorch's Tensor[] and Tensor?[] (einsum's operands, index_put's indices)
    "Tensor[]": ("const std::vector<Tensor>&", None),
    "Tensor?[]": ("const std::vector<std::optional<Tensor>>&", None),
    "int": ("IntKind", "int64_t {n} = int_arg({n}_obj, {where});"),
    "SymInt": ("IntKind", "int64_t {n} = symint_arg({n}_obj, {where});"),
    "int?": ("IntKind", "std::optional<int64_t> {n} = opt_arg({n}_obj, int_arg, {where});"),
    # PyTorch's SymInt? (slice_scatter's start): None, or an int or one-element integer tensor of any rank
    "SymInt?": ("IntKind", "std::optional<int64_t> {n} = opt_arg({n}_obj, symint_arg, {where});"),
    "float?": ("FloatKind", "std::optional<double> {n} = opt_arg({n}_obj, float_arg, {where});"),
    # PyTorch's double: a number (bool and NumPy scalars too) or a 0-dim tensor without grad, never a tensor with
    # dims (pybind11's double took anything with __float__, a one-element tensor included)
    "float": ("FloatKind", "double {n} = float_arg({n}_obj, {where});"),
    "bool": ("BoolKind", "bool {n} = bool_arg({n}_obj, {where});"),
    "bool?": ("BoolKind", "std::optional<bool> {n} = opt_arg({n}_obj, bool_arg, {where});"),
    "str": ("std::string", None),
    "str?": ("std::optional<std::string>", None),
    # a list of numbers or None (F.interpolate's scale factors, which its Python normalizes first)
    "float[]?": ("std::optional<std::vector<double>>", None),
    # PyTorch's int list without a size (flip's dims, permute's dims): a list or tuple, no bare int
    "int[]": ("IntListKind", "DimVector {n} = ints_arg({n}_obj, {where}, /*sized=*/false);"),
    # PyTorch's sized int list (conv2d's int[2] stride, sum's int[1] dim): one int (or one-element integer
    # tensor) stands for the whole list, also where the row has overloads; the op reads the one-element list as
    # every entry's value
    **{f"int[{k}]": ("IntListKind", "DimVector {n} = ints_arg({n}_obj, {where});") for k in (1, 2, 3)},
    # PyTorch's sized SymInt list (conv2d's SymInt[2] stride): as int[N], but a bool tensor element is refused
    # (c10's "Expected scalar.isIntegral( false)" RuntimeError) where an int list reads it as 0 or 1
    **{
        f"SymInt[{k}]": ("IntListKind", "DimVector {n} = sized_symints_arg({n}_obj, {where});")
        for k in (1, 2, 3)
    },
    # an int list whose entries may be None (the adaptive pools' output_size: None keeps that input size)
    "int?[]": ("IntListKind", "std::vector<std::optional<int64_t>> {n} = opt_ints_arg({n}_obj, {where});"),
    # a shape given as one argument (full's size, unflatten's sizes): a list or tuple, no bare int
    "SymInt[]": ("IntListKind", "DimVector {n} = symints_arg({n}_obj, {where});"),
    "ScalarType?": ("DtypeKind", "ScalarType {n} = parse_dtype({n}_obj);"),
    "Scalar": ("NumberKind", "Scalar {n} = scalar_arg({n}_obj, {where});"),
    "Scalar?": ("NumberKind", "std::optional<Scalar> {n} = opt_arg({n}_obj, scalar_arg, {where});"),
    # PyTorch's Tensor and Scalar overloads in one: a number becomes a wrapped 0-dim tensor (clamp_min's min)
    "Tensor|Scalar": ("py::handle", 'Tensor {n} = to_operand({n}_obj, "{n}");'),
    "Tensor|Scalar?": (
        "py::handle",
        'std::optional<Tensor> {n}; if (!{n}_obj.is_none()) {n} = to_operand({n}_obj, "{n}");',
    ),
    # PyTorch's Tensor and Number overloads of one parameter the other way round (linspace's start): a number
    # read as a Scalar, never wrapped, or a tensor whose rank the call checks (bind_factory.h's RankedScalar);
    # its caster refuses anything else, and arg_errors.cpp words PyTorch's "invalid combination of arguments"
    "Scalar|Tensor": ("ScalarOrTensorArg", 'RankedScalar {n} = ranked_scalar({n}_obj.h, "{n}");'),
    # the random ops' generator=: the draws of this call come from it (bind.h's GeneratorScope)
    "Generator?": ("GeneratorKind", "GeneratorScope {n}(generator_arg({n}_obj, {where}));"),
}
# The factories' arguments, handed to the call as the Python objects `<name>_obj` (python/bind_factory.h's
# helpers read them as PyTorch's factories do): the device (None: out='s, the input's or the default device),
# the layout (strided only, accepted as PyTorch's), the memory format, and out= (written by the helper).
RAW_ARGS = ("Device?", "Layout?", "MemoryFormat?", "Tensor(a!)?")
for _t, _kind in zip(RAW_ARGS, ("DeviceKind", "LayoutKind", "MemoryFormatKind", "OutKind")):
    ARG_TYPES[_t] = (_kind, "")
# the sizes of a sized factory, first: positional ints, one sequence, or the keyword size= (a sequence)
VARARGS = "int..."
ARG_TYPES[VARARGS] = ("py::args", 'DimVector {n} = factory_size("{fn}", {n}_args, {n}_obj);')
TENSOR_ARGS = ("Tensor", "Tensor(a!)", "Tensor?", "Tensor|Scalar", "Tensor|Scalar?", "Tensor[]")
SELF_TYPES = ("Tensor", "Tensor(a!)")  # a method's self
# ScalarType: a dtype, the minitorch.dtype object (result_type)
# Tensor[]: a tuple of any length (split, chunk), declared by `binding: own` rows only (_finish_gil)
RETURNS = (
    "Tensor",
    "(Tensor values, Tensor indices)",
    "(Tensor <name>, Tensor <name>, ...)",
    "ScalarType",
    "Tensor[]",
)
# a tuple of named tensors other than (values, indices) binds as a plain Python tuple (the Python caller names it)
TENSOR_TUPLE = re.compile(r"^\(Tensor [A-Za-z_]\w*(, Tensor [A-Za-z_]\w*)+\)$")
OUT_RULES = ("castable", "exact", "cat", "same_type")
# name[.overload](args) -> returns: rows of one name with overload tags are one op whose signatures the binding
# tries in order (PyTorch's native_functions.yaml: arange, arange.start_step)
SIGNATURE = re.compile(r"^([a-z_][a-z0-9_]*)(?:\.([a-z_][a-z0-9_]*))?\((.*)\)\s*->\s*(.+)$")
RULES = {
    "unary": {"same": "Same", "float": "Float", "bool": "Bool"},
    "binary": {
        "arith": "Arith",
        "div": "Div",
        "compare": "Compare",
        "logical": "Logical",
        "bitwise": "Bitwise",
    },
}
VARIANTS = ("method", "inplace", "out", "torch_inplace")
# a func's method alone, no function (PyTorch's `variants: method`: new_zeros, fill_)
METHOD_ONLY = "method_only"
DEFAULT_VARIANTS = ("method", "inplace")
POLICIES = {"lower": "Lower", "fp32": "Fp32", "promote": "Promote", "same": "Same", "banned": "Banned"}
NAME = re.compile(r"^[a-z_][a-z0-9_]*$")
ALIAS = re.compile(r"^([a-z_][a-z0-9_]*)(?:\[([a-z_ ]*)\])?$")


class Param:
    def __init__(self, type_, name, default, default_cpp, kw_only):
        self.type, self.name, self.default, self.kw_only = type_, name, default, kw_only
        self.default_cpp = default_cpp  # the default as the C++ value of py::arg(...) = <value>


class SchemaError(ValueError):
    """A malformed schema: the message names the file, the line and what to write instead."""


class Op:
    def __init__(self, kind, name, line):
        self.kind, self.name, self.line = kind, name, line
        self.fields = {}

    # the parsed facts, set by _finish
    functor = rule = grad = None
    variants = ()
    aliases = ()  # (name, variants) pairs
    autocast = None  # (cuda policy, cpu policy)
    own_binding = False
    operators = ()  # (Python operator, form) pairs: ("__radd__", "rev"), bound by bind_elementwise.cpp
    keyword = None  # binary: the keyword-only argument after other, "alpha" or "rounding_mode"
    deprecated = None  # binary: "alpha_first", PyTorch's deprecated add(input, alpha, other) spelling
    refuse = None  # (dtype class, "kernel" | "message", names or text): a dtype PyTorch's kernel refuses
    # binary only: per-input formulas, or a pair function (grad), and which inputs are saved for which grads
    grad_self = grad_other = None
    save = None  # None: derived from the formulas; else the names saved whatever is needed
    transforms = ()  # (key, Python expression) pairs: the forward-mode and vmap rules, as written
    dual_term = None  # the parsed `dual_term:` (_finish_dual_term)
    # func only
    signature = call = returns = out_rule = None
    params = ()  # Param tuples
    overload = None  # the row's overload tag (arange.start_step: "start_step")
    overloads = ()  # the rows of an overloaded func, in the order the binding tries them (the first is the op)
    function = True  # False: `variants: method_only`, the method alone
    # how the call releases the GIL beyond the default (one of its tensors is big): ("product", a, b), by the
    # work of a @ b; ("always",); ("when", <C++ condition>)
    nogil = None
    module = None  # the submodule of _C the function binds into (`module: nn`: minitorch._C._nn), else None
    before = None  # a C++ statement run holding the GIL before the call (a warning from Python's warnings)
    torch_function_fallback = False  # `torch_function: fallback`: bind_linalg.cpp's last overload
    keep_gil = False  # `gil: keep`: the call runs holding the GIL (views)

    def spellings(self):
        """(name, variants) for the op's own name and each alias."""
        return [(self.name, self.variants)] + list(self.aliases)

    def saves_result(self):
        return _reads(self.grad, "result")


def parse(text, path=SCHEMA):
    """The ops of a schema text, in order; raises SchemaError for anything malformed."""
    ops, cur = [], None

    def fail(lineno, msg):
        raise SchemaError(f"{path}:{lineno}: {msg}")

    for lineno, raw in enumerate(text.splitlines(), 1):
        line = raw.split("#", 1)[0].rstrip()
        if not line.strip():
            continue
        if cur is _TWIN and line[0].isspace():
            continue  # a twin's keys: parse_twins reads them
        if not line[0].isspace():
            kind, _, rest = line.partition(" ")
            if kind in ("twin", "entry"):
                cur = _TWIN
                continue
            if kind == "func":
                m = SIGNATURE.match(rest.strip())
                if not m:
                    fail(lineno, f"expected 'func name(<args>) -> <returns>', got {line!r}")
                cur = Op(kind, m.group(1), lineno)
                cur.overload = m.group(2)
                cur.params = _params(m.group(3), lineno, fail)
                cur.returns = m.group(4).strip()
                cur.signature = rest.strip()
                if cur.returns not in RETURNS and not TENSOR_TUPLE.match(cur.returns):
                    fail(lineno, f"{cur.name!r} returns {cur.returns!r}; supported: {', '.join(RETURNS)}")
                ops.append(cur)
                continue
            words = line.split()
            if len(words) != 2 or words[0] not in KINDS:
                fail(
                    lineno,
                    f"expected '<kind> <name>' with kind one of {', '.join(KINDS + ('twin', 'entry'))}, got {line!r}",
                )
            if not NAME.match(words[1]):
                fail(lineno, f"op name {words[1]!r} must be lower_snake_case")
            cur = Op(words[0], words[1], lineno)
            ops.append(cur)
            continue
        if cur is None:
            fail(lineno, "an indented 'key: value' line before any op")
        key, sep, value = line.strip().partition(":")
        key, value = key.strip(), value.strip()
        if not sep or not (key in KEYS or JVP_TERM.match(key)):
            fail(lineno, f"unknown key {key!r} for op {cur.name!r}; keys are {', '.join(sorted(KEYS))}")
        if key in cur.fields:
            fail(lineno, f"op {cur.name!r} sets {key!r} twice")
        cur.fields[key] = (value, lineno)
    for prev, op in zip([None] + ops, ops):
        # an overload row after the first of its name: its variants are the first row's (_merge_overloads)
        op.follows = (
            op.kind == "func" and op.overload is not None and prev is not None and prev.name == op.name
        )
        _finish(op, fail)
    ops = _merge_overloads(ops, fail)
    _check_operators(ops, fail)
    seen = {}
    for op in ops:
        for name, _ in op.spellings():
            if name in seen:
                fail(op.line, f"{op.kind} {op.name!r}: the name {name!r} is already used by {seen[name]!r}")
            seen[name] = op.name
    return ops


# what an overload row may say for itself; the rest (variants, rules, binding) is its first row's
OVERLOAD_KEYS = ("call",)


def _merge_overloads(ops, fail):
    """The rows of an overloaded func as one op (its first row) holding every row in `overloads`: consecutive
    `func name.tag(...)` rows, each with its own tag, after a first row with or without one."""
    out = []
    for op in ops:
        prev = out[-1] if out else None
        if not op.follows:
            if op.kind == "func":
                op.overloads = (op,)
            out.append(op)
            continue
        if prev.kind != "func" or prev.own_binding:
            fail(op.line, f"func {op.name}.{op.overload}: an overload of a generated func row")
        extra = [k for k in op.fields if k not in OVERLOAD_KEYS]
        if extra:
            fail(
                op.fields[extra[0]][1],
                f"func {op.name}.{op.overload}: an overload row sets only {', '.join(OVERLOAD_KEYS)}; "
                f"'{extra[0]}:' is its first row's",
            )
        if any(o.overload == op.overload for o in prev.overloads):
            fail(op.line, f"func {op.name}: overload tag {op.overload!r} twice")
        if op.returns != prev.returns:
            fail(op.line, f"func {op.name}.{op.overload}: overloads return the same ({prev.returns!r})")
        if {"method", "inplace"} & set(prev.variants) and "self" not in [p.name for p in op.params]:
            fail(op.line, f"func {op.name}.{op.overload}: the method's overloads take 'Tensor self'")
        op.variants, op.out_rule, op.transforms = prev.variants, prev.out_rule, prev.transforms
        op.function = prev.function
        op.keep_gil = prev.keep_gil
        op.nogil, op.module, op.before = prev.nogil, prev.module, prev.before
        if any(p.type == "Tensor(a!)" for p in op.params) != any(p.type == "Tensor(a!)" for p in prev.params):
            fail(
                op.line,
                f"func {op.name}.{op.overload}: every row of an in-place method takes 'Tensor(a!) self'",
            )
        prev.overloads = prev.overloads + (op,)
    return out


def _params(text, lineno, fail):
    params, kw_only = [], False
    for item in [t.strip() for t in text.split(",") if t.strip()]:
        if item == "*":
            kw_only = True
            continue
        decl, _, default = item.partition("=")
        words = decl.split()
        if len(words) != 2 or words[0] not in ARG_TYPES or not NAME.match(words[1]):
            fail(
                lineno,
                f"argument {item!r}: write '<type> <name>[=default]' with type one of {', '.join(ARG_TYPES)}",
            )
        default, default_cpp = default.strip() or None, None
        if default is not None:
            default_cpp = _default_cpp(words[0], default, lineno, fail)
        elif params and params[-1].default is not None and not kw_only:
            fail(lineno, f"argument {words[1]!r} without a default follows one with a default")
        params.append(Param(words[0], words[1], default, default_cpp, kw_only))
    if not params:
        fail(lineno, "a func takes at least one argument")
    # the sizes come first, or right after a method's self (new_zeros(Tensor self, int... size))
    after_self = len(params) > 1 and params[0].name == "self" and params[0].type in SELF_TYPES
    for i, p in enumerate(params):
        if p.type == VARARGS and (p.default or p.kw_only or not (i == 0 or (i == 1 and after_self))):
            fail(
                lineno,
                f"'{VARARGS}' is the first argument or follows 'Tensor self', without a default "
                "(size= is its keyword form)",
            )
    for i, p in enumerate(params):
        if p.type == "Tensor(a!)" and (p.name != "self" or i != 0):
            fail(lineno, "'Tensor(a!)' is an in-place method's first argument, self")
    return tuple(params)


def _default_cpp(type_, default, lineno, fail):
    """A Python default as the C++ value of py::arg(...) = <value>."""
    if default == "None":
        if not (type_.endswith("?") or type_.startswith(("int[", "SymInt["))):
            fail(lineno, f"default None needs an optional type ('{type_}?'), not {type_!r}")
        return "py::none()"
    if re.match(r"^(int|SymInt)\[[0-9]\]$", type_) and re.match(r"^-?[0-9]+$", default):
        return f"int64_t({default})"  # one int standing for the list (conv2d's stride=1)
    if type_ in ("bool", "bool?"):
        if default not in ("True", "False"):
            fail(lineno, f"a bool default is True or False, got {default!r}")
        return default.lower()
    if type_ in ("int", "SymInt", "int?", "SymInt?"):
        if not re.match(r"^-?[0-9]+$", default):
            fail(lineno, f"an int default is an integer literal, got {default!r}")
        return f"int64_t({default})"
    if type_ in ("float", "Scalar"):
        if not re.match(r"^-?[0-9.]+(e-?[0-9]+)?$", default):
            fail(lineno, f"a number default is a numeric literal, got {default!r}")
        if type_ == "Scalar" and re.match(r"^-?[0-9]+$", default):
            return f"int64_t({default})"  # a Python int: arange's step=1 keeps an integer result
        return default if "." in default or "e" in default else default + ".0"
    if type_ in ("str", "str?") and re.match(r"^'[^'\\]*'$", default):
        return '"' + default[1:-1] + '"'
    fail(lineno, f"default {default!r} is not supported for type {type_!r}")


def _finish(op, fail):
    def get(key, required=False):
        if key not in op.fields:
            if required:
                fail(op.line, f"{op.kind} {op.name!r} needs '{key}:'")
            return None, op.line
        return op.fields[key]

    op.transforms = tuple(
        (k, v) for k, (v, _) in op.fields.items() if k in TRANSFORM_KEYS or JVP_TERM.match(k)
    )
    terms = [k for k, _ in op.transforms if k == "jvp" or JVP_TERM.match(k) and k not in JVP_OPTIONS]
    if "jvp" in terms and len(terms) > 1:
        fail(op.fields["jvp"][1], f"{op.name!r}: give 'jvp:' or 'jvp_<input>:' terms, not both")
    for option in JVP_OPTIONS:
        if option in op.fields and not terms:
            fail(op.fields[option][1], f"{op.name!r}: '{option}:' without a 'jvp:' rule")
    if "jvp_absent" in op.fields and op.fields["jvp_absent"][0] != "none":
        fail(
            op.fields["jvp_absent"][1], f"{op.name!r}: 'jvp_absent:' takes only 'none' (zeros is the default)"
        )
    _finish_dual_term(op, get, fail)
    if op.kind == "func":
        for key in op.fields:
            known = (
                "variants",
                "call",
                "out",
                "binding",
                "gil",
                "dual_term",
                *FUNC_BINDING_KEYS,
                *TRANSFORM_KEYS,
            )
            if key not in known and not JVP_TERM.match(key):
                fail(
                    op.fields[key][1],
                    f"func {op.name!r}: '{key}:' is for elementwise ops; use variants, call, out",
                )
        variants, lineno = get("variants")
        if variants is not None and METHOD_ONLY in variants.split():
            if variants.strip() != METHOD_ONLY:
                fail(lineno, f"func {op.name!r}: '{METHOD_ONLY}' stands alone (the method, no other form)")
            op.variants, op.function = ("method",), False
        else:
            # a `module:` row is its submodule's function alone
            default = () if "module" in op.fields else ("method",)
            op.variants = _variants(variants, lineno, fail) if variants is not None else default
        if op.follows:
            op.variants = ()
        # the method's tensor is `self` wherever it stands (polygamma(int n, Tensor self): Tensor.polygamma(n))
        if not any(p.name == "self" and p.type in SELF_TYPES for p in op.params) and (
            {"method", "inplace"} & set(op.variants)
        ):
            fail(lineno, f"func {op.name!r}: a method or in-place form needs a 'Tensor self' argument")
        # (an overload row is held to its first row's variants in _merge_overloads)
        in_place = any(p.type == "Tensor(a!)" for p in op.params)
        if in_place and not op.follows and (op.function or op.returns != "Tensor"):
            fail(lineno, f"func {op.name!r}: a 'Tensor(a!) self' row is a method_only row returning Tensor")
        # a method_only row may take its self second, as polygamma's method does (Tensor.where(condition,
        # other) is where(condition, self, other)); an in-place one's Tensor(a!) self is first (_params)
        rules, lineno = get("rules")
        if rules not in (None, "python"):
            fail(lineno, f"func {op.name!r}: 'rules:' takes only 'python', got {rules!r}")
        if rules and any(k != "rules" for k, _ in op.transforms):
            fail(lineno, f"func {op.name!r}: 'rules: python' says its jvp/vmap rules are not here")
        if "torch_inplace" in op.variants:
            fail(lineno, f"func {op.name!r}: torch_inplace is not generated for funcs yet")
        binding, lineno = get("binding")
        if binding is not None and not binding.startswith("own "):
            fail(lineno, f"func {op.name!r}: write 'binding: own <why the signature cannot say it>'")
        op.own_binding = binding is not None
        call, lineno = get("call")
        # a generator= is in force around the call (GeneratorScope), not one of its arguments
        op.call = call or f"{op.name}({', '.join(p.name for p in op.params if p.type != 'Generator?')})"
        if call is not None and call.count("(") != call.count(")"):
            fail(lineno, f"{op.name!r}: unbalanced parentheses in the call")
        if "inplace" in op.variants and op.returns != "Tensor":
            fail(op.line, f"func {op.name!r}: an in-place form needs a Tensor result")
        out, lineno = get("out")
        if out is not None and out not in OUT_RULES:
            fail(
                lineno,
                f"out takes one of {', '.join(OUT_RULES)} (how the result's dtype must match), got {out!r}",
            )
        if ("out" in op.variants) != (out is not None):
            fail(lineno, f"func {op.name!r}: list 'out' in variants exactly when 'out:' gives its dtype rule")
        op.out_rule = out
        _finish_func_binding_keys(op, get, fail)
        _finish_gil(op, get, fail)
        return

    functor, lineno = get("functor", required=True)
    if not re.match(r"^[A-Z][A-Za-z0-9]*$", functor):
        fail(lineno, f"functor {functor!r} must be a CamelCase name from kernels/functors.h")
    op.functor = functor
    rule, lineno = get("dtype", required=True)
    if rule not in RULES[op.kind]:
        fail(lineno, f"dtype rule {rule!r} is not one of {', '.join(RULES[op.kind])} for a {op.kind} op")
    op.rule = RULES[op.kind][rule]
    variants, lineno = get("variants")
    op.variants = _variants(variants, lineno, fail) if variants is not None else DEFAULT_VARIANTS
    aliases, lineno = get("aliases")
    op.aliases = []
    for item in split_aliases(aliases or ""):
        m = ALIAS.match(item)
        if not m:
            fail(lineno, f"alias {item!r}: write name or name[variants]")
        own = _variants(m.group(2), lineno, fail) if m.group(2) is not None else op.variants
        op.aliases.append((m.group(1), own))
    autocast, lineno = get("autocast")
    if autocast is not None:
        words = autocast.split()
        if len(words) != 2 or any(w not in POLICIES for w in words):
            fail(
                lineno,
                f"autocast takes two policies (CUDA, CPU) from {', '.join(POLICIES)}, got {autocast!r}",
            )
        op.autocast = (POLICIES[words[0]], POLICIES[words[1]])
    if op.kind == "binary":
        _finish_binary_grad(op, get, fail)
    else:
        _finish_unary_grad(op, get, fail)
    _finish_refuse(op, get, fail)
    if "rules" in op.fields:
        fail(
            op.fields["rules"][1], f"{op.name!r}: 'rules:' is for funcs (an elementwise op's rules are here)"
        )
    for key in FUNC_BINDING_KEYS:
        if key in op.fields:
            fail(op.fields[key][1], f"{op.name!r}: '{key}:' is for funcs")
    binding, lineno = get("binding")
    if binding is not None:
        fail(lineno, f"{op.kind} {op.name!r}: 'binding:' is for funcs; say add's alpha with 'keyword: alpha'")
    _finish_operators(op, get, fail)
    _finish_keyword(op, get, fail)


# ---- the Python operators and add/sub/div's keywords: what bind_elementwise.cpp binds from an elementwise row

# An `operators:` word is an operator's stem (`add` for __add__). A binary row lists its forward operator first
# (op(self, other)), then r<stem> (op(other, self)) and i<stem> (in place); a unary row its one operator
# (op(self)). A word may name another form in brackets: one of bind_elementwise.cpp's op_<form> templates.
OPERATOR_FORMS = {"unary": ("unary", "invert"), "binary": ("fwd", "rev", "inplace", "reciprocal_mul")}
OPERATOR_WORD = re.compile(r"^([a-z]+)(?:\[([a-z_]+)\])?$")
# a binary row's keyword-only argument after `other` (add's `Scalar alpha=1`, div's `str? rounding_mode=None`),
# a unary row's after self (round's `int decimals`, PyTorch's round.decimals overload), each a binding form of
# bind_elementwise.cpp; and the deprecated spellings it binds on the op's own name
KEYWORDS = ("alpha", "rounding_mode", "decimals")
KIND_KEYWORDS = {"binary": ("alpha", "rounding_mode"), "unary": ("decimals",)}
DEPRECATED = {"alpha_first": "alpha"}  # the form -> the keyword it needs


def _finish_operators(op, get, fail):
    value, lineno = get("operators")
    if value is None:
        return
    words, pairs = value.split(), []
    stem = None
    for i, word in enumerate(words):
        m = OPERATOR_WORD.match(word)
        if not m:
            fail(lineno, f"{op.name!r}: operator {word!r}: write a stem (add, radd, iadd) or stem[form]")
        name, form = m.groups()
        if i == 0:
            stem = name
            default = "unary" if op.kind == "unary" else "fwd"
        elif op.kind == "unary":
            fail(lineno, f"unary {op.name!r}: one operator (its op on self), got {value!r}")
        elif name in ("r" + stem, "i" + stem):
            default = "rev" if name[0] == "r" else "inplace"
        else:
            fail(lineno, f"binary {op.name!r}: after {stem!r} come r{stem} and i{stem}, got {name!r}")
        form = form or default
        if form not in OPERATOR_FORMS[op.kind]:
            fail(
                lineno,
                f"{op.name!r}: operator form {form!r} is not one of {', '.join(OPERATOR_FORMS[op.kind])}",
            )
        pairs.append((f"__{name}__", form))
    op.operators = tuple(pairs)


def _finish_keyword(op, get, fail):
    if "deprecated" in op.fields and op.kind != "binary":
        fail(op.fields["deprecated"][1], f"{op.kind} {op.name!r}: 'deprecated:' is for binary rows")
    keyword, lineno = get("keyword")
    if keyword is not None and keyword not in KIND_KEYWORDS[op.kind]:
        fail(lineno, f"keyword takes one of {', '.join(KIND_KEYWORDS[op.kind])}, got {keyword!r}")
    op.keyword = keyword
    deprecated, lineno = get("deprecated")
    if deprecated is not None:
        if deprecated not in DEPRECATED:
            fail(lineno, f"deprecated takes one of {', '.join(DEPRECATED)}, got {deprecated!r}")
        if DEPRECATED[deprecated] != keyword:
            fail(lineno, f"{op.name!r}: deprecated {deprecated} needs 'keyword: {DEPRECATED[deprecated]}'")
    op.deprecated = deprecated


def keyword_enum():
    """The spellings' keyword column as a C++ enum (bind_elementwise.cpp binds each, bind_out.cpp reads it)."""
    return (
        "// a binary row's keyword-only argument after `other`, a unary row's after self (ops.schema's `keyword:`)\n"
        f"namespace mt {{\nenum class ElementwiseKeyword {{ none, {', '.join(KEYWORDS)} }};\n}}  // namespace mt\n\n"
    )


def _check_operators(ops, fail):
    seen = {}
    for op in ops:
        for name, _ in op.operators:
            if name in seen:
                fail(op.line, f"{op.name!r}: operator {name} is already bound by {seen[name]!r}")
            seen[name] = op.name


def operators_macros(ops):
    """MT_<KIND>_OPERATORS: (Python operator, op, form), the binding layer's operator table, and
    MT_SCHEMA_BINDING_ROWS, the same facts and the keywords as declared, for _C._op_schema_bindings()."""
    out = []
    for kind in ("unary", "binary"):
        rows = [(_c(name), o.name, "op_" + form) for o in ops if o.kind == kind for name, form in o.operators]
        out.append(
            _macro(
                f"MT_{kind.upper()}_OPERATORS",
                rows,
                f"the Python operators of the {kind} ops: (name, op, bind_elementwise.cpp's form template)",
            )
        )
    rows = []
    for o in ops:
        if o.operators:
            rows.append((_c(o.name), _c("operators"), _c(" ".join(f"{n}[{f}]" for n, f in o.operators))))
        for key in ("keyword", "deprecated"):
            if getattr(o, key):
                rows.append((_c(o.name), _c(key), _c(getattr(o, key))))
    out.append(
        _macro(
            "MT_SCHEMA_BINDING_ROWS",
            rows,
            "the operators and keywords as declared, for minitorch._C._op_schema_bindings(): (op, key, value)",
        )
    )
    return "".join(out)


def _finish_func_binding_keys(op, get, fail):
    """A func's `nogil:` (how its call decides to release the GIL), `torch_function:` (a last overload that
    hands a call with a foreign tensor-like argument to its __torch_function__), `module:` (the submodule of _C
    it binds into) and `before:` (a statement run under the GIL before the call)."""
    nogil, lineno = get("nogil")
    if nogil is not None:
        words = nogil.split()
        tensors = [p.name for p in op.params if p.type == "Tensor"]
        if words == ["always"]:
            op.nogil = ("always",)
        elif words[:1] == ["when"] and len(words) > 1:
            op.nogil = ("when", nogil.split(None, 1)[1])
        elif len(words) != 3 or words[0] != "product" or any(w not in tensors for w in words[1:]):
            fail(
                lineno,
                f"func {op.name!r}: write 'nogil: product <a> <b>' over two of its Tensor arguments "
                f"({', '.join(tensors)}), released by bind_products.h's big_product(a, b); 'nogil: always'; "
                "or 'nogil: when <C++ condition over the arguments>'",
            )
        else:
            op.nogil = ("product", words[1], words[2])
    module, lineno = get("module")
    if module is not None:
        if not NAME.match(module) or module.startswith("_"):
            fail(
                lineno, f"func {op.name!r}: 'module: <name>' binds into minitorch._C._<name>, got {module!r}"
            )
        if "variants" in op.fields:
            fail(
                lineno,
                f"func {op.name!r}: a 'module:' row is the submodule's function alone (its Python wrapper is the "
                "public one): no 'variants:'",
            )
        op.module = module
    before, lineno = get("before")
    if before is not None:
        if before.count("(") != before.count(")"):
            fail(lineno, f"{op.name!r}: unbalanced parentheses in 'before:'")
        op.before = before
    fallback, lineno = get("torch_function")
    if fallback not in (None, "fallback"):
        fail(lineno, f"func {op.name!r}: 'torch_function:' takes only 'fallback', got {fallback!r}")
    op.torch_function_fallback = fallback is not None


REFUSE_CLASSES = {
    "bool": "dt == ScalarType::Bool",
    "floating": "is_floating(dt)",
    "non_floating": "!is_floating(dt)",
    "reduced": "dt == ScalarType::Half || dt == ScalarType::BFloat16",  # torch.special's float/double-only kernels
}


def _finish_gil(op, get, fail):
    """A func's `gil: keep` (its call runs holding the GIL: a view only rewrites metadata, and releasing the
    GIL for a big operand costs more than the view), and the Tensor[] result only a hand binding returns."""
    gil, lineno = get("gil")
    if gil not in (None, "keep"):
        fail(
            lineno, f"func {op.name!r}: 'gil:' takes only 'keep' (the call runs holding the GIL), got {gil!r}"
        )
    op.keep_gil = gil == "keep"
    if op.returns == "Tensor[]" and not op.own_binding:
        fail(op.line, f"func {op.name!r}: a Tensor[] result is bound by hand ('binding: own <why>')")


def _finish_refuse(op, get, fail):
    refuse, lineno = get("refuse")
    if refuse is None:
        return
    if op.kind != "unary":
        fail(
            lineno,
            f"{op.name!r}: 'refuse:' is written for unary ops only (binary refusals are in check_binary)",
        )
    words = refuse.split(None, 2)
    if len(words) < 3 or words[0] not in REFUSE_CLASSES or words[1] not in ("kernel", "message"):
        fail(
            lineno,
            f"{op.name!r}: write 'refuse: <{' | '.join(REFUSE_CLASSES)}> kernel <name> [<cuda name>]' "
            "or 'refuse: <class> message <text>'",
        )
    if words[1] == "kernel" and len(words[2].split()) > 2:
        fail(lineno, f"{op.name!r}: a refusing kernel is one name (+_cpu/_cuda) or a CPU and a CUDA name")
    op.refuse = (words[0], words[1], words[2])


def _finish_dual_term(op, get, fail):
    """op.dual_term: None (the row says nothing), (word,) for linear | zero | zero_real | fallback, ("fn", function, reads
    t_result), or ("expr", C++ expression, reads t_result) on a unary row."""
    value, lineno = get("dual_term")
    op.dual_term = None
    if value is None:
        return
    m = DUAL_FN.match(value)
    if value in DUAL_WORDS:
        op.dual_term = (value,)
    elif m:
        op.dual_term = ("fn", m.group(1), m.group(2) is not None)
    elif op.kind != "unary" or not re.search(r"[(]", value):
        fail(
            lineno,
            f"{op.name!r}: 'dual_term:' takes linear, zero, fallback, zero_real, 'fn <function> [t_result]' or (a unary "
            f"row) a C++ expression, got {value!r}",
        )
    elif value.count("(") != value.count(")"):
        fail(lineno, f"{op.name!r}: unbalanced parentheses in the dual term")
    elif not _reads(value, "grad"):
        fail(lineno, f"{op.name!r}: a dual term is linear in the gradient, so it reads `grad`")
    else:
        op.dual_term = ("expr", value, _reads(value, "t_result"))
    jvp = op.fields.get("jvp", (None,))[0]
    if op.dual_term is not None and op.dual_term[0] in ("fn", "expr") and jvp in ("none", "generic"):
        fail(lineno, f"{op.name!r}: a C++ dual term needs the op's tangent rule (its jvp is {jvp})")


def _finish_unary_grad(op, get, fail):
    for key in ("grad_self", "grad_other", "save"):
        if key in op.fields:
            fail(op.fields[key][1], f"'{key}:' is for binary ops; a unary op has one 'grad:'")
    grad, lineno = get("grad", required=True)
    if grad != "none":
        if _reads(grad, "result") and _reads(grad, "self"):
            fail(lineno, f"{op.name!r}: a formula reads self or result, not both (the node saves one)")
        if grad.count("(") != grad.count(")"):
            fail(lineno, f"{op.name!r}: unbalanced parentheses in the formula")
        op.grad = grad


def _finish_binary_grad(op, get, fail):
    grad, lineno = get("grad")
    gs, ls = get("grad_self")
    go, lo = get("grad_other")
    save, lsave = get("save")
    if grad is not None:
        if gs is not None or go is not None:
            fail(
                lineno,
                f"{op.name!r}: give 'grad:' (none, or a function of both gradients) or grad_self/grad_other",
            )
        if grad != "none" and not re.match(r"^[A-Za-z_][A-Za-z0-9_:<>]*$", grad):
            fail(
                lineno,
                f"{op.name!r}: a binary 'grad:' names a function (grad, self, other, need_self, need_other)",
            )
        if grad != "none" and save is None:
            fail(lineno, f"{op.name!r}: a pair function's reads are unknown; say what it needs with 'save:'")
        op.grad = None if grad == "none" else grad
    elif gs is None or go is None:
        fail(op.line, f"binary {op.name!r} needs grad_self and grad_other (or 'grad: none')")
    else:
        for formula, line in ((gs, ls), (go, lo)):
            if formula.count("(") != formula.count(")"):
                fail(line, f"{op.name!r}: unbalanced parentheses in the formula")
        op.grad_self, op.grad_other = gs, go
    if save is not None:
        words = save.split()
        if not words or any(w not in ("self", "other") for w in words):
            fail(lsave, f"{op.name!r}: save lists self and/or other, got {save!r}")
        op.save = tuple(words)


def _reads(formula, name):
    """whether a formula reads the variable `name` (None: no formula)"""
    return formula is not None and re.search(rf"\b{name}\b", formula) is not None


def split_aliases(word):
    # "divide true_divide" -> two aliases; "absolute[method out]" stays one
    out, depth, cur = [], 0, ""
    for ch in word:
        depth += ch == "["
        depth -= ch == "]"
        if ch == " " and depth == 0:
            if cur:
                out.append(cur)
            cur = ""
        else:
            cur += ch
    if cur:
        out.append(cur)
    return out


def _variants(value, lineno, fail):
    if value == "none":  # the function only (a private op its Python wrapper spells out)
        return ()
    words = value.split()
    for w in words:
        if w not in VARIANTS:
            fail(lineno, f"unknown variant {w!r}; variants are {', '.join(VARIANTS)}")
    return tuple(w for w in VARIANTS if w in words)


def load(path=SCHEMA):
    with open(path, encoding="utf-8") as f:
        return parse(f.read(), path)


# ---------------------------------------------------------------- recording twins and entry points

_TWIN = object()  # parse()'s marker while it skips a twin block
TWIN_HEADER = re.compile(r"^(twin|entry)\s+([a-z_][a-z0-9_]*)\((.*)\)\s*->\s*(.+)$")
# the derivative keys of a twin row (with `grad_<tensor parameter>:`): a twin holding any is generated into
# twin_grads.inc, and derivatives.cpp must not define it (tests/autograd/test_twin_formulas.py)
TWIN_FORMULA_KEYS = (
    "grad",
    "grads",
    "node",
    "capture",
    "let",
    "forward",
    "inplace_of",
    "outputs",
    "inputs",
    "save_as",
    "record_unless",
)
TWIN_KEYS = {
    "family",
    "entry",
    "when",
    "grad_if",
    "autocast",
    "composite_if",
    "overwrite",
    *TWIN_FORMULA_KEYS,
}
# the tensor parameters a formula can name: each is an edge of the node (in order) and saved when read
EDGE_PARAMS = ("const Tensor&", "const std::optional<Tensor>&")
# how the generated entry asks whether autograd records: `grad` (any tensor input requires grad), `view`
# (autograd.track_view(self): a view records for every inexact input in grad mode; the others are marked views of
# their base by autograd.mark_plain_view, without a node or a replay)
TWIN_WHEN = ("grad", "view")
# C++ parameter types that carry tensors, and the test of each in the entry's `grad` condition
TENSOR_PARAMS = {
    "const Tensor&": "autograd::needs_grad({n})",
    "const std::optional<Tensor>&": "autograd::needs_grad({n})",
    "const std::vector<Tensor>&": "autograd::needs_grad_list({n})",
    "const std::vector<std::optional<Tensor>>&": "autograd::needs_grad_indices({n})",
}
RET_ALIASES = {
    "TensorPair": "std::tuple<Tensor, Tensor>",
    "TensorQuad": "std::tuple<Tensor, Tensor, Tensor, Tensor>",
}
AUTOCAST_CASTS = ("const Tensor&", "const std::optional<Tensor>&", "const std::vector<Tensor>&")


class Twin:
    """A primitive op autograd records (autograd/record.h declares its recording twin, derivatives.cpp or
    views.cpp defines it). With `entry: generated` the build writes its entry point mt::<name> (autocast, then
    autograd when an input needs it, else the plain op mt::native::<name> that ops/<family>.cpp defines)."""

    def __init__(self, name, params, ret, line, recorded=True):
        self.name, self.params, self.ret, self.line = name, params, ret, line
        self.recorded = recorded  # False for an `entry` row: no twin, only the entry point
        # an entry row's node when it writes values that depend on no input's (their gradients are zero)
        self.overwrite = None
        self.family = None
        self.entry = not recorded
        self.when = "grad"
        self.autocast = (
            None  # (autocast::Op name, whether the Scope sees the inputs: a Promote op's widest type)
        )
        self.composite_if = None  # a C++ condition under which the plain op is a composite (its parts record)
        self.grad_if = (
            None  # a C++ condition replacing `when:`'s test (an input that records only for some modes)
        )
        self.grad = None  # (formula, line) of a one-input twin: generated into twin_grads.inc
        self.grads = {}  # tensor parameter -> its gradient's formula (`none`: an edge without a gradient)
        self.joint = None  # `grads:` one call giving every input's gradient (a variable_list)
        self.node = (
            None  # the node's name: a literal, or a C++ expression (`upsample_node_name(args, false)`)
        )
        self.captures = []  # (name, C++ initializer) computed when recording, captured by value
        self.lets = []  # (name, C++ expression) computed in backward before the gradients, in order
        self.forward = None  # the forward when it is not mt::<name>(<parameters>)
        self.inplace_of = None  # an in-place twin: the generic in-place path over this twin
        self.inputs = None  # with `grads:`, the tensor parameters that are the node's inputs (default: all)
        self.save_as = {}  # a tensor's saved name (grad_fn._saved_<name>) when it is not its parameter's
        self.record_unless = None  # a C++ condition after the forward under which no node is recorded
        self.outputs = ["result"]  # the names of the forward's outputs (a tuple); the first is differentiable
        self.formula_line = None

    def has_formula(self):
        """whether the schema holds this twin's derivative (the build writes it into twin_grads.inc)"""
        return self.formula_line is not None

    def cpp_ret(self):
        """The return type spelled out (the table's aliases live in mt::autograd, for the X-macro's sake)."""
        return RET_ALIASES.get(self.ret, self.ret)

    def cpp_params(self):
        return "(" + ", ".join(f"{t} {n}" for t, n in self.params) + ")"

    def args(self, cast=False):
        return ", ".join(f"s({n})" if cast and t in AUTOCAST_CASTS else n for t, n in self.params)


def _split_cpp_params(text):
    """'const A<B, C>& a, int b' -> ['const A<B, C>& a', 'int b'] (commas inside <> or () stay)."""
    out, depth, cur = [], 0, ""
    for ch in text:
        if ch in "<(":
            depth += 1
        elif ch in ">)":
            depth -= 1
        if ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        out.append(cur.strip())
    return out


def parse_twins(text, path=SCHEMA):
    """The recording twins of a schema text, in order (the order of ops/op_table.h's MT_AUTOGRAD_TWINS)."""
    twins, cur = [], None

    def fail(lineno, msg):
        raise SchemaError(f"{path}:{lineno}: {msg}")

    for lineno, raw in enumerate(text.splitlines(), 1):
        line = raw.split("#", 1)[0].rstrip()
        if not line.strip():
            continue
        if not line[0].isspace():
            cur = None
            if not line.startswith(("twin ", "entry ")):
                continue
            m = TWIN_HEADER.match(line)
            if not m:
                fail(
                    lineno,
                    f"expected '{line.split()[0]} name(<C++ parameters>) -> <C++ return type>', got {line!r}",
                )
            kind, name = m.group(1), m.group(2)
            params = []
            for item in _split_cpp_params(m.group(3)):
                pm = re.match(r"^(.*?)\s*\b([a-z_][a-z0-9_]*)$", item)
                if not pm or not pm.group(1):
                    fail(lineno, f"{kind} {name!r}: parameter {item!r} is not '<C++ type> <name>'")
                params.append((pm.group(1), pm.group(2)))
            ret = m.group(4).strip()
            if "," in ret:
                fail(lineno, f"{kind} {name!r}: a return type with a comma breaks the X-macro; use an alias")
            cur = Twin(name, tuple(params), ret, lineno, recorded=kind == "twin")
            twins.append(cur)
            continue
        if cur is None:
            continue  # another kind's keys: parse() reads them
        key, sep, value = line.strip().partition(":")
        key, value = key.strip(), value.strip()
        if sep and key.startswith("grad_") and key != "grad_if":
            arg = key[len("grad_") :]
            if arg not in [n for ty, n in cur.params if ty in EDGE_PARAMS]:
                fail(lineno, f"twin {cur.name!r}: {key!r} names no tensor parameter of the twin")
            cur.grads[arg] = value
            cur.formula_line = cur.formula_line or lineno
            continue
        if not sep or key not in TWIN_KEYS:
            fail(
                lineno, f"unknown key {key!r} for twin {cur.name!r}; keys are {', '.join(sorted(TWIN_KEYS))}"
            )
        if key == "family":
            if not NAME.match(value) or not os.path.exists(os.path.join(ROOT, "csrc", "ops", value + ".cpp")):
                fail(lineno, f"twin {cur.name!r}: family {value!r} is not an ops/<family>.cpp")
            cur.family = value
        elif key == "overwrite":
            over_self = cur.params[:1] == (("Tensor&", "self"),)
            if cur.recorded or not over_self or not re.match(r"^[A-Z][A-Za-z0-9]*$", value):
                fail(lineno, f"{cur.name!r}: 'overwrite: <node name>' is for entry rows over `Tensor& self`")
            cur.overwrite = value
        elif key == "entry":
            if value != "generated":
                fail(lineno, f"twin {cur.name!r}: 'entry:' takes only 'generated', got {value!r}")
            cur.entry = True
        elif key == "when":
            if value not in TWIN_WHEN:
                fail(lineno, f"twin {cur.name!r}: 'when:' is one of {', '.join(TWIN_WHEN)}, got {value!r}")
            cur.when = value
        elif key == "composite_if":
            cur.composite_if = value
        elif key == "grad":
            if any(_reads(value, n) for n in ("node_", "grads_")):
                fail(lineno, f"twin {cur.name!r}: 'grad:' reads grad, self, result and the parameters")
            cur.grad = (value, lineno)
        elif key in ("capture", "let"):
            m = re.match(r"^([a-z_][a-z0-9_]*)\s*=\s*(.+)$", value)
            if not m:
                fail(lineno, f"twin {cur.name!r}: write '{key}: <name> = <C++ expression>'")
            (cur.captures if key == "capture" else cur.lets).append((m.group(1), m.group(2)))
        elif key == "grads":
            cur.joint = value
        elif key == "node":
            cur.node = value
        elif key == "forward":
            cur.forward = value
        elif key == "save_as":
            pairs = [w.partition("=") for w in value.split()]
            if not all(a and b for a, _, b in pairs):
                fail(lineno, f"twin {cur.name!r}: write 'save_as: <parameter>=<saved name> ...'")
            cur.save_as = {a: b for a, _, b in pairs}
        elif key == "record_unless":
            cur.record_unless = value
        elif key == "inputs":
            cur.inputs = value.split()
        elif key == "outputs":
            cur.outputs = value.split()
        elif key == "inplace_of":
            cur.inplace_of = value
        if key in TWIN_FORMULA_KEYS:
            cur.formula_line = cur.formula_line or lineno
        elif key == "grad_if":
            cur.grad_if = value
        elif key == "autocast":
            words = value.split()
            if not words or len(words) > 2 or (len(words) == 2 and words[1] != "inputs"):
                fail(lineno, f"twin {cur.name!r}: write 'autocast: <autocast::Op name> [inputs]'")
            cur.autocast = (words[0], len(words) == 2)
    for t in twins:
        if t.family is None:
            fail(t.line, f"twin {t.name!r} needs 'family:'")
        if (t.autocast or t.composite_if or t.grad_if) and not t.entry:
            fail(
                t.line,
                f"twin {t.name!r}: 'autocast:', 'composite_if:' and 'grad_if:' shape the generated entry ('entry: generated')",
            )
        tensors = [n for ty, n in t.params if ty in EDGE_PARAMS]
        if t.grad and (tensors != ["self"] or t.grads or t.joint):
            fail(
                t.grad[1],
                f"twin {t.name!r}: 'grad:' is for a twin of one tensor input `self`; "
                "give the others 'grad_<input>:' (or 'grads:')",
            )
        if t.has_formula():
            _check_twin_formula(t, tensors, fail)
        if t.when == "view" and (not t.params or t.params[0] != ("const Tensor&", "self")):
            fail(t.line, f"twin {t.name!r}: 'when: view' needs 'const Tensor& self' first")
        if t.recorded and t.entry and t.when == "grad" and not any(ty in TENSOR_PARAMS for ty, _ in t.params):
            fail(t.line, f"twin {t.name!r}: no tensor parameter for the entry to test")
    return twins


def _check_twin_formula(t, tensors, fail):
    """The shapes of twin the generator writes: one Tensor output recorded in grad mode, or an in-place twin
    over another twin through the generic in-place path."""
    if t.inplace_of is not None:
        others = t.grad or t.grads or t.joint or t.node or t.captures or t.lets or t.forward
        if t.ret != "const Tensor&" or "self" not in tensors or others:
            fail(
                t.formula_line,
                f"twin {t.name!r}: 'inplace_of:' is for a twin returning const Tensor& over `self`, alone",
            )
        return
    tuple_ret = t.cpp_ret().startswith("std::tuple<")
    in_place = t.ret == "const Tensor&" and t.name.endswith("_") and "self" in tensors
    if not t.recorded or not (t.ret == "Tensor" or tuple_ret or in_place) or t.when != "grad":
        fail(
            t.formula_line,
            f"twin {t.name!r}: a schema formula is for a twin returning Tensor (or a tuple, or an in-place "
            "<name>_ over self) recorded in grad mode; write the others' formulas in csrc/autograd/derivatives.cpp",
        )
    n_out = t.cpp_ret().count("Tensor") if tuple_ret else None
    if (
        t.outputs[0] != "result"
        or (n_out and len(t.outputs) != n_out)
        or len(set(t.outputs)) != len(t.outputs)
    ):
        fail(
            t.formula_line,
            f"twin {t.name!r}: 'outputs:' names each tensor the forward returns, the differentiable one "
            "first as `result`",
        )
    if not (t.grad or t.grads or t.joint):
        fail(t.formula_line, f"twin {t.name!r}: 'grad:', 'grad_<input>:' or 'grads:' gives the derivative")
    lists = [n for ty, n in t.params if ty == "const std::vector<Tensor>&"]
    if t.inputs is not None and (not t.joint or not set(t.inputs) <= set(tensors + lists)):
        fail(t.formula_line, f"twin {t.name!r}: 'inputs:' lists tensor parameters, for 'grads:'")
    if t.inputs and set(t.inputs) & set(lists) and len(t.inputs) != 1:
        fail(t.formula_line, f"twin {t.name!r}: a list of tensors is the node's only input (cat's)")
    if t.joint and (t.grad or t.grads):
        fail(t.formula_line, f"twin {t.name!r}: 'grads:' gives every tensor input's gradient, alone")
    formulas = [f for _, f in t.lets] + [f for f in t.grads.values()] + [t.joint or "", (t.grad or ("",))[0]]
    if any(_reads(f, n) for f in formulas for n in ("node_", "grads_", "r_")):
        fail(t.formula_line, f"twin {t.name!r}: formulas read grad, the parameters, result and captures")


def load_twins(path=SCHEMA):
    with open(path, encoding="utf-8") as f:
        return parse_twins(f.read(), path)


def twins_header(twins):
    """MT_AUTOGRAD_TWINS, the X-macro ops/op_table.h exposes: _(name, family, return type, (parameters))."""
    twins = [t for t in twins if t.recorded]
    rows = [f"  _({t.name}, {t.family}, {t.ret}, {t.cpp_params()})" for t in twins]
    return (
        "// Generated by scripts/gen_ops.py from csrc/ops/ops.schema's twin rows: edit the schema.\n"
        "#pragma once\n"
        "// clang-format off\n"
        "#define MT_AUTOGRAD_TWINS(_) \\\n" + " \\\n".join(rows) + "\n// clang-format on\n"
        f"#define MT_NUM_AUTOGRAD_TWINS {len(twins)}\n"
    )


def native_header(twins):
    """The plain ops behind the generated entries: ops/<family>.cpp defines mt::native::<name>."""
    lines = [
        "// Generated by scripts/gen_ops.py from csrc/ops/ops.schema: the plain ops (no autocast, no autograd)",
        "// behind the generated entry points; ops/<family>.cpp defines each, the entry and the twin call it.",
        "#pragma once",
        '#include "core/GradMode.h"',
    ]
    lines += [f'#include "ops/{f}.h"' for f in sorted({t.family for t in twins})]
    lines += ["", "namespace mt::native {"]
    lines += [f"{t.cpp_ret()} {t.name}{t.cpp_params()};" for t in twins if t.entry]
    lines += ["}  // namespace mt::native", ""]
    return "\n".join(lines)


def entries_cpp(twins):
    """mt::<name> for each twin with a generated entry: autocast (which calls the entry again with cast
    inputs, excluded from autocast), then the recording twin when autograd records, else the plain op."""
    out = [
        "// Generated by scripts/gen_ops.py from csrc/ops/ops.schema: the entry points of the twins with",
        "// 'entry: generated'. The ops layer defines the plain op (mt::native::<name>); this file sits above it",
        "// and above autograd, as PyTorch's generated at:: functions sit over at::native.",
        '#include "autograd/record.h"',
        '#include "generated/native.h"',
        '#include "ops/autocast.h"',
        "",
        "namespace mt {",
        "",
    ]
    for t in twins:
        if not t.entry:
            continue
        body = []
        if not t.recorded:
            if t.overwrite:  # autograd::overwrite records the zero gradients of every tensor input
                others = [n for ty, n in t.params[1:] if ty == "const Tensor&"]
                cond = " || ".join(f"autograd::needs_grad({n})" for n in ["self"] + others)
                edges = "{" + ", ".join("&" + n for n in others) + "}"
                write = f"[&] {{ native::{t.name}({t.args()}); }}"
                body.append(
                    f'  if ({cond}) return autograd::overwrite("{t.overwrite}", self, {edges}, {write});'
                )
            body.append(f"  return native::{t.name}({t.args()});")
            out += [f"{t.cpp_ret()} {t.name}{t.cpp_params()} {{"] + body + ["}", ""]
            continue
        if t.composite_if:
            composite = f"native::{t.name}({t.args()})"
            if t.when != "view" and "&" not in t.cpp_ret():
                composite = f"autograd::fresh_result({composite})"
            body.append(f"  if ({t.composite_if}) return {composite};")
        if t.autocast:
            op, inputs = t.autocast
            tensors = [n for ty, n in t.params if ty == "const Tensor&"]
            lists = [n for ty, n in t.params if ty == "const std::vector<Tensor>&"]
            seen = lists[0] if lists else "{" + ", ".join("&" + n for n in tensors) + "}"
            if op == "by_op":  # an elementwise op: autocast touches the ops the schema's rows name
                scope = "*ac" + (", " + seen if inputs else "")
                body += [
                    "  if (autocast::active()) {",
                    "    if (auto ac = autocast::op_of(op)) {",
                    f"      autocast::Scope s({scope});",
                    f"      return {t.name}({t.args(cast=True)});",
                    "    }",
                    "  }",
                ]
            else:
                scope = f"autocast::Op::{op}" + (", " + seen if inputs else "")
                body += [
                    "  if (autocast::active()) {",
                    f"    autocast::Scope s({scope});",
                    f"    return {t.name}({t.args(cast=True)});",
                    "  }",
                ]
        if t.grad_if:
            cond = t.grad_if
        elif t.when == "view":
            cond = "autograd::track_view(self)"
        else:
            cond = " || ".join(TENSOR_PARAMS[ty].format(n=n) for ty, n in t.params if ty in TENSOR_PARAMS)
        plain, recorded = f"native::{t.name}({t.args()})", f"autograd::{t.name}({t.args()})"
        if t.when == "view":  # a view not recorded still knows its base (Tensor._base), as PyTorch's
            plain = f"autograd::mark_plain_view(self, {plain})"
        elif "&" not in t.cpp_ret():  # no view op: a view of the op's own temporary is none (fresh_result)
            plain, recorded = f"autograd::fresh_result({plain})", f"autograd::fresh_result({recorded})"
        body += [
            f"  if ({cond}) return {recorded};",
            f"  return {plain};",
        ]
        out += [f"{t.cpp_ret()} {t.name}{t.cpp_params()} {{"] + body + ["}", ""]
    out += ["}  // namespace mt", ""]
    return "\n".join(out)


# ---------------------------------------------------------------- the generated text

HEADER = "// Generated by scripts/gen_ops.py from csrc/ops/ops.schema: edit the schema, not this file.\n"


def _c(s):
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _macro(name, rows, doc):
    body = "".join(f" \\\n  _({', '.join(r)})" for r in rows)
    return f"// {doc}\n#define {name}(_){body}\n"


def ops_header(ops):
    """What the core needs (ops, kernels, autograd, autocast): included by every file that includes
    ops/elementwise.h, so binding-only facts live in bindings.h instead and cost no core recompilation."""
    out = [HEADER, "#pragma once\n\n"]
    for kind in ("unary", "binary"):
        mine = [op for op in ops if op.kind == kind]
        K = kind.upper()
        out.append(
            _macro(f"MT_{K}_OPS", [(o.name, o.functor, o.rule) for o in mine], "(name, functor, rule)")
        )
        out.append(
            _macro(
                f"MT_{K}_AUTOCAST",
                [(o.name,) for o in mine if o.autocast],
                f"the {kind} ops autocast touches, each an autocast::Op of the same name",
            )
        )
    out.append(
        _macro(
            "MT_SCHEMA_AUTOCAST_OPS",
            [(o.name, *o.autocast) for o in ops if o.autocast],
            "rows of ops/autocast.h's MT_AUTOCAST_OPS: (op, policy on CUDA, policy on the CPU)",
        )
    )
    return "".join(out)


def bindings_header(ops):
    """What the binding layer iterates: the elementwise spellings, the funcs' out= rules, the schema rows."""
    out = [HEADER, "#pragma once\n\n", keyword_enum()]
    for kind in ("unary", "binary"):
        spell = []
        for o in (op for op in ops if op.kind == kind):
            for name, variants in o.spellings():
                flags = [str(int(v in variants)) for v in VARIANTS]
                keyword = "ElementwiseKeyword::" + (o.keyword or "none")
                old_form = str(int(o.deprecated is not None and name == o.name))
                spell.append((_c(name), o.name, keyword, old_form, *flags))
        out.append(
            _macro(
                f"MT_{kind.upper()}_SPELLINGS",
                spell,
                "(Python name, op, keyword argument, the deprecated alpha-first form, method, Tensor.<name>_, "
                "out=, minitorch.<name>_)",
            )
        )
    out.append(operators_macros(ops))
    out.append(
        _macro(
            "MT_FUNC_OUT",
            [(_c(o.name), o.out_rule) for o in ops if o.kind == "func" and o.out_rule],
            "the funcs with out=: (name, how the result's dtype must match out's: an OutRule)",
        )
    )
    out.append(_torch_function_macro(ops))
    rows = []
    for o in ops:
        aliases = " ".join(n + ("" if v == o.variants else "[" + " ".join(v) + "]") for n, v in o.aliases)
        rows.append(
            (
                _c(o.kind),
                _c(o.name),
                _c(o.functor or o.call),
                _c(o.rule or declared(o)),
                _c(" ".join(o.variants)),
                _c(aliases),
                _c(" ".join(o.autocast or ())),
                _c(o.grad or ""),
                _c(o.module or ""),
            )
        )
    out.append(
        _macro(
            "MT_SCHEMA_RULES",
            [(_c(o.name), _c(k), _c(v)) for o in ops for k, v in o.transforms]
            + [(_c(o.name), _c("dual_term"), _c(o.fields["dual_term"][0])) for o in ops if o.dual_term],
            "the forward-mode and vmap rules, for minitorch._C._op_schema_rules() (autograd/_jvp_rules.py and "
            "func/_batch_rules.py evaluate them), and the second-order terms (func/_forward_ad.py's record reads "
            "them): (op, key, Python expression or the dual_term: as written)",
        )
    )
    out.append(
        _macro(
            "MT_SCHEMA_ROWS",
            rows,
            "every op as declared, for minitorch._C._op_schema(): (kind, name, functor or call, "
            "rule or signature, variants, aliases, autocast, grad, the submodule a `module:` row binds into)",
        )
    )
    return "".join(out)


def _torch_function_macro(ops):
    return _macro(
        "MT_FUNC_TORCH_FUNCTION",
        [(_c(o.name),) for o in ops if o.kind == "func" and o.torch_function_fallback],
        "the funcs with `torch_function: fallback`: bind_linalg.cpp adds their last overload, after out=",
    )


def declared(op):
    """A func's signatures as declared, its overloads' joined by ' | ' (the table row _C._op_schema() carries)."""
    return " | ".join(o.signature for o in op.overloads)


def _py_args(params, skip_self):
    args, kw = [], False
    for p in params:
        if skip_self and p.name == "self":
            continue
        if p.type == VARARGS:  # py::args, then size= (keyword-only after it, as is all that follows)
            args.append(f'py::arg("{p.name}") = py::none()')
            kw = True
            continue
        if p.kw_only and not kw:
            args.append("py::kw_only()")
            kw = True
        name = "input" if p.name == "self" else p.name
        arg = f'py::arg("{name}")'
        if p.default is not None:
            arg += " = " + p.default_cpp
        args.append(arg)
    return args


# An overloaded func's int and bool arguments as strict casters (python/strict_args.h): one that refuses sends
# pybind11 on to the next overload, and arg_errors.cpp words PyTorch's TypeError when none takes the call.
STRICT_TYPES = {"int": "StrictInt", "SymInt": "StrictSymInt", "bool": "StrictBool"}
STRICT_OPTIONALS = {"int?": ("OptInt", "int64_t"), "bool?": ("OptBool", "bool")}
# an overload's size as one argument: a tuple or list only (randint(0, 3) is a forgotten size, not a size of 3),
# and its Scalar a number or anything numeric (fill_('a') tries the next row): bind_factory.h's casters refuse
# the rest and hand the object on to the row's conversion
# (an int[] a tuple or list whose first element is an int, as PyTorch's parser checks it: squeeze's dims; a
# Generator? None or a generator)
STRICT_HANDLES = {
    "SymInt[]": "SizeArg",
    "Scalar": "ScalarArg",
    "Scalar?": "OptScalarArg",
    "Generator?": "GeneratorArg",
    "int[]": "IntListArg",
    # a sized list (conv2d's int[2] stride) also takes one int standing for it (bind_shape.h)
    **{f"{t}[{k}]": "SizedIntListArg" for t in ("int", "SymInt") for k in (1, 2, 3)},
}


def _lambda(op, inplace, method=False, overloaded=False, many=False):
    """The binding's lambda: C++ parameters, conversions of handle arguments, the call without the GIL.
    int and bool arguments are checked as PyTorch's parser does (no bool for an int, no int for a bool), with
    its message naming the function, the argument and its position (a method's positions skip self, which
    comes first wherever the signature has it). An overload's int and bool arguments are strict casters."""
    params, convert = [], []
    shown = op.name + "_" if inplace else op.name
    skip = method or inplace
    # a Tensor(a!) self (fill_, uniform_): the method writes into it and returns the very object
    in_place = inplace or any(p.type == "Tensor(a!)" for p in op.params)
    order = [p for p in op.params if skip and p.name == "self"] + [
        p for p in op.params if not (skip and p.name == "self")
    ]
    for p in order:
        i = op.params.index(p)
        ctype, conversion = ARG_TYPES[p.type]
        if p.default is None and conversion and "= ints_arg(" in conversion and not op.name.startswith("_"):
            # None stands for an int list only where the row gives it a default (max_pool2d's kernel_size: no);
            # a private row's caller (_nansum's, _upsample's) passes None for "every dim" or "none given"
            conversion = conversion.replace("= ints_arg(", "= required_ints_arg(")
        before_self = skip and i < [q.name for q in op.params].index("self")
        pos = 0 if p.kw_only else (i + 1 if before_self else i if skip else i + 1)
        where = f'{{"{shown}", "{p.name}", {pos}}}'
        if overloaded and p.type in STRICT_TYPES:
            params.append(f"{STRICT_TYPES[p.type]} {p.name}")
        elif overloaded and p.type in STRICT_OPTIONALS:
            # None or the strict kind (random_.from's int? to): a refusal tries the next row, never raises here
            kind, value = STRICT_OPTIONALS[p.type]
            params.append(f"{kind} {p.name}_obj")
            convert.append(f"std::optional<{value}> {p.name} = {p.name}_obj;")
        elif overloaded and p.type == "float":  # a refusal tries the next row (bernoulli_'s float p)
            params.append(f"double {p.name}")
        elif many and p.type == "Tensor" and not (skip and p.name == "self"):
            # a row of several: bind_factory.h's TensorArg refuses a non-tensor cheaply for the next row
            params.append(f"TensorArg {p.name}_obj")
            convert.append(f"Tensor {p.name} = {p.name}_obj.h.cast<Tensor>();")
        elif p.type == "Tensor|Scalar" and not op.name.startswith("_"):
            # bind_factory.h's OperandArg: a bad value fails the call for arg_errors.cpp to word as PyTorch's
            # two overloads (a private row's bad call is its public wrapper's to word)
            params.append(f"OperandArg {p.name}_obj")
            convert.append(conversion.format(n=p.name, where=where))
        elif many and p.type == "Tensor?":
            params.append(f"OptTensorArg {p.name}_obj")
            convert.append(
                f"std::optional<Tensor> {p.name}; "
                f"if (!{p.name}_obj.h.is_none()) {p.name} = {p.name}_obj.h.cast<Tensor>();"
            )
        elif overloaded and p.type in STRICT_HANDLES:
            params.append(f"{STRICT_HANDLES[p.type]} {p.name}_obj")
            convert.append(conversion.format(n=p.name, where=where))
        elif in_place and p.name == "self":
            params.append("py::object self_obj")
            convert.append("Tensor self = self_obj.cast<Tensor>();")
        elif p.type == VARARGS:
            params += [f"py::args {p.name}_args", f"py::handle {p.name}_obj"]
            convert.append(conversion.format(n=p.name, fn=shown))
        elif conversion is not None:
            params.append(f"{ctype} {p.name}_obj")
            if conversion:
                # checked whether or not the call reads it (pin_memory: checked, then accepted as PyTorch's)
                unread = "" if _reads(op.call, p.name) or p.type == "Generator?" else "[[maybe_unused]] "
                convert.append(unread + conversion.format(n=p.name, where=where))
        else:
            params.append(f"{ctype} {p.name}")
    if op.before:
        convert.append(op.before + ";")  # under the GIL, after the arguments converted
    tensors = ", ".join(p.name for p in op.params if p.type in TENSOR_ARGS)
    if in_place:
        # Tensor.<name>_ calls the in-place twin of the function its call opens with (clip_: clamp_)
        call = re.sub(r"^([\w:]+)\(", r"\1_(", op.call, count=1) if inplace else op.call
        run = f"{call};" if op.keep_gil else f"{_released(op, call + ';', tensors)};"
        body = f"{run}\n      return self_obj;"
    else:
        value = _released(op, f"return {op.call};", tensors)
        if op.keep_gil or any(p.type in RAW_ARGS or p.type == VARARGS for p in op.params):
            value = op.call  # it reads Python objects: the helper releases the GIL around the fill itself
        if op.returns == "(Tensor values, Tensor indices)":
            value = f'values_indices("{op.name}", {value})'
        elif op.returns == "ScalarType":  # the dtype object, owned by the module
            value = f"py::cast(dtype_object({op.call}), py::return_value_policy::reference)"
        body = f"return {value};"
    lines = "".join(f"      {c}\n" for c in convert)
    return f"[]({', '.join(params)}) {{\n{lines}      {body}\n    }}"


def _released(op, body, tensors):
    """The call run without the GIL: when one of its tensors is big (bind.h's nogil), or for `nogil: product a
    b` when the product's work is (big_product: a GEMM's m*n*k, long before its operands pass the size), always
    (`nogil: always`), or when the row's condition holds (`nogil: when <condition>`)."""
    if op.nogil and op.nogil[0] == "product":
        return f"nogil_if(big_product({op.nogil[1]}, {op.nogil[2]}), [&] {{ {body} }})"
    if op.nogil and op.nogil[0] == "always":
        return f"nogil([&] {{ {body} }})"
    if op.nogil:
        return f"nogil_if({op.nogil[1]}, [&] {{ {body} }})"
    return f"nogil([&] {{ {body} }}, {tensors})"


# The generated bindings' argument checks, in PyTorch's words: "topk(): argument 'k' (position 2) must be int,
# not bool" (a keyword-only argument has no position).
ARG_CHECKS = """namespace {

struct ArgWhere {
  const char* fn;
  const char* name;
  int pos;  // in the call's words: a method's skip self, a keyword-only argument has none (0)
};

[[noreturn]] void wrong_arg(const ArgWhere& w, const char* want, py::handle h) {
  std::string at = w.pos > 0 ? " (position " + std::to_string(w.pos) + ")" : "";
  throw py::type_error(std::string(w.fn) + "(): argument '" + w.name + "'" + at + " must be " + want +
                       ", not " + arg_type_name(h));
}

// the kinds are python/strict_args.h's, shared with the hand-written bindings
int64_t int_arg(py::handle h, const ArgWhere& w) {
  int64_t v = 0;
  if (!load_strict_int(h.ptr(), &v)) wrong_arg(w, "int", h);
  return v;
}

// PyTorch's double (normal_'s mean, softplus's beta): a Python or NumPy number (a bool too), or a 0-dim real
// tensor that does not require grad
double float_arg(py::handle h, const ArgWhere& w) {
  PyObject* o = h.ptr();
  if (PyFloat_Check(o) || PyLong_Check(o)) return PyFloat_AsDouble(o);
  if (g_tensor_type && PyObject_TypeCheck(o, g_tensor_type)) {
    const Tensor t = h.cast<Tensor>();
    if (t.dim() != 0 || t.requires_grad() || is_complex(t.dtype())) wrong_arg(w, "float", h);
    return item(t).to_double();
  }
  const char* tp = Py_TYPE(o)->tp_name;  // numpy.float32, numpy.int64, numpy.bool: scalars, not arrays
  if (std::strncmp(tp, "numpy.", 6) == 0 && std::strcmp(tp, "numpy.ndarray") != 0 && !PyComplex_Check(o) &&
      std::strstr(tp, "complex") == nullptr) {
    const double v = PyFloat_AsDouble(o);
    if (!(v == -1.0 && PyErr_Occurred())) return v;
    PyErr_Clear();
  }
  wrong_arg(w, "float", h);
}

// PyTorch's Generator? (uniform_'s generator=): None or a minitorch.Generator
py::handle generator_arg(py::handle h, const ArgWhere& w) {
  if (!h.is_none() && !is_generator(h)) wrong_arg(w, "torch.Generator", h);
  return h;
}

// PyTorch's SymInt (topk's k, tril's diagonal): also a one-element integer tensor of any rank
int64_t symint_arg(py::handle h, const ArgWhere& w) {
  int64_t v = 0;
  if (!load_strict_int(h.ptr(), &v, true)) wrong_arg(w, "int", h);
  return v;
}

// PyTorch's int list (roll's shifts, logsumexp's dim): python/bind_common.cpp's, shared with the hand bindings;
// sized: one int (or one-element integer tensor) stands for the list (int[1]), else only a list or tuple does
DimVector ints_arg(py::handle h, const ArgWhere& w, bool sized = true) {
  if (sized) return int_list_arg(h, w.fn, w.name, w.pos);
  if (h.is_none()) return {};
  return int_list_value(h, w.fn, w.name, w.pos, /*symint=*/false, /*sized=*/false);
}

// PyTorch's SymInt[] (full's size): a list or tuple whose tensor entries are read by item()
DimVector symints_arg(py::handle h, const ArgWhere& w) {
  return int_list_value(h, w.fn, w.name, w.pos, /*symint=*/true, /*sized=*/false);
}

// PyTorch's SymInt[N] (conv2d's stride): one int or a list, a bool tensor element refused (symint)
DimVector sized_symints_arg(py::handle h, const ArgWhere& w) {
  if (h.is_none()) return {};
  return int_list_value(h, w.fn, w.name, w.pos, /*symint=*/true, /*sized=*/true);
}

// an int list without a default: None is the parser's TypeError (int_list_arg reads None as an empty list)
DimVector required_ints_arg(py::handle h, const ArgWhere& w, bool sized = true) {
  if (h.is_none()) wrong_arg(w, "tuple of ints", h);
  return ints_arg(h, w, sized);
}

// an int list whose entries may be None (the adaptive pools' output_size); a bad entry is int_list_arg's
std::vector<std::optional<int64_t>> opt_ints_arg(py::handle h, const ArgWhere& w) {
  std::vector<std::optional<int64_t>> out;
  PyObject* o = h.ptr();
  if (!PyList_Check(o) && !PyTuple_Check(o)) {
    for (int64_t v : ints_arg(h, w)) out.emplace_back(v);
    return out;
  }
  py::list ints;  // the entries with None as 0, for int_list_arg's words on a bad one
  for (py::handle e : h) {
    out.emplace_back(e.is_none() ? std::nullopt : std::optional<int64_t>(0));
    ints.append(e.is_none() ? py::int_(0) : py::reinterpret_borrow<py::object>(e));
  }
  DimVector v = ints_arg(ints, w);
  for (size_t i = 0; i < out.size(); ++i)
    if (out[i]) out[i] = v[i];
  return out;
}

// PyTorch's Number (arange's end, full's fill_value): a bool, int, float or complex, a one-element tensor
Scalar scalar_arg(py::handle h, const ArgWhere& w) {
  try {
    return parse_scalar(h, w.name);
  } catch (const py::type_error&) {
    wrong_arg(w, "Number", h);
  }
}

bool bool_arg(py::handle h, const ArgWhere& w) {
  if (!is_strict_bool(h.ptr())) wrong_arg(w, "bool", h);
  return h.ptr() == Py_True;
}

template <typename F>
auto opt_arg(py::handle h, F check, const ArgWhere& w) -> std::optional<decltype(check(h, w))> {
  if (h.is_none()) return std::nullopt;
  return check(h, w);
}

}  // namespace

"""


def _family_headers():
    # every op family's header: a func's call may name any op
    skip = {"Dispatch.h", "kernels.h", "op_table.h", "ops.h"}
    return sorted(
        h for h in os.listdir(os.path.join(ROOT, "csrc", "ops")) if h.endswith(".h") and h not in skip
    )


def _binding_headers():
    # the binding layer's helpers a func's call may name (python/bind_shape.h's in-place views), beside the
    # factories' bind_factory.h
    skip = {"bind.h", "bind_factory.h"}
    return sorted(
        h
        for h in os.listdir(os.path.join(ROOT, "csrc", "python"))
        if h.startswith("bind_") and h.endswith(".h") and h not in skip
    )


def bind_funcs_cpp(ops):
    """The funcs' bindings: the function, and the method and Tensor.<name>_ forms the schema lists."""
    out = [
        HEADER,
        "".join(f'#include "ops/{h}"\n' for h in _family_headers()),
        '#include "autograd/Node.h"\n#include "python/bind.h"\n#include "python/bind_factory.h"\n',
        "".join(f'#include "python/{h}"\n' for h in _binding_headers()),
        "\nnamespace mt {\n\n",
        "py::object values_indices(const char* name, const std::tuple<Tensor, Tensor>& r);  // bind_reduce.cpp\n\n",
        ARG_CHECKS,
        "void init_schema_funcs(py::module_& m, TensorClass& cls) {\n",
    ]
    # the submodules `module:` rows bind into (minitorch._C._nn), each found or made once
    modules = sorted({o.module for o in ops if o.kind == "func" and o.module and not o.own_binding})
    out += [f'  py::module_ m_{mod} = m.def_submodule("_{mod}");\n' for mod in modules]
    for first in (o for o in ops if o.kind == "func" and not o.own_binding):
        # an overloaded func: one pybind11 overload per row, tried in the schema's order
        many = len(first.overloads) > 1
        for op in first.overloads:
            # pybind11 loads a Tensor before the body converts the rest: an int or bool before a tensor
            # (polygamma's n) is then a strict caster, so the first bad argument is the one PyTorch names
            types = [p.type for p in op.params]
            # a Scalar|Tensor row stands for PyTorch's several overloads, which refuse a bad int or bool
            # before the call runs: strict casters, so arg_errors.cpp words the "invalid combination"
            strict = (
                many
                or "Scalar|Tensor" in types
                or ("Tensor|Scalar" in types and not op.name.startswith("_"))
                or any(t in STRICT_TYPES and "Tensor" in types[i:] for i, t in enumerate(types))
                or op.keep_gil  # a view's ints load in pybind11's casters, as cheap as the hand bindings'
            )
            out.append(f"  {{  // {op.signature}\n")
            if op.function:
                out.append(f"    auto fn = {_lambda(op, False, overloaded=strict, many=many)};\n")
                target = f"m_{op.module}" if op.module else "m"
                out.append(
                    f"    {target}.def({', '.join([_c(op.name), 'fn', *_py_args(op.params, False)])});\n"
                )
            if "method" in op.variants:
                fn = _lambda(op, False, method=True, overloaded=strict, many=many)
                out.append(f"    cls.def({', '.join([_c(op.name), fn, *_py_args(op.params, True)])});\n")
            if "inplace" in op.variants:
                fn = _lambda(op, True, overloaded=strict, many=many)
                out.append(
                    f"    cls.def({', '.join([_c(op.name + '_'), fn, *_py_args(op.params, True)])});\n"
                )
            out.append("  }\n")
    out.append("}\n\n}  // namespace mt\n")
    return "".join(out)


def elementwise_grad_inc(ops):
    unary = [op for op in ops if op.kind == "unary"]
    lines = [
        HEADER,
        "// Included by csrc/autograd/derivatives.cpp, whose helpers (S, fmask, kPi, *_grad) the formulas use.\n",
        "Tensor unary_grad(UnaryOp op, const Tensor& grad, const Tensor& self, const Tensor& result) {\n",
        "  using mt::add;\n  using mt::div;\n  using mt::mul;\n  using mt::sub;\n",
        "  switch (op) {\n",
    ]
    for op in unary:
        if op.grad:
            lines.append(f"    case UnaryOp::{op.name}:\n      return {op.grad};\n")
    dead = [op.name for op in unary if not op.grad]
    for name in dead:
        lines.append(f"    case UnaryOp::{name}:\n")
    if dead:
        lines.append("      break;  // not differentiable\n")
    lines.append("  }\n")
    lines.append('  MT_ERROR("the derivative for \'", unary_name(op), "\' is not implemented.");\n}\n\n')
    lines.append("// Whether the node saves the input (else the result): what the formula reads.\n")
    lines.append("bool unary_saves_input(UnaryOp op) {\n  switch (op) {\n")
    for op in unary:
        if op.saves_result():
            lines.append(f"    case UnaryOp::{op.name}:\n")
    lines.append("      return false;\n    default:\n      return true;\n  }\n}\n\n")
    lines += _binary_formula(op for op in ops if op.kind == "binary")
    return "".join(lines)


def dual_terms_inc(ops):
    """The second-order terms of forward-over-reverse the schema declares in C++ (`dual_term:`): a unary row's
    expression becomes a term function here; MT_DUAL_TERMS lists (op, function, reads the result's tangent) for
    csrc/autograd/dual_terms.cpp's table, whose `fn` functions are its own."""
    lines = [
        HEADER,
        "// Included by csrc/autograd/dual_terms.cpp, whose helpers (S, sum_dim, *_second) and term functions the\n",
        "// rows use.\n\n",
    ]
    rows = []
    for op in ops:
        if not op.dual_term or op.dual_term[0] not in ("fn", "expr"):
            continue
        kind, body, reads_tr = op.dual_term
        fn = body
        if kind == "expr":
            fn = f"{op.name}_dual_term"
            lines.append(f"// {op.name}: d/ds of its backward formula at self + s t_self\n")
            lines.append(f"Terms {fn}(const DualTerm& d, const Tensor& grad) {{\n")
            for name, source in zip(DUAL_SCOPE[1:], ("d.x[0]", "d.t[0]", "d.r", "d.tr")):
                if _reads(body, name):
                    lines.append(f"  const Tensor& {name} = {source};\n")
            lines.append(f"  return {{{body}}};\n}}\n\n")
        rows.append((_c(op.name), fn, "true" if reads_tr else "false"))
    lines.append(
        _macro(
            "MT_DUAL_TERMS", rows, "the ops whose second-order term is C++: (op, function, reads t_result)"
        )
    )
    return "".join(lines)


def _mask(grad_self, grad_other, name):
    """Which gradients read the input `name`: the grad_of bits the node saves it for."""
    bits = [f"grad_of({i})" for i, f in enumerate((grad_self, grad_other)) if _reads(f, name)]
    return " | ".join(bits) or "0"


def _binary_formula(binary):
    lines = [
        "// Which gradients read self and other (each is saved only when one of those is needed) and how the\n",
        "// gradients are computed; a null formula: not differentiable.\n",
        "BinaryFormula binary_formula(BinaryOp op) {\n",
        "  using mt::add;\n  using mt::div;\n  using mt::mul;\n  using mt::sub;\n",
        "  switch (op) {\n",
    ]
    dead = []
    for op in binary:
        if op.grad_self is None and op.grad is None:
            dead.append(op.name)
            continue
        if op.save is not None:
            masks = ["kAlways" if n in op.save else "0" for n in ("self", "other")]
        else:
            masks = [_mask(op.grad_self, op.grad_other, n) for n in ("self", "other")]
        lines.append(f"    case BinaryOp::{op.name}:\n")
        if op.grad is not None:
            lines.append(f"      return {{{masks[0]}, {masks[1]}, &{op.grad}}};\n")
            continue
        lines.append(
            f"      return {{{masks[0]}, {masks[1]},\n"
            "              [](const Tensor& grad, const Tensor& self, const Tensor& other, bool need_self,\n"
            "                 bool need_other) -> V {\n"
            f"                return {{need_self ? Tensor({op.grad_self}) : Tensor(),\n"
            f"                        need_other ? Tensor({op.grad_other}) : Tensor()}};\n"
            "              }};\n"
        )
    for name in dead:
        lines.append(f"    case BinaryOp::{name}:\n")
    if dead:
        lines.append("      break;  // not differentiable\n")
    lines.append("  }\n  return {kAlways, kAlways, nullptr};\n}\n")
    return lines


def unary_checks_inc(ops):
    """check_unary_dtype: the dtypes PyTorch's kernels refuse, in PyTorch's words."""
    lines = [
        HEADER,
        "// Included by csrc/ops/elementwise.cpp, whose dtype_not_implemented and kernel_name it uses.\n",
        "void check_unary_dtype(UnaryOp op, ScalarType dt, Device dev) {\n  switch (op) {\n",
    ]
    for op in ops:
        if op.kind != "unary" or op.refuse is None:
            continue
        cls, how, what = op.refuse
        cond = REFUSE_CLASSES[cls]
        if how == "message":
            action = f"MT_CHECK_NOT_IMPLEMENTED(false, {_c(what)});"
        else:
            names = what.split()
            kernel = (
                f"kernel_name({_c(names[0])}, dev)"
                if len(names) == 1
                else f"dev.is_cuda() ? {_c(names[1])} : {_c(names[0])}"
            )
            action = f"dtype_not_implemented({kernel}, dt);"
        lines.append(f"    case UnaryOp::{op.name}:\n      if ({cond}) {action}\n      break;\n")
    lines.append("    default:\n      break;\n  }\n}\n")
    return "".join(lines)


def _camel(name):
    return "".join(w.capitalize() for w in name.split("_"))


def _twin_edges(t):
    """The node's inputs: (parameter, its gradient's formula or None for an edge without one). `grad:` is
    self's; with `grads:` every tensor parameter is an input; else those with a `grad_<input>:` row, in the
    order of the parameters (`none`: the slot is kept, empty, as where's condition)."""
    tensors = [n for ty, n in t.params if ty in EDGE_PARAMS]
    if t.grad:
        return [("self", t.grad[0])]
    if t.joint and t.inputs and t.inputs[0] not in tensors:  # a list of tensors: one input per element
        return [(t.inputs[0], None)]
    if t.joint:
        return [(n, None) for n in tensors if t.inputs is None or n in t.inputs]
    return [(n, None if t.grads[n] == "none" else t.grads[n]) for n in tensors if n in t.grads]


def _cpp_mask(bits, n_edges):
    if len(bits) == n_edges:
        return "kAlways"
    return " | ".join(f"grad_of({i})" for i in bits) or "0"


def twin_formula(t):
    """One recording twin from its schema row: runs the forward without grad, records node <Name>Backward0 (or
    `node:`) with an edge per input, saves each tensor parameter (and `result`) a formula reads, for the
    gradients that read it (`let:` and `grads:` serve them all), and computes the needed gradients."""
    if t.inplace_of is not None:
        args = ", ".join("s_" if n == "self" else n for _, n in t.params)
        return (
            f"\nconst Tensor& {t.name}{t.cpp_params()} {{\n"
            f"  return inplace(self, [&](const Tensor& s_) {{ return autograd::{t.inplace_of}({args}); }});\n"
            "}\n"
        )
    edges = _twin_edges(t)
    types = {n: ty for ty, n in t.params}
    list_input = types[edges[0][0]] == "const std::vector<Tensor>&" if edges else False
    lets = [f for _, f in t.lets]
    everyone = lets + ([t.joint] if t.joint else [])
    by_edge = [f for _, f in edges]
    tensors = [n for ty, n in t.params if ty in EDGE_PARAMS] + t.outputs
    saved = []
    for n in tensors:
        if any(_reads(f, n) for f in everyone):
            bits = list(range(len(edges)))
        else:
            bits = [i for i, f in enumerate(by_edge) if _reads(f, n)]
        if not bits:
            continue
        mask = _cpp_mask(bits, len(edges))
        if n == "result":
            saved.append((n, f'{{"result", result, {mask}, true}}'))
        elif n in t.outputs:  # another output of the forward (max's indices): saved as a plain tensor
            saved.append((n, f'{{"{n}", {n}, {mask}}}'))
        elif types[n] == "const std::optional<Tensor>&":
            saved.append((n, f'{{"{t.save_as.get(n, n)}", {n} ? *{n} : Tensor(), {mask}}}'))
        else:
            saved.append((n, f'{{"{t.save_as.get(n, n)}", {n}, {mask}}}'))
    # what the backward reads besides the saved tensors: the captures, and the other parameters by value
    # (an IntArrayRef as its own DimVector: the caller's array is gone by then)
    body_text = everyone + [f for f in by_edge if f]
    cap_names = [n for n, _ in t.captures]
    caps = [f"{n} = {e}" for n, e in t.captures if any(_reads(f, n) for f in body_text)]
    for ty, n in t.params:
        # a list of tensors (index's indices) is not an input of the node: the backward reads a copy
        if ty in EDGE_PARAMS or n in cap_names or not any(_reads(f, n) for f in body_text):
            continue
        caps.append(f"{n} = DimVector({n}.begin(), {n}.end())" if ty == "IntArrayRef" else n)
    # a `none` edge keeps its slot, empty
    ins = ", ".join(
        "nullptr"
        if f is None and not t.joint
        else (f"{n} ? &*{n} : nullptr" if types[n] != "const Tensor&" else f"&{n}")
        for n, f in edges
    )
    if list_input:  # the elements' addresses, built when recording
        ins = "ins_"
    node = t.node or f"{_camel(t.name)}Backward0"
    node = f'"{node}"' if re.match(r"^[A-Z][A-Za-z0-9]*$", node) else node
    forward = t.forward or f"mt::{t.name}({t.args()})"
    body = ["           const Tensor& grad = grads_[0];\n"]
    if list_input and any(_reads(f, f"need_{edges[0][0]}") for f in body_text):
        n = edges[0][0]
        body.append(f"           std::vector<bool> need_{n}(node_.next_edges.size());\n")
        body.append(
            f"           for (size_t i_ = 0; i_ < need_{n}.size(); ++i_) need_{n}[i_] = node_.needs_input_grad(i_);\n"
        )
    for i, (n, _) in enumerate([] if list_input else edges):
        if any(_reads(f, f"need_{n}") for f in body_text):
            body.append(f"           const bool need_{n} = node_.needs_input_grad({i});\n")
    for n, _ in saved:
        body.append(f'           const Tensor {n} = node_.saved("{t.save_as.get(n, n)}");\n')
    body += [f"           const auto {n} = {e};\n" for n, e in t.lets]
    if t.joint:
        body.append(f"           return {t.joint};\n")
    elif len(edges) == 1:
        body.append(f"           return {{{by_edge[0]}}};\n")
    else:
        body.append(f"           V r_({len(edges)});\n")
        for i, f in enumerate(by_edge):
            if f is not None:
                body.append(f"           if (node_.needs_input_grad({i})) r_[{i}] = {f};\n")
        body.append("           return r_;\n")
    saves = ", ".join(e for _, e in saved)
    if t.ret == "const Tensor&":
        # an in-place twin: recorded out of place from a clone of self (so a saved self keeps its version),
        # through the generic in-place path, which writes the result into self and hands it the history
        args = ", ".join("o_" if n == "self" else n for _, n in t.params)
        forward = t.forward or f"Tensor o_ = mt::clone(self); mt::{t.name}({args}); return o_;"
        return "".join(
            [
                f"\nconst Tensor& {t.name}{t.cpp_params()} {{\n",
                "  return inplace(self, [&](const Tensor& self) {\n",
                f"    Tensor result = no_grad([&] {{ {forward} }});\n",
                f"    record({node}, {{{ins}}}, {{&result}}, {{{saves}}},\n",
                f"           [{', '.join(caps)}](FnNode& node_, V& grads_) -> V {{\n",
                *["  " + b for b in body],
                "           });\n",
                "    return result;\n",
                "  });\n",
                "}\n",
            ]
        )
    if len(t.outputs) == 1:
        forward_lines, ret = [f"  Tensor result = no_grad([&] {{ return {forward}; }});\n"], "result"
    else:
        # the forward's tuple: the twin returns it whole, or its first output when the twin returns Tensor
        forward_lines = [f"  auto outs_ = no_grad([&] {{ return {forward}; }});\n"]
        forward_lines += [f"  const Tensor& {n} = std::get<{i}>(outs_);\n" for i, n in enumerate(t.outputs)]
        ret = "result" if t.ret == "Tensor" else "outs_"
    if t.record_unless:  # (to: nothing to record when the tensor itself comes back)
        forward_lines.append(f"  if ({t.record_unless}) return {ret};\n")
    return "".join(
        [
            f"\n{t.cpp_ret()} {t.name}{t.cpp_params()} {{\n",
            *forward_lines,
            *(
                [
                    "  std::vector<const Tensor*> ins_;\n",
                    f"  for (const Tensor& t_ : {edges[0][0]}) ins_.push_back(&t_);\n",
                ]
                if list_input
                else []
            ),
            f"  record({node}, {{{ins}}}, {{&result}}, {{{saves}}},\n".replace("{ins_}", "ins_"),
            f"         [{', '.join(caps)}](FnNode& node_, V& grads_) -> V {{\n",
            *body,
            "         });\n",
            f"  return {ret};\n",
            "}\n",
        ]
    )


def twin_grads_inc(twins):
    """The recording twins whose derivative the schema holds (`grad:`, `grad_<input>:`, `grads:`, in-place
    `inplace_of:`), in the schema's order."""
    lines = [
        HEADER,
        "// Included by csrc/autograd/derivatives.cpp inside mt::autograd, whose helpers (S, fmask, *_grad) the\n",
        "// formulas use.\n",
    ]
    lines += [twin_formula(t) for t in twins if t.has_formula()]
    return "".join(lines)


def outputs(ops, twins=None):
    twins = load_twins() if twins is None else twins
    return {
        "twins.h": twins_header(twins),
        "native.h": native_header(twins),
        "entries.cpp": entries_cpp(twins),
        "ops_schema.h": ops_header(ops),
        "bindings.h": bindings_header(ops),
        "bind_funcs.cpp": bind_funcs_cpp(ops),
        "elementwise_grad.inc": elementwise_grad_inc(ops),
        "unary_checks.inc": unary_checks_inc(ops),
        "dual_terms.inc": dual_terms_inc(ops),
        "twin_grads.inc": twin_grads_inc(twins),
    }


def write(out_dir, ops, twins=None):
    target = os.path.join(out_dir, "generated")
    os.makedirs(target, exist_ok=True)
    for name, text in outputs(ops, twins).items():
        path = os.path.join(target, name)
        try:
            with open(path, encoding="utf-8") as f:
                if f.read() == text:
                    continue
        except FileNotFoundError:
            pass
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)


# ---- python/minitorch/_C.pyi: the schema ops' stub lines, added where missing (the rest of the file is
# pybind11-stubgen's, scripts/gen_stubs.py, plus what the file keeps by hand)

STUBS = os.path.join(ROOT, "python", "minitorch", "_C.pyi")


def _stub_defs(op, spelling, forms):
    """(module-level lines, Tensor method lines) of one spelling: name -> its stub line."""
    other = ", other: Tensor | builtins.float" if op.kind == "binary" else ""
    out = ", *, out: Tensor | None = None" if "out" in forms else ""
    module = {spelling: f"def {spelling}(input: Tensor{other}{out}) -> Tensor: ..."}  # always bound
    method = {}
    if "torch_inplace" in forms:
        module[spelling + "_"] = f"def {spelling}_(input: Tensor{other}) -> Tensor: ..."
    if "method" in forms:
        method[spelling] = f"    def {spelling}(self{other}) -> Tensor: ..."
    if "inplace" in forms:
        method[spelling + "_"] = f"    def {spelling}_(self{other}) -> Tensor: ..."
    return module, method


# a func argument's type in a stub line
STUB_TYPES = {
    "Tensor": "Tensor",
    "Tensor?": "Tensor | None",
    "int": "builtins.int",
    "SymInt": "builtins.int",
    "int?": "builtins.int | None",
    "SymInt?": "builtins.int | None",
    "float": "builtins.float",
    "bool": "builtins.bool",
    "bool?": "builtins.bool | None",
    "str": "builtins.str",
    "str?": "builtins.str | None",
}


def _func_stub_defs(op):
    """A func's stub lines, as _stub_defs: the function, the method and Tensor.<name>_ its variants list."""

    def args(skip_self):
        out, kw = [], False
        for p in op.params:
            if skip_self and p.name == "self":
                continue
            if p.kw_only and not kw:
                out.append("*")
                kw = True
            name = "input" if p.name == "self" else p.name
            out.append(
                f"{name}: {STUB_TYPES.get(p.type, 'typing.Any')}" + (f" = {p.default}" if p.default else "")
            )
        if "out" in op.variants and not skip_self:
            out += ([] if kw else ["*"]) + ["out: Tensor | None = None"]
        return ", ".join(out)

    ret = "Tensor" if op.returns == "Tensor" else "typing.Any"
    module = {op.name: f"def {op.name}({args(False)}) -> {ret}: ..."} if op.function else {}
    method = {}
    for name, present in ((op.name, "method" in op.variants), (op.name + "_", "inplace" in op.variants)):
        if present:
            method[name] = f"    def {name}({', '.join(['self', args(True)]).rstrip(', ')}) -> {ret}: ..."
    return module, method


def _insert_sorted(lines, start, end, indent, name, text):
    """Inserts `text` above the `def` at `indent` in lines[start:end] whose name follows `name` most closely
    (above its decorators; the file is sorted only by runs), else after the last one; returns the new end.
    Static methods (the Python-written methods stubgen lists apart, with docstrings) are not neighbours."""
    pattern = re.compile(rf"^{indent}def (\w+)\(")
    best = last = None
    for i in range(start, end):
        m = pattern.match(lines[i])
        if not m or lines[i - 1] == indent + "@staticmethod":
            continue
        last = i
        if m.group(1) > name and (best is None or m.group(1) < best[1]):
            best = (i, m.group(1))
    if best is None:
        lines.insert(last + 1 if last is not None else end, text)
        return end + 1
    i = best[0]
    while i > start and lines[i - 1].startswith(indent + "@"):
        i -= 1
    lines.insert(i, text)
    return end + 1


def add_missing_stubs(text, ops, methods=None):
    """_C.pyi's text with a stub line for each schema name it lacks (an elementwise op's spellings: function,
    minitorch.<op>_, Tensor.<op>, Tensor.<op>_; a func's function, method and in-place form), in sorted place,
    and for each Python method of `methods` (python_methods()) it lacks; lines already there, whatever their
    form, are kept."""
    lines = text.split("\n")
    have_module = {m.group(1) for m in re.finditer(r"^def (\w+)\(", text, flags=re.MULTILINE)}
    have_method = set()
    cls = lines.index("class Tensor:")
    cls_end = next(i for i in range(cls + 1, len(lines)) if re.match(r"^(class |def |\S+: )", lines[i]))
    for line in lines[cls:cls_end]:
        m = re.match(r"^    def (\w+)\(", line)
        if m:
            have_method.add(m.group(1))
    for op in ops:
        if op.module:
            continue  # a submodule's functions: its class in _C.pyi (_NnModule) is written by hand
        pairs = [_func_stub_defs(op)] if op.kind == "func" else []
        pairs += [_stub_defs(op, spelling, forms) for spelling, forms in op.spellings() if op.kind != "func"]
        for module, method in pairs:
            for name, stub in method.items():
                if name not in have_method:
                    cls_end = _insert_sorted(lines, cls + 1, cls_end, "    ", name, stub)
                    have_method.add(name)
            for name, stub in module.items():
                if name not in have_module:
                    first = next(i for i, ln in enumerate(lines) if ln.startswith("def "))
                    _insert_sorted(lines, first, len(lines), "", name, stub)
                    have_module.add(name)
    if methods:
        cls_end = _insert_python_methods(lines, cls, cls_end, have_method, methods)
    return "\n".join(lines)


# ---- the Python methods (composites' TENSOR_METHODS, installed on _C.Tensor by python/minitorch/_tensor.py):
# their stub lines as pybind11-stubgen writes them (a static method: the signature as written, no types, and the
# docstring), so a composed op with a Tensor method needs no hand-written _C.pyi line


def python_methods():
    """{name: function} of the Python functions installed on minitorch._C.Tensor (not its dunders), from the
    built package under python/; None when it does not import (no build: only the schema's lines are added)."""
    sys.path.insert(0, os.path.join(ROOT, "python"))
    try:
        import minitorch  # noqa: F401  (installs the methods)
        from minitorch import _C
    except ImportError:
        return None
    finally:
        sys.path.pop(0)
    python = (types.FunctionType, getattr(_C, "_TensorMethod", types.FunctionType))  # _tensor.py's wrapper
    return {
        n: getattr(_C.Tensor, n)
        for n, f in vars(_C.Tensor).items()
        if isinstance(f, python) and not n.startswith("__")
    }


def _python_method_stub(name, fn):
    """stubgen's lines for a Python function found on the class: `@staticmethod` unless its first parameter is
    `self` or `cls`, its parameters without annotations (inspect.getfullargspec, as stubgen reads them: the
    wrapper's own, not __wrapped__'s), its docstring's lines as written."""
    spec = inspect.getfullargspec(fn)
    params, defaults = [], spec.defaults or ()
    for i, a in enumerate(spec.args):
        k = i - (len(spec.args) - len(defaults))
        params.append(a + (f"={defaults[k]!r}" if k >= 0 else ""))
    if spec.varargs:
        params.append("*" + spec.varargs)
    elif spec.kwonlyargs:
        params.append("*")
    kw_defaults = spec.kwonlydefaults or {}
    params += [a + (f"={kw_defaults[a]!r}" if a in kw_defaults else "") for a in spec.kwonlyargs]
    if spec.varkw:
        params.append("**" + spec.varkw)
    text = "(" + ", ".join(params) + ")"
    first = spec.args[0] if spec.args else None
    lines = [] if first in ("self", "cls") else ["    @staticmethod"]
    doc = fn.__doc__
    if doc is None:
        return lines + [f"    def {name}{text}: ..."]
    body = [
        ln.replace("\\", r"\\").replace('"""', r"\"\"\"") for ln in doc.lstrip("\n").rstrip().splitlines()
    ]
    lines += [f"    def {name}{text}:", '        """'] + [("        " + ln).rstrip() for ln in body]
    return lines + ['        """']


def _insert_python_methods(lines, cls, cls_end, have_method, methods):
    """Inserts the missing methods' blocks among the class's static methods (stubgen's run of them, sorted by
    name), above the one whose name follows; returns the class's new end."""
    for name in sorted(methods):
        if name in have_method:
            continue
        block = _python_method_stub(name, methods[name])
        static = [
            i
            for i in range(cls + 1, cls_end)
            if lines[i] == "    @staticmethod" and re.match(r"^    def (\w+)\(", lines[i + 1])
        ]
        after = [i for i in static if re.match(r"^    def (\w+)\(", lines[i + 1]).group(1) > name]
        at = after[0] if after else (_block_end(lines, static[-1], cls_end) if static else cls_end)
        lines[at:at] = block
        cls_end += len(block)
        have_method.add(name)
    return cls_end


def _block_end(lines, start, end):
    """The line after the static method whose `@staticmethod` is lines[start]."""
    i = start + 2
    while i < end and not re.match(r"^    (@|def |\w+:)", lines[i]):
        i += 1
    return i


def main(argv):
    if argv[1:] == ["--stubs"]:
        with open(STUBS, encoding="utf-8") as f:
            text = f.read()
        methods = python_methods()
        if methods is None:
            print(
                "minitorch does not import (not built?): the Python methods' lines are not added",
                file=sys.stderr,
            )
        new = add_missing_stubs(text, load(), methods)
        if new != text:
            with open(STUBS, "w", encoding="utf-8") as f:
                f.write(new)
        print(f"{os.path.relpath(STUBS, ROOT)}: {len(new.splitlines()) - len(text.splitlines())} lines added")
        return 0
    if len(argv) != 2 or argv[1].startswith("-"):  # `--help` is no output folder
        print(__doc__, file=sys.stderr)
        return 2 if len(argv) != 2 or argv[1] not in ("-h", "--help") else 0
    try:
        ops, twins = load(), load_twins()
    except SchemaError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    write(argv[1], ops, twins)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
