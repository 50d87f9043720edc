"""nn.functional's pools: max, average, adaptive, power-average (lp), fractional max and max-unpooling, 1-D to
3-D."""

import collections.abc

from minitorch import _C, _argcheck
from minitorch._dtype_names import scalar_name
from minitorch.nn.functional._conv3d import (  # noqa: F401  (the 3-D pools, composed there, are this family's too)
    _adaptive_max_pool3d_impl,
    adaptive_avg_pool3d,
    avg_pool3d,
    lp_pool3d,
)
from minitorch.nn.functional._conv3d import (
    max_pool3d as _max_pool3d_composed,
)
from minitorch.nn.functional._utils import _ntuple, boolean_dispatch

_nn = _C._nn


# The pools with a return_indices flag are PyTorch's boolean_dispatch pairs: X_with_indices and _X, each with
# every argument, the flag's truth choosing between them (a bad argument fails in the chosen one's words)
def _max_pool1d_impl(input, kernel_size, stride, padding, dilation, ceil_mode, return_indices):
    if (
        return_indices
    ):  # ATen's: each argument one int, then the 2-d pool over a unit height (csrc/ops/pool.cpp)
        st = [] if stride is None else stride
        return tuple(_nn.max_pool1d_with_indices(input, kernel_size, st, padding, dilation, ceil_mode))
    # without indices the kernel's values-only windows (no int64 index per output)
    return _nn.max_pool1d(input, kernel_size, stride, padding, dilation, ceil_mode)


def max_pool1d_with_indices(
    input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False
):
    """1-D max pooling over the last dim of (N, C, L) or (C, L), returning (values, indices into L)."""
    _argcheck.check_call("max_pool1d_with_indices", [
        "Tensor input, int[1] kernel_size, int[1] stride=[], int[1] padding=0, int[1] dilation=1, bool ceil_mode=False"
    ], (input, kernel_size, [] if stride is None else stride, padding, dilation, ceil_mode), {}, True)  # fmt: skip
    if input.dim() not in (2, 3):
        raise RuntimeError(
            f"Expected 2 to 3 dimensions, but got {input.dim()}-dimensional tensor for argument #1 'self' (while "
            "checking arguments for max_pool1d)"
        )
    return _max_pool1d_impl(input, kernel_size, stride, padding, dilation, ceil_mode, True)


def _max_pool1d(
    input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False
):
    return _max_pool1d_impl(input, kernel_size, stride, padding, dilation, ceil_mode, False)


max_pool1d = boolean_dispatch("return_indices", 6, False, max_pool1d_with_indices, _max_pool1d, "max_pool1d")


def max_pool2d_with_indices(
    input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False
):
    """2-D max pooling over (N, C, H, W) or (C, H, W), returning (values, indices into H*W)."""
    if stride == []:
        stride = None
    return _nn.max_pool2d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode)


def _max_pool2d(
    input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False
):
    if stride == []:
        stride = None
    return _nn.max_pool2d(input, kernel_size, stride, padding, dilation, ceil_mode)


max_pool2d = boolean_dispatch("return_indices", 6, False, max_pool2d_with_indices, _max_pool2d, "max_pool2d")


# The 3-D pools are composed from the 2-D ones in _conv3d. max_pool3d and avg_pool3d are C++ ops in PyTorch
# (max_pool3d behind a few lines of Python that pass stride=[] for None): its parser decides every argument's kind
# first, so a plain value where a tensor belongs raises its TypeError, not the AttributeError the composition
# meets (the adaptive pools and lp_pool3d are Python in PyTorch, whose AttributeError they keep)
_MAX_POOL3D = [
    "Tensor input, int[3] kernel_size, int[3] stride=[], int[3] padding=0, int[3] dilation=1, bool ceil_mode=False"
]


def max_pool3d_with_indices(
    input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False
):
    """3-D max pooling over (N, C, D, H, W) or (C, D, H, W), returning (values, indices into D*H*W)."""
    input.is_cuda  # PyTorch's Python reads it (its deterministic CUDA path) before the parser  # noqa: B018
    _argcheck.check_call("max_pool3d_with_indices", _MAX_POOL3D,
                         (input, kernel_size, [] if stride is None else stride, padding, dilation, ceil_mode), {},
                         True)  # fmt: skip
    return _max_pool3d_composed(input, kernel_size, stride, padding, dilation, ceil_mode, True)


