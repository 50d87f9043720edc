"""The long tail of torch-level and Tensor spellings: the *_copy forms of view ops, unsafe splits, torch.range,
vander, chain_matmul, Tensor.as_subclass, Tensor.igamma/igammac, Tensor.hardshrink/prelu, torch-level in-place
spellings, nn.init's old names, torch.sym_*, the per-device autocast getters and setters, Tensor.apply_, map_
and map2_ (against NumPy and PyTorch's results and errors)."""

import warnings

import numpy as np
import pytest
from scipy import special as sps
from utils import cases_here_and_in_pytorch

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


def test_slice_copy_bounds_as_pytorchs_slice(device):
    """slice_copy's narrow path (step 1) and strided path: ATen's bounds (negative ends from the end, clamped to
    [0, n], end >= start), a transposed input, empty results, float64 and int64, out=; the dim checked before
    the step, in PyTorch's words; a bool start refused as PyTorch's parser does."""
    a = np.arange(35.0).reshape(5, 7)
    for dt in (minitorch.float64, minitorch.int64):
        for x, ref in (
            (minitorch.tensor(a, device=device).to(dt), a),
            (minitorch.tensor(a.T, device=device).to(dt), a.T),
        ):
            for dim in (0, 1, -1, -2):
                for start in (None, 0, 2, -3, -100, 100):
                    for end in (None, 4, -1, -100, 100, 2**63 - 1):
                        for step in (1, 2, 5):
                            got = minitorch.slice_copy(x, dim, start, end, step)
                            idx = [slice(None)] * 2
                            idx[dim] = slice(start, end, step)
                            want = ref[tuple(idx)]
                            assert got.is_contiguous() and got.dtype == dt
                            np.testing.assert_array_equal(
                                got.cpu().numpy(), want, err_msg=str((dim, start, end, step))
                            )
    x = minitorch.tensor(a, device=device)
    out = minitorch.empty(0, device=device, dtype=minitorch.float64)
    assert minitorch.slice_copy(x, 1, 1, 3, out=out) is out
    np.testing.assert_array_equal(out.cpu().numpy(), a[:, 1:3])
    assert minitorch.slice_copy(x).data_ptr() != x.data_ptr()
    with pytest.raises(
        IndexError, match=r"^Dimension out of range \(expected to be in range of \[-2, 1\], but got 5\)$"
    ):
        minitorch.slice_copy(x, 5, None, None, 0)
    with pytest.raises(
        TypeError, match=r"^slice_copy\(\): argument 'start' \(position 3\) must be int, not bool$"
    ):
        minitorch.slice_copy(x, 0, True)


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


_RANGE_CASES = r"""
import warnings
def cases(torch):
    warnings.simplefilter("ignore")
    out = []
    for args, kw in [
        ((256, 256), {}), ((1, 4), {}), ((0, 1, 0.1), {}), ((1, 2, 0.3), {}), ((5, 1, -2), {}),
        ((-3.7, 11.2, 0.7), {}), ((0.1, 0.9, 0.1), {}), ((1e8, 1e8 + 3), {}), ((2.5, -7.25, -0.75), {}),
        ((0, 1, 1 / 3), {"dtype": torch.float64}), ((0.1, 25.6, 0.1), {"dtype": torch.float64}),
        ((0, 1, 1 / 3), {"dtype": torch.float16}), ((0, 5, 0.5), {"dtype": torch.bfloat16}),
        ((1, 4), {"dtype": torch.int64}), ((0.5, 3.5), {"dtype": torch.int32}),
        ((1e20, 1e20), {}), ((1e20, 1e20, 1), {"dtype": torch.float64}), ((1.0, 3.0), {"requires_grad": True}),
        ((torch.tensor(1.5), 4), {}),
    ]:
        r = torch.range(*args, **kw)
        out.append([str(r.dtype), list(r.shape), r.requires_grad, r.is_leaf, r.double().tolist()])
    o = torch.empty(0)
    torch.range(0, 2, 0.5, out=o)
    out.append(o.tolist())
    return out
"""


def test_range_values_are_pytorchs_to_the_bit():
    ours, theirs = cases_here_and_in_pytorch(_RANGE_CASES, [("torch", minitorch)])
    assert ours == theirs


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


