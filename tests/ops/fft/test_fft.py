"""torch.fft and torch.stft/istft: values against numpy.fft, PyTorch's argument rules and errors, gradients by
finite differences in float64 (complex inputs and outputs through view_as_real/view_as_complex)."""

import json
import os
import subprocess
import warnings

import numpy as np
import pytest

import minitorch as torch
import minitorch.fft
from minitorch.autograd import gradcheck

NORMS = [None, "backward", "ortho", "forward"]
RNG = np.random.default_rng(0)


def real(*shape):
    return RNG.standard_normal(shape)


def cplx(*shape):
    return RNG.standard_normal(shape) + 1j * RNG.standard_normal(shape)


def T(a, device="cpu", dtype=None):
    return torch.tensor(a, dtype=dtype, device=device)


def close(got, want, dtype=torch.float64):
    tol = (
        {"rtol": 1e-10, "atol": 1e-10}
        if dtype in (torch.float64, torch.complex128)
        else {"rtol": 2e-5, "atol": 2e-5}
    )
    np.testing.assert_allclose(got.detach().cpu().numpy(), want, **tol)


ONE_D = {
    "fft": (np.fft.fft, "c"),
    "ifft": (np.fft.ifft, "c"),
    "rfft": (np.fft.rfft, "r"),
    "irfft": (np.fft.irfft, "c"),
    "hfft": (np.fft.hfft, "c"),
    "ihfft": (np.fft.ihfft, "r"),
}


@pytest.mark.parametrize("name", ONE_D)
@pytest.mark.parametrize("norm", NORMS)
@pytest.mark.parametrize("n", [None, 5, 12])
@pytest.mark.parametrize("dim", [-1, 0])
def test_one_dimensional_against_numpy(name, norm, n, dim, device):
    ref, kind = ONE_D[name]
    a = cplx(9, 4) if kind == "c" else real(9, 4)
    got = getattr(torch.fft, name)(T(a, device), n=n, dim=dim, norm=norm)
    close(got, ref(a, n=n, axis=dim, norm=norm))


@pytest.mark.parametrize("name", ["fft", "rfft", "ihfft", "irfft", "hfft"])
def test_real_input_to_complex_transforms_float32(name, device):
    ref, kind = ONE_D[name]
    a = (cplx(3, 16) if kind == "c" else real(3, 16)).astype(np.complex64 if kind == "c" else np.float32)
    got = getattr(torch.fft, name)(T(a, device))
    assert got.dtype == (torch.float32 if name in ("irfft", "hfft") else torch.complex64)
    close(got, ref(a.astype(np.complex128 if kind == "c" else np.float64)), torch.float32)


def test_real_input_of_a_complex_transform_is_promoted(device):
    a = real(4, 6)
    close(torch.fft.fft(T(a, device)), np.fft.fft(a))
    close(torch.fft.irfft(T(a, device)), np.fft.irfft(a))
    assert torch.fft.fft(T(a, device, torch.float32)).dtype == torch.complex64


@pytest.mark.parametrize("dt", [torch.int64, torch.int32, torch.uint8, torch.bool])
def test_integer_and_bool_inputs_compute_in_the_default_dtype(dt, device):
    x = torch.tensor([[1, 0, 3, 2], [0, 1, 1, 0]], device=device).to(dt)
    ref = x.double().cpu().numpy()
    y = torch.fft.fft(x)
    assert y.dtype == torch.complex64
    close(y, np.fft.fft(ref), torch.float32)
    assert torch.fft.rfft(x).dtype == torch.complex64
    assert torch.fft.irfft(x).dtype == torch.float32
    torch.set_default_dtype(torch.float64)
    try:
        assert torch.fft.fft(x).dtype == torch.complex128
    finally:
        torch.set_default_dtype(torch.float32)


@pytest.mark.parametrize("dt", [torch.float16, torch.bfloat16])
def test_half_precision_is_refused_as_on_pytorch_cpu(dt):
    x = torch.randn(8).to(dt)
    name = "Half" if dt == torch.float16 else "BFloat16"
    for f in (torch.fft.fft, torch.fft.rfft, torch.fft.irfft, torch.fft.fftn):
        with pytest.raises(NotImplementedError, match=f"Unsupported dtype {name}"):
            f(x)


ND = {
    "fft2": (np.fft.fft2, "c", 2),
    "ifft2": (np.fft.ifft2, "c", 2),
    "rfft2": (np.fft.rfft2, "r", 2),
    "irfft2": (np.fft.irfft2, "c", 2),
    "fftn": (np.fft.fftn, "c", None),
    "ifftn": (np.fft.ifftn, "c", None),
    "rfftn": (np.fft.rfftn, "r", None),
    "irfftn": (np.fft.irfftn, "c", None),
}


@pytest.mark.parametrize("name", ND)
@pytest.mark.parametrize("norm", NORMS)
@pytest.mark.parametrize(
    "s,dim", [(None, None), ((4, 7), None), ((5, 3), (0, -1)), (None, (2, 0)), ((6,), (1,))]
)
def test_n_dimensional_against_numpy(name, norm, s, dim, device):
    ref, kind, _ = ND[name]
    a = cplx(3, 5, 6) if kind == "c" else real(3, 5, 6)
    kw = {} if dim is None else {"dim": dim}
    nkw = {} if dim is None else {"axes": dim}
    if dim is None and name.endswith("2"):
        nkw = {"axes": (-2, -1)}
    elif dim is None and s is not None:
        nkw = {"axes": tuple(range(3 - len(s), 3))}
    got = getattr(torch.fft, name)(T(a, device), s=s, norm=norm, **kw)
    close(got, ref(a, s=s, norm=norm, **nkw))


