"""torch.masked's reductions and normalizations over strided tensors: masked-out elements are replaced by the
operation's identity (0 for sum, 1 for prod, -inf for amax, ...) and the plain op runs on the result."""

import builtins

from minitorch import _C
from minitorch._dtype_info import iinfo
from minitorch.linalg import vector_norm
from minitorch.sparse._layout import strided

__all__ = [
    "amax",
    "amin",
    "argmax",
    "argmin",
    "cumprod",
    "cumsum",
    "log_softmax",
    "logaddexp",
    "logsumexp",
    "mean",
    "median",
    "norm",
    "normalize",
    "prod",
    "softmax",
    "softmin",
    "std",
    "sum",
    "var",
]

_SMALL_INTEGRAL = frozenset((_C.uint8, _C.bool, _C.int8, _C.int16, _C.int32))


def _scalar(value, like):
    return _C.full((), value, dtype=like.dtype, device=like.device)


def _reduction_identity(op_name, input, *args):
    """The value that leaves op's result unchanged (a 0-dim tensor of input's dtype), or None where there is none
    (mean, var, std)."""
    dtype = input.dtype
    floating = dtype.is_floating_point
    integral = not floating and not dtype.is_complex and dtype != _C.bool
    if op_name in ("sum", "cumsum"):
        return _scalar(0, input)
    if op_name in ("prod", "cumprod"):
        return _scalar(1, input)
    if op_name in ("amax", "argmax", "logaddexp", "logsumexp"):
        if floating:
            return _scalar(float("-inf"), input)
        if op_name == "logsumexp" and dtype.is_complex:
            return _scalar(complex(float("-inf"), 0), input)
        if integral:
            return _scalar(iinfo(dtype).min, input)
    elif op_name in ("amin", "argmin"):
        if floating:
            return _scalar(float("inf"), input)
        if integral:
            return _scalar(iinfo(dtype).max, input)
    elif op_name in ("mean", "var", "std"):
        return None
    elif op_name == "norm":
        ord = args[0] if args else 2
        if ord == float("-inf"):
            if not floating:
                raise AssertionError(f"input must be floating point, got {dtype}")
            return _scalar(float("inf"), input)
        return _scalar(0, input)
    elif op_name == "median":
        return _C.full((), float("nan"), dtype=dtype if floating else _C.float32, device=input.device)
    raise NotImplementedError(f"identity of {op_name} on {dtype} input")


def _canonical_dim(dim, ndim):
    """dim as a sorted tuple of non-negative dims; None and () mean every dim, as PyTorch's."""
    if dim == () or dim is None:
        return tuple(range(ndim))
    ndim = builtins.max(ndim, 1)
    dims = []
    for d in (dim,) if isinstance(dim, int) else dim:
        if d in dims:
            raise RuntimeError(f"dim={d} appears multiple times in the list of dims")
        if d >= ndim or d < -ndim:
            raise IndexError(
                f"Dimension out of range (expected to be in range of [{-ndim}, {ndim - 1}], but got {d})"
            )
        dims.append(d % ndim)
    return tuple(sorted(dims))


def _input_mask(input, mask):
    """mask broadcast to input's shape, as bool."""
    if mask is None:
        raise ValueError("_input_mask requires explicit mask")
    if tuple(mask.shape) != tuple(input.shape):
        if mask.dim() > input.dim():
            raise IndexError(
                "_input_mask expected broadcastable mask (got mask dimensionality higher than of the input)"
            )
        mask = mask.expand(tuple(input.shape))
    return mask.to(dtype=_C.bool)


def _masked_parts(input):
    # a MaskedTensor (maskedtensor.py sits above this module, so it is recognized by its members)
    if hasattr(input, "_masked_mask"):
        return input.get_data(), input.get_mask()
    return input, None


def _combine_input_and_mask(op_name, input, mask, *args):
    """input with its masked-out elements replaced by op's identity (a MaskedTensor's own mask when no mask is
    given); where() sends no gradient to the masked-out elements, which is PyTorch's masked gradient."""
    input, own = _masked_parts(input)
    if mask is None:
        mask = own
    if mask is None:
        return input
    fill = _reduction_identity(op_name, input, *args)
    return _C._where(_input_mask(input, mask), input, fill)


def _strided_only(name, t):
    if t.layout != strided:
        raise ValueError(f"masked {name} expects strided tensor (got {t.layout} tensor)")


def _sum_dtype(input, dtype):
    if dtype is None:
        return _C.int64 if input.dtype in _SMALL_INTEGRAL else input.dtype
    return dtype


def sum(input, dim=None, *, keepdim=False, dtype=None, mask=None):
    """The sum of input's masked-in elements over dim (all by default); 0 where everything is masked out."""
    dtype = _sum_dtype(input, dtype)
    dim_ = _canonical_dim(dim, input.dim())
    x = _combine_input_and_mask("sum", input, mask)
    _strided_only("sum", x)
    return x.sum(dim_, builtins.bool(keepdim), dtype=dtype)


