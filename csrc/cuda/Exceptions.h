// MT_CUDA_CHECK and friends: a failing CUDA/cuBLAS call becomes a RuntimeError quoting the statement.
#pragma once
#include <cuda_runtime_api.h>

#include <string>

#include "core/Exception.h"

namespace mt {
std::string format_bytes(size_t n);  // "576.00 MiB", as PyTorch's OOM message prints sizes
}

#define MT_CUDA_CHECK(expr)                                                                         \
  do {                                                                                              \
    cudaError_t mt_err_ = (expr);                                                                   \
    if (mt_err_ != cudaSuccess) {                                                                   \
      cudaGetLastError();                                                                           \
      ::mt::throw_error(::mt::ErrorKind::Runtime,                                                   \
                        ::mt::str("CUDA error: ", cudaGetErrorString(mt_err_), " (", #expr, " at ", \
                                  __FILE__, ":", __LINE__, ")"));                                   \
    }                                                                                               \
  } while (0)
