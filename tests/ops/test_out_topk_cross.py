"""out= of topk written by the sort kernel straight into (values, indices) of the result's shape and dtypes
along the last dim (bind_out.cpp's try_direct_topk, ops/sort.h's topk_into); other outs keep the general path.
And torch.cross / linalg.cross through the CPU's cross kernel, with and without out=."""

import os
import warnings

import numpy as np
import pytest
from utils import to_np

import minitorch

X = np.random.default_rng(0).permutation(42).reshape(6, 7).astype(np.float64)  # distinct: one right order


def _ref_topk(x, k, dim, largest):
    order = np.argsort(-x if largest else x, axis=dim, kind="stable")
    idx = np.take(order, np.arange(k), axis=dim)
    return np.take_along_axis(x, idx, dim), idx


@pytest.mark.parametrize("dtype", [minitorch.float32, minitorch.float64, minitorch.int32], ids=str)
@pytest.mark.parametrize(
    "k,kw",
    [(3, {}), (1, {"dim": -1}), (7, {"largest": False}), (2, {"dim": 1, "sorted": True}), (4, {"dim": 0})],
    ids=["k3", "k1 dim -1", "k7 smallest", "dim 1 sorted", "dim 0"],
)
def test_topk_out(device, dtype, k, kw):
    x = minitorch.tensor(X, device=device).to(dtype)
    dim, largest = kw.get("dim", -1), kw.get("largest", True)
    want_v, want_i = _ref_topk(X, k, dim, largest)
    v = minitorch.full(want_v.shape, -1, dtype=dtype, device=device)
    i = minitorch.full(want_v.shape, -1, dtype=minitorch.int64, device=device)
    ptrs, versions = (v.data_ptr(), i.data_ptr()), (v._version, i._version)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        r = minitorch.topk(x, k, out=(v, i), **kw)
    assert type(r).__name__ == "topk" and r.values is v and r.indices is i
    assert (v.data_ptr(), i.data_ptr()) == ptrs and (v._version, i._version) == (
        versions[0] + 1,
        versions[1] + 1,
    )
    np.testing.assert_array_equal(to_np(v), want_v)
    np.testing.assert_array_equal(to_np(i), want_i)
    # positional dim/largest/sorted, a list of outs, transposed outs (the general path): the same values
    for out in ([v.clone(), i.clone()], (v.t().clone().t(), i.t().clone().t())):
        minitorch.topk(x, k, dim, largest, True, out=out)
        np.testing.assert_array_equal(to_np(out[0]), want_v)
        np.testing.assert_array_equal(to_np(out[1]), want_i)


def test_topk_out_general_path_rules(device):
    x = minitorch.tensor(X, device=device).float()
    v, i = minitorch.empty(6, 2, device=device), minitorch.empty(6, 2, dtype=minitorch.int64, device=device)
    with pytest.raises(RuntimeError, match="Expected out tensor to have dtype float, but got double instead"):
        minitorch.topk(x, 2, out=(v.double(), i))
    with pytest.raises(RuntimeError, match="Expected out tensor to have dtype long int, but got int instead"):
        minitorch.topk(x, 2, out=(v, i.int()))
    with pytest.raises(RuntimeError, match="selected index k out of range"):
        minitorch.topk(x, 8, out=(v, i))
    with pytest.raises(TypeError, match="topk"):
        minitorch.topk(x, 2, dim=1, out=(v, i), largest=1.5)
    # another shape with elements: resized with the warning; empty outs: silently
    v2, i2 = minitorch.empty(3, device=device), minitorch.empty(3, dtype=minitorch.int64, device=device)
    with pytest.warns(UserWarning, match=r"was resized since it had shape \[3\]"):
        minitorch.topk(x, 2, out=(v2, i2))
    assert tuple(v2.shape) == (6, 2) and minitorch.equal(v2, minitorch.topk(x, 2).values)
    # out aliasing the input, or each other: the general path (computed first)
    z = x.clone()
    minitorch.topk(z, 7, out=(z, minitorch.empty(6, 7, dtype=minitorch.int64, device=device)))
    np.testing.assert_array_equal(to_np(z), _ref_topk(X, 7, -1, True)[0])
    with pytest.raises(RuntimeError, match=r"functions with out=\.\.\. arguments don't support"):
        minitorch.topk(x.requires_grad_(), 2, out=(v, i))


