// Uniform and normal draws for the CPU random fill (kernels/cpu/random.cpp) with AVX-512 (included only by
// vec/unary_avx512.cpp): Philox4x32-10 on eight counters at once and, for normals, Box-Muller in double
// through SLEEF's log and sincos where the build has SLEEF, else the C library's per lane. The draws are
// random.cpp's scalar ones: pair p of a chunk comes from counter offset + p, its four words give u1 = 1 -
// u01(w0, w1) and u2 = u01(w2, w3), and the pair is r cos(2 pi u2), r sin(2 pi u2) with r = sqrt(-2 log u1);
// only SLEEF's rounding of log/sin/cos (<= 1 ulp) can differ from the C library's. The scalar loop spent ~70
// ns per pair, 7x PyTorch's randn.
#pragma once
#include <immintrin.h>
#ifdef MINITORCH_WITH_SLEEF
#include <sleef.h>
#endif

#include <cstdint>
#include <cstring>

namespace mt {
namespace vec {
namespace {

// 53 random bits as a double in [0, 1): (hi >> 5) << 26 | lo >> 6, times 2^-53 (exact)
inline __m512d u01_pd(__m512i hi, __m512i lo) {
  const __m512i bits =
      _mm512_or_si512(_mm512_slli_epi64(_mm512_srli_epi64(hi, 5), 26), _mm512_srli_epi64(lo, 6));
  return _mm512_mul_pd(_mm512_cvtepu64_pd(bits), _mm512_set1_pd(1.0 / 9007199254740992.0));
}

struct Philox8 {
  __m512i w0, w1, w2, w3;  // the four words of eight consecutive counters, one per 64-bit lane
};

// Philox4x32-10 (core/Generator.h) for counters offset + p .. offset + p + 7 (random.cpp's next4 carries word
// 0 into word 1, so the counter is a 64-bit number) of subsequence `sub`; 32 x 32 -> 64-bit products per
// lane.
inline Philox8 philox8(uint64_t seed, uint64_t sub, uint64_t counter) {
  const __m512i lo32 = _mm512_set1_epi64(0xffffffffll);
  const __m512i m0 = _mm512_set1_epi64(0xD2511F53ll), m1 = _mm512_set1_epi64(0xCD9E8D57ll);
  const __m512i ctr = _mm512_add_epi64(_mm512_set1_epi64(static_cast<int64_t>(counter)),
                                       _mm512_set_epi64(7, 6, 5, 4, 3, 2, 1, 0));
  __m512i c0 = _mm512_and_si512(ctr, lo32), c1 = _mm512_srli_epi64(ctr, 32);
  __m512i c2 = _mm512_set1_epi64(static_cast<uint32_t>(sub)),
          c3 = _mm512_set1_epi64(static_cast<uint32_t>(sub >> 32));
  uint32_t k0 = static_cast<uint32_t>(seed), k1 = static_cast<uint32_t>(seed >> 32);
  for (int r = 0; r < 10; ++r) {
    const __m512i p0 = _mm512_mul_epu32(m0, c0), p1 = _mm512_mul_epu32(m1, c2);
    const __m512i n0 = _mm512_xor_si512(_mm512_xor_si512(_mm512_srli_epi64(p1, 32), c1),
                                        _mm512_set1_epi64(static_cast<int64_t>(k0)));
    const __m512i n2 = _mm512_xor_si512(_mm512_xor_si512(_mm512_srli_epi64(p0, 32), c3),
                                        _mm512_set1_epi64(static_cast<int64_t>(k1)));
    c0 = n0;
    c1 = _mm512_and_si512(p1, lo32);
    c2 = n2;
    c3 = _mm512_and_si512(p0, lo32);
    k0 += 0x9E3779B9u;
    k1 += 0xBB67AE85u;
  }
  return {c0, c1, c2, c3};
}

// Stores the eight pairs (a[k], b[k]) to out[2k], out[2k + 1], as many of the 16 values as fit in `left`.
inline void store_pairs(double* out, int64_t left, __m512d a, __m512d b) {
  const __m512d lo = _mm512_permutex2var_pd(a, _mm512_set_epi64(11, 3, 10, 2, 9, 1, 8, 0), b);
  const __m512d hi = _mm512_permutex2var_pd(a, _mm512_set_epi64(15, 7, 14, 6, 13, 5, 12, 4), b);
  if (left >= 16) {
    _mm512_storeu_pd(out, lo);
    _mm512_storeu_pd(out + 8, hi);
  } else {
    alignas(64) double tmp[16];
    _mm512_store_pd(tmp, lo);
    _mm512_store_pd(tmp + 8, hi);
    std::memcpy(out, tmp, static_cast<size_t>(left) * sizeof(double));
  }
}

// out[0, n): normals from Philox(seed, sub, offset), two per counter, in random.cpp's order.
void normal_philox_avx512(double* out, int64_t n, uint64_t seed, uint64_t sub, uint64_t offset) {
  const __m512d two_pi = _mm512_set1_pd(6.283185307179586), minus_two = _mm512_set1_pd(-2.0);
  for (int64_t p = 0; 2 * p < n; p += 8) {
    const Philox8 w = philox8(seed, sub, offset + static_cast<uint64_t>(p));
    const __m512d u1 = _mm512_sub_pd(_mm512_set1_pd(1.0), u01_pd(w.w0, w.w1));
    const __m512d angle = _mm512_mul_pd(two_pi, u01_pd(w.w2, w.w3));
#ifdef MINITORCH_WITH_SLEEF
    const __m512d rad = _mm512_sqrt_pd(_mm512_mul_pd(minus_two, Sleef_logd8_u10avx512f(u1)));
    const Sleef___m512d_2 sc = Sleef_sincosd8_u10avx512f(angle);
    const __m512d s = sc.x, c = sc.y;
#else
    // the C library lane by lane: the scalar path's values, bit for bit
    alignas(64) double lg[8], sn[8], cs[8], a[8];
    _mm512_store_pd(lg, u1);
    _mm512_store_pd(a, angle);
    for (int k = 0; k < 8; ++k) {
      lg[k] = __builtin_log(lg[k]);
      sn[k] = __builtin_sin(a[k]);
      cs[k] = __builtin_cos(a[k]);
    }
    const __m512d rad = _mm512_sqrt_pd(_mm512_mul_pd(minus_two, _mm512_load_pd(lg)));
    const __m512d s = _mm512_load_pd(sn), c = _mm512_load_pd(cs);
#endif
    store_pairs(out + 2 * p, n - 2 * p, _mm512_mul_pd(rad, c), _mm512_mul_pd(rad, s));
  }
}

// out[0, n): uniforms in [0, 1) from Philox(seed, sub, offset), two per counter, in random.cpp's order.
void uniform_philox_avx512(double* out, int64_t n, uint64_t seed, uint64_t sub, uint64_t offset) {
  for (int64_t p = 0; 2 * p < n; p += 8) {
    const Philox8 w = philox8(seed, sub, offset + static_cast<uint64_t>(p));
    store_pairs(out + 2 * p, n - 2 * p, u01_pd(w.w0, w.w1), u01_pd(w.w2, w.w3));
  }
}

}  // namespace
}  // namespace vec
}  // namespace mt
