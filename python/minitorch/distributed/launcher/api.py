"""The launcher's agent (torchrun's LocalElasticAgent, on one node): rendezvous with the other nodes' agents,
start the local workers with torchrun's environment, route their output, watch them, restart the whole worker
group on a failure (up to max_restarts) and raise ChildFailedError when it gives up.

Rendezvous runs over one TCPStore per job, the "agent store": the static backend serves it at
MASTER_ADDR:MASTER_PORT from node 0's agent, the c10d backend at the --rdzv-endpoint from the agent on that
host (--standalone: a free local port). The workers use the same store for init_process_group (env:// with
TORCHELASTIC_USE_AGENT_STORE=True), under a prefix per attempt. Each attempt is a round: agents join it, get
their group rank (static: --node-rank; c10d: order of arrival, min..max nodes with a last-call wait), run
their workers, and any agent whose workers fail (or that sees a node waiting to join) moves everybody to the
next round by bumping the store's round counter."""

from __future__ import annotations

import dataclasses
import logging
import os
import pickle
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from string import Template

from minitorch.distributed.elastic.multiprocessing import DefaultLogsSpecs
from minitorch.distributed.elastic.multiprocessing.errors import ChildFailedError, ProcessFailure
from minitorch.distributed.store import DistError, TCPStore

__all__ = [
    "LaunchConfig",
    "RendezvousClosedError",
    "RendezvousTimeoutError",
    "SignalException",
    "elastic_launch",
]

logger = logging.getLogger("minitorch.distributed.elastic.agent")

_DEFAULT_LOG_LINE_PREFIX = "[${role_name}${local_rank}]:"


class RendezvousTimeoutError(RuntimeError):
    """Not enough nodes joined the rendezvous in time."""


class RendezvousClosedError(RuntimeError):
    """Another node ended the job (its workers failed with no restarts left)."""


class SignalException(Exception):
    """The agent received a termination signal; its workers were stopped."""

    def __init__(self, msg, sigval):
        super().__init__(msg)
        self.sigval = sigval


@dataclasses.dataclass
class LaunchConfig:
    """What elastic_launch runs: min_nodes..max_nodes agents of nproc_per_node workers each, how they meet
    (rdzv_backend 'static' or 'c10d', rdzv_endpoint 'host:port', run_id), restarts, and output routing."""

    min_nodes: int
    max_nodes: int
    nproc_per_node: int
    logs_specs: DefaultLogsSpecs | None = None
    run_id: str = ""
    role: str = "default_role"
    rdzv_endpoint: str = ""
    rdzv_backend: str = "etcd"
    rdzv_configs: dict = dataclasses.field(default_factory=dict)
    rdzv_timeout: int = -1
    max_restarts: int = 3
    monitor_interval: float = 0.1
    start_method: str = "spawn"
    log_line_prefix_template: str | None = None
    metrics_cfg: dict = dataclasses.field(default_factory=dict)
    local_addr: str | None = None
    event_log_handler: str = "null"
    signals_to_handle: str = "SIGTERM,SIGINT,SIGHUP,SIGQUIT"
    duplicate_stdout_filters: list | None = None
    duplicate_stderr_filters: list | None = None
    virtual_local_rank: bool = False
    shutdown_timeout: int | None = None

    def __post_init__(self):
        default_timeout = 900
        if self.rdzv_timeout != -1:
            self.rdzv_configs["timeout"] = self.rdzv_timeout
        elif "timeout" not in self.rdzv_configs:
            self.rdzv_configs["timeout"] = default_timeout
        self.rdzv_configs.setdefault("join_timeout", self.rdzv_configs["timeout"])
        if self.logs_specs is None:
            self.logs_specs = DefaultLogsSpecs()


class elastic_launch:
    """elastic_launch(config, entrypoint)(*args): runs `entrypoint` (a program path, or a picklable Python
    function) on this node's workers and returns {global rank: return value} (None for programs)."""

    def __init__(self, config, entrypoint):
        self._config = config
        self._entrypoint = entrypoint

    def __call__(self, *args):
        return launch_agent(self._config, self._entrypoint, list(args))


