"""Recognizing the fx nodes the C++ backend can fuse: elementwise ops (torch.*, F.*, Tensor methods, Python
operators and the activation modules, all spellings of one op mapped to one name) and layer_norm over the last
dimension. ``lower(node, gm)`` gives an ``Op`` (name, operands, constant parameters) or None.

Operands are fx Nodes or Python scalars; scalars become constants in the generated code, as the captured graph
has already specialized them. Nothing here looks at shapes or dtypes: the fusion pass checks those."""

import math
import operator
import sys

__all__ = ["ELEMENTWISE", "Op", "lower"]

# canonical name -> number of tensor-or-scalar operands
ELEMENTWISE = {
    "add": 2,
    "sub": 2,
    "mul": 2,
    "div": 2,
    "neg": 1,
    "pow": 2,
    "exp": 1,
    "log": 1,
    "tanh": 1,
    "sigmoid": 1,
    "relu": 1,
    "gelu": 1,
    "gelu_tanh": 1,
    "silu": 1,
    "sqrt": 1,
    "rsqrt": 1,
    "abs": 1,
    "clamp": 1,
    "where": 3,
    "maximum": 2,
    "minimum": 2,
    "square": 1,
    "reciprocal": 1,
    "leaky_relu": 1,
    "erf": 1,
    "identity": 1,
}


class Op:
    """One recognized node: ``name`` (a key of ELEMENTWISE, or "layer_norm"), ``operands`` (Nodes or scalars)
    and ``params`` (alpha, min/max, eps, negative_slope, the LayerNorm module...)."""

    __slots__ = ("name", "operands", "params")

    def __init__(self, name, operands, params=None):
        self.name = name
        self.operands = list(operands)
        self.params = params or {}

    def __repr__(self):
        return f"Op({self.name}, {self.operands}, {self.params})"


# The elementwise ops both spellings share: their name in torch's namespace (or as a Tensor method) -> the
# canonical name the code generator knows.
_POINTWISE = {
    "add": "add",
    "sub": "sub",
    "subtract": "sub",
    "mul": "mul",
    "multiply": "mul",
    "div": "div",
    "divide": "div",
    "true_divide": "div",
    "neg": "neg",
    "negative": "neg",
    "pow": "pow",
    "exp": "exp",
    "log": "log",
    "tanh": "tanh",
    "sigmoid": "sigmoid",
    "relu": "relu",
    "sqrt": "sqrt",
    "rsqrt": "rsqrt",
    "abs": "abs",
    "absolute": "abs",
    "clamp": "clamp",
    "clip": "clamp",
    "clamp_min": "clamp_min",
    "clamp_max": "clamp_max",
    "maximum": "maximum",
    "minimum": "minimum",
    "square": "square",
    "reciprocal": "reciprocal",
    "erf": "erf",
}


_table = None  # id(function) -> canonical name, with the functions kept alive beside


def _functions():
    global _table
    if _table is not None:
        return _table
    from minitorch import overrides
    from minitorch.nn import functional as F

    minitorch = sys.modules["minitorch"]  # the public namespace whose functions the graph names

    names = {
        **_POINTWISE,
        "where": "where",
        "gelu": "gelu",
        "silu": "silu",
        "layer_norm": "layer_norm",
    }
    f_names = {
        "relu": "relu",
        "gelu": "gelu",
        "silu": "silu",
        "sigmoid": "sigmoid",
        "tanh": "tanh",
        "dropout": "dropout",
        "layer_norm": "layer_norm",
        "leaky_relu": "leaky_relu",
    }
    table = {}
    for ns, mapping in ((minitorch, names), (F, f_names)):
        for attr, canon in mapping.items():
            fn = getattr(ns, attr, None)
            if fn is not None:
                fn = overrides.original_function(fn)
                table[id(fn)] = (canon, fn)
    special = getattr(minitorch, "special", None)
    if special is not None and hasattr(special, "expit"):
        fn = overrides.original_function(special.expit)
        table[id(fn)] = ("sigmoid", fn)
    for fn, canon in (
        (operator.add, "add"),
        (operator.sub, "sub"),
        (operator.mul, "mul"),
        (operator.truediv, "div"),
        (operator.neg, "neg"),
        (operator.pow, "pow"),
        (operator.abs, "abs"),
        (operator.pos, "identity"),
    ):
        table[id(fn)] = (canon, fn)
    _table = table
    return table


