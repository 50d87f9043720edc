"""nn.functional: PyTorch's functional API. Layers with a kernel of their own call the native op in
minitorch._C._nn once (argument normalization only here); the rest are compositions of recorded ops."""

import warnings

from minitorch import _C
from minitorch._creation import tensor as _tensor

_nn = _C._nn

__all__ = [
    "adaptive_avg_pool1d",
    "adaptive_avg_pool2d",
    "adaptive_max_pool2d",
    "avg_pool1d",
    "avg_pool2d",
    "batch_norm",
    "bilinear",
    "binary_cross_entropy",
    "binary_cross_entropy_with_logits",
    "celu",
    "conv1d",
    "conv2d",
    "conv_transpose1d",
    "conv_transpose2d",
    "cosine_similarity",
    "cross_entropy",
    "dropout",
    "dropout1d",
    "dropout2d",
    "elu",
    "embedding",
    "gelu",
    "glu",
    "group_norm",
    "hardsigmoid",
    "hardswish",
    "hardtanh",
    "huber_loss",
    "instance_norm",
    "interpolate",
    "kl_div",
    "l1_loss",
    "layer_norm",
    "leaky_relu",
    "linear",
    "log_softmax",
    "logsigmoid",
    "max_pool1d",
    "max_pool2d",
    "mish",
    "mse_loss",
    "multi_head_attention_forward",
    "nll_loss",
    "normalize",
    "one_hot",
    "pad",
    "pairwise_distance",
    "pixel_shuffle",
    "pixel_unshuffle",
    "relu",
    "relu6",
    "relu_",
    "scaled_dot_product_attention",
    "selu",
    "sigmoid",
    "silu",
    "smooth_l1_loss",
    "softmax",
    "softmin",
    "softplus",
    "softsign",
    "tanh",
    "tanhshrink",
    "threshold",
    "upsample",
    "upsample_bilinear",
    "upsample_nearest",
]


# ---- reductions of the losses: the legacy size_average/reduce pair maps onto reduction=, with PyTorch's warning
def _reduction(size_average, reduce, reduction):
    if size_average is None and reduce is None:
        return reduction
    size_average = True if size_average is None else size_average
    reduce = True if reduce is None else reduce
    ret = "none" if not reduce else ("mean" if size_average else "sum")
    warnings.warn(
        f"size_average and reduce args will be deprecated, please use reduction='{ret}' instead.",
        stacklevel=3,
    )
    return ret


# ---- linear
def linear(input, weight, bias=None):
    return _nn.linear(input, weight, bias)


def bilinear(input1, input2, weight, bias=None):
    out = _C.einsum("...i,oij,...j->...o", input1, weight, input2)
    return out + bias if bias is not None else out


# ---- activations
def _write_back(input, fn):
    """fn(input) written into input (an activation's inplace=True). When input's history is recorded, fn reads
    a copy: fn's backward saved its input, and the write would otherwise invalidate it (PyTorch's in-place
    kernels save their result instead, which these out-of-place formulas cannot)."""
    src = input.clone() if input.requires_grad and _C.is_grad_enabled() else input
    return input.copy_(fn(src))


def relu(input, inplace=False):
    return input.relu_() if inplace else _C.relu(input)


def relu_(input):
    return input.relu_()


def relu6(input, inplace=False):
    return hardtanh(input, 0.0, 6.0, inplace)


def leaky_relu(input, negative_slope=0.01, inplace=False):
    if inplace:
        return _write_back(input, lambda x: _C.leaky_relu(x, negative_slope))
    return _C.leaky_relu(input, negative_slope)


def threshold(input, threshold, value, inplace=False):
    out = _C._where(input > threshold, input, _C.scalar_tensor(value, dtype=input.dtype, device=input.device))
    return input.copy_(out) if inplace else out


def hardtanh(input, min_val=-1.0, max_val=1.0, inplace=False):
    if min_val > max_val:
        raise ValueError("min_val cannot be greater than max_val")
    return input.clamp_(min_val, max_val) if inplace else input.clamp(min_val, max_val)


def gelu(input, approximate="none"):
    if approximate == "none":
        return _C.gelu(input)
    if approximate == "tanh":
        return _C.gelu_tanh(input)
    raise RuntimeError(f"approximate argument must be either none or tanh, got {approximate}")


