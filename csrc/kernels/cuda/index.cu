// CUDA indexing kernels: gather/put through the front end's element offsets (uploaded to the device), and
// nonzero as a CUB count plus a stream-ordered compaction.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include <cstring>
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_select.cuh>
#include <type_traits>
#include <vector>

#include "cuda/CUDAContext.h"
#include "cuda/Exceptions.h"
#include "ops/copy.h"
#include "ops/index.h"
#include "ops/kernels.h"

namespace mt {
namespace {

constexpr int kThreads = 256;

// The host offsets [outer..., inner...] as one int64 device buffer, written on `stream`. A cudaMemcpyAsync
// from pageable memory stages the source before it returns, so the front end may free its arrays; the
// buffer comes from the stream-ordered caching allocator, so freeing it after the launch is safe.
// (Later optimisation: compute the offsets on the device and skip the host round trip.)
Tensor upload_offsets(const int64_t* outer, int64_t n, const int64_t* inner, int64_t r, Device dev,
                      cudaStream_t stream) {
  std::vector<int64_t> host(static_cast<size_t>(n + r));
  std::memcpy(host.data(), outer, static_cast<size_t>(n) * sizeof(int64_t));
  std::memcpy(host.data() + n, inner, static_cast<size_t>(r) * sizeof(int64_t));
  Tensor buf = make_empty({n + r}, ScalarType::Long, dev);
  MT_CUDA_CHECK(cudaMemcpyAsync(buf.data_ptr(), host.data(), host.size() * sizeof(int64_t),
                                cudaMemcpyHostToDevice, stream));
  return buf;
}

// A 2-D grid-stride launch over (n, r): x runs along r (consecutive threads touch consecutive inner
// offsets), y along n; a narrow r packs several rows into one block so no warp idles.
struct Launch2D {
  dim3 grid, block;
};

Launch2D launch_2d(int64_t n, int64_t r, int device) {
  int bx = 1;
  while (bx < r && bx < kThreads) bx *= 2;
  int by = kThreads / bx;
  int64_t total = cuda::grid_size(n * r, kThreads, device);
  int64_t gx = std::min<int64_t>((r + bx - 1) / bx, std::max<int64_t>(total, 1));
  int64_t gy = std::min<int64_t>({(n + by - 1) / by, std::max<int64_t>(total / gx, 1), 65535});
  return {dim3(static_cast<unsigned>(gx), static_cast<unsigned>(gy)), dim3(bx, by)};
}

template <typename T>
__global__ void gather_kernel(T* __restrict__ out, const T* __restrict__ src,
                              const int64_t* __restrict__ outer, int64_t n, const int64_t* __restrict__ inner,
                              int64_t r) {
  for (int64_t i = blockIdx.y * static_cast<int64_t>(blockDim.y) + threadIdx.y; i < n;
       i += static_cast<int64_t>(gridDim.y) * blockDim.y) {
    const T* base = src + outer[i];
    T* o = out + i * r;
    for (int64_t j = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; j < r;
         j += static_cast<int64_t>(gridDim.x) * blockDim.x)
      o[j] = base[inner[j]];
  }
}

void index_gather_cuda(const Tensor& out, const Tensor& src, const int64_t* outer, int64_t n,
                       const int64_t* inner, int64_t r) {
  if (n == 0 || r == 0) return;
  cuda::DeviceGuard guard(src.device());
  cudaStream_t stream = cuda::current_stream(src.device().index);
  Tensor off = upload_offsets(outer, n, inner, r, src.device(), stream);
  const int64_t* d_outer = off.data<int64_t>();
  Launch2D g = launch_2d(n, r, src.device().index);
  dispatch_width(src.itemsize(), [&](auto tag) {
    using T = decltype(tag);
    gather_kernel<T>
        <<<g.grid, g.block, 0, stream>>>(out.data<T>(), src.data<T>(), d_outer, n, d_outer + n, r);
  });
  MT_CUDA_CHECK(cudaGetLastError());
}

// ---- atomics. Native where the hardware has them (sm_80+: float, double, half, bfloat16, 32/64-bit ints);
// a compare-and-swap loop otherwise (8/16-bit integers, every multiply).

template <typename T>
struct Bits {
  using type = std::conditional_t<
      sizeof(T) == 1, uint8_t,
      std::conditional_t<sizeof(T) == 2, uint16_t, std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>>>;
};

template <typename T>
__device__ __forceinline__ typename Bits<T>::type to_bits(T v) {
  typename Bits<T>::type b;
  memcpy(&b, &v, sizeof(T));
  return b;
}

template <typename T>
__device__ __forceinline__ T from_bits(typename Bits<T>::type b) {
  T v;
  memcpy(&v, &b, sizeof(T));
  return v;
}

// *addr = f(*addr), atomically. 1- and 2-byte values CAS the aligned 32-bit word that holds them (every
// allocation is at least 4-byte aligned and padded, so the word stays inside it).
template <typename T, typename F>
__device__ void atomic_update(T* addr, F f) {
  if constexpr (sizeof(T) <= 2) {
    using B = typename Bits<T>::type;
    uintptr_t a = reinterpret_cast<uintptr_t>(addr);
    unsigned int* word = reinterpret_cast<unsigned int*>(a & ~uintptr_t(3));
    unsigned int shift = static_cast<unsigned int>(a & 3) * 8;
    unsigned int mask = ((1u << (8 * sizeof(T))) - 1u) << shift;
    unsigned int old = *word, assumed;
    do {
      assumed = old;
      T cur = from_bits<T>(static_cast<B>((assumed & mask) >> shift));
      unsigned int next = static_cast<unsigned int>(to_bits<T>(f(cur))) << shift;
      old = atomicCAS(word, assumed, (assumed & ~mask) | next);
    } while (assumed != old);
  } else if constexpr (sizeof(T) == 4) {
    unsigned int* word = reinterpret_cast<unsigned int*>(addr);
    unsigned int old = *word, assumed;
    do {
      assumed = old;
      old = atomicCAS(word, assumed, to_bits<T>(f(from_bits<T>(assumed))));
    } while (assumed != old);
  } else {
    unsigned long long* word = reinterpret_cast<unsigned long long*>(addr);
    unsigned long long old = *word, assumed;
    do {
      assumed = old;
      old = atomicCAS(word, assumed, static_cast<unsigned long long>(to_bits<T>(f(from_bits<T>(assumed)))));
    } while (assumed != old);
  }
}

// Integer arithmetic wraps as in PyTorch: done in the unsigned type, where overflow is defined.
template <typename T>
__device__ __forceinline__ T wrap_add(T a, T b) {
  if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(static_cast<U>(a) + static_cast<U>(b)));
  } else {
    using op_t = opmath_t<T>;
    return static_cast<T>(static_cast<op_t>(a) + static_cast<op_t>(b));
  }
}

