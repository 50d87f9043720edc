// Bindings for the multi-tensor ops (ops/foreach.h) under PyTorch's underscore names: _foreach_*, the fused
// optimizer steps and GradScaler's two AMP kernels.
#include "ops/foreach.h"
#include "python/bind.h"

namespace mt {

namespace {

bool is_tensor_list(py::handle h) {
  return (py::isinstance<py::list>(h) || py::isinstance<py::tuple>(h));
}

// a list or tuple only: a tensor passes Python's sequence check too (its rows would become the list)
TensorList as_list(py::handle h, const char* what) {
  MT_CHECK_TYPE(is_tensor_list(h), what, " must be a list or tuple of Tensors");
  return h.cast<TensorList>();
}

}  // namespace

void init_foreach(py::module_& m) {
  m.def(
      "_foreach_add_",
      [](py::handle self, py::handle other, double alpha) {
        TensorList s = as_list(self, "self");
        if (is_tensor_list(other)) {
          TensorList o = other.cast<TensorList>();
          nogil([&] { foreach_add_(s, o, alpha); }, s);
        } else {
          double v = parse_scalar(other, "other").to_double() * alpha;
          nogil([&] { foreach_add_(s, v); }, s);
        }
      },
      py::arg("self"), py::arg("other"), py::arg("alpha") = 1.0);
  m.def(
      "_foreach_mul_",
      [](py::handle self, py::handle other) {
        TensorList s = as_list(self, "self");
        if (is_tensor_list(other)) {
          TensorList o = other.cast<TensorList>();
          nogil([&] { foreach_mul_(s, o); }, s);
        } else if (py::isinstance<TensorImpl>(other)) {
          Tensor o = other.cast<Tensor>();
          nogil([&] { foreach_mul_(s, o); }, s);
        } else {
          double v = parse_scalar(other, "other").to_double();
          nogil([&] { foreach_mul_(s, v); }, s);
        }
      },
      py::arg("self"), py::arg("other"));
  m.def(
      "_foreach_zero_",
      [](py::handle self) {
        TensorList s = as_list(self, "self");
        nogil([&] { foreach_zero_(s); }, s);
      },
      py::arg("self"));
  m.def(
      "_foreach_addcmul_",
      [](py::handle self, py::handle t1, py::handle t2, double value) {
        TensorList s = as_list(self, "self"), a = as_list(t1, "tensor1"), b = as_list(t2, "tensor2");
        nogil([&] { foreach_addcmul_(s, a, b, value); }, s);
      },
      py::arg("self"), py::arg("tensor1"), py::arg("tensor2"), py::arg("value") = 1.0);
  m.def(
      "_foreach_addcdiv_",
      [](py::handle self, py::handle t1, py::handle t2, double value) {
        TensorList s = as_list(self, "self"), a = as_list(t1, "tensor1"), b = as_list(t2, "tensor2");
        nogil([&] { foreach_addcdiv_(s, a, b, value); }, s);
      },
      py::arg("self"), py::arg("tensor1"), py::arg("tensor2"), py::arg("value") = 1.0);
  m.def(
      "_foreach_lerp_",
      [](py::handle self, py::handle end, double weight) {
        TensorList s = as_list(self, "self"), e = as_list(end, "tensors1");
        nogil([&] { foreach_lerp_(s, e, weight); }, s);
      },
      py::arg("self"), py::arg("tensors1"), py::arg("weight"));
  m.def(
      "_foreach_sqrt",
      [](py::handle self) {
        TensorList s = as_list(self, "self");
        return nogil([&] { return foreach_sqrt(s); }, s);
      },
      py::arg("self"));
  m.def(
      "_foreach_norm",
      [](py::handle self, double ord) {
        TensorList s = as_list(self, "self");
        return nogil([&] { return foreach_norm(s, ord); }, s);
      },
      py::arg("self"), py::arg("ord") = 2.0);

  m.def("_fused_sgd_", nogil_fn(&fused_sgd_), py::arg("params"), py::arg("grads"),
        py::arg("momentum_buffer_list"), py::arg("lr"), py::arg("momentum"), py::arg("dampening"),
        py::arg("weight_decay"), py::arg("nesterov"), py::arg("maximize"), py::arg("is_first_step"),
        py::arg("grad_scale") = py::none(), py::arg("found_inf") = py::none());
  m.def("_fused_adam_", nogil_fn(&fused_adam_), py::arg("params"), py::arg("grads"), py::arg("exp_avgs"),
        py::arg("exp_avg_sqs"), py::arg("max_exp_avg_sqs"), py::arg("state_steps"), py::arg("lr"),
        py::arg("beta1"), py::arg("beta2"), py::arg("weight_decay"), py::arg("eps"), py::arg("amsgrad"),
        py::arg("maximize"), py::arg("decoupled_weight_decay") = false, py::arg("grad_scale") = py::none(),
        py::arg("found_inf") = py::none());
  m.def("_fused_rmsprop_", nogil_fn(&fused_rmsprop_), py::arg("params"), py::arg("grads"),
        py::arg("square_avgs"), py::arg("grad_avgs"), py::arg("momentum_buffer_list"), py::arg("state_steps"),
        py::arg("lr"), py::arg("alpha"), py::arg("eps"), py::arg("weight_decay"), py::arg("momentum"),
        py::arg("centered"), py::arg("maximize"), py::arg("grad_scale") = py::none(),
        py::arg("found_inf") = py::none());
  m.def("_fused_adagrad_", nogil_fn(&fused_adagrad_), py::arg("params"), py::arg("grads"),
        py::arg("state_sums"), py::arg("state_steps"), py::arg("lr"), py::arg("lr_decay"),
        py::arg("weight_decay"), py::arg("eps"), py::arg("maximize"), py::arg("grad_scale") = py::none(),
        py::arg("found_inf") = py::none());
  m.def("_amp_foreach_non_finite_check_and_unscale_", nogil_fn(&amp_foreach_non_finite_check_and_unscale_),
        py::arg("self"), py::arg("found_inf"), py::arg("inv_scale"));
  m.def(
      "_amp_update_scale_",
      [](const Tensor& scale, const Tensor& growth_tracker, const Tensor& found_inf, double growth_factor,
         double backoff_factor, StrictInt growth_interval) {
        return amp_update_scale_(scale, growth_tracker, found_inf, growth_factor, backoff_factor,
                                 growth_interval);
      },
      py::arg("self"), py::arg("growth_tracker"), py::arg("found_inf"), py::arg("scale_growth_factor"),
      py::arg("scale_backoff_factor"), py::arg("growth_interval"));
}

}  // namespace mt
