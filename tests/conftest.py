"""Shared pytest fixtures: the devices present (CPU always, CUDA when a GPU is)."""

import pytest

import minitorch

DEVICES = ["cpu"] + (["cuda"] if minitorch.cuda.is_available() else [])


@pytest.fixture(params=DEVICES)
def device(request):
    return request.param
