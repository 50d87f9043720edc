// CUDA multi-tensor apply (PyTorch's / apex's scheme): tensors are cut into 64K-element chunks and one launch
// covers up to 320 chunks of many tensors, their addresses travelling in a kernel-argument struct, so an
// optimizer step over a whole model is a handful of launches. The math is kernels/foreach_functors.h.
#include <cuda_runtime.h>

#include <cmath>
#include <type_traits>

#include "cuda/CUDAContext.h"
#include "cuda/Exceptions.h"
#include "kernels/MultiTensorPlan.h"
#include "kernels/cuda/ReduceUtils.cuh"
#include "kernels/foreach_functors.h"
#include "ops/foreach.h"

namespace mt {
namespace {

using cuda_reduce::group_allreduce;
using cuda_reduce::kWarp;

constexpr int64_t kChunk = 65536;
constexpr int kThreads = 512;
constexpr int kMaxBlocks = 320;
// Tensors per launch by depth: the metadata below stays under the 4 KiB kernel-argument limit of CUDA < 12.1.
constexpr int max_tensors(int depth) {
  return depth == 1 ? 96 : depth == 2 ? 72 : depth == 3 ? 56 : depth == 4 ? 48 : 40;
}

template <int D>
struct TensorListMeta {
  static constexpr int N = max_tensors(D);
  void* addresses[D][N];
  int64_t numel[N];
  const float* slot[N];  // per-tensor step (optimizers), or null
  unsigned char block_to_tensor[kMaxBlocks];
  int block_to_chunk[kMaxBlocks];
};

// GradScaler's operands of an optimizer step (ForeachArgs::grad_scale / skip_if), device pointers or null.
struct AmpPtrs {
  const float* grad_scale;
  const float* skip_if;
};

template <typename scalar_t, typename F, int D>
__global__ void __launch_bounds__(kThreads)
    multi_tensor_apply_kernel(const TensorListMeta<D> meta, const F f, const AmpPtrs amp) {
  using T = opmath_t<scalar_t>;
  if (amp.skip_if && *amp.skip_if != 0.0f) return;  // the step is skipped: every block reads the same flag
  const int t = meta.block_to_tensor[blockIdx.x];
  const int64_t start = static_cast<int64_t>(meta.block_to_chunk[blockIdx.x]) * kChunk;
  const int64_t n = cuda_reduce::min64(kChunk, meta.numel[t] - start);
  scalar_t* ptrs[D];
#pragma unroll
  for (int k = 0; k < D; ++k) ptrs[k] = static_cast<scalar_t*>(meta.addresses[k][t]) + start;
  const F g = foreach_fn::with_step(f, meta.slot[t] ? *meta.slot[t] : 0.0f);
  // four elements in flight per thread: independent loads hide memory latency
  constexpr int kILP = 4;
  for (int64_t base = 0; base < n; base += static_cast<int64_t>(blockDim.x) * kILP) {
    T v[kILP][D];
#pragma unroll
    for (int u = 0; u < kILP; ++u) {
      const int64_t i = base + threadIdx.x + static_cast<int64_t>(u) * blockDim.x;
      if (i < n) {
#pragma unroll
        for (int k = 0; k < D; ++k) v[u][k] = static_cast<T>(ptrs[k][i]);
        if constexpr (D >= 2) {
          if (amp.grad_scale) {  // list 1 holds the grads: unscaled, and stored so, before the step
            v[u][1] = v[u][1] / static_cast<T>(*amp.grad_scale);
            ptrs[1][i] = static_cast<scalar_t>(v[u][1]);
          }
        }
      }
    }
#pragma unroll
    for (int u = 0; u < kILP; ++u) {
      const int64_t i = base + threadIdx.x + static_cast<int64_t>(u) * blockDim.x;
      if (i < n) {
        g(v[u]);
#pragma unroll
        for (int k = 0; k < D; ++k)
          if (F::kOut & (1u << k)) ptrs[k][i] = static_cast<scalar_t>(v[u][k]);
      }
    }
  }
}

// Fills the metadata tensor by tensor and chunk by chunk (kernels/MultiTensorPlan.h) and launches when the
// blocks or the tensor slots run out.
template <typename scalar_t, typename F>
void multi_tensor_apply(const std::vector<TensorList>& lists, const TensorList& slots, const F& f,
                        const AmpPtrs amp, cudaStream_t stream) {
  constexpr int D = F::kDepth;
  using Meta = TensorListMeta<D>;
  static_assert(sizeof(Meta) + sizeof(F) + sizeof(AmpPtrs) <= 4000, "kernel arguments exceed 4 KiB");
  MT_INTERNAL_ASSERT(static_cast<int>(lists.size()) == D, "foreach: ", lists.size(), " lists for depth ", D);
  Meta meta;
  plan_multi_tensor(
      lists[0].size(), kChunk, Meta::N, kMaxBlocks, meta, [&](size_t i) { return lists[0][i].numel(); },
      [&](int slot, size_t i) {
        for (int k = 0; k < D; ++k) meta.addresses[k][slot] = lists[k][i].data_ptr();
        meta.numel[slot] = lists[0][i].numel();
        meta.slot[slot] = slots.empty() ? nullptr : slots[i].data<float>();
      },
      [&](int slot) {
        for (int k = 0; k < D; ++k) meta.addresses[k][0] = meta.addresses[k][slot];
        meta.numel[0] = meta.numel[slot];
        meta.slot[0] = meta.slot[slot];
      },
      [&](int nblocks) {
        multi_tensor_apply_kernel<scalar_t, F, D><<<nblocks, kThreads, 0, stream>>>(meta, f, amp);
        MT_CUDA_CHECK(cudaGetLastError());
      });
}

void foreach_cuda(const std::vector<TensorList>& lists, const TensorList& slots, const ForeachArgs& args) {
  const Device dev = lists[0][0].device();
  cuda::DeviceGuard guard(dev);
  cudaStream_t stream = cuda::current_stream(dev.index);
  MT_DISPATCH_FLOATING_TYPES(lists[0][0].dtype(), "foreach_cuda", [&] {
    foreach_fn::visit<opmath_t<scalar_t>>(args, [&](const auto& f) {
      multi_tensor_apply<scalar_t>(lists, slots, f, AmpPtrs{args.grad_scale, args.skip_if}, stream);
    });
  });
}

// ---- _foreach_norm: pass 1 reduces each (tensor, chunk) block to one partial in a scratch buffer; pass 2
// folds each tensor's partials in a fixed order (one block per tensor), so results are deterministic.
constexpr int kNormTensors = 96;
struct NormMeta {
  const void* addresses[kNormTensors];
  int64_t numel[kNormTensors];
  int64_t partial_base[kNormTensors];
  unsigned char block_to_tensor[kMaxBlocks];
  int block_to_chunk[kMaxBlocks];
};
constexpr int kFinishTensors = 64;
struct NormFinishMeta {
  void* out[kFinishTensors];
  int64_t base[kFinishTensors];
  int64_t count[kFinishTensors];
};

// ord: 0 = L1, 1 = L2 (sum of squares), 2 = max |x| (NaN wins)
template <typename A>
struct NormComb {
  int ord;
  __device__ __forceinline__ A operator()(A a, A b) const {
    if (ord == 2) return (a != a || b > a) ? (a != a ? a : b) : (b != b ? b : a);
    return a + b;
  }
};

template <typename scalar_t>
__global__ void __launch_bounds__(kThreads)
    norm_partial_kernel(const NormMeta meta, int ord, opmath_t<scalar_t>* partial) {
  using A = opmath_t<scalar_t>;
  __shared__ A smem[kThreads / kWarp];
  const int t = meta.block_to_tensor[blockIdx.x];
  const int chunk = meta.block_to_chunk[blockIdx.x];
  const int64_t start = static_cast<int64_t>(chunk) * kChunk;
  const int64_t n = cuda_reduce::min64(kChunk, meta.numel[t] - start);
  const scalar_t* p = static_cast<const scalar_t*>(meta.addresses[t]) + start;
  const NormComb<A> comb{ord};
  A acc = A(0);
  for (int64_t i = threadIdx.x; i < n; i += blockDim.x) {
    const A x = static_cast<A>(p[i]);
    const A a = x < A(0) ? -x : x;
    acc = comb(acc, ord == 1 ? x * x : a);
  }
  acc = group_allreduce(acc, comb, smem);
  if (threadIdx.x == 0) partial[meta.partial_base[t] + chunk] = acc;
}

template <typename scalar_t>
__global__ void __launch_bounds__(kThreads)
    norm_finish_kernel(const NormFinishMeta meta, int ord, const opmath_t<scalar_t>* partial) {
  using A = opmath_t<scalar_t>;
  __shared__ A smem[kThreads / kWarp];
  const int t = blockIdx.x;
  const NormComb<A> comb{ord};
  A acc = A(0);
  for (int64_t i = threadIdx.x; i < meta.count[t]; i += blockDim.x)
    acc = comb(acc, partial[meta.base[t] + i]);
  acc = group_allreduce(acc, comb, smem);
  if (threadIdx.x == 0) {
    if (ord == 1) acc = cuda_reduce::d_sqrt(acc);
    *static_cast<scalar_t*>(meta.out[t]) = static_cast<scalar_t>(acc);
  }
}

void foreach_norm_cuda(const TensorList& outs, const TensorList& in, double ord) {
  const Device dev = in[0].device();
  cuda::DeviceGuard guard(dev);
  cudaStream_t stream = cuda::current_stream(dev.index);
  const int kind = ord == 1 ? 0 : ord == 2 ? 1 : 2;
  int64_t total_chunks = 0;
  std::vector<int64_t> base(in.size());
  for (size_t i = 0; i < in.size(); ++i) {
    base[i] = total_chunks;
    total_chunks += (in[i].numel() + kChunk - 1) / kChunk;
  }
  MT_DISPATCH_FLOATING_TYPES(in[0].dtype(), "foreach_norm_cuda", [&] {
    using A = opmath_t<scalar_t>;
    const ScalarType acc_dt = std::is_same_v<A, double> ? ScalarType::Double : ScalarType::Float;
    // scratch from the caching allocator, on this stream: freed on return, reused only after these kernels
    Tensor partial_t = make_empty({total_chunks}, acc_dt, dev);
    A* partial = partial_t.data<A>();
    NormMeta meta;
    plan_multi_tensor(
        in.size(), kChunk, kNormTensors, kMaxBlocks, meta, [&](size_t i) { return in[i].numel(); },
        [&](int slot, size_t i) {
          meta.addresses[slot] = in[i].data_ptr();
          meta.numel[slot] = in[i].numel();
          meta.partial_base[slot] = base[i];
        },
        [&](int slot) {
          meta.addresses[0] = meta.addresses[slot];
          meta.numel[0] = meta.numel[slot];
          meta.partial_base[0] = meta.partial_base[slot];
        },
        [&](int nblocks) {
          norm_partial_kernel<scalar_t><<<nblocks, kThreads, 0, stream>>>(meta, kind, partial);
          MT_CUDA_CHECK(cudaGetLastError());
        });
    NormFinishMeta fin;
    for (size_t i0 = 0; i0 < in.size(); i0 += kFinishTensors) {
      const int m = static_cast<int>(std::min<size_t>(kFinishTensors, in.size() - i0));
      for (int j = 0; j < m; ++j) {
        fin.out[j] = outs[i0 + j].data_ptr();
        fin.base[j] = base[i0 + j];
        fin.count[j] = (in[i0 + j].numel() + kChunk - 1) / kChunk;
      }
      norm_finish_kernel<scalar_t><<<m, kThreads, 0, stream>>>(fin, kind, partial);
      MT_CUDA_CHECK(cudaGetLastError());
    }
  });
}

// ---- GradScaler's scale update: one thread, PyTorch's rule (see the CPU kernel).
__global__ void amp_update_scale_cuda_kernel(float* scale, int* growth_tracker, const float* found_inf,
                                             double growth_factor, double backoff_factor,
                                             int growth_interval) {
  if (*found_inf) {
    *scale = *scale * static_cast<float>(backoff_factor);
    *growth_tracker = 0;
  } else {
    const int successful = *growth_tracker + 1;
    if (successful == growth_interval) {
      const float grown = *scale * static_cast<float>(growth_factor);
      if (isfinite(grown)) *scale = grown;
      *growth_tracker = 0;
    } else {
      *growth_tracker = successful;
    }
  }
}

void amp_update_scale_cuda(const Tensor& scale, const Tensor& growth_tracker, const Tensor& found_inf,
                           double growth_factor, double backoff_factor, int64_t growth_interval) {
  const Device dev = scale.device();
  cuda::DeviceGuard guard(dev);
  amp_update_scale_cuda_kernel<<<1, 1, 0, cuda::current_stream(dev.index)>>>(
      scale.data<float>(), growth_tracker.data<int32_t>(), found_inf.data<float>(), growth_factor,
      backoff_factor, static_cast<int>(growth_interval));
  MT_CUDA_CHECK(cudaGetLastError());
}

}  // namespace

MT_REGISTER_KERNEL(foreach_stub, CUDA, &foreach_cuda);
MT_REGISTER_KERNEL(foreach_norm_stub, CUDA, &foreach_norm_cuda);
MT_REGISTER_KERNEL(amp_update_scale_stub, CUDA, &amp_update_scale_cuda);

}  // namespace mt
