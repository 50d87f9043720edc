// Pooling (max, avg, adaptive avg/max; 1d and 2d) with PyTorch's output-size rules, and the window math the
// CPU and CUDA kernels share.
#pragma once
#include <optional>
#include <tuple>
#include <vector>

#include "core/Macros.h"
#include "core/Tensor.h"
#include "ops/Dispatch.h"

namespace mt {

// stride empty means stride = kernel_size (PyTorch's stride=None).
Tensor max_pool2d(const Tensor& input, IntArrayRef kernel_size, IntArrayRef stride, IntArrayRef padding,
                  IntArrayRef dilation, bool ceil_mode);
std::tuple<Tensor, Tensor> max_pool2d_with_indices(const Tensor& input, IntArrayRef kernel_size,
                                                   IntArrayRef stride, IntArrayRef padding,
                                                   IntArrayRef dilation, bool ceil_mode);
Tensor max_pool1d(const Tensor& input, IntArrayRef kernel_size, IntArrayRef stride, IntArrayRef padding,
                  IntArrayRef dilation, bool ceil_mode);
std::tuple<Tensor, Tensor> max_pool1d_with_indices(const Tensor& input, IntArrayRef kernel_size,
                                                   IntArrayRef stride, IntArrayRef padding,
                                                   IntArrayRef dilation, bool ceil_mode);
Tensor avg_pool2d(const Tensor& input, IntArrayRef kernel_size, IntArrayRef stride, IntArrayRef padding,
                  bool ceil_mode, bool count_include_pad, std::optional<int64_t> divisor_override);
Tensor avg_pool1d(const Tensor& input, IntArrayRef kernel_size, IntArrayRef stride, IntArrayRef padding,
                  bool ceil_mode, bool count_include_pad);
// output_size entries: nullopt keeps that input size (PyTorch's None).
Tensor adaptive_avg_pool2d(const Tensor& input, const std::vector<std::optional<int64_t>>& output_size);
Tensor adaptive_avg_pool1d(const Tensor& input, const std::vector<std::optional<int64_t>>& output_size);
std::tuple<Tensor, Tensor> adaptive_max_pool2d(const Tensor& input,
                                               const std::vector<std::optional<int64_t>>& output_size);
std::tuple<Tensor, Tensor> adaptive_max_pool1d(const Tensor& input,
                                               const std::vector<std::optional<int64_t>>& output_size);

// ---- The primitives the ops above end in: 4-D NCHW input (any strides), differentiable.
struct PoolArgs {
  int64_t kernel[2] = {1, 1}, stride[2] = {1, 1}, padding[2] = {0, 0}, dilation[2] = {1, 1};
  bool adaptive = false;          // windows from the adaptive rule (kernel/stride/padding unused)
  bool count_include_pad = true;  // avg: divide by the window including padding
  int64_t divisor = 0;            // avg: divisor_override when > 0
  // adaptive: PyTorch's backward kernel ("adaptive_avg_pool2d_backward", ...), which refuses an empty
  // grad_output dim past the batch's, and whether the caller's input had a batch dim (its message shows the
  // gradient in the caller's rank)
  const char* adaptive_backward = nullptr;
  bool batched = true;
};
std::tuple<Tensor, Tensor> max_pool2d_impl(const Tensor& input, const PoolArgs& args, int64_t oh, int64_t ow);
Tensor avg_pool2d_impl(const Tensor& input, const PoolArgs& args, int64_t oh, int64_t ow);
// The gradient of avg_pool2d_impl (differentiable: its adjoint is avg_pool2d_impl).
Tensor avg_pool2d_backward(const Tensor& grad_out, const PoolArgs& args, IntArrayRef input_sizes);
// The gradient of max_pool2d_impl: each output's gradient to the input its saved index names
// (differentiable).
Tensor max_pool2d_backward(const Tensor& grad_out, const Tensor& indices, const PoolArgs& args,
                           IntArrayRef input_sizes);

// ---- Window math, shared by the CPU and CUDA kernels so the CPU tests cover what the GPU computes.
// [start, end) of output `o` along one dim of input size `in` (out outputs).
struct PoolWindow {
  int64_t start, end;  // clipped to the input
  int64_t size;        // avg with count_include_pad: the window including padding (clipped at in + pad)
};
MT_HD_INLINE int64_t adaptive_start(int64_t o, int64_t out, int64_t in) {
  return (o * in) / out;
}
MT_HD_INLINE int64_t adaptive_end(int64_t o, int64_t out, int64_t in) {
  return ((o + 1) * in + out - 1) / out;
}
// avg (and adaptive) windows; max windows use dilation and are computed in the max kernels.
MT_HD_INLINE PoolWindow avg_window(int64_t o, int64_t out, int64_t in, int64_t k, int64_t s, int64_t p,
                                   bool adaptive) {
  if (adaptive) {
    int64_t a = adaptive_start(o, out, in), b = adaptive_end(o, out, in);
    return {a, b, b - a};
  }
  int64_t a = o * s - p, b = a + k;
  if (b > in + p) b = in + p;
  int64_t size = b - a;
  if (a < 0) a = 0;
  if (b > in) b = in;
  return {a, b, size};
}
// The outputs whose window may hold input position i: [first, last) (adaptive candidates still need a check
// that i lies in the window).
MT_HD_INLINE void avg_outputs_of(int64_t i, int64_t out, int64_t in, int64_t k, int64_t s, int64_t p,
                                 bool adaptive, int64_t& first, int64_t& last) {
  if (adaptive) {
    first = (i * out) / in;
    last = ((i + 1) * out + in - 1) / in;
  } else {
    first = (i + p < k) ? 0 : (i + p - k) / s + 1;
    last = (i + p) / s + 1;
  }
  if (last > out) last = out;
}
// The outputs whose max window may hold input position i: a superset (dense effective window), so the
// caller keeps those whose saved index is i.
MT_HD_INLINE void max_outputs_of(int64_t i, int64_t out, int64_t in, int64_t k, int64_t s, int64_t p,
                                 int64_t d, bool adaptive, int64_t& first, int64_t& last) {
  avg_outputs_of(i, out, in, (k - 1) * d + 1, s, p, adaptive, first, last);
}
MT_HD_INLINE int64_t avg_divisor(const PoolWindow& h, const PoolWindow& w, bool count_include_pad,
                                 int64_t divisor) {
  if (divisor > 0) return divisor;
  if (count_include_pad) return h.size * w.size;
  return (h.end - h.start) * (w.end - w.start);
}

// ---- Kernel interface: input contiguous NCHW viewed as planes (N*C) x H x W; outputs contiguous, allocated
// by the front end, sized P x oH x oW. Max indices are int64, flat within the plane (h * W + w), as
// PyTorch's. NaN wins a max window. An undefined indices tensor asks the CPU kernel for the values only.
using MaxPoolFn = void (*)(const Tensor& out, const Tensor& indices, const Tensor& input,
                           const PoolArgs& args);
using AvgPoolFn = void (*)(const Tensor& out, const Tensor& input, const PoolArgs& args);
using AvgPoolBackwardFn = void (*)(const Tensor& grad_input, const Tensor& grad_out, const PoolArgs& args);
// grad_out and indices contiguous P x oH x oW; each input gathers the outputs that chose it (no atomics, so
// the result does not depend on the order of the threads).
using MaxPoolBackwardFn = void (*)(const Tensor& grad_input, const Tensor& grad_out, const Tensor& indices,
                                   const PoolArgs& args);
MT_STUBS_POOL_H(MT_DECLARE_STUB_ROW)  // ops/op_table.h

}  // namespace mt
