// CPU elementwise kernels for complex64/complex128 over std::complex: the ops PyTorch computes on complex
// numbers (arithmetic, exp/log/powers, trigonometric and hyperbolic functions, abs, the nan/inf tests).
// Anything else refuses with PyTorch's "not implemented for 'ComplexFloat'".
#include "kernels/cpu/Complex.h"

#include <cmath>
#include <complex>
#include <limits>

#include "core/Exception.h"
#include "kernels/cpu/Loops.h"

namespace mt {
namespace {

template <typename T>
bool is_nan_c(const std::complex<T>& z) {
  return std::isnan(z.real()) || std::isnan(z.imag());
}

// sqrt/log & co. in std:: follow C99 Annex G (the branch cuts and signed zeros NumPy and PyTorch use).
template <typename T>
std::complex<T> unary_value(UnaryOp op, std::complex<T> z) {
  using C = std::complex<T>;
  switch (op) {
    case UnaryOp::neg:
      return -z;
    case UnaryOp::exp:
      return std::exp(z);
    case UnaryOp::exp2:
      return std::pow(C(T(2)), z);
    case UnaryOp::expm1: {
      // exp(z) - 1 loses everything for small |z|: expm1 on the real part keeps the digits
      T er = std::expm1(z.real()), c = std::cos(z.imag()), s = std::sin(z.imag());
      T cm1 = -T(2) * std::sin(z.imag() / 2) * std::sin(z.imag() / 2);  // cos(y) - 1 without cancellation
      return C(er * c + cm1, (er + T(1)) * s);
    }
    case UnaryOp::log:
      return std::log(z);
    case UnaryOp::log2:
      return std::log(z) / std::log(T(2));
    case UnaryOp::log10:
      return std::log10(z);
    case UnaryOp::log1p: {
      // log(1 + z) with the real part computed as log1p of |1+z|^2 - 1 when z is small
      T x = z.real(), y = z.imag();
      if (std::abs(x) < T(0.5) && std::abs(y) < T(0.5)) {
        T re = std::log1p(x * (T(2) + x) + y * y) / T(2);
        return C(re, std::atan2(y, T(1) + x));
      }
      return std::log(C(T(1) + x, y));
    }
    case UnaryOp::sqrt:
      return std::sqrt(z);
    case UnaryOp::rsqrt:
      return C(T(1)) / std::sqrt(z);
    case UnaryOp::reciprocal:
      return C(T(1)) / z;
    case UnaryOp::sin:
      return std::sin(z);
    case UnaryOp::cos:
      return std::cos(z);
    case UnaryOp::tan:
      return std::tan(z);
    case UnaryOp::asin:
      return std::asin(z);
    case UnaryOp::acos:
      return std::acos(z);
    case UnaryOp::atan:
      return std::atan(z);
    case UnaryOp::sinh:
      return std::sinh(z);
    case UnaryOp::cosh:
      return std::cosh(z);
    case UnaryOp::tanh:
      return std::tanh(z);
    case UnaryOp::asinh:
      return std::asinh(z);
    case UnaryOp::acosh:
      return std::acosh(z);
    case UnaryOp::atanh:
      return std::atanh(z);
    case UnaryOp::sigmoid:
      return C(T(1)) / (C(T(1)) + std::exp(-z));
    case UnaryOp::sinc: {  // PyTorch's: 1 at 0, else sin(pi z) / (pi z)
      if (z == C(T(0))) return C(T(1));
      const C p = z * T(3.14159265358979323846);
      return std::sin(p) / p;
    }
    default:
      MT_INTERNAL_ASSERT(false, "complex unary op without a value");
  }
}

template <typename T>
void unary_loop(const TensorIter& it, UnaryOp op) {
  using C = std::complex<T>;
  const ScalarType out_dt = it.dtypes[0];
  if (op == UnaryOp::abs) {
    it.for_each([&](char** d, const int64_t* st, int64_t n) {
      for (int64_t i = 0; i < n; ++i)
        *reinterpret_cast<T*>(d[0] + i * st[0]) = std::abs(*reinterpret_cast<const C*>(d[1] + i * st[1]));
    });
    return;
  }
  if (out_dt == ScalarType::Bool) {  // isnan / isinf / isfinite
    it.for_each([&](char** d, const int64_t* st, int64_t n) {
      for (int64_t i = 0; i < n; ++i) {
        const C z = *reinterpret_cast<const C*>(d[1] + i * st[1]);
        bool v = op == UnaryOp::isnan   ? is_nan_c(z)
                 : op == UnaryOp::isinf ? (std::isinf(z.real()) || std::isinf(z.imag()))
                                        : (std::isfinite(z.real()) && std::isfinite(z.imag()));
        *reinterpret_cast<bool*>(d[0] + i * st[0]) = v;
      }
    });
    return;
  }
  it.for_each([&](char** d, const int64_t* st, int64_t n) {
    for (int64_t i = 0; i < n; ++i)
      *reinterpret_cast<C*>(d[0] + i * st[0]) =
          unary_value<T>(op, *reinterpret_cast<const C*>(d[1] + i * st[1]));
  });
}

// Division by Smith's method: no overflow for large denominators (std::complex's operator/ may use the
// textbook formula under -ffast-math-like flags).
template <typename T>
std::complex<T> cdiv(std::complex<T> a, std::complex<T> b) {
  T c = b.real(), d = b.imag();
  if (std::abs(c) >= std::abs(d)) {
    if (c == T(0) && d == T(0)) return a / b;  // 0 divisor: inf/nan as std::complex gives them
    T r = d / c, den = c + d * r;
    return {(a.real() + a.imag() * r) / den, (a.imag() - a.real() * r) / den};
  }
  T r = c / d, den = c * r + d;
  return {(a.real() * r + a.imag()) / den, (a.imag() * r - a.real()) / den};
}

// z ** n by repeated squaring (exp(n log z) loses the last bits: (1+2j) ** 2 gave -3.0000005+3.9999998j)
template <typename T>
std::complex<T> int_pow(std::complex<T> z, int n) {
  using C = std::complex<T>;
  const bool inv = n < 0;
  unsigned k = static_cast<unsigned>(inv ? -n : n);
  C r(T(1)), base = z;
  while (k) {
    if (k & 1u)
      r = C(r.real() * base.real() - r.imag() * base.imag(), r.real() * base.imag() + r.imag() * base.real());
    base = C(base.real() * base.real() - base.imag() * base.imag(), T(2) * base.real() * base.imag());
    k >>= 1u;
  }
  return inv ? cdiv<T>(C(T(1)), r) : r;
}

// log(exp(a) + exp(b)) as PyTorch's complex kernel: the operand with the larger real part factored out, NaN
// spreading, and real parts that are both -inf or both +inf handled apart (their difference is NaN)
template <typename T>
std::complex<T> logaddexp_c(std::complex<T> a, std::complex<T> b) {
  using C = std::complex<T>;
  if (is_nan_c(a)) return C(std::numeric_limits<T>::quiet_NaN(), std::numeric_limits<T>::quiet_NaN());
  if (is_nan_c(b)) return C(std::numeric_limits<T>::quiet_NaN(), std::numeric_limits<T>::quiet_NaN());
  const C lo = a.real() < b.real() ? a : b, hi = a.real() < b.real() ? b : a;
  if (!std::isfinite(lo.real()) && lo.real() == hi.real()) {
    if (lo.real() < T(0)) return lo;
    return unary_value(UnaryOp::log, unary_value(UnaryOp::exp, lo) + unary_value(UnaryOp::exp, hi));
  }
  return unary_value(UnaryOp::log1p, unary_value(UnaryOp::exp, lo - hi)) + hi;
}

template <typename T>
void binary_loop(const TensorIter& it, BinaryOp op) {
  using C = std::complex<T>;
  if (op == BinaryOp::eq || op == BinaryOp::ne) {
    const bool want = op == BinaryOp::eq;
    it.for_each([&](char** d, const int64_t* st, int64_t n) {
      for (int64_t i = 0; i < n; ++i) {
        const C a = *reinterpret_cast<const C*>(d[1] + i * st[1]);
        const C b = *reinterpret_cast<const C*>(d[2] + i * st[2]);
        *reinterpret_cast<bool*>(d[0] + i * st[0]) = (a == b) == want;
      }
    });
    return;
  }
  auto body = [&](auto f) {
    it.for_each([&](char** d, const int64_t* st, int64_t n) {
      for (int64_t i = 0; i < n; ++i)
        *reinterpret_cast<C*>(d[0] + i * st[0]) =
            f(*reinterpret_cast<const C*>(d[1] + i * st[1]), *reinterpret_cast<const C*>(d[2] + i * st[2]));
    });
  };
  switch (op) {
    case BinaryOp::add:
      return body([](C a, C b) { return a + b; });
    case BinaryOp::sub:
      return body([](C a, C b) { return a - b; });
    case BinaryOp::mul:
      // the plain product (std::complex's operator* adds C99 Annex G's inf recovery, 5x slower)
      return body([](C a, C b) {
        return C(a.real() * b.real() - a.imag() * b.imag(), a.real() * b.imag() + a.imag() * b.real());
      });
    case BinaryOp::div:
      return body([](C a, C b) { return cdiv<T>(a, b); });
    case BinaryOp::pow:
      return body([](C a, C b) {
        if (b == C(T(0))) return C(T(1));  // z ** 0 is 1, 0 ** 0 included
        if (b.imag() == T(0) && b.real() == std::trunc(b.real()) && std::abs(b.real()) <= T(64))
          return int_pow(a, int(b.real()));  // exact for small integer powers (z ** 2), as PyTorch's
        if (a == C(T(0))) return b.real() > T(0) ? C(T(0)) : std::pow(a, b);
        return std::pow(a, b);
      });
    case BinaryOp::logaddexp:
      return body([](C a, C b) { return logaddexp_c<T>(a, b); });
    default:
      MT_INTERNAL_ASSERT(false, "complex binary op without a value");
  }
}

[[noreturn]] void refuse(const char* what, ScalarType dt) {
  throw_error(ErrorKind::NotImplemented,
              str("\"", what, "_cpu\" not implemented for '", dtype_short_name(dt), "'"));
}

}  // namespace

void complex_unary_cpu(const TensorIter& it, UnaryOp op) {
  const ScalarType dt = it.dtypes[1];
  const bool ok = complex_unary_supported(op) || op == UnaryOp::abs || op == UnaryOp::isnan ||
                  op == UnaryOp::isinf || op == UnaryOp::isfinite;
  if (!ok) refuse(unary_op_name(op), dt);
  if (dt == ScalarType::ComplexFloat)
    unary_loop<float>(it, op);
  else
    unary_loop<double>(it, op);
}

void complex_binary_cpu(const TensorIter& it, BinaryOp op) {
  const ScalarType dt = it.dtypes[1];
  switch (op) {
    case BinaryOp::add:
    case BinaryOp::sub:
    case BinaryOp::mul:
    case BinaryOp::div:
    case BinaryOp::pow:
    case BinaryOp::eq:
    case BinaryOp::ne:
    case BinaryOp::logaddexp:
      break;
    default:
      refuse(binary_op_name(op), dt);
  }
  if (dt == ScalarType::ComplexFloat)
    binary_loop<float>(it, op);
  else
    binary_loop<double>(it, op);
}

namespace {

// n values of re and im (strides sr, si in elements; si 0 for a broadcast part) into n dense complex values.
template <typename T>
__attribute__((always_inline)) inline void interleave(T* o, const T* re, int64_t sr, const T* im, int64_t si,
                                                      int64_t n) {
  if (sr == 1 && si == 1) {
    for (int64_t i = 0; i < n; ++i) {
      o[2 * i] = re[i];
      o[2 * i + 1] = im[i];
    }
  } else if (sr == 1 && si == 0) {
    const T v = im[0];
    for (int64_t i = 0; i < n; ++i) {
      o[2 * i] = re[i];
      o[2 * i + 1] = v;
    }
  } else {
    for (int64_t i = 0; i < n; ++i) {
      o[2 * i] = re[i * sr];
      o[2 * i + 1] = im[i * si];
    }
  }
}
#ifdef MT_LOOPS_AVX2
template <typename T>
__attribute__((target("avx2"))) void interleave_avx2(T* o, const T* re, int64_t sr, const T* im, int64_t si,
                                                     int64_t n) {
  interleave(o, re, sr, im, si, n);
}
#endif

template <typename T>
void from_parts(const TensorIter& it) {
  constexpr int64_t kT = sizeof(T);
  it.for_each([](char** d, const int64_t* st, int64_t n) {
    T* o = reinterpret_cast<T*>(d[0]);
    const T* re = reinterpret_cast<const T*>(d[1]);
    const T* im = reinterpret_cast<const T*>(d[2]);
    if (st[0] != 2 * kT || st[1] % kT != 0 || st[2] % kT != 0) {  // a strided output: one value at a time
      for (int64_t i = 0; i < n; ++i) {
        T* z = reinterpret_cast<T*>(d[0] + i * st[0]);
        z[0] = *reinterpret_cast<const T*>(d[1] + i * st[1]);
        z[1] = *reinterpret_cast<const T*>(d[2] + i * st[2]);
      }
      return;
    }
#ifdef MT_LOOPS_AVX2
    if (n >= 16 && loops_use_avx2()) return interleave_avx2(o, re, st[1] / kT, im, st[2] / kT, n);
#endif
    interleave(o, re, st[1] / kT, im, st[2] / kT, n);
  });
}

}  // namespace

void complex_from_parts_cpu(const TensorIter& it) {
  if (it.dtypes[0] == ScalarType::ComplexFloat)
    from_parts<float>(it);
  else
    from_parts<double>(it);
}

}  // namespace mt
