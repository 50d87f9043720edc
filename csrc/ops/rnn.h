// The fused recurrent layers (nn.RNN/LSTM/GRU as one op): cuDNN's RNN on CUDA, oneDNN's LSTM (float32) on the
// CPU. The modules' composite path (python/minitorch/nn/modules/rnn.py) serves every other case.
#pragma once
#include <tuple>
#include <vector>

#include "core/Tensor.h"
#include "ops/Dispatch.h"

namespace mt {

// cuDNN's cell modes, the values PyTorch's _cudnn_rnn takes.
enum class RnnMode : int { rnn_relu = 0, rnn_tanh = 1, lstm = 2, gru = 3 };

struct RnnArgs {
  RnnMode mode = RnnMode::lstm;
  int64_t input_size = 0, hidden_size = 0, num_layers = 1;
  bool bidirectional = false, has_bias = true;
  int64_t num_directions() const { return bidirectional ? 2 : 1; }
  int64_t gates() const;  // 4, 3 or 1 blocks of hidden_size rows per weight
};

// input [T, N, in] ([N, T, in] when batch_first); weights per layer and direction (layer-major):
// weight_ih, weight_hh[, bias_ih, bias_hh] with PyTorch's shapes and gate order; hx [L*D, N, H];
// cx [L*D, N, H] for LSTM, undefined otherwise. Returns (output, hy, cy, reserve): cy undefined except for
// LSTM, reserve the library's training buffer (bytes; empty when nothing was recorded). dropout must be 0
// when train is set and num_layers > 1 (cuDNN's dropout is not implemented here). Differentiable in input,
// hx, cx and every weight.
std::tuple<Tensor, Tensor, Tensor, Tensor> _cudnn_rnn(const Tensor& input, const std::vector<Tensor>& weights,
                                                      const Tensor& hx, const Tensor& cx, int64_t mode,
                                                      int64_t hidden_size, int64_t num_layers,
                                                      bool batch_first, double dropout, bool train,
                                                      bool bidirectional);

// The time-major primitive under _cudnn_rnn: x [T, N, in] contiguous, checked arguments. `training` keeps
// cuDNN's reserve for backward.
std::tuple<Tensor, Tensor, Tensor, Tensor> cudnn_rnn_forward(const Tensor& x,
                                                             const std::vector<Tensor>& weights,
                                                             const Tensor& hx, const Tensor& cx,
                                                             const RnnArgs& args, bool training);
// Its gradients from the saved forward (x, weights, hx, cx, y, reserve) and the output gradients (dhy, dcy
// may be undefined: zeros). Returns dx, dhx, dcx (undefined without cx) and one gradient per weight.
struct RnnGrads {
  Tensor dx, dhx, dcx;
  std::vector<Tensor> dweights;
};
RnnGrads cudnn_rnn_backward(const Tensor& x, const std::vector<Tensor>& weights, const Tensor& hx,
                            const Tensor& cx, const Tensor& y, const Tensor& reserve, const Tensor& dy,
                            const Tensor& dhy, const Tensor& dcy, const RnnArgs& args);

// cudnn_rnn_forward (not training) as one recorded op: the entry point generated from ops.schema's
// `twin cudnn_rnn` records it when an input requires grad (the twin runs the training forward then).
std::tuple<Tensor, Tensor, Tensor, Tensor> cudnn_rnn(const Tensor& x, const std::vector<Tensor>& weights,
                                                     const Tensor& hx, const Tensor& cx, const RnnArgs& args);

// True when this build has a fused RNN kernel for `d` (CUDA with cuDNN; the CPU with oneDNN, LSTM float32).
bool has_cudnn_rnn(Device d);

// ---- Kernel interface: every tensor contiguous, one dtype, one device; outputs allocated by the front end
// (y, hy, cy; dx, dhx, dcx and the weight gradients) and fully written by the kernel. The forward allocates
// the reserve, whose size only cuDNN or oneDNN knows (undefined when `training` is false).
using CudnnRnnForwardFn = void (*)(const RnnArgs& args, const Tensor& x, const std::vector<Tensor>& weights,
                                   const Tensor& hx, const Tensor& cx, bool training, const Tensor& y,
                                   const Tensor& hy, const Tensor& cy, Tensor& reserve);
using CudnnRnnBackwardFn = void (*)(const RnnArgs& args, const Tensor& x, const std::vector<Tensor>& weights,
                                    const Tensor& hx, const Tensor& cx, const Tensor& y,
                                    const Tensor& reserve, const Tensor& dy, const Tensor& dhy,
                                    const Tensor& dcy, const Tensor& dx, const Tensor& dhx, const Tensor& dcx,
                                    const std::vector<Tensor>& dweights);
MT_STUBS_RNN_H(MT_DECLARE_STUB_ROW)  // ops/op_table.h

}  // namespace mt
