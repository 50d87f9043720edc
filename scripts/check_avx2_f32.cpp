// Exhaustive accuracy check of the AVX2 float32 kernels in csrc/kernels/cpu/vec/avx2_f32_math.h (log, log1p,
// log2, log10, asin, acos) against the C library's double functions, over every float32 bit pattern (or every
// STEP-th), in ulps of the float nearest the reference (the spacing above it, as tests/ops/elementwise/
// test_ulp.py measures); NaN, infinities and zeros must match exactly. Also times each kernel on 65536
// floats.
//   g++ -O2 -mavx2 -mfma -std=c++17 -Icsrc scripts/check_avx2_f32.cpp -o /tmp/check_avx2_f32
//   /tmp/check_avx2_f32 [STEP=1] [all|time|log|log1p|log2|log10|asin|acos]
// One function over all 2^32 patterns takes a few minutes on one core.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "kernels/cpu/vec/avx2_f32_math.h"

namespace {

double ulp_of(double ref) {
  float f = static_cast<float>(ref);
  if (std::isinf(f)) f = std::copysign(3.4028234663852886e38f, static_cast<float>(ref));
  const float a = std::fabs(f);
  return static_cast<double>(std::nextafter(a, INFINITY)) - static_cast<double>(a);
}

using Kernel = __m256 (*)(__m256);
using Ref = double (*)(double);

void check(const char* name, Kernel k, Ref ref, uint32_t step) {
  double worst = 0;
  float wx = 0;
  long n = 0, bad = 0;
  alignas(32) float in[8], out[8];
  const uint64_t hi = 0x100000000ull;
  for (uint64_t u = 0; u < hi; u += 8 * static_cast<uint64_t>(step)) {
    for (int j = 0; j < 8; ++j) {
      const uint32_t b =
          static_cast<uint32_t>(std::min<uint64_t>(u + j * static_cast<uint64_t>(step), hi - 1));
      std::memcpy(&in[j], &b, 4);
    }
    _mm256_store_ps(out, k(_mm256_load_ps(in)));
    for (int j = 0; j < 8; ++j) {
      const double r = ref(static_cast<double>(in[j]));
      const float rf = static_cast<float>(r);
      if (std::isnan(r) || std::isinf(rf) || rf == 0.0f) {
        // NaN, the infinities and zeros (with their signs) exactly
        const bool same =
            std::isnan(r) ? std::isnan(out[j]) : (out[j] == rf && std::signbit(out[j]) == std::signbit(rf));
        if (!same && bad++ < 5) std::printf("  %s(%a): want %a got %a\n", name, in[j], r, out[j]);
        continue;
      }
      const double e = std::fabs(static_cast<double>(out[j]) - r) / ulp_of(r);
      ++n;
      if (e > worst) {
        worst = e;
        wx = in[j];
      }
    }
  }
  std::printf("%s, every %u-th float: %ld finite results, max %.4f ulp at %a (%.9g), %ld wrong specials\n",
              name, step, n, worst, wx, wx, bad);
}

void timeit(const char* name, Kernel k) {
  const int n = 65536;
  float* a = static_cast<float*>(std::aligned_alloc(32, n * 4));
  float* o = static_cast<float*>(std::aligned_alloc(32, n * 4));
  for (int i = 0; i < n; ++i)
    a[i] = static_cast<float>(0.001 + (i * 0.61803398875 - static_cast<long>(i * 0.61803398875)) * 0.998);
  double best = 1e9;
  for (int rep = 0; rep < 50; ++rep) {
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < n; i += 8) _mm256_store_ps(o + i, k(_mm256_load_ps(a + i)));
    const double dt =
        std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
    best = std::min(best, dt);
  }
  std::printf("%s: %.1f us per 65536 floats (%.3f ns each), %g\n", name, best, best * 1000 / n, o[123]);
  std::free(a);
  std::free(o);
}

double log_d(double x) {
  return std::log(x);
}
double log1p_d(double x) {
  return std::log1p(x);
}
double log2_d(double x) {
  return std::log2(x);
}
double log10_d(double x) {
  return std::log10(x);
}
double asin_d(double x) {
  return std::asin(x);
}
double acos_d(double x) {
  return std::acos(x);
}

}  // namespace

int main(int argc, char** argv) {
  const uint32_t step = argc > 1 ? static_cast<uint32_t>(std::atoi(argv[1])) : 1;
  const char* which = argc > 2 ? argv[2] : "all";
  struct Fn {
    const char* name;
    Kernel k;
    Ref ref;
  };
  const Fn fns[] = {{"log", log_avx2_f32<0>, log_d},
                    {"log1p", log_avx2_f32<1>, log1p_d},
                    {"log2", log_avx2_f32<2>, log2_d},
                    {"log10", log_avx2_f32<10>, log10_d},
                    {"asin", asin_acos_avx2_f32<false>, asin_d},
                    {"acos", asin_acos_avx2_f32<true>, acos_d}};
  const bool all = std::strcmp(which, "all") == 0;
  if (all || std::strcmp(which, "time") == 0) {
    for (const Fn& f : fns) timeit(f.name, f.k);
    timeit("gelu", gelu_avx2_f32);
  }
  for (const Fn& f : fns)
    if (all || std::strcmp(which, f.name) == 0) check(f.name, f.k, f.ref, step);
}
