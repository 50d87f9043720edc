// CUDA GEMM kernel: strided batched C = alpha * A @ B + beta * C through cuBLAS for float32 (TF32 when the
// matmul precision allows it), float64, float16 and bfloat16 (fp32 compute and alpha/beta). cuBLAS is
// column-major, so a row-major C is computed as C^T = B^T A^T; a column-major C directly as A B.
#include <cublas_v2.h>

#include <algorithm>
#include <climits>

#include "cuda/CUBLASCheck.h"
#include "cuda/CUDAContext.h"
#include "cuda/Exceptions.h"
#include "ops/copy.h"
#include "ops/linalg.h"

namespace mt {
namespace {

struct GemmTypes {
  cudaDataType_t data;
  cublasComputeType_t compute;
  bool double_scalars;  // alpha/beta as double (float64), else float
};

GemmTypes gemm_types(ScalarType t) {
  switch (t) {
    case ScalarType::Float:
      return {CUDA_R_32F, matmul_allow_tf32() ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F, false};
    case ScalarType::Double:
      return {CUDA_R_64F, CUBLAS_COMPUTE_64F, true};
    case ScalarType::Half:
      return {CUDA_R_16F, CUBLAS_COMPUTE_32F, false};
    case ScalarType::BFloat16:
      return {CUDA_R_16BF, CUBLAS_COMPUTE_32F, false};
    default:
      // PyTorch has no integer GEMM on CUDA either; its dispatch names the op addmm_cuda.
      MT_CHECK_NOT_IMPLEMENTED(false, "\"addmm_cuda\" not implemented for '", dtype_short_name(t), "'");
  }
  return {};
}

// One column-major cuBLAS call (or a strided batch of them) of C = op(X) op(Y), all pointers and strides in
// elements of the tensors' dtype.
struct ColMajorGemm {
  cublasOperation_t opx, opy;
  int m, n, k;
  const void* x;
  int ldx;
  int64_t sx;
  const void* y;
  int ldy;
  int64_t sy;
  void* c;
  int ldc;
  int64_t sc;
};

void run_gemm(cublasHandle_t h, const GemmTypes& ty, size_t itemsize, const ColMajorGemm& g, int64_t batch,
              const void* alpha, const void* beta) {
  const char* x = static_cast<const char*>(g.x);
  const char* y = static_cast<const char*>(g.y);
  char* c = static_cast<char*>(g.c);
  const int64_t isz = static_cast<int64_t>(itemsize);
  if (batch == 1) {
    MT_CUBLAS_CHECK(cublasGemmEx(h, g.opx, g.opy, g.m, g.n, g.k, alpha, x, ty.data, g.ldx, y, ty.data, g.ldy,
                                 beta, c, ty.data, g.ldc, ty.compute, CUBLAS_GEMM_DEFAULT));
    return;
  }
  // batchCount is an int: batches beyond INT_MAX go in chunks.
  for (int64_t b0 = 0; b0 < batch; b0 += INT_MAX) {
    int nb = static_cast<int>(std::min<int64_t>(batch - b0, INT_MAX));
    MT_CUBLAS_CHECK(cublasGemmStridedBatchedEx(h, g.opx, g.opy, g.m, g.n, g.k, alpha, x + b0 * g.sx * isz,
                                               ty.data, g.ldx, g.sx, y + b0 * g.sy * isz, ty.data, g.ldy,
                                               g.sy, beta, c + b0 * g.sc * isz, ty.data, g.ldc, g.sc, nb,
                                               ty.compute, CUBLAS_GEMM_DEFAULT));
  }
}

void gemm_cuda(const Tensor& c, const Tensor& a_in, const Tensor& b_in, const Scalar& alpha_s,
               const Scalar& beta_s) {
  GemmTypes ty = gemm_types(c.dtype());  // raises for integer dtypes before any work
  Device dev = c.device();
  cuda::DeviceGuard guard(dev);
  int64_t batch = c.sizes()[0], m = c.sizes()[1], n = c.sizes()[2], k = a_in.sizes()[2];
  MT_CHECK(m <= INT_MAX && n <= INT_MAX && k <= INT_MAX,
           "matmul: matrix dimensions must fit in a 32-bit BLAS integer, got ", m, "x", k, " and ", k, "x",
           n);
  Tensor a = a_in, b = b_in;
  GemmLayout la = gemm_layout(a), lb = gemm_layout(b);
  if (!gemm_layout_fits_int(a, la)) a = contiguous(a), la = gemm_layout(a);
  if (!gemm_layout_fits_int(b, lb)) b = contiguous(b), lb = gemm_layout(b);
  GemmLayout lc = gemm_layout(c);
  bool beta_zero = beta_s.to_double() == 0.0;
  // c is written in place when cuBLAS can address it; otherwise through a contiguous temporary (which must
  // start as c when beta reads it). A batch of outputs sharing one matrix (stride 0) can't be written in
  // parallel either.
  bool c_direct = gemm_layout_fits_int(c, lc) && (batch == 1 || c.strides()[0] != 0);
  Tensor out = c_direct ? c : (beta_zero ? make_empty(c.sizes(), c.dtype(), dev) : contiguous(c));
  if (!c_direct) lc = gemm_layout(out);

  ColMajorGemm g{};
  if (!lc.trans) {
    // row-major C [m, n] is column-major C^T [n, m]: C^T = op(B^T) op(A^T). A row-major operand already
    // reads as its transpose in column-major (no op); a column-major one needs op T.
    g = {lb.trans ? CUBLAS_OP_T : CUBLAS_OP_N,
         la.trans ? CUBLAS_OP_T : CUBLAS_OP_N,
         static_cast<int>(n),
         static_cast<int>(m),
         static_cast<int>(k),
         b.data_ptr(),
         static_cast<int>(lb.ld),
         b.strides()[0],
         a.data_ptr(),
         static_cast<int>(la.ld),
         a.strides()[0],
         out.data_ptr(),
         static_cast<int>(lc.ld),
         out.strides()[0]};
  } else {
    // column-major C [m, n]: C = op(A) op(B), where a row-major operand needs op T.
    g = {la.trans ? CUBLAS_OP_N : CUBLAS_OP_T,
         lb.trans ? CUBLAS_OP_N : CUBLAS_OP_T,
         static_cast<int>(m),
         static_cast<int>(n),
         static_cast<int>(k),
         a.data_ptr(),
         static_cast<int>(la.ld),
         a.strides()[0],
         b.data_ptr(),
         static_cast<int>(lb.ld),
         b.strides()[0],
         out.data_ptr(),
         static_cast<int>(lc.ld),
         out.strides()[0]};
  }
  cublasHandle_t h = cuda::cublas_handle(dev.index);  // bound to the current stream
  if (ty.double_scalars) {
    double alpha = alpha_s.to_double(), beta = beta_s.to_double();
    run_gemm(h, ty, c.itemsize(), g, batch, &alpha, &beta);
  } else {
    float alpha = static_cast<float>(alpha_s.to_double()), beta = static_cast<float>(beta_s.to_double());
    run_gemm(h, ty, c.itemsize(), g, batch, &alpha, &beta);
  }
  if (!c_direct) copy_(c, out);
}

}  // namespace

MT_REGISTER_KERNEL(gemm_stub, CUDA, &gemm_cuda);

}  // namespace mt