def test_native_norm_and_dropout_forms(device):
    """torch.native_layer_norm/_batch_norm/_group_norm return the result with the statistics a backward saves;
    native_dropout the result with its mask (fuzz seed 4410 found them missing)"""
    T = minitorch
    rng = np.random.default_rng(4)
    a = rng.standard_normal((2, 3, 4))
    x = T.tensor(a, device=device)
    out, mean, rstd = T.native_layer_norm(x, [4], None, None, 1e-5)
    m, v = a.mean(2, keepdims=True), a.var(2, keepdims=True)
    np.testing.assert_allclose(mean.cpu().numpy(), m, rtol=1e-12)
    np.testing.assert_allclose(rstd.cpu().numpy(), 1 / np.sqrt(v + 1e-5), rtol=1e-12)
    np.testing.assert_allclose(out.cpu().numpy(), (a - m) / np.sqrt(v + 1e-5), rtol=1e-10, atol=1e-12)
    _, mean2, _ = T.native_layer_norm(x, [3, 4], T.ones(3, 4, device=device, dtype=T.float64), None, 1e-5)
    assert mean2.shape == (2, 1, 1)
    rm, rv = T.zeros(3, device=device, dtype=T.float64), T.ones(3, device=device, dtype=T.float64)
    out, smean, sinv = T.native_batch_norm(x, None, None, rm, rv, True, 0.1, 1e-5)
    bm, bv = a.mean((0, 2)), a.var((0, 2))
    np.testing.assert_allclose(smean.cpu().numpy(), bm, rtol=1e-12)
    np.testing.assert_allclose(sinv.cpu().numpy(), 1 / np.sqrt(bv + 1e-5), rtol=1e-12)
    np.testing.assert_allclose(rm.cpu().numpy(), 0.1 * bm, rtol=1e-12)  # running stats updated in place
    np.testing.assert_allclose(out.cpu().numpy(), (a - bm[:, None]) / np.sqrt(bv[:, None] + 1e-5), rtol=1e-10)
    _, e1, e2 = T.native_batch_norm(x, None, None, rm, rv, False, 0.1, 1e-5)
    assert e1.shape == (0,) and e2.shape == (0,)
    out, gm, grs = T.native_group_norm(x, None, None, 2, 3, 4, 3, 1e-5)
    assert gm.shape == (2, 3) and grs.shape == (2, 3)
    np.testing.assert_allclose(gm.cpu().numpy(), a.mean(2), rtol=1e-12)
    y, mask = T.native_dropout(T.ones(1000, device=device), 0.25, True)
    assert mask.dtype == T.bool and mask.shape == (1000,)
    np.testing.assert_allclose(y.cpu().numpy(), mask.cpu().numpy() / 0.75, rtol=1e-6)
    assert 600 < int(mask.sum()) < 900
    y, mask = T.native_dropout(x, 0.5, False)
    assert bool(mask.all()) and T.equal(y, x)


def test_convolution_cells_and_pooling_spellings(device):
    T = minitorch
    F = T.nn.functional
    rng = np.random.default_rng(5)
    x = T.tensor(rng.standard_normal((2, 3, 9)), device=device)
    w = T.tensor(rng.standard_normal((4, 3, 2)), device=device)
    b = T.tensor(rng.standard_normal(4), device=device)
    got = T.convolution(x, w, b, [2], [1], [1], False, [0], 1)
    assert T.allclose(got, F.conv1d(x, w, b, 2, 1))
    wt = T.tensor(rng.standard_normal((3, 2, 3)), device=device)
    got = T.convolution(x, wt, None, [2], [0], [1], True, [1], 1)
    assert T.allclose(got, F.conv_transpose1d(x, wt, None, 2, 0, 1))
    x2 = T.tensor(rng.standard_normal((1, 2, 5, 5)), device=device)
    w2 = T.tensor(rng.standard_normal((2, 1, 3, 3)), device=device)
    assert T.allclose(
        T.convolution(x2, w2, None, [1, 1], [1, 1], [1, 1], False, [0, 0], 2),
        F.conv2d(x2, w2, None, 1, 1, 1, 2),
    )
    v, i = T.max_pool1d_with_indices(T.arange(10.0, device=device).reshape(1, 1, 10), [3])
    assert v.tolist() == [[[2.0, 5.0, 8.0]]] and i.tolist() == [[[2, 5, 8]]]

    inp = T.tensor(rng.standard_normal((2, 3)), device=device)
    h = T.tensor(rng.standard_normal((2, 4)), device=device)
    c = T.tensor(rng.standard_normal((2, 4)), device=device)
    for fn, mod, hx in (
        (T.lstm_cell, T.nn.LSTMCell(3, 4), (h, c)),
        (T.gru_cell, T.nn.GRUCell(3, 4), h),
        (T.rnn_tanh_cell, T.nn.RNNCell(3, 4), h),
        (T.rnn_relu_cell, T.nn.RNNCell(3, 4, nonlinearity="relu"), h),
    ):
        mod = mod.double().to(device)
        want = mod(inp, hx)
        got = fn(inp, hx, mod.weight_ih, mod.weight_hh, mod.bias_ih, mod.bias_hh)
        for g, wnt in zip(
            got if isinstance(got, tuple) else (got,), want if isinstance(want, tuple) else (want,)
        ):
            assert T.allclose(g, wnt, rtol=1e-12, atol=1e-12)
    # tanh cell against its formula, without biases
    mod = T.nn.RNNCell(3, 4, bias=False).double().to(device)
    want = np.tanh(
        inp.cpu().numpy() @ mod.weight_ih.detach().cpu().numpy().T
        + h.cpu().numpy() @ mod.weight_hh.detach().cpu().numpy().T
    )
    np.testing.assert_allclose(
        T.rnn_tanh_cell(inp, h, mod.weight_ih, mod.weight_hh).detach().cpu().numpy(), want, rtol=1e-12
    )

    img = T.tensor(rng.standard_normal((1, 1, 3, 3)), device=device)
    grid = T.zeros(1, 2, 2, 2, dtype=T.float64, device=device)
    assert T.allclose(
        T.grid_sampler_2d(img, grid, 0, 0, False), F.grid_sample(img, grid, align_corners=False)
    )
    with pytest.raises(RuntimeError, match="expected 5D input and grid with same number of dimensions"):
        T.grid_sampler_3d(img, grid, 0, 0, False)


