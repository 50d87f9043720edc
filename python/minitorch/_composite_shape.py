"""Shape, construction and indexing functions that PyTorch writes as ATen ops and we compose in Python from our
primitive ops (views, cat, index_select, gather...), so autograd and every device come for free; one that a
benchmark shows slow gets a kernel of its own in csrc/."""

from minitorch import _C, _argcheck, _creation, _switches, autograd
from minitorch import functional as _functional
from minitorch._dtype_names import dtype_name as _dtype_name
from minitorch._dtype_names import scalar_name as _scalar_name
from minitorch._out import write_out
from minitorch.autograd import grad_mode

__all__ = []
# Tensor methods installed by minitorch/__init__.py (name -> function taking the tensor first)
TENSOR_METHODS = {}

import builtins
import functools
import math
import numbers
import operator
import warnings

import numpy as np


def _wrap(dim, ndim):
    """dim in [-ndim, ndim) made non-negative, with PyTorch's IndexError otherwise (a 0-d tensor takes 0 and -1)."""
    n = builtins.max(ndim, 1)
    # a float tensor is no dim (its TypeError lets a caller's parse name the argument)
    if type(dim) is not int:
        dim = operator.index(dim)
    if not -n <= dim < n:
        raise IndexError(
            f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {dim})"
        )
    return dim % n


def _as_dims(dims):
    if isinstance(dims, numbers.Integral):
        return [int(dims)]
    return [int(d) for d in dims]


def _as_list(tensors):
    # functions that take *tensors also take one list or tuple of them, as PyTorch's do
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        return list(tensors[0])
    return list(tensors)


def _arange_like(n, x):
    return _C.arange(n, device=x.device)


# ---- copies, flips, rolls


def clone(input, *, memory_format=None):
    """A copy of `input` (data and autograd history), as torch.clone."""
    if memory_format is None:
        return input.clone()
    return input.clone(memory_format=memory_format)


@_argcheck.parses("Tensor input, int[] dims", upfront=False)
def flip(input, dims):
    """Reverses the order of elements along each of `dims` (a copy, as torch.flip)."""
    # one strided copy (csrc/ops/shape.cpp), its checks there; the binding reads the dims (a bool or float
    # among them raises, and the parser above answers in PyTorch's words, where int() per dim took them)
    if dims is None:  # (the binding reads None as no dims: the parser's refusal instead)
        raise TypeError("flip(): dims")
    return _C._flip(input, dims)


def fliplr(input):
    """Flips a tensor of 2 or more dims left to right (along dim 1)."""
    if input.dim() < 2:
        raise RuntimeError("Input must be >= 2-d.")
    return _C._flip(input, [1])


def flipud(input):
    """Flips a tensor of 1 or more dims up to down (along dim 0)."""
    if input.dim() < 1:
        raise RuntimeError("Input must be >= 1-d.")
    return _C._flip(input, [0])


# Checked upfront, as PyTorch's parser does, where a bool or float for an int would otherwise run (a bool is
# an int to Python, 2.5 a valid count to the arithmetic): _argcheck's fast path keeps a valid call's cost
# to about a microsecond
@_argcheck.parses("Tensor input, int k=1, int[] dims=[0,1]", name="rot90")
def _rot90_checked(input, k=1, dims=(0, 1)):
    dims = _as_dims(dims)
    if len(dims) != 2:
        raise RuntimeError(f"expected total rotation dims == 2, but got dims = {len(dims)}")
    nd = input.dim()
    if nd < 2:
        raise RuntimeError(f"expected total dims >= 2, but got total dims = {nd}")
    d0, d1 = _wrap(dims[0], nd), _wrap(dims[1], nd)
    if d0 == d1:
        raise RuntimeError(
            f"expected rotation dims to be different, but got dim0 = {dims[0]} and dim1 = {dims[1]}"
        )
    return _rot90(input, k, d0, d1)


def _rot90(input, k, d0, d1):
    """rot90 over two different wrapped dims: flips and a transposed view, as PyTorch composes it."""
    k = k % 4
    if k == 1:
        return _C._flip(input, [d1]).transpose(d0, d1)
    if k == 2:
        return _C._flip(input, [d0, d1])
    if k == 3:
        return _C._flip(input, [d0]).transpose(d0, d1)
    return input.clone()


def rot90(input, k=1, dims=(0, 1)):
    """Rotates `input` by 90 degrees `k` times in the plane of `dims`, from the first towards the second."""
    # A tensor, an int k and two in-range int dims need no parser: its check and the wrapper cost 2 us of
    # the 3.7 a small rot90 took (PyTorch's whole call: 2.2). Everything else goes through it.
    if type(input) is _C.Tensor and type(k) is int and type(dims) in (tuple, list) and len(dims) == 2:
        d0, d1 = dims
        nd = input.dim()
        if type(d0) is int and type(d1) is int and nd >= 2 and -nd <= d0 < nd and -nd <= d1 < nd:
            d0, d1 = d0 % nd, d1 % nd
            if d0 != d1:
                return _rot90(input, k, d0, d1)
    return _rot90_checked(input, k, dims)


# Tensor.rot90 is the checked form with self out of the signature (argcheck.translating builds it from these),
# so its argument errors count positions from k, as PyTorch's method's do
rot90._parse = _rot90_checked._parse
rot90.__wrapped__ = _rot90_checked.__wrapped__


# ---- broadcasting and grids


def broadcast_to(input, size):
    """`input` expanded (a view) to `size`, as torch.broadcast_to."""
    # the parser's SymInt[] in broadcast_to's words; then () reaches expand's own error, as PyTorch's
    return input.expand(_C._int_list_value(size, "broadcast_to", "size", 2))


def _broadcast_to_method(self, *size, **kwargs):
    """Tensor.broadcast_to: the size as one sequence or as separate ints (PyTorch's int-list parser)."""
    for k in kwargs:
        if k != "size":
            raise TypeError(f"broadcast_to() got an unexpected keyword argument '{k}'")
    return self.expand(_C._int_list_varargs("broadcast_to", "size", size, kwargs.get("size")))


def broadcast_tensors(*tensors):
    """The tensors expanded (views) to their common broadcast shape."""
    tensors = list(
        tensors
    )  # no single list of them: PyTorch's parser reads its argument 0 element by element
    if all(type(t) is _C.Tensor for t in tensors):
        return _C._broadcast_tensors(tensors)  # one C++ call (0.24 -> 1.75 of PyTorch on two tensors)
    # tensor-likes (Python tensor types, subclasses) and PyTorch's error for anything else
    for i, t in enumerate(tensors):
        if not _argcheck._tensor_like(t):
            raise TypeError(
                f"expected Tensor as element {i} in argument 0, but got {_argcheck._kind_name(t)}"
            )
    shape = []
    for t in tensors:  # pairwise, so a mismatch gets PyTorch's message naming the pair
        _check_pair(shape, t.shape)
        shape = _functional.broadcast_shapes(shape, t.shape)
    return tuple(t.expand(*shape) for t in tensors)


def _check_pair(a, b):
    for i in range(1, builtins.min(len(a), len(b)) + 1):
        x, y = a[-i], b[-i]
        if x != y and x != 1 and y != 1:
            nd = builtins.max(len(a), len(b))
            raise RuntimeError(
                f"The size of tensor a ({x}) must match the size of tensor b ({y}) at non-singleton dimension {nd - i}"
            )


def meshgrid(*tensors, indexing=None):
    """Coordinate grids of 0-d or 1-d tensors: indexing 'ij' (the default) or 'xy' (first two dims swapped)."""
    tensors = _as_list(tensors)
    if not tensors:
        raise RuntimeError("meshgrid expects a non-empty TensorList")
    for i, t in enumerate(tensors):
        if not isinstance(t, _C.Tensor):
            raise TypeError(
                f"expected Tensor as element {i} in argument 0, but got {_argcheck._type_name(t)}"
            )
    indexing = "ij" if indexing is None else indexing
    if indexing not in ("ij", "xy"):
        raise RuntimeError(f'torch.meshgrid: indexing must be one of "xy" or "ij", but received: {indexing}')
    for t in tensors:
        if t.dim() > 1:
            raise RuntimeError(
                "torch.meshgrid: Expected 0D or 1D tensor in the tensor list but got: " + str(t)
            )
        if t.dtype != tensors[0].dtype:
            raise RuntimeError("meshgrid expects all tensors to have the same dtype")
        if t.device != tensors[0].device:
            raise RuntimeError("meshgrid expects all tensors to have the same device")
    return _meshgrid(tensors, indexing)


def _meshgrid(tensors, indexing):
    """meshgrid's grids of checked 0-d/1-d tensors: views and expands only, so vmap's rule runs it on batched
    tensors at the logical level."""
    tensors = list(tensors)
    swap = indexing == "xy" and len(tensors) >= 2
    if swap:
        tensors[0], tensors[1] = tensors[1], tensors[0]
    flat = [t.reshape(-1) for t in tensors]
    shape = [t.shape[0] for t in flat]
    nd = len(flat)
    grids = [t.view([-1 if i == j else 1 for j in range(nd)]).expand(*shape) for i, t in enumerate(flat)]
    if swap:
        grids[0], grids[1] = grids[1], grids[0]
    return tuple(grids)


def cartesian_prod(*tensors):
    """Cartesian product of 1-d tensors, one row per combination (the lone tensor itself when given one)."""
    for i, t in enumerate(tensors):  # PyTorch's Python hands the tuple on as is: a list is no tensor
        if not isinstance(t, _C.Tensor):
            raise TypeError(
                f"expected Tensor as element {i} in argument 0, but got {_argcheck._kind_name(t)}"
            )
    _argcheck.check_tensor_list(tensors, 0)
    for t in tensors:
        if t.dim() != 1:
            raise RuntimeError(f"Expect a 1D vector, but got shape {list(t.shape)}")
    if len(tensors) == 1:
        return tensors[0]
    return _C.stack([g.reshape(-1) for g in meshgrid(*tensors, indexing="ij")], 1)