def _is_local(host):
    if host in ("localhost", "127.0.0.1", "::1", "0.0.0.0", ""):
        return True
    names = {socket.gethostname(), socket.getfqdn()}
    try:
        names.update(socket.gethostbyname_ex(socket.gethostname())[2])
    except OSError:
        pass
    return host in names


class _Rendezvous:
    """The agents' meeting point over the agent store (see the module docstring)."""

    def __init__(self, config, run_id):
        backend = config.rdzv_backend
        if backend not in ("static", "c10d"):
            raise ValueError(
                f"rendezvous backend '{backend}' is not supported by minitorch's launcher: use 'c10d' (or "
                "'static' with --master-addr/--master-port)"
            )
        self.run_id = run_id
        self.static = backend == "static"
        self.min_nodes, self.max_nodes = config.min_nodes, config.max_nodes
        conf = config.rdzv_configs
        self.timeout = float(conf.get("timeout", 900))
        self.join_timeout = float(conf.get("join_timeout", self.timeout))
        self.last_call_timeout = float(conf.get("last_call_timeout", 30))
        host, _, port = config.rdzv_endpoint.rpartition(":")
        if not host:  # 'host' alone: c10d's default port
            host, port = config.rdzv_endpoint, "29400"
        host = host.strip("[]") or "localhost"
        port = int(port or 29400)
        if self.static:
            if self.min_nodes != self.max_nodes:
                raise ValueError(
                    f"For static rendezvous, min_nodes must equal max_nodes, got min_nodes={self.min_nodes}, "
                    f"max_nodes={self.max_nodes}"
                )
            self.node_rank = int(conf.get("rank", 0))
            if not 0 <= self.node_rank < self.max_nodes:
                raise ValueError(f"node_rank must be in [0, {self.max_nodes}), got {self.node_rank}")
            is_host = self.node_rank == 0
        else:
            flag = str(conf.get("is_host", "")).lower()
            is_host = flag in ("1", "true", "yes") if flag else _is_local(host)
        self.store = None
        self.is_host = False
        if is_host:
            try:
                self.store = TCPStore(
                    host, port, None, is_master=True, timeout=self.timeout, wait_for_workers=False
                )
                self.is_host = True
            except OSError:
                if self.static:
                    raise
                # another agent on this host serves it already
        if self.store is None:
            self.store = TCPStore(host, port, None, is_master=False, timeout=self.join_timeout)
        self.host, self.port = host, self.store.port

    def _key(self, *parts):
        return "/".join(["rdzv", self.run_id, *map(str, parts)])

    def _get(self, key):
        return self.store._call("get", key)

    def round(self):
        return int(self.store.add(self._key("round"), 0))

    def closed(self):
        return self._get(self._key("closed")) is not None

    def close(self, why):
        self.store.set(self._key("closed"), why)

    def _check_closed(self):
        if self.closed():
            why = self._get(self._key("closed")).decode()
            raise RendezvousClosedError(f"The rendezvous {self.run_id} was closed: {why}")

    def _joined(self, r):
        return int(self.store.add(self._key(r, "joined"), 0))

    def join(self):
        """(round, group_rank, group_world_size) once this node is in a complete round."""
        while True:
            self._check_closed()
            r = self.round()
            arrival = int(self.store.add(self._key(r, "joined"), 1))
            need = self.max_nodes if self.static else self.min_nodes
            deadline = time.monotonic() + self.join_timeout
            while self._joined(r) < need:
                self._check_closed()
                if self.round() != r:
                    break  # the others moved on (a restart while we arrived): join the new round
                if time.monotonic() > deadline:
                    raise RendezvousTimeoutError(
                        f"The node timed out after {int(self.join_timeout)} seconds waiting for the rendezvous "
                        f"{self.run_id} (round {r}): {self._joined(r)} of the {need} nodes needed joined."
                    )
                time.sleep(0.05)
            else:
                if self.static:
                    return r, self.node_rank, self.max_nodes
                final = self._get(self._key(r, "final"))
                if final is None:
                    # last call: more nodes (up to max_nodes) may still come
                    end = time.monotonic() + self.last_call_timeout
                    while self._joined(r) < self.max_nodes and time.monotonic() < end:
                        if self._get(self._key(r, "final")) is not None:
                            break
                        time.sleep(0.05)
                    count = min(self._joined(r), self.max_nodes)
                    final = self.store.compare_set(self._key(r, "final"), "", str(count))
                final = int(final)
                if arrival <= final:
                    return r, arrival - 1, final
                # too late for this round: wait for the group to restart with us
                self.store.add(self._key(r, "waiting"), 1)
                while self.round() == r:
                    self._check_closed()
                    time.sleep(0.1)

    def nodes_waiting(self, r):
        return int(self.store.add(self._key(r, "waiting"), 0))

    def next_round(self, r):
        """Moves every agent from round r to r + 1 (once, whoever asks first)."""
        self.store.compare_set(self._key("round"), str(r), str(r + 1))

    def arrive(self):
        """Counts this agent in; leave() counts it out."""
        self.store.add(self._key("agents"), 1)

    def leave(self, timeout=300.0):
        """Counts this agent out. The agent serving the store then waits (at most `timeout` seconds) for the
        others to leave too: they may still be running, restarting or waiting for a round."""
        left = int(self.store.add(self._key("agents"), -1))
        if not self.is_host:
            return
        deadline = time.monotonic() + timeout
        while left > 0 and time.monotonic() < deadline:
            time.sleep(0.1)
            left = int(self.store.add(self._key("agents"), 0))
        if left > 0:
            logger.warning(
                "%s agent(s) still in rendezvous %s after %ss; closing its store", left, self.run_id, timeout
            )

    def shutdown(self):
        self.store.close()


