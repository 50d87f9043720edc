"""The sparse COO and CSR tensor types: dense minitorch tensors (indices, values) behind PyTorch's sparse API.

A COO tensor of shape (s_0, ..., s_{k-1}, d_0, ...) holds `indices` (int64, k x nnz) and `values` (nnz, d_0, ...);
a CSR matrix holds `crow_indices` (nrows + 1), `col_indices` (nnz) and `values` (nnz). Operations are composed
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
        x = _creation.tensor(x)
    if x.dtype not in _INT_DTYPES:
        x = x.to(_C.int64)
    return x


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
    crow = crow.to(_C.int64)
    pos = _C.arange(nnz, dtype=_C.int64, device=crow.device)
    return _composite_math.searchsorted(crow, pos, right=True) - 1


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
        v = self._vals
        out = _C.zeros((idx.shape[1],) + tuple(v.shape[1:]), dtype=v.dtype, device=v.device)
        return SparseCooTensor(idx, _index_add(out, inverse, v), self._shape, True)

    # -- conversions
    def to_dense(self, dtype=None, *, masked_grad=None):
        """The dense tensor: duplicates add up; differentiable to the values."""
        v = self._vals if dtype is None else self._vals.to(dtype)
        sd = self.sparse_dim()
        lead = self._shape[:sd]
        out = _C.zeros((_prod(lead),) + tuple(self._shape[sd:]), dtype=v.dtype, device=v.device)
        if self._nnz():
            out = _index_add(out, _linear_index(self._idx, lead), v)
        return out.reshape(tuple(self._shape))

    def to_sparse(self, sparse_dim=None, *, layout=None, blocksize=None, dense_dim=None):
        """Itself (a COO tensor already), or its CSR form with layout=torch.sparse_csr."""
        if layout is _layout.sparse_csr:
            return self.to_sparse_csr(dense_dim)
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
        """The CSR form of a 2-D COO tensor (coalesced first)."""
        if self.dim() != 2 or self.sparse_dim() != 2 or dense_dim:
            raise NotImplementedError(
                "minitorch: sparse CSR tensors are 2-D matrices without batch or dense dimensions here, got a "
                f"COO tensor of shape {list(self._shape)} with {self.sparse_dim()} sparse dimensions"
            )
        c = self.coalesce()
        crow = _crow_of(c._idx[0], self._shape[0])
        return SparseCsrTensor(crow, c._idx[1], c._vals, self._shape, sorted_=True, rows=c._idx[0])

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


class SparseCsrTensor(_SparseTensor):
    """A sparse matrix in compressed sparse row format (layout ``torch.sparse_csr``), built by
    ``torch.sparse_csr_tensor`` or ``Tensor.to_sparse_csr()``: 2-D, no batch or dense dimensions."""

    layout = _layout.sparse_csr
    is_sparse_csr = True
    _layout_word = "SparseCsr"

    def __init__(self, crow, col, values, size, sorted_=False, rows=None):
        self._crow = crow
        self._col = col
        self._vals = values
        self._shape = Size(size)
        self._sorted = sorted_  # columns known sorted and distinct within each row (to_sparse is coalesced)
        self._rows = rows  # the row of each element, int64, computed once when first needed

    def _map_tensors(self, fn, values):
        rows = None if self._rows is None else fn(self._rows)
        return SparseCsrTensor(fn(self._crow), fn(self._col), values, self._shape, self._sorted, rows)

    def _with_values(self, values):
        return SparseCsrTensor(self._crow, self._col, values, self._shape, self._sorted, self._rows)

    def _grad_from_values(self, g):
        return self._with_values(g)

    def sparse_dim(self):
        """2: a CSR tensor is a matrix."""
        return 2

    def dense_dim(self):
        """0: CSR tensors here have no dense dims."""
        return 0

    def crow_indices(self):
        """The row pointers (nrows + 1): row i's elements are at crow[i]:crow[i + 1]."""
        return self._crow

    def col_indices(self):
        """The column of each stored element (nnz)."""
        return self._col

    def values(self):
        """The stored values (nnz)."""
        return self._vals

    def _row_indices(self):
        """The row of each stored element (nnz,), int64 (the structure does not change, so it is kept)."""
        if self._rows is None:
            self._rows = _rows_of(self._crow, self._nnz())
        return self._rows

    def _layout_error(self, what, expected="sparse coordinate tensor layout"):
        raise RuntimeError(f"{what} expected {expected} but got SparseCsr")

    def indices(self):
        """PyTorch's error: a CSR tensor has no COO indices."""
        self._layout_error("indices")

    _indices = indices

    def coalesce(self):
        """PyTorch's error: coalescing is for COO tensors."""
        self._layout_error("coalesce")

    def is_coalesced(self):
        """PyTorch's error: coalescing is for COO tensors."""
        self._layout_error("is_coalesced")

    def to_sparse(self, sparse_dim=None, *, layout=None, blocksize=None, dense_dim=None):
        """The COO form (coalesced when the rows' columns are sorted and distinct)."""
        if layout is _layout.sparse_csr:
            return self
        if layout not in (None, _layout.sparse_coo):
            raise NotImplementedError(f"minitorch: conversion to {layout} is not supported")
        if sparse_dim not in (None, 2):
            raise RuntimeError(
                f"sparse_dim argument for sparse_csr_to_sparse must be in [1, 2] range, but got {sparse_dim}"
            )
        idx = _C.stack([self._row_indices(), self._col.to(_C.int64)], 0)
        return SparseCooTensor(idx, self._vals, self._shape, self._sorted)

    to_sparse_coo = to_sparse

    def to_sparse_csr(self, dense_dim=None):
        """Itself."""
        return self

    def to_dense(self, dtype=None, *, masked_grad=None):
        """The dense matrix; differentiable to the values."""
        return self.to_sparse().to_dense(dtype)

    def t(self):
        """Not available: the transpose of a CSR matrix is a CSC matrix, which minitorch does not have."""
        raise NotImplementedError(
            "minitorch: the transpose of a CSR matrix is a CSC matrix, a layout minitorch does not have; "
            "use .to_sparse().t() (COO)"
        )

    def __reduce__(self):
        return (
            _rebuild_sparse_csr,
            (self._crow, self._col, self._vals.detach(), tuple(self._shape), self._vals.requires_grad),
        )


