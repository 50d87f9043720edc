// MT_CUDA_CHECK and friends: a failing CUDA/cuBLAS call becomes a RuntimeError quoting the statement.
#pragma once
#include <cuda_runtime_api.h>

#include <string>

#include "core/Exception.h"

namespace mt {
std::string format_bytes(size_t n);  // "576.00 MiB", as PyTorch's OOM message prints sizes
// PyTorch's advice after errors a kernel raised earlier (a device-side assert, a bad address): they surface
// at whatever call comes next, not where the kernel was launched.
inline const char* cuda_error_hint(cudaError_t e) {
  return e == cudaErrorAssert || e == cudaErrorLaunchFailure || e == cudaErrorIllegalAddress
             ? "\nCUDA kernel errors might be asynchronously reported at some other API call, so the "
               "stacktrace "
               "below might be incorrect.\nFor debugging consider passing CUDA_LAUNCH_BLOCKING=1"
             : "";
}
}  // namespace mt

#define MT_CUDA_CHECK(expr)                                                                         \
  do {                                                                                              \
    cudaError_t mt_err_ = (expr);                                                                   \
    if (mt_err_ != cudaSuccess) {                                                                   \
      cudaGetLastError();                                                                           \
      ::mt::throw_error(::mt::ErrorKind::Runtime,                                                   \
                        ::mt::str("CUDA error: ", cudaGetErrorString(mt_err_), " (", #expr, " at ", \
                                  __FILE__, ":", __LINE__, ")", ::mt::cuda_error_hint(mt_err_)));   \
    }                                                                                               \
  } while (0)
