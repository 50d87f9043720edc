"""What a timing is (TaskSpec, Measurement) and the number formatting Timer and Compare share."""

from __future__ import annotations

import collections
import contextlib
import dataclasses
import math
import textwrap

import numpy as np

from minitorch import _C

__all__ = [
    "Measurement",
    "TaskSpec",
    "ordered_unique",
    "select_unit",
    "set_torch_threads",
    "trim_sigfig",
    "unit_to_english",
]

_MAX_SIGNIFICANT_FIGURES = 4
_MIN_CONFIDENCE_INTERVAL = 25e-9  # seconds: below this, timer resolution dominates
# the interquartile range, as a fraction of the median, above which a measurement carries a warning
_IQR_WARN_THRESHOLD = 0.1
_IQR_GROSS_WARN_THRESHOLD = 0.25


@dataclasses.dataclass(init=True, repr=False, eq=True, frozen=True)
class TaskSpec:
    """What was timed: the statement, its setup and the labels Compare groups by (everything but globals)."""

    stmt: str
    setup: str
    global_setup: str = ""
    label: str | None = None
    sub_label: str | None = None
    description: str | None = None
    env: str | None = None
    num_threads: int = 1

    @property
    def title(self):
        """The label (or a one-line statement), with the sub_label after a colon."""
        suffix = f": {self.sub_label}" if self.sub_label else ""
        if self.label is not None:
            return self.label + suffix
        if "\n" not in self.stmt:
            return self.stmt + suffix
        sub = f" ({self.sub_label})" if self.sub_label else ""
        return f"stmt:{sub}\n{textwrap.indent(self.stmt, '  ')}"

    def setup_str(self):
        """'setup: ...' for a Measurement's repr, or '' when there is none."""
        if not self.setup or self.setup == "pass":
            return ""
        if "\n" in self.setup:
            return f"setup:\n{textwrap.indent(self.setup, '  ')}"
        return f"setup: {self.setup}"

    def summarize(self):
        """The lines that introduce a Measurement's repr."""
        parts = [p for p in (self.title, self.description or "", self.setup_str()) if p]
        return "\n".join(p + "\n" if "\n" in p else p for p in parts)


_TASKSPEC_FIELDS = tuple(f.name for f in dataclasses.fields(TaskSpec))


def _quantile(sorted_times, q):
    """Linear-interpolation quantile (numpy's and torch.quantile's default)."""
    return float(np.quantile(np.asarray(sorted_times, dtype=np.float64), q))


