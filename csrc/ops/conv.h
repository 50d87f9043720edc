// Convolutions (conv1d/2d, conv_transpose1d/2d) with PyTorch's argument rules; kernels: im2col + BLAS on the
// CPU, cuDNN on CUDA.
#pragma once
#include <optional>
#include <string>

#include "core/Context.h"
#include "core/Tensor.h"
#include "ops/Dispatch.h"

namespace mt {

// stride/padding/dilation/output_padding take one value (used for every spatial dim) or one per spatial dim.
Tensor conv2d(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias,
              IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation, int64_t groups);
Tensor conv1d(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias,
              IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation, int64_t groups);
// padding given as "same" or "valid" (PyTorch's rules: "same" needs stride 1; odd total padding puts the
// extra row/column at the bottom/right).
Tensor conv2d(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias,
              IntArrayRef stride, const std::string& padding, IntArrayRef dilation, int64_t groups);
Tensor conv1d(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias,
              IntArrayRef stride, const std::string& padding, IntArrayRef dilation, int64_t groups);
Tensor conv_transpose2d(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias,
                        IntArrayRef stride, IntArrayRef padding, IntArrayRef output_padding, int64_t groups,
                        IntArrayRef dilation);
Tensor conv_transpose1d(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias,
                        IntArrayRef stride, IntArrayRef padding, IntArrayRef output_padding, int64_t groups,
                        IntArrayRef dilation);

// ---- The primitive every conv above ends in: batched 4-D NCHW, symmetric padding, bias added separately.
struct ConvArgs {
  int64_t stride[2] = {1, 1}, padding[2] = {0, 0}, dilation[2] = {1, 1};
  int64_t groups = 1;
};
// out = input (*) weight; differentiable (its twin records ConvolutionBackward0).
Tensor convolution(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias,
                   const ConvArgs& args);
// out = conv_transpose(input, weight) of size out_sizes (the output_padding is in out_sizes); differentiable.
Tensor convolution_transpose(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias,
                             const ConvArgs& args, IntArrayRef out_sizes);
// The two backward halves. backward_input is the transposed conv's kernel (convolution_transpose records it);
// backward_weight records itself, so conv gradients differentiate again.
Tensor convolution_backward_input(const Tensor& grad_out, const Tensor& weight, IntArrayRef input_sizes,
                                  const ConvArgs& args);
Tensor convolution_backward_weight(const Tensor& grad_out, const Tensor& input, IntArrayRef weight_sizes,
                                   const ConvArgs& args);

// ---- Kernel interface. Every tensor is 4-D, contiguous NCHW, one floating dtype, one device; outputs are
// allocated by the front end and fully written by the kernel (never accumulated into). Sizes that are not
// implied by the arguments (output padding of a transposed conv) come from the tensors' own sizes:
// input positions that no output window reaches get a zero gradient.
using ConvForwardFn = void (*)(const Tensor& out, const Tensor& input, const Tensor& weight,
                               const ConvArgs& args);
using ConvBackwardInputFn = void (*)(const Tensor& grad_input, const Tensor& grad_out, const Tensor& weight,
                                     const ConvArgs& args);
using ConvBackwardWeightFn = void (*)(const Tensor& grad_weight, const Tensor& grad_out, const Tensor& input,
                                      const ConvArgs& args);
// conv_*_stub, and cudnn_conv_*_stub for cuDNN's kernels (registered for CUDA when built with cuDNN): used
// instead of conv_*_stub while backends.cudnn.enabled is true, as PyTorch picks its cuDNN backend.
MT_STUBS_CONV_H(MT_DECLARE_STUB_ROW)  // ops/op_table.h

// oneDNN behind the CPU float convs (torch.backends.mkldnn): whether this build has it, and the switch (on by
// default; off, the CPU convs use im2col + OpenBLAS). Defined by kernels/cpu/conv.cpp.
bool onednn_conv_available();
bool onednn_conv_enabled();
void set_onednn_conv_enabled(bool on);

// Whether PyTorch's CPU convolution would run oneDNN here (its ConvParams::use_mkldnn): always for bfloat16,
// for float32 unless its heuristics prefer the native kernel (1x1 filters on one thread, a tiny single
// image), never with torch.backends.mkldnn off. The two backends refuse a weight of another dtype in
// different words, so the checks of conv1d/2d/3d and their transposes ask this. Sizes are the batched input's
// and the weight's.
bool picks_onednn(ScalarType dtype, IntArrayRef input_sizes, IntArrayRef weight_sizes, IntArrayRef stride,
                  IntArrayRef dilation, int64_t groups);

// The cuDNN settings (CudnnFlags, cudnn_flags, cudnn_version) are in core/Context.h.

}  // namespace mt
