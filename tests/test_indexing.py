"""Indexing against NumPy: basic keys (views), advanced keys (copies), assignment, gather/scatter and friends,
and the errors PyTorch raises for bad keys."""

import numpy as np
import pytest

import minitorch
from tests.utils import ALL_DTYPES, make_array, to_np

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
    mt_key = (
        tuple(minitorch.tensor(k) if isinstance(k, list) else k for k in key)
        if isinstance(key, tuple)
        else (minitorch.tensor(key) if isinstance(key, list) else key)
    )
    expected = A[np_key]
    got = t[mt_key]
    assert tuple(got.shape) == expected.shape
    np.testing.assert_array_equal(to_np(got), expected)
    got_list = t[key]  # Python lists as keys behave the same
    np.testing.assert_array_equal(to_np(got_list), expected)


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_getitem_dtypes_and_masks(dtype, device):
    rng = np.random.default_rng(0)
    a = make_array((4, 6), dtype, rng)
    t = minitorch.tensor(a, dtype=dtype, device=device)
    mask = rng.random((4, 6)) > 0.5
    np.testing.assert_array_equal(to_np(t[minitorch.tensor(mask)]), a[mask])
    rows = rng.random(4) > 0.5
    np.testing.assert_array_equal(to_np(t[minitorch.tensor(rows)]), a[rows])
    np.testing.assert_array_equal(to_np(t[:, minitorch.tensor([5, 0, 0])]), a[:, [5, 0, 0]])
    assert t[0, 0].dtype == dtype


def test_basic_index_is_view():
    t = minitorch.zeros(3, 4)
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


def test_non_contiguous_base():
    a = np.arange(48.0).reshape(6, 8)
    t = minitorch.tensor(a).t()[1::2]
    an = a.T[1::2]
    np.testing.assert_array_equal(to_np(t[[0, 2], 1:5:2]), an[[0, 2], 1:5:2])
    np.testing.assert_array_equal(to_np(t[an > 20]), an[an > 20])


def test_labels_pattern():
    logits = minitorch.tensor(A[0])
    labels = minitorch.tensor([3, 0, 1, 4])
    got = logits[minitorch.arange(4), labels]
    np.testing.assert_array_equal(to_np(got), A[0][np.arange(4), [3, 0, 1, 4]])


def test_empty_results():
    t = minitorch.tensor(A)
    assert t[t > 1000].shape == (0,)
    assert t[:, []].shape == (3, 0, 5)
    assert t[1:1].shape == (0, 4, 5)


def test_bool_keys():
    t = minitorch.tensor(A)
    assert t[None].shape == (1, 3, 4, 5)
    assert t[True].shape == (1, 3, 4, 5)
    assert t[False].shape == (0, 3, 4, 5)
    assert t[minitorch.tensor(2)].shape == (4, 5)


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


def test_setitem_mask_broadcast_and_cast():
    a = A.copy()
    t = minitorch.tensor(A)
    t[t > 30] = 0
    a[a > 30] = 0
    np.testing.assert_array_equal(to_np(t), a)
    i = minitorch.zeros(2, 3, dtype=minitorch.int64)
    i[:, 1] = minitorch.tensor([7.9, 8.2])  # cast to the destination dtype
    assert i.tolist() == [[0, 7, 0], [0, 8, 0]]
    i[0] = minitorch.tensor([1, 2, 3])
    assert i.tolist()[0] == [1, 2, 3]
    v0 = t._version
    t[0] = 1
    assert t._version > v0


def test_index_put_accumulate():
    t = minitorch.zeros(5)
    t.index_put_((minitorch.tensor([0, 1, 1, 3, 1]),), minitorch.tensor(1.0), accumulate=True)
    assert t.tolist() == [1.0, 3.0, 0.0, 1.0, 0.0]
    out = t.index_put((minitorch.tensor([4]),), minitorch.tensor(9.0))
    assert out.tolist()[4] == 9.0 and t.tolist()[4] == 0.0


