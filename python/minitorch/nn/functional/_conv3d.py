"""nn.functional's 3-D convolutions and pools, composed from the 2-D primitives (the C++ conv/pool ops are 2-D).
(max_unpool3d, a scatter with no 2-D kernel under it, sits beside max_unpool2d in _pooling.py.)

How each op reduces to 2-D work, batched over every output depth at once (no Python loop over batch elements
or output positions):

- conv3d folds the kernel's depth taps into the channel dim. The input slices every output depth reads
  (depth od*stride + kd*dilation - pad for each tap kd) are gathered with one index_select into an
  [N*Dout, g*KD*C/g, H, W] batch, and one conv2d with the weight laid out as [O, KD*C/g, KH, KW] computes all
  depths and taps (each group keeps its own channel block). Depth padding is a zero slice the gather points at.
- conv_transpose3d runs one conv_transpose2d over the [N*D, C, H, W] slices whose output channels hold the
  depth taps, then adds each tap's plane into output depth d*stride + kd*dilation - pad with one index_add.
- max/avg/adaptive/lp pools run the 2-D pool over (H, W) on the depth-stacked slices [N*C, D, H, W], then reduce
  over depth windows gathered by an index table. A table row lists its window's valid depths first and fill
  slots (-inf or 0) after, so max(dim)'s first-index choice keeps PyTorch's first-in-scan-order argmax even
  when the input holds -inf; returned indices are flat into D*H*W as PyTorch's.

Autograd comes from conv2d/conv_transpose2d/pool2d's derivatives and index_select/index_add's. Integer dtypes,
which the 2-D kernels refuse but PyTorch's 3-D CPU kernels accept, take exact int64 paths over unfolded
windows (no gradient needed there). A native oneDNN/cuDNN 3-D kernel is future C++ work; these functions keep
PyTorch's argument checks and messages so swapping the kernel in changes nothing visible."""

import collections.abc
import operator
import warnings

from minitorch import _C, _argcheck
from minitorch._creation import tensor as _tensor
from minitorch._dtype_names import cpp_name, scalar_name
from minitorch.autograd.function import Function as _Function

_nn = _C._nn

__all__ = [
    "adaptive_avg_pool3d",
    "avg_pool3d",
    "conv3d",
    "conv_transpose3d",
    "lp_pool3d",
    "max_pool3d",
]


# ---------------------------------------------------------------------------------------------- arguments
def _ints(value, fn, name):
    """PyTorch's parser for an int-list argument of a 3-D op: an int stands for three, a sequence passes as
    given (its length is checked by the op, with the op's own words)."""
    if isinstance(value, bool) or not isinstance(value, (int, tuple, list)):
        try:
            return [operator.index(value)] * 3
        except TypeError:
            raise TypeError(
                f"{fn}(): argument '{name}' must be tuple of ints, not {type(value).__name__}"
            ) from None
    if isinstance(value, int):
        return [value] * 3
    out = []
    for i, e in enumerate(value):
        try:
            out.append(operator.index(e))
        except TypeError:
            raise TypeError(
                f"{fn}(): argument '{name}' must be tuple of ints, but found element of type "
                f"{type(e).__name__} at pos {i}"
            ) from None
    return out


def _expand(values, k, name):
    """PyTorch's expand_param_if_needed: one value or k values for the k spatial dims of the weight."""
    if len(values) == 1:
        return values * k
    if len(values) != k:
        raise RuntimeError(
            f"expected {name} to be a single integer value or a list of {k} values to match the convolution "
            f"dimensions, but got {name}={list(values)}"
        )
    return list(values)


def _batched(input, fn):
    """input as a 5-D batch, and whether it came batched (conv3d's rank rule and message)."""
    if input.dim() not in (4, 5):
        raise RuntimeError(
            f"Expected 4D (unbatched) or 5D (batched) input to {fn}, but got input of size: {list(input.shape)}"
        )
    return (input, True) if input.dim() == 5 else (input.unsqueeze(0), False)


def _autocast(x, weight, bias):
    """Inside autocast, the conv operands in its lower precision (the 2-D ops below would cast them too, but
    the 3-D checks compare dtypes first)."""
    dev = "cuda" if x.is_cuda else "cpu"
    if not _C._is_autocast_enabled(dev):
        return x, weight, bias
    dt = _C._get_autocast_dtype(dev)

    def cast(t):
        return t.to(dt) if isinstance(t, _C.Tensor) and t.is_floating_point() else t

    return cast(x), cast(weight), cast(bias)


def _sizes(t):
    return list(t.shape)


def _x(sizes):
    return " x ".join(str(s) for s in sizes)


def _pad3(x, pads, value=0):
    """x padded with value (cropped where negative) on its last three dims by pads, (lo, hi) per dim in
    (D, H, W) order: F.pad's constant mode, written here because functional imports this module."""
    for i, (lo, hi) in enumerate(pads):
        dim = x.dim() - 3 + i
        if lo < 0:
            x, lo = x.narrow(dim, -lo, x.shape[dim] + lo), 0
        if hi < 0:
            x, hi = x.narrow(dim, 0, x.shape[dim] + hi), 0
        parts = []
        for width in (lo, None, hi):
            if width is None:
                parts.append(x)
            elif width:
                shape = list(x.shape)
                shape[dim] = width
                parts.append(_C.full(shape, value, dtype=x.dtype, device=x.device))
        if len(parts) > 1:
            x = _C.cat(parts, dim)
    return x


