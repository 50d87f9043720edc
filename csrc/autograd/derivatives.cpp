// The derivative formulas, together with csrc/ops/ops.schema (as PyTorch's derivatives.yaml with its
// FunctionsManual.cpp): most twins declare their derivative in their schema row and the build writes them
// into generated/twin_grads.inc, included at the end of this file; here are the helpers those formulas call
// and the twins the schema's keys do not cover (the elementwise tables, the fused RNN).
// Each twin runs the op with grad off (twin / record, derivatives.h), names the tensors its formula reads
// (saved only for the gradients that need them) and gives the formula; broadcasting and dtype changes are
// undone by the engine (sum_to / to per edge). Sections follow ops/ (one per family header, alphabetical).
// The view ops and the in-place path (views.cpp) are machinery around the graph more than formulas, so they
// live apart.
#include "autograd/derivatives.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>
#include <string>
#include <unordered_set>

#include "autograd/Node.h"
#include "autograd/record.h"
#include "ops/attention.h"
#include "ops/grid_sample.h"
#include "ops/ops.h"
#include "ops/rnn.h"
#include "ops/sort.h"
#include "ops/upsample.h"

namespace mt::autograd {

namespace {
// The nodes whose formulas hold for complex inputs (see attach): linear maps, the views, and the elementwise
// and product formulas written as grad * conj(f'(z)) in ops.schema / below; the fills, whose gradient is
// zero (fill_ and the random fills, views.cpp's overwrite); and NotImplemented (set_'s), whose backward
// raises: no gradient to get wrong.
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
                                                     "SigmoidBackward0",     "SincBackward0",
                                                     "LogaddexpBackward0",   "PowBackward0",
                                                     "LinearBackward0",      "MmBackward0",
                                                     "BmmBackward0",         "MvBackward0",
                                                     "DotBackward0",         "SumBackward0",
                                                     "SumBackward1",         "MeanBackward0",
                                                     "MeanBackward1",        "ProdBackward0",
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
                                                     "ScatterBackward0",     "ScatterAddBackward0",
                                                     "FillBackward0",        "UniformBackward0",
                                                     "NormalBackward0",      "RandomBackward0",
                                                     "RandomBackward2",      "BernoulliBackward1",
                                                     "BernoulliBackward2",   "ExponentialBackward0",
                                                     "LogNormalBackward0",   "CauchyBackward0",
                                                     "GeometricBackward0",   "NotImplemented"};
  return ok.count(name) != 0;
}

// The nodes of the ops whose dtype= (or self's dtype, slice_scatter's) can turn a differentiable input into
// an integer result
bool integer_result_refused(const char* name) {
  for (const char* p : {"SumBackward", "NansumBackward", "ProdBackward", "CumsumBackward", "CumprodBackward",
                        "SliceScatterBackward"})
    if (std::strncmp(name, p, std::strlen(p)) == 0) return true;
  return false;
}
}  // namespace

