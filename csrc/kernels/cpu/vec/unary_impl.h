// The vectorized unary loops, written once over GCC vector types; included by one file per instruction set,
// which defines VF/VD (float/double vectors), NF/ND (lanes), MT_ANY(mask) (whether any lane of a comparison
// is true), for AVX-512 MT_VEC_AVX512 (our own kernels), and SLEEF_F/SLEEF_D (the SLEEF function names) where
// the build has SLEEF. Without SLEEF, a function we have no vector kernel of our own for is computed lane by
// lane by the C library inside the few formulas that need it, and its own table entry stays empty, so the op
// runs the scalar functor (the same libm, the same results as MINITORCH_CPU_CAPABILITY=default). Everything
// here has internal linkage: these bodies are compiled for AVX and must never serve baseline code.
#include <type_traits>

#include "kernels/cpu/VecUnary.h"
#ifdef MT_VEC_AVX512
#include "kernels/cpu/vec/avx512_math.h"
#include "kernels/cpu/vec/avx512_pow.h"
#endif
// The random draws must give the scalar path's bits: no a * b + c fused into an FMA there (BoxMuller.h)
#pragma GCC push_options
#pragma GCC optimize("fp-contract=off")
#include "kernels/cpu/vec/random_impl.h"
#pragma GCC pop_options

