// What derivatives.cpp (the formulas) and views.cpp (views and in-place writes) share to record a node.
#pragma once
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <memory>
#include <vector>

#include "autograd/Node.h"
#include "core/GradMode.h"
#include "core/Tensor.h"

namespace mt::autograd {

// Runs the forward of a recording twin: the op itself must not record (its node is attached afterwards).
template <typename F>
auto no_grad(F&& f) {
  NoGradGuard g;
  return f();
}

// Attaches a node for `outs` with edges to `ins`; nothing when no output is floating (comparisons etc.).
std::shared_ptr<FnNode> attach(const char* name, FnNode::Fn fn, std::vector<const Tensor*> ins,
                               std::vector<const Tensor*> outs);

// Which inputs' gradients a saved tensor serves: bit i for input i. A tensor is saved only when one of them
// is needed, because a tensor saved needlessly makes a later in-place write to it an error (as in PyTorch).
constexpr uint32_t kAlways = ~0u;
constexpr uint32_t grad_of(int i) {
  return 1u << i;
}

// A tensor a formula reads in backward, under the name it reads it by (FnNode::saved("self")).
struct Saved {
  const char* name;
  Tensor tensor;
  uint32_t for_grads = kAlways;
  bool is_output = false;  // the op's own output: saved without its autograd state (see SavedVariable)
};
// The op's (first) output, saved as "result"; in record(), `out` names it, in twin() it is the forward's
// result.
inline Saved result(const Tensor& out = Tensor()) {
  return {"result", out, kAlways, true};
}

// Records one op: attaches node `name` running `formula` (edges from `ins`, history to `outs`) and saves
// `saved` by name. Returns the node, or null when no output is floating.
std::shared_ptr<FnNode> record(const char* name, std::vector<const Tensor*> ins,
                               std::vector<const Tensor*> outs, std::initializer_list<Saved> saved,
                               FnNode::Fn formula);

// The recording twin of a one-output op, as one formula entry: runs `forward` without grad and records its
// result (`result()` in `saved` is that result).
template <typename F>
Tensor twin(const char* name, F&& forward, std::vector<const Tensor*> ins, std::initializer_list<Saved> saved,
            FnNode::Fn formula) {
  Tensor out = no_grad(std::forward<F>(forward));
  record(name, std::move(ins), {&out}, saved, std::move(formula));
  return out;
}

// The generic in-place path under grad: the result is computed out of place by `fn` (recorded, from a clone
// so the saved input keeps its version), written into self, and self takes over the result's history.
const Tensor& inplace(const Tensor& self, const std::function<Tensor(const Tensor&)>& fn);

}  // namespace mt::autograd
