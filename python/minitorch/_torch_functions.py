"""The rest of PyTorch's torch namespace that is not an op of ours: dtype limits (finfo/iinfo), process-wide
switches (determinism, warnings, interop threads), random-number sampling functions, window functions,
and the torch-level spellings PyTorch keeps for nn.functional ops and in-place Tensor methods."""

import builtins
import math
import os
import sys

from minitorch import _C, _argcheck, _composite_math, _composite_shape, _creation, _device
from minitorch import functional as _functional
from minitorch._dtype_names import cpp_name, scalar_name
from minitorch.autograd import grad_mode

# the Tensor methods and torch names the sibling modules install (after this module is imported)
_SIBLING_METHODS = set(_composite_math.TENSOR_METHODS) | set(_composite_shape.TENSOR_METHODS)
_SIBLING_NAMES = set(_composite_math.__all__) | set(_composite_shape.__all__)


def _tensor_has(name):
    return hasattr(_C.Tensor, name) or name in _SIBLING_METHODS


__all__ = []
# Tensor methods installed by minitorch/__init__.py (name -> function taking the tensor first)
TENSOR_METHODS = {}


def _export(fn):
    __all__.append(fn.__name__)
    return fn


def _method(name):
    def deco(fn):
        # the extension grows methods over time; one it has now wins over this composite
        if not _tensor_has(name):
            TENSOR_METHODS[name] = fn
        return fn

    return deco


def _check_tensor(fname, argname, pos, x):
    if not isinstance(x, _C.Tensor):
        raise TypeError(
            f"{fname}(): argument '{argname}' (position {pos}) must be Tensor, not {type(x).__name__}"
        )


def _dname(dtype):
    return str(dtype).replace("torch.", "")


# ---------------------------------------------------------------- finfo / iinfo

# bits, eps, max, tiny (smallest normal), by definition of each IEEE-style format
_FINFO = {
    "float32": (32, 2.0**-23, (2 - 2.0**-23) * 2.0**127, 2.0**-126),
    "float64": (64, 2.0**-52, (2 - 2.0**-52) * 2.0**1023, 2.0**-1022),
    "float16": (16, 2.0**-10, 65504.0, 2.0**-14),
    "bfloat16": (16, 2.0**-7, (2 - 2.0**-7) * 2.0**127, 2.0**-126),
}
_IINFO = {
    "int64": (64, -(2**63), 2**63 - 1),
    "int32": (32, -(2**31), 2**31 - 1),
    "int16": (16, -(2**15), 2**15 - 1),
    "int8": (8, -128, 127),
    "uint8": (8, 0, 255),
}


def _check_dtype_arg(cls, t):
    if not isinstance(t, _C.dtype):
        raise TypeError(f"{cls}(): argument 'type' (position 1) must be torch.dtype, not {type(t).__name__}")


@_export
class finfo:
    """Numerical properties of a floating dtype (default: the default dtype): bits, eps, max, min, tiny,
    smallest_normal, resolution and dtype, as PyTorch's torch.finfo."""

    def __init__(self, type=None):
        if type is None:
            type = _C.get_default_dtype()
        _check_dtype_arg("finfo", type)
        if type.is_complex:  # a complex dtype's properties are those of its parts
            type = type.to_real()
        name = _dname(type)
        if name not in _FINFO:
            raise TypeError(
                "torch.finfo() requires a floating point input type. Use torch.iinfo to handle 'torch.finfo'"
            )
        self.bits, self.eps, self.max, self.tiny = _FINFO[name]
        self.min = -self.max
        self.smallest_normal = self.tiny
        # PyTorch's (and NumPy's) resolution: 10 ** -(decimal digits the format carries)
        self.resolution = 10.0 ** -math.floor(-math.log10(self.eps))
        self.dtype = name

    def __eq__(self, other):
        return isinstance(other, finfo) and self.dtype == other.dtype

    def __hash__(self):
        return hash(("finfo", self.dtype))

    def __repr__(self):
        return (
            f"finfo(resolution={self.resolution:g}, min={self.min:g}, max={self.max:g}, eps={self.eps:g}, "
            f"smallest_normal={self.smallest_normal:g}, tiny={self.tiny:g}, dtype={self.dtype})"
        )

    __str__ = __repr__


@_export
class iinfo:
    """Numerical properties of an integer dtype: bits, max, min and dtype, as PyTorch's torch.iinfo."""

    def __init__(self, type):
        _check_dtype_arg("iinfo", type)
        name = _dname(type)
        if name == "bool":
            raise TypeError("torch.bool is not supported by torch.iinfo")
        if name not in _IINFO:
            raise TypeError(
                "torch.iinfo() requires an integer input type. Use torch.finfo to handle 'torch.iinfo'"
            )
        self.bits, self.min, self.max = _IINFO[name]
        self.dtype = name

    def __eq__(self, other):
        return isinstance(other, iinfo) and self.dtype == other.dtype

    def __hash__(self):
        return hash(("iinfo", self.dtype))

    def __repr__(self):
        return f"iinfo(min={float(self.min):g}, max={float(self.max):g}, dtype={self.dtype})"

    __str__ = __repr__


