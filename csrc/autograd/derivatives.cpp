// Every derivative formula, together (as PyTorch's derivatives.yaml), written in ops so it runs on every
// device and records itself when create_graph is on. One entry per op: its recording twin runs the op with
// grad off (twin / record, derivatives.h), names the tensors its formula reads (saved only for the gradients
// that need them) and gives the formula; broadcasting and dtype changes are undone by the engine (sum_to / to
// per edge). Sections follow ops/ (one per family header, alphabetical). The view ops and the in-place path
// (views.cpp) are machinery around the graph more than formulas, so they live apart.
#include "autograd/derivatives.h"

#include <cmath>
#include <numeric>
#include <string>
#include <unordered_set>

#include "autograd/Node.h"
#include "autograd/record.h"
#include "ops/attention.h"
#include "ops/ops.h"
#include "ops/rnn.h"
#include "ops/sort.h"
#include "ops/upsample.h"

namespace mt::autograd {

namespace {
// The nodes whose formulas hold for complex inputs (see attach): linear maps, the views, and the elementwise
// and product formulas written as grad * conj(f'(z)) in ops.schema / below.
bool complex_safe(const char* name) {
  static const std::unordered_set<std::string> ok = {"AddBackward0",         "SubBackward0",
                                                     "MulBackward0",         "DivBackward0",
                                                     "NegBackward0",         "AbsBackward0",
                                                     "ExpBackward0",         "Exp2Backward0",
                                                     "Expm1Backward0",       "LogBackward0",
                                                     "Log2Backward0",        "Log10Backward0",
                                                     "Log1pBackward0",       "SqrtBackward0",
                                                     "RsqrtBackward0",       "ReciprocalBackward0",
                                                     "SinBackward0",         "CosBackward0",
                                                     "TanBackward0",         "AsinBackward0",
                                                     "AcosBackward0",        "AtanBackward0",
                                                     "SinhBackward0",        "CoshBackward0",
                                                     "TanhBackward0",        "AsinhBackward0",
                                                     "AcoshBackward0",       "AtanhBackward0",
                                                     "SigmoidBackward0",     "LogaddexpBackward0",
                                                     "PowBackward0",         "LinearBackward0",
                                                     "MmBackward0",          "BmmBackward0",
                                                     "MvBackward0",          "DotBackward0",
                                                     "SumBackward1",         "MeanBackward1",
                                                     "CloneBackward0",       "ToCopyBackward0",
                                                     "CatBackward0",         "WhereBackward0",
                                                     "MaskedFillBackward0",  "TrilBackward0",
                                                     "TriuBackward0",        "FlipBackward0",
                                                     "TraceBackward0",       "IndexBackward0",
                                                     "IndexSelectBackward0", "GatherBackward0",
                                                     "ViewBackward0",        "PermuteBackward0",
                                                     "TransposeBackward0",   "SqueezeBackward0",
                                                     "SqueezeBackward1",     "UnsqueezeBackward0",
                                                     "ExpandBackward0",      "SelectBackward0",
                                                     "SliceBackward0",       "DiagonalBackward0",
                                                     "AliasBackward0",       "SplitWithSizesBackward0",
                                                     "UnbindBackward0",      "AsStridedBackward0",
                                                     "ViewAsRealBackward0",  "ViewAsComplexBackward0",
                                                     "CopySlices",           "CopyBackwards",
                                                     "CumsumBackward0",      "CumprodBackward0",
                                                     "ProdBackward1",        "IndexPutBackward0",
                                                     "ScatterBackward0",     "ScatterAddBackward0"};
  return ok.count(name) != 0;
}
}  // namespace

std::shared_ptr<FnNode> attach(const char* name, FnNode::Fn fn, std::vector<const Tensor*> ins,
                               std::vector<const Tensor*> outs) {
  bool any = false, cplx = false;
  for (auto* o : outs) {
    any = any || is_inexact(o->dtype());
    cplx = cplx || is_complex(o->dtype());
  }
  if (!any) return nullptr;
  for (auto* i : ins) cplx = cplx || (i && i->defined() && is_complex(i->dtype()));
  // PyTorch's GRADIENT_IMPLEMENTED_FOR_COMPLEX: a formula written for real numbers would give a silently
  // wrong complex gradient, so only the nodes whose formulas follow the complex convention may record one.
  MT_CHECK(!cplx || complex_safe(name), name,
           " does not support automatic differentiation for outputs with "
           "complex dtype.");
  auto n = std::make_shared<FnNode>(name, std::move(fn));
  set_history(n, ins, outs);
  return n;
}

std::shared_ptr<FnNode> record(const char* name, std::vector<const Tensor*> ins,
                               std::vector<const Tensor*> outs, std::initializer_list<Saved> saved,
                               FnNode::Fn formula) {
  auto n = attach(name, std::move(formula), std::move(ins), outs);
  if (!n) return n;
  for (const Saved& s : saved) {
    bool needed = s.for_grads == kAlways;
    for (size_t i = 0; !needed && i < n->next_edges.size() && i < 32; ++i)
      needed = (s.for_grads >> i & 1u) && n->needs_input_grad(i);
    const Tensor& t = s.is_output && !s.tensor.defined() ? *outs[0] : s.tensor;
    n->save(s.name, needed ? t : Tensor(), s.is_output);
  }
  return n;
}

namespace {

using V = variable_list;
constexpr double kPi = 3.14159265358979323846;

Tensor S(double v) {
  return wrapped_scalar(Scalar(v));
}
Tensor zeros_like(const Tensor& t) {
  return zeros(t.sizes(), t.dtype(), t.device());
}
Tensor fmask(const Tensor& b, const Tensor& like) {
  return mt::to(b, like.dtype(), like.device());
}

DimVector all_dims(int64_t nd, IntArrayRef dims) {
  if (!dims.empty()) {
    DimVector d;
    for (int64_t x : dims) d.push_back(wrap_dim(x, nd));
    std::sort(d.begin(), d.end());
    return d;
  }
  DimVector d(static_cast<size_t>(nd));
  std::iota(d.begin(), d.end(), 0);
  return d;
}

// A reduced gradient brought back to keepdim shape (then it broadcasts against the input).
Tensor unsqueeze_dims(const Tensor& g, const DimVector& dims, bool keepdim) {
  if (keepdim) return g;
  Tensor r = g;
  for (int64_t d : dims) r = mt::unsqueeze(r, d);
  return r;
}

Tensor expand_to(const Tensor& g, const DimVector& dims, bool keepdim, IntArrayRef sizes) {
  return mt::expand(unsqueeze_dims(g, dims, keepdim), sizes);
}

const char* unary_name(UnaryOp op) {
  switch (op) {
#define MT_NAME(name, F, k) \
  case UnaryOp::name:       \
    return #F "Backward0";
    MT_UNARY_OPS(MT_NAME)
#undef MT_NAME
  }
  return "UnaryBackward0";
}

const char* binary_name(BinaryOp op) {
  if (op == BinaryOp::div) return "DivBackward0";
  switch (op) {
#define MT_NAME(name, F, k) \
  case BinaryOp::name:      \
    return #F "Backward0";
    MT_BINARY_OPS(MT_NAME)
#undef MT_NAME
  }
  return "BinaryBackward0";
}

// The unary formulas too long for one schema line (csrc/ops/ops.schema names them in `grad:`).
Tensor gelu_grad(const Tensor& g, const Tensor& x) {
  using mt::add;
  using mt::mul;
  Tensor cdf = mul(add(mt::erf(mul(x, S(M_SQRT1_2))), S(1)), S(0.5));
  Tensor pdf = mul(mt::exp(mul(mul(x, x), S(-0.5))), S(1.0 / std::sqrt(2 * kPi)));
  return mul(g, add(cdf, mul(x, pdf)));
}
Tensor gelu_tanh_grad(const Tensor& g, const Tensor& x) {
  using mt::add;
  using mt::mul;
  using mt::sub;
  const double k = std::sqrt(2.0 / kPi), c = 0.044715;
  Tensor x2 = mul(x, x);
  Tensor th = mt::tanh(mul(mul(x, add(mul(x2, S(c)), S(1))), S(k)));
  Tensor left = mul(add(th, S(1)), S(0.5));
  Tensor right = mul(mul(mul(x, sub(S(1), mul(th, th))), S(0.5 * k)), add(mul(x2, S(3 * c)), S(1)));
  return mul(g, add(left, right));
}
Tensor silu_grad(const Tensor& g, const Tensor& x) {
  using mt::add;
  using mt::mul;
  Tensor s = mt::sigmoid(x);
  return mul(g, mul(s, add(mul(x, mt::sub(S(1), s)), S(1))));
}
Tensor mish_grad(const Tensor& g, const Tensor& x) {
  using mt::mul;
  Tensor th = mt::tanh(mt::softplus(x, 1.0, 20.0));
  return mul(g, mt::add(th, mul(mul(x, mt::sigmoid(x)), mt::sub(S(1), mul(th, th)))));
}
// PyTorch's hardsigmoid_backward and (vectorized) hardswish_backward: grad / 6 strictly inside (-3, 3), with
// 1/6 rounded to float as its kernel's constant is (float64 too); hardswish's 0 up to -3, grad from 3 on and
// at NaN, grad * (x / 3 + 1/2) between
Tensor hardsigmoid_grad(const Tensor& g, const Tensor& x) {
  Tensor inside = mt::logical_and(mt::gt(x, S(-3)), mt::lt(x, S(3)));
  return mt::where(inside, mt::mul(g, S(static_cast<double>(1.0f / 6.0f))), S(0));
}
Tensor hardswish_grad(const Tensor& g, const Tensor& x) {
  Tensor mid = mt::where(mt::lt(x, S(3)), mt::mul(g, mt::add(mt::div(x, S(3)), S(0.5))), g);
  return mt::where(mt::le(x, S(-3)), S(0), mid);
}

// a derivative PyTorch's derivatives.yaml declares not_implemented(name): its NotImplementedError when used
Tensor grad_not_implemented(const char* name) {
  MT_CHECK_NOT_IMPLEMENTED(false, "the derivative for '", name, "' is not implemented.");
  return Tensor();
}

// The Bessel functions' derivatives: I0' = I1; I1' = I0 - I1/x (1/2 at 0); the scaled forms also carry
// -sign(x) times themselves, from the factor exp(-|x|).
Tensor i0e_grad(const Tensor& g, const Tensor& x) {
  return mt::mul(g, mt::sub(mt::_special_i1e(x), mt::mul(mt::sign(x), mt::_special_i0e(x))));
}
Tensor i1_grad(const Tensor& g, const Tensor& x) {
  Tensor d = mt::sub(mt::i0(x), mt::div(mt::_special_i1(x), x));
  return mt::mul(g, mt::where(mt::eq(x, S(0)), S(0.5), d));
}
Tensor i1e_grad(const Tensor& g, const Tensor& x) {
  Tensor d =
      mt::sub(mt::_special_i0e(x), mt::mul(mt::_special_i1e(x), mt::add(mt::sign(x), mt::reciprocal(x))));
  return mt::mul(g, mt::where(mt::eq(x, S(0)), S(0.5), d));
}

// ---- the binary ops' formulas: one entry per op says which gradients read self and other (each is saved
// only when one of those is needed) and how the gradients are computed. A null formula: not differentiable.
// The entries are generated from the schema (below); the helpers they name are here.

struct BinaryFormula {
  uint32_t self_for, other_for;
  V (*grad)(const Tensor& g, const Tensor& self, const Tensor& other, bool need_self, bool need_other);
};

// maximum/minimum: ties split the gradient evenly, as PyTorch does
template <bool kMax>
V max_min_grad(const Tensor& g, const Tensor& a, const Tensor& b, bool ga, bool gb) {
  Tensor win = kMax ? mt::gt(a, b) : mt::lt(a, b);
  Tensor tie = mt::mul(fmask(mt::eq(a, b), g), S(0.5));
  Tensor wa = mt::add(fmask(win, g), tie);
  return {ga ? mt::mul(g, wa) : Tensor(), gb ? mt::mul(g, mt::sub(S(1), wa)) : Tensor()};
}

// b - 1 for pow's gradient for its base. A Python-number exponent stays a number: sub() of two wrapped
// numbers gives a default-dtype (float32) tensor, which rounded x ** 0.1's gradient to float32's -0.9 in
// float64.
Tensor pow_exponent_minus_one(const Tensor& b) {
  if (!b.impl()->is_wrapped_number()) return mt::sub(b, S(1));
  Scalar v = mt::item(b);
  return v.is_complex()    ? wrapped_scalar(Scalar(v.to_complex() - 1.0))
         : v.is_floating() ? wrapped_scalar(Scalar(v.to_double() - 1.0))
                           : mt::sub(b, S(1));
}

// pow's gradient for its exponent: 0 ** b with b >= 0 has no log term (PyTorch masks it the same way). The
// base's log is taken in the result's dtype, as PyTorch promotes it first: log of an integer base (7 ** x)
// would otherwise round to float32 under a float64 exponent, and a real base under a complex exponent to NaN.
Tensor pow_exponent_grad(const Tensor& g, const Tensor& a, const Tensor& b) {
  const ScalarType rt = result_type(a, b);
  const bool keep =
      a.dtype() == rt || (a.impl()->is_wrapped_number() && is_floating(a.dtype()) && !is_complex(rt));
  const Tensor af = keep ? a : mt::to(a, rt, a.device());
  Tensor t = mt::mul(g, mt::conj(mt::mul(mt::pow(a, b), mt::log(af))));
  // a complex exponent counts as non-negative only when it is real (PyTorch's mask)
  const Tensor b_nonneg = is_complex(b.dtype())
                              ? mt::logical_and(mt::eq(mt::imag(b), S(0)), mt::ge(mt::real(b), S(0)))
                              : mt::ge(b, S(0));
  return mt::where(mt::logical_and(mt::eq(a, S(0)), b_nonneg), S(0), t);
}

// The elementwise tables' formulas, one case per row of csrc/ops/ops.schema: unary_grad(op, grad, self,
// result), unary_saves_input(op) and binary_formula(op).
#include "generated/elementwise_grad.inc"

// mm, bmm, mv and dot are bilinear: each input's gradient reads only the other input, so each input is saved
// only when the other's gradient is needed.
using ProductGrad = Tensor (*)(const Tensor& grad, const Tensor& other_input);
template <typename F>
Tensor product(const char* name, F&& forward, const Tensor& self, const Tensor& other, ProductGrad d_self,
               ProductGrad d_other) {
  return twin(name, std::forward<F>(forward), {&self, &other},
              {{"self", self, grad_of(1)}, {"other", other, grad_of(0)}},
              [d_self, d_other](FnNode& n, V& gs) -> V {
                return {n.needs_input_grad(0) ? d_self(gs[0], n.saved("other")) : Tensor(),
                        n.needs_input_grad(1) ? d_other(gs[0], n.saved("self")) : Tensor()};
              });
}

// (mean, rstd) over `dims` (kept), recorded: used only when the norms' backward is itself differentiated.
ScalarType stat_dtype(ScalarType t) {
  return t == ScalarType::Double ? ScalarType::Double : ScalarType::Float;
}
std::pair<Tensor, Tensor> recorded_stats(const Tensor& x, IntArrayRef dims, double eps) {
  Tensor xf = mt::to(x, stat_dtype(x.dtype()), x.device());
  return {mt::mean(xf, dims, true), mt::rsqrt(mt::add(mt::var(xf, dims, 0, true), S(eps)))};
}

// Gradient of x through xhat = (x - mean) * rstd normalized over `dims` (biased statistics), given
// gw = the gradient reaching xhat: rstd * (gw - mean(gw) - xhat * mean(gw * xhat)).
Tensor norm_input_grad(const Tensor& gw, const Tensor& xhat, const Tensor& rstd, IntArrayRef dims) {
  Tensor a = mt::mean(gw, dims, true);
  Tensor b = mt::mean(mt::mul(gw, xhat), dims, true);
  return mt::mul(rstd, mt::sub(mt::sub(gw, a), mt::mul(xhat, b)));
}

// The norms' gradients for an empty input: zeros of the input and of the affine parameters (shape `param`).
V empty_norm_grads(FnNode& n, const Tensor& x, IntArrayRef param, const Tensor& g) {
  V res(3);
  if (n.needs_input_grad(0)) res[0] = zeros_like(x);
  for (size_t i = 1; i < 3; ++i)
    if (n.needs_input_grad(i)) res[i] = zeros(param, g.dtype(), g.device());
  return res;
}

DimVector dims_but_1(int64_t nd) {
  DimVector d{0};
  for (int64_t i = 2; i < nd; ++i) d.push_back(i);
  return d;
}

// The bias gradient of a 4-D NCHW conv: the output gradient summed over batch and space.
Tensor conv_bias_grad(const Tensor& g) {
  return mt::sum(g, {0, 2, 3}, false);
}

}  // namespace

bool needs_grad_list(const std::vector<Tensor>& ts) {
  if (!GradMode::is_enabled()) return false;
  for (auto& t : ts)
    if (t.defined() && t.requires_grad()) return true;
  return false;
}

bool needs_grad_indices(const std::vector<std::optional<Tensor>>& ts) {
  for (auto& t : ts)
    if (t && needs_grad(*t)) return true;
  return false;
}

// ---- attention (ops/attention.h)

// The fused forward saves q, k, v and the row log-sum-exps; the backward recomputes the probabilities in ops
// (one score GEMM, softmax), so it runs on every device and differentiates again. Fully masked rows (lse
// -inf) have zero probabilities and get zero gradients.
Tensor sdpa(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& mask, bool is_causal,
            double scale) {
  auto [out, lse] = no_grad([&] { return mt::sdpa_forward(q, k, v, mask, is_causal, scale); });
  record(
      "ScaledDotProductAttentionBackward0", {&q, &k, &v}, {&out},
      {{"query", q}, {"key", k}, {"value", v}, {"attn_mask", mask}, {"lse", lse}, result()},
      [is_causal, scale](FnNode& n, V& gs) -> V {
        Tensor q = n.saved("query"), k = n.saved("key"), v = n.saved("value"), mask = n.saved("attn_mask"),
               lse = n.saved("lse");
        const Tensor& g = gs[0];
        if (!GradMode::is_enabled() && mt::has_fused_sdpa_backward(q)) {  // not differentiated again
          auto [dq, dk, dv] = mt::sdpa_backward(g, q, k, v, n.saved("result"), lse, mask, is_causal, scale);
          return {dq, dk, dv};
        }
        int64_t L = q.size(-2), S_ = k.size(-2);
        Tensor ninf = mt::scalar_tensor(Scalar(-INFINITY), q.dtype(), q.device());
        Tensor zero = mt::scalar_tensor(Scalar(0.0), q.dtype(), q.device());
        Tensor s = mt::mul(mt::matmul(q, mt::transpose(k, -2, -1)), S(scale));
        if (is_causal) {
          Tensor i = mt::unsqueeze(
              mt::arange(Scalar(int64_t(0)), Scalar(L), Scalar(int64_t(1)), ScalarType::Long, q.device()), 1);
          Tensor j =
              mt::arange(Scalar(int64_t(0)), Scalar(S_), Scalar(int64_t(1)), ScalarType::Long, q.device());
          s = mt::masked_fill(s, mt::gt(j, i), ninf);
        }
        if (mask.defined()) s = mt::add(s, mask, Scalar(1.0));
        Tensor dead =
            mt::unsqueeze(mt::eq(lse, mt::scalar_tensor(Scalar(-INFINITY), lse.dtype(), lse.device())), -1);
        Tensor p = mt::where(dead, zero, mt::softmax(mt::where(dead, zero, s), -1));
        V res(3);
        if (n.needs_input_grad(2)) res[2] = mt::matmul(mt::transpose(p, -2, -1), g);
        if (n.needs_input_grad(0) || n.needs_input_grad(1)) {
          Tensor dp = mt::matmul(g, mt::transpose(v, -2, -1));
          Tensor ds = mt::mul(mt::mul(p, mt::sub(dp, mt::sum(mt::mul(p, dp), {-1}, true))), S(scale));
          if (n.needs_input_grad(0)) res[0] = mt::matmul(ds, k);
          if (n.needs_input_grad(1)) res[1] = mt::matmul(mt::transpose(ds, -2, -1), q);
        }
        return res;
      });
  return out;
}

// ---- conv (ops/conv.h)
// The input gradient of a conv is the transposed conv and the weight gradient its own recorded op, so under
// create_graph the gradients differentiate again (double backward).

Tensor convolution(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias,
                   const ConvArgs& args) {
  return twin(
      "ConvolutionBackward0", [&] { return mt::convolution(input, weight, bias, args); },
      {&input, &weight, bias ? &*bias : nullptr}, {{"input", input}, {"weight", weight}},
      [args](FnNode& n, V& gs) -> V {
        Tensor x = n.saved("input"), w = n.saved("weight");
        const Tensor& g = gs[0];
        // both kernels want a dense gradient: materialize it once (`.sum().backward()` hands an expanded one)
        Tensor gd = n.needs_input_grad(0) && n.needs_input_grad(1) ? mt::contiguous(g) : g;
        return {n.needs_input_grad(0) ? mt::convolution_transpose(gd, w, std::nullopt, args, x.sizes())
                                      : Tensor(),
                n.needs_input_grad(1) ? mt::convolution_backward_weight(gd, x, w.sizes(), args) : Tensor(),
                n.needs_input_grad(2) ? conv_bias_grad(g) : Tensor()};
      });
}

// out = A_w^T x where A_w is the conv with weight w: dx = A_w g, dw = the conv weight gradient with input g
// and output gradient x.
Tensor convolution_transpose(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias,
                             const ConvArgs& args, IntArrayRef out_sizes) {
  return twin(
      "ConvolutionBackward0", [&] { return mt::convolution_transpose(input, weight, bias, args, out_sizes); },
      {&input, &weight, bias ? &*bias : nullptr}, {{"input", input}, {"weight", weight}},
      [args](FnNode& n, V& gs) -> V {
        Tensor x = n.saved("input"), w = n.saved("weight");
        const Tensor& g = gs[0];
        Tensor gd = n.needs_input_grad(0) && n.needs_input_grad(1) ? mt::contiguous(g) : g;  // once, as above
        Tensor gx, gw;
        if (n.needs_input_grad(0)) gx = mt::convolution(gd, w, std::nullopt, args);
        if (n.needs_input_grad(1)) gw = mt::convolution_backward_weight(x, gd, w.sizes(), args);
        return {gx, gw, n.needs_input_grad(2) ? conv_bias_grad(g) : Tensor()};
      });
}

// bw(g, x) is bilinear: <bw(g, x), G> = <g, conv(x, G)> = <x, conv_transpose(g, G)>.
Tensor convolution_backward_weight(const Tensor& grad_out, const Tensor& input, IntArrayRef weight_sizes,
                                   const ConvArgs& args) {
  return twin(
      "ConvolutionBackwardWeightBackward0",
      [&] { return mt::convolution_backward_weight(grad_out, input, weight_sizes, args); },
      {&grad_out, &input}, {{"grad_output", grad_out}, {"input", input}},
      [args](FnNode& n, V& gs) -> V {
        Tensor g = n.saved("grad_output"), x = n.saved("input");
        const Tensor& G = gs[0];
        return {n.needs_input_grad(0) ? mt::convolution(x, G, std::nullopt, args) : Tensor(),
                n.needs_input_grad(1) ? mt::convolution_transpose(g, G, std::nullopt, args, x.sizes())
                                      : Tensor()};
      });
}

// ---- copy (ops/copy.h)

const Tensor& copy_(const Tensor& self, const Tensor& src, bool non_blocking) {
  return inplace(self, [&](const Tensor& s) {
    return twin(
        "CopyBackwards",
        [&] {
          Tensor o = mt::clone(s);
          mt::copy_(o, src, non_blocking);
          return o;
        },
        {&s, &src}, {},
        [](FnNode& n, V& gs) -> V {
          return {n.needs_input_grad(0) ? zeros_like(gs[0]) : Tensor(),
                  n.needs_input_grad(1) ? gs[0] : Tensor()};
        });
  });
}

Tensor clone(const Tensor& self) {
  return twin(
      "CloneBackward0", [&] { return mt::clone(self); }, {&self}, {},
      [](FnNode&, V& gs) -> V { return {gs[0]}; });
}

Tensor to(const Tensor& self, ScalarType dtype, Device device, bool copy, bool non_blocking) {
  Tensor out = no_grad([&] { return mt::to(self, dtype, device, copy, non_blocking); });
  if (out.is_same(self)) return out;
  // the engine converts the gradient back to the input's dtype and device
  record("ToCopyBackward0", {&self}, {&out}, {}, [](FnNode&, V& gs) -> V { return {gs[0]}; });
  return out;
}

const Tensor& fill_(const Tensor& self, const Scalar& value) {
  return inplace(self, [&](const Tensor& s) {
    return twin(
        "FillBackward0",
        [&] {
          Tensor o = mt::clone(s);
          mt::fill_(o, value);
          return o;
        },
        {&s}, {}, [](FnNode&, V& gs) -> V { return {zeros_like(gs[0])}; });
  });
}

// ---- elementwise (ops/elementwise.h)

Tensor unary(UnaryOp op, const Tensor& self) {
  // most formulas read the input; the others read only the result (unary_saves_input)
  bool in = unary_saves_input(op);
  return twin(
      unary_name(op), [&] { return mt::unary(op, self); }, {&self}, {in ? Saved{"self", self} : result()},
      [op, in](FnNode& n, V& g) -> V {
        return {unary_grad(op, g[0], in ? n.saved("self") : Tensor(), in ? Tensor() : n.saved("result"))};
      });
}

const Tensor& unary_(UnaryOp op, const Tensor& self) {
  return inplace(self, [&](const Tensor& s) { return autograd::unary(op, s); });
}

Tensor binary(BinaryOp op, const Tensor& self, const Tensor& other) {
  BinaryFormula f = binary_formula(op);
  return twin(
      binary_name(op), [&] { return mt::binary(op, self, other); }, {&self, &other},
      {{"self", self, f.self_for}, {"other", other, f.other_for}},
      [op, grad = f.grad](FnNode& n, V& gs) -> V {
        if (!grad) MT_ERROR("the derivative for '", binary_name(op), "' is not implemented.");
        return grad(gs[0], n.saved("self"), n.saved("other"), n.needs_input_grad(0), n.needs_input_grad(1));
      });
}

const Tensor& binary_(BinaryOp op, const Tensor& self, const Tensor& other) {
  return inplace(self, [&](const Tensor& s) {
    Tensor r = autograd::binary(op, s, other);
    if (r.requires_grad() || !is_inexact(self.dtype())) return r;
    // A comparison or logical op written into a floating tensor (x.gt_(0)): PyTorch's GtBackward1 & co. give
    // every input a zero gradient, so the history before it is cut, not passed through.
    Tensor v = no_grad([&] { return mt::to(r, self.dtype(), self.device()); });
    if (op == BinaryOp::logical_and || op == BinaryOp::logical_or || op == BinaryOp::logical_xor) {
      // ...but PyTorch 2.15's in-place logical ops leave the history as it was: the gradient passes through
      // to self unchanged (measured: (x * 1).logical_and_(y) gives x the upstream gradient)
      record(binary_name(op), {&s}, {&v}, {}, [](FnNode&, V& gs) -> V { return {gs[0]}; });
      return v;
    }
    record(binary_name(op), {&s, &other}, {&v}, {},
           [ss = s.sizes(), os = other.sizes(), dt = other.dtype()](FnNode& n, V& gs) -> V {
             const Tensor& g = gs[0];
             return {n.needs_input_grad(0) ? mt::zeros(ss, g.dtype(), g.device()) : Tensor(),
                     n.needs_input_grad(1) ? mt::zeros(os, dt, g.device()) : Tensor()};
           });
    return v;
  });
}

Tensor clamp(const Tensor& self, const std::optional<Tensor>& min, const std::optional<Tensor>& max) {
  return twin(
      "ClampBackward1", [&] { return mt::clamp(self, min, max); },
      {&self, min ? &*min : nullptr, max ? &*max : nullptr},
      {{"self", self}, {"min", min ? *min : Tensor()}, {"max", max ? *max : Tensor()}},
      [](FnNode& n, V& gs) -> V {
        const Tensor& g = gs[0];
        Tensor x = n.saved("self"), lo = n.saved("min"), hi = n.saved("max");
        Tensor in = mt::ones(x.sizes(), ScalarType::Bool, x.device());
        V r(3);
        // min > max gives max everywhere, so only max takes the gradient there (PyTorch's clamp_backward);
        // a select, not a multiply by the mask, so an infinite or NaN gradient outside stays out (inf * 0)
        if (lo.defined()) {
          in = mt::logical_and(in, mt::ge(x, lo));
          Tensor below = mt::lt(x, lo);
          if (hi.defined()) below = mt::logical_and(below, mt::lt(lo, hi));
          if (n.needs_input_grad(1)) r[1] = mt::where(below, g, S(0.0));
        }
        if (hi.defined()) {
          in = mt::logical_and(in, mt::le(x, hi));
          Tensor above = mt::gt(x, hi);
          if (lo.defined()) above = mt::logical_or(above, mt::lt(hi, lo));
          if (n.needs_input_grad(2)) r[2] = mt::where(above, g, S(0.0));
        }
        if (n.needs_input_grad(0)) r[0] = mt::where(in, g, S(0.0));
        return r;
      });
}

const Tensor& clamp_(const Tensor& self, const std::optional<Tensor>& min, const std::optional<Tensor>& max) {
  return inplace(self, [&](const Tensor& s) { return autograd::clamp(s, min, max); });
}

Tensor where(const Tensor& cond, const Tensor& self, const Tensor& other) {
  return twin(
      "WhereBackward0", [&] { return mt::where(cond, self, other); }, {nullptr, &self, &other},
      {{"condition", cond}},
      [](FnNode& n, V& gs) -> V {
        Tensor c = n.saved("condition");
        const Tensor& g = gs[0];
        return {Tensor(), n.needs_input_grad(1) ? mt::where(c, g, S(0)) : Tensor(),
                n.needs_input_grad(2) ? mt::where(c, S(0), g) : Tensor()};
      });
}

Tensor masked_fill(const Tensor& self, const Tensor& mask, const Tensor& value) {
  return twin(
      "MaskedFillBackward0", [&] { return mt::masked_fill(self, mask, value); }, {&self, nullptr, &value},
      {{"mask", mask}},
      [](FnNode& n, V& gs) -> V {
        Tensor m = n.saved("mask");
        const Tensor& g = gs[0];
        return {n.needs_input_grad(0) ? mt::where(m, S(0), g) : Tensor(), Tensor(),
                n.needs_input_grad(2) ? mt::sum(mt::where(m, g, S(0)), {}, false) : Tensor()};
      });
}

const Tensor& masked_fill_(const Tensor& self, const Tensor& mask, const Tensor& value) {
  return inplace(self, [&](const Tensor& s) { return autograd::masked_fill(s, mask, value); });
}

Tensor softplus(const Tensor& self, double beta, double threshold) {
  return twin(
      "SoftplusBackward0", [&] { return mt::softplus(self, beta, threshold); }, {&self}, {{"self", self}},
      [beta, threshold](FnNode& n, V& gs) -> V {
        Tensor bx = mt::mul(n.saved("self"), S(beta));
        return {mt::where(mt::gt(bx, S(threshold)), gs[0], mt::mul(gs[0], mt::sigmoid(bx)))};
      });
}

// leaky_relu, hardshrink, threshold, elu and polygamma: their `grad:` rows in csrc/ops/ops.schema
#include "generated/twin_grads.inc"

// ---- index (ops/index.h)

Tensor index(const Tensor& self, const std::vector<std::optional<Tensor>>& indices) {
  TensorGeometry base = geometry_of(self);
  return twin(
      "IndexBackward0", [&] { return mt::index(self, indices); }, {&self}, {},
      [base, indices](FnNode&, V& gs) -> V {
        Tensor z = zeros(base.sizes, gs[0].dtype(), gs[0].device());
        mt::index_put_(z, indices, gs[0], true);
        return {z};
      });
}

const Tensor& index_put_(const Tensor& self, const std::vector<std::optional<Tensor>>& indices,
                         const Tensor& values, bool accumulate) {
  return inplace(self, [&](const Tensor& s) {
    Tensor out = no_grad([&] {
      mt::index_put_(s, indices, values, accumulate);
      return s;
    });
    Tensor r = detach(out);
    record("IndexPutBackward0", {&s, &values}, {&r}, {}, [indices, accumulate](FnNode& n, V& gs) -> V {
      const Tensor& g = gs[0];
      V res(2);
      if (n.needs_input_grad(0)) {
        if (accumulate) {
          res[0] = g;
        } else {
          res[0] = mt::clone(g);
          mt::index_put_(res[0], indices, S(0), false);
        }
      }
      if (n.needs_input_grad(1)) res[1] = mt::index(g, indices);
      return res;
    });
    return r;
  });
}

Tensor index_select(const Tensor& self, int64_t dim, const Tensor& index) {
  Tensor out = no_grad([&] { return mt::index_select(self, dim, index); });
  TensorGeometry base = geometry_of(self);
  int64_t d = wrap_dim(dim, self.dim());
  record("IndexSelectBackward0", {&self}, {&out}, {{"index", index}}, [base, d](FnNode& n, V& gs) -> V {
    Tensor z = zeros(base.sizes, gs[0].dtype(), gs[0].device());
    if (base.sizes.empty()) return {mt::reshape(gs[0], base.sizes)};
    std::vector<std::optional<Tensor>> ix(static_cast<size_t>(d) + 1);
    ix[d] = mt::reshape(n.saved("index"), {-1});
    mt::index_put_(z, ix, gs[0], true);
    return {z};
  });
  return out;
}

Tensor gather(const Tensor& self, int64_t dim, const Tensor& index) {
  TensorGeometry base = geometry_of(self);
  return twin(
      "GatherBackward0", [&] { return mt::gather(self, dim, index); }, {&self}, {{"index", index}},
      [base, dim](FnNode& n, V& gs) -> V {
        Tensor z = zeros(base.sizes, gs[0].dtype(), gs[0].device());
        mt::scatter_add_(z, dim, n.saved("index"), gs[0]);
        return {z};
      });
}

const Tensor& scatter_(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
                       const std::string& reduce) {
  const char* name = reduce.empty() ? "ScatterBackward0"
                                    : (reduce == "add" ? "ScatterAddBackward0" : "ScatterReduceBackward0");
  return inplace(self, [&](const Tensor& s) {
    return twin(
        name,
        [&] {
          Tensor o = mt::clone(s);
          mt::scatter_(o, dim, index, src, reduce);
          return o;
        },
        {&s, &src}, {{"index", index}},
        [dim, reduce](FnNode& n, V& gs) -> V {
          MT_CHECK_NOT_IMPLEMENTED(reduce.empty() || reduce == "add",
                                   "the derivative for 'scatter_' with reduce='", reduce,
                                   "' is not implemented.");
          Tensor i = n.saved("index");
          const Tensor& g = gs[0];
          V res(2);
          if (n.needs_input_grad(0)) {
            if (reduce == "add") {
              res[0] = g;
            } else {
              // assigned positions no longer depend on self
              res[0] = mt::clone(g);
              mt::scatter_(res[0], dim, i, mt::zeros(i.sizes(), g.dtype(), g.device()));
            }
          }
          if (n.needs_input_grad(1)) res[1] = mt::gather(g, dim, i);
          return res;
        });
  });
}

// ---- linalg (ops/linalg.h)

Tensor mm(const Tensor& self, const Tensor& mat2) {
  return product(
      "MmBackward0", [&] { return mt::mm(self, mat2); }, self, mat2,
      [](const Tensor& g, const Tensor& mat2) { return mt::mm(g, mt::conj(mt::t(mat2))); },
      [](const Tensor& g, const Tensor& self) { return mt::mm(mt::conj(mt::t(self)), g); });
}

Tensor bmm(const Tensor& self, const Tensor& mat2) {
  return product(
      "BmmBackward0", [&] { return mt::bmm(self, mat2); }, self, mat2,
      [](const Tensor& g, const Tensor& mat2) { return mt::bmm(g, mt::conj(mt::transpose(mat2, 1, 2))); },
      [](const Tensor& g, const Tensor& self) { return mt::bmm(mt::conj(mt::transpose(self, 1, 2)), g); });
}

Tensor mv(const Tensor& self, const Tensor& vec) {
  return product(
      "MvBackward0", [&] { return mt::mv(self, vec); }, self, vec,
      [](const Tensor& g, const Tensor& vec) { return mt::mul(mt::unsqueeze(g, 1), mt::conj(vec)); },
      [](const Tensor& g, const Tensor& self) { return mt::mv(mt::conj(mt::t(self)), g); });
}

Tensor dot(const Tensor& self, const Tensor& other) {
  return product(
      "DotBackward0", [&] { return mt::dot(self, other); }, self, other,
      [](const Tensor& g, const Tensor& other) { return mt::mul(g, mt::conj(other)); },
      [](const Tensor& g, const Tensor& self) { return mt::mul(g, mt::conj(self)); });
}

Tensor addmm(const Tensor& self, const Tensor& mat1, const Tensor& mat2, const Scalar& beta,
             const Scalar& alpha) {
  double be = beta.to_double(), al = alpha.to_double();
  return twin(
      "AddmmBackward0", [&] { return mt::addmm(self, mat1, mat2, beta, alpha); }, {&self, &mat1, &mat2},
      {{"mat1", mat1, grad_of(2)}, {"mat2", mat2, grad_of(1)}},
      [be, al](FnNode& n, V& gs) -> V {
        const Tensor& g = gs[0];
        return {n.needs_input_grad(0) ? mt::mul(g, S(be)) : Tensor(),
                n.needs_input_grad(1) ? mt::mul(mt::mm(g, mt::t(n.saved("mat2"))), S(al)) : Tensor(),
                n.needs_input_grad(2) ? mt::mul(mt::mm(mt::t(n.saved("mat1")), g), S(al)) : Tensor()};
      });
}

// ---- loss (ops/loss.h)

namespace {

// The class-loss gradient written in ops, for create_graph=True: the same formula as the fused backward
// kernel (scale * (softmax(x) * A - a), see kernels/cpu/loss.cpp), recorded so it differentiates again.
V class_loss_grad_composite(const Tensor& g, const Tensor& x, const Tensor& t, const Tensor& w,
                            const Tensor& total_weight, const ClassLossOptions& opt, bool need_x,
                            bool need_t) {
  const int64_t nd = x.dim(), cdim = nd == 1 ? 0 : 1, C = x.sizes()[cdim];
  DimVector cshape(static_cast<size_t>(nd), 1);
  cshape[cdim] = C;
  const Tensor w_b = w.defined() ? mt::view(mt::to(w, x.dtype(), x.device()), cshape) : S(1.0);
  Tensor scale = g;
  if (opt.reduction == Reduction::None) scale = mt::unsqueeze(g, cdim);
  if (opt.reduction == Reduction::Mean) scale = mt::div(g, total_weight);
  const double eps = opt.label_smoothing;
  Tensor a;
  if (opt.kind == ClassLossKind::ce_prob) {
    Tensor tp = t.dtype() == x.dtype() ? t : mt::to(t, x.dtype(), x.device());
    a = mt::mul(w_b, mt::add(mt::mul(tp, S(1.0 - eps)), S(eps / static_cast<double>(C))));
  } else {
    Tensor t_b = mt::unsqueeze(t, cdim);
    Tensor classes = mt::view(
        mt::arange(Scalar(int64_t(0)), Scalar(C), Scalar(int64_t(1)), ScalarType::Long, x.device()), cshape);
    Tensor keep = mt::ne(t_b, wrapped_scalar(Scalar(opt.ignore_index)));
    Tensor onehot = fmask(mt::logical_and(mt::eq(classes, t_b), keep), x);
    if (opt.kind == ClassLossKind::nll)
      return {need_x ? mt::neg(mt::mul(scale, mt::mul(onehot, w_b))) : Tensor(), Tensor()};
    a = mt::mul(mt::mul(onehot, w_b), S(1.0 - eps));
    if (eps > 0) a = mt::add(a, mt::mul(mt::mul(w_b, fmask(keep, x)), S(eps / static_cast<double>(C))));
  }
  V res(2);
  if (need_x) {
    Tensor A = mt::sum(a, {cdim}, true);
    res[0] = mt::mul(scale, mt::sub(mt::mul(mt::softmax(x, cdim), A), a));
  }
  if (need_t && opt.kind == ClassLossKind::ce_prob)
    res[1] = mt::neg(mt::mul(mt::mul(scale, mt::mul(w_b, S(1.0 - eps))), mt::log_softmax(x, cdim)));
  return res;
}

}  // namespace

// cross_entropy / nll_loss: one fused forward, one node whose backward is the fused backward kernel.
Tensor class_loss(const Tensor& input, const Tensor& target, const std::optional<Tensor>& weight_,
                  const ClassLossOptions& opt) {
  const Tensor weight = weight_ ? *weight_ : Tensor();
  auto [out, stats, total_weight] =
      no_grad([&] { return mt::class_loss_forward(input, target, weight, opt, true); });
  record(opt.kind == ClassLossKind::nll ? "NllLossBackward0" : "CrossEntropyLossBackward0", {&input, &target},
         {&out},
         {{"self", input},
          {"target", target},
          {"weight", weight},
          {"stats", stats},
          {"total_weight", total_weight}},
         [opt](FnNode& n, V& gs) -> V {
           Tensor x = n.saved("self"), t = n.saved("target"), w = n.saved("weight"),
                  tw = n.saved("total_weight");
           // create_graph: the gradient itself must record, so it is built from ops
           if (GradMode::is_enabled() && (gs[0].requires_grad() || x.requires_grad() || t.requires_grad()))
             return class_loss_grad_composite(gs[0], x, t, w, tw, opt, n.needs_input_grad(0),
                                              n.needs_input_grad(1));
           auto [gi, gt] = mt::class_loss_backward(gs[0], x, t, w, n.saved("stats"), tw, opt,
                                                   n.needs_input_grad(0), n.needs_input_grad(1));
           return {gi, gt};
         });
  return out;
}

Tensor mse_loss(const Tensor& input, const Tensor& target, Reduction reduction) {
  return twin(
      "MseLossBackward0", [&] { return mt::mse_loss(input, target, reduction); }, {&input, &target},
      {{"self", input}, {"target", target}},
      [reduction](FnNode& n, V& gs) -> V {
        Tensor d = mt::sub(n.saved("self"), n.saved("target"));
        Tensor g = gs[0];
        if (reduction == Reduction::None) g = mt::mul(g, S(2.0));
        if (reduction == Reduction::Sum) g = mt::mul(g, S(2.0));
        if (reduction == Reduction::Mean) g = mt::mul(g, S(2.0 / static_cast<double>(d.numel())));
        // the engine sums each gradient back to its input's (broadcast) shape
        Tensor gx = mt::mul(d, g);
        return {n.needs_input_grad(0) ? gx : Tensor(), n.needs_input_grad(1) ? mt::neg(gx) : Tensor()};
      });
}

// d/dx = g clamp(x - t, -delta, delta) (smooth_l1: clamp((x - t) / beta, -1, 1)), d/dt its negation: the CPU
// kernel, or ops when the gradient must record (create_graph) or elsewhere.
static V huber_grads(FnNode& n, V& gs, HuberKind kind, double param, Reduction reduction) {
  Tensor x = n.saved("self"), t = n.saved("target");
  Tensor gx = mt::huber_loss_backward(gs[0], x, t, kind, param, reduction);
  Tensor gi, gt;
  if (n.needs_input_grad(0)) gi = gx.dtype() == x.dtype() ? gx : mt::to(gx, x.dtype(), gx.device());
  if (n.needs_input_grad(1)) {
    gt = mt::neg(gx);
    if (gt.dtype() != t.dtype()) gt = mt::to(gt, t.dtype(), gt.device());
  }
  return {gi, gt};
}

Tensor huber_loss(const Tensor& input, const Tensor& target, Reduction reduction, double delta) {
  return twin(
      "HuberLossBackward0", [&] { return mt::huber_loss(input, target, reduction, delta); },
      {&input, &target}, {{"self", input}, {"target", target}},
      [reduction, delta](FnNode& n, V& gs) -> V {
        return huber_grads(n, gs, HuberKind::huber, delta, reduction);
      });
}

Tensor smooth_l1_loss(const Tensor& input, const Tensor& target, Reduction reduction, double beta) {
  return twin(
      "SmoothL1LossBackward0", [&] { return mt::smooth_l1_loss(input, target, reduction, beta); },
      {&input, &target}, {{"self", input}, {"target", target}},
      [reduction, beta](FnNode& n, V& gs) -> V {
        return huber_grads(n, gs, HuberKind::smooth_l1, beta, reduction);
      });
}

// PyTorch's formulas: d/dx = w (x - t) / max(x (1 - x), 1e-12), d/dt = w (log(1 - x) - log x), logs clamped
// at -100 as in the forward; finite where x is exactly 0 or 1 (a saturated sigmoid).
Tensor binary_cross_entropy(const Tensor& input, const Tensor& target, const std::optional<Tensor>& weight_,
                            Reduction reduction) {
  const Tensor weight = weight_ ? *weight_ : Tensor();
  return twin(
      "BinaryCrossEntropyBackward0",
      [&] {
        return mt::binary_cross_entropy(
            input, target, weight.defined() ? std::optional<Tensor>(weight) : std::nullopt, reduction);
      },
      {&input, &target, &weight}, {{"self", input}, {"target", target}, {"weight", weight}},
      [reduction](FnNode& n, V& gs) -> V {
        Tensor x = n.saved("self"), t = n.saved("target"), w = n.saved("weight");
        Tensor g = gs[0];
        if (reduction == Reduction::Mean) g = mt::div(g, S(static_cast<double>(x.numel())));
        if (w.defined()) g = mt::mul(g, w);
        V res(3);
        if (n.needs_input_grad(0)) {
          Tensor den = mt::clamp(mt::mul(x, mt::sub(S(1.0), x)), S(1e-12), std::nullopt);
          res[0] = mt::div(mt::mul(g, mt::sub(x, t)), den);
        }
        if (n.needs_input_grad(1)) {
          Tensor l1 = mt::clamp(mt::log(mt::sub(S(1.0), x)), S(-100.0), std::nullopt);
          Tensor l0 = mt::clamp(mt::log(x), S(-100.0), std::nullopt);
          res[1] = mt::mul(g, mt::sub(l1, l0));
        }
        if (n.needs_input_grad(2)) {
          // d/dw: the unweighted elementwise loss
          Tensor l1 = mt::clamp(mt::log(mt::sub(S(1.0), x)), S(-100.0), std::nullopt);
          Tensor l0 = mt::clamp(mt::log(x), S(-100.0), std::nullopt);
          Tensor g0 = gs[0];
          if (reduction == Reduction::Mean) g0 = mt::div(g0, S(static_cast<double>(x.numel())));
          res[2] = mt::mul(g0, mt::neg(mt::add(mt::mul(t, l0), mt::mul(mt::sub(S(1.0), t), l1))));
        }
        return res;
      });
}

// ---- nn (ops/nn.h): linear, batch/layer/group norm, embedding, dropout
// The norms save their input and the statistics the forward computed (mean, rstd); under create_graph the
// statistics are recomputed with recorded ops, so double backward sees their dependence on the input. The
// three norms' entries look alike (same saved tensors, same fused-or-composite split) but normalize over
// different dims, and batch norm's eval path treats the statistics as constants, so each keeps its own
// formula.

Tensor linear(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias) {
  Tensor b = bias ? *bias : Tensor();
  DimVector in_sizes = input.sizes();
  return twin(
      "LinearBackward0", [&] { return mt::linear(input, weight, bias); }, {&input, &weight, &b},
      {{"input", input, grad_of(1)}, {"weight", weight, grad_of(0)}},
      [in_sizes](FnNode& n, V& gs) -> V {
        const Tensor& g = gs[0];
        int64_t out_f = g.sizes()[g.dim() - 1];
        int64_t rows = compute_numel(IntArrayRef(g.sizes().data(), size_t(g.dim() - 1)));
        Tensor g2 = mt::reshape(g, {rows, out_f});
        V res(3);
        if (n.needs_input_grad(0)) res[0] = mt::reshape(mt::mm(g2, mt::conj(n.saved("weight"))), in_sizes);
        if (n.needs_input_grad(1)) {
          Tensor x = n.saved("input");
          res[1] = mt::mm(mt::t(g2), mt::conj(mt::reshape(x, {rows, x.sizes()[x.dim() - 1]})));
        }
        if (n.needs_input_grad(2)) res[2] = mt::sum(g2, {0}, false);
        return res;
      });
}

Tensor layer_norm(const Tensor& input, IntArrayRef normalized_shape, const std::optional<Tensor>& weight,
                  const std::optional<Tensor>& bias, double eps) {
  auto [out, mean, rstd] =
      no_grad([&] { return mt::native_layer_norm(input, normalized_shape, weight, bias, eps); });
  Tensor w = weight ? *weight : Tensor(), b = bias ? *bias : Tensor();
  DimVector ns(normalized_shape.begin(), normalized_shape.end());
  record("NativeLayerNormBackward0", {&input, &w, &b}, {&out},
         {{"input", input}, {"weight", w}, {"mean", mean}, {"rstd", rstd}}, [ns, eps](FnNode& n, V& gs) -> V {
           Tensor x = n.saved("input"), w = n.saved("weight"), mean = n.saved("mean"), rstd = n.saved("rstd");
           const Tensor& g = gs[0];
           int64_t N = compute_numel(ns);
           int64_t M = N == 0 ? 0 : x.numel() / N;
           if (M == 0 || N == 0) return empty_norm_grads(n, x, ns, g);
           V res(3);
           if (!GradMode::is_enabled()) {  // not differentiated again: one fused pass
             auto [dx, dw, db] =
                 mt::native_layer_norm_backward(g, x, mean, rstd, w, M, N, n.needs_input_grad(0),
                                                n.needs_input_grad(1) && w.defined(), n.needs_input_grad(2));
             if (dx.defined()) res[0] = mt::reshape(dx, x.sizes());
             if (dw.defined()) res[1] = mt::reshape(dw, ns);
             if (db.defined()) res[2] = mt::reshape(db, ns);
             return res;
           }
           Tensor x2 = mt::reshape(x, {M, N}), g2 = mt::reshape(g, {M, N});
           Tensor mb, rb;
           if (GradMode::is_enabled()) {
             std::tie(mb, rb) = recorded_stats(x2, {1}, eps);
           } else {
             mb = mt::reshape(mean, {M, 1});
             rb = mt::reshape(rstd, {M, 1});
           }
           Tensor xhat = mt::mul(mt::sub(x2, mb), rb);
           if (n.needs_input_grad(0)) {
             Tensor gw = w.defined() ? mt::mul(g2, mt::reshape(w, {1, N})) : g2;
             res[0] = mt::reshape(norm_input_grad(gw, xhat, rb, {1}), x.sizes());
           }
           if (n.needs_input_grad(1)) res[1] = mt::reshape(mt::sum(mt::mul(g2, xhat), {0}, false), ns);
           if (n.needs_input_grad(2)) res[2] = mt::reshape(mt::sum(g2, {0}, false), ns);
           return res;
         });
  return out;
}

// Recorded as layer_norm above (forward without grad, save mean/rstd, one fused backward); only the
// statistics' grouping and PyTorch's node name differ.
Tensor group_norm(const Tensor& input, int64_t num_groups, const std::optional<Tensor>& weight,
                  const std::optional<Tensor>& bias, double eps) {
  auto [out, mean, rstd] =
      no_grad([&] { return mt::native_group_norm(input, num_groups, weight, bias, eps); });
  Tensor w = weight ? *weight : Tensor(), b = bias ? *bias : Tensor();
  int64_t G = num_groups;
  record("NativeGroupNormBackward0", {&input, &w, &b}, {&out},
         {{"input", input}, {"weight", w}, {"mean", mean}, {"rstd", rstd}}, [G, eps](FnNode& n, V& gs) -> V {
           Tensor x = n.saved("input"), w = n.saved("weight"), mean = n.saved("mean"), rstd = n.saved("rstd");
           const Tensor& g = gs[0];
           int64_t N = x.sizes()[0], C = x.sizes()[1];
           DimVector dims = dims_but_1(x.dim());
           if (x.numel() == 0) return empty_norm_grads(n, x, DimVector{C}, g);
           V res(3);
           int64_t D = x.numel() / (N * G);
           Tensor x3 = mt::reshape(x, {N, G, D});
           Tensor mb, rb;
           if (GradMode::is_enabled()) {
             std::tie(mb, rb) = recorded_stats(x3, {2}, eps);
           } else {
             mb = mt::reshape(mean, {N, G, 1});
             rb = mt::reshape(rstd, {N, G, 1});
           }
           Tensor xhat3 = mt::mul(mt::sub(x3, mb), rb);
           DimVector bshape(static_cast<size_t>(x.dim()), 1);
           bshape[1] = C;
           if (n.needs_input_grad(0)) {
             Tensor gw = w.defined() ? mt::mul(g, mt::reshape(w, bshape)) : g;
             res[0] = mt::reshape(norm_input_grad(mt::reshape(gw, {N, G, D}), xhat3, rb, {2}), x.sizes());
           }
           if (n.needs_input_grad(1))
             res[1] = mt::sum(mt::mul(g, mt::reshape(xhat3, x.sizes())), dims, false);
           if (n.needs_input_grad(2)) res[2] = mt::sum(g, dims, false);
           return res;
         });
  return out;
}

Tensor batch_norm(const Tensor& input, const std::optional<Tensor>& weight, const std::optional<Tensor>& bias,
                  const std::optional<Tensor>& running_mean, const std::optional<Tensor>& running_var,
                  bool training, double momentum, double eps) {
  auto [out, mean, rstd] = no_grad([&] {
    return mt::native_batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps);
  });
  Tensor w = weight ? *weight : Tensor(), b = bias ? *bias : Tensor();
  record("NativeBatchNormBackward0", {&input, &w, &b}, {&out},
         {{"input", input}, {"weight", w}, {"save_mean", mean}, {"save_invstd", rstd}},
         [training, eps](FnNode& n, V& gs) -> V {
           Tensor x = n.saved("input"), w = n.saved("weight"), mean = n.saved("save_mean"),
                  rstd = n.saved("save_invstd");
           const Tensor& g = gs[0];
           int64_t C = x.sizes()[1];
           DimVector dims = dims_but_1(x.dim());
           if (x.numel() == 0) return empty_norm_grads(n, x, DimVector{C}, g);
           V res(3);
           if (!GradMode::is_enabled()) {  // not differentiated again: fused passes
             auto [dx, dw, db] =
                 mt::native_batch_norm_backward(g, x, mean, rstd, w, training, n.needs_input_grad(0),
                                                n.needs_input_grad(1) && w.defined(), n.needs_input_grad(2));
             res[0] = dx;
             if (dw.defined()) res[1] = mt::reshape(dw, w.sizes());
             res[2] = db;
             return res;
           }
           DimVector bshape(static_cast<size_t>(x.dim()), 1);
           bshape[1] = C;
           Tensor mb, rb;
           if (training && GradMode::is_enabled()) {
             std::tie(mb, rb) = recorded_stats(x, dims, eps);
           } else {
             mb = mt::reshape(mean, bshape);
             rb = mt::reshape(rstd, bshape);
           }
           Tensor xhat = mt::mul(mt::sub(x, mb), rb);
           if (n.needs_input_grad(0)) {
             Tensor gw = w.defined() ? mt::mul(g, mt::reshape(w, bshape)) : g;
             // eval: the statistics are constants, so only the scale reaches the input
             res[0] = training ? norm_input_grad(gw, xhat, rb, dims) : mt::mul(gw, rb);
           }
           if (n.needs_input_grad(1)) res[1] = mt::reshape(mt::sum(mt::mul(g, xhat), dims, false), w.sizes());
           if (n.needs_input_grad(2)) res[2] = mt::sum(g, dims, false);
           return res;
         });
  return out;
}

