"""nn.functional: PyTorch's functional API. Layers with a kernel of their own call the native op in
minitorch._C._nn once (argument normalization only here); the rest are compositions of recorded ops."""

import collections.abc
import struct as _struct
import warnings

from minitorch import _C, _argcheck
from minitorch._creation import tensor as _tensor
from minitorch._dtype_names import cpp_name, scalar_name
from minitorch.autograd.function import Function as _Function
from minitorch.functional import broadcast_shapes as _broadcast_shapes

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


@_argcheck.parses("Tensor input1, Tensor input2, Tensor weight, Tensor? bias=None")
def bilinear(input1, input2, weight, bias=None):
    # ATen's checks, in its order (each comparison reads the weight's size first: its IndexError when short)
    named = [("input1", input1), ("input2", input2), ("weight", weight)] + (
        [("bias", bias)] if bias is not None else []
    )
    if any(t.dtype != input1.dtype for _, t in named):
        raise RuntimeError(
            "All tensors must have the same dtype, got "
            + ", ".join(f"{n}: {cpp_name(t.dtype)}" for n, t in named)
        )
    if input1.dim() != input2.dim():
        raise RuntimeError(
            f"bilinear(): input dimensions do not match: got {input1.dim()} and {input2.dim()}"
        )
    for i in range(input1.dim() - 1):
        if input1.shape[i] != input2.shape[i]:
            raise RuntimeError(
                f"bilinear(): input batch dimensions do not match at dim {i}: got {input1.shape[i]} and "
                f"{input2.shape[i]}"
            )
    for what, x, d in (("input1", input1, 1), ("input2", input2, 2)):
        want = weight.size(d)
        got = x.size(x.dim() - 1)
        if got != want:
            raise RuntimeError(
                f"bilinear(): {what} size does not match weight size: got {got} but expected {want}"
            )
    if bias is not None and bias.size(0) != weight.size(0):
        raise RuntimeError(
            f"bilinear(): bias size does not match weight size: got {bias.size(0)} but expected {weight.size(0)}"
        )
    if weight.dim() != 3:
        raise RuntimeError("number of dimensions must match")
    if input1.dtype == _C.bool:
        raise NotImplementedError("\"bmm\" not implemented for 'Bool'")
    out = _C.einsum("...i,oij,...j->...o", input1, weight, input2)
    return out + bias if bias is not None else out


# ---- activations
def _floating(input, kernel, suffix=True):
    """PyTorch's NotImplementedError for an activation or loss whose kernel takes only floating inputs."""
    if not input.is_floating_point():
        if suffix:
            kernel += "_cuda" if input.is_cuda else "_cpu"
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{scalar_name(input.dtype)}'")


def _floating_pair(input, target, kernel):
    """_floating for a loss whose kernel runs in the promoted dtype of input and target."""
    if isinstance(target, _C.Tensor) and not _C.result_type(input, target).is_floating_point:
        _floating(input if not input.is_floating_point() else target, kernel)


def _number(fname, argname, pos, x):
    """PyTorch's TypeError for a tensor (of one or more dimensions) where its op takes a Number."""
    if isinstance(x, _C.Tensor) and x.dim() != 0:
        raise TypeError(f"{fname}(): argument '{argname}' (position {pos}) must be Number, not Tensor")


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
    _number("threshold_" if inplace else "threshold", "threshold", 2, threshold)
    _number("threshold_" if inplace else "threshold", "value", 3, value)
    if input.dtype == _C.bool or input.is_complex():
        raise NotImplementedError(f"\"threshold_cpu\" not implemented for '{scalar_name(input.dtype)}'")
    # PyTorch's kernel converts the threshold to the input's type (float for float16/bfloat16, which it
    # compares in float), so an integer input meets int(threshold) (-0.5 becomes 0) and an unrepresentable
    # one is refused as Scalar.to's overflow; the test is x <= threshold: a NaN input or threshold keeps x
    reduced = input.dtype in (_C.float16, _C.bfloat16)
    x = input.float() if reduced else input
    th = _C.scalar_tensor(threshold, dtype=x.dtype, device=x.device)
    fill = _C.scalar_tensor(value, dtype=input.dtype, device=input.device)
    out = _C._where(_C.le(x, th), fill, input)
    return input.copy_(out) if inplace else out


def _bound_number(v):
    """a 0-d tensor given as a bound is its number (PyTorch's parser reads a Number), so it never promotes"""
    return v.item() if isinstance(v, _C.Tensor) and v.dim() == 0 else v


def hardtanh(input, min_val=-1.0, max_val=1.0, inplace=False):
    if min_val > max_val:  # F.hardtanh's own check; the C++ op (hardtanh_) has none
        raise ValueError("min_val cannot be greater than max_val")
    return _hardtanh(input, min_val, max_val, inplace)


def _hardtanh(input, min_val, max_val, inplace):
    """ATen's hardtanh: no bools; an integer input keeps its dtype; min_val > max_val gives max_val everywhere
    (the kernel's min(max(x, min_val), max_val), as clamp)"""
    min_val, max_val = _bound_number(min_val), _bound_number(max_val)
    if input.dtype == _C.bool:
        raise NotImplementedError("Bool inputs not supported for hardtanh")
    if not input.is_floating_point():
        min_val, max_val = int(min_val), int(max_val)  # PyTorch keeps an integer input's dtype
    elif input.requires_grad and _C.is_grad_enabled():
        if not inplace:
            return _Hardtanh.apply(input, min_val, max_val)
        return input.copy_(_Hardtanh.apply(input.clone(), min_val, max_val))
    return input.clamp_(min_val, max_val) if inplace else input.clamp(min_val, max_val)


class _Hardtanh(_Function):
    """clamp with PyTorch's hardtanh_backward: the gradient passes only strictly between the bounds (0 at x ==
    min_val or max_val, unlike clamp's). At a NaN x or bound PyTorch's own answer depends on the element's
    position (its vectorized loop gives 0, the scalar tail the gradient); this is the vectorized one. Read from
    the result, as PyTorch's in-place form does, it is the same test."""

    @staticmethod
    def forward(ctx, x, min_val, max_val):
        ctx.save_for_backward(x)
        ctx.bounds = (min_val, max_val)
        return x.clamp(min_val, max_val)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        lo, hi = ctx.bounds
        inside = _C.logical_and(x > lo, x < hi)
        return _C._where(inside, grad, _C.zeros((), dtype=grad.dtype, device=grad.device)), None, None


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
    _floating(input, "hardsigmoid")
    if inplace:
        return _write_back(input, lambda x: (x / 6 + 0.5).clamp(0.0, 1.0))
    return (input / 6 + 0.5).clamp(0.0, 1.0)


def hardswish(input, inplace=False):
    _floating(input, "hardswish")
    if inplace:
        return _write_back(input, lambda x: x * (x + 3).clamp(0.0, 6.0) / 6)
    return input * (input + 3).clamp(0.0, 6.0) / 6


def _elu_value(x, alpha, scale, input_scale):
    # PyTorch's kernel: x * scale where x >= 0 (so elu(0) is 0 for any alpha, NaN or infinite ones too) and
    # NaN x, alpha * scale * expm1(x * input_scale) below 0; half and bfloat16 in float, rounded once (in half,
    # celu's 1 / alpha underflowed: celu(-inf, alpha=1e30) was NaN, PyTorch's -inf)
    if x.dtype in (_C.float16, _C.bfloat16):
        return _elu_value(x.float(), alpha, scale, input_scale).to(x.dtype)
    neg = _C.expm1(x * input_scale) * (alpha * scale) if input_scale != 1 else _C.expm1(x) * (alpha * scale)
    return _C._where(x < 0, neg, x * scale if scale != 1 else x)


class _Elu(_Function):
    """ELU with PyTorch's backward (elu_backward): from the input, x <= 0 takes
    grad * input_scale * alpha * scale * exp(x * input_scale), else grad * scale (the branch not taken never
    reaches the gradient, so alpha = inf or a tiny CELU alpha gives no NaN); after an in-place call, from the
    result r as PyTorch's EluBackward1: r <= 0 takes grad * input_scale * (r + alpha * scale)."""

    @staticmethod
    def forward(ctx, x, alpha, scale, input_scale, is_result, grad_input_scale):
        out = _elu_value(x, alpha, scale, input_scale)
        ctx.save_for_backward(out if is_result else x)
        ctx.args = (alpha, scale, grad_input_scale, is_result)
        return out

    @staticmethod
    def backward(ctx, grad):
        (v,) = ctx.saved_tensors
        alpha, scale, input_scale, is_result = ctx.args
        if is_result:
            if not alpha >= 0:
                raise RuntimeError(
                    "In-place elu backward calculation is triggered with a negative slope which is not "
                    "supported. This is caused by calling in-place forward function with a negative slope, "
                    "please call out-of-place version instead."
                )
            neg = grad * (input_scale * (v + alpha * scale))
        else:
            neg = grad * (input_scale * alpha * scale) * _C.exp(v * input_scale)
        # NaN takes the negative branch (PyTorch's test is v > 0), so its gradient is NaN
        return _C._where(v > 0, grad * scale, neg), None, None, None, None, None


def _elu(input, alpha, scale, input_scale, inplace, grad_input_scale=None):
    alpha, scale, input_scale = float(alpha), float(scale), float(input_scale)
    grad_input_scale = input_scale if grad_input_scale is None else grad_input_scale
    if not (input.requires_grad and _C.is_grad_enabled()):
        out = _elu_value(input, alpha, scale, input_scale)
        return input.copy_(out) if inplace else out
    if not inplace:
        return _Elu.apply(input, alpha, scale, input_scale, False, grad_input_scale)
    # the in-place forms compute from a copy (the write must not change what the node reads) and, as PyTorch's
    # in-place kernels, take the gradient from the result
    return input.copy_(_Elu.apply(input.clone(), alpha, scale, input_scale, True, grad_input_scale))


def elu(input, alpha=1.0, inplace=False):
    _number("elu_" if inplace else "elu", "alpha", 2, alpha)
    _floating(input, "elu")
    return _elu(input, alpha, 1.0, 1.0, inplace)


def celu(input, alpha=1.0, inplace=False):
    _number("celu_" if inplace else "celu", "alpha", 2, alpha)
    if alpha == 0:
        raise RuntimeError("ZeroDivisionError: alpha cannot be 0 for CELU")
    _floating(input, "elu")
    # PyTorch's celu is elu with input_scale = 1 / alpha; its backward takes 1 / alpha with alpha rounded to
    # float32 (derivatives.yaml's 1.0 / alpha.toFloat())
    inv32 = 1.0 / _struct.unpack("f", _struct.pack("f", float(alpha)))[0]
    return _elu(input, alpha, 1.0, 1.0 / float(alpha), inplace, inv32)


_SELU_ALPHA, _SELU_SCALE = 1.6732632423543772848170429916717, 1.0507009873554804934193349852946


def selu(input, inplace=False):
    _floating(input, "elu")
    return _elu(input, _SELU_ALPHA, _SELU_SCALE, 1.0, inplace)