def silu(input, inplace=False):
    if inplace:
        return _write_back(input, lambda x: _C.silu(x))
    return _C.silu(input)


def mish(input, inplace=False):
    if inplace:
        return _write_back(input, lambda x: _C.mish(x))
    return _C.mish(input)


def sigmoid(input):
    return _C.sigmoid(input)


def tanh(input):
    return _C.tanh(input)


def hardsigmoid(input, inplace=False):
    if inplace:
        return _write_back(input, lambda x: (x / 6 + 0.5).clamp(0.0, 1.0))
    return (input / 6 + 0.5).clamp(0.0, 1.0)


def hardswish(input, inplace=False):
    if inplace:
        return _write_back(input, lambda x: x * (x + 3).clamp(0.0, 6.0) / 6)
    return input * (input + 3).clamp(0.0, 6.0) / 6


def elu(input, alpha=1.0, inplace=False):
    if inplace:
        return _write_back(input, lambda x: _C._where(x > 0, x, alpha * _C.expm1(x)))
    return _C._where(input > 0, input, alpha * _C.expm1(input))


def celu(input, alpha=1.0, inplace=False):
    if inplace:
        return _write_back(input, lambda x: _C._where(x > 0, x, alpha * _C.expm1(x / alpha)))
    return _C._where(input > 0, input, alpha * _C.expm1(input / alpha))


def selu(input, inplace=False):
    alpha, scale = 1.6732632423543772848170429916717, 1.0507009873554804934193349852946
    if inplace:
        return _write_back(input, lambda x: scale * _C._where(x > 0, x, alpha * _C.expm1(x)))
    return scale * _C._where(input > 0, input, alpha * _C.expm1(input))


def softplus(input, beta=1.0, threshold=20.0):
    return _C.softplus(input, beta, threshold)


def logsigmoid(input):
    return -_C.softplus(-input, 1.0, 20.0)


def softsign(input):
    return input / (1 + input.abs())


def tanhshrink(input):
    return input - _C.tanh(input)


def glu(input, dim=-1):
    if input.dim() == 0:
        raise RuntimeError("glu does not support scalars because halving size must be even")
    if input.shape[dim] % 2:
        raise RuntimeError(
            f"Halving dimension must be even, but dimension {dim % input.dim()} is size {input.shape[dim]}"
        )
    a, b = input.chunk(2, dim)
    return a * _C.sigmoid(b)


def _softmax_dim(ndim):
    warnings.warn(
        "Implicit dimension choice for softmax has been deprecated. Change the call to include dim=X as an "
        "argument.",
        stacklevel=3,
    )
    return 0 if ndim in (0, 1, 3) else 1


def softmax(input, dim=None, _stacklevel=3, dtype=None):
    if dim is None:
        dim = _softmax_dim(input.dim())
    return _C.softmax(input, dim, dtype=dtype)


def softmin(input, dim=None, _stacklevel=3, dtype=None):
    if dim is None:
        dim = _softmax_dim(input.dim())
    return _C.softmax(-input, dim, dtype=dtype)


def log_softmax(input, dim=None, _stacklevel=3, dtype=None):
    if dim is None:
        dim = _softmax_dim(input.dim())
    return _C.log_softmax(input, dim, dtype=dtype)


# ---- dropout
def _check_p(p):
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")


def dropout(input, p=0.5, training=True, inplace=False):
    _check_p(p)
    out = _nn.dropout(input, p, training)
    return input.copy_(out) if inplace and out is not input else out


def _feature_dropout(input, p, training, inplace, batched_dim, name):
    _check_p(p)
    unbatched = input.dim() == batched_dim - 1
    if input.dim() not in (batched_dim - 1, batched_dim):
        warnings.warn(
            f"{name}: Received a {input.dim()}-D input to {name}, which is deprecated; expected "
            f"{batched_dim - 1}-D or {batched_dim}-D input.",
            stacklevel=3,
        )
    x = input.unsqueeze(0) if unbatched else input
    out = _nn.feature_dropout(x, p, training)
    if unbatched:
        out = out.squeeze(0)
    return input.copy_(out) if inplace and out is not input else out


def dropout1d(input, p=0.5, training=True, inplace=False):
    return _feature_dropout(input, p, training, inplace, 3, "dropout1d")


