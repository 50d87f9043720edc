// Our own AVX-512 float32 kernels (tanh, erf, log, a shorter exp) where Debian's SLEEF 3.5.1 is 2-5x slower
// than the MKL VML routines that PyTorch's wheel calls. Included only by vec/unary_avx512.cpp (static
// functions).
#pragma once
#include <immintrin.h>

#include "kernels/cpu/vec/avx2_f32_math.h"  // float32 log's table
#include "kernels/cpu/vec/exp64_table.h"
#include "kernels/cpu/vec/f64_series.h"

namespace {

// float32 tanh: 32 intervals of |x| (0..1/16, then four per octave up to 16: the index is the exponent and
// two mantissa bits of |x|), each a degree-5 polynomial around its midpoint, fetched with vpermt2ps (one
// permute per coefficient, no gather). Fitted by scripts/fit_vec_tables.py (weighted least squares on
// Chebyshev nodes, constant term rounded first); interval 0 is tanh's Taylor series, so tiny and subnormal x
// give x. Exhaustively checked over all floats: at most 1.17 ulp (SLEEF's Cephes-style formula here
// before: 1.31). |x| is clamped at 9.5 (tanh rounds to 1 above 9.01), the sign ORed back (keeps -0); NaN
// flows through.
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

// float32 erf: the same 32 intervals as tanh, |x| clamped at 4 (erf rounds to 1 from 3.92), fitted by the
// same script; the constant and linear terms are float pairs hi + lo, added last (erf's limit is 1 ulp).
// Exhaustively at most 1.0 ulp, reached only near 2^-126 where the lo term underflows; 0.5x the time of the
// double polynomial the AVX2 path keeps (unary_impl.h), 5.6x SLEEF's erff.
alignas(64) static const float kErfMid[32] = {
    0.000000000e+00f, 7.031250000e-02f, 8.593750000e-02f, 1.015625000e-01f, 1.171875000e-01f,
    1.406250000e-01f, 1.718750000e-01f, 2.031250000e-01f, 2.343750000e-01f, 2.812500000e-01f,
    3.437500000e-01f, 4.062500000e-01f, 4.687500000e-01f, 5.625000000e-01f, 6.875000000e-01f,
    8.125000000e-01f, 9.375000000e-01f, 1.125000000e+00f, 1.375000000e+00f, 1.625000000e+00f,
    1.875000000e+00f, 2.250000000e+00f, 2.750000000e+00f, 3.250000000e+00f, 3.750000000e+00f,
    3.750000000e+00f, 3.750000000e+00f, 3.750000000e+00f, 3.750000000e+00f, 3.750000000e+00f,
    3.750000000e+00f, 3.750000000e+00f,
};
alignas(64) static const float kErfC[8][32] = {
    // c0 hi, c0 lo, c1 hi, c1 lo, c2 .. c5
    {
        0.000000000e+00f, 7.920860499e-02f, 9.673189372e-02f, 1.142081916e-01f, 1.316291094e-01f,
        1.576385200e-01f, 1.920472383e-01f, 2.260883898e-01f, 2.597001493e-01f, 3.091837168e-01f,
        3.731291890e-01f, 4.343869090e-01f, 4.926134646e-01f, 5.736744404e-01f, 6.690846682e-01f,
        7.494640350e-01f, 8.151023984e-01f, 8.883882165e-01f, 9.481700659e-01f, 9.784437418e-01f,
        9.919900298e-01f, 9.985372424e-01f, 9.998993874e-01f, 9.999957085e-01f, 9.999998808e-01f,
        9.999998808e-01f, 9.999998808e-01f, 9.999998808e-01f, 9.999998808e-01f, 9.999998808e-01f,
        9.999998808e-01f, 9.999998808e-01f,
    },
    {
        0.000000000e+00f,  1.977715991e-09f, 2.687148726e-09f,  -3.632129042e-10f, 1.735278310e-10f,
        1.379300452e-09f,  7.384824752e-09f, -6.920915840e-09f, 8.857453437e-09f,  1.072620215e-08f,
        4.516330421e-09f,  2.124315168e-09f, 8.622569325e-09f,  1.614497869e-08f,  -5.337822628e-09f,
        -9.482549856e-09f, 2.634160889e-09f, 1.704358610e-08f,  9.534979917e-09f,  -6.840184419e-09f,
        2.835252033e-08f,  1.966424001e-08f, -2.199744920e-08f, -1.332388955e-08f, 5.325532904e-09f,
        5.325532904e-09f,  5.325532904e-09f, 5.325532904e-09f,  5.325532904e-09f,  5.325532904e-09f,
        5.325532904e-09f,  5.325532904e-09f,
    },
    {
        1.128379226e+00f, 1.122814417e+00f, 1.120076537e+00f, 1.116799831e+00f, 1.112989187e+00f,
        1.106284261e+00f, 1.095533252e+00f, 1.082769871e+00f, 1.068067074e+00f, 1.042561531e+00f,
        1.002621651e+00f, 9.567081928e-01f, 9.057931304e-01f, 8.223213553e-01f, 7.033687234e-01f,
        5.831131339e-01f, 4.685445726e-01f, 3.182739615e-01f, 1.703597754e-01f, 8.047225326e-02f,
        3.354582563e-02f, 7.142300718e-03f, 5.862943362e-04f, 2.919364852e-05f, 8.818866490e-07f,
        8.818866490e-07f, 8.818866490e-07f, 8.818866490e-07f, 8.818866490e-07f, 8.818866490e-07f,
        8.818866490e-07f, 8.818866490e-07f,
    },
    {
        -5.863538277e-08f, -1.747429934e-08f, -4.028735034e-08f, -6.501223559e-09f, -3.316618802e-08f,
        -4.427259270e-08f, -1.164401020e-08f, 2.051442571e-08f,  5.900051292e-08f,  -2.126889065e-08f,
        -4.512868301e-08f, 2.665028553e-08f,  6.391254193e-09f,  4.571793610e-09f,  9.213970920e-09f,
        2.612859618e-08f,  1.442961661e-08f,  -2.339804794e-09f, -4.697921607e-09f, 2.478309336e-09f,
        6.560257337e-10f,  7.058294227e-11f,  -2.667603638e-11f, -8.681501156e-13f, 1.628205695e-14f,
        1.628205695e-14f,  1.628205695e-14f,  1.628205695e-14f,  1.628205695e-14f,  1.628205695e-14f,
        1.628205695e-14f,  1.628205695e-14f,
    },
    {
        0.000000000e+00f,  -7.894788682e-02f, -9.625657648e-02f, -1.134249792e-01f, -1.304284185e-01f,
        -1.555712223e-01f, -1.882947683e-01f, -2.199376374e-01f, -2.503282428e-01f, -2.932204008e-01f,
        -3.446511626e-01f, -3.886626959e-01f, -4.245904982e-01f, -4.625553787e-01f, -4.835657179e-01f,
        -4.737792909e-01f, -4.392605424e-01f, -3.580603302e-01f, -2.342477143e-01f, -1.307694018e-01f,
        -6.289899349e-02f, -1.606404781e-02f, -1.608602586e-03f, -9.426780889e-05f, -3.260604217e-06f,
        -3.260604217e-06f, -3.260604217e-06f, -3.260604217e-06f, -3.260604217e-06f, -3.260604217e-06f,
        -3.260604217e-06f, -3.260604217e-06f,
    },
    {
        -3.761263788e-01f, -3.705707788e-01f, -3.678441346e-01f, -3.645868003e-01f, -3.608066738e-01f,
        -3.541766107e-01f, -3.436022997e-01f, -3.311400712e-01f, -3.169085979e-01f, -2.925417423e-01f,
        -2.552247047e-01f, -2.136399895e-01f, -1.692465693e-01f, -1.006494835e-01f, -1.282239705e-02f,
        6.225908548e-02f,  1.183560714e-01f,  1.624511331e-01f,  1.579386145e-01f,  1.148421168e-01f,
        6.744216383e-02f,  2.172692306e-02f,  2.758204238e-03f,  1.952192542e-04f,  7.911728062e-06f,
        7.911728062e-06f,  7.911728062e-06f,  7.911728062e-06f,  7.911728062e-06f,  7.911728062e-06f,
        7.911728062e-06f,  7.911728062e-06f,
    },
    {
        0.000000000e+00f,  3.934264556e-02f,  4.788987339e-02f,  5.632079393e-02f,  6.461519748e-02f,
        7.675087452e-02f,  9.228221327e-02f,  1.069312692e-01f,  1.205663010e-01f,  1.388147026e-01f,
        1.586792916e-01f,  1.728751808e-01f,  1.811227202e-01f,  1.822197437e-01f,  1.653935164e-01f,
        1.325243711e-01f,  9.092593193e-02f,  2.833503112e-02f,  -2.998286858e-02f, -4.938120767e-02f,
        -4.216304794e-02f, -1.934886351e-02f, -3.414073028e-03f, -3.118343011e-04f, -1.572532346e-05f,
        -1.572532346e-05f, -1.572532346e-05f, -1.572532346e-05f, -1.572532346e-05f, -1.572532346e-05f,
        -1.572532346e-05f, -1.572532346e-05f,
    },
    {
        1.128379181e-01f,  1.100679189e-01f,  1.087097824e-01f,  1.070909128e-01f,  1.052160338e-01f,
        1.019469723e-01f,  9.674735367e-02f,  9.066475928e-02f,  8.378016204e-02f,  7.218758762e-02f,
        5.478896573e-02f,  3.603800014e-02f,  1.685005985e-02f,  -1.066648308e-02f, -4.150693119e-02f,
        -6.162529439e-02f, -6.948898733e-02f, -6.110446155e-02f, -3.067527898e-02f, -2.312699333e-03f,
        1.132688951e-02f,  1.058184914e-02f,  2.825871576e-03f,  3.326163278e-04f,  2.020526335e-05f,
        2.020526335e-05f,  2.020526335e-05f,  2.020526335e-05f,  2.020526335e-05f,  2.020526335e-05f,
        2.020526335e-05f,  2.020526335e-05f,
    },
};

static inline __m512 erf_avx512(__m512 x) {
  const __m512 ax = _mm512_min_ps(_mm512_set1_ps(4.0f), _mm512_abs_ps(x));  // NaN: min returns ax
  __m512i i = _mm512_sub_epi32(_mm512_srli_epi32(_mm512_castps_si512(ax), 21), _mm512_set1_epi32(491));
  i = _mm512_max_epi32(i, _mm512_setzero_si512());
  const __m512 t = _mm512_sub_ps(ax, lut32(i, kErfMid));
  __m512 p = _mm512_fmadd_ps(lut32(i, kErfC[7]), t, lut32(i, kErfC[6]));
  p = _mm512_fmadd_ps(p, t, lut32(i, kErfC[5]));
  p = _mm512_fmadd_ps(p, t, lut32(i, kErfC[4]));
  p = _mm512_fmadd_ps(p, t, lut32(i, kErfC[3]));
  p = _mm512_fmadd_ps(p, t, lut32(i, kErfC[1]));
  p = _mm512_fmadd_ps(t, lut32(i, kErfC[2]), p);
  p = _mm512_add_ps(p, lut32(i, kErfC[0]));
  return _mm512_castsi512_ps(_mm512_ternarylogic_epi32(_mm512_castps_si512(p), _mm512_castps_si512(x),
                                                       _mm512_set1_epi32(0x80000000), 0xf8));
}

// float32 log1p: u = 1 + x, u = 2^e m with m in [0.75, 1.5) (vgetmantps; subnormals need no special path), m
// near c = 1 + k/16 (k = -4..8), log u = e ln2 + log(1/invc) + log1p(m invc - 1) with |r| < 0.042, a degree-6
// Taylor polynomial, log(1/invc) as float hi + lo and (hi + r) summed exactly (Fast2Sum, |hi| > |r| or hi =
// 0), plus the rounding of u corrected. 0.81 ulp over all floats > -1. (log has its own 32-entry kernel
// below: through this table it would reach 1.0036 ulp, at x = 1.03158665.) vfixupimmps gives the special
// values.
template <bool kLog1p>
static inline __m512 log_core_avx512(__m512 x) {
  // log1p: u = 1 + x rounded; log1p(x) = log(u) + (x - (u - 1)) / u where u's exponent is not 0
  const __m512 u = kLog1p ? _mm512_add_ps(x, _mm512_set1_ps(1.0f)) : x;
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
  const __m512 m = _mm512_getmant_ps(u, _MM_MANT_NORM_p75_1p5, _MM_MANT_SIGN_nan);
  const __m512 e = _mm512_sub_ps(_mm512_getexp_ps(u), _mm512_getexp_ps(m));  // getexp(m) is -1 or 0
  const __m512i k = _mm512_cvtps_epi32(_mm512_fmadd_ps(m, _mm512_set1_ps(16.0f), _mm512_set1_ps(-12.0f)));
  __m512 r = _mm512_fmsub_ps(m, _mm512_permutexvar_ps(k, invc), _mm512_set1_ps(1.0f));
  __m512 corr = _mm512_setzero_ps();
  if (kLog1p) {
    // u in [0.75, 1.5) (e = 0): m is u, so r = (1 + x) invc - 1 straight from x, rounded once as for log
    const __m512 ic = _mm512_permutexvar_ps(k, invc);
    const __mmask16 e0 = _mm512_cmp_ps_mask(e, _mm512_setzero_ps(), _CMP_EQ_OQ);
    // exactly, as x ic = ph + pl (FMA) and ph + (ic - 1) (Sterbenz: |r| < |ic - 1| / 2 off entry 4, and entry
    // 4 has ic = 1): a rounded r would cost 0.25 ulp near x = 0.031
    const __m512 ph = _mm512_mul_ps(x, ic);
    r = _mm512_mask_mov_ps(r, e0, _mm512_add_ps(ph, _mm512_sub_ps(ic, _mm512_set1_ps(1.0f))));
    // elsewhere |log1p(x)| > 0.28 and the correction is small; inf/NaN only where u is 0, negative, inf or
    // NaN: the fixup below replaces those results
    corr = _mm512_mul_ps(_mm512_sub_ps(x, _mm512_sub_ps(u, _mm512_set1_ps(1.0f))), _mm512_rcp14_ps(u));
    corr = _mm512_mask_mov_ps(corr, e0, _mm512_fmsub_ps(x, ic, ph));
  }
  // log1p(r) - r
  __m512 q = _mm512_fmadd_ps(_mm512_set1_ps(-1.0f / 6), r, _mm512_set1_ps(0.2f));
  q = _mm512_fmadd_ps(q, r, _mm512_set1_ps(-0.25f));
  q = _mm512_fmadd_ps(q, r, _mm512_set1_ps(1.0f / 3));
  q = _mm512_fmadd_ps(q, r, _mm512_set1_ps(-0.5f));
  q = _mm512_mul_ps(_mm512_mul_ps(q, r), r);
  const __m512 hi = _mm512_permutexvar_ps(k, lch);
  const __m512 s = _mm512_add_ps(hi, r);
  const __m512 err = _mm512_add_ps(_mm512_sub_ps(hi, s), r);
  const __m512 lo = _mm512_fmadd_ps(
      e, _mm512_set1_ps(-2.12194440e-4f),
      _mm512_add_ps(_mm512_add_ps(_mm512_add_ps(q, corr), _mm512_permutexvar_ps(k, lcl)), err));
  const __m512 res = _mm512_fmadd_ps(e, _mm512_set1_ps(0.693359375f), _mm512_add_ps(s, lo));  // ln2 hi + lo
  // classes of u QNaN, SNaN, 0, +1, -inf, +inf, negative, positive -> keep, keep, -inf, +0 (log1p: keep, u =
  // 1 for |x| < 2^-25), NaN, +inf, NaN, keep
  return _mm512_fixupimm_ps(res, u, _mm512_set1_epi32(kLog1p ? 0x03530400 : 0x03538400), 0);
}

// float32 log: x = 2^e M with M in [1, 2) (e = vgetexpps(x), subnormals included), m = vgetmantps(x) in
// [0.75, 1.5): m = M below 1.5, M/2 above (then x = 2^(e+1) m). The table index is the top 5 fraction bits of
// m, bits 18-22 of its float (vpermt2ps reads only the low 5 bits of bits >> 18: no mask): entries 0-15 are m
// in [1 + i/32, 1 + (i+1)/32), entries 16-31 m in [0.75 + (i-16)/64, 0.75 + (i-15)/64), i.e. m < 1, whose
// table values carry the extra ln2 (so e needs no correction: one vgetexpps instead of two and a subtract).
//   log x = e ln2 + T_i + log1p(r),  r = m invc_i - 1 (one FMA),  T_i = -log(invc_i) (+ ln2 for i >= 16),
//   log1p(r) = r + r^2 P(r),  P of degree 3, r in [-1/64, 1/32].
// x = 1 sits at the edge of entries 0 and 31 (centring it in one entry would take a 33rd), and both have invc
// = 1, so r = m - 1 exactly there; T_31 = ln2 is stored as exactly (L_hi, L_lo), so for x just below 1 (e =
// -1) e L_hi + T_hi and e L_lo + T_lo are both exactly 0 and the result is r + r^2 P, rounded once. ln2 is
// L_hi = 90852 * 2^-17 (17 bits) + L_lo, and every T_hi is on the same 2^-17 grid, so y0 = e L_hi + T_hi is
// exact for every float exponent (|y0| < 128); L_lo and T_lo (|T_lo| <= 2^-18) join the polynomial. The sum
// is y0 + (r + lo), two roundings, which makes the 16-entry kernel's Fast2Sum unnecessary: where y0 != 0 the
// entries were chosen so that r + lo's rounding costs at most about 1/4 ulp of the result (in 25 entries
// invc is a multiple of 2^-6 or 2^-7 and m invc - 1 fits 24 bits, so r is exact; entries 3, 6, 10, 17, 24,
// 28, 30 round it once). 17 vector instructions against 26 through the 16-entry table (3
// vgetmant/vgetexp/ vpsrld, 3 vpermt2ps, 10 FMA/add/mul, 1 vfixupimm): 0.181 against 0.276 ns per element on
// 10,000 floats (one core of the build machine), SLEEF's logf16_u10 0.49. Constants:
// scripts/fit_log32_table.py: invc_i picked per interval among floats near 1/c and multiples of 2^-q near it
// (q = 6..12) by simulating this arithmetic on every m of the interval against the double log; P a weighted
// minimax fit (weight |r|: the error relative to log x near x = 1), coefficients rounded to float one at a
// time. Exhaustively over all positive floats (a C harness, ulp = spacing of float(ref) away from zero, as
// tests/ops/elementwise/test_ulp.py): at most 0.7517 ulp (x = 1.06067801, entry 1: r + lo's rounding next to
// y0 = 0.032), 0.5001 on subnormal inputs and on [1 - 2^-10, 1 + 2^-10] (the 16-entry table: 1.0036 at x
// = 1.03158665). A degree-2 P (16 instructions, 0.174 ns) measures 0.8035 ulp. vfixupimmps gives log(+-0) =
// -inf, log(+inf) = inf, NaN for x < 0 and -inf, log(1) = +0 (the computed value is +0 there too). With
// MXCSR.DAZ set, vgetmant/vgetexp read subnormals as 0 (-inf), as in log1p above.
// kLog32InvC, kLog32THi, kLog32TLo: avx2_f32_math.h (AVX2's float32 log reads the same table)

static inline __m512 log_avx512(__m512 x) {
  const __m512 m = _mm512_getmant_ps(x, _MM_MANT_NORM_p75_1p5, _MM_MANT_SIGN_zero);
  const __m512 e = _mm512_getexp_ps(x);
  const __m512i i = _mm512_srli_epi32(_mm512_castps_si512(m), 18);
  const __m512 r = _mm512_fmsub_ps(m, lut32(i, kLog32InvC), _mm512_set1_ps(1.0f));
  const __m512 r2 = _mm512_mul_ps(r, r);
  __m512 p = _mm512_fmadd_ps(_mm512_set1_ps(1.941438466e-01f), r, _mm512_set1_ps(-2.500175536e-01f));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(3.333347440e-01f));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(-0.5f));
  const __m512 y0 = _mm512_fmadd_ps(e, _mm512_set1_ps(0.693145751953125f), lut32(i, kLog32THi));  // exact
  __m512 lo = _mm512_fmadd_ps(e, _mm512_set1_ps(1.428606765e-06f), lut32(i, kLog32TLo));
  lo = _mm512_fmadd_ps(r2, p, lo);
  const __m512 res = _mm512_add_ps(y0, _mm512_add_ps(r, lo));
  // classes of x QNaN, SNaN, 0, +1, -inf, +inf, negative, positive -> keep, keep, -inf, +0, NaN, +inf, NaN,
  // keep
  return _mm512_fixupimm_ps(res, x, _mm512_set1_epi32(0x03538400), 0);
}

