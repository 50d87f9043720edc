// Our own AVX2 kernels that work in their own precision: float64 exp and tanh (and through them sigmoid, silu
// and the tanh gelu), the AVX-512 kernels' methods (avx512_math.h) without vpermt2pd, vscalefpd and vrcp14pd
// (without SLEEF these ran the C library element by element, R 0.3-0.46 beside PyTorch's MKL), and float32
// exp in float (f32_via_f64.h's went through double, half the lanes per instruction); further down fdlibm's
// methods for float64 log/log1p/sin/cos/tan/asin/acos/erf/atan and, on exp's and log's pieces,
// exp2/expm1/cosh/sinh and log2/log10 (float32 sinh/cosh run through them in double). Included only by
// vec/unary_impl.h (static functions): for AVX2, and for AVX-512, which runs some of them over each half of
// its vectors.
#pragma once
#include <immintrin.h>

#include "kernels/cpu/vec/exp64_table.h"
#include "kernels/cpu/vec/f64_series.h"  // erfinv_avx2_f64's start

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
// kTaylor: q by expm1's Taylor series to r^8 instead (truncation (ln2/32)^9 / 9! = 2^-68), for expm1, cosh
// and sinh, whose results can be a quarter of exp's: the minimax P's 2^-56.3 of q would cost them 0.3 ulp
template <bool kTaylor = false>
static inline ExpParts exp_parts_avx2(__m256d x) {
  const __m256d shift = _mm256_set1_pd(422212465065984.0);  // 1.5 * 2^48
  const __m256d t = _mm256_fmadd_pd(x, _mm256_set1_pd(1.4426950408889634), shift);
  const __m256d k = _mm256_sub_pd(t, shift);
  const __m256d rh = _mm256_fnmadd_pd(k, _mm256_set1_pd(0.6931471805599453), x);
  const __m256d r = _mm256_fnmadd_pd(k, _mm256_set1_pd(2.3190468138462996e-17), rh);
  ExpParts p;
  p.m = _mm256_sub_epi64(_mm256_castpd_si256(t), _mm256_castpd_si256(shift));
  p.j = _mm256_and_si256(p.m, _mm256_set1_epi64x(15));
  if (kTaylor) {
    __m256d c = _mm256_set1_pd(1.0 / 40320);
    const double cs[] = {1.0 / 5040, 1.0 / 720, 1.0 / 120, 1.0 / 24, 1.0 / 6, 0.5};
    for (double ci : cs) c = _mm256_fmadd_pd(c, r, _mm256_set1_pd(ci));
    p.q = _mm256_fmadd_pd(_mm256_mul_pd(r, r), c, r);
  } else {
    p.q = expm1_core_avx2(r);
  }
  p.th = _mm256_i64gather_pd(kExp2jHi, p.j, 8);
  return p;
}
// T_hi q + T_lo: the part of T (1 + q) below T_hi
static inline __m256d exp_low_avx2(const ExpParts& p) {
  return _mm256_fmadd_pd(p.th, p.q, _mm256_i64gather_pd(kExp2jLo, p.j, 8));
}

