// Our own AVX2 kernels that work in their own precision: float64 exp and tanh (and through them sigmoid, silu
// and the tanh gelu), the AVX-512 kernels' methods (avx512_math.h) without vpermt2pd, vscalefpd and vrcp14pd
// (without SLEEF these ran the C library element by element, R 0.3-0.46 beside PyTorch's MKL), and float32
// exp in float (f32_via_f64.h's went through double, half the lanes per instruction). Included only by
// vec/unary_impl.h for AVX2 (static functions).
#pragma once
#include <immintrin.h>

#include "kernels/cpu/vec/exp64_table.h"

namespace {

// expm1(r) for |r| <= ln2/32: r + r^2 P(r), the minimax P of avx512_math.h's expm1_core_f64 (2^-56.3)
static inline __m256d expm1_core_avx2(__m256d r) {
  const __m256d r2 = _mm256_mul_pd(r, r);
  const __m256d a =
      _mm256_fmadd_pd(_mm256_set1_pd(0.16666666664408963), r, _mm256_set1_pd(0.499999999999996));
  __m256d b = _mm256_fmadd_pd(_mm256_set1_pd(0.008333472198074194), r, _mm256_set1_pd(0.04166666669335754));
  b = _mm256_fmadd_pd(_mm256_set1_pd(0.0013888593456387894), r2, b);
  return _mm256_fmadd_pd(_mm256_fmadd_pd(b, r2, a), r2, r);
}

// The reduction both float64 kernels share: x = k ln2 + r with k a multiple of 1/16 (the 1.5 * 2^48 shift
// rounds x / ln2 to one; 16 k is the low bits of t's mantissa, read as t's bits minus the shift's), |r| <=
// ln2/32, and exp(x) = 2^floor(k) T[j] (1 + q) with q = expm1(r), j = 16 k mod 16, T = 2^(j/16) as hi + lo.
struct ExpParts {
  __m256i m;      // 16 k
  __m256d q, th;  // expm1(r), T_hi[j]
  __m256i j;
};
static inline ExpParts exp_parts_avx2(__m256d x) {
  const __m256d shift = _mm256_set1_pd(422212465065984.0);  // 1.5 * 2^48
  const __m256d t = _mm256_fmadd_pd(x, _mm256_set1_pd(1.4426950408889634), shift);
  const __m256d k = _mm256_sub_pd(t, shift);
  const __m256d rh = _mm256_fnmadd_pd(k, _mm256_set1_pd(0.6931471805599453), x);
  const __m256d r = _mm256_fnmadd_pd(k, _mm256_set1_pd(2.3190468138462996e-17), rh);
  ExpParts p;
  p.m = _mm256_sub_epi64(_mm256_castpd_si256(t), _mm256_castpd_si256(shift));
  p.j = _mm256_and_si256(p.m, _mm256_set1_epi64x(15));
  p.q = expm1_core_avx2(r);
  p.th = _mm256_i64gather_pd(kExp2jHi, p.j, 8);
  return p;
}
// T_hi q + T_lo: the part of T (1 + q) below T_hi
static inline __m256d exp_low_avx2(const ExpParts& p) {
  return _mm256_fmadd_pd(p.th, p.q, _mm256_i64gather_pd(kExp2jLo, p.j, 8));
}

// float64 exp: exp(x) = 2^n T[j] (1 + expm1(r)) with n = floor(k) (exp_parts_avx2), T = 2^(j/16) as hi + lo
// (two gathers), summed T_hi + (T_hi q + T_lo). 2^n is
// applied as two exact powers of two 2^(n/2) 2^(n - n/2), both normal for |n| <= 1076: the first product is
// exact, the second rounds once (gradual underflow, overflow to inf), as vscalefpd does. x is clamped to
// [-746, 746]; a NaN fails both comparisons and flows through. The same arithmetic as the AVX-512 kernel up
// to the scaling, so the same bound: 0.65 ulp on normal results, 0.81 on subnormal ones; exp(0) = 1 exactly.
static inline __m256d exp_avx2_f64(__m256d x) {
  x = _mm256_blendv_pd(x, _mm256_set1_pd(746.0), _mm256_cmp_pd(x, _mm256_set1_pd(746.0), _CMP_GT_OQ));
  x = _mm256_blendv_pd(x, _mm256_set1_pd(-746.0), _mm256_cmp_pd(x, _mm256_set1_pd(-746.0), _CMP_LT_OQ));
  const ExpParts e = exp_parts_avx2(x);
  const __m256i m = e.m;
  const __m256d s = _mm256_add_pd(e.th, exp_low_avx2(e));
  // n = floor(k) = m >> 4 (arithmetic: AVX2 has none for 64-bit lanes, so bias m to non-negative first)
  const __m256i bias = _mm256_set1_epi64x(1 << 20);  // 16 * 65536, a multiple of 16 above 16 * 1076
  const __m256i n =
      _mm256_sub_epi64(_mm256_srli_epi64(_mm256_add_epi64(m, bias), 4), _mm256_set1_epi64x(65536));
  const __m256i n1 = _mm256_sub_epi64(_mm256_srli_epi64(_mm256_add_epi64(n, _mm256_set1_epi64x(2048)), 1),
                                      _mm256_set1_epi64x(1024));  // floor(n / 2)
  const __m256i n2 = _mm256_sub_epi64(n, n1);
  const __m256d p1 =
      _mm256_castsi256_pd(_mm256_slli_epi64(_mm256_add_epi64(n1, _mm256_set1_epi64x(1023)), 52));
  const __m256d p2 =
      _mm256_castsi256_pd(_mm256_slli_epi64(_mm256_add_epi64(n2, _mm256_set1_epi64x(1023)), 52));
  return _mm256_mul_pd(_mm256_mul_pd(s, p1), p2);
}

// float32 exp in float: x = n ln2 + r, n = rint(x / ln2) by the 1.5 * 2^23 shift, |r| <= ln2/2. Without a
// table r is not small, so its rounding would cost up to 0.45 ulp of the result (a first version measured
// 0.96): x - n ln2_hi is exact (ln2_hi has 13 bits; the difference is a multiple of x's spacing or 2^-17 and
// smaller than x), r = that - n ln2_lo rounded, and c = what r's rounding lost (one exact subtraction), so
// r + c is x - n ln2 to 2^-35. expm1(r + c) = r + (r^2 Q(r) + c (1 + r)), Q of degree 5 (float coefficients
// of a weighted least-squares fit for the error relative to exp(r), 0.008 float ulp:
// scripts/fit_exp32_poly.py), and 1 + r is summed exactly (Fast2Sum: hi + e) so s = hi + (e + the rest)
// rounds once. Then 2^n as two exact powers of two (2^(n/2) 2^(n - n/2)): the first product is exact, the
// second rounds once on subnormal results, where s's own rounding is at most 1/4 of their spacing. x is
// clamped to [-104, 89] (0 and inf beyond); NaN fails both comparisons and flows through.
static inline __m256 exp_avx2_f32(__m256 x) {
  x = _mm256_blendv_ps(x, _mm256_set1_ps(89.0f), _mm256_cmp_ps(x, _mm256_set1_ps(89.0f), _CMP_GT_OQ));
  x = _mm256_blendv_ps(x, _mm256_set1_ps(-104.0f), _mm256_cmp_ps(x, _mm256_set1_ps(-104.0f), _CMP_LT_OQ));
  const __m256 shift = _mm256_set1_ps(12582912.0f);  // 1.5 * 2^23
  const __m256 t = _mm256_fmadd_ps(x, _mm256_set1_ps(1.44269504f), shift);
  const __m256 n = _mm256_sub_ps(t, shift);
  const __m256 rh = _mm256_fnmadd_ps(n, _mm256_set1_ps(0.693145752f), x);  // exact
  const __m256 rl = _mm256_mul_ps(n, _mm256_set1_ps(1.42860677e-06f));
  const __m256 r = _mm256_sub_ps(rh, rl);
  const __m256 c = _mm256_sub_ps(_mm256_sub_ps(rh, r), rl);
  __m256 q =
      _mm256_fmadd_ps(_mm256_set1_ps(0.0001960371300810948f), r, _mm256_set1_ps(0.0013939772034063935f));
  q = _mm256_fmadd_ps(q, r, _mm256_set1_ps(0.008333847858011723f));
  q = _mm256_fmadd_ps(q, r, _mm256_set1_ps(0.041666384786367416f));
  q = _mm256_fmadd_ps(q, r, _mm256_set1_ps(0.166666641831398f));
  q = _mm256_fmadd_ps(q, r, _mm256_set1_ps(0.5f));
  const __m256 one = _mm256_set1_ps(1.0f);
  const __m256 rest = _mm256_fmadd_ps(_mm256_mul_ps(r, r), q, _mm256_fmadd_ps(c, r, c));
  const __m256 hi = _mm256_add_ps(one, r);
  const __m256 e = _mm256_add_ps(_mm256_sub_ps(one, hi), r);  // exact: |1| >= |r|
  const __m256 s = _mm256_add_ps(hi, _mm256_add_ps(e, rest));
  const __m256i ni = _mm256_sub_epi32(_mm256_castps_si256(t), _mm256_castps_si256(shift));  // n
  const __m256i n1 = _mm256_srai_epi32(ni, 1), n2 = _mm256_sub_epi32(ni, n1);
  const __m256 p1 = _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(n1, _mm256_set1_epi32(127)), 23));
  const __m256 p2 = _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(n2, _mm256_set1_epi32(127)), 23));
  return _mm256_mul_ps(_mm256_mul_ps(s, p1), p2);
}

