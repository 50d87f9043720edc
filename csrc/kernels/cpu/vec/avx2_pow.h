// float64 pow for AVX2 without SLEEF: avx512_pow.h's pow64_core in four lanes (its tables, reduction,
// double-double log and exp, operation for operation, so its bits and its measured 0.553 ulp on normal
// results), where the C library's pow element by element ran at 0.91 of PyTorch's Sleef_powd4_u10. AVX2 has
// no vpermt2pd, vscalefpd, vrangepd or 64-bit arithmetic shift: the tables are gathered, 2^floor(k) is
// avx2_math.h's two exact powers of two (one rounding, as vscalefpd), the clamps are min/max, and k comes
// from the high words. Lanes outside the fast path (x not positive, finite and normal, or y not finite) take
// the C library's pow, as the scalar loop. Included only by vec/unary_impl.h (AVX2 without SLEEF), after
// avx2_math.h.
#pragma once
#include <immintrin.h>

#include <cstdint>

#include "kernels/cpu/vec/exp64_table.h"   // kExp2jHi/Lo = 2^(j/16)
#include "kernels/cpu/vec/pow64_tables.h"  // the log tables

namespace {

// v, opaque to the compiler: a product whose rounding error an FMA recovers must not be contracted into a
// neighbouring add (g++'s default -ffp-contract=fast; AVX-512 rounds these with {rn-sae} for the same reason)
static inline __m256d pow64_opaque(__m256d v) {
  __asm__("" : "+x"(v));
  return v;
}

// x^y for x > 0 finite normal and y finite: avx512_pow.h's pow64_core<false>, its comments there
static inline __m256d pow64_core_avx2(__m256d x, __m256d y) {
  const __m256d one = _mm256_set1_pd(1.0);
  const __m256i ix = _mm256_castpd_si256(x);
  const __m256i tmp = _mm256_sub_epi64(ix, _mm256_set1_epi64x(0x3FE6C00000000000LL));
  const __m256i idx = _mm256_and_si256(_mm256_srli_epi64(tmp, 47), _mm256_set1_epi64x(31));
  // k = tmp >> 52, arithmetic: each high word shifted by 20, the four gathered into int32 lanes
  const __m256i hw =
      _mm256_permutevar8x32_epi32(_mm256_srai_epi32(tmp, 20), _mm256_setr_epi32(1, 3, 5, 7, 1, 3, 5, 7));
  const __m256d kd = _mm256_cvtepi32_pd(_mm256_castsi256_si128(hw));
  const __m256d z =
      _mm256_castsi256_pd(_mm256_sub_epi64(ix, _mm256_and_si256(tmp, _mm256_set1_epi64x(-(1LL << 52)))));
  // invc from its high word (the low word is 0)
  const __m128i ich = _mm256_i64gather_epi32(reinterpret_cast<const int*>(kPow64InvCHi), idx, 4);
  const __m256d invc = _mm256_castsi256_pd(_mm256_slli_epi64(_mm256_cvtepu32_epi64(ich), 32));
  const __m256d lch = _mm256_i64gather_pd(kPow64LogCHi, idx, 8);
  const __m256d lcl = _mm256_i64gather_pd(kPow64LogCLo, idx, 8);
  const __m256d r = _mm256_fmsub_pd(z, invc, one);                                  // exact
  const __m256d t1 = _mm256_fmadd_pd(kd, _mm256_set1_pd(0.6931471805598903), lch);  // exact
  const __m256d lo1 = _mm256_fmadd_pd(kd, _mm256_set1_pd(5.497923018708371e-14), lcl);
  const __m256d t2 = _mm256_add_pd(t1, r);
  const __m256d lo2 = _mm256_add_pd(_mm256_sub_pd(t1, t2), r);
  const __m256d ar = _mm256_mul_pd(r, _mm256_set1_pd(-0.5));
  const __m256d ar2 = pow64_opaque(_mm256_mul_pd(r, ar));
  const __m256d lo3 = _mm256_fmsub_pd(r, ar, ar2);
  const __m256d hi = _mm256_add_pd(t2, ar2);
  const __m256d lo4 = _mm256_add_pd(_mm256_sub_pd(t2, hi), ar2);
  const __m256d ar3 = pow64_opaque(_mm256_mul_pd(r, ar2));
  const __m256d e3 = _mm256_fmadd_pd(r, lo3, _mm256_fmsub_pd(r, ar2, ar3));
  const __m256d a1 =
      _mm256_fmadd_pd(_mm256_set1_pd(-0.40000000000223407), r, _mm256_set1_pd(0.49999999999998657));
  const __m256d a3 =
      _mm256_fmadd_pd(_mm256_set1_pd(0.5714285164537779), r, _mm256_set1_pd(-0.6666666671986851));
  const __m256d a5 =
      _mm256_fmadd_pd(_mm256_set1_pd(-0.8893770182211469), r, _mm256_set1_pd(0.9999938671298293));
  __m256d q1 = _mm256_fmadd_pd(_mm256_set1_pd(-1.6219070811261673), ar2, a5);
  q1 = _mm256_fmadd_pd(q1, ar2, a3);
  q1 = _mm256_fmadd_pd(q1, ar2, a1);
  const __m256d b0 = _mm256_set1_pd(-0.6666666666666666);
  const __m256d pa = pow64_opaque(_mm256_mul_pd(ar3, b0));
  __m256d lo = _mm256_fmadd_pd(_mm256_mul_pd(ar3, r), q1, _mm256_fmsub_pd(ar3, b0, pa));
  lo = _mm256_fmadd_pd(e3, b0, lo);
  lo = _mm256_add_pd(lo, _mm256_add_pd(_mm256_add_pd(lo1, lo2), _mm256_add_pd(lo3, lo4)));
  const __m256d lhi = _mm256_add_pd(hi, pa);
  const __m256d llo = _mm256_add_pd(_mm256_add_pd(_mm256_sub_pd(hi, lhi), pa), lo);
  const __m256d ehi = pow64_opaque(_mm256_mul_pd(y, lhi));
  const __m256d elo = _mm256_fmadd_pd(y, llo, _mm256_fmsub_pd(y, lhi, ehi));
  // |ehi| <= 1000, |elo| <= 2^-8, as vrangepd there (min returns its second operand, the bound, for NaN)
  const __m256d w = _mm256_max_pd(_mm256_min_pd(ehi, _mm256_set1_pd(1000.0)), _mm256_set1_pd(-1000.0));
  const __m256d wl =
      _mm256_max_pd(_mm256_min_pd(elo, _mm256_set1_pd(0.00390625)), _mm256_set1_pd(-0.00390625));
  const __m256d shift = _mm256_set1_pd(422212465065984.0);  // 1.5 * 2^48
  const __m256d t = _mm256_fmadd_pd(w, _mm256_set1_pd(1.4426950408889634), shift);
  const __m256d k = _mm256_sub_pd(t, shift);
  const __m256d rh = _mm256_fnmadd_pd(k, _mm256_set1_pd(0.6931471805599453), w);
  const __m256d s = _mm256_add_pd(rh, _mm256_fnmadd_pd(k, _mm256_set1_pd(2.3190468138462996e-17), wl));
  const __m256d s2 = _mm256_mul_pd(s, s);
  const __m256d p01 =
      _mm256_fmadd_pd(_mm256_set1_pd(0.1666666666666654), s, _mm256_set1_pd(0.5000000000000012));
  const __m256d p23 =
      _mm256_fmadd_pd(_mm256_set1_pd(0.008333333337993167), s, _mm256_set1_pd(0.04166666665507901));
  const __m256d p45 =
      _mm256_fmadd_pd(_mm256_set1_pd(0.00019841016308786493), s, _mm256_set1_pd(0.0013889198172409812));
  const __m256d p = _mm256_fmadd_pd(_mm256_fmadd_pd(p45, s2, p23), s2, p01);
  const __m256d em1 = _mm256_fmadd_pd(s2, p, s);
  // 16 k, and j = 16 k mod 16, from t's low bits (exp_parts_avx2's)
  const __m256i m = _mm256_sub_epi64(_mm256_castpd_si256(t), _mm256_castpd_si256(shift));
  const __m256i j = _mm256_and_si256(m, _mm256_set1_epi64x(15));
  const __m256d th = _mm256_i64gather_pd(kExp2jHi, j, 8);
  const __m256d e = _mm256_add_pd(th, _mm256_fmadd_pd(th, em1, _mm256_i64gather_pd(kExp2jLo, j, 8)));
  return scale_by_m_avx2(e, m);  // |16 k| <= 16 * 1443: within its range
}

// float64 pow(x, y): the fast path where every x is positive, finite and normal and every y finite (over- and
// underflowing results included); otherwise those lanes by the C library (the others computed at x = y = 1
// and replaced)
static inline __m256d pow_avx2_f64(__m256d x, __m256d y) {
  const __m256d inf = _mm256_set1_pd(__builtin_inf());
  const __m256d ok =
      _mm256_and_pd(_mm256_and_pd(_mm256_cmp_pd(x, _mm256_set1_pd(2.2250738585072014e-308), _CMP_GE_OQ),
                                  _mm256_cmp_pd(x, inf, _CMP_LT_OQ)),
                    _mm256_cmp_pd(_mm256_andnot_pd(_mm256_set1_pd(-0.0), y), inf, _CMP_LT_OQ));
  const int mask = _mm256_movemask_pd(ok);
  if (__builtin_expect(mask == 0xf, 1)) return pow64_core_avx2(x, y);
  const __m256d one = _mm256_set1_pd(1.0);
  __m256d r = pow64_core_avx2(_mm256_blendv_pd(one, x, ok), _mm256_blendv_pd(one, y, ok));
  alignas(32) double xs[4], ys[4], rs[4];
  _mm256_store_pd(xs, x);
  _mm256_store_pd(ys, y);
  _mm256_store_pd(rs, r);
  for (int i = 0; i < 4; ++i)
    if (!(mask >> i & 1)) rs[i] = __builtin_pow(xs[i], ys[i]);
  return _mm256_load_pd(rs);
}

}  // namespace
