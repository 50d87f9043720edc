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
import types

from minitorch import _C

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

# parameters with a number default that PyTorch's overloads also take as a tensor (torch.normal's mean, std)
TENSOR_OR_NUMBER = frozenset(["mean", "std"])

_NUMBERS = (int, float)


def _kind_name(x):
    return type(x).__name__


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
        return _scalar_word(param) if value.dim() != 0 else None
    if name in INT_PARAMS and (
        isinstance(value, (float, str, list, tuple)) or type(value) is bool or value is None
    ):
        return "int"
    return None


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
                    return TypeError(
                        f"{fname}(): expected Tensor as element {i} in argument {pos}, but got {_kind_name(v)}"
                    )
    return None


def translating(fn, name=None, method=False, checks="all"):
    """fn, raising PyTorch's TypeError when it fails on an argument of a kind PyTorch refuses (see above).
    method: positions count from the argument after self, as PyTorch's messages for Tensor methods do.
    checks: "all" (PyTorch's C++ parser: bools too), "numbers" (PyTorch writes the function in Python and
    takes any truth value for a bool, but hands tensors and numbers to C++), "tensors" (only a plain value
    that failed as a tensor)."""
    if not isinstance(fn, types.FunctionType) or getattr(fn, "__wrapped__", None) is not None:
        return fn
    fname = name or fn.__name__

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except (AttributeError, RuntimeError, IndexError, ValueError, TypeError) as e:
            if isinstance(e, TypeError) and ("(): argument '" in str(e) or "invalid combination" in str(e)):
                raise  # already PyTorch's own words for an argument
            err = _translate(fn, fname, method, checks, args, kwargs, e)
            if err is None:
                raise
            raise err from None

    return wrapper


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
