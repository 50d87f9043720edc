// torch.special's Bessel functions of the first and second kind (J0, J1, Y0, Y1), the modified ones of the
// second kind (K0, K1, scaled K0/K1), spherical j0 and Airy's Ai, sixteen doubles at a time (AVX2+FMA).
//
// The scalar functors (kernels/special_functors.h) evaluate Cephes' j0.c/j1.c/k0.c/k1.c/airy.c one element at
// a time: K 80-200 ns each (a 30-term Chebyshev series for I_n, a 10-term one, a log and an exp on [0, 2]),
// PyTorch's the same fits at about 40 ns; J/Y 7-20 ns and Ai's Maclaurin series 70 ns, about twice PyTorch's.
// These are the same expansions, branches and order of operations in vectors (K: four vectors of Clenshaw's
// recurrence in flight, bessel_i.h's), with our AVX2 log, exp and sin/cos; float32 computes in double and
// rounds once, as the functors.
#include <immintrin.h>

#include "kernels/SpecialCoeffs.h"
#include "kernels/cpu/vec/avx2_math.h"
#include "kernels/cpu/vec/bessel_i.h"
#include "kernels/cpu/vec/bessel_rows.h"

namespace {

// Cephes' coefficients (kernels/SpecialCoeffs.h), highest order first: K_n(x) + log(x/2) I_n(x) on [0, 2] in
// x^2 - 2 (K1: times x), exp(x) sqrt(x) K_n(x) on (2, inf) in 8/x - 2
static const double kK0A[10] = {MT_K0_A};
static const double kK0B[25] = {MT_K0_B};
static const double kK1A[11] = {MT_K1_A};
static const double kK1B[25] = {MT_K1_B};

// J0/J1 on [0, 5] (rational in z = x^2, the first two zeros factored out) and Hankel's asymptotic form
// beyond, which Y0/Y1 share; Y0/Y1's rational parts on (0, 5]
static const double kJ0PP[7] = {MT_J0_PP}, kJ0PQ[7] = {MT_J0_PQ}, kJ0QP[8] = {MT_J0_QP},
                    kJ0QQ[7] = {MT_J0_QQ};
static const double kJ0RP[4] = {MT_J0_RP}, kJ0RQ[8] = {MT_J0_RQ};
static const double kJ1PP[7] = {MT_J1_PP}, kJ1PQ[7] = {MT_J1_PQ}, kJ1QP[8] = {MT_J1_QP},
                    kJ1QQ[7] = {MT_J1_QQ};
static const double kJ1RP[4] = {MT_J1_RP}, kJ1RQ[8] = {MT_J1_RQ};
static const double kY0YP[8] = {MT_Y0_YP}, kY0YQ[7] = {MT_Y0_YQ};
static const double kY1YP[6] = {MT_Y1_YP}, kY1YQ[8] = {MT_Y1_YQ};

// Cephes' polevl (the coefficients as given) and p1evl (a leading coefficient 1 before them)
template <int N>
static inline __m256d polevl_v(__m256d x, const double (&c)[N]) {
  __m256d r = _mm256_set1_pd(c[0]);
  for (int i = 1; i < N; ++i) r = _mm256_fmadd_pd(r, x, _mm256_set1_pd(c[i]));
  return r;
}
template <int N>
static inline __m256d p1evl_v(__m256d x, const double (&c)[N]) {
  __m256d r = x + c[0];
  for (int i = 1; i < N; ++i) r = _mm256_fmadd_pd(r, x, _mm256_set1_pd(c[i]));
  return r;
}

// J0 (x >= 0) or J1 (x >= 0) on [0, 5]: special_functors.h's bessel_j0_double / bessel_j1_double
template <int kN>
static inline __m256d bessel_j_small(__m256d x) {
  const __m256d z = x * x;
  if constexpr (kN == 0) {
    const __m256d r =
        (z - 5.78318596294678452118) * (z - 30.4712623436620863991) * polevl_v(z, kJ0RP) / p1evl_v(z, kJ0RQ);
    return _mm256_blendv_pd(r, 1.0 - z / 4.0, _mm256_cmp_pd(x, _mm256_set1_pd(1e-5), _CMP_LT_OQ));
  } else {
    return polevl_v(z, kJ1RP) / p1evl_v(z, kJ1RQ) * x * (z - 14.6819706421238932572) *
           (z - 49.2184563216946036703);
  }
}

// sin and cos of x (one reduction); lanes past its range (and inf, NaN) take the C library's
static inline void sincos_both_avx2(__m256d x, __m256d& sn, __m256d& cs) {
  __m256d rh, rl;
  const __m256i n = reduce_pio2_avx2(x, rh, rl);
  const __m256d ks = ksin_avx2(rh, rl), kc = kcos_avx2(rh, rl);
  // sin x = s, c, -s, -c and cos x = c, -s, -c, s for n mod 4 = 0..3
  const __m256d odd = _mm256_castsi256_pd(_mm256_slli_epi64(n, 63));
  const __m256d neg_s = _mm256_castsi256_pd(_mm256_slli_epi64(_mm256_srli_epi64(n, 1), 63));
  const __m256d neg_c = _mm256_castsi256_pd(
      _mm256_slli_epi64(_mm256_srli_epi64(_mm256_add_epi64(n, _mm256_set1_epi64x(1)), 1), 63));
  sn = _mm256_xor_pd(_mm256_blendv_pd(ks, kc, odd), neg_s);
  cs = _mm256_xor_pd(_mm256_blendv_pd(kc, ks, odd), neg_c);
  const int inside = _mm256_movemask_pd(sincos_f64_in_range_avx2(x));
  if (inside != 0xf) {
    alignas(32) double xa[4], sa[4], ca[4];
    _mm256_store_pd(xa, x);
    _mm256_store_pd(sa, sn);
    _mm256_store_pd(ca, cs);
    for (int i = 0; i < 4; ++i)
      if (!(inside >> i & 1)) {
        sa[i] = __builtin_sin(xa[i]);
        ca[i] = __builtin_cos(xa[i]);
      }
    sn = _mm256_load_pd(sa);
    cs = _mm256_load_pd(ca);
  }
}

// Hankel's form of J_n (kSecond false) or Y_n for x > 5: bessel_hankel, sin and cos of x - shift from one
// reduction
template <int kN, bool kSecond>
static inline __m256d bessel_hankel_v(__m256d x) {
  const __m256d w = 5.0 / x, z = 25.0 / (x * x);
  __m256d p, q;
  if constexpr (kN == 0) {
    p = polevl_v(z, kJ0PP) / polevl_v(z, kJ0PQ);
    q = polevl_v(z, kJ0QP) / p1evl_v(z, kJ0QQ);
  } else {
    p = polevl_v(z, kJ1PP) / polevl_v(z, kJ1PQ);
    q = polevl_v(z, kJ1QP) / p1evl_v(z, kJ1QQ);
  }
  const __m256d xn = x - (kN == 0 ? 0.78539816339744830962 : 2.35619449019234492885);
  __m256d sn, cs;
  sincos_both_avx2(xn, sn, cs);
  const __m256d r = kSecond ? p * sn + w * q * cs : p * cs - w * q * sn;
  return r * 0.79788456080286535588 / _mm256_sqrt_pd(x);
}

// J_kN(x) or Y_kN(x) (kSecond) of four lanes: the functors' branches. J0 even, J1 odd; Y: -inf at 0, NaN
// below; NaN and +-inf give NaN (sin and cos of inf), as the functors and PyTorch.
template <int kN, bool kSecond>
static inline __m256d bessel_jy_v(__m256d x) {
  const __m256d zero = _mm256_setzero_pd();
  const __m256d a = kSecond ? x : _mm256_andnot_pd(_mm256_set1_pd(-0.0), x);
  const __m256d small = _mm256_cmp_pd(a, _mm256_set1_pd(5.0), _CMP_LE_OQ);
  const int ms = _mm256_movemask_pd(small);
  __m256d r = zero;
  if (ms) {
    // lanes outside (0, 5] evaluate at 1 (Y's 0 and negatives are set below)
    const __m256d in = kSecond ? _mm256_and_pd(small, _mm256_cmp_pd(a, zero, _CMP_GT_OQ)) : small;
    const __m256d xs = _mm256_blendv_pd(_mm256_set1_pd(1.0), a, in);
    if constexpr (!kSecond) {
      r = bessel_j_small<kN>(xs);
    } else {
      const __m256d z = xs * xs, lg = log_avx2_f64(xs);
      if constexpr (kN == 0)
        r = polevl_v(z, kY0YP) / p1evl_v(z, kY0YQ) + 0.63661977236758134308 * lg * bessel_j_small<0>(xs);
      else
        r = xs * (polevl_v(z, kY1YP) / p1evl_v(z, kY1YQ)) +
            0.63661977236758134308 * (bessel_j_small<1>(xs) * lg - 1.0 / xs);
    }
  }
  if (ms != 0xf) {
    const __m256d xl = _mm256_blendv_pd(a, _mm256_set1_pd(10.0), small);
    r = _mm256_blendv_pd(bessel_hankel_v<kN, kSecond>(xl), r, small);
  }
  if constexpr (!kSecond) {
    if constexpr (kN == 1) r = _mm256_blendv_pd(r, -r, _mm256_cmp_pd(x, zero, _CMP_LT_OQ));
  } else {
    r = _mm256_blendv_pd(r, _mm256_set1_pd(-__builtin_inf()), _mm256_cmp_pd(x, zero, _CMP_EQ_OQ));
    r = _mm256_blendv_pd(r, _mm256_set1_pd(__builtin_nan("")), _mm256_cmp_pd(x, zero, _CMP_LT_OQ));
  }
  return r;
}

// spherical j0 = sin(x) / x: special_functors.h's spherical_bessel_j0_double (its Taylor polynomial below
// 1/2, 0 at +-inf, NaN at NaN)
static inline __m256d spherical_j0_v(__m256d x) {
  __m256d sn, cs;
  sincos_both_avx2(x, sn, cs);
  __m256d r = sn / x;
  const __m256d ax = _mm256_andnot_pd(_mm256_set1_pd(-0.0), x);
  const __m256d small = _mm256_cmp_pd(ax, _mm256_set1_pd(0.5), _CMP_LT_OQ);
  if (_mm256_movemask_pd(small)) {
    const __m256d z = x * x;
    const __m256d t =
        1.0 +
        z * (-1.0 / 6.0 +
             z * (1.0 / 120.0 + z * (-1.0 / 5040.0 + z * (1.0 / 362880.0 + z * (-1.0 / 39916800.0 +
                                                                                z * (1.0 / 6227020800.0))))));
    r = _mm256_blendv_pd(r, t, small);
  }
  return _mm256_andnot_pd(_mm256_cmp_pd(ax, _mm256_set1_pd(__builtin_inf()), _CMP_EQ_OQ), r);
}

static const double kAiryAN[8] = {MT_AIRY_AN}, kAiryAD[8] = {MT_AIRY_AD};
static const double kAiryAFN[9] = {MT_AIRY_AFN}, kAiryAFD[9] = {MT_AIRY_AFD};
static const double kAiryAGN[11] = {MT_AIRY_AGN}, kAiryAGD[10] = {MT_AIRY_AGD};

// Ai(x): special_functors.h's airy_ai_double, its three branches and order of operations (the Maclaurin
// series on [-2.09, 2.09) runs until every lane has converged, each lane's sums frozen at its own last term,
// so each lane takes the functor's number of terms)
static inline __m256d airy_ai_v(__m256d x) {
  const __m256d lo = _mm256_cmp_pd(x, _mm256_set1_pd(-2.09), _CMP_LT_OQ);
  const __m256d hi = _mm256_cmp_pd(x, _mm256_set1_pd(2.09), _CMP_GE_OQ);
  const __m256d mid = _mm256_andnot_pd(_mm256_or_pd(lo, hi), _mm256_cmp_pd(x, x, _CMP_ORD_Q));
  __m256d r = _mm256_setzero_pd();
  if (_mm256_movemask_pd(lo)) {
    const __m256d xl = _mm256_blendv_pd(_mm256_set1_pd(-3.0), x, lo);
    const __m256d t = _mm256_sqrt_pd(-xl), zeta = -2.0 * xl * t / 3.0, z = 1.0 / zeta, zz = z * z;
    const __m256d uf = 1.0 + zz * polevl_v(zz, kAiryAFN) / p1evl_v(zz, kAiryAFD);
    const __m256d ug = z * polevl_v(zz, kAiryAGN) / p1evl_v(zz, kAiryAGD);
    __m256d sn, cs;
    sincos_both_avx2(zeta + 0.78539816339744830962, sn, cs);
    r = _mm256_blendv_pd(r, 0.56418958354775628695 / _mm256_sqrt_pd(t) * (sn * uf - cs * ug), lo);
  }
  if (_mm256_movemask_pd(hi)) {
    const __m256d xh = _mm256_blendv_pd(_mm256_set1_pd(3.0), x, hi);
    const __m256d t = _mm256_sqrt_pd(xh), zeta = 2.0 * xh * t / 3.0, z = 1.0 / zeta;
    const __m256d v = 0.56418958354775628695 * (polevl_v(z, kAiryAN) / polevl_v(z, kAiryAD)) /
                      (2.0 * _mm256_sqrt_pd(t) * exp_avx2_f64(zeta));
    r = _mm256_blendv_pd(r, v, hi);
  }
  if (_mm256_movemask_pd(mid)) {
    const __m256d xm = _mm256_blendv_pd(_mm256_setzero_pd(), x, mid);
    __m256d f = _mm256_set1_pd(1.0), g = xm, m = _mm256_set1_pd(1.0), n = xm;
    const __m256d z = xm * xm * xm;
    const __m256d eps = _mm256_set1_pd(1.1102230246251565e-16);
    __m256d active = mid;  // t = 1 > eps at the start
    double k = 1.0;
    while (_mm256_movemask_pd(active)) {
      m *= z;
      k += 1.0;
      m /= k;
      n *= z;
      k += 1.0;
      n /= k;
      m /= k;
      f = _mm256_blendv_pd(f, f + m, active);
      k += 1.0;
      n /= k;
      g = _mm256_blendv_pd(g, g + n, active);
      const __m256d tt = _mm256_andnot_pd(_mm256_set1_pd(-0.0), m / f);
      active = _mm256_and_pd(active, _mm256_cmp_pd(tt, eps, _CMP_GT_OQ));
    }
    r = _mm256_blendv_pd(r, 0.355028053887817239260 * f - 0.258819403792806798405 * g, mid);
  }
  // 0 past 103.892 (underflow), NaN at +-inf and NaN
  r = _mm256_andnot_pd(_mm256_cmp_pd(x, _mm256_set1_pd(103.892), _CMP_GT_OQ), r);
  const __m256d ax = _mm256_andnot_pd(_mm256_set1_pd(-0.0), x);
  const __m256d bad = _mm256_cmp_pd(ax, _mm256_set1_pd(__builtin_inf()), _CMP_NLT_UQ);  // inf or NaN
  return _mm256_blendv_pd(r, _mm256_set1_pd(__builtin_nan("")), bad);
}

template <int kWhich>  // 0: spherical j0, 1: Airy Ai
static inline void bessel_other_lanes(double* out, const double* in) {
  for (int k = 0; k < kBesselVecs; ++k) {
    const __m256d x = _mm256_loadu_pd(in + 4 * k);
    _mm256_storeu_pd(out + 4 * k, kWhich == 0 ? spherical_j0_v(x) : airy_ai_v(x));
  }
}

template <int kN, bool kSecond>
static inline void bessel_jy_lanes(double* out, const double* in) {
  for (int k = 0; k < kBesselVecs; ++k)
    _mm256_storeu_pd(out + 4 * k, bessel_jy_v<kN, kSecond>(_mm256_loadu_pd(in + 4 * k)));
}

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

LoopF bessel_jy_row_f32(int n, bool second) {
  if (n == 0)
    return second ? &bessel_row<float, bessel_jy_lanes<0, true>>
                  : &bessel_row<float, bessel_jy_lanes<0, false>>;
  return second ? &bessel_row<float, bessel_jy_lanes<1, true>>
                : &bessel_row<float, bessel_jy_lanes<1, false>>;
}
LoopD bessel_jy_row_f64(int n, bool second) {
  if (n == 0)
    return second ? &bessel_row<double, bessel_jy_lanes<0, true>>
                  : &bessel_row<double, bessel_jy_lanes<0, false>>;
  return second ? &bessel_row<double, bessel_jy_lanes<1, true>>
                : &bessel_row<double, bessel_jy_lanes<1, false>>;
}

LoopF spherical_j0_row_f32() {
  return &bessel_row<float, bessel_other_lanes<0>>;
}
LoopD spherical_j0_row_f64() {
  return &bessel_row<double, bessel_other_lanes<0>>;
}
LoopF airy_ai_row_f32() {
  return &bessel_row<float, bessel_other_lanes<1>>;
}
LoopD airy_ai_row_f64() {
  return &bessel_row<double, bessel_other_lanes<1>>;
}

}  // namespace vec
}  // namespace mt