std::shared_ptr<FnNode> attach(const char* name, FnNode::Fn fn, std::vector<const Tensor*> ins,
                               std::vector<const Tensor*> outs) {
  bool any = false, cplx = false;
  for (auto* o : outs) {
    any = any || is_inexact(o->dtype());
    cplx = cplx || is_complex(o->dtype());
  }
  if (!any) {
    // PyTorch's set_history: a dtype= that makes the sum/product/scan of a tensor requiring grad an integer
    // one has no gradient to record, and PyTorch refuses it rather than dropping the history
    if (integer_result_refused(name))
      for (auto* i : ins)
        MT_CHECK(!(i && i->defined() && i->requires_grad()),
                 "Autograd not support dtype: ", dtype_short_name(outs[0]->dtype()));
    return nullptr;
  }
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
  // Saved in PyTorch's order, which saved-tensor pack hooks observe: its generated nodes save the inputs by
  // name in alphabetical order (other before self), then the outputs once computed. A stable sort keeps a
  // list's entries (one name) in their order.
  std::vector<const Saved*> order;
  order.reserve(saved.size());
  for (const Saved& s : saved) order.push_back(&s);
  std::stable_sort(order.begin(), order.end(), [](const Saved* a, const Saved* b) {
    if (a->is_output != b->is_output) return b->is_output;
    return std::strcmp(a->name ? a->name : "", b->name ? b->name : "") < 0;
  });
  for (const Saved* sp : order) {
    const Saved& s = *sp;
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
  if (nd == 0) return {};  // a 0-d input's "dim 0" (or -1) reduced nothing: no dim to restore in its gradient
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
// gelu, silu and elu: one pass (mt::activation_backward, these formulas' operations in their order) when
// the gradient is not differentiated again, as PyTorch's gelu_backward / silu_backward / elu_backward
// kernels; recorded ops otherwise (and where that kernel is missing)
Tensor gelu_grad(const Tensor& g, const Tensor& x) {
  using mt::add;
  using mt::mul;
  if (!GradMode::is_enabled()) {
    Tensor r = mt::activation_backward(ParamUnaryOp::gelu_backward, g, x);
    if (r.defined()) return r;
  }
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
  if (!GradMode::is_enabled()) {
    Tensor r = mt::activation_backward(ParamUnaryOp::silu_backward, g, x);
    if (r.defined()) return r;
  }
  Tensor s = mt::sigmoid(x);
  return mul(g, mul(s, add(mul(x, mt::sub(S(1), s)), S(1))));
}
// PyTorch's elu_backward from the input: x > 0 takes grad * scale, else (NaN too) grad * input_scale * alpha
// * scale * exp(x * input_scale); the branch not taken never reaches the gradient (alpha = inf gives no NaN)
Tensor elu_grad(const Tensor& g, const Tensor& x, double alpha, double scale, double grad_input_scale) {
  const double neg = grad_input_scale * alpha * scale;
  if (!GradMode::is_enabled()) {
    Tensor r = mt::activation_backward(ParamUnaryOp::elu_backward, g, x, neg, scale, grad_input_scale);
    if (r.defined()) return r;
  }
  return mt::where(mt::gt(x, S(0)), mt::mul(g, S(scale)),
                   mt::mul(mt::mul(g, S(neg)), mt::exp(mt::mul(x, S(grad_input_scale)))));
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
// PyTorch's sinc_backward: g (pi x cos(pi x) - sin(pi x)) / (pi x^2), conjugated; 0 where pi x^2 is 0 (x = 0,
// or so small that its square underflows)
Tensor sinc_grad(const Tensor& g, const Tensor& x) {
  const Tensor px = mt::mul(x, S(kPi)), pxx = mt::mul(mt::mul(x, x), S(kPi));
  const Tensor d = mt::div(mt::sub(mt::mul(px, mt::cos(px)), mt::sin(px)), pxx);
  return mt::where(mt::eq(pxx, S(0.0)), S(0.0), mt::mul(g, mt::conj(d)));
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

// maximum/minimum (PyTorch's masked_fill of where(a == b, grad / 2, grad)): ties split the gradient evenly,
// the losing side gets none, and a NaN on either side loses no compare, so both sides take the whole
// gradient; selects, not a multiply by a mask, so an infinite gradient never meets a 0 (inf * 0)
template <bool kMax>
V max_min_grad(const Tensor& g, const Tensor& a, const Tensor& b, bool ga, bool gb) {
  Tensor split = mt::where(mt::eq(a, b), mt::mul(g, S(0.5)), g);
  return {ga ? mt::where(kMax ? mt::lt(a, b) : mt::gt(a, b), S(0.0), split) : Tensor(),
          gb ? mt::where(kMax ? mt::gt(a, b) : mt::lt(a, b), S(0.0), split) : Tensor()};
}

// fmax/fmin (PyTorch 2.15's FmaxBackward/FminBackward): ties split the gradient as maximum's; otherwise self
// takes it where it is the larger (smaller) or other is NaN, other takes it everywhere else (so a NaN side
// passes it to the number beside it, and where both are NaN self takes it)
template <bool kMax>
V fmax_fmin_grad(const Tensor& g, const Tensor& a, const Tensor& b, bool ga, bool gb) {
  Tensor tie = mt::eq(a, b);
  Tensor split = mt::where(tie, mt::mul(g, S(0.5)), g);
  Tensor self_wins = mt::logical_or(kMax ? mt::gt(a, b) : mt::lt(a, b), mt::isnan(b));
  return {ga ? mt::where(mt::logical_or(self_wins, tie), split, S(0.0)) : Tensor(),
          gb ? mt::where(self_wins, S(0.0), split) : Tensor()};
}

// b + c in a formula (pow's b - 1, zeta's x + 1). A Python number stays a number: add() of two wrapped
// numbers gives a default-dtype (float32) tensor, which rounded x ** 0.1's gradient to float32's -0.9 in
// float64, and zeta(0.001, q)'s to zeta(1.001f, q).
Tensor plus_keeping_number(const Tensor& b, int64_t c) {
  if (!b.impl()->is_wrapped_number()) return mt::add(b, S(c));
  Scalar v = mt::item(b);
  return v.is_complex()    ? wrapped_scalar(Scalar(v.to_complex() + static_cast<double>(c)))
         : v.is_floating() ? wrapped_scalar(Scalar(v.to_double() + static_cast<double>(c)))
                           : mt::add(b, S(c));
}

// pow's gradient for its base, b * a ** (b - 1), and none where b == 0 (PyTorch's pow_backward): a ** -1 at
// a == 0 would make 0 * inf = NaN, which the third derivative of x ** 2 at x == 0 meets (x ** 1, then x **
// 0). A number exponent of 0 gives zeros with no graph behind them, as PyTorch's Scalar overload does, so no
// higher derivative reaches a ** -1 either.
Tensor pow_self_grad(const Tensor& g, const Tensor& a, const Tensor& b) {
  if (b.impl()->is_wrapped_number()) {
    const Scalar v = mt::item(b);
    if (v.is_complex() ? v.to_complex() == std::complex<double>(0.0) : v.to_double() == 0.0)
      return zeros(g.sizes(), g.dtype(), g.device());
  }
  Tensor t = mt::mul(g, mt::conj(mt::mul(b, mt::pow(a, plus_keeping_number(b, -1)))));
  return b.impl()->is_wrapped_number() ? t : mt::where(mt::eq(b, S(0)), S(0), t);
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

// binary_cross_entropy's logs, clamped at -100 as in the forward
Tensor clamped_log(const Tensor& x) {
  return mt::clamp(mt::log(x), S(-100.0), std::nullopt);
}

// The indexing ops' gradients: the gradient written back (accumulated) into zeros of the input's shape.
Tensor index_backward(const Tensor& g, IntArrayRef sizes, const std::vector<std::optional<Tensor>>& indices) {
  Tensor z = zeros(sizes, g.dtype(), g.device());
  mt::index_put_(z, indices, g, true);
  return z;
}
Tensor index_select_backward(const Tensor& g, IntArrayRef sizes, int64_t d, const Tensor& index) {
  Tensor z = zeros(sizes, g.dtype(), g.device());
  if (sizes.empty()) return mt::reshape(g, sizes);
  std::vector<std::optional<Tensor>> ix(static_cast<size_t>(d) + 1);
  ix[d] = mt::reshape(index, {-1});
  mt::index_put_(z, ix, g, true);
  return z;
}
Tensor gather_backward(const Tensor& g, IntArrayRef sizes, int64_t dim, const Tensor& index) {
  Tensor z = zeros(sizes, g.dtype(), g.device());
  mt::scatter_add_(z, dim, index, g);
  return z;
}
// index_fill's value: the gradient summed over the filled slices, each once however often the index repeats
// it (PyTorch sums over the unique indices)
Tensor index_fill_value_grad(const Tensor& g, int64_t d, const Tensor& index) {
  Tensor filled =
      mt::index_fill(zeros(g.sizes(), ScalarType::Bool, g.device()), d, index, wrapped_scalar(Scalar(true)));
  return mt::sum(mt::where(filled, g, S(0)), {}, false);
}
// masked_scatter's source: the gradient at the mask's True positions, in order, then zeros for the source
// elements no True position took (PyTorch's masked_scatter_backward)
Tensor masked_scatter_backward(const Tensor& g, const Tensor& mask, IntArrayRef source_sizes) {
  Tensor taken = mt::masked_select(g, mask);
  const int64_t rest = compute_numel(source_sizes) - taken.numel();
  if (rest > 0) taken = mt::cat({taken, zeros({rest}, g.dtype(), g.device())}, 0);
  return mt::reshape(taken, source_sizes);
}

// clamp's gradients, PyTorch 2.15's. Python-number bounds (clamp_backward): the gradient only strictly
// inside, so none at a bound, at a NaN x or under a NaN bound. One tensor bound (clamp_min.Tensor /
// clamp_max.Tensor): maximum/minimum's rule (ties split, a NaN x or bound passes to both). Two tensor bounds
// (clamp_backward_min_max): x's gradient unless x < min or x > max (a NaN anywhere fails both), halved at a
// tie with one bound when min < max; min takes it where x < min <= max (half at a tie), max where x > max >=
// min or wherever min > max (the result is max there, NaN x included). Selects, so an infinite gradient
// outside stays out (inf * 0).
V clamp_grads(const Tensor& g, const Tensor& x, const Tensor& lo, const Tensor& hi, bool need_x, bool need_lo,
              bool need_hi) {
  V r(3);
  const bool lo_num = !lo.defined() || lo.impl()->is_wrapped_number();
  const bool hi_num = !hi.defined() || hi.impl()->is_wrapped_number();
  if (lo_num && hi_num) {
    if (!need_x) return r;
    Tensor in = lo.defined() ? mt::gt(x, lo) : Tensor();
    if (hi.defined()) in = in.defined() ? mt::logical_and(in, mt::lt(x, hi)) : mt::lt(x, hi);
    r[0] = mt::where(in, g, S(0.0));
    return r;
  }
  if (!lo.defined() || !hi.defined()) {
    const bool lower = lo.defined();
    const Tensor& b = lower ? lo : hi;
    Tensor split = mt::where(mt::eq(x, b), mt::mul(g, S(0.5)), g);
    if (need_x) r[0] = mt::where(lower ? mt::lt(x, b) : mt::gt(x, b), S(0.0), split);
    if (lower ? need_lo : need_hi)
      r[lower ? 1 : 2] = mt::where(lower ? mt::gt(x, b) : mt::lt(x, b), S(0.0), split);
    return r;
  }
  // the compares shared by the three gradients, each computed once
  Tensor ordered = mt::lt(lo, hi), half = mt::mul(g, S(0.5));
  Tensor below = mt::lt(x, lo), above = mt::gt(x, hi);
  Tensor tie_lo = mt::logical_and(mt::eq(x, lo), ordered), tie_hi = mt::logical_and(mt::eq(x, hi), ordered);
  if (need_x)
    r[0] =
        mt::where(mt::logical_or(below, above), S(0.0), mt::where(mt::logical_or(tie_lo, tie_hi), half, g));
  if (need_lo || need_hi) {
    Tensor le = mt::le(lo, hi);
    if (need_lo) r[1] = mt::where(mt::logical_and(below, le), g, mt::where(tie_lo, half, S(0.0)));
    if (need_hi)
      r[2] = mt::where(mt::logical_or(mt::gt(lo, hi), mt::logical_and(above, le)), g,
                       mt::where(tie_hi, half, S(0.0)));
  }
  return r;
}

// torch._ctc_loss's gradient: the kernel's (PyTorch's _ctc_loss_backward). It has no derivative: under
// create_graph the result carries PyTorch's NotImplemented node, whose backward raises as PyTorch's does.
Tensor ctc_loss_grad(const Tensor& g, const Tensor& log_probs, const Tensor& targets,
                     IntArrayRef input_lengths, IntArrayRef target_lengths, const Tensor& nll,
                     const Tensor& log_alpha, int64_t blank, bool zero_infinity) {
  Tensor gx = no_grad([&] {
    return mt::ctc_loss_backward(g, log_probs, targets, input_lengths, target_lengths, nll, log_alpha, blank,
                                 zero_infinity);
  });
  if (GradMode::is_enabled() && (g.requires_grad() || log_probs.requires_grad()))
    attach("NotImplemented",
           [](FnNode&, V&) -> V {
             MT_ERROR("derivative for aten::_ctc_loss_backward is not implemented");
             return {};
           },
           {&g, &log_probs}, {&gx});
  return gx;
}

// d/dx = g clamp(x - t, -delta, delta) (smooth_l1: clamp((x - t) / beta, -1, 1)), d/dt its negation: the CPU
// kernel, or ops when the gradient must record (create_graph) or elsewhere.
V huber_grads(const Tensor& g, const Tensor& x, const Tensor& t, HuberKind kind, double param,
              Reduction reduction, bool need_x, bool need_t) {
  Tensor gx = mt::huber_loss_backward(g, x, t, kind, param, reduction);
  Tensor gi, gt;
  if (need_x) gi = gx.dtype() == x.dtype() ? gx : mt::to(gx, x.dtype(), gx.device());
  if (need_t) {
    gt = mt::neg(gx);
    if (gt.dtype() != t.dtype()) gt = mt::to(gt, t.dtype(), gt.device());
  }
  return {gi, gt};
}

// d prod / d x_i = product of the others. Without zeros in the group that is prod / x_i; with one zero only
// the zero's position has a nonzero gradient (the product of the nonzeros); with two or more every gradient
// is zero. Never divides by zero (no NaN leaks into double backward).
Tensor prod_backward(const Tensor& g, const Tensor& x, const DimVector& dims, bool keepdim) {
  Tensor is0 = mt::eq(x, S(0));
  Tensor nz = mt::where(is0, S(1), x);
  Tensor pnz = mt::prod(nz, dims, true);
  Tensor zc = mt::sum(is0, dims, true);
  Tensor factor = mt::where(is0, mt::where(mt::eq(zc, S(1)), pnz, S(0)),
                            mt::where(mt::eq(zc, S(0)), mt::div(pnz, nz), S(0)));
  return mt::mul(unsqueeze_dims(g, dims, keepdim), mt::conj(factor));  // conj: complex convention
}

// logcumsumexp's gradient (PyTorch's logcumsumexp_backward): d y_k / d x_j = exp(x_j - y_k) for k >= j, so
// grad x_j = sum_{k >= j} g_k exp(x_j - y_k), taken apart by the sign of g as exp(x_j + the reversed
// logcumsumexp of log|g_k| - y_k) for each sign: no exp(x - y) alone (which overflows where y is far below
// x's scale). g = 0 enters as the dtype's lowest value, as PyTorch's.
Tensor logcumsumexp_backward(const Tensor& g, const Tensor& x, const Tensor& result, int64_t d) {
  if (g.dim() == 0 || g.numel() == 0) return g;
  const DimVector dims{d};
  auto rev = [&](const Tensor& t) { return mt::flip(mt::logcumsumexp(mt::flip(t, dims), d), dims); };
  const double lowest = g.dtype() == ScalarType::Double ? std::numeric_limits<double>::lowest()
                                                        : std::numeric_limits<float>::lowest();
  const Tensor log_abs = mt::log(mt::abs(g));
  const Tensor pos = mt::where(mt::gt(g, S(0)), log_abs, S(lowest));
  const Tensor neg = mt::where(mt::lt(g, S(0)), log_abs, S(lowest));
  return mt::sub(mt::exp(mt::add(rev(mt::sub(pos, result)), x)),
                 mt::exp(mt::add(rev(mt::sub(neg, result)), x)));
}

// cumprod's gradient with zeros (PyTorch's cumprod_backward): d out_j / d x_i for j >= i is the product of
// x up to j without x_i. Before a slice's first zero that is out_j / x_i (the reversed cumulative sum of
// g * out, over x); at the first zero it is the cumprod of x with that zero set to 1; after it every product
// holds that zero, so 0. Never divides by zero; conj: complex convention.
Tensor cumprod_backward(const Tensor& g, const Tensor& x, const Tensor& result, int64_t d) {
  auto rev_cumsum = [d](const Tensor& t) {
    return t.dim() == 0 ? t : mt::add(mt::sub(mt::sum(t, {d}, true), mt::cumsum(t, d)), t);
  };
  Tensor is0 = mt::eq(x, S(0));
  if (x.dim() == 0 || !item(mt::any(is0)).to_bool())
    return mt::div(rev_cumsum(mt::mul(g, mt::conj(result))), mt::conj(x));
  if (GradMode::is_enabled()) {
    // create_graph: the masks below are exact values but no derivative (past the first zero the gradient is 0
    // only because that zero is), so PyTorch's O(n^2) form: for each k, the products without x_k, prod_{m<k}
    // x_m times the cumprod from k + 1, against g from k on
    const Tensor xc = mt::conj(x);
    const int64_t n = x.sizes()[d];
    std::vector<Tensor> cols;
    for (int64_t k = 0; k < n; ++k) {
      Tensor before = k ? mt::prod(mt::narrow(xc, d, 0, k), {d}, true)
                        : mt::add(zeros_like(mt::narrow(xc, d, 0, 1)), S(1));
      Tensor omitted = before;
      if (k + 1 < n)
        omitted = mt::cat({before, mt::mul(before, mt::cumprod(mt::narrow(xc, d, k + 1, n - k - 1), d))}, d);
      cols.push_back(mt::sum(mt::mul(mt::narrow(g, d, k, n - k), omitted), {d}, true));
    }
    return mt::cat(cols, d);
  }
  Tensor seen = mt::cumsum(is0, d);  // zeros up to and including each position
  Tensor first = mt::logical_and(is0, mt::eq(seen, S(1)));
  Tensor before = mt::div(rev_cumsum(mt::mul(g, mt::conj(result))), mt::conj(mt::where(is0, S(1), x)));
  Tensor at = rev_cumsum(mt::mul(g, mt::conj(mt::cumprod(mt::where(first, S(1), x), d))));
  return mt::where(mt::eq(seen, S(0)), before, mt::where(first, at, S(0)));
}

// the p-norm's gradient: d||x||_p/dx = x |x|^(p-2) / ||x||_p^(p-1), zero where the norm is zero; sign(x)
// for p = 1, shared evenly among the extremes for p = inf
Tensor norm_backward(const Tensor& grad, const Tensor& x, const Tensor& result, double p,
                     const DimVector& dims, bool keepdim) {
  Tensor r = unsqueeze_dims(result, dims, keepdim);
  Tensor g = unsqueeze_dims(grad, dims, keepdim);
  if (p == 0) return zeros_like(x);
  if (p == 1) return mt::mul(g, mt::sign(x));
  if (std::isinf(p)) {
    Tensor m = fmask(mt::eq(mt::abs(x), r), g);
    Tensor cnt = mt::sum(m, dims, true);
    return mt::div(mt::mul(mt::mul(g, mt::sign(x)), m), cnt);
  }
  Tensor num = p == 2 ? x : mt::mul(x, mt::pow(mt::abs(x), S(p - 2)));
  Tensor den = p == 2 ? r : mt::pow(r, S(p - 1));
  Tensor q = mt::div(mt::mul(g, num), den);
  return mt::where(mt::eq(r, S(0)), S(0), q);
}

// scatter_'s gradients: self's passes where scatter_ added, and is cut at the positions it assigned (they no
// longer depend on self); src's gathers at the index
V scatter_grads(const Tensor& g, int64_t dim, const Tensor& index, const std::string& reduce, bool need_self,
                bool need_src) {
  MT_CHECK_NOT_IMPLEMENTED(reduce.empty() || reduce == "add", "the derivative for 'scatter_' with reduce='",
                           reduce, "' is not implemented.");
  V res(2);
  if (need_self) {
    if (reduce == "add") {
      res[0] = g;
    } else {
      res[0] = mt::clone(g);
      mt::scatter_(res[0], dim, index, mt::zeros(index.sizes(), g.dtype(), g.device()));
    }
  }
  if (need_src) res[1] = mt::gather(g, dim, index);
  return res;
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
V empty_norm_grads(const Tensor& x, IntArrayRef param, const Tensor& g, bool need_x, bool need_w,
                   bool need_b) {
  V res(3);
  if (need_x) res[0] = zeros_like(x);
  if (need_w) res[1] = zeros(param, g.dtype(), g.device());
  if (need_b) res[2] = zeros(param, g.dtype(), g.device());
  return res;
}

DimVector dims_but_1(int64_t nd) {
  DimVector d{0};
  for (int64_t i = 2; i < nd; ++i) d.push_back(i);
  return d;
}

// max/min along one dim: the gradient goes to the saved index of each extremum.
Tensor value_selecting_backward(const Tensor& grad, const Tensor& indices, int64_t dim, bool keepdim,
                                IntArrayRef sizes) {
  Tensor idx = indices;
  Tensor g = grad;
  if (sizes.empty()) return mt::reshape(g, sizes);
  if (!keepdim) {
    g = mt::unsqueeze(g, dim);
    idx = mt::unsqueeze(idx, dim);
  }
  Tensor z = zeros(sizes, g.dtype(), g.device());
  mt::scatter_(z, dim, idx, g);
  return z;
}

// The norms save their input and the statistics the forward computed (mean, rstd); under create_graph the
// statistics are recomputed with recorded ops, so double backward sees their dependence on the input. The
// three norms' formulas look alike (same saved tensors, same fused-or-composite split) but normalize over
// different dims, and batch norm's eval path treats the statistics as constants, so each keeps its own.
V layer_norm_grads(const Tensor& g, const Tensor& x, const Tensor& w, const Tensor& mean, const Tensor& rstd,
                   IntArrayRef ns, double eps, bool need_x, bool need_w, bool need_b) {
  int64_t N = compute_numel(ns);
  int64_t M = N == 0 ? 0 : x.numel() / N;
  if (M == 0 || N == 0) return empty_norm_grads(x, ns, g, need_x, need_w, need_b);
  V res(3);
  if (!GradMode::is_enabled()) {  // not differentiated again: one fused pass
    auto [dx, dw, db] =
        mt::native_layer_norm_backward(g, x, mean, rstd, w, M, N, need_x, need_w && w.defined(), need_b);
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
  if (need_x) {
    Tensor gw = w.defined() ? mt::mul(g2, mt::reshape(w, {1, N})) : g2;
    res[0] = mt::reshape(norm_input_grad(gw, xhat, rb, {1}), x.sizes());
  }
  if (need_w) res[1] = mt::reshape(mt::sum(mt::mul(g2, xhat), {0}, false), ns);
  if (need_b) res[2] = mt::reshape(mt::sum(g2, {0}, false), ns);
  return res;
}

// group_norm: as layer_norm; only the statistics' grouping differs
V group_norm_grads(const Tensor& g, const Tensor& x, const Tensor& w, const Tensor& mean, const Tensor& rstd,
                   int64_t G, double eps, bool need_x, bool need_w, bool need_b) {
  int64_t N = x.sizes()[0], C = x.sizes()[1];
  DimVector dims = dims_but_1(x.dim());
  if (x.numel() == 0) return empty_norm_grads(x, DimVector{C}, g, need_x, need_w, need_b);
  V res(3);
  int64_t D = x.numel() / (N * G);
  const bool plain = x.dtype() == ScalarType::Float || x.dtype() == ScalarType::Double;
  if (!GradMode::is_enabled() && plain) {
    // not differentiated again: the input's gradient is layer_norm's over the (n, group) rows, of g * w; the
    // weight's and bias's from per-(n, c) sums of g * x and g, as PyTorch's kernel (dw_c = sum_n rstd (sum g
    // x - mean sum g)), not from a materialized xhat (ten passes -> four)
    if (need_x) {
      DimVector wshape(static_cast<size_t>(x.dim()), 1);
      wshape[1] = C;
      Tensor gw = w.defined() ? mt::mul(g, mt::reshape(w, wshape)) : g;
      auto [dx, dw0, db0] =
          mt::native_layer_norm_backward(gw, x, mean, rstd, Tensor(), N * G, D, true, false, false);
      res[0] = mt::reshape(dx, x.sizes());
    }
    if (need_w || need_b) {
      const int64_t S = D / (C / G);
      Tensor g3 = mt::reshape(g, {N, C, S});
      Tensor sg = mt::reshape(mt::sum(g3, {2}, false), {N, G, C / G});
      if (need_w) {
        Tensor sgx = mt::reshape(mt::sum(mt::mul(g3, mt::reshape(x, {N, C, S})), {2}, false), {N, G, C / G});
        Tensor m = mt::reshape(mean, {N, G, 1}), r = mt::reshape(rstd, {N, G, 1});
        res[1] = mt::reshape(mt::sum(mt::mul(mt::sub(sgx, mt::mul(sg, m)), r), {0}, false), {C});
      }
      if (need_b) res[2] = mt::reshape(mt::sum(sg, {0}, false), {C});
    }
    return res;
  }
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
  if (need_x) {
    Tensor gw = w.defined() ? mt::mul(g, mt::reshape(w, bshape)) : g;
    res[0] = mt::reshape(norm_input_grad(mt::reshape(gw, {N, G, D}), xhat3, rb, {2}), x.sizes());
  }
  if (need_w) res[1] = mt::sum(mt::mul(g, mt::reshape(xhat3, x.sizes())), dims, false);
  if (need_b) res[2] = mt::sum(g, dims, false);
  return res;
}

V batch_norm_grads(const Tensor& g, const Tensor& x, const Tensor& w, const Tensor& mean, const Tensor& rstd,
                   bool training, double eps, bool need_x, bool need_w, bool need_b) {
  int64_t C = x.sizes()[1];
  DimVector dims = dims_but_1(x.dim());
  if (x.numel() == 0) return empty_norm_grads(x, DimVector{C}, g, need_x, need_w, need_b);
  V res(3);
  if (!GradMode::is_enabled()) {  // not differentiated again: fused passes
    auto [dx, dw, db] =
        mt::native_batch_norm_backward(g, x, mean, rstd, w, training, need_x, need_w && w.defined(), need_b);
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
  if (need_x) {
    Tensor gw = w.defined() ? mt::mul(g, mt::reshape(w, bshape)) : g;
    // eval: the statistics are constants, so only the scale reaches the input
    res[0] = training ? norm_input_grad(gw, xhat, rb, dims) : mt::mul(gw, rb);
  }
  if (need_w) res[1] = mt::reshape(mt::sum(mt::mul(g, xhat), dims, false), w.sizes());
  if (need_b) res[2] = mt::sum(g, dims, false);
  return res;
}

// The bias gradient of a 4-D NCHW conv: the output gradient summed over batch and space.
Tensor conv_bias_grad(const Tensor& g) {
  return mt::sum(g, {0, 2, 3}, false);
}

}  // namespace

void check_not_differentiable(const char* fn, const char* arg, const std::optional<Tensor>& t) {
  MT_CHECK(!needs_grad(t), "The function '", fn, "' is not differentiable with respect to argument '", arg,
           "'. This input cannot have requires_grad True.");
}

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
V sdpa_grads(const Tensor& g, const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& mask,
             const Tensor& lse, const Tensor& result, bool is_causal, double scale, bool need_q, bool need_k,
             bool need_v) {
  if (!GradMode::is_enabled() && mt::has_fused_sdpa_backward(q)) {  // not differentiated again
    auto [dq, dk, dv] = mt::sdpa_backward(g, q, k, v, result, lse, mask, is_causal, scale);
    return {dq, dk, dv};
  }
  int64_t L = q.size(-2), S_ = k.size(-2);
  Tensor ninf = mt::scalar_tensor(Scalar(-INFINITY), q.dtype(), q.device());
  Tensor zero = mt::scalar_tensor(Scalar(0.0), q.dtype(), q.device());
  Tensor s = mt::mul(mt::matmul(q, mt::transpose(k, -2, -1)), S(scale));
  if (is_causal) {
    Tensor i = mt::unsqueeze(
        mt::arange(Scalar(int64_t(0)), Scalar(L), Scalar(int64_t(1)), ScalarType::Long, q.device()), 1);
    Tensor j = mt::arange(Scalar(int64_t(0)), Scalar(S_), Scalar(int64_t(1)), ScalarType::Long, q.device());
    s = mt::masked_fill(s, mt::gt(j, i), ninf);
  }
  if (mask.defined()) s = mt::add(s, mask, Scalar(1.0));
  Tensor dead =
      mt::unsqueeze(mt::eq(lse, mt::scalar_tensor(Scalar(-INFINITY), lse.dtype(), lse.device())), -1);
  Tensor p = mt::where(dead, zero, mt::softmax(mt::where(dead, zero, s), -1));
  V res(3);
  if (need_v) res[2] = mt::matmul(mt::transpose(p, -2, -1), g);
  if (need_q || need_k) {
    Tensor dp = mt::matmul(g, mt::transpose(v, -2, -1));
    Tensor ds = mt::mul(mt::mul(p, mt::sub(dp, mt::sum(mt::mul(p, dp), {-1}, true))), S(scale));
    if (need_q) res[0] = mt::matmul(ds, k);
    if (need_k) res[1] = mt::matmul(mt::transpose(ds, -2, -1), q);
  }
  return res;
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

// round.decimals: composed of the table's ops (ops/elementwise.h's round_decimals), recorded as PyTorch's one
// node, whose gradient is round's, zero
Tensor round_decimals(const Tensor& self, int64_t decimals) {
  if (!needs_grad(self)) return mt::round_decimals(self, decimals);
  return twin(
      "RoundBackward1", [&] { return mt::round_decimals(self, decimals); }, {&self}, {},
      [](FnNode&, V& g) -> V { return {zeros_like(g[0])}; });
}

Tensor binary(BinaryOp op, const Tensor& self, const Tensor& other) {
  BinaryFormula f = binary_formula(op);
  if (!f.grad) {
    // no formula (heaviside's floating results; the comparisons' are bool, never recorded): PyTorch's
    // NotImplemented node, which saves nothing and raises at backward
    return twin(
        "NotImplemented", [&] { return mt::binary(op, self, other); }, {&self, &other}, {},
        [op](FnNode&, V&) -> V {
          const char* name = "?";  // the schema row's name, less a private row's underscore
          switch (op) {
#define MT_NAME(n, F, k) \
  case BinaryOp::n:      \
    name = #n;           \
    break;
            MT_BINARY_OPS(MT_NAME)
#undef MT_NAME
          }
          MT_ERROR("derivative for aten::", name + (name[0] == '_' ? 1 : 0), " is not implemented");
          return {};
        });
  }
  return twin(
      binary_name(op), [&] { return mt::binary(op, self, other); }, {&self, &other},
      {{"self", self, f.self_for}, {"other", other, f.other_for}},
      [grad = f.grad](FnNode& n, V& gs) -> V {
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

// ---- index (ops/index.h)

// index_put_'s gradients: self's passes where values were added, and is cut at the positions written (they
// no longer depend on self); values' is the gradient at the indices
V index_put_grads(const Tensor& g, const std::vector<std::optional<Tensor>>& indices, bool accumulate,
                  bool need_self, bool need_values) {
  V res(2);
  if (need_self) {
    if (accumulate) {
      res[0] = g;
    } else {
      res[0] = mt::clone(g);
      mt::index_put_(res[0], indices, S(0), false);
    }
  }
  if (need_values) res[1] = mt::index(g, indices);
  return res;
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
V class_loss_grads(const Tensor& g, const Tensor& x, const Tensor& t, const Tensor& w, const Tensor& stats,
                   const Tensor& tw, const ClassLossOptions& opt, bool need_x, bool need_t) {
  // create_graph: the gradient itself must record, so it is built from ops
  if (GradMode::is_enabled() && (g.requires_grad() || x.requires_grad() || t.requires_grad()))
    return class_loss_grad_composite(g, x, t, w, tw, opt, need_x, need_t);
  auto [gi, gt] = mt::class_loss_backward(g, x, t, w, stats, tw, opt, need_x, need_t);
  return {gi, gt};
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

static const char* upsample_aa_node_name(const UpsampleAaArgs& a, bool backward) {
  static const char* names[2][3] = {
      {"UpsampleBilinear2DAaBackward0", "UpsampleBicubic2DAaBackward0", "UpsampleLanczos2DAaBackward0"},
      {"UpsampleBilinear2DAaBackwardBackward0", "UpsampleBicubic2DAaBackwardBackward0",
       "UpsampleLanczos2DAaBackwardBackward0"}};
  return names[backward ? 1 : 0][static_cast<int>(a.filter)];
}

// ---- grid_sample (ops/grid_sample.h): the fused kernel gives both gradients in one pass; when they will be
// differentiated again (create_graph) the composite's recorded ops give them instead.
static V grid_sampler_grads(const Tensor& g, const Tensor& input, const Tensor& grid, int64_t mode,
                            int64_t padding, bool align_corners, bool need_input, bool need_grid) {
  GridSampleArgs a;
  a.mode = static_cast<int>(mode);
  a.padding = static_cast<int>(padding);
  a.align_corners = align_corners;
  if (GradMode::is_enabled() && (g.requires_grad() || input.requires_grad() || grid.requires_grad())) {
    auto [gi, gg] = grid_sampler_graph_grads(g, input, grid, a, need_input, need_grid);
    return {gi, gg};
  }
  auto [gi, gg] = mt::grid_sampler_backward(g, input, grid, a, need_input, need_grid);
  return {gi, gg};
}

// ---- reduce (ops/reduce.h)

// ---- shape (ops/shape.h); the view ops are in views.cpp

// cat's split of the gradient: each input's length along the (wrapped) dim, -1 for a 1-D empty input, which
// PyTorch's legacy rule skips
std::pair<std::vector<int64_t>, int64_t> cat_split(const std::vector<Tensor>& tensors, int64_t dim) {
  std::vector<int64_t> lens;
  int64_t d = 0;
  for (auto& t : tensors) {
    bool skip = t.dim() == 1 && t.numel() == 0;
    lens.push_back(skip ? -1 : 0);
    if (!skip) d = wrap_dim(dim, t.dim());
  }
  for (size_t i = 0; i < tensors.size(); ++i)
    if (lens[i] == 0) lens[i] = tensors[i].sizes()[d];
  return {lens, d};
}

V cat_grads(const Tensor& g, const std::pair<std::vector<int64_t>, int64_t>& split,
            const std::vector<bool>& need) {
  const auto& [lens, d] = split;
  V r(lens.size());
  int64_t off = 0;
  for (size_t i = 0; i < lens.size(); ++i) {
    if (lens[i] < 0) continue;
    if (need[i]) r[i] = mt::narrow(g, d, off, lens[i]);
    off += lens[i];
  }
  return r;
}

// ---- the twins whose derivatives csrc/ops/ops.schema holds (`grad:`, `grad_<input>:`, `grads:`, in-place
// `inplace_of:`), written by the build from those rows: conv, linalg, the triangle ops and most others. They
// come last so every helper above is in their scope.
#include "generated/twin_grads.inc"

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
