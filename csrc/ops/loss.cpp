// Loss front ends: PyTorch's argument checks and shape rules, then the fused class-loss kernels or a
// composite of elementwise ops and reductions.
#include "ops/loss.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/FreshWrites.h"
#include "core/GradMode.h"
#include "core/TensorIterator.h"
#include "core/TypeMeta.h"
#include "generated/native.h"
#include "ops/autocast.h"
#include "ops/complex.h"
#include "ops/copy.h"
#include "ops/elementwise.h"
#include "ops/factory.h"
#include "ops/layout.h"
#include "ops/reduce.h"
#include "ops/shape.h"

namespace mt {

Reduction parse_reduction(const std::string& s) {
  if (s == "mean") return Reduction::Mean;
  if (s == "sum") return Reduction::Sum;
  if (s == "none") return Reduction::None;
  if (s == "elementwise_mean") {  // PyTorch's get_enum still takes its old spelling of mean
    warn("reduction='elementwise_mean' is deprecated. Please use reduction='mean' instead.");
    return Reduction::Mean;
  }
  MT_CHECK_VALUE(false, s, " is not a valid value for reduction");
  return Reduction::Mean;
}

namespace {

Tensor S(double v) {
  return wrapped_scalar(Scalar(v));
}

ScalarType opmath_type(ScalarType t) {
  return t == ScalarType::Double ? ScalarType::Double : ScalarType::Float;
}

// "torch.Size([2, 3])", as PyTorch's Python-side messages print sizes.
std::string torch_size(IntArrayRef s) {
  return "torch.Size(" + shape_str(s) + ")";
}

void check_same_device(const Tensor& a, const Tensor& b) {
  MT_CHECK(!b.defined() || a.device() == b.device(),
           "Expected all tensors to be on the same device, but found at least two devices, ",
           a.device().str(), " and ", b.device().str(), "!");
}

Tensor apply_reduction(const Tensor& loss, Reduction r) {
  switch (r) {
    case Reduction::Mean:
      return mean(loss, {}, false);
    case Reduction::Sum:
      return sum(loss, {}, false);
    default:
      return loss;
  }
}

// Everything the class-loss kernels need, validated: geometry, contiguous operands, the 'none' output shape.
struct ClassLossPlan {
  ClassLossGeometry g;
  Tensor x, t, w;
  DimVector out_shape;
};

ClassLossPlan plan_class_loss(const Tensor& input, const Tensor& target_in, const Tensor& weight,
                              const ClassLossOptions& opt) {
  Tensor target = target_in;
  const bool prob = opt.kind == ClassLossKind::ce_prob;
  const bool ce = opt.kind != ClassLossKind::nll;
  check_same_device(input, target);
  check_same_device(input, weight);
  // cross_entropy of a 0-d input: a 0-d target is probabilities (same shape), any other makes ATen read the
  // input's class dim 1
  if (ce && input.dim() == 0) {
    MT_CHECK_INDEX(target.dim() == 0,
                   "Dimension out of range (expected to be in range of [-1, 0], but got 1)");
    MT_CHECK(is_floating(target.dtype()),
             "Expected floating point type for target with class probabilities, got ",
             dtype_short_name(target.dtype()));
  }
  MT_CHECK_VALUE(input.dim() >= 1, "Expected 1 or more dimensions (got ", input.dim(), ")");
  // cross_entropy's log_softmax meets the input's dtype first; nll_loss's kernel after the target's checks
  auto check_input_dtype = [&](const char* kernel) {
    MT_CHECK_NOT_IMPLEMENTED(is_floating(input.dtype()), "\"", kernel, "\" not implemented for '",
                             dtype_short_name(input.dtype()), "'");
  };
  // an empty input's log_softmax returns before its kernel's dtype check: the nll kernel's check meets it
  // (softmax over dim 1 is the last-dim kernel only when dim 1 is the last)
  if (ce && input.numel() > 0)
    check_input_dtype(input.dim() <= 2 ? "log_softmax_lastdim_kernel_impl" : "log_softmax_kernel_impl");
  ClassLossPlan p;
  const int64_t nd = input.dim();
  p.g.outer = nd == 1 ? 1 : input.sizes()[0];
  p.g.classes = nd == 1 ? input.sizes()[0] : input.sizes()[1];
  p.g.inner = 1;
  for (int64_t d = 2; d < nd; ++d) p.g.inner *= input.sizes()[d];
  if (prob) {
    MT_CHECK(is_floating(target.dtype()),
             "Expected floating point type for target with class probabilities, got ",
             dtype_short_name(target.dtype()));
    MT_CHECK(opt.ignore_index < 0, "ignore_index is not supported for floating point target");
    MT_CHECK(opt.label_smoothing >= 0.0 && opt.label_smoothing <= 1.0,
             "label_smoothing must be between 0.0 and 1.0. Got: ", opt.label_smoothing);
    MT_CHECK(!weight.defined() || (weight.dim() == 1 && weight.numel() == p.g.classes),
             "cross_entropy: weight tensor should be defined either for all ", p.g.classes,
             " classes or no classes but got weight tensor of shape: ", shape_str(weight.sizes()));
    for (int64_t d = 0; d < nd; ++d)
      if (d != (nd == 1 ? 0 : 1)) p.out_shape.push_back(input.sizes()[d]);
  } else {
    // PyTorch's order: nll_loss_nd's batch sizes, then the target's dtype (int64 or uint8 in 2.15), then the
    // shapes; the spatial kernel (input of 3 or more dims) reads int64 only, after them (below)
    // shapes. A 0-d target's batch size is read past its (empty) sizes there: 0 in practice, so a batched
    // input of N > 0 refuses it as a mismatch and one of N = 0 meets the next shape check of its rank
    const int64_t target_batch = target.dim() == 0 ? 0 : target.sizes()[0];
    MT_CHECK_VALUE(nd == 1 || input.sizes()[0] == target_batch, "Expected input batch_size (",
                   input.sizes()[0], ") to match target batch_size (", target_batch, ").");
    // nll_loss2d (4-d input) wants a 3-d target before the dtype; ranks 3 and 5+ slice the target's sizes
    MT_CHECK(nd != 4 || target.dim() == 3,
             "only batches of spatial targets supported (3D tensors) but got targets of dimension: ",
             target.dim());
    MT_CHECK(nd < 3 || target.dim() > 0, "ArrayRef: invalid slice, N = 1; size = 0");
    MT_CHECK(target.dtype() == ScalarType::Long || target.dtype() == ScalarType::Byte,
             "expected target dtype to be Long or Byte, but got ", dtype_short_name(target.dtype()));
    MT_CHECK_INDEX(nd != 2 || target.dim() > 0, "Dimension specified as 0 but tensor has no dimensions");
    if (nd <= 2 && target.dtype() == ScalarType::Byte) target = to(target, ScalarType::Long, target.device());
    // one sample without a batch dim may come with its class index as a one-element vector (PyTorch 2.15)
    if (nd == 1 && target.dim() == 1) {
      MT_CHECK_VALUE(target.sizes()[0] == 1,
                     "For 1D input, 1D target must have size 1, but got target size: ", target.sizes()[0]);
      target = reshape(target, {});
    }
    if (nd <= 2) {
      MT_CHECK(target.dim() <= 1, "0D or 1D target tensor expected, multi-target not supported");
      bool no_batch_dim = nd == 1 && target.dim() == 0;
      MT_CHECK(no_batch_dim || (nd == 2 && target.dim() == 1 && input.sizes()[0] == target.sizes()[0]),
               "size mismatch (got input: ", shape_str(input.sizes()),
               ", target: ", shape_str(target.sizes()), ")");
    } else if (nd == 4) {  // nll_loss2d's own checks and wording: the weight's count, then the shapes
      MT_CHECK(!weight.defined() || weight.numel() == p.g.classes,
               "weight tensor should be defined either for all or no classes");
      MT_CHECK(input.sizes()[0] == target.sizes()[0] && input.sizes()[2] == target.sizes()[1] &&
                   input.sizes()[3] == target.sizes()[2],
               "size mismatch (got input: ", shape_str(input.sizes()),
               " , target: ", shape_str(target.sizes()));
    } else {
      DimVector expect{input.sizes()[0]};
      for (int64_t d = 2; d < nd; ++d) expect.push_back(input.sizes()[d]);
      MT_CHECK(IntArrayRef(expect).equals(target.sizes()), "Expected target size ", shape_str(expect),
               ", got ", shape_str(target.sizes()));
    }
    if (!ce || input.numel() == 0)
      check_input_dtype(nd >= 3 ? "nll_loss2d_forward_out_frame" : "nll_loss_out_frame");
    MT_CHECK(target.dtype() == ScalarType::Long, "expected scalar type Long but found ",
             dtype_short_name(target.dtype()));
    MT_CHECK(!weight.defined() || (weight.dim() == 1 && weight.numel() == p.g.classes),
             "weight tensor should be defined either for all ", p.g.classes,
             " classes or no classes but got weight tensor of shape: ", shape_str(weight.sizes()));
    // PyTorch's nll kernel reads the weight as the input's scalar type
    MT_CHECK(!weight.defined() || weight.dtype() == input.dtype(), "expected scalar type ",
             dtype_short_name(input.dtype()), " but found ", dtype_short_name(weight.dtype()));
    p.out_shape = target.sizes();
  }
  p.x = contiguous(input);
  p.t = contiguous(prob && target.dtype() != input.dtype() ? to(target, input.dtype(), input.device())
                                                           : target);
  if (weight.defined())
    p.w = contiguous(weight.dtype() == input.dtype() ? weight : to(weight, input.dtype(), input.device()));
  return p;
}

}  // namespace

ClassLossKind cross_entropy_kind(const Tensor& input, const Tensor& target) {
  return input.sizes().size() == target.sizes().size() && IntArrayRef(input.sizes()).equals(target.sizes())
             ? ClassLossKind::ce_prob
             : ClassLossKind::ce_index;
}

std::tuple<Tensor, Tensor, Tensor> class_loss_forward(const Tensor& input, const Tensor& target,
                                                      const Tensor& weight, const ClassLossOptions& opt,
                                                      bool for_backward) {
  ClassLossPlan p = plan_class_loss(input, target, weight, opt);
  const ScalarType dt = input.dtype();
  const Device dev = input.device();
  const int64_t rows = p.g.outer * p.g.inner;
  Tensor out = opt.reduction == Reduction::None ? make_empty(p.out_shape, dt, dev) : make_empty({}, dt, dev);
  Tensor stats, total_weight;
  if (for_backward && opt.kind != ClassLossKind::nll) stats = make_empty({rows, 3}, opmath_type(dt), dev);
  if (for_backward || opt.reduction == Reduction::Mean) total_weight = make_empty({}, opmath_type(dt), dev);
  if (rows == 0) {
    // PyTorch: the sum over no samples is 0 and their mean 0/0
    FreshWrites fresh;
    if (opt.reduction != Reduction::None)
      fill_(out, Scalar(opt.reduction == Reduction::Mean ? std::numeric_limits<double>::quiet_NaN() : 0.0));
    if (total_weight.defined()) fill_(total_weight, Scalar(0.0));
    return {out, stats, total_weight};
  }
  class_loss_forward_stub.get(dev)(out, stats, total_weight, p.x, p.t, p.w, p.g, opt);
  return {out, stats, total_weight};
}

std::tuple<Tensor, Tensor> class_loss_backward(const Tensor& grad, const Tensor& input, const Tensor& target,
                                               const Tensor& weight, const Tensor& stats,
                                               const Tensor& total_weight, const ClassLossOptions& opt,
                                               bool need_input, bool need_target) {
  ClassLossPlan p = plan_class_loss(input, target, weight, opt);
  const ScalarType dt = input.dtype();
  const Device dev = input.device();
  Tensor gi = need_input ? make_empty(input.sizes(), dt, dev) : Tensor();
  Tensor gt =
      need_target && opt.kind == ClassLossKind::ce_prob ? make_empty(input.sizes(), dt, dev) : Tensor();
  if (!gi.defined() && !gt.defined()) return {gi, gt};
  if (input.numel() == 0) return {gi, gt};
  // the incoming gradient may be expanded (a sum's backward) or of another dtype: the kernel reads it dense
  Tensor g = contiguous(grad.dtype() == dt && grad.device() == dev ? grad : to(grad, dt, dev));
  class_loss_backward_stub.get(dev)(gi, gt, g, p.x, p.t, p.w, stats, total_weight, p.g, opt);
  return {gi, gt};
}

Tensor native::class_loss(const Tensor& input, const Tensor& target, const std::optional<Tensor>& weight,
                          const ClassLossOptions& opt) {
  return std::get<0>(class_loss_forward(input, target, weight ? *weight : Tensor(), opt, false));
}

namespace {

// PyTorch's cross_entropy with class probabilities written out: -(log_softmax(x) * t * w) summed over the
// class dim, the mean dividing by the number of samples (numel / classes). The fused kernel covers the common
// case; this covers operands of several dtypes (the result is their result_type, log_softmax stays in the
// input's), a weight that requires grad (it gets its gradient) and zero classes (mean nan, sum -0).
Tensor cross_entropy_prob_composite(const Tensor& input, const Tensor& target,
                                    const std::optional<Tensor>& weight, Reduction reduction,
                                    double label_smoothing) {
  const int64_t class_dim = input.dim() == 1 ? 0 : 1, classes = input.sizes()[class_dim];
  Tensor t = target;
  if (label_smoothing > 0)
    t = add(mul(t, S(1.0 - label_smoothing)), S(label_smoothing / static_cast<double>(classes)));
  Tensor prod = mul(log_softmax(input, class_dim, input.dtype()), t);
  if (weight) {
    DimVector shape(static_cast<size_t>(input.dim()), 1);
    shape[class_dim] = classes;
    prod = mul(prod, view(*weight, shape));
  }
  if (reduction == Reduction::None) return neg(sum(prod, {class_dim}, false));
  Tensor total = neg(sum(prod, {}, false));
  if (reduction == Reduction::Sum) return total;
  if (input.numel() == 0) return mul(total, S(std::numeric_limits<double>::quiet_NaN()));
  return div(total, S(static_cast<double>(input.numel() / classes)));
}

}  // namespace

Tensor cross_entropy(const Tensor& input, const Tensor& target, const std::optional<Tensor>& weight,
                     Reduction reduction, int64_t ignore_index, double label_smoothing) {
  if (autocast::active()) {
    autocast::Scope s(autocast::Op::cross_entropy);
    return cross_entropy(s(input), s(target), s(weight), reduction, ignore_index, label_smoothing);
  }
  ClassLossOptions opt;
  opt.kind = cross_entropy_kind(input, target);
  opt.reduction = reduction;
  opt.ignore_index = ignore_index;
  if (opt.kind == ClassLossKind::ce_index) {
    // PyTorch only smooths (and range-checks) a positive label_smoothing for class-index targets
    MT_CHECK(label_smoothing <= 1.0, "label_smoothing must be between 0.0 and 1.0. Got: ", label_smoothing);
    opt.label_smoothing = label_smoothing > 0.0 ? label_smoothing : 0.0;
  } else {
    opt.label_smoothing = label_smoothing;
    const bool mixed = target.dtype() != input.dtype() || (weight && weight->dtype() != input.dtype());
    const int64_t classes = input.dim() >= 1 ? input.sizes()[input.dim() == 1 ? 0 : 1] : 1;
    if (mixed || (weight && needs_grad(*weight)) || classes == 0) {
      plan_class_loss(input, target, weight ? *weight : Tensor(), opt);  // the same checks and messages
      return cross_entropy_prob_composite(input, target, weight, reduction, label_smoothing);
    }
  }
  // [N, C, d1, ...] on the CPU: the classes made the last, contiguous dim first (one copy, recorded, so the
  // gradient flows back through it), so each position's row takes the kernels' vector path; read with the
  // stride of d1 * d2 ... they went element by element (a [32, 16, 11, 11] batch at 0.07-0.2 of PyTorch).
  // A target of the wrong shape keeps the direct path, whose checks word the error for the original shapes.
  // Float and double with up to 256 classes skip it: the kernel's blocked path gathers each block of
  // positions' classes itself (the copies cost twice the kernel, and a [32, 16, 11, 11] loss ran at 0.3-0.5
  // of PyTorch's).
  const bool prob = opt.kind == ClassLossKind::ce_prob;
  const bool kernel_tiles = (input.dtype() == ScalarType::Float || input.dtype() == ScalarType::Double) &&
                            input.dim() > 2 && input.sizes()[1] <= 256;
  if (input.dim() > 2 && input.device().is_cpu() && input.sizes()[1] >= 8 && input.numel() > 0 &&
      !kernel_tiles) {
    DimVector want;
    for (int64_t d = 0; d < input.dim(); ++d)
      if (prob || d != 1) want.push_back(input.sizes()[d]);
    if (IntArrayRef(want).equals(target.sizes())) {
      const int64_t C = input.sizes()[1];
      Tensor x = reshape(contiguous(movedim(input, 1, -1)), {-1, C});
      Tensor t = prob ? reshape(contiguous(movedim(target, 1, -1)), {-1, C}) : reshape(target, {-1});
      Tensor r = class_loss(x, t, weight, opt);
      if (reduction != Reduction::None) return r;
      DimVector shape{input.sizes()[0]};
      for (int64_t d = 2; d < input.dim(); ++d) shape.push_back(input.sizes()[d]);
      return reshape(r, shape);
    }
  }
  return class_loss(input, target, weight, opt);
}

Tensor nll_loss(const Tensor& input, const Tensor& target, const std::optional<Tensor>& weight,
                Reduction reduction, int64_t ignore_index) {
  if (autocast::active()) {
    autocast::Scope s(autocast::Op::nll_loss);
    return nll_loss(s(input), s(target), s(weight), reduction, ignore_index);
  }
  ClassLossOptions opt;
  opt.kind = ClassLossKind::nll;
  opt.reduction = reduction;
  opt.ignore_index = ignore_index;
  return class_loss(input, target, weight, opt);
}

// ---- composites

// PyTorch's pointwise loss kernels run on the promoted dtype, so a bool operand beside a floating one is read
// as 0/1 there; our compositions subtract, which refuses bool: the bool side is converted first
static Tensor unbool(const Tensor& t, ScalarType common) {
  return t.dtype() == ScalarType::Bool && common != ScalarType::Bool ? to(t, common, t.device()) : t;
}

Tensor native::mse_loss(const Tensor& input, const Tensor& target, Reduction reduction) {
  // PyTorch's kernel runs in the promoted dtype, floating types only
  ScalarType common = result_type(input, target);
  MT_CHECK_NOT_IMPLEMENTED(is_floating(common), "\"mse", input.is_cuda() ? "_cuda" : "_cpu",
                           "\" not implemented for '", dtype_short_name(common), "'");
  // one autograd node instead of three (sub, mul, mean): its backward is 2 (x - t) scaled, two kernels
  Tensor d = sub(unbool(input, common), unbool(target, common));
  return apply_reduction(mul(d, d), reduction);
}

Tensor l1_loss(const Tensor& input, const Tensor& target, Reduction reduction) {
  if (autocast::active()) {
    autocast::Scope s(autocast::Op::l1_loss);
    return l1_loss(s(input), s(target), reduction);
  }
  return apply_reduction(abs(sub(input, target)), reduction);
}

// The fused CPU kernel serves x and y of one shape and one floating dtype (the Python wrapper broadcasts);
// other devices, half types and mixed dtypes compose.
static bool huber_fused(const Tensor& input, const Tensor& target) {
  return input.device().is_cpu() && target.device().is_cpu() && input.dtype() == target.dtype() &&
         (input.dtype() == ScalarType::Float || input.dtype() == ScalarType::Double) &&
         IntArrayRef(input.sizes()).equals(target.sizes());
}

// The kernel runs over x, y (and the gradient, the output) as one flat array: all are laid out with the
// strides an elementwise op's output would get (PyTorch's loss is a TensorIterator output, so a transposed
// pair keeps its layout and is read in memory order instead of copied; its sum adds in that order, as
// PyTorch's sum of that loss).
static Tensor huber_fused_forward(const Tensor& input, const Tensor& target, HuberKind kind, double param,
                                  Reduction reduction) {
  const DimVector st = iter_output_strides(input.sizes(), {&input, &target});
  Tensor x = with_strides(input, st), y = with_strides(target, st);
  Tensor out = reduction == Reduction::None
                   ? empty_strided_dense(input.sizes(), st, input.dtype(), input.device())
                   : make_empty({}, input.dtype(), input.device());
  huber_loss_stub.get(DeviceType::CPU)(out, x, y, Tensor(), kind, param, reduction);
  return out;
}

Tensor native::smooth_l1_loss(const Tensor& input, const Tensor& target, Reduction reduction, double beta) {
  MT_CHECK(beta >= 0, "smooth_l1_loss does not support negative values for beta.");
  if (beta == 0.0) return l1_loss(input, target, reduction);
  if (huber_fused(input, target))
    return huber_fused_forward(input, target, HuberKind::smooth_l1, beta, reduction);
  const ScalarType common = result_type(input, target);
  Tensor z = abs(sub(unbool(input, common), unbool(target, common)));
  Tensor quad = mul(mul(z, z), S(0.5 / beta));
  Tensor lin = sub(z, S(0.5 * beta));
  return apply_reduction(mt::where(lt(z, S(beta)), quad, lin), reduction);
}

Tensor native::huber_loss(const Tensor& input, const Tensor& target, Reduction reduction, double delta) {
  MT_CHECK(delta > 0, "huber_loss does not support non-positive values for delta.");
  // PyTorch's kernel writes the loss in input's dtype, computed in the promoted one: a promoted dtype input
  // cannot hold is refused (huber_loss(int, float)), and its kernel takes floating types only
  ScalarType common = result_type(input, target);
  MT_CHECK(can_cast(common, input.dtype()), "result type ", dtype_short_name(common),
           " can't be cast to the desired output type ", dtype_short_name(input.dtype()));
  MT_CHECK_NOT_IMPLEMENTED(is_floating(common), "\"huber", input.is_cuda() ? "_cuda" : "_cpu",
                           "\" not implemented for '", dtype_short_name(common), "'");
  if (huber_fused(input, target))
    return huber_fused_forward(input, target, HuberKind::huber, delta, reduction);
  Tensor z = abs(sub(unbool(input, common), unbool(target, common)));
  Tensor quad = mul(mul(z, z), S(0.5));
  Tensor lin = mul(sub(z, S(0.5 * delta)), S(delta));
  Tensor loss = mt::where(lt(z, S(delta)), quad, lin);
  if (loss.dtype() != input.dtype()) loss = to(loss, input.dtype(), loss.device());
  return apply_reduction(loss, reduction);
}

Tensor huber_loss_backward(const Tensor& grad, const Tensor& input, const Tensor& target, HuberKind kind,
                           double param, Reduction reduction) {
  const bool recording =
      GradMode::is_enabled() && (grad.requires_grad() || input.requires_grad() || target.requires_grad());
  if (!recording && huber_fused(input, target) && grad.dtype() == input.dtype() &&
      !(kind == HuberKind::smooth_l1 && param == 0)) {
    // the gradient in the layout PyTorch's zeros_like(input) gives it, the operands read in that layout
    const DimVector st = preserved_strides(input);
    Tensor g = reduction == Reduction::None ? with_strides(expand(grad, input.sizes()), st) : grad;
    if (reduction != Reduction::None && g.dim() != 0) g = reshape(g, {});
    Tensor out = empty_strided_dense(input.sizes(), st, input.dtype(), input.device());
    huber_loss_stub.get(DeviceType::CPU)(out, with_strides(input, st), with_strides(target, st), g, kind,
                                         param, reduction);
    return out;
  }
  // PyTorch's formulas: huber g * clamp(d, -delta, delta); smooth_l1 g * clamp(d / beta, -1, 1), sign(d) at
  // beta = 0 (l1_loss's); a NaN difference gives NaN
  // a bool target subtracts as the input's dtype (PyTorch's kernel promotes it; our sub refuses bool)
  Tensor d =
      sub(input, target.dtype() == ScalarType::Bool ? to(target, input.dtype(), input.device()) : target);
  Tensor r;
  if (kind == HuberKind::huber)
    r = clamp(d, S(-param), S(param));
  else if (param == 0)
    r = sgn(d);
  else
    r = clamp(div(d, S(param)), S(-1.0), S(1.0));
  Tensor g = grad;
  if (reduction == Reduction::Mean) g = div(g, S(static_cast<double>(input.numel())));
  return mul(r, g);
}

Tensor native::binary_cross_entropy(const Tensor& input, const Tensor& target,
                                    const std::optional<Tensor>& weight, Reduction reduction) {
  MT_CHECK_VALUE(IntArrayRef(input.sizes()).equals(target.sizes()), "Using a target size (",
                 torch_size(target.sizes()), ") that is different to the input size (",
                 torch_size(input.sizes()), ") is deprecated. Please ensure they have the same size.");
  check_same_device(input, target);
  // PyTorch's kernel writes the loss into a tensor like input: target must have its dtype, and a weight of
  // another float dtype scales that loss in place (a float64 weight keeps a float32 loss float32)
  MT_CHECK(target.dtype() == input.dtype(), "Found dtype ", dtype_short_name(target.dtype()),
           " but expected ", dtype_short_name(input.dtype()));
  if (weight && weight->dtype() != input.dtype() && is_floating(input.dtype()))
    return mt::binary_cross_entropy(input, target, to(*weight, input.dtype(), weight->device()), reduction);
  // PyTorch checks the range inside its kernel; on the CPU reading the result is free, on CUDA it would be a
  // sync per call, so there out-of-range inputs give NaN (log of a negative number) instead of an error.
  // The kernel's test is 0 <= v <= 1, which a NaN fails too.
  if (!input.is_cuda() && input.numel() > 0) {
    NoGradGuard ng;
    auto outside = [](const Tensor& v) {
      return *any(logical_not(logical_and(ge(v, S(0.0)), le(v, S(1.0)))), {}, false).data<bool>();
    };
    MT_CHECK(!outside(input), "all elements of input should be between 0 and 1");
    MT_CHECK(!outside(target), "all elements of target should be between 0 and 1");
  }
  // one node with PyTorch's gradient formula: the composite's would be 0/0 = NaN where x is exactly 0 or 1
  // log clamped at -100 as PyTorch, so a 0 or 1 probability gives a finite loss
  Tensor logx = mt::clamp(log(input), S(-100.0), std::nullopt);
  Tensor log1mx = mt::clamp(log(sub(S(1.0), input)), S(-100.0), std::nullopt);
  Tensor loss = neg(add(mul(target, logx), mul(sub(S(1.0), target), log1mx)));
  if (weight) loss = mul(loss, *weight);
  return apply_reduction(loss, reduction);
}

Tensor binary_cross_entropy_with_logits(const Tensor& input, const Tensor& target,
                                        const std::optional<Tensor>& weight, Reduction reduction,
                                        const std::optional<Tensor>& pos_weight) {
  if (autocast::active()) {
    autocast::Scope s(autocast::Op::binary_cross_entropy_with_logits);
    return binary_cross_entropy_with_logits(s(input), s(target), s(weight), reduction, s(pos_weight));
  }
  MT_CHECK_VALUE(IntArrayRef(input.sizes()).equals(target.sizes()), "Target size (",
                 torch_size(target.sizes()), ") must be the same as input size (", torch_size(input.sizes()),
                 ")");
  check_same_device(input, target);
  // log(sigmoid(x)) = min(x, 0) - log1p(exp(-|x|)): no overflow for any x. Half and bfloat16 compute it in
  // float and round once, as PyTorch's log_sigmoid kernel (four roundings in bfloat16 moved the loss by 2e-3)
  const bool reduced = input.dtype() == ScalarType::Half || input.dtype() == ScalarType::BFloat16;
  Tensor log_sig;
  if ((input.dtype() == ScalarType::Float || input.dtype() == ScalarType::Double) && !needs_grad(input)) {
    // log_sigmoid's one pass (the same formula; PyTorch's composite calls it too) for the five of the
    // composite below (F.binary_cross_entropy_with_logits of 1M float32 at 0.87 of PyTorch's speed). Not
    // under autograd: log_sigmoid's backward, grad * sigmoid(-x), cancels in (1 - y) - sigmoid(-x) where the
    // composite's chain keeps PyTorch's sigmoid(x) - y (float32 x = -30: 0 against 1.2e-14); a fused
    // backward with PyTorch's formula would let the gradient path take it too.
    log_sig = log_sigmoid(input);
  } else {
    Tensor x = reduced ? to(input, ScalarType::Float, input.device()) : input;
    log_sig = sub(minimum(x, S(0.0)), log1p(exp(neg(abs(x)))));
    if (reduced) log_sig = to(log_sig, input.dtype(), input.device());
  }
  if (pos_weight) log_sig = mul(log_sig, add(mul(sub(*pos_weight, S(1.0)), target), S(1.0)));
  // PyTorch's 1 - target wraps the 1 in target's dtype: beside a bool target, sub's refusal of two bools
  if (target.dtype() == ScalarType::Bool) check_sub_operands(target, target);
  Tensor loss = sub(mul(sub(S(1.0), target), input), log_sig);
  if (weight) loss = mul(loss, *weight);
  // PyTorch builds the loss in place in (1 - target)'s buffer, so a floating target's dtype is the result's
  // whatever input, weight and pos_weight promote to ((float32, float32, weight float64) stays float32)
  if (is_floating(target.dtype()) && loss.dtype() != target.dtype())
    loss = to(loss, target.dtype(), loss.device());
  return apply_reduction(loss, reduction);
}

Tensor kl_div(const Tensor& input, const Tensor& target, Reduction reduction, bool log_target,
              bool batchmean) {
  if (autocast::active()) {
    autocast::Scope s(autocast::Op::kl_div);
    return kl_div(s(input), s(target), reduction, log_target, batchmean);
  }
  Tensor loss;
  if (log_target) {
    loss = mul(exp(target), sub(target, input));
  } else {
    // xlogy(t, t) - t * x, as PyTorch's: 0 where t == 0, NaN for t < 0, and xlogy's derivatives (a zero
    // incoming gradient gives 0 for a negative target; the target's gradient at t == 0 is NaN there too)
    loss = sub(xlogy(target, target), mul(target, input));
  }
  if (batchmean) {
    Tensor s = sum(loss, {}, false);
    return input.dim() == 0 ? s : div(s, S(static_cast<double>(input.sizes()[0])));
  }
  return apply_reduction(loss, reduction);
}

Tensor soft_margin_loss(const Tensor& input, const Tensor& target, Reduction reduction) {
  // PyTorch's kernel: no derivative for target, the loss written into a tensor of input's shape and dtype
  MT_CHECK(
      !needs_grad(target),
      "The function 'soft_margin_loss' is not differentiable with respect to argument 'target'. This input "
      "cannot have requires_grad True.");
  // PyTorch's kernel negates input first, then multiplies by target in place
  MT_CHECK_NOT_IMPLEMENTED(
      input.dtype() != ScalarType::Bool,
      "Negation, the `-` operator, on a bool tensor is not supported. If you are trying to "
      "invert a mask, use the `~` or `logical_not()` operator instead.");
  DimVector shape = broadcast_shapes(input.sizes(), target.sizes());
  MT_CHECK(IntArrayRef(shape).equals(input.sizes()), "output with shape ", shape_str(input.sizes()),
           " doesn't match the broadcast shape ", shape_str(shape));
  if (!is_floating(input.dtype())) {
    ScalarType r = result_type(input, target);
    MT_CHECK(false, "result type ", dtype_short_name(is_floating(r) ? r : default_dtype()),
             " can't be cast to the desired output type ", dtype_short_name(input.dtype()));
  }
  return apply_reduction(log1p(exp(neg(mul(input, target)))), reduction);
}

// ---- CTC: PyTorch's checks (its wording names ctc_loss_allocate_outputs), then the CPU kernel.
namespace {

constexpr const char* kCtcWhere = " (while checking arguments for ctc_loss_allocate_outputs)";

// Sample b's labels start at offsets[b] of the contiguous int64 targets; each label lies in [0, classes).
CtcArgs ctc_args(const Tensor& log_probs, const Tensor& targets, IntArrayRef input_lengths,
                 IntArrayRef target_lengths, int64_t blank, bool zero_infinity, Tensor& tg) {
  MT_CHECK(log_probs.dim() == 3, "Expected 3-dimensional tensor, but got ", log_probs.dim(),
           "-dimensional tensor for argument #1 'log_probs'", kCtcWhere);
  MT_CHECK(targets.dim() == 1 || targets.dim() == 2, "Expected 1 to 2 dimensions, but got ", targets.dim(),
           "-dimensional tensor for argument #2 'targets'", kCtcWhere);
  MT_CHECK(targets.dtype() == ScalarType::Long || targets.dtype() == ScalarType::Int,
           "Expected tensor for argument #2 'targets' to have scalar type Int; but got ",
           error_type_name(targets.dtype(), targets.is_cuda()), " instead", kCtcWhere);
  MT_CHECK_NOT_IMPLEMENTED(log_probs.dtype() == ScalarType::Float || log_probs.dtype() == ScalarType::Double,
                           "\"ctc_loss_", log_probs.is_cuda() ? "cuda" : "cpu", "\" not implemented for '",
                           dtype_short_name(log_probs.dtype()), "'");
  MT_CHECK(log_probs.device().is_cpu() && targets.device().is_cpu(),
           "_ctc_loss: the kernel is the CPU's (F.ctc_loss composes elsewhere)");
  const int64_t t_max = log_probs.sizes()[0], batch = log_probs.sizes()[1], classes = log_probs.sizes()[2];
  MT_CHECK(blank >= 0 && blank < classes, "blank must be in label range");
  MT_CHECK(static_cast<int64_t>(input_lengths.size()) == batch, "input_lengths must be of size batch_size");
  MT_CHECK(static_cast<int64_t>(target_lengths.size()) == batch, "target_lengths must be of size batch_size");
  CtcArgs a{input_lengths, target_lengths, std::vector<int64_t>(static_cast<size_t>(batch)), blank,
            zero_infinity};
  int64_t total = 0, longest = 0;
  for (int64_t b = 0; b < batch; ++b) {
    const int64_t il = input_lengths[b], tl = target_lengths[b];
    MT_CHECK(il >= 0, "Expected input_lengths to have value at least 0, but got value ", il, kCtcWhere);
    MT_CHECK(il <= t_max, "Expected input_lengths to have value at most ", t_max, ", but got value ", il,
             kCtcWhere);
    MT_CHECK(tl >= 0, "Expected target_lengths to have value at least 0, but got value ", tl, kCtcWhere);
    a.target_offsets[b] = targets.dim() == 1 ? total : b * (targets.dim() == 2 ? targets.sizes()[1] : 0);
    total += tl;
    longest = std::max(longest, tl);
  }
  if (targets.dim() == 1)
    MT_CHECK(targets.sizes()[0] == total, "Expected tensor to have size ", total,
             " at dimension 0, but got size ", targets.sizes()[0], " for argument #2 'targets'", kCtcWhere);
  else
    MT_CHECK(targets.sizes()[1] >= longest, "Expected tensor to have size at least ", longest,
             " at dimension 1, but got size ", targets.sizes()[1], " for argument #2 'targets'", kCtcWhere);
  tg = contiguous(targets.dtype() == ScalarType::Long ? targets
                                                      : to(targets, ScalarType::Long, targets.device()));
  // the kernel indexes log_probs by each label: one outside [0, classes) would read out of bounds
  const int64_t* p = tg.data<int64_t>();
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t j = 0; j < target_lengths[b]; ++j) {
      const int64_t label = p[a.target_offsets[b] + j];
      MT_CHECK_INDEX(label >= 0 && label < classes, "target label ", label, " is out of range for ", classes,
                     " classes");
    }
  return a;
}

}  // namespace

