"""torch.signal.windows: SciPy-style window functions (sym= chooses the symmetric or the periodic window),
computed in the requested dtype as PyTorch's are."""

import collections.abc
import math

from minitorch import _C, _creation
from minitorch.sparse._layout import strided

__all__ = [
    "bartlett",
    "blackman",
    "cosine",
    "exponential",
    "gaussian",
    "general_cosine",
    "general_hamming",
    "hamming",
    "hann",
    "kaiser",
    "nuttall",
]


def _checks(name, M, dtype, layout):
    if M < 0:
        raise ValueError(f"{name} requires non-negative window length, got M={M}")
    if layout is not None and layout != strided:
        raise ValueError(f"{name} is implemented for strided tensors only, got: {layout}")
    if dtype not in (_C.float32, _C.float64):
        raise ValueError(f"{name} expects float32 or float64 dtypes, got: {dtype}")


def _finish(w, requires_grad):
    return w.requires_grad_() if requires_grad else w


def _trivial(M, dtype, device, requires_grad):
    """the windows of length 0 and 1, which need no formula; None for longer ones"""
    if M == 0:
        return _finish(_C.empty((0,), dtype=dtype, device=device), requires_grad)
    if M == 1:
        return _finish(_C.ones((1,), dtype=dtype, device=device), requires_grad)
    return None


def _grid(first, step, M, dtype, device):
    """M points first, first + step, ... as linspace gives them (PyTorch's windows are built on linspace)"""
    return _C.linspace(first, first + (M - 1) * step, M, dtype=dtype, device=device)


def exponential(
    M, *, center=None, tau=1.0, sym=True, dtype=None, layout=strided, device=None, requires_grad=False
):
    """exp(-|n - center| / tau); center defaults to the window's middle (only periodic windows may move it)."""
    dtype = dtype or _C.get_default_dtype()
    if sym and center is not None:
        raise ValueError("Center must be None for symmetric windows")
    _checks("exponential", M, dtype, layout)
    if tau <= 0:
        raise ValueError(f"Tau must be positive, got: {tau} instead.")
    if M == 0:
        return _trivial(M, dtype, device, requires_grad)
    if center is None:
        center = (M if not sym and M > 1 else M - 1) / 2.0
    k = _grid(-center / tau, 1 / tau, M, dtype, device)
    return _finish(_C.exp(-_C.abs(k)), requires_grad)


def cosine(M, *, sym=True, dtype=None, layout=strided, device=None, requires_grad=False):
    """sin(pi (n + 1/2) / M) (M + 1 in place of M for the periodic window)."""
    dtype = dtype or _C.get_default_dtype()
    _checks("cosine", M, dtype, layout)
    if M == 0:
        return _trivial(M, dtype, device, requires_grad)
    step = math.pi / (M + 1 if not sym and M > 1 else M)
    return _finish(_C.sin(_grid(0.5 * step, step, M, dtype, device)), requires_grad)


def gaussian(M, *, std=1.0, sym=True, dtype=None, layout=strided, device=None, requires_grad=False):
    """exp(-(n - middle)^2 / (2 std^2))."""
    dtype = dtype or _C.get_default_dtype()
    _checks("gaussian", M, dtype, layout)
    if std <= 0:
        raise ValueError(f"Standard deviation must be positive, got: {std} instead.")
    if M == 0:
        return _trivial(M, dtype, device, requires_grad)
    start = -(M if not sym and M > 1 else M - 1) / 2.0
    c = 1 / (std * math.sqrt(2))
    k = _grid(start * c, c, M, dtype, device)
    return _finish(_C.exp(-(k * k)), requires_grad)


