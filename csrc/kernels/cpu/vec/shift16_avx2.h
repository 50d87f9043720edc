// int16 shifts by a per-element amount in AVX2 lanes; included by kernels/cpu/elementwise.cpp under
// MT_LOOPS_AVX2.
#pragma once

#include <immintrin.h>

#include <cstdint>

namespace mt {
namespace shift16 {

// AVX2 has variable shifts of 32-bit lanes only (vpsllvd, vpsravd). Each 32-bit lane holds two int16 values,
// and each is shifted in place there by its own amount, without widening and packing back: about eight
// instructions per sixteen values, where functors.h's barrel shifter takes four constant shifts and selects
// (about twenty). The rules are LeftShift's and RightShift's: the amount read as unsigned 16 bits (a negative
// one is 32768 or more); a left shift by 16 or more gives 0, a right one shifts by 15 (the sign's fill).
//
// Left: the low value alone in its lane (the high half cleared) shifted by the low amount, bits past bit 15
// masked off (an amount of 16-31 leaves none below bit 16; vpsllvd gives 0 for 32 or more); the high value in
// place (the low half cleared) shifted by the high amount, bits past bit 31 falling out of the lane.
__attribute__((target("avx2"))) inline __m256i shl(__m256i a, __m256i s) {
  const __m256i lo = _mm256_set1_epi32(0xFFFF);
  const __m256i rl =
      _mm256_and_si256(_mm256_sllv_epi32(_mm256_and_si256(a, lo), _mm256_and_si256(s, lo)), lo);
  const __m256i rh = _mm256_sllv_epi32(_mm256_andnot_si256(lo, a), _mm256_srli_epi32(s, 16));
  return _mm256_or_si256(rl, rh);
}

// Right (arithmetic): the amounts capped at 15 (vpminuw). The high value's shift by its amount takes its sign
// from the lane's top bit, as wanted; the low value is moved to the top half first, shifted by its amount and
// moved back; the odd words are taken from the first, the even from the second.
__attribute__((target("avx2"))) inline __m256i sar(__m256i a, __m256i s) {
  const __m256i c = _mm256_min_epu16(s, _mm256_set1_epi16(15));
  const __m256i rh = _mm256_srav_epi32(a, _mm256_srli_epi32(c, 16));
  const __m256i cl = _mm256_blend_epi16(c, _mm256_setzero_si256(), 0xAA);
  const __m256i rl = _mm256_srli_epi32(_mm256_srav_epi32(_mm256_slli_epi32(a, 16), cl), 16);
  return _mm256_blend_epi16(rl, rh, 0xAA);
}

// o[i] = a[i] op b[i] for n values, an operand with DA / DB false being one broadcast value (*a, *b); the
// tail in a zero-padded vector, so every value takes the same instructions. o may be a or b (in-place
// shifts).
// (a function with the AVX2 target, not a lambda: a lambda has none, and GCC warns that its __m256i return
// changes the ABI)
template <bool Left>
__attribute__((target("avx2"), always_inline)) inline __m256i op(__m256i x, __m256i y) {
  return Left ? shl(x, y) : sar(x, y);
}

template <bool Left, bool DA, bool DB>
__attribute__((target("avx2"))) void row_impl(int16_t* o, const int16_t* a, const int16_t* b, int64_t n) {
  const __m256i av = _mm256_set1_epi16(*a), bv = _mm256_set1_epi16(*b);
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const __m256i x = DA ? _mm256_loadu_si256(reinterpret_cast<const __m256i*>(a + i)) : av;
    const __m256i y = DB ? _mm256_loadu_si256(reinterpret_cast<const __m256i*>(b + i)) : bv;
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(o + i), op<Left>(x, y));
  }
  if (i < n) {
    alignas(32) int16_t x[16] = {}, y[16] = {}, r[16];
    for (int64_t k = 0; k < n - i; ++k) {
      x[k] = DA ? a[i + k] : *a;
      y[k] = DB ? b[i + k] : *b;
    }
    _mm256_store_si256(reinterpret_cast<__m256i*>(r),
                       op<Left>(_mm256_load_si256(reinterpret_cast<const __m256i*>(x)),
                                _mm256_load_si256(reinterpret_cast<const __m256i*>(y))));
    for (int64_t k = 0; k < n - i; ++k) o[i + k] = r[k];
  }
}

// the row for a and b dense (stride 1) or broadcast (stride 0); not both broadcast
template <bool Left>
inline void row(int16_t* o, const int16_t* a, int64_t sa, const int16_t* b, int64_t sb, int64_t n) {
  if (sa && sb) return row_impl<Left, true, true>(o, a, b, n);
  if (sa) return row_impl<Left, true, false>(o, a, b, n);
  return row_impl<Left, false, true>(o, a, b, n);
}

}  // namespace shift16
}  // namespace mt
