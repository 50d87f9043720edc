// The generated bindings' converted arguments, each named by its kind in the pybind11 signature.
//
// Each takes any object, as py::handle does (its conversion, scalar_arg or parse_dtype, raises PyTorch's
// error for a wrong one), and names PyTorch's kind ("beta: Number = 1" rather than "beta: object = 1"), which
// arg_errors.cpp lists in PyTorch's "invalid combination of arguments" and the deprecated-signature warning.
#pragma once

#include <pybind11/pybind11.h>

#define MT_KIND_ARG(Type, word)                                                                \
  namespace mt {                                                                               \
  struct Type : pybind11::handle {                                                             \
    Type() = default;                                                                          \
    Type(pybind11::handle h) : pybind11::handle(h) {} /* NOLINT: implicit */                   \
  };                                                                                           \
  }                                                                                            \
  namespace pybind11::detail {                                                                 \
  template <>                                                                                  \
  struct type_caster<mt::Type> {                                                               \
    PYBIND11_TYPE_CASTER(mt::Type, const_name(word));                                          \
    bool load(handle src, bool) {                                                              \
      value = mt::Type(src);                                                                   \
      return static_cast<bool>(src);                                                           \
    }                                                                                          \
    static handle cast(const mt::Type& v, return_value_policy, handle) { return v.inc_ref(); } \
  };                                                                                           \
  }

MT_KIND_ARG(IntKind, "int")
MT_KIND_ARG(FloatKind, "float")
MT_KIND_ARG(BoolKind, "bool")
MT_KIND_ARG(IntListKind, "tuple of ints")
MT_KIND_ARG(NumberKind, "Number")
MT_KIND_ARG(DtypeKind, "torch.dtype")
MT_KIND_ARG(DeviceKind, "torch.device")
MT_KIND_ARG(LayoutKind, "torch.layout")
MT_KIND_ARG(MemoryFormatKind, "torch.memory_format")
MT_KIND_ARG(GeneratorKind, "torch.Generator")
MT_KIND_ARG(OutKind, "Tensor")

#undef MT_KIND_ARG
