// CPU convolution kernels: im2col (col2im for the input gradient) and OpenBLAS GEMM, per image and group;
// a 1x1 stride-1 unpadded conv is a GEMM on the input itself. float/double native, half/bfloat16 in float.
#include "ops/conv.h"

#include <cblas.h>

#include <algorithm>
#include <cstring>
#include <mutex>
#include <vector>

#include "core/Parallel.h"
#include "ops/copy.h"

namespace mt {
namespace {

template <typename T>
void gemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, T alpha, const T* a, int64_t lda, const T* b,
          int64_t ldb, T beta, T* c, int64_t ldc) {
  auto TA = ta ? CblasTrans : CblasNoTrans, TB = tb ? CblasTrans : CblasNoTrans;
  if constexpr (std::is_same_v<T, float>)
    scipy_cblas_sgemm(CblasRowMajor, TA, TB, int(m), int(n), int(k), alpha, a, int(lda), b, int(ldb), beta, c,
                      int(ldc));
  else
    scipy_cblas_dgemm(CblasRowMajor, TA, TB, int(m), int(n), int(k), alpha, a, int(lda), b, int(ldb), beta, c,
                      int(ldc));
}

// Geometry of one conv: per image C x H x W in, O x oH x oW out, weight O x C/g x kH x kW.
struct Geo {
  int64_t C, H, W, O, oH, oW, kH, kW, sH, sW, pH, pW, dH, dW, g;
  int64_t Cg() const { return C / g; }
  int64_t Og() const { return O / g; }
  int64_t K() const { return Cg() * kH * kW; }  // rows of a group's columns
  int64_t L() const { return oH * oW; }         // columns: output positions
  bool direct() const {                         // columns == input: no copy needed
    return kH == 1 && kW == 1 && sH == 1 && sW == 1 && pH == 0 && pW == 0;
  }
};

Geo geometry(const Tensor& in, const Tensor& out, const Tensor& w, const ConvArgs& a) {
  return {in.sizes()[1],  in.sizes()[2], in.sizes()[3], out.sizes()[1], out.sizes()[2],
          out.sizes()[3], w.sizes()[2],  w.sizes()[3],  a.stride[0],    a.stride[1],
          a.padding[0],   a.padding[1],  a.dilation[0], a.dilation[1],  a.groups};
}

// Channels [c0, c1) of one image into columns: row (c, kh, kw), column (oh, ow); zeros where the window is in
// the padding.
template <typename T>
void im2col(const T* in, T* col, const Geo& g, int64_t c0, int64_t c1) {
  for (int64_t c = c0; c < c1; ++c)
    for (int64_t kh = 0; kh < g.kH; ++kh)
      for (int64_t kw = 0; kw < g.kW; ++kw) {
        T* row = col + ((c * g.kH + kh) * g.kW + kw) * g.L();
        const T* plane = in + c * g.H * g.W;
        for (int64_t oh = 0; oh < g.oH; ++oh) {
          int64_t ih = oh * g.sH - g.pH + kh * g.dH;
          T* r = row + oh * g.oW;
          if (ih < 0 || ih >= g.H) {
            std::fill(r, r + g.oW, T(0));
            continue;
          }
          const T* src = plane + ih * g.W;
          int64_t off = kw * g.dW - g.pW;
          if (g.sW == 1) {
            // valid ow: 0 <= ow + off < W
            int64_t lo = std::clamp<int64_t>(-off, 0, g.oW), hi = std::clamp<int64_t>(g.W - off, lo, g.oW);
            std::fill(r, r + lo, T(0));
            std::memcpy(r + lo, src + lo + off, sizeof(T) * (hi - lo));
            std::fill(r + hi, r + g.oW, T(0));
          } else {
            for (int64_t ow = 0; ow < g.oW; ++ow) {
              int64_t iw = ow * g.sW + off;
              r[ow] = (iw >= 0 && iw < g.W) ? src[iw] : T(0);
            }
          }
        }
      }
}

// The adjoint: columns summed back into channels [c0, c1) of one image (which the caller zeroed).
template <typename T>
void col2im(const T* col, T* in, const Geo& g, int64_t c0, int64_t c1) {
  for (int64_t c = c0; c < c1; ++c)
    for (int64_t kh = 0; kh < g.kH; ++kh)
      for (int64_t kw = 0; kw < g.kW; ++kw) {
        const T* row = col + ((c * g.kH + kh) * g.kW + kw) * g.L();
        T* plane = in + c * g.H * g.W;
        for (int64_t oh = 0; oh < g.oH; ++oh) {
          int64_t ih = oh * g.sH - g.pH + kh * g.dH;
          if (ih < 0 || ih >= g.H) continue;
          const T* r = row + oh * g.oW;
          T* dst = plane + ih * g.W;
          int64_t off = kw * g.dW - g.pW;
          for (int64_t ow = 0; ow < g.oW; ++ow) {
            int64_t iw = ow * g.sW + off;
            if (iw >= 0 && iw < g.W) dst[iw] += r[ow];
          }
        }
      }
}

// Channel-parallel im2col/col2im when the caller is not already inside a parallel region.
template <typename F>
void over_channels(int64_t C, int64_t per_channel, F&& f) {
  if (in_parallel_region() || C * per_channel < kGrainSize)
    f(0, C);
  else
    parallel_for(0, C, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, per_channel)), f);
}