Tensor embedding(const Tensor& weight, const Tensor& indices, int64_t padding_idx, bool scale_grad_by_freq,
                 bool sparse) {
  (void)sparse;  // the gradient is always dense (no sparse tensors here)
  Tensor out = no_grad([&] { return mt::embedding_forward(weight, indices); });
  int64_t num = weight.sizes()[0];
  record("EmbeddingBackward0", {&weight}, {&out}, {{"indices", indices}},
         [num, padding_idx, scale_grad_by_freq](FnNode& n, V& gs) -> V {
           return {mt::embedding_backward(gs[0], n.saved("indices"), num, padding_idx, scale_grad_by_freq)};
         });
  return out;
}

Tensor dropout(const Tensor& input, double p) {
  auto [out, mask] = no_grad([&] { return mt::native_dropout(input, p); });
  double scale = 1.0 / (1.0 - p);
  record("NativeDropoutBackward0", {&input}, {&out}, {{"mask", mask}},
         [scale](FnNode& n, V& gs) -> V { return {mt::mul(mt::mul(gs[0], n.saved("mask")), S(scale))}; });
  return out;
}

// ---- pool (ops/pool.h)
// The pooling gradients are recorded ops too; each is linear in the output gradient, so its own derivative
// is its adjoint (double backward).

