// Modified Bessel functions of the first kind, I0 and I1 and their scaled forms exp(-|x|) I_n(x), sixteen
// doubles at a time, for both tables (included only by vec/unary_impl.h, after avx2_math.h: its exp). The
// scalar functors (functors.h) evaluate the same Cephes Chebyshev expansions (the ones PyTorch's calc_i0 /
// calc_i1e evaluate) one element at a time: exp(-x) I_n(x) on [0, 8] and exp(-x) sqrt(x) I_n(x) on (8, inf)
// in 32/x, by Clenshaw's recurrence. Measured against a 60-digit power series over [-60, 60]: 5.2e-16 (i0,
// i0e) and 1.6e-15 (i1, i1e) relative at most.
#pragma once

#include "kernels/BesselCoeffs.h"

namespace {

// Cephes' coefficients (kernels/BesselCoeffs.h), highest order first
static const double kI0eSmall[30] = {MT_BESSEL_I0E_SMALL};
static const double kI0eLarge[25] = {MT_BESSEL_I0E_LARGE};
static const double kI1eSmall[29] = {MT_BESSEL_I1E_SMALL};
static const double kI1eLarge[25] = {MT_BESSEL_I1E_LARGE};

// Lanes per call: four vectors, four independent chains of Clenshaw's recurrence in flight
constexpr int kBesselVecs = 4;
constexpr int kBesselLanes = 4 * kBesselVecs;

// Clenshaw's recurrence over the vectors at once. Each step is one FMA on the critical path, y b1 + (c - b2),
// the subtraction off it (b2 is known a step ahead): the recurrence is latency-bound, 30 steps of it.
template <int N>
static inline void bessel_chbevl(__m256d out[kBesselVecs], const __m256d y[kBesselVecs],
                                 const double (&c)[N]) {
  __m256d b0[kBesselVecs], b1[kBesselVecs], b2[kBesselVecs];
  for (int k = 0; k < kBesselVecs; ++k) {
    b0[k] = _mm256_set1_pd(c[0]);
    b1[k] = b2[k] = _mm256_setzero_pd();
  }
  for (int i = 1; i < N; ++i)
    for (int k = 0; k < kBesselVecs; ++k) {
      b2[k] = b1[k];
      b1[k] = b0[k];
      b0[k] = _mm256_fmadd_pd(y[k], b1[k], c[i] - b2[k]);
    }
  for (int k = 0; k < kBesselVecs; ++k) out[k] = 0.5 * (b0[k] - b2[k]);
}

// I_kN(x), or exp(-|x|) I_kN(x) when kScaled, for in[0..kBesselLanes). I0 is even and I1 odd (I1(-0) = +0, as
// the scalar functor); NaN stays NaN (it takes the (8, inf) branch); the scaled forms give 0 at +-inf.
template <int kN, bool kScaled>
static inline void bessel_i_lanes(double* out, const double* in) {
  constexpr int K = kBesselVecs;
  const __m256d sign = _mm256_set1_pd(-0.0);
  __m256d x[K], ax[K], small[K], r[K], y[K];
  int any_small = 0, any_large = 0;
  for (int k = 0; k < K; ++k) {
    x[k] = _mm256_loadu_pd(in + 4 * k);
    ax[k] = _mm256_andnot_pd(sign, x[k]);
    small[k] = _mm256_cmp_pd(ax[k], _mm256_set1_pd(8.0), _CMP_LE_OQ);
    const int m = _mm256_movemask_pd(small[k]);
    any_small |= m;
    any_large |= ~m & 0xf;
    r[k] = _mm256_setzero_pd();
  }
  if (any_small) {
    for (int k = 0; k < K; ++k) y[k] = ax[k] * 0.5 - 2.0;
    if constexpr (kN == 0) {
      bessel_chbevl(r, y, kI0eSmall);
    } else {
      bessel_chbevl(r, y, kI1eSmall);
      for (int k = 0; k < K; ++k) r[k] *= ax[k];
    }
  }
  if (any_large) {
    __m256d c[K];
    // the small lanes divide 32 by 16, not by a possible 0
    for (int k = 0; k < K; ++k) y[k] = 32.0 / _mm256_blendv_pd(ax[k], _mm256_set1_pd(16.0), small[k]) - 2.0;
    if constexpr (kN == 0)
      bessel_chbevl(c, y, kI0eLarge);
    else
      bessel_chbevl(c, y, kI1eLarge);
    for (int k = 0; k < K; ++k) r[k] = _mm256_blendv_pd(c[k] / _mm256_sqrt_pd(ax[k]), r[k], small[k]);
  }
  for (int k = 0; k < K; ++k) {
    if constexpr (!kScaled) {
      const __m256d e = r[k] * exp_avx2_f64(ax[k]);
      // exp(|x|) overflows from 709.78, I_n(x) only from 713.99: there e^(|x|/2) twice
      const __m256d wide = _mm256_cmp_pd(ax[k], _mm256_set1_pd(709.0), _CMP_GT_OQ);
      if (_mm256_movemask_pd(wide)) {
        const __m256d h = exp_avx2_f64(ax[k] * 0.5);
        r[k] = _mm256_blendv_pd(e, h * (h * r[k]), wide);
      } else {
        r[k] = e;
      }
      const __m256d inf = _mm256_set1_pd(__builtin_inf());
      r[k] = _mm256_blendv_pd(r[k], inf, _mm256_cmp_pd(ax[k], inf, _CMP_EQ_OQ));  // inf * 0 would be NaN
    }
    if constexpr (kN == 1)
      r[k] = _mm256_blendv_pd(r[k], _mm256_xor_pd(r[k], sign),
                              _mm256_cmp_pd(x[k], _mm256_setzero_pd(), _CMP_LT_OQ));
    _mm256_storeu_pd(out + 4 * k, r[k]);
  }
}

// A dense row, kBesselLanes elements at a time, the tail through a padded block (every element the same
// path); float32 computed in double and rounded once, so its results are the float64 ones rounded.
template <typename S, void (*F)(double*, const double*)>
void bessel_row(S* out, const S* in, int64_t n) {
  double buf[kBesselLanes];
  for (int64_t i = 0; i < n; i += kBesselLanes) {
    const int64_t m = n - i < kBesselLanes ? n - i : kBesselLanes;
    if (sizeof(S) == sizeof(double) && m == kBesselLanes) {
      F(reinterpret_cast<double*>(out + i), reinterpret_cast<const double*>(in + i));
      continue;
    }
    for (int64_t j = 0; j < kBesselLanes; ++j) buf[j] = j < m ? static_cast<double>(in[i + j]) : 0.0;
    F(buf, buf);
    for (int64_t j = 0; j < m; ++j) out[i + j] = static_cast<S>(buf[j]);
  }
}

}  // namespace
