"""The sparse COO and compressed (CSR, CSC, BSR, BSC) tensor types: dense minitorch tensors (indices, values)
behind PyTorch's sparse API.

A COO tensor of shape (s_0, ..., s_{k-1}, d_0, ...) holds `indices` (int64, k x nnz) and `values` (nnz, d_0, ...);
a compressed tensor of shape (*batch, nrows, ncols, *dense) holds compressed indices (*batch, n + 1: row pointers
for CSR), plain indices (*batch, nnz: the column of each element for CSR) and values (*batch, nnz, *block,
*dense), every batch with the same nnz, as PyTorch's. Operations are composed
from dense ops (index_select, index_add, sort), so they run on whatever device the values live on, and autograd
records them: gradients reach the values (and through them a sparse leaf's `.grad`). The one exception is the
product of a matrix and a dense matrix, which has kernels of its own (sparse/_ops.py, ops/sparse.h).

The C++ Tensor has no sparse layout, so these are Python objects, not `Tensor` instances; ``is_tensor`` accepts
them (registered with `_creation`), ``isinstance(s, Tensor)`` does not.
"""

import builtins
import math

from minitorch import _C, _argcheck, _composite_math, _creation, _tensor_str
from minitorch._dtype_names import scalar_name
from minitorch._size import Size
from minitorch.sparse import _layout

_INT_DTYPES = (_C.int64, _C.int32, _C.int16, _C.int8, _C.uint8)


# ---------------------------------------------------------------------------------------------- index helpers


def _prod(xs):
    return math.prod(int(x) for x in xs)


def _linear_index(indices, sizes):
    """Row-major linear positions (nnz,) of the columns of a (k, nnz) index tensor within `sizes` (k dims)."""
    k = indices.shape[0]
    if k == 0:
        return _C.zeros((indices.shape[1],), dtype=_C.int64, device=indices.device)
    lin = indices[0]
    for d in range(1, k):
        lin = lin * int(sizes[d]) + indices[d]
    return lin


def _unravel(lin, sizes):
    """The (k, nnz) indices of row-major linear positions within `sizes` (the inverse of _linear_index)."""
    if len(sizes) == 1:
        return lin.reshape(1, -1)
    if len(sizes) == 0:
        return _C.zeros((0, lin.shape[0]), dtype=_C.int64, device=lin.device)
    rows = []
    for s in reversed(sizes[1:]):
        s = builtins.max(int(s), 1)  # an empty dim leaves no position to unravel (and no division by 0)
        rows.append(lin % s)
        lin = lin // s
    rows.append(lin)
    return _C.stack(rows[::-1], 0)


def _dim_error(dim, ndim):
    lo, hi = (-ndim, ndim - 1) if ndim > 0 else (-1, 0)
    return IndexError(f"Dimension out of range (expected to be in range of [{lo}, {hi}], but got {dim})")


def wrap_dim(dim, ndim):
    """A dim in [-ndim, ndim) as a non-negative index, else PyTorch's IndexError."""
    n = max(ndim, 1)
    if not -n <= dim < n:
        raise _dim_error(dim, ndim)
    return dim % n


def _device_index(dev):
    return -1 if dev.type == "cpu" else (dev.index if dev.index is not None else 0)


def _as_index_tensor(x, name):
    """An index argument as a tensor: tensors stay (floats are truncated to int64 as PyTorch's constructors do),
    Python and NumPy data are copied."""
    if not isinstance(x, _C.Tensor):
        _check_index_elements(x)
        x = _creation.tensor(x)
    if x.dtype not in _INT_DTYPES:
        x = x.to(_C.int64)
    return x


def _check_index_elements(seq):
    """PyTorch builds index data as int64 and reads a tensor inside a sequence as an index (__index__): only a
    one-element integer tensor converts."""
    for item in seq if isinstance(seq, (list, tuple)) else ():
        if isinstance(item, _C.Tensor):
            if item.numel() != 1 or item.is_floating_point() or item.is_complex():
                raise TypeError("only integer tensors of a single element can be converted to an index")
        else:
            _check_index_elements(item)


def _check_requires_grad(values, requires_grad):
    if requires_grad and not values.is_floating_point():
        raise RuntimeError("Only Tensors of floating point and complex dtype can require gradients")


def _owned_values(values, requires_grad):
    """The values a new sparse tensor holds: a fresh leaf when it requires grad itself, a differentiable alias
    when the given values carry a graph (the tensor is then a non-leaf, as in PyTorch), else a detached alias
    (so that `requires_grad_()` on the sparse tensor never flips the caller's tensor)."""
    if requires_grad:
        return values.detach().requires_grad_(True)
    if values.requires_grad:
        return values.view_as(values)
    return values.detach()


# ------------------------------------------------------------------------------------------------ the types


class _SparseTensor:
    """What the sparse layouts share: shape and dtype queries, device and dtype moves, autograd plumbing
    through the values, printing and the errors of dense-only methods."""

    layout = None
    is_sparse = False
    is_sparse_csr = False
    is_quantized = False
    is_nested = False
    is_meta = False
    is_mkldnn = False
    __array_priority__ = 1001  # a NumPy array on the left defers to our reflected operators

    # -- shape, dtype, device
    @property
    def shape(self):
        return self._shape

    def size(self, dim=None):
        if dim is None:
            return self._shape
        return self._shape[wrap_dim(dim, len(self._shape))]

    def dim(self):
        return len(self._shape)

    ndimension = dim

    @property
    def ndim(self):
        return len(self._shape)

    def numel(self):
        return _prod(self._shape)

    nelement = numel

    def __len__(self):
        if not self._shape:
            raise TypeError("len() of a 0-d tensor")
        return self._shape[0]

    @property
    def dtype(self):
        return self._vals.dtype

    @property
    def device(self):
        return self._vals.device

    @property
    def is_cuda(self):
        return self._vals.device.type == "cuda"

    @property
    def is_cpu(self):
        return self._vals.device.type == "cpu"

    def get_device(self):
        return self._vals.get_device()

    def is_floating_point(self):
        return self._vals.is_floating_point()

    def is_complex(self):
        return False

    def is_contiguous(self, memory_format=None):
        return False

    def element_size(self):
        return self._vals.element_size()

    def _nnz(self):
        return self._vals.shape[0]

    # -- autograd, through the values
    @property
    def requires_grad(self):
        return self._vals.requires_grad

    @requires_grad.setter
    def requires_grad(self, flag):
        self.requires_grad_(flag)

    def requires_grad_(self, requires_grad=True):
        if requires_grad and not self._vals.is_floating_point():
            raise RuntimeError("only Tensors of floating point dtype can require gradients")
        self._vals.requires_grad_(requires_grad)
        return self

    @property
    def is_leaf(self):
        return self._vals.is_leaf

    @property
    def grad_fn(self):
        return self._vals.grad_fn

    @property
    def grad(self):
        """A leaf's gradient as a sparse tensor of its own pattern (the values' gradient); None before backward."""
        g = self._vals.grad
        if g is None:
            return None
        cached = getattr(self, "_grad_cache", None)
        if cached is not None and cached[0] is g:
            return cached[1]
        out = self._grad_from_values(g)
        self._grad_cache = (g, out)
        return out

    @grad.setter
    def grad(self, value):
        if value is None:
            self._vals.grad = None
            return
        if type(value) is not type(self) or value._nnz() != self._nnz():
            raise RuntimeError(
                "minitorch: a sparse tensor's .grad can only be set to None or to a sparse tensor of the same "
                "layout and number of specified elements"
            )
        self._vals.grad = value._vals.detach()

    @property
    def data(self):
        return self.detach()

    def retain_grad(self):
        self._vals.retain_grad()

    def backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None):
        raise RuntimeError(
            "minitorch: backward() of a sparse tensor is not supported; reduce it to a dense tensor first "
            "(torch.sparse.sum, to_dense)"
        )

    # -- dtype and device moves
    def to(self, *args, **kwargs):
        if args and isinstance(args[0], _SparseTensor):
            other = args[0]
            args = (other.device, other.dtype) + args[1:]
        v = self._vals.to(*args, **kwargs)
        if v is self._vals:
            return self
        return self._map_tensors(lambda t: t.to(v.device), v)

    def cpu(self, memory_format=None):
        return self.to("cpu")

    def cuda(self, device=None, non_blocking=False, memory_format=None):
        return self.to(_C.device("cuda") if device is None else _C.device("cuda", device) if isinstance(device, int)
                       else device, non_blocking=non_blocking)  # fmt: skip

    def double(self):
        return self.to(_C.float64)

    def float(self):
        return self.to(_C.float32)

    def half(self):
        return self.to(_C.float16)

    def bfloat16(self):
        return self.to(_C.bfloat16)

    def long(self):
        return self.to(_C.int64)

    def int(self):
        return self.to(_C.int32)

    def short(self):
        return self.to(_C.int16)

    def char(self):
        return self.to(_C.int8)

    def byte(self):
        return self.to(_C.uint8)

    def bool(self):
        return self.to(_C.bool)

    def type(self, dtype=None, non_blocking=False):
        if dtype is None:
            name = scalar_name(self.dtype)
            where = "torch.cuda.sparse" if self.is_cuda else "torch.sparse"
            return f"{where}.{name}Tensor"
        return self.to(dtype)

    def detach(self):
        return self._map_tensors(lambda t: t, self._vals.detach())

    def clone(self, *, memory_format=None):
        return self._map_tensors(lambda t: t.clone(), self._vals.clone())

    # -- the dense-only API
    def numpy(self, *, force=False):
        raise TypeError(
            f"can't convert {self._layout_word} layout tensor to numpy. Use Tensor.to_dense() first."
        )

    def _no_storage(self, *args, **kwargs):
        raise RuntimeError("Cannot access data pointer of Tensor that doesn't have storage")

    tolist = data_ptr = untyped_storage = storage = stride = _no_storage

    def item(self):
        n = self.numel()
        if n != 1:
            raise RuntimeError(f"a Tensor with {n} elements cannot be converted to Scalar")
        return self.to_dense().item()

    # no __float__: the C++ operators take any object that has one for a number, and would not hand a sparse
    # operand back to our reflected methods

    def view(self, *shape):
        raise NotImplementedError(
            f"Could not run 'aten::view' with arguments from the '{self._layout_word}CPU' backend."
        )

    def reshape(self, *shape):
        raise RuntimeError("reshape is not implemented for sparse tensors")

    def expand(self, *sizes):
        raise RuntimeError("expand is unsupported for Sparse tensors")

    # -- printing
    def __repr__(self):
        return _sparse_repr(self)

    __str__ = __repr__

    def __format__(self, spec):
        if spec:
            return format(self.item(), spec)
        return repr(self)

    __hash__ = object.__hash__


