// CUDA convolution without cuDNN (used when it is absent or backends.cudnn.enabled is False): per image,
// im2col (col2im, a gather with no atomics, for the input gradient) and grouped GEMMs through the cuBLAS
// kernel (ops/linalg.h's gemm_stub), as PyTorch's slow_conv2d. A 1x1 stride-1 unpadded conv is GEMM only.
#include <cuda_runtime.h>

#include "core/ScalarType.h"
#include "cuda/CUDAContext.h"
#include "cuda/Exceptions.h"
#include "ops/conv.h"
#include "ops/linalg.h"

namespace mt {
namespace {

constexpr int kThreads = 256;

struct Geo {
  int64_t C, H, W, O, oH, oW, kH, kW, sH, sW, pH, pW, dH, dW, g;
  MT_HD_INLINE int64_t K() const { return C / g * kH * kW; }
  MT_HD_INLINE int64_t L() const { return oH * oW; }
  bool direct() const { return kH == 1 && kW == 1 && sH == 1 && sW == 1 && pH == 0 && pW == 0; }
};

Geo geometry(const Tensor& in, const Tensor& out, const Tensor& w, const ConvArgs& a) {
  return {in.sizes()[1],  in.sizes()[2], in.sizes()[3], out.sizes()[1], out.sizes()[2],
          out.sizes()[3], w.sizes()[2],  w.sizes()[3],  a.stride[0],    a.stride[1],
          a.padding[0],   a.padding[1],  a.dilation[0], a.dilation[1],  a.groups};
}

// columns (c, kh, kw) x (oh, ow) of one image; zeros in the padding
template <typename T>
__global__ void im2col_kernel(const T* __restrict__ in, T* __restrict__ col, int64_t total, Geo g) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < total;
       i += int64_t(gridDim.x) * blockDim.x) {
    int64_t ow = i % g.oW, t = i / g.oW;
    int64_t oh = t % g.oH;
    t /= g.oH;
    int64_t kw = t % g.kW;
    t /= g.kW;
    int64_t kh = t % g.kH, c = t / g.kH;
    int64_t ih = oh * g.sH - g.pH + kh * g.dH, iw = ow * g.sW - g.pW + kw * g.dW;
    col[i] = (ih >= 0 && ih < g.H && iw >= 0 && iw < g.W) ? in[(c * g.H + ih) * g.W + iw] : T(0);
  }
}

// each input element sums the column entries that read it
template <typename T>
__global__ void col2im_kernel(const T* __restrict__ col, T* __restrict__ in, int64_t total, Geo g) {
  using acc_t = opmath_t<T>;
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < total;
       i += int64_t(gridDim.x) * blockDim.x) {
    int64_t w = i % g.W, h = (i / g.W) % g.H, c = i / (g.W * g.H);
    acc_t s = 0;
    for (int64_t kh = 0; kh < g.kH; ++kh) {
      int64_t hh = h + g.pH - kh * g.dH;
      if (hh < 0 || hh % g.sH != 0 || hh / g.sH >= g.oH) continue;
      int64_t oh = hh / g.sH;
      for (int64_t kw = 0; kw < g.kW; ++kw) {
        int64_t ww = w + g.pW - kw * g.dW;
        if (ww < 0 || ww % g.sW != 0 || ww / g.sW >= g.oW) continue;
        s += static_cast<acc_t>(col[(((c * g.kH + kh) * g.kW + kw) * g.oH + oh) * g.oW + ww / g.sW]);
      }
    }
    in[i] = static_cast<T>(s);
  }
}

void im2col(const Tensor& input, int64_t n, const Tensor& col, const Geo& g, cudaStream_t stream) {
  int64_t total = g.C * g.kH * g.kW * g.L();
  unsigned blocks = static_cast<unsigned>(cuda::grid_size(total, kThreads, input.device().index));
  MT_DISPATCH_FLOATING_TYPES(input.dtype(), "im2col_cuda", [&] {
    im2col_kernel<scalar_t><<<blocks, kThreads, 0, stream>>>(input.data<scalar_t>() + n * g.C * g.H * g.W,
                                                             col.data<scalar_t>(), total, g);
  });
  MT_CUDA_CHECK(cudaGetLastError());
}

void col2im(const Tensor& col, const Tensor& grad_in, int64_t n, const Geo& g, cudaStream_t stream) {
  int64_t total = g.C * g.H * g.W;
  unsigned blocks = static_cast<unsigned>(cuda::grid_size(total, kThreads, grad_in.device().index));
  MT_DISPATCH_FLOATING_TYPES(grad_in.dtype(), "col2im_cuda", [&] {
    col2im_kernel<scalar_t><<<blocks, kThreads, 0, stream>>>(col.data<scalar_t>(),
                                                             grad_in.data<scalar_t>() + n * total, total, g);
  });
  MT_CUDA_CHECK(cudaGetLastError());
}