def prod(input, dim=None, *, keepdim=False, dtype=None, mask=None):
    """The product of input's masked-in elements over dim (all by default); 1 where everything is masked out."""
    dtype = _sum_dtype(input, dtype)
    dim_ = _canonical_dim(dim, input.dim())
    x = _combine_input_and_mask("prod", input, mask)
    _strided_only("prod", x)
    x = x.to(dtype=dtype)
    for d in reversed(dim_):
        x = x.prod(d, keepdim=builtins.bool(keepdim))
    return x


def cumsum(input, dim, *, dtype=None, mask=None):
    """The running sum along dim with masked-out elements counted as 0."""
    dtype = input.dtype if dtype is None else dtype
    dim_ = _canonical_dim(dim, input.dim())[0]
    x = _combine_input_and_mask("sum", input, mask)
    _strided_only("cumsum", x)
    return x.cumsum(dim_, dtype=dtype).to(dtype=dtype)


def cumprod(input, dim, *, dtype=None, mask=None):
    """The running product along dim with masked-out elements counted as 1."""
    dtype = input.dtype if dtype is None else dtype
    dim_ = _canonical_dim(dim, input.dim())[0]
    x = _combine_input_and_mask("prod", input, mask)
    _strided_only("cumprod", x)
    return x.cumprod(dim_, dtype=dtype).to(dtype=dtype)


def _extreme(name):
    def reduce(input, dim=None, *, keepdim=False, dtype=None, mask=None):
        dtype = input.dtype if dtype is None else dtype
        x = _combine_input_and_mask(name, input, mask)
        _strided_only(name, x)
        dim_ = _canonical_dim(dim, x.dim())
        return getattr(x, name)(dim_, builtins.bool(keepdim)).to(dtype=dtype)

    reduce.__name__ = reduce.__qualname__ = name
    reduce.__doc__ = f"torch.{name} of input with masked-out elements replaced by {name}'s identity."
    return reduce


amax = _extreme("amax")
amin = _extreme("amin")


def _arg_extreme(name):
    def reduce(input, dim=None, *, keepdim=False, dtype=None, mask=None):
        dtype = input.dtype if dtype is None else dtype
        x = _combine_input_and_mask(name, input, mask)
        _strided_only(name, x)
        return getattr(x, name)(dim, builtins.bool(keepdim)).to(dtype=dtype)

    reduce.__name__ = reduce.__qualname__ = name
    reduce.__doc__ = f"torch.{name} of input with masked-out elements replaced by {name[3:]}'s identity."
    return reduce


argmax = _arg_extreme("argmax")
argmin = _arg_extreme("argmin")


def mean(input, dim=None, *, keepdim=False, dtype=None, mask=None):
    """The mean of input's masked-in elements over dim; nan where everything is masked out."""
    source = "Optional"
    if dtype is None:
        dtype, source = input.dtype, "Input"
    if not (dtype.is_floating_point or dtype.is_complex):
        raise ValueError(
            f"mean(): Could not infer output dtype. {source} dtype must be either "
            f"a floating point or complex dtype. Got: {dtype}"
        )
    data, own = _masked_parts(input)
    mask = own if mask is None else mask
    _strided_only("mean", data)
    if mask is None:
        count = sum(_C.ones(tuple(data.shape), dtype=_C.int64, device=data.device), dim, keepdim=keepdim)
        total = sum(data, dim, keepdim=keepdim, dtype=dtype)
    else:
        inmask = _input_mask(data, mask)
        count = inmask.sum(_canonical_dim(dim, data.dim()), builtins.bool(keepdim))
        total = sum(data, dim, keepdim=keepdim, dtype=dtype, mask=inmask)
    return total / count


def median(input, dim=-1, *, keepdim=False, dtype=None, mask=None):
    """The median of input's masked-in elements along dim; nan where everything is masked out."""
    data, own = _masked_parts(input)
    mask = own if mask is None else mask
    dtype = data.dtype if dtype is None else dtype
    dim_ = _canonical_dim(dim, data.dim())[0]
    is_float = data.dtype.is_floating_point
    if not is_float:
        data = data.to(dtype=_C.float32)
    x = _combine_input_and_mask("median", data, mask)
    _strided_only("median", x)
    out = x.nanmedian(dim_, keepdim).values
    if is_float:
        return out
    if not builtins.bool(out.isnan().any()):
        return out.to(dtype=dtype)
    raise ValueError("masked median expects no fully masked out rows if dtype is not floating point")


def logsumexp(input, dim=None, *, keepdim=False, dtype=None, mask=None):
    """log(sum(exp(x))) over input's masked-in elements; -inf where everything is masked out."""
    dtype = input.dtype if dtype is None else dtype
    dim_ = _canonical_dim(dim, input.dim())
    x = _combine_input_and_mask("logsumexp", input, mask)
    _strided_only("logsumexp", x)
    return x.logsumexp(dim_, keepdim=keepdim).to(dtype=dtype)


