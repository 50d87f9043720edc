"""torch.cuda.streams: CUDA streams and events (Stream, ExternalStream, Event) as handles of the runtime's
cudaStream_t / cudaEvent_t (csrc/cuda/CUDAHooks.cpp)."""

from minitorch import _C

__all__ = ["Event", "ExternalStream", "Stream"]


def _device_index(device, optional=True):
    if device is None:
        return _C._cuda_current_device()
    if isinstance(device, int):
        return device
    d = _C.device(device) if isinstance(device, str) else device
    if d.type != "cuda":
        raise ValueError(f"Expected a cuda device, but got: {d}")
    return _C._cuda_current_device() if d.index is None else d.index


def _current_stream():
    idx = _C._cuda_current_device()
    return Stream(device=idx, stream_ptr=_C._cuda_current_stream(idx))


class Stream:
    """A CUDA stream: kernels enqueued on one stream run in order; different streams may overlap.

    Streams come from a per-device pool (as in PyTorch), so creating many is cheap."""

    def __new__(cls, device=None, priority=0, stream_ptr=None, **kwargs):
        self = super().__new__(cls)
        idx = _device_index(device)
        self.device_index = idx
        if stream_ptr is None:
            self.cuda_stream = _C._cuda_stream_from_pool(idx, priority < 0)
        else:
            self.cuda_stream = int(stream_ptr)
        return self

    def __init__(self, device=None, priority=0, **kwargs):
        pass

    @property
    def device(self):
        """The CUDA device this stream belongs to."""
        return _C.device("cuda", self.device_index)

    def query(self):
        """True when all work enqueued on the stream has finished."""
        return _C._cuda_stream_query(self.cuda_stream)

    def synchronize(self):
        """Waits until all work queued on this stream has finished."""
        _C._cuda_stream_synchronize(self.cuda_stream)

    def wait_event(self, event):
        """Makes later work on this stream wait for `event` (no host wait)."""
        event.wait(self)

    def wait_stream(self, stream):
        """Makes later work on this stream wait for all work queued so far on `stream`."""
        self.wait_event(stream.record_event())

    def record_event(self, event=None):
        """Records an event (a new one by default) at this point of the stream and returns it."""
        if event is None:
            event = Event()
        event.record(self)
        return event

    def __eq__(self, other):
        return (
            isinstance(other, Stream)
            and self.cuda_stream == other.cuda_stream
            and self.device_index == other.device_index
        )

    def __hash__(self):
        return hash((self.cuda_stream, self.device_index))

    def __repr__(self):
        return f"<torch.cuda.Stream device={self.device} cuda_stream={self.cuda_stream:#x}>"


class ExternalStream(Stream):
    """A stream created elsewhere (another library), wrapped by its cudaStream_t value."""

    def __new__(cls, stream_ptr, device=None, **kwargs):
        return super().__new__(cls, device=device, stream_ptr=stream_ptr)


class Event:
    """A CUDA event: a marker in a stream that can be waited on and, with enable_timing, timed."""

    def __init__(self, enable_timing=False, blocking=False, interprocess=False):
        self.enable_timing = enable_timing
        self.blocking = blocking
        self._handle = None

    def _ensure(self):
        if self._handle is None:
            self._handle = _C._cuda_event_create(self.enable_timing, self.blocking)
        return self._handle

    @property
    def cuda_event(self):
        """The raw cudaEvent_t handle as an int (0 before the event is first recorded)."""
        return self._handle or 0

    def record(self, stream=None):
        """Marks the current point of `stream` (default: the current stream)."""
        if stream is None:
            stream = _current_stream()
        _C._cuda_event_record(self._ensure(), stream.cuda_stream)

    def wait(self, stream=None):
        """Makes later work on `stream` wait until the event has happened (the host does not wait)."""
        if stream is None:
            stream = _current_stream()
        if self._handle is not None:
            _C._cuda_stream_wait_event(stream.cuda_stream, self._handle)

    def query(self):
        """True when the work before the event has finished (or the event was never recorded)."""
        return True if self._handle is None else _C._cuda_event_query(self._handle)

    def synchronize(self):
        """Waits until the work before the event has finished."""
        if self._handle is not None:
            _C._cuda_event_synchronize(self._handle)

    def elapsed_time(self, end_event):
        """Milliseconds between this event and `end_event` (both recorded, with enable_timing=True)."""
        if not (self.enable_timing and end_event.enable_timing):
            raise RuntimeError("Both events must be created with argument 'enable_timing=True'.")
        if self._handle is None or end_event._handle is None:
            raise RuntimeError("Both events must be recorded before calculating elapsed time.")
        return _C._cuda_event_elapsed_time(self._handle, end_event._handle)

    def __del__(self):
        h = getattr(self, "_handle", None)
        if h is not None:
            _C._cuda_event_destroy(h)  # never raises (a no-op in a forked child)

    def __repr__(self):
        return (
            f"<torch.cuda.Event {self.cuda_event:#x}>" if self._handle else "<torch.cuda.Event uninitialized>"
        )
