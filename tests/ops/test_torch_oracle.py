"""PyTorch as a second oracle: the same op on the same values in minitorch and in PyTorch, on every device both
have (CUDA on the GPU machine). Skipped where PyTorch is not installed."""

import numpy as np
import pytest
from conftest import REAL_TORCH as pt

import minitorch as mt
from tests.ops import opdb

pytestmark = pytest.mark.skipif(pt is None, reason="PyTorch is not installed")

DEVICES = ["cpu"]
if pt is not None and pt.cuda.is_available() and mt.cuda.is_available():
    DEVICES.append("cuda")
DTYPES = ["float32", "float64", "float16", "bfloat16"]
# (rtol, atol) beyond minitorch's own float64 tolerances: both libraries round, in different orders
TOLS = {
    "float32": (2e-5, 2e-6),
    "float64": (1e-12, 1e-12),
    "float16": (2e-3, 2e-3),
    "bfloat16": (1.6e-2, 1.6e-2),
}


def pair(shape, dtype, device, rng, low=-3.0, high=3.0):
    a = rng.uniform(low, high, size=shape)
    m = mt.tensor(a, dtype=mt.float64).to(device, getattr(mt, dtype))
    # PyTorch gets exactly the values minitorch holds (after its rounding to the dtype)
    t = pt.from_numpy(m.double().cpu().numpy()).to(device).to(getattr(pt, dtype))
    return m, t


def check(m, t, dtype, scale=1.0):
    got = m.double().cpu().numpy()
    exp = t.double().cpu().numpy()
    assert got.shape == exp.shape
    rtol, atol = TOLS[dtype]
    np.testing.assert_allclose(got, exp, rtol=rtol, atol=atol * scale, equal_nan=True)


# every elementwise op of the op database (tests/ops/opdb.py) that computes the floating dtypes and that PyTorch
# names the same in public (without PyTorch, each public one: collected, then skipped), on inputs from its domain
def _float_ops(ops):
    named = (lambda name: hasattr(pt, name)) if pt is not None else (lambda name: True)
    return [op for op in ops if set(FLOAT) <= set(op.dtypes) and op.name[0] != "_" and named(op.name)]


FLOAT = [getattr(mt, d) for d in DTYPES]
UNARY = _float_ops(opdb.UNARY_OPS)
BINARY = _float_ops(opdb.BINARY_OPS)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("op", UNARY, ids=[op.name for op in UNARY])
def test_unary(device, dtype, op):
    rng = np.random.default_rng(1)
    low, high = op.domain or (-3.0, 3.0)
    m, t = pair((37, 129), dtype, device, rng, low=low, high=high)
    check(getattr(mt, op.name)(m), getattr(pt, op.name)(t), dtype, scale=10.0)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("op", BINARY, ids=[op.name for op in BINARY])
def test_binary_broadcast(device, dtype, op):
    rng = np.random.default_rng(2)
    a, ta = pair((33, 1, 65), dtype, device, rng, low=0.1 if op.domain == "pow" else -3.0)
    b, tb = pair((7, 1), dtype, device, rng, low=0.5 if op.domain in ("nonzero", "pow") else -3.0)
    name, f = op.name, getattr(mt, op.name)
    check(f(a, b), getattr(pt, name)(ta, tb), dtype, scale=10.0)
    # a 0-dim CPU tensor joins the op as a scalar (on CUDA too), on a non-contiguous view
    got = f(a.transpose(0, 2), mt.tensor(1.5))
    check(got, getattr(pt, name)(ta.transpose(0, 2), pt.tensor(1.5)), dtype, scale=10.0)