namespace {

#ifdef SLEEF_F
#define MT_SLEEF 1
#define SLF(fn, x) SLEEF_F(fn)(x)
#define SLD(fn, x) SLEEF_D(fn)(x)
#else
// one libm call per lane (an external call: nothing compiled for AVX is shared with baseline code)
template <typename V, typename S, typename F>
static V per_lane(V x, F f) {
  V r = x;
  for (unsigned i = 0; i < sizeof(V) / sizeof(S); ++i) r[i] = f(x[i]);
  return r;
}
#define SLF(fn, x) per_lane<VF, float>(x, [](float v) { return __builtin_##fn##f(v); })
#define SLD(fn, x) per_lane<VD, double>(x, [](double v) { return __builtin_##fn(v); })
#endif
}  // namespace
// AVX2's float64 kernels; AVX-512 runs some of them over each half of its vectors (below)
#include "kernels/cpu/vec/avx2_f32_math.h"  // float32 log, log2, log10, asin, acos in float
#include "kernels/cpu/vec/avx2_math.h"
#if defined(MT_VEC_AVX512) || !defined(MT_SLEEF)
#include "kernels/cpu/vec/pow64.h"  // float64 pow: AVX-512 and AVX2 without SLEEF, the same bits
#endif
#include "kernels/cpu/vec/bessel_i.h"   // i0, i1 and their scaled forms, four double vectors at a time
#include "kernels/cpu/vec/gamma_f32.h"  // float32 lgamma and digamma through double, four lanes at a time
#ifndef MT_VEC_AVX512
#include "kernels/cpu/vec/erf_f32_lanes.h"  // AVX2: float32 erf
#include "kernels/cpu/vec/f32_via_f64.h"    // AVX2: f32_via_f64 and, without SLEEF, exp/log/log1p
#include "kernels/cpu/vec/pow_f32_avx2.h"   // AVX2: float32 pow, AVX-512's bits
#ifndef MT_SLEEF
#define MT_VEC_F32_VIA_F64 1  // AVX2 without SLEEF: the float functions SLEEF would serve, ours in double
#endif
#elif !defined(MT_SLEEF)
// AVX-512 without SLEEF: float64 log, log1p, sin, cos, erf and atan (and softplus, mish, gelu through them)
// take AVX2's kernels over each 256-bit half, the AVX2 path's bits, where the alternative is the C library
// element by element; with SLEEF they stay SLEEF's full-width functions
#define MT_VEC_F64_BY_HALVES 1
#endif
namespace {

#ifdef MT_VEC_AVX512
// f over the two 256-bit halves of an AVX-512 vector
template <typename F>
static inline __m512d by_halves(__m512d x, F f) {
  const __m256d lo = f(_mm512_castpd512_pd256(x)), hi = f(_mm512_extractf64x4_pd(x, 1));
  return _mm512_insertf64x4(_mm512_castpd256_pd512(lo), hi, 1);
}
template <typename F>
static inline __m512 by_halves(__m512 x, F f) {
  const __m256 lo = f(_mm512_castps512_ps256(x)), hi = f(_mm512_extractf32x8_ps(x, 1));
  return _mm512_insertf32x8(_mm512_castps256_ps512(lo), hi, 1);
}
#endif

// float exp: AVX-512 has our table kernel (avx512_math.h, 0.75 ulp, 1.28x SLEEF's expf), also inside the
// composed formulas (sigmoid, silu, gelu, softmax rows); AVX2 ours in float (avx2_math.h, 0.60 ulp), SLEEF or
// not
static VF exp_inner(VF x) {
#if defined(MT_VEC_AVX512)
  return exp_avx512(x);
#else
  return exp_avx2_f32(x);
#endif
}
// double exp: ours on both (avx512_math.h, avx2_math.h: within 0.65 ulp on normal results), for exp
// itself too
static VD exp_inner(VD x) {
#ifdef MT_VEC_AVX512
  return exp_avx512_f64(x);
#else
  return exp_avx2_f64(x);
#endif
}

// SLEEF's log1p returns inf above about 1e38 (float) / 1e307 (double), where log1p(x) == log(x): scale x by
// 2^-64 and add 64 ln 2 back (one more rounding, still within 1 ulp). It and tan also return 0 for the
// smallest subnormals, where the function is x itself.
template <typename V, typename S>
static V tiny_is_x(V x, V r, S tiny) {
  return (x > -tiny) & (x < tiny) ? x : r;
}
static VF log1p_wide(VF x) {
#ifdef MT_VEC_AVX512
  return tiny_is_x(x, log1p_avx512(x), 1e-30f);  // our table kernel (avx512_math.h), 1.7x SLEEF's
#elif defined(MT_VEC_F32_VIA_F64)
  return log_avx2_f32<1>(x);  // log's kernel in float (avx2_f32_math.h), 2x the double-lane form
#else
  const VF r = SLF(log1p, x > 1e38f ? x * 5.42101086e-20f : x);
  return tiny_is_x(x, x > 1e38f ? r + 44.3614195558365f : r, 1e-30f);
#endif
}
static VD log1p_wide(VD x) {
#ifndef MT_VEC_AVX512
  return log1p_avx2_f64(x);  // ours (avx2_math.h, fdlibm's method), SLEEF or not
#elif defined(MT_VEC_F64_BY_HALVES)
  return by_halves(x, log1p_avx2_f64);
#else
  const VD r = SLD(log1p, x > 1e300 ? x * 5.42101086242752217e-20 : x);
  return tiny_is_x(x, x > 1e300 ? r + 44.361419555836499802 : r, 1e-300);
#endif
}
// float expm1: ours through double (avx512_math.h, 0.50 ulp, 2x SLEEF's expm1f), AVX2 the same arithmetic in
// four lanes (f32_via_f64.h), with or without SLEEF
static VF expm1_fast(VF x) {
#ifdef MT_VEC_AVX512
  return tiny_is_x(x, expm1_avx512(x), 1e-30f);
#else
  return tiny_is_x(x, expm1_avx2_f32(x), 1e-30f);
#endif
}
// double expm1: AVX2 without SLEEF has ours (avx2_math.h, on exp's reduction and table), AVX-512 without
// SLEEF the same in eight lanes (avx512_math.h, AVX2's bits)
static VD expm1_fast(VD x) {
#if defined(MT_VEC_AVX512) && !defined(MT_SLEEF)
  return expm1_avx512_f64(x);
#elif defined(MT_VEC_F32_VIA_F64)
  return expm1_avx2_f64(x);
#else
  return SLD(expm1, x);
#endif
}
// float tan: AVX2 without SLEEF has ours through double for |x| <= 2^20 (f32_via_f64.h), the C library's
// lane by lane beyond
static VF tan_tiny(VF x) {
#ifdef MT_VEC_F32_VIA_F64
  return tan_f32_own(x, [](VF v) { return SLF(tan, v); });
#else
  return tiny_is_x(x, SLF(tan, x), 1e-30f);
#endif
}
// double tan: AVX2 without SLEEF has ours for |x| <= 2^20 pi/2 (avx2_math.h: sin's reduction, k_tan.c's
// kernel), the C library's lane by lane beyond
static VD tan_tiny(VD x) {
#ifdef MT_VEC_F32_VIA_F64
  const __m256d r = tan_avx2_f64(x);
  const __m256d ok = sincos_f64_in_range_avx2(x);
  if (_mm256_movemask_pd(ok) == 0xf) return r;
  return _mm256_blendv_pd(SLD(tan, x), r, ok);
#else
  return tiny_is_x(x, SLD(tan, x), 1e-300);
#endif
}

// float32 atanh: AVX2 without SLEEF has ours (f32_via_f64.h: log's series on (1 + a) / (1 - a) in double),
// AVX-512 ours through double (avx512_math.h, 0.5 ulp), AVX2 with SLEEF SLEEF's. float64: ours (avx2_math.h:
// 0.5 log of the quotient carried as a double-double, under 1 ulp; glibc's ran at 0.17 of PyTorch's speed),
// AVX-512 over each half of its vectors (the same bits), SLEEF or not.
#ifdef MT_VEC_F32_VIA_F64
static VF atanh_fast(VF x) {
  return atanh_f32_own(x);
}
#else
static VF atanh_fast(VF x) {
#ifdef MT_VEC_AVX512
  return atanh_avx512(x);
#else
  return tiny_is_x(x, SLF(atanh, x), 1e-30f);
#endif
}
#endif
static VD atanh_fast(VD x) {
#ifndef MT_VEC_AVX512
  return atanh_avx2_f64(x);
#else
  return by_halves(x, atanh_avx2_f64);
#endif
}

// float exp2: ours in float on both, SLEEF or not (avx2_math.h on exp's polynomial; avx512_math.h on exp's
// table, 0.75 ulp)
static VF exp2_fast(VF x) {
#ifdef MT_VEC_AVX512
  return exp2_avx512(x);
#else
  return exp2_avx2_f32(x);
#endif
}
// float log2, log10, asin, acos: AVX2 without SLEEF has ours in float (avx2_f32_math.h: log's table with
// the product by 1/ln(base) carried as hi + lo; asin/acos with the square root as hi + lo), AVX-512 the same
// log2/log10 over each half of its vectors (AVX2's bits, SLEEF or not) and AVX2's asin/acos rows; AVX2 with
// SLEEF SLEEF's
static VF log2_fast(VF x) {
#ifdef MT_VEC_AVX512
  return by_halves(x, log_avx2_f32<2>);
#elif defined(MT_VEC_F32_VIA_F64)
  return log_avx2_f32<2>(x);
#else
  return SLF(log2, x);
#endif
}
static VF log10_fast(VF x) {
#ifdef MT_VEC_AVX512
  return by_halves(x, log_avx2_f32<10>);
#elif defined(MT_VEC_F32_VIA_F64)
  return log_avx2_f32<10>(x);
#else
  return SLF(log10, x);
#endif
}
#ifdef MT_VEC_F32_VIA_F64
static VF asin_fast(VF x) {
  return asin_acos_avx2_f32<false>(x);
}
static VF acos_fast(VF x) {
  return asin_acos_avx2_f32<true>(x);
}
#else
static VF asin_fast(VF x) {
  return SLF(asin, x);
}
static VF acos_fast(VF x) {
  return SLF(acos, x);
}
#endif
// double exp2: ours on both, SLEEF or not (avx2_math.h on exp's table and the exact reduction x = k + f;
// avx512_math.h the same operations in eight lanes, AVX2's bits)
static VD exp2_fast(VD x) {
#ifdef MT_VEC_AVX512
  return exp2_avx512_f64(x);
#else
  return exp2_avx2_f64(x);
#endif
}
// sinh and cosh: AVX2 has ours (avx2_math.h), float32 through it in double, SLEEF or not (SLEEF's float
// sinh/cosh overflow early; fill_table leaves their entries empty elsewhere); float64 where there is no SLEEF
#ifndef MT_VEC_AVX512
static VF sinh_fast(VF x) {
  return f32_via_f64(x, coshsinh_avx2_f64<true>);
}
static VF cosh_fast(VF x) {
  return f32_via_f64(x, coshsinh_avx2_f64<false>);
}
#else
static VF sinh_fast(VF x) {
  return SLF(sinh, x);
}
static VF cosh_fast(VF x) {
  return SLF(cosh, x);
}
#endif
#ifdef MT_VEC_F32_VIA_F64
static VD sinh_fast(VD x) {
  return coshsinh_avx2_f64<true>(x);
}
static VD cosh_fast(VD x) {
  return coshsinh_avx2_f64<false>(x);
}
#elif defined(MT_VEC_AVX512) && !defined(MT_SLEEF)
// AVX-512 without SLEEF: AVX2's kernel in eight lanes (avx512_math.h, AVX2's bits)
static VD sinh_fast(VD x) {
  return coshsinh_avx512_f64<true>(x);
}
static VD cosh_fast(VD x) {
  return coshsinh_avx512_f64<false>(x);
}
#else
static VD sinh_fast(VD x) {
  return SLD(sinh, x);
}
static VD cosh_fast(VD x) {
  return SLD(cosh, x);
}
#endif
// double log2 and log10: AVX2 without SLEEF has ours (avx2_math.h, log's split with a double-double tail)
static VD log2_fast(VD x) {
#ifdef MT_VEC_F32_VIA_F64
  return log2or10_avx2_f64<false>(x);
#else
  return SLD(log2, x);
#endif
}
static VD log10_fast(VD x) {
#ifdef MT_VEC_F32_VIA_F64
  return log2or10_avx2_f64<true>(x);
#else
  return SLD(log10, x);
#endif
}
// double asin and acos: AVX2 without SLEEF has ours (avx2_math.h, e_asin.c's and e_acos.c's methods)
static VD asin_fast(VD x) {
#ifdef MT_VEC_F32_VIA_F64
  return asin_avx2_f64(x);
#else
  return SLD(asin, x);
#endif
}
static VD acos_fast(VD x) {
#ifdef MT_VEC_F32_VIA_F64
  return acos_avx2_f64(x);
#else
  return SLD(acos, x);
#endif
}

// float tanh: SLEEF's tanhf costs ~4x its expf. AVX-512: our table of polynomials (avx512_math.h, 1.7x faster
// again). AVX2: Cephes' tanhf, an odd polynomial below 0.625, above it 1 - 2 / (exp(2|x|) + 1) with
// exp_inner (inf for large |x| gives exactly 1; NaN flows through exp).
static VF tanh_fast(VF x) {
#ifdef MT_VEC_AVX512
  return tanh_avx512(x);
#else
  const VF ax = x < 0.0f ? -x : x;
  const VF z = x * x;
  VF p = -5.70498872745e-3f * z + 2.06390887954e-2f;
  p = p * z - 5.37397155531e-2f;
  p = p * z + 1.33314422036e-1f;
  p = p * z - 3.33332819422e-1f;
  p = z == 0.0f ? x : p * z * x + x;  // keeps -0
  VF r = 1.0f - 2.0f / (exp_inner(ax + ax) + 1.0f);
  r = x < 0.0f ? -r : r;
  return ax < 0.625f ? p : r;
#endif
}
// double tanh: ours on both (avx512_math.h, 3x SLEEF's tanhd8; avx2_math.h)
static VD tanh_fast(VD x) {
#ifdef MT_VEC_AVX512
  return tanh_avx512_f64(x);
#else
  return tanh_avx2_f64(x);
#endif
}

// float log: AVX-512 has our table kernel (avx512_math.h, 1.9x SLEEF's logf, within 1 ulp as SLEEF's), AVX2
// without SLEEF the same arithmetic in eight lanes (avx2_f32_math.h: the same bits)
static VF log_fast(VF x) {
#ifdef MT_VEC_AVX512
  return log_avx512(x);
#elif defined(MT_VEC_F32_VIA_F64)
  return log_avx2_f32<0>(x);
#else
  return SLF(log, x);
#endif
}
static VD log_fast(VD x) {
#ifndef MT_VEC_AVX512
  return log_avx2_f64(x);  // ours (avx2_math.h, fdlibm's method), SLEEF or not
#elif defined(MT_VEC_F64_BY_HALVES)
  return by_halves(x, log_avx2_f64);
#else
  return SLD(log, x);
#endif
}

// float sin/cos: AVX-512 has ours through double (avx512_math.h, 0.63 ulp, 1.3-1.5x SLEEF's) for |x| <= 2^20;
// lanes beyond (or inf, NaN) take SLEEF's (its Payne-Hanek reduction), lane by lane, so a result never
// depends on its neighbours
#ifdef MT_VEC_AVX512
template <bool kCos>
static VF sincos_fast(VF x) {
  const VF r = sincos_avx512<kCos>(x);
  const __mmask16 ok = sincos_in_range(x);
  return ok == 0xffff ? r : _mm512_mask_mov_ps(kCos ? SLF(cos, x) : SLF(sin, x), ok, r);
}
static VF sin_fast(VF x) {
  return sincos_fast<false>(x);
}
static VF cos_fast(VF x) {
  return sincos_fast<true>(x);
}
#else
// AVX2: the same method over four doubles at a time (f32_via_f64.h), 4x the C library's sinf (1M floats, one
// thread)
static VF sin_fast(VF x) {
  return sincos_f32_own<false>(x, [](VF v) { return SLF(sin, v); });
}
static VF cos_fast(VF x) {
  return sincos_f32_own<true>(x, [](VF v) { return SLF(cos, v); });
}
#endif
#if !defined(MT_VEC_AVX512) || defined(MT_VEC_F64_BY_HALVES)
// ours (avx2_math.h, fdlibm's kernels after a Cody-Waite reduction) for |x| <= 2^20 pi/2; lanes beyond (and
// inf, NaN) take `wide` (AVX2: SLEEF's or the C library's, lane by lane; AVX-512's halves: the C library's)
template <bool kCos, typename W>
static __m256d sincos_f64_own(__m256d x, W wide) {
  const __m256d r = sincos_avx2_f64<kCos>(x);
  const __m256d ok = sincos_f64_in_range_avx2(x);
  if (_mm256_movemask_pd(ok) == 0xf) return r;
  return _mm256_blendv_pd(wide(x), r, ok);
}
#endif
#ifndef MT_VEC_AVX512
static VD sin_fast(VD x) {
  return sincos_f64_own<false>(x, [](VD v) { return SLD(sin, v); });
}
static VD cos_fast(VD x) {
  return sincos_f64_own<true>(x, [](VD v) { return SLD(cos, v); });
}
#elif defined(MT_VEC_F64_BY_HALVES)
template <bool kCos>
static __m256d sincos_f64_half(__m256d x) {
  return sincos_f64_own<kCos>(x, [](__m256d v) {
    for (int i = 0; i < 4; ++i) v[i] = kCos ? __builtin_cos(v[i]) : __builtin_sin(v[i]);
    return v;
  });
}
static VD sin_fast(VD x) {
  return by_halves(x, sincos_f64_half<false>);
}
static VD cos_fast(VD x) {
  return by_halves(x, sincos_f64_half<true>);
}
#else
static VD sin_fast(VD x) {
  return SLD(sin, x);
}
static VD cos_fast(VD x) {
  return SLD(cos, x);
}
#endif

// float gelu: SLEEF's erff costs ~18x its expf. AVX-512 takes our erf (below); AVX2 PyTorch's vectorized
// float formula (Abramowitz-Stegun 7.1.26, absolute error 1.5e-7, over a short exp), where an absolute error
// is what matters.
static VF gelu_fast(VF x) {
#ifdef MT_VEC_AVX512
  // AVX-512: our erf (avx512_math.h) costs less than this formula's exp and division, and is within 1 ulp
  return x * 0.5f * (1.0f + erf_avx512(x * 0.70710678118654752440f));
#else
  return gelu_avx2_f32(x);  // the formula over a short exp of -h^2 (avx2_f32_math.h)
#endif
}

// float erf: SLEEF's erff costs ~18x its expf, and PyTorch's Abramowitz-Stegun formula (1.5e-7 absolute)
// misses 1 ulp near 0. AVX-512 has its table of polynomials (avx512_math.h); AVX2 erf_f32_lanes.h's two
// pieces in float lanes (0.84 ulp; float lanes, not double, for PyTorch's speed on (-8, 8)).
static VF erf_fast(VF x) {
#ifdef MT_VEC_AVX512
  return erf_avx512(x);  // our table of polynomials (avx512_math.h)
#else
  typedef int VI __attribute__((vector_size(sizeof(VF))));
  return mt::vec::erf_f32_lanes<VF, VI>(x, [](VI m) { return MT_ANY(m); });
#endif
}
static VD erf_fast(VD x) {
#ifndef MT_VEC_AVX512
  return erf_avx2_f64(x);  // ours (avx2_math.h, s_erf.c's method), SLEEF or not
#elif defined(MT_VEC_F64_BY_HALVES)
  return by_halves(x, erf_avx2_f64);
#else
  return SLD(erf, x);
#endif
}
// erfc: AVX2's double kernel (avx2_math.h, s_erf.c's erfc), float32 through it in double; AVX-512 leaves
// its entries empty and runs AVX2's rows (make_table, elementwise.cpp)
#ifndef MT_VEC_AVX512
static VF erfc_fast(VF x) {
  return f32_via_f64(x, erfc_avx2_f64<true>);
}
static VD erfc_fast(VD x) {
  return erfc_avx2_f64<false>(x);
}
#else
template <typename V>
static V erfc_fast(V x) {
  return x;  // unused
}
#endif
// float64 gelu over erf_fast: ours on AVX2 and on AVX-512 without SLEEF, else SLEEF's
static VD gelu_fast(VD x) {
  return x * 0.5 * (1.0 + erf_fast(x * 0.70710678118654752440));
}

// float erfinv: ours through double, AVX2's (f32_via_f64.h) and AVX-512's (avx512_math.h, the same
// expressions in eight lanes: the same bits); float64 AVX2's (avx2_math.h: a start within 3e-10 and one
// Newton step), AVX-512 over both halves of its vectors side by side (the same bits). The float64 row itself
// is erfinv_row_f64 below, sixteen elements at a time.
static VF erfinv_fast(VF x) {
#ifndef MT_VEC_AVX512
  return erfinv_f32_own(x);
#else
  return erfinv_avx512(x);
#endif
}
static VD erfinv_fast(VD x) {
#ifndef MT_VEC_AVX512
  return erfinv_avx2_f64(x);
#else
  __m256d v[2] = {_mm512_castpd512_pd256(x), _mm512_extractf64x4_pd(x, 1)};
  erfinv_avx2_f64_k<2>(v);
  return _mm512_insertf64x4(_mm512_castpd256_pd512(v[0]), v[1], 1);
#endif
}

// float atan: AVX2 has ours through double (f32_via_f64.h, 0.5 + 0.001 ulp); AVX-512 and float64 SLEEF's (or
// the scalar functor without SLEEF)
static VF atan_fast(VF x) {
#ifndef MT_VEC_AVX512
  return atan_f32_own(x);
#else
  return SLF(atan, x);
#endif
}
static VD atan_fast(VD x) {
#ifndef MT_VEC_AVX512
  return atan_avx2_f64(x);  // ours (avx2_math.h, s_atan.c's method), SLEEF or not
#elif defined(MT_VEC_F64_BY_HALVES)
  return by_halves(x, atan_avx2_f64);
#else
  return SLD(atan, x);
#endif
}

// float lgamma and digamma: ours through double (gamma_f32.h), SLEEF or not (it has no digamma, and its
// lgamma is 1 ulp), AVX-512 in eight double lanes (AVX2's bits); float64 lgamma leaves its table entry empty
// (the scalar functor)
static VF lgamma_fast(VF x) {
  return lgamma_f32_own(x);
}
static VD lgamma_fast(VD x) {
  return x;  // unused
}
static VF digamma_fast(VF x) {
  return digamma_f32_own(x);
}
// float64 digamma: functors.h's digamma_double, operation for operation, in vector lanes: the recurrence
// psi(x) = psi(x + 1) - 1/x up to x >= 10 runs every lane until the last one is there (a lane that is there
// stays), so its divisions pipeline instead of following one another element by element (the scalar loop's
// cost, as in PyTorch's calc_digamma); the series as written there, no FMA contraction; log, and tan for the
// reflection of x < 0, by the C library per lane (external calls). So the scalar functor's bits, on every
// path.
#pragma GCC push_options
#pragma GCC optimize("fp-contract=off")
static VD digamma_fast(VD x) {
  typedef long long VL __attribute__((vector_size(sizeof(VD))));
  constexpr int W = sizeof(VD) / sizeof(double);
  const double pi = 3.14159265358979323846;
  const VD x0 = x;
  VD result = VD{};
  VL nan_lane = VL{};
  if (MT_ANY(x < 0.0)) {
    for (int i = 0; i < W; ++i) {
      const double v = x[i];
      if (!(v < 0.0)) continue;
      nan_lane[i] = v == __builtin_floor(v) ? -1 : 0;  // the poles (and -inf)
      const double frac = v - __builtin_trunc(v);
      result[i] = -pi / __builtin_tan(pi * frac);
      x[i] = 1.0 - v;
    }
  }
  VL more = x < 10.0;  // NaN: false
  while (MT_ANY(more)) {
    result = more ? result - 1.0 / x : result;
    x = more ? x + 1.0 : x;
    more = x < 10.0;
  }
  const VD z = 1.0 / (x * x);
  const VD series =
      z *
      (1.0 / 12 - z * (1.0 / 120 -
                       z * (1.0 / 252 - z * (1.0 / 240 - z * (1.0 / 132 - z * (691.0 / 32760 - z / 12.0))))));
  VD lx;
  for (int i = 0; i < W; ++i) lx[i] = __builtin_log(x[i]);
  VD r = result + lx - 0.5 / x - series;
  // the functor's early returns: NaN and +inf give x + result, the poles NaN, +-0 -+inf
  r = (x != x) | (x == __builtin_inf()) ? x + result : r;
  r = nan_lane ? VD{} + __builtin_nan("") : r;
  const VL sign = VL{} + (-0x7fffffffffffffffLL - 1);  // the sign bit
  return x0 == 0.0 ? (VD)((VL)(VD{} + __builtin_inf()) | (((VL)x0 & sign) ^ sign)) : r;
}
#pragma GCC pop_options

// i0, special.i0e / i1 / i1e: bessel_i.h's row loops set in fill_table, SLEEF or not (four double vectors per
// call, float32 through double); these table slots are overwritten there
template <typename V>
static V bessel_unused(V x) {
  return x;
}

// functors.h's Sinc over the vector sin: 1 at 0, else sin(p) / p with p = pi x rounded once in S, as
// PyTorch's scalar kernel (so a zero of sinc lies where its p's sin is 0, not at the exact integer)
template <typename V, typename S>
static V sinc_v(V x) {
  const V p = S(3.14159265358979323846) * x;
  return x == S(0) ? V{} + S(1) : sin_fast(p) / p;
}

// functors.h's hard_relu6: min(max(y, 0), 6) with a NaN y kept (both compares fail on it)
template <typename V, typename S>
static V hard_relu6_v(V y) {
  y = y < S(0) ? S(0) : y;
  return S(6) < y ? S(6) : y;
}

// Formulas as in kernels/functors.h, so results agree with the scalar path up to the math functions' ulps.
#define MT_VEC_DEFINE(V, S, SL)                                                                          \
  struct Ops_##S {                                                                                       \
    static V exp(V x) { return exp_inner(x); }                                                           \
    static V exp2(V x) { return exp2_fast(x); }                                                          \
    static V expm1(V x) { return expm1_fast(x); }                                                        \
    static V log(V x) { return log_fast(x); }                                                            \
    static V log2(V x) { return log2_fast(x); }                                                          \
    static V log10(V x) { return log10_fast(x); }                                                        \
    static V log1p(V x) { return log1p_wide(x); }                                                        \
    static V sin(V x) { return sin_fast(x); }                                                            \
    static V cos(V x) { return cos_fast(x); }                                                            \
    static V sinc(V x) { return sinc_v<V, S>(x); }                                                       \
    static V tan(V x) { return tan_tiny(x); }                                                            \
    static V asin(V x) { return asin_fast(x); }                                                          \
    static V acos(V x) { return acos_fast(x); }                                                          \
    static V atan(V x) { return atan_fast(x); }                                                          \
    static V atanh(V x) { return atanh_fast(x); }                                                        \
    static V sinh(V x) { return sinh_fast(x); }                                                          \
    static V cosh(V x) { return cosh_fast(x); }                                                          \
    static V tanh(V x) { return tanh_fast(x); }                                                          \
    static V erf(V x) { return erf_fast(x); }                                                            \
    static V erfc(V x) { return erfc_fast(x); }                                                          \
    static V erfinv(V x) { return erfinv_fast(x); }                                                      \
    static V sigmoid(V x) { return S(1) / (S(1) + exp_inner(-x)); }                                      \
    static V gelu(V x) { return gelu_fast(x); }                                                          \
    static V gelu_tanh(V x) {                                                                            \
      return S(0.5) * x * (S(1) + tanh_fast(S(0.79788456080286535588) * (x + S(0.044715) * x * x * x))); \
    }                                                                                                    \
    static V silu(V x) { return x / (S(1) + exp_inner(-x)); }                                            \
    static V mish(V x) {                                                                                 \
      V sp = log1p_wide(exp_inner(x));                                                                   \
      return x * tanh_fast(x > S(20) ? x : sp);                                                          \
    }                                                                                                    \
    static V hardsigmoid(V x) { return hard_relu6_v<V, S>(x + S(3)) / S(6); }                            \
    static V hardswish(V x) { return x * hard_relu6_v<V, S>(x + S(3)) / S(6); }                          \
    static V lgamma(V x) { return lgamma_fast(x); }                                                      \
    static V digamma(V x) { return digamma_fast(x); }                                                    \
    static V i0(V x) { return bessel_unused(x); }                                                        \
    static V _special_i0e(V x) { return bessel_unused(x); }                                              \
    static V _special_i1(V x) { return bessel_unused(x); }                                               \
    static V _special_i1e(V x) { return bessel_unused(x); }                                              \
  };

