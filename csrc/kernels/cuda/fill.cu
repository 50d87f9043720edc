// CUDA fill_: a nullary elementwise kernel (vectorized stores when dense, strided otherwise).
#include "kernels/cuda/Complex.h"
#include "kernels/cuda/Loops.cuh"
#include "ops/kernels.h"

namespace mt {
namespace {

template <typename T>
struct FillOp {
  T value;
  __device__ __forceinline__ T operator()() const { return value; }
};

void fill_cuda(const TensorIter& it, const Scalar& value) {
  if (is_complex(it.dtypes[0])) return complex_fill_cuda(it, value);
  MT_DISPATCH_ALL_TYPES(it.dtypes[0], "fill_cuda",
                        [&] { gpu_kernel<scalar_t>(it, FillOp<scalar_t>{value.to<scalar_t>()}); });
}

}  // namespace

MT_REGISTER_KERNEL(fill_stub, CUDA, &fill_cuda);

}  // namespace mt
