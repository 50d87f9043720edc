// CPU normalization kernels: row and channel statistics and the fused normalize+affine pass (layouts: see
// ops/nn.h). Dropout and embedding have their own files.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "core/Exception.h"
#include "core/Generator.h"
#include "core/Parallel.h"
#include "core/ScalarType.h"
#include "kernels/cpu/ParallelRows.h"
#include "kernels/cpu/VecExp.h"
#include "ops/nn.h"

namespace mt {
namespace {

// Statistics accumulate in double whatever the input (two passes: mean, then squared deviations, which
// keeps the variance exact for data with a large mean); 8 independent lanes let the loop vectorize
// without reassociating.
template <typename T>
double row_sum(const T* p, int64_t n) {
  double acc[8] = {};
  int64_t i = 0;
  for (; i + 8 <= n; i += 8)
    for (int j = 0; j < 8; ++j) acc[j] += static_cast<double>(static_cast<opmath_t<T>>(p[i + j]));
  double s = 0;
  for (; i < n; ++i) s += static_cast<double>(static_cast<opmath_t<T>>(p[i]));
  for (int j = 0; j < 8; ++j) s += acc[j];
  return s;
}

template <typename T>
double row_sq_dev(const T* p, int64_t n, double mean) {
  double acc[8] = {};
  int64_t i = 0;
  for (; i + 8 <= n; i += 8)
    for (int j = 0; j < 8; ++j) {
      double d = static_cast<double>(static_cast<opmath_t<T>>(p[i + j])) - mean;
      acc[j] += d * d;
    }
  double s = 0;
  for (; i < n; ++i) {
    double d = static_cast<double>(static_cast<opmath_t<T>>(p[i])) - mean;
    s += d * d;
  }
  for (int j = 0; j < 8; ++j) s += acc[j];
  return s;
}

// float32 layer_norm rows, written once and compiled twice: for the baseline and, where the CPU has it, for
// AVX2+FMA (the package targets baseline x86-64, whose 4-lane SSE loops ran 2-3x behind PyTorch's AVX ones).
// Sums run in 32 float lanes that flush into double every kFlush steps (blocked_sum's scheme: a lane adds at
// most 64 values, which keeps the error at pairwise-summation level while the loops stay 8 floats wide
// instead of 4 doubles). One pass sums the deviations d = x - c from a pivot c and their squares: mean
// c + sum(d) / N, variance (sum(d^2) - sum(d)^2 / N) / N. Its rounding grows with (mean - c)^2 / variance
// (the cancellation), so c is the mean of eight values spread over the row (a large mean cancels in x - c),
// and a row whose pivot still fell more than sqrt(kPivotRatio) deviations from the mean (a ramp, an outlier
// among the samples, a constant row whose pivot rounded) sums again around its float mean: the variance then
// stays within a few float roundings of the two-pass value, and most rows read x twice (statistics,
// normalize) as PyTorch's one-pass moments do, not three times. The lanes are written out, so both builds
// associate the sums alike and differ only where FMA contracts a multiply-add.
constexpr double kPivotRatio = 3.0;
typedef float LnV8f __attribute__((vector_size(32)));
typedef float LnV4f __attribute__((vector_size(16)));
typedef double LnV4d __attribute__((vector_size(32)));
typedef int32_t LnV8i __attribute__((vector_size(32)));
#define MT_LN_ROWS_F32(ATTR, SUFFIX)                                                                       \
  /* the 32 lanes (lane j in v[j / 8][j % 8]) in double, pairwise: eight 4-deep columns */                 \
  /* (a[j] + a[j + 8]) + (a[j + 16] + a[j + 24]), then a tree of the eight */                              \
  /* nv: how many of the four vectors were added to (the others are zeros, whose adds change no sum: a */  \
  /* 16-value row skips half of the join's conversions) */                                                 \
  ATTR inline double ln_join_##SUFFIX(const LnV8f* v, int nv) {                                            \
    LnV4d t[2];                                                                                            \
    for (int h = 0; h < 2; ++h) {                                                                          \
      LnV4d x[4];                                                                                          \
      for (int k = 0; k < nv; ++k) {                                                                       \
        const int o = 4 * h; /* GCC 11 has no __builtin_shufflevector */                                   \
        const LnV4f f = {v[k][o], v[k][o + 1], v[k][o + 2], v[k][o + 3]};                                  \
        x[k] = __builtin_convertvector(f, LnV4d);                                                          \
      }                                                                                                    \
      t[h] = nv == 1   ? x[0]                                                                              \
             : nv == 2 ? x[0] + x[1]                                                                       \
             : nv == 3 ? (x[0] + x[1]) + x[2]                                                              \
                       : (x[0] + x[1]) + (x[2] + x[3]);                                                    \
    }                                                                                                      \
    const LnV4d u = t[0] + t[1];                                                                           \
    return (u[0] + u[2]) + (u[1] + u[3]);                                                                  \
  }                                                                                                        \
  /* s1 += sum(p[i] - c), and s2 += sum((p[i] - c)^2).         A row's last L - 1 values (or fewer) go */  \
  /* into the float lanes as one more step (the last rem < 8 of them in lanes 8 - rem ..), and the lanes   \
   * join in double pairwise: a short row (group */                                                        \
  /* norm's 121 values) is not a chain of dependent double adds. Vector types keep GCC from zeroing and */ \
  /* joining the lanes through memory. */                                                                  \
  ATTR inline void ln_sums_##SUFFIX(const float* p, int64_t n, float c, double* s1, double* s2) {          \
    constexpr int L = 32, kFlush = 64;                                                                     \
    int64_t i = 0;                                                                                         \
    double t1 = 0, t2 = 0;                                                                                 \
    const LnV8f cv = {c, c, c, c, c, c, c, c};                                                             \
    while (i < n) {                                                                                        \
      LnV8f a[4] = {}, q[4] = {};                                                                          \
      const int64_t e = i + std::min<int64_t>(kFlush, (n - i) / L) * L;                                    \
      int nv = e > i ? 4 : 0;                                                                              \
      for (; i < e; i += L)                                                                                \
        for (int k = 0; k < 4; ++k) {                                                                      \
          LnV8f d;                                                                                         \
          std::memcpy(&d, p + i + 8 * k, sizeof d);                                                        \
          d -= cv;                                                                                         \
          a[k] += d;                                                                                       \
          q[k] += d * d;                                                                                   \
        }                                                                                                  \
      if (n - i < L) {                                                                                     \
        const int r = static_cast<int>(n - i);                                                             \
        int k = 0;                                                                                         \
        for (; 8 * (k + 1) <= r; ++k) {                                                                    \
          LnV8f d;                                                                                         \
          std::memcpy(&d, p + i + 8 * k, sizeof d);                                                        \
          d -= cv;                                                                                         \
          a[k] += d;                                                                                       \
          q[k] += d * d;                                                                                   \
        }                                                                                                  \
        const int rem = r - 8 * k;                                                                         \
        if (rem) { /* the row's last 8 values, those not yet added kept: lanes 8 - rem .. 7 */             \
          LnV8f d = {};                                                                                    \
          if (n >= 8) {                                                                                    \
            std::memcpy(&d, p + n - 8, sizeof d);                                                          \
            d -= cv;                                                                                       \
            const LnV8i lane = {0, 1, 2, 3, 4, 5, 6, 7};                                                   \
            d = reinterpret_cast<LnV8f>(reinterpret_cast<LnV8i>(d) & (lane >= 8 - rem));                   \
          } else {                                                                                         \
            for (int j = 0; j < rem; ++j) d[8 - rem + j] = p[i + j] - c;                                   \
          }                                                                                                \
          a[k] += d;                                                                                       \
          q[k] += d * d;                                                                                   \
          ++k;                                                                                             \
        }                                                                                                  \
        nv = std::max(nv, std::max(k, 1));                                                                 \
        i = n;                                                                                             \
      }                                                                                                    \
      t1 += ln_join_##SUFFIX(a, nv);                                                                       \
      t2 += ln_join_##SUFFIX(q, nv);                                                                       \
    }                                                                                                      \
    *s1 += t1;                                                                                             \
    *s2 += t2;                                                                                             \
  }                                                                                                        \
  /* the pivot: the mean of eight values spread over the row (its first value below 8 values) */           \
  ATTR inline float ln_pivot_##SUFFIX(const float* p, int64_t n) {                                         \
    if (n < 8) return p[0];                                                                                \
    const int64_t q = n / 8;                                                                               \
    const float a = (p[0] + p[q]) + (p[2 * q] + p[3 * q]),                                                 \
                b = (p[4 * q] + p[5 * q]) + (p[6 * q] + p[7 * q]);                                         \
    return (a + b) * 0.125f;                                                                               \
  }                                                                                                        \
  /* rows [0, rows) of N values: each pass runs over two rows before the next pass, so one row's */        \
  /* dependent chain (sums, mean, deviations, rstd) overlaps the other's (short rows are latency bound) */ \
  ATTR void ln_fwd_rows_##SUFFIX(const float* x, float* y, int64_t rows, int64_t N, const float* w,        \
                                 const float* b, double eps, float* mean_out, float* rstd_out) {           \
    const double dn = static_cast<double>(N);                                                              \
    for (int64_t r0 = 0; r0 < rows; r0 += 2) {                                                             \
      const int nr = rows - r0 >= 2 ? 2 : 1;                                                               \
      double sd[2] = {0, 0}, sq[2] = {0, 0};                                                               \
      float c[2];                                                                                          \
      for (int k = 0; k < nr; ++k) c[k] = ln_pivot_##SUFFIX(x + (r0 + k) * N, N);                          \
      for (int k = 0; k < nr; ++k) ln_sums_##SUFFIX(x + (r0 + k) * N, N, c[k], &sd[k], &sq[k]);            \
      for (int k = 0; k < nr; ++k) {                                                                       \
        const double dm = sd[k] / dn;                                                                      \
        /* (also a NaN or an infinity: the sums around the float mean give the old answer) */              \
        if (!(dm * dm <= kPivotRatio * ((sq[k] - sd[k] * dm) / dn))) {                                     \
          c[k] = static_cast<float>(static_cast<double>(c[k]) + dm);                                       \
          sd[k] = sq[k] = 0;                                                                               \
          ln_sums_##SUFFIX(x + (r0 + k) * N, N, c[k], &sd[k], &sq[k]);                                     \
        }                                                                                                  \
      }                                                                                                    \
      for (int k = 0; k < nr; ++k) {                                                                       \
        const int64_t r = r0 + k;                                                                          \
        const double m = static_cast<double>(c[k]) + sd[k] / dn;                                           \
        const double rs = 1.0 / std::sqrt(std::max(0.0, sq[k] - sd[k] * sd[k] / dn) / dn + eps);           \
        mean_out[r] = static_cast<float>(m);                                                               \
        rstd_out[r] = static_cast<float>(rs);                                                              \
        if (!y) continue;                                                                                  \
        const float fa = static_cast<float>(rs), fm = static_cast<float>(m);                               \
        const float* row = x + r * N;                                                                      \
        float* out = y + r * N;                                                                            \
        if (w && b)                                                                                        \
          for (int64_t j = 0; j < N; ++j) out[j] = (row[j] - fm) * fa * w[j] + b[j];                       \
        else if (w)                                                                                        \
          for (int64_t j = 0; j < N; ++j) out[j] = (row[j] - fm) * fa * w[j];                              \
        else if (b)                                                                                        \
          for (int64_t j = 0; j < N; ++j) out[j] = (row[j] - fm) * fa + b[j];                              \
        else                                                                                               \
          for (int64_t j = 0; j < N; ++j) out[j] = (row[j] - fm) * fa;                                     \
      }                                                                                                    \
    }                                                                                                      \
  }                                                                                                        \
  ATTR void ln_bwd_row_##SUFFIX(const float* xr, const float* gr, const float* w, float m, float rs,       \
                                float* gw, float* xh, float* dr, int64_t N) {                              \
    constexpr int L = 32, kFlush = 64;                                                                     \
    if (w)                                                                                                 \
      for (int64_t j = 0; j < N; ++j) gw[j] = gr[j] * w[j];                                                \
    else                                                                                                   \
      for (int64_t j = 0; j < N; ++j) gw[j] = gr[j];                                                       \
    for (int64_t j = 0; j < N; ++j) xh[j] = (xr[j] - m) * rs;                                              \
    double s1 = 0, s2 = 0;                                                                                 \
    int64_t j = 0;                                                                                         \
    while (N - j >= L) {                                                                                   \
      float a1[L] = {}, a2[L] = {};                                                                        \
      const int64_t e = j + std::min<int64_t>(kFlush, (N - j) / L) * L;                                    \
      for (; j < e; j += L)                                                                                \
        for (int l = 0; l < L; ++l) {                                                                      \
          a1[l] += gw[j + l];                                                                              \
          a2[l] += gw[j + l] * xh[j + l];                                                                  \
        }                                                                                                  \
      for (int l = 0; l < L; ++l) {                                                                        \
        s1 += static_cast<double>(a1[l]);                                                                  \
        s2 += static_cast<double>(a2[l]);                                                                  \
      }                                                                                                    \
    }                                                                                                      \
    for (; j < N; ++j) {                                                                                   \
      s1 += static_cast<double>(gw[j]);                                                                    \
      s2 += static_cast<double>(gw[j] * xh[j]);                                                            \
    }                                                                                                      \
    const float a = static_cast<float>(s1 / static_cast<double>(N)),                                       \
                b = static_cast<float>(s2 / static_cast<double>(N));                                       \
    for (int64_t k = 0; k < N; ++k) dr[k] = rs * (gw[k] - a - xh[k] * b);                                  \
  }                                                                                                        \
  /* rows [r0, r1) into the double column sums: float partials over kRows rows at a time */                \
  ATTR void ln_colsum_rows_##SUFFIX(const float* px, const float* pg, const float* pm, const float* pr,    \
                                    int64_t r0, int64_t r1, int64_t N, int64_t j0, int64_t n, double* sw,  \
                                    double* sb, float* fw, float* fb) {                                    \
    constexpr int64_t kRows = 16;                                                                          \
    for (int64_t rb = r0; rb < r1; rb += kRows) {                                                          \
      for (int64_t j = 0; j < n; ++j) fw[j] = fb[j] = 0.0f;                                                \
      for (int64_t r = rb; r < std::min(r1, rb + kRows); ++r) {                                            \
        const float* xr = px + r * N + j0;                                                                 \
        const float* gr = pg + r * N + j0;                                                                 \
        const float m = pm[r], rs = pr[r];                                                                 \
        for (int64_t j = 0; j < n; ++j) {                                                                  \
          fw[j] += gr[j] * ((xr[j] - m) * rs);                                                             \
          fb[j] += gr[j];                                                                                  \
        }                                                                                                  \
      }                                                                                                    \
      for (int64_t j = 0; j < n; ++j) {                                                                    \
        sw[j] += static_cast<double>(fw[j]);                                                               \
        sb[j] += static_cast<double>(fb[j]);                                                               \
      }                                                                                                    \
    }                                                                                                      \
  }