def _max_pool3d(
    input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False
):
    _argcheck.check_call("max_pool3d", _MAX_POOL3D,
                         (input, kernel_size, [] if stride is None else stride, padding, dilation, ceil_mode), {},
                         True)  # fmt: skip
    return _max_pool3d_composed(input, kernel_size, stride, padding, dilation, ceil_mode, False)


max_pool3d = boolean_dispatch("return_indices", 6, False, max_pool3d_with_indices, _max_pool3d, "max_pool3d")


def avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True):
    return _nn.avg_pool1d(input, kernel_size, stride, padding, ceil_mode, count_include_pad)


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
    return _nn.avg_pool2d(input, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override)


# PyTorch's parser in front, as for max_pool3d
avg_pool3d = _argcheck.parsing(
    avg_pool3d,
    [("Tensor input, int[3] kernel_size, int[3] stride=[], int[3] padding=0, bool ceil_mode=False, "
      "bool count_include_pad=True, int? divisor_override=None")],
)  # fmt: skip


def adaptive_avg_pool1d(input, output_size):
    return _nn.adaptive_avg_pool1d(input, output_size)


def _list_with_default(out_size, input):
    """PyTorch's F-level output size of the adaptive pools: an int as given; a list needs more input dims than
    its length, and its None entries take the input's trailing sizes"""
    defaults = input.size()  # read first, as PyTorch's argument: its AttributeError for a non-tensor input
    if isinstance(out_size, int):
        return out_size
    if len(defaults) <= len(out_size):
        raise ValueError(f"Input dimension should be at least {len(out_size) + 1}")
    return [v if v is not None else d for v, d in zip(out_size, defaults[-len(out_size) :])]


_adaptive_avg_pool2d = _argcheck.parsing(
    _nn.adaptive_avg_pool2d.__call__,
    ["Tensor input, int[2] output_size"],
    "adaptive_avg_pool2d",
    upfront=False,
)


_adaptive_max_pool2d_op = _argcheck.parsing(
    _nn.adaptive_max_pool2d.__call__,
    ["Tensor input, int[2] output_size"],
    "adaptive_max_pool2d",
    upfront=False,
)


def _two_sizes(size, message):
    # a bare int stands for both sizes; a sequence must name both (the C++ entry also takes a one-element one),
    # checked after PyTorch's parser has taken its elements as ints (its TypeError comes first)
    if not isinstance(size, int) and len(size) != 2 and all(type(v) is int for v in size):
        raise RuntimeError(message)
    return size


def _is_one(v):
    # a tensor of other than one element is left to the parser's refusal (its truth value would raise first)
    return bool(v == 1) if not isinstance(v, _C.Tensor) or v.numel() == 1 else False


def adaptive_avg_pool2d(input, output_size):
    size = _two_sizes(_list_with_default(output_size, input), "adaptive_avg_pool2d: output_size must be 2")
    if isinstance(size, (list, tuple)):
        one = len(size) == 2 and all(_is_one(v) for v in size)
    else:
        one = _is_one(size)
    if one and type(size) is not bool:
        # ATen's global-average shortcut: a mean over the last two dims, whatever the rank (its IndexError
        # for fewer than two)
        return input.mean((-1, -2), keepdim=True)
    return _adaptive_avg_pool2d(input, size)


@_argcheck.parses("Tensor input, int[1] output_size", name="adaptive_max_pool1d")
def _adaptive_max_pool1d_op(input, output_size):
    """torch.adaptive_max_pool1d: (values, indices), after PyTorch's parser (a one-element integer tensor
    stands for the size)"""
    if isinstance(output_size, _C.Tensor):
        output_size = int(output_size.reshape(-1)[0].item())
    return _nn.adaptive_max_pool1d(input, output_size)


def adaptive_max_pool1d_with_indices(input, output_size, return_indices=False):
    """Max over L_in / output_size-wide adaptive windows of the last dim, returning (values, indices)."""
    return _adaptive_max_pool1d_op(input, output_size)


def _adaptive_max_pool1d(input, output_size, return_indices=False):
    return adaptive_max_pool1d_with_indices(input, output_size)[0]


adaptive_max_pool1d = boolean_dispatch(
    "return_indices", 2, False, adaptive_max_pool1d_with_indices, _adaptive_max_pool1d, "adaptive_max_pool1d"
)


