// float32 lgamma and digamma computed in double, written once over GCC vector types for the AVX2 table (four
// double lanes) and the AVX-512 one (eight: the same operations, so the same bits); included only by
// vec/unary_impl.h, after avx2_math.h and avx512_math.h (their float64 log). The scalar functors run glibc's
// lgammaf and functors.h's digamma_double element by element, whose loop of up to ten divisions cannot be
// vectorized as it stands; here both take the same three steps for every lane at once:
// reflection for x < 0, the recurrence up to z >= 10 with the ten steps' product and reciprocal sum kept as
// one fraction (one division instead of ten), and the asymptotic series at z. Their constants are facts
// (Taylor and Bernoulli coefficients; scripts/fit_gamma32.py prints them with what each truncation leaves,
// all below 1e-16). Where the result is near a zero of the function, the terms cancel to the last bits of
// double: lgamma's lanes there take the C library's double lgamma, lane by lane; digamma's positive zero has
// a Taylor series of its own (see each function).
#pragma once

#include "kernels/cpu/vec/polygamma_lanes.h"  // polygamma_lanes_f32, trigamma_lanes_f64, sinpi_v

namespace {

// cos(pi r) for |r| <= 1/2 (r exact: x minus its nearest integer), its Taylor series to r^22 (sin(pi r) is
// polygamma_lanes.h's sinpi_v, to r^23), so cos(pi x) never takes a rounded pi x
template <typename V>
static inline V cospi_d(V r) {
  const V z = r * r;
  V p = V{} - 7.700707130601354e-11;
  p = p * z + 3.604730797462501e-09;
  p = p * z - 1.3878952462213771e-07;
  p = p * z + 4.303069587032947e-06;
  p = p * z - 0.0001046381049248457;
  p = p * z + 0.0019295743094039231;
  p = p * z - 0.02580689139001406;
  p = p * z + 0.2353306303588932;
  p = p * z - 1.3352627688545895;
  p = p * z + 4.0587121264167685;
  p = p * z - 4.934802200544679;
  return p * z + 1.0;
}

// The recurrence both functions share: z = z0 + c with c = ceil(10 - z0) steps (none from 10 up), den the
// product of the c values z0, z0 + 1, ... stepped over and, with kNum, num / den the sum of their
// reciprocals, so lgamma(z0) = lgamma(z) - log(den) and digamma(z0) = digamma(z) - num / den. The ten
// possible steps are taken as ten independent factors (1 where the lane takes fewer steps) multiplied as a
// tree, and the reciprocals added as fractions the same way: a loop carried ten multiplies in one chain and
// left it at an unpredictable branch. Every term is positive (no cancellation), and den stays between z0 9! /
// 10 and 20^10: no overflow or underflow for any float z0 > 0. z0 = inf takes no step; NaN flows through z.
template <typename V>
struct GammaShift {
  V z, num, den;
};
template <bool kNum, typename V>
static inline GammaShift<V> gamma_shift(V z0) {
  V c = LaneOps<V>::ceil(10.0 - z0);
  c = c > 0.0 ? c : 0.0;  // NaN: 0, as max(c, 0)
  V f[10], n[10];
  for (int k = 0; k < 10; ++k) {
    const auto step = double(k) < c;
    f[k] = step ? z0 + double(k) : 1.0;
    n[k] = step ? 1.0 : 0.0;
  }
  // pairs, then pairs of pairs: a / b + c / d = (a d + c b) / (b d)
  for (int w = 1; w < 10; w *= 2) {
    for (int k = 0; k + w < 10; k += 2 * w) {
      if (kNum) n[k] = n[k] * f[k + w] + n[k + w] * f[k];
      f[k] = f[k] * f[k + w];
    }
  }
  return {z0 + c, n[0], f[0]};
}

// the float64 log of each width: avx2_math.h's and its eight-lane twin (the same bits)
static inline __m256d gamma_log(__m256d x) {
  return log_avx2_f64(x);
}
#ifdef MT_VEC_AVX512
static inline __m512d gamma_log(__m512d x) {
  return log_avx512_f64(x);
}
#endif

// lgamma(x) for a float x in double. x > 0: Stirling's series at the shifted z, (z - 1/2) log z - z +
// log(2 pi) / 2 + sum B_2k / (2k (2k - 1) z^(2k-1)) to z^-15, minus log(den). x < 0: lgamma(x) = log(pi /
// |sin(pi x)|) - lgamma(1 - x), 1 - x exact, the two logs of the quotients folded into one, log(den pi /
// |sin(pi x)|). The terms reach ~15 for a result that is 0 at x = 1, 2 and at one point in each (-n - 1, -n)
// for n >= 2, so the double result has an absolute error near 1e-14: wherever it is below 2^-10 (relative
// error below 1e-11 elsewhere) the lane takes the C library's double lgamma instead. +-0, the negative
// integers and -inf give inf (C's lgamma), inf gives inf, NaN stays NaN.
template <typename V>
static inline V lgamma_d_for_f32(V x) {
  const auto neg = x < 0.0;
  const V z0 = neg ? 1.0 - x : x;
  const GammaShift<V> s = gamma_shift<false>(z0);
  const V q = 1.0 / s.z, q2 = q * q;
  V ser = V{} - 3617.0 / 122400;
  ser = ser * q2 + 1.0 / 156;
  ser = ser * q2 - 691.0 / 360360;
  ser = ser * q2 + 1.0 / 1188;
  ser = ser * q2 - 1.0 / 1680;
  ser = ser * q2 + 1.0 / 1260;
  ser = ser * q2 - 1.0 / 360;
  ser = ser * q2 + 1.0 / 12;
  const V stirling = (s.z - 0.5) * gamma_log(s.z) - s.z + 0.91893853320467274178 + ser * q;
  V w = s.den;
  if (LaneOps<V>::any(neg)) {
    const V sp = sinpi_v(x - LaneOps<V>::nearest(x));
    w = neg ? s.den * 3.141592653589793 / (sp < 0.0 ? -sp : sp) : w;
  }
  const V lw = gamma_log(w);
  V r = neg ? lw - stirling : stirling - lw;
  const auto near_zero = (r < 0x1p-10) & (r > -0x1p-10);
  if (LaneOps<V>::any(near_zero)) {
    for (int i = 0; i < int(sizeof(V) / sizeof(double)); ++i) {
      int sign;
      if (near_zero[i]) r[i] = __builtin_lgamma_r(x[i], &sign);
    }
  }
  const double inf = __builtin_inf();
  r = x == inf ? inf : r;
  return (x <= 0.0) & (x == LaneOps<V>::nearest(x)) ? inf : r;
}

// digamma(x) for a float x in double, the scalar functor's method (functors.h's digamma_double) with its
// steps in one fraction: x < 0 by reflection, digamma(1 - x) - pi cot(pi x); then digamma(z) - num / den with
// the asymptotic series log z - 1/(2z) - sum B_2k / (2k z^2k) to z^-14. Near its positive zero x0 = 1.4616...
// those terms (~2.3) cancel to a result of ~1e-8 for the floats nearest x0, so |x - x0| < 2^-10 takes the
// Taylor series at x0 to d^5, d = (x - x0_hi) - x0_lo (the first difference exact); the zeros of the negative
// axis keep the reflection's cancellation, as the scalar functor's. +0 gives -inf, -0 inf, the negative
// integers and -inf NaN (PyTorch's), inf inf, NaN stays NaN.
template <typename V>
static inline V digamma_d_for_f32(V x) {
  const auto neg = x < 0.0;
  const V z0 = neg ? 1.0 - x : x;
  const GammaShift<V> s = gamma_shift<true>(z0);
  const V q = 1.0 / s.z, q2 = q * q;
  V ser = V{} + 1.0 / 12;
  ser = 691.0 / 32760 - q2 * ser;
  ser = 1.0 / 132 - q2 * ser;
  ser = 1.0 / 240 - q2 * ser;
  ser = 1.0 / 252 - q2 * ser;
  ser = 1.0 / 120 - q2 * ser;
  ser = 1.0 / 12 - q2 * ser;
  V r = gamma_log(s.z) - 0.5 * q - q2 * ser - s.num / s.den;
  if (LaneOps<V>::any(neg)) {
    const V f = x - LaneOps<V>::nearest(x);
    r = neg ? r - 3.141592653589793 * cospi_d(f) / sinpi_v(f) : r;
  }
  const V d0 = x - 1.4616321449683622;
  const auto root = (d0 < 0x1p-10) & (d0 > -0x1p-10);
  if (LaneOps<V>::any(root)) {
    const V d = d0 - 9.549995429965697e-17;
    V p = V{} + 0.10782405069126237;
    p = p * d - 0.16394270544240652;
    p = p * d + 0.258499760955651;
    p = p * d - 0.4427631689835921;
    p = p * d + 0.9676722454476212;
    r = root ? p * d : r;
  }
  const double inf = __builtin_inf();
  r = (x < 0.0) & (x == LaneOps<V>::nearest(x)) ? __builtin_nan("") : r;
  r = x == 0.0 ? V{} + inf : r;
  // +-0: inf with the sign flipped (x's sign bit, inverted, XORed in)
  typedef long long VL __attribute__((vector_size(sizeof(V))));
  VL rb, xb;
  __builtin_memcpy(&rb, &r, sizeof(V));
  __builtin_memcpy(&xb, &x, sizeof(V));
  rb ^= ~xb & (VL{} + (1LL << 63));
  V flipped;
  __builtin_memcpy(&flipped, &rb, sizeof(V));
  return x == 0.0 ? flipped : r;
}

// f over each half of eight floats in double, rounded back to float once (f32_via_f64.h's split, here for
// both tables)
template <__m256d (*F)(__m256d)>
static inline __m256 gamma_f32_via_f64(__m256 x) {
  const __m128 rl = _mm256_cvtpd_ps(F(_mm256_cvtps_pd(_mm256_castps256_ps128(x))));
  const __m128 rh = _mm256_cvtpd_ps(F(_mm256_cvtps_pd(_mm256_extractf128_ps(x, 1))));
  return _mm256_insertf128_ps(_mm256_castps128_ps256(rl), rh, 1);
}
static inline __m256 lgamma_f32_own(__m256 x) {
  return gamma_f32_via_f64<lgamma_d_for_f32<__m256d>>(x);
}
static inline __m256 digamma_f32_own(__m256 x) {
  return gamma_f32_via_f64<digamma_d_for_f32<__m256d>>(x);
}
#ifdef MT_VEC_AVX512
// sixteen floats as two vectors of eight doubles
template <__m512d (*F)(__m512d)>
static inline __m512 gamma_f32_via_f64(__m512 x) {
  const __m256 rl = _mm512_cvtpd_ps(F(_mm512_cvtps_pd(_mm512_castps512_ps256(x))));
  const __m256 rh = _mm512_cvtpd_ps(F(_mm512_cvtps_pd(_mm512_extractf32x8_ps(x, 1))));
  return _mm512_insertf32x8(_mm512_castps256_ps512(rl), rh, 1);
}
static inline __m512 lgamma_f32_own(__m512 x) {
  return gamma_f32_via_f64<lgamma_d_for_f32<__m512d>>(x);
}
static inline __m512 digamma_f32_own(__m512 x) {
  return gamma_f32_via_f64<digamma_d_for_f32<__m512d>>(x);
}
#endif

// The polygamma row (VecUnary.h's PolygammaF): eight floats a step, the lanes it does not serve (non-finite,
// and x <= 0 for n >= 2, where the Hurwitz zeta is a direct sum) through `scalar` (the baseline-compiled
// functor: nothing compiled for AVX serves baseline code) lane by lane; the tail through a padded vector.
static inline __m256 polygamma_f32_8(__m256 x, const PolygammaCoefs& pc) {
  const __m256d lo = polygamma_lanes_f32_any(_mm256_cvtps_pd(_mm256_castps256_ps128(x)), pc);
  const __m256d hi = polygamma_lanes_f32_any(_mm256_cvtps_pd(_mm256_extractf128_ps(x, 1)), pc);
  return _mm256_insertf128_ps(_mm256_castps128_ps256(_mm256_cvtpd_ps(lo)), _mm256_cvtpd_ps(hi), 1);
}
static void polygamma_row_f32(float* out, const float* in, int64_t len, int n,
                              double (*scalar)(int, double)) {
  const PolygammaCoefs pc = polygamma_coefs(n);
  const __m256 inf = _mm256_set1_ps(__builtin_inff());
  auto step = [&](float* o, const float* p) {
    const __m256 x = _mm256_loadu_ps(p);
    const __m256 ax = _mm256_andnot_ps(_mm256_set1_ps(-0.0f), x);
    __m256 ok = _mm256_cmp_ps(ax, inf, _CMP_LT_OQ);  // finite, not NaN
    if (n > 1) ok = _mm256_and_ps(ok, _mm256_cmp_ps(x, _mm256_setzero_ps(), _CMP_GT_OQ));
    const int mask = _mm256_movemask_ps(ok);
    const __m256 r = polygamma_f32_8(_mm256_and_ps(x, ok), pc);  // the others computed at +0, then replaced
    float xs[8];
    _mm256_storeu_ps(xs, x);
    _mm256_storeu_ps(o, r);
    if (mask != 0xff)
      for (int j = 0; j < 8; ++j)
        if (!(mask >> j & 1)) o[j] = static_cast<float>(scalar(n, xs[j]));
  };
  int64_t i = 0;
  for (; i + 8 <= len; i += 8) step(out + i, in + i);
  if (i < len) {
    float buf[8] = {1, 1, 1, 1, 1, 1, 1, 1};
    for (int64_t j = 0; j < len - i; ++j) buf[j] = in[i + j];
    step(buf, buf);
    for (int64_t j = 0; j < len - i; ++j) out[i + j] = buf[j];
  }
}

// float64 polygamma(1, x), VecUnary.h's PolygammaD (order 1 only): polygamma_lanes.h's trigamma, four
// lanes a step, non-finite lanes through `scalar`
static void trigamma_row_f64(double* out, const double* in, int64_t len, int order,
                             double (*scalar)(int, double)) {
  polygamma_lanes_row<__m256d>(out, in, len, order, false, scalar,
                               [](__m256d v) { return trigamma_lanes_f64(v); });
}

}  // namespace
