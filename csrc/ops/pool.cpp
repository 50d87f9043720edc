// Pooling front ends: PyTorch's parameter rules (stride=None, ceil_mode output sizes, padding limits) and
// messages; 1-d pooling runs as 2-d with a unit height; unbatched inputs gain and lose a batch dim.
#include "ops/pool.h"

#include <cstdint>
#include <cstring>

#include "core/GradMode.h"
#include "core/SafeMath.h"
#include "generated/native.h"
#include "ops/copy.h"
#include "ops/layout.h"
#include "ops/reduce.h"
#include "ops/shape.h"

namespace mt {

namespace {

// int-or-tuple of `n` for a pooling argument, with PyTorch's message.
DimVector pool_param(IntArrayRef v, int64_t n, const char* op, const char* name, const char* rule) {
  MT_CHECK(v.size() == 1 || static_cast<int64_t>(v.size()) == n, op, ": ", name, rule,
           n == 2 ? "a tuple of two ints" : "a tuple of one int");
  DimVector r;
  for (int64_t i = 0; i < n; ++i) r.push_back(v[v.size() == 1 ? 0 : i]);
  return r;
}

// PyTorch's pooling_output_shape: floor or ceil, and a last window that would start in the right padding is
// dropped.
int64_t pool_out_size(int64_t in, int64_t k, int64_t pad, int64_t stride, int64_t dilation, bool ceil_mode) {
  wide_int num = wide_int(in) + 2 * wide_int(pad) - wide_int(dilation) * (wide_int(k) - 1) - 1 +
                 (ceil_mode ? wide_int(stride) - 1 : 0);
  wide_int q = num >= 0 ? num / stride : -((-num + stride - 1) / stride);  // floor division
  wide_int out = q + 1;
  if (ceil_mode && (out - 1) * stride >= wide_int(in) + pad) --out;
  MT_CHECK(fits_int64(out), "pooling output size overflows for input size ", in, ", kernel_size ", k,
           ", padding ", pad, ", stride ", stride, " and dilation ", dilation);
  return static_cast<int64_t>(out);
}

struct PoolSetup {
  Tensor input;  // 4-D
  bool batched;
  PoolArgs args;
  int64_t oh, ow;
};

// The dtype refusal in PyTorch's words: its CPU kernel's name ("max_pool1d_impl", "avg_pool2d", ...), which
// the 1-d forms share with the 2-d ones, and NotImplementedError.
void check_float_pool(const Tensor& input, const char* kernel) {
  MT_CHECK_NOT_IMPLEMENTED(is_floating(input.dtype()), "\"", kernel, "\" not implemented for '",
                           dtype_short_name(input.dtype()), "'");
}

// Shared checks and sizes of max/avg pooling over nd (1 or 2) spatial dims, in ATen's order: its meta
// function reads each argument (length, then the values as C ints), then pooling_output_shape checks each
// dim's stride and padding (height first), then pool2d_shape_check the signs, the empty dims, the padding
// against the kernel and the output size; the kernel's dtype check comes last. 1-d pooling is 2-d over a unit
// height (PyTorch's avg_pool1d and max_pool1d with indices), so its messages name kH/dH of 1. avg_pool2d's
// zero divisor_override is refused right after the arguments are read.
PoolSetup setup_pool(const Tensor& input_, IntArrayRef kernel_size, IntArrayRef stride_, IntArrayRef padding_,
                     IntArrayRef dilation_, bool ceil_mode, int64_t nd, const char* op, bool is_max,
                     const char* kernel, bool zero_divisor = false) {
  // max_pool1d without indices runs its own int64 kernel after its own checks (no C int conversion)
  const bool c_ints = !(nd == 1 && is_max);
  auto param = [&](IntArrayRef v, const char* name, const char* rule) {
    DimVector r = pool_param(v, nd, op, name, rule);
    for (int64_t x : r)
      MT_CHECK(!c_ints || (x >= INT32_MIN && x <= INT32_MAX),
               "value cannot be converted to type int without overflow");
    return r;
  };
  DimVector k = param(kernel_size, "kernel_size", " must either be a single int, or ");
  DimVector s = stride_.empty() ? k : param(stride_, "stride", " must either be omitted, a single int, or ");
  DimVector p = param(padding_, "padding", " must either be a single int, or ");
  DimVector d = param(dilation_, "dilation", " must be either a single int, or ");
  MT_CHECK(!zero_divisor, "divisor must be not zero");
  const int64_t dim = input_.dim();
  if (nd == 2 && is_max)
    MT_CHECK(dim == 3 || dim == 4, "non-empty 3D or 4D (batch mode) tensor expected for input");
  else if (nd == 2)
    wrap_size_dim(-3, dim);  // avg_pool2d reads the planes as input.size(-3) before any rank check
  else
    MT_CHECK(dim == 2 || dim == 3, op,
             ": Expected 2D or 3D (batch mode) tensor with optional 0 dim batch size for input, but got:",
             shape_str(input_.sizes()));
  // (height, width); 1-d pooling's unit height: kernel 1, stride 1, padding 0, dilation 1
  int64_t K[2] = {1, 1}, S[2] = {1, 1}, P[2] = {0, 0}, D[2] = {1, 1};
  for (int64_t i = 0; i < nd; ++i) {
    const int64_t j = 2 - nd + i;
    K[j] = k[i];
    S[j] = s[i];
    P[j] = p[i];
    D[j] = d[i];
  }
  for (int64_t i = 0; i < 2; ++i) {
    MT_CHECK(S[i] != 0, "stride should not be zero");
    MT_CHECK(P[i] >= 0, "pad must be non-negative, but got pad: ", P[i]);
    // C++ division (toward zero) of a possibly negative effective kernel, as ATen's
    MT_CHECK(wide_int(P[i]) <= ((wide_int(K[i]) - 1) * wide_int(D[i]) + 1) / 2,
             "pad should be at most half of effective kernel size, but got pad=", P[i],
             ", kernel_size=", K[i], " and dilation=", D[i]);
  }
  MT_CHECK(K[0] > 0 && K[1] > 0, "kernel size should be greater than zero, but got kH: ", K[0],
           " kW: ", K[1]);
  MT_CHECK(S[0] > 0 && S[1] > 0, "stride should be greater than zero, but got dH: ", S[0], " dW: ", S[1]);
  MT_CHECK(D[0] > 0 && D[1] > 0, "dilation should be greater than zero, but got dilationH: ", D[0],
           " dilationW: ", D[1]);
  // only a batched input's batch dim may be empty; PyTorch words an empty dim as the rank check, and runs
  // avg_pool1d as avg_pool2d over a unit height (so names that shape)
  bool empty_dim = dim > 4;
  for (int64_t i = dim == nd + 2 ? 1 : 0; i < dim; ++i) empty_dim = empty_dim || input_.sizes()[i] == 0;
  if (empty_dim) {
    DimVector shown = input_.sizes();
    if (nd == 1 && !is_max) shown.insert(shown.size() - 1, 1);
    MT_CHECK(false, nd == 2 || !is_max ? "" : op,
             nd == 2 || !is_max ? "Expected 3D or 4D" : ": Expected 2D or 3D",
             " (batch mode) tensor with optional 0 dim batch size for input, but got:", shape_str(shown));
  }
  MT_CHECK(K[1] / 2 >= P[1] && K[0] / 2 >= P[0],
           "pad should be smaller than or equal to half of kernel size, but got padW = ", P[1],
           ", padH = ", P[0], ", kW = ", K[1], ", kH = ", K[0]);
  PoolSetup r;
  r.batched = dim == nd + 2;
  Tensor x = r.batched ? input_ : unsqueeze(input_, 0);
  if (nd == 1) x = unsqueeze(x, 2);
  r.input = x;
  for (int64_t i = 0; i < 2; ++i) {
    r.args.kernel[i] = K[i];
    r.args.stride[i] = S[i];
    r.args.padding[i] = P[i];
    r.args.dilation[i] = D[i];
  }
  int64_t H = x.sizes()[2], W = x.sizes()[3];
  r.oh = pool_out_size(H, K[0], P[0], S[0], D[0], ceil_mode);
  r.ow = pool_out_size(W, K[1], P[1], S[1], D[1], ceil_mode);
  if (r.oh < 1 || r.ow < 1) {
    int64_t C = x.sizes()[1];
    if (nd == 1 && is_max)
      MT_ERROR("Given input size: (", C, "x", W, "). Calculated output size: (", C, "x", r.ow,
               "). Output size is too small");
    MT_ERROR("Given input size: (", C, "x", H, "x", W, "). Calculated output size: (", C, "x", r.oh, "x",
             r.ow, "). Output size is too small");
  }
  // PyTorch's CPU avg_pool kernel also takes int64 (each sum truncated by its divisor); its CUDA one does not
  const bool long_avg = !is_max && input_.dtype() == ScalarType::Long;
  // ...and its CPU max_pool2d kernel (with indices: every max_pool but max_pool1d's own) every dtype but bool
  const bool int_max = is_max && !input_.is_cuda() && std::strcmp(kernel, "max_pool2d") == 0 &&
                       input_.dtype() != ScalarType::Bool;
  if ((!long_avg || input_.is_cuda()) && !int_max)
    check_float_pool(input_, long_avg ? "avg_pool2d_out_cuda_frame" : kernel);
  return r;
}

// ATen's avg_pool1d and max_pool1d_with_indices (Python over the 2-d kernels): the rank, then each argument
// one int (an empty stride being the kernel size; no dilation for avg_pool1d), as its check1d words it
void check_1d_pool_args(const Tensor& input, IntArrayRef kernel_size, IntArrayRef stride, IntArrayRef padding,
                        std::optional<IntArrayRef> dilation, const char* op) {
  MT_CHECK(input.dim() == 2 || input.dim() == 3, "Expected 2 to 3 dimensions, but got ", input.dim(),
           "-dimensional tensor for argument #1 'self' (while checking arguments for ", op, ")");
  auto one = [op](const char* name, IntArrayRef v) {
    MT_CHECK(v.size() == 1, op, "() argument '", name, "' should contain one int (got ", v.size(), ")");
  };
  one("kernel_size", kernel_size);
  one("stride", stride.empty() ? kernel_size : stride);
  one("padding", padding);
  if (dilation) one("dilation", *dilation);
}

// Back to the caller's rank: drop the unit height of 1-d pooling and the batch dim of an unbatched input.
Tensor finish(Tensor t, const PoolSetup& s, int64_t nd) {
  if (nd == 1) t = squeeze(t, {2});
  return s.batched ? t : squeeze(t, {0});
}

// The values of a max pool without its indices: the CPU kernel's values-only windows (no int64 index per
// output to compute and store). Not recorded: callers take it only where no gradient is needed.
Tensor max_pool_values(const Tensor& input, const PoolArgs& args, int64_t oh, int64_t ow) {
  DimVector os = {input.sizes()[0], input.sizes()[1], oh, ow};
  Tensor out = make_empty(os, input.dtype(), input.device());
  if (out.numel() == 0) return out;
  max_pool2d_stub.get(input.device())(out, Tensor(), contiguous(input), args);
  return in_layout_of(out, {&input});
}

// with_indices false: the caller drops the indices, which are then not computed where the backward does not
// need them (the CPU kernel; a recorded pool saves them for its gradient)
std::tuple<Tensor, Tensor> max_pool_nd(const Tensor& input, IntArrayRef kernel_size, IntArrayRef stride,
                                       IntArrayRef padding, IntArrayRef dilation, bool ceil_mode, int64_t nd,
                                       const char* op, const char* kernel, bool with_indices = true) {
  PoolSetup s = setup_pool(input, kernel_size, stride, padding, dilation, ceil_mode, nd, op, true, kernel);
  if (!with_indices && !s.input.is_cuda() && !(GradMode::is_enabled() && s.input.requires_grad()))
    return {finish(max_pool_values(s.input, s.args, s.oh, s.ow), s, nd), Tensor()};
  auto [out, idx] = max_pool2d_impl(s.input, s.args, s.oh, s.ow);
  return {finish(out, s, nd), finish(idx, s, nd)};
}

// Adaptive pooling: (None entries keep the input size) and PyTorch's checks.
PoolSetup setup_adaptive(const Tensor& input_, const std::vector<std::optional<int64_t>>& output_size,
                         int64_t nd, const char* op, const char* kernel) {
  int64_t dim = input_.dim();
  // PyTorch's 1-d forms are Python over the 2-d kernels: their argument parser and dimension check word the
  // errors, and the 2-d max kernel reports a negative size as the output it failed to allocate
  const bool is_max = std::string(kernel) == "adaptive_max_pool2d";
  if (nd == 1) {
    MT_CHECK(output_size.size() == 1, op, "() argument 'output_size' should contain one int (got ",
             output_size.size(), ")");
    MT_CHECK(dim == 2 || dim == 3, "Expected 2 to 3 dimensions, but got ", dim,
             "-dimensional tensor for argument #1 'self' (while checking arguments for ", op, ")");
  } else {
    MT_CHECK(static_cast<int64_t>(output_size.size()) == nd || output_size.size() == 1, op,
             is_max ? "(): internal error: output_size.size() must be " : ": output_size must be ", nd);
  }
  // ATen's adaptive_avg_pool2d (the 1-d form too, over a height-1 view): the sizes' signs first, then the
  // mean of a 1 x 1 output (no check of the input's sizes), else the 2-d kernel's checks of the last two dims
  int64_t o[2] = {1, 1};
  if (!is_max) {
    for (int64_t i = 0; i < nd; ++i) {
      const auto& v = output_size[output_size.size() == 1 ? 0 : i];
      o[2 - nd + i] = v ? *v : dim - nd + i >= 0 ? input_.sizes()[dim - nd + i] : 1;
    }
    MT_CHECK(o[0] >= 0 && o[1] >= 0, kernel,
             ": elements of output_size must be greater than or equal to 0 but received {", o[0], ", ", o[1],
             "}");
  }
  if (nd != 1)
    MT_CHECK(dim == nd + 1 || dim == nd + 2, op, "(): Expected ", nd + 1, "D or ", nd + 2,
             "D tensor, but got", is_max ? ": " : " ", shape_str(input_.sizes()));
  const bool mean_path = !is_max && o[0] == 1 && o[1] == 1;
  if (is_max) {
    for (int64_t i = 1; i < dim; ++i)
      MT_CHECK(input_.sizes()[i] > 0, op,
               "(): Expected input to have non-zero size for non-batch dimensions, but input has sizes ",
               shape_str(input_.sizes()), " with dimension ", i, " being empty");
  } else if (!mean_path) {
    DimVector seen;  // what the 2-d kernel sees (the 1-d input with its height-1 dim)
    for (int64_t i = 0; i < dim; ++i) {
      if (nd == 1 && i == dim - 1) seen.push_back(1);
      seen.push_back(input_.sizes()[i]);
    }
    const int64_t n = static_cast<int64_t>(seen.size());
    for (int64_t i = n - 2; i < n; ++i)
      MT_CHECK(seen[i] > 0, kernel,
               "(): Expected input to have non-zero size for non-batch dimensions, but input has sizes ",
               shape_str(seen), " with dimension ", i, " being empty");
  }
  PoolSetup r;
  r.batched = dim == nd + 2;
  Tensor x = r.batched ? input_ : unsqueeze(input_, 0);
  if (nd == 1) x = unsqueeze(x, 2);
  r.input = x;
  r.args.adaptive = true;
  r.args.count_include_pad = false;
  r.args.adaptive_backward = is_max ? "adaptive_max_pool2d_backward" : "adaptive_avg_pool2d_backward";
  r.args.batched = r.batched;
  for (int64_t i = 0; i < nd; ++i) {
    int64_t j = 2 - nd + i;
    const auto& v = output_size[output_size.size() == 1 ? 0 : i];
    o[j] = v ? *v : x.sizes()[2 + j];
  }
  if (o[0] < 0 || o[1] < 0) {
    if (is_max) {  // the output shape as the 2-d kernel sees it (unbatched stays unbatched)
      std::vector<int64_t> shape(x.sizes().begin() + (r.batched ? 0 : 1), x.sizes().end() - 2);
      shape.push_back(o[0]);
      shape.push_back(o[1]);
      MT_CHECK(false, "Trying to create tensor with negative dimension ", o[0] < 0 ? o[0] : o[1], ": ",
               shape_str(shape));
    }
    MT_CHECK(false, kernel, ": elements of output_size must be greater than or equal to 0 but received {",
             o[0], ", ", o[1], "}");
  }
  r.oh = o[0];
  r.ow = o[1];
  // PyTorch's average pooling to 1x1 is a mean, whose refusal it then raises
  if (mean_path)
    MT_CHECK_NOT_IMPLEMENTED(
        is_floating(input_.dtype()),
        "mean(): could not infer output dtype. Input dtype must be either a floating point "
        "or complex dtype. Got: ",
        dtype_short_name(input_.dtype()));
  // the kernel's dtype dispatch: not reached for an empty output (an empty integer input pools to itself)
  if (is_max || x.sizes()[0] * x.sizes()[1] * r.oh * r.ow != 0) check_float_pool(input_, kernel);
  return r;
}

}  // namespace

std::tuple<Tensor, Tensor> native::max_pool2d_impl(const Tensor& input, const PoolArgs& args, int64_t oh,
                                                   int64_t ow) {
  DimVector os = {input.sizes()[0], input.sizes()[1], oh, ow};
  Tensor out = make_empty(os, input.dtype(), input.device());
  Tensor idx = make_empty(os, ScalarType::Long, input.device());
  if (out.numel() == 0) return {out, idx};
  max_pool2d_stub.get(input.device())(out, idx, contiguous(input), args);
  return {in_layout_of(out, {&input}), in_layout_of(idx, {&input})};
}

Tensor native::avg_pool2d_impl(const Tensor& input, const PoolArgs& args, int64_t oh, int64_t ow) {
  DimVector os = {input.sizes()[0], input.sizes()[1], oh, ow};
  Tensor out = make_empty(os, input.dtype(), input.device());
  if (out.numel() == 0) return out;
  avg_pool2d_stub.get(input.device())(out, contiguous(input), args);
  return in_layout_of(out, {&input});
}

// The adaptive pools' backward kernels refuse an empty grad_output dim past dim 0 (an output size of 0 pools
// to an empty result, whose gradient they then refuse), shown in the caller's rank (1-d with its unit height)
static void check_adaptive_grad(const Tensor& grad_out, const PoolArgs& args) {
  if (!args.adaptive_backward) return;
  const auto& g = grad_out.sizes();
  DimVector shown(g.begin() + (args.batched ? 0 : 1), g.end());
  for (size_t i = 1; i < shown.size(); ++i)
    MT_CHECK(
        shown[i] > 0, args.adaptive_backward,
        "(): Expected grad_output to have non-zero size for non-batch dimensions, but grad_output has sizes ",
        shape_str(shown), " with dimension ", i, " being empty");
}

Tensor native::avg_pool2d_backward(const Tensor& grad_out, const PoolArgs& args, IntArrayRef input_sizes) {
  check_adaptive_grad(grad_out, args);
  Tensor gi = make_empty(input_sizes, grad_out.dtype(), grad_out.device());
  if (gi.numel() == 0) return gi;
  avg_pool2d_backward_stub.get(gi.device())(gi, contiguous(grad_out), args);
  return gi;
}

Tensor native::max_pool2d_backward(const Tensor& grad_out, const Tensor& indices, const PoolArgs& args,
                                   IntArrayRef input_sizes) {
  check_adaptive_grad(grad_out, args);
  Tensor gi = make_empty(input_sizes, grad_out.dtype(), grad_out.device());
  if (gi.numel() == 0) return gi;
  if (grad_out.numel() == 0) return zero_(gi), gi;
  max_pool2d_backward_stub.get(gi.device())(gi, contiguous(grad_out), contiguous(indices), args);
  return gi;
}

// PyTorch's four max-pool entry points (1d/2d, with or without indices) are one-line forwards to max_pool_nd.
std::tuple<Tensor, Tensor> max_pool2d_with_indices(const Tensor& input, IntArrayRef kernel_size,
                                                   IntArrayRef stride, IntArrayRef padding,
                                                   IntArrayRef dilation, bool ceil_mode) {
  return max_pool_nd(input, kernel_size, stride, padding, dilation, ceil_mode, 2, "max_pool2d", "max_pool2d");
}
Tensor max_pool2d(const Tensor& input, IntArrayRef kernel_size, IntArrayRef stride, IntArrayRef padding,
                  IntArrayRef dilation, bool ceil_mode) {
  return std::get<0>(max_pool_nd(input, kernel_size, stride, padding, dilation, ceil_mode, 2, "max_pool2d",
                                 "max_pool2d", false));
}
std::tuple<Tensor, Tensor> max_pool1d_with_indices(const Tensor& input, IntArrayRef kernel_size,
                                                   IntArrayRef stride, IntArrayRef padding,
                                                   IntArrayRef dilation, bool ceil_mode) {
  check_1d_pool_args(input, kernel_size, stride, padding, dilation, "max_pool1d");
  // then ATen's 2-d pool over a unit height, whose checks and messages (2-d sizes) it keeps
  const int64_t k[2] = {1, kernel_size[0]}, s[2] = {1, stride.empty() ? kernel_size[0] : stride[0]},
                p[2] = {0, padding[0]}, d[2] = {1, dilation[0]};
  auto [out, idx] =
      max_pool2d_with_indices(unsqueeze(input, input.dim() - 1), IntArrayRef(k, 2), IntArrayRef(s, 2),
                              IntArrayRef(p, 2), IntArrayRef(d, 2), ceil_mode);
  return {squeeze(out, {out.dim() - 2}), squeeze(idx, {idx.dim() - 2})};
}
Tensor max_pool1d(const Tensor& input, IntArrayRef kernel_size, IntArrayRef stride, IntArrayRef padding,
                  IntArrayRef dilation, bool ceil_mode) {
  // without indices PyTorch runs its own 1-d kernel, after its own checks (check_max_pool1d) in their order
  // and words, then named in its dtype error
  const int64_t dim = input.dim();
  const auto& sz = input.sizes();
  MT_CHECK(
      (dim == 2 && sz[0] != 0 && sz[1] != 0) || (dim == 3 && sz[1] != 0 && sz[2] != 0),
      "max_pool1d: Expected 2D or 3D (batch mode) tensor with optional 0 dim batch size for input, but got:",
      shape_str(sz));
  MT_CHECK(kernel_size.size() == 1,
           "max_pool1d() kernel_size must be an int, list of ints or tuple of ints of size 1 but got size ",
           kernel_size.size());
  MT_CHECK(stride.empty() || stride.size() == 1,
           "max_pool1d() stride must be None, an int, list of ints, or tuple of ints of size 1 but got size ",
           stride.size());
  MT_CHECK(padding.size() == 1,
           "max_pool1d() padding must be an int, list of ints, or tuple of ints of size 1 but got size ",
           padding.size());
  MT_CHECK(dilation.size() == 1,
           "max_pool1d() dilation must be an int, list of ints or tuple of ints of size 1 but got size ",
           dilation.size());
  const int64_t k = kernel_size[0], st = stride.empty() ? k : stride[0], p = padding[0], d = dilation[0];
  MT_CHECK(k > 0, "max_pool1d() kernel_size must be greater than zero, but got ", k);
  MT_CHECK(st > 0, "max_pool1d() stride must be greater than zero, but got ", st);
  MT_CHECK(p >= 0, "max_pool1d() padding must be non-negative, but got ", p);
  MT_CHECK(p <= k / 2, "max_pool1d() padding should be at most half of kernel size, but got padding=", p,
           " and kernel_size=", k);
  MT_CHECK(d > 0, "max_pool1d() dilation must be greater than zero, but got ", d);
  const int64_t ow = pool_out_size(sz[dim - 1], k, p, st, d, ceil_mode);
  MT_CHECK(ow > 0, "max_pool1d() Invalid computed output size: ", ow);
  return std::get<0>(max_pool_nd(input, kernel_size, stride, padding, dilation, ceil_mode, 1, "max_pool1d",
                                 "max_pool1d_impl", false));
}

Tensor avg_pool2d(const Tensor& input, IntArrayRef kernel_size, IntArrayRef stride, IntArrayRef padding,
                  bool ceil_mode, bool count_include_pad, std::optional<int64_t> divisor_override) {
  const int64_t one = 1;
  PoolSetup s = setup_pool(input, kernel_size, stride, padding, IntArrayRef(&one, 1), ceil_mode, 2,
                           "avg_pool2d", false, "avg_pool2d", divisor_override && *divisor_override == 0);
  s.args.count_include_pad = count_include_pad;
  s.args.divisor = divisor_override ? *divisor_override : 0;
  return finish(avg_pool2d_impl(s.input, s.args, s.oh, s.ow), s, 2);
}
Tensor avg_pool1d(const Tensor& input, IntArrayRef kernel_size, IntArrayRef stride, IntArrayRef padding,
                  bool ceil_mode, bool count_include_pad) {
  check_1d_pool_args(input, kernel_size, stride, padding, {}, "avg_pool1d");
  const int64_t one = 1;
  PoolSetup s = setup_pool(input, kernel_size, stride, padding, IntArrayRef(&one, 1), ceil_mode, 1,
                           "avg_pool1d", false, "avg_pool2d");
  s.args.count_include_pad = count_include_pad;
  return finish(avg_pool2d_impl(s.input, s.args, s.oh, s.ow), s, 1);
}

Tensor adaptive_avg_pool2d(const Tensor& input, const std::vector<std::optional<int64_t>>& output_size) {
  PoolSetup s = setup_adaptive(input, output_size, 2, "adaptive_avg_pool2d", "adaptive_avg_pool2d");
  // global average pooling (ResNet's head) on CUDA: the mean reduction, as PyTorch does. The CPU pool kernel
  // sums whole planes with partial sums, which is faster than the mean there.
  // (an empty plane too: its mean is NaN, as PyTorch's)
  // A non-contiguous input (channels-last, a transposed 1-d one) is reduced where it lies, as PyTorch's mean
  // path, instead of copied to NCHW for the kernel.
  if (s.oh == 1 && s.ow == 1 && (s.input.is_cuda() || s.input.numel() == 0 || !s.input.is_contiguous()))
    return finish(in_layout_of(mean(s.input, {2, 3}, true), {&s.input}), s, 2);
  return finish(avg_pool2d_impl(s.input, s.args, s.oh, s.ow), s, 2);
}
Tensor adaptive_avg_pool1d(const Tensor& input, const std::vector<std::optional<int64_t>>& output_size) {
  PoolSetup s = setup_adaptive(input, output_size, 1, "adaptive_avg_pool1d", "adaptive_avg_pool2d");
  // to one value per row: the mean reduction, as ATen's adaptive_avg_pool2d (which PyTorch's 1-d pool calls)
  // takes it for a 1 x 1 output; the pool kernel's one-row spans ran at 0.6 of its speed on [1024, 1024]
  if (s.oh == 1 && s.ow == 1 &&
      (s.input.numel() == 0 || !s.input.is_contiguous() || s.input.device().is_cpu()))
    return finish(in_layout_of(mean(s.input, {2, 3}, true), {&s.input}), s, 1);
  return finish(avg_pool2d_impl(s.input, s.args, s.oh, s.ow), s, 1);
}
std::tuple<Tensor, Tensor> adaptive_max_pool2d(const Tensor& input,
                                               const std::vector<std::optional<int64_t>>& output_size) {
  PoolSetup s = setup_adaptive(input, output_size, 2, "adaptive_max_pool2d", "adaptive_max_pool2d");
  auto [out, idx] = max_pool2d_impl(s.input, s.args, s.oh, s.ow);
  return {finish(out, s, 2), finish(idx, s, 2)};
}
std::tuple<Tensor, Tensor> adaptive_max_pool1d(const Tensor& input,
                                               const std::vector<std::optional<int64_t>>& output_size) {
  PoolSetup s = setup_adaptive(input, output_size, 1, "adaptive_max_pool1d", "adaptive_max_pool2d");
  auto [out, idx] = max_pool2d_impl(s.input, s.args, s.oh, s.ow);
  return {finish(out, s, 1), finish(idx, s, 1)};
}

}  // namespace mt