MT_LN_ROWS_F32(, base)
#ifdef MT_HAVE_AVX2_EXP
MT_LN_ROWS_F32(MT_AVX2, avx2)
// MINITORCH_CPU_CAPABILITY=default forces the baseline rows (the tests compare both builds; cpu_has_avx2_fma
// reads it)
const bool kNormAvx2 = cpu_has_avx2_fma();
#endif
#undef MT_LN_ROWS_F32

using LnFwdRows = void (*)(const float*, float*, int64_t, int64_t, const float*, const float*, double, float*,
                           float*);
using LnBwdRow = void (*)(const float*, const float*, const float*, float, float, float*, float*, float*,
                          int64_t);
LnFwdRows ln_fwd_rows() {
#ifdef MT_HAVE_AVX2_EXP
  if (kNormAvx2) return &ln_fwd_rows_avx2;
#endif
  return &ln_fwd_rows_base;
}
using LnColsumRows = void (*)(const float*, const float*, const float*, const float*, int64_t, int64_t,
                              int64_t, int64_t, int64_t, double*, double*, float*, float*);
LnColsumRows ln_colsum_rows() {
#ifdef MT_HAVE_AVX2_EXP
  if (kNormAvx2) return &ln_colsum_rows_avx2;
#endif
  return &ln_colsum_rows_base;
}
LnBwdRow ln_bwd_row() {
#ifdef MT_HAVE_AVX2_EXP
  if (kNormAvx2) return &ln_bwd_row_avx2;
#endif
  return &ln_bwd_row_base;
}

