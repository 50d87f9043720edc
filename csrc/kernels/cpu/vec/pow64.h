// float64 pow, written once for AVX2 (four lanes) and AVX-512 (eight): the same operations on each width, so
// the same bits wherever both take the fast path (x positive, finite and normal, y finite). The widths differ
// only in a few primitives (below): how the tables are read (vpermt2pd on AVX-512, gathers on AVX2), how k is
// taken from x's exponent (AVX2 has no 64-bit arithmetic shift), the clamps (vrangepd, min/max), the scaling
// by 2^floor(k) (vscalefpd; AVX2 two exact powers of two, one rounding as vscalefpd), and how a product is
// kept from being contracted into an add. The lanes off the fast path: AVX-512 C99's special cases in vector
// (pow64_special), AVX2 the C library's pow, as its scalar loop. Included by vec/unary_impl.h (AVX-512, and
// AVX2 without SLEEF, where the C library's pow element by element ran at 0.91 of PyTorch's
// Sleef_powd4_u10), after avx2_math.h (scale_by_m_avx2) and avx512_math.h (lut16).
//
// AVX-512 replaces SLEEF 3.5.1's Sleef_powd8_u10avx512f, which PyTorch's wheel calls too: 1.69 vs 5.02 ns per
// element (3.0x) on 10k doubles in L1/L2, 2.7x at 1M (one core of the build machine, Sapphire Rapids; x
// log-uniform in [2^-10, 2^10], y = 2.5 or uniform in [-8, 8]); 2.1x where every vector has a negative x
// (x**3 on signed data: the special-case path). Inlined into the loop, as here; kept out of line (its
// constants loaded per call) it costs 1.86 ns.
//
// |x|^y = exp(y log x), log x and y log x carried as double-doubles:
//   log x = k ln2 + log c + log1p(r), c from a 32-entry table, r = z/c - 1 exact in one FMA (z = x 2^-k);
//   log1p(r) = r - r^2/2 + (-r^3/2) q(r), every term of size r^3 or more added exactly (Fast2Sum): log x =
//   lhi + llo to ~2^-69 of itself (q's fit), |llo| < 2^-19.8 |lhi| (fit.py);
//   y log x = ehi + elo (the product's error from an FMA, plus y llo);
//   exp(ehi + elo) = 2^floor(n/16) 2^((n mod 16)/16) exp(s), s = ehi - (n/16) ln2 + elo, |s| <= ln2/32 +
//   2^-8: the 16-entry table and the reduction of avx512_math.h's exp_avx512_f64, then a degree-7 expm1.
// Error budget beyond the final rounding: exp's roundings (s: 2^-59 absolute; T em1 + T_lo: 2^-58 of the
// result) and polynomial (2^-64.4), log's polynomial times |y log x| <= 745 (2^-60): < 0.07 ulp. Subnormal
// results round twice (e to 53 bits, then vscalefpd to the subnormal grid): < 0.25 + 0.5 + 0.07 ulp of
// 2^-1074.
//
// Measured against long double powl (a C harness, 5M pairs per set; the worst point of each set re-measured
// with mpmath), on normal or overflowing results: 0.545 ulp with x log-uniform over all normals
// and |y| <= 30; 0.553 with x in [0.5, 2] and |y| <= 1000; 0.551 with |x - 1| <= 2^-20 and y log x up to
// +-745 (|y| <= 1e12); 0.547 near overflow; 0.550 with x < 0 and integer y; 0.552 with subnormal x; 0.552
// with x within 0.05 of 1 and |y log x| in [600, 709] (where the cubic term is largest next to log x). SLEEF:
// 0.65 to 0.76 on the same sets. Subnormal results: 0.759 ulp of 2^-1074 (SLEEF 0.807).
//
// On AVX-512 the 32-entry tables are fetched with vpermt2pd pairs and a blend (log c as hi + lo) and one
// vpermt2d (1/c, whose low words are 0), no gathers: vgatherqpd for the two 64-bit tables measured 5% slower
// here, and gathers are reportedly several times slower on CPUs with Intel's gather data sampling (Downfall)
// mitigation. Tables and polynomials: scripts/fit_pow64_tables.py (Remez and a linear program, in mpmath
// and scipy).
//
// C99's special cases (F.10.4.4) take a slow path, chosen by two vfpclasspd and one kortest, so the common
// case (x > 0 finite normal, y finite; over- and underflowing results included) pays nothing for them. It
// matches glibc's pow bit for bit on every pair of 42 special and ordinary values (+-0, +-inf, NaN, +-1, odd
// and even integers up to 2^60, 2^53 - 1, +-0.5, +-2.5, DBL_MAX, DBL_MIN, subnormals, 1 +- ulp, ...) in each
// lane of an otherwise ordinary vector, save for 4 inexact results (0.5 to 0.61 ulp) that glibc rounds the
// other way; a special lane never changes the others' bits (the slow path computes ordinary lanes
// identically; checked on 1M random vectors too). The same bits under -O0 to -O3, -ffp-contract=off or
// fast, GCC 12 and clang 14, on both widths (a harness over the hard sets of test_vec_pow_softplus.py and
// 400k random pairs). AVX-512 needs -mavx512f -mavx512dq -mfma, AVX2 -mavx2 -mfma.
#pragma once
#include <immintrin.h>

