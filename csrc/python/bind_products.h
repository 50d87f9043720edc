// The GIL release of the products (the schema's `nogil: product a b` rows, generated into bind_funcs.cpp, and
// bind_linalg.cpp's @ operator): by the work of a @ b rather than by the operands' sizes.
#pragma once
#include "python/bind.h"

namespace mt {

// A product's work grows as m*n*k: released from about kNoGilMinNumel multiply-adds (microseconds of work),
// long before the operands alone would pass the size threshold.
inline bool big_product(const Tensor& a, const Tensor& b) {
  if (!a.device().is_cpu() || !b.device().is_cpu()) return true;
  return a.numel() * (b.dim() > 0 ? b.size(-1) : 1) >= kNoGilMinNumel;
}

}  // namespace mt
