// cuDNN handles (one per thread and device from a HandlePool, as cuDNN handles must not be shared between
// threads that run concurrently) and the RAII descriptors of CUDNNUtils.h.
#if defined(MINITORCH_WITH_CUDA) && defined(MINITORCH_WITH_CUDNN)
#include "cuda/CUDNNUtils.h"

#include <climits>

#include "core/Context.h"
#include "cuda/CUDACachingAllocator.h"
#include "cuda/CUDAContext.h"
#include "cuda/HandlePool.h"

namespace mt {
namespace cuda {

namespace {
void create_handle(cudnnHandle_t* h) {
  MT_CUDNN_CHECK(cudnnCreate(h));
}
}  // namespace

cudnnHandle_t cudnn_handle(int device) {
  if (device < 0) device = current_device();
  MT_CHECK(device < kMaxDevices, "cuDNN: device index ", device, " out of range");
  cudnnHandle_t h;
  {
    RelaxedCaptureGuard relax(captures_underway() > 0);  // created on first use, maybe inside a capture
    h = HandlePool<cudnnHandle_t, &create_handle>::get(device);
  }
  MT_CUDNN_CHECK(cudnnSetStream(h, current_stream(device)));
  return h;
}

cudnnDataType_t cudnn_data_type(ScalarType t) {
  switch (t) {
    case ScalarType::Float:
      return CUDNN_DATA_FLOAT;
    case ScalarType::Double:
      return CUDNN_DATA_DOUBLE;
    case ScalarType::Half:
      return CUDNN_DATA_HALF;
    case ScalarType::BFloat16:
      return CUDNN_DATA_BFLOAT16;
    default:
      MT_ERROR("cuDNN: unsupported dtype ", dtype_short_name(t));
  }
}

namespace {
void int_dims(const Tensor& t, int dims[4], int strides[4]) {
  MT_CHECK(t.dim() == 4, "cuDNN: expected a 4-D tensor, got ", shape_str(t.sizes()));
  for (int i = 0; i < 4; ++i) {
    MT_CHECK(t.sizes()[i] <= INT_MAX && t.strides()[i] <= INT_MAX,
             "cuDNN convolution does not support tensors with more than 2^31 - 1 elements per dimension or "
             "stride, got size ",
             shape_str(t.sizes()));
    dims[i] = static_cast<int>(t.sizes()[i]);
    strides[i] = static_cast<int>(t.strides()[i]);
  }
}
}  // namespace

TensorDescriptor::TensorDescriptor(const Tensor& t) {
  int dims[4], strides[4];
  int_dims(t, dims, strides);
  MT_CUDNN_CHECK(cudnnCreateTensorDescriptor(&desc));
  MT_CUDNN_CHECK(cudnnSetTensorNdDescriptor(desc, cudnn_data_type(t.dtype()), 4, dims, strides));
}
TensorDescriptor::~TensorDescriptor() {
  if (desc) cudnnDestroyTensorDescriptor(desc);
}

FilterDescriptor::FilterDescriptor(const Tensor& t) {
  int dims[4], strides[4];
  int_dims(t, dims, strides);
  MT_CUDNN_CHECK(cudnnCreateFilterDescriptor(&desc));
  MT_CUDNN_CHECK(cudnnSetFilterNdDescriptor(desc, cudnn_data_type(t.dtype()), CUDNN_TENSOR_NCHW, 4, dims));
}
FilterDescriptor::~FilterDescriptor() {
  if (desc) cudnnDestroyFilterDescriptor(desc);
}

ConvolutionDescriptor::ConvolutionDescriptor(const int pad[2], const int stride[2], const int dilation[2],
                                             int groups, cudnnDataType_t compute, cudnnMathType_t math) {
  MT_CUDNN_CHECK(cudnnCreateConvolutionDescriptor(&desc));
  MT_CUDNN_CHECK(
      cudnnSetConvolutionNdDescriptor(desc, 2, pad, stride, dilation, CUDNN_CROSS_CORRELATION, compute));
  MT_CUDNN_CHECK(cudnnSetConvolutionGroupCount(desc, groups));
  MT_CUDNN_CHECK(cudnnSetConvolutionMathType(desc, math));
}
ConvolutionDescriptor::~ConvolutionDescriptor() {
  if (desc) cudnnDestroyConvolutionDescriptor(desc);
}

}  // namespace cuda

int64_t cudnn_version() {
  return static_cast<int64_t>(cudnnGetVersion());
}

}  // namespace mt
#else
#include "core/Context.h"

namespace mt {
int64_t cudnn_version() {
  return 0;
}
}  // namespace mt
#endif
