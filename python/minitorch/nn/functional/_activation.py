"""nn.functional's activations: the ReLU and ELU families, sigmoids, shrinks, PReLU/RReLU, GLU, softmax and
its variants."""

import math
import struct as _struct
import warnings

from minitorch import _C, _argcheck
from minitorch._dtype_names import scalar_name
from minitorch.autograd.function import Function as _Function
from minitorch.nn.functional._utils import _floating

_number = _argcheck.check_number
_FLOAT_MAX = 3.4028234663852886e38  # float32's largest finite value


def _input(fname, x):
    """PyTorch's parser's TypeError for an input that is not a tensor (checked first, as its parser does)."""
    if not isinstance(x, _C.Tensor):
        _argcheck.check_tensor_like(fname, "input", 1, x)


def _fits_kernel(input, *values):
    """True where F.hardshrink / F.threshold can take their one-pass C++ kernel (_C._hardshrink,
    _C._threshold): a float32/float64 input and Python numbers its dtype holds. The rest keep the composite,
    which converts (and refuses) the numbers as PyTorch's kernels do."""
    if input.dtype == _C.float64:
        limit = 1.7976931348623157e308
    elif input.dtype == _C.float32:
        limit = 3.4028234663852886e38
    else:
        return False
    for v in values:
        if type(v) is int or type(v) is bool:
            if abs(v) > 2**53:
                return False
        elif type(v) is not float or (abs(v) > limit and v != float("inf") and v != float("-inf")):
            return False
    return True


def _write_back(input, fn):
    """fn(input) written into input (an activation's inplace=True). When input's history is recorded, fn reads
    a copy: fn's backward saved its input, and the write would otherwise invalidate it (PyTorch's in-place
    kernels save their result instead, which these out-of-place formulas cannot)."""
    src = input.clone() if input.requires_grad and _C.is_grad_enabled() else input
    return input.copy_(fn(src))


def relu(input, inplace=False):
    if inplace:
        _input("relu_", input)
        return input.relu_()
    return _C.relu(input)


def relu_(input):
    _input("relu_", input)
    return input.relu_()


def relu6(input, inplace=False):
    _input("relu6_" if inplace else "relu6", input)
    return hardtanh(input, 0.0, 6.0, inplace)


def leaky_relu(input, negative_slope=0.01, inplace=False):
    if inplace:
        _input("leaky_relu_", input)
        return _write_back(input, lambda x: _C.leaky_relu(x, negative_slope))
    return _C.leaky_relu(input, negative_slope)


def leaky_relu_(input, negative_slope=0.01):
    """In-place leaky_relu: writes leaky_relu(input) into input and returns it."""
    return leaky_relu(input, negative_slope, inplace=True)


def prelu(input, weight):
    """max(0, x) + weight * min(0, x), weight one slope or one per channel (dim 1)."""
    # (N, C) against (C,) of one floating dtype passes every check below
    dt = input.dtype
    if dt == weight.dtype and dt.is_floating_point and input.dim() == 2 and weight.dim() == 1:  # noqa: SIM102
        if weight.shape[0] == input.shape[1]:  # (a second test: weight.shape[0] needs weight.dim() == 1)
            return _C._prelu_kernel(input, weight)
    # PyTorch's checks, in its order: one dtype, a channel per slope, a 0-d or 1-d weight, a floating kernel
    if input.dtype != weight.dtype:
        raise RuntimeError(
            f"prelu: Type promoting not supported. Got {scalar_name(input.dtype)} and {scalar_name(weight.dtype)}"
        )
    channels = input.shape[1] if input.dim() >= 2 else 1
    n = weight.numel()
    if n != 1:
        if input.dim() == 0:
            raise RuntimeError("Not allow zero-dim input tensor.")
        if n != channels:
            raise RuntimeError(
                "Mismatch of parameter numbers and input channel size. Found parameter numbers = "
                f"{n} and channel size = {channels}."
            )
    if weight.dim() > 1:
        raise RuntimeError(
            f"prelu: Expected `weight` to be a scalar or 1D tensor, but got: ndim = {weight.dim()}"
        )
    _floating(input, "prelu")
    if n == 1:
        w = weight.reshape(())
    else:
        w = weight.reshape((channels,) + (1,) * (input.dim() - 2))
    return _C._prelu_kernel(input, w)  # one pass (PyTorch's _prelu_kernel); weight broadcasts