class _Pump(threading.Thread):
    """Copies a worker's stream line by line: to its log file, to the console with the line prefix when
    tee'd, and lines matching a duplicate filter to the attempt's filtered log."""

    def __init__(self, src, file_path, console, prefix, dup_path, dup_filters):
        super().__init__(daemon=True)
        self.src, self.console, self.prefix = src, console, prefix.encode()
        self.file = open(file_path, "ab") if file_path else None  # noqa: SIM115 - closed when the stream ends
        self.dup = open(dup_path, "ab") if dup_filters else None  # noqa: SIM115
        self.dup_filters = [f.encode() for f in dup_filters or []]
        self.start()

    def run(self):
        try:
            for line in iter(self.src.readline, b""):
                if self.file:
                    self.file.write(line)
                    self.file.flush()
                if self.console is not None:
                    self.console.write(self.prefix + line)
                    self.console.flush()
                if self.dup and any(f in line for f in self.dup_filters):
                    self.dup.write(line)
                    self.dup.flush()
        finally:
            for f in (self.file, self.dup):
                if f:
                    f.close()


class _Worker:
    def __init__(self, local_rank, global_rank, proc, error_file, pumps, result_file):
        self.local_rank, self.global_rank = local_rank, global_rank
        self.proc, self.error_file, self.pumps, self.result_file = proc, error_file, pumps, result_file


def _command(entrypoint, args, tmpdir):
    """The worker's argv, and the file its return value lands in (Python functions only)."""
    if isinstance(entrypoint, str):
        return [entrypoint, *args], None
    call = os.path.join(tmpdir, "call.pkl")
    with open(call, "wb") as f:
        pickle.dump((entrypoint, tuple(args)), f)
    return [sys.executable, "-u", "-m", "minitorch.distributed.launcher._fn_worker", call], call


