// Autocast state, the policy lookup and the cast (with the per-region cache of weight casts).
#include "ops/autocast.h"

#include <unordered_map>

#include "core/Exception.h"
#include "core/GradMode.h"
#include "ops/copy.h"

namespace mt::autocast {

namespace {

struct Entry {
  const char* name;
  Policy cuda, cpu;
};

constexpr Entry kTable[] = {
#define MT_AUTOCAST_ENTRY(name, cuda, cpu) {#name, Policy::cuda, Policy::cpu},
    MT_AUTOCAST_OPS(MT_AUTOCAST_ENTRY)
#undef MT_AUTOCAST_ENTRY
};

int bit(DeviceType d) {
  return d == DeviceType::CUDA ? 2 : 1;
}

// Casts of leaf weights (float32 leaves that require grad) made in this region, reused by every op of the
// region as PyTorch does: a weight used by several layers, or a model called twice, is cast once. The key's
// tensor is kept alive by the entry, so the address cannot be reused while cached.
struct CacheEntry {
  Tensor src, cast;
};
thread_local std::unordered_map<const TensorImpl*, CacheEntry> tls_cache;

bool eligible(const Tensor& t) {
  if (!t.defined()) return false;
  ScalarType s = t.dtype();
  return s == ScalarType::Float || s == ScalarType::Half || s == ScalarType::BFloat16;
}

Tensor cast_to(const Tensor& t, ScalarType to_dtype) {
  if (t.dtype() == to_dtype) return t;
  bool cacheable = tls_cache_enabled && to_dtype != ScalarType::Float && t.dtype() == ScalarType::Float &&
                   t.is_leaf_requiring_grad() && GradMode::is_enabled();
  if (!cacheable) return to(t, to_dtype, t.device());
  auto it = tls_cache.find(t.impl());
  if (it != tls_cache.end() && it->second.cast.dtype() == to_dtype) return it->second.cast;
  Tensor c = to(t, to_dtype, t.device());
  tls_cache[t.impl()] = {t, c};
  return c;
}

}  // namespace

const char* op_name(Op op) {
  return kTable[static_cast<int>(op)].name;
}

Policy policy(Op op, DeviceType device) {
  const Entry& e = kTable[static_cast<int>(op)];
  return device == DeviceType::CUDA ? e.cuda : e.cpu;
}

bool is_enabled(DeviceType d) {
  return tls_enabled_mask & bit(d);
}
void set_enabled(DeviceType d, bool on) {
  tls_enabled_mask = on ? (tls_enabled_mask | bit(d)) : (tls_enabled_mask & ~bit(d));
}
ScalarType get_dtype(DeviceType d) {
  return d == DeviceType::CUDA ? tls_dtype_cuda : tls_dtype_cpu;
}
void set_dtype(DeviceType d, ScalarType dt) {
  (d == DeviceType::CUDA ? tls_dtype_cuda : tls_dtype_cpu) = dt;
}
bool is_cache_enabled() {
  return tls_cache_enabled;
}
void set_cache_enabled(bool on) {
  tls_cache_enabled = on;
}
void clear_cache() {
  tls_cache.clear();
}

Scope::Scope(Op op, std::initializer_list<const Tensor*> inputs) : op_(op) {
  for (const Tensor* t : inputs) note(*t);
  ++tls_excluded;
}

Scope::Scope(Op op, const std::vector<Tensor>& inputs) : op_(op) {
  for (const Tensor& t : inputs) note(t);
  ++tls_excluded;
}

void Scope::note(const Tensor& t) {
  if (!eligible(t)) return;
  int d = static_cast<int>(t.device().type);
  widest_[d] = widest_[d] == ScalarType::Undefined ? t.dtype() : promote_types(widest_[d], t.dtype());
}

Tensor Scope::operator()(const Tensor& t) const {
  if (!eligible(t)) return t;
  DeviceType d = t.device().type;
  if (!is_enabled(d)) return t;
  switch (policy(op_, d)) {
    case Policy::Lower:
      return cast_to(t, get_dtype(d));
    case Policy::Fp32:
      return cast_to(t, ScalarType::Float);
    case Policy::Promote: {
      ScalarType w = widest_[static_cast<int>(d)];
      return w == ScalarType::Undefined ? t : cast_to(t, w);
    }
    case Policy::Banned:
      MT_ERROR(
          "torch.nn.functional.", op_name(op_),
          " and torch.nn.BCELoss are unsafe to autocast.\nMany models use a sigmoid layer right before the "
          "binary cross entropy layer.\nIn this case, combine the two layers using "
          "torch.nn.functional.binary_cross_entropy_with_logits\nor torch.nn.BCEWithLogitsLoss.  "
          "binary_cross_entropy_with_logits and BCEWithLogits are\nsafe to autocast.");
    case Policy::Same:
      break;
  }
  return t;
}

std::optional<Tensor> Scope::operator()(const std::optional<Tensor>& t) const {
  if (!t) return t;
  return (*this)(*t);
}

std::vector<Tensor> Scope::operator()(const std::vector<Tensor>& ts) const {
  std::vector<Tensor> out;
  out.reserve(ts.size());
  for (const Tensor& t : ts) out.push_back((*this)(t));
  return out;
}

}  // namespace mt::autocast