_METHODS = {
    **_POINTWISE,
    "where": "where_method",
    "__add__": "add",
    "__sub__": "sub",
    "__mul__": "mul",
    "__truediv__": "div",
    "__neg__": "neg",
    "__pow__": "pow",
    "__radd__": "radd",
    "__rsub__": "rsub",
    "__rmul__": "rmul",
    "__rtruediv__": "rdiv",
}

_SCALAR = (bool, int, float)


def _operand_ok(a):
    from minitorch.fx import Node

    return isinstance(a, Node) or (type(a) in _SCALAR)


def _bind(args, kwargs, names, defaults):
    """args/kwargs bound to the parameter names (defaults for the missing ones), or None when they do not
    fit (an unknown keyword, too many arguments, out= or the like)."""
    if len(args) > len(names):
        return None
    out = dict(defaults)
    for n, a in zip(names, args):
        out[n] = a
    for k, v in kwargs.items():
        if k not in names:
            return None
        out[k] = v
    if any(n not in out for n in names):
        return None
    return out


def _from_name(canon, args, kwargs):
    """The Op for canonical function name canon called as canon(*args, **kwargs), or None."""
    if canon in ("add", "sub"):
        b = _bind(args, kwargs, ("input", "other", "alpha"), {"alpha": 1})
        if b is None or type(b["alpha"]) not in _SCALAR:
            return None
        return Op(canon, [b["input"], b["other"]], {"alpha": b["alpha"]})
    if canon in ("mul", "maximum", "minimum"):
        b = _bind(args, kwargs, ("input", "other"), {})
        return None if b is None else Op(canon, [b["input"], b["other"]])
    if canon == "div":
        b = _bind(args, kwargs, ("input", "other", "rounding_mode"), {"rounding_mode": None})
        if b is None or b["rounding_mode"] is not None:
            return None
        return Op("div", [b["input"], b["other"]])
    if canon == "pow":
        b = _bind(args, kwargs, ("input", "exponent"), {})
        if b is None or type(b["exponent"]) not in (int, float):
            return None  # tensor ** tensor and scalar ** tensor stay eager
        return Op("pow", [b["input"]], {"exponent": float(b["exponent"])})
    if canon in ("radd", "rmul"):
        b = _bind(args, kwargs, ("input", "other"), {})
        return None if b is None else Op(canon[1:], [b["other"], b["input"]], {"alpha": 1})
    if canon == "rsub":
        b = _bind(args, kwargs, ("input", "other"), {})
        return None if b is None else Op("sub", [b["other"], b["input"]], {"alpha": 1})
    if canon == "rdiv":
        b = _bind(args, kwargs, ("input", "other"), {})
        return None if b is None else Op("div", [b["other"], b["input"]])
    if canon in ("clamp", "clamp_min", "clamp_max"):
        if canon == "clamp":
            b = _bind(args, kwargs, ("input", "min", "max"), {"min": None, "max": None})
        elif canon == "clamp_min":
            b = _bind(args, kwargs, ("input", "min"), {})
            b = b and {**b, "max": None}
        else:
            b = _bind(args, kwargs, ("input", "max"), {})
            b = b and {**b, "min": None}
        if b is None:
            return None
        lo, hi = b["min"], b["max"]
        if lo is None and hi is None:
            return None  # PyTorch raises: leave it to eager
        if any(v is not None and type(v) not in (int, float) for v in (lo, hi)):
            return None
        return Op("clamp", [b["input"]], {"min": lo, "max": hi})
    if canon == "where":
        b = _bind(args, kwargs, ("condition", "input", "other"), {})
        return None if b is None else Op("where", [b["condition"], b["input"], b["other"]])
    if canon == "where_method":  # x.where(condition, y)
        b = _bind(args, kwargs, ("input", "condition", "other"), {})
        return None if b is None else Op("where", [b["condition"], b["input"], b["other"]])
    if canon == "gelu":
        b = _bind(args, kwargs, ("input", "approximate"), {"approximate": "none"})
        if b is None or b["approximate"] not in ("none", "tanh"):
            return None
        return Op("gelu" if b["approximate"] == "none" else "gelu_tanh", [b["input"]])
    if canon in ("relu", "silu"):
        b = _bind(args, kwargs, ("input", "inplace"), {"inplace": False})
        if b is None or b["inplace"] is not False:
            return None
        return Op(canon, [b["input"]])
    if canon == "leaky_relu":
        b = _bind(
            args, kwargs, ("input", "negative_slope", "inplace"), {"negative_slope": 0.01, "inplace": False}
        )
        if b is None or b["inplace"] is not False or type(b["negative_slope"]) not in (int, float):
            return None
        return Op("leaky_relu", [b["input"]], {"negative_slope": float(b["negative_slope"])})
    if canon == "dropout":
        b = _bind(
            args,
            kwargs,
            ("input", "p", "training", "inplace"),
            {"p": 0.5, "training": True, "inplace": False},
        )
        if b is None or b["inplace"] is not False or b["training"] is not False:
            return None  # training-mode dropout draws random numbers: eager
        return Op("identity", [b["input"]])
    if canon == "layer_norm":
        b = _bind(
            args,
            kwargs,
            ("input", "normalized_shape", "weight", "bias", "eps"),
            {"weight": None, "bias": None, "eps": 1e-5},
        )
        if b is None or type(b["eps"]) not in (int, float):
            return None
        shape = b["normalized_shape"]
        if isinstance(shape, int):
            shape = (shape,)
        if not isinstance(shape, (tuple, list)) or len(shape) != 1 or type(shape[0]) is not int:
            return None
        return Op(
            "layer_norm",
            [b["input"], b["weight"], b["bias"]],
            {"eps": float(b["eps"]), "d": shape[0]},
        )
    if canon in ELEMENTWISE and ELEMENTWISE[canon] == 1:
        b = _bind(args, kwargs, ("input",), {})
        return None if b is None else Op(canon, [b["input"]])
    return None


