// Elementwise math with broadcasting and PyTorch's type promotion. The op tables come from
// csrc/ops/ops.schema; the CPU and CUDA kernels, the bindings and the tests all iterate them.
#pragma once
#include <optional>
#include <string>

#include "core/Scalar.h"
#include "core/Tensor.h"
#include "generated/ops_schema.h"

namespace mt {

// The unary and binary tables (MT_UNARY_OPS, MT_BINARY_OPS: name, functor in kernels/functors.h, dtype rule)
// are generated from csrc/ops/ops.schema, which says what each rule means and lists every op's spellings,
// autocast policy and derivative. The front end and every device's kernels dispatch on the rules:
enum class OpRule { Same, Float, Bool, Arith, Div, Compare, Logical, Bitwise };

enum class UnaryOp : int {
#define MT_ENUM(name, f, k) name,
  MT_UNARY_OPS(MT_ENUM)
#undef MT_ENUM
};
enum class BinaryOp : int {
#define MT_ENUM(name, f, k) name,
  MT_BINARY_OPS(MT_ENUM)
#undef MT_ENUM
};

// The op's name as the schema spells it ("exp", "floor_divide"), for kernels' dtype errors.
const char* unary_op_name(UnaryOp op);
const char* binary_op_name(BinaryOp op);
// The unary ops with a complex-valued result that complex inputs take, on every device
// (kernels/cpu/complex.cpp, kernels/cuda/complex.cu); abs and the nan/inf tests, which return reals, are
// handled beside them.
bool complex_unary_supported(UnaryOp op);

// PyTorch's result_type: tensors with dims outrank 0-dim tensors, which outrank wrapped Python numbers;
// a lower rank only matters when it brings a higher category (bool < integer < float).
ScalarType result_type(const Tensor& a, const Tensor& b);
ScalarType result_type(std::initializer_list<Tensor> ts);

Tensor unary(UnaryOp op, const Tensor& self);
const Tensor& unary_(UnaryOp op, const Tensor& self);  // in place; the result must fit self's dtype
Tensor binary(BinaryOp op, const Tensor& a, const Tensor& b);
const Tensor& binary_(BinaryOp op, const Tensor& self, const Tensor& other);

#define MT_DECLARE_UNARY(name, f, k)    \
  inline Tensor name(const Tensor& x) { \
    return unary(UnaryOp::name, x);     \
  }
MT_UNARY_OPS(MT_DECLARE_UNARY)
#undef MT_DECLARE_UNARY
#define MT_DECLARE_BINARY(name, f, k)                    \
  inline Tensor name(const Tensor& a, const Tensor& b) { \
    return binary(BinaryOp::name, a, b);                 \
  }
MT_BINARY_OPS(MT_DECLARE_BINARY)
#undef MT_DECLARE_BINARY

// add/sub with alpha: a + alpha * b
// alpha * b, after PyTorch's check that alpha fits the op's dtype (no float alpha for integer tensors)
Tensor scale_by_alpha(const Tensor& a, const Tensor& b, const Scalar& alpha);
// self.add_(other, alpha=alpha) (subtract: sub_): one fused pass where it can be (see the definition)
const Tensor& add_scaled_(const Tensor& self, const Tensor& other, const Scalar& alpha, bool subtract);
Tensor add(const Tensor& a, const Tensor& b, const Scalar& alpha);
Tensor sub(const Tensor& a, const Tensor& b, const Scalar& alpha);
// PyTorch's sub_check: NotImplementedError for bool operands (its messages for two, or one)
void check_sub_operands(const Tensor& a, const Tensor& b);
// div with rounding_mode None, "trunc" or "floor"
Tensor div(const Tensor& a, const Tensor& b, const std::optional<std::string>& rounding_mode);
Tensor clamp(const Tensor& self, const std::optional<Tensor>& min, const std::optional<Tensor>& max);
const Tensor& clamp_(const Tensor& self, const std::optional<Tensor>& min, const std::optional<Tensor>& max);
Tensor where(const Tensor& cond, const Tensor& a, const Tensor& b);
Tensor masked_fill(const Tensor& self, const Tensor& mask, const Tensor& value);
const Tensor& masked_fill_(const Tensor& self, const Tensor& mask, const Tensor& value);
// torch.round(x, decimals=d) (PyTorch's round.decimals); elementwise.cpp says how it computes
Tensor round_decimals(const Tensor& self, int64_t decimals);
Tensor softplus(const Tensor& self, double beta, double threshold);
Tensor log_sigmoid(const Tensor& self);
Tensor leaky_relu(const Tensor& self, double negative_slope);
Tensor hardshrink(const Tensor& self, double lambd);
Tensor softshrink(const Tensor& self, double lambd);
Tensor threshold(const Tensor& self, double threshold, double value);
// F.elu/celu/selu's kernel: scale * x where x >= 0 or NaN, else alpha * scale * expm1(x * input_scale). The
// gradient takes grad_input_scale for input_scale (celu's backward uses 1 / alpha rounded to float32).
Tensor elu(const Tensor& self, double alpha, double scale, double input_scale, double grad_input_scale);
Tensor polygamma(int64_t n, const Tensor& self);
// Tensor.polygamma_: polygamma written back into self, refused (as PyTorch's in-place form) when the result's
// dtype does not cast to self's (an integer tensor)
const Tensor& polygamma_(int64_t n, const Tensor& self);
// nan_to_num of a floating tensor in one pass, the three values given (no autograd: torch.nan_to_num's
// Python front end, python/minitorch/_composite_math.py, calls it only where no gradient is recorded)
Tensor nan_to_num_values(const Tensor& self, double nan, double posinf, double neginf);
// torch.logit of a floating tensor in one pass, eps < 0 or NaN for none (no autograd: its Python front end,
// python/minitorch/_composite_math.py, calls it only where no gradient is recorded)
Tensor logit_values(const Tensor& self, double eps);
// addcmul / addcdiv (div) of three tensors of one floating dtype on one device: self + value * t1 * t2
// (/ t2), PyTorch's one pass (no autograd: the Python front end composes where a gradient is recorded)
Tensor addc_fused(const Tensor& self, const Tensor& t1, const Tensor& t2, double value, bool div);
Tensor lerp(const Tensor& self, const Tensor& end, const Tensor& weight);
// The out= front ends of clamp, lerp and addc_fused (bind_out.cpp, _C._addc_into): the op's checks and
// kernel, written straight into `out` when ops/out.h's out_takes it (then out is returned, its version bumped
// once), else into a fresh result returned for the binding's general dtype check, resize and copy. No
// autograd: the caller takes this path only when nothing requires grad.
Tensor clamp_into(const Tensor& out, const Tensor& self, const std::optional<Tensor>& min,
                  const std::optional<Tensor>& max);
Tensor lerp_into(const Tensor& out, const Tensor& self, const Tensor& end, const Tensor& weight);
Tensor addc_fused_into(const Tensor& out, const Tensor& self, const Tensor& t1, const Tensor& t2,
                       double value, bool div);

// Kernel entry points; iter operand 0 is the output, inputs are already in the compute dtype.
struct TensorIter;
using UnaryKernelFn = void (*)(const TensorIter& iter, UnaryOp op);
using BinaryKernelFn = void (*)(const TensorIter& iter, BinaryOp op);
// out, cond(bool), a, b -- a, b and out share one dtype
using WhereKernelFn = void (*)(const TensorIter& iter);
// out, x, lo, hi -- one dtype; lo/hi flags say which bounds apply
using ClampKernelFn = void (*)(const TensorIter& iter, bool has_min, bool has_max);
// out, x with up to three double parameters (softplus: beta, threshold; leaky_relu: slope; polygamma: n;
// hardshrink, softshrink: lambd; clamp: min, max; threshold: threshold, value; elu: alpha * scale, scale,
// input_scale; nan_to_num: nan, posinf, neginf; log_sigmoid: none); unused ones are 0. The *_backward ops
// take out, grad, x (activation_backward below; elu_backward: grad_input_scale * alpha * scale, scale,
// grad_input_scale).
enum class ParamUnaryOp : int {
  softplus,
  leaky_relu,
  polygamma,
  hardshrink,
  threshold,
  elu,
  nan_to_num,
  softshrink,
  clamp,
  log_sigmoid,
  gelu_backward,
  silu_backward,
  elu_backward,
  round_decimals,
  logit
};
using ParamUnaryKernelFn = void (*)(const TensorIter& iter, ParamUnaryOp op, double p0, double p1, double p2);
// The gradient of gelu (op gelu_backward), silu or elu (p0-p2 as the enum's comment says) in one pass over
// grad and x, for autograd's formulas when they are not differentiated again (no recording here): the
// composite's operations in its order, so its values. An undefined tensor where there is no such kernel
// (not a CPU float32/float64 pair of one shape; CUDA composes the formula): the caller composes.
Tensor activation_backward(ParamUnaryOp op, const Tensor& grad, const Tensor& self, double p0 = 0.0,
                           double p1 = 0.0, double p2 = 0.0);
// out, self, end, weight (one dtype); or, with `weight` given (a Python number, kept in opmath precision as
// PyTorch's lerp_kernel_scalar keeps it), out, self, end
using LerpKernelFn = void (*)(const TensorIter& iter, const Scalar* weight);
// out, self, t1, t2 (one floating dtype): self + value * t1 * t2, or / t2 when div
using AddcKernelFn = void (*)(const TensorIter& iter, double value, bool div);

}  // namespace mt
