"""torch.stft and torch.istft: short-time Fourier transforms as frames (Tensor.unfold) through the FFT
primitives, overlap-added back (F.fold) for the inverse, with PyTorch's checks and messages."""

import warnings

from minitorch import _C
from minitorch._argcheck import check_call, python_in_pytorch
from minitorch._dtype_names import scalar_name
from minitorch.fft._prims import c2c, c2r, r2c

__all__ = ["istft", "stft"]

_BY_ROOT_N, _NONE, _BY_N = 1, 0, 2


def _aten_type(x, open_="[", close="]"):
    """How ATen's stft/istft name a tensor in their messages: torch.DoubleTensor[2, 9] for a real one (its legacy
    type name), CPUComplexDoubleType[2, 9] for a complex one (which has none)."""
    if x is None:
        return "None"
    sizes = ", ".join(str(s) for s in x.shape)
    if x.dtype.is_complex:
        name = f"{'CUDA' if x.is_cuda else 'CPU'}{scalar_name(x.dtype)}Type"
    else:
        name = x.type()
    return f"{name}{open_}{sizes}{close}"


# the C++ op's signatures that torch.functional.stft hands every argument to, by position, after its padding
_STFT_HEAD = "Tensor input, int n_fft, int? hop_length=None, int? win_length=None, Tensor? window=None, "
_STFT_TAIL = (
    "bool normalized=False, bool? onesided=None, bool? return_complex=None, bool? align_to_window=None"
)
_STFT_SIGNATURES = (
    _STFT_HEAD + 'bool center=True, str pad_mode="reflect", ' + _STFT_TAIL,
    _STFT_HEAD + _STFT_TAIL,
)