def logaddexp(input, other, *, dtype=None, input_mask=None, other_mask=None):
    """logaddexp of input and other, each with its masked-out elements taken as -inf."""
    dtype = input.dtype if dtype is None else dtype
    if input.layout != strided or other.layout != strided:
        raise ValueError(
            f"masked logaddexp expects strided tensors (got {input.layout} tensor for input, {other.layout} for other)"
        )
    a = _combine_input_and_mask("logaddexp", input, input_mask)
    b = _combine_input_and_mask("logaddexp", other, other_mask)
    return _C.logaddexp(a, b).to(dtype=dtype)


def norm(input, ord=2.0, dim=None, *, keepdim=False, dtype=None, mask=None):
    """The vector ord-norm of input's masked-in elements over dim."""
    dtype = input.dtype if dtype is None else dtype
    x = _combine_input_and_mask("norm", input, mask, ord)
    _strided_only("norm", x)
    return vector_norm(x, ord, _canonical_dim(dim, x.dim()), builtins.bool(keepdim), dtype=dtype)


def _std_var(input, dim, unbiased, correction_opt, keepdim, dtype, mask, take_sqrt):
    if unbiased is not None and correction_opt is not None:
        raise AssertionError("Only one of unbiased and correction may be given")
    correction = 1.0
    if unbiased is not None:
        correction = 1.0 if unbiased else 0.0
    if correction_opt is not None:
        correction = float(correction_opt)
    data, own = _masked_parts(input)
    mask = own if mask is None else mask
    if dtype is None:
        dtype = data.dtype
        if not (dtype.is_floating_point or dtype.is_complex):
            dtype = _C.float32
    compute_dtype = dtype if (dtype.is_floating_point or dtype.is_complex) else _C.float32
    if data.layout != strided:
        raise ValueError(f"masked std/var expects strided tensor (got {data.layout} tensor)")
    dims = _canonical_dim(dim, data.dim())
    if mask is None:
        inmask = None
        count = _C.full((), 1, dtype=_C.int64, device=data.device).expand(tuple(data.shape)).sum(dims, True)
    else:
        inmask = _input_mask(data, mask)
        count = inmask.sum(dims, True)
    sample_mean = sum(data, dim, keepdim=True, dtype=dtype, mask=inmask) / count
    x = data - sample_mean
    total = sum(x * x.conj(), dim, keepdim=keepdim, dtype=compute_dtype, mask=inmask)
    if not keepdim:
        count = count.reshape(tuple(total.shape))
    if correction != 0:
        real = compute_dtype
        if real.is_complex:
            real = _C.float64 if real == _C.complex128 else _C.float32
        count = count.to(dtype=real) - correction
        count = _C.maximum(count, _C.zeros((), dtype=real, device=count.device))
    out = (total / count).to(dtype=dtype)
    return out.sqrt() if take_sqrt else out


def var(input, dim=None, unbiased=None, *, correction=None, keepdim=False, dtype=None, mask=None):
    """The variance of input's masked-in elements over dim (Bessel-corrected unless correction says else)."""
    return _std_var(input, dim, unbiased, correction, keepdim, dtype, mask, False)


def std(input, dim=None, unbiased=None, *, correction=None, keepdim=False, dtype=None, mask=None):
    """The standard deviation of input's masked-in elements over dim."""
    return _std_var(input, dim, unbiased, correction, keepdim, dtype, mask, True)


def _normalization(name, identity, method):
    def normalize_(input, dim, *, dtype=None, mask=None):
        dtype = input.dtype if dtype is None else dtype
        dim_ = _canonical_dim(dim, input.dim())[0]
        x = _combine_input_and_mask(identity, input, mask)
        _strided_only(name, x)
        return method(x, dim_, dtype)

    normalize_.__name__ = normalize_.__qualname__ = name
    normalize_.__doc__ = (
        f"{name} along dim with masked-out elements taken as {identity}'s identity (weight 0)."
    )
    return normalize_


softmax = _normalization("softmax", "amax", lambda x, d, dt: x.to(dtype=dt).softmax(d))
log_softmax = _normalization("log_softmax", "amax", lambda x, d, dt: x.to(dtype=dt).log_softmax(d))
softmin = _normalization("softmin", "amin", lambda x, d, dt: (-x.to(dtype=dt)).softmax(d))


def normalize(input, ord, dim, *, eps=1e-12, dtype=None, mask=None):
    """input divided by the masked ord-norm along dim (at least eps); masked-out elements come out as 0."""
    dtype = input.dtype if dtype is None else dtype
    x = _combine_input_and_mask("sum", input, mask)
    _strided_only("normalize", x)
    nrm = norm(input, ord, dim, keepdim=True, dtype=dtype, mask=mask)
    return x / _C.maximum(nrm, _C.full((), eps, dtype=nrm.dtype, device=nrm.device))