// float32 log1p through the same table: 0.81 ulp over all floats > -1 (SLEEF's log1pf: 1.0, and it overflows
// above 1e38), 1.8x its speed; -0 and the tiny x where r * r underflows are the caller's (log1p(x) = x there)
static inline __m512 log1p_avx512(__m512 x) {
  return log_core_avx512<true>(x);
}

// float32 exp (exp itself, and inside sigmoid, silu, softmax): x = n ln2/32 + r, |r| <= ln2/64 (n rounded by
// the 1.5 * 2^23 shift, whose low mantissa bits are then n mod 32; ln2/32 as a 12-bit hi, so n hi is exact,
// plus lo), exp(x) = 2^floor(n/32) T[n mod 32] (1 + r + r^2/2 + r^3/6) with T = 2^(j/32) as float pairs hi +
// lo (vpermt2ps), summed T_hi + (T_hi p + T_lo) with one rounding; vscalefps gives gradual underflow and
// overflow to inf. 0.75 ulp at worst over all floats (on subnormal results, rounded twice; SLEEF's
// expf: 1.0; Cephes' polynomial: 1.26 ulp at the same speed), at SLEEF's speed x 1.28. x is
// clamped to [-104, 89] (0 / inf beyond); max(c, x) and min(c, x) return x when it is NaN. Tables by
// scripts/fit_vec_tables.py exp32.
alignas(64) static const float kExp2j32Hi[32] = {
    1.000000000e+00f, 1.021897197e+00f, 1.044273734e+00f, 1.067140460e+00f, 1.090507746e+00f,
    1.114386797e+00f, 1.138788581e+00f, 1.163724899e+00f, 1.189207077e+00f, 1.215247393e+00f,
    1.241857767e+00f, 1.269050956e+00f, 1.296839595e+00f, 1.325236678e+00f, 1.354255557e+00f,
    1.383909941e+00f, 1.414213538e+00f, 1.445180774e+00f, 1.476826191e+00f, 1.509164453e+00f,
    1.542210817e+00f, 1.575980902e+00f, 1.610490322e+00f, 1.645755529e+00f, 1.681792855e+00f,
    1.718619347e+00f, 1.756252170e+00f, 1.794709086e+00f, 1.834008098e+00f, 1.874167681e+00f,
    1.915206552e+00f, 1.957144141e+00f};
