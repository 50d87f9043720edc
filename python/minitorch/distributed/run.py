"""torchrun for minitorch: python -m minitorch.distributed.run [options] script.py args...

Takes torchrun's options and environment (PET_<OPTION> sets an option's default), starts
--nproc-per-node workers per node with torchrun's environment (RANK, LOCAL_RANK, WORLD_SIZE, MASTER_ADDR,
MASTER_PORT, TORCHELASTIC_*...), restarts the whole worker group when a worker fails (--max-restarts), and,
when a worker fails for good, raises ChildFailedError with torchrun's failure table: the command exits non-zero.
The agent itself is minitorch.distributed.launcher."""

import argparse
import logging
import os
import sys
import uuid

from minitorch import cuda
from minitorch.distributed.elastic.multiprocessing import DefaultLogsSpecs, Std
from minitorch.distributed.elastic.multiprocessing.errors import record
from minitorch.distributed.launcher.api import LaunchConfig, elastic_launch

__all__ = ["config_from_args", "get_args_parser", "main", "parse_args", "parse_min_max_nnodes", "run"]

logger = logging.getLogger("minitorch.distributed.run")


# torch.numa.binding.AffinityMode's values
_NUMA_MODES = ("node", "socket", "exclusive", "core-complex")


def _completion_shells():
    try:
        import shtab
    except ImportError:
        return ["bash", "zsh", "tcsh"]  # what shtab supports, so the choice is checked without it
    return shtab.SUPPORTED_SHELLS


class _PrintCompletionAction(argparse.Action):
    """--print-completion SHELL: prints the completion script shtab derives from the parser, then exits."""

    def __call__(self, parser, namespace, values, option_string=None):
        try:
            import shtab
        except ImportError:
            parser.exit(1, f"{option_string} requires the 'shtab' package: pip install shtab\n")
        parser.prog = "torchrun"
        print(shtab.complete(parser, shell=values))
        parser.exit()


class env(argparse.Action):
    """An option whose default comes from the environment variable PET_<DEST> when set (as torchrun's)."""

    def __init__(self, dest, default=None, required=False, **kwargs):
        default = os.environ.get(f"PET_{dest.upper()}", default)
        super().__init__(dest=dest, default=default, required=required and not default, **kwargs)

    def __call__(self, parser, namespace, values, option_string=None):
        setattr(namespace, self.dest, values)


class check_env(argparse.Action):
    """A flag (no value) whose default is PET_<DEST> read as 0/1."""

    def __init__(self, dest, default=False, **kwargs):
        default = bool(int(os.environ.get(f"PET_{dest.upper()}", "1" if default else "0")))
        super().__init__(dest=dest, const=True, default=default, nargs=0, **kwargs)

    def __call__(self, parser, namespace, values, option_string=None):
        setattr(namespace, self.dest, self.const)


def _comma_list(value):
    return [item.replace("\0", ",") for item in value.replace(",,", "\0").split(",")]


