"""torch.autograd.profiler_util: the recorded events (FunctionEvent), their per-name averages (FunctionEventAvg)
and EventList, which prints PyTorch's profiler table and writes the Chrome trace."""

import enum
import json
import os
import time
from collections import defaultdict

__all__ = ["DeviceType", "EventList", "FunctionEvent", "FunctionEventAvg", "Interval"]


class DeviceType(enum.IntEnum):
    """Where an event ran (torch.autograd.DeviceType's names)."""

    CPU = 0
    CUDA = 1


def _format_time(time_us):
    if time_us >= 1e6:
        return f"{time_us / 1e6:.3f}s"
    if time_us >= 1e3:
        return f"{time_us / 1e3:.3f}ms"
    return f"{time_us:.3f}us"


def _format_time_share(time_us, total_time_us):
    if total_time_us == 0:
        return "NaN"
    return f"{time_us * 100.0 / total_time_us:.2f}%"


def _format_memory(nbytes):
    for unit, size in (("GB", 1 << 30), ("MB", 1 << 20), ("KB", 1 << 10)):
        if abs(nbytes) >= size:
            return f"{nbytes / size:.2f} {unit}"
    return f"{nbytes} B"


class Interval:
    """A time range in microseconds since the profiler started."""

    def __init__(self, start, end):
        self.start = start
        self.end = end

    def elapsed_us(self):
        """The length of the range in microseconds."""
        return self.end - self.start


class _TimeStrings:
    """The *_str spellings of the times, shared by events and averages."""

    @property
    def cpu_time_str(self):
        return _format_time(self.cpu_time)

    @property
    def cpu_time_total_str(self):
        return _format_time(self.cpu_time_total)

    @property
    def self_cpu_time_total_str(self):
        return _format_time(self.self_cpu_time_total)

    @property
    def device_time_str(self):
        return _format_time(self.device_time)

    @property
    def device_time_total_str(self):
        return _format_time(self.device_time_total)

    @property
    def self_device_time_total_str(self):
        return _format_time(self.self_device_time_total)

    # the names PyTorch kept from before "device" replaced "cuda"
    @property
    def cuda_time(self):
        return self.device_time

    @property
    def cuda_time_total(self):
        return self.device_time_total

    @property
    def self_cuda_time_total(self):
        return self.self_device_time_total


