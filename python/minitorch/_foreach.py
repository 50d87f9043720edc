"""torch._foreach_*: PyTorch's multi-tensor ops over lists of tensors, with its parser's overloads and list checks."""

import numbers

from minitorch import _C, _argcheck

_Tensor = _C.Tensor
_MISSING = object()

__all__ = []  # the names are PyTorch's private ones: `from minitorch import *` leaves them out, as torch's


# ---- PyTorch's parser for these signatures: the overloads in its order, each parameter's kind checked in turn


def _type_name(v):
    return _argcheck._type_name(v)


def _is_number(v):
    return isinstance(v, (numbers.Number,)) and not isinstance(v, _Tensor)


def _tensor_list(v, argnum):
    """A `Tensor[]`: a list or tuple of tensors; an element that is none raises the parser's TypeError as soon
    as this kind is tried (PyTorch's is_tensor_list check throws)."""
    if not isinstance(v, (list, tuple)):
        return False
    for i, e in enumerate(v):
        if not isinstance(e, _Tensor):
            raise TypeError(f"expected Tensor as element {i} in argument {argnum}, but got {_type_name(e)}")
    return True


def _kind_ok(kind, v, argnum):
    if kind == "Tensor[]":
        return _tensor_list(v, argnum)
    if kind == "Scalar[]":  # numbers only (bools among them); no tensor
        return isinstance(v, (list, tuple)) and all(_is_number(e) for e in v)
    if kind == "Scalar":  # a number, or a 0-dim tensor that does not require grad
        return _is_number(v) or (isinstance(v, _Tensor) and v.dim() == 0 and not v.requires_grad)
    if kind == "Tensor":
        return isinstance(v, _Tensor)
    if kind == "ScalarType?":
        return v is None or isinstance(v, _C.dtype)
    if kind == "bool":
        return type(v) is bool
    raise AssertionError(kind)


class _Sig:
    """One overload: its tag, its parameters (kind, name, default or _MISSING, keyword-only) and its text."""

    def __init__(self, tag, text):
        self.tag, self.text, self.params = tag, text, []
        kw_only = False
        for part in text.split(", "):
            if part == "*":
                kw_only = True
                continue
            decl, _, default = part.partition("=")
            kind, name = decl.split()
            dflt = _MISSING if not default else eval(default, {"None": None})
            self.params.append((kind, name, dflt, kw_only))

    def bind(self, args, kwargs):
        positional = [p for p in self.params if not p[3]]
        if len(args) > len(positional):
            return None
        bound = {p[1]: a for p, a in zip(positional, args)}
        names = {p[1] for p in self.params}
        for k, v in kwargs.items():
            if k not in names or k in bound:
                return None
            bound[k] = v
        for kind, name, dflt, _ in self.params:
            if name not in bound:
                if dflt is _MISSING:
                    return None
                bound[name] = dflt
        return bound


def _parser(name, *overloads):
    """A function parsing a call of `name` against its overloads (tag, "Tensor[] self, Scalar scalar")."""
    sigs = [_Sig(tag, text) for tag, text in overloads]
    texts = [s.text for s in sigs]

    def parse(args, kwargs):
        for s in sigs:
            bound = s.bind(args, kwargs)
            if bound is None:
                continue
            if all(_kind_ok(kind, bound[n], i) for i, (kind, n, _, _) in enumerate(s.params)):
                return s.tag, bound
        # none takes the call: PyTorch's TypeError for it (one plausible signature's own, or the combination)
        _argcheck.check_call(name, texts, args, kwargs)
        raise TypeError(_C._format_invalid_args(name, tuple(args), kwargs, [_argcheck._format_sig(
            _argcheck._signature(t)) for t in texts]))  # fmt: skip

    return parse


# ---- PyTorch's list checks (check_foreach_api_restrictions), in its order


def _check_lists(self, *others):
    if len(self) == 0:
        raise RuntimeError("Tensor list must have at least one tensor.")
    for o in others:
        if len(o) != len(self):
            raise RuntimeError(
                f"Tensor lists must have the same number of tensors, got {len(self)} and {len(o)}"
            )


def _check_scalars(self, scalars):
    if len(self) == 0:
        raise RuntimeError("Tensor list must have at least one tensor.")
    if len(scalars) != len(self):
        raise RuntimeError("Tensor list must have same number of elements as scalar list.")


