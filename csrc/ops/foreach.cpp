// Multi-tensor front ends: list checks, grouping by (device, dtype), dense staging of strided tensors, then
// one kernel call per group: the CPU loop or the CUDA multi-tensor-apply kernel covers every tensor of the
// group.
#include "ops/foreach.h"

#include <cmath>
#include <limits>

#include "core/FreshWrites.h"
#include "core/GradMode.h"
#include "ops/copy.h"
#include "ops/factory.h"
#include "ops/reduce.h"

namespace mt {

namespace {

void check_same_device(const Tensor& a, const Tensor& b) {
  if (a.device() == b.device()) return;
  MT_ERROR("Expected all tensors to be on the same device, but found at least two devices, ",
           a.device().str(), " and ", b.device().str(), "!");
}

void check_lists(const char* name, const std::vector<const TensorList*>& lists) {
  const size_t n = lists[0]->size();
  MT_CHECK(n > 0, "Tensor list must have at least one tensor.");
  for (size_t k = 1; k < lists.size(); ++k)
    MT_CHECK(lists[k]->size() == n, "Tensor lists must have the same number of tensors, got ", n, " and ",
             lists[k]->size());
  for (size_t i = 0; i < n; ++i) {
    const Tensor& t0 = (*lists[0])[i];
    MT_CHECK(t0.defined(), name, ": expected a tensor at index ", i, ", got None");
    MT_CHECK_NOT_IMPLEMENTED(is_floating(t0.dtype()), "\"", name, "\" not implemented for '",
                             dtype_short_name(t0.dtype()), "'");
    for (size_t k = 1; k < lists.size(); ++k) {
      const Tensor& t = (*lists[k])[i];
      MT_CHECK(t.defined(), name, ": expected a tensor at index ", i, ", got None");
      check_same_device(t0, t);
      MT_CHECK(t.dtype() == t0.dtype(), name, ": expected the tensors at index ", i,
               " to have one dtype, got ", dtype_name(t0.dtype()), " and ", dtype_name(t.dtype()));
      MT_CHECK(t.sizes().size() == t0.sizes().size() && IntArrayRef(t.sizes()).equals(t0.sizes()), name,
               ": the tensors at index ", i, " have different shapes ", shape_str(t0.sizes()), " and ",
               shape_str(t.sizes()));
    }
  }
}

void check_slots(const char* name, const TensorList& slots, const TensorList& ref) {
  MT_CHECK(slots.size() == ref.size(), "Tensor lists must have the same number of tensors, got ", ref.size(),
           " and ", slots.size());
  for (size_t i = 0; i < slots.size(); ++i) {
    const Tensor& s = slots[i];
    MT_CHECK(s.defined() && s.numel() == 1 && s.dtype() == ScalarType::Float, name,
             ": state_steps must hold one-element float32 tensors");
    check_same_device(ref[i], s);
  }
}

struct Group {
  Device device;
  ScalarType dtype;
  std::vector<size_t> index;
};

std::vector<Group> group_by_device_dtype(const TensorList& ref) {
  std::vector<Group> groups;
  for (size_t i = 0; i < ref.size(); ++i) {
    const Tensor& t = ref[i];
    Group* g = nullptr;
    for (auto& c : groups)
      if (c.device == t.device() && c.dtype == t.dtype()) g = &c;
    if (!g) {
      groups.push_back(Group{t.device(), t.dtype(), {}});
      g = &groups.back();
    }
    g->index.push_back(i);
  }
  return groups;
}

// GradScaler's tensors for the optimizer kinds (see ForeachArgs); absent when both are null.
struct AmpInputs {
  const Tensor* grad_scale = nullptr;
  const Tensor* found_inf = nullptr;
};

AmpInputs amp_inputs(const char* name, const AmpStepArgs& grad_scale, const AmpStepArgs& found_inf) {
  AmpInputs a;
  for (const AmpStepArgs* t : {&grad_scale, &found_inf}) {
    if (!t->has_value()) continue;
    const char* what = t == &grad_scale ? "grad_scale" : "found_inf";
    MT_CHECK((*t)->defined() && (*t)->numel() == 1 && (*t)->dtype() == ScalarType::Float, name, ": ", what,
             " must be a one-element float32 tensor");
    (t == &grad_scale ? a.grad_scale : a.found_inf) = &**t;
  }
  return a;
}

// t (one float32 element) on `device`, dense: a no-op when it is there already (no host sync on CUDA).
Tensor amp_operand(const Tensor& t, Device device) {
  return contiguous(to(t, ScalarType::Float, device));
}

// Runs `args` over lists (lists[k] written back when bit k of out_mask is set). slots: per-index float32
// step tensors or null. mul_tensor reads `factor`, converted per group to its opmath dtype on its device.
void run_foreach(const char* name, const std::vector<const TensorList*>& lists, unsigned out_mask,
                 const TensorList* slots, ForeachArgs args, const Tensor* factor = nullptr,
                 AmpInputs amp = {}) {
  NoGradGuard no_grad;
  check_lists(name, lists);
  if (slots) check_slots(name, *slots, *lists[0]);
  for (size_t k = 0; k < lists.size(); ++k)
    if (out_mask & (1u << k))
      for (const Tensor& t : *lists[k]) check_writable(t);
  for (const Group& g : group_by_device_dtype(*lists[0])) {
    std::vector<TensorList> sub(lists.size());
    TensorList sub_slots;
    std::vector<std::pair<Tensor, Tensor>> write_back;  // (strided original, dense stand-in)
    for (size_t i : g.index) {
      if ((*lists[0])[i].numel() == 0) {  // nothing to write, but the in-place op bumps it (PyTorch's)
        for (size_t k = 0; k < lists.size(); ++k)
          if (out_mask & (1u << k)) wrote((*lists[k])[i]);
        continue;
      }
      for (size_t k = 0; k < lists.size(); ++k) {
        const Tensor& t = (*lists[k])[i];
        if (t.is_contiguous()) {
          sub[k].push_back(t);
        } else {
          // The kernels walk dense memory; a strided view is staged through a dense copy.
          Tensor c = contiguous(t);
          if (out_mask & (1u << k)) write_back.emplace_back(t, c);
          sub[k].push_back(c);
        }
      }
      if (slots) sub_slots.push_back((*slots)[i]);
    }
    if (sub[0].empty()) continue;
    Tensor factor_t;
    if (factor) {
      // a CPU scalar is copied over (as PyTorch accepts CPU 0-dim tensors); another device is an error
      if (!factor->device().is_cpu()) check_same_device(sub[0][0], *factor);
      const ScalarType op_dt = g.dtype == ScalarType::Double ? ScalarType::Double : ScalarType::Float;
      factor_t = contiguous(to(*factor, op_dt, g.device));
      args.scalar_ptr = factor_t.data_ptr();
    }
    Tensor scale_t, skip_t;
    if (amp.grad_scale) {
      scale_t = amp_operand(*amp.grad_scale, g.device);
      args.grad_scale = scale_t.data<float>();
    }
    if (amp.found_inf) {
      skip_t = amp_operand(*amp.found_inf, g.device);
      args.skip_if = skip_t.data<float>();
    }
    foreach_stub.get(g.device)(sub, sub_slots, args);
    for (size_t k = 0; k < lists.size(); ++k)
      if (out_mask & (1u << k))
        for (const Tensor& t : sub[k]) wrote(t);
    for (auto& [orig, dense] : write_back) copy_(orig, dense);
  }
}

// An optimizer's step counters: +1, unless found_inf says the step is skipped.
void count_step(const TensorList& state_steps, const AmpInputs& amp) {
  ForeachArgs a;
  a.kind = ForeachKind::add_scalar;
  a.scalar = 1.0;
  run_foreach("_foreach_add_", {&state_steps}, 1u, nullptr, a, nullptr, AmpInputs{nullptr, amp.found_inf});
}

}  // namespace

void foreach_add_(const TensorList& self, const TensorList& other, double alpha) {
  ForeachArgs a;
  a.kind = ForeachKind::add_list;
  a.alpha = alpha;
  run_foreach("_foreach_add_", {&self, &other}, 1u, nullptr, a);
}

void foreach_add_(const TensorList& self, double scalar) {
  ForeachArgs a;
  a.kind = ForeachKind::add_scalar;
  a.scalar = scalar;
  run_foreach("_foreach_add_", {&self}, 1u, nullptr, a);
}

void foreach_mul_(const TensorList& self, double scalar) {
  ForeachArgs a;
  a.kind = ForeachKind::mul_scalar;
  a.scalar = scalar;
  run_foreach("_foreach_mul_", {&self}, 1u, nullptr, a);
}

void foreach_mul_(const TensorList& self, const Tensor& scalar) {
  MT_CHECK(scalar.defined() && scalar.dim() == 0,
           "_foreach_mul_: expected a zero-dimensional tensor as the scalar, got one of shape ",
           scalar.defined() ? shape_str(scalar.sizes()) : std::string("None"));
  ForeachArgs a;
  a.kind = ForeachKind::mul_tensor;
  run_foreach("_foreach_mul_", {&self}, 1u, nullptr, a, &scalar);
}

void foreach_mul_(const TensorList& self, const TensorList& other) {
  ForeachArgs a;
  a.kind = ForeachKind::mul_list;
  run_foreach("_foreach_mul_", {&self, &other}, 1u, nullptr, a);
}

void foreach_zero_(const TensorList& self) {
  ForeachArgs a;
  a.kind = ForeachKind::zero;
  run_foreach("_foreach_zero_", {&self}, 1u, nullptr, a);
}

void foreach_addcmul_(const TensorList& self, const TensorList& t1, const TensorList& t2, double value) {
  ForeachArgs a;
  a.kind = ForeachKind::addcmul;
  a.scalar = value;
  run_foreach("_foreach_addcmul_", {&self, &t1, &t2}, 1u, nullptr, a);
}

void foreach_addcdiv_(const TensorList& self, const TensorList& t1, const TensorList& t2, double value) {
  ForeachArgs a;
  a.kind = ForeachKind::addcdiv;
  a.scalar = value;
  run_foreach("_foreach_addcdiv_", {&self, &t1, &t2}, 1u, nullptr, a);
}

void foreach_lerp_(const TensorList& self, const TensorList& end, double weight) {
  ForeachArgs a;
  a.kind = ForeachKind::lerp;
  a.scalar = weight;
  run_foreach("_foreach_lerp_", {&self, &end}, 1u, nullptr, a);
}

TensorList foreach_sqrt(const TensorList& self) {
  MT_CHECK(!self.empty(), "Tensor list must have at least one tensor.");
  TensorList out;
  out.reserve(self.size());
  for (const Tensor& t : self) {
    MT_CHECK(t.defined(), "_foreach_sqrt: expected a tensor, got None");
    out.push_back(make_empty(t.sizes(), t.dtype(), t.device()));
  }
  ForeachArgs a;
  a.kind = ForeachKind::sqrt;
  run_foreach("_foreach_sqrt", {&out, &self}, 1u, nullptr, a);
  return out;
}

TensorList foreach_norm(const TensorList& self, double ord) {
  NoGradGuard no_grad;
  MT_CHECK(!self.empty(), "Tensor list must have at least one tensor.");
  TensorList out(self.size());
  bool fast = ord == 1 || ord == 2 || (std::isinf(ord) && ord > 0);
  for (const Tensor& t : self)  // complex gradients (clip_grad_norm_ of complex parameters): norm of |z| each
    if (t.defined() && is_complex(t.dtype())) fast = false;
  for (size_t i = 0; i < self.size(); ++i) {
    const Tensor& t = self[i];
    MT_CHECK(t.defined(), "_foreach_norm: expected a tensor, got None");
    // PyTorch's _foreach_norm falls back to linalg.vector_norm, whose refusal it raises
    MT_CHECK_NOT_IMPLEMENTED(is_inexact(t.dtype()),
                             "linalg.vector_norm: Expected a floating point or complex tensor as input. Got ",
                             dtype_short_name(t.dtype()));
    // other orders and empty tensors keep linalg.vector_norm's rules and errors
    if (!fast || t.numel() == 0) out[i] = norm(t, ord, {}, false);
  }
  if (!fast) return out;
  for (const Group& g : group_by_device_dtype(self)) {
    TensorList ins, outs;
    for (size_t i : g.index) {
      if (self[i].numel() == 0) continue;
      out[i] = make_empty({}, g.dtype, g.device);
      ins.push_back(contiguous(self[i]));
      outs.push_back(out[i]);
    }
    if (!ins.empty()) foreach_norm_stub.get(g.device)(outs, ins, ord);
  }
  return out;
}

void fused_sgd_(const TensorList& params, const TensorList& grads, const TensorList& momentum_buffers,
                double lr, double momentum, double dampening, double weight_decay, bool nesterov,
                bool maximize, bool is_first_step, const AmpStepArgs& grad_scale,
                const AmpStepArgs& found_inf) {
  const AmpInputs amp = amp_inputs("_fused_sgd_", grad_scale, found_inf);
  MT_CHECK_VALUE(!nesterov || (momentum > 0 && dampening == 0),
                 "Nesterov momentum requires a momentum and zero dampening");
  ForeachArgs a;
  a.kind = ForeachKind::sgd;
  a.lr = lr;
  a.momentum = momentum;
  a.dampening = dampening;
  a.weight_decay = weight_decay;
  a.nesterov = nesterov;
  a.maximize = maximize;
  a.first_step = is_first_step;
  if (momentum != 0) {
    MT_CHECK(momentum_buffers.size() == params.size(),
             "_fused_sgd_: momentum_buffer_list must hold one tensor per parameter when momentum != 0");
    run_foreach("_fused_sgd_", {&params, &grads, &momentum_buffers}, 0b101u, nullptr, a, nullptr, amp);
  } else {
    run_foreach("_fused_sgd_", {&params, &grads}, 0b1u, nullptr, a, nullptr, amp);
  }
}

// Each fused optimizer fills ForeachArgs with its own hyperparameters and state lists; alike in shape only
// (fused_sgd_ above, fused_rmsprop_ and fused_adagrad_ below).
void fused_adam_(const TensorList& params, const TensorList& grads, const TensorList& exp_avgs,
                 const TensorList& exp_avg_sqs, const TensorList& max_exp_avg_sqs,
                 const TensorList& state_steps, double lr, double beta1, double beta2, double weight_decay,
                 double eps, bool amsgrad, bool maximize, bool decoupled_weight_decay,
                 const AmpStepArgs& grad_scale, const AmpStepArgs& found_inf) {
  const AmpInputs amp = amp_inputs("_fused_adam_", grad_scale, found_inf);
  ForeachArgs a;
  a.kind = ForeachKind::adam;
  a.lr = lr;
  a.beta1 = beta1;
  a.beta2 = beta2;
  a.weight_decay = weight_decay;
  a.eps = eps;
  a.amsgrad = amsgrad;
  a.maximize = maximize;
  a.decoupled = decoupled_weight_decay;
  std::vector<const TensorList*> lists = {&params, &grads, &exp_avgs, &exp_avg_sqs};
  if (amsgrad) lists.push_back(&max_exp_avg_sqs);
  // everything is checked before the steps move, so a bad call leaves the state as it was
  check_lists("_fused_adam_", lists);
  check_slots("_fused_adam_", state_steps, params);
  count_step(state_steps, amp);
  run_foreach("_fused_adam_", lists, amsgrad ? 0b11101u : 0b1101u, &state_steps, a, nullptr, amp);
}

void fused_rmsprop_(const TensorList& params, const TensorList& grads, const TensorList& square_avgs,
                    const TensorList& grad_avgs, const TensorList& momentum_buffers,
                    const TensorList& state_steps, double lr, double alpha, double eps, double weight_decay,
                    double momentum, bool centered, bool maximize, const AmpStepArgs& grad_scale,
                    const AmpStepArgs& found_inf) {
  const AmpInputs amp = amp_inputs("_fused_rmsprop_", grad_scale, found_inf);
  ForeachArgs a;
  a.kind = ForeachKind::rmsprop;
  a.lr = lr;
  a.alpha = alpha;
  a.eps = eps;
  a.weight_decay = weight_decay;
  a.momentum = momentum;
  a.centered = centered;
  a.maximize = maximize;
  std::vector<const TensorList*> lists = {&params, &grads, &square_avgs};
  unsigned out = 0b101u;
  if (centered) {
    out |= 1u << lists.size();
    lists.push_back(&grad_avgs);
  }
  if (momentum > 0) {
    out |= 1u << lists.size();
    lists.push_back(&momentum_buffers);
  }
  check_lists("_fused_rmsprop_", lists);
  check_slots("_fused_rmsprop_", state_steps, params);
  count_step(state_steps, amp);
  run_foreach("_fused_rmsprop_", lists, out, nullptr, a, nullptr, amp);
}

void fused_adagrad_(const TensorList& params, const TensorList& grads, const TensorList& state_sums,
                    const TensorList& state_steps, double lr, double lr_decay, double weight_decay,
                    double eps, bool maximize, const AmpStepArgs& grad_scale, const AmpStepArgs& found_inf) {
  const AmpInputs amp = amp_inputs("_fused_adagrad_", grad_scale, found_inf);
  ForeachArgs a;
  a.kind = ForeachKind::adagrad;
  a.lr = lr;
  a.lr_decay = lr_decay;
  a.weight_decay = weight_decay;
  a.eps = eps;
  a.maximize = maximize;
  check_lists("_fused_adagrad_", {&params, &grads, &state_sums});
  check_slots("_fused_adagrad_", state_steps, params);
  count_step(state_steps, amp);
  run_foreach("_fused_adagrad_", {&params, &grads, &state_sums}, 0b101u, &state_steps, a, nullptr, amp);
}

void amp_foreach_non_finite_check_and_unscale_(const TensorList& grads, const Tensor& found_inf,
                                               const Tensor& inv_scale) {
  MT_CHECK(inv_scale.numel() == 1, "inv_scale must be a 1-element tensor.");
  MT_CHECK(found_inf.numel() == 1, "found_inf must be a 1-element tensor.");
  MT_CHECK(inv_scale.dtype() == ScalarType::Float, "inv_scale must be a float tensor.");
  MT_CHECK(found_inf.dtype() == ScalarType::Float, "found_inf must be a float tensor.");
  if (grads.empty()) return;
  for (const Tensor& g : grads) {
    MT_CHECK(g.defined(), "_amp_foreach_non_finite_check_and_unscale_: expected a tensor, got None");
    check_same_device(g, found_inf);
    check_same_device(g, inv_scale);
  }
  ForeachArgs a;
  a.kind = ForeachKind::unscale;
  a.found_inf = static_cast<float*>(found_inf.data_ptr());
  a.inv_scale = static_cast<const float*>(inv_scale.data_ptr());
  run_foreach("_amp_foreach_non_finite_check_and_unscale_", {&grads}, 1u, nullptr, a);
  found_inf.bump_version();
}

const Tensor& amp_update_scale_(const Tensor& scale, const Tensor& growth_tracker, const Tensor& found_inf,
                                double growth_factor, double backoff_factor, int64_t growth_interval) {
  MT_CHECK(scale.numel() == 1, "current_scale must be a 1-element tensor.");
  MT_CHECK(growth_tracker.numel() == 1, "growth_tracker must be a 1-element tensor.");
  MT_CHECK(found_inf.numel() == 1, "found_inf must be a 1-element tensor.");
  MT_CHECK(scale.dtype() == ScalarType::Float, "current_scale must be a float tensor.");
  MT_CHECK(growth_tracker.dtype() == ScalarType::Int, "growth_tracker must be an int tensor.");
  MT_CHECK(found_inf.dtype() == ScalarType::Float, "found_inf must be a float tensor.");
  check_same_device(scale, growth_tracker);
  check_same_device(scale, found_inf);
  amp_update_scale_stub.get(scale.device())(scale, growth_tracker, found_inf, growth_factor, backoff_factor,
                                            growth_interval);
  scale.bump_version();
  growth_tracker.bump_version();
  return scale;
}

}  // namespace mt