alignas(64) static const float kExp2j32Lo[32] = {
    0.000000000e+00f,  -4.811559862e-08f, 4.833470157e-08f,  -5.933751979e-08f, -1.307753994e-08f,
    -5.435540018e-08f, 5.386222313e-08f,  -4.051441493e-08f, 3.797635273e-08f,  -3.267394888e-08f,
    4.496838102e-08f,  1.419333318e-09f,  -4.018999533e-08f, -3.496373324e-08f, -1.012334927e-08f,
    -5.875577358e-08f, 2.420323497e-08f,  3.324199938e-08f,  -4.500898854e-08f, -2.495937323e-08f,
    8.070904833e-09f,  -5.661025426e-08f, 9.836217174e-09f,  -5.124972091e-08f, -2.475532668e-08f,
    -4.849617596e-08f, -9.235770371e-09f, -1.141504491e-08f, -1.123927795e-08f, -4.663005626e-08f,
    9.845328108e-09f,  -1.702180441e-08f};
static inline __m512 exp_avx512(__m512 x) {
  x = _mm512_min_ps(_mm512_set1_ps(89.0f), _mm512_max_ps(_mm512_set1_ps(-104.0f), x));
  const __m512 shift = _mm512_set1_ps(12582912.0f);                                // 1.5 * 2^23
  const __m512 t = _mm512_fmadd_ps(x, _mm512_set1_ps(46.16624069213867f), shift);  // 32 / ln2
  const __m512 n = _mm512_sub_ps(t, shift);
  __m512 r = _mm512_fnmadd_ps(n, _mm512_set1_ps(0.02165985107421875f), x);
  r = _mm512_fnmadd_ps(n, _mm512_set1_ps(9.983182280848268e-07f), r);
  const __m512 p = _mm512_fmadd_ps(_mm512_mul_ps(r, r),
                                   _mm512_fmadd_ps(r, _mm512_set1_ps(1.0f / 6), _mm512_set1_ps(0.5f)), r);
  const __m512i j = _mm512_castps_si512(t);
  const __m512 th = lut32(j, kExp2j32Hi);
  const __m512 tl = lut32(j, kExp2j32Lo);
  const __m512 s = _mm512_add_ps(th, _mm512_fmadd_ps(th, p, tl));
  return _mm512_scalef_ps(s, _mm512_mul_ps(n, _mm512_set1_ps(0.03125f)));
}

