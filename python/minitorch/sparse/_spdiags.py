"""torch.sparse.spdiags: a sparse matrix from rows of diagonals, in SciPy's spdiags convention."""

from minitorch import _C
from minitorch._dtype_names import scalar_name
from minitorch.sparse._layout import sparse_coo, sparse_csc, sparse_csr
from minitorch.sparse._types import sparse_coo_tensor

_LAYOUT_NAMES = {"strided": "Strided", "sparse_bsr": "SparseBsr", "sparse_bsc": "SparseBsc"}


def spdiags(diagonals, offsets, shape, layout=None):
    """The shape[0] x shape[1] sparse matrix whose offsets[k]-th diagonal holds diagonals[k]: element (j - off, j)
    is diagonals[k, j] (SciPy's convention: a diagonal is indexed by column), so a row of diagonals is
    read from its start for a super-diagonal only past column off. COO by default; layout=torch.sparse_csr
    gives CSR (we have no CSC format: torch.sparse_csc raises NotImplementedError)."""
    if diagonals.dim() not in (1, 2):
        raise RuntimeError("Diagonals must be vector or matrix")
    if offsets.dim() > 1:
        raise RuntimeError("Offsets must be scalar or vector")
    if len(shape) != 2:
        raise RuntimeError("Output shape must be 2d")
    if layout is not None and layout not in (sparse_coo, sparse_csr, sparse_csc):
        name = _LAYOUT_NAMES.get(layout._name, layout._name)
        raise RuntimeError(f"Only output layouts (Sparse, SparseCsc, SparseCsr) are supported, got {name}")
    diags = diagonals if diagonals.dim() == 2 else diagonals.unsqueeze(0)
    offs = offsets.reshape(-1)
    if diags.shape[0] != offs.shape[0]:
        raise RuntimeError(
            f"Number of diagonals ({diags.shape[0]}) does not match the number of offsets ({offs.shape[0]})"
        )
    if offsets.dtype != _C.int64:
        raise RuntimeError(f"Offset Tensor must have dtype Long but got {scalar_name(offsets.dtype)}")
    offs = offs.tolist()
    if len(set(offs)) != len(offs):
        raise RuntimeError("Offset Tensor contains duplicate values")
    if layout is sparse_csc:
        raise NotImplementedError("torch.sparse.spdiags: minitorch has no sparse CSC layout yet")
    rows, cols, values = [], [], []
    n_rows, n_cols = int(shape[0]), int(shape[1])
    length = diags.shape[1]
    for k, off in enumerate(offs):
        # column j holds row j - off: the columns inside the matrix and inside the stored diagonal
        lo, hi = max(0, off), min(n_cols, n_rows + off, length)
        if hi <= lo:
            continue
        col = _C.arange(lo, hi, dtype=_C.int64, device=diags.device)
        rows.append(col - off)
        cols.append(col)
        values.append(diags[k, lo:hi])
    if values:
        indices = _C.stack([_C.cat(rows), _C.cat(cols)])
        vals = _C.cat(values)
    else:
        indices = _C.zeros((2, 0), dtype=_C.int64, device=diags.device)
        vals = diags.reshape(-1)[:0]
    out = sparse_coo_tensor(indices, vals, (n_rows, n_cols))
    return out.coalesce().to_sparse_csr() if layout is sparse_csr else out