# ---------------------------------------------------------------- process-wide switches

# Our kernels give the same result run to run except CUDA scatter/index_put with accumulate (atomics): the
# flags are recorded for code that reads them back. They are separate from backends.cudnn.deterministic, as
# in PyTorch (cuDNN's convolutions honour either).
_state = {"deterministic": False, "warn_only": False, "warn_always": False, "interop_threads": None}


@_export
def use_deterministic_algorithms(mode, *, warn_only=False):
    """Records whether deterministic algorithms are required (PyTorch's process-wide flag). minitorch's ops
    are deterministic except CUDA scatter/index_put with accumulate, which do not check the flag."""
    if not isinstance(mode, builtins.bool):
        raise TypeError(
            "_set_deterministic_algorithms(): argument 'mode' (position 1) must be bool, not "
            f"{type(mode).__name__}"
        )
    if not isinstance(warn_only, builtins.bool):
        raise TypeError(
            "_set_deterministic_algorithms(): argument 'warn_only' must be bool, not "
            f"{type(warn_only).__name__}"
        )
    _state["deterministic"] = mode
    _state["warn_only"] = warn_only if mode else False


@_export
def are_deterministic_algorithms_enabled():
    """True after use_deterministic_algorithms(True)."""
    return _state["deterministic"]


@_export
def is_deterministic_algorithms_warn_only_enabled():
    """True after use_deterministic_algorithms(True, warn_only=True)."""
    return _state["warn_only"]


@_export
def set_deterministic_debug_mode(debug_mode):
    """The determinism flags by one value: 'default'/0 (off), 'warn'/1 (on, warn only), 'error'/2 (on)."""
    if isinstance(debug_mode, str):
        names = ("default", "warn", "error")
        if debug_mode not in names:
            raise RuntimeError(
                "invalid value of debug_mode, expected one of `default`, `warn`, `error`, but got "
                f"{debug_mode}"
            )
        debug_mode = names.index(debug_mode)
    elif isinstance(debug_mode, builtins.int) and not isinstance(debug_mode, builtins.bool):
        if debug_mode not in (0, 1, 2):
            raise RuntimeError(f"invalid value of debug_mode, expected 0, 1, or 2, but got {debug_mode}")
    else:
        raise TypeError(f"debug_mode must be str or int, but got {type(debug_mode)}")
    use_deterministic_algorithms(debug_mode != 0, warn_only=debug_mode == 1)


@_export
def get_deterministic_debug_mode():
    """0 when determinism is off, 1 when it only warns, 2 when it is required (see set_deterministic_debug_mode)."""
    if not _state["deterministic"]:
        return 0
    return 1 if _state["warn_only"] else 2


@_export
def set_warn_always(b):
    """Records PyTorch's warn-always flag (warnings that fire once per process would fire every time)."""
    _state["warn_always"] = builtins.bool(b)


@_export
def is_warn_always_enabled():
    """The flag set by set_warn_always."""
    return _state["warn_always"]


@_export
def get_num_interop_threads():
    """Threads for inter-op parallelism. minitorch runs ops one after another on the calling thread (the
    intra-op pool is get_num_threads); this reports the value set, else the core count, as PyTorch's default."""
    n = _state["interop_threads"]
    return n if n is not None else (os.cpu_count() or 1)


@_export
def set_num_interop_threads(num):
    """Records the inter-op thread count (see get_num_interop_threads); it must be positive."""
    if not isinstance(num, builtins.int) or num <= 0:
        raise RuntimeError("set_num_interop_threads expects a positive integer")
    _state["interop_threads"] = num


@_export
def set_flush_denormal(mode):
    """PyTorch sets the CPU's flush-to-zero mode here; minitorch cannot set it, so this returns False (as
    PyTorch does on a CPU without the mode) and subnormal numbers keep their values."""
    return False


@_export
def typename(obj):
    """The type name PyTorch prints: 'torch.FloatTensor' (or 'torch.cuda.FloatTensor') for a tensor, the
    qualified class name otherwise."""
    if isinstance(obj, _C.Tensor):
        return obj.type()
    module = ""
    cls = getattr(obj, "__class__", type(obj))
    if getattr(cls, "__module__", "builtins") not in ("builtins", "__builtin__", None):
        module = cls.__module__ + "."
    # minitorch's classes answer with PyTorch's module paths, so code that compares the strings works
    if module.startswith("minitorch."):
        module = "torch." + module[len("minitorch.") :]
    return module + getattr(cls, "__qualname__", cls.__name__)


@_export
def is_complex(input):
    """True for a complex64/complex128 tensor."""
    _check_tensor("is_complex", "input", 1, input)
    return input.dtype.is_complex


