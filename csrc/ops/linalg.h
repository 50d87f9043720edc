// Linear algebra: matmul family through BLAS (OpenBLAS on CPU, cuBLAS on CUDA) and einsum over it.
#pragma once
#include <string>
#include <vector>

#include "core/Context.h"
#include "core/Scalar.h"
#include "core/Tensor.h"
#include "ops/Dispatch.h"

namespace mt {

Tensor matmul(const Tensor& a, const Tensor& b);  // NumPy semantics with batch broadcasting
Tensor mm(const Tensor& a, const Tensor& b);
Tensor bmm(const Tensor& a, const Tensor& b);
Tensor mv(const Tensor& a, const Tensor& v);
Tensor dot(const Tensor& a, const Tensor& b);
Tensor outer(const Tensor& a, const Tensor& b);
// torch.kron: blocks a[i] * b over a grid shaped like a (the lower rank padded with leading 1s), as one
// broadcast multiply of the interleaved dims (a0, 1, a1, 1, ...) x (1, b0, 1, b1, ...) and a reshape,
// PyTorch's composition (autograd records the two ops)
Tensor kron(const Tensor& a, const Tensor& b);
// beta * self + alpha * (m1 @ m2)
Tensor addmm(const Tensor& self, const Tensor& m1, const Tensor& m2, const Scalar& beta, const Scalar& alpha);
// beta * self + alpha * (mat @ vec), self of [m] or one element
Tensor addmv(const Tensor& self, const Tensor& mat, const Tensor& vec, const Scalar& beta,
             const Scalar& alpha);

// The scales PyTorch's integer and bool GEMM kernels read (addmm, addmv here; baddbmm and addbmm through
// _C._gemm_scales): for an integer dtype, a floating or complex beta/alpha converted to it, truncated toward
// zero and range-checked ("value cannot be converted to type uint8_t without overflow"); a scale the kernel
// never reads (beta_used / alpha_used false: an empty result, an empty contraction's alpha) is not checked
// and comes back 0 when it was inexact. scales_self_first: an empty contraction where the kernel scales self
// by beta before its dtype dispatch (addmm, baddbmm, addbmm; not addmv): a floating or complex beta other
// than 0 cannot be cast to an integer result there, nor any number but a bool to a bool one. Floating and
// complex dtypes (and a bool result's scales) come back as given, a used one range-checked for a real
// floating dtype (a complex scale for float32 is "value cannot be converted to type float without overflow").
struct GemmScales {
  Scalar beta, alpha;
};
GemmScales integral_gemm_scales(ScalarType dtype, const Scalar& beta, const Scalar& alpha, bool beta_used,
                                bool alpha_used, bool scales_self_first);
Tensor einsum(const std::string& equation, const std::vector<Tensor>& operands);

// out= written by the GEMM itself (bind_out.cpp's direct path, no temporary and copy): true when it wrote
// `out`, which then is on the CPU, not bool, of the result's shape and of every operand's dtype, shares
// memory with none, and has a layout BLAS writes (row-major, or column-major as the transposed product).
// false for anything else, before any check or write, so the general path gives its errors, resize and casts.
// addmm_into's beta/alpha are the general path's too where they are unusual (an alpha of 0, a float for
// integers); `self` expands to the product's shape. The batched ones are baddbmm's (addmv: bias [m],
// a [m, k], v [k]).
bool mm_into(const Tensor& out, const Tensor& a, const Tensor& b);
bool bmm_into(const Tensor& out, const Tensor& a, const Tensor& b);
bool mv_into(const Tensor& out, const Tensor& a, const Tensor& v);
bool dot_into(const Tensor& out, const Tensor& a, const Tensor& b);
bool matmul_into(const Tensor& out, const Tensor& a, const Tensor& b);
bool addmm_into(const Tensor& out, const Tensor& self, const Tensor& m1, const Tensor& m2, const Scalar& beta,
                const Scalar& alpha);
bool baddbmm_into(const Tensor& out, const Tensor& self, const Tensor& b1, const Tensor& b2,
                  const Scalar& beta, const Scalar& alpha);
bool addmv_into(const Tensor& out, const Tensor& self, const Tensor& a, const Tensor& v, const Scalar& beta,
                const Scalar& alpha);

// The one GEMM kernel every op above ends in: c[i] = alpha * a[i] @ b[i] + beta * c[i] for each batch i.
// a [batch, m, k], b [batch, k, n], c [batch, m, n], one dtype, one device, any strides (the kernel picks
// transposes from them and copies only when BLAS cannot read a layout); m, n, k > 0. beta == 0 never reads c.
using GemmKernelFn = void (*)(const Tensor& c, const Tensor& a, const Tensor& b, const Scalar& alpha,
                              const Scalar& beta);
// out[..., i, ...] = a x b along `dim`, the 3-vectors' cross product, as PyTorch's cross kernel: a and b
// expanded to out's shape (stride 0 where they broadcast), one dtype, any strides, out overlapping neither.
using CrossKernelFn = void (*)(const Tensor& out, const Tensor& a, const Tensor& b, int64_t dim);
MT_STUBS_LINALG_H(MT_DECLARE_STUB_ROW)  // ops/op_table.h

// torch.linalg.cross / torch.cross after their checks (python/minitorch/linalg's cross: dims, sizes 3,
// dtypes, broadcasting), for a device with a cross kernel (the CPU; others compose the product from ops): a
// fresh result, or written into `out` when out_takes it (false: the caller's general path).
bool has_cross_kernel(const Tensor& a);
Tensor linalg_cross(const Tensor& a, const Tensor& b, int64_t dim);
bool linalg_cross_into(const Tensor& out, const Tensor& a, const Tensor& b, int64_t dim);

// How a BLAS (OpenBLAS or cuBLAS) can read one [batch, rows, cols] gemm operand without a copy: row-major
// needs a unit column stride and a leading dimension covering a row, column-major ("trans") the mirror image.
// Size-1 dims may carry any stride, so they never force a copy.
struct GemmLayout {
  bool ok = false;
  bool trans = false;  // stored column-major: BLAS sees its transpose
  int64_t ld = 0;
};
GemmLayout gemm_layout(const Tensor& t);
// The layout is readable and its sizes and leading dimension fit BLAS's 32-bit integers.
bool gemm_layout_fits_int(const Tensor& t, const GemmLayout& l);

// float32_matmul_precision / matmul_allow_tf32 are in core/Context.h.

}  // namespace mt
