"""Integer sums and products along rows (the CPU kernel's int64 vector sum and its eight product chains) against
NumPy's int64 arithmetic, which wraps modulo 2^64 as PyTorch's does: every length around the vector widths and
chain counts, overflowing values, each integer dtype and bool, rows, columns and the whole tensor, transposed
and sliced inputs, empty rows, dtype=, two threads, and the scalar path (MINITORCH_CPU_CAPABILITY=default)."""

import numpy as np
import pytest

import minitorch
from tests.utils import rerun_in_child

INT_DTYPES = {
    minitorch.int64: np.int64,
    minitorch.int32: np.int32,
    minitorch.int16: np.int16,
    minitorch.int8: np.int8,
    minitorch.uint8: np.uint8,
    minitorch.bool: np.bool_,
}
LENGTHS = [0, 1, 3, 7, 8, 9, 15, 16, 17, 31, 33, 100, 1000, 70001]


def wrapped(a, op, axis=None):
    """NumPy's sum or product in int64 (wrapping modulo 2^64, its documented integer overflow)."""
    with np.errstate(over="ignore"):
        return (np.sum if op == "sum" else np.prod)(a.astype(np.int64), axis=axis, dtype=np.int64)


def values(rng, shape, dtype, op):
    if dtype == np.bool_:
        return rng.random(shape) < 0.7
    info = np.iinfo(dtype)
    if (
        op == "prod"
    ):  # odd values make a product that wraps without becoming 0 (a 0 or even factors hide order)
        v = rng.integers(1, min(info.max, 2**20), size=shape) | 1
        return (v * np.where(rng.random(shape) < 0.5, -1, 1) if info.min < 0 else v).astype(dtype)
    return rng.integers(info.min, info.max, size=shape, endpoint=True).astype(dtype)


@pytest.mark.parametrize("op", ["sum", "prod"])
@pytest.mark.parametrize("dtype", list(INT_DTYPES))
def test_rows_and_all_against_numpy(op, dtype):
    rng = np.random.default_rng(7)
    for n in LENGTHS:
        a = values(rng, (3, n), INT_DTYPES[dtype], op)
        x = minitorch.from_numpy(a)
        f = getattr(minitorch, op)
        got = f(x, 1)
        assert got.dtype == minitorch.int64
        np.testing.assert_array_equal(got.numpy(), wrapped(a, op, 1))
        assert f(x).item() == int(wrapped(a, op))
        # a transposed input reduced along its rows, and a sliced one
        np.testing.assert_array_equal(f(x.t(), 0).numpy(), wrapped(a, op, 1))
        np.testing.assert_array_equal(f(x[:, ::2], 1).numpy(), wrapped(a[:, ::2], op, 1))


@pytest.mark.parametrize("op", ["sum", "prod"])
def test_huge_int64_values_wrap(op):
    """int64 values near the ends of the range: every partial sum overflows; products of 2^62 + 1 and -3"""
    rng = np.random.default_rng(1)
    for n in (5, 16, 47, 4096):
        if op == "sum":
            a = rng.integers(2**62, 2**63 - 1, size=(2, n), dtype=np.int64) * np.where(
                rng.random((2, n)) < 0.3, -1, 1
            )
        else:
            a = np.where(rng.random((2, n)) < 0.5, np.int64(2**62 + 1), np.int64(-3))
        x = minitorch.from_numpy(a)
        np.testing.assert_array_equal(getattr(minitorch, op)(x, 1).numpy(), wrapped(a, op, 1))
        assert getattr(minitorch, op)(x).item() == int(wrapped(a, op))


@pytest.mark.parametrize("op", ["sum", "prod"])
def test_dtype_argument_and_columns(op):
    """dtype=int32 wraps the int64 result modulo 2^32 (the sum of the values cast first), and the columns' path
    (dim 0) agrees with the rows'"""
    rng = np.random.default_rng(2)
    a = values(rng, (257, 33), np.int64, op)
    x = minitorch.from_numpy(a)
    f = getattr(minitorch, op)
    got = f(x, 1, dtype=minitorch.int32)
    assert got.dtype == minitorch.int32
    np.testing.assert_array_equal(got.numpy(), wrapped(a.astype(np.int32), op, 1).astype(np.int32))
    np.testing.assert_array_equal(f(x, 0).numpy(), wrapped(a, op, 0))
    np.testing.assert_array_equal(f(x.t().contiguous(), 1).numpy(), wrapped(a, op, 0))


@pytest.mark.parametrize("op", ["sum", "prod"])
def test_two_threads_split_long_row(op):
    """one row long enough to be split between two threads: the partial results combine to NumPy's"""
    old = minitorch.get_num_threads()
    minitorch.set_num_threads(2)
    try:
        rng = np.random.default_rng(3)
        a = values(rng, (1 << 20,), np.int64, op)
        assert minitorch.from_numpy(a).__getattribute__(op)().item() == int(wrapped(a, op))
    finally:
        minitorch.set_num_threads(old)


def test_default_capability():
    """the same at the 16-byte baseline"""
    rerun_in_child(__file__, "not default_capability", MINITORCH_CPU_CAPABILITY="default")
