// i0, i0e, i1, i1e in double lanes for the baseline (MINITORCH_CPU_CAPABILITY=default, no AVX2).
// The scalar functors' Cephes recurrences (GCC vector extensions, SSE2 there), the functors' bits.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>

#include "kernels/BesselCoeffs.h"

namespace mt {
namespace bessel_lanes {

typedef double V2d __attribute__((vector_size(16)));

// Clenshaw's recurrence of functors.h's bessel_chebyshev over ys[0, n), in place: b0 = y b1 - b2 + c in the
// same order and without FMA (none at the baseline), so each lane gives the scalar functor's bits. Eight
// values a step in four independent vectors: the scalar recurrence is latency-bound (a multiply, a subtract
// and an add in a chain per coefficient, 25-30 coefficients), one element at a time it ran at 0.15-0.24 of
// PyTorch's float32 loop, which evaluates float Cephes coefficients in float.
template <int N>
inline void chebyshev_rows(double* ys, int64_t n, const double (&c)[N]) {
  constexpr int kV = 4;
  for (int64_t i = 0; i < n; i += 2 * kV) {
    double buf[2 * kV] = {};
    const int64_t m = n - i < 2 * kV ? n - i : 2 * kV;
    std::memcpy(buf, ys + i, sizeof(double) * m);
    V2d y[kV], b0[kV], b1[kV], b2[kV];
    for (int v = 0; v < kV; ++v) {
      std::memcpy(&y[v], buf + 2 * v, sizeof(V2d));
      b0[v] = V2d{} + c[0];
      b1[v] = V2d{};
      b2[v] = V2d{};
    }
    for (int k = 1; k < N; ++k)
      for (int v = 0; v < kV; ++v) {
        b2[v] = b1[v];
        b1[v] = b0[v];
        b0[v] = y[v] * b1[v] - b2[v] + c[k];
      }
    for (int v = 0; v < kV; ++v) {
      const V2d r = 0.5 * (b0[v] - b2[v]);
      std::memcpy(buf + 2 * v, &r, sizeof(V2d));
    }
    std::memcpy(ys + i, buf, sizeof(double) * m);
  }
}

// out[i] = T(bessel_i(double(in[i]), order, scaled)) (functors.h): blocks of 256 split by branch (|x| <= 8:
// the [0, 8] expansion in x/2 - 2; else, NaN included, the (8, inf) one in 32/x - 2), each branch's
// recurrences in lanes, then the functor's scalar finishing steps (the factor |x| or the division by
// sqrt(|x|), the C library's exp for the unscaled forms, the sign of I1) per element.
template <typename T>
void bessel_i_row(T* out, const T* in, int64_t n, int order, bool scaled) {
  static constexpr double i0_small[] = {MT_BESSEL_I0E_SMALL};
  static constexpr double i0_large[] = {MT_BESSEL_I0E_LARGE};
  static constexpr double i1_small[] = {MT_BESSEL_I1E_SMALL};
  static constexpr double i1_large[] = {MT_BESSEL_I1E_LARGE};
  constexpr int64_t kB = 256;
  double ys[kB], yl[kB];
  int16_t is[kB], il[kB];
  for (int64_t s = 0; s < n; s += kB) {
    const int64_t m = n - s < kB ? n - s : kB;
    int64_t ns = 0, nl = 0;
    for (int64_t i = 0; i < m; ++i) {
      const double ax = std::fabs(static_cast<double>(in[s + i]));
      if (ax <= 8.0) {
        ys[ns] = 0.5 * ax - 2.0;
        is[ns++] = static_cast<int16_t>(i);
      } else {
        yl[nl] = 32.0 / ax - 2.0;
        il[nl++] = static_cast<int16_t>(i);
      }
    }
    if (order == 0) {
      chebyshev_rows(ys, ns, i0_small);
      chebyshev_rows(yl, nl, i0_large);
    } else {
      chebyshev_rows(ys, ns, i1_small);
      chebyshev_rows(yl, nl, i1_large);
    }
    auto finish = [&](int64_t i, double r) {
      const double x = static_cast<double>(in[s + i]), ax = std::fabs(x);
      if (!scaled) {
        if (ax > 709.0) {
          const double h = std::exp(0.5 * ax);
          r = ax == HUGE_VAL ? HUGE_VAL : h * (h * r);
        } else {
          r *= std::exp(ax);
        }
      }
      out[s + i] = static_cast<T>((order == 1 && x < 0.0) ? -r : r);
    };
    for (int64_t k = 0; k < ns; ++k) {
      const int64_t i = is[k];
      const double r = ys[k];
      finish(i, order == 0 ? r : r * std::fabs(static_cast<double>(in[s + i])));
    }
    for (int64_t k = 0; k < nl; ++k) {
      const int64_t i = il[k];
      finish(i, yl[k] / std::sqrt(std::fabs(static_cast<double>(in[s + i]))));
    }
  }
}

}  // namespace bessel_lanes
}  // namespace mt