template <typename T>
__device__ __forceinline__ T wrap_mul(T a, T b) {
  if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
    // uint16_t * uint16_t promotes to int and may overflow it: widen to unsigned int first.
    using U = std::conditional_t<(sizeof(T) < sizeof(unsigned int)), unsigned int, std::make_unsigned_t<T>>;
    return static_cast<T>(static_cast<U>(a) * static_cast<U>(b));
  } else {
    using op_t = opmath_t<T>;
    return static_cast<T>(static_cast<op_t>(a) * static_cast<op_t>(b));
  }
}

template <typename T>
struct AddWith {
  T v;
  __device__ T operator()(T x) const { return wrap_add(x, v); }
};
template <typename T>
struct MulWith {
  T v;
  __device__ T operator()(T x) const { return wrap_mul(x, v); }
};

template <typename T>
__device__ __forceinline__ void atomic_add(T* p, T v) {
  if constexpr (std::is_same_v<T, bool>) {
    if (v) *p = true;  // bool addition is logical or: racing writers all store true
  } else if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double> || std::is_same_v<T, int32_t>) {
    atomicAdd(p, v);
  } else if constexpr (std::is_same_v<T, int64_t>) {
    // two's complement: the unsigned sum has the signed sum's bits
    atomicAdd(reinterpret_cast<unsigned long long*>(p), static_cast<unsigned long long>(v));
  } else if constexpr (std::is_same_v<T, Half>) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 700
    atomicAdd(reinterpret_cast<__half*>(p), __ushort_as_half(v.x));
#else
    atomic_update(p, AddWith<T>{v});
#endif
  } else if constexpr (std::is_same_v<T, BFloat16>) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    atomicAdd(reinterpret_cast<__nv_bfloat16*>(p), __ushort_as_bfloat16(v.x));
#else
    atomic_update(p, AddWith<T>{v});
#endif
  } else {
    atomic_update(p, AddWith<T>{v});
  }
}

template <typename T>
__device__ __forceinline__ void atomic_mul(T* p, T v) {
  if constexpr (std::is_same_v<T, bool>) {
    if (!v) *p = false;  // logical and
  } else {
    atomic_update(p, MulWith<T>{v});
  }
}