# torch.cross / linalg.cross: the CPU's cross kernel (ops/linalg.h's linalg_cross, written into out when
# out_takes it), the composite for a tensor that requires grad; values against NumPy
@pytest.mark.parametrize(
    "dtype", [minitorch.float64, minitorch.float32, minitorch.int64, minitorch.complex128], ids=str
)
def test_cross_kernel(device, dtype):
    rng = np.random.default_rng(1)
    a_np, b_np = np.round(rng.standard_normal((4, 3, 5)) * 4), np.round(rng.standard_normal((1, 3, 5)) * 4)
    if dtype.is_complex:
        a_np, b_np = a_np + 1j * np.roll(a_np, 1), b_np - 2j * b_np
    a, b = (minitorch.tensor(x, device=device).to(dtype) for x in (a_np, b_np))
    want = np.cross(
        to_np(a) if not dtype.is_complex else a_np, to_np(b) if not dtype.is_complex else b_np, axis=1
    )
    tol = {"rtol": 1e-6} if dtype == minitorch.float32 else {"rtol": 0}
    for call in (
        lambda out: minitorch.linalg.cross(a, b, dim=1, out=out),
        lambda out: minitorch.cross(a, b, dim=1, out=out),
        lambda out: minitorch.linalg.cross(a.transpose(0, 2), b.transpose(0, 2), dim=1, out=out),
    ):
        r = call(None)
        if r.shape[0] == 5:  # the transposed inputs' product, back in a's order
            r = r.transpose(0, 2)
        assert r.dtype == dtype
        np.testing.assert_allclose(r.cpu().numpy(), want, **tol)
        # outs: contiguous and strided (the kernel writes them in place), empty (resized), wrong dtype
        for out in (
            minitorch.full(r.shape, 77, dtype=dtype, device=device),
            minitorch.full(tuple(r.shape)[::-1], 77, dtype=dtype, device=device).permute(2, 1, 0),
            minitorch.empty(0, dtype=dtype, device=device),
        ):
            ptr = out.data_ptr() if out.numel() else None
            assert call(out) is out
            np.testing.assert_allclose(out.cpu().numpy(), call(None).cpu().numpy(), **tol)
            assert ptr is None or out.data_ptr() == ptr
    with pytest.raises(RuntimeError, match="Expected out tensor to have dtype"):
        minitorch.linalg.cross(a, b, dim=1, out=minitorch.empty(4, 3, 5, dtype=minitorch.int8, device=device))


