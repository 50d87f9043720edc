// The dtypes, their C++ types, PyTorch's promotion lattice and the dispatch macros that bind scalar_t.
#pragma once
#include <complex>
#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>

#include "core/Exception.h"
#include "core/Half.h"

namespace mt {

// X-macro over every dtype: (C++ type, enum name, PyTorch name, Python-visible short name)
// clang-format off
#define MT_FORALL_SCALAR_TYPES(_)        \
  _(bool, Bool, "bool", "Bool")          \
  _(uint8_t, Byte, "uint8", "Byte")      \
  _(int8_t, Char, "int8", "Char")        \
  _(int16_t, Short, "int16", "Short")    \
  _(int32_t, Int, "int32", "Int")        \
  _(int64_t, Long, "int64", "Long")      \
  _(mt::Half, Half, "float16", "Half")   \
  _(mt::BFloat16, BFloat16, "bfloat16", "BFloat16") \
  _(float, Float, "float32", "Float")    \
  _(double, Double, "float64", "Double")
// The complex dtypes, apart: a kernel family takes them only where it has a complex path (the real X-macro's
// users -- Gloo's reductions, the real kernels -- never see them), so an op without one refuses with
// PyTorch's "not implemented for 'ComplexFloat'".
#define MT_FORALL_COMPLEX_TYPES(_)                                  \
  _(std::complex<float>, ComplexFloat, "complex64", "ComplexFloat") \
  _(std::complex<double>, ComplexDouble, "complex128", "ComplexDouble")
#define MT_FORALL_SCALAR_AND_COMPLEX_TYPES(_) MT_FORALL_SCALAR_TYPES(_) MT_FORALL_COMPLEX_TYPES(_)
// clang-format on

enum class ScalarType : int8_t {
#define MT_ENUM(t, name, s, l) name,
  MT_FORALL_SCALAR_AND_COMPLEX_TYPES(MT_ENUM)
#undef MT_ENUM
      NumTypes,
  Undefined = -1
};
constexpr int kNumScalarTypes = static_cast<int>(ScalarType::NumTypes);

inline size_t element_size(ScalarType t) {
  switch (t) {
#define MT_SIZE(ct, name, s, l) \
  case ScalarType::name:        \
    return sizeof(ct);
    MT_FORALL_SCALAR_AND_COMPLEX_TYPES(MT_SIZE)
#undef MT_SIZE
    default:
      MT_INTERNAL_ASSERT(false, "unknown dtype");
  }
}

// "float32": the name after "torch." in repr(dtype).
inline const char* dtype_name(ScalarType t) {
  switch (t) {
#define MT_NAME(ct, name, s, l) \
  case ScalarType::name:        \
    return s;
    MT_FORALL_SCALAR_AND_COMPLEX_TYPES(MT_NAME)
#undef MT_NAME
    default:
      return "undefined";
  }
}
// "Float": the name PyTorch uses in error messages ("expected scalar type Float but found Long").
inline const char* dtype_short_name(ScalarType t) {
  switch (t) {
#define MT_NAME(ct, name, s, l) \
  case ScalarType::name:        \
    return l;
    MT_FORALL_SCALAR_AND_COMPLEX_TYPES(MT_NAME)
#undef MT_NAME
    default:
      return "Undefined";
  }
}

inline bool is_floating(ScalarType t) {
  return t == ScalarType::Half || t == ScalarType::BFloat16 || t == ScalarType::Float ||
         t == ScalarType::Double;
}
inline bool is_complex(ScalarType t) {
  return t == ScalarType::ComplexFloat || t == ScalarType::ComplexDouble;
}
// Floating or complex: the dtypes that carry gradients.
inline bool is_inexact(ScalarType t) {
  return is_floating(t) || is_complex(t);
}
// complex64 <-> float32, complex128 <-> float64 (half and bfloat16 pair with complex64: no complex32 here).
inline ScalarType to_complex_type(ScalarType t) {
  return t == ScalarType::Double || t == ScalarType::ComplexDouble ? ScalarType::ComplexDouble
                                                                   : ScalarType::ComplexFloat;
}
inline ScalarType to_real_type(ScalarType t) {
  if (t == ScalarType::ComplexFloat) return ScalarType::Float;
  if (t == ScalarType::ComplexDouble) return ScalarType::Double;
  return t;
}
inline bool is_integral(ScalarType t, bool include_bool) {
  return (include_bool && t == ScalarType::Bool) || (t >= ScalarType::Byte && t <= ScalarType::Long);
}
inline bool is_signed(ScalarType t) {
  return t != ScalarType::Bool && t != ScalarType::Byte;
}

// PyTorch's promote_types: bool < integers < floats; mixed int signedness widens; f16+bf16 -> f32.
ScalarType promote_types(ScalarType a, ScalarType b);
// Whether a result of type `from` may be written into a tensor of type `to` (in-place ops, out=).
bool can_cast(ScalarType from, ScalarType to);

template <typename T>
constexpr bool is_complex_v =
    std::is_same<T, std::complex<float>>::value || std::is_same<T, std::complex<double>>::value;

// complex128's width, for kernels that only move bytes (gather, index, same-dtype copies): their switch over
// the element size must have a 16-byte case, or such an element would be half copied.
struct Bytes16 {
  uint64_t lo, hi;
};

// Calls fn(T{}) with the type of an element's width (uint8_t ... uint64_t, Bytes16): a kernel that only moves
// elements needs one instantiation per width, not one per dtype.
template <typename Fn>
inline void dispatch_width(size_t itemsize, Fn&& fn) {
  switch (itemsize) {
    case 1:
      return fn(uint8_t{});
    case 2:
      return fn(uint16_t{});
    case 4:
      return fn(uint32_t{});
    case 8:
      return fn(uint64_t{});
    default:  // complex128
      return fn(Bytes16{});
  }
}

template <typename T>
struct CppTypeToScalarType;
#define MT_CPP2ST(ct, name, s, l)                         \
  template <>                                             \
  struct CppTypeToScalarType<ct> {                        \
    static constexpr ScalarType value = ScalarType::name; \
  };
MT_FORALL_SCALAR_AND_COMPLEX_TYPES(MT_CPP2ST)
#undef MT_CPP2ST

// Arithmetic type for a storage type: half and bfloat16 compute in float.
template <typename T>
struct OpMath {
  using type = T;
};
template <>
struct OpMath<Half> {
  using type = float;
};
template <>
struct OpMath<BFloat16> {
  using type = float;
};
template <typename T>
using opmath_t = typename OpMath<T>::type;

}  // namespace mt

