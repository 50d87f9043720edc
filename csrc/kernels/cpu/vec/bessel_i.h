// Modified Bessel functions of the first kind, I0 and I1 and their scaled forms exp(-|x|) I_n(x), four
// vectors of doubles at a time, for both tables (included by vec/unary_impl.h, after avx2_math.h and
// avx512_math.h: their exp, and by vec/bessel_avx2.cpp: its K rows share the recurrence and the row loop).
// The scalar functors (functors.h) evaluate the same Cephes Chebyshev expansions (the ones PyTorch's calc_i0
// / calc_i1e evaluate) one element at a time: exp(-x) I_n(x) on [0, 8] and exp(-x) sqrt(x) I_n(x) on (8, inf)
// in 32/x, by Clenshaw's recurrence. Measured against a 60-digit power series over [-60, 60]: 5.2e-16 (i0,
// i0e) and 1.6e-15 (i1, i1e) relative at most.
#pragma once

#include "kernels/BesselCoeffs.h"
#include "kernels/cpu/vec/polygamma_lanes.h"  // LaneOps

namespace {

// Cephes' coefficients (kernels/BesselCoeffs.h), highest order first
static const double kI0eSmall[30] = {MT_BESSEL_I0E_SMALL};
static const double kI0eLarge[25] = {MT_BESSEL_I0E_LARGE};
static const double kI1eSmall[29] = {MT_BESSEL_I1E_SMALL};
static const double kI1eLarge[25] = {MT_BESSEL_I1E_LARGE};

// Vectors per call: four independent chains of Clenshaw's recurrence in flight; sixteen lanes of AVX2 (the
// K rows of vec/bessel_avx2.cpp too), thirty-two of AVX-512
constexpr int kBesselVecs = 4;
constexpr int kBesselLanes = 4 * kBesselVecs;

// What plain vector arithmetic lacks, for each width: unaligned loads and stores (GCC splits a memcpy of a
// vector into 16-byte moves under its generic tuning: a store-forwarding stall per vector, 1.6x the time),
// FMA (spelled out, so both widths fuse the same operations), sqrt and exp (avx2_math.h's and
// avx512_math.h's float64 exp give the same bits)
static inline void bessel_load(__m256d& v, const double* p) {
  v = _mm256_loadu_pd(p);
}
static inline void bessel_store(double* p, __m256d v) {
  _mm256_storeu_pd(p, v);
}
static inline __m256d bessel_fma(__m256d a, __m256d b, __m256d c) {
  return _mm256_fmadd_pd(a, b, c);
}
static inline __m256d bessel_sqrt(__m256d x) {
  return _mm256_sqrt_pd(x);
}
static inline __m256d bessel_exp(__m256d x) {
  return exp_avx2_f64(x);
}
#ifdef MT_VEC_AVX512
static inline void bessel_load(__m512d& v, const double* p) {
  v = _mm512_loadu_pd(p);
}
static inline void bessel_store(double* p, __m512d v) {
  _mm512_storeu_pd(p, v);
}
static inline __m512d bessel_fma(__m512d a, __m512d b, __m512d c) {
  return _mm512_fmadd_pd(a, b, c);
}
static inline __m512d bessel_sqrt(__m512d x) {
  return _mm512_sqrt_pd(x);
}
static inline __m512d bessel_exp(__m512d x) {
  return exp_avx512_f64(x);
}
#endif

// Clenshaw's recurrence over the vectors at once. Each step is one FMA on the critical path, y b1 + (c - b2),
// the subtraction off it (b2 is known a step ahead): the recurrence is latency-bound, 30 steps of it.
template <typename V, int N>
static inline void bessel_chbevl(V out[kBesselVecs], const V y[kBesselVecs], const double (&c)[N]) {
  V b0[kBesselVecs], b1[kBesselVecs], b2[kBesselVecs];
  for (int k = 0; k < kBesselVecs; ++k) {
    b0[k] = V{} + c[0];
    b1[k] = b2[k] = V{};
  }
  for (int i = 1; i < N; ++i)
    for (int k = 0; k < kBesselVecs; ++k) {
      b2[k] = b1[k];
      b1[k] = b0[k];
      b0[k] = bessel_fma(y[k], b1[k], c[i] - b2[k]);
    }
  for (int k = 0; k < kBesselVecs; ++k) out[k] = 0.5 * (b0[k] - b2[k]);
}

// I_kN(x), or exp(-|x|) I_kN(x) when kScaled, for in[0..kBesselVecs * lanes of V): written once over GCC
// vector types, four double lanes (AVX2) or eight (AVX-512: the same operations, so the same bits). I0 is
// even and I1 odd (I1(-0) = +0, as the scalar functor); NaN stays NaN (it takes the (8, inf) branch); the
// scaled forms give 0 at +-inf.
template <int kN, bool kScaled, typename V = __m256d>
static inline void bessel_i_lanes(double* out, const double* in) {
  constexpr int K = kBesselVecs, W = sizeof(V) / sizeof(double);
  typedef long long VL __attribute__((vector_size(sizeof(V))));
  typedef LaneOps<V> L;
  V x[K], ax[K], r[K], y[K];
  VL small[K], any_small = VL{}, all_small = VL{} - 1;
  for (int k = 0; k < K; ++k) {
    bessel_load(x[k], in + W * k);
    ax[k] = (V)((VL)x[k] & 0x7fffffffffffffffLL);  // |x|, -0 to +0
    small[k] = ax[k] <= 8.0;                       // NaN: false
    any_small |= small[k];
    all_small &= small[k];
    r[k] = V{};
  }
  if (L::any(any_small)) {
    for (int k = 0; k < K; ++k) y[k] = ax[k] * 0.5 - 2.0;
    if constexpr (kN == 0) {
      bessel_chbevl(r, y, kI0eSmall);
    } else {
      bessel_chbevl(r, y, kI1eSmall);
      for (int k = 0; k < K; ++k) r[k] *= ax[k];
    }
  }
  if (L::any(~all_small)) {
    V c[K];
    // the small lanes divide 32 by 16, not by a possible 0
    for (int k = 0; k < K; ++k) y[k] = 32.0 / (small[k] ? V{} + 16.0 : ax[k]) - 2.0;
    if constexpr (kN == 0)
      bessel_chbevl(c, y, kI0eLarge);
    else
      bessel_chbevl(c, y, kI1eLarge);
    for (int k = 0; k < K; ++k) r[k] = small[k] ? r[k] : c[k] / bessel_sqrt(ax[k]);
  }
  for (int k = 0; k < K; ++k) {
    if constexpr (!kScaled) {
      const V e = r[k] * bessel_exp(ax[k]);
      // exp(|x|) overflows from 709.78, I_n(x) only from 713.99: there e^(|x|/2) twice
      const VL wide = ax[k] > 709.0;
      if (L::any(wide)) {
        const V h = bessel_exp(ax[k] * 0.5);
        r[k] = wide ? h * (h * r[k]) : e;
      } else {
        r[k] = e;
      }
      r[k] = ax[k] == __builtin_inf() ? V{} + __builtin_inf() : r[k];  // inf * 0 would be NaN
    }
    if constexpr (kN == 1) r[k] = x[k] < 0.0 ? -r[k] : r[k];
    bessel_store(out + W * k, r[k]);
  }
}

// A dense row, kLanes elements at a time, the tail through a padded block (every element the same path);
// float32 computed in double and rounded once, so its results are the float64 ones rounded.
template <typename S, void (*F)(double*, const double*), int kLanes = kBesselLanes>
void bessel_row(S* out, const S* in, int64_t n) {
  double buf[kLanes];
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes) {
    if constexpr (sizeof(S) == sizeof(double)) {
      F(reinterpret_cast<double*>(out + i), reinterpret_cast<const double*>(in + i));
    } else {
      // widened and narrowed four at a time (exact, then rounded to nearest once; a scalar loop here cost
      // float32 a third more time than float64)
      for (int j = 0; j < kLanes; j += 4)
        _mm256_storeu_pd(buf + j, _mm256_cvtps_pd(_mm_loadu_ps(in + i + j)));
      F(buf, buf);
      for (int j = 0; j < kLanes; j += 4)
        _mm_storeu_ps(out + i + j, _mm256_cvtpd_ps(_mm256_loadu_pd(buf + j)));
    }
  }
  if (i < n) {
    const int64_t m = n - i;
    for (int64_t j = 0; j < kLanes; ++j) buf[j] = j < m ? static_cast<double>(in[i + j]) : 0.0;
    F(buf, buf);
    for (int64_t j = 0; j < m; ++j) out[i + j] = static_cast<S>(buf[j]);
  }
}

}  // namespace