// float32 exp2 on exp's table (below): x = n/32 + r, n = round(32 x) by the 1.5 * 2^23 shift (32 x exact), r
// = x - n/32 exact in one FMA, |r| <= 1/64; 2^x = 2^floor(n/32) T[n mod 32] 2^r with 2^r - 1 = r ln2 + (r
// ln2)^2/2 + (r ln2)^3/6 (truncation 6e-10 relative), summed as exp's T_hi + (T_hi p + T_lo), vscalefps for
// the power of two (gradual underflow, overflow to inf). x clamped to [-151, 129] (0 / inf beyond; NaN kept).
// In float throughout: the double-lane form of AVX2's kernel ran at 0.6 of PyTorch's (SLEEF's) speed.
static inline __m512 exp2_avx512(__m512 x) {
  x = _mm512_min_ps(_mm512_set1_ps(129.0f), _mm512_max_ps(_mm512_set1_ps(-151.0f), x));
  const __m512 shift = _mm512_set1_ps(12582912.0f);  // 1.5 * 2^23
  const __m512 t = _mm512_fmadd_ps(x, _mm512_set1_ps(32.0f), shift);
  const __m512 n = _mm512_sub_ps(t, shift);
  const __m512 r = _mm512_fnmadd_ps(n, _mm512_set1_ps(0.03125f), x);
  const __m512 c1 = _mm512_set1_ps(0.6931471805599453f);
  const __m512 q =
      _mm512_fmadd_ps(r, _mm512_set1_ps(0.05550410866482158f), _mm512_set1_ps(0.2402265069591007f));
  const __m512 p = _mm512_fmadd_ps(_mm512_mul_ps(r, r), q, _mm512_mul_ps(r, c1));
  const __m512i j = _mm512_castps_si512(t);
  const __m512 th = lut32(j, kExp2j32Hi);
  const __m512 tl = lut32(j, kExp2j32Lo);
  const __m512 s = _mm512_add_ps(th, _mm512_fmadd_ps(th, p, tl));
  return _mm512_scalef_ps(s, _mm512_mul_ps(n, _mm512_set1_ps(0.03125f)));
}

// float64 exp and tanh (MKL's vdExp/vdTanh, which PyTorch's wheel calls, are 2-3x SLEEF 3.5.1's; ours below
// are 1.0x / 1.2x MKL's speed): 2^(j/16) as double pairs hi + lo, fetched with vpermt2pd (lut16), by
// scripts/fit_vec_tables.py exp64; the polynomials by scripts/fit_exp_tanh64.py.
static inline __m512d lut16(__m512i i, const double* t) {
  return _mm512_permutex2var_pd(_mm512_load_pd(t), i, _mm512_load_pd(t + 8));
}

// expm1(r) for |r| <= ln2/32 (+0.1%): r + r^2 P(r), P of degree 4, minimax for the error relative to exp(r)
// (scripts/fit_exp_tanh64.py): 1.2e-17 = 2^-56.3, against 4.4e-16 for Taylor's series of the same degree.
// Estrin's order (no cost in instructions, shorter chain).
static inline __m512d expm1_core_f64(__m512d r) {
  const __m512d r2 = _mm512_mul_pd(r, r);
  const __m512d a =
      _mm512_fmadd_pd(_mm512_set1_pd(0.16666666664408963), r, _mm512_set1_pd(0.499999999999996));
  __m512d b = _mm512_fmadd_pd(_mm512_set1_pd(0.008333472198074194), r, _mm512_set1_pd(0.04166666669335754));
  b = _mm512_fmadd_pd(_mm512_set1_pd(0.0013888593456387894), r2, b);
  return _mm512_fmadd_pd(_mm512_fmadd_pd(b, r2, a), r2, r);
}

// The reduction for both: x = k ln2 + r with k a multiple of 1/16 and |r| <= ln2/32. The 1.5 * 2^48 shift
// rounds x / ln2 to a multiple of 2^-4 directly (so k needs no multiply by 1/16 for vscalefpd, which floors
// it), and the low 4 bits of t's mantissa are 16 k mod 16, the table index for vpermt2pd. ln2 hi is 16 times
// the double nearest ln2/16 (a multiple of 2^-53), so k ln2_hi is a multiple of 2^-57 and x - k ln2_hi is
// exact in one FMA wherever k != 0 (|x| >= 2^-6 there, |r| < 2^-5); r_lo's rounding costs at most 2^-59.
static inline __m512d exp_k_f64(__m512d x, __m512d inv_ln2, __m512d& t) {
  const __m512d shift = _mm512_set1_pd(422212465065984.0);  // 1.5 * 2^48
  t = _mm512_fmadd_pd(x, inv_ln2, shift);
  return _mm512_sub_pd(t, shift);
}

// float64 exp: exp(x) = 2^floor(k) T[j] (1 + expm1(r)), T = 2^(j/16) as hi + lo, summed as T_hi + (T_hi q +
// T_lo) (one rounding of a sum whose small part is off by < 2^-57), vscalefpd for 2^floor(k) (overflow to
// inf, gradual underflow, one rounding). 17 instructions (22 before): a minimax polynomial one degree shorter
// than Taylor's, r rounded once (r_lo folded in one FMA instead of carried into the polynomial's constant
// term), k straight from the 2^48 shift (no multiply by 1/16). x is clamped to [-746, 746] (exp is 0 / inf
// beyond: vscalefpd underflows / overflows); min and max return x when it is NaN. (vrangepd would clamp in
// one instruction but returns the bound for a quiet NaN, and no other instruction can put the NaN back for
// free.) Against long double expl (a C harness, 50M points per set): 0.650 ulp at most on [-1, 1] (the
// polynomial's 2^-56.3 is 0.1 ulp of it), 0.80 on [-746, 710], all of it from subnormal results (x < -708.4:
// s's own rounding, 2^-53 relative, is at most 1/4 of the subnormal spacing there, then vscalefpd rounds; the
// bound is 0.81); exp(0) = 1 exactly.
static inline __m512d exp_avx512_f64(__m512d x) {
  x = _mm512_min_pd(_mm512_set1_pd(746.0), _mm512_max_pd(_mm512_set1_pd(-746.0), x));  // NaN: returns x
  __m512d t;
  const __m512d k = exp_k_f64(x, _mm512_set1_pd(1.4426950408889634), t);
  const __m512d rh = _mm512_fnmadd_pd(k, _mm512_set1_pd(0.6931471805599453), x);
  const __m512d r = _mm512_fnmadd_pd(k, _mm512_set1_pd(2.3190468138462996e-17), rh);
  const __m512d q = expm1_core_f64(r);
  const __m512i j = _mm512_castpd_si512(t);
  const __m512d th = lut16(j, kExp2jHi);
  const __m512d s = _mm512_add_pd(th, _mm512_fmadd_pd(th, q, lut16(j, kExp2jLo)));
  return _mm512_scalef_pd(s, k);
}

