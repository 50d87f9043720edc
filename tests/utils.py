"""Test helpers: make inputs (contiguous or not), convert to float64 NumPy, and run one lambda on minitorch
and NumPy side by side."""

import json
import os
import subprocess
import sys

import numpy as np
import pytest

import minitorch

# the repository's root and tests/, for tests that read files of the tree (right from any test directory)
TESTS = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(TESTS)

# the skip reason of every test that needs the gloo backend: a backend the build could not get is a skip that
# names the fix, never a failure
NO_GLOO = (
    "this build has no gloo backend: on Debian/Ubuntu run scripts/install_system_deps.sh (installs libgloo-dev) "
    "and reinstall minitorch; elsewhere see README 'Distributed backends'"
)

ALL_DTYPES = [
    minitorch.float32,
    minitorch.float64,
    minitorch.float16,
    minitorch.bfloat16,
    minitorch.int64,
    minitorch.int32,
    minitorch.int16,
    minitorch.int8,
    minitorch.uint8,
    minitorch.bool,
]
FLOAT_DTYPES = [minitorch.float32, minitorch.float64, minitorch.float16, minitorch.bfloat16]
INT_DTYPES = [minitorch.int64, minitorch.int32, minitorch.int16, minitorch.int8, minitorch.uint8]

# (rtol, atol) for comparing a result of this dtype with a float64 reference
TOL = {
    minitorch.float64: (1e-10, 1e-12),
    minitorch.float32: (1e-5, 1e-6),
    minitorch.float16: (2e-3, 1e-3),
    minitorch.bfloat16: (1.6e-2, 1e-2),
}

NP_OF = {
    minitorch.float32: np.float32,
    minitorch.float64: np.float64,
    minitorch.float16: np.float16,
    minitorch.int64: np.int64,
    minitorch.int32: np.int32,
    minitorch.int16: np.int16,
    minitorch.int8: np.int8,
    minitorch.uint8: np.uint8,
    minitorch.bool: np.bool_,
}

LAYOUTS = ["contiguous", "transposed", "strided", "expanded"]


def no_cuda_error():
    """PyTorch's error where CUDA is needed and absent: a CPU-only build asserts; a CUDA build on a machine
    without a driver or GPU raises"""
    if minitorch.version.cuda is None:
        return pytest.raises(AssertionError, match="Torch not compiled with CUDA enabled")
    return pytest.raises(RuntimeError, match="NVIDIA driver|No CUDA GPUs are available|CUDA driver")


def make_array(shape, dtype, rng, low=-3.0, high=3.0):
    """Random NumPy data that is exactly representable in `dtype` (so both libraries see identical inputs)."""
    if dtype == minitorch.bool:
        return rng.random(shape) > 0.5
    if dtype in INT_DTYPES:
        lo = 0 if dtype == minitorch.uint8 else int(low)
        return rng.integers(lo, int(high) + 1, size=shape).astype(NP_OF[dtype])
    a = rng.uniform(low, high, size=shape)
    if dtype == minitorch.bfloat16:  # round to bfloat16's 8-bit mantissa through the library itself
        return minitorch.tensor(a, dtype=minitorch.float64).to(minitorch.bfloat16).double().numpy()
    return a.astype(NP_OF[dtype]).astype(np.float64)


def make_tensor(arr, dtype, device="cpu", layout="contiguous"):
    """A tensor holding `arr` with the requested memory layout (same values, different strides)."""
    arr = np.asarray(arr)
    if layout == "contiguous" or arr.ndim == 0:
        return minitorch.tensor(arr, dtype=dtype, device=device)
    if layout == "transposed":
        t = minitorch.tensor(np.ascontiguousarray(arr.T), dtype=dtype, device=device).T
    elif layout == "strided":
        big = np.zeros(tuple(s * 2 for s in arr.shape), dtype=arr.dtype)
        big[tuple(slice(None, None, 2) for _ in arr.shape)] = arr
        t = (
            minitorch.tensor(big, dtype=dtype, device=device)[tuple(slice(None, None, 2) for _ in arr.shape)]
            if hasattr(minitorch.Tensor, "__getitem__")
            else minitorch.tensor(arr, dtype=dtype, device=device)
        )
    elif layout == "expanded":
        # broadcast a first row along dim 0: only valid when every row is equal, so rebuild arr from row 0
        row = minitorch.tensor(arr[:1], dtype=dtype, device=device)
        t = row.expand(*arr.shape)
    else:
        raise ValueError(layout)
    return t


def expanded_array(arr):
    """The values make_tensor(arr, layout='expanded') holds."""
    return np.broadcast_to(arr[:1], arr.shape)


def to_np(t):
    """float64 (or bool/int64) NumPy copy of a tensor, on any device."""
    t = t.detach().cpu()
    if t.dtype == minitorch.bool:
        return t.numpy().copy()
    if t.is_floating_point():
        return t.double().numpy()
    return t.long().numpy()


