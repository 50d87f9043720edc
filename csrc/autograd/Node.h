// The autograd graph: Node (one backward function), Edge, SavedVariable (version-checked saved tensors),
// FnNode (a node whose backward is a lambda written in ops), AccumulateGrad (leaves) and the engine's API.
#pragma once
#include <cstring>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "autograd/AutogradMeta.h"
#include "core/GradMode.h"
#include "core/Tensor.h"

namespace mt::autograd {

using variable_list = std::vector<Tensor>;

struct Edge {
  std::shared_ptr<Node> fn;
  uint32_t input_nr = 0;
  bool valid() const { return fn != nullptr; }
};

// Shape/dtype/device of one forward output: incoming gradients are checked and converted against it, and
// a missing gradient is materialized as zeros of it.
struct TensorGeometry {
  DimVector sizes;
  ScalarType dtype;
  Device device;
};

struct Node : std::enable_shared_from_this<Node> {
  // Releases the graph behind this node iteratively: a chain of 100k ops would otherwise recurse once per
  // node (node -> edge -> node, node -> saved tensor -> grad_fn) and overflow the stack.
  virtual ~Node();
  virtual variable_list apply(variable_list&& grads) = 0;
  virtual std::string name() const = 0;
  virtual void release_variables() {}
  virtual bool is_accumulate_grad() const { return false; }
  // false: a gradient that never arrived reaches apply() undefined instead of as zeros (a Python Function
  // after ctx.set_materialize_grads(False) gets None).
  virtual bool materializes_grads() const { return true; }

  bool needs_input_grad(size_t i) const { return i < next_edges.size() && next_edges[i].valid(); }

  std::vector<Edge> next_edges;        // one per differentiable forward input
  std::vector<TensorGeometry> inputs;  // one per forward output (the gradients this node receives)
  // Hooks on the gradient of forward output `nr` (tensor hooks and retain_grad of non-leaves).
  std::vector<std::pair<int, std::pair<uint32_t, Hook>>> pre_hooks;  // (handle id, (output_nr, hook))
  // Hooks on the node itself (grad_fn.register_prehook / register_hook): a pre-hook may replace the gradients
  // the node receives; a post-hook sees them and the node's results, and may replace the results.
  using NodePreHook = std::function<void(variable_list& grad_outputs)>;
  using NodePostHook = std::function<void(variable_list& grad_inputs, const variable_list& grad_outputs)>;
  std::vector<std::pair<int, NodePreHook>> node_pre_hooks;
  std::vector<std::pair<int, NodePostHook>> node_post_hooks;
  // grad_fn.metadata: a dict the bindings create on first access and keep here, so that it outlives the
  // Python wrapper of the node (type-erased: autograd does not know Python).
  std::shared_ptr<void> py_metadata;
};

// One tensor's pack/unpack pair under torch.autograd.graph.saved_tensors_hooks: pack() keeps what the
// user's pack_hook returned (any object), unpack() turns it back into a tensor. The bindings implement it.
struct SavedTensorHooks {
  virtual ~SavedTensorHooks() = default;
  virtual void pack(const Tensor& t) = 0;
  virtual Tensor unpack() = 0;
};
using SavedTensorHooksMaker = std::function<std::unique_ptr<SavedTensorHooks>()>;

// The thread's stack of saved_tensors_hooks contexts (innermost wins). The depth is a plain thread_local so
// that saving a tensor with no hooks costs one load and compare.
extern thread_local int t_saved_hooks_depth;
void push_saved_tensors_hooks(SavedTensorHooksMaker maker);
void pop_saved_tensors_hooks();
// disable_saved_tensors_hooks(message): pushing hooks then raises `message`; so does disabling while hooks
// are active (PyTorch's order of checks). nullopt enables them again.
void set_saved_tensors_hooks_disabled(std::optional<std::string> message);
const std::optional<std::string>& saved_tensors_hooks_disabled();

// A tensor saved for backward. It remembers the version of its storage at save time; a later in-place
// change raises PyTorch's error instead of silently giving a wrong gradient. An op's own output is stored
// without its autograd state (a strong link to its grad_fn would be a cycle through this node).
class SavedVariable {
 public:
  SavedVariable() = default;
  SavedVariable(const Tensor& t, bool is_output);
  Tensor unpack(const std::shared_ptr<Node>& owner) const;
  void reset() {
    data_ = Tensor();
    hooked_.reset();  // frees the packed object (a CPU copy, a file name, ...) with the graph
    released_ = true;
  }
  Tensor take() { return std::move(data_); }  // for deferred destruction (see ~Node)
  bool defined() const { return defined_; }

 private:
  void pack_with_hooks(const Tensor& t);