@_argcheck.parses("Tensor input, int r=2, bool with_replacement=False")
def combinations(input, r=2, with_replacement=False):
    """Length-`r` combinations of the elements of a 1-d tensor, as itertools.combinations (rows in that order)."""
    if input.dim() != 1:
        raise RuntimeError(f"Expect a 1D vector, but got shape {list(input.shape)}")
    if r < 0:
        raise RuntimeError(f"Expect a non-negative number, but got {r}")
    if r == 0:
        return input.new_empty(0)
    n = input.shape[0]
    grids = meshgrid(*([_arange_like(n, input)] * r), indexing="ij")
    mask = _C.ones(grids[0].shape, dtype=_C.bool, device=input.device)
    for a, b in zip(grids, grids[1:]):
        mask = mask & (a <= b if with_replacement else a < b)
    # the grids run in lexicographic order, so the kept index tuples come out as itertools orders them
    idx = [g.masked_select(mask) for g in grids]
    return _C.stack([input.index_select(0, i) for i in idx], 1)


@_argcheck.parses("Tensor input, int[] dims", name="tile", upfront=False)
def _tile_checked(input, dims):
    """torch.tile's and Tensor.tile's calls that are not plain ints (csrc/python/bind_shape.cpp binds both and
    takes those itself): `input` repeated `dims[i]` times along each dim, dims shorter than input.dim() padded
    with ones in front."""
    dims = _C._int_list_value(dims, "tile", "dims", 2)  # the parser's SymInt[] (the method's were read)
    if len(dims) < input.dim():
        dims = [1] * (input.dim() - len(dims)) + dims
    return _functional.repeat(input, *dims)


_C._set_repeat_fallbacks(_functional.repeat, _tile_checked)
tile = _C.tile


# ---- stacks and at-least


def _atleast(tensors, n):
    tensors = _as_list(tensors)
    _argcheck.check_tensor_list(tensors, 0)
    out = []
    for t in tensors:
        if t.dim() >= n:
            out.append(t)
        elif n == 3 and t.dim() == 2:
            out.append(t.unsqueeze(-1))
        elif n == 3 and t.dim() == 1:
            out.append(t.view(1, -1, 1))
        else:
            out.append(t.reshape([1] * (n - t.dim()) + list(t.shape)))
    return out


def _atleast_api(tensors, n):
    out = _atleast(tensors, n)
    if len(tensors) == 1 and not isinstance(tensors[0], (list, tuple)):
        return out[0]
    return tuple(out)


def atleast_1d(*tensors):
    """Views with at least one dim (0-d becomes shape (1,)); one tensor in, one out, else a tuple."""
    return _atleast_api(tensors, 1)


def atleast_2d(*tensors):
    """Views with at least two dims (a 1-d tensor becomes a row); one tensor in, one out, else a tuple."""
    return _atleast_api(tensors, 2)


def atleast_3d(*tensors):
    """Views with at least three dims, as NumPy's atleast_3d ((n,) -> (1, n, 1), (m, n) -> (m, n, 1))."""
    return _atleast_api(tensors, 3)


def _nonempty(tensors, name):
    if _C._is_tensor(tensors) or type(tensors).__name__ == "BatchedTensor":  # a tensor is not a sequence here
        raise TypeError(f"{name}(): argument 'tensors' (position 1) must be tuple of Tensors, not Tensor")
    tensors = list(tensors)
    if not tensors:
        raise RuntimeError(f"{name} expects a non-empty TensorList")
    return tensors


def hstack(tensors, *, out=None):
    """Concatenates along dim 1 (dim 0 for 1-d tensors), as numpy.hstack."""
    ts = _atleast(_nonempty(tensors, "hstack"), 1)
    return (
        _C.cat(ts, 0 if ts[0].dim() == 1 else 1, out=out)
        if out is not None
        else _C.cat(ts, 0 if ts[0].dim() == 1 else 1)
    )


def vstack(tensors, *, out=None):
    """Concatenates along dim 0 after making every tensor at least 2-d, as numpy.vstack."""
    ts = _atleast(_nonempty(tensors, "vstack"), 2)
    return _C.cat(ts, 0) if out is None else _C.cat(ts, 0, out=out)


def row_stack(tensors, *, out=None):
    """Alias of vstack."""
    return vstack(tensors, out=out)


def dstack(tensors, *, out=None):
    """Concatenates along dim 2 after making every tensor at least 3-d, as numpy.dstack."""
    ts = _atleast(_nonempty(tensors, "dstack"), 3)
    return _C.cat(ts, 2) if out is None else _C.cat(ts, 2, out=out)


def column_stack(tensors, *, out=None):
    """Stacks 0-d and 1-d tensors as columns and concatenates the rest along dim 1, as numpy.column_stack."""
    ts = [t.reshape(-1, 1) if t.dim() <= 1 else t for t in _nonempty(tensors, "column_stack")]
    return _C.cat(ts, 1) if out is None else _C.cat(ts, 1, out=out)


def concatenate(tensors, dim=0, *, out=None, axis=None):
    """Alias of cat; NumPy's `axis` is accepted for dim, as PyTorch's parser does."""
    if axis is not None:
        dim = axis
    return _C.cat(tensors, dim) if out is None else _C.cat(tensors, dim, out=out)


# ---- diagonals


@_argcheck.parses("Tensor input, int offset=0, int dim1=-2, int dim2=-1")
def diag_embed(input, offset=0, dim1=-2, dim2=-1):
    """A tensor whose (dim1, dim2) diagonals at `offset` hold the last dim of `input`, zeros elsewhere."""
    # the parser passes a 0-d integer tensor through: its number, not uint8 arithmetic (255 + 2 wrapped)
    offset, dim1, dim2 = (v.item() if isinstance(v, _C.Tensor) else v for v in (offset, dim1, dim2))
    nd = input.dim() + 1
    d1, d2 = _wrap(dim1, nd), _wrap(dim2, nd)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    length = input.shape[-1] if input.dim() else 1
    src = input if input.dim() else input.reshape(1)
    batch = list(src.shape[:-1])
    n = length + abs(offset)
    if not (_C.is_grad_enabled() and input.requires_grad):
        # PyTorch's kernel: a contiguous zero-filled result (fresh zero pages here), the diagonal written
        # through a view; the catenation below (differentiable) wrote the whole result three times (256x256
        # float64 into 128 MiB: 256 ms against PyTorch's 83)
        sizes = list(batch)
        sizes.insert(min(d1, d2), n)
        sizes.insert(max(d1, d2), n)
        out = src.new_zeros(sizes)
        with _C._fresh_writes:  # the write that builds the result leaves its version at 0, as PyTorch's
            out.diagonal(offset, d1, d2).copy_(src)
        return out
    # Entry i of the diagonal sits at flat position i*(n+1) + lead in the n-by-n block: interleave each value
    # with n zeros, shift by `lead` zeros and cut to n*n, so cat and views alone build it (autograd included).
    lead = offset if offset >= 0 else -offset * n
    z = src.new_zeros(batch + [length, n])
    rows = _C.cat([src.unsqueeze(-1), z], -1).reshape(batch + [length * (n + 1)])
    total = lead + length * (n + 1)
    parts = [src.new_zeros(batch + [lead]), rows]
    if total < n * n:
        parts.append(src.new_zeros(batch + [n * n - total]))
    flat = _C.cat(parts, -1).narrow(-1, 0, n * n)
    mat = flat.reshape(batch + [n, n])
    return mat.movedim([nd - 2, nd - 1], [d1, d2])


@_argcheck.parses("Tensor input, int diagonal=0, *, Tensor? out=None", upfront=False)
def diag(input, diagonal=0, *, out=None):
    """A 1-d input as the `diagonal`-th diagonal of a square matrix; of a 2-d input, a copy of that diagonal;
    out=: PyTorch's exact dtype rule."""
    if input.dim() == 1:
        r = diag_embed(input, diagonal)
    elif input.dim() == 2:
        r = input.diagonal(diagonal).clone()
    else:  # PyTorch's diag_out words it without the prefix
        raise RuntimeError(
            f"{'' if out is not None else 'diag(): '}Supports 1D or 2D tensors. Got {input.dim()}D"
        )
    return write_out(r, out)  # PyTorch differentiates diag as a composite: out joins the graph


@_argcheck.parses("int diagonal=0", name="diag", method=True, upfront=False)
def _diag_method(self, diagonal=0):
    """Tensor.diag: no out= (PyTorch's method takes none)."""
    return diag(self, diagonal)


def diagflat(input, offset=0):
    """The flattened input as the `offset`-th diagonal of a square matrix."""
    return diag_embed(input.reshape(-1), offset)


_trace = _C._trace


@_argcheck.checks_own_arguments
def trace(input):
    """Sum of the main diagonal of a matrix."""
    # the check only once the kernel refused, not the translating wrapper's (which passed on _trace's own name in
    # the TypeError); _trace refuses bool before the rank, as PyTorch's kernel
    try:
        return _trace(input)
    except TypeError:
        if isinstance(input, _C.Tensor):
            raise
    _argcheck.check_tensor("trace", "input", 1, input)


# ---- splits


def _np_split(input, sections, dim, name, min_dims):
    if input.dim() < min_dims:
        raise RuntimeError(
            f"torch.{name} requires a tensor with at least {min_dims} dimension, but got a tensor with "
            f"{input.dim()} dimensions!"
        )
    is_int = type(sections) is int  # (the common calls, an int or a tuple or list of indices, without the
    if not is_int and type(sections) not in (tuple, list):  # tensor and ABC tests: 1.3 us of a 2 us split)
        if _C._is_tensor(sections) and sections.dim():
            raise TypeError("sections: a tensor with dims")  # no signature's: the parser check words it
        is_int = isinstance(sections, numbers.Integral)
        if not is_int and _argcheck._int_like(sections, True):  # a 0-d integer tensor is the int overload's
            sections, is_int = int(sections), True
    if is_int:
        n = input.size(dim)
        if sections == 0 or n % sections:
            raise RuntimeError(
                f"torch.{name} attempted to split along dimension {dim}, but the size of the dimension {n} is "
                f"not divisible by the split_size {sections}!"
            )
    try:
        return _C.tensor_split(input, sections, dim)
    except TypeError as e:  # an index past int64: the unpacking's error, in the split's own name
        if not str(e).startswith("tensor_split(): argument 'indices' failed to unpack"):
            raise
        raise TypeError(name + str(e)[len("tensor_split") :]) from None


