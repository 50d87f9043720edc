"""Pooling layers: MaxPool1d/2d/3d, AvgPool1d/2d/3d, AdaptiveAvg/MaxPool1d/2d/3d, LPPool1d/2d/3d,
MaxUnpool1d/2d/3d, FractionalMaxPool2d/3d (the 3-D ones run F's 3-D pools, composed from the 2-D kernels: see nn/functional/_conv3d.py)."""

from minitorch.nn import functional as F
from minitorch.nn.modules.module import Module

__all__ = [
    "AdaptiveAvgPool1d",
    "AdaptiveAvgPool2d",
    "AdaptiveAvgPool3d",
    "AdaptiveMaxPool1d",
    "AdaptiveMaxPool2d",
    "AdaptiveMaxPool3d",
    "AvgPool1d",
    "AvgPool2d",
    "AvgPool3d",
    "FractionalMaxPool2d",
    "FractionalMaxPool3d",
    "LPPool1d",
    "LPPool2d",
    "LPPool3d",
    "MaxPool1d",
    "MaxPool2d",
    "MaxPool3d",
    "MaxUnpool1d",
    "MaxUnpool2d",
    "MaxUnpool3d",
]  # fmt: skip


class _MaxPoolNd(Module):
    def __init__(
        self, kernel_size, stride=None, padding=0, dilation=1, return_indices=False, ceil_mode=False
    ):
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if (stride is not None) else kernel_size
        self.padding = padding
        self.dilation = dilation
        self.return_indices = return_indices
        self.ceil_mode = ceil_mode

    def extra_repr(self):
        return (
            f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}, "
            f"dilation={self.dilation}, ceil_mode={self.ceil_mode}"
        )

    def forward(self, input):
        return self._pool(
            input,
            self.kernel_size,
            self.stride,
            self.padding,
            self.dilation,
            self.ceil_mode,
            self.return_indices,
        )


class MaxPool1d(_MaxPoolNd):
    _pool = staticmethod(lambda *args: F.max_pool1d(*args))  # F looked up per call, as conv.py's _conv


class MaxPool2d(_MaxPoolNd):
    _pool = staticmethod(lambda *args: F.max_pool2d(*args))  # F looked up per call, as conv.py's _conv


class MaxPool3d(_MaxPoolNd):
    """Max over 3-D windows of (N, C, D, H, W) or (C, D, H, W); indices flat into D*H*W."""

    _pool = staticmethod(lambda *args: F.max_pool3d(*args))  # F looked up per call, as conv.py's _conv


class AvgPool1d(Module):
    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True):
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if (stride is not None) else kernel_size
        self.padding = padding
        self.ceil_mode = ceil_mode
        self.count_include_pad = count_include_pad

    def forward(self, input):
        return F.avg_pool1d(
            input, self.kernel_size, self.stride, self.padding, self.ceil_mode, self.count_include_pad
        )

    def extra_repr(self):
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class AvgPool2d(Module):
    def __init__(
        self,
        kernel_size,
        stride=None,
        padding=0,
        ceil_mode=False,
        count_include_pad=True,
        divisor_override=None,
    ):
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if (stride is not None) else kernel_size
        self.padding = padding
        self.ceil_mode = ceil_mode
        self.count_include_pad = count_include_pad
        self.divisor_override = divisor_override

    def forward(self, input):
        return F.avg_pool2d(
            input,
            self.kernel_size,
            self.stride,
            self.padding,
            self.ceil_mode,
            self.count_include_pad,
            self.divisor_override,
        )

    def extra_repr(self):
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class AvgPool3d(AvgPool2d):
    """Mean over 3-D windows of (N, C, D, H, W) or (C, D, H, W), with AvgPool2d's options."""

    def forward(self, input):
        """F.avg_pool3d with this module's settings."""
        return F.avg_pool3d(
            input,
            self.kernel_size,
            self.stride,
            self.padding,
            self.ceil_mode,
            self.count_include_pad,
            self.divisor_override,
        )


class _AdaptivePool(Module):
    def __init__(self, output_size):
        super().__init__()
        self.output_size = output_size

    def extra_repr(self):
        return f"output_size={self.output_size}"


class AdaptiveAvgPool1d(_AdaptivePool):
    def forward(self, input):
        return F.adaptive_avg_pool1d(input, self.output_size)


class AdaptiveAvgPool2d(_AdaptivePool):
    def forward(self, input):
        return F.adaptive_avg_pool2d(input, self.output_size)


class AdaptiveMaxPool2d(_AdaptivePool):
    def __init__(self, output_size, return_indices=False):
        super().__init__(output_size)
        self.return_indices = return_indices

    def forward(self, input):
        return F.adaptive_max_pool2d(input, self.output_size, self.return_indices)


class AdaptiveMaxPool1d(_AdaptivePool):
    """Max over adaptive windows of the last dim, to output_size positions."""

    def __init__(self, output_size, return_indices=False):
        super().__init__(output_size)
        self.return_indices = return_indices

    def forward(self, input):
        """F.adaptive_max_pool1d(input, output_size, return_indices)."""
        return F.adaptive_max_pool1d(input, self.output_size, self.return_indices)


class AdaptiveAvgPool3d(_AdaptivePool):
    """Mean over adaptive 3-D windows, to output_size (an int, or three ints or Nones)."""

    def forward(self, input):
        """F.adaptive_avg_pool3d(input, output_size)."""
        return F.adaptive_avg_pool3d(input, self.output_size)


