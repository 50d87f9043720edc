// CUDA fill_: the first device kernel (grid-stride, strided output through an offset calculator).
// Compiled on every CUDA-enabled build; not yet run on a GPU (see docs/gpu-report.md).
#include <cuda_runtime.h>

#include "cuda/Exceptions.h"
#include "kernels/cuda/OffsetCalculator.cuh"
#include "ops/kernels.h"

namespace mt {
namespace {

template <typename T>
__global__ void fill_kernel(char* out, OffsetCalculator<1> calc, int64_t n, T value) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    *reinterpret_cast<T*>(out + calc.get(i)[0]) = value;
  }
}

void launch_fill(const TensorIter& it, const Scalar& value) {
  MT_CHECK(it.ndim() <= OffsetCalculator<1>::kMaxDims, "fill_: too many non-contiguous dimensions for CUDA");
  MT_DISPATCH_ALL_TYPES(it.dtypes[0], "fill_cuda", [&] {
    OffsetCalculator<1> calc(it);
    const int threads = 256;
    int64_t blocks = std::min<int64_t>((it.numel + threads - 1) / threads, 65535);
    fill_kernel<scalar_t>
        <<<static_cast<unsigned>(blocks), threads>>>(it.data[0], calc, it.numel, value.to<scalar_t>());
    MT_CUDA_CHECK(cudaGetLastError());
  });
}

}  // namespace

MT_REGISTER_KERNEL(fill_stub, CUDA, &launch_fill);

}  // namespace mt