def _from_module(mod):
    """(canonical name, params) for a leaf module call, or None."""
    from minitorch import nn

    if isinstance(mod, nn.ReLU) and not mod.inplace:
        return "relu", {}
    if isinstance(mod, nn.GELU):
        if mod.approximate == "none":
            return "gelu", {}
        if mod.approximate == "tanh":
            return "gelu_tanh", {}
        return None
    if isinstance(mod, nn.SiLU) and not getattr(mod, "inplace", False):
        return "silu", {}
    if isinstance(mod, nn.Tanh):
        return "tanh", {}
    if isinstance(mod, nn.Sigmoid):
        return "sigmoid", {}
    if isinstance(mod, nn.LeakyReLU) and not mod.inplace:
        return "leaky_relu", {"negative_slope": float(mod.negative_slope)}
    if isinstance(mod, nn.Identity):
        return "identity", {}
    if isinstance(mod, nn.Dropout) and not mod.inplace and (not mod.training or mod.p == 0):
        return "identity", {}
    return None


def lower(node, gm):
    """The Op node computes, or None when it is nothing the backend fuses."""
    if node.op == "call_function":
        hit = _functions().get(id(node.target))
        if hit is None or hit[1] is not node.target:
            return None
        op = _from_name(hit[0], node.args, node.kwargs)
    elif node.op == "call_method":
        canon = _METHODS.get(node.target)
        if canon is None:
            return None
        op = _from_name(canon, node.args, node.kwargs)
    elif node.op == "call_module":
        from minitorch import nn

        try:
            mod = gm.get_submodule(node.target)
        except AttributeError:
            return None
        if isinstance(mod, nn.LayerNorm):
            if node.kwargs or len(node.args) != 1 or len(mod.normalized_shape) != 1:
                return None
            params = {"eps": float(mod.eps), "d": mod.normalized_shape[0], "module": mod}
            return Op("layer_norm", [node.args[0], None, None], params)
        hit = _from_module(mod)
        if hit is None or node.kwargs or len(node.args) != 1:
            return None
        op = Op(hit[0], [node.args[0]], hit[1])
    else:
        return None
    if op is None:
        return None
    if op.name == "layer_norm":
        x, w, b = op.operands
        from minitorch.fx import Node

        if not isinstance(x, Node) or any(v is not None and not isinstance(v, Node) for v in (w, b)):
            return None
        return op
    if not all(_operand_ok(a) for a in op.operands):
        return None
    if all(type(a) in _SCALAR for a in op.operands):
        return None  # no tensor at all (a Python computation that was recorded)
    for key in ("alpha", "min", "max", "negative_slope", "exponent"):
        v = op.params.get(key)
        if isinstance(v, float) and math.isnan(v) and key in ("min", "max"):
            return None  # clamp to NaN: leave PyTorch's exact rule to eager
    return op
