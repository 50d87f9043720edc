// Launcher for CUDA elementwise kernels over a TensorIter: a vectorized path for contiguous/broadcast-scalar
// operands and a strided path with 32-bit offset math. Functors receive opmath values, as the CPU loops do.
#pragma once
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <type_traits>

#include "core/ScalarType.h"
#include "core/TensorIterator.h"
#include "cuda/CUDAContext.h"
#include "cuda/Exceptions.h"

namespace mt {
namespace cuda_loops {

constexpr int kThreads = 256;
// Vectors per thread per iteration: the loads of all of them are issued before any compute, so each thread
// keeps several 16-byte loads in flight.
constexpr int kUnroll = 2;
// Merged dims the strided kernel handles in one launch (the loop over them is unrolled); more are split on
// the host.
constexpr int kMaxDims = 8;

template <typename T, int VEC>
struct alignas(sizeof(T) * VEC) AlignedVec {
  T val[VEC];
};

struct Ptrs {
  char* p[TensorIter::kMaxOperands];
};

// Values of inputs that live on the host (TensorIter::host_scalar), passed by kernel argument; bit k of
// `mask` says input k (1..3) is one of them.
template <typename a_t, typename b_t, typename c_t>
struct HostValues {
  a_t a{};
  b_t b{};
  c_t c{};
  unsigned mask = 0;
};

// f on the opmath values of the first NIN inputs (the others are never read, so they may be uninitialized).
template <int NIN, typename F, typename A, typename B, typename C>
__device__ __forceinline__ auto invoke(const F& f, const A& a, const B& b, const C& c) {
  if constexpr (NIN == 0)
    return f();
  else if constexpr (NIN == 1)
    return f(static_cast<opmath_t<A>>(a));
  else if constexpr (NIN == 2)
    return f(static_cast<opmath_t<A>>(a), static_cast<opmath_t<B>>(b));
  else
    return f(static_cast<opmath_t<A>>(a), static_cast<opmath_t<B>>(b), static_cast<opmath_t<C>>(c));
}

// Every operand dense (stride == itemsize) or a broadcast scalar (bit k of scalar_mask), each dense one
// aligned to its vector (VEC * itemsize). 64-bit indices: no divisions here, so they cost next to nothing.
template <int VEC, int NIN, typename out_t, typename a_t, typename b_t, typename c_t, typename F>
__global__ void __launch_bounds__(kThreads)
    vectorized_kernel(int64_t n, F f, Ptrs ptrs, unsigned scalar_mask, HostValues<a_t, b_t, c_t> hv) {
  const bool a_sc = scalar_mask & 2u, b_sc = scalar_mask & 4u, c_sc = scalar_mask & 8u;
  const a_t* pa = reinterpret_cast<const a_t*>(ptrs.p[1]);
  const b_t* pb = reinterpret_cast<const b_t*>(ptrs.p[2]);
  const c_t* pc = reinterpret_cast<const c_t*>(ptrs.p[3]);
  a_t sa{};
  b_t sb{};
  c_t sc{};
  if constexpr (NIN >= 1)
    if (a_sc) sa = (hv.mask & 2u) ? hv.a : *pa;
  if constexpr (NIN >= 2)
    if (b_sc) sb = (hv.mask & 4u) ? hv.b : *pb;
  if constexpr (NIN >= 3)
    if (c_sc) sc = (hv.mask & 8u) ? hv.c : *pc;

  const int64_t nvec = n / VEC;
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  const int64_t tid = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  for (int64_t v0 = tid; v0 < nvec; v0 += step * kUnroll) {
    AlignedVec<a_t, VEC> va[kUnroll];
    AlignedVec<b_t, VEC> vb[kUnroll];
    AlignedVec<c_t, VEC> vc[kUnroll];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      const int64_t v = v0 + u * step;
      if (v < nvec) {
        if constexpr (NIN >= 1) {
          if (a_sc) {
#pragma unroll
            for (int j = 0; j < VEC; ++j) va[u].val[j] = sa;
          } else {
            va[u] = reinterpret_cast<const AlignedVec<a_t, VEC>*>(pa)[v];
          }
        }
        if constexpr (NIN >= 2) {
          if (b_sc) {
#pragma unroll
            for (int j = 0; j < VEC; ++j) vb[u].val[j] = sb;
          } else {
            vb[u] = reinterpret_cast<const AlignedVec<b_t, VEC>*>(pb)[v];
          }
        }
        if constexpr (NIN >= 3) {
          if (c_sc) {
#pragma unroll
            for (int j = 0; j < VEC; ++j) vc[u].val[j] = sc;
          } else {
            vc[u] = reinterpret_cast<const AlignedVec<c_t, VEC>*>(pc)[v];
          }
        }
      }
    }
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      const int64_t v = v0 + u * step;
      if (v < nvec) {
        AlignedVec<out_t, VEC> r;
#pragma unroll
        for (int j = 0; j < VEC; ++j) {
          r.val[j] = static_cast<out_t>(invoke<NIN>(f, va[u].val[j], vb[u].val[j], vc[u].val[j]));
        }
        reinterpret_cast<AlignedVec<out_t, VEC>*>(ptrs.p[0])[v] = r;
      }
    }
  }
  // the n % VEC elements past the last whole vector
  for (int64_t i = nvec * VEC + tid; i < n; i += step) {
    a_t a;
    b_t b;
    c_t c;
    if constexpr (NIN >= 1) a = a_sc ? sa : pa[i];
    if constexpr (NIN >= 2) b = b_sc ? sb : pb[i];
    if constexpr (NIN >= 3) c = c_sc ? sc : pc[i];
    reinterpret_cast<out_t*>(ptrs.p[0])[i] = static_cast<out_t>(invoke<NIN>(f, a, b, c));
  }
}