@python_in_pytorch  # torch.functional.stft: a plain value fails on its input.dim() there
def stft(
    input,
    n_fft,
    hop_length=None,
    win_length=None,
    window=None,
    center=True,
    pad_mode="reflect",
    normalized=False,
    onesided=None,
    return_complex=None,
    align_to_window=None,
):
    """Short-time Fourier transform of a 1-D signal or a batch of them ([B,] L): [B,] n_fft//2+1 (onesided) or
    n_fft frequencies by 1 + (L - n_fft) // hop_length frames (L after the center padding)."""
    import minitorch.nn.functional as F

    if center and align_to_window is not None:
        raise RuntimeError("stft align_to_window should only be set when center = false")
    if center:
        ndim = input.dim()
        pad = int(n_fft // 2)
        x3 = input.view([1] * (3 - ndim) + list(input.shape))
        input = F.pad(x3, [pad, pad], pad_mode)
        input = input.view(input.shape[-ndim:])
    if not (
        type(n_fft) is int
        and (hop_length is None or type(hop_length) is int)
        and (win_length is None or type(win_length) is int)
        and (window is None or type(window) is _C.Tensor)
        and type(normalized) is bool
        and all(v is None or type(v) is bool for v in (onesided, return_complex, align_to_window))
    ):  # the common kinds pass without the parser (~3 us)
        args = (
            input,
            n_fft,
            hop_length,
            win_length,
            window,
            normalized,
            onesided,
            return_complex,
            align_to_window,
        )
        check_call("stft", _STFT_SIGNATURES, args, {}, positional=True)
    for v in (n_fft, hop_length, win_length):
        if type(v) is int and not -(2**63) <= v < 2**63:  # the parser's int64
            raise ValueError("Overflow when unpacking long long")
    hop = n_fft // 4 if hop_length is None else hop_length
    win = n_fft if win_length is None else win_length
    is_complex = input.dtype.is_complex or (window is not None and window.dtype.is_complex)
    want_complex = is_complex if return_complex is None else return_complex
    if not want_complex:
        if return_complex is None:
            raise RuntimeError(
                "stft requires the return_complex parameter be given for real inputs, and will further require "
                "that return_complex=True in a future PyTorch release."
            )
        warnings.warn(
            "stft with return_complex=False is deprecated. In a future pytorch release, stft will return complex "
            "tensors for all inputs, and return_complex=False will raise an error.\nNote: you can still call "
            "torch.view_as_real on the complex output to recover the old return format.",
            UserWarning,
            stacklevel=2,
        )
    head = (
        f"stft({_aten_type(input)}, n_fft={n_fft}, hop_length={hop}, win_length={win}, window={_aten_type(window, '{[', ']}')}, "
        f"normalized={int(normalized)}, onesided={'None' if onesided is None else int(onesided)}, "
        f"return_complex={int(want_complex)}, align_to_window="
        f"{'None' if align_to_window is None else int(align_to_window)}) : "
    )
    if not (input.dtype.is_floating_point or input.dtype.is_complex):
        raise NotImplementedError(head + "expected a tensor of floating point or complex values")
    if input.dim() not in (1, 2):
        raise RuntimeError(head + "expected a 1D or 2D tensor")
    if window is None:
        warnings.warn(
            "A window was not provided. A rectangular window will be applied,which is known to cause spectral "
            "leakage. Other windows such as torch.hann_window or torch.hamming_window are recommended to reduce "
            "spectral leakage.To suppress this warning and use a rectangular window, explicitly set "
            "`window=torch.ones(n_fft, device=<device>)`.",
            UserWarning,
            stacklevel=2,
        )
    x = input.unsqueeze(0) if input.dim() == 1 else input
    length = x.shape[1]
    if n_fft <= 0 or n_fft > length:
        raise RuntimeError(head + f"expected 0 < n_fft < {length}, but got n_fft={n_fft}")
    if hop <= 0:
        raise RuntimeError(head + f"expected hop_length > 0, but got hop_length={hop}")
    if win <= 0 or win > n_fft:
        raise RuntimeError(head + f"expected 0 < win_length <= n_fft, but got win_length={win}")
    if window is not None and (window.dim() != 1 or window.shape[0] != win):
        raise RuntimeError(
            head + f"expected a 1D window tensor of size equal to win_length={win}, but got window with size "
            f"{list(window.shape)}"
        )
    if window is not None and window.device != x.device:
        raise RuntimeError(
            f"stft input and window must be on the same device but got self on {x.device} and window on "
            f"{window.device}"
        )
    if x.dtype not in (_C.float32, _C.float64, _C.complex64, _C.complex128):
        raise NotImplementedError(f"Unsupported dtype {scalar_name(x.dtype)}")
    left = (n_fft - win) // 2
    if align_to_window:
        # frames of win_length samples from each hop, placed in the middle of the n_fft transform
        frames = x.unfold(-1, win, hop)
        if window is not None:
            frames = frames * window
        if win < n_fft:
            frames = F.pad(frames, [left, n_fft - win - left])
    else:
        frames = x.unfold(-1, n_fft, hop)  # (B, n_frames, n_fft), a view
        if window is not None or win < n_fft:
            w = window if window is not None else _C.ones(win, dtype=x.dtype, device=x.device)
            if win < n_fft:
                w = _C.cat(
                    [
                        _C.zeros(left, dtype=w.dtype, device=w.device),
                        w,
                        _C.zeros(n_fft - win - left, dtype=w.dtype, device=w.device),
                    ]
                )
            frames = frames * w
    side = (not frames.dtype.is_complex) if onesided is None else onesided
    norm = _BY_ROOT_N if normalized else _NONE
    if frames.dtype.is_complex:
        if side:
            raise RuntimeError("Cannot have onesided output if window or input is complex")
        out = c2c(frames, [2], norm, True)
    else:
        out = r2c(frames, [2], norm, side)
    out = out.transpose(1, 2)
    if input.dim() == 1:
        out = out.squeeze(0)
    return out if want_complex else _C.view_as_real(out)


def _complex(re, im):
    from minitorch._composite_math import complex as make

    return make(re, im)


def _overlap_add(frames, length, n_fft, hop):
    """Sums frames (C, n_frames, n_fft) placed hop apart into (C, length): F.fold (each part of complex frames)."""
    import minitorch.nn.functional as F

    if frames.dtype.is_complex:
        return _complex(
            _overlap_add(frames.real, length, n_fft, hop), _overlap_add(frames.imag, length, n_fft, hop)
        )

    cols = frames.transpose(1, 2)  # (C, n_fft, n_frames)
    return F.fold(cols, (length, 1), (n_fft, 1), stride=(hop, 1)).reshape(frames.shape[0], length)


def istft(
    input,
    n_fft,
    hop_length=None,
    win_length=None,
    window=None,
    center=True,
    normalized=False,
    onesided=None,
    length=None,
    return_complex=False,
):
    """Inverse short-time Fourier transform: overlap-add of the inverse FFT of each frame, divided by the summed
    squared window (the least-squares inverse of stft)."""
    hop = n_fft // 4 if hop_length is None else hop_length
    win = n_fft if win_length is None else win_length
    if not input.dtype.is_complex:
        raise TypeError(
            "istft requires a complex-valued input tensor matching the output from stft with return_complex=True."
        )
    head = (
        f"istft({_aten_type(input)}, n_fft={n_fft}, hop_length={hop}, "
        f"win_length={win}, window={_aten_type(window, '{[', ']}')}, center={int(center)}, normalized={int(normalized)}, "
        f"onesided={'None' if onesided is None else int(onesided)}, "
        f"length={'None' if length is None else length}, return_complex={int(return_complex)}) : "
    )
    if input.dim() not in (2, 3):
        if input.dim() < 2:
            raise IndexError(
                f"Dimension out of range (expected to be in range of [{-max(input.dim() + 1, 1)}, "
                f"{max(input.dim(), 0)}], but got -3)"
            )
        raise RuntimeError(
            head + f"expected a tensor with 3 or 4 dimensions of complex values, but got {input.dim() + 1}"
        )
    n_frames, fft_size = input.shape[-1], input.shape[-2]
    if input.numel() == 0:
        raise RuntimeError(head + "input tensor cannot be empty.")
    side = fft_size != n_fft if onesided is None else onesided
    if side and n_fft // 2 + 1 != fft_size:
        raise RuntimeError(
            head
            + "expected the frequency dimension (3rd to the last) of the input tensor to match n_fft / 2 + 1 "
            f"when onesided=True, but got {fft_size}"
        )
    if not side and n_fft != fft_size:
        raise RuntimeError(
            head
            + "expected the frequency dimension (3rd to the last) of the input tensor to match n_fft when "
            f"onesided=False, but got {fft_size}"
        )
    if not 0 < hop <= win:
        raise RuntimeError(head + "expected 0 < hop_length <= win_length")
    if not 0 < win <= n_fft:
        raise RuntimeError(head + "expected 0 < win_length <= n_fft")
    if window is not None and (window.dim() != 1 or window.shape[0] != win):
        raise RuntimeError(head + "Invalid window shape. window has to be 1D and length of `win_length`")
    if window is not None and window.device != input.device:
        raise RuntimeError(
            f"istft input and window must be on the same device but got self on {input.device} and window on "
            f"{window.device}"
        )
    real_dtype = _C.float64 if input.dtype == _C.complex128 else _C.float32
    if window is None:
        warnings.warn(
            "A window was not provided. A rectangular window will be applied.Please provide the same window used "
            "by stft to make the inversion lossless.To suppress this warning and use a rectangular window, "
            "explicitly set `window=torch.ones(n_fft, device=<device>)`.",
            UserWarning,
            stacklevel=2,
        )
        w = _C.ones(win, dtype=real_dtype, device=input.device)
    else:
        w = window
    if win != n_fft:
        left = (n_fft - win) // 2
        w = _C.cat(
            [
                _C.zeros(left, dtype=w.dtype, device=w.device),
                w,
                _C.zeros(n_fft - win - left, dtype=w.dtype, device=w.device),
            ]
        )
    x = input.unsqueeze(0) if input.dim() == 2 else input
    x = x.transpose(1, 2)  # (C, n_frames, fft_size)
    norm = _BY_ROOT_N if normalized else _BY_N
    if return_complex:
        if side:
            raise RuntimeError("Cannot have onesided output if window or input is complex")
        frames = c2c(x, [2], norm, False)
    else:
        if window is not None and window.dtype.is_complex:
            raise RuntimeError("Complex windows are incompatible with return_complex=False")
        if not side:
            x = x.narrow(-1, 0, n_fft // 2 + 1)
        frames = c2r(x.contiguous(), [2], norm, n_fft)
    frames = frames * w
    total = n_fft + hop * (n_frames - 1)
    y = _overlap_add(frames, total, n_fft, hop)
    # PyTorch divides by the overlap-added window squared (w * w, not |w|^2, for a complex window)
    envelope = _overlap_add(
        (w * w).reshape(1, 1, n_fft).expand(1, n_frames, n_fft).contiguous(), total, n_fft, hop
    )
    start = n_fft // 2 if center else 0
    if length is not None:
        end = start + length
    else:
        end = total - n_fft // 2 if center else total
    stop = min(end, total)
    y = y[:, start:stop]
    envelope = envelope[:, start:stop]
    low = envelope.abs().min() if envelope.numel() else None
    if low is not None and float(low) < 1e-11:
        raise RuntimeError(head[:-3] + " window overlap add min: 1")
    y = y / envelope
    if input.dim() == 2:
        y = y.squeeze(0)
    if end > total:
        warnings.warn(
            "The length of signal is shorter than the length parameter. Result is being padded with zeros in the "
            "tail. Please check your center and hop_length settings.",
            UserWarning,
            stacklevel=2,
        )
        pad_shape = list(y.shape)
        pad_shape[-1] = end - total
        y = _C.cat([y, _C.zeros(pad_shape, dtype=y.dtype, device=y.device)], -1)
    return y


# Tensor methods installed by minitorch/_tensor.py (name -> function taking the tensor first)
TENSOR_METHODS = {"stft": stft, "istft": istft}
