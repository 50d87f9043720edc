"""PyTorch's TypeError for an argument of the wrong kind, for the functions we write in Python.

PyTorch's argument parser checks every argument's kind (Tensor, int, bool, Number) before an op runs, so a
call such as `torch.cross(t, 0)` raises `TypeError: cross(): argument 'other' (position 2) must be Tensor,
not int`. Our Python composites have no parser: the same call fails later and differently (an AttributeError
on `0 .dim()`, "Boolean value of Tensor ... is ambiguous" when a tensor stands where a number belongs, a
dimension or dtype error). Checking kinds at every entry would tax every valid call; instead `translating`
wraps a composite in a frame whose `try` costs nothing until it raises, and only then looks at the arguments:
when one has a kind PyTorch rejects, the error becomes the TypeError PyTorch raises for it.

The kinds come from the signature itself: a parameter named like a tensor (`input`, `other`, `index`, ...)
takes a Tensor; one with a bool default takes a bool; `dim`-like parameters take ints; one with a number
default (or a number-like name) takes a Number, never a tensor of more than one dimension. Only kinds PyTorch
rejects for every overload are flagged, so a call PyTorch accepts is never turned into a TypeError.

Functions on the hot path of training loops forward straight to C++ (whose bindings raise TypeError already)
and are left unwrapped, so the frame costs nothing there."""

import functools
import inspect
import numbers
import os
import sys
import types
import warnings

import numpy as np

from minitorch import _C, _handover
from minitorch._size import Size

# parameters that only ever take a Tensor (or None where the default is None)
TENSOR_PARAMS = frozenset((
    "input", "self", "other", "tensor", "tensor1", "tensor2", "mat", "mat1", "mat2", "vec", "vec1", "vec2",
    "batch1", "batch2", "index", "src", "source", "mask", "target", "x1", "x2", "input1", "input2", "input3",
    "running_mean", "running_var", "anchor", "positive", "negative", "log_probs", "targets", "boundaries",
    "sorted_sequence", "weights", "prepend", "append", "A", "B",
))  # fmt: skip
# parameters that take an int (a float, a bool or a tensor of more than 0 dimensions is refused)
INT_PARAMS = frozenset(
    ["dim0", "dim1", "dim2", "offset", "diagonal", "groups", "bins", "minlength", "n", "k"]
)
# parameters that take a number (a tensor of more than 0 dimensions is refused)
NUMBER_PARAMS = INT_PARAMS | frozenset((
    "dim", "p", "lambd", "maxnorm", "min_val", "max_val", "lower", "upper", "alpha", "beta", "threshold",
    "eps", "rtol", "atol", "nan", "posinf", "neginf", "fill_value", "negative_slope",
))  # fmt: skip

# parameters whose number default stands for an int list in PyTorch's signature (int[N] padding=0): its parser
# takes a one-element integer tensor of any rank there
INT_LIST_PARAMS = frozenset(["padding", "stride", "dilation", "kernel_size", "output_padding", "output_size"])

# parameters with a number default that PyTorch's overloads also take as a tensor (torch.normal's mean, std)
TENSOR_OR_NUMBER = frozenset(["mean", "std"])

_NUMBERS = (int, float)


def _kind_name(x):
    """how PyTorch's parser names the type of a value it refuses (numpy.ndarray, collections.OrderedDict)"""
    return _type_name(x)


def _is_tensor(x):
    return isinstance(x, _C.Tensor)


def _scalar_word(param):
    return "int" if param.name in INT_PARAMS or param.name.startswith("dim") else "Number"


def _wrong_kind(param, value, strict_bool, error):
    """PyTorch's wording for value in param when PyTorch rejects it whatever the overload, else None."""
    name, default = param.name, param.default
    if value is None and default is None:
        return None
    if name in TENSOR_PARAMS:
        if _is_tensor(value):
            return None
        # an AttributeError on this very object is proof; otherwise only kinds no overload takes
        if (
            isinstance(error, AttributeError) and getattr(error, "obj", None) is value and value is not None
        ) or (
            default is inspect.Parameter.empty and (value is None or isinstance(value, (list, tuple, str)))
        ):
            return "Tensor"
        return None
    if strict_bool and type(default) is bool:
        if type(value) is bool or (_is_tensor(value) and value.dim() == 0 and value.dtype == _C.bool):
            return None
        return "bool"
    scalar = name in NUMBER_PARAMS or (type(default) in _NUMBERS and name not in TENSOR_OR_NUMBER)
    if not scalar:
        return None
    if _is_tensor(value):
        if name in INT_LIST_PARAMS and value.numel() == 1 and not value.is_floating_point():
            return None
        return _scalar_word(param) if value.dim() != 0 else None
    if name in INT_PARAMS and (
        isinstance(value, (float, str, list, tuple, _C.dtype, _C.device))
        or type(value) is bool
        or value is None
    ):
        return "int"
    return None


def check_tensor(fname, argname, pos, x):
    """PyTorch's parser's TypeError for a value that is not a tensor where a Tensor argument belongs, for a
    function written in Python that checks its tensor arguments first."""
    if not isinstance(x, _C.Tensor):
        raise TypeError(
            f"{fname}(): argument '{argname}' (position {pos}) must be Tensor, not {_kind_name(x)}"
        )


def check_tensor_like(fname, argname, pos, x):
    """check_tensor for a value PyTorch's parser would hand to its __torch_function__ override instead (vmap's
    batched tensors, sparse tensors, a user's tensor-like pass): the sites that only refuse plain non-tensors."""
    if not _tensor_like(x):
        check_tensor(fname, argname, pos, x)


def is_number(x):
    """a Number to PyTorch's parser: a Python or NumPy number (bools included) or a 0-d tensor that does not
    require grad"""
    if isinstance(x, _C.Tensor):
        return x.dim() == 0 and not x.requires_grad
    return isinstance(x, (numbers.Number, np.bool_))


def check_number(fname, argname, pos, x):
    """PyTorch's parser's TypeError where a Number belongs (is_number)."""
    if is_number(x):
        return
    raise TypeError(f"{fname}(): argument '{argname}' (position {pos}) must be Number, not {_kind_name(x)}")