def _scalar_tensor(t):
    if t.dim() != 0:
        raise RuntimeError(
            f"scalar tensor expected to be 0 dim but it has {t.dim()} dimensions and {t.numel()} elements."
        )


def _packed_scalars(self, scalars):
    """addcmul/addcdiv's scalars as one 1-D tensor (its values on the host, as PyTorch reads them)."""
    if scalars.dim() != 1:
        raise RuntimeError(
            f"Expected packed scalar Tensor to be of dimension 1. Got {scalars.dim()} instead."
        )
    if scalars.numel() != len(self):
        raise RuntimeError(
            f"Expected length of scalars to match input of length {len(self)} but got {scalars.numel()} instead."
        )
    return scalars.tolist()


# ---- the binary ops: add, sub (with alpha), mul, div, maximum


_BINARY = {
    "add": ["Scalar", "Scalar[]", "Tensor", "Tensor[]"],
    "sub": ["Scalar", "Scalar[]", "Tensor[]"],
    "mul": ["Scalar[]", "Tensor", "Tensor[]", "Scalar"],
    "div": ["Scalar[]", "Tensor", "Tensor[]", "Scalar"],
    "maximum": ["Scalar", "Scalar[]", "Tensor[]"],
}
_SECOND = {"Scalar": "Scalar scalar", "Scalar[]": "Scalar[] scalars", "Tensor": "Tensor other",
           "Tensor[]": "Tensor[] other"}  # fmt: skip


def _binary(op, inplace):
    fname = f"_foreach_{op}{'_' if inplace else ''}"
    alpha_ok = op in ("add", "sub")
    overloads = []
    for kind in _BINARY[op]:
        text = "Tensor[] self, " + _SECOND[kind]
        if alpha_ok and kind in ("Tensor", "Tensor[]"):
            text += ", *, Scalar alpha=1"
        overloads.append((kind, text))
    parse = _parser(fname, *overloads)

    def per(t, o, alpha):
        if op == "maximum" and not isinstance(o, _Tensor):
            return t.clamp_min_(o) if inplace else t.clamp_min(o)  # a number: PyTorch's clamp_min
        f = getattr(t, op + "_" if inplace else op)
        return f(o) if alpha is None else f(o, alpha=alpha)

    def fn(*args, **kwargs):
        kind, b = parse(args, kwargs)
        self, alpha = b["self"], b.get("alpha")
        if kind == "Scalar":
            _check_lists(self)
            others = [b["scalar"]] * len(self)
        elif kind == "Scalar[]":
            _check_scalars(self, b["scalars"])
            others = b["scalars"]
        elif kind == "Tensor":
            _check_lists(self)
            _scalar_tensor(b["other"])
            others = [b["other"]] * len(self)
        else:
            _check_lists(self, b["other"])
            others = b["other"]
        if alpha == 1 and type(alpha) is int:
            alpha = None
        res = [per(t, o, alpha) for t, o in zip(self, others)]
        return self if inplace else tuple(res)

    fn.__name__ = fn.__qualname__ = fname
    fn.__doc__ = f"torch.{fname}: torch.{op} of each tensor of the list with a number, one number each, a tensor, or one tensor each."
    return fn


# ---- the unary ops


def _unary(op, inplace):
    fname = f"_foreach_{op}{'_' if inplace else ''}"
    parse = _parser(fname, ("self", "Tensor[] self"))

    def fn(*args, **kwargs):
        _, b = parse(args, kwargs)
        self = b["self"]
        _check_lists(self)
        if inplace:
            for t in self:
                getattr(t, op + "_")()
            return self
        return tuple(getattr(t, op)() for t in self)

    fn.__name__ = fn.__qualname__ = fname
    fn.__doc__ = f"torch.{fname}: torch.{op} of each tensor of the list."
    return fn


# ---- lerp, addcmul, addcdiv, norm, zero_, copy_