def _crow_of(rows, nrows):
    """The CSR row pointers (nrows + 1, int64) of row indices sorted ascending (a coalesced COO tensor's)."""
    counts = _C.zeros((nrows,), dtype=_C.int64, device=rows.device)
    if rows.numel():
        counts = counts.index_add(0, rows, _C.ones_like(rows))
    return _C.cat([_C.zeros((1,), dtype=_C.int64, device=rows.device), counts.cumsum(0)])


def _rows_of(crow, nnz):
    """The row (int64) of each of the nnz stored elements of CSR row pointers."""
    return _slots_of(crow.reshape(1, -1), nnz).reshape(-1)


def _slots_of(cidx, nnz):
    """The compressed slot (int64, (batches, nnz)) of each stored element of compressed indices (batches, n + 1):
    slot i begins at element cidx[b, i], so an element's slot counts the interior pointers at or before it (a
    scatter of ones and a running sum; pointers outside [0, nnz] are an index error, not a wrong answer)."""
    cidx = cidx.to(_C.int64)
    nbatch, n = cidx.shape[0], cidx.shape[1] - 1
    dev = cidx.device
    if nbatch == 0 or nnz == 0:
        return _C.zeros((nbatch, nnz), dtype=_C.int64, device=dev)
    inner = cidx[:, 1:-1]  # each batch's marks at its own offset: stride nnz + 1 keeps a trailing one inside
    marks = _C.zeros((nbatch * (nnz + 1),), dtype=_C.int64, device=dev)
    if inner.numel():
        offsets = _C.arange(nbatch, dtype=_C.int64, device=dev).unsqueeze(1) * (nnz + 1)
        at = (inner + offsets).reshape(-1)
        marks = marks.index_add(0, at, _C.ones_like(at))
    counts = marks.cumsum(0).reshape(nbatch, nnz + 1)[:, :nnz]
    earlier = _C.arange(nbatch, dtype=_C.int64, device=dev).unsqueeze(1) * builtins.max(n - 1, 0)
    return counts - earlier


class SparseCooTensor(_SparseTensor):
    """A sparse tensor in coordinate format (layout ``torch.sparse_coo``): PyTorch's COO tensor, built by
    ``torch.sparse_coo_tensor`` or ``Tensor.to_sparse()``."""

    layout = _layout.sparse_coo
    is_sparse = True
    _layout_word = "Sparse"

    def __init__(self, indices, values, size, coalesced=False):
        # unchecked: the public constructors (sparse_coo_tensor, to_sparse) validate their arguments
        self._idx = indices
        self._vals = values
        self._shape = size if type(size) is Size else Size(size)
        self._coalesced = bool(coalesced)

    def _map_tensors(self, fn, values):
        return SparseCooTensor(fn(self._idx), values, self._shape, self._coalesced)

    def _with_values(self, values, coalesced=None):
        """The same pattern holding other values (of the same nnz)."""
        return SparseCooTensor(
            self._idx, values, self._shape, self._coalesced if coalesced is None else coalesced
        )

    def _grad_from_values(self, g):
        if self._coalesced:
            return SparseCooTensor(self._idx, g, self._shape, True)
        # an uncoalesced leaf: PyTorch's gradient has the coalesced pattern; every copy of a duplicated index
        # got the same gradient (the function sees only their sum), so one of them is the gradient there
        idx, inverse = _coalesce_pattern(self)
        out = _C.zeros((idx.shape[1],) + tuple(g.shape[1:]), dtype=g.dtype, device=g.device)
        return SparseCooTensor(idx, out.index_copy(0, inverse, g), self._shape, True)

    # -- structure
    def sparse_dim(self):
        """The number of sparse dims (rows of the indices)."""
        return self._idx.shape[0]

    def dense_dim(self):
        """The number of dense dims (each value's own dims)."""
        return self._vals.dim() - 1

    def is_coalesced(self):
        """Whether the indices are known sorted and free of duplicates."""
        return self._coalesced

    def _coalesced_(self, coalesced):
        self._coalesced = bool(coalesced)
        return self

    def _indices(self):
        return self._idx

    def _values(self):
        return self._vals

    def indices(self):
        """The (sparse_dim, nnz) indices of a coalesced tensor (an uncoalesced one raises, as in PyTorch)."""
        if not self._coalesced:
            raise RuntimeError("Cannot get indices on an uncoalesced tensor, please call .coalesce() first")
        return self._idx

    def values(self):
        """The (nnz, *dense) values of a coalesced tensor (an uncoalesced one raises, as in PyTorch)."""
        if not self._coalesced:
            raise RuntimeError("Cannot get values on an uncoalesced tensor, please call .coalesce() first")
        return self._vals

    def coalesce(self):
        """Sorted indices without duplicates (duplicates' values summed); self when already coalesced."""
        if self._coalesced:
            return self
        if self._nnz() <= 1:
            return SparseCooTensor(self._idx, self._vals, self._shape, True)
        idx, inverse = _coalesce_pattern(self)
        return SparseCooTensor(idx, _summed_into_zeros(idx.shape[1], inverse, self._vals), self._shape, True)

    # -- conversions
    def to_dense(self, dtype=None, *, masked_grad=None):
        """The dense tensor: duplicates add up; differentiable to the values."""
        v = self._vals if dtype is None else self._vals.to(dtype)
        sd = self.sparse_dim()
        lead = self._shape[:sd]
        return _summed_into_zeros(_prod(lead), _linear_index(self._idx, lead), v).reshape(tuple(self._shape))

    def to_sparse(self, sparse_dim=None, *, layout=None, blocksize=None, dense_dim=None):
        """Itself (a COO tensor already), or its form in the compressed `layout`."""
        if layout in _COMPRESSED:
            return _coo_to_layout(self, layout, blocksize, dense_dim, "to_sparse")
        if layout is _layout.strided:
            return self.to_dense()
        if layout not in (None, _layout.sparse_coo):
            raise NotImplementedError(f"minitorch: conversion to {layout} is not supported")
        if sparse_dim is not None and sparse_dim != self.sparse_dim():
            raise RuntimeError(
                "to_sparse: conversion from Sparse to Sparse with sparse_dim argument !=self.sparse_dim() is "
                "not supported"
            )
        return self

    def to_sparse_coo(self):
        """Itself."""
        return self

    def to_sparse_csr(self, dense_dim=None):
        """The CSR form of a COO tensor of two sparse dims (coalesced first; dense dims stay dense)."""
        if self.sparse_dim() == 2 and self.dense_dim() == 0 and dense_dim is None:  # the common case
            c = self.coalesce()
            crow = _crow_of(c._idx[0], self._shape[0])
            return SparseCompressedTensor(
                crow, c._idx[1], c._vals, self._shape, sorted_=True, rows=c._idx[0], checked=True
            )
        return _coo_to_layout(self, _layout.sparse_csr, None, dense_dim, "to_sparse_csr")

    def to_sparse_csc(self, dense_dim=None):
        """The CSC form of a COO tensor of two sparse dims."""
        return _coo_to_layout(self, _layout.sparse_csc, None, dense_dim, "to_sparse_csc")

    def to_sparse_bsr(self, blocksize, dense_dim=None):
        """The BSR form of a COO tensor of two sparse dims: the blocks holding a nonzero."""
        return _coo_to_layout(self, _layout.sparse_bsr, blocksize, dense_dim, "to_sparse_bsr")

    def to_sparse_bsc(self, blocksize, dense_dim=None):
        """The BSC form of a COO tensor of two sparse dims: the blocks holding a nonzero."""
        return _coo_to_layout(self, _layout.sparse_bsc, blocksize, dense_dim, "to_sparse_bsc")

    # -- views of the structure
    def t(self):
        """The transpose of a matrix (a vector or scalar is returned as is)."""
        sd, dd = self.sparse_dim(), self.dense_dim()
        if sd > 2 or dd > 0:
            raise RuntimeError(
                f"t() expects a tensor with <= 2 sparse and 0 dense dimensions, but got {sd} sparse and {dd} "
                "dense dimensions"
            )
        if self.dim() < 2:
            return self
        return self.transpose(0, 1)

    @property
    def T(self):
        """The transpose of a matrix (t())."""
        return self.t()

    @property
    def mT(self):
        """The transpose of the last two dims."""
        return self.transpose(-2, -1)

    def transpose(self, dim0, dim1):
        """Two sparse dims swapped (the result is uncoalesced, as in PyTorch)."""
        n = self.dim()
        d0, d1 = wrap_dim(dim0, n), wrap_dim(dim1, n)
        sd = self.sparse_dim()
        if d0 >= sd or d1 >= sd:
            raise RuntimeError(
                f"sparse transpose: transposed dimensions must be sparse Got sparse_dim: {sd}, d0: {d0}, d1: {d1}"
            )
        if d0 == d1:
            return self
        order = list(range(sd))
        order[d0], order[d1] = d1, d0
        idx = _C.stack([self._idx[i] for i in order], 0)
        shape = list(self._shape)
        shape[d0], shape[d1] = shape[d1], shape[d0]
        return SparseCooTensor(idx, self._vals, shape, False)

    def zero_(self):
        """No stored elements any more (the shape stays)."""
        self._idx = self._idx[:, :0]
        self._vals = self._vals[:0]
        self._coalesced = True
        return self

    def select(self, dim, index):
        """The slice at `index` along `dim`: a sparse tensor one dim smaller (a sparse dim) or the values'
        slice (a dense dim)."""
        n = self.dim()
        dim = wrap_dim(dim, n)
        size = self._shape[dim]
        if not -size <= index < size:
            raise IndexError(f"select(): index {index} out of range for tensor of size {list(self._shape)} at "
                             f"dimension {dim}")  # fmt: skip
        index %= size
        sd = self.sparse_dim()
        shape = list(self._shape)
        del shape[dim]
        if dim >= sd:
            return SparseCooTensor(self._idx, self._vals.select(dim - sd + 1, index), shape, self._coalesced)
        keep = (self._idx[dim] == index).nonzero().reshape(-1)
        rows = [r for r in range(sd) if r != dim]
        idx = self._idx.index_select(1, keep)
        idx = _C.stack([idx[r] for r in rows], 0) if rows else idx[:0]
        vals = self._vals.index_select(0, keep)
        if not rows:  # every sparse dim selected: the dense result, as PyTorch
            return vals.sum(0)
        return SparseCooTensor(idx, vals, shape, self._coalesced)

    def __getitem__(self, key):
        if isinstance(key, int) and not isinstance(key, bool):
            return self.select(0, key)
        raise NotImplementedError("minitorch: a sparse tensor is indexed by one integer (select) only")

    def __reduce__(self):
        return (
            _rebuild_sparse_coo,
            (self._idx, self._vals.detach(), tuple(self._shape), self._coalesced, self._vals.requires_grad),
        )


