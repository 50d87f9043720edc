"""The sort family (sort, argsort, topk, kthvalue, median, mode, multinomial) and the triangle ops (tril,
triu, tril_indices, triu_indices) against NumPy references, on every device present."""

import math

import numpy as np
import pytest
from utils import ALL_DTYPES, FLOAT_DTYPES, INT_DTYPES, LAYOUTS, make_array, make_tensor, to_np

import minitorch
from minitorch.autograd import gradcheck

SORTABLE = [d for d in ALL_DTYPES if d != minitorch.bool]


def ref_order(row, descending):
    """Stable order of a 1-d float64 row with NaN as the largest value."""
    nan = np.isnan(row)
    if descending:
        keys = [(0 if nan[j] else 1, 0.0 if nan[j] else -row[j], j) for j in range(len(row))]
    else:
        keys = [(1 if nan[j] else 0, 0.0 if nan[j] else row[j], j) for j in range(len(row))]
    return np.array([k[2] for k in sorted(keys)], dtype=np.int64)


def ref_sort(a, dim, descending):
    a = np.moveaxis(np.asarray(a, dtype=np.float64), dim, -1)
    idx = np.empty(a.shape, dtype=np.int64)
    for pos in np.ndindex(a.shape[:-1]):
        idx[pos] = ref_order(a[pos], descending)
    vals = np.take_along_axis(a, idx, -1)
    return np.moveaxis(vals, -1, dim), np.moveaxis(idx, -1, dim)


def with_ties(shape, dtype, rng):
    """Values with many repeats (ties exercise stability), exactly representable in dtype."""
    a = rng.integers(0, 5, size=shape).astype(np.float64)
    if dtype == minitorch.bool:
        return a > 2
    return a - (0 if dtype == minitorch.uint8 else 2)


# ---- tril / triu -------------------------------------------------------------------------------------------


@pytest.mark.parametrize("fn", ["tril", "triu"])
@pytest.mark.parametrize("shape", [(4, 4), (3, 5), (5, 3), (2, 3, 4), (2, 0, 3), (0, 4)])
@pytest.mark.parametrize("diagonal", [0, 1, -1, 3, -4, 10])
def test_tril_triu_values(device, fn, shape, diagonal):
    rng = np.random.default_rng(0)
    a = make_array(shape, minitorch.float32, rng)
    x = make_tensor(a, minitorch.float32, device)
    exp = getattr(np, fn)(a, diagonal)
    assert np.array_equal(to_np(getattr(minitorch, fn)(x, diagonal)), exp)
    assert np.array_equal(to_np(getattr(x, fn)(diagonal=diagonal)), exp)
    y = x.clone()
    r = getattr(y, fn + "_")(diagonal)
    assert r is y
    assert np.array_equal(to_np(y), exp)


@pytest.mark.parametrize("diagonal", [-(2**63), -(2**62), -6, 6, 2**62, 2**63 - 1])
def test_tril_triu_extreme_diagonals(device, diagonal):
    """A diagonal far outside the matrix keeps all or nothing (row + diagonal must not wrap around)."""
    a = np.arange(20.0, dtype=np.float32).reshape(4, 5)
    x = make_tensor(a, minitorch.float32, device)
    k = max(-10, min(10, diagonal))  # NumPy's own tri() overflows on the extreme ones
    assert np.array_equal(to_np(minitorch.tril(x, diagonal)), np.tril(a, k))
    assert np.array_equal(to_np(minitorch.triu(x, diagonal)), np.triu(a, k))


@pytest.mark.parametrize("dtype", ALL_DTYPES)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_tril_triu_dtypes_layouts(device, dtype, layout):
    rng = np.random.default_rng(1)
    a = make_array((3, 4, 5), dtype, rng)
    x = make_tensor(a, dtype, device, layout)
    base = to_np(x)
    for fn in ("tril", "triu"):
        out = getattr(minitorch, fn)(x, 1)
        assert out.dtype == dtype
        assert np.array_equal(to_np(out), getattr(np, fn)(base, 1))


def _complex_array(shape, rng):
    return rng.standard_normal(shape) + 1j * rng.standard_normal(shape)


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_tril_triu_complex(device, dtype):
    """complex128 is a 16-byte element: the kernel must move it whole, out of place and in place."""
    a = _complex_array((2, 4, 5), np.random.default_rng(4)).astype(dtype)
    for layout in ("contiguous", "transposed"):
        x = minitorch.tensor(a if layout == "contiguous" else np.ascontiguousarray(a.transpose(0, 2, 1)))
        if layout == "transposed":
            x = x.transpose(1, 2)
        for fn in ("tril", "triu"):
            for k in (-1, 0, 2):
                out = getattr(x.to(device), fn)(k)
                assert out.dtype == getattr(minitorch, dtype)
                assert np.array_equal(out.cpu().numpy(), getattr(np, fn)(a, k))
                y = x.to(device).clone()
                getattr(y, fn + "_")(k)
                assert np.array_equal(y.cpu().numpy(), getattr(np, fn)(a, k))


