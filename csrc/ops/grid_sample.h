// grid_sample's kernel path (F.grid_sample, torch.grid_sampler on float/double CPU tensors): the primitive,
// its fused gradient, and the per-coordinate math PyTorch's GridSampler.h defines. The checks and every other
// case (CUDA, half, forward AD, batched tensors) are python/minitorch/nn/functional/_sampling.py's composite
// of ops, which also supplies the gradients under create_graph (double backward) through the hook below.
#pragma once
#include <cmath>
#include <functional>
#include <tuple>

#include "core/Tensor.h"
#include "ops/Dispatch.h"

namespace mt {

// interpolation 0 bilinear, 1 nearest, 2 bicubic (4-D only); padding 0 zeros, 1 border, 2 reflection
struct GridSampleArgs {
  int mode = 0;
  int padding = 0;
  bool align_corners = false;
};

// input (N, C, [D,] H, W) and grid (N, [Do,] Ho, Wo, k) of the same floating dtype, device and batch, checked
// by the caller. Recorded (grad_fn GridSampler2DBackward0 / GridSampler3DBackward0).
Tensor grid_sampler_impl(const Tensor& input, const Tensor& grid, int64_t interpolation_mode,
                         int64_t padding_mode, bool align_corners);
// The gradients of input and grid (undefined where not asked for); not differentiable itself.
std::tuple<Tensor, Tensor> grid_sampler_backward(const Tensor& grad_out, const Tensor& input,
                                                 const Tensor& grid, const GridSampleArgs& args,
                                                 bool need_input, bool need_grid);

// Under create_graph the gradients must themselves be differentiable: they come from the composite, which the
// Python package installs here (csrc/python/bind_conv.cpp); without it double backward raises.
using GridSamplerGraphGradsFn =
    std::function<std::tuple<Tensor, Tensor>(const Tensor& grad_out, const Tensor& input, const Tensor& grid,
                                             const GridSampleArgs& args, bool need_input, bool need_grid)>;
void set_grid_sampler_graph_grads(GridSamplerGraphGradsFn fn);
std::tuple<Tensor, Tensor> grid_sampler_graph_grads(const Tensor& grad_out, const Tensor& input,
                                                    const Tensor& grid, const GridSampleArgs& args,
                                                    bool need_input, bool need_grid);

// floor, trunc and round-half-to-even without the libm calls they are at the baseline x86-64 (no SSE4.1
// roundsd): through int64 where the value fits, std:: for NaN and huge values
template <typename T>
inline T grid_floor(T x) {
  if (x > T(-1e15) && x < T(1e15)) {
    const T t = static_cast<T>(static_cast<int64_t>(x));
    return t > x ? t - 1 : t;
  }
  return std::floor(x);
}
template <typename T>
inline T grid_trunc(T x) {
  return x > T(-1e15) && x < T(1e15) ? static_cast<T>(static_cast<int64_t>(x)) : std::trunc(x);
}
template <typename T>
inline T grid_round_even(T x) {
  if (x > T(-1e15) && x < T(1e15)) {
    const T f = grid_floor(x), d = x - f;  // exact
    if (d != T(0.5)) return d > T(0.5) ? f + 1 : f;
    return (static_cast<int64_t>(f) & 1) ? f + 1 : f;
  }
  return std::nearbyint(x);
}

// ---- Per-coordinate math, in the composite's operation order so the two paths round alike. Each maps a grid
// value to a pixel coordinate and gives d(coordinate)/d(grid value) in *mult.
template <typename T>
inline T grid_unnormalize(T c, int64_t size, bool align_corners, T* mult) {
  if (align_corners) {
    *mult = T(size - 1) / 2;
    return (c + 1) / 2 * T(size - 1);
  }
  *mult = T(size) / 2;
  return ((c + 1) * T(size) - 1) / 2;
}
// not a clamp: a point on the border passes no gradient (PyTorch's clip_coordinates_set_grad) and NaN lands
// on 0
template <typename T>
inline T grid_clip(T c, int64_t size, T* mult) {
  if (c > 0 && c < T(size - 1)) return c;
  *mult = T(0);
  return c > 0 ? T(size - 1) : T(0);
}
// folds c into [twice_low / 2, twice_high / 2] by mirroring at both ends (reflect_coordinates_set_grad)
template <typename T>
inline T grid_reflect(T c, int64_t twice_low, int64_t twice_high, T* mult) {
  if (twice_low == twice_high) {
    *mult = T(0);
    return T(0);
  }
  const T low = T(twice_low) / 2, span = T(twice_high - twice_low) / 2;
  c = c - low;
  if (c < 0) {
    c = -c;
    *mult = -*mult;
  }
  T extra = std::fmod(c, span);
  T flips = grid_floor(c / span);
  if (std::fmod(flips, T(2)) == 0) return extra + low;
  *mult = -*mult;
  return span - extra + low;
}
template <typename T>
inline T grid_pad(T c, int64_t size, int padding, bool align_corners, T* mult) {
  if (padding == 1) return grid_clip(c, size, mult);
  if (padding == 2) {
    c = align_corners ? grid_reflect(c, 0, 2 * (size - 1), mult) : grid_reflect(c, -1, 2 * size - 1, mult);
    return grid_clip(c, size, mult);
  }
  return c;
}
// the source coordinate of bilinear and nearest sampling, and d(it)/d(grid value)
template <typename T>
inline T grid_source_index(T c, int64_t size, const GridSampleArgs& a, T* mult) {
  T m;
  T x = grid_unnormalize(c, size, a.align_corners, &m);
  T pm = T(1);
  x = grid_pad(x, size, a.padding, a.align_corners, &pm);
  *mult = m * pm;
  return x;
}
// PyTorch's cubic convolution (A = -0.75) and its derivative
template <typename T>
__attribute__((always_inline)) inline T grid_cubic_near(T x) {  // |x| <= 1
  return (T(-0.75 + 2) * x - T(-0.75 + 3)) * x * x + 1;
}
template <typename T>
__attribute__((always_inline)) inline T grid_cubic_far(T x) {  // 1 < |x| < 2
  const T a = T(-0.75);
  return ((a * x - T(5 * -0.75)) * x + T(8 * -0.75)) * x - T(4 * -0.75);
}
template <typename T>
__attribute__((always_inline)) inline T grid_cubic_near_d(T x) {
  return (T(3 * (-0.75 + 2)) * x - T(2 * (-0.75 + 3))) * x;
}
template <typename T>
__attribute__((always_inline)) inline T grid_cubic_far_d(T x) {
  return (T(3 * -0.75) * x - T(10 * -0.75)) * x + T(8 * -0.75);
}

// ---- Kernel interface: input and grid contiguous, out (N, C, *grid spatial) contiguous. The backward kernel
// writes every element of the gradients it is given (an undefined one is not asked for).
using GridSamplerFn = void (*)(const Tensor& out, const Tensor& input, const Tensor& grid,
                               const GridSampleArgs& args);
using GridSamplerBackwardFn = void (*)(const Tensor& grad_input, const Tensor& grad_grid,
                                       const Tensor& grad_out, const Tensor& input, const Tensor& grid,
                                       const GridSampleArgs& args);
MT_STUBS_GRID_SAMPLE_H(MT_DECLARE_STUB_ROW)  // ops/op_table.h

}  // namespace mt