@_export
@_method("is_nonzero")
def is_nonzero(input):
    """The truth value of a one-element tensor; an error for an empty or a larger one."""
    _check_tensor("is_nonzero", "input", 1, input)
    return builtins.bool(input)


@_export
@_method("is_signed")
def is_signed(input):
    """True when the tensor's dtype can hold negative values."""
    _check_tensor("is_signed", "input", 1, input)
    return input.dtype.is_signed


@_export
@_method("is_same_size")
def is_same_size(input, other):
    """True when the two tensors have the same shape."""
    _check_tensor("is_same_size", "input", 1, input)
    _check_tensor("is_same_size", "other", 2, other)
    return tuple(input.shape) == tuple(other.shape)


# ---------------------------------------------------------------- random sampling


def _std_fmt(v):
    return f"{v:g}"


def _check_float(t, what):
    if not t.dtype.is_floating_point:
        kind = "cuda" if t.is_cuda else "cpu"
        raise NotImplementedError(f"\"{what}_{kind}\" not implemented for '{scalar_name(t.dtype)}'")


def _write_out(result, out):
    if out is None:
        return result
    with grad_mode.no_grad():
        out.copy_(result)
    return out


@_export
def normal(
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
    """Normal samples, PyTorch's four overloads: normal(Tensor mean, Tensor std), normal(Tensor mean,
    float std=1), normal(float mean, Tensor std) (element-wise means and standard deviations, broadcast), and
    normal(float mean, float std, size, *, dtype, device, requires_grad) (a new tensor of that size)."""
    mean_t, std_t = isinstance(mean, _C.Tensor), isinstance(std, _C.Tensor)
    if not mean_t and not std_t:
        if size is None:
            raise TypeError(
                f"normal() received an invalid combination of arguments - got ({type(mean).__name__}, "
                f"{type(std).__name__}), but expected one of:\n"
                " * (Tensor mean, Tensor std, *, torch.Generator generator = None, Tensor out = None)\n"
                " * (Tensor mean, float std = 1, *, torch.Generator generator = None, Tensor out = None)\n"
                " * (float mean, Tensor std, *, torch.Generator generator = None, Tensor out = None)\n"
                " * (float mean, float std, tuple of ints size, *, torch.Generator generator = None, "
                "Tensor out = None, torch.dtype dtype = None, torch.layout layout = None, torch.device device "
                "= None, bool pin_memory = False, bool requires_grad = False)\n"
            )
        if std < 0:
            raise RuntimeError(f"normal expects std >= 0.0, but found std {_std_fmt(std)}")
        if isinstance(size, builtins.int):
            size = (size,)
        if out is not None:
            dtype, device = dtype or out.dtype, device or out.device
        z = _C.randn(tuple(size), generator=generator, dtype=dtype, device=device)
        if mean != 0 or std != 1:
            z.mul_(std).add_(mean)
        return _write_out(z.requires_grad_(requires_grad) if requires_grad else z, out)
    if size is not None:
        raise TypeError("normal(): a size is taken only with float mean and float std")
    ref = mean if mean_t else std
    _check_float(ref, "normal_kernel")
    if std_t:
        if builtins.bool((std < 0).any()):
            raise RuntimeError("normal expects all elements of std >= 0.0")
    elif std < 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {_std_fmt(std)}")
    shape = _functional.broadcast_shapes(
        tuple(mean.shape) if mean_t else (), tuple(std.shape) if std_t else ()
    )
    z = _C.randn(shape, generator=generator, dtype=ref.dtype, device=ref.device)
    # written as mean + std * z, the result carries gradients to a mean and std that require them; its dtype
    # is the tensor mean's (else std's), as PyTorch's output like mean: a bfloat16 std keeps a float16 mean
    r = mean + std * z
    return _write_out(r if r.dtype == ref.dtype else r.to(ref.dtype), out)


@_export
def bernoulli(input, p=None, *, generator=None, out=None):
    """0/1 samples with probabilities `input` (element-wise, each in [0, 1]), or with the one probability p
    in a tensor shaped like input; the result has input's dtype."""
    _check_tensor("bernoulli", "input", 1, input)
    if p is not None:
        r = _C.empty_like(input).bernoulli_(p, generator=generator)
        return _write_out(r, out)
    if not input.dtype.is_floating_point:
        kind = "cuda" if input.is_cuda else "cpu"
        raise NotImplementedError(
            f"\"bernoulli_tensor_{kind}_p_\" not implemented for '{scalar_name(input.dtype)}'"
        )
    with grad_mode.no_grad():
        if not builtins.bool(((input >= 0) & (input <= 1)).all()):
            raise RuntimeError(
                "Expected p_in >= 0 && p_in <= 1 to be true, but got false.  (Could this error message be "
                "improved?  If so, please report an enhancement request to PyTorch.)"
            )
        # float32 draws at least: a float16 uniform rounds up to 1.0 too often to compare against p
        cdtype = input.dtype if input.dtype == _C.float64 else _C.float32
        u = _C.rand(tuple(input.shape), generator=generator, dtype=cdtype, device=input.device)
        r = (u < input.to(cdtype)).to(input.dtype)
    return _write_out(r, out)


@_method("bernoulli")
def _tensor_bernoulli(self, p=None, *, generator=None):
    """Bernoulli samples with probabilities self (p=None) or the one probability p; see torch.bernoulli."""
    if p is not None and not isinstance(p, (builtins.int, builtins.float)):
        raise TypeError(
            f"bernoulli() received an invalid combination of arguments - got ({type(p).__name__}), but "
            "expected one of:\n * (*, torch.Generator generator = None)\n"
            " * (float p, *, torch.Generator generator = None)\n"
        )
    return bernoulli(self, p, generator=generator)


def _continuous(self, dist):
    if not self.dtype.is_floating_point:
        raise RuntimeError(
            f"{dist} distribution is a continuous probability distribution. dtype must be a floating point "
            f"but you specified {scalar_name(self.dtype)}"
        )


@_method("exponential_")
def exponential_(self, lambd=1.0, *, generator=None):
    """Fills self with Exponential(lambd) samples, -log(1 - U) / lambd for U ~ Uniform[0, 1)."""
    if not lambd > 0.0:
        raise RuntimeError(f"exponential_ expects lambda > 0.0, but found lambda={_std_fmt(lambd)}")
    _continuous(self, "Exponential")
    with grad_mode.no_grad():
        w = _C.empty(tuple(self.shape), dtype=_work_dtype(self), device=self.device)
        w.uniform_(generator=generator).neg_().log1p_().mul_(-1.0 / lambd)
        self.copy_(w)
    return self


def _work_dtype(self):
    return _C.float64 if self.dtype == _C.float64 else _C.float32


@_method("log_normal_")
def log_normal_(self, mean=1.0, std=2.0, *, generator=None):
    """Fills self with log-normal samples: exp(X) for X ~ Normal(mean, std)."""
    if not std > 0.0:
        raise RuntimeError(f"log_normal_ expects std > 0.0, but found std={_std_fmt(std)}")
    _check_float(self, "log_normal")
    with grad_mode.no_grad():
        w = _C.empty(tuple(self.shape), dtype=_work_dtype(self), device=self.device)
        w.normal_(mean, std, generator=generator).exp_()
        self.copy_(w)
    return self


@_method("cauchy_")
def cauchy_(self, median=0.0, sigma=1.0, *, generator=None):
    """Fills self with Cauchy(median, sigma) samples, median + sigma * tan(pi * (U - 1/2))."""
    if not sigma > 0.0:
        raise RuntimeError(f"cauchy_ expects sigma > 0.0, but found sigma={_std_fmt(sigma)}")
    if not self.dtype.is_floating_point:
        raise RuntimeError(
            "Cauchy distribution is a continuous probability distribution. dtype must be a floating point "
            f"but you specified {cpp_name(self.dtype)}"
        )
    with grad_mode.no_grad():
        w = _C.empty(tuple(self.shape), dtype=_work_dtype(self), device=self.device)
        w.uniform_(generator=generator).sub_(0.5).mul_(math.pi).tan_().mul_(sigma).add_(median)
        self.copy_(w)
    return self


@_method("geometric_")
def geometric_(self, p, *, generator=None):
    """Fills self with Geometric(p) samples: the number of Bernoulli(p) trials up to the first success
    (1, 2, ...), as ceil(log(1 - U) / log(1 - p)); integer tensors are allowed."""
    if not 0.0 < p < 1.0:
        raise RuntimeError(f"geometric_ expects p to be in (0, 1), but got p={_std_fmt(p)}")
    with grad_mode.no_grad():
        w = _C.empty(tuple(self.shape), dtype=_C.float64, device=self.device)
        # U = 0 (probability 2**-53) would give 0 trials; the support starts at 1
        w.uniform_(generator=generator).neg_().log1p_().div_(math.log1p(-p)).ceil_().clamp_(min=1.0)
        self.copy_(w)
    return self


# ---------------------------------------------------------------- window functions


def _window_checks(name, window_length, dtype):
    if not isinstance(window_length, builtins.int) or isinstance(window_length, builtins.bool):
        raise TypeError(
            f"{name}(): argument 'window_length' (position 1) must be int, not {type(window_length).__name__}"
        )
    if window_length < 0:
        raise RuntimeError(f"{name} requires non-negative window_length, got window_length={window_length}")
    if dtype is not None and not dtype.is_floating_point:
        dev = _device.get_default_device()
        raise RuntimeError(
            f"{name} expects floating point dtypes, got: TensorOptions(dtype={cpp_name(dtype)}, "
            f"device={dev}, layout=Strided (default), requires_grad=false (default), pinned_memory=false, "
            "memory_format=(nullopt))"
        )


def _window(name, window_length, periodic, dtype, device, requires_grad, formula):
    """formula(x) maps x = n / (N - 1) in [0, 1] (float64 tensor) to the symmetric window's values."""
    _window_checks(name, window_length, dtype)
    dtype = dtype or _C.get_default_dtype()
    if window_length <= 1:
        w = _C.ones(window_length, dtype=dtype, device=device)
    else:
        # a periodic window is the symmetric one of length + 1 without its last point
        denom = window_length if periodic else window_length - 1
        x = _C.arange(window_length, dtype=_C.float64, device=device) / denom
        w = formula(x).to(dtype)
    return w.requires_grad_(requires_grad) if requires_grad else w


@_export
def hann_window(
    window_length,
    periodic=True,
    *,
    dtype=None,
    layout=None,
    device=None,
    pin_memory=False,
    requires_grad=False,
):
    """Hann window: 0.5 - 0.5 cos(2 pi n / (N - 1)), N = window_length + 1 when periodic (the default, for
    stft) else window_length. Computed in float64, then cast to dtype (default: the default dtype)."""
    return _window(
        "hann_window",
        window_length,
        periodic,
        dtype,
        device,
        requires_grad,
        lambda x: 0.5 - 0.5 * (2 * math.pi * x).cos(),
    )


@_export
def hamming_window(
    window_length,
    periodic=True,
    alpha=0.54,
    beta=0.46,
    *,
    dtype=None,
    layout=None,
    device=None,
    pin_memory=False,
    requires_grad=False,
):
    """Hamming window: alpha - beta cos(2 pi n / (N - 1)), N = window_length + 1 when periodic (the
    default) else window_length."""
    return _window(
        "hamming_window",
        window_length,
        periodic,
        dtype,
        device,
        requires_grad,
        lambda x: alpha - beta * (2 * math.pi * x).cos(),
    )


@_export
def blackman_window(
    window_length,
    periodic=True,
    *,
    dtype=None,
    layout=None,
    device=None,
    pin_memory=False,
    requires_grad=False,
):
    """Blackman window: 0.42 - 0.5 cos(2 pi n / (N - 1)) + 0.08 cos(4 pi n / (N - 1)), N = window_length + 1
    when periodic (the default) else window_length."""
    return _window(
        "blackman_window",
        window_length,
        periodic,
        dtype,
        device,
        requires_grad,
        lambda x: 0.42 - 0.5 * (2 * math.pi * x).cos() + 0.08 * (4 * math.pi * x).cos(),
    )


@_export
def bartlett_window(
    window_length,
    periodic=True,
    *,
    dtype=None,
    layout=None,
    device=None,
    pin_memory=False,
    requires_grad=False,
):
    """Bartlett (triangular) window: 1 - |2n / (N - 1) - 1|, N = window_length + 1 when periodic (the
    default) else window_length."""
    return _window(
        "bartlett_window",
        window_length,
        periodic,
        dtype,
        device,
        requires_grad,
        lambda x: 1 - (2 * x - 1).abs(),
    )


def _i0(x):
    """Modified Bessel function I0 of a non-negative float64 tensor: its power series sum ((x/2)^k / k!)^2,
    summed until the terms stop adding anything. The terms peak near k = x/2, so about x + 40 of them are
    enough; for x above ~700 I0 overflows float64, as PyTorch's does."""
    q = (x * 0.5) ** 2
    term = _C.ones_like(x)
    total = _C.ones_like(x)
    k = 1
    limit = float(x.max()) + 60 if x.numel() else 0
    while k < limit:
        term = term * q / (k * k)
        total = total + term
        k += 1
    return total


@_export
def kaiser_window(
    window_length,
    periodic=True,
    beta=12.0,
    *,
    dtype=None,
    layout=None,
    device=None,
    pin_memory=False,
    requires_grad=False,
):
    """Kaiser window: I0(beta sqrt(1 - (2n / (N - 1) - 1)^2)) / I0(beta), N = window_length + 1 when
    periodic (the default) else window_length; I0 by its power series in float64."""

    def formula(x):
        arg = beta * (1 - (2 * x - 1) ** 2).clamp(min=0).sqrt()
        return _i0(arg) / _i0(_creation.tensor([float(beta)], dtype=_C.float64, device=x.device))

    return _window("kaiser_window", window_length, periodic, dtype, device, requires_grad, formula)


_LOGSPACE = (
    "{} start, {} end, int steps, float base=10.0, *, Tensor? out=None, ScalarType? dtype=None, Layout? layout=None, "
    "Device? device=None, bool pin_memory=False, bool requires_grad=False"
)


@_export
@_argcheck.parses(*(_LOGSPACE.format(a, b) for a in ("Tensor", "Scalar") for b in ("Tensor", "Scalar")))
def logspace(
    start,
    end,
    steps,
    base=10.0,
    *,
    out=None,
    dtype=None,
    layout=None,
    device=None,
    requires_grad=False,
    pin_memory=False,
):
    """steps values base ** e for e evenly spaced from start to end (both included), the power in float64
    then cast to dtype (an integer dtype truncates, as PyTorch's does)."""
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    for what, v in (("start", start), ("end", end)):
        if isinstance(v, _C.Tensor) and v.dim() != 0:
            raise RuntimeError(
                f"logspace only supports 0-dimensional start and end tensors, but got {what} with {v.dim()} "
                "dimension(s)."
            )
    if out is not None:
        dtype, device = dtype or out.dtype, device or out.device
    dtype = dtype or _C.get_default_dtype()
    # PyTorch's kernel: the exponents spaced in the result's float dtype (float32 2147483647 is 2^31, even,
    # so (-1.5) ** it is +inf), the power taken in double and rounded once; integer dtypes space in double
    spaced = dtype if dtype.is_floating_point else _C.float64
    e = _C.linspace(start, end, steps, dtype=spaced, device=device).to(_C.float64)
    r = _C.pow(float(base), e).to(dtype)
    if requires_grad:
        r.requires_grad_(True)
    return _write_out(r, out)


@_export
def empty_strided(
    size, stride, *, dtype=None, layout=None, device=None, requires_grad=False, pin_memory=False
):
    """An uninitialized tensor with the given sizes and strides, over storage just large enough for them."""
    size, stride = tuple(size), tuple(stride)
    if len(size) != len(stride):
        raise RuntimeError(
            f"dimensionality of sizes ({len(size)}) must match dimensionality of strides ({len(stride)})"
        )
    n = 0 if any(s == 0 for s in size) else 1 + sum((s - 1) * st for s, st in zip(size, stride))
    r = _C.empty(n, dtype=dtype, device=device).as_strided(size, stride)
    return r.requires_grad_(True) if requires_grad else r


def _is_numpy(obj):
    return type(obj).__module__ == "numpy" and hasattr(obj, "__array_interface__")


@_export
def asarray(obj, *, dtype=None, device=None, copy=None, requires_grad=False):
    """obj as a tensor: a tensor itself (or a NumPy array's memory, shared) when dtype and device allow and
    copy is not True; a copy when copy=True; copy=False where a copy is needed raises ValueError."""
    if isinstance(obj, _C.Tensor):
        src = obj
    elif _is_numpy(obj) and getattr(obj, "ndim", 0) > 0:
        src = _C.from_numpy(obj) if obj.flags.writeable and obj.dtype.isnative else _creation.tensor(obj)
    else:
        if copy is False:
            raise ValueError("can't alias arbitrary sequence into a tensor.")
        r = _creation.tensor(obj, dtype=dtype, device=device)
        return r.requires_grad_(True) if requires_grad else r
    want_dtype = dtype or src.dtype
    want_device = _C.device(device) if device is not None else src.device
    if copy is False:
        if want_dtype != src.dtype:
            raise ValueError(
                f"can't alias tensor with dtype '{scalar_name(src.dtype)}' into dtype "
                f"'{scalar_name(want_dtype)}'."
            )
        if want_device.type != src.device.type:
            raise ValueError(f"can't alias tensor on device '{src.device}' into device '{want_device}'.")
    r = src.to(dtype=want_dtype, device=want_device)
    if copy and r is src:
        r = src.clone()
    if r is obj and not requires_grad:
        return r
    if requires_grad:
        r = r.detach() if r is obj else r
        r.requires_grad_(True)
    return r


# ---------------------------------------------------------------- torch-level in-place spellings

# the in-place names PyTorch spells at torch level too (the elementwise table's come from csrc/ops/ops.schema,
# bound in C++)
_INPLACE = [
    "clamp_",
    "clip_",
    "detach_",
    "fill_",
    "index_put_",
    "rad2deg_",
    "zero_",
    "clamp_min_",
    "clamp_max_",
]


def _make_inplace(name):
    def fn(input, *args, **kwargs):
        return getattr(input, name)(*args, **kwargs)

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"{name}(input, ...) -> Tensor: torch's spelling of Tensor.{name}, in place on input."
    return fn


for _name in _INPLACE:
    if _tensor_has(_name) and _name not in globals() and _name not in _SIBLING_NAMES:
        globals()[_name] = _make_inplace(_name)
        __all__.append(_name)
del _name


@_export
def fill(input, value):
    """A new tensor shaped like input (its dtype and device) filled with value (a number or a 0-dim tensor).
    A value tensor that requires grad receives the sum of the result's gradient, as PyTorch's."""
    if (
        isinstance(value, _C.Tensor)
        and value.requires_grad
        and value.dim() == 0
        and input.is_floating_point()
    ):
        return value.to(dtype=input.dtype, device=input.device).expand(input.shape).contiguous()
    return input.clone().fill_(value)


@_export
def detach(input):
    """input.detach(): the same data, cut from the autograd graph."""
    return input.detach()


# ---------------------------------------------------------------- torch-level nn ops (torch signatures)


def _F():
    from minitorch.nn import functional

    return functional


_REDUCTIONS = ("none", "mean", "sum")


def _reduction(fname, pos, reduction):
    # the torch-level losses take ATen's reduction enum (0 none, 1 mean, 2 sum), not F's strings
    if not isinstance(reduction, builtins.int) or isinstance(reduction, builtins.bool):
        raise TypeError(
            f"{fname}(): argument 'reduction' (position {pos}) must be int, not {type(reduction).__name__}"
        )
    if reduction not in (0, 1, 2):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    return _REDUCTIONS[reduction]


def _reuse(name, fname=None):
    def fn(*args, **kwargs):
        return getattr(_F(), fname or name)(*args, **kwargs)

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


def _reuse_dropout(name, fname, inplace):
    """torch.<name>(input, p, train): F.<fname> after ATen's check of p, in place when the name ends in _."""
    extra = {"inplace": True} if inplace else {}

    def fn(input, p, train):
        if not isinstance(train, bool):  # ATen's signature takes a bool, not an int
            raise TypeError(
                f"{name}(): argument 'train' (position 3) must be bool, not {type(train).__name__}"
            )
        _check_p(p)
        return getattr(_F(), fname)(input, p, train, **extra)

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


@_export
def feature_dropout(input, p, train):
    """Dropout of whole channels (dims 2 and on of an (N, C, ...) input), scaled by 1 / (1 - p), when train."""
    _check_p(p)
    if not train or p == 0:
        return input
    return input * _feature_mask(input, p)


@_export
def feature_dropout_(input, p, train):
    """In-place feature_dropout."""
    _check_p(p)
    if not train or p == 0:
        return input
    return input.mul_(_feature_mask(input, p))


@_export
@_argcheck.parses(
    "Tensor input, int[] normalized_shape, Tensor? weight=None, Tensor? bias=None, float eps=1e-05, "
    "bool cudnn_enable=True"
)
def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-05, cudnn_enable=True):
    """Layer normalization with torch's signature; cudnn_enable is accepted and ignored."""
    return _C._nn.layer_norm(input, normalized_shape, weight, bias, eps)


