// CUDA normalization kernels beside their launchers: row and channel statistics (two passes in the statistics
// dtype) and the fused normalize+affine pass (layouts: ops/nn.h). Dropout and embedding have their own files.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>

#include "core/Generator.h"
#include "cuda/CUDAContext.h"
#include "cuda/Exceptions.h"
#include "ops/nn.h"

namespace mt {
namespace {

template <typename T>
using stat_t = std::conditional_t<std::is_same_v<T, double>, double, float>;

constexpr int kMaxGrid = 65535;

// Sum over the block (blockDim.x a multiple of 32, at most 1024); every thread gets the result.
template <typename A>
__device__ __forceinline__ A block_sum(A v, A* smem) {
  for (int m = 16; m > 0; m >>= 1) v += __shfl_xor_sync(0xffffffffu, v, m);
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, nw = blockDim.x / 32;
  __syncthreads();  // smem may still be read by the previous call
  if (lane == 0) smem[warp] = v;
  __syncthreads();
  A r = 0;
  for (int i = 0; i < nw; ++i) r += smem[i];
  return r;
}

int threads_for(int64_t n) {
  int t = 32;
  while (t < 256 && t < n) t *= 2;
  return t;
}

// One block per row (grid-stride over rows): mean, then the squared deviations (the row is re-read from L2),
// then the outputs.
template <typename T>
__global__ void row_norm_kernel(T* __restrict__ y, stat_t<T>* __restrict__ mean, stat_t<T>* __restrict__ rstd,
                                const T* __restrict__ x, const stat_t<T>* __restrict__ w,
                                const stat_t<T>* __restrict__ b, int64_t M, int64_t N, double eps) {
  using A = stat_t<T>;
  using op_t = opmath_t<T>;
  __shared__ A smem[32];
  for (int64_t r = blockIdx.x; r < M; r += gridDim.x) {
    const T* row = x + r * N;
    A s = 0;
    for (int64_t j = threadIdx.x; j < N; j += blockDim.x) s += static_cast<A>(static_cast<op_t>(row[j]));
    A m = block_sum(s, smem) / static_cast<A>(N);
    // The float sum of values far from zero (mean 1e4, spread 1) misses the mean by more than the spread's
    // resolution; the deviations' own sum corrects it (the corrected two-pass formula).
    A q = 0, e = 0;
    for (int64_t j = threadIdx.x; j < N; j += blockDim.x) {
      A d = static_cast<A>(static_cast<op_t>(row[j])) - m;
      q += d * d;
      e += d;
    }
    q = block_sum(q, smem);
    e = block_sum(e, smem);
    m += e / static_cast<A>(N);
    A var = max((q - e * e / static_cast<A>(N)) / static_cast<A>(N), A(0));
    A rs = static_cast<A>(1) / sqrt(var + static_cast<A>(eps));
    if (threadIdx.x == 0) {
      mean[r] = m;
      rstd[r] = rs;
    }
    if (y == nullptr) continue;
    T* out = y + r * N;
    for (int64_t j = threadIdx.x; j < N; j += blockDim.x) {
      A v = (static_cast<A>(static_cast<op_t>(row[j])) - m) * rs;
      if (w) v *= w[j];
      if (b) v += b[j];
      out[j] = static_cast<T>(static_cast<op_t>(v));
    }
  }
}

void row_norm_cuda(const Tensor& y, const Tensor& mean, const Tensor& rstd, const Tensor& x, const Tensor& w,
                   const Tensor& b, int64_t M, int64_t N, double eps) {
  cuda::DeviceGuard guard(x.device());
  cudaStream_t stream = cuda::current_stream(x.device().index);
  int threads = threads_for(N);
  unsigned blocks = static_cast<unsigned>(std::min<int64_t>(M, kMaxGrid));
  MT_DISPATCH_FLOATING_TYPES(x.dtype(), "layer_norm_cuda", [&] {
    using A = stat_t<scalar_t>;
    row_norm_kernel<scalar_t><<<blocks, threads, 0, stream>>>(
        y.defined() ? y.data<scalar_t>() : nullptr, mean.data<A>(), rstd.data<A>(), x.data<scalar_t>(),
        w.defined() ? w.data<A>() : nullptr, b.defined() ? b.data<A>() : nullptr, M, N, eps);
    MT_CUDA_CHECK(cudaGetLastError());
  });
}

// One block per channel (grid-stride over channels), walking the N strips of S elements.
template <typename T>
__global__ void channel_stats_kernel(stat_t<T>* __restrict__ mean, stat_t<T>* __restrict__ var,
                                     stat_t<T>* __restrict__ rstd, const T* __restrict__ x, int64_t N,
                                     int64_t C, int64_t S, double eps) {
  using A = stat_t<T>;
  using op_t = opmath_t<T>;
  __shared__ A smem[32];
  const int64_t count = N * S;
  for (int64_t c = blockIdx.x; c < C; c += gridDim.x) {
    A s = 0;
    for (int64_t i = threadIdx.x; i < count; i += blockDim.x) {
      int64_t n = i / S, k = i - n * S;
      s += static_cast<A>(static_cast<op_t>(x[(n * C + c) * S + k]));
    }
    A m = block_sum(s, smem) / static_cast<A>(count);
    A q = 0, e = 0;  // corrected two-pass, as in row_norm_kernel
    for (int64_t i = threadIdx.x; i < count; i += blockDim.x) {
      int64_t n = i / S, k = i - n * S;
      A d = static_cast<A>(static_cast<op_t>(x[(n * C + c) * S + k])) - m;
      q += d * d;
      e += d;
    }
    q = block_sum(q, smem);
    e = block_sum(e, smem);
    m += e / static_cast<A>(count);
    A v = max((q - e * e / static_cast<A>(count)) / static_cast<A>(count), A(0));
    if (threadIdx.x == 0) {
      mean[c] = m;
      var[c] = v;
      rstd[c] = static_cast<A>(1) / sqrt(v + static_cast<A>(eps));
    }
  }
}

// ---- Few channels over many elements (ResNet's first stages: 64 channels of 100k elements at batch 32): one
// block per channel leaves most SMs idle, so each channel is cut into P parts of whole strips (grid P x C),
// each part reduced by one block, and a second kernel folds a channel's parts in a fixed order
// (deterministic).

// How many parts per channel: enough blocks for every SM a few times over, each part at least ~4K elements
// and whole strips (no division per element). 1: the one-block-per-channel kernels above.
int parts_per_channel(int64_t N, int64_t C, int64_t S, int device) {
  const int64_t target = 4 * static_cast<int64_t>(cuda::sm_count(device));
  if (C >= target) return 1;
  int64_t p = (target + C - 1) / C;
  p = std::min({p, N, std::max<int64_t>(1, N * S / 4096), int64_t(kMaxGrid)});
  return static_cast<int>(std::max<int64_t>(p, 1));
}

// Part p of channel c: strips [N p / P, N (p + 1) / P). Its count, mean and M2 (sum of squared deviations),
// two passes as channel_stats_kernel, into part[(c P + p) * 3 ...].
template <typename T>
__global__ void channel_part_stats_kernel(stat_t<T>* __restrict__ part, const T* __restrict__ x, int64_t N,
                                          int64_t C, int64_t S) {
  using A = stat_t<T>;
  using op_t = opmath_t<T>;
  __shared__ A smem[32];
  const int64_t c = blockIdx.y, P = gridDim.x, p = blockIdx.x;
  const int64_t n0 = N * p / P, n1 = N * (p + 1) / P;
  const A cnt = static_cast<A>((n1 - n0) * S);
  A s = 0;
  for (int64_t n = n0; n < n1; ++n) {
    const T* row = x + (n * C + c) * S;
    for (int64_t k = threadIdx.x; k < S; k += blockDim.x) s += static_cast<A>(static_cast<op_t>(row[k]));
  }
  const A m = block_sum(s, smem) / cnt;
  A q = 0, e = 0;
  for (int64_t n = n0; n < n1; ++n) {
    const T* row = x + (n * C + c) * S;
    for (int64_t k = threadIdx.x; k < S; k += blockDim.x) {
      const A d = static_cast<A>(static_cast<op_t>(row[k])) - m;
      q += d * d;
      e += d;
    }
  }
  q = block_sum(q, smem);
  e = block_sum(e, smem);
  if (threadIdx.x == 0) {
    A* o = part + (c * P + p) * 3;
    o[0] = cnt;
    o[1] = m + e / cnt;
    o[2] = max(q - e * e / cnt, A(0));
  }
}

// Chan et al.'s pairwise update folds the parts of a channel, in part order.
template <typename A>
__global__ void channel_fold_stats_kernel(A* __restrict__ mean, A* __restrict__ var, A* __restrict__ rstd,
                                          const A* __restrict__ part, int64_t C, int P, double eps) {
  for (int64_t c = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; c < C;
       c += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const A* q = part + c * P * 3;
    A na = q[0], ma = q[1], m2 = q[2];
    for (int p = 1; p < P; ++p) {
      const A nb = q[3 * p], mb = q[3 * p + 1], n = na + nb, d = mb - ma;
      ma += d * (nb / n);
      m2 += q[3 * p + 2] + d * d * (na * nb / n);
      na = n;
    }
    const A v = max(m2 / na, A(0));
    mean[c] = ma;
    var[c] = v;
    rstd[c] = static_cast<A>(1) / sqrt(v + static_cast<A>(eps));
  }
}

void channel_stats_cuda(const Tensor& mean, const Tensor& var, const Tensor& rstd, const Tensor& x, int64_t N,
                        int64_t C, int64_t S, double eps) {
  cuda::DeviceGuard guard(x.device());
  cudaStream_t stream = cuda::current_stream(x.device().index);
  const int P = parts_per_channel(N, C, S, x.device().index);
  if (P > 1) {
    MT_DISPATCH_FLOATING_TYPES(x.dtype(), "batch_norm_cuda", [&] {
      using A = stat_t<scalar_t>;
      // scratch from the caching allocator on this stream: reused only after these kernels
      Tensor part = make_empty({C * P * 3}, mean.dtype(), x.device());
      channel_part_stats_kernel<scalar_t>
          <<<dim3(static_cast<unsigned>(P), static_cast<unsigned>(C)), threads_for(S), 0, stream>>>(
              part.data<A>(), x.data<scalar_t>(), N, C, S);
      MT_CUDA_CHECK(cudaGetLastError());
      channel_fold_stats_kernel<A><<<static_cast<unsigned>((C + 127) / 128), 128, 0, stream>>>(
          mean.data<A>(), var.data<A>(), rstd.data<A>(), part.data<A>(), C, P, eps);
      MT_CUDA_CHECK(cudaGetLastError());
    });
    return;
  }
  int threads = threads_for(N * S) < 256 ? threads_for(N * S) : 512;
  unsigned blocks = static_cast<unsigned>(std::min<int64_t>(C, kMaxGrid));
  MT_DISPATCH_FLOATING_TYPES(x.dtype(), "batch_norm_cuda", [&] {
    using A = stat_t<scalar_t>;
    channel_stats_kernel<scalar_t><<<blocks, threads, 0, stream>>>(
        mean.data<A>(), var.data<A>(), rstd.data<A>(), x.data<scalar_t>(), N, C, S, eps);
    MT_CUDA_CHECK(cudaGetLastError());
  });
}

// y = (x - mean) * rstd * w + b; statistics per channel (G == 0) or per (n, group) (G > 0).
template <typename T>
__global__ void channel_affine_kernel(T* __restrict__ y, const T* __restrict__ x,
                                      const stat_t<T>* __restrict__ mean, const stat_t<T>* __restrict__ rstd,
                                      const stat_t<T>* __restrict__ w, const stat_t<T>* __restrict__ b,
                                      int64_t total, int64_t C, int64_t S, int64_t G) {
  using op_t = opmath_t<T>;
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < total;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    int64_t strip = i / S;
    int64_t c = strip % C;
    int64_t k = G > 0 ? (strip / C) * G + c / (C / G) : c;
    op_t a = static_cast<op_t>(rstd[k]) * (w ? static_cast<op_t>(w[c]) : op_t(1));
    op_t v =
        (static_cast<op_t>(x[i]) - static_cast<op_t>(mean[k])) * a + (b ? static_cast<op_t>(b[c]) : op_t(0));
    y[i] = static_cast<T>(v);
  }
}

void channel_affine_cuda(const Tensor& y, const Tensor& x, const Tensor& mean, const Tensor& rstd,
                         const Tensor& w, const Tensor& b, int64_t N, int64_t C, int64_t S, int64_t G) {
  cuda::DeviceGuard guard(x.device());
  cudaStream_t stream = cuda::current_stream(x.device().index);
  int64_t total = x.numel();
  const int threads = 256;
  unsigned blocks = static_cast<unsigned>(cuda::grid_size(total, threads, x.device().index));
  MT_DISPATCH_FLOATING_TYPES(x.dtype(), "batch_norm_cuda", [&] {
    using A = stat_t<scalar_t>;
    channel_affine_kernel<scalar_t><<<blocks, threads, 0, stream>>>(
        y.data<scalar_t>(), x.data<scalar_t>(), mean.data<A>(), rstd.data<A>(),
        w.defined() ? w.data<A>() : nullptr, b.defined() ? b.data<A>() : nullptr, total, C, S, G);
    MT_CUDA_CHECK(cudaGetLastError());
  });
}

// Backward of row_norm_cuda, input part: one block per row, the two row sums, then dx.
template <typename T>
__global__ void row_norm_backward_kernel(T* __restrict__ dx, const T* __restrict__ g, const T* __restrict__ x,
                                         const stat_t<T>* __restrict__ mean,
                                         const stat_t<T>* __restrict__ rstd, const stat_t<T>* __restrict__ w,
                                         int64_t M, int64_t N) {
  using A = stat_t<T>;
  using op_t = opmath_t<T>;
  __shared__ A smem[32];
  for (int64_t r = blockIdx.x; r < M; r += gridDim.x) {
    const T* xr = x + r * N;
    const T* gr = g + r * N;
    const A m = mean[r], rs = rstd[r];
    A s1 = 0, s2 = 0;
    for (int64_t j = threadIdx.x; j < N; j += blockDim.x) {
      A gw = static_cast<A>(static_cast<op_t>(gr[j])) * (w ? w[j] : A(1));
      s1 += gw;
      s2 += gw * (static_cast<A>(static_cast<op_t>(xr[j])) - m) * rs;
    }
    const A a = block_sum(s1, smem) / static_cast<A>(N);
    const A b = block_sum(s2, smem) / static_cast<A>(N);
    T* dr = dx + r * N;
    for (int64_t j = threadIdx.x; j < N; j += blockDim.x) {
      A gw = static_cast<A>(static_cast<op_t>(gr[j])) * (w ? w[j] : A(1));
      A xh = (static_cast<A>(static_cast<op_t>(xr[j])) - m) * rs;
      dr[j] = static_cast<T>(static_cast<op_t>(rs * (gw - a - xh * b)));
    }
  }
}

// Column sums over the M rows: 32 columns per block, 8 row lanes merged through shared memory.
template <typename T>
__global__ void row_norm_param_grad_kernel(stat_t<T>* __restrict__ dw, stat_t<T>* __restrict__ db,
                                           const T* __restrict__ g, const T* __restrict__ x,
                                           const stat_t<T>* __restrict__ mean,
                                           const stat_t<T>* __restrict__ rstd, int64_t M, int64_t N) {
  using A = stat_t<T>;
  using op_t = opmath_t<T>;
  __shared__ A sw[8][33], sb[8][33];
  const int64_t j = blockIdx.x * 32 + threadIdx.x;
  A aw = 0, ab = 0;
  if (j < N)
    for (int64_t r = threadIdx.y; r < M; r += blockDim.y) {
      A gv = static_cast<A>(static_cast<op_t>(g[r * N + j]));
      aw += gv * (static_cast<A>(static_cast<op_t>(x[r * N + j])) - mean[r]) * rstd[r];
      ab += gv;
    }
  sw[threadIdx.y][threadIdx.x] = aw;
  sb[threadIdx.y][threadIdx.x] = ab;
  __syncthreads();
  if (threadIdx.y == 0 && j < N) {
    for (int k = 1; k < 8; ++k) {
      aw += sw[k][threadIdx.x];
      ab += sb[k][threadIdx.x];
    }
    if (dw) dw[j] = aw;
    if (db) db[j] = ab;
  }
}

void row_norm_backward_cuda(const Tensor& dx, const Tensor& dw, const Tensor& db, const Tensor& g,
                            const Tensor& x, const Tensor& mean, const Tensor& rstd, const Tensor& w,
                            int64_t M, int64_t N) {
  cuda::DeviceGuard guard(x.device());
  cudaStream_t stream = cuda::current_stream(x.device().index);
  MT_DISPATCH_FLOATING_TYPES(x.dtype(), "layer_norm_backward_cuda", [&] {
    using A = stat_t<scalar_t>;
    if (dx.defined()) {
      row_norm_backward_kernel<scalar_t>
          <<<static_cast<unsigned>(std::min<int64_t>(M, kMaxGrid)), threads_for(N), 0, stream>>>(
              dx.data<scalar_t>(), g.data<scalar_t>(), x.data<scalar_t>(), mean.data<A>(), rstd.data<A>(),
              w.defined() ? w.data<A>() : nullptr, M, N);
      MT_CUDA_CHECK(cudaGetLastError());
    }
    if (dw.defined() || db.defined()) {
      row_norm_param_grad_kernel<scalar_t><<<static_cast<unsigned>((N + 31) / 32), dim3(32, 8), 0, stream>>>(
          dw.defined() ? dw.data<A>() : nullptr, db.defined() ? db.data<A>() : nullptr, g.data<scalar_t>(),
          x.data<scalar_t>(), mean.data<A>(), rstd.data<A>(), M, N);
      MT_CUDA_CHECK(cudaGetLastError());
    }
  });
}

// Per channel: sum of g and of g * (x - mean), one block per channel.
template <typename T>
__global__ void channel_grad_sums_kernel(stat_t<T>* __restrict__ sum_g, stat_t<T>* __restrict__ sum_gx,
                                         const T* __restrict__ g, const T* __restrict__ x,
                                         const stat_t<T>* __restrict__ mean, int64_t N, int64_t C,
                                         int64_t S) {
  using A = stat_t<T>;
  using op_t = opmath_t<T>;
  __shared__ A smem[32];
  const int64_t count = N * S;
  for (int64_t c = blockIdx.x; c < C; c += gridDim.x) {
    const A m = mean[c];
    A a = 0, b = 0;
    for (int64_t i = threadIdx.x; i < count; i += blockDim.x) {
      int64_t n = i / S, k = i - n * S;
      int64_t off = (n * C + c) * S + k;
      A gv = static_cast<A>(static_cast<op_t>(g[off]));
      a += gv;
      b += gv * (static_cast<A>(static_cast<op_t>(x[off])) - m);
    }
    a = block_sum(a, smem);
    b = block_sum(b, smem);
    if (threadIdx.x == 0) {
      sum_g[c] = a;
      sum_gx[c] = b;
    }
  }
}

// The backward's channel sums split as the statistics are (parts_per_channel), folded in part order.
template <typename T>
__global__ void channel_part_grad_sums_kernel(stat_t<T>* __restrict__ part, const T* __restrict__ g,
                                              const T* __restrict__ x, const stat_t<T>* __restrict__ mean,
                                              int64_t N, int64_t C, int64_t S) {
  using A = stat_t<T>;
  using op_t = opmath_t<T>;
  __shared__ A smem[32];
  const int64_t c = blockIdx.y, P = gridDim.x, p = blockIdx.x;
  const int64_t n0 = N * p / P, n1 = N * (p + 1) / P;
  const A m = mean[c];
  A a = 0, b = 0;
  for (int64_t n = n0; n < n1; ++n) {
    const int64_t base = (n * C + c) * S;
    for (int64_t k = threadIdx.x; k < S; k += blockDim.x) {
      const A gv = static_cast<A>(static_cast<op_t>(g[base + k]));
      a += gv;
      b += gv * (static_cast<A>(static_cast<op_t>(x[base + k])) - m);
    }
  }
  a = block_sum(a, smem);
  b = block_sum(b, smem);
  if (threadIdx.x == 0) {
    part[(c * P + p) * 2] = a;
    part[(c * P + p) * 2 + 1] = b;
  }
}

template <typename A>
__global__ void channel_fold_sums_kernel(A* __restrict__ sum_g, A* __restrict__ sum_gx,
                                         const A* __restrict__ part, int64_t C, int P) {
  for (int64_t c = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; c < C;
       c += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    A a = 0, b = 0;
    for (int p = 0; p < P; ++p) {
      a += part[(c * P + p) * 2];
      b += part[(c * P + p) * 2 + 1];
    }
    sum_g[c] = a;
    sum_gx[c] = b;
  }
}

void channel_grad_sums_cuda(const Tensor& sum_g, const Tensor& sum_gx, const Tensor& g, const Tensor& x,
                            const Tensor& mean, int64_t N, int64_t C, int64_t S) {
  cuda::DeviceGuard guard(x.device());
  cudaStream_t stream = cuda::current_stream(x.device().index);
  const int P = parts_per_channel(N, C, S, x.device().index);
  if (P > 1) {
    MT_DISPATCH_FLOATING_TYPES(x.dtype(), "batch_norm_backward_cuda", [&] {
      using A = stat_t<scalar_t>;
      Tensor part = make_empty({C * P * 2}, sum_g.dtype(), x.device());
      channel_part_grad_sums_kernel<scalar_t>
          <<<dim3(static_cast<unsigned>(P), static_cast<unsigned>(C)), threads_for(S), 0, stream>>>(
              part.data<A>(), g.data<scalar_t>(), x.data<scalar_t>(), mean.data<A>(), N, C, S);
      MT_CUDA_CHECK(cudaGetLastError());
      channel_fold_sums_kernel<A><<<static_cast<unsigned>((C + 127) / 128), 128, 0, stream>>>(
          sum_g.data<A>(), sum_gx.data<A>(), part.data<A>(), C, P);
      MT_CUDA_CHECK(cudaGetLastError());
    });
    return;
  }
  int threads = threads_for(N * S) < 256 ? threads_for(N * S) : 512;
  unsigned blocks = static_cast<unsigned>(std::min<int64_t>(C, kMaxGrid));
  MT_DISPATCH_FLOATING_TYPES(x.dtype(), "batch_norm_backward_cuda", [&] {
    using A = stat_t<scalar_t>;
    channel_grad_sums_kernel<scalar_t><<<blocks, threads, 0, stream>>>(
        sum_g.data<A>(), sum_gx.data<A>(), g.data<scalar_t>(), x.data<scalar_t>(), mean.data<A>(), N, C, S);
    MT_CUDA_CHECK(cudaGetLastError());
  });
}

template <typename T>
__global__ void channel_grad_input_kernel(T* __restrict__ dx, const T* __restrict__ g,
                                          const T* __restrict__ x, const stat_t<T>* __restrict__ mean,
                                          const stat_t<T>* __restrict__ rstd, const stat_t<T>* __restrict__ w,
                                          const stat_t<T>* __restrict__ sum_g,
                                          const stat_t<T>* __restrict__ sum_gx, stat_t<T> inv, int64_t total,
                                          int64_t C, int64_t S) {
  using A = stat_t<T>;
  using op_t = opmath_t<T>;
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < total;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    int64_t c = (i / S) % C;
    A r = rstd[c];
    op_t a = static_cast<op_t>(r * (w ? w[c] : A(1)));
    // training: the batch statistics depend on x (the two mean terms); eval: only the scale
    op_t mg = sum_g ? static_cast<op_t>(sum_g[c] * inv) : op_t(0);
    op_t k = sum_gx ? static_cast<op_t>(r * r * sum_gx[c] * inv) : op_t(0);
    op_t v = (static_cast<op_t>(g[i]) - mg - (static_cast<op_t>(x[i]) - static_cast<op_t>(mean[c])) * k) * a;
    dx[i] = static_cast<T>(v);
  }
}

