"""minitorch.backends.cudnn: the flags the cuDNN convolution path reads (enabled, benchmark, deterministic,
allow_tf32), kept in C++ so the conv kernels read them without Python; assigning the module attributes, as
PyTorch users do, sets them (the module's class is a ModuleType subclass with properties)."""

import contextlib
import sys
import types

from minitorch import _C


def is_available():
    """True when minitorch was built with cuDNN (a GPU is still needed to use it)."""
    return bool(_C._has_cudnn)


def version():
    """cuDNN's version as an int (90100 for 9.1.0), or None without cuDNN."""
    return _C._cudnn_version()


def is_acceptable(tensor):
    """True when cuDNN can take `tensor`: built with cuDNN, a CUDA tensor, a floating dtype."""
    return bool(_C._has_cudnn) and tensor.is_cuda and tensor.dtype.is_floating_point


_FIELDS = ("enabled", "benchmark", "deterministic", "allow_tf32")


def _get(name):
    return _C._get_cudnn_flags()[_FIELDS.index(name)]


def _set(name, value):
    flags = list(_C._get_cudnn_flags())
    flags[_FIELDS.index(name)] = bool(value)
    _C._set_cudnn_flags(*flags)


@contextlib.contextmanager
def flags(enabled=False, benchmark=False, benchmark_limit=10, deterministic=False, allow_tf32=True):
    """Sets the flags for the block and restores the previous values after it (PyTorch's signature and
    defaults for this context manager, which differ from the module's: enabled=False). benchmark_limit is
    accepted for compatibility: the benchmark search here always times every algorithm cuDNN offers."""
    old = _C._get_cudnn_flags()
    _C._set_cudnn_flags(bool(enabled), bool(benchmark), bool(deterministic), bool(allow_tf32))
    try:
        yield
    finally:
        _C._set_cudnn_flags(*old)


def _flag_property(name):
    return property(lambda self: _get(name), lambda self, v: _set(name, v))


class _CudnnModule(types.ModuleType):
    benchmark_limit = 10  # PyTorch's attribute; see flags()
    enabled = _flag_property("enabled")
    benchmark = _flag_property("benchmark")
    deterministic = _flag_property("deterministic")
    allow_tf32 = _flag_property("allow_tf32")


sys.modules[__name__].__class__ = _CudnnModule