class _Compressed:
    """What tells the compressed layouts apart: their index names, the compressed dim, blocks."""

    def __init__(self, word, compressed, plain, rowwise, blocked):
        self.word = word  # PyTorch's name of the layout in messages (SparseCsr, ...)
        self.compressed = compressed  # crow_indices / ccol_indices
        self.plain = plain  # col_indices / row_indices
        self.rowwise = rowwise  # rows compressed (CSR, BSR), else columns
        self.blocked = blocked  # values hold (block rows, block cols) blocks
        self.short = word[len("Sparse") :].lower()  # csr, csc, bsr, bsc
        unit = " block" if blocked else ""
        self.compressed_dim = ("row" if rowwise else "column") + unit
        self.ncompressed, self.nplain = ("nrows", "ncols") if rowwise else ("ncols", "nrows")


_COMPRESSED = {
    _layout.sparse_csr: _Compressed("SparseCsr", "crow_indices", "col_indices", True, False),
    _layout.sparse_csc: _Compressed("SparseCsc", "ccol_indices", "row_indices", False, False),
    _layout.sparse_bsr: _Compressed("SparseBsr", "crow_indices", "col_indices", True, True),
    _layout.sparse_bsc: _Compressed("SparseBsc", "ccol_indices", "row_indices", False, True),
}


def is_compressed_layout(layout):
    """Whether `layout` is one of CSR, CSC, BSR, BSC."""
    return layout in _COMPRESSED


