"""nn.functional's losses, and the legacy size_average/reduce arguments' mapping onto reduction=."""

import warnings

from minitorch import _C, _argcheck
from minitorch._composite_shape import broadcast_tensors
from minitorch._dtype_names import cpp_name, scalar_name
from minitorch.functional import broadcast_shapes as _broadcast_shapes
from minitorch.nn.functional._activation import logsigmoid
from minitorch.nn.functional._distance import pairwise_distance
from minitorch.nn.functional._utils import _floating, _floating_pair

_nn = _C._nn


# ---- reductions of the losses: the legacy size_average/reduce pair maps onto reduction=, with PyTorch's warning
def _reduction(size_average, reduce, reduction):
    if size_average is None and reduce is None:
        return reduction
    size_average = True if size_average is None else size_average
    reduce = True if reduce is None else reduce
    # PyTorch's legacy_get_string, in its order of truth tests (size_average's first: a tensor of several
    # elements there is the ambiguity error whatever reduce is)
    if size_average and reduce:
        ret = "mean"
    elif reduce:
        ret = "sum"
    else:
        ret = "none"
    warnings.warn(
        f"size_average and reduce args will be deprecated, please use reduction='{ret}' instead.",
        stacklevel=3,
    )
    return ret


# ---- losses with a native op (minitorch._C._nn)
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
    # ATen's path for a 0-d target: probabilities of a 0-d input read its class dim 1 (an IndexError); the class
    # indices of a batched input are loss.cpp's (a 0-d target's batch size counts as 0)
    if (
        isinstance(target, _C.Tensor)
        and target.dim() == 0
        and isinstance(input, _C.Tensor)
        and (weight is None or isinstance(weight, _C.Tensor))  # else the parse below names the weight first
        and input.dim() == 0
        and target.is_floating_point()
    ):
        input.size(1)
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

    return broadcast_tensors(input, target)


def _weighted(loss, weight, input, reduction, mean_over_weights):
    """PyTorch's weighted pointwise losses (composed in its Python, as here): the elementwise loss times weight;
    the mean is sum / sum(weight) for mse and l1, a plain mean for huber"""
    if tuple(weight.shape) != tuple(input.shape):
        raise ValueError("Weights and input must have the same size.")
    weighted = loss * weight
    if reduction == "none":
        return weighted
    if reduction == "sum":
        return weighted.sum()
    if reduction == "mean":
        return weighted.sum() / weight.sum() if mean_over_weights else weighted.mean()
    raise ValueError(f"Invalid reduction mode: {reduction}. Expected one of 'none', 'mean', 'sum'.")


def mse_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    _warn_size(input, target)  # PyTorch's order: target.size() before the legacy reduction
    if size_average is not None or reduce is not None:
        reduction = _reduction(size_average, reduce, reduction)
    x, y = _broadcast_pair(input, target)
    if weight is not None:
        return _weighted((x - y).pow(2), weight, input, reduction, True)
    return _nn.mse_loss(x, y, reduction)


def l1_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    _warn_size(input, target)  # PyTorch's order: target.size() before the legacy reduction
    if size_average is not None or reduce is not None:
        reduction = _reduction(size_average, reduce, reduction)
    x, y = _broadcast_pair(input, target)
    if weight is not None:
        return _weighted((x - y).abs(), weight, input, reduction, True)
    return _nn.l1_loss(x, y, reduction)


def smooth_l1_loss(input, target, size_average=None, reduce=None, reduction="mean", beta=1.0):
    # PyTorch's Python order: target.size() (its warning), the legacy reduction, the broadcast, then the kernel
    _warn_size(input, target)
    if size_average is not None or reduce is not None:
        reduction = _reduction(size_average, reduce, reduction)
    input_b, target_b = _broadcast_pair(input, target)
    _floating_pair(input, target, "smooth_l1")
    return _nn.smooth_l1_loss(input_b, target_b, reduction, beta)


def huber_loss(input, target, reduction="mean", delta=1.0, weight=None):
    _warn_size(input, target)
    x, y = _broadcast_pair(input, target)
    reduction = _loss_reduction(None, None, reduction)  # PyTorch's get_enum, before the kernel
    _floating_pair(input, target, "huber")
    if weight is not None:
        return _weighted(_nn.huber_loss(x, y, "none", delta), weight, input, reduction, False)
    return _nn.huber_loss(x, y, reduction, delta)


