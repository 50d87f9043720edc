"""Shared pytest fixtures: the devices present (CPU always, CUDA when a GPU is)."""

import pytest

# PyTorch, where installed, is a second oracle (tests/ops/test_torch_oracle.py). It is imported before minitorch:
# the other order crashed inside PyTorch's import on the GPU machine (docs/gpu-report.md).
try:
    import torch as REAL_TORCH
except Exception:  # noqa: BLE001 - absent, or present but unloadable: the oracle tests skip
    REAL_TORCH = None

import os

import minitorch

# MINITORCH_TEST_LOG=path: one line per test outcome (outcome, seconds, phase, node id, why it failed), appended as each test
# ends, by the controlling process only. A run cut off by a time box (scripts/gpu_check.sh on the GPU machine)
# still names its failures and its slow tests; pytest's own summary comes only at the end.
_TEST_LOG = os.environ.get("MINITORCH_TEST_LOG")


def pytest_runtest_logreport(report):
    if not _TEST_LOG or os.environ.get("PYTEST_XDIST_WORKER"):
        return
    if report.when == "call" or report.outcome != "passed":
        with open(_TEST_LOG, "a", encoding="utf-8") as f:
            why = ""
            if report.failed:  # the exception's one-line summary, tabs and newlines flattened
                crash = getattr(report.longrepr, "reprcrash", None)
                why = " ".join(str(crash.message if crash else report.longrepr).split())[:400]
            f.write(f"{report.outcome}\t{report.duration:.3f}\t{report.when}\t{report.nodeid}\t{why}\n")


@pytest.fixture(autouse=True)
def _seeded_cpu_generator():
    # Every test starts from the same CPU generator state, as PyTorch's own TestCase does: otherwise a layer's
    # initialisation depends on which tests ran before it in the same xdist worker, and a test that holds for 99
    # starts in 100 fails once in a while in CI. Only the CPU generator: seeding CUDA's would initialise CUDA in
    # the controlling process before the tests that fork. Tests about seeding set their own seeds.
    minitorch.default_generator.manual_seed(0)


DEVICES = ["cpu"] + (["cuda"] if minitorch.cuda.is_available() else [])


@pytest.fixture(params=DEVICES)
def device(request):
    return request.param
