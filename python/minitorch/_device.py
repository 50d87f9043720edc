"""The default device: torch.set_default_device / get_default_device and `with torch.device(...):`, which set
where factories (tensor, zeros, randn, arange, ...) put a tensor when no device= is given. Thread-local."""

import threading

from minitorch import _C

_saved = threading.local()  # per thread: the defaults that enclosing `with device:` blocks replaced


def set_default_device(device):
    """Factories called without device= make tensors on `device` (None: back to the CPU)."""
    _C._set_default_device(device)


def get_default_device():
    """The device factories use when no device= is given (a CUDA default names its index)."""
    d = _C._get_default_device()
    if d.type == "cuda" and d.index is None and _C._cuda_device_count() > 0:
        return _C.device("cuda", _C._cuda_current_device())
    return d


def _enter(self):
    stack = _saved.__dict__.setdefault("stack", [])
    stack.append(_C._get_default_device())
    _C._set_default_device(self)
    return self


def _exit(self, exc_type, exc, tb):
    _C._set_default_device(_saved.stack.pop())


def _install():
    _C.device.__enter__ = _enter
    _C.device.__exit__ = _exit


def factory_device(device):
    """`device`, or the default device when None (for the factories written in Python)."""
    if device is None:
        d = _C._get_default_device()
        return None if d.type == "cpu" else d
    return device