_NP_SPLIT = ("Tensor input, int sections", "Tensor input, int[] indices")
_NO_SPLIT = object()  # which of PyTorch's two overloads took the call: sections= or indices= by keyword


# PyTorch's two C++ overloads, by position or by their keyword names (parsed first: no indices_or_sections=)
@_argcheck.parses(*_NP_SPLIT)
def hsplit(input, sections=_NO_SPLIT, indices=_NO_SPLIT):
    """Splits along dim 1 (dim 0 for 1-d tensors); an int must divide that dim evenly."""
    how = indices if sections is _NO_SPLIT else sections
    return _np_split(input, how, 1 if input.dim() > 1 else 0, "hsplit", 1)


@_argcheck.parses(*_NP_SPLIT)
def vsplit(input, sections=_NO_SPLIT, indices=_NO_SPLIT):
    """Splits a tensor of at least 2 dims along dim 0; an int must divide that dim evenly."""
    return _np_split(input, indices if sections is _NO_SPLIT else sections, 0, "vsplit", 2)


@_argcheck.parses(*_NP_SPLIT)
def dsplit(input, sections=_NO_SPLIT, indices=_NO_SPLIT):
    """Splits a tensor of at least 3 dims along dim 2; an int must divide that dim evenly."""
    return _np_split(input, indices if sections is _NO_SPLIT else sections, 2, "dsplit", 3)


# ---- dims


@_argcheck.checks_own_arguments
def ravel(input):
    """The tensor flattened to 1-d (a view when it can be)."""
    if isinstance(input, _C.Tensor):
        return input.reshape(-1)
    _argcheck.check_tensor("ravel", "input", 1, input)


def msort(input):
    """`input` sorted along dim 0 (values only)."""
    return input.sort(0)[0]


def argwhere(input):
    """Indices of the non-zero elements, one row each (same as nonzero)."""
    return input.nonzero()


# ---- gathers


def _broadcast_sizes(a, b):
    """The broadcast of shapes a and b (right-aligned), refused in ATen's infer_size wording (one helper for
    _composite_math's composites and the torch-level BCE-with-logits)."""
    n = max(len(a), len(b))
    a, b = [1] * (n - len(a)) + list(a), [1] * (n - len(b)) + list(b)
    shape = [0] * n
    for d in range(n - 1, -1, -1):  # from the last dim, as infer_size: the trailing-most mismatch is reported
        x, y = a[d], b[d]
        if x != y and x != 1 and y != 1:
            raise RuntimeError(
                f"The size of tensor a ({x}) must match the size of tensor b ({y}) at non-singleton dimension {d}"
            )
        shape[d] = y if x == 1 else x
    return shape


def unravel_index(indices, shape):
    """The coordinates in a tensor of `shape` of each flat index, as a tuple of tensors shaped like indices."""
    if not isinstance(indices, _C.Tensor):  # PyTorch's Python function reads indices.is_complex() first
        raise AttributeError(  # noqa: TRY004 - PyTorch's error here is Python's AttributeError
            f"'{type(indices).__name__}' object has no attribute 'is_complex'"
        )
    if indices.is_floating_point() or indices.dtype == _C.bool:
        raise TypeError(f"expected 'indices' to be integer dtype, but got {indices.dtype}")
    if _C._is_tensor(shape):
        raise TypeError("expected 'shape' to be int or sequence of ints, but got <class 'torch.Tensor'>")
    shape = _as_dims(shape)
    if any(s < 0 for s in shape):
        raise ValueError(f"'shape' cannot have negative values, but got {tuple(shape)}")
    if indices.numel() and 0 in shape:
        raise ValueError(
            f"'shape' cannot have zero dimensions when 'indices' is non-empty, but got {tuple(shape)}"
        )
    idx = indices.long()
    out = []
    for s in reversed(shape):
        out.append(idx.remainder(s) if s else idx)
        idx = idx.div(s, rounding_mode="floor") if s else idx
    return tuple(reversed(out))


def _tensors_result_type(*tensors):
    """PyTorch's result_type of several tensors: the dimensioned ones' promoted dtype, widened by the 0-dim
    ones' only when theirs is of a higher kind (combine_categories)."""
    dim_dt = zero_dt = None
    for t in tensors:
        if t.dim() > 0:
            dim_dt = t.dtype if dim_dt is None else _C.promote_types(dim_dt, t.dtype)
        else:
            zero_dt = t.dtype if zero_dt is None else _C.promote_types(zero_dt, t.dtype)
    if dim_dt is None or zero_dt is None:
        return dim_dt or zero_dt
    if dim_dt.is_complex or dim_dt.is_floating_point:
        return _C.promote_types(dim_dt, zero_dt) if zero_dt.is_complex else dim_dt
    if dim_dt == _C.bool or zero_dt.is_floating_point or zero_dt.is_complex:
        return _C.promote_types(dim_dt, zero_dt)
    return dim_dt


def block_diag(*tensors):
    """Block-diagonal matrix of 0-, 1- or 2-d tensors (0-d is 1x1, 1-d a row), promoted to their common dtype."""
    _argcheck.check_tensor_list(tensors, 0)
    mats = []
    for i, t in enumerate(tensors):
        if t.dim() > 2:
            raise RuntimeError(
                f"torch.block_diag: Input tensors must have 2 or fewer dimensions. Input {i} has {t.dim()} dimensions"
            )
        mats.append(t.reshape(1, -1) if t.dim() < 2 else t)
    if not mats:
        return _C.empty(1, 0)
    # PyTorch's result_type: a 0-d float32 joins float16 blocks as float16
    dtype = _tensors_result_type(*tensors)
    dev = mats[0].device
    if builtins.all(m.device == dev for m in mats) and not (
        _C.is_grad_enabled() and builtins.any(m.requires_grad for m in mats)
    ):
        # PyTorch's kernel: one zero-filled result, each block copied into its place (converted on the way);
        # the catenated rows below (differentiable, batched for vmap) ran at a third of its speed
        size = (builtins.sum(m.shape[0] for m in mats), builtins.sum(m.shape[1] for m in mats))
        if len(mats) <= 4 and builtins.all(m.shape[0] * m.shape[1] >= 16384 for m in mats):
            # few large blocks: each block row is its block and zeros beside it, nothing written twice (one
            # block is one copy; the zero fill under it was a fifth of block_diag(x) at 256x256); small blocks
            # keep the one fill, cheaper than the zero_ calls beside each
            out = _C.empty(size, dtype=dtype, device=dev)
            r = c = 0
            with _C._fresh_writes:  # the writes that build the result leave its version at 0, as PyTorch's
                for m in mats:
                    h, w = m.shape
                    if h:
                        band = out.narrow(0, r, h)
                        if c:
                            band.narrow(1, 0, c).zero_()
                        if w:
                            band.narrow(1, c, w).copy_(m)
                        if size[1] - c - w:
                            band.narrow(1, c + w, size[1] - c - w).zero_()
                    r, c = r + h, c + w
            return out
        out = _C.zeros(size, dtype=dtype, device=dev)
        r = c = 0
        with _C._fresh_writes:
            for m in mats:
                h, w = m.shape
                if h and w:
                    out.narrow(0, r, h).narrow(1, c, w).copy_(m)
                r, c = r + h, c + w
        return out
    return _block_diag_of([m.to(dtype) for m in mats])


def _block_diag_of(mats, cat=_C.cat):
    """The block-diagonal matrices (..., R, C) of matrices (..., r, w) sharing their leading dims and dtype: each
    block row is zeros, the block, zeros, catenated along the last dim. vmap's rule runs it once on the whole
    batch, passing a `cat` that takes tensors batched at an outer level."""
    lead = tuple(mats[0].shape[:-2])
    ncols = builtins.sum(m.shape[-1] for m in mats)
    rows, c = [], 0
    for m in mats:
        r, w = m.shape[-2:]
        rows.append(cat([m.new_zeros((*lead, r, c)), m, m.new_zeros((*lead, r, ncols - c - w))], -1))
        c += w
    return cat(rows, -2)


# ---- products


def kron(input, other):
    """Kronecker product: blocks input[i] * other laid out over a grid shaped like input."""
    # the dims interleaved (a0, b0, a1, b1, ...): one broadcast multiply and one reshape lay out the blocks, in
    # one C++ call (ops/linalg.cpp; the five calls from Python were 0.5-0.65 of PyTorch's speed at 8x8)
    return _C._kron(input, other)


_TENSORDOT_OUT = "tensordot: Expected the output tensor to have dtype {expected}, but got an output tensor with dtype {got}"


# _VF.tensordot, which PyTorch's Python tensordot hands its dim lists to by position
_TENSORDOT_DIMS = ["Tensor input, Tensor other, int[] dims_self, int[] dims_other"]


