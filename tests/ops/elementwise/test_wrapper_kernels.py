"""torch.fmax / fmin / signbit / copysign / logit: the one-pass kernels their Python wrappers call directly
(_C._fmax, _fmin, _signbit, _copysign, _logit), against NumPy and PyTorch (values, dtypes, gradients, out=,
errors), through the fast path (tensors, no out=) and the parsed one alike."""

import math

import numpy as np
import pytest

import minitorch
from minitorch.autograd import gradcheck
from tests.utils import cases_here_and_in_pytorch

F16, F32, F64 = minitorch.float16, minitorch.float32, minitorch.float64
NAN, INF = math.nan, math.inf


def t(a, dtype=None, device="cpu"):
    return minitorch.tensor(a, dtype=dtype, device=device)


def _mixed(n, seed):
    """values with ties, signed zeros, NaN and infinities among random ones"""
    rng = np.random.default_rng(seed)
    a = rng.standard_normal(n)
    a[::7] = NAN
    a[3::11] = 0.0
    a[5::13] = -0.0
    a[2::17] = INF
    a[4::19] = -INF
    return a


@pytest.mark.parametrize("dtype", [F32, F64])
@pytest.mark.parametrize("layout", ["dense", "strided", "broadcast"])
def test_fmax_fmin_values_against_numpy(device, dtype, layout):
    a, b = _mixed(3000, 0), _mixed(3000, 1)
    b[::5] = a[::5]  # ties
    x, y = t(a, dtype, device), t(b, dtype, device)
    if layout == "strided":
        x, y, a, b = x[::3], y[1::3], a[::3], b[1::3]
    elif layout == "broadcast":
        x, y, a, b = (
            x[:60].reshape(60, 1),
            y[:50].reshape(1, 50),
            a[:60].reshape(60, 1),
            b[:50].reshape(1, 50),
        )
    npd = np.float32 if dtype == F32 else np.float64
    for f, ref in ((minitorch.fmax, np.fmax), (minitorch.fmin, np.fmin)):
        np.testing.assert_array_equal(f(x, y).cpu().numpy(), ref(a.astype(npd), b.astype(npd)))


def test_fmax_fmin_integer_and_bool(device):
    rng = np.random.default_rng(2)
    for npd, dt in ((np.int64, minitorch.int64), (np.int16, minitorch.int16), (np.uint8, minitorch.uint8)):
        a, b = rng.integers(0, 100, 500).astype(npd), rng.integers(0, 100, 500).astype(npd)
        np.testing.assert_array_equal(
            minitorch.fmax(t(a, dt, device), t(b, dt, device)).cpu().numpy(), np.fmax(a, b)
        )
        np.testing.assert_array_equal(
            minitorch.fmin(t(a, dt, device), t(b, dt, device)).cpu().numpy(), np.fmin(a, b)
        )
    p, q = t([True, False, True, False], device=device), t([True, True, False, False], device=device)
    assert minitorch.fmax(p, q).tolist() == [True, True, True, False]
    assert minitorch.fmin(p, q).tolist() == [True, False, False, False]


def test_fmax_fmin_gradient_rule(device):
    """PyTorch 2.15's FmaxBackward: a tie splits the gradient; a NaN side passes it to the number beside it,
    self takes it where both are NaN"""
    a = [1.0, 2.0, 3.0, NAN, NAN, 1.0]
    b = [1.0, 1.0, 4.0, 1.0, NAN, NAN]
    want = {
        "fmax": ([0.5, 1, 0, 0, 1, 1], [0.5, 0, 1, 1, 0, 0]),
        "fmin": ([0.5, 0, 1, 0, 1, 1], [0.5, 1, 0, 1, 0, 0]),
    }
    for name, (ga, gb) in want.items():
        x = t(a, F64, device).requires_grad_()
        y = t(b, F64, device).requires_grad_()
        getattr(minitorch, name)(x, y).backward(minitorch.ones(6, dtype=F64, device=device))
        assert x.grad.tolist() == ga, name
        assert y.grad.tolist() == gb, name
    rng = np.random.default_rng(3)
    x = minitorch.tensor(rng.standard_normal(6), dtype=F64, requires_grad=True)
    y = minitorch.tensor(rng.standard_normal(6), dtype=F64, requires_grad=True)
    assert gradcheck(minitorch.fmax, (x, y))
    assert gradcheck(minitorch.fmin, (x, y))


