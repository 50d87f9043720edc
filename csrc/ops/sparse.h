// Sparse products over a CSR matrix (torch.sparse's native path, python/minitorch/sparse): sparse @ dense and
// its transpose, and the sampled dense-dense product that gives the stored values their gradient. CPU kernels
// of our own (one pass per row, no nnz x n intermediate), CUDA through cuSPARSE (SpMM, SDDMM).
#pragma once
#include <optional>

#include "core/Tensor.h"
#include "ops/Dispatch.h"
#include "ops/op_table.h"

namespace mt {

// A (rows x cols, CSR: crow_indices, col_indices, values) times dense: transpose=false computes A @ dense
// (dense: cols x n, result rows x n), transpose=true A^T @ dense (dense: rows x n, result cols x n). Values
// are float32 or float64 and the dense operand has their dtype and device; indices are int32 or int64, both
// alike.
Tensor sparse_csr_mm(const Tensor& crow, const Tensor& col, const Tensor& values, const Tensor& dense,
                     int64_t cols, bool transpose);
// For each stored element e at (r, c): sum_j a[r, j] * b[c, j] (a: rows x n, b: cols x n), the gradient of
// the values of A @ b when a is the output's gradient.
Tensor sparse_csr_sddmm(const Tensor& crow, const Tensor& col, const Tensor& a, const Tensor& b);

// torch.sparse_coo_tensor's checks (the COO type itself is Python: python/minitorch/sparse/_types.py), in
// PyTorch's words: `indices` (sparse_dim x nnz, any integer dtype) come back int64, `values` (nnz, dense
// dims...; a 0-dim value is one element) reshaped to at least 1-D, and the size: `size` when given (its
// length, the values' dense shape and every index against it checked), else one past the largest index of
// each sparse dim, then the values' dense dims. The bounds are checked always, not only under
// check_invariants as PyTorch's (which reads out of bounds otherwise): one pass over the indices, on the host
// for CPU tensors.
struct CooParts {
  Tensor indices, values;
  DimVector size;
};
CooParts sparse_coo_parts(const Tensor& indices, const Tensor& values, const std::optional<DimVector>& size);

// Kernels: every tensor contiguous and on one device, out zero-filled and allocated; the indices checked.
using CsrMmFn = void (*)(const Tensor& out, const Tensor& crow, const Tensor& col, const Tensor& values,
                         const Tensor& dense, bool transpose);
using CsrSddmmFn = void (*)(const Tensor& out, const Tensor& crow, const Tensor& col, const Tensor& a,
                            const Tensor& b);
MT_STUBS_SPARSE_H(MT_DECLARE_STUB_ROW)  // ops/op_table.h

}  // namespace mt
