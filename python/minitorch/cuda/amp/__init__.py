"""minitorch.cuda.amp: the deprecated CUDA-specific spellings of autocast and GradScaler, kept for tutorials."""

import warnings

from minitorch import _C
from minitorch.amp import GradScaler as _GradScaler
from minitorch.amp import autocast as _autocast

__all__ = ["GradScaler", "autocast"]


# The deprecated shim PyTorch keeps; torch.cpu.amp.autocast (cpu/amp.py) is its twin with bfloat16.
class autocast(_autocast):
    def __init__(self, enabled=True, dtype=_C.float16, cache_enabled=True):
        warnings.warn(
            "`torch.cuda.amp.autocast(args...)` is deprecated. Please use `torch.amp.autocast('cuda', args...)` "
            "instead.",
            FutureWarning,
            stacklevel=2,
        )
        super().__init__("cuda", enabled=enabled, dtype=dtype, cache_enabled=cache_enabled)


class GradScaler(_GradScaler):
    def __init__(
        self, init_scale=2.0**16, growth_factor=2.0, backoff_factor=0.5, growth_interval=2000, enabled=True
    ):
        warnings.warn(
            "`torch.cuda.amp.GradScaler(args...)` is deprecated. Please use `torch.amp.GradScaler('cuda', args...)` "
            "instead.",
            FutureWarning,
            stacklevel=2,
        )
        super().__init__("cuda", init_scale, growth_factor, backoff_factor, growth_interval, enabled)
