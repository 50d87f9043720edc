"""Reductions, arg-reductions, scans and softmax against float64 NumPy references.

Covers dtypes, dims, keepdim, non-contiguous layouts, empty tensors, the parallel path and PyTorch's errors,
on every device present; the last section holds the shapes where the CUDA kernels change strategy.
"""

import ast
import itertools
import math
import os
import re
import subprocess
import sys

import numpy as np
import pytest
from utils import (
    ALL_DTYPES,
    FLOAT_DTYPES,
    INT_DTYPES,
    TOL,
    assert_matches,
    expanded_array,
    make_array,
    make_tensor,
    rerun_in_child,
    to_np,
)

import minitorch

SHAPE = (3, 4, 5)


DIMS = [None, 0, -1, 1, (0, 2), (-1, 0), (0, 1, 2)]
LAYOUTS = ["contiguous", "transposed", "stepped", "expanded"]


def stepped(arr, dtype, device):
    """A view that skips every other element along every dim (big[::2, ::2, ...]) built with as_strided."""
    big = np.zeros(tuple(2 * s for s in arr.shape), dtype=arr.dtype)
    big[tuple(slice(None, None, 2) for _ in arr.shape)] = arr
    t = minitorch.tensor(big, dtype=dtype, device=device)
    return t.as_strided(arr.shape, tuple(2 * s for s in t.stride()))


def make(shape, dtype, device, layout, rng, low=-3.0, high=3.0):
    """(tensor, float64-or-int NumPy array holding the same values) for a layout."""
    arr = make_array(shape, dtype, rng, low, high)
    if layout == "stepped":
        t = stepped(arr, dtype, device)
        assert not t.is_contiguous()
        return t, arr
    t = make_tensor(arr, dtype, device, layout)
    if layout == "expanded":
        arr = np.array(expanded_array(arr))
    if layout != "contiguous":
        assert not t.is_contiguous()
    return t, arr


def np_axis(dim):
    return tuple(dim) if isinstance(dim, tuple) else dim


def low_precision_atol(dtype, magnitude):
    """Absolute tolerance for a reduction whose terms have total size `magnitude` (cancellation aware)."""
    return TOL.get(dtype, (0, 0))[0] * max(1.0, float(np.max(magnitude, initial=0.0)))


# ---- sum / mean / prod / amax / amin


REDUCERS = {
    "sum": np.sum,
    "mean": np.mean,
    "prod": np.prod,
    "amax": np.max,
    "amin": np.min,
}


# mean of integers raises (tested in test_errors), so it is left out here
OP_DTYPES = [
    (op, dt)
    for op in REDUCERS
    for dt in FLOAT_DTYPES + INT_DTYPES + [minitorch.bool]
    if not (op == "mean" and dt not in FLOAT_DTYPES)
]


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("keepdim", [False, True])
@pytest.mark.parametrize("dim", DIMS)
@pytest.mark.parametrize("op,dtype", OP_DTYPES)
def test_basic_reductions(device, dtype, op, dim, keepdim, layout):
    rng = np.random.default_rng(0)
    shape = (2, 3, 4) if op == "prod" else SHAPE
    low, high = (-1.5, 1.5) if op == "prod" else (-3.0, 3.0)
    t, a = make(shape, dtype, device, layout, rng, low, high)
    kwargs = {"keepdim": keepdim}
    if dim is not None:
        kwargs["dim"] = dim
    elif op in ("prod", "sum", "mean"):  # PyTorch's prod, sum and mean take keepdim only beside a dim
        with pytest.raises(
            TypeError, match=re.escape(f"{op}() received an invalid combination of arguments")
        ):
            getattr(minitorch, op)(t, **kwargs)
        if keepdim:
            return
        kwargs = {}
    if op == "prod" and isinstance(dim, tuple):  # PyTorch's prod takes one int dim
        with pytest.raises(TypeError, match=re.escape("prod(): argument 'dim' must be int, not tuple")):
            minitorch.prod(t, **kwargs)
        with pytest.raises(TypeError, match=re.escape("prod(): argument 'dim' must be int, not tuple")):
            t.prod(**kwargs)
        return
    got = getattr(minitorch, op)(t, **kwargs)
    ref_in = a.astype(np.float64) if dtype in FLOAT_DTYPES else a.astype(np.int64)
    if op in ("amax", "amin") and dtype == minitorch.bool:
        ref_in = a
    exp = REDUCERS[op](ref_in, axis=np_axis(dim), keepdims=keepdim)
    if op in ("sum", "prod") and dtype not in FLOAT_DTYPES:
        assert got.dtype == minitorch.int64
    else:
        assert got.dtype == dtype
    atol = None
    if op in ("sum", "mean") and dtype in FLOAT_DTYPES:
        atol = low_precision_atol(dtype, np.sum(np.abs(ref_in), axis=np_axis(dim)))
    assert_matches(got, exp, atol=atol)
    # the method spelling gives the same result
    method = getattr(t, op)(**kwargs)
    assert_matches(method, to_np(got), rtol=0, atol=0)


def test_reduction_dtype_rules(device):
    b = minitorch.tensor([True, False, True], device=device)
    assert b.sum().dtype == minitorch.int64 and b.sum().item() == 2
    i = minitorch.tensor([1, 2, 3], dtype=minitorch.int32, device=device)
    assert i.sum().dtype == minitorch.int64
    assert i.prod().dtype == minitorch.int64 and i.prod().item() == 6
    assert i.sum(dtype=minitorch.float64).dtype == minitorch.float64
    assert i.mean(dtype=minitorch.float32).item() == 2.0
    f = minitorch.tensor([1.5, 2.5], dtype=minitorch.float16, device=device)
    assert f.sum().dtype == minitorch.float16 and f.sum().item() == 4.0
    assert f.sum(dtype=minitorch.float32).dtype == minitorch.float32
    assert i.amax().dtype == minitorch.int32 and i.amax().item() == 3
    assert minitorch.tensor([1, 0], dtype=minitorch.uint8).all().dtype == minitorch.uint8
    assert minitorch.tensor([1.0, 0.0]).any().dtype == minitorch.bool


def test_integer_sums_widen_before_adding(device):
    i = minitorch.tensor([2**31 - 1, 1, 2**31 - 1], dtype=minitorch.int32, device=device)
    assert i.sum().item() == 2 * (2**31 - 1) + 1
    assert i.cumsum(0).tolist() == [2**31 - 1, 2**31, 2**32 - 1]
    u = minitorch.tensor([200, 100], dtype=minitorch.uint8, device=device)
    assert u.sum().item() == 300 and u.prod().item() == 20000
    # an explicit dtype casts the input first, as PyTorch does
    assert u.sum(dtype=minitorch.uint8).item() == 300 % 256
    x = minitorch.tensor([1, 2, 3], device=device)
    assert_matches(
        minitorch.softmax(x, 0, dtype=minitorch.float64), np.exp([1, 2, 3]) / np.exp([1, 2, 3]).sum()
    )


def test_zero_dim_tensors(device):
    x = minitorch.tensor(2.5, device=device)
    assert x.sum().item() == 2.5 and x.sum().dim() == 0
    assert x.sum(0).item() == 2.5 and x.sum(-1, keepdim=True).dim() == 0
    assert x.amax().item() == 2.5
    assert x.max().item() == 2.5
    v, i = x.max(0)
    assert v.item() == 2.5 and i.item() == 0
    assert x.argmax().item() == 0
    assert x.softmax(0).item() == 1.0
    assert x.cumsum(0).item() == 2.5
    assert math.isnan(x.var().item())
    assert x.var(correction=0).item() == 0.0


def test_nan_propagates(device):
    x = minitorch.tensor([[1.0, float("nan"), 3.0], [4.0, 5.0, -1.0]], device=device)
    assert_matches(x.amax(1), [np.nan, 5.0])
    assert_matches(x.amin(1), [np.nan, -1.0])
    v, i = x.max(1)
    assert_matches(v, [np.nan, 5.0])
    assert i.tolist() == [1, 1]
    assert x.argmin(1).tolist() == [1, 2]
    assert math.isnan(x.sum().item())
    assert math.isnan(x.max().item())
    # reducing dim 0 of a contiguous matrix takes the column path
    assert_matches(x.amax(0), [4.0, np.nan, 3.0])
    assert_matches(x.amin(0), [1.0, np.nan, -1.0])
    assert_matches(x.sum(0), [5.0, np.nan, 2.0])
    v, i = x.max(0)
    assert_matches(v, [4.0, np.nan, 3.0])
    assert i.tolist() == [1, 0, 0]
    assert x.argmin(0).tolist() == [0, 0, 1]
    assert_matches(x.softmax(0).sum(0), [1.0, np.nan, 1.0])
    row = minitorch.tensor([0.0] * 999 + [float("nan")], device=device)
    assert math.isnan(row.amax().item()) and math.isnan(row.amin().item())
    assert row.argmax().item() == 999


# ---- all / any


