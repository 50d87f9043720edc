"""Random numbers at torch level: the sampling functions PyTorch has as ops (normal, bernoulli; the in-place
Tensor samplers exponential_, log_normal_, cauchy_, geometric_ are ops.schema rows) and the default generator's
state."""

import builtins
import numbers

from minitorch import _C, _argcheck, _composite_shape
from minitorch import functional as _functional
from minitorch._dtype_names import scalar_name
from minitorch._factories import _write_out
from minitorch.autograd import grad_mode

__all__ = ["bernoulli", "get_rng_state", "normal", "set_rng_state"]


def _std_fmt(v):
    return f"{v:g}"


def _check_float(t, what):
    if not t.dtype.is_floating_point:
        kind = "cuda" if t.is_cuda else "cpu"
        raise NotImplementedError(f"\"{what}_{kind}\" not implemented for '{scalar_name(t.dtype)}'")


_NORMAL_SIGNATURES = (
    "Tensor mean, Tensor std, *, Generator? generator=None, Tensor? out=None",
    "Tensor mean, float std=1, *, Generator? generator=None, Tensor? out=None",
    "float mean, Tensor std, *, Generator? generator=None, Tensor? out=None",
    (
        "float mean, float std, SymInt[] size, *, Generator? generator=None, Tensor? out=None, "
        "ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool pin_memory=False, "
        "bool requires_grad=False"
    ),
)


@_argcheck.checks_own_arguments
def normal(*args, **kwargs):
    """Normal samples, PyTorch's four overloads: normal(Tensor mean, Tensor std), normal(Tensor mean,
    float std=1), normal(float mean, Tensor std) (element-wise means and standard deviations, broadcast), and
    normal(float mean, float std, size, *, dtype, device, requires_grad) (a new tensor of that size)."""
    # PyTorch's parser first: a dtype= (or a size) beside a tensor mean or std is no overload's
    _argcheck.check_call("normal", _NORMAL_SIGNATURES, args, kwargs)
    return _normal(*args, **kwargs)


def _normal(
    mean,
    std=1.0,
    size=None,
    *,
    generator=None,
    out=None,
    dtype=None,
    layout=None,
    device=None,
    pin_memory=False,
    requires_grad=False,
):
    """normal's body, its call one of the overloads (normal checks it)"""
    mean_t, std_t = isinstance(mean, _C.Tensor), isinstance(std, _C.Tensor)
    if not mean_t and not std_t:
        mean, std = builtins.float(mean), builtins.float(std)  # (the parser's double: a 0-d tensor too)
        if not std >= 0:  # NaN too
            raise RuntimeError(f"normal expects std >= 0.0, but found std {_std_fmt(std)}")
        if out is not None:
            dtype, device = dtype or out.dtype, device or out.device
        z = _C.randn(tuple(size), generator=generator, dtype=dtype, device=device)
        if mean != 0 or std != 1:
            with _C._fresh_writes:  # the writes that build the result leave its version at 0, as PyTorch's
                z.mul_(std).add_(mean)
        return _write_out(z.requires_grad_(requires_grad) if requires_grad else z, out)
    ref = mean if mean_t else std
    if std_t and std.is_complex():
        raise RuntimeError("normal expects standard deviation to be non-complex")
    if std_t:
        if not builtins.bool((std >= 0).all()):  # NaN too
            raise RuntimeError("normal expects all elements of std >= 0.0")
    else:
        std = builtins.float(std)
        if not std >= 0:
            raise RuntimeError(f"normal expects std >= 0.0, but found std {_std_fmt(std)}")
    if mean_t and std_t and not (ref.is_complex() or ref.is_floating_point()):
        _composite_shape._check_pair(
            tuple(mean.shape), tuple(std.shape)
        )  # ATen's infer_size before its kernel
    if not (ref.is_complex() or ref.is_floating_point()):
        # PyTorch draws into an empty tensor like `ref` and writes std * z + mean there: with nothing to draw
        # no kernel refuses the dtype, only the in-place product by a floating std does
        if (mean.numel() == 0 if mean_t else True) and (std.numel() == 0 if std_t else True):
            # (std's product in place: a bool mean refuses an integer std too, by type promotion)
            promoted = _C.promote_types(mean.dtype, std.dtype) if mean_t and std_t else None
            if promoted is not None and not _C.can_cast(promoted, mean.dtype):
                raise RuntimeError(
                    f"result type {scalar_name(promoted)} can't be cast to the desired output type "
                    f"{scalar_name(mean.dtype)}"
                )
            shape = _functional.broadcast_shapes(
                tuple(mean.shape) if mean_t else (), tuple(std.shape) if std_t else ()
            )
            return _write_out(_C.empty(shape, dtype=ref.dtype, device=ref.device), out)
        _check_float(ref, "normal_kernel")  # (a complex mean draws each part with variance std^2 / 2)
    if not mean_t:
        mean = builtins.float(mean)
    if mean_t and not std_t:
        shape = tuple(mean.shape)
    else:
        a, b = tuple(mean.shape) if mean_t else (), tuple(std.shape) if std_t else ()
        _composite_shape._check_pair(a, b)  # ATen's infer_size wording (mean is a, std b)
        shape = _functional.broadcast_shapes(a, b)
    if generator is None and mean_t and not std_t and mean.is_contiguous():
        # randn_like of a contiguous mean is randn(shape) in its dtype and device, the same draws, without the
        # keyword arguments (each costs the binding about a microsecond)
        z = _C.randn_like(mean)
    else:
        z = _C.randn(shape, generator=generator, dtype=ref.dtype, device=ref.device)
    # written as mean + std * z, the result carries gradients to a mean and std that require them; its dtype
    # is the tensor mean's (else std's), as PyTorch's output like mean: a bfloat16 std keeps a float16 mean.
    if not std_t and not mean.requires_grad:
        # in place on the fresh draws: z * std + mean rounds as mean + std * z does (the same two operations,
        # each commutative), without two more tensors; std = 1 (the default) skips the product (1 * z is z)
        with _C._fresh_writes:  # the writes that build the result leave its version at 0, as PyTorch's
            if std != 1:
                z.mul_(std)
            z.add_(mean)
        return _write_out(z, out)
    r = mean + std * z
    return _write_out(r if r.dtype == ref.dtype else r.to(ref.dtype), out)


