"""Padding layers (ConstantPad/ZeroPad/ReflectionPad/ReplicationPad/CircularPad, 1d to 3d): modules over F.pad,
as in PyTorch."""

import collections.abc

from minitorch.nn import functional as F
from minitorch.nn.modules.module import Module

__all__ = [
    "CircularPad1d",
    "CircularPad2d",
    "CircularPad3d",
    "ConstantPad1d",
    "ConstantPad2d",
    "ConstantPad3d",
    "ReflectionPad1d",
    "ReflectionPad2d",
    "ReflectionPad3d",
    "ReplicationPad1d",
    "ReplicationPad2d",
    "ReplicationPad3d",
    "ZeroPad1d",
    "ZeroPad2d",
    "ZeroPad3d",
]


def _ntuple(padding, n):
    # a single value (PyTorch's _ntuple takes any non-iterable) pads every side; an iterable gives
    # (left, right, top, bottom, front, back) as F.pad takes them
    if isinstance(padding, collections.abc.Iterable):
        return tuple(padding)
    return (padding,) * n


class _PadNd(Module):
    _mode = "constant"
    _sides = 2

    def __init__(self, padding):
        super().__init__()
        self.padding = _ntuple(padding, self._sides)

    def forward(self, input):
        return F.pad(input, self.padding, self._mode)

    def extra_repr(self):
        return f"{self.padding}"


class _ConstantPadNd(_PadNd):
    def __init__(self, padding, value):
        super().__init__(padding)
        self.value = value

    def forward(self, input):
        return F.pad(input, self.padding, "constant", self.value)

    def extra_repr(self):
        return f"padding={self.padding}, value={self.value}"


class ConstantPad1d(_ConstantPadNd):
    _mode = "constant"
    _sides = 2


class ConstantPad2d(_ConstantPadNd):
    _mode = "constant"
    _sides = 4


class ConstantPad3d(_ConstantPadNd):
    _mode = "constant"
    _sides = 6


class ReflectionPad1d(_PadNd):
    _mode = "reflect"
    _sides = 2


class ReflectionPad2d(_PadNd):
    _mode = "reflect"
    _sides = 4


class ReflectionPad3d(_PadNd):
    _mode = "reflect"
    _sides = 6


class ReplicationPad1d(_PadNd):
    _mode = "replicate"
    _sides = 2


class ReplicationPad2d(_PadNd):
    _mode = "replicate"
    _sides = 4


class ReplicationPad3d(_PadNd):
    _mode = "replicate"
    _sides = 6


class _CircularPadNd(_PadNd):
    _mode = "circular"

    def forward(self, input):
        # PyTorch's circular modules check the rank themselves (ValueError), before F.pad's rules
        n = self._sides // 2
        if input.dim() not in (n + 1, n + 2):
            raise ValueError(f"expected {n + 1}D or {n + 2}D input (got {input.dim()}D input)")
        return F.pad(input, self.padding, self._mode)


class CircularPad1d(_CircularPadNd):
    _sides = 2


class CircularPad2d(_CircularPadNd):
    _sides = 4


class CircularPad3d(_CircularPadNd):
    _sides = 6


class _ZeroPadNd(_ConstantPadNd):
    def __init__(self, padding):
        super().__init__(padding, 0.0)

    def extra_repr(self):
        return f"{self.padding}"


class ZeroPad1d(_ZeroPadNd):
    _sides = 2


class ZeroPad2d(_ZeroPadNd):
    _sides = 4


class ZeroPad3d(_ZeroPadNd):
    _sides = 6