def rrelu(input, lower=1.0 / 8, upper=1.0 / 3, training=False, inplace=False):
    """Randomized leaky ReLU: in training each negative element gets a slope drawn from U(lower, upper);
    in eval the slope is the mean (lower + upper) / 2."""
    return rrelu_with_generator(input, lower, upper, training, inplace, None)


def rrelu_with_generator(input, lower, upper, training, inplace, generator):
    """F.rrelu drawing its slopes from `generator` (torch.rrelu's extra argument; None: the default one)."""
    # PyTorch's parser (torch.rrelu / rrelu_) reads the bounds' kinds before the kernel's dtype
    _number("rrelu_" if inplace else "rrelu", "lower", 2, lower)
    _number("rrelu_" if inplace else "rrelu", "upper", 3, upper)
    _floating(input, "leaky_relu")

    # PyTorch's out-of-place rrelu checks the bounds are finite, then ordered; its in-place one only orders
    # them (NaN fails that), so in eval rrelu_(x, 0.1, inf) is leaky_relu_ with an infinite slope; in training
    # its uniform draw then refuses an infinite bound (there in an internal check's words, here in rrelu's)
    def check_finite():
        for name, bound in (("lower", lower), ("upper", upper)):
            if not math.isfinite(bound):
                raise RuntimeError(f"rrelu: {name} bound must be finite, got {float(bound)}")

    if not inplace:
        check_finite()
    if not lower <= upper:
        raise RuntimeError("Lower bound should be less than or equal to the upper bound")
    if inplace and training:
        check_finite()
    if not training:
        return leaky_relu(input, (lower + upper) / 2, inplace)

    def fn(x):
        slopes = _C.empty_like(x).uniform_(lower, upper, generator=generator)
        return _C._where(x >= 0, x, x * slopes)

    if inplace:
        return _write_back(input, fn)
    if not input.is_cuda and not bool(_C.any(_C.lt(input, 0))):
        # no negative element, no slope to draw (PyTorch's kernel draws only for negatives): drawing one per
        # element cost 3x PyTorch's time on such input (a cheap test on the host; on a GPU it would sync)
        return input.clone()
    return fn(input)


def rrelu_(input, lower=1.0 / 8, upper=1.0 / 3, training=False):
    """In-place rrelu."""
    return rrelu(input, lower, upper, training, inplace=True)


def threshold(input, threshold, value, inplace=False):
    _number("threshold_" if inplace else "threshold", "threshold", 2, threshold)
    _number("threshold_" if inplace else "threshold", "value", 3, value)
    if input.dtype == _C.bool or input.is_complex():
        raise NotImplementedError(f"\"threshold_cpu\" not implemented for '{scalar_name(input.dtype)}'")
    # PyTorch's kernel converts the threshold to the input's type (float for float16/bfloat16, which it
    # compares in float), so an integer input meets int(threshold) (-0.5 becomes 0) and an unrepresentable
    # one is refused as Scalar.to's overflow; the test is x <= threshold: a NaN input or threshold keeps x
    if inplace:
        # through a copy when recorded: the backward reads the input, which the write would invalidate
        return _write_back(input, lambda x: _threshold(x, threshold, value))
    return _threshold(input, threshold, value)


def _threshold(input, threshold, value):
    if _fits_kernel(input, threshold, value):
        return _C._threshold(input, float(threshold), float(value))
    reduced = input.dtype in (_C.float16, _C.bfloat16)
    x = input.float() if reduced else input
    # compared in float for float16/bfloat16, the value written in their type
    _C._check_scalar_fits(threshold, x.dtype)
    _C._check_scalar_fits(value, input.dtype)
    th = _C.scalar_tensor(threshold, dtype=x.dtype, device=x.device)
    fill = _C.scalar_tensor(value, dtype=input.dtype, device=input.device)
    return _C._where(_C.le(x, th), fill, input)


def threshold_(input, threshold, value):
    """In-place threshold: elements not greater than threshold become value, in input itself."""
    return globals()["threshold"](input, threshold, value, inplace=True)