MT_VEC_DEFINE(VF, float, SLF)
MT_VEC_DEFINE(VD, double, SLD)
#undef MT_VEC_DEFINE

// 2 KiB ahead of a dense read and a write, each vector step. These loops spend 20-60 instructions per cache
// line, and the hardware prefetcher alone leaves them waiting on memory past the L2 (float64 tanh over 4M
// elements at twice its time from L2); with these they run at about their L2 speed. Prefetches never fault,
// past the end included; the address is computed as an integer so no pointer leaves its array.
static inline void prefetch_ahead(const void* in, const void* out) {
  __builtin_prefetch(reinterpret_cast<const void*>(reinterpret_cast<uintptr_t>(in) + 2048), 0, 3);
  __builtin_prefetch(reinterpret_cast<const void*>(reinterpret_cast<uintptr_t>(out) + 2048), 1, 3);
}

// Whole vectors, then the tail through a padded vector, so every element takes the same path (results do not
// depend on an element's position or on the thread split).
template <typename V, typename S, int N, V (*F)(V)>
void loop(S* out, const S* in, int64_t n) {
  int64_t i = 0;
  for (; i + N <= n; i += N) {
    prefetch_ahead(in + i, out + i);
    V x;
    __builtin_memcpy(&x, in + i, sizeof(V));
    V y = F(x);
    __builtin_memcpy(out + i, &y, sizeof(V));
  }
  if (i < n) {
    S buf[N] = {};
    for (int64_t j = 0; j < n - i; ++j) buf[j] = in[i + j];
    V x;
    __builtin_memcpy(&x, buf, sizeof(V));
    V y = F(x);
    __builtin_memcpy(buf, &y, sizeof(V));
    for (int64_t j = 0; j < n - i; ++j) out[i + j] = buf[j];
  }
}

