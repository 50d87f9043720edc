"""torch.profiler.profile and its schedule: the context manager that records ops over steps, hands each finished
window to on_trace_ready, and summarizes it (key_averages().table(), export_chrome_trace)."""

import enum
import gzip
import json
import os
import socket
import sys
import time
import warnings

from minitorch.autograd.profiler_util import EventList, _chrome_trace
from minitorch.profiler._recorder import _Collector, record_function

__all__ = [
    "ProfilerAction",
    "ProfilerActivity",
    "_KinetoProfile",
    "profile",
    "schedule",
    "supported_activities",
    "tensorboard_trace_handler",
]


class ProfilerActivity(enum.Enum):
    """What a profile records: CPU ops, and CUDA device time (torch.profiler.ProfilerActivity's values)."""

    CPU = 0
    XPU = 1
    CUDA = 2
    HPU = 3
    MTIA = 4
    PrivateUse1 = 5

    def __repr__(self):
        return f"<ProfilerActivity.{self.name}: {self.value}>"

    def __int__(self):
        return self.value


class ProfilerAction(enum.Enum):
    """What the profiler does at a step, as a schedule returns it."""

    NONE = 0
    WARMUP = 1
    RECORD = 2
    RECORD_AND_SAVE = 3


def _cuda_available():
    cuda = getattr(sys.modules.get("minitorch"), "cuda", None)
    return cuda is not None and cuda.is_available()


def supported_activities():
    """The activities this build can record: CPU, and CUDA where a GPU is present."""
    out = {ProfilerActivity.CPU}
    if _cuda_available():
        out.add(ProfilerActivity.CUDA)
    return out


def schedule(*, wait, warmup, active, repeat=0, skip_first=0, skip_first_wait=0):
    """The step -> ProfilerAction function: skip skip_first steps, then cycles of wait steps (NONE), warmup steps
    (WARMUP) and active steps (RECORD, the last RECORD_AND_SAVE), repeat cycles (0: until the end). With
    skip_first_wait the first cycle starts at its warmup."""
    if wait < 0 or warmup < 0 or active <= 0 or repeat < 0 or skip_first < 0:
        raise AssertionError(
            f"Invalid profiler schedule arguments. Got wait={wait} (need >= 0), warmup={warmup} (need >= 0), "
            f"active={active} (need > 0), repeat={repeat} (need >= 0), skip_first={skip_first} (need >= 0)."
        )
    if warmup == 0:
        warnings.warn("Profiler won't be using warmup, this can skew profiler results", stacklevel=2)
    cycle = wait + warmup + active

    def schedule_fn(step):
        if step < 0:
            raise AssertionError(f"Step must be non-negative. Got {step}.")
        if step < skip_first:
            return ProfilerAction.NONE
        step -= skip_first
        if skip_first_wait != 0:
            step += wait
        if repeat > 0 and step / cycle >= repeat:
            return ProfilerAction.NONE
        pos = step % cycle
        if pos < wait:
            return ProfilerAction.NONE
        if pos < wait + warmup:
            return ProfilerAction.WARMUP
        return ProfilerAction.RECORD if pos < cycle - 1 else ProfilerAction.RECORD_AND_SAVE

    return schedule_fn


def _default_schedule_fn(_step):
    return ProfilerAction.RECORD


def tensorboard_trace_handler(dir_name, worker_name=None, use_gzip=False):
    """An on_trace_ready handler that writes each finished window to
    ``dir_name/<worker_name>.<milliseconds>.pt.trace.json`` (``.gz`` with use_gzip), the files TensorBoard's
    profiler plugin reads; worker_name defaults to ``<hostname>_<pid>``."""

    def handler_fn(prof):
        os.makedirs(dir_name, exist_ok=True)
        name = worker_name or f"{socket.gethostname()}_{os.getpid()}"
        file_name = f"{name}.{time.time_ns() // 1_000_000}.pt.trace.json"
        if use_gzip:
            file_name += ".gz"
        prof.export_chrome_trace(os.path.join(dir_name, file_name))

    return handler_fn


