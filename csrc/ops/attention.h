// Scaled dot-product attention: the front end (masks, causal, scale, GQA, dropout) and its fused kernel stub.
#pragma once
#include <optional>
#include <tuple>

#include "core/Tensor.h"
#include "ops/Dispatch.h"

namespace mt {

// torch.nn.functional.scaled_dot_product_attention. q [..., L, E], k [..., S, E], v [..., S, Ev], batch dims
// broadcast; attn_mask bool (True takes part) or float (added to the scores), broadcast to [..., L, S].
// Rows whose every score is masked give zeros (PyTorch's _safe_softmax), not NaN.
Tensor scaled_dot_product_attention(const Tensor& query, const Tensor& key, const Tensor& value,
                                    const std::optional<Tensor>& attn_mask, double dropout_p, bool is_causal,
                                    std::optional<double> scale, bool enable_gqa);

// The fused primitive, without autograd: q, k, v with equal batch dims, mask undefined or an additive mask
// of q's dtype broadcastable to [..., L, S]. Returns (out [..., L, Ev], lse [..., L]) with lse the
// log-sum-exp of each row's scaled, masked scores in the statistics dtype (-inf for a fully masked row).
std::tuple<Tensor, Tensor> sdpa_forward(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& mask,
                                        bool is_causal, double scale);

// The fused backward (dq, dk, dv) for the primitive's inputs, given its (out, lse); only where the device
// has the kernel and q is float or double (has_fused_sdpa_backward), else the derivative uses ops.
bool has_fused_sdpa_backward(const Tensor& q);
std::tuple<Tensor, Tensor, Tensor> sdpa_backward(const Tensor& grad, const Tensor& q, const Tensor& k,
                                                 const Tensor& v, const Tensor& out, const Tensor& lse,
                                                 const Tensor& mask, bool is_causal, double scale);

// ---- Kernel interface. q [B, L, E], k [B, S, E], v [B, S, Ev], out [B, L, Ev] contiguous, lse [B, L]
// (float; double for double). Mask element (b, i, j), when mask is defined (q's dtype), sits at
// (b / m_inner) * m_so + (b % m_inner) * m_si + i * m_sl + j * m_ss: two levels cover every broadcast of
// [batch, heads] masks without a copy. causal: column j > i is masked.
struct SdpaArgs {
  int64_t B, L, S, E, Ev;
  double scale;
  bool causal;
  int64_t m_inner, m_so, m_si, m_sl, m_ss;
};
using SdpaForwardFn = void (*)(const Tensor& out, const Tensor& lse, const Tensor& q, const Tensor& k,
                               const Tensor& v, const Tensor& mask, const SdpaArgs& a);
// dq, dk, dv zeroed, shaped as q, k, v ([B, ., .] contiguous); g, out as out; lse as the forward wrote it.
using SdpaBackwardFn = void (*)(const Tensor& dq, const Tensor& dk, const Tensor& dv, const Tensor& g,
                                const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& out,
                                const Tensor& lse, const Tensor& mask, const SdpaArgs& a);
MT_STUBS_ATTENTION_H(MT_DECLARE_STUB_ROW)  // ops/op_table.h

// The fused attention as one recorded op (the entry point is generated from ops.schema's `twin sdpa`): inputs
// as sdpa_forward takes them, the mask never requiring grad (scaled_dot_product_attention routes that case to
// the composite).
Tensor sdpa(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& mask, bool is_causal,
            double scale);

}  // namespace mt