def check_float(fname, argname, pos, x):
    """PyTorch's parser's TypeError where a float (a C++ double) belongs: a real Python or NumPy number (bools
    included) or a 0-d tensor that does not require grad."""
    if isinstance(x, numbers.Real) or _plain_0d(x):
        return
    raise TypeError(f"{fname}(): argument '{argname}' (position {pos}) must be float, not {_kind_name(x)}")


def check_bool(fname, argname, pos, x):
    """PyTorch's parser's TypeError for a value that is not a bool where a bool belongs (NumPy's bool is refused
    too, named numpy.bool)."""
    if not isinstance(x, bool):
        kind = "Tensor" if isinstance(x, _C.Tensor) else _type_name(x)
        raise TypeError(f"{fname}(): argument '{argname}' (position {pos}) must be bool, not {kind}")


def check_tensor_list(seq, pos):
    """PyTorch's TensorList parser's TypeError for an element that is not a tensor (argument pos, from 0)."""
    for i, v in enumerate(seq):
        if not _tensor_like(v):  # a tensor-like element goes on to its __torch_function__, as PyTorch's
            raise TypeError(f"expected Tensor as element {i} in argument {pos}, but got {_kind_name(v)}")


# PyTorch's parser also takes NumPy's keyword names (its numpy_compatibility_arg_names): axis for dim, keepdims
# for keepdim, x, a or x1 for input, x2 for other, each only where the canonical name is not given too. The C++
# bindings retry such a call in arg_errors.cpp; the Python functions standing for PyTorch's C++ ops here.
_NUMPY_ALIASES = (("dim", "axis"), ("keepdim", "keepdims"), ("input", "x"), ("input", "a"), ("input", "x1"),
                  ("other", "x2"))  # fmt: skip
_NUMPY_KEYS = frozenset(a for _, a in _NUMPY_ALIASES)


def _numpy_renamed(kwargs, names):
    """kwargs with NumPy's spellings under the canonical names that `names` (the parameters) hold, or None
    when none applies (an alias that is a parameter's own name, `a` in addcmul-like signatures, is that
    parameter; a canonical name given, or taken by an earlier alias, leaves the later alias as it is)"""
    rename = {}
    for canonical, alias in _NUMPY_ALIASES:
        taken = canonical in kwargs or canonical in rename.values()
        if alias in kwargs and canonical in names and alias not in names and not taken:
            rename[alias] = canonical
    return {rename.get(k, k): v for k, v in kwargs.items()} if rename else None


def canonical_kwargs(kwargs, names):
    """kwargs with NumPy's spellings renamed where `names` (the parameters) take them, else kwargs itself (the
    one place `parsing`'s checks and calls read NumPy's spellings)"""
    if not _NUMPY_KEYS.isdisjoint(kwargs):
        return _numpy_renamed(kwargs, names) or kwargs
    return kwargs


def _translate(fn, fname, method, checks, args, kwargs, error):
    if checks == "tensors" and not isinstance(error, AttributeError):
        return None
    try:
        bound = inspect.signature(fn).bind(*args, **kwargs)
    except (TypeError, ValueError):
        return None
    params = inspect.signature(fn).parameters
    for pos, (pname, value) in enumerate(bound.arguments.items()):
        param = params[pname]
        if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
            continue
        if method and pos == 0:
            continue
        want = _wrong_kind(param, value, checks == "all", error) if checks != "tensors" else None
        if want is not None:
            where = f" (position {pos + (0 if method else 1)})" if pname not in kwargs else ""
            return TypeError(f"{fname}(): argument '{pname}'{where} must be {want}, not {_kind_name(value)}")
    if not isinstance(error, AttributeError) or _is_tensor(getattr(error, "obj", None)):
        return None  # a tensor without the attribute: our bug or a missing feature, kept as it is
    # a plain value (int, list, None...) given as an argument reached a composite where a tensor belongs
    obj = error.obj
    for pos, (pname, value) in enumerate(bound.arguments.items()):
        if method and pos == 0:
            continue
        if value is obj:
            where = f" (position {pos + (0 if method else 1)})" if pname not in kwargs else ""
            return TypeError(f"{fname}(): argument '{pname}'{where} must be Tensor, not {_kind_name(value)}")
        if isinstance(value, (list, tuple)):
            for i, v in enumerate(value):
                if v is obj:
                    # PyTorch's TensorList parser names no function here
                    return TypeError(
                        f"expected Tensor as element {i} in argument {pos}, but got {_kind_name(v)}"
                    )
    return None


def _renamed_call(fn, args, kwargs):
    """kwargs under fn's own names when a call spelled with NumPy's names did not bind (nothing ran), or None"""
    sig = inspect.signature(fn)
    try:
        sig.bind(*args, **kwargs)
        return None  # it bound: the error came from the call itself
    except TypeError:
        pass
    return _numpy_renamed(kwargs, sig.parameters)


def translating(fn, name=None, method=False, checks="all"):
    """fn, raising PyTorch's TypeError when it fails on an argument of a kind PyTorch refuses (see above).
    method: positions count from the argument after self, as PyTorch's messages for Tensor methods do.
    checks: "all" (PyTorch's C++ parser: bools too), "numbers" (PyTorch writes the function in Python and
    takes any truth value for a bool, but hands tensors and numbers to C++), "tensors" (only a plain value
    that failed as a tensor)."""
    parse = getattr(fn, "_parse", None)
    if method and parse is not None and not parse["method"]:
        # a function with PyTorch's signatures, installed as a Tensor method: the same checks with self taken
        # out of the signatures, so the positions count from the argument after self as PyTorch's do
        sigs = [[p for p in params[1:] if p.name != "out"] for params in parse["sigs"]]
        return parsing(
            fn.__wrapped__, sigs, name or parse["name"], True, parse["upfront"], parse["positional"]
        )
    if (
        not isinstance(fn, types.FunctionType)
        or getattr(fn, "__wrapped__", None) is not None
        or getattr(fn, "_python_in_pytorch", False)
        or getattr(fn, "_checks_own_arguments", False)
    ):
        return fn
    fname = name or fn.__name__
    params = list(inspect.signature(fn).parameters.values()) if method else ()  # (import time: methods only)
    self_only = len(params) == 1 and params[0].kind == params[0].POSITIONAL_OR_KEYWORD

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except (AttributeError, RuntimeError, IndexError, ValueError, TypeError, _handover.HandOver) as e:
            # a tensor-like argument's __torch_function__ answers first (PyTorch's parser hands it over before
            # checking kinds); inline, as parsing's wrappers do it
            r = _tensor_like_answers(wrapper, args, kwargs)
            if r is not _NO_ANSWER:
                return r
            if isinstance(e, _handover.HandOver):
                raise  # for a function above, which holds the subclass instance too
            if self_only and (kwargs or len(args) > 1):
                raise no_arguments_error(fname, len(args) - 1, kwargs) from None
            if isinstance(e, TypeError) and kwargs and checks == "all" and not _NUMPY_KEYS.isdisjoint(kwargs):
                renamed = _renamed_call(fn, args, kwargs)
                if renamed is not None:
                    return wrapper(*args, **renamed)
            msg = str(e)
            # already PyTorch's own words for an argument (an int list's of an op called inside, with a value
            # derived from an argument, is checked against fn's own arguments first)
            inner_ints = "failed to unpack the object" in msg and not msg.startswith(fname + "(")
            if (
                isinstance(e, TypeError)
                and ("(): argument '" in msg or "invalid combination" in msg)
                and not inner_ints
            ):
                raise
            err = _translate(fn, fname, method, checks, args, kwargs, e)
            if err is None:
                raise
            raise err from None

    _handover.catches(wrapper.__code__)
    return wrapper