def _hfftn_ref(a, s, axes, norm):
    # hfftn is irfftn of the conjugate with the forward transform's scaling
    inv = {"backward": "forward", None: "forward", "forward": "backward", "ortho": "ortho"}[norm]
    return np.fft.irfftn(np.conj(a), s=s, axes=axes, norm=inv)


def _ihfftn_ref(a, s, axes, norm):
    inv = {"backward": "forward", None: "forward", "forward": "backward", "ortho": "ortho"}[norm]
    return np.conj(np.fft.rfftn(a, s=s, axes=axes, norm=inv))


@pytest.mark.parametrize("norm", NORMS)
@pytest.mark.parametrize(
    "s,dim", [(None, (-2, -1)), ((4, 7), (-2, -1)), ((3, 5, 6), (0, 1, 2)), (None, (2, 0))]
)
def test_hermitian_n_dimensional(norm, s, dim, device):
    a = cplx(3, 5, 6)
    close(torch.fft.hfftn(T(a, device), s=s, dim=dim, norm=norm), _hfftn_ref(a, s, dim, norm))
    r = real(3, 5, 6)
    close(torch.fft.ihfftn(T(r, device), s=s, dim=dim, norm=norm), _ihfftn_ref(r, s, dim, norm))
    if dim == (-2, -1):
        close(torch.fft.hfft2(T(a, device), s=s, norm=norm), _hfftn_ref(a, s, dim, norm))
        close(torch.fft.ihfft2(T(r, device), s=s, norm=norm), _ihfftn_ref(r, s, dim, norm))
    # one dimension: numpy's own hfft/ihfft
    close(torch.fft.hfftn(T(a, device), dim=1, norm=norm), np.fft.hfft(a, axis=1, norm=norm))
    close(torch.fft.ihfftn(T(r, device), dim=[0], norm=norm), np.fft.ihfft(r, axis=0, norm=norm))


def test_minus_one_in_s_keeps_the_input_size():
    a = real(4, 5)
    close(torch.fft.fftn(T(a), s=(-1, 3)), np.fft.fftn(a, s=(4, 3)))
    assert torch.fft.rfftn(T(real(4)), s=[-1]).shape == (3,)
    # for irfftn a -1 last size means the default 2*(m-1)
    c = cplx(4, 5)
    close(torch.fft.irfftn(T(c), s=(3, -1)), np.fft.irfftn(c, s=(3, 8)))


def test_non_contiguous_and_batched_inputs(device):
    a = cplx(6, 5, 4)
    x = T(a, device).transpose(0, 2)  # (4, 5, 6), strided
    assert not x.is_contiguous()
    close(torch.fft.fft(x, dim=1), np.fft.fft(a.transpose(2, 1, 0), axis=1))
    close(torch.fft.fftn(x[:, ::2], dim=(0, 2)), np.fft.fftn(a.transpose(2, 1, 0)[:, ::2], axes=(0, 2)))
    r = real(6, 5, 8)
    xr = T(r, device).permute(2, 0, 1)
    close(torch.fft.rfft(xr, dim=0), np.fft.rfft(r.transpose(2, 0, 1), axis=0))
    close(torch.fft.irfft2(T(a, device)[..., 1:], s=(5, 4)), np.fft.irfft2(a[..., 1:], s=(5, 4)))


def test_empty_and_zero_dim_inputs(device):
    assert torch.fft.fft(torch.randn(0, 4, device=device)).shape == (0, 4)
    assert torch.fft.rfft(torch.randn(0, 4, device=device)).shape == (0, 3)
    assert torch.fft.irfft(torch.zeros(3, 0, 5, device=device, dtype=torch.complex64)).shape == (3, 0, 8)
    z = torch.fft.fftn(torch.tensor(2.5, device=device))
    assert z.shape == () and z.dtype == torch.complex64 and complex(z.item()) == 2.5
    # an empty dim list transforms nothing
    a = real(2, 3)
    y = torch.fft.fftn(T(a, device), dim=[])
    assert y.dtype == torch.complex128
    close(y, a.astype(np.complex128))
    with pytest.raises(RuntimeError, match=r"Invalid number of data points \(0\) specified"):
        torch.fft.fft(torch.randn(3, 0, device=device))
    with pytest.raises(IndexError, match="Dimension specified as -1 but tensor has no dimensions"):
        torch.fft.fft(torch.tensor(1.0, device=device))