def binary_cross_entropy(input, target, weight=None, size_average=None, reduce=None, reduction="mean"):
    reduction = _loss_reduction(size_average, reduce, reduction)  # PyTorch's get_enum comes first
    if tuple(target.shape) != tuple(input.shape):
        raise ValueError(
            f"Using a target size ({target.shape}) that is different to the input size ({input.shape}) is "
            "deprecated. Please ensure they have the same size."
        )
    if weight is not None:  # PyTorch's Python reads weight.size() and expands it to the target's shape
        new_size = _broadcast_shapes(tuple(target.size()), tuple(weight.size()))
        weight = weight.expand(new_size)
        _fits_output(input, new_size)
        if weight.requires_grad and _C.is_grad_enabled():  # its autograd wrapper's check, before the kernel
            raise RuntimeError(
                "The function 'binary_cross_entropy' is not differentiable with respect to argument 'weight'. "
                "This input cannot have requires_grad True."
            )
    if input.dtype == target.dtype and not (input.is_floating_point() or input.is_complex()):
        raise NotImplementedError(
            f"\"binary_cross_entropy\" not implemented for '{scalar_name(input.dtype)}'"
        )
    return _nn.binary_cross_entropy(input, target, weight, reduction)


def binary_cross_entropy_with_logits(
    input, target, weight=None, size_average=None, reduce=None, reduction="mean", pos_weight=None
):
    if size_average is not None or reduce is not None:
        reduction = _reduction(size_average, reduce, reduction)
    if tuple(target.shape) != tuple(input.shape):
        raise ValueError(f"Target size ({target.shape}) must be the same as input size ({input.shape})")
    # torch.binary_cross_entropy_with_logits's parser, before the kernel
    for pos, name, w in ((3, "weight", weight), (4, "pos_weight", pos_weight)):
        if w is not None:
            _argcheck.check_tensor_like("binary_cross_entropy_with_logits", name, pos, w)
    _floating(input, "log_sigmoid")
    if not (target.is_floating_point() or target.is_complex() or target.dtype == _C.bool):
        # PyTorch's kernel writes into a tensor of target's dtype
        raise RuntimeError(
            f"result type {scalar_name(_C.result_type(input, target))} can't be cast to the desired output type "
            f"{scalar_name(target.dtype)}"
        )
    if _C.is_grad_enabled():  # PyTorch has no derivative for the weights (its autograd refuses them)
        for name, w in (("weight", weight), ("pos_weight", pos_weight)):
            if isinstance(w, _C.Tensor) and w.requires_grad:
                raise RuntimeError(
                    f"The function 'binary_cross_entropy_with_logits' is not differentiable with respect to "
                    f"argument '{name}'. This input cannot have requires_grad True."
                )
    for w in (pos_weight, weight):  # PyTorch's kernel multiplies them into the loss in place
        if isinstance(w, _C.Tensor):
            _fits_output(input, _broadcast_shapes(tuple(input.shape), tuple(w.shape)))
    return _nn.binary_cross_entropy_with_logits(input, target, weight, reduction, pos_weight)


def _fits_output(input, shape):
    """PyTorch's in-place product's error when a weight would grow the loss beyond the input's shape."""
    if tuple(shape) != tuple(input.shape):
        raise RuntimeError(
            f"output with shape {list(input.shape)} doesn't match the broadcast shape {list(shape)}"
        )


def kl_div(input, target, size_average=None, reduce=None, reduction="mean", log_target=False):
    # PyTorch's Python settles the reduction first (get_enum's ValueError for anything but its strings), then
    # calls torch.kl_div, whose parser checks the tensors
    if size_average is not None or reduce is not None:
        reduction = _reduction(size_average, reduce, reduction)
    else:
        if isinstance(reduction, str) and reduction == "mean":
            warnings.warn(
                "reduction: 'mean' divides the total loss by both the batch size and the support size."
                "'batchmean' divides only by the batch size, and aligns with the KL div math definition."
                "'mean' will be changed to behave the same as 'batchmean' in the next major release.",
                stacklevel=2,
            )
        if isinstance(reduction, str) and reduction == "elementwise_mean":
            warnings.warn(
                "reduction='elementwise_mean' is deprecated. Please use reduction='mean' instead.",
                stacklevel=2,
            )
            reduction = "mean"
        if not isinstance(reduction, str) or reduction not in ("none", "mean", "sum", "batchmean"):
            raise ValueError(f"{reduction} is not a valid value for reduction")
    _argcheck.check_tensor_like("kl_div", "input", 1, input)  # torch.kl_div's parser
    _argcheck.check_tensor_like("kl_div", "target", 2, target)
    if isinstance(target, _C.Tensor) and (not input.is_floating_point() or not target.is_floating_point()):
        raise RuntimeError("kl_div: Integral inputs not supported.")
    return _nn.kl_div(input, target, reduction, log_target=log_target)  # a keyword, as PyTorch passes it


