// CPU fill kernel: one value, any dtype and strides.
#include "kernels/cpu/Loops.h"
#include "ops/kernels.h"

namespace mt {
namespace {

void fill_cpu(const TensorIter& it, const Scalar& value) {
  MT_DISPATCH_ALL_TYPES_AND_COMPLEX(it.dtypes[0], "fill_", [&] {
    const scalar_t v = value.to<scalar_t>();
    it.for_each([&](char** d, const int64_t* st, int64_t n) {
      if (st[0] == sizeof(scalar_t)) {
        scalar_t* out = reinterpret_cast<scalar_t*>(d[0]);
        for (int64_t i = 0; i < n; ++i) out[i] = v;
      } else {
        for (int64_t i = 0; i < n; ++i) *reinterpret_cast<scalar_t*>(d[0] + i * st[0]) = v;
      }
    });
  });
}

}  // namespace

MT_REGISTER_KERNEL(fill_stub, CPU, &fill_cpu);

}  // namespace mt