void row_norm_cpu(const Tensor& y, const Tensor& mean, const Tensor& rstd, const Tensor& x, const Tensor& w,
                  const Tensor& b, int64_t M, int64_t N, double eps) {
  if (x.dtype() == ScalarType::Float) {
    const float* px = x.data<float>();
    float* py = y.defined() ? y.data<float>() : nullptr;
    float* pm = mean.data<float>();
    float* pr = rstd.data<float>();
    const float* pw = w.defined() ? w.data<float>() : nullptr;
    const float* pb = b.defined() ? b.data<float>() : nullptr;
    LnFwdRows f = ln_fwd_rows();
    parallel_for(0, M, grain_for(N), [&](int64_t r0, int64_t r1) {
      f(px + r0 * N, py ? py + r0 * N : nullptr, r1 - r0, N, pw, pb, eps, pm + r0, pr + r0);
    });
    return;
  }
  MT_DISPATCH_FLOATING_TYPES(x.dtype(), "layer_norm", [&] {
    using st_t = std::conditional_t<std::is_same_v<scalar_t, double>, double, float>;
    using op_t = opmath_t<scalar_t>;
    const scalar_t* px = x.data<scalar_t>();
    scalar_t* py = y.defined() ? y.data<scalar_t>() : nullptr;
    st_t* pm = mean.data<st_t>();
    st_t* pr = rstd.data<st_t>();
    const st_t* pw = w.defined() ? w.data<st_t>() : nullptr;
    const st_t* pb = b.defined() ? b.data<st_t>() : nullptr;
    parallel_for(0, M, grain_for(N), [&](int64_t r0, int64_t r1) {
      for (int64_t r = r0; r < r1; ++r) {
        const scalar_t* row = px + r * N;
        double m = row_sum(row, N) / static_cast<double>(N);
        double var = row_sq_dev(row, N, m) / static_cast<double>(N);
        double rs = 1.0 / std::sqrt(var + eps);
        pm[r] = static_cast<st_t>(m);
        pr[r] = static_cast<st_t>(rs);
        if (!py) continue;
        scalar_t* out = py + r * N;
        op_t a = static_cast<op_t>(rs), mm = static_cast<op_t>(m);
        if (pw && pb) {
          for (int64_t j = 0; j < N; ++j)
            out[j] = static_cast<scalar_t>((static_cast<op_t>(row[j]) - mm) * a * static_cast<op_t>(pw[j]) +
                                           static_cast<op_t>(pb[j]));
        } else if (pw) {
          for (int64_t j = 0; j < N; ++j)
            out[j] = static_cast<scalar_t>((static_cast<op_t>(row[j]) - mm) * a * static_cast<op_t>(pw[j]));
        } else if (pb) {
          for (int64_t j = 0; j < N; ++j)
            out[j] = static_cast<scalar_t>((static_cast<op_t>(row[j]) - mm) * a + static_cast<op_t>(pb[j]));
        } else {
          for (int64_t j = 0; j < N; ++j)
            out[j] = static_cast<scalar_t>((static_cast<op_t>(row[j]) - mm) * a);
        }
      }
    });
  });
}

