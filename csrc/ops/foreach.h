// Multi-tensor ops (PyTorch's _foreach_* and fused optimizer steps): one call updates a whole list of
// tensors.
#pragma once
#include <optional>
#include <vector>

#include "core/Scalar.h"
#include "core/Tensor.h"
#include "ops/Dispatch.h"

namespace mt {

// ---- The ops. All in place unless they return a list; none records autograd. Tensors at one index share
// shape and dtype; lists may mix dtypes and devices (the front end groups them: one kernel call per group).
void foreach_add_(const TensorList& self, const TensorList& other, double alpha);
void foreach_add_(const TensorList& self, double scalar);
void foreach_mul_(const TensorList& self, double scalar);
void foreach_mul_(const TensorList& self, const Tensor& scalar);  // a 1-element tensor, read on its device
void foreach_mul_(const TensorList& self, const TensorList& other);
void foreach_zero_(const TensorList& self);
void foreach_addcmul_(const TensorList& self, const TensorList& t1, const TensorList& t2, double value);
void foreach_addcdiv_(const TensorList& self, const TensorList& t1, const TensorList& t2, double value);
void foreach_lerp_(const TensorList& self, const TensorList& end, double weight);
TensorList foreach_sqrt(const TensorList& self);
// One 0-dim tensor per input, of the input's dtype, accumulated in float (double for float64).
TensorList foreach_norm(const TensorList& self, double ord);

// The fused optimizer steps take GradScaler's two tensors as PyTorch's fused kernels do (one-element float32,
// read on the device, so a scaled step needs no host sync): grads are divided by grad_scale (and written back
// unscaled) and nothing moves, steps included, when found_inf is nonzero. Either may be absent.
using AmpStepArgs = std::optional<Tensor>;

// SGD (PyTorch's algorithm). momentum_buffers: empty when momentum == 0; on the first step they receive d_p.
void fused_sgd_(const TensorList& params, const TensorList& grads, const TensorList& momentum_buffers,
                double lr, double momentum, double dampening, double weight_decay, bool nesterov,
                bool maximize, bool is_first_step, const AmpStepArgs& grad_scale = std::nullopt,
                const AmpStepArgs& found_inf = std::nullopt);
// Adam / AdamW (decoupled_weight_decay). state_steps: 0-dim float32 tensors, incremented here first.
// max_exp_avg_sqs: empty unless amsgrad.
void fused_adam_(const TensorList& params, const TensorList& grads, const TensorList& exp_avgs,
                 const TensorList& exp_avg_sqs, const TensorList& max_exp_avg_sqs,
                 const TensorList& state_steps, double lr, double beta1, double beta2, double weight_decay,
                 double eps, bool amsgrad, bool maximize, bool decoupled_weight_decay,
                 const AmpStepArgs& grad_scale = std::nullopt, const AmpStepArgs& found_inf = std::nullopt);
// RMSprop: grad_avgs empty unless centered, momentum_buffers empty unless momentum > 0.
void fused_rmsprop_(const TensorList& params, const TensorList& grads, const TensorList& square_avgs,
                    const TensorList& grad_avgs, const TensorList& momentum_buffers,
                    const TensorList& state_steps, double lr, double alpha, double eps, double weight_decay,
                    double momentum, bool centered, bool maximize,
                    const AmpStepArgs& grad_scale = std::nullopt,
                    const AmpStepArgs& found_inf = std::nullopt);
void fused_adagrad_(const TensorList& params, const TensorList& grads, const TensorList& state_sums,
                    const TensorList& state_steps, double lr, double lr_decay, double weight_decay,
                    double eps, bool maximize, const AmpStepArgs& grad_scale = std::nullopt,
                    const AmpStepArgs& found_inf = std::nullopt);
// GradScaler's two kernels: grads *= inv_scale, found_inf = 1 where a grad is inf/nan (no host sync).
void amp_foreach_non_finite_check_and_unscale_(const TensorList& grads, const Tensor& found_inf,
                                               const Tensor& inv_scale);
const Tensor& amp_update_scale_(const Tensor& scale, const Tensor& growth_tracker, const Tensor& found_inf,
                                double growth_factor, double backoff_factor, int64_t growth_interval);

// ---- Kernel interface. A pointwise multi-tensor op is a kind plus its arguments; the math for each kind is
// one functor (kernels/foreach_functors.h) shared by the CPU loop and the CUDA multi-tensor-apply kernel.
enum class ForeachKind : int {
  add_scalar,
  add_list,
  mul_scalar,
  mul_tensor,
  mul_list,
  zero,
  addcmul,
  addcdiv,
  lerp,
  sqrt,
  sgd,
  adam,
  rmsprop,
  adagrad,
  unscale,
};

struct ForeachArgs {
  ForeachKind kind = ForeachKind::add_scalar;
  double scalar = 0;  // add/mul/addcmul/addcdiv value, lerp weight
  double lr = 0, beta1 = 0, beta2 = 0, weight_decay = 0, eps = 0, momentum = 0, dampening = 0, alpha = 1,
         lr_decay = 0;
  bool nesterov = false, maximize = false, amsgrad = false, decoupled = false, first_step = false,
       centered = false;
  // mul_tensor: the factor, a 1-element tensor of the group's opmath dtype (float or double) on its device.
  const void* scalar_ptr = nullptr;
  // unscale: a float32 flag set to 1 on non-finite input; its inv_scale factor (float32).
  float* found_inf = nullptr;
  const float* inv_scale = nullptr;
  // optimizer kinds under GradScaler (float32, the group's device, or null): list 1 (the grads) is divided
  // by *grad_scale and written back; the whole call does nothing when *skip_if != 0.
  const float* grad_scale = nullptr;
  const float* skip_if = nullptr;
};

// lists: dense tensors, lists[k][i] all of one dtype and numel (the group's); slots: empty or one float32
// element per index (the optimizer step), read by the functor. Empty tensors are never passed.
using ForeachKernelFn = void (*)(const std::vector<TensorList>& lists, const TensorList& slots,
                                 const ForeachArgs& args);
// outs[i] (0-dim, dtype of in[i]) <- ord-norm of dense in[i]; ord is 1, 2 or +inf; all of one dtype.
using ForeachNormFn = void (*)(const TensorList& outs, const TensorList& in, double ord);
// scale (float32), growth_tracker (int32), found_inf (float32): one element each.
using AmpUpdateScaleFn = void (*)(const Tensor& scale, const Tensor& growth_tracker, const Tensor& found_inf,
                                  double growth_factor, double backoff_factor, int64_t growth_interval);
MT_STUBS_FOREACH_H(MT_DECLARE_STUB_ROW)  // ops/op_table.h

}  // namespace mt