def no_arguments_error(fname, nargs, kwargs):
    """CPython's TypeError for a method taking nothing but self (METH_NOARGS), which PyTorch's Tensor methods of
    one signature without arguments are (keywords first)"""
    if kwargs:
        return TypeError(f"TensorBase.{fname}() takes no keyword arguments")
    return TypeError(f"TensorBase.{fname}() takes no arguments ({nargs} given)")


# Tensor methods taking only self that PyTorch writes in Python (torch/_tensor.py): an extra argument gets
# Python's own TypeError there, naming the method by its qualified name "Tensor.<name>"
_PYTHON_SELF_ONLY_METHODS = frozenset({"is_shared", "share_memory_", "storage", "to_sparse_coo"})
# the private Tensor methods of PyTorch's among them (the sparse layouts' raw parts)
_PRIVATE_TENSOR_METHODS = frozenset({"_indices", "_values", "_nnz"})


def self_only_methods(cls):
    """Gives each of cls's methods written in Python that take only self the TypeError PyTorch raises for an
    argument: METH_NOARGS's (no_arguments_error) for the ones PyTorch defines in C (x.trace(1), x.values(1)),
    Python's naming "Tensor.<name>" for the ones it writes in Python (x.storage(1))."""
    for name, fn in list(vars(cls).items()):
        # (a `translating` wrapper words it already; a private name is a helper of ours, not PyTorch's method)
        if name.startswith("_") and name not in _PRIVATE_TENSOR_METHODS:
            continue
        if not isinstance(fn, types.FunctionType) or hasattr(fn, "__wrapped__"):
            continue
        try:
            params = list(inspect.signature(fn).parameters.values())
        except (TypeError, ValueError):
            continue
        if len(params) != 1 or params[0].kind != params[0].POSITIONAL_OR_KEYWORD:
            continue
        if name in _PYTHON_SELF_ONLY_METHODS:
            fn.__qualname__ = f"Tensor.{name}"
            continue
        setattr(cls, name, _no_arguments(fn, name))


def _no_arguments(fn, name):
    @functools.wraps(fn)
    def method(self, *args, **kwargs):
        if args or kwargs:
            raise no_arguments_error(name, len(args), kwargs)
        return fn(self)

    method.__name__, method.__qualname__ = name, f"TensorBase.{name}"
    method.__signature__ = inspect.signature(fn)  # the stubs' (and help()'s) parameters stay fn's
    return method


def python_in_pytorch(fn):
    """marks fn as one PyTorch writes in Python: no argument parser stands in front of it there, so `translating`
    leaves its errors as they are (an unpacking ValueError, an AttributeError on a plain value)"""
    fn._python_in_pytorch = True
    return fn


def checks_own_arguments(fn):
    """marks fn as raising PyTorch's TypeError for each argument itself, before it does anything else, so
    `translating` leaves it unwrapped: for the sub-microsecond predicates (is_complex, is_same_size) the
    wrapper's try and argument repacking was half their time"""
    fn._checks_own_arguments = True
    return fn


def translate_module(namespace, names=None, checks="all"):
    """Wraps, in place, namespace's functions of the given names (default: the public functions the module
    defines itself; namespace is its globals())."""
    here = namespace["__name__"]
    if names is None:
        names = [
            n for n, f in namespace.items() if not n.startswith("_") and getattr(f, "__module__", "") == here
        ]
    for n in names:
        namespace[n] = translating(namespace[n], n, checks=checks)


# ---------------------------------------------------------------------------------------------------------
# PyTorch's argument parser itself, for Python composites that stand for one of PyTorch's C++ ops.
#
# `translating` above guesses kinds from parameter names; an op whose bad calls PyTorch's parser refuses in
# ways the names cannot tell (conv3d's two overloads, rms_norm's `int[]` that takes no bare int, a `str` UPLO)
# is given its signatures instead, in the native-functions spelling: `Tensor input, Tensor? bias=None,
# int[3] stride=1, int groups=1, *, float? eps=None`. `parsing` checks a call against them the way PyTorch's
# parser does and raises its TypeError (wrong kind, "invalid combination of arguments", unknown keyword, too
# many arguments), before the function runs or only when it fails.

_KIND_WORDS = {
    "Tensor": "Tensor", "int": "int", "SymInt": "int", "float": "float", "bool": "bool", "Scalar": "Number",
    "str": "str", "ScalarType": "torch.dtype", "Generator": "torch.Generator", "Tensor[]": "tuple of Tensors",
    "float[]": "tuple of floats", "Device": "torch.device", "Layout": "torch.layout", "Scalar[]": "tuple of Scalars",
}  # fmt: skip
# the kinds a signature may name: _accepts checks the modelled ones and lets Device, Layout and object through
_KNOWN_KINDS = set(_KIND_WORDS) | {"int[]", "object"}


