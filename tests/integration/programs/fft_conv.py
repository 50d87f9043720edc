# Follows fkodom/fft-conv-pytorch (fft_conv_pytorch/fft_conv.py, MIT; its tests/test_functional.py and
# tests/test_module.py): N-d convolution through torch.fft.rfftn/irfftn, a grouped complex matrix product built
# from .real/.imag (assigned back into a complex64 tensor), dilation by torch.kron with an offset kernel and
# F.pad's padding modes; FFTConv1d/2d/3d modules. The library part is the repository's (docstrings shortened,
# quotes as our formatter writes them). Adapted: padding_mode's default 'constant' (its 'zeros', which F.pad of
# PyTorch 2.15 refuses as ours does); its pytest grids sampled (a few cases per dimension) and run as a script.
# Added: a small FFTConv2d network trained a few steps, whose loss must fall.
# ruff: noqa: UP035, UP006, FA100  (the repository's typing.Tuple and Union, kept)
from functools import partial
from typing import Iterable, Tuple, Union

import torch
import torch.nn.functional as f
from torch import Tensor, nn
from torch.fft import irfftn, rfftn


def complex_matmul(a: Tensor, b: Tensor, groups: int = 1) -> Tensor:
    """Multiplies two complex-valued tensors."""
    # Scalar matrix multiplication of two tensors, over only the first channel
    # dimensions. Dimensions 3 and higher will have the same shape after multiplication.
    # We also allow for "grouped" multiplications, where multiple sections of channels
    # are multiplied independently of one another (required for group convolutions).
    a = a.view(a.size(0), groups, -1, *a.shape[2:])
    b = b.view(groups, -1, *b.shape[1:])

    a = torch.movedim(a, 2, a.dim() - 1).unsqueeze(-2)
    b = torch.movedim(b, (1, 2), (b.dim() - 1, b.dim() - 2))

    # complex value matrix multiplication
    real = a.real @ b.real - a.imag @ b.imag
    imag = a.imag @ b.real + a.real @ b.imag
    real = torch.movedim(real, real.dim() - 1, 2).squeeze(-1)
    imag = torch.movedim(imag, imag.dim() - 1, 2).squeeze(-1)
    c = torch.zeros(real.shape, dtype=torch.complex64, device=a.device)
    c.real, c.imag = real, imag

    return c.view(c.size(0), -1, *c.shape[3:])


def to_ntuple(val: Union[int, Iterable[int]], n: int) -> Tuple[int, ...]:
    """Casts to a tuple with length 'n'."""
    if isinstance(val, Iterable):
        out = tuple(val)
        if len(out) == n:
            return out
        else:
            raise ValueError(f"Cannot cast tuple of length {len(out)} to length {n}.")
    else:
        return n * (val,)


def fft_conv(
    signal: Tensor,
    kernel: Tensor,
    bias: Tensor = None,
    padding: Union[int, Iterable[int]] = 0,
    padding_mode: str = "constant",
    stride: Union[int, Iterable[int]] = 1,
    dilation: Union[int, Iterable[int]] = 1,
    groups: int = 1,
) -> Tensor:
    """Performs N-d convolution of Tensors using a fast fourier transform."""
    # Cast padding, stride & dilation to tuples.
    n = signal.ndim - 2
    padding_ = to_ntuple(padding, n=n)
    stride_ = to_ntuple(stride, n=n)
    dilation_ = to_ntuple(dilation, n=n)

    # internal dilation offsets
    offset = torch.zeros(1, 1, *dilation_, device=signal.device, dtype=signal.dtype)
    offset[(slice(None), slice(None), *((0,) * n))] = 1.0

    # correct the kernel by cutting off unwanted dilation trailing zeros
    cutoff = tuple(slice(None, -d + 1 if d != 1 else None) for d in dilation_)

    # pad the kernel internally according to the dilation parameters
    kernel = torch.kron(kernel, offset)[(slice(None), slice(None)) + cutoff]

    # Pad the input signal & kernel tensors
    signal_padding = [p for p in padding_[::-1] for _ in range(2)]
    signal = f.pad(signal, signal_padding, mode=padding_mode)

    # Because PyTorch computes a *one-sided* FFT, we need the final dimension to
    # have *even* length.  Just pad with one more zero if the final dimension is odd.
    if signal.size(-1) % 2 != 0:
        signal_ = f.pad(signal, [0, 1])
    else:
        signal_ = signal

    kernel_padding = [
        pad for i in reversed(range(2, signal_.ndim)) for pad in [0, signal_.size(i) - kernel.size(i)]
    ]
    padded_kernel = f.pad(kernel, kernel_padding)

    # Perform fourier convolution -- FFT, matrix multiply, then IFFT
    signal_fr = rfftn(signal_, dim=tuple(range(2, signal.ndim)))
    kernel_fr = rfftn(padded_kernel, dim=tuple(range(2, signal.ndim)))

    kernel_fr.imag *= -1
    output_fr = complex_matmul(signal_fr, kernel_fr, groups=groups)
    output = irfftn(output_fr, dim=tuple(range(2, signal.ndim)))

    # Remove extra padded values
    crop_slices = [slice(0, output.size(0)), slice(0, output.size(1))] + [
        slice(0, (signal.size(i) - kernel.size(i) + 1), stride_[i - 2]) for i in range(2, signal.ndim)
    ]
    output = output[crop_slices].contiguous()

    # Optionally, add a bias term before returning.
    if bias is not None:
        bias_shape = tuple([1, -1] + (signal.ndim - 2) * [1])
        output += bias.view(bias_shape)

    return output


