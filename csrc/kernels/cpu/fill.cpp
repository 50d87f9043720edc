// CPU fill kernel: one value, any dtype and strides.
#include <cstring>

#include "kernels/cpu/Loops.h"
#include "ops/kernels.h"

namespace mt {
namespace {

// Whether every byte of v is the same (zero, -1, false/true in bool): then memset writes it, which glibc runs
// with the widest stores the CPU has (the baseline loop's 16-byte stores ran zero_ at half PyTorch's speed).
template <typename T>
bool one_byte_pattern(const T& v, unsigned char* byte) {
  unsigned char b[sizeof(T)];
  std::memcpy(b, &v, sizeof(T));
  for (size_t i = 1; i < sizeof(T); ++i)
    if (b[i] != b[0]) return false;
  *byte = b[0];
  return true;
}

void fill_cpu(const TensorIter& it, const Scalar& value) {
  MT_DISPATCH_ALL_TYPES_AND_COMPLEX(it.dtypes[0], "fill_", [&] {
    const scalar_t v = value.to<scalar_t>();
    unsigned char byte = 0;
    const bool bytes = one_byte_pattern(v, &byte);
    it.for_each([&](char** d, const int64_t* st, int64_t n) {
      if (st[0] == sizeof(scalar_t)) {
        if (bytes) {
          std::memset(d[0], byte, static_cast<size_t>(n) * sizeof(scalar_t));
          return;
        }
        using store_t = vload_t<scalar_t>;
        store_t* out = reinterpret_cast<store_t*>(d[0]);
        const store_t sv = static_cast<store_t>(v);
        dense_for(n, [=](int64_t i) { out[i] = sv; });
      } else {
        for (int64_t i = 0; i < n; ++i) *reinterpret_cast<scalar_t*>(d[0] + i * st[0]) = v;
      }
    });
  });
}

}  // namespace

MT_REGISTER_KERNEL(fill_stub, CPU, &fill_cpu);

}  // namespace mt
