// Exhaustive accuracy check of csrc/kernels/cpu/vec/erf_f32_lanes.h against the C library's double erf over
// every STEP-th float32 of [0, 4] (the kernel is odd and 1 beyond), in ulps of the float nearest the
// reference (the spacing above it, below it at 1), and its time on 65536 floats of (-8, 8). Built with FMA it
// checks AVX2's row, without it the baseline's SSE2 row:
//   g++ -O3 -mavx2 -mfma -std=c++17 -Icsrc scripts/check_erf_f32.cpp -o /tmp/check_erf_f32 &&
//   /tmp/check_erf_f32 1 g++ -O3 -std=c++17 -Icsrc scripts/check_erf_f32.cpp -o /tmp/check_erf_f32_sse2 &&
//   /tmp/check_erf_f32_sse2 1
// The coefficients come from scripts/fit_erf_f32.py.
#include <immintrin.h>
#include <time.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "kernels/cpu/vec/erf_f32_lanes.h"
#ifdef __AVX2__
typedef float V __attribute__((vector_size(32)));
typedef int VI __attribute__((vector_size(32)));
static bool any(VI m) {
  return _mm256_movemask_ps(reinterpret_cast<__m256>(m)) != 0;
}
#else
typedef float V __attribute__((vector_size(16)));
typedef int VI __attribute__((vector_size(16)));
static bool any(VI m) {
  return _mm_movemask_ps(reinterpret_cast<__m128>(m)) != 0;
}
#endif
constexpr int NL = sizeof(V) / sizeof(float);

int main(int argc, char** argv) {
  const uint32_t step = argc > 1 ? std::atoi(argv[1]) : 1;
  const float four = 4.0f;
  uint32_t hi;
  std::memcpy(&hi, &four, 4);
  double worst = 0, worst_x = 0;
  float in[NL], out[NL];
  for (uint64_t b = 0; b <= hi; b += uint64_t(step) * NL) {
    for (int j = 0; j < NL; ++j) {
      const uint32_t bits = static_cast<uint32_t>(std::min<uint64_t>(b + uint64_t(j) * step, hi));
      std::memcpy(&in[j], &bits, 4);
    }
    V v;
    std::memcpy(&v, in, sizeof v);
    const V r = mt::vec::erf_f32_lanes<V, VI>(v, any);
    std::memcpy(out, &r, sizeof r);
    for (int j = 0; j < NL; ++j) {
      const double ref = std::erf(static_cast<double>(in[j]));
      const float rf = static_cast<float>(ref);
      double ulp = std::nextafter(rf, INFINITY) - static_cast<double>(rf);
      if (rf == 1.0f) ulp = 0x1p-24;
      if (rf == 0.0f) ulp = 0x1p-149;
      const double e = std::fabs(out[j] - ref) / ulp;
      if (e > worst) worst = e, worst_x = in[j];
    }
  }
  std::printf("erf float32 (%s): worst %.4f ulp at %.9g\n", NL == 8 ? "AVX2+FMA" : "SSE2", worst, worst_x);
  const int n = 1 << 16;
  static float x[1 << 16], y[1 << 16];
  for (int i = 0; i < n; ++i) x[i] = static_cast<float>(std::fmod(i * 0.6180339887498949, 1.0) * 16 - 8);
  double best = 1e30;
  for (int rep = 0; rep < 50; ++rep) {
    timespec t0, t1;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
    for (int i = 0; i < n; i += NL) {
      V v;
      std::memcpy(&v, x + i, sizeof v);
      const V r = mt::vec::erf_f32_lanes<V, VI>(v, any);
      std::memcpy(y + i, &r, sizeof r);
    }
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t1);
    best = std::min(best, (t1.tv_sec - t0.tv_sec) * 1e6 + (t1.tv_nsec - t0.tv_nsec) * 1e-3);
  }
  std::printf("%.1f us per 65536 floats of (-8, 8), thread CPU time [%g]\n", best, y[123]);
}