class _Param:
    __slots__ = ("default", "has_default", "kind", "kw_only", "name", "optional", "size", "symint", "word")

    def __init__(self, text, kw_only):
        kind, rest = text.strip().split(None, 1)
        name, eq, default = rest.partition("=")
        self.name, self.has_default, self.default = name.strip(), bool(eq), default.strip()
        self.optional = kind.endswith("?")
        kind = kind.rstrip("?")
        self.size = None
        # a sized SymInt list (conv3d's stride) refuses its list's bool tensor elements (c10's SymInt)
        self.symint = kind.startswith("SymInt[") and kind != "SymInt[]"
        if kind.endswith("]") and not kind.endswith("[]"):  # int[3]: a bare int stands for all three
            kind, size = kind[:-1].split("[")
            kind, self.size = kind + "[]", int(size)
        self.kind = {"SymInt[]": "int[]", "TensorList": "Tensor[]"}.get(kind, kind)
        if self.kind not in _KNOWN_KINDS:  # a misspelt kind would take anything (_accepts' last line)
            raise ValueError(f"_argcheck: unknown kind {kind!r} in a signature (the native-functions spelling: "
                             f"{', '.join(sorted(_KNOWN_KINDS))})")  # fmt: skip
        self.kw_only = kw_only
        self.word = "tuple of ints" if self.kind == "int[]" else _KIND_WORDS.get(self.kind, self.kind)


def _signature(text):
    params, kw_only = [], False
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(text + ","):  # commas inside a default ([-2, -1]) do not split
        depth += ch in "[(" and 1 or ch in "])" and -1 or 0
        if ch == "," and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    for part in parts:
        if part.strip() == "*":
            kw_only = True
        elif part.strip():
            params.append(_Param(part, kw_only))
    return params


def _type_name(value):
    t = type(value)
    if t in _TORCH_TYPE_NAMES:
        return _TORCH_TYPE_NAMES[t]
    # PyTorch prints the type's tp_name: a class written in Python (a heap type) has its bare name there, a
    # type defined in C its module too ("numpy.ndarray", "collections.OrderedDict")
    if t.__module__ in ("builtins", "minitorch") or t.__flags__ & (1 << 9):
        return t.__name__
    return f"{t.__module__}.{t.__name__}"


# how PyTorch's parser names the types it defines in C (their tp_name)
_TORCH_TYPE_NAMES = {
    _C.dtype: "torch.dtype",
    _C.device: "torch.device",
    _C.memory_format: "torch.memory_format",
    _C.Generator: "torch._C.Generator",
    Size: "torch.Size",
}


def _int_like(v, strict):
    """an int for PyTorch's parser: a Python or NumPy int (not a bool where strict), or a 0-d integer tensor"""
    if type(v) is bool:
        return not strict
    if isinstance(v, int) or (type(v).__module__ == "numpy" and hasattr(v, "__index__") and not _np_bool(v)):
        return True
    return (
        _is_tensor(v)
        and v.dim() == 0
        and not (v.is_floating_point() or v.is_complex())
        and v.dtype != _C.bool
    )


def _list_int(v, first):
    """an element of an int list for PyTorch's parser: an int or NumPy int, or an integer (or bool) tensor of one
    element, whatever its rank (`sum(x, (torch.tensor([1]), 2))`); a bool only after the first element"""
    if type(v) is bool:
        return not first
    if _is_tensor(v):
        return v.numel() == 1 and not (v.is_floating_point() or v.is_complex())
    return isinstance(v, int) or (
        type(v).__module__ == "numpy" and hasattr(v, "__index__") and not _np_bool(v)
    )


def _np_bool(v):
    return type(v).__module__ == "numpy" and type(v).__name__.startswith("bool")


def _plain_0d(v):
    return _is_tensor(v) and v.dim() == 0 and not v.requires_grad


def _tensor_like(v):
    """a Tensor to PyTorch's parser: a tensor, or an object with __torch_function__ (sparse tensors, a user's
    tensor-like), which the parser hands to that override"""
    return _is_tensor(v) or (not isinstance(v, type) and hasattr(type(v), "__torch_function__"))


def _accepts(p, v):
    if v is None:  # an int list defaulting to [] also takes None (avg_pool2d's stride, roll's dims)
        return p.optional or (p.has_default and p.default in ("None", "[]"))
    k = p.kind
    if k == "Tensor":
        return _tensor_like(v)
    if k == "SymInt":  # also a one-element integer tensor of any rank (topk's k), as an int list's element
        return _int_like(v, True) or (_is_tensor(v) and v.dtype != _C.bool and _list_int(v, True))
    if k == "int":
        return _int_like(v, True)
    if k == "float":
        return (isinstance(v, (int, float)) and not _np_bool(v)) or _plain_0d(v)
    if k == "Scalar":
        return isinstance(v, (int, float, complex)) or _plain_0d(v)
    if k == "bool":
        return type(v) is bool
    if k == "str":
        return isinstance(v, str)
    if k == "ScalarType":
        return isinstance(v, _C.dtype)
    if k == "int[]":
        if isinstance(v, (list, tuple)):
            return not v or _list_int(v[0], True)
        if p.size is None:  # a list without a size (normalized_shape) takes no bare int nor tensor
            return False
        if _is_tensor(v):  # one integral (or bool) element stands for the list, whatever its rank
            return v.numel() == 1 and not (v.is_floating_point() or v.is_complex())
        return _int_like(v, True)
    if k == "float[]":
        return isinstance(v, (list, tuple)) and (not v or isinstance(v[0], (int, float)))
    if k == "Scalar[]":  # numbers only, bools among them (PyTorch's is_scalar_list)
        return isinstance(v, (list, tuple)) and all(isinstance(e, (int, float, complex)) for e in v)
    if k == "Tensor[]":
        return isinstance(v, (list, tuple)) and (not v or _tensor_like(v[0]))
    if k == "Generator":
        return isinstance(v, _C.Generator)
    return True  # kinds not modelled (Device, Layout) are left to the function


def _bind(params, args, kwargs):
    """{param: value} for a call, or None when the call cannot bind (count or keywords)"""
    positional = [p for p in params if not p.kw_only]
    if len(args) > len(positional):
        return None
    bound = dict(zip((p.name for p in positional), args))
    names = {p.name for p in params}
    for k, v in kwargs.items():
        if k not in names or k in bound:
            return None
        bound[k] = v
    if any(p.name not in bound and not p.has_default for p in params):
        return None
    return bound


