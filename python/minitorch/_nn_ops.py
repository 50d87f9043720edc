"""The torch-level spellings of nn.functional ops (torch.conv2d, torch.dropout, torch.layer_norm, torch.embedding,
torch.kl_div, ...), with ATen's signatures: argument order, int reductions, train flags."""

import builtins
import warnings

import numpy as np

from minitorch import _C, _argcheck
from minitorch._composite_shape import _broadcast_sizes
from minitorch._creation import tensor as _tensor
from minitorch._dtype_names import scalar_name
from minitorch.autograd.function import Function as _Function
from minitorch.autograd.grad_mode import no_grad as _no_grad
from minitorch.nn import functional as _F
from minitorch.nn.functional import _activation as _F_activation
from minitorch.nn.functional import _ctc as _F_ctc
from minitorch.nn.functional import _loss as _F_loss
from minitorch.nn.functional import _pooling as _F_pooling
from minitorch.nn.functional._sampling import _check as _sampling_check
from minitorch.nn.functional._sampling import affine_grid_generator as _affine_grid_generator
from minitorch.nn.functional._sampling import grid_sampler
from minitorch.nn.functional._utils import _floating
from minitorch.nn.modules.rnn import _functional as _rnn_functional
from minitorch.nn.modules.rnn import _gru_cell, _lstm_cell, _rnn_cell

# the functions defined below; _reuse and _reuse_dropout add the ones they make
__all__ = [
    "adaptive_max_pool1d",
    "affine_grid_generator",
    "batch_norm",
    "binary_cross_entropy_with_logits",
    "celu",
    "celu_",
    "constant_pad_nd",
    "convolution",
    "cosine_embedding_loss",
    "ctc_loss",
    "embedding",
    "embedding_renorm_",
    "feature_dropout",
    "feature_dropout_",
    "grid_sampler",
    "grid_sampler_2d",
    "grid_sampler_3d",
    "group_norm",
    "gru",
    "gru_cell",
    "hinge_embedding_loss",
    "instance_norm",
    "kl_div",
    "layer_norm",
    "lstm",
    "lstm_cell",
    "margin_ranking_loss",
    "max_pool1d",
    "max_pool1d_with_indices",
    "max_pool2d",
    "max_pool3d",
    "native_batch_norm",
    "native_dropout",
    "native_group_norm",
    "native_layer_norm",
    "poisson_nll_loss",
    "rnn_relu",
    "rnn_relu_cell",
    "rnn_tanh",
    "rnn_tanh_cell",
    "rrelu",
    "rrelu_",
    "selu",
    "selu_",
    "threshold",
    "threshold_",
    "triplet_margin_loss",
]


_REDUCTIONS = ("none", "mean", "sum")


def _reduction(fname, pos, reduction):
    # the torch-level losses take ATen's reduction enum (0 none, 1 mean, 2 sum), not F's strings
    if not isinstance(reduction, builtins.int) or isinstance(reduction, builtins.bool):
        raise TypeError(
            f"{fname}(): argument 'reduction' (position {pos}) must be int, not {type(reduction).__name__}"
        )
    # ATen's apply_loss_reduction reduces for Mean (1) and Sum (2) and leaves any other value unreduced
    return _REDUCTIONS[reduction] if reduction in (1, 2) else "none"


_RRELU = "Tensor self, Scalar lower=0.125, Scalar upper=0.3333333333333333, bool training=False, Generator? generator=None"


@_argcheck.parses(_RRELU, name="rrelu")
def rrelu(input, lower=1.0 / 8, upper=1.0 / 3, training=False, generator=None):
    """torch.rrelu: F.rrelu's arguments with ATen's generator in place of inplace."""
    return _F_activation.rrelu_with_generator(input, lower, upper, training, False, generator)


@_argcheck.parses(_RRELU, name="rrelu_")
def rrelu_(input, lower=1.0 / 8, upper=1.0 / 3, training=False, generator=None):
    """torch.rrelu_: in-place torch.rrelu."""
    return _F_activation.rrelu_with_generator(input, lower, upper, training, True, generator)


def _reuse(name, fname=None):
    def fn(*args, **kwargs):
        return getattr(_F, fname or name)(*args, **kwargs)

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"torch.{name}: the same arguments and result as torch.nn.functional.{fname or name}."
    globals()[name] = fn
    __all__.append(name)


for _name in (
    "conv1d",
    "conv2d",
    "conv3d",
    "conv_transpose1d",
    "conv_transpose2d",
    "conv_transpose3d",
    "avg_pool1d",
    "adaptive_avg_pool1d",
    "pixel_shuffle",
    "pixel_unshuffle",
    "bilinear",
):
    _reuse(_name)
del _name


def _feature_mask(input, p):
    shape = tuple(input.shape[:2]) + (1,) * (input.dim() - 2)
    keep = _C.empty(shape, dtype=input.dtype, device=input.device).bernoulli_(1 - p)
    return keep.div_(1 - p) if p < 1 else keep


def _check_p(p):
    # the torch.* spellings are ATen's: RuntimeError, the number as C++ prints it (F.* raise ValueError)
    if not 0 <= p <= 1:
        raise RuntimeError(f"dropout probability has to be between 0 and 1, but got {p:g}")


def _check_train(name, train):
    _argcheck.check_bool(name, "train", 3, train)  # ATen's signature takes a bool, not an int or a tensor


def _reuse_dropout(name, fname, inplace):
    """torch.<name>(input, p, train): F.<fname> after ATen's check of p, in place when the name ends in _."""
    extra = {"inplace": True} if inplace else {}

    def fn(input, p, train):
        _argcheck.check_tensor(name, "input", 1, input)  # ATen's parser reads the tensor first
        _check_train(name, train)
        _check_p(p)
        return getattr(_F, fname)(input, p, train, **extra)

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = (
        f"torch.{name}(input, p, train): torch.nn.functional.{fname}{' in place' if inplace else ''}."
    )
    globals()[name] = fn
    __all__.append(name)