def get_args_parser():
    p = argparse.ArgumentParser(
        prog="python -m minitorch.distributed.run", description="Torch Distributed Elastic Training Launcher"
    )
    add = p.add_argument
    add("--nnodes", action=env, type=str, default="1:1", help="Number of nodes, or a range MIN:MAX.")
    add("--nproc-per-node", "--nproc_per_node", action=env, type=str, default="1",
        help="Workers per node: an int, or auto, cpu, gpu.")  # fmt: skip
    add("--rdzv-backend", "--rdzv_backend", action=env, type=str, default="static",
        help="Rendezvous backend: static or c10d.")  # fmt: skip
    add("--rdzv-endpoint", "--rdzv_endpoint", action=env, type=str, default="",
        help="Rendezvous endpoint, <host>:<port>.")  # fmt: skip
    add("--rdzv-id", "--rdzv_id", action=env, type=str, default="none", help="User-defined group id.")
    add("--rdzv-conf", "--rdzv_conf", action=env, type=str, default="",
        help="Rendezvous configuration <key1>=<value1>,... (timeout, join_timeout, last_call_timeout, is_host).")  # fmt: skip
    add("--standalone", action=check_env,
        help="Single-node job: a local rendezvous on a free port (--rdzv-* are chosen and ignored).")  # fmt: skip
    add("--max-restarts", "--max_restarts", action=env, type=int, default=0,
        help="Maximum number of worker group restarts before failing.")  # fmt: skip
    add("--monitor-interval", "--monitor_interval", action=env, type=float, default=0.1,
        help="Seconds between checks of the workers' state.")  # fmt: skip
    add("--start-method", "--start_method", action=env, type=str, default="spawn",
        choices=["spawn", "fork", "forkserver"], help="Accepted for compatibility; workers are new processes.")  # fmt: skip
    add("--event-log-handler", "--event_log_handler", action=env, type=str, default="null",
        help="Accepted for compatibility; events go to the logging module.")  # fmt: skip
    add("--role", action=env, type=str, default="default", help="User-defined role for the workers.")
    add("-m", "--module", action=check_env, help="Run the script as a module, as 'python -m'.")
    add("--no-python", "--no_python", action=check_env,
        help="Run the script directly as an executable instead of with python.")  # fmt: skip
    add("--run-path", "--run_path", action=check_env,
        help="Run the script with runpy.run_path in the worker's interpreter; takes precedence over --no-python.")  # fmt: skip
    add("--log-dir", "--log_dir", action=env, type=str, default=None,
        help="Base directory for the log files (a <rdzv_id>_<random> directory per run).")  # fmt: skip
    add("-r", "--redirects", action=env, type=str, default="0",
        help="Streams to send to log files: 0 none, 1 stdout, 2 stderr, 3 both; or per local rank, 0:1,1:2.")  # fmt: skip
    add("-t", "--tee", action=env, type=str, default="0",
        help="Streams to send to log files and to the console (same format as --redirects).")  # fmt: skip
    add("--log-line-prefix-template", "--log_line_prefix_template", action=env, type=str, default="",
        help="Prefix of tee'd console lines; ${role_name}, ${local_rank}, ${rank}, ${hostname}.")  # fmt: skip
    add("--local-ranks-filter", "--local_ranks_filter", action=env, type=str, default="",
        help="Show only these local ranks' output on the console, e.g. 0,1 (log files keep everything).")  # fmt: skip
    add("--duplicate-stdout-filters", "--duplicate_stdout_filters", action=env, type=_comma_list, default=[],
        help="Also copy stdout lines containing any of these strings to filtered_stdout.log.")  # fmt: skip
    add("--duplicate-stderr-filters", "--duplicate_stderr_filters", action=env, type=_comma_list, default=[],
        help="Also copy stderr lines containing any of these strings to filtered_stderr.log.")  # fmt: skip
    add("--node-rank", "--node_rank", type=int, action=env, default=0,
        help="Rank of this node (static rendezvous only).")  # fmt: skip
    add("--master-addr", "--master_addr", default="127.0.0.1", type=str, action=env,
        help="Address of node 0 (static rendezvous).")  # fmt: skip
    add("--master-port", "--master_port", default=None, type=int, action=env,
        help="Port on node 0 (static rendezvous; default 29500).")  # fmt: skip
    add("--local-addr", "--local_addr", default=None, type=str, action=env, help="Address of this node.")
    add(
        "--logs-specs",
        "--logs_specs",
        default=None,
        type=str,
        help="Accepted for compatibility (default only).",
    )
    add("--numa-binding", "--numa_binding", type=str, choices=list(_NUMA_MODES), default=None,
        help="torchrun's NUMA binding of workers to the CPUs near their GPUs: accepted, and not applied "
        "(the launcher warns).")  # fmt: skip
    add("--signals-to-handle", "--signals_to_handle", action=env, type=str, default="SIGTERM,SIGINT,SIGHUP,SIGQUIT",
        help="Signals that stop the workers and the launcher.")  # fmt: skip
    add("--shutdown-timeout", "--shutdown_timeout", action=env, type=int, default=None,
        help="Seconds between SIGTERM and SIGKILL when stopping workers (default 30).")  # fmt: skip
    add("--virtual-local-rank", "--virtual_local_rank", action=check_env,
        help="LOCAL_RANK=0 in every worker, each seeing only its own GPU (CUDA_VISIBLE_DEVICES).")  # fmt: skip
    add("--print-completion", "--print_completion", action=_PrintCompletionAction, choices=_completion_shells(),
        help="Print a shell completion script for torchrun to stdout and exit. Requires the optional 'shtab' "
        "package.")  # fmt: skip
    add("training_script", type=str, help="The training program, followed by its arguments.")
    add("training_script_args", nargs=argparse.REMAINDER)
    return p


