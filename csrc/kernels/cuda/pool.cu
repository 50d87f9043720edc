// CUDA pooling kernels: one thread per output (max with flat per-plane indices, avg) and one per input for
// the gradients (a gather over the windows that may hold it: no atomics, deterministic). Window math is
// ops/pool.h's, shared with the CPU kernels; half/bfloat16 accumulate in float.
#include <cuda_runtime.h>

#include "core/ScalarType.h"
#include "cuda/CUDAContext.h"
#include "cuda/Exceptions.h"
#include "ops/pool.h"

namespace mt {
namespace {

constexpr int kThreads = 256;

struct Geo {
  int64_t H, W, oH, oW;
};

template <typename T>
__global__ void max_pool_kernel(T* __restrict__ out, int64_t* __restrict__ indices, const T* __restrict__ in,
                                int64_t total, Geo g, PoolArgs a) {
  using acc_t = opmath_t<T>;
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < total;
       i += int64_t(gridDim.x) * blockDim.x) {
    int64_t ow = i % g.oW, oh = (i / g.oW) % g.oH, pl = i / (g.oW * g.oH);
    int64_t h0, h1, dh, w0, w1, dw;
    if (a.adaptive) {
      h0 = adaptive_start(oh, g.oH, g.H), h1 = adaptive_end(oh, g.oH, g.H), dh = 1;
      w0 = adaptive_start(ow, g.oW, g.W), w1 = adaptive_end(ow, g.oW, g.W), dw = 1;
    } else {
      dh = a.dilation[0], dw = a.dilation[1];
      h0 = oh * a.stride[0] - a.padding[0];
      w0 = ow * a.stride[1] - a.padding[1];
      h1 = min(h0 + (a.kernel[0] - 1) * dh + 1, g.H);
      w1 = min(w0 + (a.kernel[1] - 1) * dw + 1, g.W);
      while (h0 < 0) h0 += dh;
      while (w0 < 0) w0 += dw;
    }
    const T* x = in + pl * g.H * g.W;
    acc_t best = -INFINITY;
    int64_t bi = h0 * g.W + w0;
    for (int64_t h = h0; h < h1; h += dh)
      for (int64_t w = w0; w < w1; w += dw) {
        acc_t v = static_cast<acc_t>(x[h * g.W + w]);
        if (v > best ||
            v != v) {  // first maximum wins; a NaN wins and the last NaN keeps it (PyTorch's test)
          best = v;
          bi = h * g.W + w;
        }
      }
    out[i] = static_cast<T>(best);
    indices[i] = bi;
  }
}

template <typename T>
__global__ void avg_pool_kernel(T* __restrict__ out, const T* __restrict__ in, int64_t total, Geo g,
                                PoolArgs a) {
  using acc_t = opmath_t<T>;
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < total;
       i += int64_t(gridDim.x) * blockDim.x) {
    int64_t ow = i % g.oW, oh = (i / g.oW) % g.oH, pl = i / (g.oW * g.oH);
    PoolWindow hw = avg_window(oh, g.oH, g.H, a.kernel[0], a.stride[0], a.padding[0], a.adaptive);
    PoolWindow ww = avg_window(ow, g.oW, g.W, a.kernel[1], a.stride[1], a.padding[1], a.adaptive);
    const T* x = in + pl * g.H * g.W;
    acc_t s = 0;
    for (int64_t h = hw.start; h < hw.end; ++h)
      for (int64_t w = ww.start; w < ww.end; ++w) s += static_cast<acc_t>(x[h * g.W + w]);
    int64_t div = avg_divisor(hw, ww, a.count_include_pad, a.divisor);
    out[i] = static_cast<T>(div > 0 ? s / acc_t(div) : acc_t(NAN));
  }
}

template <typename T>
__global__ void avg_pool_backward_kernel(T* __restrict__ grad_in, const T* __restrict__ grad_out,
                                         int64_t total, Geo g, PoolArgs a) {
  using acc_t = opmath_t<T>;
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < total;
       i += int64_t(gridDim.x) * blockDim.x) {
    int64_t w = i % g.W, h = (i / g.W) % g.H, pl = i / (g.W * g.H);
    int64_t oh0, oh1, ow0, ow1;
    avg_outputs_of(h, g.oH, g.H, a.kernel[0], a.stride[0], a.padding[0], a.adaptive, oh0, oh1);
    avg_outputs_of(w, g.oW, g.W, a.kernel[1], a.stride[1], a.padding[1], a.adaptive, ow0, ow1);
    const T* go = grad_out + pl * g.oH * g.oW;
    acc_t s = 0;
    for (int64_t oh = oh0; oh < oh1; ++oh) {
      PoolWindow hw = avg_window(oh, g.oH, g.H, a.kernel[0], a.stride[0], a.padding[0], a.adaptive);
      if (h < hw.start || h >= hw.end) continue;
      for (int64_t ow = ow0; ow < ow1; ++ow) {
        PoolWindow ww = avg_window(ow, g.oW, g.W, a.kernel[1], a.stride[1], a.padding[1], a.adaptive);
        if (w < ww.start || w >= ww.end) continue;
        s += static_cast<acc_t>(go[oh * g.oW + ow]) /
             acc_t(avg_divisor(hw, ww, a.count_include_pad, a.divisor));
      }
    }
    grad_in[i] = static_cast<T>(s);
  }
}