def adaptive_max_pool2d_with_indices(input, output_size, return_indices=False):
    """Max over adaptive windows of (H, W), returning (values, indices into H*W)."""
    size = _list_with_default(output_size, input)
    return _adaptive_max_pool2d_op(
        input, _two_sizes(size, "adaptive_max_pool2d(): internal error: output_size.size() must be 2")
    )


def _adaptive_max_pool2d(input, output_size, return_indices=False):
    return adaptive_max_pool2d_with_indices(input, output_size)[0]


adaptive_max_pool2d = boolean_dispatch(
    "return_indices", 2, False, adaptive_max_pool2d_with_indices, _adaptive_max_pool2d, "adaptive_max_pool2d"
)


def adaptive_max_pool3d_with_indices(input, output_size, return_indices=False):
    """Max over adaptive windows of (D, H, W), returning (values, indices into D*H*W)."""
    return _adaptive_max_pool3d_impl(input, output_size, True)


def _adaptive_max_pool3d(input, output_size, return_indices=False):
    return _adaptive_max_pool3d_impl(input, output_size, False)  # the indices only its depth step would need


adaptive_max_pool3d = boolean_dispatch(
    "return_indices", 2, False, adaptive_max_pool3d_with_indices, _adaptive_max_pool3d, "adaptive_max_pool3d"
)


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
    out_size = tuple(out_size)
    lead = tuple(input.shape[:-nd])
    total = 1
    for s in out_size:
        total *= s
    if total == 0:  # ATen returns an empty output before its kernel: no dtype or index check
        return _C.zeros(lead + out_size, dtype=input.dtype, device=input.device)
    if not input.is_floating_point():
        raise NotImplementedError(f"\"max_unpool{nd}d\" not implemented for '{scalar_name(input.dtype)}'")
    flat_idx = indices.reshape(lead + (-1,))
    if flat_idx.numel():
        lo, hi = flat_idx.aminmax()  # one pass over the indices for both bounds
        lo_i, hi_i = int(lo.item()), int(hi.item())
        if lo_i < 0 or hi_i >= total:
            bad = hi_i if hi_i >= total else lo_i
            sizes = "x".join(str(s) for s in out_size)
            raise RuntimeError(f"Found an invalid max index: {bad} (output volumes are of size {sizes})")
    out = _C.zeros(lead + (total,), dtype=input.dtype, device=input.device)
    # in place into the fresh zeros (the out-of-place scatter copied the whole output once more first), which
    # keeps its version at 0 as PyTorch's result
    with _C._fresh_writes:
        out.scatter_(-1, flat_idx, input.reshape(lead + (-1,)))
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


def _fractional_starts(u, in_size, out_size, k):
    """PyTorch's pseudo-random window starts from one sample u in [0, 1) per plane (u: [N, C]), computed in
    u's dtype as its kernel does: start_i = trunc((i + u) alpha) - trunc(u alpha), alpha = (in - k) / (out - 1),
    the last start pinned to in - k so the windows end at the input's edge. Returns int64 [N, C, out]."""
    i = _C.arange(out_size, dtype=u.dtype, device=u.device)
    if out_size > 1:
        alpha = _C.full((), float(in_size - k) / float(out_size - 1), dtype=u.dtype, device=u.device)
        uu = u.unsqueeze(-1)
        starts = _C.sub(_C.mul(_C.add(i, uu), alpha).trunc(), _C.mul(uu, alpha).trunc()).to(_C.int64)
    else:
        starts = _C.zeros((*u.shape, out_size), dtype=_C.int64, device=u.device)
    if out_size > 0:
        starts[..., -1] = in_size - k
    return starts


def _int_list_arg(v, n):
    """An int[n] the parser has accepted, as n Python ints: a bare int (or one-element integer tensor)
    repeated, a sequence's elements each by __index__ (a bool or a one-element integer tensor among them)"""
    if isinstance(v, (list, tuple)):
        return [int(e.item()) if isinstance(e, _C.Tensor) else int(e) for e in v]
    return [int(v.item()) if isinstance(v, _C.Tensor) else int(v)] * n