std::tuple<Tensor, Tensor> native::ctc_loss(const Tensor& log_probs, const Tensor& targets,
                                            IntArrayRef input_lengths, IntArrayRef target_lengths,
                                            int64_t blank, bool zero_infinity) {
  Tensor tg;
  CtcArgs a = ctc_args(log_probs, targets, input_lengths, target_lengths, blank, zero_infinity, tg);
  int64_t longest = 0;
  for (int64_t v : target_lengths) longest = std::max(longest, v);
  const int64_t t_max = log_probs.sizes()[0], batch = log_probs.sizes()[1];
  Tensor nll = make_empty({batch}, log_probs.dtype(), log_probs.device());
  Tensor log_alpha = make_empty({batch, t_max, 2 * longest + 1}, log_probs.dtype(), log_probs.device());
  if (batch > 0) ctc_loss_stub.get(log_probs.device())(nll, log_alpha, log_probs, tg, a);
  return {nll, log_alpha};
}

Tensor ctc_loss_backward(const Tensor& grad, const Tensor& log_probs, const Tensor& targets,
                         IntArrayRef input_lengths, IntArrayRef target_lengths,
                         const Tensor& neg_log_likelihood, const Tensor& log_alpha, int64_t blank,
                         bool zero_infinity) {
  Tensor tg;
  CtcArgs a = ctc_args(log_probs, targets, input_lengths, target_lengths, blank, zero_infinity, tg);
  const int64_t batch = log_probs.sizes()[1];
  MT_INTERNAL_ASSERT(neg_log_likelihood.dim() == 1 && neg_log_likelihood.sizes()[0] == batch &&
                     log_alpha.dim() == 3 && log_alpha.sizes()[0] == batch);
  Tensor g = grad.dtype() == log_probs.dtype() ? grad : to(grad, log_probs.dtype(), grad.device());
  g = contiguous(expand(g, {batch}));
  Tensor out = make_empty(log_probs.sizes(), log_probs.dtype(), log_probs.device());
  if (out.numel() > 0)
    ctc_loss_backward_stub.get(log_probs.device())(out, g, log_probs, tg, contiguous(neg_log_likelihood),
                                                   contiguous(log_alpha), a);
  return out;
}

}  // namespace mt