// [groups, rows, cols] row-major view of a dense buffer at element `off` past t's own offset
Tensor mat(const Tensor& t, int64_t groups, int64_t rows, int64_t cols, int64_t off) {
  return make_view(t, {groups, rows, cols}, {rows * cols, cols, 1}, t.storage_offset() + off);
}
// the transpose of mat(t, groups, cols, rows, off): [groups, rows, cols] over a [groups, cols, rows] buffer
Tensor mat_t(const Tensor& t, int64_t groups, int64_t rows, int64_t cols, int64_t off) {
  return make_view(t, {groups, rows, cols}, {rows * cols, 1, rows}, t.storage_offset() + off);
}

void conv_forward_cuda(const Tensor& out, const Tensor& input, const Tensor& weight, const ConvArgs& a) {
  cuda::DeviceGuard guard(input.device());
  cudaStream_t stream = cuda::current_stream(input.device().index);
  Geo g = geometry(input, out, weight, a);
  int64_t N = input.sizes()[0], Og = g.O / g.g, K = g.K(), L = g.L();
  Tensor col = g.direct() ? Tensor() : make_empty({g.C * g.kH * g.kW, L}, input.dtype(), input.device());
  auto gemm = gemm_stub.get(input.device());
  Tensor w = mat(weight, g.g, Og, K, 0);
  for (int64_t n = 0; n < N; ++n) {
    if (!g.direct()) im2col(input, n, col, g, stream);
    Tensor cols = g.direct() ? mat(input, g.g, K, L, n * g.C * g.H * g.W) : mat(col, g.g, K, L, 0);
    gemm(mat(out, g.g, Og, L, n * g.O * L), w, cols, Scalar(1.0), Scalar(0.0));
  }
}

void conv_backward_input_cuda(const Tensor& grad_in, const Tensor& grad_out, const Tensor& weight,
                              const ConvArgs& a) {
  cuda::DeviceGuard guard(grad_in.device());
  cudaStream_t stream = cuda::current_stream(grad_in.device().index);
  Geo g = geometry(grad_in, grad_out, weight, a);
  int64_t N = grad_in.sizes()[0], Og = g.O / g.g, K = g.K(), L = g.L();
  Tensor col = g.direct() ? Tensor() : make_empty({g.C * g.kH * g.kW, L}, grad_in.dtype(), grad_in.device());
  auto gemm = gemm_stub.get(grad_in.device());
  Tensor wt = mat_t(weight, g.g, K, Og, 0);  // W_g^T
  for (int64_t n = 0; n < N; ++n) {
    Tensor cols = g.direct() ? mat(grad_in, g.g, K, L, n * g.C * g.H * g.W) : mat(col, g.g, K, L, 0);
    gemm(cols, wt, mat(grad_out, g.g, Og, L, n * g.O * L), Scalar(1.0), Scalar(0.0));
    if (!g.direct()) col2im(col, grad_in, n, g, stream);
  }
}

// The same per-sample im2col loop as conv_forward_cuda, with the column matrix transposed into the GEMM and
// the products accumulated over samples (beta 1 after the first).
void conv_backward_weight_cuda(const Tensor& grad_w, const Tensor& grad_out, const Tensor& input,
                               const ConvArgs& a) {
  cuda::DeviceGuard guard(input.device());
  cudaStream_t stream = cuda::current_stream(input.device().index);
  Geo g = geometry(input, grad_out, grad_w, a);
  int64_t N = input.sizes()[0], Og = g.O / g.g, K = g.K(), L = g.L();
  Tensor col = g.direct() ? Tensor() : make_empty({g.C * g.kH * g.kW, L}, input.dtype(), input.device());
  auto gemm = gemm_stub.get(input.device());
  Tensor gw = mat(grad_w, g.g, Og, K, 0);
  for (int64_t n = 0; n < N; ++n) {
    if (!g.direct()) im2col(input, n, col, g, stream);
    Tensor cols_t = g.direct() ? mat_t(input, g.g, L, K, n * g.C * g.H * g.W) : mat_t(col, g.g, L, K, 0);
    gemm(gw, mat(grad_out, g.g, Og, L, n * g.O * L), cols_t, Scalar(1.0), Scalar(n == 0 ? 0.0 : 1.0));
  }
}

}  // namespace

MT_REGISTER_KERNEL(conv_forward_stub, CUDA, &conv_forward_cuda);
MT_REGISTER_KERNEL(conv_backward_input_stub, CUDA, &conv_backward_input_cuda);
MT_REGISTER_KERNEL(conv_backward_weight_stub, CUDA, &conv_backward_weight_cuda);

}  // namespace mt