// Linear index -> byte offset per operand, in 32-bit math (the host splits iterations that do not fit).
template <int NARGS>
struct OffsetCalc32 {
  int ndim;
  uint32_t sizes[kMaxDims];
  int32_t strides[kMaxDims][NARGS];

  __device__ __forceinline__ void get(uint32_t linear, int32_t (&off)[NARGS]) const {
#pragma unroll
    for (int k = 0; k < NARGS; ++k) off[k] = 0;
#pragma unroll
    for (int d = 0; d < kMaxDims; ++d) {
      if (d == ndim) break;
      uint32_t i = linear;
      if (d + 1 < ndim) {  // the outermost dim needs no division
        i = linear % sizes[d];
        linear /= sizes[d];
      }
#pragma unroll
      for (int k = 0; k < NARGS; ++k) off[k] += static_cast<int32_t>(i) * strides[d][k];
    }
  }
};

template <int NIN, typename out_t, typename a_t, typename b_t, typename c_t, typename F>
__global__ void __launch_bounds__(kThreads)
    strided_kernel(uint32_t n, F f, Ptrs ptrs, OffsetCalc32<NIN + 1> calc, HostValues<a_t, b_t, c_t> hv) {
  const uint32_t step = gridDim.x * blockDim.x;
  for (uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += step) {
    int32_t off[NIN + 1];
    calc.get(i, off);
    a_t a;
    b_t b;
    c_t c;
    if constexpr (NIN >= 1) a = (hv.mask & 2u) ? hv.a : *reinterpret_cast<const a_t*>(ptrs.p[1] + off[1]);
    if constexpr (NIN >= 2) b = (hv.mask & 4u) ? hv.b : *reinterpret_cast<const b_t*>(ptrs.p[2] + off[2]);
    if constexpr (NIN >= 3) c = (hv.mask & 8u) ? hv.c : *reinterpret_cast<const c_t*>(ptrs.p[3] + off[3]);
    *reinterpret_cast<out_t*>(ptrs.p[0] + off[0]) = static_cast<out_t>(invoke<NIN>(f, a, b, c));
  }
}

