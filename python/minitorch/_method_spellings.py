"""torch-level spellings of Tensor methods: torch.clamp_(t, ...) and the other in-place names PyTorch keeps at
torch level, torch.fill(t, v) (fill_'s out-of-place form) and torch.detach(t)."""

import operator as _operator
import re as _re

from minitorch import _C, _argcheck
from minitorch._out import write_out

# the in-place names PyTorch spells at torch level too (the elementwise table's come from csrc/ops/ops.schema,
# bound in C++), and get_device; each is a Tensor method, bound in C++ or composed in _composite_math
_INPLACE = [
    "as_strided_",
    "clamp_",
    "conj_physical_",
    "clip_",
    "detach_",
    "fill_",
    "get_device",
    "index_put_",
    "rad2deg_",
    "resize_as_",
    "zero_",
    "clamp_min_",
    "clamp_max_",
]
__all__ = ["detach", "fill"]


# the ones of self alone, whose extra argument PyTorch refuses in Python's words for its fixed arity
_SELF_ONLY = ("conj_physical_", "get_device")


def _make_inplace(name):
    if name in _SELF_ONLY:

        def fn(input):
            return getattr(input, name)()
    else:

        def fn(input, *args, **kwargs):
            return getattr(input, name)(*args, **kwargs)

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"{name}(input, ...) -> Tensor: torch's spelling of Tensor.{name}, in place on input."
    return fn


for _name in _INPLACE:
    globals()[_name] = _make_inplace(_name)
    __all__.append(_name)
del _name


def fill(input, value):
    """A new tensor shaped like input (its dtype and device) filled with value (a number or a 0-dim tensor).
    A value tensor that requires grad receives the sum of the result's gradient, as PyTorch's."""
    if (
        isinstance(value, _C.Tensor)
        and value.requires_grad
        and value.dim() == 0
        and input.is_floating_point()
    ):
        return value.to(dtype=input.dtype, device=input.device).expand(input.shape).contiguous()
    if input.requires_grad and _C.is_grad_enabled():
        return input.clone().fill_(value)  # the result's grad_fn leads back to input, as PyTorch's
    # one pass, not clone's copy and then the fill (empty_like keeps clone's layout)
    return _C.empty_like(input).fill_(value)


@_argcheck.checks_own_arguments  # no translating wrapper: it was a fifth of this call's time
def detach(input):
    """input.detach(): the same data, cut from the autograd graph."""
    if isinstance(input, _C.Tensor):
        return input.detach()
    _argcheck.check_tensor("detach", "input", 1, input)


# ---- the functional forms of view ops: torch.<view>_copy gives the view's values in a new contiguous tensor
# (a list of them for split/unbind), with out=, as PyTorch's (functionalized graphs and export emit these names)
_VIEW_COPIES = {  # the view -> how many positional arguments it takes after the tensor (PyTorch's signatures)
    "as_strided": 3, "detach": 0, "diagonal": 3, "expand": 1, "indices": 0, "values": 0, "crow_indices": 0,
    "col_indices": 0, "permute": 1, "select": 2, "split": 2, "split_with_sizes": 2, "squeeze": 1, "t": 0,
    "transpose": 2, "unbind": 1, "unfold": 3, "unsqueeze": 1, "view": 1, "view_as_real": 0, "view_as_complex": 0,
}  # fmt: skip


# PyTorch's signatures of the copies whose methods read their arguments otherwise (as varargs, or a list where
# the copy takes one int): parsed as the copy's (its missing arguments and wrong kinds in the parser's words)
_COPY_SIGNATURES = {
    "as_strided": "Tensor input, SymInt[] size, SymInt[] stride, SymInt? storage_offset=None",
    "expand": "Tensor input, SymInt[] size, *, bool implicit=False",
    "permute": "Tensor input, int[] dims",
    "select": "Tensor input, int dim, SymInt index",
    "split": "Tensor input, SymInt split_size, int dim=0",
    "split_with_sizes": "Tensor input, SymInt[] split_sizes, int dim=0",
    "transpose": "Tensor input, int dim0, int dim1",
    "unfold": "Tensor input, int dimension, int size, int step",
    "unsqueeze": "Tensor input, int dim",
    # two overloads, whose "invalid combination" message lists out= (view's varargs are no copy's: PyTorch's
    # view_copy(x, 4) is that TypeError, not a view of 4)
    "view": (
        "Tensor input, ScalarType dtype, *, Tensor? out=None",
        "Tensor input, SymInt[] size, *, Tensor? out=None",
    ),
}