def dropout2d(input, p=0.5, training=True, inplace=False):
    return _feature_dropout(input, p, training, inplace, 4, "dropout2d")


def dropout3d(input, p=0.5, training=True, inplace=False):
    return _feature_dropout(input, p, training, inplace, 5, "dropout3d")


# ---- sparse
def _embedding_padding_idx(padding_idx, num_embeddings):
    """padding_idx checked against num_embeddings and made non-negative (F.embedding and nn.Embedding)."""
    if padding_idx is None:
        return None
    # PyTorch's two asserts: 0 passes even when num_embeddings is 0.
    if (padding_idx > 0 and padding_idx >= num_embeddings) or padding_idx < -num_embeddings:
        raise AssertionError("Padding_idx must be within num_embeddings")
    return padding_idx + num_embeddings if padding_idx < 0 else padding_idx


def embedding(
    input, weight, padding_idx=None, max_norm=None, norm_type=2.0, scale_grad_by_freq=False, sparse=False
):
    padding_idx = _embedding_padding_idx(padding_idx, weight.shape[0])
    if padding_idx is None:
        padding_idx = -1
    if sparse:
        raise NotImplementedError("minitorch has no sparse tensors: use sparse=False (a dense gradient)")
    if max_norm is not None:
        from minitorch.autograd.grad_mode import no_grad

        with no_grad():
            _nn.embedding_renorm_(weight, input.contiguous(), max_norm, norm_type)
    return _nn.embedding(weight, input, padding_idx, scale_grad_by_freq, sparse)


def one_hot(tensor, num_classes=-1):
    if tensor.dtype != _C.int64:
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    if num_classes == -1:
        if tensor.numel() == 0:
            raise RuntimeError("Can not infer total number of classes from empty tensor.")
        num_classes = int(tensor.max().item()) + 1
    if tensor.numel() and (int(tensor.min().item()) < 0):
        raise RuntimeError("Class values must be non-negative.")
    if tensor.numel() and int(tensor.max().item()) >= num_classes:
        raise RuntimeError("Class values must be smaller than num_classes.")
    out = _C.zeros(tuple(tensor.shape) + (num_classes,), dtype=_C.int64, device=tensor.device)
    return out.scatter_(-1, tensor.unsqueeze(-1), 1)


# ---- convolution and pooling
def conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    return _nn.conv1d(input, weight, bias, stride, padding, dilation, groups)


def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    return _nn.conv2d(input, weight, bias, stride, padding, dilation, groups)


def conv_transpose1d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    return _nn.conv_transpose1d(input, weight, bias, stride, padding, output_padding, groups, dilation)


def conv_transpose2d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    return _nn.conv_transpose2d(input, weight, bias, stride, padding, output_padding, groups, dilation)


def max_pool1d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    if return_indices:
        x = input.unsqueeze(-2)
        ks = (1, kernel_size if isinstance(kernel_size, int) else kernel_size[0])
        st = None if stride is None or stride == [] else (1, stride if isinstance(stride, int) else stride[0])
        pd = (0, padding if isinstance(padding, int) else padding[0])
        dl = (1, dilation if isinstance(dilation, int) else dilation[0])
        out, idx = _nn.max_pool2d_with_indices(x, ks, st, pd, dl, ceil_mode)
        return out.squeeze(-2), idx.squeeze(-2)
    return _nn.max_pool1d(input, kernel_size, stride, padding, dilation, ceil_mode)


def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    if stride == []:
        stride = None
    if return_indices:
        return _nn.max_pool2d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode)
    return _nn.max_pool2d(input, kernel_size, stride, padding, dilation, ceil_mode)


def avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True):
    return _nn.avg_pool1d(input, kernel_size, stride, padding, ceil_mode, count_include_pad)


def avg_pool2d(
    input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True, divisor_override=None
):
    if stride == []:
        stride = None
    return _nn.avg_pool2d(input, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override)


def adaptive_avg_pool1d(input, output_size):
    return _nn.adaptive_avg_pool1d(input, output_size)


def adaptive_avg_pool2d(input, output_size):
    return _nn.adaptive_avg_pool2d(input, output_size)