BAD = [
    (lambda x: torch.fft.fft(x, norm="xx"), RuntimeError, 'Invalid normalization mode: "xx"'),
    (lambda x: torch.fft.fft(x, n=0), RuntimeError, r"Invalid number of data points \(0\) specified"),
    (lambda x: torch.fft.rfft(x, n=-1), RuntimeError, r"Invalid number of data points \(-1\) specified"),
    (
        lambda x: torch.fft.fft(x, dim=2),
        IndexError,
        r"Dimension out of range \(expected to be in range of \[-2, 1\]",
    ),
    (lambda x: torch.fft.fft2(x, dim=(0, 0)), RuntimeError, "FFT dims must be unique"),
    (lambda x: torch.fft.fftn(x, dim=(1, -1)), RuntimeError, "FFT dims must be unique"),
    (
        lambda x: torch.fft.fftn(x, s=(2, 2, 2), dim=(0, 1)),
        RuntimeError,
        "When given, dim and shape arguments must have the same length",
    ),
    (
        lambda x: torch.fft.fftn(x, s=(2, 2, 2)),
        RuntimeError,
        "Got shape with 3 values but input tensor only has 2 dimensions.",
    ),
    (lambda x: torch.fft.fftn(x, s=(0, 3)), RuntimeError, r"Invalid number of data points \(0\) specified"),
    (
        lambda x: torch.fft.rfft(x.to(torch.complex64)),
        TypeError,
        "rfft expects a real input tensor, but got ComplexFloat",
    ),
    (lambda x: torch.fft.ihfft(x.to(torch.complex64)), TypeError, "ihfft expects a real input tensor"),
    (lambda x: torch.fft.ihfftn(x.to(torch.complex64)), TypeError, "Only supports floating-point dtypes"),
    (lambda x: torch.fft.rfftn(x.to(torch.complex64)), TypeError, "rfftn expects a real-valued input tensor"),
    (lambda x: torch.fft.irfft(x[:, :1]), RuntimeError, r"Invalid number of data points \(0\) specified"),
    (lambda x: torch.fft.rfftn(x, dim=[]), RuntimeError, "rfftn must transform at least one axis"),
    (lambda x: torch.fft.irfftn(x, dim=[]), RuntimeError, "irfftn must transform at least one axis"),
    (lambda x: torch.fft.hfftn(x, dim=[]), RuntimeError, "hfftn must transform at least one axis"),
    (lambda x: torch.fft.ihfftn(x, dim=[]), RuntimeError, "ihfftn must transform at least one axis"),
    (
        lambda x: torch.fft.fft(x, out=torch.empty(0)),
        RuntimeError,
        "fft expects a complex output tensor, but got Float",
    ),
    (
        lambda x: torch.fft.irfft(x, out=torch.empty(0, dtype=torch.complex64)),
        RuntimeError,
        "irfft expects a floating point output tensor, but got ComplexFloat",
    ),
    (lambda x: torch.fft.fft([1.0, 2.0]), TypeError, "must be Tensor, not list"),
    (
        lambda x: torch.fft.fft(x, dim=(0, 1)),
        TypeError,
        r"fft_fft\(\): argument 'dim' must be int, not tuple",
    ),
    (lambda x: torch.fft.ifft(x, n=2.0), TypeError, r"fft_ifft\(\): argument 'n' must be int, not float"),
    (lambda x: torch.fft.rfft(x, n=True), TypeError, r"fft_rfft\(\): argument 'n' must be int, not bool"),
    (lambda x: torch.fft.fft2(x, norm=3), TypeError, r"fft_fft2\(\): argument 'norm' must be str, not int"),
    (
        lambda x: torch.fft.fftn(x, s=[2.5]),
        TypeError,
        r"fft_fftn\(\): argument 's' must be tuple of ints, not list",
    ),
    (lambda x: torch.fft.rfftn(x, dim=1.0), TypeError, r"argument 'dim' must be tuple of ints, not float"),
    (
        lambda x: torch.fft.fftshift(x, dim=1.0),
        TypeError,
        r"fft_fftshift\(\): argument 'dim' must be tuple of ints",
    ),
    (
        lambda x: torch.fft.ihfft2(x.to(torch.complex64)),
        TypeError,
        "Only supports floating-point dtypes, but found",
    ),
    (lambda x: torch.fft.rfft2(x.to(torch.complex64)), TypeError, "rfftn expects a real-valued input tensor"),
    (lambda x: torch.fft.fftshift(x, dim=2), IndexError, "Dimension out of range"),
    (lambda x: torch.fft.rfft2(x[0]), IndexError, r"expected to be in range of \[-1, 0\], but got -2"),
    (
        lambda x: torch.fft.fftfreq(5, dtype=torch.int64),
        RuntimeError,
        "fftfreq requires a floating point or complex dtype",
    ),
    (
        lambda x: torch.fft.fftfreq(5.0),
        TypeError,
        r"fft_fftfreq\(\): argument 'n' \(position 1\) must be int, not float",
    ),
    (lambda x: torch.fft.rfftfreq(5, "a"), TypeError, r"argument 'd' \(position 2\) must be float, not str"),
    (lambda x: torch.fft.fftfreq(-1), RuntimeError, "Trying to create tensor with negative dimension -1"),
]


@pytest.mark.parametrize("case", range(len(BAD)))
def test_bad_arguments_raise_as_pytorch(case):
    fn, cls, msg = BAD[case]
    with pytest.raises(cls, match=msg):
        fn(torch.randn(3, 8))


def test_out_argument(device):
    a = cplx(3, 8)
    out = torch.empty(3, 8, dtype=torch.complex128, device=device)
    r = torch.fft.fft(T(a, device), out=out)
    assert r is out
    close(out, np.fft.fft(a))
    empty = torch.empty(0, dtype=torch.float64, device=device)
    torch.fft.irfft(T(a, device), out=empty)
    assert empty.shape == (3, 14)
    close(empty, np.fft.irfft(a))
    wrong = torch.zeros(2, device=device, dtype=torch.complex128)
    with pytest.warns(UserWarning, match="An output with one or more elements was resized"):
        torch.fft.rfft2(T(real(4, 4), device), out=wrong)
    assert wrong.shape == (4, 3)