@pytest.mark.parametrize("keepdim", [False, True])
@pytest.mark.parametrize("dim", [None, 0, -1, (0, 2)])
@pytest.mark.parametrize("dtype", [minitorch.bool, minitorch.float32, minitorch.int64, minitorch.uint8])
@pytest.mark.parametrize("layout", ["contiguous", "transposed", "stepped"])
def test_all_any(device, dtype, dim, keepdim, layout):
    rng = np.random.default_rng(1)
    t, a = make(SHAPE, dtype, device, layout, rng, low=0, high=1)
    out_dtype = minitorch.uint8 if dtype == minitorch.uint8 else minitorch.bool
    for op, ref in (("all", np.all), ("any", np.any)):
        got = getattr(minitorch, op)(t, dim, keepdim) if dim is not None else getattr(t, op)()
        exp = ref(a != 0, axis=np_axis(dim), keepdims=keepdim) if dim is not None else ref(a != 0)
        assert got.dtype == out_dtype
        assert np.array_equal(to_np(got).astype(bool), exp)


def test_all_any_values(device):
    z = minitorch.zeros(4, 5, device=device)
    assert not z.any().item() and not z.all().item()
    o = minitorch.ones(4, 5, device=device)
    assert o.all().item() and o.any().item()
    z2 = z.clone()
    z2.fill_(0.0)
    assert z.any(1).tolist() == [False] * 4


# ---- var / std


@pytest.mark.parametrize("correction", [0, 1, 2])
@pytest.mark.parametrize("dim", DIMS)
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
@pytest.mark.parametrize("layout", ["contiguous", "transposed", "stepped"])
def test_var_std(device, dtype, dim, correction, layout):
    rng = np.random.default_rng(2)
    t, a = make(SHAPE, dtype, device, layout, rng)
    for keepdim in (False, True):
        for op, ref in (("var", np.var), ("std", np.std)):
            got = getattr(minitorch, op)(t, dim, keepdim=keepdim, correction=correction)
            exp = ref(a, axis=np_axis(dim), ddof=correction, keepdims=keepdim)
            assert got.dtype == dtype
            assert_matches(got, exp, atol=TOL[dtype][0] * 4)


def test_var_unbiased_spellings(device):
    a = np.array([[1.0, 2.0, 4.0], [3.0, -1.0, 0.5]])
    t = minitorch.tensor(a, device=device)
    assert_matches(t.var(), np.var(a, ddof=1))
    assert_matches(t.std(unbiased=False), np.std(a))
    assert_matches(minitorch.std(t, False), np.std(a))
    assert_matches(minitorch.var(t, 1, True), np.var(a, axis=1, ddof=1))
    assert_matches(t.std(1, keepdim=True), np.std(a, axis=1, ddof=1, keepdims=True))
    assert_matches(t.var(dim=0, unbiased=False), np.var(a, axis=0))


def test_var_mean_std_mean(device):
    a = np.array([[1.0, 2.0, 4.0], [3.0, -1.0, 0.5]])
    t = minitorch.tensor(a, device=device)
    v, m = minitorch.var_mean(t, 1, keepdim=True)
    assert_matches(v, np.var(a, axis=1, ddof=1, keepdims=True))
    assert_matches(m, np.mean(a, axis=1, keepdims=True))
    s, m = minitorch.std_mean(t, correction=0)
    assert_matches(s, np.std(a))
    assert_matches(m, np.mean(a))


