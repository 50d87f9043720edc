// Loss functions (torch.nn.functional's): cross_entropy and nll_loss as fused kernels, mse_loss, bce,
// huber_loss and smooth_l1_loss with a derivative of their own (one node each; the last two a fused CPU
// kernel), torch._ctc_loss (a CPU kernel, F.ctc_loss's), the rest as composites of recorded ops.
#pragma once
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "core/Tensor.h"
#include "ops/Dispatch.h"

namespace mt {

enum class Reduction : int { None, Mean, Sum };
// 'none' | 'mean' | 'sum' (and 'batchmean' where allow_batchmean, kl_div's); ValueError otherwise.
Reduction parse_reduction(const std::string& s);

// input (N, C), (C,) or (N, C, d1, ...); target class indices (int64) or, for cross_entropy, class
// probabilities of input's shape. PyTorch's semantics: ignored targets leave the mean's denominator, which is
// the sum of the targets' weights.
Tensor cross_entropy(const Tensor& input, const Tensor& target, const std::optional<Tensor>& weight,
                     Reduction reduction, int64_t ignore_index, double label_smoothing);
Tensor nll_loss(const Tensor& input, const Tensor& target, const std::optional<Tensor>& weight,
                Reduction reduction, int64_t ignore_index);

// input and target broadcast; mse_loss, binary_cross_entropy, huber_loss and smooth_l1_loss record one node
// (ops.schema's twins), the rest compose.
Tensor mse_loss(const Tensor& input, const Tensor& target, Reduction reduction);
Tensor l1_loss(const Tensor& input, const Tensor& target, Reduction reduction);
Tensor smooth_l1_loss(const Tensor& input, const Tensor& target, Reduction reduction, double beta);
Tensor huber_loss(const Tensor& input, const Tensor& target, Reduction reduction, double delta);
Tensor binary_cross_entropy(const Tensor& input, const Tensor& target, const std::optional<Tensor>& weight,
                            Reduction reduction);
Tensor binary_cross_entropy_with_logits(const Tensor& input, const Tensor& target,
                                        const std::optional<Tensor>& weight, Reduction reduction,
                                        const std::optional<Tensor>& pos_weight);
// batchmean: the sum divided by input.size(0), as PyTorch's kl_div allows.
Tensor kl_div(const Tensor& input, const Tensor& target, Reduction reduction, bool log_target,
              bool batchmean = false);
Tensor soft_margin_loss(const Tensor& input, const Tensor& target, Reduction reduction);

// ---- The fused class losses. nll: input holds log-probabilities; ce_index: logits and class indices;
// ce_prob: logits and class probabilities of input's shape.
enum class ClassLossKind : int { nll, ce_index, ce_prob };
struct ClassLossOptions {
  ClassLossKind kind = ClassLossKind::ce_index;
  Reduction reduction = Reduction::Mean;
  int64_t ignore_index = -100;
  double label_smoothing = 0.0;
};

// The kind cross_entropy takes for this (input, target): probabilities when the shapes are equal.
ClassLossKind cross_entropy_kind(const Tensor& input, const Tensor& target);
// (loss, stats, total_weight). With for_backward, stats (rows x 3, opmath dtype: the row's max m, the log of
// its sum s of exp(x - m), kept apart as m + log s may round to m, and its total target weight over s) and
// total_weight (0-dim, opmath: the mean's denominator) are what the backward kernel needs; otherwise they are
// not computed.
std::tuple<Tensor, Tensor, Tensor> class_loss_forward(const Tensor& input, const Tensor& target,
                                                      const Tensor& weight, const ClassLossOptions& opt,
                                                      bool for_backward);
// The fused class loss as one recorded op (nll_loss and cross_entropy end here; the entry point is generated
// from ops.schema's `twin class_loss`).
Tensor class_loss(const Tensor& input, const Tensor& target, const std::optional<Tensor>& weight,
                  const ClassLossOptions& opt);
// (grad_input, grad_target); grad_target only for ce_prob when need_target.
std::tuple<Tensor, Tensor> class_loss_backward(const Tensor& grad, const Tensor& input, const Tensor& target,
                                               const Tensor& weight, const Tensor& stats,
                                               const Tensor& total_weight, const ClassLossOptions& opt,
                                               bool need_input, bool need_target);

// Kernel interface. input is contiguous outer x classes x inner; a "row" is one sample (outer * inner of
// them), its classes `inner` apart. target: int64 (rows) for nll/ce_index, input's dtype and layout for
// ce_prob. weight: undefined or contiguous (classes) in input's dtype. out: (rows) in input's dtype for
// Reduction::None, else 0-dim. stats/total_weight: see class_loss_forward (undefined when not wanted;
// total_weight is always written for Mean). A target outside [0, classes) that is not ignore_index raises
// IndexError on the CPU; on CUDA (where raising would need a sync) the row's loss and gradient are NaN.
struct ClassLossGeometry {
  int64_t outer, classes, inner;
};
using ClassLossForwardFn = void (*)(const Tensor& out, const Tensor& stats, const Tensor& total_weight,
                                    const Tensor& input, const Tensor& target, const Tensor& weight,
                                    const ClassLossGeometry& g, const ClassLossOptions& opt);
// grad: contiguous (rows) for Reduction::None, else 0-dim, input's dtype. grad_input (input's shape) and
// grad_target (ce_prob, input's shape) are contiguous; either may be undefined (not wanted).
using ClassLossBackwardFn = void (*)(const Tensor& grad_input, const Tensor& grad_target, const Tensor& grad,
                                     const Tensor& input, const Tensor& target, const Tensor& weight,
                                     const Tensor& stats, const Tensor& total_weight,
                                     const ClassLossGeometry& g, const ClassLossOptions& opt);
// huber_loss and smooth_l1_loss (smooth_l1: the huber loss over beta, beta > 0) of x and y, contiguous, one
// shape and one floating dtype. Forward (grad undefined): out is the elementwise loss (Reduction::None) or a
// 0-dim sum or mean. Backward: out = d loss / d x, grad the loss's gradient (x's shape for None, else 0-dim).
// CPU only: elsewhere the front end composes the loss and its gradient from ops.
enum class HuberKind : int { huber, smooth_l1 };
using HuberLossFn = void (*)(const Tensor& out, const Tensor& x, const Tensor& y, const Tensor& grad,
                             HuberKind kind, double param, Reduction reduction);
// d loss / d input of huber_loss / smooth_l1_loss (beta = 0: l1_loss's sign), from ops or the CPU kernel.
Tensor huber_loss_backward(const Tensor& grad, const Tensor& input, const Tensor& target, HuberKind kind,
                           double param, Reduction reduction);
// ---- CTC (torch._ctc_loss): log_probs (T, N, C) float or double on the CPU; targets padded (N, S) or
// concatenated (sum of target_lengths), int32 or int64; one input and target length per sample. Returns the
// negative log-likelihood per sample (N) (inf where no alignment exists; zero_infinity only zeroes the
// gradient, as PyTorch's) and the forward variables log_alpha (N, T, 2 * max target length + 1) the backward
// reads (-inf past each sample's lengths). The entry is generated from ops.schema's `twin ctc_loss`.
std::tuple<Tensor, Tensor> ctc_loss(const Tensor& log_probs, const Tensor& targets, IntArrayRef input_lengths,
                                    IntArrayRef target_lengths, int64_t blank, bool zero_infinity);
// d nll / d log_probs times grad (N): exp(log_probs) minus each class's posterior occupancy, 0 past a
// sample's input length; NaN for a sample whose nll is inf or NaN (0 under zero_infinity when inf), and where
// a log-probability is -inf (PyTorch's log-space formula gives NaN there). Contiguous (T, N, C).
Tensor ctc_loss_backward(const Tensor& grad, const Tensor& log_probs, const Tensor& targets,
                         IntArrayRef input_lengths, IntArrayRef target_lengths,
                         const Tensor& neg_log_likelihood, const Tensor& log_alpha, int64_t blank,
                         bool zero_infinity);
// Kernel interface: targets contiguous int64, sample b's labels from target_offsets[b]; nll (N) and
// log_alpha (N, T, W) contiguous in log_probs' dtype, which may be strided. Backward: grad_input contiguous
// (T, N, C), grad (N) contiguous. CPU only: F.ctc_loss runs its log-space recursions in ops elsewhere.
struct CtcArgs {
  IntArrayRef input_lengths, target_lengths;
  std::vector<int64_t> target_offsets;
  int64_t blank;
  bool zero_infinity;
};
using CtcLossFn = void (*)(const Tensor& nll, const Tensor& log_alpha, const Tensor& log_probs,
                           const Tensor& targets, const CtcArgs& args);
using CtcLossBackwardFn = void (*)(const Tensor& grad_input, const Tensor& grad, const Tensor& log_probs,
                                   const Tensor& targets, const Tensor& nll, const Tensor& log_alpha,
                                   const CtcArgs& args);
MT_STUBS_LOSS_H(MT_DECLARE_STUB_ROW)  // ops/op_table.h

}  // namespace mt
