// Our own AVX2 float32 kernels computed in float, eight lanes per instruction: log, log1p, log2, log10
// (log_avx512's 32-entry table method, the table read with permutes), asin and acos (the square root carried
// as hi + lo), and gelu (PyTorch's formula over a short exp). f32_via_f64.h's forms ran four lanes per
// instruction through double and measured 0.34-0.93 of PyTorch's (SLEEF's u10) speed. Included by
// vec/unary_impl.h (AVX2 and AVX-512 builds: AVX-512 CPUs run AVX2 too) and by the exhaustive checks of
// scripts/check_avx2_f32.cpp; self-contained (static functions, no project headers).
#pragma once
#include <immintrin.h>

namespace {

// float32 log's table (log_avx512 in avx512_math.h and log_avx2_f32 below share it): invc_i near 1/c_i for
// the mantissa intervals (entries 0-15: m in [1 + i/32, 1 + (i+1)/32), 16-31: m in [0.75 + (i-16)/64, 0.75 +
// (i-15)/64)), T_i = -log(invc_i) (+ ln2 for i >= 16) as hi (on the 2^-17 grid) + lo.
// scripts/fit_log32_table.py.
alignas(64) static const float kLog32InvC[32] = {
    1.000000000e+00f, 9.687500000e-01f, 9.375000000e-01f, 9.014389515e-01f, 8.906250000e-01f,
    8.515625000e-01f, 8.311955333e-01f, 8.125000000e-01f, 7.890625000e-01f, 7.734375000e-01f,
    7.514648438e-01f, 7.343750000e-01f, 7.187500000e-01f, 7.031250000e-01f, 6.875000000e-01f,
    6.718750000e-01f, 1.312500000e+00f, 1.289062500e+00f, 1.265625000e+00f, 1.250000000e+00f,
    1.218750000e+00f, 1.203125000e+00f, 1.171875000e+00f, 1.156250000e+00f, 1.129882812e+00f,
    1.109375000e+00f, 1.093750000e+00f, 1.078125000e+00f, 1.057373047e+00f, 1.046875000e+00f,
    1.023816943e+00f, 1.000000000e+00f};
alignas(64) static const float kLog32THi[32] = {
    0.000000000e+00f, 3.174591064e-02f, 6.453704834e-02f, 1.037597656e-01f, 1.158294678e-01f,
    1.606826782e-01f, 1.848907471e-01f, 2.076416016e-01f, 2.369079590e-01f, 2.569122314e-01f,
    2.857284546e-01f, 3.087387085e-01f, 3.302383423e-01f, 3.522186279e-01f, 3.746948242e-01f,
    3.976821899e-01f, 4.212112427e-01f, 4.392318726e-01f, 4.575805664e-01f, 4.700012207e-01f,
    4.953231812e-01f, 5.082244873e-01f, 5.345458984e-01f, 5.479660034e-01f, 5.710296631e-01f,
    5.893478394e-01f, 6.035385132e-01f, 6.179275513e-01f, 6.373596191e-01f, 6.473388672e-01f,
    6.696090698e-01f, 6.931457520e-01f};
alignas(64) static const float kLog32TLo[32] = {
    0.000000000e+00f,  2.787670155e-06f,  1.472797749e-06f,  3.191817314e-06f,  2.347751661e-06f,
    -2.965321926e-07f, -5.340324947e-07f, -2.236784212e-06f, 1.788093982e-06f,  -1.817660291e-06f,
    2.397730668e-06f,  -3.226846502e-06f, 3.344585366e-06f,  1.965659749e-06f,  -1.374777298e-06f,
    7.777247220e-07f,  2.222400553e-06f,  9.802038647e-08f,  5.428409509e-07f,  2.408542514e-06f,
    -1.743922326e-06f, 3.547612550e-07f,  -3.748054269e-06f, -8.327025398e-07f, 3.595879889e-06f,
    2.547522854e-06f,  -3.491313237e-06f, -3.791947165e-06f, -1.307596253e-08f, -1.222658852e-06f,
    3.665359145e-07f,  1.428606765e-06f};
// the same for log2 (T2_i = -log2(invc_i) (+ 1 for i >= 16), hi on the 2^-16 grid: e + hi is exact for every
// float exponent) and log10 (-log10(invc_i) (+ log10(2) for i >= 16), hi on the 2^-17 grid, entry 31 exactly
// log10(2)'s hi + lo below, so e log10(2)_hi + hi is exact and x just below 1 sums to y0 = 0 as log's does)
alignas(64) static const float kLog2THi[32] = {
    0.000000000e+00f, 4.580688477e-02f, 9.310913086e-02f, 1.497039795e-01f, 1.671142578e-01f,
    2.318115234e-01f, 2.667388916e-01f, 2.995605469e-01f, 3.417816162e-01f, 3.706359863e-01f,
    4.122161865e-01f, 4.454040527e-01f, 4.764404297e-01f, 5.081481934e-01f, 5.405731201e-01f,
    5.737304688e-01f, 6.076812744e-01f, 6.336822510e-01f, 6.601562500e-01f, 6.780700684e-01f,
    7.145996094e-01f, 7.332153320e-01f, 7.711791992e-01f, 7.905426025e-01f, 8.238220215e-01f,
    8.502502441e-01f, 8.707122803e-01f, 8.914794922e-01f, 9.195098877e-01f, 9.339141846e-01f,
    9.660491943e-01f, 1.000000000e+00f};
alignas(64) static const float kLog2TLo[32] = {
    0.000000000e+00f,  -3.195152431e-06f, 2.735320948e-07f,  -5.675361990e-06f, -4.271977105e-06f,
    4.151785561e-06f,  1.301856969e-06f,  -2.650160980e-07f, 6.901037068e-06f,  7.393592114e-06f,
    6.297148502e-06f,  7.095587989e-06f,  -2.385744438e-06f, -1.289689067e-06f, -4.738754342e-06f,
    4.776547939e-06f,  1.302807163e-06f,  -4.465222446e-06f, -6.252884759e-06f, 1.836753313e-06f,
    -1.828237259e-06f, -1.872726102e-06f, 2.110285322e-06f,  4.031831850e-06f,  4.829408226e-06f,
    2.636354793e-06f,  4.702781553e-06f,  -3.948965514e-06f, 5.655237146e-06f,  -3.375027973e-06f,
    -6.981166734e-06f, 0.000000000e+00f};
alignas(64) static const float kLog10THi[32] = {
    0.000000000e+00f, 1.378631592e-02f, 2.803039551e-02f, 4.506683350e-02f, 5.030822754e-02f,
    6.978607178e-02f, 8.029937744e-02f, 9.017944336e-02f, 1.028900146e-01f, 1.115722656e-01f,
    1.240921021e-01f, 1.340789795e-01f, 1.434249878e-01f, 1.529693604e-01f, 1.627273560e-01f,
    1.727142334e-01f, 1.829299927e-01f, 1.907577515e-01f, 1.987228394e-01f, 2.041168213e-01f,
    2.151184082e-01f, 2.207183838e-01f, 2.321472168e-01f, 2.379760742e-01f, 2.479934692e-01f,
    2.559509277e-01f, 2.621154785e-01f, 2.683639526e-01f, 2.768020630e-01f, 2.811355591e-01f,
    2.908096313e-01f, 3.010330200e-01f};
alignas(64) static const float kLog10TLo[32] = {
    0.000000000e+00f,  1.968567631e-06f,  -1.671907626e-06f, -3.153652870e-06f, -3.109227691e-06f,
    -2.600070047e-06f, -2.578161229e-06f, -2.813010269e-06f, -1.418783199e-06f, 2.509425258e-06f,
    -7.695784916e-07f, 3.136555961e-06f,  -2.845490599e-06f, -1.900143047e-06f, -5.845933160e-08f,
    -2.714994025e-06f, 6.909102126e-07f,  -1.730366876e-06f, 2.111413778e-06f,  3.161366749e-06f,
    -3.041245691e-06f, 8.606863275e-07f,  1.489459237e-06f,  2.175698228e-06f,  3.124113846e-06f,
    6.931944085e-07f,  -3.548881978e-06f, -3.073726020e-06f, -3.030863809e-07f, -3.921349787e-07f,
    -1.948106046e-06f, -3.024355465e-06f};

// t[i] for a 5-bit i: four 8-entry permutes and three selects (three gathers of eight ran 1.4x slower than
// the whole double-lane kernel here); b3 and b4 hold i's bits 3 and 4 in their sign bits
static inline __m256 lut32_avx2(__m256i i, __m256 b3, __m256 b4, const float* t) {
  const __m256 q0 = _mm256_permutevar8x32_ps(_mm256_load_ps(t), i);
  const __m256 q1 = _mm256_permutevar8x32_ps(_mm256_load_ps(t + 8), i);
  const __m256 q2 = _mm256_permutevar8x32_ps(_mm256_load_ps(t + 16), i);
  const __m256 q3 = _mm256_permutevar8x32_ps(_mm256_load_ps(t + 24), i);
  return _mm256_blendv_ps(_mm256_blendv_ps(q0, q1, b3), _mm256_blendv_ps(q2, q3, b3), b4);
}

// float32 log (kBase 0), log2 (2) and log10 (10): log_avx512's method (avx512_math.h; see there for the
// error analysis) with vgetexpps/vgetmantps done on the bits: x = 2^e M, M in [1, 2), and m = M below 1.5,
// M/2 above (the top fraction bit of x says which), the table index the top 5 fraction bits of m's float.
// Subnormal x are scaled by 2^23 first (only when a vector holds one). log's arithmetic is log_avx512's step
// for step: the same bits (0.7517 ulp over all floats). log2 and log10 carry the product r / ln(base) as hi
// + lo (an FMA recovers its rounding), their polynomial log's times 1/ln(base), e / log2(base)'s hi exact
// with the table's hi: the same structure, y0 + (r_hi + lo) with y0 exact and y0 = 0 around x = 1 (checked
// over every float by scripts/check_avx2_f32.cpp). +-0 -> -inf, +inf -> +inf, x < 0 -> NaN, NaN kept.
// kBase 1: log1p, log's kernel on u = 1 + x rounded with what the rounding lost, (x - (u - 1)) / u (u - 1 is
// exact), added to the low part: around x = 0 (y0 = 0) the result is r + (lo + c) rounded once, tiny x give x
// (r = 0, c = x), -0 keeps its sign (ORed back: every other x < 0 has a negative result); -1 -> -inf, x < -1
// -> NaN.
template <int kBase>
static inline __m256 log_avx2_f32(__m256 x0) {
  const __m256 inf = _mm256_set1_ps(__builtin_inff());
  const __m256 x = kBase == 1 ? _mm256_add_ps(x0, _mm256_set1_ps(1.0f)) : x0;
  // every lane a positive normal finite float? (NaN fails the first compare)
  const __m256 odd = _mm256_or_ps(_mm256_cmp_ps(x, _mm256_set1_ps(0x1p-126f), _CMP_NGE_UQ),
                                  _mm256_cmp_ps(x, inf, _CMP_EQ_OQ));
  const int any_odd = _mm256_movemask_ps(odd);
  __m256 xs = x, ebias = _mm256_set1_ps(127.0f);
  if (any_odd) {
    const __m256 sub = _mm256_and_ps(_mm256_cmp_ps(x, _mm256_set1_ps(0x1p-126f), _CMP_LT_OQ),
                                     _mm256_cmp_ps(x, _mm256_setzero_ps(), _CMP_GT_OQ));
    xs = _mm256_blendv_ps(x, _mm256_mul_ps(x, _mm256_set1_ps(0x1p23f)), sub);
    ebias = _mm256_blendv_ps(ebias, _mm256_set1_ps(150.0f), sub);
  }
  const __m256i b = _mm256_castps_si256(xs);
  const __m256 e = _mm256_sub_ps(_mm256_cvtepi32_ps(_mm256_srli_epi32(b, 23)), ebias);
  // m = M (exponent 127) or M/2 (126, where fraction bit 22 is set)
  __m256i mb =
      _mm256_or_si256(_mm256_and_si256(b, _mm256_set1_epi32(0x007fffff)), _mm256_set1_epi32(0x3f800000));
  mb = _mm256_sub_epi32(mb, _mm256_slli_epi32(_mm256_and_si256(b, _mm256_set1_epi32(0x00400000)), 1));
  const __m256 m = _mm256_castsi256_ps(mb);
  // the index: fraction bits 18-22 of m (permutes read the low 3 bits; bits 21 and 22 select)
  const __m256i i = _mm256_srli_epi32(mb, 18);
  const __m256 b3 = _mm256_castsi256_ps(_mm256_slli_epi32(mb, 10)),
               b4 = _mm256_castsi256_ps(_mm256_slli_epi32(mb, 9));
  const __m256 invc = lut32_avx2(i, b3, b4, kLog32InvC);
  // log and log1p: r = m invc - 1 rounded once, log_avx512's step; log2 and log10 keep that rounding too: m
  // invc = ph + pl exactly (an FMA), and ph - 1 is exact (ph within 1/32 of 1), so r = ph - 1 and pl joins
  // the low part (rounded, r's error times 1/ln 2 reached 1.05 ulp next to x = 0.984375)
  const __m256 ph = _mm256_mul_ps(m, invc);
  const __m256 r =
      kBase <= 1 ? _mm256_fmsub_ps(m, invc, _mm256_set1_ps(1.0f)) : _mm256_sub_ps(ph, _mm256_set1_ps(1.0f));
  const __m256 r2 = _mm256_mul_ps(r, r);
  __m256 res;
  if (kBase <= 1) {
    __m256 p = _mm256_fmadd_ps(_mm256_set1_ps(1.941438466e-01f), r, _mm256_set1_ps(-2.500175536e-01f));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(3.333347440e-01f));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(-0.5f));
    const __m256 y0 =
        _mm256_fmadd_ps(e, _mm256_set1_ps(0.693145751953125f), lut32_avx2(i, b3, b4, kLog32THi));
    __m256 lo = _mm256_fmadd_ps(e, _mm256_set1_ps(1.428606765e-06f), lut32_avx2(i, b3, b4, kLog32TLo));
    lo = _mm256_fmadd_ps(r2, p, lo);
    if (kBase == 1) {
      const __m256 c = _mm256_div_ps(_mm256_sub_ps(x0, _mm256_sub_ps(x, _mm256_set1_ps(1.0f))), x);
      // y0 + r exactly as s + err (Fast2Sum: |y0| > |r| where y0 != 0), so the sum rounds once: log1p's
      // results are then correctly rounded as often as the AVX-512 kernel's (softplus and logsigmoid follow
      // PyTorch's rounding steps through it), 98.6 % of exp(-|x|) without
      const __m256 sum = _mm256_add_ps(y0, r);
      const __m256 err = _mm256_add_ps(_mm256_sub_ps(y0, sum), r);
      res = _mm256_add_ps(sum, _mm256_add_ps(_mm256_add_ps(lo, c), err));
    } else {
      res = _mm256_add_ps(y0, _mm256_add_ps(r, lo));
    }
  } else {
    // log's polynomial times 1/ln(base), rounded coefficient by coefficient (r^2 p is below r/60)
    const bool two = kBase == 2;
    const __m256 ch = _mm256_set1_ps(two ? 1.442695022e+00f : 4.342944920e-01f);
    const __m256 cl = _mm256_set1_ps(two ? 1.925963034e-08f : -1.010304995e-08f);
    __m256 p = _mm256_fmadd_ps(_mm256_set1_ps(two ? 2.800903618e-01f : 8.431559801e-02f), r,
                               _mm256_set1_ps(two ? -3.606990874e-01f : -1.085812449e-01f));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(two ? 4.809003770e-01f : 1.447654366e-01f));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(two ? -7.213475108e-01f : -2.171472460e-01f));
    const __m256 rh = _mm256_mul_ps(r, ch);
    // r ch's rounding, plus r cl, plus pl times the derivative ch / (1 + r) (pl ch alone left out its r pl
    // ch: 0.3 ulp next to x = 0.9686)
    const __m256 pl = _mm256_fmsub_ps(m, invc, ph);
    const __m256 plc = _mm256_mul_ps(pl, ch);
    const __m256 rl =
        _mm256_fnmadd_ps(plc, r, _mm256_add_ps(plc, _mm256_fmadd_ps(r, cl, _mm256_fmsub_ps(r, ch, rh))));
    __m256 y0, lo;
    if (two) {
      y0 = _mm256_add_ps(e, lut32_avx2(i, b3, b4, kLog2THi));  // exact
      lo = _mm256_add_ps(lut32_avx2(i, b3, b4, kLog2TLo), rl);
    } else {
      y0 = _mm256_fmadd_ps(e, _mm256_set1_ps(3.010330200e-01f), lut32_avx2(i, b3, b4, kLog10THi));  // exact
      lo = _mm256_add_ps(
          _mm256_fmadd_ps(e, _mm256_set1_ps(-3.024355465e-06f), lut32_avx2(i, b3, b4, kLog10TLo)), rl);
    }
    lo = _mm256_fmadd_ps(r2, p, lo);
    res = _mm256_add_ps(y0, _mm256_add_ps(rh, lo));
  }
  if (any_odd) {
    res = _mm256_blendv_ps(res, inf, _mm256_cmp_ps(x, inf, _CMP_EQ_OQ));
    res = _mm256_blendv_ps(res, _mm256_set1_ps(-__builtin_inff()),
                           _mm256_cmp_ps(x, _mm256_setzero_ps(), _CMP_EQ_OQ));
    // x < 0: the default NaN, as vfixupimmps gives; a NaN x: itself (quieted); sqrt gives both
    res = _mm256_blendv_ps(res, _mm256_sqrt_ps(x), _mm256_cmp_ps(x, _mm256_setzero_ps(), _CMP_NGE_UQ));
  }
  if (kBase == 1) res = _mm256_or_ps(res, _mm256_and_ps(x0, _mm256_set1_ps(-0.0f)));
  return res;
}