class FunctionEvent(_TimeStrings):
    """One recorded range: an op call or a record_function block. Times are in microseconds since the profiler
    started; cpu_parent/cpu_children link the ranges that nest on one thread."""

    # the same for every event here, so class attributes: one recording makes an event per op call
    overload_name = ""
    node_id = -1
    device_type = DeviceType.CPU
    # device times are measured around the CPU range, as the legacy profiler's use_cuda did
    is_legacy = True
    is_async = False
    is_remote = False
    is_python_function = False
    sequence_nr = -1
    scope = 0
    flops = 0
    count = 1
    kernels = ()

    def __init__(
        self,
        id,
        name,
        thread,
        start_us,
        end_us,
        input_shapes=None,
        input_dtypes=None,
        stack=None,
        is_user_annotation=False,
        use_device=None,
        device_time_total=0.0,
        device_start_us=None,
        cpu_memory_usage=0,
        device_memory_usage=0,
    ):
        self.id = id
        # the steps of a schedule are "ProfilerStep#<n>" in the trace and "ProfilerStep*" here, as in PyTorch
        self.trace_name = name
        self.name = "ProfilerStep*" if name.startswith("ProfilerStep#") else name
        self.thread = thread
        self.time_range = Interval(start_us, end_us)
        self.input_shapes = input_shapes if input_shapes is not None else []
        self.input_dtypes = input_dtypes if input_dtypes is not None else []
        self.stack = stack if stack is not None else []
        self.is_user_annotation = is_user_annotation
        self.use_device = use_device
        self.device_time_total = device_time_total
        self.device_start_us = device_start_us  # on the device's own timeline, for the trace
        self.cpu_memory_usage = cpu_memory_usage
        self.device_memory_usage = device_memory_usage
        self.cpu_parent = None
        self.cpu_children = []

    def set_cpu_parent(self, parent):
        """Links the range this one nests in."""
        self.cpu_parent = parent

    def append_cpu_child(self, child):
        """Links a range nested directly in this one."""
        self.cpu_children.append(child)

    @property
    def key(self):
        """The name the averages group by."""
        return self.name

    @property
    def cpu_time_total(self):
        """Microseconds from the start to the end of the range, nested ranges included."""
        return self.time_range.elapsed_us()

    @property
    def self_cpu_time_total(self):
        """Microseconds of the range outside the ranges nested in it."""
        return self.cpu_time_total - sum(c.cpu_time_total for c in self.cpu_children)

    @property
    def cpu_time(self):
        """The range's CPU time (one call: its total)."""
        return self.cpu_time_total

    @property
    def device_time(self):
        """The range's device time in microseconds (one call: its total)."""
        return self.device_time_total

    @property
    def self_device_time_total(self):
        """Device microseconds of the range outside the ranges nested in it."""
        return max(0.0, self.device_time_total - sum(c.device_time_total for c in self.cpu_children))

    @property
    def self_cpu_memory_usage(self):
        """Bytes of CPU tensors the range made outside the ranges nested in it."""
        return self.cpu_memory_usage - sum(c.cpu_memory_usage for c in self.cpu_children)

    @property
    def self_device_memory_usage(self):
        """Bytes of device tensors the range made outside the ranges nested in it."""
        return self.device_memory_usage - sum(c.device_memory_usage for c in self.cpu_children)

    self_cuda_memory_usage = self_device_memory_usage

    def __repr__(self):
        return (
            f"<FunctionEvent id={self.id} name={self.name} device_type={self.device_type} "
            f"cpu_time={self.cpu_time_str} start_us={self.time_range.start:g} end_us={self.time_range.end:g} "
            f"cpu_children={[c.id for c in self.cpu_children]} device_time={self.device_time_str} "
            f"thread={self.thread} input_shapes={self.input_shapes} cpu_memory_usage={self.cpu_memory_usage} "
            f"device_memory_usage={self.device_memory_usage}>"
        )


class FunctionEventAvg(_TimeStrings):
    """The sum of the events that share a key (name, and input shapes or stack when grouped by them)."""

    def __init__(self):
        self.key = None
        self.count = 0
        self.node_id = 0
        self.is_async = False
        self.is_remote = False
        self.is_legacy = False
        self.is_user_annotation = False
        self.use_device = None
        self.device_type = DeviceType.CPU
        self.overload_name = ""
        self.cpu_time_total = 0.0
        self.device_time_total = 0.0
        self.self_cpu_time_total = 0.0
        self.self_device_time_total = 0.0
        self.input_shapes = None
        self.stack = None
        self.scope = None
        self.cpu_memory_usage = 0
        self.device_memory_usage = 0
        self.self_cpu_memory_usage = 0
        self.self_device_memory_usage = 0
        self.cpu_children = None
        self.cpu_parent = None
        self.flops = 0

    def add(self, other):
        """Adds an event (or average) of the same key to the sums."""
        if self.key is None:
            self.key = other.key
            self.node_id = other.node_id
            self.is_async = other.is_async
            self.is_remote = other.is_remote
            self.cpu_parent = other.cpu_parent
            self.cpu_children = other.cpu_children
            self.overload_name = other.overload_name
            self.input_shapes = other.input_shapes
            self.stack = other.stack
            self.device_type = other.device_type
            self.is_legacy = other.is_legacy
            self.use_device = other.use_device
            self.is_user_annotation = other.is_user_annotation
        if not isinstance(other, (FunctionEvent, FunctionEventAvg)):
            raise AssertionError("Expected other to be a FunctionEvent or FunctionEventAvg")  # noqa: TRY004
        if other.key != self.key:
            raise AssertionError(f"Expected keys to match, but got {other.key} vs {self.key}")
        self.cpu_time_total += other.cpu_time_total
        self.device_time_total += other.device_time_total
        self.self_cpu_time_total += other.self_cpu_time_total
        self.self_device_time_total += other.self_device_time_total
        self.cpu_memory_usage += other.cpu_memory_usage
        self.device_memory_usage += other.device_memory_usage
        self.self_cpu_memory_usage += other.self_cpu_memory_usage
        self.self_device_memory_usage += other.self_device_memory_usage
        self.count += other.count
        self.flops += other.flops
        return self

    def __iadd__(self, other):
        return self.add(other)

    @property
    def cpu_time(self):
        """The average CPU time per call in microseconds."""
        return 0.0 if self.count == 0 else self.cpu_time_total / self.count

    @property
    def device_time(self):
        """The average device time per call in microseconds."""
        return 0.0 if self.count == 0 else self.device_time_total / self.count

    def __repr__(self):
        return (
            f"<FunctionEventAvg key={self.key} self_cpu_time={self.self_cpu_time_total_str} "
            f"cpu_time={self.cpu_time_str}  self_cuda_time={self.self_device_time_total_str} "
            f"cuda_time={self.device_time_str} input_shapes={self.input_shapes} "
            f"cpu_memory_usage={self.cpu_memory_usage} cuda_memory_usage={self.device_memory_usage}>"
        )