def _warn_size(input, target):
    if target.size() != input.size():  # PyTorch reads .size(): a plain value fails there
        warnings.warn(
            f"Using a target size ({target.shape}) that is different to the input size ({input.shape}). "
            "This will likely lead to incorrect results due to broadcasting. Please ensure they have the same "
            "size.",
            stacklevel=3,
        )


# ---- losses composed of recorded ops (ranking, embedding, margin, Poisson/Gaussian NLL): autograd and every
# device come from the ops they are built of; only argument checking and PyTorch's error messages live here

_REDUCTIONS = ("none", "mean", "sum")
_HALF_LOG_2PI = 0.9189385332046727  # 0.5 * log(2 * pi)
_TWO_PI = 6.283185307179586


def _loss_reduction(size_average, reduce, reduction, message="{} is not a valid value for reduction"):
    """The reduction after the legacy pair is folded in, checked before any work as PyTorch's get_enum does."""
    if size_average is not None or reduce is not None:
        return _reduction(size_average, reduce, reduction)
    if reduction not in _REDUCTIONS:
        if isinstance(reduction, str) and reduction == "elementwise_mean":  # get_enum's deprecated spelling
            warnings.warn("reduction='elementwise_mean' is deprecated. Please use reduction='mean' instead.")
            return "mean"
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
    return _margin_ranking(input1, input2, target, margin, reduction)


def _margin_ranking(input1, input2, target, margin, reduction):
    """The loss itself, the operands broadcast (torch.margin_ranking_loss has no dims check of F's)."""
    # ATen's order: -target first, in its own dtype (a uint8 target wraps there, as PyTorch's); its margin is a
    # double, so integer operands give a floating loss
    return _reduce_loss((-target * (input1 - input2) + float(margin)).clamp_min(0), reduction)


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
    if margin <= 0:  # PyTorch 2.15's F.triplet_margin_loss, before its parser sees the tensors
        raise ValueError(f"margin must be greater than 0, got {margin}")
    for pos, (what, t) in enumerate((("anchor", anchor), ("positive", positive), ("negative", negative))):
        _argcheck.check_tensor("triplet_margin_loss", what, pos + 1, t)
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
    # PyTorch's F checks the reduction, then calls torch.poisson_nll_loss, whose parser checks the kinds in order
    for pos, (what, t) in enumerate((("input", input), ("target", target))):
        _argcheck.check_tensor("poisson_nll_loss", what, pos + 1, t)
    _argcheck.check_bool("poisson_nll_loss", "log_input", 3, log_input)
    _argcheck.check_bool("poisson_nll_loss", "full", 4, full)
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
    reduction = _loss_reduction(size_average, reduce, reduction)  # PyTorch's Python, before the parse
    _argcheck.check_tensor_like("hinge_embedding_loss", "input", 1, input)
    _argcheck.check_tensor_like("hinge_embedding_loss", "target", 2, target)
    # PyTorch subtracts in input's dtype: an integer input truncates the margin and keeps its dtype; the
    # margin is its parser's float, so a negative one does not fit uint8 (an int -1 would wrap)
    if isinstance(margin, int):
        margin = float(margin)
    margin_t = _C.full_like(input, margin) if isinstance(input, _C.Tensor) else margin
    loss = _zero_where(target == 1, (margin_t - input).clamp_min(0)) + _zero_where(target == -1, input)
    return _reduce_loss(loss, reduction)