@pytest.mark.parametrize("dtype", ALL_DTYPES)
@pytest.mark.parametrize("view", ["transposed", "stepped", "batch-sliced"])
def test_tril_triu_inplace_views(device, dtype, view):
    """tril_/triu_ on a view write only the view's zeros, through its strides: the base's other elements keep
    their values."""
    rng = np.random.default_rng(5)
    base_np = make_array((4, 6, 8), dtype, rng)
    for fn in ("tril", "triu"):
        base = make_tensor(base_np, dtype, device)
        if view == "transposed":
            v, sel = base.transpose(1, 2), (slice(None),) * 3
        elif view == "stepped":
            v, sel = base[:, ::2, 1::3], (slice(None), slice(None, None, 2), slice(1, None, 3))
        else:
            v, sel = base[1:3], (slice(1, 3),)
        exp = base_np.copy()
        part = exp[sel]
        if view == "transposed":
            exp = np.swapaxes(getattr(np, fn)(np.swapaxes(exp, 1, 2), -1), 1, 2)
        else:
            exp[sel] = getattr(np, fn)(part, -1)
        assert getattr(v, fn + "_")(-1) is v
        assert np.array_equal(to_np(base), exp)


@pytest.mark.parametrize("shape", [(4, 300, 200), (1, 3000, 40), (700, 3, 2)])
def test_tril_triu_many_rows(device, shape):
    """Enough rows to split over threads (and many small matrices): each row finds its own matrix."""
    a = np.random.default_rng(6).standard_normal(shape)
    x = minitorch.tensor(a, device=device)
    # the same values read through a transposed view: tiles of rows and columns
    xt = minitorch.tensor(np.ascontiguousarray(np.swapaxes(a, 1, 2)), device=device).transpose(1, 2)
    for k in (-7, 0, 5, 40):
        for v in (x, xt):
            assert np.array_equal(to_np(minitorch.tril(v, k)), np.tril(a, k))
            assert np.array_equal(to_np(v.triu(k)), np.triu(a, k))


def test_tril_triu_result_layout(device):
    """The result is contiguous whatever the input's strides, as PyTorch's."""
    x = minitorch.ones(4, 3, device=device).t()
    assert x.tril().is_contiguous() and x.triu(1).stride() == (4, 1)
    assert minitorch.ones(3, device=device).expand(3, 3).tril().stride() == (3, 1)


def test_tril_triu_meta():
    x = minitorch.empty(2, 3, 4, device="meta")
    assert minitorch.tril(x).shape == (2, 3, 4) and minitorch.tril(x).device.type == "meta"
    assert x.triu_(1) is x


def test_tril_triu_grad_nodes(device):
    """PyTorch's node names; the gradient is the same triangle of the incoming gradient, complex included."""
    x = minitorch.randn(3, 4, device=device, requires_grad=True)
    assert minitorch.tril(x).grad_fn.name() == "TrilBackward0"
    assert x.triu(1).grad_fn.name() == "TriuBackward0"
    y = x * 1
    assert y.tril_().grad_fn.name() == "TrilBackward0"
    g = np.arange(12.0).reshape(3, 4)
    x.triu(1).backward(minitorch.tensor(g, dtype=minitorch.float32, device=device))
    assert np.array_equal(to_np(x.grad), np.triu(g, 1))
    z = minitorch.tensor(_complex_array((2, 3), np.random.default_rng(7)), device=device).requires_grad_()
    gz = _complex_array((2, 3), np.random.default_rng(8))
    z.tril(-1).backward(minitorch.tensor(gz, device=device))
    assert np.array_equal(z.grad.cpu().numpy(), np.tril(gz, -1))


def test_tril_triu_grad(device):
    x = minitorch.randn(2, 3, 4, dtype=minitorch.float64, device=device, requires_grad=True)
    assert gradcheck(lambda t: minitorch.tril(t, -1), (x,))
    assert gradcheck(lambda t: t.triu(1), (x,))
    y = x * 1
    y.tril_()
    y.sum().backward()
    assert np.array_equal(to_np(x.grad), np.tril(np.ones((2, 3, 4))))