@_argcheck.python_in_pytorch
def tensordot(a, b, dims=2, out=None):
    """Sums the products of a and b over the last `dims` dims of a and the first of b, or over the dim lists
    dims=(dims_a, dims_b)."""
    if isinstance(
        dims, _C.Tensor
    ):  # PyTorch's reading: one element is a count, else rows dims[0] and dims[1]
        if dims.numel() > 1:
            if dims.shape[0] != 2:
                raise AssertionError(f"dims tensor must have size 2 in first dimension, got {dims.shape[0]}")
            dims = (dims[0].tolist(), dims[1].tolist())
        else:
            count = int(dims.item())
            if count < 0:
                raise RuntimeError(f"tensordot expects dims >= 0, but got dims={dims}")
            dims = (list(range(-count, 0)), list(range(count)))
    if not isinstance(dims, (numbers.Integral, list, tuple)):
        raise RuntimeError(  # noqa: TRY004 - PyTorch raises RuntimeError here
            "tensordot expects dims to be int or tuple[list[int], list[int]] or list[list[int]] containing two "
            f"lists, but got dims={dims}"
        )
    if isinstance(dims, numbers.Integral):
        if dims < 0:
            raise RuntimeError(f"tensordot expects dims >= 0, but got dims={dims}")
        if dims > min(a.dim(), b.dim()):
            raise RuntimeError(f"tensordot expects dims < ndim_a or ndim_b, but got dims={dims}")
        da, db = list(range(a.dim() - dims, a.dim())), list(range(dims))
    else:
        da, db = dims
        _argcheck.check_call("tensordot", _TENSORDOT_DIMS, (a, b, da, db), {}, positional=True)
        da, db = _as_dims(da), _as_dims(db)
    if len(da) != len(db):
        raise RuntimeError("both dimension lists should have same length")
    if a.dtype != b.dtype:
        raise RuntimeError("both inputs should have same dtype")
    da = [_wrap(d, a.dim()) for d in da]
    db = [_wrap(d, b.dim()) for d in db]
    for x, y in zip(da, db):
        # a size-1 side broadcasts: the other side is summed over that dim first, as PyTorch's tensordot
        if b.shape[y] == 1 and a.shape[x] != 1:
            a = a.sum(x, keepdim=True, dtype=a.dtype)
        elif a.shape[x] == 1 and b.shape[y] != 1:
            b = b.sum(y, keepdim=True, dtype=b.dtype)
        elif a.shape[x] != b.shape[y]:
            raise RuntimeError(
                f"contracted dimensions need to match, but first has size {a.shape[x]} in dim {x} and second has "
                f"size {b.shape[y]} in dim {y}"
            )
    fa = [d for d in range(a.dim()) if d not in da]
    fb = [d for d in range(b.dim()) if d not in db]
    k = 1
    for d in da:
        k *= a.shape[d]
    # the free sizes spelled out: a -1 cannot be inferred when the contracted size is 0
    m, n = math.prod(a.shape[d] for d in fa), math.prod(b.shape[d] for d in fb)
    am = a.permute(fa + da).reshape(m, k)
    bm = b.permute(db + fb).reshape(k, n)
    # one output element is PyTorch's dot of the two flattened operands (its dtype check, an empty one's too)
    prod = _C.dot(am.reshape(k), bm.reshape(k)) if m == 1 and n == 1 else _C.matmul(am, bm)
    res = prod.reshape([a.shape[d] for d in fa] + [b.shape[d] for d in fb])
    return write_out(res, out, None, dtype_error=_TENSORDOT_OUT)


def inner(input, other):
    """Dot products over the last dims of both (a plain product when either is 0-d)."""
    _argcheck.check_tensor("inner", "input", 1, input)
    _argcheck.check_tensor("inner", "other", 2, other)
    if input.dim() == 0 or other.dim() == 0:
        return input * other
    if input.shape[-1] != other.shape[-1]:
        raise RuntimeError(
            "inner() the last dimension must match on both input tensors but got shapes "
            f"{list(input.shape)} and {list(other.shape)}"
        )
    if input.dtype == other.dtype and input.dim() == other.dim() == 2 and input.shape[0] * other.shape[0] > 1:
        # the product tensordot forms for two matrices (its views of them: input, other.t()), without its
        # dim lists: 12.7 us against PyTorch's 4 on 8x8 inputs
        return _C.matmul(input, other.t())
    return tensordot(input, other, ([-1], [-1]))


def vdot(input, other):
    """Dot product of two 1-d tensors with the first conjugated (dot for real tensors)."""
    if input.dim() != 1 or other.dim() != 1:
        raise RuntimeError(f"1D tensors expected, but got {input.dim()}D and {other.dim()}D tensors")
    if input.is_complex() and input.dtype == other.dtype:
        input = _C.conj(input)
    return _C.dot(input, other)


def cross(input, other, dim=None, *, out=None):
    """Cross product of 3-vectors along `dim` (when None, the first dim of size 3), inputs broadcast."""
    return _cross(input, other, dim, out)


def _cross(input, other, dim, out):
    """torch.cross and Tensor.cross (one frame below either: the dim warning names the user's line)"""
    if dim is not None and (isinstance(dim, bool) or not isinstance(dim, (numbers.Integral, _C.Tensor))):
        raise TypeError(f"cross(): argument 'dim' (position 3) must be int, not {type(dim).__name__}")
    if input.dim() != other.dim():
        raise RuntimeError("linalg.cross: inputs must have the same number of dimensions.")
    if dim is None:
        _switches.warn_once(
            "cross_dim",
            "Using torch.cross without specifying the dim arg is deprecated.\nPlease either pass the dim explicitly "
            "or simply use torch.linalg.cross.\nThe default value of dim will change to agree with that of "
            "linalg.cross in a future release.",
            stacklevel=5,  # the user's call, through cross (or the method) and _argcheck's wrapper
        )
        sizes = list(_functional.broadcast_shapes(input.shape, other.shape))
        if 3 not in sizes:
            raise RuntimeError("no dimension of size 3 in input")
        dim = sizes.index(3)
    d = _wrap(dim, input.dim())
    if input.shape[d] != 3 or other.shape[d] != 3:
        raise RuntimeError(
            f"linalg.cross: inputs dimension {dim} must have length 3. Got {input.shape[d]} and {other.shape[d]}"
        )
    _check_pair(input.shape, other.shape)
    if input.dtype == _C.bool:  # PyTorch's kernel dispatches on input's dtype before reading other in it
        raise NotImplementedError("\"cross\" not implemented for 'Bool'")
    if input.dtype != other.dtype:  # PyTorch's cross kernel takes one dtype
        raise RuntimeError(
            f"expected scalar type {_scalar_name(input.dtype)} but found {_scalar_name(other.dtype)}"
        )
    return cross_product(input, other, d, out)


def cross_product(input, other, d, out):
    """The cross product along the wrapped dim d of checked inputs (torch.cross's and torch.linalg.cross's
    common end): the CPU's kernel, out written (returned) or a fresh result; else (a device without the kernel,
    or tensors autograd or __torch_function__ must see) the formula over the three components"""
    r = _C._linalg_cross(input, other, d, out)
    if r is None:
        a0, a1, a2 = (input.narrow(d, i, 1) for i in range(3))
        b0, b1, b2 = (other.narrow(d, i, 1) for i in range(3))
        r = _C.cat([a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0], d)
    return r if r is out else write_out(r, out, "linalg_cross")


@_argcheck.parses("Tensor other, int? dim=None", name="cross", method=True, upfront=False)
def _cross_method(self, other, dim=None):
    """Tensor.cross: no out= (PyTorch's method takes none)."""
    return _cross(self, other, dim, None)


@_argcheck.parses("Tensor input, int n=1, int dim=-1, Tensor? prepend=None, Tensor? append=None")
def diff(input, n=1, dim=-1, prepend=None, append=None):
    """n-th forward difference along `dim`, after concatenating `prepend` and `append` (logical xor for bool)."""
    if input.dim() == 0:
        raise RuntimeError("diff expects input to be at least one-dimensional")
    if n < 0:
        raise RuntimeError(f"order must be non-negative but got {n}")
    if (
        n == 0
    ):  # PyTorch's: a copy of input, prepend and append unused (only dim checked, where they are given)
        if prepend is not None or append is not None:
            _wrap(dim, input.dim())
        return input.clone()
    d = _wrap(dim, input.dim())
    parts = [p for p in (prepend, input, append) if p is not None]
    if len(parts) > 1:
        shape = list(input.shape)
        parts = [p if p.dim() else p.expand(*(shape[:d] + [1] + shape[d + 1 :])) for p in parts]
        x = _C.cat(parts, d)
    else:
        x = input
    for _ in range(n):
        m = x.shape[d]
        if m == 0:
            break
        hi, lo = x.narrow(d, 1, m - 1), x.narrow(d, 0, m - 1)
        x = hi.logical_xor(lo) if x.dtype == _C.bool else hi - lo
    return x


def _gradient_dims(input, spacing, dim, edge_order):
    """gradient's checks in PyTorch's order; the dims (wrapped) and the spacing, one entry per dim."""
    if input.dtype == _C.uint8:
        raise NotImplementedError("torch.gradient does not support uint8 input.")
    if spacing is None:
        given = None
    elif isinstance(spacing, (list, tuple)):
        given = len(spacing)
    else:  # one number (or a 0-dim tensor) for every dim
        given = None
    dims = None if dim is None else ([dim] if isinstance(dim, int) else list(dim))
    if given is not None and dims is None and given != input.dim():
        raise RuntimeError(
            "torch.gradient expected spacing to be unspecified, a scalar, or a list of length equal to "
            f"'self.dim() = {input.dim()}', since dim argument was not given, but got a list of length {given}"
        )
    if given is not None and dims is not None and given != len(dims):
        raise RuntimeError(
            "torch.gradient expected spacing to be unspecified, a scalar or it's spacing and dim arguments to have "
            f"the same length, but got a spacing argument of length {given} and a dim argument of length "
            f"{len(dims)}."
        )
    if edge_order not in (1, 2):
        raise RuntimeError("torch.gradient only supports edge_order=1 and edge_order=2.")
    if dims is None:
        dims = list(range(input.dim()))
    else:
        dims = [_wrap(d, input.dim()) for d in dims]
        for d in dims:
            if dims.count(d) > 1:
                raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
    for d in dims:
        if input.shape[d] < edge_order + 1:
            raise RuntimeError("torch.gradient expected each dimension size to be at least edge_order+1")
    if spacing is None:
        spacing = [1] * len(dims)
    elif not isinstance(spacing, (list, tuple)):
        spacing = [spacing] * len(dims)
    return dims, list(spacing)


def _sl(x, d, start, stop=None):
    n = x.shape[d]
    stop = n if stop is None else (stop if stop >= 0 else n + stop)
    start = start if start >= 0 else n + start
    return x.narrow(d, start, stop - start)


