"""Shared pytest fixtures: the devices present (CPU always, CUDA when a GPU is)."""

import pytest

# PyTorch, where installed, is a second oracle (tests/test_torch_oracle.py). It is imported before minitorch:
# the other order crashed inside PyTorch's import on the GPU machine (docs/gpu-report.md).
try:
    import torch as REAL_TORCH
except Exception:  # noqa: BLE001 - absent, or present but unloadable: the oracle tests skip
    REAL_TORCH = None

import minitorch

DEVICES = ["cpu"] + (["cuda"] if minitorch.cuda.is_available() else [])


@pytest.fixture(params=DEVICES)
def device(request):
    return request.param