def adaptive_max_pool2d(input, output_size, return_indices=False):
    out, idx = _nn.adaptive_max_pool2d(input, output_size)
    return (out, idx) if return_indices else out


# ---- normalization
def batch_norm(
    input, running_mean, running_var, weight=None, bias=None, training=False, momentum=0.1, eps=1e-5
):
    return _nn.batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps)


def instance_norm(
    input,
    running_mean=None,
    running_var=None,
    weight=None,
    bias=None,
    use_input_stats=True,
    momentum=0.1,
    eps=1e-5,
):
    if use_input_stats:
        n, c = input.shape[0], input.shape[1]
        out = _nn.group_norm(input.reshape((1, n * c) + tuple(input.shape[2:])), n * c, None, None, eps)
        out = out.reshape(input.shape)
        if running_mean is not None:
            from minitorch.autograd.grad_mode import no_grad

            with no_grad():
                dims = tuple(range(2, input.dim()))
                mean = input.mean(dims).mean(0)
                var = input.var(dims, unbiased=True).mean(0)
                running_mean.mul_(1 - momentum).add_(momentum * mean)
                running_var.mul_(1 - momentum).add_(momentum * var)
    else:
        shape = (1, -1) + (1,) * (input.dim() - 2)
        out = (input - running_mean.reshape(shape)) * _C.rsqrt(running_var.reshape(shape) + eps)
    if weight is not None:
        shape = (1, -1) + (1,) * (input.dim() - 2)
        out = out * weight.reshape(shape) + bias.reshape(shape)
    return out


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5):
    return _nn.layer_norm(input, normalized_shape, weight, bias, eps)


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-5):
    return _nn.group_norm(input, num_groups, weight, bias, eps)


def normalize(input, p=2.0, dim=1, eps=1e-12, out=None):
    denom = input.norm(p, dim, keepdim=True).clamp_min(eps).expand_as(input)
    return input / denom


# ---- distances
def cosine_similarity(x1, x2, dim=1, eps=1e-8):
    w12 = (x1 * x2).sum(dim)
    n1 = (x1 * x1).sum(dim)
    n2 = (x2 * x2).sum(dim)
    return w12 / _C.sqrt((n1 * n2).clamp_min(eps * eps))


def pairwise_distance(x1, x2, p=2.0, eps=1e-6, keepdim=False):
    return (x1 - x2 + eps).norm(p, -1, keepdim=keepdim)