# ------------------------------------------------------------------------------------ conv3d: checks
def _check_conv_shapes(x, weight, bias, stride, padding, dilation, groups, transposed, output_padding=None):
    """PyTorch's check_shape_forward, in its order and words."""
    if any(p < 0 for p in padding):
        raise RuntimeError("negative padding is not supported")
    if output_padding is not None and any(p < 0 for p in output_padding):
        raise RuntimeError("negative output_padding is not supported")
    if any(s <= 0 for s in stride):
        raise RuntimeError("non-positive stride is not supported")
    if any(d < 0 for d in dilation):
        raise RuntimeError("dilation should be greater than zero")
    ws = _sizes(weight)
    if weight.dim() != x.dim():
        raise RuntimeError(
            f"Expected {weight.dim()}-dimensional input for {weight.dim()}-dimensional weight {ws}, but got "
            f"{x.dim()}-dimensional input of size {_sizes(x)} instead"
        )
    if ws[0] < groups:
        raise RuntimeError(
            f"Given groups={groups}, expected weight to be at least {groups} at dimension 0, but got weight of "
            f"size {ws} instead"
        )
    if ws[0] % groups:
        raise RuntimeError(
            f"Given groups={groups}, expected weight to be divisible by {groups} at dimension 0, but got weight "
            f"of size [{ws}] instead"
        )
    if not transposed:
        if x.shape[1] != ws[1] * groups:
            raise RuntimeError(
                f"Given groups={groups}, weight of size {ws}, expected input{_sizes(x)} to have "
                f"{ws[1] * groups} channels, but got {x.shape[1]} channels instead"
            )
        if bias is not None and (bias.dim() != 1 or bias.shape[0] != ws[0]):
            raise RuntimeError(
                f"Given weight of size {ws}, expected bias to be 1-dimensional with {ws[0]} elements, but got "
                f"bias of size {_sizes(bias)} instead"
            )
        padded = [x.shape[2 + i] + 2 * padding[i] for i in range(3)]
        kernel = [dilation[i] * (ws[2 + i] - 1) + 1 for i in range(3)]
        if any(p < k for p, k in zip(padded, kernel)):
            raise RuntimeError(
                f"Calculated padded input size per channel: ({_x(padded)}). Kernel size: ({_x(kernel)}). "
                "Kernel size can't be greater than actual input size"
            )
    else:
        if x.shape[1] != ws[0]:
            raise RuntimeError(
                f"Given transposed=1, weight of size {ws}, expected input{_sizes(x)} to have {ws[0]} channels, "
                f"but got {x.shape[1]} channels instead"
            )
        if bias is not None and (bias.dim() != 1 or bias.shape[0] != ws[1] * groups):
            raise RuntimeError(
                f"Given transposed=1, weight of size {ws}, expected bias to be 1-dimensional with "
                f"{ws[1] * groups} elements, but got bias of size {_sizes(bias)} instead"
            )


def _empty_backend_dtypes(x, weight, bias):
    """PyTorch's empty-input backend multiplies instead of convolving: no kernel refuses a weight of another
    dtype, the result takes the product's dtype (the whole weight's promotion with a zero-channel input, the
    first element's, a 0-d operand, otherwise); all three are cast to it (differentiably) for the usual path."""
    if x.numel() or x.dtype == weight.dtype or x.device != weight.device:
        return x, weight, bias
    dt = (
        _C.promote_types(x.dtype, weight.dtype)
        if x.shape[1] == 0
        else _C.result_type(x, weight.reshape(-1)[0])
    )
    return x.to(dt), weight.to(dt), None if bias is None else bias.to(dt)


def _check_empty(x):
    if x.numel() == 0 and x.shape[0] != 0 and x.shape[1] != 0:
        raise RuntimeError(
            f"Only zero batch or zero channel inputs are supported, but got input shape: {_sizes(x)}"
        )


_LEGACY_TYPE_NAMES = {_C.uint8, _C.int8, _C.int16, _C.int32, _C.int64, _C.float16, _C.float32, _C.float64}


def _error_type(t):
    """A tensor type as PyTorch's error messages print it: the legacy class name ("torch.FloatTensor") for the
    eight types that have one, Tensor::toString's "CPUComplexFloatType" otherwise (csrc's error_type_name)."""
    if t.dtype in _LEGACY_TYPE_NAMES:
        return t.type()
    return f"{'CUDA' if t.is_cuda else 'CPU'}{scalar_name(t.dtype)}Type"


def _complex_conv(x, weight, bias, conv):
    """PyTorch's complex convolution: three real ones over the parts (Gauss's trick, as csrc's complex_conv),
    the bias's parts added after; differentiable, as it is made of differentiable ops."""
    xr, xi, wr, wi = x.real, x.imag, weight.real, weight.imag
    a, b, c = conv(xr, wr), conv(xi, wi), conv(xr + xi, wr + wi)
    re, im = a - b, c - a - b
    if bias is not None:
        shape = (1, -1) + (1,) * (re.dim() - 2)
        re, im = re + bias.real.reshape(shape), im + bias.imag.reshape(shape)
    return _C._complex(re, im)


def _check_conv_types(x, weight, bias, transposed, stride, dilation, groups):
    """The type checks of PyTorch's CPU backends: oneDNN's where PyTorch would pick it (_C._conv_picks_onednn:
    float32 unless its heuristics prefer the native kernel), slow_conv3d's otherwise; a complex input's are its
    complex path's (the same-type message)."""
    onednn = x.dtype == _C.float32 and _C._conv_picks_onednn(x, weight, stride, dilation, groups)
    if x.dtype != weight.dtype or x.device != weight.device:
        if x.is_complex() and x.device == weight.device:
            raise RuntimeError(
                f"Input type ({_error_type(x)}) and weight type ({_error_type(weight)}) should be the same"
            )
        if onednn or x.device != weight.device:
            raise RuntimeError(
                f"Input type ({_error_type(x)}) and weight type ({_error_type(weight)}) should be the same or "
                "input should be a MKLDNN tensor and weight is a dense tensor"
            )
        raise RuntimeError(
            f"expected scalar type {scalar_name(x.dtype)} but found {scalar_name(weight.dtype)}"
        )
    if bias is not None and (x.dtype != bias.dtype or x.device != bias.device):
        if transposed and onednn:
            raise RuntimeError(
                f"Input type ({_error_type(x)}) and bias type ({_error_type(bias)}) should be the same or input "
                "should be a MKLDNN tensor and bias is a dense tensor"
            )
        if transposed and not x.is_cuda and x.device == bias.device:  # slow_conv_transpose3d's own check
            raise RuntimeError(
                f"expected scalar type {scalar_name(x.dtype)} but found {scalar_name(bias.dtype)}"
            )
        raise RuntimeError(
            f"Input type ({cpp_name(x.dtype)}) and bias type ({cpp_name(bias.dtype)}) should be the same"
        )


def _check_conv_kernel_dtype(x, transposed):
    """NotImplementedError for the dtypes PyTorch's 3-D kernels lack (CPU: bool for conv3d; everything but
    floating types and int64 for conv_transpose3d)."""
    dt = x.dtype
    if x.numel() == 0:  # PyTorch's empty-input backend runs no kernel
        return
    if transposed and not (dt.is_floating_point or dt == _C.int64):
        dev = "cuda" if x.is_cuda else "cpu"
        raise NotImplementedError(
            f"\"slow_conv_transpose3d_out_{dev}\" not implemented for '{scalar_name(dt)}'"
        )
    if not transposed and dt == _C.bool:
        raise NotImplementedError(f"\"compute_columns3d\" not implemented for '{scalar_name(dt)}'")


