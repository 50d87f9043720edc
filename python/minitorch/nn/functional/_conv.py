"""nn.functional's convolutions: 1-D and 2-D as native ops, 3-D composed in _conv3d."""

from minitorch import _C, _argcheck
from minitorch.nn.functional._conv3d import conv3d, conv_transpose3d

_nn = _C._nn


def conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    return _nn.conv1d(input, weight, bias, stride, padding, dilation, groups)


def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    return _nn.conv2d(input, weight, bias, stride, padding, dilation, groups)


def conv_transpose1d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    return _nn.conv_transpose1d(input, weight, bias, stride, padding, output_padding, groups, dilation)


def conv_transpose2d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    return _nn.conv_transpose2d(input, weight, bias, stride, padding, output_padding, groups, dilation)


# the convolutions are C++ ops in PyTorch: its parser decides every argument's kind first
_CONV3D = "Tensor input, Tensor weight, Tensor? bias=None, int[3] stride=1, {} padding={}, int[3] dilation=1, int groups=1"
conv3d = _argcheck.parsing(conv3d, [_CONV3D.format("int[3]", "0"), _CONV3D.format("str", '"valid"')])
conv_transpose3d = _argcheck.parsing(
    conv_transpose3d,
    [("Tensor input, Tensor weight, Tensor? bias=None, int[3] stride=1, int[3] padding=0, int[3] output_padding=0, "
      "int groups=1, int[3] dilation=1")],
)  # fmt: skip
