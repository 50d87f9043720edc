// float32 pow for AVX-512, computed in float64 (included only by vec/unary_avx512.cpp). SLEEF 3.5.1's
// powf16_u10, which PyTorch's wheel calls too, works in float double-float arithmetic and costs 2.8x this
// (0.87 vs 2.49 ns per element on 10k floats, one core of the build machine; 2.7x at 1M). Each __m512 is
// split into two __m512d; there |x|^y = 2^(y log2|x|) with log2 and exp2 from 16-entry tables (vpermt2pd, no
// gathers) and short polynomials, and the one rounding that counts is the final vcvtpd2ps. log2 is good to
// 2^-38 relative and exp2 to 2^-38.5, so y log2|x| is off by < 2^-30 wherever the result is finite, and the
// float result is within 0.5 ulp + 0.01. Measured against powl (a C harness, 20M pairs per set): 0.5002 ulp
// with x log-uniform over all positive floats and |y| <= 30, and over x in [0.5, 2], |y| <= 200; 0.5048 at
// the worst place, x near 1 with y log2 x near 128 (y up to 1e6); 0.502 on subnormal results and near
// overflow (SLEEF: 0.79 on the same sets). Overflow, underflow and subnormal results fall out of the final
// conversion (2^-151 .. 2^151 are normal doubles); subnormal x are normal doubles too. Tables and
// polynomials: scripts/fit_pow_tables.py. C99's special cases (x or y 0, inf, NaN, x = +-1, x < 0) take a
// slow path, chosen by two vfpclassps and one kortest, so the common case (x > 0 finite, y finite) pays
// nothing for them; it matched glibc's powf bit for bit on every pair of 57 special and ordinary values, in
// each lane of an otherwise ordinary vector (tests/ops/elementwise/test_vec_pow_softplus.py keeps a grid of
// them). Needs -mavx512f -mavx512dq (vfpclassps, vrangepd, vcvtqq2pd) -mfma.
#pragma once
#include <immintrin.h>

#include <cstdint>

#include "kernels/cpu/vec/avx512_math.h"     // lut16, kExp2jHi = 2^(j/16)
#include "kernels/cpu/vec/pow_f32_tables.h"  // kPowInvC, kPowLogC, the polynomials

