// One row-major GEMM call for the CPU kernels (matmul, conv's im2col GEMMs): oneDNN's sgemm for float when
// built with it, else OpenBLAS (also cgemm/zgemm for complex); and the guard that keeps OpenBLAS on one
// thread while our pool runs tasks.
#pragma once
#include <cblas.h>

#include <complex>
#include <cstdint>
#include <type_traits>

#ifdef MINITORCH_WITH_ONEDNN
#include <oneapi/dnnl/dnnl.h>

#include "kernels/cpu/onednn_threads.h"
#endif

namespace mt {
namespace cpu_blas {

// C = alpha * op(A) @ op(B) + beta * C. oneDNN's JIT sgemm: at one thread (CPU time, Xeon with AVX-512) 14.2
// ms against OpenBLAS's 15.2 at 1024^3 (PyTorch's MKL: 14.3), and 1.6 ms against 2.7 on a conv-shaped
// 64x3136x576. Sizes must fit BLAS's 32-bit integers (callers check).
template <typename T>
inline void gemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, T alpha, const T* a, int64_t lda,
                 const T* b, int64_t ldb, T beta, T* c, int64_t ldc) {
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, double> ||
                    std::is_same_v<T, std::complex<float>> || std::is_same_v<T, std::complex<double>>,
                "BLAS GEMM is float, double or their complex types");
#ifdef MINITORCH_WITH_ONEDNN
  if constexpr (std::is_same_v<T, float>) {
    onednn_sync_threads();
    if (k > 0 && dnnl_sgemm(ta ? 'T' : 'N', tb ? 'T' : 'N', m, n, k, alpha, a, lda, b, ldb, beta, c, ldc) ==
                     dnnl_success)
      return;
  }
#endif
  auto TA = ta ? CblasTrans : CblasNoTrans, TB = tb ? CblasTrans : CblasNoTrans;
  if constexpr (std::is_same_v<T, float>)
    scipy_cblas_sgemm(CblasRowMajor, TA, TB, int(m), int(n), int(k), alpha, a, int(lda), b, int(ldb), beta, c,
                      int(ldc));
  else if constexpr (std::is_same_v<T, std::complex<float>>)  // the complex GEMMs take alpha/beta by pointer
    scipy_cblas_cgemm(CblasRowMajor, TA, TB, int(m), int(n), int(k), &alpha, a, int(lda), b, int(ldb), &beta,
                      c, int(ldc));
  else if constexpr (std::is_same_v<T, std::complex<double>>)
    scipy_cblas_zgemm(CblasRowMajor, TA, TB, int(m), int(n), int(k), &alpha, a, int(lda), b, int(ldb), &beta,
                      c, int(ldc));
  else
    scipy_cblas_dgemm(CblasRowMajor, TA, TB, int(m), int(n), int(k), alpha, a, int(lda), b, int(ldb), beta, c,
                      int(ldc));
}

// Tasks on our pool each run single-threaded GEMMs (one fork/join per call instead of one per GEMM, which on
// a busy machine cost a scheduler slice each). OpenBLAS has no per-thread thread count in this build, so its
// global one is lowered for the duration: ops run with the GIL held, so no other op's GEMM runs meanwhile.
struct SingleThreadedBlas {
  int prev = scipy_openblas_get_num_threads();
  SingleThreadedBlas() {
    if (prev != 1) scipy_openblas_set_num_threads(1);
  }
  ~SingleThreadedBlas() {
    if (prev != 1) scipy_openblas_set_num_threads(prev);
  }
  SingleThreadedBlas(const SingleThreadedBlas&) = delete;
  SingleThreadedBlas& operator=(const SingleThreadedBlas&) = delete;
};

}  // namespace cpu_blas
}  // namespace mt