@_argcheck.parses(  # PyTorch's parser names the first non-tensor (ours would fail on target's .dim() first)
    "Tensor input1, Tensor input2, Tensor target, float margin=0, bool? size_average=None, bool? reduce=None, "
    "str reduction='mean'",
    upfront=False,
)
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
    if size_average is not None or reduce is not None:
        reduction = _reduction(size_average, reduce, reduction)
    _argcheck.check_tensor_like("log_sigmoid", "input", 1, input)
    _floating(input, "log_sigmoid")
    # PyTorch's composite's two calls (a tensor-like argument, forward AD's duals or vmap's batched tensors,
    # sees them): each one pass of the log_sigmoid kernel
    ls_pos, ls_neg = logsigmoid(input), logsigmoid(-input)
    loss = -(target * ls_pos + (1 - target) * ls_neg)
    if weight is not None:
        loss = loss * weight
    class_dim = input.dim() - 1
    c = input.size(class_dim)  # a 0-d input's IndexError, before the reduction is read (PyTorch's order)
    if reduction not in _REDUCTIONS:
        raise ValueError(f"{reduction} is not valid")
    return _reduce_loss(loss.sum(class_dim) / c, reduction)


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


def _margin_kernel_dtype(input, cpu_kernel, cuda_kernel):
    """PyTorch's margin-loss kernels dispatch on float and double on the CPU, the half types too on CUDA."""
    if not input.is_floating_point() or (not input.is_cuda and input.dtype not in (_C.float32, _C.float64)):
        kernel = cuda_kernel if input.is_cuda else cpu_kernel
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{scalar_name(input.dtype)}'")


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
    _argcheck.check_tensor_like("multi_margin_loss", "target", 2, target)  # torch._C._nn's parser, first
    _argcheck.check_number("multi_margin_loss", "p", 3, p)
    _argcheck.check_number("multi_margin_loss", "margin", 4, margin)
    nframe, dim = _margin_loss_frames(input, "multi_margin_loss")
    if target.dim() > 1 or target.numel() != nframe:
        raise RuntimeError(
            "multi_margin_loss: target tensor should be 1-D with size equal to the number of input samples "
            f"(batch size). Expected target size [{nframe}], but got {list(target.shape)}. Input has shape "
            f"{list(input.shape)}."
        )
    if weight is not None and weight.numel() != dim:
        raise RuntimeError(f"inconsistent weight size, expected {dim} but got {list(weight.shape)}")
    # PyTorch's kernel dispatch, inside which it reads the target as int64
    _margin_kernel_dtype(input, "multi_margin_loss_cpu_kernel", "multi_margin_loss_cuda")
    _check_long_target(target)
    t = target.reshape(nframe)
    if nframe and (int(t.min()) < 0 or int(t.max()) >= dim):
        raise RuntimeError("target out of range")
    x = input.reshape(nframe, dim)
    z = margin - x.gather(1, t.unsqueeze(1)) + x
    # only z > 0 counts, as PyTorch's kernels test it: a NaN term adds nothing (clamp_min would keep it)
    z = _zero_where(z.gt(0).logical_not(), z)
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
    _argcheck.check_tensor_like("multilabel_margin_loss", "input", 1, input)  # torch._C._nn's parser, first
    _argcheck.check_tensor_like("multilabel_margin_loss", "target", 2, target)
    nframe, dim = _margin_loss_frames(input, "multilabel_margin_loss")
    nd = input.dim()
    ok = (target.dim() <= 1 and target.numel() == dim) if nd <= 1 else tuple(target.shape) == (nframe, dim)
    if not ok:
        raise RuntimeError(
            f"inconsistent target size: {list(target.shape)} for input of size: {list(input.shape)}"
        )
    _margin_kernel_dtype(
        input, "multilabel_margin_loss_forward_out_frame", "multilabel_margin_loss_forward_out_frame"
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
    pair = 1 - x_slot.unsqueeze(2) + x.unsqueeze(1)  # [sample, target slot, class]
    pair = _zero_where(pair.gt(0).logical_not(), pair)  # only z > 0 counts, as PyTorch's kernel: NaN adds 0
    keep = valid.unsqueeze(2) & is_target.logical_not().unsqueeze(1)
    loss = _zero_where(keep.logical_not(), pair).sum((1, 2)) / dim
    if nd <= 1:
        loss = loss.reshape(())
    return _reduce_loss(loss, reduction)


# PyTorch's TypeError for an argument of the wrong kind, on the error path only (minitorch/_argcheck.py):
# these hand their tensors to a C++ op but test their numbers in Python first
_argcheck.translate_module(globals(), ["multi_margin_loss", "multilabel_margin_loss"], checks="tensors")
