// Per-tensor autograd state: the requires_grad flag, .grad, and the link into the graph (grad_fn for results
// of recorded ops, a weak link to the AccumulateGrad node for leaves), plus tensor hooks.
#pragma once
#include <cstdint>
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
  // A view made in grad mode of a floating tensor (its root base, creation and version are in TensorImpl)
  // also knows how to remake itself from a tensor shaped like the base (view_fn): an in-place write through
  // the view rewrites the base's history with both (CopySlices). view_fn is empty for views that cannot be
  // replayed (as_strided): their geometry relative to the base replays them.
  std::function<Tensor(const Tensor&)> view_fn;
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