for _fname in ("dropout", "alpha_dropout", "feature_alpha_dropout"):
    _reuse_dropout(_fname, _fname, False)
    _reuse_dropout(_fname + "_", _fname, True)
del _fname


def feature_dropout(input, p, train):
    """Dropout of whole channels (dims 2 and on of an (N, C, ...) input), scaled by 1 / (1 - p), when train."""
    _check_train("feature_dropout", train)
    _check_p(p)
    if not train or p == 0:
        return input
    return input * _feature_mask(input, p)


def feature_dropout_(input, p, train):
    """In-place feature_dropout."""
    _check_train("feature_dropout_", train)
    _check_p(p)
    if not train or p == 0:
        return input
    return input.mul_(_feature_mask(input, p))


@_argcheck.parses(
    "Tensor input, int[] normalized_shape, Tensor? weight=None, Tensor? bias=None, float eps=1e-05, "
    "bool cudnn_enable=True"
)
def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-05, cudnn_enable=True):
    """Layer normalization with torch's signature; cudnn_enable is accepted and ignored."""
    return _C._nn.layer_norm(input, normalized_shape, weight, bias, eps)


@_argcheck.parses(
    "Tensor input, int num_groups, Tensor? weight=None, Tensor? bias=None, float eps=1e-05, "
    "bool cudnn_enabled=True"
)
def group_norm(input, num_groups, weight=None, bias=None, eps=1e-05, cudnn_enabled=True):
    """Group normalization with torch's signature; cudnn_enabled is accepted and ignored. Without F's Python
    checks: ATen reads the batch and channel sizes first (an IndexError for fewer than 2 dims)."""
    input.size(0), input.size(1)
    return _F._group_norm_op(input, num_groups, weight, bias, eps)


def batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps, cudnn_enabled):
    """Batch normalization with torch's argument order (weight and bias before the running statistics)."""
    return _F.batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps)


def instance_norm(
    input, weight, bias, running_mean, running_var, use_input_stats, momentum, eps, cudnn_enabled
):
    """Instance normalization with torch's argument order (weight and bias before the running statistics)."""
    return _F.instance_norm(input, running_mean, running_var, weight, bias, use_input_stats, momentum, eps)


@_argcheck.parses(
    "Tensor weight, Tensor indices, SymInt padding_idx=-1, bool scale_grad_by_freq=False, bool sparse=False"
)
def embedding(weight, indices, padding_idx=-1, scale_grad_by_freq=False, sparse=False):
    """Embedding lookup with torch's argument order (weight first). ATen's padding_idx is not range-checked (F's
    Python asserts): a negative one, or one past the rows, pads no row."""
    rows = weight.shape[0] if weight.dim() else 0
    pidx = padding_idx if 0 <= padding_idx < rows else None
    return _F.embedding(indices, weight, pidx, scale_grad_by_freq=scale_grad_by_freq, sparse=sparse)


# renormalizes, in place, the rows of a table that the indices pick whose norm exceeds max_norm (a C++ op)
embedding_renorm_ = _C._nn.embedding_renorm_