def _start_workers(config, entrypoint, args, run_id, r, group_rank, group_world, rdzv, tmpdir):
    nproc = config.nproc_per_node
    dests = config.logs_specs.destinations(run_id, r, nproc)
    attempt_dir = os.path.dirname(os.path.dirname(dests[0][4])) if dests[0][4] else None
    template = Template(config.log_line_prefix_template or _DEFAULT_LOG_LINE_PREFIX)
    argv, call_file = _command(entrypoint, args, tmpdir)
    host = socket.gethostname()
    workers = []
    for local in range(nproc):
        global_rank = group_rank * nproc + local
        env = dict(os.environ)
        env.update(
            RANK=str(global_rank),
            LOCAL_RANK=str(0 if config.virtual_local_rank else local),
            GROUP_RANK=str(group_rank),
            ROLE_RANK=str(global_rank),
            ROLE_NAME=config.role,
            LOCAL_WORLD_SIZE=str(nproc),
            WORLD_SIZE=str(nproc * group_world),
            GROUP_WORLD_SIZE=str(group_world),
            ROLE_WORLD_SIZE=str(nproc * group_world),
            MASTER_ADDR=rdzv.host,
            MASTER_PORT=str(rdzv.port),
            TORCHELASTIC_RESTART_COUNT=str(r),
            TORCHELASTIC_MAX_RESTARTS=str(config.max_restarts),
            TORCHELASTIC_RUN_ID=run_id,
            TORCHELASTIC_USE_AGENT_STORE="True",
            TORCH_NCCL_ASYNC_ERROR_HANDLING=os.environ.get("TORCH_NCCL_ASYNC_ERROR_HANDLING", "1"),
            TORCHELASTIC_SIGNALS_TO_HANDLE=config.signals_to_handle,
            PYTHONUNBUFFERED="1",
        )
        if config.virtual_local_rank and env.get("CUDA_VISIBLE_DEVICES") is None:
            env["CUDA_VISIBLE_DEVICES"] = str(local)
        stdout, stderr, tee_out, tee_err, error_file = dests[local]
        env["TORCHELASTIC_ERROR_FILE"] = error_file
        if error_file and os.path.exists(error_file):
            os.remove(error_file)
        prefix = template.safe_substitute(
            role_name=config.role, local_rank=local, rank=global_rank, hostname=host
        )
        streams, pumps = {}, []
        for name, path, tee, filters, console in (
            ("stdout", stdout, tee_out, config.duplicate_stdout_filters, sys.stdout.buffer),
            ("stderr", stderr, tee_err, config.duplicate_stderr_filters, sys.stderr.buffer),
        ):
            if path == "" and not filters:
                streams[name] = None  # the agent's own console
            elif path == os.devnull and not filters:
                streams[name] = subprocess.DEVNULL
            else:
                streams[name] = subprocess.PIPE
                pumps.append(
                    (
                        name,
                        path if path not in ("", os.devnull) else None,
                        console if tee or path == "" else None,
                        prefix if tee else "",
                        os.path.join(attempt_dir, f"filtered_{name}.log") if attempt_dir else os.devnull,
                        filters,
                    )
                )
        result_file = os.path.join(tmpdir, f"result_{r}_{local}.pkl") if call_file else None
        proc = subprocess.Popen(
            argv + ([result_file] if result_file else []),
            env=env,
            stdout=streams["stdout"],
            stderr=streams["stderr"],
            start_new_session=False,
        )
        threads = [_Pump(getattr(proc, name), *rest) for name, *rest in pumps]
        workers.append(_Worker(local, global_rank, proc, error_file, threads, result_file))
    return workers