// Whether every byte offset and the element count fit the strided kernel's 32-bit math.
inline bool fits_32bit(const TensorIter& it) {
  constexpr int64_t kMax = INT32_MAX;
  if (it.numel > kMax) return false;
  for (int k = 0; k < it.ntensors; ++k) {
    int64_t off = 0;
    for (int64_t d = 0; d < it.ndim(); ++d) off += (it.shape[d] - 1) * std::abs(it.strides[k][d]);
    if (off > kMax) return false;
  }
  return true;
}

// Calls fn on sub-iterations that each fit 32-bit offsets and at most kMaxDims dims, by halving the dim
// that spans the most bytes (or looping over the outermost dim when there are too many dims).
template <typename Fn>
void for_each_32bit(const TensorIter& it, const Fn& fn) {
  if (it.numel == 0) return;
  const int64_t nd = it.ndim();
  if (nd > kMaxDims) {
    TensorIter sub = it;
    sub.shape.pop_back();
    for (int k = 0; k < it.ntensors; ++k) sub.strides[k].pop_back();
    sub.numel = it.numel / it.shape[nd - 1];
    for (int64_t j = 0; j < it.shape[nd - 1]; ++j) {
      for (int k = 0; k < it.ntensors; ++k) sub.data[k] = it.data[k] + j * it.strides[k][nd - 1];
      for_each_32bit(sub, fn);
    }
    return;
  }
  if (fits_32bit(it)) {
    fn(it);
    return;
  }
  int64_t best = -1, span = -1;
  for (int64_t d = 0; d < nd; ++d) {
    if (it.shape[d] < 2) continue;
    int64_t s = 0;
    for (int k = 0; k < it.ntensors; ++k) s = std::max(s, std::abs(it.strides[k][d]));
    s = std::max<int64_t>(s, 1) * it.shape[d];
    if (s > span) span = s, best = d;
  }
  const int64_t half = it.shape[best] / 2;
  TensorIter lo = it, hi = it;
  lo.shape[best] = half;
  hi.shape[best] = it.shape[best] - half;
  lo.numel = it.numel / it.shape[best] * lo.shape[best];
  hi.numel = it.numel / it.shape[best] * hi.shape[best];
  for (int k = 0; k < it.ntensors; ++k) hi.data[k] = it.data[k] + half * it.strides[k][best];
  for_each_32bit(lo, fn);
  for_each_32bit(hi, fn);
}

