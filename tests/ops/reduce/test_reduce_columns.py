"""Reductions along an outer or middle dim (the CPU's column kernel: columns held in vector registers down the
rows) against float64 NumPy: sum, mean, nansum, prod, amax, amin of float32 and float64 over widths that hit
the whole chunks, the one-vector chunks and the scalar tail, rows past the float lanes' 128-row block, 3-D
inputs, keepdim, empty dims, non-contiguous inputs, NaN and infinities, two threads, and the 16-byte baseline
(MINITORCH_CPU_CAPABILITY=default) in a fresh process."""

import numpy as np
import pytest
from utils import child_json, rerun_in_child, to_np

import minitorch

DTYPES = [minitorch.float32, minitorch.float64]
NP = {minitorch.float32: np.float32, minitorch.float64: np.float64}
# widths: under one vector, one vector and a tail, whole 4-vector chunks of both dtypes and tails past them
WIDTHS = [1, 3, 8, 13, 16, 33, 67, 100, 512, 600]
OPS = ["sum", "mean", "nansum", "prod", "amax", "amin"]


def block_sum_ref(a, dtype):
    """Our column sum's exact arithmetic (the strip loop's before the register kernel): per column, float lanes
    of the input dtype restarted every 128 rows, each block's sum added in order into a float64 total; NumPy's
    add.reduce along axis 0 of a C-ordered array adds the rows in order, lane for lane."""
    total = np.zeros(a.shape[1:], np.float64)
    for r0 in range(0, a.shape[0], 128):
        total += np.add.reduce(a[r0 : r0 + 128], axis=0, dtype=NP[dtype]).astype(np.float64)
    return total


def reference(op, a, axis):
    a64 = a.astype(np.float64)
    return {
        "sum": np.sum,
        "mean": np.mean,
        "nansum": np.nansum,
        "prod": np.prod,
        "amax": np.max,
        "amin": np.min,
    }[op](a64, axis=axis)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("width", WIDTHS)
def test_columns_against_numpy(dtype, width):
    """dim 0 of [rows, width] (rows past a 128-row block), every op, keepdim or not: sums and means to the bit
    of block_sum_ref, products and extrema against float64 NumPy (products within rounding: ours multiply in
    double)"""
    rng = np.random.default_rng(width)
    for rows in (1, 5, 300):
        a = rng.standard_normal((rows, width)).astype(NP[dtype])
        if rows > 1:
            a[rng.integers(0, rows, 3), rng.integers(0, width, 3)] = -0.0
        u = rng.uniform(0.5, 1.5, (rows, width)).astype(NP[dtype])
        x, xu = minitorch.tensor(a), minitorch.tensor(u)
        for op in OPS:
            src, t = (u, xu) if op == "prod" else (a, x)
            for keepdim in (False, True):
                got = getattr(minitorch, op)(t, 0, keepdim=keepdim)
                want = reference(op, src, 0)
                assert got.dtype == dtype and tuple(got.shape) == ((1, width) if keepdim else (width,))
                g = to_np(got).reshape(width).astype(np.float64)
                if op in ("sum", "nansum") and width > 1:  # (one column is a row: another kernel)
                    np.testing.assert_array_equal(g, block_sum_ref(src, dtype).astype(NP[dtype]))
                elif op == "mean" and width > 1:
                    np.testing.assert_array_equal(g, (block_sum_ref(src, dtype) / rows).astype(NP[dtype]))
                elif op == "prod":
                    # one rounding of the double product to the dtype
                    np.testing.assert_allclose(g, want, rtol=1e-6 if dtype == minitorch.float32 else 1e-13)
                elif op in ("amax", "amin"):
                    np.testing.assert_array_equal(g, want)
                if op in ("sum", "mean", "nansum"):
                    tol = 1e-5 if dtype == minitorch.float32 else 1e-12
                    np.testing.assert_allclose(g, want, rtol=tol, atol=tol * np.sqrt(rows))


