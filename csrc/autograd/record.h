// What the op front ends call to record autograd history: a cheap check, and the recording twin of each
// differentiable primitive op (run the op without grad, then attach a node whose formula is in
// derivatives.cpp). Composite ops (lerp, matmul, stack, split, ...) need nothing: their parts record.
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

Tensor unary(UnaryOp op, const Tensor& self);
const Tensor& unary_(UnaryOp op, const Tensor& self);
Tensor binary(BinaryOp op, const Tensor& a, const Tensor& b);
const Tensor& binary_(BinaryOp op, const Tensor& self, const Tensor& other);
Tensor clamp(const Tensor& self, const std::optional<Tensor>& min, const std::optional<Tensor>& max);
const Tensor& clamp_(const Tensor& self, const std::optional<Tensor>& min, const std::optional<Tensor>& max);
Tensor where(const Tensor& cond, const Tensor& a, const Tensor& b);
Tensor masked_fill(const Tensor& self, const Tensor& mask, const Tensor& value);
const Tensor& masked_fill_(const Tensor& self, const Tensor& mask, const Tensor& value);
Tensor softplus(const Tensor& self, double beta, double threshold);
Tensor leaky_relu(const Tensor& self, double negative_slope);

Tensor sum(const Tensor& self, IntArrayRef dims, bool keepdim, ScalarType dtype);
Tensor mean(const Tensor& self, IntArrayRef dims, bool keepdim, ScalarType dtype);
Tensor prod(const Tensor& self, IntArrayRef dims, bool keepdim, ScalarType dtype);
Tensor amax(const Tensor& self, IntArrayRef dims, bool keepdim);
Tensor amin(const Tensor& self, IntArrayRef dims, bool keepdim);
Tensor var(const Tensor& self, IntArrayRef dims, double correction, bool keepdim);
Tensor std(const Tensor& self, IntArrayRef dims, double correction, bool keepdim);
Tensor norm(const Tensor& self, double p, IntArrayRef dims, bool keepdim);
Tensor logsumexp(const Tensor& self, IntArrayRef dims, bool keepdim);
Tensor max(const Tensor& self);
Tensor min(const Tensor& self);
std::tuple<Tensor, Tensor> max(const Tensor& self, int64_t dim, bool keepdim);
std::tuple<Tensor, Tensor> min(const Tensor& self, int64_t dim, bool keepdim);
Tensor cumsum(const Tensor& self, int64_t dim, ScalarType dtype);
Tensor cumprod(const Tensor& self, int64_t dim, ScalarType dtype);
Tensor softmax(const Tensor& self, int64_t dim, ScalarType dtype);
Tensor log_softmax(const Tensor& self, int64_t dim, ScalarType dtype);

Tensor mm(const Tensor& a, const Tensor& b);
Tensor bmm(const Tensor& a, const Tensor& b);
Tensor mv(const Tensor& a, const Tensor& v);
Tensor dot(const Tensor& a, const Tensor& b);
Tensor addmm(const Tensor& self, const Tensor& m1, const Tensor& m2, const Scalar& beta, const Scalar& alpha);

Tensor as_strided(const Tensor& self, IntArrayRef sizes, IntArrayRef strides, int64_t offset);
Tensor alias(const Tensor& self);
Tensor view(const Tensor& self, IntArrayRef sizes);
Tensor reshape(const Tensor& self, IntArrayRef sizes);
Tensor permute(const Tensor& self, IntArrayRef dims);
Tensor transpose(const Tensor& self, int64_t d0, int64_t d1);
Tensor squeeze(const Tensor& self);
Tensor squeeze(const Tensor& self, IntArrayRef dims);
Tensor unsqueeze(const Tensor& self, int64_t dim);
Tensor expand(const Tensor& self, IntArrayRef sizes);
Tensor select(const Tensor& self, int64_t dim, int64_t index);
Tensor slice(const Tensor& self, int64_t dim, int64_t start, int64_t end, int64_t step);
Tensor diagonal(const Tensor& self, int64_t offset, int64_t d1, int64_t d2);
Tensor cat(const std::vector<Tensor>& tensors, int64_t dim);

