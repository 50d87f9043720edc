// The backward engine (dependency counting + ready queue) and the graph plumbing: saved variables, edges,
// history of recorded outputs, AccumulateGrad.
#include <atomic>
#include <deque>
#include <mutex>
#include <tuple>
#include <unordered_map>
#include <unordered_set>

#include "autograd/AnomalyMode.h"
#include "autograd/Node.h"
#include "autograd/engine_dual.h"
#include "core/TypeMeta.h"
#include "ops/autocast.h"
#include "ops/layout.h"
#include "ops/ops.h"

namespace mt::autograd {

namespace {

std::string size_str(IntArrayRef s) {
  return "torch.Size(" + shape_str(s) + ")";
}

}  // namespace

// Reduces a broadcast gradient back to `shape` (sum over the leading and the expanded dims).
Tensor sum_to(const Tensor& g, IntArrayRef shape) {
  if (IntArrayRef(g.sizes()).equals(shape)) return g;
  int64_t lead = g.dim() - static_cast<int64_t>(shape.size());
  DimVector dims;
  for (int64_t i = 0; i < g.dim(); ++i) {
    if (i < lead) {
      dims.push_back(i);
    } else if (shape[i - lead] == 1 && g.sizes()[i] != 1) {
      dims.push_back(i);
    }
  }
  Tensor r = dims.empty() ? g : sum(g, dims, true);
  return reshape(r, shape);
}

namespace {

bool expandable_to(IntArrayRef shape, IntArrayRef desired) {
  if (shape.size() > desired.size()) return false;
  size_t off = desired.size() - shape.size();
  for (size_t i = 0; i < shape.size(); ++i)
    if (shape[i] != desired[off + i] && shape[i] != 1) return false;
  return true;
}

}  // namespace

namespace {
// The callbacks of the dual backward pass running on this thread (null in a plain pass, nested ones
// included): retain_grad's hook stores the dual gradient through them.
thread_local DualCallbacks* t_dual = nullptr;
thread_local bool t_draining = false;
thread_local std::vector<std::shared_ptr<Node>> t_pending_nodes;
thread_local std::vector<Tensor> t_pending_tensors;
}  // namespace

void defer_release(Tensor&& t) {
  if (t.defined()) t_pending_tensors.push_back(std::move(t));
}

Node::~Node() {
  for (auto& e : next_edges)
    if (e.fn) t_pending_nodes.push_back(std::move(e.fn));
  if (t_draining) return;  // an outer ~Node is draining: it will release what we queued
  t_draining = true;
  while (!t_pending_nodes.empty() || !t_pending_tensors.empty()) {
    if (!t_pending_tensors.empty()) {
      Tensor t = std::move(t_pending_tensors.back());
      t_pending_tensors.pop_back();
    } else {
      std::shared_ptr<Node> n = std::move(t_pending_nodes.back());
      t_pending_nodes.pop_back();
    }
  }
  t_draining = false;
}

FnNode::~FnNode() {
  for (auto& s : saved_) defer_release(s.take());
}

SavedVariable::SavedVariable(const Tensor& t, bool is_output) : is_output_(is_output), defined_(t.defined()) {
  if (!defined_) return;
  MT_CHECK(!t.is_inference(),
           "Inference tensors cannot be saved for backward. To work around you can make a clone to get a "
           "normal tensor and use it in autograd.");
  version_ = t.version();
  requires_grad_ = t.requires_grad();
  auto* m = t.impl()->autograd_meta();
  is_leaf_ = !(m && m->grad_fn);
  if (is_output) output_nr_ = m ? m->output_nr : 0;
  if (t_saved_hooks_depth > 0 && !t.impl()->is_wrapped_number())
    pack_with_hooks(t);
  else
    data_ = is_output ? detach(t) : t;
}

namespace {
thread_local std::vector<SavedTensorHooksMaker> t_saved_hooks;
thread_local std::optional<std::string> t_saved_hooks_disabled;
}  // namespace

thread_local int t_saved_hooks_depth = 0;

void push_saved_tensors_hooks(SavedTensorHooksMaker maker) {
  if (t_saved_hooks_disabled) MT_ERROR(*t_saved_hooks_disabled);
  t_saved_hooks.push_back(std::move(maker));
  t_saved_hooks_depth = static_cast<int>(t_saved_hooks.size());
}

void pop_saved_tensors_hooks() {
  MT_INTERNAL_ASSERT(!t_saved_hooks.empty(), "pop_saved_tensors_hooks without a matching push");
  t_saved_hooks.pop_back();
  t_saved_hooks_depth = static_cast<int>(t_saved_hooks.size());
}

void set_saved_tensors_hooks_disabled(std::optional<std::string> message) {
  if (message) MT_CHECK(t_saved_hooks.empty(), *message);
  t_saved_hooks_disabled = std::move(message);
}

const std::optional<std::string>& saved_tensors_hooks_disabled() {
  return t_saved_hooks_disabled;
}

// The hooks receive the tensor as the op saved it (an output with its grad_fn, as in PyTorch), under no_grad;
// only their packed object is kept, so the graph holds no reference to the tensor's memory.
void SavedVariable::pack_with_hooks(const Tensor& t) {
  hooked_ = std::make_unique<Hooked>();
  if (!is_output_ && requires_grad_) {
    Edge e = gradient_edge(t);
    if (e.fn && e.fn->is_accumulate_grad())
      hooked_->grad_accumulator = e.fn;
    else
      hooked_->grad_edge = std::move(e);
  }
  hooked_->hooks = t_saved_hooks.back()();
  NoGradGuard no_grad;
  hooked_->hooks->pack(t);
  MT_CHECK(t.version() == version_,
           "A saved tensor pack hook is modifying its input in place. Tensors provided as input to pack hook "
           "cannot be modified by in-place operations as this can lead to unexpected side-effects. Please "
           "open an issue if you need to perform in-place operations on the input to a pack hook.");
}

Tensor SavedVariable::unpack(const std::shared_ptr<Node>& owner) const {
  if (!defined_) return Tensor();
  MT_CHECK(
      !released_,
      "Trying to backward through the graph a second time (or directly access saved tensors after they "
      "have already been freed). Saved intermediate values of the graph are freed when you call "
      ".backward() or autograd.grad(). Specify retain_graph=True if you need to backward through the graph "
      "a second time or if you need to access saved tensors after calling backward.");
  if (hooked_) {
    // No version check: what the hooks return is theirs (PyTorch cannot track versions through them).
    Tensor r = detach(hooked_->hooks->unpack());
    if (!requires_grad_) return r;
    auto& m = r.impl()->ensure_autograd_meta();
    m.requires_grad = true;
    if (is_output_) {
      m.grad_fn = owner;
      m.output_nr = output_nr_;
    } else if (hooked_->grad_edge.fn) {
      m.grad_fn = hooked_->grad_edge.fn;
      m.output_nr = hooked_->grad_edge.input_nr;
    } else {
      m.grad_accumulator = hooked_->grad_accumulator;  // double backward accumulates into the original leaf
    }
    return r;
  }
  if (data_.version() != version_) {
    std::string what =
        "[" + error_type_name(data_.dtype(), data_.is_cuda()) + " " + shape_str(data_.sizes()) + "]";
    std::string where;
    // the node as PyTorch 2.15 names it here: its op, without the Backward<n> suffix ("output 0 of Exp")
    auto op_of = [](std::string name) {
      size_t end = name.size();
      while (end > 0 && name[end - 1] >= '0' && name[end - 1] <= '9') --end;
      if (end >= 8 && name.compare(end - 8, 8, "Backward") == 0) name.resize(end - 8);
      return name;
    };
    if (is_output_) {
      where = ", which is output " + std::to_string(output_nr_) + " of " + op_of(owner->name()) + ",";
    } else if (!is_leaf_) {
      auto* m = data_.impl()->autograd_meta();
      if (m && m->grad_fn)
        where =
            ", which is output " + std::to_string(m->output_nr) + " of " + op_of(m->grad_fn->name()) + ",";
    }
    MT_ERROR(
        "one of the variables needed for gradient computation has been modified by an inplace operation: ",
        what, where, " is at version ", data_.version(), "; expected version ", version_, " instead. Hint: ",
        g_anomaly_enabled.load(std::memory_order_relaxed)
            ? "the backtrace further above shows the operation that failed to compute its gradient. The "
              "variable in question was changed in there or anywhere later. Good luck!"
            : "enable anomaly detection to find the operation that failed to compute its gradient, with "
              "torch.autograd.set_detect_anomaly(True, check_nan=False).");
  }
  if (!is_output_ || !requires_grad_) return data_;
  // An output: rebuild its link to this node so that double backward sees it as a result of the graph.
  Tensor r = detach(data_);
  auto& m = r.impl()->ensure_autograd_meta();
  m.requires_grad = true;
  m.grad_fn = owner;
  m.output_nr = output_nr_;
  return r;
}

Tensor detach(const Tensor& t) {
  return make_view(t, t.sizes(), t.strides(), t.storage_offset());
}

void detach_(const Tensor& t) {
  MT_CHECK(!t.is_view(),
           "Can't detach views in-place. Use detach() instead. If you are using DistributedDataParallel "
           "(DDP) for training, and gradient_as_bucket_view is set as True, gradients are views of DDP "
           "buckets, and hence detach_() cannot be called on these gradients. To fix this error, please "
           "refer to the Optimizer.zero_grad() function in torch/optim/optimizer.py as the solution.");
  auto* m = t.impl()->autograd_meta();
  if (!m) return;
  m->grad_fn.reset();
  m->requires_grad = false;
  m->output_nr = 0;
}

void retain_grad(const Tensor& t) {
  MT_CHECK(t.requires_grad(), "can't retain_grad on Tensor that has requires_grad=False");
  if (!grad_fn(t)) return;
  auto* m = t.impl()->autograd_meta();  // after grad_fn: remaking a view's history may have made it
  if (m->retains_grad) return;
  m->retains_grad = true;
  // Weak: the node must not keep the tensor alive (tensor -> grad_fn -> hook -> tensor).
  std::weak_ptr<TensorImpl> weak = t.ptr();
  m->grad_fn->pre_hooks.push_back({0, {m->output_nr, [weak](const Tensor& g) -> Tensor {
                                         auto impl = weak.lock();
                                         if (!impl) return Tensor();
                                         auto& mm = impl->ensure_autograd_meta();
                                         NoGradGuard ng;
                                         if (t_dual) {  // a dual pass: .grad keeps the tangent (PyTorch's)
                                           mm.grad = t_dual->retain(mm.grad, g);
                                           return Tensor();
                                         }
                                         // mt::, the op front ends: autograd:: has recording twins of the
                                         // same names
                                         mm.grad = mm.grad.defined() ? mt::binary(BinaryOp::add, mm.grad, g)
                                                                     : mt::clone(g);
                                         return Tensor();
                                       }}});
}

TensorGeometry geometry_of(const Tensor& t) {
  return {t.sizes(), t.dtype(), t.device()};
}

std::shared_ptr<Node> grad_accumulator(const Tensor& t) {
  // Ops run with the GIL released, so threads sharing a leaf (one model, several threads) may get here at
  // once: one accumulator per leaf, made once.
  static std::mutex mu;
  std::lock_guard<std::mutex> lock(mu);
  auto& m = t.impl()->ensure_autograd_meta();
  if (auto acc = m.grad_accumulator.lock()) return acc;
  auto acc = std::make_shared<AccumulateGrad>(t);
  acc->inputs.push_back(geometry_of(t));
  m.grad_accumulator = acc;
  return acc;
}

std::shared_ptr<Node> grad_fn(const Tensor& t) {
  if (t.is_view()) refresh_view_history(t);
  auto* m = t.impl()->autograd_meta();
  return m ? m->grad_fn : nullptr;
}

Edge gradient_edge(const Tensor& t) {
  if (!t.defined()) return {};
  if (t.is_view()) refresh_view_history(t);
  auto* m = t.impl()->autograd_meta();
  if (!m) return {};
  if (m->grad_fn) return {m->grad_fn, m->output_nr};
  if (m->requires_grad) return {grad_accumulator(t), 0};
  return {};
}

void set_history(const std::shared_ptr<Node>& node, const std::vector<const Tensor*>& inputs,
                 const std::vector<const Tensor*>& outputs) {
  node->next_edges.reserve(inputs.size());
  for (const Tensor* t : inputs) node->next_edges.push_back(t ? gradient_edge(*t) : Edge{});
  node->inputs.reserve(outputs.size());
  uint32_t nr = 0;
  for (const Tensor* o : outputs) {
    node->inputs.push_back(geometry_of(*o));
    auto& m = o->impl()->ensure_autograd_meta();
    m.requires_grad = true;
    m.grad_fn = node;
    m.output_nr = nr++;
  }
}

variable_list AccumulateGrad::apply(variable_list&& grads) {
  Tensor g = std::move(grads[0]);
  auto& m = variable.impl()->ensure_autograd_meta();  // leaf hooks already ran in the engine
  // Backward passes in several threads may reach one leaf together (the engine runs with the GIL released);
  // the hooks run outside the lock, since they take the GIL.
  std::unique_lock<std::mutex> lock(mutex_);
  if (!m.grad.defined()) {
    // PyTorch's layout contract: the gradient of a dense leaf has the leaf's strides (a channels-last weight,
    // a transposed leaf), of any other leaf contiguous ones.
    DimVector layout;
    if (!variable.is_contiguous() && non_overlapping_and_dense(variable)) layout = variable.strides();
    const bool obeys = layout.empty() ? g.is_contiguous() : g.strides() == layout;
    // The incoming tensor becomes .grad when nothing else can see it (PyTorch "steals" it too): no other
    // handle on the tensor or its buffer, dense, and the leaf's layout. Otherwise it may be the user's
    // `gradient` argument or shared with another leaf, and .grad gets a copy.
    bool stealable = g.ptr().use_count() == 1 && g.storage().use_count() == 1 && obeys &&
                     g.storage_offset() == 0 && g.dtype() == variable.dtype() &&
                     g.device() == variable.device() && g.sizes() == variable.sizes() &&
                     !g.impl()->is_wrapped_number() && !g.impl()->autograd_meta();
    if (GradMode::is_enabled() || stealable) {
      m.grad = g;
    } else if (layout.empty() || g.sizes() != variable.sizes()) {
      m.grad = clone(g);
    } else {
      m.grad = empty_strided_dense(g.sizes(), layout, g.dtype(), g.device());
      copy_into_fresh(m.grad, g);
    }
  } else if (GradMode::is_enabled()) {
    m.grad = add(m.grad, g);  // create_graph: the sum itself is differentiable
  } else {
    binary_(BinaryOp::add, m.grad, g);
  }
  lock.unlock();
  if (!m.post_accumulate_hooks.empty()) {
    auto hooks = m.post_accumulate_hooks;  // a hook may remove itself
    for (auto& h : hooks) h.second(variable);
  }
  return {};
}

namespace {
struct GraphTask {
  int64_t id;
  const std::vector<Edge>* roots;
  const std::unordered_map<Node*, int>* deps;
  const std::unordered_map<Node*, bool>* needed;  // null outside capture mode
};
thread_local GraphTask* t_graph_task = nullptr;
}  // namespace

int64_t current_graph_task_id() {
  return t_graph_task ? t_graph_task->id : -1;
}

bool will_engine_execute_node(const Node* n) {
  MT_CHECK(t_graph_task, "_will_engine_execute_node should only be called during the backward pass");
  Node* key = const_cast<Node*>(n);
  if (t_graph_task->needed) {
    auto it = t_graph_task->needed->find(key);
    return it != t_graph_task->needed->end() && it->second;
  }
  if (t_graph_task->deps->count(key)) return true;
  for (auto& r : *t_graph_task->roots)
    if (r.fn.get() == n) return true;
  return false;
}

namespace {
// The engine. `dual` (with `grad_tangents` and `dres`) only in a dual pass: every tangent step below sits
// behind it, so a plain pass pays one test per node.
variable_list run_backward_impl(const variable_list& outputs, const variable_list& grad_outputs,
                                bool keep_graph, bool create_graph, const variable_list& inputs,
                                bool allow_unused, const variable_list* grad_tangents, DualCallbacks* dual,
                                DualBackwardResult* dres) {
  struct DualScope {
    DualCallbacks* prev;
    explicit DualScope(DualCallbacks* d) : prev(t_dual) { t_dual = d; }
    ~DualScope() { t_dual = prev; }
  } dual_scope(dual);
  MT_CHECK(outputs.size() == grad_outputs.size(), "grad requires one grad_output per output: got ",
           grad_outputs.size(), " for ", outputs.size(), " outputs");
  std::vector<Edge> roots;
  variable_list root_grads;
  for (size_t i = 0; i < outputs.size(); ++i) {
    const Tensor& out = outputs[i];
    Edge e = gradient_edge(out);
    MT_CHECK(e.valid(), "element ", i, " of tensors does not require grad and does not have a grad_fn");
    Tensor g = grad_outputs[i];
    if (!g.defined()) {
      MT_CHECK(out.numel() == 1, "grad can be implicitly created only for scalar outputs");
      g = ones(out.sizes(), out.dtype(), out.device());
    } else {
      MT_CHECK(IntArrayRef(g.sizes()).equals(out.sizes()), "Mismatch in shape: grad_output[", i,
               "] has a shape of ", size_str(g.sizes()), " and output[", i, "] has a shape of ",
               size_str(out.sizes()), ".");
      MT_CHECK(g.device() == out.device(), "Mismatch in device: grad_output[", i, "] is on ",
               g.device().str(), " and output[", i, "] is on ", out.device().str(), ".");
    }
    roots.push_back(e);
    root_grads.push_back(g);
  }

  // autograd.grad: the edges whose incoming gradient is captured instead of accumulated.
  std::unordered_map<Node*, std::vector<std::pair<uint32_t, size_t>>> captures;
  for (size_t j = 0; j < inputs.size(); ++j) {
    Edge e = gradient_edge(inputs[j]);
    MT_CHECK(e.valid(), "One of the differentiated Tensors does not require grad");
    captures[e.fn.get()].push_back({e.input_nr, j});
  }
  const bool capture_mode = !inputs.empty();

  // Dependencies: how many edges of the reachable graph point at each node.
  std::unordered_map<Node*, int> deps;
  {
    std::unordered_set<Node*> seen;
    std::vector<Node*> stack;
    for (auto& r : roots)
      if (seen.insert(r.fn.get()).second) stack.push_back(r.fn.get());
    while (!stack.empty()) {
      Node* n = stack.back();
      stack.pop_back();
      for (auto& e : n->next_edges) {
        if (!e.valid()) continue;
        deps[e.fn.get()]++;
        if (seen.insert(e.fn.get()).second) stack.push_back(e.fn.get());
      }
    }
  }
  // In capture mode only the nodes on a path to an input run (others may lack formulas or be freed).
  // Computed over a topological order (no recursion: graphs may be 100k nodes deep).
  std::unordered_map<Node*, bool> needed;
  if (capture_mode) {
    std::unordered_map<Node*, int> d = deps;
    std::vector<Node*> topo, stack;
    for (auto& r : roots)
      if (d[r.fn.get()] == 0 && std::find(stack.begin(), stack.end(), r.fn.get()) == stack.end())
        stack.push_back(r.fn.get());
    while (!stack.empty()) {
      Node* n = stack.back();
      stack.pop_back();
      topo.push_back(n);
      for (auto& e : n->next_edges)
        if (e.valid() && --d[e.fn.get()] == 0) stack.push_back(e.fn.get());
    }
    for (auto it = topo.rbegin(); it != topo.rend(); ++it) {
      bool r = captures.count(*it) > 0;
      for (auto& e : (*it)->next_edges)
        if (e.valid() && needed[e.fn.get()]) r = true;
      needed[*it] = r;
    }
  }

  std::unordered_map<Node*, variable_list> buffers;
  auto accumulate_into = [](std::unordered_map<Node*, variable_list>& bufs, Node* n, uint32_t nr, Tensor g) {
    auto& buf = bufs[n];
    if (buf.size() < n->inputs.size()) buf.resize(n->inputs.size());
    if (!buf[nr].defined())
      buf[nr] = std::move(g);
    else
      buf[nr] = add(buf[nr], g);
  };
  auto accumulate = [&](Node* n, uint32_t nr, Tensor g) { accumulate_into(buffers, n, nr, std::move(g)); };
  // dual pass: the tangents of the gradients, beside them
  std::unordered_map<Node*, variable_list> tbuffers;
  AutoGradMode mode(create_graph);
  // Backward runs in the dtypes forward chose: the formulas are not autocast again.
  ++autocast::tls_excluded;
  struct AutocastRestore {
    ~AutocastRestore() { --autocast::tls_excluded; }
  } autocast_restore;
  for (size_t i = 0; i < roots.size(); ++i) {
    accumulate(roots[i].fn.get(), roots[i].input_nr, root_grads[i]);
    if (dual && (*grad_tangents)[i].defined())
      accumulate_into(tbuffers, roots[i].fn.get(), roots[i].input_nr, (*grad_tangents)[i]);
  }

  static std::atomic<int64_t> next_task_id{0};
  GraphTask task{next_task_id++, &roots, &deps, capture_mode ? &needed : nullptr};
  struct TaskScope {
    GraphTask* prev;
    explicit TaskScope(GraphTask* t) : prev(t_graph_task) { t_graph_task = t; }
    ~TaskScope() { t_graph_task = prev; }
  } task_scope(&task);

  variable_list captured(inputs.size());
  std::deque<Node*> ready;
  for (auto& r : roots)
    if (deps[r.fn.get()] == 0 && std::find(ready.begin(), ready.end(), r.fn.get()) == ready.end())
      ready.push_back(r.fn.get());

  // A dual pass hands hooks make(g, t) and splits what they return; t undefined: g as it is.
  auto as_dual = [&](const Tensor& g, const Tensor& t) { return t.defined() ? dual->make(g, t) : g; };

  while (!ready.empty()) {
    Node* n = ready.front();
    ready.pop_front();
    variable_list grads = std::move(buffers[n]);
    buffers.erase(n);
    grads.resize(n->inputs.size());
    variable_list tgrads;
    if (dual) {
      auto it = tbuffers.find(n);
      if (it != tbuffers.end()) {
        tgrads = std::move(it->second);
        tbuffers.erase(it);
      }
      tgrads.resize(n->inputs.size());
    }
    // Under autograd.grad(inputs=...) a node off every path to an input neither runs nor calls its hooks.
    if (capture_mode && !needed[n]) continue;
    // Hooks run from copies of their lists: a Python hook may remove itself or add hooks while it runs
    // (copies only share ownership of the Python callables, see csrc/python/bind.h's PyHandle).
    auto replace = [](Tensor& g, Tensor r) {
      if (r.defined()) g = std::move(r);
    };
    // a tensor hook: in a dual pass it sees the dual gradient, and its result replaces both parts
    auto run_hook = [&](const Hook& h, Tensor& g, Tensor* t) {
      if (!t) return replace(g, h(g));
      Tensor d = as_dual(g, *t);
      Tensor r = h(d);
      if (!r.defined() || r.impl() == d.impl()) return;
      std::tie(g, *t) = dual->split(r);
    };
    auto pre_hooks = n->pre_hooks;
    for (auto& h : pre_hooks) {
      uint32_t nr = h.second.first;
      if (!grads[nr].defined()) continue;
      run_hook(h.second.second, grads[nr], dual ? &tgrads[nr] : nullptr);
    }
    if (n->is_accumulate_grad() && grads[0].defined()) {
      // the leaf's tensor hooks, before accumulation or capture (autograd.grad sees hooked gradients too)
      auto* lm = static_cast<AccumulateGrad*>(n)->variable.impl()->autograd_meta();
      auto leaf_hooks = lm ? lm->leaf_hooks : decltype(lm->leaf_hooks)();
      for (auto& h : leaf_hooks) run_hook(h.second, grads[0], dual ? &tgrads[0] : nullptr);
    }
    auto cap = captures.find(n);
    if (cap != captures.end())
      for (auto& [nr, j] : cap->second) {
        captured[j] = grads[nr];
        if (dual) dres->tangents[j] = tgrads[nr];
      }
    if (capture_mode && n->is_accumulate_grad()) continue;

    bool any = false;
    for (auto& g : grads) any = any || g.defined();
    variable_list outs, touts;
    if (any) {
      for (size_t i = 0; i < grads.size() && n->materializes_grads(); ++i)
        if (!grads[i].defined())
          grads[i] = zeros(n->inputs[i].sizes, n->inputs[i].dtype, n->inputs[i].device);
      auto keep = n->shared_from_this();  // the node may drop its last owner while running (release)
      // a dual pass hands node hooks dual gradients and splits what they leave
      auto to_dual = [&](variable_list& gs, const variable_list& ts) {
        for (size_t i = 0; i < gs.size(); ++i)
          if (gs[i].defined() && i < ts.size()) gs[i] = as_dual(gs[i], ts[i]);
      };
      auto from_dual = [&](variable_list& gs, variable_list& ts) {
        ts.resize(gs.size());
        for (size_t i = 0; i < gs.size(); ++i) std::tie(gs[i], ts[i]) = dual->split(gs[i]);
      };
      auto node_pre_hooks = n->node_pre_hooks;
      if (!node_pre_hooks.empty()) {
        if (dual) to_dual(grads, tgrads);
        for (auto& h : node_pre_hooks) h.second(grads);
        if (dual) from_dual(grads, tgrads);
      }
      auto node_post_hooks = n->node_post_hooks;
      variable_list received = node_post_hooks.empty() && !dual ? variable_list() : grads;
      variable_list treceived = node_post_hooks.empty() ? variable_list() : tgrads;
      // backward(create_graph=True) of duals: the leaf's .grad becomes dual before its post-accumulate hooks
      const bool store_leaf = dual && create_graph && n->is_accumulate_grad() && tgrads[0].defined();
      AutogradMeta* leaf_meta = nullptr;
      decltype(leaf_meta->post_accumulate_hooks) post_acc;
      if (store_leaf) {
        leaf_meta = &static_cast<AccumulateGrad*>(n)->variable.impl()->ensure_autograd_meta();
        post_acc.swap(leaf_meta->post_accumulate_hooks);
      }
      outs = n->apply(std::move(grads));
      if (store_leaf) {
        leaf_meta->post_accumulate_hooks.swap(post_acc);
        const Tensor& leaf = static_cast<AccumulateGrad*>(n)->variable;
        dual->store_leaf(leaf, tgrads[0]);
        auto acc_hooks = leaf_meta->post_accumulate_hooks;
        for (auto& h : acc_hooks) h.second(leaf);
      }
      if (dual && !n->is_accumulate_grad()) {
        // The tangent of the node's results: its formula (linear in the gradients) on the incoming tangents,
        // plus the formula's derivative along its saved tensors' tangents, which forward AD computes.
        bool anyt = false;
        for (auto& t : tgrads) anyt = anyt || t.defined();
        if (anyt) {
          for (size_t i = 0; i < tgrads.size() && n->materializes_grads(); ++i)
            if (!tgrads[i].defined())
              tgrads[i] = zeros(n->inputs[i].sizes, n->inputs[i].dtype, n->inputs[i].device);
          touts = n->apply(std::move(tgrads));
        }
        touts.resize(n->next_edges.size());
        for (auto& [e, term] : dual->second_order(*n, received)) {
          if (!term.defined() || !e.valid()) continue;
          size_t j = 0;
          while (j < n->next_edges.size() &&
                 (n->next_edges[j].fn != e.fn || n->next_edges[j].input_nr != e.input_nr))
            ++j;
          if (j < n->next_edges.size()) {
            // both as the input's shape before the sum: the formula's part may still have the broadcast
            // shape (the output loop sums it down) while a term may not (the re-run's is its input's)
            auto fit = [&](const Tensor& x) {
              IntArrayRef want = e.fn->inputs[e.input_nr].sizes;
              return IntArrayRef(x.sizes()).equals(want) || !expandable_to(want, x.sizes()) ? x
                                                                                            : sum_to(x, want);
            };
            touts[j] = touts[j].defined() ? add(fit(touts[j]), fit(term)) : term;
          } else {
            // An op forward AD saw whole but that recorded several nodes (a Python composite with one rule,
            // sdpa): the record sits on its last node, its inner nodes have none, and the term (the whole
            // op's) goes straight to the input's edge, a node that runs after this one.
            accumulate_into(tbuffers, e.fn.get(), e.input_nr, term);
          }
        }
      }
      if (!node_post_hooks.empty()) {
        if (dual) {
          to_dual(outs, touts);
          to_dual(received, treceived);
        }
        for (auto& h : node_post_hooks) h.second(outs, received);
        if (dual) from_dual(outs, touts);
      }
      if (!keep_graph) n->release_variables();
    }
    if (n->is_accumulate_grad()) continue;
    MT_CHECK(!any || outs.size() == n->next_edges.size(), "Function ", n->name(),
             " returned an incorrect number of gradients (expected ", n->next_edges.size(), ", got ",
             outs.size(), ")");
    // the gradient as the edge's input wants it; in a dual pass its tangent the same way (all linear)
    auto conform = [&](Tensor g, const TensorGeometry& want, size_t i) {
      if (!IntArrayRef(g.sizes()).equals(want.sizes)) {
        MT_CHECK(expandable_to(want.sizes, g.sizes()), "Function ", n->name(),
                 " returned an invalid gradient at index ", i, " - got ", shape_str(g.sizes()),
                 " but expected shape compatible with ", shape_str(want.sizes));
        g = sum_to(g, want.sizes);
      }
      // a real input of an op with a complex result takes the real part of its gradient (PyTorch's rule)
      if (is_complex(g.dtype()) && !is_complex(want.dtype)) g = real(g);
      if (g.dtype() != want.dtype || g.device() != want.device) g = to(g, want.dtype, want.device);
      return g;
    };
    for (size_t i = 0; i < n->next_edges.size(); ++i) {
      const Edge& e = n->next_edges[i];
      if (!e.valid()) continue;
      if (any && outs[i].defined()) {
        const TensorGeometry& want = e.fn->inputs[e.input_nr];
        accumulate(e.fn.get(), e.input_nr, conform(outs[i], want, i));
        if (dual && i < touts.size() && touts[i].defined())
          accumulate_into(tbuffers, e.fn.get(), e.input_nr, conform(touts[i], want, i));
      }
      if (--deps[e.fn.get()] == 0) ready.push_back(e.fn.get());
    }
  }

  if (capture_mode && !allow_unused)
    for (size_t i = 0; i < captured.size(); ++i)
      MT_CHECK(captured[i].defined(), "The differentiated Tensor at index ", i,
               " appears to not have been used in the graph. Set allow_unused=True if this is the desired "
               "behavior.");
  return captured;
}
}  // namespace

variable_list run_backward(const variable_list& outputs, const variable_list& grad_outputs, bool keep_graph,
                           bool create_graph, const variable_list& inputs, bool allow_unused) {
  return run_backward_impl(outputs, grad_outputs, keep_graph, create_graph, inputs, allow_unused, nullptr,
                           nullptr, nullptr);
}

DualBackwardResult run_backward_dual(const variable_list& outputs, const variable_list& grad_outputs,
                                     const variable_list& grad_tangents, bool keep_graph, bool create_graph,
                                     const variable_list& inputs, bool allow_unused,
                                     DualCallbacks& callbacks) {
  MT_CHECK(grad_tangents.size() == outputs.size(), "one grad tangent per output expected");
  DualBackwardResult res;
  res.tangents.resize(inputs.size());
  res.grads = run_backward_impl(outputs, grad_outputs, keep_graph, create_graph, inputs, allow_unused,
                                &grad_tangents, &callbacks, &res);
  return res;
}

}  // namespace mt::autograd
