// Bindings for the nn op family (ops/nn.h) into minitorch._C._nn, with PyTorch's argument names and defaults.
#include "ops/nn.h"
#include "python/bind.h"

namespace mt {

void init_nn(py::module_& m) {
  py::module_ nn = m.def_submodule("_nn");
  nn.def("linear", &linear, py::arg("input"), py::arg("weight"), py::arg("bias") = py::none());
  nn.def("batch_norm", &batch_norm, py::arg("input"), py::arg("weight"), py::arg("bias"),
         py::arg("running_mean"), py::arg("running_var"), py::arg("training"), py::arg("momentum"),
         py::arg("eps"));
  nn.def(
      "layer_norm",
      [](const Tensor& input, py::handle normalized_shape, const OptTensor& weight, const OptTensor& bias,
         double eps) { return layer_norm(input, parse_dims(normalized_shape), weight, bias, eps); },
      py::arg("input"), py::arg("normalized_shape"), py::arg("weight") = py::none(),
      py::arg("bias") = py::none(), py::arg("eps") = 1e-5);
  nn.def("group_norm", &group_norm, py::arg("input"), py::arg("num_groups"), py::arg("weight") = py::none(),
         py::arg("bias") = py::none(), py::arg("eps") = 1e-5);
  nn.def("embedding", &embedding, py::arg("weight"), py::arg("input"), py::arg("padding_idx") = -1,
         py::arg("scale_grad_by_freq") = false, py::arg("sparse") = false);
  nn.def("embedding_renorm_", &embedding_renorm_, py::arg("weight"), py::arg("input"), py::arg("max_norm"),
         py::arg("norm_type"));
  nn.def("dropout", &dropout, py::arg("input"), py::arg("p"), py::arg("train"));
  nn.def("feature_dropout", &feature_dropout, py::arg("input"), py::arg("p"), py::arg("train"));
  nn.def("alpha_dropout", &alpha_dropout, py::arg("input"), py::arg("p"), py::arg("train"));
}

}  // namespace mt
