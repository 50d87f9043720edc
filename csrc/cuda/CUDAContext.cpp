// Streams (thread-local current stream per device, a pool of created streams), the device guard and launch
// geometry. Compiled only into CUDA builds.
#ifdef MINITORCH_WITH_CUDA
#include "cuda/CUDAContext.h"

#include <array>
#include <atomic>
#include <mutex>

#include "cuda/CUDAHooks.h"
#include "cuda/Exceptions.h"

namespace mt {
namespace cuda {

namespace {

// nullptr = the legacy default stream, PyTorch's default too (it synchronizes with other blocking streams).
thread_local std::array<cudaStream_t, kMaxDevices> tls_current{};

void check_index(int device) {
  int n = cuda_hooks().device_count();
  MT_CHECK(device >= 0 && device < n && device < kMaxDevices,
           "CUDA error: invalid device ordinal (device cuda:", device, " requested, ", n,
           " CUDA device(s) available)");
}

int resolve(int device) {
  if (device >= 0) return device;
  return current_device();
}

}  // namespace

int current_device() {
  int d = 0;
  MT_CUDA_CHECK(cudaGetDevice(&d));
  return d;
}

cudaStream_t current_stream(int device) {
  return tls_current[resolve(device)];
}

void set_current_stream(int device, cudaStream_t stream) {
  device = resolve(device);
  check_index(device);
  tls_current[device] = stream;
}

DeviceGuard::DeviceGuard(int index) {
  if (index < 0) return;
  int cur = current_device();
  if (cur == index) return;
  check_index(index);
  MT_CUDA_CHECK(cudaSetDevice(index));
  prev_ = cur;
}

DeviceGuard::~DeviceGuard() {
  if (prev_ >= 0) cudaSetDevice(prev_);
}

int sm_count(int device) {
  static std::array<std::atomic<int>, kMaxDevices> cache{};
  device = resolve(device);
  int n = cache[device].load(std::memory_order_relaxed);
  if (n == 0) {
    MT_CUDA_CHECK(cudaDeviceGetAttribute(&n, cudaDevAttrMultiProcessorCount, device));
    cache[device].store(n, std::memory_order_relaxed);
  }
  return n;
}

int64_t grid_size(int64_t n, int threads, int device) {
  if (n <= 0) return 1;
  int64_t needed = (n + threads - 1) / threads;
  // Enough resident blocks to hide latency (2048 threads per SM on sm_80/sm_90), capped so a grid-stride loop
  // does the rest; gridDim.x may be up to 2^31-1.
  int64_t cap = static_cast<int64_t>(sm_count(device)) * (2048 / threads) * 4;
  return needed < cap ? needed : cap;
}

}  // namespace cuda
}  // namespace mt
#endif  // MINITORCH_WITH_CUDA
