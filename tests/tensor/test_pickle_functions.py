"""pickle.dumps(torch.X) gives back torch.X for every public function of the torch namespaces (as PyTorch's do),
so a pickled reference (a DataLoader collate_fn under spawn, an exported program's call targets) loads."""

import functools
import importlib
import io
import pickle
import subprocess
import sys

import pytest
from utils import run_oracle

import minitorch as torch
from minitorch._pickle_names import NAMESPACES


def _public_callables(prefix, namespaces):
    out = {}
    for name in namespaces:
        mod = importlib.import_module(name)
        for attr in dir(mod):
            obj = getattr(mod, attr)
            if attr.startswith("_") or not callable(obj) or isinstance(obj, type):
                continue
            out[f"{name[len(prefix) :].lstrip('.')}.{attr}".lstrip(".")] = obj
    return out


def _callables():
    # the lazy subpackages that wrap or add functions (fx, func, jit, export) loaded first: a function a
    # namespace gains then must pickle too
    for lazy in ("fx", "func", "jit", "export", "overrides"):
        getattr(torch, lazy)
    return _public_callables("minitorch", NAMESPACES)


def test_every_public_function_pickles_to_itself():
    found = _callables()
    assert len(found) > 800  # torch, F, linalg, fft, special: the walk reached them
    wrong = {}
    for name, fn in found.items():
        try:
            back = pickle.loads(pickle.dumps(fn))
        except Exception as e:  # noqa: BLE001 - each failure is reported by name below
            wrong[name] = f"{type(e).__name__}: {e}"
            continue
        if back is not fn:
            wrong[name] = f"loaded {back!r}"
    assert not wrong, wrong


ORACLE = r"""
import importlib, json, pickle, sys, torch
out = {}
for name in json.load(sys.stdin):
    mod = importlib.import_module(name)
    for attr in dir(mod):
        obj = getattr(mod, attr)
        if attr.startswith("_") or not callable(obj) or isinstance(obj, type):
            continue
        try:
            out[f"{name[5:].lstrip('.')}.{attr}".lstrip(".")] = pickle.loads(pickle.dumps(obj)) is obj
        except Exception:
            out[f"{name[5:].lstrip('.')}.{attr}".lstrip(".")] = False
print(json.dumps(out))
"""


def test_what_pytorch_pickles_we_pickle():
    theirs = run_oracle(ORACLE, ["torch" + n[len("minitorch") :] for n in NAMESPACES])
    ours = _callables()
    # the check has something to check: most of PyTorch's functions are here and pickle there
    shared = [n for n, ok in theirs.items() if ok and n in ours]
    assert len(shared) > 700
    wrong = []
    for name in shared:
        try:
            if pickle.loads(pickle.dumps(ours[name])) is not ours[name]:
                wrong.append(name)
        except Exception:  # noqa: BLE001
            wrong.append(name)
    assert not wrong


@pytest.mark.parametrize(
    "name", ["atleast_2d", "cond", "clamp_", "linalg.inv", "matrix_power", "nn.functional.dropout"]
)
def test_pickled_function_loads_in_a_fresh_process(name):
    # what spawn does with a DataLoader's collate_fn: the bytes made here load in an interpreter that imported
    # minitorch anew, to the function of the same name there
    fn = functools.reduce(getattr, name.split("."), torch)
    blob = pickle.dumps(functools.partial(fn))
    code = (
        "import pickle, sys, functools, minitorch as torch\n"
        f"p = pickle.loads(sys.stdin.buffer.read())\n"
        f"assert p.func is functools.reduce(getattr, {name!r}.split('.'), torch), p.func\n"
    )
    res = subprocess.run([sys.executable, "-c", code], input=blob, capture_output=True, check=False)
    assert res.returncode == 0, res.stderr.decode()


def _sin(x):
    return x.sin()


def _cos(x):
    return x.cos()


def test_export_save_of_a_program_with_cond():
    # torch.cond is a call target of the graph: save pickles it by name
    class M(torch.nn.Module):
        def forward(self, x):
            return torch.cond(x.sum() > 0, _sin, _cos, (x,))

    ep = torch.export.export(M(), (torch.ones(3),))
    buf = io.BytesIO()
    torch.export.save(ep, buf)
    buf.seek(0)
    m = torch.export.load(buf).module()
    assert torch.equal(m(torch.ones(3)), torch.ones(3).sin())
    assert torch.equal(m(-torch.ones(3)), (-torch.ones(3)).cos())


def test_renamed_functions_keep_their_own_name_and_a_minitorch_module():
    # error messages use __name__; fx, overrides and jit take a __module__ under minitorch for one of ours
    assert (torch.atleast_2d.__name__, torch.atleast_2d.__module__) == ("atleast_2d", "minitorch")
    assert (torch.clamp_.__name__, torch.clamp_.__module__) == ("clamp_", "minitorch")
    assert torch.linalg.inv.__module__ == "minitorch.linalg"  # the namespace its definition lives in
    assert torch.nn.functional.dropout.__module__ == "minitorch.nn.functional"
