// CUDA copy_ within one device: any dtype pair (half/bfloat16 convert through float, to bool means != 0,
// as the CPU copy), any strides; same-dtype dense copies are one cudaMemcpyAsync on the current stream.
#include "cuda/CUDAContext.h"
#include "kernels/cuda/Complex.h"
#include "kernels/cuda/Loops.cuh"
#include "ops/kernels.h"

namespace mt {
namespace {

// The launcher hands over opmath values and casts the result to the destination type, which is exactly
// the CPU convert(): float for half/bfloat16 sources, static_cast (bool: != 0) into the destination.
struct CastOp {
  template <typename T>
  __device__ __forceinline__ T operator()(T x) const {
    return x;
  }
};

void copy_cuda(const TensorIter& it) {
  if (it.dtypes[0] == it.dtypes[1]) {
    const size_t item = element_size(it.dtypes[0]);
    if (it.is_contiguous()) {
      if (it.data[0] == it.data[1]) return;  // a view copied onto itself
      cuda::DeviceGuard guard(it.device);
      MT_CUDA_CHECK(cudaMemcpyAsync(it.data[0], it.data[1], it.numel * item, cudaMemcpyDeviceToDevice,
                                    cuda::current_stream(it.device.index)));
      return;
    }
    // Moving bits needs only the element size: five kernels instead of twelve.
    dispatch_width(item, [&](auto w) { gpu_kernel<decltype(w), decltype(w)>(it, CastOp{}); });
    return;
  }
  if (is_complex(it.dtypes[0]) || is_complex(it.dtypes[1])) return complex_copy_cuda(it);
  MT_DISPATCH_ALL_TYPES(it.dtypes[0], "copy_cuda", [&] {
    using dst_t = scalar_t;
    MT_DISPATCH_ALL_TYPES(it.dtypes[1], "copy_cuda", [&] {
      using src_t = scalar_t;
      if constexpr (!std::is_same<dst_t, src_t>::value) gpu_kernel<dst_t, src_t>(it, CastOp{});
    });
  });
}

}  // namespace

MT_REGISTER_KERNEL(copy_stub, CUDA, &copy_cuda);

}  // namespace mt
