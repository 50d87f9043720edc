// The recording twin of each differentiable primitive op (run the op without grad, then attach a node whose
// formula is in derivatives.cpp, or views.cpp for the view ops and the in-place path), declared from the
// schema's `twin` rows; the generated entry points (build/<dir>/gen/generated/entries.cpp) call them when an
// input requires grad. Composite ops (lerp, matmul, stack, split, ...) need nothing: their parts record.
#pragma once
#include <functional>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "autograd/AutogradMeta.h"
#include "core/GradMode.h"
#include "core/Scalar.h"
#include "core/Tensor.h"
#include "ops/elementwise.h"
#include "ops/loss.h"
#include "ops/op_table.h"

namespace mt::autograd {

using ::mt::needs_grad;  // core/GradMode.h: grad mode on and some input requires grad
bool needs_grad_list(const std::vector<Tensor>& ts);
// An argument the op has no derivative for, requiring grad in grad mode: PyTorch's refusal before the op runs
// ("The function 'native_batch_norm' is not differentiable with respect to argument 'running_mean'...")
void check_not_differentiable(const char* fn, const char* arg, const std::optional<Tensor>& t);
// View ops run their recording twin for every floating or complex input in grad mode, not only when it
// requires grad: the view must know how to remake itself from its base in case values that require grad are
// later written through it (out[i] = x).
inline bool track_view(const Tensor& self) {
  return GradMode::is_enabled() && is_inexact(self.dtype());
}
// The other views (under no_grad or inference mode, of integer and bool tensors) still know their root base,
// as PyTorch's (Tensor._base, _is_view()), and how they were made (CreationMeta), without a node or a replay
// function: the generated entry of each view op passes the plain op's result through. A list is the outputs
// of one multi-output view op (split_with_sizes, unbind).
Tensor mark_plain_view(const Tensor& self, Tensor out);
std::vector<Tensor> mark_plain_view(const Tensor& self, std::vector<Tensor> outs);
bool needs_grad_indices(const std::vector<std::optional<Tensor>>& ts);
// The result of an op that is no view op (index, whose plain op reshapes its gather) may come out of the
// plain op as a view of a temporary the op made: it is no view, as PyTorch's (its base is reachable from
// nowhere else; left a view, it would report that base as _base and, made inside a twin's no_grad, refuse
// in-place writes). The generated entries pass such results through fresh_result.
void unview_temporary(const Tensor& out);
inline const Tensor& fresh_result(const Tensor& out) {
  if (!out.defined()) return out;  // an output the op did not make (cudnn_rnn's cell state of a GRU)
  if (out.impl()->is_view()) unview_temporary(out);
  return out;
}
inline Tensor fresh_result(Tensor&& out) {
  fresh_result(static_cast<const Tensor&>(out));
  return std::move(out);
}
inline std::vector<Tensor> fresh_result(std::vector<Tensor>&& outs) {
  for (const Tensor& o : outs) fresh_result(o);
  return std::move(outs);
}
template <typename... T>
std::tuple<T...> fresh_result(std::tuple<T...>&& outs) {
  std::apply([](const auto&... o) { (fresh_result(o), ...); }, outs);
  return std::move(outs);
}

// In-place ops under grad mode when an input requires grad (`requires_grad`; the single-argument form asks
// self): PyTorch's refusals, in its order and words: a view made under no_grad or inference mode or by a
// multi-output op, a view of a leaf that requires grad, a leaf that requires grad. Called by the generic
// in-place path and by in-place front ends that have no recording twin.
void check_inplace(const Tensor& self, bool requires_grad);
inline void check_inplace(const Tensor& self) {
  check_inplace(self, self.requires_grad());
}
// After self was overwritten in place with r's values: self takes r's history (a view gives its base the
// history instead, through CopySlices).
void take_history(const Tensor& self, const Tensor& r);
// An in-place write whose values depend on no input's (the random fills, the schema's `overwrite:` entry
// rows), in grad mode with self or one of `others` requiring grad: checked as every in-place op, `write` runs
// without grad, and node `node` gives self's old history and each of `others` a zero gradient (PyTorch's
// derivatives.yaml `self: zeros_like(grad)`); a view gives its base the history, through CopySlices.
Tensor& overwrite(const char* node, Tensor& self, std::vector<const Tensor*> others,
                  const std::function<void()>& write);
// The in-place view ops (t_, transpose_, squeeze_, unsqueeze_, as_strided_): self takes the sizes, strides
// and offset of view(self) and, in grad mode, its history, and its version is bumped, as PyTorch's. A leaf
// that requires grad (or a view of one) is refused; a view stays a view of its base, its replay extended by
// the op (`replayable` false for as_strided: replayed from its geometry relative to the base instead).
const Tensor& inplace_view(const Tensor& self, const std::function<Tensor(const Tensor&)>& view,
                           bool replayable = true);
// Tensor.set_'s forms (ops/shape.h's plain ones under PyTorch's in-place rules): in grad mode, with self or
// the source tensor of set_(source) requiring grad, a leaf that requires grad is refused and self's history
// becomes PyTorch's NotImplemented node (set_ has no derivative: backward through it raises). self is no view
// afterwards (PyTorch keeps its _base, though its memory is no longer the base's). Each returns self.
const Tensor& set_(const Tensor& self);
const Tensor& set_(const Tensor& self, const Tensor& source);
const Tensor& set_(const Tensor& self, const Tensor& source, int64_t offset, IntArrayRef sizes,
                   const IntArrayRef* strides);
const Tensor& set_(const Tensor& self, const Storage& storage, int64_t offset, IntArrayRef sizes,
                   const IntArrayRef* strides);
// The view `view` (a tracked view: view_fn or its geometry relative to its base) remade on `t`, a tensor laid
// out as its root base: its recorded view function, else (as_strided views) its geometry relative to the
// base. Forward AD gives a view taken before its base became dual the matching view of the base's tangent
// with it.
Tensor replay_view_on(const Tensor& view, const Tensor& t);

}  // namespace mt::autograd

namespace mt {
struct ConvArgs;
struct PoolArgs;
struct RnnArgs;
struct UpsampleArgs;
struct UpsampleAaArgs;
}  // namespace mt

namespace mt::autograd {

using TensorPair = std::tuple<Tensor, Tensor>;
using TensorQuad = std::tuple<Tensor, Tensor, Tensor, Tensor>;

// The recording twins: one declaration per row of ops/op_table.h's MT_AUTOGRAD_TWINS (name, ops/ family,
// return type, parameters); derivatives.cpp / views.cpp define them.

#define MT_DECLARE_TWIN(name, family, ret, params) ret name params;
MT_AUTOGRAD_TWINS(MT_DECLARE_TWIN)
#undef MT_DECLARE_TWIN
// round.decimals, recorded as one node (derivatives.cpp)
Tensor round_decimals(const Tensor& self, int64_t decimals);

}  // namespace mt::autograd
