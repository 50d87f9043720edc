"""F.binary_cross_entropy_with_logits of float32 and float64 (ops/loss.cpp: log_sigmoid's one pass, then the
target terms) against PyTorch: logits from -1e4 to 1e4 with zeros of both signs, infinities and NaN, every
reduction, weight and pos_weight, transposed inputs, empty inputs, and the input's gradient; against float64
NumPy in float64."""

import numpy as np
import pytest

import minitorch
from tests.utils import cases_here_and_in_pytorch, to_np

CASES = r"""
def cases(torch):
    def enc(t):
        return [str(t.dtype), list(t.shape), t.tolist()] if isinstance(t, torch.Tensor) else t

    run = runner(enc)  # tests/utils.py's CASE_HELPERS
    F = torch.nn.functional
    out = {}
    logits = [-1e4, -100.0, -20.0, -1.5, -0.0, 0.0, 1e-8, 0.75, 17.0, 100.0, 1e4, float("inf"), -float("inf"),
              float("nan"), 3.0, -3.0]
    targets = [0.0, 1.0, 0.5, 0.25, 1.0, 0.0, 0.9, 0.1, 1.0, 0.0, 0.5, 1.0, 0.0, 0.5, 0.3, 0.7]
    for dt in [torch.float32, torch.float64]:
        x = torch.tensor(logits, dtype=dt).reshape(4, 4)
        y = torch.tensor(targets, dtype=dt).reshape(4, 4)
        w = torch.linspace(0.5, 2.0, 4, dtype=dt)
        pw = torch.tensor([0.5, 1.0, 2.0, 3.0], dtype=dt)
        n = str(dt)
        for red in ["none", "mean", "sum"]:
            out[n, red] = run(lambda: F.binary_cross_entropy_with_logits(x, y, reduction=red))
            out[n, red, "weight"] = run(lambda: F.binary_cross_entropy_with_logits(x, y, w, reduction=red))
            out[n, red, "pos_weight"] = run(
                lambda: F.binary_cross_entropy_with_logits(x, y, reduction=red, pos_weight=pw))
            out[n, red, "t"] = run(lambda: F.binary_cross_entropy_with_logits(x.t(), y.t(), reduction=red))
            out[n, red, "empty"] = run(lambda: F.binary_cross_entropy_with_logits(x[:0], y[:0], reduction=red))
        xg = torch.tensor([-30.0, -2.0, -0.0, 0.0, 0.5, 4.0, 40.0, 1e4], dtype=dt, requires_grad=True)
        yg = torch.tensor([0.0, 1.0, 0.5, 1.0, 0.2, 0.0, 1.0, 0.5], dtype=dt)

        def grad():
            F.binary_cross_entropy_with_logits(xg, yg, pos_weight=torch.tensor(2.0, dtype=dt)).backward()
            return xg.grad

        out[n, "grad"] = run(grad)
    return [[list(k), v] for k, v in out.items()]
"""


def test_matches_pytorch():
    """the same values (within a few ulp of the dtype: both compute log-sigmoid in vector lanes) and dtypes"""
    ours, theirs = cases_here_and_in_pytorch(CASES, [("torch", minitorch)])
    assert [k for k, _ in ours] == [k for k, _ in theirs]
    for (k, a), (_, b) in zip(ours, theirs):
        assert a[:2] == b[:2], (k, a, b)
        rtol = 1e-6 if "float32" in k[0] else 1e-14
        # (the gradient: a term of 1e-18 where PyTorch's fused backward has 0, through the composite's chain)
        atol = 1e-17 if k[1] == "grad" else 0
        np.testing.assert_allclose(
            np.array(a[2], float), np.array(b[2], float), rtol=rtol, atol=atol, err_msg=str(k)
        )


@pytest.mark.parametrize("dtype", [minitorch.float32, minitorch.float64])
def test_against_numpy(dtype):
    """(1 - y) x - log(sigmoid(x)) = (1 - y) x + log1p(exp(-x)) in float64 NumPy, written without overflow"""
    rng = np.random.default_rng(5)
    a = rng.standard_normal((257, 129)) * 30
    t = rng.random((257, 129))
    x = minitorch.tensor(a, dtype=dtype)
    y = minitorch.tensor(t, dtype=dtype)
    a, t = to_np(x), to_np(y)  # the values as rounded to dtype
    want = (1 - t) * a + np.logaddexp(0.0, -a)
    got = minitorch.nn.functional.binary_cross_entropy_with_logits(x, y, reduction="none")
    assert got.dtype == dtype
    rtol = 2e-6 if dtype == minitorch.float32 else 1e-13
    # (1 - y) x - log_sigmoid(x) cancels for large |x|: an error of a rounding of |x| in the dtype
    np.testing.assert_array_less(np.abs(to_np(got) - want), rtol * (np.abs(a) + np.abs(want) + 1))
    m = minitorch.nn.functional.binary_cross_entropy_with_logits(x.t(), y.t())
    np.testing.assert_allclose(m.item(), want.mean(), rtol=rtol * 10)
