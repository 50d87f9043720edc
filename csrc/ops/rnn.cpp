// Front end of the fused recurrent layers (_cudnn_rnn): argument checks with PyTorch's messages, layout
// (batch_first, contiguity), autograd recording, then cuDNN's kernel for the device.
#include "ops/rnn.h"

#include <limits>

#include "generated/native.h"
#include "ops/copy.h"
#include "ops/factory.h"
#include "ops/shape.h"

namespace mt {

int64_t RnnArgs::gates() const {
  switch (mode) {
    case RnnMode::lstm:
      return 4;
    case RnnMode::gru:
      return 3;
    default:
      return 1;
  }
}

bool has_cudnn_rnn(Device d) {
  return cudnn_rnn_forward_stub.fns[static_cast<int>(d.type)] != nullptr;
}

namespace {

// cuDNN takes int sizes.
void check_int(int64_t v, const char* what) {
  MT_CHECK(v <= std::numeric_limits<int32_t>::max(), "_cudnn_rnn: ", what, " (", v,
           ") does not fit cuDNN's int");
}

// PyTorch's messages (its check_attributes); `t` is a weight or a state.
void check_same(const Tensor& t, const Tensor& input) {
  MT_CHECK(t.device() == input.device(),
           "Input and parameter tensors are not at the same device, found input "
           "tensor at ",
           input.device().str(), " and parameter tensor at ", t.device().str());
  MT_CHECK(t.dtype() == input.dtype(),
           "Input and parameter tensors are not the same dtype, found input tensor with ",
           dtype_short_name(input.dtype()), " and parameter tensor with ", dtype_short_name(t.dtype()));
}

void check_shape(const Tensor& t, IntArrayRef want, const char* what) {
  MT_CHECK(IntArrayRef(t.sizes()).equals(want), "_cudnn_rnn: expected ", what, " of size ", shape_str(want),
           ", got ", shape_str(t.sizes()));
}

}  // namespace

std::tuple<Tensor, Tensor, Tensor, Tensor> _cudnn_rnn(const Tensor& input, const std::vector<Tensor>& weights,
                                                      const Tensor& hx, const Tensor& cx, int64_t mode,
                                                      int64_t hidden_size, int64_t num_layers,
                                                      bool batch_first, double dropout, bool train,
                                                      bool bidirectional) {
  MT_CHECK_VALUE(mode >= 0 && mode <= 3, "Unknown cuDNN RNN mode ", mode,
                 " (0: RNN_RELU, 1: RNN_TANH, 2: LSTM, 3: GRU)");
  MT_CHECK_VALUE(hidden_size > 0, "hidden_size must be greater than zero");
  MT_CHECK_VALUE(num_layers > 0, "num_layers must be greater than zero");
  MT_CHECK(input.dim() == 3, "input must have 3 dimensions, got ", input.dim());
  ScalarType dt = input.dtype();
  MT_CHECK_TYPE(dt == ScalarType::Half || dt == ScalarType::Float || dt == ScalarType::Double,
                "_cudnn_rnn: expected a float16, float32 or float64 input, got ", dtype_short_name(dt));
  MT_CHECK_NOT_IMPLEMENTED(!(train && dropout > 0 && num_layers > 1),
                           "_cudnn_rnn: dropout between layers is not implemented (use the composite path)");
  RnnArgs a;
  a.mode = static_cast<RnnMode>(mode);
  a.hidden_size = hidden_size;
  a.num_layers = num_layers;
  a.bidirectional = bidirectional;
  a.input_size = input.size(2);
  const int64_t D = a.num_directions(), L = num_layers, H = hidden_size, G = a.gates() * H;
  const int64_t T = batch_first ? input.size(1) : input.size(0),
                N = batch_first ? input.size(0) : input.size(1);
  MT_CHECK(T > 0 && N > 0 && a.input_size > 0, "_cudnn_rnn: empty input of size ", shape_str(input.sizes()),
           " (cuDNN needs at least one step, one batch row and one feature)");
  check_int(T * N * std::max(a.input_size, D * H), "the input or output size");
  check_int(G * std::max(a.input_size, D * H), "a weight's size");
  const size_t per = weights.size() / static_cast<size_t>(L * D);
  MT_CHECK(
      weights.size() == static_cast<size_t>(L * D * 2) || weights.size() == static_cast<size_t>(L * D * 4),
      "_cudnn_rnn: expected ", L * D * 2, " or ", L * D * 4, " weights, got ", weights.size());
  a.has_bias = per == 4;
  for (int64_t l = 0; l < L; ++l) {
    for (int64_t d = 0; d < D; ++d) {
      const Tensor* w = &weights[static_cast<size_t>(l * D + d) * per];
      int64_t in = l == 0 ? a.input_size : D * H;
      check_shape(w[0], {G, in}, "weight_ih");
      check_shape(w[1], {G, H}, "weight_hh");
      if (a.has_bias) {
        check_shape(w[2], {G}, "bias_ih");
        check_shape(w[3], {G}, "bias_hh");
      }
      for (size_t i = 0; i < per; ++i) check_same(w[i], input);
    }
  }
  MT_CHECK(hx.defined(), "_cudnn_rnn: hx is required");
  check_same(hx, input);
  if (!IntArrayRef(hx.sizes()).equals({L * D, N, H}))
    MT_ERROR("Expected hidden size (", L * D, ", ", N, ", ", H, "), got ", shape_str(hx.sizes()));
  if (a.mode == RnnMode::lstm) {
    MT_CHECK(cx.defined(), "_cudnn_rnn: cx is required for LSTM");
    check_same(cx, input);
    if (!IntArrayRef(cx.sizes()).equals({L * D, N, H}))
      MT_ERROR("Expected cell size (", L * D, ", ", N, ", ", H, "), got ", shape_str(cx.sizes()));
  } else {
    MT_CHECK(!cx.defined(), "_cudnn_rnn: cx is only taken by LSTM");
  }
  MT_CHECK_NOT_IMPLEMENTED(has_cudnn_rnn(input.device()),
                           "Could not run '_cudnn_rnn' with arguments from the '",
                           input.device().is_cuda() ? "CUDA" : "CPU", "' backend",
                           input.device().is_cuda() ? " (built without cuDNN)." : ".");

  // Layout first, as recorded ops: the fused op sees time-major contiguous tensors.
  Tensor x = contiguous(batch_first ? transpose(input, 0, 1) : input);
  Tensor h = contiguous(hx), c = cx.defined() ? contiguous(cx) : Tensor();
  std::vector<Tensor> ws;
  ws.reserve(weights.size());
  for (const Tensor& w : weights) ws.push_back(contiguous(w));
  std::tuple<Tensor, Tensor, Tensor, Tensor> r = cudnn_rnn(x, ws, h, c, a);
  if (batch_first) std::get<0>(r) = transpose(std::get<0>(r), 0, 1);
  return r;
}

std::tuple<Tensor, Tensor, Tensor, Tensor> native::cudnn_rnn(const Tensor& x,
                                                             const std::vector<Tensor>& weights,
                                                             const Tensor& hx, const Tensor& cx,
                                                             const RnnArgs& args) {
  return cudnn_rnn_forward(x, weights, hx, cx, args, /*training=*/false);
}

std::tuple<Tensor, Tensor, Tensor, Tensor> cudnn_rnn_forward(const Tensor& x,
                                                             const std::vector<Tensor>& weights,
                                                             const Tensor& hx, const Tensor& cx,
                                                             const RnnArgs& args, bool training) {
  const int64_t T = x.size(0), N = x.size(1), D = args.num_directions(), H = args.hidden_size;
  Tensor y = make_empty({T, N, D * H}, x.dtype(), x.device());
  Tensor hy = make_empty(hx.sizes(), x.dtype(), x.device());
  Tensor cy = cx.defined() ? make_empty(cx.sizes(), x.dtype(), x.device()) : Tensor();
  Tensor reserve;
  cudnn_rnn_forward_stub.get(x.device())(args, x, weights, hx, cx, training, y, hy, cy, reserve);
  return {y, hy, cy, reserve};
}

RnnGrads cudnn_rnn_backward(const Tensor& x, const std::vector<Tensor>& weights, const Tensor& hx,
                            const Tensor& cx, const Tensor& y, const Tensor& reserve, const Tensor& dy,
                            const Tensor& dhy, const Tensor& dcy, const RnnArgs& args) {
  MT_CHECK(reserve.defined(), "_cudnn_rnn backward: the forward kept no reserve (it ran without grad)");
  RnnGrads g;
  g.dx = make_empty(x.sizes(), x.dtype(), x.device());
  g.dhx = make_empty(hx.sizes(), x.dtype(), x.device());
  if (cx.defined()) g.dcx = make_empty(cx.sizes(), x.dtype(), x.device());
  for (const Tensor& w : weights) g.dweights.push_back(make_empty(w.sizes(), w.dtype(), w.device()));
  auto dense = [&](const Tensor& t, const Tensor& like) {
    return t.defined() ? contiguous(t) : zeros(like.sizes(), like.dtype(), like.device());
  };
  Tensor dcy_ = cx.defined() ? dense(dcy, cx) : Tensor();
  cudnn_rnn_backward_stub.get(x.device())(args, x, weights, hx, cx, y, reserve, dense(dy, y), dense(dhy, hx),
                                          dcy_, g.dx, g.dhx, g.dcx, g.dweights);
  return g;
}

}  // namespace mt