#include <cstdint>

#include "kernels/cpu/vec/exp64_table.h"  // kExp2jHi/Lo = 2^(j/16)

namespace {

// log: x = 2^k z, z in [OFF, 2 OFF), OFF = 0x3FE6C00000000000 = 0.7109375: bits(x) - OFF has k in its top 12
// bits and the interval index j in the next 5 (32 intervals of z, 1/64 wide below 1, 1/32 above). Interval
// 18 is [1 - 1/128, 1 + 1/64) with invc = 1 and log c = 0, so near x = 1, r = z - 1 is exact and log x keeps
// its relative accuracy. Elsewhere invc = 1/c is a multiple of 2^-q with q <= 7, chosen so that z invc - 1 is
// a multiple of 2^-(52+q) or 2^-(53+q) smaller than 2^-(q-1) or 2^-q: r = z invc - 1 is exact in one FMA;
// r in [-0.0198, 0.0168]. -log(invc) = LogCHi + LogCLo with LogCHi a multiple of 2^-42, as is ln2_hi, so
// k ln2_hi + LogCHi is exact (|k| <= 1074, |sum| < 2^10). All from scripts/fit_pow64_tables.py.
alignas(64) static const uint32_t kPow64InvCHi[32] = {
    // high words; the low words are 0
    0x3FF64000, 0x3FF5C000, 0x3FF54000, 0x3FF50000, 0x3FF48000, 0x3FF40000, 0x3FF3C000, 0x3FF34000,
    0x3FF30000, 0x3FF28000, 0x3FF24000, 0x3FF20000, 0x3FF1C000, 0x3FF14000, 0x3FF10000, 0x3FF0C000,
    0x3FF08000, 0x3FF04000, 0x3FF00000, 0x3FEF0000, 0x3FEE0000, 0x3FED4000, 0x3FEC8000, 0x3FEB8000,
    0x3FEB0000, 0x3FEA4000, 0x3FE98000, 0x3FE90000, 0x3FE88000, 0x3FE7C000, 0x3FE74000, 0x3FE6C000,
};
alignas(64) static const double kPow64LogCHi[32] = {
    -0.32975328637257917,
    -0.30702503529482783,
    -0.28376817313073843,
    -0.2719337154835557,
    -0.2478361639045943,
    -0.22314355131425145,
    -0.21056476910735,
    -0.18492233849406148,
    -0.17185025692674571,
    -0.14518200984457508,
    -0.13157635778861732,
    -0.11778303565643,
    -0.10379679368156758,
    -0.07522342123752424,
    -0.06062462181648698,
    -0.0458095360313564,
    -0.03077165866670839,
    -0.015504186535963527,
    0.0,
    0.03174869831468641,
    0.0645385211375924,
    0.08985632912185793,
    0.11583181552509814,
    0.151549898127314,
    0.16989903679541385,
    0.19806991376208316,
    0.22705745063535687,
    0.2468600779316148,
    0.2670627852489815,
    0.29815337231912054,
    0.3194307707663029,
    0.3411707574027787,
};
alignas(64) static const double kPow64LogCLo[32] = {
    1.1118671389559323e-13,
    -8.403156304792425e-14,
    9.3834172236637e-14,
    -8.604306772808733e-14,
    1.3029797173308663e-14,
    4.169796584527195e-14,
    3.6507188831790577e-16,
    4.9485167661250996e-14,
    8.649239607212071e-14,
    7.718001336828099e-14,
    -1.0195735223708473e-13,
    4.654729747598445e-14,
    -7.598636597194141e-14,
    -6.329065958724544e-14,
    5.213620639136504e-14,
    6.219834199475792e-14,
    -4.529814257790929e-14,
    -1.7274567499706107e-15,
    0.0,
    -1.0610652735224087e-13,
    -2.1225608044809997e-14,
    3.1218748807418837e-15,
    2.3568822182038756e-14,
    -1.1307104809870373e-13,
    -1.6376276414097503e-14,
    1.0634128304268335e-14,
    -1.078736749871691e-14,
    -8.899851356560444e-14,
    6.371947269815667e-14,
    -4.4204083338755686e-14,
    5.834357420090924e-14,
    -1.156568624616423e-14,
};

// The primitives that differ between the widths, one overload per width.

// v, opaque to the compiler: a product whose rounding error an FMA recovers must not be contracted into a
// neighbouring add (g++'s default -ffp-contract=fast). AVX-512 rounds these with {rn-sae} instead (the same
// vmulpd, which GCC never contracts).
static inline __m256d pow64_mul(__m256d a, __m256d b) {
  __m256d v = _mm256_mul_pd(a, b);
  __asm__("" : "+x"(v));
  return v;
}
static inline __m256d pow64_fma(__m256d a, __m256d b, __m256d c) {
  return _mm256_fmadd_pd(a, b, c);
}
static inline __m256d pow64_fms(__m256d a, __m256d b, __m256d c) {
  return _mm256_fmsub_pd(a, b, c);
}
static inline __m256d pow64_fnma(__m256d a, __m256d b, __m256d c) {
  return _mm256_fnmadd_pd(a, b, c);
}
// The log reduction (the tables above): x = 2^k z, k as a double, z, 1/c and log c = lch + lcl. AVX2 has no
// 64-bit arithmetic shift: k from the high words (each shifted by 20, the four gathered into int32 lanes);
// the tables gathered, 1/c from its high words.
static inline void pow64_reduce(__m256d x, __m256d& kd, __m256d& z, __m256d& invc, __m256d& lch,
                                __m256d& lcl) {
  const __m256i ix = _mm256_castpd_si256(x);
  const __m256i tmp = _mm256_sub_epi64(ix, _mm256_set1_epi64x(0x3FE6C00000000000LL));
  const __m256i idx = _mm256_and_si256(_mm256_srli_epi64(tmp, 47), _mm256_set1_epi64x(31));
  const __m256i hw =
      _mm256_permutevar8x32_epi32(_mm256_srai_epi32(tmp, 20), _mm256_setr_epi32(1, 3, 5, 7, 1, 3, 5, 7));
  kd = _mm256_cvtepi32_pd(_mm256_castsi256_si128(hw));
  z = _mm256_castsi256_pd(_mm256_sub_epi64(ix, _mm256_and_si256(tmp, _mm256_set1_epi64x(-(1LL << 52)))));
  const __m128i ich = _mm256_i64gather_epi32(reinterpret_cast<const int*>(kPow64InvCHi), idx, 4);
  invc = _mm256_castsi256_pd(_mm256_slli_epi64(_mm256_cvtepu32_epi64(ich), 32));
  lch = _mm256_i64gather_pd(kPow64LogCHi, idx, 8);
  lcl = _mm256_i64gather_pd(kPow64LogCLo, idx, 8);
}
// |v| clamped to b keeping its sign; a NaN gives b (as vrangepd gives the bound: min returns its second
// operand for NaN)
static inline __m256d pow64_clamp(__m256d v, double b) {
  return _mm256_max_pd(_mm256_min_pd(v, _mm256_set1_pd(b)), _mm256_set1_pd(-b));
}
// 2^(j/16) as hi + lo for j = 16 k mod 16, from the low bits of t = 16 k + 1.5 * 2^52 (in units of 2^-4)
static inline void pow64_exp2j(__m256d t, __m256d& th, __m256d& tl) {
  const __m256i j = _mm256_and_si256(_mm256_castpd_si256(t), _mm256_set1_epi64x(15));
  th = _mm256_i64gather_pd(kExp2jHi, j, 8);
  tl = _mm256_i64gather_pd(kExp2jLo, j, 8);
}
// e 2^floor(k): avx2_math.h's two exact powers of two from m = 16 k (t's mantissa less the shift's)
static inline __m256d pow64_scale(__m256d e, __m256d, __m256d t) {
  const __m256i m =
      _mm256_sub_epi64(_mm256_castpd_si256(t), _mm256_castpd_si256(_mm256_set1_pd(422212465065984.0)));
  return scale_by_m_avx2(e, m);  // |16 k| <= 16 * 1443: within its range
}

#ifdef MT_VEC_AVX512
static inline __m512d pow64_mul(__m512d a, __m512d b) {
  return _mm512_mul_round_pd(a, b, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
}
static inline __m512d pow64_fma(__m512d a, __m512d b, __m512d c) {
  return _mm512_fmadd_pd(a, b, c);
}
static inline __m512d pow64_fms(__m512d a, __m512d b, __m512d c) {
  return _mm512_fmsub_pd(a, b, c);
}
static inline __m512d pow64_fnma(__m512d a, __m512d b, __m512d c) {
  return _mm512_fnmadd_pd(a, b, c);
}
// 32-entry lookup: two vpermt2pd (entries 0-15 and 16-31, each reading index bits 3:0) and a blend on bit 4
// (upper).
static inline __m512d pow64_lut32(__m512i i, __mmask8 upper, const double* t) {
  const __m512d a = _mm512_permutex2var_pd(_mm512_load_pd(t), i, _mm512_load_pd(t + 8));
  const __m512d b = _mm512_permutex2var_pd(_mm512_load_pd(t + 16), i, _mm512_load_pd(t + 24));
  return _mm512_mask_blend_pd(upper, a, b);
}
static inline void pow64_reduce(__m512d x, __m512d& kd, __m512d& z, __m512d& invc, __m512d& lch,
                                __m512d& lcl) {
  const __m512i ix = _mm512_castpd_si512(x);
  const __m512i tmp = _mm512_sub_epi64(ix, _mm512_set1_epi64(0x3FE6C00000000000LL));
  const __m512i idx = _mm512_srli_epi64(tmp, 47);
  const __mmask8 upper = _mm512_test_epi64_mask(tmp, _mm512_set1_epi64(1LL << 51));
  kd = _mm512_cvtepi64_pd(_mm512_srai_epi64(tmp, 52));
  z = _mm512_castsi512_pd(_mm512_sub_epi64(ix, _mm512_and_si512(tmp, _mm512_set1_epi64(-(1LL << 52)))));
  // invc: its high words from one vpermt2d (index bits 36:32 = tmp bits 51:47; the low words zeroed)
  invc = _mm512_castsi512_pd(_mm512_maskz_permutex2var_epi32(0xAAAA, _mm512_load_si512(kPow64InvCHi),
                                                             _mm512_srli_epi64(tmp, 15),
                                                             _mm512_load_si512(kPow64InvCHi + 16)));
  lch = pow64_lut32(idx, upper, kPow64LogCHi);
  lcl = pow64_lut32(idx, upper, kPow64LogCLo);
}
// vrangepd 0x02: the smaller magnitude, the sign of the first operand; for a quiet NaN it returns the bound
static inline __m512d pow64_clamp(__m512d v, double b) {
  return _mm512_range_pd(v, _mm512_set1_pd(b), 0x02);
}
static inline void pow64_exp2j(__m512d t, __m512d& th, __m512d& tl) {
  const __m512i j = _mm512_castpd_si512(t);  // lut16 reads its bits 3:0
  th = lut16(j, kExp2jHi);
  tl = lut16(j, kExp2jLo);
}
// times 2^floor(k): overflow to inf, gradual underflow (one more rounding)
static inline __m512d pow64_scale(__m512d e, __m512d k, __m512d) {
  return _mm512_scalef_pd(e, k);
}
// log x for the classes of x QNaN, SNaN, 0, +1, -inf, +inf, negative, positive: NaN, NaN, -inf, +0, (keep),
// +inf, (keep), keep (the special-case path's)
static inline __m512d pow64_fixup(__m512d lhi, __m512d x) {
  return _mm512_fixupimm_pd(lhi, x, _mm512_set1_epi64(0x00508422), 0);
}
#endif

// x^y for x > 0 finite normal and y finite (the outline at the top of the file), in the lanes of V (__m256d
// or
// __m512d). kSlow (AVX-512's special-case path): x may also be 0, inf, NaN (through vfixupimmpd on log x: 0
// -> -inf, inf -> +inf, NaN -> NaN; the vrangepd clamps below then give 0 / inf) or a subnormal scaled by
// 2^52 with kbias = -52. An ordinary lane gets the same bits either way. The products whose rounding an
// error-free transformation captures (ar2, ar3, pa, ehi) go through pow64_mul, never contracted into a
// neighbouring add.
template <bool kSlow, typename V>
static inline V pow64_core(V x, V y, V kbias) {
  V kd, z, invc, lch, lcl;
  pow64_reduce(x, kd, z, invc, lch, lcl);
  if constexpr (kSlow) kd = kd + kbias;
  const V r = pow64_fms(z, invc, V{} + 1.0);                  // exact
  const V t1 = pow64_fma(kd, V{} + 0.6931471805598903, lch);  // exact
  const V lo1 = pow64_fma(kd, V{} + 5.497923018708371e-14, lcl);
  // Fast2Sum: |t1| >= |r| wherever t1 != 0 (scripts/fit_pow64_tables.py checks |LogCHi| >= max |r| of its
  // interval)
  const V t2 = t1 + r;
  const V lo2 = (t1 - t2) + r;
  // -r^2/2 = ar2 + lo3 exactly; Fast2Sum t2 + ar2 (|ar2| = r^2/2 < |t2|)
  const V ar = r * -0.5;
  const V ar2 = pow64_mul(r, ar);
  const V lo3 = pow64_fms(r, ar, ar2);
  const V hi = t2 + ar2;
  const V lo4 = (t2 - hi) + ar2;
  // The cubic and higher terms: p = (-r^3/2) q(r), q = B0 + r q1(r) of degree 7 (scripts/fit_pow64_tables.py:
  // log1p's error relative to log1p(r) 2^-69.5). p is up to 2^-13.4 of log x (scripts/fit_pow64_tables.py),
  // so with |y log x| up to 745 each rounding of its size would cost up to 0.13 ulp (measured: 0.60 instead
  // of 0.55 ulp at worst with one, with x within 0.05 of 1 and |y log x| in [600, 709]): -r^3/2 = r (ar2 +
  // lo3) = ar3 + e3 (ar3 = r ar2 rounded, e3 its error plus r lo3, to 2^-100 of r^3), and ar3 B0 = pa + plo
  // exactly; pa joins hi (Fast2Sum), the rest (ar3 r q1 ~ r^4/4, e3 B0, plo) joins lo.
  const V ar3 = pow64_mul(r, ar2);
  const V e3 = pow64_fma(r, lo3, pow64_fms(r, ar2, ar3));
  // q1 by Estrin's scheme in r and ar2 = -r^2/2 (B3, B4 times -2, B5, B6 times 4, B7 times -8: exact)
  const V a1 = pow64_fma(V{} - 0.40000000000223407, r, V{} + 0.49999999999998657);
  const V a3 = pow64_fma(V{} + 0.5714285164537779, r, V{} - 0.6666666671986851);
  const V a5 = pow64_fma(V{} - 0.8893770182211469, r, V{} + 0.9999938671298293);
  V q1 = pow64_fma(V{} - 1.6219070811261673, ar2, a5);
  q1 = pow64_fma(q1, ar2, a3);
  q1 = pow64_fma(q1, ar2, a1);
  const V b0 = V{} - 0.6666666666666666;
  const V pa = pow64_mul(ar3, b0);
  V lo = pow64_fma(ar3 * r, q1, pow64_fms(ar3, b0, pa));
  lo = pow64_fma(e3, b0, lo);
  lo = lo + ((lo1 + lo2) + (lo3 + lo4));
  // Fast2Sum hi + pa (|pa| < 2^-13 |hi|); |llo| < 2^-19.8 |lhi| (scripts/fit_pow64_tables.py)
  V lhi = hi + pa;
  const V llo = ((hi - lhi) + pa) + lo;
  if constexpr (kSlow) lhi = pow64_fixup(lhi, x);
  const V ehi = pow64_mul(y, lhi);
  const V elo = pow64_fma(y, llo, pow64_fms(y, lhi, ehi));
  // |ehi| clamped to 1000 (exp is inf / 0 beyond 709.8 / -745.2; keeps the 2^48 shift below valid), |elo| to
  // 2^-8 (it is below 2^-9.8 wherever |ehi| <= 1000; where y lhi overflowed or is NaN it is +-inf or NaN). A
  // NaN clamps to the bound, so every clamped lane stays finite (AVX-512's special-case path restores NaN).
  const V w = pow64_clamp(ehi, 1000.0);
  const V wl = pow64_clamp(elo, 0.00390625);
  // exp as exp_avx512_f64 / exp_avx2_f64: n/16 = k from the 1.5 * 2^48 shift (t's low mantissa bits are 16 k
  // mod 16), rh = w - k ln2_hi exact (ln2_hi 16 times a double, k a multiple of 1/16), s = rh + (elo - k
  // ln2_lo) rounded once (|s| < 2^-5: 2^-59 absolute)
  const V shift = V{} + 422212465065984.0;  // 1.5 * 2^48
  const V t = pow64_fma(w, V{} + 1.4426950408889634, shift);
  const V k = t - shift;
  const V rh = pow64_fnma(k, V{} + 0.6931471805599453, w);
  const V s = rh + pow64_fnma(k, V{} + 2.3190468138462996e-17, wl);
  // exp(s) - 1 = s + s^2 P(s), P of degree 5 (scripts/fit_pow64_tables.py: 2^-64.4 relative to exp(s) on |s|
  // <= ln2/32 + 2^-8), Estrin's scheme
  const V s2 = s * s;
  const V p01 = pow64_fma(V{} + 0.1666666666666654, s, V{} + 0.5000000000000012);
  const V p23 = pow64_fma(V{} + 0.008333333337993167, s, V{} + 0.04166666665507901);
  const V p45 = pow64_fma(V{} + 0.00019841016308786493, s, V{} + 0.0013889198172409812);
  const V p = pow64_fma(pow64_fma(p45, s2, p23), s2, p01);
  const V em1 = pow64_fma(s2, p, s);
  V th, tl;
  pow64_exp2j(t, th, tl);
  return pow64_scale(th + pow64_fma(th, em1, tl), k, t);  // |16 k| <= 16 * 1443
}

// AVX2: the fast path where every x is positive, finite and normal and every y finite (over- and underflowing
// results included); otherwise those lanes by the C library (the others computed at x = y = 1 and replaced)
static inline __m256d pow64(__m256d x, __m256d y) {
  const __m256d inf = _mm256_set1_pd(__builtin_inf());
  const __m256d ok =
      _mm256_and_pd(_mm256_and_pd(_mm256_cmp_pd(x, _mm256_set1_pd(2.2250738585072014e-308), _CMP_GE_OQ),
                                  _mm256_cmp_pd(x, inf, _CMP_LT_OQ)),
                    _mm256_cmp_pd(_mm256_andnot_pd(_mm256_set1_pd(-0.0), y), inf, _CMP_LT_OQ));
  const int mask = _mm256_movemask_pd(ok);
  if (__builtin_expect(mask == 0xf, 1)) return pow64_core<false>(x, y, __m256d{});
  const __m256d one = _mm256_set1_pd(1.0);
  __m256d r = pow64_core<false>(_mm256_blendv_pd(one, x, ok), _mm256_blendv_pd(one, y, ok), __m256d{});
  alignas(32) double xs[4], ys[4], rs[4];
  _mm256_store_pd(xs, x);
  _mm256_store_pd(ys, y);
  _mm256_store_pd(rs, r);
  for (int i = 0; i < 4; ++i)
    if (!(mask >> i & 1)) rs[i] = __builtin_pow(xs[i], ys[i]);
  return _mm256_load_pd(rs);
}

#ifdef MT_VEC_AVX512
// The lanes C99 (F.10.4.4) defines apart, as avx512_pow.h's float32 pow_avx512_special: |x|^y first (x = 0,
// inf, NaN through pow64_core's fixup, y = +-inf through the clamp: |x| < 1 gives y log x = -+inf, |x| > 1
// +-inf; subnormal x scaled by 2^52), then the sign for x < 0 (-0 and -inf included) and odd integer y, NaN
// for finite x < 0 and finite non-integer y, NaN in -> NaN out, and 1 for y = +-0 (any x, NaN too), x = 1
// (any y, NaN too) and x = -1, y = +-inf.
static __m512d pow64_special(__m512d x, __m512d y) {
  const __m512d sign = _mm512_set1_pd(-0.0);
  const __m512d one = _mm512_set1_pd(1.0);
  const __m512d ax = _mm512_andnot_pd(sign, x);
  const __mmask8 sub = _mm512_fpclass_pd_mask(ax, 0x20);
  const __m512d axs = _mm512_mask_mul_pd(ax, sub, ax, _mm512_set1_pd(4503599627370496.0));
  __m512d res = pow64_core<true>(axs, y, _mm512_maskz_mov_pd(sub, _mm512_set1_pd(-52.0)));
  // y integer: round(y) == y (+-inf too, NaN not); odd: y/2 not an integer (|y| >= 2^53 is even)
  const __m512d yr = _mm512_roundscale_pd(y, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  const __mmask8 yint = _mm512_cmp_pd_mask(yr, y, _CMP_EQ_OQ);
  const __m512d yh = _mm512_mul_pd(y, _mm512_set1_pd(0.5));
  const __mmask8 yodd = _mm512_mask_cmp_pd_mask(
      yint, _mm512_roundscale_pd(yh, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC), yh, _CMP_NEQ_UQ);
  const __mmask8 xneg = _mm512_test_epi64_mask(_mm512_castpd_si512(x), _mm512_castpd_si512(sign));
  res = _mm512_mask_xor_pd(res, xneg & yodd, res, sign);
  // finite x < 0 (vfpclasspd 0x40: negative finite, subnormals included) and finite y not an integer (NaN y
  // compares unordered: not flagged, handled below)
  const __mmask8 bad = _mm512_mask_cmp_pd_mask(_mm512_fpclass_pd_mask(x, 0x40), yr, y, _CMP_NEQ_OQ);
  res = _mm512_mask_mov_pd(res, bad, _mm512_set1_pd(__builtin_nan("")));
  // NaN in, NaN out (x + y: quiet, a payload of either), save for the 1s below
  res = _mm512_mask_add_pd(res, _mm512_fpclass_pd_mask(x, 0x81) | _mm512_fpclass_pd_mask(y, 0x81), x, y);
  const __mmask8 unit = _mm512_cmp_pd_mask(y, _mm512_setzero_pd(), _CMP_EQ_OQ) |
                        _mm512_cmp_pd_mask(x, one, _CMP_EQ_OQ) |
                        _mm512_mask_cmp_pd_mask(_mm512_fpclass_pd_mask(y, 0x18), ax, one, _CMP_EQ_OQ);
  return _mm512_mask_mov_pd(res, unit, one);
}

// float64 pow(x, y) with C99's special cases. The fast path needs every x positive, finite and normal and
// every y finite: vfpclasspd 0xFF (NaN, +-0, +-inf, subnormal, negative) on x, 0x99 (NaN, +-inf) on y; over-
// and underflowing results (subnormal ones included) stay on it.
static inline __m512d pow64(__m512d x, __m512d y) {
  const __mmask8 special = _mm512_fpclass_pd_mask(x, 0xFF) | _mm512_fpclass_pd_mask(y, 0x99);
  if (__builtin_expect(special == 0, 1)) return pow64_core<false>(x, y, _mm512_setzero_pd());
  return pow64_special(x, y);
}
#endif

}  // namespace
