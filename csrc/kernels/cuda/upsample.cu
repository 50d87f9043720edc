// CUDA upsampling kernels: one thread per output computing its taps with ops/upsample.h's shared math; the
// gradient scatters each output's share with atomicAdd into a zeroed float/double buffer (simple, not
// deterministic in the last bits, as PyTorch's CUDA upsample backward). The separable (antialias) primitive
// computes each dim's rows on the device with the same math as the CPU tables, then gathers a horizontal and
// a vertical pass; its gradient scatters the two passes' adjoints with atomicAdd.
#include <cuda_runtime.h>

#include <type_traits>

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

// ---- separable (antialias): rows per output index, then the passes PyTorch runs (W, then H, each only where
// the size changes)
template <typename T>
__global__ void upsample_aa_rows_kernel(int64_t* xmin, int64_t* xsize, T* w, UpsampleAaDim<T> p,
                                        UpsampleAaFilter f, int64_t in, int64_t out) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < out;
       i += int64_t(gridDim.x) * blockDim.x)
    upsample_aa_row<T>(p, f, in, i, xmin + i, xsize + i, w + i * p.width);
}

template <typename T>
struct AaDeviceRows {
  Tensor xmin, xsize, w;
  int64_t width;
};

template <typename T>
AaDeviceRows<T> aa_device_rows(const UpsampleAaArgs& a, int d, Device dev, cudaStream_t stream) {
  UpsampleAaDim<T> p = upsample_aa_dim<T>(a, d);
  AaDeviceRows<T> r;
  r.width = p.width;
  r.xmin = make_empty({a.out[d]}, ScalarType::Long, dev);
  r.xsize = make_empty({a.out[d]}, ScalarType::Long, dev);
  r.w = make_empty({a.out[d] * p.width}, std::is_same_v<T, double> ? ScalarType::Double : ScalarType::Float,
                   dev);
  upsample_aa_rows_kernel<T><<<blocks_for(a.out[d], dev.index), kThreads, 0, stream>>>(
      r.xmin.template data<int64_t>(), r.xsize.template data<int64_t>(), r.w.template data<T>(), p, a.filter,
      a.in[d], a.out[d]);
  MT_CUDA_CHECK(cudaGetLastError());
  return r;
}

// y (rows, oW) from x (rows, iW); sums in T from t0 * w0, as the CPU pass
template <typename T>
__global__ void upsample_aa_w_kernel(T* __restrict__ y, const T* __restrict__ x, int64_t total, int64_t iW,
                                     int64_t oW, const int64_t* xmin, const int64_t* xsize, const T* w,
                                     int64_t width) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < total;
       i += int64_t(gridDim.x) * blockDim.x) {
    int64_t o = i % oW, k = i / oW;
    const T* xs = x + k * iW + xmin[o];
    const T* ws = w + o * width;
    T s = xs[0] * ws[0];
    for (int64_t j = 1; j < xsize[o]; ++j) s += xs[j] * ws[j];
    y[i] = s;
  }
}

// y (planes, oH, W) from x (planes, iH, W)
template <typename T>
__global__ void upsample_aa_h_kernel(T* __restrict__ y, const T* __restrict__ x, int64_t total, int64_t iH,
                                     int64_t oH, int64_t W, const int64_t* xmin, const int64_t* xsize,
                                     const T* w, int64_t width) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < total;
       i += int64_t(gridDim.x) * blockDim.x) {
    int64_t c = i % W, o = (i / W) % oH, pl = i / (W * oH);
    const T* xs = x + (pl * iH + xmin[o]) * W + c;
    const T* ws = w + o * width;
    T s = xs[0] * ws[0];
    for (int64_t j = 1; j < xsize[o]; ++j) s += xs[j * W] * ws[j];
    y[i] = s;
  }
}

// The adjoints: each output's share scattered into a zeroed buffer
template <typename T>
__global__ void upsample_aa_w_backward_kernel(T* gx, const T* __restrict__ g, int64_t total, int64_t iW,
                                              int64_t oW, const int64_t* xmin, const int64_t* xsize,
                                              const T* w, int64_t width) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < total;
       i += int64_t(gridDim.x) * blockDim.x) {
    int64_t o = i % oW, k = i / oW;
    T* xs = gx + k * iW + xmin[o];
    const T* ws = w + o * width;
    for (int64_t j = 0; j < xsize[o]; ++j) atomicAdd(xs + j, ws[j] * g[i]);
  }
}

template <typename T>
__global__ void upsample_aa_h_backward_kernel(T* gx, const T* __restrict__ g, int64_t total, int64_t iH,
                                              int64_t oH, int64_t W, const int64_t* xmin,
                                              const int64_t* xsize, const T* w, int64_t width) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < total;
       i += int64_t(gridDim.x) * blockDim.x) {
    int64_t c = i % W, o = (i / W) % oH, pl = i / (W * oH);
    T* xs = gx + (pl * iH + xmin[o]) * W + c;
    const T* ws = w + o * width;
    for (int64_t j = 0; j < xsize[o]; ++j) atomicAdd(xs + j * W, ws[j] * g[i]);
  }
}

