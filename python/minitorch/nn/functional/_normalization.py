"""nn.functional's normalizations: batch, instance, layer, group, RMS and local response norm; normalize."""

from minitorch import _C, _argcheck
from minitorch._dtype_names import scalar_name
from minitorch.autograd.grad_mode import no_grad
from minitorch.nn.functional._conv3d import avg_pool3d_dtype_check
from minitorch.nn.functional._padding import pad
from minitorch.nn.functional._pooling import avg_pool2d

_nn = _C._nn


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
        if any(
            t is not None and not isinstance(t, _C.Tensor) for t in (weight, bias, running_mean, running_var)
        ):
            _argcheck.check_call("batch_norm", [_BATCH_NORM], (input, weight, bias, running_mean, running_var,
                                 training, momentum, eps, cudnn_enabled), {})  # fmt: skip
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
    # ATen repeats each per-channel tensor over the batch (`repeat({n})`) before anything checks it
    for t in (weight, bias, running_mean, running_var):
        if t is not None and t.dim() > 1:
            raise RuntimeError(
                "Number of dimensions of repeat dims can not be smaller than number of dimensions of tensor"
            )
    n, c = input.shape[0], input.shape[1]
    if input.numel() == 0:
        # ATen's batch_norm returns an empty input's copy before its checks and kernel (no size or dtype
        # check), scaled by the first element of the weight and bias repeated n times; the running stats'
        # copy-back then views them as [n, c]
        out = input.clone()
        if weight is not None:
            out = out * weight.repeat(n).select(0, 0)
        if bias is not None:
            out = out + bias.repeat(n).select(0, 0)
        for t in (running_mean, running_var) if use_input_stats else ():
            if t is not None and t.numel() != c:
                raise RuntimeError(f"shape '[{n}, {c}]' is invalid for input of size {t.numel() * n}")
        return out
    # ATen runs batch_norm over the n*c channels of the input seen as one sample, with each per-channel tensor
    # repeated n times: its size checks read in those terms
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
    # the repeated statistics reach native_batch_norm, which has no derivative for them
    for what, t in (("running_mean", running_mean), ("running_var", running_var)):
        if t is not None and t.requires_grad and _C.is_grad_enabled():
            raise RuntimeError(
                f"The function 'native_batch_norm' is not differentiable with respect to argument '{what}'. "
                "This input cannot have requires_grad True."
            )
    if not input.is_floating_point():
        raise NotImplementedError(f"\"batch_norm\" not implemented for '{scalar_name(input.dtype)}'")
    _check_param_dtypes(input, weight, bias)
    if use_input_stats:
        out = _nn.group_norm(input.reshape((1, n * c) + tuple(input.shape[2:])), n * c, None, None, eps)
        out = out.reshape(input.shape)
        if running_mean is not None:
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
    """input / max(||input||_p along dim, eps); out= receives the division (torch.div's checks)."""
    denom = input.norm(p, dim, keepdim=True).clamp_min(eps).expand_as(input)
    return input / denom if out is None else _C.div(input, denom, out=out)


# float eps by dtype (torch.finfo(dtype).eps), for rms_norm's eps=None
_FINFO_EPS = {
    _C.float64: 2.220446049250313e-16,
    _C.float32: 1.1920928955078125e-07,
    _C.float16: 0.0009765625,
    _C.bfloat16: 0.0078125,
}


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
    if dim == 3:
        div = pad((input * input).unsqueeze(1), (0, 0, size // 2, (size - 1) // 2))
    else:
        # PyTorch pads a 5-D view and pools it with avg_pool3d, whose checks (kernel sign, then dtypes: half and
        # bfloat16 refused on the CPU) are its; the 2-D pool sums the same windows faster
        div = (input * input).view(n, 1, c, input.shape[2], -1)
        div = pad(div, (0, 0, 0, 0, size // 2, (size - 1) // 2))
        if type(size) is bool:  # avg_pool3d's parser: a bool starts no int list
            raise TypeError(
                "avg_pool3d(): argument 'kernel_size' (position 2) must be tuple of ints, but found element of "
                "type bool at pos 0"
            )
        if size <= 0:
            raise RuntimeError(f"kernel size should be greater than zero, but got kT: {size} kH: 1 kW: 1")
        avg_pool3d_dtype_check(div)
        div = div.reshape(n, 1, div.shape[2], -1)
    div = avg_pool2d(div, (size, 1), stride=1).reshape(input.shape)
    return input / (div * alpha + k).pow(beta)


# PyTorch's signature checked as its parser does (F.rms_norm is Python in PyTorch, handing its arguments to
# torch.rms_norm by position)
rms_norm = _argcheck.parsing(
    rms_norm, ["Tensor input, int[] normalized_shape, Tensor? weight=None, float? eps=None"], positional=True
)