std::tuple<Tensor, Tensor> max_pool2d_impl(const Tensor& input, const PoolArgs& args, int64_t oh,
                                           int64_t ow) {
  auto r = no_grad([&] { return mt::max_pool2d_impl(input, args, oh, ow); });
  DimVector in_sizes(input.sizes().begin(), input.sizes().end());
  record("MaxPool2DWithIndicesBackward0", {&input}, {&std::get<0>(r)}, {{"indices", std::get<1>(r)}},
         [args, in_sizes](FnNode& n, V& gs) -> V {
           return {mt::max_pool2d_backward(gs[0], n.saved("indices"), args, in_sizes)};
         });
  return r;
}

Tensor avg_pool2d_impl(const Tensor& input, const PoolArgs& args, int64_t oh, int64_t ow) {
  DimVector in_sizes(input.sizes().begin(), input.sizes().end());
  return twin(
      "AvgPool2DBackward0", [&] { return mt::avg_pool2d_impl(input, args, oh, ow); }, {&input}, {},
      [args, in_sizes](FnNode&, V& gs) -> V { return {mt::avg_pool2d_backward(gs[0], args, in_sizes)}; });
}

// the adjoint of avg pooling's gradient is the pooling itself
Tensor avg_pool2d_backward(const Tensor& grad_out, const PoolArgs& args, IntArrayRef input_sizes) {
  Tensor out = no_grad([&] { return mt::avg_pool2d_backward(grad_out, args, input_sizes); });
  int64_t oh = grad_out.sizes()[2], ow = grad_out.sizes()[3];
  record("AvgPool2DBackwardBackward0", {&grad_out}, {&out}, {},
         [args, oh, ow](FnNode&, V& gs) -> V { return {mt::avg_pool2d_impl(gs[0], args, oh, ow)}; });
  return out;
}