def test_nonzero_static_empty_permuted_and_scatter(device):
    T = minitorch
    x = T.tensor([[0, 1, 2], [3, 0, 5]], device=device)
    assert T.nonzero_static(x, size=2).tolist() == [[0, 1], [0, 2]]
    assert x.nonzero_static(size=6, fill_value=9).tolist() == [[0, 1], [0, 2], [1, 0], [1, 2], [9, 9], [9, 9]]
    assert T.nonzero_static(x, size=0).shape == (0, 2)
    with pytest.raises(RuntimeError, match="'size' must be an non-negative integer"):
        T.nonzero_static(x, size=-1)
    e = T.empty_permuted((2, 3, 4), (0, 2, 1), device=device)
    assert e.shape == (2, 3, 4) and e.stride() == (12, 1, 3)
    assert T.empty_permuted((2, 0, 4), (2, 1, 0)).stride() == (1, 2, 2)
    with pytest.raises(RuntimeError, match="len\\(size\\) = 3 is not equal to len\\(physical_layout\\) = 2"):
        T.empty_permuted((2, 3, 4), (0, 2))
    z = T.zeros(3, 4, device=device).t()  # the clone keeps the transposed layout: storage positions 1 and 3
    got = T.as_strided_scatter(z, T.ones(2, device=device), (2,), (2,), 1)
    want = np.zeros((3, 4))
    want.reshape(-1)[[1, 3]] = 1
    assert got.tolist() == want.T.tolist() and z.sum().item() == 0
    assert T.zeros(4).as_strided_scatter(T.ones(2), (2,), (2,)).tolist() == [1.0, 0.0, 1.0, 0.0]
    with pytest.raises(RuntimeError, match="src size = \\[3\\], slice size = \\[2\\]"):
        T.as_strided_scatter(T.zeros(4), T.ones(3), (2,), (2,))


