"""torch.autograd.profiler: the legacy profiler API (profile, record_function, emit_nvtx) over the recorder of
torch.profiler."""

import sys

from minitorch.autograd.profiler_util import EventList, FunctionEvent, FunctionEventAvg
from minitorch.profiler._recorder import _Collector, record_function

__all__ = [
    "EventList",
    "FunctionEvent",
    "FunctionEventAvg",
    "emit_itt",
    "emit_nvtx",
    "profile",
    "record_function",
]


class profile:
    """The legacy profiler: ``with torch.autograd.profiler.profile(record_shapes=True) as prof:`` records the ops
    run inside; afterwards ``prof.key_averages().table()``, ``prof.function_events``,
    ``prof.export_chrome_trace(path)``. use_device="cuda" also measures device time (CUDA events around
    each range)."""

    def __init__(
        self,
        enabled=True,
        *,
        use_device=None,
        record_shapes=False,
        with_flops=False,
        profile_memory=False,
        with_stack=False,
        with_modules=False,
        use_kineto=False,
        use_cpu=True,
        experimental_config=None,
        acc_events=False,
        custom_trace_id_callback=None,
        post_processing_timeout_s=None,
        activity_filters=None,
    ):
        self.enabled = enabled
        if not enabled:
            return
        if use_device is not None and use_device != "cuda":
            raise AssertionError(f"{use_device} is not a valid device")
        self.use_device = use_device
        self.record_shapes = record_shapes
        self.with_flops = with_flops
        self.profile_memory = profile_memory
        self.with_stack = with_stack
        self.with_modules = with_modules
        self.use_cpu = use_cpu
        self.entered = False
        self._collector = None
        self._function_events = None

    def __enter__(self):
        if not self.enabled:
            return self
        if self.entered:
            raise RuntimeError("Profiler context manager is not reentrant")
        self.entered = True
        cuda = getattr(sys.modules.get("minitorch"), "cuda", None)
        use_cuda = self.use_device == "cuda" and cuda is not None and cuda.is_available()
        self._collector = _Collector(self.record_shapes, self.profile_memory, self.with_stack, use_cuda)
        self._collector.start()
        return self

    def __exit__(self, exc_type, exc_val, exc_tb):
        if not self.enabled:
            return
        self._collector.stop()
        self._function_events = self._collector.event_list()
        self._function_events._use_device = self.use_device
        self._collector = None
        return False

    def __repr__(self):
        if self._function_events is None:
            return "<unfinished torch.autograd.profile>"
        return repr(self._function_events)

    def __str__(self):
        if self._function_events is None:
            return "<unfinished torch.autograd.profile>"
        return str(self._function_events)

    def _check_finish(self):
        if self._function_events is None:
            raise RuntimeError("Profiler didn't finish running")

    @property
    def function_events(self):
        """The recorded events (FunctionEvent) as an EventList."""
        self._check_finish()
        return self._function_events

    def table(self, sort_by=None, row_limit=100, max_src_column_width=75, max_name_column_width=55,
              max_shapes_column_width=80, header=None, top_level_events_only=False, time_unit=None):  # fmt: skip
        """The events' table (EventList.table)."""
        self._check_finish()
        return self._function_events.table(
            sort_by=sort_by,
            row_limit=row_limit,
            max_src_column_width=max_src_column_width,
            max_name_column_width=max_name_column_width,
            max_shapes_column_width=max_shapes_column_width,
            header=header,
            top_level_events_only=top_level_events_only,
            time_unit=time_unit,
        )

    def export_chrome_trace(self, path):
        """Writes the events as Chrome trace JSON."""
        self._check_finish()
        return self._function_events.export_chrome_trace(path)

    def export_stacks(self, path, metric="self_cpu_time_total"):
        """Writes the recorded stacks with their times (flame-graph input)."""
        self._check_finish()
        if not self.with_stack:
            raise AssertionError("export_stacks() requires with_stack=True")
        return self._function_events.export_stacks(path, metric)

    def key_averages(self, group_by_input_shape=False, group_by_stack_n=0, group_by_overload_name=False):
        """The events averaged per name (EventList.key_averages)."""
        self._check_finish()
        return self._function_events.key_averages(
            group_by_input_shape, group_by_stack_n, group_by_overload_name
        )

    def total_average(self):
        """One FunctionEventAvg summing every event."""
        self._check_finish()
        return self._function_events.total_average()

    @property
    def self_cpu_time_total(self):
        """The total CPU time in microseconds, each event counted once (its self time)."""
        self._check_finish()
        return self._function_events.self_cpu_time_total


class emit_nvtx:
    """A no-op context manager here: PyTorch's emit_nvtx makes each op push an NVTX range for nvprof/Nsight,
    which needs its C++ dispatcher hooks; minitorch emits no NVTX ranges (use torch.profiler instead)."""

    def __init__(self, enabled=True, record_shapes=False):
        self.enabled = enabled
        self.record_shapes = record_shapes
        self.entered = False

    def __enter__(self):
        if self.entered:
            raise RuntimeError("NVTX annotation context manager is not reentrant")
        self.entered = True
        return self

    def __exit__(self, exc_type, exc_val, exc_tb):
        self.entered = False
        return False


class emit_itt(emit_nvtx):
    """A no-op context manager, as emit_nvtx (Intel ITT ranges are not emitted)."""

    def __enter__(self):
        if self.entered:
            raise RuntimeError("ITT annotation context manager is not reentrant")
        self.entered = True
        return self
