"""autocast: the context manager and decorator that turns on the op policy of csrc/ops/autocast.h for one
device type in this thread."""

import functools
import warnings

from minitorch import _C, cuda

__all__ = ["autocast", "is_autocast_available"]


def is_autocast_available(device_type):
    return device_type in ("cuda", "cpu")


class autocast:
    """Ops listed in the autocast policy run in lower precision (matmul, linear, conv) or float32 (softmax,
    losses, reductions, exp/log) inside this region. Nestable, thread-local, usable as a decorator."""

    def __init__(self, device_type, dtype=None, enabled=True, cache_enabled=None):
        if not isinstance(device_type, str):
            raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")  # noqa: TRY004
        if not is_autocast_available(device_type):
            raise RuntimeError(
                f"User specified an unsupported autocast device_type '{device_type}'; minitorch supports "
                "'cuda' and 'cpu'"
            )
        self.device = device_type
        self.fast_dtype = _C._get_autocast_dtype(device_type) if dtype is None else dtype
        self._cache_enabled = _C._is_autocast_cache_enabled() if cache_enabled is None else cache_enabled
        if device_type == "cuda":
            if enabled and not cuda.is_available():
                warnings.warn(
                    "User provided device_type of 'cuda', but CUDA is not available. Disabling", stacklevel=2
                )
                enabled = False
            elif enabled and self.fast_dtype == _C.bfloat16 and not cuda.is_bf16_supported():
                raise RuntimeError(
                    "Current CUDA Device does not support bfloat16. Please switch dtype to float16."
                )
        if enabled and self.fast_dtype not in (_C.float16, _C.bfloat16):
            kind = "CPU" if device_type == "cpu" else "CUDA"
            warnings.warn(
                f"In {kind} autocast, but the target dtype is not supported. Disabling autocast.\n"
                f"{kind} Autocast only supports dtype of torch.bfloat16, torch.float16 currently.",
                stacklevel=2,
            )
            enabled = False
        self._enabled = enabled

    def __enter__(self):
        self.prev_cache_enabled = _C._is_autocast_cache_enabled()
        self.prev = _C._is_autocast_enabled(self.device)
        self.prev_fastdtype = _C._get_autocast_dtype(self.device)
        _C._set_autocast_enabled(self.device, self._enabled)
        _C._set_autocast_dtype(self.device, self.fast_dtype)
        _C._autocast_increment_nesting()
        _C._set_autocast_cache_enabled(self._cache_enabled)
        return self

    def __exit__(self, exc_type, exc_val, exc_tb):
        if _C._autocast_decrement_nesting() == 0:
            _C._clear_autocast_cache()
        _C._set_autocast_enabled(self.device, self.prev)
        _C._set_autocast_dtype(self.device, self.prev_fastdtype)
        _C._set_autocast_cache_enabled(self.prev_cache_enabled)
        return False

    def __call__(self, func):
        args = (self.device, self.fast_dtype, self._enabled, self._cache_enabled)

        @functools.wraps(func)
        def decorate_autocast(*a, **kw):
            with autocast(*args):
                return func(*a, **kw)

        return decorate_autocast


def is_autocast_enabled(device_type=None):
    return _C._is_autocast_enabled(device_type or "cuda")


def get_autocast_dtype(device_type):
    return _C._get_autocast_dtype(device_type)


def set_autocast_enabled(device_type, enabled):
    _C._set_autocast_enabled(device_type, enabled)


def set_autocast_dtype(device_type, dtype):
    _C._set_autocast_dtype(device_type, dtype)


def clear_autocast_cache():
    _C._clear_autocast_cache()


def is_autocast_cache_enabled():
    return _C._is_autocast_cache_enabled()


def set_autocast_cache_enabled(enabled):
    _C._set_autocast_cache_enabled(enabled)


# ---- PyTorch's older per-device spellings (torch.is_autocast_cpu_enabled() & co.), deprecated there with a
# DeprecationWarning naming the device-typed form; the nesting counter autocast regions keep is public too
def _legacy(old, new):
    warnings.warn(
        f"torch.{old} is deprecated. Please use torch.{new} instead.", DeprecationWarning, stacklevel=3
    )


def is_autocast_cpu_enabled():
    _legacy("is_autocast_cpu_enabled()", "is_autocast_enabled('cpu')")
    return _C._is_autocast_enabled("cpu")


def set_autocast_cpu_enabled(enabled):
    _legacy("set_autocast_cpu_enabled(enabled)", "set_autocast_enabled('cpu', enabled)")
    _C._set_autocast_enabled("cpu", enabled)


def get_autocast_cpu_dtype():
    _legacy("get_autocast_cpu_dtype()", "get_autocast_dtype('cpu')")
    return _C._get_autocast_dtype("cpu")


def set_autocast_cpu_dtype(dtype):
    _legacy("set_autocast_cpu_dtype(dtype)", "set_autocast_dtype('cpu', dtype)")
    _C._set_autocast_dtype("cpu", dtype)


def get_autocast_gpu_dtype():
    _legacy("get_autocast_gpu_dtype()", "get_autocast_dtype('cuda')")
    return _C._get_autocast_dtype("cuda")


def set_autocast_gpu_dtype(dtype):
    _legacy("set_autocast_gpu_dtype(dtype)", "set_autocast_dtype('cuda', dtype)")
    _C._set_autocast_dtype("cuda", dtype)


def autocast_increment_nesting():
    """the autocast regions' depth, one more (what entering a region does); returns the new depth"""
    return _C._autocast_increment_nesting()


def autocast_decrement_nesting():
    """the autocast regions' depth, one less; returns the new depth (at 0 a region's exit clears the cast
    cache)"""
    return _C._autocast_decrement_nesting()