def _element_error(fname, p, v):
    """the TypeError PyTorch raises while unpacking an int (or float) list whose first element passed, else None
    (its message names the element's position in the list, never the argument's)"""
    if p.kind == "float[]" and isinstance(v, (list, tuple)):  # (no position: PyTorch's getDoublelist words)
        for i, e in enumerate(v[1:], 1):
            # PyFloat_AsDouble's reading: anything with __float__ or __index__ (a one-element tensor too)
            if not (hasattr(type(e), "__float__") or hasattr(type(e), "__index__")):
                return TypeError(
                    f"{fname}(): argument '{p.name}' must be tuple of floats, but found element of type "
                    f"{_type_name(e)} at pos {i + 1}"
                )
        return None
    if p.kind != "int[]" or not isinstance(v, (list, tuple)):
        return None
    for i, e in enumerate(v):
        if i and not _list_int(e, False):
            return TypeError(
                f"{fname}(): argument '{p.name}' failed to unpack the object at pos {i + 1} with error "
                f'"type must be tuple of ints,but got {_type_name(e)}"'
            )
        if p.symint and _is_tensor(e) and e.dtype == _C.bool:
            return RuntimeError(
                "Expected scalar.isIntegral( false) to be true, but got false.  (Could this error message be "
                "improved?  If so, please report an enhancement request to PyTorch.)"
            )
    return None


def _format_sig(params):
    out = []
    for p in params:
        if p.kw_only and "*" not in out:  # one marker before the first keyword-only parameter
            out.append("*")
        text = f"{p.word} {p.name}"
        out.append(text + (f" = {p.default}" if p.has_default else ""))
    return "(" + ", ".join(out) + ")"


def _varargs(params, args, kwargs):
    """PyTorch's parser takes an int list given as separate ints (one or more) when it is the only positional
    parameter (a method's t.flip(0, 1), t.flip(0), t.view(2, 3); not t.roll(4, 3), shifts then dims): those args
    as one tuple, else None. Only the first is checked, as the parser does: a later bad one is the list's
    "failed to unpack" (t.permute(0, 'a'))"""
    if (
        args
        and params
        and sum(1 for p in params if not p.kw_only) == 1  # the int list is the only positional parameter
        and params[0].kind == "int[]"
        and not params[0].kw_only
        and params[0].name not in kwargs
        and _list_int(args[0], True)
    ):
        return (tuple(args),)
    return None


# check_call's signature strings parsed once, with their fast test (`_fast_checks`)
_PARSED = {}
_PARSED_LISTS = {}  # id(list of parsed signatures) -> (that list, its signatures, their fast test)


def check_call(fname, signatures, args, kwargs, positional=False, deprecated=()):
    """raises PyTorch's TypeError when no signature (each a string, see above) takes (args, kwargs).
    positional: the messages give every argument's position, as for a Python function of PyTorch's that
    hands all its arguments to the C++ op by position. deprecated: the function's deprecated signatures
    (_deprecated_signatures), tried after the others and listed by no message: the one that takes the call is
    returned as a _DeprecatedCall."""
    try:
        sigs, fast = _PARSED[tuple(signatures)]
    except (KeyError, TypeError):  # not seen yet, or signatures parsed already (lists: no key)
        # parsed signatures (`parsing`'s, held for the life of the function it wraps) by their list's id,
        # the list kept beside its entry so that the id cannot be reused: building the fast test cost ~10 us
        # a call (the calls of a composite whose fast test passes no call, histogram's, vsplit's method)
        seen = _PARSED_LISTS.get(id(signatures))
        if seen is not None and seen[0] is signatures:
            sigs, fast = seen[1], seen[2]
        else:
            sigs = [_signature(s) if isinstance(s, str) else s for s in signatures]
            fast = _fast_checks(sigs)
            if all(isinstance(s, str) for s in signatures):
                _PARSED[tuple(signatures)] = (sigs, fast)
            elif isinstance(signatures, list) and len(_PARSED_LISTS) < 4096:
                _PARSED_LISTS[id(signatures)] = (signatures, sigs, fast)
    if fast is not None and fast(args, kwargs):  # the common call, taken as it is (the binding below: ~8 us)
        return args
    given = args
    for params in sigs:
        args = _varargs(params, given, kwargs) or given
        bound = _bind(params, args, kwargs)
        if bound is not None and all(_accepts(p, bound[p.name]) for p in params if p.name in bound):
            for p in params:
                if p.name in bound:
                    err = _element_error(fname, p, bound[p.name])
                    if err is not None:
                        raise err
            return args
    args = given
    for params in deprecated:
        bound = _bind(params, args, kwargs)
        if bound is not None and all(_accepts(p, bound[p.name]) for p in params if p.name in bound):
            return _DeprecatedCall(params, bound)
    hidden = bool(deprecated)
    # PyTorch's parser: a function of one signature raises that signature's own error; else a signature is
    # plausible when the count of arguments lies between its required and all its parameters, and where one
    # is, its own error; else the combination (hidden: deprecated signatures, which no message lists, stand
    # beside these)
    given_n = len(args) + len(kwargs)
    plausible = [p for p in sigs if sum(1 for q in p if not q.has_default) <= given_n <= len(p)]
    if len(sigs) == 1 and not hidden:
        _raise_own_error(fname, sigs[0], args, kwargs, positional)
    elif len(plausible) == 1:
        _raise_own_error(fname, plausible[0], args, kwargs, positional)
    raise TypeError(_C._format_invalid_args(fname, tuple(args), kwargs, [_format_sig(p) for p in sigs]))


def missing_arguments(fname, missing):
    """PyTorch's parser's TypeError for the required parameters `missing` (names), its plural as it writes it
    ("arguments" for one)"""
    plural = "s" if len(missing) == 1 else ""
    return TypeError(
        f"{fname}() missing {len(missing)} required positional argument{plural}: "
        + ", ".join(f'"{m}"' for m in missing)
    )


