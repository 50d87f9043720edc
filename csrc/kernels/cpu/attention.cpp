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
#include "core/Parallel.h"
#include "kernels/cpu/BlasGemm.h"
#include "kernels/cpu/VecExp.h"

namespace mt {
namespace {

constexpr int64_t kRowBlock = 64;

// c = alpha * op(a) op(b) + beta * c, row-major. OpenBLAS only, not kernels/cpu/BlasGemm.h's oneDNN sgemm:
// the fused kernel's float results stay those its tests and the PyTorch comparison were checked with.
void gemm(bool ta, bool tb, int m, int n, int k, float alpha, const float* a, int lda, const float* b,
          int ldb, float beta, float* c, int ldc) {
  scipy_cblas_sgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans, m, n, k,
                    alpha, a, lda, b, ldb, beta, c, ldc);
}
void gemm(bool ta, bool tb, int m, int n, int k, double alpha, const double* a, int lda, const double* b,
          int ldb, double beta, double* c, int ldc) {
  scipy_cblas_dgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans, m, n, k,
                    alpha, a, lda, b, ldb, beta, c, ldc);
}

using cpu_blas::SingleThreadedBlas;

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
          gemm(false, true, int(rows), int(cols), int(E), T(a.scale), qb, int(E), kb, int(E), T(0), sc.data(),
               int(cols));
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
        for (int64_t j = 0; j < n; ++j) {
          if (std::isnan(s[j])) {  // a NaN score wins, so its row comes out NaN as in softmax
            mx = s[j];
            break;
          }
          if (s[j] > mx) mx = s[j];
        }
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
        gemm(false, false, int(rows), int(Ev), int(cols), T(1), sc.data(), int(cols), vb, int(Ev), T(0), ob,
             int(Ev));
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

// Backward per batch (dk, dv sum over its query blocks, so a batch is one task): for each block of query rows
// recompute P = exp(scale * Q K^T + mask - lse), then dV += P^T G, dP = G V^T, dS = P (dP - rowsum(G * O)),
// dQ = scale dS K, dK += scale dS^T Q. Causal blocks stop at their last visible column.
template <typename T>
void run_backward(const Tensor& dq, const Tensor& dk, const Tensor& dv, const Tensor& g, const Tensor& q,
                  const Tensor& k, const Tensor& v, const Tensor& out, const Tensor& lse, const Tensor& mask,
                  const SdpaArgs& a) {
  const int64_t L = a.L, S = a.S, E = a.E, Ev = a.Ev;
  const T* M = mask.defined() ? mask.data<T>() : nullptr;
  const T ninf = -std::numeric_limits<T>::infinity();
  auto task = [&](int64_t b0, int64_t b1) {
    const int64_t R = std::min(L, kRowBlock);
    std::vector<T> p(static_cast<size_t>(R * S)), dp(static_cast<size_t>(R * S));
    for (int64_t b = b0; b < b1; ++b) {
      const T* Q = q.data<T>() + b * L * E;
      const T* K = k.data<T>() + b * S * E;
      const T* V = v.data<T>() + b * S * Ev;
      const T* G = g.data<T>() + b * L * Ev;
      const T* O = out.data<T>() + b * L * Ev;
      const T* LS = lse.data<T>() + b * L;
      T* DQ = dq.data<T>() + b * L * E;
      T* DK = dk.data<T>() + b * S * E;
      T* DV = dv.data<T>() + b * S * Ev;
      const T* mb = M ? M + (b / a.m_inner) * a.m_so + (b % a.m_inner) * a.m_si : nullptr;
      for (int64_t i0 = 0; i0 < L; i0 += kRowBlock) {
        const int64_t rows = std::min(kRowBlock, L - i0);
        const int64_t cols = a.causal ? std::min(S, i0 + rows) : S;
        if (cols == 0) continue;
        if (E > 0)
          gemm(false, true, int(rows), int(cols), int(E), T(a.scale), Q + i0 * E, int(E), K, int(E), T(0),
               p.data(), int(cols));
        else
          std::fill(p.begin(), p.begin() + rows * cols, T(0));
        for (int64_t r = 0; r < rows; ++r) {
          const int64_t i = i0 + r;
          T* pr = p.data() + r * cols;
          const int64_t n = a.causal ? std::min(cols, i + 1) : cols;
          const T l = LS[i];
          if (l == ninf) {
            std::fill(pr, pr + cols, T(0));
            continue;
          }
          if (mb) {
            const T* mr = mb + i * a.m_sl;
            for (int64_t j = 0; j < n; ++j) pr[j] = std::exp(pr[j] + mr[j * a.m_ss] - l);
          } else {
            for (int64_t j = 0; j < n; ++j) pr[j] = std::exp(pr[j] - l);
          }
          std::fill(pr + n, pr + cols, T(0));
        }
        if (Ev > 0) {
          gemm(true, false, int(cols), int(Ev), int(rows), T(1), p.data(), int(cols), G + i0 * Ev, int(Ev),
               T(1), DV, int(Ev));
          gemm(false, true, int(rows), int(cols), int(Ev), T(1), G + i0 * Ev, int(Ev), V, int(Ev), T(0),
               dp.data(), int(cols));
        } else {
          std::fill(dp.begin(), dp.begin() + rows * cols, T(0));
        }
        for (int64_t r = 0; r < rows; ++r) {
          const T* gr = G + (i0 + r) * Ev;
          const T* orow = O + (i0 + r) * Ev;
          T delta = 0;
          for (int64_t d = 0; d < Ev; ++d) delta += gr[d] * orow[d];
          T* pr = p.data() + r * cols;
          const T* dpr = dp.data() + r * cols;
          for (int64_t j = 0; j < cols; ++j) pr[j] = pr[j] * (dpr[j] - delta);  // dS, in place of P
        }
        if (E > 0) {
          gemm(false, false, int(rows), int(E), int(cols), T(a.scale), p.data(), int(cols), K, int(E), T(0),
               DQ + i0 * E, int(E));
          gemm(true, false, int(cols), int(E), int(rows), T(a.scale), p.data(), int(cols), Q + i0 * E, int(E),
               T(1), DK, int(E));
        }
      }
    }
  };
  if (a.B > 1 && a.B >= get_num_threads() && !in_parallel_region() &&
      a.B * L * (S + 1) * (E + Ev + 1) >= kGrainSize) {
    SingleThreadedBlas one;
    parallel_for(0, a.B, 1, task);
  } else {
    task(0, a.B);  // few batches: OpenBLAS's own threads work inside each GEMM
  }
}

void sdpa_backward_cpu(const Tensor& dq, const Tensor& dk, const Tensor& dv, const Tensor& g, const Tensor& q,
                       const Tensor& k, const Tensor& v, const Tensor& out, const Tensor& lse,
                       const Tensor& mask, const SdpaArgs& a) {
  switch (q.dtype()) {
    case ScalarType::Float:
      return run_backward<float>(dq, dk, dv, g, q, k, v, out, lse, mask, a);
    case ScalarType::Double:
      return run_backward<double>(dq, dk, dv, g, q, k, v, out, lse, mask, a);
    default:
      MT_CHECK(false, "\"scaled_dot_product_attention_backward_cpu\" not implemented for '",
               dtype_short_name(q.dtype()), "'");
  }
}

}  // namespace

MT_REGISTER_KERNEL(sdpa_forward_stub, CPU, &sdpa_forward_cpu);
MT_REGISTER_KERNEL(sdpa_backward_stub, CPU, &sdpa_backward_cpu);

}  // namespace mt