class AdaptiveMaxPool3d(_AdaptivePool):
    """Max over adaptive 3-D windows, to output_size; indices (flat into D*H*W) too if return_indices."""

    def __init__(self, output_size, return_indices=False):
        super().__init__(output_size)
        self.return_indices = return_indices

    def forward(self, input):
        """F.adaptive_max_pool3d(input, output_size, return_indices)."""
        return F.adaptive_max_pool3d(input, self.output_size, self.return_indices)


def _tuple(x, n):
    return tuple(x) if isinstance(x, (tuple, list)) else (x,) * n


class _MaxUnpoolNd(Module):
    _n = 1

    def __init__(self, kernel_size, stride=None, padding=0):
        super().__init__()
        self.kernel_size = _tuple(kernel_size, self._n)
        self.stride = _tuple(stride if stride is not None else kernel_size, self._n)
        self.padding = _tuple(padding, self._n)

    def extra_repr(self):
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class MaxUnpool1d(_MaxUnpoolNd):
    """MaxPool1d's partial inverse: values back at their argmax positions, zeros elsewhere."""

    _n = 1

    def forward(self, input, indices, output_size=None):
        """F.max_unpool1d with this module's geometry."""
        return F.max_unpool1d(input, indices, self.kernel_size, self.stride, self.padding, output_size)


class MaxUnpool2d(_MaxUnpoolNd):
    """MaxPool2d's partial inverse: values back at their argmax positions, zeros elsewhere."""

    _n = 2

    def forward(self, input, indices, output_size=None):
        """F.max_unpool2d with this module's geometry."""
        return F.max_unpool2d(input, indices, self.kernel_size, self.stride, self.padding, output_size)


class MaxUnpool3d(_MaxUnpoolNd):
    """MaxPool3d's partial inverse: values back at their argmax positions, zeros elsewhere."""

    _n = 3

    def forward(self, input, indices, output_size=None):
        """F.max_unpool3d with this module's geometry."""
        return F.max_unpool3d(input, indices, self.kernel_size, self.stride, self.padding, output_size)


class _LPPoolNd(Module):
    def __init__(self, norm_type, kernel_size, stride=None, ceil_mode=False):
        super().__init__()
        self.norm_type = norm_type
        self.kernel_size = kernel_size
        self.stride = stride
        self.ceil_mode = ceil_mode

    def extra_repr(self):
        return (
            "norm_type={norm_type}, kernel_size={kernel_size}, stride={stride}, ceil_mode={ceil_mode}".format(
                **self.__dict__
            )
        )


class LPPool1d(_LPPoolNd):
    """Power-average pooling over 1-D windows: (sum of x^p)^(1/p)."""

    def forward(self, input):
        """F.lp_pool1d with this module's settings."""
        return F.lp_pool1d(input, float(self.norm_type), self.kernel_size, self.stride, self.ceil_mode)


class LPPool2d(_LPPoolNd):
    """Power-average pooling over 2-D windows: (sum of x^p)^(1/p)."""

    def forward(self, input):
        """F.lp_pool2d with this module's settings."""
        return F.lp_pool2d(input, float(self.norm_type), self.kernel_size, self.stride, self.ceil_mode)


class LPPool3d(_LPPoolNd):
    """Power-average pooling over 3-D windows: (sum of x^p)^(1/p)."""

    def forward(self, input):
        """F.lp_pool3d with this module's settings."""
        return F.lp_pool3d(input, float(self.norm_type), self.kernel_size, self.stride, self.ceil_mode)


class _FractionalMaxPoolNd(Module):
    _nd = 2

    def __init__(
        self, kernel_size, output_size=None, output_ratio=None, return_indices=False, _random_samples=None
    ):
        super().__init__()
        nd = self._nd

        def tup(v):
            return tuple(v) if isinstance(v, (tuple, list)) else (v,) * nd

        # PyTorch's 3-d module checks the kernel size here (its 2-d module leaves it to the kernel)
        if nd == 3 and (
            (isinstance(kernel_size, int) and kernel_size <= 0)
            or (isinstance(kernel_size, (tuple, list)) and not all(k > 0 for k in kernel_size))
        ):
            raise ValueError(f"kernel_size must be greater than 0, but got {kernel_size}")
        self.kernel_size = tup(kernel_size)
        self.return_indices = return_indices
        self.register_buffer("_random_samples", _random_samples)
        self.output_size = tup(output_size) if output_size is not None else None
        self.output_ratio = tup(output_ratio) if output_ratio is not None else None
        if output_size is None and output_ratio is None:
            raise ValueError(
                f"FractionalMaxPool{nd}d requires specifying either an output size, or a pooling ratio"
            )
        if output_size is not None and output_ratio is not None:
            raise ValueError("only one of output_size and output_ratio may be specified")
        if self.output_ratio is not None and not all(0 < r < 1 for r in self.output_ratio):
            raise ValueError(f"output_ratio must be between 0 and 1 (got {output_ratio})")

    def forward(self, input):
        fn = F.fractional_max_pool2d if self._nd == 2 else F.fractional_max_pool3d
        return fn(
            input,
            self.kernel_size,
            self.output_size,
            self.output_ratio,
            self.return_indices,
            _random_samples=self._random_samples,
        )


class FractionalMaxPool2d(_FractionalMaxPoolNd):
    """Fractional max pooling over (H, W) to output_size or output_ratio of the input (see
    F.fractional_max_pool2d); a fixed _random_samples makes the windows repeatable."""

    _nd = 2


class FractionalMaxPool3d(_FractionalMaxPoolNd):
    """Fractional max pooling over (D, H, W) (see F.fractional_max_pool3d)."""

    _nd = 3