// float32 asin (kAcos false) and acos. |x| < 0.5: asin x = x + x z P(z), z = x^2; acos x = pi/2 - asin x
// with pi/2 as hi + lo and the difference pi/2_hi - x split exactly (Fast2Sum, pi/2 > |x|). |x| >= 0.5: z =
// (1 - |x|)/2 (exact), s = sqrt(z) rounded and s_lo = (z - s^2) / 2s its error (the FMA gives z - s^2
// exactly), asin |x| = pi/2 - 2 (s + s_lo + s z P(z)) with pi/2_hi - 2s split exactly again (s rounded alone
// would cost 1 ulp near |x| = 0.5); acos x = 2 (s + s_lo + s z P(z)) for x >= 0.5 (2s exact, one rounding),
// pi - 2 (...) below -0.5 with pi as hi + lo. P: Cephes' asinf polynomial (relative 2e-8 on a term that is
// under 5 % of the result). Every lane takes the square root and one division; the branches are selects.
// |x| > 1 and NaN give NaN (the square root of a negative z, or the NaN itself); asin keeps -0.
template <bool kAcos>
static inline __m256 asin_acos_avx2_f32(__m256 x) {
  const __m256 sign = _mm256_set1_ps(-0.0f);
  const __m256 ax = _mm256_andnot_ps(sign, x);
  const __m256 half = _mm256_set1_ps(0.5f);
  const __m256 small = _mm256_cmp_ps(ax, half, _CMP_LT_OQ);
  const __m256 zb = _mm256_mul_ps(_mm256_sub_ps(_mm256_set1_ps(1.0f), ax), half);
  const __m256 z = _mm256_blendv_ps(zb, _mm256_mul_ps(x, x), small);
  __m256 p = _mm256_fmadd_ps(_mm256_set1_ps(4.2163199048e-2f), z, _mm256_set1_ps(2.4181311049e-2f));
  p = _mm256_fmadd_ps(p, z, _mm256_set1_ps(4.5470025998e-2f));
  p = _mm256_fmadd_ps(p, z, _mm256_set1_ps(7.4953002686e-2f));
  p = _mm256_fmadd_ps(p, z, _mm256_set1_ps(1.6666752422e-1f));
  const __m256 zp = _mm256_mul_ps(z, p);
  const __m256 pio2_hi = _mm256_set1_ps(1.57079637e+00f), pio2_lo = _mm256_set1_ps(-4.37113883e-08f);
  // |x| >= 0.5: w = s + (s_lo + s z P) as s + t
  const __m256 s = _mm256_sqrt_ps(zb);
  // s = 0 (|x| = 1) would divide 0 by 0: the denominator kept away from 0 (z - s^2 is 0 there anyway)
  const __m256 den = _mm256_max_ps(_mm256_add_ps(s, s), _mm256_set1_ps(0x1p-30f));
  const __m256 slo = _mm256_div_ps(_mm256_fnmadd_ps(s, s, zb), den);
  const __m256 t = _mm256_fmadd_ps(s, zp, slo);
  const __m256 s2 = _mm256_add_ps(s, s), t2 = _mm256_add_ps(t, t);
  __m256 res;
  if (!kAcos) {
    const __m256 rs = _mm256_fmadd_ps(x, zp, x);
    // pi/2_hi - 2s exactly as a + err
    const __m256 a = _mm256_sub_ps(pio2_hi, s2);
    const __m256 err = _mm256_sub_ps(_mm256_sub_ps(pio2_hi, a), s2);
    const __m256 big = _mm256_add_ps(a, _mm256_sub_ps(_mm256_add_ps(err, pio2_lo), t2));
    res = _mm256_blendv_ps(_mm256_or_ps(big, _mm256_and_ps(x, sign)), rs, small);
  } else {
    // |x| < 0.5: pi/2_hi - x exactly as a + err, then (err + pi/2_lo) - x z P
    const __m256 a = _mm256_sub_ps(pio2_hi, x);
    const __m256 err = _mm256_sub_ps(_mm256_sub_ps(pio2_hi, a), x);
    const __m256 rs = _mm256_add_ps(a, _mm256_fnmadd_ps(x, zp, _mm256_add_ps(err, pio2_lo)));
    // x >= 0.5: 2s + 2t
    const __m256 rp = _mm256_add_ps(s2, t2);
    // x <= -0.5: pi_hi - 2s exactly, then + pi_lo - 2t
    const __m256 pi_hi = _mm256_set1_ps(3.14159274e+00f), pi_lo = _mm256_set1_ps(-8.74227766e-08f);
    const __m256 an = _mm256_sub_ps(pi_hi, s2);
    const __m256 errn = _mm256_sub_ps(_mm256_sub_ps(pi_hi, an), s2);
    const __m256 rn = _mm256_add_ps(an, _mm256_sub_ps(_mm256_add_ps(errn, pi_lo), t2));
    const __m256 big = _mm256_blendv_ps(rp, rn, x);  // x's sign bit (a NaN z gives NaN either way)
    res = _mm256_blendv_ps(big, rs, small);
  }
  return res;
}

