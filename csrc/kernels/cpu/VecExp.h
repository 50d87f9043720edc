// A float32 exp that vectorizes (no libm call per element), shared by the CPU kernels that need many exps.
#pragma once
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define MT_HAVE_AVX2_EXP 1
#define MT_AVX2 __attribute__((target("avx2,fma")))
#endif

namespace mt {

// float32 exp without a libm call per element: Cody-Waite range reduction and Cephes' degree-6 polynomial
// (within 2 ulp; subnormal results rounded, not flushed). Written without branches so the loop vectorizes
// (needs -fno-trapping-math); NaN flows through the arithmetic. Other dtypes, and the GPU, use fn::Exp.
// always_inline: GCC 12 kept it an out-of-line call per element in the dense loops (the function is too long
// for its inliner's budget), so no loop vectorized and MINITORCH_CPU_CAPABILITY=default's exp ran at 6.7 ns
// an element; inlined, the same operations run four lanes at a time in SSE2 (the same bits: no FMA there).
struct VecExpF {
  __attribute__((always_inline)) float operator()(float x) const {
    float xc = std::min(std::max(x, -103.972084f), 88.72283905f);
    float t = xc * 1.44269504088896341f + 0.5f;
    float fx = static_cast<float>(static_cast<int32_t>(t));  // floor by truncation: no libm call on SSE2
    fx -= static_cast<float>(fx > t);
    float r = xc - fx * 0.693359375f + fx * 2.12194440e-4f;
    float y =
        ((((1.9875691500e-4f * r + 1.3981999507e-3f) * r + 8.3334519073e-3f) * r + 4.1665795894e-2f) * r +
         1.6666665459e-1f) *
            r +
        5.0000001201e-1f;
    y = y * (r * r) + r + 1.0f;
    // 2^fx as two normal factors: fx reaches 128 for x in (88.38, 88.72], whose exp is still a finite float,
    // and -150 where the result is subnormal; y * 2^e1 is exact (e1 >= -125 keeps it normal), so the second
    // product rounds a subnormal result once instead of flushing it
    int32_t e = static_cast<int32_t>(fx), e1 = std::min(std::max(e, -125), 127);
    uint32_t bits1 = static_cast<uint32_t>(e1 + 127) << 23, bits2 = static_cast<uint32_t>(e - e1 + 127) << 23;
    float s1, s2;
    std::memcpy(&s1, &bits1, 4);
    std::memcpy(&s2, &bits2, 4);
    float v = y * s1 * s2;
    v = x > 88.72283905f ? std::numeric_limits<float>::infinity() : v;
    return x < -103.972084f ? 0.0f : v;  // below -150 ln 2 every result rounds to 0
  }
};

#ifdef MT_HAVE_AVX2_EXP
// AVX2+FMA present and allowed (runs __builtin_cpu_init first: it may be called from a static initializer).
// MINITORCH_CPU_CAPABILITY=default asks for the baseline code everywhere, these AVX2 loops included: mixing
// them with the baseline VecExpF (no FMA) gave a tensor's dense and strided layouts different last bits.
inline bool cpu_has_avx2_fma() {
  __builtin_cpu_init();
  const char* cap = std::getenv("MINITORCH_CPU_CAPABILITY");
  if (cap && std::strcmp(cap, "default") == 0) return false;
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
}

// VecExpF's algorithm (Cody-Waite reduction, Cephes' polynomial) in AVX2. The clamps take x as their second
// operand, which max/min return when it is NaN, so NaN propagates.
MT_AVX2 inline __m256 exp256(__m256 x) {
  const __m256 hi = _mm256_set1_ps(88.72283905f), lo = _mm256_set1_ps(-103.972084f);
  const __m256 xc = _mm256_min_ps(hi, _mm256_max_ps(lo, x));
  const __m256 fx =
      _mm256_floor_ps(_mm256_fmadd_ps(xc, _mm256_set1_ps(1.44269504088896341f), _mm256_set1_ps(0.5f)));
  __m256 r = _mm256_fnmadd_ps(fx, _mm256_set1_ps(0.693359375f), xc);
  r = _mm256_fnmadd_ps(fx, _mm256_set1_ps(-2.12194440e-4f), r);
  __m256 y = _mm256_set1_ps(1.9875691500e-4f);
  y = _mm256_fmadd_ps(y, r, _mm256_set1_ps(1.3981999507e-3f));
  y = _mm256_fmadd_ps(y, r, _mm256_set1_ps(8.3334519073e-3f));
  y = _mm256_fmadd_ps(y, r, _mm256_set1_ps(4.1665795894e-2f));
  y = _mm256_fmadd_ps(y, r, _mm256_set1_ps(1.6666665459e-1f));
  y = _mm256_fmadd_ps(y, r, _mm256_set1_ps(5.0000001201e-1f));
  y = _mm256_fmadd_ps(y, _mm256_mul_ps(r, r), _mm256_add_ps(r, _mm256_set1_ps(1.0f)));
  // 2^fx as two normal factors, as VecExpF (fx reaches 128 below the overflow threshold, -150 on subnormals)
  const __m256i e = _mm256_cvttps_epi32(fx),
                e1 = _mm256_min_epi32(_mm256_max_epi32(e, _mm256_set1_epi32(-125)), _mm256_set1_epi32(127));
  const __m256i b127 = _mm256_set1_epi32(127);
  const __m256 s1 = _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(e1, b127), 23));
  const __m256 s2 =
      _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(_mm256_sub_epi32(e, e1), b127), 23));
  __m256 v = _mm256_mul_ps(_mm256_mul_ps(y, s1), s2);
  v = _mm256_blendv_ps(v, _mm256_set1_ps(std::numeric_limits<float>::infinity()),
                       _mm256_cmp_ps(x, hi, _CMP_GT_OQ));
  return _mm256_blendv_ps(v, _mm256_setzero_ps(), _mm256_cmp_ps(x, lo, _CMP_LT_OQ));
}
#endif

// q = exp(p - m) over a float32 row (q may be p), returning the sum; AVX2 where present (softmax, attention).
#ifdef MT_HAVE_AVX2_EXP
inline const bool kExpShiftAvx2 = cpu_has_avx2_fma();

MT_AVX2 inline float exp_shift_sum_avx2(const float* p, float* q, int64_t n, float m) {
  const __m256 mv = _mm256_set1_ps(m);
  __m256 acc = _mm256_setzero_ps();
  int64_t k = 0;
  for (; k + 8 <= n; k += 8) {
    __m256 e = exp256(_mm256_sub_ps(_mm256_loadu_ps(p + k), mv));
    _mm256_storeu_ps(q + k, e);
    acc = _mm256_add_ps(acc, e);
  }
  alignas(32) float b[8];
  _mm256_store_ps(b, acc);
  float s = ((b[0] + b[1]) + (b[2] + b[3])) + ((b[4] + b[5]) + (b[6] + b[7]));
  VecExpF f;
  for (; k < n; ++k) s += (q[k] = f(p[k] - m));
  return s;
}
#endif

inline float exp_shift_sum(const float* p, float* q, int64_t n, float m) {
#ifdef MT_HAVE_AVX2_EXP
  if (kExpShiftAvx2) return exp_shift_sum_avx2(p, q, n, m);
#endif
  VecExpF f;
  float s = 0;
  for (int64_t k = 0; k < n; ++k) s += (q[k] = f(p[k] - m));
  return s;
}

}  // namespace mt
