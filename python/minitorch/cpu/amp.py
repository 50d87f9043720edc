"""minitorch.cpu.amp: the deprecated CPU-specific spelling of autocast (bfloat16 by default)."""

import warnings

from minitorch import _C
from minitorch.amp import autocast as _autocast

__all__ = ["autocast"]


class autocast(_autocast):
    """Deprecated: use minitorch.autocast("cpu", ...); same behaviour, bfloat16 by default."""

    def __init__(self, enabled=True, dtype=_C.bfloat16, cache_enabled=True):
        warnings.warn(
            "`torch.cpu.amp.autocast(args...)` is deprecated. Please use `torch.amp.autocast('cpu', args...)` "
            "instead.",
            FutureWarning,
            stacklevel=2,
        )
        super().__init__("cpu", enabled=enabled, dtype=dtype, cache_enabled=cache_enabled)
