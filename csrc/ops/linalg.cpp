// Linalg front ends: PyTorch's checks and shape rules for mm/bmm/matmul/mv/dot/outer/addmm/einsum, all of
// which reduce to one batched GEMM through gemm_stub (so a device adds a GEMM kernel, not ops).
#include "ops/linalg.h"

#include <algorithm>
#include <climits>

#include "core/FreshWrites.h"
#include "core/TensorIterator.h"
#include "core/TypeMeta.h"
#include "generated/native.h"
#include "ops/autocast.h"
#include "ops/copy.h"
#include "ops/elementwise.h"
#include "ops/factory.h"
#include "ops/out.h"
#include "ops/shape.h"

namespace mt {

GemmLayout gemm_layout(const Tensor& t) {
  int64_t rows = t.sizes()[1], cols = t.sizes()[2];
  int64_t rs = t.strides()[1], cs = t.strides()[2];
  if ((cs == 1 || cols == 1) && (rows == 1 || rs >= std::max<int64_t>(cols, 1)))
    return {true, false, rows == 1 ? std::max<int64_t>(cols, 1) : rs};
  if ((rs == 1 || rows == 1) && (cols == 1 || cs >= std::max<int64_t>(rows, 1)))
    return {true, true, cols == 1 ? std::max<int64_t>(rows, 1) : cs};
  return {};
}

bool gemm_layout_fits_int(const Tensor& t, const GemmLayout& l) {
  return l.ok && t.sizes()[1] <= INT_MAX && t.sizes()[2] <= INT_MAX && l.ld <= INT_MAX;
}

namespace {

void check_same_device(const Tensor& a, const Tensor& b) {
  MT_CHECK(a.device() == b.device(),
           "Expected all tensors to be on the same device, but found at least two devices, ",
           a.device().str(), " and ", b.device().str(), "!");
}

// PyTorch's BLAS kernels refuse bool with NotImplementedError naming the kernel (mv: addmv's), unless there
// is nothing to compute (an empty result, or k == 0: zeros), which returns before the kernel's dispatch
void check_gemm_dtype(const Tensor& a, const Tensor& b, bool addmv = false, bool nothing_to_compute = false) {
  if (addmv)  // mv's result takes vec's dtype, and addmv names (result, mat, vec)
    MT_CHECK(a.dtype() == b.dtype(), "addmv input tensors must have the same dtype, but got ",
             dtype_short_name(b.dtype()), ", ", dtype_short_name(a.dtype()), ", and ",
             dtype_short_name(b.dtype()));
  MT_CHECK(a.dtype() == b.dtype(),
           "expected m1 and m2 to have the same dtype, but got: ", cpp_type_name(a.dtype()),
           " != ", cpp_type_name(b.dtype()));
  if (nothing_to_compute && !a.is_cuda()) return;
  const char* kernel = addmv ? (a.is_cuda() ? "addmv_impl_cuda" : "addmv_impl_cpu")
                             : (a.is_cuda() ? "addmm_cuda" : "addmm_impl_cpu_");
  MT_CHECK_NOT_IMPLEMENTED(a.dtype() != ScalarType::Bool, "\"", kernel, "\" not implemented for 'Bool'");
}

// out[batch, m, n] (fresh, contiguous) = alpha * a @ b + beta * out, with the degenerate sizes BLAS rejects
// handled here: nothing to write for m or n == 0; k == 0 leaves beta * out (zeros when beta == 0).
void gemm_into(const Tensor& out, const Tensor& a, const Tensor& b, const Scalar& alpha, const Scalar& beta) {
  if (out.numel() == 0) return;
  if (a.sizes()[2] == 0) {
    if (beta.to_double() == 0.0)
      zero_(out);
    else if (beta.to_double() != 1.0)
      copy_(out, mul(out, wrapped_scalar(beta)));
    return;
  }
  gemm_stub.get(out.device())(out, a, b, alpha, beta);
}

Tensor mm_unchecked(const Tensor& a, const Tensor& b) {
  Tensor out = make_empty({a.sizes()[0], b.sizes()[1]}, a.dtype(), a.device());
  gemm_into(native::unsqueeze(out, 0), native::unsqueeze(a, 0), native::unsqueeze(b, 0), Scalar(int64_t(1)),
            Scalar(int64_t(0)));
  return out;
}

Tensor bmm_unchecked(const Tensor& a, const Tensor& b) {
  Tensor out = make_empty({a.sizes()[0], a.sizes()[1], b.sizes()[2]}, a.dtype(), a.device());
  gemm_into(out, a, b, Scalar(int64_t(1)), Scalar(int64_t(0)));
  return out;
}

}  // namespace

Tensor native::mm(const Tensor& a, const Tensor& b) {
  MT_CHECK(a.dim() == 2, "self must be a matrix");
  MT_CHECK(b.dim() == 2, "mat2 must be a matrix");
  MT_CHECK(a.sizes()[1] == b.sizes()[0], "mm: mat1 and mat2 shapes cannot be multiplied (", a.sizes()[0], "x",
           a.sizes()[1], " and ", b.sizes()[0], "x", b.sizes()[1], ")");
  check_same_device(a, b);
  check_gemm_dtype(a, b, false, a.sizes()[0] * b.sizes()[1] == 0 || a.sizes()[1] == 0);
  return mm_unchecked(a, b);
}

Tensor native::bmm(const Tensor& a, const Tensor& b) {
  MT_CHECK(a.dim() == 3, "batch1 must be a 3D tensor");
  MT_CHECK(b.dim() == 3, "batch2 must be a 3D tensor");
  int64_t bs = a.sizes()[0], k = a.sizes()[2];
  MT_CHECK(b.sizes()[0] == bs && b.sizes()[1] == k,
           "Expected size for first two dimensions of batch2 tensor to be: [", bs, ", ", k, "] but got: [",
           b.sizes()[0], ", ", b.sizes()[1], "].");
  check_same_device(a, b);
  // PyTorch's CPU bmm: a result in batch2's dtype; nothing to compute (an empty result, k == 0) checks no
  // dtype; a small product (k * m * n < 400) dispatches on batch1's dtype first (bool refused as "bmm") and
  // reads batch2 in it, a bigger one runs addmm per batch, which reads batch1 in batch2's dtype
  if (!a.is_cuda()) {
    const int64_t m = a.sizes()[1], n = b.sizes()[2];
    if (bs * m * n == 0 || k == 0)
      return bmm_unchecked(a.dtype() == b.dtype() ? a : to(a, b.dtype(), a.device()), b);
    if (k * m * n >= 400) {
      MT_CHECK(a.dtype() == b.dtype(), "expected scalar type ", dtype_short_name(b.dtype()), " but found ",
               dtype_short_name(a.dtype()));
      MT_CHECK_NOT_IMPLEMENTED(a.dtype() != ScalarType::Bool,
                               "\"addmm_impl_cpu_\" not implemented for 'Bool'");
    }
    MT_CHECK_NOT_IMPLEMENTED(a.dtype() != ScalarType::Bool, "\"bmm\" not implemented for 'Bool'");
  }
  MT_CHECK(a.dtype() == b.dtype(), "expected scalar type ", dtype_short_name(a.dtype()), " but found ",
           dtype_short_name(b.dtype()));
  return bmm_unchecked(a, b);
}

Tensor native::mv(const Tensor& a, const Tensor& v) {
  // PyTorch reports mv through addmv's checks: (result, mat, vec) dims, then sizes; the result it makes
  // first is mat.size(0) long, which a 0-dim mat cannot give.
  MT_CHECK_INDEX(a.dim() > 0, "Dimension specified as 0 but tensor has no dimensions");
  MT_CHECK(a.dim() == 2 && v.dim() == 1, "vector + matrix @ vector expected, got 1, ", a.dim(), ", ",
           v.dim());
  MT_CHECK(a.sizes()[1] == v.sizes()[0], "size mismatch, got input (", a.sizes()[0], "), mat (", a.sizes()[0],
           "x", a.sizes()[1], "), vec (", v.sizes()[0], ")");
  check_same_device(a, v);
  check_gemm_dtype(a, v, true, a.numel() == 0);
  return native::squeeze(mm_unchecked(a, native::unsqueeze(v, 1)), {1});
}

Tensor native::dot(const Tensor& a, const Tensor& b) {
  MT_CHECK(a.dim() == 1 && b.dim() == 1, "1D tensors expected, but got ", a.dim(), "D and ", b.dim(),
           "D tensors");
  MT_CHECK(a.dtype() == b.dtype(), "dot : expected both vectors to have same dtype, but found ",
           dtype_short_name(a.dtype()), " and ", dtype_short_name(b.dtype()));
  MT_CHECK(a.numel() == b.numel(), "inconsistent tensor size, expected tensor [", a.numel(), "] and src [",
           b.numel(), "] to have the same number of elements, but got ", a.numel(), " and ", b.numel(),
           " elements respectively");
  check_same_device(a, b);
  MT_CHECK_NOT_IMPLEMENTED(a.dtype() != ScalarType::Bool, "\"dot\" not implemented for 'Bool'");
  return native::view(mm_unchecked(native::unsqueeze(a, 0), native::unsqueeze(b, 1)), {});
}

Tensor outer(const Tensor& a, const Tensor& b) {
  MT_CHECK(a.dim() == 1, "outer: Expected 1-D argument self, but got ", a.dim(), "-D");
  MT_CHECK(b.dim() == 1, "outer: Expected 1-D argument vec2, but got ", b.dim(), "-D");
  // An outer product is a broadcast multiply: exact, promotes dtypes, and never needs a k == 1 GEMM.
  return mul(unsqueeze(a, 1), b);
}

Tensor kron(const Tensor& a, const Tensor& b) {
  const int64_t nd = std::max(a.dim(), b.dim());
  DimVector sa, sb, out;
  for (int64_t d = 0; d < nd; ++d) {
    const int64_t i = d - (nd - a.dim()), j = d - (nd - b.dim());
    const int64_t m = i < 0 ? 1 : a.sizes()[i], n = j < 0 ? 1 : b.sizes()[j];
    sa.push_back(m);
    sa.push_back(1);
    sb.push_back(1);
    sb.push_back(n);
    out.push_back(m * n);
  }
  return reshape(mul(reshape(a, sa), reshape(b, sb)), out);
}

GemmScales integral_gemm_scales(ScalarType dtype, const Scalar& beta, const Scalar& alpha, bool beta_used,
                                bool alpha_used, bool scales_self_first) {
  const bool inexact_beta = beta.is_floating() || beta.is_complex();
  const char* beta_type = beta.is_complex() ? "ComplexFloat" : beta.is_floating() ? "Float" : "Long";
  if (dtype == ScalarType::Bool) {  // the bool kernel reads bool(beta), bool(alpha)
    if (scales_self_first && !beta.is_bool())
      MT_CHECK(beta.to_complex() == 0.0, "result type ", beta_type,
               " can't be cast to the desired output type Bool");
    return {beta, alpha};
  }
  if (is_inexact(dtype)) {  // converted to the dtype too: a complex scale for a real one, or out of its range
    if (!is_complex(dtype)) {
      if (beta_used) check_scalar_fits(beta, dtype);
      if (alpha_used) check_scalar_fits(alpha, dtype);
    }
    return {beta, alpha};
  }
  if (scales_self_first && inexact_beta && beta.to_complex() != 0.0)
    MT_ERROR("result type ", beta_type, " can't be cast to the desired output type ",
             dtype_short_name(dtype));
  // alpha only scales a product that exists (PyTorch converts it inside the GEMM's loop); an unchecked scale
  // is unused, so it becomes 0 rather than a conversion of a value int64 may not hold
  auto converted = [dtype](const Scalar& v, bool used) {
    if (used) check_scalar_fits(v, dtype);
    if (!v.is_floating() && !v.is_complex()) return v;
    return Scalar(used ? static_cast<int64_t>(v.to_complex().real()) : int64_t(0));
  };
  return {converted(beta, beta_used), converted(alpha, alpha_used)};
}

namespace {

// beta * bias + alpha * (m1 @ m2) after the checks, bias already of the product's shape [m, n] and the scales
// the kernel reads (integral_gemm_scales)
Tensor scaled_mm(const Tensor& bias, const Tensor& m1, const Tensor& m2, const Scalar& beta,
                 const Scalar& alpha) {
  IntArrayRef shape = bias.sizes();
  Tensor out = make_empty(shape, m1.dtype(), m1.device());
  FreshWrites fresh;
  // beta == 0 ignores self entirely (NaN/inf in it must not leak), as BLAS does.
  bool use_bias = beta.to_double() != 0.0;
  // alpha == 0 reads neither factor (BLAS's rule too): inf or NaN in them does not reach the result
  if (!alpha.is_complex() && alpha.to_double() == 0.0) {
    if (!use_bias) return zeros(shape, m1.dtype(), m1.device());
    if (out.numel() > 0) copy_(out, mul(bias, wrapped_scalar(beta)));
    return out;
  }
  if (use_bias && out.numel() > 0) copy_(out, bias);
  gemm_into(native::unsqueeze(out, 0), native::unsqueeze(m1, 0), native::unsqueeze(m2, 0), alpha,
            use_bias ? beta : Scalar(int64_t(0)));
  return out;
}

}  // namespace

Tensor native::addmm(const Tensor& self, const Tensor& m1, const Tensor& m2, const Scalar& beta,
                     const Scalar& alpha) {
  MT_CHECK(self.dtype() == m2.dtype(), "self and mat2 must have the same dtype, but got ",
           dtype_short_name(self.dtype()), " and ", dtype_short_name(m2.dtype()));
  MT_CHECK(m1.dtype() == m2.dtype(), "mat1 and mat2 must have the same dtype, but got ",
           dtype_short_name(m1.dtype()), " and ", dtype_short_name(m2.dtype()));
  MT_CHECK(m1.dim() == 2, "mat1 must be a matrix, got ", m1.dim(), "-D tensor");
  MT_CHECK(m2.dim() == 2, "mat2 must be a matrix, got ", m2.dim(), "-D tensor");
  MT_CHECK(m1.sizes()[1] == m2.sizes()[0], "addmm: mat1 and mat2 shapes cannot be multiplied (",
           m1.sizes()[0], "x", m1.sizes()[1], " and ", m2.sizes()[0], "x", m2.sizes()[1], ")");
  check_same_device(m1, m2);
  check_same_device(self, m1);
  // an empty contraction scales self by beta in PyTorch's kernel before its dtype dispatch
  const bool empty = m1.sizes()[0] == 0 || m2.sizes()[1] == 0, k0 = m1.sizes()[1] == 0;
  check_gemm_dtype(m1, m2, false, empty || k0);
  // (PyTorch's addmm kernel converts the scales of float16 and bfloat16 to float, its opmath type)
  const ScalarType dt = m1.dtype(),
                   scale_dt = dt == ScalarType::Half || dt == ScalarType::BFloat16 ? ScalarType::Float : dt;
  const GemmScales s = integral_gemm_scales(scale_dt, beta, alpha, !empty, !empty && !k0, !empty && k0);
  DimVector shape{m1.sizes()[0], m2.sizes()[1]};
  // expand errors in PyTorch's words when self does not broadcast
  return scaled_mm(mt::expand(self, shape), m1, m2, s.beta, s.alpha);
}

Tensor native::addmv(const Tensor& self, const Tensor& mat, const Tensor& vec, const Scalar& beta,
                     const Scalar& alpha) {
  // PyTorch's addmv meta function: the ranks, then the sizes (its message reads self.size(0))
  MT_CHECK(mat.dim() == 2 && vec.dim() == 1 && self.dim() <= 1, "vector + matrix @ vector expected, got ",
           self.dim(), ", ", mat.dim(), ", ", vec.dim());
  const int64_t m = mat.sizes()[0], k = mat.sizes()[1];
  if (k != vec.sizes()[0] || (m != self.numel() && self.numel() != 1)) {
    MT_CHECK_INDEX(self.dim() > 0, "Dimension specified as 0 but tensor has no dimensions");
    MT_ERROR("size mismatch, got input (", self.sizes()[0], "), mat (", m, "x", k, "), vec (", vec.sizes()[0],
             ")");
  }
  check_same_device(mat, vec);
  check_same_device(self, mat);
  MT_CHECK(self.dtype() == mat.dtype() && mat.dtype() == vec.dtype(),
           "addmv input tensors must have the same dtype, but got ", dtype_short_name(self.dtype()), ", ",
           dtype_short_name(mat.dtype()), ", and ", dtype_short_name(vec.dtype()));
  const ScalarType dt = vec.dtype();
  Tensor bias = mt::expand(self, {m});
  if (m * k == 0) {
    // PyTorch's shortcut for an empty matrix: self times beta as a scalar of self's dtype (bool too), alpha
    // unread; beta == 0 ignores self (NaN included)
    if (beta.to_complex() == 0.0) return zeros({m}, dt, mat.device());
    const Scalar be = integral_gemm_scales(dt, beta, alpha, true, false, false).beta;
    return mul(bias, scalar_tensor(be, dt, mat.device()));
  }
  check_gemm_dtype(mat, vec, true);
  const GemmScales s = integral_gemm_scales(dt, beta, alpha, true, true, false);
  return native::squeeze(
      scaled_mm(native::unsqueeze(bias, 1), mat, native::unsqueeze(vec, 1), s.beta, s.alpha), {1});
}

// ---- out= written by the GEMM (linalg.h's *_into): the checks the general path's result would pass, then
// the same gemm_into on out's memory
namespace {

// out of the result's shape on the CPU, not bool, in every operand's dtype, sharing memory with none
bool gemm_out_takes(const Tensor& out, IntArrayRef shape, std::initializer_list<const Tensor*> inputs) {
  if (!out.device().is_cpu() || out.dtype() == ScalarType::Bool) return false;
  for (const Tensor* t : inputs)
    if (t->dtype() != out.dtype() || !t->device().is_cpu()) return false;
  return out_takes(out, shape, out.dtype(), out.device(), true, inputs);
}

// Whether BLAS writes c [batch, m, n] as it is (row-major) or as its transpose (column-major: c^T = b^T a^T).
enum class CLayout { none, rows, cols };
CLayout c_layout(const Tensor& c) {
  GemmLayout l = gemm_layout(c);
  if (!gemm_layout_fits_int(c, l)) return CLayout::none;
  return l.trans ? CLayout::cols : CLayout::rows;
}

// c = alpha * a @ b + beta * c in the layout c_layout chose; c's version (its storage's, out's) bumps once,
// as the general path's copy into out, not for the writes inside (gemm_into's zero_ of a k == 0 product)
void gemm_out(CLayout layout, const Tensor& c, const Tensor& a, const Tensor& b, const Scalar& alpha,
              const Scalar& beta) {
  {
    FreshWrites fresh;
    if (layout == CLayout::rows)
      gemm_into(c, a, b, alpha, beta);
    else
      gemm_into(native::transpose(c, 1, 2), native::transpose(b, 1, 2), native::transpose(a, 1, 2), alpha,
                beta);
  }
  wrote(c);
}

// self's sizes broadcast to shape (expand's rule: trailing dims equal or 1, no more dims)
bool expands_to(const Tensor& self, IntArrayRef shape) {
  int64_t n = self.dim(), m = int64_t(shape.size());
  if (n > m) return false;
  for (int64_t i = 1; i <= n; ++i)
    if (self.sizes()[n - i] != 1 && self.sizes()[n - i] != shape[m - i]) return false;
  return true;
}

// baddbmm/addmm/addmv on 3-D views: out (any rank, c its [batch, m, n] view) = beta * self + alpha * a @ b.
// An alpha of 0 (reads neither factor) and a floating beta/alpha for integers stay the general path's.
bool scaled_gemm_into(const Tensor& out, const Tensor& c, const Tensor& self, const Tensor& a,
                      const Tensor& b, const Scalar& beta, const Scalar& alpha) {
  if (alpha.is_bool() || beta.is_bool() || alpha.to_complex() == 0.0) return false;
  if (!is_inexact(out.dtype()) &&
      (alpha.is_floating() || alpha.is_complex() || beta.is_floating() || beta.is_complex()))
    return false;
  if (!is_complex(out.dtype()) && (alpha.is_complex() || beta.is_complex())) return false;
  if (!expands_to(self, out.sizes())) return false;
  CLayout layout = c_layout(c);
  if (layout == CLayout::none) return false;
  // beta == 0 ignores self entirely (NaN/inf in it must not leak), as BLAS does
  const bool use_bias = beta.to_complex() != 0.0;
  if (use_bias) {
    FreshWrites fresh;
    copy_(out, mt::expand(self, out.sizes()));
  }
  gemm_out(layout, c, a, b, alpha, use_bias ? beta : Scalar(int64_t(0)));
  return true;
}

}  // namespace

bool bmm_into(const Tensor& out, const Tensor& a, const Tensor& b) {
  if (a.dim() != 3 || b.dim() != 3 || a.sizes()[0] != b.sizes()[0] || a.sizes()[2] != b.sizes()[1] ||
      !gemm_out_takes(out, {a.sizes()[0], a.sizes()[1], b.sizes()[2]}, {&a, &b}))
    return false;
  CLayout layout = c_layout(out);
  if (layout == CLayout::none) return false;
  gemm_out(layout, out, a, b, Scalar(int64_t(1)), Scalar(int64_t(0)));
  return true;
}

bool mm_into(const Tensor& out, const Tensor& a, const Tensor& b) {
  if (a.dim() != 2 || b.dim() != 2 || out.dim() != 2) return false;
  return bmm_into(native::unsqueeze(out, 0), native::unsqueeze(a, 0), native::unsqueeze(b, 0));
}

bool mv_into(const Tensor& out, const Tensor& a, const Tensor& v) {
  if (a.dim() != 2 || v.dim() != 1 || out.dim() != 1) return false;
  return mm_into(native::unsqueeze(out, 1), a, native::unsqueeze(v, 1));
}

bool dot_into(const Tensor& out, const Tensor& a, const Tensor& b) {
  if (a.dim() != 1 || b.dim() != 1 || out.dim() != 0) return false;
  return mm_into(native::view(out, {1, 1}), native::unsqueeze(a, 0), native::unsqueeze(b, 1));
}

bool matmul_into(const Tensor& out, const Tensor& a, const Tensor& b) {
  const int64_t da = a.dim(), db = b.dim();
  if (da == 1 && db == 1) return dot_into(out, a, b);
  if (da == 2 && db == 1) return mv_into(out, a, b);
  if (da == 1 && db == 2)
    return out.dim() == 1 && mm_into(native::unsqueeze(out, 0), native::unsqueeze(a, 0), b);
  if (da == 2 && db == 2) return mm_into(out, a, b);
  // same batch on both sides: bmm's product as matmul's (a broadcast batch or folded rows: the general path)
  if (da == 3 && db == 3 && a.sizes()[0] == b.sizes()[0]) return bmm_into(out, a, b);
  return false;
}

bool baddbmm_into(const Tensor& out, const Tensor& self, const Tensor& b1, const Tensor& b2,
                  const Scalar& beta, const Scalar& alpha) {
  if (b1.dim() != 3 || b2.dim() != 3 || b1.sizes()[0] != b2.sizes()[0] || b1.sizes()[2] != b2.sizes()[1] ||
      !gemm_out_takes(out, {b1.sizes()[0], b1.sizes()[1], b2.sizes()[2]}, {&self, &b1, &b2}))
    return false;
  return scaled_gemm_into(out, out, self, b1, b2, beta, alpha);
}

bool addmm_into(const Tensor& out, const Tensor& self, const Tensor& m1, const Tensor& m2, const Scalar& beta,
                const Scalar& alpha) {
  if (m1.dim() != 2 || m2.dim() != 2 || m1.sizes()[1] != m2.sizes()[0] ||
      !gemm_out_takes(out, {m1.sizes()[0], m2.sizes()[1]}, {&self, &m1, &m2}))
    return false;
  return scaled_gemm_into(out, native::unsqueeze(out, 0), self, native::unsqueeze(m1, 0),
                          native::unsqueeze(m2, 0), beta, alpha);
}

bool addmv_into(const Tensor& out, const Tensor& self, const Tensor& a, const Tensor& v, const Scalar& beta,
                const Scalar& alpha) {
  if (a.dim() != 2 || v.dim() != 1 || self.dim() > 1 || a.sizes()[1] != v.sizes()[0] ||
      !gemm_out_takes(out, {a.sizes()[0]}, {&self, &a, &v}))
    return false;
  return scaled_gemm_into(out, native::unsqueeze(native::unsqueeze(out, 1), 0), self, native::unsqueeze(a, 0),
                          native::unsqueeze(native::unsqueeze(v, 1), 0), beta, alpha);
}

// ---- cross: one pass over the 3-vectors (the composite's index_select/cat cost five temporaries)
bool has_cross_kernel(const Tensor& a) {
  return cross_stub.fns[static_cast<int>(a.device().type)] != nullptr;
}

Tensor linalg_cross(const Tensor& a, const Tensor& b, int64_t dim) {
  DimVector shape = broadcast_shapes(a.sizes(), b.sizes());
  Tensor out = make_empty(shape, a.dtype(), a.device());
  if (out.numel() > 0)
    cross_stub.get(a.device())(out, native::expand(a, shape), native::expand(b, shape), dim);
  return out;
}

bool linalg_cross_into(const Tensor& out, const Tensor& a, const Tensor& b, int64_t dim) {
  DimVector shape = broadcast_shapes(a.sizes(), b.sizes());
  if (!out_takes(out, shape, a.dtype(), a.device(), true, {&a, &b})) return false;
  cross_stub.get(a.device())(out, native::expand(a, shape), native::expand(b, shape), dim);
  wrote(out);
  return true;
}

Tensor matmul(const Tensor& a, const Tensor& b) {
  if (autocast::active()) {
    autocast::Scope s(autocast::Op::matmul);
    return matmul(s(a), s(b));
  }
  int64_t da = a.dim(), db = b.dim();
  MT_CHECK(da != 0 && db != 0, "both arguments to matmul need to be at least 1D, but they are ", da, "D and ",
           db, "D");
  if (da == 1 && db == 1) return dot(a, b);
  if (da == 2 && db == 1) return mv(a, b);
  if (da == 1 && db == 2) return squeeze(mm(unsqueeze(a, 0), b), {0});
  if (da == 2 && db == 2) return mm(a, b);
  // PyTorch folds only when a's batch dims view as rows without a copy (or a is empty); where that is not so
  // it runs bmm, whose checks differ from mm's: followed where the dtypes differ (the error's words, or an
  // empty result's dtype), since folding is the faster path for the others
  auto folds_without_copy = [&] {
    if (a.numel() == 0) return true;
    for (int64_t i = 0; i + 2 < da; ++i)
      if (a.strides()[i] != a.strides()[i + 1] * a.sizes()[i + 1]) return false;
    return true;
  };
  if (da >= 3 && db <= 2 && (a.dtype() == b.dtype() || folds_without_copy())) {
    // Fold a's batch dims into its rows: one GEMM instead of a batch of small ones.
    int64_t k = a.sizes()[da - 1];
    int64_t rows = compute_numel(IntArrayRef(a.sizes().data(), size_t(da - 1)));  // not -1: k may be 0
    Tensor folded = reshape(a, {rows, k});
    Tensor r = db == 1 ? mv(folded, b) : mm(folded, b);
    DimVector shape(a.sizes().begin(), a.sizes().end() - 1);
    if (db == 2) shape.push_back(b.sizes()[1]);
    return view(r, shape);
  }
  // General case: broadcast the batch dims, then one bmm over the flattened batch.
  Tensor a2 = da == 1 ? unsqueeze(a, 0) : a;
  Tensor b2 = db == 1 ? unsqueeze(b, 1) : b;
  int64_t n1 = a2.dim(), n2 = b2.dim();
  int64_t m = a2.sizes()[n1 - 2], k = a2.sizes()[n1 - 1], k2 = b2.sizes()[n2 - 2], n = b2.sizes()[n2 - 1];
  DimVector ba(a2.sizes().begin(), a2.sizes().end() - 2), bb(b2.sizes().begin(), b2.sizes().end() - 2);
  DimVector batch = broadcast_shapes(ba, bb);
  int64_t nb = compute_numel(batch);
  DimVector ea = batch, eb = batch;
  ea.push_back(m);
  ea.push_back(k);
  eb.push_back(k2);
  eb.push_back(n);
  Tensor x = reshape(expand(a2, ea), {nb, m, k});
  Tensor y = reshape(expand(b2, eb), {nb, k2, n});
  Tensor r = bmm(x, y);
  DimVector shape = batch;
  if (da > 1) shape.push_back(m);
  if (db > 1) shape.push_back(n);
  return view(r, shape);
}

// ---- einsum: parse, take diagonals, sum labels used once, then contract pairs left to right with bmm.
namespace {

constexpr int kLetters = 52;  // A-Z then a-z; ellipsis dims get labels from kLetters up

int label_of(char c) {
  return c >= 'A' && c <= 'Z' ? c - 'A' : c - 'a' + 26;
}
std::string label_str(int l) {
  if (l >= kLetters) return "...";
  return std::string(1, l < 26 ? char('A' + l) : char('a' + l - 26));
}

struct Operand {
  Tensor t;
  std::vector<int> labels;  // one per dim of t
};

// Sums (or, for size 1, drops) the dims of `op` whose label is not in `keep`.
void sum_unneeded(Operand& op, const std::vector<bool>& keep) {
  DimVector dims;
  std::vector<int> rest;
  for (size_t d = 0; d < op.labels.size(); ++d)
    if (keep[op.labels[d]])
      rest.push_back(op.labels[d]);
    else
      dims.push_back(int64_t(d));
  if (dims.empty()) return;
  // A sum is a GEMM with a ones vector: [kept, summed] @ [summed, 1], so it runs through BLAS like the rest.
  DimVector perm, kept_sizes;
  int64_t inner = 1;
  for (size_t d = 0; d < op.labels.size(); ++d)
    if (keep[op.labels[d]]) perm.push_back(int64_t(d)), kept_sizes.push_back(op.t.sizes()[d]);
  for (int64_t d : dims) perm.push_back(d), inner *= op.t.sizes()[d];
  Tensor flat = reshape(permute(op.t, perm), {compute_numel(kept_sizes), inner});
  Tensor ones_col = ones({inner, 1}, op.t.dtype(), op.t.device());
  // the recorded mm when a gradient must flow through this sum
  op.t = view(needs_grad(flat) ? mm(flat, ones_col) : mm_unchecked(flat, ones_col), kept_sizes);
  op.labels = rest;
}

// Contracts two operands over the labels they share that `keep` does not need; shared needed labels are
// batch dims. Both become [batch, rows, inner] / [batch, inner, cols] for one bmm.
Operand contract(Operand a, Operand b, const std::vector<bool>& keep) {
  std::vector<int> batch, only_a, only_b, inner;
  auto pos = [](const Operand& o, int l) {
    auto it = std::find(o.labels.begin(), o.labels.end(), l);
    return it == o.labels.end() ? int64_t(-1) : int64_t(it - o.labels.begin());
  };
  for (int l : a.labels) {
    if (pos(b, l) < 0)
      only_a.push_back(l);
    else if (keep[l])
      batch.push_back(l);
    else
      inner.push_back(l);
  }
  for (int l : b.labels)
    if (pos(a, l) < 0) only_b.push_back(l);
  // A shared dim of size 1 on one side broadcasts: summing it out of the other side first is exact.
  for (auto it = inner.begin(); it != inner.end();) {
    int64_t pa = pos(a, *it), pb = pos(b, *it);
    int64_t sa = a.t.sizes()[pa], sb = b.t.sizes()[pb];
    if (sa != sb) {
      std::vector<bool> all_but(keep.size(), true);
      all_but[*it] = false;
      sum_unneeded(a, all_but);
      sum_unneeded(b, all_but);
      it = inner.erase(it);
    } else {
      ++it;
    }
  }
  auto sizes_of = [](const Operand& o, const std::vector<int>& ls, const Operand* other, auto& pos_fn) {
    DimVector s;
    for (int l : ls) {
      int64_t v = o.t.sizes()[pos_fn(o, l)];
      if (other) {
        int64_t p = pos_fn(*other, l);
        if (p >= 0) v = std::max(v, other->t.sizes()[p]);
      }
      s.push_back(v);
    }
    return s;
  };
  DimVector bsz = sizes_of(a, batch, &b, pos), asz = sizes_of(a, only_a, nullptr, pos),
            bosz = sizes_of(b, only_b, nullptr, pos), isz = sizes_of(a, inner, nullptr, pos);
  int64_t nb = compute_numel(bsz), m = compute_numel(asz), n = compute_numel(bosz), k = compute_numel(isz);
  auto arrange = [&](const Operand& o, const std::vector<int>& g1, const std::vector<int>& g2,
                     const std::vector<int>& g3, const DimVector& s2, const DimVector& s3, int64_t r2,
                     int64_t r3) {
    DimVector perm, target = bsz;
    for (const auto* g : {&g1, &g2, &g3})
      for (int l : *g) perm.push_back(pos(o, l));
    for (int64_t v : s2) target.push_back(v);
    for (int64_t v : s3) target.push_back(v);
    Tensor t = expand(permute(o.t, perm), target);  // batch dims of size 1 broadcast
    return reshape(t, {nb, r2, r3});
  };
  Tensor x = arrange(a, batch, only_a, inner, asz, isz, m, k);
  Tensor y = arrange(b, batch, inner, only_b, isz, bosz, k, n);
  Tensor r = bmm(x, y);
  DimVector shape = bsz;
  for (int64_t v : asz) shape.push_back(v);
  for (int64_t v : bosz) shape.push_back(v);
  Operand out{view(r, shape), batch};
  out.labels.insert(out.labels.end(), only_a.begin(), only_a.end());
  out.labels.insert(out.labels.end(), only_b.begin(), only_b.end());
  return out;
}

}  // namespace

Tensor einsum(const std::string& equation, const std::vector<Tensor>& operands) {
  MT_CHECK(!operands.empty(), "einsum(): must provide at least one operand");
  size_t arrow = equation.find("->");
  std::string lhs = equation.substr(0, arrow);
  // Split the inputs, validating characters as PyTorch does.
  std::vector<std::string> terms(1);
  for (size_t i = 0; i < lhs.size(); ++i) {
    char c = lhs[i];
    if (c == ',') {
      terms.emplace_back();
    } else if (c == '.') {
      MT_CHECK(lhs.compare(i, 3, "...") == 0, "einsum(): found '.' for operand ", terms.size() - 1,
               " that is not part of any ellipsis");
      MT_CHECK(terms.back().find('.') == std::string::npos, "einsum(): found '.' for operand ",
               terms.size() - 1, " for which an ellipsis was already found");
      terms.back() += '.';
      i += 2;
    } else if (c != ' ') {
      MT_CHECK((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'),
               "einsum(): invalid subscript given at index ", i,
               " in the equation string, subscripts must be in [a-zA-Z]");
      terms.back() += c;
    }
  }
  MT_CHECK(terms.size() >= operands.size(),
           "einsum(): more operands were provided than specified in the equation");
  MT_CHECK(terms.size() <= operands.size(),
           "einsum(): fewer operands were provided than specified in the equation");

  // Ellipsis width: the most dims any operand's '...' covers; narrower ones align to the right (broadcast).
  int64_t ell = 0;
  for (size_t i = 0; i < terms.size(); ++i) {
    bool has_ell = terms[i].find('.') != std::string::npos;
    int64_t letters = int64_t(terms[i].size()) - (has_ell ? 1 : 0);
    int64_t nd = operands[i].dim();
    if (has_ell) {
      MT_CHECK(nd >= letters, "einsum(): the number of subscripts in the equation (", letters,
               ") is more than the number of dimensions (", nd, ") for operand ", i);
      ell = std::max(ell, nd - letters);
    } else {
      MT_CHECK(nd == letters, "einsum(): the number of subscripts in the equation (", letters,
               ") does not match the number of dimensions (", nd, ") for operand ", i,
               " and no ellipsis was given");
    }
  }
  int nlabels = kLetters + int(ell);
  std::vector<Operand> ops;
  std::vector<int> count(nlabels, 0);
  std::vector<int64_t> seen(nlabels, -1);
  for (size_t i = 0; i < terms.size(); ++i) {
    Operand o{operands[i], {}};
    int64_t nd = o.t.dim();
    int64_t letters = int64_t(terms[i].size()) - (terms[i].find('.') != std::string::npos ? 1 : 0);
    for (char c : terms[i]) {
      if (c == '.') {
        for (int64_t e = 0; e < nd - letters; ++e)
          o.labels.push_back(int(kLetters + ell - (nd - letters) + e));
      } else {
        o.labels.push_back(label_of(c));
        ++count[label_of(c)];  // raw occurrences: 'ii' alone is a trace, so i is not an implicit output
      }
    }
    // Repeated labels within one operand: take the diagonal (diagonal() appends it as the last dim).
    for (bool again = true; again;) {
      again = false;
      for (size_t d = 0; d < o.labels.size() && !again; ++d)
        for (size_t e = d + 1; e < o.labels.size() && !again; ++e) {
          if (o.labels[e] != o.labels[d]) continue;
          MT_CHECK(o.t.sizes()[d] == o.t.sizes()[e], "einsum(): subscript ", label_str(o.labels[d]),
                   " is repeated for operand ", i, " but the sizes don't match, ", o.t.sizes()[d],
                   " != ", o.t.sizes()[e]);
          int l = o.labels[d];
          o.t = diagonal(o.t, 0, int64_t(d), int64_t(e));
          o.labels.erase(o.labels.begin() + int64_t(e));
          o.labels.erase(o.labels.begin() + int64_t(d));
          o.labels.push_back(l);
          again = true;
        }
    }
    for (size_t d = 0; d < o.labels.size(); ++d) {
      int l = o.labels[d];
      int64_t s = o.t.sizes()[d];
      if (seen[l] >= 0 && seen[l] != s && seen[l] != 1 && s != 1)
        MT_ERROR("einsum(): subscript ", label_str(l), " has size ", s, " for operand ", i,
                 " which does not broadcast with previously seen size ", seen[l]);
      if (seen[l] < 0 || seen[l] == 1) seen[l] = s;
    }
    if (i > 0) check_same_device(ops[0].t, o.t);
    ops.push_back(std::move(o));
  }

  // The output labels: explicit, or ellipsis dims then the letters used exactly once, in alphabetical order.
  std::vector<int> out_labels;
  if (arrow != std::string::npos) {
    std::string rhs = equation.substr(arrow + 2);
    bool out_ell = false;
    for (size_t i = 0; i < rhs.size(); ++i) {
      char c = rhs[i];
      if (c == ' ') continue;
      if (c == '.') {
        MT_CHECK(rhs.compare(i, 3, "...") == 0 && !out_ell,
                 "einsum(): found '.' for output that is not part of any ellipsis");
        out_ell = true;
        for (int64_t e = 0; e < ell; ++e) out_labels.push_back(int(kLetters + e));
        i += 2;
        continue;
      }
      MT_CHECK((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'),
               "einsum(): invalid subscript given at index ", lhs.size() + 2 + i,
               " in the equation string, subscripts must be in [a-zA-Z]");
      int l = label_of(c);
      MT_CHECK(std::find(out_labels.begin(), out_labels.end(), l) == out_labels.end(),
               "einsum(): output subscript ", c, " appears more than once in the output");
      MT_CHECK(count[l] > 0, "einsum(): output subscript ", c,
               " does not appear in the equation for any input operand");
      out_labels.push_back(l);
    }
    // Ellipsis dims not named in the output are summed, as in NumPy.
  } else {
    for (int64_t e = 0; e < ell; ++e) out_labels.push_back(int(kLetters + e));
    for (int l = 0; l < kLetters; ++l)
      if (count[l] == 1) out_labels.push_back(l);
  }

  std::vector<bool> in_out(nlabels, false);
  for (int l : out_labels) in_out[l] = true;
  // Labels needed after operand i: the output's and those of operands i+1...
  auto needed_after = [&](size_t i) {
    std::vector<bool> keep = in_out;
    for (size_t j = i + 1; j < ops.size(); ++j)
      for (int l : ops[j].labels) keep[l] = true;
    return keep;
  };
  // Sum each label no other operand and not the output uses before any GEMM: it shrinks the GEMMs.
  for (size_t i = 0; i < ops.size(); ++i) {
    std::vector<bool> keep = in_out;
    for (size_t j = 0; j < ops.size(); ++j)
      if (j != i)
        for (int l : ops[j].labels) keep[l] = true;
    sum_unneeded(ops[i], keep);
  }
  Operand acc = ops[0];
  for (size_t i = 1; i < ops.size(); ++i) acc = contract(acc, ops[i], needed_after(i));
  sum_unneeded(acc, in_out);

  // Final order; an output label missing from acc (broadcast size-1 ellipsis dims) is added as a size-1 dim.
  DimVector perm;
  for (int l : out_labels) {
    auto it = std::find(acc.labels.begin(), acc.labels.end(), l);
    if (it == acc.labels.end()) {
      acc.t = unsqueeze(acc.t, acc.t.dim());
      acc.labels.push_back(l);
      it = acc.labels.end() - 1;
    }
    perm.push_back(int64_t(it - acc.labels.begin()));
  }
  return permute(acc.t, perm);
}

}  // namespace mt
