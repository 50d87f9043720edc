"""Worker output routing for the launcher: Std (which streams go to log files) and DefaultLogsSpecs (where)."""

import enum
import os
import re
import tempfile

__all__ = ["DefaultLogsSpecs", "Std", "to_map"]

_MAPPING_REGEX = r"^(\d:[0123],)*(\d:[0123])$"
_VALUE_REGEX = r"^[0123]$"


class Std(enum.IntFlag):
    """Which of a worker's standard streams a setting covers: NONE, OUT, ERR or ALL."""

    NONE = 0
    OUT = 1
    ERR = 2
    ALL = OUT | ERR

    @classmethod
    def from_str(cls, vm):
        """'0'..'3' (one setting for every local rank) or '0:1,1:3' (local rank: setting)."""
        if re.match(_VALUE_REGEX, vm):
            return cls(int(vm))
        if re.match(_MAPPING_REGEX, vm):
            return {int(i): cls(int(v)) for i, v in (m.split(":") for m in vm.split(","))}
        raise ValueError(f"{vm} does not match: <{_VALUE_REGEX}> or <{_MAPPING_REGEX}>")


def to_map(val_or_map, local_world_size):
    """{local_rank: Std} from one Std for all ranks or a partial mapping (missing ranks: NONE)."""
    if isinstance(val_or_map, Std):
        return dict.fromkeys(range(local_world_size), val_or_map)
    return {i: val_or_map.get(i, Std.NONE) for i in range(local_world_size)}


class DefaultLogsSpecs:
    """Where worker output goes. Files live under <log_dir>/<run_id>_<random>/attempt_<n>/<local_rank>/
    (stdout.log, stderr.log, error.json); log_dir defaults to a fresh temporary directory.

    redirects: the streams written to the files instead of the console; tee: the streams written to the
    files and to the console (each line prefixed); local_ranks_filter: the local ranks whose output the
    console shows (the others' untee'd output is dropped, their files are still written)."""

    def __init__(self, log_dir=None, redirects=Std.NONE, tee=Std.NONE, local_ranks_filter=None):
        if log_dir != os.devnull:
            if not log_dir:
                log_dir = tempfile.mkdtemp(prefix="torchelastic_")
            elif os.path.isfile(log_dir):
                raise NotADirectoryError(f"log_dir: {log_dir} is a file")
            else:
                os.makedirs(log_dir, exist_ok=True)
        self._root_log_dir = log_dir
        self._redirects = redirects
        self._tee = tee
        self._local_ranks_filter = local_ranks_filter
        self._run_log_dir = None

    @property
    def root_log_dir(self):
        return str(self._root_log_dir)

    def run_log_dir(self, run_id):
        """<log_dir>/<run_id>_<random>, made on first use and kept for the whole run."""
        if self._run_log_dir is None:
            self._run_log_dir = tempfile.mkdtemp(prefix=f"{run_id}_", dir=self._root_log_dir)
        return self._run_log_dir

    def destinations(self, run_id, attempt, nprocs):
        """{local_rank: (stdout, stderr, tee_out, tee_err, error_file)}: each stream a file path, '' for the
        console or os.devnull; tee_*: whether the stream also goes to the console; error_file: where @record
        writes the worker's exception ('' without a log directory)."""
        redirs, tees = to_map(self._redirects, nprocs), to_map(self._tee, nprocs)
        out = {}
        if self._root_log_dir == os.devnull:
            attempt_dir = None
        else:
            attempt_dir = os.path.join(self.run_log_dir(run_id), f"attempt_{attempt}")
            os.makedirs(attempt_dir, exist_ok=True)
        for r in range(nprocs):
            rd = redirs[r] | tees[r]  # a tee'd stream goes to its file too
            shown = not self._local_ranks_filter or r in self._local_ranks_filter
            if attempt_dir is None:
                out[r] = (
                    os.devnull if rd & Std.OUT or not shown else "",
                    os.devnull if rd & Std.ERR or not shown else "",
                    False,
                    False,
                    "",
                )
                continue
            rank_dir = os.path.join(attempt_dir, str(r))
            os.makedirs(rank_dir, exist_ok=True)
            stdout = os.path.join(rank_dir, "stdout.log") if rd & Std.OUT else ("" if shown else os.devnull)
            stderr = os.path.join(rank_dir, "stderr.log") if rd & Std.ERR else ("" if shown else os.devnull)
            tee_out = bool(tees[r] & Std.OUT) and shown
            tee_err = bool(tees[r] & Std.ERR) and shown
            out[r] = (stdout, stderr, tee_out, tee_err, os.path.join(rank_dir, "error.json"))
        return out