// float64 erfinv's row, on AVX2 and AVX-512 alike: four 256-bit vectors at a time through
// erfinv_avx2_f64_k<4> (one vector's chain is latency-bound; four side by side run 2.7x faster per element
// than one at a time did), the tail through a zero-padded block, so every element takes the same path.
void erfinv_row_f64(double* out, const double* in, int64_t n) {
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    prefetch_ahead(in + i, out + i);
    __m256d v[4];
    for (int k = 0; k < 4; ++k) v[k] = _mm256_loadu_pd(in + i + 4 * k);
    erfinv_avx2_f64_k<4>(v);
    for (int k = 0; k < 4; ++k) _mm256_storeu_pd(out + i + 4 * k, v[k]);
  }
  if (i < n) {
    double buf[16] = {};
    for (int64_t j = 0; j < n - i; ++j) buf[j] = in[i + j];
    __m256d v[4];
    for (int k = 0; k < 4; ++k) v[k] = _mm256_loadu_pd(buf + 4 * k);
    erfinv_avx2_f64_k<4>(v);
    for (int k = 0; k < 4; ++k) _mm256_storeu_pd(buf + 4 * k, v[k]);
    for (int64_t j = 0; j < n - i; ++j) out[i + j] = buf[j];
  }
}

// Softmax over one row (float32 or float64). A NaN anywhere makes the sum NaN and so the whole row NaN; an
// all -inf row gives NaN (-inf - -inf), both as PyTorch. The tail goes through a vector padded with -inf (exp
// gives 0).
template <typename V, typename S, int N>
S row_max(const S* p, int64_t n) {
  V mv = V{} + p[0];
  int64_t i = 0;
  for (; i + N <= n; i += N) {
    V x;
    __builtin_memcpy(&x, p + i, sizeof(V));
    mv = x > mv ? x : mv;
  }
  S m = p[0];
  for (int j = 0; j < N; ++j) m = mv[j] > m ? mv[j] : m;
  for (; i < n; ++i) m = p[i] > m ? p[i] : m;
  return m;
}