// Images go to separate threads, each with its own columns and a single-threaded GEMM (as PyTorch's CPU
// conv): one fork/join per batch instead of two per image (im2col, then OpenBLAS's own threads), which on a
// busy machine cost a scheduler slice each (measured 17x slower under load). Fewer images than threads run
// in turn with OpenBLAS threaded.
// OpenBLAS has no per-thread thread count in this build, so its global one is lowered for the batch: ops run
// with the GIL held, so no other op's GEMM runs meanwhile.
struct SingleThreadedBlas {
  int prev = scipy_openblas_get_num_threads();
  SingleThreadedBlas() {
    if (prev != 1) scipy_openblas_set_num_threads(1);
  }
  ~SingleThreadedBlas() {
    if (prev != 1) scipy_openblas_set_num_threads(prev);
  }
};

template <typename F>
void over_images(int64_t N, F&& f) {
  if (N > 1 && N >= get_num_threads() && !in_parallel_region()) {
    SingleThreadedBlas one;
    parallel_for(0, N, 1, f);
  } else {
    f(0, N);
  }
}

template <typename T>
void forward(const Tensor& out, const Tensor& input, const Tensor& weight, const ConvArgs& a) {
  Geo g = geometry(input, out, weight, a);
  int64_t N = input.sizes()[0];
  const T* in = input.data<T>();
  const T* w = weight.data<T>();
  T* o = out.data<T>();
  over_images(N, [&](int64_t n0, int64_t n1) {
    std::vector<T> col(g.direct() ? 0 : static_cast<size_t>(g.C * g.kH * g.kW * g.L()));
    for (int64_t n = n0; n < n1; ++n) {
      const T* x = in + n * g.C * g.H * g.W;
      const T* cols = x;
      if (!g.direct()) {
        over_channels(g.C, g.kH * g.kW * g.L(),
                      [&](int64_t c0, int64_t c1) { im2col(x, col.data(), g, c0, c1); });
        cols = col.data();
      }
      for (int64_t gi = 0; gi < g.g; ++gi)
        gemm<T>(false, false, g.Og(), g.L(), g.K(), T(1), w + gi * g.Og() * g.K(), g.K(),
                cols + gi * g.K() * g.L(), g.L(), T(0), o + (n * g.O + gi * g.Og()) * g.L(), g.L());
    }
  });
}

template <typename T>
void backward_input(const Tensor& grad_in, const Tensor& grad_out, const Tensor& weight, const ConvArgs& a) {
  Geo g = geometry(grad_in, grad_out, weight, a);
  int64_t N = grad_in.sizes()[0];
  const T* go = grad_out.data<T>();
  const T* w = weight.data<T>();
  T* gi_ = grad_in.data<T>();
  over_images(N, [&](int64_t n0, int64_t n1) {
    std::vector<T> col(g.direct() ? 0 : static_cast<size_t>(g.C * g.kH * g.kW * g.L()));
    for (int64_t n = n0; n < n1; ++n) {
      T* dx = gi_ + n * g.C * g.H * g.W;
      // columns = W_g^T @ grad_out_g; for a direct conv the columns are the input gradient itself
      T* cols = g.direct() ? dx : col.data();
      for (int64_t gi = 0; gi < g.g; ++gi)
        gemm<T>(true, false, g.K(), g.L(), g.Og(), T(1), w + gi * g.Og() * g.K(), g.K(),
                go + (n * g.O + gi * g.Og()) * g.L(), g.L(), T(0), cols + gi * g.K() * g.L(), g.L());
      if (!g.direct()) {
        std::fill(dx, dx + g.C * g.H * g.W, T(0));
        over_channels(g.C, g.kH * g.kW * g.L(),
                      [&](int64_t c0, int64_t c1) { col2im(col.data(), dx, g, c0, c1); });
      }
    }
  });
}