def test_deprecated_and_removed_spellings():
    T = minitorch
    a = np.arange(24.0).reshape(2, 3, 4)
    x = T.tensor(a)
    with pytest.warns(UserWarning, match="at::frobenius_norm is deprecated"):
        got = T.frobenius_norm(x, [1, 2])
    np.testing.assert_allclose(got.numpy(), np.sqrt((a**2).sum((1, 2))), rtol=1e-12)
    with pytest.warns(UserWarning, match="at::nuclear_norm is deprecated"):
        got = T.nuclear_norm(x, [1, 2], True)
    np.testing.assert_allclose(
        got.numpy(), np.linalg.svd(a, compute_uv=False).sum(-1)[:, None, None], rtol=1e-10
    )
    with pytest.warns(UserWarning, match="non-inplace resize is deprecated"):
        r = x.resize(6, 4)
    assert r.shape == (6, 4) and r.tolist() == a.reshape(6, 4).tolist()
    with pytest.warns(UserWarning, match="non-inplace resize_as is deprecated"):
        assert x.resize_as(T.ones(24)).shape == (24,)
    with (
        pytest.raises(
            RuntimeError,
            match="requested resize to 5 \\(5 elements in total\\), but the given tensor has a size of 2x3x4",
        ),
        warnings.catch_warnings(),
    ):
        warnings.simplefilter("ignore")
        x.resize(5)
    for call in (lambda: T.solve(x, x), lambda: x.solve(x)):
        with pytest.raises(
            RuntimeError, match="`torch.solve` is deprecated in favor of `torch.linalg.solve`"
        ):
            call()
    for call in (lambda: T.lstsq(x, x), lambda: x.lstsq(x)):
        with pytest.raises(
            RuntimeError, match="`torch.lstsq` is deprecated in favor of `torch.linalg.lstsq`"
        ):
            call()
    with pytest.raises(RuntimeError, match="L, _ = torch.symeig"):
        x.symeig()
    assert x.const_data_ptr() == x.data_ptr()
    assert not T.is_distributed(x) and not x.is_distributed()
    assert T.get_device_module("cpu") is T.cpu and T.compiled_with_cxx11_abi() is True
    assert T.from_dlpack(T.to_dlpack(x)).tolist() == x.tolist()


def test_new_spellings_refuse_as_pytorch():
    """fuzz seed 4411's refusals of the spellings added in the sixteenth session"""
    T = minitorch
    for x, name in ((T.tensor([[False], [True]]), "Bool"), (T.tensor([[1], [2]]), "Long")):
        with pytest.raises(
            RuntimeError, match=f"result type Float can't be cast to the desired output type {name}"
        ):
            T.native_dropout(x, 0.5, True)
    kept, mask = T.native_dropout(T.tensor([True, False]), 0.5, False)
    assert kept.tolist() == [True, False] and mask.tolist() == [True, True]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(
            RuntimeError, match="Expected at most 2 dimensions, but got 3 dimensions instead."
        ):
            T.frobenius_norm(T.ones(1, 1, 5), [-2, 2, 0])
        with pytest.raises(
            NotImplementedError, match="norm\\(\\): input dtype should be either floating point or complex"
        ):
            T.frobenius_norm(T.ones(2, 2, dtype=T.int64), [0, 1])
        with pytest.raises(RuntimeError, match="The input tensor A must have at least 2 dimensions"):
            T.nuclear_norm(T.ones(3))


_REFUSALS = r"""
def cases(torch):
    out = []
    for name, args, kw in [
        ("detach", (3,), {}), ("adjoint", (3,), {}), ("is_conj", (3,), {}), ("is_neg", ("a",), {}),
        ("resolve_conj", (None,), {}), ("resolve_neg", ([1],), {}), ("is_vulkan_available", (1,), {"x": 2}),
        ("to_dlpack", (2,), {}), ("select_copy", (torch.ones(2, 2), 0, 1.5), {}),
        ("transpose_copy", (torch.ones(2, 2), 0), {}), ("permute_copy", (torch.ones(2, 2), 1, 0), {}),
        ("threshold", (torch.ones(2), 0.5, "x"), {}), ("threshold", (torch.ones(2), True, False), {}),
        ("select_copy", (torch.ones(2, 2), 5, 0), {}), ("select_copy", (torch.arange(6.0).view(2, 3), 1, -1), {}),
        ("transpose_copy", (torch.arange(6.0).view(2, 3), 0, 1), {}), ("transpose_copy", (torch.ones(2), 0, 3), {}),
        ("unsqueeze_copy", (torch.arange(3.0), -1), {}), ("unfold_copy", (torch.arange(5.0), 0, 2, 2), {}),
        ("split_copy", (torch.arange(5.0), 2), {}), ("split_copy", (torch.arange(6.0).view(3, 2), 2, 0), {}),
        ("t_copy", (torch.arange(6.0).view(2, 3),), {}), ("detach_copy", (torch.arange(2.0),), {}),
    ]:
        try:
            r = getattr(torch, name)(*args, **kw)
            if isinstance(r, tuple):
                r = [p.tolist() for p in r]
            elif not isinstance(r, bool):
                assert r.is_contiguous()
                r = r.tolist()
            out.append([name, "ok", r])
        except Exception as e:
            out.append([name, type(e).__name__, str(e)])
    return out
"""


