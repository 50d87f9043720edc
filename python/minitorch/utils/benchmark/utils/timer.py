"""Timer: timeit.Timer made aware of minitorch (warm-up, thread count, GPU synchronization, replicates)."""

import enum
import sys
import textwrap
import timeit

from minitorch import accelerator
from minitorch.utils.benchmark.utils import common

__all__ = ["Language", "Timer", "timer"]


def timer():
    """The default clock: waits for queued GPU work first, so a GPU statement is timed to its end."""
    if accelerator.is_available():
        accelerator.synchronize()
    return timeit.default_timer()


class Language(enum.Enum):
    """The language of a statement; only PYTHON is supported here."""

    PYTHON = 0
    CPP = 1


class Timer:
    """Times a Python statement, as torch.utils.benchmark.Timer.

    stmt/setup/globals/timer are timeit.Timer's (the name `torch` is predefined as minitorch, so statements
    written for PyTorch run unchanged); label, sub_label, description and env say what was measured and how
    Compare lays it out; num_threads is the intra-op thread count while timing (default 1, for comparable
    numbers). blocked_autorange() is the usual entry point; timeit(number) runs a fixed count."""

    _timer_cls = timeit.Timer

    def __init__(
        self,
        stmt="pass",
        setup="pass",
        global_setup="",
        timer=timer,
        globals=None,
        label=None,
        sub_label=None,
        description=None,
        env=None,
        num_threads=1,
        language=Language.PYTHON,
    ):
        if not isinstance(stmt, str):
            raise ValueError("Currently only a `str` stmt is supported.")  # noqa: TRY004  (PyTorch's class)
        if language in (Language.CPP, "cpp", "c++"):
            raise NotImplementedError(
                "minitorch.utils.benchmark times Python statements only; C++ statements (language='cpp') "
                "need PyTorch's C++ extension toolchain, which minitorch does not have."
            )
        if language not in (Language.PYTHON, "py", "python"):
            raise ValueError(f"Invalid language `{language}`.")
        if global_setup:
            raise ValueError(
                f"global_setup is C++ only, got `{global_setup}`. Most likely this code can simply be moved "
                "to `setup`."
            )
        self._globals = dict(globals or {})
        # the package itself, under the name PyTorch statements use (the root module is loaded by now)
        self._globals.setdefault("torch", sys.modules["minitorch"])
        self._language = Language.PYTHON

        stmt, setup = _clean(stmt), _clean(setup)
        self._timer = self._timer_cls(stmt=stmt, setup=setup, timer=timer, globals=self._globals)
        self._task_spec = common.TaskSpec(
            stmt=stmt,
            setup=setup,
            global_setup=global_setup,
            label=label,
            sub_label=sub_label,
            description=description,
            env=env,
            num_threads=num_threads,
        )

    def _timeit(self, number):
        # never 0: a statement faster than the clock would otherwise divide by zero downstream
        return max(self._timer.timeit(number), 1e-9)

    def timeit(self, number=1000000):
        """Runs stmt `number` times (after a warm-up of number // 100) and returns one Measurement."""
        with common.set_torch_threads(self._task_spec.num_threads):
            self._timeit(max(int(number // 100), 2))
            return common.Measurement(
                number_per_run=number, raw_times=[self._timeit(number)], task_spec=self._task_spec
            )

    def repeat(self, repeat=-1, number=-1):
        """Not provided, as in PyTorch: use blocked_autorange."""
        raise NotImplementedError("See `Timer.blocked_autorange.`")

    def autorange(self, callback=None):
        """Not provided, as in PyTorch: use blocked_autorange."""
        raise NotImplementedError("See `Timer.blocked_autorange.`")

    def _measurement_loop(self, number, stop_hook, min_run_time, max_run_time=None, callback=None):
        """Blocks of `number` statements until min_run_time has passed and stop_hook agrees (or the total
        passes max_run_time); returns each block's seconds."""
        times, total = [], 0.0
        with common.set_torch_threads(self._task_spec.num_threads):
            while True:
                spent = self._timeit(number)
                times.append(spent)
                total += spent
                if callback:
                    callback(number, spent)
                can_stop = stop_hook(times)
                if max_run_time and total > max_run_time:
                    break
                if total >= min_run_time and can_stop:
                    break
        return times

    def _estimate_block_size(self, min_run_time):
        """The number of statements per block: grown tenfold until the clock's own overhead is under 0.01%
        of a block and a block takes at least min_run_time / 1000."""
        with common.set_torch_threads(self._task_spec.num_threads):
            overhead = sorted(self._timeit(0) for _ in range(5))[2]
            number = 1
            while True:
                taken = self._timeit(number)
                if overhead / taken <= 1e-4 and taken >= min_run_time / 1000:
                    break
                if taken > min_run_time or number * 10 > 2147483647:
                    break
                number *= 10
        return number

    def blocked_autorange(self, callback=None, min_run_time=0.2):
        """Runs setup once, then blocks of statements (sized so the clock's overhead is negligible) until
        min_run_time seconds have passed; one Measurement with a time per block."""
        number = self._estimate_block_size(min_run_time)
        times = self._measurement_loop(number, lambda times: True, min_run_time, callback=callback)
        return common.Measurement(number_per_run=number, raw_times=times, task_spec=self._task_spec)

    def adaptive_autorange(self, threshold=0.1, *, min_run_time=0.01, max_run_time=10.0, callback=None):
        """Like blocked_autorange, but keeps measuring until iqr / median is below `threshold` (with at least
        4 blocks and min_run_time seconds) or max_run_time seconds have passed."""
        number = self._estimate_block_size(min_run_time=0.05)

        def confident(times):
            return len(times) > 3 and common.Measurement(number, times, self._task_spec).meets_confidence(
                threshold=threshold
            )

        times = self._measurement_loop(number, confident, min_run_time, max_run_time, callback=callback)
        return common.Measurement(number_per_run=number, raw_times=times, task_spec=self._task_spec)

    def collect_callgrind(self, number=100, *, repeats=None, collect_baseline=True, retain_out_file=False):
        """Instruction counts under Valgrind: not supported."""
        raise NotImplementedError("collect_callgrind (instruction counts under Valgrind) is not supported")


def _clean(code):
    """Dedented, without a leading newline or trailing whitespace, as PyTorch normalizes stmt and setup."""
    code = textwrap.dedent(code)
    return code.removeprefix("\n").rstrip()
