// The backward pass of dual tensors (forward AD over reverse, PyTorch's backward under forward AD): the
// engine carries a tangent beside each gradient, hooks see the dual gradient, and forward AD (Python)
// supplies what the C++ formulas lack. Only the engine and the bindings include this header.
#pragma once
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "autograd/Node.h"

namespace mt::autograd {

// What forward AD (python/minitorch/func/_forward_ad.py, through the bindings) does for the engine in a dual
// pass. A tangent may be undefined (none reaches that gradient).
struct DualCallbacks {
  virtual ~DualCallbacks() = default;
  // The dual gradient a hook receives: g with tangent t, kept alive by forward AD for the pass.
  virtual Tensor make(const Tensor& g, const Tensor& t) = 0;
  // A hook's result split into (value, tangent): a plain tensor has no tangent.
  virtual std::pair<Tensor, Tensor> split(const Tensor& r) = 0;
  // The second-order terms of node n at incoming gradients `grads` (the derivative of its formula along the
  // tangents of the tensors it saved): (the edge of the forward input, term) pairs, for the ops forward AD
  // recorded.
  virtual std::vector<std::pair<Edge, Tensor>> second_order(Node& n, const variable_list& grads) = 0;
  // retain_grad's store: the new .grad from the old one (undefined at first) and the gradient (dual or not).
  virtual Tensor retain(const Tensor& old, const Tensor& g) = 0;
  // backward(create_graph=True): a leaf's .grad was just accumulated and tangent t reached it; .grad becomes
  // dual (before the leaf's post-accumulate hooks run, which see it so).
  virtual void store_leaf(const Tensor& leaf, const Tensor& t) = 0;
};

struct DualBackwardResult {
  variable_list grads, tangents;  // autograd.grad's inputs: gradients and their tangents
};

// run_backward with `grad_tangents` (one per output, undefined for none) flowing beside the gradients.
DualBackwardResult run_backward_dual(const variable_list& outputs, const variable_list& grad_outputs,
                                     const variable_list& grad_tangents, bool keep_graph, bool create_graph,
                                     const variable_list& inputs, bool allow_unused,
                                     DualCallbacks& callbacks);

// The second-order term of a node computed in C++ (autograd/dual_terms.cpp) instead of forward AD's re-run of
// the op's rule: what the op read, without history (x[i]: the op's i-th tensor input in the term's layout,
// undefined where the op took a number; t[i]: its tangent; r, tr: the result and its tangent), the inputs'
// gradient edges (invalid: no gradient wanted), number parameters, the result's output_nr, and the forward
// AD level that recorded it (a pass of another level takes no term).
// The engine's reduction of a broadcast gradient back to `shape` (engine.cpp).
Tensor sum_to(const Tensor& g, IntArrayRef shape);

struct DualTerm;
using DualTermFn = variable_list (*)(const DualTerm& d, const Tensor& g);
struct DualTerm {
  DualTermFn fn = nullptr;
  variable_list x, t;
  Tensor r, tr;
  std::vector<Edge> edges;
  std::vector<double> params;
  int64_t level = 0;
  uint32_t output_nr = 0;
};
// The term of op `op` (dual_terms.cpp's table: the ops.schema rows whose `dual_term:` is C++), or null where
// the op has none in C++ or the dtypes are not one real floating dtype (then the re-run gives it).
std::shared_ptr<DualTerm> make_dual_term(const std::string& op, const variable_list& x,
                                         const variable_list& t, const Tensor& r, const Tensor& tr,
                                         std::vector<double> params, int64_t level, uint32_t output_nr);
// The table's ops and whether each term reads the result's tangent (the tests compare it with ops.schema).
std::vector<std::pair<std::string, bool>> dual_term_ops();
// Its (edge, term) pairs at the node's incoming gradients, as DualCallbacks::second_order returns them; each
// term has its input's shape.
std::vector<std::pair<Edge, Tensor>> dual_terms(const DualTerm& d, const variable_list& grads);

}  // namespace mt::autograd
