"""minitorch.backends.mkldnn: the switch for oneDNN (formerly MKL-DNN) behind the CPU float convolutions, as
PyTorch's torch.backends.mkldnn. With it off, or in a build without oneDNN, CPU convolutions run im2col +
OpenBLAS GEMM. Assigning `enabled` sets it (the module's class is a ModuleType subclass with a property)."""

import contextlib
import sys
import types

from minitorch import _C


def is_available():
    """True when minitorch was built with oneDNN (the onednn-devel-cpu-gomp package, or a system oneDNN)."""
    return bool(_C._has_mkldnn)


@contextlib.contextmanager
def flags(enabled=False, deterministic=False, allow_tf32=True, fp32_precision="none"):
    """Sets `enabled` for the block and restores it after (PyTorch's signature; the others are accepted and
    ignored: the convolutions here compute in float32 and are deterministic either way)."""
    old = _C._get_mkldnn_enabled()
    _C._set_mkldnn_enabled(bool(enabled))
    try:
        yield
    finally:
        _C._set_mkldnn_enabled(old)


class _MkldnnModule(types.ModuleType):
    enabled = property(lambda self: _C._get_mkldnn_enabled(), lambda self, v: _C._set_mkldnn_enabled(bool(v)))
    deterministic = False


sys.modules[__name__].__class__ = _MkldnnModule
