// Upsampling front end: mode and rank checks, output sizes from scale factors, PyTorch's messages; every rank
// runs as one primitive whose kernels see (D, H, W) with unit leading dims (as 1-d pooling runs as 2-d).
#include "ops/upsample.h"

#include <cmath>

#include "core/SafeMath.h"
#include "generated/native.h"
#include "ops/copy.h"
#include "ops/layout.h"

namespace mt {

namespace {

const char* op_name(UpsampleMode mode, int nd) {
  static const char* names[4][3] = {
      {"upsample_nearest1d", "upsample_nearest2d", "upsample_nearest3d"},
      {"_upsample_nearest_exact1d", "_upsample_nearest_exact2d", "_upsample_nearest_exact3d"},
      {"upsample_linear1d", "upsample_bilinear2d", "upsample_trilinear3d"},
      {"upsample_bicubic2d", "upsample_bicubic2d", "upsample_bicubic2d"}};
  return names[static_cast<int>(mode)][nd - 1];
}

std::string sizes_str(const int64_t* s, int nd) {
  static const char* names[3] = {"D", "H", "W"};
  std::string r;
  for (int i = 0; i < nd; ++i) {
    if (i) r += ", ";
    r += str(names[3 - nd + i], ": ", s[i]);
  }
  return r;
}

}  // namespace

Tensor native::upsample_impl(const Tensor& input, const UpsampleArgs& args) {
  DimVector os = {input.sizes()[0], input.sizes()[1]};
  for (int i = 3 - args.nd; i < 3; ++i) os.push_back(args.out[i]);
  Tensor out = make_empty(os, input.dtype(), input.device());
  if (out.numel() == 0) return out;
  upsample_stub.get(input.device())(out, contiguous(input), args);
  return in_layout_of(out, {&input});
}

Tensor native::upsample_backward(const Tensor& grad_out, const UpsampleArgs& args, IntArrayRef input_sizes) {
  // half/bfloat16 gradients accumulate in a float buffer (PyTorch's CPU kernels do the same)
  bool reduced = grad_out.dtype() == ScalarType::Half || grad_out.dtype() == ScalarType::BFloat16;
  ScalarType acc = reduced ? ScalarType::Float : grad_out.dtype();
  Tensor gi = make_empty(input_sizes, acc, grad_out.device());
  if (gi.numel() == 0) return reduced ? to(gi, grad_out.dtype(), gi.device()) : gi;
  if (grad_out.numel() == 0) {
    zero_(gi);
  } else {
    Tensor g = reduced ? to(grad_out, acc, grad_out.device()) : grad_out;
    upsample_backward_stub.get(gi.device())(gi, contiguous(g), args);
  }
  return reduced ? to(gi, grad_out.dtype(), gi.device()) : gi;
}

Tensor native::upsample_aa_impl(const Tensor& input, const UpsampleAaArgs& args) {
  const DimVector os = {input.sizes()[0], input.sizes()[1], args.out[0], args.out[1]};
  const int64_t C = input.sizes()[1];
  if (input.device().is_cpu() && input.dtype() == ScalarType::Byte && (C == 3 || C == 4) &&
      !input.is_contiguous() && input.numel() > 0 &&
      input.strides() == channels_last_strides(input.sizes())) {
    Tensor out = empty_strided_dense(os, channels_last_strides(os), input.dtype(), input.device());
    UpsampleAaArgs a = args;
    a.channels_last = true;
    upsample_aa_stub.get(input.device())(out, input, a);
    return out;
  }
  Tensor out = make_empty(os, input.dtype(), input.device());
  if (out.numel() == 0) return out;
  upsample_aa_stub.get(input.device())(out, contiguous(input), args);
  return in_layout_of(out, {&input});
}

Tensor native::upsample_aa_backward(const Tensor& grad_out, const UpsampleAaArgs& args,
                                    IntArrayRef input_sizes) {
  Tensor gi = make_empty(input_sizes, grad_out.dtype(), grad_out.device());
  if (gi.numel() == 0) return gi;
  if (grad_out.numel() == 0) {
    zero_(gi);
    return gi;
  }
  upsample_aa_backward_stub.get(gi.device())(gi, contiguous(grad_out), args);
  return gi;
}

Tensor upsample(const Tensor& input, const std::string& mode_name, IntArrayRef output_size,
                bool align_corners, const std::vector<double>& scales, bool antialias) {
  int64_t dim = input.dim();
  int nd = static_cast<int>(dim) - 2;
  UpsampleMode mode;
  if (antialias) {
    // interpolate checked the mode and the rank in PyTorch's words; this guards the direct call
    MT_CHECK_VALUE(
        dim == 4 && (mode_name == "bilinear" || mode_name == "bicubic" || mode_name == "lanczos"),
        "Anti-alias option is restricted to bilinear, bicubic, and lanczos modes and requires a 4-D "
        "tensor as input");
    mode = mode_name == "bilinear" ? UpsampleMode::linear : UpsampleMode::cubic;
    bool aa_dtype = input.dtype() == ScalarType::Float || input.dtype() == ScalarType::Double ||
                    input.dtype() == ScalarType::Byte;
    MT_CHECK_NOT_IMPLEMENTED(aa_dtype, "\"compute_index_ranges_weights\" not implemented for '",
                             dtype_short_name(input.dtype()), "'");
  } else if (mode_name == "nearest")
    mode = UpsampleMode::nearest;
  else if (mode_name == "nearest-exact")
    mode = UpsampleMode::nearest_exact;
  else if ((mode_name == "linear" && nd == 1) || (mode_name == "bilinear" && nd == 2) ||
           (mode_name == "trilinear" && nd == 3))
    mode = UpsampleMode::linear;
  else if (mode_name == "bicubic" && nd == 2)
    mode = UpsampleMode::cubic;
  else
    MT_CHECK_NOT_IMPLEMENTED(false, "Input Error: Only 3D, 4D and 5D input Tensors supported (got ", dim,
                             "D) for the modes: nearest | linear | bilinear | bicubic | trilinear | area | "
                             "nearest-exact (got ",
                             mode_name, ")");
  MT_CHECK_NOT_IMPLEMENTED(nd >= 1 && nd <= 3,
                           "Input Error: Only 3D, 4D and 5D input Tensors supported (got ", dim,
                           "D) for the modes: nearest | linear | bilinear | bicubic | trilinear | area | "
                           "nearest-exact (got ",
                           mode_name, ")");
  bool nearest = mode == UpsampleMode::nearest || mode == UpsampleMode::nearest_exact;
  // uint8 bilinear/bicubic (4-D) runs as the separable primitive, as PyTorch's CPU kernel does
  bool separable_byte = input.dtype() == ScalarType::Byte && nd == 2 && !nearest;
  MT_CHECK_NOT_IMPLEMENTED(
      is_floating(input.dtype()) || (nearest && input.dtype() == ScalarType::Byte) || separable_byte, "\"",
      op_name(mode, nd), "\" not implemented for '", dtype_short_name(input.dtype()), "'");
  MT_CHECK(scales.empty() || static_cast<int>(scales.size()) == nd, "upsample: expected ", nd,
           " scale factors, got ", scales.size());
  int64_t in[3], out[3];
  for (int i = 0; i < nd; ++i) {
    in[i] = input.sizes()[2 + i];
    if (!output_size.empty()) {
      MT_CHECK(static_cast<int>(output_size.size()) == nd, "It is expected output_size equals to ", nd,
               ", but got size ", output_size.size());
      out[i] = output_size[i];
    } else {
      MT_CHECK(!scales.empty(), "Must specify exactly one of output_size and scale_factors");
      double o = static_cast<double>(in[i]) * scales[i];
      MT_CHECK(std::isfinite(o) && std::fabs(o) < 9.2e18, "upsample: output size ", o,
               " is out of range for input size ", in[i], " and scale factor ", scales[i]);
      out[i] = static_cast<int64_t>(o);  // truncation, as PyTorch's compute_output_size
    }
  }
  bool positive = true;
  for (int i = 0; i < nd; ++i) positive = positive && in[i] > 0 && out[i] > 0;
  if (!positive) {
    if (nd == 1)
      MT_ERROR("Input and output sizes should be greater than 0, but got input (", sizes_str(in, nd),
               ") and output (", sizes_str(out, nd), ")");
    MT_ERROR("Input and output sizes should be greater than 0, but got input (", sizes_str(in, nd),
             ") output (", sizes_str(out, nd), ")");
  }
  MT_CHECK(input.numel() != 0 || input.sizes()[1] != 0, "Non-empty ", dim,
           "D data tensor expected but got a tensor with sizes ", shape_str(input.sizes()));
  if (antialias || separable_byte) {
    UpsampleAaArgs aa;
    aa.filter = mode_name == "lanczos"   ? UpsampleAaFilter::lanczos
                : mode_name == "bicubic" ? UpsampleAaFilter::cubic
                                         : UpsampleAaFilter::linear;
    aa.antialias = antialias;
    aa.align_corners = align_corners;
    for (int i = 0; i < 2; ++i) {
      aa.in[i] = in[i];
      aa.out[i] = out[i];
      if (!scales.empty()) aa.scale[i] = scales[i];
    }
    return upsample_aa_impl(input, aa);
  }
  UpsampleArgs a;
  a.mode = mode;
  a.align_corners = align_corners;
  a.nd = nd;
  for (int i = 0; i < nd; ++i) {
    a.in[3 - nd + i] = in[i];
    a.out[3 - nd + i] = out[i];
    if (!scales.empty()) a.scale[3 - nd + i] = scales[i];
  }
  return upsample_impl(input, a);
}

}  // namespace mt
