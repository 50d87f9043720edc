// Autocast (automatic mixed precision): thread-local state and the op policy, one list for every op that
// autocast touches. An op front end listed here starts with
//   if (autocast::active()) { autocast::Scope s(autocast::Op::mm, {&a, &b}); return mm(s(a), s(b)); }
// which reruns the op once with its inputs cast as the policy says and autocast off for that nested call.
#pragma once
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <vector>

#include "core/Tensor.h"
#include "generated/ops_schema.h"
#include "ops/elementwise.h"

namespace mt::autocast {

// How an op treats its floating inputs (float64 is never touched, as in PyTorch):
// - Lower: cast to the region's lower-precision dtype (float16 / bfloat16); tensor-core ops.
// - Fp32: cast to float32; ops whose range or accumulation needs it (exp, log, softmax, sums, losses).
// - Promote: cast all to the widest floating dtype among them; ops whose inputs must agree.
// - Same: no cast; the op runs in whatever dtype its inputs have.
// - Banned: raises; unsafe in lower precision with a safe replacement (binary_cross_entropy).
enum class Policy : uint8_t { Same, Lower, Fp32, Promote, Banned };

// (op, policy on CUDA, policy on the CPU); the elementwise ops' rows come from csrc/ops/ops.schema. PyTorch's
// CPU list is shorter: on the CPU softmax, exp, sums and the norms run in the input dtype (bfloat16 stays
// bfloat16), so the CPU column says Same for them; the losses run in float32 on both (checked against PyTorch
// in tests/ops/test_torch_oracle.py).
// clang-format off
#define MT_AUTOCAST_OPS(_)                               \
  _(mm,                     Lower,   Lower)              \
  _(bmm,                    Lower,   Lower)              \
  _(addmm,                  Lower,   Lower)              \
  _(mv,                     Lower,   Same)               \
  _(addmv,                  Lower,   Same)               \
  _(matmul,                 Lower,   Lower)              \
  _(linear,                 Lower,   Lower)              \
  _(conv1d,                 Lower,   Lower)              \
  _(conv2d,                 Lower,   Lower)              \
  _(conv_transpose1d,       Lower,   Lower)              \
  _(conv_transpose2d,       Lower,   Lower)              \
  _(softplus,               Fp32,    Same)               \
  _(softmax,                Fp32,    Same)               \
  _(log_softmax,            Fp32,    Same)               \
  _(sum,                    Fp32,    Same)               \
  _(prod,                   Fp32,    Fp32)               \
  _(cumsum,                 Fp32,    Same)               \
  _(cumprod,                Fp32,    Same)               \
  _(norm,                   Fp32,    Same)               \
  _(layer_norm,             Fp32,    Same)               \
  _(group_norm,             Fp32,    Same)               \
  _(cross_entropy,          Fp32,    Fp32)               \
  _(nll_loss,               Fp32,    Fp32)               \
  _(mse_loss,               Fp32,    Fp32)               \
  _(l1_loss,                Fp32,    Fp32)               \
  _(smooth_l1_loss,         Fp32,    Fp32)               \
  _(huber_loss,             Fp32,    Fp32)               \
  _(kl_div,                 Fp32,    Fp32)               \
  _(binary_cross_entropy_with_logits, Fp32, Fp32)        \
  _(binary_cross_entropy,   Banned,  Fp32)               \
  _(dot,                    Promote, Same)               \
  _(cat,                    Promote, Promote)            \
  _(stack,                  Promote, Promote)            \
  MT_SCHEMA_AUTOCAST_OPS(_)
// clang-format on

enum class Op : uint16_t {
#define MT_AUTOCAST_ENUM(name, cuda, cpu) name,
  MT_AUTOCAST_OPS(MT_AUTOCAST_ENUM)
#undef MT_AUTOCAST_ENUM
      NumOps
};

const char* op_name(Op op);
Policy policy(Op op, DeviceType device);

// Thread-local state. Bit 0: CPU autocast on; bit 1: CUDA autocast on. Cleared inside a Scope so the rerun
// of the op (and anything it calls) sees autocast off.
inline thread_local uint8_t tls_enabled_mask = 0;
inline thread_local uint8_t tls_excluded = 0;
inline thread_local ScalarType tls_dtype_cpu = ScalarType::BFloat16;
inline thread_local ScalarType tls_dtype_cuda = ScalarType::Half;
inline thread_local bool tls_cache_enabled = true;

inline bool active() {
  return tls_enabled_mask != 0 && tls_excluded == 0;
}

bool is_enabled(DeviceType d);
void set_enabled(DeviceType d, bool on);
ScalarType get_dtype(DeviceType d);
void set_dtype(DeviceType d, ScalarType dt);
bool is_cache_enabled();
void set_cache_enabled(bool on);
// Drops cached casts of weights; called when the outermost autocast region exits.
void clear_cache();

// One op's rerun under autocast: casts inputs by the op's policy for their device, keeps autocast off until
// it goes out of scope. Promote needs all floating inputs up front to find the widest dtype.
// The autocast entry of an elementwise op, if autocast touches it (the schema's `autocast:` rows).
inline std::optional<Op> op_of(UnaryOp op) {
  switch (op) {
#define MT_AC_CASE(name) \
  case UnaryOp::name:    \
    return Op::name;
    MT_UNARY_AUTOCAST(MT_AC_CASE)
#undef MT_AC_CASE
    default:
      return std::nullopt;
  }
}
inline std::optional<Op> op_of(BinaryOp op) {
  switch (op) {
#define MT_AC_CASE(name) \
  case BinaryOp::name:   \
    return Op::name;
    MT_BINARY_AUTOCAST(MT_AC_CASE)
#undef MT_AC_CASE
    default:
      return std::nullopt;
  }
}

class Scope {
 public:
  Scope(Op op, std::initializer_list<const Tensor*> inputs = {});
  Scope(Op op, const std::vector<Tensor>& inputs);
  ~Scope() { --tls_excluded; }
  Scope(const Scope&) = delete;
  Scope& operator=(const Scope&) = delete;

  Tensor operator()(const Tensor& t) const;
  std::optional<Tensor> operator()(const std::optional<Tensor>& t) const;
  std::vector<Tensor> operator()(const std::vector<Tensor>& ts) const;

 private:
  void note(const Tensor& t);
  Op op_;
  ScalarType widest_[2] = {ScalarType::Undefined, ScalarType::Undefined};  // Promote: per device type
};

}  // namespace mt::autocast