def _stop_workers(workers, timeout):
    """SIGTERM, then SIGKILL whatever is still running after `timeout` seconds."""
    for w in workers:
        if w.proc.poll() is None:
            try:
                w.proc.send_signal(signal.SIGTERM)
            except ProcessLookupError:
                pass
    deadline = time.monotonic() + timeout
    for w in workers:
        try:
            w.proc.wait(timeout=max(0.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            w.proc.kill()
            w.proc.wait()
    for w in workers:
        for p in w.pumps:
            p.join(timeout=5)


def _failures(workers):
    return {
        w.global_rank: ProcessFailure(w.local_rank, w.proc.pid, w.proc.returncode, w.error_file)
        for w in workers
        if w.proc.returncode not in (None, 0)
    }


def _name_of(entrypoint, args):
    """What the failure table calls the job: the script for a Python command line, else the program or
    function name."""
    if not isinstance(entrypoint, str):
        return getattr(entrypoint, "__qualname__", repr(entrypoint))
    if os.path.basename(entrypoint).startswith("python") or entrypoint == sys.executable:
        rest = list(args)
        if "-c" in rest:  # --run-path: the script follows the code
            rest = rest[rest.index("-c") + 2 :]
        return next((a for a in rest if not a.startswith("-")), os.path.basename(entrypoint))
    return os.path.basename(entrypoint)


def launch_agent(config, entrypoint, args):
    """Runs the agent until the workers succeed (returns {global rank: return value}) or fail for good
    (raises ChildFailedError)."""
    run_id = config.run_id or str(uuid.uuid4())
    shutdown_timeout = config.shutdown_timeout
    if shutdown_timeout is None:
        shutdown_timeout = float(os.environ.get("TORCH_ELASTIC_SHUTDOWN_TIMEOUT", "30"))
    rdzv = _Rendezvous(config, run_id)
    logger.info(
        "Starting elastic launch: run_id=%s, nnodes=%s:%s, nproc_per_node=%s, max_restarts=%s, endpoint=%s:%s",
        run_id,
        config.min_nodes,
        config.max_nodes,
        config.nproc_per_node,
        config.max_restarts,
        rdzv.host,
        rdzv.port,
    )
    workers = []
    received = []

    def on_signal(signum, frame):
        received.append(signum)
        raise SignalException(f"Process {os.getpid()} got signal: {signum}", sigval=signum)

    previous = {}
    for name in (s.strip() for s in config.signals_to_handle.split(",") if s.strip()):
        sig = getattr(signal, name, None)
        if sig is not None and threading.current_thread() is threading.main_thread():
            previous[sig] = signal.signal(sig, on_signal)
    remaining = config.max_restarts
    tmpdir = tempfile.mkdtemp(prefix="minitorch_elastic_")
    rdzv.arrive()
    succeeded = False
    try:
        while True:
            r, group_rank, group_world = rdzv.join()
            workers = _start_workers(
                config, entrypoint, args, run_id, r, group_rank, group_world, rdzv, tmpdir
            )
            outcome = _monitor(workers, rdzv, r, config.monitor_interval)
            if outcome == "succeeded":
                for w in workers:
                    for p in w.pumps:
                        p.join(timeout=5)
                succeeded = True
                results = {}
                for w in workers:
                    results[w.global_rank] = None
                    if w.result_file and os.path.exists(w.result_file):
                        with open(w.result_file, "rb") as f:
                            results[w.global_rank] = pickle.load(f)
                return results
            failures = _failures(workers) if outcome == "failed" else {}
            _stop_workers(workers, shutdown_timeout)
            if outcome == "failed":
                for f in failures.values():
                    logger.error(
                        "failed (exitcode: %s) local_rank: %s (pid: %s) of binary: %s",
                        f.exitcode,
                        f.local_rank,
                        f.pid,
                        entrypoint,
                    )
                if remaining <= 0:
                    rdzv.close(
                        f"{_name_of(entrypoint, args)} failed on node {group_rank} with no restarts left"
                    )
                    raise ChildFailedError(_name_of(entrypoint, args), failures)
                remaining -= 1
                logger.warning(
                    "[%s] worker group failed; restarting it (%s of %s restarts left)",
                    config.role,
                    remaining,
                    config.max_restarts,
                )
            rdzv.next_round(r)
    finally:
        if workers:
            _stop_workers(workers, shutdown_timeout)
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        try:
            if not succeeded and not rdzv.closed():
                # this node gives up (a failure, a signal, a rendezvous error): the others stop too
                rdzv.close(f"the agent on {socket.gethostname()} (pid {os.getpid()}) stopped")
            rdzv.leave()
        except (OSError, DistError):  # the agent serving the store is gone already
            pass
        finally:
            rdzv.shutdown()


def _monitor(workers, rdzv, r, interval):
    """'succeeded' (every worker exited 0), 'failed' (one exited otherwise) or 'restart' (another node moved
    the group to a new round, or a node waits to join)."""
    while True:
        codes = [w.proc.poll() for w in workers]
        if any(c not in (None, 0) for c in codes):
            time.sleep(min(interval, 0.05))  # let workers failing together all report
            return "failed"
        if all(c == 0 for c in codes):
            return "succeeded"
        rdzv._check_closed()
        if rdzv.round() != r or rdzv.nodes_waiting(r) > 0:
            return "restart"
        time.sleep(interval)
