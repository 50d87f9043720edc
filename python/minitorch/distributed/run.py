"""torchrun's counterpart: python -m minitorch.distributed.run --nproc_per_node=N script.py args.

Starts N workers with RANK/LOCAL_RANK/WORLD_SIZE/MASTER_ADDR/MASTER_PORT set and supervises them: when one
exits with an error the others are stopped and the launcher exits with that worker's code."""

import argparse
import os
import signal
import socket
import subprocess
import sys
import time

from minitorch import cuda


def _parser():
    p = argparse.ArgumentParser(prog="python -m minitorch.distributed.run", description=__doc__)
    p.add_argument(
        "--nproc_per_node",
        "--nproc-per-node",
        type=str,
        default="1",
        help="workers on this node: a number, or 'cpu' / 'gpu' / 'auto'",
    )
    p.add_argument("--nnodes", type=int, default=1)
    p.add_argument("--node_rank", "--node-rank", type=int, default=0)
    p.add_argument("--master_addr", "--master-addr", type=str, default="127.0.0.1")
    p.add_argument("--master_port", "--master-port", type=int, default=29500)
    p.add_argument("--standalone", action="store_true", help="single node on a free local port")
    p.add_argument("-m", "--module", action="store_true", help="run the script as a module (python -m)")
    p.add_argument("--no_python", "--no-python", action="store_true", help="run the script as an executable")
    p.add_argument(
        "--grace_period",
        type=float,
        default=5.0,
        help="seconds between SIGTERM and SIGKILL when stopping workers",
    )
    p.add_argument("training_script")
    p.add_argument("training_script_args", nargs=argparse.REMAINDER)
    return p


def _nproc(value):
    if value in ("auto", "gpu"):
        try:
            n = cuda.device_count()
        except Exception:  # noqa: BLE001 - no CUDA: count CPUs as torchrun does for 'auto'
            n = 0
        if n > 0 or value == "gpu":
            return max(n, 1)
        value = "cpu"
    if value == "cpu":
        return os.cpu_count() or 1
    return int(value)


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _stop(procs, grace):
    for p in procs:
        if p.poll() is None:
            p.send_signal(signal.SIGTERM)
    deadline = time.monotonic() + grace
    for p in procs:
        try:
            p.wait(timeout=max(0.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()


def main(argv=None):
    args = _parser().parse_args(argv)
    nproc = _nproc(args.nproc_per_node)
    if args.standalone:
        args.nnodes, args.node_rank, args.master_addr, args.master_port = 1, 0, "127.0.0.1", _free_port()
    if not 0 <= args.node_rank < args.nnodes:
        raise SystemExit(f"--node_rank must be in [0, {args.nnodes}), got {args.node_rank}")
    world = nproc * args.nnodes
    if args.no_python:
        cmd = [args.training_script]
    elif args.module:
        cmd = [sys.executable, "-u", "-m", args.training_script]
    else:
        cmd = [sys.executable, "-u", args.training_script]
    cmd += args.training_script_args

    procs = []
    for local in range(nproc):
        env = dict(os.environ)
        env.update(
            RANK=str(args.node_rank * nproc + local),
            LOCAL_RANK=str(local),
            GROUP_RANK=str(args.node_rank),
            WORLD_SIZE=str(world),
            LOCAL_WORLD_SIZE=str(nproc),
            MASTER_ADDR=args.master_addr,
            MASTER_PORT=str(args.master_port),
        )
        # as torchrun: one thread per worker unless the user asked otherwise, so N workers don't oversubscribe
        if nproc > 1:
            env.setdefault("OMP_NUM_THREADS", "1")
        procs.append(subprocess.Popen(cmd, env=env))

    def forward(signum, frame):
        _stop(procs, args.grace_period)
        sys.exit(128 + signum)

    signal.signal(signal.SIGTERM, forward)
    signal.signal(signal.SIGINT, forward)

    try:
        while True:
            codes = [p.poll() for p in procs]
            failed = [(i, c) for i, c in enumerate(codes) if c not in (None, 0)]
            if failed:
                local, code = failed[0]
                rank = args.node_rank * nproc + local
                print(
                    f"minitorch.distributed.run: worker rank {rank} (local_rank {local}) failed with exit code "
                    f"{code}; stopping the other workers",
                    file=sys.stderr,
                )
                _stop(procs, args.grace_period)
                # a worker killed by a signal reports -signum; exit as a shell would
                return code if code > 0 else 128 - code
            if all(c == 0 for c in codes):
                return 0
            time.sleep(0.05)
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()


if __name__ == "__main__":
    sys.exit(main())
