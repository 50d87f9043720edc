"""torch.histogram / Tensor.histogram / torch.histogramdd against NumPy's histograms and PyTorch's rules."""

import json
import os
import subprocess

import numpy as np
import pytest

import minitorch as torch


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("bins", [1, 4, 17])
def test_histogram_int_bins_matches_numpy(dtype, bins):
    rng = np.random.default_rng(bins)
    a = rng.normal(size=200)
    h, e = torch.histogram(torch.tensor(a, dtype=dtype), bins)
    x = a.astype(np.float32) if dtype == torch.float32 else a
    rh, re = np.histogram(x.astype(np.float64), bins, range=(float(x.min()), float(x.max())))
    assert h.dtype == dtype and e.dtype == dtype and h.shape == (bins,) and e.shape == (bins + 1,)
    # float32 edges are PyTorch's float32 linspace: near zero they are off NumPy's float64 ones by an ulp of the
    # range's ends, not of the edge
    atol = 2 * np.finfo(np.float32).eps * float(np.abs(x).max()) if dtype == torch.float32 else 0
    np.testing.assert_allclose(e.numpy(), re, rtol=1e-6 if dtype == torch.float32 else 1e-14, atol=atol)
    np.testing.assert_array_equal(h.numpy(), rh)


def test_histogram_range_weight_density_edges_tensor():
    rng = np.random.default_rng(0)
    a, w = rng.uniform(-2, 2, size=300), rng.uniform(size=300)
    h, e = torch.histogram(torch.tensor(a), 8, range=(-1.0, 1.5), weight=torch.tensor(w), density=True)
    rh, re = np.histogram(a, 8, range=(-1.0, 1.5), weights=w, density=True)
    np.testing.assert_allclose(h.numpy(), rh, rtol=1e-12)
    np.testing.assert_allclose(e.numpy(), re, rtol=1e-14)
    edges = np.array([-2.0, -0.5, 0.0, 0.25, 1.0, 2.0])
    h, e = torch.tensor(a).histogram(torch.tensor(edges))
    np.testing.assert_array_equal(h.numpy(), np.histogram(a, edges)[0])
    np.testing.assert_array_equal(e.numpy(), edges)


def test_histogram_edge_rules():
    x = torch.tensor([1.0, 2, 1, 4, 2.5, 5, 0])
    h, e = torch.histogram(x, 4)
    assert h.tolist() == [3.0, 1.0, 1.0, 2.0]  # 5.0, the last edge, falls in the last bin
    assert e.tolist() == [0.0, 1.25, 2.5, 3.75, 5.0]
    assert torch.histogram(x, 3, range=(1.0, 4.0)).hist.tolist() == [2.0, 2.0, 1.0]  # 0 and 5 ignored
    # equal min and max widen by 0.5 each side; an empty input counts over [0, 1]
    assert torch.histogram(torch.tensor([2.0, 2.0]), 2).bin_edges.tolist() == [1.5, 2.0, 2.5]
    h, e = torch.histogram(torch.tensor([]), 3)
    assert h.tolist() == [0.0, 0.0, 0.0] and e[-1].item() == 1.0
    # non-contiguous input
    nc = torch.tensor([[1.0, 2], [3, 4]]).t()
    assert torch.histogram(nc, 2).hist.tolist() == [2.0, 2.0]
    r = torch.histogram(x, 2)
    assert type(r).__name__ == "histogram" and r._fields == ("hist", "bin_edges")


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_histogram_values_left_out_with_and_without_weights(dtype):
    # values outside the range and NaN add to no bin: counted through a spare bin, weighted through zero
    # weights (a NaN weight of a left-out value must not reach a bin)
    rng = np.random.default_rng(5)
    a = rng.uniform(-3, 3, size=(40, 30))
    a[0, :3] = [np.nan, np.inf, -np.inf]
    w = rng.uniform(size=(40, 30))
    w[1, a[1] > 2] = np.nan  # only on values the range leaves out
    x, wt = torch.tensor(a, dtype=dtype).t(), torch.tensor(w, dtype=dtype).t()  # non-contiguous
    assert not x.is_contiguous()
    rh, re = np.histogram(a.T, 6, range=(-2.0, 2.0))
    h, e = torch.histogram(x, 6, range=(-2.0, 2.0))
    assert h.dtype == dtype
    np.testing.assert_allclose(e.numpy(), re, rtol=1e-6, atol=1e-6)  # float32 linspace: an ulp of 2 near 0
    np.testing.assert_array_equal(h.numpy(), rh)
    rh, _ = np.histogram(a.T, 6, range=(-2.0, 2.0), weights=w.T)
    h, _ = torch.histogram(x, 6, range=(-2.0, 2.0), weight=wt)
    np.testing.assert_allclose(h.numpy(), rh, rtol=1e-6 if dtype == torch.float32 else 1e-13)
    h, _ = torch.histogram(torch.tensor([], dtype=dtype), 4, weight=torch.tensor([], dtype=dtype))
    assert h.tolist() == [0.0] * 4


