// The cuBLAS handle of this thread and device (from a HandlePool): bound to the current stream and given a
// workspace for that stream on every call, math mode following the float32 matmul precision flag.
#ifdef MINITORCH_WITH_CUDA
#include <cublas_v2.h>

#include <map>
#include <mutex>

#include "core/Context.h"
#include "cuda/CUBLASCheck.h"
#include "cuda/CUDACachingAllocator.h"
#include "cuda/CUDAContext.h"
#include "cuda/Exceptions.h"
#include "cuda/HandlePool.h"

namespace mt {
namespace cuda {

namespace {

// cuBLAS wants a workspace of its own per stream (two streams sharing one would race), and
// cublasSetStream resets the handle to its default workspace, so it is set again after every switch.
// 32 MiB covers Hopper's largest GEMM kernels (PyTorch's default there); buffers live for the process.
constexpr size_t kWorkspaceBytes = size_t(32) << 20;

// Workspaces are per stream, shared by the threads' handles: work on one stream runs in order, so two
// handles on it never use its workspace at once.
std::mutex g_mutex;
std::map<cudaStream_t, void*> g_workspaces[kMaxDevices];

void create_handle(cublasHandle_t* h) {
  MT_CUBLAS_CHECK(cublasCreate(h));
}
using BlasPool = HandlePool<cublasHandle_t, &create_handle>;

}  // namespace

cublasHandle_t cublas_handle(int device) {
  if (device < 0) device = current_device();
  MT_CHECK(device < kMaxDevices, "cuBLAS: device index ", device, " out of range");
  DeviceGuard guard(device);
  // a first use inside a CUDA graph capture creates the handle and the stream's workspace (process-lifetime
  // cudaMalloc, not the graph's memory): allowed in relaxed capture mode
  RelaxedCaptureGuard relax(captures_underway() > 0);
  cudaStream_t stream = current_stream(device);
  cublasHandle_t handle = BlasPool::get(device);
  void* ws = nullptr;
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    auto it = g_workspaces[device].find(stream);
    if (it == g_workspaces[device].end()) {
      MT_CUDA_CHECK(cudaMalloc(&ws, kWorkspaceBytes));
      g_workspaces[device].emplace(stream, ws);
    } else {
      ws = it->second;
    }
  }
  MT_CUBLAS_CHECK(cublasSetStream(handle, stream));
  MT_CUBLAS_CHECK(cublasSetWorkspace(handle, ws, kWorkspaceBytes));
  MT_CUBLAS_CHECK(
      cublasSetMathMode(handle, matmul_allow_tf32() ? CUBLAS_TF32_TENSOR_OP_MATH : CUBLAS_DEFAULT_MATH));
  return handle;
}

}  // namespace cuda
}  // namespace mt
#endif  // MINITORCH_WITH_CUDA