def softplus(input, beta=1.0, threshold=20.0):
    return _C.softplus(input, beta, threshold)


def logsigmoid(input):
    _floating(input, "log_sigmoid")
    # PyTorch's split min(x, 0) - log1p(exp(-|x|)): exp never exceeds 1, so float32 keeps the bits that
    # -softplus(-x) loses for negative x. Written with where, each side is smooth through 0 (the gradient is
    # 1/2 there and the second derivative -1/4, which abs and minimum would lose). float16/bfloat16 are
    # computed in float32 and rounded once, as PyTorch's kernel
    x = input.float() if input.dtype in (_C.float16, _C.bfloat16) else input
    neg = x < 0
    out = _C._where(neg, x, _C.zeros((), dtype=x.dtype, device=x.device)) - _C.softplus(
        _C._where(neg, x, -x), 1.0, 20.0
    )
    return out if x is input else out.to(input.dtype)


def softsign(input):
    return input / (1 + input.abs())


def tanhshrink(input):
    return input - _C.tanh(input)


def glu(input, dim=-1):
    if input.dtype in (_C.int64, _C.int32, _C.int16, _C.int8, _C.bool):  # uint8 fails the halving check first
        _floating(input, "glu")
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
    if p < 0.0 or p > 1.0:  # PyTorch's F.dropout1d checks p before the rank
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if isinstance(input, _C.Tensor) and input.dim() not in (
        2,
        3,
    ):  # unlike 2d/3d, PyTorch refuses other ranks
        raise RuntimeError(
            f"dropout1d: Expected 2D or 3D input, but received a {input.dim()}D input. Note that dropout1d exists "
            "to provide channel-wise dropout on inputs with 1 spatial dimension, a channel dimension, and an "
            "optional batch dimension (i.e. 2D or 3D inputs)."
        )
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
    # PyTorch's F.embedding reads weight's size only to check a positive or negative padding_idx
    if padding_idx is None:
        padding_idx = -1
    elif padding_idx > 0:
        if padding_idx >= weight.size(0):
            raise AssertionError("Padding_idx must be within num_embeddings")
    elif padding_idx < 0:
        if padding_idx < -weight.size(0):
            raise AssertionError("Padding_idx must be within num_embeddings")
        padding_idx = weight.size(0) + padding_idx
    if sparse:
        raise NotImplementedError("minitorch has no sparse tensors: use sparse=False (a dense gradient)")
    if max_norm is not None:
        from minitorch.autograd.grad_mode import no_grad

        with no_grad():
            _nn.embedding_renorm_(weight, input.contiguous(), max_norm, norm_type)
    return _embedding(weight, input, padding_idx, scale_grad_by_freq, sparse)


# torch.embedding, the C++ op F.embedding ends in: PyTorch's parser decides the argument kinds
_embedding = _argcheck.parsing(
    _nn.embedding.__call__,
    ["Tensor weight, Tensor indices, int padding_idx=-1, bool scale_grad_by_freq=False, bool sparse=False"],
    "embedding",
    upfront=False,
    positional=True,
)


def one_hot(tensor, num_classes=-1):
    if tensor.dtype != _C.int64:
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    if num_classes == -1:
        if tensor.numel() == 0:
            raise RuntimeError("Can not infer total number of classes from empty tensor.")
        num_classes = int(tensor.max().item()) + 1
    if tensor.is_meta:  # no values to check: the shape is all there is
        return _C.empty(tuple(tensor.shape) + (num_classes,), dtype=_C.int64, device=tensor.device)
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


def _ints_len(x):
    return len(x) if isinstance(x, (tuple, list)) else 1


@_argcheck.parses(
    "Tensor input, int[2] kernel_size, int[2] stride=[], int[2] padding=0, bool ceil_mode=False, "
    "bool count_include_pad=True, int? divisor_override=None",
    upfront=False,
)
def avg_pool2d(
    input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True, divisor_override=None
):
    if stride == []:
        stride = None
    if input.dim() < 3:
        # ATen checks the argument lengths, then reads the planes as input.size(-3): an IndexError here
        if _ints_len(kernel_size) not in (1, 2):
            raise RuntimeError("avg_pool2d: kernel_size must either be a single int, or a tuple of two ints")
        if stride is not None and _ints_len(stride) not in (0, 1, 2):
            raise RuntimeError(
                "avg_pool2d: stride must either be omitted, a single int, or a tuple of two ints"
            )
        if _ints_len(padding) not in (1, 2):
            raise RuntimeError("avg_pool2d: padding must either be a single int, or a tuple of two ints")
        if divisor_override is not None and divisor_override == 0:
            raise RuntimeError("divisor must be not zero")
        input.size(-3)
    return _nn.avg_pool2d(input, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override)


def adaptive_avg_pool1d(input, output_size):
    return _nn.adaptive_avg_pool1d(input, output_size)


def _list_with_default(out_size, input):
    """PyTorch's F-level output size of the adaptive pools: an int as given; a list needs more input dims than
    its length, and its None entries take the input's trailing sizes"""
    if isinstance(out_size, int):
        return out_size
    defaults = input.size()
    if len(defaults) <= len(out_size):
        raise ValueError(f"Input dimension should be at least {len(out_size) + 1}")
    return [v if v is not None else d for v, d in zip(out_size, defaults[-len(out_size) :])]


_adaptive_avg_pool2d = _argcheck.parsing(
    _nn.adaptive_avg_pool2d.__call__,
    ["Tensor input, int[2] output_size"],
    "adaptive_avg_pool2d",
    upfront=False,
)
_adaptive_max_pool2d = _argcheck.parsing(
    _nn.adaptive_max_pool2d.__call__,
    ["Tensor input, int[2] output_size"],
    "adaptive_max_pool2d",
    upfront=False,
)


def adaptive_avg_pool2d(input, output_size):
    size = _list_with_default(output_size, input)
    if (size == 1 or (isinstance(size, (list, tuple)) and list(size) == [1, 1])) and type(size) is not bool:
        # ATen's global-average shortcut: a mean over the last two dims, whatever the rank (its IndexError
        # for fewer than two)
        return input.mean((-1, -2), keepdim=True)
    return _adaptive_avg_pool2d(input, size)


def adaptive_max_pool2d(input, output_size, return_indices=False):
    out, idx = _adaptive_max_pool2d(input, _list_with_default(output_size, input))
    return (out, idx) if return_indices else out


# ---- normalization
_REDUCED = (_C.bfloat16, _C.float16)


def _check_param_dtypes(input, *params):
    """ATen's CPU rule for normalization parameters of another dtype than the input: allowed only as float32
    parameters of a bfloat16/float16 input (its "mixed type"); the first defined parameter decides which
    check speaks."""
    dt = input.dtype
    defined = [p for p in params if p is not None]
    if all(p.dtype == dt for p in defined) or input.is_cuda:
        return
    if defined[0].dtype == dt:
        other = next(p.dtype for p in defined if p.dtype != dt)
        raise RuntimeError(f"expected scalar type {scalar_name(dt)} but found {scalar_name(other)}")
    if any(p.dtype != _C.float32 for p in defined):
        raise RuntimeError("mixed dtype (CPU): expect parameter to have scalar type of Float")
    if dt not in _REDUCED:
        raise RuntimeError("mixed dtype (CPU): all inputs must share same datatype.")


_BATCH_NORM = (
    "Tensor input, Tensor? weight, Tensor? bias, Tensor? running_mean, Tensor? running_var, bool training, "
    "float momentum, float eps, bool cudnn_enabled"
)


def _batch_norm_op(input, weight, bias, running_mean, running_var, training, momentum, eps, cudnn_enabled):
    """torch.batch_norm after its parser: empty inputs return at once, whatever the dtypes; integers refused"""
    if type(training) is not bool:  # the binding would take any truth value
        _argcheck.check_call("batch_norm", [_BATCH_NORM], (input, weight, bias, running_mean, running_var,
                             training, momentum, eps, cudnn_enabled), {})  # fmt: skip
    if input.numel() == 0:  # ATen's early return, kept on the graph of the affine parameters
        out = input.clone()
        if weight is not None:
            out = out * weight[0]
        if bias is not None:
            out = out + bias[0]
        return out
    if not input.is_floating_point():
        raise NotImplementedError(f"\"batch_norm\" not implemented for '{scalar_name(input.dtype)}'")
    _check_param_dtypes(input, weight, bias, running_mean, running_var)
    return _nn.batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps)


_batch_norm_op = _argcheck.parsing(_batch_norm_op, [_BATCH_NORM], "batch_norm", upfront=False)


def batch_norm(
    input, running_mean, running_var, weight=None, bias=None, training=False, momentum=0.1, eps=1e-5
):
    # PyTorch's F.batch_norm is Python: its size and eps checks, then torch.batch_norm's parser and checks
    if training:
        _verify_batch_size(input.size())
        if eps <= 0.0:
            raise ValueError(f"batch_norm eps must be positive during training, but got {eps}")
    elif eps < 0.0:
        raise ValueError(f"batch_norm eps must be non-negative, but got {eps}")
    return _batch_norm_op(input, weight, bias, running_mean, running_var, training, momentum, eps, True)


def _verify_batch_size(size):
    """PyTorch's F-level refusal of a normalization over single values (batch/group norm)"""
    prod = size[0]
    for n in size[2:]:
        prod *= n
    if prod == 1:
        raise ValueError(f"Expected more than 1 value per channel when training, got input size {size}")


def _verify_spatial_size(size):
    prod = 1
    for n in size[2:]:
        prod *= n
    if prod == 1:
        raise ValueError(f"Expected more than 1 spatial element when training, got input size {size}")


_INSTANCE_NORM = (  # torch.instance_norm's, which F.instance_norm calls by position
    "Tensor input, Tensor? weight, Tensor? bias, Tensor? running_mean, Tensor? running_var, bool use_input_stats, "
    "float momentum, float eps, bool cudnn_enabled"
)


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
    # PyTorch's F.instance_norm is Python: the spatial-size check, then its C++ op's parser
    if use_input_stats:
        _verify_spatial_size(input.size())
    _argcheck.check_call("instance_norm", [_INSTANCE_NORM], (input, weight, bias, running_mean, running_var,
                         use_input_stats, momentum, eps, True), {}, True)  # fmt: skip
    if not use_input_stats and (running_mean is None or running_var is None):
        raise RuntimeError(
            "Expected running_mean and running_var to be defined when use_input_stats is false"
        )
    # ATen runs batch_norm over the n*c channels of the input seen as one sample, with each per-channel tensor
    # repeated n times: its size checks read in those terms
    n, c = input.shape[0], input.shape[1]
    for what, t in (
        ("running_mean", running_mean),
        ("running_var", running_var),
        ("weight", weight),
        ("bias", bias),
    ):
        if t is not None and t.numel() != c:
            raise RuntimeError(f"{what} should contain {n * c} elements not {t.numel() * n}")
    if (running_mean is None) != (running_var is None):
        raise ValueError("running_mean and running_var must either both be None or neither be None")
    if not input.is_floating_point():
        raise NotImplementedError(f"\"batch_norm\" not implemented for '{scalar_name(input.dtype)}'")
    _check_param_dtypes(input, weight, bias)
    if use_input_stats:
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
    shape = (1, -1) + (1,) * (input.dim() - 2)
    if weight is not None:
        out = out * weight.reshape(shape)
    if bias is not None:
        out = out + bias.reshape(shape)
    return out.to(input.dtype)  # float32 parameters of a reduced-precision input keep the input's dtype