// the adjoint of max pooling's gradient gathers at the saved indices
Tensor max_pool2d_backward(const Tensor& grad_out, const Tensor& indices, const PoolArgs& args,
                           IntArrayRef input_sizes) {
  return twin(
      "MaxPool2DWithIndicesBackwardBackward0",
      [&] { return mt::max_pool2d_backward(grad_out, indices, args, input_sizes); }, {&grad_out},
      {{"indices", indices}},
      [](FnNode& n, V& gs) -> V {
        Tensor idx = n.saved("indices");
        int64_t planes = idx.sizes()[0] * idx.sizes()[1];
        Tensor g = mt::gather(mt::reshape(gs[0], {planes, -1}), 1, mt::reshape(idx, {planes, -1}));
        return {mt::view(g, idx.sizes())};
      });
}

// ---- upsampling (ops/upsample.h): linear in its input, so the gradient is the adjoint scatter and the
// gradient's gradient is the upsampling again. Node names are PyTorch's, per mode and rank.

static const char* upsample_node_name(const UpsampleArgs& a, bool backward) {
  static const char* names[2][4][3] = {
      {{"UpsampleNearest1DBackward0", "UpsampleNearest2DBackward0", "UpsampleNearest3DBackward0"},
       {"UpsampleNearestExact1DBackward0", "UpsampleNearestExact2DBackward0",
        "UpsampleNearestExact3DBackward0"},
       {"UpsampleLinear1DBackward0", "UpsampleBilinear2DBackward0", "UpsampleTrilinear3DBackward0"},
       {"UpsampleBicubic2DBackward0", "UpsampleBicubic2DBackward0", "UpsampleBicubic2DBackward0"}},
      {{"UpsampleNearest1DBackwardBackward0", "UpsampleNearest2DBackwardBackward0",
        "UpsampleNearest3DBackwardBackward0"},
       {"UpsampleNearestExact1DBackwardBackward0", "UpsampleNearestExact2DBackwardBackward0",
        "UpsampleNearestExact3DBackwardBackward0"},
       {"UpsampleLinear1DBackwardBackward0", "UpsampleBilinear2DBackwardBackward0",
        "UpsampleTrilinear3DBackwardBackward0"},
       {"UpsampleBicubic2DBackwardBackward0", "UpsampleBicubic2DBackwardBackward0",
        "UpsampleBicubic2DBackwardBackward0"}}};
  return names[backward ? 1 : 0][static_cast<int>(a.mode)][a.nd - 1];
}