def _bound_number(v):
    """a 0-d tensor given as a bound is its number (PyTorch's parser reads a Number), so it never promotes"""
    return v.item() if isinstance(v, _C.Tensor) and v.dim() == 0 else v


def hardtanh(input, min_val=-1.0, max_val=1.0, inplace=False):
    if min_val > max_val:  # F.hardtanh's own check, before its parser's; the C++ op (hardtanh_) has none
        raise ValueError("min_val cannot be greater than max_val")
    name = "hardtanh_" if inplace else "hardtanh"
    _input(name, input)
    _hardtanh_bounds(name, min_val, max_val)
    return _hardtanh(input, min_val, max_val, inplace)


def _hardtanh_bounds(name, min_val, max_val):
    # the parser's Numbers (a 0-d tensor, not a 1-d one)
    _argcheck.check_number(name, "min_val", 2, min_val)
    _argcheck.check_number(name, "max_val", 3, max_val)


def hardtanh_(input, min_val=-1.0, max_val=1.0):
    """In-place hardtanh (PyTorch's C++ hardtanh_, without F.hardtanh's min_val <= max_val check): clamps input
    to [min_val, max_val] in place and returns it."""
    _hardtanh_bounds("hardtanh_", min_val, max_val)
    return _hardtanh(input, min_val, max_val, True)


def _hardtanh(input, min_val, max_val, inplace):
    """ATen's hardtanh: no bools; an integer input keeps its dtype; min_val > max_val gives max_val everywhere
    (the kernel's min(max(x, min_val), max_val), as clamp)"""
    min_val, max_val = _bound_number(min_val), _bound_number(max_val)
    if input.dtype == _C.bool:
        raise NotImplementedError("Bool inputs not supported for hardtanh")
    if not input.is_floating_point():
        # PyTorch keeps an integer input's dtype, its bounds taken as int64 (NaN and overflow refused)
        for v in (min_val, max_val):
            if not -(2.0**63) <= v < 2.0**63:
                raise RuntimeError("value cannot be converted to type int64_t without overflow")
        min_val, max_val = int(min_val), int(max_val)
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


def gelu(input, *, approximate="none"):
    if approximate == "none":
        return _C.gelu(input)
    if approximate == "tanh":
        return _C.gelu_tanh(input)
    if not isinstance(approximate, str):  # the parser's str, before the op's own check
        raise TypeError(f"gelu(): argument 'approximate' must be str, not {type(approximate).__name__}")
    raise RuntimeError("approximate argument must be either none or tanh.")


def silu(input, inplace=False):
    if inplace:
        _input("silu_", input)
        return _write_back(input, lambda x: _C.silu(x))
    return _C.silu(input)


def mish(input, inplace=False):
    if inplace:
        _input("mish_", input)
        return _write_back(input, lambda x: _C.mish(x))
    return _C.mish(input)


def sigmoid(input):
    return input.sigmoid()  # PyTorch's F calls the method (AttributeError for a non-tensor)


def tanh(input):
    return input.tanh()


def hardsigmoid(input, inplace=False):
    # PyTorch's F tests `inplace` first, then its parser names hardsigmoid_ or hardsigmoid for a non-tensor input
    if inplace:
        _argcheck.check_tensor("hardsigmoid_", "input", 1, input)
        _floating(input, "hardsigmoid")
        return _write_back(input, _C.hardsigmoid)
    _argcheck.check_tensor("hardsigmoid", "input", 1, input)
    _floating(input, "hardsigmoid")
    return _C.hardsigmoid(input)


def hardswish(input, inplace=False):
    # PyTorch's F tests `inplace` first, then its parser names hardswish_ or hardswish for a non-tensor input
    if inplace:
        _argcheck.check_tensor("hardswish_", "input", 1, input)
        _floating(input, "hardswish")
        return _write_back(input, _C.hardswish)
    _argcheck.check_tensor("hardswish", "input", 1, input)
    _floating(input, "hardswish")
    return _C.hardswish(input)


def _elu_value(x, alpha, scale, input_scale):
    # PyTorch's kernel: x * scale where x >= 0 (so elu(0) is 0 for any alpha, NaN or infinite ones too) and
    # NaN x, alpha * scale * expm1(x * input_scale) below 0; half and bfloat16 in float, rounded once (in half,
    # celu's 1 / alpha underflowed: celu(-inf, alpha=1e30) was NaN, PyTorch's -inf). One C++ pass.
    return _C._elu(x, alpha, scale, input_scale, input_scale)


