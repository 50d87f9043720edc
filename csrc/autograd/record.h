// The recording twin of each differentiable primitive op (run the op without grad, then attach a node whose
// formula is in derivatives.cpp, or views.cpp for the view ops and the in-place path), declared from the
// schema's `twin` rows; the generated entry points (build/<dir>/gen/generated/entries.cpp) call them when an
// input requires grad. Composite ops (lerp, matmul, stack, split, ...) need nothing: their parts record.
#pragma once
#include <functional>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "core/GradMode.h"
#include "core/Scalar.h"
#include "core/Tensor.h"
#include "ops/elementwise.h"
#include "ops/loss.h"
#include "ops/op_table.h"

namespace mt::autograd {

using ::mt::needs_grad;  // core/GradMode.h: grad mode on and some input requires grad
bool needs_grad_list(const std::vector<Tensor>& ts);
// View ops run their recording twin for every floating or complex input in grad mode, not only when it
// requires grad: the view must know its base in case values that require grad are later written through it
// (out[i] = x).
inline bool track_view(const Tensor& self) {
  return GradMode::is_enabled() && is_inexact(self.dtype());
}
bool needs_grad_indices(const std::vector<std::optional<Tensor>>& ts);

// In-place ops under grad mode: raises for a leaf that requires grad (PyTorch's message) and for a view
// that requires grad (not supported yet). Called by in-place front ends that have no recording twin.
void check_inplace(const Tensor& self);
// After self was overwritten in place with r's values: self takes r's history (a view gives its base the
// history instead, through CopySlices).
void take_history(const Tensor& self, const Tensor& r);
// The in-place view ops (t_, transpose_, squeeze_, unsqueeze_, as_strided_): self takes the sizes, strides
// and offset of view(self) and, in grad mode, its history, and its version is bumped, as PyTorch's. A leaf
// that requires grad (or a view of one) is refused; a view stays a view of its base, its replay extended by
// the op (`replayable` false for as_strided: replayed from its geometry relative to the base instead).
const Tensor& inplace_view(const Tensor& self, const std::function<Tensor(const Tensor&)>& view,
                           bool replayable = true);
// The view `view` (a tracked view: view_base set) remade on `t`, a tensor laid out as its root base: its
// recorded view function, else (as_strided views) its geometry relative to the base. Forward AD gives a view
// taken before its base became dual the matching view of the base's tangent with it.
Tensor replay_view_on(const Tensor& view, const Tensor& t);

}  // namespace mt::autograd

namespace mt {
struct ConvArgs;
struct PoolArgs;
struct RnnArgs;
struct UpsampleArgs;
}  // namespace mt

namespace mt::autograd {

using TensorPair = std::tuple<Tensor, Tensor>;
using TensorQuad = std::tuple<Tensor, Tensor, Tensor, Tensor>;

// The recording twins: one declaration per row of ops/op_table.h's MT_AUTOGRAD_TWINS (name, ops/ family,
// return type, parameters); derivatives.cpp / views.cpp define them.

#define MT_DECLARE_TWIN(name, family, ret, params) ret name params;
MT_AUTOGRAD_TWINS(MT_DECLARE_TWIN)
#undef MT_DECLARE_TWIN

}  // namespace mt::autograd
