// Scalar: a Python number crossing into C++ (bool, int or float), kept exact until an op picks a dtype.
#pragma once
#include <cstdint>

#include "core/ScalarType.h"

namespace mt {

class Scalar {
 public:
  enum class Kind : uint8_t { Bool, Int, Float };
  Scalar() : kind_(Kind::Int), i_(0) {}
  Scalar(bool b) : kind_(Kind::Bool), i_(b) {}
  Scalar(int v) : kind_(Kind::Int), i_(v) {}
  Scalar(int64_t v) : kind_(Kind::Int), i_(v) {}
  Scalar(double v) : kind_(Kind::Float), d_(v) {}

  Kind kind() const { return kind_; }
  bool is_bool() const { return kind_ == Kind::Bool; }
  bool is_integral() const { return kind_ == Kind::Int; }
  bool is_floating() const { return kind_ == Kind::Float; }
  double to_double() const { return kind_ == Kind::Float ? d_ : static_cast<double>(i_); }
  int64_t to_long() const { return kind_ == Kind::Float ? static_cast<int64_t>(d_) : i_; }
  bool to_bool() const { return kind_ == Kind::Float ? d_ != 0 : i_ != 0; }
  template <typename T>
  T to() const {
    if (kind_ == Kind::Float) return static_cast<T>(d_);
    return static_cast<T>(i_);
  }
  // The dtype a tensor made from this number gets: bool, int64 or the default float dtype.
  ScalarType natural_dtype(ScalarType default_float) const {
    return kind_ == Kind::Bool ? ScalarType::Bool : kind_ == Kind::Int ? ScalarType::Long : default_float;
  }

 private:
  Kind kind_;
  union {
    int64_t i_;
    double d_;
  };
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