def max_pool1d(input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    """1-D max pooling with torch's signature (an empty stride means the kernel size)."""
    return _F.max_pool1d(
        input, kernel_size, stride if stride not in ((), []) else None, padding, dilation, ceil_mode
    )


def max_pool2d(input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    """2-D max pooling with torch's signature (an empty stride means the kernel size)."""
    return _F.max_pool2d(
        input, kernel_size, stride if stride not in ((), []) else None, padding, dilation, ceil_mode
    )


def max_pool3d(input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    """3-D max pooling with torch's signature (an empty stride means the kernel size)."""
    return _F.max_pool3d(
        input, kernel_size, stride if stride not in ((), []) else None, padding, dilation, ceil_mode
    )


def max_pool1d_with_indices(input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    """1-D max pooling with torch's signature returning (values, indices)."""
    return tuple(
        _F.max_pool1d_with_indices(
            input, kernel_size, stride if stride not in ((), []) else None, padding, dilation, ceil_mode
        )
    )


def adaptive_max_pool1d(input, output_size):
    """1-D adaptive max pooling: torch's spelling returns (values, indices)."""
    return tuple(_F_pooling._adaptive_max_pool1d_op(input, output_size))


@_argcheck.parses("Tensor input, SymInt[] pad, Scalar value=0", name="constant_pad_nd")
def constant_pad_nd(input, pad, value=0):
    """Pads with a constant: F.pad(input, pad, 'constant', value), after ATen's own checks of pad's length."""
    pad = _C._int_list_value(pad, "constant_pad_nd", "pad", 2)
    if len(pad) % 2:
        raise RuntimeError(f"Length of pad must be even but instead it equals {len(pad)}")
    if len(pad) > 2 * input.dim():
        raise RuntimeError(
            "Length of pad should be no more than twice the number of dimensions of the input. Pad length is "
            f"{len(pad)}while the input has {input.dim()}dimensions."
        )
    return _F.pad(input, tuple(pad), "constant", value)


# The torch.* spellings of these losses leave the loss unreduced when `reduction` is omitted (PyTorch 2.15's
# binding reads the schema's `reduction=Mean` default as 0; measured, the differential fuzzer found it), while
# the F.* spellings default to "mean". Ours follow both.


def binary_cross_entropy_with_logits(input, target, weight=None, pos_weight=None, reduction=0):
    """F.binary_cross_entropy_with_logits with torch's signature (pos_weight fourth, reduction an int:
    0 none, 1 mean, 2 sum)."""
    red = _reduction("binary_cross_entropy_with_logits", 5, reduction)
    if tuple(input.shape) != tuple(target.shape):
        # ATen's kernel has no shape check of F's: log_sigmoid(input) runs first, then the loss is written into
        # a tensor of target's shape, so input may broadcast to it and nothing else
        _floating(input, "log_sigmoid")
        if target.dtype == _C.bool:  # then PyTorch's 1 - target, the 1 a bool tensor: sub refuses two bools
            _C.ones((), dtype=_C.bool) - target
        shape = _broadcast_sizes(target.shape, input.shape)
        if shape != list(target.shape):
            raise RuntimeError(
                f"output with shape {list(target.shape)} doesn't match the broadcast shape {shape}"
            )
        if _C.is_grad_enabled() and (input.requires_grad or target.requires_grad):
            small = list(input.shape)
            input = _ExpandedLogits.apply(input, shape, pos_weight is not None)
            if target.requires_grad and red != "none":
                target = _ReducedTarget.apply(target, small, weight)
        else:
            input = input.expand(shape)
    return _F.binary_cross_entropy_with_logits(input, target, weight, reduction=red, pos_weight=pos_weight)


class _ExpandedLogits(_Function):
    """input expanded to target's shape, with PyTorch's backward for it: its kernel's gradient of input is
    built in place in a tensor of input's shape, which refuses to grow to target's (seed 4474); only under
    create_graph without pos_weight does it take the out-of-place path, whose gradient autograd sums back."""

    @staticmethod
    def forward(ctx, x, shape, pos_weight):
        ctx.shapes = (list(x.shape), list(shape), pos_weight)
        return x.expand(shape)

    @staticmethod
    def backward(ctx, grad):
        small, shape, pos_weight = ctx.shapes
        if pos_weight or not _C.is_grad_enabled():
            raise RuntimeError(f"output with shape {small} doesn't match the broadcast shape {shape}")
        return grad.sum_to_size(small), None, None


class _ReducedTarget(_Function):
    """target as it is, with PyTorch's backward for a reduced loss of a broadcast input: the kernel's gradient
    of target has input's shape (a weight multiplied into it in place), which autograd refuses for target's."""

    @staticmethod
    def forward(ctx, t, small, weight):
        ctx.shapes = (small, list(t.shape), None if weight is None else _broadcast_sizes(small, weight.shape))
        return t.view_as(t)

    @staticmethod
    def backward(ctx, grad):
        small, shape, weighted = ctx.shapes
        if weighted is not None and weighted != small:  # the weight multiplied into it in place
            raise RuntimeError(f"output with shape {small} doesn't match the broadcast shape {weighted}")
        raise RuntimeError(
            "Function BinaryCrossEntropyWithLogitsBackward0 returned an invalid gradient at index 1 - got "
            f"{small} but expected shape compatible with {shape}"
        )


def kl_div(input, target, reduction=0, *, log_target=False):
    """F.kl_div with torch's signature (reduction an int: 0 none, 1 mean, 2 sum)."""
    red = _reduction("kl_div", 3, reduction)
    if red != "mean":
        return _F.kl_div(input, target, reduction=red, log_target=log_target)
    with warnings.catch_warnings():  # the C++ op has none of F.kl_div's warning about 'mean'
        warnings.filterwarnings("ignore", "reduction: 'mean' divides", UserWarning)
        return _F.kl_div(input, target, reduction=red, log_target=log_target)


# torch.ctc_loss's two signatures (lengths as int lists or tensors), checked before F.ctc_loss's body
_CTC_SIGNATURES = _F_ctc.CTC_SIGNATURES


def ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, reduction=0, zero_infinity=False):
    """F.ctc_loss with torch's signature (reduction an int: 0 none, 1 mean, 2 sum; unreduced when omitted:
    PyTorch 2.15's binding reads the schema's Mean default as 0, as for the losses above)."""
    args = [log_probs, targets, input_lengths, target_lengths, blank, reduction, zero_infinity]
    while len(args) > 4 and args[-1] is (0, 0, False)[len(args) - 5]:  # the defaults as not given
        args.pop()
    _argcheck.check_call("ctc_loss", _CTC_SIGNATURES, tuple(args), {})
    red = _reduction("ctc_loss", 6, reduction)
    return _F.ctc_loss(log_probs, targets, input_lengths, target_lengths, blank, red, zero_infinity)


def _tensors(fname, **named):
    """ATen's parser: the tensor arguments (in order, positions from 1) are tensors before anything else"""
    for pos, (what, t) in enumerate(named.items()):
        _argcheck.check_tensor(fname, what, pos + 1, t)


def cosine_embedding_loss(input1, input2, target, margin=0.0, reduction=0):
    """F.cosine_embedding_loss with torch's signature (reduction an int: 0 none, 1 mean, 2 sum)."""
    _tensors("cosine_embedding_loss", input1=input1, input2=input2, target=target)
    red = _reduction("cosine_embedding_loss", 5, reduction)
    return _F.cosine_embedding_loss(input1, input2, target, margin, reduction=red)


def hinge_embedding_loss(input, target, margin=1.0, reduction=0):
    """F.hinge_embedding_loss with torch's signature (reduction an int: 0 none, 1 mean, 2 sum)."""
    _tensors("hinge_embedding_loss", input=input, target=target)
    red = _reduction("hinge_embedding_loss", 4, reduction)
    return _F.hinge_embedding_loss(input, target, margin, reduction=red)


def margin_ranking_loss(input1, input2, target, margin=0.0, reduction=0):
    """F.margin_ranking_loss with torch's signature (reduction an int: 0 none, 1 mean, 2 sum)."""
    red = _reduction("margin_ranking_loss", 5, reduction)
    _tensors("margin_ranking_loss", input1=input1, input2=input2, target=target)
    # ATen's op broadcasts its operands; the same-dims check is nn.functional's own
    return _F_loss._margin_ranking(input1, input2, target, margin, red)


def poisson_nll_loss(input, target, log_input, full, eps, reduction):
    """F.poisson_nll_loss with torch's signature (every argument positional, reduction an int)."""
    red = _reduction("poisson_nll_loss", 6, reduction)
    return _F.poisson_nll_loss(input, target, log_input, full, eps=eps, reduction=red)


def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2, eps=1e-06, swap=False, reduction=0):
    """F.triplet_margin_loss with torch's signature (reduction an int: 0 none, 1 mean, 2 sum)."""
    _tensors("triplet_margin_loss", anchor=anchor, positive=positive, negative=negative)
    red = _reduction("triplet_margin_loss", 8, reduction)
    return _F.triplet_margin_loss(anchor, positive, negative, margin, p, eps, swap, reduction=red)


# Tensor.hardshrink and Tensor.prelu (methods in PyTorch; the root installs them on Tensor)
TENSOR_METHODS = {
    "hardshrink": lambda self, lambd=0.5: _F.hardshrink(self, lambd),
    "prelu": lambda self, weight: _F.prelu(self, weight),
}


# ---- ATen's native_* forms: the result with the statistics a backward would save


@_argcheck.parses(
    "Tensor input, SymInt[] normalized_shape, Tensor? weight, Tensor? bias, float eps",
    name="native_layer_norm",
)
def native_layer_norm(input, normalized_shape, weight, bias, eps):
    """(layer_norm(input), mean, rstd), the statistics over the normalized dims kept as size-1 dims."""
    out = _F.layer_norm(input, normalized_shape, weight, bias, eps)
    dims = tuple(range(input.dim() - len(normalized_shape), input.dim()))
    x = input.detach()
    mean = x.mean(dims, keepdim=True)
    rstd = _C.rsqrt(_C.add(x.var(dims, correction=0, keepdim=True), eps))
    return out, mean, rstd


def native_batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps):
    """(batch_norm(input), save_mean, save_invstd): the batch's statistics per channel when training, empty
    tensors otherwise; running_mean/running_var are updated in place as batch_norm does."""
    if training:
        dims = (0,) + tuple(range(2, input.dim()))
        x = input.detach()
        mean = x.mean(dims)
        invstd = _C.rsqrt(_C.add(x.var(dims, correction=0), eps))
    else:
        mean = input.new_empty((0,))
        invstd = input.new_empty((0,))
    out = _F.batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps)
    return out, mean, invstd


