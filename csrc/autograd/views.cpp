// Views and in-place writes under autograd: a view remembers its base and how to remake it, an in-place
// write takes over the result's history (through CopySlices when it goes through a view), and the recording
// twins of the view ops.
#include <mutex>
#include <string>

#include "autograd/Node.h"
#include "autograd/derivatives.h"
#include "autograd/record.h"
#include "generated/native.h"
#include "ops/ops.h"

namespace mt::autograd {

namespace {

using V = variable_list;

// Gradient of a view op that cannot be inverted by another view: zeros of the base, with the gradient
// written through the same view.
// `overlapping`: the view may reach an element more than once (as_strided), so the gradient accumulates.
template <typename F>
Tensor view_scatter(const Tensor& g, const TensorGeometry& base, F&& vf, bool overlapping = false) {
  const bool record = GradMode::is_enabled() && g.requires_grad();
  if (!overlapping && is_complex(base.dtype) != is_complex(g.dtype())) {
    // a view that reads the base's bytes as another dtype (view_as_real, .real, .imag of a complex base):
    // zeros of the base's dtype, which the view of element positions below cannot follow; under
    // create_graph the copy through the view records itself (CopySlices), so it differentiates again
    Tensor z = zeros(base.sizes, base.dtype, g.device());
    AutoGradMode mode(record);
    mt::copy_(vf(z), g);
    return z;
  }
  if (overlapping || record) {
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
  if (m && m->view_fn) return m->view_fn;
  const TensorImpl& base = *view.impl()->view_base();
  MT_CHECK_NOT_IMPLEMENTED(base.is_contiguous(),
                           "in-place modification of an as_strided view of a non-contiguous tensor under "
                           "autograd is not supported; use an out-of-place op (or clone() the view first)");
  DimVector sz = view.sizes(), st = view.strides();
  int64_t off = view.storage_offset() - base.storage_offset();
  return [sz, st, off](const Tensor& b) { return mt::as_strided(b, sz, st, b.storage_offset() + off); };
}

// Whether a view's base requires grad (Tensor::requires_grad of the base).
bool base_requires_grad(const Tensor& view) {
  for (const TensorImpl* t = view.impl()->view_base().get(); t; t = t->view_base().get())
    if (auto* m = t->autograd_meta(); m && m->requires_grad) return true;
  return false;
}

// The history of a view as a function of its base's current history (the gradient is written through the
// view into zeros shaped like the base).
void set_view_history(const Tensor& view, const ViewFn& vf) {
  Tensor base = view.view_base();
  TensorGeometry bg = geometry_of(base);
  auto node = std::make_shared<FnNode>(
      "AsStridedBackward0", [vf, bg](FnNode&, V& gs) -> V { return {view_scatter(gs[0], bg, vf)}; });
  set_history(node, {&base}, {&view});
  view.impl()->set_view_version(view.version());
}

// An in-place write through a recorded view: the base's history becomes CopySlices (the old base outside
// the view, the new values inside it), and the view becomes a view of that new base.
void rebase_view(const Tensor& self, const Tensor& r) {
  Tensor base = self.view_base();
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

// PyTorch's refusal (handle_view_on_rebase) of an in-place write through a view made under no_grad or
// inference mode or by a multi-output op (`indirect`: its base or another view of it was written, found when
// its history is read), in PyTorch's words, naming the node by its op (SplitWithSizesBackward0:
// SplitWithSizes).
[[noreturn]] void refuse_inplace_view(const Tensor& view, bool indirect) {
  const std::string modified = indirect ? "its base or another view of its base has been" : "is being";
  const CreationMeta creation = view.impl()->creation_meta();
  const AutogradMeta* am = view.impl()->autograd_meta();
  std::shared_ptr<Node> grad_fn = am ? am->grad_fn : nullptr;
  const uint32_t output_nr = am ? am->output_nr : 0;
  std::string node;
  if (grad_fn) {
    node = grad_fn->name();
    size_t k = node.rfind("Backward");
    if (k != std::string::npos && node.find_first_not_of("0123456789", k + 8) == std::string::npos)
      node.resize(k);
  }
  std::string msg;
  if (creation == CreationMeta::InferenceMode || creation == CreationMeta::NoGradMode || !grad_fn) {
    std::string prefix =
        grad_fn ? str("Output ", output_nr, " of ", node, " is a view of a view which was created in")
                : std::string("A view was created in");
    msg = creation == CreationMeta::InferenceMode
              ? str(prefix, " inference mode and ", modified, " modified inplace in normal mode.")
              : str(prefix, " no_grad mode and ", modified, " modified inplace with grad mode enabled.");
  } else {
    msg = str("Output ", output_nr, " of ", node, " is a view and ", modified, " modified inplace.");
  }
  const char* mode = creation == CreationMeta::InferenceMode ? "inference_mode" : "no_grad";
  if (creation == CreationMeta::MultiOutputNode)
    msg +=
        " This view is the output of a function that returns multiple views. Such functions do not allow "
        "the output views to be modified inplace. You should replace the inplace operation by an "
        "out-of-place one.";
  else
    msg +=
        str(" Given that this use case is ambiguous and error-prone, it is forbidden. You can clarify your "
            "code by moving both the view and the inplace either both inside the ",
            mode,
            " block (if you don't want the inplace to be tracked) or both outside (if you want the inplace "
            "to be tracked).");
  MT_ERROR(msg);
}

}  // namespace

Tensor replay_view_on(const Tensor& view, const Tensor& t) {
  MT_INTERNAL_ASSERT(view.is_view(), "replay_view_on: not a tracked view");
  auto* m = view.impl()->autograd_meta();
  if (m && m->view_fn) return m->view_fn(t);
  int64_t off = view.storage_offset() - view.impl()->view_base()->storage_offset();
  return mt::as_strided(t, view.sizes(), view.strides(), t.storage_offset() + off);
}

void take_history(const Tensor& self, const Tensor& r) {
  if (self.is_view()) {
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
  TensorImpl* vi = view.impl();
  auto has_fn = [vi] {
    auto* m = vi->autograd_meta();
    return m && m->grad_fn;
  };
  if (vi->creation_meta() != CreationMeta::Default) {
    // PyTorch never remakes these (the history would be ambiguous): once their storage was written in place
    // while the base requires grad, reading their history is refused
    if ((!has_fn() && !base_requires_grad(view)) || view.version() == vi->view_version()) return;
    refuse_inplace_view(view, /*indirect=*/true);
  }
  if ((has_fn() && view.version() == vi->view_version()) || !base_requires_grad(view)) return;
  // Big ops run without the GIL, so two threads may find one stale view at once: it is remade once.
  static std::mutex remake;
  std::lock_guard<std::mutex> lock(remake);
  if (has_fn() && view.version() == vi->view_version()) return;
  set_view_history(view, view_replay(view));
}

void check_inplace(const Tensor& self, bool requires_grad) {
  if (!requires_grad || !GradMode::is_enabled()) return;
  if (self.is_view()) {
    if (self.impl()->creation_meta() != CreationMeta::Default) refuse_inplace_view(self, /*indirect=*/false);
    if (!self.requires_grad()) return;
    auto* bm = self.impl()->view_base()->autograd_meta();
    MT_CHECK(bm && bm->grad_fn,
             "a view of a leaf Variable that requires grad is being used in an in-place operation.");
    return;
  }
  auto* m = self.impl()->autograd_meta();
  if (!m) return;
  MT_CHECK(!m->requires_grad || m->grad_fn,
           "a leaf Variable that requires grad is being used in an in-place operation.");
}

// The generic in-place path under grad (an input requires grad: the entry points call it only then): the
// result is computed out of place (recorded, from a clone so the saved input keeps its version), written into
// self (a result of a dtype self cannot hold refused, as PyTorch's TensorIterator does), and self takes over
// the result's history.
const Tensor& inplace(const Tensor& self, const std::function<Tensor(const Tensor&)>& fn) {
  check_inplace(self, /*requires_grad=*/true);
  Tensor r = fn(mt::clone(self));
  // the out-of-place result's dtype, as the no-grad kernels' check (int.clamp_(float bound requiring grad))
  MT_CHECK(can_cast(r.dtype(), self.dtype()), "result type ", dtype_short_name(r.dtype()),
           " can't be cast to the desired output type ", dtype_short_name(self.dtype()));
  {
    NoGradGuard g;
    mt::copy_(self, r);
  }
  take_history(self, r);
  return self;
}

Tensor& overwrite(const char* node, Tensor& self, std::vector<const Tensor*> others,
                  const std::function<void()>& write) {
  check_inplace(self, /*requires_grad=*/true);
  // The node's stand-in output over self's memory: its edges are the inputs' histories from before the write,
  // and self (or its base, through CopySlices) takes its history afterwards. No draw is made twice, no clone.
  Tensor r(std::make_shared<TensorImpl>(self.storage(), self.sizes(), self.strides(), self.storage_offset(),
                                        self.dtype()));
  std::vector<TensorGeometry> geo;
  for (const Tensor* t : others) geo.push_back(geometry_of(*t));
  std::vector<const Tensor*> ins{&self};
  ins.insert(ins.end(), others.begin(), others.end());
  record(node, std::move(ins), {&r}, {}, [geo](FnNode& n, V& gs) -> V {
    V res(1 + geo.size());
    if (n.needs_input_grad(0)) res[0] = mt::zeros(gs[0].sizes(), gs[0].dtype(), gs[0].device());
    for (size_t i = 0; i < geo.size(); ++i)
      if (n.needs_input_grad(i + 1)) res[i + 1] = mt::zeros(geo[i].sizes, geo[i].dtype, geo[i].device);
    return res;
  });
  {
    NoGradGuard g;
    write();
  }
  take_history(self, r);
  return self;
}

const Tensor& inplace_view(const Tensor& self, const ViewFn& view, bool replayable) {
  check_inplace(self);
  const bool tracked = track_view(self);  // the entry point below records r with a replay of its own
  Tensor r = view(self);                  // a view of self's root base
  self.impl()->set_sizes_strides(r.sizes(), r.strides(), r.storage_offset());
  self.bump_version();
  auto* rm = r.impl()->autograd_meta();
  if (self.is_view()) {
    if (tracked && r.is_view()) {
      if (rm || self.impl()->autograd_meta()) {
        auto& sm = self.impl()->ensure_autograd_meta();
        sm.view_fn = rm ? rm->view_fn : nullptr;
        sm.grad_fn = rm ? rm->grad_fn : nullptr;
        sm.output_nr = rm ? rm->output_nr : 0;
      }
    } else {
      // not recorded (no_grad, an integer tensor): the replay still has to remake the new geometry from the
      // base
      if (auto* sm = self.impl()->autograd_meta())
        sm->view_fn = sm->view_fn && replayable
                          ? ViewFn([prev = sm->view_fn, view](const Tensor& b) { return view(prev(b)); })
                          : nullptr;
      return self;  // the bumped version leaves its history stale: remade from the base's when next read
    }
    self.impl()->set_view_version(self.version());
  } else if (rm && rm->grad_fn) {
    // r is a view of self itself; self, not a view, only takes its node (never a base link to itself)
    auto& sm = self.impl()->ensure_autograd_meta();
    sm.grad_fn = rm->grad_fn;
    sm.output_nr = rm->output_nr;
  }
  return self;
}

// ---- set_ ----

namespace {
// self after set_ no longer lies in its base's memory: it stops being a view, so that no later read remakes
// its history from the base's
void unview(const Tensor& self) {
  if (!self.is_view()) return;
  self.impl()->set_view_base(nullptr, CreationMeta::Default);
  if (auto* m = self.impl()->autograd_meta()) m->view_fn = nullptr;
}

// Runs `set` on self, or, when the call is recorded, on a stand-in over self's memory first: the node's input
// edge is self's history from before the call.
const Tensor& recorded_set(const Tensor& self, const Tensor* source,
                           const std::function<void(const Tensor&)>& set) {
  const bool grad = GradMode::is_enabled() && (self.requires_grad() || (source && source->requires_grad()));
  if (!grad) {
    set(self);
    unview(self);
    return self;
  }
  check_inplace(self, /*requires_grad=*/true);
  Tensor out(std::make_shared<TensorImpl>(self.storage(), self.sizes(), self.strides(), self.storage_offset(),
                                          self.dtype()));
  set(out);
  auto node = attach("NotImplemented",
                     [](FnNode&, V&) -> V {
                       MT_ERROR("derivative for set_ is not implemented");
                       return {};
                     },
                     {&self, source}, {&out});
  self.impl()->set_data(*out.impl());
  unview(self);
  if (node) {
    auto& m = self.impl()->ensure_autograd_meta();
    m.requires_grad = true;
    m.grad_fn = node;
    m.output_nr = 0;
  }
  return self;
}
}  // namespace

const Tensor& set_(const Tensor& self) {
  return recorded_set(self, nullptr, [](const Tensor& t) { set_empty_(t); });
}

const Tensor& set_(const Tensor& self, const Tensor& source) {
  check_set_source(self, source, /*with_geometry=*/false);
  const IntArrayRef strides(source.strides());
  return recorded_set(self, &source, [&](const Tensor& t) {
    set_storage_(t, source.storage(), source.storage_offset(), source.sizes(), &strides);
  });
}

const Tensor& set_(const Tensor& self, const Tensor& source, int64_t offset, IntArrayRef sizes,
                   const IntArrayRef* strides) {
  check_set_source(self, source, /*with_geometry=*/true);
  // the source stands for its storage: not differentiable, as PyTorch's composite passes source.storage() on
  return recorded_set(self, nullptr, [&](const Tensor& t) {
    set_storage_(t, source.storage(), source.storage_offset() + offset, sizes, strides);
  });
}

const Tensor& set_(const Tensor& self, const Storage& storage, int64_t offset, IntArrayRef sizes,
                   const IntArrayRef* strides) {
  return recorded_set(self, nullptr,
                      [&](const Tensor& t) { set_storage_(t, storage, offset, sizes, strides); });
}

// ---- view ops ----
// Their twins run the plain ops (mt::native, below the entry points, which would mark the result a view once
// more) and mark the result themselves.

namespace {
// Marks `out` a view of self's root base, made now (`multi`: one of the outputs of a multi-output view op);
// false when it is no view in PyTorch's sense: a view of an inference tensor, or an op that handed back self
// itself or a copy (reshape). Only TensorImpl's fields: a view nothing records allocates no AutogradMeta.
bool mark_base(const Tensor& self, const Tensor& out, bool multi) {
  if (out.impl() == self.impl() || out.storage() != self.storage() || self.is_inference()) return false;
  CreationMeta c = tls_inference_mode        ? CreationMeta::InferenceMode
                   : !GradMode::is_enabled() ? CreationMeta::NoGradMode
                   : multi                   ? CreationMeta::MultiOutputNode
                                             : CreationMeta::Default;
  TensorImpl* si = self.impl();
  TensorImpl* oi = out.impl();
  if (si->is_view()) {
    // PyTorch's propagate_creation_meta: a view of a view made under no_grad (or of a split's output) is
    // refused in place as its parent is; inference mode wins over the rest
    if (c == CreationMeta::Default || si->creation_meta() == CreationMeta::InferenceMode)
      c = si->creation_meta();
    oi->set_view_base(si->view_base(), c);
  } else {
    oi->set_view_base(self.ptr(), c);
  }
  oi->set_view_version(out.version());
  return true;
}

// Every view made in grad mode of a floating tensor knows its root base and how to remake it from a tensor
// shaped like the base, whether or not anything requires grad yet: an in-place write through the view then
// gives the base its history (CopySlices), and the view's own history can be remade when the base changes.
Tensor mark_view(const Tensor& self, const Tensor& out, ViewFn fn, bool multi = false) {
  if (!mark_base(self, out, multi)) return out;
  if (self.is_view()) {
    auto* sm = self.impl()->autograd_meta();
    fn = sm && sm->view_fn && fn ? ViewFn([prev = sm->view_fn, fn](const Tensor& b) { return fn(prev(b)); })
                                 : nullptr;
  }
  // no replay (as_strided, or a view of a view that has none): its geometry replays it, and no metadata is
  // needed for that
  if (fn) out.impl()->ensure_autograd_meta().view_fn = std::move(fn);
  return out;
}

}  // namespace

void unview_temporary(const Tensor& out) {
  // only this handle holds the result, and only the result holds its base: a temporary of the op
  if (out.ptr().use_count() != 1 || out.impl()->view_base().use_count() != 1) return;
  out.impl()->set_view_base(nullptr, CreationMeta::Default);
  if (auto* m = out.impl()->autograd_meta()) m->view_fn = nullptr;
}

Tensor mark_plain_view(const Tensor& self, Tensor out) {
  mark_base(self, out, /*multi=*/false);
  return out;
}

std::vector<Tensor> mark_plain_view(const Tensor& self, std::vector<Tensor> outs) {
  for (const Tensor& o : outs) mark_base(self, o, /*multi=*/true);
  return outs;
}

namespace {
// The node of a view op, only when its input requires grad (views are tracked without one, see mark_view).
std::shared_ptr<FnNode> attach_view(const char* name, FnNode::Fn fn, const Tensor& self, const Tensor& out) {
  if (!self.requires_grad()) return nullptr;
  return attach(name, std::move(fn), {&self}, {&out});
}
}  // namespace

Tensor as_strided(const Tensor& self, IntArrayRef sizes, IntArrayRef strides, int64_t offset) {
  Tensor out = no_grad([&] { return mt::native::as_strided(self, sizes, strides, offset); });
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

// The complex <-> [..., 2] real views: each one's gradient is the other view of the incoming gradient.
Tensor view_as_real(const Tensor& self) {
  Tensor out = no_grad([&] { return mt::native::view_as_real(self); });
  attach_view(
      "ViewAsRealBackward0", [](FnNode&, V& gs) -> V { return {mt::view_as_complex(mt::contiguous(gs[0]))}; },
      self, out);
  return mark_view(self, out, [](const Tensor& b) { return mt::view_as_real(b); });
}

Tensor view_as_complex(const Tensor& self) {
  Tensor out = no_grad([&] { return mt::native::view_as_complex(self); });
  attach_view(
      "ViewAsComplexBackward0", [](FnNode&, V& gs) -> V { return {mt::view_as_real(gs[0])}; }, self, out);
  return mark_view(self, out, [](const Tensor& b) { return mt::view_as_complex(b); });
}

Tensor alias(const Tensor& self) {
  Tensor out = no_grad([&] { return mt::native::alias(self); });
  attach_view("AliasBackward0", [](FnNode&, V& gs) -> V { return {gs[0]}; }, self, out);
  return mark_view(self, out, [](const Tensor& b) { return mt::alias(b); });
}

namespace {
// A view that only changes the shape (view, reshape, squeeze, unsqueeze): the gradient is reshaped back, and
// the view replays as `replay`, by default view() to the output's sizes. `aliases` false: reshape had to
// copy.
Tensor shape_view(const char* name, const Tensor& self, const Tensor& out, ViewFn replay = nullptr,
                  bool aliases = true) {
  DimVector in = self.sizes();
  attach_view(name, [in](FnNode&, V& gs) -> V { return {mt::reshape(gs[0], in)}; }, self, out);
  if (!aliases) return out;
  if (!replay) replay = [s = DimVector(out.sizes())](const Tensor& b) { return mt::view(b, s); };
  return mark_view(self, out, std::move(replay));
}
}  // namespace

Tensor view(const Tensor& self, IntArrayRef sizes) {
  return shape_view("ViewBackward0", self, no_grad([&] { return mt::native::view(self, sizes); }));
}

Tensor reshape(const Tensor& self, IntArrayRef sizes) {
  Tensor out = no_grad([&] { return mt::native::reshape(self, sizes); });
  return shape_view("ViewBackward0", self, out, nullptr, out.storage() == self.storage());
}

Tensor permute(const Tensor& self, IntArrayRef dims) {
  Tensor out = no_grad([&] { return mt::native::permute(self, dims); });
  DimVector inv(dims.size());
  for (size_t i = 0; i < dims.size(); ++i) inv[wrap_dim(dims[i], self.dim())] = static_cast<int64_t>(i);
  attach_view(
      "PermuteBackward0", [inv](FnNode&, V& gs) -> V { return {mt::permute(gs[0], inv)}; }, self, out);
  return mark_view(self, out,
                   [d = DimVector(dims.begin(), dims.end())](const Tensor& b) { return mt::permute(b, d); });
}

Tensor transpose(const Tensor& self, int64_t d0, int64_t d1) {
  Tensor out = no_grad([&] { return mt::native::transpose(self, d0, d1); });
  attach_view(
      "TransposeBackward0", [d0, d1](FnNode&, V& gs) -> V { return {mt::transpose(gs[0], d0, d1)}; }, self,
      out);
  return mark_view(self, out, [d0, d1](const Tensor& b) { return mt::transpose(b, d0, d1); });
}

Tensor squeeze(const Tensor& self) {
  return shape_view("SqueezeBackward0", self, no_grad([&] { return mt::native::squeeze(self); }));
}

Tensor squeeze(const Tensor& self, IntArrayRef dims) {
  return shape_view("SqueezeBackward1", self, no_grad([&] { return mt::native::squeeze(self, dims); }));
}

Tensor unsqueeze(const Tensor& self, int64_t dim) {
  return shape_view("UnsqueezeBackward0", self, no_grad([&] { return mt::native::unsqueeze(self, dim); }),
                    [dim](const Tensor& b) { return mt::unsqueeze(b, dim); });
}

Tensor expand(const Tensor& self, IntArrayRef sizes) {
  Tensor out = no_grad([&] { return mt::native::expand(self, sizes); });
  // the engine sums a broadcast gradient back to the input's shape
  attach_view("ExpandBackward0", [](FnNode&, V& gs) -> V { return {gs[0]}; }, self, out);
  return mark_view(self, out, [s = DimVector(out.sizes())](const Tensor& b) { return mt::expand(b, s); });
}

Tensor select(const Tensor& self, int64_t dim, int64_t index) {
  Tensor out = no_grad([&] { return mt::native::select(self, dim, index); });
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
  Tensor out = no_grad([&] { return mt::native::slice(self, dim, start, end, step); });
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

// split / chunk: one node for all the parts, whose backward concatenates their gradients (zeros for a part
// that got none), as PyTorch's SplitWithSizesBackward0. A slice node per part made each part's gradient a
// zero tensor the size of the whole, then added them all: an LSTM's chunk of its gates into four spent more
// in those than in the cell itself. Each part is still a view of self that knows how to remake itself.
std::vector<Tensor> split_with_sizes(const Tensor& self, IntArrayRef sizes, int64_t dim) {
  std::vector<Tensor> outs = no_grad([&] { return mt::native::split_with_sizes(self, sizes, dim); });
  dim = wrap_dim(dim, self.dim());
  if (self.requires_grad()) {
    std::vector<const Tensor*> po;
    for (const Tensor& o : outs) po.push_back(&o);
    DimVector in_sizes = self.sizes();
    ScalarType dt = self.dtype();
    Device dev = self.device();
    attach(
        "SplitWithSizesBackward0",
        [in_sizes, dt, dev, dim, parts = DimVector(sizes.begin(), sizes.end())](FnNode&, V& gs) -> V {
          std::vector<Tensor> pieces;
          for (size_t i = 0; i < parts.size(); ++i) {
            if (i < gs.size() && gs[i].defined()) {
              pieces.push_back(gs[i]);
            } else {
              DimVector sz = in_sizes;
              sz[dim] = parts[i];
              pieces.push_back(zeros(sz, dt, dev));
            }
          }
          return {mt::cat(pieces, dim)};
        },
        {&self}, po);
  }
  int64_t start = 0;
  for (size_t i = 0; i < outs.size(); ++i) {
    const int64_t end = start + sizes[i];
    mark_view(
        self, outs[i], [dim, start, end](const Tensor& b) { return mt::slice(b, dim, start, end, 1); }, true);
    start = end;
  }
  return outs;
}

// unbind: one node, whose backward stacks the parts' gradients (zeros for a part that got none), as
// PyTorch's UnbindBackward0; each part a view that remakes itself by select.
std::vector<Tensor> unbind(const Tensor& self, int64_t dim) {
  std::vector<Tensor> outs = no_grad([&] { return mt::native::unbind(self, dim); });
  dim = wrap_dim(dim, self.dim());
  if (self.requires_grad() && !outs.empty()) {
    std::vector<const Tensor*> po;
    for (const Tensor& o : outs) po.push_back(&o);
    DimVector part = outs[0].sizes();
    ScalarType dt = self.dtype();
    Device dev = self.device();
    attach(
        "UnbindBackward0",
        [part, dt, dev, dim, n = outs.size()](FnNode&, V& gs) -> V {
          std::vector<Tensor> pieces;
          for (size_t i = 0; i < n; ++i)
            pieces.push_back(i < gs.size() && gs[i].defined() ? gs[i] : zeros(part, dt, dev));
          return {mt::stack(pieces, dim)};
        },
        {&self}, po);
  }
  for (size_t i = 0; i < outs.size(); ++i) {
    const auto k = static_cast<int64_t>(i);
    mark_view(self, outs[i], [dim, k](const Tensor& b) { return mt::select(b, dim, k); }, true);
  }
  return outs;
}

Tensor diagonal(const Tensor& self, int64_t offset, int64_t d1, int64_t d2) {
  Tensor out = no_grad([&] { return mt::native::diagonal(self, offset, d1, d2); });
  TensorGeometry base = geometry_of(self);
  attach_view(
      "DiagonalBackward0",
      [base, offset, d1, d2](FnNode&, V& gs) -> V {
        return {view_scatter(gs[0], base, [&](const Tensor& z) { return mt::diagonal(z, offset, d1, d2); })};
      },
      self, out);
  return mark_view(self, out, [offset, d1, d2](const Tensor& b) { return mt::diagonal(b, offset, d1, d2); });
}

}  // namespace mt::autograd
