// Upsampling (F.interpolate's nearest, nearest-exact, linear/bilinear/trilinear, bicubic and lanczos modes,
// antialias=True): the front end, the 5-D primitive and its gradient, the separable 2-D primitive (antialias,
// and uint8 bilinear/bicubic) and its gradient, and the per-dimension tap math the CPU and CUDA kernels
// share.
#pragma once
#include <cmath>
#include <string>
#include <type_traits>
#include <vector>

#include "core/Macros.h"
#include "core/Tensor.h"
#include "ops/Dispatch.h"

namespace mt {

enum class UpsampleMode : int { nearest, nearest_exact, linear, cubic };

// input: (N, C, *spatial) with 1 to 3 spatial dims (cubic: 2). mode: "nearest", "nearest-exact", "linear",
// "bilinear", "trilinear", "bicubic" (the linear names must match the spatial rank). output_size: one entry
// per spatial dim, or empty to take floor(input size * scale) (then scales must be given). scales: empty or
// one per spatial dim; when given they are used for the source positions (recompute_scale_factor=False).
// antialias: PyTorch's _upsample_{bilinear,bicubic,lanczos}2d_aa (4-D input; "lanczos" only so).
Tensor upsample(const Tensor& input, const std::string& mode, IntArrayRef output_size, bool align_corners,
                const std::vector<double>& scales, bool antialias = false);

// ---- The primitive: (N, C, *spatial) input with nd spatial dims, any strides. The kernels see the spatial
// dims as (D, H, W): the unused leading ones have size 1 in and out.
struct UpsampleArgs {
  UpsampleMode mode = UpsampleMode::nearest;
  bool align_corners = false;
  int nd = 2;                 // the caller's spatial rank (names the backward node)
  int64_t in[3] = {1, 1, 1};  // D, H, W
  int64_t out[3] = {1, 1, 1};
  double scale[3] = {0, 0, 0};  // user scale factor per dim, <= 0 when none (PyTorch's nullopt)
};
Tensor upsample_impl(const Tensor& input, const UpsampleArgs& args);
// Its gradient (linear in grad_out; differentiable, its adjoint is upsample_impl).
Tensor upsample_backward(const Tensor& grad_out, const UpsampleArgs& args, IntArrayRef input_sizes);

// ---- The separable primitive (PyTorch's UpSampleKernel.cpp "aa" path): (N, C, H, W) input, a horizontal
// pass then a vertical one, each skipped where that dim keeps its size, with a weight row per output index.
// antialias widens the filter by the scale when downsampling; without it (uint8 bilinear/bicubic only) the
// rows are PyTorch's uint8 ones. uint8 runs in fixed point (int16 weights, a computed precision), as
// PyTorch's AVX2 kernel (UpSampleKernelAVXAntialias.h), so its values match bit for bit.
enum class UpsampleAaFilter : int { linear, cubic, lanczos };
struct UpsampleAaArgs {
  UpsampleAaFilter filter = UpsampleAaFilter::linear;
  bool antialias = true;
  bool align_corners = false;
  int64_t in[2] = {1, 1};  // H, W
  int64_t out[2] = {1, 1};
  double scale[2] = {0, 0};  // user scale factor per dim, <= 0 when none
  // The CPU uint8 kernel reads a channels-last input and writes a channels-last output as they lie (NHWC),
  // as PyTorch's does for 3 and 4 channels, instead of two layout copies around the NCHW passes.
  bool channels_last = false;
};
Tensor upsample_aa_impl(const Tensor& input, const UpsampleAaArgs& args);
// Its gradient: the adjoint of the two passes (linear in grad_out; its adjoint is upsample_aa_impl).
Tensor upsample_aa_backward(const Tensor& grad_out, const UpsampleAaArgs& args, IntArrayRef input_sizes);

// ---- Tap math, shared by the CPU and CUDA kernels so the CPU tests cover what the GPU computes. Output
// index o along one dim reads up to 4 input indices with weights; the formulas and their float/double
// precision are PyTorch's (UpSample.h), so values match it bit for bit where the summation order allows.
// The type the weights and sums use: opmath for floating types, float for uint8 (nearest only, weights
// unused).
template <typename T>
using upsample_acc_t = std::conditional_t<std::is_integral_v<T>, float, opmath_t<T>>;

template <typename acc_t>
struct UpsampleTaps {
  int n;
  int64_t idx[4];
  acc_t w[4];
};

// Nearest modes use a float scale whatever the dtype (PyTorch's compute_scales_value<float>).
MT_HD_INLINE float upsample_nearest_scale(int64_t in, int64_t out, double scale) {
  return scale > 0 ? static_cast<float>(1.0 / scale) : static_cast<float>(in) / static_cast<float>(out);
}
template <typename acc_t>
MT_HD_INLINE acc_t upsample_area_scale(int64_t in, int64_t out, bool align_corners, double scale) {
  if (align_corners) return out > 1 ? static_cast<acc_t>(in - 1) / static_cast<acc_t>(out - 1) : acc_t(0);
  return scale > 0 ? static_cast<acc_t>(1.0 / scale) : static_cast<acc_t>(in) / static_cast<acc_t>(out);
}
template <typename acc_t>
MT_HD_INLINE acc_t upsample_source_index(acc_t scale, int64_t o, bool align_corners, bool cubic) {
  if (align_corners) return scale * static_cast<acc_t>(o);
  acc_t src = scale * (static_cast<acc_t>(o) + acc_t(0.5)) - acc_t(0.5);
  return (!cubic && src < acc_t(0)) ? acc_t(0) : src;
}
// Linear and cubic: the source index at or below output o's position (at most in - 1) and the fraction past
// it, clamped to [0, 1].
template <typename acc_t>
MT_HD_INLINE int64_t upsample_lower_source(int64_t in, int64_t out, bool align_corners, double scale,
                                           int64_t o, bool cubic, acc_t* frac) {
  acc_t real = upsample_source_index<acc_t>(upsample_area_scale<acc_t>(in, out, align_corners, scale), o,
                                            align_corners, cubic);
  int64_t i0 = static_cast<int64_t>(floor(real));
  if (i0 > in - 1) i0 = in - 1;
  acc_t f = real - static_cast<acc_t>(i0);
  *frac = f < acc_t(0) ? acc_t(0) : (f > acc_t(1) ? acc_t(1) : f);
  return i0;
}
template <typename acc_t>
MT_HD_INLINE acc_t upsample_cubic1(acc_t x, acc_t A) {
  return ((A + 2) * x - (A + 3)) * x * x + 1;
}
template <typename acc_t>
MT_HD_INLINE acc_t upsample_cubic2(acc_t x, acc_t A) {
  return ((A * x - 5 * A) * x + 8 * A) * x - 4 * A;
}
MT_HD_INLINE int64_t upsample_clamp(int64_t i, int64_t n) {
  return i < 0 ? 0 : (i > n - 1 ? n - 1 : i);
}

template <typename acc_t>
MT_HD_INLINE UpsampleTaps<acc_t> upsample_taps(UpsampleMode mode, bool align_corners, int64_t in, int64_t out,
                                               double scale, int64_t o) {
  UpsampleTaps<acc_t> t;
  t.n = 1;
  t.idx[0] = o;
  t.w[0] = acc_t(1);
  if (in == 1 && out == 1) {
    t.idx[0] = 0;
    return t;
  }
  switch (mode) {
    case UpsampleMode::nearest: {
      // the same-size and 2x shortcuts are PyTorch's (kept for backward compatibility there)
      if (out == in) return t;
      if (out == 2 * in) {
        t.idx[0] = o >> 1;
        return t;
      }
      float s = upsample_nearest_scale(in, out, scale);
      int64_t i = static_cast<int64_t>(floorf(static_cast<float>(o) * s));
      t.idx[0] = i < in - 1 ? i : in - 1;
      return t;
    }
    case UpsampleMode::nearest_exact: {
      float s = upsample_nearest_scale(in, out, scale);
      int64_t i = static_cast<int64_t>(floorf(static_cast<float>((static_cast<double>(o) + 0.5) * s)));
      t.idx[0] = i < in - 1 ? i : in - 1;
      return t;
    }
    case UpsampleMode::linear: {
      if (out == in) return t;
      acc_t l1;
      int64_t i0 = upsample_lower_source<acc_t>(in, out, align_corners, scale, o, false, &l1);
      t.n = 2;
      t.idx[0] = i0;
      t.idx[1] = i0 + (i0 < in - 1 ? 1 : 0);
      t.w[0] = acc_t(1) - l1;
      t.w[1] = l1;
      return t;
    }
    case UpsampleMode::cubic: {
      acc_t x;
      int64_t i0 = upsample_lower_source<acc_t>(in, out, align_corners, scale, o, true, &x);
      const acc_t A = acc_t(-0.75);
      t.n = 4;
      t.w[0] = upsample_cubic2<acc_t>(x + acc_t(1), A);
      t.w[1] = upsample_cubic1<acc_t>(x, A);
      t.w[2] = upsample_cubic1<acc_t>(acc_t(1) - x, A);
      t.w[3] = upsample_cubic2<acc_t>(acc_t(2) - x, A);
      for (int k = 0; k < 4; ++k) t.idx[k] = upsample_clamp(i0 - 1 + k, in);
      return t;
    }
  }
  return t;
}

// ---- Separable rows (ops/upsample.h's UpsampleAaArgs): PyTorch's _compute_indices_min_size_weights_aa, its
// float/double expressions kept (the center in S, the offsets in double), shared by the CPU tables and the
// CUDA kernels. S is the weight type: the input's for float/double, double for uint8's fixed-point rows.
// Bicubic with antialias is Keys' a = -0.5 (PIL's); lanczos is PIL's three-lobe one.
template <typename S>
MT_HD_INLINE S upsample_aa_filter(UpsampleAaFilter f, S x) {
  if (f == UpsampleAaFilter::linear) {
    x = x < S(0) ? -x : x;
    return x < S(1) ? S(1) - x : S(0);
  }
  if (f == UpsampleAaFilter::cubic) {
    x = x < S(0) ? -x : x;
    const S a = S(-0.5);
    if (x < S(1)) return upsample_cubic1<S>(x, a);
    if (x < S(2)) return upsample_cubic2<S>(x, a);
    return S(0);
  }
  if (!(S(-3) <= x && x < S(3))) return S(0);
  const S pi = static_cast<S>(3.14159265358979323846);
  const S x3 = x / S(3);
  S a = x == S(0) ? S(1) : sin(x * pi) / (x * pi);
  S b = x3 == S(0) ? S(1) : sin(x3 * pi) / (x3 * pi);
  return a * b;
}

// One dim's constants: the scale, the filter's support and its stretch, the row width (taps per output).
template <typename S>
struct UpsampleAaDim {
  S scale, support, invscale;
  double delta;  // 0.5 for uint8 without antialias and align_corners (PyTorch's align_corners_delta)
  int64_t width;
};
template <typename S>
MT_HD_INLINE UpsampleAaDim<S> upsample_aa_dim(const UpsampleAaArgs& a, int d) {
  UpsampleAaDim<S> p;
  p.scale = upsample_area_scale<S>(a.in[d], a.out[d], a.align_corners, a.scale[d]);
  const int isz = a.filter == UpsampleAaFilter::linear ? 2 : (a.filter == UpsampleAaFilter::cubic ? 4 : 6);
  p.delta = (a.align_corners && !a.antialias) ? 0.5 : 0.0;
  if (a.antialias) {
    p.support = p.scale >= S(1) ? (isz * 0.5) * p.scale : isz * 0.5;
    p.width = static_cast<int64_t>(ceil(p.support)) * 2 + 1;
  } else {
    p.support = isz * 0.5;
    p.width = isz;
  }
  p.invscale = (p.scale >= S(1) && a.antialias) ? S(1) / p.scale : S(1);
  return p;
}
// Output i's row: input [*xmin, *xmin + *xsize), weights w[0 .. width) normalized (zeros past xsize).
template <typename S>
MT_HD_INLINE void upsample_aa_row(const UpsampleAaDim<S>& p, UpsampleAaFilter f, int64_t in, int64_t i,
                                  int64_t* xmin, int64_t* xsize, S* w) {
  const S center = p.scale * (i + 0.5 - p.delta);
  int64_t lo = static_cast<int64_t>(center - p.support + 0.5 + p.delta);
  lo = lo < 0 ? 0 : lo;
  int64_t hi = static_cast<int64_t>(center + p.support + 0.5 + p.delta);
  int64_t n = (hi < in ? hi : in) - lo;
  n = n < 0 ? 0 : (n > p.width ? p.width : n);  // PyTorch: precision can make it one too many
  S total = 0;
  for (int64_t j = 0; j < n; ++j) {
    w[j] = upsample_aa_filter<S>(f, static_cast<S>((j + lo - center + 0.5 - p.delta) * p.invscale));
    total += w[j];
  }
  if (total != S(0))
    for (int64_t j = 0; j < n; ++j) w[j] /= total;
  for (int64_t j = n; j < p.width; ++j) w[j] = S(0);
  *xmin = lo;
  *xsize = n;
}

// ---- Kernel interface: input (forward) / grad_out (backward) contiguous, outputs contiguous and
// allocated by the front end. The backward kernel writes every element of grad_input (float or double; the
// front end computes half/bfloat16 gradients in float).
using UpsampleFn = void (*)(const Tensor& out, const Tensor& input, const UpsampleArgs& args);
using UpsampleBackwardFn = void (*)(const Tensor& grad_input, const Tensor& grad_out,
                                    const UpsampleArgs& args);
using UpsampleAaFn = void (*)(const Tensor& out, const Tensor& input, const UpsampleAaArgs& args);
using UpsampleAaBackwardFn = void (*)(const Tensor& grad_input, const Tensor& grad_out,
                                      const UpsampleAaArgs& args);
MT_STUBS_UPSAMPLE_H(MT_DECLARE_STUB_ROW)  // ops/op_table.h

}  // namespace mt