namespace {

// log2 x for x > 0 finite and normal, to 2^-38 relative (relative to itself near x = 1 too: see above); x =
// 1 gives +0 exactly. pow_f32_half's and atanh_f32_half's.
static inline __m512d log2_tab_f64(__m512d x) {
  const __m512i ix = _mm512_castpd_si512(x);
  const __m512i tmp = _mm512_sub_epi64(ix, _mm512_set1_epi64(0x3FE6800000000000LL));
  const __m512i idx = _mm512_srli_epi64(tmp, 48);
  const __m512d k = _mm512_cvtepi64_pd(_mm512_srai_epi64(tmp, 52));
  const __m512d z =
      _mm512_castsi512_pd(_mm512_sub_epi64(ix, _mm512_and_si512(tmp, _mm512_set1_epi64(-(1LL << 52)))));
  const __m512d r = _mm512_fmsub_pd(z, lut16(idx, kPowInvC), _mm512_set1_pd(1.0));
  // log2(1 + r) / r, degree 5 on [-0.0295, 0.0313]: relative error 2^-38.1 (fit_pow_tables.py, Lawson
  // minimax)
  __m512d q = _mm512_fmadd_pd(_mm512_set1_pd(kPowLog2Q[0]), r, _mm512_set1_pd(kPowLog2Q[1]));
  q = _mm512_fmadd_pd(q, r, _mm512_set1_pd(kPowLog2Q[2]));
  q = _mm512_fmadd_pd(q, r, _mm512_set1_pd(kPowLog2Q[3]));
  q = _mm512_fmadd_pd(q, r, _mm512_set1_pd(kPowLog2Q[4]));
  q = _mm512_fmadd_pd(q, r, _mm512_set1_pd(kPowLog2Q[5]));
  // log2 x = k + log2 c + r q(r): k + log2 c is exact or |k| >= 1 (then the sum's rounding is 2^-53 of it)
  return _mm512_fmadd_pd(r, q, _mm512_add_pd(k, lut16(idx, kPowLogC)));
}

// 8 lanes: 2^(y log2 x) for x > 0 finite (kSpecial: also x = +0, +inf and NaN, through vfixupimmpd on
// log2 x: 0 -> -inf, +inf -> +inf, NaN -> NaN; x = 1 gives log2 x = +0 exactly either way). The result is
// a double that the caller rounds to float.
template <bool kSpecial>
static inline __m512d pow_f32_half(__m512d x, __m512d y) {
  __m512d l = log2_tab_f64(x);
  // classes of x QNaN, SNaN, 0, +1, -inf, +inf, negative, positive -> NaN, NaN, -inf, +0, keep, +inf, keep,
  // keep (x is |x| here)
  if (kSpecial) l = _mm512_fixupimm_pd(l, x, _mm512_set1_epi64(0x00508422), 0);
  // w = y log2 x, |w| clamped to 151 keeping its sign (vrangepd: min of magnitudes, sign of w): 2^+-151 are
  // inf / 0 as floats, and the clamp keeps the rounding shift below valid. +-inf clamps to +-151; a NaN w
  // does not survive vrangepd (the slow path restores NaN).
  const __m512d w = _mm512_range_pd(_mm512_mul_pd(y, l), _mm512_set1_pd(151.0), 0x02);
  // w = n/16 + s, |s| <= 1/32: adding 1.5 * 2^48 rounds w to a multiple of 1/16, so t's low mantissa bits
  // are n mod 16 (the table index) and t - shift = n/16 exactly; s = w - n/16 is exact
  const __m512d shift = _mm512_set1_pd(422212465065984.0);
  const __m512d t = _mm512_add_pd(w, shift);
  const __m512d n16 = _mm512_sub_pd(t, shift);
  const __m512d s = _mm512_sub_pd(w, n16);
  // (2^s - 1) / s, degree 3 on [-1/32, 1/32]: 1 + s p(s) is within 2^-38.5 of 2^s (fit_pow_tables.py)
  __m512d p = _mm512_fmadd_pd(_mm512_set1_pd(kPowExp2P[0]), s, _mm512_set1_pd(kPowExp2P[1]));
  p = _mm512_fmadd_pd(p, s, _mm512_set1_pd(kPowExp2P[2]));
  p = _mm512_fmadd_pd(p, s, _mm512_set1_pd(kPowExp2P[3]));
  const __m512d tj = lut16(_mm512_castpd_si512(t), kExp2jHi);
  const __m512d e = _mm512_fmadd_pd(_mm512_mul_pd(tj, s), p, tj);
  return _mm512_scalef_pd(e, n16);  // times 2^floor(n/16)
}

// float32 atanh through double: |a| < 2^-10 by a + a^3/3 (the next term is a^4/5 < 2^-42 of a; -0 and tiny a
// give a), above it (ln2/2) log2 q, q = (1 + |a|) / (1 - |a|) (numerator and denominator exact in double, the
// quotient off by 2^-53: 2^-44 of log2 q at |a| = 2^-10) by pow's table log2 (log2_tab_f64, 2^-38 relative,
// no division: a log series on q took a second one); +-1 give +-inf, |a| > 1 and NaN give NaN. One rounding
// to float at the end: 0.50003 ulp against long double over 2.8M floats.
static inline __m512d atanh_f32_half(__m512d a) {
  const __m512d sign = _mm512_set1_pd(-0.0), one = _mm512_set1_pd(1.0);
  const __m512d ax = _mm512_andnot_pd(sign, a);
  const __m512d series = _mm512_fmadd_pd(_mm512_mul_pd(a, a), _mm512_mul_pd(a, _mm512_set1_pd(1.0 / 3)), a);
  const __mmask8 big = _mm512_cmp_pd_mask(ax, _mm512_set1_pd(0.0009765625), _CMP_GE_OQ);
  if (!big) return series;
  // lanes at or beyond 1 (and NaN) are fixed below; 1 - |a| kept positive and normal for them
  const __mmask8 inside = _mm512_cmp_pd_mask(ax, one, _CMP_LT_OQ);
  const __m512d q =
      _mm512_div_pd(_mm512_add_pd(one, ax), _mm512_mask_blend_pd(inside, one, _mm512_sub_pd(one, ax)));
  const __m512d l = _mm512_mul_pd(log2_tab_f64(q), _mm512_set1_pd(0.34657359027997264));  // ln2 / 2
  __m512d r = _mm512_mask_mov_pd(series, big, _mm512_or_pd(l, _mm512_and_pd(sign, a)));
  const __mmask8 at_one = _mm512_cmp_pd_mask(ax, one, _CMP_EQ_OQ);
  r = _mm512_mask_mov_pd(r, at_one, _mm512_or_pd(_mm512_set1_pd(__builtin_inf()), _mm512_and_pd(sign, a)));
  const __mmask8 beyond = _mm512_cmp_pd_mask(ax, one, _CMP_GT_OQ) | _mm512_cmp_pd_mask(a, a, _CMP_UNORD_Q);
  return _mm512_mask_mov_pd(r, beyond, _mm512_set1_pd(__builtin_nan("")));
}
static inline __m512 atanh_avx512(__m512 x) {
  const __m512d lo = atanh_f32_half(_mm512_cvtps_pd(_mm512_castps512_ps256(x)));
  const __m512d hi = atanh_f32_half(_mm512_cvtps_pd(_mm512_extractf32x8_ps(x, 1)));
  return _mm512_insertf32x8(_mm512_castps256_ps512(_mm512_cvtpd_ps(lo)), _mm512_cvtpd_ps(hi), 1);
}

template <bool kSpecial>
static inline __m512 pow_f32_core(__m512 x, __m512 y) {
  const __m512d lo = pow_f32_half<kSpecial>(_mm512_cvtps_pd(_mm512_castps512_ps256(x)),
                                            _mm512_cvtps_pd(_mm512_castps512_ps256(y)));
  const __m512d hi = pow_f32_half<kSpecial>(_mm512_cvtps_pd(_mm512_extractf32x8_ps(x, 1)),
                                            _mm512_cvtps_pd(_mm512_extractf32x8_ps(y, 1)));
  return _mm512_insertf32x8(_mm512_castps256_ps512(_mm512_cvtpd_ps(lo)), _mm512_cvtpd_ps(hi), 1);
}

// The lanes C99 (F.10.4.4) defines apart: |x|^y first (x = 0, inf, NaN through pow_f32_half's fixup, y =
// +-inf through the clamp: |x| < 1 gives w = -+inf, |x| > 1 w = +-inf), then the sign for x < 0 (-0 and
// -inf included) and odd integer y, NaN for finite x < 0 and finite non-integer y, and 1 for y = +-0 (any x,
// NaN too), x = 1 (any y, NaN too) and x = -1, y = +-inf (the lanes where w is 0 * inf).
static __m512 pow_avx512_special(__m512 x, __m512 y) {
  const __m512 sign = _mm512_set1_ps(-0.0f);
  const __m512 ax = _mm512_andnot_ps(sign, x);
  __m512 res = pow_f32_core<true>(ax, y);
  // y integer: round(y) == y (+-inf too, NaN not); odd: y/2 not an integer (|y| >= 2^24 is even)
  const __mmask16 yint = _mm512_cmp_ps_mask(
      _mm512_roundscale_ps(y, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC), y, _CMP_EQ_OQ);
  const __m512 yh = _mm512_mul_ps(y, _mm512_set1_ps(0.5f));
  const __mmask16 yodd = _mm512_mask_cmp_ps_mask(
      yint, _mm512_roundscale_ps(yh, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC), yh, _CMP_NEQ_UQ);
  const __mmask16 xneg = _mm512_test_epi32_mask(_mm512_castps_si512(x), _mm512_castps_si512(sign));
  res = _mm512_mask_xor_ps(res, xneg & yodd, res, sign);
  // finite x < 0 (vfpclassps 0x40: negative finite non-zero, subnormals included) and finite y not an
  // integer (y NaN compares unordered: not flagged, res is NaN already)
  const __mmask16 bad = _mm512_mask_cmp_ps_mask(
      _mm512_fpclass_ps_mask(x, 0x40), _mm512_roundscale_ps(y, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC),
      y, _CMP_NEQ_OQ);
  res = _mm512_mask_mov_ps(res, bad, _mm512_set1_ps(__builtin_nanf("")));
  // NaN in, NaN out (x + y: quiet, a payload of either), save for the 1s below
  res = _mm512_mask_add_ps(res, _mm512_fpclass_ps_mask(x, 0x81) | _mm512_fpclass_ps_mask(y, 0x81), x, y);
  const __m512 one = _mm512_set1_ps(1.0f);
  const __mmask16 unit = _mm512_cmp_ps_mask(y, _mm512_setzero_ps(), _CMP_EQ_OQ) |
                         _mm512_cmp_ps_mask(x, one, _CMP_EQ_OQ) |
                         _mm512_mask_cmp_ps_mask(_mm512_fpclass_ps_mask(y, 0x18), ax, one, _CMP_EQ_OQ);
  return _mm512_mask_mov_ps(res, unit, one);
}

// float32 pow(x, y) with C99's special cases. The fast path needs every x positive and finite (subnormals
// fine) and every y finite: vfpclassps 0xDF (QNaN, +-0, +-inf, negative, SNaN) on x, 0x99 (NaN, +-inf) on y.
static inline __m512 pow_avx512(__m512 x, __m512 y) {
  const __mmask16 special = _mm512_fpclass_ps_mask(x, 0xDF) | _mm512_fpclass_ps_mask(y, 0x99);
  if (__builtin_expect(special == 0, 1)) return pow_f32_core<false>(x, y);
  return pow_avx512_special(x, y);
}

}  // namespace
