// CPU copy-with-cast and fill kernels: every dtype pair, any strides.
#include <cstring>

#include "kernels/cpu/Loops.h"
#include "ops/kernels.h"

namespace mt {
namespace {

template <typename T>
constexpr bool is_reduced_float_v = std::is_same<T, Half>::value || std::is_same<T, BFloat16>::value;

// Half and bfloat16 convert through float; everything else is a plain C++ conversion.
template <typename dst_t, typename src_t>
inline dst_t convert(src_t v) {
  using mid_t = std::conditional_t<is_reduced_float_v<src_t>, float, src_t>;
  if constexpr (std::is_same<dst_t, bool>::value)
    return static_cast<mid_t>(v) != mid_t(0);
  else if constexpr (is_reduced_float_v<dst_t>)
    return dst_t(static_cast<float>(static_cast<mid_t>(v)));
  else
    return static_cast<dst_t>(static_cast<mid_t>(v));
}

void copy_kernel(const TensorIter& it) {
  if (it.dtypes[0] == it.dtypes[1]) {
    size_t item = element_size(it.dtypes[0]);
    if (it.is_contiguous()) {
      // one memcpy per chunk; parallel for large copies
      it.for_each([&](char** d, const int64_t*, int64_t n) { std::memcpy(d[0], d[1], n * item); }, 1 << 20);
      return;
    }
    it.for_each(
        [&](char** d, const int64_t* st, int64_t n) {
          switch (item) {
            case 1:
              for (int64_t i = 0; i < n; ++i) d[0][i * st[0]] = d[1][i * st[1]];
              break;
            case 2:
              for (int64_t i = 0; i < n; ++i)
                *reinterpret_cast<uint16_t*>(d[0] + i * st[0]) =
                    *reinterpret_cast<const uint16_t*>(d[1] + i * st[1]);
              break;
            case 4:
              for (int64_t i = 0; i < n; ++i)
                *reinterpret_cast<uint32_t*>(d[0] + i * st[0]) =
                    *reinterpret_cast<const uint32_t*>(d[1] + i * st[1]);
              break;
            default:
              for (int64_t i = 0; i < n; ++i)
                *reinterpret_cast<uint64_t*>(d[0] + i * st[0]) =
                    *reinterpret_cast<const uint64_t*>(d[1] + i * st[1]);
          }
        },
        kGrainSize);
    return;
  }
  MT_DISPATCH_ALL_TYPES(it.dtypes[0], "copy_", [&] {
    using dst_t = scalar_t;
    MT_DISPATCH_ALL_TYPES(it.dtypes[1], "copy_", [&] {
      using src_t = scalar_t;
      it.for_each([&](char** d, const int64_t* st, int64_t n) {
        for (int64_t i = 0; i < n; ++i)
          *reinterpret_cast<dst_t*>(d[0] + i * st[0]) =
              convert<dst_t, src_t>(*reinterpret_cast<const src_t*>(d[1] + i * st[1]));
      });
    });
  });
}

void fill_kernel(const TensorIter& it, const Scalar& value) {
  MT_DISPATCH_ALL_TYPES(it.dtypes[0], "fill_", [&] {
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

MT_REGISTER_KERNEL(copy_stub, CPU, &copy_kernel);
MT_REGISTER_KERNEL(fill_stub, CPU, &fill_kernel);

}  // namespace mt
