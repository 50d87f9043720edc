// float32 pow for AVX2, computed in float64 with AVX-512's method (avx512_pow.h): the same tables,
// polynomials and operations in four double lanes, so the same bits as MINITORCH_CPU_CAPABILITY=avx512 for
// every pair, C99's special cases included. Included by vec/unary_impl.h for AVX2. The widths differ only
// in primitives that give equal results: the tables read by gathers (vpermt2pd on AVX-512), k from the high
// words (AVX2 has no 64-bit arithmetic shift), the clamp by min/max (vrangepd; they differ only for a NaN,
// which the special-case path replaces), the scaling by 2^floor(n/16) as an add to the exponent field
// (vscalefpd; exact on both, the results lie within 2^+-152), and the special cases by compares and blends
// (vfixupimmpd, vfpclassps). The previous AVX2 row (f32_via_f64.h's pow through a degree-9 log and a full
// exp2, accurate to double) cost 4.5 ns per float here, 1.8x PyTorch's SLEEF powf16 at AVX-512; this one
// 2.9-3.3 ns (four permutes and three blends per table read instead of a gather measured the same).
#pragma once
#include <immintrin.h>

#include "kernels/cpu/vec/exp64_table.h"     // kExp2jHi = 2^(j/16)
#include "kernels/cpu/vec/pow_f32_tables.h"  // kPowInvC, kPowLogC, the polynomials

