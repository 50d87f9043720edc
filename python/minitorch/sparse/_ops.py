"""Sparse arithmetic, products, reductions and softmax, composed from dense ops so autograd records them.

Sparse @ dense (and dense @ sparse) of a float32/float64 matrix runs the native CSR kernels of ops/sparse.h (our
CPU loop, cuSPARSE on CUDA): one pass per output row, no nnz x n intermediate, with their own backward (the
transposed product for the dense operand, the sampled dense-dense product for the values). Everything else
(hybrid tensors, batched or other-dtype operands, products under create_graph) is gathers and scatter-adds over
the stored elements: gather the rows of the dense operand at the column indices, scale them by the values, add
them into the output rows (index_select, mul, index_add), differentiable through those ops' own formulas.
"""

import numbers

from minitorch import _C, _argcheck, _composite_math, _composite_shape
from minitorch._dtype_names import scalar_name
from minitorch.autograd.function import Function
from minitorch.sparse import _layout
from minitorch.sparse._types import (
    _COMPRESSED,
    SparseCompressedTensor,
    SparseCooTensor,
    _blocksize_arg,
    _crow_of,
    _index_add,
    _linear_index,
    _prod,
    _rows_of,
    _SparseTensor,
    coo_to_compressed,
    dense_to_compressed,
    dense_to_coo,
    wrap_dim,
)


def is_sparse(x):
    """Whether x is a sparse tensor (COO or CSR)."""
    return isinstance(x, _SparseTensor)


def _coo(x):
    return x.to_sparse() if isinstance(x, SparseCompressedTensor) else x


def _like_layout(result, *inputs):
    """A sparse COO result back in the compressed layout of the sparse inputs when they all have one (PyTorch
    keeps the operands' layout), with their batch dims and block size."""
    sparse = [x for x in inputs if is_sparse(x)]
    if not is_sparse(result) or not sparse or not all(isinstance(x, SparseCompressedTensor) for x in sparse):
        return result
    first = sparse[0]
    nb = first._nbatch
    if result.dim() != first.dim() or result.sparse_dim() != nb + 2:
        return result
    if first._info.blocked:
        out = dense_to_compressed(result.to_dense(), first.layout, first._blocksize(), first.dense_dim())
    elif first.layout is _layout.sparse_csr and nb == 0:
        out = result.to_sparse_csr()
    else:
        out = coo_to_compressed(result, first.layout, nb)
    if first._cidx.dtype == _C.int32:  # the operands' index dtype, as PyTorch keeps it
        out._cidx, out._pidx = out._cidx.to(_C.int32), out._pidx.to(_C.int32)
    return out


def _product_layout(result, a, b):
    """A sparse @ sparse product: CSR when both operands are compressed (whatever their layouts, as PyTorch)."""
    if isinstance(a, SparseCompressedTensor) and isinstance(b, SparseCompressedTensor):
        return result.to_sparse_csr()
    return result


def _is_number(x):
    return isinstance(x, numbers.Number) and not isinstance(x, _SparseTensor)


def _is_scalar_like(x):
    return _is_number(x) or (isinstance(x, _C.Tensor) and x.dim() == 0)


# ------------------------------------------------------------------------------------------------ products


def _check_dtype(s, dense):
    if dense.dtype != s.dtype:
        raise RuntimeError(
            f"expected scalar type {scalar_name(s.dtype)} but found {scalar_name(dense.dtype)}"
        )


def _check_product_dtype(s, x):
    """PyTorch's sparse products have no bool kernel (its CSR ones are MKL's, named in the message)."""
    if s.dtype == _C.bool:
        if isinstance(s, SparseCompressedTensor):
            kernel = "addmv_out_sparse_csr_impl_mkl" if x.dim() == 1 else "addmm_out_sparse_csr_impl_mkl"
        else:
            kernel = "addmm_sparse_dense"
        raise NotImplementedError(f"\"{kernel}\" not implemented for 'Bool'")


def _check_matrix(s):
    if isinstance(s, SparseCompressedTensor) and (s._nbatch or s.dense_dim()):
        raise RuntimeError("Sparse CSR tensors do not have strides")
    if s.dim() < 2:
        raise IndexError("Dimension out of range (expected to be in range of [-1, 0], but got -2)")
    if s.dim() != 2 or s.sparse_dim() != 2:
        raise RuntimeError(f"addmm: matrices expected, got {s.sparse_dim()}D tensor")


def _entries(s):
    """(rows, cols, values) of a sparse matrix, COO or CSR (no coalescing: duplicates add up by linearity)."""
    if isinstance(s, SparseCompressedTensor):
        if s.layout is _layout.sparse_csr and s._is_plain_matrix():
            return s._row_indices(), s._pidx.to(_C.int64), s._vals
        s = s.to_sparse()
    return s._idx[0], s._idx[1], s._vals


def _column(v, ndim):
    """The values (nnz,) shaped to scale the rows of an (nnz, ...) gather of ndim dims."""
    return v.reshape((v.shape[0],) + (1,) * (ndim - 1))