def gradient(input, *, spacing=None, dim=None, edge_order=1):
    """Central differences in the interior and one-sided ones (first or second order) at the ends, one result
    per dim; spacing a number, one number per dim, or one tensor of coordinates per dim (PyTorch's formulas)."""
    # a list starting with a tensor is the coordinates form (each a 1-D tensor), as PyTorch's Tensor[] overload
    coords = isinstance(spacing, (list, tuple)) and len(spacing) > 0 and isinstance(spacing[0], _C.Tensor)
    if coords:
        for i, h in enumerate(spacing):
            if not isinstance(h, _C.Tensor):
                raise TypeError(f"expected Tensor as element {i} in argument 1, but got {type(h).__name__}")
    dims, spacing = _gradient_dims(input, spacing, dim, edge_order)
    out = []
    for d, h in zip(dims, spacing):
        if coords:
            if h.device != input.device:
                raise RuntimeError(
                    "torch.gradient expected each tensor to be on the same device, but got devices "
                    f"{input.device} and {h.device}!"
                )
            if h.dim() != 1:
                raise RuntimeError(
                    "torch.gradient expected each element of spacing to have one dimension, but got an element "
                    f"with {h.dim()} dimensions!"
                )
            shape = [1] * input.dim()
            shape[d] = -1
            dx = diff(h)
            dx1, dx2 = _sl(dx, 0, 0, -1), _sl(dx, 0, 1)
            a = (-dx2 / (dx1 * (dx1 + dx2))).reshape(shape)
            b = ((dx2 - dx1) / (dx1 * dx2)).reshape(shape)
            c = (dx1 / (dx2 * (dx1 + dx2))).reshape(shape)
            center = a * _sl(input, d, 0, -2) + b * _sl(input, d, 1, -1) + c * _sl(input, d, 2)
            h0, h1, hl, hm = (
                dx[0],
                dx[1] if dx.shape[0] > 1 else dx[0],
                dx[-1],
                dx[-2] if dx.shape[0] > 1 else dx[-1],
            )
            if edge_order == 1:
                first = (_sl(input, d, 1, 2) - _sl(input, d, 0, 1)) / h0
                last = (_sl(input, d, -1) - _sl(input, d, -2, -1)) / hl
            else:
                first = (
                    -(2.0 * h0 + h1) / (h0 * (h0 + h1)) * _sl(input, d, 0, 1)
                    + (h0 + h1) / (h0 * h1) * _sl(input, d, 1, 2)
                    + (-h0) / (h1 * (h0 + h1)) * _sl(input, d, 2, 3)
                )
                last = (
                    hl / (hm * (hl + hm)) * _sl(input, d, -3, -2)
                    + -(hl + hm) / (hl * hm) * _sl(input, d, -2, -1)
                    + (2 * hl + hm) / (hl * (hl + hm)) * _sl(input, d, -1)
                )
        else:
            center = (_sl(input, d, 2) - _sl(input, d, 0, -2)) / h / 2
            if edge_order == 1:
                first = (_sl(input, d, 1, 2) - _sl(input, d, 0, 1)) / h
                last = (_sl(input, d, -1) - _sl(input, d, -2, -1)) / h
            else:
                first = (_sl(input, d, 0, 1) * -1.5 + _sl(input, d, 1, 2) * 2 - _sl(input, d, 2, 3) * 0.5) / h
                last = (
                    _sl(input, d, -3, -2) * 0.5 + _sl(input, d, -2, -1) * -2 + _sl(input, d, -1) * 1.5
                ) / h
        out.append(_C.cat([first, center, last], d))
    return tuple(out)


@_argcheck.parses("Tensor x, SymInt? N=None, bool increasing=False")
def vander(x, N=None, increasing=False):
    """The Vandermonde matrix of a 1-D x: columns x**(N-1) ... x**0 (x**0 ... when increasing); integer inputs
    give int64, as PyTorch's."""
    if x.dim() != 1:
        raise RuntimeError("x must be a one-dimensional tensor.")
    n = x.shape[0] if N is None else N
    if n < 0:
        raise RuntimeError("N must be non-negative.")
    if not (x.is_floating_point() or x.is_complex()):
        x = x.to(_C.int64)
    if n <= 1:  # PyTorch's ones, without x's history (its powers are written only when n > 1)
        return _C.ones(x.shape[0], n, dtype=x.dtype, device=x.device)
    # x**0 then the running products x, x*x, ... (cumprod multiplies left to right, as PyTorch's vander does)
    powers = _C.cat([_C.ones_like(x).unsqueeze(1), x.unsqueeze(1).expand(x.shape[0], n - 1).cumprod(1)], 1)
    return powers if increasing else powers.flip(1)


def chain_matmul(*matrices, out=None):
    """Deprecated: the product of the matrices (linalg.multi_dot)."""
    warnings.warn(
        "torch.chain_matmul is deprecated and will be removed in a future PyTorch release. Use "
        "torch.linalg.multi_dot instead, which accepts a list of two or more tensors rather than multiple "
        "parameters.",
        UserWarning,
        stacklevel=2,
    )
    _argcheck.check_tensor_list(matrices, 0)
    if len(matrices) == 0:
        raise RuntimeError("chain_matmul(): Expected one or more matrices")
    if len(matrices) == 1:
        if matrices[0].dim() != 2:
            raise RuntimeError(f"Tensor dimension is {matrices[0].dim()}, expected 2 instead.")
        result = matrices[0].clone()
    else:
        result = matrices[0]
        for m in matrices[1:]:
            if result.dim() != 2 or m.dim() != 2:
                bad = result if result.dim() != 2 else m
                raise RuntimeError(f"chain_matmul(): Tensor dimension is {bad.dim()}, expected 2 instead.")
            result = _C.mm(result, m)
    return write_out(
        result,
        out,
        "mm",
        dtype_error="multi_dot(): expected out tensor to have dtype {expected_cpp} but got {got_cpp}",
    )


# ---- index_add (index_copy / index_fill are C++ ops, ops/index.cpp)


def _bounds_error(self, d, index):
    """PyTorch's bounds error of index_add (no negative indices), naming the first bad index; None when every
    index is in range. Called only where a bad index is known or likely."""
    n = self.shape[d] if self.dim() else 1
    bad = (index < 0) | (index >= n)
    if not bad.any():
        return None
    i = int(index.reshape(-1)[bad.reshape(-1)][0])
    if self.dim() <= 1:
        return IndexError("index out of range in self")
    return RuntimeError(f"index {i} is out of bounds for dimension {d} with size {n}")


def _put_along(self, d, index, values, accumulate):
    """_index_put_dim with index_add's bounds errors: index_put wraps negative indices, which index_add refuses
    (one min() per call finds them), and names the moved dim in its own error."""
    if index.numel() and index.device.type == "cpu" and int(index.min()) < 0:
        raise _bounds_error(self, d, index)
    try:
        return _index_put_dim(self, d, index, values, accumulate)
    except IndexError:
        err = _bounds_error(self, d, index)
        if err is None:
            raise
        raise err from None


def _index_put_dim(self, d, index, values, accumulate):
    """self with values written (or added) at `index` along dim d: index_put on dim d moved to the front."""
    if self.dim() == 0:
        return (
            self.reshape(1).index_put((index.reshape(-1).long(),), values.reshape(1), accumulate).reshape(())
        )
    x = self.movedim(d, 0) if d else self
    v = values.movedim(d, 0) if d and values.dim() else values
    out = x.index_put((index.reshape(-1).long(),), v, accumulate)
    return out.movedim(0, d) if d else out


_INDEX_ADD_SIG = "int dim, Tensor index, Tensor source, *, Scalar alpha=1"
_INDEX_REDUCE_SIG = "int dim, Tensor index, Tensor source, str reduce, *, bool include_self=True"


@_argcheck.parses(f"Tensor input, {_INDEX_ADD_SIG}, Tensor? out=None", upfront=False)
def index_add(input, dim, index, source, *, alpha=1, out=None):
    """`input` plus alpha * source added at `index` along `dim` (repeated indices accumulate); out=: PyTorch's
    exact dtype rule."""
    d = _check_index_add(input, dim, index, source)
    if not input.is_floating_point() and input.dtype != _C.bool and isinstance(alpha, float):
        alpha = int(alpha)  # PyTorch casts alpha to an integer dtype (1.5 adds source once)
    # PyTorch's kernel adds nothing, and so checks no index, where there is nothing to add to or from (the
    # 1-D path alone reads every index)
    if index.numel() == 0 or (input.dim() > 1 and (input.numel() == 0 or source.numel() == 0)):
        r = input.clone()
        if source.requires_grad and _C.is_grad_enabled():
            # source stays in the graph (its gradient: zeros), as PyTorch's node keeps it; x - (+0.0) is x for
            # every x, -0.0 and NaN included
            r = r - source.reshape(-1)[:0].sum()
    else:
        r = _put_along(input, d, index, source * alpha if alpha != 1 else source, True)
    return write_out(r, out, "index_add")


@_argcheck.parses(_INDEX_ADD_SIG, name="index_add", method=True, upfront=False)
def _index_add_method(self, dim, index, source, *, alpha=1):
    """Tensor.index_add: no out= (PyTorch's method takes none)."""
    return index_add(self, dim, index, source, alpha=alpha)