// float64 tanh, tanh_avx512_f64's two formulas (see there for the error analysis) selected per lane:
// |x| < 0.3: x + x^3 S(x^2); above: a = min(|x|, 20), E = exp(2a) = E_hi + E_lo unrounded, D = E + 1,
// tanh a = 1 - 2 / D as (1 - j') - (y - j') with j' = 2h rounded to the 2^-52 grid through s2 = 2 - 2h. Here
// h = 1 / D is a correctly rounded division instead of vrcp14pd and a Newton step (2^-28): the analysis
// needs only the latter. x's sign ORed in at the end (keeps -0; NaN goes to the polynomial and stays).
static inline __m256d tanh_avx2_f64(__m256d x) {
  const __m256d z = _mm256_mul_pd(x, x);
  __m256d p =
      _mm256_fmadd_pd(_mm256_set1_pd(0.0005023824217636129), z, _mm256_set1_pd(-0.0014416308133473848));
  p = _mm256_fmadd_pd(p, z, _mm256_set1_pd(0.0035908705930366943));
  p = _mm256_fmadd_pd(p, z, _mm256_set1_pd(-0.008863170538283791));
  p = _mm256_fmadd_pd(p, z, _mm256_set1_pd(0.02186948657230532));
  p = _mm256_fmadd_pd(p, z, _mm256_set1_pd(-0.05396825393536205));
  p = _mm256_fmadd_pd(p, z, _mm256_set1_pd(0.13333333333306657));
  p = _mm256_fmadd_pd(p, z, _mm256_set1_pd(-0.3333333333333326));
  const __m256d small = _mm256_fmadd_pd(_mm256_mul_pd(x, z), p, x);
  const __m256d sign = _mm256_set1_pd(-0.0);
  // min returns its second operand, 20, for a NaN: that lane takes the polynomial below anyway
  const __m256d a = _mm256_min_pd(_mm256_andnot_pd(sign, x), _mm256_set1_pd(20.0));
  // E = exp(2a): 2a is exact, so 2a / ln2 rounds as a (2 / ln2) did
  const ExpParts e = exp_parts_avx2(_mm256_add_pd(a, a));
  // 2^floor(k), k in [0, 58] (16 k >= 0): one normal power of two, so both products are exact
  const __m256d pk = _mm256_castsi256_pd(
      _mm256_slli_epi64(_mm256_add_epi64(_mm256_srli_epi64(e.m, 4), _mm256_set1_epi64x(1023)), 52));
  const __m256d eh = _mm256_mul_pd(e.th, pk);
  const __m256d el = _mm256_mul_pd(exp_low_avx2(e), pk);
  const __m256d one = _mm256_set1_pd(1.0), two = _mm256_set1_pd(2.0);
  const __m256d d = _mm256_add_pd(_mm256_add_pd(eh, one), el);  // D rounded
  const __m256d h = _mm256_div_pd(one, d);
  const __m256d s2 = _mm256_fnmadd_pd(two, h, two);  // 2 - y0 on the 2^-52 grid
  const __m256d jq = _mm256_sub_pd(two, s2);         // j', exact
  __m256d e2 = _mm256_fnmadd_pd(jq, eh, s2);         // 2 - j' D
  e2 = _mm256_fnmadd_pd(jq, el, e2);
  const __m256d big = _mm256_fnmadd_pd(h, e2, _mm256_sub_pd(s2, one));  // (1 - j') - (y - j')
  const __m256d res = _mm256_blendv_pd(big, small, _mm256_cmp_pd(z, _mm256_set1_pd(0.09), _CMP_NGE_UQ));
  return _mm256_or_pd(res, _mm256_and_pd(x, sign));
}

}  // namespace
