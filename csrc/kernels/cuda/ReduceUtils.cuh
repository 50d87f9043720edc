// Device helpers shared by the CUDA reduction, softmax and scan kernels: opmath math overloads, aligned
// vectors, and all-reduce / scan across a group of threads (a sub-warp, a warp or a whole block row).
#pragma once
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "core/ScalarType.h"

namespace mt {
namespace cuda_reduce {

constexpr int kWarp = 32;

// One name per function for float and double (CUDA's float overloads of the C names are not all in the
// global namespace); accurate versions, never the fast intrinsics, so results track the CPU's.
__device__ __forceinline__ float d_exp(float x) {
  return expf(x);
}
__device__ __forceinline__ double d_exp(double x) {
  return exp(x);
}
__device__ __forceinline__ float d_log(float x) {
  return logf(x);
}
__device__ __forceinline__ double d_log(double x) {
  return log(x);
}
__device__ __forceinline__ float d_sqrt(float x) {
  return sqrtf(x);
}
__device__ __forceinline__ double d_sqrt(double x) {
  return sqrt(x);
}
__device__ __forceinline__ float d_pow(float x, float y) {
  return powf(x, y);
}
__device__ __forceinline__ double d_pow(double x, double y) {
  return pow(x, y);
}

template <typename T>
__device__ __forceinline__ T d_abs(T x) {
  if constexpr (std::is_floating_point_v<T>)
    return fabs(x);
  else if constexpr (std::is_signed_v<T>)
    return x < T(0) ? T(-x) : x;
  else
    return x;
}

template <typename T>
__device__ __forceinline__ bool d_isnan(T x) {
  if constexpr (std::is_floating_point_v<T>)
    return x != x;
  else
    return false;
}

template <typename T>
__device__ __forceinline__ bool d_isfinite(T x) {
  if constexpr (std::is_floating_point_v<T>)
    return isfinite(x);
  else
    return true;
}

__host__ __device__ __forceinline__ int64_t min64(int64_t a, int64_t b) {
  return a < b ? a : b;
}

// V elements loaded as one 16-byte access.
template <typename T, int V>
struct alignas(sizeof(T) * V) Vec {
  T v[V];
};

// 16-byte loads when the element size divides 16 (every dtype here), else one element at a time.
template <typename T>
constexpr int vec_width() {
  return (sizeof(T) <= 16 && 16 % sizeof(T) == 0) ? static_cast<int>(16 / sizeof(T)) : 1;
}

// A warp shuffle of any trivially copyable value, one 32-bit word at a time; `shfl` moves one word.
template <typename T, typename Shfl>
__device__ __forceinline__ T shfl_words(const T& v, const Shfl& shfl) {
  constexpr int N = (sizeof(T) + 3) / 4;
  int w[N] = {};
  memcpy(w, &v, sizeof(T));
#pragma unroll
  for (int i = 0; i < N; ++i) w[i] = shfl(w[i]);
  T r;
  memcpy(&r, w, sizeof(T));
  return r;
}
template <typename T>
__device__ __forceinline__ T shfl_xor(const T& v, int mask) {
  return shfl_words(v, [&](int w) { return __shfl_xor_sync(0xffffffffu, w, mask); });
}
template <typename T>
__device__ __forceinline__ T shfl_up(const T& v, int delta, int width) {
  return shfl_words(v, [&](int w) { return __shfl_up_sync(0xffffffffu, w, delta, width); });
}
template <typename T>
__device__ __forceinline__ T shfl_idx(const T& v, int src, int width) {
  return shfl_words(v, [&](int w) { return __shfl_sync(0xffffffffu, w, src, width); });
}

// All-reduce over the blockDim.x threads sharing threadIdx.y (blockDim.x a power of two; blockDim.x *
// blockDim.y a multiple of 32 when blockDim.x < 32, so every warp is full). Every thread of the group gets
// the result. `smem` holds blockDim.x * blockDim.y / 32 values. Every thread of the block must call it.
template <typename Acc, typename Comb>
__device__ __forceinline__ Acc group_allreduce(Acc acc, const Comb& comb, Acc* smem) {
  const int bx = blockDim.x;
  const int width = bx < kWarp ? bx : kWarp;
  for (int m = width / 2; m > 0; m /= 2) acc = comb(acc, shfl_xor(acc, m));
  if (bx <= kWarp) return acc;
  // several warps per group: warp results through shared memory, then every thread combines them
  const int nw = bx / kWarp;
  const int tid = threadIdx.y * bx + threadIdx.x;
  __syncthreads();  // smem may still be read by a previous call
  if (tid % kWarp == 0) smem[tid / kWarp] = acc;
  __syncthreads();
  const Acc* g = smem + threadIdx.y * nw;
  Acc r = g[0];
  for (int i = 1; i < nw; ++i) r = comb(r, g[i]);
  return r;
}

// Tree merge over the blockDim.y threads sharing threadIdx.x (blockDim.y a power of two): the threads with
// threadIdx.y == 0 end with the merged value, and every thread too when kBroadcast. `smem` holds
// blockDim.x * blockDim.y values. Every thread of the block must call it.
template <bool kBroadcast, typename Acc, typename Comb>
__device__ __forceinline__ Acc column_merge(Acc acc, const Comb& comb, Acc* smem) {
  if (blockDim.y == 1) return acc;
  const int t = threadIdx.y * blockDim.x + threadIdx.x;
  smem[t] = acc;
  for (int s = blockDim.y / 2; s > 0; s /= 2) {
    __syncthreads();
    if (threadIdx.y < s) {
      acc = comb(acc, smem[t + s * blockDim.x]);
      smem[t] = acc;
    }
  }
  if constexpr (kBroadcast) {
    __syncthreads();
    acc = smem[threadIdx.x];
  }
  return acc;
}

// Stores an accumulator as the output dtype (half/bfloat16 through float, as their constructors take).
template <typename T, typename A>
__device__ __forceinline__ T cast_out(A a) {
  if constexpr (std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>)
    return T(static_cast<float>(a));
  else
    return static_cast<T>(a);
}

// Launch geometry shared by the reduction, softmax and scan launchers.
inline int64_t ceil_div(int64_t a, int64_t b) {
  return (a + b - 1) / b;
}
// The smallest power of two >= n, capped at cap.
inline int pow2_at_least(int64_t n, int cap) {
  int p = 1;
  while (p < cap && p < n) p *= 2;
  return p;
}

// The block shape the reductions and softmax launch with (scan has its own item count). Rows (inner == 1):
// ~2 vectors of V per thread before a row gets more threads, up to 512 threads a row and `by` rows a block;
// shared memory holds one acc_t per warp. Columns (inner > 1): `bx` adjacent columns (<= 256) by `by` threads
// down the row, one acc_t per thread.
struct BlockShape {
  int bx, by;
  int64_t col_blocks;  // blocks across `inner` (1 for rows)
  int64_t grid_x;
  size_t smem;
};
// `fill_threads` (rows only; 0: off): with that many threads or more from the rows alone, a row gets fewer
// threads, down to a warp, each with more loads in flight (at most 16 vectors): many short per-thread loops
// ending in a block-wide merge left 8192 rows of 8192 floats at 0.76 of PyTorch's speed on an H200.
template <typename acc_t>
inline BlockShape block_shape(int64_t outer, int64_t row, int64_t inner, int V, const char* what,
                              int64_t fill_threads = 0) {
  BlockShape b;
  if (inner == 1) {
    b.bx = pow2_at_least(ceil_div(row, 2 * V), 512);
    while (fill_threads > 0 && b.bx > kWarp && outer * (b.bx / 2) >= fill_threads &&
           ceil_div(row, static_cast<int64_t>(b.bx) * V) < 16)
      b.bx /= 2;
    b.by = std::max(1, 256 / b.bx);
    b.col_blocks = 1;
    b.grid_x = ceil_div(outer, b.by);
    b.smem = static_cast<size_t>(b.bx * b.by / kWarp + 1) * sizeof(acc_t);
  } else {
    b.bx = pow2_at_least(inner, 256);
    b.by = pow2_at_least(row, 256 / b.bx);
    b.col_blocks = ceil_div(inner, b.bx);
    b.grid_x = outer * b.col_blocks;
    b.smem = static_cast<size_t>(b.bx * b.by) * sizeof(acc_t);
  }
  MT_CHECK(b.grid_x <= INT32_MAX, what, " too large for one CUDA launch");
  return b;
}

// Reduces p[begin, end) (one contiguous row) with `nt` threads, this one being number `tid`; `idx` passed to
// ops.reduce is the position in the row. Aligned 16-byte loads for the body when V > 1; the
// misaligned head and the tail go one element at a time. One accumulator per vector lane gives independent
// dependency chains (and a shorter addition chain per accumulator).
template <int V, typename Ops, typename In>
__device__ __forceinline__ typename Ops::acc_t thread_reduce(const Ops& ops, const In* __restrict__ p,
                                                             int64_t begin, int64_t end, int64_t tid,
                                                             int64_t nt) {
  using acc_t = typename Ops::acc_t;
  acc_t acc = ops.identity();
  if constexpr (V > 1) {
    const auto addr = reinterpret_cast<uintptr_t>(p + begin);
    int64_t head = static_cast<int64_t>((16 - addr % 16) % 16 / sizeof(In));
    if (head > end - begin) head = end - begin;
    for (int64_t i = tid; i < head; i += nt)
      acc = ops.reduce(acc, p[begin + i], begin + i);  // head may exceed nt
    const int64_t start = begin + head;
    const int64_t nvec = (end - start) / V;
    const Vec<In, V>* vp = reinterpret_cast<const Vec<In, V>*>(p + start);
    acc_t lanes[V];
#pragma unroll
    for (int k = 0; k < V; ++k) lanes[k] = ops.identity();
      // unrolled so several 16-byte loads are in flight per thread; each lane still folds in order
#pragma unroll 4
    for (int64_t i = tid; i < nvec; i += nt) {
      const Vec<In, V> v = vp[i];
#pragma unroll
      for (int k = 0; k < V; ++k) lanes[k] = ops.reduce(lanes[k], v.v[k], start + i * V + k);
    }
#pragma unroll
    for (int k = 0; k < V; ++k) acc = ops.combine(acc, lanes[k]);
    for (int64_t i = start + nvec * V + tid; i < end; i += nt) acc = ops.reduce(acc, p[i], i);
  } else {
    for (int64_t i = begin + tid; i < end; i += nt) acc = ops.reduce(acc, p[i], i);
  }
  return acc;
}

// Running (max, sum of exp(x - max)) for logsumexp and softmax in one pass. The max propagates NaN like the
// CPU's; once the max is not finite the sum no longer matters (callers return the max or NaN).
template <typename op_t>
struct LseAcc {
  op_t m, s;
};

template <typename T>
struct LseOps {
  using op_t = opmath_t<T>;
  using acc_t = LseAcc<op_t>;
  __device__ __forceinline__ acc_t identity() const { return {-INFINITY, op_t(0)}; }
  __device__ __forceinline__ acc_t reduce(acc_t a, T x, int64_t) const {
    const op_t v = static_cast<op_t>(x);
    if (d_isnan(a.m)) return a;
    if (d_isnan(v)) return {v, a.s};
    if (v > a.m) return {v, a.s * d_exp(a.m - v) + op_t(1)};  // a.m = -inf: exp(-inf) = 0
    if (v == -INFINITY) return a;                             // contributes 0; avoids exp(-inf - -inf)
    return {a.m, a.s + d_exp(v - a.m)};
  }
  __device__ __forceinline__ acc_t combine(acc_t a, acc_t b) const {
    if (d_isnan(a.m)) return a;
    if (d_isnan(b.m)) return b;
    const op_t m = a.m > b.m ? a.m : b.m;
    if (m == -INFINITY) return a;
    return {m, a.s * d_exp(a.m - m) + b.s * d_exp(b.m - m)};
  }
};

}  // namespace cuda_reduce
}  // namespace mt