def native_group_norm(input, weight, bias, N, C, HxW, group, eps):
    """(group_norm(input), mean, rstd) with the statistics shaped (N, group)."""
    out = _F.group_norm(input, group, weight, bias, eps)
    x = input.detach().reshape(N, group, -1)
    mean = x.mean(2)
    rstd = _C.rsqrt(_C.add(x.var(2, correction=0), eps))
    return out, mean, rstd


def native_dropout(input, p, train):
    """(output, mask): in training each element kept with probability 1 - p and scaled by 1 / (1 - p), the
    boolean mask of the kept ones; otherwise the input and an all-True mask."""
    if train is not None:
        _argcheck.check_bool("native_dropout", "train", 3, train)
    if input.numel() == 0:  # PyTorch's early return: the mask in the input's dtype
        return input.clone(), _C.empty_like(input)
    if train is None or train:
        _check_p(p)
        if not input.is_floating_point():  # the kept values are scaled in float, then written back
            raise RuntimeError(
                f"result type Float can't be cast to the desired output type {scalar_name(input.dtype)}"
            )
        if p == 1:
            return input * 0, _C.zeros(input.shape, dtype=_C.bool, device=input.device)
        mask = _C.empty(input.shape, dtype=_C.bool, device=input.device).bernoulli_(1 - p)
        return input * mask * (1.0 / (1 - p)), mask
    return input.clone(), _C.ones(input.shape, dtype=_C.bool, device=input.device)


def convolution(input, weight, bias, stride, padding, dilation, transposed, output_padding, groups):
    """ATen's convolution: conv1d/2d/3d or their transposes, picked by the weight's rank and `transposed`."""
    n = weight.dim() - 2
    if n not in (1, 2, 3):
        raise RuntimeError(
            f"Expected 3D, 4D or 5D weight for convolution, but got weight of size {list(weight.shape)}"
        )
    if transposed:
        conv = (_F.conv_transpose1d, _F.conv_transpose2d, _F.conv_transpose3d)[n - 1]
        return conv(input, weight, bias, stride, padding, output_padding, groups, dilation)
    conv = (_F.conv1d, _F.conv2d, _F.conv3d)[n - 1]
    return conv(input, weight, bias, stride, padding, dilation, groups)


# ---- activations whose torch-level spelling has no inplace flag (F's has)


@_argcheck.parses("Tensor input", name="selu")
def selu(input):
    """torch.selu: F.selu without inplace."""
    return _F.selu(input)


@_argcheck.parses("Tensor input", name="selu_")
def selu_(input):
    """torch.selu_: F.selu in place."""
    return _F.selu(input, inplace=True)


@_argcheck.parses("Tensor input, Scalar alpha=1.0", name="celu")
def celu(input, alpha=1.0):
    """torch.celu: F.celu without inplace."""
    return _F.celu(input, alpha)


@_argcheck.parses("Tensor input, Scalar alpha=1.0", name="celu_")
def celu_(input, alpha=1.0):
    """torch.celu_: F.celu in place."""
    return _F.celu(input, alpha, inplace=True)


@_argcheck.parses("Tensor input, Scalar threshold, Scalar value", name="threshold")
def threshold(input, threshold, value):
    """torch.threshold: F.threshold without inplace."""
    if _F_activation._fits_kernel(input, threshold, value):  # F.threshold's kernel, without its layers
        return _C._threshold(input, float(threshold), float(value))
    return _F.threshold(input, threshold, value)


@_argcheck.parses("Tensor input, Scalar threshold, Scalar value", name="threshold_")
def threshold_(input, threshold, value):
    """torch.threshold_: F.threshold in place."""
    return _F.threshold(input, threshold, value, inplace=True)


@_argcheck.parses("Tensor theta, int[] size, bool align_corners", name="affine_grid_generator")
def affine_grid_generator(theta, size, align_corners):
    """torch.affine_grid_generator after PyTorch's parser (size a sequence of ints)."""
    return _affine_grid_generator(theta, size, align_corners)


# ---- one step of the recurrent cells (torch.lstm_cell & co.: the weights as arguments)


_CELL = "Tensor input, {} hx, Tensor w_ih, Tensor w_hh, Tensor? b_ih=None, Tensor? b_hh=None"


@_argcheck.parses(_CELL.format("Tensor[]"), name="lstm_cell")
def lstm_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    """(h', c') of one LSTM step from hx = (h, c); gates i, f, g, o as nn.LSTMCell."""
    h, c = hx
    return _lstm_cell(_F.linear(input, w_ih, b_ih), h, c, w_hh, b_hh)


