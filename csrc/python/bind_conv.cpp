// Bindings for convolution, pooling, upsampling and grid sampling (ops/conv.h, ops/pool.h, ops/upsample.h,
// ops/grid_sample.h) into _C._nn with PyTorch's functional signatures, plus the cuDNN flags
// torch.backends.cudnn reads and writes.
#include "ops/conv.h"
#include "ops/grid_sample.h"
#include "ops/pool.h"
#include "ops/upsample.h"
#include "python/bind.h"

namespace mt {

namespace {

// int or tuple/list of ints.
DimVector ints(py::handle h) {
  return parse_dims(h);
}

// adaptive output_size: int, or a tuple whose entries may be None (keep that input size).
// Only a tuple or list is a sequence here: a tensor passes Python's sequence check too, and iterating a 0-dim
// one left a Python error set behind a successful return (an int tensor is one size, as PyTorch's parser
// takes it).
std::vector<std::optional<int64_t>> output_size(py::handle h) {
  std::vector<std::optional<int64_t>> r;
  auto one = [](py::handle v) {
    return v.is_none() ? std::nullopt : std::optional<int64_t>(parse_dims(v)[0]);
  };
  if (py::isinstance<py::tuple>(h) || py::isinstance<py::list>(h)) {
    for (py::handle v : h) r.push_back(one(v));
  } else {
    r.push_back(one(h));
  }
  return r;
}

// The four max-pool spellings (1d/2d, with or without indices) share PyTorch's functional signature.
template <typename Op>
void def_max_pool(py::module_& nn, const char* name, Op op) {
  nn.def(
      name,
      [op](const Tensor& input, py::handle k, py::handle stride, py::handle padding, py::handle dilation,
           StrictBool ceil_mode) {
        auto k_ = ints(k);
        auto stride_ = ints(stride);
        auto padding_ = ints(padding);
        auto dilation_ = ints(dilation);
        return nogil([&] { return op(input, k_, stride_, padding_, dilation_, ceil_mode); }, input);
      },
      py::arg("input"), py::arg("kernel_size"), py::arg("stride") = py::none(), py::arg("padding") = 0,
      py::arg("dilation") = 1, py::arg("ceil_mode") = false);
}

using OptTensor = std::optional<Tensor>;

// The four adaptive pools (avg/max, 1d/2d) share PyTorch's functional signature.
template <typename Op>
void def_adaptive_pool(py::module_& nn, const char* name, Op op) {
  nn.def(
      name,
      [op](const Tensor& input, py::handle os) {
        auto os_ = output_size(os);
        return nogil([&] { return op(input, os_); }, input);
      },
      py::arg("input"), py::arg("output_size"));
}

// conv_transpose1d/2d: PyTorch's functional signature (output_padding and groups before dilation).
template <typename Op>
void def_conv_transpose(py::module_& nn, const char* name, Op op) {
  nn.def(
      name,
      [op](const Tensor& input, const Tensor& weight, const OptTensor& bias, py::handle stride,
           py::handle padding, py::handle output_padding, StrictInt groups, py::handle dilation) {
        auto stride_ = ints(stride);
        auto padding_ = ints(padding);
        auto output_padding_ = ints(output_padding);
        auto dilation_ = ints(dilation);
        return nogil(
            [&] { return op(input, weight, bias, stride_, padding_, output_padding_, groups, dilation_); });
      },
      py::arg("input"), py::arg("weight"), py::arg("bias") = py::none(), py::arg("stride") = 1,
      py::arg("padding") = 0, py::arg("output_padding") = 0, py::arg("groups") = 1, py::arg("dilation") = 1);
}

py::object conv(const Tensor& input, const Tensor& weight, const OptTensor& bias, py::handle stride,
                py::handle padding, py::handle dilation, int64_t groups, bool one_d) {
  // A convolution is microseconds of work even on small inputs: always released.
  DimVector st = ints(stride), dil = ints(dilation);
  if (py::isinstance<py::str>(padding)) {
    std::string p = padding.cast<std::string>();
    return py::cast(nogil([&] {
      return one_d ? conv1d(input, weight, bias, st, p, dil, groups)
                   : conv2d(input, weight, bias, st, p, dil, groups);
    }));
  }
  DimVector pad = ints(padding);
  return py::cast(nogil([&] {
    return one_d ? conv1d(input, weight, bias, st, pad, dil, groups)
                 : conv2d(input, weight, bias, st, pad, dil, groups);
  }));
}

}  // namespace

void init_conv(py::module_& m) {
  py::module_ nn = m.def_submodule("_nn");
  nn.def(
      "conv2d",
      [](const Tensor& input, const Tensor& weight, const OptTensor& bias, py::handle stride,
         py::handle padding, py::handle dilation,
         StrictInt groups) { return conv(input, weight, bias, stride, padding, dilation, groups, false); },
      py::arg("input"), py::arg("weight"), py::arg("bias") = py::none(), py::arg("stride") = 1,
      py::arg("padding") = 0, py::arg("dilation") = 1, py::arg("groups") = 1);
  nn.def(
      "conv1d",
      [](const Tensor& input, const Tensor& weight, const OptTensor& bias, py::handle stride,
         py::handle padding, py::handle dilation,
         StrictInt groups) { return conv(input, weight, bias, stride, padding, dilation, groups, true); },
      py::arg("input"), py::arg("weight"), py::arg("bias") = py::none(), py::arg("stride") = 1,
      py::arg("padding") = 0, py::arg("dilation") = 1, py::arg("groups") = 1);
  def_conv_transpose(nn, "conv_transpose2d", &conv_transpose2d);
  def_conv_transpose(nn, "conv_transpose1d", &conv_transpose1d);

  // ---- pooling; stride=None (or an empty tuple) means stride = kernel_size
  def_max_pool(nn, "max_pool2d", &max_pool2d);
  def_max_pool(nn, "max_pool2d_with_indices", &max_pool2d_with_indices);
  def_max_pool(nn, "max_pool1d", &max_pool1d);
  def_max_pool(nn, "max_pool1d_with_indices", &max_pool1d_with_indices);
  nn.def(
      "avg_pool2d",
      [](const Tensor& input, py::handle k, py::handle stride, py::handle padding, StrictBool ceil_mode,
         StrictBool count_include_pad, OptInt divisor_override) {
        auto k_ = ints(k);
        auto stride_ = ints(stride);
        auto padding_ = ints(padding);
        return nogil(
            [&] {
              return avg_pool2d(input, k_, stride_, padding_, ceil_mode, count_include_pad, divisor_override);
            },
            input);
      },
      py::arg("input"), py::arg("kernel_size"), py::arg("stride") = py::none(), py::arg("padding") = 0,
      py::arg("ceil_mode") = false, py::arg("count_include_pad") = true,
      py::arg("divisor_override") = py::none());
  nn.def(
      "avg_pool1d",
      [](const Tensor& input, py::handle k, py::handle stride, py::handle padding, StrictBool ceil_mode,
         StrictBool count_include_pad) {
        auto k_ = ints(k);
        auto stride_ = ints(stride);
        auto padding_ = ints(padding);
        return nogil([&] { return avg_pool1d(input, k_, stride_, padding_, ceil_mode, count_include_pad); },
                     input);
      },
      py::arg("input"), py::arg("kernel_size"), py::arg("stride") = py::none(), py::arg("padding") = 0,
      py::arg("ceil_mode") = false, py::arg("count_include_pad") = true);
  def_adaptive_pool(nn, "adaptive_avg_pool2d", &adaptive_avg_pool2d);
  def_adaptive_pool(nn, "adaptive_avg_pool1d", &adaptive_avg_pool1d);
  def_adaptive_pool(nn, "adaptive_max_pool2d", &adaptive_max_pool2d);
  def_adaptive_pool(nn, "adaptive_max_pool1d", &adaptive_max_pool1d);

  // ---- upsampling: F.interpolate normalizes its arguments in Python and ends here. output_size None takes
  // floor(input size * scale); scale_factors None recomputes the scales from the sizes.
  nn.def(
      "_upsample",
      [](const Tensor& input, const std::string& mode, std::optional<std::vector<int64_t>> output_size,
         StrictBool align_corners, std::optional<std::vector<double>> scale_factors) {
        std::vector<int64_t> os = output_size ? *output_size : std::vector<int64_t>{};
        std::vector<double> sc = scale_factors ? *scale_factors : std::vector<double>{};
        return nogil([&] { return upsample(input, mode, os, align_corners, sc); }, input);
      },
      py::arg("input"), py::arg("mode"), py::arg("output_size"), py::arg("align_corners"),
      py::arg("scale_factors"));

  // ---- grid sampling: F.grid_sample checks its arguments in Python and ends here for float/double CPU
  // tensors
  nn.def(
      "_grid_sampler",
      [](const Tensor& input, const Tensor& grid, int64_t mode, int64_t padding, StrictBool align_corners) {
        return nogil([&] { return grid_sampler_impl(input, grid, mode, padding, align_corners); }, input);
      },
      py::arg("input"), py::arg("grid"), py::arg("interpolation_mode"), py::arg("padding_mode"),
      py::arg("align_corners"));
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
#ifdef MINITORCH_WITH_CUDNN
  m.attr("_has_cudnn") = true;
#else
  m.attr("_has_cudnn") = false;
#endif
}

}  // namespace mt
