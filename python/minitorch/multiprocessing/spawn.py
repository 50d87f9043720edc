"""spawn / start_processes: run fn(i, *args) in nprocs processes and re-raise the first failure in the parent,
with the child's traceback (ProcessRaisedException) or its exit code / signal (ProcessExitedException)."""

import multiprocessing
import multiprocessing.connection
import os
import pickle
import signal
import sys
import tempfile
import time
import warnings

# multiprocessing/__init__.py re-exports these names, so its __all__ repeats them.
__all__ = [
    "ProcessContext",
    "ProcessException",
    "ProcessExitedException",
    "ProcessRaisedException",
    "SpawnContext",
    "spawn",
    "start_processes",
]


class ProcessException(Exception):
    """Base class of the errors ``spawn`` raises for a failed child (index and pid attached)."""

    __slots__ = ["error_index", "error_pid"]

    def __init__(self, msg, error_index, pid):
        super().__init__(msg)
        self.msg = msg
        self.error_index = error_index
        self.pid = pid

    def __reduce__(self):
        return type(self), (self.msg, self.error_index, self.pid)


class ProcessRaisedException(ProcessException):
    """A child raised an exception; the message holds its traceback."""

    def __init__(self, msg, error_index, error_pid):
        super().__init__(msg, error_index, error_pid)


class ProcessExitedException(ProcessException):
    """A child exited with a non-zero code or was killed by a signal."""

    __slots__ = ["exit_code"]

    def __init__(self, msg, error_index, error_pid, exit_code, signal_name=None):
        super().__init__(msg, error_index, error_pid)
        self.exit_code = exit_code
        self.signal_name = signal_name

    def __reduce__(self):
        return type(self), (self.msg, self.error_index, self.pid, self.exit_code, self.signal_name)


def _wrap(fn, i, args, error_file):
    try:
        fn(i, *args)
    except KeyboardInterrupt:
        pass  # the parent interrupted us: it reports the interruption itself
    except Exception:  # noqa: BLE001 - any error of the child is reported to the parent
        import traceback

        # A file rather than a queue: a child that dies while writing cannot leave the parent blocked.
        with open(error_file, "wb") as fh:
            pickle.dump(traceback.format_exc(), fh)
        sys.exit(1)


class ProcessContext:
    """The processes ``start_processes`` started, with ``join`` to wait for them and raise failures."""

    def __init__(self, processes, error_files):
        self.error_files = error_files
        self.processes = processes
        self.sentinels = {process.sentinel: index for index, process in enumerate(processes)}

    def pids(self):
        """The process ids, in index order."""
        return [int(process.pid) for process in self.processes]

    def _join_procs_with_timeout(self, timeout):
        end = time.monotonic() + timeout
        for process in self.processes:
            process.join(max(0.0, end - time.monotonic()))

    def join(self, timeout=None, grace_period=None):
        """Waits (up to `timeout` seconds) for the processes. Returns True when all have exited successfully,
        False when some are still running; raises when one failed, after terminating the others (SIGTERM,
        then SIGKILL after `grace_period` seconds)."""
        if len(self.sentinels) == 0:
            return True
        ready = multiprocessing.connection.wait(self.sentinels.keys(), timeout=timeout)
        error_index = None
        for sentinel in ready:
            index = self.sentinels.pop(sentinel)
            process = self.processes[index]
            process.join()
            if process.exitcode != 0:
                error_index = index
                break
        if error_index is None:
            return len(self.sentinels) == 0
        for process in self.processes:
            if process.is_alive():
                process.terminate()
        self._join_procs_with_timeout(30 if grace_period is None else grace_period)
        for process in self.processes:
            if process.is_alive():
                process.kill()
            process.join()
        failed = self.processes[error_index]
        error_file = self.error_files[error_index]
        has_trace = os.path.exists(error_file) and os.path.getsize(error_file) > 0
        if not has_trace:
            exitcode = failed.exitcode
            self._cleanup()
            if exitcode < 0:
                name = signal.Signals(-exitcode).name
                raise ProcessExitedException(
                    f"process {error_index} terminated with signal {name}",
                    error_index=error_index,
                    error_pid=failed.pid,
                    exit_code=exitcode,
                    signal_name=name,
                )
            raise ProcessExitedException(
                f"process {error_index} terminated with exit code {exitcode}",
                error_index=error_index,
                error_pid=failed.pid,
                exit_code=exitcode,
            )
        with open(error_file, "rb") as fh:
            original_trace = pickle.load(fh)
        self._cleanup()
        msg = f"\n\n-- Process {error_index} terminated with the following error:\n" + original_trace
        raise ProcessRaisedException(msg, error_index, failed.pid)

    def _cleanup(self):
        for f in self.error_files:
            try:
                os.unlink(f)
            except OSError:
                pass

    def __del__(self):
        self._cleanup()


class SpawnContext(ProcessContext):
    """``ProcessContext`` under its older name."""


def start_processes(fn, args=(), nprocs=1, join=True, daemon=False, start_method="spawn"):
    """Starts fn(i, *args) for i in range(nprocs) with the given start method. join=True waits and raises the
    first failure; join=False returns the ProcessContext (call its join())."""
    mp = multiprocessing.get_context(start_method)
    error_files = []
    processes = []
    for i in range(nprocs):
        fd, error_file = tempfile.mkstemp(prefix="minitorch-errorfile-", suffix=".pickle")
        os.close(fd)
        error_files.append(error_file)
        process = mp.Process(target=_wrap, args=(fn, i, args, error_file), daemon=daemon)
        process.start()
        processes.append(process)
    context = ProcessContext(processes, error_files)
    if not join:
        return context
    while not context.join():
        pass
    return None


def spawn(fn, args=(), nprocs=1, join=True, daemon=False, start_method="spawn"):
    """Spawns nprocs processes that run fn(i, *args), as torch.multiprocessing.spawn.

    The first argument of fn is the process index. With join=True, waits for all and re-raises a failure
    (ProcessRaisedException with the child's traceback, ProcessExitedException for an exit code or signal);
    with join=False returns a ProcessContext.
    """
    if start_method != "spawn":
        warnings.warn(
            f"This method only supports start_method=spawn (got: {start_method}).\n"
            "To use a different start_method use:\n\t\t minitorch.multiprocessing.start_processes(...)",
            FutureWarning,
            stacklevel=2,
        )
    return start_processes(fn, args, nprocs, join, daemon, start_method="spawn")
