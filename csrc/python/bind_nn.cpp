// Bindings for the nn op family (ops/nn.h) into minitorch._C._nn, with PyTorch's argument names and defaults.
#include "ops/attention.h"
#include "ops/nn.h"
#include "python/bind.h"

namespace mt {

void init_nn(py::module_& m) {
  py::module_ nn = m.def_submodule("_nn");
  // linear is a GEMM: released by its multiply-add count, as the matmul bindings
  nn.def(
      "linear",
      [](const Tensor& input, const Tensor& weight, const OptTensor& bias) {
        bool big =
            !input.device().is_cpu() || input.numel() * (weight.dim() ? weight.size(0) : 1) >= kNoGilMinNumel;
        return nogil_if(big, [&] { return linear(input, weight, bias); });
      },
      py::arg("input"), py::arg("weight"), py::arg("bias") = py::none());
  nn.def("_pdist_forward", nogil_fn(&pdist_forward), py::arg("input"), py::arg("p") = 2.0);
  nn.def("_pdist_backward", nogil_fn(&pdist_backward), py::arg("grad"), py::arg("input"), py::arg("p"),
         py::arg("pdist"));
  nn.def("batch_norm", nogil_fn(&batch_norm), py::arg("input"), py::arg("weight"), py::arg("bias"),
         py::arg("running_mean"), py::arg("running_var"), py::arg("training"), py::arg("momentum"),
         py::arg("eps"));
  nn.def(
      "layer_norm",
      [](const Tensor& input, py::handle normalized_shape, const OptTensor& weight, const OptTensor& bias,
         double eps) {
        DimVector shape = parse_dims(normalized_shape);
        return nogil([&] { return layer_norm(input, shape, weight, bias, eps); }, input);
      },
      py::arg("input"), py::arg("normalized_shape"), py::arg("weight") = py::none(),
      py::arg("bias") = py::none(), py::arg("eps") = 1e-5);
  nn.def("group_norm", nogil_fn(&group_norm), py::arg("input"), py::arg("num_groups"),
         py::arg("weight") = py::none(), py::arg("bias") = py::none(), py::arg("eps") = 1e-5);
  nn.def("embedding", nogil_fn(&embedding), py::arg("weight"), py::arg("input"), py::arg("padding_idx") = -1,
         py::arg("scale_grad_by_freq") = false, py::arg("sparse") = false);
  nn.def("embedding_renorm_", nogil_fn(&embedding_renorm_), py::arg("weight"), py::arg("input"),
         py::arg("max_norm"), py::arg("norm_type"));
  nn.def("dropout", nogil_fn(static_cast<Tensor (*)(const Tensor&, double, bool)>(&dropout)),
         py::arg("input"), py::arg("p"), py::arg("train"));
  nn.def("feature_dropout", nogil_fn(&feature_dropout), py::arg("input"), py::arg("p"), py::arg("train"));
  nn.def("alpha_dropout", nogil_fn(&alpha_dropout), py::arg("input"), py::arg("p"), py::arg("train"));
  nn.def(
      "scaled_dot_product_attention",
      [](const Tensor& q, const Tensor& k, const Tensor& v, const OptTensor& attn_mask, double dropout_p,
         StrictBool is_causal, std::optional<double> scale, StrictBool enable_gqa) {
        return nogil(
            [&] {
              return scaled_dot_product_attention(q, k, v, attn_mask, dropout_p, is_causal, scale,
                                                  enable_gqa);
            },
            q, k, v);
      },
      py::arg("query"), py::arg("key"), py::arg("value"), py::arg("attn_mask") = py::none(),
      py::arg("dropout_p") = 0.0, py::arg("is_causal") = false, py::kw_only(), py::arg("scale") = py::none(),
      py::arg("enable_gqa") = false);
}

}  // namespace mt