// float32 gelu, x/2 (1 + erf(x/sqrt 2)), with PyTorch's vectorized erf (Abramowitz-Stegun 7.1.26: absolute
// error 1.5e-7, which is what gelu's x/2 (1 + erf) needs, not erf's relative accuracy) over a short exp of
// z = -x^2/2 <= 0: n = rint(z log2 e), u = z - n ln2 in one FMA (ln2 in float: its 2e-9 n error is relative
// to exp(z), i.e. to the tail term, where A&S's own error is larger), exp(u) = 1 + (u + u^2 Q(u)), Q of
// degree 4 (weighted least squares relative to exp(u): 4.4e-9), 2^n put into the exponent field. The tail
// (1 - |erf|) / 2 is A&S's t P(t) exp(z) (its 1/2 folded into P, 1/sqrt 2 into t's constant), and gelu is x
// (1 - tail) or x tail: 17 multiplies and FMAs per vector against 21 in the form before (1 + erf, then x / 2
// (1 + erf); a degree-5 Q and a two-FMA reduction): 617 -> 544 us for 2^20 floats on this EPYC, PyTorch
// 2.15's kernel (its exp_u20) about 0.52 ns per element. Over every 38th float of [-14, 10] against the
// double formula: 9.1 ulp at most on [0, 10], 9.6 on [-1, 10] (A&S's: 8.7 and 10.2 before), relative 0.52
// below -3, where the tail is A&S's absolute error (1.01 before, whose 1 + erf rounded to 0 below -5.5).
static inline __m256 gelu_avx2_f32(__m256 x) {
  const __m256 sign = _mm256_set1_ps(-0.0f);
  const __m256 one = _mm256_set1_ps(1.0f);
  const __m256 ax = _mm256_andnot_ps(sign, x);
  const __m256 t =
      _mm256_div_ps(one, _mm256_fmadd_ps(_mm256_set1_ps(0.3275911f * 0.70710678118654752440f), ax, one));
  __m256 r = _mm256_fmadd_ps(_mm256_set1_ps(0.5f * 1.061405429f), t, _mm256_set1_ps(0.5f * -1.453152027f));
  r = _mm256_fmadd_ps(r, t, _mm256_set1_ps(0.5f * 1.421413741f));
  r = _mm256_fmadd_ps(r, t, _mm256_set1_ps(0.5f * -0.284496736f));
  r = _mm256_fmadd_ps(r, t, _mm256_set1_ps(0.5f * 0.254829592f));
  // z clamped at -104 (max returns its second operand for a NaN: x carries the NaN); the exponent sum is
  // floored at 0 as an integer, so 2^n p is 0 where it would leave the normal range by more than one binade
  // (n < -127 + 1: |x| beyond 14.4) and off by at most 2x below 1.2e-38 just above: the tail is 0 there
  // instead of a clamped exp's 1e-36, so gelu of a large negative x is -0
  const __m256 z =
      _mm256_max_ps(_mm256_mul_ps(_mm256_mul_ps(x, x), _mm256_set1_ps(-0.5f)), _mm256_set1_ps(-104.0f));
  const __m256 shift = _mm256_set1_ps(12582912.0f);  // 1.5 * 2^23
  const __m256 tn = _mm256_fmadd_ps(z, _mm256_set1_ps(1.44269504f), shift);
  const __m256 n = _mm256_sub_ps(tn, shift);
  const __m256 u = _mm256_fnmadd_ps(n, _mm256_set1_ps(0.693147182f), z);
  __m256 q = _mm256_fmadd_ps(_mm256_set1_ps(0.001381444395519793f), u, _mm256_set1_ps(0.008368782699108124f));
  q = _mm256_fmadd_ps(q, u, _mm256_set1_ps(0.041668396443128586f));
  q = _mm256_fmadd_ps(q, u, _mm256_set1_ps(0.1666651964187622f));
  q = _mm256_fmadd_ps(q, u, _mm256_set1_ps(0.4999999403953552f));
  const __m256 p = _mm256_add_ps(_mm256_fmadd_ps(_mm256_mul_ps(u, u), q, u), one);
  const __m256i ni = _mm256_sub_epi32(_mm256_castps_si256(tn), _mm256_castps_si256(shift));
  const __m256 ez = _mm256_castsi256_ps(_mm256_max_epi32(
      _mm256_add_epi32(_mm256_castps_si256(p), _mm256_slli_epi32(ni, 23)), _mm256_setzero_si256()));
  // Phi(x) = 1 - tail for x >= 0, the tail below (x's sign bit selects), and gelu = x Phi: -0 gives -0, +inf
  // inf, -inf 0 * -inf = NaN, as the formula
  const __m256 tail = _mm256_mul_ps(_mm256_mul_ps(r, t), ez);
  return _mm256_mul_ps(x, _mm256_blendv_ps(_mm256_sub_ps(one, tail), tail, x));
}

}  // namespace