class EventList(list):
    """A list of FunctionEvent (or of FunctionEventAvg after key_averages) with PyTorch's summaries."""

    def __init__(self, *args, use_device=None, profile_memory=False, with_flops=False, **kwargs):
        super().__init__(*args, **kwargs)
        self._use_device = use_device
        self._profile_memory = profile_memory
        self._with_flops = with_flops
        self._tree_built = True
        self._trace_meta = {}

    @property
    def self_cpu_time_total(self):
        """The sum of the events' self CPU times: the recorded time, each microsecond counted once."""
        return sum(e.self_cpu_time_total for e in self)

    def table(
        self,
        sort_by=None,
        row_limit=100,
        max_src_column_width=75,
        max_name_column_width=55,
        max_shapes_column_width=80,
        header=None,
        top_level_events_only=False,
        time_unit=None,
    ):
        """The events as PyTorch's text table, sorted by the attribute sort_by (descending), row_limit rows."""
        return _build_table(
            self,
            sort_by=sort_by,
            row_limit=row_limit,
            max_src_column_width=max_src_column_width,
            max_name_column_width=max_name_column_width,
            max_shapes_column_width=max_shapes_column_width,
            header=header,
            profile_memory=self._profile_memory,
            top_level_events_only=top_level_events_only,
            time_unit=time_unit,
        )

    def __str__(self):
        return self.table()

    def key_averages(self, group_by_input_shapes=False, group_by_stack_n=0, group_by_overload_name=False):
        """An EventList of FunctionEventAvg, one per name (and input shapes / top stack frames if asked)."""
        stats = defaultdict(FunctionEventAvg)
        for evt in self:
            key = [str(evt.key), str(evt.node_id), str(evt.device_type), str(evt.is_legacy)]
            key.append(str(evt.is_user_annotation))
            if group_by_overload_name:
                key.append(evt.overload_name)
            if group_by_input_shapes:
                key.append(str(evt.input_shapes))
            if group_by_stack_n > 0:
                key += evt.stack[:group_by_stack_n]
            stats[tuple(key)].add(evt)
        out = EventList(
            stats.values(),
            use_device=self._use_device,
            profile_memory=self._profile_memory,
            with_flops=self._with_flops,
        )
        for avg in out:
            avg.stack = (avg.stack or [])[:group_by_stack_n]
            if not group_by_input_shapes:
                avg.input_shapes = ""
            if not group_by_overload_name:
                avg.overload_name = ""
        return out

    def total_average(self):
        """One FunctionEventAvg with key "Total" summing every event."""
        total = FunctionEventAvg()
        for evt in self:
            total.add(evt)
            total.key = None
        total.key = "Total"
        return total

    def export_stacks(self, path, metric="self_cpu_time_total"):
        """Writes "frame;frame;... value" lines (flame-graph input) for events recorded with_stack."""
        with open(path, "w") as f:
            for evt in self:
                if evt.stack:
                    f.write(";".join(reversed(evt.stack)) + " " + str(int(getattr(evt, metric))) + "\n")

    def export_chrome_trace(self, path):
        """Writes the events as a Chrome trace (chrome://tracing, Perfetto): one complete ("X") event per
        range, in microseconds, on the recording thread; device ranges on their own track."""
        with open(path, "w") as f:
            json.dump(_chrome_trace(self, path), f)


