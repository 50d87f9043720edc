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
// gelu x Phi(u) with approximate='tanh', u = k (x + c x^3), T = tanh(u): f'' = (1 - T^2) (u' + x (u'' - 2 T
// u'^2) / 2)
Tensor gelu_tanh_second(const Tensor& x) {
  const double k = std::sqrt(2.0 / M_PI), c = 0.044715;
  Tensor x2 = mul(x, x);
  Tensor th = mt::tanh(mul(mul(x, add(mul(x2, S(c)), S(1.0))), S(k)));
  Tensor u1 = mul(add(mul(x2, S(3.0 * c)), S(1.0)), S(k));                        // u'
  Tensor inner = sub(mul(x, S(6.0 * k * c)), mul(mul(th, mul(u1, u1)), S(2.0)));  // u'' - 2 T u'^2
  return mul(sub(S(1.0), mul(th, th)), add(u1, mul(mul(x, inner), S(0.5))));
}
// mish x T, T = tanh(softplus(x)) (its threshold 20, as mish_grad): f'' = (1 - T^2) s (2 + x (1 - s - 2 T s))
Tensor mish_second(const Tensor& x) {
  Tensor th = mt::tanh(mt::softplus(x, 1.0, 20.0));
  Tensor s = mt::sigmoid(x);
  Tensor inner = sub(sub(S(1.0), s), mul(mul(th, s), S(2.0)));
  return mul(mul(sub(S(1.0), mul(th, th)), s), add(mul(x, inner), S(2.0)));
}
// The Bessel functions' second derivatives, each the derivative of derivatives.cpp's formula (where it takes
// a value at 0 the derivative there is 0, as the re-run's of the rule's `where`). I1' = I0 - I1/x (1/2 at 0)
Tensor i1_prime(const Tensor& x) {
  return mt::where(mt::eq(x, S(0.0)), S(0.5), sub(mt::i0(x), div(mt::_special_i1(x), x)));
}
// I1'' = I1 - I1'/x + I1/x^2 (r = I1(x))
Tensor i1_second(const Tensor& x, const Tensor& r) {
  return mt::where(mt::eq(x, S(0.0)), S(0.0), add(sub(r, div(i1_prime(x), x)), div(r, sq(x))));
}
// sinc'' = (-pi sin(pi x) - 2 sinc'(x)) / x, sinc' = (pi x cos(pi x) - sin(pi x)) / (pi x^2); 0 where the
// backward's `where` takes its value (pi x^2 == 0)
Tensor sinc_second(const Tensor& x) {
  const Tensor px = mul(x, S(M_PI)), pxx = mul(sq(x), S(M_PI));
  const Tensor d1 = div(sub(mul(px, mt::cos(px)), mt::sin(px)), pxx);
  const Tensor d2 = div(sub(mul(mt::sin(px), S(-M_PI)), mul(d1, S(2.0))), x);
  return mt::where(mt::eq(pxx, S(0.0)), S(0.0), d2);
}
// i1e' = i0e - i1e (sign + 1/x) (1/2 at 0)
Tensor i1e_prime(const Tensor& x, const Tensor& i1e) {
  Tensor d = sub(mt::_special_i0e(x), mul(i1e, add(mt::sign(x), mt::reciprocal(x))));
  return mt::where(mt::eq(x, S(0.0)), S(0.5), d);
}
// i0e' = i1e - sign i0e, so i0e'' = i1e' - sign i0e' (r = i0e(x))
Tensor i0e_second(const Tensor& x, const Tensor& r) {
  Tensor i1e = mt::_special_i1e(x), sg = mt::sign(x);
  return sub(i1e_prime(x, i1e), mul(sg, sub(i1e, mul(sg, r))));
}
// i1e'' = i0e' - i1e' (sign + 1/x) + i1e / x^2 (0 at 0; r = i1e(x))
Tensor i1e_second(const Tensor& x, const Tensor& r) {
  Tensor sg = mt::sign(x);
  Tensor i0e_prime = sub(r, mul(sg, mt::_special_i0e(x)));
  Tensor d = add(sub(i0e_prime, mul(i1e_prime(x, r), add(sg, mt::reciprocal(x)))), div(r, sq(x)));
  return mt::where(mt::eq(x, S(0.0)), S(0.0), d);
}
// J1' = J0 - J1/x (1/2 at 0); J1'' = -J1 - J1'/x + J1/x^2 (0 at 0; r = J1(x))
Tensor j1_prime(const Tensor& x) {
  return mt::where(mt::eq(x, S(0.0)), S(0.5),
                   sub(mt::_special_bessel_j0(x), div(mt::_special_bessel_j1(x), x)));
}
Tensor j1_second(const Tensor& x, const Tensor& r) {
  return mt::where(mt::eq(x, S(0.0)), S(0.0), add(sub(mt::neg(r), div(j1_prime(x), x)), div(r, sq(x))));
}
// Y1' = Y0 - Y1/x (inf at 0); Y1'' = -Y1 - Y1'/x + Y1/x^2 (the rule's -Y0 at 0 differentiates to Y1; r =
// Y1(x))
Tensor y1_prime(const Tensor& x) {
  return mt::where(mt::eq(x, S(0.0)), S(HUGE_VAL),
                   sub(mt::_special_bessel_y0(x), div(mt::_special_bessel_y1(x), x)));
}
Tensor y1_second(const Tensor& x, const Tensor& r) {
  return mt::where(mt::eq(x, S(0.0)), r, add(sub(mt::neg(r), div(y1_prime(x), x)), div(r, sq(x))));
}
// K1' = -(K0 + K1/x); K1'' = K1 - K1'/x + K1/x^2 (r = K1(x))
Tensor k1_second(const Tensor& x, const Tensor& r) {
  Tensor k1_prime = mt::neg(add(mt::_special_modified_bessel_k0(x), div(r, x)));
  return add(sub(r, div(k1_prime, x)), div(r, sq(x)));
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

// gelu (params[0]: 1 for approximate='tanh'): f'' t at g
Terms gelu_term(const DualTerm& d, const Tensor& g) {
  return {mul(mul(g, d.t[0]), d.params[0] != 0.0 ? gelu_tanh_second(d.x[0]) : gelu_second(d.x[0]))};
}
// The binary rows' terms from their Hessians (an undefined tangent: zero): term_a = g (f_aa ta + f_ab tb),
// term_b = g (f_ab ta + f_bb tb)
Terms hessian_terms(const Tensor& g, const Tensor& ta, const Tensor& tb, const Tensor& faa, const Tensor& fab,
                    const Tensor& fbb) {
  auto part = [&](const Tensor& h1, const Tensor& h2) {
    Tensor s;
    if (ta.defined()) s = mul(h1, ta);
    if (tb.defined()) s = s.defined() ? add(s, mul(h2, tb)) : mul(h2, tb);
    return mul(g, s);
  };
  return {part(faa, fab), part(fab, fbb)};
}
// atan2(a, b), r2 = a^2 + b^2: f_aa = -2ab / r2^2 = -f_bb, f_ab = (a^2 - b^2) / r2^2
Terms atan2_term(const DualTerm& d, const Tensor& g) {
  const Tensor &a = d.x[0], &b = d.x[1];
  Tensor q = mt::reciprocal(sq(add(sq(a), sq(b))));
  Tensor fbb = mul(mul(mul(a, b), q), S(2.0));
  return hessian_terms(g, d.t[0], d.t[1], mt::neg(fbb), mul(sub(sq(a), sq(b)), q), fbb);
}
// hypot(a, b) = h: f_aa = b^2 / h^3, f_ab = -ab / h^3, f_bb = a^2 / h^3
Terms hypot_term(const DualTerm& d, const Tensor& g) {
  const Tensor &a = d.x[0], &b = d.x[1];
  Tensor q = mt::reciprocal(mul(d.r, sq(d.r)));
  return hessian_terms(g, d.t[0], d.t[1], mul(sq(b), q), mt::neg(mul(mul(a, b), q)), mul(sq(a), q));
}
// logaddexp(a, b) (params[0] 1) and logaddexp2 (params[0] ln 2), p = sigmoid((a - b) params[0]): f_aa = f_bb
// = -f_ab = params[0] p (1 - p)
Terms logaddexp_term(const DualTerm& d, const Tensor& g) {
  Tensor p = mt::sigmoid(mul(sub(d.x[0], d.x[1]), S(d.params[0])));
  Tensor h = mul(mul(p, sub(S(1.0), p)), S(d.params[0]));
  return hessian_terms(g, d.t[0], d.t[1], h, mt::neg(h), h);
}
// xlogy(a, b) (a a tensor or the number params[0]): B_a = g log b (0 where a == 0 and b <= 0), B_b = g a / b.
// Terms: a: g tb / b; b: g ta / b (masked as B_a) - g a tb / b^2
Terms xlogy_term(const DualTerm& d, const Tensor& g) {
  const Tensor &b = d.x[1], &ta = d.t[0], &tb = d.t[1];
  Tensor a = d.x[0].defined() ? d.x[0] : S(d.params[0]);
  Terms out(2);
  if (tb.defined()) out[0] = div(mul(g, tb), b);
  Tensor s;
  if (ta.defined()) {
    Tensor masked = mt::logical_and(mt::eq(a, S(0.0)), mt::le(b, S(0.0)));
    s = mt::where(masked, S(0.0), div(ta, b));
  }
  if (tb.defined()) {
    Tensor u = div(mul(a, tb), sq(b));
    s = s.defined() ? sub(s, u) : mt::neg(u);
  }
  if (s.defined()) out[1] = mul(g, s);
  return out;
}
// logsumexp over dims params[1:] (params[0]: keepdim): B = g exp(x - r) with g and r kept at size 1 on the
// dims, the term g exp(x - r) (t - tr)
Terms logsumexp_term(const DualTerm& d, const Tensor& g) {
  const Tensor& x = d.x[0];
  std::vector<int64_t> kept(x.sizes().begin(), x.sizes().end());
  for (size_t i = 1; i < d.params.size(); ++i) kept[static_cast<size_t>(d.params[i])] = 1;
  const IntArrayRef ks(kept.data(), kept.size());
  Tensor p = mt::exp(sub(x, mt::reshape(d.r, ks)));
  return {mul(mul(mt::reshape(g, ks), p), sub(d.t[0], mt::reshape(d.tr, ks)))};
}
// cumprod along params[0]: B_i = sum_{j>=i} g_j prod_{m<=j, m!=i} x_m (derivatives.cpp's cumprod_backward).
// Without zeros B = rcs(g r) / x (rcs: the reversed cumulative sum), so the term is (rcs(g tr) - t / x
// rcs(g r)) / x. With zeros, p1 and p2 a slice's first two: that form holds before p1 (r vanishes from p1 on,
// tr from p2 on, and between them tr is exactly the products that skip x_p1); at p1 the products skip x_p1,
// so the term is rcs(g tR1), R1 the cumprod of x with x_p1 = 1 and tR1 its tangent with t_p1 = 0: R1 cs(t /
// x) before p2, t_p2 R12 from p2 on (R12: x_p1 and x_p2 set to 1; 0 past a third zero); between p1 and p2
// only t_p1 moves a product off zero: t_p1 rcs(g R1) / x; at p2, t_p1 rcs(g R12); past p2, 0.
Terms cumprod_term(const DualTerm& d, const Tensor& g) {
  int64_t dim[1] = {static_cast<int64_t>(d.params[0])};
  const IntArrayRef dims(dim, 1);
  auto rcs = [&](const Tensor& u) { return mt::flip(mt::cumsum(mt::flip(u, dims), dim[0]), dims); };
  const Tensor &x = d.x[0], &t = d.t[0];
  Tensor is0 = mt::eq(x, S(0.0));
  if (!item(mt::any(is0)).to_bool())
    return {div(sub(rcs(mul(g, d.tr)), mul(div(t, x), rcs(mul(g, d.r)))), x)};
  Tensor seen = mt::cumsum(is0, dim[0]);  // zeros up to and including each position
  Tensor first = mt::logical_and(is0, mt::eq(seen, S(1.0)));
  Tensor second = mt::logical_and(is0, mt::eq(seen, S(2.0)));
  Tensor xs = mt::where(is0, S(1.0), x);  // the divisor wherever its quotient is kept
  Tensor r1 = mt::cumprod(mt::where(first, S(1.0), x), dim[0]);
  Tensor r12 = mt::cumprod(mt::where(mt::logical_or(first, second), S(1.0), x), dim[0]);
  Tensor tp1 = sum_dim(mt::where(first, t, S(0.0)), dim[0]);  // t at the slice's first zero (0: none)
  Tensor tp2 = sum_dim(mt::where(second, t, S(0.0)), dim[0]);
  Tensor tr1 = mt::where(mt::lt(seen, S(2.0)),
                         mul(r1, mt::cumsum(mt::where(first, S(0.0), div(t, xs)), dim[0])), mul(tp2, r12));
  Tensor before = div(sub(rcs(mul(g, d.tr)), mul(div(t, xs), rcs(mul(g, d.r)))), xs);
  Tensor at_second = mt::where(second, mul(tp1, rcs(mul(g, r12))), S(0.0));
  Tensor after_first =
      mt::where(first, rcs(mul(g, tr1)),
                mt::where(mt::eq(seen, S(1.0)), div(mul(tp1, rcs(mul(g, r1))), xs), at_second));
  return {mt::where(mt::eq(seen, S(0.0)), before, after_first)};
}
// F.prelu's kernel (x, w), w one slope or one per channel (dim 1): B_x = g where(x >= 0, 1, w) and B_w = g
// where(x >= 0, 0, x) summed per slope (the rule's x >= 0), so the terms are g where(x >= 0, 0, tw) and the
// sum of g where(x >= 0, 0, tx). d.x[1] is the weight as the caller gave it (the wrapper reshapes it to
// broadcast)
Terms prelu_term(const DualTerm& d, const Tensor& g) {
  const Tensor &x = d.x[0], &w = d.x[1], &tx = d.t[0], &tw = d.t[1];
  const bool per_channel = w.numel() != 1;
  std::vector<int64_t> shape;  // the weight as it broadcasts against x: (C, 1, ...) or a scalar
  if (per_channel) {
    shape.assign(static_cast<size_t>(x.dim() - 1), 1);
    shape[0] = w.numel();
  }
  Tensor pos = mt::ge(x, S(0.0));
  Terms out(2);
  if (tw.defined())
    out[0] = mt::where(pos, S(0.0), mul(g, mt::reshape(tw, IntArrayRef(shape.data(), shape.size()))));
  if (tx.defined()) {
    Tensor u = mt::where(pos, S(0.0), mul(g, tx));
    std::vector<int64_t> dims;
    for (int64_t i = 0; i < u.dim(); ++i)
      if (!per_channel || i != 1) dims.push_back(i);
    if (!dims.empty()) u = mt::sum(u, IntArrayRef(dims.data(), dims.size()), false);
    out[1] = mt::reshape(u, w.sizes());
  }
  return out;
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