def test_per_call_fast_paths_refuse_as_pytorch():
    """the functions whose checks run inline (no translating wrapper) or behind the parser's fast test refuse
    what PyTorch refuses, in its words, and take what it takes"""
    ours, theirs = cases_here_and_in_pytorch(_REFUSALS, [("torch", minitorch)])
    assert ours == theirs


_INPLACE_SPELLINGS = r"""
def cases(torch):
    import warnings
    run = runner(lambda r: r)
    out = []
    x = torch.arange(6.0)
    r = torch.as_strided_(x, (2, 2), (1, 2), 1)
    out.append([r is x, x.tolist(), list(x.stride()), x.storage_offset()])
    a, b = torch.zeros(2, 3), torch.ones(4, 5, dtype=torch.float64)
    r = torch.resize_as_(a, b)
    out.append([r is a, list(a.shape), str(a.dtype)])
    for dt in (torch.complex64, torch.complex128):
        c = torch.tensor([1 + 2j, -3j, 0.5], dtype=dt)[::2]  # (strided)
        r = torch.conj_physical_(c)
        out.append([r is c, str(c.tolist()), str(c.dtype)])
    e = torch.zeros(0, dtype=torch.complex64)
    out.append(e.conj_physical_().tolist())
    i = torch.arange(3)
    out.append([i.conj_physical_() is i, i.tolist()])
    g = torch.tensor([1 + 1j, 2 - 1j], requires_grad=True)
    h = g * 1
    h.conj_physical_()
    (h * torch.tensor([2 + 1j, 1 - 3j])).real.sum().backward()
    out.append(str(g.grad.tolist()))
    out.append(run(lambda: torch.tensor([1.0], requires_grad=True).conj_physical_()))
    out.append(run(lambda: torch.tensor([1j], requires_grad=True).conj_physical_()))
    out.append(run(lambda: torch.get_device(3)))
    out.append(run(lambda: torch.conj_physical_(2)))
    out.append(run(lambda: torch.conj_physical_(torch.ones(1), 1)))
    out.append(torch.get_device(torch.ones(2)))
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        t = torch.empty(3, 4)
        r = torch.nn.init.constant(t, 2.5)
        torch.nn.init.eye(t)
        out.append([r is t, t.tolist(), [str(m.message) for m in w], [m.category.__name__ for m in w]])
    out.append(run(lambda: torch.nn.init.sparse_(torch.empty(3), 0.5)))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        out.append(run(lambda: torch.nn.init.sparse(torch.empty(2, 3, 4), 0.5)))
    return out
"""


def test_inplace_spellings_init_aliases_and_get_device_as_pytorch():
    ours, theirs = cases_here_and_in_pytorch(_INPLACE_SPELLINGS, [("torch", minitorch)])
    assert ours == theirs


@pytest.mark.parametrize("sparsity,rows", [(0.5, 6), (0.1, 10), (0.0, 3), (1.0, 4)])
def test_init_sparse_zeros_per_column(sparsity, rows):
    # the draws are the generator's: what PyTorch's sparse_ fixes is how many of each column are zeroed
    t = minitorch.empty(rows, 200, dtype=minitorch.float64)
    assert minitorch.nn.init.sparse_(t, sparsity, std=2.0) is t
    a = t.numpy()
    zeros = (a == 0).sum(0)
    assert (zeros == int(np.ceil(sparsity * rows))).all()
    if sparsity < 1:
        assert abs(a[a != 0].std() - 2.0) < 0.25