@pytest.mark.parametrize("dtype", DTYPES)
def test_middle_and_leading_dims_3d(dtype):
    """dim 0, a middle dim, (0, 1) and keepdim of 3-D inputs: outer blocks times column chunks"""
    rng = np.random.default_rng(1)
    a = rng.standard_normal((7, 131, 37)).astype(NP[dtype])
    u = rng.uniform(0.5, 1.5, a.shape).astype(NP[dtype])
    tol = 1e-5 if dtype == minitorch.float32 else 1e-12
    for op in OPS:
        src = u if op == "prod" else a
        t = minitorch.tensor(src)
        for dim in (0, 1, (0, 1), -2):
            for keepdim in (False, True):
                if op == "prod" and dim == (0, 1):  # PyTorch's prod takes one dim: the last first
                    got = minitorch.prod(minitorch.prod(t, 1, keepdim=keepdim), 0, keepdim=keepdim)
                else:
                    got = getattr(minitorch, op)(t, dim, keepdim=keepdim)
                want = reference(op, src, dim)
                if keepdim:
                    want = np.expand_dims(want, dim)
                assert got.shape == want.shape
                np.testing.assert_allclose(to_np(got).astype(np.float64), want, rtol=tol, atol=tol * 12)


@pytest.mark.parametrize("dtype", DTYPES)
def test_nan_and_infinities_propagate(dtype):
    """NaN wins in amax/amin and spreads through prod/sum/mean; nansum drops it; infinities beside numbers; a NaN
    in the first row, the last row, a chunk's last lane and the scalar tail's columns"""
    rng = np.random.default_rng(2)
    rows, width = 260, 75
    a = rng.standard_normal((rows, width)).astype(NP[dtype])
    nan_at = [(0, 0), (rows - 1, 31), (17, 15), (129, 64), (200, 74), (5, 70)]
    for r, c in nan_at:
        a[r, c] = np.nan
    a[3, 2] = np.inf
    a[9, 40] = -np.inf
    a[10, 41] = np.inf
    a[11, 41] = -np.inf  # inf - inf: NaN in sums and in the reference alike
    t = minitorch.tensor(a)
    for op in OPS:
        got = to_np(getattr(minitorch, op)(t, 0)).astype(np.float64)
        with np.errstate(invalid="ignore", over="ignore"):
            want = reference(op, a, 0)
        np.testing.assert_array_equal(np.isnan(got), np.isnan(want), err_msg=op)
        fin = np.isfinite(want)
        np.testing.assert_array_equal(got[~fin & ~np.isnan(want)], want[~fin & ~np.isnan(want)])
        if op in ("amax", "amin"):
            np.testing.assert_array_equal(got[fin], want[fin])
        else:
            np.testing.assert_allclose(got[fin], want[fin], rtol=1e-4, atol=1e-4)
    for c in {c for _, c in nan_at}:
        for op in ("amax", "amin", "prod", "sum", "mean"):
            assert np.isnan(to_np(getattr(minitorch, op)(t, 0))[c]), (op, c)