// sum of exp(p - m); q (when not null) receives the exps
template <typename V, typename S, int N>
S sum_exp(const S* p, S* q, int64_t n, S m) {
  V acc = V{};
  int64_t i = 0;
  for (; i + N <= n; i += N) {
    V x;
    __builtin_memcpy(&x, p + i, sizeof(V));
    const V e = exp_inner(x - m);
    if (q) __builtin_memcpy(q + i, &e, sizeof(V));
    acc += e;
  }
  if (i < n) {
    S buf[N];
    for (int j = 0; j < N; ++j) buf[j] = i + j < n ? p[i + j] : -__builtin_inf();
    V x;
    __builtin_memcpy(&x, buf, sizeof(V));
    const V e = exp_inner(x - m);
    __builtin_memcpy(buf, &e, sizeof(V));
    if (q)
      for (int64_t j = 0; i + j < n; ++j) q[i + j] = buf[j];
    acc += e;
  }
  S s = 0;
  for (int j = 0; j < N; ++j) s += acc[j];
  return s;
}

float max_sum_exp(const float* p, int64_t n, float* max) {
  if (n <= 0) {
    *max = -__builtin_inff();
    return 0.0f;
  }
  *max = row_max<VF, float, NF>(p, n);
  return sum_exp<VF, float, NF>(p, nullptr, n, *max);
}

void scaled_exp(float* out, const float* x, int64_t n, float shift, float k) {
  int64_t i = 0;
  for (; i + NF <= n; i += NF) {
    VF v;
    __builtin_memcpy(&v, x + i, sizeof(VF));
    const VF e = exp_inner(v - shift) * k;
    __builtin_memcpy(out + i, &e, sizeof(VF));
  }
  if (i < n) {
    float buf[NF] = {};
    for (int64_t j = 0; i + j < n; ++j) buf[j] = x[i + j];
    VF v;
    __builtin_memcpy(&v, buf, sizeof(VF));
    const VF e = exp_inner(v - shift) * k;
    __builtin_memcpy(buf, &e, sizeof(VF));
    for (int64_t j = 0; i + j < n; ++j) out[i + j] = buf[j];
  }
}

template <typename V, typename S, int N>
void softmax_row(const S* p, S* q, int64_t n, bool take_log) {
  if (n <= 0) return;
  const S m = row_max<V, S, N>(p, n);
  const S s = sum_exp<V, S, N>(p, take_log ? nullptr : q, n, m);
  int64_t i = 0;
  if (take_log) {
    // (x - max) first: it is exact near the max, where folding log(s) into max would round it away
    const S ls = sizeof(S) == 4 ? __builtin_logf(s) : __builtin_log(s);  // libm: no inline <cmath> here
    for (i = 0; i < n; ++i) q[i] = (p[i] - m) - ls;
  } else {
    const S inv = S(1) / s;
    for (i = 0; i < n; ++i) q[i] *= inv;
  }
}

