"""minitorch.cuda: device queries and memory statistics. Lazily initialized: importing it never touches the
driver, and every query below works (False, 0, no-op) on a machine without a GPU."""

from minitorch import _C
from minitorch._C import OutOfMemoryError  # noqa: F401
from minitorch._legacy import cuda_types as _cuda_types
from minitorch.cuda.graphs import (  # noqa: F401
    CUDAGraph,
    graph,
    graph_pool_handle,
    is_current_stream_capturing,
    make_graphed_callables,
)
from minitorch.cuda.streams import Event, ExternalStream, Stream, _device_index  # noqa: F401

# torch.cuda.FloatTensor & co., the legacy constructors of CUDA tensors
globals().update(_cuda_types())


def is_available():
    """True when minitorch was built with CUDA and a GPU and driver are present. Never raises."""
    return _C._cuda_device_count() > 0


def device_count():
    """The number of CUDA GPUs visible to this process (0 without a GPU or driver)."""
    return _C._cuda_device_count()


def is_initialized():
    """True once CUDA has been initialized in this process (by the first CUDA use)."""
    return _C._cuda_is_initialized()


def init():
    """Initializes CUDA now rather than at first use; raises without a GPU."""
    _lazy_init()


def _lazy_init():
    _C._cuda_init()


def current_device():
    """Index of the current CUDA device (what 'cuda' without an index means)."""
    return _C._cuda_current_device()


def set_device(device):
    """Makes `device` (an index, 'cuda:N' or a minitorch.device) the current CUDA device."""
    idx = _device_index(device)
    if idx >= 0:
        _C._cuda_set_device(idx)


def get_stream_priority_range():
    """(least, greatest) priority; a lower number is a higher priority."""
    return tuple(_C._cuda_stream_priority_range())


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
    """Name, total memory, SM count and compute capability of a CUDA device."""
    return _DeviceProperties(*_C._cuda_device_properties(_device_index(device)))


def get_device_name(device=None):
    """The GPU's marketing name, for example 'NVIDIA H100 80GB HBM3'."""
    return get_device_properties(device).name


def get_device_capability(device=None):
    """(major, minor) compute capability of a CUDA device."""
    p = get_device_properties(device)
    return (p.major, p.minor)


def synchronize(device=None):
    """Waits until every kernel queued on `device` (default: current) has finished."""
    _C._cuda_synchronize(_device_index(device))


# ---- memory: the caching allocator's statistics (csrc/cuda/CUDACachingAllocator.cpp). Like PyTorch, they
# read as empty/0 until CUDA has been initialized, so they never start the driver.
def memory_stats(device=None):
    """The caching allocator's counters for `device`, under PyTorch's key names."""
    if not is_initialized():
        return {}
    return dict(sorted(_C._cuda_memory_stats(_device_index(device)).items()))


def memory_allocated(device=None):
    """Bytes held by tensors on `device` (block sizes as the allocator rounds them)."""
    return memory_stats(device).get("allocated_bytes.all.current", 0)


def max_memory_allocated(device=None):
    """Peak of memory_allocated() since the start or the last reset_peak_memory_stats()."""
    return memory_stats(device).get("allocated_bytes.all.peak", 0)


def memory_reserved(device=None):
    """Bytes the allocator holds from the driver: tensors plus cached free blocks."""
    return memory_stats(device).get("reserved_bytes.all.current", 0)


def max_memory_reserved(device=None):
    """Peak of memory_reserved() since the start or the last reset_peak_memory_stats()."""
    return memory_stats(device).get("reserved_bytes.all.peak", 0)


def reset_peak_memory_stats(device=None):
    """Starts the peak counters (max_memory_allocated/reserved) again from the current values."""
    if is_initialized():
        _C._cuda_reset_peak_memory_stats(_device_index(device))


def reset_max_memory_allocated(device=None):
    """Same as reset_peak_memory_stats (PyTorch's older name)."""
    reset_peak_memory_stats(device)


def empty_cache():
    """Returns cached, unused device memory to the driver (tensors in use keep theirs)."""
    _C._cuda_empty_cache()


def mem_get_info(device=None):
    """(free, total) bytes of device memory as the driver reports them."""
    return tuple(_C._cuda_mem_get_info(_device_index(device)))


def memory_summary(device=None, abbreviated=False):
    """A printable table of the allocator's main counters (current and peak)."""
    stats = memory_stats(device)
    lines = [f"minitorch CUDA memory summary, device {_device_index(device)}"]
    for key in ("allocated_bytes", "reserved_bytes", "requested_bytes"):
        cur, peak = stats.get(f"{key}.all.current", 0), stats.get(f"{key}.all.peak", 0)
        lines.append(f"  {key:<16} current {cur:>14,}  peak {peak:>14,}")
    lines.append(
        f"  num_alloc_retries {stats.get('num_alloc_retries', 0)}  num_ooms {stats.get('num_ooms', 0)}"
    )
    return "\n".join(lines)