void channel_stats_cpu(const Tensor& mean, const Tensor& var, const Tensor& rstd, const Tensor& x, int64_t N,
                       int64_t C, int64_t S, double eps) {
  MT_DISPATCH_FLOATING_TYPES(x.dtype(), "batch_norm", [&] {
    using st_t = std::conditional_t<std::is_same_v<scalar_t, double>, double, float>;
    const scalar_t* px = x.data<scalar_t>();
    st_t* pm = mean.data<st_t>();
    st_t* pv = var.data<st_t>();
    st_t* pr = rstd.data<st_t>();
    double count = static_cast<double>(N * S);
    if (S == 1) {
      // (N, C): walk rows so memory is read in order; each thread owns a block of channels
      parallel_for(0, C, grain_for(N * 64), [&](int64_t c0, int64_t c1) {
        std::vector<double> s(static_cast<size_t>(c1 - c0), 0.0), q(static_cast<size_t>(c1 - c0), 0.0);
        for (int64_t n = 0; n < N; ++n) {
          const scalar_t* row = px + n * C;
          for (int64_t c = c0; c < c1; ++c)
            s[c - c0] += static_cast<double>(static_cast<opmath_t<scalar_t>>(row[c]));
        }
        for (int64_t c = c0; c < c1; ++c) s[c - c0] /= count;
        for (int64_t n = 0; n < N; ++n) {
          const scalar_t* row = px + n * C;
          for (int64_t c = c0; c < c1; ++c) {
            double d = static_cast<double>(static_cast<opmath_t<scalar_t>>(row[c])) - s[c - c0];
            q[c - c0] += d * d;
          }
        }
        for (int64_t c = c0; c < c1; ++c) {
          pm[c] = static_cast<st_t>(s[c - c0]);
          pv[c] = static_cast<st_t>(q[c - c0] / count);
          pr[c] = static_cast<st_t>(1.0 / std::sqrt(q[c - c0] / count + eps));
        }
      });
      return;
    }
    parallel_for(0, C, grain_for(N * S), [&](int64_t c0, int64_t c1) {
      for (int64_t c = c0; c < c1; ++c) {
        double s = 0;
        for (int64_t n = 0; n < N; ++n) s += row_sum(px + (n * C + c) * S, S);
        double m = s / count, q = 0;
        for (int64_t n = 0; n < N; ++n) q += row_sq_dev(px + (n * C + c) * S, S, m);
        pm[c] = static_cast<st_t>(m);
        pv[c] = static_cast<st_t>(q / count);
        pr[c] = static_cast<st_t>(1.0 / std::sqrt(q / count + eps));
      }
    });
  });
}

