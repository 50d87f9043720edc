// Sparse product front ends (ops/sparse.h): operands checked and made contiguous, the result allocated, the
// CSR structure validated where reading it costs a pass the product makes anyway (the CPU), then the kernel.
#include "ops/sparse.h"

#include <limits>

#include "kernels/cpu/Loops.h"
#include "ops/copy.h"
#include "ops/factory.h"
#include "ops/reduce.h"
#include "ops/shape.h"

namespace mt {

namespace {

void check_indices(const Tensor& crow, const Tensor& col, const char* what) {
  MT_CHECK(crow.dim() == 1 && col.dim() == 1, what, ": crow_indices and col_indices must be 1-D, got ",
           crow.dim(), "-D and ", col.dim(), "-D");
  ScalarType it = crow.dtype();
  MT_CHECK((it == ScalarType::Long || it == ScalarType::Int) && col.dtype() == it, what,
           ": crow_indices and col_indices must both be int32 or both int64, got ", dtype_short_name(it),
           " and ", dtype_short_name(col.dtype()));
  MT_CHECK(crow.numel() >= 1, what, ": crow_indices must hold rows + 1 entries, got none");
}

void check_operand(const Tensor& t, const Tensor& values, const char* what, const char* name) {
  MT_CHECK(t.dim() == 2, what, ": ", name, " must be a matrix, got ", t.dim(), "-D");
  MT_CHECK(t.dtype() == values.dtype(), what, ": expected ", name, " of dtype ",
           dtype_short_name(values.dtype()), ", got ", dtype_short_name(t.dtype()));
  MT_CHECK(t.device() == values.device(), what, ": expected all tensors on one device, got ",
           t.device().str(), " and ", values.device().str());
}

void check_values(const Tensor& values, const Tensor& crow, const Tensor& col, const char* what) {
  ScalarType dt = values.dtype();
  MT_CHECK(dt == ScalarType::Float || dt == ScalarType::Double, what,
           ": values must be float32 or float64, got ", dtype_short_name(dt));
  MT_CHECK(values.dim() == 1 && values.numel() == col.numel(), what, ": expected ", col.numel(),
           " values (one per column index), got ", values.numel());
  MT_CHECK(crow.device() == values.device() && col.device() == values.device(), what,
           ": expected all tensors on one device, got ", crow.device().str(), " and ", values.device().str());
}

// The CSR invariants the kernels rely on to stay inside their operands: crow starts at 0, never decreases and
// ends at nnz; every column index is inside [0, cols). On the CPU only (a host pass over the indices); CUDA
// callers (python/minitorch/sparse) build the indices themselves from validated tensors.
template <typename I>
void validate_csr(const Tensor& crow, const Tensor& col, int64_t cols, const char* what) {
  const I* cr = crow.data<I>();
  const I* c = col.data<I>();
  const int64_t rows = crow.numel() - 1, nnz = col.numel();
  MT_CHECK(cr[0] == 0, what, ": crow_indices[0] must be 0, got ", static_cast<int64_t>(cr[0]));
  for (int64_t r = 0; r < rows; ++r)
    MT_CHECK(cr[r] <= cr[r + 1], what, ": crow_indices must not decrease, but crow_indices[", r + 1,
             "] < crow_indices[", r, "]");
  MT_CHECK(cr[rows] == nnz, what, ": crow_indices[-1] must equal the number of stored elements (", nnz,
           "), got ", static_cast<int64_t>(cr[rows]));
  for (int64_t e = 0; e < nnz; ++e)
    MT_CHECK_INDEX(c[e] >= 0 && c[e] < cols, what, ": column index ", static_cast<int64_t>(c[e]),
                   " is out of bounds for ", cols, " columns");
}

void validate(const Tensor& crow, const Tensor& col, int64_t cols, const char* what) {
  if (crow.device().type != DeviceType::CPU) return;
  if (crow.dtype() == ScalarType::Long)
    validate_csr<int64_t>(crow, col, cols, what);
  else
    validate_csr<int32_t>(crow, col, cols, what);
}

// min and max of n int64 values in one loop; the AVX2 copy (a function of its own, Loops.h's pattern)
// compares and selects four at a time, 2.3x the baseline's scalar loop (SSE2 has no 64-bit compare)
__attribute__((always_inline)) inline void minmax_impl(const int64_t* p, int64_t n, int64_t s, int64_t& lo,
                                                       int64_t& hi) {
  int64_t a = std::numeric_limits<int64_t>::max(), b = std::numeric_limits<int64_t>::min();
  if (s == 1) {
    for (int64_t j = 0; j < n; ++j) {
      a = p[j] < a ? p[j] : a;
      b = p[j] > b ? p[j] : b;
    }
  } else {
    for (int64_t j = 0; j < n; ++j) {
      a = std::min(a, p[j * s]);
      b = std::max(b, p[j * s]);
    }
  }
  lo = a;
  hi = b;
}
#ifdef MT_LOOPS_AVX2
__attribute__((target("avx2"))) void minmax_avx2(const int64_t* p, int64_t n, int64_t s, int64_t& lo,
                                                 int64_t& hi) {
  minmax_impl(p, n, s, lo, hi);
}
#endif

// The smallest and largest index of each row of a (k, nnz > 0) int64 index tensor: one host pass on the CPU,
// amin/amax and one copy elsewhere.
void row_extremes(const Tensor& idx, std::vector<int64_t>& lo, std::vector<int64_t>& hi) {
  const int64_t k = idx.size(0), nnz = idx.size(1);
  lo.assign(static_cast<size_t>(k), 0);
  hi.assign(static_cast<size_t>(k), 0);
  if (!idx.device().is_cpu()) {
    Tensor l = contiguous(to(amin(idx, {1}, false), ScalarType::Long, Device(DeviceType::CPU)));
    Tensor h = contiguous(to(amax(idx, {1}, false), ScalarType::Long, Device(DeviceType::CPU)));
    std::copy_n(l.data<int64_t>(), k, lo.begin());
    std::copy_n(h.data<int64_t>(), k, hi.begin());
    return;
  }
  const int64_t* p = idx.data<int64_t>();
  const int64_t s0 = idx.stride(0), s1 = idx.stride(1);
  for (int64_t d = 0; d < k; ++d) {
    int64_t& a = lo[static_cast<size_t>(d)];
    int64_t& b = hi[static_cast<size_t>(d)];
#ifdef MT_LOOPS_AVX2
    if (loops_use_avx2()) {
      minmax_avx2(p + d * s0, nnz, s1, a, b);
      continue;
    }
#endif
    minmax_impl(p + d * s0, nnz, s1, a, b);
  }
}

}  // namespace

CooParts sparse_coo_parts(const Tensor& indices_in, const Tensor& values_in,
                          const std::optional<DimVector>& size) {
  // PyTorch names a device by its index, -1 for the CPU
  auto index_of = [](Device d) { return d.is_cpu() ? -1 : std::max(d.index, 0); };
  MT_CHECK(indices_in.device() == values_in.device(), "device of indices (", index_of(indices_in.device()),
           ") must match device of values (", index_of(values_in.device()), ")");
  // PyTorch's order: a given size's length (sparse_dim read as indices.size(0) before the indices are known
  // to be a matrix: a 0-dim one is its IndexError), the indices' rank, nnz, the bounds, the values' shape
  const int64_t dd = values_in.dim() > 1 ? values_in.dim() - 1 : 0;
  if (size) {
    const int64_t sd = indices_in.size(0);
    MT_CHECK(static_cast<int64_t>(size->size()) == sd + dd,
             "'len(size) == sparse_dim + dense_dim' is not satisfied: len(size) = ", size->size(),
             ", sparse_dim = ", sd, ", dense_dim = ", dd);
    for (int64_t s : *size)
      MT_CHECK(s >= 0, "Trying to create tensor with negative dimension ", s, ": ", shape_str(*size));
  }
  MT_CHECK(indices_in.dim() == 2,
           "indices must be sparse_dim x nnz, but got: ", shape_str(indices_in.sizes()));
  MT_CHECK(is_integral(indices_in.dtype(), true),
           "sparse_coo_tensor: indices must be an integer tensor, got ",
           dtype_short_name(indices_in.dtype()));
  Tensor indices = indices_in.dtype() == ScalarType::Long
                       ? indices_in
                       : to(indices_in, ScalarType::Long, indices_in.device());
  const int64_t sd = indices.size(0), nnz = indices.size(1);
  // a 0-dim value stands for one element (PyTorch's parser reads it so)
  const int64_t vnnz = values_in.dim() ? values_in.size(0) : 1;
  MT_CHECK(nnz == vnnz, "indices and values must have same nnz, but got nnz from indices: ", nnz,
           ", nnz from values: ", vnnz);
  Tensor values = values_in.dim() ? values_in : reshape(values_in, {1});
  // a meta tensor has no indices to read: a given size is taken unchecked, as PyTorch does
  std::vector<int64_t> lo, hi;
  if (nnz > 0 && sd > 0 && !(size && indices.is_meta())) row_extremes(indices, lo, hi);
  DimVector shape;
  if (size) {
    shape = *size;
    // per dim in order, a negative index before one past the size (PyTorch's check_invariants order)
    for (size_t d = 0; d < lo.size(); ++d) {
      MT_CHECK(lo[d] >= 0, "found negative index ", lo[d], " for dim ", d);
      MT_CHECK(hi[d] < shape[d], "size is inconsistent with indices: for dim ", d, ", size is ", shape[d],
               " but found index ", hi[d]);
    }
    for (int64_t d = 0; d < dd; ++d)
      if (values.size(d + 1) != shape[static_cast<size_t>(sd + d)]) {
        DimVector want{nnz};
        for (size_t e = static_cast<size_t>(sd); e < shape.size(); ++e) want.push_back(shape[e]);
        MT_ERROR("values has incorrect size, expected ", shape_str(want), ", got ",
                 shape_str(values.sizes()));
      }
  } else {
    for (size_t d = 0; d < lo.size(); ++d)
      MT_CHECK(lo[d] >= 0, "found negative index ", lo[d], " for dim ", d);
    for (int64_t d = 0; d < sd; ++d) shape.push_back(nnz > 0 ? hi[static_cast<size_t>(d)] + 1 : 0);
    for (int64_t d = 0; d < dd; ++d) shape.push_back(values.size(d + 1));
  }
  return {indices, values, shape};
}

Tensor sparse_csr_mm(const Tensor& crow_in, const Tensor& col_in, const Tensor& values_in,
                     const Tensor& dense_in, int64_t cols, bool transpose) {
  const char* what = "_sparse_csr_mm";
  check_indices(crow_in, col_in, what);
  check_values(values_in, crow_in, col_in, what);
  check_operand(dense_in, values_in, what, "the dense operand");
  MT_CHECK(cols >= 0, what, ": the number of columns must be non-negative, got ", cols);
  const int64_t rows = crow_in.numel() - 1;
  const int64_t inner = transpose ? rows : cols, outer = transpose ? cols : rows;
  MT_CHECK(dense_in.size(0) == inner, what, ": mat1 and mat2 shapes cannot be multiplied (",
           transpose ? cols : rows, "x", inner, " and ", dense_in.size(0), "x", dense_in.size(1), ")");
  Tensor out = zeros({outer, dense_in.size(1)}, values_in.dtype(), values_in.device());
  if (out.numel() == 0 || values_in.numel() == 0) return out;
  Tensor crow = contiguous(crow_in), col = contiguous(col_in);
  validate(crow, col, cols, what);
  csr_mm_stub.get(out.device())(out, crow, col, contiguous(values_in), contiguous(dense_in), transpose);
  return out;
}

Tensor sparse_csr_sddmm(const Tensor& crow_in, const Tensor& col_in, const Tensor& a_in, const Tensor& b_in) {
  const char* what = "_sparse_csr_sddmm";
  check_indices(crow_in, col_in, what);
  MT_CHECK(a_in.dim() == 2 && b_in.dim() == 2, what, ": both dense operands must be matrices, got ",
           a_in.dim(), "-D and ", b_in.dim(), "-D");
  ScalarType dt = a_in.dtype();
  MT_CHECK(dt == ScalarType::Float || dt == ScalarType::Double, what,
           ": the dense operands must be float32 or float64, got ", dtype_short_name(dt));
  MT_CHECK(crow_in.device() == a_in.device() && col_in.device() == a_in.device(), what,
           ": expected all tensors on one device, got ", crow_in.device().str(), " and ",
           a_in.device().str());
  check_operand(b_in, a_in, what, "the second dense operand");
  MT_CHECK(a_in.size(0) == crow_in.numel() - 1 && a_in.size(1) == b_in.size(1), what,
           ": the operands do not fit the sparse pattern (", crow_in.numel() - 1, " rows; ", a_in.size(0),
           "x", a_in.size(1), " and ", b_in.size(0), "x", b_in.size(1), ")");
  Tensor out = zeros({col_in.numel()}, a_in.dtype(), a_in.device());
  if (out.numel() == 0) return out;
  Tensor crow = contiguous(crow_in), col = contiguous(col_in);
  validate(crow, col, b_in.size(0), what);
  csr_sddmm_stub.get(out.device())(out, crow, col, contiguous(a_in), contiguous(b_in));
  return out;
}

}  // namespace mt
