// What derivatives.cpp (the formulas) and views.cpp (views and in-place writes) share to record a node.
#pragma once
#include <functional>
#include <memory>
#include <vector>

#include "autograd/GradMode.h"
#include "autograd/Node.h"
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

// The generic in-place path under grad: the result is computed out of place by `fn` (recorded, from a clone
// so the saved input keeps its version), written into self, and self takes over the result's history.
const Tensor& inplace(const Tensor& self, const std::function<Tensor(const Tensor&)>& fn);

}  // namespace mt::autograd