namespace {

// log2 x for x > 0 finite (float subnormals are normal doubles), avx512_pow.h's log2_tab_f64
static inline __m256d pow_f32_log2_avx2(__m256d x) {
  const __m256i ix = _mm256_castpd_si256(x);
  const __m256i tmp = _mm256_sub_epi64(ix, _mm256_set1_epi64x(0x3FE6800000000000LL));
  const __m256i idx = _mm256_and_si256(_mm256_srli_epi64(tmp, 48), _mm256_set1_epi64x(15));
  // k = tmp >> 52 (arithmetic): each high word shifted by 20, the four gathered into int32 lanes
  const __m256i hw =
      _mm256_permutevar8x32_epi32(_mm256_srai_epi32(tmp, 20), _mm256_setr_epi32(1, 3, 5, 7, 1, 3, 5, 7));
  const __m256d k = _mm256_cvtepi32_pd(_mm256_castsi256_si128(hw));
  const __m256d z =
      _mm256_castsi256_pd(_mm256_sub_epi64(ix, _mm256_and_si256(tmp, _mm256_set1_epi64x(-(1LL << 52)))));
  const __m256d r = _mm256_fmsub_pd(z, _mm256_i64gather_pd(kPowInvC, idx, 8), _mm256_set1_pd(1.0));
  __m256d q = _mm256_fmadd_pd(_mm256_set1_pd(kPowLog2Q[0]), r, _mm256_set1_pd(kPowLog2Q[1]));
  q = _mm256_fmadd_pd(q, r, _mm256_set1_pd(kPowLog2Q[2]));
  q = _mm256_fmadd_pd(q, r, _mm256_set1_pd(kPowLog2Q[3]));
  q = _mm256_fmadd_pd(q, r, _mm256_set1_pd(kPowLog2Q[4]));
  q = _mm256_fmadd_pd(q, r, _mm256_set1_pd(kPowLog2Q[5]));
  return _mm256_fmadd_pd(r, q, _mm256_add_pd(k, _mm256_i64gather_pd(kPowLogC, idx, 8)));
}

// 4 lanes: 2^(y log2 x) for x > 0 finite (kSpecial: also x = +0, +inf and NaN: log2 x -> -inf, +inf, NaN,
// as vfixupimmpd gives; x = 1 gives log2 x = +0 exactly either way), avx512_pow.h's pow_f32_half
template <bool kSpecial>
static inline __m256d pow_f32_half_avx2(__m256d x, __m256d y) {
  __m256d l = pow_f32_log2_avx2(x);
  if (kSpecial) {
    const __m256d inf = _mm256_set1_pd(__builtin_inf());
    l = _mm256_blendv_pd(l, -inf, _mm256_cmp_pd(x, _mm256_setzero_pd(), _CMP_EQ_OQ));
    l = _mm256_blendv_pd(l, inf, _mm256_cmp_pd(x, inf, _CMP_EQ_OQ));
    l = _mm256_blendv_pd(l, x, _mm256_cmp_pd(x, x, _CMP_UNORD_Q));
  }
  // |w| clamped to 151 keeping its sign (min/max: vrangepd's result for every w but NaN, which clamps to 151
  // here and is replaced on the special-case path, as there)
  const __m256d w =
      _mm256_max_pd(_mm256_min_pd(_mm256_mul_pd(y, l), _mm256_set1_pd(151.0)), _mm256_set1_pd(-151.0));
  const __m256d shift = _mm256_set1_pd(422212465065984.0);  // 1.5 * 2^48
  const __m256d t = _mm256_add_pd(w, shift);
  const __m256d n16 = _mm256_sub_pd(t, shift);
  const __m256d s = _mm256_sub_pd(w, n16);
  __m256d p = _mm256_fmadd_pd(_mm256_set1_pd(kPowExp2P[0]), s, _mm256_set1_pd(kPowExp2P[1]));
  p = _mm256_fmadd_pd(p, s, _mm256_set1_pd(kPowExp2P[2]));
  p = _mm256_fmadd_pd(p, s, _mm256_set1_pd(kPowExp2P[3]));
  const __m256i ti = _mm256_castpd_si256(t);
  const __m256d tj = _mm256_i64gather_pd(kExp2jHi, _mm256_and_si256(ti, _mm256_set1_epi64x(15)), 8);
  const __m256d e = _mm256_fmadd_pd(_mm256_mul_pd(tj, s), p, tj);
  // times 2^floor(n/16): m = 16 n/16 is t's mantissa less the shift's, floor(m / 16) into the exponent field
  // (a logical shift: the bits it gets wrong are those the shift by 52 drops). e is in [0.97, 2), so the
  // result is a normal double (2^+-152 at most) and the add exact, as vscalefpd's product.
  const __m256i m = _mm256_sub_epi64(ti, _mm256_castpd_si256(shift));
  return _mm256_castsi256_pd(
      _mm256_add_epi64(_mm256_castpd_si256(e), _mm256_slli_epi64(_mm256_srli_epi64(m, 4), 52)));
}

template <bool kSpecial>
static inline __m256 pow_f32_core_avx2(__m256 x, __m256 y) {
  const __m128 lo = _mm256_cvtpd_ps(pow_f32_half_avx2<kSpecial>(_mm256_cvtps_pd(_mm256_castps256_ps128(x)),
                                                                _mm256_cvtps_pd(_mm256_castps256_ps128(y))));
  const __m128 hi = _mm256_cvtpd_ps(pow_f32_half_avx2<kSpecial>(
      _mm256_cvtps_pd(_mm256_extractf128_ps(x, 1)), _mm256_cvtps_pd(_mm256_extractf128_ps(y, 1))));
  return _mm256_insertf128_ps(_mm256_castps128_ps256(lo), hi, 1);
}

// C99's special cases, avx512_pow.h's pow_avx512_special step by step: |x|^y, the sign for x < 0 (-0 and
// -inf included) and odd integer y, NaN for finite x < 0 and finite non-integer y, NaN in -> NaN out (x + y),
// and 1 for y = +-0, x = 1 and x = -1 with y = +-inf
static __m256 pow_avx2_special(__m256 x, __m256 y) {
  const __m256 sign = _mm256_set1_ps(-0.0f), one = _mm256_set1_ps(1.0f),
               inf = _mm256_set1_ps(__builtin_inff());
  const __m256 ax = _mm256_andnot_ps(sign, x);
  __m256 res = pow_f32_core_avx2<true>(ax, y);
  const __m256 yr = _mm256_round_ps(y, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  const __m256 yint = _mm256_cmp_ps(yr, y, _CMP_EQ_OQ);
  const __m256 yh = _mm256_mul_ps(y, _mm256_set1_ps(0.5f));
  const __m256 yodd = _mm256_and_ps(
      yint,
      _mm256_cmp_ps(_mm256_round_ps(yh, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC), yh, _CMP_NEQ_UQ));
  res = _mm256_xor_ps(res, _mm256_and_ps(_mm256_and_ps(x, sign), yodd));
  const __m256 negfin = _mm256_and_ps(_mm256_cmp_ps(x, _mm256_setzero_ps(), _CMP_LT_OQ),
                                      _mm256_cmp_ps(x, _mm256_sub_ps(_mm256_setzero_ps(), inf), _CMP_GT_OQ));
  res = _mm256_blendv_ps(res, _mm256_set1_ps(__builtin_nanf("")),
                         _mm256_and_ps(negfin, _mm256_cmp_ps(yr, y, _CMP_NEQ_OQ)));
  res = _mm256_blendv_ps(res, _mm256_add_ps(x, y),
                         _mm256_or_ps(_mm256_cmp_ps(x, x, _CMP_UNORD_Q), _mm256_cmp_ps(y, y, _CMP_UNORD_Q)));
  const __m256 unit = _mm256_or_ps(
      _mm256_or_ps(_mm256_cmp_ps(y, _mm256_setzero_ps(), _CMP_EQ_OQ), _mm256_cmp_ps(x, one, _CMP_EQ_OQ)),
      _mm256_and_ps(_mm256_cmp_ps(_mm256_andnot_ps(sign, y), inf, _CMP_EQ_OQ),
                    _mm256_cmp_ps(ax, one, _CMP_EQ_OQ)));
  return _mm256_blendv_ps(res, one, unit);
}

// float32 pow(x, y) with C99's special cases; the fast path needs every x positive and finite (subnormals
// fine) and every y finite
static inline __m256 pow_avx2(__m256 x, __m256 y) {
  const __m256 inf = _mm256_set1_ps(__builtin_inff());
  const __m256 ok = _mm256_and_ps(
      _mm256_and_ps(_mm256_cmp_ps(x, _mm256_setzero_ps(), _CMP_GT_OQ), _mm256_cmp_ps(x, inf, _CMP_LT_OQ)),
      _mm256_cmp_ps(_mm256_andnot_ps(_mm256_set1_ps(-0.0f), y), inf, _CMP_LT_OQ));
  if (__builtin_expect(_mm256_movemask_ps(ok) == 0xff, 1)) return pow_f32_core_avx2<false>(x, y);
  return pow_avx2_special(x, y);
}

}  // namespace
