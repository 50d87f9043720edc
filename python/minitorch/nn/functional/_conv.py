"""nn.functional's convolutions: 1-D and 2-D as native ops, 3-D composed in _conv3d."""

import inspect

from minitorch import _C, _argcheck
from minitorch.nn.functional._conv3d import conv3d, conv_transpose3d

_nn = _C._nn


# PyTorch's F.conv2d is its C++ op: the call reaches our binding as given, so a refusal lists the arguments
# as passed ("got (Tensor, Tensor, dilation=list)"); the signatures below are for readers and inspect


def conv1d(*args, **kwargs):
    return _nn.conv1d(*args, **kwargs)


def conv2d(*args, **kwargs):
    return _nn.conv2d(*args, **kwargs)


def conv_transpose1d(*args, **kwargs):
    return _nn.conv_transpose1d(*args, **kwargs)


def conv_transpose2d(*args, **kwargs):
    return _nn.conv_transpose2d(*args, **kwargs)


def _signature(*names):
    P = inspect.Parameter
    defaults = {"bias": None, "stride": 1, "padding": 0, "output_padding": 0, "dilation": 1, "groups": 1}
    return inspect.Signature(
        [P(n, P.POSITIONAL_OR_KEYWORD, default=defaults.get(n, P.empty)) for n in ("input", "weight") + names]
    )


conv1d.__signature__ = conv2d.__signature__ = _signature("bias", "stride", "padding", "dilation", "groups")
conv_transpose1d.__signature__ = conv_transpose2d.__signature__ = _signature(
    "bias", "stride", "padding", "output_padding", "groups", "dilation"
)


# the convolutions are C++ ops in PyTorch: its parser decides every argument's kind first
_CONV3D = (
    "Tensor input, Tensor weight, Tensor? bias=None, SymInt[3] stride=1, {} padding={}, SymInt[3] dilation=1, "
    "SymInt groups=1"
)
conv3d = _argcheck.parsing(conv3d, [_CONV3D.format("SymInt[3]", "0"), _CONV3D.format("str", '"valid"')])
conv_transpose3d = _argcheck.parsing(
    conv_transpose3d,
    [("Tensor input, Tensor weight, Tensor? bias=None, SymInt[3] stride=1, SymInt[3] padding=0, "
      "SymInt[3] output_padding=0, SymInt groups=1, SymInt[3] dilation=1")],
)  # fmt: skip


@_argcheck.parses("Tensor input, Tensor weight, Tensor bias, int pad=0", name="conv_tbc")
def conv_tbc(input, weight, bias, pad=0):
    """A 1-D convolution of a time-major input [time, batch, in_channels] with weight [kernel_width, in_channels,
    out_channels], zero-padded by pad steps at both ends (a negative pad drops steps): [time', batch, out]."""
    if input.dim() != 3:
        raise RuntimeError("Input must have 3 dims: time, batch, in_channel")
    if weight.dim() != 3:
        raise RuntimeError("Weight tensor must have 3 dims: kernel_width, in_channels, out_channels.")
    if bias.dim() != 1 or bias.size(0) != weight.size(2):
        raise RuntimeError("Bias size must equal dim 2 in the weight tensor (output channels).")
    if input.size(2) != weight.size(1):
        raise RuntimeError("Input dim 2 (input channels) is not == dim 1 in the weight tensor")
    steps = input.size(0) + 2 * pad - weight.size(0) + 1
    if steps < 0:
        shape = [steps, input.size(1), weight.size(2)]
        raise RuntimeError(f"Trying to create tensor with negative dimension {steps}: {shape}")
    if input.size(0) == 0:  # all padding: each step is the bias (the convolution refuses a zero-length input)
        return bias.expand(steps, input.size(1), weight.size(2)).contiguous()
    if pad < 0:  # the steps a negative pad drops, then no padding
        input, pad = input[-pad : input.size(0) + pad], 0
    out = _nn.conv1d(input.permute(1, 2, 0), weight.permute(2, 1, 0), bias, 1, pad)
    return out.permute(2, 0, 1).contiguous()