def test_signbit_values(device):
    a = np.array([-0.0, 0.0, -NAN, NAN, -INF, INF, -1.5, 2.0, -1e-40, 1e-40])
    for npd, dt in ((np.float32, F32), (np.float64, F64), (np.float16, F16)):
        v = a.astype(npd)
        x = t(v.tolist(), dt, device)
        # the NaN's sign as stored: tensor() keeps it (np.signbit of the same values)
        want = np.signbit(x.cpu().float().numpy())
        np.testing.assert_array_equal(minitorch.signbit(x).cpu().numpy(), want)
        np.testing.assert_array_equal(minitorch.signbit(x[1::2]).cpu().numpy(), want[1::2])
    assert minitorch.signbit(t([-3, 0, 4, -1], minitorch.int8, device)).tolist() == [True, False, False, True]
    assert minitorch.signbit(t([0, 255], minitorch.uint8, device)).tolist() == [False, False]
    assert minitorch.signbit(t([True, False], device=device)).tolist() == [False, False]
    r = minitorch.signbit(t([-1.0, 1.0], F64, device).requires_grad_())
    assert r.dtype == minitorch.bool and not r.requires_grad


@pytest.mark.parametrize("dtype", [F32, F64])
def test_logit_values_against_numpy(device, dtype):
    npd = np.float32 if dtype == F32 else np.float64
    rng = np.random.default_rng(4)
    p = rng.uniform(-0.2, 1.2, 5000).astype(npd)
    p[:6] = [0.0, 1.0, NAN, 0.5, -0.0, 1e-30]
    x = t(p, dtype, device)
    with np.errstate(divide="ignore", invalid="ignore"):
        np.testing.assert_allclose(
            minitorch.logit(x).cpu().numpy(), np.log(p / (npd(1) - p)), rtol=4e-7 if dtype == F32 else 1e-14
        )
        for eps in (0.1, 0.6, 0.0):
            lo = npd(eps)
            hi = npd(1) - lo  # computed in the dtype, as PyTorch's kernel
            q = np.where(p < lo, lo, np.where(p > hi, hi, p))
            want = np.log(q / (npd(1) - q))
            np.testing.assert_allclose(
                minitorch.logit(x, eps).cpu().numpy(), want, rtol=4e-7 if dtype == F32 else 1e-14
            )
        # a negative or NaN eps clamps nothing
        np.testing.assert_array_equal(
            minitorch.logit(x, -1.0).cpu().numpy(), minitorch.logit(x).cpu().numpy()
        )
        np.testing.assert_array_equal(minitorch.logit(x, NAN).cpu().numpy(), minitorch.logit(x).cpu().numpy())
    # strided input: the same values as its dense copy
    np.testing.assert_array_equal(
        minitorch.logit(x[::3], 0.1).cpu().numpy(), minitorch.logit(x[::3].contiguous(), 0.1).cpu().numpy()
    )


def test_logit_gradients(device):
    p = [0.2, 0.0, 1.0, -0.5, 0.3]
    for eps, want in (
        (None, [6.25, INF, INF, NAN, 1 / 0.21]),
        (0.25, [0.0, 0.0, 0.0, 0.0, 1 / 0.21]),
    ):
        x = t(p, F64, device).requires_grad_()
        minitorch.logit(x, eps).sum().backward()
        np.testing.assert_allclose(x.grad.cpu().numpy(), want, rtol=1e-12)
    x = minitorch.tensor(np.random.default_rng(5).uniform(0.1, 0.9, 6), dtype=F64, requires_grad=True)
    assert gradcheck(minitorch.logit, (x,))
    assert gradcheck(lambda v: minitorch.logit(v, 0.05), (x,))


