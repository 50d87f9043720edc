// Our own AVX-512 float32 kernels (tanh, log, exp for erf's tail) where Debian's SLEEF 3.5.1 is 2-5x slower
// than the MKL VML routines that PyTorch's wheel calls. Included only by vec/unary_avx512.cpp (static
// functions).
#pragma once
#include <immintrin.h>

namespace {

// float32 tanh: 32 intervals of |x| (0..1/16, then four per octave up to 16: the index is the exponent and
// two mantissa bits of |x|), each a degree-5 polynomial around its midpoint, fetched with vpermt2ps (one
// permute per coefficient, no gather). Fitted by scripts/fit_tanh_f32.py (weighted least squares on Chebyshev
// nodes, constant term rounded first); interval 0 is tanh's Taylor series, so tiny and subnormal x give x.
// Exhaustively checked over all floats: at most 1.17 ulp (SLEEF's Cephes-style formula here before: 1.31).
// |x| is clamped at 9.5 (tanh rounds to 1 above 9.01), the sign ORed back (keeps -0); NaN flows through.
alignas(64) static const float kTanhMid[32] = {
    0.000000000e+00f, 7.031250000e-02f, 8.593750000e-02f, 1.015625000e-01f, 1.171875000e-01f,
    1.406250000e-01f, 1.718750000e-01f, 2.031250000e-01f, 2.343750000e-01f, 2.812500000e-01f,
    3.437500000e-01f, 4.062500000e-01f, 4.687500000e-01f, 5.625000000e-01f, 6.875000000e-01f,
    8.125000000e-01f, 9.375000000e-01f, 1.125000000e+00f, 1.375000000e+00f, 1.625000000e+00f,
    1.875000000e+00f, 2.250000000e+00f, 2.750000000e+00f, 3.250000000e+00f, 3.750000000e+00f,
    4.500000000e+00f, 5.500000000e+00f, 6.500000000e+00f, 7.500000000e+00f, 9.000000000e+00f,
    9.000000000e+00f, 9.000000000e+00f,
};
alignas(64) static const float kTanhC[6][32] = {
    {
        0.000000000e+00f, 7.019685954e-02f, 8.572656661e-02f, 1.012147292e-01f, 1.166539863e-01f,
        1.397053003e-01f, 1.702023149e-01f, 2.003767192e-01f, 2.301757038e-01f, 2.740615904e-01f,
        3.308211267e-01f, 3.852839768e-01f, 4.371887743e-01f, 5.098299980e-01f, 5.963735580e-01f,
        6.709671021e-01f, 7.340714931e-01f, 8.093010783e-01f, 8.798267245e-01f, 9.253462553e-01f,
        9.540452361e-01f, 9.780260921e-01f, 9.918597341e-01f, 9.969976544e-01f, 9.988944530e-01f,
        9.997531772e-01f, 9.999666214e-01f, 9.999954700e-01f, 9.999994040e-01f, 9.999999404e-01f,
        9.999999404e-01f, 9.999999404e-01f,
    },
    {
        1.000000000e+00f, 9.950724840e-01f, 9.926509857e-01f, 9.897555709e-01f, 9.863917828e-01f,
        9.804823995e-01f, 9.710312486e-01f, 9.598491788e-01f, 9.470191002e-01f, 9.248902798e-01f,
        8.905574083e-01f, 8.515563011e-01f, 8.088659048e-01f, 7.400734425e-01f, 6.443386078e-01f,
        5.498032570e-01f, 4.611389637e-01f, 3.450317681e-01f, 2.259049863e-01f, 1.437343657e-01f,
        8.979763836e-02f, 4.346491396e-02f, 1.621429063e-02f, 5.995716900e-03f, 2.209892962e-03f,
        4.935282050e-04f, 6.680606020e-05f, 9.041477824e-06f, 1.223635877e-06f, 6.101405603e-08f,
        6.101405603e-08f, 6.101405603e-08f,
    },
    {
        0.000000000e+00f,  -7.000090927e-02f, -8.511411399e-02f, -1.000584364e-01f, -1.149094850e-01f,
        -1.369376332e-01f, -1.653774530e-01f, -1.923431605e-01f, -2.178616822e-01f, -2.534829080e-01f,
        -2.946528792e-01f, -3.281340599e-01f, -3.535828888e-01f, -3.773362339e-01f, -3.842690289e-01f,
        -3.689284027e-01f, -3.384820521e-01f, -2.792386413e-01f, -1.987647712e-01f, -1.330121607e-01f,
        -8.566492051e-02f, -4.250713810e-02f, -1.608197391e-02f, -5.978510715e-03f, -2.207946731e-03f,
        -4.922457738e-04f, -6.710692833e-05f, -8.881081158e-06f, -1.474208489e-06f, 5.697716432e-08f,
        5.697716432e-08f,  5.697716432e-08f,
    },
    {
        -3.333333433e-01f, -3.310154378e-01f, -3.239937723e-01f, -3.174497783e-01f, -3.127233386e-01f,
        -3.071189821e-01f, -2.967494130e-01f, -2.815231681e-01f, -2.645206749e-01f, -2.388692200e-01f,
        -1.995902359e-01f, -1.576342881e-01f, -1.148568466e-01f, -5.439952388e-02f, 1.438065432e-02f,
        6.420505792e-02f,  9.481092542e-02f,  1.109747291e-01f,  9.956859797e-02f,  7.516170293e-02f,
        5.180291086e-02f,  2.708779648e-02f,  1.054620929e-02f,  3.960961942e-03f,  1.468284521e-03f,
        3.284228151e-04f,  4.448444815e-05f,  6.021010904e-06f,  8.148666666e-07f,  3.986883002e-08f,
        3.986883002e-08f,  3.986883002e-08f,
    },
    {
        0.000000000e+00f,  2.012866497e+00f,  2.863415182e-01f,  -1.499812484e+00f, -1.983930349e+00f,
        -4.566945508e-02f, 4.518928528e-01f,  1.589448303e-01f,  -2.566728592e-01f, 1.547951996e-01f,
        1.949827969e-01f,  2.052622586e-01f,  1.318545640e-01f,  1.583579779e-01f,  1.199834496e-01f,
        8.573322743e-02f,  3.780993074e-02f,  3.778078360e-03f,  -2.078646794e-02f, -2.473478764e-02f,
        -2.116526850e-02f, -1.240441762e-02f, -5.139952525e-03f, -1.962456387e-03f, -7.308205240e-04f,
        -1.737154817e-04f, -2.208090518e-05f, -3.633528195e-06f, 3.795216799e-07f,  -1.176794200e-07f,
        -1.176794200e-07f, -1.176794200e-07f,
    },
    {
        1.333333403e-01f,  5.554423904e+01f,  5.435443878e+00f,  -3.040811729e+01f, -3.462833405e+01f,
        -1.761914372e+00f, 4.040722847e+00f,  4.585639536e-01f,  -3.127481461e+00f, 9.243849665e-02f,
        1.979923546e-01f,  1.618732214e-01f,  -1.509674639e-01f, -2.858187258e-02f, -6.037271768e-02f,
        -5.311767757e-02f, -6.006114557e-02f, -3.203435242e-02f, -9.376979433e-03f, 1.510583097e-03f,
        4.540644120e-03f,  3.976569511e-03f,  1.915477682e-03f,  7.707482437e-04f,  2.926943416e-04f,
        6.830471830e-05f,  9.280028280e-06f,  1.256533551e-06f,  1.700686738e-07f,  9.577250104e-09f,
        9.577250104e-09f,  9.577250104e-09f,
    },
};

static inline __m512 lut32(__m512i i, const float* t) {
  return _mm512_permutex2var_ps(_mm512_load_ps(t), i, _mm512_load_ps(t + 16));
}

static inline __m512 tanh_avx512(__m512 x) {
  const __m512 ax = _mm512_min_ps(_mm512_set1_ps(9.5f), _mm512_abs_ps(x));  // NaN: min returns ax
  // index: (bits >> 21) counts quarter octaves; 1/16 has 123 << 2, so 1/16 -> 1 and below -> 0
  __m512i i = _mm512_sub_epi32(_mm512_srli_epi32(_mm512_castps_si512(ax), 21), _mm512_set1_epi32(491));
  i = _mm512_max_epi32(i, _mm512_setzero_si512());
  const __m512 t = _mm512_sub_ps(ax, lut32(i, kTanhMid));
  __m512 p = lut32(i, kTanhC[5]);
  p = _mm512_fmadd_ps(p, t, lut32(i, kTanhC[4]));
  p = _mm512_fmadd_ps(p, t, lut32(i, kTanhC[3]));
  p = _mm512_fmadd_ps(p, t, lut32(i, kTanhC[2]));
  p = _mm512_fmadd_ps(p, t, lut32(i, kTanhC[1]));
  p = _mm512_fmadd_ps(p, t, lut32(i, kTanhC[0]));
  // p | (x & sign)
  return _mm512_castsi512_ps(_mm512_ternarylogic_epi32(_mm512_castps_si512(p), _mm512_castps_si512(x),
                                                       _mm512_set1_epi32(0x80000000), 0xf8));
}

// float32 log: x = 2^e m with m in [0.75, 1.5) (vgetmantps; subnormals need no special path), m near
// c = 1 + k/16 (k = -4..8), log x = e ln2 + log(1/invc) + log1p(m invc - 1) with |r| < 0.042, a degree-6
// Taylor polynomial, log(1/invc) as float hi + lo and (hi + r) summed exactly (Fast2Sum, |hi| > |r| or
// hi = 0), so near x = 1 the result is r's own rounding plus one more. Exhaustively at most 0.995 ulp
// (SLEEF's u10 bound is 1.0). vfixupimmps gives log(+-0) = -inf, log(+inf) = inf, NaN for x < 0 and -inf.
static inline __m512 log_avx512(__m512 x) {
  const __m512 invc =
      _mm512_setr_ps(1.333333373e+00f, 1.230769277e+00f, 1.142857194e+00f, 1.066666722e+00f, 1.0f,
                     9.411764741e-01f, 8.888888955e-01f, 8.421052694e-01f, 8.000000119e-01f, 7.619047761e-01f,
                     7.272727489e-01f, 6.956521869e-01f, 6.666666865e-01f, 1.0f, 1.0f, 1.0f);
  // -log(invc) in high precision, split into two floats
  const __m512 lch =
      _mm512_setr_ps(-2.876821160e-01f, -2.076393962e-01f, -1.335314363e-01f, -6.453857571e-02f, 0.0f,
                     6.062461808e-02f, 1.177830249e-01f, 1.718502492e-01f, 2.231435329e-01f, 2.719337046e-01f,
                     3.184536994e-01f, 3.629054725e-01f, 4.054650664e-01f, 0.0f, 0.0f, 0.0f);
  const __m512 lcl = _mm512_setr_ps(1.377754355e-08f, -5.840503636e-09f, -1.003885641e-09f, 2.417232192e-09f,
                                    0.0f, 7.905949333e-12f, 3.298690654e-09f, 3.048216402e-10f,
                                    3.540848725e-09f, -7.757448905e-09f, 1.965855700e-09f, 2.545903488e-09f,
                                    1.187288934e-08f, 0.0f, 0.0f, 0.0f);
  const __m512 m = _mm512_getmant_ps(x, _MM_MANT_NORM_p75_1p5, _MM_MANT_SIGN_nan);
  const __m512 e = _mm512_sub_ps(_mm512_getexp_ps(x), _mm512_getexp_ps(m));  // getexp(m) is -1 or 0
  const __m512i k = _mm512_cvtps_epi32(_mm512_fmadd_ps(m, _mm512_set1_ps(16.0f), _mm512_set1_ps(-12.0f)));
  const __m512 r = _mm512_fmsub_ps(m, _mm512_permutexvar_ps(k, invc), _mm512_set1_ps(1.0f));
  // log1p(r) - r
  __m512 q = _mm512_fmadd_ps(_mm512_set1_ps(-1.0f / 6), r, _mm512_set1_ps(0.2f));
  q = _mm512_fmadd_ps(q, r, _mm512_set1_ps(-0.25f));
  q = _mm512_fmadd_ps(q, r, _mm512_set1_ps(1.0f / 3));
  q = _mm512_fmadd_ps(q, r, _mm512_set1_ps(-0.5f));
  q = _mm512_mul_ps(_mm512_mul_ps(q, r), r);
  const __m512 hi = _mm512_permutexvar_ps(k, lch);
  const __m512 s = _mm512_add_ps(hi, r);
  const __m512 err = _mm512_add_ps(_mm512_sub_ps(hi, s), r);
  const __m512 lo = _mm512_fmadd_ps(e, _mm512_set1_ps(-2.12194440e-4f),
                                    _mm512_add_ps(_mm512_add_ps(q, _mm512_permutexvar_ps(k, lcl)), err));
  const __m512 res = _mm512_fmadd_ps(e, _mm512_set1_ps(0.693359375f), _mm512_add_ps(s, lo));  // ln2 hi + lo
  // classes QNaN, SNaN, 0, +1, -inf, +inf, negative, positive -> keep, keep, -inf, +0, NaN, +inf, NaN, keep
  return _mm512_fixupimm_ps(res, x, _mm512_set1_epi32(0x03538400), 0);
}

// float32 exp for erf's tail: Cody-Waite reduction, Cephes' degree-6 polynomial, vscalefps for 2^n (gradual
// underflow, overflow to inf). 1.26 ulp at worst, so exp itself stays SLEEF's (1.0); erf's tail multiplies
// it by erfc's small factor, where 1.3 ulp of exp moves the result by < 0.01 ulp.
static inline __m512 exp_avx512(__m512 x) {
  const __m512 xc = _mm512_min_ps(_mm512_set1_ps(89.0f), _mm512_max_ps(_mm512_set1_ps(-104.0f), x));
  const __m512 n = _mm512_roundscale_ps(_mm512_mul_ps(xc, _mm512_set1_ps(1.44269504088896341f)),
                                        _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  __m512 r = _mm512_fnmadd_ps(n, _mm512_set1_ps(0.693359375f), xc);
  r = _mm512_fnmadd_ps(n, _mm512_set1_ps(-2.12194440e-4f), r);
  __m512 p = _mm512_fmadd_ps(_mm512_set1_ps(1.9875691500e-4f), r, _mm512_set1_ps(1.3981999507e-3f));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(8.3334519073e-3f));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(4.1665795894e-2f));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.6666665459e-1f));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(5.0000001201e-1f));
  p = _mm512_fmadd_ps(p, _mm512_mul_ps(r, r), _mm512_add_ps(r, _mm512_set1_ps(1.0f)));
  return _mm512_scalef_ps(p, n);
}

}  // namespace