def parse_args(args):
    return get_args_parser().parse_args(args)


def parse_min_max_nnodes(nnodes):
    """'2' -> (2, 2); '1:4' -> (1, 4)."""
    parts = nnodes.split(":")
    if len(parts) == 1:
        return int(parts[0]), int(parts[0])
    if len(parts) == 2:
        return int(parts[0]), int(parts[1])
    raise RuntimeError(f'nnodes={nnodes} is not in "MIN:MAX" format')


def determine_local_world_size(nproc_per_node):
    """The number of workers: an int, or what 'cpu' / 'gpu' / 'auto' count on this machine."""
    try:
        return int(nproc_per_node)
    except ValueError as e:
        if nproc_per_node == "cpu":
            n, kind = os.cpu_count() or 1, "cpu"
        elif nproc_per_node == "gpu":
            if not cuda.is_available():
                raise ValueError("Cuda is not available.") from e
            n, kind = cuda.device_count(), "gpu"
        elif nproc_per_node == "auto":
            n, kind = (cuda.device_count(), "cuda") if cuda.is_available() else (os.cpu_count() or 1, "cpu")
        else:
            raise ValueError(f"Unsupported nproc_per_node value: {nproc_per_node}") from e
        logger.info(
            "Using nproc_per_node=%s, setting nproc_per_node to %s since the instance has %s %s",
            nproc_per_node,
            n,
            n,
            kind,
        )
        return n


def _parse_rendezvous_config(text):
    out = {}
    for item in (s for s in text.split(",") if s.strip()):
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise ValueError(
                "The rendezvous configuration string must be in format <key1>=<value1>,...,<keyN>=<valueN>."
            )
        out[key.strip()] = value.strip()
    return out


def config_from_args(args):
    """(LaunchConfig, program, its arguments) from parsed options."""
    min_nodes, max_nodes = parse_min_max_nnodes(args.nnodes)
    if not 0 < min_nodes <= max_nodes:
        raise AssertionError(
            f"min_nodes must be > 0 and <= max_nodes, got min_nodes={min_nodes}, max_nodes={max_nodes}"
        )
    if args.max_restarts < 0:
        raise AssertionError("max_restarts must be >= 0")
    if args.rdzv_backend != "static" and not args.rdzv_endpoint:
        logger.warning(
            "master_addr is only used for static rdzv_backend and when rdzv_endpoint is not specified."
        )
    if args.node_rank != 0 and args.rdzv_backend != "static":
        logger.warning(
            "node_rank is only used for static rdzv_backend. It will be ignored for rdzv_backend=%s.",
            args.rdzv_backend,
        )
    nproc = determine_local_world_size(args.nproc_per_node)
    if "OMP_NUM_THREADS" not in os.environ and nproc > 1:
        logger.warning(
            "\n*****************************************\n"
            "Setting OMP_NUM_THREADS environment variable for each process to be 1 in default, to avoid your "
            "system being overloaded, please further tune the variable for optimal performance in your "
            "application as needed. \n"
            "*****************************************"
        )
        os.environ["OMP_NUM_THREADS"] = "1"  # the workers inherit it

    rdzv_configs = _parse_rendezvous_config(args.rdzv_conf)
    if args.rdzv_backend == "static":
        rdzv_configs["rank"] = args.node_rank
    endpoint = args.rdzv_endpoint
    if args.rdzv_backend == "static" and not endpoint:
        endpoint = f"{args.master_addr}:{args.master_port}"
    ranks = None
    if args.local_ranks_filter:
        try:
            ranks = set(map(int, args.local_ranks_filter.split(",")))
        except ValueError as e:
            raise ValueError(
                "--local_ranks_filter must be a comma-separated list of integers e.g. --local_ranks_filter=0,1,2"
            ) from e
    logs_specs = DefaultLogsSpecs(
        log_dir=args.log_dir,
        redirects=Std.from_str(args.redirects),
        tee=Std.from_str(args.tee),
        local_ranks_filter=ranks,
    )
    config = LaunchConfig(
        min_nodes=min_nodes,
        max_nodes=max_nodes,
        nproc_per_node=nproc,
        run_id=args.rdzv_id,
        role=args.role,
        rdzv_endpoint=endpoint,
        rdzv_backend=args.rdzv_backend,
        rdzv_configs=rdzv_configs,
        max_restarts=args.max_restarts,
        monitor_interval=args.monitor_interval,
        start_method=args.start_method,
        log_line_prefix_template=args.log_line_prefix_template
        or os.environ.get("TORCHELASTIC_LOG_LINE_PREFIX_TEMPLATE"),
        local_addr=args.local_addr,
        logs_specs=logs_specs,
        event_log_handler=args.event_log_handler,
        signals_to_handle=args.signals_to_handle,
        duplicate_stdout_filters=args.duplicate_stdout_filters,
        duplicate_stderr_filters=args.duplicate_stderr_filters,
        virtual_local_rank=args.virtual_local_rank,
        shutdown_timeout=args.shutdown_timeout,
    )
    python = os.environ.get("PYTHON_EXEC", sys.executable)
    if args.run_path:
        cmd = python
        cmd_args = ["-u", "-c", _RUN_PATH, args.training_script]
    elif not args.no_python:
        cmd = python
        cmd_args = ["-u", *(["-m"] if args.module else []), args.training_script]
    else:
        if args.module:
            raise ValueError(
                "Don't use both the '--no-python' flag and the '--module' flag at the same time."
            )
        cmd, cmd_args = args.training_script, []
    cmd_args.extend(args.training_script_args)
    return config, cmd, cmd_args