// float64 tanh, two formulas selected per lane (both computed: standard-normal data mixes them in every
// vector), x's sign ORed in at the end.
//
// |x| < 0.3: tanh(x) = x + x^3 S(x^2), S of degree 7, minimax for tanh's relative error
// (scripts/fit_exp_tanh64.py: 2^-60.3 with double coefficients). Odd, so it takes x itself: tiny and
// subnormal x give x (x^3 underflows), NaN gives NaN (the select sends NaN here), -0 gives +0 (x^3 S is +0),
// made -0 by the sign OR.
//
// |x| >= 0.3: a = min(|x|, 20) (vrangepd, sign cleared; tanh rounds to 1 from 19.06, so +-inf give +-1),
// tanh(a) = 1 - y, y = 2 / D, D = E + 1, E = exp(2a) = E_hi + E_lo unrounded (E_hi = 2^floor(k) T_hi exact,
// E_lo = 2^floor(k) (T_hi q + T_lo)), reduced as in exp_avx512_f64 (2a >= 0.6: k ln2_hi is exact). No
// rounding of E or D reaches the result, which is one FMA, (1 - j') - (y - j') with 1 - j' exact:
//   y0 = 2h, h = 1 / D to 2^-28 (vrcp14pd of D rounded, one Newton step);
//   j' = y0 rounded to a multiple of 2^-52 through s2 = 2 - y0 (j' = 2 - s2, 1 - j' = s2 - 1, both exact; the
//   older double-double form needed a dozen more instructions), so that e2 = 2 - j' D = s2 - j' E_hi - j'
//   E_lo is exact up to 2^-57 (no cancellation left in it), and y - j' = e2 / D = h e2 to 2^-28 of itself,
//   where |y - j'| <= 2^-28 y + 2^-53.
// Where y < 2^-53 (a > 18.7), j' = 0, e2 = 2 and the result is 1 - y0 rounded once: 1 - 2^-53 or 1, as it
// should be. The error beyond the last rounding is E's (polynomial 2^-56.3, T_hi q + T_lo and r roundings
// 2^-58.5) times y / (1 - y), and h's 2^-28 times |y - j'|: up to 0.17 ulp where tanh is just below 0.5 (the
// ulp halves while y is still 0.52). 41 instructions in all (55 before): 10 for the polynomial, 28 for this
// formula, 3 to select and set the sign.
// Against long double tanhl (a C harness, 50M points per set): 0.669 ulp at most (dense [-1, 1], at x =
// 0.5297, tanh 0.485), 0.654 on
// [-20, 20], 0.641 around the switch at 0.3, 0.627 on log-spaced |x| down to subnormals.
static inline __m512d tanh_avx512_f64(__m512d x) {
  // |x| < 0.3 (x itself: the polynomial is odd, -0 and NaN pass through it)
  const __m512d z = _mm512_mul_pd(x, x);
  __m512d p =
      _mm512_fmadd_pd(_mm512_set1_pd(0.0005023824217636129), z, _mm512_set1_pd(-0.0014416308133473848));
  p = _mm512_fmadd_pd(p, z, _mm512_set1_pd(0.0035908705930366943));
  p = _mm512_fmadd_pd(p, z, _mm512_set1_pd(-0.008863170538283791));
  p = _mm512_fmadd_pd(p, z, _mm512_set1_pd(0.02186948657230532));
  p = _mm512_fmadd_pd(p, z, _mm512_set1_pd(-0.05396825393536205));
  p = _mm512_fmadd_pd(p, z, _mm512_set1_pd(0.13333333333306657));
  p = _mm512_fmadd_pd(p, z, _mm512_set1_pd(-0.3333333333333326));
  const __m512d small = _mm512_fmadd_pd(_mm512_mul_pd(x, z), p, x);
  // |x| >= 0.3: a = min(|x|, 20) (vrangepd, sign cleared; it returns 20 for a quiet NaN, which the select
  // below sends to the polynomial), E = exp(2a) reduced as in exp_avx512_f64 (2a >= 0.6: k ln2_hi is exact)
  const __m512d a = _mm512_range_pd(x, _mm512_set1_pd(20.0), 0x0A);
  __m512d t;
  const __m512d k = exp_k_f64(a, _mm512_set1_pd(2.8853900817779268), t);  // 2 / ln2
  const __m512d rh = _mm512_fnmadd_pd(k, _mm512_set1_pd(0.6931471805599453), _mm512_add_pd(a, a));
  const __m512d r = _mm512_fnmadd_pd(k, _mm512_set1_pd(2.3190468138462996e-17), rh);
  const __m512d q = expm1_core_f64(r);
  const __m512i j = _mm512_castpd_si512(t);
  const __m512d th = lut16(j, kExp2jHi);
  const __m512d eh = _mm512_scalef_pd(th, k);
  const __m512d el = _mm512_scalef_pd(_mm512_fmadd_pd(th, q, lut16(j, kExp2jLo)), k);
  const __m512d one = _mm512_set1_pd(1.0);
  const __m512d two = _mm512_set1_pd(2.0);
  const __m512d d = _mm512_add_pd(_mm512_add_pd(eh, one), el);  // D rounded
  __m512d h = _mm512_rcp14_pd(d);                               // 1 / D to 2^-14
  h = _mm512_fmadd_pd(h, _mm512_fnmadd_pd(d, h, one), h);       // 2^-28: h = y0 / 2
  const __m512d s2 = _mm512_fnmadd_pd(two, h, two);             // 2 - y0 on the 2^-52 grid
  const __m512d jq = _mm512_sub_pd(two, s2);                    // j', exact
  __m512d e2 = _mm512_fnmadd_pd(jq, eh, s2);                    // 2 - j' D
  e2 = _mm512_fnmadd_pd(jq, el, e2);
  const __m512d big = _mm512_fnmadd_pd(h, e2, _mm512_sub_pd(s2, one));  // (1 - j') - (y - j')
  // not (z >= 0.09): the polynomial also takes NaN
  const __m512d res =
      _mm512_mask_blend_pd(_mm512_cmp_pd_mask(z, _mm512_set1_pd(0.09), _CMP_NGE_UQ), big, small);
  // res | (x & sign): big's sign, and -0 (x + x^3 S gives +0 for x = -0: x^3 S is +0 there)
  return _mm512_castsi512_pd(_mm512_ternarylogic_epi64(_mm512_castpd_si512(res), _mm512_castpd_si512(x),
                                                       _mm512_set1_epi64(0x8000000000000000LL), 0xf8));
}

