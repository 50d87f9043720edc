"""nn.functional's attention: scaled_dot_product_attention (the fused op) and multi_head_attention_forward."""

import sys

from minitorch import _C
from minitorch.nn.functional._activation import softmax
from minitorch.nn.functional._dropout import dropout
from minitorch.nn.functional._linear import linear
from minitorch.nn.functional._padding import pad

_nn = _C._nn


# ---- attention (the fused op; multi_head_attention_forward composes it as PyTorch's does)


# Which SDPA backends torch.nn.attention.sdpa_kernel and torch.backends.cuda.enable_*_sdp leave on. minitorch has
# one SDPA (the fused kernel of csrc/ops/attention.cpp), computing the same math whatever is chosen; what the
# flags decide is whether a call may run at all: PyTorch's CPU build serves only MATH and FLASH_ATTENTION, its CUDA
# build every backend but OVERRIDEABLE, and with none of those on it raises. The keys are PyTorch's flag names.
SDP_ENABLED = {"flash": True, "mem_efficient": True, "math": True, "cudnn": True, "overrideable": True}
_SDP_SERVES = {"cpu": ("math", "flash"), "cuda": ("math", "flash", "mem_efficient", "cudnn")}
_sdp_native = _nn.scaled_dot_product_attention


def scaled_dot_product_attention(
    query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False, *, scale=None, enable_gqa=False
):
    """softmax(q k^T * scale + mask) v over the last two dims (the fused op), with the backend flags checked."""
    if not SDP_ENABLED["math"] and isinstance(query, _C.Tensor):
        serves = _SDP_SERVES.get(query.device.type, ("math",))
        if not any(SDP_ENABLED[b] for b in serves):
            raise RuntimeError(
                "No viable backend for scaled_dot_product_attention was found. This is likely due to turning off "
                "both the math kernel and the fused kernels."
            )
    return _sdp_native(query, key, value, attn_mask, dropout_p, is_causal, scale=scale, enable_gqa=enable_gqa)


def _canonical_mask(mask, mask_name, other_type, other_name, target_type, check_other=True):
    """A bool mask (True = ignore) becomes an additive float mask (-inf there), as PyTorch's."""
    if mask is None:
        return None
    if mask.dtype == _C.bool:
        return _C.zeros(tuple(mask.shape), dtype=target_type, device=mask.device).masked_fill_(
            mask, float("-inf")
        )
    if not mask.is_floating_point():
        raise AssertionError(f"only bool and floating types of {mask_name} are supported")
    return mask


def _cat(tensors, dim=0):
    """The public cat, read at call time: the builtin itself outside a transform, its dispatching wrapper inside
    one (forward AD runs multi_head_attention_forward on dual tensors, which _C's builtin refuses)."""
    return sys.modules["minitorch"].cat(tensors, dim)


