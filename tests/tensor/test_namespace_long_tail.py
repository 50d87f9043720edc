"""The long tail of torch-level and Tensor spellings: the *_copy forms of view ops, unsafe splits, torch.range,
vander, chain_matmul, Tensor.as_subclass, Tensor.igamma/igammac, Tensor.hardshrink/prelu (against NumPy and
PyTorch's results and errors)."""

import warnings

import numpy as np
import pytest
from scipy import special as sps

import minitorch


def test_view_copies_are_contiguous_copies(device):
    a = np.arange(24.0).reshape(4, 6)
    x = minitorch.tensor(a, device=device)
    cases = {
        "t_copy": ((), a.T),
        "transpose_copy": ((0, 1), a.T),
        "permute_copy": (((1, 0),), a.T),
        "diagonal_copy": ((), np.diagonal(a)),
        "select_copy": ((1, 2), a[:, 2]),
        "view_copy": (((6, 4),), a.reshape(6, 4)),
        "unsqueeze_copy": ((0,), a[None]),
        "expand_copy": (((2, 4, 6),), np.broadcast_to(a, (2, 4, 6))),
        "as_strided_copy": (((2, 2), (1, 6)), np.array([[0.0, 6.0], [1.0, 7.0]])),
        "unfold_copy": ((1, 2, 2), a.reshape(4, 3, 2)),
        "narrow_copy": ((1, 1, 3), a[:, 1:4]),
        "alias_copy": ((), a),
        "detach_copy": ((), a),
    }
    for name, (args, want) in cases.items():
        got = getattr(minitorch, name)(x, *args)
        assert got.is_contiguous(), name
        np.testing.assert_array_equal(got.cpu().numpy(), want, err_msg=name)
        assert got.data_ptr() != x.data_ptr() or got.numel() == 0, name
    np.testing.assert_array_equal(minitorch.slice_copy(x, 1, 1, 5, 2).cpu().numpy(), a[:, 1:5:2])
    np.testing.assert_array_equal(minitorch.squeeze_copy(x[None]).cpu().numpy(), a)
    parts = minitorch.split_copy(x, 3, 1)
    assert all(p.is_contiguous() for p in parts)
    np.testing.assert_array_equal(parts[1].cpu().numpy(), a[:, 3:])
    rows = minitorch.unbind_copy(x, 1)
    assert len(rows) == 6 and rows[2].is_contiguous()
    np.testing.assert_array_equal(rows[2].cpu().numpy(), a[:, 2])
    z = minitorch.tensor([1 + 2j, 3 - 1j], device=device)
    np.testing.assert_array_equal(minitorch.view_as_real_copy(z).cpu().numpy(), [[1, 2], [3, -1]])
    out = minitorch.empty(0, dtype=x.dtype, device=device)
    assert minitorch.t_copy(x, out=out) is out and out.shape == (6, 4)
    np.testing.assert_array_equal(x.narrow_copy(0, 1, 2).cpu().numpy(), a[1:3])
    # a copy: writing into it leaves the input alone
    c = minitorch.t_copy(x)
    c.fill_(0)
    assert x.sum().item() == a.sum()


def test_unsafe_splits(device):
    x = minitorch.arange(12.0, device=device).reshape(3, 4)
    for got, want in zip(minitorch.unsafe_chunk(x, 2, 1), x.chunk(2, 1)):
        assert minitorch.equal(got, want)
    assert [p.shape for p in x.unsafe_split(2)] == [(2, 4), (1, 4)]
    assert [p.shape for p in minitorch.unsafe_split_with_sizes(x, [1, 3], 1)] == [(3, 1), (3, 3)]


def test_range_is_inclusive_and_deprecated():
    with pytest.warns(UserWarning, match="torch.range is deprecated"):
        r = minitorch.range(1, 4)
    assert r.dtype == minitorch.float32 and r.tolist() == [1.0, 2.0, 3.0, 4.0]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        np.testing.assert_allclose(minitorch.range(1, 2, 0.3).numpy(), [1.0, 1.3, 1.6, 1.9], rtol=1e-6)
        assert minitorch.range(5, 1, -2).tolist() == [5.0, 3.0, 1.0]
        r = minitorch.range(1, 4, dtype=minitorch.int64)
        assert r.dtype == minitorch.int64 and r.tolist() == [1, 2, 3, 4]
        with pytest.raises(RuntimeError, match="step must be nonzero"):
            minitorch.range(1, 4, 0)
        with pytest.raises(RuntimeError, match="upper bound and lower bound inconsistent with step sign"):
            minitorch.range(4, 1)


def test_vander():
    a = np.array([1.5, -2.0, 3.0])
    np.testing.assert_array_equal(minitorch.vander(minitorch.tensor(a)).numpy(), np.vander(a))
    got = minitorch.vander(minitorch.tensor(a), N=4, increasing=True)
    np.testing.assert_array_equal(got.numpy(), np.vander(a, 4, increasing=True))
    ints = minitorch.vander(minitorch.tensor([1, 2, 3], dtype=minitorch.int32))
    assert ints.dtype == minitorch.int64 and ints.tolist() == [[1, 1, 1], [4, 2, 1], [9, 3, 1]]
    assert minitorch.vander(minitorch.tensor([1, 2]), 0).shape == (2, 0)
    x = minitorch.tensor(a, requires_grad=True)
    assert minitorch.autograd.gradcheck(lambda v: minitorch.vander(v, 3), (x,))
    with pytest.raises(RuntimeError, match="x must be a one-dimensional tensor."):
        minitorch.vander(minitorch.ones(2, 2))
    with pytest.raises(RuntimeError, match="N must be non-negative."):
        minitorch.vander(minitorch.ones(2), -1)