class _KinetoProfile:
    """Start/stop recording and the summaries of the last recording (torch.profiler._KinetoProfile)."""

    def __init__(
        self,
        *,
        activities=None,
        record_shapes=False,
        profile_memory=False,
        with_stack=False,
        with_flops=False,
        with_modules=False,
        experimental_config=None,
        execution_trace_observer=None,
        acc_events=False,
        custom_trace_id_callback=None,
    ):
        self.activities = set(activities) if activities is not None else supported_activities()
        self.record_shapes = record_shapes
        self.profile_memory = profile_memory
        self.with_stack = with_stack
        self.with_flops = with_flops
        self.with_modules = with_modules
        self.acc_events = acc_events
        self.custom_trace_id_callback = custom_trace_id_callback
        self.use_device = "cuda" if ProfilerActivity.CUDA in self.activities else None
        self._collector = None
        self._events = None
        self._preset_events = EventList()

    def _new_collector(self):
        return _Collector(
            record_shapes=self.record_shapes,
            profile_memory=self.profile_memory,
            with_stack=self.with_stack,
            use_cuda=ProfilerActivity.CUDA in self.activities and _cuda_available(),
        )

    def prepare_trace(self):
        self._collector = self._new_collector()

    def start_trace(self):
        if self._collector is None:
            self.prepare_trace()
        self._events = None
        self._collector.start()

    def stop_trace(self):
        if self._collector is not None:
            self._collector.stop()
            self._events = self._collector.event_list()
            self._collector = None

    def start(self):
        self.prepare_trace()
        self.start_trace()

    def stop(self):
        self.stop_trace()

    def events(self):
        """The recorded events (FunctionEvent), in the order they started, as an EventList."""
        if self._events is None:
            raise AssertionError("Expected profiler to be stopped before accessing events")
        return self._events

    def key_averages(self, group_by_input_shape=False, group_by_stack_n=0, group_by_overload_name=False):
        """The events averaged per name (and per input shapes / top stack frames when asked), an EventList of
        FunctionEventAvg whose ``table(sort_by=..., row_limit=...)`` prints PyTorch's summary."""
        return self.events().key_averages(group_by_input_shape, group_by_stack_n, group_by_overload_name)

    def export_chrome_trace(self, path):
        """Writes the recording as Chrome trace JSON (gzip-compressed when path ends with .gz)."""
        trace = _chrome_trace(self.events(), path)
        if str(path).endswith(".gz"):
            with gzip.open(path, "wt") as f:
                json.dump(trace, f)
        else:
            with open(path, "w") as f:
                json.dump(trace, f)

    def export_stacks(self, path, metric="self_cpu_time_total"):
        """Writes the stacks (recorded with_stack) with their times for flame graphs."""
        if not self.with_stack:
            raise AssertionError("Expected with_stack to be set")
        self.events().export_stacks(path, metric)


# what a change of action between two steps does: prepare/start/stop the recording, hand it to on_trace_ready
_TRANSITIONS = {
    (ProfilerAction.NONE, ProfilerAction.WARMUP): ("prepare",),
    (ProfilerAction.NONE, ProfilerAction.RECORD): ("prepare", "start"),
    (ProfilerAction.NONE, ProfilerAction.RECORD_AND_SAVE): ("prepare", "start"),
    (ProfilerAction.WARMUP, ProfilerAction.NONE): ("warn_warmup", "start", "stop"),
    (ProfilerAction.WARMUP, ProfilerAction.RECORD): ("start",),
    (ProfilerAction.WARMUP, ProfilerAction.RECORD_AND_SAVE): ("start",),
    (ProfilerAction.RECORD, ProfilerAction.NONE): ("warn_record", "stop"),
    (ProfilerAction.RECORD, ProfilerAction.WARMUP): ("warn_record", "stop"),
    (ProfilerAction.RECORD_AND_SAVE, ProfilerAction.NONE): ("stop", "ready"),
    (ProfilerAction.RECORD_AND_SAVE, ProfilerAction.WARMUP): ("stop", "ready", "prepare"),
    (ProfilerAction.RECORD_AND_SAVE, ProfilerAction.RECORD): ("stop", "ready", "prepare", "start"),
    (ProfilerAction.RECORD_AND_SAVE, ProfilerAction.RECORD_AND_SAVE): ("stop", "ready", "prepare", "start"),
    # on exit (to None)
    (ProfilerAction.WARMUP, None): ("start", "stop"),
    (ProfilerAction.RECORD, None): ("stop", "ready"),
    (ProfilerAction.RECORD_AND_SAVE, None): ("stop", "ready"),
}