def test_cross_kernel_edges(device):
    x = minitorch.tensor([[1.0, 2.0, 3.0]], device=device)
    y = minitorch.tensor([[-1.0, 0.5, 2.0]], device=device)
    want = np.cross(to_np(x), to_np(y))
    # int8 wraps as the composite's mul and sub do (PyTorch's kernel in scalar_t)
    big = minitorch.tensor([[100, -100, 90]], dtype=minitorch.int8, device=device)
    small = minitorch.tensor([[3, 2, -5]], dtype=minitorch.int8, device=device)
    got = minitorch.cross(big, small, dim=1)
    x8, y8 = to_np(big).astype(np.int64), to_np(small).astype(np.int64)
    np.testing.assert_array_equal(to_np(got), (np.cross(x8, y8) + 128) % 256 - 128)
    # an out overlapping an input: the general path (computed first)
    z = x.clone()
    minitorch.linalg.cross(z, y, out=z)
    np.testing.assert_array_equal(to_np(z), want)
    # 0 rows, and a size-3 dim found by default (torch.cross's warning)
    assert tuple(minitorch.linalg.cross(x[:0], y[:0]).shape) == (0, 3)
    # a once-per-process warning (PyTorch's TORCH_WARN_ONCE): another test may have had it first
    always = minitorch.is_warn_always_enabled()
    minitorch.set_warn_always(True)
    try:
        with pytest.warns(
            UserWarning, match="Using torch.cross without specifying the dim arg is deprecated"
        ):
            np.testing.assert_array_equal(to_np(minitorch.cross(x, y)), want)
    finally:
        minitorch.set_warn_always(always)
    # gradients flow (the composite), and out= refuses them in PyTorch's words
    xg = x.detach().requires_grad_()
    minitorch.linalg.cross(xg, y).sum().backward()
    np.testing.assert_allclose(to_np(xg.grad), np.cross(to_np(y), np.ones((1, 3))), rtol=1e-6)
    with pytest.raises(
        RuntimeError, match=r"linalg_cross\(\): functions with out=\.\.\. arguments don't support"
    ):
        minitorch.cross(xg, y, dim=1, out=minitorch.empty(1, 3, device=device))
    with pytest.raises(
        RuntimeError, match=r"linalg_cross\(\): functions with out=\.\.\. arguments don't support"
    ):
        minitorch.linalg.cross(x, y, out=minitorch.empty(1, 3, device=device, requires_grad=True))


def test_cross_formula_path_and_method(device):
    # inputs autograd must see take the one formula both spellings share (_composite_shape.cross_product):
    # the kernel's values, broadcast, and gradients through it
    rng = np.random.default_rng(2)
    a_np, b_np = rng.standard_normal((4, 3, 2)), rng.standard_normal((1, 3, 2))
    want = np.cross(a_np, b_np, axis=1)
    for f in (lambda a, b: minitorch.cross(a, b, dim=1), lambda a, b: minitorch.linalg.cross(a, b, dim=1)):
        a = minitorch.tensor(a_np, device=device, requires_grad=True)
        b = minitorch.tensor(b_np, device=device)
        r = f(a, b)
        assert r.requires_grad and tuple(r.shape) == (4, 3, 2)
        np.testing.assert_allclose(to_np(r.detach()), want, rtol=1e-12)
        r.sum().backward()
        # d/da of sum(a x b) is b x 1 (the sum's ones), broadcast over a's rows
        np.testing.assert_allclose(
            to_np(a.grad), np.broadcast_to(np.cross(b_np, np.ones_like(b_np), axis=1), a_np.shape)
        )
    # Tensor.cross takes no out= (PyTorch's method has none; torch.cross has)
    x, y = minitorch.tensor([1.0, 0.0, 0.0]), minitorch.tensor([0.0, 1.0, 0.0])
    np.testing.assert_array_equal(to_np(x.cross(y, 0)), [0.0, 0.0, 1.0])
    np.testing.assert_array_equal(to_np(x.cross(other=y, dim=0)), [0.0, 0.0, 1.0])
    for call in (lambda: x.cross(y, out=minitorch.empty(3)), lambda: x.cross(y, 0, out=minitorch.empty(3))):
        with pytest.raises(TypeError) as e:
            call()
        assert str(e.value) == "cross() got an unexpected keyword argument 'out'"
    with pytest.raises(TypeError) as e:
        x.cross(y, 1.5)
    assert str(e.value) == "cross(): argument 'dim' (position 2) must be int, not float"
    # the dim warning names the caller's line through either spelling
    always = minitorch.is_warn_always_enabled()
    minitorch.set_warn_always(True)
    try:
        for call in (lambda: x.cross(y), lambda: minitorch.cross(x, y)):
            with warnings.catch_warnings(record=True) as w:
                warnings.simplefilter("always")
                call()
            assert [os.path.basename(r.filename) for r in w] == [os.path.basename(__file__)]
    finally:
        minitorch.set_warn_always(always)