class SparseCompressedTensor(_SparseTensor):
    """A sparse tensor in one of the compressed layouts (``torch.sparse_csr``, ``sparse_csc``, ``sparse_bsr``,
    ``sparse_bsc``), built by ``torch.sparse_csr_tensor`` and its siblings or ``Tensor.to_sparse_csr()`` and
    its siblings. Its shape is (*batch, nrows, ncols, *dense): the compressed indices are (*batch, n + 1) for n
    compressed rows (columns, row or column blocks), the plain indices (*batch, nnz) and the values
    (*batch, nnz, *block, *dense); every batch holds the same nnz, as in PyTorch."""

    def __init__(
        self, cidx, pidx, values, size, layout=_layout.sparse_csr, sorted_=None, rows=None, checked=False
    ):
        self._cidx = cidx
        self._pidx = pidx
        self._vals = values
        self._shape = Size(size)
        self.layout = layout
        # each compressed slot's plain indices known sorted and distinct (None: not yet looked at); a
        # to_sparse() of a sorted tensor is coalesced
        self._sorted = sorted_
        self._rows = rows  # a 2-D CSR matrix's row of each element, int64, computed once when first needed
        self._checked = checked  # the invariants are known to hold (built by a conversion, or checked)

    @property
    def _info(self):
        return _COMPRESSED[self.layout]

    @property
    def _layout_word(self):
        return _COMPRESSED[self.layout].word

    @property
    def is_sparse_csr(self):
        """True for the CSR layout only (PyTorch's flag; CSC, BSR and BSC tensors answer False)."""
        return self.layout is _layout.sparse_csr

    def _map_tensors(self, fn, values):
        rows = None if self._rows is None else fn(self._rows)
        return SparseCompressedTensor(
            fn(self._cidx),
            fn(self._pidx),
            values,
            self._shape,
            self.layout,
            self._sorted,
            rows,
            self._checked,
        )

    def _with_values(self, values):
        return SparseCompressedTensor(
            self._cidx, self._pidx, values, self._shape, self.layout, self._sorted, self._rows, self._checked
        )

    def _grad_from_values(self, g):
        return self._with_values(g)

    # -- structure
    @property
    def _nbatch(self):
        return self._cidx.dim() - 1

    def _blocksize(self):
        """(block rows, block cols): (1, 1) for CSR and CSC."""
        if not self._info.blocked:
            return (1, 1)
        nb = self._nbatch
        return tuple(self._vals.shape[nb + 1 : nb + 3])

    def _nnz(self):
        """The stored elements (blocks) of each batch."""
        return self._vals.shape[self._nbatch]

    def sparse_dim(self):
        """2: the rows and columns."""
        return 2

    def dense_dim(self):
        """The number of dense dims (each stored element's own dims)."""
        return len(self._shape) - self._nbatch - 2

    def _is_plain_matrix(self):
        """A 2-D CSR or CSC matrix of scalars: what the CSR product kernels take."""
        return (
            self.layout in (_layout.sparse_csr, _layout.sparse_csc)
            and self._cidx.dim() == 1
            and (self._vals.dim() == 1)
        )

    def _index_getter(name, rowwise, compressed):
        expected = (
            "sparse row compressed tensor layout" if rowwise else "sparse column compressed tensor layout"
        )

        def getter(self):
            if self._info.rowwise != rowwise:
                raise RuntimeError(f"{name} expected {expected} but got {self._layout_word}")
            return self._cidx if compressed else self._pidx

        getter.__name__ = name
        kind = "compressed" if compressed else "plain"
        getter.__doc__ = f"The {kind} indices of a {'row' if rowwise else 'column'}-compressed tensor."
        return getter

    crow_indices = _index_getter("crow_indices", True, True)
    col_indices = _index_getter("col_indices", True, False)
    ccol_indices = _index_getter("ccol_indices", False, True)
    row_indices = _index_getter("row_indices", False, False)
    del _index_getter

    def values(self):
        """The stored values: (*batch, nnz, *block, *dense)."""
        return self._vals

    def _row_indices(self):
        """The row of each stored element (nnz,), int64, of a 2-D CSR matrix (kept: the structure is fixed)."""
        if self._rows is None:
            self._ensure_valid()
            self._rows = _rows_of(self._cidx, self._nnz())
        return self._rows

    def _layout_error(self, what, expected="sparse coordinate tensor layout"):
        raise RuntimeError(f"{what} expected {expected} but got {self._layout_word}")

    def indices(self):
        """PyTorch's error: a compressed tensor has no COO indices."""
        self._layout_error("indices")

    def _indices(self):
        self._layout_error("_indices")

    def coalesce(self):
        """PyTorch's error: coalescing is for COO tensors."""
        self._layout_error("coalesce")

    def is_coalesced(self):
        """PyTorch's error: coalescing is for COO tensors."""
        self._layout_error("is_coalesced")

    def _ensure_valid(self):
        """PyTorch's invariant checks, once, before the first use of a tensor built without them: an invalid
        tensor is an error here rather than a wrong result (PyTorch would read out of bounds)."""
        if self._checked:
            return
        nb = self._nbatch
        _check_compressed_dims(self._info, self._cidx, self._pidx, self._vals)
        blocksize = (1, 1)
        if self._info.blocked:
            blocksize = (builtins.max(1, self._vals.shape[nb + 1]), builtins.max(1, self._vals.shape[nb + 2]))
        _validate_compressed(
            self._info, self._cidx, self._pidx, self._vals, tuple(self._shape), nb, blocksize
        )
        self._checked = True

    def _is_sorted(self):
        """Whether each compressed slot's plain indices are sorted and distinct (looked at once)."""
        self._ensure_valid()
        if self._sorted is None:
            self._sorted = _plain_sorted(self)
        return self._sorted

    def _structure(self):
        """(batch, compressed, plain): int64 (N,) tensors of the batch (flat index), compressed and plain index
        of each of the N = batches * nnz stored elements (blocks), in storage order."""
        self._ensure_valid()
        nb = self._nbatch
        nbatch = _prod(self._shape[:nb])
        nnz = self._nnz()
        dev = self._vals.device
        ncomp = self._cidx.shape[-1] - 1
        comp = _slots_of(self._cidx.reshape(nbatch, ncomp + 1), nnz).reshape(-1)
        batch = _C.arange(nbatch, dtype=_C.int64, device=dev).repeat_interleave(nnz)
        return batch, comp, self._pidx.to(_C.int64).reshape(-1)

    # -- conversions
    def to_dense(self, dtype=None, *, masked_grad=None):
        """The dense tensor; differentiable to the values."""
        v = self._vals if dtype is None else self._vals.to(dtype)
        if self.layout is _layout.sparse_csr and self._nbatch == 0:  # the common case: a COO pattern
            return self._to_coo(v).to_dense()
        nb = self._nbatch
        batch_shape = tuple(self._shape[:nb])
        nrows, ncols = self._shape[nb], self._shape[nb + 1]
        inner = tuple(v.shape[nb + 1 :])  # block and dense dims
        br, bc = self._blocksize()
        p, q = (nrows // br, ncols // bc) if self._info.rowwise else (ncols // bc, nrows // br)
        nbatch = _prod(batch_shape)
        batch, comp, plain = self._structure()
        out = _summed_into_zeros(nbatch * p * q, (batch * p + comp) * q + plain, v.reshape((-1,) + inner))
        out = out.reshape((nbatch, p, q) + inner)
        if not self._info.rowwise:
            out = out.transpose(1, 2)  # (batch, row blocks, column blocks, ...)
        if self._info.blocked:
            rb, cb = out.shape[1], out.shape[2]
            out = out.permute(0, 1, 3, 2, 4, *range(5, out.dim())).reshape(
                (nbatch, rb * br, cb * bc) + inner[2:]
            )
        return out.reshape(tuple(self._shape))

    def _to_coo(self, values=None):
        v = self._vals if values is None else values
        nb = self._nbatch
        batch, comp, plain = self._structure()
        rows, cols = (comp, plain) if self._info.rowwise else (plain, comp)
        dense = tuple(v.shape[nb + 1 :])
        if self._info.blocked:  # each block is br x bc elements, listed block by block, row-major within
            br, bc = self._blocksize()
            dense = dense[2:]
            dev = v.device
            i = _C.arange(br, dtype=_C.int64, device=dev).repeat_interleave(bc).repeat(rows.shape[0])
            j = _C.arange(bc, dtype=_C.int64, device=dev).repeat(br * rows.shape[0])
            rows = rows.repeat_interleave(br * bc) * br + i
            cols = cols.repeat_interleave(br * bc) * bc + j
            batch = batch.repeat_interleave(br * bc)
        lead = [_unravel(batch, self._shape[:nb])] if nb else []
        idx = (
            _C.cat(lead + [rows.reshape(1, -1), cols.reshape(1, -1)], 0) if nb else _C.stack([rows, cols], 0)
        )
        coalesced = self._info.rowwise and not self._info.blocked and self._is_sorted()
        return SparseCooTensor(idx, v.reshape((-1,) + dense), self._shape, coalesced)

    def to_sparse(self, sparse_dim=None, *, layout=None, blocksize=None, dense_dim=None):
        """The COO form (blocks expanded to their elements), or another compressed layout with `layout`."""
        if layout is not None and layout is not _layout.sparse_coo:
            return _compressed_to_compressed(self, layout, blocksize, dense_dim, "to_sparse")
        if blocksize is not None or dense_dim is not None:
            what = "blocksize" if blocksize is not None else "dense_dim"
            raise RuntimeError(
                f"sparse_compressed_to_sparse: conversion from {self._layout_word} to Sparse with {what} argument "
                "given is not supported"
            )
        if sparse_dim is not None and sparse_dim != 2:  # PyTorch's test, whatever the batch dims
            raise RuntimeError(
                f"sparse_compressed_to_sparse: conversion from {self._layout_word} to Sparse with sparse_dim "
                "argument !=2 is not supported"
            )
        return self._to_coo()

    def to_sparse_coo(self):
        """The COO form."""
        return self.to_sparse()

    def to_sparse_csr(self, dense_dim=None):
        """The CSR form of a CSR or CSC tensor."""
        return _compressed_to_compressed(self, _layout.sparse_csr, None, dense_dim, "to_sparse_csr")

    def to_sparse_csc(self, dense_dim=None):
        """The CSC form of a CSR or CSC tensor."""
        return _compressed_to_compressed(self, _layout.sparse_csc, None, dense_dim, "to_sparse_csc")

    def to_sparse_bsr(self, blocksize, dense_dim=None):
        """The BSR form (blocks of `blocksize` holding any stored element)."""
        return _compressed_to_compressed(self, _layout.sparse_bsr, blocksize, dense_dim, "to_sparse_bsr")

    def to_sparse_bsc(self, blocksize, dense_dim=None):
        """The BSC form (blocks of `blocksize` holding any stored element)."""
        return _compressed_to_compressed(self, _layout.sparse_bsc, blocksize, dense_dim, "to_sparse_bsc")

    # -- transposes: CSR <-> CSC (BSR <-> BSC) over the same index arrays
    def transpose(self, dim0, dim1):
        """Two dims of the same kind swapped: the rows and columns (CSR becomes CSC and so on, the indices
        unchanged, blocks transposed), two batch dims, or two dense dims."""
        n = self.dim()
        d0, d1 = wrap_dim(dim0, n), wrap_dim(dim1, n)
        nb = self._nbatch
        if d0 == d1:
            return self
        if self.dense_dim():
            raise RuntimeError(
                "transpose(): hybrid sparse compressed tensors with dense dimensions are not supported"
            )
        kinds = ["Batch" if d < nb else "Sparse" for d in (d0, d1)]
        if kinds[0] != kinds[1]:
            raise RuntimeError(
                "transpose(): can only transpose dimensions of the same type (Batch, Sparse, Dense), got "
                f"{d0}({kinds[0]}) and {d1}({kinds[1]})"
            )
        shape = list(self._shape)
        shape[d0], shape[d1] = shape[d1], shape[d0]
        if kinds[0] == "Batch":
            return SparseCompressedTensor(
                self._cidx.transpose(d0, d1),
                self._pidx.transpose(d0, d1),
                self._vals.transpose(d0, d1),
                shape,
                self.layout,
                self._sorted,
                None,
                self._checked,
            )
        flipped = {
            _layout.sparse_csr: _layout.sparse_csc,
            _layout.sparse_csc: _layout.sparse_csr,
            _layout.sparse_bsr: _layout.sparse_bsc,
            _layout.sparse_bsc: _layout.sparse_bsr,
        }[self.layout]
        v = self._vals.transpose(nb + 1, nb + 2) if self._info.blocked else self._vals
        return SparseCompressedTensor(
            self._cidx, self._pidx, v, shape, flipped, self._sorted, None, self._checked
        )

    def t(self):
        """The transpose of a matrix: CSR becomes CSC over the same indices (BSR becomes BSC)."""
        if self.dim() > 2:
            raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {self.dim()}D")
        return self.transpose(0, 1)

    @property
    def T(self):
        """The transpose of a matrix (t())."""
        return self.t()

    @property
    def mT(self):
        """The transpose of the last two dims (the rows and columns of each batch)."""
        return self.transpose(-2, -1)

    def select(self, dim, index):
        """The slice at `index` along `dim`: a batch dim gives the compressed tensor of that batch (the same
        layout), a row or column dim a COO vector, as PyTorch."""
        n = self.dim()
        dim = wrap_dim(dim, n)
        size = self._shape[dim]
        if not -size <= index < size:
            raise IndexError(f"select(): index {index} out of range for tensor of size {list(self._shape)} at "
                             f"dimension {dim}")  # fmt: skip
        index %= size
        if dim >= self._nbatch:
            return self.to_sparse().select(dim, index)
        shape = list(self._shape)
        del shape[dim]
        return SparseCompressedTensor(
            self._cidx.select(dim, index), self._pidx.select(dim, index), self._vals.select(dim, index), shape,
            self.layout, self._sorted, None, self._checked,
        )  # fmt: skip

    def unbind(self, dim=0):
        """The slices along `dim` (select at each index)."""
        dim = wrap_dim(dim, self.dim())
        return tuple(self.select(dim, i) for i in range(self._shape[dim]))

    def __getitem__(self, key):
        if isinstance(key, int) and not isinstance(key, bool):
            return self.select(0, key)
        raise NotImplementedError("minitorch: a sparse tensor is indexed by one integer (select) only")

    def __reduce__(self):
        return (
            _rebuild_sparse_compressed,
            (self._cidx, self._pidx, self._vals.detach(), tuple(self._shape), self._vals.requires_grad,
             self._info.short),
        )  # fmt: skip


SparseCsrTensor = SparseCompressedTensor  # the name minitorch had while CSR was its only compressed layout


# ------------------------------------------------------------------------------------- shared computations


def _index_add(out, index, source):
    """out.index_add(0, index, source) for every dtype: bool sums as 'any' (through int64)."""
    if source.dtype == _C.bool:
        return out.to(_C.int64).index_add(0, index, source.to(_C.int64)) != 0
    return out.index_add(0, index, source)


def _summed_into_zeros(rows, index, source):
    """zeros (rows, *source.shape[1:]) with source's rows added at `index` (repeats add up; bool as 'any');
    differentiable to source. Written in place into the fresh zeros: index_put_'s accumulation is several times
    faster than index_add's copy of the whole output."""
    if source.dtype == _C.bool:
        return _summed_into_zeros(rows, index, source.to(_C.int64)) != 0
    out = _C.zeros((rows,) + tuple(source.shape[1:]), dtype=source.dtype, device=source.device)
    if index.numel():
        if index.device.type == "cpu" and int(index.amin()) < 0:  # index_put would wrap it
            raise IndexError(f"index {int(index.amin())} is out of bounds for dimension 0 with size {rows}")
        out.index_put_((index,), source, accumulate=True)
    return out


def _coalesce_pattern(s):
    """(sorted distinct indices (k, m), the position (nnz,) of each original element among them)."""
    sd = s.sparse_dim()
    lead = s._shape[:sd]
    lin = _linear_index(s._idx, lead)
    uniq, inverse = _composite_math.unique(lin, sorted=True, return_inverse=True)
    return _unravel(uniq, lead), inverse


def dense_to_coo(t, sparse_dim=None):
    """Tensor.to_sparse(sparse_dim): the nonzero positions over the first sparse_dim dims (a position counts
    when any element of its trailing block is nonzero); differentiable to t through the gathered values."""
    n = t.dim()
    if sparse_dim is None:
        sparse_dim = n
    if not 0 <= sparse_dim <= n:
        raise RuntimeError(
            f"dense_to_sparse: sparse_dim argument must be in [0,{n}] range, but {sparse_dim} is given"
        )
    if sparse_dim == 0 and n > 0:
        raise RuntimeError("dense_to_sparse: sparse_dim argument must be in >0 when self.dim()>0")
    shape = tuple(t.shape)
    lead, dense = shape[:sparse_dim], shape[sparse_dim:]
    flat = t.reshape((_prod(lead),) + dense)
    mask = flat != 0
    if dense:
        mask = (
            mask.reshape(mask.shape[0], -1).any(1)
            if mask.numel()
            else _C.zeros((mask.shape[0],), dtype=_C.bool, device=t.device)
        )
    nz = mask.nonzero().reshape(-1)
    return SparseCooTensor(_unravel(nz, lead), flat.index_select(0, nz), shape, True)


def dense_to_csr(t, dense_dim=None):
    """Tensor.to_sparse_csr() of a dense tensor."""
    return dense_to_compressed(t, _layout.sparse_csr, None, dense_dim)


# ------------------------------------------------------------------------------------------- constructors


def _size_arg(size, what="size"):
    if isinstance(size, int):
        raise TypeError(f"{what} must be a tuple of ints, not int")
    out = tuple(int(s) for s in size)
    if any(s < 0 for s in out):
        raise RuntimeError(f"Trying to create tensor with negative dimension {min(out)}: {list(out)}")
    return out


def _checks_on(check_invariants):
    return _layout.checks_enabled() if check_invariants is None else bool(check_invariants)


_NO_VALUES = object()
_NO_SIZE = object()  # size not given (an explicit None is refused, as PyTorch's parser)
_SPARSE_COO_KW = (
    "ScalarType? dtype=None, Device? device=None, bool pin_memory=False, bool requires_grad=False"
)
_SPARSE_COO_FLAGS = "bool? check_invariants=None, bool? is_coalesced=None"
_SPARSE_COO_SIGNATURES = (
    f"object indices, object values, *, {_SPARSE_COO_KW}, {_SPARSE_COO_FLAGS}",
    f"object indices, object values, int[] size, *, {_SPARSE_COO_KW}, {_SPARSE_COO_FLAGS}",
    "int[] size, *, ScalarType? dtype=None, Device? device=None, bool requires_grad=False, bool? check_invariants=None",
)


def _size_only(size):
    """sparse_coo_tensor(size)'s size as PyTorch's int-list parser reads it (its overload `SymInt[] size`): an
    int, a one-element integer tensor, or a sequence of them"""
    if type(size) is int:
        return (size,)
    if type(size) in (tuple, list) and all(type(d) is int for d in size):
        return tuple(size)
    (size,) = _argcheck.check_call("sparse_coo_tensor", ["SymInt[] size"], (size,), {})
    return tuple(int(d) for d in size)


def _separate_ints(first, size):
    """whether (first, values, size) is the size-only form's int list: an int (or one-element integer tensor)
    first and a size that is no sequence"""
    if size is None or isinstance(size, (list, tuple)):
        return False
    if isinstance(first, _C.Tensor):
        return (
            first.numel() == 1
            and not first.is_floating_point()
            and not first.is_complex()
            and first.dtype != _C.bool
        )
    return isinstance(first, int) and not isinstance(first, bool)


def sparse_coo_tensor(
    indices,
    values=_NO_VALUES,
    size=_NO_SIZE,
    *,
    dtype=None,
    device=None,
    pin_memory=False,
    requires_grad=False,
    check_invariants=None,
    is_coalesced=None,
):
    """A COO sparse tensor with values at the columns of `indices` (sparse_dim x nnz); `size` is inferred
    from the largest index when omitted. Duplicate indices are kept (their values add up) until coalesce().

    Index bounds are always checked (PyTorch checks them only with check_invariants=True and otherwise reads
    out of bounds); check_invariants=True (or torch.sparse.check_sparse_tensor_invariants) also verifies an
    is_coalesced=True claim. The checks and the size's inference are one C++ call (ops/sparse.h
    sparse_coo_parts), which takes a plain call (tensors, a size of ints, no keywords) whole.

    sparse_coo_tensor(size, dtype=...) (PyTorch's size-only overload) is an empty one of that size."""
    if size is None:  # an explicit None: no overload of PyTorch's takes it (its size is not optional)
        kw = {"dtype": dtype, "device": device, "requires_grad": requires_grad}
        kw = {k: v for k, v in kw.items() if v not in (None, False)}
        _argcheck.check_call("sparse_coo_tensor", _SPARSE_COO_SIGNATURES, (indices, values, size), kw)
    if size is _NO_SIZE:
        size = None
    if dtype is None and device is None and not requires_grad and is_coalesced is None:
        parts = _C._sparse_coo_parts(indices, values, size, True)  # None unless the call is plain
        if parts is not None:
            return SparseCooTensor(*parts)
    if values is not _NO_VALUES and _separate_ints(indices, size):
        # PyTorch's parser reads three positional ints as the size-only overload's int list
        # (sparse_coo_tensor(4, 0, 3) is an empty (4, 0, 3) tensor); a non-int later is its unpack TypeError
        (parsed,) = _argcheck.check_call("sparse_coo_tensor", ["SymInt[] size"], (indices, values, size), {})
        indices, values = tuple(int(d) for d in parsed), _NO_VALUES
    elif size is not None and values is not _NO_VALUES and not isinstance(size, (list, tuple)):
        # PyTorch's parser: any other size is a sequence (a bare int or a tensor there matches no overload)
        _argcheck.check_call("sparse_coo_tensor", _SPARSE_COO_SIGNATURES, (indices, values, size), {})
    if values is _NO_VALUES:  # built here: the general path's checks all pass for no elements
        shape = _size_only(indices)
        if shape and min(shape) < 0:
            _size_arg(shape)  # its negative-dimension error
        empty_indices, values, shape = _C._sparse_coo_empty(shape, dtype, device)  # fresh: no alias to own
        if requires_grad:
            _check_requires_grad(values, requires_grad)
            values.requires_grad_(True)
        return SparseCooTensor(empty_indices, values, shape, True)
    indices = _as_index_tensor(indices, "indices")
    if not isinstance(values, _C.Tensor):
        values = _creation.tensor(values, dtype=dtype)
    if dtype is not None and values.dtype != dtype:
        values = values.to(dtype)
    if device is not None:
        values = values.to(device)
        indices = indices.to(device)
    parts = _C._sparse_coo_parts(indices, values, size, False)
    if parts is None:  # a size that is no sequence of ints: PyTorch's TypeError for the call
        _argcheck.check_call("sparse_coo_tensor", _SPARSE_COO_SIGNATURES, (indices, values, size), {})
        parts = _C._sparse_coo_parts(indices, values, _size_arg(size), False)
    indices, values, size, _ = parts
    sd, nnz = indices.shape
    _check_requires_grad(values, requires_grad)
    if is_coalesced is None:
        coalesced = nnz <= 1
    else:
        coalesced = bool(is_coalesced)
        if coalesced and nnz > 1 and _checks_on(check_invariants):
            lin = _linear_index(indices, size[:sd])
            if not bool((lin[1:] > lin[:-1]).all()):
                raise RuntimeError(
                    "cannot set is_coalesced to true if indices correspond to uncoalesced COO tensor"
                )
    return SparseCooTensor(indices, _owned_values(values, requires_grad), size, coalesced)


def _rebuild_sparse_coo(indices, values, size, coalesced, requires_grad):
    """Unpickling (and minitorch.load): the tensor again, its indices checked against its size first, as
    PyTorch validates the sparse tensors of a loaded file."""
    return sparse_coo_tensor(
        indices, values, size, requires_grad=requires_grad, is_coalesced=coalesced, check_invariants=True
    )


def _rebuild_sparse_csr(crow, col, values, size, requires_grad):
    """Unpickling a CSR tensor saved before the other compressed layouts existed."""
    return sparse_csr_tensor(crow, col, values, size, requires_grad=requires_grad, check_invariants=True)


def _rebuild_sparse_compressed(cidx, pidx, values, size, requires_grad, short):
    """Unpickling (and minitorch.load): a compressed tensor again, its invariants checked first."""
    layout = {info.short: lay for lay, info in _COMPRESSED.items()}[short]
    return _sparse_compressed(cidx, pidx, values, size, None, layout, None, requires_grad, True)


# ------------------------------------------------------------------------------ compressed layouts: building


def _plain_sorted(s):
    """Whether each compressed slot's plain indices are strictly increasing (the sorted-and-distinct invariant):
    every step between neighbours increases, except a step into the first element of a slot."""
    nnz = s._nnz()
    if nnz <= 1:
        return True
    nbatch = _prod(s.shape[: s._nbatch])
    if nbatch == 0:
        return True
    plain = s._pidx.reshape(nbatch, nnz)
    cidx = s._cidx.to(_C.int64).reshape(nbatch, -1)
    dev = plain.device
    starts = _C.zeros((nbatch * (nnz + 1),), dtype=_C.bool, device=dev)
    inner = cidx[:, 1:-1]
    if inner.numel():
        offsets = _C.arange(nbatch, dtype=_C.int64, device=dev).unsqueeze(1) * (nnz + 1)
        starts = starts.index_fill(0, (inner.clamp(0, nnz) + offsets).reshape(-1), True)
    starts = starts.reshape(nbatch, nnz + 1)[:, 1:nnz]
    return bool(((plain[:, 1:] > plain[:, :-1]) | starts).all())


def _compress(layout, shape, nbatch_dims, p, q, batch, comp, plain, values, index_dtype=_C.int64):
    """The compressed tensor of elements (blocks) given by their flat batch, compressed and plain indices (N,),
    sorted by (batch, compressed, plain), with values (N, *inner); p compressed and q plain slots per batch."""
    batch_shape = tuple(shape[:nbatch_dims])
    nbatch = _prod(batch_shape)
    dev = values.device
    counts = _C.zeros((nbatch * p,), dtype=_C.int64, device=dev)
    if batch.numel():
        counts = counts.index_add(0, batch * p + comp, _C.ones_like(batch))
    counts = counts.reshape(nbatch, p)
    if nbatch > 1:
        per_batch = counts.sum(1)
        if not bool((per_batch == per_batch[0]).all()):
            raise RuntimeError("Expect the same number of specified elements per batch.")
    nnz = batch.shape[0] // nbatch if nbatch else 0
    cidx = _C.cat([_C.zeros((nbatch, 1), dtype=_C.int64, device=dev), counts.cumsum(1)], 1)
    inner = tuple(values.shape[1:])
    return SparseCompressedTensor(
        cidx.reshape(batch_shape + (p + 1,)).to(index_dtype),
        plain.reshape(batch_shape + (nnz,)).to(index_dtype),
        values.reshape(batch_shape + (nnz,) + inner),
        shape,
        layout,
        sorted_=True,
        checked=True,
    )


def _blocksize_arg(blocksize, name):
    """A to_sparse_bsr/bsc blocksize as PyTorch's parser reads its `int[2]`: an int is square, a sequence of
    ints is taken as it is (its length checked later); anything else is its TypeError."""

    def is_int(x):
        return isinstance(x, int) and not isinstance(x, bool)

    if isinstance(blocksize, _C.Tensor) and blocksize.numel() == 1 and not blocksize.is_floating_point():
        blocksize = int(blocksize)  # the parser takes a one-element integer tensor for an int
    if isinstance(blocksize, (tuple, list)):
        # one-element integer tensors count as ints, as in PyTorch's lists
        blocksize = [
            int(b) if isinstance(b, _C.Tensor) and b.numel() == 1 and not b.is_floating_point() else b
            for b in blocksize
        ]
    if is_int(blocksize):
        return (blocksize, blocksize)
    if not isinstance(blocksize, (tuple, list)):
        raise TypeError(
            f"{name}(): argument 'blocksize' (position 1) must be tuple of ints, not {type(blocksize).__name__}"
        )
    for i, b in enumerate(blocksize):
        if not is_int(b):
            raise TypeError(
                f"{name}(): argument 'blocksize' (position 1) must be tuple of ints, but found element of type "
                f"{type(b).__name__} at pos {i}"
            )
    return tuple(blocksize)


def _check_blocksize(blocksize, shape, name):
    """PyTorch's refusals of a blocksize: its length, its sign, then (given the two sparse sizes) whether the
    blocks tile the matrix."""
    if len(blocksize) != 2:
        raise RuntimeError(f"{name}: blocksize needs to be a tuple of size 2, but got {len(blocksize)}")
    if blocksize[0] <= 0 or blocksize[1] <= 0:
        raise RuntimeError(f"{name}: blocksize needs to be positive, but got {list(blocksize)}")
    if shape is not None and (shape[0] % blocksize[0] or shape[1] % blocksize[1]):
        raise RuntimeError(
            f"{name}: tensor sparse size ({shape[0]},{shape[1]}) must be divisible by given blocksize "
            f"({blocksize[0]},{blocksize[1]})"
        )


def dense_to_compressed(t, layout, blocksize=None, dense_dim=None, name=None):
    """Tensor.to_sparse_csr/csc/bsr/bsc(): the elements (blocks) holding a nonzero, per batch (every batch must
    hold as many); differentiable to t through the gathered values."""
    info = _COMPRESSED[layout]
    name = name or f"dense_to_sparse_{info.short}"
    n = t.dim()
    dd = 0 if dense_dim is None else int(dense_dim)
    if info.blocked:  # the blocksize, then the sparse dims' sizes (PyTorch's errors for too few dims)
        _check_blocksize(blocksize, None, name)
        for d in (-2 - dd, -1 - dd):
            if n == 0:
                raise IndexError(f"Dimension specified as {d} but tensor has no dimensions")
            if not -n <= d < n:
                raise _dim_error(d, n)
        _check_blocksize(blocksize, (t.shape[-2 - dd], t.shape[-1 - dd]), name)
        if not 0 <= dd <= n - 2:
            raise RuntimeError(f"{name}: dense_dim argument must be in [0,{n - 2}] range, but {dd} is given")
    else:
        if dense_dim is not None and not 0 <= dd <= n - 2:
            raise RuntimeError(f"{name}: dense_dim argument must be in [0,{n - 2}] range, but {dd} is given")
        if n < 2:  # PyTorch's messages for these come from inside its conversion
            if info.rowwise:
                raise IndexError(
                    f"select(): index 1 out of range for tensor of size [{t.numel()}, {n}] at dimension 1"
                )
            raise _dim_error(1, 1)
    nb = n - 2 - dd
    shape = tuple(t.shape)
    if nb and _prod(shape[:nb]) == 0:
        raise RuntimeError(f"to_sparse_{info.short}: Expected product of batch dimensions to be non-zero.")
    nrows, ncols, dense = shape[nb], shape[nb + 1], shape[nb + 2 :]
    br, bc = blocksize if info.blocked else (1, 1)
    nbatch = _prod(shape[:nb])
    if info.blocked:
        x = t.reshape((nbatch, nrows // br, br, ncols // bc, bc) + dense)
        order = (0, 1, 3) if info.rowwise else (0, 3, 1)
        x = x.permute(*order, 2, 4, *range(5, x.dim()))
        inner = (br, bc) + dense
    else:
        x = t.reshape((nbatch, nrows, ncols) + dense)
        if not info.rowwise:
            x = x.transpose(1, 2)
        inner = dense
    p, q = x.shape[1], x.shape[2]
    flat = x.reshape((nbatch * p * q,) + inner)
    mask = flat != 0
    if inner:
        mask = (
            mask.reshape(mask.shape[0], -1).any(1)
            if mask.numel()
            else _C.zeros((mask.shape[0],), dtype=_C.bool, device=t.device)
        )
    nz = mask.nonzero().reshape(-1)
    per = builtins.max(p * q, 1)
    batch, rest = nz // per, nz % per
    comp, plain = rest // builtins.max(q, 1), rest % builtins.max(q, 1)
    return _compress(layout, shape, nb, p, q, batch, comp, plain, flat.index_select(0, nz))


def _sorted_by(key, *tensors):
    """The tensors reordered by ascending key (stable)."""
    order = key.sort(stable=True)[1]
    return [x.index_select(0, order) for x in tensors]


def coo_to_compressed(s, layout, nbatch_dims=0):
    """The compressed form of a COO tensor whose first nbatch_dims sparse dims are batch dims (the two after them
    the rows and columns): coalesced, then ordered by (batch, compressed, plain)."""
    info = _COMPRESSED[layout]
    c = s.coalesce()
    nb = nbatch_dims
    idx = c._idx
    batch = _linear_index(idx[:nb], c.shape[:nb]) if nb else _C.zeros_like(idx[0])
    rows, cols = idx[nb], idx[nb + 1]
    nrows, ncols = c.shape[nb], c.shape[nb + 1]
    comp, plain, p, q = (rows, cols, nrows, ncols) if info.rowwise else (cols, rows, ncols, nrows)
    vals = c._vals
    if not info.rowwise:  # a coalesced tensor is in (batch, row, column) order
        batch, comp, plain, vals = _sorted_by((batch * p + comp) * q + plain, batch, comp, plain, vals)
    return _compress(layout, c.shape, nb, p, q, batch, comp, plain, vals)


def _coo_to_layout(s, layout, blocksize, dense_dim, name):
    """SparseCooTensor.to_sparse_csr/csc/bsr/bsc(): a COO tensor of two sparse dims in a compressed layout."""
    info = _COMPRESSED[layout]
    what = f"coo_to_sparse_{info.short}"
    if s.sparse_dim() != 2:
        raise RuntimeError(
            f"{what}: conversion from Sparse to {info.word} for input tensors with sparse_dim()!=2 is not supported"
        )
    if dense_dim is not None and dense_dim != s.dense_dim():
        raise RuntimeError(
            f"{what}: conversion from Sparse to {info.word} with dense_dim argument given is not supported"
        )
    if info.blocked:
        blocksize = _blocksize_arg(blocksize, name)
        _check_blocksize(blocksize, tuple(s.shape[:2]), what)
        return dense_to_compressed(s.to_dense(), layout, blocksize, s.dense_dim(), what)
    if blocksize is not None:
        raise RuntimeError(
            f"{name}: conversion from Sparse to {info.word} with blocksize argument given is not supported"
        )
    return coo_to_compressed(s, layout)


def _compressed_to_compressed(s, layout, blocksize, dense_dim, name):
    """A compressed tensor in another compressed layout (or itself), with PyTorch's refusals."""
    if layout is _layout.strided:
        return s.to_dense()
    if layout not in _COMPRESSED:
        raise NotImplementedError(f"minitorch: conversion to {layout} is not supported")
    src, dst = s._info, _COMPRESSED[layout]
    if dst.blocked and blocksize is None:
        raise RuntimeError(
            f"sparse_compressed_to_sparse: conversion from {src.word} to {dst.word} without blocksize argument "
            "given is not supported"
        )
    if layout is s.layout:
        if dense_dim is not None:
            raise RuntimeError(
                f"{name}: conversion from {src.word} to {dst.word} with dense_dim argument given is not supported"
            )
        if not dst.blocked and blocksize is not None:
            raise RuntimeError(
                f"{name}: conversion from {src.word} to {dst.word} with blocksize argument given is not supported"
            )
        if dst.blocked:
            want = _blocksize_arg(blocksize, name)
            have = s._blocksize()
            if tuple(want) != tuple(have):
                raise RuntimeError(
                    f"{name}: conversion from {src.word} to {dst.word} with blocksize changed from {list(have)} to "
                    f"{list(want)} is not supported"
                )
        return s
    what = f"sparse_compressed_to_sparse_{dst.short}"
    if dense_dim is not None:
        raise RuntimeError(
            f"{what}: conversion from {src.word} to {dst.word} with dense_dim argument given is not supported"
        )
    if dst.blocked:
        blocksize = _blocksize_arg(blocksize, name)
        nb = s._nbatch
        _check_blocksize(blocksize, tuple(s.shape[nb : nb + 2]), what)
        return dense_to_compressed(s.to_dense(), layout, blocksize, s.dense_dim(), what)
    if src.blocked:
        raise RuntimeError(f"{what}: expected SparseCsr or SparseCsc layout but got {src.word}")
    if blocksize is not None:
        raise RuntimeError(
            f"{name}: conversion from {src.word} to {dst.word} with blocksize argument given is not supported"
        )
    # CSR <-> CSC: the same elements, ordered by the other index
    nb = s._nbatch
    batch, comp, plain = s._structure()
    inner = tuple(s._vals.shape[nb + 1 :])
    vals = s._vals.reshape((-1,) + inner)
    p = s.shape[nb] if dst.rowwise else s.shape[nb + 1]
    q = s.shape[nb + 1] if dst.rowwise else s.shape[nb]
    comp, plain = plain, comp
    batch, comp, plain, vals = _sorted_by((batch * p + comp) * q + plain, batch, comp, plain, vals)
    return _compress(layout, s.shape, nb, p, q, batch, comp, plain, vals, s._cidx.dtype)


# ----------------------------------------------------------------------- compressed layouts: the constructors


_INTEGRAL = (_C.uint8, _C.int8, _C.int16, _C.int32, _C.int64)


def _index_arg(x):
    """An index argument: a tensor as it is (PyTorch keeps any dtype until its checks), other data as int64."""
    if isinstance(x, _C.Tensor):
        return x
    t = _creation.tensor(x)
    return t if t.dtype in _INTEGRAL else t.to(_C.int64)


def _estimate_size(info, cidx, pidx, values, nb, blocksize):
    """PyTorch's size of a compressed tensor built without one: the batch dims of the indices, as many
    compressed slots as the compressed indices allow, as many plain ones as the largest plain index needs, the
    values' dense dims."""
    if pidx.dtype not in _INTEGRAL:
        raise NotImplementedError(
            f"\"estimate_sparse_compressed_tensor_size\" not implemented for '{scalar_name(pidx.dtype)}'"
        )
    ncomp = cidx.shape[-1] - 1 if cidx.shape[-1] > 0 else 0
    nplain = int(pidx.max().item()) + 1 if pidx.numel() else 0
    if pidx.dtype == _C.int32 and nplain == 2**31:  # PyTorch adds the 1 in int32: the largest one wraps
        nplain = -(2**31)
    br, bc = blocksize
    rows, cols = (ncomp * br, nplain * bc) if info.rowwise else (nplain * br, ncomp * bc)
    size = tuple(cidx.shape[:nb]) + (rows, cols) + tuple(values.shape[nb + 1 + (2 if info.blocked else 0) :])
    for d in (rows, cols):  # PyTorch's int64 arithmetic: the largest index + 1 wraps around
        wrapped = (d + 2**63) % 2**64 - 2**63
        if wrapped != d or d < -(2**62):
            raise RuntimeError(
                f"IntArrayRef contains an int that cannot be represented as a SymInt: {wrapped}"
            )
    _check_numel(size)
    return size


def _check_numel(size):
    """PyTorch's numel of a size with a negative dim: an unsigned overflow unless another dim is 0."""
    if size and builtins.min(size) < 0 and 0 not in size:
        raise RuntimeError("numel: integer multiplication overflow")


def _validate_compressed(info, cidx, pidx, values, size, nb, blocksize):
    """PyTorch's invariants of a compressed tensor (check_invariants=True), in the order it checks them."""
    c, p = info.compressed, info.plain
    block_nd = 2 if info.blocked else 0
    dense_nd = values.dim() - nb - block_nd - 1
    if len(size) != nb + 2 + dense_nd:
        raise RuntimeError(
            f"tensor dimensionality must be sum of batch, base, and dense dimensionalities (={nb} + 2 + {dense_nd}) "
            f"but got {len(size)}"
        )
    batch = list(size[:nb])
    cb, pb, vb = list(cidx.shape[:nb]), list(pidx.shape[:nb]), list(values.shape[:nb])
    if not batch == cb == pb == vb:
        raise RuntimeError(
            f"all batch dimensions of {c} (={cb}), {p} (={pb}), and values (={vb}) must be equal to tensor batch "
            f"dimensions (={batch})"
        )
    for i in range(block_nd):
        if size[nb + i] % blocksize[i]:
            raise RuntimeError(
                f"tensor shape[{nb + i}] (={size[nb + i]}) must be divisible with blocksize[{i}] (={blocksize[i]}) "
                "as defined by values shape"
            )
    nrows, ncols = size[nb] // blocksize[0], size[nb + 1] // blocksize[1]
    ncomp, nplain = (nrows, ncols) if info.rowwise else (ncols, nrows)
    if cidx.shape[-1] != ncomp + 1:
        raise RuntimeError(
            f"{c}.shape[-1] must be equal to the number of {info.compressed_dim}s + 1 (={ncomp + 1}), but got "
            f"{cidx.shape[-1]}"
        )
    nnz = values.shape[nb]
    if pidx.shape[-1] != nnz:
        raise RuntimeError(
            f"{p}.shape[-1] must be equal to nnz (={nnz}) as defined by values.shape[{nb}], but got {pidx.shape[-1]}"
        )
    if cidx.dtype != pidx.dtype:
        raise RuntimeError(
            f"{c} and {p} must have the same dtype, bot got {scalar_name(cidx.dtype)} and {scalar_name(pidx.dtype)}, "
            "respectively"
        )
    if cidx.dtype not in (_C.int32, _C.int64):
        raise RuntimeError(f"{c} and {p} dtype must be Int or Long, but got {scalar_name(cidx.dtype)}")
    if cidx.dtype == _C.int32:
        for what, n in (("row", size[nb]), ("column", size[nb + 1])):
            if n > 2**31 - 1:
                raise RuntimeError(f"32-bit integer overflow in {what} dimension = {n}")
    cflat = cidx.reshape(-1, ncomp + 1)
    if cflat.numel():
        if bool((cflat[:, 0] != 0).any()):
            raise RuntimeError(f"`{c}[..., 0] == 0` is not satisfied.")
        if bool((cflat[:, -1] != nnz).any()):
            raise RuntimeError(f"`{c}[..., -1] == nnz` is not satisfied.")
        steps = cflat[:, 1:] - cflat[:, :-1]
        if steps.numel() and not bool(((steps >= 0) & (steps <= nplain)).all()):
            raise RuntimeError(f"`0 <= {c}[..., 1:] - {c}[..., :-1] <= {info.nplain}` is not satisfied.")
    if pidx.numel() and not bool(((pidx >= 0) & (pidx < nplain)).all()):
        raise RuntimeError(f"`0 <= {p} < {info.nplain}` is not satisfied.")


def _unsorted_error(info):
    c, p = info.compressed, info.plain
    return RuntimeError(
        f"`{p}[..., {c}[..., i - 1]:{c}[..., i]] for all i = 1, ..., {info.ncompressed} are sorted and distinct "
        "along the last dimension values` is not satisfied."
    )


def _check_compressed_dims(info, cidx, pidx, values):
    if cidx.dim() < 1:
        raise RuntimeError(f"{info.compressed} must have dimensionality >= 1 but got {cidx.dim()}")
    if cidx.dim() != pidx.dim():
        raise RuntimeError(
            f"{info.compressed} and {info.plain} dimensionalities must be equal but got {cidx.dim()} and "
            f"{pidx.dim()}, respectively"
        )
    nb, block_nd = cidx.dim() - 1, 2 if info.blocked else 0
    if values.dim() - nb - block_nd - 1 < 0:
        raise RuntimeError(
            f"values must have dimensionality > sum of batch and block dimensionalities (={nb} + {block_nd}) but "
            f"got {values.dim()}"
        )


def _check_layout_arg(name, layout, expected):
    """PyTorch's refusal of a layout= other than the constructor's own."""
    if layout is not None and layout is not expected:
        raise RuntimeError(
            f"{name}: layout must be {_COMPRESSED[expected].word} but got {_layout_word_of(layout)}"
        )


def _layout_word_of(layout):
    if layout is None:
        return "none"
    if layout is _layout.strided:
        return "Strided"
    if layout is _layout.sparse_coo:
        return "Sparse"
    if layout in _COMPRESSED:
        return _COMPRESSED[layout].word
    return layout._name.capitalize()


_COMPRESSED_KW = (
    "*, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool pin_memory=False, "
    "bool requires_grad=False, bool? check_invariants=None"
)


def _compressed_signatures(compressed, plain):
    """PyTorch's two overloads of a compressed constructor (with and without a size)."""
    head = f"object? {compressed}, object? {plain}, object? values"  # None: the conversion's own error
    return (f"{head}, int[] size, {_COMPRESSED_KW}", f"{head}, {_COMPRESSED_KW}")


@_argcheck.parses(*_compressed_signatures("compressed_indices", "plain_indices"))
def sparse_compressed_tensor(
    compressed_indices,
    plain_indices,
    values,
    size=None,
    *,
    dtype=None,
    layout=None,
    device=None,
    pin_memory=False,
    requires_grad=False,
    check_invariants=None,
):
    """A sparse tensor in a compressed layout (CSR, CSC, BSR, BSC): `compressed_indices` (*batch, n + 1) point
    into `plain_indices` (*batch, nnz) and `values` (*batch, nnz, *block, *dense) for each of the n compressed
    rows (columns, blocks). `size` defaults to what the indices need.

    As in PyTorch, the invariants (index ranges, monotone compressed indices, sorted plain indices) are checked
    at construction only with check_invariants=True (or under torch.sparse.check_sparse_tensor_invariants);
    otherwise the first operation that reads the indices checks them (all but the sorting) and raises the same
    error, where PyTorch would read out of bounds."""
    return _sparse_compressed(
        compressed_indices,
        plain_indices,
        values,
        size,
        dtype,
        layout,
        device,
        requires_grad,
        check_invariants,
    )


def _sparse_compressed(
    compressed_indices, plain_indices, values, size, dtype, layout, device, requires_grad, check_invariants
):
    """sparse_compressed_tensor once PyTorch's parser took its arguments."""
    cidx, pidx = _index_arg(compressed_indices), _index_arg(plain_indices)
    if not isinstance(values, _C.Tensor):
        values = _creation.tensor(values, dtype=dtype)
    if layout not in _COMPRESSED:
        raise RuntimeError(
            f"sparse_compressed_tensor expected sparse compressed tensor layout but got {_layout_word_of(layout)}"
        )
    info = _COMPRESSED[layout]
    if dtype is not None and values.dtype != dtype:
        values = values.to(dtype)
    if device is not None:
        values, cidx, pidx = values.to(device), cidx.to(device), pidx.to(device)
    for name, t in ((info.compressed, cidx), (info.plain, pidx)):
        if t.device != values.device:
            raise RuntimeError(
                f"device of {name} ({_device_index(t.device)}) must match device of values "
                f"({_device_index(values.device)})"
            )
    checks = _checks_on(check_invariants)
    nb = cidx.dim() - 1
    # PyTorch checks the dims only to infer a size, or with check_invariants
    if size is None or checks:
        _check_compressed_dims(info, cidx, pidx, values)
    blocksize = (1, 1)
    if info.blocked and values.dim() >= nb + 3:
        blocksize = (builtins.max(1, values.shape[nb + 1]), builtins.max(1, values.shape[nb + 2]))
    if size is None:
        size = _estimate_size(info, cidx, pidx, values, nb, blocksize)
    else:
        if isinstance(size, int):
            raise TypeError("size must be a tuple of ints, not int")
        size = tuple(int(d) for d in size)  # the parser took ints (0-dim integer tensors too)
        if size and builtins.min(size) < 0:
            if checks:
                raise RuntimeError(f"`0 <= {info.plain} < {info.nplain}` is not satisfied.")
            _check_numel(size)
    if checks:
        _validate_compressed(info, cidx, pidx, values, size, nb, blocksize)
    out = SparseCompressedTensor(cidx, pidx, values, size, layout)
    sorted_ = None
    if checks:
        sorted_ = _plain_sorted(out)
        if not sorted_:
            raise _unsorted_error(info)
    _check_requires_grad(values, requires_grad)
    out._vals = _owned_values(values, requires_grad)
    out._sorted = sorted_
    out._checked = sorted_ is True
    return out


@_argcheck.parses(*_compressed_signatures("crow_indices", "col_indices"))
def sparse_csr_tensor(
    crow_indices,
    col_indices,
    values,
    size=None,
    *,
    dtype=None,
    layout=None,
    device=None,
    pin_memory=False,
    requires_grad=False,
    check_invariants=None,
):
    """A sparse tensor in CSR layout: row i of each batch holds the columns col_indices[crow_indices[i]:
    crow_indices[i + 1]] with their values (torch.sparse_compressed_tensor with layout=torch.sparse_csr)."""
    _check_layout_arg("sparse_csr_tensor", layout, _layout.sparse_csr)
    return _sparse_compressed(
        crow_indices,
        col_indices,
        values,
        size,
        dtype,
        _layout.sparse_csr,
        device,
        requires_grad,
        check_invariants,
    )


@_argcheck.parses(*_compressed_signatures("ccol_indices", "row_indices"))
def sparse_csc_tensor(
    ccol_indices,
    row_indices,
    values,
    size=None,
    *,
    dtype=None,
    layout=None,
    device=None,
    pin_memory=False,
    requires_grad=False,
    check_invariants=None,
):
    """A sparse tensor in CSC layout: column j of each batch holds the rows row_indices[ccol_indices[j]:
    ccol_indices[j + 1]] with their values."""
    _check_layout_arg("sparse_csc_tensor", layout, _layout.sparse_csc)
    return _sparse_compressed(
        ccol_indices,
        row_indices,
        values,
        size,
        dtype,
        _layout.sparse_csc,
        device,
        requires_grad,
        check_invariants,
    )


@_argcheck.parses(*_compressed_signatures("crow_indices", "col_indices"))
def sparse_bsr_tensor(
    crow_indices,
    col_indices,
    values,
    size=None,
    *,
    dtype=None,
    layout=None,
    device=None,
    pin_memory=False,
    requires_grad=False,
    check_invariants=None,
):
    """A sparse tensor in BSR layout: CSR over blocks, values (*batch, nnz, block rows, block cols, *dense)."""
    _check_layout_arg("sparse_bsr_tensor", layout, _layout.sparse_bsr)
    return _sparse_compressed(
        crow_indices,
        col_indices,
        values,
        size,
        dtype,
        _layout.sparse_bsr,
        device,
        requires_grad,
        check_invariants,
    )


@_argcheck.parses(*_compressed_signatures("ccol_indices", "row_indices"))
def sparse_bsc_tensor(
    ccol_indices,
    row_indices,
    values,
    size=None,
    *,
    dtype=None,
    layout=None,
    device=None,
    pin_memory=False,
    requires_grad=False,
    check_invariants=None,
):
    """A sparse tensor in BSC layout: CSC over blocks, values (*batch, nnz, block rows, block cols, *dense)."""
    _check_layout_arg("sparse_bsc_tensor", layout, _layout.sparse_bsc)
    return _sparse_compressed(
        ccol_indices,
        row_indices,
        values,
        size,
        dtype,
        _layout.sparse_bsc,
        device,
        requires_grad,
        check_invariants,
    )


# ---------------------------------------------------------------------------------------------- printing


def _body(t, indent):
    """A dense tensor's bracketed elements as its repr prints them, lines indented for column `indent`."""
    if t.numel() == 0:
        return "[]"
    arr = _tensor_str._host_array(t)
    summarize = arr.size > _tensor_str.PRINT_OPTS.threshold
    fmt = _tensor_str._Formatter(_tensor_str._summarized(arr) if summarize else arr, t.is_floating_point())
    return _tensor_str._array_str(arr, indent, summarize, fmt)


def _field(name, t, indent):
    prefix = f"{name}=tensor("
    body = _body(t.detach(), indent + len(prefix))
    if t.numel() == 0:
        body += f", size={tuple(t.shape)}"
    return prefix + body + ")"


def _sparse_repr(s):
    """PyTorch's repr of a sparse tensor: its index tensors and values, then size, nnz, dtype, layout."""
    prefix = "tensor("
    indent = len(prefix)
    suffixes = []
    if s.device.type != "cpu":
        suffixes.append(f"device='{s.device}'")
    suffixes.append(f"size={tuple(s.shape)}")
    suffixes.append(f"nnz={s._nnz()}")
    if s.dtype not in (_C.get_default_dtype(), _C.int64, _C.bool):
        suffixes.append(f"dtype={s.dtype}")
    if isinstance(s, SparseCooTensor):
        fields = [_field("indices", s._idx, indent), _field("values", s._vals, indent)]
    else:
        fields = [
            _field(s._info.compressed, s._cidx, indent),
            _field(s._info.plain, s._pidx, indent),
            _field("values", s._vals, indent),
        ]
    suffixes.append(f"layout={s.layout}")
    if s.grad_fn is not None:
        suffixes.append(f"grad_fn=<{s.grad_fn.name()}>")
    elif s.requires_grad:
        suffixes.append("requires_grad=True")
    body = prefix + (",\n" + " " * indent).join(fields)
    # PyTorch puts a COO tensor's first suffix on a new line; the rest wrap at the line width
    out = [body]
    force_newline = isinstance(s, SparseCooTensor)
    last = len(body) - body.rfind("\n") + 1
    width = _tensor_str.PRINT_OPTS.linewidth
    for suffix in suffixes:
        if force_newline or last + len(suffix) + 2 > width:
            out.append(",\n" + " " * indent + suffix)
            last = indent + len(suffix)
            force_newline = False
        else:
            out.append(", " + suffix)
            last += len(suffix) + 2
    return "".join(out) + ")"