// scatter_reduce's amax/amin, compared in opmath; NaN wins (kernels/cpu/index.cpp's put_extreme)
template <typename T, bool kMax>
struct ExtremeWith {
  T v;
  __device__ T operator()(T x) const {
    if constexpr (std::is_same_v<T, bool>) {
      return kMax ? (x || v) : (x && v);
    } else {
      using op_t = opmath_t<T>;
      const op_t a = static_cast<op_t>(x), b = static_cast<op_t>(v);
      if (a != a) return x;
      if (b != b) return v;
      return (kMax ? b > a : b < a) ? v : x;
    }
  }
};

// Duplicate offsets: add, multiply, amax and amin are atomic; assign keeps one of the writers (unspecified
// which, as in PyTorch's CUDA index_put_).
template <typename T, int MODE>
__global__ void put_kernel(T* __restrict__ dst, const T* __restrict__ values,
                           const int64_t* __restrict__ outer, int64_t n, const int64_t* __restrict__ inner,
                           int64_t r) {
  for (int64_t i = blockIdx.y * static_cast<int64_t>(blockDim.y) + threadIdx.y; i < n;
       i += static_cast<int64_t>(gridDim.y) * blockDim.y) {
    T* base = dst + outer[i];
    const T* v = values + i * r;
    for (int64_t j = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; j < r;
         j += static_cast<int64_t>(gridDim.x) * blockDim.x) {
      if constexpr (MODE == static_cast<int>(PutMode::assign))
        base[inner[j]] = v[j];
      else if constexpr (MODE == static_cast<int>(PutMode::add))
        atomic_add(base + inner[j], v[j]);
      else if constexpr (MODE == static_cast<int>(PutMode::multiply))
        atomic_mul(base + inner[j], v[j]);
      else
        atomic_update(base + inner[j], ExtremeWith<T, MODE == static_cast<int>(PutMode::amax)>{v[j]});
    }
  }
}

void index_put_cuda(const Tensor& dst, const Tensor& values, const int64_t* outer, int64_t n,
                    const int64_t* inner, int64_t r, PutMode mode) {
  if (n == 0 || r == 0) return;
  cuda::DeviceGuard guard(dst.device());
  cudaStream_t stream = cuda::current_stream(dst.device().index);
  Tensor off = upload_offsets(outer, n, inner, r, dst.device(), stream);
  const int64_t* d_outer = off.data<int64_t>();
  const int64_t* d_inner = d_outer + n;
  Launch2D g = launch_2d(n, r, dst.device().index);
  if (mode == PutMode::assign) {
    dispatch_width(dst.itemsize(), [&](auto tag) {
      using T = decltype(tag);
      put_kernel<T, static_cast<int>(PutMode::assign)>
          <<<g.grid, g.block, 0, stream>>>(dst.data<T>(), values.data<T>(), d_outer, n, d_inner, r);
    });
  } else {
    MT_DISPATCH_ALL_TYPES(dst.dtype(), "index_put_cuda", [&] {
      if (mode == PutMode::add)
        put_kernel<scalar_t, static_cast<int>(PutMode::add)><<<g.grid, g.block, 0, stream>>>(
            dst.data<scalar_t>(), values.data<scalar_t>(), d_outer, n, d_inner, r);
      else if (mode == PutMode::multiply)
        put_kernel<scalar_t, static_cast<int>(PutMode::multiply)><<<g.grid, g.block, 0, stream>>>(
            dst.data<scalar_t>(), values.data<scalar_t>(), d_outer, n, d_inner, r);
      else if (mode == PutMode::amax)
        put_kernel<scalar_t, static_cast<int>(PutMode::amax)><<<g.grid, g.block, 0, stream>>>(
            dst.data<scalar_t>(), values.data<scalar_t>(), d_outer, n, d_inner, r);
      else
        put_kernel<scalar_t, static_cast<int>(PutMode::amin)><<<g.grid, g.block, 0, stream>>>(
            dst.data<scalar_t>(), values.data<scalar_t>(), d_outer, n, d_inner, r);
    });
  }
  MT_CUDA_CHECK(cudaGetLastError());
}

// ---- nonzero: count the nonzeros (CUB reduce), read the count back (the one sync: the result's size
// depends on the data), then compact the linear indices of the nonzeros (CUB select) and unravel them.

