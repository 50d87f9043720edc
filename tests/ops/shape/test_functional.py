"""minitorch.functional: broadcast_shapes and repeat_interleave against NumPy, gradients, bad inputs."""

import numpy as np
import pytest

import minitorch
from minitorch.autograd import gradcheck


@pytest.mark.parametrize(
    "shapes", [((1, 3), (2, 1), ()), ((5,), (2, 1)), ((0, 1), (3,)), ((4, 1, 2), (3, 1)), ()]
)
def test_broadcast_shapes_matches_numpy(shapes):
    assert tuple(minitorch.broadcast_shapes(*shapes)) == np.broadcast_shapes(*shapes)
    assert isinstance(minitorch.broadcast_shapes(*shapes), minitorch.Size)


def test_broadcast_shapes_int_and_errors():
    assert minitorch.broadcast_shapes(5, (2, 1)) == minitorch.Size([2, 5])
    with pytest.raises(RuntimeError, match="Attempting to broadcast a dimension of length 4 at -2"):
        minitorch.broadcast_shapes((2, 3), (4, 3))
    with pytest.raises(ValueError, match="negative length"):
        minitorch.broadcast_shapes((2, -1))


@pytest.mark.parametrize("dtype", [minitorch.float32, minitorch.float64, minitorch.int64, minitorch.bool])
def test_repeat_interleave_int_repeats(dtype):
    a = np.arange(12).reshape(3, 4) % 3
    x = minitorch.tensor(a, dtype=dtype)
    want = a.astype(np.bool_) if dtype == minitorch.bool else a
    np.testing.assert_array_equal(x.repeat_interleave(2).numpy(), np.repeat(want, 2))
    for d in (0, 1, -1):
        np.testing.assert_array_equal(
            minitorch.repeat_interleave(x, 3, dim=d).numpy(), np.repeat(want, 3, axis=d)
        )
    # non-contiguous input, zero repeats, empty input, 0-d input
    np.testing.assert_array_equal(x.t().repeat_interleave(2, dim=1).numpy(), np.repeat(want.T, 2, axis=1))
    assert x.repeat_interleave(0, dim=1).shape == (3, 0)
    assert minitorch.zeros(0, 2).repeat_interleave(4, dim=0).shape == (0, 2)
    np.testing.assert_array_equal(minitorch.tensor(5).repeat_interleave(2).numpy(), [5, 5])


def test_repeat_interleave_tensor_repeats_and_counts_overload():
    a = np.array([[1, 2], [3, 4]])
    x = minitorch.tensor(a)
    got = x.repeat_interleave(minitorch.tensor([1, 2]), dim=0)
    np.testing.assert_array_equal(got.numpy(), np.repeat(a, [1, 2], axis=0))
    np.testing.assert_array_equal(
        x.repeat_interleave(minitorch.tensor([3]), dim=1).numpy(), np.repeat(a, 3, axis=1)
    )
    counts = minitorch.tensor([2, 0, 1])
    np.testing.assert_array_equal(minitorch.repeat_interleave(counts).numpy(), [0, 0, 2])
    assert minitorch.repeat_interleave(counts).dtype == minitorch.int64
    assert x.repeat_interleave(2, dim=0, output_size=4).shape == (4, 2)


def test_repeat_interleave_gradients():
    x = minitorch.randn(3, 4, dtype=minitorch.float64, requires_grad=True)
    assert gradcheck(lambda t: t.repeat_interleave(2, dim=1), (x,))
    assert gradcheck(lambda t: t.repeat_interleave(minitorch.tensor([2, 0, 3]), dim=0), (x,))
    assert gradcheck(lambda t: t.repeat_interleave(3), (x,))


def test_repeat_interleave_bad_inputs():
    x = minitorch.tensor([1, 2, 3])
    with pytest.raises(RuntimeError, match="Repeats must be non-negative"):
        x.repeat_interleave(-1)
    with pytest.raises(RuntimeError, match=r"repeats.size\(0\) = 2 and input.size\(0\) = 3"):
        x.repeat_interleave(minitorch.tensor([1, 2]))
    with pytest.raises(RuntimeError, match="repeats can not be negative"):
        minitorch.tensor([1, 2]).repeat_interleave(minitorch.tensor([1, -2]))
    with pytest.raises(IndexError, match="Dimension out of range"):
        minitorch.tensor([[1, 2]]).repeat_interleave(2, dim=2)
    with pytest.raises(RuntimeError, match="only accept 1D vector"):
        minitorch.repeat_interleave(minitorch.tensor([[1]]))
    with pytest.raises(RuntimeError, match="repeat_interleave: Invalid output_size, expected 6 but got 5"):
        x.repeat_interleave(2, output_size=5)