@pytest.mark.parametrize("n", [0, 1, 2, 5, 8])
@pytest.mark.parametrize("d", [1.0, 0.25])
def test_frequencies(n, d, device):
    ref, rref = (np.fft.fftfreq(n, d), np.fft.rfftfreq(n, d)) if n else (np.zeros(0), np.full(1, np.nan))
    close(torch.fft.fftfreq(n, d, dtype=torch.float64, device=device), ref)
    close(torch.fft.rfftfreq(n, d, dtype=torch.float64, device=device), rref)
    f = torch.fft.fftfreq(n, d, device=device, requires_grad=True)
    assert f.dtype == torch.float32 and f.requires_grad and f.device.type == device
    close(f, ref.astype(np.float32), torch.float32)
    out = torch.empty(0, dtype=torch.float64)
    assert torch.fft.rfftfreq(n, d, out=out) is out
    close(out, rref)


def test_complex_frequency_dtype_fails_as_pytorch_arange():
    with pytest.raises(NotImplementedError, match="\"arange_cpu\" not implemented for 'ComplexFloat'"):
        torch.fft.fftfreq(4, dtype=torch.complex64)


@pytest.mark.parametrize("dim", [None, 0, -1, (0, 1), [1]])
def test_shifts(dim, device):
    a = np.arange(35.0).reshape(5, 7)
    axes = dim if not isinstance(dim, list) else tuple(dim)
    close(torch.fft.fftshift(T(a, device), dim=dim), np.fft.fftshift(a, axes=axes))
    close(torch.fft.ifftshift(T(a, device), dim=dim), np.fft.ifftshift(a, axes=axes))
    c = cplx(4, 3)
    close(torch.fft.ifftshift(torch.fft.fftshift(T(c, device), dim=dim), dim=dim), c)


def test_round_trips(device):
    a = real(4, 10)
    x = T(a, device)
    for norm in NORMS:
        close(torch.fft.ifft(torch.fft.fft(x, norm=norm), norm=norm).real, a)
        close(torch.fft.irfft(torch.fft.rfft(x, norm=norm), n=10, norm=norm), a)
        close(torch.fft.irfftn(torch.fft.rfftn(x, norm=norm), s=x.shape, norm=norm), a)
        close(torch.fft.hfft(torch.fft.ihfft(x, norm=norm), n=10, norm=norm), a)


# ---------------------------------------------------------------- derivatives


def _r(*shape):
    return torch.tensor(real(*shape), requires_grad=True)


def _via_real(fn, complex_in, complex_out):
    def g(a):
        x = torch.view_as_complex(a) if complex_in else a
        y = fn(x)
        return torch.view_as_real(y) if complex_out else y

    return g


GRAD_CASES = {
    # name: (function, complex input, complex output, input shape)
    "fft": (lambda x: torch.fft.fft(x, n=7, norm="ortho"), True, True),
    "fft_real": (lambda x: torch.fft.fft(x, dim=0), False, True),
    "ifft": (lambda x: torch.fft.ifft(x, n=4), True, True),
    "rfft": (lambda x: torch.fft.rfft(x, n=7), False, True),
    "rfft_even": (lambda x: torch.fft.rfft(x, norm="forward"), False, True),
    "irfft": (lambda x: torch.fft.irfft(x), True, False),
    "irfft_odd": (lambda x: torch.fft.irfft(x, n=9, norm="ortho"), True, False),
    "irfft_real": (lambda x: torch.fft.irfft(x, n=5), False, False),
    "hfft": (lambda x: torch.fft.hfft(x, n=8), True, False),
    "ihfft": (lambda x: torch.fft.ihfft(x, n=5), False, True),
    "fft2": (lambda x: torch.fft.fft2(x, s=(2, 6)), True, True),
    "ifft2": (lambda x: torch.fft.ifft2(x, norm="forward"), True, True),
    "fftn": (lambda x: torch.fft.fftn(x, dim=(0, 2)), True, True),
    "ifftn": (lambda x: torch.fft.ifftn(x), True, True),
    "rfft2": (lambda x: torch.fft.rfft2(x), False, True),
    "irfft2": (lambda x: torch.fft.irfft2(x, s=(3, 5)), True, False),
    "rfftn": (lambda x: torch.fft.rfftn(x, s=(4, 6)), False, True),
    "irfftn": (lambda x: torch.fft.irfftn(x, dim=(0, 1)), True, False),
    "hfft2": (lambda x: torch.fft.hfft2(x), True, False),
    "ihfft2": (lambda x: torch.fft.ihfft2(x, norm="ortho"), False, True),
    "hfftn": (lambda x: torch.fft.hfftn(x, s=(3, 4)), True, False),
    "ihfftn": (lambda x: torch.fft.ihfftn(x, dim=(0, 2)), False, True),
    "fftshift": (lambda x: torch.fft.fftshift(x, dim=1), True, True),
    "ifftshift": (lambda x: torch.fft.ifftshift(x), False, False),
}


@pytest.mark.parametrize("name", GRAD_CASES)
def test_gradcheck(name):
    fn, cin, cout = GRAD_CASES[name]
    a = _r(3, 4, 6, 2) if cin else _r(3, 4, 6)
    assert gradcheck(_via_real(fn, cin, cout), (a,))


def test_second_order_gradient_of_rfft():
    from minitorch.autograd import gradgradcheck

    a = _r(2, 6)
    assert gradgradcheck(lambda x: torch.view_as_real(torch.fft.rfft(x)).pow(2).sum(-1), (a,))