class _EluFromResult(_Function):
    """In-place ELU's backward, PyTorch's EluBackward1: from the result r, r <= 0 takes
    grad * input_scale * (r + alpha * scale), else grad * scale (the out-of-place forms record the C++
    EluBackward0, which takes it from the input)."""

    @staticmethod
    def forward(ctx, x, alpha, scale, input_scale, grad_input_scale):
        out = _elu_value(x, alpha, scale, input_scale)
        ctx.save_for_backward(out)
        ctx.args = (alpha, scale, grad_input_scale)
        return out

    @staticmethod
    def backward(ctx, grad):
        (r,) = ctx.saved_tensors
        alpha, scale, input_scale = ctx.args
        if not alpha >= 0:
            raise RuntimeError(
                "In-place elu backward calculation is triggered with a negative slope which is not "
                "supported. This is caused by calling in-place forward function with a negative slope, "
                "please call out-of-place version instead."
            )
        neg = grad * (input_scale * (r + alpha * scale))
        # NaN takes the negative branch (PyTorch's test is r > 0), so its gradient is NaN
        return _C._where(r > 0, grad * scale, neg), None, None, None, None


def _to_float(v):
    """PyTorch's checked conversion of a coefficient to float: a finite value past float's range is refused
    (an infinite one converts), whatever the input's size"""
    if math.isfinite(v) and abs(v) > _FLOAT_MAX:
        raise RuntimeError("value cannot be converted to type float without overflow")


def _elu(input, alpha, scale, input_scale, inplace, grad_input_scale=None):
    alpha, scale, input_scale = float(alpha), float(scale), float(input_scale)
    if input.dtype != _C.float64:  # the kernel's opmath for float, half and bfloat16 is float
        for v in (alpha, scale, input_scale):
            _to_float(v)
    grad_input_scale = input_scale if grad_input_scale is None else grad_input_scale
    if not (input.requires_grad and _C.is_grad_enabled()):
        out = _elu_value(input, alpha, scale, input_scale)
        return input.copy_(out) if inplace else out
    if not inplace:  # the C++ node (EluBackward0) takes the gradient from the input
        return _C._elu(input, alpha, scale, input_scale, grad_input_scale)
    # the in-place forms compute from a copy (the write must not change what the node reads) and, as PyTorch's
    # in-place kernels, take the gradient from the result
    return input.copy_(_EluFromResult.apply(input.clone(), alpha, scale, input_scale, grad_input_scale))


def elu(input, alpha=1.0, inplace=False):
    _input("elu_" if inplace else "elu", input)
    _number("elu_" if inplace else "elu", "alpha", 2, alpha)
    _floating(input, "elu")
    return _elu(input, alpha, 1.0, 1.0, inplace)


@_argcheck.parses("Tensor input, Scalar alpha=1, Scalar scale=1, Scalar input_scale=1")
def elu_(input, alpha=1.0, scale=1.0, input_scale=1.0):
    """In-place elu (PyTorch's C++ elu_, with its scale and input_scale): writes
    scale * (x if x > 0 else alpha * (exp(x * input_scale) - 1)) into input and returns it."""
    _floating(input, "elu")
    return _elu(input, alpha, scale, input_scale, True)


def celu(input, alpha=1.0, inplace=False):
    _input("celu_" if inplace else "celu", input)
    _number("celu_" if inplace else "celu", "alpha", 2, alpha)
    if alpha == 0:
        raise RuntimeError("ZeroDivisionError: alpha cannot be 0 for CELU")
    _floating(input, "elu")
    # PyTorch's celu is elu with input_scale = 1 / alpha; its backward takes 1 / alpha with alpha rounded to
    # float32 (derivatives.yaml's 1.0 / alpha.toFloat())
    # (an alpha that float32 rounds to zero gives an infinite one, as C++'s float division)
    a = float(alpha)
    if input.dtype == _C.float64 and math.isfinite(a) and abs(a) > _FLOAT_MAX and input.requires_grad:
        # float64 computes with such an alpha (the other dtypes refuse it in _elu), the backward refuses
        out = _CeluFloatOverflow.apply(input, a)
        return input.copy_(out) if inplace else out
    a32 = _struct.unpack("f", _struct.pack("f", a))[0]
    inv32 = 1.0 / a32 if a32 != 0 else math.copysign(math.inf, a32)
    return _elu(input, alpha, 1.0, 1.0 / a, inplace, inv32)