@pytest.mark.parametrize(
    "call, exc, msg",
    [
        (
            lambda x: torch.histogram(x.int(), 3),
            NotImplementedError,
            "\"histogramdd\" not implemented for 'Int'",
        ),
        (lambda x: torch.histogram(x.half(), 3), NotImplementedError, "not implemented for 'Half'"),
        (lambda x: torch.histogram(x, 0), RuntimeError, r"torch.histogram\(\): bins must be > 0, but got 0"),
        (lambda x: torch.histogram(x, torch.tensor([1.0])), RuntimeError, "bins must be > 0, but got 0"),
        (
            lambda x: torch.histogram(x, 3, range=(3.0, 1.0)),
            RuntimeError,
            "min should not exceed max, but got min 3",
        ),
        (
            lambda x: torch.histogram(x, 3, range=(0.0, float("inf"))),
            RuntimeError,
            r"range \[0, inf\] is not fin",
        ),
        (
            lambda x: torch.histogram(x, 3, range=(0.0, 1.0, 2.0)),
            RuntimeError,
            "range should have 2 elements",
        ),
        (
            lambda x: torch.histogram(x, torch.tensor([[0.0, 1.0]])),
            RuntimeError,
            "bins tensor should have one dim",
        ),
        (lambda x: torch.histogram(x, torch.tensor([0, 1])), RuntimeError, "should have the same dtype"),
        (lambda x: torch.histogram(x, 3, weight=torch.ones(3)), RuntimeError, r"weight with shape \[3\]"),
        (lambda x: torch.histogram(x, 3, weight=torch.ones(7).double()), RuntimeError, r"weight\(double\)"),
        (lambda x: torch.histogram(x, [1.0, 2.0]), TypeError, "invalid combination of arguments"),
        (lambda x: torch.histogram(torch.tensor([1.0, float("nan")]), 3), RuntimeError, "is not finite"),
    ],
)
def test_histogram_bad_inputs(call, exc, msg):
    with pytest.raises(exc, match=msg):
        call(torch.tensor([1.0, 2, 1, 4, 2.5, 5, 0]))


def test_histogramdd_matches_numpy():
    rng = np.random.default_rng(1)
    a, w = rng.normal(size=(100, 3)), rng.uniform(size=100)
    h, e = torch.histogramdd(torch.tensor(a), bins=[3, 4, 5], weight=torch.tensor(w), density=True)
    rh, re = np.histogramdd(a, bins=[3, 4, 5], weights=w, density=True)
    assert isinstance(e, tuple) and len(e) == 3 and h.shape == (3, 4, 5)
    np.testing.assert_allclose(h.numpy(), rh, rtol=1e-12)
    for mine, ref in zip(e, re):
        np.testing.assert_allclose(mine.numpy(), ref, rtol=1e-14)
    h, e = torch.histogramdd(torch.tensor(a[:, :2]), bins=2, range=[-1.0, 1.0, 0.0, 2.0])
    rh, _ = np.histogramdd(a[:, :2], bins=2, range=[(-1, 1), (0, 2)])
    np.testing.assert_array_equal(h.numpy(), rh)
    edges = [torch.tensor([-3.0, 0.0, 3.0]).double(), torch.tensor([-1.0, 1.0]).double()]
    h, _ = torch.histogramdd(torch.tensor(a[:, :2]), bins=edges)
    np.testing.assert_array_equal(h.numpy(), np.histogramdd(a[:, :2], bins=[e.numpy() for e in edges])[0])
    assert torch.histogramdd(torch.rand(2, 3, 2), bins=2).hist.shape == (2, 2)


