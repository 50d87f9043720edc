"""torch.nn.attention: the SDPBackend enum and the sdpa_kernel context manager that picks SDPA backends."""

import contextlib
import enum

from minitorch.nn.functional import _attention

__all__ = ["WARN_FOR_UNFUSED_KERNELS", "SDPBackend", "sdpa_kernel"]

WARN_FOR_UNFUSED_KERNELS = False


class SDPBackend(enum.IntEnum):
    """The scaled_dot_product_attention backends, PyTorch's values. minitorch computes every one with the same
    kernel (see nn/functional/_attention.py); choosing backends only decides whether a call is allowed."""

    ERROR = -1
    MATH = 0
    FLASH_ATTENTION = 1
    EFFICIENT_ATTENTION = 2
    CUDNN_ATTENTION = 3
    OVERRIDEABLE = 4

    def __repr__(self):
        return f"<SDPBackend.{self.name}: {self.value}>"

    def __str__(self):
        return f"SDPBackend.{self.name}"


_FLAG = {
    SDPBackend.MATH: "math",
    SDPBackend.FLASH_ATTENTION: "flash",
    SDPBackend.EFFICIENT_ATTENTION: "mem_efficient",
    SDPBackend.CUDNN_ATTENTION: "cudnn",
    SDPBackend.OVERRIDEABLE: "overrideable",
}


def _set(backends):
    for b, flag in _FLAG.items():
        _attention.SDP_ENABLED[flag] = b in backends


@contextlib.contextmanager
def sdpa_kernel(backends, set_priority=False):
    """Within the block, scaled_dot_product_attention may use only the given backend(s); the previous flags come
    back on exit. set_priority records the order (minitorch has one kernel, so the order changes nothing)."""
    if not isinstance(backends, (list, SDPBackend)):
        raise AssertionError(  # noqa: TRY004  (PyTorch's class)
            "Backend must be an instance of SDPBackend or a list of SDPBackend instances, got "
            f"{type(backends).__name__}"
        )
    backends = [backends] if isinstance(backends, SDPBackend) else list(dict.fromkeys(backends))
    previous = dict(_attention.SDP_ENABLED)
    try:
        _set(backends)
        yield {}
    finally:
        _attention.SDP_ENABLED.update(previous)