class _CeluFloatOverflow(_Function):
    """celu of a float64 input with an alpha past float32's range: PyTorch computes it, then its backward
    (derivatives.yaml's 1.0 / alpha.toFloat()) refuses to convert alpha"""

    @staticmethod
    def forward(ctx, x, alpha):
        return _elu_value(x, alpha, 1.0, 1.0 / alpha)

    @staticmethod
    def backward(ctx, grad):
        raise RuntimeError("value cannot be converted to type float without overflow")


def celu_(input, alpha=1.0):
    """In-place celu: writes celu(input) into input and returns it."""
    return celu(input, alpha, inplace=True)


_SELU_ALPHA, _SELU_SCALE = 1.6732632423543772848170429916717, 1.0507009873554804934193349852946


def selu(input, inplace=False):
    _input("selu_" if inplace else "selu", input)
    _floating(input, "elu")
    return _elu(input, _SELU_ALPHA, _SELU_SCALE, 1.0, inplace)


def selu_(input):
    """In-place selu: writes selu(input) into input and returns it."""
    return selu(input, inplace=True)


def softplus(input, beta=1.0, threshold=20.0):
    return _C.softplus(input, beta, threshold)


def logsigmoid(input):
    _input("log_sigmoid", input)
    _floating(input, "log_sigmoid")
    # PyTorch's kernel in one pass: min(x, 0) - log1p(exp(-|x|)) (exp never exceeds 1, so float32 keeps the
    # bits that -softplus(-x) loses for negative x); float16/bfloat16 computed in float32 and rounded once
    return _C._log_sigmoid(input)


def softsign(input):
    return input / (1 + input.abs())


def tanhshrink(input):
    return input - input.tanh()  # PyTorch's Python spelling: a plain value fails on .tanh()


_SHRINK_RANGE = {
    _C.float64: ("Double", 1.7976931348623157e308, "1.79769e+308"),
    _C.float32: ("Float", 3.4028234663852886e38, "3.40282e+38"),
    _C.float16: ("Half", 65504.0, "65504"),
    _C.bfloat16: ("BFloat16", 3.3895313892515355e38, "3.38953e+38"),
}


def softshrink(input, lambd=0.5):
    """x - lambd where x > lambd, x + lambd where x < -lambd, x * 0 otherwise (the sign of zero kept)."""
    _input("softshrink", input)
    _number("softshrink", "lambd", 2, lambd)
    lambd = _bound_number(lambd)  # a 0-d tensor is its number: a float32 lambd keeps a float16 input float16
    _floating(input, "softshrink_check", suffix=False)
    kind, hi, hi_text = _SHRINK_RANGE.get(input.dtype, _SHRINK_RANGE[_C.float32])
    if not 0 <= lambd <= hi:  # PyTorch's softshrink_check: NaN and inf refused too
        raise RuntimeError(
            f"lambda must be in range [0, {hi_text}] for input dtype {kind}, but found {float(lambd):g}"
        )
    # one pass (fn::Softshrink); the gradient is 1 outside [-lambd, lambd] (NaN included), 0 inside
    return _C._softshrink(input, float(lambd))


def hardshrink(input, lambd=0.5):
    """x where |x| > lambd, 0 otherwise (NaN stays NaN, as PyTorch's -lambd <= x <= lambd test)."""
    _input("hardshrink", input)
    _number("hardshrink", "lambd", 2, lambd)
    lambd = _bound_number(lambd)
    _floating(input, "hardshrink")
    # the gradient passes where x < -lambd or x > lambd, PyTorch's vectorized backward: with a NaN lambd the
    # value is x (no element is inside the band) but no gradient passes (its scalar tail would pass it)
    if _fits_kernel(input, lambd):
        return _C._hardshrink(input, float(lambd))
    _C._check_scalar_fits(lambd, input.dtype)
    keep = (input < -lambd) | (input > lambd)
    return _C._where((input >= -lambd) & (input <= lambd), 0.0, _C._where(keep, input, input.detach()))