Tensor upsample_impl(const Tensor& input, const UpsampleArgs& args) {
  DimVector in_sizes(input.sizes().begin(), input.sizes().end());
  return twin(
      upsample_node_name(args, false), [&] { return mt::upsample_impl(input, args); }, {&input}, {},
      [args, in_sizes](FnNode&, V& gs) -> V { return {mt::upsample_backward(gs[0], args, in_sizes)}; });
}

Tensor upsample_backward(const Tensor& grad_out, const UpsampleArgs& args, IntArrayRef input_sizes) {
  return twin(
      upsample_node_name(args, true), [&] { return mt::upsample_backward(grad_out, args, input_sizes); },
      {&grad_out}, {}, [args](FnNode&, V& gs) -> V { return {mt::upsample_impl(gs[0], args)}; });
}

// ---- reduce (ops/reduce.h)

Tensor sum(const Tensor& self, IntArrayRef dims_, bool keepdim, ScalarType dtype) {
  Tensor out = no_grad([&] { return mt::sum(self, dims_, keepdim, dtype); });
  DimVector dims = all_dims(self.dim(), dims_);
  DimVector sizes = self.sizes();
  record("SumBackward1", {&self}, {&out}, {},
         [dims, keepdim, sizes](FnNode&, V& gs) -> V { return {expand_to(gs[0], dims, keepdim, sizes)}; });
  return out;
}

