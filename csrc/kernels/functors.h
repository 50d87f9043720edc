// The elementwise math, written once for host and device: the CPU loops and the CUDA kernels both
// instantiate these functors, so the CPU tests cover the arithmetic the GPU runs. Arguments are opmath
// values.
#pragma once
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "core/Macros.h"
#include "core/ScalarType.h"

namespace mt {
namespace fn {

using std::abs;
using std::ceil;
using std::cos;
using std::exp;
using std::floor;
using std::fmod;
using std::log;
using std::sin;
using std::sqrt;
using std::tanh;

template <typename T>
constexpr bool is_int_v = std::is_integral<T>::value;

#define MT_UNARY_FUNCTOR(Name, expr)       \
  struct Name {                            \
    template <typename T>                  \
    MT_HD_INLINE T operator()(T x) const { \
      return expr;                         \
    }                                      \
  };

// Same-dtype ops: integers are legal inputs.
struct Abs {
  template <typename T>
  MT_HD_INLINE T operator()(T x) const {
    if constexpr (std::is_same<T, bool>::value)
      return x;
    else if constexpr (std::is_unsigned<T>::value)
      return x;
    else
      return x < T(0) ? T(-x) : x;
  }
};
struct Neg {
  template <typename T>
  MT_HD_INLINE T operator()(T x) const {
    return static_cast<T>(-x);
  }
};
struct Sign {
  template <typename T>
  MT_HD_INLINE T operator()(T x) const {
    if constexpr (std::is_same<T, bool>::value)
      return x;
    else if constexpr (std::is_unsigned<T>::value)
      return static_cast<T>(x != T(0));
    else
      return static_cast<T>((T(0) < x) - (x < T(0)));
  }
};
struct Floor {
  template <typename T>
  MT_HD_INLINE T operator()(T x) const {
    if constexpr (is_int_v<T>)
      return x;
    else
      return floor(x);
  }
};
struct Ceil {
  template <typename T>
  MT_HD_INLINE T operator()(T x) const {
    if constexpr (is_int_v<T>)
      return x;
    else
      return ceil(x);
  }
};
struct Round {  // half to even, as PyTorch and NumPy
  template <typename T>
  MT_HD_INLINE T operator()(T x) const {
    if constexpr (is_int_v<T>)
      return x;
    else
      return std::nearbyint(x);
  }
};
struct Trunc {
  template <typename T>
  MT_HD_INLINE T operator()(T x) const {
    if constexpr (is_int_v<T>)
      return x;
    else
      return std::trunc(x);
  }
};
struct Relu {
  template <typename T>
  MT_HD_INLINE T operator()(T x) const {
    if constexpr (is_int_v<T>)
      return x > T(0) ? x : T(0);
    else
      return x > T(0) ? x : (x != x ? x : T(0));  // NaN propagates
  }
};
struct BitwiseNot {
  template <typename T>
  MT_HD_INLINE T operator()(T x) const {
    if constexpr (std::is_same<T, bool>::value)
      return !x;
    else if constexpr (is_int_v<T>)
      return static_cast<T>(~x);
    else
      return x;  // rejected by the front end
  }
};

// Float ops: only floating T reaches them.
MT_UNARY_FUNCTOR(Exp, exp(x))
MT_UNARY_FUNCTOR(Exp2, std::exp2(x))
MT_UNARY_FUNCTOR(Expm1, std::expm1(x))
MT_UNARY_FUNCTOR(Log, log(x))
MT_UNARY_FUNCTOR(Log2, std::log2(x))
MT_UNARY_FUNCTOR(Log10, std::log10(x))
MT_UNARY_FUNCTOR(Log1p, std::log1p(x))
MT_UNARY_FUNCTOR(Sqrt, sqrt(x))
MT_UNARY_FUNCTOR(Rsqrt, T(1) / sqrt(x))
MT_UNARY_FUNCTOR(Reciprocal, T(1) / x)
MT_UNARY_FUNCTOR(Sin, sin(x))
MT_UNARY_FUNCTOR(Cos, cos(x))
MT_UNARY_FUNCTOR(Tan, std::tan(x))
MT_UNARY_FUNCTOR(Asin, std::asin(x))
MT_UNARY_FUNCTOR(Acos, std::acos(x))
MT_UNARY_FUNCTOR(Atan, std::atan(x))
MT_UNARY_FUNCTOR(Sinh, std::sinh(x))
MT_UNARY_FUNCTOR(Cosh, std::cosh(x))
MT_UNARY_FUNCTOR(Tanh, tanh(x))
MT_UNARY_FUNCTOR(Erf, std::erf(x))
MT_UNARY_FUNCTOR(Sigmoid, T(1) / (T(1) + exp(-x)))
MT_UNARY_FUNCTOR(Gelu, x* T(0.5) * (T(1) + std::erf(x * T(0.70710678118654752440))))
MT_UNARY_FUNCTOR(GeluTanh,
                 T(0.5) * x * (T(1) + tanh(T(0.79788456080286535588) * (x + T(0.044715) * x * x * x))))
MT_UNARY_FUNCTOR(Silu, x / (T(1) + exp(-x)))
MT_UNARY_FUNCTOR(Mish, x* tanh(x > T(20) ? x : std::log1p(exp(x))))

// Bool-result ops.
struct LogicalNot {
  template <typename T>
  MT_HD_INLINE bool operator()(T x) const {
    return !static_cast<bool>(x);
  }
};
struct IsNan {
  template <typename T>
  MT_HD_INLINE bool operator()(T x) const {
    return x != x;
  }
};
struct IsInf {
  template <typename T>
  MT_HD_INLINE bool operator()(T x) const {
    if constexpr (is_int_v<T>)
      return false;
    else
      return std::isinf(x);
  }
};
struct IsFinite {
  template <typename T>
  MT_HD_INLINE bool operator()(T x) const {
    if constexpr (is_int_v<T>)
      return true;
    else
      return std::isfinite(x);
  }
};
#undef MT_UNARY_FUNCTOR

// ---- binary
#define MT_BINARY_FUNCTOR(Name, R, expr)        \
  struct Name {                                 \
    template <typename T>                       \
    MT_HD_INLINE R operator()(T a, T b) const { \
      return expr;                              \
    }                                           \
  };

MT_BINARY_FUNCTOR(Add, T, static_cast<T>(a + b))
MT_BINARY_FUNCTOR(Sub, T, static_cast<T>(a - b))
MT_BINARY_FUNCTOR(Mul, T, static_cast<T>(a* b))
MT_BINARY_FUNCTOR(TrueDiv, T, a / b)
MT_BINARY_FUNCTOR(Atan2, T, std::atan2(a, b))
MT_BINARY_FUNCTOR(Eq, bool, a == b)
MT_BINARY_FUNCTOR(Ne, bool, a != b)
MT_BINARY_FUNCTOR(Lt, bool, a < b)
MT_BINARY_FUNCTOR(Le, bool, a <= b)
MT_BINARY_FUNCTOR(Gt, bool, a > b)
MT_BINARY_FUNCTOR(Ge, bool, a >= b)
MT_BINARY_FUNCTOR(LogicalAnd, bool, static_cast<bool>(a) && static_cast<bool>(b))
MT_BINARY_FUNCTOR(LogicalOr, bool, static_cast<bool>(a) || static_cast<bool>(b))
MT_BINARY_FUNCTOR(LogicalXor, bool, static_cast<bool>(a) != static_cast<bool>(b))
#undef MT_BINARY_FUNCTOR

struct BitwiseAnd {
  template <typename T>
  MT_HD_INLINE T operator()(T a, T b) const {
    if constexpr (is_int_v<T>)
      return static_cast<T>(a & b);
    else
      return a;
  }
};
struct BitwiseOr {
  template <typename T>
  MT_HD_INLINE T operator()(T a, T b) const {
    if constexpr (is_int_v<T>)
      return static_cast<T>(a | b);
    else
      return a;
  }
};
struct BitwiseXor {
  template <typename T>
  MT_HD_INLINE T operator()(T a, T b) const {
    if constexpr (is_int_v<T>)
      return static_cast<T>(a ^ b);
    else
      return a;
  }
};

// Integer division by zero is rejected by the front end; b == -1 avoids the INT_MIN / -1 trap. Signed types
// only (uint8's 255 == T(-1) divides normally), and the negation wraps in unsigned (INT_MIN stays INT_MIN, as
// PyTorch) instead of overflowing, which is undefined.
template <typename T>
MT_HD_INLINE bool is_minus_one(T b) {
  if constexpr (std::is_signed<T>::value)
    return b == T(-1);
  else
    return false;
}
template <typename T>
MT_HD_INLINE T wrapping_neg(T a) {
  using U = std::make_unsigned_t<T>;
  return static_cast<T>(static_cast<U>(U(0) - static_cast<U>(a)));
}
struct TruncDiv {
  template <typename T>
  MT_HD_INLINE T operator()(T a, T b) const {
    if constexpr (std::is_same<T, bool>::value)
      return a && b;
    else if constexpr (is_int_v<T>) {
      if (is_minus_one(b)) return wrapping_neg(a);
      return static_cast<T>(a / b);
    } else
      return std::trunc(a / b);
  }
};
struct FloorDiv {  // Python's //, as NumPy computes it for floats
  template <typename T>
  MT_HD_INLINE T operator()(T a, T b) const {
    if constexpr (std::is_same<T, bool>::value)
      return a && b;
    else if constexpr (is_int_v<T>) {
      if (is_minus_one(b)) return wrapping_neg(a);
      T q = static_cast<T>(a / b);
      if constexpr (std::is_signed<T>::value)
        if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
      return q;
    } else {
      if (b == T(0)) return a / b;
      T mod = fmod(a, b);
      T div = (a - mod) / b;
      if (mod != T(0) && ((b < T(0)) != (mod < T(0)))) div -= T(1);
      T fd;
      if (div != T(0)) {
        fd = floor(div);
        if (div - fd > T(0.5)) fd += T(1);
      } else {
        fd = std::copysign(T(0), a / b);
      }
      return fd;
    }
  }
};
struct Remainder {  // Python's %: the result takes the divisor's sign
  template <typename T>
  MT_HD_INLINE T operator()(T a, T b) const {
    if constexpr (std::is_same<T, bool>::value)
      return false;
    else if constexpr (is_int_v<T>) {
      if (is_minus_one(b)) return T(0);
      T r = static_cast<T>(a % b);
      if constexpr (std::is_signed<T>::value)
        if (r != 0 && ((r < 0) != (b < 0))) r = static_cast<T>(r + b);
      return r;
    } else {
      T r = fmod(a, b);
      if (r != T(0) && ((b < T(0)) != (r < T(0)))) r += b;
      return r;
    }
  }
};
struct Fmod {  // C's fmod: the result takes the dividend's sign
  template <typename T>
  MT_HD_INLINE T operator()(T a, T b) const {
    if constexpr (std::is_same<T, bool>::value)
      return false;
    else if constexpr (is_int_v<T>) {
      if (is_minus_one(b)) return T(0);
      return static_cast<T>(a % b);
    } else
      return fmod(a, b);
  }
};
struct Pow {
  template <typename T>
  MT_HD_INLINE T operator()(T a, T b) const {
    if constexpr (std::is_same<T, bool>::value)
      return a || !b;
    else if constexpr (is_int_v<T>) {  // negative exponents are rejected by the front end
      T result = 1;
      using U = typename std::make_unsigned<T>::type;
      U e = static_cast<U>(b);
      T base = a;
      while (e) {
        if (e & 1) result = static_cast<T>(result * base);
        base = static_cast<T>(base * base);
        e >>= 1;
      }
      return result;
    } else
      return std::pow(a, b);
  }
};
struct Maximum {  // NaN propagates
  template <typename T>
  MT_HD_INLINE T operator()(T a, T b) const {
    if constexpr (is_int_v<T>)
      return a > b ? a : b;
    else
      return (a != a) ? a : (b != b) ? b : (a > b ? a : b);
  }
};
struct Minimum {
  template <typename T>
  MT_HD_INLINE T operator()(T a, T b) const {
    if constexpr (is_int_v<T>)
      return a < b ? a : b;
    else
      return (a != a) ? a : (b != b) ? b : (a < b ? a : b);
  }
};

// ---- parameterized
struct Softplus {
  double beta, threshold;
  template <typename T>
  MT_HD_INLINE T operator()(T x) const {
    T bx = x * T(beta);
    return bx > T(threshold) ? x : std::log1p(exp(bx)) / T(beta);
  }
};
struct LeakyRelu {
  double slope;
  template <typename T>
  MT_HD_INLINE T operator()(T x) const {
    return x > T(0) ? x : x * T(slope);
  }
};

// where/masked_fill: no arithmetic, so no opmath.
struct Where {
  template <typename T>
  MT_HD_INLINE T operator()(bool c, T a, T b) const {
    return c ? a : b;
  }
};

// clamp on storage values, compared in opmath on both devices (half and bfloat16 through float). NaN in x or
// in a bound propagates, and min > max gives max, as in PyTorch.
struct Clamp {
  bool has_min, has_max;
  template <typename S>
  MT_HD_INLINE S operator()(S x, S lo, S hi) const {
    using op_t = opmath_t<S>;
    op_t v = static_cast<op_t>(x);
    if (v != v) return x;
    if (has_min) {
      op_t l = static_cast<op_t>(lo);
      if (l != l || v < l) v = l;
    }
    if (has_max) {
      op_t h = static_cast<op_t>(hi);
      if (h != h || v > h) v = h;
    }
    return static_cast<S>(v);
  }
};

}  // namespace fn
}  // namespace mt