def test_chain_matmul():
    rng = np.random.default_rng(0)
    ms = [rng.standard_normal(s) for s in ((2, 3), (3, 4), (4, 2))]
    with pytest.warns(UserWarning, match="chain_matmul is deprecated"):
        got = minitorch.chain_matmul(*[minitorch.tensor(m) for m in ms])
    np.testing.assert_allclose(got.numpy(), ms[0] @ ms[1] @ ms[2], rtol=1e-12)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(RuntimeError, match="Tensor dimension is 1, expected 2 instead."):
            minitorch.chain_matmul(minitorch.ones(2))
        with pytest.raises(RuntimeError, match="Expected one or more matrices"):
            minitorch.chain_matmul()


def test_as_subclass_keeps_data_and_graph():
    class Tagged(minitorch.Tensor):
        def __init__(self, *args, **kwargs):
            raise AssertionError("as_subclass must not run the subclass's __init__")

    x = minitorch.randn(3, requires_grad=True)
    y = x * 2
    t = y.as_subclass(Tagged)
    assert type(t) is Tagged and t.data_ptr() == y.data_ptr() and t.requires_grad
    t.sum().backward()
    assert x.grad.tolist() == [2.0, 2.0, 2.0]
    with pytest.raises(TypeError, match="does not inherit from Tensor"):
        y.as_subclass(int)
    with pytest.raises(TypeError, match=r"cls must be a type \(got int\)"):
        y.as_subclass(3)


def test_igamma_methods_and_nn_methods():
    a, x = np.array([1.0, 2.0, 0.5]), np.array([0.5, 1.0, 3.0])
    ta, tx = minitorch.tensor(a), minitorch.tensor(x)
    np.testing.assert_allclose(ta.igamma(tx).numpy(), sps.gammainc(a, x), rtol=1e-12)
    np.testing.assert_allclose(ta.igammac(tx).numpy(), sps.gammaincc(a, x), rtol=1e-12)
    b = ta.clone()
    assert b.igamma_(tx) is b
    np.testing.assert_allclose(b.numpy(), sps.gammainc(a, x), rtol=1e-12)
    b = ta.clone()
    b.igammac_(tx)
    np.testing.assert_allclose(b.numpy(), sps.gammaincc(a, x), rtol=1e-12)
    assert minitorch.tensor([-1.0, 0.3, 0.7]).hardshrink(0.5).tolist() == [-1.0, 0.0, 0.699999988079071]
    np.testing.assert_allclose(
        minitorch.tensor([[-1.0, 0.3]]).prelu(minitorch.tensor([0.25])).numpy(), [[-0.25, 0.3]], rtol=1e-7
    )


def test_concatenate_takes_dim_or_axis_and_keyword_out():
    a = minitorch.arange(4.0).reshape(2, 2)
    want = np.concatenate([a.numpy(), a.numpy()], 1)
    for got in (minitorch.concatenate([a, a], 1), minitorch.concatenate([a, a], dim=1)):
        np.testing.assert_array_equal(got.numpy(), want)
    np.testing.assert_array_equal(minitorch.concatenate([a, a], axis=1).numpy(), want)
    out = minitorch.empty(0)
    assert minitorch.concatenate([a, a], out=out) is out and out.shape == (4, 2)
    with pytest.raises(TypeError, match="takes from 1 to 2 positional arguments but 3 were given"):
        minitorch.concatenate([a, a], 0, out)
    _, tangent = minitorch.func.jvp(lambda x: minitorch.concatenate([x, x], axis=1), (a,), (a,))
    np.testing.assert_array_equal(tangent.numpy(), want)


def test_long_tail_refusals_as_pytorch():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(
            TypeError, match="range\\(\\): argument 'start' \\(position 1\\) must be Number, not Tensor"
        ):
            minitorch.range(minitorch.tensor([1.0]), 3)
        assert minitorch.range(minitorch.tensor(1.0), 3).tolist() == [
            1.0,
            2.0,
            3.0,
        ]  # a 0-dim tensor is a Number
    with pytest.raises(TypeError, match="'split_sizes' \\(position 1\\) must be tuple of ints, not Tensor"):
        minitorch.ones(3).unsafe_split_with_sizes(minitorch.ones(1))
    for dtype in (minitorch.float16, minitorch.bfloat16):
        with pytest.raises(
            RuntimeError, match="quantile\\(\\) input tensor must be either float or double dtype"
        ):
            minitorch.quantile(minitorch.ones(3, dtype=dtype), 0.5)
        with pytest.raises(RuntimeError, match="must be either float or double dtype"):
            minitorch.nanquantile(minitorch.ones(3, dtype=dtype), 0.5)


def test_is_same_size_counts_positions_as_pytorch():
    x = minitorch.ones(2)
    assert x.is_same_size(minitorch.zeros(2)) and not x.is_same_size(minitorch.zeros(3))
    with pytest.raises(
        TypeError, match="is_same_size\\(\\): argument 'other' \\(position 1\\) must be Tensor"
    ):
        x.is_same_size(2)
    with pytest.raises(
        TypeError, match="is_same_size\\(\\): argument 'other' \\(position 2\\) must be Tensor"
    ):
        minitorch.is_same_size(x, 2)
