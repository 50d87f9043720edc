// CUDA softmax / log_softmax along `row` of a contiguous outer x row x inner tensor (layout: ops/reduce.h).
// Two passes over the input: the running (max, sum of exp(x - max)) in opmath, then the outputs. inner == 1:
// a group of threads per row (a few lanes for short rows, a warp, or a whole block for long rows) with
// 16-byte loads; inner > 1: threads on the contiguous inner columns, rows shared by threads along y.
#include <cuda_runtime.h>

#include <algorithm>

#include "cuda/CUDAContext.h"
#include "cuda/Exceptions.h"
#include "kernels/cuda/ReduceUtils.cuh"
#include "ops/reduce.h"

namespace mt {
namespace {

using namespace cuda_reduce;

template <typename T>
__device__ __forceinline__ T to_out(opmath_t<T> v) {
  return static_cast<T>(v);
}

// One output from x and the row's (max, sum). As on the CPU: a max that is not finite (all -inf, +inf, NaN)
// gives NaN everywhere; log_softmax is (x - max) - log(sum).
template <typename T>
struct SoftmaxOut {
  using op_t = opmath_t<T>;
  op_t m, inv_or_log;
  bool log, finite;
  __device__ __forceinline__ SoftmaxOut(LseAcc<op_t> a, bool lg)
      : m(a.m), inv_or_log(lg ? d_log(a.s) : op_t(1) / a.s), log(lg), finite(d_isfinite(a.m)) {}
  __device__ __forceinline__ T operator()(T x) const {
    if (!finite) return to_out<T>(op_t(NAN));
    const op_t d = static_cast<op_t>(x) - m;
    return to_out<T>(log ? d - inv_or_log : d_exp(d) * inv_or_log);
  }
};

template <typename T, int V>
__global__ void softmax_rows_kernel(T* __restrict__ out, const T* __restrict__ in, int64_t outer, int64_t row,
                                    bool log) {
  using op_t = opmath_t<T>;
  using acc_t = LseAcc<op_t>;
  extern __shared__ __align__(16) unsigned char smem_raw[];
  acc_t* smem = reinterpret_cast<acc_t*>(smem_raw);
  const LseOps<T> ops;
  const int64_t r = blockIdx.x * static_cast<int64_t>(blockDim.y) + threadIdx.y;
  acc_t acc = ops.identity();
  if (r < outer) acc = thread_reduce<V>(ops, in + r * row, 0, row, threadIdx.x, blockDim.x);
  acc = group_allreduce(
      acc, [&](const acc_t& a, const acc_t& b) { return ops.combine(a, b); }, smem);
  if (r >= outer) return;
  const SoftmaxOut<T> f(acc, log);
  const T* p = in + r * row;
  T* q = out + r * row;
  const int tid = threadIdx.x, nt = blockDim.x;
  int64_t start = 0;
  if constexpr (V > 1) {
    // vectorized body when input and output rows share their 16-byte misalignment (fresh contiguous tensors)
    const auto ai = reinterpret_cast<uintptr_t>(p), ao = reinterpret_cast<uintptr_t>(q);
    if (ai % 16 == ao % 16) {
      int64_t head = static_cast<int64_t>((16 - ai % 16) % 16 / sizeof(T));
      if (head > row) head = row;
      for (int64_t i = tid; i < head; i += nt) q[i] = f(p[i]);  // head may exceed nt
      const int64_t nvec = (row - head) / V;
      const Vec<T, V>* vp = reinterpret_cast<const Vec<T, V>*>(p + head);
      Vec<T, V>* vq = reinterpret_cast<Vec<T, V>*>(q + head);
      for (int64_t i = tid; i < nvec; i += nt) {
        Vec<T, V> v = vp[i];
#pragma unroll
        for (int k = 0; k < V; ++k) v.v[k] = f(v.v[k]);
        vq[i] = v;
      }
      start = head + nvec * V;
    }
  }
  for (int64_t i = start + tid; i < row; i += nt) q[i] = f(p[i]);
}

// inner > 1: thread (x, y) of a block owns column c * bx + x of slice o and rows y, y + by, ...; the
// per-column (max, sum) is merged over y through shared memory and broadcast before the output pass.
template <typename T>
__global__ void softmax_cols_kernel(T* __restrict__ out, const T* __restrict__ in, int64_t row, int64_t inner,
                                    int64_t col_blocks, bool log) {
  using op_t = opmath_t<T>;
  using acc_t = LseAcc<op_t>;
  extern __shared__ __align__(16) unsigned char smem_raw[];
  acc_t* smem = reinterpret_cast<acc_t*>(smem_raw);
  const LseOps<T> ops;
  const int64_t o = blockIdx.x / col_blocks;
  const int64_t j = (blockIdx.x % col_blocks) * blockDim.x + threadIdx.x;
  const int64_t base = o * row * inner + j;
  acc_t acc = ops.identity();
  if (j < inner)
    for (int64_t r = threadIdx.y; r < row; r += blockDim.y) acc = ops.reduce(acc, in[base + r * inner], r);
  acc = column_merge<true>(
      acc, [&](const acc_t& a, const acc_t& b) { return ops.combine(a, b); }, smem);
  if (j >= inner) return;
  const SoftmaxOut<T> f(acc, log);
  for (int64_t r = threadIdx.y; r < row; r += blockDim.y) out[base + r * inner] = f(in[base + r * inner]);
}

void softmax_cuda(const Tensor& out, const Tensor& in, int64_t row, int64_t inner, bool log) {
  const Device dev = in.device();
  cuda::DeviceGuard guard(dev);
  cudaStream_t stream = cuda::current_stream(dev.index);
  const int64_t outer = in.numel() / (row * inner);
  if (outer == 0 || row == 0 || inner == 0) return;
  MT_DISPATCH_FLOATING_TYPES(in.dtype(), log ? "log_softmax_cuda" : "softmax_cuda", [&] {
    using T = scalar_t;
    using acc_t = LseAcc<opmath_t<T>>;
    const T* p = in.data<T>();
    T* q = out.data<T>();
    if (inner == 1) {
      constexpr int V = vec_width<T>();
      // ~2 vectors per thread per pass before a row gets more threads; one 512-thread block for long rows
      const auto [bx, by, col_blocks, grid_x, smem] = block_shape<acc_t>(outer, row, inner, V, "softmax");
      softmax_rows_kernel<T, V>
          <<<static_cast<unsigned>(grid_x), dim3(bx, by), smem, stream>>>(q, p, outer, row, log);
    } else {
      const auto [bx, by, col_blocks, grid_x, smem] = block_shape<acc_t>(outer, row, inner, 1, "softmax");
      softmax_cols_kernel<T>
          <<<static_cast<unsigned>(grid_x), dim3(bx, by), smem, stream>>>(q, p, row, inner, col_blocks, log);
    }
    MT_CUDA_CHECK(cudaGetLastError());
  });
}

}  // namespace

MT_REGISTER_KERNEL(softmax_stub, CUDA, &softmax_cuda);

}  // namespace mt
