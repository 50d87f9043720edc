"""torch's window functions (hann, hamming, blackman, bartlett, kaiser), computed in float64 then cast."""

import builtins
import math

from minitorch import _C, _argcheck, _creation, _device
from minitorch._dtype_names import cpp_name

__all__ = ["bartlett_window", "blackman_window", "hamming_window", "hann_window", "kaiser_window"]


def _window_checks(name, window_length, dtype):
    """the length as an int (the parser's int: a 0-d integer tensor too), after PyTorch's checks"""
    if not _argcheck._int_like(window_length, True):
        raise TypeError(
            f"{name}(): argument 'window_length' (position 1) must be int, not {type(window_length).__name__}"
        )
    window_length = builtins.int(window_length)
    if window_length < 0:
        raise RuntimeError(f"{name} requires non-negative window_length, got window_length={window_length}")
    if dtype is not None and not dtype.is_floating_point:
        dev = _device.get_default_device()
        raise RuntimeError(
            f"{name} expects floating point dtypes, got: TensorOptions(dtype={cpp_name(dtype)}, "
            f"device={dev}, layout=Strided (default), requires_grad=false (default), pinned_memory=false, "
            "memory_format=(nullopt))"
        )
    return builtins.int(window_length)


def _kinds(*values):
    return ", ".join(type(v).__name__ for v in values)


def _window(name, window_length, periodic, dtype, device, requires_grad, formula):
    """formula(x) maps x = n / (N - 1) in [0, 1] (float64 tensor) to the symmetric window's values."""
    # PyTorch's two signatures, (window_length) and (window_length, bool periodic): anything else for periodic
    # matches neither
    if type(periodic) is not bool:
        raise TypeError(
            f"{name}() received an invalid combination of arguments - got ({_kinds(window_length, periodic)}), "
            f"but expected one of:\n * (int window_length, *, torch.dtype dtype = None, ...)\n"
            f" * (int window_length, bool periodic, *, torch.dtype dtype = None, ...)"
        )
    if type(requires_grad) is not bool:
        raise TypeError(
            f"{name}(): argument 'requires_grad' must be bool, not {type(requires_grad).__name__}"
        )
    window_length = _window_checks(name, window_length, dtype)
    dtype = dtype or _C.get_default_dtype()
    if window_length <= 1:
        w = _C.ones(window_length, dtype=dtype, device=device)
    else:
        # a periodic window is the symmetric one of length + 1 without its last point
        denom = window_length if periodic else window_length - 1
        x = _C.arange(window_length, dtype=_C.float64, device=device) / denom
        w = formula(x).to(dtype)
    return w.requires_grad_(requires_grad) if requires_grad else w


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
    periodic (the default) else window_length; I0 in float64 (torch.i0's kernel: one pass, not a power series
    summed a term per pass)."""

    def formula(x):
        arg = beta * (1 - (2 * x - 1) ** 2).clamp(min=0).sqrt()
        return _C.i0(arg) / _C.i0(_creation.tensor([float(beta)], dtype=_C.float64, device=x.device))

    return _window("kaiser_window", window_length, periodic, dtype, device, requires_grad, formula)