def kaiser(M, *, beta=12.0, sym=True, dtype=None, layout=strided, device=None, requires_grad=False):
    """I0(beta sqrt(1 - x^2)) / I0(beta), x running over [-1, 1] (the periodic window stops a step short)."""
    dtype = dtype or _C.get_default_dtype()
    _checks("kaiser", M, dtype, layout)
    if beta < 0:
        raise ValueError(f"beta must be non-negative, got: {beta} instead.")
    trivial = _trivial(M, dtype, device, requires_grad)
    if trivial is not None:
        return trivial
    b = _creation.tensor(beta, dtype=dtype, device=device)
    step = 2.0 * b / (M if not sym else M - 1)
    # linspace of beta-scaled points, its end clamped to beta so rounding never takes the root's argument below 0
    end = _C.minimum(b, -b + (M - 1) * step)
    k = _C.linspace(-b, end, M, dtype=dtype, device=device)
    return _finish(_C.i0(_C.sqrt(b * b - k * k)) / _C.i0(b), requires_grad)


def general_cosine(M, *, a, sym=True, dtype=None, layout=strided, device=None, requires_grad=False):
    """sum_i (-1)^i a_i cos(2 pi i n / (M - 1)) (M in place of M - 1 for the periodic window)."""
    dtype = dtype or _C.get_default_dtype()
    _checks("general_cosine", M, dtype, layout)
    trivial = _trivial(M, dtype, device, requires_grad)
    if trivial is not None:
        return trivial
    if not isinstance(a, collections.abc.Iterable):
        raise TypeError("Coefficients must be a list/tuple")
    a = list(a)
    if not a:
        raise ValueError("Coefficients cannot be empty")
    k = _grid(0.0, 2 * math.pi / (M if not sym else M - 1), M, dtype, device)
    coef = _creation.tensor([(-1) ** i * w for i, w in enumerate(a)], dtype=dtype, device=device)
    i = _C.arange(len(a), dtype=dtype, device=device)
    return _finish((coef.unsqueeze(-1) * _C.cos(i.unsqueeze(-1) * k)).sum(0), requires_grad)


def general_hamming(M, *, alpha=0.54, sym=True, dtype=None, layout=strided, device=None, requires_grad=False):
    """alpha - (1 - alpha) cos(2 pi n / (M - 1)): general_cosine with a = [alpha, 1 - alpha]."""
    return general_cosine(
        M,
        a=[alpha, 1.0 - alpha],
        sym=sym,
        dtype=dtype,
        layout=layout,
        device=device,
        requires_grad=requires_grad,
    )


def hann(M, *, sym=True, dtype=None, layout=strided, device=None, requires_grad=False):
    """The Hann window: general_hamming with alpha = 0.5."""
    return general_hamming(
        M, alpha=0.5, sym=sym, dtype=dtype, layout=layout, device=device, requires_grad=requires_grad
    )


def hamming(M, *, sym=True, dtype=None, layout=strided, device=None, requires_grad=False):
    """The Hamming window: general_hamming with alpha = 0.54."""
    return general_hamming(M, sym=sym, dtype=dtype, layout=layout, device=device, requires_grad=requires_grad)


def blackman(M, *, sym=True, dtype=None, layout=strided, device=None, requires_grad=False):
    """The Blackman window: general_cosine with a = [0.42, 0.5, 0.08]."""
    return general_cosine(
        M,
        a=[0.42, 0.5, 0.08],
        sym=sym,
        dtype=dtype,
        layout=layout,
        device=device,
        requires_grad=requires_grad,
    )


def bartlett(M, *, sym=True, dtype=None, layout=strided, device=None, requires_grad=False):
    """The triangular window 1 - |x|, x running over [-1, 1] (the periodic window stops a step short)."""
    dtype = dtype or _C.get_default_dtype()
    _checks("bartlett", M, dtype, layout)
    trivial = _trivial(M, dtype, device, requires_grad)
    if trivial is not None:
        return trivial
    k = _grid(-1.0, 2 / (M if not sym else M - 1), M, dtype, device)
    return _finish(1 - _C.abs(k), requires_grad)


def nuttall(M, *, sym=True, dtype=None, layout=strided, device=None, requires_grad=False):
    """Nuttall's minimum 4-term Blackman-Harris window."""
    return general_cosine(
        M,
        a=[0.3635819, 0.4891775, 0.1365995, 0.0106411],
        sym=sym,
        dtype=dtype,
        layout=layout,
        device=device,
        requires_grad=requires_grad,
    )