_NATIVE_DTYPES = (_C.float32, _C.float64)
_native_devices = None


def _has_native(device_type):
    """Whether this build has the CSR product kernels for the device type ('cpu' always; 'cuda' with cuSPARSE)."""
    global _native_devices
    if _native_devices is None:
        rows = {row[0]: set(row[2]) for row in _C._op_table("stubs")}
        _native_devices = rows.get("csr_mm_stub", set()) & rows.get("csr_sddmm_stub", set())
    return device_type in _native_devices


def _csr_structure(s):
    """(crow, col) of a coalesced COO matrix (its entries are sorted by row), kept once computed; None when it is
    not coalesced (its rows may come in any order)."""
    if not s.is_coalesced():
        return None
    cached = getattr(s, "_csr_cache", None)
    if cached is None:
        cached = (_crow_of(s._idx[0], s.shape[0]), s._idx[1])
        s._csr_cache = cached
    return cached


def _compressed_structure(s):
    """(crow, col, cols, transposed) of a 2-D CSR or CSC matrix for the kernels: a CSC matrix's arrays are the
    CSR arrays of its transpose. Indices of another dtype (PyTorch keeps what it was given) become int64; a
    tensor built without checks is checked once first (on a GPU the kernels do not check the indices)."""
    crow, col = s._cidx, s._pidx
    if crow.dtype != col.dtype or crow.dtype not in (_C.int32, _C.int64):
        crow, col = crow.to(_C.int64), col.to(_C.int64)
    s._ensure_valid()
    if s.layout is _layout.sparse_csc:
        return crow, col, s.shape[0], True
    return crow, col, s.shape[1], False


class _CsrMm(Function):
    """op(A) @ dense for a CSR matrix A (op: A, or A^T when transpose), differentiable to A's values and dense."""

    @staticmethod
    def forward(ctx, crow, col, values, dense, cols, transpose):
        ctx.save_for_backward(crow, col, values, dense)
        ctx.cols, ctx.transpose = cols, transpose
        return _C._sparse_csr_mm(crow, col, values, dense, cols, transpose)

    @staticmethod
    def backward(ctx, g):
        crow, col, values, dense = ctx.saved_tensors
        if _C.is_grad_enabled():  # create_graph: the same product, through ops autograd records
            return (None, None) + _csr_mm_grads_composed(ctx, crow, col, values, dense, g) + (None, None)
        g = g.contiguous()
        g_values = g_dense = None
        if ctx.needs_input_grad[2]:  # d/dv_e of out[r] += v_e dense[c] (transposed: out[c] += v_e dense[r])
            a, b = (dense, g) if ctx.transpose else (g, dense)
            g_values = _C._sparse_csr_sddmm(crow, col, a, b)
        if ctx.needs_input_grad[3]:
            g_dense = _C._sparse_csr_mm(crow, col, values, g, ctx.cols, not ctx.transpose)
        return None, None, g_values, g_dense, None, None


def _csr_mm_grads_composed(ctx, crow, col, values, dense, g):
    rows = _rows_of(crow, col.shape[0])
    col = col.to(_C.int64)
    src, dst = (rows, col) if not ctx.transpose else (col, rows)  # out[src] gathers dense[dst]
    g_values = g_dense = None
    if ctx.needs_input_grad[2]:
        g_values = (g.index_select(0, src) * dense.index_select(0, dst)).sum(1)
    if ctx.needs_input_grad[3]:
        scaled = g.index_select(0, src) * values.unsqueeze(1)
        g_dense = _C.zeros(dense.shape, dtype=g.dtype, device=g.device).index_add(0, dst, scaled)
    return g_values, g_dense


def _native_product(s, x, transpose):
    """op(s) @ x through the CSR kernels (x a matrix), or None when they do not apply to these operands."""
    if (
        x.dim() != 2
        or s._vals.dim() != 1
        or s._vals.dtype not in _NATIVE_DTYPES
        or x.device != s._vals.device
        or not _has_native(x.device.type)
    ):
        return None
    if isinstance(s, SparseCompressedTensor):
        if not s._is_plain_matrix():
            return None
        crow, col, cols, flipped = _compressed_structure(s)
        return _CsrMm.apply(crow, col, s._vals, x, cols, transpose != flipped)
    structure = _csr_structure(s)
    if structure is None:
        return None
    crow, col = structure
    return _CsrMm.apply(crow, col, s._vals, x, s.shape[1], transpose)


