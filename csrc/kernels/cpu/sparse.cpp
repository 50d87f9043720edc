// CPU kernels for the CSR products of ops/sparse.h: each output row (or each stored element) is one pass over
// its stored elements, adding scaled rows of the dense operand, so no nnz x n intermediate is written.
#include "ops/sparse.h"

#include <algorithm>

#include "kernels/cpu/ParallelRows.h"

namespace mt {
namespace {

template <typename T>
inline void axpy(T* __restrict__ y, T a, const T* __restrict__ x, int64_t n) {
  for (int64_t j = 0; j < n; ++j) y[j] += a * x[j];
}

// Four partial sums, so the compiler can keep them in vector lanes without reassociating one sum.
template <typename T>
inline T dot(const T* __restrict__ x, const T* __restrict__ y, int64_t n) {
  T s0 = 0, s1 = 0, s2 = 0, s3 = 0;
  int64_t j = 0;
  for (; j + 4 <= n; j += 4) {
    s0 += x[j] * y[j];
    s1 += x[j + 1] * y[j + 1];
    s2 += x[j + 2] * y[j + 2];
    s3 += x[j + 3] * y[j + 3];
  }
  for (; j < n; ++j) s0 += x[j] * y[j];
  return (s0 + s1) + (s2 + s3);
}

template <typename T, typename I>
void csr_mm_typed(const Tensor& out, const Tensor& crow, const Tensor& col, const Tensor& values,
                  const Tensor& dense, bool transpose) {
  const I* cr = crow.data<I>();
  const I* c = col.data<I>();
  const T* v = values.data<T>();
  const T* d = dense.data<T>();
  T* o = out.data<T>();
  const int64_t rows = crow.numel() - 1, n = dense.size(1), nnz = col.numel();
  if (!transpose) {
    const int64_t per_row = std::max<int64_t>(1, nnz / std::max<int64_t>(rows, 1)) * n;
    parallel_rows(rows, per_row, [&](int64_t r0, int64_t r1) {
      for (int64_t r = r0; r < r1; ++r)
        for (int64_t e = cr[r]; e < cr[r + 1]; ++e)
          axpy(o + r * n, v[e], d + static_cast<int64_t>(c[e]) * n, n);
    });
    return;
  }
  // A^T @ dense adds row r of dense into output row col[e]: output rows collide across input rows, so the
  // tasks split the feature columns instead, each walking every stored element over its own slice.
  parallel_rows(n, nnz, [&](int64_t j0, int64_t j1) {
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t e = cr[r]; e < cr[r + 1]; ++e)
        axpy(o + static_cast<int64_t>(c[e]) * n + j0, v[e], d + r * n + j0, j1 - j0);
  });
}

template <typename T, typename I>
void csr_sddmm_typed(const Tensor& out, const Tensor& crow, const Tensor& col, const Tensor& a,
                     const Tensor& b) {
  const I* cr = crow.data<I>();
  const I* c = col.data<I>();
  const T* pa = a.data<T>();
  const T* pb = b.data<T>();
  T* o = out.data<T>();
  const int64_t rows = crow.numel() - 1, n = a.size(1), nnz = col.numel();
  const int64_t per_row = std::max<int64_t>(1, nnz / std::max<int64_t>(rows, 1)) * n;
  parallel_rows(rows, per_row, [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r)
      for (int64_t e = cr[r]; e < cr[r + 1]; ++e)
        o[e] = dot(pa + r * n, pb + static_cast<int64_t>(c[e]) * n, n);
  });
}

// f(value, index) with a value of the element type (float or double) and one of the index type (int32/int64)
template <typename F>
void by_types(ScalarType dt, ScalarType it, F&& f) {
  if (dt == ScalarType::Float)
    it == ScalarType::Long ? f(float{}, int64_t{}) : f(float{}, int32_t{});
  else
    it == ScalarType::Long ? f(double{}, int64_t{}) : f(double{}, int32_t{});
}

void csr_mm_cpu(const Tensor& out, const Tensor& crow, const Tensor& col, const Tensor& values,
                const Tensor& dense, bool transpose) {
  by_types(values.dtype(), crow.dtype(), [&](auto t, auto i) {
    csr_mm_typed<decltype(t), decltype(i)>(out, crow, col, values, dense, transpose);
  });
}

void csr_sddmm_cpu(const Tensor& out, const Tensor& crow, const Tensor& col, const Tensor& a,
                   const Tensor& b) {
  by_types(a.dtype(), crow.dtype(),
           [&](auto t, auto i) { csr_sddmm_typed<decltype(t), decltype(i)>(out, crow, col, a, b); });
}

}  // namespace

MT_REGISTER_KERNEL(csr_mm_stub, CPU, &csr_mm_cpu);
MT_REGISTER_KERNEL(csr_sddmm_stub, CPU, &csr_sddmm_cpu);

}  // namespace mt