def _check_index_add(self, dim, index, source):
    """index_add's checks in PyTorch's order (its meta function): the dim, the index's rank and dtype, the
    dtypes, source's dim, the number of indices, then the shapes but the dim (a 0-dim tensor's all of it)."""
    d = _wrap(dim, self.dim())
    if index.dim() > 1:
        raise IndexError(
            f"index_add_(): Index is supposed to be a vector, but got dim: {index.dim()} with type: "
            f"{_scalar_name(index.dtype)} and size: {list(index.shape)}"
        )
    if index.dtype not in (_C.int64, _C.int32):
        raise RuntimeError(
            f"index_add_(): Expected dtype int32/int64 for index but got: {_scalar_name(index.dtype)}"
        )
    if source.dtype != self.dtype:
        raise RuntimeError(
            f"index_add_(): self ({_scalar_name(self.dtype)}) and source ({_scalar_name(source.dtype)}) must "
            "have the same scalar type"
        )
    if d != 0 and d >= source.dim():
        raise RuntimeError(
            f"index_add_(): Indexing dim {d} is out of bounds of the source tensor with dim {source.dim()}"
        )
    n = 1 if source.dim() == 0 else source.shape[d]
    if index.numel() != n:
        raise RuntimeError(
            f"index_add_(): Number of indices ({index.numel()}) should be equal to source.size(dim): ({n}), "
            f"for dim: {d}"
        )
    xs, ss = list(self.shape), list(source.shape)
    if self.dim() and source.dim():
        del xs[d], ss[d]
    if xs != ss:
        raise RuntimeError(
            "source tensor shape must match self tensor shape, excluding the specified dimension. Got self.shape = "
            f"{list(self.shape)} source.shape = {list(source.shape)}"
        )
    return d


def _inplace(self, result):
    # write the composed result back into self's storage: copy_ records the new value's history on self, so
    # autograd sees self replaced by result (whose graph already holds self's old value)
    self.copy_(result)
    return self


@_argcheck.parses(_INDEX_ADD_SIG, method=True, upfront=False)
def index_add_(self, dim, index, source, *, alpha=1):
    """In-place index_add."""
    return _inplace(self, index_add(self, dim, index, source, alpha=alpha))


# ---- windows and scatters


@_argcheck.parses("int dimension, int size, int step", method=True)  # upfront: a 1-element size is refused
def unfold(self, dimension, size, step):
    """View of every length-`size` window along `dimension`, `step` apart, as a new last dim."""
    nd = self.dim()
    d = _wrap(dimension, nd)
    n = self.shape[d] if nd else 1
    if size < 0:
        raise RuntimeError(f"size is {size} but must be >= 0")
    if size > n:
        raise RuntimeError(f"maximum size for tensor at dimension {d} is {n} but size is {size}")
    if step <= 0:
        raise RuntimeError(f"step is {step} but must be > 0")
    if nd == 0:
        return self.reshape(1).narrow(0, 0, size)
    if not self.is_contiguous() and self.requires_grad and grad_mode.is_grad_enabled():
        # our as_strided has no backward for a non-contiguous base: window a contiguous copy instead
        self = self.contiguous()
    shape, stride = list(self.shape), list(self.stride())
    shape[d] = (n - size) // step + 1
    st = stride[d]
    stride[d] = st * step
    return self.as_strided(shape + [size], stride + [st], self.storage_offset())


def _check_slice_src(src, slice_shape):
    if list(src.shape) != list(slice_shape):
        raise RuntimeError(
            f"expected src to have a size equal to the slice of self. src size = {list(src.shape)}, slice size = "
            f"{list(slice_shape)}"
        )


def _no_integer_history(out, src):
    """PyTorch's set_history: a result of an integer or bool input whose src requires grad has no gradient to
    record, and PyTorch refuses it after computing it (slice_scatter's twin, derivatives.cpp, alike)"""
    if (
        src.requires_grad
        and not (out.is_floating_point() or out.is_complex())
        and grad_mode.is_grad_enabled()
    ):
        raise RuntimeError(f"Autograd not support dtype: {_scalar_name(out.dtype)}")
    return out


@_argcheck.parses("Tensor input, Tensor src, int dim, SymInt index")
def select_scatter(input, src, dim, index):
    """`input` with its slice input.select(dim, index) replaced by `src` (out of place)."""
    index = operator.index(index)  # a SymInt: also a one-element integer tensor
    d = _wrap(dim, input.dim())
    n = input.shape[d]
    if not -n <= index < n:
        raise IndexError(
            f"select(): index {index} out of range for tensor of size {list(input.shape)} at dimension {d}"
        )
    _check_slice_src(src, input.select(d, index).shape)
    i = index + n if index < 0 else index
    idx = _creation.tensor([i], device=input.device)
    return _no_integer_history(_index_put_dim(input, d, idx, src.unsqueeze(d).to(input.dtype), False), src)


@_argcheck.parses("Tensor input, Tensor src, SymInt[] size, SymInt[] stride, SymInt? storage_offset=None")
def as_strided_scatter(input, src, size, stride, storage_offset=None):
    """`input` with the elements of input.as_strided(size, stride, storage_offset) replaced by `src` (out of
    place: a clone, keeping input's layout, written through that strided view)."""
    out = input.clone()
    view = out.as_strided(size, stride, storage_offset)
    _check_slice_src(src, view.shape)
    with _C._fresh_writes:  # the write that builds the result leaves its version at 0, as PyTorch's
        view.copy_(src)
    return _no_integer_history(out, src)


def nonzero_static(input, *, size, fill_value=-1):
    """nonzero(input) cut or padded with rows of fill_value to exactly `size` rows (a shape fixed in advance)."""
    if not isinstance(size, numbers.Integral) or isinstance(size, builtins.bool) or size < 0:
        raise RuntimeError("nonzero_static: 'size' must be an non-negative integer")
    nz = _C.nonzero(input)
    n = nz.shape[0]
    if n >= size:
        return nz[:size].clone()
    pad = _C.full((size - n, nz.shape[1]), fill_value, dtype=_C.int64, device=input.device)
    return _C.cat([nz, pad], 0)


@_argcheck.parses("Tensor input, Tensor src, int offset=0, int dim1=0, int dim2=1", upfront=False)
def diagonal_scatter(input, src, offset=0, dim1=0, dim2=1):
    """`input` with its diagonal input.diagonal(offset, dim1, dim2) replaced by `src` (out of place)."""
    # the diagonal of a tensor of flat positions names the positions to write, so one index_put does it
    pos = _C.arange(input.numel(), device=input.device).view(input.shape).diagonal(offset, dim1, dim2)
    _check_slice_src(src, pos.shape)
    flat = input.reshape(-1).index_put((pos.reshape(-1),), src.reshape(-1).to(input.dtype))
    return _no_integer_history(flat.view(input.shape), src)


__all__ += [
    "argwhere",
    "as_strided_scatter",
    "atleast_1d",
    "atleast_2d",
    "atleast_3d",
    "block_diag",
    "broadcast_tensors",
    "broadcast_to",
    "cartesian_prod",
    "chain_matmul",
    "clone",
    "column_stack",
    "combinations",
    "concatenate",
    "cross",
    "diag",
    "diag_embed",
    "diagflat",
    "diagonal_scatter",
    "diff",
    "dsplit",
    "dstack",
    "flip",
    "fliplr",
    "flipud",
    "gradient",
    "hsplit",
    "hstack",
    "index_add",
    "inner",
    "kron",
    "meshgrid",
    "msort",
    "nonzero_static",
    "ravel",
    "rot90",
    "row_stack",
    "select_scatter",
    "tensordot",
    "tile",
    "trace",
    "unravel_index",
    "vander",
    "vdot",
    "vsplit",
    "vstack",
]

TENSOR_METHODS["broadcast_to"] = _broadcast_to_method
TENSOR_METHODS["diag"] = _diag_method
TENSOR_METHODS["index_add"] = _index_add_method
TENSOR_METHODS["cross"] = _cross_method
TENSOR_METHODS.update(
    {
        n: globals()[n]
        for n in [
            "as_strided_scatter",
            "nonzero_static",
            "flip",
            "fliplr",
            "flipud",
            "rot90",
            "diagflat",
            "diag_embed",
            "trace",
            "hsplit",
            "vsplit",
            "dsplit",
            "ravel",
            "msort",
            "argwhere",
            "kron",
            "inner",
            "vdot",
            "diff",
            "index_add_",
            "unfold",
            "select_scatter",
            "diagonal_scatter",
        ]
    }
)


# ---- scatter_reduce / index_reduce / put

_SCATTER_REDUCES = ("sum", "prod", "mean", "amax", "amin")


def _extreme_fill(dtype, is_max):
    """The identity of max (min): the lowest (highest) value of the dtype."""
    if dtype.is_floating_point:
        return -math.inf if is_max else math.inf
    if dtype == _C.bool:
        return not is_max
    info = np.iinfo(_dtype_name(dtype))  # the limits minitorch.iinfo reports
    return info.min if is_max else info.max


@functools.cache
def _scatter_extreme_function():
    """The autograd.Function below, made on first use."""

    class _ScatterExtreme(autograd.Function):
        """amax/amin through the scatter kernel (PutMode::amax/amin; NaN wins as in PyTorch), with PyTorch's
        gradient: shared evenly among the values (input's included) equal to each position's result."""

        @staticmethod
        def forward(ctx, input, src, index, d, is_max, include_self):
            base = (
                input.clone() if include_self else input.scatter(d, index, _extreme_fill(input.dtype, is_max))
            )
            out = _creation._C._scatter_extreme_(base, d, index, src, is_max)
            ctx.d, ctx.include_self = d, include_self
            ctx.save_for_backward(input, src, index, out)
            return out

        @staticmethod
        def backward(ctx, grad):
            input, src, index, out = ctx.saved_tensors
            d = ctx.d
            sub = src[tuple(slice(0, n) for n in index.shape)] if src.shape != index.shape else src
            value = out.gather(d, index)
            self_is = (input == out).to(grad.dtype)
            src_is = (sub == value).to(grad.dtype)
            share = grad / self_is.scatter_add(d, index, src_is)
            grad_input = self_is * share
            if not ctx.include_self:
                grad_input = grad_input.scatter(d, index, 0.0)
            grad_src = src_is * share.gather(d, index)
            if sub is not src:  # src's elements beyond index's extent take no part
                full = _C.zeros_like(src)
                full[tuple(slice(0, n) for n in index.shape)] = grad_src
                grad_src = full
            return grad_input, grad_src, None, None, None, None

    return _ScatterExtreme


def _scatter_extreme(input, d, index, src, is_max, include_self):
    return _scatter_extreme_function().apply(input, src, index.long(), d, is_max, include_self)