_SYM_AND_AUTOCAST = r"""
def cases(torch):
    import warnings
    import numpy as np
    def run(f):
        try:
            r = f()
            return [type(r).__name__, repr(r)]
        except Exception as e:
            return [type(e).__name__, str(e)]
    out = [run(f) for f in (
        lambda: torch.sym_int(3.7), lambda: torch.sym_int(-3.7), lambda: torch.sym_int("5"),
        lambda: torch.sym_float(3), lambda: torch.sym_max(2, 3), lambda: torch.sym_max(2, 3.0),
        lambda: torch.sym_min(2.5, 1), lambda: torch.sym_max(np.int64(4), 2), lambda: torch.sym_max("a", 2),
        lambda: torch.sym_min(1, None), lambda: torch.sym_not(0), lambda: torch.sym_not([1]),
        lambda: torch.sym_sqrt(16), lambda: torch.sym_sqrt(-1), lambda: torch.sym_ite(True, 1, 2),
        lambda: torch.sym_ite(False, 1, 2), lambda: torch.sym_ite(1, 1, 2), lambda: torch.sym_ite(True, 1, 2.0),
        lambda: torch.sym_sum([1, 2, 3]), lambda: torch.sym_sum(1, 2.5), lambda: torch.sym_sum([]),
        lambda: torch.sym_int(torch.tensor(2.5)), lambda: torch.sym_float(torch.tensor(2)),
    )]
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        out.append([torch.is_autocast_cpu_enabled(), str(torch.get_autocast_cpu_dtype()),
                    str(torch.get_autocast_gpu_dtype())])
        torch.set_autocast_cpu_dtype(torch.float16)
        out.append(str(torch.get_autocast_dtype("cpu")))
        torch.set_autocast_cpu_dtype(torch.bfloat16)
        torch.set_autocast_gpu_dtype(torch.bfloat16)
        out.append(str(torch.get_autocast_dtype("cuda")))
        torch.set_autocast_gpu_dtype(torch.float16)
        torch.set_autocast_cpu_enabled(True)
        out.append(torch.is_autocast_enabled("cpu"))
        torch.set_autocast_cpu_enabled(False)
        # PyTorch's C++ warnings add where they were raised; the text before that, category and caller match
        out.append([str(m.message).split(" (Triggered")[0] for m in w])
        out.append([m.category.__name__ for m in w])
        out.append([m.filename == "<string>" for m in w])
    out.append([torch.autocast_increment_nesting(), torch.autocast_increment_nesting(),
                torch.autocast_decrement_nesting(), torch.autocast_decrement_nesting()])
    with torch.autocast("cpu"):
        out.append([torch.autocast_increment_nesting(), torch.autocast_decrement_nesting()])
    return out
"""


def test_sym_functions_and_legacy_autocast_spellings_as_pytorch():
    ours, theirs = cases_here_and_in_pytorch(_SYM_AND_AUTOCAST, [("torch", minitorch)])
    assert ours == theirs


_PYTHON_LOOPS = r"""
def cases(torch):
    def t(f):
        try:
            r = f()
            return [str(r.dtype), r.tolist() if not r.is_complex() else str(r.tolist())]
        except Exception as e:
            return [type(e).__name__, str(e)[:200]]
    x = torch.tensor([1.5, 2.5, -3.0])
    out = [t(f) for f in (
        lambda: x.clone().apply_(lambda v: v * 2),
        lambda: x.clone().apply_(lambda v: type(v).__name__ == "float" and 1),
        lambda: torch.tensor([1, 2, 3]).apply_(lambda v: v / 2),
        lambda: torch.tensor([True, False]).apply_(lambda v: not v),
        lambda: x.clone().requires_grad_().apply_(lambda v: v),
        lambda: (x.clone().requires_grad_() * 1).apply_(lambda v: v),
        lambda: x.clone().apply_(3),
        lambda: x[::2].clone().apply_(lambda v: v + 1),
        lambda: x.clone().map_(torch.tensor([1.0, 2.0, 3.0]), lambda a, b: a * b),
        lambda: torch.zeros(2, 3).map_(torch.tensor([1.0, 2.0, 3.0]), lambda a, b: a + b),
        lambda: torch.zeros(3).map_(torch.ones(3, dtype=torch.int64), lambda a, b: a + b),
        lambda: torch.zeros(3).map2_(torch.ones(3), torch.arange(3.0), lambda a, b, c: a + b * c),
        lambda: torch.zeros(3).map2_(torch.ones(3), torch.arange(3), lambda a, b, c: a + b * c),
        lambda: torch.zeros(3).map2_(torch.ones(3).int(), torch.arange(3.0), lambda a, b, c: a + b * c),
        lambda: torch.tensor([1 + 1j]).apply_(lambda v: v * 2),
        lambda: torch.zeros(2, dtype=torch.float16).apply_(lambda v: 1.3),
        lambda: torch.zeros(0, 2).apply_(lambda v: 1.0),
        lambda: torch.tensor(2.0).apply_(lambda v: v + 1),
        lambda: torch.tensor([2**40 + 1]).apply_(lambda v: v + 1),
    )]
    y = torch.zeros(3, 2)
    y.t().apply_(lambda v: 1.0)  # (through a view: the base sees the writes)
    out.append(y.tolist())
    z = torch.arange(6.0).reshape(2, 3)
    z.t().apply_(lambda v: v * 10)
    out.append(z.tolist())
    return out
"""


def test_apply_map_map2_as_pytorch():
    ours, theirs = cases_here_and_in_pytorch(_PYTHON_LOOPS, [("torch", minitorch)])
    assert ours == theirs
