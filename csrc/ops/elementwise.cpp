// Elementwise front ends: device checks, type promotion, broadcasting, output allocation, then the kernel.
#include "ops/elementwise.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "core/FreshWrites.h"
#include "core/GradMode.h"
#include "core/StorageAlias.h"
#include "core/TensorIterator.h"
#include "core/TypeMeta.h"
#include "core/WrapMath.h"
#include "generated/native.h"
#include "ops/autocast.h"
#include "ops/copy.h"
#include "ops/factory.h"
#include "ops/foreach.h"
#include "ops/kernels.h"
#include "ops/layout.h"
#include "ops/out.h"
#include "ops/reduce.h"
#include "ops/shape.h"

namespace mt {

namespace {

struct ResultTypeState {
  ScalarType dim = ScalarType::Undefined, zero = ScalarType::Undefined, wrapped = ScalarType::Undefined;
  void update(const Tensor& t) {
    ScalarType cur = t.dtype();
    if (t.impl()->is_wrapped_number()) {
      if (is_floating(cur)) cur = default_dtype();
      if (is_complex(cur)) cur = to_complex_type(default_dtype());
      wrapped = promote_types(wrapped, cur);
    } else if (t.dim() == 0) {
      zero = promote_types(zero, cur);
    } else {
      dim = promote_types(dim, cur);
    }
  }
};

ScalarType combine_categories(ScalarType higher, ScalarType lower) {
  if (higher != ScalarType::Undefined && is_complex(higher)) return higher;
  if (lower != ScalarType::Undefined && is_complex(lower))
    // a complex number or 0-dim tensor keeps a floating tensor's precision: float64 * 1j is complex128
    return higher != ScalarType::Undefined && is_floating(higher) ? to_complex_type(higher) : lower;
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

// One switch per op table (MT_UNARY_OPS, MT_BINARY_OPS): the enums differ, so the two overloads repeat in
// shape.
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

}  // namespace

const char* unary_op_name(UnaryOp op) {
  switch (op) {
#define MT_CASE(name, f, kind) \
  case UnaryOp::name:          \
    return #name;
    MT_UNARY_OPS(MT_CASE)
#undef MT_CASE
  }
  return "?";
}
const char* binary_op_name(BinaryOp op) {
  return name_of(op);
}

bool complex_unary_supported(UnaryOp op) {
  switch (op) {
    case UnaryOp::neg:
    case UnaryOp::exp:
    case UnaryOp::exp2:
    case UnaryOp::expm1:
    case UnaryOp::log:
    case UnaryOp::log2:
    case UnaryOp::log10:
    case UnaryOp::log1p:
    case UnaryOp::sqrt:
    case UnaryOp::rsqrt:
    case UnaryOp::reciprocal:
    case UnaryOp::sin:
    case UnaryOp::cos:
    case UnaryOp::tan:
    case UnaryOp::asin:
    case UnaryOp::acos:
    case UnaryOp::atan:
    case UnaryOp::sinh:
    case UnaryOp::cosh:
    case UnaryOp::tanh:
    case UnaryOp::asinh:
    case UnaryOp::acosh:
    case UnaryOp::atanh:
    case UnaryOp::sigmoid:
    case UnaryOp::sinc:
      return true;
    default:
      return false;
  }
}

// PyTorch's sub_check: bool operands are refused, before alpha scales anything (`1 - mask` is a mask's
// negation)
void check_sub_operands(const Tensor& a, const Tensor& b) {
  const bool a_bool = a.dtype() == ScalarType::Bool, b_bool = b.dtype() == ScalarType::Bool;
  MT_CHECK_NOT_IMPLEMENTED(
      !(a_bool && b_bool),
      "Subtraction, the `-` operator, with two bool tensors is not supported. Use the `^` "
      "or `logical_xor()` operator instead.");
  MT_CHECK_NOT_IMPLEMENTED(!(a_bool || b_bool),
                           "Subtraction, the `-` operator, with a bool tensor is not supported. If you are "
                           "trying to invert a mask, "
                           "use the `~` or `logical_not()` operator instead.");
}

namespace {

// PyTorch's "<kernel>" not implemented for '<dtype>' (a NotImplementedError), naming the kernel whose dtype
// dispatch refuses, so the message matches PyTorch's word for word (tests/ops/elementwise_oracle.py,
// generated by scripts/classify_elementwise_dtypes.py, holds PyTorch's answer for every op and dtype).
[[noreturn]] void dtype_not_implemented(const std::string& kernel, ScalarType dt) {
  throw_error(ErrorKind::NotImplemented,
              str("\"", kernel, "\" not implemented for '", dtype_short_name(dt), "'"));
}

// The dtypes PyTorch's kernels refuse for the unary table (the schema's `refuse:`); everything else computes.
#include "generated/unary_checks.inc"

// PyTorch's heaviside meta function, before anything else: no complex operand (nor out), then one dtype for
// all three. (A Python number reaches only _C._heaviside itself, torch.heaviside's parser taking tensors: it
// takes the other operand's dtype, as in the other binary ops.)
void check_heaviside(const Tensor& a, const Tensor& b, const Tensor* out) {
  MT_CHECK_NOT_IMPLEMENTED(
      !is_complex(a.dtype()) && !is_complex(b.dtype()) && !(out && is_complex(out->dtype())),
      "heaviside is not yet implemented for complex tensors.");
  const bool number = a.impl()->is_wrapped_number() || b.impl()->is_wrapped_number();
  MT_CHECK((number || a.dtype() == b.dtype()) && (!out || out->dtype() == result_type(a, b)),
           "heaviside is not yet implemented for tensors with different dtypes.");
}

// The bitwise rows' kernels (and/or/xor/shifts) refuse a dtype where PyTorch's dispatch does: after
// TensorIterator's cast check into an in-place self or out= (an int64 x.bitwise_and_(1.5) is the cast's error
// there, not "bitwise_and_cpu" not implemented for 'Float'), so the callers run this after theirs.
void check_bitwise_dtype(BinaryOp op, ScalarType common, Device dev) {
  if (rule_of(op) != OpRule::Bitwise) return;
  // PyTorch's shift kernels ("lshift_cpu") take the integer types only: no bool, unlike and/or/xor
  if ((op == BinaryOp::bitwise_left_shift || op == BinaryOp::bitwise_right_shift) &&
      !is_integral(common, /*include_bool=*/false))
    dtype_not_implemented(kernel_name(op == BinaryOp::bitwise_left_shift ? "lshift" : "rshift", dev), common);
  if (is_floating(common)) dtype_not_implemented(kernel_name(name_of(op), dev), common);
}

// Checks that depend on values or dtypes, in PyTorch's words (the bitwise rows': check_bitwise_dtype).
void check_binary(BinaryOp op, ScalarType common, const Tensor& a, const Tensor& b, Device dev) {
  if (op == BinaryOp::sub) check_sub_operands(a, b);
  if (op == BinaryOp::_heaviside) check_heaviside(a, b, nullptr);
  // PyTorch's logaddexp has a complex kernel, logaddexp2 has none
  if ((op == BinaryOp::logaddexp || op == BinaryOp::logaddexp2) && !is_floating(common) &&
      !(op == BinaryOp::logaddexp && is_complex(common)))
    dtype_not_implemented(kernel_name(name_of(op), dev), common);
  // torch.special's zeta and polynomials (the `_special_` rows): PyTorch's kernels take float and double only
  if ((common == ScalarType::Half || common == ScalarType::BFloat16) &&
      std::strncmp(name_of(op), "_special_", 9) == 0)
    dtype_not_implemented(kernel_name(name_of(op) + 9, dev), common);
  if ((op == BinaryOp::_igamma || op == BinaryOp::_igammac) && !is_floating(common))
    dtype_not_implemented(kernel_name(name_of(op) + 1, dev), common);
  if (op == BinaryOp::_hypot && !is_floating(common))
    dtype_not_implemented(kernel_name("hypot", dev), common);
  if (op == BinaryOp::_nextafter && !is_floating(common))
    dtype_not_implemented(kernel_name("nextafter", dev), common);
  // torch.fmax / fmin (their Python wrappers call these rows directly): PyTorch's TypeError for complex
  if (op == BinaryOp::_fmax || op == BinaryOp::_fmin)
    MT_CHECK_TYPE(!is_complex(common), op == BinaryOp::_fmax ? "fmax" : "fmin",
                  " not implemented for complex tensors.");
  if (op == BinaryOp::_prelu_kernel && !is_floating(common))
    dtype_not_implemented(kernel_name("prelu", dev), common);
  if (common == ScalarType::Bool) {
    switch (op) {
      case BinaryOp::floor_divide:
        dtype_not_implemented(kernel_name("div_floor", dev), common);
      case BinaryOp::trunc_divide:
        dtype_not_implemented(kernel_name("div_trunc", dev), common);
      case BinaryOp::remainder:
      case BinaryOp::fmod:
        dtype_not_implemented(kernel_name(name_of(op), dev), common);
      case BinaryOp::pow:
        dtype_not_implemented(dev.is_cuda() ? "pow_cuda" : "pow", common);
      default:
        break;
    }
  }
  bool int_div = op == BinaryOp::floor_divide || op == BinaryOp::remainder || op == BinaryOp::fmod ||
                 op == BinaryOp::trunc_divide;
  // (nothing to divide, an empty operand: no check)
  if (int_div && is_integral(common, true) && a.numel() != 0 && b.numel() != 0) {
    // the divisor as the kernel sees it: a number that wraps to 0 in the dtype (int16 // 65536) divides by 0
    Tensor bc = b.dtype() == common ? b : to(b, common, b.device());
    Tensor zero = eq(bc, wrapped_scalar(Scalar(int64_t(0))));
    MT_CHECK(!item(any(zero)).to_bool(), "ZeroDivisionError");
  }
  // PyTorch refuses only a Python number as the negative exponent; a tensor's negative entries compute
  if (op == BinaryOp::pow && b.impl()->is_wrapped_number() && is_integral(common, false) &&
      is_integral(b.dtype(), false)) {
    MT_CHECK(item(b).to_long() >= 0, "Integers to negative integer powers are not allowed.");
  }
  // PyTorch's tensor-scalar pow converts a Python exponent to a float16/bfloat16/integer result's own type
  // with its checked conversion (float and double take it as a double): 1e30 on float16 is an error there
  if (op == BinaryOp::pow && b.impl()->is_wrapped_number() &&
      (common == ScalarType::Half || common == ScalarType::BFloat16 || is_integral(common, false))) {
    check_scalar_fits(item(b), common);
  }
}

// (compute dtype, output dtype) for a binary op whose promoted input dtype is `common`.
std::pair<ScalarType, ScalarType> binary_dtypes(BinaryOp op, ScalarType common) {
  switch (rule_of(op)) {
    case OpRule::Div: {
      ScalarType f = is_inexact(common) ? common : default_dtype();
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

ScalarType result_type(const Tensor& a, const Tensor& b) {
  return result_type({a, b});
}

// (compute dtype, result dtype) of a unary op on `in`: Float-rule ops compute integers in the default dtype,
// abs of complex is real, predicates give bool.
static std::pair<ScalarType, ScalarType> unary_dtypes(UnaryOp op, ScalarType in, Device dev) {
  check_unary_dtype(op, in, dev);
  // torch.frexp's halves answer integers as torch.frexp does (its wrapper checks first)
  MT_CHECK((op != UnaryOp::_frexp_mantissa && op != UnaryOp::_frexp_exponent) || is_floating(in),
           "torch.frexp() only supports floating-point dtypes");
  const OpRule r = rule_of(op);
  ScalarType out_dt = in;
  if (r == OpRule::Float && !is_inexact(in)) in = out_dt = default_dtype();
  if (is_complex(in)) {
    MT_CHECK_NOT_IMPLEMENTED(
        op != UnaryOp::sign,
        "Unlike NumPy, torch.sign is not intended to support complex numbers. Please use torch.sgn instead.");
    MT_CHECK_NOT_IMPLEMENTED(op != UnaryOp::_signbit, "signbit is not implemented for complex tensors.");
    if (op == UnaryOp::abs) out_dt = to_real_type(in);
  }
  if (r == OpRule::Bool) out_dt = ScalarType::Bool;
  return {in, out_dt};
}

Tensor native::unary(UnaryOp op, const Tensor& self) {
  auto [in, out_dt] = unary_dtypes(op, self.dtype(), self.device());
  Tensor x = prepare(self, in, self.device());
  Tensor out = empty_for_iter(self.sizes(), out_dt, self.device(), {&self});
  if (out.numel() == 0) return out;
  TensorIter it = TensorIter::make({out, x});
  unary_stub.get(out.device())(it, op);
  return out;
}

const Tensor& native::unary_(UnaryOp op, const Tensor& self) {
  MT_CHECK(!(op == UnaryOp::abs && is_complex(self.dtype())),
           "In-place abs is not supported for complex tensors.");
  // where the op reads and writes self's own dtype, the kernel writes self in place (element i reads only
  // element i): no temporary and no copy back, which ran abs_ and frac_ at 0.3 of PyTorch's speed
  auto [in, out_dt] = unary_dtypes(op, self.dtype(), self.device());  // (PyTorch's refusals first)
  if (in == self.dtype() && out_dt == self.dtype()) {
    check_writable(self);
    if (self.numel() == 0) {
      wrote(self);
      return self;
    }
    TensorIter it = TensorIter::make({self, self});
    unary_stub.get(self.device())(it, op);
    wrote(self);
    return self;
  }
  Tensor r = mt::unary(op, self);
  MT_CHECK(can_cast(r.dtype(), self.dtype()), "result type ", dtype_short_name(r.dtype()),
           " can't be cast to the desired output type ", dtype_short_name(self.dtype()));
  return copy_(self, r);
}

// PyTorch's pow of a float tensor by the Python number 0.5 or -0.5 is sqrt or rsqrt (its tensor-scalar
// kernel's shortcut): the same as pow but at -inf (NaN there, pow's +inf) and -0 (sqrt keeps the sign). A
// tensor exponent, 0-d included, takes pow. 1 for sqrt, -1 for rsqrt, else 0.
static int half_power(BinaryOp op, const Tensor& a, const Tensor& b) {
  if (op != BinaryOp::pow || !b.impl()->is_wrapped_number() || !is_floating(a.dtype()) ||
      !is_floating(b.dtype()))
    return 0;
  const double e = item(b).to_double();
  return e == 0.5 ? 1 : e == -0.5 ? -1 : 0;
}

// PyTorch's tensor-scalar pow of a float tensor by a small integral Python number is products and
// reciprocals, not a pow per element (x*x*x for 3, 1/(x*x) for -2: rounded as PyTorch's kernel rounds them).
// Empty when the exponent is none of those.
static std::optional<Tensor> integral_power(BinaryOp op, const Tensor& a, const Tensor& b) {
  if (op != BinaryOp::pow || !b.impl()->is_wrapped_number() || !is_floating(a.dtype()) ||
      is_complex(b.dtype()) || b.dtype() == ScalarType::Bool)
    return std::nullopt;
  const double e = item(b).to_double();
  if (e == 2) return mt::mul(a, a);
  if (e == -1) return mt::reciprocal(a);
  if (e == 0) return mt::full(a.sizes(), 1, a.dtype(), a.device());  // 1 everywhere, NaN included
  // two steps round twice, as PyTorch's float, double and bfloat16 kernels do; its half kernel computes x**3
  // in float and rounds once, which pow does too
  const bool single =
      a.dtype() == ScalarType::Float || a.dtype() == ScalarType::Double || a.dtype() == ScalarType::BFloat16;
  if (e == 3 && single) return mt::mul(mt::mul(a, a), a);
  if (e == -2 && single) return mt::reciprocal(mt::mul(a, a));
  if (e == 1) return mt::clone(a);
  return std::nullopt;
}

// A bool tensor to the power of a Python bool: PyTorch's tensor-scalar pow takes exponent 0/false as a fill
// with 1 and 1/true as a copy before its kernel, which has no bool case (True ** False is True here too).
static std::optional<Tensor> bool_power(BinaryOp op, const Tensor& a, const Tensor& b) {
  if (op != BinaryOp::pow || a.dtype() != ScalarType::Bool || b.dtype() != ScalarType::Bool ||
      !b.impl()->is_wrapped_number())
    return std::nullopt;
  return item(b).to_bool() ? mt::clone(a) : mt::full(a.sizes(), true, ScalarType::Bool, a.device());
}

// float16/bfloat16 nextafter on their own bits (the Nextafter functor sees their float opmath values), as the
// Python wrapper's composite does for them: the 16-bit integer steps one unit away from zero exactly when the
// value does; zero steps to the smallest subnormal of y's sign, equal operands give y, NaN gives NaN
static Tensor nextafter_reduced(const Tensor& a, const Tensor& b, ScalarType dt, Device dev) {
  auto bin = [](BinaryOp op, const Tensor& p, const Tensor& q) { return native::binary(op, p, q); };
  auto num = [](auto v) { return wrapped_scalar(Scalar(v)); };
  const Tensor x = to(a, dt, dev), y = to(b, dt, dev), zero = num(0.0);
  const Tensor away = bin(BinaryOp::eq, bin(BinaryOp::gt, y, x), bin(BinaryOp::gt, x, zero));
  const Tensor step = bin(
      BinaryOp::sub, bin(BinaryOp::mul, to(away, ScalarType::Short, dev), num(int64_t(2))), num(int64_t(1)));
  Tensor r = view_dtype(bin(BinaryOp::add, view_dtype(x, ScalarType::Short), step), dt);
  const Tensor tiny = num(dt == ScalarType::Half ? 0x1p-24 : 0x1p-133);
  r = where(bin(BinaryOp::eq, x, zero), bin(BinaryOp::mul, native::unary(UnaryOp::sign, y), tiny), r);
  r = where(bin(BinaryOp::eq, x, y), y, r);
  const Tensor nan =
      bin(BinaryOp::logical_or, native::unary(UnaryOp::isnan, x), native::unary(UnaryOp::isnan, y));
  return where(nan, bin(BinaryOp::add, x, y), r);
}

// PyTorch's CPU mul and true division of a float16/bfloat16 tensor by a one-element second operand of another
// dtype (a Python number, a 0-d float tensor) read that operand un-narrowed, as a float: half * 1e5 is finite
// there, not the NaN/inf of half(1e5). Where narrowing changes the scalar, the op runs in float and rounds
// once; otherwise (2, 0.5, ...) the narrowed kernel's result is the same bits.
static std::optional<Tensor> reduced_by_float_scalar(BinaryOp op, const Tensor& a, const Tensor& b,
                                                     ScalarType compute, Device dev) {
  if ((op != BinaryOp::mul && op != BinaryOp::div) || !dev.is_cpu() ||
      (compute != ScalarType::Half && compute != ScalarType::BFloat16) || b.numel() != 1 ||
      b.dtype() == compute || is_complex(b.dtype()))
    return std::nullopt;
  const Tensor b32 = to(b, ScalarType::Float, dev);  // (b itself: a [1, 1] operand still broadcasts)
  const double f = item(b32).to_double();
  if (item(to(b, compute, dev)).to_double() == f || std::isnan(f)) return std::nullopt;
  return to(native::binary(op, to(a, ScalarType::Float, dev), b32), compute, dev);
}

Tensor native::binary(BinaryOp op, const Tensor& a, const Tensor& b) {
  if (const int h = half_power(op, a, b)) return mt::unary(h > 0 ? UnaryOp::sqrt : UnaryOp::rsqrt, a);
  if (auto r = integral_power(op, a, b)) return *r;
  if (auto r = bool_power(op, a, b)) return *r;
  Device dev = common_device({&a, &b});
  ScalarType common = result_type(a, b);
  check_binary(op, common, a, b, dev);
  check_bitwise_dtype(op, common, dev);
  if (op == BinaryOp::_nextafter && (common == ScalarType::Half || common == ScalarType::BFloat16))
    return nextafter_reduced(a, b, common, dev);
  auto [compute, out_dt] = binary_dtypes(op, common);
  if (auto r = reduced_by_float_scalar(op, a, b, compute, dev)) return *r;
  Tensor x = prepare(a, compute, dev), y = prepare(b, compute, dev);
  DimVector shape = a.sizes() == b.sizes() ? a.sizes() : broadcast_shapes(a.sizes(), b.sizes());
  Tensor out = empty_for_iter(shape, out_dt, dev, {&a, &b});
  if (out.numel() == 0) return out;
  TensorIter it = TensorIter::make({out, x, y});
  binary_stub.get(dev)(it, op);
  return out;
}

const Tensor& native::binary_(BinaryOp op, const Tensor& self, const Tensor& other) {
  if (const int h = half_power(op, self, other))
    return mt::unary_(h > 0 ? UnaryOp::sqrt : UnaryOp::rsqrt, self);
  if (auto r = integral_power(op, self, other)) {
    check_writable(self);
    return copy_(self, *r);
  }
  if (auto r = bool_power(op, self, other)) {
    check_writable(self);
    return copy_(self, *r);
  }
  check_writable(self);
  Device dev = common_device({&self, &other}, &self);
  ScalarType common = result_type(self, other);
  check_binary(op, common, self, other, dev);
  auto [compute, out_dt] = binary_dtypes(op, common);
  MT_CHECK(can_cast(out_dt, self.dtype()), "result type ", dtype_short_name(out_dt),
           " can't be cast to the desired output type ", dtype_short_name(self.dtype()));
  check_bitwise_dtype(op, common, dev);
  DimVector shape = broadcast_shapes(self.sizes(), other.sizes());
  MT_CHECK(IntArrayRef(shape).equals(self.sizes()), "output with shape ", shape_str(self.sizes()),
           " doesn't match the broadcast shape ", shape_str(shape));
  if (self.numel() == 0) {
    wrote(self);
    return self;
  }
  if (auto r = reduced_by_float_scalar(op, self, other, compute, dev)) return copy_(self, *r);
  Tensor y = prepare(unaliased_input(self, other), compute, dev);
  if (self.dtype() == compute && out_dt == compute) {
    TensorIter it = TensorIter::make({self, self, y});
    binary_stub.get(dev)(it, op);
    wrote(self);
    return self;
  }
  Tensor x = prepare(self, compute, dev);
  Tensor out = empty_for_iter(shape, out_dt, dev, {&self});  // self's layout: the copy back is one flat pass
  TensorIter it = TensorIter::make({out, x, y});
  binary_stub.get(dev)(it, op);
  return copy_(self, out);
}

// ---- out=

namespace {

// The written tensor, after the checks, with its inputs: anything sharing out's memory other than as out's
// very own view is read from a copy (what PyTorch's overlap check cannot prove safe it computes anyway; we
// copy).
Tensor out_input(const Tensor& out, const Tensor& t, ScalarType dtype, Device dev) {
  return prepare(unaliased_input(out, t), dtype, dev);
}

[[noreturn]] void cast_error(ScalarType from, ScalarType to_dt) {
  MT_ERROR("result type ", dtype_short_name(from), " can't be cast to the desired output type ",
           dtype_short_name(to_dt));
}

}  // namespace

bool resize_out(const Tensor& out, IntArrayRef shape) {
  if (IntArrayRef(out.sizes()).equals(shape)) return false;
  const bool had_elements = out.numel() != 0;
  const int64_t n = compute_numel(shape);
  const size_t need = static_cast<size_t>(out.storage_offset() + n) * out.itemsize();
  if (need <= out.storage()->nbytes)
    out.impl()->set_sizes_strides(shape, contiguous_strides(shape), out.storage_offset());
  else {
    Tensor bigger = make_empty(shape, out.dtype(), out.device());
    bigger.storage()->version.store(out.version(), std::memory_order_relaxed);  // out keeps its version count
    out.impl()->set_data(*bigger.impl());
  }
  return had_elements;
}

void check_out_overlap(const Tensor& out, const Tensor& input) {
  if (!input.defined() || out.is_same(input) || out.numel() == 0 || input.numel() == 0) return;
  if (!same_memory(out, input)) return;
  if (!non_overlapping_and_dense(out) || !non_overlapping_and_dense(input)) return;  // PyTorch's TooHard
  const char* ob = static_cast<const char*>(out.data_ptr());
  const char* oe = ob + out.numel() * out.itemsize();
  const char* ib = static_cast<const char*>(input.data_ptr());
  const char* ie = ib + input.numel() * input.itemsize();
  const bool full = ob == ib && oe == ie && out.strides() == input.strides();
  MT_CHECK(
      full || !(ob < ie && ib < oe),
      "unsupported operation: some elements of the input tensor and the written-to tensor refer to a single "
      "memory location. Please clone() the tensor before performing the operation.");
}

bool out_takes(const Tensor& out, IntArrayRef shape, ScalarType dtype, Device device, bool strided,
               std::initializer_list<const Tensor*> inputs) {
  if (!IntArrayRef(out.sizes()).equals(shape) || out.dtype() != dtype || out.device() != device ||
      out.numel() == 0)
    return false;
  if (strided) {
    // no internal overlap: the dims of more than one element, by stride, each step past the previous span
    DimVector st, sz;
    for (int64_t d = 0; d < out.dim(); ++d)
      if (out.sizes()[d] > 1) {
        size_t k = st.size();
        st.push_back(out.strides()[d]);
        sz.push_back(out.sizes()[d]);
        for (; k > 0 && st[k - 1] > st[k]; --k) {
          std::swap(st[k - 1], st[k]);
          std::swap(sz[k - 1], sz[k]);
        }
      }
    int64_t span = 1;
    for (size_t k = 0; k < st.size(); ++k) {
      if (st[k] < span) return false;
      span = st[k] * sz[k];
    }
  } else if (!out.is_contiguous()) {
    return false;
  }
  for (const Tensor* t : inputs)
    if (t->defined() && same_memory(out, *t)) return false;
  return true;
}

// resize_out, and a resized out takes the strides the op's own result would have (PyTorch restrides it too:
// torch.add(x_cl, y_cl, out=torch.empty(0)) is channels-last); an out of the right shape keeps its strides.
static bool resize_out_for(const Tensor& out, IntArrayRef shape,
                           std::initializer_list<const Tensor*> inputs) {
  if (IntArrayRef(out.sizes()).equals(shape)) return false;
  DimVector st = iter_output_strides(shape, inputs);  // before resizing: an input may be out itself
  const bool warn = resize_out(out, shape);
  if (!st.empty()) out.impl()->set_sizes_strides(shape, st, out.storage_offset());
  return warn;
}

bool binary_out(BinaryOp op, const Tensor& a, const Tensor& b, const Tensor& out) {
  if (op == BinaryOp::_heaviside) check_heaviside(a, b, &out);
  check_writable(out);
  Device dev = common_device({&out, &a, &b}, &out);
  check_out_overlap(out, a);
  check_out_overlap(out, b);
  DimVector shape = a.sizes() == b.sizes() ? a.sizes() : broadcast_shapes(a.sizes(), b.sizes());
  ScalarType common = result_type(a, b);
  check_binary(op, common, a, b, dev);
  auto [compute, out_dt] = binary_dtypes(op, common);
  if (!can_cast(out_dt, out.dtype())) cast_error(out_dt, out.dtype());
  check_bitwise_dtype(op, common, dev);
  const bool warn = resize_out_for(out, shape, {&a, &b});
  if (out.numel() == 0) {
    wrote(out);
    return warn;
  }
  if (auto r = reduced_by_float_scalar(op, a, b, compute, dev)) {
    copy_(out, *r);
    return warn;
  }
  Tensor x = out_input(out, a, compute, dev), y = out_input(out, b, compute, dev);
  if (out.dtype() == out_dt) {
    TensorIter it = TensorIter::make({out, x, y});
    binary_stub.get(dev)(it, op);
    wrote(out);
  } else {
    Tensor r = make_empty(shape, out_dt, dev);
    TensorIter it = TensorIter::make({r, x, y});
    binary_stub.get(dev)(it, op);
    copy_(out, r);
  }
  return warn;
}

void check_unary_out_dtype(UnaryOp op, ScalarType in, ScalarType out) {
  if (rule_of(op) != OpRule::Same || (op == UnaryOp::abs && is_complex(in))) return;
  MT_CHECK(out == in, "Found dtype ", dtype_short_name(out), " but expected ", dtype_short_name(in));
}

bool unary_out(UnaryOp op, const Tensor& self, const Tensor& out) {
  check_writable(out);
  Device dev = common_device({&out, &self}, &out);
  check_out_overlap(out, self);
  check_unary_out_dtype(op, self.dtype(), out.dtype());
  auto [in, out_dt] = unary_dtypes(op, self.dtype(), dev);
  if (!can_cast(out_dt, out.dtype())) cast_error(out_dt, out.dtype());
  const bool warn = resize_out_for(out, self.sizes(), {&self});
  if (out.numel() == 0) {
    wrote(out);
    return warn;
  }
  Tensor x = out_input(out, self, in, dev);
  if (out.dtype() == out_dt) {
    TensorIter it = TensorIter::make({out, x});
    unary_stub.get(dev)(it, op);
    wrote(out);
  } else {
    Tensor res = make_empty(self.sizes(), out_dt, dev);
    TensorIter it = TensorIter::make({res, x});
    unary_stub.get(dev)(it, op);
    copy_(out, res);
  }
  return warn;
}

// alpha=1 given as an int (the default): add/sub take other as it is
static bool unit_alpha(const Scalar& alpha) {
  return alpha.is_integral() && alpha.to_long() == 1;
}

// `negated`: sub's alpha, which PyTorch's kernel takes as -alpha, so the checked cast is of -alpha (int8's
// alpha=-128 overflows there, alpha=128 fits)
static Tensor scale_by_alpha(const Tensor& a, const Tensor& b, const Scalar& alpha, bool negated) {
  if (unit_alpha(alpha)) return b;
  ScalarType common = result_type(a, b);
  MT_CHECK(!is_integral(common, true) || !alpha.is_floating(),
           "For integral input tensors, argument alpha must not be a floating point number.");
  MT_CHECK(common == ScalarType::Bool || !alpha.is_bool(),
           "Boolean alpha only supported for Boolean results.");
  MT_CHECK(is_complex(common) || !alpha.is_complex(),
           "For non-complex input tensors, argument alpha must not be a complex number.");
  if (common != ScalarType::Bool && !alpha.is_complex()) {
    Scalar cast = alpha;
    if (negated)  // int64's min negates to itself, as in C++'s two's complement
      cast = alpha.is_integral() ? Scalar(static_cast<int64_t>(0 - static_cast<uint64_t>(alpha.to_long())))
                                 : Scalar(-alpha.to_double());
    check_scalar_fits(cast, common);  // its kernel's cast
  }
  // bool results: PyTorch's kernel takes alpha as a bool, so an int alpha must not promote b to int64
  if (common == ScalarType::Bool) return binary(BinaryOp::mul, b, wrapped_scalar(Scalar(alpha.to_bool())));
  // a Python number times alpha stays a number (add(bfloat16 0-d, -1, alpha=-1.5) is bfloat16, as PyTorch's)
  if (b.impl()->is_wrapped_number() && !is_complex(b.dtype()) && !alpha.is_complex()) {
    const Scalar v = item(b);
    if ((v.is_integral() || v.is_bool()) && alpha.is_integral())
      return wrapped_scalar(Scalar(wrap_mul(v.to_long(), alpha.to_long())));
    // the number in the result's dtype first, as PyTorch's kernel reads it: 1e30 is inf in float16, and inf
    // times alpha = 0 is NaN, not 0
    double x = v.to_double();
    if (is_floating(common) && common != ScalarType::Double) {
      // past float's range (beyond its largest value plus half an ulp) is inf; a C++ cast there is undefined
      if (std::fabs(x) >= 3.4028235677973366e38)
        x = std::copysign(std::numeric_limits<double>::infinity(), x);
      MT_DISPATCH_FLOATING_TYPES(common, "add", [&] { x = static_cast<double>(static_cast<scalar_t>(x)); });
    }
    return wrapped_scalar(Scalar(x * alpha.to_double()));
  }
  // b in the result's dtype first: alpha * b rounds once there, as PyTorch's kernel (a float16 b scaled in
  // float16 and then promoted would round twice)
  const Tensor bc = b.dtype() == common ? b : to(b, common, b.device());
  return binary(BinaryOp::mul, bc, wrapped_scalar(alpha));
}

Tensor scale_by_alpha(const Tensor& a, const Tensor& b, const Scalar& alpha) {
  return scale_by_alpha(a, b, alpha, false);
}

// p.add_(g, alpha=-lr), a hand-written SGD step, would otherwise scale g into a temporary and then add it:
// two passes over memory and an allocation. Same float dtype, shape and device, dense, no overlap and no
// autograd: the multi-tensor kernel does self += alpha * other in one pass (rounded once, in opmath).
const Tensor& add_scaled_(const Tensor& self, const Tensor& other, const Scalar& alpha, bool subtract) {
  if (subtract) check_sub_operands(self, other);
  if (!unit_alpha(alpha) && !alpha.is_bool() && !alpha.is_complex() && is_floating(self.dtype()) &&
      other.dtype() == self.dtype() && other.device() == self.device() && other.sizes() == self.sizes() &&
      self.numel() >= 4096 && self.is_contiguous() && other.is_contiguous() && !needs_grad(self, other) &&
      !autocast::active() && (!same_memory(other, self) || other.data_ptr() == self.data_ptr())) {
    check_scalar_fits(alpha, self.dtype());
    const double a = alpha.to_double();
    foreach_add_({self}, {other}, subtract ? -a : a);
    return self;
  }
  return binary_(subtract ? BinaryOp::sub : BinaryOp::add, self,
                 scale_by_alpha(self, other, alpha, subtract));
}

Tensor add(const Tensor& a, const Tensor& b, const Scalar& alpha) {
  return binary(BinaryOp::add, a, scale_by_alpha(a, b, alpha, false));
}

Tensor sub(const Tensor& a, const Tensor& b, const Scalar& alpha) {
  check_sub_operands(a, b);
  return binary(BinaryOp::sub, a, scale_by_alpha(a, b, alpha, true));
}

Tensor div(const Tensor& a, const Tensor& b, const std::optional<std::string>& rounding_mode) {
  if (!rounding_mode) return binary(BinaryOp::div, a, b);
  if (*rounding_mode == "trunc") return binary(BinaryOp::trunc_divide, a, b);
  if (*rounding_mode == "floor") return binary(BinaryOp::floor_divide, a, b);
  MT_CHECK(false, "div expected rounding_mode to be one of None, 'trunc', or 'floor' but found '",
           *rounding_mode, "'");
}

static Tensor param_unary(const Tensor& self, ParamUnaryOp op, double p0, double p1, double p2 = 0.0,
                          const Tensor* into = nullptr);

// The result of a TensorIter op with out= (the *_into front ends, declared beside their ops): out itself when
// out_takes it (any layout without internal overlap, as the iterator writes through out's strides), else a
// fresh tensor that the binding copies into out, as the general path does.
static Tensor iter_result(const Tensor* into, IntArrayRef shape, ScalarType dt, Device dev,
                          std::initializer_list<const Tensor*> inputs) {
  if (into && out_takes(*into, shape, dt, dev, true, inputs)) return *into;
  return empty_for_iter(shape, dt, dev, inputs);
}

// one bump of out's version when the op wrote into it (the general path's copy_ bumps once)
static Tensor wrote_if_into(const Tensor& out, Tensor r) {
  if (r.is_same(out)) wrote(out);
  return r;
}

// clamp's bounds as two doubles (a missing one -inf or +inf) where both given ones are Python numbers that
// convert to the dtype as their wrapped tensors would: not NaN (the general functor's rule for those), an
// integer no larger than 2^53 (exact in double, so rounded once to float32)
static bool number_bounds(const std::optional<Tensor>& min, const std::optional<Tensor>& max, double* b) {
  b[0] = -std::numeric_limits<double>::infinity();
  b[1] = std::numeric_limits<double>::infinity();
  for (int i = 0; i < 2; ++i) {
    const std::optional<Tensor>& t = i ? max : min;
    if (!t) continue;
    if (!t->impl()->is_wrapped_number() || is_complex(t->dtype())) return false;
    const double v = item(*t).to_double();
    if (v != v || (is_integral(t->dtype(), false) && std::abs(v) > 9007199254740992.0)) return false;
    b[i] = v;
  }
  return true;
}

static Tensor clamp_impl(const Tensor& self, const std::optional<Tensor>& min,
                         const std::optional<Tensor>& max, const Tensor* into) {
  MT_CHECK(min || max, "torch.clamp: At least one of 'min' or 'max' must not be None");
  Tensor lo = min ? *min : Tensor(), hi = max ? *max : Tensor();
  Device dev = common_device({&self, &lo, &hi});
  ScalarType dt = result_type({self, lo, hi});
  if (dt == ScalarType::Bool) {
    // PyTorch's bool clamp_min/clamp_max with a tensor bound compute (a maximum or minimum); its scalar
    // kernels and the two-bound kernel do not
    bool scalar = (!min || min->impl()->is_wrapped_number()) && (!max || max->impl()->is_wrapped_number());
    if (min && !max && !scalar) return mt::binary(BinaryOp::maximum, self, *min);
    if (max && !min && !scalar) return mt::binary(BinaryOp::minimum, self, *max);
    const char* k = !scalar ? "clamp"
                    : !max  ? "clamp_min_scalar"
                    : !min  ? "clamp_max_scalar"
                            : "clamp_scalar";
    dtype_not_implemented(kernel_name(k, dev), dt);
  }
  // two number bounds, one of them NaN: PyTorch fills the result with NaN before converting either bound
  // (a half tensor clipped to (1e30, nan) is NaN, not min's overflow)
  if (min && max && min->impl()->is_wrapped_number() && max->impl()->is_wrapped_number() &&
      !is_complex(min->dtype()) && !is_complex(max->dtype())) {
    const double a = item(*min).to_double(), c = item(*max).to_double();
    if (a != a || c != c) {
      Tensor out = iter_result(into, self.sizes(), dt, dev, {&self});
      FreshWrites fresh;  // a fresh result, or out= whose one bump is clamp_into's
      mt::fill_(out, Scalar(std::numeric_limits<double>::quiet_NaN()));
      return out;
    }
  }
  // a float32/float64 tensor between two numbers: one unary pass (fn::ClampScalar), 1.5x the ternary loop
  // over two broadcast bound tensors
  double b[2];
  if ((dt == ScalarType::Float || dt == ScalarType::Double) && self.dtype() == dt &&
      number_bounds(min, max, b)) {
    // PyTorch converts a number bound to the dtype: a finite one past float's range overflows
    for (double v : b)
      MT_CHECK(dt == ScalarType::Double || std::isinf(v) || std::abs(v) <= 3.4028234663852886e38,
               "value cannot be converted to type float without overflow");
    return param_unary(self, ParamUnaryOp::clamp, b[0], b[1], 0.0, into);
  }
  if (is_floating(dt)) {
    for (const std::optional<Tensor>* t : {&min, &max})
      if (*t && (*t)->impl()->is_wrapped_number() && !is_complex((*t)->dtype()))
        check_scalar_fits(item(**t), dt);
  }
  DimVector shape = self.sizes();
  if (min) shape = broadcast_shapes(shape, min->sizes());
  if (max) shape = broadcast_shapes(shape, max->sizes());
  Tensor x = prepare(self, dt, dev);
  // A Python integer bound outside an integer dtype's range saturates instead of wrapping (clamp_min(uint8,
  // -1) keeps x, as PyTorch); a bound that would clamp everything outside the range (a max below the lowest
  // value, a min above the highest) is refused, as PyTorch's
  auto bound = [&](const Tensor& b, bool is_max) {
    if (!is_integral(dt, false) || !b.impl()->is_wrapped_number() || !is_integral(b.dtype(), false)) return b;
    int64_t lo = std::numeric_limits<int64_t>::min(), hi = std::numeric_limits<int64_t>::max();
    MT_DISPATCH_INTEGRAL_TYPES(dt, "clamp", [&] {
      lo = std::numeric_limits<scalar_t>::min(), hi = std::numeric_limits<scalar_t>::max();
    });
    const int64_t v = item(b).to_long();
    MT_CHECK(is_max ? v >= lo : v <= hi, "Clamp ", is_max ? "max" : "min", " value ", v,
             " is outside the representable range of ", dtype_short_name(dt));
    return v < lo ? wrapped_scalar(Scalar(lo)) : v > hi ? wrapped_scalar(Scalar(hi)) : b;
  };
  Tensor l = min ? prepare(bound(*min, false), dt, dev) : x;
  Tensor h = max ? prepare(bound(*max, true), dt, dev) : x;
  Tensor out = iter_result(into, shape, dt, dev, {&self, &lo, &hi});
  if (out.numel() == 0) return out;
  TensorIter it = TensorIter::make({out, x, l, h});
  clamp_stub.get(dev)(it, min.has_value(), max.has_value());
  return out;
}

Tensor native::clamp(const Tensor& self, const std::optional<Tensor>& min, const std::optional<Tensor>& max) {
  return clamp_impl(self, min, max, nullptr);
}

Tensor clamp_into(const Tensor& out, const Tensor& self, const std::optional<Tensor>& min,
                  const std::optional<Tensor>& max) {
  return wrote_if_into(out, clamp_impl(self, min, max, &out));
}

const Tensor& native::clamp_(const Tensor& self, const std::optional<Tensor>& min,
                             const std::optional<Tensor>& max) {
  Tensor lo = min ? *min : Tensor(), hi = max ? *max : Tensor();
  common_device({&self, &lo, &hi}, &self);  // self is written: it must be on the op's device
  Tensor r = mt::clamp(self, min, max);
  MT_CHECK(can_cast(r.dtype(), self.dtype()), "result type ", dtype_short_name(r.dtype()),
           " can't be cast to the desired output type ", dtype_short_name(self.dtype()));
  MT_CHECK(IntArrayRef(r.sizes()).equals(self.sizes()), "output with shape ", shape_str(self.sizes()),
           " doesn't match the broadcast shape ", shape_str(r.sizes()));
  return copy_(self, r);
}

Tensor native::where(const Tensor& cond, const Tensor& a, const Tensor& b) {
  MT_CHECK(cond.dtype() == ScalarType::Bool || cond.dtype() == ScalarType::Byte,
           "where expected condition to be a boolean tensor, but got a tensor with dtype ",
           dtype_short_name(cond.dtype()));
  if (cond.dtype() == ScalarType::Byte) {  // still taken (nonzero is true), with PyTorch's one-time warning
    static bool warned = false;
    if (!warned) {
      warned = true;
      warn(
          "where received a uint8 condition tensor. This behavior is deprecated and will be removed in a "
          "future version of PyTorch. Use a boolean condition instead.");
    }
  }
  Device dev = common_device({&cond, &a, &b});
  ScalarType dt = result_type(a, b);
  DimVector shape = broadcast_shapes(broadcast_shapes(cond.sizes(), a.sizes()), b.sizes());
  Tensor c = prepare(cond, ScalarType::Bool, dev), x = prepare(a, dt, dev), y = prepare(b, dt, dev);
  Tensor out = empty_for_iter(shape, dt, dev, {&cond, &a, &b});
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

Tensor native::masked_fill(const Tensor& self, const Tensor& mask, const Tensor& value) {
  check_masked_fill(mask, value);
  // out of place, self broadcasts with the mask as well (PyTorch's expand_outplace: a wider mask widens the
  // result, and the expand is recorded, so the gradient sums over the new dims)
  DimVector shape = broadcast_shapes(mask.sizes(), self.sizes());
  Tensor out = mt::clone(IntArrayRef(shape).equals(self.sizes()) ? self : mt::expand(self, shape));
  FreshWrites fresh;
  mt::masked_fill_(out, mask, value);
  return out;
}

const Tensor& native::masked_fill_(const Tensor& self, const Tensor& mask, const Tensor& value) {
  check_masked_fill(mask, value);
  check_writable(self);
  DimVector shape = broadcast_shapes(self.sizes(), mask.sizes());
  MT_CHECK(IntArrayRef(shape).equals(self.sizes()), "output with shape ", shape_str(self.sizes()),
           " doesn't match the broadcast shape ", shape_str(shape));
  Device dev = common_device({&self, &mask, &value}, &self);
  // PyTorch's CPU kernel reads the value as a number of self's dtype, checked (an int tensor filled with inf
  // is its overflow error); its CUDA kernel reads the tensor as it is
  if (!value.device().is_cuda()) check_scalar_fits(item(value), self.dtype());
  Tensor v = prepare(unaliased_input(self, value), self.dtype(), dev);
  Tensor m = prepare(unaliased_input(self, mask), ScalarType::Bool, dev);
  broadcast_strides(m, self.sizes());  // the mask must broadcast to self, not the other way round
  if (self.numel() == 0) {
    wrote(self);
    return self;
  }
  TensorIter it = TensorIter::make({self, m, v, self});
  where_stub.get(dev)(it);
  wrote(self);
  return self;
}

static Tensor param_unary(const Tensor& self, ParamUnaryOp op, double p0, double p1, double p2,
                          const Tensor* into) {
  ScalarType dt = is_floating(self.dtype()) ? self.dtype() : default_dtype();
  Tensor x = prepare(self, dt, self.device());
  Tensor out = iter_result(into, self.sizes(), dt, self.device(), {&self});
  if (out.numel() == 0) return out;
  TensorIter it = TensorIter::make({out, x});
  param_unary_stub.get(out.device())(it, op, p0, p1, p2);
  return out;
}

// softplus/leaky_relu: PyTorch's kernels take floating types only ("leaky_relu_cpu" not implemented for
// 'Long')
static void check_float_activation(const Tensor& self, const char* op) {
  if (!is_floating(self.dtype())) dtype_not_implemented(kernel_name(op, self.device()), self.dtype());
}

// PyTorch's round.decimals (torch.round(x, decimals=d), special.round): nearbyint(x * 10^d) / 10^d, for d < 0
// nearbyint(x / 10^-d) * 10^-d, in the opmath of the element type (float for float16/bfloat16, rounded back
// once), the power of ten rounded to that type as its kernel's static_cast does: one pass (fn::RoundDecimals;
// its composite of mul, round and div was three, 0.1-0.7 of PyTorch's time). Its kernel ("round_cpu") takes
// floating types only; decimals=0 is round's kernel, which refuses integers too ("round_vml_cpu", where
// torch.round(x) without decimals returns them unchanged). The bindings call autograd::round_decimals, which
// records it as PyTorch's one RoundBackward1 node (gradient zero).
Tensor round_decimals(const Tensor& self, int64_t decimals) {
  const ScalarType dt = self.dtype();
  if (!is_floating(dt))
    dtype_not_implemented(kernel_name(decimals ? "round" : "round_vml", self.device()), dt);
  if (decimals == 0) return mt::round(self);
  const double p = std::pow(10.0, static_cast<double>(decimals < 0 ? -decimals : decimals));
  return param_unary(self, ParamUnaryOp::round_decimals, p, decimals < 0 ? 1.0 : 0.0);
}

Tensor native::softplus(const Tensor& self, double beta, double threshold) {
  check_float_activation(self, "softplus");
  return param_unary(self, ParamUnaryOp::softplus, beta, threshold);
}
// F.logsigmoid's one pass (its Python front end checks the dtype): the composite's where, relu, sub, softplus
// and sub were five passes
Tensor native::log_sigmoid(const Tensor& self) {
  check_float_activation(self, "log_sigmoid");
  return param_unary(self, ParamUnaryOp::log_sigmoid, 0.0, 0.0);
}
Tensor native::leaky_relu(const Tensor& self, double negative_slope) {
  check_float_activation(self, "leaky_relu");
  return param_unary(self, ParamUnaryOp::leaky_relu, negative_slope, 0.0);
}
// F.hardshrink / F.threshold of float32/float64 inputs (python/minitorch/nn/functional/_activation.py checks
// the arguments; other dtypes stay its composite): one pass instead of two compares and two wheres
Tensor native::hardshrink(const Tensor& self, double lambd) {
  check_float_activation(self, "hardshrink");
  return param_unary(self, ParamUnaryOp::hardshrink, lambd, 0.0);
}
// F.softshrink (its Python front end checks lambd's range): one pass instead of a clamp and a subtraction
Tensor native::softshrink(const Tensor& self, double lambd) {
  check_float_activation(self, "softshrink");
  return param_unary(self, ParamUnaryOp::softshrink, lambd, 0.0);
}
Tensor native::threshold(const Tensor& self, double threshold, double value) {
  check_float_activation(self, "threshold");
  return param_unary(self, ParamUnaryOp::threshold, threshold, value);
}
// one pass instead of the composite's expm1, two multiplies, a compare and a where (selu ran at a tenth of
// PyTorch's speed)
Tensor native::elu(const Tensor& self, double alpha, double scale, double input_scale, double) {
  check_float_activation(self, "elu");
  return param_unary(self, ParamUnaryOp::elu, alpha * scale, scale, input_scale);
}
// torch.nan_to_num's floating tensors: one pass instead of isnan, clamp and where (or three masked_fills)
Tensor nan_to_num_values(const Tensor& self, double nan, double posinf, double neginf) {
  MT_CHECK(is_floating(self.dtype()), "nan_to_num_values: a floating tensor, got ",
           dtype_short_name(self.dtype()));
  return param_unary(self, ParamUnaryOp::nan_to_num, nan, posinf, neginf);
}
Tensor logit_values(const Tensor& self, double eps) {
  MT_CHECK(is_floating(self.dtype()), "logit_values: a floating tensor, got ",
           dtype_short_name(self.dtype()));
  return param_unary(self, ParamUnaryOp::logit, eps, 0.0);
}
Tensor native::polygamma(int64_t n, const Tensor& self) {
  MT_CHECK(n >= 0, "polygamma(n, x) does not support negative n.");
  return param_unary(self, ParamUnaryOp::polygamma, static_cast<double>(n), 0.0);
}

const Tensor& polygamma_(int64_t n, const Tensor& self) {
  // computed from a copy when autograd records: the backward needs the values this call overwrites
  Tensor r = polygamma(n, self.requires_grad() && GradMode::is_enabled() ? mt::clone(self) : self);
  MT_CHECK(can_cast(r.dtype(), self.dtype()), "result type ", dtype_short_name(r.dtype()),
           " can't be cast to the desired output type ", dtype_short_name(self.dtype()));
  return copy_(self, r);
}
// PyTorch's two-sided form, exact at both ends: |w| < 0.5 counts from self, else back from end (a plain
// self + w * (end - self) gives lerp(1, inf, 0.7) = inf where PyTorch gives nan; found by the differential
// fuzzer). One kernel (kernels/functors.h fn::Lerp); with gradients the same formula from differentiable ops.
static Tensor lerp_impl(const Tensor& self, const Tensor& end, const Tensor& weight, const Tensor* into) {
  const bool number = weight.impl()->is_wrapped_number();
  // PyTorch's kernels run in the operands' result type (a 0-dim floating weight lifts integer ends), named on
  // the CPU by the weight's kind
  // (a number weight lifts nothing: lerp(int, int, 0.5) is refused)
  const ScalarType dt = result_type({self, end, weight});
  const ScalarType kernel_dt = number ? result_type({self, end}) : dt;
  if (!is_inexact(kernel_dt))
    dtype_not_implemented(self.is_cuda() ? "lerp_cuda"
                          : number       ? "lerp_kernel_scalar"
                                         : "lerp_kernel_tensor",
                          kernel_dt);
  // PyTorch's checks: end has self's dtype; so does a weight tensor unless it is 0-dim. The result is the
  // operands' result_type (three 0-dim tensors can widen it).
  MT_CHECK(end.dtype() == self.dtype(), "expected dtype ", cpp_type_name(self.dtype()),
           " for `end` but got dtype ", cpp_type_name(end.dtype()));
  MT_CHECK(number || weight.dim() == 0 || weight.dtype() == self.dtype(), "expected dtype ",
           cpp_type_name(self.dtype()), " for `weight` but got dtype ", cpp_type_name(weight.dtype()));
  Device dev = common_device({&self, &end, &weight});
  if (needs_grad(self, end, weight)) {
    Tensor a = to(self, dt, dev), b = to(end, dt, dev), diff = sub(b, a);
    if (number) {  // the weight is a number: the branch is known, 1 - w stays a number
      Scalar w = item(weight);
      const bool near_self = std::abs(w.to_complex()) < 0.5;
      Scalar rest =
          w.is_complex() ? Scalar(std::complex<double>(1.0) - w.to_complex()) : Scalar(1.0 - w.to_double());
      return near_self ? add(a, mul(weight, diff)) : sub(b, mul(diff, wrapped_scalar(rest)));
    }
    Tensor w = to(weight, dt, dev);
    Tensor from_self = add(a, mul(w, diff));
    Tensor from_end = sub(b, mul(diff, sub(wrapped_scalar(Scalar(1.0)), w)));
    return where(lt(abs(w), wrapped_scalar(Scalar(0.5))), from_self, from_end);
  }
  DimVector shape = broadcast_shapes(self.sizes(), end.sizes());
  if (!number) shape = broadcast_shapes(shape, weight.sizes());
  Tensor out = iter_result(into, shape, dt, dev, {&self, &end, &weight});
  if (out.numel() == 0) return out;
  Tensor a = prepare(self, dt, dev), b = prepare(end, dt, dev);
  if (number) {
    Scalar w = item(weight);
    TensorIter it = TensorIter::make({out, a, b});
    lerp_stub.get(dev)(it, &w);
  } else {
    Tensor w = prepare(weight, dt, dev);  // named: the iterator keeps raw pointers into it
    TensorIter it = TensorIter::make({out, a, b, w});
    lerp_stub.get(dev)(it, nullptr);
  }
  return out;
}

Tensor lerp(const Tensor& self, const Tensor& end, const Tensor& weight) {
  return lerp_impl(self, end, weight, nullptr);
}

Tensor lerp_into(const Tensor& out, const Tensor& self, const Tensor& end, const Tensor& weight) {
  MT_INTERNAL_ASSERT(!needs_grad(self, end, weight), "lerp_into: out= records no graph");
  return wrote_if_into(out, lerp_impl(self, end, weight, &out));
}

Tensor activation_backward(ParamUnaryOp op, const Tensor& grad, const Tensor& self, double p0, double p1,
                           double p2) {
  const ScalarType dt = self.dtype();
  // CUDA's param_unary kernel has no backward ops (the caller's composite runs there); half and bfloat16
  // would round once here where the composite rounds every step
  if (!self.device().is_cpu() || !grad.device().is_cpu() || grad.dtype() != dt ||
      (dt != ScalarType::Float && dt != ScalarType::Double) ||
      !IntArrayRef(grad.sizes()).equals(self.sizes()))
    return Tensor();
  Tensor out = empty_for_iter(self.sizes(), dt, self.device(), {&grad, &self});
  if (out.numel() == 0) return out;
  TensorIter it = TensorIter::make({out, grad, self});
  param_unary_stub.get(out.device())(it, op, p0, p1, p2);
  return out;
}

// PyTorch's addcmul/addcdiv kernels in one pass over out, self, t1, t2, broadcast together (the composite's
// multiply and add with alpha ran at 0.6 of its speed)
static Tensor addc_impl(const Tensor& self, const Tensor& t1, const Tensor& t2, double value, bool div,
                        const Tensor* into) {
  const ScalarType dt = self.dtype();
  MT_CHECK(is_floating(dt) && t1.dtype() == dt && t2.dtype() == dt,
           "addc_fused: three tensors of one floating dtype");
  Device dev = common_device({&self, &t1, &t2});
  DimVector shape = broadcast_shapes(broadcast_shapes(self.sizes(), t1.sizes()), t2.sizes());
  Tensor out = iter_result(into, shape, dt, dev, {&self, &t1, &t2});
  if (out.numel() == 0) return out;
  TensorIter it = TensorIter::make({out, self, t1, t2});
  addc_stub.get(dev)(it, value, div);
  return out;
}

Tensor addc_fused(const Tensor& self, const Tensor& t1, const Tensor& t2, double value, bool div) {
  return addc_impl(self, t1, t2, value, div, nullptr);
}

Tensor addc_fused_into(const Tensor& out, const Tensor& self, const Tensor& t1, const Tensor& t2,
                       double value, bool div) {
  return wrote_if_into(out, addc_impl(self, t1, t2, value, div, &out));
}

}  // namespace mt
