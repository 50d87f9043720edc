// The cross-device copy (CPU <-> CUDA, CUDA <-> CUDA) behind cross_device_copy_stub: host code over the CUDA
// runtime's async copies, the caching allocator's pinned-memory bookkeeping and the current stream.
#ifdef MINITORCH_WITH_CUDA
#include <cuda_runtime_api.h>

#include "cuda/CUDACachingAllocator.h"
#include "cuda/CUDAContext.h"
#include "cuda/Exceptions.h"
#include "ops/copy.h"
#include "ops/kernels.h"

namespace mt {
namespace {

// Same-dtype copy between devices on the CUDA side's current stream. Non-contiguous sides are staged through
// a contiguous buffer on their own device. Blocking unless non_blocking is set and the host side is pinned
// (or both sides are on GPUs), as in PyTorch.
void cross_device_copy_cuda(const Tensor& dst, const Tensor& src, bool non_blocking) {
  MT_CHECK(src.numel() == dst.numel(), "copy_: cross-device copies need equal shapes, got ",
           shape_str(src.sizes()), " and ", shape_str(dst.sizes()));
  Device gpu = dst.is_cuda() ? dst.device() : src.device();
  cuda::DeviceGuard guard(gpu.index);
  cudaStream_t stream = cuda::current_stream(gpu.index);
  Tensor s = contiguous(src);
  Tensor d = dst.is_contiguous() ? dst : make_empty(dst.sizes(), dst.dtype(), dst.device());
  size_t nbytes = static_cast<size_t>(s.numel()) * s.itemsize();
  bool sync = !non_blocking;
  // inside a CUDA graph capture the pinned host buffer is read at each replay, not now: no event to record
  // (an event recorded in a capture cannot be queried), keeping it alive is the caller's part, as in PyTorch
  bool capturing = cuda::captures_underway() > 0 && cuda::stream_is_capturing(stream);
  if (capturing) {
    // checked before any CUDA call, so the capture stays valid and the error is this one (PyTorch's)
    const Tensor& host = s.is_cuda() ? d : s;  // the buffers the copy reads or writes
    MT_CHECK(host.is_cuda() || cuda::is_pinned_ptr(host.data_ptr()),
             "Cannot copy between CPU and CUDA tensors during CUDA graph capture unless the CPU tensor is "
             "pinned. Please use tensor.pin_memory() or allocate the tensor with pin_memory=True.");
  }
  if (s.is_cuda() && d.is_cuda()) {
    // the source device's pending work (on its current stream) must finish before the peer copy reads it
    cudaEvent_t ready;
    MT_CUDA_CHECK(cudaEventCreateWithFlags(&ready, cudaEventDisableTiming));
    {
      cuda::DeviceGuard g2(s.device().index);
      MT_CUDA_CHECK(cudaEventRecord(ready, cuda::current_stream(s.device().index)));
    }
    MT_CUDA_CHECK(cudaStreamWaitEvent(stream, ready, 0));
    cudaEventDestroy(ready);
    MT_CUDA_CHECK(
        cudaMemcpyPeerAsync(d.data_ptr(), d.device().index, s.data_ptr(), s.device().index, nbytes, stream));
  } else if (s.is_cuda()) {
    MT_CUDA_CHECK(cudaMemcpyAsync(d.data_ptr(), s.data_ptr(), nbytes, cudaMemcpyDeviceToHost, stream));
    // the host may read d only after the copy: async only into pinned memory the caller reads later
    bool pinned = d.is_same(dst) && cuda::is_pinned_ptr(d.data_ptr());
    if (pinned && !sync) {
      if (!capturing) cuda::record_pinned_use(d.storage()->data, stream);
    } else
      sync = true;
  } else {
    MT_CUDA_CHECK(cudaMemcpyAsync(d.data_ptr(), s.data_ptr(), nbytes, cudaMemcpyHostToDevice, stream));
    if (!capturing && cuda::is_pinned_ptr(s.data_ptr())) cuda::record_pinned_use(s.storage()->data, stream);
  }
  if (sync) MT_CUDA_CHECK(cudaStreamSynchronize(stream));
  if (!d.is_same(dst)) copy_(dst, d);
}

}  // namespace

MT_REGISTER_KERNEL(cross_device_copy_stub, CUDA, &cross_device_copy_cuda);

}  // namespace mt
#endif