def test_tril_triu_errors(device):
    x = minitorch.ones(3, device=device)
    with pytest.raises(RuntimeError, match="tril: input tensor must have at least 2 dimensions"):
        minitorch.tril(x)
    with pytest.raises(RuntimeError, match="triu: input tensor must have at least 2 dimensions"):
        x.triu_()
    leaf = minitorch.ones(2, 2, requires_grad=True, device=device)
    with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
        leaf.tril_()
    # PyTorch writes through an expanded tril_ target in an order-dependent way; we refuse, as for every
    # in-place op on overlapping elements
    with pytest.raises(RuntimeError, match="more than one element of the written-to tensor"):
        minitorch.ones(3, device=device).expand(3, 3).tril_()
    with pytest.raises(RuntimeError, match="triu: input tensor must have at least 2 dimensions"):
        minitorch.triu(minitorch.tensor(1.0, device=device))


@pytest.mark.parametrize(
    "row,col,offset",
    [(4, 4, 0), (3, 5, 1), (5, 3, -1), (4, 3, 7), (3, 4, -9), (0, 3, 0), (3, 0, 0), (257, 130, -3)]
    + [(5, 6, 2**62), (5, 6, -(2**62)), (6, 5, 2**63 - 1), (6, 5, -(2**63))],
)
def test_tril_triu_indices(device, row, col, offset):
    for fn in ("tril", "triu"):
        got = getattr(minitorch, fn + "_indices")(row, col, offset, device=device)
        assert got.dtype == minitorch.int64 and got.device.type == device
        # NumPy's own offsets stay small: a diagonal beyond the matrix gives what the matrix's edge gives
        k = max(-row - 1, min(col + 1, offset))
        exp = np.stack(getattr(np, fn + "_indices")(row, k, col)) if row else np.zeros((2, 0))
        assert got.shape == (2, exp.shape[1])
        assert np.array_equal(to_np(got), exp)
    got = minitorch.tril_indices(row, col, offset, dtype=minitorch.int32)
    assert got.dtype == minitorch.int32


def test_tril_indices_errors():
    with pytest.raises(RuntimeError, match="row must be non-negative"):
        minitorch.tril_indices(-1, 3)
    with pytest.raises(RuntimeError, match="col must be non-negative"):
        minitorch.triu_indices(3, -2)
    with pytest.raises(NotImplementedError, match="\"tril_indices\" not implemented for 'Float'"):
        minitorch.tril_indices(3, 3, dtype=minitorch.float32)


# ---- sort / argsort ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", ALL_DTYPES)
@pytest.mark.parametrize("descending", [False, True])
def test_sort_dtypes_stable(device, dtype, descending):
    rng = np.random.default_rng(2)
    a = with_ties((4, 33), dtype, rng)
    x = minitorch.tensor(a, dtype=dtype, device=device)
    vals, idx = minitorch.sort(x, descending=descending, stable=True)
    ev, ei = ref_sort(a, 1, descending)
    assert vals.dtype == dtype and idx.dtype == minitorch.int64
    assert np.array_equal(to_np(vals).astype(np.float64), ev)
    assert np.array_equal(to_np(idx), ei)
    assert np.array_equal(to_np(x.argsort(descending=descending, stable=True)), ei)


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dim", [0, 1, -1, 2])
def test_sort_dims_layouts(device, layout, dim):
    rng = np.random.default_rng(3)
    a = make_array((5, 6, 7), minitorch.float64, rng)
    x = make_tensor(a, minitorch.float64, device, layout)
    base = to_np(x)
    for desc in (False, True):
        r = x.sort(dim, desc)
        ev, ei = ref_sort(base, dim, desc)
        assert np.array_equal(to_np(r.values), ev)
        assert np.array_equal(to_np(r.indices), ei)
        assert r.values.is_contiguous()


def test_sort_nan_order(device):
    a = np.array([[3.0, np.nan, -1.0, np.nan, np.inf, -np.inf, 0.0]])
    for dtype in FLOAT_DTYPES:
        x = minitorch.tensor(a, device=device).to(dtype)
        for desc in (False, True):
            v, i = minitorch.sort(x, descending=desc)
            ev, ei = ref_sort(a, 1, desc)
            np.testing.assert_array_equal(to_np(v), ev)
            assert np.array_equal(to_np(i), ei)


def test_sort_edge_shapes(device):
    e = minitorch.empty(3, 0, device=device)
    v, i = e.sort()
    assert v.shape == (3, 0) and i.shape == (3, 0)
    s = minitorch.tensor(2.5, device=device)
    v, i = s.sort()
    assert v.shape == () and v.item() == 2.5 and i.item() == 0
    assert minitorch.argsort(s).item() == 0
    with pytest.raises(IndexError, match="Dimension out of range"):
        minitorch.ones(2, 3, device=device).sort(dim=2)


def test_sort_returns_named_tuple(device):
    x = minitorch.tensor([3.0, 1.0, 2.0], device=device)
    r = minitorch.sort(x)
    assert type(r).__name__ == "sort" and r.values is r[0] and r.indices is r[1]
    _v, i = r
    assert i.tolist() == [1, 2, 0]