// Softmax along a middle dim over a strip of w columns, as PyTorch's _vec_softmax: the lanes run across the
// columns, so one exp serves N columns. The first pass (the max) also packs the strip into `scratch`, so the
// exp and the scaling passes read a dense block that stays in cache: read in place, a strip of a 1024 x 1024
// matrix has rows 4 KiB apart, all in a few cache sets, and went to L3 on every pass. A column's arithmetic
// does not depend on its lane or on the strip's width (its sum runs down the rows in one lane), so every
// split gives the same values. The last partial vector of a row goes through a padded vector. NaN and all
// -inf columns give NaN, as softmax_row.
template <typename V, typename S, int N>
void softmax_cols(const S* p, S* q, int64_t rows, int64_t stride, int64_t w, bool take_log, S* scratch) {
  if (rows <= 0 || w <= 0) return;
  constexpr int64_t kMaxVecs = mt::vec::kSoftmaxColsMax / N;
  V mv[kMaxVecs], sv[kMaxVecs];
  const int64_t nv = (w + N - 1) / N, full = w / N, tail = w - full * N, pitch = nv * N;
  auto load = [&](const S* r, int64_t v) {
    V x;
    if (v < full) {
      __builtin_memcpy(&x, r + v * N, sizeof(V));
    } else {
      S buf[N] = {};
      for (int64_t j = 0; j < tail; ++j) buf[j] = r[v * N + j];
      __builtin_memcpy(&x, buf, sizeof(V));
    }
    return x;
  };
  auto store = [&](S* r, int64_t v, V y) {
    if (v < full) {
      __builtin_memcpy(r + v * N, &y, sizeof(V));
    } else {
      S buf[N];
      __builtin_memcpy(buf, &y, sizeof(V));
      for (int64_t j = 0; j < tail; ++j) r[v * N + j] = buf[j];
    }
  };
  auto packed = [&](int64_t r, int64_t v) { return scratch + r * pitch + v * N; };
  for (int64_t v = 0; v < nv; ++v) mv[v] = load(p, v);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t v = 0; v < nv; ++v) {
      const V x = load(p + r * stride, v);
      __builtin_memcpy(packed(r, v), &x, sizeof(V));
      mv[v] = x > mv[v] ? x : mv[v];
    }
  for (int64_t v = 0; v < nv; ++v) sv[v] = V{};
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t v = 0; v < nv; ++v) {
      V x;
      __builtin_memcpy(&x, packed(r, v), sizeof(V));
      const V e = exp_inner(x - mv[v]);
      if (!take_log) __builtin_memcpy(packed(r, v), &e, sizeof(V));
      sv[v] += e;
    }
  if (take_log) {
    // (x - max) first, as softmax_row: exact near the max
    for (int64_t v = 0; v < nv; ++v)
      for (int j = 0; j < N; ++j)
        sv[v][j] = sizeof(S) == 4 ? __builtin_logf(sv[v][j]) : __builtin_log(sv[v][j]);
  } else {
    for (int64_t v = 0; v < nv; ++v) sv[v] = S(1) / sv[v];
  }
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t v = 0; v < nv; ++v) {
      V x;
      __builtin_memcpy(&x, packed(r, v), sizeof(V));
      store(q + r * stride, v, take_log ? (x - mv[v]) - sv[v] : x * sv[v]);
    }
}

// One function of one or two vectors over a row: whole vectors, then the tail through a padded vector, as
// loop() (every element takes the same path). sa and sb are 1 (dense) or 0 (one value, broadcast).
template <typename V, typename S, int N, typename F>
void map_row(S* out, const S* a, int64_t sa, const S* b, int64_t sb, int64_t n, F f) {
  auto load = [](const S* p, int64_t s, int64_t i, int64_t m) {
    S buf[N] = {};
    for (int64_t j = 0; j < m; ++j) buf[j] = p[(i + j) * s];
    V v;
    __builtin_memcpy(&v, buf, sizeof(V));
    return v;
  };
  // one value in every lane: 1 * v keeps the sign of a zero, which 0 + v loses (atan2(-0., x < 0) gave +pi)
  const V one = V{} + S(1);
  const V av = one * *a, bv = one * *b;
  int64_t i = 0;
  if (sa == 1 && sb == 1) {
    for (; i + N <= n; i += N) {
      prefetch_ahead(a + i, out + i);
      __builtin_prefetch(reinterpret_cast<const void*>(reinterpret_cast<uintptr_t>(b + i) + 2048), 0, 3);
      V x, y;
      __builtin_memcpy(&x, a + i, sizeof(V));
      __builtin_memcpy(&y, b + i, sizeof(V));
      const V r = f(x, y);
      __builtin_memcpy(out + i, &r, sizeof(V));
    }
  } else if (sa == 1) {
    for (; i + N <= n; i += N) {
      prefetch_ahead(a + i, out + i);
      V x;
      __builtin_memcpy(&x, a + i, sizeof(V));
      const V r = f(x, bv);
      __builtin_memcpy(out + i, &r, sizeof(V));
    }
  } else {  // a is one value
    for (; i + N <= n; i += N) {
      V y = bv;
      if (sb == 1) __builtin_memcpy(&y, b + i, sizeof(V));
      const V r = f(av, y);
      __builtin_memcpy(out + i, &r, sizeof(V));
    }
  }
  if (i < n) {
    const V r = f(load(a, sa, i, n - i), load(b, sb, i, n - i));
    S buf[N];
    __builtin_memcpy(buf, &r, sizeof(V));
    for (int64_t j = 0; j < n - i; ++j) out[i + j] = buf[j];
  }
}

template <typename V>
static V exp_v(V x) {
  return exp_inner(x);
}
template <typename V>
static V log1p_v(V x) {
  return log1p_wide(x);
}

// softplus, the formula of functors.h. exp_inner is enough: log1p damps exp's relative error (d log1p(e) =
// de / (1 + e)). The lanes above the threshold take x, so exp's overflow there never shows. In blocks of
// 256 as log_sigmoid_row below: x * beta, exp, log1p, then the select and the division, each a loop of its
// own (one loop body with all of them ran at 1.8x the two passes' time on AVX2: 168 us against 95 for [256,
// 256] float32); the same operations, so the same bits.
template <typename V, typename S, int N>
void softplus_row(S* out, const S* in, int64_t n, S beta, S threshold) {
  constexpr int64_t kBlock = 256;
  alignas(64) S s[kBlock];
  for (int64_t b = 0; b < n; b += kBlock) {
    const int64_t m = n - b < kBlock ? n - b : kBlock;
    for (int64_t i = 0; i < m; ++i) s[i] = in[b + i] * beta;
    loop<V, S, N, exp_v<V>>(s, s, m);
    loop<V, S, N, log1p_v<V>>(s, s, m);
    for (int64_t i = 0; i < m; ++i) {
      const S x = in[b + i];
      out[b + i] = x * beta > threshold ? x : s[i] / beta;
    }
  }
}

// F.logsigmoid: min(x, 0) - log1p(exp(-|x|)), the s of softplus_row(-|x|) with beta 1 bit for bit (x * 1 and
// / 1 are exact), so the composite's bits. min(x, 0) keeps a NaN x. In blocks of 256: exp(-|x|) over the
// block, log1p over it, then the subtraction, each a loop of its own (exp and log1p in one loop body ran
// at 1.8x their two passes' time on AVX2: their constants outgrow the 16 registers).
template <typename V, typename S>
static V neg_abs_exp_v(V x) {
  return exp_inner(x > S(0) ? -x : x);
}
template <typename V, typename S, int N>
void log_sigmoid_row(S* out, const S* in, int64_t n) {
  constexpr int64_t kBlock = 256;
  alignas(64) S s[kBlock];
  for (int64_t b = 0; b < n; b += kBlock) {
    const int64_t m = n - b < kBlock ? n - b : kBlock;
    loop<V, S, N, neg_abs_exp_v<V, S>>(s, in + b, m);
    loop<V, S, N, log1p_v<V>>(s, s, m);
    for (int64_t i = 0; i < m; ++i) {
      const S x = in[b + i];
      out[b + i] = (x > S(0) ? S(0) : x) - s[i];
    }
  }
}

// pow: float32 ours through double on both widths, with or without SLEEF (avx512_pow.h and its four-lane
// port pow_f32_avx2.h: the same bits, 0.505 ulp, AVX-512's 2.8x SLEEF's speed); float64 on AVX-512 through
// double-double logs (pow64.h, 0.553 ulp, 3x SLEEF's), on AVX2 SLEEF's (1 ulp) or without SLEEF pow64.h's
// kernel in four lanes (AVX-512's bits). A constant exponent of 2 is one multiply, exact, as PyTorch's
// Tensor-Scalar kernel (the `x ** 2` of every loss and norm).
static VF pow_fast(VF a, VF b) {
#if defined(MT_VEC_AVX512)
  return pow_avx512(a, b);
#else
  return pow_avx2(a, b);
#endif
}
static VD pow_fast(VD a, VD b) {
#if defined(MT_VEC_AVX512) || !defined(MT_SLEEF)
  return pow64(a, b);
#else
  return SLEEF_D(pow)(a, b);
#endif
}
// A lane whose exponent is 2 takes the multiply wherever it comes from, so a dense exponent tensor of 2s
// gives what a broadcast 2 gives.
template <typename V, typename S, int N>
void pow_row(S* out, const S* a, int64_t sa, const S* b, int64_t sb, int64_t n) {
  if (sb == 0 && *b == S(2))
    map_row<V, S, N>(out, a, sa, b, 0, n, [](V x, V) { return x * x; });
  else
    map_row<V, S, N>(out, a, sa, b, sb, n, [](V x, V y) { return y == S(2) ? x * x : pow_fast(x, y); });
}