# ---- devices as context managers
class device:
    """Context manager that makes `device` the current CUDA device for its block."""

    def __init__(self, device):
        self.idx = _device_index(device, optional=True) if device is not None else -1
        self.prev_idx = -1

    def __enter__(self):
        if self.idx >= 0:
            self.prev_idx = current_device()
            if self.prev_idx != self.idx:
                set_device(self.idx)
        return self

    def __exit__(self, *exc):
        if self.idx >= 0 and self.prev_idx != self.idx:
            set_device(self.prev_idx)
        return False


class device_of(device):
    """The device of a tensor as a context manager (a no-op for CPU tensors)."""

    def __init__(self, obj):
        super().__init__(obj.get_device() if obj.is_cuda else None)


# ---- streams and events (Stream, ExternalStream, Event: minitorch.cuda.streams)
def current_stream(device=None):
    """The stream that operations on `device` enqueue on in this thread."""
    idx = _device_index(device)
    return Stream(device=idx, stream_ptr=_C._cuda_current_stream(idx))


def default_stream(device=None):
    """The device's default (legacy NULL) stream."""
    _lazy_init()
    return Stream(device=_device_index(device), stream_ptr=0)


def set_stream(stream):
    """Makes `stream` the current stream of its device; ops enqueue on it from then on."""
    if stream is not None:
        _C._cuda_set_stream(stream.device_index, stream.cuda_stream)


class StreamContext:
    """Makes `stream` current on its device (and its device current) for the block; None is a no-op."""

    def __init__(self, stream):
        self.stream = stream
        self.prev_stream = None
        self.prev_device = -1

    def __enter__(self):
        s = self.stream
        if s is None:
            return s
        self.prev_device = current_device()
        if s.device_index != self.prev_device:
            set_device(s.device_index)
        self.prev_stream = current_stream(s.device_index)
        set_stream(s)
        return s

    def __exit__(self, *exc):
        if self.stream is None:
            return False
        set_stream(self.prev_stream)
        if self.stream.device_index != self.prev_device:
            set_device(self.prev_device)
        return False


def stream(stream):
    """Context manager: `with minitorch.cuda.stream(s): ...` enqueues the block's work on `s`."""
    return StreamContext(stream)


def manual_seed(seed):
    """Seeds the current CUDA device's generator (minitorch.manual_seed seeds every device and the CPU)."""
    _C._cuda_manual_seed(current_device() if is_initialized() else 0, int(seed) & ((1 << 64) - 1))


def manual_seed_all(seed):
    """Seeds the random generator of every CUDA device."""
    for d in range(max(device_count(), 1)):
        _C._cuda_manual_seed(d, int(seed) & ((1 << 64) - 1))


def initial_seed():
    """The seed of the current CUDA device's random generator (initializes CUDA: raises without a GPU)."""
    _lazy_init()
    return _C._cuda_initial_seed(current_device())


def _rng_device_index(device):
    # PyTorch's reading of the device= of the rng-state functions: "cuda" (the current device), "cuda:N", N
    if isinstance(device, str):
        device = _C.device(device)
    elif isinstance(device, int):
        device = _C.device("cuda", device)
    idx = device.index
    return current_device() if idx is None else idx


def get_rng_state(device="cuda"):
    """The state of a CUDA device's default generator as a uint8 tensor (initializes CUDA: raises without a
    GPU, as PyTorch does)."""
    _lazy_init()
    return _C._cuda_default_generator(_rng_device_index(device)).get_state()


def get_rng_state_all():
    """get_rng_state() of every device, in order ([] without a GPU)."""
    return [get_rng_state(i) for i in range(device_count())]


def set_rng_state(new_state, device="cuda"):
    """Restores a device's generator from get_rng_state(). Like PyTorch's, deferred until CUDA is
    initialized: without a GPU it never runs, so nothing is raised but for a state that is not a tensor."""
    new_state_copy = new_state.clone(memory_format=_C.contiguous_format)
    if is_available():
        _C._cuda_default_generator(_rng_device_index(device)).set_state(new_state_copy)


def set_rng_state_all(new_states):
    """set_rng_state(new_states[i], i) for each i."""
    for i, state in enumerate(new_states):
        set_rng_state(state, i)


def seed():
    """Seeds the current device's generator with a random number (deferred like set_rng_state: a no-op
    without a GPU). Returns None, as PyTorch's."""
    if is_available():
        _C._cuda_default_generator(current_device()).seed()


def seed_all():
    """Seeds every device's generator with one random number (a no-op without a GPU)."""
    if not is_available():
        return
    random_seed = _C._cuda_default_generator(current_device()).seed()
    for i in range(device_count()):
        _C._cuda_manual_seed(i, random_seed)


def __getattr__(name):
    # torch.cuda.default_generators: one per visible device, made on access so that importing the module never
    # asks the driver how many devices there are
    if name == "default_generators":
        return tuple(_C._cuda_default_generator(i) for i in range(device_count()))
    raise AttributeError(f"module 'minitorch.cuda' has no attribute '{name}'")


def is_bf16_supported(including_emulation=True):
    """bfloat16 math needs compute capability 8.0 (Ampere) or newer; False without a GPU."""
    return is_available() and get_device_capability()[0] >= 8
