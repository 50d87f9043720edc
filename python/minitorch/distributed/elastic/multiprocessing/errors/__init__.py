"""Worker failures as torchrun reports them: ProcessFailure (one worker's exit), ChildFailedError (the table the
launcher raises) and @record, which writes a training script's uncaught exception to the error file the launcher
set (TORCHELASTIC_ERROR_FILE) so that the table shows its traceback."""

import faulthandler
import json
import os
import signal
import socket
import time
import traceback
import warnings
from datetime import datetime
from functools import wraps

__all__ = ["ChildFailedError", "ErrorHandler", "ProcessFailure", "get_error_handler", "record"]

_NOT_AVAILABLE = "<N/A>"


class ProcessFailure:
    """One worker's failure: its local rank, pid, exit code (negative: killed by that signal) and, when the
    worker wrote one through @record, the error file with its message and traceback."""

    def __init__(self, local_rank, pid, exitcode, error_file):
        self.local_rank = local_rank
        self.pid = pid
        self.exitcode = exitcode
        self.error_file = error_file
        self.error_file_data = {"message": "<NONE>"}
        self.message = ""
        self.timestamp = int(time.time())
        if error_file and os.path.isfile(error_file):
            with open(error_file) as f:
                self.error_file_data = json.load(f)
            msg = self.error_file_data["message"]
            self.message = msg
            self.timestamp = int(
                self.error_file_data.get("timestamp", 0)
                if isinstance(msg, str)
                else msg["extraInfo"]["timestamp"]
            )
        else:
            self.error_file = _NOT_AVAILABLE
        if not self.message:
            if self.exitcode < 0:
                self.message = f"Signal {-self.exitcode} ({self.signal_name()}) received by PID {self.pid}"
            else:
                self.message = "To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html"

    def signal_name(self):
        if self.exitcode < 0:
            try:
                return signal.Signals(-self.exitcode).name
            except ValueError:
                return _NOT_AVAILABLE
        return _NOT_AVAILABLE

    def timestamp_isoformat(self):
        """The failure's time as YYYY-MM-DD_HH:MM:SS."""
        return datetime.fromtimestamp(self.timestamp).isoformat(sep="_")

    def __repr__(self):
        return (
            f"ProcessFailure(local_rank={self.local_rank}, pid={self.pid}, exitcode={self.exitcode}, "
            f"error_file={self.error_file!r})"
        )


class ChildFailedError(Exception):
    """Raised by the launcher when workers fail: `failures` maps global rank -> ProcessFailure; the message is
    torchrun's table, the first failure (by time) under 'Root Cause'."""

    def __init__(self, name, failures):
        if not failures:
            raise AssertionError
        self.name = name
        self.failures = failures
        super().__init__(self.format_msg())

    def get_first_failure(self):
        rank = min(self.failures, key=lambda r: self.failures[r].timestamp)
        return rank, self.failures[rank]

    def format_msg(self, boarder_delim="=", section_delim="-"):
        title = f"{self.name} FAILED"
        root_rank, _ = self.get_first_failure()
        root, others, width = "", [], len(title)
        for idx, (rank, failure) in enumerate(self.failures.items()):
            text = self._format_failure(idx, rank, failure)
            width = max(width, *(len(line) for line in text.split("\n")))
            if rank == root_rank:
                root = text
            else:
                others.append(text)
        width = min(width, 60)
        return "\n".join(
            [
                "",
                boarder_delim * width,
                title,
                section_delim * width,
                "Failures:",
                "\n".join(others or ["  <NO_OTHER_FAILURES>"]),
                section_delim * width,
                "Root Cause (first observed failure):",
                root,
                boarder_delim * width,
            ]
        )

    def _format_failure(self, idx, rank, failure):
        msg = failure.message
        if isinstance(msg, dict):  # an error file: show the traceback, indented under the entry
            msg = msg.get("extraInfo", {}).get("py_callstack", msg.get("message", _NOT_AVAILABLE))
            msg = msg.replace("\n", "\n  ")
        sig = failure.signal_name()
        return "\n".join(
            [
                f"[{idx}]:",
                f"  time      : {failure.timestamp_isoformat()}",
                f"  host      : {socket.getfqdn()}",
                f"  rank      : {rank} (local_rank: {failure.local_rank})",
                f"  exitcode  : {failure.exitcode} (pid: {failure.pid}) {f' ({sig})' if sig != _NOT_AVAILABLE else ''}",
                f"  error_file: {failure.error_file}",
                f"  traceback : {msg}",
            ]
        )


class ErrorHandler:
    """Writes an exception as JSON (message, traceback, time) to the file TORCHELASTIC_ERROR_FILE names."""

    def _get_error_file_path(self):
        return os.environ.get("TORCHELASTIC_ERROR_FILE", None)

    def initialize(self):
        """Dumps every thread's stack on a fatal signal (faulthandler), where the launcher sees it."""
        try:
            faulthandler.enable(all_threads=True)
        except Exception as e:  # noqa: BLE001 - stderr may be closed; the handler is a convenience
            warnings.warn(f"Unable to enable fault handler. {type(e).__name__}: {e}", stacklevel=2)

    def record_exception(self, e):
        path = self._get_error_file_path()
        if path:
            data = {
                "message": {
                    "message": f"{type(e).__name__}: {e}",
                    "extraInfo": {"py_callstack": traceback.format_exc(), "timestamp": str(int(time.time()))},
                }
            }
            with open(path, "w") as f:
                json.dump(data, f)

    def dump_error_file(self, rootcause_error_file, error_code=0):
        """Copies a child's error file to this process's own (a launcher under a launcher), with its exit
        code."""
        with open(rootcause_error_file) as f:
            data = json.load(f)
        if error_code and isinstance(data.get("message"), dict):
            data["message"]["errorCode"] = error_code
        path = self._get_error_file_path()
        if path:
            if os.path.isfile(path):
                os.remove(path)
            with open(path, "w") as f:
                json.dump(data, f)


_handler = ErrorHandler()


def get_error_handler():
    return _handler


def record(fn, error_handler=None):
    """Decorator for a script's main function: an exception it raises is written to the launcher's error file
    (so ChildFailedError's table shows the traceback) and raised on; SystemExit(0) returns normally."""
    handler = error_handler or get_error_handler()

    @wraps(fn)
    def wrapper(*args, **kwargs):
        handler.initialize()
        try:
            return fn(*args, **kwargs)
        except SystemExit as se:
            if se.code == 0:
                return None
            raise
        except ChildFailedError as e:
            _, failure = e.get_first_failure()
            if failure.error_file != _NOT_AVAILABLE:
                handler.dump_error_file(failure.error_file, failure.exitcode)
            raise
        except Exception as e:
            handler.record_exception(e)
            raise

    return wrapper