def test_gradient_matches_the_conjugate_wirtinger_convention():
    # L = |fft(z)_k|^2 summed: dL/dz* (PyTorch's grad) = n * z for the unnormalized DFT (Parseval)
    z = torch.tensor(cplx(8), requires_grad=True)
    torch.fft.fft(z).abs().pow(2).sum().backward()
    close(z.grad, 2 * 8 * z.detach().numpy())


# ---------------------------------------------------------------- stft / istft


def _np_stft(x, n_fft, hop, window, onesided=True):
    pad = n_fft // 2
    xp = np.pad(x, [(0, 0)] * (x.ndim - 1) + [(pad, pad)], mode="reflect")
    n_frames = 1 + (xp.shape[-1] - n_fft) // hop
    frames = np.stack([xp[..., i * hop : i * hop + n_fft] for i in range(n_frames)], -2) * window
    spec = np.fft.rfft(frames, axis=-1) if onesided else np.fft.fft(frames, axis=-1)
    return np.swapaxes(spec, -1, -2)


@pytest.mark.parametrize("shape", [(64,), (3, 50)])
@pytest.mark.parametrize("hop", [None, 3])
def test_stft_against_numpy_and_round_trip(shape, hop, device):
    a = real(*shape)
    w = torch.hann_window(16, dtype=torch.float64, device=device)
    X = torch.stft(T(a, device), 16, hop_length=hop, window=w, return_complex=True)
    close(X, _np_stft(a, 16, hop or 4, w.cpu().numpy()))
    y = torch.istft(X, 16, hop_length=hop, window=w, length=shape[-1])
    close(y, a)
    assert T(a, device).stft(16, hop_length=hop, window=w, return_complex=True).shape == X.shape


def test_stft_options(device):
    a = real(2, 40)
    x = T(a, device)
    w = torch.hann_window(8, dtype=torch.float64, device=device)
    full = torch.stft(x, 16, hop_length=4, win_length=8, window=w, return_complex=True, onesided=False)
    wpad = np.pad(w.cpu().numpy(), (4, 4))
    close(full, _np_stft(a, 16, 4, wpad, onesided=False))
    ones = torch.ones(16, dtype=torch.float64, device=device)
    if device == "cuda":  # PyTorch's check, before any frame is cut
        with pytest.raises(
            RuntimeError, match="stft input and window must be on the same device but got self on"
        ):
            torch.stft(x, 16, window=torch.ones(16, dtype=torch.float64), return_complex=True)
    norm = torch.stft(x, 16, window=ones, normalized=True, return_complex=True)
    close(norm, _np_stft(a, 16, 4, np.ones(16)) / 4.0)
    nc = torch.stft(x, 16, hop_length=4, window=ones, center=False, return_complex=True)
    assert nc.shape == (2, 9, 7)
    with pytest.warns(UserWarning, match="return_complex=False is deprecated"):
        old = torch.stft(x, 16, window=ones, return_complex=False)
    close(old, np.stack([norm.real.cpu().numpy(), norm.imag.cpu().numpy()], -1) * 4.0)
    aligned = torch.stft(
        x, 16, win_length=8, window=w, center=False, align_to_window=True, return_complex=True
    )
    frames = np.stack([a[:, i * 4 : i * 4 + 8] for i in range(9)], 1) * w.cpu().numpy()
    close(aligned, np.swapaxes(np.fft.rfft(np.pad(frames, [(0, 0), (0, 0), (4, 4)]), axis=-1), 1, 2))
    c = cplx(40)
    close(
        torch.stft(
            T(c, device), 8, window=torch.ones(8, dtype=torch.float64, device=device), return_complex=True
        ),
        _np_stft(c, 8, 2, np.ones(8), onesided=False),
    )


def test_istft_complex_and_non_centered(device):
    c = cplx(48)
    w = torch.hann_window(16, dtype=torch.float64, device=device)
    X = torch.stft(T(c, device), 16, window=w, return_complex=True)
    close(torch.istft(X, 16, window=w, return_complex=True, length=48), c)
    a = real(48)
    h = torch.hamming_window(16, dtype=torch.float64, device=device)
    Xn = torch.stft(T(a, device), 16, hop_length=4, window=h, center=False, return_complex=True)
    close(torch.istft(Xn, 16, hop_length=4, window=h, center=False), a)
    Xz = torch.stft(T(a, device), 16, hop_length=4, window=w, center=False, return_complex=True)
    with pytest.raises(RuntimeError, match="window overlap add min: 1"):  # hann is 0 at the first sample
        torch.istft(Xz, 16, hop_length=4, window=w, center=False)