@_argcheck.parses(_CELL.format("Tensor"), name="gru_cell")
def gru_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    """h' of one GRU step; gates r, z, n as nn.GRUCell."""
    return _gru_cell(_F.linear(input, w_ih, b_ih), hx, w_hh, b_hh)


@_argcheck.parses(_CELL.format("Tensor"), name="rnn_tanh_cell")
def rnn_tanh_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    """tanh(input w_ih^T + b_ih + hx w_hh^T + b_hh)."""
    return _rnn_cell(_F.linear(input, w_ih, b_ih), hx, w_hh, b_hh, False)


@_argcheck.parses(_CELL.format("Tensor"), name="rnn_relu_cell")
def rnn_relu_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    """relu(input w_ih^T + b_ih + hx w_hh^T + b_hh)."""
    return _rnn_cell(_F.linear(input, w_ih, b_ih), hx, w_hh, b_hh, True)


# ---- whole recurrent layers (torch.lstm & co.: what nn.LSTM & co. call in PyTorch), padded or packed
_LAYERS = "Tensor[] params, bool has_biases, int num_layers, float dropout, bool train, bool bidirectional"
_PACKED = "Tensor data, Tensor batch_sizes, {} hx, " + _LAYERS
_PADDED = "Tensor input, {} hx, " + _LAYERS + ", bool batch_first"
_PACKED_NAMES = (
    "data",
    "batch_sizes",
    "hx",
    "params",
    "has_biases",
    "num_layers",
    "dropout",
    "train",
    "bidirectional",
)
_PADDED_NAMES = (
    "input",
    "hx",
    "params",
    "has_biases",
    "num_layers",
    "dropout",
    "train",
    "bidirectional",
    "batch_first",
)


def _rnn_layers(mode, args, kwargs):
    """the parsed call of either overload (the parser has taken it): packed where the batch sizes are given,
    which the tensor after the input is for lstm (a padded call's hx is a tuple) and the third argument for
    the others (a padded call's params)"""
    at = 1 if mode == "LSTM" else 2
    packed = (
        "batch_sizes" in kwargs or "data" in kwargs or (len(args) > at and isinstance(args[at], _C.Tensor))
    )
    v = dict(zip(_PACKED_NAMES if packed else _PADDED_NAMES, args), **kwargs)
    return _rnn_functional(
        mode,
        v["data" if packed else "input"],
        v.get("batch_sizes"),
        v["hx"],
        v["params"],
        v["has_biases"],
        v["num_layers"],
        v["dropout"],
        v["train"],
        v["bidirectional"],
        v.get("batch_first", False),
    )


@_argcheck.parses(_PACKED.format("Tensor[]"), _PADDED.format("Tensor[]"), name="lstm")
def lstm(*args, **kwargs):
    """(output, h_n, c_n) of a multi-layer LSTM; gates i, f, g, o as nn.LSTM."""
    return _rnn_layers("LSTM", args, kwargs)


@_argcheck.parses(_PACKED.format("Tensor"), _PADDED.format("Tensor"), name="gru")
def gru(*args, **kwargs):
    """(output, h_n) of a multi-layer GRU; gates r, z, n as nn.GRU."""
    return _rnn_layers("GRU", args, kwargs)


@_argcheck.parses(_PACKED.format("Tensor"), _PADDED.format("Tensor"), name="rnn_tanh")
def rnn_tanh(*args, **kwargs):
    """(output, h_n) of a multi-layer Elman RNN with tanh."""
    return _rnn_layers("RNN_TANH", args, kwargs)


@_argcheck.parses(_PACKED.format("Tensor"), _PADDED.format("Tensor"), name="rnn_relu")
def rnn_relu(*args, **kwargs):
    """(output, h_n) of a multi-layer Elman RNN with relu."""
    return _rnn_layers("RNN_RELU", args, kwargs)


_GRID_SAMPLER = "Tensor input, Tensor grid, int interpolation_mode, int padding_mode, bool align_corners"


@_argcheck.parses(_GRID_SAMPLER, name="grid_sampler_2d")  # the parser first (a number grid)
def grid_sampler_2d(input, grid, interpolation_mode, padding_mode, align_corners):
    """grid_sampler on a 4-D input (ATen's per-rank spelling)."""
    _sampling_check(input, grid, interpolation_mode, 4)
    return grid_sampler(input, grid, interpolation_mode, padding_mode, align_corners)


@_argcheck.parses(_GRID_SAMPLER, name="grid_sampler_3d")  # the parser first (a number grid)
def grid_sampler_3d(input, grid, interpolation_mode, padding_mode, align_corners):
    """grid_sampler on a 5-D input (ATen's per-rank spelling)."""
    _sampling_check(input, grid, interpolation_mode, 5)
    return grid_sampler(input, grid, interpolation_mode, padding_mode, align_corners)


# ---- embedding bags: ATen's op, with the bookkeeping tensors its backward keeps
_EMBEDDING_BAG = (
    "Tensor weight, Tensor indices, Tensor offsets, bool scale_grad_by_freq=False, int mode=0, bool sparse=False, "
    "Tensor? per_sample_weights=None, bool include_last_offset=False, int? padding_idx=None"
)
_BAG_MODES = ("sum", "mean", "max")