// float32 expm1 through float64 (SLEEF's expm1f costs 6x its expf): the reduction and table of
// exp_avx512_f64, a shorter polynomial (truncation 1.4e-13), u = 2^k T (1 + q) - 1 in double, relative error
// < 2^-37 even where u is small (|x| < ln2/32 has n = 0, T = 1 and u = q, no cancellation), then one rounding
// to float: within 0.5 ulp + 2^-13. x is clamped to [-104, 89] (expm1 is -1 / inf in float beyond), NaN kept;
// -0 and tiny x are the caller's (expm1(x) = x there).
static inline __m512d expm1_f32_half(__m512d x) {
  const __m512d shift = _mm512_set1_pd(6755399441055744.0);  // 1.5 * 2^52
  const __m512d t = _mm512_fmadd_pd(x, _mm512_set1_pd(23.083120654223414), shift);
  const __m512d n = _mm512_sub_pd(t, shift);
  const __m512d r = _mm512_fnmadd_pd(n, _mm512_set1_pd(0.04332169878499658), x);  // |n| < 2^11: 2^-46 off
  const __m512d r2 = _mm512_mul_pd(r, r);
  const __m512d p01 = _mm512_fmadd_pd(_mm512_set1_pd(1.0 / 6), r, _mm512_set1_pd(0.5));
  const __m512d p23 = _mm512_fmadd_pd(_mm512_set1_pd(1.0 / 120), r, _mm512_set1_pd(1.0 / 24));
  const __m512d q = _mm512_fmadd_pd(r2, _mm512_fmadd_pd(p23, r2, p01), r);
  const __m512d th = lut16(_mm512_castpd_si512(t), kExp2jHi);
  const __m512d e = _mm512_scalef_pd(_mm512_fmadd_pd(th, q, th), _mm512_mul_pd(n, _mm512_set1_pd(0.0625)));
  // n = 0: u = q (E - 1 would cancel); elsewhere |u| > 0.02 and E - 1 loses at most 2^-47
  return _mm512_mask_mov_pd(_mm512_sub_pd(e, _mm512_set1_pd(1.0)),
                            _mm512_cmp_pd_mask(n, _mm512_setzero_pd(), _CMP_EQ_OQ), q);
}
static inline __m512 expm1_avx512(__m512 x) {
  x = _mm512_min_ps(_mm512_set1_ps(89.0f), _mm512_max_ps(_mm512_set1_ps(-104.0f), x));
  const __m512d lo = expm1_f32_half(_mm512_cvtps_pd(_mm512_castps512_ps256(x)));
  const __m512d hi =
      expm1_f32_half(_mm512_cvtps_pd(_mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(x), 1))));
  return _mm512_castpd_ps(_mm512_insertf64x4(_mm512_castpd256_pd512(_mm256_castps_pd(_mm512_cvtpd_ps(lo))),
                                             _mm256_castps_pd(_mm512_cvtpd_ps(hi)), 1));
}

// float64 expm1: avx2_math.h's expm1_avx2_f64 in eight lanes, the same operations in the same order (its
// Taylor polynomial below |x| = 0.3; else exp's reduction with the Taylor q, 2^n T_hi - 1 split exactly by
// TwoSum and the low part added), so the same bits as AVX2's row; the table through vpermt2pd instead of two
// gathers, 2^n by vscalefpd instead of integer shifts. AVX-512 ran AVX2's four-lane row (F.elu/celu/selu at
// 0.88-0.97 of PyTorch's SLEEF expm1d8 there). Lanes above 40 take exp itself (inf beyond 709.78); -0 stays
// -0; NaN flows through (min/max return x for it).
static inline __m512d expm1_avx512_f64(__m512d x) {
  __m512d p = _mm512_set1_pd(1.0 / 87178291200.0);
  const double c[] = {1.0 / 6227020800.0, 1.0 / 479001600.0, 1.0 / 39916800.0, 1.0 / 3628800.0,
                      1.0 / 362880.0,     1.0 / 40320.0,     1.0 / 5040.0,     1.0 / 720.0,
                      1.0 / 120.0,        1.0 / 24.0,        1.0 / 6.0};
  for (double ci : c) p = _mm512_fmadd_pd(p, x, _mm512_set1_pd(ci));
  const __m512d small = _mm512_fmadd_pd(x * x, _mm512_fmadd_pd(x, p, _mm512_set1_pd(0.5)), x);
  const __m512d xc = _mm512_min_pd(_mm512_set1_pd(40.0), _mm512_max_pd(_mm512_set1_pd(-40.0), x));
  const __m512d shift = _mm512_set1_pd(422212465065984.0);  // 1.5 * 2^48
  const __m512d t = _mm512_fmadd_pd(xc, _mm512_set1_pd(1.4426950408889634), shift);
  const __m512d k = _mm512_sub_pd(t, shift);
  const __m512d rh = _mm512_fnmadd_pd(k, _mm512_set1_pd(0.6931471805599453), xc);
  const __m512d r = _mm512_fnmadd_pd(k, _mm512_set1_pd(2.3190468138462996e-17), rh);
  __m512d cq = _mm512_set1_pd(1.0 / 40320);
  const double cs[] = {1.0 / 5040, 1.0 / 720, 1.0 / 120, 1.0 / 24, 1.0 / 6, 0.5};
  for (double ci : cs) cq = _mm512_fmadd_pd(cq, r, _mm512_set1_pd(ci));
  const __m512d q = _mm512_fmadd_pd(_mm512_mul_pd(r, r), cq, r);
  const __m512i j = _mm512_castpd_si512(t);
  const __m512d th = lut16(j, kExp2jHi);
  const __m512d p2n = _mm512_scalef_pd(_mm512_set1_pd(1.0), k);  // 2^floor(k), |k| <= 58: exact
  const __m512d a = th * p2n, b = _mm512_set1_pd(-1.0);
  const __m512d hi = a + b;  // TwoSum(a, -1)
  const __m512d bv = hi - a, av = hi - bv;
  const __m512d err = (a - av) + (b - bv);
  const __m512d low = _mm512_fmadd_pd(th, q, lut16(j, kExp2jLo));
  __m512d res = hi + (err + low * p2n);
  const __m512d ax = _mm512_abs_pd(x);
  res = _mm512_mask_blend_pd(_mm512_cmp_pd_mask(ax, _mm512_set1_pd(0.3), _CMP_LT_OQ), res, small);
  res = _mm512_mask_blend_pd(_mm512_cmp_pd_mask(ax, _mm512_set1_pd(0x1p-54), _CMP_LT_OQ), res, x);
  const __mmask8 big = _mm512_cmp_pd_mask(x, _mm512_set1_pd(40.0), _CMP_GT_OQ);
  if (big) res = _mm512_mask_blend_pd(big, res, exp_avx512_f64(x));
  return res;
}

