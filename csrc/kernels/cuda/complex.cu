// CUDA elementwise kernels for complex64/complex128, the device side of kernels/cpu/complex.cpp: fills,
// conversions to, from and between complex dtypes, where, arithmetic and comparisons, and the unary ops the
// CPU computes on complex numbers. Storage is std::complex<T> on the host side; on the device the same bytes
// are read as ::cuda::std::complex<T> (libcu++: same layout and alignment, and __device__ transcendental
// functions with C99 Annex G branch cuts, as std:: on the CPU).
#include <cuda/std/complex>

#include "core/Exception.h"
#include "kernels/cuda/Complex.h"
#include "kernels/cuda/Loops.cuh"

namespace mt {
namespace {

template <typename T>
using Cx = ::cuda::std::complex<T>;

static_assert(sizeof(Cx<float>) == sizeof(std::complex<float>) && alignof(Cx<double>) == 16,
              "libcu++'s complex must share std::complex's layout");

[[noreturn]] void refuse(const char* what, ScalarType dt) {
  throw_error(ErrorKind::NotImplemented,
              str("\"", what, "_cuda\" not implemented for '", dtype_short_name(dt), "'"));
}

template <typename F>
void with_precision(ScalarType dt, F&& f) {
  if (dt == ScalarType::ComplexFloat)
    f(float{});
  else
    f(double{});
}

template <typename T>
struct FillC {
  Cx<T> v;
  __device__ __forceinline__ Cx<T> operator()() const { return v; }
};

// real -> complex (imaginary part 0) and complex -> complex of another precision
template <typename T>
struct ToComplex {
  template <typename S>
  __device__ __forceinline__ Cx<T> operator()(S x) const {
    return Cx<T>(static_cast<T>(x), T(0));
  }
  template <typename S>
  __device__ __forceinline__ Cx<T> operator()(Cx<S> z) const {
    return Cx<T>(static_cast<T>(z.real()), static_cast<T>(z.imag()));
  }
};

// complex -> real keeps the real part (the front end warns, as PyTorch does); -> bool is "not zero"
template <typename T>
struct RealPart {
  __device__ __forceinline__ T operator()(Cx<T> z) const { return z.real(); }
};
template <typename T>
struct NonZero {
  __device__ __forceinline__ bool operator()(Cx<T> z) const { return z.real() != T(0) || z.imag() != T(0); }
};

template <typename T>
__device__ __forceinline__ Cx<T> cmul(Cx<T> a, Cx<T> b) {
  // the plain product, as the CPU kernel (the Annex G inf recovery of operator* costs more than it gives)
  return Cx<T>(a.real() * b.real() - a.imag() * b.imag(), a.real() * b.imag() + a.imag() * b.real());
}

// Smith's division, as the CPU kernel; a zero divisor gives the inf/nan pattern of C99's __divdc3
template <typename T>
__device__ __forceinline__ Cx<T> cdiv(Cx<T> a, Cx<T> b) {
  const T c = b.real(), d = b.imag();
  if (::fabs(c) >= ::fabs(d)) {
    if (c == T(0) && d == T(0)) {
      const T s = ::copysign(::cuda::std::numeric_limits<T>::infinity(), c);
      return Cx<T>(s * a.real(), s * a.imag());
    }
    const T r = d / c, den = c + d * r;
    return Cx<T>((a.real() + a.imag() * r) / den, (a.imag() - a.real() * r) / den);
  }
  const T r = c / d, den = c * r + d;
  return Cx<T>((a.real() * r + a.imag()) / den, (a.imag() * r - a.real()) / den);
}

template <typename T>
__device__ Cx<T> cpow(Cx<T> a, Cx<T> b) {
  if (b.real() == T(0) && b.imag() == T(0)) return Cx<T>(T(1), T(0));
  if (b.imag() == T(0) && b.real() == ::trunc(b.real()) && ::fabs(b.real()) <= T(64)) {
    // z ** n by repeated squaring, exact for small integer powers (as the CPU kernel)
    const int n = static_cast<int>(b.real());
    unsigned k = static_cast<unsigned>(n < 0 ? -n : n);
    Cx<T> r(T(1), T(0)), base = a;
    while (k) {
      if (k & 1u) r = cmul(r, base);
      base = cmul(base, base);
      k >>= 1u;
    }
    return n < 0 ? cdiv(Cx<T>(T(1), T(0)), r) : r;
  }
  if (a.real() == T(0) && a.imag() == T(0) && b.real() > T(0)) return Cx<T>(T(0), T(0));
  return ::cuda::std::pow(a, b);
}

template <typename T>
struct BinaryC {
  BinaryOp op;
  __device__ Cx<T> operator()(Cx<T> a, Cx<T> b) const {
    switch (op) {
      case BinaryOp::add:
        return a + b;
      case BinaryOp::sub:
        return a - b;
      case BinaryOp::mul:
        return cmul(a, b);
      case BinaryOp::div:
        return cdiv(a, b);
      default:  // pow
        return cpow(a, b);
    }
  }
};

template <typename T>
struct CompareC {
  bool want_equal;
  __device__ __forceinline__ bool operator()(Cx<T> a, Cx<T> b) const {
    return (a.real() == b.real() && a.imag() == b.imag()) == want_equal;
  }
};

template <typename T>
__device__ Cx<T> unary_value(UnaryOp op, Cx<T> z) {
  using C = Cx<T>;
  switch (op) {
    case UnaryOp::neg:
      return -z;
    case UnaryOp::exp:
      return ::cuda::std::exp(z);
    case UnaryOp::exp2:
      return ::cuda::std::exp(z * T(0.693147180559945309417232121458176568));
    case UnaryOp::expm1: {
      // exp(z) - 1 without cancellation for small |z| (the CPU kernel's formula)
      const T er = ::expm1(z.real()), c = ::cos(z.imag()), s = ::sin(z.imag());
      const T h = ::sin(z.imag() / T(2)), cm1 = -T(2) * h * h;
      return C(er * c + cm1, (er + T(1)) * s);
    }
    case UnaryOp::log:
      return ::cuda::std::log(z);
    case UnaryOp::log2:
      return ::cuda::std::log(z) / T(0.693147180559945309417232121458176568);
    case UnaryOp::log10:
      return ::cuda::std::log10(z);
    case UnaryOp::log1p: {
      const T x = z.real(), y = z.imag();
      if (::fabs(x) < T(0.5) && ::fabs(y) < T(0.5))
        return C(::log1p(x * (T(2) + x) + y * y) / T(2), ::atan2(y, T(1) + x));
      return ::cuda::std::log(C(T(1) + x, y));
    }
    case UnaryOp::sqrt:
      return ::cuda::std::sqrt(z);
    case UnaryOp::rsqrt:
      return cdiv(C(T(1), T(0)), ::cuda::std::sqrt(z));
    case UnaryOp::reciprocal:
      return cdiv(C(T(1), T(0)), z);
    case UnaryOp::sin:
      return ::cuda::std::sin(z);
    case UnaryOp::cos:
      return ::cuda::std::cos(z);
    case UnaryOp::tan:
      return ::cuda::std::tan(z);
    case UnaryOp::asin:
      return ::cuda::std::asin(z);
    case UnaryOp::acos:
      return ::cuda::std::acos(z);
    case UnaryOp::atan:
      return ::cuda::std::atan(z);
    case UnaryOp::sinh:
      return ::cuda::std::sinh(z);
    case UnaryOp::cosh:
      return ::cuda::std::cosh(z);
    case UnaryOp::tanh:
      return ::cuda::std::tanh(z);
    case UnaryOp::asinh:
      return ::cuda::std::asinh(z);
    case UnaryOp::acosh:
      return ::cuda::std::acosh(z);
    case UnaryOp::atanh:
      return ::cuda::std::atanh(z);
    case UnaryOp::sinc: {  // the CPU kernel's: 1 at 0, else sin(pi z) / (pi z)
      if (z.real() == T(0) && z.imag() == T(0)) return C(T(1), T(0));
      const C p = z * T(3.14159265358979323846);
      return cdiv(::cuda::std::sin(p), p);
    }
    default:  // sigmoid
      return cdiv(C(T(1), T(0)), C(T(1), T(0)) + ::cuda::std::exp(-z));
  }
}

// log(exp(a) + exp(b)) as the CPU kernel's logaddexp_c (kernels/cpu/complex.cpp)
template <typename T>
struct LogaddexpC {
  __device__ Cx<T> operator()(Cx<T> a, Cx<T> b) const {
    using C = Cx<T>;
    const T nan = ::cuda::std::numeric_limits<T>::quiet_NaN();
    if (::isnan(a.real()) || ::isnan(a.imag()) || ::isnan(b.real()) || ::isnan(b.imag())) return C(nan, nan);
    const C lo = a.real() < b.real() ? a : b, hi = a.real() < b.real() ? b : a;
    if (!::isfinite(lo.real()) && lo.real() == hi.real()) {
      if (lo.real() < T(0)) return lo;
      return unary_value(UnaryOp::log, unary_value(UnaryOp::exp, lo) + unary_value(UnaryOp::exp, hi));
    }
    return unary_value(UnaryOp::log1p, unary_value(UnaryOp::exp, lo - hi)) + hi;
  }
};

template <typename T>
struct UnaryC {
  UnaryOp op;
  __device__ Cx<T> operator()(Cx<T> z) const { return unary_value(op, z); }
};

template <typename T>
struct AbsC {
  __device__ __forceinline__ T operator()(Cx<T> z) const { return ::hypot(z.real(), z.imag()); }
};

template <typename T>
struct ClassifyC {
  UnaryOp op;
  __device__ __forceinline__ bool operator()(Cx<T> z) const {
    const T x = z.real(), y = z.imag();
    if (op == UnaryOp::isnan) return ::isnan(x) || ::isnan(y);
    if (op == UnaryOp::isinf) return ::isinf(x) || ::isinf(y);
    return ::isfinite(x) && ::isfinite(y);
  }
};

struct WhereC {
  template <typename C>
  __device__ __forceinline__ C operator()(bool c, C a, C b) const {
    return c ? a : b;
  }
};

}  // namespace

void complex_fill_cuda(const TensorIter& it, const Scalar& value) {
  const std::complex<double> v = value.to_complex();
  with_precision(it.dtypes[0], [&](auto tag) {
    using T = decltype(tag);
    gpu_kernel<Cx<T>>(it, FillC<T>{Cx<T>(static_cast<T>(v.real()), static_cast<T>(v.imag()))});
  });
}

void complex_copy_cuda(const TensorIter& it) {
  const ScalarType dst = it.dtypes[0], src = it.dtypes[1];
  if (is_complex(dst)) {
    with_precision(dst, [&](auto tag) {
      using T = decltype(tag);
      if (is_complex(src)) {
        with_precision(src, [&](auto stag) { gpu_kernel<Cx<T>, Cx<decltype(stag)>>(it, ToComplex<T>{}); });
        return;
      }
      MT_DISPATCH_ALL_TYPES(src, "copy_cuda", [&] { gpu_kernel<Cx<T>, scalar_t>(it, ToComplex<T>{}); });
    });
    return;
  }
  with_precision(src, [&](auto tag) {
    using T = decltype(tag);
    if (dst == ScalarType::Bool) {
      gpu_kernel<bool, Cx<T>>(it, NonZero<T>{});
      return;
    }
    // the launcher casts the real part into the destination as the real copy kernel does
    MT_DISPATCH_ALL_TYPES(dst, "copy_cuda", [&] { gpu_kernel<scalar_t, Cx<T>>(it, RealPart<T>{}); });
  });
}

void complex_where_cuda(const TensorIter& it) {
  with_precision(it.dtypes[0], [&](auto tag) {
    using C = Cx<decltype(tag)>;
    gpu_kernel<C, bool, C, C>(it, WhereC{});
  });
}

void complex_unary_cuda(const TensorIter& it, UnaryOp op) {
  const ScalarType dt = it.dtypes[1];
  with_precision(dt, [&](auto tag) {
    using T = decltype(tag);
    if (op == UnaryOp::abs) {
      gpu_kernel<T, Cx<T>>(it, AbsC<T>{});
    } else if (op == UnaryOp::isnan || op == UnaryOp::isinf || op == UnaryOp::isfinite) {
      gpu_kernel<bool, Cx<T>>(it, ClassifyC<T>{op});
    } else {
      if (!complex_unary_supported(op)) refuse(unary_op_name(op), dt);
      gpu_kernel<Cx<T>, Cx<T>>(it, UnaryC<T>{op});
    }
  });
}

void complex_binary_cuda(const TensorIter& it, BinaryOp op) {
  const ScalarType dt = it.dtypes[1];
  with_precision(dt, [&](auto tag) {
    using T = decltype(tag);
    switch (op) {
      case BinaryOp::add:
      case BinaryOp::sub:
      case BinaryOp::mul:
      case BinaryOp::div:
      case BinaryOp::pow:
        gpu_kernel<Cx<T>, Cx<T>, Cx<T>>(it, BinaryC<T>{op});
        return;
      case BinaryOp::eq:
      case BinaryOp::ne:
        gpu_kernel<bool, Cx<T>, Cx<T>>(it, CompareC<T>{op == BinaryOp::eq});
        return;
      case BinaryOp::logaddexp:
        gpu_kernel<Cx<T>, Cx<T>, Cx<T>>(it, LogaddexpC<T>{});
        return;
      default:
        refuse(binary_op_name(op), dt);
    }
  });
}

}  // namespace mt
