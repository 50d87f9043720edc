// What the op front ends call to record autograd history: a cheap check, and the recording twin of each
// differentiable primitive op (run the op without grad, then attach a node whose formula is in
// derivatives.cpp, or views.cpp for the view ops and the in-place path). Composite ops (lerp, matmul, stack,
// split, ...) need nothing: their parts record. Each twin has its op's signature, so the declarations below
// mirror the ops/ family headers by design.
#pragma once
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "autograd/GradMode.h"
#include "core/Scalar.h"
#include "core/Tensor.h"
#include "ops/elementwise.h"
#include "ops/loss.h"

namespace mt::autograd {

// True only when grad mode is on and some input requires grad: the common path pays one flag test and a
// pointer load per input, and allocates nothing.
inline bool needs_grad(const Tensor& a) {
  return GradMode::is_enabled() && a.defined() && a.requires_grad();
}
template <typename... T>
inline bool needs_grad(const Tensor& a, const T&... rest) {
  return needs_grad(a) || needs_grad(rest...);
}
inline bool needs_grad(const std::optional<Tensor>& a) {
  return a && needs_grad(*a);
}
bool needs_grad_list(const std::vector<Tensor>& ts);
// View ops run their recording twin for every floating input in grad mode, not only when it requires grad:
// the view must know its base in case values that require grad are later written through it (out[i] = x).
inline bool track_view(const Tensor& self) {
  return GradMode::is_enabled() && is_floating(self.dtype());
}
bool needs_grad_indices(const std::vector<std::optional<Tensor>>& ts);

// In-place ops under grad mode: raises for a leaf that requires grad (PyTorch's message) and for a view
// that requires grad (not supported yet). Called by in-place front ends that have no recording twin.
void check_inplace(const Tensor& self);
// After self was overwritten in place with r's values: self takes r's history (a view gives its base the
// history instead, through CopySlices).
void take_history(const Tensor& self, const Tensor& r);

}  // namespace mt::autograd

namespace mt {
struct ConvArgs;
struct PoolArgs;
struct UpsampleArgs;
}  // namespace mt