Tensor index(const Tensor& self, const std::vector<std::optional<Tensor>>& indices);
const Tensor& index_put_(const Tensor& self, const std::vector<std::optional<Tensor>>& indices,
                         const Tensor& values, bool accumulate);
Tensor index_select(const Tensor& self, int64_t dim, const Tensor& index);
Tensor gather(const Tensor& self, int64_t dim, const Tensor& index);
const Tensor& scatter_(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
                       const std::string& reduce);

const Tensor& copy_(const Tensor& self, const Tensor& src, bool non_blocking);
Tensor clone(const Tensor& self);
Tensor to(const Tensor& self, ScalarType dtype, Device device, bool copy, bool non_blocking);
const Tensor& fill_(const Tensor& self, const Scalar& value);

// In-place ops under grad mode: raises for a leaf that requires grad (PyTorch's message) and for a view
// that requires grad (not supported yet). Called by in-place front ends that have no recording twin.
void check_inplace(const Tensor& self);
// After self was overwritten in place with r's values: self takes r's history (a view gives its base the
// history instead, through CopySlices).
void take_history(const Tensor& self, const Tensor& r);

// ---- conv and pooling (helper conv): recording twins of the primitives in ops/conv.h and ops/pool.h
}  // namespace mt::autograd
namespace mt {
struct ConvArgs;
struct PoolArgs;
}  // namespace mt
namespace mt::autograd {
Tensor convolution(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias,
                   const ConvArgs& args);
Tensor convolution_transpose(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias,
                             const ConvArgs& args, IntArrayRef out_sizes);
std::tuple<Tensor, Tensor> max_pool2d_impl(const Tensor& input, const PoolArgs& args, int64_t oh, int64_t ow);
Tensor avg_pool2d_impl(const Tensor& input, const PoolArgs& args, int64_t oh, int64_t ow);
Tensor convolution_backward_weight(const Tensor& grad_out, const Tensor& input, IntArrayRef weight_sizes,
                                   const ConvArgs& args);
Tensor avg_pool2d_backward(const Tensor& grad_out, const PoolArgs& args, IntArrayRef input_sizes);
Tensor max_pool2d_backward(const Tensor& grad_out, const Tensor& indices, const PoolArgs& args,
                           IntArrayRef input_sizes);
}  // namespace mt::autograd
namespace mt {
struct UpsampleArgs;
}  // namespace mt
namespace mt::autograd {
// upsampling (helper api14): twins of ops/upsample.h's primitive and its gradient
Tensor upsample_impl(const Tensor& input, const UpsampleArgs& args);
Tensor upsample_backward(const Tensor& grad_out, const UpsampleArgs& args, IntArrayRef input_sizes);

// ---- nn ops (helper normops)
Tensor linear(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias);
Tensor layer_norm(const Tensor& input, IntArrayRef normalized_shape, const std::optional<Tensor>& weight,
                  const std::optional<Tensor>& bias, double eps);
Tensor group_norm(const Tensor& input, int64_t num_groups, const std::optional<Tensor>& weight,
                  const std::optional<Tensor>& bias, double eps);
Tensor batch_norm(const Tensor& input, const std::optional<Tensor>& weight, const std::optional<Tensor>& bias,
                  const std::optional<Tensor>& running_mean, const std::optional<Tensor>& running_var,
                  bool training, double momentum, double eps);
Tensor embedding(const Tensor& weight, const Tensor& indices, int64_t padding_idx, bool scale_grad_by_freq,
                 bool sparse);
Tensor dropout(const Tensor& input, double p);  // 0 < p < 1, training

// ---- loss (helper loss)
// cross_entropy / nll_loss: one fused forward, one node whose backward is the fused backward kernel.
Tensor class_loss(const Tensor& input, const Tensor& target, const Tensor& weight,
                  const ClassLossOptions& opt);
Tensor mse_loss(const Tensor& input, const Tensor& target, Reduction reduction);
Tensor binary_cross_entropy(const Tensor& input, const Tensor& target, const Tensor& weight,
                            Reduction reduction);

}  // namespace mt::autograd
