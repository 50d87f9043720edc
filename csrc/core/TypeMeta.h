// The C++ type names PyTorch's messages print for a dtype (caffe2::TypeMeta's names: "float", "long int").
#pragma once
#include <string>

#include "core/ScalarType.h"

namespace mt {

// "float", "long int", "c10::Half": PyTorch's exact-dtype messages ("expected m1 and m2 to have the same
// dtype, but got: float != double", out= and SDPA dtype checks, random_'s bounds) name the C++ type, not the
// dtype.
inline const char* cpp_type_name(ScalarType t) {
  switch (t) {
    case ScalarType::Float:
      return "float";
    case ScalarType::Double:
      return "double";
    case ScalarType::Half:
      return "c10::Half";
    case ScalarType::BFloat16:
      return "c10::BFloat16";
    case ScalarType::Long:
      return "long int";
    case ScalarType::Int:
      return "int";
    case ScalarType::Short:
      return "short int";
    case ScalarType::Char:
      return "signed char";
    case ScalarType::Byte:
      return "unsigned char";
    case ScalarType::Bool:
      return "bool";
    case ScalarType::ComplexFloat:
      return "c10::complex<float>";
    case ScalarType::ComplexDouble:
      return "c10::complex<double>";
    default:
      return dtype_name(t);
  }
}

// "torch.FloatTensor", "torch.cuda.LongTensor": PyTorch's legacy tensor type names (Tensor.type()).
inline std::string legacy_type_name(ScalarType t, bool cuda) {
  return std::string(cuda ? "torch.cuda." : "torch.") + dtype_short_name(t) + "Tensor";
}

// A tensor type as PyTorch's error messages print it: Tensor::toString ("CPUFloatType"), which its Python
// layer rewrites to the legacy class name for the eight types that have one ("torch.FloatTensor"); bool,
// bfloat16, complex and the unsigned wide types keep "CPUBoolType", "CUDAComplexFloatType".
inline std::string error_type_name(ScalarType t, bool cuda) {
  switch (t) {
    case ScalarType::Byte:
    case ScalarType::Char:
    case ScalarType::Short:
    case ScalarType::Int:
    case ScalarType::Long:
    case ScalarType::Half:
    case ScalarType::Float:
    case ScalarType::Double:
      return legacy_type_name(t, cuda);
    default:
      return std::string(cuda ? "CUDA" : "CPU") + dtype_short_name(t) + "Type";
  }
}

}  // namespace mt
