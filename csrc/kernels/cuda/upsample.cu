// CUDA upsampling kernels: one thread per output computing its taps with ops/upsample.h's shared math; the
// gradient scatters each output's share with atomicAdd into a zeroed float/double buffer (simple, not
// deterministic in the last bits, as PyTorch's CUDA upsample backward).
#include <cuda_runtime.h>

#include "core/ScalarType.h"
#include "cuda/CUDAContext.h"
#include "cuda/Exceptions.h"
#include "ops/upsample.h"

namespace mt {
namespace {

constexpr int kThreads = 256;

template <typename T>
__global__ void upsample_kernel(T* __restrict__ out, const T* __restrict__ in, int64_t total,
                                UpsampleArgs a) {
  using acc_t = upsample_acc_t<T>;
  const int64_t iD = a.in[0], iH = a.in[1], iW = a.in[2], oD = a.out[0], oH = a.out[1], oW = a.out[2];
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < total;
       i += int64_t(gridDim.x) * blockDim.x) {
    int64_t ow = i % oW, oh = (i / oW) % oH, od = (i / (oW * oH)) % oD, pl = i / (oW * oH * oD);
    auto td = upsample_taps<acc_t>(a.mode, a.align_corners, iD, oD, a.scale[0], od);
    auto th = upsample_taps<acc_t>(a.mode, a.align_corners, iH, oH, a.scale[1], oh);
    auto tw = upsample_taps<acc_t>(a.mode, a.align_corners, iW, oW, a.scale[2], ow);
    const T* x = in + pl * iD * iH * iW;
    if (a.mode == UpsampleMode::nearest || a.mode == UpsampleMode::nearest_exact) {
      out[i] = x[(td.idx[0] * iH + th.idx[0]) * iW + tw.idx[0]];
      continue;
    }
    acc_t s = 0;
    for (int p = 0; p < td.n; ++p)
      for (int q = 0; q < th.n; ++q) {
        const T* xr = x + (td.idx[p] * iH + th.idx[q]) * iW;
        acc_t sw = 0;
        for (int k = 0; k < tw.n; ++k) sw += tw.w[k] * static_cast<acc_t>(xr[tw.idx[k]]);
        s += td.w[p] * th.w[q] * sw;
      }
    out[i] = static_cast<T>(s);
  }
}

// Walks the outputs as upsample_kernel does (one thread per output, its taps from ops/upsample.h) but
// scatters with atomicAdd where the forward gathers (T-typed taps: atomicAdd takes T).
template <typename T>
__global__ void upsample_backward_kernel(T* __restrict__ grad_in, const T* __restrict__ grad_out,
                                         int64_t total, UpsampleArgs a) {
  const int64_t iD = a.in[0], iH = a.in[1], iW = a.in[2], oD = a.out[0], oH = a.out[1], oW = a.out[2];
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < total;
       i += int64_t(gridDim.x) * blockDim.x) {
    int64_t ow = i % oW, oh = (i / oW) % oH, od = (i / (oW * oH)) % oD, pl = i / (oW * oH * oD);
    auto td = upsample_taps<T>(a.mode, a.align_corners, iD, oD, a.scale[0], od);
    auto th = upsample_taps<T>(a.mode, a.align_corners, iH, oH, a.scale[1], oh);
    auto tw = upsample_taps<T>(a.mode, a.align_corners, iW, oW, a.scale[2], ow);
    T* x = grad_in + pl * iD * iH * iW;
    const T g = grad_out[i];
    for (int p = 0; p < td.n; ++p)
      for (int q = 0; q < th.n; ++q)
        for (int k = 0; k < tw.n; ++k)
          atomicAdd(x + (td.idx[p] * iH + th.idx[q]) * iW + tw.idx[k], td.w[p] * th.w[q] * tw.w[k] * g);
  }
}

unsigned blocks_for(int64_t n, int device) {
  return static_cast<unsigned>(cuda::grid_size(n, kThreads, device));
}

void upsample_cuda(const Tensor& out, const Tensor& input, const UpsampleArgs& a) {
  cuda::DeviceGuard guard(input.device());
  cudaStream_t stream = cuda::current_stream(input.device().index);
  int64_t total = out.numel();
  auto launch = [&](auto tag) {
    using scalar_t = decltype(tag);
    upsample_kernel<scalar_t><<<blocks_for(total, input.device().index), kThreads, 0, stream>>>(
        out.data<scalar_t>(), input.data<scalar_t>(), total, a);
  };
  if (input.dtype() == ScalarType::Byte)
    launch(uint8_t{});  // nearest only (checked by the front end)
  else
    MT_DISPATCH_FLOATING_TYPES(input.dtype(), "upsample_cuda", [&] { launch(scalar_t{}); });
  MT_CUDA_CHECK(cudaGetLastError());
}

void upsample_backward_cuda(const Tensor& grad_in, const Tensor& grad_out, const UpsampleArgs& a) {
  cuda::DeviceGuard guard(grad_in.device());
  cudaStream_t stream = cuda::current_stream(grad_in.device().index);
  int64_t total = grad_out.numel();
  MT_CUDA_CHECK(
      cudaMemsetAsync(grad_in.data_ptr(), 0, grad_in.numel() * element_size(grad_in.dtype()), stream));
  switch (grad_in.dtype()) {
    case ScalarType::Float:
      upsample_backward_kernel<float><<<blocks_for(total, grad_in.device().index), kThreads, 0, stream>>>(
          grad_in.data<float>(), grad_out.data<float>(), total, a);
      break;
    case ScalarType::Double:
      upsample_backward_kernel<double><<<blocks_for(total, grad_in.device().index), kThreads, 0, stream>>>(
          grad_in.data<double>(), grad_out.data<double>(), total, a);
      break;
    default:
      MT_ERROR("\"upsample_backward_cuda\" not implemented for '", dtype_short_name(grad_in.dtype()), "'");
  }
  MT_CUDA_CHECK(cudaGetLastError());
}

}  // namespace

MT_REGISTER_KERNEL(upsample_stub, CUDA, &upsample_cuda);
MT_REGISTER_KERNEL(upsample_backward_stub, CUDA, &upsample_backward_cuda);

}  // namespace mt
