"""out= of topk written by the sort kernel straight into (values, indices) of the result's shape and dtypes
along the last dim (bind_out.cpp's try_direct_topk, ops/sort.h's topk_into); other outs keep the general path."""

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