def test_sort_grad(device):
    x = minitorch.randn(3, 5, dtype=minitorch.float64, device=device, requires_grad=True)
    assert gradcheck(lambda t: minitorch.sort(t, 0)[0], (x,))
    assert gradcheck(lambda t: t.sort(descending=True).values, (x,))
    v, i = minitorch.sort(x)
    assert not i.requires_grad and v.requires_grad
    w = minitorch.arange(5, dtype=minitorch.float64, device=device)
    (v * w).sum().backward()
    exp = np.zeros((3, 5))
    np.put_along_axis(exp, to_np(i), np.arange(5.0)[None].repeat(3, 0), 1)
    assert np.array_equal(to_np(x.grad), exp)


# ---- topk / kthvalue / median / mode -----------------------------------------------------------------------


@pytest.mark.parametrize("dtype", SORTABLE)
@pytest.mark.parametrize("largest", [True, False])
def test_topk(device, dtype, largest):
    rng = np.random.default_rng(4)
    a = make_array((6, 40), dtype, rng, -50, 50)
    x = make_tensor(a, dtype, device)
    base = to_np(x)
    for k in (0, 1, 5, 40):
        v, i = x.topk(k, largest=largest)
        ev, ei = ref_sort(base, 1, largest)
        assert v.shape == (6, k)
        assert np.array_equal(to_np(v).astype(np.float64), ev[:, :k])
        assert np.array_equal(np.take_along_axis(base, to_np(i), 1), to_np(v))
        assert np.array_equal(to_np(i), ei[:, :k])  # ties in input order
    v, i = minitorch.topk(x, 3, dim=0, largest=largest, sorted=True)
    ev, _ = ref_sort(base, 0, largest)
    assert np.array_equal(to_np(v).astype(np.float64), ev[:3])


def test_topk_nan_and_errors(device):
    x = minitorch.tensor([1.0, float("nan"), 3.0, 2.0], device=device)
    v, i = x.topk(2)
    assert math.isnan(v[0].item()) and v[1].item() == 3.0 and i.tolist() == [1, 2]
    v, i = x.topk(2, largest=False)
    assert v.tolist() == [1.0, 2.0]
    with pytest.raises(RuntimeError, match="selected index k out of range"):
        x.topk(5)
    with pytest.raises(RuntimeError, match="selected index k out of range"):
        x.topk(-1)
    with pytest.raises(NotImplementedError, match="topk does not support bool dtypes on C"):
        minitorch.ones(3, dtype=minitorch.bool, device=device).topk(1)
    with pytest.raises(NotImplementedError, match="\"kthvalue_c.*\" not implemented for 'Bool'"):
        minitorch.ones(3, dtype=minitorch.bool, device=device).kthvalue(1)
    with pytest.raises(NotImplementedError, match="\"median_out\" not implemented for 'Bool'"):
        minitorch.ones(3, dtype=minitorch.bool, device=device).median(0)
    s = minitorch.tensor(4.0, device=device)
    # PyTorch 2.15: a 0-dim self gives itself for k = 0 too
    assert s.topk(1).values.item() == 4.0 and s.topk(0).values.shape == ()


def test_topk_grad(device):
    x = minitorch.randn(4, 6, dtype=minitorch.float64, device=device, requires_grad=True)
    assert gradcheck(lambda t: t.topk(3, dim=1)[0], (x,))
    assert gradcheck(lambda t: minitorch.topk(t, 2, dim=0, largest=False).values, (x,))


