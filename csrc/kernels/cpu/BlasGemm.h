// One row-major GEMM call for the CPU kernels (matmul, conv's im2col GEMMs): oneDNN's sgemm for float when
// built with it (once a process has done enough float GEMM work: sgemm_onednn_ready), else OpenBLAS (also
// cgemm/zgemm for complex, and ?gemv for a single row or column); and the guard that keeps OpenBLAS on one
// thread while our pool runs tasks.
#pragma once
#include <cblas.h>

#include <atomic>
#include <complex>
#include <cstdint>
#include <cstdlib>
#include <type_traits>

#ifdef MINITORCH_WITH_ONEDNN
#include <oneapi/dnnl/dnnl.h>

#include "kernels/cpu/onednn_threads.h"
#endif

namespace mt {
namespace cpu_blas {

// Whether a float GEMM op of `work` multiply-adds (all its batches) runs on oneDNN's sgemm rather than
// OpenBLAS. oneDNN's sgemm is JIT code generated on first use: the first GEMM with both sides under ~1000
// (its "nocopy" class) builds a table of 16 kernels, 28-34 ms of CPU time once per process (the copy-based
// kernels of larger shapes ~2.7 ms), where PyTorch's MKL compiles nothing, so a short program with a few
// small matmuls paid 30 ms more than PyTorch. OpenBLAS needs no warm-up; at one thread it runs small shapes
// faster than oneDNN (64x10x128: 7.0 us against 9.2) and mid and large ones 5-35% slower (64x128x128 28.5
// against 25.3, 64x3136x576 2.85 ms against 2.07). So a process rents before it buys: OpenBLAS until its
// float GEMMs add up to MINITORCH_SGEMM_ONEDNN_AFTER multiply-adds (4e9 unless set: ~100 ms of OpenBLAS work,
// whose loss against oneDNN is then about the JIT's cost), oneDNN from there on for good; 0 is oneDNN from
// the first GEMM. Decided once per op, before its batches spread over threads, so a program's sequence of
// calls gives the same bits every run; a product repeated across the switch can differ in its last bits.
inline bool sgemm_onednn_ready(int64_t work) {
  static std::atomic<int64_t> left{[] {
    const char* v = std::getenv("MINITORCH_SGEMM_ONEDNN_AFTER");
    return v && *v ? std::strtoll(v, nullptr, 10) : int64_t(4000000000);
  }()};
  static std::atomic<bool> ready{false};
  if (ready.load(std::memory_order_relaxed)) return true;
  if (left.fetch_sub(work, std::memory_order_relaxed) > work) return false;
  ready.store(true, std::memory_order_relaxed);
  return true;
}

// y = alpha op(A) x + beta y through OpenBLAS's ?gemv where C is a single row or column (m or n 1, k > 0):
// its ?gemm packs the other operand whole even then (1x1024 @ 1024x1024: float 0.45-0.74 ms against
// sgemv's 0.065, double 0.33-0.75 ms against PyTorch's 0.16). False where C is neither.
template <typename T>
inline bool gemv(bool ta, bool tb, int64_t m, int64_t n, int64_t k, T alpha, const T* a, int64_t lda,
                 const T* b, int64_t ldb, T beta, T* c, int64_t ldc) {
  if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
    auto mv = [](CBLAS_TRANSPOSE t, int64_t rows, int64_t cols, T al, const T* mat, int64_t ld, const T* x,
                 int64_t incx, T be, T* y, int64_t incy) {
      if constexpr (std::is_same_v<T, float>)
        scipy_cblas_sgemv(CblasRowMajor, t, int(rows), int(cols), al, mat, int(ld), x, int(incx), be, y,
                          int(incy));
      else
        scipy_cblas_dgemv(CblasRowMajor, t, int(rows), int(cols), al, mat, int(ld), x, int(incx), be, y,
                          int(incy));
    };
    if (k <= 0) return false;  // BLAS's gemv returns at once there, leaving y unscaled
    if (n == 1) {  // c's column = op(A) times op(B)'s column (stored with stride ldb, or contiguous)
      mv(ta ? CblasTrans : CblasNoTrans, ta ? k : m, ta ? m : k, alpha, a, lda, b, tb ? 1 : ldb, beta, c,
         ldc);
      return true;
    }
    if (m == 1) {  // c's row = op(B)^T times op(A)'s row
      mv(tb ? CblasNoTrans : CblasTrans, tb ? n : k, tb ? k : n, alpha, b, ldb, a, ta ? lda : 1, beta, c, 1);
      return true;
    }
  }
  return false;
}

// C = alpha * op(A) @ op(B) + beta * C. oneDNN's JIT sgemm where `onednn` (sgemm_onednn_ready's answer for
// the op): at one thread (CPU time, Xeon with AVX-512) 14.2 ms against OpenBLAS's 15.2 at 1024^3 (PyTorch's
// MKL: 14.3), and 1.6 ms against 2.7 on a conv-shaped 64x3136x576. Sizes must fit BLAS's 32-bit integers
// (callers check).
template <typename T>
inline void gemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, T alpha, const T* a, int64_t lda,
                 const T* b, int64_t ldb, T beta, T* c, int64_t ldc, bool onednn = true) {
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, double> ||
                    std::is_same_v<T, std::complex<float>> || std::is_same_v<T, std::complex<double>>,
                "BLAS GEMM is float, double or their complex types");
#ifdef MINITORCH_WITH_ONEDNN
  if constexpr (std::is_same_v<T, float>) {
    if (onednn) {
      onednn_sync_threads();
      if (k > 0 && dnnl_sgemm(ta ? 'T' : 'N', tb ? 'T' : 'N', m, n, k, alpha, a, lda, b, ldb, beta, c, ldc) ==
                       dnnl_success)
        return;
    }
  }
#else
  (void)onednn;
#endif
  if (gemv<T>(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)) return;
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