def _fractional_max_pool(name, input, kernel_size, output_size, output_ratio, samples, nd):
    """Max over windows of kernel_size placed at _fractional_starts along each of the nd last dims, as
    (values, indices flat into the plane, H*W or D*H*W). PyTorch's Python first (the output size from the
    ratio, default samples), then its op's parser and checks in their order. Composed as a gather of every
    window's taps, so the gradient reaches the chosen maxima through gather's backward."""
    if output_size is None and output_ratio is None:
        raise ValueError(f"{name} requires specifying either an output_size or an output_ratio")
    if output_size is None:
        if (
            nd == 2 and len(output_ratio) > 2
        ):  # len() of a bare ratio: PyTorch's TypeError, as its 2-D one has
            raise ValueError(f"{name} requires output_ratio to either be a single Int or tuple of Ints.")
        ratio = _ntuple(output_ratio, nd)
        output_size = [int(input.size(d - nd) * ratio[d]) for d in range(nd)]
    if samples is None:
        n = 1 if input.dim() == nd + 1 else input.size(0)
        samples = _C.rand(n, input.size(-nd - 1), nd, dtype=input.dtype, device=input.device)
    kinds = f"int[{nd}]"
    _argcheck.check_call(
        name,
        [f"Tensor input, {kinds} kernel_size, {kinds} output_size, Tensor random_samples"],
        (input, kernel_size, output_size, samples),
        {},
        True,
    )
    ks, out = _int_list_arg(kernel_size, nd), _int_list_arg(output_size, nd)
    three = "" if nd == 2 else " three"
    if len(ks) != nd:
        raise RuntimeError(f"{name}: kernel_size must either be a single Int or tuple of{three} Ints")
    if len(out) != nd:
        raise RuntimeError(f"{name}: output_size must either be a single Int or tuple of{three} Ints")
    if any(k <= 0 for k in ks):
        raise RuntimeError(
            f"{name}(): kernel size should be greater than zero, but got {'x'.join(map(str, ks))}"
        )
    where = name + "()" if nd == 2 else name + "_out()"  # the 3-D op's checks name its out variant
    if input.dim() not in (nd + 1, nd + 2):
        raise RuntimeError(f"{where}: Expected {nd + 1}D or {nd + 2}D tensor, but got: {list(input.shape)}")
    for i in range(1, input.dim()):  # dim 0 is free, even where it is the planes of an unbatched input
        if input.shape[i] == 0:
            raise RuntimeError(
                f"{where}: Expected input to have non-zero size for non-batch dimensions, but got"
                f"{list(input.shape)} with dimension {i} being empty."
            )
    spatial = list(input.shape[-nd:])
    # ATen's order of the too-large checks (2-D: height, width; 3-D: time, width, height, and strict there)
    for d in (0, 1) if nd == 2 else (0, 2, 1):
        w = ("height", "width")[d] if nd == 2 else ("time", "height", "width")[d]
        if out[d] + ks[d] - 1 > spatial[d] or (nd == 3 and out[d] + ks[d] - 1 == spatial[d]):
            raise RuntimeError(f"{where}: pool {w} {ks[d]} too large relative to input {w} {spatial[d]}")
    full = list(input.shape[:-nd]) + out
    if any(o < 0 for o in out):
        raise RuntimeError(f"Trying to create tensor with negative dimension {min(out)}: {full}")
    # the kernel's checks of the samples, then its dtype dispatch (which an empty output never reaches)
    if samples.dtype != input.dtype:
        raise RuntimeError("Expect _random_samples to have the same dtype as input")
    if samples.dim() != 3:
        raise RuntimeError(f"Expect _random_samples to have 3 dimensions, got {samples.dim()}")
    batched = input.dim() == nd + 2
    n, c = (input.shape[0], input.shape[1]) if batched else (1, input.shape[0])
    if samples.shape[0] < n:
        raise RuntimeError("Expect _random_samples.size(0) no less then input batch size.")
    if samples.shape[1] != c:
        raise RuntimeError("Expect _random_samples.size(1) equals to input channel size.")
    if samples.shape[2] != nd:
        raise RuntimeError(f"Expect _random_samples.size(2) equals to {nd}; got {samples.shape[2]}.")
    if n == 0 or c == 0 or 0 in out:
        return (
            input.reshape(-1)[:0].reshape(full),  # empty, and still on the graph
            _C.zeros(full, dtype=_C.int64, device=input.device),
        )
    if input.dtype not in (_C.float32, _C.float64, _C.float16, _C.bfloat16):
        raise NotImplementedError(
            f"\"{name}_out_frame\" not implemented for '{scalar_name(input.dtype)}'"
            if not input.is_cuda
            else f"\"{name}_out_cuda_frame\" not implemented for '{scalar_name(input.dtype)}'"
        )
    x = input if batched else input.unsqueeze(0)
    samples = samples[:n].detach()
    # which sample drives which dim: PyTorch's 2-D kernel takes sample 0 for the width and 1 for the height,
    # its 3-D kernel 0, 1, 2 for time, height, width
    order = [1, 0] if nd == 2 else [0, 1, 2]
    plane = 1
    for s in spatial:
        plane *= s
    flat = _C.zeros((n, c) + (1,) * (2 * nd), dtype=_C.int64, device=x.device)
    stride = plane
    for d in range(nd):
        stride //= spatial[d]
        starts = _fractional_starts(samples[:, :, order[d]], spatial[d], out[d], ks[d])
        taps = _C.add(starts.unsqueeze(-1), _C.arange(ks[d], device=x.device))  # [N, C, out_d, k_d]
        shape = [n, c] + [1] * (2 * nd)
        shape[2 + d], shape[2 + nd + d] = out[d], ks[d]
        flat = _C.add(flat, _C.mul(taps.reshape(shape), stride))
    kk, nout = 1, 1
    for k, o in zip(ks, out):
        kk, nout = kk * k, nout * o
    flat = flat.expand(n, c, *out, *ks).reshape(n, c, nout * kk)
    taps = x.reshape(n, c, plane).gather(-1, flat).reshape(n, c, *out, kk)
    # PyTorch's kernel keeps the first maximum and lets any NaN take over, the last NaN winning
    first = (
        taps.detach().argmax(-1, keepdim=True)
        if taps.numel()
        else _C.zeros((n, c, *out, 1), dtype=_C.int64, device=x.device)
    )
    nan = _C.isnan(taps.detach())
    if taps.numel() and bool(nan.any()):
        last_nan = _C.sub(kk - 1, nan.flip(-1).to(_C.uint8).argmax(-1, keepdim=True))
        first = last_nan.where(nan.any(-1, keepdim=True), first)
    values = taps.gather(-1, first).squeeze(-1)
    indices = flat.reshape(n, c, *out, kk).gather(-1, first).squeeze(-1)
    if not batched:
        values, indices = values.squeeze(0), indices.squeeze(0)
    return values, indices