# ------------------------------------------------------------------------------------- shared computations


def _index_add(out, index, source):
    """out.index_add(0, index, source) for every dtype: bool sums as 'any' (through int64)."""
    if source.dtype == _C.bool:
        return out.to(_C.int64).index_add(0, index, source.to(_C.int64)) != 0
    return out.index_add(0, index, source)


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
    """Tensor.to_sparse_csr() of a dense matrix."""
    if dense_dim is not None and not 0 <= dense_dim <= t.dim() - 2:
        raise RuntimeError(
            f"dense_to_sparse_csr: dense_dim argument must be in [0,{t.dim() - 2}] range, but {dense_dim} is given"
        )
    if t.dim() < 2:  # PyTorch's own message for a 1-d input is an IndexError from inside its conversion
        raise IndexError(f"select(): index 1 out of range for tensor of size [0, {t.dim()}] at dimension 1")
    if t.dim() != 2 or dense_dim:
        raise NotImplementedError(
            f"minitorch: to_sparse_csr() of a {t.dim()}-D tensor (sparse CSR tensors are 2-D matrices here)"
        )
    return dense_to_coo(t).to_sparse_csr()


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
    size=None,
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


def sparse_csr_tensor(
    crow_indices,
    col_indices,
    values,
    size=None,
    *,
    dtype=None,
    device=None,
    pin_memory=False,
    requires_grad=False,
    check_invariants=None,
):
    """A CSR sparse matrix: row i holds the columns col_indices[crow_indices[i]:crow_indices[i+1]] with their
    values; `size` defaults to (len(crow_indices) - 1, max column + 1).

    The structure (lengths, crow_indices starting at 0, ending at nnz and never decreasing, columns in range)
    is always checked; check_invariants=True also checks that each row's columns are sorted and distinct."""
    crow = _as_index_tensor(crow_indices, "crow_indices")
    col = _as_index_tensor(col_indices, "col_indices")
    if not isinstance(values, _C.Tensor):
        values = _creation.tensor(values, dtype=dtype)
    if dtype is not None and values.dtype != dtype:
        values = values.to(dtype)
    if device is not None:
        values, crow, col = values.to(device), crow.to(device), col.to(device)
    for name, t in (("crow_indices", crow), ("col_indices", col)):
        if t.device != values.device:
            raise RuntimeError(
                f"device of {name} ({_device_index(t.device)}) must match device of values "
                f"({_device_index(values.device)})"
            )
    if crow.dtype != col.dtype:
        raise RuntimeError(
            f"crow_indices and col_indices must have the same dtype, bot got {scalar_name(crow.dtype)} and "
            f"{scalar_name(col.dtype)}, respectively"
        )
    if crow.dtype not in (_C.int32, _C.int64):
        crow, col = crow.to(_C.int64), col.to(_C.int64)
    if crow.dim() != col.dim():
        raise RuntimeError(
            f"crow_indices and col_indices dimensionalities must be equal but got {crow.dim()} and {col.dim()}, "
            "respectively"
        )
    if crow.dim() != 1 or values.dim() != 1:
        raise NotImplementedError(
            "minitorch: sparse CSR tensors are 2-D matrices here (no batch or dense dimensions)"
        )
    nnz = values.shape[0]
    if size is None:
        ncols = int(col.amax().item()) + 1 if col.numel() else 0
        size = (crow.shape[0] - 1, ncols)
    else:
        size = _size_arg(size)
        if len(size) != 2:
            raise RuntimeError(
                "tensor dimensionality must be sum of batch, base, and dense dimensionalities (=0 + 2 + 0) but "
                f"got {len(size)}"
            )
    nrows, ncols = size
    if col.shape[0] != nnz:
        raise RuntimeError(
            f"col_indices.shape[-1] must be equal to nnz (={nnz}) as defined by values.shape[0], but got "
            f"{col.shape[0]}"
        )
    if crow.shape[0] != nrows + 1:
        raise RuntimeError(
            f"crow_indices.shape[-1] must be equal to the number of rows + 1 (={nrows + 1}), but got "
            f"{crow.shape[0]}"
        )
    first, last = (int(x) for x in crow[[0, -1]].tolist()) if crow.shape[0] else (0, 0)
    if first != 0:
        raise RuntimeError("`crow_indices[..., 0] == 0` is not satisfied.")
    if last != nnz:
        raise RuntimeError("`crow_indices[..., -1] == nnz` is not satisfied.")
    steps = crow[1:] - crow[:-1]
    if nrows and not bool(((steps >= 0) & (steps <= ncols)).all()):
        raise RuntimeError("`0 <= crow_indices[..., 1:] - crow_indices[..., :-1] <= ncols` is not satisfied.")
    if nnz and not bool(((col >= 0) & (col < ncols)).all()):
        raise RuntimeError("`0 <= col_indices < ncols` is not satisfied.")
    out = SparseCsrTensor(crow, col, values, size)
    sorted_ = True
    if nnz > 1:
        # known sorted rows make the COO form coalesced; unsorted ones are an error only when checking
        lin = _linear_index(_C.stack([out._row_indices(), col.to(_C.int64)], 0), size)
        sorted_ = bool((lin[1:] > lin[:-1]).all())
        if not sorted_ and _checks_on(check_invariants):
            raise RuntimeError(
                "`col_indices[..., crow_indices[..., i - 1]:crow_indices[..., i]] for all i = 1, ..., nrows are "
                "sorted and distinct along the last dimension values` is not satisfied."
            )
    _check_requires_grad(values, requires_grad)
    out._vals = _owned_values(values, requires_grad)
    out._sorted = sorted_
    return out


def _rebuild_sparse_coo(indices, values, size, coalesced, requires_grad):
    """Unpickling (and minitorch.load): the tensor again, its indices checked against its size first, as
    PyTorch validates the sparse tensors of a loaded file."""
    return sparse_coo_tensor(
        indices, values, size, requires_grad=requires_grad, is_coalesced=coalesced, check_invariants=True
    )


def _rebuild_sparse_csr(crow, col, values, size, requires_grad):
    return sparse_csr_tensor(crow, col, values, size, requires_grad=requires_grad, check_invariants=True)


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
            _field("crow_indices", s._crow, indent),
            _field("col_indices", s._col, indent),
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