Tensor mean(const Tensor& self, IntArrayRef dims_, bool keepdim, ScalarType dtype) {
  Tensor out = no_grad([&] { return mt::mean(self, dims_, keepdim, dtype); });
  DimVector dims = all_dims(self.dim(), dims_);
  DimVector sizes = self.sizes();
  double count =
      out.numel() == 0 ? 1.0 : static_cast<double>(self.numel()) / static_cast<double>(out.numel());
  record("MeanBackward1", {&self}, {&out}, {}, [dims, keepdim, sizes, count](FnNode&, V& gs) -> V {
    return {mt::div(expand_to(gs[0], dims, keepdim, sizes), S(count))};
  });
  return out;
}

Tensor prod(const Tensor& self, IntArrayRef dims_, bool keepdim, ScalarType dtype) {
  Tensor out = no_grad([&] { return mt::prod(self, dims_, keepdim, dtype); });
  DimVector dims = all_dims(self.dim(), dims_);
  record("ProdBackward1", {&self}, {&out}, {{"self", self}}, [dims, keepdim](FnNode& n, V& gs) -> V {
    // d prod / d x_i = product of the others. Without zeros in the group that is prod / x_i; with
    // one zero only the zero's position has a nonzero gradient (the product of the nonzeros); with
    // two or more every gradient is zero. Never divides by zero (no NaN leaks into double
    // backward).
    Tensor x = n.saved("self");
    Tensor is0 = mt::eq(x, S(0));
    Tensor nz = mt::where(is0, S(1), x);
    Tensor pnz = mt::prod(nz, dims, true);
    Tensor zc = mt::sum(is0, dims, true);
    Tensor factor = mt::where(is0, mt::where(mt::eq(zc, S(1)), pnz, S(0)),
                              mt::where(mt::eq(zc, S(0)), mt::div(pnz, nz), S(0)));
    return {mt::mul(unsqueeze_dims(gs[0], dims, keepdim), mt::conj(factor))};  // conj: complex convention
  });
  return out;
}