def _embedding_bag_op(
    weight, indices, offsets, scale_grad_by_freq, mode, per_sample_weights, last, padding_idx
):
    """ATen's CPU embedding_bag in its order of checks, as (output, offset2bag, bag_size, max_indices).
    padding_idx: -1 for none, else already in range."""
    if weight.dim() != 2:
        raise RuntimeError(f"weight has to be a 2D Tensor, but got Tensor of dimension {weight.dim()}")
    if indices.dim() not in (1, 2):
        raise RuntimeError(f"input has to be a 1D or 2D Tensor, but got Tensor of dimension {indices.dim()}")
    if indices.dim() == 1 and offsets.dim() != 1:
        raise RuntimeError(f"offsets has to be a 1D Tensor, but got Tensor of dimension {offsets.dim()}")
    dt = _C.result_type(indices, offsets)
    if dt not in (_C.int64, _C.int32):
        raise RuntimeError(
            "Expected tensor for argument #1 'indices' to have one of the following scalar types: Long, Int; "
            f"but got {indices.to(dt).type()} instead (while checking arguments for embedding_bag)"
        )
    if not weight.is_cuda and not weight.is_meta and not weight.is_floating_point():
        raise RuntimeError(
            "Expected tensor for argument #1 'weight' to have one of the following scalar types: Half, BFloat16, "
            f"Float, Double; but got {weight.type()} instead (while checking arguments for embedding_bag)"
        )
    n = indices.shape[0]  # ATen's length of the input (its first dim, also for a 2-D one)
    meta = weight.is_meta or indices.is_meta or offsets.is_meta
    offs = None if meta else offsets.reshape(-1).cpu().numpy().astype("int64")
    if offs is not None and offs.size:
        if offs[0] != 0:
            raise RuntimeError(
                "offsets[0] has to be 0, i.e., the first sequence in the mini-batch has to start from position "
                f"0. However, got {int(offs[0])}\n[ {offsets.to(dt).type()}{{}} ]"
            )
        if offs[-1] > n:
            raise RuntimeError(
                f"offsets[-1] can not be greater than input's length {n} but got offsets[-1] of {int(offs[-1])}"
            )
        if (offs[1:] < offs[:-1]).any():  # ATen's kernel walks each bag up to the next offset
            raise RuntimeError(
                "Expected i < index_size to be true, but got false.  (Could this error message be improved?  If so, "
                "please report an enhancement request to PyTorch.)"
            )
    psw = per_sample_weights
    if psw is not None:
        if mode != 0:
            raise RuntimeError("embedding_bag: per_sample_weights only supported with mode='sum'")
        if psw.dtype != weight.dtype:
            raise RuntimeError(
                "Expected tensor for argument #1 'weight' to have the same type as tensor for argument #1 "
                f"'per_sample_weights'; but type {weight.type()} does not equal {psw.type()} (while checking "
                "arguments for embedding_bag)"
            )
        if psw.dim() != 1:
            raise RuntimeError(
                "Expected per_sample_weights.value().dim() == 1 to be true, but got false.  (Could this error "
                "message be improved?  If so, please report an enhancement request to PyTorch.)"
            )
        if psw.numel() != indices.numel():
            raise RuntimeError(
                "Expected per_sample_weights.value().numel() == indices.numel() to be true, but got false.  "
                "(Could this error message be improved?  If so, please report an enhancement request to PyTorch.)"
            )
    if last and offsets.shape[0] < 1:
        raise RuntimeError("include_last_offset: number of offset should be at least 1")
    if mode not in (0, 1, 2):
        raise RuntimeError("`mode` must be sum, mean, or max.")
    nbags = offsets.shape[0] - (1 if last else 0)
    dim = weight.shape[1]
    flat = indices.reshape(-1)
    pidx = None if padding_idx < 0 else padding_idx
    kw = {"device": weight.device}
    if meta:
        out = _C.empty((nbags, dim), dtype=weight.dtype, **kw)
        return (
            out,
            _C.empty((0,), dtype=dt, **kw),
            _C.empty((nbags,), dtype=dt, **kw),
            _C.empty((0,), dtype=dt, **kw),
        )
    out = _F.embedding_bag(
        flat.to(dt),
        weight,
        offsets.reshape(-1).to(dt),
        scale_grad_by_freq=scale_grad_by_freq,
        mode=_BAG_MODES[mode],
        per_sample_weights=psw,
        include_last_offset=last,
        padding_idx=pidx,
    )
    return (out,) + _embedding_bag_bookkeeping(
        weight, indices, offs, mode, per_sample_weights, last, pidx, dt
    )


def _embedding_bag_bookkeeping(weight, indices, offs, mode, psw, last, pidx, dt):
    """(offset2bag, bag_size, max_indices) as ATen's CPU kernel leaves them: offset2bag (each index's bag) is
    empty on the fast sum path (float/half/bfloat16 rows contiguous along dim 1, no padding_idx); bag_size
    counts each bag's non-padding indices for mean and max (zeros for sum, one per bag when weight requires
    grad, else one per offset); max_indices is, for max, the row each output element came from (the first on
    ties, 0 for an empty bag), else a copy of bag_size."""
    n = indices.shape[0]
    nbags = offs.size - (1 if last else 0)
    ids = indices.reshape(-1).cpu().numpy().astype("int64")[:n] if n else np.zeros(0, np.int64)
    fast = (
        weight.dtype in (_C.float32, _C.float16, _C.bfloat16)
        and weight.stride(1) == 1
        and pidx is None
        and (psw is None or psw.stride(0) == 1)
    )
    kw = {"dtype": dt, "device": indices.device}
    if mode in (1, 2) or not fast:
        o2b = np.zeros(n + 1, np.int64)
        np.add.at(o2b, offs[:nbags], 1)
        o2b[0] -= 1
        o2b = np.cumsum(o2b)[:n]
    else:
        o2b = np.zeros(0, np.int64)
    if weight.requires_grad or mode in (1, 2):
        sizes = np.zeros(nbags, np.int64)
        if nbags:
            sizes[:-1] = offs[1:nbags] - offs[: nbags - 1]
            sizes[-1] = n - offs[nbags - 1]
        if mode in (1, 2) and pidx is not None and o2b.size:
            pads = (ids == pidx) & (o2b >= 0) & (o2b < nbags)
            np.subtract.at(sizes, o2b[pads], 1)
        if mode == 0:
            sizes[:] = 0
    else:
        sizes = np.zeros(offs.size, np.int64)
    if mode == 2:
        maxi = _bag_argmax(weight, ids, o2b, nbags, pidx)
    else:
        maxi = sizes
    return tuple(_tensor(a, **kw) for a in (o2b, sizes, maxi))


