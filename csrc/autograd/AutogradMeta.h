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

// How a view was made, as PyTorch's CreationMeta: a view made under no_grad or inference mode, or one of the
// outputs of a multi-output view op (split, chunk, unbind), and every view of such a view, may not be written
// in place when autograd would have to record the write (check_inplace), nor read after its storage was
// written in place while its base requires grad (refresh_view_history): the history would be ambiguous.
enum class CreationMeta : uint8_t { Default, NoGradMode, MultiOutputNode, InferenceMode };

struct AutogradMeta {
  bool requires_grad = false;
  bool retains_grad = false;
  CreationMeta creation = CreationMeta::Default;
  // Every view (made by a view op from a tensor that is not an inference tensor, in any mode and of any
  // dtype) knows its root base, Tensor._base (strong: a view keeps its base alive). A view made in grad mode
  // of a floating tensor also knows how to remake itself from a tensor shaped like the base (view_fn): an
  // in-place write through the view rewrites the base's history with both (CopySlices). view_fn is empty for
  // the other views and for views that cannot be replayed (as_strided): their geometry relative to the base
  // replays them.
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