class _FFTConv(nn.Module):
    """Base class for PyTorch FFT convolution layers."""

    def __init__(
        self,
        in_channels: int,
        out_channels: int,
        kernel_size: Union[int, Iterable[int]],
        padding: Union[int, Iterable[int]] = 0,
        padding_mode: str = "constant",
        stride: Union[int, Iterable[int]] = 1,
        dilation: Union[int, Iterable[int]] = 1,
        groups: int = 1,
        bias: bool = True,
        ndim: int = 1,
    ):
        super().__init__()
        self.in_channels = in_channels
        self.out_channels = out_channels
        self.kernel_size = kernel_size
        self.padding = padding
        self.padding_mode = padding_mode
        self.stride = stride
        self.dilation = dilation
        self.groups = groups
        self.use_bias = bias

        if in_channels % groups != 0:
            raise ValueError(
                "'in_channels' must be divisible by 'groups'."
                f"Found: in_channels={in_channels}, groups={groups}."
            )
        if out_channels % groups != 0:
            raise ValueError(
                "'out_channels' must be divisible by 'groups'."
                f"Found: out_channels={out_channels}, groups={groups}."
            )

        kernel_size = to_ntuple(kernel_size, ndim)
        weight = torch.randn(out_channels, in_channels // groups, *kernel_size)

        self.weight = nn.Parameter(weight)
        self.bias = nn.Parameter(torch.randn(out_channels)) if bias else None

    def forward(self, signal):
        return fft_conv(
            signal,
            self.weight,
            bias=self.bias,
            padding=self.padding,
            padding_mode=self.padding_mode,
            stride=self.stride,
            dilation=self.dilation,
            groups=self.groups,
        )


FFTConv1d = partial(_FFTConv, ndim=1)
FFTConv2d = partial(_FFTConv, ndim=2)
FFTConv3d = partial(_FFTConv, ndim=3)


# ---------------------------------------------------------------- the repository's tests, sampled
torch.manual_seed(0)
CONVS = {1: f.conv1d, 2: f.conv2d, 3: f.conv3d}
cases = [
    # (ndim, in_channels, out_channels, groups, kernel_size, padding, stride, dilation, bias, input_size)
    (1, 2, 4, 1, 3, 0, 1, 1, True, 16),
    (1, 4, 4, 2, 5, 2, 2, 1, False, 17),
    (1, 2, 2, 1, 3, 1, 1, 2, True, 15),
    (2, 2, 4, 1, 3, 1, 1, 1, True, 8),
    (2, 4, 2, 2, 3, 0, 2, 1, True, 9),
    (2, 2, 4, 1, 2, 1, 1, 2, False, 8),
    (3, 2, 2, 1, 3, 1, 1, 1, True, 6),
    (3, 2, 4, 2, 2, 0, 2, 1, True, 7),
]
for ndim, cin, cout, groups, k, padding, stride, dilation, use_bias, size in cases:
    batch = 2
    signal = torch.randn(batch, cin, *([size] * ndim), requires_grad=True)
    weight = torch.randn(cout, cin // groups, *([k] * ndim), requires_grad=True)
    bias = torch.randn(cout, requires_grad=True) if use_bias else None
    kwargs = dict(bias=bias, padding=padding, stride=stride, dilation=dilation, groups=groups)
    y0 = fft_conv(signal, weight, **kwargs)
    y1 = CONVS[ndim](signal, weight, **kwargs)
    assert y0.shape == y1.shape, (y0.shape, y1.shape)
    assert torch.allclose(y0, y1, rtol=1e-4, atol=1e-4), (ndim, (y0 - y1).abs().max())
    # gradients through the FFT path equal the direct convolution's (test_functional.py's backward test)
    g = torch.randn_like(y1)
    grads0 = torch.autograd.grad(y0, [signal, weight], g)
    grads1 = torch.autograd.grad(y1, [signal, weight], g)
    for a, b in zip(grads0, grads1):
        assert torch.allclose(a, b, rtol=1e-3, atol=1e-3), (ndim, (a - b).abs().max())

# the module against nn.Conv2d with the same weights (test_module.py)
fft_layer = FFTConv2d(3, 6, 5, padding=2, bias=True)
conv = nn.Conv2d(3, 6, 5, padding=2)
with torch.no_grad():
    conv.weight.copy_(fft_layer.weight)
    conv.bias.copy_(fft_layer.bias)
x = torch.randn(4, 3, 12, 12)
assert torch.allclose(fft_layer(x), conv(x), rtol=1e-4, atol=1e-3)

# a tiny FFT-convolution network learns to denoise a smooth 2-d signal
net = nn.Sequential(FFTConv2d(1, 4, 5, padding=2), nn.Tanh(), FFTConv2d(4, 1, 5, padding=2))
for m in net:
    if isinstance(m, _FFTConv):
        with torch.no_grad():
            m.weight.mul_(0.1)
            m.bias.zero_()
opt = torch.optim.Adam(net.parameters(), lr=1e-2)
grid = torch.linspace(0, 3.14159, 16)
clean = (torch.sin(grid)[:, None] * torch.cos(grid)[None, :]).expand(8, 1, 16, 16)
losses = []
for step in range(60):
    noisy = clean + 0.3 * torch.randn_like(clean)
    loss = f.mse_loss(net(noisy), clean)
    opt.zero_grad()
    loss.backward()
    opt.step()
    losses.append(loss.item())
print(f"loss {losses[0]:.4f} -> {losses[-1]:.4f}")
assert losses[-1] < 0.5 * losses[0], losses
print("fft_conv: ok")
