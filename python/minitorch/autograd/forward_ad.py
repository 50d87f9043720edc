"""torch.autograd.forward_ad: the public face of forward-mode AD, implemented in minitorch.func._forward_ad.

The implementation lives with the other program transforms (it builds on overrides and func's batching), a
layer above autograd; this module keeps PyTorch's import path. Other names (DualTensor and the helpers tests
reach) resolve to the implementation's.
"""

from minitorch.func import _forward_ad as _impl
from minitorch.func._forward_ad import (
    UnpackedDualTensor,
    dual_level,
    enter_dual_level,
    exit_dual_level,
    make_dual,
    unpack_dual,
)

__all__ = [
    "UnpackedDualTensor",
    "dual_level",
    "enter_dual_level",
    "exit_dual_level",
    "make_dual",
    "unpack_dual",
]


def __getattr__(name):
    return getattr(_impl, name)