# ------------------------------------------------------------------------------- gathering along a dim
def _gather(x, dim, table, fill):
    """x's slices along dim in the order of table (a list of rows of indices; the index x.shape[dim] stands
    for a slice of `fill`), flattened into dim. The identity table returns x itself."""
    n = x.shape[dim]
    flat = [i for row in table for i in row]
    if flat == list(range(n)):
        return x
    if n in flat:
        shape = list(x.shape)
        shape[dim] = 1
        x = _C.cat([x, _C.full(shape, fill, dtype=x.dtype, device=x.device)], dim)
    return x.index_select(dim, _tensor(flat, dtype=_C.int64, device=x.device))


# ------------------------------------------------------------------------------------------- conv3d
def conv3d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """3-D convolution over an (N, C, D, H, W) or unbatched (C, D, H, W) input, PyTorch's F.conv3d.

    Composed from one conv2d: the kernel's depth taps are folded into the channel dim (see this module's
    docstring); a native oneDNN/cuDNN 3-D kernel is future C++ work. padding may be 'same' or 'valid'."""
    x, batched = _batched(input, "conv3d")
    x, weight, bias = _autocast(x, weight, bias)
    stride = _ints(stride, "conv3d", "stride")
    dilation = _ints(dilation, "conv3d", "dilation")
    if isinstance(padding, str):
        if padding not in ("same", "valid"):
            raise RuntimeError(f"Invalid padding string: '{padding}'")
        if padding == "same":
            lo, hi = _same_padding(x, weight, stride, dilation, groups)
        else:
            lo = hi = [0]
    else:
        lo = hi = _ints(padding, "conv3d", "padding")
    if weight.dim() < 3:
        raise RuntimeError("weight should have at least three dimensions")
    if groups <= 0:
        raise RuntimeError("non-positive groups is not supported")
    k = weight.dim() - 2
    stride = _expand(stride, k, "stride")
    lo = _expand(lo, k, "padding")
    hi = _expand(hi, k, "padding")
    dilation = _expand(dilation, k, "dilation")
    # asymmetric ('same' with an even kernel) checks as PyTorch's padded copy: the smaller side as padding
    sym = [min(a, b) for a, b in zip(lo, hi)]
    extra = [(a - s, b - s) for a, b, s in zip(lo, hi, sym)]
    xs = _pad3(x, extra) if any(a or b for a, b in extra) else x
    _check_conv_shapes(xs, weight, bias, stride, sym, dilation, groups, False)
    _check_empty(xs)
    xs, weight, bias = _empty_backend_dtypes(xs, weight, bias)
    _check_conv_types(xs, weight, bias, False, stride, dilation, groups)
    if any(d == 0 for d in dilation):
        raise RuntimeError("non-positive dilation is not supported")
    if xs.is_complex():
        out = _complex_conv(xs, weight, bias, lambda a, w: conv3d(a, w, None, stride, sym, dilation, groups))
        return out if batched else out.squeeze(0)
    _check_conv_kernel_dtype(xs, False)
    if xs.shape[1] == 0:
        # PyTorch's empty-input backend answers a zero-channel input with zero output channels
        out_sz = [
            (xs.shape[2 + i] + 2 * sym[i] - dilation[i] * (weight.shape[2 + i] - 1) - 1) // stride[i] + 1
            for i in range(3)
        ]
        out = xs.reshape(-1)[:0].reshape(xs.shape[0], 0, *out_sz)
    elif xs.numel() == 0 and not xs.dtype.is_floating_point:  # no kernel (nor gradient) for an empty batch
        out_sz = [
            (xs.shape[2 + i] + 2 * sym[i] - dilation[i] * (weight.shape[2 + i] - 1) - 1) // stride[i] + 1
            for i in range(3)
        ]
        out = _C.empty((0, weight.shape[0], *out_sz), dtype=xs.dtype, device=xs.device)
    elif not xs.dtype.is_floating_point:
        out = _conv3d_int(xs, weight, bias, stride, sym, dilation, groups)
    else:
        out = _conv3d_float(xs, weight, bias, stride, sym, dilation, groups)
    return out if batched else out.squeeze(0)