@_export
@_argcheck.parses(
    "Tensor input, int num_groups, Tensor? weight=None, Tensor? bias=None, float eps=1e-05, "
    "bool cudnn_enabled=True"
)
def group_norm(input, num_groups, weight=None, bias=None, eps=1e-05, cudnn_enabled=True):
    """Group normalization with torch's signature; cudnn_enabled is accepted and ignored. Without F's Python
    checks: ATen reads the batch and channel sizes first (an IndexError for fewer than 2 dims)."""
    input.size(0), input.size(1)
    return _F()._group_norm_op(input, num_groups, weight, bias, eps)


@_export
def batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps, cudnn_enabled):
    """Batch normalization with torch's argument order (weight and bias before the running statistics)."""
    return _F().batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps)


@_export
def instance_norm(
    input, weight, bias, running_mean, running_var, use_input_stats, momentum, eps, cudnn_enabled
):
    """Instance normalization with torch's argument order (weight and bias before the running statistics)."""
    return _F().instance_norm(input, running_mean, running_var, weight, bias, use_input_stats, momentum, eps)


@_export
def embedding(weight, indices, padding_idx=-1, scale_grad_by_freq=False, sparse=False):
    """Embedding lookup with torch's argument order (weight first); a negative padding_idx means none."""
    pidx = padding_idx if padding_idx is not None and padding_idx >= 0 else None
    return _F().embedding(indices, weight, pidx, scale_grad_by_freq=scale_grad_by_freq, sparse=sparse)