REDUCE = ["sum", "mean", "amax", "amin", "logsumexp"]


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("op", REDUCE)
@pytest.mark.parametrize("dim", [0, 1, 2, (0, 2)])
def test_reductions(device, dtype, op, dim):
    rng = np.random.default_rng(3)
    m, t = pair((17, 301, 9), dtype, device, rng)
    scale = 301 * 17 if op == "sum" else 10.0
    check(getattr(mt, op)(m, dim), getattr(pt, op)(t, dim), dtype, scale=scale)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_var_std_norm_prod_cumsum(device, dtype):
    rng = np.random.default_rng(4)
    m, t = pair((23, 400), dtype, device, rng)
    check(m.var(1), t.var(1), dtype, scale=10)
    check(m.std(0, correction=0), t.std(0, correction=0), dtype, scale=10)
    check(mt.norm(m, 2, 1), pt.norm(t, 2, 1), dtype, scale=10)
    check((m * 0.3).prod(0), (t * 0.3).prod(0), dtype, scale=10)
    check(m.cumsum(1), t.cumsum(1), dtype, scale=400)
    check(m.argmax(1), t.argmax(1), dtype)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("dim", [0, -1])
def test_softmax(device, dtype, dim):
    rng = np.random.default_rng(5)
    m, t = pair((65, 1000), dtype, device, rng, low=-10, high=10)
    check(mt.softmax(m, dim), pt.softmax(t, dim), dtype)
    check(mt.log_softmax(m, dim), pt.log_softmax(t, dim), dtype, scale=10)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", DTYPES)
def test_matmul(device, dtype):
    rng = np.random.default_rng(6)
    a, ta = pair((4, 1, 70, 129), dtype, device, rng)
    b, tb = pair((3, 129, 33), dtype, device, rng)
    # accumulation order differs between BLAS libraries: tolerance grows with k
    rtol = {"float32": 1e-4, "float64": 1e-12, "float16": 5e-3, "bfloat16": 3e-2}[dtype]
    got, exp = (a @ b).double().cpu().numpy(), (ta @ tb).double().cpu().numpy()
    np.testing.assert_allclose(got, exp, rtol=rtol, atol=rtol * 10)
    got = mt.addmm(a[0, 0, :33, :33], a[1, 0, :33], b[0], beta=0.5, alpha=2.0).double().cpu().numpy()
    exp = pt.addmm(ta[0, 0, :33, :33], ta[1, 0, :33], tb[0], beta=0.5, alpha=2.0).double().cpu().numpy()
    np.testing.assert_allclose(got, exp, rtol=rtol, atol=rtol * 10)


@pytest.mark.parametrize("device", DEVICES)
def test_indexing_gather_scatter_where(device):
    rng = np.random.default_rng(7)
    m, t = pair((20, 30), "float32", device, rng)
    idx = rng.integers(0, 20, size=(15,))
    mi, ti = mt.tensor(idx, device=device), pt.from_numpy(idx).to(device)
    check(m[mi], t[ti], "float32")
    check(m[:, mi[:5]], t[:, ti[:5]], "float32")
    check(m[m > 0.5], t[t > 0.5], "float32")
    g = rng.integers(0, 30, size=(20, 4))
    mg, tg = mt.tensor(g, device=device), pt.from_numpy(g).to(device)
    check(mt.gather(m, 1, mg), pt.gather(t, 1, tg), "float32")
    check(mt.index_select(m, 0, mi), pt.index_select(t, 0, ti), "float32")
    check(mt.where(m > 0, m, 0.0), pt.where(t > 0, t, 0.0), "float32")
    check(mt.clamp(m, -1.0, 0.5), pt.clamp(t, -1.0, 0.5), "float32")
    zm, zt = mt.zeros(5, 30, device=device), pt.zeros(5, 30, device=device)
    src_m, src_t = pair((20, 30), "float32", device, rng)
    r = rng.integers(0, 5, size=(20, 30))
    zm.scatter_add_(0, mt.tensor(r, device=device), src_m)
    zt.scatter_add_(0, pt.from_numpy(r).to(device), src_t)
    check(zm, zt, "float32", scale=10)
    check(mt.nonzero(m > 1.0), pt.nonzero(t > 1.0), "float32")
    check(mt.cat([m, m * 2], 1), pt.cat([t, t * 2], 1), "float32")
    check(mt.stack([m, m], 0), pt.stack([t, t], 0), "float32")