// float64 log: avx2_math.h's log_avx2_f64 (fdlibm's e_log.c method) in eight lanes, the same operations in
// the same order, so the same bits: float32 lgamma and digamma (gamma_f32.h) take it at full width where they
// ran AVX2's kernel over each half of the vector. Subnormal x scaled by 2^54 first; 0 -> -inf, x < 0 and NaN
// -> NaN, inf -> inf.
static inline __m512d log_avx512_f64(__m512d x) {
  const __mmask8 tiny = _mm512_cmp_pd_mask(x, _mm512_set1_pd(2.2250738585072014e-308), _CMP_LT_OQ);
  const __m512d xs = _mm512_mask_blend_pd(tiny, x, _mm512_mul_pd(x, _mm512_set1_pd(18014398509481984.0)));
  // fdlibm's split: m in [sqrt(1/2), sqrt(2)), the mantissa's high bits decide m's exponent 0 or -1
  const __m512i b = _mm512_castpd_si512(xs);
  const __m512i mant = _mm512_and_si512(b, _mm512_set1_epi64(0x000fffffffffffffLL));
  const __m512i i = _mm512_and_si512(_mm512_add_epi64(mant, _mm512_set1_epi64(0x00095f6400000000LL)),
                                     _mm512_set1_epi64(0x0010000000000000LL));
  const __m512i ki = _mm512_sub_epi64(_mm512_add_epi64(_mm512_srli_epi64(b, 52), _mm512_srli_epi64(i, 52)),
                                      _mm512_set1_epi64(1023));
  const __m512d m = _mm512_castsi512_pd(
      _mm512_or_si512(mant, _mm512_xor_si512(i, _mm512_set1_epi64(0x3ff0000000000000LL))));
  const __m512d k = _mm512_sub_pd(_mm512_cvtepi64_pd(ki), _mm512_maskz_mov_pd(tiny, _mm512_set1_pd(54.0)));
  // log1p_core_avx2 with c = 0
  const __m512d f = _mm512_sub_pd(m, _mm512_set1_pd(1.0));
  const __m512d s = _mm512_div_pd(f, _mm512_add_pd(_mm512_set1_pd(2.0), f));
  const __m512d z = _mm512_mul_pd(s, s);
  __m512d R =
      _mm512_fmadd_pd(_mm512_set1_pd(1.479819860511658591e-01), z, _mm512_set1_pd(1.531383769920937332e-01));
  R = _mm512_fmadd_pd(R, z, _mm512_set1_pd(1.818357216161805012e-01));
  R = _mm512_fmadd_pd(R, z, _mm512_set1_pd(2.222219843214978396e-01));
  R = _mm512_fmadd_pd(R, z, _mm512_set1_pd(2.857142874366239149e-01));
  R = _mm512_fmadd_pd(R, z, _mm512_set1_pd(3.999999999940941908e-01));
  R = _mm512_fmadd_pd(R, z, _mm512_set1_pd(6.666666666666735130e-01));
  R = _mm512_mul_pd(R, z);
  const __m512d hfsq = _mm512_mul_pd(_mm512_mul_pd(_mm512_set1_pd(0.5), f), f);
  const __m512d lo = _mm512_fmadd_pd(k, _mm512_set1_pd(1.90821492927058770002e-10), _mm512_setzero_pd());
  const __m512d t = _mm512_fmadd_pd(s, _mm512_add_pd(hfsq, R), lo);
  __m512d r = _mm512_sub_pd(_mm512_mul_pd(k, _mm512_set1_pd(6.93147180369123816490e-01)),
                            _mm512_sub_pd(_mm512_sub_pd(hfsq, t), f));
  const __m512d inf = _mm512_set1_pd(__builtin_inf());
  r = _mm512_mask_blend_pd(_mm512_cmp_pd_mask(x, inf, _CMP_EQ_OQ), r, inf);
  r = _mm512_mask_blend_pd(_mm512_cmp_pd_mask(x, _mm512_setzero_pd(), _CMP_EQ_OQ), r,
                           _mm512_set1_pd(-__builtin_inf()));
  return _mm512_mask_blend_pd(_mm512_cmp_pd_mask(x, _mm512_setzero_pd(), _CMP_NGE_UQ), r,
                              _mm512_set1_pd(__builtin_nan("")));
}

// float64 exp2: avx2_math.h's exp2_avx2_f64 in eight lanes, the same operations in the same order (x = k + f,
// k a multiple of 1/16 by the 1.5 * 2^48 shift, f exact, f ln2 as r_hi + r_lo, 2^floor(k) T[j] (1 +
// expm1(r_hi)
// + r_lo)), so the same bits as AVX2's row: 0.65 ulp, 0.81 on subnormal results, integers exact. The table
// through vpermt2pd instead of two gathers, 2^floor(k) by vscalefpd (one rounding on subnormal results,
// overflow to inf) instead of integer shifts. AVX-512 ran AVX2's four-lane row without SLEEF, SLEEF's exp2d8
// with it. x is clamped to [-1076, 1076] (0 and inf beyond); min/max return x when it is NaN.
static inline __m512d exp2_avx512_f64(__m512d x) {
  x = _mm512_min_pd(_mm512_set1_pd(1076.0), _mm512_max_pd(_mm512_set1_pd(-1076.0), x));
  const __m512d shift = _mm512_set1_pd(422212465065984.0);  // 1.5 * 2^48
  const __m512d t = x + shift;
  const __m512d k = t - shift;
  const __m512d f = x - k;
  const __m512d ln2 = _mm512_set1_pd(0.6931471805599453);
  const __m512d rh = f * ln2;
  const __m512d rl = _mm512_fmsub_pd(f, ln2, rh) + f * 2.3190468138462996e-17;
  const __m512d q = expm1_core_f64(rh) + rl;
  const __m512i j = _mm512_castpd_si512(t);
  const __m512d th = lut16(j, kExp2jHi);
  const __m512d s = th + _mm512_fmadd_pd(th, q, lut16(j, kExp2jLo));
  return _mm512_scalef_pd(s, k);
}

// float64 cosh (kSinh false) and sinh: avx2_math.h's coshsinh_avx2_f64 in eight lanes, the same operations in
// the same order (sinh's Taylor polynomial below 0.5; to 22, E = e^a as E_hi + E_lo from exp's parts with the
// Taylor q, 1 / E to twice double precision, (E +- 1/E) / 2; above, e^a / 2 rounded once), so the same bits
// as AVX2's row, which AVX-512 without SLEEF ran four lanes at a time (two gathers a vector): the table
// through vpermt2pd, 2^floor(k) (k <= 32, exact) by vscalefpd, and past 22 exp_avx512_f64's arithmetic one
// power of two lower (avx2_math.h's exp_avx2_f64<true>: the same bits). x's sign ORed back into sinh (-0
// kept); NaN flows through (min returns a for it).
template <bool kSinh>
static inline __m512d coshsinh_avx512_f64(__m512d x) {
  const __m512d a = _mm512_abs_pd(x);
  const __m512d ac = _mm512_min_pd(_mm512_set1_pd(22.0), a);
  const __m512d shift = _mm512_set1_pd(422212465065984.0);  // 1.5 * 2^48
  const __m512d t = _mm512_fmadd_pd(ac, _mm512_set1_pd(1.4426950408889634), shift);
  const __m512d k = _mm512_sub_pd(t, shift);
  const __m512d rh = _mm512_fnmadd_pd(k, _mm512_set1_pd(0.6931471805599453), ac);
  const __m512d r = _mm512_fnmadd_pd(k, _mm512_set1_pd(2.3190468138462996e-17), rh);
  __m512d c8 = _mm512_set1_pd(1.0 / 40320);
  const double cs[] = {1.0 / 5040, 1.0 / 720, 1.0 / 120, 1.0 / 24, 1.0 / 6, 0.5};
  for (double ci : cs) c8 = _mm512_fmadd_pd(c8, r, _mm512_set1_pd(ci));
  const __m512d q = _mm512_fmadd_pd(_mm512_mul_pd(r, r), c8, r);
  const __m512i j = _mm512_castpd_si512(t);
  const __m512d th = lut16(j, kExp2jHi);
  const __m512d pk = _mm512_scalef_pd(_mm512_set1_pd(1.0), k);  // 2^floor(k), k in [0, 32]: exact
  const __m512d eh = th * pk, el = _mm512_fmadd_pd(th, q, lut16(j, kExp2jLo)) * pk;
  const __m512d one = _mm512_set1_pd(1.0);
  const __m512d h = one / (eh + el);
  const __m512d hl = h * (_mm512_fnmadd_pd(h, eh, one) - h * el);  // h (1 - h E)
  __m512d res;
  if (kSinh) {
    const __m512d sd = eh - h;
    const __m512d c = (eh - sd) - h;
    res = (sd + ((c + el) - hl)) * 0.5;
    const __m512d z = a * a;
    __m512d p = _mm512_set1_pd(1.0 / 1307674368000.0);
    const double ps[] = {1.0 / 6227020800.0, 1.0 / 39916800.0, 1.0 / 362880.0,
                         1.0 / 5040.0,       1.0 / 120.0,      1.0 / 6.0};
    for (double pi : ps) p = _mm512_fmadd_pd(p, z, _mm512_set1_pd(pi));
    res = _mm512_mask_blend_pd(_mm512_cmp_pd_mask(a, _mm512_set1_pd(0.5), _CMP_LT_OQ), res,
                               _mm512_fmadd_pd(a * z, p, a));
  } else {
    const __m512d sd = eh + h;
    const __m512d c = h - (sd - eh);
    res = (sd + ((c + el) + hl)) * 0.5;
  }
  const __mmask8 big = _mm512_cmp_pd_mask(a, _mm512_set1_pd(22.0), _CMP_GT_OQ);
  if (big) {
    // exp_avx512_f64(a) / 2: its arithmetic with 2^(floor(k) - 1)
    const __m512d xb = _mm512_min_pd(_mm512_set1_pd(746.0), a);
    __m512d tb;
    const __m512d kb = exp_k_f64(xb, _mm512_set1_pd(1.4426950408889634), tb);
    const __m512d rbh = _mm512_fnmadd_pd(kb, _mm512_set1_pd(0.6931471805599453), xb);
    const __m512d rb = _mm512_fnmadd_pd(kb, _mm512_set1_pd(2.3190468138462996e-17), rbh);
    const __m512d qb = expm1_core_f64(rb);
    const __m512i jb = _mm512_castpd_si512(tb);
    const __m512d thb = lut16(jb, kExp2jHi);
    const __m512d sb = _mm512_add_pd(thb, _mm512_fmadd_pd(thb, qb, lut16(jb, kExp2jLo)));
    res = _mm512_mask_blend_pd(big, res, _mm512_scalef_pd(sb, _mm512_sub_pd(kb, one)));
  }
  if (!kSinh) return res;
  return _mm512_or_pd(res, _mm512_and_pd(x, _mm512_set1_pd(-0.0)));
}