STFT_BAD = [
    (lambda x: torch.stft(x, 16), RuntimeError, "stft requires the return_complex parameter be given"),
    (
        lambda x: torch.stft(x.long(), 16, return_complex=True),
        NotImplementedError,
        "expected a tensor of floating",
    ),
    (lambda x: torch.stft(x[None], 16, return_complex=True), RuntimeError, "expected a 1D or 2D tensor"),
    (
        lambda x: torch.stft(x, 100, center=False, return_complex=True),
        RuntimeError,
        "expected 0 < n_fft < 40, but got n_fft=100",
    ),
    (lambda x: torch.stft(x, 16, hop_length=0, return_complex=True), RuntimeError, "expected hop_length > 0"),
    (
        lambda x: torch.stft(x, 16, win_length=20, return_complex=True),
        RuntimeError,
        "expected 0 < win_length <= n_fft",
    ),
    (
        lambda x: torch.stft(x, 16, win_length=8, window=torch.ones(7), return_complex=True),
        RuntimeError,
        r"expected a 1D window tensor of size equal to win_length=8, but got window with size \[7\]",
    ),
    (
        lambda x: torch.stft(x.to(torch.complex128), 16, onesided=True, return_complex=True),
        RuntimeError,
        "Cannot have onesided output",
    ),
    (
        lambda x: torch.stft(x, 16, align_to_window=True, return_complex=True),
        RuntimeError,
        "align_to_window should only be set",
    ),
    (lambda x: torch.istft(x, 16), TypeError, "istft requires a complex-valued input tensor"),
    (lambda x: torch.istft(_spec(x)[:, :, :0], 16), RuntimeError, "input tensor cannot be empty"),
    (
        lambda x: torch.istft(_spec(x), 20),
        RuntimeError,
        "to match n_fft / 2 \\+ 1 when onesided=True, but got 9",
    ),
    (
        lambda x: torch.istft(_spec(x), 16, onesided=False),
        RuntimeError,
        "to match n_fft when onesided=False, but got 9",
    ),
    (
        lambda x: torch.istft(_spec(x), 16, hop_length=20),
        RuntimeError,
        "expected 0 < hop_length <= win_length",
    ),
    (lambda x: torch.istft(_spec(x), 16, win_length=20), RuntimeError, "expected 0 < win_length <= n_fft"),
    (lambda x: torch.istft(_spec(x), 16, window=torch.ones(3)), RuntimeError, "Invalid window shape"),
    (lambda x: torch.istft(_spec(x), 16, return_complex=True), RuntimeError, "Cannot have onesided output"),
]


def _spec(x):
    return torch.stft(x, 16, window=torch.ones(16, dtype=torch.float64), return_complex=True)


@pytest.mark.parametrize("case", range(len(STFT_BAD)))
def test_stft_bad_arguments(case):
    fn, cls, msg = STFT_BAD[case]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(cls, match=msg):
            fn(torch.tensor(real(2, 40)))


def test_istft_pads_past_the_signal_with_a_warning():
    X = _spec(torch.tensor(real(2, 40)))
    with pytest.warns(UserWarning, match="The length of signal is shorter than the length parameter"):
        y = torch.istft(X, 16, window=torch.ones(16, dtype=torch.float64), length=60)
    assert (
        y.shape == (2, 60) and float(y[:, 48:].abs().max()) == 0.0
    )  # 8 samples of the centre padding come first


def test_stft_istft_gradcheck():
    w = torch.hann_window(8, dtype=torch.float64)
    assert gradcheck(
        lambda a: torch.view_as_real(torch.stft(a, 8, hop_length=2, window=w, return_complex=True)),
        (_r(2, 24),),
    )
    assert gradcheck(
        lambda a: torch.istft(torch.view_as_complex(a), 8, hop_length=2, window=w), (_r(5, 13, 2),)
    )


# ---------------------------------------------------------------- PyTorch as a second oracle

ORACLE_CASES = {
    "rfft_ortho": "lambda x, c: torch.view_as_real(torch.fft.rfft(x, n=9, norm='ortho'))",
    "hfft2": "lambda x, c: torch.fft.hfft2(c, s=(3, 6))",
    "ihfftn": "lambda x, c: torch.view_as_real(torch.fft.ihfftn(x, dim=(0, 1)))",
    "stft": "lambda x, c: torch.view_as_real(torch.stft(x, 8, hop_length=3, win_length=6, "
    "window=torch.hann_window(6, dtype=torch.float64), pad_mode='constant', return_complex=True))",
    "stft_aligned": "lambda x, c: torch.view_as_real(torch.stft(x, 8, hop_length=2, win_length=5, "
    "window=torch.hann_window(5, dtype=torch.float64), center=False, align_to_window=True, return_complex=True))",
    "istft": "lambda x, c: torch.istft(torch.stft(x, 8, hop_length=2, window=torch.hann_window(8, "
    "dtype=torch.float64), return_complex=True, normalized=True), 8, hop_length=2, window=torch.hann_window(8, "
    "dtype=torch.float64), normalized=True, length=20)",
    "rfft_grad": "lambda x, c: torch.autograd.grad((torch.fft.rfft(x.requires_grad_()).abs() ** 3).sum(), x)[0]",
    "irfft_grad": "lambda x, c: torch.view_as_real(torch.autograd.grad((torch.fft.irfft(c.requires_grad_(), n=11)"
    " ** 3).sum(), c)[0])",
}


def test_against_pytorch():
    py = os.environ.get("MINITORCH_ORACLE_PYTHON")
    if not py or not os.path.exists(py):
        pytest.skip("no PyTorch to compare with: set MINITORCH_ORACLE_PYTHON to a Python that imports torch")
    x, c = real(3, 20), cplx(3, 20)
    script = (
        "import json, sys, torch\n"
        "d = json.loads(sys.stdin.read())\n"
        "x = torch.tensor(d['x'], dtype=torch.float64)\n"
        "c = torch.complex(torch.tensor(d['cr'], dtype=torch.float64), torch.tensor(d['ci'], dtype=torch.float64))\n"
        "print(json.dumps({k: eval(v)(x.clone(), c.clone()).tolist() for k, v in d['cases'].items()}))\n"
    )
    payload = json.dumps(
        {"x": x.tolist(), "cr": c.real.tolist(), "ci": c.imag.tolist(), "cases": ORACLE_CASES}
    )
    res = subprocess.run(
        [py, "-c", script], input=payload, capture_output=True, text=True, timeout=300, check=False
    )
    assert res.returncode == 0, res.stderr
    theirs = json.loads(res.stdout.strip().splitlines()[-1])
    for k, src in ORACLE_CASES.items():
        mine = eval(src, {"torch": torch})(torch.tensor(x), torch.tensor(c))
        np.testing.assert_allclose(
            mine.detach().numpy(), np.array(theirs[k]), rtol=1e-10, atol=1e-12, err_msg=k
        )