_LAYER_NORM = "Tensor input, int[] normalized_shape, Tensor? weight=None, Tensor? bias=None, float eps=1e-05"


@_argcheck.parses(_LAYER_NORM, upfront=False, positional=True)
def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5):
    # the binding would take a bare int or a tensor here; PyTorch's parser takes neither
    if not isinstance(normalized_shape, (list, tuple)):
        _argcheck.check_call("layer_norm", [_LAYER_NORM], (input, normalized_shape, weight, bias, eps), {})
    _check_param_dtypes(input, weight, bias)
    return _nn.layer_norm(input, normalized_shape, weight, bias, eps)


def _group_norm_op(input, num_groups, weight=None, bias=None, eps=1e-5):
    """ATen's group_norm: empty channel and spatial extents refused before the C++ op's checks"""
    if 0 in input.shape[1:]:
        c = input.shape[1]
        hw = 1
        for n in input.shape[2:]:
            hw *= n
        if c == 0:
            raise RuntimeError("Expected number of channels to be greater than 0, got 0")
        if hw == 0:
            raise RuntimeError("Expected HxW to be greater than 0, got 0")
    _check_param_dtypes(input, weight, bias)
    return _nn.group_norm(input, num_groups, weight, bias, eps)


# torch.group_norm: PyTorch's parser in front of the C++ op
_group_norm = _argcheck.parsing(
    _group_norm_op,
    ["Tensor input, int num_groups, Tensor? weight=None, Tensor? bias=None, float eps=1e-05"],
    "group_norm",
    upfront=False,
    positional=True,
)


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-5):
    # PyTorch's F.group_norm is Python: the rank and per-channel size checks come before its C++ op
    if input.dim() < 2:
        raise RuntimeError(f"Expected at least 2 dimensions for input tensor but received {input.dim()}")
    _verify_batch_size([input.shape[0] * input.shape[1] // num_groups, num_groups] + list(input.shape[2:]))
    return _group_norm(input, num_groups, weight, bias, eps)


def normalize(input, p=2.0, dim=1, eps=1e-12, out=None):
    denom = input.norm(p, dim, keepdim=True).clamp_min(eps).expand_as(input)
    return input / denom


# ---- distances
def cosine_similarity(x1, x2, dim=1, eps=1e-8):
    # PyTorch's order: broadcast first (a side of size 1 along dim counts once per element of the other), then
    # each norm clamped to eps on its own, then the dot product of the normalized vectors. Only integer inputs
    # are cast to the common dtype: a float16 side is normalized in float16 before the product widens it
    common = _C.result_type(x1, x2)
    if not common.is_floating_point:
        raise RuntimeError(
            f"expected common dtype to be floating point, yet common dtype is {scalar_name(common)}"
        )
    from minitorch._composite_shape import broadcast_tensors

    if not x1.is_floating_point():
        x1 = x1.to(common)
    if not x2.is_floating_point():
        x2 = x2.to(common)
    x1, x2 = broadcast_tensors(x1, x2)
    n1 = x1.norm(2, dim, keepdim=True).clamp_min(eps)
    n2 = x2.norm(2, dim, keepdim=True).clamp_min(eps)
    return ((x1 / n1) * (x2 / n2)).sum(dim)


def pairwise_distance(x1, x2, p=2.0, eps=1e-6, keepdim=False):
    return (x1 - x2 + eps).norm(p, -1, keepdim=keepdim)


# ---- padding
_NON_CONSTANT_PAD_HELP = (
    "Supported combinations for non-constant padding:\n"
    "  - 2D or 3D input: padding size = 2 (pads last dimension)\n"
    "  - 3D or 4D input: padding size = 4 (pads last 2 dimensions)\n"
    "  - 4D or 5D input: padding size = 6 (pads last 3 dimensions)"
)


def pad(input, pad, mode="constant", value=None):
    # PyTorch's F.pad is C++ (torch._C._nn.pad): its argument errors are RuntimeErrors, its parser's TypeErrors
    for i, p in enumerate(pad):
        if isinstance(p, bool) or not isinstance(p, int):
            raise TypeError(
                "pad(): argument 'pad' (position 2) must be tuple of ints, but found element of type "
                f"{type(p).__name__} at pos {i}"
            )
    if len(pad) % 2:
        raise RuntimeError("Padding length must be divisible by 2")
    if len(pad) // 2 > input.dim():
        raise RuntimeError(
            "Padding length should be less than or equal to two times the input dimension but got padding "
            f"length {len(pad)} and input of dimension {input.dim()}"
        )
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
    # each non-constant mode pads the last 1, 2 or 3 dims of a batched or unbatched input
    if input.dim() - len(pad) // 2 not in (1, 2):
        raise NotImplementedError(
            f"Padding size {len(pad)} is not supported for {input.dim()}D input tensor.\n{_NON_CONSTANT_PAD_HELP}"
        )
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
    if isinstance(target, _C.Tensor) and target.dim() == 0 and isinstance(input, _C.Tensor):
        # ATen's paths for a 0-d target: probabilities of a 0-d input read its class dim 1 (an IndexError);
        # class indices of a batched input compare batch sizes, a 0-d target's counting as 0
        if input.dim() == 0 and target.is_floating_point():
            input.size(1)
        if input.dim() >= 2:
            raise ValueError(f"Expected input batch_size ({input.shape[0]}) to match target batch_size (0).")
    return _nn.cross_entropy(input, target, weight, reduction, ignore_index, label_smoothing)


def nll_loss(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction="mean"):
    if size_average is not None or reduce is not None:
        reduction = _reduction(size_average, reduce, reduction)
    return _nn.nll_loss(input, target, weight, reduction, ignore_index)


def _broadcast_pair(input, target):
    """PyTorch's torch.broadcast_tensors before the pointwise losses: a 0-d target expanded to input's shape
    promotes as a dimensioned tensor (a float32 0-d target makes a float16 input's loss float32)"""
    if tuple(input.shape) == tuple(target.shape):
        return input, target
    from minitorch._composite_shape import broadcast_tensors  # as cosine_similarity imports it

    return broadcast_tensors(input, target)


def mse_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    if size_average is not None or reduce is not None:
        reduction = _reduction(size_average, reduce, reduction)
    _warn_size(input, target)
    input, target = _broadcast_pair(input, target)
    return _nn.mse_loss(input, target, reduction)


def l1_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    if size_average is not None or reduce is not None:
        reduction = _reduction(size_average, reduce, reduction)
    _warn_size(input, target)
    input, target = _broadcast_pair(input, target)
    return _nn.l1_loss(input, target, reduction)


def smooth_l1_loss(input, target, size_average=None, reduce=None, reduction="mean", beta=1.0):
    _floating_pair(input, target, "smooth_l1")
    if size_average is not None or reduce is not None:
        reduction = _reduction(size_average, reduce, reduction)
    _warn_size(input, target)
    input, target = _broadcast_pair(input, target)
    return _nn.smooth_l1_loss(input, target, reduction, beta)


def huber_loss(input, target, reduction="mean", delta=1.0):
    _floating_pair(input, target, "huber")
    _warn_size(input, target)
    input, target = _broadcast_pair(input, target)
    return _nn.huber_loss(input, target, reduction, delta)


def binary_cross_entropy(input, target, weight=None, size_average=None, reduce=None, reduction="mean"):
    if size_average is not None or reduce is not None:
        reduction = _reduction(size_average, reduce, reduction)
    if tuple(target.shape) != tuple(input.shape):
        raise ValueError(
            f"Using a target size ({target.shape}) that is different to the input size ({input.shape}) is "
            "deprecated. Please ensure they have the same size."
        )
    if weight is not None:  # PyTorch's Python reads weight.size() and expands it to the target's shape
        new_size = _broadcast_shapes(tuple(target.size()), tuple(weight.size()))
        weight = weight.expand(new_size)
    return _nn.binary_cross_entropy(input, target, weight, reduction)


def binary_cross_entropy_with_logits(
    input, target, weight=None, size_average=None, reduce=None, reduction="mean", pos_weight=None
):
    if size_average is not None or reduce is not None:
        reduction = _reduction(size_average, reduce, reduction)
    if tuple(target.shape) != tuple(input.shape):
        raise ValueError(f"Target size ({target.shape}) must be the same as input size ({input.shape})")
    _floating(input, "log_sigmoid")
    return _nn.binary_cross_entropy_with_logits(input, target, weight, reduction, pos_weight)


def kl_div(input, target, size_average=None, reduce=None, reduction="mean", log_target=False):
    if isinstance(target, _C.Tensor) and (not input.is_floating_point() or not target.is_floating_point()):
        raise RuntimeError("kl_div: Integral inputs not supported.")
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


# ---- losses composed of recorded ops (ranking, embedding, margin, Poisson/Gaussian NLL): autograd and every
# device come from the ops they are built of; only argument checking and PyTorch's error messages live here
__all__ += [
    "cosine_embedding_loss",
    "gaussian_nll_loss",
    "hinge_embedding_loss",
    "margin_ranking_loss",
    "multi_margin_loss",
    "multilabel_margin_loss",
    "multilabel_soft_margin_loss",
    "poisson_nll_loss",
    "soft_margin_loss",
    "triplet_margin_loss",
    "triplet_margin_with_distance_loss",
]

_REDUCTIONS = ("none", "mean", "sum")
_HALF_LOG_2PI = 0.9189385332046727  # 0.5 * log(2 * pi)
_TWO_PI = 6.283185307179586


def _loss_reduction(size_average, reduce, reduction, message="{} is not a valid value for reduction"):
    """The reduction after the legacy pair is folded in, checked before any work as PyTorch's get_enum does."""
    if size_average is not None or reduce is not None:
        return _reduction(size_average, reduce, reduction)
    if reduction not in _REDUCTIONS:
        raise ValueError(message.format(reduction))
    return reduction


def _reduce_loss(loss, reduction):
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    return loss


def _zero_where(cond, value):
    return _C._where(cond, _C.scalar_tensor(0, dtype=value.dtype, device=value.device), value)


def margin_ranking_loss(input1, input2, target, margin=0, size_average=None, reduce=None, reduction="mean"):
    """max(0, -target * (input1 - input2) + margin), reduced; target holds 1 (input1 ranks higher) or -1."""
    reduction = _loss_reduction(size_average, reduce, reduction)
    if input1.dim() != input2.dim() or input1.dim() != target.dim():
        raise RuntimeError(
            "margin_ranking_loss : All input tensors should have same dimension but got sizes: "
            f"input1: {input1.size()}, input2: {input2.size()}, target: {target.size()} "
        )
    # ATen's order: -target first, in its own dtype (a uint8 target wraps there, as PyTorch's)
    return _reduce_loss((-target * (input1 - input2) + margin).clamp_min(0), reduction)


def _check_triplet_dims(anchor, positive, negative):
    a, p, n = anchor.dim(), positive.dim(), negative.dim()
    if not (a == p == n):
        raise RuntimeError(
            "The anchor, positive, and negative tensors are expected to have the same number of dimensions, but "
            f"got: anchor {a}D, positive {p}D, and negative {n}D inputs"
        )


def triplet_margin_loss(
    anchor,
    positive,
    negative,
    margin=1.0,
    p=2,
    eps=1e-6,
    swap=False,
    size_average=None,
    reduce=None,
    reduction="mean",
):
    """max(d(a, p) - d(a, n) + margin, 0) with d the p-norm pairwise distance over the last dim; swap uses
    min(d(a, n), d(p, n)) for the negative distance (Balntas et al.)."""
    reduction = _loss_reduction(size_average, reduce, reduction)
    _check_triplet_dims(anchor, positive, negative)
    d_pos = pairwise_distance(anchor, positive, p, eps)
    d_neg = pairwise_distance(anchor, negative, p, eps)
    if swap:
        d_neg = _C.minimum(d_neg, pairwise_distance(positive, negative, p, eps))
    return _reduce_loss((margin + d_pos - d_neg).clamp_min(0), reduction)


def triplet_margin_with_distance_loss(
    anchor, positive, negative, *, distance_function=None, margin=1.0, swap=False, reduction="mean"
):
    """triplet_margin_loss with any distance_function(x1, x2) -> tensor (default: pairwise_distance)."""
    if reduction not in _REDUCTIONS:
        raise ValueError(f"{reduction} is not a valid value for reduction")
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    _check_triplet_dims(anchor, positive, negative)
    dist = pairwise_distance if distance_function is None else distance_function
    d_pos = dist(anchor, positive)
    d_neg = dist(anchor, negative)
    if swap:
        d_neg = _C.minimum(d_neg, dist(positive, negative))
    return _reduce_loss((margin + d_pos - d_neg).clamp_min(0), reduction)


def poisson_nll_loss(
    input, target, log_input=True, full=False, size_average=None, eps=1e-8, reduce=None, reduction="mean"
):
    """Negative log likelihood of target ~ Poisson(rate): exp(input) - target * input when log_input, else
    input - target * log(input + eps); full adds Stirling's approximation of log(target!) where target > 1."""
    reduction = _loss_reduction(size_average, reduce, reduction)
    if log_input:
        loss = input.exp() - target * input
    else:
        loss = input - target * (input + eps).log()
    if full:
        stirling = target * target.log() - target + 0.5 * (_TWO_PI * target).log()
        # log(target) is -inf/nan at 0 and below: those terms are dropped, as PyTorch's masked_fill drops them
        loss = loss + _zero_where(target <= 1, stirling)
    return _reduce_loss(loss, reduction)


_ANY = (
    "Tensor input, *, Tensor? out=None",
    "Tensor input, int[]? dim=None, bool keepdim=False, *, Tensor? out=None",
    "Tensor input, int dim, bool keepdim=False, *, Tensor? out=None",
)


def gaussian_nll_loss(input, target, var, full=False, eps=1e-6, reduction="mean"):
    """0.5 * (log(max(var, eps)) + (input - target)^2 / max(var, eps)), plus 0.5 * log(2 pi) when full.

    var has input's shape, or one dimension less (the last), or input's shape with exactly one dimension of
    size 1 (a variance shared along it); a Python float is one variance for every element."""
    if isinstance(var, float):
        if var < 0:
            raise ValueError("var has negative entry/entries")
        var = var * _C.ones_like(input)
    else:
        # PyTorch's torch.any(var < 0): an int or bool var gives a bool there, which any() refuses
        neg = var < 0
        _argcheck.check_call("any", _ANY, (neg,), {})
        if bool(neg.any()):
            raise ValueError("var has negative entry/entries")
    in_shape, var_shape = tuple(input.shape), tuple(var.shape)
    if var_shape != in_shape:
        if in_shape[:-1] == var_shape:
            var = var.unsqueeze(-1)
        elif not (
            len(in_shape) == len(var_shape) and sum(v for i, v in zip(in_shape, var_shape) if i != v) == 1
        ):
            raise ValueError("var is of incorrect size")
    if reduction not in _REDUCTIONS:
        raise ValueError(reduction + " is not valid")
    # The clamp is invisible to autograd in PyTorch (clamp_ under no_grad on a clone): the gradient reaches var
    # as if unclamped, evaluated at the clamped value. Adding the detached difference where var < eps does the
    # same (only there: inf - inf would make an infinite var NaN).
    if not var.is_floating_point():  # PyTorch clamps a clone in place: an integer var cannot take eps
        raise RuntimeError(
            f"result type Float can't be cast to the desired output type {cpp_name(var.dtype)}"
        )
    var = _C._where(var < eps, var + (eps - var).detach(), var)
    loss = 0.5 * (var.log() + (input - target) ** 2 / var)
    if full:
        loss = loss + _HALF_LOG_2PI
    return _reduce_loss(loss, reduction)


def hinge_embedding_loss(input, target, margin=1.0, size_average=None, reduce=None, reduction="mean"):
    """input where target == 1, max(0, margin - input) where target == -1 (a value other than +-1 takes both)."""
    reduction = _loss_reduction(size_average, reduce, reduction)
    # PyTorch subtracts in input's dtype: an integer input truncates the margin and keeps its dtype
    margin_t = _C.full_like(input, margin) if isinstance(input, _C.Tensor) else margin
    loss = _zero_where(target == 1, (margin_t - input).clamp_min(0)) + _zero_where(target == -1, input)
    return _reduce_loss(loss, reduction)


def cosine_embedding_loss(input1, input2, target, margin=0, size_average=None, reduce=None, reduction="mean"):
    """1 - cos(x1, x2) where target == 1, max(0, cos(x1, x2) - margin) where target == -1; inputs (N, D) with
    target (N,), or (D,) with a 0-d target."""
    reduction = _loss_reduction(size_average, reduce, reduction)
    tdim = target.dim()
    if tdim > 1:
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    want = 2 if tdim == 1 else 1
    if input1.dim() != want or input2.dim() != want:
        raise RuntimeError(
            f"{tdim}D target tensor expects {want}D input tensors, but found inputs with sizes "
            f"{list(input1.shape)} and {list(input2.shape)}."
        )
    # PyTorch's EPSILON keeps a zero vector's cosine finite (0) instead of 0/0
    dot = (input1 * input2).sum(tdim)
    mag1 = (input1 * input1).sum(tdim) + 1e-12
    mag2 = (input2 * input2).sum(tdim) + 1e-12
    cos = dot / (mag1 * mag2).sqrt()
    loss = _zero_where(target != 1, 1 - cos) + _zero_where(target != -1, (cos - margin).clamp_min(0))
    return _reduce_loss(loss, reduction)


def soft_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    """log(1 + exp(-target * input)), reduced: the two-class logistic loss with targets +-1."""
    reduction = _loss_reduction(size_average, reduce, reduction)
    out = _nn.soft_margin_loss(input, target, reduction)
    # PyTorch writes the loss into a tensor of input's dtype, whatever the target's
    return out if out.dtype == input.dtype else out.to(input.dtype)


def multilabel_soft_margin_loss(input, target, weight=None, size_average=None, reduce=None, reduction="mean"):
    """Binary cross entropy of sigmoid(input) against 0/1 targets, averaged over the classes (last dim), one
    value per sample; weight scales the classes."""
    reduction = _loss_reduction(size_average, reduce, reduction, "{} is not valid")
    _floating(input, "log_sigmoid")
    loss = -(target * logsigmoid(input) + (1 - target) * logsigmoid(-input))
    if weight is not None:
        loss = loss * weight
    class_dim = input.dim() - 1
    loss = loss.sum(class_dim) / input.shape[class_dim]
    return _reduce_loss(loss, reduction)


def _margin_loss_frames(input, name):
    """(nframe, dim) of the margin losses' (C,) or (N, C) input (a 0-d input is one sample of one class)."""
    nd = input.dim()
    if not ((nd == 2 and input.shape[1] != 0) or (nd == 1 and input.shape[0] != 0) or nd == 0):
        raise RuntimeError(
            f"Expected non-empty vector or matrix with optional 0-dim batch size, but got: {list(input.shape)}"
        )
    if nd <= 1:
        return 1, (input.shape[0] if nd == 1 else 1)
    return input.shape[0], input.shape[1]


def _check_long_target(target):
    if target.dtype != _C.int64:
        raise RuntimeError(f"expected scalar type Long but found {scalar_name(target.dtype)}")


def multi_margin_loss(
    input, target, p=1, margin=1.0, weight=None, size_average=None, reduce=None, reduction="mean"
):
    """Multi-class hinge loss: sum over j != y of max(0, margin - x[y] + x[j])^p (times weight[y]), divided by
    the number of classes; input (C,) or (N, C), target the class indices."""
    reduction = _loss_reduction(size_average, reduce, reduction)
    if p != 1 and p != 2:
        raise ValueError("only p == 1 and p == 2 supported")
    if weight is not None and weight.dim() != 1:
        raise ValueError("weight must be one-dimensional")
    nframe, dim = _margin_loss_frames(input, "multi_margin_loss")
    if target.dim() > 1 or target.numel() != nframe:
        raise RuntimeError(
            "multi_margin_loss: target tensor should be 1-D with size equal to the number of input samples "
            f"(batch size). Expected target size [{nframe}], but got {list(target.shape)}. Input has shape "
            f"{list(input.shape)}."
        )
    if weight is not None and weight.numel() != dim:
        raise RuntimeError(f"inconsistent weight size, expected {dim} but got {list(weight.shape)}")
    _check_long_target(target)
    t = target.reshape(nframe)
    if nframe and (int(t.min()) < 0 or int(t.max()) >= dim):
        raise RuntimeError("target out of range")
    x = input.reshape(nframe, dim)
    z = (margin - x.gather(1, t.unsqueeze(1)) + x).clamp_min(0)
    if p == 2:
        z = z * z
    if weight is not None:
        z = z * weight.index_select(0, t).unsqueeze(1)
    own = _C.arange(dim, device=input.device).unsqueeze(0) == t.unsqueeze(1)
    loss = _zero_where(own, z).sum(1) / dim
    if target.dim() == 0:
        loss = loss.reshape(())
    return _reduce_loss(loss, reduction)


def multilabel_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    """Multi-label hinge loss: for each sample, sum over its target classes j and non-target classes k of
    max(0, 1 - (x[j] - x[k])), divided by the number of classes. target holds class indices padded with -1
    (the first -1 ends the list), shaped as input."""
    reduction = _loss_reduction(size_average, reduce, reduction)
    nframe, dim = _margin_loss_frames(input, "multilabel_margin_loss")
    nd = input.dim()
    ok = (target.dim() <= 1 and target.numel() == dim) if nd <= 1 else tuple(target.shape) == (nframe, dim)
    if not ok:
        raise RuntimeError(
            f"inconsistent target size: {list(target.shape)} for input of size: {list(input.shape)}"
        )
    _check_long_target(target)
    t = target.reshape(nframe, dim)
    if t.numel() and (int(t.min()) < -1 or int(t.max()) >= dim):
        raise RuntimeError("argument #2 'target' is out of range")
    x = input.reshape(nframe, dim)
    # slots before the first -1 hold the targets; each slot counts, so a repeated label counts twice as in ATen
    valid = (t == -1).to(_C.int64).cumsum(1) == 0
    slot = _zero_where(valid.logical_not(), t)
    hits = _C.zeros((nframe, dim), dtype=x.dtype, device=x.device).scatter_add(1, slot, valid.to(x.dtype))
    is_target = hits > 0
    # valid slots are a prefix of each row: pairing only the longest prefix, not all dim slots, cuts the
    # (sample, slot, class) work from dim^2 to labels * dim per sample (6x at 3 labels of 32 classes)
    used = int(valid.sum(1).max()) if nframe else 0
    valid, slot = valid.narrow(1, 0, used), slot.narrow(1, 0, used)
    x_slot = x.gather(1, slot)
    pair = (1 - x_slot.unsqueeze(2) + x.unsqueeze(1)).clamp_min(0)  # [sample, target slot, class]
    keep = valid.unsqueeze(2) & is_target.logical_not().unsqueeze(1)
    loss = _zero_where(keep.logical_not(), pair).sum((1, 2)) / dim
    if nd <= 1:
        loss = loss.reshape(())
    return _reduce_loss(loss, reduction)


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


@_argcheck.parses("Tensor input, int upscale_factor")
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


@_argcheck.parses("Tensor input, int downscale_factor")
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
    if input.numel() == 0:
        # PyTorch returns an empty input unchanged in shape once the checks pass ((N, 0, 3, 3) stays so)
        return input.clone()
    n = len(batch)
    x = input.reshape(*batch, c, h // r, r, w // r, r)
    x = x.permute(*range(n), n, n + 2, n + 4, n + 1, n + 3)
    return x.reshape(*batch, c * r * r, h // r, w // r)


# ---- upsampling: PyTorch's interpolate is Python too; it validates and normalizes, then one native op
_INTERP_MODES = "nearest | linear | bilinear | bicubic | trilinear | lanczos | area | nearest-exact"


def _is_integer(x):
    import numbers

    if isinstance(x, _C.Tensor):
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
    if mode == "area" and nd in (3, 4, 5):
        pool = {3: adaptive_avg_pool1d, 4: adaptive_avg_pool2d, 5: adaptive_avg_pool3d}[nd]
        return pool(input, output_size)
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


# ==== breadth additions: activations, normalizations, distances, fold/unfold, pooling extras, embedding_bag.
# Everything below is composed from recorded ops, so autograd and CUDA follow from the ops used.
__all__ += [
    "adaptive_max_pool1d",
    "adaptive_max_pool1d_with_indices",
    "adaptive_max_pool2d_with_indices",
    "alpha_dropout",
    "celu_",
    "channel_shuffle",
    "elu_",
    "embedding_bag",
    "feature_alpha_dropout",
    "fold",
    "gumbel_softmax",
    "hardshrink",
    "hardtanh_",
    "leaky_relu_",
    "local_response_norm",
    "lp_pool1d",
    "lp_pool2d",
    "max_pool1d_with_indices",
    "max_pool2d_with_indices",
    "max_unpool1d",
    "max_unpool2d",
    "native_channel_shuffle",
    "pdist",
    "prelu",
    "rms_norm",
    "rrelu",
    "rrelu_",
    "selu_",
    "softshrink",
    "threshold_",
    "unfold",
]

# float eps by dtype (torch.finfo(dtype).eps), for rms_norm's eps=None
_FINFO_EPS = {
    _C.float64: 2.220446049250313e-16,
    _C.float32: 1.1920928955078125e-07,
    _C.float16: 0.0009765625,
    _C.bfloat16: 0.0078125,
}


def _single(x):
    return x[0] if isinstance(x, (tuple, list)) else x


def _pair(x):
    return tuple(x) if isinstance(x, (tuple, list)) else (x, x)


# ---- activations: in-place spellings, shrinks, PReLU, RReLU
@_argcheck.parses("Tensor input, Scalar alpha=1, Scalar scale=1, Scalar input_scale=1")
def elu_(input, alpha=1.0, scale=1.0, input_scale=1.0):
    """In-place elu (PyTorch's C++ elu_, with its scale and input_scale): writes
    scale * (x if x > 0 else alpha * (exp(x * input_scale) - 1)) into input and returns it."""
    _floating(input, "elu")
    return _elu(input, alpha, scale, input_scale, True)


def celu_(input, alpha=1.0):
    """In-place celu: writes celu(input) into input and returns it."""
    return celu(input, alpha, inplace=True)


def selu_(input):
    """In-place selu: writes selu(input) into input and returns it."""
    return selu(input, inplace=True)


def leaky_relu_(input, negative_slope=0.01):
    """In-place leaky_relu: writes leaky_relu(input) into input and returns it."""
    return leaky_relu(input, negative_slope, inplace=True)


def hardtanh_(input, min_val=-1.0, max_val=1.0):
    """In-place hardtanh (PyTorch's C++ hardtanh_, without F.hardtanh's min_val <= max_val check): clamps input
    to [min_val, max_val] in place and returns it."""
    return _hardtanh(input, min_val, max_val, True)


def threshold_(input, threshold, value):
    """In-place threshold: elements not greater than threshold become value, in input itself."""
    return globals()["threshold"](input, threshold, value, inplace=True)


def softshrink(input, lambd=0.5):
    """x - lambd where x > lambd, x + lambd where x < -lambd, 0 otherwise."""
    _number("softshrink", "lambd", 2, lambd)
    lambd = _bound_number(lambd)  # a 0-d tensor is its number: a float32 lambd keeps a float16 input float16
    _floating(input, "softshrink_check", suffix=False)
    if lambd < 0:
        kind = {_C.float64: "Double", _C.float32: "Float", _C.float16: "Half", _C.bfloat16: "BFloat16"}
        hi = {_C.float64: "1.79769e+308", _C.float16: "65504", _C.bfloat16: "3.38953e+38"}
        raise RuntimeError(
            f"lambda must be in range [0, {hi.get(input.dtype, '3.40282e+38')}] for input dtype "
            f"{kind.get(input.dtype, 'Float')}, but found {lambd:g}"
        )
    # x - clamp(x) is the shrink itself; its gradient is 1 outside [-lambd, lambd] and 0 inside
    return input - input.clamp(-lambd, lambd)


def hardshrink(input, lambd=0.5):
    """x where |x| > lambd, 0 otherwise (NaN stays NaN, as PyTorch's -lambd <= x <= lambd test)."""
    _number("hardshrink", "lambd", 2, lambd)
    _floating(input, "hardshrink")
    # the gradient passes where x < -lambd or x > lambd, PyTorch's vectorized backward: with a NaN lambd the
    # value is x (no element is inside the band) but no gradient passes (its scalar tail would pass it)
    keep = (input < -lambd) | (input > lambd)
    return _C._where((input >= -lambd) & (input <= lambd), 0.0, _C._where(keep, input, input.detach()))


def prelu(input, weight):
    """max(0, x) + weight * min(0, x), weight one slope or one per channel (dim 1)."""
    channels = input.shape[1] if input.dim() >= 2 else 1
    n = weight.numel()
    if n != 1 and n != channels:
        raise RuntimeError(
            "Mismatch of parameter numbers and input channel size. Found parameter numbers = "
            f"{n} and channel size = {channels}."
        )
    if n == 1:
        w = weight.reshape(())
    else:
        w = weight.reshape((channels,) + (1,) * (input.dim() - 2))
    return _C._where(input > 0, input, w * input)


def rrelu(input, lower=1.0 / 8, upper=1.0 / 3, training=False, inplace=False):
    """Randomized leaky ReLU: in training each negative element gets a slope drawn from U(lower, upper);
    in eval the slope is the mean (lower + upper) / 2."""
    _floating(input, "leaky_relu")
    if lower > upper:
        raise RuntimeError("Lower bound should be less than or equal to the upper bound")
    if not training:
        return leaky_relu(input, (lower + upper) / 2, inplace)

    def fn(x):
        slopes = _C.empty_like(x).uniform_(lower, upper)
        return _C._where(x >= 0, x, x * slopes)

    return _write_back(input, fn) if inplace else fn(input)


def rrelu_(input, lower=1.0 / 8, upper=1.0 / 3, training=False):
    """In-place rrelu."""
    return rrelu(input, lower, upper, training, inplace=True)


def gumbel_softmax(logits, tau=1.0, hard=False, eps=1e-10, dim=-1):
    """Samples from the Gumbel-softmax distribution; hard=True returns one-hot samples whose gradient is the
    soft sample's (straight-through)."""
    if eps != 1e-10:
        warnings.warn("`eps` parameter is deprecated and has no effect.", stacklevel=2)
    # -log(Exp(1)) is Gumbel(0, 1); Exp(1) = -log(U), U kept off 0 so the sample stays finite
    u = _C.empty_like(logits).uniform_(1e-20 if logits.dtype == _C.float64 else 1e-38, 1.0)
    gumbels = -_C.log(-_C.log(u))
    y_soft = _C.softmax((logits + gumbels) / tau, dim)
    if not hard:
        return y_soft
    index = y_soft.argmax(dim, keepdim=True)
    y_hard = _C.zeros_like(logits).scatter_(dim, index, 1.0)
    return y_hard - y_soft.detach() + y_soft


# ---- dropout of self-normalizing networks
def alpha_dropout(input, p=0.5, training=False, inplace=False):
    """Dropout that keeps SELU activations' zero mean and unit variance (dropped units take SELU's negative
    saturation value, then an affine map restores the moments)."""
    _check_p(p)
    out = _nn.alpha_dropout(input, p, training)
    return input.copy_(out) if inplace and out is not input else out


def feature_alpha_dropout(input, p=0.5, training=False, inplace=False):
    """alpha_dropout of whole channels (dim 1), one draw per (sample, channel)."""
    _check_p(p)
    if p == 0 or not training or input.numel() == 0:
        return input
    if input.dim() < 2:
        raise RuntimeError("Feature dropout requires at least 2 dimensions in the input")
    if p == 1:
        out = input * _C.zeros((), dtype=input.dtype, device=input.device)
        return input.copy_(out) if inplace else out
    alpha = 1.7580993408473766
    a = 1.0 / ((alpha * alpha * p + 1) * (1 - p)) ** 0.5
    shape = tuple(input.shape[:2]) + (1,) * (input.dim() - 2)
    keep = _C.empty(shape, dtype=input.dtype, device=input.device).bernoulli_(1 - p)
    b = (keep - 1) * (alpha * a) + alpha * a * p
    out = input * (keep * a) + b
    return input.copy_(out) if inplace else out


# ---- normalization
def rms_norm(input, normalized_shape, weight=None, eps=None):
    """x / sqrt(mean(x^2 over the trailing normalized_shape dims) + eps) * weight; eps=None is the dtype's
    machine epsilon."""
    ns = tuple(normalized_shape)
    if not ns:
        raise RuntimeError(
            "Expected normalized_shape to be at least 1-dimensional, i.e., containing at least one element, but "
            "got normalized_shape = []"
        )
    if len(ns) > input.dim():
        raise ValueError(f"Input tensor must have at least {len(ns)} dimensions, but got {input.dim()}")
    if not (input.is_floating_point() or input.is_complex()):
        raise NotImplementedError(f"\"rms_norm\" not implemented for '{scalar_name(input.dtype)}'")
    if tuple(input.shape[input.dim() - len(ns) :]) != ns or len(ns) > input.dim():
        raise RuntimeError(
            f"Given normalized_shape={list(ns)}, expected input with shape [*{', '.join(map(str, ns))}], "
            f"but got input of size{list(input.shape)}"
        )
    if weight is not None and tuple(weight.shape) != ns:
        raise RuntimeError(
            "Expected weight to be of same shape as normalized_shape, but got weight of shape "
            f"{list(weight.shape)} and normalized_shape = {list(ns)}"
        )
    if eps is None:
        eps = _FINFO_EPS.get(input.dtype, 1.1920928955078125e-07)
    dims = tuple(range(input.dim() - len(ns), input.dim()))
    out = input * _C.rsqrt((input * input).mean(dims, keepdim=True) + eps) if dims else input
    return out * weight if weight is not None else out


def local_response_norm(input, size, alpha=1e-4, beta=0.75, k=1.0):
    """x / (k + alpha * mean of x^2 over `size` neighbouring channels)^beta (AlexNet's LRN)."""
    dim = input.dim()
    if dim < 3:
        raise ValueError(
            f"Expected 3D or higher dimensionality                          input (got {dim} dimensions)"
        )
    if input.numel() == 0:
        return input
    n, c = input.shape[0], input.shape[1]
    # the channel window becomes a (size, 1) average pool over a (channels, rest) plane
    div = (input * input).reshape(n, 1, c, -1)
    div = pad(div, (0, 0, size // 2, (size - 1) // 2))
    div = avg_pool2d(div, (size, 1), stride=1).reshape(input.shape)
    return input / (div * alpha + k).pow(beta)


# ---- distances
def pdist(input, p=2.0):
    """The p-norm distances between the rows of an (N, M) input, upper triangle of the distance matrix in
    row-major order (N * (N - 1) / 2 values)."""
    if input.dim() != 2:
        raise RuntimeError(f"pdist only supports 2D tensors, got: {input.dim()}D")
    if p < 0:
        raise RuntimeError("pdist only supports non-negative p values")
    n = input.shape[0]
    import numpy as np

    i, j = np.triu_indices(n, 1)
    if len(i) == 0:
        # no pairs: an empty result that still hangs off input (its gradient is zeros, as PyTorch's)
        return input.sum(1)[:0]
    ii = _tensor(i.astype(np.int64), device=input.device)
    jj = _tensor(j.astype(np.int64), device=input.device)
    d = input.index_select(0, ii) - input.index_select(0, jj)
    if p == 0:  # PyTorch's kernel counts min(ceil(|d|), 1): a NaN difference gives NaN
        from minitorch._composite_math import _zero_norm

        return _zero_norm(d)
    return d.norm(p, 1)


# ---- sliding blocks: unfold (im2col) and fold (col2im)
def _check_positive(name, h, w, what="greater than zero", key=None):
    key = key or name
    if (what == "non-negative" and (h < 0 or w < 0)) or (what != "non-negative" and (h <= 0 or w <= 0)):
        raise RuntimeError(f"{name} should be {what}, but got {key}_height: {h} {key}_width: {w}")


def _block_args(kernel_size, dilation, padding, stride, im2col=False):
    """the four pairs of unfold/fold, with ATen's length and sign checks in its order (im2col checks the
    dilation and padding before the stride, col2im the stride first)"""
    pairs = []
    for name, v in (
        ("kernel_size", kernel_size),
        ("dilation", dilation),
        ("padding", padding),
        ("stride", stride),
    ):
        v = tuple(int(e) if isinstance(e, _C.Tensor) else e for e in _ntuple(v, 2))  # 0-d tensors as ints
        if len(v) != 2:
            raise RuntimeError(f"It is expected {name} equals to 2, but got size {len(v)}")
        pairs.append(v)
    (kh, kw), (dh, dw), (ph, pw), (sh, sw) = pairs
    _check_positive("kernel size", kh, kw, key="kernel")
    if not im2col:
        _check_positive("stride", sh, sw)
    _check_positive("dilation", dh, dw)
    _check_positive("padding", ph, pw, "non-negative", key="pad")
    if im2col:
        _check_positive("stride", sh, sw)
    return kh, kw, dh, dw, ph, pw, sh, sw


_IM2COL = "Tensor input, int[2] kernel_size, int[2] dilation, int[2] padding, int[2] stride"
_COL2IM = (
    "Tensor input, int[2] output_size, int[2] kernel_size, int[2] dilation, int[2] padding, int[2] stride"
)


def _check_block_dtype(x, kernel):
    # im2col/col2im take floating, complex and bool tensors, not integers
    if not (x.is_floating_point() or x.is_complex() or x.dtype == _C.bool):
        raise NotImplementedError(f"\"{kernel}_out_cpu\" not implemented for '{scalar_name(x.dtype)}'")


def unfold(input, kernel_size, dilation=1, padding=0, stride=1):
    """im2col: (N, C, H, W) -> (N, C * kh * kw, L), each column one sliding block, L the block count."""
    # PyTorch's F.unfold is Python handing _pair()s of its arguments to the C++ im2col
    args = tuple(_ntuple(v, 2) for v in (kernel_size, dilation, padding, stride))
    _argcheck.check_call("im2col", [_IM2COL], (input,) + args, {})
    if input.requires_grad and _C.is_grad_enabled():
        input.size(-2), input.size(-1)  # PyTorch's autograd records these sizes before im2col runs
    kh, kw, dh, dw, ph, pw, sh, sw = _block_args(*args, im2col=True)
    # ATen reads dims 1 and 2 before checking the rank, so low ranks fail as an index error
    input.size(1), input.size(2)
    if input.dim() not in (3, 4) or 0 in input.shape[1:] or (input.dim() == 3 and input.shape[0] == 0):
        raise RuntimeError(
            "Expected 3D or 4D (batch mode) tensor with possibly 0 batch size and other non-zero dimensions "
            f"for input, but got: {list(input.shape)}"
        )
    x = input if input.dim() == 4 else input.unsqueeze(0)
    n, c, h, w = x.shape
    oh = (h + 2 * ph - dh * (kh - 1) - 1) // sh + 1
    ow = (w + 2 * pw - dw * (kw - 1) - 1) // sw + 1
    if oh < 1 or ow < 1:
        raise RuntimeError(
            f"Given input with spatial size ({h}, {w}), kernel_size=({kh}, {kw}), dilation=({dh}, {dw}), "
            f"padding=({ph}, {pw}), calculated shape of the array of sliding blocks as ({oh}, {ow}), but its "
            "components must be at least one."
        )
    _check_block_dtype(input, "im2col")
    if ph or pw:
        x = pad(x, (pw, pw, ph, ph))
    x = x.contiguous()
    hp, wp = x.shape[2], x.shape[3]
    # a strided view (n, c, kh, kw, oh, ow) of the padded image; the reshape is the one copy
    blocks = x.as_strided(
        (n, c, kh, kw, oh, ow), (c * hp * wp, hp * wp, dh * wp, dw, sh * wp, sw), x.storage_offset()
    )
    out = blocks.reshape(n, c * kh * kw, oh * ow)
    return out if input.dim() == 4 else out.squeeze(0)


_FOLD_INDEX = {}


def _fold_index(hp, wp, kh, kw, dh, dw, sh, sw, bh, bw, device):
    """Flat positions in the padded (hp, wp) image of every (kernel offset, block) pair, cached per shape."""
    key = (hp, wp, kh, kw, dh, dw, sh, sw, bh, bw, str(device))
    idx = _FOLD_INDEX.get(key)
    if idx is None:
        import numpy as np

        rows = (np.arange(kh) * dh)[:, None, None, None] + (np.arange(bh) * sh)[None, None, :, None]
        cols = (np.arange(kw) * dw)[None, :, None, None] + (np.arange(bw) * sw)[None, None, None, :]
        flat = (rows * wp + cols).reshape(-1).astype(np.int64)
        idx = _tensor(flat, device=device)
        if len(_FOLD_INDEX) > 64:
            _FOLD_INDEX.clear()
        _FOLD_INDEX[key] = idx
    return idx


def fold(input, output_size, kernel_size, dilation=1, padding=0, stride=1):
    """col2im, unfold's adjoint: sums the (N, C * kh * kw, L) blocks back into an (N, C, H, W) image
    (overlapping blocks add up)."""
    # PyTorch's F.fold is Python handing _pair()s of its arguments to the C++ col2im
    args = tuple(_ntuple(v, 2) for v in (output_size, kernel_size, dilation, padding, stride))
    _argcheck.check_call("col2im", [_COL2IM], (input,) + args, {})
    if len(args[0]) != 2:
        raise RuntimeError(f"It is expected output_size equals to 2, but got size {len(args[0])}")
    ho, wo = args[0]
    kh, kw, dh, dw, ph, pw, sh, sw = _block_args(*args[1:])
    if input.dim() not in (2, 3):
        raise RuntimeError(
            "Expected 2D or 3D (batch mode) tensor for input with possibly 0 batch size and non-zero "
            f"dimensions for input, but got: {list(input.shape)}"
        )
    x = input if input.dim() == 3 else input.unsqueeze(0)
    n, ck, nblocks = x.shape
    if ck % (kh * kw):
        raise RuntimeError(
            "Expected size of input's dimension 1 to be divisible by the product of kernel_size, but got "
            f"input.size(1)={ck} and kernel_size=({kh}, {kw})."
        )
    hp, wp = ho + 2 * ph, wo + 2 * pw
    bh = (hp - dh * (kh - 1) - 1) // sh + 1
    bw = (wp - dw * (kw - 1) - 1) // sw + 1
    if nblocks != bh * bw or bh < 1 or bw < 1:
        raise RuntimeError(
            f"Given output_size=({ho}, {wo}), kernel_size=({kh}, {kw}), dilation=({dh}, {dw}), "
            f"padding=({ph}, {pw}), stride=({sh}, {sw}), expected size of input's dimension 2 to match the "
            f"calculated number of sliding blocks {bh} * {bw} = {bh * bw}, but got input.size(2)={nblocks}."
        )
    _check_block_dtype(input, "col2im")
    c = ck // (kh * kw)
    idx = _fold_index(hp, wp, kh, kw, dh, dw, sh, sw, bh, bw, x.device)
    src = x.reshape(n, c, kh * kw * nblocks)
    out = _C.zeros((n, c, hp * wp), dtype=x.dtype, device=x.device)
    out = out.scatter_add(2, idx.expand(n, c, idx.shape[0]), src).reshape(n, c, hp, wp)
    if ph or pw:
        out = out[:, :, ph : ph + ho, pw : pw + wo]
    return out if input.dim() == 3 else out.squeeze(0)


# ---- pooling extras
def max_pool1d_with_indices(
    input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=True
):
    """max_pool1d returning (values, indices)."""
    _argcheck.check_call("max_pool1d_with_indices", [
        "Tensor input, int[1] kernel_size, int[1] stride=[], int[1] padding=0, int[1] dilation=1, bool ceil_mode=False"
    ], (input, kernel_size, [] if stride is None else stride, padding, dilation, ceil_mode), {}, True)  # fmt: skip
    return max_pool1d(input, kernel_size, stride, padding, dilation, ceil_mode, return_indices=True)


def max_pool2d_with_indices(
    input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=True
):
    """max_pool2d returning (values, indices)."""
    return max_pool2d(input, kernel_size, stride, padding, dilation, ceil_mode, return_indices=True)


@_argcheck.parses("Tensor input, int[1] output_size", name="adaptive_max_pool1d")
def _adaptive_max_pool1d(input, output_size):
    """torch.adaptive_max_pool1d: (values, indices), after PyTorch's parser (a one-element integer tensor
    stands for the size)"""
    if isinstance(output_size, _C.Tensor):
        output_size = int(output_size.reshape(-1)[0].item())
    return _nn.adaptive_max_pool1d(input, output_size)


def adaptive_max_pool1d_with_indices(input, output_size, return_indices=True):
    """adaptive_max_pool1d returning (values, indices)."""
    return _adaptive_max_pool1d(input, output_size)


def adaptive_max_pool1d(input, output_size, return_indices=False):
    """Max over L_in / output_size-wide adaptive windows of the last dim; indices too if return_indices."""
    out, idx = _adaptive_max_pool1d(input, output_size)
    return (out, idx) if return_indices else out  # the truth value of return_indices, as PyTorch's dispatch


def adaptive_max_pool2d_with_indices(input, output_size, return_indices=True):
    """adaptive_max_pool2d returning (values, indices)."""
    return adaptive_max_pool2d(input, output_size, return_indices=True)


def _ntuple(x, n):
    """PyTorch's _single/_pair/_triple: any iterable taken apart, a bare value repeated"""
    return tuple(x) if isinstance(x, collections.abc.Iterable) else (x,) * n


def _unpool_output_size(input, kernel_size, stride, padding, output_size):
    """PyTorch's F-level output size of a max unpool (Python there: its IndexError for an input with too few
    dims, its ValueErrors for a bad output_size)"""
    input_size = input.size()
    nd = len(kernel_size)
    default = [(input_size[-nd + d] - 1) * stride[d] + kernel_size[d] - 2 * padding[d] for d in range(nd)]
    if output_size is None:
        return default
    if len(output_size) == nd + 2:
        output_size = output_size[2:]
    if len(output_size) != nd:
        raise ValueError(
            f"output_size should be a sequence containing {nd} or {nd + 2} elements, but it has a length of "
            f"'{len(output_size)}'"
        )
    for d in range(nd):
        lo, hi = default[d] - stride[d], default[d] + stride[d]
        if not (lo < output_size[d] < hi):
            raise ValueError(f'invalid output_size "{output_size}" (dim {d} must be between {lo} and {hi})')
    return output_size


def _check_unpool_size(size):
    """PyTorch's torch._check_value on each output dim: a bool condition is required, a negative size refused"""
    for d, n in enumerate(size):
        ok = n >= 0
        if not isinstance(ok, bool):
            raise TypeError(
                f"cond must be a bool, but got {type(ok)}. For tensor conditions, use torch._check_tensor_all() to "
                "assert on all elements."
            )
        if not ok:
            raise ValueError(
                f"max_unpooling: output_size must contain non-negative spatial dimensions, but got output_size[{d}]={n}"
            )


def _unpool_checks(input, indices, out_size, nd):
    """ATen's max_unpooling2d/3d checks, in their order"""
    if indices.dtype != _C.int64:
        raise RuntimeError(f"elements in indices should be type int64 but got: {scalar_name(indices.dtype)}")
    if nd == 2 and len(out_size) != 2:
        raise RuntimeError(
            "There should be exactly two elements (height, width) in output_size, but got "
            f"{len(out_size)} elements."
        )
    if input.dim() not in (nd + 1, nd + 2):
        raise RuntimeError(
            f"Input to max_unpooling{nd}d should be a {nd + 1}d or {nd + 2}d Tensor, but got a tensor with "
            f"{input.dim()} dimensions."
        )
    if nd == 3 and len(out_size) != 3:
        raise RuntimeError(
            "There should be exactly three elements (depth, height, width) in output_size, but got "
            f"{len(out_size)} elements."
        )
    if tuple(input.shape) != tuple(indices.shape):
        raise RuntimeError(
            f"Expected shape of indices to be same as that of the input tensor ({list(input.shape)}) but got "
            f"indices tensor with shape: {list(indices.shape)}"
        )
    for i in range(1, input.dim()):
        if input.shape[i] == 0:
            raise RuntimeError(
                f"max_unpooling{nd}d_forward_out_cpu(): Expected input to have non-zero size for non-batch "
                f"dimensions, but input has sizes {list(input.shape)} with dimension {i} being empty"
            )


def _unpool(input, indices, out_size):
    """each value of input scattered to its flat index into the out_size planes (the rest zero)"""
    nd = len(out_size)
    if not input.is_floating_point():
        raise NotImplementedError(f"\"max_unpool{nd}d\" not implemented for '{scalar_name(input.dtype)}'")
    out_size = tuple(out_size)
    lead = tuple(input.shape[:-nd])
    total = 1
    for s in out_size:
        total *= s
    flat_idx = indices.reshape(lead + (-1,))
    if flat_idx.numel():
        lo_i, hi_i = int(flat_idx.min().item()), int(flat_idx.max().item())
        if lo_i < 0 or hi_i >= total:
            bad = hi_i if hi_i >= total else lo_i
            sizes = "x".join(str(s) for s in out_size)
            raise RuntimeError(f"Found an invalid max index: {bad} (output volumes are of size {sizes})")
    out = _C.zeros(lead + (total,), dtype=input.dtype, device=input.device)
    out = out.scatter(-1, flat_idx, input.reshape(lead + (-1,)))
    return out.reshape(lead + out_size)


_UNPOOL2D = ["Tensor input, Tensor indices, int[2] output_size"]
_UNPOOL3D = ["Tensor input, Tensor indices, int[3] output_size, int[3] stride, int[3] padding"]


def max_unpool1d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """max_pool1d's partial inverse: each value goes back to its argmax position, the rest are zero. PyTorch's
    F-level Python (its errors), then its 2-D op on the input with a trailing unit dim."""
    k = _ntuple(kernel_size, 1)
    s = _ntuple(stride, 1) if stride is not None else k
    size = _unpool_output_size(input, k, s, _ntuple(padding, 1), output_size)
    _check_unpool_size(size)
    size = list(size) + [1] if isinstance(size, list) else tuple(size) + (1,)
    x, i = input.unsqueeze(-1), indices.unsqueeze(-1)
    _argcheck.check_call("max_unpool2d", _UNPOOL2D, (x, i, size), {})
    _unpool_checks(x, i, size, 2)
    return _unpool(x, i, size).squeeze(-1)


def max_unpool2d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """max_pool2d's partial inverse: each value goes back to its argmax position, the rest are zero."""
    k = _ntuple(kernel_size, 2)
    s = _ntuple(stride, 2) if stride is not None else k
    size = _unpool_output_size(input, k, s, _ntuple(padding, 2), output_size)
    _check_unpool_size(size)
    _argcheck.check_call("max_unpool2d", _UNPOOL2D, (input, indices, size), {})
    _unpool_checks(input, indices, size, 2)
    return _unpool(input, indices, size)


def max_unpool3d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """max_pool3d's partial inverse: each value goes back to its argmax position in D*H*W, the rest are zero;
    PyTorch's 3-D checks and messages, in its order (output_size in Python first, then the kernel's)."""
    k = _ntuple(kernel_size, 3)
    s = _ntuple(stride, 3) if stride is not None else k
    p = _ntuple(padding, 3)
    size = _unpool_output_size(input, k, s, p, output_size)
    _check_unpool_size(size)
    _argcheck.check_call("max_unpool3d", _UNPOOL3D, (input, indices, size, s, p), {})
    _unpool_checks(input, indices, size, 3)
    if len(s) != 3 or len(p) != 3:
        raise RuntimeError(
            f"There should be exactly three elements (depth, height, width) in {'stride' if len(s) != 3 else 'padding'}"
            f", but got: {len(s) if len(s) != 3 else len(p)} elements."
        )
    if any(v <= 0 for v in s):
        raise RuntimeError(f"strides should be greater than zero, but got stride: {list(s)}")
    return _unpool(input, indices, size)


def _triple(x):
    return tuple(x) if isinstance(x, (tuple, list)) else (x, x, x)


def _lp_norm_type(norm_type):
    """PyTorch's lp pools: a zero norm refused, an infinite one a max pool (of |x|, or -max of -|x| for -inf)"""
    if isinstance(norm_type, (int, float)):
        if norm_type == 0:
            raise ValueError(f"norm_type must be a non-zero value, but got {norm_type}")
        if norm_type == float("inf"):
            return 1
        if norm_type == -float("inf"):
            return -1
    return 0


def lp_pool1d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    """(sum over each window of x^p)^(1/p): the power-average pool."""
    inf = _lp_norm_type(norm_type)
    if inf:
        return inf * max_pool1d(inf * input.abs(), kernel_size, stride, 0, 1, ceil_mode)
    out = avg_pool1d(
        input.pow(norm_type), kernel_size, stride if stride is not None else kernel_size, 0, ceil_mode
    )
    return (_C.sign(out) * _C.relu(out.abs())).mul(kernel_size).pow(1.0 / norm_type)


def lp_pool2d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    """(sum over each 2-D window of x^p)^(1/p): the power-average pool."""
    # PyTorch's unpacking: any iterable kernel_size is taken apart (a string, a tensor), a bare value doubled
    kh, kw = tuple(kernel_size) if isinstance(kernel_size, collections.abc.Iterable) else (kernel_size,) * 2
    inf = _lp_norm_type(norm_type)
    if inf:
        return inf * max_pool2d(inf * input.abs(), kernel_size, stride, 0, 1, ceil_mode)
    if stride is not None:
        out = avg_pool2d(input.pow(norm_type), kernel_size, stride, 0, ceil_mode)
    else:
        out = avg_pool2d(input.pow(norm_type), kernel_size, padding=0, ceil_mode=ceil_mode)
    return (_C.sign(out) * _C.relu(out.abs())).mul(kh * kw).pow(1.0 / norm_type)


# ---- channel shuffle
def channel_shuffle(input, groups):
    """Splits dim 1 into `groups` groups and interleaves them (ShuffleNet): (N, g * k, ...) -> channels
    ordered by (k, g)."""
    if input.dim() <= 2:
        raise RuntimeError(
            f"channel_shuffle expects input with > 2 dims, but got input with sizes {list(input.shape)}"
        )
    if groups <= 0:
        raise RuntimeError(
            f"Number of groups to divide channels in must be positive. Value of groups:{groups}"
        )
    c = input.shape[1]
    if c % groups:
        raise RuntimeError(
            f"Number of channels must be divisible by groups. Got {c} channels and {groups} groups."
        )
    n, rest = input.shape[0], tuple(input.shape[2:])
    x = input.reshape((n, groups, c // groups) + rest).transpose(1, 2)
    return x.reshape(input.shape)


native_channel_shuffle = channel_shuffle


# ---- embedding bags
def embedding_bag(
    input,
    weight,
    offsets=None,
    max_norm=None,
    norm_type=2,
    scale_grad_by_freq=False,
    mode="mean",
    sparse=False,
    per_sample_weights=None,
    include_last_offset=False,
    padding_idx=None,
):
    """Sums, averages or maxes bags of embedding rows: a 2-D input is one bag per row, a 1-D input is cut into
    bags at `offsets`. padding_idx entries are left out of every bag; an empty bag gives zeros."""
    import numpy as np

    if weight.dtype == _C.int64 and input.is_floating_point():
        warnings.warn(
            "Argument order of nn.functional.embedding_bag was changed. Usage `embedding_bag(weight, input, "
            "...)` is deprecated, and should now be `embedding_bag(input, weight, ...)`.",
            stacklevel=2,
        )
        weight, input = input, weight
    if per_sample_weights is not None and tuple(input.shape) != tuple(per_sample_weights.shape):
        raise ValueError(
            f"embedding_bag: If per_sample_weights ({tuple(per_sample_weights.shape)}) is not None, then it "
            f"must have the same shape as the input ({tuple(input.shape)})"
        )
    if weight.dim() != 2:
        raise ValueError(f"weight has to be a 2D Tensor, but got Tensor of dimension {weight.dim()}")
    if input.dim() == 2:
        if offsets is not None:
            raise ValueError(
                "if input is 2D, then offsets has to be None, as input is treated is a mini-batch of fixed "
                f"length sequences. However, found offsets of type {type(offsets)}"
            )
        nbags, width = input.shape
        starts = np.arange(nbags, dtype=np.int64) * width
        flat = input.reshape(-1)
        psw = per_sample_weights.reshape(-1) if per_sample_weights is not None else None
    elif input.dim() == 1:
        if offsets is None:
            raise ValueError("offsets has to be a 1D Tensor but got None")
        if offsets.dim() != 1:
            raise ValueError("offsets has to be a 1D Tensor")
        starts = offsets.cpu().numpy().astype(np.int64)
        if starts.size and starts[0] != 0:
            raise RuntimeError(
                "offsets[0] has to be 0, i.e., the first sequence in the mini-batch has to start from "
                f"position 0. However, got {starts[0]}"
            )
        if starts.size and starts[-1] > input.shape[0]:
            raise RuntimeError(
                f"offsets[-1] can not be greater than input's length {input.shape[0]} but got offsets[-1] of "
                f"{starts[-1]}"
            )
        if include_last_offset:
            starts = starts[:-1]
        flat, psw = input, per_sample_weights
    else:
        raise ValueError(f"input has to be 1D or 2D Tensor, but got Tensor of dimension {input.dim()}")
    if mode not in ("sum", "mean", "max"):
        raise ValueError("mode has to be one of sum, mean or max")
    if per_sample_weights is not None and mode != "sum":
        raise NotImplementedError(
            "embedding_bag: per_sample_weights was not None. per_sample_weights is only supported for "
            f"mode='sum' (got mode='{mode}'). Please open a feature request on GitHub."
        )
    if max_norm is not None:
        from minitorch.autograd.grad_mode import no_grad

        with no_grad():
            _nn.embedding_renorm_(weight, flat.contiguous(), max_norm, norm_type)
    padding_idx = _embedding_padding_idx(padding_idx, weight.shape[0])
    total = flat.shape[0]
    nbags = len(starts)
    if include_last_offset and input.dim() == 1:
        ends = offsets.cpu().numpy().astype(np.int64)[1:]
    else:
        ends = np.append(starts[1:], total) if nbags else starts
    lengths = ends - starts
    width = int(lengths.max()) if nbags else 0
    # each bag as a row of `width` positions into the looked-up rows; the slots past a bag's end (and
    # padding_idx entries) point at one extra row that is neutral for the reduction
    pos = starts[:, None] + np.arange(width)[None, :]
    valid = np.arange(width)[None, :] < lengths[:, None]
    if padding_idx is not None and total:
        ids = flat.cpu().numpy()
        valid &= ids[np.minimum(pos, total - 1)] != padding_idx
    dim = weight.shape[1]
    if width == 0:
        return _C.zeros((nbags, dim), dtype=weight.dtype, device=weight.device)
    # index_select is the cheaper lookup; the native embedding only for its scale_grad_by_freq backward
    if scale_grad_by_freq:
        rows = embedding(flat, weight, scale_grad_by_freq=True)
    else:
        rows = weight.index_select(0, flat.reshape(-1))
    if psw is not None:
        rows = rows * psw.unsqueeze(-1)
    if valid.all() and nbags * width == total:
        # equal, back-to-back bags (every 2-D input): the looked-up rows already are the dense layout
        dense = rows.reshape(nbags, width, dim)
    else:
        gather = _tensor(np.where(valid, pos, total).reshape(-1).astype(np.int64), device=weight.device)
        fill = float("-inf") if mode == "max" else 0.0
        extra = _C.full((1, dim), fill, dtype=rows.dtype, device=rows.device)
        dense = _C.cat([rows, extra], 0).index_select(0, gather).reshape(nbags, width, dim)
    if mode == "max":
        out = dense.amax(1)
        nonempty = _tensor(valid.any(1), device=weight.device).unsqueeze(-1)
        return _C._where(nonempty, out, 0.0)
    out = dense.sum(1)
    if mode == "mean":
        counts = _tensor(np.maximum(valid.sum(1), 1).astype(np.float64), device=weight.device)
        out = out / counts.to(out.dtype).unsqueeze(-1)
    return out


# PyTorch's TypeError for an argument of the wrong kind, decided on the error path only (minitorch/_argcheck.py).
# Only where PyTorch raises it: most of PyTorch's nn.functional is Python that fails on a bad argument as ours
# does (an AttributeError on `target.size()`, "Boolean value of Tensor" on `p < 0`). These names are C++ ops
# in PyTorch (its parser checks every kind)...
_argcheck.translate_module(
    globals(),
    ["bilinear", "celu_", "channel_shuffle", "cosine_similarity", "elu_", "hardshrink", "hardtanh_",
     "leaky_relu_", "logsigmoid", "native_channel_shuffle", "one_hot", "pairwise_distance", "pdist",
     "pixel_shuffle", "pixel_unshuffle", "prelu", "rrelu_", "selu_", "softplus", "softshrink", "threshold_"],
)  # fmt: skip
# ...these are Python that hands the tensors and numbers straight to a C++ op (a bool is only a truth value)...
_argcheck.translate_module(globals(), ["rrelu"], checks="numbers")
# ...and these have PyTorch's signatures checked as its parser does (F.rms_norm is Python in PyTorch, handing
# its arguments to torch.rms_norm by position)
rms_norm = _argcheck.parsing(
    rms_norm, ["Tensor input, int[] normalized_shape, Tensor? weight=None, float? eps=None"], positional=True
)
# ...and these hand their tensors to a C++ op but test their numbers in Python first.
_argcheck.translate_module(
    globals(), ["multi_margin_loss", "multilabel_margin_loss", "selu", "celu"], checks="tensors"
)

# ---- 3-D convolution and pooling: composed from the 2-D ops, in their own module (nn/_conv3d.py), which does not
# import this one (no import circle)
from minitorch.nn._conv3d import (
    adaptive_avg_pool3d,
    adaptive_max_pool3d,
    adaptive_max_pool3d_with_indices,
    avg_pool3d,
    conv3d,
    conv_transpose3d,
    lp_pool3d,
    max_pool3d,
)

# a plain value where a tensor belongs: PyTorch's TypeError, not the AttributeError the composition meets (the
# adaptive pools and lp_pool3d are Python in PyTorch, whose AttributeError they keep)
# the 3-D pools are C++ ops in PyTorch (max_pool3d behind a few lines of Python that pass stride=[] for None):
# its parser decides every argument's kind first
_MAX_POOL3D = [
    "Tensor input, int[3] kernel_size, int[3] stride=[], int[3] padding=0, int[3] dilation=1, bool ceil_mode=False"
]
_max_pool3d = max_pool3d


def max_pool3d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    _argcheck.check_call("max_pool3d_with_indices" if return_indices else "max_pool3d", _MAX_POOL3D,
                         (input, kernel_size, [] if stride is None else stride, padding, dilation, ceil_mode), {},
                         True)  # fmt: skip
    return _max_pool3d(input, kernel_size, stride, padding, dilation, ceil_mode, return_indices)


max_pool3d.__doc__ = _max_pool3d.__doc__


def max_pool3d_with_indices(
    input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=True
):
    """max_pool3d returning (values, indices)."""
    return max_pool3d(input, kernel_size, stride, padding, dilation, ceil_mode, return_indices=True)


avg_pool3d = _argcheck.parsing(
    avg_pool3d,
    [("Tensor input, int[3] kernel_size, int[3] stride=[], int[3] padding=0, bool ceil_mode=False, "
      "bool count_include_pad=True, int? divisor_override=None")],
)  # fmt: skip
# the convolutions are C++ ops in PyTorch: its parser decides every argument's kind first
_CONV3D = "Tensor input, Tensor weight, Tensor? bias=None, int[3] stride=1, {} padding={}, int[3] dilation=1, int groups=1"
conv3d = _argcheck.parsing(conv3d, [_CONV3D.format("int[3]", "0"), _CONV3D.format("str", '"valid"')])
conv_transpose3d = _argcheck.parsing(
    conv_transpose3d,
    [("Tensor input, Tensor weight, Tensor? bias=None, int[3] stride=1, int[3] padding=0, int[3] output_padding=0, "
      "int groups=1, int[3] dilation=1")],
)  # fmt: skip

__all__ += [
    "adaptive_avg_pool3d",
    "adaptive_max_pool3d",
    "adaptive_max_pool3d_with_indices",
    "avg_pool3d",
    "conv3d",
    "conv_transpose3d",
    "lp_pool3d",
    "max_pool3d",
    "max_pool3d_with_indices",
    "max_unpool3d",
]
