// special.modified_bessel_k0/k1 and scaled_modified_bessel_k0/k1, sixteen doubles at a time (AVX2+FMA).
//
// The scalar functors (kernels/special_functors.h bessel_k) evaluate Cephes' k0.c/k1.c one element at a time,
// 80-200 ns each (a 30-term Chebyshev series for I_n, a 10-term one, a log and an exp on [0, 2]); PyTorch's
// are the same fits at about 40 ns. These are the same expansions and the same branches, four vectors of
// Clenshaw's recurrence in flight (bessel_i.h's), with our AVX2 log and exp; float32 computes in double and
// rounds once, as the functor.
#include <immintrin.h>

#include "kernels/SpecialCoeffs.h"
#include "kernels/cpu/vec/avx2_math.h"
#include "kernels/cpu/vec/bessel_i.h"
#include "kernels/cpu/vec/bessel_k.h"

namespace {

// Cephes' coefficients (kernels/SpecialCoeffs.h), highest order first: K_n(x) + log(x/2) I_n(x) on [0, 2] in
// x^2 - 2 (K1: times x), exp(x) sqrt(x) K_n(x) on (2, inf) in 8/x - 2
static const double kK0A[10] = {MT_K0_A};
static const double kK0B[25] = {MT_K0_B};
static const double kK1A[11] = {MT_K1_A};
static const double kK1B[25] = {MT_K1_B};

// K_kN(x), or exp(x) K_kN(x) when kScaled, for in[0..kBesselLanes): the functor's branches, its order of
// operations; inf at 0 (either sign), NaN below 0 and at NaN, 0 at +inf.
template <int kN, bool kScaled>
static inline void bessel_k_lanes(double* out, const double* in) {
  constexpr int K = kBesselVecs;
  __m256d x[K], small[K], r[K];
  int any_small = 0, any_large = 0;
  for (int k = 0; k < K; ++k) {
    x[k] = _mm256_loadu_pd(in + 4 * k);
    small[k] = _mm256_cmp_pd(x[k], _mm256_set1_pd(2.0), _CMP_LE_OQ);
    const int m = _mm256_movemask_pd(small[k]);
    any_small |= m;
    any_large |= ~m & 0xf;
    r[k] = _mm256_setzero_pd();
  }
  if (any_small) {
    // the large lanes (NaN too) evaluate at 1: nothing overflows or divides by 0 there
    __m256d xs[K], y[K], a[K], b[K];
    for (int k = 0; k < K; ++k) {
      xs[k] = _mm256_blendv_pd(_mm256_set1_pd(1.0), x[k], small[k]);
      y[k] = xs[k] * xs[k] - 2.0;
    }
    if constexpr (kN == 0)
      bessel_chbevl(a, y, kK0A);
    else
      bessel_chbevl(a, y, kK1A);
    // I_n(x) = exp(x) chbevl(x/2 - 2) (times x for I1): bessel_i's [0, 8] branch
    for (int k = 0; k < K; ++k) y[k] = xs[k] * 0.5 - 2.0;
    if constexpr (kN == 0)
      bessel_chbevl(b, y, kI0eSmall);
    else
      bessel_chbevl(b, y, kI1eSmall);
    for (int k = 0; k < K; ++k) {
      const __m256d e = exp_avx2_f64(xs[k]);
      const __m256d lg = log_avx2_f64(0.5 * xs[k]);
      __m256d v;
      if constexpr (kN == 0)
        v = a[k] - lg * (b[k] * e);
      else
        v = lg * ((b[k] * xs[k]) * e) + a[k] / xs[k];
      r[k] = kScaled ? v * e : v;
    }
  }
  if (any_large) {
    __m256d xl[K], y[K], c[K];
    for (int k = 0; k < K; ++k) {
      xl[k] = _mm256_blendv_pd(x[k], _mm256_set1_pd(4.0), small[k]);
      y[k] = 8.0 / xl[k] - 2.0;
    }
    if constexpr (kN == 0)
      bessel_chbevl(c, y, kK0B);
    else
      bessel_chbevl(c, y, kK1B);
    for (int k = 0; k < K; ++k) {
      __m256d v = c[k] / _mm256_sqrt_pd(xl[k]);
      if constexpr (!kScaled) v = exp_avx2_f64(-xl[k]) * v;
      r[k] = _mm256_blendv_pd(v, r[k], small[k]);
    }
  }
  for (int k = 0; k < K; ++k) {
    const __m256d zero = _mm256_setzero_pd();
    r[k] = _mm256_blendv_pd(r[k], _mm256_set1_pd(__builtin_inf()), _mm256_cmp_pd(x[k], zero, _CMP_EQ_OQ));
    r[k] = _mm256_blendv_pd(r[k], _mm256_set1_pd(__builtin_nan("")), _mm256_cmp_pd(x[k], zero, _CMP_LT_OQ));
    _mm256_storeu_pd(out + 4 * k, r[k]);
  }
}

}  // namespace

namespace mt {
namespace vec {

LoopF bessel_k_row_f32(int n, bool scaled) {
  if (n == 0)
    return scaled ? &bessel_row<float, bessel_k_lanes<0, true>>
                  : &bessel_row<float, bessel_k_lanes<0, false>>;
  return scaled ? &bessel_row<float, bessel_k_lanes<1, true>> : &bessel_row<float, bessel_k_lanes<1, false>>;
}
LoopD bessel_k_row_f64(int n, bool scaled) {
  if (n == 0)
    return scaled ? &bessel_row<double, bessel_k_lanes<0, true>>
                  : &bessel_row<double, bessel_k_lanes<0, false>>;
  return scaled ? &bessel_row<double, bessel_k_lanes<1, true>>
                : &bessel_row<double, bessel_k_lanes<1, false>>;
}

}  // namespace vec
}  // namespace mt