_NO_P = object()  # p not given (None is a value PyTorch's parser refuses)
_BERNOULLI_SIGNATURES = (
    "Tensor input, *, Generator? generator=None, Tensor? out=None",
    "Tensor input, float p, *, Generator? generator=None",
)


def bernoulli(input, p=_NO_P, *, generator=None, out=None):
    """0/1 samples with probabilities `input` (element-wise, each in [0, 1]), or with the one probability p
    in a tensor shaped like input; the result has input's dtype."""
    _argcheck.check_tensor("bernoulli", "input", 1, input)
    # p, when given, is the second overload's float: a number or a 0-d tensor (not None, a str, a 1-d tensor)
    if p is not _NO_P and not (isinstance(p, numbers.Real) or _argcheck._plain_0d(p)):
        _argcheck.check_call("bernoulli", _BERNOULLI_SIGNATURES, (input, p), {})
    if p is not _NO_P:
        with _C._fresh_writes:  # the draw that builds the result leaves its version at 0, as PyTorch's
            r = _C.empty_like(input).bernoulli_(p, generator=generator)
        return _write_out(r, out)
    if not input.dtype.is_floating_point and input.numel():  # PyTorch runs no kernel on an empty input
        kind = "cuda" if input.is_cuda else "cpu"
        raise NotImplementedError(
            f"\"bernoulli_tensor_{kind}_p_\" not implemented for '{scalar_name(input.dtype)}'"
        )
    if not input.is_meta:
        # the same check and draws (rand in float32 or float64 below p) in one C++ call: the composite's eight
        # tensor calls were 4x PyTorch's time on an 8x8 input
        with _C._fresh_writes:  # the draw that builds the result leaves its version at 0, as PyTorch's
            r = _C.empty(tuple(input.shape), dtype=input.dtype, device=input.device)
            r.bernoulli_(input, generator=generator)
        return _write_out(r, out)
    with grad_mode.no_grad():
        # a meta p has no values to check: its draw is shape-only (float32 draws at least, as the C++ call's)
        cdtype = input.dtype if input.dtype == _C.float64 else _C.float32
        u = _C.rand(tuple(input.shape), generator=generator, dtype=cdtype, device=input.device)
        r = (u < input.to(cdtype)).to(input.dtype)
    return _write_out(r, out)


def _tensor_bernoulli(self, p=_NO_P, *, generator=None):
    """Bernoulli samples with probabilities self (p not given) or the one probability p; see torch.bernoulli."""
    if isinstance(p, _C.Tensor) and p.dim() == 0:  # a float argument takes a 0-d tensor, as PyTorch's parser
        p = p.item()
    if p is not _NO_P and not isinstance(p, (builtins.int, builtins.float)):
        raise TypeError(
            f"bernoulli() received an invalid combination of arguments - got ({type(p).__name__}), but "
            "expected one of:\n * (*, torch.Generator generator = None)\n"
            " * (float p, *, torch.Generator generator = None)\n"
        )
    return bernoulli(self, p, generator=generator)


def get_rng_state():
    """The state of the default CPU generator, as a 16-byte uint8 tensor (for set_rng_state)."""
    return _C.default_generator.get_state()


def set_rng_state(new_state):
    """Restores the default CPU generator to a state from get_rng_state(): the same numbers follow again."""
    if not isinstance(new_state, _C.Tensor):
        raise TypeError(f"expected a torch.ByteTensor, but got {type(new_state).__name__}")
    _C.default_generator.set_state(new_state)


# Tensor methods installed by minitorch/_tensor.py (name -> function taking the tensor first)
TENSOR_METHODS = {
    "bernoulli": _tensor_bernoulli,
}