def sparse_dense(s, x, what="addmm"):
    """s (m x k, sparse) @ x (k, or k x n, or batched ... x k x n) -> dense."""
    _check_matrix(s)
    m, k = s.shape
    if x.dim() == 0:
        raise _dim_error_mm(x)
    kx = x.shape[0] if x.dim() == 1 else x.shape[-2]
    if kx != k:
        if isinstance(s, SparseCompressedTensor):
            n = x.shape[-1] if x.dim() > 1 else 1
            raise RuntimeError(f"{what}: mat1 and mat2 shapes cannot be multiplied ({m}x{k} and {kx}x{n})")
        raise RuntimeError(f"{what}: Argument #3 (dense): Expected dim 0 size {k}, got {kx}")
    _check_dtype(s, x)
    _check_product_dtype(s, x)
    native = _native_product(s, x if x.dim() != 1 else x.unsqueeze(1), False) if x.dim() <= 2 else None
    if native is not None:
        return native if x.dim() == 2 else native.squeeze(1)
    rows, cols, vals = _entries(s)
    xt = x if x.dim() <= 2 else x.movedim(-2, 0)  # the contracted dim first: gather and scatter along dim 0
    gathered = xt.index_select(0, cols) * _column(vals, xt.dim())
    out = _C.zeros((m,) + tuple(xt.shape[1:]), dtype=gathered.dtype, device=gathered.device)
    out = out.index_add(0, rows, gathered)
    return out if x.dim() <= 2 else out.movedim(0, -2)


def dense_sparse(x, s, what="addmm"):
    """x (k, or ... x p x k, dense) @ s (k x n, sparse) -> dense: (s^T x^T)^T along the rows of x^T."""
    _check_matrix(s)
    k, n = s.shape
    if x.dim() == 0:
        raise _dim_error_mm(x)
    if x.shape[-1] != k:
        if isinstance(s, SparseCompressedTensor):
            p = x.shape[-2] if x.dim() > 1 else 1
            raise RuntimeError(
                f"{what}: mat1 and mat2 shapes cannot be multiplied ({p}x{x.shape[-1]} and {k}x{n})"
            )
        raise RuntimeError(f"{what}: Argument #3 (dense): Expected dim 0 size {k}, got {x.shape[-1]}")
    _check_dtype(s, x)
    _check_product_dtype(s, x)
    if x.dim() <= 2:  # x @ s = (s^T x^T)^T: the transposed product over x's rows
        xt2 = x.unsqueeze(0) if x.dim() == 1 else x
        native = _native_product(s, xt2.t(), True)
        if native is not None:
            return native.t() if x.dim() == 2 else native.squeeze(1)
    rows, cols, vals = _entries(s)
    xt = x.movedim(-1, 0)
    gathered = xt.index_select(0, rows) * _column(vals, xt.dim())
    out = _C.zeros((n,) + tuple(xt.shape[1:]), dtype=gathered.dtype, device=gathered.device)
    return out.index_add(0, cols, gathered).movedim(0, -1)  # PyTorch's result is this transposed view too


def _dim_error_mm(x):
    return IndexError("Dimension out of range (expected to be in range of [-1, 0], but got 1)")


def sparse_sparse(a, b):
    """a (m x k) @ b (k x n), both sparse -> a coalesced sparse result: each stored a[i, j] meets the stored
    row j of b (found through b's row pointers), the products are summed by coalescing."""
    _check_matrix(a)
    _check_matrix(b)
    m, k = a.shape
    k2, n = b.shape
    if k != k2:
        raise RuntimeError(
            f"_sparse_sparse_matmul: mat1 and mat2 shapes cannot be multiplied ({m}x{k} and {k2}x{n})"
        )
    if a.dtype != b.dtype:
        raise RuntimeError(f"expected scalar type {scalar_name(a.dtype)} but found {scalar_name(b.dtype)}")
    ra, ca, va = _entries(a)
    plain_csr = (
        isinstance(b, SparseCompressedTensor) and b.layout is _layout.sparse_csr and b._is_plain_matrix()
    )
    bc = b if plain_csr and b._is_sorted() else _coo(b).to_sparse_csr()
    crow = bc._cidx.to(_C.int64)
    cb, vb = bc._pidx.to(_C.int64), bc._vals
    start = crow.index_select(0, ca)
    count = crow.index_select(0, ca + 1) - start
    ends = count.cumsum(0)
    total = int(ends[-1].item()) if ends.numel() else 0
    dev = va.device
    if total == 0:
        idx = _C.zeros((2, 0), dtype=_C.int64, device=dev)
        return SparseCooTensor(idx, _C.zeros((0,), dtype=va.dtype, device=dev), (m, n), True)
    pair = _C.arange(total, dtype=_C.int64, device=dev)
    owner = _composite_math.searchsorted(ends, pair, right=True)  # the a-entry of each product
    pos = start.index_select(0, owner) + pair - (ends - count).index_select(0, owner)
    vals = va.index_select(0, owner) * vb.index_select(0, pos)
    idx = _C.stack([ra.index_select(0, owner), cb.index_select(0, pos)], 0)
    return SparseCooTensor(idx, vals, (m, n), False).coalesce()


def mm(input, mat2):
    """torch.mm with a sparse operand: sparse @ dense and dense @ sparse give dense, sparse @ sparse sparse."""
    si, s2 = is_sparse(input), is_sparse(mat2)
    if si and s2:
        return _product_layout(sparse_sparse(input, mat2), input, mat2)
    if si:
        if mat2.dim() != 2:
            raise IndexError(
                f"Dimension out of range (expected to be in range of [-1, 0], but got {1 if mat2.dim() < 2 else -2})"
            )
        return sparse_dense(input, mat2)
    if s2:
        if input.dim() != 2:
            raise IndexError("Dimension out of range (expected to be in range of [-1, 0], but got -2)")
        return dense_sparse(input, mat2)
    return _C.mm(input, mat2)