def glu(input, dim=-1):
    if input.dim():
        input.size(dim)  # PyTorch wraps dim first: its IndexError before any dtype or size check
    if input.dtype in (_C.int64, _C.int32, _C.int16, _C.int8, _C.bool):  # uint8 fails the halving check first
        _floating(input, "glu")
    if input.dim() == 0:
        raise RuntimeError("glu does not support scalars because halving size must be even")
    if input.shape[dim] % 2:
        raise RuntimeError(
            f"Halving dimension must be even, but dimension {dim % input.dim()} is size {input.shape[dim]}"
        )
    if not input.is_floating_point():  # uint8 reaches the kernel's dtype check after the halving one
        _floating(input, "glu")
    a, b = input.chunk(2, dim)
    return a * _C.sigmoid(b)


def _softmax_dim(name, ndim, stacklevel):
    # PyTorch's _get_softmax_dim: the caller's _stacklevel as given (None raises in warnings.warn, as there)
    warnings.warn(
        f"Implicit dimension choice for {name} has been deprecated. Change the call to include dim=X as an "
        "argument.",
        stacklevel=stacklevel,
    )
    return 0 if ndim in (0, 1, 3) else 1


def softmax(input, dim=None, _stacklevel=3, dtype=None):
    if dim is None:
        dim = _softmax_dim("softmax", input.dim(), _stacklevel)
    return input.softmax(dim, dtype=dtype)  # the method, as PyTorch's F (AttributeError for a non-tensor)


def softmin(input, dim=None, _stacklevel=3, dtype=None):
    if dim is None:
        dim = _softmax_dim("softmin", input.dim(), _stacklevel)
    return (-input).softmax(dim, dtype=dtype)


def log_softmax(input, dim=None, _stacklevel=3, dtype=None):
    if dim is None:
        dim = _softmax_dim("log_softmax", input.dim(), _stacklevel)
    return input.log_softmax(dim, dtype=dtype)


def gumbel_softmax(logits, tau=1.0, hard=False, eps=1e-10, dim=-1):
    """Samples from the Gumbel-softmax distribution; hard=True returns one-hot samples whose gradient is the
    soft sample's (straight-through)."""
    if eps != 1e-10:
        warnings.warn("`eps` parameter is deprecated and has no effect.", stacklevel=2)
    if not isinstance(logits, _C.Tensor):  # PyTorch's first use of it
        _argcheck.check_tensor("empty_like", "input", 1, logits)
    if logits.is_floating_point():
        # -log(Exp(1)) is Gumbel(0, 1); Exp(1) = -log(U), U kept off 0 so the sample stays finite
        u = _C.empty_like(logits).uniform_(1e-20 if logits.dtype == _C.float64 else 1e-38, 1.0)
        gumbels = -_C.log(-_C.log(u))
    else:  # PyTorch's draw: exponential_ refuses these dtypes unless there is nothing to draw (then, empty)
        gumbels = -_C.log(_C.empty_like(logits).exponential_())
    y_soft = _C.softmax((logits + gumbels) / tau, dim)
    if not hard:
        return y_soft
    index = y_soft.max(dim, keepdim=True)[1]  # (PyTorch's: its errors for an empty dim or complex input)
    y_hard = _C.zeros_like(logits).scatter_(dim, index, 1.0)
    return y_hard - y_soft.detach() + y_soft


# PyTorch's TypeError for an argument of the wrong kind, on the error path only (minitorch/_argcheck.py).
# These are C++ ops in PyTorch (its parser checks every kind)...
_argcheck.translate_module(
    globals(),
    ["celu_", "elu_", "hardshrink", "hardtanh_", "leaky_relu_", "logsigmoid", "prelu", "rrelu_", "selu_",
     "softplus", "softshrink", "threshold_"],
)  # fmt: skip


# ...rrelu is Python that hands the tensors and numbers straight to a C++ op (a bool is only a truth value)...
_argcheck.translate_module(globals(), ["rrelu"], checks="numbers")


# ...and these hand their tensors to a C++ op but test their numbers in Python first.
_argcheck.translate_module(globals(), ["selu", "celu"], checks="tensors")