class profile(_KinetoProfile):
    """torch.profiler.profile: ``with profile(activities=[ProfilerActivity.CPU], record_shapes=True) as prof:``
    records the ops run inside; ``prof.step()`` marks a step of a ``schedule``, which decides which steps are
    recorded; each finished window goes to ``on_trace_ready(prof)``. Summaries: ``key_averages().table()``,
    ``events()``, ``export_chrome_trace(path)``."""

    def __init__(
        self,
        *,
        activities=None,
        schedule=None,
        on_trace_ready=None,
        record_shapes=False,
        profile_memory=False,
        with_stack=False,
        with_flops=False,
        with_modules=False,
        experimental_config=None,
        execution_trace_observer=None,
        acc_events=False,
        use_cuda=None,
        custom_trace_id_callback=None,
        post_processing_timeout_s=None,
    ):
        if activities is not None:
            activities = set(activities)
        else:
            activities = supported_activities()
        if use_cuda is not None:
            warnings.warn(
                "`use_cuda` is deprecated, use `activities` argument instead", FutureWarning, stacklevel=2
            )
            if use_cuda:
                activities.add(ProfilerActivity.CUDA)
            else:
                activities.discard(ProfilerActivity.CUDA)
        if len(activities) == 0:
            raise AssertionError("No valid profiler activities found")
        super().__init__(
            activities=activities,
            record_shapes=record_shapes,
            profile_memory=profile_memory,
            with_stack=with_stack,
            with_flops=with_flops,
            with_modules=with_modules,
            acc_events=acc_events,
            custom_trace_id_callback=custom_trace_id_callback,
        )
        if schedule is not None:
            self.schedule = schedule
            self.record_steps = True  # each step is a "ProfilerStep#<n>" range
        else:
            self.schedule = _default_schedule_fn
            self.record_steps = False
        self.on_trace_ready = on_trace_ready
        self.step_num = 0
        self.current_action = self.schedule(self.step_num)
        self.step_rec_fn = None

    def __enter__(self):
        self.start()
        return self

    def __exit__(self, exc_type, exc_val, exc_tb):
        self.stop()

    def start(self):
        """Starts the profile at step 0 (what __enter__ does)."""
        self._transit_action(ProfilerAction.NONE, self.current_action)
        if self.record_steps:
            self.step_rec_fn = record_function("ProfilerStep#" + str(self.step_num))
            self.step_rec_fn.__enter__()

    def stop(self):
        """Ends the profile: the open window stops and goes to on_trace_ready (what __exit__ does)."""
        if self.record_steps and self.step_rec_fn is not None:
            self.step_rec_fn.__exit__(None, None, None)
            self.step_rec_fn = None
        self._transit_action(self.current_action, None)

    def step(self):
        """Ends the current step: the schedule's action for the next one starts, stops or hands over recording."""
        if self.record_steps and self.step_rec_fn is not None:
            self.step_rec_fn.__exit__(None, None, None)
        prev_action = self.current_action
        self.step_num += 1
        self.current_action = self.schedule(self.step_num)
        self._transit_action(prev_action, self.current_action)
        if self.record_steps:
            self.step_rec_fn = record_function("ProfilerStep#" + str(self.step_num))
            self.step_rec_fn.__enter__()

    def _transit_action(self, prev_action, current_action):
        for what in _TRANSITIONS.get((prev_action, current_action), ()):
            if what == "prepare":
                self.prepare_trace()
            elif what == "start":
                self.start_trace()
            elif what == "stop":
                self.stop_trace()
            elif what == "ready":
                if self.on_trace_ready:
                    self.on_trace_ready(self)
            elif what == "warn_warmup":
                warnings.warn("Incorrect schedule: WARMUP followed by NONE", stacklevel=3)
            elif what == "warn_record":
                warnings.warn(f"Incorrect schedule: RECORD followed by {current_action}", stacklevel=3)
