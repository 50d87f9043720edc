// CUDA dropout: one Philox draw per four elements, mask and scaled output in one pass (layout: ops/nn.h).
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>

#include "core/Generator.h"
#include "cuda/CUDAContext.h"
#include "cuda/CUDAGraph.h"
#include "cuda/Exceptions.h"
#include "ops/nn.h"

namespace mt {
namespace {

// Thread g draws Philox(seed, g, offset) once: four 24-bit uniforms for elements 4g .. 4g+3, so the mask
// depends only on the seed and the call order, never on the grid.
template <typename T>
__global__ void dropout_kernel(T* __restrict__ y, bool* __restrict__ mask, const T* __restrict__ x, int64_t n,
                               float keep_p, opmath_t<T> scale, uint64_t seed, uint64_t offset,
                               const uint64_t* graph_state) {
  using op_t = opmath_t<T>;
  if (graph_state) {  // captured in a CUDA graph: this replay's seed and offset base (cuda/CUDAGraph.h)
    seed = graph_state[0];
    offset += graph_state[1];
  }
  const int64_t groups = (n + 3) / 4;
  for (int64_t g = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; g < groups;
       g += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    Philox ph(seed, static_cast<uint64_t>(g), offset);
    uint32_t r[4];
    ph.next4(r);
#pragma unroll
    for (int k = 0; k < 4; ++k) {
      int64_t i = 4 * g + k;
      if (i >= n) break;
      float u = static_cast<float>(r[k] >> 8) * (1.0f / 16777216.0f);
      bool keep = u < keep_p;
      mask[i] = keep;
      y[i] = keep ? static_cast<T>(static_cast<op_t>(x[i]) * scale) : static_cast<T>(op_t(0));
    }
  }
}

void dropout_cuda(const Tensor& y, const Tensor& mask, const Tensor& x, double p, uint64_t seed,
                  uint64_t offset) {
  cuda::DeviceGuard guard(x.device());
  cudaStream_t stream = cuda::current_stream(x.device().index);
  int64_t n = x.numel();
  const int threads = 256;
  unsigned blocks = static_cast<unsigned>(cuda::grid_size((n + 3) / 4, threads, x.device().index));
  const uint64_t* graph_state = graph_rng_state(x.device().index);
  MT_DISPATCH_FLOATING_TYPES(x.dtype(), "dropout_cuda", [&] {
    using op_t = opmath_t<scalar_t>;
    dropout_kernel<scalar_t><<<blocks, threads, 0, stream>>>(
        y.data<scalar_t>(), mask.data<bool>(), x.data<scalar_t>(), n, static_cast<float>(1.0 - p),
        static_cast<op_t>(1.0 / (1.0 - p)), seed, offset, graph_state);
    MT_CUDA_CHECK(cudaGetLastError());
  });
}

}  // namespace

MT_REGISTER_KERNEL(dropout_stub, CUDA, &dropout_cuda);

}  // namespace mt
