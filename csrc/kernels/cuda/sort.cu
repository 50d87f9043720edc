// CUDA kernels of the sort family (layout: see ops/sort.h). Kept simple: the whole rows x n tensor is one
// stable merge sort (CUB) of flat positions under an order that compares the row first, then the value
// (NaN largest); ties keep input order. Values are first widened to one key type (double for floating
// types, int64 otherwise, both exact), so CUB's sort is instantiated twice, not once per dtype.
#include <cuda_runtime.h>

#include <algorithm>
#include <cub/device/device_merge_sort.cuh>
#include <type_traits>

#include "cuda/CUDAContext.h"
#include "cuda/Exceptions.h"
#include "kernels/ReduceRules.h"
#include "ops/copy.h"
#include "ops/sort.h"

namespace mt {
namespace {

constexpr int kThreads = 256;

template <typename K>
struct FlatOrder {
  const K* key;
  int64_t n;
  bool descending;
  __device__ bool operator()(int64_t a, int64_t b) const {
    int64_t ra = a / n, rb = b / n;
    if (ra != rb) return ra < rb;
    K x = key[a], y = key[b];
    bool xn = x != x, yn = y != y;  // NaN (always false for integers)
    if (xn || yn) return xn != yn && (descending ? xn : yn);
    return descending ? x > y : x < y;
  }
};

template <typename T, typename K>
__global__ void prepare_kernel(const T* __restrict__ in, K* __restrict__ key, int64_t* __restrict__ pos,
                               int64_t total) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < total;
       i += int64_t(gridDim.x) * blockDim.x) {
    key[i] = static_cast<K>(static_cast<opmath_t<T>>(in[i]));
    pos[i] = i;
  }
}

// The first k of each sorted row: pos holds flat input positions.
template <typename T>
__global__ void write_kernel(const T* __restrict__ in, const int64_t* __restrict__ pos,
                             T* __restrict__ values, int64_t* __restrict__ indices, int64_t rows, int64_t n,
                             int64_t k) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < rows * k;
       i += int64_t(gridDim.x) * blockDim.x) {
    int64_t r = i / k, j = i % k;
    int64_t p = pos[r * n + j];
    values[i] = in[p];
    indices[i] = p - r * n;
  }
}

template <typename T, typename K>
void sort_typed(const Tensor& values, const Tensor& indices, const Tensor& in, int64_t n, int64_t k,
                bool descending) {
  const Device dev = in.device();
  cudaStream_t stream = cuda::current_stream(dev.index);
  const int64_t total = in.numel(), rows = total / n;
  Tensor key = make_empty({total}, CppTypeToScalarType<K>::value, dev);
  Tensor pos = make_empty({total}, ScalarType::Long, dev);
  int grid = static_cast<int>(cuda::grid_size(total, kThreads, dev.index));
  prepare_kernel<<<grid, kThreads, 0, stream>>>(in.data<T>(), key.data<K>(), pos.data<int64_t>(), total);
  MT_CUDA_CHECK(cudaGetLastError());
  FlatOrder<K> order{key.data<K>(), n, descending};
  size_t bytes = 0;
  MT_CUDA_CHECK(
      cub::DeviceMergeSort::StableSortKeys(nullptr, bytes, pos.data<int64_t>(), total, order, stream));
  Tensor temp = make_empty({static_cast<int64_t>(bytes) + 1}, ScalarType::Byte, dev);
  MT_CUDA_CHECK(cub::DeviceMergeSort::StableSortKeys(temp.data_ptr(), bytes, pos.data<int64_t>(), total,
                                                     order, stream));
  grid = static_cast<int>(cuda::grid_size(rows * k, kThreads, dev.index));
  write_kernel<<<grid, kThreads, 0, stream>>>(in.data<T>(), pos.data<int64_t>(), values.data<T>(),
                                              indices.data<int64_t>(), rows, n, k);
  MT_CUDA_CHECK(cudaGetLastError());
}