def _chrome_trace(events, path):
    meta = getattr(events, "_trace_meta", {}) or {}
    pid = os.getpid()
    base_ns = meta.get("base_time_ns", time.time_ns())
    out = [
        {"ph": "M", "name": "process_name", "ts": 0, "pid": pid, "tid": 0, "args": {"name": "python"}},
        {"ph": "M", "name": "process_labels", "ts": 0, "pid": pid, "tid": 0, "args": {"labels": "CPU"}},
    ]
    for tid in sorted({e.thread for e in events}):
        out.append(
            {
                "ph": "M",
                "name": "thread_name",
                "ts": 0,
                "pid": pid,
                "tid": tid,
                "args": {"name": f"thread {tid}"},
            }
        )
    device_rows = False
    for i, e in enumerate(events):
        args = {"External id": e.id, "Ev Idx": i}
        if e.input_shapes:
            args["Input Dims"] = e.input_shapes
            args["Input type"] = e.input_dtypes
        if e.cpu_memory_usage or e.device_memory_usage:
            args["CPU Mem"] = e.cpu_memory_usage
            args["Device Mem"] = e.device_memory_usage
        if e.stack:
            args["Call stack"] = ";".join(e.stack)
        out.append(
            {
                "ph": "X",
                "cat": "user_annotation" if e.is_user_annotation else "cpu_op",
                "name": e.trace_name,
                "pid": pid,
                "tid": e.thread,
                "ts": round(e.time_range.start, 3),
                "dur": round(e.time_range.elapsed_us(), 3),
                "args": args,
            }
        )
        if e.device_start_us is not None:
            device_rows = True
            out.append(
                {
                    "ph": "X",
                    "cat": "gpu_user_annotation" if e.is_user_annotation else "gpu_op",
                    "name": e.trace_name,
                    "pid": "cuda",
                    "tid": "stream",
                    "ts": round(e.device_start_us, 3),
                    "dur": round(e.device_time_total, 3),
                    "args": {"External id": e.id},
                }
            )
    if device_rows:
        out.append(
            {"ph": "M", "name": "process_name", "ts": 0, "pid": "cuda", "tid": 0, "args": {"name": "cuda"}}
        )
    return {
        "schemaVersion": 1,
        "deviceProperties": meta.get("device_properties", []),
        "record_shapes": int(bool(meta.get("record_shapes", False))),
        "displayTimeUnit": "ms",
        "baseTimeNanoseconds": base_ns,
        "traceEvents": out,
        "traceName": str(path),
    }


