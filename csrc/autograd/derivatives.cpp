// Every derivative formula, together (as PyTorch's derivatives.yaml), written in ops so it runs on every
// device and records itself when create_graph is on. Each recording twin runs the op with grad off and
// attaches an FnNode; broadcasting and dtype changes are undone by the engine (sum_to / to per edge).
#include <cmath>
#include <mutex>
#include <numeric>

#include "autograd/Node.h"
#include "autograd/record.h"
#include "ops/attention.h"
#include "ops/ops.h"
#include "ops/upsample.h"

namespace mt::autograd {

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

template <typename F>
Tensor no_grad(F&& f) {
  NoGradGuard g;
  return f();
}

// Attaches a node for `outs` with edges to `ins`; nothing when no output is floating (comparisons etc.).
std::shared_ptr<FnNode> attach(const char* name, FnNode::Fn fn, std::vector<const Tensor*> ins,
                               std::vector<const Tensor*> outs) {
  bool any = false;
  for (auto* o : outs) any = any || is_floating(o->dtype());
  if (!any) return nullptr;
  auto n = std::make_shared<FnNode>(name, std::move(fn));
  set_history(n, ins, outs);
  return n;
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

// Gradient of a view op that cannot be inverted by another view: zeros of the base, with the gradient
// written through the same view.
// `overlapping`: the view may reach an element more than once (as_strided), so the gradient accumulates.
template <typename F>
Tensor view_scatter(const Tensor& g, const TensorGeometry& base, F&& vf, bool overlapping = false) {
  if (overlapping || (GradMode::is_enabled() && g.requires_grad())) {
    // create_graph (or overlap): the scatter as an accumulating index_put_ over the flat base; it
    // differentiates again
    int64_t numel = compute_numel(base.sizes);
    Tensor pos = mt::view(
        mt::arange(Scalar(int64_t(0)), Scalar(numel), Scalar(int64_t(1)), ScalarType::Long, g.device()),
        base.sizes);
    Tensor z = zeros({numel}, g.dtype(), g.device());
    mt::index_put_(z, {mt::reshape(vf(pos), {-1})}, mt::reshape(g, {-1}), true);
    return mt::reshape(z, base.sizes);
  }
  NoGradGuard ng;
  Tensor z = zeros(base.sizes, g.dtype(), g.device());
  mt::copy_(vf(z), g);
  return z;
}

using ViewFn = std::function<Tensor(const Tensor&)>;

// How to remake `view` from a tensor laid out like its base: the recorded view function, else (as_strided
// views) the view's strides and offset relative to the base, valid when the base is contiguous as the
// gradient buffers are.
ViewFn view_replay(const Tensor& view) {
  auto* m = view.impl()->autograd_meta();
  if (m->view_fn) return m->view_fn;
  const Tensor& base = m->view_base;
  MT_CHECK_NOT_IMPLEMENTED(base.is_contiguous(),
                           "in-place modification of an as_strided view of a non-contiguous tensor under "
                           "autograd is not supported; use an out-of-place op (or clone() the view first)");
  DimVector sz = view.sizes(), st = view.strides();
  int64_t off = view.storage_offset() - base.storage_offset();
  return [sz, st, off](const Tensor& b) { return mt::as_strided(b, sz, st, b.storage_offset() + off); };
}

// The history of a view as a function of its base's current history (the gradient is written through the
// view into zeros shaped like the base).
void set_view_history(const Tensor& view, const ViewFn& vf) {
  auto* m = view.impl()->autograd_meta();
  TensorGeometry bg = geometry_of(m->view_base);
  auto node = std::make_shared<FnNode>(
      "AsStridedBackward0", [vf, bg](FnNode&, V& gs) -> V { return {view_scatter(gs[0], bg, vf)}; });
  set_history(node, {&m->view_base}, {&view});
  m->attr_version = view.version();
}

// An in-place write through a recorded view: the base's history becomes CopySlices (the old base outside
// the view, the new values inside it), and the view becomes a view of that new base.
void rebase_view(const Tensor& self, const Tensor& r) {
  auto* m = self.impl()->autograd_meta();
  Tensor base = m->view_base;
  ViewFn vf = view_replay(self);
  auto copy_slices = std::make_shared<FnNode>("CopySlices", [vf](FnNode& n, V& gs) -> V {
    const Tensor& g = gs[0];
    V res(2);
    // written in ops (under create_graph the fill through the view records itself), so it differentiates
    // again
    if (n.needs_input_grad(0)) {
      res[0] = mt::clone(g);
      mt::fill_(vf(res[0]), Scalar(0.0));
    }
    if (n.needs_input_grad(1)) res[1] = mt::clone(vf(mt::contiguous(g)));  // view() needs a viewable g
    return res;
  });
  set_history(copy_slices, {&base, &r}, {&base});
  set_view_history(self, vf);
}

}  // namespace

void take_history(const Tensor& self, const Tensor& r) {
  auto* sm = self.impl()->autograd_meta();
  if (sm && sm->is_view()) {
    if (r.requires_grad()) rebase_view(self, r);
    return;
  }
  auto* rm = r.impl()->autograd_meta();
  if (rm && rm->grad_fn) {
    auto& m = self.impl()->ensure_autograd_meta();
    m.requires_grad = true;
    m.grad_fn = rm->grad_fn;
    m.output_nr = rm->output_nr;
  }
}

// A view whose storage was written in place since its history was set (through its base or another view),
// or whose base gained history after the view was made, remakes its history from the base's current one,
// as PyTorch regenerates a view's grad_fn when it is read.
void refresh_view_history(const Tensor& view) {
  auto* m = view.impl()->autograd_meta();
  if ((m->grad_fn && view.version() == m->attr_version) || !m->view_base.requires_grad()) return;
  // Big ops run without the GIL, so two threads may find one stale view at once: it is remade once.
  static std::mutex remake;
  std::lock_guard<std::mutex> lock(remake);
  if (m->grad_fn && view.version() == m->attr_version) return;
  set_view_history(view, view_replay(view));
}

namespace {

// The generic in-place path under grad: the result is computed out of place (recorded, from a clone so the
// saved input keeps its version), written into self, and self takes over the result's history.
template <typename F>
const Tensor& inplace(const Tensor& self, F&& fn) {
  check_inplace(self);
  // A part of a bigger tensor that was not recorded as a view (made under no_grad): its base cannot be given
  // the new history, so refuse rather than lose gradients, as PyTorch does.
  auto* sm = self.impl()->autograd_meta();
  MT_CHECK((sm && sm->is_view()) || self.requires_grad() ||
               (self.storage_offset() == 0 &&
                static_cast<size_t>(self.numel()) * self.itemsize() >= self.storage()->nbytes),
           "A view was created in no_grad mode and is being modified inplace with grad mode enabled. Given "
           "that this use case is ambiguous and error-prone, it is forbidden. You can clarify your code by "
           "moving both the view and the inplace either both inside the no_grad block (if you don't want the "
           "inplace to be tracked) or both outside (if you want the inplace to be tracked).");
  Tensor r = fn(mt::clone(self));
  {
    NoGradGuard g;
    mt::copy_(self, r);
  }
  take_history(self, r);
  return self;
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

// d(op)/dx * g, from the input x and the result r.
Tensor unary_grad(UnaryOp op, const Tensor& g, const Tensor& x, const Tensor& r) {
  using mt::add;
  using mt::div;
  using mt::mul;
  using mt::sub;
  switch (op) {
    case UnaryOp::abs:
      return mul(g, mt::sign(x));
    case UnaryOp::neg:
      return mt::neg(g);
    case UnaryOp::sign:
    case UnaryOp::floor:
    case UnaryOp::ceil:
    case UnaryOp::round:
    case UnaryOp::trunc:
      return zeros_like(g);
    case UnaryOp::relu:
      return mul(g, fmask(mt::gt(r, S(0)), g));
    case UnaryOp::exp:
      return mul(g, r);
    case UnaryOp::exp2:
      return mul(g, mul(r, S(std::log(2.0))));
    case UnaryOp::expm1:
      return mul(g, add(r, S(1)));
    case UnaryOp::log:
      return div(g, x);
    case UnaryOp::log2:
      return div(g, mul(x, S(std::log(2.0))));
    case UnaryOp::log10:
      return div(g, mul(x, S(std::log(10.0))));
    case UnaryOp::log1p:
      return div(g, add(x, S(1)));
    case UnaryOp::sqrt:
      return div(g, mul(r, S(2)));
    case UnaryOp::rsqrt:
      return mul(g, mul(mt::pow(r, S(3)), S(-0.5)));
    case UnaryOp::reciprocal:
      return mt::neg(mul(g, mul(r, r)));
    case UnaryOp::sin:
      return mul(g, mt::cos(x));
    case UnaryOp::cos:
      return mt::neg(mul(g, mt::sin(x)));
    case UnaryOp::tan:
      return mul(g, add(mul(r, r), S(1)));
    case UnaryOp::asin:
      return div(g, mt::sqrt(sub(S(1), mul(x, x))));
    case UnaryOp::acos:
      return mt::neg(div(g, mt::sqrt(sub(S(1), mul(x, x)))));
    case UnaryOp::atan:
      return div(g, add(mul(x, x), S(1)));
    case UnaryOp::sinh:
      return mul(g, mt::cosh(x));
    case UnaryOp::cosh:
      return mul(g, mt::sinh(x));
    case UnaryOp::tanh:
      return mul(g, sub(S(1), mul(r, r)));
    case UnaryOp::erf:
      return mul(g, mul(mt::exp(mt::neg(mul(x, x))), S(2.0 / std::sqrt(kPi))));
    case UnaryOp::sigmoid:
      return mul(g, mul(r, sub(S(1), r)));
    case UnaryOp::gelu: {
      Tensor cdf = mul(add(mt::erf(mul(x, S(M_SQRT1_2))), S(1)), S(0.5));
      Tensor pdf = mul(mt::exp(mul(mul(x, x), S(-0.5))), S(1.0 / std::sqrt(2 * kPi)));
      return mul(g, add(cdf, mul(x, pdf)));
    }
    case UnaryOp::gelu_tanh: {
      const double k = std::sqrt(2.0 / kPi), c = 0.044715;
      Tensor x2 = mul(x, x);
      Tensor th = mt::tanh(mul(mul(x, add(mul(x2, S(c)), S(1))), S(k)));
      Tensor left = mul(add(th, S(1)), S(0.5));
      Tensor right = mul(mul(mul(x, sub(S(1), mul(th, th))), S(0.5 * k)), add(mul(x2, S(3 * c)), S(1)));
      return mul(g, add(left, right));
    }
    case UnaryOp::silu: {
      Tensor s = mt::sigmoid(x);
      return mul(g, mul(s, add(mul(x, sub(S(1), s)), S(1))));
    }
    case UnaryOp::mish: {
      Tensor th = mt::tanh(mt::softplus(x, 1.0, 20.0));
      return mul(g, add(th, mul(mul(x, mt::sigmoid(x)), sub(S(1), mul(th, th)))));
    }
    default:
      MT_ERROR("the derivative for '", unary_name(op), "' is not implemented.");
  }
}

bool unary_saves_input(UnaryOp op) {
  switch (op) {
    case UnaryOp::relu:
    case UnaryOp::exp:
    case UnaryOp::exp2:
    case UnaryOp::expm1:
    case UnaryOp::sqrt:
    case UnaryOp::rsqrt:
    case UnaryOp::reciprocal:
    case UnaryOp::tan:
    case UnaryOp::tanh:
    case UnaryOp::sigmoid:
      return false;  // these need only the result
    default:
      return true;
  }
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

void check_inplace(const Tensor& self) {
  if (!GradMode::is_enabled() || !self.requires_grad()) return;
  auto* m = self.impl()->autograd_meta();
  if (m->is_view()) {
    auto* bm = m->view_base.impl()->autograd_meta();
    MT_CHECK(bm && bm->grad_fn,
             "a view of a leaf Variable that requires grad is being used in an in-place operation.");
    return;
  }
  MT_CHECK(m->grad_fn, "a leaf Variable that requires grad is being used in an in-place operation.");
}

// ---- elementwise ----

Tensor unary(UnaryOp op, const Tensor& self) {
  Tensor out = no_grad([&] { return mt::unary(op, self); });
  auto n = attach(unary_name(op),
                  [op](FnNode& n, V& g) -> V {
                    bool in = unary_saves_input(op);
                    Tensor x = in ? n.saved(0) : Tensor(), r = in ? Tensor() : n.saved(0);
                    return {unary_grad(op, g[0], x, r)};
                  },
                  {&self}, {&out});
  if (n) n->save(unary_saves_input(op) ? self : out, !unary_saves_input(op));
  return out;
}

const Tensor& unary_(UnaryOp op, const Tensor& self) {
  return inplace(self, [&](const Tensor& s) { return autograd::unary(op, s); });
}

Tensor binary(BinaryOp op, const Tensor& a, const Tensor& b) {
  Tensor out = no_grad([&] { return mt::binary(op, a, b); });
  auto n =
      attach(binary_name(op),
             [op](FnNode& n, V& gs) -> V {
               using mt::div;
               using mt::mul;
               const Tensor& g = gs[0];
               bool ga = n.needs_input_grad(0), gb = n.needs_input_grad(1);
               Tensor a = n.saved(0), b = n.saved(1);
               Tensor da, db;
               switch (op) {
                 case BinaryOp::add:
                   return {ga ? g : Tensor(), gb ? g : Tensor()};
                 case BinaryOp::sub:
                   return {ga ? g : Tensor(), gb ? mt::neg(g) : Tensor()};
                 case BinaryOp::mul:
                   return {ga ? mul(g, b) : Tensor(), gb ? mul(g, a) : Tensor()};
                 case BinaryOp::div:
                   return {ga ? div(g, b) : Tensor(), gb ? mt::neg(div(mul(g, a), mul(b, b))) : Tensor()};
                 case BinaryOp::pow: {
                   if (ga) da = mul(mul(g, b), mt::pow(a, mt::sub(b, S(1))));
                   if (gb) {
                     Tensor r = mt::pow(a, b);
                     Tensor t = mul(mul(g, r), mt::log(a));
                     // 0 ** b with b >= 0 has no log term (PyTorch masks it the same way)
                     db = mt::where(mt::logical_and(mt::eq(a, S(0)), mt::ge(b, S(0))), S(0), t);
                   }
                   return {da, db};
                 }
                 case BinaryOp::maximum:
                 case BinaryOp::minimum: {
                   // ties split the gradient evenly, as PyTorch does
                   Tensor win = op == BinaryOp::maximum ? mt::gt(a, b) : mt::lt(a, b);
                   Tensor tie = mul(fmask(mt::eq(a, b), g), S(0.5));
                   Tensor wa = mt::add(fmask(win, g), tie);
                   if (ga) da = mul(g, wa);
                   if (gb) db = mul(g, mt::sub(S(1), wa));
                   return {da, db};
                 }
                 case BinaryOp::atan2: {
                   Tensor den = mt::add(mul(a, a), mul(b, b));
                   if (ga) da = div(mul(g, b), den);
                   if (gb) db = mt::neg(div(mul(g, a), den));
                   return {da, db};
                 }
                 case BinaryOp::remainder:
                   return {ga ? g : Tensor(), gb ? mt::neg(mul(g, mt::floor_divide(a, b))) : Tensor()};
                 case BinaryOp::fmod:
                   return {ga ? g : Tensor(), gb ? mt::neg(mul(g, mt::trunc_divide(a, b))) : Tensor()};
                 case BinaryOp::floor_divide:
                 case BinaryOp::trunc_divide:
                   return {ga ? zeros_like(g) : Tensor(), gb ? zeros_like(g) : Tensor()};
                 default:
                   MT_ERROR("the derivative for '", binary_name(op), "' is not implemented.");
               }
             },
             {&a, &b}, {&out});
  if (n) {
    // Save only what the needed gradients read (as PyTorch does): a tensor saved needlessly would make a
    // later in-place write to it an error.
    bool ga = n->needs_input_grad(0), gb = n->needs_input_grad(1);
    bool save_a = true, save_b = true;
    switch (op) {
      case BinaryOp::add:
      case BinaryOp::sub:
        save_a = save_b = false;
        break;
      case BinaryOp::mul:
        save_a = gb;
        save_b = ga;
        break;
      case BinaryOp::div:
        save_a = gb;
        break;
      case BinaryOp::remainder:
      case BinaryOp::fmod:
        save_a = save_b = gb;
        break;
      default:
        break;
    }
    n->save(save_a ? a : Tensor());
    n->save(save_b ? b : Tensor());
  }
  return out;
}

const Tensor& binary_(BinaryOp op, const Tensor& self, const Tensor& other) {
  return inplace(self, [&](const Tensor& s) { return autograd::binary(op, s, other); });
}

Tensor clamp(const Tensor& self, const std::optional<Tensor>& min, const std::optional<Tensor>& max) {
  Tensor out = no_grad([&] { return mt::clamp(self, min, max); });
  Tensor lo = min ? *min : Tensor(), hi = max ? *max : Tensor();
  auto n = attach("ClampBackward1",
                  [](FnNode& n, V& gs) -> V {
                    const Tensor& g = gs[0];
                    Tensor x = n.saved(0), lo = n.saved(1), hi = n.saved(2);
                    Tensor in = mt::ones(x.sizes(), ScalarType::Bool, x.device());
                    V r(3);
                    if (lo.defined()) {
                      in = mt::logical_and(in, mt::ge(x, lo));
                      if (n.needs_input_grad(1)) r[1] = mt::mul(g, fmask(mt::lt(x, lo), g));
                    }
                    if (hi.defined()) {
                      in = mt::logical_and(in, mt::le(x, hi));
                      if (n.needs_input_grad(2)) r[2] = mt::mul(g, fmask(mt::gt(x, hi), g));
                    }
                    if (n.needs_input_grad(0)) r[0] = mt::mul(g, fmask(in, g));
                    return r;
                  },
                  {&self, min ? &*min : nullptr, max ? &*max : nullptr}, {&out});
  if (n) {
    n->save(self);
    n->save(lo);
    n->save(hi);
  }
  return out;
}

const Tensor& clamp_(const Tensor& self, const std::optional<Tensor>& min, const std::optional<Tensor>& max) {
  return inplace(self, [&](const Tensor& s) { return autograd::clamp(s, min, max); });
}

Tensor where(const Tensor& cond, const Tensor& a, const Tensor& b) {
  Tensor out = no_grad([&] { return mt::where(cond, a, b); });
  auto n = attach("WhereBackward0",
                  [](FnNode& n, V& gs) -> V {
                    Tensor c = n.saved(0);
                    const Tensor& g = gs[0];
                    return {Tensor(), n.needs_input_grad(1) ? mt::where(c, g, S(0)) : Tensor(),
                            n.needs_input_grad(2) ? mt::where(c, S(0), g) : Tensor()};
                  },
                  {nullptr, &a, &b}, {&out});
  if (n) n->save(cond);
  return out;
}

Tensor masked_fill(const Tensor& self, const Tensor& mask, const Tensor& value) {
  Tensor out = no_grad([&] { return mt::masked_fill(self, mask, value); });
  auto n = attach("MaskedFillBackward0",
                  [](FnNode& n, V& gs) -> V {
                    Tensor m = n.saved(0);
                    const Tensor& g = gs[0];
                    return {n.needs_input_grad(0) ? mt::where(m, S(0), g) : Tensor(), Tensor(),
                            n.needs_input_grad(2) ? mt::sum(mt::where(m, g, S(0)), {}, false) : Tensor()};
                  },
                  {&self, nullptr, &value}, {&out});
  if (n) n->save(mask);
  return out;
}

const Tensor& masked_fill_(const Tensor& self, const Tensor& mask, const Tensor& value) {
  return inplace(self, [&](const Tensor& s) { return autograd::masked_fill(s, mask, value); });
}

Tensor softplus(const Tensor& self, double beta, double threshold) {
  Tensor out = no_grad([&] { return mt::softplus(self, beta, threshold); });
  auto n = attach("SoftplusBackward0",
                  [beta, threshold](FnNode& n, V& gs) -> V {
                    Tensor x = n.saved(0);
                    Tensor bx = mt::mul(x, S(beta));
                    return {mt::where(mt::gt(bx, S(threshold)), gs[0], mt::mul(gs[0], mt::sigmoid(bx)))};
                  },
                  {&self}, {&out});
  if (n) n->save(self);
  return out;
}

Tensor leaky_relu(const Tensor& self, double slope) {
  Tensor out = no_grad([&] { return mt::leaky_relu(self, slope); });
  auto n = attach("LeakyReluBackward0",
                  [slope](FnNode& n, V& gs) -> V {
                    Tensor x = n.saved(0);
                    return {mt::where(mt::gt(x, S(0)), gs[0], mt::mul(gs[0], S(slope)))};
                  },
                  {&self}, {&out});
  if (n) n->save(self);
  return out;
}

// ---- reductions ----

Tensor sum(const Tensor& self, IntArrayRef dims_, bool keepdim, ScalarType dtype) {
  Tensor out = no_grad([&] { return mt::sum(self, dims_, keepdim, dtype); });
  DimVector dims = all_dims(self.dim(), dims_);
  DimVector sizes = self.sizes();
  attach("SumBackward1",
         [dims, keepdim, sizes](FnNode&, V& gs) -> V { return {expand_to(gs[0], dims, keepdim, sizes)}; },
         {&self}, {&out});
  return out;
}

Tensor mean(const Tensor& self, IntArrayRef dims_, bool keepdim, ScalarType dtype) {
  Tensor out = no_grad([&] { return mt::mean(self, dims_, keepdim, dtype); });
  DimVector dims = all_dims(self.dim(), dims_);
  DimVector sizes = self.sizes();
  double count =
      out.numel() == 0 ? 1.0 : static_cast<double>(self.numel()) / static_cast<double>(out.numel());
  attach("MeanBackward1",
         [dims, keepdim, sizes, count](FnNode&, V& gs) -> V {
           return {mt::div(expand_to(gs[0], dims, keepdim, sizes), S(count))};
         },
         {&self}, {&out});
  return out;
}

Tensor prod(const Tensor& self, IntArrayRef dims_, bool keepdim, ScalarType dtype) {
  Tensor out = no_grad([&] { return mt::prod(self, dims_, keepdim, dtype); });
  DimVector dims = all_dims(self.dim(), dims_);
  auto n = attach("ProdBackward1",
                  [dims, keepdim](FnNode& n, V& gs) -> V {
                    // d prod / d x_i = product of the others. Without zeros in the group that is prod / x_i;
                    // with one zero only the zero's position has a nonzero gradient (the product of the
                    // nonzeros); with two or more every gradient is zero. Never divides by zero (no NaN leaks
                    // into double backward).
                    Tensor x = n.saved(0);
                    Tensor is0 = mt::eq(x, S(0));
                    Tensor nz = mt::where(is0, S(1), x);
                    Tensor pnz = mt::prod(nz, dims, true);
                    Tensor zc = mt::sum(is0, dims, true);
                    Tensor factor = mt::where(is0, mt::where(mt::eq(zc, S(1)), pnz, S(0)),
                                              mt::where(mt::eq(zc, S(0)), mt::div(pnz, nz), S(0)));
                    return {mt::mul(unsqueeze_dims(gs[0], dims, keepdim), factor)};
                  },
                  {&self}, {&out});
  if (n) n->save(self);
  return out;
}

namespace {
// amax/amin/max/min over dims: the gradient is shared evenly among the elements equal to the extremum.
Tensor extremum_record(const char* name, const Tensor& self, const Tensor& out, const DimVector& dims,
                       bool keepdim) {
  auto n = attach(name,
                  [dims, keepdim](FnNode& n, V& gs) -> V {
                    Tensor x = n.saved(0), r = n.saved(1);
                    Tensor m = fmask(mt::eq(x, unsqueeze_dims(r, dims, keepdim)), gs[0]);
                    Tensor cnt = mt::sum(m, dims, true);
                    return {mt::div(mt::mul(m, unsqueeze_dims(gs[0], dims, keepdim)), cnt)};
                  },
                  {&self}, {&out});
  if (n) {
    n->save(self);
    n->save(out, true);
  }
  return out;
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

namespace {
std::tuple<Tensor, Tensor> dim_extremum_record(const char* name, const Tensor& self,
                                               std::tuple<Tensor, Tensor> res, int64_t dim, bool keepdim) {
  Tensor& values = std::get<0>(res);
  const Tensor& indices = std::get<1>(res);
  dim = wrap_dim(dim, self.dim());
  TensorGeometry base = geometry_of(self);
  auto n = attach(name,
                  [dim, keepdim, base](FnNode& n, V& gs) -> V {
                    Tensor idx = n.saved(0);
                    Tensor g = gs[0];
                    if (base.sizes.empty()) return {mt::reshape(g, base.sizes)};
                    if (!keepdim) {
                      g = mt::unsqueeze(g, dim);
                      idx = mt::unsqueeze(idx, dim);
                    }
                    Tensor z = zeros(base.sizes, g.dtype(), g.device());
                    mt::scatter_(z, dim, idx, g);
                    return {z};
                  },
                  {&self}, {&values});
  if (n) n->save(indices);
  return res;
}
}  // namespace

std::tuple<Tensor, Tensor> max(const Tensor& self, int64_t dim, bool keepdim) {
  auto r = [&] {
    NoGradGuard g;
    return mt::max(self, dim, keepdim);
  }();
  return dim_extremum_record("MaxBackward0", self, r, dim, keepdim);
}
std::tuple<Tensor, Tensor> min(const Tensor& self, int64_t dim, bool keepdim) {
  auto r = [&] {
    NoGradGuard g;
    return mt::min(self, dim, keepdim);
  }();
  return dim_extremum_record("MinBackward0", self, r, dim, keepdim);
}

Tensor var(const Tensor& self, IntArrayRef dims_, double correction, bool keepdim) {
  Tensor out = no_grad([&] { return mt::var(self, dims_, correction, keepdim); });
  DimVector dims = all_dims(self.dim(), dims_);
  double count =
      out.numel() == 0 ? 1.0 : static_cast<double>(self.numel()) / static_cast<double>(out.numel());
  auto n = attach(
      "VarBackward0",
      [dims, keepdim, count, correction](FnNode& n, V& gs) -> V {
        Tensor x = n.saved(0);
        Tensor c = mt::sub(x, mt::mean(x, dims, true));
        return {mt::mul(unsqueeze_dims(gs[0], dims, keepdim), mt::mul(c, S(2.0 / (count - correction))))};
      },
      {&self}, {&out});
  if (n) n->save(self);
  return out;
}

Tensor std(const Tensor& self, IntArrayRef dims_, double correction, bool keepdim) {
  Tensor out = no_grad([&] { return mt::std(self, dims_, correction, keepdim); });
  DimVector dims = all_dims(self.dim(), dims_);
  double count =
      out.numel() == 0 ? 1.0 : static_cast<double>(self.numel()) / static_cast<double>(out.numel());
  auto n = attach("StdBackward0",
                  [dims, keepdim, count, correction](FnNode& n, V& gs) -> V {
                    Tensor x = n.saved(0), r = n.saved(1);
                    Tensor c = mt::sub(x, mt::mean(x, dims, true));
                    Tensor scale =
                        mt::div(unsqueeze_dims(gs[0], dims, keepdim), unsqueeze_dims(r, dims, keepdim));
                    return {mt::mul(scale, mt::mul(c, S(1.0 / (count - correction))))};
                  },
                  {&self}, {&out});
  if (n) {
    n->save(self);
    n->save(out, true);
  }
  return out;
}

Tensor norm(const Tensor& self, double p, IntArrayRef dims_, bool keepdim) {
  Tensor out = no_grad([&] { return mt::norm(self, p, dims_, keepdim); });
  DimVector dims = all_dims(self.dim(), dims_);
  auto n = attach("NormBackward1",
                  [dims, keepdim, p](FnNode& n, V& gs) -> V {
                    Tensor x = n.saved(0), r = unsqueeze_dims(n.saved(1), dims, keepdim);
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
                  },
                  {&self}, {&out});
  if (n) {
    n->save(self);
    n->save(out, true);
  }
  return out;
}

Tensor logsumexp(const Tensor& self, IntArrayRef dims_, bool keepdim) {
  Tensor out = no_grad([&] { return mt::logsumexp(self, dims_, keepdim); });
  DimVector dims = all_dims(self.dim(), dims_);
  auto n = attach("LogsumexpBackward0",
                  [dims, keepdim](FnNode& n, V& gs) -> V {
                    Tensor x = n.saved(0), r = n.saved(1);
                    return {mt::mul(unsqueeze_dims(gs[0], dims, keepdim),
                                    mt::exp(mt::sub(x, unsqueeze_dims(r, dims, keepdim))))};
                  },
                  {&self}, {&out});
  if (n) {
    n->save(self);
    n->save(out, true);
  }
  return out;
}

Tensor cumsum(const Tensor& self, int64_t dim, ScalarType dtype) {
  Tensor out = no_grad([&] { return mt::cumsum(self, dim, dtype); });
  int64_t d = wrap_dim(dim, self.dim());
  attach("CumsumBackward0",
         [d](FnNode&, V& gs) -> V {
           // the reversed cumulative sum: total - cumsum + g
           const Tensor& g = gs[0];
           if (g.dim() == 0) return {g};
           return {mt::add(mt::sub(mt::sum(g, {d}, true), mt::cumsum(g, d)), g)};
         },
         {&self}, {&out});
  return out;
}

Tensor cumprod(const Tensor& self, int64_t dim, ScalarType dtype) {
  Tensor out = no_grad([&] { return mt::cumprod(self, dim, dtype); });
  int64_t d = wrap_dim(dim, self.dim());
  auto n = attach("CumprodBackward0",
                  [d](FnNode& n, V& gs) -> V {
                    // d out_j / d x_i = out_j / x_i for j >= i: a reversed cumulative sum of g * out, divided
                    // by x (exact for inputs without zeros, like prod's formula)
                    Tensor x = n.saved(0), r = n.saved(1);
                    Tensor gr = mt::mul(gs[0], r);
                    if (gr.dim() == 0) return {mt::div(gr, x)};
                    Tensor rev = mt::add(mt::sub(mt::sum(gr, {d}, true), mt::cumsum(gr, d)), gr);
                    return {mt::div(rev, x)};
                  },
                  {&self}, {&out});
  if (n) {
    n->save(self);
    n->save(out, true);
  }
  return out;
}

Tensor softmax(const Tensor& self, int64_t dim, ScalarType dtype) {
  Tensor out = no_grad([&] { return mt::softmax(self, dim, dtype); });
  int64_t d = wrap_dim(dim, self.dim());
  auto n = attach("SoftmaxBackward0",
                  [d](FnNode& n, V& gs) -> V {
                    Tensor r = n.saved(0);
                    const Tensor& g = gs[0];
                    if (r.dim() == 0) return {mt::mul(g, S(0))};
                    return {mt::mul(r, mt::sub(g, mt::sum(mt::mul(g, r), {d}, true)))};
                  },
                  {&self}, {&out});
  if (n) n->save(out, true);
  return out;
}

Tensor log_softmax(const Tensor& self, int64_t dim, ScalarType dtype) {
  Tensor out = no_grad([&] { return mt::log_softmax(self, dim, dtype); });
  int64_t d = wrap_dim(dim, self.dim());
  auto n = attach("LogSoftmaxBackward0",
                  [d](FnNode& n, V& gs) -> V {
                    Tensor r = n.saved(0);
                    const Tensor& g = gs[0];
                    if (r.dim() == 0) return {mt::mul(g, S(0))};
                    return {mt::sub(g, mt::mul(mt::exp(r), mt::sum(g, {d}, true)))};
                  },
                  {&self}, {&out});
  if (n) n->save(out, true);
  return out;
}

// ---- linear algebra ----

Tensor mm(const Tensor& a, const Tensor& b) {
  Tensor out = no_grad([&] { return mt::mm(a, b); });
  auto n = attach("MmBackward0",
                  [](FnNode& n, V& gs) -> V {
                    Tensor a = n.saved(0), b = n.saved(1);
                    return {n.needs_input_grad(0) ? mt::mm(gs[0], mt::t(b)) : Tensor(),
                            n.needs_input_grad(1) ? mt::mm(mt::t(a), gs[0]) : Tensor()};
                  },
                  {&a, &b}, {&out});
  if (n) {
    n->save(n->needs_input_grad(1) ? a : Tensor());
    n->save(n->needs_input_grad(0) ? b : Tensor());
  }
  return out;
}

Tensor bmm(const Tensor& a, const Tensor& b) {
  Tensor out = no_grad([&] { return mt::bmm(a, b); });
  auto n = attach("BmmBackward0",
                  [](FnNode& n, V& gs) -> V {
                    Tensor a = n.saved(0), b = n.saved(1);
                    return {n.needs_input_grad(0) ? mt::bmm(gs[0], mt::transpose(b, 1, 2)) : Tensor(),
                            n.needs_input_grad(1) ? mt::bmm(mt::transpose(a, 1, 2), gs[0]) : Tensor()};
                  },
                  {&a, &b}, {&out});
  if (n) {
    n->save(n->needs_input_grad(1) ? a : Tensor());
    n->save(n->needs_input_grad(0) ? b : Tensor());
  }
  return out;
}

Tensor mv(const Tensor& a, const Tensor& v) {
  Tensor out = no_grad([&] { return mt::mv(a, v); });
  auto n = attach("MvBackward0",
                  [](FnNode& n, V& gs) -> V {
                    Tensor a = n.saved(0), v = n.saved(1);
                    return {n.needs_input_grad(0) ? mt::mul(mt::unsqueeze(gs[0], 1), v) : Tensor(),
                            n.needs_input_grad(1) ? mt::mv(mt::t(a), gs[0]) : Tensor()};
                  },
                  {&a, &v}, {&out});
  if (n) {
    n->save(n->needs_input_grad(1) ? a : Tensor());
    n->save(n->needs_input_grad(0) ? v : Tensor());
  }
  return out;
}

Tensor dot(const Tensor& a, const Tensor& b) {
  Tensor out = no_grad([&] { return mt::dot(a, b); });
  auto n = attach("DotBackward0",
                  [](FnNode& n, V& gs) -> V {
                    Tensor a = n.saved(0), b = n.saved(1);
                    return {n.needs_input_grad(0) ? mt::mul(gs[0], b) : Tensor(),
                            n.needs_input_grad(1) ? mt::mul(gs[0], a) : Tensor()};
                  },
                  {&a, &b}, {&out});
  if (n) {
    n->save(n->needs_input_grad(1) ? a : Tensor());
    n->save(n->needs_input_grad(0) ? b : Tensor());
  }
  return out;
}

Tensor addmm(const Tensor& self, const Tensor& m1, const Tensor& m2, const Scalar& beta,
             const Scalar& alpha) {
  Tensor out = no_grad([&] { return mt::addmm(self, m1, m2, beta, alpha); });
  double be = beta.to_double(), al = alpha.to_double();
  auto n = attach("AddmmBackward0",
                  [be, al](FnNode& n, V& gs) -> V {
                    Tensor m1 = n.saved(0), m2 = n.saved(1);
                    const Tensor& g = gs[0];
                    return {n.needs_input_grad(0) ? mt::mul(g, S(be)) : Tensor(),
                            n.needs_input_grad(1) ? mt::mul(mt::mm(g, mt::t(m2)), S(al)) : Tensor(),
                            n.needs_input_grad(2) ? mt::mul(mt::mm(mt::t(m1), g), S(al)) : Tensor()};
                  },
                  {&self, &m1, &m2}, {&out});
  if (n) {
    n->save(n->needs_input_grad(2) ? m1 : Tensor());
    n->save(n->needs_input_grad(1) ? m2 : Tensor());
  }
  return out;
}

// ---- views and shape ops ----

namespace {
// Every view made in grad mode of a floating tensor knows its root base and how to remake it from a tensor
// shaped like the base, whether or not anything requires grad yet: an in-place write through the view then
// gives the base its history (CopySlices), and the view's own history can be remade when the base changes.
Tensor mark_view(const Tensor& self, const Tensor& out, ViewFn fn) {
  auto* m = &out.impl()->ensure_autograd_meta();
  m->attr_version = out.version();
  auto* sm = self.impl()->autograd_meta();
  if (sm && sm->is_view()) {
    m->view_base = sm->view_base;
    if (sm->view_fn && fn) m->view_fn = [prev = sm->view_fn, fn](const Tensor& b) { return fn(prev(b)); };
  } else {
    m->view_base = self;
    m->view_fn = std::move(fn);
  }
  return out;
}

// The node of a view op, only when its input requires grad (views are tracked without one, see mark_view).
std::shared_ptr<FnNode> attach_view(const char* name, FnNode::Fn fn, const Tensor& self, const Tensor& out) {
  if (!self.requires_grad()) return nullptr;
  return attach(name, std::move(fn), {&self}, {&out});
}
}  // namespace

Tensor as_strided(const Tensor& self, IntArrayRef sizes, IntArrayRef strides, int64_t offset) {
  Tensor out = no_grad([&] { return mt::as_strided(self, sizes, strides, offset); });
  // The offset counts from the storage's start; relative to a contiguous input it is a view of its elements.
  bool replayable = self.is_contiguous();
  TensorGeometry in = geometry_of(self);
  DimVector sz(sizes.begin(), sizes.end()), st(strides.begin(), strides.end());
  int64_t rel = offset - self.storage_offset();
  attach_view(
      "AsStridedBackward0",
      [replayable, in, sz, st, rel](FnNode&, V& gs) -> V {
        MT_CHECK_NOT_IMPLEMENTED(replayable,
                                 "the derivative for 'as_strided' of a non-contiguous tensor is not "
                                 "implemented.");
        auto vf = [&](const Tensor& z) { return mt::as_strided(z, sz, st, z.storage_offset() + rel); };
        return {view_scatter(gs[0], in, vf, /*overlapping=*/true)};
      },
      self, out);
  return mark_view(self, out, nullptr);
}

Tensor alias(const Tensor& self) {
  Tensor out = no_grad([&] { return mt::alias(self); });
  attach_view(
      "AliasBackward0", [](FnNode&, V& gs) -> V { return {gs[0]}; }, self, out);
  return mark_view(self, out, [](const Tensor& b) { return mt::alias(b); });
}

Tensor view(const Tensor& self, IntArrayRef sizes) {
  Tensor out = no_grad([&] { return mt::view(self, sizes); });
  DimVector in = self.sizes();
  attach_view(
      "ViewBackward0", [in](FnNode&, V& gs) -> V { return {mt::reshape(gs[0], in)}; }, self, out);
  return mark_view(self, out, [s = DimVector(out.sizes())](const Tensor& b) { return mt::view(b, s); });
}

Tensor reshape(const Tensor& self, IntArrayRef sizes) {
  Tensor out = no_grad([&] { return mt::reshape(self, sizes); });
  DimVector in = self.sizes();
  attach_view(
      "ViewBackward0", [in](FnNode&, V& gs) -> V { return {mt::reshape(gs[0], in)}; }, self, out);
  if (out.storage() != self.storage()) return out;
  return mark_view(self, out, [s = DimVector(out.sizes())](const Tensor& b) { return mt::view(b, s); });
}

Tensor permute(const Tensor& self, IntArrayRef dims) {
  Tensor out = no_grad([&] { return mt::permute(self, dims); });
  DimVector inv(dims.size());
  for (size_t i = 0; i < dims.size(); ++i) inv[wrap_dim(dims[i], self.dim())] = static_cast<int64_t>(i);
  attach_view(
      "PermuteBackward0", [inv](FnNode&, V& gs) -> V { return {mt::permute(gs[0], inv)}; }, self, out);
  return mark_view(self, out,
                   [d = DimVector(dims.begin(), dims.end())](const Tensor& b) { return mt::permute(b, d); });
}

Tensor transpose(const Tensor& self, int64_t d0, int64_t d1) {
  Tensor out = no_grad([&] { return mt::transpose(self, d0, d1); });
  attach_view(
      "TransposeBackward0", [d0, d1](FnNode&, V& gs) -> V { return {mt::transpose(gs[0], d0, d1)}; }, self,
      out);
  return mark_view(self, out, [d0, d1](const Tensor& b) { return mt::transpose(b, d0, d1); });
}

Tensor squeeze(const Tensor& self) {
  Tensor out = no_grad([&] { return mt::squeeze(self); });
  DimVector in = self.sizes();
  attach_view(
      "SqueezeBackward0", [in](FnNode&, V& gs) -> V { return {mt::reshape(gs[0], in)}; }, self, out);
  return mark_view(self, out, [s = DimVector(out.sizes())](const Tensor& b) { return mt::view(b, s); });
}

Tensor squeeze(const Tensor& self, IntArrayRef dims) {
  Tensor out = no_grad([&] { return mt::squeeze(self, dims); });
  DimVector in = self.sizes();
  attach_view(
      "SqueezeBackward1", [in](FnNode&, V& gs) -> V { return {mt::reshape(gs[0], in)}; }, self, out);
  return mark_view(self, out, [s = DimVector(out.sizes())](const Tensor& b) { return mt::view(b, s); });
}

Tensor unsqueeze(const Tensor& self, int64_t dim) {
  Tensor out = no_grad([&] { return mt::unsqueeze(self, dim); });
  DimVector in = self.sizes();
  attach_view(
      "UnsqueezeBackward0", [in](FnNode&, V& gs) -> V { return {mt::reshape(gs[0], in)}; }, self, out);
  return mark_view(self, out, [dim](const Tensor& b) { return mt::unsqueeze(b, dim); });
}

Tensor expand(const Tensor& self, IntArrayRef sizes) {
  Tensor out = no_grad([&] { return mt::expand(self, sizes); });
  // the engine sums a broadcast gradient back to the input's shape
  attach_view(
      "ExpandBackward0", [](FnNode&, V& gs) -> V { return {gs[0]}; }, self, out);
  return mark_view(self, out, [s = DimVector(out.sizes())](const Tensor& b) { return mt::expand(b, s); });
}

Tensor select(const Tensor& self, int64_t dim, int64_t index) {
  Tensor out = no_grad([&] { return mt::select(self, dim, index); });
  TensorGeometry base = geometry_of(self);
  attach_view(
      "SelectBackward0",
      [base, dim, index](FnNode&, V& gs) -> V {
        return {view_scatter(gs[0], base, [&](const Tensor& z) { return mt::select(z, dim, index); })};
      },
      self, out);
  return mark_view(self, out, [dim, index](const Tensor& b) { return mt::select(b, dim, index); });
}

Tensor slice(const Tensor& self, int64_t dim, int64_t start, int64_t end, int64_t step) {
  Tensor out = no_grad([&] { return mt::slice(self, dim, start, end, step); });
  TensorGeometry base = geometry_of(self);
  attach_view(
      "SliceBackward0",
      [base, dim, start, end, step](FnNode&, V& gs) -> V {
        return {
            view_scatter(gs[0], base, [&](const Tensor& z) { return mt::slice(z, dim, start, end, step); })};
      },
      self, out);
  return mark_view(self, out,
                   [dim, start, end, step](const Tensor& b) { return mt::slice(b, dim, start, end, step); });
}

Tensor diagonal(const Tensor& self, int64_t offset, int64_t d1, int64_t d2) {
  Tensor out = no_grad([&] { return mt::diagonal(self, offset, d1, d2); });
  TensorGeometry base = geometry_of(self);
  attach_view(
      "DiagonalBackward0",
      [base, offset, d1, d2](FnNode&, V& gs) -> V {
        return {view_scatter(gs[0], base, [&](const Tensor& z) { return mt::diagonal(z, offset, d1, d2); })};
      },
      self, out);
  return mark_view(self, out, [offset, d1, d2](const Tensor& b) { return mt::diagonal(b, offset, d1, d2); });
}

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
  attach("CatBackward0",
         [lens, d](FnNode& n, V& gs) -> V {
           V r(lens.size());
           int64_t off = 0;
           for (size_t i = 0; i < lens.size(); ++i) {
             if (lens[i] < 0) continue;
             if (n.needs_input_grad(i)) r[i] = mt::narrow(gs[0], d, off, lens[i]);
             off += lens[i];
           }
           return r;
         },
         ins, {&out});
  return out;
}

// ---- indexing ----

Tensor index(const Tensor& self, const std::vector<std::optional<Tensor>>& indices) {
  Tensor out = no_grad([&] { return mt::index(self, indices); });
  TensorGeometry base = geometry_of(self);
  auto n = attach("IndexBackward0",
                  [base, indices](FnNode&, V& gs) -> V {
                    Tensor z = zeros(base.sizes, gs[0].dtype(), gs[0].device());
                    mt::index_put_(z, indices, gs[0], true);
                    return {z};
                  },
                  {&self}, {&out});
  return out;
}

const Tensor& index_put_(const Tensor& self, const std::vector<std::optional<Tensor>>& indices,
                         const Tensor& values, bool accumulate) {
  return inplace(self, [&](const Tensor& s) {
    Tensor out = no_grad([&] {
      mt::index_put_(s, indices, values, accumulate);
      return s;
    });
    Tensor r = detach(out);
    auto n = attach("IndexPutBackward0",
                    [indices, accumulate](FnNode& n, V& gs) -> V {
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
                    },
                    {&s, &values}, {&r});
    return r;
  });
}

Tensor index_select(const Tensor& self, int64_t dim, const Tensor& idx) {
  Tensor out = no_grad([&] { return mt::index_select(self, dim, idx); });
  TensorGeometry base = geometry_of(self);
  int64_t d = wrap_dim(dim, self.dim());
  auto n = attach("IndexSelectBackward0",
                  [base, d](FnNode& n, V& gs) -> V {
                    Tensor i = n.saved(0);
                    Tensor z = zeros(base.sizes, gs[0].dtype(), gs[0].device());
                    if (base.sizes.empty()) return {mt::reshape(gs[0], base.sizes)};
                    std::vector<std::optional<Tensor>> ix(static_cast<size_t>(d) + 1);
                    ix[d] = mt::reshape(i, {-1});
                    mt::index_put_(z, ix, gs[0], true);
                    return {z};
                  },
                  {&self}, {&out});
  if (n) n->save(idx);
  return out;
}

Tensor gather(const Tensor& self, int64_t dim, const Tensor& idx) {
  Tensor out = no_grad([&] { return mt::gather(self, dim, idx); });
  TensorGeometry base = geometry_of(self);
  auto n = attach("GatherBackward0",
                  [base, dim](FnNode& n, V& gs) -> V {
                    Tensor i = n.saved(0);
                    Tensor z = zeros(base.sizes, gs[0].dtype(), gs[0].device());
                    mt::scatter_add_(z, dim, i, gs[0]);
                    return {z};
                  },
                  {&self}, {&out});
  if (n) n->save(idx);
  return out;
}

const Tensor& scatter_(const Tensor& self, int64_t dim, const Tensor& idx, const Tensor& src,
                       const std::string& reduce) {
  return inplace(self, [&](const Tensor& s) {
    Tensor r = no_grad([&] {
      Tensor o = mt::clone(s);
      mt::scatter_(o, dim, idx, src, reduce);
      return o;
    });
    auto n = attach(reduce.empty() ? "ScatterBackward0"
                                   : (reduce == "add" ? "ScatterAddBackward0" : "ScatterReduceBackward0"),
                    [dim, reduce](FnNode& n, V& gs) -> V {
                      MT_CHECK_NOT_IMPLEMENTED(reduce.empty() || reduce == "add",
                                               "the derivative for 'scatter_' with reduce='", reduce,
                                               "' is not implemented.");
                      Tensor i = n.saved(0);
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
                    },
                    {&s, &src}, {&r});
    if (n) n->save(idx);
    return r;
  });
}

// ---- copies ----

const Tensor& copy_(const Tensor& self, const Tensor& src, bool non_blocking) {
  return inplace(self, [&](const Tensor& s) {
    Tensor r = no_grad([&] {
      Tensor o = mt::clone(s);
      mt::copy_(o, src, non_blocking);
      return o;
    });
    attach("CopyBackwards",
           [](FnNode& n, V& gs) -> V {
             return {n.needs_input_grad(0) ? zeros_like(gs[0]) : Tensor(),
                     n.needs_input_grad(1) ? gs[0] : Tensor()};
           },
           {&s, &src}, {&r});
    return r;
  });
}

Tensor clone(const Tensor& self) {
  Tensor out = no_grad([&] { return mt::clone(self); });
  attach("CloneBackward0", [](FnNode&, V& gs) -> V { return {gs[0]}; }, {&self}, {&out});
  return out;
}

Tensor to(const Tensor& self, ScalarType dtype, Device device, bool copy, bool non_blocking) {
  Tensor out = no_grad([&] { return mt::to(self, dtype, device, copy, non_blocking); });
  if (out.is_same(self)) return out;
  // the engine converts the gradient back to the input's dtype and device
  attach("ToCopyBackward0", [](FnNode&, V& gs) -> V { return {gs[0]}; }, {&self}, {&out});
  return out;
}

const Tensor& fill_(const Tensor& self, const Scalar& value) {
  return inplace(self, [&](const Tensor& s) {
    Tensor r = no_grad([&] {
      Tensor o = mt::clone(s);
      mt::fill_(o, value);
      return o;
    });
    attach("FillBackward0", [](FnNode&, V& gs) -> V { return {zeros_like(gs[0])}; }, {&s}, {&r});
    return r;
  });
}

// ---- conv and pooling (helper conv)
// The input gradient of a conv is the transposed conv and the weight gradient its own recorded op, so under
// create_graph the gradients differentiate again (double backward).

namespace {
// The bias gradient of a 4-D NCHW conv: the output gradient summed over batch and space.
Tensor conv_bias_grad(const Tensor& g) {
  return mt::sum(g, {0, 2, 3}, false);
}
}  // namespace

Tensor convolution(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias,
                   const ConvArgs& args) {
  Tensor out = no_grad([&] { return mt::convolution(input, weight, bias, args); });
  const Tensor* b = bias ? &*bias : nullptr;
  auto n = attach(
      "ConvolutionBackward0",
      [args](FnNode& n, V& gs) -> V {
        Tensor x = n.saved(0), w = n.saved(1);
        const Tensor& g = gs[0];
        return {
            n.needs_input_grad(0) ? mt::convolution_transpose(g, w, std::nullopt, args, x.sizes()) : Tensor(),
            n.needs_input_grad(1) ? mt::convolution_backward_weight(g, x, w.sizes(), args) : Tensor(),
            n.needs_input_grad(2) ? conv_bias_grad(g) : Tensor()};
      },
      {&input, &weight, b}, {&out});
  if (n) {
    n->save(input);
    n->save(weight);
  }
  return out;
}

Tensor convolution_transpose(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias,
                             const ConvArgs& args, IntArrayRef out_sizes) {
  Tensor out = no_grad([&] { return mt::convolution_transpose(input, weight, bias, args, out_sizes); });
  const Tensor* b = bias ? &*bias : nullptr;
  // out = A_w^T x where A_w is the conv with weight w: dx = A_w g, dw = the conv weight gradient with input g
  // and output gradient x.
  auto n = attach("ConvolutionBackward0",
                  [args](FnNode& n, V& gs) -> V {
                    Tensor x = n.saved(0), w = n.saved(1);
                    const Tensor& g = gs[0];
                    Tensor gx, gw;
                    if (n.needs_input_grad(0)) gx = mt::convolution(g, w, std::nullopt, args);
                    if (n.needs_input_grad(1)) gw = mt::convolution_backward_weight(x, g, w.sizes(), args);
                    return {gx, gw, n.needs_input_grad(2) ? conv_bias_grad(g) : Tensor()};
                  },
                  {&input, &weight, b}, {&out});
  if (n) {
    n->save(input);
    n->save(weight);
  }
  return out;
}

std::tuple<Tensor, Tensor> max_pool2d_impl(const Tensor& input, const PoolArgs& args, int64_t oh,
                                           int64_t ow) {
  auto r = [&] {
    NoGradGuard g;
    return mt::max_pool2d_impl(input, args, oh, ow);
  }();
  DimVector in_sizes(input.sizes().begin(), input.sizes().end());
  auto n = attach("MaxPool2DWithIndicesBackward0",
                  [args, in_sizes](FnNode& n, V& gs) -> V {
                    return {mt::max_pool2d_backward(gs[0], n.saved(0), args, in_sizes)};
                  },
                  {&input}, {&std::get<0>(r)});
  if (n) n->save(std::get<1>(r));
  return r;
}

Tensor avg_pool2d_impl(const Tensor& input, const PoolArgs& args, int64_t oh, int64_t ow) {
  Tensor out = no_grad([&] { return mt::avg_pool2d_impl(input, args, oh, ow); });
  DimVector in_sizes(input.sizes().begin(), input.sizes().end());
  attach("AvgPool2DBackward0",
         [args, in_sizes](FnNode&, V& gs) -> V { return {mt::avg_pool2d_backward(gs[0], args, in_sizes)}; },
         {&input}, {&out});
  return out;
}

// ---- nn ops (helper normops): linear, batch/layer/group norm, embedding, dropout
// The norms save their input and the statistics the forward computed (mean, rstd); under create_graph the
// statistics are recomputed with recorded ops, so double backward sees their dependence on the input.

namespace {

// Gradient of x through xhat = (x - mean) * rstd normalized over `dims` (biased statistics), given
// gw = the gradient reaching xhat: rstd * (gw - mean(gw) - xhat * mean(gw * xhat)).
Tensor norm_input_grad(const Tensor& gw, const Tensor& xhat, const Tensor& rstd, IntArrayRef dims) {
  Tensor a = mt::mean(gw, dims, true);
  Tensor b = mt::mean(mt::mul(gw, xhat), dims, true);
  return mt::mul(rstd, mt::sub(mt::sub(gw, a), mt::mul(xhat, b)));
}

ScalarType stat_dtype(ScalarType t) {
  return t == ScalarType::Double ? ScalarType::Double : ScalarType::Float;
}

// (mean, rstd) over `dims` (kept), recorded: used only when the backward itself is being differentiated.
std::pair<Tensor, Tensor> recorded_stats(const Tensor& x, IntArrayRef dims, double eps) {
  Tensor xf = mt::to(x, stat_dtype(x.dtype()), x.device());
  return {mt::mean(xf, dims, true), mt::rsqrt(mt::add(mt::var(xf, dims, 0, true), S(eps)))};
}

template <typename F>
auto no_grad_tuple(F&& f) {
  NoGradGuard g;
  return f();
}

DimVector dims_but_1(int64_t nd) {
  DimVector d{0};
  for (int64_t i = 2; i < nd; ++i) d.push_back(i);
  return d;
}

}  // namespace

Tensor linear(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias) {
  Tensor out = no_grad([&] { return mt::linear(input, weight, bias); });
  Tensor b = bias ? *bias : Tensor();
  DimVector in_sizes = input.sizes();
  auto n = attach("LinearBackward0",
                  [in_sizes](FnNode& n, V& gs) -> V {
                    Tensor x = n.saved(0), w = n.saved(1);
                    const Tensor& g = gs[0];
                    int64_t out_f = g.sizes()[g.dim() - 1];
                    int64_t rows = compute_numel(IntArrayRef(g.sizes().data(), size_t(g.dim() - 1)));
                    Tensor g2 = mt::reshape(g, {rows, out_f});
                    V res(3);
                    if (n.needs_input_grad(0)) res[0] = mt::reshape(mt::mm(g2, w), in_sizes);
                    if (n.needs_input_grad(1))
                      res[1] = mt::mm(mt::t(g2), mt::reshape(x, {rows, x.sizes()[x.dim() - 1]}));
                    if (n.needs_input_grad(2)) res[2] = mt::sum(g2, {0}, false);
                    return res;
                  },
                  {&input, &weight, &b}, {&out});
  if (n) {
    n->save(n->needs_input_grad(1) ? input : Tensor());
    n->save(n->needs_input_grad(0) ? weight : Tensor());
  }
  return out;
}

Tensor layer_norm(const Tensor& input, IntArrayRef normalized_shape, const std::optional<Tensor>& weight,
                  const std::optional<Tensor>& bias, double eps) {
  auto [out, mean, rstd] =
      no_grad_tuple([&] { return mt::native_layer_norm(input, normalized_shape, weight, bias, eps); });
  Tensor w = weight ? *weight : Tensor(), b = bias ? *bias : Tensor();
  DimVector ns(normalized_shape.begin(), normalized_shape.end());
  auto n = attach("NativeLayerNormBackward0",
                  [ns, eps](FnNode& n, V& gs) -> V {
                    Tensor x = n.saved(0), w = n.saved(1), mean = n.saved(2), rstd = n.saved(3);
                    const Tensor& g = gs[0];
                    int64_t N = compute_numel(ns);
                    int64_t M = N == 0 ? 0 : x.numel() / N;
                    V res(3);
                    if (M == 0 || N == 0) {
                      if (n.needs_input_grad(0)) res[0] = zeros_like(x);
                      if (n.needs_input_grad(1)) res[1] = zeros(ns, g.dtype(), g.device());
                      if (n.needs_input_grad(2)) res[2] = zeros(ns, g.dtype(), g.device());
                      return res;
                    }
                    if (!GradMode::is_enabled()) {  // not differentiated again: one fused pass
                      auto [dx, dw, db] = mt::native_layer_norm_backward(
                          g, x, mean, rstd, w, M, N, n.needs_input_grad(0),
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
                    if (n.needs_input_grad(1))
                      res[1] = mt::reshape(mt::sum(mt::mul(g2, xhat), {0}, false), ns);
                    if (n.needs_input_grad(2)) res[2] = mt::reshape(mt::sum(g2, {0}, false), ns);
                    return res;
                  },
                  {&input, &w, &b}, {&out});
  if (n) {
    n->save(input);
    n->save(w);
    n->save(mean);
    n->save(rstd);
  }
  return out;
}

Tensor group_norm(const Tensor& input, int64_t num_groups, const std::optional<Tensor>& weight,
                  const std::optional<Tensor>& bias, double eps) {
  auto [out, mean, rstd] =
      no_grad_tuple([&] { return mt::native_group_norm(input, num_groups, weight, bias, eps); });
  Tensor w = weight ? *weight : Tensor(), b = bias ? *bias : Tensor();
  int64_t G = num_groups;
  auto n =
      attach("NativeGroupNormBackward0",
             [G, eps](FnNode& n, V& gs) -> V {
               Tensor x = n.saved(0), w = n.saved(1), mean = n.saved(2), rstd = n.saved(3);
               const Tensor& g = gs[0];
               int64_t N = x.sizes()[0], C = x.sizes()[1];
               DimVector dims = dims_but_1(x.dim());
               V res(3);
               if (x.numel() == 0) {
                 if (n.needs_input_grad(0)) res[0] = zeros_like(x);
                 if (n.needs_input_grad(1)) res[1] = zeros({C}, g.dtype(), g.device());
                 if (n.needs_input_grad(2)) res[2] = zeros({C}, g.dtype(), g.device());
                 return res;
               }
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
             },
             {&input, &w, &b}, {&out});
  if (n) {
    n->save(input);
    n->save(w);
    n->save(mean);
    n->save(rstd);
  }
  return out;
}

Tensor batch_norm(const Tensor& input, const std::optional<Tensor>& weight, const std::optional<Tensor>& bias,
                  const std::optional<Tensor>& running_mean, const std::optional<Tensor>& running_var,
                  bool training, double momentum, double eps) {
  auto [out, mean, rstd] = no_grad_tuple([&] {
    return mt::native_batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps);
  });
  Tensor w = weight ? *weight : Tensor(), b = bias ? *bias : Tensor();
  auto n = attach("NativeBatchNormBackward0",
                  [training, eps](FnNode& n, V& gs) -> V {
                    Tensor x = n.saved(0), w = n.saved(1), mean = n.saved(2), rstd = n.saved(3);
                    const Tensor& g = gs[0];
                    int64_t C = x.sizes()[1];
                    DimVector dims = dims_but_1(x.dim());
                    V res(3);
                    if (x.numel() == 0) {
                      if (n.needs_input_grad(0)) res[0] = zeros_like(x);
                      if (n.needs_input_grad(1)) res[1] = zeros({C}, g.dtype(), g.device());
                      if (n.needs_input_grad(2)) res[2] = zeros({C}, g.dtype(), g.device());
                      return res;
                    }
                    if (!GradMode::is_enabled()) {  // not differentiated again: fused passes
                      auto [dx, dw, db] = mt::native_batch_norm_backward(
                          g, x, mean, rstd, w, training, n.needs_input_grad(0),
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
                    if (n.needs_input_grad(1))
                      res[1] = mt::reshape(mt::sum(mt::mul(g, xhat), dims, false), w.sizes());
                    if (n.needs_input_grad(2)) res[2] = mt::sum(g, dims, false);
                    return res;
                  },
                  {&input, &w, &b}, {&out});
  if (n) {
    n->save(input);
    n->save(w);
    n->save(mean);
    n->save(rstd);
  }
  return out;
}

Tensor embedding(const Tensor& weight, const Tensor& indices, int64_t padding_idx, bool scale_grad_by_freq,
                 bool sparse) {
  (void)sparse;  // the gradient is always dense (no sparse tensors here)
  Tensor out = no_grad([&] { return mt::embedding_forward(weight, indices); });
  int64_t num = weight.sizes()[0];
  auto n = attach("EmbeddingBackward0",
                  [num, padding_idx, scale_grad_by_freq](FnNode& n, V& gs) -> V {
                    return {mt::embedding_backward(gs[0], n.saved(0), num, padding_idx, scale_grad_by_freq)};
                  },
                  {&weight}, {&out});
  if (n) n->save(indices);
  return out;
}

Tensor dropout(const Tensor& input, double p) {
  auto [out, mask] = no_grad_tuple([&] { return mt::native_dropout(input, p); });
  double scale = 1.0 / (1.0 - p);
  auto n = attach("NativeDropoutBackward0",
                  [scale](FnNode& n, V& gs) -> V { return {mt::mul(mt::mul(gs[0], n.saved(0)), S(scale))}; },
                  {&input}, {&out});
  if (n) n->save(mask);
  return out;
}

// Scaled dot-product attention (helper attn): the fused forward saves q, k, v and the row log-sum-exps; the
// backward recomputes the probabilities in ops (one score GEMM, softmax), so it runs on every device and
// differentiates again. Fully masked rows (lse -inf) have zero probabilities and get zero gradients.
Tensor sdpa(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& mask, bool is_causal,
            double scale) {
  auto [out, lse] = no_grad_tuple([&] { return mt::sdpa_forward(q, k, v, mask, is_causal, scale); });
  auto n = attach(
      "ScaledDotProductAttentionBackward0",
      [is_causal, scale](FnNode& n, V& gs) -> V {
        Tensor q = n.saved(0), k = n.saved(1), v = n.saved(2), mask = n.saved(3), lse = n.saved(4);
        const Tensor& g = gs[0];
        if (!GradMode::is_enabled() && mt::has_fused_sdpa_backward(q)) {  // not differentiated again
          auto [dq, dk, dv] = mt::sdpa_backward(g, q, k, v, n.saved(5), lse, mask, is_causal, scale);
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
      },
      {&q, &k, &v}, {&out});
  if (n) {
    n->save(q);
    n->save(k);
    n->save(v);
    n->save(mask);
    n->save(lse);
    n->save(out, true);
  }
  return out;
}

}  // namespace mt::autograd

// ---- loss (helper loss)
namespace mt::autograd {

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

Tensor class_loss(const Tensor& input, const Tensor& target, const Tensor& weight,
                  const ClassLossOptions& opt) {
  Tensor out, stats, total_weight;
  {
    NoGradGuard g;
    std::tie(out, stats, total_weight) = mt::class_loss_forward(input, target, weight, opt, true);
  }
  const char* name = opt.kind == ClassLossKind::nll ? "NllLossBackward0" : "CrossEntropyLossBackward0";
  auto n = attach(
      name,
      [opt](FnNode& n, V& gs) -> V {
        Tensor x = n.saved(0), t = n.saved(1), w = n.saved(2), st = n.saved(3), tw = n.saved(4);
        // create_graph: the gradient itself must record, so it is built from ops
        if (GradMode::is_enabled() && (gs[0].requires_grad() || x.requires_grad() || t.requires_grad()))
          return class_loss_grad_composite(gs[0], x, t, w, tw, opt, n.needs_input_grad(0),
                                           n.needs_input_grad(1));
        auto [gi, gt] = mt::class_loss_backward(gs[0], x, t, w, st, tw, opt, n.needs_input_grad(0),
                                                n.needs_input_grad(1));
        return {gi, gt};
      },
      {&input, &target}, {&out});
  if (n) {
    n->save(input);
    n->save(target);
    n->save(weight);
    n->save(stats);
    n->save(total_weight);
  }
  return out;
}

Tensor mse_loss(const Tensor& input, const Tensor& target, Reduction reduction) {
  Tensor out = no_grad([&] { return mt::mse_loss(input, target, reduction); });
  auto n =
      attach("MseLossBackward0",
             [reduction](FnNode& n, V& gs) -> V {
               Tensor x = n.saved(0), t = n.saved(1);
               Tensor d = mt::sub(x, t);
               Tensor g = gs[0];
               if (reduction == Reduction::None) g = mt::mul(g, S(2.0));
               if (reduction == Reduction::Sum) g = mt::mul(g, S(2.0));
               if (reduction == Reduction::Mean) g = mt::mul(g, S(2.0 / static_cast<double>(d.numel())));
               // the engine sums each gradient back to its input's (broadcast) shape
               Tensor gx = mt::mul(d, g);
               return {n.needs_input_grad(0) ? gx : Tensor(), n.needs_input_grad(1) ? mt::neg(gx) : Tensor()};
             },
             {&input, &target}, {&out});
  if (n) {
    n->save(input);
    n->save(target);
  }
  return out;
}

// PyTorch's formulas: d/dx = w (x - t) / max(x (1 - x), 1e-12), d/dt = w (log(1 - x) - log x), logs clamped
// at -100 as in the forward; finite where x is exactly 0 or 1 (a saturated sigmoid).
Tensor binary_cross_entropy(const Tensor& input, const Tensor& target, const Tensor& weight,
                            Reduction reduction) {
  Tensor out = no_grad([&] {
    return mt::binary_cross_entropy(
        input, target, weight.defined() ? std::optional<Tensor>(weight) : std::nullopt, reduction);
  });
  auto n = attach("BinaryCrossEntropyBackward0",
                  [reduction](FnNode& n, V& gs) -> V {
                    Tensor x = n.saved(0), t = n.saved(1), w = n.saved(2);
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
                  },
                  {&input, &target, &weight}, {&out});
  if (n) {
    n->save(input);
    n->save(target);
    n->save(weight);
  }
  return out;
}

// bw(g, x) is bilinear: <bw(g, x), G> = <g, conv(x, G)> = <x, conv_transpose(g, G)>.
Tensor convolution_backward_weight(const Tensor& grad_out, const Tensor& input, IntArrayRef weight_sizes,
                                   const ConvArgs& args) {
  Tensor out = no_grad([&] { return mt::convolution_backward_weight(grad_out, input, weight_sizes, args); });
  auto n =
      attach("ConvolutionBackwardWeightBackward0",
             [args](FnNode& n, V& gs) -> V {
               Tensor g = n.saved(0), x = n.saved(1);
               const Tensor& G = gs[0];
               return {n.needs_input_grad(0) ? mt::convolution(x, G, std::nullopt, args) : Tensor(),
                       n.needs_input_grad(1) ? mt::convolution_transpose(g, G, std::nullopt, args, x.sizes())
                                             : Tensor()};
             },
             {&grad_out, &input}, {&out});
  if (n) {
    n->save(grad_out);
    n->save(input);
  }
  return out;
}

// avg pooling's gradient is linear in the output gradient; its adjoint is the pooling itself.
Tensor avg_pool2d_backward(const Tensor& grad_out, const PoolArgs& args, IntArrayRef input_sizes) {
  Tensor out = no_grad([&] { return mt::avg_pool2d_backward(grad_out, args, input_sizes); });
  int64_t oh = grad_out.sizes()[2], ow = grad_out.sizes()[3];
  attach("AvgPool2DBackwardBackward0",
         [args, oh, ow](FnNode&, V& gs) -> V { return {mt::avg_pool2d_impl(gs[0], args, oh, ow)}; },
         {&grad_out}, {&out});
  return out;
}

// max pooling's gradient is linear in the output gradient; its adjoint gathers at the saved indices.
Tensor max_pool2d_backward(const Tensor& grad_out, const Tensor& indices, const PoolArgs& args,
                           IntArrayRef input_sizes) {
  Tensor out = no_grad([&] { return mt::max_pool2d_backward(grad_out, indices, args, input_sizes); });
  auto n =
      attach("MaxPool2DWithIndicesBackwardBackward0",
             [](FnNode& n, V& gs) -> V {
               Tensor idx = n.saved(0);
               int64_t planes = idx.sizes()[0] * idx.sizes()[1];
               Tensor g = mt::gather(mt::reshape(gs[0], {planes, -1}), 1, mt::reshape(idx, {planes, -1}));
               return {mt::view(g, idx.sizes())};
             },
             {&grad_out}, {&out});
  if (n) n->save(indices);
  return out;
}

}  // namespace mt::autograd

// ---- upsampling (helper api14): linear in its input, so the gradient is the adjoint scatter and the
// gradient's gradient is the upsampling again.
namespace mt::autograd {
namespace {
const char* upsample_node_name(const UpsampleArgs& a, bool backward) {
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
}  // namespace

Tensor upsample_impl(const Tensor& input, const UpsampleArgs& args) {
  Tensor out = no_grad([&] { return mt::upsample_impl(input, args); });
  DimVector in_sizes(input.sizes().begin(), input.sizes().end());
  attach(upsample_node_name(args, false),
         [args, in_sizes](FnNode&, V& gs) -> V { return {mt::upsample_backward(gs[0], args, in_sizes)}; },
         {&input}, {&out});
  return out;
}

Tensor upsample_backward(const Tensor& grad_out, const UpsampleArgs& args, IntArrayRef input_sizes) {
  Tensor out = no_grad([&] { return mt::upsample_backward(grad_out, args, input_sizes); });
  attach(upsample_node_name(args, true),
         [args](FnNode&, V& gs) -> V { return {mt::upsample_impl(gs[0], args)}; }, {&grad_out}, {&out});
  return out;
}

}  // namespace mt::autograd