  Tensor data_;  // empty while hooked_ holds the tensor in its packed form
  // Under saved_tensors_hooks: the packed tensor, and where its gradient went (its grad_fn edge for a
  // non-leaf input, its leaf's accumulator), to give the unpacked tensor the same place in the graph. Behind
  // one pointer, so that a SavedVariable without hooks (nearly all) grows by 8 bytes only.
  struct Hooked {
    std::unique_ptr<SavedTensorHooks> hooks;
    Edge grad_edge;
    std::weak_ptr<Node> grad_accumulator;
  };
  std::unique_ptr<Hooked> hooked_;
  uint32_t version_ = 0;
  uint32_t output_nr_ = 0;
  bool is_output_ = false, requires_grad_ = false, defined_ = false, released_ = false, is_leaf_ = false;
};

// A node whose backward is a lambda over the incoming gradients, written with ops, so it runs on every device
// and records itself when create_graph is on.
struct FnNode : Node {
  using Fn = std::function<variable_list(FnNode&, variable_list&)>;
  FnNode(const char* name, Fn fn) : name_(name), fn_(std::move(fn)) {}
  ~FnNode() override;
  variable_list apply(variable_list&& grads) override { return fn_(*this, grads); }
  std::string name() const override { return name_; }
  void release_variables() override {
    for (auto& s : saved_) s.reset();
  }
  // Saved tensors by the name the formula reads them with (derivatives.h's record() saves them).
  void save(const char* name, const Tensor& t, bool is_output = false) {
    saved_.emplace_back(t, is_output);
    saved_names_.push_back(name);
  }
  Tensor saved(const char* name) {
    for (size_t i = 0; i < saved_names_.size(); ++i)
      if (saved_names_[i] && std::strcmp(saved_names_[i], name) == 0)
        return saved_[i].unpack(shared_from_this());
    MT_INTERNAL_ASSERT(false, name_, " saved no tensor named '", name, "'");
  }
  const std::vector<const char*>& saved_names() const { return saved_names_; }
  // Every tensor saved under `name`, in order: a list input (an RNN's weights) is saved one entry a tensor.
  std::vector<Tensor> saved_list(const char* name) {
    std::vector<Tensor> out;
    for (size_t i = 0; i < saved_names_.size(); ++i)
      if (saved_names_[i] && std::strcmp(saved_names_[i], name) == 0)
        out.push_back(saved_[i].unpack(shared_from_this()));
    return out;
  }

 private:
  const char* name_;
  Fn fn_;
  std::vector<SavedVariable> saved_;
  std::vector<const char*> saved_names_;  // string literals, parallel to saved_
};

struct AccumulateGrad : Node {
  explicit AccumulateGrad(Tensor v) : variable(std::move(v)) {}
  variable_list apply(variable_list&& grads) override;
  std::string name() const override { return "AccumulateGrad"; }
  bool is_accumulate_grad() const override { return true; }
  Tensor variable;

 private:
  std::mutex mutex_;  // .grad updates from concurrent backward passes
};

// Where the gradient of `t` goes: its grad_fn, or its leaf's AccumulateGrad (created on demand), or nothing.
Edge gradient_edge(const Tensor& t);
// t's grad_fn (null for leaves), a view's remade first when stale; readers outside the engine use this.
std::shared_ptr<Node> grad_fn(const Tensor& t);
// Remakes a view's history when its storage changed in place since it was set (derivatives.cpp).
void refresh_view_history(const Tensor& view);
std::shared_ptr<Node> grad_accumulator(const Tensor& t);
TensorGeometry geometry_of(const Tensor& t);
// Connects a new node: edges from the inputs, and the outputs' history (requires_grad, grad_fn, output_nr).
void set_history(const std::shared_ptr<Node>& node, const std::vector<const Tensor*>& inputs,
                 const std::vector<const Tensor*>& outputs);
// Hands a tensor to the iterative release that ~Node runs (so its own graph is freed without recursion).
void defer_release(Tensor&& t);
// A tensor over the same memory without autograd state.
Tensor detach(const Tensor& t);
// Tensor.detach_(): drops t's history in place (a view cannot be detached in place).
void detach_(const Tensor& t);
// Tensor.retain_grad(): a non-leaf keeps its gradient in .grad after backward (a no-op on a leaf).
void retain_grad(const Tensor& t);

// The engine: gradients of `outputs` (with `grad_outputs`, undefined = implicit ones for scalars) flow back
// through the graph. inputs empty: accumulate into the leaves' .grad; else return the gradients of inputs.
variable_list run_backward(const variable_list& outputs, const variable_list& grad_outputs, bool keep_graph,
                           bool create_graph, const variable_list& inputs, bool allow_unused);
// The backward pass running on this thread, for hooks that must know it (register_multi_grad_hook): its id,
// -1 outside backward; and whether node `n` runs in it (reachable from its roots and, under
// autograd.grad(inputs=...), on a path to an input).
int64_t current_graph_task_id();
bool will_engine_execute_node(const Node* n);

}  // namespace mt::autograd