def _same_padding(x, weight, stride, dilation, groups):
    """PyTorch's convolution_same: its checks, then the (left, right) padding keeping the input size; the
    odd remainder goes right (with PyTorch's warning, as its padded copy of the input)."""
    if weight.dim() < 3:
        raise RuntimeError("weight should have at least three dimensions")
    if groups <= 0:
        raise RuntimeError("non-positive groups is not supported")
    k = weight.dim()
    if k != x.dim():
        raise RuntimeError(
            f"Expected {k}-dimensional input for {k}-dimensional weight{_sizes(weight)}, but got "
            f"{x.dim()}-dimensional input of size {_sizes(x)} instead"
        )
    if len(stride) not in (1, 3):
        raise RuntimeError("stride cannot broadcast to 3 dimensions")
    if len(dilation) not in (1, 3):
        raise RuntimeError("dilation cannot broadcast to 3 dimensions")
    if any(s != 1 for s in stride):
        raise RuntimeError("padding='same' is not supported for strided convolutions")
    dil = dilation * 3 if len(dilation) == 1 else dilation
    total = [d * (weight.shape[2 + i] - 1) for i, d in enumerate(dil)]
    lo = [t // 2 for t in total]
    hi = [t - t // 2 for t in total]
    if lo != hi:
        warnings.warn(
            "Using padding='same' with even kernel lengths and odd dilation may require a zero-padded copy of "
            "the input be created",
            stacklevel=3,
        )
    return lo, hi


def _conv3d_float(x, weight, bias, stride, padding, dilation, groups):
    n, c, d, h, w = x.shape
    o, cg, kd, kh, kw = weight.shape
    sd, pd, dd = stride[0], padding[0], dilation[0]
    do = (d + 2 * pd - dd * (kd - 1) - 1) // sd + 1
    table = []
    for od in range(do):
        row = [od * sd + t * dd - pd for t in range(kd)]
        table.append([i if 0 <= i < d else d for i in row])
    # -> [N*Do, g*KD*C/g, H, W]: each group's channel block holds its taps in (kd, c) order. One group: the
    # gather from the depth-major view lands in that layout already (one copy, not two).
    if groups == 1:
        xg = _gather(x.permute(0, 2, 1, 3, 4), 1, table, 0).reshape(n * do, kd * c, h, w)
    else:
        xg = _gather(x, 2, table, 0)
        xg = (
            xg.reshape(n, groups, cg, do, kd, h, w).permute(0, 3, 1, 4, 2, 5, 6).reshape(n * do, c * kd, h, w)
        )
    w2 = weight.permute(0, 2, 1, 3, 4).reshape(o, kd * cg, kh, kw)
    out = _nn.conv2d(xg, w2, bias, stride[1:], padding[1:], dilation[1:], groups)
    ho, wo = out.shape[-2:]
    return out.reshape(n, do, o, ho, wo).permute(0, 2, 1, 3, 4).contiguous()


def _windows(x, k, s, d, out):
    """x's sliding windows over its last three dims (already padded): shape x.shape[:-3] + out + k."""
    u = x
    for i in range(3):
        dim = x.dim() - 3 + i
        u = u.unfold(dim, d[i] * (k[i] - 1) + 1, s[i]).narrow(dim, 0, out[i])
    return u[..., :: d[0], :: d[1], :: d[2]]


def _conv3d_int(x, weight, bias, stride, padding, dilation, groups):
    """Integer conv3d, exact with PyTorch's wrap-around: products summed in int64 (a ring map onto every
    narrower integer type), cast back."""
    n = x.shape[0]
    o, cg, kd, kh, kw = weight.shape
    ks = (kd, kh, kw)
    out_sz = [
        (x.shape[2 + i] + 2 * padding[i] - dilation[i] * (ks[i] - 1) - 1) // stride[i] + 1 for i in range(3)
    ]
    xp = _pad3(x.to(_C.int64), [(p, p) for p in padding])
    u = _windows(xp, ks, stride, dilation, out_sz).reshape(n, groups, cg, *out_sz, kd, kh, kw)
    wt = weight.to(_C.int64).reshape(groups, o // groups, cg, kd, kh, kw)
    out = _C.einsum("ngcdhwijk,gocijk->ngodhw", u, wt).reshape(n, o, *out_sz)
    if bias is not None:
        out = out + bias.to(_C.int64).reshape(1, o, 1, 1, 1)
    return out.to(x.dtype)


# --------------------------------------------------------------------------------- conv_transpose3d
def conv_transpose3d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    """3-D transposed convolution (the gradient of conv3d with respect to its input), PyTorch's
    F.conv_transpose3d, over an (N, C, D, H, W) or unbatched (C, D, H, W) input.

    Composed from one conv_transpose2d whose output channels carry the depth taps and one index_add that
    places them along depth; a native oneDNN/cuDNN 3-D kernel is future C++ work."""
    x, batched = _batched(input, "conv_transpose3d")
    x, weight, bias = _autocast(x, weight, bias)
    fn = "conv_transpose3d"
    if isinstance(padding, str):
        raise TypeError(f"{fn}(): argument 'padding' must be tuple of ints, not str")
    stride, padding = _ints(stride, fn, "stride"), _ints(padding, fn, "padding")
    output_padding, dilation = _ints(output_padding, fn, "output_padding"), _ints(dilation, fn, "dilation")
    if weight.dim() < 3:
        raise RuntimeError("weight should have at least three dimensions")
    if groups <= 0:
        raise RuntimeError("non-positive groups is not supported")
    k = weight.dim() - 2
    stride, padding = _expand(stride, k, "stride"), _expand(padding, k, "padding")
    dilation, output_padding = _expand(dilation, k, "dilation"), _expand(output_padding, k, "output_padding")
    _check_conv_shapes(x, weight, bias, stride, padding, dilation, groups, True, output_padding)
    _check_empty(x)
    x, weight, bias = _empty_backend_dtypes(x, weight, bias)
    if any(not (op < s or op < d) for op, s, d in zip(output_padding, stride, dilation)):
        names = ("depth", "height", "width")
        parts = [f"output_padding_{nm}: {v}" for nm, v in zip(names, output_padding)]
        parts += [f"stride_{nm}: {v}" for nm, v in zip(names, stride)]
        parts += [f"dilation_{nm}: {v}" for nm, v in zip(names, dilation)]
        raise RuntimeError(
            "output padding must be smaller than either stride or dilation, but got " + " ".join(parts)
        )
    spatial = [x.shape[2 + i] for i in range(3)]
    out_sz = [
        (spatial[i] - 1) * stride[i] - 2 * padding[i] + dilation[i] * (weight.shape[2 + i] - 1)
        + output_padding[i] + 1
        for i in range(3)
    ]  # fmt: skip
    if any(s < 1 for s in out_sz):
        raise RuntimeError(
            f"Given input size per channel: ({_x(spatial)}). Calculated output size per channel: "
            f"({_x(out_sz)}). Output size is too small"
        )
    if any(d == 0 for d in dilation):
        raise RuntimeError("dimensions are invalid")
    _check_conv_types(x, weight, bias, True, stride, dilation, groups)
    if x.is_complex():
        out = _complex_conv(
            x,
            weight,
            bias,
            lambda a, w: conv_transpose3d(a, w, None, stride, padding, output_padding, groups, dilation),
        )
        return out if batched else out.squeeze(0)
    _check_conv_kernel_dtype(x, True)
    if x.numel() == 0 and not x.dtype.is_floating_point:  # no kernel (nor gradient) for an empty batch
        out = _C.empty((0, weight.shape[1] * groups, *out_sz), dtype=x.dtype, device=x.device)
    elif not x.dtype.is_floating_point:
        out = _conv_transpose3d_int(x, weight, bias, stride, padding, output_padding, groups, dilation)
    else:
        out = _conv_transpose3d_float(
            x, weight, bias, stride, padding, output_padding, groups, dilation, out_sz
        )
    return out if batched else out.squeeze(0)


def _conv_transpose3d_float(x, weight, bias, stride, padding, output_padding, groups, dilation, out_sz):
    n, cin, d, h, w = x.shape
    _, cog, kd, kh, kw = weight.shape
    sd, pd, dd = stride[0], padding[0], dilation[0]
    do = out_sz[0]
    x2 = x.permute(0, 2, 1, 3, 4).reshape(n * d, cin, h, w)
    # each group's output channel block holds its taps in (kd, c) order
    w2 = weight.permute(0, 2, 1, 3, 4).reshape(cin, kd * cog, kh, kw)
    y = _nn.conv_transpose2d(x2, w2, None, stride[1:], padding[1:], output_padding[1:], groups, dilation[1:])
    ho, wo = y.shape[-2:]
    cout = groups * cog
    y = y.reshape(n, d, groups, kd, cog, ho, wo).permute(0, 2, 4, 1, 3, 5, 6).reshape(n, cout, d * kd, ho, wo)
    target = [i * sd + t * dd - pd for i in range(d) for t in range(kd)]
    if target == list(range(do)):
        out = y
    else:
        # taps that land in the cropped padding go to a spare slot past the end, dropped after
        spare = any(not 0 <= t < do for t in target)
        idx = _tensor([t if 0 <= t < do else do for t in target], dtype=_C.int64, device=y.device)
        out = _C.zeros((n, cout, do + spare, ho, wo), dtype=y.dtype, device=y.device).index_add(2, idx, y)
        if spare:
            out = out.narrow(2, 0, do)
    # contiguous first, as PyTorch's kernel returns: the bias sum would keep a permuted layout
    out = out.contiguous()
    if bias is not None:
        return out + bias.to(out.dtype).reshape(1, cout, 1, 1, 1)
    return out


def _conv_transpose3d_int(x, weight, bias, stride, padding, output_padding, groups, dilation):
    """int64 conv_transpose3d as the direct convolution it is: the input spread out by stride, padded by
    dilation*(k-1) - padding (negative crops), convolved with the flipped, in/out-swapped weight."""
    n, cin = x.shape[:2]
    _, cog, kd, kh, kw = weight.shape
    ks = (kd, kh, kw)
    spread = [(x.shape[2 + i] - 1) * stride[i] + 1 for i in range(3)]
    xs = _C.zeros((n, cin, *spread), dtype=x.dtype, device=x.device)
    xs[:, :, :: stride[0], :: stride[1], :: stride[2]] = x
    edges = [dilation[i] * (ks[i] - 1) - padding[i] for i in range(3)]
    xs = _pad3(xs, [(e, e + op) for e, op in zip(edges, output_padding)])
    wt = weight.reshape(groups, cin // groups, cog, kd, kh, kw).transpose(1, 2)
    wt = wt.reshape(groups * cog, cin // groups, kd, kh, kw).flip([2, 3, 4])
    return _conv3d_int(xs, wt, bias, [1, 1, 1], [0, 0, 0], dilation, groups)


# ----------------------------------------------------------------------------------------------- pools
def _pool_ints(value, fn, name, allow_empty, msg):
    v = _ints(value, fn, name)
    if not ((allow_empty and len(v) == 0) or len(v) in (1, 3)):
        raise RuntimeError(msg)
    return v


def _three(v, default=None):
    if not v:
        return list(default)
    return v * 3 if len(v) == 1 else list(v)


def _trunc_half(a):
    return int(a / 2)  # C++ integer division of a possibly negative value


def _pool_out(n, k, p, s, d, ceil_mode):
    """PyTorch's pooling_output_shape, its checks included."""
    if s == 0:
        raise RuntimeError("stride should not be zero")
    if p < 0:
        raise RuntimeError(f"pad must be non-negative, but got pad: {p}")
    if p > _trunc_half((k - 1) * d + 1):
        raise RuntimeError(
            f"pad should be at most half of effective kernel size, but got pad={p}, kernel_size={k} and "
            f"dilation={d}"
        )
    o = (n + 2 * p - d * (k - 1) - 1 + (s - 1 if ceil_mode else 0)) // s + 1
    if ceil_mode and (o - 1) * s >= n + p:
        o -= 1
    return o


def _pool_args(input, fn, kernel_size, stride, padding, dilation, ceil_mode, avg):
    """Parses and checks a 3-D pool's arguments in PyTorch's order; returns (k, s, p, d, output sizes)."""
    if avg:
        k = _pool_ints(
            kernel_size,
            fn,
            "kernel_size",
            False,
            "avg_pool3d: kernel_size must be a single int, or a tuple of three ints",
        )
        s = _pool_ints(
            [] if stride is None else stride,
            fn,
            "stride",
            True,
            "avg_pool3d: stride must be omitted, a single int, or a tuple of three ints",
        )
        p = _pool_ints(
            padding,
            fn,
            "padding",
            False,
            "avg_pool3d: padding must be a single int, or a tuple of three ints",
        )
        d = [1]
    else:
        k = _pool_ints(
            kernel_size,
            fn,
            "kernel_size",
            False,
            "max_pool3d: kernel_size must either be a single int, or a tuple of three ints",
        )
        s = _pool_ints(
            [] if stride is None else stride,
            fn,
            "stride",
            True,
            "max_pool3d: stride must either be omitted, a single int, or a tuple of three ints",
        )
        p = _pool_ints(
            padding,
            fn,
            "padding",
            False,
            "max_pool3d: padding must either be a single int, or a tuple of three ints",
        )
        d = _pool_ints(
            dilation,
            fn,
            "dilation",
            False,
            "max_pool3d: dilation must be either a single int, or a tuple of three ints",
        )
    k = _three(k)
    s = _three(s, k)
    p, d = _three(p), _three(d)
    if input.dim() not in (4, 5):
        raise RuntimeError("non-empty 4D or 5D (batch mode) tensor expected for input")
    return k, s, p, d


def _pool_shape_check(input, fn, k, s, p, d, out, check_input_size):
    """PyTorch's pool3d_shape_check (after the output sizes are computed)."""
    if not all(v > 0 for v in k):
        raise RuntimeError(
            f"kernel size should be greater than zero, but got kT: {k[0]} kH: {k[1]} kW: {k[2]}"
        )
    if not all(v > 0 for v in s):
        raise RuntimeError(f"stride should be greater than zero, but got dT: {s[0]} dH: {s[1]} dW: {s[2]}")
    if not all(v > 0 for v in d):
        raise RuntimeError(
            f"dilation should be greater than zero, but got dilationT: {d[0]} dilationH: {d[1]} dilationW: {d[2]}"
        )
    _check_nonempty(input, fn, input.dim() - 4)
    sp = list(input.shape[-3:])
    if check_input_size and not all(sp[i] >= k[i] for i in range(3)):
        raise RuntimeError(
            f"input image (T: {sp[0]} H: {sp[1]} W: {sp[2]}) smaller than kernel size (kT: {k[0]} kH: {k[1]} "
            f"kW: {k[2]})"
        )
    if not all(_trunc_half(k[i]) >= p[i] for i in range(3)):
        raise RuntimeError(
            f"pad should be smaller than or equal to half of kernel size, but got kT: {k[0]} kW: {k[2]} "
            f"kH: {k[1]} padT: {p[0]} padW: {p[2]} padH: {p[1]}"
        )
    if not all(o >= 1 for o in out):
        c = input.shape[-4]
        raise RuntimeError(
            f"Given input size: ({c}x{sp[0]}x{sp[1]}x{sp[2]}). Calculated output size: "
            f"({c}x{out[0]}x{out[1]}x{out[2]}). Output size is too small"
        )


def _check_nonempty(input, fn, first):
    """PyTorch's 'non-zero size for non-batch dimensions' check over dims first..end."""
    for i in range(first, input.dim()):
        if input.shape[i] == 0:
            raise RuntimeError(
                f"{fn}: Expected input to have non-zero size for non-batch dimensions, but input has sizes "
                f"{_sizes(input)} with dimension {i} being empty"
            )


def _depth_tables(n, k, s, p, d, o, count_include_pad=True):
    """For each output depth: its window's valid input depths first, then fill slots (index n) up to k; and
    the avg_pool3d divisor along depth (PyTorch's pool_size when count_include_pad, else the valid count)."""
    table, count = [], []
    for od in range(o):
        start = od * s - p
        valid = [start + t * d for t in range(k) if 0 <= start + t * d < n]
        table.append(valid + [n] * (k - len(valid)))
        end = min(start + k, n + p)
        count.append(end - start if count_include_pad else len(valid))
    return table, count


def _adaptive_tables(n, o):
    """Adaptive windows [floor(i*n/o), ceil((i+1)*n/o)) as index rows padded with n, and their lengths."""
    starts = [(i * n) // o for i in range(o)]
    ends = [-((-(i + 1) * n) // o) for i in range(o)]
    width = max((e - b for b, e in zip(starts, ends)), default=0)
    table = [list(range(b, e)) + [n] * (width - (e - b)) for b, e in zip(starts, ends)]
    return table, [e - b for b, e in zip(starts, ends)]


def _depth_max(y, table, with_index):
    """Max over depth windows of y [B, D, ...] given by table; with the window-local argmax, where a NaN
    wins and among NaNs the last (PyTorch's `val > max || isnan(val)` scan)."""
    width = len(table[0]) if table else 0
    g = _gather(y, 1, table, float("-inf"))
    g = g.reshape(y.shape[0], len(table), width, *y.shape[2:])
    vals, arg = g.max(2)
    if with_index and y.is_floating_point():
        nan = g.isnan()
        pos = _C.arange(width, device=y.device).reshape(1, 1, width, *([1] * (y.dim() - 2)))
        last_nan = _C._where(nan, pos, -1).amax(2)
        arg = _C._where(last_nan >= 0, last_nan, arg)
    return vals, arg


def _compose_index(idx2, table, arg, hw):
    """Flat D*H*W indices: the depth the window's argmax picked, times H*W, plus the 2-D pool's index at it."""
    width = len(table[0])
    t = _tensor([i for row in table for i in row], dtype=_C.int64, device=arg.device)
    od = _C.arange(len(table), device=arg.device).reshape(1, -1, *([1] * (arg.dim() - 2)))
    dz = t.index_select(0, (od * width + arg).reshape(-1)).reshape(arg.shape)
    return dz * hw + idx2.gather(1, dz)


def _float_or_raise(x, kernel):
    if not x.is_floating_point():
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{scalar_name(x.dtype)}'")


# -------------------------------------------------------------------------------------------- max_pool3d
def max_pool3d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    """3-D max pooling over (N, C, D, H, W) or (C, D, H, W); with return_indices, flat indices into D*H*W.

    Composed from the 2-D max pool over (H, W) and a max over depth windows (see this module's docstring);
    a native 3-D kernel is future C++ work."""
    fn = "max_pool3d"
    k, s, p, d = _pool_args(input, fn, kernel_size, stride, padding, dilation, ceil_mode, False)
    sp = list(input.shape[-3:])
    out = [_pool_out(sp[i], k[i], p[i], s[i], d[i], ceil_mode) for i in range(3)]
    tmpl = (
        "max_pool3d_with_indices_out_cuda_template()"
        if input.is_cuda
        else "max_pool3d_with_indices_out_cpu_template()"
    )
    _pool_shape_check(input, tmpl, k, s, p, d, out, False)
    if input.dtype == _C.bool:
        raise NotImplementedError("\"max_pool3d\" not implemented for 'Bool'")
    x = input if input.dim() == 5 else input.unsqueeze(0)
    if not x.is_floating_point():
        vals, idx = _max_pool3d_int(x, k, s, p, d, out)
    else:
        n, c, dd, h, w = x.shape
        y = x.reshape(n * c, dd, h, w)
        if return_indices:
            y, idx2 = _nn.max_pool2d_with_indices(y, k[1:], s[1:], p[1:], d[1:], ceil_mode)
        else:
            y = _nn.max_pool2d(y, k[1:], s[1:], p[1:], d[1:], ceil_mode)
        table, _ = _depth_tables(dd, k[0], s[0], p[0], d[0], out[0])
        vals, arg = _depth_max(y, table, return_indices)
        vals = vals.reshape(n, c, *out)
        idx = _compose_index(idx2, table, arg, h * w).reshape(n, c, *out) if return_indices else None
    if input.dim() == 4:
        vals = vals.squeeze(0)
        idx = idx.squeeze(0) if idx is not None else None
    return (vals, idx) if return_indices else vals


def _axis_tables(n, k, s, p, d, o):
    """Per output position of one axis: the input position of each tap and whether it lies in the input."""
    pos = [[od * s - p + t * d for t in range(k)] for od in range(o)]
    ok = [[0 <= v < n for v in row] for row in pos]
    return pos, ok


_INT_MIN = {_C.uint8: 0, _C.int8: -(2**7), _C.int16: -(2**15), _C.int32: -(2**31), _C.int64: -(2**63)}


def _max_pool3d_int(x, k, s, p, d, out):
    """Integer max_pool3d over unfolded windows: values from max, the index the first in-input tap holding
    the max (fill taps only tie when the max is the type's lowest value, and never count)."""
    n, c = x.shape[:2]
    sp = list(x.shape[2:])
    low = _INT_MIN[x.dtype]
    # right padding as far as ceil_mode's last window reaches
    need = [(out[i] - 1) * s[i] + d[i] * (k[i] - 1) + 1 for i in range(3)]
    pads = [(p[i], max(0, need[i] - sp[i] - p[i])) for i in range(3)]
    u = _windows(_pad3(x, pads, low), k, s, d, out).reshape(n, c, *out, -1)
    vals = u.amax(-1)
    tabs = [_axis_tables(sp[i], k[i], s[i], p[i], d[i], out[i]) for i in range(3)]
    pos = [_tensor(t[0], dtype=_C.int64, device=x.device) for t in tabs]
    ok = [_tensor(t[1], dtype=_C.bool, device=x.device) for t in tabs]
    # [Do, Ho, Wo, KD, KH, KW] tables of flat positions and validity
    flat = (
        pos[0].reshape(out[0], 1, 1, k[0], 1, 1) * (sp[1] * sp[2])
        + pos[1].reshape(1, out[1], 1, 1, k[1], 1) * sp[2]
        + pos[2].reshape(1, 1, out[2], 1, 1, k[2])
    ).reshape(*out, -1)
    valid = (
        ok[0].reshape(out[0], 1, 1, k[0], 1, 1)
        & ok[1].reshape(1, out[1], 1, 1, k[1], 1)
        & ok[2].reshape(1, 1, out[2], 1, 1, k[2])
    ).reshape(*out, -1)
    kk = flat.shape[-1]
    hit = (u == vals.unsqueeze(-1)) & valid
    first = _C._where(hit, _C.arange(kk, device=x.device), kk).amin(-1)
    idx = flat.expand(n, c, *flat.shape).gather(-1, first.unsqueeze(-1)).squeeze(-1)
    return vals, idx


# -------------------------------------------------------------------------------------------- avg_pool3d
def avg_pool3d_dtype_check(input):
    """avg_pool3d's kernel dtypes: float32, float64 and int64 on the CPU, every float on CUDA."""
    dt = input.dtype
    if not (dt in (_C.float32, _C.float64, _C.int64) or (input.is_cuda and dt.is_floating_point)):
        kernel = "avg_pool3d_out_cuda_frame" if input.is_cuda else "avg_pool3d_out_frame"
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{scalar_name(dt)}'")


def avg_pool3d(
    input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True, divisor_override=None
):
    """3-D average pooling over (N, C, D, H, W) or (C, D, H, W), PyTorch's F.avg_pool3d.

    Composed from the 2-D pool's window sums over (H, W), a sum over depth windows and PyTorch's divisor
    (separable: the product of per-axis counts); a native 3-D kernel is future C++ work."""
    fn = "avg_pool3d"
    k, s, p, _ = _pool_args(input, fn, kernel_size, stride, padding, 1, ceil_mode, True)
    if divisor_override is not None:
        if isinstance(divisor_override, bool) or not isinstance(divisor_override, int):
            raise TypeError(
                f"avg_pool3d(): argument 'divisor_override' must be int, not {type(divisor_override).__name__}"
            )
        if divisor_override == 0:
            raise RuntimeError("divisor must be not zero")
    sp = list(input.shape[-3:])
    out = [_pool_out(sp[i], k[i], p[i], s[i], 1, ceil_mode) for i in range(3)]
    _pool_shape_check(input, "avg_pool3d()", k, s, p, [1, 1, 1], out, True)
    avg_pool3d_dtype_check(input)
    dt = input.dtype
    x = input if input.dim() == 5 else input.unsqueeze(0)
    n, c, dd, h, w = x.shape
    tabs = [_depth_tables(sp[i], k[i], s[i], p[i], 1, out[i], count_include_pad) for i in range(3)]
    if dt == _C.int64:
        pads = [(p[i], max(0, (out[i] - 1) * s[i] + k[i] - sp[i] - p[i])) for i in range(3)]
        sums = _windows(_pad3(x, pads), k, s, [1, 1, 1], out).reshape(n, c, *out, -1).sum(-1)
    else:
        y = _nn.avg_pool2d(x.reshape(n * c, dd, h, w), k[1:], s[1:], p[1:], ceil_mode, True, 1)
        table = tabs[0][0]
        g = _gather(y, 1, table, 0).reshape(n * c, out[0], k[0], out[1], out[2])
        sums = g.sum(2).reshape(n, c, *out)
    if divisor_override is not None:
        div = _C.full(out, divisor_override, dtype=sums.dtype, device=sums.device)
    else:
        cd, ch, cw = (_tensor(t[1], dtype=sums.dtype, device=sums.device) for t in tabs)
        div = cd.reshape(-1, 1, 1) * ch.reshape(1, -1, 1) * cw.reshape(1, 1, -1)
    res = _C.div(sums, div, rounding_mode="trunc") if dt == _C.int64 else sums / div
    return res if input.dim() == 5 else res.squeeze(0)


# ------------------------------------------------------------------------------------------ adaptive pools
def _adaptive_size(output_size, input, fn):
    """PyTorch's _list_with_default (None entries take the input's trailing sizes; an int, a bool too, stays as
    given), then its C++ op's parser (which refuses a bool), as three sizes."""
    input.size()  # PyTorch reads input.size() first: its AttributeError for a non-tensor input
    if not isinstance(output_size, int):
        if input.dim() <= len(
            output_size
        ):  # len() first, as PyTorch's: its TypeError for a float or 0-d size
            raise ValueError(f"Input dimension should be at least {len(output_size) + 1}")
        out = list(output_size)
        output_size = [v if v is not None else dflt for v, dflt in zip(out, list(input.shape)[-len(out) :])]
    _argcheck.check_call(fn, ["Tensor input, int[3] output_size"], (input, output_size), {})
    if isinstance(output_size, int):
        return [output_size] * 3
    out = list(output_size)
    if input.dim() <= len(out):
        raise ValueError(f"Input dimension should be at least {len(out) + 1}")
    return [v if v is not None else dflt for v, dflt in zip(out, list(input.shape)[-len(out) :])]


class _EmptyAdaptiveGrad(_Function):
    """An adaptive 3-D pool's empty result (an output size of 0): PyTorch's backward kernel refuses the empty
    grad_output (any empty dim past dim 0, in the caller's rank)"""

    @staticmethod
    def forward(ctx, res, kernel):
        ctx.kernel = kernel
        return res.clone()

    @staticmethod
    def backward(ctx, grad):
        shape = list(grad.shape)
        dim = next((i for i in range(1, len(shape)) if shape[i] == 0), None)
        if dim is not None:
            raise RuntimeError(
                f"{ctx.kernel}(): Expected grad_output to have non-zero size for non-batch dimensions, but "
                f"grad_output has sizes {shape} with dimension {dim} being empty"
            )
        return grad, None


def adaptive_avg_pool3d(input, output_size):
    """Mean over adaptive windows [floor(i*D/Do), ceil((i+1)*D/Do)) per axis, PyTorch's F.adaptive_avg_pool3d.

    Composed from the 2-D adaptive pool over (H, W) and a mean over the depth windows (a mean of equal-weight
    plane means); a native 3-D kernel is future C++ work."""
    out = _adaptive_size(output_size, input, "adaptive_avg_pool3d")
    if len(out) != 3:
        raise RuntimeError("adaptive_avg_pool3d: output_size must be 3")
    if any(o < 0 for o in out):
        raise RuntimeError(
            "adaptive_avg_pool3d: elements of output_size must be greater than or equal to 0 but received "
            f"{{{out[0]}, {out[1]},{out[2]}}}"
        )
    if out == [1, 1, 1]:
        # ATen's global-average shortcut: a mean over the last three dims, whatever the rank (its IndexError
        # for fewer than three)
        return input.mean((-1, -2, -3), keepdim=True)
    _check_nonempty(input, "adaptive_avg_pool3d()", 1)
    if input.dim() not in (4, 5):
        raise RuntimeError(f"adaptive_avg_pool3d(): Expected 4D or 5D tensor, but got {_sizes(input)}")
    _float_or_raise(input, "adaptive_avg_pool3d_cuda" if input.is_cuda else "adaptive_avg_pool3d_cpu")
    x = input if input.dim() == 5 else input.unsqueeze(0)
    n, c, d, h, w = x.shape
    if 0 in out or x.numel() == 0:
        res = x.reshape(-1)[:0].reshape(n, c, *out)  # empty, and still on the graph
        res = res if input.dim() == 5 else res.squeeze(0)
        return _EmptyAdaptiveGrad.apply(res, "adaptive_avg_pool3d_backward") if 0 in out else res
    y = _nn.adaptive_avg_pool2d(x.reshape(n * c, d, h, w), out[1:])
    table, counts = _adaptive_tables(d, out[0])
    g = _gather(y, 1, table, 0).reshape(n * c, out[0], len(table[0]), out[1], out[2])
    cnt = _tensor(counts, dtype=y.dtype, device=y.device).reshape(1, -1, 1, 1)
    res = (g.sum(2) / cnt).reshape(n, c, *out)
    return res if input.dim() == 5 else res.squeeze(0)


def _adaptive_max_pool3d_impl(input, output_size, return_indices):
    """Max over adaptive windows per axis, PyTorch's F.adaptive_max_pool3d; with return_indices, flat indices
    into D*H*W. Composed from the 2-D adaptive max pool over (H, W) and a max over depth windows."""
    out = _adaptive_size(output_size, input, "adaptive_max_pool3d")
    if input.dim() not in (4, 5):
        raise RuntimeError(f"adaptive_max_pool3d(): Expected 4D or 5D tensor, but got: {_sizes(input)}")
    _check_nonempty(input, "adaptive_max_pool3d()", 1)
    if len(out) != 3:
        raise RuntimeError("adaptive_max_pool3d(): internal error: output_size.size() must be 3")
    if any(o < 0 for o in out):
        neg = next(o for o in out if o < 0)
        raise RuntimeError(
            f"Trying to create tensor with negative dimension {neg}: {list(input.shape[:-3]) + out}"
        )
    _float_or_raise(input, "adaptive_max_pool3d_cuda" if input.is_cuda else "adaptive_max_pool3d_cpu")
    x = input if input.dim() == 5 else input.unsqueeze(0)
    n, c, d, h, w = x.shape
    if 0 in out or x.numel() == 0:
        vals = x.reshape(-1)[:0].reshape(n, c, *out)  # empty, and still on the graph
        idx = _C.zeros((n, c, *out), dtype=_C.int64, device=x.device)
    else:
        y, idx2 = _nn.adaptive_max_pool2d(x.reshape(n * c, d, h, w), out[1:])
        table, _ = _adaptive_tables(d, out[0])
        vals, arg = _depth_max(y, table, return_indices)
        vals = vals.reshape(n, c, *out)
        idx = _compose_index(idx2, table, arg, h * w).reshape(n, c, *out) if return_indices else None
    if input.dim() == 4:
        vals = vals.squeeze(0)
        idx = idx.squeeze(0) if idx is not None else None
    if 0 in out:
        vals = _EmptyAdaptiveGrad.apply(vals, "adaptive_max_pool3d_backward")
    return (vals, idx) if return_indices else vals


# ------------------------------------------------------------------------------------------- lp_pool3d
def lp_pool3d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    """(sum over each 3-D window of x^p)^(1/p), PyTorch's F.lp_pool3d (inf norms as max pools)."""
    # PyTorch's _triple: any iterable taken apart (a tensor, a string), a bare value repeated
    kd, kw, kh = (
        tuple(kernel_size) if isinstance(kernel_size, collections.abc.Iterable) else (kernel_size,) * 3
    )
    if isinstance(norm_type, (int, float)):
        if norm_type == 0:
            raise ValueError(f"norm_type must be a non-zero value, but got {norm_type}")
        if norm_type == float("inf"):
            return max_pool3d(input.abs(), kernel_size, stride, 0, 1, ceil_mode)
        if norm_type == -float("inf"):
            return -max_pool3d(-input.abs(), kernel_size, stride, 0, 1, ceil_mode)
    x = input.pow(norm_type)
    # PyTorch's lp_pool3d calls the C++ avg_pool3d, whose parser sees the arguments first
    _argcheck.check_call(
        "avg_pool3d", [_AVG_POOL3D], (x, kernel_size, [] if stride is None else stride, 0, ceil_mode), {}
    )
    out = avg_pool3d(x, kernel_size, stride, 0, ceil_mode)
    return (_C.sign(out) * _C.relu(out.abs())).mul(kd * kw * kh).pow(1.0 / norm_type)


_AVG_POOL3D = (
    "Tensor input, int[3] kernel_size, int[3] stride=[], int[3] padding=0, bool ceil_mode=False, "
    "bool count_include_pad=True, int? divisor_override=None"
)
