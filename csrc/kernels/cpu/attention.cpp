// CPU kernel of scaled dot-product attention: per (batch, block of query rows) one GEMM for the scores, a
// row-wise masked softmax in place, one GEMM with the values; causal blocks skip the columns they never see.
#include "ops/attention.h"

#include <cblas.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>
#include <vector>

#include "core/Exception.h"
#include "kernels/cpu/Parallel.h"
#include "kernels/cpu/VecExp.h"

namespace mt {
namespace {

constexpr int64_t kRowBlock = 64;

void gemm(bool tb, int m, int n, int k, float alpha, const float* a, int lda, const float* b, int ldb,
          float* c, int ldc) {
  scipy_cblas_sgemm(CblasRowMajor, CblasNoTrans, tb ? CblasTrans : CblasNoTrans, m, n, k, alpha, a, lda, b,
                    ldb, 0.0f, c, ldc);
}
void gemm(bool tb, int m, int n, int k, double alpha, const double* a, int lda, const double* b, int ldb,
          double* c, int ldc) {
  scipy_cblas_dgemm(CblasRowMajor, CblasNoTrans, tb ? CblasTrans : CblasNoTrans, m, n, k, alpha, a, lda, b,
                    ldb, 0.0, c, ldc);
}

// As conv's: tasks run on the pool with OpenBLAS single-threaded (one fork/join per call, not per GEMM).
struct SingleThreadedBlas {
  int prev = scipy_openblas_get_num_threads();
  SingleThreadedBlas() {
    if (prev != 1) scipy_openblas_set_num_threads(1);
  }
  ~SingleThreadedBlas() {
    if (prev != 1) scipy_openblas_set_num_threads(prev);
  }
};

template <typename T>
void run(const Tensor& out, const Tensor& lse, const Tensor& q, const Tensor& k, const Tensor& v,
         const Tensor& mask, const SdpaArgs& a) {
  const T* Q = q.data<T>();
  const T* K = k.data<T>();
  const T* V = v.data<T>();
  const T* M = mask.defined() ? mask.data<T>() : nullptr;
  T* O = out.data<T>();
  T* LSE = lse.data<T>();
  const int64_t L = a.L, S = a.S, E = a.E, Ev = a.Ev;
  const int64_t nblk = (L + kRowBlock - 1) / kRowBlock;
  const T ninf = -std::numeric_limits<T>::infinity();
  auto task = [&](int64_t t0, int64_t t1) {
    std::vector<T> sc(static_cast<size_t>(std::min(L, kRowBlock) * std::max<int64_t>(S, 1)));
    for (int64_t t = t0; t < t1; ++t) {
      const int64_t b = t / nblk, i0 = (t % nblk) * kRowBlock, rows = std::min(kRowBlock, L - i0);
      // causal: rows i0.. i0+rows-1 see columns up to i0+rows-1 at most
      const int64_t cols = a.causal ? std::min(S, i0 + rows) : S;
      const T* qb = Q + (b * L + i0) * E;
      const T* kb = K + b * S * E;
      const T* vb = V + b * S * Ev;
      T* ob = O + (b * L + i0) * Ev;
      if (cols > 0) {
        if (E > 0)
          gemm(true, int(rows), int(cols), int(E), T(a.scale), qb, int(E), kb, int(E), sc.data(), int(cols));
        else
          std::fill(sc.begin(), sc.begin() + rows * cols, T(0));
      }
      const T* mb = M ? M + (b / a.m_inner) * a.m_so + (b % a.m_inner) * a.m_si : nullptr;
      for (int64_t r = 0; r < rows; ++r) {
        const int64_t i = i0 + r;
        T* s = sc.data() + r * cols;
        const int64_t n = a.causal ? std::min(cols, i + 1) : cols;  // columns this row may see
        if (mb) {
          const T* mr = mb + i * a.m_sl;
          for (int64_t j = 0; j < n; ++j) s[j] += mr[j * a.m_ss];
        }
        T mx = ninf;
        for (int64_t j = 0; j < n; ++j)
          if (!(s[j] <= mx)) mx = s[j];  // a NaN score wins, so its row comes out NaN as in softmax
        if (mx == ninf || std::isnan(mx)) {
          // every score masked: zeros (PyTorch's _safe_softmax); a NaN score propagates as in softmax
          T fill = std::isnan(mx) ? mx : T(0);
          std::fill(s, s + cols, fill);
          LSE[b * L + i] = std::isnan(mx) ? mx : ninf;
          continue;
        }
        T sum = 0;
        if constexpr (std::is_same_v<T, float>) {
          sum = exp_shift_sum(s, s, n, mx);  // vectorized exp: std::exp per score cost as much as the GEMMs
        } else {
          for (int64_t j = 0; j < n; ++j) sum += (s[j] = std::exp(s[j] - mx));
        }
        const T inv = T(1) / sum;
        for (int64_t j = 0; j < n; ++j) s[j] *= inv;
        std::fill(s + n, s + cols, T(0));
        LSE[b * L + i] = mx + std::log(sum);
      }
      if (cols > 0 && Ev > 0)
        gemm(false, int(rows), int(Ev), int(cols), T(1), sc.data(), int(cols), vb, int(Ev), ob, int(Ev));
      else
        std::fill(ob, ob + rows * Ev, T(0));
    }
  };
  const int64_t tasks = a.B * nblk;
  if (tasks > 1 && !in_parallel_region() && tasks * kRowBlock * (S + 1) * (E + Ev + 1) >= kGrainSize) {
    SingleThreadedBlas one;
    parallel_for(0, tasks, 1, task);
  } else {
    task(0, tasks);
  }
}

void sdpa_forward_cpu(const Tensor& out, const Tensor& lse, const Tensor& q, const Tensor& k, const Tensor& v,
                      const Tensor& mask, const SdpaArgs& a) {
  switch (q.dtype()) {
    case ScalarType::Float:
      return run<float>(out, lse, q, k, v, mask, a);
    case ScalarType::Double:
      return run<double>(out, lse, q, k, v, mask, a);
    default:
      MT_CHECK(false, "\"scaled_dot_product_attention_cpu\" not implemented for '",
               dtype_short_name(q.dtype()), "'");
  }
}

}  // namespace

MT_REGISTER_KERNEL(sdpa_forward_stub, CPU, &sdpa_forward_cpu);

}  // namespace mt
