// Scaled dot-product attention front end: PyTorch's checks, masks and GQA, then the fused kernel (or, for
// dropout and masks that need a gradient, the same math in recorded ops).
#include "ops/attention.h"

#include <cmath>
#include <limits>

#include "core/TensorIterator.h"
#include "core/TypeMeta.h"
#include "generated/native.h"
#include "ops/ops.h"

namespace mt {

namespace {

DimVector batch_of(const Tensor& t) {
  return DimVector(t.sizes().begin(), t.sizes().end() - 2);
}

DimVector with_tail(const DimVector& batch, int64_t a, int64_t b) {
  DimVector s = batch;
  s.push_back(a);
  s.push_back(b);
  return s;
}

// key/value heads (dim -3) repeated to the query's: [..., Hk, S, E] -> [..., Hk * rep, S, E], each head
// rep times in a row (repeat_interleave), as recorded view + copy ops.
Tensor repeat_heads(const Tensor& t, int64_t rep) {
  if (rep == 1) return t;
  DimVector s(t.sizes().begin(), t.sizes().end());
  int64_t nd = t.dim();
  Tensor u = unsqueeze(t, nd - 2);
  DimVector es = s;
  es.insert(static_cast<size_t>(nd - 2), rep);
  u = expand(u, es);
  s[nd - 3] *= rep;
  return reshape(u, s);
}

// Bool masks become additive masks of `dtype` (0 where True, -inf where False).
Tensor additive_mask(const Tensor& mask, ScalarType dtype) {
  if (mask.dtype() == ScalarType::Bool) {
    Tensor z = zeros(mask.sizes(), dtype, mask.device());
    return masked_fill(z, logical_not(mask),
                       scalar_tensor(Scalar(-std::numeric_limits<double>::infinity()), dtype, mask.device()));
  }
  return mask.dtype() == dtype ? mask : to(mask, dtype, mask.device());
}

// The math path in recorded ops: dropout and masks that require grad take it.
Tensor sdpa_math(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& mask, double dropout_p,
                 bool is_causal, double scale) {
  int64_t L = q.size(-2), S = k.size(-2);
  Tensor s = mul(matmul(q, transpose(k, -2, -1)), wrapped_scalar(Scalar(scale)));
  if (is_causal) {
    Tensor i =
        unsqueeze(arange(Scalar(int64_t(0)), Scalar(L), Scalar(int64_t(1)), ScalarType::Long, q.device()), 1);
    Tensor j = arange(Scalar(int64_t(0)), Scalar(S), Scalar(int64_t(1)), ScalarType::Long, q.device());
    s = masked_fill(s, gt(j, i),
                    scalar_tensor(Scalar(-std::numeric_limits<double>::infinity()), s.dtype(), s.device()));
  }
  if (mask.defined()) s = add(s, mask, Scalar(1.0));
  // _safe_softmax: rows with every score -inf give zeros
  Tensor ninf = scalar_tensor(Scalar(-std::numeric_limits<double>::infinity()), s.dtype(), s.device());
  Tensor full = all(eq(s, ninf), {-1}, true);
  Tensor zero = scalar_tensor(Scalar(0.0), s.dtype(), s.device());
  Tensor p = where(full, zero, softmax(where(full, zero, s), -1));
  if (dropout_p > 0) p = dropout(p, dropout_p, true);
  return matmul(p, v);
}

// The mask broadcast to [batch..., L, S] as the kernels read it: its batch dims merged into at most two
// strided levels (a.m_*), copied only when they do not merge.
Tensor mask_layout(const Tensor& mask, const DimVector& batch, SdpaArgs& a) {
  const int64_t B = a.B, L = a.L, S = a.S;
  Tensor m;
  if (mask.defined()) {
    m = expand(mask, with_tail(batch, L, S));
    // merge the batch dims of the broadcast mask into at most two strided levels; otherwise copy it
    DimVector sz, sd;
    for (size_t i = 0; i < batch.size(); ++i) {
      int64_t n = m.size(int64_t(i)), s = n == 1 ? 0 : m.stride(int64_t(i));
      if (n == 1) continue;
      if (!sz.empty() && sd.back() == s * n) {
        sz.back() *= n;
        sd.back() = s;
      } else {
        sz.push_back(n);
        sd.push_back(s);
      }
    }
    if (sz.size() > 2) {
      m = contiguous(m);
      sz = {B};
      sd = {L * S};
    }
    while (sz.size() < 2) sz.insert(0, 1), sd.insert(0, 0);
    a.m_inner = sz[1];
    a.m_so = sd[0];
    a.m_si = sd[1];
    a.m_sl = m.stride(-2);
    a.m_ss = m.stride(-1);
  }
  return m;
}

}  // namespace

std::tuple<Tensor, Tensor> sdpa_forward(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& mask,
                                        bool is_causal, double scale) {
  ScalarType dt = q.dtype();
  if (q.device().is_cpu() && (dt == ScalarType::Half || dt == ScalarType::BFloat16)) {
    // the CPU kernel computes in float; reduced-precision inputs round-trip through it
    Device d = q.device();
    auto [o, l] =
        sdpa_forward(to(q, ScalarType::Float, d), to(k, ScalarType::Float, d), to(v, ScalarType::Float, d),
                     mask.defined() ? to(mask, ScalarType::Float, d) : Tensor(), is_causal, scale);
    return {to(o, dt, d), l};
  }
  MT_CHECK(is_floating(dt), "\"scaled_dot_product_attention\" not implemented for '", dtype_short_name(dt),
           "'");
  DimVector batch = batch_of(q);
  int64_t L = q.size(-2), E = q.size(-1), S = k.size(-2), Ev = v.size(-1);
  int64_t B = compute_numel(batch);
  ScalarType st = dt == ScalarType::Double ? ScalarType::Double : ScalarType::Float;
  Tensor out = empty(with_tail(batch, L, Ev), dt, q.device());
  DimVector lse_shape = batch;
  lse_shape.push_back(L);
  Tensor lse = empty(lse_shape, st, q.device());
  if (B == 0 || L == 0) return {out, lse};
  Tensor q3 = contiguous(reshape(q, {B, L, E})), k3 = contiguous(reshape(k, {B, S, E}));
  Tensor v3 = contiguous(reshape(v, {B, S, Ev}));
  SdpaArgs a{B, L, S, E, Ev, scale, is_causal, 1, 0, 0, 0, 0};
  Tensor m = mask_layout(mask, batch, a);
  Tensor o3 = reshape(out, {B, L, Ev}), l2 = reshape(lse, {B, L});
  sdpa_forward_stub.get(q.device())(o3, l2, q3, k3, v3, m, a);
  return {out, lse};
}

bool has_fused_sdpa_backward(const Tensor& q) {
  return sdpa_backward_stub.fns[static_cast<int>(q.device().type)] != nullptr &&
         (q.dtype() == ScalarType::Float || q.dtype() == ScalarType::Double);
}

std::tuple<Tensor, Tensor, Tensor> sdpa_backward(const Tensor& grad, const Tensor& q, const Tensor& k,
                                                 const Tensor& v, const Tensor& out, const Tensor& lse,
                                                 const Tensor& mask, bool is_causal, double scale) {
  DimVector batch = batch_of(q);
  int64_t L = q.size(-2), E = q.size(-1), S = k.size(-2), Ev = v.size(-1);
  int64_t B = compute_numel(batch);
  Tensor dq = zeros(q.sizes(), q.dtype(), q.device()), dk = zeros(k.sizes(), k.dtype(), k.device());
  Tensor dv = zeros(v.sizes(), v.dtype(), v.device());
  if (B == 0 || L == 0 || S == 0) return {dq, dk, dv};
  SdpaArgs a{B, L, S, E, Ev, scale, is_causal, 1, 0, 0, 0, 0};
  Tensor m = mask_layout(mask, batch, a);
  sdpa_backward_stub.get(q.device())(reshape(dq, {B, L, E}), reshape(dk, {B, S, E}), reshape(dv, {B, S, Ev}),
                                     contiguous(reshape(grad, {B, L, Ev})), contiguous(reshape(q, {B, L, E})),
                                     contiguous(reshape(k, {B, S, E})), contiguous(reshape(v, {B, S, Ev})),
                                     contiguous(reshape(out, {B, L, Ev})), contiguous(reshape(lse, {B, L})),
                                     m, a);
  return {dq, dk, dv};
}

Tensor scaled_dot_product_attention(const Tensor& query, const Tensor& key, const Tensor& value,
                                    const std::optional<Tensor>& attn_mask, double dropout_p, bool is_causal,
                                    std::optional<double> scale, bool enable_gqa) {
  MT_CHECK(query.dtype() == key.dtype() && query.dtype() == value.dtype(),
           "Expected query, key, and value to have the same dtype, but got query.dtype: ",
           cpp_type_name(query.dtype()), " key.dtype: ", cpp_type_name(key.dtype()),
           " and value.dtype: ", cpp_type_name(value.dtype()), " instead.");
  MT_CHECK(query.device() == key.device() && query.device() == value.device(),
           "Expected query, key, and value to have the same device type, but got query.device: ",
           query.device().str(), " key.device: ", key.device().str(),
           " and value.device: ", value.device().str(), " instead.");
  MT_CHECK(query.dim() >= 2 && key.dim() >= 2 && value.dim() >= 2,
           "Expected query, key, and value to all be  at least 2 dimensional, but got query.dim: ",
           query.dim(), " key.dim: ", key.dim(), " and value.dim: ", value.dim(), " instead.");
  Tensor mask;
  if (attn_mask) {
    ScalarType md = attn_mask->dtype();
    MT_CHECK(
        md == ScalarType::Bool || md == ScalarType::Float || md == query.dtype(),
        "Expected attn_mask dtype to be bool or float or to match query dtype, but got attn_mask.dtype: ",
        cpp_type_name(md), " and  query.dtype: ", cpp_type_name(query.dtype()), " instead.");
    MT_CHECK(!is_causal,
             "_scaled_dot_product_attention: Explicit attn_mask should not be set when is_causal=True");
    mask = additive_mask(*attn_mask, query.dtype());
  }
  double sc = scale ? *scale : 1.0 / std::sqrt(static_cast<double>(query.size(-1)));
  Tensor q = query, k = key, v = value;
  if (enable_gqa && q.dim() >= 3 && k.dim() >= 3 && v.dim() >= 3) {
    int64_t hq = q.size(-3), hk = k.size(-3), hv = v.size(-3);
    bool all_equal = hq == hk && hk == hv;
    MT_CHECK(all_equal || (hk > 0 && hv > 0 && hq % hk == 0 && hq % hv == 0),
             "Number of heads in key and value must divide the number of heads in ");
    if (!all_equal) {
      k = repeat_heads(k, hq / hk);
      v = repeat_heads(v, hq / hv);
    }
  }
  bool shapes_ok = k.size(-1) == q.size(-1) && k.size(-2) == v.size(-2);
  if (dropout_p > 0 || !shapes_ok || (mask.defined() && needs_grad(mask)))
    return sdpa_math(q, k, v, mask, dropout_p, is_causal, sc);  // matmul raises PyTorch's shape errors
  // batch dims broadcast as matmul's do
  DimVector batch = broadcast_shapes(broadcast_shapes(batch_of(q), batch_of(k)), batch_of(v));
  int64_t L = q.size(-2), S = k.size(-2);
  q = expand(q, with_tail(batch, L, q.size(-1)));
  k = expand(k, with_tail(batch, S, k.size(-1)));
  v = expand(v, with_tail(batch, S, v.size(-1)));
  if (mask.defined()) {
    // the mask may not add batch dims beyond the inputs' (PyTorch's result would grow; ours must not)
    DimVector full = broadcast_shapes(mask.sizes(), with_tail(batch, L, S));
    bool grows = full.size() != batch.size() + 2;
    for (size_t i = 0; !grows && i < batch.size(); ++i) grows = full[i] != batch[i];
    if (grows) return sdpa_math(q, k, v, mask, 0, is_causal, sc);
  }
  return sdpa(q, k, v, mask, is_causal, sc);
}

Tensor native::sdpa(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& mask, bool is_causal,
                    double scale) {
  return std::get<0>(sdpa_forward(q, k, v, mask, is_causal, scale));
}

}  // namespace mt
