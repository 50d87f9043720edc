// cuDNN plumbing: MT_CUDNN_CHECK quoting the failing statement, the per-thread-and-device handle bound to the
// current stream, and RAII descriptors. Only included by translation units built with MINITORCH_WITH_CUDNN.
#pragma once
#include <cudnn.h>

#include "core/Exception.h"
#include "core/Tensor.h"

#define MT_CUDNN_CHECK(expr)                                                                           \
  do {                                                                                                 \
    cudnnStatus_t mt_status_ = (expr);                                                                 \
    if (mt_status_ != CUDNN_STATUS_SUCCESS)                                                            \
      ::mt::throw_error(::mt::ErrorKind::Runtime,                                                      \
                        ::mt::str("cuDNN error: ", cudnnGetErrorString(mt_status_), " when calling `", \
                                  #expr, "` at ", __FILE__, ":", __LINE__));                           \
  } while (0)

namespace mt {
namespace cuda {

// The calling thread's handle for `device` (created on first use, kept for the thread's life: creating one
// costs milliseconds), set to the device's current stream.
cudnnHandle_t cudnn_handle(int device);

// cuDNN's element type for a tensor dtype (Float/Double/Half/BFloat16).
cudnnDataType_t cudnn_data_type(ScalarType t);

// A descriptor for a dense 4-D NCHW tensor (or filter); sizes must fit cuDNN's int.
struct TensorDescriptor {
  cudnnTensorDescriptor_t desc = nullptr;
  explicit TensorDescriptor(const Tensor& t);
  ~TensorDescriptor();
  TensorDescriptor(const TensorDescriptor&) = delete;
  TensorDescriptor& operator=(const TensorDescriptor&) = delete;
};
struct FilterDescriptor {
  cudnnFilterDescriptor_t desc = nullptr;
  explicit FilterDescriptor(const Tensor& t);
  ~FilterDescriptor();
  FilterDescriptor(const FilterDescriptor&) = delete;
  FilterDescriptor& operator=(const FilterDescriptor&) = delete;
};
struct ConvolutionDescriptor {
  cudnnConvolutionDescriptor_t desc = nullptr;
  ConvolutionDescriptor(const int pad[2], const int stride[2], const int dilation[2], int groups,
                        cudnnDataType_t compute, cudnnMathType_t math);
  ~ConvolutionDescriptor();
  ConvolutionDescriptor(const ConvolutionDescriptor&) = delete;
  ConvolutionDescriptor& operator=(const ConvolutionDescriptor&) = delete;
};

}  // namespace cuda
}  // namespace mt