void channel_affine_cpu(const Tensor& y, const Tensor& x, const Tensor& mean, const Tensor& rstd,
                        const Tensor& w, const Tensor& b, int64_t N, int64_t C, int64_t S, int64_t G) {
  MT_DISPATCH_FLOATING_TYPES(x.dtype(), "batch_norm", [&] {
    using st_t = std::conditional_t<std::is_same_v<scalar_t, double>, double, float>;
    using op_t = opmath_t<scalar_t>;
    const scalar_t* px = x.data<scalar_t>();
    scalar_t* py = y.data<scalar_t>();
    const st_t* pm = mean.data<st_t>();
    const st_t* pr = rstd.data<st_t>();
    const st_t* pw = w.defined() ? w.data<st_t>() : nullptr;
    const st_t* pb = b.defined() ? b.data<st_t>() : nullptr;
    if (G == 0) {
      // per-channel coefficients once, then rows (S == 1, the (N, C) case: a vectorizable loop over C) or
      // strips of S elements
      std::vector<op_t> cm(static_cast<size_t>(C)), ca(static_cast<size_t>(C)), cb(static_cast<size_t>(C));
      for (int64_t c = 0; c < C; ++c) {
        cm[c] = static_cast<op_t>(pm[c]);
        ca[c] = static_cast<op_t>(pr[c]) * (pw ? static_cast<op_t>(pw[c]) : op_t(1));
        cb[c] = pb ? static_cast<op_t>(pb[c]) : op_t(0);
      }
      if (S == 1) {
        parallel_for(0, N, grain_for(C), [&](int64_t n0, int64_t n1) {
          for (int64_t n = n0; n < n1; ++n) {
            const scalar_t* in = px + n * C;
            scalar_t* out = py + n * C;
            for (int64_t c = 0; c < C; ++c)
              out[c] = static_cast<scalar_t>((static_cast<op_t>(in[c]) - cm[c]) * ca[c] + cb[c]);
          }
        });
        return;
      }
      parallel_for(0, N * C, grain_for(S), [&](int64_t i0, int64_t i1) {
        int64_t c = i0 % C;
        for (int64_t i = i0; i < i1; ++i, c = c + 1 == C ? 0 : c + 1) {
          const scalar_t* in = px + i * S;
          scalar_t* out = py + i * S;
          for (int64_t s = 0; s < S; ++s)
            out[s] = static_cast<scalar_t>((static_cast<op_t>(in[s]) - cm[c]) * ca[c] + cb[c]);
        }
      });
      return;
    }
    // group norm: statistics per (n, group); one strip of S elements per (n, c)
    // (n, c) stepped along with i: the strips are short (group norm over 11x11), the divisions were not
    const int64_t cpg = C / G;
    parallel_for(0, N * C, grain_for(S), [&](int64_t i0, int64_t i1) {
      int64_t c = i0 % C, n = i0 / C;
      for (int64_t i = i0; i < i1; ++i, ++c) {
        if (c == C) c = 0, ++n;
        const int64_t k = n * G + c / cpg;
        op_t m = static_cast<op_t>(pm[k]);
        op_t a = static_cast<op_t>(pr[k]) * (pw ? static_cast<op_t>(pw[c]) : op_t(1));
        op_t sh = pb ? static_cast<op_t>(pb[c]) : op_t(0);
        const scalar_t* in = px + i * S;
        scalar_t* out = py + i * S;
        for (int64_t s = 0; s < S; ++s)
          out[s] = static_cast<scalar_t>((static_cast<op_t>(in[s]) - m) * a + sh);
      }
    });
  });
}