def assert_matches(actual, expected, dtype=None, rtol=None, atol=None):
    """Compares a tensor with a NumPy reference (computed in float64), tolerance scaled by dtype."""
    dtype = dtype or actual.dtype
    r, a = TOL.get(dtype, (0, 0))
    rtol = r if rtol is None else rtol
    atol = a if atol is None else atol
    got = to_np(actual)
    exp = np.asarray(expected)
    assert got.shape == exp.shape, f"shape {got.shape} != {exp.shape}"
    np.testing.assert_allclose(
        got.astype(np.float64), exp.astype(np.float64), rtol=rtol, atol=atol, equal_nan=True
    )


def rerun_in_child(path, select, timeout=600, **env):
    """Runs the tests of `path` that `select` (pytest -k) picks again in a fresh interpreter with `env` added, for
    settings read once per process (CPU capability, thread pool, cuDNN path); they must run and pass."""
    child_env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path), **env)
    r = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", path, "-k", select],
        env=child_env,
        check=False,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    assert " passed" in r.stdout  # rc 5 is "no test collected"; this also rules out all-skipped


def child_json(code, **env):
    """Runs `code` in a fresh interpreter with `env` added (a CPU capability is read once per process) and returns
    the JSON it printed."""
    r = subprocess.run(
        [sys.executable, "-c", code], env=dict(os.environ, **env), capture_output=True, text=True, check=False
    )
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def mpmath_reference(tmp_path_factory, child, arrays, args=(), timeout=600):
    """Runs `child` (argv: the inputs' .npz, the output's .npz, then args) in the oracle Python, where mpmath
    lives, over `arrays` saved as the inputs; returns (the inputs' path, the loaded reference). Skips without an
    oracle Python or mpmath."""
    py = os.environ.get("MINITORCH_ORACLE_PYTHON")
    if not py or not os.path.exists(py):
        pytest.skip("no oracle Python (MINITORCH_ORACLE_PYTHON) to run mpmath in")
    d = tmp_path_factory.mktemp("mp")
    src, ref = d / "x.npz", d / "ref.npz"
    np.savez(src, **arrays)
    r = subprocess.run(
        [py, "-c", child, str(src), str(ref), *args],
        check=False,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    if r.returncode != 0 and "No module named 'mpmath'" in r.stderr:
        pytest.skip("the oracle Python has no mpmath")
    assert r.returncode == 0, r.stderr
    return src, np.load(ref)


# Defined before every cases() source (cases_in_pytorch, cases_here): `run = runner(enc)` is the usual case runner,
# f()'s result through enc, or its error as [type, first line of the message], the same on both sides.
CASE_HELPERS = r"""
def runner(enc):
    def run(f):
        try:
            return enc(f())
        except Exception as e:  # noqa: BLE001 - the error is the case's result
            return [type(e).__name__, str(e).split("\n")[0]]

    return run
"""


def cases_in_pytorch(source, modules, data=None):
    """Runs `source` (after CASE_HELPERS), which defines cases(*modules[, data]) returning JSON values, under
    PyTorch (the oracle, as run_oracle: skipped without one) and returns their results. modules: (the module PyTorch's side imports,
    ours) pairs in cases' parameter order, e.g. [("torch", minitorch), ("torch.autograd.forward_ad",
    minitorch.autograd.forward_ad)]; data: JSON given as cases' last argument."""
    names = [f"_m{i}" for i in range(len(modules))]
    script = (
        "import json, sys\n"
        + "".join(f"import {mod} as {n}\n" for n, (mod, _) in zip(names, modules))
        + ("data = json.loads(sys.stdin.read())\n" if data is not None else "")
        + CASE_HELPERS
        + source
        + f"\nprint(json.dumps(cases({', '.join(names + ([] if data is None else ['data']))})))\n"
    )
    return run_oracle(script, {} if data is None else data)


def cases_here(source, modules, data=None):
    """The same cases run here, with our modules, as JSON values."""
    ns = {}
    exec(CASE_HELPERS + source, ns)  # noqa: S102 - the same source the oracle runs
    return json.loads(json.dumps(ns["cases"](*[m for _, m in modules], *([] if data is None else [data]))))


def cases_here_and_in_pytorch(source, modules, data=None):
    """(ours, theirs) of cases_here and cases_in_pytorch (PyTorch's first: without it the test skips at once)."""
    theirs = cases_in_pytorch(source, modules, data)
    return cases_here(source, modules, data), theirs


def run_oracle(script, payload, timeout=600):
    """Runs `script` in the PyTorch of MINITORCH_ORACLE_PYTHON with `payload` as JSON on stdin, and returns the
    JSON of its last stdout line; skips the test where no such Python is set."""
    py = os.environ.get("MINITORCH_ORACLE_PYTHON")
    if not py or not os.path.exists(py):
        pytest.skip("no PyTorch to compare with: set MINITORCH_ORACLE_PYTHON to a Python that imports torch")
    res = subprocess.run(
        [py, "-c", script],
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    assert res.returncode == 0, res.stderr
    return json.loads(res.stdout.strip().splitlines()[-1])