def matmul(input, other):
    """torch.matmul / @ with a sparse matrix on either side (the dense side may be a vector or batched); a
    sparse vector is densified (a dot product has no sparse form to keep)."""
    if is_sparse(input) and input.dim() == 1:
        input = input.to_dense()
    if is_sparse(other) and other.dim() == 1:
        other = other.to_dense()
    si, so = is_sparse(input), is_sparse(other)
    if si and so:
        return _product_layout(sparse_sparse(input, other), input, other)
    if si:
        if input.dim() > 2 and not isinstance(input, SparseCompressedTensor):
            raise RuntimeError("reshape is not implemented for sparse tensors")
        return sparse_dense(input, other)
    if so:
        if other.dim() > 2 and not isinstance(other, SparseCompressedTensor):
            raise RuntimeError("reshape is not implemented for sparse tensors")
        return dense_sparse(input, other)
    return _C.matmul(input, other)


def sparse_mm(mat1, mat2, reduce=None):
    """torch.sparse.mm: mm with a sparse first (or second) operand; reduce ('sum', 'mean', 'amax', 'amin')
    combines each output row's products other than by summing (CSR input only, as in PyTorch)."""
    if reduce is None or reduce == "sum" and isinstance(mat1, SparseCompressedTensor):
        if not is_sparse(mat1) and not is_sparse(mat2):
            return _C.mm(mat1, mat2)
        return mm(mat1, mat2)
    if not isinstance(mat1, SparseCompressedTensor):
        raise NotImplementedError(
            "Could not run 'aten::_sparse_mm_reduce_impl' with arguments from the 'SparseCPU' backend."
        )
    if reduce not in ("sum", "mean", "amax", "amin"):
        raise RuntimeError(f"reduce argument must be either sum, mean, amax or amin, got {reduce}")
    _check_matrix(mat1)
    _check_dtype(mat1, mat2)
    m, k = mat1.shape
    if mat2.dim() != 2 or mat2.shape[0] != k:
        raise RuntimeError(
            f"addmm: mat1 and mat2 shapes cannot be multiplied ({m}x{k} and {mat2.shape[0]}x{mat2.shape[-1]})"
        )
    rows, cols, vals = _entries(mat1)
    gathered = mat2.index_select(0, cols) * vals.unsqueeze(1)
    shape = (m, mat2.shape[1])
    counts = _C.zeros((m,), dtype=_C.int64, device=rows.device).index_add(0, rows, _C.ones_like(rows))
    if reduce == "mean":
        out = _C.zeros(shape, dtype=gathered.dtype, device=gathered.device).index_add(0, rows, gathered)
        return out / counts.clamp(min=1).to(out.dtype).unsqueeze(1)
    index = rows.unsqueeze(1).expand(gathered.shape)
    out = _C.zeros(shape, dtype=gathered.dtype, device=gathered.device)
    out = _composite_shape.scatter_reduce(out, 0, index, gathered, reduce, include_self=False)
    return out  # rows without stored elements stay 0, as in PyTorch


def spmm(input, mat2):
    """torch.spmm: torch.mm under its sparse name (either operand may be sparse)."""
    return mm(input, mat2)


def _rows_result(s, dense_out, hybrid):
    """The rows of a sparse @ dense product that hold stored elements, as a sparse tensor (smm, hspmm)."""
    rows = _composite_math.unique(_entries(s)[0], sorted=True)
    sub = dense_out.index_select(0, rows)
    if hybrid:
        return SparseCooTensor(rows.reshape(1, -1), sub, dense_out.shape, True)
    n = dense_out.shape[1]
    r = rows.unsqueeze(1).expand(rows.shape[0], n).reshape(-1)
    c = _C.arange(n, dtype=_C.int64, device=rows.device).repeat(rows.shape[0])
    return SparseCooTensor(_C.stack([r, c], 0), sub.reshape(-1), dense_out.shape, True)


@_argcheck.parses("Tensor input, Tensor mat2", upfront=False)
def smm(input, mat):
    """torch.smm: sparse @ dense as a sparse result (every column of each row that has stored elements)."""
    if not is_sparse(input):
        raise RuntimeError("tensor.sspaddmm(...) can only be called on sparse tensors")
    if is_sparse(mat):
        raise RuntimeError("sspaddmm: expected 'mat2' to have strided layout, got 'mat2' with layout Sparse")
    return _rows_result(input, sparse_dense(input, mat), hybrid=False)


