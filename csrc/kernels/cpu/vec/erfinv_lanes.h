// float32 erfinv in two SSE2 double lanes, for the baseline loop (kernels/cpu/elementwise.cpp at
// MINITORCH_CPU_CAPABILITY=default or on a CPU without AVX2): f32_via_f64.h's method (the AVX2 and AVX-512
// rows) in the instructions every x86-64 has.
#pragma once

#include <cmath>
#include <cstdint>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "kernels/cpu/vec/f64_series.h"

namespace {

// erfinv(a) / a for a in (0.95, 1) (float a, so w < 16): a P(w), w = -log((1 - a)(1 + a)) (the product of two
// floats is exact in double), the log by f64_series.h's split and atanh series (5e-11 relative), P Giles'
// polynomial in w - 2.5 below w = 5 and in sqrt(w) - 3 above (f32_via_f64.h's erfinv_log_d_for_f32)
template <typename V>
static inline V erfinv_log_lanes_f32(V a) {
  V e;
  const V m = log_split_d((1.0 - a) * (1.0 + a), e);
  const V w = -(e * 0.6931471805599453 + log_m_series_d<6>(m));
  V p = erfinv_central_d(w - 2.5);
  const auto tail = !(w < 5.0);  // |a| > 0.9966: 1 lane in 300 of uniform data
  constexpr int kL = sizeof(V) / sizeof(double);
  bool any = false;
  for (int j = 0; j < kL; ++j) any |= tail[j] != 0;
  if (any) {
    V sw = w;
    for (int j = 0; j < kL; ++j) sw[j] = std::sqrt(w[j]);
    p = tail ? erfinv_tail_d(sw - 3.0) : p;
  }
  return p;
}

#ifdef __SSE2__
// Eight floats a step as four vectors of two doubles, stage by stage (one vector's chain of a rational and a
// division is latency-bound): |x| < 1 by erfinv_rational_d (|a| <= 0.95, 3.3e-11 relative) or the log path
// above, times a, x's sign ORed back in double (-0 stays -0), rounded to float once (within 0.5 + 0.004 ulp
// of the float64 result); +-1 gives +-inf, |x| > 1 and NaN give NaN. Each lane's arithmetic does not depend
// on its neighbours, so every position gets the same bits. SSE2 has no blend: selects are and/andnot/or.
__attribute__((always_inline)) static inline void erfinv_sse2_f32_x8(float* out, const float* in) {
  const __m128d sign = _mm_set1_pd(-0.0), one = _mm_set1_pd(1.0);
  __m128d x[4], a[4], p[4];
  for (int k = 0; k < 2; ++k) {
    const __m128 f = _mm_loadu_ps(in + 4 * k);
    x[2 * k] = _mm_cvtps_pd(f);
    x[2 * k + 1] = _mm_cvtps_pd(_mm_movehl_ps(f, f));
  }
  int edge = 0;  // a lane with |x| >= 1 or NaN
  for (int k = 0; k < 4; ++k) {
    const __m128d ax = _mm_andnot_pd(sign, x[k]);
    const __m128d in_range = _mm_cmplt_pd(ax, one);
    edge |= _mm_movemask_pd(in_range) ^ 3;
    a[k] = _mm_and_pd(ax, in_range);
  }
  for (int k = 0; k < 4; ++k) p[k] = erfinv_rational_d(_mm_mul_pd(a[k], a[k]));
  for (int k = 0; k < 4; ++k) {
    const __m128d outer = _mm_cmpgt_pd(a[k], _mm_set1_pd(0.95));  // 1 vector in 10 of uniform (-1, 1) data
    if (__builtin_expect(_mm_movemask_pd(outer) != 0, 0)) {
      const __m128d q =
          erfinv_log_lanes_f32(_mm_or_pd(_mm_and_pd(outer, a[k]), _mm_andnot_pd(outer, _mm_set1_pd(0.5))));
      p[k] = _mm_or_pd(_mm_and_pd(outer, q), _mm_andnot_pd(outer, p[k]));
    }
  }
  for (int k = 0; k < 4; ++k) {
    __m128d r = _mm_mul_pd(a[k], p[k]);
    if (__builtin_expect(edge != 0, 0)) {
      const __m128d ax = _mm_andnot_pd(sign, x[k]);
      const __m128d edge_value =
          _mm_or_pd(_mm_and_pd(_mm_cmpeq_pd(ax, one), _mm_set1_pd(__builtin_inf())),
                    _mm_andnot_pd(_mm_cmpeq_pd(ax, one), _mm_set1_pd(__builtin_nan(""))));
      const __m128d in_range = _mm_cmplt_pd(ax, one);
      r = _mm_or_pd(_mm_and_pd(in_range, r), _mm_andnot_pd(in_range, edge_value));
    }
    p[k] = _mm_or_pd(r, _mm_and_pd(sign, x[k]));
  }
  for (int k = 0; k < 2; ++k)
    _mm_storeu_ps(out + 4 * k, _mm_movelh_ps(_mm_cvtpd_ps(p[2 * k]), _mm_cvtpd_ps(p[2 * k + 1])));
}

// A dense float32 row: the tail through a padded block, so every position gets the same bits
static inline void erfinv_sse2_row_f32(float* out, const float* in, int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) erfinv_sse2_f32_x8(out + i, in + i);
  if (i < n) {
    float buf[8] = {};
    for (int64_t j = 0; j < n - i; ++j) buf[j] = in[i + j];
    erfinv_sse2_f32_x8(buf, buf);
    for (int64_t j = 0; j < n - i; ++j) out[i + j] = buf[j];
  }
}
#endif

}  // namespace