# ---- padding
def pad(input, pad, mode="constant", value=None):
    if len(pad) % 2:
        raise ValueError("Padding length must be divisible by 2")
    if len(pad) // 2 > input.dim():
        raise ValueError("Padding length should be less than or equal to two times the input dimension")
    if mode == "constant":
        out = input
        fill = 0.0 if value is None else value
        for i in range(len(pad) // 2):
            dim = input.dim() - 1 - i
            lo, hi = pad[2 * i], pad[2 * i + 1]
            if lo < 0:
                out = out.narrow(dim, -lo, out.shape[dim] + lo)
                lo = 0
            if hi < 0:
                out = out.narrow(dim, 0, out.shape[dim] + hi)
                hi = 0
            parts = []
            if lo:
                shape = list(out.shape)
                shape[dim] = lo
                parts.append(_C.full(shape, fill, dtype=out.dtype, device=out.device))
            parts.append(out)
            if hi:
                shape = list(out.shape)
                shape[dim] = hi
                parts.append(_C.full(shape, fill, dtype=out.dtype, device=out.device))
            if len(parts) > 1:
                out = _C.cat(parts, dim)
        return out
    if mode not in ("reflect", "replicate", "circular"):
        raise NotImplementedError(f"Unsupported padding mode: {mode}")
    out = input
    for i in range(len(pad) // 2):
        dim = input.dim() - 1 - i
        lo, hi = pad[2 * i], pad[2 * i + 1]
        n = out.shape[dim]
        if mode == "reflect" and (lo >= n or hi >= n):
            raise RuntimeError(
                f"Argument #4: Padding size should be less than the corresponding input dimension, but got: "
                f"padding ({lo}, {hi}) at dimension {dim} of input {list(input.shape)}"
            )
        idx = []
        for j in range(-lo, n + hi):
            if mode == "replicate":
                idx.append(min(max(j, 0), n - 1))
            elif mode == "circular":
                idx.append(j % n)
            else:
                k = abs(j)
                idx.append(2 * (n - 1) - k if k > n - 1 else k)
        out = out.index_select(dim, _tensor(idx, dtype=_C.int64, device=out.device))
    return out


# ---- losses
def cross_entropy(
    input,
    target,
    weight=None,
    size_average=None,
    ignore_index=-100,
    reduce=None,
    reduction="mean",
    label_smoothing=0.0,
):
    if size_average is not None or reduce is not None:
        reduction = _reduction(size_average, reduce, reduction)
    return _nn.cross_entropy(input, target, weight, reduction, ignore_index, label_smoothing)


def nll_loss(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction="mean"):
    if size_average is not None or reduce is not None:
        reduction = _reduction(size_average, reduce, reduction)
    return _nn.nll_loss(input, target, weight, reduction, ignore_index)


def mse_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    if size_average is not None or reduce is not None:
        reduction = _reduction(size_average, reduce, reduction)
    _warn_size(input, target)
    return _nn.mse_loss(input, target, reduction)


def l1_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    if size_average is not None or reduce is not None:
        reduction = _reduction(size_average, reduce, reduction)
    _warn_size(input, target)
    return _nn.l1_loss(input, target, reduction)


def smooth_l1_loss(input, target, size_average=None, reduce=None, reduction="mean", beta=1.0):
    if size_average is not None or reduce is not None:
        reduction = _reduction(size_average, reduce, reduction)
    _warn_size(input, target)
    return _nn.smooth_l1_loss(input, target, reduction, beta)


def huber_loss(input, target, reduction="mean", delta=1.0):
    _warn_size(input, target)
    return _nn.huber_loss(input, target, reduction, delta)


def binary_cross_entropy(input, target, weight=None, size_average=None, reduce=None, reduction="mean"):
    if size_average is not None or reduce is not None:
        reduction = _reduction(size_average, reduce, reduction)
    if tuple(target.shape) != tuple(input.shape):
        raise ValueError(
            f"Using a target size ({target.shape}) that is different to the input size ({input.shape}) is "
            "deprecated. Please ensure they have the same size."
        )
    return _nn.binary_cross_entropy(input, target, weight, reduction)


def binary_cross_entropy_with_logits(
    input, target, weight=None, size_average=None, reduce=None, reduction="mean", pos_weight=None
):
    if size_average is not None or reduce is not None:
        reduction = _reduction(size_average, reduce, reduction)
    if tuple(target.shape) != tuple(input.shape):
        raise ValueError(f"Target size ({target.shape}) must be the same as input size ({input.shape})")
    return _nn.binary_cross_entropy_with_logits(input, target, weight, reduction, pos_weight)


def kl_div(input, target, size_average=None, reduce=None, reduction="mean", log_target=False):
    if size_average is not None or reduce is not None:
        reduction = _reduction(size_average, reduce, reduction)
    return _nn.kl_div(input, target, reduction, log_target)


def _warn_size(input, target):
    if tuple(target.shape) != tuple(input.shape):
        warnings.warn(
            f"Using a target size ({target.shape}) that is different to the input size ({input.shape}). "
            "This will likely lead to incorrect results due to broadcasting. Please ensure they have the same "
            "size.",
            stacklevel=3,
        )


# ---- attention (the fused op; multi_head_attention_forward composes it as PyTorch's does)


# (query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False, *, scale=None, enable_gqa=False)
scaled_dot_product_attention = _nn.scaled_dot_product_attention


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
        k = _C.cat([k, bias_k.expand(1, bsz, embed_dim)])
        v = _C.cat([v, bias_v.expand(1, bsz, embed_dim)])
        if attn_mask is not None:
            attn_mask = pad(attn_mask, (0, 1))
        if key_padding_mask is not None:
            key_padding_mask = pad(key_padding_mask, (0, 1))

    # (L, N, E) -> (N * H, L, head_dim)
    q = q.reshape(tgt_len, bsz * num_heads, head_dim).transpose(0, 1)
    k = k.reshape(-1, bsz * num_heads, head_dim).transpose(0, 1) if static_k is None else static_k
    v = v.reshape(-1, bsz * num_heads, head_dim).transpose(0, 1) if static_v is None else static_v
    if add_zero_attn:
        k = _C.cat([k, _C.zeros((bsz * num_heads, 1, head_dim), dtype=k.dtype, device=k.device)], 1)
        v = _C.cat([v, _C.zeros((bsz * num_heads, 1, head_dim), dtype=v.dtype, device=v.device)], 1)
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
        s = _C.bmm(q * (1.0 / head_dim) ** 0.5, k.transpose(-2, -1))
        if attn_mask is not None:
            s = s + attn_mask
        w = softmax(s, dim=-1)
        if dropout_p > 0.0:
            w = dropout(w, p=dropout_p)
        out = _C.bmm(w, v)
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


def pixel_shuffle(input, upscale_factor):
    # A composite of a reshape and a permute (PyTorch's CPU path is the same), so autograd comes for free.
    r = int(upscale_factor)
    if input.dim() < 3:
        raise RuntimeError(
            f"pixel_shuffle expects input to have at least 3 dimensions, but got input with {input.dim()} dimension(s)"
        )
    if r <= 0:
        raise RuntimeError(f"pixel_shuffle expects a positive upscale_factor, but got {r}")
    *batch, c, h, w = input.shape
    if c % (r * r) != 0:
        raise RuntimeError(
            "pixel_shuffle expects its input's 'channel' dimension to be divisible by the square of upscale_factor, "
            f"but input.size(-3)={c} is not divisible by {r * r}"
        )
    n = len(batch)
    x = input.reshape(*batch, c // (r * r), r, r, h, w)
    x = x.permute(*range(n), n, n + 3, n + 1, n + 4, n + 2)
    return x.reshape(*batch, c // (r * r), h * r, w * r)


def pixel_unshuffle(input, downscale_factor):
    r = int(downscale_factor)
    if input.dim() < 3:
        raise RuntimeError(
            "pixel_unshuffle expects input to have at least 3 dimensions, "
            f"but got input with {input.dim()} dimension(s)"
        )
    if r <= 0:
        raise RuntimeError(f"pixel_unshuffle expects a positive downscale_factor, but got {r}")
    *batch, c, h, w = input.shape
    if h % r != 0:
        raise RuntimeError(
            f"pixel_unshuffle expects height to be divisible by downscale_factor, but input.size(-2)={h} "
            f"is not divisible by {r}"
        )
    if w % r != 0:
        raise RuntimeError(
            f"pixel_unshuffle expects width to be divisible by downscale_factor, but input.size(-1)={w} "
            f"is not divisible by {r}"
        )
    n = len(batch)
    x = input.reshape(*batch, c, h // r, r, w // r, r)
    x = x.permute(*range(n), n, n + 2, n + 4, n + 1, n + 3)
    return x.reshape(*batch, c * r * r, h // r, w // r)


# ---- upsampling: PyTorch's interpolate is Python too; it validates and normalizes, then one native op
_INTERP_MODES = "nearest | linear | bilinear | bicubic | trilinear | lanczos | area | nearest-exact"


def _is_integer(x):
    import numbers

    from minitorch import Tensor

    if isinstance(x, Tensor):
        return not x.is_floating_point() and not x.is_complex()
    return isinstance(x, numbers.Integral)


def interpolate(
    input,
    size=None,
    scale_factor=None,
    mode="nearest",
    align_corners=None,
    recompute_scale_factor=None,
    antialias=False,
):
    if mode in ("nearest", "area", "nearest-exact"):
        if align_corners is not None:
            raise ValueError(
                "align_corners option can only be set with the interpolating modes: linear | bilinear | bicubic | trilinear"
            )
    elif align_corners is None:
        align_corners = False

    dim = input.dim() - 2  # spatial dims
    if size is not None and scale_factor is not None:
        raise ValueError("only one of size or scale_factor should be defined")
    if size is not None:
        scale_factors = None
        # size and scale_factor get the same checks, each with PyTorch's own messages.
        if isinstance(size, (list, tuple)):
            if len(size) != dim:
                raise ValueError(
                    "Input and output must have the same number of spatial dimensions, but got "
                    f"input with spatial dimensions of {list(input.shape[2:])} and output size of {size}. "
                    "Please provide input tensor in (N, C, d1, d2, ...,dK) format and "
                    "output size in (o1, o2, ...,oK) format."
                )
            if not all(_is_integer(x) for x in size):
                raise TypeError(
                    "expected size to be one of int or Tuple[int] or Tuple[int, int] or "
                    f"Tuple[int, int, int], but got size with types {[type(x) for x in size]}"
                )
            output_size = [int(x) for x in size]
        else:
            output_size = [int(size) for _ in range(dim)]
    elif scale_factor is not None:
        output_size = None
        if isinstance(scale_factor, (list, tuple)):
            if len(scale_factor) != dim:
                raise ValueError(
                    "Input and scale_factor must have the same number of spatial dimensions, but "
                    f"got input with spatial dimensions of {list(input.shape[2:])} and "
                    f"scale_factor of shape {scale_factor}. "
                    "Please provide input tensor in (N, C, d1, d2, ...,dK) format and "
                    "scale_factor in (s1, s2, ...,sK) format."
                )
            scale_factors = [float(s) for s in scale_factor]
        else:
            scale_factors = [float(scale_factor) for _ in range(dim)]
    else:
        raise ValueError("either size or scale_factor should be defined")

    if recompute_scale_factor is not None and recompute_scale_factor and size is not None:
        raise ValueError("recompute_scale_factor is not meaningful with an explicit size.")
    if mode == "area" and output_size is None:
        recompute_scale_factor = True
    if recompute_scale_factor:
        # the sizes from the scales, then scales recomputed from the sizes (truncation, as PyTorch's int())
        output_size = [int(input.size(i + 2) * scale_factors[i]) for i in range(dim)]
        scale_factors = None

    if antialias and not (mode in ("bilinear", "bicubic", "lanczos") and input.dim() == 4):
        raise ValueError(
            "Anti-alias option is restricted to bilinear, bicubic, and lanczos modes and requires a 4-D tensor as input"
        )
    if antialias or mode == "lanczos":
        raise NotImplementedError(
            "interpolate: antialias=True and mode='lanczos' are not implemented in minitorch"
        )

    nd = input.dim()
    if mode == "area" and nd in (3, 4):
        pool = adaptive_avg_pool1d if nd == 3 else adaptive_avg_pool2d
        return pool(input, output_size)
    if mode == "area" and nd == 5:
        raise NotImplementedError(
            "interpolate: mode='area' on 5-D input (adaptive_avg_pool3d) is not implemented"
        )
    wrong = {
        (3, "bilinear"): "Got 3D input, but bilinear mode needs 4D input",
        (3, "trilinear"): "Got 3D input, but trilinear mode needs 5D input",
        (4, "linear"): "Got 4D input, but linear mode needs 3D input",
        (4, "trilinear"): "Got 4D input, but trilinear mode needs 5D input",
        (5, "linear"): "Got 5D input, but linear mode needs 3D input",
        (5, "bilinear"): "Got 5D input, but bilinear mode needs 4D input",
    }
    if (nd, mode) in wrong:
        raise NotImplementedError(wrong[(nd, mode)])
    supported = mode in ("nearest", "nearest-exact") or (nd, mode) in (
        (3, "linear"),
        (4, "bilinear"),
        (5, "trilinear"),
        (4, "bicubic"),
    )
    if nd not in (3, 4, 5) or not supported:
        raise NotImplementedError(
            f"Input Error: Only 3D, 4D and 5D input Tensors supported (got {nd}D) for the modes: {_INTERP_MODES} (got {mode})"
        )
    return _nn._upsample(input, mode, output_size, bool(align_corners), scale_factors)


def upsample(input, size=None, scale_factor=None, mode="nearest", align_corners=None):
    warnings.warn(
        "`nn.functional.upsample` is deprecated. Use nn.functional.interpolate instead.", stacklevel=2
    )
    return interpolate(input, size, scale_factor, mode, align_corners)


def upsample_nearest(input, size=None, scale_factor=None):
    warnings.warn(
        "`nn.functional.upsample_nearest` is deprecated. Use nn.functional.interpolate instead.", stacklevel=2
    )
    return interpolate(input, size, scale_factor, mode="nearest")


def upsample_bilinear(input, size=None, scale_factor=None):
    warnings.warn(
        "`nn.functional.upsample_bilinear` is deprecated. Use nn.functional.interpolate instead.",
        stacklevel=2,
    )
    return interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)