// a * b + c rounded once, for the exact remainder of a product
static VF fma_v(VF a, VF b, VF c) {
#ifdef MT_VEC_AVX512
  return _mm512_fmadd_ps(a, b, c);
#else
  return _mm256_fmadd_ps(a, b, c);
#endif
}
static VD fma_v(VD a, VD b, VD c) {
#ifdef MT_VEC_AVX512
  return _mm512_fmadd_pd(a, b, c);
#else
  return _mm256_fmadd_pd(a, b, c);
#endif
}
// 2^d through exp(d ln 2): the product's rounding error (|d| ln 2 ulp of it, 14 ulp of a result near 2^-20)
// is taken from an FMA and folded back in, exp(x + lo) = exp(x) (1 + lo)
template <typename V, typename S>
static V exp2_via_exp(V d) {
  const S ln2_hi = S(0.6931471805599453), ln2_lo = S(0.6931471805599453 - double(S(0.6931471805599453)));
  const V x = d * ln2_hi;
  const V lo = fma_v(d, V{} + ln2_hi, -x) + d * ln2_lo;
  const V e = exp_inner(x);
  return e == S(0) ? e : fma_v(e, lo, e);  // d = -inf: lo is NaN, the result 0
}
// log1p(e) for e in [0, 1] (logaddexp's exp(-|a - b|)) with no exponent split: 1 + e is in [1, 2], halved
// above sqrt 2, so s = (m - 1) / (m + 1) is e / (e + 2) or (e - 1) / (e + 3) with its numerator exact, |s| <=
// 0.1716, and log1p(e) = k ln2 + 2 atanh(s) by the odd series: to s^11 (5e-11 relative) for float results,
// to s^23 (4e-19) for double ones. NaN stays NaN. Base2: log2(1 + e) = k + (2 / ln2) atanh(s), k exact (no
// division by ln 2 after the sum: log2(2) = 1 exactly, so logaddexp2(-1, -1) = 0).
template <int Terms, bool Base2 = false>
static VD log1p_01(VD e) {
  const auto big = e > 0.41421356237309515;
  // one division of the selected operands (a select of both quotients divided twice, and a division by ln 2
  // after, took most of logaddexp2's float32 time at AVX2)
  const VD s = (big ? e - 1.0 : e) / (e + (big ? VD{} + 3.0 : VD{} + 2.0));
  const VD s2 = s * s;
  VD p = VD{} + 1.0 / (2 * Terms - 1);
  for (int j = Terms - 2; j >= 0; --j) p = p * s2 + 1.0 / (2 * j + 1);
  if constexpr (Base2) return (big ? VD{} + 1.0 : VD{}) + (2.0 / 0.6931471805599453) * s * p;
  return (big ? VD{} + 0.6931471805599453 : VD{}) + 2.0 * s * p;
}
static VD log1p_01(VD e, double) {
  return log1p_01<12>(e);
}
static VF log1p_01(VF e, float) {
#ifdef MT_VEC_AVX512
  return log1p_wide(e);  // the table kernel
#else
  return f32_via_f64(e, [](VD v) { return log1p_01<6>(v); });
#endif
}
// log2(1 + e) for e in [0, 1]: log1p_01 divided by ln 2, not multiplied by 1 / ln 2: the multiply would fuse
// with logaddexp2's add of the max into one FMA, and logaddexp2(-1, -1) would come out 1e-8, not 0. AVX2's
// float lanes take the base-2 series in their double lanes instead (log2(2) = 1 there exactly).
template <typename V, typename S>
static V log2_1p_01(V e) {
#ifndef MT_VEC_AVX512
  if constexpr (std::is_same_v<S, float>) return f32_via_f64(e, [](VD v) { return log1p_01<6, true>(v); });
#endif
  return log1p_01(e, S()) / S(0.6931471805599453);
}
// logaddexp and logaddexp2 over a row, functors.h's formulas: max + log1p(exp(-|a - b|)); equal infinities
// give that infinity, a NaN on either side NaN (through the difference)
template <typename V, typename S, bool Base2>
__attribute__((always_inline)) static inline V logaddexp_v(V a, V b) {
  const V m = a > b ? a : b;
  V d = a - b;
  d = d > S(0) ? -d : d;  // -|a - b|, NaN kept
  V r;
  if constexpr (Base2)
    r = m + log2_1p_01<V, S>(exp2_via_exp<V, S>(d));
  else
    r = m + log1p_01(exp_inner(d), S());
  const S inf = __builtin_inf();
  return (a == b) & ((a == inf) | (a == -inf)) ? a : r;
}
template <typename V, typename S, int N, bool Base2>
void logaddexp_row(S* out, const S* a, int64_t sa, const S* b, int64_t sb, int64_t n) {
  map_row<V, S, N>(out, a, sa, b, sb, n, [](V x, V y) { return logaddexp_v<V, S, Base2>(x, y); });
}

#ifdef MT_VEC_AVX512
// float32 atan2 through double: f64_series.h's atan2_d over each half of the vector, eight lanes at a time
// (AVX2's row, which AVX-512 ran, takes four: the same expressions, the same bits)
typedef long long VL512 __attribute__((vector_size(64)));
static VF atan2_f32_avx512(VF y, VF x) {
  auto lo = [](VF v) { return _mm512_cvtps_pd(_mm512_castps512_ps256(v)); };
  auto hi = [](VF v) { return _mm512_cvtps_pd(_mm512_extractf32x8_ps(v, 1)); };
  const __m256 rl = _mm512_cvtpd_ps(atan2_d<VD, VL512>(lo(y), lo(x))),
               rh = _mm512_cvtpd_ps(atan2_d<VD, VL512>(hi(y), hi(x)));
  return _mm512_insertf32x8(_mm512_castps256_ps512(rl), rh, 1);
}
void atan2_row_avx512(float* out, const float* a, int64_t sa, const float* b, int64_t sb, int64_t n) {
  map_row<VF, float, NF>(out, a, sa, b, sb, n, atan2_f32_avx512);
}
#else
// A function of two vectors over a row: AVX2's float32 atan2, fmod and remainder through double
// (f32_via_f64.h) and its float64 atan2, fmod and remainder (avx2_math.h); AVX-512 leaves those entries
// empty but float32 atan2's (above), and runs AVX2's rows for them (make_table)
template <typename V, typename S, int N, V (*F)(V, V)>
void pair_row(S* out, const S* a, int64_t sa, const S* b, int64_t sb, int64_t n) {
  map_row<V, S, N>(out, a, sa, b, sb, n, F);
}
// float64 fmod: avx2_math.h's exact kernel, its wide quotients in steps; the lanes it does not serve (b = 0
// or subnormal, a infinite, NaN) take the C library's, lane by lane
static VD fmod_f64_own(VD a, VD b) {
  int ok;
  VD r = fmod_avx2_f64(a, b, ok);
  if (ok != 0xf) fmod_wide_avx2_f64(a, b, r, ok);
  if (ok != 0xf)
    for (int i = 0; i < 4; ++i)
      if (!(ok >> i & 1)) r[i] = __builtin_fmod(a[i], b[i]);
  return r;
}
static VD remainder_f64_own(VD a, VD b) {
  return remainder_from_fmod<VD, double>(fmod_f64_own(a, b), b);
}
static VF floor_v(VF x) {
  return _mm256_floor_ps(x);
}
static VD floor_v(VD x) {
  return _mm256_floor_pd(x);
}
static VF zero_signed_as(VF q) {
  return _mm256_and_ps(q, _mm256_set1_ps(-0.0f));
}
static VD zero_signed_as(VD q) {
  return _mm256_and_pd(q, _mm256_set1_pd(-0.0));
}
// Python's a // b, functors.h's FloorDiv step for step in the dtype (so the same bits): the exact quotient
// of a - fmod(a, b), one lower where fmod's sign differs from b's, floored and then rounded up past .5 (an
// inexact quotient lands on the nearest integer); a zero quotient takes the sign of a / b, b = 0 gives a / b
template <typename V, typename S, V (*Fmod)(V, V)>
static V floor_divide_v(V a, V b) {
  const V mod = Fmod(a, b);
  V div = (a - mod) / b;
  div = (mod != S(0)) & ((b < S(0)) != (mod < S(0))) ? div - S(1) : div;
  V fd = floor_v(div);
  fd = div - fd > S(0.5) ? fd + S(1) : fd;
  const V q = a / b;
  fd = div != S(0) ? fd : zero_signed_as(q);
  return b == S(0) ? q : fd;
}
static VF floor_divide_f32_own(VF a, VF b) {
  return floor_divide_v<VF, float, fmod_f32_own>(a, b);
}
static VD floor_divide_f64_own(VD a, VD b) {
  return floor_divide_v<VD, double, fmod_f64_own>(a, b);
}
#endif

}  // namespace