void row_norm_backward_cpu(const Tensor& dx, const Tensor& dw, const Tensor& db, const Tensor& g,
                           const Tensor& x, const Tensor& mean, const Tensor& rstd, const Tensor& w,
                           int64_t M, int64_t N) {
  MT_DISPATCH_FLOATING_TYPES(x.dtype(), "layer_norm_backward", [&] {
    using st_t = std::conditional_t<std::is_same_v<scalar_t, double>, double, float>;
    using op_t = opmath_t<scalar_t>;
    const scalar_t* px = x.data<scalar_t>();
    const scalar_t* pg = g.data<scalar_t>();
    const st_t* pm = mean.data<st_t>();
    const st_t* pr = rstd.data<st_t>();
    const st_t* pw = w.defined() ? w.data<st_t>() : nullptr;
    if (dx.defined()) {
      scalar_t* pd = dx.data<scalar_t>();
      parallel_for(0, M, grain_for(2 * N), [&](int64_t r0, int64_t r1) {
        std::vector<op_t> gw(static_cast<size_t>(N)), xh(static_cast<size_t>(N));
        if constexpr (std::is_same_v<scalar_t, float>) {  // (a generic lambda's branch: the casts are no-ops)
          LnBwdRow f = ln_bwd_row();
          for (int64_t r = r0; r < r1; ++r)
            f(reinterpret_cast<const float*>(px + r * N), reinterpret_cast<const float*>(pg + r * N),
              reinterpret_cast<const float*>(pw), static_cast<float>(pm[r]), static_cast<float>(pr[r]),
              reinterpret_cast<float*>(gw.data()), reinterpret_cast<float*>(xh.data()),
              reinterpret_cast<float*>(pd + r * N), N);
          return;
        }
        for (int64_t r = r0; r < r1; ++r) {
          const scalar_t* xr = px + r * N;
          const scalar_t* gr = pg + r * N;
          op_t m = static_cast<op_t>(pm[r]), rs = static_cast<op_t>(pr[r]);
          // g * w and x-hat once into row buffers, then the two sums in 8 independent double lanes (a
          // vectorizable loop instead of one serial chain of double adds)
          if (pw)
            for (int64_t j = 0; j < N; ++j) gw[j] = static_cast<op_t>(gr[j]) * static_cast<op_t>(pw[j]);
          else
            for (int64_t j = 0; j < N; ++j) gw[j] = static_cast<op_t>(gr[j]);
          for (int64_t j = 0; j < N; ++j) xh[j] = (static_cast<op_t>(xr[j]) - m) * rs;
          double a1[8] = {}, a2[8] = {}, s1 = 0, s2 = 0;
          int64_t j = 0;
          for (; j + 8 <= N; j += 8)
            for (int l = 0; l < 8; ++l) {
              a1[l] += static_cast<double>(gw[j + l]);
              a2[l] += static_cast<double>(gw[j + l] * xh[j + l]);
            }
          for (; j < N; ++j) {
            s1 += static_cast<double>(gw[j]);
            s2 += static_cast<double>(gw[j] * xh[j]);
          }
          for (int l = 0; l < 8; ++l) {
            s1 += a1[l];
            s2 += a2[l];
          }
          op_t a = static_cast<op_t>(s1 / static_cast<double>(N)),
               b = static_cast<op_t>(s2 / static_cast<double>(N));
          scalar_t* dr = pd + r * N;
          for (int64_t k = 0; k < N; ++k) dr[k] = static_cast<scalar_t>(rs * (gw[k] - a - xh[k] * b));
        }
      });
    }
    if (!dw.defined() && !db.defined()) return;
    st_t* pdw = dw.defined() ? dw.data<st_t>() : nullptr;
    st_t* pdb = db.defined() ? db.data<st_t>() : nullptr;
    // column sums: each thread owns a block of columns and walks the rows in order
    parallel_for(0, N, std::max<int64_t>(16, grain_for(M)), [&](int64_t j0, int64_t j1) {
      std::vector<double> sw(static_cast<size_t>(j1 - j0), 0.0), sb(static_cast<size_t>(j1 - j0), 0.0);
      if constexpr (std::is_same_v<scalar_t, float>) {  // compiled for every dtype: the casts are for float
        std::vector<float> fw(static_cast<size_t>(j1 - j0)), fb(static_cast<size_t>(j1 - j0));
        ln_colsum_rows()(reinterpret_cast<const float*>(px), reinterpret_cast<const float*>(pg),
                         reinterpret_cast<const float*>(pm), reinterpret_cast<const float*>(pr), 0, M, N, j0,
                         j1 - j0, sw.data(), sb.data(), fw.data(), fb.data());
      }
      for (int64_t r = 0; r < M && !std::is_same_v<scalar_t, float>; ++r) {
        const scalar_t* xr = px + r * N;
        const scalar_t* gr = pg + r * N;
        double m = static_cast<double>(pm[r]), rs = static_cast<double>(pr[r]);
        for (int64_t j = j0; j < j1; ++j) {
          double gv = static_cast<double>(static_cast<op_t>(gr[j]));
          sw[j - j0] += gv * (static_cast<double>(static_cast<op_t>(xr[j])) - m) * rs;
          sb[j - j0] += gv;
        }
      }
      for (int64_t j = j0; j < j1; ++j) {
        if (pdw) pdw[j] = static_cast<st_t>(sw[j - j0]);
        if (pdb) pdb[j] = static_cast<st_t>(sb[j - j0]);
      }
    });
  });
}