def _scatter_reduce_impl(input, d, index, src, reduce, include_self):
    if index.numel() == 0:
        return input.clone()
    if reduce == "sum":
        base = input if include_self else input.scatter(d, index, 0)
        return base.scatter_add(d, index, src)
    if reduce == "prod":
        base = input if include_self else input.scatter(d, index, 1)
        return base.scatter(d, index, src, reduce="multiply")
    if reduce == "mean":
        total = (input if include_self else input.scatter(d, index, 0)).scatter_add(d, index, src)
        ones = _C.ones_like(input)
        count = (ones if include_self else ones.scatter(d, index, 0)).scatter_add(d, index, _C.ones_like(src))
        count = count.clamp_min(1)
        if input.is_floating_point():
            return total / count
        return total.div(count, rounding_mode="floor")
    return _scatter_extreme(input, d, index, src, reduce == "amax", include_self)


_SCATTER_REDUCE_SIG = "int dim, Tensor index, Tensor src, str reduce, *, bool include_self=True"


@_argcheck.parses(f"Tensor input, {_SCATTER_REDUCE_SIG}, Tensor? out=None", upfront=False)
def scatter_reduce(input, dim, index, src, reduce, *, include_self=True, out=None):
    """`input` with `src` reduced ("sum", "prod", "mean", "amax", "amin") into the positions `index` names along
    `dim` (include_self: input's own values take part in the reduction)."""
    d = _wrap(dim, input.dim())  # ATen's meta function wraps the dim before its other checks
    if reduce not in _SCATTER_REDUCES:
        raise RuntimeError(f"reduce argument must be either sum, prod, mean, amax or amin, got {reduce}")
    if index.numel() and index.dtype not in (_C.int64, _C.int32):  # (an empty index's dtype is not checked)
        raise RuntimeError("scatter(): Expected dtype int32/int64 for index")
    if src.dtype != input.dtype:
        raise RuntimeError("scatter(): Expected self.dtype to be equal to src.dtype")
    if index.dim() != input.dim() and index.numel():
        raise RuntimeError("Index tensor must have the same number of dimensions as self tensor")
    r = _scatter_reduce_impl(input, d, index, src, reduce, include_self)
    return write_out(r, out, "scatter_reduce")


@_argcheck.parses(_SCATTER_REDUCE_SIG, method=True, upfront=False)
def scatter_reduce_(self, dim, index, src, reduce, *, include_self=True):
    """In-place scatter_reduce."""
    return _inplace(self, scatter_reduce(self, dim, index, src, reduce, include_self=include_self))


@_argcheck.parses(f"Tensor input, {_INDEX_REDUCE_SIG}, Tensor? out=None", upfront=False)
def index_reduce(input, dim, index, source, reduce, *, include_self=True, out=None):
    """`input` with the slices of `source` reduced ("prod", "mean", "amax", "amin") into the slices `index`
    names along `dim`."""
    if reduce not in ("prod", "mean", "amax", "amin"):
        raise RuntimeError(
            f"index_reduce(): Expected reduce to be one of prod, mean, amax or amin but got {reduce}."
        )
    if index.dtype not in (_C.int64, _C.int32):
        raise RuntimeError(
            f"index_reduce_(): Expected dtype int32/int64 for index but got: {_scalar_name(index.dtype)}"
        )
    if index.dim() > 1:
        raise IndexError(
            f"index_reduce_(): Index is supposed to be a vector, but got dim: {index.dim()} with type: "
            f"{_scalar_name(index.dtype)} and size: {list(index.shape)}"
        )
    d = _wrap(dim, input.dim())
    if source.dtype != input.dtype:
        raise RuntimeError(
            f"index_reduce_(): self ({_scalar_name(input.dtype)}) and source ({_scalar_name(source.dtype)}) "
            "must have the same scalar type"
        )
    ss = list(source.shape) if source.dim() else [1]
    xs = list(input.shape) if input.dim() else [1]
    if len(ss) != len(xs) or any(a != b for i, (a, b) in enumerate(zip(ss, xs)) if i != d):
        raise RuntimeError(
            "source tensor shape must match self tensor shape, excluding the specified dimension. Got self.shape = "
            f"{list(input.shape)} source.shape = {list(source.shape)}"
        )
    if index.numel() != ss[d]:
        raise RuntimeError(
            f"index_reduce_(): Number of indices ({index.numel()}) should be equal to source.size(dim): "
            f"({ss[d]}), for dim: {d}"
        )
    if index.numel() and bool(((index < 0) | (index >= xs[d])).any()):
        raise IndexError("index out of range in self")
    x, src = (input.reshape(1), source.reshape(1)) if input.dim() == 0 else (input, source)
    view = [1] * x.dim()
    view[d] = -1
    idx = index.long().view(view).expand(src.shape)
    r = _scatter_reduce_impl(x, d, idx, src, reduce, include_self).view(input.shape)
    return write_out(r, out, "index_reduce")


@_argcheck.parses(_INDEX_REDUCE_SIG, method=True, upfront=False)
def index_reduce_(self, dim, index, source, reduce, *, include_self=True):
    """In-place index_reduce."""
    return _inplace(self, index_reduce(self, dim, index, source, reduce, include_self=include_self))


def index_put(input, indices, values, accumulate=False):
    """`input` with `values` written (accumulate: added) at the advanced-indexing positions `indices`."""
    if not isinstance(indices, (tuple, list)):  # PyTorch's parser: a tuple of tensors, counted from input
        raise TypeError(
            f"index_put(): argument 'indices' (position 2) must be tuple of Tensors, not {_argcheck._kind_name(indices)}"
        )
    _argcheck.check_tensor_list(indices, 1)
    return input.index_put(tuple(indices), values, accumulate)


def _check_put(self, index, source):
    if index.dtype != _C.int64:
        raise RuntimeError(f"put_(): Expected a long tensor for index, but got {_scalar_name(index.dtype)}")
    if source.dtype != self.dtype:
        raise RuntimeError(
            f"put_(): self and source expected to have the same dtype, but got self.dtype = "
            f"{_scalar_name(self.dtype)} and source.dtype = {_scalar_name(source.dtype)}"
        )
    if source.numel() != index.numel():
        raise IndexError(
            "put_(): Expected source and index to have the same number of elements, but got source.numel() = "
            f"{source.numel()}, index.numel() = {index.numel()}"
        )
    n = self.numel()
    if index.numel() and bool(((index < -n) | (index >= n)).any()):
        bad = index[(index < -n) | (index >= n)][0].item()
        raise IndexError(f"out of range: tried to access index {bad} on a tensor of {n} elements.")


@_argcheck.parses("Tensor input, Tensor index, Tensor source, bool accumulate=False", upfront=False)
def put(input, index, source, accumulate=False):
    """`input` with `source` written (accumulate: added) at the flat (row-major) positions `index`."""
    _argcheck.check_bool("put", "accumulate", 4, accumulate)  # the parser's, also when nothing is written
    _check_put(input, index, source)
    if index.numel() == 0:
        return input.clone()
    flat = input.reshape(-1).index_put((index.reshape(-1),), source.reshape(-1), accumulate)
    return flat.view(input.shape)


@_argcheck.parses("Tensor index, Tensor source, bool accumulate=False", method=True, upfront=False)
def put_(self, index, source, accumulate=False):
    """In-place put."""
    _argcheck.check_bool("put_", "accumulate", 3, accumulate)
    return _inplace(self, put(self, index, source, accumulate))


# ---- small legacy and convenience methods


def fill_diagonal_(self, fill_value, wrap=False):
    """Fill the main diagonal (all dims equal beyond 2-D; wrap: tall matrices restart it every cols+1 rows)."""
    _argcheck.check_number("fill_diagonal_", "fill_value", 1, fill_value)
    _argcheck.check_bool("fill_diagonal_", "wrap", 2, wrap)
    nd = self.dim()
    if nd < 2:
        raise RuntimeError("dimensions must larger than 1")
    shape = list(self.shape)
    if nd > 2 and any(s != shape[0] for s in shape):
        raise RuntimeError("all dimensions of input must be of equal length")
    if self.numel() == 0:
        return self
    stride = builtins.sum(_prod(shape[k + 1 :]) for k in range(nd))
    if nd == 2:
        rows, cols = shape
        end = self.numel() if wrap and rows > cols + 1 else builtins.min(rows, cols) * cols
    else:
        end = self.numel()
    pos = _C.arange(0, end, stride, device=self.device)
    value = _creation.tensor(fill_value, dtype=self.dtype, device=self.device)
    return _inplace(self, self.reshape(-1).index_put((pos,), value).view(self.shape))


def _prod(xs):
    p = 1
    for x in xs:
        p *= x
    return p


@_argcheck.parses("int[] size", method=True, upfront=False)
def sum_to_size(self, *size, **kwargs):
    """`self` summed over its broadcast dims down to `size` (which must expand to self's shape)."""
    size = _functional._sizes_keyword("sum_to_size", "size", size, kwargs)
    size = list(_as_list(size)) if size else []
    shape = list(self.shape)
    lead = len(shape) - len(size)
    if lead < 0 or any(s != 1 and s != x for s, x in zip(size, shape[lead:])):
        raise RuntimeError(f"size {{{list(size)}}} is not expandable to size {{{shape}}}.")
    if not size:  # PyTorch's sum_to: a 0-dim target is always sum() (integers widen to int64, as sum's)
        return self.sum()
    dims = list(range(lead)) + [lead + k for k, s in enumerate(size) if s == 1 and shape[lead + k] != 1]
    r = self.sum(dims, keepdim=True) if dims else self
    return r.reshape(size) if lead else r


def new(self, *args, **kwargs):
    """Legacy constructor with self's dtype and device type: new() is empty, new(*sizes) uninitialised,
    new(data) a copy of data, new(tensor) an alias (PyTorch's rules and errors: _creation.legacy_new)."""
    return _creation.legacy_new(self.dtype, self.device.type, args, kwargs, default_device=self.device)