namespace mt {
namespace vec {
namespace {
template <typename L, size_t N>
void scalar(L* tab, const Fn (&fns)[N]) {
  for (Fn f : fns) tab[static_cast<int>(f)] = nullptr;
}
}  // namespace

void MT_VEC_FILL(Table& t) {
#define MT_VEC_SET(name)                                                     \
  t.f32[static_cast<int>(Fn::name)] = &loop<VF, float, NF, Ops_float::name>; \
  t.f64[static_cast<int>(Fn::name)] = &loop<VD, double, ND, Ops_double::name>;
  MT_VEC_UNARY_FNS(MT_VEC_SET)
#undef MT_VEC_SET
  t.f64[static_cast<int>(Fn::erfinv)] = &erfinv_row_f64;
#ifndef MT_VEC_AVX512
  t.f32[static_cast<int>(Fn::erfinv)] = &erfinv_row_f32;  // erfinv_f32_own's bits, sixteen floats a step
#endif
  scalar(t.f64, {Fn::lgamma});
#define MT_BESSEL_SET(name, n, scaled)                                           \
  t.f32[static_cast<int>(Fn::name)] =                                            \
      &bessel_row<float, bessel_i_lanes<n, scaled, VD>, bessel_i_vecs(ND) * ND>; \
  t.f64[static_cast<int>(Fn::name)] =                                            \
      &bessel_row<double, bessel_i_lanes<n, scaled, VD>, bessel_i_vecs(ND) * ND>;
  MT_BESSEL_SET(i0, 0, false)
  MT_BESSEL_SET(_special_i0e, 0, true)
  MT_BESSEL_SET(_special_i1, 1, false)
  MT_BESSEL_SET(_special_i1e, 1, true)
#undef MT_BESSEL_SET
#ifdef MT_VEC_AVX512
  scalar(t.f32, {Fn::erfc});  // AVX2's rows (erfc_fast)
  scalar(t.f64, {Fn::erfc});
  // SLEEF's float sinh/cosh overflow from |x| > 88.5 although the result is finite up to 89.4: make_table
  // (elementwise.cpp) gives AVX-512 AVX2's rows for these (in double with its float64 kernel)
  scalar(t.f32, {Fn::sinh, Fn::cosh});
#endif
  t.softmax_f32 = &softmax_row<VF, float, NF>;
  t.softmax_f64 = &softmax_row<VD, double, ND>;
  t.softmax_cols_f32 = &softmax_cols<VF, float, NF>;
  t.softmax_cols_f64 = &softmax_cols<VD, double, ND>;
  t.max_sum_exp_f32 = &max_sum_exp;
  t.scaled_exp_f32 = &scaled_exp;
  t.softplus_f32 = &softplus_row<VF, float, NF>;
  t.softplus_f64 = &softplus_row<VD, double, ND>;
  t.log_sigmoid_f32 = &log_sigmoid_row<VF, float, NF>;
  t.log_sigmoid_f64 = &log_sigmoid_row<VD, double, ND>;
  t.polygamma_f32 = &polygamma_row_f32;
  t.polygamma_f64 = &trigamma_row_f64;
  t.pow_f32 = &pow_row<VF, float, NF>;
  t.pow_f64 = &pow_row<VD, double, ND>;
  t.logaddexp_f32 = &logaddexp_row<VF, float, NF, false>;
  t.logaddexp_f64 = &logaddexp_row<VD, double, ND, false>;
  t.logaddexp2_f32 = &logaddexp_row<VF, float, NF, true>;
  t.logaddexp2_f64 = &logaddexp_row<VD, double, ND, true>;
#ifdef MT_VEC_AVX512
  t.atan2_f32 = &atan2_row_avx512;
#else
  t.atan2_f32 = &pair_row<VF, float, NF, atan2_f32_own>;
  t.fmod_f32 = &pair_row<VF, float, NF, fmod_f32_own>;
  t.remainder_f32 = &pair_row<VF, float, NF, remainder_f32_own>;
  t.atan2_f64 = &pair_row<VD, double, ND, atan2_avx2_f64>;
  t.fmod_f64 = &pair_row<VD, double, ND, fmod_f64_own>;
  t.remainder_f64 = &pair_row<VD, double, ND, remainder_f64_own>;
  t.floor_divide_f32 = &pair_row<VF, float, NF, floor_divide_f32_own>;
  t.floor_divide_f64 = &pair_row<VD, double, ND, floor_divide_f64_own>;
#endif
#ifndef MT_SLEEF
  // Without SLEEF, what has no kernel of our own would be libm lane by lane: those ops take the scalar
  // functors instead (the same libm, the same results as MINITORCH_CPU_CAPABILITY=default).
#ifdef MT_VEC_AVX512
  // float64 log, log1p, sin, cos, erf and atan (and softplus, mish and gelu through them) are AVX2's kernels
  // over halves here; float32 exp2 and atanh are ours (avx512_math.h), log2 and log10 AVX2's in eight lanes;
  // float32 tan, asin, acos and atan take AVX2's rows (ours in double: f32_via_f64.h), as every entry left
  // empty here that AVX2 fills (make_table, elementwise.cpp)
  scalar(t.f32, {Fn::tan, Fn::asin, Fn::acos, Fn::atan});
#endif
  // float64 tan/asin/acos are AVX2's own (AVX-512 runs AVX2's rows)
#ifdef MT_VEC_AVX512
  scalar(t.f64, {Fn::tan, Fn::asin, Fn::acos});
#endif
#ifdef MT_VEC_AVX512
  scalar(t.f64, {Fn::log2, Fn::log10});
#endif  // AVX2: every float32 and float64 function is ours (float64 pow: pow64.h)
#endif
  t.normal_philox_f64 = &normal_philox_lanes;
  t.uniform_philox_f64 = &uniform_philox_lanes;
  t.philox_fill_f32 = &philox_fill<float>;
  t.philox_fill_f64 = &philox_fill<double>;
  t.philox_fill_i64 = &philox_fill<int64_t>;
}

}  // namespace vec
}  // namespace mt
