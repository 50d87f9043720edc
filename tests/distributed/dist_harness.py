"""Runs a distributed test case in one process per rank on loopback (bounded in time), for the test_distributed*
files: each names its cases `_case_<name>` and dispatches them in the child with run_case(globals())."""

import os
import socket
import subprocess
import sys
import time
import traceback

import numpy as np
import pytest
from utils import make_array

import minitorch

HERE = os.path.dirname(os.path.abspath(__file__))
TESTS_DIR = os.path.dirname(HERE)
PKG_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(minitorch.__file__)))


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def spawn(module, case, world, ranks=None, timeout=90, extra_env=None, wait_for=None):
    """Runs module._case_<case> in one process per rank; returns [(returncode, output)] per started rank.

    wait_for: the ranks whose exit is awaited (the others are killed once those are done)."""
    port = free_port()
    ranks = list(range(world)) if ranks is None else ranks
    procs = {}
    for r in ranks:
        env = dict(os.environ)
        env.update(
            MASTER_ADDR="127.0.0.1",
            MASTER_PORT=str(port),
            RANK=str(r),
            WORLD_SIZE=str(world),
            MT_DIST_CASE=case,
            PYTHONPATH=os.pathsep.join([PKG_ROOT, HERE, TESTS_DIR, env.get("PYTHONPATH", "")]),
            OMP_NUM_THREADS="1",
        )
        env.update(extra_env or {})
        code = f"import {module} as t; t._child()"
        procs[r] = subprocess.Popen(
            [sys.executable, "-c", code], env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
        )
    deadline = time.monotonic() + timeout
    results = {}
    try:
        for r in wait_for if wait_for is not None else ranks:
            try:
                out, _ = procs[r].communicate(timeout=max(1.0, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                pytest.fail(f"rank {r} of case {case} did not finish within {timeout}s (hang)")
            results[r] = (procs[r].returncode, out)
    finally:
        for p in procs.values():
            if p.poll() is None:
                p.kill()
                p.communicate()
    return [results[r] for r in sorted(results)]


def check_all_ok(results):
    for r, (rc, out) in enumerate(results):
        assert rc == 0, f"rank {r} failed (exit {rc}):\n{out}"


def run_case(namespace):
    """The child's side: runs namespace['_case_' + MT_DIST_CASE] and exits with its outcome."""
    try:
        namespace["_case_" + os.environ["MT_DIST_CASE"]]()
    except BaseException:  # noqa: BLE001 - reported through the exit code and output
        traceback.print_exc()
        sys.stdout.flush()
        os._exit(1)
    sys.stdout.flush()
    os._exit(0)  # no interpreter teardown: a daemon thread blocked in a dead peer's socket never delays exit


def rank_data(seed, rank, shape, dtype, low=-3.0, high=3.0):
    """Rank `rank`'s input for a case seeded `seed`, reproducible in every process."""
    return make_array(shape, dtype, np.random.default_rng(1000 * seed + rank), low, high)
