// The process state of the convolutions and grid sampling: the cuDNN and oneDNN flags torch.backends reads
// and writes, and grid sampling's double-backward hook into Python. (Their ops are ops.schema's `module: nn`
// rows, bound into _C._nn by the generator.)
#include "ops/conv.h"
#include "ops/grid_sample.h"
#include "python/bind.h"

namespace mt {

void init_conv(py::module_& m) {
  py::module_ nn = m.def_submodule("_nn");
  // fn(grad, input, grid, mode, padding, align_corners, need_input, need_grid) -> (grad_input, grad_grid),
  // the composite's recorded gradients for double backward; kept for the process's life (never released at
  // exit, when Python is already gone)
  nn.def(
      "_set_grid_sampler_graph_grads",
      [](py::function fn) {
        auto* keep = new py::function(std::move(fn));
        set_grid_sampler_graph_grads([keep](const Tensor& g, const Tensor& input, const Tensor& grid,
                                            const GridSampleArgs& a, bool need_input, bool need_grid) {
          py::gil_scoped_acquire gil;  // the engine runs released
          py::object r = (*keep)(g, input, grid, a.mode, a.padding, a.align_corners, need_input, need_grid);
          auto pick = [](py::handle h) { return h.is_none() ? Tensor() : h.cast<Tensor>(); };
          py::tuple t = r.cast<py::tuple>();
          return std::tuple<Tensor, Tensor>(pick(t[0]), pick(t[1]));
        });
      },
      py::arg("fn"));

  // ---- torch.backends.cudnn
  m.def(
      "_set_cudnn_flags",
      [](StrictBool enabled, StrictBool benchmark, StrictBool deterministic, StrictBool allow_tf32) {
        set_cudnn_flags({enabled, benchmark, deterministic, allow_tf32});
      },
      py::arg("enabled"), py::arg("benchmark"), py::arg("deterministic"), py::arg("allow_tf32"));
  m.def("_get_cudnn_flags", [] {
    CudnnFlags f = cudnn_flags();
    return py::make_tuple(f.enabled, f.benchmark, f.deterministic, f.allow_tf32);
  });
  m.def("_cudnn_version", []() -> py::object {
    int64_t v = cudnn_version();
    return v ? py::object(py::int_(v)) : py::object(py::none());
  });
  // ---- torch.backends.mkldnn: oneDNN behind the CPU float convs
  m.attr("_has_mkldnn") = onednn_conv_available();
  m.def("_get_mkldnn_enabled", [] { return onednn_conv_enabled(); });
  m.def("_set_mkldnn_enabled", [](StrictBool on) { set_onednn_conv_enabled(on); }, py::arg("enabled"));
  // the conv3d checks (Python) word a weight's dtype by the backend PyTorch would pick, as conv1d/2d's do
  m.def(
      "_conv_picks_onednn",
      [](const Tensor& input, const Tensor& weight, std::vector<int64_t> stride,
         std::vector<int64_t> dilation, int64_t groups) {
        return input.device().is_cpu() &&
               picks_onednn(input.dtype(), input.sizes(), weight.sizes(), stride, dilation, groups);
      },
      py::arg("input"), py::arg("weight"), py::arg("stride"), py::arg("dilation"), py::arg("groups"));
#ifdef MINITORCH_WITH_CUDNN
  m.attr("_has_cudnn") = true;
#else
  m.attr("_has_cudnn") = false;
#endif
}

}  // namespace mt