def fractional_max_pool2d_with_indices(
    input, kernel_size, output_size=None, output_ratio=None, return_indices=False, _random_samples=None
):
    """Fractional max pooling over (H, W) of (N, C, H, W) or (C, H, W) (Graham's; PyTorch's window sequence):
    output_size, or output_ratio of the input's size; windows of kernel_size at pseudo-random starts drawn from
    _random_samples ([N, C, 2] in [0, 1), default random). Returns (output, indices into H*W)."""
    return _fractional_max_pool(
        "fractional_max_pool2d", input, kernel_size, output_size, output_ratio, _random_samples, 2
    )


def _fractional_max_pool2d(
    input, kernel_size, output_size=None, output_ratio=None, return_indices=False, _random_samples=None
):
    return fractional_max_pool2d_with_indices(
        input, kernel_size, output_size, output_ratio, return_indices, _random_samples
    )[0]


fractional_max_pool2d = boolean_dispatch(
    "return_indices",
    4,
    False,
    fractional_max_pool2d_with_indices,
    _fractional_max_pool2d,
    "fractional_max_pool2d",
)


def fractional_max_pool3d_with_indices(
    input, kernel_size, output_size=None, output_ratio=None, return_indices=False, _random_samples=None
):
    """Fractional max pooling over (D, H, W) of (N, C, D, H, W) or (C, D, H, W); _random_samples [N, C, 3].
    Returns (output, indices into D*H*W)."""
    return _fractional_max_pool(
        "fractional_max_pool3d", input, kernel_size, output_size, output_ratio, _random_samples, 3
    )


def _fractional_max_pool3d(
    input, kernel_size, output_size=None, output_ratio=None, return_indices=False, _random_samples=None
):
    return fractional_max_pool3d_with_indices(
        input, kernel_size, output_size, output_ratio, return_indices, _random_samples
    )[0]


fractional_max_pool3d = boolean_dispatch(
    "return_indices",
    4,
    False,
    fractional_max_pool3d_with_indices,
    _fractional_max_pool3d,
    "fractional_max_pool3d",
)