void channel_grad_sums_cpu(const Tensor& sum_g, const Tensor& sum_gx, const Tensor& g, const Tensor& x,
                           const Tensor& mean, int64_t N, int64_t C, int64_t S) {
  MT_DISPATCH_FLOATING_TYPES(x.dtype(), "batch_norm_backward", [&] {
    using st_t = std::conditional_t<std::is_same_v<scalar_t, double>, double, float>;
    using op_t = opmath_t<scalar_t>;
    const scalar_t* px = x.data<scalar_t>();
    const scalar_t* pg = g.data<scalar_t>();
    const st_t* pm = mean.data<st_t>();
    st_t* ps = sum_g.data<st_t>();
    st_t* pq = sum_gx.data<st_t>();
    parallel_for(0, C, grain_for(N * S), [&](int64_t c0, int64_t c1) {
      std::vector<double> s(static_cast<size_t>(c1 - c0), 0.0), q(static_cast<size_t>(c1 - c0), 0.0);
      for (int64_t n = 0; n < N; ++n)
        for (int64_t c = c0; c < c1; ++c) {
          const scalar_t* xs = px + (n * C + c) * S;
          const scalar_t* gs = pg + (n * C + c) * S;
          double m = static_cast<double>(pm[c]), a = 0, b = 0;
          for (int64_t k = 0; k < S; ++k) {
            double gv = static_cast<double>(static_cast<op_t>(gs[k]));
            a += gv;
            b += gv * (static_cast<double>(static_cast<op_t>(xs[k])) - m);
          }
          s[c - c0] += a;
          q[c - c0] += b;
        }
      for (int64_t c = c0; c < c1; ++c) {
        ps[c] = static_cast<st_t>(s[c - c0]);
        pq[c] = static_cast<st_t>(q[c - c0]);
      }
    });
  });
}