def _lerp(inplace):
    fname = "_foreach_lerp_" if inplace else "_foreach_lerp"
    parse = _parser(
        fname,
        ("Scalar", "Tensor[] self, Tensor[] tensors1, Scalar weight"),
        ("Scalar[]", "Tensor[] self, Tensor[] tensors1, Scalar[] weight"),
        ("Tensor[]", "Tensor[] self, Tensor[] tensors1, Tensor[] weights"),
    )

    def fn(*args, **kwargs):
        kind, b = parse(args, kwargs)
        self, ends = b["self"], b["tensors1"]
        if kind == "Tensor[]":
            _check_lists(self, ends, b["weights"])
            weights = b["weights"]
        elif kind == "Scalar[]":
            _check_lists(self, ends)
            _check_scalars(self, b["weight"])
            weights = b["weight"]
        else:
            _check_lists(self, ends)
            weights = [b["weight"]] * len(self)
        res = [t.lerp_(e, w) if inplace else t.lerp(e, w) for t, e, w in zip(self, ends, weights)]
        return self if inplace else tuple(res)

    fn.__name__ = fn.__qualname__ = fname
    fn.__doc__ = f"torch.{fname}: torch.lerp of each tensor of the list toward its end, by a weight."
    return fn


def _addc(op, inplace):
    fname = f"_foreach_{op}{'_' if inplace else ''}"
    head = "Tensor[] self, Tensor[] tensor1, Tensor[] tensor2"
    parse = _parser(
        fname,
        ("Scalar[]", head + ", Scalar[] scalars"),
        ("Tensor", head + ", Tensor scalars"),
        ("Scalar", head + ", Scalar value=1"),
    )

    def fn(*args, **kwargs):
        kind, b = parse(args, kwargs)
        self, t1, t2 = b["self"], b["tensor1"], b["tensor2"]
        _check_lists(self, t1, t2)
        if kind == "Scalar[]":
            _check_scalars(self, b["scalars"])
            values = b["scalars"]
        elif kind == "Tensor":
            values = _packed_scalars(self, b["scalars"])
        else:
            values = [b["value"]] * len(self)
        res = [
            getattr(t, op + "_")(a, c, value=v) if inplace else getattr(t, op)(a, c, value=v)
            for t, a, c, v in zip(self, t1, t2, values)
        ]
        return self if inplace else tuple(res)

    fn.__name__ = fn.__qualname__ = fname
    fn.__doc__ = (
        f"torch.{fname}: torch.{op} of each tensor of the list, with a value, one each, or a 1-D tensor."
    )
    return fn


_parse_norm = _parser("_foreach_norm", ("norm", "Tensor[] self, Scalar ord=2, *, ScalarType? dtype=None"))


def _foreach_norm(*args, **kwargs):
    """torch._foreach_norm: the vector norm of each tensor of the list, as 0-dim tensors."""
    _, b = _parse_norm(args, kwargs)
    _check_lists(b["self"])
    return tuple(_linalg().vector_norm(t, b["ord"], dtype=b["dtype"]) for t in b["self"])


_parse_zero = _parser("_foreach_zero_", ("zero", "Tensor[] self"))


def _foreach_zero_(*args, **kwargs):
    """torch._foreach_zero_: each tensor of the list filled with zeros, in place."""
    _, b = _parse_zero(args, kwargs)
    _check_lists(b["self"])
    for t in b["self"]:
        t.zero_()
    return b["self"]


_parse_copy = _parser("_foreach_copy_", ("copy", "Tensor[] self, Tensor[] src, bool non_blocking=False"))


def _foreach_copy_(*args, **kwargs):
    """torch._foreach_copy_: each tensor of the list takes its source's values (broadcast and cast), in place."""
    _, b = _parse_copy(args, kwargs)
    _check_lists(b["self"], b["src"])
    for t, s in zip(b["self"], b["src"]):
        t.copy_(s, b["non_blocking"])
    return b["self"]


_FUNCTIONS = {
    "_foreach_norm": _foreach_norm,
    "_foreach_zero_": _foreach_zero_,
    "_foreach_copy_": _foreach_copy_,
}
for _op in _BINARY:
    for _inplace in (False, True):
        _f = _binary(_op, _inplace)
        _FUNCTIONS[_f.__name__] = _f
for _op in ("sqrt", "neg", "exp"):
    for _inplace in (False, True):
        _f = _unary(_op, _inplace)
        _FUNCTIONS[_f.__name__] = _f
for _inplace in (False, True):
    _f = _lerp(_inplace)
    _FUNCTIONS[_f.__name__] = _f
    for _op in ("addcmul", "addcdiv"):
        _f = _addc(_op, _inplace)
        _FUNCTIONS[_f.__name__] = _f
globals().update(_FUNCTIONS)


def _linalg():
    from minitorch import linalg  # (imported after this module)

    return linalg