@_argcheck.checks_own_arguments  # no translating wrapper: it was a fifth of this call's time
def adjoint(input):
    """The conjugate transpose of the last two dims: a view for real tensors; for complex ones a new tensor,
    since conj() is eager here (PyTorch returns a view with the conjugate bit set)."""
    if not isinstance(input, _C.Tensor):
        _argcheck.check_tensor("adjoint", "input", 1, input)
    if input.dim() == 0:
        warnings.warn("adjoint() is deprecated on 0-D tensors. Consider using x.conj().", stacklevel=2)
        return _C.conj(input)
    if input.dim() < 2:
        raise RuntimeError(
            f"tensor.adjoint() is only supported on matrices or batches of matrices. Got {input.dim()}-D tensor."
        )
    return _C.conj(input.transpose(-2, -1))


def _deprecated_0d(name):
    warnings.warn(f"Tensor.{name} is deprecated on 0-D tensors. Consider using x.conj().", stacklevel=3)


def tensor_H(self):
    """Tensor.H: the conjugate transpose of a matrix (conj() of a 0-D tensor, with PyTorch's warning)."""
    if self.dim() == 0:
        _deprecated_0d("H")
        return _C.conj(self)
    if self.dim() != 2:
        raise RuntimeError(
            f"tensor.H is only supported on matrices (2-D tensors). Got {self.dim()}-D tensor."
            + (" For batches of matrices, consider using tensor.mH" if self.dim() > 2 else "")
        )
    return _C.conj(self.transpose(0, 1))


def tensor_mH(self):
    """Tensor.mH: the conjugate transpose of the last two dims (conj() of a 0-D tensor, with a warning)."""
    if self.dim() == 0:
        _deprecated_0d("mH")
        return _C.conj(self)
    if self.dim() < 2:
        raise RuntimeError(
            f"tensor.mH is only supported on matrices or batches of matrices. Got {self.dim()}-D tensor."
        )
    return _C.conj(self.transpose(-2, -1))


@_argcheck.parses("Tensor input, int[] split_sizes, int dim=0")
def split_with_sizes(input, split_sizes, dim=0):
    """Views of `input` along `dim` of lengths `split_sizes` (which must sum to its size there)."""
    if input.dim() == 0:
        raise RuntimeError("split expects at least a 1-dimensional tensor")
    d = _wrap(dim, input.dim())
    sizes = [int(s) for s in split_sizes]
    n = input.shape[d]
    if any(s < 0 for s in sizes):
        raise RuntimeError(
            f"split_with_sizes expects split_sizes have only non-negative entries, but got split_sizes={sizes}"
        )
    if builtins.sum(sizes) != n:
        raise RuntimeError(
            f"split_with_sizes expects split_sizes to sum exactly to {n} (input tensor's size at dimension {d}), "
            f"but got split_sizes={sizes}"
        )
    return tuple(_C.split(input, sizes, d))  # one autograd node for all the parts (SplitWithSizesBackward0)


__all__ += [
    "adjoint",
    "index_put",
    "index_reduce",
    "put",
    "scatter_reduce",
    "split_with_sizes",
]
TENSOR_METHODS.update(
    {
        n: globals()[n]
        for n in [
            "scatter_reduce",
            "scatter_reduce_",
            "index_reduce",
            "index_reduce_",
            "put",
            "put_",
            "fill_diagonal_",
            "sum_to_size",
            "new",
            "adjoint",
            "split_with_sizes",
        ]
    }
)


# ---- Tensor.dim_order: the dims from outermost to innermost in memory (PyTorch's torch/_tensor.py and the
# stride sort of its _prims_common, which this follows so ties and size-1 dims order as there)
def _stride_sort_swap(t, a, b):
    """1: dim a lies inside dim b in memory, -1: outside, 0: no stride tells them apart"""
    sa, sb = t.stride(a), t.stride(b)
    if sa == 0 or sb == 0:
        return 0

    def ge(x, y):
        return True if y == 0 else False if x == 0 else (x >= y or x % y == 0)

    if sa == sb:
        return 0 if ge(t.shape[b], t.shape[a]) else 1
    if ge(sb, sa):
        return -1
    return 1 if ge(sa, sb) else 0


@_argcheck.python_in_pytorch  # (torch/_tensor.py: no parser in front of it, its own TypeError)
def dim_order(self, *, ambiguity_check=False):
    """The permutation of self's dims that lists them from the largest stride to the smallest (contiguous:
    0, 1, ..., n-1; channels_last 4-D: 0, 2, 3, 1). ambiguity_check=True refuses a tensor whose strides
    tie or that has a size-1 dim; a list of memory formats allows such a tensor when it is contiguous in
    exactly one of them."""
    if not isinstance(ambiguity_check, (bool, list)) or (
        isinstance(ambiguity_check, list)
        and not builtins.all(isinstance(f, _C.memory_format) for f in ambiguity_check)
    ):
        raise TypeError("The ambiguity_check argument must be a bool or a list of memory formats.")
    formats = ambiguity_check if isinstance(ambiguity_check, list) else []
    check = ambiguity_check if isinstance(ambiguity_check, bool) else True
    strides = self.stride()
    several = builtins.any(a == b for a, b in zip(strides, strides[1:])) or 1 in tuple(self.shape)
    if check and several and builtins.sum(bool(self.is_contiguous(memory_format=f)) for f in formats) != 1:
        raise RuntimeError(
            "The tensor does not have unique dim order, or cannot map to exact one of the given memory formats."
        )
    n = self.dim()
    if n < 2:
        return tuple(range(n))
    contiguous = self.is_contiguous()
    channels_last = n == 4 and self.is_contiguous(memory_format=_C.channels_last)  # (4-D only, as there)
    if contiguous and not channels_last:
        return tuple(range(n))
    if channels_last and not contiguous:
        return (0, *range(2, n), 1)
    perm = list(reversed(range(n)))  # sorted back to front (innermost first), then reversed
    for i in range(1, n):
        d1 = i
        for d0 in reversed(range(i)):
            c = _stride_sort_swap(self, perm[d0], perm[d1])
            if c > 0:
                perm[d0], perm[d1] = perm[d1], perm[d0]
                d1 = d0
            elif c < 0:
                break
    if ambiguity_check and builtins.any(
        _stride_sort_swap(self, perm[i], perm[i + 1]) != -1 for i in range(n - 1)
    ):
        raise RuntimeError("The tensor does not have unique dim order.")
    return tuple(reversed(perm))


TENSOR_METHODS["dim_order"] = dim_order


# ---- Tensor.apply_ / map_ / map2_: a Python callable over each element of a CPU tensor, in place (PyTorch's
# element loop calls back into Python too, so a list round trip costs about what its loop does)
def _python_loop(name, self, others, fn):
    if self.requires_grad:
        raise RuntimeError(
            f"Can't call {name}() on Variable that requires grad. Use var.detach().{name}() instead."
        )
    if self.device.type != "cpu":
        raise TypeError(f"{name} is only implemented on CPU tensors")
    values = [t.expand(self.shape).reshape(-1).tolist() for t in (self, *others)]
    results = [fn(*vs) for vs in zip(*values)] if values[0] else []
    self.copy_(_creation.tensor(results, dtype=self.dtype).reshape(self.shape))
    return self


def _same_type(name, self, other, label):
    if other.dtype != self.dtype:
        raise TypeError(f"{name}: expected {self.type()} for {label} (got {other.type()})")


@_argcheck.python_in_pytorch
def apply_(self, callable):
    """self[i] = callable(self[i]) for every element, in place (CPU tensors, not requiring grad)"""
    if not builtins.callable(callable):
        raise TypeError(f"'{type(callable).__name__}' object is not callable")
    return _python_loop("apply_", self, (), callable)


@_argcheck.python_in_pytorch
def map_(self, tensor, callable):
    """self[i] = callable(self[i], tensor[i]) with tensor broadcast to self's shape, in place"""
    _same_type("map_", self, tensor, "'other'")
    return _python_loop("map_", self, (tensor,), callable)


@_argcheck.python_in_pytorch
def map2_(self, x, y, callable):
    """self[i] = callable(self[i], x[i], y[i]) with x and y broadcast to self's shape, in place"""
    _same_type("map2_", self, x, "argument 'x'")
    _same_type("map2_", self, y, "argument 'y'")
    return _python_loop("map2_", self, (x, y), callable)


TENSOR_METHODS.update(apply_=apply_, map_=map_, map2_=map2_)


@_argcheck.parses(
    "Tensor input, Tensor src, int dim=0, SymInt? start=None, SymInt? end=None, SymInt step=1",
    name="slice_inverse",
)
def slice_inverse(input, src, dim=0, start=None, end=None, step=1):
    """The view of input's storage with src's sizes, strides and offset: the inverse of slicing src into input
    (functionalization's op). The slice's bounds are not read, as in ATen."""
    if (input.requires_grad or src.requires_grad) and _C.is_grad_enabled():
        return _SliceInverse.apply(input, src, dim, start, end, step)
    return input.as_strided(tuple(src.shape), src.stride(), src.storage_offset())


class _SliceInverse(autograd.Function):
    """slice_inverse with ATen's derivatives: input gets the gradient's slice, src the rest of it (the slice
    zeroed)."""

    @staticmethod
    def forward(ctx, input, src, dim, start, end, step):
        """the view of input's storage with src's geometry"""
        ctx.slice = (dim, start, end, step)
        return input.as_strided(tuple(src.shape), src.stride(), src.storage_offset())

    @staticmethod
    def backward(ctx, grad):
        """(grad's slice, grad with the slice zeroed)"""
        dim, start, end, step = ctx.slice
        index = [slice(None)] * grad.dim()
        index[dim] = slice(start, end, step)
        part = grad[tuple(index)]
        rest = grad.slice_scatter(_C.zeros_like(part), dim, start, end, step)
        return part, rest, None, None, None, None


__all__ += ["slice_inverse"]
TENSOR_METHODS["slice_inverse"] = slice_inverse
