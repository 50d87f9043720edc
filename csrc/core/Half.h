// float16 and bfloat16 storage types; arithmetic happens in float (opmath), so these only convert.
#pragma once
#include <cstdint>
#include <cstring>

#include "core/Macros.h"

namespace mt {

namespace detail {
MT_HD_INLINE uint32_t f32_bits(float f) {
#if defined(__CUDA_ARCH__)
  return __float_as_uint(f);
#else
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
#endif
}
MT_HD_INLINE float f32_from_bits(uint32_t u) {
#if defined(__CUDA_ARCH__)
  return __uint_as_float(u);
#else
  float f;
  std::memcpy(&f, &u, 4);
  return f;
#endif
}
}  // namespace detail

// IEEE binary16. Conversions are bit-exact round-to-nearest-even, the same on host and device.
struct alignas(2) Half {
  uint16_t x;
  Half() = default;
  struct from_bits_t {};
  MT_HOST_DEVICE constexpr Half(uint16_t bits, from_bits_t) : x(bits) {}
  MT_HOST_DEVICE Half(float f) : x(from_float(f)) {}
  MT_HOST_DEVICE operator float() const { return to_float(x); }

  MT_HOST_DEVICE static uint16_t from_float(float f) {
    uint32_t u = detail::f32_bits(f);
    uint32_t sign = (u >> 16) & 0x8000u;
    uint32_t mag = u & 0x7fffffffu;
    if (mag >= 0x7f800000u) return static_cast<uint16_t>(sign | (mag > 0x7f800000u ? 0x7e00u : 0x7c00u));
    if (mag >= 0x477ff000u) return static_cast<uint16_t>(sign | 0x7c00u);  // rounds to inf
    if (mag < 0x38800000u) {                                               // subnormal or zero in half
      float af = detail::f32_from_bits(mag) + 0.5f;  // adding 0.5 aligns the mantissa; FP rounding does RNE
      return static_cast<uint16_t>(sign | (detail::f32_bits(af) - 0x3f000000u));
    }
    uint32_t mant_odd = (mag >> 13) & 1u;
    mag += 0xc8000fffu + mant_odd;  // rebias exponent (-112 << 23) and round to nearest even
    return static_cast<uint16_t>(sign | (mag >> 13));
  }
  MT_HOST_DEVICE static float to_float(uint16_t h) {
    uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
    uint32_t exp = (h >> 10) & 0x1fu;
    uint32_t mant = h & 0x3ffu;
    if (exp == 0x1f) return detail::f32_from_bits(sign | 0x7f800000u | (mant << 13));
    if (exp == 0) {
      float f = static_cast<float>(mant) * 5.9604644775390625e-08f;  // mant * 2^-24
      return sign ? -f : f;
    }
    return detail::f32_from_bits(sign | ((exp + 112) << 23) | (mant << 13));
  }
};

// bfloat16: the top half of a float, rounded to nearest even.
struct alignas(2) BFloat16 {
  uint16_t x;
  BFloat16() = default;
  struct from_bits_t {};
  MT_HOST_DEVICE constexpr BFloat16(uint16_t bits, from_bits_t) : x(bits) {}
  MT_HOST_DEVICE BFloat16(float f) : x(from_float(f)) {}
  MT_HOST_DEVICE operator float() const { return detail::f32_from_bits(static_cast<uint32_t>(x) << 16); }

  MT_HOST_DEVICE static uint16_t from_float(float f) {
    uint32_t u = detail::f32_bits(f);
    if ((u & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((u >> 16) | 0x40u);  // quiet NaN
    u += 0x7fffu + ((u >> 16) & 1u);
    return static_cast<uint16_t>(u >> 16);
  }
};

}  // namespace mt
