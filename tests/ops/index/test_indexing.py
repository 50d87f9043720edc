"""Indexing against NumPy: basic keys (views), advanced keys (copies), assignment, gather/scatter and friends,
and the errors PyTorch raises for bad keys."""

import itertools
import re
import warnings

import numpy as np
import pytest

import minitorch
from tests.utils import ALL_DTYPES, cases_here_and_in_pytorch, make_array, to_np

A = np.arange(60, dtype=np.float64).reshape(3, 4, 5)

KEYS = [
    1,
    -1,
    (0, 2),
    (0, 2, 4),
    (-1, -2, -3),
    slice(None),
    slice(1, 3),
    slice(None, None, 2),
    slice(-2, None),
    slice(5, 10),
    (slice(None), 1),
    (Ellipsis, 1),
    (1, Ellipsis),
    (None, 1),
    (Ellipsis, None),
    (slice(None), None, slice(1, 3)),
    (0, slice(1, None, 2), slice(None, None, 3)),
    (Ellipsis,),
    (),
    [0, 2],
    [[0, 1], [2, 2]],
    (slice(None), [0, 3]),
    ([0, 2], [1, 3]),
    ([0, 2], slice(None), [1, 3]),
    (slice(None), [0, 1], [1, 2]),
    (1, [0, 3], slice(None)),
    ([[0], [2]], [1, 3]),
    (Ellipsis, [0, 4]),
    (None, [1], slice(1, 3)),
    (slice(None), [3, -1], None),
]


@pytest.mark.parametrize("key", KEYS, ids=[repr(k) for k in KEYS])
def test_getitem_matches_numpy(device, key):
    t = minitorch.tensor(A, device=device)
    np_key = (
        tuple(np.array(k) if isinstance(k, list) else k for k in key)
        if isinstance(key, tuple)
        else (np.array(key) if isinstance(key, list) else key)
    )
    mt_key = (  # index tensors on the tested device; the list keys below stay on the host
        tuple(minitorch.tensor(k, device=device) if isinstance(k, list) else k for k in key)
        if isinstance(key, tuple)
        else (minitorch.tensor(key, device=device) if isinstance(key, list) else key)
    )
    expected = A[np_key]
    got = t[mt_key]
    assert tuple(got.shape) == expected.shape
    np.testing.assert_array_equal(to_np(got), expected)
    # Python lists as keys behave the same, but for a list holding lists: PyTorch's tuple of them (its
    # treatSequenceAsTuple, with a deprecation warning), where NumPy now reads one array
    as_tuple = isinstance(key, list) and any(isinstance(k, list) for k in key)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        got_list = t[key]
    np.testing.assert_array_equal(
        to_np(got_list), A[tuple(np.array(k) for k in key)] if as_tuple else expected
    )
    assert len(w) == as_tuple


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_getitem_dtypes_and_masks(dtype, device):
    rng = np.random.default_rng(0)
    a = make_array((4, 6), dtype, rng)
    t = minitorch.tensor(a, dtype=dtype, device=device)
    mask = rng.random((4, 6)) > 0.5
    for where in {"cpu", device}:  # masks and indices on the host or beside the tensor
        got = t[minitorch.tensor(mask, device=where)]
        assert got.device == t.device
        np.testing.assert_array_equal(to_np(got), a[mask])
        rows = rng.random(4) > 0.5
        np.testing.assert_array_equal(to_np(t[minitorch.tensor(rows, device=where)]), a[rows])
        cols = minitorch.tensor([5, 0, 0], device=where)
        np.testing.assert_array_equal(to_np(t[:, cols]), a[:, [5, 0, 0]])
    assert t[0, 0].dtype == dtype


def test_basic_index_is_view(device):
    t = minitorch.zeros(3, 4, device=device)
    v = t[1]
    v.fill_(5)
    assert t.tolist()[1] == [5.0] * 4
    s = t[:, 1:3]
    s.fill_(7)
    assert to_np(t)[:, 1:3].tolist() == [[7.0, 7.0]] * 3
    assert t[::2]._is_view_of(t)
    adv = t[[0, 1]]
    adv.fill_(-1)  # advanced indexing copies
    assert to_np(t)[0, 0] == 0.0 and to_np(t)[0, 1] == 7.0


def test_non_contiguous_base(device):
    a = np.arange(48.0).reshape(6, 8)
    t = minitorch.tensor(a, device=device).t()[1::2]
    an = a.T[1::2]
    np.testing.assert_array_equal(to_np(t[[0, 2], 1:5:2]), an[[0, 2], 1:5:2])
    np.testing.assert_array_equal(to_np(t[an > 20]), an[an > 20])


def test_labels_pattern(device):
    logits = minitorch.tensor(A[0], device=device)
    labels = minitorch.tensor([3, 0, 1, 4], device=device)
    got = logits[minitorch.arange(4, device=device), labels]
    assert got.device == logits.device
    np.testing.assert_array_equal(to_np(got), A[0][np.arange(4), [3, 0, 1, 4]])


def test_empty_results(device):
    t = minitorch.tensor(A, device=device)
    assert t[t > 1000].shape == (0,)
    assert t[:, []].shape == (3, 0, 5)
    assert t[1:1].shape == (0, 4, 5)


def test_bool_keys(device):
    t = minitorch.tensor(A, device=device)
    assert t[None].shape == (1, 3, 4, 5)
    assert t[True].shape == (1, 3, 4, 5)
    assert t[False].shape == (0, 3, 4, 5)
    assert t[minitorch.tensor(2)].shape == (4, 5)
    assert t[minitorch.tensor(2, device=device)].shape == (4, 5)


SET_KEYS = [
    1,
    (0, 2),
    slice(1, 3),
    (slice(None), 1),
    (Ellipsis, 0),
    [0, 2],
    ([0, 2], [1, 3]),
    (slice(None), [0, 3], slice(1, 3)),
]


@pytest.mark.parametrize("key", SET_KEYS, ids=[repr(k) for k in SET_KEYS])
def test_setitem_matches_numpy(device, key):
    a = A.copy()
    t = minitorch.tensor(A, device=device)
    np_key = (
        tuple(np.array(k) if isinstance(k, list) else k for k in key)
        if isinstance(key, tuple)
        else (np.array(key) if isinstance(key, list) else key)
    )
    a[np_key] = -1.5
    t[key] = -1.5
    np.testing.assert_array_equal(to_np(t), a)
    vals = np.arange(np.asarray(a[np_key]).size, dtype=np.float64).reshape(np.asarray(a[np_key]).shape)
    a[np_key] = vals
    t[key] = minitorch.tensor(vals, device=device)
    np.testing.assert_array_equal(to_np(t), a)


def test_setitem_mask_broadcast_and_cast(device):
    a = A.copy()
    t = minitorch.tensor(A, device=device)
    t[t > 30] = 0
    a[a > 30] = 0
    np.testing.assert_array_equal(to_np(t), a)
    t[t < 5] = minitorch.tensor(-2.0, device=device)
    a[a < 5] = -2.0
    np.testing.assert_array_equal(to_np(t), a)
    i = minitorch.zeros(2, 3, dtype=minitorch.int64, device=device)
    i[:, 1] = minitorch.tensor([7.9, 8.2], device=device)  # cast to the destination dtype
    assert i.tolist() == [[0, 7, 0], [0, 8, 0]]
    i[0] = minitorch.tensor([1, 2, 3], device=device)
    assert i.tolist()[0] == [1, 2, 3]
    v0 = t._version
    t[0] = 1
    assert t._version > v0