def test_histogramdd_bad_inputs():
    x = torch.rand(4, 2)
    with pytest.raises(RuntimeError, match="input tensor should have at least 2 dimensions"):
        torch.histogramdd(x.reshape(-1), 2)
    with pytest.raises(RuntimeError, match="The size of bins must be equal to the innermost dimension"):
        torch.histogramdd(x, [2, 2, 2])
    with pytest.raises(
        RuntimeError, match="for a 2-dimensional histogram range should have 4 elements, but got 2"
    ):
        torch.histogramdd(x, 2, range=[0.0, 1.0])


def test_histogram_against_pytorch():
    py = os.environ.get("MINITORCH_ORACLE_PYTHON")
    if not py or not os.path.exists(py):
        pytest.skip("no PyTorch to compare with: set MINITORCH_ORACLE_PYTHON to a Python that imports torch")
    a = np.random.default_rng(5).normal(size=(50, 2)).round(1)
    cases = {
        "f32": "torch.histogram(x.float(), 7)",
        "f64_range": "torch.histogram(x.double(), 5, range=(-1.0, 0.5))",
        "density": "torch.histogram(x.double(), torch.tensor([-2.0, -0.3, 0.1, 2.0], dtype=torch.float64), "
        "density=True)",
        "dd": "torch.histogramdd(x.double(), [3, 2], weight=x[:, 0].double().abs())",
    }
    script = (
        "import json, sys, torch\n"
        "d = json.loads(sys.stdin.read()); x = torch.tensor(d['x'], dtype=torch.float64)\n"
        "def flat(r): return [r[0].tolist(), [e.tolist() for e in (r[1] if isinstance(r[1], tuple) else [r[1]])]]\n"
        "print(json.dumps({k: flat(eval(v)) for k, v in d['cases'].items()}))\n"
    )
    res = subprocess.run(
        [py, "-c", script],
        input=json.dumps({"x": a.tolist(), "cases": cases}),
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert res.returncode == 0, res.stderr
    theirs = json.loads(res.stdout.strip().splitlines()[-1])
    x = torch.tensor(a)
    for k, src in cases.items():
        r = eval(src, {"torch": torch, "x": x})
        edges = r[1] if isinstance(r[1], tuple) else [r[1]]
        np.testing.assert_allclose(r[0].numpy(), np.array(theirs[k][0]), rtol=1e-6, err_msg=k)
        for mine, ref in zip(edges, theirs[k][1]):
            np.testing.assert_allclose(mine.numpy(), np.array(ref), rtol=1e-6, err_msg=k)


def _oracle(cases, data):
    """each case's source evaluated by PyTorch (MINITORCH_ORACLE_PYTHON) over the tensors of `data` (name ->
    (values, dtype name)): hist and edges as lists, or [exception type, message]"""
    py = os.environ.get("MINITORCH_ORACLE_PYTHON")
    if not py or not os.path.exists(py):
        pytest.skip("no PyTorch to compare with: set MINITORCH_ORACLE_PYTHON to a Python that imports torch")
    script = (
        "import json, sys, torch\n"
        "torch.set_num_threads(1)\n"
        "d = json.loads(sys.stdin.read())\n"
        "env = {k: torch.tensor(v, dtype=getattr(torch, t)) for k, (v, t) in d['data'].items()}\n"
        "env['torch'] = torch\n"
        "def run(src):\n"
        "    try:\n"
        "        r = eval(src, env)\n"
        "    except Exception as e:\n"
        "        return [type(e).__name__, str(e)]\n"
        "    h, e = (r, None) if isinstance(r, torch.Tensor) else r\n"
        "    return [h.float().tolist(), None if e is None else e.float().tolist(), str(h.dtype)]\n"
        "print(json.dumps({k: run(v) for k, v in d['cases'].items()}))\n"
    )
    payload = {"data": {k: (v.tolist(), t) for k, (v, t) in data.items()}, "cases": cases}
    res = subprocess.run(
        [py, "-c", script],
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert res.returncode == 0, res.stderr
    return json.loads(res.stdout.strip().splitlines()[-1])


def test_histc_and_histogram_bins_as_pytorch():
    """histc's and histogram's C++ kernel (kernels/cpu/sort.cpp) against PyTorch bin for bin: values on and next
    to the edges (the interpolation rounded in the input's dtype, histogram's local search, the last edge
    in the last bin), NaN and values outside the range left out, half precision, weights, density, a tensor of
    edges (with repeated edges), strided inputs and PyTorch's errors"""
    rng = np.random.default_rng(35)
    grid = np.concatenate([np.arange(-10, 11) / 7.0, np.nextafter(np.arange(-10, 11) / 7.0, 9)])
    data = {
        "g64": (np.concatenate([grid, rng.normal(size=300), [np.nan, np.inf, -np.inf]]), "float64"),
        "g32": (np.concatenate([grid, rng.normal(size=300)]).astype(np.float32), "float32"),
        "h16": (rng.normal(size=400).astype(np.float16), "float16"),
        "b16": (rng.normal(size=200).astype(np.float32), "bfloat16"),
        "w64": (rng.uniform(size=345), "float64"),
        "w32": (rng.uniform(size=342).astype(np.float32), "float32"),
        "m64": (rng.normal(size=(12, 10)), "float64"),
        "e64": (np.array([-1.0, -0.5, -0.5, 0.0, 0.3, 2.0]), "float64"),
        "empty": (np.zeros(0), "float32"),
        "i64": (np.arange(5), "int64"),
    }
    cases = {
        "histc32": "torch.histc(g32, 7)",
        "histc32_range": "torch.histc(g32, 10, -10 / 7, 10 / 7)",
        "histc32_many": "torch.histc(g32, 1000)",
        "histc64_range": "torch.histc(g64, 21, -10 / 7, 10 / 7)",
        "histc16": "torch.histc(h16, 33)",
        "histc16_range": "torch.histc(h16, 9, -1.3, 1.7)",
        "histcbf16": "torch.histc(b16, 13)",
        "histc_t": "torch.histc(m64.t(), 6)",
        "histc_slice": "torch.histc(m64[:, ::3], 4, -1, 1)",
        "histc_point": "torch.histc(torch.full((3,), 2.5), 4)",
        "histc_empty": "torch.histc(empty, 3)",
        "histc_nan": "torch.histc(g64, 3)",
        "histc_inf": "torch.histc(g64, 3, 0, float('inf'))",
        "histc_order": "torch.histc(g32, 3, 2, 1)",
        "histc_int": "torch.histc(i64, 3)",
        "histc_zero_bins": "torch.histc(g32, 0)",
        "hist32": "torch.histogram(g32, 14)",
        "hist64_range": "torch.histogram(g64, 21, range=(-10 / 7, 10 / 7))",
        "hist64_many": "torch.histogram(g64, 997, range=(-1.0, 1.0))",
        "hist16_range": "torch.histogram(h16, 9, range=(-1.3, 1.7))",
        "hist_w64": "torch.histogram(g64, 8, range=(-2.0, 2.0), weight=w64)",
        "hist_w32_density": "torch.histogram(g32, 5, weight=w32, density=True)",
        "hist_density": "torch.histogram(m64.t(), 6, density=True)",
        "hist_edges": "torch.histogram(g64, e64)",
        "hist_edges_w": "torch.histogram(g64, e64, weight=w64, density=True)",
        "hist_edges_t": "torch.histogram(m64.t(), e64[::2])",
        "hist_point": "torch.histogram(torch.full((3,), 2.5), 4)",
        "hist_empty": "torch.histogram(empty, 3)",
        "hist_nan": "torch.histogram(g64, 3)",
        "hist_order": "torch.histogram(g32, 3, range=(2.0, 1.0))",
        "hist_half_data_range": "torch.histogram(h16, 3)",
    }
    theirs = _oracle(cases, data)
    env = {k: torch.tensor(v, dtype=getattr(torch, t)) for k, (v, t) in data.items()}
    env["torch"] = torch
    for k, src in cases.items():
        want = theirs[k]
        if isinstance(want[0], str):
            with pytest.raises(Exception) as info:  # the type is PyTorch's, compared below
                eval(src, env)
            assert type(info.value).__name__ == want[0], (k, info.value)
            assert str(info.value).replace("-nan", "nan") == want[1].replace("-nan", "nan"), k
            continue
        r = eval(src, env)
        hist, edges = (r, None) if isinstance(r, torch.Tensor) else r
        assert str(hist.dtype) == want[2], k
        if "density" in k or "_w" in k:
            np.testing.assert_allclose(hist.float().numpy(), np.array(want[0]), rtol=1e-6, err_msg=k)
        else:
            np.testing.assert_array_equal(hist.float().numpy(), np.array(want[0]), err_msg=k)
        if edges is not None:
            np.testing.assert_array_equal(
                edges.float().numpy(), np.array(want[1], dtype=np.float32), err_msg=k
            )
