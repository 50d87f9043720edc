// The second-order terms of the common nonlinear ops in C++ (the dual backward pass, engine_dual.h): each is
// the derivative of the op's backward formula (ops.schema's grad) along the tangents of what it reads, so the
// pass needs no Python re-run of the op's rule for these nodes. Which ops have one is ops.schema's
// `dual_term:` (a unary row's expression, or `fn <function>` naming a function below), generated into
// dual_terms.inc; python/minitorch/func/_forward_ad.py's _cxx_term says which calls qualify, every other node
// keeps the re-run.
#include <cmath>
#include <string>
#include <unordered_map>

#include "autograd/engine_dual.h"
#include "ops/factory.h"
#include "ops/linalg.h"
#include "ops/ops.h"
#include "ops/reduce.h"
#include "ops/shape.h"

namespace mt::autograd {

namespace {

using mt::add;
using mt::div;
using mt::mul;
using mt::neg;
using mt::sub;
using Terms = variable_list;

Tensor S(double v) {
  return wrapped_scalar(Scalar(v));
}
// Tensor.sum(dim, keepdim=True)
Tensor sum_dim(const Tensor& x, int64_t dim) {
  int64_t d[1] = {dim};
  return mt::sum(x, IntArrayRef(d, 1), true);
}

// Each term function: d's inputs x[i] (undefined: not a tensor), their tangents t[i] (undefined: none), the
// op's result r and its tangent tr, at the result's incoming gradient g (in the result's dtype). Returns one
// term per input (undefined: zero). Notation: the backward formula B_i(g; x) of input i; the term is
// d/ds B_i(g; x + s t) at s = 0.

// The second derivatives the unary rows' terms (ops.schema's dual_term:) read.
// silu x s(x): f'' = s (1 - s) (2 + x (1 - 2 s))
Tensor silu_second(const Tensor& x) {
  Tensor s = mt::sigmoid(x);
  return mul(mul(s, sub(S(1.0), s)), add(mul(x, sub(S(1.0), mul(s, S(2.0)))), S(2.0)));
}
// gelu x Phi(x) (approximate='none'): f'' = phi(x) (2 - x^2)
Tensor gelu_second(const Tensor& x) {
  Tensor x2 = mul(x, x);
  Tensor pdf = mul(mt::exp(mul(x2, S(-0.5))), S(1.0 / std::sqrt(2.0 * M_PI)));
  return mul(pdf, sub(S(2.0), x2));
}
// x^2
Tensor sq(const Tensor& x) {
  return mul(x, x);
}

// The `fn` terms of ops.schema's rows, each over the layout func/_forward_ad.py's _LAYOUTS gives its op.

// pow(x, e) with a number e: B = g e x^(e-1), the term g t e (e-1) x^(e-2) (none for e 0 or 1)
Terms pow_term(const DualTerm& d, const Tensor& g) {
  const double e = d.params[0];
  if (e == 0.0 || e == 1.0) return {Tensor()};
  return {mul(mul(mul(g, d.t[0]), S(e)), mul(mt::pow(d.x[0], S(e - 2.0)), S(e - 1.0)))};
}
// mul: B_a = g b, B_b = g a
Terms mul_term(const DualTerm& d, const Tensor& g) {
  return {d.t[1].defined() ? mul(g, d.t[1]) : Tensor(), d.t[0].defined() ? mul(g, d.t[0]) : Tensor()};
}
// div a / b (a a tensor or the number params[0]): B_a = g / b, B_b = -g a / b^2 = -g r / b. Terms:
// a: -g tb / b^2; b: -g ta / b^2 + 2 g r tb / b^2
Terms div_term(const DualTerm& d, const Tensor& g) {
  const Tensor &b = d.x[1], &ta = d.t[0], &tb = d.t[1];
  Tensor b2 = mul(b, b);
  Terms out(2);
  if (tb.defined()) out[0] = neg(div(mul(g, tb), b2));
  Tensor num;
  if (tb.defined()) num = mul(mul(g, tb), mul(d.r, S(2.0)));
  if (ta.defined()) num = num.defined() ? sub(num, mul(g, ta)) : neg(mul(g, ta));
  if (num.defined()) out[1] = div(num, b2);
  return out;
}
// mm a b (matmul, addmm's product times params[0]): bilinear, B_a = g b^T and B_b = a^T g, so each term is
// the formula with the other operand's tangent
Terms mm_term(const DualTerm& d, const Tensor& g) {
  Terms out = {d.t[1].defined() ? mt::mm(g, mt::t(d.t[1])) : Tensor(),
               d.t[0].defined() ? mt::mm(mt::t(d.t[0]), g) : Tensor()};
  if (!d.params.empty() && d.params[0] != 1.0)
    for (auto& o : out)
      if (o.defined()) o = mul(o, S(d.params[0]));
  return out;
}
// F.linear x W^T (x of 2 or more dims; the bias is linear): B_x = g W, B_W = g^T x over the flattened rows
Terms linear_term(const DualTerm& d, const Tensor& g) {
  const Tensor &tx = d.t[0], &tw = d.t[1];
  Terms out(2);
  if (tw.defined()) out[0] = mt::matmul(g, tw);
  if (tx.defined()) {
    const int64_t n_out = g.sizes().back(), n_in = tx.sizes().back();
    int64_t gs[2] = {-1, n_out}, xs[2] = {-1, n_in};
    out[1] = mt::mm(mt::t(mt::reshape(g, IntArrayRef(gs, 2))), mt::reshape(tx, IntArrayRef(xs, 2)));
  }
  return out;
}
// softmax along params[0]: B = r (g - sum(g r)), the term tr (g - sum(g r)) - r sum(g tr)
Terms softmax_term(const DualTerm& d, const Tensor& g) {
  const int64_t dim = static_cast<int64_t>(d.params[0]);
  return {sub(mul(d.tr, sub(g, sum_dim(mul(g, d.r), dim))), mul(d.r, sum_dim(mul(g, d.tr), dim)))};
}
// log_softmax: B = g - exp(r) sum(g), the term -exp(r) tr sum(g)
Terms log_softmax_term(const DualTerm& d, const Tensor& g) {
  const int64_t dim = static_cast<int64_t>(d.params[0]);
  return {neg(mul(mul(mt::exp(d.r), d.tr), sum_dim(g, dim)))};
}
// mse_loss(x, y) (x and y of one shape) with the scale params[0] (2 / numel for 'mean', else 2): B_x = c g (x
// - y) = -B_y, the terms c g (tx - ty) and its negation
Terms mse_loss_term(const DualTerm& d, const Tensor& g) {
  const Tensor &tx = d.t[0], &ty = d.t[1];
  Tensor dt = tx.defined() ? (ty.defined() ? sub(tx, ty) : tx) : neg(ty);
  Tensor tx_term = mul(mul(g, dt), S(d.params[0]));
  return {tx_term, neg(tx_term)};
}

// The unary rows' expressions as term functions, and MT_DUAL_TERMS: every op whose term is C++
#include "generated/dual_terms.inc"

// each op's function and whether it reads the result's tangent
struct TermEntry {
  DualTermFn fn;
  bool reads_tr;
};
const std::unordered_map<std::string, TermEntry>& term_table() {
  static const auto* table = [] {
    auto* t = new std::unordered_map<std::string, TermEntry>();
#define MT_DUAL_ENTRY(op, fn, reads_tr) t->emplace(op, TermEntry{fn, reads_tr});
    MT_DUAL_TERMS(MT_DUAL_ENTRY)
#undef MT_DUAL_ENTRY
    return t;
  }();
  return *table;
}

}  // namespace

std::vector<std::pair<std::string, bool>> dual_term_ops() {
  std::vector<std::pair<std::string, bool>> out;
  for (const auto& [op, entry] : term_table()) out.emplace_back(op, entry.reads_tr);
  return out;
}

std::shared_ptr<DualTerm> make_dual_term(const std::string& op, const variable_list& x,
                                         const variable_list& t, const Tensor& r, const Tensor& tr,
                                         std::vector<double> params, int64_t level, uint32_t output_nr) {
  auto it = term_table().find(op);
  if (it == term_table().end() || !r.defined() || x.size() != t.size()) return nullptr;
  if (it->second.reads_tr && !tr.defined()) return nullptr;
  bool any_t = false;  // the unary formulas read t[0]; without a tangent there is no term
  for (const Tensor& u : t) any_t = any_t || u.defined();
  if (!any_t) return nullptr;
  // real floating values of one dtype throughout (the formulas above leave out complex conjugation and the
  // mixed-dtype casts): anything else keeps the Python re-run
  const ScalarType dt = r.dtype();
  if (!is_floating(dt) || (tr.defined() && tr.dtype() != dt)) return nullptr;
  for (size_t i = 0; i < x.size(); ++i)
    if ((x[i].defined() && x[i].dtype() != dt) || (t[i].defined() && t[i].dtype() != dt)) return nullptr;
  auto d = std::make_shared<DualTerm>();
  d->fn = it->second.fn;
  d->level = level;
  d->output_nr = output_nr;
  d->params = std::move(params);
  // held without history: the record must not keep the node alive through its result (the table holds nodes
  // weakly), and the terms are taken only when the pass does not record (create_graph keeps the re-run)
  for (size_t i = 0; i < x.size(); ++i) {
    d->edges.push_back(x[i].defined() && x[i].requires_grad() ? gradient_edge(x[i]) : Edge());
    d->x.push_back(x[i].defined() ? detach(x[i]) : Tensor());
    d->t.push_back(t[i].defined() ? detach(t[i]) : Tensor());
  }
  d->r = detach(r);
  d->tr = tr.defined() ? detach(tr) : Tensor();
  return d;
}

std::vector<std::pair<Edge, Tensor>> dual_terms(const DualTerm& d, const variable_list& grads) {
  if (d.output_nr >= grads.size() || !grads[d.output_nr].defined()) return {};
  Tensor g = grads[d.output_nr];
  if (g.dtype() != d.r.dtype()) g = mt::to(g, d.r.dtype(), g.device());
  bool any = false;
  for (const Edge& e : d.edges) any = any || e.valid();
  if (!any) return {};
  Terms terms = d.fn(d, g);
  std::vector<std::pair<Edge, Tensor>> out;
  for (size_t i = 0; i < terms.size() && i < d.edges.size(); ++i)
    if (terms[i].defined() && d.edges[i].valid())  // (a term may have the broadcast shape, as mul's)
      out.push_back({d.edges[i], sum_to(terms[i], d.x[i].sizes())});
  return out;
}

}  // namespace mt::autograd
