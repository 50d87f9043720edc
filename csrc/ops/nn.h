// Neural-network ops (torch.nn.functional's C++ core): linear, batch/layer/group norm, embedding, dropout.
#pragma once
#include <optional>
#include <tuple>

#include "core/Tensor.h"
#include "ops/Dispatch.h"

namespace mt {

using OptTensor = std::optional<Tensor>;

// input (*, in) @ weight(out, in).T + bias(out): one GEMM with the bias folded in (beta = 1).
Tensor linear(const Tensor& input, const Tensor& weight, const OptTensor& bias);
Tensor batch_norm(const Tensor& input, const OptTensor& weight, const OptTensor& bias,
                  const OptTensor& running_mean, const OptTensor& running_var, bool training, double momentum,
                  double eps);
Tensor layer_norm(const Tensor& input, IntArrayRef normalized_shape, const OptTensor& weight,
                  const OptTensor& bias, double eps);
Tensor group_norm(const Tensor& input, int64_t num_groups, const OptTensor& weight, const OptTensor& bias,
                  double eps);
Tensor embedding(const Tensor& weight, const Tensor& indices, int64_t padding_idx, bool scale_grad_by_freq,
                 bool sparse);
const Tensor& embedding_renorm_(const Tensor& weight, const Tensor& indices, double max_norm,
                                double norm_type);
Tensor dropout(const Tensor& input, double p, bool train);
// The dropping itself, one recorded op (ops.schema's `twin dropout`): 0 < p < 1, a non-empty input.
Tensor dropout(const Tensor& input, double p);
Tensor feature_dropout(const Tensor& input, double p, bool train);
Tensor alpha_dropout(const Tensor& input, double p, bool train);

// The primitives the front ends above end in, without autograd; their twins in autograd/derivatives.cpp save
// what these return. mean and rstd come in the statistics dtype (float for float/half/bfloat16 input, double
// for double): layer_norm [rows], group_norm [N, G], batch_norm [C] (batch statistics in training,
// running ones otherwise).
std::tuple<Tensor, Tensor, Tensor> native_layer_norm(const Tensor& input, IntArrayRef normalized_shape,
                                                     const OptTensor& weight, const OptTensor& bias,
                                                     double eps);
std::tuple<Tensor, Tensor, Tensor> native_group_norm(const Tensor& input, int64_t num_groups,
                                                     const OptTensor& weight, const OptTensor& bias,
                                                     double eps);
std::tuple<Tensor, Tensor, Tensor> native_batch_norm(const Tensor& input, const OptTensor& weight,
                                                     const OptTensor& bias, const OptTensor& running_mean,
                                                     const OptTensor& running_var, bool training,
                                                     double momentum, double eps);
// Fused backward passes (used when the backward itself is not recorded). Outputs not wanted are skipped and
// come back undefined. layer_norm: (dx, dweight, dbias) with dweight/dbias flat [N] in the statistics dtype.
std::tuple<Tensor, Tensor, Tensor> native_layer_norm_backward(const Tensor& grad, const Tensor& input,
                                                              const Tensor& mean, const Tensor& rstd,
                                                              const Tensor& weight, int64_t M, int64_t N,
                                                              bool want_input, bool want_weight,
                                                              bool want_bias);
// batch_norm: mean/rstd as native_batch_norm returned them; training selects the formula.
std::tuple<Tensor, Tensor, Tensor> native_batch_norm_backward(const Tensor& grad, const Tensor& input,
                                                              const Tensor& mean, const Tensor& rstd,
                                                              const Tensor& weight, bool training,
                                                              bool want_input, bool want_weight,
                                                              bool want_bias);
// (output, keep mask as bool); 0 < p < 1.
std::tuple<Tensor, Tensor> native_dropout(const Tensor& input, double p);
// Checked gather of weight's rows (IndexError "index out of range in self").
Tensor embedding_forward(const Tensor& weight, const Tensor& indices);
// Dense gradient of embedding: rows of grad summed into [num_weights, D]; padding_idx rows stay zero.
Tensor embedding_backward(const Tensor& grad, const Tensor& indices, int64_t num_weights, int64_t padding_idx,
                          bool scale_grad_by_freq);

// ---- Kernel interface. Every tensor passed is contiguous; `acc` tensors (mean, rstd, var, scale, shift,
// and the weight/bias given to row_norm) have the statistics dtype.
// Per row of x [M, N]: mean and rstd = 1/sqrt(biased var + eps); when y is defined, also
// y = (x - mean) * rstd * w + b (w, b [N] or undefined).
using RowNormFn = void (*)(const Tensor& y, const Tensor& mean, const Tensor& rstd, const Tensor& x,
                           const Tensor& w, const Tensor& b, int64_t M, int64_t N, double eps);
// Per channel of x [N, C, S]: mean, biased var over N and S, and rstd = 1/sqrt(var + eps).
using ChannelStatsFn = void (*)(const Tensor& mean, const Tensor& var, const Tensor& rstd, const Tensor& x,
                                int64_t N, int64_t C, int64_t S, double eps);
// y [N, C, S] = (x - mean) * rstd * w[c] + b[c] (w, b [C] or undefined). G == 0: mean/rstd per channel [C]
// (batch norm); G > 0: per (n, group) [N, G], channel c in group c / (C / G) (group norm). Subtracting the
// mean first keeps precision when rstd is large (a folded x * scale + shift would cancel).
using ChannelAffineFn = void (*)(const Tensor& y, const Tensor& x, const Tensor& mean, const Tensor& rstd,
                                 const Tensor& w, const Tensor& b, int64_t N, int64_t C, int64_t S,
                                 int64_t G);
// y = keep ? x / (1 - p) : 0, keep drawn with probability 1 - p from Philox(seed, ., offset); mask (bool)
// records keep.
using DropoutFn = void (*)(const Tensor& y, const Tensor& mask, const Tensor& x, double p, uint64_t seed,
                           uint64_t offset);
// out [n, D] = weight[indices[i]] for indices (int32 or int64, n of them); IndexError out of range.
using EmbeddingFn = void (*)(const Tensor& out, const Tensor& weight, const Tensor& indices);
// Backward of row_norm over x, g [M, N]: dx = rstd * (gw - mean(gw) - xhat * mean(gw * xhat)) with
// gw = g * w (w undefined: 1); dw = sum over rows of g * xhat, db = sum over rows of g ([N], statistics
// dtype). Any of dx, dw, db may be undefined: skipped.
using RowNormBackwardFn = void (*)(const Tensor& dx, const Tensor& dw, const Tensor& db, const Tensor& g,
                                   const Tensor& x, const Tensor& mean, const Tensor& rstd, const Tensor& w,
                                   int64_t M, int64_t N);
// Per channel of x, g [N, C, S]: sum_g = sum of g, sum_gx = sum of g * (x - mean[c]).
using ChannelGradSumsFn = void (*)(const Tensor& sum_g, const Tensor& sum_gx, const Tensor& g,
                                   const Tensor& x, const Tensor& mean, int64_t N, int64_t C, int64_t S);
// Batch norm's input gradient, dx [N, C, S] = (g - mg - (x - mean) * rstd^2 * mgx) * rstd * w with the
// per-channel means mg = sum_g / (N S), mgx = sum_gx / (N S) in training; eval (sum_g undefined): g * rstd *
// w.
using ChannelGradInputFn = void (*)(const Tensor& dx, const Tensor& g, const Tensor& x, const Tensor& mean,
                                    const Tensor& rstd, const Tensor& w, const Tensor& sum_g,
                                    const Tensor& sum_gx, int64_t N, int64_t C, int64_t S);
// Embedding's dense gradient: acc [num, D] (statistics dtype, zeroed) += g[i] for every row i of g [n, D]
// whose index (int32/int64, all in range) is not padding_idx, divided by counts[index] when counts ([num],
// statistics dtype, zeroed) is defined; the kernel fills counts first.
using EmbeddingBackwardFn = void (*)(const Tensor& acc, const Tensor& counts, const Tensor& g,
                                     const Tensor& indices, int64_t padding_idx);
// pdist's kernel (torch._pdist_forward / _pdist_backward): x contiguous (n, m), float or double. Forward
// (grad undefined): out (n (n - 1) / 2) the p-norm distances of the row pairs i < j in row-major order.
// Backward: out (n, m) = d (sum grad * dist) / d x, from dist (the forward's result). CPU only: F.pdist
// composes from ops elsewhere.
using PdistFn = void (*)(const Tensor& out, const Tensor& grad, const Tensor& x, const Tensor& dist,
                         double p);
Tensor pdist_forward(const Tensor& input, double p);
Tensor pdist_backward(const Tensor& grad, const Tensor& input, double p, const Tensor& pdist);
MT_STUBS_NN_H(MT_DECLARE_STUB_ROW)  // ops/op_table.h

}  // namespace mt
