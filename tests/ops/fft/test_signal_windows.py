"""torch.signal.windows against SciPy's closed forms in float64 (NumPy here) and PyTorch; their errors."""

import json
import os
import subprocess

import numpy as np
import pytest

import minitorch as torch

w = torch.signal.windows


def _n(M, sym):
    # the periodic window is the symmetric one of M + 1 points without its last
    return M if sym else M + 1


def _ref(name, M, sym, **kw):
    n = _n(M, sym)
    x = np.arange(n, dtype=np.float64)
    if name in ("hann", "hamming", "blackman", "nuttall", "general_cosine", "general_hamming"):
        a = {
            "hann": [0.5, 0.5],
            "hamming": [0.54, 0.46],
            "blackman": [0.42, 0.5, 0.08],
            "nuttall": [0.3635819, 0.4891775, 0.1365995, 0.0106411],
            "general_cosine": kw.get("a"),
            "general_hamming": [kw.get("alpha", 0.54), 1 - kw.get("alpha", 0.54)],
        }[name]
        r = sum((-1) ** i * c * np.cos(2 * np.pi * i * x / (n - 1)) for i, c in enumerate(a))
    elif name == "bartlett":
        r = 1 - np.abs(2 * x / (n - 1) - 1)
    elif name == "cosine":
        r = np.sin(np.pi * (x + 0.5) / n)
    elif name == "gaussian":
        r = np.exp(-0.5 * ((x - (n - 1) / 2) / kw.get("std", 1.0)) ** 2)
    elif name == "kaiser":
        beta = kw.get("beta", 12.0)
        r = np.i0(beta * np.sqrt(1 - (2 * x / (n - 1) - 1) ** 2)) / np.i0(beta)
    elif name == "exponential":
        r = np.exp(-np.abs(x - (n - 1) / 2) / kw.get("tau", 1.0))
    return r[:M]


NAMES = ["bartlett", "blackman", "cosine", "exponential", "gaussian", "hamming", "hann", "kaiser", "nuttall"]


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("sym", [True, False])
@pytest.mark.parametrize("M", [2, 5, 16])
def test_windows_match_closed_forms(name, sym, M):
    got = getattr(w, name)(M, sym=sym, dtype=torch.float64)
    assert got.dtype == torch.float64 and got.shape == (M,)
    np.testing.assert_allclose(got.numpy(), _ref(name, M, sym), rtol=1e-12, atol=1e-14)
    f32 = getattr(w, name)(M, sym=sym)
    assert f32.dtype == torch.float32
    np.testing.assert_allclose(f32.numpy(), _ref(name, M, sym), rtol=1e-5, atol=1e-6)


def test_window_parameters_and_edges():
    np.testing.assert_allclose(
        w.general_cosine(7, a=[0.5, 0.3, 0.2], dtype=torch.float64).numpy(),
        _ref("general_cosine", 7, True, a=[0.5, 0.3, 0.2]),
        rtol=1e-12,
        atol=1e-15,
    )
    np.testing.assert_allclose(
        w.general_hamming(8, alpha=0.6, sym=False, dtype=torch.float64).numpy(),
        _ref("general_hamming", 8, False, alpha=0.6),
        rtol=1e-12,
    )
    np.testing.assert_allclose(
        w.gaussian(9, std=2.5, dtype=torch.float64).numpy(), _ref("gaussian", 9, True, std=2.5)
    )
    np.testing.assert_allclose(
        w.kaiser(9, beta=3.0, dtype=torch.float64).numpy(), _ref("kaiser", 9, True, beta=3.0)
    )
    np.testing.assert_allclose(
        w.exponential(9, tau=3.0, dtype=torch.float64).numpy(), _ref("exponential", 9, True, tau=3.0)
    )
    e = w.exponential(5, center=1.0, sym=False, dtype=torch.float64)
    np.testing.assert_allclose(e.numpy(), np.exp(-np.abs(np.arange(5) - 1.0)))
    for name in NAMES:
        assert getattr(w, name)(0).shape == (0,)
        assert getattr(w, name)(1).tolist() == [1.0]
    assert w.hann(4, requires_grad=True).requires_grad


@pytest.mark.parametrize(
    "call, exc, msg",
    [
        (lambda: w.hann(-1), ValueError, "general_cosine requires non-negative window length, got M=-1"),
        (lambda: w.bartlett(-2), ValueError, "bartlett requires non-negative window length, got M=-2"),
        (lambda: w.hann(4, dtype=torch.int32), ValueError, "expects float32 or float64 dtypes"),
        (lambda: w.gaussian(5, std=0), ValueError, "Standard deviation must be positive, got: 0 instead."),
        (lambda: w.exponential(5, center=1.0), ValueError, "Center must be None for symmetric windows"),
        (lambda: w.exponential(5, tau=0), ValueError, "Tau must be positive, got: 0 instead."),
        (lambda: w.kaiser(5, beta=-1), ValueError, "beta must be non-negative, got: -1 instead."),
        (lambda: w.general_cosine(5, a=[]), ValueError, "Coefficients cannot be empty"),
        (lambda: w.general_cosine(5, a=1), TypeError, "Coefficients must be a list/tuple"),
    ],
)
def test_window_errors(call, exc, msg):
    with pytest.raises(exc, match=msg):
        call()


def test_windows_against_pytorch():
    py = os.environ.get("MINITORCH_ORACLE_PYTHON")
    if not py or not os.path.exists(py):
        pytest.skip("no PyTorch to compare with: set MINITORCH_ORACLE_PYTHON to a Python that imports torch")
    calls = [f"w.{n}({M}, sym={s}, dtype=torch.{d})" for n in NAMES for M in (3, 10) for s in (True, False)
             for d in ("float32", "float64")]  # fmt: skip
    calls += [
        "w.general_hamming(7, alpha=0.6, sym=False)",
        "w.exponential(9, center=2.0, tau=3.0, sym=False)",
    ]
    script = (
        "import json, sys, torch\nw = torch.signal.windows\n"
        "print(json.dumps([eval(c).tolist() for c in json.loads(sys.stdin.read())]))\n"
    )
    res = subprocess.run(
        [py, "-c", script], input=json.dumps(calls), capture_output=True, text=True, timeout=300, check=False
    )
    assert res.returncode == 0, res.stderr
    theirs = json.loads(res.stdout.strip().splitlines()[-1])
    for c, ref in zip(calls, theirs):
        mine = eval(c, {"w": w, "torch": torch})
        tol = 1e-13 if "float64" in c else 3e-7
        np.testing.assert_allclose(mine.numpy(), np.array(ref), rtol=tol, atol=tol, err_msg=c)
