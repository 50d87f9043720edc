// Convolution front ends: PyTorch's argument checks and messages, unbatched inputs, 'same'/'valid' padding,
// 1-d as 2-d with a unit height, then one 4-D primitive (and its two backward halves) through the kernels.
#include "ops/conv.h"

#include <algorithm>
#include <limits>

#include "core/FreshWrites.h"
#include "core/Parallel.h"
#include "core/SafeMath.h"
#include "core/TypeMeta.h"
#include "generated/native.h"
#include "ops/autocast.h"
#include "ops/complex.h"
#include "ops/copy.h"
#include "ops/elementwise.h"
#include "ops/factory.h"
#include "ops/layout.h"
#include "ops/linalg.h"
#include "ops/reduce.h"
#include "ops/shape.h"

namespace mt {

namespace {

void add_bias_(const Tensor& out, const std::optional<Tensor>& bias);

// One value per spatial dim from PyTorch's int-or-tuple argument.
DimVector expand_param(IntArrayRef v, int64_t nd, const char* name) {
  if (v.size() == 1) return DimVector(static_cast<size_t>(nd), v[0]);
  MT_CHECK(static_cast<int64_t>(v.size()) == nd, "expected ", name,
           " to be a single integer value or a list of ", nd,
           " values to match the convolution dimensions, but got ", name, "=", shape_str(v));
  DimVector r;
  for (int64_t x : v) r.push_back(x);
  return r;
}

}  // namespace

bool picks_onednn(ScalarType dtype, IntArrayRef in, IntArrayRef w, IntArrayRef stride, IntArrayRef dilation,
                  int64_t groups) {
  if (!onednn_conv_enabled()) return false;
  if (dtype == ScalarType::BFloat16) return true;
  if (dtype != ScalarType::Float || in.size() < 3 || w.size() < 3) return false;
  // PyTorch views a 1-d conv as 2-d (a height of 1) before choosing
  const bool one_d = in.size() == 3;
  const int64_t n = in[0], c = in[1], h = one_d ? 1 : in[2], wd = one_d ? in[2] : in[3];
  const int64_t kw = w[w.size() - 1], kh = one_d ? 1 : w[w.size() - 2];
  auto any_not_one = [](IntArrayRef v) {
    return std::any_of(v.begin(), v.end(), [](int64_t x) { return x != 1; });
  };
  const bool not_native_1x1 =
      any_not_one(stride) || any_not_one(dilation) || n >= 16 || kw != 1 || kh != 1 || get_num_threads() > 1;
  const bool big_enough = groups > 1 || (kw > 3 && kh > 3) || n > 1 || n * c * h * wd > 20480;
  return not_native_1x1 && big_enough;
}

namespace {

// PyTorch's CPU wording is its kernels' (oneDNN's where picks_onednn, the slow paths' "expected scalar type"
// otherwise); cuDNN's on CUDA. A transposed conv's bias of another dtype is cast by the native kernel (its
// result keeps the input's dtype) and refused by oneDNN (check_weight_dtype words it).
void check_bias_dtype(const Tensor& input, const Tensor& weight, std::optional<Tensor>& bias, bool transposed,
                      IntArrayRef stride, IntArrayRef dilation, int64_t groups) {
  if (!bias || bias->dtype() == input.dtype()) return;
  const bool cpu = input.device().is_cpu() && weight.device().is_cpu();
  const ScalarType t = input.dtype();
  const bool mkldnn = cpu && picks_onednn(t, input.sizes(), weight.sizes(), stride, dilation, groups);
  if (cpu && bias->device().is_cpu() && !(mkldnn && transposed)) {
    if (!transposed)
      MT_ERROR("Input type (", cpp_type_name(t), ") and bias type (", cpp_type_name(bias->dtype()),
               ") should be the same");
    MT_CHECK(is_floating(t) || !is_floating(bias->dtype()), "result type ", dtype_short_name(bias->dtype()),
             " can't be cast to the desired output type ", dtype_short_name(t));
    bias = to(*bias, t, bias->device());
  } else if (!(mkldnn && transposed)) {
    MT_ERROR("Input type (", error_type_name(t, input.is_cuda()), ") and bias type (",
             error_type_name(bias->dtype(), bias->is_cuda()), ") should be the same");
  }
}

void check_weight_dtype(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias,
                        IntArrayRef stride, IntArrayRef dilation, int64_t groups) {
  const bool cpu = input.device().is_cpu() && weight.device().is_cpu();
  const ScalarType t = input.dtype();
  auto mkldnn_error = [&](const Tensor& other, const char* what) {
    MT_ERROR("Input type (", error_type_name(t, false), ") and ", what, " type (",
             error_type_name(other.dtype(), false),
             ") should be the same or input should be a MKLDNN tensor and ", what, " is a dense tensor");
  };
  // a complex input is checked by PyTorch's complex path itself (the same-type message below)
  if (cpu && t != weight.dtype() && !is_complex(t)) {
    if (picks_onednn(t, input.sizes(), weight.sizes(), stride, dilation, groups))
      mkldnn_error(weight, "weight");
    MT_ERROR("expected scalar type ", dtype_short_name(t), " but found ", dtype_short_name(weight.dtype()));
  }
  MT_CHECK(t == weight.dtype() && input.device() == weight.device(), "Input type (",
           error_type_name(t, input.is_cuda()), ") and weight type (",
           error_type_name(weight.dtype(), weight.is_cuda()), ") should be the same");
  if (bias && bias->dtype() != t) mkldnn_error(*bias, "bias");  // a bfloat16 transpose's (others cast it)
  if (bias)
    MT_CHECK(input.device() == bias->device(), "Input type (", error_type_name(t, input.is_cuda()),
             ") and bias type (", error_type_name(bias->dtype(), bias->is_cuda()), ") should be the same");
}

// After the shape checks, as PyTorch: its kernels refuse other dtypes with NotImplementedError naming the
// kernel the arguments select. Its CPU kernels take integers: slow_conv2d every integer type but bool, the
// dilated and transposed ones int64 only. Returns whether the call takes the integer path (conv_int).
bool check_kernel_dtype(const Tensor& input, const DimVector& dilation, bool transposed) {
  bool dilated = false;
  for (int64_t d : dilation) dilated |= d != 1;
  const char* kernel = transposed ? "slow_conv_transpose2d_out"
                       : dilated  ? "slow_conv_dilated<>"
                                  : "slow_conv2d";
  const char* dev = transposed || !dilated ? (input.is_cuda() ? "_cuda" : "_cpu") : "";
  const ScalarType t = input.dtype();
  // an empty input reaches no kernel in PyTorch (its empty backend): every dtype passes, the integer path
  // making the empty result
  if (input.numel() == 0 && !is_inexact(t)) return true;
  if (is_complex(t)) return false;  // three real convolutions (complex_conv)
  const bool integer = input.device().is_cpu() && is_integral(t, false) &&
                       (t == ScalarType::Long || (!transposed && !dilated));
  MT_CHECK_NOT_IMPLEMENTED(is_floating(t) || integer, "\"", kernel, dev, "\" not implemented for '",
                           dtype_short_name(t), "'");
  return integer;
}

// x (N, C, H, W) with `lo`/`hi` zeros before/after each spatial dim; a negative amount crops.
Tensor pad_spatial(const Tensor& x, const DimVector& lo, const DimVector& hi) {
  DimVector sizes = x.sizes();
  Tensor src = x;
  for (int i = 0; i < 2; ++i) {
    const int64_t d = 2 + i;
    if (lo[i] < 0) src = narrow(src, d, -lo[i], src.sizes()[d] + lo[i]);
    if (hi[i] < 0) src = narrow(src, d, 0, src.sizes()[d] + hi[i]);
    sizes[d] = src.sizes()[d] + std::max<int64_t>(lo[i], 0) + std::max<int64_t>(hi[i], 0);
  }
  Tensor out = zeros(sizes, x.dtype(), x.device());
  copy_(narrow(narrow(out, 2, std::max<int64_t>(lo[0], 0), src.sizes()[2]), 3, std::max<int64_t>(lo[1], 0),
               src.sizes()[3]),
        src);
  return out;
}

// Integer convolution as PyTorch's CPU kernels compute it: exact, wrapping in the input's type. Products sum
// in int64 (its wrap-around maps onto every narrower type's) over the unfolded windows, one bmm per group.
Tensor conv_int(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias,
                const ConvArgs& a) {
  const DimVector padding{a.padding[0], a.padding[1]};
  const int64_t* stride = a.stride;
  const int64_t* dilation = a.dilation;
  Tensor x = pad_spatial(to(input, ScalarType::Long, input.device()), padding, padding);
  const int64_t n = x.sizes()[0], c = x.sizes()[1], hp = x.sizes()[2], wp = x.sizes()[3];
  const int64_t o = weight.sizes()[0], cg = weight.sizes()[1], kh = weight.sizes()[2], kw = weight.sizes()[3];
  const int64_t oh = (hp - dilation[0] * (kh - 1) - 1) / stride[0] + 1;
  const int64_t ow = (wp - dilation[1] * (kw - 1) - 1) / stride[1] + 1;
  const int64_t g = a.groups, og = o / g;
  Tensor win = make_view(
      x, {n, g, cg, oh, ow, kh, kw},
      {c * hp * wp, cg * hp * wp, hp * wp, stride[0] * wp, stride[1], dilation[0] * wp, dilation[1]}, 0);
  Tensor cols = reshape(permute(win, {1, 0, 3, 4, 2, 5, 6}), {g, n * oh * ow, cg * kh * kw});
  Tensor w = transpose(reshape(to(weight, ScalarType::Long, weight.device()), {g, og, cg * kh * kw}), 1, 2);
  Tensor out = reshape(permute(reshape(bmm(cols, w), {g, n, oh, ow, og}), {1, 0, 4, 2, 3}), {n, o, oh, ow});
  out = to(out, input.dtype(), input.device());
  add_bias_(out, bias);
  return out;
}

// int64 conv_transpose as the direct convolution it is: the input spread out by stride, padded by
// dilation*(k-1) - padding before (negative crops) and up to the output size after, convolved with the
// flipped weight whose in/out channels swap within each group.
Tensor conv_transpose_int(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias,
                          const ConvArgs& a, IntArrayRef out_sizes) {
  const int64_t n = input.sizes()[0], cin = input.sizes()[1], h = input.sizes()[2], w = input.sizes()[3];
  const int64_t og = weight.sizes()[1], kh = weight.sizes()[2], kw = weight.sizes()[3], g = a.groups;
  const int64_t sh = (h - 1) * a.stride[0] + 1, sw = (w - 1) * a.stride[1] + 1;
  Tensor spread = zeros({n, cin, sh, sw}, input.dtype(), input.device());
  copy_(make_view(spread, {n, cin, h, w}, {cin * sh * sw, sh * sw, a.stride[0] * sw, a.stride[1]}, 0), input);
  DimVector lo, hi;
  for (int i = 0; i < 2; ++i) {
    const int64_t reach = a.dilation[i] * (weight.sizes()[2 + i] - 1);
    lo.push_back(reach - a.padding[i]);
    hi.push_back(out_sizes[2 + i] + reach - (i == 0 ? sh : sw) - lo.back());
  }
  Tensor xs = pad_spatial(spread, lo, hi);
  Tensor wt = transpose(reshape(weight, {g, cin / g, og, kh, kw}), 1, 2);
  wt = flip(reshape(wt, {g * og, cin / g, kh, kw}), {2, 3});
  ConvArgs direct = a;
  direct.stride[0] = direct.stride[1] = 1;
  direct.padding[0] = direct.padding[1] = 0;
  return conv_int(xs, wt, bias, direct);
}

// Everything PyTorch's check_shape_forward checks, on the batched input, in its order and words.
void check_conv_shapes(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias,
                       const DimVector& stride, const DimVector& padding, const DimVector& dilation,
                       int64_t groups, bool transposed, const DimVector& output_padding) {
  int64_t nd = static_cast<int64_t>(stride.size());
  for (int64_t p : padding) MT_CHECK(p >= 0, "negative padding is not supported");
  for (int64_t p : output_padding) MT_CHECK(p >= 0, "negative output_padding is not supported");
  for (int64_t s : stride) MT_CHECK(s > 0, "non-positive stride is not supported");
  for (int64_t d : dilation) MT_CHECK(d > 0, "dilation should be greater than zero");
  MT_CHECK(groups > 0, "non-positive groups is not supported");
  const DimVector& ws = weight.sizes();
  MT_CHECK(weight.dim() == input.dim(), "Expected ", weight.dim(), "-dimensional input for ", weight.dim(),
           "-dimensional weight ", shape_str(ws), ", but got ", input.dim(), "-dimensional input of size ",
           shape_str(input.sizes()), " instead");
  MT_CHECK(ws[0] >= groups, "Given groups=", groups, ", expected weight to be at least ", groups,
           " at dimension 0, but got weight of size ", shape_str(ws), " instead");
  MT_CHECK(ws[0] % groups == 0, "Given groups=", groups, ", expected weight to be divisible by ", groups,
           " at dimension 0, but got weight of size ", shape_str(ws), " instead");
  if (!transposed) {
    MT_CHECK(input.sizes()[1] == ws[1] * groups, "Given groups=", groups, ", weight of size ", shape_str(ws),
             ", expected input", shape_str(input.sizes()), " to have ", ws[1] * groups, " channels, but got ",
             input.sizes()[1], " channels instead");
    MT_CHECK(!bias || (bias->dim() == 1 && bias->sizes()[0] == ws[0]), "Given weight of size ", shape_str(ws),
             ", expected bias to be 1-dimensional with ", ws[0], " elements, but got bias of size ",
             shape_str(bias->sizes()), " instead");
    DimVector padded, kernel;
    bool too_big = false;
    for (int64_t i = 0; i < nd; ++i) {
      // input + 2 * padding past int64 (padding=2**62, found by UBSan): PyTorch's bound on padding
      int64_t twice = 0, p = 0;
      MT_CHECK(!mul_overflows(2, padding[i], &twice) && !add_overflows(input.sizes()[2 + i], twice, &p),
               "Given padding=", padding[i], " at dimension ", i, " , expected padding to be at most ",
               std::numeric_limits<int64_t>::max() / 2);
      padded.push_back(p);
      kernel.push_back(dilation[i] * (ws[2 + i] - 1) + 1);
      too_big = too_big || padded.back() < kernel.back();
    }
    if (too_big) {
      std::string ps, ks;
      for (int64_t i = 0; i < nd; ++i) {
        ps += (i ? " x " : "") + std::to_string(padded[i]);
        ks += (i ? " x " : "") + std::to_string(kernel[i]);
      }
      MT_ERROR("Calculated padded input size per channel: (", ps, "). Kernel size: (", ks,
               "). Kernel size can't be greater than actual input size");
    }
  } else {
    MT_CHECK(input.sizes()[1] == ws[0], "Given transposed=1, weight of size ", shape_str(ws),
             ", expected input", shape_str(input.sizes()), " to have ", ws[0], " channels, but got ",
             input.sizes()[1], " channels instead");
    MT_CHECK(!bias || (bias->dim() == 1 && bias->sizes()[0] == ws[1] * groups),
             "Given transposed=1, weight of size ", shape_str(ws),
             ", expected bias to be 1-dimensional with ", ws[1] * groups, " elements, but got bias of size ",
             shape_str(bias->sizes()), " instead");
    for (int64_t i = 0; i < nd; ++i)
      MT_CHECK(output_padding[i] < stride[i] || output_padding[i] < dilation[i],
               "output padding must be smaller than either stride or dilation, but got output_padding=",
               shape_str(output_padding), ", stride=", shape_str(stride), ", dilation=", shape_str(dilation));
  }
}

// ATen's refusal of an empty input with a batch and channels (a zero-size spatial dim under a kernel of size
// zero gets past the shape checks), naming the input as its kernels see it: 1-d lifted to 2-d, batched.
void check_empty_input(const Tensor& input, int64_t nd) {
  if (input.numel() != 0 || input.sizes()[0] == 0 || input.sizes()[1] == 0) return;
  DimVector s = input.sizes();
  if (nd == 1) s.insert(2, 1);
  MT_ERROR("Only zero batch or zero channel inputs are supported, but got input shape: ", shape_str(s));
}

// PyTorch's empty-input backend multiplies instead of convolving (its ConvBackend::Empty): no kernel refuses
// a weight of another dtype, and the result takes the product's dtype: the whole weight's promotion with a
// zero-channel input, the first element's (a 0-d operand) otherwise. The input and weight are cast to it
// (differentiable casts: the gradients still reach both), with the bias, before the usual path.
void empty_backend_dtypes(Tensor& input, Tensor& weight, std::optional<Tensor>& bias) {
  if (input.numel() != 0 || input.dtype() == weight.dtype() || input.device() != weight.device()) return;
  const ScalarType dt = input.sizes()[1] == 0
                            ? promote_types(input.dtype(), weight.dtype())
                            : result_type(input, as_strided(weight, {}, {}, weight.storage_offset()));
  input = to(input, dt, input.device());
  weight = to(weight, dt, weight.device());
  if (bias) bias = to(*bias, dt, bias->device());  // added in place to the product: input's dtype promoted
}

// PyTorch's complex convolution: three real ones over the parts (Gauss's trick, its complex_convolution),
// (a + ib) * (c + id) = (ac - bd) + i((a + b)(c + d) - ac - bd), the bias's parts added after. Composed of
// differentiable ops, so gradients (and every device) come with it. `conv` is the real convolution.
template <typename Conv>
Tensor complex_conv(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias, Conv conv) {
  const Tensor ir = real(input), ii = imag(input), wr = real(weight), wi = imag(weight);
  const Tensor a = conv(ir, wr), b = conv(ii, wi), c = conv(add(ir, ii), add(wr, wi));
  Tensor re = sub(a, b), im = sub(sub(c, a), b);
  if (bias) {
    DimVector shape(static_cast<size_t>(re.dim()), 1);
    shape[1] = -1;
    re = add(re, reshape(real(*bias), shape));
    im = add(im, reshape(imag(*bias), shape));
  }
  return complex(re, im);
}

ConvArgs make_args(const DimVector& stride, const DimVector& padding, const DimVector& dilation,
                   int64_t groups) {
  ConvArgs a;
  int64_t nd = static_cast<int64_t>(stride.size());
  // 1-d convs run as 2-d with a unit height: the first spatial dim gets the identity parameters
  for (int64_t i = 0; i < nd; ++i) {
    a.stride[2 - nd + i] = stride[i];
    a.padding[2 - nd + i] = padding[i];
    a.dilation[2 - nd + i] = dilation[i];
  }
  a.groups = groups;
  return a;
}

// (N, C, L) -> (N, C, 1, L) for the 1-d ops; 2-d tensors pass through.
Tensor to4d(const Tensor& t, int64_t nd) {
  return nd == 1 ? unsqueeze(t, 2) : t;
}

const char* conv_name(int64_t nd, bool transposed) {
  if (transposed) return nd == 1 ? "conv_transpose1d" : "conv_transpose2d";
  return nd == 1 ? "conv1d" : "conv2d";
}

// The batch dim PyTorch's conv adds to an unbatched input (and drops from the result).
bool batchify(const Tensor& input, int64_t nd, const char* name) {
  int64_t d = input.dim();
  bool ok = d == nd + 1 || d == nd + 2;
  if (!ok) {
    if (nd == 1)
      MT_ERROR("Expected 2D (unbatched) or 3D (batched) input to ", name,
               ", but got input of size: ", shape_str(input.sizes()));
    MT_ERROR("Expected 3D (unbatched) or 4D (batched) input to ", name,
             ", but got input of size: ", shape_str(input.sizes()));
  }
  return d == nd + 2;
}

Tensor conv_nd(const Tensor& input_, const Tensor& weight_, const std::optional<Tensor>& bias,
               IntArrayRef stride_, IntArrayRef padding_, IntArrayRef dilation_, int64_t groups, int64_t nd,
               bool same) {
  if (autocast::active()) {
    autocast::Scope s(nd == 1 ? autocast::Op::conv1d : autocast::Op::conv2d);
    return conv_nd(s(input_), s(weight_), s(bias), stride_, padding_, dilation_, groups, nd, same);
  }
  Tensor weight = weight_;  // the empty backend may cast it (empty_backend_dtypes)
  const char* name = conv_name(nd, false);
  bool batched = batchify(input_, nd, name);
  Tensor input = batched ? input_ : unsqueeze(input_, 0);
  DimVector stride = expand_param(stride_, nd, "stride"), dilation = expand_param(dilation_, nd, "dilation");
  DimVector padding;
  // 'same': total padding d*(k-1) per dim; when odd, the extra goes after (bottom/right) as in PyTorch,
  // done here as one more on both sides and the first output row/column dropped (stride is 1).
  SmallVector<bool, 2> drop_first;
  if (same) {
    for (int64_t s : stride) MT_CHECK(s == 1, "padding='same' is not supported for strided convolutions");
    MT_CHECK(weight.dim() == nd + 2, "Expected ", nd + 2, "-dimensional weight for padding='same', got ",
             weight.dim(), "-dimensional weight of size ", shape_str(weight.sizes()));
    for (int64_t i = 0; i < nd; ++i) {
      int64_t total =
          dilation.size() == static_cast<size_t>(nd) ? dilation[i] * (weight.sizes()[2 + i] - 1) : 0;
      padding.push_back(total - total / 2);
      drop_first.push_back(total % 2 == 1);
    }
  } else {
    padding = expand_param(padding_, nd, "padding");
  }
  // PyTorch's order: the bias's dtype, the shapes, its kernel's refusal of an input dtype (bool), the
  // weight's
  std::optional<Tensor> b = bias;
  check_bias_dtype(input, weight, b, false, stride, dilation, groups);
  check_conv_shapes(input, weight, b, stride, padding, dilation, groups, false, {});
  check_empty_input(input, nd);
  empty_backend_dtypes(input, weight, b);
  const bool integer = check_kernel_dtype(input, dilation, false);
  check_weight_dtype(input, weight, b, stride, dilation, groups);
  if (is_complex(input.dtype())) {
    Tensor out = complex_conv(input, weight, b, [&](const Tensor& x, const Tensor& w) {
      return conv_nd(x, w, std::nullopt, stride_, padding_, dilation_, groups, nd, same);
    });
    return batched ? out : squeeze(out, {0});
  }
  const ConvArgs args = make_args(stride, padding, dilation, groups);
  Tensor out = integer ? conv_int(to4d(input, nd), to4d(weight, nd), b, args)
                       : convolution(to4d(input, nd), to4d(weight, nd), b, args);
  if (nd == 1) out = squeeze(out, {2});
  // the empty backend's product with a zero-channel input has no channels either
  if (input.sizes()[1] == 0) out = slice(out, 1, 0, 0, 1);
  for (int64_t i = 0; i < static_cast<int64_t>(drop_first.size()); ++i)
    if (drop_first[i]) out = slice(out, 2 + i, 1, out.sizes()[2 + i], 1);
  return batched ? out : squeeze(out, {0});
}

Tensor conv_transpose_nd(const Tensor& input_, const Tensor& weight_, const std::optional<Tensor>& bias,
                         IntArrayRef stride_, IntArrayRef padding_, IntArrayRef output_padding_,
                         int64_t groups, IntArrayRef dilation_, int64_t nd) {
  if (autocast::active()) {
    autocast::Scope s(nd == 1 ? autocast::Op::conv_transpose1d : autocast::Op::conv_transpose2d);
    return conv_transpose_nd(s(input_), s(weight_), s(bias), stride_, padding_, output_padding_, groups,
                             dilation_, nd);
  }
  Tensor weight = weight_;  // the empty backend may cast it (empty_backend_dtypes)
  const char* name = conv_name(nd, true);
  bool batched = batchify(input_, nd, name);
  Tensor input = batched ? input_ : unsqueeze(input_, 0);
  DimVector stride = expand_param(stride_, nd, "stride"), padding = expand_param(padding_, nd, "padding");
  DimVector dilation = expand_param(dilation_, nd, "dilation");
  DimVector output_padding = expand_param(output_padding_, nd, "output_padding");
  std::optional<Tensor> b = bias;  // the order of conv_nd's checks
  check_bias_dtype(input, weight, b, true, stride, dilation, groups);
  check_conv_shapes(input, weight, b, stride, padding, dilation, groups, true, output_padding);
  check_empty_input(input, nd);
  empty_backend_dtypes(input, weight, b);
  const bool integer = check_kernel_dtype(input, dilation, true);
  check_weight_dtype(input, weight, b, stride, dilation, groups);
  if (is_complex(input.dtype())) {
    Tensor out = complex_conv(input, weight, b, [&](const Tensor& x, const Tensor& w) {
      return conv_transpose_nd(x, w, std::nullopt, stride_, padding_, output_padding_, groups, dilation_, nd);
    });
    return batched ? out : squeeze(out, {0});
  }
  DimVector out_sizes = {input.sizes()[0], weight.sizes()[1] * groups};
  if (nd == 1) out_sizes.push_back(1);
  bool small = false;
  for (int64_t i = 0; i < nd; ++i) {
    wide_int w = (wide_int(input.sizes()[2 + i]) - 1) * stride[i] - 2 * wide_int(padding[i]) +
                 wide_int(dilation[i]) * (weight.sizes()[2 + i] - 1) + output_padding[i] + 1;
    MT_CHECK(fits_int64(w), "conv_transpose: the output size overflows (stride ", stride[i], ", padding ",
             padding[i], ", dilation ", dilation[i], ")");
    int64_t o = static_cast<int64_t>(w);
    small = small || o < 1;
    out_sizes.push_back(o);
  }
  if (small) {
    DimVector in_sp(input.sizes().begin() + 2, input.sizes().end()),
        out_sp(out_sizes.end() - nd, out_sizes.end());
    MT_ERROR("Given input size per channel: ", shape_str(in_sp),
             ". Calculated output size per channel: ", shape_str(out_sp), ". Output size is too small");
  }
  const ConvArgs args = make_args(stride, padding, dilation, groups);
  Tensor out = integer ? conv_transpose_int(to4d(input, nd), to4d(weight, nd), b, args, out_sizes)
                       : convolution_transpose(to4d(input, nd), to4d(weight, nd), b, args, out_sizes);
  if (nd == 1) out = squeeze(out, {2});
  return batched ? out : squeeze(out, {0});
}

DimVector conv_out_sizes(const Tensor& input, const Tensor& weight, const ConvArgs& a) {
  DimVector s = {input.sizes()[0], weight.sizes()[0]};
  for (int i = 0; i < 2; ++i) {
    wide_int o = (wide_int(input.sizes()[2 + i]) + 2 * wide_int(a.padding[i]) -
                  wide_int(a.dilation[i]) * (weight.sizes()[2 + i] - 1) - 1) /
                     a.stride[i] +
                 1;
    // out of int64 only for absurd padding or dilation; then as "too small" as PyTorch's check reports
    s.push_back(fits_int64(o) ? static_cast<int64_t>(o) : (o < 0 ? -1 : std::numeric_limits<int64_t>::max()));
  }
  return s;
}

// cuDNN's kernel when it is registered for the device and enabled, else the device's own.
template <typename Fn>
Fn pick_kernel(const DispatchStub<Fn>& cudnn, const DispatchStub<Fn>& native, Device d) {
  Fn f = cudnn.fns[static_cast<int>(d.type)];
  if (f && cudnn_flags().enabled) return f;
  if (f && !native.fns[static_cast<int>(d.type)])
    MT_ERROR("convolution on ", d.is_cuda() ? "CUDA" : "CPU",
             " needs cuDNN here, but torch.backends.cudnn.enabled is False");
  return native.get(d);
}

void add_bias_(const Tensor& out, const std::optional<Tensor>& bias) {
  if (!bias || out.numel() == 0) return;
  binary_(BinaryOp::add, out, view(*bias, {1, bias->sizes()[0], 1, 1}));
}

}  // namespace

Tensor native::convolution(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias,
                           const ConvArgs& args) {
  DimVector os = conv_out_sizes(input, weight, args);
  Tensor out = make_empty(os, input.dtype(), input.device());
  if (out.numel() == 0) return out;
  if (weight.sizes()[1] == 0 || weight.numel() == 0) {  // no input channels: an empty sum
    FreshWrites fresh;
    zero_(out);
  } else {
    pick_kernel(cudnn_conv_forward_stub, conv_forward_stub, input.device())(out, contiguous(input),
                                                                            contiguous(weight), args);
  }
  add_bias_(out, bias);
  return in_layout_of(out, {&input, &weight});
}

Tensor convolution_backward_input(const Tensor& grad_out, const Tensor& weight, IntArrayRef input_sizes,
                                  const ConvArgs& args) {
  Tensor gi = make_empty(input_sizes, grad_out.dtype(), grad_out.device());
  if (gi.numel() == 0) return gi;
  if (grad_out.numel() == 0 || weight.numel() == 0) return zero_(gi), gi;
  pick_kernel(cudnn_conv_backward_input_stub, conv_backward_input_stub, gi.device())(
      gi, contiguous(grad_out), contiguous(weight), args);
  return gi;
}

Tensor native::convolution_backward_weight(const Tensor& grad_out, const Tensor& input,
                                           IntArrayRef weight_sizes, const ConvArgs& args) {
  Tensor gw = make_empty(weight_sizes, grad_out.dtype(), grad_out.device());
  if (gw.numel() == 0) return gw;
  if (grad_out.numel() == 0 || input.numel() == 0) return zero_(gw), gw;
  pick_kernel(cudnn_conv_backward_weight_stub, conv_backward_weight_stub, gw.device())(
      gw, contiguous(grad_out), contiguous(input), args);
  return gw;
}

Tensor native::convolution_transpose(const Tensor& input, const Tensor& weight,
                                     const std::optional<Tensor>& bias, const ConvArgs& args,
                                     IntArrayRef out_sizes) {
  Tensor out = convolution_backward_input(input, weight, out_sizes, args);
  add_bias_(out, bias);
  return in_layout_of(out, {&input, &weight});
}

Tensor conv2d(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias,
              IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation, int64_t groups) {
  return conv_nd(input, weight, bias, stride, padding, dilation, groups, 2, false);
}
Tensor conv1d(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias,
              IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation, int64_t groups) {
  return conv_nd(input, weight, bias, stride, padding, dilation, groups, 1, false);
}

namespace {
bool parse_padding_string(const std::string& p) {
  if (p == "same") return true;
  if (p == "valid") return false;
  MT_ERROR("Invalid padding string: '", p, "'");
}
}  // namespace

Tensor conv2d(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias,
              IntArrayRef stride, const std::string& padding, IntArrayRef dilation, int64_t groups) {
  bool same = parse_padding_string(padding);
  const int64_t zero = 0;
  return conv_nd(input, weight, bias, stride, IntArrayRef(&zero, 1), dilation, groups, 2, same);
}
Tensor conv1d(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias,
              IntArrayRef stride, const std::string& padding, IntArrayRef dilation, int64_t groups) {
  bool same = parse_padding_string(padding);
  const int64_t zero = 0;
  return conv_nd(input, weight, bias, stride, IntArrayRef(&zero, 1), dilation, groups, 1, same);
}

Tensor conv_transpose2d(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias,
                        IntArrayRef stride, IntArrayRef padding, IntArrayRef output_padding, int64_t groups,
                        IntArrayRef dilation) {
  return conv_transpose_nd(input, weight, bias, stride, padding, output_padding, groups, dilation, 2);
}
Tensor conv_transpose1d(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias,
                        IntArrayRef stride, IntArrayRef padding, IntArrayRef output_padding, int64_t groups,
                        IntArrayRef dilation) {
  return conv_transpose_nd(input, weight, bias, stride, padding, output_padding, groups, dilation, 1);
}

}  // namespace mt