template <typename T>
struct IsNonzero {
  const T* data;
  __device__ __forceinline__ bool operator()(int64_t i) const {
    if constexpr (std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>)
      return static_cast<float>(data[i]) != 0.0f;  // -0.0 is zero, NaN is not
    else
      return data[i] != T(0);
  }
};

template <typename T>
struct NonzeroAsInt64 {
  IsNonzero<T> pred;
  __device__ __forceinline__ int64_t operator()(int64_t i) const { return pred(i) ? 1 : 0; }
};

constexpr int kMaxNonzeroDims = 25;  // PyTorch's limit for nonzero on CUDA

struct UnravelArgs {
  int ndim;
  int64_t sizes[kMaxNonzeroDims];
};

__global__ void unravel_kernel(int64_t* __restrict__ out, const int64_t* __restrict__ flat, int64_t count,
                               UnravelArgs a) {
  for (int64_t k = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; k < count;
       k += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    int64_t linear = flat[k];
    int64_t* row = out + k * a.ndim;
    for (int d = a.ndim - 1; d >= 0; --d) {
      int64_t s = a.sizes[d];
      row[d] = linear % s;
      linear /= s;
    }
  }
}

Tensor nonzero_cuda(const Tensor& self) {
  MT_CHECK(self.dim() <= kMaxNonzeroDims, "nonzero is not supported for tensors with more than ",
           kMaxNonzeroDims, " dimensions");
  Device dev = self.device();
  cuda::DeviceGuard guard(dev);
  cudaStream_t stream = cuda::current_stream(dev.index);
  int64_t nd = self.dim(), n = self.numel();
  if (n == 0) return make_empty({0, nd}, ScalarType::Long, dev);
  Tensor src = contiguous(self);
  Tensor out;
  MT_DISPATCH_ALL_TYPES(src.dtype(), "nonzero_cuda", [&] {
    IsNonzero<scalar_t> pred{src.data<scalar_t>()};
    thrust::counting_iterator<int64_t> ids(0);
    auto ones = thrust::make_transform_iterator(ids, NonzeroAsInt64<scalar_t>{pred});
    Tensor d_count = make_empty({2}, ScalarType::Long, dev);  // [nonzeros, selected]
    int64_t* counts = d_count.data<int64_t>();
    size_t reduce_bytes = 0, select_bytes = 0;
    MT_CUDA_CHECK(cub::DeviceReduce::Sum(nullptr, reduce_bytes, ones, counts, n, stream));
    MT_CUDA_CHECK(cub::DeviceSelect::If(nullptr, select_bytes, ids, static_cast<int64_t*>(nullptr),
                                        counts + 1, n, pred, stream));
    Tensor temp =
        make_empty({static_cast<int64_t>(std::max(reduce_bytes, select_bytes)) + 1}, ScalarType::Byte, dev);
    MT_CUDA_CHECK(cub::DeviceReduce::Sum(temp.data_ptr(), reduce_bytes, ones, counts, n, stream));
    int64_t count = 0;
    MT_CUDA_CHECK(cudaMemcpyAsync(&count, counts, sizeof(int64_t), cudaMemcpyDeviceToHost, stream));
    MT_CUDA_CHECK(cudaStreamSynchronize(stream));
    out = make_empty({count, nd}, ScalarType::Long, dev);
    if (count == 0 || nd == 0) return;
    // A 1-D input's linear indices are the result; otherwise compact into a scratch buffer and unravel.
    Tensor flat = nd == 1 ? out : make_empty({count}, ScalarType::Long, dev);
    MT_CUDA_CHECK(cub::DeviceSelect::If(temp.data_ptr(), select_bytes, ids, flat.data<int64_t>(), counts + 1,
                                        n, pred, stream));
    if (nd > 1) {
      UnravelArgs a{};
      a.ndim = static_cast<int>(nd);
      for (int64_t d = 0; d < nd; ++d) a.sizes[d] = src.sizes()[d];
      int64_t blocks = cuda::grid_size(count, kThreads, dev.index);
      unravel_kernel<<<static_cast<unsigned>(blocks), kThreads, 0, stream>>>(out.data<int64_t>(),
                                                                             flat.data<int64_t>(), count, a);
    }
    MT_CUDA_CHECK(cudaGetLastError());
  });
  return out;
}

}  // namespace

MT_REGISTER_KERNEL(index_gather_stub, CUDA, &index_gather_cuda);
MT_REGISTER_KERNEL(index_put_stub, CUDA, &index_put_cuda);
MT_REGISTER_KERNEL(nonzero_stub, CUDA, &nonzero_cuda);

}  // namespace mt
