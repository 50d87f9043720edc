// Scalar: a Python number crossing into C++ (bool, int, float or complex), kept exact until an op picks a
// dtype.
#pragma once
#include <complex>
#include <cstdint>
#include <type_traits>

#include "core/ScalarType.h"

namespace mt {

class Scalar {
 public:
  enum class Kind : uint8_t { Bool, Int, Float, Complex };
  Scalar() : kind_(Kind::Int), i_(0) {}
  Scalar(bool b) : kind_(Kind::Bool), i_(b) {}
  Scalar(int v) : kind_(Kind::Int), i_(v) {}
  Scalar(int64_t v) : kind_(Kind::Int), i_(v) {}
  Scalar(double v) : kind_(Kind::Float), d_(v) {}
  Scalar(std::complex<double> v) : kind_(Kind::Complex), d_(v.real()), im_(v.imag()) {}

  Kind kind() const { return kind_; }
  bool is_bool() const { return kind_ == Kind::Bool; }
  bool is_integral() const { return kind_ == Kind::Int; }
  bool is_floating() const { return kind_ == Kind::Float; }
  bool is_complex() const { return kind_ == Kind::Complex; }
  // A complex number converts to a real type by its real part (as a C++ cast of std::complex would not).
  double to_double() const { return is_inexact() ? d_ : static_cast<double>(i_); }
  int64_t to_long() const { return is_inexact() ? static_cast<int64_t>(d_) : i_; }
  bool to_bool() const { return is_inexact() ? (d_ != 0 || (is_complex() && im_ != 0)) : i_ != 0; }
  std::complex<double> to_complex() const {
    return is_complex() ? std::complex<double>(d_, im_) : std::complex<double>(to_double(), 0.0);
  }
  template <typename T>
  T to() const {
    if constexpr (std::is_same<T, std::complex<float>>::value ||
                  std::is_same<T, std::complex<double>>::value) {
      return T(to_complex());
    } else {
      if (is_inexact()) return static_cast<T>(d_);
      return static_cast<T>(i_);
    }
  }
  // The dtype a tensor made from this number gets: bool, int64, the default float dtype or its complex twin.
  ScalarType natural_dtype(ScalarType default_float) const {
    if (kind_ == Kind::Complex) return to_complex_type(default_float);
    return kind_ == Kind::Bool ? ScalarType::Bool : kind_ == Kind::Int ? ScalarType::Long : default_float;
  }

 private:
  bool is_inexact() const { return kind_ == Kind::Float || kind_ == Kind::Complex; }
  Kind kind_;
  union {
    int64_t i_;
    double d_;  // a complex number's real part
  };
  double im_ = 0.0;
};

template <>
inline Half Scalar::to<Half>() const {
  return Half(static_cast<float>(to_double()));
}
template <>
inline BFloat16 Scalar::to<BFloat16>() const {
  return BFloat16(static_cast<float>(to_double()));
}
template <>
inline bool Scalar::to<bool>() const {
  return to_bool();
}

// The process-wide default floating dtype (torch.set_default_dtype).
ScalarType default_dtype();
void set_default_dtype(ScalarType t);

}  // namespace mt
