"""minitorch.cuda: device queries and memory statistics. Lazily initialized: importing it never touches the
driver, and every query below works (False, 0, no-op) on a machine without a GPU."""

from minitorch import _C
from minitorch._C import OutOfMemoryError  # noqa: F401


def is_available():
    """True when minitorch was built with CUDA and a GPU and driver are present. Never raises."""
    return _C._cuda_device_count() > 0


def device_count():
    return _C._cuda_device_count()


def is_initialized():
    return _C._cuda_is_initialized()


def init():
    _lazy_init()


def _lazy_init():
    _C._cuda_init()


def current_device():
    return _C._cuda_current_device()


def set_device(device):
    idx = _device_index(device)
    if idx >= 0:
        _C._cuda_set_device(idx)


def _device_index(device, optional=True):
    from minitorch import device as _device

    if device is None:
        return current_device()
    if isinstance(device, int):
        return device
    d = _device(device) if isinstance(device, str) else device
    if d.type != "cuda":
        raise ValueError(f"Expected a cuda device, but got: {d}")
    return current_device() if d.index is None else d.index


class _DeviceProperties:
    def __init__(self, name, total_memory, multi_processor_count, major, minor):
        self.name = name
        self.total_memory = total_memory
        self.multi_processor_count = multi_processor_count
        self.major = major
        self.minor = minor

    def __repr__(self):
        return (
            f"_CudaDeviceProperties(name='{self.name}', major={self.major}, minor={self.minor}, "
            f"total_memory={self.total_memory // (1024 * 1024)}MB, "
            f"multi_processor_count={self.multi_processor_count})"
        )


def get_device_properties(device=None):
    return _DeviceProperties(*_C._cuda_device_properties(_device_index(device)))


def get_device_name(device=None):
    return get_device_properties(device).name


def get_device_capability(device=None):
    p = get_device_properties(device)
    return (p.major, p.minor)


def synchronize(device=None):
    _C._cuda_synchronize(_device_index(device))


# Memory statistics: 0 and no-ops until the caching allocator (CUDA backend) exists or CUDA is unused.
def memory_allocated(device=None):
    return 0


def max_memory_allocated(device=None):
    return 0


def memory_reserved(device=None):
    return 0


def max_memory_reserved(device=None):
    return 0


def reset_peak_memory_stats(device=None):
    pass


def empty_cache():
    pass


def manual_seed(seed):
    """Seeds the generator used for CUDA tensors (today the same Philox generator as the CPU's)."""
    from minitorch import manual_seed as _ms

    _ms(seed)


def manual_seed_all(seed):
    manual_seed(seed)


def is_bf16_supported(including_emulation=True):
    """bfloat16 math needs compute capability 8.0 (Ampere) or newer; False without a GPU."""
    return is_available() and get_device_capability()[0] >= 8