template <typename T>
void backward_weight(const Tensor& grad_w, const Tensor& grad_out, const Tensor& input, const ConvArgs& a) {
  Geo g = geometry(input, grad_out, grad_w, a);
  int64_t N = input.sizes()[0];
  const T* in = input.data<T>();
  const T* go = grad_out.data<T>();
  T* gw = grad_w.data<T>();
  int64_t wn = g.O * g.K();
  std::fill(gw, gw + wn, T(0));
  std::mutex mu;
  // grad_w_g += grad_out_g @ columns_g^T, over the images; threads sum into their own buffer, then into gw
  over_images(N, [&](int64_t n0, int64_t n1) {
    bool whole = n0 == 0 && n1 == N;
    std::vector<T> local(whole ? 0 : static_cast<size_t>(wn), T(0));
    T* acc = whole ? gw : local.data();
    std::vector<T> col(g.direct() ? 0 : static_cast<size_t>(g.C * g.kH * g.kW * g.L()));
    for (int64_t n = n0; n < n1; ++n) {
      const T* x = in + n * g.C * g.H * g.W;
      const T* cols = x;
      if (!g.direct()) {
        over_channels(g.C, g.kH * g.kW * g.L(),
                      [&](int64_t c0, int64_t c1) { im2col(x, col.data(), g, c0, c1); });
        cols = col.data();
      }
      for (int64_t gi = 0; gi < g.g; ++gi)
        gemm<T>(false, true, g.Og(), g.K(), g.L(), T(1), go + (n * g.O + gi * g.Og()) * g.L(), g.L(),
                cols + gi * g.K() * g.L(), g.L(), T(1), acc + gi * g.Og() * g.K(), g.K());
    }
    if (!whole) {
      std::lock_guard<std::mutex> lock(mu);
      for (int64_t i = 0; i < wn; ++i) gw[i] += local[i];
    }
  });
}

// The one dtype switch of the three entry points: float and double run their own instantiation; half and
// bfloat16 run the float kernel on float copies, rounded once into the output (opmath). `kernel` is called as
// kernel(T{}, out, a, b, args) so one generic lambda names the template to instantiate.
template <typename Kernel>
void by_dtype(const Tensor& out, const Tensor& a, const Tensor& b, const ConvArgs& args, Kernel kernel) {
  switch (out.dtype()) {
    case ScalarType::Float:
      return kernel(float{}, out, a, b, args);
    case ScalarType::Double:
      return kernel(double{}, out, a, b, args);
    default: {
      Tensor of = make_empty(out.sizes(), ScalarType::Float, out.device());
      kernel(float{}, of, contiguous(to(a, ScalarType::Float, a.device())),
             contiguous(to(b, ScalarType::Float, b.device())), args);
      copy_(out, of);
    }
  }
}

void conv_forward_cpu(const Tensor& out, const Tensor& input, const Tensor& weight, const ConvArgs& a) {
  by_dtype(out, input, weight, a, [](auto t, const auto&... xs) { forward<decltype(t)>(xs...); });
}
void conv_backward_input_cpu(const Tensor& gi, const Tensor& go, const Tensor& weight, const ConvArgs& a) {
  by_dtype(gi, go, weight, a, [](auto t, const auto&... xs) { backward_input<decltype(t)>(xs...); });
}
void conv_backward_weight_cpu(const Tensor& gw, const Tensor& go, const Tensor& input, const ConvArgs& a) {
  by_dtype(gw, go, input, a, [](auto t, const auto&... xs) { backward_weight<decltype(t)>(xs...); });
}

}  // namespace

MT_REGISTER_KERNEL(conv_forward_stub, CPU, &conv_forward_cpu);
MT_REGISTER_KERNEL(conv_backward_input_stub, CPU, &conv_backward_input_cpu);
MT_REGISTER_KERNEL(conv_backward_weight_stub, CPU, &conv_backward_weight_cpu);

}  // namespace mt