@pytest.mark.parametrize("dtype", DTYPES)
def test_non_contiguous_inputs(dtype):
    """A slice with gaps (copied densely in its own order, then columns), a transposed input reduced along its
    dense dim, an expanded one and a negative-stride-free strided 3-D view, against NumPy"""
    rng = np.random.default_rng(3)
    a = rng.standard_normal((300, 90)).astype(NP[dtype])
    u = rng.uniform(0.5, 1.5, (300, 90)).astype(NP[dtype])
    b = rng.standard_normal((6, 40, 50)).astype(NP[dtype])
    tol = 1e-5 if dtype == minitorch.float32 else 1e-12
    for op in OPS:
        src = u if op == "prod" else a
        x = minitorch.tensor(src)
        cases = [
            (x[:, ::2], src[:, ::2], 0),
            (x[::3, 1::2], src[::3, 1::2], 0),
            (x.t(), src.T, 1),
            (x[:1].expand(40, 90), np.broadcast_to(src[:1], (40, 90)), 0),
        ]
        y = minitorch.tensor(b if op != "prod" else np.abs(b) + 0.5)
        yb = b if op != "prod" else np.abs(b) + 0.5
        cases += [(y[:, ::2, 1:], yb[:, ::2, 1:], 1), (y[::2, :, ::3], yb[::2, :, ::3], 0)]
        for t, ref, dim in cases:
            assert not t.is_contiguous()
            for keepdim in (False, True):
                got = getattr(minitorch, op)(t, dim, keepdim=keepdim)
                want = reference(op, ref, dim)
                if keepdim:
                    want = np.expand_dims(want, dim)
                assert got.shape == want.shape and got.is_contiguous()
                np.testing.assert_allclose(to_np(got).astype(np.float64), want, rtol=tol, atol=tol * 20)
        # out= of the gapped slice's result (minitorch's nansum takes no out= yet)
        if op == "nansum":
            continue
        o = minitorch.empty(45, dtype=dtype)
        r = getattr(minitorch, op)(x[:, ::2], 0, out=o)
        assert r is o
        np.testing.assert_allclose(
            to_np(o).astype(np.float64), reference(op, src[:, ::2], 0), rtol=tol, atol=tol * 20
        )


@pytest.mark.parametrize("dtype", DTYPES)
def test_empty_dims(dtype):
    x = minitorch.zeros((0, 7), dtype=dtype)
    assert to_np(minitorch.sum(x, 0)).tolist() == [0.0] * 7
    assert to_np(minitorch.prod(x, 0)).tolist() == [1.0] * 7
    assert np.isnan(to_np(minitorch.mean(x, 0))).all()
    assert minitorch.sum(minitorch.zeros((7, 0), dtype=dtype), 0).shape == (0,)
    assert minitorch.amax(minitorch.zeros((7, 0, 3), dtype=dtype), 0).shape == (0, 3)
    with pytest.raises(IndexError, match="Expected reduction dim 0 to have non-zero size"):
        minitorch.amax(x, 0)
    with pytest.raises(IndexError, match="Expected reduction dim 0 to have non-zero size"):
        minitorch.amin(x[:, ::2], 0)


def test_two_threads_give_the_same_bits():
    """A [512, 512] reduced along dim 0 splits its columns over two threads (narrower pieces than one block): the
    same bits as one thread, each column computed whole by one task"""
    rng = np.random.default_rng(4)
    before = minitorch.get_num_threads()
    try:
        for dt in DTYPES:
            a = rng.standard_normal((512, 512)).astype(NP[dt])
            x = minitorch.tensor(a)
            y = minitorch.tensor(rng.standard_normal((2, 300, 200)).astype(NP[dt]))
            res = {}
            for n in (1, 2):
                minitorch.set_num_threads(n)
                res[n] = [to_np(getattr(minitorch, op)(t, 0)) for op in OPS for t in (x, y)]
            for r1, r2 in zip(res[1], res[2]):
                np.testing.assert_array_equal(r1, r2)
            np.testing.assert_array_equal(res[2][0], block_sum_ref(a, dt).astype(NP[dt]))
    finally:
        minitorch.set_num_threads(before)