def _bag_argmax(weight, ids, o2b, nbags, pidx):
    """(nbags, dim) int64: per bag and column the first index whose row holds the bag's maximum (ATen keeps
    the first on ties), 0 for a bag with none. The bags as a padded (nbags, width, dim) block of rows, its
    pad rows -inf, so one argmax finds them (in C++: NumPy's reduceat over rows was 20x slower)."""
    keep = np.flatnonzero((ids != (-1 if pidx is None else pidx)) & (o2b >= 0) & (o2b < nbags))
    out = np.zeros((nbags, weight.shape[1]), np.int64)
    if not keep.size:
        return out
    bags = o2b[keep]
    counts = np.bincount(bags, minlength=nbags)
    width = int(counts.max())
    starts = np.cumsum(counts) - counts
    slot = np.arange(keep.size) - starts[bags]  # each kept index's place in its bag
    where = np.full((nbags, width), keep.size, np.int64)
    where[bags, slot] = np.arange(keep.size)
    with _no_grad():
        rows = weight.detach().index_select(0, _tensor(ids[keep], device=weight.device))
        pad = _C.full((1, weight.shape[1]), float("-inf"), dtype=rows.dtype, device=rows.device)
        block = _C.cat([rows, pad], 0).index_select(0, _tensor(where.reshape(-1), device=weight.device))
        first = block.reshape(nbags, width, -1).argmax(1).cpu().numpy()
    picked = where[np.arange(nbags)[:, None], first]
    return np.where(picked < keep.size, np.append(ids[keep], 0)[picked], 0)


@_argcheck.parses(_EMBEDDING_BAG, name="embedding_bag", upfront=False)
def embedding_bag(
    weight,
    indices,
    offsets,
    scale_grad_by_freq=False,
    mode=0,
    sparse=False,
    per_sample_weights=None,
    include_last_offset=False,
    padding_idx=None,
):
    """torch.embedding_bag, the op F.embedding_bag ends in: (output, offset2bag, bag_size, max_indices), mode as
    ATen's enum (0 sum, 1 mean, 2 max), padding_idx range-checked and wrapped."""
    if padding_idx is None:
        padding_idx = -1
    else:
        rows = weight.shape[0] if weight.dim() else 0
        if not -rows <= padding_idx < rows:
            raise RuntimeError(
                f"padding_idx must be within the number of embeddings, -{rows} through {rows - 1}, but got "
                f"{padding_idx}"
            )
        padding_idx = padding_idx + rows if padding_idx < 0 else padding_idx
    return _embedding_bag_op(
        weight,
        indices,
        offsets,
        scale_grad_by_freq,
        mode,
        per_sample_weights,
        include_last_offset,
        padding_idx,
    )


_EMBEDDING_BAG_IMPL = _EMBEDDING_BAG.replace("int? padding_idx=None", "int padding_idx=-1")


def _embedding_bag_internal(name):
    def fn(
        weight,
        indices,
        offsets,
        scale_grad_by_freq=False,
        mode=0,
        sparse=False,
        per_sample_weights=None,
        include_last_offset=False,
        padding_idx=-1,
    ):
        # ATen's inner ops take padding_idx as given: only an index in [0, rows) pads
        rows = weight.shape[0] if weight.dim() else 0
        pidx = padding_idx if 0 <= padding_idx < rows else -1
        return _embedding_bag_op(
            weight, indices, offsets, scale_grad_by_freq, mode, per_sample_weights, include_last_offset, pidx
        )

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"torch.{name}: torch.embedding_bag with padding_idx an int (-1: none), not range-checked."
    return _argcheck.parsing(fn, [_EMBEDDING_BAG_IMPL], name, upfront=False)


_embedding_bag = _embedding_bag_internal("_embedding_bag")
_embedding_bag_forward_only = _embedding_bag_internal("_embedding_bag_forward_only")
__all__ += ["_embedding_bag", "_embedding_bag_forward_only", "embedding_bag"]


# ---- SyncBatchNorm's pieces (ATen registers all but batch_norm_update_stats for CUDA only: on the CPU they
# refuse as its dispatcher does; elsewhere they are composed from ops)
def _cuda_only(name, input):
    if input.device.type == "cpu":
        raise NotImplementedError(
            f"Could not run 'aten::{name}' with arguments from the 'CPU' backend. This could be because the "
            "operator doesn't exist for this backend, or was omitted during the selective/custom build process "
            f"(if using custom build). 'aten::{name}' is only available for these backends: [CUDA, Meta]."
        )


def _channel_view(t, input):
    return t.reshape([1, -1] + [1] * (input.dim() - 2))


def _reduce_dims(input):
    return [0] + list(range(2, input.dim()))


def _batch_stats(input):
    """(mean, biased variance) per channel (dim 1), in float for half inputs as ATen accumulates"""
    x = input.float() if input.dtype in (_C.float16, _C.bfloat16) else input
    dims = _reduce_dims(input)
    return x.mean(dims), x.var(dims, correction=0)


@_argcheck.parses("Tensor input, float eps", name="batch_norm_stats")
def batch_norm_stats(input, eps):
    """(mean, invstd) of each channel over the batch and spatial dims; invstd = 1 / sqrt(var + eps)."""
    _cuda_only("batch_norm_stats", input)
    mean, var = _batch_stats(input)
    return mean, _C.rsqrt(_C.add(var, eps))


@_argcheck.parses(
    "Tensor input, Tensor? weight, Tensor? bias, Tensor mean, Tensor invstd, float eps",
    name="batch_norm_elemt",
)
def batch_norm_elemt(input, weight, bias, mean, invstd, eps):
    """(input - mean) * invstd * weight + bias, the statistics per channel."""
    _cuda_only("batch_norm_elemt", input)
    out = (input - _channel_view(mean, input)) * _channel_view(invstd, input)
    if weight is not None:
        out = out * _channel_view(weight, input)
    if bias is not None:
        out = out + _channel_view(bias, input)
    return out.to(input.dtype)