template <typename T>
__global__ void max_pool_backward_kernel(T* __restrict__ grad_in, const T* __restrict__ grad_out,
                                         const int64_t* __restrict__ indices, int64_t total, Geo g,
                                         PoolArgs a) {
  using acc_t = opmath_t<T>;
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < total;
       i += int64_t(gridDim.x) * blockDim.x) {
    int64_t w = i % g.W, h = (i / g.W) % g.H, pl = i / (g.W * g.H);
    int64_t oh0, oh1, ow0, ow1;
    max_outputs_of(h, g.oH, g.H, a.kernel[0], a.stride[0], a.padding[0], a.dilation[0], a.adaptive, oh0, oh1);
    max_outputs_of(w, g.oW, g.W, a.kernel[1], a.stride[1], a.padding[1], a.dilation[1], a.adaptive, ow0, ow1);
    const T* go = grad_out + pl * g.oH * g.oW;
    const int64_t* ix = indices + pl * g.oH * g.oW;
    const int64_t me = h * g.W + w;
    acc_t s = 0;
    for (int64_t oh = oh0; oh < oh1; ++oh)
      for (int64_t ow = ow0; ow < ow1; ++ow)
        if (ix[oh * g.oW + ow] == me) s += static_cast<acc_t>(go[oh * g.oW + ow]);
    grad_in[i] = static_cast<T>(s);
  }
}

Geo geo_of(const Tensor& in, const Tensor& out) {
  return {in.sizes()[2], in.sizes()[3], out.sizes()[2], out.sizes()[3]};
}

unsigned blocks_for(int64_t n, int device) {
  return static_cast<unsigned>(cuda::grid_size(n, kThreads, device));
}

void max_pool2d_cuda(const Tensor& out, const Tensor& indices, const Tensor& input, const PoolArgs& a) {
  cuda::DeviceGuard guard(input.device());
  cudaStream_t stream = cuda::current_stream(input.device().index);
  int64_t total = out.numel();
  MT_DISPATCH_FLOATING_TYPES(input.dtype(), "max_pool2d_cuda", [&] {
    max_pool_kernel<scalar_t><<<blocks_for(total, input.device().index), kThreads, 0, stream>>>(
        out.data<scalar_t>(), indices.data<int64_t>(), input.data<scalar_t>(), total, geo_of(input, out), a);
  });
  MT_CUDA_CHECK(cudaGetLastError());
}

void avg_pool2d_cuda(const Tensor& out, const Tensor& input, const PoolArgs& a) {
  cuda::DeviceGuard guard(input.device());
  cudaStream_t stream = cuda::current_stream(input.device().index);
  int64_t total = out.numel();
  MT_DISPATCH_FLOATING_TYPES(input.dtype(), "avg_pool2d_cuda", [&] {
    avg_pool_kernel<scalar_t><<<blocks_for(total, input.device().index), kThreads, 0, stream>>>(
        out.data<scalar_t>(), input.data<scalar_t>(), total, geo_of(input, out), a);
  });
  MT_CUDA_CHECK(cudaGetLastError());
}

void avg_pool2d_backward_cuda(const Tensor& grad_in, const Tensor& grad_out, const PoolArgs& a) {
  cuda::DeviceGuard guard(grad_in.device());
  cudaStream_t stream = cuda::current_stream(grad_in.device().index);
  int64_t total = grad_in.numel();
  MT_DISPATCH_FLOATING_TYPES(grad_in.dtype(), "avg_pool2d_backward_cuda", [&] {
    avg_pool_backward_kernel<scalar_t><<<blocks_for(total, grad_in.device().index), kThreads, 0, stream>>>(
        grad_in.data<scalar_t>(), grad_out.data<scalar_t>(), total, geo_of(grad_in, grad_out), a);
  });
  MT_CUDA_CHECK(cudaGetLastError());
}

void max_pool2d_backward_cuda(const Tensor& grad_in, const Tensor& grad_out, const Tensor& indices,
                              const PoolArgs& a) {
  cuda::DeviceGuard guard(grad_in.device());
  cudaStream_t stream = cuda::current_stream(grad_in.device().index);
  int64_t total = grad_in.numel();
  MT_DISPATCH_FLOATING_TYPES(grad_in.dtype(), "max_pool2d_backward_cuda", [&] {
    max_pool_backward_kernel<scalar_t><<<blocks_for(total, grad_in.device().index), kThreads, 0, stream>>>(
        grad_in.data<scalar_t>(), grad_out.data<scalar_t>(), indices.data<int64_t>(), total,
        geo_of(grad_in, grad_out), a);
  });
  MT_CUDA_CHECK(cudaGetLastError());
}

}  // namespace

MT_REGISTER_KERNEL(max_pool2d_stub, CUDA, &max_pool2d_cuda);
MT_REGISTER_KERNEL(avg_pool2d_stub, CUDA, &avg_pool2d_cuda);
MT_REGISTER_KERNEL(avg_pool2d_backward_stub, CUDA, &avg_pool2d_backward_cuda);
MT_REGISTER_KERNEL(max_pool2d_backward_stub, CUDA, &max_pool2d_backward_cuda);

}  // namespace mt
