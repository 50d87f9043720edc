// Two's-complement (wrapping) arithmetic for the integer dtypes' kernels: PyTorch's integer ops wrap on
// overflow (int32 max + 1 is int32 min), but signed overflow is undefined behaviour in C++, so the sanitizer
// build stops on it and an optimizer may assume it away. The unsigned forms are defined to wrap; other types
// (floating, complex, bool) take the plain operators.
#pragma once
#include <type_traits>

#include "core/Macros.h"

namespace mt {

template <typename T>
constexpr bool wraps_v = std::is_integral<T>::value && std::is_signed<T>::value;

template <typename T>
MT_HD_INLINE T wrap_add(T a, T b) {
  if constexpr (wraps_v<T>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(static_cast<U>(a) + static_cast<U>(b)));
  } else {
    return static_cast<T>(a + b);
  }
}
template <typename T>
MT_HD_INLINE T wrap_sub(T a, T b) {
  if constexpr (wraps_v<T>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(static_cast<U>(a) - static_cast<U>(b)));
  } else {
    return static_cast<T>(a - b);
  }
}
template <typename T>
MT_HD_INLINE T wrap_mul(T a, T b) {
  if constexpr (wraps_v<T>) {
    // int8/int16 promote to int, whose product cannot overflow; wider ones multiply as unsigned
    using U = std::conditional_t<(sizeof(T) < sizeof(int)), int, std::make_unsigned_t<T>>;
    return static_cast<T>(static_cast<U>(a) * static_cast<U>(b));
  } else {
    return static_cast<T>(a * b);
  }
}
template <typename T>
MT_HD_INLINE T wrap_neg(T a) {
  if constexpr (wraps_v<T>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(U(0) - static_cast<U>(a)));
  } else {
    return static_cast<T>(-a);
  }
}

}  // namespace mt
