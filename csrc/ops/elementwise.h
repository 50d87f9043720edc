// Elementwise math with broadcasting and PyTorch's type promotion. The op lists below are the single table
// that the CPU and CUDA kernels, the bindings and the tests all iterate.
#pragma once
#include <optional>
#include <string>

#include "core/Scalar.h"
#include "core/Tensor.h"

namespace mt {

// Unary ops: (name, functor in kernels/functors.h, dtype rule)
//   Same: result has the input dtype; Float: integers promote to the default float dtype; Bool: result is
//   bool.
// clang-format off
#define MT_UNARY_OPS(_)             \
  _(abs, Abs, Same)                 \
  _(neg, Neg, Same)                 \
  _(sign, Sign, Same)               \
  _(floor, Floor, Same)             \
  _(ceil, Ceil, Same)               \
  _(round, Round, Same)             \
  _(trunc, Trunc, Same)             \
  _(relu, Relu, Same)               \
  _(bitwise_not, BitwiseNot, Same)  \
  _(exp, Exp, Float)                \
  _(exp2, Exp2, Float)              \
  _(expm1, Expm1, Float)            \
  _(log, Log, Float)                \
  _(log2, Log2, Float)              \
  _(log10, Log10, Float)            \
  _(log1p, Log1p, Float)            \
  _(sqrt, Sqrt, Float)              \
  _(rsqrt, Rsqrt, Float)            \
  _(reciprocal, Reciprocal, Float)  \
  _(sin, Sin, Float)                \
  _(cos, Cos, Float)                \
  _(tan, Tan, Float)                \
  _(asin, Asin, Float)              \
  _(acos, Acos, Float)              \
  _(atan, Atan, Float)              \
  _(sinh, Sinh, Float)              \
  _(cosh, Cosh, Float)              \
  _(tanh, Tanh, Float)              \
  _(erf, Erf, Float)                \
  _(erfc, Erfc, Float)              \
  _(erfinv, Erfinv, Float)          \
  _(asinh, Asinh, Float)            \
  _(acosh, Acosh, Float)            \
  _(atanh, Atanh, Float)            \
  _(lgamma, Lgamma, Float)          \
  _(digamma, Digamma, Float)        \
  _(sigmoid, Sigmoid, Float)        \
  _(gelu, Gelu, Float)              \
  _(gelu_tanh, GeluTanh, Float)     \
  _(silu, Silu, Float)              \
  _(mish, Mish, Float)              \
  _(logical_not, LogicalNot, Bool)  \
  _(isnan, IsNan, Bool)             \
  _(isinf, IsInf, Bool)             \
  _(isfinite, IsFinite, Bool)
// clang-format on

// Binary ops: (name, functor, dtype rule)
//   Arith: result is the promoted dtype; Div: integers promote to the default float dtype;
//   Compare/Logical: compute in the promoted dtype, result is bool; Bitwise: integral and bool only.
// clang-format off
#define MT_BINARY_OPS(_)               \
  _(add, Add, Arith)                   \
  _(sub, Sub, Arith)                   \
  _(mul, Mul, Arith)                   \
  _(div, TrueDiv, Div)                 \
  _(floor_divide, FloorDiv, Arith)     \
  _(trunc_divide, TruncDiv, Arith)     \
  _(remainder, Remainder, Arith)       \
  _(fmod, Fmod, Arith)                 \
  _(pow, Pow, Arith)                   \
  _(maximum, Maximum, Arith)           \
  _(minimum, Minimum, Arith)           \
  _(atan2, Atan2, Div)                 \
  _(eq, Eq, Compare)                   \
  _(ne, Ne, Compare)                   \
  _(lt, Lt, Compare)                   \
  _(le, Le, Compare)                   \
  _(gt, Gt, Compare)                   \
  _(ge, Ge, Compare)                   \
  _(logical_and, LogicalAnd, Logical)  \
  _(logical_or, LogicalOr, Logical)    \
  _(logical_xor, LogicalXor, Logical)  \
  _(bitwise_and, BitwiseAnd, Bitwise)  \
  _(bitwise_or, BitwiseOr, Bitwise)    \
  _(bitwise_xor, BitwiseXor, Bitwise)
// clang-format on

// The dtype rules named in the tables above; the front end and every device's kernels dispatch on them.
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
// div with rounding_mode None, "trunc" or "floor"
Tensor div(const Tensor& a, const Tensor& b, const std::optional<std::string>& rounding_mode);
Tensor clamp(const Tensor& self, const std::optional<Tensor>& min, const std::optional<Tensor>& max);
const Tensor& clamp_(const Tensor& self, const std::optional<Tensor>& min, const std::optional<Tensor>& max);
Tensor where(const Tensor& cond, const Tensor& a, const Tensor& b);
Tensor masked_fill(const Tensor& self, const Tensor& mask, const Tensor& value);
const Tensor& masked_fill_(const Tensor& self, const Tensor& mask, const Tensor& value);
Tensor softplus(const Tensor& self, double beta, double threshold);
Tensor leaky_relu(const Tensor& self, double negative_slope);
Tensor polygamma(int64_t n, const Tensor& self);
Tensor lerp(const Tensor& self, const Tensor& end, const Tensor& weight);

// Kernel entry points; iter operand 0 is the output, inputs are already in the compute dtype.
struct TensorIter;
using UnaryKernelFn = void (*)(const TensorIter& iter, UnaryOp op);
using BinaryKernelFn = void (*)(const TensorIter& iter, BinaryOp op);
// out, cond(bool), a, b -- a, b and out share one dtype
using WhereKernelFn = void (*)(const TensorIter& iter);
// out, x, lo, hi -- one dtype; lo/hi flags say which bounds apply
using ClampKernelFn = void (*)(const TensorIter& iter, bool has_min, bool has_max);
// out, x with two double parameters (softplus: beta, threshold; leaky_relu: slope, unused; polygamma: n,
// unused)
enum class ParamUnaryOp : int { softplus, leaky_relu, polygamma };
using ParamUnaryKernelFn = void (*)(const TensorIter& iter, ParamUnaryOp op, double p0, double p1);

}  // namespace mt
