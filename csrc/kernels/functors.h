// The elementwise math, written once for host and device: the CPU loops and the CUDA kernels both
// instantiate these functors, so the CPU tests cover the arithmetic the GPU runs. Arguments are opmath
// values.
#pragma once
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>

#include "core/Macros.h"
#include "core/ScalarType.h"
#include "core/WrapMath.h"
#include "kernels/BesselCoeffs.h"
#if !defined(__CUDACC__)
#include "kernels/cpu/vec/f64_series.h"  // erfinv's polynomials
#endif

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
    else if constexpr (std::is_floating_point<T>::value)
      return std::fabs(x);  // the sign bit cleared, as PyTorch's: abs(-0.0) is +0.0, abs(-nan) is +nan
    else
      return x < T(0) ? wrap_neg(x) : x;  // abs(INT_MIN) is INT_MIN, as PyTorch's
  }
};
struct Neg {
  template <typename T>
  MT_HD_INLINE T operator()(T x) const {
    return wrap_neg(x);
  }
};
struct Sign {
  template <typename T>
  MT_HD_INLINE T operator()(T x) const {
    if constexpr (std::is_same<T, bool>::value)
      return x;
    else if constexpr (std::is_unsigned<T>::value)
      return static_cast<T>(x != T(0));
    else if constexpr (std::is_floating_point<T>::value)
      // the two tests as T, not int: selects in vector lanes (an int difference converted to double kept
      // float64's loop scalar); the same values, +0 at 0 and NaN
      return static_cast<T>(T(0) < x) - static_cast<T>(x < T(0));
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
// PyTorch's frac: x - trunc(x) (inf gives NaN); one pass where the composite took two. Integer types are
// refused before the kernel (frac_cpu); their branch only keeps std::trunc of an integer out of device code.
struct Frac {
  template <typename T>
  MT_HD_INLINE T operator()(T x) const {
    if constexpr (is_int_v<T>)
      return T(0);
    else
      return x - std::trunc(x);
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
// sinc as PyTorch's kernel: 1 at 0, else sin(pi x) / (pi x) with pi x rounded once in T
struct Sinc {
  template <typename T>
  MT_HD_INLINE T operator()(T x) const {
    if (x == T(0)) return T(1);
    const T p = T(3.14159265358979323846) * x;
    return sin(p) / p;
  }
};
MT_UNARY_FUNCTOR(Tan, std::tan(x))
MT_UNARY_FUNCTOR(Asin, std::asin(x))
MT_UNARY_FUNCTOR(Acos, std::acos(x))
MT_UNARY_FUNCTOR(Atan, std::atan(x))
MT_UNARY_FUNCTOR(Sinh, std::sinh(x))
MT_UNARY_FUNCTOR(Cosh, std::cosh(x))
MT_UNARY_FUNCTOR(Tanh, tanh(x))
MT_UNARY_FUNCTOR(Erf, std::erf(x))
MT_UNARY_FUNCTOR(Erfc, std::erfc(x))
MT_UNARY_FUNCTOR(Asinh, std::asinh(x))
MT_UNARY_FUNCTOR(Acosh, std::acosh(x))
MT_UNARY_FUNCTOR(Atanh, std::atanh(x))
MT_UNARY_FUNCTOR(Lgamma, std::lgamma(x))
MT_UNARY_FUNCTOR(Sigmoid, T(1) / (T(1) + exp(-x)))
MT_UNARY_FUNCTOR(Gelu, x* T(0.5) * (T(1) + std::erf(x * T(0.70710678118654752440))))
MT_UNARY_FUNCTOR(GeluTanh,
                 T(0.5) * x * (T(1) + tanh(T(0.79788456080286535588) * (x + T(0.044715) * x * x * x))))
MT_UNARY_FUNCTOR(Silu, x / (T(1) + exp(-x)))
MT_UNARY_FUNCTOR(Mish, x* tanh(x > T(20) ? x : std::log1p(exp(x))))
// F.hardsigmoid / F.hardswish, PyTorch's formulas step for step (min(max(x + 3, 0), 6) / 6, x times it over
// 6): the same roundings, and a NaN x stays NaN through both compares
template <typename T>
MT_HD_INLINE T hard_relu6(T y) {
  y = y < T(0) ? T(0) : y;
  return T(6) < y ? T(6) : y;
}
MT_UNARY_FUNCTOR(Hardsigmoid, hard_relu6(x + T(3)) / T(6))
MT_UNARY_FUNCTOR(Hardswish, x* hard_relu6(x + T(3)) / T(6))

// The special functions below compute in double for every floating dtype (float32 through double rounds
// once at the end), on both devices.

// erfinv: CUDA's on the GPU. On the CPU (the default capability's loop; the vector tables run the same
// method, kernels/cpu/vec/avx2_math.h's erfinv_avx2_f64): a start x = a P(w), a = |y|, w = -log((1 - a)(1 +
// a)), with f64_series.h's polynomials in Giles' variables (relative errors 4e-11 to 2.6e-10), then one
// Newton step on erf(x) = a for a <= 1/2, on erfc(x) = 1 - a above (1 - a exact; erf(x) - a would cancel in
// the tail). Newton's error after the step is x times the start's squared (erf''/erf' = -2x), under 1e-18
// relative: what is left is the residual's rounding over the derivative, about an ulp of x.
MT_HD_INLINE double erfinv_double(double y) {
#if defined(__CUDACC__)
  return ::erfinv(y);
#else
  const double a = std::fabs(y);
  if (!(a < 1.0)) return a == 1.0 ? std::copysign(HUGE_VAL, y) : std::numeric_limits<double>::quiet_NaN();
  if (a == 0.0) return y;  // keeps the sign of zero
  const double w = -std::log((1.0 - a) * (1.0 + a));
  const double p = w < 5.0    ? erfinv_central_d(w - 2.5)
                   : w < 16.0 ? erfinv_tail_d(std::sqrt(w) - 3.0)
                              : erfinv_far_d(std::sqrt(w) - 5.0);
  double x = a * p;
  const double r = a <= 0.5 ? std::erf(x) - a : (1.0 - a) - std::erfc(x);
  x -= r / (1.12837916709551257390 * std::exp(-x * x));
  return std::copysign(x, y);
#endif
}

// Hurwitz zeta(s, q) = sum_k (q + k)^-s for s > 1: the first terms summed until q + k > 9, the rest by
// Euler-Maclaurin with twelve Bernoulli terms (kZetaB[j] = (2j)! / B_2j). For q <= 0 only integer s is
// defined (the poles q = 0, -1, ... give inf, whatever s).
MT_HD_INLINE double hurwitz_zeta(double s, double q) {
  constexpr double kZetaB[12] = {12.0,
                                 -720.0,
                                 30240.0,
                                 -1209600.0,
                                 47900160.0,
                                 -1.8924375803183791606e9,
                                 7.47242496e10,
                                 -2.950130727918164224e12,
                                 1.1646782814350067249e14,
                                 -4.5979787224074726105e15,
                                 1.8152105401943546773e17,
                                 -7.1661652561756670113e18};
  const double eps = 1.1102230246251565e-16;
  if (s == 1.0) return HUGE_VAL;
  if (s < 1.0) return std::numeric_limits<double>::quiet_NaN();
  if (q <= 0.0) {
    if (q == floor(q)) return HUGE_VAL;
    if (s != floor(s)) return std::numeric_limits<double>::quiet_NaN();
    // The direct sum below steps q up by one until it passes 9: past 2^20 steps it is not computed.
    if (q < -1048576.0) return std::numeric_limits<double>::quiet_NaN();
  }
  // NaN after the poles, as Cephes' (and PyTorch's) order: zeta(nan, -2) is inf
  if (s != s || q != q) return s + q;
  double sum = std::pow(q, -s), a = q, b = 0.0;
  int i = 0;
  while (i < 9 || a <= 9.0) {
    ++i;
    a += 1.0;
    b = std::pow(a, -s);
    sum += b;
    if (abs(b / sum) < eps) return sum;
  }
  const double w = a;
  sum += b * w / (s - 1.0) - 0.5 * b;
  double fac = 1.0, k = 0.0;
  for (int j = 0; j < 12; ++j) {
    fac *= s + k;
    b /= w;
    const double t = fac * b / kZetaB[j];
    sum += t;
    if (abs(t / sum) < eps) break;
    k += 1.0;
    fac *= s + k;
    b /= w;
    k += 1.0;
  }
  return sum;
}

// digamma: -inf at +0 (+inf at -0) and NaN at the negative integers, as PyTorch; x < 0 by reflection
// psi(x) = psi(1 - x) - pi / tan(pi frac(x)), then psi(x) = psi(x + 1) - 1/x up to x >= 10 and the
// asymptotic series log x - 1/(2x) - sum B_2k / (2k x^2k) there.
MT_HD_INLINE double digamma_double(double x) {
  const double pi = 3.14159265358979323846;
  if (x == 0.0) return std::copysign(HUGE_VAL, -x);
  double result = 0.0;
  if (x < 0.0) {
    if (x == floor(x)) return std::numeric_limits<double>::quiet_NaN();
    const double frac = x - std::trunc(x);
    result = -pi / std::tan(pi * frac);
    x = 1.0 - x;
  }
  if (x != x || x == HUGE_VAL) return x + result;
  while (x < 10.0) {
    result -= 1.0 / x;
    x += 1.0;
  }
  const double z = 1.0 / (x * x);
  const double series =
      z *
      (1.0 / 12 -
       z * (1.0 / 120 - z * (1.0 / 252 - z * (1.0 / 240 - z * (1.0 / 132 - z * (691.0 / 32760 - z / 12))))));
  return result + log(x) - 0.5 / x - series;
}

// trigamma, polygamma(1, x): x <= 0 by reflection psi1(x) = pi^2 / sin^2(pi x) - psi1(1 - x) (+inf at the
// poles; NaN at -inf, where the poles crowd and there is no limit, as PyTorch's), then the recurrence psi1(x)
// = 1 / x^2 + psi1(x + 1) up to x >= 10 and there the asymptotic series 1/x + 1/(2x^2) + sum_k B_2k /
// x^(2k+1) to B_18 (the next term, B_20 / x^20 of the result, is under 6e-18 of it). PyTorch's direct series
// (its calc_trigamma: six steps up, the series to B_6, 1e-8 relative); the Hurwitz zeta this replaced took a
// pow() per term, 25x PyTorch's time.
MT_HD_INLINE double trigamma_double(double x) {
  const double pi = 3.14159265358979323846;
  if (x != x) return x;
  double reflected = 0.0, sign = 1.0;
  if (x <= 0.0) {
    if (x == -HUGE_VAL) return x - x;  // NaN
    if (x == floor(x)) return HUGE_VAL;
    // sin^2(pi x) = sin^2(pi r), r = x - nearest integer (exact, |r| <= 1/2): pi r keeps r's digits, where pi
    // times x's fraction lost them near a pole (80 ulp at 0.012 from -40)
    const double sp = sin(pi * (x - floor(x + 0.5)));
    reflected = pi * pi / (sp * sp);
    sign = -1.0;
    x = 1.0 - x;
  }
  double sum = 0.0;
  for (; x < 10.0; x += 1.0) sum += 1.0 / (x * x);
  const double z = 1.0 / (x * x);
  const double b =
      1.0 +
      z * (1.0 / 6 -
           z * (1.0 / 30 -
                z * (1.0 / 42 -
                     z * (1.0 / 30 -
                          z * (5.0 / 66 - z * (691.0 / 2730 -
                                               z * (7.0 / 6 - z * (3617.0 / 510 - z * (43867.0 / 798)))))))));
  return reflected + sign * (sum + (b / x + 0.5 * z));
}

// polygamma(n, x) = (-1)^(n+1) n! zeta(n + 1, x) for n >= 2; n = 1 is trigamma's series
MT_HD_INLINE double polygamma_double(int64_t n, double x) {
  if (n == 0) return digamma_double(x);
  if (n == 1) return trigamma_double(x);
  // 171! overflows double: past it n! is inf at once (as PyTorch's exp(lgamma(n + 1))), so the time does not
  // grow with n; the result is then inf, or NaN where zeta underflows to 0
  double fact = n > 170 ? HUGE_VAL : 1.0;
  for (int64_t k = 2; k <= n && n <= 170; ++k) fact *= static_cast<double>(k);
  return ((n % 2) ? 1.0 : -1.0) * fact * hurwitz_zeta(static_cast<double>(n + 1), x);
}

// Modified Bessel functions of the first kind, orders n = 0 and 1, and their exp(-|x|)-scaled forms:
// Cephes' Chebyshev expansions (kernels/BesselCoeffs.h; PyTorch's calc_i0 / calc_i1e evaluate the same) of
// exp(-x) I_n(x) on [0, 8] in x/2 - 2 and of exp(-x) sqrt(x) I_n(x) on (8, inf) in 32/x - 2, by Clenshaw's
// recurrence in Cephes' order (chbevl): 25-30 multiply-adds where the power series it replaced took up to
// forty divisions. The AVX2 table runs the same expansions sixteen lanes at a time (cpu/vec/bessel_i.h).
template <int N>
MT_HD_INLINE double bessel_chebyshev(double y, const double (&c)[N]) {
  double b0 = c[0], b1 = 0.0, b2 = 0.0;
  for (int i = 1; i < N; ++i) {
    b2 = b1;
    b1 = b0;
    b0 = y * b1 - b2 + c[i];
  }
  return 0.5 * (b0 - b2);
}
// I_n(x) (scaled: exp(-|x|) I_n(x)); I_1 is odd (I_1(-0) = +0), I_0 even; NaN takes the (8, inf) branch and
// stays NaN. exp(|x|) overflows from 709.78, I_n(x) only from 713.99: there exp(|x|/2) is applied twice.
MT_HD_INLINE double bessel_i(double x, int n, bool scaled) {
  constexpr double i0_small[] = {MT_BESSEL_I0E_SMALL};
  constexpr double i0_large[] = {MT_BESSEL_I0E_LARGE};
  constexpr double i1_small[] = {MT_BESSEL_I1E_SMALL};
  constexpr double i1_large[] = {MT_BESSEL_I1E_LARGE};
  const double ax = fabs(x);
  double r;
  if (ax <= 8.0) {
    const double y = 0.5 * ax - 2.0;
    r = n == 0 ? bessel_chebyshev(y, i0_small) : bessel_chebyshev(y, i1_small) * ax;
  } else {
    const double y = 32.0 / ax - 2.0;
    r = (n == 0 ? bessel_chebyshev(y, i0_large) : bessel_chebyshev(y, i1_large)) / sqrt(ax);
  }
  if (!scaled) {
    if (ax > 709.0) {
      const double h = exp(0.5 * ax);
      r = ax == HUGE_VAL ? HUGE_VAL : h * (h * r);  // inf * (inf * 0) would be NaN
    } else {
      r *= exp(ax);
    }
  }
  return (n == 1 && x < 0.0) ? -r : r;
}

// float32 erfinv on the CPU: the vector kernels' rational (|y| <= 0.95) or polynomial in double
// (kernels/cpu/vec/f32_via_f64.h, within 0.5 + 0.004 ulp after the one rounding to float) element by element,
// without erfinv_double's Newton step (the old refinement loop cost 50x PyTorch's float loop at
// MINITORCH_CPU_CAPABILITY=default). CUDA rounds its double erfinv.
template <typename T>
MT_HD_INLINE T erfinv_of(T x) {
  return static_cast<T>(erfinv_double(static_cast<double>(x)));
}
#if !defined(__CUDACC__)
template <>
inline float erfinv_of<float>(float y) {
  const double a = std::fabs(static_cast<double>(y));
  if (!(a < 1.0)) return a == 1.0 ? std::copysign(HUGE_VALF, y) : std::numeric_limits<float>::quiet_NaN();
  if (a <= 0.95) return std::copysign(static_cast<float>(a * erfinv_rational_d(a * a)), y);  // keeps -0
  const double w = -std::log((1.0 - a) * (1.0 + a));
  const double r = a * (w < 5.0 ? erfinv_central_d(w - 2.5) : erfinv_tail_d(std::sqrt(w) - 3.0));
  return std::copysign(static_cast<float>(r), y);
}
#endif
MT_UNARY_FUNCTOR(Erfinv, erfinv_of(x))
MT_UNARY_FUNCTOR(I0, static_cast<T>(bessel_i(static_cast<double>(x), 0, false)))
MT_UNARY_FUNCTOR(SpecialI0E, static_cast<T>(bessel_i(static_cast<double>(x), 0, true)))
MT_UNARY_FUNCTOR(SpecialI1, static_cast<T>(bessel_i(static_cast<double>(x), 1, false)))
MT_UNARY_FUNCTOR(SpecialI1E, static_cast<T>(bessel_i(static_cast<double>(x), 1, true)))
MT_UNARY_FUNCTOR(Digamma, static_cast<T>(digamma_double(static_cast<double>(x))))
// angle of a real number, PyTorch's angle_impl: NaN kept, pi for negatives, 0 for the rest (-0 included)
MT_UNARY_FUNCTOR(AngleReal, x != x ? x : (x < T(0) ? static_cast<T>(3.14159265358979323846) : T(0)))

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
// torch.signbit (its Python wrapper, _composite_math.py, refuses complex): the sign bit itself, so -0.0 and a
// NaN with its sign set count, as PyTorch's std::signbit; integers below zero (never for unsigned and bool)
struct SignBit {
  template <typename T>
  MT_HD_INLINE bool operator()(T x) const {
    if constexpr (is_int_v<T>) {
      if constexpr (std::is_signed_v<T>)
        return x < T(0);
      else
        return false;
    } else if constexpr (sizeof(T) == 4) {
      // the bit itself: GCC 12's vectorizer hits an internal error on std::signbit after a bfloat16 widening
      uint32_t u;
      std::memcpy(&u, &x, sizeof u);
      return (u & 0x80000000u) != 0;
    } else if constexpr (sizeof(T) == 8) {
      uint64_t u;
      std::memcpy(&u, &x, sizeof u);
      return (u & 0x8000000000000000ull) != 0;
    } else {
      return std::signbit(static_cast<float>(x));
    }
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

// integers wrap on overflow, as PyTorch's (core/WrapMath.h)
MT_BINARY_FUNCTOR(Add, T, wrap_add(a, b))
MT_BINARY_FUNCTOR(Sub, T, wrap_sub(a, b))
MT_BINARY_FUNCTOR(Mul, T, wrap_mul(a, b))
MT_BINARY_FUNCTOR(TrueDiv, T, a / b)
MT_BINARY_FUNCTOR(Atan2, T, std::atan2(a, b))
// PyTorch's _prelu_kernel: x where x > 0, else weight * x (a NaN x stays NaN)
MT_BINARY_FUNCTOR(Prelu, T, a > T(0) ? a : b * a)
MT_BINARY_FUNCTOR(Copysign, T, std::copysign(a, b))
// torch.heaviside: b where a is 0, else 1 for a > 0 and 0 below (and at NaN), as PyTorch's kernel
MT_BINARY_FUNCTOR(Heaviside, T, a == T(0) ? b : static_cast<T>(a > T(0)))
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

// log(exp(a) + exp(b)) as max + log1p(exp(-|a - b|)), so it overflows only where the result does; equal
// infinities give that infinity (not inf - inf = NaN) and a NaN on either side gives NaN. Base2: log2(2^a +
// 2^b), the log1p divided by ln 2 (a multiply by 1 / ln 2 would fuse with the add into one FMA where the
// compiler contracts, CUDA's included). Integer dtypes are refused before any kernel runs (check_binary), as
// PyTorch has no integer kernel.
template <bool Base2>
struct LogaddexpOf {
  template <typename T>
  MT_HD_INLINE T operator()(T a, T b) const {
    if constexpr (is_int_v<T>) {
      return a;
    } else {
      if (std::isinf(a) && a == b) return a;
      const T m = a > b ? a : b;
      if constexpr (Base2)
        return m + std::log1p(std::exp2(-std::abs(a - b))) / T(0.6931471805599453);
      else
        return m + std::log1p(std::exp(-std::abs(a - b)));
    }
  }
};
using Logaddexp = LogaddexpOf<false>;
using Logaddexp2 = LogaddexpOf<true>;
// x * log(y), 0 where x == 0 (even for y = 0 or y < 0) and NaN where y is NaN, as PyTorch's
struct Xlogy {
  template <typename T>
  MT_HD_INLINE T operator()(T x, T y) const {
    if constexpr (is_int_v<T>) {
      return x;  // integers compute in the default float dtype (the schema's `dtype: div`)
    } else {
      if (y != y) return y;
      if (x == T(0)) return T(0);
      return x * std::log(y);
    }
  }
};

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
// Shifts as PyTorch's kernels: b read as signed (a uint8 of 128 or more is negative); a left shift by a
// negative amount or by the width or more is 0, a right shift so fills with the sign (0 for unsigned). The
// left shift runs in unsigned, where bits shifted out are dropped instead of overflowing.
// On the CPU, 8- and 16-bit types shift as a barrel shifter: a constant shift by 1, 2, 4 (8, 16) taken where
// the amount has that bit, the out-of-range amounts as a select. x86 has no variable shift of 8- or 16-bit
// lanes before AVX-512, and GCC narrows a shift of the widened value back to them, so the plain form stays
// scalar (uint8 a << s at 0.56 of PyTorch's speed, whose vector kernel widens to wider lanes); the constant
// shifts and selects vectorize. The same values: a shift by s is the shifts by s's set bits in turn.
template <typename T>
MT_HD_INLINE constexpr bool barrel_shift_v() {
#if defined(__CUDA_ARCH__)
  return false;
#else
  return sizeof(T) <= 2;
#endif
}
struct LeftShift {
  template <typename T>
  MT_HD_INLINE T operator()(T a, T b) const {
    if constexpr (is_int_v<T> && !std::is_same_v<T, bool>) {
      using U = std::make_unsigned_t<T>;
      constexpr T width = static_cast<T>(sizeof(T) * 8);
      if constexpr (barrel_shift_v<T>()) {
        const U s = static_cast<U>(b);  // a negative amount reads as width or more
        U r = static_cast<U>(a);
        r = (s & 1) ? static_cast<U>(r << 1) : r;
        r = (s & 2) ? static_cast<U>(r << 2) : r;
        r = (s & 4) ? static_cast<U>(r << 4) : r;
        if constexpr (sizeof(T) == 2) r = (s & 8) ? static_cast<U>(r << 8) : r;
        return static_cast<T>(s < static_cast<U>(width) ? r : U(0));
      } else {
        if (static_cast<std::make_signed_t<T>>(b) < 0 || b >= width) return T(0);
        return static_cast<T>(static_cast<U>(a) << b);
      }
    } else {
      return a;
    }
  }
};
struct RightShift {
  template <typename T>
  MT_HD_INLINE T operator()(T a, T b) const {
    if constexpr (is_int_v<T> && !std::is_same_v<T, bool>) {
      constexpr T top = static_cast<T>(sizeof(T) * 8 - (std::is_signed_v<T> ? 1 : 0));
      if constexpr (barrel_shift_v<T>()) {
        using U = std::make_unsigned_t<T>;
        U s = static_cast<U>(b);  // a negative amount reads as top or more: shifts by top
        s = s < static_cast<U>(top) ? s : static_cast<U>(top);
        T r = a;
        r = (s & 1) ? static_cast<T>(r >> 1) : r;
        r = (s & 2) ? static_cast<T>(r >> 2) : r;
        r = (s & 4) ? static_cast<T>(r >> 4) : r;
        if constexpr (top >= 8) r = (s & 8) ? static_cast<T>(r >> 8) : r;
        if constexpr (top >= 16) r = (s & 16) ? static_cast<T>(r >> 16) : r;
        return r;
      } else {
        if (static_cast<std::make_signed_t<T>>(b) < 0 || b >= top) return static_cast<T>(a >> top);
        return static_cast<T>(a >> b);
      }
    } else {
      return a;
    }
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
    else if constexpr (is_int_v<T>) {
      // a negative exponent (a tensor's: the front end refuses a Python number's) truncates 1 / a**|b| to an
      // integer, as PyTorch's kernel: 1 and -1 keep their magnitude, every other base gives 0
      if constexpr (std::is_signed<T>::value) {
        if (b < 0) return a == T(1) ? T(1) : a == T(-1) ? ((b & 1) ? T(-1) : T(1)) : T(0);
      }
      T result = 1;
      using U = typename std::make_unsigned<T>::type;
      U e = static_cast<U>(b);
      T base = a;
      while (e) {
        if (e & 1) result = wrap_mul(result, base);
        base = wrap_mul(base, base);
        e >>= 1;
      }
      return result;
    } else
      return b == T(2) ? a * a : std::pow(a, b);  // x ** 2 exact, as the vector path and PyTorch's kernel
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
// torch.fmax / fmin (C's fmax/fmin): the number where one side is NaN, NaN only where both are; integers and
// bool as maximum/minimum. Selects, which vectorize where std::fmax stays a call
struct Fmax {
  template <typename T>
  MT_HD_INLINE T operator()(T a, T b) const {
    if constexpr (is_int_v<T>)
      return a > b ? a : b;
    else
      return (a != a) ? b : ((b != b || a > b) ? a : b);
  }
};
struct Fmin {
  template <typename T>
  MT_HD_INLINE T operator()(T a, T b) const {
    if constexpr (is_int_v<T>)
      return a < b ? a : b;
    else
      return (a != a) ? b : ((b != b || a < b) ? a : b);
  }
};

// hypot in one pass (python/minitorch/_composite_math.py spelled it in nine)
// float: in double, where neither the squares nor their sum can overflow or underflow; double: scaled by the
// larger magnitude. An infinite side gives inf even beside NaN, as C's hypot.
struct Hypot {
  template <typename T>
  MT_HD_INLINE T operator()(T a, T b) const {
    const T x = std::abs(a), y = std::abs(b);
    T r;
    if constexpr (sizeof(T) <= 4) {
      const double dx = x, dy = y;
      r = static_cast<T>(std::sqrt(dx * dx + dy * dy));
    } else {
      const T big = x > y ? x : y, small = x > y ? y : x;
      const T q = small / (big == T(0) ? T(1) : big);
      r = big * std::sqrt(T(1) + q * q);
      r = (x != x || y != y) ? a + b : r;
    }
    const T inf = T(1) / T(0);
    return (x == inf) | (y == inf) ? inf : r;
  }
};
// frexp on the bits: x = m 2^e with |m| in [1/2, 1); 0, inf and NaN give (x, 0), as C's frexp. Subnormals are
// scaled into the normal range first (2^(mantissa bits + 1) is exact) and the exponent corrected. The same
// decomposition in any float type, so half and bfloat16 through float give their own (m has their bits).
template <typename T>
MT_HD_INLINE T frexp_bits(T x, T& exponent) {
  if constexpr (std::is_floating_point<T>::value) {
    using U = typename std::conditional<sizeof(T) == 8, uint64_t, uint32_t>::type;
    constexpr int kMant = sizeof(T) == 8 ? 52 : 23;
    constexpr int kBias = sizeof(T) == 8 ? 1023 : 127;
    constexpr U kExpMask = sizeof(T) == 8 ? 0x7ff : 0xff;
    const T ax = x < T(0) ? -x : x;
    const bool sub = ax < (sizeof(T) == 8 ? T(2.2250738585072014e-308) : T(1.17549435e-38f));
    const T xs = sub ? x * (sizeof(T) == 8 ? T(9007199254740992.0) : T(16777216.0f)) : x;
    U b;
    memcpy(&b, &xs, sizeof(T));
    const int field = static_cast<int>((b >> kMant) & kExpMask);
    const bool regular = x != T(0) && field != static_cast<int>(kExpMask);  // not 0, inf or NaN
    exponent = regular ? T(field - (kBias - 1) - (sub ? kMant + 1 : 0)) : T(0);
    b = (b & ~(kExpMask << kMant)) | (static_cast<U>(kBias - 1) << kMant);
    T m;
    memcpy(&m, &b, sizeof(T));
    return regular ? m : x;
  } else {
    exponent = T(0);
    return x;
  }
}
struct FrexpMantissa {
  template <typename T>
  MT_HD_INLINE T operator()(T x) const {
    T e;
    return frexp_bits(x, e);
  }
};
struct FrexpExponent {
  template <typename T>
  MT_HD_INLINE T operator()(T x) const {
    T e;
    frexp_bits(x, e);
    return e;
  }
};
// nextafter on the bits, float and double (the Python wrapper takes half and bfloat16 through its bit
// composite: their opmath here is float). A float's bits read as an integer move one unit away from
// zero exactly when the float does, so it is one add of +-1 (+-max steps to +-inf, +-inf toward a finite y to
// +-max); zero steps to the smallest subnormal of y's sign, equal operands give y (nextafter(0, -0) = -0), a
// NaN on either side NaN. Branch-free, so the CPU loop vectorizes it (the composite took twelve passes).
struct Nextafter {
  template <typename T>
  MT_HD_INLINE T operator()(T a, T b) const {
    if constexpr (std::is_floating_point<T>::value) {
      // unsigned, so the step wraps as two's complement would, with no signed overflow
      using U = typename std::conditional<sizeof(T) == 8, uint64_t, uint32_t>::type;
      const U sign = U(1) << (8 * sizeof(T) - 1);
      U i;
      memcpy(&i, &a, sizeof(T));
      i += ((b > a) == (a > T(0))) ? U(1) : ~U(0);
      i = a == T(0) ? (b > T(0) ? U(1) : (sign | U(1))) : i;
      T r;
      memcpy(&r, &i, sizeof(T));
      r = a == b ? b : r;
      return (a != a || b != b) ? a + b : r;
    } else {
      return a;
    }
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
// F.logsigmoid, PyTorch's split min(x, 0) - log1p(exp(-|x|)) (exp never exceeds 1): softplus(-|x|) with
// beta 1 rounds exactly as this log1p(exp(.)), so the loss's pair (nn/functional/_activation.py) keeps its
// bits
struct LogSigmoid {
  template <typename T>
  MT_HD_INLINE T operator()(T x) const {
    const T m = x > T(0) ? T(0) : x;
    const T nabs = x > T(0) ? -x : x;
    return m - std::log1p(exp(nabs));
  }
};
struct LeakyRelu {
  double slope;
  template <typename T>
  MT_HD_INLINE T operator()(T x) const {
    return x > T(0) ? x : x * T(slope);
  }
};
// torch.logit in one pass (its Python wrapper, _composite_math.py, sends float32/float64 inputs here): x
// clamped first where eps >= 0 (PyTorch's order: below eps goes to eps, else above 1 - eps, computed in T, to
// it; NaN passes; a negative or NaN eps clamps nothing, as its kernel), then log(x / (1 - x)). LogitRatio is
// the part before the log, which the CPU's vector path hands to the table's log row.
struct LogitRatio {
  double eps;
  template <typename T>
  MT_HD_INLINE T operator()(T x) const {
    const T lo = static_cast<T>(eps), hi = T(1) - lo;
    if (eps >= 0) x = x < lo ? lo : (x > hi ? hi : x);
    return x / (T(1) - x);
  }
};
struct Logit {
  double eps;
  template <typename T>
  MT_HD_INLINE T operator()(T x) const {
    return std::log(LogitRatio{eps}(x));
  }
};
// PyTorch's tests, the bounds in the input's opmath: 0 inside [-lambd, lambd] (a NaN x is outside it and
// stays NaN); x where x <= threshold fails (a NaN x or threshold keeps x). `&` of the two compares, not `&&`:
// one select per element, which the compiler vectorizes.
struct Hardshrink {
  double lambd;
  template <typename T>
  MT_HD_INLINE T operator()(T x) const {
    return ((x >= -T(lambd)) & (x <= T(lambd))) ? T(0) : x;
  }
};
// PyTorch's round.decimals in one pass: nearbyint(x * ten) / ten, or for negative decimals nearbyint(x / ten)
// * ten, in the opmath type (ten, 10^|decimals|, rounded to it as PyTorch's kernel's static_cast does).
struct RoundDecimals {
  double ten;
  bool negative;
  template <typename T>
  MT_HD_INLINE T operator()(T x) const {
    const T t = static_cast<T>(ten);
    return negative ? std::nearbyint(x / t) * t : std::nearbyint(x * t) / t;
  }
};
// clamp of a float32/float64 tensor by two numbers (ops/elementwise.cpp's fast path; a missing bound is -inf
// or +inf, a NaN bound takes the general Clamp): a NaN x fails both compares and stays NaN. Two selects per
// element in a unary loop, where the general path runs a ternary loop over two broadcast bound tensors.
struct ClampScalar {
  double lo, hi;
  template <typename T>
  MT_HD_INLINE T operator()(T x) const {
    const T v = x < T(lo) ? T(lo) : x;
    return v > T(hi) ? T(hi) : v;
  }
};
// PyTorch's softshrink: x - lambd above lambd, x + lambd below -lambd, x * 0 between (the sign of a zero and
// a NaN x kept). All three are computed and one selected, so the loop vectorizes.
struct Softshrink {
  double lambd;
  template <typename T>
  MT_HD_INLINE T operator()(T x) const {
    const T l = T(lambd);
    const T up = x - l, down = x + l, zero = x * T(0);
    return x > l ? up : (x < -l ? down : zero);
  }
};
struct Threshold {
  double threshold, value;
  template <typename T>
  MT_HD_INLINE T operator()(T x) const {
    return x <= T(threshold) ? T(value) : x;
  }
};

// nan_to_num: NaN, +inf and -inf replaced by the three values, converted to the compute type. The
// conversions first and three independent selects (the cases exclude each other), as PyTorch's vector
// kernel: a conversion inside a branch of `?:` is not if-converted (it may raise), which kept the loop
// scalar, and the nested form compiled to five compares and three masks (the loop alone: 7.6 us against 5.5
// on 256x256 float32)
struct NanToNum {
  double nan, posinf, neginf;
  template <typename T>
  MT_HD_INLINE T operator()(T x) const {
    const T inf = T(1) / T(0);
    const T vn = T(nan), vp = T(posinf), vm = T(neginf);
    T r = x == -inf ? vm : x;
    r = x == inf ? vp : r;
    return x != x ? vn : r;
  }
};

// PyTorch's elu kernel: the parameters in the compute type; x < 0 fails for NaN, which keeps x * poscoef
struct Elu {
  double negcoef, poscoef, input_scale;
  template <typename T>
  MT_HD_INLINE T operator()(T x) const {
    return x < T(0) ? std::expm1(x * T(input_scale)) * T(negcoef) : x * T(poscoef);
  }
};

struct Polygamma {
  int64_t n;
  template <typename T>
  MT_HD_INLINE T operator()(T x) const {
    return static_cast<T>(polygamma_double(n, static_cast<double>(x)));
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

// PyTorch's lerp: counted from self while |w| < 1/2 and back from end beyond, so that both ends are exact; in
// opmath (float for half and bfloat16), rounded once.
template <typename T>
MT_HD_INLINE T lerp_magnitude(T w) {
  return w < T(0) ? -w : w;
}
#if !defined(__CUDA_ARCH__)
template <typename T>
inline T lerp_magnitude(std::complex<T> w) {
  return std::abs(w);
}
#endif
template <typename O, typename W>
MT_HD_INLINE O lerp_of(O a, O b, W w) {
  const O d = b - a;
  return lerp_magnitude(w) < decltype(lerp_magnitude(w))(0.5) ? a + w * d : b - d * (W(1) - w);
}
// a tensor weight: three operands of one dtype
struct Lerp {
  template <typename S>
  MT_HD_INLINE S operator()(S a, S b, S w) const {
    using op_t = opmath_t<S>;
    return static_cast<S>(lerp_of(static_cast<op_t>(a), static_cast<op_t>(b), static_cast<op_t>(w)));
  }
};
// a number weight, held in opmath precision (W: opmath of the dtype)
template <typename W>
struct LerpScalar {
  W w;
  template <typename S>
  MT_HD_INLINE S operator()(S a, S b) const {
    return static_cast<S>(lerp_of(static_cast<W>(a), static_cast<W>(b), w));
  }
};

// PyTorch's addcmul / addcdiv kernels: self + value * t1 * t2 (/ t2), the value multiplied in first, in
// opmath (W, float for half and bfloat16), rounded once
template <typename W>
struct Addcmul {
  W value;
  template <typename S>
  MT_HD_INLINE S operator()(S a, S b, S c) const {
    return static_cast<S>(static_cast<W>(a) + value * static_cast<W>(b) * static_cast<W>(c));
  }
};
template <typename W>
struct Addcdiv {
  W value;
  template <typename S>
  MT_HD_INLINE S operator()(S a, S b, S c) const {
    return static_cast<S>(static_cast<W>(a) + value * static_cast<W>(b) / static_cast<W>(c));
  }
};

}  // namespace fn
}  // namespace mt

#include "kernels/special_functors.h"  // torch.special's long tail (Bessel J/Y/K, Airy, polynomials)
