"""Conv1d/2d/3d, ConvTranspose1d/2d/3d and their Lazy forms with PyTorch's parameters, padding modes and init
(the 3-D ones run F.conv3d/F.conv_transpose3d, which compose the 2-D kernels: see nn/functional/_conv3d.py)."""

import math

from minitorch import _C
from minitorch.autograd.grad_mode import no_grad
from minitorch.nn import functional as F
from minitorch.nn import init
from minitorch.nn.modules.lazy import LazyModuleMixin
from minitorch.nn.modules.module import Module
from minitorch.nn.parameter import Parameter, UninitializedParameter

__all__ = [
    "Conv1d",
    "Conv2d",
    "Conv3d",
    "ConvTranspose1d",
    "ConvTranspose2d",
    "ConvTranspose3d",
    "LazyConv1d",
    "LazyConv2d",
    "LazyConv3d",
    "LazyConvTranspose1d",
    "LazyConvTranspose2d",
    "LazyConvTranspose3d",
]


def _ntuple(x, n):
    if isinstance(x, (tuple, list)):
        return tuple(x)
    return (x,) * n


class _ConvNd(Module):
    _n = 2
    # Subclasses' _conv look F.conv*d up at each call rather than binding it at class creation, so that a call
    # made while the torch-function dispatch is on (torch.func.vmap, minitorch.overrides) reaches its wrapper.

    def __init__(
        self,
        in_channels,
        out_channels,
        kernel_size,
        stride,
        padding,
        dilation,
        transposed,
        output_padding,
        groups,
        bias,
        padding_mode,
        device=None,
        dtype=None,
    ):
        super().__init__()
        if groups <= 0:
            raise ValueError("groups must be a positive integer")
        if in_channels % groups != 0:
            raise ValueError("in_channels must be divisible by groups")
        if out_channels % groups != 0:
            raise ValueError("out_channels must be divisible by groups")
        valid_padding_strings = {"same", "valid"}
        if isinstance(padding, str):
            if padding not in valid_padding_strings:
                raise ValueError(
                    f"Invalid padding string {padding!r}, should be one of {valid_padding_strings}"
                )
            if padding == "same" and any(s != 1 for s in stride):
                raise ValueError("padding='same' is not supported for strided convolutions")
        valid_padding_modes = {"zeros", "reflect", "replicate", "circular"}
        if padding_mode not in valid_padding_modes:
            raise ValueError(
                f"padding_mode must be one of {valid_padding_modes}, but got padding_mode='{padding_mode}'"
            )
        self.in_channels = in_channels
        self.out_channels = out_channels
        self.kernel_size = kernel_size
        self.stride = stride
        self.padding = padding
        self.dilation = dilation
        self.transposed = transposed
        self.output_padding = output_padding
        self.groups = groups
        self.padding_mode = padding_mode
        if isinstance(padding, str):
            self._reversed_padding_repeated_twice = [0, 0] * len(kernel_size)
            if padding == "same":
                for d, k, i in zip(dilation, kernel_size, range(len(kernel_size) - 1, -1, -1)):
                    total = d * (k - 1)
                    left = total // 2
                    self._reversed_padding_repeated_twice[2 * i] = left
                    self._reversed_padding_repeated_twice[2 * i + 1] = total - left
        else:
            self._reversed_padding_repeated_twice = [p for p in reversed(padding) for _ in range(2)]
        if transposed:
            shape = (in_channels, out_channels // groups) + tuple(kernel_size)
        else:
            shape = (out_channels, in_channels // groups) + tuple(kernel_size)
        self.weight = Parameter(_C.empty(shape, device=device, dtype=dtype))
        if bias:
            self.bias = Parameter(_C.empty(out_channels, device=device, dtype=dtype))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self):
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in, _ = init._calculate_fan_in_and_fan_out(self.weight)
            if fan_in != 0:
                bound = 1 / math.sqrt(fan_in)
                init.uniform_(self.bias, -bound, bound)

    # PyTorch's name: subclasses that transform the weight (weight standardization) call it.
    def _conv_forward(self, input, weight, bias):
        if self.padding_mode != "zeros":
            x = F.pad(input, self._reversed_padding_repeated_twice, mode=self.padding_mode)
            return self._conv(x, weight, bias, self.stride, 0, self.dilation, self.groups)
        return self._conv(input, weight, bias, self.stride, self.padding, self.dilation, self.groups)

    def forward(self, input):
        return self._conv_forward(input, self.weight, self.bias)

    def extra_repr(self):
        s = "{in_channels}, {out_channels}, kernel_size={kernel_size}, stride={stride}"
        if self.padding != (0,) * len(self.padding):
            s += ", padding={padding}"
        if self.dilation != (1,) * len(self.dilation):
            s += ", dilation={dilation}"
        if self.output_padding != (0,) * len(self.output_padding):
            s += ", output_padding={output_padding}"
        if self.groups != 1:
            s += ", groups={groups}"
        if self.bias is None:
            s += ", bias=False"
        if self.padding_mode != "zeros":
            s += ", padding_mode={padding_mode}"
        return s.format(**self.__dict__)


# The four classes spell out PyTorch's constructor signatures (order, defaults), so their __init__s repeat
# by design; everything else lives in _ConvNd and _ConvTransposeNd.
class Conv1d(_ConvNd):
    _conv = staticmethod(lambda *args: F.conv1d(*args))

    def __init__(
        self,
        in_channels,
        out_channels,
        kernel_size,
        stride=1,
        padding=0,
        dilation=1,
        groups=1,
        bias=True,
        padding_mode="zeros",
        device=None,
        dtype=None,
    ):
        padding_ = padding if isinstance(padding, str) else _ntuple(padding, 1)
        super().__init__(
            in_channels, out_channels, _ntuple(kernel_size, 1), _ntuple(stride, 1), padding_,
            _ntuple(dilation, 1), False, (0,), groups, bias, padding_mode, device, dtype,
        )  # fmt: skip


class Conv2d(_ConvNd):
    _conv = staticmethod(lambda *args: F.conv2d(*args))

    def __init__(
        self,
        in_channels,
        out_channels,
        kernel_size,
        stride=1,
        padding=0,
        dilation=1,
        groups=1,
        bias=True,
        padding_mode="zeros",
        device=None,
        dtype=None,
    ):
        padding_ = padding if isinstance(padding, str) else _ntuple(padding, 2)
        super().__init__(
            in_channels, out_channels, _ntuple(kernel_size, 2), _ntuple(stride, 2), padding_,
            _ntuple(dilation, 2), False, (0, 0), groups, bias, padding_mode, device, dtype,
        )  # fmt: skip


class Conv3d(_ConvNd):
    """3-D convolution over (N, C, D, H, W) or (C, D, H, W) inputs; F.conv3d composes the 2-D kernel (one
    conv2d with the depth taps folded into channels), a native 3-D kernel being future C++ work."""

    _conv = staticmethod(lambda *args: F.conv3d(*args))

    def __init__(
        self,
        in_channels,
        out_channels,
        kernel_size,
        stride=1,
        padding=0,
        dilation=1,
        groups=1,
        bias=True,
        padding_mode="zeros",
        device=None,
        dtype=None,
    ):
        padding_ = padding if isinstance(padding, str) else _ntuple(padding, 3)
        super().__init__(
            in_channels, out_channels, _ntuple(kernel_size, 3), _ntuple(stride, 3), padding_,
            _ntuple(dilation, 3), False, (0, 0, 0), groups, bias, padding_mode, device, dtype,
        )  # fmt: skip


class _ConvTransposeNd(_ConvNd):
    def forward(self, input, output_size=None):
        op = self._output_padding(input, output_size)
        return self._conv(
            input, self.weight, self.bias, self.stride, self.padding, op, self.groups, self.dilation
        )

    def _output_padding(self, input, output_size):
        if output_size is None:
            return self.output_padding
        n = len(self.kernel_size)
        lead = 2 if input.dim() == n + 2 else 1
        output_size = list(output_size)
        if len(output_size) == lead + n:
            output_size = output_size[lead:]
        if len(output_size) != n:
            raise ValueError(
                f"ConvTranspose{n}D: for {input.dim()}D input, output_size must have {n} or {lead + n} elements "
                f"(got {len(output_size)})"
            )
        spatial = input.shape[-n:]
        min_sizes = [
            (spatial[d] - 1) * self.stride[d] - 2 * self.padding[d] + self.dilation[d] * (self.kernel_size[d] - 1) + 1
            for d in range(n)
        ]  # fmt: skip
        max_sizes = [lo + self.stride[d] - 1 for d, lo in enumerate(min_sizes)]
        for d in range(n):
            if not (min_sizes[d] <= output_size[d] <= max_sizes[d]):
                raise ValueError(
                    f"requested an output size of {output_size}, but valid sizes range from {min_sizes} to "
                    f"{max_sizes} (for an input of {spatial})"
                )
        return tuple(output_size[d] - min_sizes[d] for d in range(n))


class ConvTranspose1d(_ConvTransposeNd):
    _conv = staticmethod(lambda *args: F.conv_transpose1d(*args))

    def __init__(
        self,
        in_channels,
        out_channels,
        kernel_size,
        stride=1,
        padding=0,
        output_padding=0,
        groups=1,
        bias=True,
        dilation=1,
        padding_mode="zeros",
        device=None,
        dtype=None,
    ):
        if padding_mode != "zeros":
            raise ValueError(f'Only "zeros" padding mode is supported for {type(self).__name__}')
        super().__init__(
            in_channels, out_channels, _ntuple(kernel_size, 1), _ntuple(stride, 1), _ntuple(padding, 1),
            _ntuple(dilation, 1), True, _ntuple(output_padding, 1), groups, bias, padding_mode, device, dtype,
        )  # fmt: skip


class ConvTranspose2d(_ConvTransposeNd):
    _conv = staticmethod(lambda *args: F.conv_transpose2d(*args))

    def __init__(
        self,
        in_channels,
        out_channels,
        kernel_size,
        stride=1,
        padding=0,
        output_padding=0,
        groups=1,
        bias=True,
        dilation=1,
        padding_mode="zeros",
        device=None,
        dtype=None,
    ):
        if padding_mode != "zeros":
            raise ValueError(f'Only "zeros" padding mode is supported for {type(self).__name__}')
        super().__init__(
            in_channels, out_channels, _ntuple(kernel_size, 2), _ntuple(stride, 2), _ntuple(padding, 2),
            _ntuple(dilation, 2), True, _ntuple(output_padding, 2), groups, bias, padding_mode, device, dtype,
        )  # fmt: skip


class ConvTranspose3d(_ConvTransposeNd):
    """3-D transposed convolution; F.conv_transpose3d composes the 2-D kernel (one conv_transpose2d and an
    index_add along depth), a native 3-D kernel being future C++ work."""

    _conv = staticmethod(lambda *args: F.conv_transpose3d(*args))

    def __init__(
        self,
        in_channels,
        out_channels,
        kernel_size,
        stride=1,
        padding=0,
        output_padding=0,
        groups=1,
        bias=True,
        dilation=1,
        padding_mode="zeros",
        device=None,
        dtype=None,
    ):
        if padding_mode != "zeros":
            raise ValueError(f'Only "zeros" padding mode is supported for {type(self).__name__}')
        super().__init__(
            in_channels, out_channels, _ntuple(kernel_size, 3), _ntuple(stride, 3), _ntuple(padding, 3),
            _ntuple(dilation, 3), True, _ntuple(output_padding, 3), groups, bias, padding_mode, device, dtype,
        )  # fmt: skip


class _LazyConvXdMixin(LazyModuleMixin):
    def _lazy_setup(self, out_channels, bias, device, dtype):
        self.weight = UninitializedParameter(device=device, dtype=dtype)
        self.out_channels = out_channels
        if bias:
            self.bias = UninitializedParameter(device=device, dtype=dtype)

    def reset_parameters(self):
        """The convolution's initialization, once the shapes are known."""
        if not self.has_uninitialized_params() and self.in_channels != 0:
            super().reset_parameters()

    def initialize_parameters(self, input, *args, **kwargs):
        """Reads in_channels from the input's channel dim, materializes weight and bias, initializes them."""
        if self.has_uninitialized_params():
            n = len(self.kernel_size)
            if input.dim() not in (n + 1, n + 2):
                raise RuntimeError(
                    f"Expected {n + 1}D (unbatched) or {n + 2}D (batched) input to {type(self).__name__}, but "
                    f"got input of size: {input.shape}"
                )
            self.in_channels = input.shape[0] if input.dim() == n + 1 else input.shape[1]
            if self.in_channels % self.groups != 0:
                raise ValueError("in_channels must be divisible by groups")
            with no_grad():
                if self.transposed:
                    shape = (self.in_channels, self.out_channels // self.groups) + tuple(self.kernel_size)
                else:
                    shape = (self.out_channels, self.in_channels // self.groups) + tuple(self.kernel_size)
                self.weight.materialize(shape)
                if self.bias is not None:
                    self.bias.materialize((self.out_channels,))
                self.reset_parameters()
        elif self.in_channels == 0:
            self.in_channels = self.weight.shape[0] if self.transposed else self.weight.shape[1] * self.groups


class LazyConv1d(_LazyConvXdMixin, Conv1d):
    """A Conv1d whose in_channels is inferred from the first input; it then becomes a Conv1d."""

    cls_to_become = Conv1d

    def __init__(
        self, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1, bias=True,
        padding_mode="zeros", device=None, dtype=None,
    ):  # fmt: skip
        super().__init__(
            0, 0, kernel_size, stride, padding, dilation, groups, False, padding_mode, device, dtype
        )
        self._lazy_setup(out_channels, bias, device, dtype)


class LazyConv2d(_LazyConvXdMixin, Conv2d):
    """A Conv2d whose in_channels is inferred from the first input; it then becomes a Conv2d."""

    cls_to_become = Conv2d

    def __init__(
        self, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1, bias=True,
        padding_mode="zeros", device=None, dtype=None,
    ):  # fmt: skip
        super().__init__(
            0, 0, kernel_size, stride, padding, dilation, groups, False, padding_mode, device, dtype
        )
        self._lazy_setup(out_channels, bias, device, dtype)


class LazyConv3d(_LazyConvXdMixin, Conv3d):
    """A Conv3d whose in_channels is inferred from the first input; it then becomes a Conv3d."""

    cls_to_become = Conv3d

    def __init__(
        self, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1, bias=True,
        padding_mode="zeros", device=None, dtype=None,
    ):  # fmt: skip
        super().__init__(
            0, 0, kernel_size, stride, padding, dilation, groups, False, padding_mode, device, dtype
        )
        self._lazy_setup(out_channels, bias, device, dtype)


# The transposed lazy classes: the weight is (in_channels, out_channels / groups, *kernel) once materialized.
class LazyConvTranspose1d(_LazyConvXdMixin, ConvTranspose1d):
    """A ConvTranspose1d whose in_channels is inferred from the first input; it then becomes one."""

    cls_to_become = ConvTranspose1d

    def __init__(
        self, out_channels, kernel_size, stride=1, padding=0, output_padding=0, groups=1, bias=True,
        dilation=1, padding_mode="zeros", device=None, dtype=None,
    ):  # fmt: skip
        super().__init__(
            0, 0, kernel_size, stride, padding, output_padding, groups, False, dilation, padding_mode,
            device, dtype,
        )  # fmt: skip
        self._lazy_setup(out_channels, bias, device, dtype)


class LazyConvTranspose2d(_LazyConvXdMixin, ConvTranspose2d):
    """A ConvTranspose2d whose in_channels is inferred from the first input; it then becomes one."""

    cls_to_become = ConvTranspose2d

    def __init__(
        self, out_channels, kernel_size, stride=1, padding=0, output_padding=0, groups=1, bias=True,
        dilation=1, padding_mode="zeros", device=None, dtype=None,
    ):  # fmt: skip
        super().__init__(
            0, 0, kernel_size, stride, padding, output_padding, groups, False, dilation, padding_mode,
            device, dtype,
        )  # fmt: skip
        self._lazy_setup(out_channels, bias, device, dtype)


class LazyConvTranspose3d(_LazyConvXdMixin, ConvTranspose3d):
    """A ConvTranspose3d whose in_channels is inferred from the first input; it then becomes one."""

    cls_to_become = ConvTranspose3d

    def __init__(
        self, out_channels, kernel_size, stride=1, padding=0, output_padding=0, groups=1, bias=True,
        dilation=1, padding_mode="zeros", device=None, dtype=None,
    ):  # fmt: skip
        super().__init__(
            0, 0, kernel_size, stride, padding, output_padding, groups, False, dilation, padding_mode,
            device, dtype,
        )  # fmt: skip
        self._lazy_setup(out_channels, bias, device, dtype)