void channel_grad_input_cuda(const Tensor& dx, const Tensor& g, const Tensor& x, const Tensor& mean,
                             const Tensor& rstd, const Tensor& w, const Tensor& sum_g, const Tensor& sum_gx,
                             int64_t N, int64_t C, int64_t S) {
  cuda::DeviceGuard guard(x.device());
  cudaStream_t stream = cuda::current_stream(x.device().index);
  int64_t total = x.numel();
  const int threads = 256;
  unsigned blocks = static_cast<unsigned>(cuda::grid_size(total, threads, x.device().index));
  MT_DISPATCH_FLOATING_TYPES(x.dtype(), "batch_norm_backward_cuda", [&] {
    using A = stat_t<scalar_t>;
    channel_grad_input_kernel<scalar_t><<<blocks, threads, 0, stream>>>(
        dx.data<scalar_t>(), g.data<scalar_t>(), x.data<scalar_t>(), mean.data<A>(), rstd.data<A>(),
        w.defined() ? w.data<A>() : nullptr, sum_g.defined() ? sum_g.data<A>() : nullptr,
        sum_gx.defined() ? sum_gx.data<A>() : nullptr, static_cast<A>(1.0 / static_cast<double>(N * S)),
        total, C, S);
    MT_CUDA_CHECK(cudaGetLastError());
  });
}

}  // namespace

MT_REGISTER_KERNEL(row_norm_stub, CUDA, &row_norm_cuda);
MT_REGISTER_KERNEL(row_norm_backward_stub, CUDA, &row_norm_backward_cuda);
MT_REGISTER_KERNEL(channel_grad_sums_stub, CUDA, &channel_grad_sums_cuda);
MT_REGISTER_KERNEL(channel_grad_input_stub, CUDA, &channel_grad_input_cuda);
MT_REGISTER_KERNEL(channel_stats_stub, CUDA, &channel_stats_cuda);
MT_REGISTER_KERNEL(channel_affine_stub, CUDA, &channel_affine_cuda);

}  // namespace mt