def _raise_own_error(fname, params, args, kwargs, positional):
    """raises the TypeError PyTorch's parser gives for the one signature params, in its order: too many
    arguments by position, then each parameter in turn (missing, or of a wrong kind), then the keywords left
    (unknown, or given by position too); returns where it finds none"""
    by_pos = [p for p in params if not p.kw_only]
    if len(args) > len(by_pos):
        lo, hi = sum(1 for p in by_pos if not p.has_default), len(by_pos)
        takes = f"{hi} positional argument{'s' if hi != 1 else ''}" if lo == hi else f"from {lo} to {hi}"
        takes += " positional arguments" if lo != hi else ""
        raise TypeError(
            f"{fname}() takes {takes} but {len(args)} {'was' if len(args) == 1 else 'were'} given"
        )
    bound = {**kwargs, **dict(zip((p.name for p in by_pos), args))}
    missing = [p.name for p in params if p.name not in bound and not p.has_default]
    for i, p in enumerate(params):
        if p.name not in bound:
            if not p.has_default:
                raise missing_arguments(fname, missing)
            continue
        v = bound[p.name]
        # (a sole int list given by position may be its first int, as `_varargs` takes it: t.sum_to_size(3))
        sole_ints = p.kind == "int[]" and i < len(args) and len(by_pos) == 1 and _list_int(v, True)
        if not _accepts(p, v) and not sole_ints:
            by_keyword = i >= len(args)
            where = f" (position {i + 1})" if positional or not by_keyword else ""
            if (
                p.kind == "int[]" and isinstance(v, (list, tuple)) and not by_keyword
            ):  # (a keyword's: the kind)
                raise TypeError(
                    f"{fname}(): argument '{p.name}'{where} must be tuple of ints, but found element of "
                    f"type {_type_name(v[0])} at pos 0"
                )
            raise TypeError(f"{fname}(): argument '{p.name}'{where} must be {p.word}, not {_type_name(v)}")
    names = {p.name for p in params}
    for k in kwargs:
        if k not in names:
            raise TypeError(f"{fname}() got an unexpected keyword argument '{k}'")
        if k in (p.name for p in by_pos[: len(args)]):
            raise TypeError(f"{fname}() got multiple values for argument '{k}'")


_ANY = object()  # a _fast_kind that takes every value


def _fast_kind(p, bare_int_ok=False):
    """a cheap test of one value for p that passes only values `_accepts` takes as they are, else None where no
    cheap test is written: (the exact types that pass at once, a test for the other values or None), or _ANY.
    bare_int_ok: a sized int list (roll's int[1] shifts) takes a bare int as it is, which holds unless it is
    the signature's only positional parameter (`_varargs` repacks it there)"""
    k, none_ok = p.kind, p.optional or (p.has_default and p.default in ("None", "[]"))
    if k == "Tensor":
        types, test = {_C.Tensor}, _is_tensor
    elif k in ("int", "SymInt"):
        types, test = {int}, None
    elif k == "bool":
        types, test = {bool}, None
    elif k == "float":  # a bool is an int to PyTorch's parser (threshold(x, -1, False))
        types, test = {int, float, bool}, None
    elif k == "Scalar":
        types, test = {int, float, bool, complex}, None
    elif k == "int[]" and bare_int_ok and p.size is not None:
        types, test = {int}, lambda v: type(v) in (tuple, list) and all(type(e) is int for e in v)
    elif k == "int[]":
        types, test = set(), lambda v: type(v) in (tuple, list) and all(type(e) is int for e in v)
    elif k == "ScalarType":
        types, test = {_C.dtype}, lambda v: isinstance(v, _C.dtype)
    elif k == "float[]":  # plain numbers only (a bool or a tensor element is check_call's to read or word)
        types, test = set(), lambda v: type(v) in (tuple, list) and all(type(e) in (int, float) for e in v)
    elif k == "str":
        types, test = {str}, lambda v: isinstance(v, str)
    elif k in ("PyObject", "Device", "Layout"):  # kinds _accepts leaves to the function
        return _ANY
    elif k == "object":  # anything but None (an optional one takes None too)
        if none_ok:
            return _ANY
        types, test = set(), lambda v: v is not None
    elif k == "Tensor[]":
        types, test = set(), lambda v: type(v) in (tuple, list) and all(_is_tensor(e) for e in v)
    elif k == "Generator":
        types, test = {_C.Generator}, lambda v: isinstance(v, _C.Generator)
    else:
        return None
    if none_ok:
        types.add(type(None))
    return frozenset(types), test


def _passes(kind, v):
    if kind is _ANY:
        return True
    types, test = kind
    return type(v) in types or (test is not None and test(v))


def _fast_check(params):
    """for one signature: a test of (args, kwargs) that is True only for calls check_call takes unchanged (the
    common ones, in well under a microsecond), else None; a False sends the call through check_call itself"""
    bare_ok = sum(1 for p in params if not p.kw_only) > 1
    kinds = [_fast_kind(p, bare_ok) for p in params]
    if any(k is None for k in kinds):
        return None
    # a value whose exact type is in the set passes without a call (the common case); others take the test
    positional = [(_ANY_TYPES, None) if k is _ANY else k for p, k in zip(params, kinds) if not p.kw_only]
    by_name = {p.name: k for p, k in zip(params, kinds)}
    names = [p.name for p in params]
    required = sum(1 for p in params if not p.has_default)
    # per count of positional arguments: the names they bind, and the required parameters left to keywords
    # (precomputed: this test runs before every call of a checked composite)
    bound = [frozenset(names[:i]) for i in range(len(params) + 1)]
    unbound_required = [
        tuple(p.name for p in params[i:] if not p.has_default) for i in range(len(params) + 1)
    ]

    def fast(args, kwargs):
        n = len(args)
        if n > len(positional) or n + len(kwargs) < required:
            return False
        for (passing, test), v in zip(positional, args):
            if type(v) not in passing and (test is None or not test(v)):
                return False
        if kwargs:
            taken = bound[n]
            for k, v in kwargs.items():
                kind = by_name.get(k)
                if kind is None or k in taken or not _passes(kind, v):
                    return False
        # a required parameter neither given by position nor by keyword is check_call's to word
        for name in unbound_required[n]:
            if name not in kwargs:
                return False
        return True

    return fast


class _AnyTypes:
    """a set holding every type (a PyObject parameter's)"""

    def __contains__(self, t):
        return True


_ANY_TYPES = _AnyTypes()


def _fast_checks(sigs):
    """one test for all the signatures (a call one of them takes unchanged passes), or None; not where
    check_call may repack separate ints as a sole int list (`_varargs`) before a later signature could take
    them unchanged (a sole int list as the last signature, as a method's `x.vsplit(indices)` after
    `x.vsplit(sections)`, passes only a list or tuple of ints, which `_varargs` leaves as it is)"""
    tests = [_fast_check(params) for params in sigs]
    if any(t is None for t in tests):
        return None
    if len(tests) == 1:
        return tests[0]
    if any(
        sum(1 for p in params if not p.kw_only) == 1 and params[0].kind == "int[]" for params in sigs[:-1]
    ):
        return None
    return lambda args, kwargs: any(t(args, kwargs) for t in tests)