@dataclasses.dataclass(init=True, repr=False)
class Measurement:
    """The result of a Timer: `raw_times` are the seconds each of the runs of `number_per_run` statements took.
    Statistics (times, median, mean, iqr) are per statement; the TaskSpec's fields read through."""

    number_per_run: int
    raw_times: list
    task_spec: TaskSpec
    metadata: dict | None = None  # for the user's own payload

    def __post_init__(self):
        self._sorted_times = ()
        self._warnings = ()
        self._median = self._mean = self._p25 = self._p75 = -1.0

    def __getattr__(self, name):
        if name in _TASKSPEC_FIELDS:
            return getattr(self.task_spec, name)
        return super().__getattribute__(name)

    @property
    def times(self):
        """Seconds per statement, one entry per run."""
        return [t / self.number_per_run for t in self.raw_times]

    @property
    def median(self):
        """Median seconds per statement over the runs."""
        self._lazy_init()
        return self._median

    @property
    def mean(self):
        """Mean seconds per statement over the runs."""
        self._lazy_init()
        return self._mean

    @property
    def iqr(self):
        """Interquartile range (75th minus 25th percentile) of the per-statement times."""
        self._lazy_init()
        return self._p75 - self._p25

    @property
    def significant_figures(self):
        """A rough count of trustworthy digits in the median (1 to 4), from the spread of the middle half of
        the times; Compare trims to it."""
        self._lazy_init()
        n = len(self._sorted_times)
        middle = np.asarray(self._sorted_times[n // 4 : math.ceil(3 * n / 4)], dtype=np.float64)
        ci = max(1.645 * float(middle.std()) / math.sqrt(len(middle)), _MIN_CONFIDENCE_INTERVAL)
        figures = math.floor(math.log10(self._median / ci))
        return min(max(figures, 1), _MAX_SIGNIFICANT_FIGURES)

    @property
    def has_warnings(self):
        """True when the spread (iqr / median) is large enough to warn about."""
        self._lazy_init()
        return bool(self._warnings)

    def _lazy_init(self):
        if not self.raw_times or self._sorted_times:
            return
        self._sorted_times = tuple(sorted(self.times))
        self._median = _quantile(self._sorted_times, 0.5)
        self._mean = float(np.mean(self._sorted_times))
        self._p25 = _quantile(self._sorted_times, 0.25)
        self._p75 = _quantile(self._sorted_times, 0.75)
        if not self.meets_confidence(_IQR_GROSS_WARN_THRESHOLD):
            self._add_warning("This suggests significant environmental influence.")
        elif not self.meets_confidence(_IQR_WARN_THRESHOLD):
            self._add_warning("This could indicate system fluctuation.")

    def _add_warning(self, why):
        percent = self.iqr / self.median * 100
        self._warnings += (
            f"  WARNING: Interquartile range is {percent:.1f}% of the median measurement.\n           {why}",
        )

    def meets_confidence(self, threshold=_IQR_WARN_THRESHOLD):
        """True when iqr / median is below `threshold`."""
        return self.iqr / self.median < threshold

    @property
    def title(self):
        """The task's title: label or statement, with the sub_label."""
        return self.task_spec.title

    @property
    def env(self):
        """The env tag, or 'Unspecified env'."""
        return "Unspecified env" if self.task_spec.env is None else self.task_spec.env

    @property
    def as_row_name(self):
        """What Compare shows at the start of this measurement's row."""
        return self.sub_label or self.stmt or "[Unknown]"

    def __repr__(self):
        self._lazy_init()
        n = len(self._sorted_times)
        unit, scale = select_unit(self._median)
        lines = [object.__repr__(self), self.task_spec.summarize()]
        lines.append(f"  {'Median: ' if n > 1 else ''}{self._median / scale:.2f} {unit}")
        if n >= 4:
            lines.append(
                f"  IQR:    {self.iqr / scale:.2f} {unit} ({self._p25 / scale:.2f} to {self._p75 / scale:.2f})"
            )
        lines.append(
            f"  {n} measurement{'s' if n > 1 else ''}, {self.number_per_run} runs "
            f"{'per measurement,' if n > 1 else ','} {self.num_threads} thread{'s' if self.num_threads > 1 else ''}"
        )
        lines.extend(self._warnings)
        return "\n".join(lines).strip()

    @staticmethod
    def merge(measurements):
        """Pools replicates of the same TaskSpec into one Measurement each (number_per_run=1, no metadata)."""
        groups = collections.defaultdict(list)
        for m in measurements:
            groups[m.task_spec].extend(m.times)
        return [Measurement(1, times, spec, None) for spec, times in groups.items()]


def select_unit(t):
    """('ns' | 'us' | 'ms' | 's', seconds per unit) that shows `t` seconds with one to three leading digits."""
    unit = {-3: "ns", -2: "us", -1: "ms"}.get(int(math.log10(t) // 3), "s") if t > 0 else "ns"
    return unit, {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}[unit]


def unit_to_english(u):
    """'us' -> 'microsecond' (and ns, ms, s)."""
    return {"ns": "nanosecond", "us": "microsecond", "ms": "millisecond", "s": "second"}[u]


def trim_sigfig(x, n):
    """`x` rounded to `n` significant figures (3.14159, 2 -> 3.1)."""
    if n != int(n):
        raise AssertionError("Number of significant figures must be an integer")
    scale = 10.0 ** (math.ceil(math.log10(abs(x))) - n)
    return float(np.round(x / scale) * scale)


def ordered_unique(elements):
    """The distinct elements in first-seen order."""
    return list(dict.fromkeys(elements))


@contextlib.contextmanager
def set_torch_threads(n):
    """Runs the block with `n` intra-op threads, then restores the previous count."""
    prior = _C.get_num_threads()
    try:
        _C.set_num_threads(n)
        yield
    finally:
        _C.set_num_threads(prior)