@pytest.mark.parametrize(
    "dtype", [minitorch.float32, minitorch.float64, minitorch.int64, minitorch.float16], ids=str
)
def test_gather_scatter_index_select(dtype, device):
    rng = np.random.default_rng(1)
    a = make_array((4, 5), dtype, rng)
    t = minitorch.tensor(a, dtype=dtype, device=device)
    idx = rng.integers(0, 5, size=(4, 3))
    np.testing.assert_array_equal(
        to_np(minitorch.gather(t, 1, minitorch.tensor(idx))), np.take_along_axis(a, idx, 1)
    )
    idx0 = rng.integers(0, 4, size=(2, 5))
    np.testing.assert_array_equal(to_np(t.gather(0, minitorch.tensor(idx0))), np.take_along_axis(a, idx0, 0))
    np.testing.assert_array_equal(to_np(minitorch.index_select(t, 1, minitorch.tensor([4, 0]))), a[:, [4, 0]])
    np.testing.assert_array_equal(to_np(t.index_select(0, minitorch.tensor([3, 3]))), a[[3, 3]])
    # scatter: a permutation per row so no duplicates
    perm = np.stack([rng.permutation(5) for _ in range(4)])
    src = make_array((4, 5), dtype, rng)
    exp = np.zeros_like(a)
    np.put_along_axis(exp, perm, src, 1)
    got = minitorch.zeros(4, 5, dtype=dtype, device=device).scatter_(
        1, minitorch.tensor(perm), minitorch.tensor(src, dtype=dtype)
    )
    np.testing.assert_array_equal(to_np(got), exp)


def test_scatter_add_and_reduce():
    idx = minitorch.tensor([[0, 1, 0, 2]])
    src = minitorch.tensor([[1.0, 2.0, 3.0, 4.0]])
    assert minitorch.zeros(1, 3).scatter_add_(1, idx, src).tolist() == [[4.0, 2.0, 4.0]]
    assert minitorch.ones(1, 3).scatter(1, idx, src, reduce="multiply").tolist() == [[3.0, 2.0, 4.0]]
    assert minitorch.zeros(1, 3).scatter_(1, idx, 5.0).tolist() == [[5.0, 5.0, 5.0]]
    with pytest.raises(RuntimeError, match="reduce argument must be either add or multiply"):
        minitorch.zeros(1, 3).scatter_(1, idx, src, reduce="max")


def test_nonzero_masked_select_where():
    a = np.array([[0, 1, 0], [2, 0, 3]])
    t = minitorch.tensor(a)
    np.testing.assert_array_equal(to_np(minitorch.nonzero(t)), np.argwhere(a))
    rows, cols = minitorch.nonzero(t, as_tuple=True)
    np.testing.assert_array_equal(to_np(rows), np.nonzero(a)[0])
    np.testing.assert_array_equal(to_np(cols), np.nonzero(a)[1])
    r2, c2 = minitorch.where(t > 0)
    np.testing.assert_array_equal(to_np(r2), np.nonzero(a)[0])
    np.testing.assert_array_equal(to_np(c2), np.nonzero(a)[1])
    np.testing.assert_array_equal(to_np(minitorch.masked_select(t, t > 0)), a[a > 0])
    assert minitorch.nonzero(minitorch.zeros(0, 3)).shape == (0, 2)


def test_bad_keys():
    t = minitorch.tensor(A)
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
    with pytest.raises(IndexError, match="index 9 is out of bounds for dimension 1 with size 5"):
        minitorch.gather(t[0], 1, minitorch.tensor([[9]]))
    with pytest.raises(RuntimeError, match="Index tensor must have the same number of dimensions"):
        minitorch.gather(t[0], 1, minitorch.tensor([1]))
    with pytest.raises(RuntimeError, match="shape mismatch|expanded size|must match"):
        t[[0, 1]] = minitorch.ones(3)
    with pytest.raises(TypeError):
        t["a"]