def _gather(input, mean, invstd, running_mean, running_var, momentum, eps, counts):
    counts = counts.to(mean.dtype).reshape(-1, 1)
    total = counts.sum()
    gmean = (mean * counts).sum(0) / total
    var = (1.0 / (invstd * invstd) - eps + (mean - gmean) ** 2) * counts
    gvar = var.sum(0) / total
    if running_mean is not None:
        running_mean.mul_(1 - momentum).add_((gmean * momentum).to(running_mean.dtype))
    if running_var is not None:
        unbiased = gvar * total / (total - 1)
        running_var.mul_(1 - momentum).add_((unbiased * momentum).to(running_var.dtype))
    return gmean, _C.rsqrt(_C.add(gvar, eps))


@_argcheck.parses(
    "Tensor input, Tensor mean, Tensor invstd, Tensor? running_mean, Tensor? running_var, float momentum, "
    "float eps, int count",
    name="batch_norm_gather_stats",
)
def batch_norm_gather_stats(input, mean, invstd, running_mean, running_var, momentum, eps, count):
    """Combines per-device (mean, invstd) rows of `count` elements each into the global (mean, invstd), updating
    the running statistics (the unbiased variance) in place."""
    _cuda_only("batch_norm_gather_stats", input)
    counts = _C.full((mean.shape[0],), float(count), dtype=mean.dtype, device=mean.device)
    return _gather(input, mean, invstd, running_mean, running_var, momentum, eps, counts)


@_argcheck.parses(
    "Tensor input, Tensor mean, Tensor invstd, Tensor? running_mean, Tensor? running_var, float momentum, "
    "float eps, Tensor counts",
    name="batch_norm_gather_stats_with_counts",
)
def batch_norm_gather_stats_with_counts(
    input, mean, invstd, running_mean, running_var, momentum, eps, counts
):
    """batch_norm_gather_stats with each row's element count given."""
    _cuda_only("batch_norm_gather_stats_with_counts", input)
    return _gather(input, mean, invstd, running_mean, running_var, momentum, eps, counts)


@_argcheck.parses(
    "Tensor grad_out, Tensor input, Tensor mean, Tensor invstd, Tensor? weight, bool input_g, bool weight_g, "
    "bool bias_g",
    name="batch_norm_backward_reduce",
)
def batch_norm_backward_reduce(grad_out, input, mean, invstd, weight, input_g, weight_g, bias_g):
    """(sum_dy, sum_dy_xmu, grad_weight, grad_bias) per channel, each None unless its flag asks for it."""
    _cuda_only("batch_norm_backward_reduce", input)
    dims = _reduce_dims(input)
    sum_dy = grad_out.sum(dims)
    sum_dy_xmu = (grad_out * (input - _channel_view(mean, input))).sum(dims)
    grad_weight = (sum_dy_xmu * invstd).to(weight.dtype) if weight_g and weight is not None else None
    grad_bias = sum_dy.to(weight.dtype if weight is not None else input.dtype) if bias_g else None
    if not input_g:
        sum_dy = sum_dy_xmu = None
    return sum_dy, sum_dy_xmu, grad_weight, grad_bias


@_argcheck.parses(
    "Tensor grad_out, Tensor input, Tensor mean, Tensor invstd, Tensor? weight, Tensor sum_dy, "
    "Tensor sum_dy_xmu, Tensor count",
    name="batch_norm_backward_elemt",
)
def batch_norm_backward_elemt(grad_out, input, mean, invstd, weight, sum_dy, sum_dy_xmu, count):
    """The input's gradient from the all-reduced sums: (dy - mean(dy) - (x - mean) * invstd^2 * mean(dy * (x -
    mean))) * invstd * weight, the means over count.sum() elements."""
    _cuda_only("batch_norm_backward_elemt", input)
    n = count.sum().to(mean.dtype)
    xmu = input - _channel_view(mean, input)
    scale = invstd if weight is None else invstd * weight
    g = grad_out - _channel_view(sum_dy / n, input)
    g = g - xmu * _channel_view(invstd * invstd * sum_dy_xmu / n, input)
    return (g * _channel_view(scale, input)).to(input.dtype)


@_argcheck.parses(
    "Tensor input, Tensor? running_mean, Tensor? running_var, float momentum", name="batch_norm_update_stats"
)
def batch_norm_update_stats(input, running_mean, running_var, momentum):
    """(mean, biased var) of each channel over the batch and spatial dims; the running statistics (if given)
    move toward them by momentum, the variance unbiased."""
    if not input.is_floating_point():
        raise NotImplementedError(
            f"\"batch_norm_update_stats_{input.device.type}\" not implemented for '{scalar_name(input.dtype)}'"
        )
    params = [t.dtype for t in (running_mean, running_var) if t is not None]
    if input.device.type == "cpu" and any(d != input.dtype for d in params):
        # ATen's CPU check: a half or bfloat16 beside float is its mixed case, which wants float statistics
        low = (_C.float16, _C.bfloat16)
        if any(d in low for d in params + [input.dtype]) and _C.float32 in params + [input.dtype]:
            if any(d != _C.float32 for d in params):
                raise RuntimeError("mixed dtype (CPU): expect parameter to have scalar type of Float")
        else:
            raise RuntimeError("mixed dtype (CPU): all inputs must share same datatype.")
    if input.numel() == 0:
        raise RuntimeError(
            f"input tensor must have at least one element, but got input_sizes = {list(input.shape)}"
        )
    mean, var = _batch_stats(input.detach())
    n = input.numel() // input.shape[1]
    with _no_grad():
        if running_mean is not None:
            running_mean.mul_(1 - momentum).add_((mean * momentum).to(running_mean.dtype))
        if running_var is not None:
            unbiased = var * (n / (n - 1)) if n > 1 else var
            running_var.mul_(1 - momentum).add_((unbiased * momentum).to(running_var.dtype))
    return mean, var  # (float for a half or bfloat16 input, as ATen's accumulation)


__all__ += [
    "batch_norm_backward_elemt",
    "batch_norm_backward_reduce",
    "batch_norm_elemt",
    "batch_norm_gather_stats",
    "batch_norm_gather_stats_with_counts",
    "batch_norm_stats",
    "batch_norm_update_stats",
]