def _copy(r):
    # a contiguous view's clone is contiguous already; the keyword costs the binding a fifth of a small clone
    return r.clone() if r.is_contiguous() else r.clone(memory_format=_C.contiguous_format)


def _copied(result):
    if isinstance(result, (tuple, list)):  # PyTorch's copies of multi-output views are tuples
        return tuple(_copy(r) for r in result)
    return _copy(result)


def _write(result, out):
    """out= of the copies: the outs of a tuple (unbind_copy, split_copy) are written element by element and, as
    PyTorch's, the call returns None."""
    if out is None or not isinstance(result, tuple):
        return write_out(result, out)
    write_out(result, out)
    return None


def _make_view_copy(view, arity):
    name = view + "_copy"
    signature = _COPY_SIGNATURES.get(view)
    if isinstance(signature, str):
        signature = [signature]
    overloaded = signature is not None and len(signature) > 1
    # the common call (plain ints) skips check_call's binding, which cost more than a 256-element copy
    fast = _argcheck._fast_checks([_argcheck._signature(s) for s in signature]) if signature else None
    # the calls that need no check at all: no arguments for a view of none, or plain ints for one of ints
    params = _argcheck._signature(signature[0])[1:] if signature else []
    if signature is None:  # a dense tensor's views of no arguments
        plain_counts = {0} if view in ("detach", "t") else set()
    elif all(p.kind in ("int", "SymInt") and not p.kw_only for p in params):  # select, transpose, split, ...
        plain_counts = set(range(sum(not p.has_default for p in params), len(params) + 1))
    else:
        plain_counts = set()
    cf = _C.contiguous_format

    def fn(input, *args, out=None, **kwargs):
        if (
            out is None
            and not kwargs
            and len(args) in plain_counts
            and type(input) is _C.Tensor
            and not [a for a in args if type(a) is not int]
        ):  # (select_copy(x, 0, 0): 3.3 us through the checks below, PyTorch 2.5)
            r = getattr(input, view)(*args)
            if type(r) is _C.Tensor:
                return r.clone() if r.is_contiguous() else r.clone(memory_format=cf)
            return _copied(r)
        if (
            len(args) > arity and not overloaded
        ):  # Python's own wording for a function of fixed arity, as PyTorch's wrappers give
            plural = "s" if arity else ""
            raise TypeError(
                f"{name}() takes {arity + 1} positional argument{plural} but {len(args) + 1} were given"
            )
        if signature is not None:
            given = {**kwargs, "out": out} if overloaded and out is not None else kwargs
            if fast is None or not fast((input, *args), given):
                _argcheck.check_call(name, signature, (input, *args), given)
        if view.startswith("view_as_"):  # functions, not Tensor methods
            return _write(_copied(getattr(_C, view)(input, *args, **kwargs)), out)
        try:
            result = getattr(input, view)(*args, **kwargs)
        except TypeError as e:  # the method's argument error, in the function's words (input is position 1)
            text = str(e)
            if not text.startswith(view + "()"):
                raise
            text = _re.sub(
                r"\(position (\d+)\)", lambda m: f"(position {int(m.group(1)) + 1})", text, count=1
            )
            raise TypeError(name + text[len(view) :]) from None
        return _write(_copied(result), out)

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"{name}(input, ...) -> Tensor: Tensor.{view}'s values in a new contiguous tensor."
    return fn


for _view, _arity in _VIEW_COPIES.items():
    globals()[_view + "_copy"] = _make_view_copy(_view, _arity)
    __all__.append(_view + "_copy")
del _view, _arity