void channel_grad_input_cpu(const Tensor& dx, const Tensor& g, const Tensor& x, const Tensor& mean,
                            const Tensor& rstd, const Tensor& w, const Tensor& sum_g, const Tensor& sum_gx,
                            int64_t N, int64_t C, int64_t S) {
  MT_DISPATCH_FLOATING_TYPES(x.dtype(), "batch_norm_backward", [&] {
    using st_t = std::conditional_t<std::is_same_v<scalar_t, double>, double, float>;
    using op_t = opmath_t<scalar_t>;
    const scalar_t* px = x.data<scalar_t>();
    const scalar_t* pg = g.data<scalar_t>();
    scalar_t* pd = dx.data<scalar_t>();
    const st_t* pm = mean.data<st_t>();
    const st_t* pr = rstd.data<st_t>();
    const st_t* pw = w.defined() ? w.data<st_t>() : nullptr;
    const st_t* ps = sum_g.defined() ? sum_g.data<st_t>() : nullptr;
    const st_t* pq = sum_gx.defined() ? sum_gx.data<st_t>() : nullptr;
    const double inv = 1.0 / static_cast<double>(N * S);
    // per-channel coefficients once: dx = (g - mg - (x - m) * k) * a
    std::vector<op_t> cm(static_cast<size_t>(C)), cmg(static_cast<size_t>(C)), ck(static_cast<size_t>(C)),
        ca(static_cast<size_t>(C));
    for (int64_t c = 0; c < C; ++c) {
      double r = static_cast<double>(pr[c]);
      cm[c] = static_cast<op_t>(pm[c]);
      ca[c] = static_cast<op_t>(r * (pw ? static_cast<double>(pw[c]) : 1.0));
      // training: the batch statistics depend on x (the two mean terms); eval: only the scale
      cmg[c] = ps ? static_cast<op_t>(static_cast<double>(ps[c]) * inv) : op_t(0);
      ck[c] = pq ? static_cast<op_t>(r * r * static_cast<double>(pq[c]) * inv) : op_t(0);
    }
    auto f = [&](int64_t s, int64_t c) {
      pd[s] = static_cast<scalar_t>(
          (static_cast<op_t>(pg[s]) - cmg[c] - (static_cast<op_t>(px[s]) - cm[c]) * ck[c]) * ca[c]);
    };
    if (S == 1) {
      parallel_for(0, N, grain_for(C), [&](int64_t n0, int64_t n1) {
        for (int64_t n = n0; n < n1; ++n)
          for (int64_t c = 0; c < C; ++c) f(n * C + c, c);
      });
      return;
    }
    parallel_for(0, N * C, grain_for(S), [&](int64_t i0, int64_t i1) {
      int64_t c = i0 % C;
      for (int64_t i = i0; i < i1; ++i, c = c + 1 == C ? 0 : c + 1)
        for (int64_t s = i * S, e = s + S; s < e; ++s) f(s, c);
    });
  });
}

}  // namespace

MT_REGISTER_KERNEL(row_norm_stub, CPU, &row_norm_cpu);
MT_REGISTER_KERNEL(row_norm_backward_stub, CPU, &row_norm_backward_cpu);
MT_REGISTER_KERNEL(channel_grad_sums_stub, CPU, &channel_grad_sums_cpu);
MT_REGISTER_KERNEL(channel_grad_input_stub, CPU, &channel_grad_input_cpu);
MT_REGISTER_KERNEL(channel_stats_stub, CPU, &channel_stats_cpu);
MT_REGISTER_KERNEL(channel_affine_stub, CPU, &channel_affine_cpu);

}  // namespace mt