// s 2^n for n = floor(m / 16), |n| <= 1076: exp_avx2_f64's scaling (below), which exp2, cosh and sinh share
static inline __m256d scale_by_m_avx2(__m256d s, __m256i m) {
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
// float64 exp: exp(x) = 2^n T[j] (1 + expm1(r)) with n = floor(k) (exp_parts_avx2), T = 2^(j/16) as hi + lo
// (two gathers), summed T_hi + (T_hi q + T_lo). 2^n is
// applied as two exact powers of two 2^(n/2) 2^(n - n/2), both normal for |n| <= 1076: the first product is
// exact, the second rounds once (gradual underflow, overflow to inf), as vscalefpd does. x is clamped to
// [-746, 746]; a NaN fails both comparisons and flows through. The same arithmetic as the AVX-512 kernel up
// to the scaling, so the same bound: 0.65 ulp on normal results, 0.81 on subnormal ones; exp(0) = 1 exactly.
// kHalf: exp(x) / 2 rounded once (the power of two one lower), cosh's and sinh's large arguments.
template <bool kHalf = false>
static inline __m256d exp_avx2_f64(__m256d x) {
  x = _mm256_blendv_pd(x, _mm256_set1_pd(746.0), _mm256_cmp_pd(x, _mm256_set1_pd(746.0), _CMP_GT_OQ));
  x = _mm256_blendv_pd(x, _mm256_set1_pd(-746.0), _mm256_cmp_pd(x, _mm256_set1_pd(-746.0), _CMP_LT_OQ));
  const ExpParts e = exp_parts_avx2(x);
  const __m256d s = _mm256_add_pd(e.th, exp_low_avx2(e));
  return scale_by_m_avx2(s, kHalf ? _mm256_sub_epi64(e.m, _mm256_set1_epi64x(16)) : e.m);
}

// float32 exp in float: x = n ln2 + r, n = rint(x / ln2) by the 1.5 * 2^23 shift, |r| <= ln2/2. Without a
// table r is not small, so its rounding would cost up to 0.45 ulp of the result: x - n ln2_hi is exact
// (ln2_hi has 13 bits; the difference is a multiple of x's spacing or 2^-17 and smaller than x), r = that - n
// ln2_lo rounded, and c = what r's rounding lost (one exact subtraction), so r + c is x - n ln2 to 2^-35.
// expm1(r + c) = r + (r^2 Q(r) + c (1 + r)), Q of degree 5 (float coefficients of a weighted least-squares
// fit for the error relative to exp(r), 0.008 float ulp: scripts/fit_exp32_poly.py), and 1 + r is summed
// exactly (Fast2Sum: hi + e) so s = hi + (e + the rest) rounds once. Then 2^n as two exact powers of two
// (2^(n/2) 2^(n - n/2)): the first product is exact, the second rounds once on subnormal results, where s's
// own rounding is at most 1/4 of their spacing. x is clamped to [-104, 89] (0 and inf beyond); NaN fails both
// comparisons and flows through.
// exp_avx2_f32 from its reduction on: exp_s_avx2_f32 gives s = 1 + expm1(r + c) rounded once from the reduced
// argument r + c (|r| <= ln2/2), exp_finish_avx2_f32 then 2^n from t = shift + n (n's integer in its low
// bits); exp2_avx2_f32 shares both
static inline __m256 exp_s_avx2_f32(__m256 r, __m256 c) {
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
  return _mm256_add_ps(hi, _mm256_add_ps(e, rest));
}
static inline __m256 exp_finish_avx2_f32(__m256 t, __m256 r, __m256 c) {
  const __m256 shift = _mm256_set1_ps(12582912.0f);  // 1.5 * 2^23
  const __m256 s = exp_s_avx2_f32(r, c);
  const __m256i ni = _mm256_sub_epi32(_mm256_castps_si256(t), _mm256_castps_si256(shift));  // n
  const __m256i n1 = _mm256_srai_epi32(ni, 1), n2 = _mm256_sub_epi32(ni, n1);
  const __m256 p1 = _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(n1, _mm256_set1_epi32(127)), 23));
  const __m256 p2 = _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(n2, _mm256_set1_epi32(127)), 23));
  return _mm256_mul_ps(_mm256_mul_ps(s, p1), p2);
}
static inline __m256 exp_avx2_f32(__m256 x) {
  // min/max return their second operand, x, when it is NaN: the clamp in two instructions, NaN kept
  x = _mm256_max_ps(_mm256_set1_ps(-104.0f), _mm256_min_ps(_mm256_set1_ps(89.0f), x));
  const __m256 shift = _mm256_set1_ps(12582912.0f);  // 1.5 * 2^23
  const __m256 t = _mm256_fmadd_ps(x, _mm256_set1_ps(1.44269504f), shift);
  const __m256 n = _mm256_sub_ps(t, shift);
  const __m256 rh = _mm256_fnmadd_ps(n, _mm256_set1_ps(0.693145752f), x);  // exact
  const __m256 rl = _mm256_mul_ps(n, _mm256_set1_ps(1.42860677e-06f));
  const __m256 r = _mm256_sub_ps(rh, rl);
  const __m256 c = _mm256_sub_ps(_mm256_sub_ps(rh, r), rl);
  return exp_finish_avx2_f32(t, r, c);
}
// float32 exp2 in float, exp_avx2_f32's polynomial and scaling: x = n + u, n = rint(x) by the shift, u = x -
// n exact (|u| <= 1/2), u ln2 = r + c with r = u ln2_hi rounded and c what that lost (an FMA) plus u ln2_lo,
// so r + c is u ln2 to ~2^-47 and |r| <= ln2/2, exp's range. x clamped to [-151, 129] (0 and inf beyond, n/2
// and n - n/2 both normal exponents); NaN flows through. The double-lane form (f32_via_f64.h) ran at 0.16
// of PyTorch's speed.
// exp2_avx2_f32's reduction from t = x + shift: u ln2 as r + c
static inline void exp2_reduce_avx2_f32(__m256 x, __m256 t, __m256& r, __m256& c) {
  const __m256 u = _mm256_sub_ps(x, _mm256_sub_ps(t, _mm256_set1_ps(12582912.0f)));
  const __m256 ln2_hi = _mm256_set1_ps(0.693147182f);
  r = _mm256_mul_ps(u, ln2_hi);
  c = _mm256_fmadd_ps(u, _mm256_set1_ps(-1.9046542121259336e-09f), _mm256_fmsub_ps(u, ln2_hi, r));
}
static inline __m256 exp2_clamped_avx2_f32(__m256 x) {
  x = _mm256_max_ps(_mm256_set1_ps(-151.0f), _mm256_min_ps(_mm256_set1_ps(129.0f), x));  // NaN kept
  const __m256 t = _mm256_add_ps(x, _mm256_set1_ps(12582912.0f));                        // 1.5 * 2^23
  __m256 r, c;
  exp2_reduce_avx2_f32(x, t, r, c);
  return exp_finish_avx2_f32(t, r, c);
}
// Where every lane's n is in [-125, 127] (a normal result: s in [2^-1/2, 2^1/2]) 2^n is added to s's exponent
// bits, the same bits as the two products; the clamp, and the products' handling of subnormal results,
// overflow, inf and NaN (whose n falls outside, as does any x past 2^22), only for the vectors that need them
// (1.2x the speed of always taking them).
static inline __m256 exp2_avx2_f32(__m256 x) {
  const __m256 shift = _mm256_set1_ps(12582912.0f);  // 1.5 * 2^23
  const __m256 t = _mm256_add_ps(x, shift);
  const __m256i ni = _mm256_sub_epi32(_mm256_castps_si256(t), _mm256_castps_si256(shift));  // n
  const __m256i out = _mm256_cmpgt_epi32(_mm256_abs_epi32(_mm256_sub_epi32(ni, _mm256_set1_epi32(1))),
                                         _mm256_set1_epi32(126));  // n outside [-125, 127]
  if (!_mm256_testz_si256(out, out)) return exp2_clamped_avx2_f32(x);
  __m256 r, c;
  exp2_reduce_avx2_f32(x, t, r, c);
  const __m256 s = exp_s_avx2_f32(r, c);
  return _mm256_castsi256_ps(_mm256_add_epi32(_mm256_castps_si256(s), _mm256_slli_epi32(ni, 23)));
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

// ---- float64 log, log1p, sin and cos (AVX2 without SLEEF ran the C library lane by lane: R 0.2-0.64 beside
// PyTorch). The methods are fdlibm's (e_log.c/s_log1p.c, k_sin.c/k_cos.c, their coefficients), each under 1
// ulp, evaluated for four lanes at once with the branches turned into selects.

// the int64 lanes k (|k| < 2^51) as doubles: AVX2 has no vcvtqq2pd, so through the 1.5 * 2^52 shift
static inline __m256d i64_to_f64_avx2(__m256i k) {
  const __m256d shift = _mm256_set1_pd(6755399441055744.0);
  return _mm256_sub_pd(_mm256_castsi256_pd(_mm256_add_epi64(k, _mm256_castpd_si256(shift))), shift);
}

// log(1 + f) + c + k ln2 for m = 1 + f in [sqrt(1/2), sqrt(2)): s = f / (2 + f), log(1 + f) = 2 atanh(s) =
// f - (f^2/2 - s (f^2/2 + R(s^2))) with fdlibm's minimax R (|error| < 2^-58.45); k ln2 as ln2_hi (the low
// 32 bits zero, so k ln2_hi is exact for |k| < 2^21) + ln2_lo, and c the caller's correction term.
static inline __m256d log1p_core_avx2(__m256d f, __m256d k, __m256d c) {
  const __m256d s = _mm256_div_pd(f, _mm256_add_pd(_mm256_set1_pd(2.0), f));
  const __m256d z = _mm256_mul_pd(s, s);
  __m256d R =
      _mm256_fmadd_pd(_mm256_set1_pd(1.479819860511658591e-01), z, _mm256_set1_pd(1.531383769920937332e-01));
  R = _mm256_fmadd_pd(R, z, _mm256_set1_pd(1.818357216161805012e-01));
  R = _mm256_fmadd_pd(R, z, _mm256_set1_pd(2.222219843214978396e-01));
  R = _mm256_fmadd_pd(R, z, _mm256_set1_pd(2.857142874366239149e-01));
  R = _mm256_fmadd_pd(R, z, _mm256_set1_pd(3.999999999940941908e-01));
  R = _mm256_fmadd_pd(R, z, _mm256_set1_pd(6.666666666666735130e-01));
  R = _mm256_mul_pd(R, z);
  const __m256d hfsq = _mm256_mul_pd(_mm256_mul_pd(_mm256_set1_pd(0.5), f), f);
  const __m256d lo = _mm256_fmadd_pd(k, _mm256_set1_pd(1.90821492927058770002e-10), c);
  const __m256d t = _mm256_fmadd_pd(s, _mm256_add_pd(hfsq, R), lo);
  return _mm256_sub_pd(_mm256_mul_pd(k, _mm256_set1_pd(6.93147180369123816490e-01)),
                       _mm256_sub_pd(_mm256_sub_pd(hfsq, t), f));
}

// u > 0 finite and normal as 2^k m, m in [sqrt(1/2), sqrt(2)) (fdlibm's split: the mantissa's high bits
// decide whether m takes exponent 0 or -1); returns m, sets k
static inline __m256d split_log_avx2(__m256d u, __m256i& k) {
  const __m256i b = _mm256_castpd_si256(u);
  const __m256i mant = _mm256_and_si256(b, _mm256_set1_epi64x(0x000fffffffffffffLL));
  const __m256i i = _mm256_and_si256(_mm256_add_epi64(mant, _mm256_set1_epi64x(0x00095f6400000000LL)),
                                     _mm256_set1_epi64x(0x0010000000000000LL));
  k = _mm256_sub_epi64(_mm256_add_epi64(_mm256_srli_epi64(b, 52), _mm256_srli_epi64(i, 52)),
                       _mm256_set1_epi64x(1023));
  return _mm256_castsi256_pd(
      _mm256_or_si256(mant, _mm256_xor_si256(i, _mm256_set1_epi64x(0x3ff0000000000000LL))));
}

// float64 log: subnormal x scaled by 2^54 first; 0 -> -inf, x < 0 and NaN -> NaN, inf -> inf
static inline __m256d log_avx2_f64(__m256d x) {
  const __m256d tiny = _mm256_cmp_pd(x, _mm256_set1_pd(2.2250738585072014e-308), _CMP_LT_OQ);
  const __m256d xs = _mm256_blendv_pd(x, _mm256_mul_pd(x, _mm256_set1_pd(18014398509481984.0)), tiny);
  __m256i ki;
  const __m256d m = split_log_avx2(xs, ki);
  const __m256d k = _mm256_sub_pd(i64_to_f64_avx2(ki), _mm256_and_pd(tiny, _mm256_set1_pd(54.0)));
  __m256d r = log1p_core_avx2(_mm256_sub_pd(m, _mm256_set1_pd(1.0)), k, _mm256_setzero_pd());
  const __m256d inf = _mm256_set1_pd(__builtin_inf());
  r = _mm256_blendv_pd(r, inf, _mm256_cmp_pd(x, inf, _CMP_EQ_OQ));
  r = _mm256_blendv_pd(r, _mm256_set1_pd(-__builtin_inf()),
                       _mm256_cmp_pd(x, _mm256_setzero_pd(), _CMP_EQ_OQ));
  // x < 0 or NaN: NaN
  return _mm256_blendv_pd(r, _mm256_set1_pd(__builtin_nan("")),
                          _mm256_cmp_pd(x, _mm256_setzero_pd(), _CMP_NGE_UQ));
}

// log_avx2_f64 of a normal x > 0 (not inf): without the selects for subnormal, zero, infinite, negative and
// NaN x, which erfinv's (1 - a)(1 + a) >= 2^-53 never is; the same bits
static inline __m256d log_avx2_f64_normal(__m256d x) {
  __m256i ki;
  const __m256d m = split_log_avx2(x, ki);
  return log1p_core_avx2(_mm256_sub_pd(m, _mm256_set1_pd(1.0)), i64_to_f64_avx2(ki), _mm256_setzero_pd());
}

// float64 log1p, s_log1p.c's method: u = 1 + x rounded; where u's split has k = 0 (u in [sqrt(1/2),
// sqrt(2))) f = x itself (no rounding), else f = m - 1 and c = (x - (u - 1)) / u puts back what the rounding
// of 1 + x lost (u - 1 is exact for u < 2, 1 - (u - x) above). Tiny x gives x (-0 included); -1 -> -inf,
// x < -1 and NaN -> NaN, inf -> inf.
static inline __m256d log1p_avx2_f64(__m256d x) {
  const __m256d one = _mm256_set1_pd(1.0);
  const __m256d u = _mm256_add_pd(one, x);
  __m256i ki;
  const __m256d m = split_log_avx2(u, ki);
  const __m256d k = i64_to_f64_avx2(ki);
  const __m256d k0 = _mm256_cmp_pd(k, _mm256_setzero_pd(), _CMP_EQ_OQ);
  const __m256d kpos = _mm256_cmp_pd(u, _mm256_set1_pd(2.0), _CMP_GE_OQ);  // u's own exponent > 0
  const __m256d cnum = _mm256_blendv_pd(_mm256_sub_pd(x, _mm256_sub_pd(u, one)),
                                        _mm256_sub_pd(one, _mm256_sub_pd(u, x)), kpos);
  const __m256d c = _mm256_andnot_pd(k0, _mm256_div_pd(cnum, u));
  const __m256d f = _mm256_blendv_pd(_mm256_sub_pd(m, one), x, k0);
  __m256d r = log1p_core_avx2(f, k, c);
  const __m256d inf = _mm256_set1_pd(__builtin_inf());
  r = _mm256_blendv_pd(r, inf, _mm256_cmp_pd(x, inf, _CMP_EQ_OQ));
  r = _mm256_blendv_pd(r, _mm256_set1_pd(-__builtin_inf()),
                       _mm256_cmp_pd(x, _mm256_set1_pd(-1.0), _CMP_EQ_OQ));
  r = _mm256_blendv_pd(r, _mm256_set1_pd(__builtin_nan("")),
                       _mm256_cmp_pd(x, _mm256_set1_pd(-1.0), _CMP_NGE_UQ));  // x < -1 or NaN
  const __m256d ax = _mm256_andnot_pd(_mm256_set1_pd(-0.0), x);
  return _mm256_blendv_pd(r, x, _mm256_cmp_pd(ax, _mm256_set1_pd(0x1p-54), _CMP_LT_OQ));
}

// float64 atanh: 0.5 log(q), q = (1 + a) / (1 - a), a = |x|, with q carried as qh + ql to ~2^-100: 1 + a and
// 1 - a as exact sums (Fast2Sum: 1 >= a), qh = (1 + a) / (1 - a) through one reciprocal, and ql from the FMA
// remainder of qh (1 - a) against 1 + a, so the quotient's rounding never reaches the result (the log1p form
// measured 1.47 ulp: its argument rounds). log(qh + ql) = log(qh) + ql / qh is log's split of qh (qh - 1 in
// the mantissa exact) with ql / qh as log1p_core_avx2's correction term, fdlibm's bound (under 1 ulp). Below
// 2^-28 the result is a (a^3 / 3 is under 2^-56 of it); the sign ORed back (-0 kept); +-1 gives +-inf, |x|
// > 1 and NaN give NaN.
static inline __m256d atanh_avx2_f64(__m256d x) {
  const __m256d sign = _mm256_and_pd(x, _mm256_set1_pd(-0.0));
  const __m256d ax = _mm256_andnot_pd(_mm256_set1_pd(-0.0), x);
  const __m256d one = _mm256_set1_pd(1.0);
  const __m256d ok = _mm256_cmp_pd(ax, one, _CMP_LT_OQ);
  const __m256d a = _mm256_and_pd(ax, ok);  // 0 in the lanes the end replaces
  const __m256d nh = _mm256_add_pd(one, a);
  const __m256d nl = _mm256_sub_pd(a, _mm256_sub_pd(nh, one));  // 1 + a = nh + nl
  const __m256d dh = _mm256_sub_pd(one, a);
  const __m256d dl = _mm256_sub_pd(_mm256_sub_pd(one, dh), a);  // 1 - a = dh + dl
  const __m256d inv = _mm256_div_pd(one, dh);
  const __m256d qh = _mm256_mul_pd(nh, inv);
  // (nh + nl - qh (dh + dl)) / (1 - a): the remainder of qh's rounding, to first order in its ulp
  const __m256d rem = _mm256_add_pd(_mm256_fnmadd_pd(qh, dh, nh), _mm256_fnmadd_pd(qh, dl, nl));
  const __m256d ql = _mm256_mul_pd(rem, inv);
  __m256i ki;
  const __m256d m = split_log_avx2(qh, ki);
  const __m256d k = i64_to_f64_avx2(ki);
  const __m256d r = log1p_core_avx2(_mm256_sub_pd(m, one), k, _mm256_div_pd(ql, qh));
  __m256d res = _mm256_mul_pd(_mm256_set1_pd(0.5), r);
  res = _mm256_blendv_pd(res, a, _mm256_cmp_pd(a, _mm256_set1_pd(0x1p-28), _CMP_LT_OQ));
  const __m256d edge = _mm256_blendv_pd(_mm256_set1_pd(__builtin_nan("")), _mm256_set1_pd(__builtin_inf()),
                                        _mm256_cmp_pd(ax, one, _CMP_EQ_OQ));
  return _mm256_or_pd(_mm256_blendv_pd(edge, res, ok), sign);
}

// sin and cos of x - n pi/2 given as the unevaluated sum x + y, |x + y| <= pi/4 (k_sin.c, k_cos.c: minimax
// polynomials, under 1 ulp with the reduction below). cos for |x| >= 0.3 subtracts qx (|x|/4 cut to its high
// 32 bits, or 0.28125 above 0.78125) from both halves so 1 - qx is exact; below 0.3 qx = 0, fdlibm's first
// formula.
static inline __m256d ksin_avx2(__m256d x, __m256d y) {
  const __m256d z = _mm256_mul_pd(x, x);
  const __m256d v = _mm256_mul_pd(z, x);
  __m256d r = _mm256_fmadd_pd(_mm256_set1_pd(1.58969099521155010221e-10), z,
                              _mm256_set1_pd(-2.50507602534068634195e-08));
  r = _mm256_fmadd_pd(r, z, _mm256_set1_pd(2.75573137070700676789e-06));
  r = _mm256_fmadd_pd(r, z, _mm256_set1_pd(-1.98412698298579493134e-04));
  r = _mm256_fmadd_pd(r, z, _mm256_set1_pd(8.33333333332248946124e-03));
  // x - ((z (y/2 - v r) - y) - v S1)
  const __m256d inner = _mm256_fnmadd_pd(v, r, _mm256_mul_pd(_mm256_set1_pd(0.5), y));
  const __m256d w = _mm256_fmsub_pd(z, inner, y);
  return _mm256_sub_pd(x, _mm256_fnmadd_pd(v, _mm256_set1_pd(-1.66666666666666324348e-01), w));
}
static inline __m256d kcos_avx2(__m256d x, __m256d y) {
  const __m256d z = _mm256_mul_pd(x, x);
  __m256d r = _mm256_fmadd_pd(_mm256_set1_pd(-1.13596475577881948265e-11), z,
                              _mm256_set1_pd(2.08757232129817482790e-09));
  r = _mm256_fmadd_pd(r, z, _mm256_set1_pd(-2.75573143513906633035e-07));
  r = _mm256_fmadd_pd(r, z, _mm256_set1_pd(2.48015872894767294178e-05));
  r = _mm256_fmadd_pd(r, z, _mm256_set1_pd(-1.38888888888741095749e-03));
  r = _mm256_fmadd_pd(r, z, _mm256_set1_pd(4.16666666666666019037e-02));
  r = _mm256_mul_pd(r, z);
  const __m256d ax = _mm256_andnot_pd(_mm256_set1_pd(-0.0), x);
  __m256d qx = _mm256_castsi256_pd(
      _mm256_and_si256(_mm256_sub_epi64(_mm256_castpd_si256(ax), _mm256_set1_epi64x(0x0020000000000000LL)),
                       _mm256_set1_epi64x(static_cast<long long>(0xffffffff00000000ULL))));
  qx = _mm256_blendv_pd(qx, _mm256_set1_pd(0.28125), _mm256_cmp_pd(ax, _mm256_set1_pd(0.78125), _CMP_GT_OQ));
  qx = _mm256_andnot_pd(_mm256_cmp_pd(ax, _mm256_set1_pd(0.3), _CMP_LT_OQ), qx);
  const __m256d hz = _mm256_fmsub_pd(_mm256_set1_pd(0.5), z, qx);
  const __m256d a = _mm256_sub_pd(_mm256_set1_pd(1.0), qx);
  // a - (hz - (z r - x y))
  return _mm256_sub_pd(a, _mm256_sub_pd(hz, _mm256_fmsub_pd(z, r, _mm256_mul_pd(x, y))));
}

// |x| up to this: n = rint(x 2/pi) < 2^20 and the reduction below keeps its precision; lanes beyond (and inf,
// NaN) take the C library's sin/cos, lane by lane
constexpr double kSinCosReduceMax = 1647099.0;  // 2^20 pi/2

// float64 sin (kCos false) or cos: x = n pi/2 + (r + rr) with pi/2 as P1 + P2 + P3 (P1 the double nearest
// pi/2): x - n P1 is exact in one FMA (|n| < 2^20, and both are multiples of 2^-53 below 2), n P2 is split
// exactly by an FMA and subtracted with TwoSum, n P3 folded into the tail; then the kernel of quadrant n mod
// 4. The pieces left out are below 2^-100 relative to r over this range. |x| < 2^-26 gives sin x = x (-0
// kept), cos x = 1 through the kernels.
// x = n pi/2 + (rh + rl) as described below (|x| <= kSinCosReduceMax); returns n's low bits
static inline __m256i reduce_pio2_avx2(__m256d x, __m256d& rh, __m256d& rl) {
  const __m256d shift = _mm256_set1_pd(6755399441055744.0);  // 1.5 * 2^52
  const __m256d t = _mm256_fmadd_pd(x, _mm256_set1_pd(0.6366197723675814), shift);
  const __m256d n = _mm256_sub_pd(t, shift);
  const __m256d a = _mm256_fnmadd_pd(n, _mm256_set1_pd(1.5707963267948966), x);
  const __m256d p2 = _mm256_set1_pd(6.123233995736766e-17);
  const __m256d b = _mm256_mul_pd(n, p2);
  const __m256d bl = _mm256_fmsub_pd(n, p2, b);
  const __m256d r = _mm256_sub_pd(a, b);  // TwoSum(a, -b): rerr is what r's rounding lost
  const __m256d bv = _mm256_sub_pd(r, a);
  const __m256d av = _mm256_sub_pd(r, bv);
  const __m256d rerr = _mm256_sub_pd(_mm256_sub_pd(a, av), _mm256_add_pd(b, bv));
  const __m256d tail = _mm256_fnmadd_pd(n, _mm256_set1_pd(-1.4973849048591698e-33), _mm256_sub_pd(rerr, bl));
  rh = _mm256_add_pd(r, tail);
  rl = _mm256_sub_pd(tail, _mm256_sub_pd(rh, r));
  return _mm256_castpd_si256(t);
}

template <bool kCos>
static inline __m256d sincos_avx2_f64(__m256d x) {
  __m256d rh, rl;
  const __m256i q = reduce_pio2_avx2(x, rh, rl);
  const __m256d s = ksin_avx2(rh, rl), c = kcos_avx2(rh, rl);
  // quadrant: sin takes s, c, -s, -c for n mod 4 = 0..3; cos c, -s, -c, s (= sin of quadrant n + 1)
  const __m256i qq = kCos ? _mm256_add_epi64(q, _mm256_set1_epi64x(1)) : q;
  const __m256d odd = _mm256_castsi256_pd(_mm256_slli_epi64(qq, 63));  // sign bit = bit 0
  const __m256d neg = _mm256_castsi256_pd(_mm256_slli_epi64(_mm256_srli_epi64(qq, 1), 63));  // bit 1
  __m256d res = _mm256_blendv_pd(s, c, odd);
  res = _mm256_xor_pd(res, neg);
  if (!kCos) {
    const __m256d ax = _mm256_andnot_pd(_mm256_set1_pd(-0.0), x);
    res = _mm256_blendv_pd(res, x, _mm256_cmp_pd(ax, _mm256_set1_pd(0x1p-26), _CMP_LT_OQ));
  }
  return res;
}
// the lanes the reduction serves, as a select mask (false for inf and NaN too)
static inline __m256d sincos_f64_in_range_avx2(__m256d x) {
  const __m256d ax = _mm256_andnot_pd(_mm256_set1_pd(-0.0), x);
  return _mm256_cmp_pd(ax, _mm256_set1_pd(kSinCosReduceMax), _CMP_LE_OQ);
}

// Horner's rule over coefficients c[0] + c[1] t + ... (highest last)
template <size_t N>
static inline __m256d horner_avx2(__m256d t, const double (&c)[N]) {
  __m256d r = _mm256_set1_pd(c[N - 1]);
  for (size_t i = N - 1; i-- > 0;) r = _mm256_fmadd_pd(r, t, _mm256_set1_pd(c[i]));
  return r;
}

// float64 tan: sin's reduction, then k_tan.c's kernel on x + y (|x + y| <= pi/4; under 1 ulp): an odd
// polynomial in x, its 13 coefficients split odd/even for two Horner chains; from |x| = 0.6744 on, tan is
// taken at pi/4 - |x| (the identity tan(pi/4 - u) = (1 - tan u) / (1 + tan u), folded as k_tan.c does), and
// for an odd quadrant -1 / tan, its division carried with a split quotient so it keeps the accuracy. |x| <
// 2^-27 is x itself (-0 kept). The caller serves the lanes beyond kSinCosReduceMax.
static inline __m256d tan_avx2_f64(__m256d x0) {
  __m256d x, y;
  const __m256i q = reduce_pio2_avx2(x0, x, y);
  const __m256d sign = _mm256_set1_pd(-0.0), one = _mm256_set1_pd(1.0);
  const __m256d odd = _mm256_castsi256_pd(_mm256_slli_epi64(q, 63));  // all of the sign bit: n odd
  const __m256d iy = _mm256_blendv_pd(one, _mm256_set1_pd(-1.0), odd);
  const __m256d xneg = _mm256_and_pd(x, sign);
  const __m256d big =
      _mm256_cmp_pd(_mm256_andnot_pd(sign, x), _mm256_set1_pd(0.6743354797363281), _CMP_GE_OQ);
  {
    // |x| >= 0.6744: x = (pi/4 - |x|) + (pio4lo - y |sign|), y = 0
    const __m256d ax = _mm256_xor_pd(x, xneg), ay = _mm256_xor_pd(y, xneg);
    const __m256d z = _mm256_sub_pd(_mm256_set1_pd(7.85398163397448278999e-01), ax);
    const __m256d w = _mm256_sub_pd(_mm256_set1_pd(3.06161699786838301793e-17), ay);
    x = _mm256_blendv_pd(x, _mm256_add_pd(z, w), big);
    y = _mm256_andnot_pd(big, y);
  }
  static constexpr double odd_t[] = {1.33333333333201242699e-01, 2.18694882948595424599e-02,
                                     3.59207910759131235356e-03, 5.88041240820264096874e-04,
                                     7.81794442939557092300e-05, -1.85586374855275456654e-05};
  static constexpr double even_t[] = {5.39682539762260521377e-02, 8.86323982359930005737e-03,
                                      1.45620945432529025516e-03, 2.46463134818469906812e-04,
                                      7.14072491382608190305e-05, 2.59073051863633712884e-05};
  const __m256d z = _mm256_mul_pd(x, x);
  const __m256d w2 = _mm256_mul_pd(z, z);
  __m256d r = horner_avx2(w2, odd_t);
  const __m256d v = _mm256_mul_pd(z, horner_avx2(w2, even_t));
  const __m256d s = _mm256_mul_pd(z, x);
  // r = y + z (s (r + v) + y) + T0 s
  r = _mm256_fmadd_pd(z, _mm256_fmadd_pd(s, _mm256_add_pd(r, v), y), y);
  r = _mm256_fmadd_pd(_mm256_set1_pd(3.33333333333334091986e-01), s, r);
  const __m256d w = _mm256_add_pd(x, r);
  // |x| >= 0.6744 (0x3fe59428): sign(x) (iy - 2 (x - (w^2 / (w + iy) - r)))
  __m256d rb = _mm256_div_pd(_mm256_mul_pd(w, w), _mm256_add_pd(w, iy));
  rb = _mm256_fnmadd_pd(_mm256_set1_pd(2.0), _mm256_sub_pd(x, _mm256_sub_pd(rb, r)), iy);
  rb = _mm256_xor_pd(rb, xneg);
  // an odd quadrant below 0.6744: -1 / (x + r) = t + a (1 + t zh + t v) with t = a cut to 26 bits and
  // zh + v = x + r exactly
  const __m256d hi_mask =
      _mm256_castsi256_pd(_mm256_set1_epi64x(static_cast<long long>(0xffffffff00000000ULL)));
  const __m256d zh = _mm256_and_pd(w, hi_mask);
  const __m256d vv = _mm256_sub_pd(r, _mm256_sub_pd(zh, x));
  const __m256d a = _mm256_div_pd(_mm256_set1_pd(-1.0), w);
  const __m256d t = _mm256_and_pd(a, hi_mask);
  const __m256d ss = _mm256_fmadd_pd(t, zh, one);
  const __m256d ro = _mm256_fmadd_pd(a, _mm256_fmadd_pd(t, vv, ss), t);
  __m256d res = _mm256_blendv_pd(w, ro, odd);
  res = _mm256_blendv_pd(res, rb, big);
  const __m256d tiny = _mm256_cmp_pd(_mm256_andnot_pd(sign, x0), _mm256_set1_pd(0x1p-27), _CMP_LT_OQ);
  return _mm256_blendv_pd(res, x0, tiny);
}

// float64 erf, s_erf.c's method and coefficients (under 1 ulp there) in four pieces of |x|: below 0.84375
// x + x P(x^2)/Q(x^2) (below 2^-28 x + x efx, scaled by 8 so subnormal x keep their bits); to 1.25 erx +
// P(s)/Q(s), s = |x| - 1; to 6 1 - r/|x|, r = exp((-z^2 - 0.5625) + ((z - |x|)(z + |x|) +
// R(1/x^2)/S(1/x^2))), z = |x| cut to its high 32 bits so -z^2 - 0.5625 is exact. s_erf.c takes two exps to
// keep that sum unrounded; here it rounds once and one exp (ours, 0.65 ulp) takes it: r's relative error,
// under 2^-51 for |x| < 6, moves 1 - r/|x| by under 0.2 ulp as r/|x| < 0.08. Beyond 6, 1. Each piece is
// computed only when a lane needs it; the sign is put back at the end.
// s_erf.c's coefficients, which erf_avx2_f64 and erfc_avx2_f64 share
static constexpr double kErfPP[] = {1.28379167095512558561e-01, -3.25042107247001499370e-01,
                                    -2.84817495755985104766e-02, -5.77027029648944159157e-03,
                                    -2.37630166566501626084e-05};
static constexpr double kErfQQ[] = {1.0,
                                    3.97917223959155352819e-01,
                                    6.50222499887672944485e-02,
                                    5.08130628187576562776e-03,
                                    1.32494738004321644526e-04,
                                    -3.96022827877536812320e-06};
static constexpr double kErfPA[] = {-2.36211856075265944077e-03, 4.14856118683748331666e-01,
                                    -3.72207876035701323847e-01, 3.18346619901161753674e-01,
                                    -1.10894694282396677476e-01, 3.54783043256182359371e-02,
                                    -2.16637559486879084300e-03};
static constexpr double kErfQA[] = {1.0,
                                    1.06420880400844228286e-01,
                                    5.40397917702171048937e-01,
                                    7.18286544141962662868e-02,
                                    1.26171219808761642112e-01,
                                    1.36370839120290507362e-02,
                                    1.19844998467991074170e-02};
static constexpr double kErfRA[] = {-9.86494403484714822705e-03, -6.93858572707181764372e-01,
                                    -1.05586262253232909814e+01, -6.23753324503260060396e+01,
                                    -1.62396669462573470355e+02, -1.84605092906711035994e+02,
                                    -8.12874355063065934246e+01, -9.81432934416914548592e+00};
static constexpr double kErfSA[] = {1.0,
                                    1.96512716674392571292e+01,
                                    1.37657754143519042600e+02,
                                    4.34565877475229228821e+02,
                                    6.45387271733267880336e+02,
                                    4.29008140027567833386e+02,
                                    1.08635005541779435134e+02,
                                    6.57024977031928170135e+00,
                                    -6.04244152148580987438e-02};
static constexpr double kErfRB[] = {-9.86494292470009928597e-03, -7.99283237680523006574e-01,
                                    -1.77579549177547519889e+01, -1.60636384855821916062e+02,
                                    -6.37566443368389627722e+02, -1.02509513161107724954e+03,
                                    -4.83519191608651397019e+02};
static constexpr double kErfSB[] = {1.0,
                                    3.03380607434824582924e+01,
                                    3.25792512996573918826e+02,
                                    1.53672958608443695994e+03,
                                    3.19985821950859553908e+03,
                                    2.55305040643316442583e+03,
                                    4.74528541206955367215e+02,
                                    -2.24409524465858183362e+01};
// s_erf.c's two inner rational pieces, blended into the numerator and denominator of the lanes in them (erf
// and erfc share them): P(x^2)/Q(x^2) below |x| = 0.84375 (in_a), P(|x| - 1)/Q(|x| - 1) below 1.25 (in_b)
// erfc's rational pieces for |x| >= 1.25 (glibc's erfc method): the argument a clamped to [1.25, 28], q =
// 1/a, and the numerator/denominator of the near (< 1/0.35) or far piece in the lanes of in_c; shared by erfc
// and erfinv's residual so both round alike.
static inline void erfc_tail_pieces_avx2(__m256d ax, __m256d in_c, __m256d& num, __m256d& den, __m256d& a,
                                         __m256d& q) {
  a = _mm256_min_pd(_mm256_max_pd(ax, _mm256_set1_pd(1.25)), _mm256_set1_pd(28.0));
  q = _mm256_div_pd(_mm256_set1_pd(1.0), a);
  const __m256d s = _mm256_mul_pd(q, q);
  const __m256d near = _mm256_cmp_pd(a, _mm256_set1_pd(2.857142857142857), _CMP_LT_OQ);  // 1/0.35
  if (_mm256_movemask_pd(_mm256_andnot_pd(near, in_c))) {
    num = horner_avx2(s, kErfRB);
    den = horner_avx2(s, kErfSB);
  }
  if (_mm256_movemask_pd(_mm256_and_pd(near, in_c))) {
    num = _mm256_blendv_pd(num, horner_avx2(s, kErfRA), near);
    den = _mm256_blendv_pd(den, horner_avx2(s, kErfSA), near);
  }
}

static inline void erf_inner_pieces_avx2(__m256d ax, __m256d in_a, __m256d in_b, bool need_a, bool need_b,
                                         __m256d& num, __m256d& den) {
  if (need_b) {
    const __m256d t = _mm256_sub_pd(ax, _mm256_set1_pd(1.0));
    num = _mm256_blendv_pd(num, horner_avx2(t, kErfPA), in_b);
    den = _mm256_blendv_pd(den, horner_avx2(t, kErfQA), in_b);
  }
  if (need_a) {
    const __m256d z = _mm256_mul_pd(ax, ax);
    num = _mm256_blendv_pd(num, horner_avx2(z, kErfPP), in_a);
    den = _mm256_blendv_pd(den, horner_avx2(z, kErfQQ), in_a);
  }
}
static inline __m256d erf_avx2_f64(__m256d x) {
  const __m256d sign = _mm256_and_pd(x, _mm256_set1_pd(-0.0));
  const __m256d ax = _mm256_andnot_pd(_mm256_set1_pd(-0.0), x);
  const __m256d one = _mm256_set1_pd(1.0);
  const __m256d in_a = _mm256_cmp_pd(ax, _mm256_set1_pd(0.84375), _CMP_LT_OQ);
  const __m256d in_b = _mm256_cmp_pd(ax, _mm256_set1_pd(1.25), _CMP_LT_OQ);
  const __m256d in_c = _mm256_cmp_pd(ax, _mm256_set1_pd(6.0), _CMP_LT_OQ);
  // The three rational functions share one division: each lane's numerator and denominator are selected
  // first (a lane is in one piece only)
  const bool need_c = _mm256_movemask_pd(_mm256_andnot_pd(in_b, in_c)) != 0;
  const bool need_b = _mm256_movemask_pd(_mm256_andnot_pd(in_a, in_b)) != 0;
  const bool need_a = _mm256_movemask_pd(in_a) != 0;
  __m256d num = one, den = one, a = one, q = one;
  if (need_c) {
    a = _mm256_max_pd(ax, _mm256_set1_pd(1.25));
    q = _mm256_div_pd(one, a);
    const __m256d s = _mm256_mul_pd(q, q);
    const __m256d near = _mm256_cmp_pd(a, _mm256_set1_pd(2.857142857142857), _CMP_LT_OQ);  // 1/0.35
    num = horner_avx2(s, kErfRB);
    den = horner_avx2(s, kErfSB);
    if (_mm256_movemask_pd(_mm256_and_pd(near, _mm256_andnot_pd(in_b, in_c)))) {
      num = _mm256_blendv_pd(num, horner_avx2(s, kErfRA), near);
      den = _mm256_blendv_pd(den, horner_avx2(s, kErfSA), near);
    }
  }
  erf_inner_pieces_avx2(ax, in_a, in_b, need_a, need_b, num, den);
  const __m256d ratio = _mm256_div_pd(num, den);
  __m256d res = one;  // |x| >= 6 (and inf); NaN is put back below
  if (need_c) {
    const __m256d z = _mm256_castsi256_pd(_mm256_and_si256(
        _mm256_castpd_si256(a), _mm256_set1_epi64x(static_cast<long long>(0xffffffff00000000ULL))));
    const __m256d arg = _mm256_add_pd(_mm256_fnmsub_pd(z, z, _mm256_set1_pd(0.5625)),
                                      _mm256_fmadd_pd(_mm256_sub_pd(z, a), _mm256_add_pd(z, a), ratio));
    res = _mm256_blendv_pd(res, _mm256_fnmadd_pd(exp_avx2_f64(arg), q, one), in_c);
  }
  if (need_b)
    res = _mm256_blendv_pd(res, _mm256_add_pd(_mm256_set1_pd(8.45062911510467529297e-01), ratio), in_b);
  if (need_a) {
    __m256d r = _mm256_fmadd_pd(ax, ratio, ax);
    const __m256d tiny =
        _mm256_mul_pd(_mm256_set1_pd(0.125), _mm256_fmadd_pd(_mm256_set1_pd(1.02703333676410069053e+00), ax,
                                                             _mm256_mul_pd(_mm256_set1_pd(8.0), ax)));
    r = _mm256_blendv_pd(r, tiny, _mm256_cmp_pd(ax, _mm256_set1_pd(0x1p-28), _CMP_LT_OQ));
    res = _mm256_blendv_pd(res, r, in_a);
  }
  res = _mm256_or_pd(res, sign);
  return _mm256_blendv_pd(res, x, _mm256_cmp_pd(x, x, _CMP_UNORD_Q));
}

// float64 erfc, s_erf.c's erfc on erf's pieces: below |x| = 0.84375 1 - (x + x P/Q) (x below 1/4, negative x
// included) or 0.5 - (x P/Q + (x - 0.5)); to 1.25 (1 - erx) - P(s)/Q(s) for x > 0, 1 + (erx + P/Q) below;
// then r/|x| (x > 0) or 2 - r/|x|, r = exp(-z^2 - 0.5625) exp((z - |x|)(z + |x|) + R/S), |x| clamped at 28
// (where exp underflows to 0, so +inf gives 0 and -inf 2). s_erf.c's two exps are one here on the rounded sum
// a = hi + lo, with what the sum lost (Fast2Sum: |hi| > |lo|) folded back as exp(a) (1 + err); kF32 (float32
// through double) skips that and multiplies by 1/|x|: its 2^-44 relative error is 2^-20 of a float ulp. NaN
// is put back at the end.
template <bool kF32 = false>
static inline __m256d erfc_avx2_f64(__m256d x) {
  const __m256d ax = _mm256_andnot_pd(_mm256_set1_pd(-0.0), x);
  const __m256d neg = _mm256_cmp_pd(x, _mm256_setzero_pd(), _CMP_LT_OQ);
  const __m256d one = _mm256_set1_pd(1.0);
  const __m256d in_a = _mm256_cmp_pd(ax, _mm256_set1_pd(0.84375), _CMP_LT_OQ);
  const __m256d in_b = _mm256_cmp_pd(ax, _mm256_set1_pd(1.25), _CMP_LT_OQ);
  const __m256d in_c = _mm256_andnot_pd(in_b, _mm256_cmp_pd(ax, ax, _CMP_ORD_Q));
  const bool need_c = _mm256_movemask_pd(in_c) != 0;
  const bool need_b = _mm256_movemask_pd(_mm256_andnot_pd(in_a, in_b)) != 0;
  const bool need_a = _mm256_movemask_pd(in_a) != 0;
  __m256d num = one, den = one, a = one, q = one;
  if (need_c) erfc_tail_pieces_avx2(ax, in_c, num, den, a, q);
  erf_inner_pieces_avx2(ax, in_a, in_b, need_a, need_b, num, den);
  const __m256d ratio = _mm256_div_pd(num, den);
  __m256d res = x;  // NaN stays
  if (need_c) {
    const __m256d z = _mm256_castsi256_pd(_mm256_and_si256(
        _mm256_castpd_si256(a), _mm256_set1_epi64x(static_cast<long long>(0xffffffff00000000ULL))));
    const __m256d hi = _mm256_fnmsub_pd(z, z, _mm256_set1_pd(0.5625));  // exact: z has 21 bits
    const __m256d lo = _mm256_fmadd_pd(_mm256_sub_pd(z, a), _mm256_add_pd(z, a), ratio);
    const __m256d sum = _mm256_add_pd(hi, lo);
    __m256d tail;
    if (kF32) {
      tail = _mm256_mul_pd(exp_avx2_f64(sum), q);
    } else {
      const __m256d err = _mm256_add_pd(_mm256_sub_pd(hi, sum), lo);
      const __m256d e = exp_avx2_f64(sum);
      tail = _mm256_div_pd(_mm256_fmadd_pd(e, err, e), a);
    }
    res = _mm256_blendv_pd(res, _mm256_blendv_pd(tail, _mm256_sub_pd(_mm256_set1_pd(2.0), tail), neg), in_c);
  }
  if (need_b) {
    const __m256d erx = _mm256_set1_pd(8.45062911510467529297e-01);
    const __m256d pos = _mm256_sub_pd(_mm256_set1_pd(1.0 - 8.45062911510467529297e-01), ratio);
    const __m256d ng = _mm256_add_pd(one, _mm256_add_pd(erx, ratio));
    res = _mm256_blendv_pd(res, _mm256_blendv_pd(pos, ng, neg), in_b);
  }
  if (need_a) {
    const __m256d y = _mm256_mul_pd(x, ratio);
    const __m256d small = _mm256_sub_pd(one, _mm256_add_pd(x, y));
    const __m256d mid =
        _mm256_sub_pd(_mm256_set1_pd(0.5), _mm256_add_pd(y, _mm256_sub_pd(x, _mm256_set1_pd(0.5))));
    const __m256d quarter = _mm256_cmp_pd(x, _mm256_set1_pd(0.25), _CMP_LT_OQ);  // s_erf.c: x < 1/4, signed
    res = _mm256_blendv_pd(res, _mm256_blendv_pd(mid, small, quarter), in_a);
  }
  return res;
}

// erfinv's Newton residual for x >= 0 (finite, from erfinv_avx2_f64's start): erf(x) - a in the lanes of
// `central` (a <= 1/2, so x < 0.48: erf's first piece, which keeps tiny x's digits), (1 - a) - erfc(x) in the
// others (1 - a exact there, and erfc keeps the tail's digits where erf(x) - a would cancel). s_erf.c's
// pieces as erf_avx2_f64 and erfc_avx2_f64 evaluate them, one division for every lane's rational function;
// each piece only where a lane needs it.
static inline __m256d erfinv_residual_avx2(__m256d x, __m256d a, __m256d central) {
  const __m256d one = _mm256_set1_pd(1.0);
  const __m256d in_a = _mm256_cmp_pd(x, _mm256_set1_pd(0.84375), _CMP_LT_OQ);
  const __m256d in_b = _mm256_cmp_pd(x, _mm256_set1_pd(1.25), _CMP_LT_OQ);
  const __m256d in_c = _mm256_cmp_pd(x, _mm256_set1_pd(1.25), _CMP_GE_OQ);
  const bool need_c = _mm256_movemask_pd(in_c) != 0;
  const bool need_b = _mm256_movemask_pd(_mm256_andnot_pd(in_a, in_b)) != 0;
  const bool need_a = _mm256_movemask_pd(in_a) != 0;
  __m256d num = one, den = one, c = one, q = one;
  if (need_c) erfc_tail_pieces_avx2(x, in_c, num, den, c, q);
  erf_inner_pieces_avx2(x, in_a, in_b, need_a, need_b, num, den);
  const __m256d ratio = _mm256_div_pd(num, den);
  const __m256d b = _mm256_sub_pd(one, a);
  __m256d res = _mm256_setzero_pd();
  if (need_c) {  // erfc_avx2_f64's tail, its sum's rounding folded back
    const __m256d z = _mm256_castsi256_pd(_mm256_and_si256(
        _mm256_castpd_si256(c), _mm256_set1_epi64x(static_cast<long long>(0xffffffff00000000ULL))));
    const __m256d hi = _mm256_fnmsub_pd(z, z, _mm256_set1_pd(0.5625));
    const __m256d lo = _mm256_fmadd_pd(_mm256_sub_pd(z, c), _mm256_add_pd(z, c), ratio);
    const __m256d sum = _mm256_add_pd(hi, lo);
    const __m256d err = _mm256_add_pd(_mm256_sub_pd(hi, sum), lo);
    const __m256d e = exp_avx2_f64(sum);
    res = _mm256_blendv_pd(res, _mm256_sub_pd(b, _mm256_div_pd(_mm256_fmadd_pd(e, err, e), c)), in_c);
  }
  if (need_b) {
    const __m256d erfc = _mm256_sub_pd(_mm256_set1_pd(1.0 - 8.45062911510467529297e-01), ratio);
    res = _mm256_blendv_pd(res, _mm256_sub_pd(b, erfc), in_b);
  }
  if (need_a) {
    const __m256d y = _mm256_mul_pd(x, ratio);
    const __m256d small = _mm256_sub_pd(one, _mm256_add_pd(x, y));
    const __m256d mid =
        _mm256_sub_pd(_mm256_set1_pd(0.5), _mm256_add_pd(y, _mm256_sub_pd(x, _mm256_set1_pd(0.5))));
    const __m256d erfc = _mm256_blendv_pd(mid, small, _mm256_cmp_pd(x, _mm256_set1_pd(0.25), _CMP_LT_OQ));
    __m256d erf = _mm256_fmadd_pd(x, ratio, x);
    const __m256d tiny =
        _mm256_mul_pd(_mm256_set1_pd(0.125), _mm256_fmadd_pd(_mm256_set1_pd(1.02703333676410069053e+00), x,
                                                             _mm256_mul_pd(_mm256_set1_pd(8.0), x)));
    erf = _mm256_blendv_pd(erf, tiny, _mm256_cmp_pd(x, _mm256_set1_pd(0x1p-28), _CMP_LT_OQ));
    res =
        _mm256_blendv_pd(res, _mm256_blendv_pd(_mm256_sub_pd(b, erfc), _mm256_sub_pd(erf, a), central), in_a);
  }
  return res;
}

// float64 erfinv: a = |y|, w = -log((1 - a)(1 + a)), a start x = a P(w) with f64_series.h's polynomials in
// Giles' variables (w - 2.5 below w = 5, sqrt(w) - 3 to 16, sqrt(w) - 5 beyond, where only float64's 1 - a
// < 5.6e-8 reaches: relative errors 4e-11, 2e-10, 2.6e-10), then one Newton step on erf(x) = a (a <= 1/2) or
// erfc(x) = 1 - a (above), x -= residual / erf'(x). Newton's error after the step is x times the start's
// squared (erf''/erf' = -2x): under 1e-18 relative, so the result's error is the residual's rounding over the
// derivative, about an ulp of x (the scalar functor's loop took up to eight steps on log erfc, one element at
// a time). 1 / erf' is taken at the root, Q(w) / m (f64_series.h's erfinv_step_*_d: the chord's error is the
// same x d^2), a polynomial beside P instead of an exp and a division after the residual. The sign ORed back
// (-0 kept); +-1 gives +-inf, |y| > 1 and NaN give NaN.
// K vectors at once, stage by stage: one vector's chain (log, polynomial, residual, step) is latency-bound
// (~3x its throughput); K independent chains side by side fill the pipeline (K = 4: 1.6x per element). Each
// lane's arithmetic is the same whatever K, so the bits do not depend on an element's position.
template <int K>
static inline void erfinv_avx2_f64_k(__m256d (&y)[K]) {
  const __m256d one = _mm256_set1_pd(1.0);
  __m256d sign[K], ay[K], ok[K], a[K], m[K], inv_m[K], w[K], x[K], h[K], r[K];
#pragma GCC unroll 4
  for (int k = 0; k < K; ++k) {
    sign[k] = _mm256_and_pd(y[k], _mm256_set1_pd(-0.0));
    ay[k] = _mm256_andnot_pd(_mm256_set1_pd(-0.0), y[k]);
    ok[k] = _mm256_cmp_pd(ay[k], one, _CMP_LT_OQ);
    a[k] = _mm256_and_pd(ay[k], ok[k]);  // 0 in the lanes the end replaces
    m[k] = _mm256_mul_pd(_mm256_sub_pd(one, a[k]), _mm256_add_pd(one, a[k]));
    inv_m[k] = _mm256_div_pd(one, m[k]);
  }
#pragma GCC unroll 4
  for (int k = 0; k < K; ++k) w[k] = _mm256_sub_pd(_mm256_setzero_pd(), log_avx2_f64_normal(m[k]));
#pragma GCC unroll 4
  for (int k = 0; k < K; ++k) {
    const __m256d t1 = _mm256_sub_pd(w[k], _mm256_set1_pd(2.5));
    __m256d p = erfinv_central_d(t1), q = erfinv_step_central_d(t1);
    const __m256d tail = _mm256_cmp_pd(w[k], _mm256_set1_pd(5.0), _CMP_GE_OQ);
    if (_mm256_movemask_pd(tail)) {  // |y| > 0.9966: one vector in 75 of uniform data
      const __m256d sw = _mm256_sqrt_pd(w[k]);
      const __m256d t2 = _mm256_sub_pd(sw, _mm256_set1_pd(3.0));
      p = _mm256_blendv_pd(p, erfinv_tail_d(t2), tail);
      q = _mm256_blendv_pd(q, erfinv_step_tail_d(t2), tail);
      const __m256d far = _mm256_cmp_pd(w[k], _mm256_set1_pd(16.0), _CMP_GE_OQ);
      if (_mm256_movemask_pd(far)) {
        const __m256d t3 = _mm256_sub_pd(sw, _mm256_set1_pd(5.0));
        p = _mm256_blendv_pd(p, erfinv_far_d(t3), far);
        q = _mm256_blendv_pd(q, erfinv_step_far_d(t3), far);
      }
    }
    x[k] = _mm256_mul_pd(a[k], p);
    h[k] = _mm256_mul_pd(q, inv_m[k]);
  }
#pragma GCC unroll 4
  for (int k = 0; k < K; ++k)
    r[k] = erfinv_residual_avx2(x[k], a[k], _mm256_cmp_pd(a[k], _mm256_set1_pd(0.5), _CMP_LE_OQ));
#pragma GCC unroll 4
  for (int k = 0; k < K; ++k) {
    const __m256d xs = _mm256_fnmadd_pd(r[k], h[k], x[k]);
    const __m256d edge = _mm256_blendv_pd(_mm256_set1_pd(__builtin_nan("")), _mm256_set1_pd(__builtin_inf()),
                                          _mm256_cmp_pd(ay[k], one, _CMP_EQ_OQ));
    y[k] = _mm256_or_pd(_mm256_blendv_pd(edge, xs, ok[k]), sign[k]);
  }
}

static inline __m256d erfinv_avx2_f64(__m256d y) {
  __m256d v[1] = {y};
  erfinv_avx2_f64_k<1>(v);
  return v[0];
}

// float64 atan, s_atan.c's method and coefficients (under 1 ulp there): |x| is moved next to 0, 0.5, 1, 1.5
// or inf by t = |x|, (2|x| - 1)/(2 + |x|), (|x| - 1)/(|x| + 1), (|x| - 1.5)/(1 + 1.5|x|) or -1/|x| (one
// division for all lanes, each numerator exact), then atan|x| = atan(c)_hi - ((t P(t^2) - atan(c)_lo) - t)
// with atan(c) 0 below 0.4375; the sign is ORed in at the end (-0 stays -0, NaN flows through -1/NaN).
static inline __m256d atan_avx2_f64(__m256d x) {
  static constexpr double kEven[] = {3.33333333333329318027e-01, 1.42857142725034663711e-01,
                                     9.09088713343650656196e-02, 6.66107313738753120669e-02,
                                     4.97687799461593236017e-02, 1.62858201153657823623e-02};
  static constexpr double kOdd[] = {-1.99999999998764832476e-01, -1.11111104054623557880e-01,
                                    -7.69187620504482999495e-02, -5.83357013379057348645e-02,
                                    -3.65315727442169155270e-02};
  const __m256d sign = _mm256_and_pd(x, _mm256_set1_pd(-0.0));
  const __m256d ax = _mm256_andnot_pd(_mm256_set1_pd(-0.0), x);
  const __m256d one = _mm256_set1_pd(1.0);
  const __m256d c0 = _mm256_cmp_pd(ax, _mm256_set1_pd(0.4375), _CMP_LT_OQ);
  const __m256d c1 = _mm256_cmp_pd(ax, _mm256_set1_pd(0.6875), _CMP_LT_OQ);
  const __m256d c2 = _mm256_cmp_pd(ax, _mm256_set1_pd(1.1875), _CMP_LT_OQ);
  const __m256d c3 = _mm256_cmp_pd(ax, _mm256_set1_pd(2.4375), _CMP_LT_OQ);
  // from the top piece down, so each lane keeps the last (smallest) piece it is in
  __m256d num = _mm256_set1_pd(-1.0), den = ax;
  __m256d hi = _mm256_set1_pd(1.57079632679489655800e+00), lo = _mm256_set1_pd(6.12323399573676603587e-17);
  num = _mm256_blendv_pd(num, _mm256_sub_pd(ax, _mm256_set1_pd(1.5)), c3);
  den = _mm256_blendv_pd(den, _mm256_fmadd_pd(_mm256_set1_pd(1.5), ax, one), c3);
  hi = _mm256_blendv_pd(hi, _mm256_set1_pd(9.82793723247329054082e-01), c3);
  lo = _mm256_blendv_pd(lo, _mm256_set1_pd(1.39033110312309984516e-17), c3);
  num = _mm256_blendv_pd(num, _mm256_sub_pd(ax, one), c2);
  den = _mm256_blendv_pd(den, _mm256_add_pd(ax, one), c2);
  hi = _mm256_blendv_pd(hi, _mm256_set1_pd(7.85398163397448278999e-01), c2);
  lo = _mm256_blendv_pd(lo, _mm256_set1_pd(3.06161699786838301793e-17), c2);
  num = _mm256_blendv_pd(num, _mm256_fmsub_pd(_mm256_set1_pd(2.0), ax, one), c1);
  den = _mm256_blendv_pd(den, _mm256_add_pd(_mm256_set1_pd(2.0), ax), c1);
  hi = _mm256_blendv_pd(hi, _mm256_set1_pd(4.63647609000806093515e-01), c1);
  lo = _mm256_blendv_pd(lo, _mm256_set1_pd(2.26987774529616870924e-17), c1);
  num = _mm256_blendv_pd(num, ax, c0);
  den = _mm256_blendv_pd(den, one, c0);
  hi = _mm256_andnot_pd(c0, hi);
  lo = _mm256_andnot_pd(c0, lo);
  const __m256d t = _mm256_div_pd(num, den);
  const __m256d z = _mm256_mul_pd(t, t);
  const __m256d w = _mm256_mul_pd(z, z);
  const __m256d s = _mm256_fmadd_pd(z, horner_avx2(w, kEven), _mm256_mul_pd(w, horner_avx2(w, kOdd)));
  // hi - ((t s - lo) - t); below 0.4375 hi = lo = 0, which is t - t s
  const __m256d r = _mm256_sub_pd(hi, _mm256_sub_pd(_mm256_fmsub_pd(t, s, lo), t));
  return _mm256_or_pd(r, sign);
}

// float64 atan2(y, x), e_atan2.c's method over the atan above: a = atan(min/max) of |y| and |x| (0/0 taken
// as 0, inf/inf as 1, which gives C99's special values), then by quadrant a, pi/2 - a (|y| > |x|), pi - a (x
// negative, -0 included) or pi/2 + a (both), each from pi's hi and lo parts with one rounding at the end, y's
// sign ORed in; a NaN operand gives NaN. The quotient's rounding (0.5 ulp) adds to atan's: within 2 ulp.
static inline __m256d atan2_avx2_f64(__m256d y, __m256d x) {
  const __m256d signbit = _mm256_set1_pd(-0.0);
  const __m256d ay = _mm256_andnot_pd(signbit, y), ax = _mm256_andnot_pd(signbit, x);
  const __m256d swap = _mm256_cmp_pd(ay, ax, _CMP_GT_OQ);
  const __m256d mx = _mm256_blendv_pd(ax, ay, swap), mn = _mm256_blendv_pd(ay, ax, swap);
  __m256d q = _mm256_div_pd(mn, mx);
  q = _mm256_andnot_pd(_mm256_cmp_pd(mx, _mm256_setzero_pd(), _CMP_EQ_OQ), q);  // 0/0
  q = _mm256_blendv_pd(q, _mm256_set1_pd(1.0),
                       _mm256_cmp_pd(mn, _mm256_set1_pd(__builtin_inf()), _CMP_EQ_OQ));
  const __m256d a = atan_avx2_f64(q);
  // a, pi/2 - a, pi - a or pi/2 + a, each rounded once from pi's hi + lo (x's sign bit selects the last two)
  const __m256d pio2_hi = _mm256_set1_pd(1.57079632679489655800e+00),
                pio2_lo = _mm256_set1_pd(6.12323399573676603587e-17);
  const __m256d pos = _mm256_blendv_pd(a, _mm256_sub_pd(pio2_hi, _mm256_sub_pd(a, pio2_lo)), swap);
  const __m256d neg =
      _mm256_blendv_pd(_mm256_sub_pd(_mm256_set1_pd(3.1415926535897931160e+00),
                                     _mm256_sub_pd(a, _mm256_set1_pd(1.2246467991473531772e-16))),
                       _mm256_add_pd(pio2_hi, _mm256_add_pd(a, pio2_lo)), swap);
  __m256d r = _mm256_blendv_pd(pos, neg, x);
  r = _mm256_or_pd(r, _mm256_and_pd(y, signbit));
  const __m256d nan = _mm256_cmp_pd(y, x, _CMP_UNORD_Q);
  return _mm256_blendv_pd(r, _mm256_add_pd(y, x), nan);
}

// float64 fmod(a, b), exact as C's, where |a / b| < 2^52: q = trunc(|a| / |b|) is the true quotient's
// truncation or one more (the rounded quotient is within 0.5 of the true one, and rounding never crosses an
// integer downward), so r = |a| - q |b| lies in (-|b|, |b|), a multiple of |b|'s spacing, and the FMA gives
// it exactly; |b| added back where r < 0 (exact too), a's sign put on (a zero keeps it). |a| < |b| (b
// infinite included) gives a. Returns the lanes it serves in `ok`; the caller sends the others (b = 0, a
// infinite, NaN, larger quotients) to the C library.
static inline __m256d fmod_avx2_f64(__m256d a, __m256d b, int& ok) {
  const __m256d signbit = _mm256_set1_pd(-0.0);
  const __m256d aa = _mm256_andnot_pd(signbit, a), ab = _mm256_andnot_pd(signbit, b);
  const __m256d q = _mm256_round_pd(_mm256_div_pd(aa, ab), _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC);
  __m256d r = _mm256_fnmadd_pd(q, ab, aa);
  r = _mm256_blendv_pd(r, _mm256_add_pd(r, ab), r);  // r's sign bit: r < 0 (r = -0 cannot occur: r = 0 is +0)
  const __m256d small = _mm256_cmp_pd(aa, ab, _CMP_LT_OQ);
  r = _mm256_blendv_pd(r, aa, small);
  const __m256d served = _mm256_or_pd(
      small, _mm256_and_pd(_mm256_and_pd(_mm256_cmp_pd(ab, _mm256_setzero_pd(), _CMP_GT_OQ),
                                         _mm256_cmp_pd(aa, _mm256_set1_pd(__builtin_inf()), _CMP_LT_OQ)),
                           _mm256_cmp_pd(aa, _mm256_mul_pd(ab, _mm256_set1_pd(0x1p52)), _CMP_LT_OQ)));
  ok = _mm256_movemask_pd(served);
  return _mm256_or_pd(r, _mm256_and_pd(a, signbit));
}

// The lanes fmod_avx2_f64 leaves for a quotient of 2^52 or more (a finite, b normal), added to r and ok:
// fmod(a, b) = fmod(fmod(a, b 2^k), b) for k >= 0 (b 2^k is a multiple of b; the remainders keep a's sign),
// so |a| is reduced by bs = |b|'s significand at |a|'s exponent less 51 (a power-of-two multiple of |b| with
// |a| / bs < 2^52: fmod_avx2_f64's exact step), about 51 bits of the quotient a step, until |a| < |b| 2^52,
// then the last step by |b|. glibc's fmod takes a step per bit of it: 13 ms over 65,536 quotients near 2^67,
// where PyTorch's SLEEF fmod took 0.4 (x //= y repeated grows x so).
static inline void fmod_wide_avx2_f64(__m256d a, __m256d b, __m256d& r, int& ok) {
  const __m256d signbit = _mm256_set1_pd(-0.0);
  const __m256d aa = _mm256_andnot_pd(signbit, a), ab = _mm256_andnot_pd(signbit, b);
  const __m256d lim = _mm256_mul_pd(ab, _mm256_set1_pd(0x1p52));
  const __m256d todo =
      _mm256_and_pd(_mm256_and_pd(_mm256_cmp_pd(aa, lim, _CMP_GE_OQ),
                                  _mm256_cmp_pd(aa, _mm256_set1_pd(__builtin_inf()), _CMP_LT_OQ)),
                    _mm256_cmp_pd(ab, _mm256_set1_pd(0x1p-1022), _CMP_GE_OQ));
  const int wide = _mm256_movemask_pd(todo);
  if (!wide) return;
  __m256d x = _mm256_and_pd(aa, todo);  // 0 in the other lanes, which take no step
  const __m256i bm = _mm256_and_si256(_mm256_castpd_si256(ab), _mm256_set1_epi64x(0x000fffffffffffffLL));
  for (;;) {
    const __m256d big = _mm256_and_pd(_mm256_cmp_pd(x, lim, _CMP_GE_OQ), todo);  // (b = 0 lanes: 0 >= 0)
    if (_mm256_movemask_pd(big) == 0) break;
    const __m256i e =
        _mm256_sub_epi64(_mm256_and_si256(_mm256_castpd_si256(x), _mm256_set1_epi64x(0x7ff0000000000000LL)),
                         _mm256_set1_epi64x(51LL << 52));
    const __m256d bs = _mm256_castsi256_pd(_mm256_or_si256(bm, e));
    const __m256d q = _mm256_round_pd(_mm256_div_pd(x, bs), _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC);
    __m256d s = _mm256_fnmadd_pd(q, bs, x);
    s = _mm256_blendv_pd(s, _mm256_add_pd(s, bs), s);
    x = _mm256_blendv_pd(x, s, big);
  }
  int last;
  const __m256d w = fmod_avx2_f64(x, ab, last);  // serves every lane of todo: x < |b| 2^52 there
  r = _mm256_blendv_pd(r, _mm256_or_pd(w, _mm256_and_pd(a, signbit)), todo);
  ok |= wide;
}

// ---- float64 exp2, expm1, cosh and sinh on exp's reduction and table (AVX2 without SLEEF ran the C library
// element by element). Operators on __m256d are GCC's vector extensions.

// float64 exp2: x = k + f with k a multiple of 1/16 (the 1.5 * 2^48 shift rounds x itself), f = x - k exact,
// |f| <= 1/32, r = f ln2 as r_hi + r_lo (an FMA recovers the product's rounding, ln2's low part added), and
// 2^x = 2^floor(k) T[j] (1 + expm1(r_hi) + r_lo), summed and scaled as exp. The reduction is exact where
// exp's is not, so exp's bound holds (0.65 ulp, 0.81 on subnormal results); integers give their power of two
// exactly (f = 0). x is clamped to [-1076, 1076] (0 and inf beyond); NaN flows through. avx512_math.h's
// exp2_avx512_f64 is the same arithmetic in eight lanes (the same bits).
// exp2_s_avx2_f64: s = T[j] (1 + expm1(r)) rounded once, in [2^-1/32, 2^31/32), and m = 16 k from t = x +
// shift
static inline __m256d exp2_s_avx2_f64(__m256d x, __m256d t, __m256i& m) {
  const __m256d shift = _mm256_set1_pd(422212465065984.0);  // 1.5 * 2^48
  const __m256d f = x - (t - shift);
  const __m256d ln2 = _mm256_set1_pd(0.6931471805599453);
  const __m256d rh = f * ln2;
  const __m256d rl = _mm256_fmsub_pd(f, ln2, rh) + f * 2.3190468138462996e-17;
  m = _mm256_sub_epi64(_mm256_castpd_si256(t), _mm256_castpd_si256(shift));
  const __m256i j = _mm256_and_si256(m, _mm256_set1_epi64x(15));
  const __m256d q = expm1_core_avx2(rh) + rl;
  const __m256d th = _mm256_i64gather_pd(kExp2jHi, j, 8);
  return th + _mm256_fmadd_pd(th, q, _mm256_i64gather_pd(kExp2jLo, j, 8));
}
static inline __m256d exp2_clamped_avx2_f64(__m256d x) {
  x = _mm256_blendv_pd(x, _mm256_set1_pd(1076.0), _mm256_cmp_pd(x, _mm256_set1_pd(1076.0), _CMP_GT_OQ));
  x = _mm256_blendv_pd(x, _mm256_set1_pd(-1076.0), _mm256_cmp_pd(x, _mm256_set1_pd(-1076.0), _CMP_LT_OQ));
  __m256i m;
  const __m256d s = exp2_s_avx2_f64(x, x + _mm256_set1_pd(422212465065984.0), m);
  return scale_by_m_avx2(s, m);
}
// Where every lane has -1021 <= x < 1023.5 (n = floor(k) in [-1021, 1023], s 2^n normal: s >= 2^-1/32) 2^n is
// added to s's exponent bits, n << 52 = (16 k << 48) with j's four bits cleared (two's complement, negative n
// too): the same bits as scale_by_m_avx2's products, in three integer instructions instead of its thirteen;
// the clamp and the products (subnormal results, overflow, inf, NaN: all outside the range) only for the
// vectors that need them (70.6 against 92.5 us over 65,536 doubles in a C harness, the same bits).
static inline __m256d exp2_avx2_f64(__m256d x) {
  const __m256d in = _mm256_and_pd(_mm256_cmp_pd(x, _mm256_set1_pd(-1021.0), _CMP_GE_OQ),
                                   _mm256_cmp_pd(x, _mm256_set1_pd(1023.5), _CMP_LT_OQ));
  if (_mm256_movemask_pd(in) != 0xf) return exp2_clamped_avx2_f64(x);
  __m256i m;
  const __m256d s = exp2_s_avx2_f64(x, x + _mm256_set1_pd(422212465065984.0), m);
  const __m256i n52 = _mm256_andnot_si256(_mm256_set1_epi64x(0xf000000000000LL), _mm256_slli_epi64(m, 48));
  return _mm256_castsi256_pd(_mm256_add_epi64(_mm256_castpd_si256(s), n52));
}

// float64 expm1. |x| < 0.3: x + x^2 (1/2 + x P(x)), P the Taylor series to x^14 (truncation 0.3^13 / 15! =
// 1.2e-19 relative); x^2 (...) is at most 0.2 |x|, so its roundings stay far below the final one. Else exp's
// parts with |x| clamped to 40 (beyond, expm1 is exp's value or -1 to double precision): a = 2^n T_hi is
// exact, a - 1 is split exactly (TwoSum) into hi + e, and the result is hi + (e + 2^n (T_hi q + T_lo)), where
// the last term is below 0.08 of the result (|x| >= 0.3 makes |a - 1| >= 0.26 a) and q is exp_parts'
// Taylor one (2^-68): the final rounding and a few hundredths of an ulp. Lanes above 40 take exp itself (inf
// beyond 709.78); -0 stays -0; NaN flows through.
static inline __m256d expm1_avx2_f64(__m256d x) {
  __m256d p = _mm256_set1_pd(1.0 / 87178291200.0);
  const double c[] = {1.0 / 6227020800.0, 1.0 / 479001600.0, 1.0 / 39916800.0, 1.0 / 3628800.0,
                      1.0 / 362880.0,     1.0 / 40320.0,     1.0 / 5040.0,     1.0 / 720.0,
                      1.0 / 120.0,        1.0 / 24.0,        1.0 / 6.0};
  for (double ci : c) p = _mm256_fmadd_pd(p, x, _mm256_set1_pd(ci));
  const __m256d small = _mm256_fmadd_pd(x * x, _mm256_fmadd_pd(x, p, _mm256_set1_pd(0.5)), x);
  __m256d xc = _mm256_blendv_pd(x, _mm256_set1_pd(40.0), _mm256_cmp_pd(x, _mm256_set1_pd(40.0), _CMP_GT_OQ));
  xc = _mm256_blendv_pd(xc, _mm256_set1_pd(-40.0), _mm256_cmp_pd(xc, _mm256_set1_pd(-40.0), _CMP_LT_OQ));
  const ExpParts e = exp_parts_avx2<true>(xc);
  const __m256d p2n = scale_by_m_avx2(_mm256_set1_pd(1.0), e.m);  // 2^n, |n| <= 58: exact
  const __m256d a = e.th * p2n, b = _mm256_set1_pd(-1.0);
  const __m256d hi = a + b;  // TwoSum(a, -1)
  const __m256d bv = hi - a, av = hi - bv;
  const __m256d err = (a - av) + (b - bv);
  __m256d r = hi + (err + exp_low_avx2(e) * p2n);
  const __m256d ax = _mm256_andnot_pd(_mm256_set1_pd(-0.0), x);
  r = _mm256_blendv_pd(r, small, _mm256_cmp_pd(ax, _mm256_set1_pd(0.3), _CMP_LT_OQ));
  r = _mm256_blendv_pd(r, x, _mm256_cmp_pd(ax, _mm256_set1_pd(0x1p-54), _CMP_LT_OQ));  // -0 (x^2 added +0)
  const __m256d big = _mm256_cmp_pd(x, _mm256_set1_pd(40.0), _CMP_GT_OQ);
  if (_mm256_movemask_pd(big) != 0) r = _mm256_blendv_pd(r, exp_avx2_f64(x), big);
  return r;
}

// float64 cosh (kSinh false) and sinh of a = |x|, x's sign ORed back into sinh (keeps -0). sinh below 0.5: a
// + a^3 P(a^2), P the Taylor series to a^15 (truncation 0.5^16 / 17! = 4e-20 relative). Up to 22: E = e^a
// unrounded as E_hi + E_lo (exp's parts, 2^floor(k) <= 2^32 exact), h + h_lo = 1 / E to twice double
// precision (a Newton step on the rounded quotient), and E_hi +- h summed exactly (Fast2Sum, E_hi >= 1 >= h),
// so (E +- 1/E) / 2 rounds about once. Above 22, e^-a is below 2^-63 of e^a: e^a / 2 rounded once (exp's
// kernel one power of two lower), inf from 710.48, as the C library.
template <bool kSinh>
static inline __m256d coshsinh_avx2_f64(__m256d x) {
  const __m256d sign = _mm256_set1_pd(-0.0);
  const __m256d a = _mm256_andnot_pd(sign, x);
  __m256d ac = _mm256_blendv_pd(a, _mm256_set1_pd(22.0), _mm256_cmp_pd(a, _mm256_set1_pd(22.0), _CMP_GT_OQ));
  const ExpParts e = exp_parts_avx2<true>(ac);
  const __m256d pk = _mm256_castsi256_pd(
      _mm256_slli_epi64(_mm256_add_epi64(_mm256_srli_epi64(e.m, 4), _mm256_set1_epi64x(1023)), 52));
  const __m256d eh = e.th * pk, el = exp_low_avx2(e) * pk;
  const __m256d one = _mm256_set1_pd(1.0);
  const __m256d h = one / (eh + el);
  const __m256d hl = h * (_mm256_fnmadd_pd(h, eh, one) - h * el);  // h (1 - h E)
  __m256d r;
  if (kSinh) {
    const __m256d s = eh - h;
    const __m256d c = (eh - s) - h;
    r = (s + ((c + el) - hl)) * 0.5;
    const __m256d z = a * a;
    __m256d p = _mm256_set1_pd(1.0 / 1307674368000.0);
    const double cs[] = {1.0 / 6227020800.0, 1.0 / 39916800.0, 1.0 / 362880.0,
                         1.0 / 5040.0,       1.0 / 120.0,      1.0 / 6.0};
    for (double ci : cs) p = _mm256_fmadd_pd(p, z, _mm256_set1_pd(ci));
    r = _mm256_blendv_pd(r, _mm256_fmadd_pd(a * z, p, a), _mm256_cmp_pd(a, _mm256_set1_pd(0.5), _CMP_LT_OQ));
  } else {
    const __m256d s = eh + h;
    const __m256d c = h - (s - eh);
    r = (s + ((c + el) + hl)) * 0.5;
  }
  const __m256d big = _mm256_cmp_pd(a, _mm256_set1_pd(22.0), _CMP_GT_OQ);
  if (_mm256_movemask_pd(big) != 0) r = _mm256_blendv_pd(r, exp_avx2_f64<true>(a), big);
  return kSinh ? _mm256_or_pd(r, _mm256_and_pd(x, sign)) : r;
}

// float64 log2 (kTen false) and log10, e_log2.c's idea with FMAs: x = 2^k m as log's split (subnormal x
// scaled by 2^54 first), f = m - 1, and log m = f - f^2/2 + s (f^2/2 + R) (log1p_core_avx2's R) carried as
// hi + lo: hi = f - f^2/2 rounded, lo what that rounding lost (Fast2Sum: f^2/2 <= 0.21 |f|) minus f^2/2's own
// rounding (an FMA) plus the s term. Then (hi + lo) (c_hi + c_lo) for c = log2(e) or log10(e) as a
// double-double product, k (log2) or k log10(2) as hi + lo, and the two summed exactly (TwoSum) before the
// last rounding: about half an ulp, powers of two exact in log2 (f = 0). Special values as log_avx2_f64.
// log m = f - f^2/2 + s (f^2/2 + R) of x = 2^k m as hi + lo, with k (x >= 0; subnormals scaled by 2^54
// first): hi = f - f^2/2 rounded, lo what that rounding lost (Fast2Sum) minus f^2/2's own rounding (an FMA)
// plus the s term. The shared start of log2or10_avx2_f64 and pdist's pow_nonneg_avx2
// (kernels/cpu/distance.cpp).
static inline void log_hi_lo_avx2_f64(__m256d x, __m256d& k, __m256d& hi, __m256d& lo) {
  const __m256d tiny = _mm256_cmp_pd(x, _mm256_set1_pd(2.2250738585072014e-308), _CMP_LT_OQ);
  const __m256d xs = _mm256_blendv_pd(x, x * 18014398509481984.0, tiny);
  __m256i ki;
  const __m256d m = split_log_avx2(xs, ki);
  k = i64_to_f64_avx2(ki) - _mm256_and_pd(tiny, _mm256_set1_pd(54.0));
  const __m256d f = m - 1.0;
  const __m256d s = f / (f + 2.0);
  const __m256d z = s * s;
  __m256d R = _mm256_set1_pd(1.479819860511658591e-01);
  const double cs[] = {1.531383769920937332e-01, 1.818357216161805012e-01, 2.222219843214978396e-01,
                       2.857142874366239149e-01, 3.999999999940941908e-01, 6.666666666666735130e-01};
  for (double ci : cs) R = _mm256_fmadd_pd(R, z, _mm256_set1_pd(ci));
  R = R * z;
  const __m256d hf = f * 0.5;
  const __m256d hfsq = hf * f;
  const __m256d hfsq_lo = _mm256_fmsub_pd(hf, f, hfsq);
  hi = f - hfsq;
  lo = _mm256_fmadd_pd(s, hfsq + R, ((f - hi) - hfsq) - hfsq_lo);
}

template <bool kTen>
static inline __m256d log2or10_avx2_f64(__m256d x) {
  __m256d k, hi, lo;
  log_hi_lo_avx2_f64(x, k, hi, lo);
  const __m256d ch = _mm256_set1_pd(kTen ? 0.4342944819032518 : 1.4426950408889634);
  const double cl = kTen ? 1.098319650216765e-17 : 2.0355273740931033e-17;
  const __m256d vh = hi * ch;
  const __m256d vl = _mm256_fmadd_pd(lo, ch, _mm256_fmsub_pd(hi, ch, vh) + hi * cl);
  __m256d kh = k, kl = _mm256_setzero_pd();
  if (kTen) {
    const __m256d l2h = _mm256_set1_pd(0.30102999566398120);
    kh = k * l2h;
    kl = _mm256_fmsub_pd(k, l2h, kh) + k * -2.8037281277851704e-18;
  }
  const __m256d w = kh + vh;  // TwoSum(kh, vh)
  const __m256d bv = w - kh, av = w - bv;
  const __m256d err = (kh - av) + (vh - bv);
  __m256d r = w + (err + (kl + vl));
  const __m256d inf = _mm256_set1_pd(__builtin_inf());
  r = _mm256_blendv_pd(r, inf, _mm256_cmp_pd(x, inf, _CMP_EQ_OQ));
  r = _mm256_blendv_pd(r, -inf, _mm256_cmp_pd(x, _mm256_setzero_pd(), _CMP_EQ_OQ));
  return _mm256_blendv_pd(r, _mm256_set1_pd(__builtin_nan("")),
                          _mm256_cmp_pd(x, _mm256_setzero_pd(), _CMP_NGE_UQ));
}

// float64 asin and acos, e_asin.c's and e_acos.c's methods and coefficients (under 1 ulp): R(z) = z P(z) /
// Q(z) approximates (asin(sqrt z) - sqrt z) / sqrt z. Below |x| = 0.5, asin x = x + x R(x^2) and acos x =
// pi/2 - (x + x R(x^2)) with pi/2 as hi + lo; above, z = (1 - |x|) / 2 and s = sqrt z: asin |x| = pi/2 - 2 (s
// + s R(z)), from 0.975 down to 0.5 with s split into its high 26 bits df and a correction c = (z - df^2) /
// (s + df) so that pi/4 - 2 df is exact; acos x = 2 (df + (s R(z) + c)) for x >= 0.5, pi - 2 (s + s R(z) -
// lo) for x <= -0.5. Every lane takes one division (R) and one square root, both branches selected; |x| > 1,
// infinities and NaN give NaN through the square root of a negative z (or the NaN itself).
static inline __m256d asin_acos_r_avx2(__m256d z) {
  static constexpr double p[] = {1.66666666666666657415e-01, -3.25565818622400915405e-01,
                                 2.01212532134862925881e-01, -4.00555345006794114027e-02,
                                 7.91534994289814532176e-04, 3.47933107596021167570e-05};
  static constexpr double q[] = {1.0, -2.40339491173441421878e+00, 2.02094576023350569471e+00,
                                 -6.88283971605453293030e-01, 7.70381505559019352791e-02};
  return _mm256_div_pd(_mm256_mul_pd(z, horner_avx2(z, p)), horner_avx2(z, q));
}
// the high 26 bits of s (low 32 bits of the double cleared): df * df is exact
static inline __m256d high_part_avx2(__m256d s) {
  return _mm256_and_pd(
      s, _mm256_castsi256_pd(_mm256_set1_epi64x(static_cast<long long>(0xffffffff00000000ULL))));
}
constexpr double kPio2Hi = 1.57079632679489655800e+00, kPio2Lo = 6.12323399573676603587e-17;
constexpr double kPio4Hi = 7.85398163397448278999e-01;

static inline __m256d asin_avx2_f64(__m256d x) {
  const __m256d sign = _mm256_set1_pd(-0.0);
  const __m256d ax = _mm256_andnot_pd(sign, x);
  const __m256d small = _mm256_cmp_pd(ax, _mm256_set1_pd(0.5), _CMP_LT_OQ);
  const __m256d zb = _mm256_mul_pd(_mm256_sub_pd(_mm256_set1_pd(1.0), ax), _mm256_set1_pd(0.5));
  const __m256d z = _mm256_blendv_pd(zb, _mm256_mul_pd(x, x), small);
  const __m256d r = asin_acos_r_avx2(z);
  const __m256d rs = _mm256_fmadd_pd(x, r, x);  // |x| < 0.5 (tiny x: x itself, -0 kept)
  const __m256d s = _mm256_sqrt_pd(zb);
  // 0.975 <= |x| <= 1 (e_asin.c's bound 0x3fef3333): pi/2 - (2 (s + s r) - lo)
  const __m256d two = _mm256_set1_pd(2.0);
  const __m256d ra =
      _mm256_sub_pd(_mm256_set1_pd(kPio2Hi),
                    _mm256_sub_pd(_mm256_mul_pd(two, _mm256_fmadd_pd(s, r, s)), _mm256_set1_pd(kPio2Lo)));
  // 0.5 <= |x| < 0.975: pi/4 - ((2 s r - (lo - 2 c)) - (pi/4 - 2 df))
  const __m256d df = high_part_avx2(s);
  const __m256d c = _mm256_div_pd(_mm256_fnmadd_pd(df, df, zb), _mm256_add_pd(s, df));
  const __m256d pp = _mm256_sub_pd(_mm256_mul_pd(_mm256_mul_pd(two, s), r),
                                   _mm256_fnmadd_pd(two, c, _mm256_set1_pd(kPio2Lo)));
  const __m256d qq = _mm256_fnmadd_pd(two, df, _mm256_set1_pd(kPio4Hi));
  const __m256d rb = _mm256_sub_pd(_mm256_set1_pd(kPio4Hi), _mm256_sub_pd(pp, qq));
  const __m256d big =
      _mm256_blendv_pd(rb, ra, _mm256_cmp_pd(ax, _mm256_set1_pd(0.97499990463256836), _CMP_GE_OQ));
  // the big lanes' sign from x (a NaN keeps its bits through the sum)
  const __m256d signed_big = _mm256_or_pd(big, _mm256_and_pd(x, sign));
  return _mm256_blendv_pd(signed_big, rs, small);
}

static inline __m256d acos_avx2_f64(__m256d x) {
  const __m256d sign = _mm256_set1_pd(-0.0);
  const __m256d ax = _mm256_andnot_pd(sign, x);
  const __m256d one = _mm256_set1_pd(1.0), two = _mm256_set1_pd(2.0), half = _mm256_set1_pd(0.5);
  const __m256d small = _mm256_cmp_pd(ax, half, _CMP_LT_OQ);
  const __m256d zb = _mm256_mul_pd(_mm256_sub_pd(one, ax), half);
  const __m256d z = _mm256_blendv_pd(zb, _mm256_mul_pd(x, x), small);
  const __m256d r = asin_acos_r_avx2(z);
  // |x| < 0.5: pi/2 - (x - (lo - x r))
  const __m256d rs = _mm256_sub_pd(_mm256_set1_pd(kPio2Hi),
                                   _mm256_sub_pd(x, _mm256_fnmadd_pd(x, r, _mm256_set1_pd(kPio2Lo))));
  const __m256d s = _mm256_sqrt_pd(zb);
  // x <= -0.5: pi - 2 (s + (r s - lo)); x = -1 gives pi + 2 lo, pi rounded
  const __m256d w = _mm256_fmsub_pd(r, s, _mm256_set1_pd(kPio2Lo));
  const __m256d rn = _mm256_fnmadd_pd(two, _mm256_add_pd(s, w), _mm256_set1_pd(3.14159265358979311600e+00));
  // x >= 0.5: 2 (df + (r s + c)); x = 1 (s = df = 0, c = 0/0) is 0
  const __m256d df = high_part_avx2(s);
  const __m256d c = _mm256_div_pd(_mm256_fnmadd_pd(df, df, zb), _mm256_add_pd(s, df));
  __m256d rp = _mm256_mul_pd(two, _mm256_add_pd(df, _mm256_fmadd_pd(r, s, c)));
  rp = _mm256_blendv_pd(rp, _mm256_setzero_pd(), _mm256_cmp_pd(x, one, _CMP_EQ_OQ));
  const __m256d big = _mm256_blendv_pd(rp, rn, _mm256_cmp_pd(x, _mm256_setzero_pd(), _CMP_LT_OQ));
  return _mm256_blendv_pd(big, rs, small);
}

}  // namespace
