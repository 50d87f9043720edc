// Elementwise front ends: device checks, type promotion, broadcasting, output allocation, then the kernel.
#include "ops/elementwise.h"

#include "autograd/record.h"
#include "core/TensorIterator.h"
#include "ops/autocast.h"
#include "ops/copy.h"
#include "ops/factory.h"
#include "ops/kernels.h"
#include "ops/reduce.h"

namespace mt {

MT_DEFINE_STUB(unary_stub, UnaryKernelFn);
MT_DEFINE_STUB(binary_stub, BinaryKernelFn);
MT_DEFINE_STUB(where_stub, WhereKernelFn);
MT_DEFINE_STUB(clamp_stub, ClampKernelFn);
MT_DEFINE_STUB(param_unary_stub, ParamUnaryKernelFn);

namespace {

struct ResultTypeState {
  ScalarType dim = ScalarType::Undefined, zero = ScalarType::Undefined, wrapped = ScalarType::Undefined;
  void update(const Tensor& t) {
    ScalarType cur = t.dtype();
    if (t.impl()->is_wrapped_number()) {
      if (is_floating(cur)) cur = default_dtype();
      wrapped = promote_types(wrapped, cur);
    } else if (t.dim() == 0) {
      zero = promote_types(zero, cur);
    } else {
      dim = promote_types(dim, cur);
    }
  }
};

ScalarType combine_categories(ScalarType higher, ScalarType lower) {
  if (higher != ScalarType::Undefined && is_floating(higher)) return higher;
  if (higher == ScalarType::Bool || (lower != ScalarType::Undefined && is_floating(lower)))
    return promote_types(higher, lower);
  return higher != ScalarType::Undefined ? higher : lower;
}

void device_mismatch(Device common, Device other) {
  MT_ERROR("Expected all tensors to be on the same device, but found at least two devices, ", common.str(),
           " and ", other.str(), "!");
}

// The device an op over these tensors runs on, by PyTorch's TensorIterator rule: the first non-CPU device,
// else the CPU. A 0-dim CPU input (a Python number included) may join a CUDA op as a scalar; `prepare` moves
// it, so no kernel reads host memory. Anything else on another device raises, naming the op's device first.
// `out`, when given, is written in place and must be on that device itself.
Device common_device(std::initializer_list<const Tensor*> ts, const Tensor* out = nullptr) {
  Device common(DeviceType::CPU);
  for (const Tensor* t : ts)
    if (t->defined() && !t->device().is_cpu()) {
      common = t->device();
      break;
    }
  for (const Tensor* t : ts) {
    if (!t->defined() || t->device() == common) continue;
    if (t != out && !common.is_cpu() && t->device().is_cpu() && t->dim() == 0) continue;
    device_mismatch(common, t->device());
  }
  return common;
}

// "bitwise_and_cuda": the kernel name PyTorch's dtype errors quote.
std::string kernel_name(const char* op, Device d) {
  return str(op, d.is_cuda() ? "_cuda" : "_cpu");
}

// The input as the kernel wants it: compute dtype, on the op's device.
Tensor prepare(const Tensor& t, ScalarType dtype, Device device) {
  if (t.dtype() == dtype && t.device() == device) return t;
  // A 0-dim CPU input of a CUDA op stays on the host, converted there: the launcher passes its value by
  // kernel argument (TensorIter::host_scalar), so `cuda_x * 2.0` costs no host-to-device copy.
  if (t.device().is_cpu() && device.is_cuda() && t.dim() == 0) return to(t, dtype, t.device());
  return to(t, dtype, device);
}

OpRule rule_of(UnaryOp op) {
  switch (op) {
#define MT_CASE(name, f, kind) \
  case UnaryOp::name:          \
    return OpRule::kind;
    MT_UNARY_OPS(MT_CASE)
#undef MT_CASE
  }
  return OpRule::Same;
}
OpRule rule_of(BinaryOp op) {
  switch (op) {
#define MT_CASE(name, f, kind) \
  case BinaryOp::name:         \
    return OpRule::kind;
    MT_BINARY_OPS(MT_CASE)
#undef MT_CASE
  }
  return OpRule::Arith;
}
const char* name_of(BinaryOp op) {
  switch (op) {
#define MT_CASE(name, f, kind) \
  case BinaryOp::name:         \
    return #name;
    MT_BINARY_OPS(MT_CASE)
#undef MT_CASE
  }
  return "?";
}

// Checks that depend on values or dtypes, in PyTorch's words.
void check_binary(BinaryOp op, ScalarType common, const Tensor& b, Device dev) {
  OpRule r = rule_of(op);
  if (op == BinaryOp::sub && common == ScalarType::Bool)
    MT_ERROR(
        "Subtraction, the `-` operator, with two bool tensors is not supported. Use the `^` or "
        "`logical_xor()` operator instead.");
  if (r == OpRule::Bitwise && is_floating(common))
    MT_ERROR("\"", kernel_name(name_of(op), dev), "\" not implemented for '", dtype_short_name(common), "'");
  bool int_div = op == BinaryOp::floor_divide || op == BinaryOp::remainder || op == BinaryOp::fmod ||
                 op == BinaryOp::trunc_divide;
  if (int_div && is_integral(common, true)) {
    Tensor zero = eq(b, wrapped_scalar(Scalar(int64_t(0))));
    MT_CHECK(!item(any(zero)).to_bool(), "ZeroDivisionError");
  }
  if (op == BinaryOp::pow && is_integral(common, false) && is_integral(b.dtype(), false)) {
    Tensor neg = lt(b, wrapped_scalar(Scalar(int64_t(0))));
    MT_CHECK(!item(any(neg)).to_bool(), "Integers to negative integer powers are not allowed.");
  }
}

// (compute dtype, output dtype) for a binary op whose promoted input dtype is `common`.
std::pair<ScalarType, ScalarType> binary_dtypes(BinaryOp op, ScalarType common) {
  switch (rule_of(op)) {
    case OpRule::Div: {
      ScalarType f = is_floating(common) ? common : default_dtype();
      return {f, f};
    }
    case OpRule::Compare:
    case OpRule::Logical:
      return {common, ScalarType::Bool};
    default:
      return {common, common};
  }
}

}  // namespace

ScalarType result_type(std::initializer_list<Tensor> ts) {
  ResultTypeState s;
  for (const Tensor& t : ts)
    if (t.defined()) s.update(t);
  return combine_categories(s.dim, combine_categories(s.zero, s.wrapped));
}

// The autocast entry of a unary op, if autocast touches it.
static std::optional<autocast::Op> autocast_op(UnaryOp op) {
  switch (op) {
#define MT_AC_CASE(name) \
  case UnaryOp::name:    \
    return autocast::Op::name;
    MT_AC_CASE(exp)
    MT_AC_CASE(expm1)
    MT_AC_CASE(log)
    MT_AC_CASE(log2)
    MT_AC_CASE(log10)
    MT_AC_CASE(log1p)
    MT_AC_CASE(reciprocal)
    MT_AC_CASE(rsqrt)
    MT_AC_CASE(tan)
    MT_AC_CASE(asin)
    MT_AC_CASE(acos)
    MT_AC_CASE(sinh)
    MT_AC_CASE(cosh)
#undef MT_AC_CASE
    default:
      return std::nullopt;
  }
}

ScalarType result_type(const Tensor& a, const Tensor& b) {
  return result_type({a, b});
}

Tensor unary(UnaryOp op, const Tensor& self) {
  if (autocast::active()) {
    if (auto ac = autocast_op(op)) {
      autocast::Scope s(*ac);
      return unary(op, s(self));
    }
  }
  if (autograd::needs_grad(self)) return autograd::unary(op, self);
  OpRule r = rule_of(op);
  ScalarType in = self.dtype(), out_dt = in;
  if (op == UnaryOp::neg && in == ScalarType::Bool)
    MT_ERROR(
        "Negation, the `-` operator, on a bool tensor is not supported. If you are trying to invert a mask, "
        "use the `~` or `logical_not()` operator instead.");
  if (op == UnaryOp::bitwise_not && is_floating(in))
    MT_ERROR("\"", kernel_name("bitwise_not", self.device()), "\" not implemented for '",
             dtype_short_name(in), "'");
  if (r == OpRule::Float && !is_floating(in)) in = out_dt = default_dtype();
  if (r == OpRule::Bool) out_dt = ScalarType::Bool;
  Tensor x = prepare(self, in, self.device());
  Tensor out = make_empty(self.sizes(), out_dt, self.device());
  if (out.numel() == 0) return out;
  TensorIter it = TensorIter::make({out, x});
  unary_stub.get(out.device())(it, op);
  return out;
}

const Tensor& unary_(UnaryOp op, const Tensor& self) {
  if (autograd::needs_grad(self)) return autograd::unary_(op, self);
  Tensor r = unary(op, self);
  MT_CHECK(can_cast(r.dtype(), self.dtype()), "result type ", dtype_short_name(r.dtype()),
           " can't be cast to the desired output type ", dtype_short_name(self.dtype()));
  return copy_(self, r);
}

Tensor binary(BinaryOp op, const Tensor& a, const Tensor& b) {
  if (autocast::active() && (op == BinaryOp::pow || op == BinaryOp::atan2)) {
    autocast::Scope s(op == BinaryOp::pow ? autocast::Op::pow : autocast::Op::atan2, {&a, &b});
    return binary(op, s(a), s(b));
  }
  if (autograd::needs_grad(a, b)) return autograd::binary(op, a, b);
  Device dev = common_device({&a, &b});
  ScalarType common = result_type(a, b);
  check_binary(op, common, b, dev);
  auto [compute, out_dt] = binary_dtypes(op, common);
  Tensor x = prepare(a, compute, dev), y = prepare(b, compute, dev);
  DimVector shape = a.sizes() == b.sizes() ? a.sizes() : broadcast_shapes(a.sizes(), b.sizes());
  Tensor out = make_empty(shape, out_dt, dev);
  if (out.numel() == 0) return out;
  TensorIter it = TensorIter::make({out, x, y});
  binary_stub.get(dev)(it, op);
  return out;
}

const Tensor& binary_(BinaryOp op, const Tensor& self, const Tensor& other) {
  if (autograd::needs_grad(self, other)) return autograd::binary_(op, self, other);
  check_writable(self);
  Device dev = common_device({&self, &other}, &self);
  ScalarType common = result_type(self, other);
  check_binary(op, common, other, dev);
  auto [compute, out_dt] = binary_dtypes(op, common);
  MT_CHECK(can_cast(out_dt, self.dtype()), "result type ", dtype_short_name(out_dt),
           " can't be cast to the desired output type ", dtype_short_name(self.dtype()));
  DimVector shape = broadcast_shapes(self.sizes(), other.sizes());
  MT_CHECK(IntArrayRef(shape).equals(self.sizes()), "output with shape ", shape_str(self.sizes()),
           " doesn't match the broadcast shape ", shape_str(shape));
  if (self.numel() == 0) return self;
  Tensor y = prepare(unaliased_input(self, other), compute, dev);
  if (self.dtype() == compute && out_dt == compute) {
    TensorIter it = TensorIter::make({self, self, y});
    binary_stub.get(dev)(it, op);
    self.bump_version();
    return self;
  }
  Tensor x = prepare(self, compute, dev);
  Tensor out = make_empty(shape, out_dt, dev);
  TensorIter it = TensorIter::make({out, x, y});
  binary_stub.get(dev)(it, op);
  return copy_(self, out);
}

Tensor scale_by_alpha(const Tensor& a, const Tensor& b, const Scalar& alpha) {
  if (!alpha.is_floating() && !alpha.is_bool() && alpha.to_long() == 1) return b;
  ScalarType common = result_type(a, b);
  MT_CHECK(!is_integral(common, true) || !alpha.is_floating(),
           "For integral input tensors, argument alpha must not be a floating point number.");
  MT_CHECK(common == ScalarType::Bool || !alpha.is_bool(),
           "Boolean alpha only supported for Boolean results.");
  return binary(BinaryOp::mul, b, wrapped_scalar(alpha));
}

Tensor add(const Tensor& a, const Tensor& b, const Scalar& alpha) {
  return binary(BinaryOp::add, a, scale_by_alpha(a, b, alpha));
}

Tensor sub(const Tensor& a, const Tensor& b, const Scalar& alpha) {
  return binary(BinaryOp::sub, a, scale_by_alpha(a, b, alpha));
}

Tensor div(const Tensor& a, const Tensor& b, const std::optional<std::string>& rounding_mode) {
  if (!rounding_mode) return binary(BinaryOp::div, a, b);
  if (*rounding_mode == "trunc") return binary(BinaryOp::trunc_divide, a, b);
  if (*rounding_mode == "floor") return binary(BinaryOp::floor_divide, a, b);
  MT_CHECK(false, "div expected rounding_mode to be one of None, 'trunc', or 'floor' but found '",
           *rounding_mode, "'");
}

Tensor clamp(const Tensor& self, const std::optional<Tensor>& min, const std::optional<Tensor>& max) {
  if (autograd::needs_grad(self) || autograd::needs_grad(min) || autograd::needs_grad(max))
    return autograd::clamp(self, min, max);
  MT_CHECK(min || max, "torch.clamp: At least one of 'min' or 'max' must not be None");
  Tensor lo = min ? *min : Tensor(), hi = max ? *max : Tensor();
  Device dev = common_device({&self, &lo, &hi});
  ScalarType dt = result_type({self, lo, hi});
  MT_CHECK(dt != ScalarType::Bool, "\"", kernel_name("clamp", dev), "\" not implemented for 'Bool'");
  DimVector shape = self.sizes();
  if (min) shape = broadcast_shapes(shape, min->sizes());
  if (max) shape = broadcast_shapes(shape, max->sizes());
  Tensor x = prepare(self, dt, dev);
  Tensor l = min ? prepare(*min, dt, dev) : x, h = max ? prepare(*max, dt, dev) : x;
  Tensor out = make_empty(shape, dt, dev);
  if (out.numel() == 0) return out;
  TensorIter it = TensorIter::make({out, x, l, h});
  clamp_stub.get(dev)(it, min.has_value(), max.has_value());
  return out;
}

const Tensor& clamp_(const Tensor& self, const std::optional<Tensor>& min, const std::optional<Tensor>& max) {
  if (autograd::needs_grad(self) || autograd::needs_grad(min) || autograd::needs_grad(max))
    return autograd::clamp_(self, min, max);
  Tensor lo = min ? *min : Tensor(), hi = max ? *max : Tensor();
  common_device({&self, &lo, &hi}, &self);  // self is written: it must be on the op's device
  Tensor r = clamp(self, min, max);
  MT_CHECK(can_cast(r.dtype(), self.dtype()), "result type ", dtype_short_name(r.dtype()),
           " can't be cast to the desired output type ", dtype_short_name(self.dtype()));
  MT_CHECK(IntArrayRef(r.sizes()).equals(self.sizes()), "output with shape ", shape_str(self.sizes()),
           " doesn't match the broadcast shape ", shape_str(r.sizes()));
  return copy_(self, r);
}

Tensor where(const Tensor& cond, const Tensor& a, const Tensor& b) {
  if (autograd::needs_grad(a, b)) return autograd::where(cond, a, b);
  MT_CHECK(cond.dtype() == ScalarType::Bool,
           "where expected condition to be a boolean tensor, but got a tensor with dtype ",
           dtype_short_name(cond.dtype()));
  Device dev = common_device({&cond, &a, &b});
  ScalarType dt = result_type(a, b);
  DimVector shape = broadcast_shapes(broadcast_shapes(cond.sizes(), a.sizes()), b.sizes());
  Tensor c = prepare(cond, ScalarType::Bool, dev), x = prepare(a, dt, dev), y = prepare(b, dt, dev);
  Tensor out = make_empty(shape, dt, dev);
  if (out.numel() == 0) return out;
  TensorIter it = TensorIter::make({out, c, x, y});
  where_stub.get(dev)(it);
  return out;
}

static void check_masked_fill(const Tensor& mask, const Tensor& value) {
  MT_CHECK(mask.dtype() == ScalarType::Bool,
           "masked_fill_ only supports boolean masks, but got mask with dtype ", dtype_name(mask.dtype()));
  MT_CHECK(value.dim() == 0, "masked_fill_ only supports a 0-dimensional value tensor, but got tensor with ",
           value.dim(), " dimension(s).");
}

Tensor masked_fill(const Tensor& self, const Tensor& mask, const Tensor& value) {
  if (autograd::needs_grad(self, value)) return autograd::masked_fill(self, mask, value);
  check_masked_fill(mask, value);
  Tensor out = clone(self);
  return masked_fill_(out, mask, value);
}

const Tensor& masked_fill_(const Tensor& self, const Tensor& mask, const Tensor& value) {
  if (autograd::needs_grad(self, value)) return autograd::masked_fill_(self, mask, value);
  check_masked_fill(mask, value);
  check_writable(self);
  Device dev = common_device({&self, &mask, &value}, &self);
  Tensor v = prepare(unaliased_input(self, value), self.dtype(), dev);
  Tensor m = prepare(unaliased_input(self, mask), ScalarType::Bool, dev);
  broadcast_strides(m, self.sizes());  // the mask must broadcast to self, not the other way round
  if (self.numel() == 0) return self;
  TensorIter it = TensorIter::make({self, m, v, self});
  where_stub.get(dev)(it);
  self.bump_version();
  return self;
}

static Tensor param_unary(const Tensor& self, ParamUnaryOp op, double p0, double p1) {
  ScalarType dt = is_floating(self.dtype()) ? self.dtype() : default_dtype();
  Tensor x = prepare(self, dt, self.device());
  Tensor out = make_empty(self.sizes(), dt, self.device());
  if (out.numel() == 0) return out;
  TensorIter it = TensorIter::make({out, x});
  param_unary_stub.get(out.device())(it, op, p0, p1);
  return out;
}

Tensor softplus(const Tensor& self, double beta, double threshold) {
  if (autocast::active()) {
    autocast::Scope s(autocast::Op::softplus);
    return softplus(s(self), beta, threshold);
  }
  if (autograd::needs_grad(self)) return autograd::softplus(self, beta, threshold);
  return param_unary(self, ParamUnaryOp::softplus, beta, threshold);
}
Tensor leaky_relu(const Tensor& self, double negative_slope) {
  if (autograd::needs_grad(self)) return autograd::leaky_relu(self, negative_slope);
  return param_unary(self, ParamUnaryOp::leaky_relu, negative_slope, 0.0);
}
Tensor lerp(const Tensor& self, const Tensor& end, const Tensor& weight) {
  return add(self, mul(weight, sub(end, self)));
}

}  // namespace mt