void sort_cuda(const Tensor& values, const Tensor& indices, const Tensor& in, int64_t n, int64_t k,
               bool descending, bool /*sorted: always*/) {
  cuda::DeviceGuard guard(in.device());
  MT_DISPATCH_ALL_TYPES(in.dtype(), "sort_cuda", [&] {
    using key_t = std::conditional_t<std::is_floating_point_v<opmath_t<scalar_t>>, double, int64_t>;
    sort_typed<scalar_t, key_t>(values, indices, in, n, k, descending);
  });
}

// One thread per row walks the sorted row once (reduce_rules::mode_run_end, as the CPU kernel).
template <typename T>
__global__ void mode_rows_kernel(const T* __restrict__ sorted, const int64_t* __restrict__ sorted_idx,
                                 T* __restrict__ values, int64_t* __restrict__ indices, int64_t rows,
                                 int64_t n) {
  for (int64_t r = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; r < rows;
       r += int64_t(gridDim.x) * blockDim.x) {
    const T* row = sorted + r * n;
    const int64_t best = reduce_rules::mode_run_end<opmath_t<T>>(row, n);
    values[r] = row[best];
    indices[r] = sorted_idx[r * n + best];
  }
}

void mode_cuda(const Tensor& values, const Tensor& indices, const Tensor& sorted, const Tensor& sorted_idx,
               int64_t n) {
  const Device dev = sorted.device();
  cuda::DeviceGuard guard(dev);
  cudaStream_t stream = cuda::current_stream(dev.index);
  const int64_t rows = sorted.numel() / n;
  int grid = static_cast<int>(cuda::grid_size(rows, kThreads, dev.index));
  MT_DISPATCH_ALL_TYPES(sorted.dtype(), "mode_cuda", [&] {
    mode_rows_kernel<<<grid, kThreads, 0, stream>>>(sorted.data<scalar_t>(), sorted_idx.data<int64_t>(),
                                                    values.data<scalar_t>(), indices.data<int64_t>(), rows,
                                                    n);
  });
  MT_CUDA_CHECK(cudaGetLastError());
}

// tril/triu over a contiguous batch of rows x cols matrices, one thread per element (out may be in): the
// element at (i, j) kept where j - i <= k (lower) or >= k, else zero. Elements move as their width's type.
template <typename T>
__global__ void triangle_kernel(const T* in, T* out, int64_t total, int64_t rows, int64_t cols, int64_t k,
                                bool lower) {
  for (int64_t e = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; e < total;
       e += int64_t(gridDim.x) * blockDim.x) {
    const int64_t j = e % cols, i = (e / cols) % rows;
    const bool keep = lower ? j - i <= k : j - i >= k;
    out[e] = keep ? in[e] : T{};
  }
}

void triangle_cuda(const Tensor& out, const Tensor& self, int64_t diagonal, bool lower) {
  const Device dev = self.device();
  cuda::DeviceGuard guard(dev);
  cudaStream_t stream = cuda::current_stream(dev.index);
  const int64_t nd = self.dim(), rows = self.sizes()[nd - 2], cols = self.sizes()[nd - 1];
  // any layout through contiguous buffers: a non-contiguous tril_ target takes the result back by copy_
  const Tensor in = contiguous(self);
  const bool direct = out.is_contiguous();
  const Tensor dst = direct ? out : make_empty(out.sizes(), out.dtype(), dev);
  const int64_t total = out.numel();
  // j - i lies in (-rows, cols): a diagonal clamped to that range keeps the same elements
  const int64_t k = std::min<int64_t>(std::max<int64_t>(diagonal, -rows), cols);
  int grid = static_cast<int>(cuda::grid_size(total, kThreads, dev.index));
  dispatch_width(self.itemsize(), [&](auto w) {  // moving bytes: only the width matters
    using T = decltype(w);
    triangle_kernel<T>
        <<<grid, kThreads, 0, stream>>>(in.data<T>(), dst.data<T>(), total, rows, cols, k, lower);
  });
  MT_CUDA_CHECK(cudaGetLastError());
  if (!direct) copy_(out, dst);
}

}  // namespace

MT_REGISTER_KERNEL(sort_stub, CUDA, &sort_cuda);
MT_REGISTER_KERNEL(mode_stub, CUDA, &mode_cuda);
MT_REGISTER_KERNEL(triangle_stub, CUDA, &triangle_cuda);

}  // namespace mt