@_export
def max_pool1d(input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    """1-D max pooling with torch's signature (an empty stride means the kernel size)."""
    return _F().max_pool1d(
        input, kernel_size, stride if stride not in ((), []) else None, padding, dilation, ceil_mode
    )


@_export
def max_pool2d(input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    """2-D max pooling with torch's signature (an empty stride means the kernel size)."""
    return _F().max_pool2d(
        input, kernel_size, stride if stride not in ((), []) else None, padding, dilation, ceil_mode
    )


@_export
def max_pool3d(input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    """3-D max pooling with torch's signature (an empty stride means the kernel size)."""
    return _F().max_pool3d(
        input, kernel_size, stride if stride not in ((), []) else None, padding, dilation, ceil_mode
    )


@_export
def adaptive_max_pool1d(input, output_size):
    """1-D adaptive max pooling: torch's spelling returns (values, indices)."""
    return tuple(_F()._adaptive_max_pool1d(input, output_size))


@_export
def constant_pad_nd(input, pad, value=0):
    """Pads with a constant: F.pad(input, pad, 'constant', value)."""
    return _F().pad(input, tuple(pad), "constant", value)


# The torch.* spellings of these losses leave the loss unreduced when `reduction` is omitted (PyTorch 2.15's
# binding reads the schema's `reduction=Mean` default as 0; measured, the differential fuzzer found it), while
# the F.* spellings default to "mean". Ours follow both.


@_export
def binary_cross_entropy_with_logits(input, target, weight=None, pos_weight=None, reduction=0):
    """F.binary_cross_entropy_with_logits with torch's signature (pos_weight fourth, reduction an int:
    0 none, 1 mean, 2 sum)."""
    red = _reduction("binary_cross_entropy_with_logits", 5, reduction)
    return _F().binary_cross_entropy_with_logits(input, target, weight, reduction=red, pos_weight=pos_weight)


@_export
def kl_div(input, target, reduction=0, *, log_target=False):
    """F.kl_div with torch's signature (reduction an int: 0 none, 1 mean, 2 sum)."""
    return _F().kl_div(input, target, reduction=_reduction("kl_div", 3, reduction), log_target=log_target)


@_export
def cosine_embedding_loss(input1, input2, target, margin=0.0, reduction=0):
    """F.cosine_embedding_loss with torch's signature (reduction an int: 0 none, 1 mean, 2 sum)."""
    red = _reduction("cosine_embedding_loss", 5, reduction)
    return _F().cosine_embedding_loss(input1, input2, target, margin, reduction=red)


@_export
def hinge_embedding_loss(input, target, margin=1.0, reduction=0):
    """F.hinge_embedding_loss with torch's signature (reduction an int: 0 none, 1 mean, 2 sum)."""
    red = _reduction("hinge_embedding_loss", 4, reduction)
    return _F().hinge_embedding_loss(input, target, margin, reduction=red)


@_export
def margin_ranking_loss(input1, input2, target, margin=0.0, reduction=0):
    """F.margin_ranking_loss with torch's signature (reduction an int: 0 none, 1 mean, 2 sum)."""
    red = _reduction("margin_ranking_loss", 5, reduction)
    return _F().margin_ranking_loss(input1, input2, target, margin, reduction=red)


@_export
def poisson_nll_loss(input, target, log_input, full, eps, reduction):
    """F.poisson_nll_loss with torch's signature (every argument positional, reduction an int)."""
    red = _reduction("poisson_nll_loss", 6, reduction)
    return _F().poisson_nll_loss(input, target, log_input, full, eps=eps, reduction=red)


@_export
def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2, eps=1e-06, swap=False, reduction=0):
    """F.triplet_margin_loss with torch's signature (reduction an int: 0 none, 1 mean, 2 sum)."""
    red = _reduction("triplet_margin_loss", 8, reduction)
    return _F().triplet_margin_loss(anchor, positive, negative, margin, p, eps, swap, reduction=red)


# ---------------------------------------------------------------- compile


@_export
def compile(
    model=None,
    *,
    fullgraph=False,
    dynamic=None,
    backend="inductor",
    mode=None,
    options=None,
    disable=False,
    **kwargs,
):
    """torch.compile: minitorch.compiler.compile (see there), loaded on first use."""
    # torch.compile sits above this layer (it captures and compiles whole programs): reached through the
    # package root, which loads minitorch.compiler lazily, instead of an import from below
    compiler = sys.modules["minitorch"].compiler
    return compiler.compile(
        model,
        fullgraph=fullgraph,
        dynamic=dynamic,
        backend=backend,
        mode=mode,
        options=options,
        disable=disable,
        **kwargs,
    )


def _assert(condition, message):
    """torch._assert: raises AssertionError(message) unless condition holds (a traceable `assert`: torch.fx
    records it as a call where a Python assert statement would need a concrete value)."""
    if not condition:
        raise AssertionError(message)


__all__.append("_assert")


@_export
def get_rng_state():
    """The state of the default CPU generator, as a 16-byte uint8 tensor (for set_rng_state)."""
    return _C.default_generator.get_state()


@_export
def set_rng_state(new_state):
    """Restores the default CPU generator to a state from get_rng_state(): the same numbers follow again."""
    if not isinstance(new_state, _C.Tensor):
        raise TypeError(f"expected a torch.ByteTensor, but got {type(new_state).__name__}")
    _C.default_generator.set_state(new_state)


# torch.stft/istft (and their Tensor methods) live beside torch.fft in fft/_stft.py; importing it here also makes
# minitorch.fft an attribute of the package, as `import torch` imports torch.fft
from minitorch.fft import _stft

for _name in ("stft", "istft"):
    __all__.append(_name)
    globals()[_name] = getattr(_stft, _name)
    if not _tensor_has(_name):
        TENSOR_METHODS[_name] = getattr(_stft, _name)
del _name
