// float32 trigamma in two SSE2 double lanes for the baseline loop (kernels/cpu/elementwise.cpp at
// MINITORCH_CPU_CAPABILITY=default or on a CPU without AVX2): polygamma_lanes.h's trigamma_lanes_f32 with one
// division and no step count.
#pragma once

#include "kernels/cpu/vec/polygamma_lanes.h"

namespace {

// psi1(z) for z >= 6 from q = 1 / z: the asymptotic series to B_12 (trigamma_lanes_f32's)
template <typename V>
static inline V trigamma_series_f32(V q) {
  const V q2 = q * q;
  V b = V{} - 691.0 / 2730;
  b = b * q2 + 5.0 / 66;
  b = b * q2 - 1.0 / 30;
  b = b * q2 + 1.0 / 42;
  b = b * q2 - 1.0 / 30;
  b = b * q2 + 1.0 / 6;
  return q * (b * q2 + 1.0) + 0.5 * q2;
}

// float32 trigamma (order 1) for finite x in double: trigamma_lanes_f32's method with six steps, always
// (psi1(z0) = sum_{k<6} 1 / (z0 + k)^2 + psi1(z0 + 6) holds for every z0 > 0: no step count, no selects per
// step), and the series to B_12 at z = z0 + 6 >= 6, which is all a float needs (the next term, B_14 / z^14 of
// the result, is 1.5e-11 of it at z = 6: 0.00025 ulp). The six reciprocal squares as one fraction n / d, and
// one division for it and the series' 1 / z: D = 1 / (d z), 1 / z = d D, n / d = n z D (d < 1e181 below z0 =
// 1e15; lanes above take the series at z0 alone, the steps being 6 / z0 of the result there). Two
// divisions, a step count by a rounding and selects per step (trigamma_lanes_f32, which the AVX2 row keeps)
// ran at 0.72-0.78 of PyTorch's float loop at the baseline.
template <typename V>
static inline V trigamma_onediv_lanes_f32(V x) {
  typedef LaneOps<V> L;
  const auto neg = x < 0.0;
  const V z0 = neg ? 1.0 - x : x;
  const auto big = z0 > 1e15;
  const V zs = big ? V{} + 1.0 : z0;
  V g[6];
  for (int k = 0; k < 6; ++k) {
    const V f = zs + double(k);
    g[k] = f * f;
  }
  // 1/g0 + ... + 1/g5 = n / d: pairs, then (01)(23), then (45)
  V n = g[0] + g[1], d = g[0] * g[1];
  const V n23 = g[2] + g[3], d23 = g[2] * g[3];
  const V n45 = g[4] + g[5], d45 = g[4] * g[5];
  n = n * d23 + n23 * d;
  d = d * d23;
  n = n * d45 + n45 * d;
  d = d * d45;
  const V z = zs + 6.0;
  const V D = 1.0 / (d * z);
  V r = n * z * D + trigamma_series_f32(d * D);
  if (L::any(big)) r = big ? trigamma_series_f32(1.0 / z0) : r;
  if (L::any(neg)) {
    const V sp = sinpi_v(x - L::nearest(x));
    r = neg ? 3.141592653589793 * 3.141592653589793 / (sp * sp) - r : r;
    r = (x <= 0.0) & (x == L::nearest(x)) ? V{} + __builtin_inf() : r;
  }
  return x == 0.0 ? V{} + __builtin_inf() : r;
}

}  // namespace