def test_other_dtypes_along_columns():
    """float16, bfloat16 and integers keep the strip loop: against NumPy"""
    rng = np.random.default_rng(5)
    a = rng.integers(-3, 4, (150, 70))
    for dt in (minitorch.int32, minitorch.int64, minitorch.int16):
        t = minitorch.tensor(a, dtype=dt)
        assert to_np(minitorch.sum(t, 0)).tolist() == a.sum(0).tolist()
        assert to_np(minitorch.amax(t, 0)).tolist() == a.max(0).tolist()
        assert to_np(minitorch.amin(t[:, ::2], 0)).tolist() == a[:, ::2].min(0).tolist()
    h = rng.standard_normal((150, 70))
    for dt, tol in ((minitorch.float16, 2e-2), (minitorch.bfloat16, 1e-1)):
        t = minitorch.tensor(h, dtype=dt)
        ref = to_np(t).astype(np.float64)
        np.testing.assert_allclose(
            to_np(minitorch.sum(t, 0)).astype(np.float64), ref.sum(0), rtol=tol, atol=tol * 5
        )
        np.testing.assert_array_equal(to_np(minitorch.amax(t, 0)).astype(np.float64), ref.max(0))


def test_columns_at_the_baseline():
    """MINITORCH_CPU_CAPABILITY=default: the 16-byte vector kernel, the same tests in a fresh process."""
    rerun_in_child(
        __file__,
        "columns_against_numpy or nan_and_infinities or non_contiguous or two_threads or middle_and_leading",
        MINITORCH_CPU_CAPABILITY="default",
    )


CROSS_CAP = """
import json, numpy as np, minitorch
rng = np.random.default_rng(11)
out = {}
for name, dt in (("f32", np.float32), ("f64", np.float64)):
    a = rng.standard_normal((300, 203)).astype(dt)
    u = rng.uniform(0.5, 1.5, (300, 203)).astype(dt)
    a[7, 3] = np.nan
    a[:, 9] = -0.0
    a[5, 9] = 0.0
    x, y = minitorch.tensor(a), minitorch.tensor(u)
    for op, t in (("sum", x), ("mean", x), ("nansum", x), ("prod", y), ("amax", x), ("amin", x)):
        for dim in (0, 1):
            r = getattr(minitorch, op)(t, dim).numpy().astype(np.float64)
            out[f"{name} {op} {dim}"] = [repr(v) for v in r.tolist()]
print(json.dumps(out))
"""


def test_same_bits_at_every_capability():
    """The columns kernel (16-byte lanes at the baseline, 32 with AVX2, float32 products through intrinsics) and
    the rows' products and extrema give the same bits at MINITORCH_CPU_CAPABILITY=default and at the best this
    CPU has: each column's and row's arithmetic is in the same order on every path"""
    base = child_json(CROSS_CAP, MINITORCH_CPU_CAPABILITY="default")
    best = child_json(CROSS_CAP)
    assert base.keys() == best.keys()
    for key in base:
        assert base[key] == best[key], key


@pytest.mark.parametrize("dtype", DTYPES)
def test_row_extrema_and_products(dtype):
    """amax/amin/prod along the rows (the vector extremum's joined lanes, float32 products in AVX2 intrinsics):
    against float64 NumPy over row lengths around the vector widths, with NaN, infinities and zeros as the
    extremum"""
    rng = np.random.default_rng(12)
    for n in (1, 7, 31, 32, 33, 64, 100, 512, 1000):
        a = rng.standard_normal((20, n)).astype(NP[dtype])
        u = rng.uniform(0.5, 1.5, (20, n)).astype(NP[dtype])
        a[1] = -np.abs(a[1])
        a[1, n // 2] = -0.0  # a zero is the max
        a[2] = np.abs(a[2])
        a[2, n - 1] = 0.0  # and the min
        a[3, n // 3] = np.nan
        a[4, n - 1] = np.nan
        a[5, 0] = np.inf
        t = minitorch.tensor(a)
        np.testing.assert_array_equal(to_np(minitorch.amax(t, 1)), np.max(a, 1))
        np.testing.assert_array_equal(to_np(minitorch.amin(t, 1)), np.min(a, 1))
        got = to_np(minitorch.prod(minitorch.tensor(u), 1)).astype(np.float64)
        np.testing.assert_allclose(
            got, np.prod(u.astype(np.float64), 1), rtol=1e-6 if dtype == minitorch.float32 else 1e-13
        )
