// CUDA scaled dot-product attention: scores and output by cuBLAS batched GEMMs (through bmm), between them
// one kernel that scales, masks and softmaxes each score row in place (fully masked rows give zeros) and
// writes the row's log-sum-exp. O(L * S) scratch per batch; simple rather than flash-style.
#include <cuda_runtime.h>

#include <algorithm>

#include "cuda/CUDAContext.h"
#include "cuda/Exceptions.h"
#include "ops/attention.h"
#include "ops/copy.h"
#include "ops/linalg.h"
#include "ops/shape.h"

namespace mt {
namespace {

constexpr int kThreads = 128;  // a power of two: the tree reductions below halve it
constexpr int64_t kMaxGrid = 65535;

template <typename A>
__device__ A block_max(A v, A* sh) {
  sh[threadIdx.x] = v;
  __syncthreads();
  for (int s = kThreads / 2; s > 0; s /= 2) {
    if (threadIdx.x < s) {
      A o = sh[threadIdx.x + s];
      // NaN wins, so a row with a NaN score comes out NaN as softmax's does
      if (!isnan(sh[threadIdx.x]) && !(o <= sh[threadIdx.x])) sh[threadIdx.x] = o;
    }
    __syncthreads();
  }
  A r = sh[0];
  __syncthreads();
  return r;
}

template <typename A>
__device__ A block_sum(A v, A* sh) {
  sh[threadIdx.x] = v;
  __syncthreads();
  for (int s = kThreads / 2; s > 0; s /= 2) {
    if (threadIdx.x < s) sh[threadIdx.x] += sh[threadIdx.x + s];
    __syncthreads();
  }
  A r = sh[0];
  __syncthreads();
  return r;
}

// One block per score row (b, i) of sc [B, L, S] (grid-stride over rows).
template <typename T>
__global__ void masked_softmax_kernel(T* __restrict__ sc, opmath_t<T>* __restrict__ lse,
                                      const T* __restrict__ mask, SdpaArgs a) {
  using A = opmath_t<T>;
  __shared__ A sh[kThreads];
  const A ninf = -INFINITY;
  for (int64_t row = blockIdx.x; row < a.B * a.L; row += gridDim.x) {
    const int64_t b = row / a.L, i = row % a.L;
    T* s = sc + row * a.S;
    const T* mr = mask ? mask + (b / a.m_inner) * a.m_so + (b % a.m_inner) * a.m_si + i * a.m_sl : nullptr;
    const int64_t n = a.causal ? (i + 1 < a.S ? i + 1 : a.S) : a.S;
    A mx = ninf;
    for (int64_t j = threadIdx.x; j < n; j += kThreads) {
      A x = static_cast<A>(s[j]) * static_cast<A>(a.scale);
      if (mr) x += static_cast<A>(mr[j * a.m_ss]);
      if (!isnan(mx) && !(x <= mx)) mx = x;  // a NaN, once met, stays
    }
    mx = block_max(mx, sh);
    const bool dead = mx == ninf || isnan(mx);
    A sum = 0;
    if (!dead) {
      for (int64_t j = threadIdx.x; j < n; j += kThreads) {
        A x = static_cast<A>(s[j]) * static_cast<A>(a.scale);
        if (mr) x += static_cast<A>(mr[j * a.m_ss]);
        sum += exp(x - mx);
      }
    }
    sum = block_sum(sum, sh);
    const A inv = dead ? A(0) : A(1) / sum;
    for (int64_t j = threadIdx.x; j < a.S; j += kThreads) {
      A p = 0;
      if (isnan(mx)) {
        p = mx;
      } else if (!dead && j < n) {
        A x = static_cast<A>(s[j]) * static_cast<A>(a.scale);
        if (mr) x += static_cast<A>(mr[j * a.m_ss]);
        p = exp(x - mx) * inv;
      }
      s[j] = static_cast<T>(p);
    }
    if (threadIdx.x == 0) lse[row] = isnan(mx) ? mx : (dead ? ninf : mx + log(sum));
  }
}

void sdpa_forward_cuda(const Tensor& out, const Tensor& lse, const Tensor& q, const Tensor& k,
                       const Tensor& v, const Tensor& mask, const SdpaArgs& a) {
  cuda::DeviceGuard guard(q.device());
  Tensor sc = bmm(q, transpose(k, 1, 2));  // [B, L, S], contiguous
  cudaStream_t stream = cuda::current_stream(q.device().index);
  unsigned blocks = static_cast<unsigned>(std::max<int64_t>(1, std::min<int64_t>(a.B * a.L, kMaxGrid)));
  switch (q.dtype()) {
#define MT_SDPA_CASE(name, T)                                                                                \
  case ScalarType::name:                                                                                     \
    masked_softmax_kernel<T><<<blocks, kThreads, 0, stream>>>(sc.data<T>(), lse.data<opmath_t<T>>(),         \
                                                              mask.defined() ? mask.data<T>() : nullptr, a); \
    break;
    MT_SDPA_CASE(Float, float)
    MT_SDPA_CASE(Double, double)
    MT_SDPA_CASE(Half, Half)
    MT_SDPA_CASE(BFloat16, BFloat16)
#undef MT_SDPA_CASE
    default:
      MT_CHECK(false, "\"scaled_dot_product_attention_cuda\" not implemented for '",
               dtype_short_name(q.dtype()), "'");
  }
  MT_CUDA_CHECK(cudaGetLastError());
  copy_(out, bmm(sc, v));
}

}  // namespace

MT_REGISTER_KERNEL(sdpa_forward_stub, CUDA, &sdpa_forward_cuda);

}  // namespace mt
