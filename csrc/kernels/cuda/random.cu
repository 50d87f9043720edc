// CUDA random fills: uniform, normal, integer and Bernoulli draws straight into the output dtype. Element i
// uses Philox(seed, i, offset) alone, so a value never depends on the grid shape. Normals of float32 and
// narrower dtypes take Box-Muller in float (from the same Philox words): the float64 version spent its time
// in double-precision log/sqrt/cospi (randn of 25.7M float32 took 196 us against PyTorch's 47), and a float32
// result keeps none of those extra bits; float64 normals keep the double path.
#include <cuda_runtime.h>

#include "core/Generator.h"
#include "cuda/CUDAContext.h"
#include "cuda/CUDAGraph.h"
#include "cuda/Exceptions.h"
#include "ops/kernels.h"

namespace mt {
namespace {

__device__ __forceinline__ double u01(uint32_t hi, uint32_t lo) {  // 53 random bits in [0, 1)
  return static_cast<double>((static_cast<uint64_t>(hi >> 5) << 26) | (lo >> 6)) * (1.0 / 9007199254740992.0);
}

template <typename T>
__global__ void random_kernel(T* out, int64_t n, RandomKind kind, double a, double b, double scale,
                              uint64_t seed, uint64_t offset, const uint64_t* graph_state) {
  if (graph_state) {  // captured in a CUDA graph: this replay's seed and offset base (cuda/CUDAGraph.h)
    seed = graph_state[0];
    offset += graph_state[1];
  }
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    Philox ph(seed, static_cast<uint64_t>(i), offset);
    uint32_t r[4];
    ph.next4(r);
    double u = u01(r[0], r[1]);
    double v;
    switch (kind) {
      case RandomKind::uniform:  // keep only the mantissa bits the dtype holds, so `b` is never reached
        v = a + (b - a) * (::floor(u * scale) / scale);
        break;
      case RandomKind::normal: {  // Box-Muller
        if constexpr (!std::is_same<T, double>::value && !std::is_integral<T>::value) {
          // u1 in (0, 1] from all 32 bits (tails to 6.66 sigma), u2 in [0, 1) from 24
          const float u1 = (static_cast<float>(r[0]) + 1.0f) * 2.3283064365386963e-10f;
          const float u2 = static_cast<float>(r[2] >> 8) * 5.9604644775390625e-08f;
          const float z = ::sqrtf(-2.0f * ::logf(u1)) * ::cospif(2.0f * u2);
          out[i] = static_cast<T>(static_cast<float>(a) + static_cast<float>(b) * z);
          continue;
        }
        double u1 = 1.0 - u, u2 = u01(r[2], r[3]);
        v = a + b * ::sqrt(-2.0 * ::log(u1)) * cospi(2.0 * u2);
        break;
      }
      case RandomKind::integers: {
        double range = b - a;
        double k = ::floor(u * range);
        v = a + (k < range ? k : range - 1);
        break;
      }
      default:
        v = u < a ? 1.0 : 0.0;
    }
    if constexpr (std::is_integral<T>::value) {
      out[i] = static_cast<T>(static_cast<int64_t>(v));
    } else {
      T t = static_cast<T>(v);
      // rounding to a narrow dtype may reach `b` (e.g. -1.004 -> -1 in bfloat16): keep [a, b) half-open
      if (kind == RandomKind::uniform && static_cast<double>(t) >= b) t = static_cast<T>(a);
      out[i] = t;
    }
  }
}

void random_fill_cuda(const Tensor& self, const RandomFillArgs& args, uint64_t seed, uint64_t offset) {
  if (self.numel() == 0) return;
  const RandomKind kind = args.kind;
  const bool ints = kind == RandomKind::integers;
  const double a = ints ? static_cast<double>(args.low) : args.a,
               b = ints ? static_cast<double>(args.high) : args.b;
  cuda::DeviceGuard guard(self.device());
  cudaStream_t stream = cuda::current_stream(self.device().index);
  const int threads = 256;
  int64_t n = self.numel();
  int64_t blocks = cuda::grid_size(n, threads, self.device().index);
  ScalarType dt = self.dtype();
  const uint64_t* graph_state = graph_rng_state(self.device().index);
  double scale = dt == ScalarType::Double  ? 9007199254740992.0
                 : dt == ScalarType::Float ? 16777216.0
                 : dt == ScalarType::Half  ? 2048.0
                                           : 256.0;
  MT_DISPATCH_ALL_TYPES(dt, "random_cuda", [&] {
    random_kernel<scalar_t><<<static_cast<unsigned>(blocks), threads, 0, stream>>>(
        self.data<scalar_t>(), n, kind, a, b, scale, seed, offset, graph_state);
    MT_CUDA_CHECK(cudaGetLastError());
  });
}

}  // namespace

MT_REGISTER_KERNEL(random_fill_stub, CUDA, &random_fill_cuda);

}  // namespace mt