@_argcheck.parses("Tensor mat1, Tensor mat2")
def hspmm(mat1, mat2):
    """torch.hspmm: sparse @ dense as a hybrid COO tensor (one sparse dim: the rows holding elements)."""
    if not is_sparse(mat1):  # PyTorch has hspmm for sparse layouts only: the dispatcher's refusal
        raise NotImplementedError(
            "Could not run 'aten::hspmm' with arguments from the 'CPU' backend. This could be because the operator "
            "doesn't exist for this backend, or was omitted during the selective/custom build process (if using "
            "custom build)."
        )
    return _rows_result(mat1, sparse_dense(mat1, mat2, "hspmm"), hybrid=True)


def addmm(input, mat1, mat2, *, beta=1, alpha=1):
    """beta * input + alpha * (mat1 @ mat2) with a sparse mat1 or mat2 (torch.sparse.addmm, torch.addmm)."""
    prod = mm(mat1, mat2)
    if is_sparse(prod):
        prod = prod.to_dense()
    if alpha != 1:
        prod = prod * alpha
    if is_sparse(input):
        input = input.to_dense()
    if beta == 0:
        return prod
    base = input.expand(tuple(prod.shape))
    return (base if beta == 1 else base * beta) + prod


# ---------------------------------------------------------------------------------------------- arithmetic


def _same_size_sparse(a, b, op):
    if tuple(a.shape) != tuple(b.shape):
        raise RuntimeError(
            f"{op}: expected sizes of 'self' and 'other' to match, but {list(a.shape)} != {list(b.shape)}"
        )
    if a.sparse_dim() != b.sparse_dim():
        raise RuntimeError(
            f"{op}: expected 'self' and 'other' to have same sparse dimensions, but got {a.sparse_dim()} and "
            f"{b.sparse_dim()}"
        )


def add(input, other, *, alpha=1):
    """torch.add with sparse operands: sparse + sparse is sparse (duplicates kept until coalesce; coalesced
    inputs give a coalesced result), dense + sparse is dense; sparse + dense raises, as in PyTorch."""
    si, so = is_sparse(input), is_sparse(other)
    if si and so:
        a, b = _coo(input), _coo(other)
        _same_size_sparse(a, b, "add")
        dt = _C.promote_types(a.dtype, b.dtype)
        bv = b._vals if alpha == 1 else b._vals * alpha
        vals = _C.cat([a._vals.to(dt), bv.to(dt)], 0)
        out = SparseCooTensor(_C.cat([a._idx, b._idx], 1), vals, a.shape, False)
        if a._coalesced and b._coalesced:
            out = out.coalesce()
        return _like_layout(out, input, other)
    if si and isinstance(input, SparseCompressedTensor) and isinstance(other, _C.Tensor):
        # PyTorch adds a dense tensor of the same shape to a compressed one (the result is dense)
        _same_size_dense(other, input)
        return _C.add(input.to_dense(), other, alpha=alpha)
    if si:
        raise RuntimeError("add(sparse, dense) is not supported. Use add(dense, sparse) instead.")
    if so:
        if not isinstance(input, _C.Tensor):
            raise RuntimeError("add(sparse, dense) is not supported. Use add(dense, sparse) instead.")
        return _dense_plus_sparse(input, _coo(other), alpha)
    return _C.add(input, other, alpha=alpha)


def _same_size_dense(d, s):
    if tuple(d.shape) != tuple(s.shape):
        raise RuntimeError(
            f"add: expected 'self' and 'other' to have same size, but self has size {list(d.shape)} while other "
            f"has size {list(s.shape)} (FYI: op2-sparse addition does not currently support broadcasting)"
        )


def _dense_plus_sparse(d, s, alpha):
    if tuple(d.shape) != tuple(s.shape):
        raise RuntimeError(
            f"add: expected 'self' and 'other' to have same size, but self has size {list(d.shape)} while other "
            f"has size {list(s.shape)} (FYI: dense-sparse addition does not currently support broadcasting)"
        )
    dt = _C.result_type(d, s._vals)
    sd = s.sparse_dim()
    lead = s.shape[:sd]
    v = s._vals.to(dt)
    if alpha != 1:
        v = v * alpha
    flat = d.to(dt).reshape((_prod(lead),) + tuple(s.shape[sd:]))
    if s._nnz():
        flat = _index_add(flat, _linear_index(s._idx, lead), v)
    return flat.reshape(tuple(d.shape))


def sub(input, other, *, alpha=1):
    """input - alpha * other with sparse operands (dense - sparse is dense, sparse - sparse sparse)."""
    if is_sparse(input) and not is_sparse(other):
        raise RuntimeError("add(sparse, dense) is not supported. Use add(dense, sparse) instead.")
    if not is_sparse(input) and not is_sparse(other):
        return _C.sub(input, other, alpha=alpha)
    return add(input, other, alpha=-alpha)


def _broadcast_error(dense_shape, sparse_shape):
    n = max(len(dense_shape), len(sparse_shape))
    a = (1,) * (n - len(dense_shape)) + tuple(dense_shape)
    b = (1,) * (n - len(sparse_shape)) + tuple(sparse_shape)
    for i in reversed(range(n)):
        if a[i] != b[i] and a[i] != 1 and b[i] != 1:
            return RuntimeError(
                f"The size of tensor a ({a[i]}) must match the size of tensor b ({b[i]}) at non-singleton dimension {i}"
            )
    return RuntimeError(
        f"mul: a dense operand of shape {list(dense_shape)} does not broadcast to the sparse shape {list(sparse_shape)}"
    )


