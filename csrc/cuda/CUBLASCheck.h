// MT_CUBLAS_CHECK: a failing cuBLAS call becomes a RuntimeError naming the status and quoting the statement.
#pragma once
#include <cublas_v2.h>

#include "core/Exception.h"

#define MT_CUBLAS_CHECK(expr)                                                                            \
  do {                                                                                                   \
    cublasStatus_t mt_status_ = (expr);                                                                  \
    if (mt_status_ != CUBLAS_STATUS_SUCCESS)                                                             \
      ::mt::throw_error(::mt::ErrorKind::Runtime,                                                        \
                        ::mt::str("CUDA error: ", cublasGetStatusName(mt_status_), " (",                 \
                                  cublasGetStatusString(mt_status_), ") when calling `", #expr, "` at ", \
                                  __FILE__, ":", __LINE__));                                             \
  } while (0)