namespace {
// amax/amin/max/min over dims: the gradient is shared evenly among the elements equal to the extremum.
Tensor extremum_record(const char* name, const Tensor& self, const Tensor& out, const DimVector& dims,
                       bool keepdim) {
  record(name, {&self}, {&out}, {{"self", self}, result()}, [dims, keepdim](FnNode& n, V& gs) -> V {
    Tensor m = fmask(mt::eq(n.saved("self"), unsqueeze_dims(n.saved("result"), dims, keepdim)), gs[0]);
    Tensor cnt = mt::sum(m, dims, true);
    return {mt::div(mt::mul(m, unsqueeze_dims(gs[0], dims, keepdim)), cnt)};
  });
  return out;
}

// max/min along one dim: the gradient goes to the saved index of each extremum.
std::tuple<Tensor, Tensor> dim_extremum_record(const char* name, const Tensor& self,
                                               std::tuple<Tensor, Tensor> res, int64_t dim, bool keepdim) {
  dim = wrap_dim(dim, self.dim());
  TensorGeometry base = geometry_of(self);
  record(name, {&self}, {&std::get<0>(res)}, {{"indices", std::get<1>(res)}},
         [dim, keepdim, base](FnNode& n, V& gs) -> V {
           Tensor idx = n.saved("indices");
           Tensor g = gs[0];
           if (base.sizes.empty()) return {mt::reshape(g, base.sizes)};
           if (!keepdim) {
             g = mt::unsqueeze(g, dim);
             idx = mt::unsqueeze(idx, dim);
           }
           Tensor z = zeros(base.sizes, g.dtype(), g.device());
           mt::scatter_(z, dim, idx, g);
           return {z};
         });
  return res;
}
}  // namespace

Tensor amax(const Tensor& self, IntArrayRef dims, bool keepdim) {
  Tensor out = no_grad([&] { return mt::amax(self, dims, keepdim); });
  return extremum_record("AmaxBackward0", self, out, all_dims(self.dim(), dims), keepdim);
}
Tensor amin(const Tensor& self, IntArrayRef dims, bool keepdim) {
  Tensor out = no_grad([&] { return mt::amin(self, dims, keepdim); });
  return extremum_record("AminBackward0", self, out, all_dims(self.dim(), dims), keepdim);
}
Tensor max(const Tensor& self) {
  Tensor out = no_grad([&] { return mt::max(self); });
  return extremum_record("MaxBackward1", self, out, all_dims(self.dim(), {}), false);
}
Tensor min(const Tensor& self) {
  Tensor out = no_grad([&] { return mt::min(self); });
  return extremum_record("MinBackward1", self, out, all_dims(self.dim(), {}), false);
}
std::tuple<Tensor, Tensor> max(const Tensor& self, int64_t dim, bool keepdim) {
  return dim_extremum_record("MaxBackward0", self, no_grad([&] { return mt::max(self, dim, keepdim); }), dim,
                             keepdim);
}
std::tuple<Tensor, Tensor> min(const Tensor& self, int64_t dim, bool keepdim) {
  return dim_extremum_record("MinBackward0", self, no_grad([&] { return mt::min(self, dim, keepdim); }), dim,
                             keepdim);
}

Tensor var(const Tensor& self, IntArrayRef dims_, double correction, bool keepdim) {
  Tensor out = no_grad([&] { return mt::var(self, dims_, correction, keepdim); });
  DimVector dims = all_dims(self.dim(), dims_);
  double count =
      out.numel() == 0 ? 1.0 : static_cast<double>(self.numel()) / static_cast<double>(out.numel());
  record("VarBackward0", {&self}, {&out}, {{"self", self}},
         [dims, keepdim, count, correction](FnNode& n, V& gs) -> V {
           Tensor x = n.saved("self");
           Tensor c = mt::sub(x, mt::mean(x, dims, true));
           return {mt::mul(unsqueeze_dims(gs[0], dims, keepdim), mt::mul(c, S(2.0 / (count - correction))))};
         });
  return out;
}

Tensor std(const Tensor& self, IntArrayRef dims_, double correction, bool keepdim) {
  Tensor out = no_grad([&] { return mt::std(self, dims_, correction, keepdim); });
  DimVector dims = all_dims(self.dim(), dims_);
  double count =
      out.numel() == 0 ? 1.0 : static_cast<double>(self.numel()) / static_cast<double>(out.numel());
  record("StdBackward0", {&self}, {&out}, {{"self", self}, result()},
         [dims, keepdim, count, correction](FnNode& n, V& gs) -> V {
           Tensor x = n.saved("self"), r = n.saved("result");
           Tensor c = mt::sub(x, mt::mean(x, dims, true));
           Tensor rr = unsqueeze_dims(r, dims, keepdim);
           // a zero std (constant input) has no direction to grow in: PyTorch's std_backward masks it to 0
           // rather than dividing 0 by 0
           Tensor scale =
               mt::where(mt::eq(rr, S(0)), S(0), mt::div(unsqueeze_dims(gs[0], dims, keepdim), rr));
           return {mt::mul(scale, mt::mul(c, S(1.0 / (count - correction))))};
         });
  return out;
}

Tensor norm(const Tensor& self, double p, IntArrayRef dims_, bool keepdim) {
  Tensor out = no_grad([&] { return mt::norm(self, p, dims_, keepdim); });
  DimVector dims = all_dims(self.dim(), dims_);
  record("NormBackward1", {&self}, {&out}, {{"self", self}, result()},
         [dims, keepdim, p](FnNode& n, V& gs) -> V {
           Tensor x = n.saved("self"), r = unsqueeze_dims(n.saved("result"), dims, keepdim);
           Tensor g = unsqueeze_dims(gs[0], dims, keepdim);
           if (p == 0) return {zeros_like(x)};
           if (p == 1) return {mt::mul(g, mt::sign(x))};
           if (std::isinf(p)) {
             Tensor m = fmask(mt::eq(mt::abs(x), r), g);
             Tensor cnt = mt::sum(m, dims, true);
             return {mt::div(mt::mul(mt::mul(g, mt::sign(x)), m), cnt)};
           }
           // d||x||_p/dx = x |x|^(p-2) / ||x||_p^(p-1); zero where the norm is zero
           Tensor num = p == 2 ? x : mt::mul(x, mt::pow(mt::abs(x), S(p - 2)));
           Tensor den = p == 2 ? r : mt::pow(r, S(p - 1));
           Tensor q = mt::div(mt::mul(g, num), den);
           return {mt::where(mt::eq(r, S(0)), S(0), q)};
         });
  return out;
}