def test_index_put_accumulate(device):
    t = minitorch.zeros(5, device=device)
    t.index_put_((minitorch.tensor([0, 1, 1, 3, 1], device=device),), minitorch.tensor(1.0), accumulate=True)
    assert t.tolist() == [1.0, 3.0, 0.0, 1.0, 0.0]
    out = t.index_put((minitorch.tensor([4], device=device),), minitorch.tensor(9.0, device=device))
    assert out.tolist()[4] == 9.0 and t.tolist()[4] == 0.0


@pytest.mark.parametrize(
    "dtype", [minitorch.float32, minitorch.float64, minitorch.int64, minitorch.float16], ids=str
)
def test_gather_scatter_index_select(dtype, device):
    rng = np.random.default_rng(1)
    a = make_array((4, 5), dtype, rng)
    t = minitorch.tensor(a, dtype=dtype, device=device)
    idx = rng.integers(0, 5, size=(4, 3))
    got = minitorch.gather(t, 1, minitorch.tensor(idx, device=device))
    assert got.device == t.device
    np.testing.assert_array_equal(to_np(got), np.take_along_axis(a, idx, 1))
    idx0 = rng.integers(0, 4, size=(2, 5))
    np.testing.assert_array_equal(
        to_np(t.gather(0, minitorch.tensor(idx0, device=device))), np.take_along_axis(a, idx0, 0)
    )
    # a transposed source and a transposed index take the strided paths
    idx_t = rng.integers(0, 4, size=(2, 5))  # stored [2, 5], used as its [5, 2] transpose
    got = t.t().gather(1, minitorch.tensor(idx_t, device=device).t())
    np.testing.assert_array_equal(to_np(got), np.take_along_axis(a.T, idx_t.T, 1))
    got = minitorch.index_select(t, 1, minitorch.tensor([4, 0], device=device))
    np.testing.assert_array_equal(to_np(got), a[:, [4, 0]])
    np.testing.assert_array_equal(
        to_np(t.index_select(0, minitorch.tensor([3, 3], device=device))), a[[3, 3]]
    )
    # scatter: a permutation per row so no duplicates
    perm = np.stack([rng.permutation(5) for _ in range(4)])
    src = make_array((4, 5), dtype, rng)
    exp = np.zeros_like(a)
    np.put_along_axis(exp, perm, src, 1)
    got = minitorch.zeros(4, 5, dtype=dtype, device=device).scatter_(
        1, minitorch.tensor(perm, device=device), minitorch.tensor(src, dtype=dtype, device=device)
    )
    np.testing.assert_array_equal(to_np(got), exp)


def test_scatter_add_and_reduce(device):
    idx = minitorch.tensor([[0, 1, 0, 2]], device=device)
    src = minitorch.tensor([[1.0, 2.0, 3.0, 4.0]], device=device)
    assert minitorch.zeros(1, 3, device=device).scatter_add_(1, idx, src).tolist() == [[4.0, 2.0, 4.0]]
    got = minitorch.ones(1, 3, device=device).scatter(1, idx, src, reduce="multiply")
    assert got.tolist() == [[3.0, 2.0, 4.0]]
    assert minitorch.zeros(1, 3, device=device).scatter_(1, idx, 5.0).tolist() == [[5.0, 5.0, 5.0]]
    with pytest.raises(RuntimeError, match="reduce argument must be either add or multiply"):
        minitorch.zeros(1, 3, device=device).scatter_(1, idx, src, reduce="max")


