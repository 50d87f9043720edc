// Upsampling (F.interpolate's nearest, nearest-exact, linear/bilinear/trilinear and bicubic modes): the front
// end, the 5-D primitive and its gradient, and the per-dimension tap math the CPU and CUDA kernels share.
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
Tensor upsample(const Tensor& input, const std::string& mode, IntArrayRef output_size, bool align_corners,
                const std::vector<double>& scales);

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

// ---- Kernel interface: input (forward) / grad_out (backward) contiguous, outputs contiguous and
// allocated by the front end. The backward kernel writes every element of grad_input (float or double; the
// front end computes half/bfloat16 gradients in float).
using UpsampleFn = void (*)(const Tensor& out, const Tensor& input, const UpsampleArgs& args);
using UpsampleBackwardFn = void (*)(const Tensor& grad_input, const Tensor& grad_out,
                                    const UpsampleArgs& args);
MT_STUBS_UPSAMPLE_H(MT_DECLARE_STUB_ROW)  // ops/op_table.h

}  // namespace mt