// Dispatch on a runtime dtype: the body sees `scalar_t`. The name appears in the error for unsupported
// dtypes.
#define MT_DISPATCH_CASE(enum_name, ctype, ...) \
  case ::mt::ScalarType::enum_name: {           \
    using scalar_t = ctype;                     \
    __VA_ARGS__();                              \
    break;                                      \
  }
#define MT_DISPATCH_FAIL(dtype, name)                                                                    \
  default:                                                                                               \
    ::mt::throw_error(::mt::ErrorKind::NotImplemented, ::mt::str("\"", name, "\" not implemented for '", \
                                                                 ::mt::dtype_short_name(dtype), "'"));

#define MT_DISPATCH_FLOATING_CASES(...)           \
  MT_DISPATCH_CASE(Float, float, __VA_ARGS__)     \
  MT_DISPATCH_CASE(Double, double, __VA_ARGS__)   \
  MT_DISPATCH_CASE(Half, ::mt::Half, __VA_ARGS__) \
  MT_DISPATCH_CASE(BFloat16, ::mt::BFloat16, __VA_ARGS__)

#define MT_DISPATCH_FLOATING_TYPES(dtype, name, ...) \
  [&] {                                              \
    switch (dtype) {                                 \
      MT_DISPATCH_FLOATING_CASES(__VA_ARGS__)        \
      MT_DISPATCH_FAIL(dtype, name)                  \
    }                                                \
  }()

#define MT_DISPATCH_COMPLEX_CASES(...)                             \
  MT_DISPATCH_CASE(ComplexFloat, std::complex<float>, __VA_ARGS__) \
  MT_DISPATCH_CASE(ComplexDouble, std::complex<double>, __VA_ARGS__)

#define MT_DISPATCH_COMPLEX_TYPES(dtype, name, ...) \
  [&] {                                             \
    switch (dtype) {                                \
      MT_DISPATCH_COMPLEX_CASES(__VA_ARGS__)        \
      MT_DISPATCH_FAIL(dtype, name)                 \
    }                                               \
  }()

#define MT_DISPATCH_INTEGRAL_CASES(...)         \
  MT_DISPATCH_CASE(Byte, uint8_t, __VA_ARGS__)  \
  MT_DISPATCH_CASE(Char, int8_t, __VA_ARGS__)   \
  MT_DISPATCH_CASE(Short, int16_t, __VA_ARGS__) \
  MT_DISPATCH_CASE(Int, int32_t, __VA_ARGS__)   \
  MT_DISPATCH_CASE(Long, int64_t, __VA_ARGS__)

#define MT_DISPATCH_INTEGRAL_TYPES(dtype, name, ...) \
  [&] {                                              \
    switch (dtype) {                                 \
      MT_DISPATCH_INTEGRAL_CASES(__VA_ARGS__)        \
      MT_DISPATCH_FAIL(dtype, name)                  \
    }                                                \
  }()

// Every dtype but bool.
#define MT_DISPATCH_NUMERIC_TYPES(dtype, name, ...) \
  [&] {                                             \
    switch (dtype) {                                \
      MT_DISPATCH_FLOATING_CASES(__VA_ARGS__)       \
      MT_DISPATCH_INTEGRAL_CASES(__VA_ARGS__)       \
      MT_DISPATCH_FAIL(dtype, name)                 \
    }                                               \
  }()

// Every real dtype (the real X-macro's set).
#define MT_DISPATCH_REAL_CASES(...)       \
  MT_DISPATCH_FLOATING_CASES(__VA_ARGS__) \
  MT_DISPATCH_INTEGRAL_CASES(__VA_ARGS__) \
  MT_DISPATCH_CASE(Bool, bool, __VA_ARGS__)

#define MT_DISPATCH_ALL_TYPES(dtype, name, ...) \
  [&] {                                         \
    switch (dtype) {                            \
      MT_DISPATCH_REAL_CASES(__VA_ARGS__)       \
      MT_DISPATCH_FAIL(dtype, name)             \
    }                                           \
  }()

// Every dtype, complex included (copies, fills, conversions).
#define MT_DISPATCH_ALL_TYPES_AND_COMPLEX(dtype, name, ...) \
  [&] {                                                     \
    switch (dtype) {                                        \
      MT_DISPATCH_REAL_CASES(__VA_ARGS__)                   \
      MT_DISPATCH_COMPLEX_CASES(__VA_ARGS__)                \
      MT_DISPATCH_FAIL(dtype, name)                         \
    }                                                       \
  }()