_CASES = """
def cases(torch):
    import math

    def run(f):
        try:
            r = f()
        except Exception as e:
            return [type(e).__name__, str(e).splitlines()[0]]
        if isinstance(r, torch.Tensor):
            v = r.double().tolist() if r.dtype != torch.bool else r.tolist()
            v = [None if isinstance(a, float) and math.isnan(a) else a for a in v] if r.dim() == 1 else v
            return [str(r.dtype).split(".")[-1], list(r.shape), v, r.requires_grad]
        return repr(r)

    out = {}
    xs = [1.0, -2.0, 0.0, float("nan"), -0.0, 3.0]
    ys = [-1.0, float("nan"), 2.0, 0.5, 0.0, 3.0]
    for d in ("float32", "float64", "float16", "bfloat16", "int64", "int16", "uint8", "bool"):
        dt = getattr(torch, d)
        if dt == torch.bfloat16:  # (PyTorch's float-to-bfloat16 conversion makes NaN 0xFFFF, its sign set)
            x = torch.tensor([v if v == v else 5.0 for v in xs]).to(dt)
            y = torch.tensor([v if v == v else 5.0 for v in ys]).to(dt)
        elif dt.is_floating_point:
            x, y = torch.tensor(xs).to(dt), torch.tensor(ys).to(dt)
        else:
            x, y = torch.tensor([1, 0, 2, 5, 0, 1]).to(dt), torch.tensor([0, 1, 2, 3, 0, 4]).to(dt)
        for name in ("fmax", "fmin", "copysign"):
            f = getattr(torch, name)
            out[f"{name} {d}"] = run(lambda: f(x, y))
            out[f"{name} {d} f32"] = run(lambda: f(x, torch.tensor(ys)))
            out[f"{name} {d} method"] = run(lambda: getattr(x, name)(y))
            out[f"{name} {d} out"] = run(lambda: f(x, y, out=torch.empty(0, dtype=dt)))
            out[f"{name} {d} out f64"] = run(lambda: f(x, y, out=torch.empty(6, dtype=torch.float64)))
            out[f"{name} {d} out i64"] = run(lambda: f(x, y, out=torch.empty(6, dtype=torch.int64)))
        out[f"signbit {d}"] = run(lambda: torch.signbit(x))
        out[f"signbit {d} out"] = run(lambda: torch.signbit(x, out=torch.empty(6, dtype=torch.bool)))
        out[f"signbit {d} out float"] = run(lambda: torch.signbit(x, out=torch.empty(6)))
        out[f"logit {d}"] = run(lambda: torch.logit(x))
        out[f"logit {d} eps"] = run(lambda: torch.logit(x, 0.25))
        out[f"logit {d} out"] = run(lambda: torch.logit(x, out=torch.empty(6, dtype=torch.float64)))
        out[f"logit_ {d}"] = run(lambda: x.clone().logit_())
        out[f"copysign_ {d}"] = run(lambda: x.clone().copysign_(y))
    f = torch.tensor(xs)
    c = torch.tensor([1 + 1j, 2j, 3, 1, 1, 1])
    out["fmax complex"] = run(lambda: torch.fmax(c, f))
    out["fmin complex"] = run(lambda: torch.fmin(f, c))
    out["fmax number"] = run(lambda: torch.fmax(f, 2.0))
    out["fmin number first"] = run(lambda: torch.fmin(2, f))
    out["fmax broadcast"] = run(lambda: torch.fmax(f, f[:2]))
    out["fmax 0-dim f64"] = run(lambda: torch.fmax(f, torch.tensor(float("nan"), dtype=torch.float64)))
    out["signbit complex"] = run(lambda: torch.signbit(c))
    out["signbit number"] = run(lambda: torch.signbit(1.0))
    out["copysign complex"] = run(lambda: torch.copysign(c, 1.0))
    out["copysign number"] = run(lambda: torch.copysign(f, -1))
    out["copysign number first"] = run(lambda: torch.copysign(3.0, f))
    out["copysign str"] = run(lambda: torch.copysign(f, "a"))
    out["copysign half 0-dim f64"] = run(
        lambda: torch.copysign(f.half(), torch.tensor(-1.0, dtype=torch.float64))
    )
    out["logit complex"] = run(lambda: torch.logit(c))
    out["logit eps str"] = run(lambda: torch.logit(f, "a"))
    out["logit eps int"] = run(lambda: torch.logit(f, 1))
    out["logit eps bool"] = run(lambda: torch.logit(f, True))
    out["logit eps 0-dim"] = run(lambda: torch.logit(f, torch.tensor(0.1)))
    out["logit eps 0.6"] = run(lambda: torch.logit(torch.tensor([0.2, 0.5, 0.0, 1.0]), eps=0.6))
    out["logit grad out"] = run(lambda: torch.logit(f.clone().requires_grad_(), out=torch.empty(6)))
    out["special.logit"] = run(lambda: torch.special.logit(f, eps=0.1))
    g = f.clone().requires_grad_()
    out["logit grad_fn"] = run(lambda: torch.logit(g, 0.1))
    return out
"""


def _same(a, b):
    """equal, floats within a relative 2e-7 (the vector log rows and PyTorch's differ by an ulp)"""
    if isinstance(a, float) and isinstance(b, float):
        return a == b or math.isclose(a, b, rel_tol=2e-7)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same(p, q) for p, q in zip(a, b))
    return a == b


def test_against_pytorch():
    ours, theirs = cases_here_and_in_pytorch(_CASES, [("torch", minitorch)])
    assert ours.keys() == theirs.keys()
    bad = {k: (ours[k], theirs[k]) for k in theirs if not _same(ours[k], theirs[k])}
    assert not bad, bad