def _positional_fast_path(fn, sigs, skip, general):
    """the wrapper of an upfront-checked fn: a call by position alone whose values `_fast_kind` passes goes
    straight to fn, tested inline (a generated function: no call per argument, about a third of a microsecond
    against the general test's 0.7); other calls (keywords, several signatures, other values) go to general"""
    if len(sigs) != 1:
        return lambda *args, **kwargs: general(args, kwargs)
    params = sigs[0]
    kinds = [_fast_kind(p, sum(1 for q in params if not q.kw_only) > 1) for p in params]
    if any(k is None for k in kinds):
        return lambda *args, **kwargs: general(args, kwargs)
    n_pos = sum(1 for p in params if not p.kw_only)
    ns = {"fn": fn, "general": general, "__name__": __name__}  # (a library frame to _handover.deferred)
    conds = []
    for i, k in enumerate(kinds[:n_pos]):
        if k is _ANY:
            conds.append("True")
            continue
        ns[f"T{i}"], ns[f"t{i}"] = k
        a = f"args[{i + skip}]"
        conds.append(f"(type({a}) in T{i}" + (f" or t{i}({a}))" if k[1] is not None else ")"))
    branches = []
    for n in range(n_pos + 1):  # n arguments by position bind the first n parameters; the rest need defaults
        if all(p.has_default for p in params[n:]):
            test = " and ".join(conds[:n]) or "True"
            branches.append(f"            if n == {n + skip} and {test}:\n                return fn(*args)\n")
    # a Tensor subclass's instance passes the tests: an op on it inside fn hands the call to this function
    # (HandOver, _handover.py; the try costs nothing until it raises)
    ns["HandOver"], ns["answers"], ns["NO_ANSWER"] = _handover.HandOver, _tensor_like_answers, _NO_ANSWER
    src = (
        "def checked(*args, **kwargs):\n"
        "    try:\n"
        "        if not kwargs:\n"
        "            n = len(args)\n" + "".join(branches) + "    except HandOver:\n"
        "        r = answers(checked, args, kwargs)\n"
        "        if r is NO_ANSWER:\n"
        "            raise\n"
        "        return r\n"
        "    return general(args, kwargs)\n"
    )
    exec(src, ns)  # noqa: S102 - generated from the signature's parameter kinds alone
    # (not registered as a catcher: a builtin that a tensor-like refused inside answers by itself, as before)
    return ns["checked"]


def _all_ints(args, skip):
    for a in args[skip:]:
        if type(a) is not int:
            return False
    return True


def _separate_ints_from(sigs):
    """the least count of separate ints check_call takes as the sole int list of a signature of sigs
    (`_varargs`: t.hsplit(2, 2) is t.hsplit((2, 2))) without trying each signature: more than any signature
    before it takes by position (so none of those binds them); None when no signature has an unsized sole int
    list"""
    most = 1
    for params in sigs:
        by_pos = [p for p in params if not p.kw_only]
        if (
            len(by_pos) == 1
            and params[0] is by_pos[0]
            and params[0].kind == "int[]"
            and params[0].size is None
        ):
            return most + 1
        most = max(most, len(by_pos))
    return None


def parsing(fn, signatures, name=None, method=False, upfront=True, positional=False):
    """fn checked against PyTorch's signatures for it (strings, see above): before every call (upfront, for
    composites whose valid calls cost far more than the check), else only once fn has raised. method: the
    signatures omit self, which the call's first argument is. positional: as for check_call."""
    fname = name or fn.__name__
    sigs = [_signature(s) if isinstance(s, str) else s for s in signatures]
    skip = 1 if method else 0
    parse = {"sigs": sigs, "name": fname, "method": method, "upfront": upfront, "positional": positional}
    deprecated = _deprecated_signatures(fname, method)
    listed = [_format_sig(params) for params in sigs]
    names = {p.name for params in sigs for p in params}

    # separate ints given as the sole int list: repacked here, not through check_call's search (20 us)
    ints_from = _separate_ints_from(sigs)
    if ints_from is not None:
        ints_from += skip

    public = [None]  # the wrapper below, as the handlers receive it
    if upfront:
        fast = _fast_checks(sigs)

        def general(args, kwargs):
            try:
                if kwargs:  # (the common call has none: no function call for it)
                    kwargs = canonical_kwargs(kwargs, names)
                if ints_from is not None and not kwargs and len(args) >= ints_from and _all_ints(args, skip):
                    return fn(*args[:skip], args[skip:])
                rest = args[skip:]
                if fast is not None and fast(rest, kwargs):
                    return fn(*args, **kwargs)
                parsed = check_call(fname, sigs, rest, kwargs, positional, deprecated)
                if isinstance(parsed, _DeprecatedCall):
                    return parsed.call(fn, fname, args[:skip], listed)
                if parsed is not rest:  # separate ints taken as the int list
                    args = args[:skip] + parsed
                return fn(*args, **kwargs)
            except _REFUSALS:
                # a tensor-like argument's __torch_function__ answers a call that failed (PyTorch's Python
                # functions test for one first; here only once the call raised, so valid calls pay nothing);
                # inline, not a nested call: warnings' stacklevels count this wrapper as one frame
                r = _tensor_like_answers(public[0], args, kwargs)
                if r is _NO_ANSWER:
                    raise
                return r

        _handover.catches(general.__code__)
        checked = functools.wraps(fn)(_positional_fast_path(fn, sigs, skip, general))
        checked._parse = parse
        public[0] = checked
        return checked

    @functools.wraps(fn)
    def on_error(*args, **kwargs):
        try:
            if kwargs:
                kwargs = canonical_kwargs(kwargs, names)
            if ints_from is not None and not kwargs and len(args) >= ints_from and _all_ints(args, skip):
                return fn(*args[:skip], args[skip:])
            try:
                return fn(*args, **kwargs)
            except _REFUSALS:
                rest = args[skip:]
                try:
                    parsed = check_call(fname, sigs, rest, kwargs, positional, deprecated)
                except TypeError as e:
                    raise e from None
                if parsed is rest:
                    raise
            if isinstance(parsed, _DeprecatedCall):
                return parsed.call(fn, fname, args[:skip], listed)
            return fn(*(args[:skip] + parsed), **kwargs)  # separate ints taken as the int list
        except _REFUSALS:
            r = _tensor_like_answers(public[0], args, kwargs)  # as general's
            if r is _NO_ANSWER:
                raise
            return r

    _handover.catches(on_error.__code__)
    on_error._parse = parse
    public[0] = on_error
    return on_error