namespace mt::autograd {

using TensorPair = std::tuple<Tensor, Tensor>;

// Every recording twin, one line each: (name, ops/ family, return type, parameters). The declarations below
// come from this table, derivatives.cpp / views.cpp define them (a twin missing from the table does not
// compile at its call site), and _C._op_table() hands the list to tests/test_autograd_table.py, which
// gradchecks every entry (a twin added without a case there fails). Overloads repeat the name.
// clang-format off
#define MT_AUTOGRAD_TWINS(_) \
  /* attention */ \
  _(sdpa, attention, Tensor, (const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& mask, \
                              bool is_causal, double scale)) \
  /* conv */ \
  _(convolution, conv, Tensor, (const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias, \
                                const ConvArgs& args)) \
  _(convolution_transpose, conv, Tensor, (const Tensor& input, const Tensor& weight, \
                                          const std::optional<Tensor>& bias, const ConvArgs& args, \
                                          IntArrayRef out_sizes)) \
  _(convolution_backward_weight, conv, Tensor, (const Tensor& grad_out, const Tensor& input, \
                                                IntArrayRef weight_sizes, const ConvArgs& args)) \
  /* copy */ \
  _(copy_, copy, const Tensor&, (const Tensor& self, const Tensor& src, bool non_blocking)) \
  _(clone, copy, Tensor, (const Tensor& self)) \
  _(to, copy, Tensor, (const Tensor& self, ScalarType dtype, Device device, bool copy, bool non_blocking)) \
  _(fill_, copy, const Tensor&, (const Tensor& self, const Scalar& value)) \
  /* elementwise */ \
  _(unary, elementwise, Tensor, (UnaryOp op, const Tensor& self)) \
  _(unary_, elementwise, const Tensor&, (UnaryOp op, const Tensor& self)) \
  _(binary, elementwise, Tensor, (BinaryOp op, const Tensor& a, const Tensor& b)) \
  _(binary_, elementwise, const Tensor&, (BinaryOp op, const Tensor& self, const Tensor& other)) \
  _(clamp, elementwise, Tensor, (const Tensor& self, const std::optional<Tensor>& min, \
                                 const std::optional<Tensor>& max)) \
  _(clamp_, elementwise, const Tensor&, (const Tensor& self, const std::optional<Tensor>& min, \
                                         const std::optional<Tensor>& max)) \
  _(where, elementwise, Tensor, (const Tensor& cond, const Tensor& a, const Tensor& b)) \
  _(masked_fill, elementwise, Tensor, (const Tensor& self, const Tensor& mask, const Tensor& value)) \
  _(masked_fill_, elementwise, const Tensor&, (const Tensor& self, const Tensor& mask, const Tensor& value)) \
  _(softplus, elementwise, Tensor, (const Tensor& self, double beta, double threshold)) \
  _(leaky_relu, elementwise, Tensor, (const Tensor& self, double negative_slope)) \
  /* index */ \
  _(index, index, Tensor, (const Tensor& self, const std::vector<std::optional<Tensor>>& indices)) \
  _(index_put_, index, const Tensor&, (const Tensor& self, const std::vector<std::optional<Tensor>>& indices, \
                                       const Tensor& values, bool accumulate)) \
  _(index_select, index, Tensor, (const Tensor& self, int64_t dim, const Tensor& index)) \
  _(gather, index, Tensor, (const Tensor& self, int64_t dim, const Tensor& index)) \
  _(scatter_, index, const Tensor&, (const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src, \
                                     const std::string& reduce)) \
  /* linalg */ \
  _(mm, linalg, Tensor, (const Tensor& a, const Tensor& b)) \
  _(bmm, linalg, Tensor, (const Tensor& a, const Tensor& b)) \
  _(mv, linalg, Tensor, (const Tensor& a, const Tensor& v)) \
  _(dot, linalg, Tensor, (const Tensor& a, const Tensor& b)) \
  _(addmm, linalg, Tensor, (const Tensor& self, const Tensor& m1, const Tensor& m2, const Scalar& beta, \
                            const Scalar& alpha)) \
  /* loss */ \
  _(class_loss, loss, Tensor, (const Tensor& input, const Tensor& target, const Tensor& weight, \
                               const ClassLossOptions& opt)) \
  _(mse_loss, loss, Tensor, (const Tensor& input, const Tensor& target, Reduction reduction)) \
  _(binary_cross_entropy, loss, Tensor, (const Tensor& input, const Tensor& target, const Tensor& weight, \
                                         Reduction reduction)) \
  /* nn */ \
  _(linear, nn, Tensor, (const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias)) \
  _(layer_norm, nn, Tensor, (const Tensor& input, IntArrayRef normalized_shape, \
                             const std::optional<Tensor>& weight, const std::optional<Tensor>& bias, double eps)) \
  _(group_norm, nn, Tensor, (const Tensor& input, int64_t num_groups, const std::optional<Tensor>& weight, \
                             const std::optional<Tensor>& bias, double eps)) \
  _(batch_norm, nn, Tensor, (const Tensor& input, const std::optional<Tensor>& weight, \
                             const std::optional<Tensor>& bias, const std::optional<Tensor>& running_mean, \
                             const std::optional<Tensor>& running_var, bool training, double momentum, double eps)) \
  _(embedding, nn, Tensor, (const Tensor& weight, const Tensor& indices, int64_t padding_idx, \
                            bool scale_grad_by_freq, bool sparse)) \
  _(dropout, nn, Tensor, (const Tensor& input, double p)) \
  /* pool */ \
  _(max_pool2d_impl, pool, TensorPair, (const Tensor& input, const PoolArgs& args, int64_t oh, int64_t ow)) \
  _(avg_pool2d_impl, pool, Tensor, (const Tensor& input, const PoolArgs& args, int64_t oh, int64_t ow)) \
  _(avg_pool2d_backward, pool, Tensor, (const Tensor& grad_out, const PoolArgs& args, IntArrayRef input_sizes)) \
  _(max_pool2d_backward, pool, Tensor, (const Tensor& grad_out, const Tensor& indices, const PoolArgs& args, \
                                        IntArrayRef input_sizes)) \
  /* upsample */ \
  _(upsample_impl, upsample, Tensor, (const Tensor& input, const UpsampleArgs& args)) \
  _(upsample_backward, upsample, Tensor, (const Tensor& grad_out, const UpsampleArgs& args, IntArrayRef input_sizes)) \
  /* reduce */ \
  _(sum, reduce, Tensor, (const Tensor& self, IntArrayRef dims, bool keepdim, ScalarType dtype)) \
  _(mean, reduce, Tensor, (const Tensor& self, IntArrayRef dims, bool keepdim, ScalarType dtype)) \
  _(prod, reduce, Tensor, (const Tensor& self, IntArrayRef dims, bool keepdim, ScalarType dtype)) \
  _(amax, reduce, Tensor, (const Tensor& self, IntArrayRef dims, bool keepdim)) \
  _(amin, reduce, Tensor, (const Tensor& self, IntArrayRef dims, bool keepdim)) \
  _(var, reduce, Tensor, (const Tensor& self, IntArrayRef dims, double correction, bool keepdim)) \
  _(std, reduce, Tensor, (const Tensor& self, IntArrayRef dims, double correction, bool keepdim)) \
  _(norm, reduce, Tensor, (const Tensor& self, double p, IntArrayRef dims, bool keepdim)) \
  _(logsumexp, reduce, Tensor, (const Tensor& self, IntArrayRef dims, bool keepdim)) \
  _(max, reduce, Tensor, (const Tensor& self)) \
  _(min, reduce, Tensor, (const Tensor& self)) \
  _(max, reduce, TensorPair, (const Tensor& self, int64_t dim, bool keepdim)) \
  _(min, reduce, TensorPair, (const Tensor& self, int64_t dim, bool keepdim)) \
  _(cumsum, reduce, Tensor, (const Tensor& self, int64_t dim, ScalarType dtype)) \
  _(cumprod, reduce, Tensor, (const Tensor& self, int64_t dim, ScalarType dtype)) \
  _(softmax, reduce, Tensor, (const Tensor& self, int64_t dim, ScalarType dtype)) \
  _(log_softmax, reduce, Tensor, (const Tensor& self, int64_t dim, ScalarType dtype)) \
  /* shape */ \
  _(as_strided, shape, Tensor, (const Tensor& self, IntArrayRef sizes, IntArrayRef strides, int64_t offset)) \
  _(alias, shape, Tensor, (const Tensor& self)) \
  _(view, shape, Tensor, (const Tensor& self, IntArrayRef sizes)) \
  _(reshape, shape, Tensor, (const Tensor& self, IntArrayRef sizes)) \
  _(permute, shape, Tensor, (const Tensor& self, IntArrayRef dims)) \
  _(transpose, shape, Tensor, (const Tensor& self, int64_t d0, int64_t d1)) \
  _(squeeze, shape, Tensor, (const Tensor& self)) \
  _(squeeze, shape, Tensor, (const Tensor& self, IntArrayRef dims)) \
  _(unsqueeze, shape, Tensor, (const Tensor& self, int64_t dim)) \
  _(expand, shape, Tensor, (const Tensor& self, IntArrayRef sizes)) \
  _(select, shape, Tensor, (const Tensor& self, int64_t dim, int64_t index)) \
  _(slice, shape, Tensor, (const Tensor& self, int64_t dim, int64_t start, int64_t end, int64_t step)) \
  _(diagonal, shape, Tensor, (const Tensor& self, int64_t offset, int64_t d1, int64_t d2)) \
  _(cat, shape, Tensor, (const std::vector<Tensor>& tensors, int64_t dim))
// clang-format on

#define MT_DECLARE_TWIN(name, family, ret, params) ret name params;
MT_AUTOGRAD_TWINS(MT_DECLARE_TWIN)
#undef MT_DECLARE_TWIN

}  // namespace mt::autograd