def _sweep():
    """Every transform over n/s, dim and norm combinations (valid and invalid), real and complex inputs."""
    out = []
    for f in ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft"]:
        for n in [None, 1, 2, 3, 6, 9]:
            for dim in [0, 1, -1, -2, 3]:
                for norm in [None, "forward", "ortho"]:
                    out += [(f, {"n": n, "dim": dim, "norm": norm}, cin) for cin in (False, True)]
    shapes = [(None, None), ((3,), None), ((2, 5), None), ((-1, 4), None), (None, (0,)), (None, (2, 0))]
    shapes += [(None, (1, 2, 0)), ((4, 3), (2, 0)), ((1, 2, 3), None), (None, (0, -1)), ((0, 2), None)]
    shapes += [(None, (1, 1)), (None, []), ((2, 2, 2, 2), None)]
    for f in ["fftn", "ifftn", "rfftn", "irfftn", "hfftn", "ihfftn", "fft2", "ifft2", "rfft2", "irfft2"]:
        for f2 in [f, f.replace("n", "2")] if f.startswith(("h", "ih")) else [f]:
            for s, dim in shapes:
                kw = {"s": s, "norm": "ortho"} if dim is None else {"s": s, "dim": dim}
                out += [(f2, kw, cin) for cin in (False, True)]
    return out


def test_sweep_against_pytorch():
    py = os.environ.get("MINITORCH_ORACLE_PYTHON")
    if not py or not os.path.exists(py):
        pytest.skip("no PyTorch to compare with: set MINITORCH_ORACLE_PYTHON to a Python that imports torch")
    xr = real(4, 5, 6)
    xc = xr + 1j * real(4, 5, 6)
    script = (
        "import json, sys, torch\n"
        "d = json.loads(sys.stdin.read())\n"
        "xr = torch.tensor(d['xr'], dtype=torch.float64)\n"
        "xc = torch.complex(xr, torch.tensor(d['xi'], dtype=torch.float64))\n"
        "res = []\n"
        "for f, kw, cin in d['cases']:\n"
        "    try:\n"
        "        y = getattr(torch.fft, f)(xc if cin else xr, **kw).resolve_conj()\n"
        "        y = torch.view_as_real(y) if y.is_complex() else y\n"
        "        res.append(['ok', str(y.dtype), y.flatten().tolist(), list(y.shape)])\n"
        "    except Exception as e:\n"
        "        res.append(['err', type(e).__name__, str(e).split(chr(10))[0]])\n"
        "print(json.dumps(res))\n"
    )
    cases = _sweep()
    payload = json.dumps({"xr": xr.tolist(), "xi": xc.imag.tolist(), "cases": cases})
    res = subprocess.run(
        [py, "-c", script], input=payload, capture_output=True, text=True, timeout=300, check=False
    )
    assert res.returncode == 0, res.stderr
    theirs = json.loads(res.stdout.strip().splitlines()[-1])
    x_r, x_c = torch.tensor(xr), torch.tensor(xc)
    for (f, kw, cin), want in zip(cases, theirs):
        try:
            y = getattr(torch.fft, f)(x_c if cin else x_r, **kw)
            y = torch.view_as_real(y) if y.is_complex() else y
            got = ["ok", str(y.dtype), y.flatten().tolist(), list(y.shape)]
        except Exception as e:  # noqa: BLE001 - the outcome is compared
            got = ["err", type(e).__name__, str(e).split("\n")[0]]
        where = (f, kw, cin)
        assert got[0] == want[0] and got[1] == want[1], (where, got[:3], want[:3])
        if got[0] == "err":
            assert got[2] == want[2], where
        else:
            assert got[3] == want[3], where
            np.testing.assert_allclose(got[2], want[2], rtol=1e-10, atol=1e-10, err_msg=str(where))


# the same source runs on minitorch here and on PyTorch in the oracle's process
STFT_SWEEP = """
import itertools, warnings


def stft_sweep(torch, xr, xc):
    res = []
    grid = itertools.product(
        [8, 9], [None, 3], [None, 6], ["none", "hann", "complex"], [True, False],
        ["reflect", "constant", "replicate", "circular"], [None, True, False], [False, True],
    )
    for n_fft, hop, win, wkind, center, pad_mode, onesided, cin in grid:
        if not center and pad_mode != "reflect":
            continue
        normalized, one = n_fft == 9, hop is None  # tied to other axes to keep the grid small
        x = xc if cin else xr
        x = x[0] if one else x
        wl = win or n_fft
        w = None if wkind == "none" else torch.hann_window(wl, dtype=torch.float64)
        w = w * (1 + 0.5j) if wkind == "complex" else w
        kw = dict(hop_length=hop, win_length=win, window=w, normalized=normalized, onesided=onesided)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                y = torch.stft(x, n_fft, center=center, pad_mode=pad_mode, return_complex=True, **kw)
            except Exception as e:
                res.append(["err", type(e).__name__, str(e).split(chr(10))[0]])
                continue
            r = ["ok", list(y.shape), torch.view_as_real(y.resolve_conj()).flatten().tolist()]
            try:
                z = torch.istft(
                    y, n_fft, center=center, return_complex=cin or wkind == "complex", length=30 if hop else None, **kw
                )
                z = torch.view_as_real(z) if z.is_complex() else z
                r += ["ok", list(z.shape), z.flatten().tolist()]
            except Exception as e:
                r += ["err", type(e).__name__, str(e).split(chr(10))[0]]
        res.append(r)
    return res
"""