def _gather_dense(d, s):
    """The elements of dense d (broadcastable to s's shape) at s's stored positions: (nnz, *dense part)."""
    shape = tuple(s.shape)
    if d.dim() > len(shape):
        raise _broadcast_error(tuple(d.shape), shape)
    aligned = (1,) * (len(shape) - d.dim()) + tuple(d.shape)
    for have, want in zip(aligned, shape, strict=True):
        if have not in (1, want):
            raise _broadcast_error(tuple(d.shape), shape)
    d = d.reshape(aligned)
    sd = s.sparse_dim()
    # a sparse dim d broadcasts along (size 1) contributes no offset
    keep = [i for i in range(sd) if aligned[i] != 1]
    lead = [aligned[i] for i in keep]
    flat = d.reshape((_prod(lead),) + aligned[sd:])
    if keep:
        lin = _linear_index(_C.stack([s._idx[i] for i in keep], 0), lead)
    else:
        lin = _C.zeros((s._nnz(),), dtype=_C.int64, device=s._idx.device)
    return flat.index_select(0, lin)


def mul(input, other):
    """torch.mul with a sparse operand: by a number or a dense tensor (broadcast to the sparse shape) the
    result keeps the sparse pattern; sparse * sparse keeps the common positions."""
    si, so = is_sparse(input), is_sparse(other)
    if si and so:
        return _like_layout(_mul_sparse(_coo(input), _coo(other)), input, other)
    if not si and not so:
        return _C.mul(input, other)
    s, d = (input, other) if si else (other, input)
    if _is_scalar_like(d):
        return s._with_values(s._vals * d)
    c = _coo(s)
    out = c._with_values(c._vals * _gather_dense(d, c))
    return _like_layout(out, s)


def _mul_sparse(a, b):
    _same_size_sparse(a, b, "mul")
    a, b = a.coalesce(), b.coalesce()
    sd = a.sparse_dim()
    lead = a.shape[:sd]
    la, lb = _linear_index(a._idx, lead), _linear_index(b._idx, lead)
    if a._nnz() == 0 or b._nnz() == 0:
        dt = _C.promote_types(a.dtype, b.dtype)
        empty = _C.zeros((0,) + tuple(a.shape[sd:]), dtype=dt, device=a.device)
        return SparseCooTensor(a._idx[:, :0], empty, a.shape, True)
    pos = _composite_math.searchsorted(la, lb).clamp(max=a._nnz() - 1)
    hit = (la.index_select(0, pos) == lb).nonzero().reshape(-1)
    pa = pos.index_select(0, hit)
    vals = a._vals.index_select(0, pa) * b._vals.index_select(0, hit)
    return SparseCooTensor(b._idx.index_select(1, hit), vals, a.shape, True)


def div(input, other, *, rounding_mode=None):
    """Sparse / number (or 0-dim tensor): the values divided; any other divisor raises PyTorch's error."""
    if not is_sparse(input):
        if is_sparse(other):
            raise RuntimeError(
                "Sparse division requires a scalar or zero-dim dense tensor divisor (got shape "
                f"{list(other.shape)} for divisor)"
            )
        return _C.div(input, other, rounding_mode=rounding_mode)
    if is_sparse(other) or (isinstance(other, _C.Tensor) and other.dim() != 0):
        raise RuntimeError(
            "Sparse division requires a scalar or zero-dim dense tensor divisor (got shape "
            f"{list(other.shape)} for divisor)"
        )
    if rounding_mode is None:
        return input._with_values(input._vals / other)
    return input._with_values(_C.div(input._vals, other, rounding_mode=rounding_mode))


def neg(input):
    """-input: the values negated, the pattern kept."""
    return input._with_values(-input._vals)


def _unary(name):
    """A zero-preserving elementwise op on the coalesced values (f(0) = 0 keeps the pattern)."""

    def op(input, *args, **kwargs):
        # no duplicates: the values alone
        if isinstance(input, SparseCompressedTensor) and input._is_sorted():
            return input._with_values(getattr(input._vals, name)(*args, **kwargs))
        c = _coo(input).coalesce()
        return _like_layout(c._with_values(getattr(c._vals, name)(*args, **kwargs)), input)

    op.__name__ = name
    op.__doc__ = f"{name} of the stored values (zero stays zero, so the pattern is kept)."
    return op


_UNARY = (
    "abs", "sqrt", "square", "relu", "sin", "tan", "tanh", "asin", "atan", "sinh", "asinh", "sign", "floor",
    "ceil", "round", "trunc", "expm1", "log1p", "erf", "sgn", "deg2rad", "rad2deg",
)  # fmt: skip


