// CUDA embedding gather and its backward (atomics into a float or double accumulator; layout: ops/nn.h).
#include <cuda_runtime.h>

#include <algorithm>
#include <cassert>
#include <cstdio>

#include "core/Generator.h"
#include "cuda/CUDAContext.h"
#include "cuda/Exceptions.h"
#include "ops/nn.h"

namespace mt {
namespace {

template <typename T>
using stat_t = std::conditional_t<std::is_same_v<T, double>, double, float>;

// Rows copied as 32-bit words when the row size allows (the common float case), else element by element.
// An index out of range stops the kernel with a device-side trap, as PyTorch's device assert does: the
// host cannot see the indices without a synchronization.
template <typename W, typename I>
__global__ void embedding_kernel(W* __restrict__ out, const W* __restrict__ weight, const I* __restrict__ idx,
                                 int64_t n, int64_t num, int64_t words) {
  const int64_t total = n * words;
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < total;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    int64_t r = i / words, k = i - r * words;
    int64_t id = static_cast<int64_t>(idx[r]);
    if (id < 0 || id >= num) {
      printf("embedding: index out of range in self (index %lld, size %lld)\n", static_cast<long long>(id),
             static_cast<long long>(num));
      // a device-side assert, as PyTorch's CUDA_KERNEL_ASSERT (also in release builds): cudaErrorAssert
      __assert_fail("index out of range in self", __FILE__, __LINE__, __func__);
    }
    out[i] = weight[id * words + k];
  }
}

template <typename W>
void launch_embedding(const Tensor& out, const Tensor& weight, const Tensor& indices, int64_t words,
                      cudaStream_t stream) {
  int64_t n = indices.numel(), num = weight.sizes()[0];
  const int threads = 256;
  unsigned blocks = static_cast<unsigned>(cuda::grid_size(n * words, threads, weight.device().index));
  if (indices.dtype() == ScalarType::Long)
    embedding_kernel<W, int64_t><<<blocks, threads, 0, stream>>>(static_cast<W*>(out.data_ptr()),
                                                                 static_cast<const W*>(weight.data_ptr()),
                                                                 indices.data<int64_t>(), n, num, words);
  else
    embedding_kernel<W, int32_t><<<blocks, threads, 0, stream>>>(static_cast<W*>(out.data_ptr()),
                                                                 static_cast<const W*>(weight.data_ptr()),
                                                                 indices.data<int32_t>(), n, num, words);
  MT_CUDA_CHECK(cudaGetLastError());
}

void embedding_cuda(const Tensor& out, const Tensor& weight, const Tensor& indices) {
  cuda::DeviceGuard guard(weight.device());
  cudaStream_t stream = cuda::current_stream(weight.device().index);
  int64_t row_bytes = weight.sizes()[1] * static_cast<int64_t>(weight.itemsize());
  if (row_bytes == 0) return;
  auto aligned = [](const Tensor& t, int64_t a) {
    return reinterpret_cast<uintptr_t>(t.data_ptr()) % a == 0;
  };
  if (row_bytes % 4 == 0 && aligned(weight, 4) && aligned(out, 4))
    launch_embedding<uint32_t>(out, weight, indices, row_bytes / 4, stream);
  else if (row_bytes % 2 == 0 && aligned(weight, 2) && aligned(out, 2))
    launch_embedding<uint16_t>(out, weight, indices, row_bytes / 2, stream);
  else
    launch_embedding<uint8_t>(out, weight, indices, row_bytes, stream);
}

// Embedding backward: atomics into a float (double) accumulator; counts first when scaling by frequency.
template <typename I, typename A>
__global__ void embedding_count_kernel(A* __restrict__ counts, const I* __restrict__ idx, int64_t n,
                                       int64_t padding_idx) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    int64_t id = static_cast<int64_t>(idx[i]);
    if (id != padding_idx) atomicAdd(counts + id, A(1));
  }
}

template <typename T, typename I>
__global__ void embedding_backward_kernel(stat_t<T>* __restrict__ acc, const stat_t<T>* __restrict__ counts,
                                          const T* __restrict__ g, const I* __restrict__ idx, int64_t n,
                                          int64_t D, int64_t padding_idx) {
  using A = stat_t<T>;
  using op_t = opmath_t<T>;
  const int64_t total = n * D;
  for (int64_t t = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; t < total;
       t += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    int64_t i = t / D, j = t - i * D;
    int64_t id = static_cast<int64_t>(idx[i]);
    if (id == padding_idx) continue;
    A v = static_cast<A>(static_cast<op_t>(g[t]));
    if (counts) v /= counts[id];
    atomicAdd(acc + id * D + j, v);
  }
}

template <typename I>
void launch_embedding_backward(const Tensor& acc, const Tensor& counts, const Tensor& g, const I* idx,
                               int64_t padding_idx, cudaStream_t stream) {
  int64_t n = g.sizes()[0], D = g.sizes()[1];
  const int threads = 256;
  int dev = g.device().index;
  MT_DISPATCH_FLOATING_TYPES(g.dtype(), "embedding_backward_cuda", [&] {
    using A = stat_t<scalar_t>;
    if (counts.defined()) {
      embedding_count_kernel<I, A>
          <<<static_cast<unsigned>(cuda::grid_size(n, threads, dev)), threads, 0, stream>>>(
              counts.data<A>(), idx, n, padding_idx);
      MT_CUDA_CHECK(cudaGetLastError());
    }
    embedding_backward_kernel<scalar_t, I>
        <<<static_cast<unsigned>(cuda::grid_size(n * D, threads, dev)), threads, 0, stream>>>(
            acc.data<A>(), counts.defined() ? counts.data<A>() : nullptr, g.data<scalar_t>(), idx, n, D,
            padding_idx);
    MT_CUDA_CHECK(cudaGetLastError());
  });
}

void embedding_backward_cuda(const Tensor& acc, const Tensor& counts, const Tensor& g, const Tensor& indices,
                             int64_t padding_idx) {
  cuda::DeviceGuard guard(g.device());
  cudaStream_t stream = cuda::current_stream(g.device().index);
  if (indices.dtype() == ScalarType::Long)
    launch_embedding_backward(acc, counts, g, indices.data<int64_t>(), padding_idx, stream);
  else
    launch_embedding_backward(acc, counts, g, indices.data<int32_t>(), padding_idx, stream);
}

}  // namespace

MT_REGISTER_KERNEL(embedding_stub, CUDA, &embedding_cuda);
MT_REGISTER_KERNEL(embedding_backward_stub, CUDA, &embedding_backward_cuda);

}  // namespace mt
