// The per-device cuBLAS handle: created on first use, bound to the current stream and given a workspace
// for that stream on every call, math mode following the float32 matmul precision flag.
#ifdef MINITORCH_WITH_CUDA
#include <cublas_v2.h>

#include <map>
#include <mutex>

#include "cuda/CUBLASCheck.h"
#include "cuda/CUDAContext.h"
#include "cuda/Exceptions.h"
#include "ops/linalg.h"

namespace mt {
namespace cuda {

namespace {

// cuBLAS wants a workspace of its own per stream (two streams sharing one would race), and
// cublasSetStream resets the handle to its default workspace, so it is set again after every switch.
// 32 MiB covers Hopper's largest GEMM kernels (PyTorch's default there); buffers live for the process.
constexpr size_t kWorkspaceBytes = size_t(32) << 20;

struct DeviceBlas {
  cublasHandle_t handle = nullptr;
  std::map<cudaStream_t, void*> workspaces;
};

std::mutex g_mutex;
DeviceBlas g_blas[kMaxDevices];

}  // namespace

// Ops run with the GIL held, so one handle per device is never used by two threads at once; the mutex
// covers creation and the workspace table for callers that release it.
cublasHandle_t cublas_handle(int device) {
  if (device < 0) device = current_device();
  MT_CHECK(device < kMaxDevices, "cuBLAS: device index ", device, " out of range");
  DeviceGuard guard(device);
  cudaStream_t stream = current_stream(device);
  std::lock_guard<std::mutex> lock(g_mutex);
  DeviceBlas& b = g_blas[device];
  if (!b.handle) MT_CUBLAS_CHECK(cublasCreate(&b.handle));
  auto it = b.workspaces.find(stream);
  if (it == b.workspaces.end()) {
    void* ws = nullptr;
    MT_CUDA_CHECK(cudaMalloc(&ws, kWorkspaceBytes));
    it = b.workspaces.emplace(stream, ws).first;
  }
  MT_CUBLAS_CHECK(cublasSetStream(b.handle, stream));
  MT_CUBLAS_CHECK(cublasSetWorkspace(b.handle, it->second, kWorkspaceBytes));
  MT_CUBLAS_CHECK(
      cublasSetMathMode(b.handle, matmul_allow_tf32() ? CUBLAS_TF32_TENSOR_OP_MATH : CUBLAS_DEFAULT_MATH));
  return b.handle;
}

}  // namespace cuda
}  // namespace mt
#endif  // MINITORCH_WITH_CUDA
