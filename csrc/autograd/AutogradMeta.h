// Per-tensor autograd state: the requires_grad flag, .grad, and the link into the graph (grad_fn for results
// of recorded ops, a weak link to the AccumulateGrad node for leaves), plus tensor hooks.
#pragma once
#include <functional>
#include <memory>
#include <vector>

#include "core/Tensor.h"

namespace mt {

namespace autograd {
struct Node;
// A tensor hook: returns an undefined tensor to keep the gradient, or a replacement.
using Hook = std::function<Tensor(const Tensor&)>;
}  // namespace autograd

struct AutogradMeta {
  bool requires_grad = false;
  bool retains_grad = false;
  // A view made in grad mode (of a floating tensor): its root base (strong: a view keeps its base alive) and
  // how to remake the view from a tensor shaped like the base. An in-place write through the view rewrites
  // the base's history with both (CopySlices). view_fn is empty for views that cannot be replayed
  // (as_strided).
  Tensor view_base;
  std::function<Tensor(const Tensor&)> view_fn;
  // The storage version when a view's grad_fn was set: a later in-place write anywhere in the storage makes
  // it stale, and it is remade from the base's history when next read (refresh_view_history).
  uint32_t attr_version = 0;
  bool is_view() const { return view_base.defined(); }
  Tensor grad;  // accumulated gradient of a leaf; undefined until the first backward
  std::shared_ptr<autograd::Node> grad_fn;  // null for leaves
  uint32_t output_nr = 0;
  // Weak: the AccumulateGrad node owns the leaf, so a strong link back would be a cycle.
  std::weak_ptr<autograd::Node> grad_accumulator;
  std::vector<std::pair<int, autograd::Hook>> leaf_hooks;  // (handle id, hook) of a leaf
  // Run with the leaf itself after its .grad was updated (register_post_accumulate_grad_hook; DDP's
  // bucketing and optimizer-in-backward use them); their return value is ignored.
  std::vector<std::pair<int, autograd::Hook>> post_accumulate_hooks;
};

}  // namespace mt