_NO_ANSWER = _handover.NO_ANSWER
_REFUSALS = _handover.REFUSALS


def _tensor_like_answers(func, args, kwargs):
    """What a tensor-like argument's __torch_function__ answers for func (lists and tuples one level deep,
    kwargs; PyTorch's handle_torch_function), or _NO_ANSWER where no argument is a tensor-like, or where a
    function that called the wrapper calling this holds one (the outermost function is handed the call, as
    PyTorch's test at each entry hands it: _handover.py)."""
    vals = list(args) + list(kwargs.values())
    vals += [v for a in vals if isinstance(a, (list, tuple)) for v in a]
    if not _handover.holds_overriding(vals):  # (a Tensor subclass's instance that handed the call over too)
        return _NO_ANSWER
    if _handover.deferred_subclass(sys._getframe(2)):  # (1: the wrapper, 2: its caller)
        return _NO_ANSWER
    return _handover.answer(func, vals, args, kwargs)


def parses(*signatures, name=None, method=False, upfront=True, positional=False):
    """decorator form of `parsing`"""
    return lambda fn: parsing(fn, signatures, name, method, upfront, positional)


# ---------------------------------------------------------------------------------------------------------
# PyTorch's deprecated signatures (its tools/autograd/deprecated.yaml): the scalars first, as PyTorch's early
# API had them (`addmm(beta, input, alpha, mat1, mat2)`, `x.addmm_(beta, mat1, mat2)`). Its parser tries them
# after the others, lists them in no message, and warns once per process at the first call one takes. The
# functions written in Python try them through `parsing` (check_call's `deprecated`); the generated bindings
# through arg_errors.cpp, which calls `_deprecated_handler` once no overload took a call, so a call of the
# usual form costs nothing more. add/sub's deprecated (input, alpha, other) is bind_elementwise.cpp's.
# Each signature as PyTorch writes it, with `self` where the tensor goes; the function spelling adds
# `*, Tensor? out=None` and calls `self` input, the method spellings (in-place too) leave self and out out.
DEPRECATED = {
    name: (
        f"Scalar beta, Tensor self, Scalar alpha, Tensor {a}, Tensor {b}",
        f"Scalar beta, Tensor self, Tensor {a}, Tensor {b}",
    )
    for name, (a, b) in {
        "addmm": ("mat1", "mat2"), "addmv": ("mat", "vec"), "addr": ("vec1", "vec2"),
        "baddbmm": ("batch1", "batch2"), "addbmm": ("batch1", "batch2"),
    }.items()
}  # fmt: skip
DEPRECATED.update(
    {name: ("Tensor self, Scalar value, Tensor tensor1, Tensor tensor2",) for name in ("addcmul", "addcdiv")}
)


def _deprecated_signatures(fname, method):
    """the parsed deprecated signatures of fname (an in-place method's are its function's), for the function
    or the method spelling"""
    texts = DEPRECATED.get(fname[:-1] if method and fname.endswith("_") else fname, ())
    if method:
        return [[p for p in _signature(t) if p.name != "self"] for t in texts]
    return [_signature(t.replace("Tensor self", "Tensor input") + ", *, Tensor? out=None") for t in texts]


_PACKAGE = os.path.dirname(os.path.abspath(__file__))


def _outside_stacklevel():
    """warnings.warn's stacklevel, from its caller, of the first frame outside minitorch: the user's line"""
    frame, level = sys._getframe(2), 1
    while frame is not None and frame.f_code.co_filename.startswith(_PACKAGE):
        frame, level = frame.f_back, level + 1
    return level


class _DeprecatedCall:
    """a call a deprecated signature takes: its parameters and the values bound to them"""

    __slots__ = ("bound", "params")

    def __init__(self, params, bound):
        self.params, self.bound = params, bound

    def call(self, fn, fname, head, listed):
        """PyTorch's one warning, then fn called in its usual form: head (a method's self) or the input first,
        the rest by keyword. listed: the signatures PyTorch suggests instead, "(Tensor input, ...)"."""
        if _C._deprecated_overload_first_use():
            instead = "".join(f"\n\t{fname}{text}" for text in listed)
            warnings.warn(
                f"This overload of {fname} is deprecated:\n\t{fname}{_format_sig(self.params)}\nConsider using "
                f"one of the following signatures instead:{instead}",
                UserWarning,
                stacklevel=_outside_stacklevel(),
            )
        kwargs = dict(self.bound)
        first = head or (kwargs.pop("input"),)
        for p in self.params:  # a Number given as a 0-dim tensor is its value, as PyTorch's parser reads it
            if p.kind == "Scalar" and _is_tensor(kwargs.get(p.name)):
                kwargs[p.name] = kwargs[p.name].item()
        return fn(*first, **kwargs)


def _deprecated_handler(fn, fname, method):
    """arg_errors.cpp's hook for a generated binding fn: (args, kwargs, listed) -> the result of the call a
    deprecated signature takes, or NotImplemented"""
    sigs = _deprecated_signatures(fname, method)

    def handler(args, kwargs, listed):
        rest = args[1:] if method else args
        for params in sigs:
            bound = _bind(params, rest, kwargs)
            if bound is not None and all(_accepts(p, bound[p.name]) for p in params if p.name in bound):
                return _DeprecatedCall(params, bound).call(fn, fname, args[:1] if method else (), listed)
        return NotImplemented

    return handler


def _register_deprecated():
    """the generated bindings among DEPRECATED's names (functions, methods, in-place methods) get the hook"""
    for name in DEPRECATED:
        for fname, fn, method in (
            (name, getattr(_C, name, None), False),
            (name, _C.Tensor.__dict__.get(name), True),
            (name + "_", _C.Tensor.__dict__.get(name + "_"), True),
        ):
            if isinstance(fn, types.BuiltinFunctionType) or type(fn).__name__ == "instancemethod":
                call = getattr(_C.Tensor, fname) if method else fn
                _C._register_deprecated(fn, _deprecated_handler(call, fname, method))


_register_deprecated()