def alias_copy(input, *, out=None):
    """A copy of input (the functional form of an alias)."""
    _argcheck.check_tensor_like("alias_copy", "input", 1, input)
    return _write(_copied(input), out)


_SLICE_COPY = [
    "Tensor input, int dim=0, SymInt? start=None, SymInt? end=None, SymInt step=1, *, Tensor? out=None"
]


@_argcheck.checks_own_arguments
def slice_copy(input, dim=0, start=None, end=None, step=1, *, out=None):
    """input[..., start:end:step, ...] along dim, copied."""
    if not (
        type(input) is _C.Tensor
        and type(dim) is int
        and type(step) is int
        and (start is None or type(start) is int)
        and (end is None or type(end) is int)
        and (out is None or type(out) is _C.Tensor)
    ):  # anything but plain ints (a bool, a float, a numpy integer): the parser's check (its cost was 0.5 us)
        _argcheck.check_call("slice_copy", _SLICE_COPY, (input, dim, start, end, step), {"out": out})
        dim, step = _operator.index(dim), _operator.index(step)
        start = None if start is None else _operator.index(start)
        end = None if end is None else _operator.index(end)
    if input.dim() == 0:
        raise IndexError("slice() cannot be applied to a 0-dim tensor.")
    n = input.size(dim)  # PyTorch's dim check (and message) comes before the step's
    if step <= 0:
        raise RuntimeError("slice step must be positive")
    # ATen's slice bounds: negative ends count from the end, then both are clamped to [0, n], end >= start
    s = 0 if start is None else (start + n if start < 0 else start)
    e = n if end is None else (end + n if end < 0 else end)
    s = min(max(s, 0), n)
    e = min(max(e, s), n)
    if step == 1:  # a narrow view: an index tuple's parse cost a microsecond, an eighth of a 256 KB copy
        return _write(_copy(input.narrow(dim, s, e - s)), out)
    index = [slice(None)] * input.dim()
    index[dim] = slice(s, e, step)
    return _write(_copied(input[tuple(index)]), out)


@_argcheck.parses("Tensor input, int dim, SymInt start, SymInt length, *, Tensor? out=None", upfront=False)
def narrow_copy(input, dim, start, length, *, out=None):
    """input.narrow(dim, start, length), copied."""
    # PyTorch's SymInt start/length take a one-element integer tensor of any rank, as its __index__
    if _C._is_tensor(start) and start.dim():
        start = _operator.index(start)
    if _C._is_tensor(length) and length.dim():
        length = _operator.index(length)
    return _write(_copied(input.narrow(dim, start, length)), out)


# the "unsafe" splits skip the views' checks in PyTorch: their parts share the input's memory but are no views
# of it (no _base), so writing one in place is not refused as a multi-output view op's part is
def _unsafe(parts):
    for p in parts:
        _C._forget_view_base(p)
    return parts


def unsafe_chunk(input, chunks, dim=0):
    """torch.chunk (PyTorch's form without the views' aliasing checks)."""
    return _unsafe(input.chunk(chunks, dim))


@_argcheck.parses("Tensor input, SymInt split_size, int dim=0")
def unsafe_split(input, split_size, dim=0):
    """torch.split with one split size (PyTorch's form without the views' aliasing checks)."""
    return _unsafe(input.split(split_size, dim))


def unsafe_split_with_sizes(input, split_sizes, dim=0):
    """torch.split with a list of sizes (PyTorch's form without the views' aliasing checks)."""
    if isinstance(split_sizes, _C.Tensor):
        raise TypeError(
            "unsafe_split_with_sizes(): argument 'split_sizes' (position 1) must be tuple of ints, not Tensor"
        )
    return _unsafe(input.split(list(split_sizes), dim))


__all__ += [
    "alias_copy",
    "narrow_copy",
    "slice_copy",
    "unsafe_chunk",
    "unsafe_split",
    "unsafe_split_with_sizes",
]
TENSOR_METHODS = {
    "narrow_copy": narrow_copy,
    "unsafe_chunk": unsafe_chunk,
    "unsafe_split": unsafe_split,
    "unsafe_split_with_sizes": unsafe_split_with_sizes,
}
