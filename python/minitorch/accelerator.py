"""minitorch.accelerator: PyTorch's device-neutral API for the current accelerator, which here is CUDA.

Every function delegates to minitorch.cuda. As in PyTorch, the accelerator is decided when the library is
built: a build with CUDA reports device('cuda') from current_accelerator() even on a machine without a GPU
(is_available() then says False, and the calls that need the device raise the driver's error)."""

import warnings
from collections import OrderedDict

from minitorch import _C, cuda

__all__ = [
    "current_accelerator",
    "current_device_idx",
    "current_device_index",
    "current_stream",
    "device_count",
    "device_index",
    "empty_cache",
    "empty_host_cache",
    "get_device_capability",
    "get_memory_info",
    "is_available",
    "max_memory_allocated",
    "max_memory_reserved",
    "memory_allocated",
    "memory_reserved",
    "memory_stats",
    "reset_accumulated_memory_stats",
    "reset_peak_memory_stats",
    "set_device_idx",
    "set_device_index",
    "set_stream",
    "synchronize",
]


def current_accelerator(check_available=False):
    """device('cuda') when minitorch was built with CUDA (and, with check_available=True, a GPU is present);
    None otherwise. The device carries no index: current_device_index() says which one is selected."""
    if not _C._cuda_compiled():
        return None
    if check_available and not is_available():
        return None
    return _C.device("cuda")


def device_count():
    """The number of accelerator devices visible to this process; 0 without one."""
    return cuda.device_count() if current_accelerator() is not None else 0


def is_available():
    """True when the accelerator was built in and at least one device is usable now."""
    return current_accelerator() is not None and cuda.is_available()


def _require():
    """The accelerator, or PyTorch's error for a call that needs one in a build without."""
    acc = current_accelerator()
    if acc is None:
        raise RuntimeError("Cannot access accelerator device when none is available.")
    return acc


def _index(device, optional=False):
    """The device index `device` (an int, 'cuda:N', a minitorch.device or None) names, PyTorch's checks."""
    if isinstance(device, int) and not isinstance(device, bool):
        return device
    if isinstance(device, str):
        device = _C.device(device)
    index = None
    if isinstance(device, _C.device):
        acc = current_accelerator()
        if acc is None:
            raise RuntimeError("Accelerator expected")
        if acc.type != device.type:
            raise ValueError(f"{device.type} doesn't match the current accelerator {acc}.")
        index = device.index
    if index is None:
        if not optional:
            raise ValueError(
                f"Expected a torch.device with a specified index or an integer, but got:{device}"
            )
        return current_device_index()
    return index


def current_device_index():
    """Index of the currently selected accelerator device (starts the driver, as in PyTorch)."""
    _require()
    cuda._lazy_init()
    return cuda.current_device()


def set_device_index(device, /):
    """Selects the accelerator device `device` names; a negative index is a no-op."""
    idx = _index(device, optional=False)
    if idx < 0:
        return
    _require()
    cuda._lazy_init()
    cuda.set_device(idx)


def current_device_idx():
    """Deprecated spelling of current_device_index()."""
    warnings.warn("Use `current_device_index` instead.", FutureWarning, stacklevel=2)
    return current_device_index()


def set_device_idx(device, /):
    """Deprecated spelling of set_device_index()."""
    warnings.warn("Use `set_device_index` instead.", FutureWarning, stacklevel=2)
    set_device_index(device)


def get_device_capability(device=None, /):
    """{'supported_dtypes': set of dtypes a tensor on the device may have} for the selected device."""
    idx = _index(device, optional=True)
    cuda._lazy_init()
    if idx >= cuda.device_count():
        raise RuntimeError(f"Invalid device index {idx}")
    return {
        "supported_dtypes": {
            _C.bool,
            _C.uint8,
            _C.int8,
            _C.int16,
            _C.int32,
            _C.int64,
            _C.float16,
            _C.bfloat16,
            _C.float32,
            _C.float64,
        }
    }


def current_stream(device=None, /):
    """The stream work on `device` (default: the selected device) is enqueued on."""
    return cuda.current_stream(_index(device, optional=True))


def set_stream(stream):
    """Makes `stream` current on its device and selects that device, as PyTorch does."""
    _require()
    if stream.device_index != cuda.current_device():
        cuda.set_device(stream.device_index)
    cuda.set_stream(stream)


def synchronize(device=None, /):
    """Waits for all work queued on `device` (default: the selected device); a no-op when the accelerator
    was never initialized and the device is named by an explicit index."""
    _require()
    idx = _index(device, optional=True)
    if not cuda.is_initialized():
        return
    cuda.synchronize(idx)


class device_index:
    """Context manager selecting accelerator device `device` for its block (None: no change)."""

    def __init__(self, device, /):
        self.idx = device
        self.prev_idx = -1

    def __enter__(self):
        if self.idx is not None:
            self.prev_idx = current_device_index()
            if self.prev_idx != self.idx:
                set_device_index(self.idx)

    def __exit__(self, *exc_info):
        if self.idx is not None and self.prev_idx >= 0 and self.prev_idx != self.idx:
            set_device_index(self.prev_idx)
        return False


# ---- memory: the caching allocator's counters. They read as empty/0 (and resets do nothing) until the
# accelerator has been initialized, so none of them starts the driver.
def _initialized():
    return current_accelerator() is not None and cuda.is_initialized()


def memory_stats(device_index=None, /):
    """The caching allocator's counters for a device, sorted by PyTorch's key names."""
    if not _initialized():
        return OrderedDict()
    return OrderedDict(cuda.memory_stats(_index(device_index, optional=True)))


def memory_allocated(device_index=None, /):
    """Bytes held by live tensors on the device."""
    return memory_stats(device_index).get("allocated_bytes.all.current", 0)


def max_memory_allocated(device_index=None, /):
    """Peak of memory_allocated() since the start or the last reset_peak_memory_stats()."""
    return memory_stats(device_index).get("allocated_bytes.all.peak", 0)


def memory_reserved(device_index=None, /):
    """Bytes the caching allocator holds from the driver (tensors and cached free blocks)."""
    return memory_stats(device_index).get("reserved_bytes.all.current", 0)


def max_memory_reserved(device_index=None, /):
    """Peak of memory_reserved() since the start or the last reset_peak_memory_stats()."""
    return memory_stats(device_index).get("reserved_bytes.all.peak", 0)


def reset_peak_memory_stats(device_index=None, /):
    """Restarts the peak counters from the current values."""
    if _initialized():
        cuda.reset_peak_memory_stats(_index(device_index, optional=True))


def reset_accumulated_memory_stats(device_index=None, /):
    """Restarts the historical (allocated/freed) totals. Our allocator keeps current and peak values only,
    so this restarts the peaks, the closest it has."""
    reset_peak_memory_stats(device_index)


def empty_cache():
    """Returns cached unused device memory to the driver; a no-op before the accelerator is initialized."""
    if _initialized():
        cuda.empty_cache()


def empty_host_cache():
    """Would release the cached pinned host buffers; the pinned cache (csrc/cuda) has no binding to empty it
    yet, so this does nothing and the buffers stay cached for reuse."""


def get_memory_info(device_index=None, /):
    """(free, total) bytes of device memory as the driver reports them."""
    idx = _index(device_index, optional=True)
    return cuda.mem_get_info(idx)
