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


def test_broadcast_shapes_in_pytorchs_order():
    # PyTorch 2.15's Python: None passed over, any sequence taken (a str too), each shape's last dim first; its
    # size-oblivious guard takes only a bool (a tensor's or a NumPy int's comparison is refused), then a
    # mismatch, then the sign; torch.Size refuses a float size at the end
    T = minitorch.tensor
    nope = "Input shapes should be of type ints, a tuple of ints, or a list of ints, got "
    at = (
        "Attempting to broadcast a dimension of length {} at -1! Mismatching argument at index 1 had {}; but "
    )
    at += "expected shape should be broadcastable to {}"
    cases = [
        (((3, 2), (2, 3)), RuntimeError, at.format(3, "(2, 3)", "[3, 2]")),
        (([3, 2], [2, 3]), RuntimeError, at.format(3, "[2, 3]", "[3, 2]")),
        (((3,), None, (2,)), RuntimeError, at.format(2, "(2,)", "[3]")),
        (((2, T(2)),), AssertionError, "Expected bool, got <class 'torch.Tensor'>"),
        (([T(-1)],), AssertionError, "Expected bool, got <class 'torch.Tensor'>"),
        (((np.int64(2),),), AssertionError, "Expected bool, got <class 'numpy.bool'>"),
        (((2.0,),), TypeError, "torch.Size() takes an iterable of 'int' (item 0 is 'float')"),
        (("ab",), TypeError, "'<' not supported between instances of 'str' and 'int'"),
        ((T(2),), RuntimeError, nope + "2"),
        (((2,), T(2.5)), RuntimeError, nope + "2.5"),
        ((T([0]),), RuntimeError, nope + "tensor([0])"),
        ((T([[1]]),), RuntimeError, nope + "tensor([[1]])"),
    ]  # fmt: skip
    for shapes, kind, message in cases:
        with pytest.raises(kind) as e:
            minitorch.broadcast_shapes(*shapes)
        assert type(e.value) is kind and str(e.value) == message, shapes
    assert minitorch.broadcast_shapes(None) == minitorch.Size([])
    assert minitorch.broadcast_shapes(range(3), (1,)) == minitorch.Size([0, 1, 2])
    assert minitorch.broadcast_shapes((True,), 3) == minitorch.Size([3])


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


def test_repeat_interleave_int_repeats_is_a_new_tensor():
    """the result never shares input's storage, as PyTorch's: a one-long repeated dim (or one repeat) made the
    expansion's reshape a view, so writing the result wrote input and every repeat of the element"""
    for x, r, dim in [
        (minitorch.tensor([5.0]), 3, None),
        (minitorch.tensor([[5.0, 6.0]]), 2, 0),
        (minitorch.tensor([1.0, 2.0]), 1, None),
        (minitorch.tensor([[1, 2], [3, 4]]), 1, 1),
    ]:
        before = x.clone()
        y = x.repeat_interleave(r, dim=dim)
        want = np.repeat(before.numpy(), r, axis=dim)
        assert y.is_contiguous() and y.untyped_storage().data_ptr() != x.untyped_storage().data_ptr()
        y.view(-1)[0] = 7
        np.testing.assert_array_equal(x.numpy(), before.numpy())
        want.reshape(-1)[0] = 7
        np.testing.assert_array_equal(y.numpy(), want)
    # the gradient of each input element is the sum over its repeats
    x = minitorch.tensor([[1.0, 2.0, 3.0]], requires_grad=True)
    w = minitorch.arange(12.0).reshape(4, 3)
    (x.repeat_interleave(4, dim=0) * w).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), w.numpy().sum(0, keepdims=True))


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