template <typename T>
void upsample_aa_cuda_typed(const Tensor& out, const Tensor& input, const UpsampleAaArgs& a) {
  const Device dev = input.device();
  cudaStream_t stream = cuda::current_stream(dev.index);
  const int64_t P = input.sizes()[0] * input.sizes()[1];
  const int64_t iH = a.in[0], iW = a.in[1], oH = a.out[0], oW = a.out[1];
  const bool do_w = iW != oW, do_h = iH != oH;
  if (!do_w && !do_h) {
    MT_CUDA_CHECK(cudaMemcpyAsync(out.data_ptr(), input.data_ptr(), out.numel() * sizeof(T),
                                  cudaMemcpyDeviceToDevice, stream));
    return;
  }
  const T* x = input.data<T>();
  Tensor tmp;
  if (do_w) {
    AaDeviceRows<T> r = aa_device_rows<T>(a, 1, dev, stream);
    T* dst = out.data<T>();
    if (do_h) {
      tmp = make_empty({P * iH * oW}, out.dtype(), dev);
      dst = tmp.data<T>();
    }
    const int64_t total = P * iH * oW;
    upsample_aa_w_kernel<T><<<blocks_for(total, dev.index), kThreads, 0, stream>>>(
        dst, x, total, iW, oW, r.xmin.template data<int64_t>(), r.xsize.template data<int64_t>(),
        r.w.template data<T>(), r.width);
    MT_CUDA_CHECK(cudaGetLastError());
    x = dst;
  }
  if (do_h) {
    AaDeviceRows<T> r = aa_device_rows<T>(a, 0, dev, stream);
    const int64_t total = P * oH * oW;
    upsample_aa_h_kernel<T><<<blocks_for(total, dev.index), kThreads, 0, stream>>>(
        out.data<T>(), x, total, iH, oH, oW, r.xmin.template data<int64_t>(),
        r.xsize.template data<int64_t>(), r.w.template data<T>(), r.width);
    MT_CUDA_CHECK(cudaGetLastError());
  }
}

void upsample_aa_cuda(const Tensor& out, const Tensor& input, const UpsampleAaArgs& a) {
  cuda::DeviceGuard guard(input.device());
  switch (input.dtype()) {
    case ScalarType::Float:
      return upsample_aa_cuda_typed<float>(out, input, a);
    case ScalarType::Double:
      return upsample_aa_cuda_typed<double>(out, input, a);
    default:  // uint8's fixed-point kernel is CPU-only
      MT_CHECK_NOT_IMPLEMENTED(false, "\"upsample_aa_cuda\" not implemented for '",
                               dtype_short_name(input.dtype()), "'");
  }
}

template <typename T>
void upsample_aa_backward_cuda_typed(const Tensor& grad_in, const Tensor& grad_out, const UpsampleAaArgs& a) {
  const Device dev = grad_in.device();
  cudaStream_t stream = cuda::current_stream(dev.index);
  const int64_t P = grad_in.sizes()[0] * grad_in.sizes()[1];
  const int64_t iH = a.in[0], iW = a.in[1], oH = a.out[0], oW = a.out[1];
  const bool do_w = iW != oW, do_h = iH != oH;
  if (!do_w && !do_h) {
    MT_CUDA_CHECK(cudaMemcpyAsync(grad_in.data_ptr(), grad_out.data_ptr(), grad_in.numel() * sizeof(T),
                                  cudaMemcpyDeviceToDevice, stream));
    return;
  }
  const T* g = grad_out.data<T>();
  Tensor tmp;
  if (do_h) {
    AaDeviceRows<T> r = aa_device_rows<T>(a, 0, dev, stream);
    T* dst = grad_in.data<T>();
    if (do_w) {
      tmp = make_empty({P * iH * oW}, grad_in.dtype(), dev);
      dst = tmp.data<T>();
    }
    MT_CUDA_CHECK(cudaMemsetAsync(dst, 0, P * iH * oW * sizeof(T), stream));
    const int64_t total = P * oH * oW;
    upsample_aa_h_backward_kernel<T><<<blocks_for(total, dev.index), kThreads, 0, stream>>>(
        dst, g, total, iH, oH, oW, r.xmin.template data<int64_t>(), r.xsize.template data<int64_t>(),
        r.w.template data<T>(), r.width);
    MT_CUDA_CHECK(cudaGetLastError());
    g = dst;
  }
  if (do_w) {
    AaDeviceRows<T> r = aa_device_rows<T>(a, 1, dev, stream);
    MT_CUDA_CHECK(cudaMemsetAsync(grad_in.data_ptr(), 0, grad_in.numel() * sizeof(T), stream));
    const int64_t total = P * iH * oW;
    upsample_aa_w_backward_kernel<T><<<blocks_for(total, dev.index), kThreads, 0, stream>>>(
        grad_in.data<T>(), g, total, iW, oW, r.xmin.template data<int64_t>(),
        r.xsize.template data<int64_t>(), r.w.template data<T>(), r.width);
    MT_CUDA_CHECK(cudaGetLastError());
  }
}

void upsample_aa_backward_cuda(const Tensor& grad_in, const Tensor& grad_out, const UpsampleAaArgs& a) {
  cuda::DeviceGuard guard(grad_in.device());
  switch (grad_in.dtype()) {
    case ScalarType::Float:
      return upsample_aa_backward_cuda_typed<float>(grad_in, grad_out, a);
    case ScalarType::Double:
      return upsample_aa_backward_cuda_typed<double>(grad_in, grad_out, a);
    default:
      MT_ERROR("\"upsample_aa_backward_cuda\" not implemented for '", dtype_short_name(grad_in.dtype()), "'");
  }
}

}  // namespace

MT_REGISTER_KERNEL(upsample_stub, CUDA, &upsample_cuda);
MT_REGISTER_KERNEL(upsample_backward_stub, CUDA, &upsample_backward_cuda);
MT_REGISTER_KERNEL(upsample_aa_stub, CUDA, &upsample_aa_cuda);
MT_REGISTER_KERNEL(upsample_aa_backward_stub, CUDA, &upsample_aa_backward_cuda);

}  // namespace mt
