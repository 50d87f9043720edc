// CUDA cumsum / cumprod along `row` of a contiguous outer x row x inner tensor (layout: ops/reduce.h).
// Floating values accumulate in double and integers in int64, as on the CPU. inner == 1: a group of threads
// per row scans it in chunks (each thread a few consecutive elements, then a shuffle scan of the thread
// totals, carrying the running value to the next chunk); inner > 1: a thread per column walks the rows, reads
// coalesced along the contiguous inner dim. cummax/cummin: a thread per (outer, column) walks the rows, the
// running extremum and its index kept in registers.
#include <cuda_runtime.h>

#include <algorithm>
#include <type_traits>

#include "cuda/CUDAContext.h"
#include "cuda/Exceptions.h"
#include "kernels/ReduceRules.h"
#include "kernels/cuda/ReduceUtils.cuh"
#include "ops/reduce.h"

namespace mt {
namespace {

using namespace cuda_reduce;

template <typename T>
using scan_acc_t = std::conditional_t<std::is_floating_point_v<opmath_t<T>>, double, int64_t>;

template <typename A>
__device__ __forceinline__ A apply(A a, A b, bool sum) {
  return sum ? a + b : a * b;
}

constexpr int kItems = 4;  // consecutive elements per thread per chunk

// blockDim.x threads per row (a power of two), blockDim.y rows per block; blockDim.x * blockDim.y is a
// multiple of 32. `smem` holds one value per warp.
template <typename T>
__global__ void scan_rows_kernel(T* __restrict__ out, const T* __restrict__ in, int64_t outer, int64_t row,
                                 bool sum) {
  using A = scan_acc_t<T>;
  extern __shared__ __align__(16) unsigned char smem_raw[];
  A* smem = reinterpret_cast<A*>(smem_raw);
  const A ident = sum ? A(0) : A(1);
  const int bx = blockDim.x, tid = threadIdx.x;
  const int width = bx < kWarp ? bx : kWarp;
  const int lane = tid % width;  // position within this thread's warp-level group
  const int nw = bx > kWarp ? bx / kWarp : 1;
  const int wid = tid / kWarp;  // warp within the row group (bx > 32)
  const int64_t r = blockIdx.x * static_cast<int64_t>(blockDim.y) + threadIdx.y;
  const bool active = r < outer;
  const T* p = in + (active ? r : 0) * row;
  T* q = out + (active ? r : 0) * row;
  A carry = ident;
  const int64_t per_chunk = static_cast<int64_t>(bx) * kItems;
  for (int64_t c0 = 0; c0 < row; c0 += per_chunk) {
    const int64_t i0 = c0 + static_cast<int64_t>(tid) * kItems;
    A v[kItems];
#pragma unroll
    for (int k = 0; k < kItems; ++k) {
      v[k] = (active && i0 + k < row) ? static_cast<A>(p[i0 + k]) : ident;
      if (k > 0) v[k] = apply(v[k - 1], v[k], sum);
    }
    // inclusive scan of the thread totals within the warp-level group
    A incl = v[kItems - 1];
    for (int d = 1; d < width; d *= 2) {
      const A y = shfl_up(incl, d, width);
      if (lane >= d) incl = apply(y, incl, sum);
    }
    A excl = shfl_up(incl, 1, width);
    if (lane == 0) excl = ident;
    A group_total = shfl_idx(incl, width - 1, width);
    if (bx > kWarp) {
      // across the warps of a row group: their totals through shared memory
      __syncthreads();  // the previous chunk's reads are done
      if (lane == width - 1) smem[threadIdx.y * nw + wid] = incl;
      __syncthreads();
      const A* g = smem + threadIdx.y * nw;
      A before = ident;
      for (int w = 0; w < wid; ++w) before = apply(before, g[w], sum);
      excl = apply(before, excl, sum);
      group_total = ident;
      for (int w = 0; w < nw; ++w) group_total = apply(group_total, g[w], sum);
    }
    const A prefix = apply(carry, excl, sum);
    if (active) {
#pragma unroll
      for (int k = 0; k < kItems; ++k)
        if (i0 + k < row) q[i0 + k] = cast_out<T>(apply(prefix, v[k], sum));
    }
    carry = apply(carry, group_total, sum);
  }
}

// inner > 1: one thread per (outer, column), rows in order.
template <typename T>
__global__ void scan_cols_kernel(T* __restrict__ out, const T* __restrict__ in, int64_t outer, int64_t row,
                                 int64_t inner, bool sum) {
  using A = scan_acc_t<T>;
  const int64_t n = outer * inner;
  for (int64_t t = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; t < n;
       t += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const int64_t o = t / inner, j = t % inner;
    const int64_t base = o * row * inner + j;
    A a = sum ? A(0) : A(1);
    for (int64_t r = 0; r < row; ++r) {
      a = apply(a, static_cast<A>(in[base + r * inner]), sum);
      out[base + r * inner] = cast_out<T>(a);
    }
  }
}

void scan_cuda(const Tensor& out, const Tensor& in, int64_t row, int64_t inner, ScanOp op) {
  const Device dev = in.device();
  cuda::DeviceGuard guard(dev);
  cudaStream_t stream = cuda::current_stream(dev.index);
  if (row == 0 || inner == 0) return;
  const int64_t outer = in.numel() / (row * inner);
  if (outer == 0) return;
  const bool sum = op == ScanOp::cumsum;
  MT_DISPATCH_ALL_TYPES(in.dtype(), sum ? "cumsum_cuda" : "cumprod_cuda", [&] {
    using T = scalar_t;
    const T* p = in.data<T>();
    T* q = out.data<T>();
    if (inner == 1) {
      const int bx = pow2_at_least(ceil_div(row, kItems), 512);
      const int by = std::max(1, 256 / bx);
      const int64_t grid_x = ceil_div(outer, by);
      MT_CHECK(grid_x <= INT32_MAX, "scan too large for one CUDA launch");
      const size_t smem = static_cast<size_t>(bx * by / kWarp + 1) * sizeof(scan_acc_t<T>);
      scan_rows_kernel<T>
          <<<static_cast<unsigned>(grid_x), dim3(bx, by), smem, stream>>>(q, p, outer, row, sum);
    } else {
      const int threads = 256;
      const int64_t blocks = std::min<int64_t>(ceil_div(outer * inner, threads), 65535);
      scan_cols_kernel<T>
          <<<static_cast<unsigned>(blocks), threads, 0, stream>>>(q, p, outer, row, inner, sum);
    }
    MT_CUDA_CHECK(cudaGetLastError());
  });
}

// One thread per (outer, column); inner == 1 gives a thread per row, whose reads are not coalesced: enough
// for the shapes cummax meets (a chunked scan like scan_rows_kernel's would serve a few very long rows
// better).
template <typename T, bool IsMax>
__global__ void cum_extreme_kernel(T* __restrict__ values, int64_t* __restrict__ indices,
                                   const T* __restrict__ in, int64_t outer, int64_t row, int64_t inner) {
  using A = opmath_t<T>;
  const int64_t n = outer * inner;
  for (int64_t t = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; t < n;
       t += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const int64_t o = t / inner, j = t % inner;
    const int64_t base = o * row * inner + j;
    A best = static_cast<A>(in[base]);
    int64_t at = 0;
    for (int64_t r = 0; r < row; ++r) {
      const A x = static_cast<A>(in[base + r * inner]);
      if (reduce_rules::cum_replaces<IsMax>(best, x)) {
        best = x;
        at = r;
      }
      values[base + r * inner] = static_cast<T>(best);
      indices[base + r * inner] = at;
    }
  }
}

void cum_extreme_cuda(const Tensor& values, const Tensor& indices, const Tensor& in, int64_t row,
                      int64_t inner, bool is_max) {
  const Device dev = in.device();
  cuda::DeviceGuard guard(dev);
  cudaStream_t stream = cuda::current_stream(dev.index);
  if (row == 0 || inner == 0) return;
  const int64_t outer = in.numel() / (row * inner);
  if (outer == 0) return;
  const int threads = 256;
  const int64_t blocks = std::min<int64_t>(ceil_div(outer * inner, threads), 65535);
  MT_DISPATCH_ALL_TYPES(in.dtype(), is_max ? "cummax_cuda" : "cummin_cuda", [&] {
    using T = scalar_t;
    if (is_max)
      cum_extreme_kernel<T, true><<<static_cast<unsigned>(blocks), threads, 0, stream>>>(
          values.data<T>(), indices.data<int64_t>(), in.data<T>(), outer, row, inner);
    else
      cum_extreme_kernel<T, false><<<static_cast<unsigned>(blocks), threads, 0, stream>>>(
          values.data<T>(), indices.data<int64_t>(), in.data<T>(), outer, row, inner);
    MT_CUDA_CHECK(cudaGetLastError());
  });
}

}  // namespace

MT_REGISTER_KERNEL(scan_stub, CUDA, &scan_cuda);
MT_REGISTER_KERNEL(cum_extreme_stub, CUDA, &cum_extreme_cuda);

}  // namespace mt
