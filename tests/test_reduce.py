"""Reductions, arg-reductions, scans and softmax against float64 NumPy references.

Covers dtypes, dims, keepdim, non-contiguous layouts, empty tensors, the parallel path and PyTorch's errors.
"""

import itertools
import math

import numpy as np
import pytest
from utils import (
    FLOAT_DTYPES,
    INT_DTYPES,
    TOL,
    assert_matches,
    expanded_array,
    make_array,
    make_tensor,
    to_np,
)

import minitorch

SHAPE = (3, 4, 5)


@pytest.fixture(autouse=True)
def _device_has_kernels(request):
    """Skips a device whose backend has not registered the reduction kernels yet (CUDA ones come later)."""
    if "device" in request.fixturenames and request.getfixturevalue("device") != "cpu":
        try:
            minitorch.ones(2, device=request.getfixturevalue("device")).sum()
        except NotImplementedError:
            pytest.skip("no reduction kernels for this device yet")


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
        assert_matches(t.norm(p), minitorch.norm(t, p=p).double().numpy(), rtol=0, atol=0)


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
    with pytest.raises(RuntimeError, match=r"argmax\(\): Expected reduction dim to be specified"):
        m.argmax()
    with pytest.raises(IndexError, match=r"amin\(\): Expected reduction dim"):
        m.amin()


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
    with pytest.raises(
        RuntimeError,
        match=r"mean\(\): could not infer output dtype. Input dtype must be either a floating point or complex "
        r"dtype. Got: Long",
    ):
        i.mean()
    with pytest.raises(RuntimeError, match="Optional dtype must be either a floating point"):
        t.mean(dtype=minitorch.int32)
    with pytest.raises(RuntimeError, match="std and var only support floating point and complex dtypes"):
        i.var()
    with pytest.raises(RuntimeError, match="not implemented for 'Long'"):
        i.softmax(0)
    with pytest.raises(RuntimeError, match="Expected a floating point or complex tensor as input. Got Long"):
        i.norm()
    with pytest.raises(RuntimeError, match="not implemented for 'Bool'"):
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


def test_float32_sum_accuracy(device):
    # float32 sum of 1e6 values is within NumPy-pairwise-level error of the exact (float64) sum
    rng = np.random.default_rng(13)
    x = rng.uniform(0, 1, 1_000_000).astype(np.float32)
    got = minitorch.tensor(x, device=device).sum().item()
    exact = x.astype(np.float64).sum()
    assert abs(got - exact) / exact < 1e-6


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
                    got = t.norm(dim=dims, keepdim=keepdim)
                else:
                    got = getattr(t, op)(dims, keepdim=keepdim)
                assert got.is_contiguous()
                assert_matches(got, refs[op](a, axis=dims, keepdims=keepdim))
