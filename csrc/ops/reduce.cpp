// Reductions. (Placeholder: only `any`, enough for the elementwise checks; the reduction family replaces it.)
#include "ops/reduce.h"

#include "ops/copy.h"

namespace mt {

Tensor any(const Tensor& self, IntArrayRef dims, bool keepdim) {
  MT_CHECK(dims.empty() && !keepdim, "any(dim) is not implemented yet");
  Tensor c = to(contiguous(self), ScalarType::Bool, Device(DeviceType::CPU));
  const bool* p = c.data<bool>();
  bool r = false;
  for (int64_t i = 0; i < c.numel() && !r; ++i) r = p[i];
  Tensor out = make_empty({}, ScalarType::Bool, Device(DeviceType::CPU));
  *out.data<bool>() = r;
  return to(out, ScalarType::Bool, self.device());
}

}  // namespace mt