def pow(input, exponent):
    """Sparse ** positive number: the coalesced values raised (0 ** p = 0 for p > 0)."""
    if not is_sparse(input) or not _is_number(exponent):
        raise RuntimeError("minitorch: pow of a sparse tensor takes a positive number exponent")
    if exponent <= 0:
        raise RuntimeError(f"pow: a sparse tensor's exponent must be positive, got {exponent}")
    if isinstance(input, SparseCompressedTensor) and input._is_sorted():
        return input._with_values(input._vals.pow(exponent))
    c = _coo(input).coalesce()
    return _like_layout(c._with_values(c._vals.pow(exponent)), input)


# ---------------------------------------------------------------------------------------------- reductions


def _dims(dim, ndim):
    dims = [dim] if isinstance(dim, int) else list(dim)
    out = [wrap_dim(d, ndim) for d in dims]
    for d in out:
        if out.count(d) > 1:
            raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
    return out


def sparse_sum(input, dim=None, dtype=None):
    """torch.sparse.sum: every element (a dense 0-dim tensor), or over `dim`: a sparse tensor of the remaining
    sparse dims (coalesced), dense when no sparse dim remains."""
    if not is_sparse(input):
        raise RuntimeError("coalesce expected sparse coordinate tensor layout but got Strided")
    s = _coo(input)
    vals = s._vals if dtype is None else s._vals.to(dtype)
    if dim is None:
        return vals.sum()
    n, sd = s.dim(), s.sparse_dim()
    dims = _dims(dim, n)
    dense_dims = [d - sd + 1 for d in dims if d >= sd]
    if dense_dims:
        vals = vals.sum(dense_dims)
    keep = [d for d in range(sd) if d not in dims]
    if not keep:
        return vals.sum(0)
    idx = _C.stack([s._idx[d] for d in keep], 0)
    shape = [s.shape[d] for d in range(n) if d not in dims]
    return SparseCooTensor(idx, vals, shape, False).coalesce()


def sum(input, dim=None, keepdim=False, *, dtype=None):
    """torch.sum / Tensor.sum of a sparse tensor: a dense 0-dim total, or torch.sparse.sum over `dim`."""
    if not is_sparse(input):
        if dim is None:
            return _C.sum(input, dtype=dtype)
        return _C.sum(input, dim, keepdim, dtype=dtype)
    if isinstance(input, SparseCompressedTensor) and dim is not None:
        return _compressed_sum(input, dim, keepdim, dtype)
    if keepdim:
        raise NotImplementedError("minitorch: sum(keepdim=True) of a sparse tensor")
    return sparse_sum(input, dim, dtype)


def _compressed_sum(input, dim, keepdim, dtype):
    """Tensor.sum(dim, keepdim=True) of a CSR matrix, as PyTorch: a CSR matrix with the summed dims of size 1
    holding the sums of the rows (columns) that have stored elements."""
    if input.layout is not _layout.sparse_csr:
        raise RuntimeError(
            "Currently the only compressed sparse format supported for sum.dim_IntList is CSR, but got layout "
            f"{input._layout_word}"
        )
    if not keepdim:
        raise RuntimeError("reduction operations on CSR tensors with keepdim=False is unsupported")
    if input.dim() != 2 or input.dense_dim():
        raise NotImplementedError(
            "minitorch: sum over dims of a batched or hybrid CSR tensor (PyTorch has none)"
        )
    dims = _dims(dim, 2)
    coo = input.to_sparse()
    vals = coo._vals
    if dtype is not None:
        vals = vals.to(dtype)
    elif not vals.is_floating_point() and not vals.is_complex():
        vals = vals.to(_C.int64)  # sum's promotion of integers and bools
    idx = _C.stack([_C.zeros_like(coo._idx[d]) if d in dims else coo._idx[d] for d in range(2)], 0)
    shape = [1 if d in dims else input.shape[d] for d in range(2)]
    return SparseCooTensor(idx, vals, shape, False).coalesce().to_sparse_csr()


def _softmax(input, dim, dtype, log):
    name = "_sparse_log_softmax" if log else "_sparse_softmax"
    if not isinstance(input, SparseCooTensor):
        where = "CPU" if not is_sparse(input) else input._layout_word + "CPU"
        raise NotImplementedError(f"Could not run 'aten::{name}' with arguments from the '{where}' backend.")
    n, sd = input.dim(), input.sparse_dim()
    dim = wrap_dim(dim, n)
    c = input.coalesce()
    v = c._vals if dtype is None else c._vals.to(dtype)
    if dim >= sd:  # a dense dim: each stored block is a dense softmax
        f = v.log_softmax if log else v.softmax
        return c._with_values(f(dim - sd + 1))
    if c._nnz() == 0:
        return c._with_values(v)
    # the unspecified elements count as -inf: each line along `dim` is normalized over its stored elements
    others = [d for d in range(sd) if d != dim]
    if others:
        key = _linear_index(_C.stack([c._idx[d] for d in others], 0), [c.shape[d] for d in others])
        groups, inverse = _composite_math.unique(key, sorted=True, return_inverse=True)
        ngroups = groups.shape[0]
    else:
        inverse = _C.zeros((c._nnz(),), dtype=_C.int64, device=v.device)
        ngroups = 1
    block = (ngroups,) + tuple(v.shape[1:])
    index = inverse.reshape((-1,) + (1,) * (v.dim() - 1)).expand(tuple(v.shape))
    # the shift cancels in softmax, so it is taken without a graph
    peak = _composite_shape.scatter_reduce(
        _C.zeros(block, dtype=v.dtype, device=v.device), 0, index, v.detach(), "amax", include_self=False
    )
    shifted = v - peak.index_select(0, inverse)
    e = shifted.exp()
    total = _C.zeros(block, dtype=v.dtype, device=v.device).index_add(0, inverse, e)
    if log:
        return c._with_values(shifted - total.log().index_select(0, inverse))
    return c._with_values(e / total.index_select(0, inverse))