def _build_table(
    events,
    sort_by=None,
    header=None,
    row_limit=100,
    max_src_column_width=75,
    max_name_column_width=55,
    max_shapes_column_width=80,
    profile_memory=False,
    top_level_events_only=False,
    time_unit=None,
):
    """PyTorch's profiler table: the columns it prints, their widths and the totals line."""
    if len(events) == 0:
        return ""
    has_device_time = any(e.self_device_time_total > 0 for e in events)
    has_device_mem = any(e.self_device_memory_usage > 0 for e in events)
    use_device = getattr(events, "_use_device", None) or events[0].use_device
    has_input_shapes = any(e.input_shapes is not None and len(e.input_shapes) > 0 for e in events)
    if sort_by is not None:
        # an unknown key fails here with the AttributeError of the attribute lookup, as in PyTorch
        attr = sort_by.replace("cuda", "device").replace("xpu", "device").replace("privateuse1", "device")
        events = sorted(events, key=lambda e: getattr(e, attr), reverse=True)

    name_width = max(len(e.key) for e in events) + 4
    if max_name_column_width is not None:
        name_width = min(name_width, max_name_column_width)
    shapes_width = max(len(str(e.input_shapes)) for e in events) + 4
    if max_shapes_column_width is not None:
        shapes_width = min(shapes_width, max_shapes_column_width)
    stacks = [e.stack for e in events if e.stack]
    src_width = None
    if stacks:
        src_width = max(len(entry) for s in stacks for entry in s) + 4
        if max_src_column_width is not None:
            src_width = min(src_width, max_src_column_width)

    device_name = use_device.upper() if use_device is not None else "None"
    headers = ["Name", "Self CPU %", "Self CPU", "CPU total %", "CPU total", "CPU time avg"]
    if has_device_time:
        headers += [
            f"Self {device_name}",
            f"Self {device_name} %",
            f"{device_name} total",
            f"{device_name} time avg",
        ]
    if profile_memory:
        headers += ["CPU Mem", "Self CPU Mem"]
        if use_device and has_device_mem:
            headers += [f"{device_name} Mem", f"Self {device_name} Mem"]
    headers.append("# of Calls")
    widths = [name_width] + [12] * (len(headers) - 1)
    aligns = [">"] * len(widths)
    if has_input_shapes:
        headers.append("Input Shapes")
        widths.append(shapes_width)
        aligns.append(">")
    if stacks:
        headers.append("Source Location")
        widths.append(src_width)
        aligns.append("<")
    row_format = "".join("{: " + a + str(w) + "}  " for a, w in zip(aligns, widths))
    header_sep = "".join("-" * w + "  " for w in widths)
    line_length = sum(w + 2 for w in widths) - 2

    def fmt_time(t_us):
        if time_unit == "s":
            return f"{t_us / 1e6:.3f}s"
        if time_unit == "ms":
            return f"{t_us / 1e3:.3f}ms"
        if time_unit == "us":
            return f"{t_us:.3f}us"
        return _format_time(t_us)

    sum_self_cpu = sum(e.self_cpu_time_total for e in events)
    sum_self_device = sum(e.self_device_time_total for e in events)
    lines = []
    if header is not None:
        lines += ["=" * line_length, header]
    if top_level_events_only:
        lines += ["=" * line_length, "This report only display top-level ops statistics"]
    lines += [header_sep, row_format.format(*headers), header_sep]

    def trim_path(path):
        if len(path) > src_width:
            path = path[len(path) - src_width :]
            if len(path) > 3:
                path = "..." + path[3:]
        return path

    shown = 0
    for e in events:
        if shown == row_limit:
            break
        if top_level_events_only and e.cpu_parent is not None:
            continue
        shown += 1
        name = e.key
        if max_name_column_width is not None and len(name) >= max_name_column_width - 3:
            name = name[: max_name_column_width - 3] + "..."
        row = [
            name,
            _format_time_share(e.self_cpu_time_total, sum_self_cpu),
            fmt_time(e.self_cpu_time_total),
            _format_time_share(e.cpu_time_total, sum_self_cpu) if not e.is_async else 0,
            fmt_time(e.cpu_time_total),
            fmt_time(e.cpu_time),
        ]
        if has_device_time:
            row += [
                fmt_time(e.self_device_time_total),
                _format_time_share(e.self_device_time_total, sum_self_device),
                fmt_time(e.device_time_total),
                fmt_time(e.device_time),
            ]
        if profile_memory:
            row += [_format_memory(e.cpu_memory_usage), _format_memory(e.self_cpu_memory_usage)]
            if use_device and has_device_mem:
                row += [_format_memory(e.device_memory_usage), _format_memory(e.self_device_memory_usage)]
        row.append(e.count)
        if has_input_shapes:
            row.append(str(e.input_shapes)[:shapes_width])
        if stacks:
            row.append(trim_path(e.stack[0]) if e.stack else "")
        lines.append(row_format.format(*row))
        if stacks:
            blank = [""] * (len(headers) - 1)
            for entry in (e.stack or [])[1:]:
                lines.append(row_format.format(*blank, trim_path(entry)))
            lines.append(row_format.format(*blank, ""))
    lines.append(header_sep)
    lines.append(f"Self CPU time total: {fmt_time(sum_self_cpu)}")
    if has_device_time:
        lines.append(f"Self {device_name} time total: {fmt_time(sum_self_device)}")
    return "".join(line + "\n" for line in lines)
