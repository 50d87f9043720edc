// Overflow-checked int64 arithmetic for sizes, strides and offsets: every product or sum of user-given sizes
// goes through these, so a huge shape raises instead of wrapping into a small (or negative) one.
#pragma once
#include <cstdint>
#include <limits>

namespace mt {

// True when a * b (a + b) overflows int64; *out holds the wrapped value then.
inline bool mul_overflows(int64_t a, int64_t b, int64_t* out) {
  return __builtin_mul_overflow(a, b, out);
}
inline bool add_overflows(int64_t a, int64_t b, int64_t* out) {
  return __builtin_add_overflow(a, b, out);
}

// Product of non-negative sizes; false on overflow (a zero anywhere makes the product 0, never an overflow,
// as a tensor with a zero-size dim holds no element whatever the other sizes are).
template <typename Range>
bool checked_numel(const Range& sizes, int64_t* out) {
  int64_t n = 1;
  bool overflow = false;
  for (int64_t s : sizes) {
    if (s == 0) {
      *out = 0;
      return true;
    }
    overflow |= mul_overflows(n, s, &n);
  }
  *out = n;
  return !overflow;
}

// Formulas over user-given parameters (conv/pool output sizes: padding, dilation, kernel sizes up to 2**63)
// are evaluated in 128 bits, where they cannot wrap, and checked to fit before they become a size.
using wide_int = __int128;
inline bool fits_int64(wide_int v) {
  return v >= std::numeric_limits<int64_t>::min() && v <= std::numeric_limits<int64_t>::max();
}

// ceil(a / b) for a >= 0, b > 0 without forming a + b - 1.
inline int64_t ceil_div(int64_t a, int64_t b) {
  return a / b + (a % b != 0);
}

}  // namespace mt
