"""allclose, isclose, equal and testing.assert_close against NumPy's isclose, with PyTorch's defaults."""

import numpy as np
import pytest

import minitorch
from minitorch.testing import assert_close


def test_isclose_matches_numpy(device):
    a = np.array([1.0, 1.0 + 1e-6, 1.0 + 1e-4, np.inf, -np.inf, np.nan, 0.0, 1e-9])
    b = np.array([1.0, 1.0, 1.0, np.inf, np.inf, np.nan, 1e-9, 0.0])
    for equal_nan in (False, True):
        got = minitorch.isclose(
            minitorch.tensor(a, device=device), minitorch.tensor(b, device=device), equal_nan=equal_nan
        )
        assert got.dtype == minitorch.bool
        np.testing.assert_array_equal(
            got.cpu().numpy(), np.isclose(a, b, rtol=1e-5, atol=1e-8, equal_nan=equal_nan)
        )


def test_isclose_tolerances_and_broadcast():
    a = minitorch.tensor([[1.0, 2.0], [3.0, 4.0]])
    b = minitorch.tensor([1.05, 2.0])
    assert minitorch.isclose(a, b, rtol=0.1, atol=0).tolist() == [[True, True], [False, False]]
    assert minitorch.isclose(a, b).tolist() == [[False, True], [False, False]]


def test_allclose_and_equal():
    a = minitorch.tensor([1.0, 2.0, 3.0])
    assert minitorch.allclose(a, a + 1e-7)
    assert not minitorch.allclose(a, a + 1e-3)
    assert minitorch.allclose(a, a + 1e-3, atol=1e-2)
    assert minitorch.allclose(minitorch.zeros(0), minitorch.zeros(0))
    assert minitorch.equal(a, a.clone())
    assert not minitorch.equal(a, a + 1)
    assert not minitorch.equal(a, a.reshape(3, 1))
    nan = minitorch.tensor([float("nan")])
    assert not minitorch.allclose(nan, nan)
    assert minitorch.allclose(nan, nan, equal_nan=True)


def test_isclose_integers_exact():
    a = minitorch.tensor([1, 2, 3])
    assert minitorch.isclose(a, minitorch.tensor([1, 2, 4])).tolist() == [True, True, False]


@pytest.mark.parametrize("dtype", [minitorch.uint8, minitorch.int8, minitorch.int32, minitorch.int64])
def test_isclose_integers_compare_in_the_default_float_dtype(dtype):
    # |a - b| without wrap-around (PyTorch computes the error in the default float dtype): NumPy on float32
    a = np.array([9, 3, 4, 5, 100], dtype=np.int64)
    b = np.array([3, 9, 5, 4, 99], dtype=np.int64)
    x, y = minitorch.tensor(a, dtype=dtype), minitorch.tensor(b, dtype=dtype)
    for rtol, atol in ((2.0, 0.0), (1.9, 0.0), (0.1, 0.0), (0.0, 1.5), (1e-5, 1e-8)):
        want = np.isclose(a.astype(np.float32), b.astype(np.float32), rtol=rtol, atol=atol)
        np.testing.assert_array_equal(minitorch.isclose(x, y, rtol, atol).numpy(), want)
        assert minitorch.allclose(x, y, rtol, atol) == bool(want.all())
        assert x.isclose(y, rtol, atol).tolist() == want.tolist()
    big = minitorch.tensor([2**63 - 1, -4, 16777217])
    other = minitorch.tensor([-1, -(2**63), 16777216])
    # int64 max - (-1) does not wrap to a negative error; 16777217 and 16777216 are one float32
    assert minitorch.isclose(big, other, 1.0, 0.5).tolist() == [False, True, True]
    assert minitorch.isclose(big, other).tolist() == [False, False, True]


def test_isclose_dtype_mismatch_raises():
    with pytest.raises(RuntimeError, match="did not match"):
        minitorch.isclose(minitorch.ones(2), minitorch.ones(2, dtype=minitorch.float64))


def test_assert_close_passes_and_fails():
    a = minitorch.tensor([1.0, 2.0])
    assert_close(a, a + 1e-7)
    assert_close([a, a], [a, a])
    with pytest.raises(AssertionError, match="Mismatched elements: 1 / 2"):
        assert_close(a, minitorch.tensor([1.0, 2.5]))
    with pytest.raises(AssertionError, match="dtype"):
        assert_close(a, a.double())
    assert_close(a, a.double(), check_dtype=False)
    with pytest.raises(AssertionError, match="shape"):
        assert_close(a, a.reshape(2, 1))
    with pytest.raises(ValueError, match="rtol"):
        assert_close(a, a, atol=1e-3)
    # per-dtype defaults: a float16 difference of 5e-4 relative is within its rtol 1e-3
    h = minitorch.tensor([1000.0], dtype=minitorch.float16)
    assert_close(h, minitorch.tensor([1000.5], dtype=minitorch.float16))


def test_equal_in_slices():
    # dense operands are compared a growing slice at a time: a difference in the first slice, in a later one
    # and at the very end; NaN never equals, -0.0 equals 0.0; strided views and mixed dtypes compare whole
    n = 70000
    a = minitorch.arange(n, dtype=minitorch.float32)
    for at in (0, 2047, 2048, 30000, n - 1):
        b = a.clone()
        b[at] = -1.0
        assert not minitorch.equal(a, b)
    assert minitorch.equal(a, a.clone())
    b = a.clone()
    b[5000] = float("nan")
    assert not minitorch.equal(b, b)
    z = minitorch.zeros(n)
    assert minitorch.equal(z, -z)
    assert minitorch.equal(a[::2], a.clone()[::2]) and not minitorch.equal(a[::2], a[1::2])
    assert minitorch.equal(a, a.double()) and minitorch.equal(a[:3].long(), minitorch.tensor([0, 1, 2]))
    assert not minitorch.equal(a, a[:-1]) and minitorch.equal(a[:0], minitorch.zeros(0))