def test_scatter_along_dense_dim_exact_order(device):
    """Scatters along a dense dim (1-D, or the last dim) pair up updates: each element must still take its
    updates in index order (runs of equal neighbours, odd lengths), bit for bit, and a bad index raises after
    the updates before it, as PyTorch's loop."""
    rng = np.random.default_rng(11)
    for n in (1, 2, 7, 1000, 4097):
        idx = rng.integers(0, 5, n)
        idx[n // 3 : n // 3 + 4] = 2  # a run of equal neighbours
        src = rng.standard_normal(n).astype(np.float32) * 1e3
        exp = np.zeros(5, np.float32)
        np.add.at(exp, idx, src)  # float32, in index order
        z = minitorch.zeros(5, device=device)
        z.scatter_add_(0, minitorch.tensor(idx, device=device), minitorch.tensor(src, device=device))
        if device == "cpu":
            assert np.array_equal(z.cpu().numpy(), exp)
        else:  # CUDA adds with atomics, in no fixed order (as PyTorch's CUDA kernel): equal up to rounding
            np.testing.assert_allclose(z.cpu().numpy(), exp, rtol=1e-5, atol=1e-6 * np.abs(src).sum())
        last = np.zeros(5, np.float32)
        for k, v in zip(idx, src):
            last[k] = v
        z = minitorch.zeros(5, device=device)
        z.scatter_(0, minitorch.tensor(idx, device=device), minitorch.tensor(src, device=device))
        if device == "cpu":
            assert np.array_equal(z.cpu().numpy(), last)
        else:  # which duplicate lands is unspecified on CUDA (PyTorch documents the same): one of them did
            got = z.cpu().numpy()
            for k in range(5):
                cands = src[idx == k]
                assert (got[k] in cands) if len(cands) else got[k] == 0
    rows = rng.integers(0, 6, (3, 9))
    vals = rng.standard_normal((3, 9))
    exp = np.zeros((3, 6))
    for r in range(3):
        np.add.at(exp[r], rows[r], vals[r])
    got = minitorch.zeros(3, 6, dtype=minitorch.float64, device=device)
    got.scatter_add_(1, minitorch.tensor(rows, device=device), minitorch.tensor(vals, device=device))
    if device == "cpu":
        assert np.array_equal(to_np(got), exp)
    else:
        np.testing.assert_allclose(to_np(got), exp, rtol=1e-13, atol=1e-13)
    for bad_at, exp in ((2, [1.0, 1.0, 0.0]), (1, [1.0, 0.0, 0.0])):
        i = [0, 1, 2, 2]
        i[bad_at] = 5
        z = minitorch.zeros(3, device=device)
        with pytest.raises(RuntimeError, match="index 5 is out of bounds for dimension 0 with size 3"):
            z.scatter_add_(0, minitorch.tensor(i, device=device), minitorch.ones(4, device=device))
        if device == "cpu":  # the updates before it stay, as PyTorch's CPU loop leaves them
            assert z.tolist() == exp


def test_nonzero_masked_select_where(device):
    a = np.array([[0, 1, 0], [2, 0, 3]])
    t = minitorch.tensor(a, device=device)
    assert minitorch.nonzero(t).device == t.device
    np.testing.assert_array_equal(to_np(minitorch.nonzero(t)), np.argwhere(a))
    rows, cols = minitorch.nonzero(t, as_tuple=True)
    np.testing.assert_array_equal(to_np(rows), np.nonzero(a)[0])
    np.testing.assert_array_equal(to_np(cols), np.nonzero(a)[1])
    r2, c2 = minitorch.where(t > 0)
    np.testing.assert_array_equal(to_np(r2), np.nonzero(a)[0])
    np.testing.assert_array_equal(to_np(c2), np.nonzero(a)[1])
    np.testing.assert_array_equal(to_np(minitorch.masked_select(t, t > 0)), a[a > 0])
    assert minitorch.nonzero(minitorch.zeros(0, 3, device=device)).shape == (0, 2)


def test_bad_keys(device):
    t = minitorch.tensor(A, device=device)
    with pytest.raises(IndexError, match="index 3 is out of bounds for dimension 0 with size 3"):
        t[3]
    with pytest.raises(IndexError, match="out of bounds for dimension 1 with size 4"):
        t[0, -5]
    with pytest.raises(IndexError, match="too many indices for tensor of dimension 3"):
        t[0, 0, 0, 0]
    with pytest.raises(IndexError, match="tensors used as indices must be long, int, byte or bool tensors"):
        t[minitorch.tensor([0.0, 1.0])]
    with pytest.raises(IndexError, match="index 7 is out of bounds"):
        t[[0, 7]]
    with pytest.raises(ValueError, match="step must be greater than zero"):
        t[::-1]
    with pytest.raises(IndexError, match="an index can only have a single ellipsis"):
        t[..., 0, ...]
    with pytest.raises(IndexError, match="The shape of the mask"):
        t[minitorch.ones(2, 4, dtype=minitorch.bool)]
    # gather/scatter raise RuntimeError in PyTorch (its CPU kernel's TORCH_CHECK), plain indexing IndexError
    with pytest.raises(RuntimeError, match="index 9 is out of bounds for dimension 1 with size 5"):
        minitorch.gather(t[0], 1, minitorch.tensor([[9]], device=device))
    with pytest.raises(RuntimeError, match="Index tensor must have the same number of dimensions"):
        minitorch.gather(t[0], 1, minitorch.tensor([1], device=device))
    with pytest.raises(RuntimeError, match="shape mismatch|expanded size|must match"):
        t[[0, 1]] = minitorch.ones(3, device=device)
    with pytest.raises(TypeError):
        t["a"]


# Every dtype through the accumulating kernels: CUDA uses native atomics for float/double/half/bfloat16 and
# 32/64-bit ints, compare-and-swap loops for 8/16-bit ints and for multiply. Duplicates are the point.
ACC_DTYPES = ALL_DTYPES


@pytest.mark.parametrize("dtype", ACC_DTYPES, ids=str)
def test_index_put_accumulate_duplicates_all_dtypes(dtype, device):
    rng = np.random.default_rng(3)
    n = 7
    idx = rng.integers(0, n, size=300)
    if dtype == minitorch.bool:
        vals = rng.random(300) > 0.7
        exp = np.zeros(n, dtype=bool)
        np.logical_or.at(exp, idx, vals)
    else:
        vals = rng.integers(0, 3, size=300).astype(np.float64)  # small integers: exact in every dtype
        exp = np.zeros(n)
        np.add.at(exp, idx, vals)
        if dtype in (minitorch.int8, minitorch.uint8, minitorch.int16):
            exp = exp.astype(np.int64).astype(NP_WRAP[dtype]).astype(np.float64)  # integer adds wrap
    t = minitorch.zeros(n, dtype=dtype, device=device)
    t.index_put_(
        (minitorch.tensor(idx, device=device),),
        minitorch.tensor(vals, dtype=dtype, device=device),
        accumulate=True,
    )
    np.testing.assert_array_equal(to_np(t), exp)


NP_WRAP = {minitorch.int8: np.int8, minitorch.uint8: np.uint8, minitorch.int16: np.int16}


@pytest.mark.parametrize("dtype", ACC_DTYPES, ids=str)
def test_scatter_multiply_and_add_duplicates_all_dtypes(dtype, device):
    rng = np.random.default_rng(4)
    idx = rng.integers(0, 4, size=(3, 12))
    if dtype == minitorch.bool:
        src = rng.random((3, 12)) > 0.2
        base = np.ones((3, 4), dtype=bool)
        exp_mul = base.copy()
        for i in range(3):
            np.logical_and.at(exp_mul[i], idx[i], src[i])
        exp_add = base.copy()
    else:
        # +-1 and 2 (and 0.5 for floats): every product is exact; the magnitude stays within int8
        choices = [1.0, -1.0, 2.0, 0.5] if dtype.is_floating_point else [1.0, -1.0, 2.0]
        if dtype == minitorch.uint8:
            choices = [1.0, 2.0]
        src = rng.choice(choices, size=(3, 12))
        if not dtype.is_floating_point:
            src[rng.random((3, 12)) < 0.7] = 1.0  # keep products small
        base = np.ones((3, 4))
        exp_mul = base.copy()
        exp_add = base.copy()
        for i in range(3):
            np.multiply.at(exp_mul[i], idx[i], src[i])
            np.add.at(exp_add[i], idx[i], src[i])
    t_idx = minitorch.tensor(idx, device=device)
    t_src = minitorch.tensor(src, dtype=dtype, device=device)
    got = minitorch.ones(3, 4, dtype=dtype, device=device).scatter_(1, t_idx, t_src, reduce="multiply")
    np.testing.assert_array_equal(to_np(got), exp_mul)
    if dtype != minitorch.bool:
        got = minitorch.ones(3, 4, dtype=dtype, device=device).scatter_add_(1, t_idx, t_src)
        np.testing.assert_array_equal(to_np(got), exp_add)


def test_accumulate_many_duplicates_into_few_slots(device):
    # thousands of atomic adds contending for 5 addresses; counts stay exact in float32
    idx = np.arange(20000) % 5
    t = minitorch.zeros(5, device=device)
    t.index_put_(
        (minitorch.tensor(idx, device=device),), minitorch.ones(20000, device=device), accumulate=True
    )
    assert t.tolist() == [4000.0] * 5
    h = minitorch.zeros(5, dtype=minitorch.float16, device=device)
    one = minitorch.tensor(1.0, dtype=minitorch.float16)  # PyTorch's index_put_ takes self's dtype only
    h.index_put_((minitorch.tensor(idx[:1000], device=device),), one, accumulate=True)
    assert h.tolist() == [200.0] * 5


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
@pytest.mark.parametrize("shape", [(), (1,), (37,), (4, 6), (3, 1, 5), (2, 3, 4, 5)], ids=str)
def test_nonzero_matches_numpy(dtype, shape, device):
    rng = np.random.default_rng(5)
    a = make_array(shape, dtype, rng)
    if dtype != minitorch.bool:
        a = np.where(rng.random(shape) < 0.5, 0, a)
    t = minitorch.tensor(a, dtype=dtype, device=device)
    got = minitorch.nonzero(t)
    assert got.dtype == minitorch.int64 and got.device == t.device
    np.testing.assert_array_equal(to_np(got), np.argwhere(a))
    if len(shape) >= 2:  # a transposed (non-contiguous) input
        np.testing.assert_array_equal(
            to_np(minitorch.nonzero(t.transpose(0, 1))), np.argwhere(np.swapaxes(a, 0, 1))
        )


def test_nonzero_large_and_special_values(device):
    # more than one CUB tile, and the values that are (not) zero: -0.0 is zero, NaN is not
    n = (1 << 20) + 3
    a = np.zeros(n, dtype=np.float32)
    hits = np.random.default_rng(6).choice(n, size=5000, replace=False)
    a[hits] = 1.0
    a[hits[:10]] = np.nan
    a[:7] = -0.0
    t = minitorch.tensor(a, device=device)
    np.testing.assert_array_equal(to_np(minitorch.nonzero(t)).ravel(), np.flatnonzero(a))
    big = t.reshape(1024, -1) if n % 1024 == 0 else t[: 1024 * 1024].reshape(1024, 1024)
    np.testing.assert_array_equal(
        to_np(minitorch.nonzero(big)), np.argwhere(a[: 1024 * 1024].reshape(1024, 1024))
    )
    assert minitorch.nonzero(minitorch.zeros(4, 4, device=device)).shape == (0, 2)
    assert minitorch.nonzero(minitorch.tensor(3.0, device=device)).shape == (1, 0)
    assert minitorch.nonzero(minitorch.tensor(0.0, device=device)).shape == (0, 0)


def _mask_with_runs(shape, rng):
    """A mask of whole true and false stretches (eight-byte groups all one value) and scattered values."""
    n = int(np.prod(shape))
    runs = np.repeat(rng.random((n + 15) // 16) < 0.5, 16)[:n]
    mixed = rng.random(n) < 0.5
    return np.where(np.arange(n) % 48 < 32, runs, mixed).reshape(shape)


@pytest.mark.parametrize("dtype", [*ALL_DTYPES, minitorch.complex64, minitorch.complex128], ids=str)
def test_masked_select_moves_every_width(dtype, device):
    # the CPU's one-pass compaction moves elements by width (1 to 16 bytes): values against NumPy for every
    # dtype over contiguous, transposed, strided and expanded inputs, and the empty cases
    rng = np.random.default_rng(31)
    if dtype.is_complex:
        a = (rng.standard_normal((37, 29)) + 1j * rng.standard_normal((37, 29))).astype(
            np.complex64 if dtype == minitorch.complex64 else np.complex128
        )
        t = minitorch.tensor(a, device=device)

        def host(x):
            return x.cpu().numpy()
    else:
        a = make_array((37, 29), dtype, rng)
        t = minitorch.tensor(a, dtype=dtype, device=device)
        host = to_np
    m = _mask_with_runs((37, 29), rng)
    mt_m = minitorch.tensor(m, device=device)
    np.testing.assert_array_equal(host(t[mt_m]), a[m])
    np.testing.assert_array_equal(host(minitorch.masked_select(t, mt_m)), a[m])
    mT = np.ascontiguousarray(m.T)
    np.testing.assert_array_equal(host(t.t()[minitorch.tensor(mT, device=device)]), a.T[mT])
    ms = np.ascontiguousarray(m[::2, 1::3])
    np.testing.assert_array_equal(host(t[::2, 1::3][minitorch.tensor(ms, device=device)]), a[::2, 1::3][ms])
    row = t[3]  # a row against a mask of the whole shape: the row expanded (stride 0)
    np.testing.assert_array_equal(host(minitorch.masked_select(row, mt_m)), np.broadcast_to(a[3], m.shape)[m])
    every = np.ones((37, 29), dtype=bool)
    np.testing.assert_array_equal(host(t.t()[minitorch.tensor(every.T.copy(), device=device)]), a.T.ravel())
    none = minitorch.zeros(37, 29, dtype=minitorch.bool, device=device)
    assert t[none].shape == (0,) and t[none].dtype == dtype
    e = t[:0]
    assert minitorch.masked_select(e, mt_m[:0]).shape == (0,)


def test_masked_select_gradient_through_compaction(device):
    rng = np.random.default_rng(32)
    a = rng.standard_normal((6, 5))
    m = _mask_with_runs((6, 5), rng)
    x = minitorch.tensor(a, device=device).t().requires_grad_(True)  # a transposed leaf
    mask = minitorch.tensor(np.ascontiguousarray(m.T), device=device)
    w = minitorch.tensor(rng.standard_normal(int(m.sum())), device=device)
    (minitorch.masked_select(x, mask) * w).sum().backward()
    expected = np.zeros((5, 6))
    expected[m.T] = to_np(w)
    np.testing.assert_array_equal(to_np(x.grad), expected)


def test_masked_select_and_mask_setitem_large(device):
    rng = np.random.default_rng(7)
    a = rng.standard_normal((300, 257))
    t = minitorch.tensor(a, device=device)
    np.testing.assert_array_equal(to_np(minitorch.masked_select(t, t > 0.5)), a[a > 0.5])
    row_mask = minitorch.tensor(rng.random(257) > 0.5, device=device)
    np.testing.assert_array_equal(to_np(minitorch.masked_select(t, row_mask)), a[:, to_np(row_mask)].ravel())
    t[t < 0] = 0.0
    a[a < 0] = 0.0
    np.testing.assert_array_equal(to_np(t), a)


def test_index_errors_on_device(device):
    # indices out of range raise on the host in PyTorch's words, never a device fault; the tensor stays usable
    t = minitorch.tensor(A, device=device)
    with pytest.raises(IndexError, match="index 7 is out of bounds for dimension 0 with size 3"):
        t[minitorch.tensor([0, 7], device=device)]
    with pytest.raises(IndexError, match="index -5 is out of bounds for dimension 1 with size 4"):
        t[:, minitorch.tensor([-5], device=device)]
    with pytest.raises(RuntimeError, match="index 5 is out of bounds for dimension 2 with size 5"):
        minitorch.gather(t, 2, minitorch.full((3, 4, 1), 5, dtype=minitorch.int64, device=device))
    with pytest.raises(RuntimeError, match="index 4 is out of bounds for dimension 1 with size 4"):
        t.clone().scatter_(1, minitorch.full((3, 1, 5), 4, dtype=minitorch.int64, device=device), 1.0)
    with pytest.raises(IndexError, match="index out of range in self"):
        minitorch.index_select(t, 0, minitorch.tensor([3], device=device))
    with pytest.raises(IndexError, match="index 3 is out of bounds for dimension 0 with size 3"):
        t.index_put_((minitorch.tensor([3], device=device),), minitorch.tensor(1.0), accumulate=True)
    with pytest.raises(IndexError, match="The shape of the mask"):
        t[minitorch.ones(2, 4, dtype=minitorch.bool, device=device)]
    np.testing.assert_array_equal(to_np(t), A)  # nothing was written
    np.testing.assert_array_equal(to_np(t[minitorch.tensor([2, 0], device=device)]), A[[2, 0]])


@pytest.mark.skipif(not minitorch.cuda.is_available(), reason="needs a GPU")
def test_index_device_rules():
    t = minitorch.tensor(A, device="cuda")
    cpu_idx = minitorch.tensor([0, 2])
    # host indices may index a CUDA tensor (as in PyTorch); the result stays on the GPU
    assert t[cpu_idx].device == t.device
    np.testing.assert_array_equal(to_np(t[cpu_idx]), A[[0, 2]])
    with pytest.raises(RuntimeError, match=r"indices should be either on cpu or on the same device"):
        minitorch.tensor(A)[minitorch.tensor([0, 2], device="cuda")]
    msg = "Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu!"
    with pytest.raises(RuntimeError, match=msg):
        minitorch.gather(t, 0, minitorch.zeros(1, 4, 5, dtype=minitorch.int64))
    with pytest.raises(RuntimeError, match=msg):
        t.clone().scatter_(0, minitorch.zeros(1, 4, 5, dtype=minitorch.int64), 1.0)


def _np_gather(a, dim, idx):
    out = np.empty(idx.shape, dtype=a.dtype)
    for pos in np.ndindex(*idx.shape):
        src = list(pos)
        src[dim] = idx[pos]
        out[pos] = a[tuple(src)]
    return out


def _np_scatter(a, dim, idx, src, op):
    a = a.copy()
    for pos in np.ndindex(*idx.shape):  # row-major order: the last duplicate wins for assign
        dst = list(pos)
        dst[dim] = idx[pos]
        a[tuple(dst)] = op(a[tuple(dst)], src[pos])
    return a


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
@pytest.mark.parametrize("dim", [0, 1, 2, -1])
def test_gather_scatter_dim_kernel_layouts(dtype, dim, device):
    """gather/scatter walk the index tensor in place: strided self/index/src, an index smaller than self in
    the other dims, a src larger than the index, duplicates, each dtype, each dim, against a NumPy loop."""
    rng = np.random.default_rng(7)
    d = dim % 3

    def values(shape):  # small dyadic values: sums and products of a few are exact in every float dtype
        if dtype.is_floating_point:
            return rng.choice([-2.0, -1.0, -0.5, 0.5, 1.0, 2.0, 3.0], size=shape)
        return make_array(shape, dtype, rng)

    a = values((6, 5, 4))
    base = minitorch.tensor(np.ascontiguousarray(a.transpose(2, 0, 1)), dtype=dtype, device=device)
    t = base.permute(1, 2, 0)  # a non-contiguous view with a's values
    assert not t.is_contiguous()
    ishape = [4, 3, 3]
    ishape[d] = 7  # longer than self along dim: duplicates for sure
    idx = rng.integers(0, a.shape[d], size=ishape)
    t_idx = minitorch.tensor(np.ascontiguousarray(idx.transpose(1, 0, 2)), device=device).transpose(0, 1)
    got = minitorch.gather(t, dim, t_idx)
    np.testing.assert_array_equal(to_np(got), _np_gather(a, d, idx).astype(to_np(got).dtype))
    # src larger than index in every dim, read through a step-2 slice
    src = values((16, 16, 16))
    t_src = minitorch.tensor(src, dtype=dtype, device=device)[::2, ::2, ::2]
    src_used = src[::2, ::2, ::2]
    for reduce, op in [(None, lambda x, y: y), ("multiply", None), ("add", None)]:
        if reduce == "add":
            op = (lambda x, y: x | y) if dtype == minitorch.bool else (lambda x, y: x + y)
        if reduce == "multiply":
            op = (lambda x, y: x & y) if dtype == minitorch.bool else (lambda x, y: x * y)
        if reduce == "multiply" and dtype in (minitorch.int8, minitorch.int16, minitorch.uint8):
            continue  # products wrap (covered with small values in the test above)
        out_base = minitorch.tensor(np.ascontiguousarray(a.transpose(2, 0, 1)), dtype=dtype, device=device)
        out = out_base.permute(1, 2, 0)
        if reduce is None:
            out.scatter_(dim, t_idx, t_src)
        else:
            out.scatter_(dim, t_idx, t_src, reduce=reduce)
        exp = _np_scatter(a, d, idx, src_used, op)
        if dtype in (minitorch.int8, minitorch.uint8, minitorch.int16):
            exp = exp.astype(np.int64).astype(NP_WRAP[dtype])
        if reduce is None and device == "cuda":
            # duplicates without a reduction: which write lands is unspecified on CUDA (PyTorch documents the
            # same), so each element must be one of the values written to it, or the old one if none was
            got = to_np(out)
            allowed = {}
            for pos in np.ndindex(*idx.shape):
                dst = list(pos)
                dst[d] = idx[pos]
                allowed.setdefault(tuple(dst), set()).add(src_used[pos].astype(got.dtype).item())
            for p in np.ndindex(*got.shape):
                want = allowed.get(p, {a[p].astype(got.dtype).item()})
                assert got[p].item() in want, (p, got[p], want)
        else:
            np.testing.assert_array_equal(to_np(out), exp.astype(to_np(out).dtype))
        # the write went through the view into the base
        np.testing.assert_array_equal(to_np(out_base.permute(1, 2, 0)), to_np(out))
    if dtype != minitorch.bool:
        got = minitorch.zeros(6, 5, 4, dtype=dtype, device=device).scatter_add(dim, t_idx, t_src)
        exp = _np_scatter(np.zeros((6, 5, 4)), d, idx, src_used.astype(np.float64), lambda x, y: x + y)
        if dtype in (minitorch.int8, minitorch.uint8, minitorch.int16):
            exp = exp.astype(np.int64).astype(NP_WRAP[dtype])
        np.testing.assert_array_equal(to_np(got), exp.astype(to_np(got).dtype))


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
@pytest.mark.parametrize("shape,k", [((2000, 300), 70), ((7, 50, 9), 13), ((3, 5000), 4000), ((5, 1), 3)])
def test_gather_last_dim_dense(dtype, shape, k, device):
    """Dense self and index along the last dim (the CPU's row loop with the next row prefetched: 1000+ rows
    split over threads; a 5000-element row of 8-byte values is past its 16 KiB row limit), against NumPy."""
    rng = np.random.default_rng(11)
    a = make_array(shape, dtype, rng)
    idx = rng.integers(0, shape[-1], size=shape[:-1] + (k,))
    t = minitorch.tensor(a, dtype=dtype, device=device)
    got = minitorch.gather(t, -1, minitorch.tensor(idx, device=device))
    assert got.is_contiguous() and got.shape == idx.shape
    want = np.take_along_axis(to_np(t), idx, -1)
    np.testing.assert_array_equal(to_np(got), want)
    idx.flat[idx.size // 2] = shape[-1]  # a bad index in the middle, past the first rows' tasks
    with pytest.raises(
        RuntimeError, match=f"index {shape[-1]} is out of bounds for dimension {len(shape) - 1}"
    ):
        minitorch.gather(t, -1, minitorch.tensor(idx, device=device))


def test_gather_scatter_empty_and_bad_indices(device):
    t = minitorch.arange(12.0, device=device).reshape(3, 4)
    empty = minitorch.zeros(0, 4, dtype=minitorch.int64, device=device)
    assert minitorch.gather(t, 0, empty).shape == (0, 4)
    assert minitorch.gather(t, 1, minitorch.zeros(3, 0, dtype=minitorch.int64, device=device)).shape == (3, 0)
    before = to_np(t)
    t.scatter_add_(0, empty, minitorch.ones(0, 4, device=device))
    t.scatter_(1, empty, 1.0)
    np.testing.assert_array_equal(to_np(t), before)
    # an empty self along dim: every index is out of bounds
    with pytest.raises(RuntimeError, match="index 0 is out of bounds for dimension 1 with size 0"):
        minitorch.gather(
            minitorch.zeros(3, 0, device=device),
            1,
            minitorch.zeros(3, 1, dtype=minitorch.int64, device=device),
        )
    # no wrapping of negative indices, as PyTorch; the bad value is named wherever it sits
    for bad, msg in [(-1, "index -1 is out of bounds for dimension 1 with size 4"), (4, "index 4 is out")]:
        idx = minitorch.zeros(3, 4, dtype=minitorch.int64, device=device)
        idx[2, 3] = bad
        with pytest.raises(RuntimeError, match=msg):
            minitorch.gather(t, 1, idx)
        with pytest.raises(RuntimeError, match=msg):
            t.clone().scatter_(1, idx, t)
        with pytest.raises(RuntimeError, match=msg):
            t.clone().scatter_add_(1, idx, t)
    # an int32 index is taken (PyTorch 2.15), other integer dtypes refused
    i32 = minitorch.tensor([[3, 0, 1, 1], [2, 2, 0, 3], [1, 0, 0, 0]], dtype=minitorch.int32, device=device)
    np.testing.assert_array_equal(
        minitorch.gather(t, 1, i32).cpu().numpy(), minitorch.gather(t, 1, i32.long()).cpu().numpy()
    )
    np.testing.assert_array_equal(
        t.clone().scatter_add_(1, i32, t).cpu().numpy(),
        t.clone().scatter_add_(1, i32.long(), t).cpu().numpy(),
    )
    tg = t.double().requires_grad_()
    minitorch.gather(tg, 1, i32).sum().backward()
    assert tg.grad.sum().item() == 12
    with pytest.raises(RuntimeError, match="gather\\(\\): Expected dtype int32/int64 for index"):
        minitorch.gather(t, 1, minitorch.zeros(3, 4, dtype=minitorch.int16, device=device))
    with pytest.raises(RuntimeError, match="Size does not match at dimension 0"):
        minitorch.gather(t, 1, minitorch.zeros(4, 4, dtype=minitorch.int64, device=device))
    with pytest.raises(RuntimeError, match="to be no larger size than src"):
        t.clone().scatter_(1, minitorch.zeros(3, 4, dtype=minitorch.int64, device=device), t[:, :2])


@pytest.mark.parametrize("p", [0.0, 0.01, 0.5, 1.0], ids=str)
@pytest.mark.parametrize("threads", [1, 2])
def test_mask_index_across_blocks(p, threads, device):
    # the CPU compacts masks in blocks of 2^16 elements, in parallel: sizes around and across block edges,
    # every density, masks over all / leading / middle dims, a non-contiguous and an expanded tensor
    rng = np.random.default_rng(8)
    old = minitorch.get_num_threads()
    minitorch.set_num_threads(threads)
    try:
        for shape in [(65535,), (65536,), (65537,), (200003,), (3, 70001), (70001, 3), (2, 1, 66000)]:
            a = rng.standard_normal(shape).astype(np.float32)
            m = rng.random(shape) < p
            t = minitorch.tensor(a, device=device)
            np.testing.assert_array_equal(to_np(t[minitorch.tensor(m, device=device)]), a[m])
            np.testing.assert_array_equal(to_np(minitorch.nonzero(minitorch.tensor(m))), np.argwhere(m))
            m0 = np.ascontiguousarray(m.reshape(shape[0], -1)[:, 0])
            np.testing.assert_array_equal(to_np(t[minitorch.tensor(m0, device=device)]), a[m0])
            if len(shape) >= 2:
                tt = minitorch.tensor(np.ascontiguousarray(np.swapaxes(a, 0, -1)), device=device).transpose(
                    0, -1
                )
                np.testing.assert_array_equal(to_np(tt[minitorch.tensor(m, device=device)]), a[m])
                m1 = rng.random(shape[1]) < p
                np.testing.assert_array_equal(to_np(tt[:, minitorch.tensor(m1, device=device)]), a[:, m1])
            row = minitorch.tensor(a.reshape(-1)[: shape[-1]], device=device).expand(*shape)
            np.testing.assert_array_equal(
                to_np(minitorch.masked_select(row, minitorch.tensor(m, device=device))),
                np.broadcast_to(a.reshape(-1)[: shape[-1]], shape)[m],
            )
            b = a.copy()
            b[m] = -1.0
            t[minitorch.tensor(m, device=device)] = -1.0
            np.testing.assert_array_equal(to_np(t), b)
    finally:
        minitorch.set_num_threads(old)


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_index_put_rows_layouts(dtype, device):
    # x[idx] = v moves whole rows (dense rows: one copy per row); strided rows take the element loop
    rng = np.random.default_rng(9)
    a = make_array((50, 9), dtype, rng)
    v = make_array((30, 9), dtype, rng)
    idx = (
        rng.permutation(50)[:30] - 25
    )  # distinct rows (duplicates have no defined winner on a GPU), some < 0
    want = a.copy()
    want[idx] = v
    t = minitorch.tensor(a, dtype=dtype, device=device)
    t[minitorch.tensor(idx, device=device)] = minitorch.tensor(v, dtype=dtype, device=device)
    np.testing.assert_array_equal(to_np(t), want)
    tt = minitorch.tensor(np.ascontiguousarray(a.T), dtype=dtype, device=device).T  # strided rows
    tt[minitorch.tensor(idx, device=device)] = minitorch.tensor(v, dtype=dtype, device=device)
    np.testing.assert_array_equal(to_np(tt), want)


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("dtype", [minitorch.float32, minitorch.float64, minitorch.int64, minitorch.float16])
def test_index_put_many_rows_with_duplicates(dtype, threads):
    # at any thread count duplicates resolve as one serial loop would (the last write wins; sums add in index
    # order, so float results are bit-identical to NumPy's add.at)
    rng = np.random.default_rng(10)
    a = minitorch.tensor(make_array((5000, 24), dtype, rng), dtype=dtype).numpy()  # NumPy in the same dtype
    v = minitorch.tensor(make_array((4000, 24), dtype, rng), dtype=dtype).numpy()
    idx = rng.integers(-5000, 5000, 4000)
    idx[100:200] = idx[0]  # many writes to one row
    old = minitorch.get_num_threads()
    minitorch.set_num_threads(threads)
    try:
        want = a.copy()
        for k, i in enumerate(idx):
            want[i] = v[k]
        t = minitorch.tensor(a, dtype=dtype)
        t[minitorch.tensor(idx)] = minitorch.tensor(v, dtype=dtype)
        np.testing.assert_array_equal(t.numpy(), want)
        want = a.copy()
        np.add.at(want, idx, v)
        t = minitorch.tensor(a, dtype=dtype)
        t.index_put_((minitorch.tensor(idx),), minitorch.tensor(v, dtype=dtype), accumulate=True)
        np.testing.assert_array_equal(t.numpy(), want)
    finally:
        minitorch.set_num_threads(old)


def test_index_put_values_overlapping_self_raise(device):
    t = minitorch.arange(40.0, device=device).reshape(20, 2)
    idx = minitorch.tensor([5, 1, 7], device=device)
    with pytest.raises(RuntimeError, match="refer to a single memory location"):
        t[idx] = t[:3]
    with pytest.raises(RuntimeError, match="refer to a single memory location"):
        t.index_put_((idx,), t[2:5], accumulate=True)
    t[idx] = t[:3].clone()  # a copy is fine, and so is a disjoint part of the same storage
    np.testing.assert_array_equal(to_np(t)[[5, 1, 7]], np.arange(6.0).reshape(3, 2))
    base = minitorch.arange(20.0, device=device)
    base[:10][minitorch.tensor([0, 3], device=device)] = base[10:12]
    np.testing.assert_array_equal(to_np(base)[[0, 3]], [10.0, 11.0])


@pytest.mark.parametrize("dtype", [minitorch.float32, minitorch.float64, minitorch.int8, minitorch.float16])
@pytest.mark.parametrize(
    "shape, perm",
    [((64, 48), (1, 0)), ((3, 33, 17), (0, 2, 1)), ((5, 40, 50), (2, 1, 0)), ((17, 16), (1, 0)),
     ((2, 3, 64, 48), (0, 1, 3, 2)), ((16, 16, 16), (2, 0, 1)), ((15, 200), (1, 0))],
)  # fmt: skip
def test_transposed_copy_tiles(shape, perm, dtype, device):
    """permute(...).contiguous() where the source is dense along the other side (the tiled copy): every element
    in place, edge tiles and batch dims included."""
    arr = make_array(shape, dtype, np.random.default_rng(7))
    x = minitorch.tensor(arr, dtype=dtype, device=device)
    y = x.permute(*perm).contiguous()
    assert y.is_contiguous() and y.shape == tuple(shape[p] for p in perm)
    np.testing.assert_array_equal(to_np(y), arr.transpose(perm))
    # the same copy through copy_ into a transposed destination
    z = minitorch.empty(shape[::-1], dtype=dtype, device=device).t() if len(shape) == 2 else None
    if z is not None:
        z.copy_(x)
        np.testing.assert_array_equal(to_np(z), arr)


@pytest.mark.parametrize("dtype", [minitorch.float32, minitorch.float64, minitorch.int64, minitorch.bool])
def test_index_select_last_dim(dtype, device):
    """index_select along the last dim (a gather over the rows): repeats, int32 indices, views, empty."""
    rng = np.random.default_rng(3)
    arr = make_array((6, 5, 40), dtype, rng)
    x = minitorch.tensor(arr, dtype=dtype, device=device)
    idx = np.array([39, 0, 7, 7, 12, 3])
    for ix in (
        minitorch.tensor(idx, device=device),
        minitorch.tensor(idx, dtype=minitorch.int32, device=device),
    ):
        got = x.index_select(2, ix)
        assert got.is_contiguous()
        np.testing.assert_array_equal(to_np(got), arr[:, :, idx])
        np.testing.assert_array_equal(to_np(x.index_select(-1, ix)), arr[:, :, idx])
    xt = x.transpose(0, 2)  # non-contiguous input, last dim of the view
    np.testing.assert_array_equal(
        to_np(xt.index_select(2, minitorch.tensor([1, 0], device=device))),
        arr.transpose(2, 1, 0)[:, :, [1, 0]],
    )
    empty = x.index_select(2, minitorch.tensor([], dtype=minitorch.int64, device=device))
    assert empty.shape == (6, 5, 0)
    with pytest.raises(IndexError, match="index out of range in self"):
        x.index_select(2, minitorch.tensor([40], device=device))


@pytest.mark.parametrize("dtype", [minitorch.float32, minitorch.float64, minitorch.int8, minitorch.bool])
def test_index_select_last_dim_row_blocks_and_strided_rows(dtype, device):
    """The CPU's one-index-row gather (four rows a pass, then the rest), a last dim strided in memory (the
    indexing plan's path: x.t(), a permuted 3-d view) and gather with an index row expanded over the rows,
    against NumPy; an index out of range raises before anything is written."""
    rng = np.random.default_rng(11)
    for shape in [(7, 3, 50), (1, 9), (4, 33), (130, 70)]:
        arr = make_array(shape, dtype, rng)
        x = minitorch.tensor(arr, dtype=dtype, device=device)
        idx = rng.integers(0, shape[-1], 2 * shape[-1] + 1)
        idx[:3] = [shape[-1] - 1, 0, shape[-1] - 1]
        ix = minitorch.tensor(idx, device=device)
        np.testing.assert_array_equal(to_np(x.index_select(-1, ix)), arr[..., idx])
        # the last dim strided in memory
        xt = minitorch.tensor(np.ascontiguousarray(np.swapaxes(arr, 0, -1)), dtype=dtype, device=device)
        xt = xt.transpose(0, -1)
        got = xt.index_select(-1, ix)
        assert got.is_contiguous()
        np.testing.assert_array_equal(to_np(got), arr[..., idx])
        # gather with one index row expanded over every row
        k = min(5, shape[-1])
        rows = minitorch.tensor(idx[:k], device=device).expand(*shape[:-1], k)
        np.testing.assert_array_equal(to_np(minitorch.gather(x, -1, rows)), arr[..., idx[:k]])
        bad = minitorch.tensor([0, shape[-1]], device=device).expand(*shape[:-1], 2)
        if device == "cpu":
            with pytest.raises(RuntimeError, match=f"index {shape[-1]} is out of bounds for dimension"):
                minitorch.gather(x, -1, bad)
        # PyTorch's CPU words: its dim-1 kernel's own along a matrix's rows
        if len(shape) == 2 and device == "cpu":
            err, words = RuntimeError, "INDICES element is out of DATA bounds, id=-1"
        else:
            err, words = IndexError, "index out of range in self"
        with pytest.raises(err, match=words):
            x.index_select(-1, minitorch.tensor([0, -1], device=device))
    x3 = minitorch.tensor(make_array((3, 4, 5), dtype, rng), dtype=dtype, device=device).permute(2, 0, 1)
    np.testing.assert_array_equal(
        to_np(x3.index_select(2, minitorch.tensor([3, 0, 3], device=device))),
        to_np(x3.contiguous())[:, :, [3, 0, 3]],
    )


def test_index_select_last_dim_gradient():
    from minitorch.autograd import gradcheck

    x = minitorch.randn(3, 7, dtype=minitorch.float64, requires_grad=True)
    assert gradcheck(lambda t: t.index_select(1, minitorch.tensor([6, 1, 1, 0])), (x,))


def test_take_is_pytorchs_in_cpp():
    """torch.take in C++ (ops/index.cpp): the flattened input at int64 indices (negatives from the end, any
    layout of the input), shaped like index, with out= and Tensor.take; PyTorch's refusals word for word"""
    a = np.arange(6.0).reshape(2, 3)
    x = minitorch.tensor(a)
    idx = np.array([[0, -1], [5, 2]])
    np.testing.assert_array_equal(minitorch.take(x, minitorch.tensor(idx)).numpy(), np.take(a, idx))
    np.testing.assert_array_equal(
        minitorch.take(x.t(), minitorch.tensor([1, 2])).numpy(), np.take(a.T, [1, 2])
    )
    assert minitorch.take(x, minitorch.tensor(2)).shape == () and x.take(minitorch.tensor([4])).tolist() == [
        4.0
    ]
    out = minitorch.empty(2, dtype=minitorch.float64)
    assert minitorch.take(input=x, index=minitorch.tensor([3, -6]), out=out) is out and out.tolist() == [
        3.0,
        0.0,
    ]
    assert minitorch.take(minitorch.empty(0), minitorch.empty(0, dtype=minitorch.int64)).shape == (0,)
    for call, exc, msg in [
        (lambda: minitorch.take(x, minitorch.tensor([6])), IndexError, "out of range: tried to access index 6 on a tensor of 6 elements."),
        (lambda: minitorch.take(x, minitorch.tensor([-7])), IndexError, "out of range: tried to access index -7 on a tensor of 6 elements."),
        (lambda: minitorch.take(x, minitorch.tensor([1], dtype=minitorch.int32)), RuntimeError, "take(): Expected a long tensor for index, but got Int"),
        (lambda: minitorch.take(minitorch.empty(0), minitorch.tensor([0])), IndexError, "take(): tried to take from an empty tensor"),
        (lambda: minitorch.take(x, [1]), TypeError, "take(): argument 'index' (position 2) must be Tensor, not list"),
    ]:  # fmt: skip
        with pytest.raises(exc, match=re.escape(msg)):
            call()
    w = minitorch.randn(3, 4, dtype=minitorch.float64, requires_grad=True)
    assert minitorch.autograd.gradcheck(
        lambda t: minitorch.take(t, minitorch.tensor([[0, -1], [5, 5]])), (w,)
    )


@pytest.mark.parametrize("dtype", [minitorch.float32, minitorch.float64, minitorch.int16, minitorch.bool])
def test_take_of_every_layout(dtype, device):
    """take's one pass over the indices (check, wrap, offset in self's memory, then the gather kernel) on
    contiguous, transposed, permuted, sliced, 1-d strided and offset views, negative and repeated indices, every
    index shape; a bad index raises its message before anything is read."""
    rng = np.random.default_rng(7)
    a = make_array((5, 6, 7), dtype, rng)
    x = minitorch.tensor(a, dtype=dtype, device=device)
    views = [
        (x, a),
        (x.permute(2, 0, 1), a.transpose(2, 0, 1)),
        (x[1:, ::2, 3:], a[1:, ::2, 3:]),
        (x[:, 2].t(), a[:, 2].T),
        (x[2, 1, 1::3], a[2, 1, 1::3]),  # 1-d strided
        (x[3], a[3]),  # a contiguous view at an offset
    ]
    for v, ref in views:
        n = ref.size
        idx = rng.integers(-n, n, (3, 4))
        idx[0, :2] = [n - 1, -n]
        got = minitorch.take(v, minitorch.tensor(idx, device=device))
        assert got.shape == (3, 4) and got.is_contiguous()
        np.testing.assert_array_equal(to_np(got), np.take(ref, idx))
        np.testing.assert_array_equal(to_np(v.take(minitorch.tensor(-1, device=device))), np.take(ref, -1))
        empty = minitorch.take(v, minitorch.tensor([], dtype=minitorch.int64, device=device).reshape(0, 2))
        assert empty.shape == (0, 2)
        with pytest.raises(IndexError, match=f"tried to access index {n} on a tensor of {n} elements"):
            minitorch.take(v, minitorch.tensor([0, n], device=device))
        with pytest.raises(IndexError, match=f"tried to access index {-n - 1} on a tensor"):
            minitorch.take(v, minitorch.tensor([-n - 1, n + 5], device=device))


@pytest.mark.parametrize("dtype", [minitorch.float32, minitorch.float64, minitorch.int64, minitorch.float16])
@pytest.mark.parametrize("k", [1, 5, 9])
def test_scatter_along_the_last_dim_of_dense_rows(dtype, k, device):
    # dense self, src and index along the last dim take a row-by-row loop (kernels/cpu/index.cpp): duplicates
    # still land in index order (the last write wins, adds in order), short index rows leave the rest, and
    # a src larger than the index (its own strides) the general path
    rng = np.random.default_rng(k)
    self_np = rng.integers(-9, 9, (4, 3, 7)).astype(np.float64)
    idx = rng.integers(0, 7, (4, 3, k))
    src = rng.integers(-9, 9, (4, 3, k)).astype(np.float64)
    t = minitorch.tensor(self_np, device=device).to(dtype)
    ti = minitorch.tensor(idx, device=device)
    ts = minitorch.tensor(src, device=device).to(dtype)
    for name, fn in [("assign", lambda a, b: b), ("add", lambda a, b: a + b), ("amax", max)]:
        want = self_np.copy()
        for a, b, c in itertools.product(range(4), range(3), range(k)):
            want[a, b, idx[a, b, c]] = fn(want[a, b, idx[a, b, c]], src[a, b, c])
        if name == "assign":
            got = minitorch.scatter(t, 2, ti, ts)
        elif name == "add":
            got = minitorch.scatter_add(t, -1, ti, ts)
        else:
            got = t.scatter_reduce(2, ti, ts, "amax")
        if device == "cpu" or name != "assign":
            np.testing.assert_array_equal(to_np(got).astype(np.float64), want)
    wide = minitorch.tensor(rng.integers(-9, 9, (4, 3, k + 2)).astype(np.float64), device=device).to(dtype)
    want = self_np.copy()
    for a, b, c in itertools.product(range(4), range(3), range(k)):
        want[a, b, idx[a, b, c]] += to_np(wide)[a, b, c]
    np.testing.assert_array_equal(to_np(minitorch.scatter_add(t, 2, ti, wide)).astype(np.float64), want)


def test_index_select_of_an_empty_self_bound_checks_in_pytorchs_words():
    # PyTorch's CPU index_select checks an empty self's indices in its index_select_empty_self_bound_check
    x = minitorch.zeros(3, 0)
    for i in (-3, 3, -1):
        with pytest.raises(RuntimeError) as e:
            minitorch.index_select(x, 0, minitorch.tensor([i]))
        assert type(e.value) is RuntimeError
        assert str(e.value) == f"INDICES element is out of DATA bounds, id={i} axis_dim=3"
    assert tuple(minitorch.index_select(x, 0, minitorch.tensor([2, 0])).shape) == (2, 0)
    with pytest.raises(RuntimeError, match="self indexing axis dim should be positive"):
        minitorch.index_select(minitorch.zeros(0, 0), 0, minitorch.tensor([0]))
    with pytest.raises(IndexError, match="^index out of range in self$"):  # a non-empty self along dim 0
        minitorch.index_select(minitorch.zeros(3, 2), 0, minitorch.tensor([3]))


# PyTorch's treatSequenceAsTuple: a list holding a slice, Ellipsis, None, a tensor or a sequence indexes as the
# tuple of its items, with PyTorch's deprecation warning (fkodom/fft-conv-pytorch crops with a list of slices);
# a list of plain ints stays a tensor index, without one
LIST_AS_TUPLE = r"""
def cases(torch):
    import warnings

    x = torch.arange(24.0).reshape(2, 3, 4)
    keys = [
        [slice(0, 1), slice(None), slice(0, 4, 2)],
        [0, slice(None)],
        [None, 0],
        [Ellipsis, 1],
        [[0, 1]],
        [torch.tensor([1, 0]), 1],
        [0, 1],
        [1],
    ]
    out = []
    for k in keys:
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            r = x[k]
        out.append([list(r.shape), r.flatten().tolist(), [str(m.message)[:60] for m in w]])
    y = torch.zeros(2, 3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        y[[slice(None), 1]] = 5.0
    out.append(y.tolist())
    return out
"""


def test_a_list_of_slices_indexes_as_a_tuple_as_pytorch():
    ours, theirs = cases_here_and_in_pytorch(LIST_AS_TUPLE, [("torch", minitorch)])
    assert ours == theirs
