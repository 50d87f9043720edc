"""The compile tests' case files (_side_effect_cases.py, _first_call_cases.py, _tensor_state_cases.py: functions
that run under whichever torch module they are given, with run_all() returning JSON-able results): loading one
here, running it here, and running it under PyTorch as the oracle."""

import importlib.util
import json
import os
import warnings

import minitorch
from minitorch import _dynamo
from tests.utils import run_oracle

HERE = os.path.dirname(os.path.abspath(__file__))

_ORACLE = r"""
import importlib.util, json, sys, warnings
import torch
p = json.load(sys.stdin)
spec = importlib.util.spec_from_file_location(p["name"], p["file"])
mod = importlib.util.module_from_spec(spec)
mod.torch = torch
spec.loader.exec_module(mod)
warnings.simplefilter("ignore")
print(json.dumps(mod.run_all()))
"""


def path(case_file):
    return os.path.join(HERE, case_file)


def load(case_file, name):
    """The case file as a fresh module named name, running under minitorch."""
    spec = importlib.util.spec_from_file_location(name, path(case_file))
    mod = importlib.util.module_from_spec(spec)
    mod.torch = minitorch
    spec.loader.exec_module(mod)
    return mod


def run_here(case_file):
    """run_all() here (warnings silenced, the compile caches reset after), as the oracle's JSON reads it."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        results = load(case_file, case_file[:-3] + "_minitorch").run_all()
    _dynamo.reset()
    return json.loads(json.dumps(results))


def run_in_pytorch(case_file):
    """run_all() under PyTorch (skips the test where no oracle Python is set)."""
    return run_oracle(_ORACLE, {"file": path(case_file), "name": case_file[:-3] + "_torch"})
