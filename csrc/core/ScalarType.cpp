// PyTorch's dtype promotion lattice and casting rule.
#include "core/ScalarType.h"

namespace mt {

ScalarType promote_types(ScalarType a, ScalarType b) {
  if (a == b) return a;
  if (a == ScalarType::Undefined) return b;
  if (b == ScalarType::Undefined) return a;
  if (a == ScalarType::Bool) return b;
  if (b == ScalarType::Bool) return a;
  if (is_complex(a) || is_complex(b)) {
    // complex wins, at the precision of the wider side: complex64 + float64 -> complex128
    bool wide = a == ScalarType::Double || b == ScalarType::Double || a == ScalarType::ComplexDouble ||
                b == ScalarType::ComplexDouble;
    return wide ? ScalarType::ComplexDouble : ScalarType::ComplexFloat;
  }
  bool fa = is_floating(a), fb = is_floating(b);
  if (fa && fb) {
    if ((a == ScalarType::Half && b == ScalarType::BFloat16) ||
        (a == ScalarType::BFloat16 && b == ScalarType::Half))
      return ScalarType::Float;
    return a > b ? a : b;  // enum order: Half < BFloat16 < Float < Double
  }
  if (fa) return a;
  if (fb) return b;
  // both integral (non-bool)
  if (a == ScalarType::Byte || b == ScalarType::Byte) {
    ScalarType other = a == ScalarType::Byte ? b : a;
    return other == ScalarType::Char ? ScalarType::Short : other;  // uint8 + int8 -> int16
  }
  return a > b ? a : b;
}

static int category(ScalarType t) {
  return t == ScalarType::Bool ? 0 : is_integral(t, false) ? 1 : is_complex(t) ? 3 : 2;
}

bool can_cast(ScalarType from, ScalarType to) {
  return category(from) <= category(to);
}

}  // namespace mt