// float32 erfinv through double: f32_via_f64.h's erfinv_d_for_f32 (AVX2's row: the rational to |a| = 0.95,
// the log path above) with the same expressions over eight lanes, so AVX2's bits at twice its width
static inline __m512d log_f32_half(__m512d x) {
  __m512d e;
  const __m512d m = log_split_d(x, e);
  return e * 0.6931471805599453 + log_m_series_d<6>(m);
}
static inline __m512d erfinv_log_f32_half(__m512d a) {
  const __m512d w = -log_f32_half((1.0 - a) * (1.0 + a));
  const __m512d p1 = erfinv_central_d(w - 2.5);
  const auto tail = !(w < 5.0);  // |a| > 0.9966: 1 lane in 300 of uniform data, so mostly skipped
  if (_mm512_cmp_pd_mask(w, _mm512_set1_pd(5.0), _CMP_NLT_UQ) == 0) return p1;
  return tail ? erfinv_tail_d(_mm512_sqrt_pd(w) - 3.0) : p1;
}
static inline __m512d erfinv_f32_half(__m512d a) {
  const __m512d p = erfinv_rational_d(a * a);
  const auto outer = a > 0.95;
  if (_mm512_cmp_pd_mask(a, _mm512_set1_pd(0.95), _CMP_GT_OQ) == 0) return a * p;
  return a * (outer ? erfinv_log_f32_half(a) : p);
}
// |x| < 1 through the kernel, the sign ORed back (keeps -0); +-1 gives +-inf, |x| > 1 and NaN give NaN
static inline __m512 erfinv_avx512(__m512 x) {
  const __m512 a = _mm512_abs_ps(x);
  const __mmask16 inside = _mm512_cmp_ps_mask(a, _mm512_set1_ps(1.0f), _CMP_LT_OQ);
  const __m512 safe = _mm512_maskz_mov_ps(inside, a);
  const __m512d lo = erfinv_f32_half(_mm512_cvtps_pd(_mm512_castps512_ps256(safe)));
  const __m512d hi =
      erfinv_f32_half(_mm512_cvtps_pd(_mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(safe), 1))));
  const __m512 r =
      _mm512_castpd_ps(_mm512_insertf64x4(_mm512_castpd256_pd512(_mm256_castps_pd(_mm512_cvtpd_ps(lo))),
                                          _mm256_castps_pd(_mm512_cvtpd_ps(hi)), 1));
  const __m512 sign = _mm512_and_ps(x, _mm512_set1_ps(-0.0f));
  // AVX2's selects: |x| < 1 the signed result, |x| == 1 signed inf, else (beyond, NaN) NaN
  __m512 out = _mm512_set1_ps(__builtin_nanf(""));
  out = _mm512_mask_mov_ps(out, _mm512_cmp_ps_mask(a, _mm512_set1_ps(1.0f), _CMP_EQ_OQ),
                           _mm512_or_ps(_mm512_set1_ps(__builtin_inff()), sign));
  return _mm512_mask_mov_ps(out, inside, _mm512_or_ps(r, sign));
}

// float32 sin and cos through double (SLEEF's u10 sinf/cosf are 1.3x / 1.5x slower; PyTorch's MKL sin beat
// them): x = m pi/2 + r with m even (sin: m = 2 round(x/pi)) or odd (cos: m = 2 round(x/pi - 1/2) + 1), so
// |r| <= pi/2 and the result is +-sin(r), the sign (-1)^(m/2) resp. (-1)^((m+1)/2) read from the low bit of
// the rounded quotient. r = x - m (pi/2)_hi - m (pi/2)_lo in double: for |x| <= 2^20 (the caller sends larger
// |x|, inf and NaN to SLEEF) it is off by ~2^-52 relative even next to multiples of pi. sin(r) = r (1 + z
// P(z)), z = r^2, P fitted by scripts/fit_vec_tables.py sin32 (relative error 6.5e-9 = 0.13 float ulp): the
// product keeps -0 (r + r^3 P would give +0). One rounding to float at the end: at most 0.633 ulp, checked
// over every 5th float of |x| <= 2^20 against the long double sinl/cosl.
template <bool kCos>
static inline __m512d sincos_f32_half(__m512d x) {
  const __m512d shift = _mm512_set1_pd(6755399441055744.0);  // 1.5 * 2^52: t's low bits are the integer
  const __m512d inv_pi = _mm512_set1_pd(0.3183098861837907);
  __m512d t, m;
  if (kCos) {
    t = _mm512_add_pd(_mm512_fmadd_pd(x, inv_pi, _mm512_set1_pd(-0.5)), shift);
    m = _mm512_fmadd_pd(_mm512_sub_pd(t, shift), _mm512_set1_pd(2.0), _mm512_set1_pd(1.0));
  } else {
    t = _mm512_fmadd_pd(x, inv_pi, shift);
    const __m512d n = _mm512_sub_pd(t, shift);
    m = _mm512_add_pd(n, n);
  }
  __m512d r = _mm512_fnmadd_pd(m, _mm512_set1_pd(1.5707963267948966), x);
  r = _mm512_fnmadd_pd(m, _mm512_set1_pd(6.123233995736766e-17), r);
  const __m512d z = _mm512_mul_pd(r, r);
  __m512d p =
      _mm512_fmadd_pd(z, _mm512_set1_pd(2.6069487211740445e-06), _mm512_set1_pd(-0.00019810193795151217));
  p = _mm512_fmadd_pd(z, p, _mm512_set1_pd(0.008333075501155232));
  p = _mm512_fmadd_pd(z, p, _mm512_set1_pd(-0.16666659982656434));
  const __m512d s = _mm512_mul_pd(r, _mm512_fmadd_pd(z, p, _mm512_set1_pd(1.0)));
  __m512i q = _mm512_castpd_si512(t);
  if (kCos) q = _mm512_add_epi64(q, _mm512_set1_epi64(1));
  return _mm512_castsi512_pd(_mm512_xor_si512(_mm512_castpd_si512(s), _mm512_slli_epi64(q, 63)));
}
template <bool kCos>
static inline __m512 sincos_avx512(__m512 x) {
  const __m512d lo = sincos_f32_half<kCos>(_mm512_cvtps_pd(_mm512_castps512_ps256(x)));
  const __m512d hi = sincos_f32_half<kCos>(
      _mm512_cvtps_pd(_mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(x), 1))));
  return _mm512_castpd_ps(_mm512_insertf64x4(_mm512_castpd256_pd512(_mm256_castps_pd(_mm512_cvtpd_ps(lo))),
                                             _mm256_castps_pd(_mm512_cvtpd_ps(hi)), 1));
}
// The lanes of x that sincos_avx512 serves (|x| <= 2^20; not inf or NaN).
static inline __mmask16 sincos_in_range(__m512 x) {
  return _mm512_cmp_ps_mask(_mm512_abs_ps(x), _mm512_set1_ps(1048576.0f), _CMP_LE_OQ);
}

}  // namespace
