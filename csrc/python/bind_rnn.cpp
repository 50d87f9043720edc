// Bindings for the fused recurrent layers (ops/rnn.h): _C._cudnn_rnn, PyTorch's torch._cudnn_rnn arguments
// less its packed-weight buffer, dropout state and batch sizes.
#include "ops/rnn.h"
#include "python/bind.h"

namespace mt {

void init_rnn(py::module_& m) {
  m.def(
      "_cudnn_rnn",
      [](const Tensor& input, const std::vector<Tensor>& weights, const std::optional<Tensor>& hx,
         const std::optional<Tensor>& cx, int64_t mode, int64_t hidden_size, int64_t num_layers,
         bool batch_first, double dropout, bool train, bool bidirectional) {
        return nogil(
            [&] {
              return _cudnn_rnn(input, weights, hx ? *hx : Tensor(), cx ? *cx : Tensor(), mode, hidden_size,
                                num_layers, batch_first, dropout, train, bidirectional);
            },
            input);
      },
      py::arg("input"), py::arg("weights"), py::arg("hx"), py::arg("cx"), py::arg("mode"),
      py::arg("hidden_size"), py::arg("num_layers"), py::arg("batch_first"), py::arg("dropout"),
      py::arg("train"), py::arg("bidirectional"));
  m.def(
      "_has_cudnn_rnn", [] { return has_cudnn_rnn(Device(DeviceType::CUDA, 0)); },
      "True when this build has cuDNN's RNN kernel for CUDA tensors.");
  m.def(
      "_has_onednn_rnn", [] { return has_cudnn_rnn(Device(DeviceType::CPU, 0)); },
      "True when this build has oneDNN's LSTM kernel for CPU float32 tensors.");
}

}  // namespace mt