@pytest.mark.parametrize("dtype", SORTABLE)
def test_kthvalue_median(device, dtype):
    rng = np.random.default_rng(5)
    a = make_array((5, 7, 6), dtype, rng, -20, 20)
    x = make_tensor(a, dtype, device, "transposed")
    base = to_np(x)
    for dim in (0, 1, 2, -1):
        s = np.sort(base, axis=dim)
        n = base.shape[dim]
        for k in (1, n // 2 + 1, n):
            v, i = x.kthvalue(k, dim)
            assert np.array_equal(to_np(v).astype(np.float64), np.take(s, k - 1, axis=dim))
            picked = np.take_along_axis(base, np.expand_dims(to_np(i), dim), dim).squeeze(dim)
            assert np.array_equal(picked, to_np(v))
        v, i = minitorch.median(x, dim, keepdim=True)
        assert v.shape == tuple(1 if d == dim % 3 else base.shape[d] for d in range(3))
        assert np.array_equal(to_np(v).astype(np.float64), np.take(s, [(n - 1) // 2], axis=dim))
        assert np.array_equal(np.take_along_axis(base, to_np(i), dim), to_np(v))
    m = x.median()
    assert m.shape == () and m.item() == np.sort(base.ravel())[(base.size - 1) // 2]


def test_median_nan(device):
    a = np.array([[1.0, np.nan, 0.0, np.nan], [4.0, 2.0, 3.0, 1.0]])
    x = minitorch.tensor(a, device=device)
    v, i = x.median(1)
    assert math.isnan(v[0].item()) and i[0].item() == 1  # the row's first NaN
    assert v[1].item() == 2.0 and i[1].item() == 1
    assert math.isnan(x.median().item())
    assert math.isnan(minitorch.empty(0, device=device).median().item())


@pytest.mark.parametrize("n", [1, 2, 7, 1001])
def test_kthvalue_median_pick_the_stable_order(device, n):
    # the CPU selects (nth_element) instead of sorting: with ties and NaNs the chosen index must still be the
    # stable sort's, as PyTorch's
    rng = np.random.default_rng(n)
    a = rng.integers(0, 5, size=(3, n)).astype(np.float64)
    a[1, rng.integers(0, n, size=max(1, n // 10))] = np.nan
    x = minitorch.tensor(a, device=device, requires_grad=True)
    order = np.argsort(a, axis=1, kind="stable")  # NaN last, as in the sort
    for k in sorted({1, (n + 1) // 2, n}):
        v, i = x.kthvalue(k, 1)
        np.testing.assert_array_equal(to_np(i), order[:, k - 1])
        np.testing.assert_array_equal(to_np(v), a[np.arange(3), order[:, k - 1]])
    v, i = x.median(1)
    nans = np.isnan(a).sum(1)
    pos = np.where(nans > 0, n - nans, (n - 1) // 2)
    np.testing.assert_array_equal(to_np(i), order[np.arange(3), pos])
    v.backward(minitorch.ones(3, dtype=minitorch.float64, device=device))  # the gradient reaches the picks
    g = np.zeros_like(a)
    g[np.arange(3), order[np.arange(3), pos]] = 1
    np.testing.assert_array_equal(to_np(x.grad), g)


def test_kthvalue_median_errors(device):
    x = minitorch.ones(3, 4, device=device)
    with pytest.raises(RuntimeError, match="kthvalue\\(\\): selected number k out of range for dimension 1"):
        x.kthvalue(5)
    with pytest.raises(RuntimeError, match="kthvalue\\(\\): selected number k out of range for dimension 0"):
        x.kthvalue(0, 0)
    with pytest.raises(IndexError, match="kthvalue\\(\\): Expected reduction dim 1 to have non-zero size"):
        minitorch.empty(2, 0, device=device).kthvalue(1, 1)
    with pytest.raises(IndexError, match="median\\(\\): Expected reduction dim 1 to have non-zero size"):
        minitorch.empty(2, 0, device=device).median(1)
    with pytest.raises(IndexError, match="mode\\(\\): Expected reduction dim 1 to have non-zero size"):
        minitorch.empty(2, 0, device=device).mode(1)


def ref_mode(row):
    vals, counts = np.unique(row, return_counts=True)
    v = vals[np.argmax(counts)]  # the first (smallest) of the most frequent values
    return v, np.nonzero(row == v)[0][-1]


@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_mode(device, dtype):
    rng = np.random.default_rng(6)
    a = with_ties((5, 17), dtype, rng)
    x = minitorch.tensor(a, dtype=dtype, device=device)
    base = to_np(x)
    v, i = minitorch.mode(x)
    for r in range(5):
        ev, ei = ref_mode(base[r])
        assert to_np(v)[r] == ev and to_np(i)[r] == ei
    v0, i0 = x.mode(0, keepdim=True)
    assert v0.shape == (1, 17)
    for c in range(17):
        ev, ei = ref_mode(base[:, c])
        assert to_np(v0)[0, c] == ev and to_np(i0)[0, c] == ei


def ref_mode_nan(row):
    """ref_mode with NaNs counted as one value, the largest (kernels/ReduceRules.h's convention)."""
    nan = np.isnan(row)
    vals, counts = np.unique(row[~nan], return_counts=True)
    if nan.any():
        vals, counts = np.append(vals, np.nan), np.append(counts, nan.sum())
    v = vals[np.argmax(counts)]
    hits = np.isnan(row) if np.isnan(v) else row == v
    return v, np.nonzero(hits)[0][-1]


@pytest.mark.parametrize("dtype", ALL_DTYPES)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_mode_wide_rows_every_layout(device, dtype, layout):
    # rows longer than the ties test's, every dim, transposed/strided inputs: the CPU kernel sorts the values
    # alone and finds the index in the row afterwards
    rng = np.random.default_rng(16)
    a = with_ties((7, 300), dtype, rng)
    if dtype in FLOAT_DTYPES:
        a = a + np.where(rng.random(a.shape) < 0.5, 0.0, rng.integers(3, 9, size=a.shape))
    x = make_tensor(a, dtype, device, layout)
    base = to_np(x)
    for dim in (1, 0, -1):
        v, i = minitorch.mode(x, dim)
        rows = np.moveaxis(base, dim, -1)
        for r in range(rows.shape[0]):
            ev, ei = ref_mode(rows[r])
            assert to_np(v)[r] == ev and to_np(i)[r] == ei


@pytest.mark.parametrize("dtype", [minitorch.float32, minitorch.float64, minitorch.bfloat16])
def test_mode_signed_zeros_nans_and_one_element(device, dtype):
    rng = np.random.default_rng(17)
    a = rng.choice([-0.0, 0.0, 1.0, np.nan, -2.0], size=(9, 40))
    x = minitorch.tensor(a, dtype=dtype, device=device)
    v, i = x.mode(1)
    for r in range(9):
        ev, ei = ref_mode_nan(a[r])
        got_v = to_np(v)[r]
        assert (np.isnan(ev) and np.isnan(got_v)) or got_v == ev
        assert to_np(i)[r] == ei
        # the value is the row's element at the index (-0.0 and 0.0 count as one value; the sign is that element's)
        assert np.signbit(got_v) == np.signbit(a[r, ei])
    one = minitorch.tensor([[3.0], [-0.0]], dtype=dtype, device=device).mode(1)
    assert to_np(one.values).tolist() == [3.0, 0.0] and to_np(one.indices).tolist() == [0, 0]
    assert minitorch.mode(minitorch.zeros(3, 0, 4, dtype=dtype, device=device), 0).values.shape == (0, 4)


def test_selection_grads(device):
    x = minitorch.randn(4, 5, dtype=minitorch.float64, device=device, requires_grad=True)
    assert gradcheck(lambda t: t.kthvalue(2, 1)[0], (x,))
    assert gradcheck(lambda t: minitorch.median(t, 0).values, (x,))
    assert gradcheck(lambda t: t.median(), (x,))
    y = minitorch.tensor([[1.0, 2.0, 2.0, 3.0], [5.0, 5.0, 4.0, 4.0]], dtype=minitorch.float64, device=device)
    y.requires_grad_(True)
    v, _i = y.mode(1)
    v.sum().backward()
    exp = np.zeros((2, 4))
    exp[0, 2] = exp[1, 3] = 1.0
    assert np.array_equal(to_np(y.grad), exp)


# ---- multinomial -------------------------------------------------------------------------------------------


def test_multinomial_with_replacement(device):
    p = np.array([[0.1, 0.0, 0.6, 0.3], [1.0, 1.0, 0.0, 2.0]])
    x = minitorch.tensor(p, dtype=minitorch.float32, device=device)
    minitorch.manual_seed(0)
    s = minitorch.multinomial(x, 20000, replacement=True)
    assert s.shape == (2, 20000) and s.dtype == minitorch.int64
    got = to_np(s)
    for r in range(2):
        freq = np.bincount(got[r], minlength=4) / 20000
        exp = p[r] / p[r].sum()
        np.testing.assert_allclose(freq, exp, atol=0.02)
        assert freq[p[r] == 0].sum() == 0  # a zero-weight category is never drawn
    one = x[0].multinomial(5, True)
    assert one.shape == (5,)


def test_multinomial_without_replacement(device):
    p = minitorch.tensor([[1.0, 0.0, 5.0, 2.0, 1.0], [0.0, 0.0, 1.0, 0.0, 3.0]], device=device)
    s = minitorch.multinomial(p, 2)
    got = to_np(s)
    for r in range(2):
        assert len(set(got[r])) == 2
        assert all(to_np(p)[r, c] > 0 for c in got[r])
    assert sorted(to_np(p[1:].multinomial(2))[0]) == [2, 4]
    full = to_np(minitorch.multinomial(p[:1], 5))[0]
    assert sorted(full) == [0, 1, 2, 3, 4]
    # first draws follow the weights
    minitorch.manual_seed(1)
    first = to_np(minitorch.multinomial(minitorch.tensor([1.0, 3.0], device=device).expand(4000, 2), 1))
    np.testing.assert_allclose((first == 1).mean(), 0.75, atol=0.03)


def test_multinomial_generator(device):
    p = minitorch.rand(3, 10, device=device)
    g = minitorch.Generator(device=device).manual_seed(5)
    a = minitorch.multinomial(p, 4, generator=g)
    g.manual_seed(5)
    b = p.multinomial(4, generator=g)
    assert a.tolist() == b.tolist()
    g.manual_seed(5)
    c = minitorch.multinomial(p, 7, True, generator=g)
    g.manual_seed(5)
    assert c.tolist() == minitorch.multinomial(p, 7, True, generator=g).tolist()


def test_multinomial_errors(device):
    def t(v):
        return minitorch.tensor(v, device=device)

    with pytest.raises(RuntimeError, match="prob_dist must be 1 or 2 dim"):
        minitorch.multinomial(t(1.0), 1)
    with pytest.raises(
        RuntimeError, match="multinomial only supports floating-point dtypes for input, got: Long"
    ):
        minitorch.multinomial(t([1, 2]), 1)
    with pytest.raises(RuntimeError, match="cannot sample n_sample <= 0 samples"):
        minitorch.multinomial(t([1.0, 2.0]), 0)
    with pytest.raises(RuntimeError, match="cannot sample n_sample > prob_dist.size\\(-1\\) samples without"):
        minitorch.multinomial(t([1.0, 2.0]), 3)
    with pytest.raises(RuntimeError, match="probability tensor contains either `inf`, `nan` or element < 0"):
        minitorch.multinomial(t([1.0, -2.0]), 1)
    with pytest.raises(RuntimeError, match="probability tensor contains either `inf`, `nan` or element < 0"):
        minitorch.multinomial(t([1.0, float("inf")]), 2)
    with pytest.raises(RuntimeError, match="probability tensor contains either `inf`, `nan` or element < 0"):
        minitorch.multinomial(t([1.0, float("nan")]), 1)
    with pytest.raises(
        RuntimeError, match="invalid multinomial distribution \\(sum of probabilities <= 0\\)"
    ):
        minitorch.multinomial(t([[1.0, 0.0], [0.0, 0.0]]), 1)
    with pytest.raises(
        RuntimeError, match="invalid multinomial distribution \\(sum of probabilities <= 0\\)"
    ):
        minitorch.multinomial(t([0.0, 0.0]), 3, True)
    with pytest.raises(RuntimeError, match="encountering probability entry < 0"):
        minitorch.multinomial(t([1.0, -1.0]), 3, True)
    with pytest.raises(RuntimeError, match="cannot compute aminmax over an empty dimension"):
        minitorch.multinomial(minitorch.empty(2, 0, device=device), 3, True)
    assert minitorch.multinomial(minitorch.empty(0, 3, device=device), 2, True).shape == (0, 2)
    with pytest.raises(RuntimeError, match="encountering probability entry < 0"):
        minitorch.multinomial(t([1.0, float("nan")]), 3, True)
    with pytest.raises(RuntimeError, match="encountering probability entry = infinity or NaN"):
        minitorch.multinomial(t([1.0, float("inf")]), 3, True)


@pytest.mark.parametrize("dtype", INT_DTYPES[:1] + FLOAT_DTYPES)
def test_sort_large_rows_parallel(device, dtype):
    # many rows of a size that spreads them over threads; compares against NumPy's stable sort
    rng = np.random.default_rng(7)
    a = make_array((300, 257), dtype, rng, -100, 100)
    x = make_tensor(a, dtype, device)
    base = to_np(x)
    v, i = x.sort()
    assert np.array_equal(to_np(v), np.sort(base, axis=1, kind="stable"))
    assert np.array_equal(to_np(i), np.argsort(base, axis=1, kind="stable"))


@pytest.mark.parametrize("dtype", [minitorch.float32, minitorch.float64, minitorch.float16])
def test_mode_counts_nans_as_one_value(device, dtype):
    # kernels/ReduceRules.h mode_run_end, shared by the CPU and CUDA kernels: NaNs form one run
    nan = float("nan")
    x = minitorch.tensor([[nan, 1.0, nan, nan, 2.0], [1.0, nan, 1.0, 2.0, nan]], dtype=dtype, device=device)
    v, i = x.mode(1)
    vals = to_np(v).astype(np.float64)
    assert np.isnan(vals[0]) and vals[1] == 1.0
    picked = to_np(x).astype(np.float64)[np.arange(2), to_np(i)]
    assert np.isnan(picked[0]) and picked[1] == 1.0


def _stable_order(a, descending):
    """The stable sort's permutation by NumPy's lexsort: NaN largest (first when descending), -0.0 equal to
    +0.0, ties by position in both directions."""
    pos = np.arange(a.shape[-1])
    f = a.astype(np.float64)
    nan = np.isnan(f)
    key = np.where(nan, 0.0, f) + 0.0  # + 0.0 folds -0.0 into +0.0
    if descending:
        return np.lexsort((pos, -key, ~nan))
    return np.lexsort((pos, key, nan))


@pytest.mark.parametrize(
    "dtype", [minitorch.float32, minitorch.float64, minitorch.float16, minitorch.int64, minitorch.int32, minitorch.int16, minitorch.int8,
              minitorch.uint8, minitorch.bool],
)  # fmt: skip
@pytest.mark.parametrize("descending", [False, True])
def test_long_rows_radix_path(dtype, descending):
    """Rows of 4096 and more take the CPU's radix sort: the same stable order as the comparison sort, for every
    dtype, with NaN, -0.0, infinities and many ties; several rows at once."""
    rng = np.random.default_rng(5)
    n = 9000
    if dtype == minitorch.bool:
        a = rng.random((3, n)) > 0.5
    elif dtype.is_floating_point:
        a = rng.integers(-40, 40, (3, n)) / 4.0
        for row in a:
            row[rng.integers(0, n, 30)] = np.nan
            row[rng.integers(0, n, 30)] = -0.0
            row[rng.integers(0, n, 5)] = np.inf
            row[rng.integers(0, n, 5)] = -np.inf
    else:
        lo = 0 if dtype in (minitorch.uint8,) else -100
        a = rng.integers(lo, 100, (3, n))
    x = minitorch.tensor(a).to(dtype)
    v, i = minitorch.sort(x, descending=descending, stable=True)
    want = np.stack([_stable_order(row, descending) for row in x.double().numpy()])
    np.testing.assert_array_equal(i.numpy(), want)
    np.testing.assert_array_equal(v.double().numpy(), np.take_along_axis(x.double().numpy(), want, 1))
    # argsort and the unstable spelling give the same order (ours is stable either way)
    np.testing.assert_array_equal(minitorch.argsort(x, descending=descending).numpy(), want)
    # a transposed input sorts along its (non-contiguous) last dim the same way
    np.testing.assert_array_equal(
        minitorch.sort(x.t().contiguous().t(), descending=descending)[1].numpy(), want
    )


@pytest.mark.parametrize("dtype", SORTABLE)
@pytest.mark.parametrize("layout", ["contiguous", "transposed"])
def test_median_nanmedian_of_all_elements(device, dtype, layout):
    # the whole-tensor forms select the value alone (ops/sort.cpp median_all): NumPy's lower median, NaN for
    # median when any element is NaN, the lower median of the others for nanmedian
    rng = np.random.default_rng(11)
    for shape in [(1,), (2,), (5, 7, 6), (4, 33)]:
        a = make_array(shape, dtype, rng, -20, 20)
        x = make_tensor(a, dtype, device, layout)
        flat = np.sort(to_np(x).ravel().astype(np.float64))
        want = flat[(flat.size - 1) // 2]
        for got in (x.median(), minitorch.median(x), minitorch.nanmedian(x)):
            assert got.shape == () and got.dtype == x.dtype and got.item() == want
    if dtype in FLOAT_DTYPES:
        x = minitorch.tensor(
            [[3.0, math.nan, -0.0, 1.0], [math.nan, 2.0, 5.0, 0.0]], dtype=dtype, device=device
        )
        assert math.isnan(x.median().item())
        assert minitorch.nanmedian(x).item() == 1.0  # of [3, -0, 1, 2, 5, 0]: the lower median
        assert math.isnan(
            minitorch.nanmedian(minitorch.full((3,), math.nan, dtype=x.dtype, device=device)).item()
        )


def test_median_of_all_elements_shares_the_gradient_among_ties(device):
    # PyTorch's evenly_distribute_backward: every element equal to the median (every NaN when it is NaN) gets
    # an equal share, where the dim form gives all to one index
    x = minitorch.tensor(
        [1.0, 2.0, 2.0, 3.0, 2.0], dtype=minitorch.float64, device=device, requires_grad=True
    )
    x.median().backward(minitorch.tensor(3.0, dtype=minitorch.float64, device=device))
    np.testing.assert_allclose(to_np(x.grad), [0, 1, 1, 0, 1])
    for f, want in ((minitorch.median, [0, 0.5, 0, 0.5]), (minitorch.nanmedian, [1, 0, 0, 0])):
        y = minitorch.tensor([1.0, math.nan, 2.0, math.nan], device=device, requires_grad=True)
        f(y).backward()
        np.testing.assert_allclose(to_np(y.grad), want)
    z = minitorch.tensor([4.0, -1.0, 0.5, 7.0, 3.0, 2.0], dtype=minitorch.float64, device=device)
    assert gradcheck(lambda t: t.median(), (z.requires_grad_(),))
    assert gradcheck(lambda t: minitorch.nanmedian(t), (z,))
    e = minitorch.empty(0, 2, device=device, requires_grad=True)
    e.median().backward()
    assert e.grad.shape == (0, 2)