def softmax(input, dim, *, dtype=None):
    """torch.sparse.softmax: softmax along `dim` over the stored elements (the others count as -inf and
    stay unspecified); the result has the input's coalesced pattern."""
    return _softmax(input, dim, dtype, log=False)


def log_softmax(input, dim, *, dtype=None):
    """torch.sparse.log_softmax: log of torch.sparse.softmax, computed stably."""
    return _softmax(input, dim, dtype, log=True)


# ------------------------------------------------------------------------------------- dense-side helpers


def sparse_mask(dense, mask):
    """Tensor.sparse_mask: dense's elements at the coalesced positions of a sparse mask, as a sparse tensor."""
    _argcheck.check_tensor_like("sparse_mask", "mask", 1, mask)
    if not is_sparse(mask):  # PyTorch's dispatcher has no dense kernel for it: NotImplementedError
        raise NotImplementedError(
            "Could not run 'aten::sparse_mask' with arguments from the 'CPU' backend: sparse_mask expects mask to be "
            "sparse (mask.to_sparse() makes one)"
        )
    if tuple(dense.shape) != tuple(mask.shape):
        raise RuntimeError(
            f"sparse_mask(): operands have incompatible sizes; self has size {list(dense.shape)} but mask has "
            f"size {list(mask.shape)}"
        )
    c = _coo(mask).coalesce()
    out = c._with_values(_gather_dense(dense, c))
    return _like_layout(out, mask)


def dense_to_sparse(self, *args, **kwargs):
    """Tensor.to_sparse(sparse_dim) / to_sparse(layout=..., blocksize=..., dense_dim=...) of a dense tensor."""
    # PyTorch's two overloads: (sparse_dim) or keywords only; both given is Python's own refusal there
    if args and kwargs.get("layout") is not None:
        raise TypeError(f"to_sparse() takes 0 positional arguments but {len(args)} was given")
    return _dense_to_sparse(self, *args, **kwargs)


@_argcheck.parses(
    "*, Layout? layout=None, int[2]? blocksize=None, int? dense_dim=None", "int sparse_dim", name="to_sparse",
    method=True,
)  # fmt: skip
def _dense_to_sparse(self, sparse_dim=None, *, layout=None, blocksize=None, dense_dim=None):
    sparse_dim, dense_dim = _int_or_none(sparse_dim), _int_or_none(dense_dim)
    if layout in _COMPRESSED:
        info = _COMPRESSED[layout]
        if info.blocked != (blocksize is not None):
            how = "without" if info.blocked else "with"
            raise RuntimeError(
                f"dense_to_sparse: conversion from Strided to {info.word} {how} blocksize argument given is not "
                "supported"
            )
        if info.blocked:
            blocksize = _blocksize_arg(blocksize, "to_sparse")
        return dense_to_compressed(self, layout, blocksize, dense_dim)
    if layout is _layout.strided:
        return self
    if layout not in (None, _layout.sparse_coo):
        raise NotImplementedError(f"minitorch: conversion to {layout} is not supported")
    if dense_dim is not None and sparse_dim is None:
        sparse_dim = self.dim() - dense_dim
    return dense_to_coo(self, sparse_dim)


def _int_or_none(x):
    return None if x is None else int(x)  # the parser took an int (or a 0-dim integer tensor)


def dense_to_layout(layout):
    """Tensor.to_sparse_csr/csc(dense_dim) and to_sparse_bsr/bsc(blocksize, dense_dim) of a dense tensor."""
    info = _COMPRESSED[layout]
    name = f"to_sparse_{info.short}"
    if info.blocked:

        @_argcheck.parses("int[2] blocksize, int? dense_dim=None", name=name, method=True)
        def method(self, blocksize, dense_dim=None):
            return dense_to_compressed(self, layout, _blocksize_arg(blocksize, name), _int_or_none(dense_dim))

    else:

        @_argcheck.parses("int? dense_dim=None", name=name, method=True)
        def method(self, dense_dim=None):
            return dense_to_compressed(self, layout, None, _int_or_none(dense_dim))

    method.__name__ = name
    method.__doc__ = f"The {info.short.upper()} form of a dense tensor (its last dense_dim dims stay dense)."
    return method