template <typename out_t, typename a_t, typename b_t, typename c_t, int NIN, typename F>
void launch(const TensorIter& it, const F& f) {
  if (it.numel == 0) return;
  MT_INTERNAL_ASSERT(it.ntensors == NIN + 1, "elementwise launcher: operand count mismatch");
  cuda::DeviceGuard guard(it.device);
  cudaStream_t stream = cuda::current_stream(it.device.index);
  const size_t sizes[4] = {sizeof(out_t), sizeof(a_t), sizeof(b_t), sizeof(c_t)};
  Ptrs ptrs{};
  for (int k = 0; k <= NIN; ++k) ptrs.p[k] = it.data[k];
  // Host-resident one-element inputs: read here, passed by value, never dereferenced on the device.
  HostValues<a_t, b_t, c_t> hv;
  if constexpr (NIN >= 1)
    if (it.host_scalar[1]) hv.a = *reinterpret_cast<const a_t*>(it.data[1]), hv.mask |= 2u;
  if constexpr (NIN >= 2)
    if (it.host_scalar[2]) hv.b = *reinterpret_cast<const b_t*>(it.data[2]), hv.mask |= 4u;
  if constexpr (NIN >= 3)
    if (it.host_scalar[3]) hv.c = *reinterpret_cast<const c_t*>(it.data[3]), hv.mask |= 8u;

  if (it.ndim() <= 1) {
    // VEC elements per access: 16 bytes for the widest operand; narrower ones move VEC * itemsize bytes
    constexpr size_t kWidest =
        std::max({sizeof(out_t), NIN >= 1 ? sizeof(a_t) : size_t(1), NIN >= 2 ? sizeof(b_t) : size_t(1),
                  NIN >= 3 ? sizeof(c_t) : size_t(1)});
    constexpr int VEC = static_cast<int>(16 / kWidest);
    bool fast = true;
    unsigned mask = 0;
    for (int k = 0; k <= NIN && fast; ++k) {
      const int64_t st = it.ndim() == 0 ? 0 : it.strides[k][0];
      if (k > 0 && (st == 0 || it.host_scalar[k]))
        mask |= 1u << k;
      else if (st != static_cast<int64_t>(sizes[k]) && it.numel != 1)
        fast = false;
      else if (reinterpret_cast<uintptr_t>(it.data[k]) % (VEC * sizes[k]) != 0)
        fast = false;  // a misaligned view (x[1:]) takes the strided path
    }
    if (fast) {
      const int64_t work = std::max<int64_t>(1, (it.numel / VEC + kUnroll - 1) / kUnroll);
      const int64_t blocks = cuda::grid_size(work, kThreads, it.device.index);
      vectorized_kernel<VEC, NIN, out_t, a_t, b_t, c_t>
          <<<static_cast<unsigned>(blocks), kThreads, 0, stream>>>(it.numel, f, ptrs, mask, hv);
      MT_CUDA_CHECK(cudaGetLastError());
      return;
    }
  }

  for_each_32bit(it, [&](const TensorIter& sub) {
    OffsetCalc32<NIN + 1> calc{};
    calc.ndim = static_cast<int>(sub.ndim());
    for (int d = 0; d < calc.ndim; ++d) {
      calc.sizes[d] = static_cast<uint32_t>(sub.shape[d]);
      for (int k = 0; k <= NIN; ++k) calc.strides[d][k] = static_cast<int32_t>(sub.strides[k][d]);
    }
    Ptrs p{};
    for (int k = 0; k <= NIN; ++k) p.p[k] = sub.data[k];
    const int64_t blocks = cuda::grid_size(sub.numel, kThreads, sub.device.index);
    strided_kernel<NIN, out_t, a_t, b_t, c_t><<<static_cast<unsigned>(blocks), kThreads, 0, stream>>>(
        static_cast<uint32_t>(sub.numel), f, p, calc, hv);
    MT_CUDA_CHECK(cudaGetLastError());
  });
}

template <int K, typename Default, typename... Ts>
struct NthOr {
  using type = Default;
};
template <typename Default, typename T, typename... Ts>
struct NthOr<0, Default, T, Ts...> {
  using type = T;
};
template <int K, typename Default, typename T, typename... Ts>
struct NthOr<K, Default, T, Ts...> {
  using type = typename NthOr<K - 1, Default, Ts...>::type;
};

}  // namespace cuda_loops

// Runs out = f(inputs...) over `it` on the current stream of it.device: operand 0 is the output (out_t),
// operands 1.. are in_ts (0 to 3 of them). f gets each input as opmath_t<in_t> (float for half/bfloat16);
// its result is cast to out_t.
template <typename out_t, typename... in_ts, typename F>
void gpu_kernel(const TensorIter& it, const F& f) {
  static_assert(sizeof...(in_ts) <= 3, "gpu_kernel takes at most three inputs");
  using a_t = typename cuda_loops::NthOr<0, out_t, in_ts...>::type;
  using b_t = typename cuda_loops::NthOr<1, a_t, in_ts...>::type;
  using c_t = typename cuda_loops::NthOr<2, a_t, in_ts...>::type;
  cuda_loops::launch<out_t, a_t, b_t, c_t, static_cast<int>(sizeof...(in_ts))>(it, f);
}

}  // namespace mt