def multi_head_attention_forward(
    query,
    key,
    value,
    embed_dim_to_check,
    num_heads,
    in_proj_weight,
    in_proj_bias,
    bias_k,
    bias_v,
    add_zero_attn,
    dropout_p,
    out_proj_weight,
    out_proj_bias,
    training=True,
    key_padding_mask=None,
    need_weights=True,
    attn_mask=None,
    use_separate_proj_weight=False,
    q_proj_weight=None,
    k_proj_weight=None,
    v_proj_weight=None,
    static_k=None,
    static_v=None,
    average_attn_weights=True,
    is_causal=False,
):
    """Sequence-first (L, N, E) or unbatched (L, E) inputs; returns (output, weights or None)."""
    is_batched = query.dim() == 3
    if not is_batched:
        query, key, value = query.unsqueeze(1), key.unsqueeze(1), value.unsqueeze(1)
        if key_padding_mask is not None:
            key_padding_mask = key_padding_mask.unsqueeze(0)
    tgt_len, bsz, embed_dim = query.shape
    src_len = key.shape[0]
    if embed_dim != embed_dim_to_check:
        raise AssertionError(
            f"was expecting embedding dimension of {embed_dim_to_check}, but got {embed_dim}"
        )
    head_dim = embed_dim // num_heads
    if head_dim * num_heads != embed_dim:
        raise AssertionError(f"embed_dim {embed_dim} not divisible by num_heads {num_heads}")
    if use_separate_proj_weight:
        if key.shape[:2] != value.shape[:2]:
            raise AssertionError(
                f"key's sequence and batch dims {tuple(key.shape[:2])} do not match value's {tuple(value.shape[:2])}"
            )
    elif key.shape != value.shape:
        raise AssertionError(f"key shape {tuple(key.shape)} does not match value shape {tuple(value.shape)}")

    key_padding_mask = _canonical_mask(key_padding_mask, "key_padding_mask", None, "attn_mask", query.dtype)
    if is_causal and attn_mask is None:
        raise RuntimeError(
            "Need attn_mask if specifying the is_causal hint. You may use the Transformer module method "
            "`generate_square_subsequent_mask` to create this mask."
        )
    if is_causal and key_padding_mask is None and not need_weights:
        attn_mask = None  # SDPA builds the causal mask itself
    else:
        attn_mask = _canonical_mask(attn_mask, "attn_mask", None, "", query.dtype)
        if key_padding_mask is not None:
            is_causal = False

    # input projections
    b_q = b_k = b_v = None
    if in_proj_bias is not None:
        b_q, b_k, b_v = in_proj_bias.chunk(3)
    if not use_separate_proj_weight:
        w_q, w_k, w_v = in_proj_weight.chunk(3)
    else:
        w_q, w_k, w_v = q_proj_weight, k_proj_weight, v_proj_weight
    if not use_separate_proj_weight and key is value and query is key:
        q, k, v = linear(query, in_proj_weight, in_proj_bias).chunk(3, dim=-1)
    else:
        q, k, v = linear(query, w_q, b_q), linear(key, w_k, b_k), linear(value, w_v, b_v)

    if attn_mask is not None:
        if attn_mask.dim() == 2:
            if tuple(attn_mask.shape) != (tgt_len, src_len):
                raise RuntimeError(
                    f"The shape of the 2D attn_mask is {attn_mask.shape}, but should be {(tgt_len, src_len)}."
                )
            attn_mask = attn_mask.unsqueeze(0)
        elif attn_mask.dim() == 3:
            if tuple(attn_mask.shape) != (bsz * num_heads, tgt_len, src_len):
                raise RuntimeError(
                    f"The shape of the 3D attn_mask is {attn_mask.shape}, but should be "
                    f"{(bsz * num_heads, tgt_len, src_len)}."
                )
        else:
            raise RuntimeError(f"attn_mask's dimension {attn_mask.dim()} is not supported")

    if bias_k is not None and bias_v is not None:
        k = _cat([k, bias_k.expand(1, bsz, embed_dim)])
        v = _cat([v, bias_v.expand(1, bsz, embed_dim)])
        if attn_mask is not None:
            attn_mask = pad(attn_mask, (0, 1))
        if key_padding_mask is not None:
            key_padding_mask = pad(key_padding_mask, (0, 1))

    # (L, N, E) -> (N * H, L, head_dim)
    q = q.reshape(tgt_len, bsz * num_heads, head_dim).transpose(0, 1)
    k = k.reshape(-1, bsz * num_heads, head_dim).transpose(0, 1) if static_k is None else static_k
    v = v.reshape(-1, bsz * num_heads, head_dim).transpose(0, 1) if static_v is None else static_v
    if add_zero_attn:
        k = _cat([k, _C.zeros((bsz * num_heads, 1, head_dim), dtype=k.dtype, device=k.device)], 1)
        v = _cat([v, _C.zeros((bsz * num_heads, 1, head_dim), dtype=v.dtype, device=v.device)], 1)
        if attn_mask is not None:
            attn_mask = pad(attn_mask, (0, 1))
        if key_padding_mask is not None:
            key_padding_mask = pad(key_padding_mask, (0, 1))
    src_len = k.shape[1]

    if key_padding_mask is not None:
        if tuple(key_padding_mask.shape) != (bsz, src_len):
            raise AssertionError(
                f"expecting key_padding_mask shape of {(bsz, src_len)}, but got {tuple(key_padding_mask.shape)}"
            )
        kpm = (
            key_padding_mask.view(bsz, 1, 1, src_len)
            .expand(-1, num_heads, -1, -1)
            .reshape(bsz * num_heads, 1, src_len)
        )
        attn_mask = kpm if attn_mask is None else attn_mask + kpm

    if not training:
        dropout_p = 0.0

    if need_weights:
        s = (q * (1.0 / head_dim) ** 0.5).bmm(k.transpose(-2, -1))
        if attn_mask is not None:
            s = s + attn_mask
        w = softmax(s, dim=-1)
        if dropout_p > 0.0:
            w = dropout(w, p=dropout_p)
        out = w.bmm(v)
        out = out.transpose(0, 1).reshape(tgt_len * bsz, embed_dim)
        out = linear(out, out_proj_weight, out_proj_bias).view(tgt_len, bsz, -1)
        w = w.view(bsz, num_heads, tgt_len, src_len)
        if average_attn_weights:
            w = w.mean(dim=1)
        if not is_batched:
            out, w = out.squeeze(1), w.squeeze(0)
        return out, w

    if attn_mask is not None:
        if attn_mask.shape[0] == 1 and attn_mask.dim() == 3:
            attn_mask = attn_mask.unsqueeze(0)
        else:
            attn_mask = attn_mask.view(bsz, num_heads, -1, src_len)
    q = q.view(bsz, num_heads, tgt_len, head_dim)
    k = k.view(bsz, num_heads, src_len, head_dim)
    v = v.view(bsz, num_heads, src_len, head_dim)
    out = scaled_dot_product_attention(q, k, v, attn_mask, dropout_p, is_causal)
    out = out.permute(2, 0, 1, 3).reshape(bsz * tgt_len, embed_dim)
    out = linear(out, out_proj_weight, out_proj_bias).view(tgt_len, bsz, -1)
    if not is_batched:
        out = out.squeeze(1)
    return out, None
