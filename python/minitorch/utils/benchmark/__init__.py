"""minitorch.utils.benchmark: torch.utils.benchmark's Timer, Measurement and Compare for timing statements."""

from minitorch.utils.benchmark.utils.common import (
    Measurement,
    TaskSpec,
    ordered_unique,
    select_unit,
    set_torch_threads,
    trim_sigfig,
    unit_to_english,
)
from minitorch.utils.benchmark.utils.compare import Colorize, Compare
from minitorch.utils.benchmark.utils.timer import Language, Timer, timer

__all__ = [
    "Colorize",
    "Compare",
    "Language",
    "Measurement",
    "TaskSpec",
    "Timer",
    "ordered_unique",
    "select_unit",
    "set_torch_threads",
    "timer",
    "trim_sigfig",
    "unit_to_english",
]