def test_var_mean_infinity_follows_welford(device):
    # PyTorch's var_mean/std_mean take the mean from a Welford pass on the CPU: an infinity followed by another
    # element makes the running mean inf - inf. The mean is inf only where the lone infinity comes last in
    # reduction order (measured against PyTorch 2.15 for rows of 2..5000 elements, dims 0, 1 and (0, 1)).
    if device == "cuda":
        pytest.skip(
            "the CUDA mean is the plain mean (PyTorch's CUDA Welford combines partials in thread order)"
        )
    inf, nan = np.inf, np.nan
    a = np.array([[1.0, inf, 2.0], [nan, 1.0, 2.0], [inf, inf, 1.0], [1.0, 2.0, 3.0], [1.0, 2.0, inf]])
    for fn in (minitorch.var_mean, minitorch.std_mean):
        _, m = fn(minitorch.tensor(a, device=device), 1)
        np.testing.assert_array_equal(m.numpy(), [nan, nan, nan, 2.0, inf])
        _, m = fn(minitorch.tensor(a.T.copy(), device=device), 0, keepdim=True)  # reduced dim first
        np.testing.assert_array_equal(m.numpy(), [[nan, nan, nan, 2.0, inf]])
    for n in (2, 9, 1000):
        for pos in (0, n // 2, n - 1):
            x = np.ones((2, n, 3))
            x[1, pos, 2] = inf
            _, m = minitorch.var_mean(minitorch.tensor(x, device=device), (0, 1))
            np.testing.assert_array_equal(m.numpy(), [1.0, 1.0, inf if pos == n - 1 else nan])
    # the plain mean stays the exact one
    assert minitorch.mean(minitorch.tensor(a[0], device=device)).item() == inf


def test_var_mean_complex(device):
    if device == "cuda":
        pytest.skip("complex reductions run on the CPU only")
    rng = np.random.default_rng(5)
    a = rng.standard_normal((3, 4)) + 1j * rng.standard_normal((3, 4))
    v, m = minitorch.var_mean(minitorch.tensor(a), 1)
    assert v.dtype == minitorch.float64 and m.dtype == minitorch.complex128
    np.testing.assert_allclose(v.numpy(), np.var(a, axis=1, ddof=1), rtol=1e-12)
    np.testing.assert_allclose(m.numpy(), np.mean(a, axis=1), rtol=1e-12)
    s, _ = minitorch.std_mean(minitorch.tensor(a), correction=0)
    np.testing.assert_allclose(s.item(), np.std(a), rtol=1e-12)
    with pytest.raises(NotImplementedError, match="var_mean only support floating point and complex dtypes"):
        minitorch.var_mean(minitorch.tensor([1, 2]))


def test_var_accuracy_large_offset(device):
    # two-pass variance: E[x^2] - E[x]^2 would lose every digit here
    rng = np.random.default_rng(3)
    a = 1e4 + rng.standard_normal(10_000)
    t = minitorch.tensor(a, dtype=minitorch.float32, device=device)
    exp = np.var(a.astype(np.float32).astype(np.float64), ddof=1)
    assert abs(t.var().item() - exp) / exp < 1e-3


# ---- norm


@pytest.mark.parametrize("p", [2, 1, math.inf, -math.inf, 0, 3, 0.5, "fro", None])
@pytest.mark.parametrize("dim", [None, 0, -1, (0, 2)])
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_norm(device, dtype, p, dim):
    rng = np.random.default_rng(4)
    t, a = make(SHAPE, dtype, device, "transposed", rng)
    a[0, 0, 0] = 0.0  # so p=0 counts something
    t = make_tensor(a, dtype, device, "transposed")
    x = np.abs(a)
    ax = np_axis(dim)
    pn = 2 if p in ("fro", None) else p
    for keepdim in (False, True):
        if pn == math.inf:
            exp = np.max(x, axis=ax, keepdims=keepdim)
        elif pn == -math.inf:
            exp = np.min(x, axis=ax, keepdims=keepdim)
        elif pn == 0:
            exp = np.sum(x != 0, axis=ax, keepdims=keepdim).astype(np.float64)
        else:
            exp = np.sum(x**pn, axis=ax, keepdims=keepdim) ** (1.0 / pn)
        got = (
            minitorch.norm(t, p, dim, keepdim) if p is not None else t.norm(dim=dim, keepdim=keepdim, p=None)
        )
        assert got.dtype == dtype
        assert_matches(got, exp, rtol=TOL[dtype][0] * 2)
    if p is not None and dim is None:
        assert_matches(t.norm(p), to_np(minitorch.norm(t, p=p)), rtol=0, atol=0)


@pytest.mark.parametrize("n", [0, 1, 15, 17, 2047, 2048, 4095, 4096, 4097, 6001, 65536, 70001])
@pytest.mark.parametrize("dtype", [minitorch.float32, minitorch.float64])
def test_long_row_norms_and_nansum_in_vectors(n, dtype):
    """The 1- and 2-norms and nansum of long rows map and sum in explicit vectors (16 bytes at the baseline,
    32 with AVX2): against float64 NumPy, with NaN, -0 and infinities in the row, whole, strided (a column of
    the transposed copy) and as rows of a matrix; the 1-norm and nansum are the sums of |x| and of x with NaN
    zeroed to the bit (the same lanes and order of adds)"""
    rng = np.random.default_rng(n)
    npt = np.float32 if dtype == minitorch.float32 else np.float64
    a = (rng.standard_normal(n) * rng.choice([1e-3, 1.0, 1e3], n)).astype(npt)
    if n > 16:
        a[rng.integers(0, n, 4)] = -0.0
    b = a.copy()
    if n > 16:
        b[rng.integers(0, n, 3)] = np.nan
    x, xn = minitorch.tensor(a), minitorch.tensor(b)
    tol = {"rtol": 1e-5 if dtype == minitorch.float32 else 1e-12, "atol": 0}
    ref = a.astype(np.float64)
    for got, want in [
        (minitorch.linalg.vector_norm(x), np.sqrt(np.sum(ref * ref))),
        (minitorch.linalg.vector_norm(x, 1), np.sum(np.abs(ref))),
        (minitorch.norm(x), np.sqrt(np.sum(ref * ref))),
        (minitorch.nansum(xn), np.nansum(b.astype(np.float64))),
    ]:
        assert got.dtype == dtype
        np.testing.assert_allclose(got.item(), want, **tol)
    assert minitorch.linalg.vector_norm(x, 1).item() == x.abs().sum().item()
    assert minitorch.nansum(xn).item() == minitorch.where(xn.isnan(), 0.0, xn).sum().item()
    # rows of a matrix, and strided ones (each row of the transpose is a column of the copy)
    m = np.stack([a, -a, a * 2]) if n else np.zeros((3, 0), npt)
    t = minitorch.tensor(m)
    for rows in (t, t.t().contiguous().t()):
        np.testing.assert_allclose(
            minitorch.linalg.vector_norm(rows, dim=1).numpy(),
            np.sqrt(np.sum(m.astype(np.float64) ** 2, axis=1)),
            **tol,
        )
        np.testing.assert_allclose(
            minitorch.linalg.vector_norm(rows, 1, dim=1).numpy(),
            np.sum(np.abs(m.astype(np.float64)), 1),
            **tol,
        )
    # special values: an infinity makes both norms inf, a NaN makes them NaN; nansum skips NaN only
    if n > 16:
        c = a.copy()
        c[n // 2] = -np.inf
        assert minitorch.linalg.vector_norm(minitorch.tensor(c)).item() == np.inf
        assert minitorch.linalg.vector_norm(minitorch.tensor(c), 1).item() == np.inf
        assert math.isnan(minitorch.linalg.vector_norm(xn).item())
        assert math.isnan(minitorch.linalg.vector_norm(xn, 1).item())
        c[n // 3] = np.nan
        assert minitorch.nansum(minitorch.tensor(c)).item() == -np.inf


def test_long_row_norms_and_nansum_baseline():
    """MINITORCH_CPU_CAPABILITY=default: the 16-byte vectors, the same tests in a fresh process."""
    rerun_in_child(__file__, "long_row_norms_and_nansum_in_vectors", MINITORCH_CPU_CAPABILITY="default")


def test_norm_default_is_frobenius(device):
    a = np.array([[3.0, 4.0], [0.0, 0.0]])
    t = minitorch.tensor(a, device=device)
    assert t.norm().item() == pytest.approx(5.0)
    assert t.norm(dtype=minitorch.float64).dtype == minitorch.float64
    assert minitorch.norm(t, dim=1).tolist() == pytest.approx([5.0, 0.0])


# ---- logsumexp


@pytest.mark.parametrize("dim", [0, -1, (0, 2), (0, 1, 2)])
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_logsumexp(device, dtype, dim):
    rng = np.random.default_rng(5)
    t, a = make(SHAPE, dtype, device, "stepped", rng)
    for keepdim in (False, True):
        m = np.max(a, axis=np_axis(dim), keepdims=True)
        exp = np.log(np.sum(np.exp(a - m), axis=np_axis(dim), keepdims=True)) + m
        if not keepdim:
            exp = np.squeeze(exp, axis=np_axis(dim))
        got = minitorch.logsumexp(t, dim, keepdim)
        assert got.dtype == dtype
        assert_matches(got, exp)
        assert_matches(t.logsumexp(dim, keepdim=keepdim), exp)


def test_logsumexp_stable_and_infinite(device):
    t = minitorch.tensor(
        [[1000.0, 1000.0], [-1000.0, -1000.0], [-math.inf, -math.inf], [math.inf, 1.0]], device=device
    )
    got = t.logsumexp(1)
    assert_matches(got, [1000.0 + math.log(2), -1000.0 + math.log(2), -math.inf, math.inf])
    assert minitorch.logsumexp(minitorch.tensor([1, 2, 3], device=device), 0).dtype == minitorch.float32


@pytest.mark.parametrize("dim", [0, -1, (0, 2)])
@pytest.mark.parametrize("dtype", [minitorch.complex64, minitorch.complex128])
def test_logsumexp_complex(device, dtype, dim):
    # PyTorch returns the complex principal log of the sum (a real-part shift keeps it finite)
    rng = np.random.default_rng(6)
    a = rng.uniform(-3, 3, (3, 4, 5)) + 1j * rng.uniform(-1.5, 1.5, (3, 4, 5))
    a[0, 0, 0] = 700 + 0.5j  # exp would overflow without the shift
    t = minitorch.tensor(a, dtype=dtype, device=device)
    for keepdim in (False, True):
        m = np.max(a.real, axis=np_axis(dim), keepdims=True)
        want = np.log(np.sum(np.exp(a - m), axis=np_axis(dim), keepdims=True)) + m
        if not keepdim:
            want = np.squeeze(want, axis=np_axis(dim))
        got = minitorch.logsumexp(t, dim, keepdim)
        assert got.dtype == dtype
        tol = 1e-5 if dtype == minitorch.complex64 else 1e-12
        np.testing.assert_allclose(got.cpu().numpy(), want, rtol=tol, atol=tol)
    # gradient: d/dz of a real loss through the principal log (gradcheck's Wirtinger convention)
    x = minitorch.tensor(a[1:, :2, :3] / 4, dtype=minitorch.complex128, device=device, requires_grad=True)
    assert minitorch.autograd.gradcheck(lambda z: minitorch.logsumexp(z, dim, False).abs(), (x,))


@pytest.mark.parametrize("dim", [0, (0, 1), -2, (0, 2)])
@pytest.mark.parametrize("dtype", [minitorch.float32, minitorch.float64])
def test_logsumexp_over_leading_dims(device, dtype, dim):
    """Tensors of 4096+ elements reduced over dims that leave the contiguous last dim alone take the
    max/exp/sum/log composition (ops/reduce.cpp); the row kernel serves the same values when the last dim is
    strided. Against float64 NumPy, with columns of +inf, all -inf, NaN and 1e30 (the shift keeps it finite)."""
    rng = np.random.default_rng(9)
    a = rng.standard_normal((6, 300, 7)) * 3
    a[:, 0, 0] = -np.inf
    a[2, 1, 1] = np.inf
    a[3, 2, 2] = np.nan
    a[:, 3, 3] = 1e30
    a[1, 4, 4] = -1e30
    np_dim = dim if isinstance(dim, tuple) else (dim,)
    with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
        m = np.max(a, axis=np_dim, keepdims=True)
        ms = np.where(np.isinf(m), 0.0, m)
        want = np.log(np.sum(np.exp(a - ms), axis=np_dim, keepdims=True)) + ms
    t = minitorch.tensor(a, dtype=dtype, device=device)
    strided = t.permute(2, 0, 1).contiguous().permute(1, 2, 0)  # the same values, last dim strided
    tol = {"rtol": 2e-6, "atol": 2e-6} if dtype == minitorch.float32 else {"rtol": 1e-12, "atol": 1e-12}
    for keepdim in (False, True):
        exp = want if keepdim else np.squeeze(want, axis=np_dim)
        for x in (t, strided):
            got = minitorch.logsumexp(x, dim, keepdim)
            assert got.dtype == dtype and tuple(got.shape) == exp.shape
            np.testing.assert_allclose(got.cpu().numpy(), exp, equal_nan=True, **tol)


@pytest.mark.parametrize("n", [8, 9, 15, 64, 257, 1000, 16384, 16385])
@pytest.mark.parametrize("dtype", [minitorch.float32, minitorch.float64])
def test_logsumexp_over_contiguous_rows(device, dtype, n):
    """Contiguous rows of 8 to 16384 elements run the vector path (the table's exp over the row; its max
    ignores NaN in the lanes, so a NaN beside +inf must still give NaN); longer ones the scalar loop. Every
    vector tail length, special values in the rows, against float64 NumPy."""
    rng = np.random.default_rng(n)
    a = rng.standard_normal((9, n)) * 20
    a[1, n // 2] = np.inf
    a[2, n - 1] = np.nan
    a[3, 0], a[3, n // 3] = np.nan, np.inf
    a[4, n // 2], a[4, 0] = np.inf, np.nan
    a[5] = -np.inf
    a[6] = -np.inf
    a[6, n - 1] = 3.0
    a[7, :] = 1e30
    a[8, 0] = 80.0  # float32's exp(x - max) of the others underflows: the max carries the result
    with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
        m = np.max(a, axis=1, keepdims=True)
        ms = np.where(np.isinf(m), 0.0, m)
        want = (np.log(np.sum(np.exp(a - ms), axis=1, keepdims=True)) + ms)[:, 0]
    t = minitorch.tensor(a, dtype=dtype, device=device)
    want = want.astype(np.float32).astype(np.float64) if dtype == minitorch.float32 else want
    tol = {"rtol": 2e-6, "atol": 2e-6} if dtype == minitorch.float32 else {"rtol": 1e-13, "atol": 1e-13}
    np.testing.assert_allclose(minitorch.logsumexp(t, 1).cpu().numpy(), want, equal_nan=True, **tol)
    np.testing.assert_allclose(t[:, None, :].logsumexp(-1)[:, 0].cpu().numpy(), want, equal_nan=True, **tol)


def test_logsumexp_rows_agree_across_cpu_paths():
    """float64 rows give the same values to rounding on the scalar path (MINITORCH_CPU_CAPABILITY=default) and
    on the best vector path this CPU has"""
    code = (
        "import minitorch, numpy as np; a = np.random.default_rng(3).standard_normal((40, 300)) * 9; "
        "print(repr(minitorch.logsumexp(minitorch.tensor(a), 1).numpy().tolist()))"
    )
    outs = []
    for cap in ("default", "avx512"):
        env = dict(os.environ, MINITORCH_CPU_CAPABILITY=cap)
        r = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
        outs.append(np.array(ast.literal_eval(r.stdout)))
    np.testing.assert_allclose(outs[0], outs[1], rtol=1e-14, atol=0)


# ---- max / min / argmax / argmin


@pytest.mark.parametrize("keepdim", [False, True])
@pytest.mark.parametrize("dim", [0, 1, -1])
@pytest.mark.parametrize("dtype", FLOAT_DTYPES + INT_DTYPES)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_max_min_dim(device, dtype, dim, keepdim, layout):
    rng = np.random.default_rng(6)
    t, a = make(SHAPE, dtype, device, layout, rng)
    for op, vref, iref in (("max", np.max, np.argmax), ("min", np.min, np.argmin)):
        res = getattr(minitorch, op)(t, dim, keepdim)
        values, indices = res
        assert res.values is values and res.indices is indices
        assert type(res).__name__ == op
        exp_i = iref(a, axis=dim)
        exp_v = vref(a, axis=dim)
        if keepdim:
            exp_i, exp_v = np.expand_dims(exp_i, dim), np.expand_dims(exp_v, dim)
        assert values.dtype == dtype and indices.dtype == minitorch.int64
        assert_matches(values, exp_v, rtol=0, atol=0)
        assert np.array_equal(to_np(indices), exp_i)  # first occurrence of ties, as NumPy and PyTorch
        method = getattr(t, op)(dim=dim, keepdim=keepdim)
        assert np.array_equal(to_np(method.indices), exp_i)
        arg = getattr(t, "arg" + op)(dim, keepdim)
        assert np.array_equal(to_np(arg), exp_i)


@pytest.mark.parametrize("dtype", FLOAT_DTYPES + INT_DTYPES)
@pytest.mark.parametrize("layout", ["contiguous", "transposed", "stepped"])
def test_argmax_flattens_and_whole_max(device, dtype, layout):
    rng = np.random.default_rng(7)
    t, a = make(SHAPE, dtype, device, layout, rng, low=-100, high=100)
    assert t.argmax().item() == np.argmax(a)  # index into the row-major flattening of the logical tensor
    assert minitorch.argmin(t).item() == np.argmin(a)
    assert minitorch.argmax(t, keepdim=True).shape == (1, 1, 1)
    assert t.max().item() == np.max(a) and t.max().dim() == 0
    assert minitorch.min(t).item() == np.min(a)


def test_max_with_tensor_is_maximum(device):
    a = minitorch.tensor([1.0, 5.0, 3.0], device=device)
    b = minitorch.tensor([4.0, 2.0, 3.5], device=device)
    assert minitorch.max(a, b).tolist() == [4.0, 5.0, 3.5]
    assert minitorch.min(a, b).tolist() == [1.0, 2.0, 3.0]
    assert a.max(b).tolist() == [4.0, 5.0, 3.5]
    assert minitorch.max(a, other=b).tolist() == [4.0, 5.0, 3.5]


def test_max_ties_first_index(device):
    t = minitorch.tensor([[2, 7, 7, 1], [3, 3, 0, 3]], device=device)
    assert t.max(1).indices.tolist() == [1, 0]
    assert t.min(1).indices.tolist() == [3, 2]
    assert t.argmax().item() == 1
    assert t.max(0).indices.tolist() == [1, 0, 0, 1]
    assert t.min(0).indices.tolist() == [0, 1, 1, 0]
    assert minitorch.full((3, 2), 5.0, device=device).max(0).indices.tolist() == [0, 0]


# ---- cumsum / cumprod


@pytest.mark.parametrize("dim", [0, 1, -1])
@pytest.mark.parametrize("dtype", FLOAT_DTYPES + INT_DTYPES + [minitorch.bool])
@pytest.mark.parametrize("layout", ["contiguous", "transposed", "stepped", "expanded"])
def test_cumsum_cumprod(device, dtype, dim, layout):
    rng = np.random.default_rng(8)
    t, a = make((3, 4, 5), dtype, device, layout, rng, low=-1.5, high=1.5)
    ref = a.astype(np.float64) if dtype in FLOAT_DTYPES else a.astype(np.int64)
    out_dtype = dtype if dtype in FLOAT_DTYPES else minitorch.int64
    for op, fn in (("cumsum", np.cumsum), ("cumprod", np.cumprod)):
        got = getattr(minitorch, op)(t, dim)
        assert got.dtype == out_dtype and got.is_contiguous()
        exp = fn(ref, axis=dim)
        atol = low_precision_atol(dtype, np.cumsum(np.abs(ref), axis=dim)) if op == "cumsum" else None
        assert_matches(got, exp, atol=atol)
        assert_matches(getattr(t, op)(dim), exp, atol=atol)
    assert minitorch.cumsum(t, 0, dtype=minitorch.float64).dtype == minitorch.float64


# ---- softmax / log_softmax


@pytest.mark.parametrize("dim", [0, 1, -1])
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
@pytest.mark.parametrize("layout", ["contiguous", "transposed", "stepped"])
def test_softmax(device, dtype, dim, layout):
    rng = np.random.default_rng(9)
    t, a = make(SHAPE, dtype, device, layout, rng, low=-10, high=10)
    e = np.exp(a - a.max(axis=dim, keepdims=True))
    sm = e / e.sum(axis=dim, keepdims=True)
    lsm = np.log(sm)
    got = minitorch.softmax(t, dim)
    assert got.dtype == dtype and got.shape == t.shape
    assert_matches(got, sm)
    assert_matches(t.softmax(dim), sm)
    assert_matches(minitorch.log_softmax(t, dim), lsm, atol=TOL[dtype][0] * 10)
    assert_matches(t.log_softmax(dim), lsm, atol=TOL[dtype][0] * 10)
    up = minitorch.softmax(t, dim, dtype=minitorch.float64)
    assert up.dtype == minitorch.float64
    assert_matches(up, sm, rtol=1e-10, atol=1e-12)


def test_softmax_stable(device):
    t = minitorch.tensor([[1000.0, 1000.0, -1000.0], [-1e4, 0.0, 1e4]], device=device)
    assert_matches(t.softmax(1), [[0.5, 0.5, 0.0], [0.0, 0.0, 1.0]])
    assert_matches(t.log_softmax(1), [[-math.log(2), -math.log(2), -2000.0 - math.log(2)], [-2e4, -1e4, 0.0]])
    h = minitorch.tensor([[60000.0, 60000.0]], dtype=minitorch.float16, device=device)
    assert_matches(h.softmax(-1), [[0.5, 0.5]])


# ---- empty tensors


def test_empty_reductions(device):
    e = minitorch.zeros(0, device=device)
    assert e.sum().item() == 0.0
    assert e.prod().item() == 1.0
    assert math.isnan(e.mean().item())
    assert e.all().item() is True and e.any().item() is False
    assert e.logsumexp(0).item() == -math.inf
    assert e.norm().item() == 0.0
    assert math.isnan(e.var().item())
    assert e.cumsum(0).shape == (0,)
    assert e.softmax(0).shape == (0,)
    m = minitorch.zeros(0, 3, device=device)
    assert m.sum(0).tolist() == [0.0, 0.0, 0.0]
    assert m.sum(1).shape == (0,)
    assert m.sum(1, keepdim=True).shape == (0, 1)
    assert m.amax(1).shape == (0,)
    assert m.max(1).values.shape == (0,)
    assert m.prod(0).tolist() == [1.0, 1.0, 1.0]
    assert minitorch.zeros(0, dtype=minitorch.int32, device=device).sum().dtype == minitorch.int64


def test_empty_errors(device):
    m = minitorch.zeros(0, 3, device=device)
    with pytest.raises(IndexError, match=r"max\(\): Expected reduction dim 0 to have non-zero size"):
        m.max(0)
    with pytest.raises(IndexError, match=r"amax\(\): Expected reduction dim 0 to have non-zero size"):
        m.amax(0)
    with pytest.raises(IndexError, match=r"argmin\(\): Expected reduction dim 0 to have non-zero size"):
        m.argmin(0)
    with pytest.raises(
        RuntimeError, match=r"max\(\): Expected reduction dim to be specified for input.numel\(\) == 0"
    ):
        m.max()
    with pytest.raises(IndexError, match=r"argmax\(\): Expected reduction dim to be specified"):
        m.argmax()  # an IndexError for argmax/argmin, a RuntimeError for max/min (PyTorch's checks)
    # over everything PyTorch asks for a dim first (RuntimeError); along an empty dim it is an IndexError
    with pytest.raises(RuntimeError, match=r"amin\(\): Expected reduction dim to be specified") as e:
        m.amin()
    assert type(e.value) is RuntimeError
    with pytest.raises(RuntimeError, match=r"amax\(\): Expected reduction dim to be specified"):
        m.amax(())


# ---- bad input


def test_errors(device):
    t = minitorch.ones(2, 3, device=device)
    with pytest.raises(
        IndexError, match=r"Dimension out of range \(expected to be in range of \[-2, 1\], but got 2\)"
    ):
        t.sum(2)
    with pytest.raises(IndexError, match="Dimension out of range"):
        minitorch.max(t, -3)
    with pytest.raises(IndexError, match="Dimension out of range"):
        t.softmax(5)
    with pytest.raises(IndexError, match="Dimension out of range"):
        t.cumsum(2)
    with pytest.raises(RuntimeError, match="dim 0 appears multiple times in the list of dims"):
        t.sum((0, -2))
    i = minitorch.tensor([1, 2, 3], device=device)
    # dtype refusals are PyTorch's NotImplementedError, in its words
    with pytest.raises(
        NotImplementedError,
        match=r"mean\(\): could not infer output dtype. Input dtype must be either a floating point or complex "
        r"dtype. Got: Long",
    ):
        i.mean()
    with pytest.raises(NotImplementedError, match="Optional dtype must be either a floating point"):
        t.mean(dtype=minitorch.int32)
    with pytest.raises(
        NotImplementedError, match="^std and var only support floating point and complex dtypes$"
    ):
        i.var()
    with pytest.raises(
        NotImplementedError, match="\"softmax_lastdim_kernel_impl\" not implemented for 'Long'"
    ):
        i.softmax(0)
    with pytest.raises(
        NotImplementedError, match="Expected a floating point or complex tensor as input. Got Long"
    ):
        i.norm()
    with pytest.raises(NotImplementedError, match=r"^argmax\(\): does not support bool input$"):
        minitorch.tensor([True, False], device=device).argmax()
    with pytest.raises(TypeError):
        t.sum(dim="x")


# ---- large inputs: the parallel path (row split and rows in parallel) and accumulation accuracy


def test_large_full_reductions(device):
    rng = np.random.default_rng(10)
    a = rng.standard_normal(200_003)
    for dtype in FLOAT_DTYPES:
        x = make_array((200_003,), dtype, rng)
        t = minitorch.tensor(x, dtype=dtype, device=device)
        atol = low_precision_atol(dtype, np.sqrt(x.size) * 3) if dtype != minitorch.float64 else 1e-9
        assert_matches(t.sum(), np.sum(x), atol=atol)
        assert_matches(t.mean(), np.mean(x), atol=atol / x.size + TOL[dtype][1])
        assert_matches(t.amax(), np.max(x), rtol=0, atol=0)
        assert_matches(t.amin(), np.min(x), rtol=0, atol=0)
        assert t.argmax().item() == np.argmax(x)
        assert_matches(t.norm(), np.linalg.norm(x), rtol=TOL[dtype][0] * 2)
        assert_matches(t.var(), np.var(x, ddof=1), rtol=TOL[dtype][0] * 2)
        assert_matches(t.logsumexp(0), np.log(np.sum(np.exp(x))), rtol=TOL[dtype][0] * 2)
    t = minitorch.tensor(a, device=device)
    assert (t > 10).any().item() is False and (t < 10).all().item() is True
    x = np.zeros(200_003, dtype=bool)
    x[-1] = True
    assert minitorch.tensor(x, device=device).any().item() is True
    assert minitorch.tensor(~x, device=device).all().item() is False
    ints = rng.integers(-1000, 1000, size=300_000)
    assert minitorch.tensor(ints, device=device).sum().item() == int(ints.sum())


@pytest.mark.parametrize(
    "shape,dim", [((400, 500), 1), ((400, 500), 0), ((2, 150_000), 1), ((150_000, 2), 0)]
)
def test_large_row_reductions(device, shape, dim):
    rng = np.random.default_rng(11)
    a = rng.standard_normal(shape).astype(np.float32).astype(np.float64)
    t = minitorch.tensor(a, dtype=minitorch.float32, device=device)
    atol = 1e-5 * math.sqrt(shape[dim]) * 4
    assert_matches(t.sum(dim), a.sum(axis=dim), atol=atol)
    assert_matches(t.amax(dim), a.max(axis=dim), rtol=0, atol=0)
    assert np.array_equal(to_np(t.argmin(dim)), a.argmin(axis=dim))
    assert_matches(t.std(dim), a.std(axis=dim, ddof=1))
    assert_matches(t.cumsum(dim), np.cumsum(a, axis=dim), atol=atol)
    e = np.exp(a - a.max(axis=dim, keepdims=True))
    assert_matches(t.softmax(dim), e / e.sum(axis=dim, keepdims=True))
    big = minitorch.tensor(a.T.copy(), dtype=minitorch.float32, device=device).T  # transposed: no copy needed
    assert_matches(big.sum(), a.sum(), atol=atol * 10)


@pytest.mark.parametrize("dtype", [minitorch.float16, minitorch.bfloat16, minitorch.float32])
def test_low_precision_accumulates_in_float(device, dtype):
    # 100k copies of 1.0: a half accumulator would stall at 2048, a bfloat16 one at 256
    n = 100_000
    t = minitorch.ones(n, dtype=dtype, device=device)
    assert t.sum(dtype=minitorch.float32).item() == n
    assert t.mean().item() == 1.0
    rng = np.random.default_rng(12)
    x = make_array((n,), dtype, rng, low=0.0, high=1.0)
    got = minitorch.tensor(x, dtype=dtype, device=device).mean().double().item()
    assert abs(got - x.mean()) <= TOL[dtype][0] * abs(x.mean())
    s = minitorch.tensor(x, dtype=dtype, device=device).sum(dtype=minitorch.float64).item()
    assert abs(s - x.sum()) <= 1e-6 * x.sum()


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_short_rows_sum_and_mean(device, dtype):
    """Many short contiguous rows (the CPU's row-at-a-time vector path, serial and parallel): every length around
    the 16 lanes and the 2048 block, against float64 NumPy at the float32 pairwise level; signed zeros as the
    long path gives them (an all -0 row sums to +0)."""
    rng = np.random.default_rng(31)
    for n in (1, 2, 5, 15, 16, 17, 31, 32, 33, 48, 64, 100, 2047, 2048):
        for rows in (1, 7, 3872 if n <= 64 else 40):
            a = rng.standard_normal((rows, n)).astype(dtype)
            t = minitorch.tensor(a, device=device)
            exact = a.astype(np.float64).sum(1)
            tol = 1e-6 if dtype == np.float32 else 1e-13
            scale = np.abs(a).astype(np.float64).sum(1)
            got = to_np(t.sum(1)).astype(np.float64)
            assert np.all(np.abs(got - exact) <= tol * scale + 1e-30), (n, rows)
            got = to_np(t.mean(1)).astype(np.float64)
            assert np.all(np.abs(got - exact / n) <= tol * scale / n + 1e-30), (n, rows)
            # the 1- and 2-norms take the same loop over their mapped values
            assert minitorch.equal(t.norm(1, 1), t.abs().sum(1)), (n, rows)
            got = to_np(t.norm(2, 1)).astype(np.float64)
            want = np.sqrt((a.astype(np.float64) ** 2).sum(1))
            assert np.all(np.abs(got - want) <= tol * want + 1e-30), (n, rows)
    z = minitorch.tensor(np.full((9, 20), -0.0, dtype=dtype), device=device).sum(1)
    assert np.all(
        np.signbit(to_np(z)) == np.signbit(to_np(minitorch.tensor(np.full(20, -0.0, dtype=dtype)).sum()))
    )
    assert to_np(minitorch.tensor(np.zeros((5, 0), dtype=dtype), device=device).sum(1)).tolist() == [0.0] * 5


def test_float32_sum_accuracy(device):
    # float32 sum of 1e6 values is within NumPy-pairwise-level error of the exact (float64) sum
    rng = np.random.default_rng(13)
    x = rng.uniform(0, 1, 1_000_000).astype(np.float32)
    got = minitorch.tensor(x, device=device).sum().item()
    exact = x.astype(np.float64).sum()
    assert abs(got - exact) / exact < 1e-6


def _blocked_sum_reference(a):
    """The CPU sum of one long float row, emulated in NumPy: blocks of 2048 elements, each in 16 lanes of the
    dtype (lane j adds elements j, j + 16, ... in order), folded lane j + w into lane j for w = 8, 4, 2, 1, the
    elements past the last whole 16 added apart; the blocks' sums enter a float64 total in order."""
    t = a.dtype.type
    total = 0.0
    for b0 in range(0, len(a), 2048):
        q = a[b0 : b0 + 2048]
        m = len(q) - len(q) % 16
        tail = t(0)
        for v in q[m:]:
            tail = t(tail + v)
        if m == 0:
            total += 0.0 + float(tail)
            continue
        acc = np.zeros(16, a.dtype) + q[:16]
        for i in range(16, m, 16):
            acc = acc + q[i : i + 16]
        for w in (8, 4, 2, 1):
            acc[:w] = acc[:w] + acc[w : 2 * w]
        total += float(acc[0]) + float(tail)
    return t(total)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("n", [2048 * 2 + 5, 2048 * 4, 2048 * 7 + 16, 2048 * 9 + 31, 1 << 20])
def test_long_sum_bits_are_the_blocked_lanes(dtype, n):
    """A long row's sum (one thread) is the blocked lanes' result to the bit, whatever number of blocks the
    kernel runs at once (four, two, or one), at every instruction set the build picks."""
    rng = np.random.default_rng(n)
    a = (rng.standard_normal(n) * rng.choice([1e-4, 1.0, 1e4], n)).astype(dtype)
    old = minitorch.get_num_threads()
    minitorch.set_num_threads(1)
    try:
        got = minitorch.tensor(a).sum().item()
    finally:
        minitorch.set_num_threads(old)
    want = _blocked_sum_reference(a)
    assert got == float(want), (got, float(want))


@pytest.mark.parametrize("dtype", [minitorch.float32, minitorch.float64])
@pytest.mark.parametrize("op", ["sum", "mean"])
@pytest.mark.parametrize(
    "shape,dims",
    [
        ((16, 8, 28, 28), (0, 2, 3)),
        ((16, 1, 8, 1, 30), (0, 2, 4)),
        ((5, 4, 3, 2, 6), (0, 1, 3, 4)),
        ((6, 7, 9), (0, 2)),
    ],
)
@pytest.mark.parametrize("keepdim", [False, True])
def test_split_reduced_blocks(device, dtype, op, shape, dims, keepdim):
    # reduced dims in two blocks around kept ones (a bias gradient's (0, 2, 3)): float sums and means go
    # through a partial result per trailing block; float32 stays within a few roundings of the float64 truth
    rng = np.random.default_rng(15)
    x = rng.uniform(0, 1, shape)
    t = minitorch.tensor(x, dtype=dtype, device=device)
    got = getattr(t, op)(dims, keepdim=keepdim)
    ref = getattr(x.astype(np.float32) if dtype == minitorch.float32 else x, op)(
        dims, dtype=np.float64, keepdims=keepdim
    )
    assert got.dtype == dtype and tuple(got.shape) == ref.shape
    np.testing.assert_allclose(to_np(got), ref, rtol=2e-6 if dtype == minitorch.float32 else 1e-13)


def test_thread_count_independent_semantics(device):
    rng = np.random.default_rng(14)
    x = rng.standard_normal(300_000)
    t = minitorch.tensor(x, device=device)
    n = minitorch.get_num_threads()
    try:
        results = []
        for k in (1, 2, 3):
            minitorch.set_num_threads(k)
            results.append(t.sum().item())
            assert t.argmax().item() == np.argmax(x)
    finally:
        minitorch.set_num_threads(n)
    assert max(results) - min(results) < 1e-9
    assert results[0] == pytest.approx(x.sum(), abs=1e-9)


@pytest.mark.parametrize("op", ["sum", "mean", "amax", "prod", "var", "norm", "logsumexp"])
def test_permuted_input_every_dim_subset(device, op):
    # a permuted (dense, non-contiguous) input is read in place for every reduced block; results are fresh tensors
    rng = np.random.default_rng(15)
    base = rng.uniform(0.5, 1.5, size=(4, 5, 6))
    t = minitorch.tensor(base, device=device).permute(2, 0, 1)
    a = base.transpose(2, 0, 1)
    refs = {
        "sum": np.sum,
        "mean": np.mean,
        "amax": np.max,
        "prod": np.prod,
        "var": lambda x, axis, keepdims: np.var(x, axis=axis, ddof=1, keepdims=keepdims),
        "norm": lambda x, axis, keepdims: np.sqrt(np.sum(x * x, axis=axis, keepdims=keepdims)),
        "logsumexp": lambda x, axis, keepdims: np.log(np.sum(np.exp(x), axis=axis, keepdims=keepdims)),
    }
    for r in (1, 2, 3):
        for dims in itertools.combinations(range(3), r):
            for keepdim in (False, True):
                if op == "norm":
                    got = t.norm(2, dim=dims, keepdim=keepdim)  # "fro" over 3 dims is matrix_norm's error
                elif op == "prod":  # PyTorch's prod takes one int dim: the last first
                    got = t
                    for d in reversed(dims):
                        got = got.prod(d, keepdim=keepdim)
                else:
                    got = getattr(t, op)(dims, keepdim=keepdim)
                assert got.is_contiguous()
                assert_matches(got, refs[op](a, axis=dims, keepdims=keepdim))


# ---- shapes where the CUDA kernels change strategy: rows shorter and longer than a warp or a block, long rows
# split across blocks and merged by a second pass, reductions along a middle dim (inner > 1) with few outputs,
# rows that start off 16-byte alignment. They run on the CPU too, as a second check of the same semantics.


def on_device(t, device):
    assert t.device.type == device, f"result on {t.device}, input on {device}"
    return t


@pytest.mark.parametrize("row", [1, 3, 33, 1000, 5000])
@pytest.mark.parametrize("outer", [1, 7, 300])
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_row_lengths(device, dtype, outer, row):
    rng = np.random.default_rng(20)
    a = make_array((outer, row), dtype, rng)
    t = minitorch.tensor(a, dtype=dtype, device=device)
    atol = low_precision_atol(dtype, np.sum(np.abs(a), axis=1))
    assert_matches(on_device(t.sum(1), device), a.sum(axis=1), atol=atol)
    assert_matches(t.mean(1), a.mean(axis=1), atol=atol / row + TOL[dtype][1])
    assert_matches(t.amax(1), a.max(axis=1), rtol=0, atol=0)
    assert_matches(t.amin(1), a.min(axis=1), rtol=0, atol=0)
    # low-precision data has many ties: the first position must win
    v, i = t.max(1)
    assert_matches(v, a.max(axis=1), rtol=0, atol=0)
    assert np.array_equal(to_np(on_device(i, device)), a.argmax(axis=1))
    assert np.array_equal(to_np(t.argmin(1)), a.argmin(axis=1))
    correction = 1 if row > 1 else 0
    assert_matches(t.var(1, correction=correction), a.var(axis=1, ddof=correction), atol=TOL[dtype][0] * 4)
    assert_matches(t.std(1, correction=correction), a.std(axis=1, ddof=correction), atol=TOL[dtype][0] * 4)
    assert_matches(t.norm(dim=1), np.linalg.norm(a, axis=1), rtol=TOL[dtype][0] * 2)
    assert_matches(t.norm(p=1, dim=1), np.abs(a).sum(axis=1), rtol=TOL[dtype][0] * 2)
    assert_matches(t.norm(p=math.inf, dim=1), np.abs(a).max(axis=1), rtol=0, atol=0)
    m = a.max(axis=1, keepdims=True)
    lse = np.log(np.exp(a - m).sum(axis=1, keepdims=True)) + m
    assert_matches(t.logsumexp(1), lse[:, 0])
    assert_matches(on_device(t.softmax(1), device), np.exp(a - lse))
    assert_matches(t.log_softmax(1), a - lse, atol=TOL[dtype][0] * 10)
    assert_matches(on_device(t.cumsum(1), device), np.cumsum(a, axis=1), atol=atol)
    near_one = make_array((outer, row), dtype, rng, low=0.99, high=1.01)
    assert_matches(
        minitorch.tensor(near_one, dtype=dtype, device=device).cumprod(1), np.cumprod(near_one, axis=1)
    )
    # a float product collects one rounding per factor (PyTorch's CUDA prod accumulates float32 in float32)
    prod_rtol = max(TOL[dtype][0], 1e-4)
    assert_matches(
        minitorch.tensor(near_one, dtype=dtype, device=device).prod(1),
        np.prod(near_one, axis=1),
        rtol=prod_rtol,
    )
    # all/any: mostly true rows with a few zeros
    b = rng.random((outer, row)) > 1.0 / row
    tb = minitorch.tensor(b, device=device)
    assert np.array_equal(to_np(tb.all(1)), b.all(axis=1)) and np.array_equal(to_np(tb.any(1)), b.any(axis=1))
    assert np.array_equal(to_np((~tb).any(1)), (~b).any(axis=1))


@pytest.mark.parametrize("row", [3, 33, 1000, 5000])
@pytest.mark.parametrize("dtype", INT_DTYPES + [minitorch.bool])
def test_row_lengths_integers(device, dtype, row):
    rng = np.random.default_rng(21)
    a = make_array((5, row), dtype, rng, low=-50, high=50)
    t = minitorch.tensor(a, dtype=dtype, device=device)
    ref = a.astype(np.int64)
    assert to_np(t.sum(1)).tolist() == ref.sum(axis=1).tolist()
    assert to_np(t.cumsum(1)).tolist() == np.cumsum(ref, axis=1).tolist()
    assert np.array_equal(to_np(t.amax(1)), a.max(axis=1))
    assert np.array_equal(to_np(t.amin(1)), a.min(axis=1))
    assert np.array_equal(to_np(t.max(1).indices), a.argmax(axis=1))
    assert np.array_equal(to_np(t.min(1).indices), a.argmin(axis=1))
    assert np.array_equal(to_np(t.any(1)), (a != 0).any(axis=1))
    assert np.array_equal(to_np(t.all(1)), (a != 0).all(axis=1))


def test_full_reductions_million(device):
    # one huge row: split over many blocks and merged by a second pass on the GPU
    n = 1_000_003
    rng = np.random.default_rng(22)
    x = rng.standard_normal(n).astype(np.float32).astype(np.float64)
    x[[10, 900_000]] = 7.5  # tied maximum: the first wins
    x[[20, 800_000]] = -7.5
    t = minitorch.tensor(x, dtype=minitorch.float32, device=device)
    assert_matches(on_device(t.sum(), device), x.sum(), atol=1e-5 * math.sqrt(n) * 4)
    assert_matches(t.mean(), x.mean(), atol=1e-6)
    assert t.amax().item() == 7.5 and t.amin().item() == -7.5
    assert t.argmax().item() == 10 and t.argmin().item() == 20
    assert_matches(t.var(), x.var(ddof=1), rtol=1e-5)
    assert_matches(t.std(correction=0), x.std(), rtol=1e-5)
    assert_matches(t.norm(), np.linalg.norm(x), rtol=1e-5)
    assert_matches(t.norm(p=0), float(np.count_nonzero(x)))
    assert_matches(t.logsumexp(0), np.log(np.exp(x).sum()), rtol=1e-5)
    assert (t > 100).any().item() is False and (t < 100).all().item() is True
    assert_matches(t.softmax(0).sum(), 1.0, rtol=1e-4)
    assert_matches(t.cumsum(0)[-1:], [x.sum()], atol=1e-5 * math.sqrt(n) * 4)
    # NaN beats everything, wherever it is; the first NaN wins
    x[[777_777, 999_999]] = np.nan
    t = minitorch.tensor(x, dtype=minitorch.float32, device=device)
    assert math.isnan(t.amax().item()) and math.isnan(t.amin().item()) and math.isnan(t.sum().item())
    assert t.argmax().item() == 777_777 and t.argmin().item() == 777_777
    # exact integer sums (int64 partials) and a single True at the end
    ints = rng.integers(-(10**12), 10**12, size=n)
    assert minitorch.tensor(ints, device=device).sum().item() == int(ints.sum())
    flags = np.zeros(n, dtype=bool)
    flags[-1] = True
    assert minitorch.tensor(flags, device=device).any().item() is True
    assert minitorch.tensor(~flags, device=device).all().item() is False
    assert minitorch.tensor(flags, device=device).sum().item() == 1


@pytest.mark.parametrize(
    "shape,dim", [((8192, 64), 0), ((3, 5000, 7), 1), ((100_000, 3), 0), ((2, 33, 1000), 1), ((5, 4, 300), 0)]
)
def test_middle_dim_long_rows(device, shape, dim):
    # inner > 1: threads on the contiguous columns; few outputs and a long row split the row across blocks
    rng = np.random.default_rng(23)
    a = make_array(shape, minitorch.float32, rng)
    t = minitorch.tensor(a, dtype=minitorch.float32, device=device)
    n = shape[dim]
    atol = 1e-5 * math.sqrt(n) * 4
    assert_matches(on_device(t.sum(dim), device), a.sum(axis=dim), atol=atol)
    assert_matches(t.mean(dim), a.mean(axis=dim), atol=atol / n + 1e-6)
    assert_matches(t.amax(dim), a.max(axis=dim), rtol=0, atol=0)
    assert_matches(t.amin(dim), a.min(axis=dim), rtol=0, atol=0)
    assert_matches(t.var(dim), a.var(axis=dim, ddof=1))
    assert_matches(t.norm(dim=dim), np.linalg.norm(a, axis=dim), rtol=2e-5)
    m = a.max(axis=dim, keepdims=True)
    lse = np.log(np.exp(a - m).sum(axis=dim, keepdims=True)) + m
    assert_matches(t.logsumexp(dim), np.squeeze(lse, axis=dim))
    assert_matches(on_device(t.softmax(dim), device), np.exp(a - lse))
    assert_matches(t.log_softmax(dim), a - lse, atol=1e-4)
    assert_matches(t.cumsum(dim), np.cumsum(a, axis=dim), atol=atol)
    near_one = make_array(shape, minitorch.float32, rng, low=0.999, high=1.001)
    tn = minitorch.tensor(near_one, dtype=minitorch.float32, device=device)
    assert_matches(tn.prod(dim), np.prod(near_one, axis=dim), rtol=1e-4)
    assert_matches(tn.cumprod(dim), np.cumprod(near_one, axis=dim), rtol=1e-4)
    # few distinct integers: many ties, across the blocks that share a column
    ints = rng.integers(0, 6, size=shape)
    ti = minitorch.tensor(ints, device=device)
    assert np.array_equal(to_np(on_device(ti.argmax(dim), device)), ints.argmax(axis=dim))
    assert np.array_equal(to_np(ti.min(dim).indices), ints.argmin(axis=dim))
    assert np.array_equal(to_np(ti.max(dim).values), ints.max(axis=dim))
    assert np.array_equal(to_np(ti.sum(dim)), ints.sum(axis=dim))
    assert np.array_equal(to_np((ti > 0).all(dim)), (ints > 0).all(axis=dim))
    assert np.array_equal(to_np((ti > 4).any(dim)), (ints > 4).any(axis=dim))


@pytest.mark.parametrize("dtype", [minitorch.float16, minitorch.bfloat16])
def test_low_precision_long_rows_accumulate_in_float(device, dtype):
    # against float64 NumPy: only the output's rounding may show (a half accumulator stalls at 2048)
    rng = np.random.default_rng(24)
    a = make_array((4, 100_000), dtype, rng, low=0.0, high=1.0)
    rt = TOL[dtype][0]
    for t, dim in (
        (minitorch.tensor(a, dtype=dtype, device=device), 1),
        (minitorch.tensor(np.ascontiguousarray(a.T), dtype=dtype, device=device), 0),  # inner > 1
    ):
        assert_matches(t.mean(dim), a.mean(axis=1), rtol=rt, atol=0)
        assert_matches(t.sum(dim, dtype=minitorch.float32), a.sum(axis=1), rtol=1e-5, atol=0)
        assert_matches(t.norm(dim=dim), np.linalg.norm(a, axis=1), rtol=rt, atol=0)
        assert_matches(t.var(dim), a.var(axis=1, ddof=1), rtol=rt * 2, atol=0)
        assert_matches(t.logsumexp(dim), np.log(np.exp(a).sum(axis=1)), rtol=rt, atol=0)
        assert_matches(t.softmax(dim).sum(dim, dtype=minitorch.float64), np.ones(4), rtol=rt * 4, atol=0)
        assert_matches(t.cumsum(dim).select(dim, -1), a.sum(axis=1), rtol=rt, atol=0)
    whole = minitorch.tensor(a, dtype=dtype, device=device)
    assert_matches(whole.mean(), a.mean(), rtol=rt, atol=0)


def test_misaligned_and_strided_rows(device):
    # row starts off 16-byte alignment (a slice at offset 1, odd row lengths) and non-contiguous inputs
    rng = np.random.default_rng(25)
    for dtype in (minitorch.float32, minitorch.float16, minitorch.float64, minitorch.int64):
        base = make_array((5 * 1001 + 1,), dtype, rng)
        t = minitorch.tensor(base, dtype=dtype, device=device).as_strided((5, 1001), (1001, 1), 1)
        a = base[1:].reshape(5, 1001)
        ref = a.astype(np.int64) if dtype == minitorch.int64 else a
        atol = low_precision_atol(dtype, np.abs(a).sum(axis=1)) if dtype != minitorch.int64 else 0
        assert_matches(t.sum(1), ref.sum(axis=1), atol=atol)
        assert_matches(t.amax(1), a.max(axis=1), rtol=0, atol=0)
        assert np.array_equal(to_np(t.argmin(1)), a.argmin(axis=1))
        assert_matches(
            t.sum(),
            ref.sum(),
            atol=None if dtype == minitorch.int64 else low_precision_atol(dtype, np.abs(a).sum()),
        )
        if dtype != minitorch.int64:
            e = np.exp(a - a.max(axis=1, keepdims=True))
            assert_matches(t.softmax(1), e / e.sum(axis=1, keepdims=True))
    # a transposed long matrix (read in place), and every other column of one (copied)
    a = make_array((3000, 40), minitorch.float32, rng)
    t = minitorch.tensor(a, device=device, dtype=minitorch.float32)
    assert_matches(t.T.sum(1), a.sum(axis=0), atol=1e-3)
    assert_matches(t.T.amax(), a.max(), rtol=0, atol=0)
    assert np.array_equal(to_np(t[:, ::2].argmax(0)), a[:, ::2].argmax(axis=0))
    assert_matches(t[:, ::2].softmax(0), np.exp(a[:, ::2]) / np.exp(a[:, ::2]).sum(axis=0))
    assert_matches(t[::3].cumsum(0), np.cumsum(a[::3], axis=0), atol=1e-3)


def test_empty_and_degenerate_shapes(device):
    for shape, dim in (((3, 0), 1), ((0, 5), 1), ((0, 5), 0), ((2, 0, 3), 1)):
        z = minitorch.zeros(shape, device=device)
        assert z.cumsum(dim).shape == shape and z.cumprod(dim).shape == shape
        assert z.softmax(dim).shape == shape and z.log_softmax(dim).shape == shape
        exp_shape = tuple(s for i, s in enumerate(shape) if i != dim)
        assert on_device(z.sum(dim), device).shape == exp_shape
        assert_matches(z.sum(dim), np.zeros(exp_shape))
        assert_matches(z.prod(dim), np.ones(exp_shape))
        assert_matches(z.logsumexp(dim), np.full(exp_shape, -np.inf))
        assert_matches(
            z.mean(dim), np.zeros(shape).mean(axis=dim) if shape[dim] else np.full(exp_shape, np.nan)
        )
        assert np.array_equal(to_np(z.all(dim)), np.ones(exp_shape, dtype=bool))
        assert np.array_equal(to_np(z.any(dim)), np.zeros(exp_shape, dtype=bool))
    # size-1 dims reduced and kept
    o = minitorch.tensor(np.arange(6.0).reshape(1, 6, 1), device=device)
    assert_matches(o.sum((0, 2)), np.arange(6.0))
    assert o.argmax(1).tolist() == [[5]]
    assert_matches(o.softmax(0), np.ones((1, 6, 1)))
    assert_matches(o.cumsum(2), np.arange(6.0).reshape(1, 6, 1))


def test_softmax_infinities_long_rows(device):
    # rows long enough for a block per row: an all -inf row gives NaN (as PyTorch), -inf entries give 0
    row = np.zeros(5000)
    row[::2] = -np.inf
    rows = np.stack([row, np.full(5000, -np.inf), np.linspace(-50, 50, 5000)])
    t = minitorch.tensor(rows, dtype=minitorch.float32, device=device)
    sm = to_np(t.softmax(1))
    assert np.all(sm[0, ::2] == 0) and np.allclose(sm[0, 1::2], 1 / 2500, rtol=1e-5)
    assert np.all(np.isnan(sm[1]))
    e = np.exp(rows[2] - 50)
    assert np.allclose(sm[2], e / e.sum(), rtol=1e-5, atol=1e-8)
    lse = to_np(t.logsumexp(1))
    assert lse[1] == -np.inf and np.isclose(lse[0], math.log(2500), rtol=1e-6)


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=["float32", "float64"])
@pytest.mark.parametrize("log", [False, True])
def test_softmax_middle_dim_columns(device, log, dtype):
    """Softmax over a dim with columns after it runs across the columns (on AVX2/AVX-512 a vector kernel over
    strips of columns): every column count's tail, several row counts, NaN, +inf and all -inf columns (NaN, as
    PyTorch), against a long-double reference."""
    rng = np.random.default_rng(26)
    tol = 2e-6 if dtype == np.float32 else 4e-15
    for rows in (1, 2, 3, 70):
        for n in (1, 2, 5, 7, 8, 9, 16, 17, 31, 40, 100):
            a = rng.uniform(-20, 20, size=(2, rows, n)).astype(dtype)
            special = []
            if n >= 4:
                a[0, rows // 2, 1] = np.nan
                a[1, rows - 1, 2] = np.inf
                a[0, :, 3] = -np.inf
                special = [(0, 1), (1, 2), (0, 3)]
            t = minitorch.tensor(a, device=device)
            got = to_np(t.log_softmax(1) if log else t.softmax(1))
            r = a.astype(np.longdouble)
            with np.errstate(invalid="ignore"):
                e = np.exp(r - r.max(axis=1, keepdims=True))
                exp = np.log(e / e.sum(axis=1, keepdims=True)) if log else e / e.sum(axis=1, keepdims=True)
            for b, j in special:
                assert np.all(np.isnan(got[b, :, j])), (rows, n, b, j)
                exp[b, :, j] = got[b, :, j]
            np.testing.assert_allclose(got, exp.astype(np.float64), rtol=tol, atol=tol)


def test_softmax_middle_dim_same_bits_any_split(device):
    """A column's softmax does not depend on the strip or thread that computes it: a narrowed copy and one
    thread or two give the same bits as the whole matrix."""
    a = np.random.default_rng(27).standard_normal((1000, 600)).astype(np.float32)
    t = minitorch.tensor(a, device=device)
    for fn in ("softmax", "log_softmax"):
        whole = to_np(getattr(t, fn)(0))
        part = to_np(getattr(t[:, 5:300].contiguous(), fn)(0))
        assert np.array_equal(whole[:, 5:300], part)
        old = minitorch.get_num_threads()
        try:
            for n in (1, 2):
                minitorch.set_num_threads(n)
                assert np.array_equal(to_np(getattr(t, fn)(0)), whole)
        finally:
            minitorch.set_num_threads(old)


def test_softmax_middle_dim_baseline():
    """MINITORCH_CPU_CAPABILITY=default: the scalar column path, the same tests in a fresh process."""
    rerun_in_child(__file__, "softmax_middle_dim and not baseline", MINITORCH_CPU_CAPABILITY="default")


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=["float32", "float64"])
@pytest.mark.parametrize("log", [False, True])
def test_softmax_every_row_length(device, log, dtype):
    # float32 and float64 rows take a whole-row vector kernel on AVX2/AVX-512 CPUs: every tail length, a NaN,
    # an inf; float64 against a long-double reference
    rng = np.random.default_rng(21)
    tol = 2e-6 if dtype == np.float32 else 4e-15
    for n in range(1, 41):
        a = rng.uniform(-20, 20, size=(3, n)).astype(dtype)
        a[1, n // 2] = np.nan
        a[2, n - 1] = np.inf
        t = minitorch.tensor(a, device=device)
        got = to_np(t.log_softmax(1) if log else t.softmax(1))
        r = a[0].astype(np.longdouble)
        e = np.exp(r - r.max())
        exp = (np.log(e / e.sum()) if log else e / e.sum()).astype(np.float64)
        np.testing.assert_allclose(got[0], exp, rtol=tol, atol=tol)
        assert np.all(np.isnan(got[1]))
        # +inf: x - max is NaN there (inf - inf), so the sum and the whole row are NaN, as in PyTorch
        assert np.all(np.isnan(got[2]))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_long_row_extrema_and_product_vector_paths(dtype):
    # amax/amin run four vector accumulators (AVX2: 32-byte vectors) and prod 32 chains: a NaN anywhere, the
    # extreme in the tail past the last full step, lengths that are not a multiple of the step
    rng = np.random.default_rng(7)
    for n in (1, 31, 257, 4099, 70001):
        v = rng.uniform(0.999, 1.001, n).astype(dtype)  # (the product stays in range)
        v[-1] = 7.0
        t = minitorch.from_numpy(v.copy())
        assert minitorch.amax(t).item() == 7.0 and minitorch.amin(t).item() == v.min()
        mn, mx = minitorch.aminmax(t)
        assert (mn.item(), mx.item()) == (v.min(), 7.0)
        np.testing.assert_allclose(minitorch.prod(t).item(), np.prod(v.astype(np.float64)), rtol=1e-5)
        for at in {0, n // 2, n - 1}:
            w = v.copy()
            w[at] = np.nan
            tw = minitorch.from_numpy(w)
            assert np.isnan(minitorch.amax(tw).item()) and np.isnan(minitorch.amin(tw).item())


@pytest.mark.parametrize("dtype", ALL_DTYPES + [minitorch.complex64, minitorch.complex128])
def test_equal_in_place_compare(device, dtype):
    # equal of two contiguous tensors of one dtype compares in place with an early exit (ops/reduce.cpp): a
    # difference anywhere (the first element, past the first short block, the last), values not bits (-0 == 0,
    # NaN != NaN), and the composite's answer for views and mixed dtypes
    rng = np.random.default_rng(3)
    n = 3000
    a = (rng.random(n) < 0.5) if dtype == minitorch.bool else rng.integers(1, 100, n)
    x = minitorch.tensor(a, device=device).to(dtype)
    assert minitorch.equal(x, x.clone()) and minitorch.equal(x[:0], x[:0].clone())
    for at in (0, 15, 16, 1039, 1040, n - 1):
        y = x.clone()
        y[at] = 0 if dtype != minitorch.bool else not bool(x[at].item())
        assert not minitorch.equal(x, y) and not minitorch.equal(y, x)
    assert not minitorch.equal(x, x[:-1].clone())  # the sizes differ
    assert minitorch.equal(x[::2], x.clone()[::2])  # views: the composite
    if dtype in FLOAT_DTYPES or dtype in (minitorch.complex64, minitorch.complex128):
        z = minitorch.zeros(40, dtype=dtype, device=device)
        assert minitorch.equal(z, minitorch.neg(z))  # -0 == 0
        w = z.clone()
        w[20] = math.nan
        assert not minitorch.equal(w, w) and not minitorch.equal(w, w.clone())
    if dtype == minitorch.int64:
        assert minitorch.equal(x, x.to(minitorch.float64))  # mixed dtypes compare as values, as PyTorch


@pytest.mark.parametrize("dtype", [minitorch.float32, minitorch.float64, minitorch.int64, minitorch.bool])
def test_equal_of_strided_layouts(device, dtype):
    # two tensors of one dense layout (both transposed, both permuted) compare their memory in place; other
    # layouts (a transposed against a contiguous one, a strided view) in growing slabs along dim 0: a
    # difference anywhere, in every layout pairing, and equal tensors found equal
    rng = np.random.default_rng(5)
    a = rng.random((6, 70, 90)) < 0.5 if dtype == minitorch.bool else rng.integers(1, 100, (6, 70, 90))
    x = minitorch.tensor(a, device=device).to(dtype)
    layouts = {
        "contiguous": lambda t: t,
        "transposed": lambda t: t.transpose(1, 2).contiguous().transpose(1, 2),
        "permuted": lambda t: t.permute(2, 0, 1).contiguous().permute(1, 2, 0),
        "strided": lambda t: minitorch.stack([t, t], -1)[..., 0],
    }
    for la, fa in layouts.items():
        for lb, fb in layouts.items():
            assert minitorch.equal(fa(x.clone()), fb(x.clone())), (la, lb)
            for at in ((0, 0, 0), (0, 0, 1), (0, 1, 0), (2, 33, 44), (5, 69, 89), (5, 0, 89)):
                y = x.clone()
                y[at] = 0 if dtype != minitorch.bool else not bool(x[at].item())
                assert not minitorch.equal(fa(x.clone()), fb(y)), (la, lb, at)
                assert not minitorch.equal(fa(y), fb(x.clone())), (la, lb, at)
    if dtype.is_floating_point:
        w = layouts["transposed"](minitorch.zeros(3, 40, 50, dtype=dtype, device=device))
        assert minitorch.equal(w, minitorch.neg(w))  # -0 == 0
        w[1, 2, 3] = math.nan
        assert not minitorch.equal(w, w)