# --run-path: the worker's interpreter runs the script with runpy.run_path, argv as the script sees it
_RUN_PATH = "import runpy, sys; sys.argv = sys.argv[1:]; runpy.run_path(sys.argv[0], run_name='__main__')"


def run(args):
    if args.standalone:
        args.rdzv_backend = "c10d"
        args.rdzv_endpoint = "localhost:0"
        args.rdzv_id = str(uuid.uuid4())
        logger.info(
            "\n**************************************\nRendezvous info:\n--rdzv-backend=%s --rdzv-endpoint=%s "
            "--rdzv-id=%s\n**************************************\n",
            args.rdzv_backend,
            args.rdzv_endpoint,
            args.rdzv_id,
        )
    elif (
        args.rdzv_backend == "static"
        and not args.rdzv_endpoint
        and args.master_port is None
        and parse_min_max_nnodes(args.nnodes)[1] == 1
    ):
        # one node and no port asked for: a free local port, nothing to agree on
        args.rdzv_backend = "c10d"
        args.rdzv_endpoint = "localhost:0"
        args.rdzv_id = str(uuid.uuid4())
    if args.master_port is None:
        args.master_port = 29500
    if getattr(args, "numa_binding", None) is not None:
        logger.warning(
            "--numa-binding=%s is not applied by minitorch's launcher: workers are not bound.",
            args.numa_binding,
        )
    config, cmd, cmd_args = config_from_args(args)
    return elastic_launch(config=config, entrypoint=cmd)(*cmd_args)


def _log_to_stderr():
    """The launcher's own messages (the OMP_NUM_THREADS note, worker failures, restarts) on stderr in
    torchrun's format, without touching the root logger."""
    log = logging.getLogger("minitorch.distributed")
    if not log.handlers:
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(
            logging.Formatter(
                "%(levelname).1s%(asctime)s.%(msecs)03d000 %(process)d %(name)s] %(message)s", "%m%d %H:%M:%S"
            )
        )
        log.addHandler(handler)
        log.propagate = False
        if log.level == logging.NOTSET:
            log.setLevel(logging.WARNING)


@record
def main(args=None):
    """Runs the launcher on argv (sys.argv[1:] by default); raises ChildFailedError when workers fail."""
    _log_to_stderr()
    run(parse_args(args))


if __name__ == "__main__":
    main()