def test_stft_istft_sweep_against_pytorch():
    py = os.environ.get("MINITORCH_ORACLE_PYTHON")
    if not py or not os.path.exists(py):
        pytest.skip("no PyTorch to compare with: set MINITORCH_ORACLE_PYTHON to a Python that imports torch")
    xr = real(2, 37)
    xi = real(2, 37)
    script = (
        STFT_SWEEP + "\nimport json, sys, torch\n"
        "d = json.loads(sys.stdin.read())\n"
        "xr = torch.tensor(d['xr'], dtype=torch.float64)\n"
        "xc = torch.complex(xr, torch.tensor(d['xi'], dtype=torch.float64))\n"
        "print(json.dumps(stft_sweep(torch, xr, xc)))\n"
    )
    res = subprocess.run(
        [py, "-c", script],
        input=json.dumps({"xr": xr.tolist(), "xi": xi.tolist()}),
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert res.returncode == 0, res.stderr
    theirs = json.loads(res.stdout.strip().splitlines()[-1])
    scope = {}
    exec(STFT_SWEEP, scope)  # noqa: S102 - the sweep's own source, shared with the oracle's process
    mine = scope["stft_sweep"](torch, torch.tensor(xr), torch.complex(torch.tensor(xr), torch.tensor(xi)))
    assert len(mine) == len(theirs) > 500
    for i, (got, want) in enumerate(zip(mine, theirs)):
        for k in (0, 3):
            if k >= len(want):
                break
            assert got[k] == want[k], (i, got[k : k + 3 if got[k] == "err" else k + 2], want[k : k + 3])
            if want[k] == "err":
                assert got[k + 1 : k + 3] == want[k + 1 : k + 3], i
            else:
                assert got[k + 1] == want[k + 1], i
                np.testing.assert_allclose(got[k + 2], want[k + 2], rtol=1e-9, atol=1e-9, err_msg=str(i))


def test_stft_gradient_reaches_the_window():
    x = torch.tensor(real(2, 24))
    assert gradcheck(
        lambda w: torch.view_as_real(torch.stft(x, 8, hop_length=2, window=w, return_complex=True)), (_r(8),)
    )
    assert gradcheck(
        lambda w: torch.view_as_real(
            torch.stft(x, 8, hop_length=3, win_length=5, window=w, center=False, return_complex=True)
        ),
        (_r(5),),
    )


@pytest.mark.parametrize("name", ["fft2", "rfftn", "irfftn", "hfftn", "ihfft2"])
def test_n_dimensional_float32(name, device):
    ref = {
        "fft2": lambda a: np.fft.fft2(a),
        "rfftn": lambda a: np.fft.rfftn(a),
        "irfftn": lambda a: np.fft.irfftn(a),
        "hfftn": lambda a: _hfftn_ref(a, None, None, None),
        "ihfft2": lambda a: _ihfftn_ref(a, None, (-2, -1), None),
    }[name]
    a = cplx(3, 8, 6) if name in ("fft2", "irfftn", "hfftn") else real(3, 8, 6)
    single = a.astype(np.complex64 if np.iscomplexobj(a) else np.float32)
    y = getattr(torch.fft, name)(T(single, device))
    assert y.dtype in (torch.float32, torch.complex64)
    close(y, ref(single.astype(np.complex128 if np.iscomplexobj(a) else np.float64)), torch.float32)


_FFT_NAMES = ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft", "fftn", "ifftn", "rfftn", "irfftn", "hfftn",
              "ihfftn", "fft2", "ifft2", "rfft2", "irfft2", "hfft2", "ihfft2", "fftshift", "ifftshift"]  # fmt: skip


@pytest.mark.parametrize("name", _FFT_NAMES)
def test_fft_call_errors_name_the_aten_function(name):
    # PyTorch binds these as fft_<name> in C++: its parser's words for a call that does not bind
    f, x = getattr(torch.fft, name), torch.ones(4, 4)
    many = 3 if name.endswith("shift") else 5
    for call, message in (
        (lambda: f(x, unknown_kw=1), f"fft_{name}() got an unexpected keyword argument 'unknown_kw'"),
        (lambda: f(x, input=x), f"fft_{name}() got multiple values for argument 'input'"),
        (lambda: f(), f'fft_{name}() missing 1 required positional arguments: "input"'),
        (
            lambda: f(np.ones(4)),
            f"fft_{name}(): argument 'input' (position 1) must be Tensor, not numpy.ndarray",
        ),
        (
            lambda: f(x, *([None] * (many - 1))),
            f"fft_{name}() takes from 1 to {many - 1} positional arguments but {many} were given",
        ),
    ):
        with pytest.raises(TypeError) as e:
            call()
        assert str(e.value) == message
    # NumPy's keyword spellings still bind (the parser's numpy_compatibility_arg_names)
    assert f(x=x, axis=0).shape == f(x, dim=0).shape
