// Bindings of the loss functions (ops/loss.h) into minitorch._C._nn with nn.functional's signatures.
#include <string>

#include "ops/loss.h"
#include "python/bind.h"

namespace mt {

namespace {

using OptTensor = std::optional<Tensor>;

// PyTorch's UserWarning when input and target broadcast to another shape (stacklevel 2, as F.mse_loss).
void warn_size_mismatch(const Tensor& input, const Tensor& target) {
  if (IntArrayRef(input.sizes()).equals(target.sizes())) return;
  std::string msg =
      "Using a target size (torch.Size(" + shape_str(target.sizes()) +
      ")) that is different to the input size (torch.Size(" + shape_str(input.sizes()) +
      ")). This will likely lead to incorrect results due to broadcasting. Please ensure they have "
      "the same size.";
  if (PyErr_WarnEx(PyExc_UserWarning, msg.c_str(), 2) != 0) throw py::error_already_set();
}

}  // namespace

void init_loss(py::module_& m) {
  py::module_ nn = m.def_submodule("_nn");

  nn.def(
      "cross_entropy",
      [](const Tensor& input, const Tensor& target, const OptTensor& weight, const std::string& reduction,
         StrictSymInt ignore_index, double label_smoothing) {
        return nogil(
            [&] {
              return cross_entropy(input, target, weight, parse_reduction(reduction), ignore_index,
                                   label_smoothing);
            },
            input);
      },
      py::arg("input"), py::arg("target"), py::arg("weight") = py::none(), py::arg("reduction") = "mean",
      py::arg("ignore_index") = -100, py::arg("label_smoothing") = 0.0);
  nn.def(
      "nll_loss",
      [](const Tensor& input, const Tensor& target, const OptTensor& weight, const std::string& reduction,
         StrictSymInt ignore_index) {
        return nogil(
            [&] { return nll_loss(input, target, weight, parse_reduction(reduction), ignore_index); }, input);
      },
      py::arg("input"), py::arg("target"), py::arg("weight") = py::none(), py::arg("reduction") = "mean",
      py::arg("ignore_index") = -100);

  using Pointwise = Tensor (*)(const Tensor&, const Tensor&, Reduction);
  const std::pair<const char*, Pointwise> pointwise[] = {{"mse_loss", &mse_loss}, {"l1_loss", &l1_loss}};
  for (auto [name, fn] : pointwise) {
    Pointwise f = fn;
    nn.def(
        name,
        [f](const Tensor& input, const Tensor& target, const std::string& reduction) {
          Reduction r = parse_reduction(reduction);
          warn_size_mismatch(input, target);
          return nogil([&] { return f(input, target, r); }, input);
        },
        py::arg("input"), py::arg("target"), py::arg("reduction") = "mean");
  }
  nn.def(
      "smooth_l1_loss",
      [](const Tensor& input, const Tensor& target, const std::string& reduction, double beta) {
        Reduction r = parse_reduction(reduction);
        warn_size_mismatch(input, target);
        return nogil([&] { return smooth_l1_loss(input, target, r, beta); }, input);
      },
      py::arg("input"), py::arg("target"), py::arg("reduction") = "mean", py::arg("beta") = 1.0);
  nn.def(
      "huber_loss",
      [](const Tensor& input, const Tensor& target, const std::string& reduction, double delta) {
        Reduction r = parse_reduction(reduction);
        warn_size_mismatch(input, target);
        return nogil([&] { return huber_loss(input, target, r, delta); }, input);
      },
      py::arg("input"), py::arg("target"), py::arg("reduction") = "mean", py::arg("delta") = 1.0);
  nn.def(
      "binary_cross_entropy",
      [](const Tensor& input, const Tensor& target, const OptTensor& weight, const std::string& reduction) {
        return nogil([&] { return binary_cross_entropy(input, target, weight, parse_reduction(reduction)); },
                     input);
      },
      py::arg("input"), py::arg("target"), py::arg("weight") = py::none(), py::arg("reduction") = "mean");
  nn.def(
      "binary_cross_entropy_with_logits",
      [](const Tensor& input, const Tensor& target, const OptTensor& weight, const std::string& reduction,
         const OptTensor& pos_weight) {
        return nogil(
            [&] {
              return binary_cross_entropy_with_logits(input, target, weight, parse_reduction(reduction),
                                                      pos_weight);
            },
            input);
      },
      py::arg("input"), py::arg("target"), py::arg("weight") = py::none(), py::arg("reduction") = "mean",
      py::arg("pos_weight") = py::none());
  nn.def(
      "kl_div",
      [](const Tensor& input, const Tensor& target, const std::string& reduction, StrictBool log_target) {
        // 'batchmean' (sum / batch size) is kl_div's own reduction, as in PyTorch
        bool batchmean = reduction == "batchmean";
        Reduction r = batchmean ? Reduction::Sum : parse_reduction(reduction);
        return nogil([&] { return kl_div(input, target, r, log_target, batchmean); }, input);
      },
      py::arg("input"), py::arg("target"), py::arg("reduction") = "mean", py::arg("log_target") = false);
  nn.def(
      "soft_margin_loss",
      [](const Tensor& input, const Tensor& target, const std::string& reduction) {
        return nogil([&] { return soft_margin_loss(input, target, parse_reduction(reduction)); }, input);
      },
      py::arg("input"), py::arg("target"), py::arg("reduction") = "mean");
}

}  // namespace mt
