// What CUDA kernels and launchers need from the runtime: the current stream per device, a device guard,
// launch geometry and the per-device cuBLAS handle. Only included by CUDA-enabled translation units.
#pragma once
#include <cuda_runtime_api.h>

#include <cstdint>

#include "core/Device.h"

typedef struct cublasContext* cublasHandle_t;

namespace mt {
namespace cuda {

constexpr int kMaxDevices = 16;

// The stream ops on `device` enqueue on: per thread and per device, the legacy default stream unless a
// `minitorch.cuda.stream(s)` context set another (as PyTorch). device -1 means the current device.
cudaStream_t current_stream(int device = -1);
void set_current_stream(int device, cudaStream_t stream);
int current_device();

// Makes `index` the current device for the scope (no-op when it already is, or for index -1).
class DeviceGuard {
 public:
  explicit DeviceGuard(int index);
  explicit DeviceGuard(Device d) : DeviceGuard(d.is_cuda() ? d.index : -1) {}
  ~DeviceGuard();
  DeviceGuard(const DeviceGuard&) = delete;
  DeviceGuard& operator=(const DeviceGuard&) = delete;

 private:
  int prev_ = -1;
};

// Blocks for a grid-stride loop over n items: enough to fill every SM a few times, never more than needed.
int64_t grid_size(int64_t n, int threads, int device = -1);
int sm_count(int device = -1);

// The device's cuBLAS handle, bound to current_stream(device), with its workspace set (created on first use).
cublasHandle_t cublas_handle(int device = -1);

}  // namespace cuda
}  // namespace mt