Tensor logsumexp(const Tensor& self, IntArrayRef dims_, bool keepdim) {
  Tensor out = no_grad([&] { return mt::logsumexp(self, dims_, keepdim); });
  DimVector dims = all_dims(self.dim(), dims_);
  record(
      "LogsumexpBackward0", {&self}, {&out}, {{"self", self}, result()},
      [dims, keepdim](FnNode& n, V& gs) -> V {
        return {mt::mul(unsqueeze_dims(gs[0], dims, keepdim),
                        mt::exp(mt::sub(n.saved("self"), unsqueeze_dims(n.saved("result"), dims, keepdim))))};
      });
  return out;
}

Tensor nansum(const Tensor& self, IntArrayRef dims_, bool keepdim, ScalarType dtype) {
  Tensor out = no_grad([&] { return mt::nansum(self, dims_, keepdim, dtype); });
  DimVector dims = all_dims(self.dim(), dims_);
  DimVector sizes = self.sizes();
  // sum's gradient, zero where the input was NaN (it did not take part)
  record("NansumBackward0", {&self}, {&out}, {{"self", self}}, [dims, keepdim, sizes](FnNode& n, V& gs) -> V {
    return {mt::where(mt::isnan(n.saved("self")), S(0), expand_to(gs[0], dims, keepdim, sizes))};
  });
  return out;
}

Tensor trace(const Tensor& self) {
  Tensor out = no_grad([&] { return mt::trace(self); });
  const int64_t rows = self.sizes()[0], cols = self.sizes()[1];
  record("TraceBackward0", {&self}, {&out}, {}, [rows, cols](FnNode&, V& gs) -> V {
    const Tensor& g = gs[0];
    const ScalarType rt = is_complex(g.dtype()) ? to_real_type(g.dtype()) : g.dtype();
    return {mt::mul(mt::eye(rows, cols, rt, g.device()), g)};
  });
  return out;
}

Tensor cumsum(const Tensor& self, int64_t dim, ScalarType dtype) {
  Tensor out = no_grad([&] { return mt::cumsum(self, dim, dtype); });
  int64_t d = wrap_dim(dim, self.dim());
  record("CumsumBackward0", {&self}, {&out}, {}, [d](FnNode&, V& gs) -> V {
    // the reversed cumulative sum: total - cumsum + g
    const Tensor& g = gs[0];
    if (g.dim() == 0) return {g};
    return {mt::add(mt::sub(mt::sum(g, {d}, true), mt::cumsum(g, d)), g)};
  });
  return out;
}

Tensor cumprod(const Tensor& self, int64_t dim, ScalarType dtype) {
  Tensor out = no_grad([&] { return mt::cumprod(self, dim, dtype); });
  int64_t d = wrap_dim(dim, self.dim());
  record("CumprodBackward0", {&self}, {&out}, {{"self", self}, result()}, [d](FnNode& n, V& gs) -> V {
    // d out_j / d x_i = out_j / x_i for j >= i: a reversed cumulative sum of g * conj(out), divided by
    // conj(x) (exact for inputs without zeros, like prod's formula; conj is free on real tensors)
    Tensor x = mt::conj(n.saved("self"));
    Tensor gr = mt::mul(gs[0], mt::conj(n.saved("result")));
    if (gr.dim() == 0) return {mt::div(gr, x)};
    Tensor rev = mt::add(mt::sub(mt::sum(gr, {d}, true), mt::cumsum(gr, d)), gr);
    return {mt::div(rev, x)};
  });
  return out;
}

namespace {
// softmax and log_softmax: the formula reads the result along the (wrapped) dim; a 0-dim result has a zero
// gradient.
using SoftmaxGrad = Tensor (*)(const Tensor& grad, const Tensor& result, int64_t dim);
Tensor softmax_record(const char* name, const Tensor& self, const Tensor& out, int64_t dim,
                      SoftmaxGrad grad) {
  int64_t d = wrap_dim(dim, self.dim());
  record(name, {&self}, {&out}, {result()}, [d, grad](FnNode& n, V& gs) -> V {
    Tensor r = n.saved("result");
    if (r.dim() == 0) return {mt::mul(gs[0], S(0))};
    return {grad(gs[0], r, d)};
  });
  return out;
}
}  // namespace

Tensor softmax(const Tensor& self, int64_t dim, ScalarType dtype) {
  return softmax_record("SoftmaxBackward0", self, no_grad([&] { return mt::softmax(self, dim, dtype); }), dim,
                        [](const Tensor& g, const Tensor& r, int64_t d) {
                          return mt::mul(r, mt::sub(g, mt::sum(mt::mul(g, r), {d}, true)));
                        });
}

Tensor log_softmax(const Tensor& self, int64_t dim, ScalarType dtype) {
  return softmax_record("LogSoftmaxBackward0", self,
                        no_grad([&] { return mt::log_softmax(self, dim, dtype); }), dim,
                        [](const Tensor& g, const Tensor& r, int64_t d) {
                          return mt::sub(g, mt::mul(mt::exp(r), mt::sum(g, {d}, true)));
                        });
}

// ---- shape (ops/shape.h); the view ops are in views.cpp

Tensor cat(const std::vector<Tensor>& tensors, int64_t dim) {
  Tensor out = no_grad([&] { return mt::cat(tensors, dim); });
  std::vector<int64_t> lens;
  std::vector<const Tensor*> ins;
  int64_t d = 0;
  for (auto& t : tensors) {
    // PyTorch's legacy rule: 1-D empty tensors are skipped by cat
    bool skip = t.dim() == 1 && t.numel() == 0;
    lens.push_back(skip ? -1 : 0);
    ins.push_back(&t);
    if (!skip) d = wrap_dim(dim, t.dim());
  }
  for (size_t i = 0; i < tensors.size(); ++i)
    if (lens[i] == 0) lens[i] = tensors[i].sizes()[d];
  record("CatBackward0", ins, {&out}, {}, [lens, d](FnNode& n, V& gs) -> V {
    V r(lens.size());
    int64_t off = 0;
    for (size_t i = 0; i < lens.size(); ++i) {
      if (lens[i] < 0) continue;
      if (n.needs_input_grad(i)) r[i] = mt::narrow(gs[0], d, off, lens[i]);
      off += lens[i];
    }
    return r;
  });
  return out;
}

Tensor flip(const Tensor& self, IntArrayRef dims) {
  DimVector ds(dims.begin(), dims.end());
  return twin(
      "FlipBackward0", [&] { return mt::flip(self, dims); }, {&self}, {},
      [ds](FnNode&, V& gs) -> V { return {mt::flip(gs[0], ds)}; });
}

// ---- sort (ops/sort.h): the triangle ops, linear, so the gradient is the same triangle of the gradient

Tensor tril(const Tensor& self, int64_t diagonal) {
  return twin(
      "TrilBackward0", [&] { return mt::tril(self, diagonal); }, {&self}, {},
      [diagonal](FnNode&, V& gs) -> V { return {mt::tril(gs[0], diagonal)}; });
}

Tensor triu(const Tensor& self, int64_t diagonal) {
  return twin(
      "TriuBackward0", [&] { return mt::triu(self, diagonal); }, {&self}, {},
      [diagonal](FnNode&, V& gs) -> V { return {mt::triu(gs[0], diagonal)}; });
}

const Tensor& tril_(const Tensor& self, int64_t diagonal) {
  return inplace(self, [&](const Tensor& s) { return autograd::tril(s, diagonal); });
}

const Tensor& triu_(const Tensor& self, int64_t diagonal) {
  return inplace(self, [&](const Tensor& s) { return autograd::triu(s, diagonal); });
}

}  // namespace mt::autograd

// ---- fused RNN (ops/rnn.h)
// cuDNN's own backward (data, then weights, from the forward's reserve). It is not written in ops, so these
// gradients do not differentiate again (PyTorch's _cudnn_rnn_backward has no derivative either).
namespace mt::autograd {
std::tuple<Tensor, Tensor, Tensor, Tensor> cudnn_rnn(const Tensor& x, const std::vector<Tensor>& weights,
                                                     const Tensor& hx, const Tensor& cx,
                                                     const RnnArgs& args) {
  auto r = no_grad([&] { return mt::cudnn_rnn_forward(x, weights, hx, cx, args, /*training=*/true); });
  const Tensor &y = std::get<0>(r), &hy = std::get<1>(r), &cy = std::get<2>(r), &reserve = std::get<3>(r);
  const bool lstm = cy.defined();
  std::vector<const Tensor*> ins = {&x, &hx, lstm ? &cx : nullptr};
  for (const Tensor& w : weights) ins.push_back(&w);
  std::vector<const Tensor*> outs = {&y, &hy};
  if (lstm) outs.push_back(&cy);
  auto n = attach(
      "CudnnRnnBackward0",
      [args, lstm](FnNode& n, variable_list& gs) -> variable_list {
        MT_CHECK_NOT_IMPLEMENTED(!GradMode::is_enabled(),
                                 "the derivative for '_cudnn_rnn_backward' is not implemented.");
        RnnGrads g = mt::cudnn_rnn_backward(n.saved("input"), n.saved_list("weight"), n.saved("hx"),
                                            n.saved("cx"), n.saved("output"), n.saved("reserve"), gs[0],
                                            gs[1], lstm ? gs[2] : Tensor(), args);
        variable_list res = {g.dx, g.dhx, g.dcx};
        for (Tensor& w : g.dweights) res.push_back(std::move(w));
        return res;
      },
      ins, outs);
  if (n) {
    n->save("input", x);
    n->save("hx", hx);
    n->save("cx", cx);
    n->save("output", y, /*is_output=*/true);
    n->save("reserve", reserve);
    for (const Tensor& w : weights) n->save("weight", w);
  }
  return r;
}
}  // namespace mt::autograd
