"""Sparse tensors (minitorch.sparse): COO and CSR construction, coalescing, conversions and products against
scipy.sparse and NumPy, gradients to the values and to the dense operands by gradcheck in float64, a sparse
leaf's .grad, PyTorch's reprs and errors, pickling and minitorch.load, and the sparse-aware torch functions."""

import io
import pickle
import re

import numpy as np
import pytest
import scipy.sparse as sp

import minitorch

if not hasattr(minitorch, "sparse_coo_tensor"):
    pytest.skip(
        "needs the sparse names in minitorch/__init__.py (issue 33: the lead installs them)",
        allow_module_level=True,
    )

from utils import cases_here_and_in_pytorch

from minitorch import sparse
from minitorch.autograd import gradcheck


def npy(t):
    return t.detach().cpu().double().numpy()


def random_coo(m, n, nnz, seed=0, duplicates=True):
    """(rows, cols, vals) with repeated positions when `duplicates` (so coalescing has work to do)."""
    rng = np.random.default_rng(seed)
    rows = rng.integers(0, m, nnz)
    cols = rng.integers(0, n, nnz)
    if duplicates and nnz >= 4:
        rows[-2:], cols[-2:] = rows[:2], cols[:2]
    return rows, cols, rng.standard_normal(nnz)


def make(rows, cols, vals, shape, dtype=minitorch.float64, device="cpu", **kw):
    idx = minitorch.tensor(np.stack([rows, cols]), device=device)
    return minitorch.sparse_coo_tensor(idx, minitorch.tensor(vals, dtype=dtype, device=device), shape, **kw)


def scipy_of(rows, cols, vals, shape):
    return sp.coo_matrix((vals, (rows, cols)), shape=shape)


# ---------------------------------------------------------------------------------------------- layouts


def test_layouts_are_objects_with_pytorchs_repr():
    assert repr(minitorch.strided) == "torch.strided"
    assert repr(minitorch.sparse_coo) == "torch.sparse_coo"
    assert repr(minitorch.sparse_csr) == "torch.sparse_csr"
    assert type(minitorch.sparse_coo) is minitorch.layout
    assert pickle.loads(pickle.dumps(minitorch.sparse_coo)) is minitorch.sparse_coo
    x = minitorch.ones(2, 3)
    assert x.layout is minitorch.strided and not x.is_sparse and not x.is_sparse_csr
    assert (x.sparse_dim(), x.dense_dim()) == (0, 2)
    assert x.to_dense() is x


def test_is_tensor_but_not_an_instance():
    s = minitorch.ones(2, 2).to_sparse()
    assert minitorch.is_tensor(s)
    assert not isinstance(s, minitorch.Tensor)  # the C++ Tensor class has no sparse layout
    assert s.is_sparse and s.layout is minitorch.sparse_coo
    c = minitorch.ones(2, 2).to_sparse_csr()
    assert minitorch.is_tensor(c) and c.is_sparse_csr and not c.is_sparse and c.layout is minitorch.sparse_csr


# ------------------------------------------------------------------------------------------ construction


def test_construct_values_and_size(device):
    i = minitorch.tensor([[0, 1, 1], [2, 0, 2]], device=device)
    v = minitorch.tensor([3.0, 4, 5], device=device)
    s = minitorch.sparse_coo_tensor(i, v, (2, 3))
    assert s.shape == (2, 3) and s.size() == minitorch.Size([2, 3]) and s.size(1) == 3 and s.dim() == 2
    assert s._nnz() == 3 and s.sparse_dim() == 2 and s.dense_dim() == 0 and s.numel() == 6
    assert s.dtype == minitorch.float32 and s.device.type == device and len(s) == 2
    np.testing.assert_array_equal(npy(s.to_dense()), [[0, 0, 3], [4, 0, 5]])
    # the size is inferred from the largest index, a dense part from the values
    t = minitorch.sparse_coo_tensor(minitorch.tensor([[0, 2], [1, 5]]), minitorch.tensor([[1.0, 2], [3, 4]]))
    assert t.shape == (3, 6, 2) and t.sparse_dim() == 2 and t.dense_dim() == 1
    # Python and NumPy data, any integer index dtype, dtype= converts the values
    u = minitorch.sparse_coo_tensor(
        np.array([[0, 1], [1, 0]], dtype=np.int32).T, [1, 2], (2, 2), dtype=minitorch.float64
    )
    assert u.dtype == minitorch.float64 and u._indices().dtype == minitorch.int64
    np.testing.assert_array_equal(npy(u.to_dense()), [[0, 1], [2, 0]])


def test_construct_empty():
    s = minitorch.sparse_coo_tensor(minitorch.empty(2, 0, dtype=minitorch.int64), minitorch.empty(0), (3, 6))
    assert s._nnz() == 0 and s.is_coalesced() and s.shape == (3, 6)
    np.testing.assert_array_equal(npy(s.to_dense()), np.zeros((3, 6)))
    t = minitorch.sparse_coo_tensor(minitorch.empty(2, 0, dtype=minitorch.int64), minitorch.empty(0))
    assert t.shape == (0, 0)
    out = minitorch.sparse.mm(s, minitorch.ones(6, 4))
    np.testing.assert_array_equal(npy(out), np.zeros((3, 4)))
    assert s.coalesce()._nnz() == 0 and minitorch.sparse.sum(s).item() == 0


def test_construct_errors():
    i = minitorch.tensor([[0, 2], [1, 5]])
    # tensors inside index data are read as indices (__index__): one-element integer (or bool) tensors only
    for data in ([minitorch.tensor([1, 2]), minitorch.tensor([0, 1])], [[minitorch.tensor(1.0)], [0]]):
        with pytest.raises(
            TypeError, match="^only integer tensors of a single element can be converted to an index$"
        ):
            minitorch.sparse_coo_tensor(data, minitorch.ones(2), (3, 3))
    s = minitorch.sparse_coo_tensor(
        [[minitorch.tensor(True)], [minitorch.tensor([2])]], minitorch.ones(1), (3, 3)
    )
    assert s.coalesce().indices().tolist() == [[1], [2]]
    with pytest.raises(RuntimeError, match=r"^indices and values must have same nnz, but got nnz from indices: 2, "
                       r"nnz from values: 3$"):  # fmt: skip
        minitorch.sparse_coo_tensor(i, minitorch.tensor([1.0, 2, 3]), (3, 6))
    with pytest.raises(RuntimeError, match=r"^indices must be sparse_dim x nnz, but got: \[2\]$"):
        minitorch.sparse_coo_tensor(minitorch.tensor([0, 2]), minitorch.tensor([1.0, 2]), (3, 6))
    with pytest.raises(RuntimeError, match=r"^'len\(size\) == sparse_dim \+ dense_dim' is not satisfied: "
                       r"len\(size\) = 1, sparse_dim = 2, dense_dim = 0$"):  # fmt: skip
        minitorch.sparse_coo_tensor(i, minitorch.tensor([1.0, 2]), (3,))
    with pytest.raises(RuntimeError, match=r"^values has incorrect size, expected \[2, 3\], got \[2, 2\]$"):
        minitorch.sparse_coo_tensor(i, minitorch.tensor([[1.0, 2], [3, 4]]), (3, 6, 3))
    with pytest.raises(
        RuntimeError, match="^Only Tensors of floating point and complex dtype can require gradients$"
    ):
        minitorch.sparse_coo_tensor(i, minitorch.tensor([1, 2]), (3, 6), requires_grad=True)


@pytest.mark.parametrize("check", [None, False, True])
def test_index_bounds_are_checked(check):
    # PyTorch checks these only with check_invariants=True (and reads out of bounds otherwise); we always do
    v = minitorch.tensor([1.0])
    with pytest.raises(
        RuntimeError, match="^size is inconsistent with indices: for dim 1, size is 3 but found index 5$"
    ):
        minitorch.sparse_coo_tensor(minitorch.tensor([[0], [5]]), v, (2, 3), check_invariants=check)
    with pytest.raises(RuntimeError, match="^found negative index -1 for dim 1$"):
        minitorch.sparse_coo_tensor(minitorch.tensor([[0], [-1]]), v, (2, 3), check_invariants=check)
    with pytest.raises(RuntimeError, match="^found negative index -1 for dim 1$"):
        minitorch.sparse_coo_tensor(minitorch.tensor([[0], [-1]]), v)


def test_is_coalesced_claim_and_invariant_switch():
    i = minitorch.tensor([[0, 0], [2, 1]])  # unsorted
    v = minitorch.tensor([1.0, 2])
    s = minitorch.sparse_coo_tensor(i, v, (3, 6), is_coalesced=True)  # trusted without checks, as PyTorch
    assert s.is_coalesced()
    msg = "^cannot set is_coalesced to true if indices correspond to uncoalesced COO tensor$"
    with pytest.raises(RuntimeError, match=msg):
        minitorch.sparse_coo_tensor(i, v, (3, 6), is_coalesced=True, check_invariants=True)
    assert not sparse.check_sparse_tensor_invariants.is_enabled()
    with sparse.check_sparse_tensor_invariants():
        assert sparse.check_sparse_tensor_invariants.is_enabled()
        with pytest.raises(RuntimeError, match=msg):
            minitorch.sparse_coo_tensor(i, v, (3, 6), is_coalesced=True)
    assert not sparse.check_sparse_tensor_invariants.is_enabled()

    @sparse.check_sparse_tensor_invariants()
    def build():
        return minitorch.sparse_coo_tensor(i, v, (3, 6), is_coalesced=True)

    with pytest.raises(RuntimeError, match=msg):
        build()
    cm = sparse.check_sparse_tensor_invariants()
    with cm, pytest.raises(RuntimeError, match="already activated"):
        cm.__enter__()
    ok = minitorch.sparse_coo_tensor(
        minitorch.tensor([[0, 0], [1, 2]]), v, (3, 6), is_coalesced=True, check_invariants=True
    )
    assert ok.is_coalesced()


# -------------------------------------------------------------------------------------------- coalescing


@pytest.mark.parametrize("dtype", [minitorch.float32, minitorch.float64, minitorch.int64])
def test_coalesce_sums_duplicates_like_scipy(device, dtype):
    rows, cols, vals = random_coo(7, 5, 30, seed=1)
    if dtype == minitorch.int64:
        vals = np.round(vals * 10)
    s = make(rows, cols, vals, (7, 5), dtype=dtype, device=device)
    assert not s.is_coalesced()
    with pytest.raises(
        RuntimeError, match=r"^Cannot get indices on an uncoalesced tensor, please call \.coalesce\(\) first$"
    ):
        s.indices()
    with pytest.raises(
        RuntimeError, match=r"^Cannot get values on an uncoalesced tensor, please call \.coalesce\(\) first$"
    ):
        s.values()
    assert s._indices().shape == (2, 30) and s._values().shape == (30,)
    c = s.coalesce()
    ref = scipy_of(rows, cols, vals, (7, 5)).tocsr()  # csr sums duplicates and sorts columns per row
    ref.sum_duplicates()
    ref = ref.tocoo()
    assert c.is_coalesced() and c.coalesce() is c and c.dtype == dtype
    np.testing.assert_array_equal(npy(c.indices()), np.stack([ref.row, ref.col]))
    np.testing.assert_allclose(npy(c.values()), ref.data, rtol=1e-6)
    np.testing.assert_allclose(npy(s.to_dense()), ref.toarray(), rtol=1e-6)


def test_coalesce_hybrid_and_3d():
    s = minitorch.sparse_coo_tensor(
        minitorch.tensor([[1, 0, 1], [2, 0, 2], [0, 1, 0]]), minitorch.tensor([1.0, 2, 3]), (2, 3, 2)
    )
    c = s.coalesce()
    np.testing.assert_array_equal(npy(c.indices()), [[0, 1], [0, 2], [1, 0]])
    np.testing.assert_array_equal(npy(c.values()), [2, 4])
    h = minitorch.sparse_coo_tensor(
        minitorch.tensor([[1, 0, 1]]), minitorch.tensor([[1.0, 2], [3, 4], [5, 6]]), (3, 2)
    )
    hc = h.coalesce()
    np.testing.assert_array_equal(npy(hc.indices()), [[0, 1]])
    np.testing.assert_array_equal(npy(hc.values()), [[3, 4], [6, 8]])
    np.testing.assert_array_equal(npy(h.to_dense()), [[3, 4], [6, 8], [0, 0]])


def test_coalesced_flags():
    one = minitorch.sparse_coo_tensor(minitorch.tensor([[0], [2]]), minitorch.tensor([1.0]), (3, 6))
    assert one.is_coalesced()  # nnz <= 1
    two = minitorch.sparse_coo_tensor(minitorch.tensor([[0, 1], [2, 2]]), minitorch.tensor([1.0, 3]), (3, 6))
    assert not two.is_coalesced()  # not inspected, as in PyTorch
    assert minitorch.ones(2, 2).to_sparse().is_coalesced()
    assert not two.coalesce().t().is_coalesced()


# ----------------------------------------------------------------------------------------- conversions


@pytest.mark.parametrize("dtype", [minitorch.float32, minitorch.float64, minitorch.int32, minitorch.bool])
def test_to_sparse_and_back(device, dtype):
    rng = np.random.default_rng(2)
    a = rng.standard_normal((5, 4)) * (rng.random((5, 4)) < 0.4)
    d = minitorch.tensor(a, device=device).to(dtype)
    s = d.to_sparse()
    r, c = np.nonzero(npy(d))
    np.testing.assert_array_equal(npy(s.indices()), np.stack([r, c]))
    assert s.is_coalesced() and s.dtype == dtype and s.shape == (5, 4)
    np.testing.assert_array_equal(npy(s.to_dense()), npy(d))
    assert d.to_sparse_coo().shape == (5, 4)
    assert s.to_sparse() is s and s.to_sparse_coo() is s
    # a non-contiguous dense tensor
    t = d.t()
    np.testing.assert_array_equal(npy(t.to_sparse().to_dense()), npy(t))


def test_to_sparse_dims():
    d = minitorch.tensor([[0.0, 2, 0], [3, 0, 4], [0, 0, 0]])
    h = d.to_sparse(1)
    assert h.sparse_dim() == 1 and h.dense_dim() == 1
    np.testing.assert_array_equal(npy(h.indices()), [[0, 1]])
    np.testing.assert_array_equal(npy(h.values()), [[0, 2, 0], [3, 0, 4]])
    assert d.to_sparse(sparse_dim=1).sparse_dim() == 1
    np.testing.assert_array_equal(npy(h.to_dense()), npy(d))
    z = minitorch.tensor(2.0).to_sparse()
    assert z.shape == () and z._nnz() == 1 and z.to_dense().item() == 2.0
    assert minitorch.tensor(0.0).to_sparse()._nnz() == 0
    assert minitorch.zeros(2, 3).to_sparse()._nnz() == 0
    with pytest.raises(
        RuntimeError, match=r"^dense_to_sparse: sparse_dim argument must be in \[0,2\] range, but 3 is given$"
    ):
        d[:2].to_sparse(3)
    with pytest.raises(
        RuntimeError, match=r"^dense_to_sparse: sparse_dim argument must be in >0 when self.dim\(\)>0$"
    ):
        d.to_sparse(0)
    with pytest.raises(
        RuntimeError, match="^to_sparse: conversion from Sparse to Sparse with sparse_dim argument"
    ):
        d.to_sparse().to_sparse(1)
    assert d.to_sparse(layout=minitorch.sparse_csr).layout is minitorch.sparse_csr


def test_dense_layout_errors():
    x = minitorch.ones(2, 3)
    with pytest.raises(
        RuntimeError, match="^indices expected sparse coordinate tensor layout but got Strided$"
    ):
        x.indices()
    with pytest.raises(
        RuntimeError, match="^coalesce expected sparse coordinate tensor layout but got Strided$"
    ):
        x.coalesce()
    with pytest.raises(RuntimeError, match="^values expected sparse tensor layout but got Strided$"):
        x.values()
    with pytest.raises(
        RuntimeError, match="^crow_indices expected sparse row compressed tensor layout but got Strided$"
    ):
        x.crow_indices()


def test_dense_only_methods_raise():
    s = minitorch.ones(2, 3).to_sparse()
    with pytest.raises(
        TypeError, match=r"^can't convert Sparse layout tensor to numpy\. Use Tensor\.to_dense\(\) first\.$"
    ):
        s.numpy()
    with pytest.raises(TypeError, match="^can't convert SparseCsr layout tensor to numpy"):
        minitorch.ones(2, 3).to_sparse_csr().numpy()
    with pytest.raises(RuntimeError, match="^reshape is not implemented for sparse tensors$"):
        s.reshape(6)
    with pytest.raises(RuntimeError, match="^a Tensor with 6 elements cannot be converted to Scalar$"):
        s.item()
    with pytest.raises(
        RuntimeError, match="^Cannot access data pointer of Tensor that doesn't have storage$"
    ):
        s.tolist()
    assert not s.is_contiguous()
    assert s.type() == "torch.sparse.FloatTensor"


# --------------------------------------------------------------------------------------------- products


@pytest.mark.parametrize("layout", ["coo", "csr"])
@pytest.mark.parametrize("dtype", [minitorch.float32, minitorch.float64])
def test_sparse_dense_matmul_like_scipy(device, layout, dtype):
    rows, cols, vals = random_coo(40, 30, 200, seed=3)
    s = make(rows, cols, vals, (40, 30), dtype=dtype, device=device)
    if layout == "csr":
        s = s.to_sparse_csr()
    rng = np.random.default_rng(4)
    x = rng.standard_normal((30, 7))
    X = minitorch.tensor(x, dtype=dtype, device=device)
    ref = scipy_of(rows, cols, vals, (40, 30)).tocsr() @ x
    tol = 1e-4 if dtype == minitorch.float32 else 1e-12
    for out in (
        minitorch.sparse.mm(s, X),
        minitorch.mm(s, X),
        minitorch.matmul(s, X),
        s @ X,
        minitorch.spmm(s, X),
        s.mm(X),
    ):
        assert not isinstance(out, type(s)) and out.shape == (40, 7) and out.dtype == dtype
        np.testing.assert_allclose(npy(out), ref, rtol=tol, atol=tol)
    # non-contiguous dense operand, a vector, a batch
    xt = minitorch.tensor(x.T.copy(), dtype=dtype, device=device).t()
    np.testing.assert_allclose(npy(s @ xt), ref, rtol=tol, atol=tol)
    np.testing.assert_allclose(npy(s @ X[:, 0]), ref[:, 0], rtol=tol, atol=tol)
    xb = rng.standard_normal((3, 30, 2))
    outb = s @ minitorch.tensor(xb, dtype=dtype, device=device)
    refb = np.stack([scipy_of(rows, cols, vals, (40, 30)) @ xb[k] for k in range(3)])
    np.testing.assert_allclose(npy(outb), refb, rtol=tol, atol=tol)


@pytest.mark.parametrize("layout", ["coo", "csr"])
def test_dense_sparse_matmul_like_scipy(device, layout):
    rows, cols, vals = random_coo(20, 15, 60, seed=5)
    s = make(rows, cols, vals, (20, 15), device=device)
    if layout == "csr":
        s = s.to_sparse_csr()
    rng = np.random.default_rng(6)
    x = rng.standard_normal((6, 20))
    X = minitorch.tensor(x, device=device)
    ref = (scipy_of(rows, cols, vals, (20, 15)).T @ x.T).T
    for out in (X @ s, minitorch.mm(X, s), minitorch.matmul(X, s), minitorch.sparse.mm(X, s)):
        assert out.shape == (6, 15)
        np.testing.assert_allclose(npy(out), ref, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(npy(X[0] @ s), ref[0], rtol=1e-12, atol=1e-12)
    xb = rng.standard_normal((2, 3, 20))
    np.testing.assert_allclose(
        npy(minitorch.tensor(xb, device=device) @ s),
        xb @ scipy_of(rows, cols, vals, (20, 15)).toarray(),
        rtol=1e-12,
    )


def test_sparse_sparse_matmul_like_scipy(device):
    a = random_coo(12, 9, 40, seed=7)
    b = random_coo(9, 11, 35, seed=8)
    A, B = make(*a, (12, 9), device=device), make(*b, (9, 11), device=device)
    ref = (scipy_of(*a, (12, 9)) @ scipy_of(*b, (9, 11))).toarray()
    for out in (minitorch.sparse.mm(A, B), A @ B, minitorch.mm(A, B)):
        assert out.is_sparse and out.is_coalesced() and out.shape == (12, 11)
        np.testing.assert_allclose(npy(out.to_dense()), ref, rtol=1e-12, atol=1e-12)
    c = A.to_sparse_csr() @ B.to_sparse_csr()
    assert c.layout is minitorch.sparse_csr
    np.testing.assert_allclose(npy(c.to_dense()), ref, rtol=1e-12, atol=1e-12)
    empty = minitorch.sparse_coo_tensor(
        minitorch.empty(2, 0, dtype=minitorch.int64), minitorch.empty(0, dtype=minitorch.float64), (9, 11)
    ).to(device)
    assert (A @ empty)._nnz() == 0
    with pytest.raises(
        RuntimeError,
        match=r"^_sparse_sparse_matmul: mat1 and mat2 shapes cannot be multiplied \(12x9 and 12x9\)$",
    ):
        A @ A


def test_matmul_errors():
    s = minitorch.sparse_coo_tensor(
        minitorch.tensor([[0, 1, 1], [2, 0, 2]]), minitorch.tensor([3.0, 4, 5]), (2, 3)
    )
    msg = r"^addmm: Argument #3 \(dense\): Expected dim 0 size 3, got 4$"
    for f in (minitorch.sparse.mm, minitorch.mm, minitorch.spmm, lambda a, b: a @ b):
        with pytest.raises(RuntimeError, match=msg):
            f(s, minitorch.ones(4, 2))
    with pytest.raises(RuntimeError, match=r"^addmm: Argument #3 \(dense\): Expected dim 0 size 2, got 3$"):
        minitorch.ones(4, 3) @ s
    with pytest.raises(RuntimeError, match="^expected scalar type Float but found Double$"):
        minitorch.sparse.mm(s, minitorch.ones(3, 2, dtype=minitorch.float64))
    with pytest.raises(RuntimeError, match="^expected scalar type Float but found Double$"):
        minitorch.mm(minitorch.ones(2, 2, dtype=minitorch.float64), s)
    with pytest.raises(
        RuntimeError, match=r"^addmm: mat1 and mat2 shapes cannot be multiplied \(2x3 and 4x2\)$"
    ):
        s.to_sparse_csr() @ minitorch.ones(4, 2)
    with pytest.raises(
        IndexError, match=r"^Dimension out of range \(expected to be in range of \[-1, 0\], but got 1\)$"
    ):
        minitorch.mm(s, minitorch.ones(3))
    h = minitorch.sparse_coo_tensor(minitorch.tensor([[1, 0]]), minitorch.ones(2, 2), (3, 2))
    with pytest.raises(RuntimeError, match="^addmm: matrices expected, got 1D tensor$"):
        minitorch.sparse.mm(h, minitorch.ones(2, 2))
    with pytest.raises(RuntimeError, match="^tensor.sspaddmm"):
        minitorch.smm(minitorch.ones(2, 3), minitorch.ones(3, 2))
    # a dense mm still raises its own error
    with pytest.raises(
        RuntimeError, match=r"^mm: mat1 and mat2 shapes cannot be multiplied \(2x2 and 3x3\)$"
    ):
        minitorch.mm(minitorch.ones(2, 2), minitorch.ones(3, 3))


def test_addmm_smm_hspmm(device):
    rows, cols, vals = random_coo(6, 5, 12, seed=9)
    s = make(rows, cols, vals, (6, 5), device=device)
    rng = np.random.default_rng(10)
    x, c = rng.standard_normal((5, 3)), rng.standard_normal((6, 3))
    A = scipy_of(rows, cols, vals, (6, 5)).toarray()
    X, C = minitorch.tensor(x, device=device), minitorch.tensor(c, device=device)
    np.testing.assert_allclose(npy(minitorch.sparse.addmm(C, s, X)), c + A @ x, rtol=1e-12)
    np.testing.assert_allclose(
        npy(minitorch.sparse.addmm(C, s, X, beta=0.5, alpha=2)), 0.5 * c + 2 * A @ x, rtol=1e-12
    )
    np.testing.assert_allclose(npy(minitorch.addmm(C[0], s, X)), c[0] + A @ x, rtol=1e-12)  # input broadcasts
    with pytest.raises(RuntimeError, match="^The expanded size of the tensor"):
        minitorch.sparse.addmm(minitorch.ones(5, 3, dtype=minitorch.float64, device=device), s, X)
    out = minitorch.smm(s, X)
    assert out.is_sparse
    np.testing.assert_allclose(npy(out.to_dense()), A @ x, rtol=1e-12)
    stored_rows = np.unique(rows)
    assert set(npy(out.indices()[0]).astype(int)) == set(stored_rows)
    hy = minitorch.hspmm(s, X)
    assert hy.sparse_dim() == 1 and hy.dense_dim() == 1
    np.testing.assert_array_equal(npy(hy.indices())[0], stored_rows)
    np.testing.assert_allclose(npy(hy.to_dense()), A @ x, rtol=1e-12)


def test_sparse_mm_reduce_csr():
    a = np.array([[1.0, 0, 2], [0, 0, 0], [3, 4, 0]])
    c = minitorch.tensor(a).to_sparse_csr()
    x = np.array([[1.0, -1], [2, 5], [3, 0]])
    X = minitorch.tensor(x)
    np.testing.assert_allclose(npy(minitorch.sparse.mm(c, X, "sum")), a @ x)
    # each row's products a[i, k] * x[k] over its stored k, reduced; a row without stored elements gives 0
    prods = [[a[i, k] * x[k] for k in np.nonzero(a[i])[0]] for i in range(3)]
    for name, f in (("mean", np.mean), ("amax", np.max), ("amin", np.min)):
        ref = np.stack([f(p, axis=0) if p else np.zeros(2) for p in prods])
        np.testing.assert_allclose(npy(minitorch.sparse.mm(c, X, name)), ref)
    with pytest.raises(NotImplementedError, match="_sparse_mm_reduce_impl"):
        minitorch.sparse.mm(c.to_sparse(), X, "mean")


# ------------------------------------------------------------------------------------------- arithmetic


def test_add_sub(device):
    a, b = random_coo(5, 4, 9, seed=11), random_coo(5, 4, 7, seed=12)
    A, B = make(*a, (5, 4), device=device), make(*b, (5, 4), device=device)
    ra, rb = scipy_of(*a, (5, 4)).toarray(), scipy_of(*b, (5, 4)).toarray()
    s = A + B
    assert s.is_sparse and not s.is_coalesced()
    np.testing.assert_allclose(npy(s.to_dense()), ra + rb, rtol=1e-12)
    cs = A.coalesce() + B.coalesce()
    assert cs.is_coalesced()  # coalesced operands merge into a coalesced result, as in PyTorch
    np.testing.assert_allclose(npy(cs.to_dense()), ra + rb, rtol=1e-12)
    np.testing.assert_allclose(npy(A.add(B, alpha=2).to_dense()), ra + 2 * rb, rtol=1e-12)
    np.testing.assert_allclose(npy((A - B).to_dense()), ra - rb, rtol=1e-12)
    d = np.arange(20.0).reshape(5, 4)
    D = minitorch.tensor(d, device=device)
    for out in (D + A, D.t().t() + A):
        assert isinstance(out, minitorch.Tensor)
        np.testing.assert_allclose(npy(out), d + ra, rtol=1e-12)
    np.testing.assert_allclose(npy(D - A), d - ra, rtol=1e-12)
    # dtype promotion: float32 dense + int64 sparse
    L = make(*a[:2], np.arange(9), (5, 4), dtype=minitorch.int64, device=device)
    out = minitorch.ones(5, 4, device=device) + L
    assert out.dtype == minitorch.float32
    np.testing.assert_allclose(npy(out), 1 + scipy_of(*a[:2], np.arange(9), (5, 4)).toarray())
    msg = r"^add\(sparse, dense\) is not supported\. Use add\(dense, sparse\) instead\.$"
    with pytest.raises(RuntimeError, match=msg):
        A + D
    with pytest.raises(RuntimeError, match=msg):
        A - D
    with pytest.raises(RuntimeError, match=msg):
        A + 1
    with pytest.raises(
        RuntimeError, match=r"^add: expected sizes of 'self' and 'other' to match, but \[5, 4\] != \[4, 5\]$"
    ):
        A + A.t()
    with pytest.raises(RuntimeError, match=r"^add: expected 'self' and 'other' to have same size, but self has size \[4\] "
                       r"while other has size \[5, 4\] \(FYI: dense-sparse addition does not currently support broadcasting\)$"):  # fmt: skip
        minitorch.ones(4, dtype=minitorch.float64, device=device) + A


def test_mul_div_neg(device):
    a, b = random_coo(5, 4, 9, seed=13), random_coo(5, 4, 9, seed=14)
    A, B = make(*a, (5, 4), device=device), make(*b, (5, 4), device=device)
    ra, rb = scipy_of(*a, (5, 4)).toarray(), scipy_of(*b, (5, 4)).toarray()
    for out, ref in (
        (A * 2.5, 2.5 * ra),
        (3 * A, 3 * ra),
        (A.mul(-1), -ra),
        (-A, -ra),
        (A.neg(), -ra),
        (A / 4, ra / 4),
        (A.div(minitorch.tensor(2.0, dtype=minitorch.float64, device=device)), ra / 2),
        (A * A, ra * ra),
        (A * B, ra * rb),
    ):
        assert out.is_sparse
        np.testing.assert_allclose(npy(out.to_dense()), ref, rtol=1e-12, atol=1e-15)
    d = np.random.default_rng(15).standard_normal((5, 4))
    D = minitorch.tensor(d, device=device)
    for out, ref in ((A * D, ra * d), (D * A, ra * d), (A * D[0], ra * d[0]), (A * D[:, :1], ra * d[:, :1])):
        assert out.is_sparse and out._nnz() == A._nnz()
        np.testing.assert_allclose(npy(out.to_dense()), ref, rtol=1e-12)
    L = make(*a[:2], np.arange(9), (5, 4), dtype=minitorch.int64, device=device)
    assert (L * 2.5).dtype == minitorch.float32 and (L / 2).dtype == minitorch.float32
    with pytest.raises(
        RuntimeError,
        match=r"^The size of tensor a \(3\) must match the size of tensor b \(4\) at non-singleton dimension 1$",
    ):
        A * minitorch.ones(5, 3, dtype=minitorch.float64, device=device)
    with pytest.raises(
        RuntimeError,
        match=r"^Sparse division requires a scalar or zero-dim dense tensor divisor \(got shape \[5, 4\] for divisor\)$",
    ):
        A / D


def test_in_place_ops_keep_the_object():
    a = np.array([[0.0, 2], [3, 0]])
    for s in (minitorch.tensor(a).to_sparse(), minitorch.tensor(a).to_sparse_csr()):
        before = s.clone()
        assert s.mul_(2) is s and s.layout is before.layout
        np.testing.assert_array_equal(npy(s.to_dense()), 2 * a)
        assert s.add_(before) is s and s.layout is before.layout
        np.testing.assert_array_equal(npy(s.to_dense()), 3 * a)
        assert s.div_(3) is s
        np.testing.assert_array_equal(npy(s.to_dense()), a)
        np.testing.assert_array_equal(npy(before.to_dense()), a)  # the clone is untouched


def test_zero_preserving_unary_ops():
    a = np.array([[0.0, -2, 0], [3, 0, -0.5]])
    s = minitorch.tensor(a).to_sparse()
    for name, f in (("abs", np.abs), ("sqrt", lambda x: np.sqrt(np.abs(x))), ("relu", lambda x: np.maximum(x, 0)),
                    ("tanh", np.tanh), ("sin", np.sin), ("square", np.square), ("sign", np.sign)):  # fmt: skip
        src = s.abs() if name == "sqrt" else s
        out = getattr(src, name)()
        assert out.is_sparse
        np.testing.assert_allclose(npy(out.to_dense()), f(a), rtol=1e-12)
    np.testing.assert_allclose(npy((s.abs() ** 1.5).to_dense()), np.abs(a) ** 1.5, rtol=1e-12)
    np.testing.assert_allclose(npy(abs(s).to_dense()), np.abs(a))


# ------------------------------------------------------------------------------------------- reductions


def test_sum(device):
    rows, cols, vals = random_coo(6, 5, 14, seed=16)
    s = make(rows, cols, vals, (6, 5), device=device)
    ref = scipy_of(rows, cols, vals, (6, 5)).toarray()
    for total in (minitorch.sparse.sum(s), s.sum()):
        assert isinstance(total, minitorch.Tensor) and total.dim() == 0
        np.testing.assert_allclose(total.item(), ref.sum(), rtol=1e-12)
    for dim in (0, 1, -1):
        for out in (minitorch.sparse.sum(s, dim), s.sum(dim)):
            assert out.is_sparse and out.is_coalesced() and out.shape == (ref.shape[1 - dim % 2],)
            np.testing.assert_allclose(npy(out.to_dense()), ref.sum(dim), rtol=1e-12)
    both = minitorch.sparse.sum(s, (0, 1))
    assert isinstance(both, minitorch.Tensor)
    np.testing.assert_allclose(both.item(), ref.sum(), rtol=1e-12)
    assert minitorch.sparse.sum(s.float(), dtype=minitorch.float64).dtype == minitorch.float64
    with pytest.raises(
        IndexError, match=r"^Dimension out of range \(expected to be in range of \[-2, 1\], but got 2\)$"
    ):
        minitorch.sparse.sum(s, 2)
    with pytest.raises(
        RuntimeError, match="^coalesce expected sparse coordinate tensor layout but got Strided$"
    ):
        minitorch.sparse.sum(minitorch.ones(2))
    h = minitorch.sparse_coo_tensor(
        minitorch.tensor([[1, 0, 1]]), minitorch.tensor([[1.0, 2], [3, 4], [5, 6]]), (3, 2)
    )
    np.testing.assert_array_equal(npy(minitorch.sparse.sum(h, 0)), [9, 12])  # every sparse dim: dense
    hs = minitorch.sparse.sum(h, 1)
    assert hs.is_sparse
    np.testing.assert_array_equal(npy(hs.to_dense()), [7, 14, 0])


def _np_sparse_softmax(dense, mask, axis, log=False):
    x = np.where(mask, dense, -np.inf)
    m = np.max(x, axis=axis, keepdims=True)
    m = np.where(np.isfinite(m), m, 0)
    e = np.where(mask, np.exp(x - m), 0)
    s = e.sum(axis=axis, keepdims=True)
    out = np.where(mask, e / np.where(s == 0, 1, s), 0)
    if log:
        return np.where(mask, np.log(np.where(mask, out, 1)), 0)
    return out


@pytest.mark.parametrize("log", [False, True])
def test_softmax_over_stored_elements(device, log):
    rows, cols, vals = random_coo(8, 6, 20, seed=17)
    s = make(rows, cols, vals, (8, 6), device=device)
    dense = scipy_of(rows, cols, vals, (8, 6)).toarray()
    mask = scipy_of(rows, cols, np.ones_like(vals), (8, 6)).toarray() > 0
    f = minitorch.sparse.log_softmax if log else minitorch.sparse.softmax
    for dim in (0, 1, -1):
        out = f(s, dim)
        assert out.is_sparse and out.is_coalesced()
        np.testing.assert_allclose(
            npy(out.to_dense()), _np_sparse_softmax(dense, mask, dim % 2, log), rtol=1e-10, atol=1e-12
        )
    if not log:
        # each row of a softmax-normalized adjacency sums to one over its edges
        rs = npy(minitorch.sparse.sum(f(s, 1), 1).to_dense())
        np.testing.assert_allclose(rs[mask.any(1)], 1.0, rtol=1e-12)
    assert f(s.float(), 1, dtype=minitorch.float64).dtype == minitorch.float64
    with pytest.raises(IndexError, match="^Dimension out of range"):
        f(s, 2)
    with pytest.raises(NotImplementedError, match="^Could not run 'aten::_sparse"):
        f(minitorch.ones(2, 2), 0)


def test_softmax_dense_dim():
    h = minitorch.sparse_coo_tensor(minitorch.tensor([[1, 0]]), minitorch.tensor([[1.0, 2], [3, 5]]), (3, 2))
    out = minitorch.sparse.softmax(h, 1)
    np.testing.assert_allclose(
        npy(out.values()), np.exp([[3, 5], [1, 2]]) / np.exp([[3, 5], [1, 2]]).sum(1, keepdims=True)
    )


# ------------------------------------------------------------------------------------ structure and moves


def test_transpose_select_clone():
    a = np.array([[0.0, 2, 0], [3, 0, 4]])
    s = minitorch.tensor(a).to_sparse()
    for t in (s.t(), s.transpose(0, 1), s.T):
        assert t.shape == (3, 2) and not t.is_coalesced()
        np.testing.assert_array_equal(npy(t.to_dense()), a.T)
    np.testing.assert_array_equal(npy(s[1].to_dense()), a[1])
    np.testing.assert_array_equal(npy(s.select(1, 2).to_dense()), a[:, 2])
    c = s.clone()
    assert c is not s and c._values() is not s._values()
    np.testing.assert_array_equal(npy(c.to_dense()), a)
    s3 = minitorch.sparse_coo_tensor(minitorch.tensor([[0], [1], [2]]), minitorch.tensor([1.0]), (2, 3, 4))
    with pytest.raises(
        RuntimeError,
        match="^t\\(\\) expects a tensor with <= 2 sparse and 0 dense dimensions, but got 3 sparse",
    ):
        s3.t()
    h = minitorch.sparse_coo_tensor(minitorch.tensor([[1, 0]]), minitorch.ones(2, 2), (3, 2))
    with pytest.raises(RuntimeError, match="^sparse transpose: transposed dimensions must be sparse"):
        h.transpose(0, 1)
    z = s.clone().zero_()
    assert z._nnz() == 0 and z.shape == (2, 3)


def test_to_dtype_device(device):
    s = minitorch.tensor([[0.0, 2], [3, 0]]).to_sparse()
    assert s.to("cpu") is s and s.cpu() is s
    d = s.double()
    assert d.dtype == minitorch.float64 and s.dtype == minitorch.float32
    assert s.to(minitorch.int64).dtype == minitorch.int64
    moved = s.to(device)
    assert moved.device.type == device and moved._indices().device.type == device
    np.testing.assert_array_equal(npy(moved.to_dense()), [[0, 2], [3, 0]])
    like = minitorch.ones(1, dtype=minitorch.float64, device=device).to_sparse()
    assert s.to(like).dtype == minitorch.float64
    if device == "cuda":
        assert s.cuda().is_cuda and "device='cuda:0'" in repr(s.cuda())


# ----------------------------------------------------------------------------------------------- repr


def test_repr_matches_pytorch():
    i = minitorch.tensor([[0, 1, 1], [2, 0, 2]])
    s = minitorch.sparse_coo_tensor(i, minitorch.tensor([3.0, 4, 5]), (2, 3))
    assert repr(s) == (
        "tensor(indices=tensor([[0, 1, 1],\n"
        "                       [2, 0, 2]]),\n"
        "       values=tensor([3., 4., 5.]),\n"
        "       size=(2, 3), nnz=3, layout=torch.sparse_coo)"
    )
    d = minitorch.sparse_coo_tensor(
        i, minitorch.tensor([3.0, 4, 5]), (2, 3), dtype=minitorch.float64, requires_grad=True
    )
    assert repr(d).endswith(
        "       size=(2, 3), nnz=3, dtype=torch.float64, layout=torch.sparse_coo,\n       requires_grad=True)"
    )
    e = minitorch.sparse_coo_tensor(minitorch.empty(2, 0, dtype=minitorch.int64), minitorch.empty(0), (3, 6))
    assert repr(e) == (
        "tensor(indices=tensor([], size=(2, 0)),\n"
        "       values=tensor([], size=(0,)),\n"
        "       size=(3, 6), nnz=0, layout=torch.sparse_coo)"
    )
    h = minitorch.tensor([[0.0, 2, 0], [3, 0, 4]]).to_sparse(1)
    assert repr(h) == (
        "tensor(indices=tensor([[0, 1]]),\n"
        "       values=tensor([[0., 2., 0.],\n"
        "                      [3., 0., 4.]]),\n"
        "       size=(2, 3), nnz=2, layout=torch.sparse_coo)"
    )
    c = minitorch.tensor([[0.0, 2, 0], [3, 0, 4]]).to_sparse_csr()
    assert repr(c) == (
        "tensor(crow_indices=tensor([0, 1, 3]),\n"
        "       col_indices=tensor([1, 0, 2]),\n"
        "       values=tensor([2., 3., 4.]), size=(2, 3), nnz=3,\n"
        "       layout=torch.sparse_csr)"
    )
    assert str(s) == repr(s) and f"{s}" == repr(s)


# ------------------------------------------------------------------------------------------------- CSR


def test_csr_construct_and_convert(device):
    rows, cols, vals = random_coo(9, 7, 25, seed=18)
    ref = scipy_of(rows, cols, vals, (9, 7)).tocsr()
    ref.sum_duplicates()
    ref.sort_indices()
    c = make(rows, cols, vals, (9, 7), device=device).to_sparse_csr()
    np.testing.assert_array_equal(npy(c.crow_indices()), ref.indptr)
    np.testing.assert_array_equal(npy(c.col_indices()), ref.indices)
    np.testing.assert_allclose(npy(c.values()), ref.data, rtol=1e-12)
    np.testing.assert_allclose(npy(c.to_dense()), ref.toarray(), rtol=1e-12)
    assert c._nnz() == ref.nnz and c.shape == (9, 7) and c.sparse_dim() == 2
    back = c.to_sparse()
    assert back.layout is minitorch.sparse_coo and back.is_coalesced()
    np.testing.assert_allclose(npy(back.to_dense()), ref.toarray(), rtol=1e-12)
    d = minitorch.tensor(ref.toarray(), device=device).to_sparse_csr()
    np.testing.assert_array_equal(npy(d.crow_indices()), ref.indptr)
    built = minitorch.sparse_csr_tensor(
        minitorch.tensor(ref.indptr, dtype=minitorch.int32), minitorch.tensor(ref.indices, dtype=minitorch.int32),
        minitorch.tensor(ref.data), (9, 7), device=device,
    )  # fmt: skip
    assert built.crow_indices().dtype == minitorch.int32 and built.to_sparse().is_coalesced()
    np.testing.assert_allclose(npy(built.to_dense()), ref.toarray(), rtol=1e-12)
    inferred = minitorch.sparse_csr_tensor([0, 1, 3], [1, 0, 2], [2.0, 3, 4])
    assert inferred.shape == (2, 3)
    with pytest.raises(
        RuntimeError, match="^indices expected sparse coordinate tensor layout but got SparseCsr$"
    ):
        c.indices()
    with pytest.raises(
        RuntimeError, match="^coalesce expected sparse coordinate tensor layout but got SparseCsr$"
    ):
        c.coalesce()


def test_csr_errors():
    """PyTorch's invariant errors with check_invariants=True; without it the same inputs are accepted, as
    PyTorch accepts them, and the first operation on them raises the same error (PyTorch reads out of bounds)"""

    def csr(cr, co, v, size=(2, 3), **kw):
        return minitorch.sparse_csr_tensor(
            minitorch.tensor(cr), minitorch.tensor(co), minitorch.tensor(v), size, **kw
        )

    bad = [
        (([0, 1, 4], [1, 0, 2], [2.0, 3, 4]), r"^`crow_indices\[\.\.\., -1\] == nnz` is not satisfied\.$"),
        (([0, 1, 3], [1, 0, 5], [2.0, 3, 4]), r"^`0 <= col_indices < ncols` is not satisfied\.$"),
        (
            ([0, 1, 3], [1, 0, 2], [2.0, 3]),
            r"^col_indices\.shape\[-1\] must be equal to nnz \(=2\) as defined by values\.shape\[0\], but got 3$",
        ),
        (
            ([0, 1, 3, 3], [1, 0, 2], [2.0, 3, 4]),
            r"^crow_indices\.shape\[-1\] must be equal to the number of rows \+ 1 \(=3\), but got 4$",
        ),
        (([1, 1, 3], [1, 0, 2], [2.0, 3, 4]), r"^`crow_indices\[\.\.\., 0\] == 0` is not satisfied\.$"),
        (
            ([0, 4, 0, 3], [1, 0, 2], [2.0, 3, 4], (3, 3)),
            r"^`0 <= crow_indices\[\.\.\., 1:\] - crow_indices\[\.\.\., :-1\] <= ncols` is not satisfied\.$",
        ),
    ]
    for args, message in bad:
        with pytest.raises(RuntimeError, match=message):
            csr(*args, check_invariants=True)
        with sparse.check_sparse_tensor_invariants(), pytest.raises(RuntimeError, match=message):
            csr(*args)
        csr(*args)  # unchecked: accepted, as PyTorch
    for args, message in bad:  # the checks run at the first use instead: an error, not a wrong result
        unchecked = csr(*args)
        for use in (
            lambda s: s.to_dense(),
            lambda s: s @ minitorch.ones(s.shape[1], 1),
            lambda s: s.to_sparse(),
        ):
            with pytest.raises(RuntimeError, match=message):
                use(unchecked)
    with pytest.raises(
        RuntimeError,
        match="^crow_indices and col_indices must have the same dtype, bot got Int and Long, respectively$",
    ):
        minitorch.sparse_csr_tensor(
            minitorch.tensor([0, 1, 3], dtype=minitorch.int32),
            minitorch.tensor([1, 0, 2]),
            minitorch.tensor([2.0, 3, 4]),
            (2, 3),
            check_invariants=True,
        )
    unsorted = csr([0, 1, 3], [1, 2, 0], [2.0, 3, 4])  # accepted without checks, as PyTorch
    assert not unsorted.to_sparse().is_coalesced()
    np.testing.assert_array_equal(npy(unsorted.to_dense()), [[0, 2, 0], [4, 0, 3]])
    with pytest.raises(
        RuntimeError, match="are sorted and distinct along the last dimension values` is not satisfied"
    ):
        csr([0, 1, 3], [1, 2, 2], [2.0, 3, 4], check_invariants=True)


def test_csr_arithmetic(device):
    a = np.array([[0.0, 2, 0], [3, 0, 4]])
    c = minitorch.tensor(a, device=device).to_sparse_csr()
    for out, ref in ((c * 2, 2 * a), (c + c, 2 * a), (-c, -a), (c / 2, a / 2)):
        assert out.layout is minitorch.sparse_csr
        np.testing.assert_allclose(npy(out.to_dense()), ref)
    np.testing.assert_allclose(npy(minitorch.ones(2, 3, dtype=minitorch.float64, device=device) + c), 1 + a)
    assert c.sum().item() == a.sum()
    assert c.to(minitorch.float32).dtype == minitorch.float32


# --------------------------------------------------------------------------------------------- autograd


def _coo_fn(rows, cols, shape):
    idx = minitorch.tensor(np.stack([rows, cols]))

    def build(v):
        return minitorch.sparse_coo_tensor(idx, v, shape)

    return build


def test_gradcheck_sparse_dense_products():
    rows, cols, vals = random_coo(6, 5, 14, seed=19)
    build = _coo_fn(rows, cols, (6, 5))
    v = minitorch.tensor(vals, requires_grad=True)
    x = minitorch.tensor(np.random.default_rng(20).standard_normal((5, 3)), requires_grad=True)
    y = minitorch.tensor(np.random.default_rng(21).standard_normal((4, 6)), requires_grad=True)
    assert gradcheck(lambda v, x: minitorch.sparse.mm(build(v), x), (v, x))
    assert gradcheck(lambda v, x: minitorch.spmm(build(v), x), (v, x))
    assert gradcheck(lambda v, x: build(v).to_sparse_csr() @ x, (v, x))
    assert gradcheck(lambda v, x: build(v) @ x[:, 0], (v, x))
    assert gradcheck(lambda v, y: y @ build(v), (v, y))
    assert gradcheck(lambda v, x: minitorch.sparse.addmm(x[:1, :1], build(v), x, beta=0.5, alpha=2), (v, x))


def test_gradcheck_sparse_ops():
    rows, cols, vals = random_coo(6, 5, 14, seed=22)
    build = _coo_fn(rows, cols, (6, 5))
    v = minitorch.tensor(vals, requires_grad=True)
    d = minitorch.tensor(np.random.default_rng(23).standard_normal((6, 5)), requires_grad=True)
    assert gradcheck(lambda v: build(v).to_dense(), (v,))
    assert gradcheck(lambda v: build(v).coalesce().values(), (v,))
    assert gradcheck(lambda v: minitorch.sparse.sum(build(v)), (v,))
    assert gradcheck(lambda v: minitorch.sparse.sum(build(v), 0).to_dense(), (v,))
    assert gradcheck(lambda v: minitorch.sparse.softmax(build(v), 1).to_dense(), (v,))
    assert gradcheck(lambda v: minitorch.sparse.log_softmax(build(v), 0).to_dense(), (v,))
    assert gradcheck(lambda v, d: d + build(v), (v, d))
    assert gradcheck(lambda v, d: (build(v) * d).to_dense(), (v, d))
    assert gradcheck(lambda v, d: d.sparse_mask(build(v)).to_dense() * v.sum(), (v, d))
    assert gradcheck(lambda d: d.to_sparse().values(), (d,))
    w = random_coo(5, 4, 9, seed=24)
    build_b = _coo_fn(w[0], w[1], (5, 4))
    vb = minitorch.tensor(w[2], requires_grad=True)
    assert gradcheck(lambda v, vb: (build(v) @ build_b(vb)).to_dense(), (v, vb))


def test_sparse_leaf_grad_is_sparse_with_its_pattern():
    i = minitorch.tensor([[0, 1, 1, 0], [2, 0, 2, 2]])
    s = minitorch.sparse_coo_tensor(i, minitorch.tensor([3.0, 4, 5, 6]), (2, 3), requires_grad=True)
    assert s.is_leaf and s.requires_grad and s.grad is None
    x = minitorch.tensor([[1.0, 2], [3, 4], [5, 6]], requires_grad=True)
    w = minitorch.tensor([[1.0, 2], [3, 4]])
    (minitorch.sparse.mm(s, x) * w).sum().backward()
    g = w.numpy() @ x.detach().numpy().T  # the dense gradient, read at the stored (coalesced) positions
    assert s.grad.is_sparse and s.grad.is_coalesced()
    np.testing.assert_array_equal(npy(s.grad.indices()), [[0, 1, 1], [2, 0, 2]])
    np.testing.assert_allclose(npy(s.grad.values()), [g[0, 2], g[1, 0], g[1, 2]])
    np.testing.assert_allclose(
        npy(x.grad), scipy_of([0, 1, 1, 0], [2, 0, 2, 2], [3, 4, 5, 6], (2, 3)).toarray().T @ w.numpy()
    )
    s.grad = None
    assert s.grad is None
    torch_sum = minitorch.sparse.sum(s)
    torch_sum.backward()
    np.testing.assert_array_equal(npy(s.grad.values()), [1, 1, 1])
    # values that carry a graph make a non-leaf: the gradient reaches them
    v = minitorch.tensor([3.0, 4, 5, 6], requires_grad=True)
    t = minitorch.sparse_coo_tensor(i, v, (2, 3))
    assert not t.is_leaf and t.requires_grad and t.grad_fn is not None
    (minitorch.sparse.mm(t, x) * w).sum().backward()
    np.testing.assert_allclose(npy(v.grad), [g[0, 2], g[1, 0], g[1, 2], g[0, 2]])
    # requires_grad_() on a sparse tensor never flips the caller's values tensor
    plain = minitorch.tensor([1.0, 2, 3, 4])
    u = minitorch.sparse_coo_tensor(i, plain, (2, 3)).requires_grad_()
    assert u.requires_grad and not plain.requires_grad
    with pytest.raises(RuntimeError, match="only Tensors of floating point dtype can require gradients"):
        minitorch.sparse_coo_tensor(i, minitorch.tensor([1, 2, 3, 4]), (2, 3)).requires_grad_()


def test_dense_operand_grad_through_sparse_features(device):
    # the GCN layer: torch.mm(sparse features, weight) then torch.spmm(adjacency, support)
    feats = make(*random_coo(10, 6, 20, seed=25), (10, 6), dtype=minitorch.float32, device=device)
    adj = make(*random_coo(10, 10, 30, seed=26), (10, 10), dtype=minitorch.float32, device=device)
    w = minitorch.randn(6, 4, device=device, requires_grad=True)
    out = minitorch.spmm(adj, minitorch.mm(feats, w))
    out.sum().backward()
    ref = (adj.to_dense().t() @ minitorch.ones(10, 4, device=device)).t() @ feats.to_dense()
    np.testing.assert_allclose(npy(w.grad), npy(ref.t()), rtol=1e-5)


# ----------------------------------------------------------------------------------- pickling and files


def test_pickle_and_save_load(tmp_path):
    s = minitorch.tensor([[0.0, 2], [3, 0]]).to_sparse().requires_grad_()
    c = minitorch.tensor([[0.0, 2], [3, 0]]).to_sparse_csr()
    for obj in (s, c):
        back = pickle.loads(pickle.dumps(obj))
        assert back.layout is obj.layout and back.shape == obj.shape
        np.testing.assert_array_equal(npy(back.to_dense()), npy(obj.to_dense()))
    assert pickle.loads(pickle.dumps(s)).requires_grad
    path = tmp_path / "sp.pt"
    minitorch.save({"adj": s, "csr": c}, path)
    loaded = minitorch.load(path)  # weights_only=True: the sparse rebuilds are allowed
    assert loaded["adj"].is_sparse and loaded["adj"].is_coalesced() and loaded["adj"].requires_grad
    np.testing.assert_array_equal(npy(loaded["csr"].to_dense()), [[0, 2], [3, 0]])
    # a file whose indices lie outside the size is refused when loading
    bad = minitorch.sparse_coo_tensor(minitorch.tensor([[0], [1]]), minitorch.tensor([1.0]), (2, 2))
    bad._shape = minitorch.Size([1, 1])
    buf = io.BytesIO()
    minitorch.save(bad, buf)
    buf.seek(0)
    with pytest.raises(RuntimeError, match="^size is inconsistent with indices"):
        minitorch.load(buf)


# ------------------------------------------------------------------------------- the torch-level names


def test_sparse_aware_functions_leave_dense_calls_alone():
    a, b = minitorch.ones(2, 2), minitorch.full((2, 2), 2.0)
    np.testing.assert_array_equal(minitorch.mm(a, b).numpy(), np.full((2, 2), 4.0))
    np.testing.assert_array_equal(minitorch.matmul(a, b[0]).numpy(), [4.0, 4.0])
    np.testing.assert_array_equal(minitorch.addmm(a, a, b, beta=0.5, alpha=2).numpy(), np.full((2, 2), 8.5))
    for name in ("mm", "matmul", "addmm"):
        # the C++ functions themselves: their last overload hands a sparse argument to __torch_function__
        assert getattr(minitorch, name) is getattr(minitorch._C, name)
    s = minitorch.tensor([[0.0, 2], [3, 0]]).to_sparse()
    out = minitorch.empty(2, 2)
    assert minitorch.mm(s, a, out=out) is out and minitorch.matmul(a, s, out=out) is out
    np.testing.assert_array_equal(out.numpy(), [[3.0, 2.0], [3.0, 2.0]])
    np.testing.assert_array_equal(
        minitorch.addmm(a, s, b, beta=2, alpha=0.5).numpy(), [[4.0, 4.0], [5.0, 5.0]]
    )
    with pytest.raises(TypeError, match=r"^mm\(\): argument 'mat2' \(position 2\) must be Tensor, not str$"):
        minitorch.mm(a, "x")  # a wrong argument that is not sparse: PyTorch's TypeError


def test_torch_function_dispatch():
    from minitorch import overrides

    s = minitorch.tensor([[0.0, 2], [3, 0]]).to_sparse()
    with overrides.enable_torch_function_dispatch():
        out = minitorch.mm(s, minitorch.ones(2, 1))
    np.testing.assert_array_equal(out.numpy(), [[2.0], [3.0]])
    assert overrides.is_tensor_like(s)


def test_legacy_sparse_types():
    i = minitorch.tensor([[0, 1], [1, 0]])
    s = minitorch.sparse.FloatTensor(i, minitorch.tensor([1.0, 2]), minitorch.Size([2, 2]))
    assert s.is_sparse and isinstance(s, minitorch.sparse.FloatTensor)
    assert not isinstance(s, minitorch.sparse.DoubleTensor)
    np.testing.assert_array_equal(npy(s.to_dense()), [[0, 1], [2, 0]])
    e = minitorch.sparse.FloatTensor(2, 3)
    assert e.shape == (2, 3) and e._nnz() == 0 and e.dtype == minitorch.float32 and e.sparse_dim() == 2
    assert minitorch.sparse.LongTensor(i, minitorch.tensor([1, 2]), (2, 2)).dtype == minitorch.int64


def test_hspmm_refuses_dense_and_non_tensors_as_pytorch():
    """PyTorch has hspmm for sparse layouts only (its dispatcher's NotImplementedError for a dense mat1) and
    parses its arguments first (issue 34); sparse tensors pass the parser as the Tensors they are"""
    with pytest.raises(
        NotImplementedError,
        match=re.escape("Could not run 'aten::hspmm' with arguments from the 'CPU' backend"),
    ):
        minitorch.hspmm(minitorch.ones(1), minitorch.ones(1))
    with pytest.raises(
        TypeError, match=re.escape("hspmm(): argument 'mat1' (position 1) must be Tensor, not float")
    ):
        minitorch.hspmm(2.5, 1.5)
    s = minitorch.tensor([[0.0, 2.0], [0.0, 0.0]]).to_sparse()
    assert np.allclose(minitorch.hspmm(s, minitorch.eye(2)).to_dense().numpy(), [[0.0, 2.0], [0.0, 0.0]])


_SIZE_ONLY_CASES = r"""
def cases(torch):
    out = []
    for args, kw in [
        ((256,), {}), (([2, 3],), {}), (((),), {}), ((4, 0, 3), {}), (((2,),), {"dtype": torch.float64, "requires_grad": True}),
        (((2, 3),), {"device": "cpu", "dtype": torch.int32}), ((torch.tensor([5]),), {}), (([torch.tensor(2), 3],), {}),
    ]:
        t = torch.sparse_coo_tensor(*args, **kw)
        out.append([list(t.shape), str(t.dtype), str(t.device), t.requires_grad, t.is_leaf, t.is_coalesced(),
                    list(t._indices().shape), str(t._indices().dtype), list(t._values().shape), t.sparse_dim(),
                    t.dense_dim(), t.to_dense().sum().item()])
    for args, kw in [(((2,),), {"dtype": torch.int64, "requires_grad": True}), ((2.5,), {}), (([2, "a"],), {})]:
        try:
            torch.sparse_coo_tensor(*args, **kw)
            out.append(None)
        except Exception as e:
            out.append([type(e).__name__, str(e)])
    return out
"""


def test_size_only_overload_is_pytorchs():
    """sparse_coo_tensor(size) (built directly, not through the general path's checks) as PyTorch's: its
    shape, dtypes, flags and refusals"""
    ours, theirs = cases_here_and_in_pytorch(_SIZE_ONLY_CASES, [("torch", minitorch)])
    assert ours == theirs


_CONSTRUCTOR_CASES = r"""
import warnings

import numpy as np


def cases(torch):
    T = torch.tensor

    def run(f):
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # PyTorch's notice that invariant checks are off
                s = f()
        except Exception as e:  # noqa: BLE001 - the exception is the answer
            return [type(e).__name__, str(e).splitlines()[0]]
        return [list(s.shape), str(s.dtype), s.is_coalesced(), s._indices().tolist(), str(s._indices().dtype),
                s._values().tolist(), s.requires_grad, s.to_dense().tolist()]

    i2 = T([[0, 1, 1], [2, 0, 2]])
    v3 = T([3.0, 4.0, 5.0])
    ci = {"check_invariants": True}
    return {
        "plain": run(lambda: torch.sparse_coo_tensor(i2, v3, (2, 3))),
        "size_list": run(lambda: torch.sparse_coo_tensor(i2, v3, [2, 4])),
        "size_kw": run(lambda: torch.sparse_coo_tensor(indices=i2, values=v3, size=(3, 3))),
        "size_numpy_ints": run(lambda: torch.sparse_coo_tensor(i2, v3, (np.int64(2), np.int64(3)))),
        "size_tensor_ints": run(lambda: torch.sparse_coo_tensor(i2, v3, (T(2), 3))),
        "inferred": run(lambda: torch.sparse_coo_tensor(i2, v3)),
        "inferred_dense": run(lambda: torch.sparse_coo_tensor(T([[0, 2]]), T([[1.0, 2.0], [3.0, 4.0]]))),
        "dense_dims": run(lambda: torch.sparse_coo_tensor(T([[0, 2]]), T([[1.0, 2.0], [3.0, 4.0]]), (3, 2))),
        "one": run(lambda: torch.sparse_coo_tensor(T([[2], [1]]), T([7.0]), (3, 3))),
        "empty": run(lambda: torch.sparse_coo_tensor(torch.empty(2, 0, dtype=torch.int64), torch.empty(0), (3, 3))),
        "empty_inferred": run(lambda: torch.sparse_coo_tensor(torch.empty(2, 0, dtype=torch.int64), torch.empty(0))),
        "no_sparse_dims": run(lambda: torch.sparse_coo_tensor(torch.empty(0, 2, dtype=torch.int64), torch.ones(2, 3), (3,))),
        "zero_dim_values": run(lambda: torch.sparse_coo_tensor(T([[2]]), T(1.5), (3,))),
        "zero_dim_values_inferred": run(lambda: torch.sparse_coo_tensor(T([[2]]), T(1.5))),
        "zero_dim_values_two": run(lambda: torch.sparse_coo_tensor(T([[0, 1]]), T(1.5), (3,))),
        "int32_indices": run(lambda: torch.sparse_coo_tensor(T([[0, 2]], dtype=torch.int32), T([1.0, 2.0]), (3,))),
        "uint8_indices": run(lambda: torch.sparse_coo_tensor(T([[0, 2]], dtype=torch.uint8), T([1.0, 2.0]), (3,))),
        "bool_indices": run(lambda: torch.sparse_coo_tensor(T([[True, False]]), T([1.0, 2.0]), (3,))),
        "float_indices": run(lambda: torch.sparse_coo_tensor(T([[0.0, 2.7]]), T([1.0, 2.0]), (3,))),
        "strided_indices": run(lambda: torch.sparse_coo_tensor(T([[0, 2], [1, 0], [2, 2]]).t(), v3, (3, 3))),
        "strided_values": run(lambda: torch.sparse_coo_tensor(T([[0, 1]]), T([[1.0, 2.0], [3.0, 4.0]]).t()[0], (2,))),
        "lists": run(lambda: torch.sparse_coo_tensor([[0, 1], [1, 0]], [1, 2], (2, 2))),
        "dtype": run(lambda: torch.sparse_coo_tensor(i2, T([3, 4, 5]), (2, 3), dtype=torch.float64)),
        "int_values": run(lambda: torch.sparse_coo_tensor(i2, T([3, 4, 5]), (2, 3))),
        "bool_values": run(lambda: torch.sparse_coo_tensor(i2, T([True, False, True]), (2, 3))),
        "requires_grad": run(lambda: torch.sparse_coo_tensor(i2, v3, (2, 3), requires_grad=True)),
        "requires_grad_int": run(lambda: torch.sparse_coo_tensor(i2, T([3, 4, 5]), (2, 3), requires_grad=True)),
        "coalesced_claim": run(lambda: torch.sparse_coo_tensor(T([[1, 0]]), T([1.0, 2.0]), (3,), is_coalesced=True)),
        "coalesced_claim_checked": run(
            lambda: torch.sparse_coo_tensor(T([[1, 0]]), T([1.0, 2.0]), (3,), is_coalesced=True, **ci)
        ),
        "uncoalesced_claim": run(lambda: torch.sparse_coo_tensor(T([[0]]), T([1.0]), (3,), is_coalesced=False)),
        "negative_checked": run(lambda: torch.sparse_coo_tensor(T([[0], [-1]]), T([1.0]), (2, 3), **ci)),
        "too_large_checked": run(lambda: torch.sparse_coo_tensor(T([[0], [5]]), T([1.0]), (2, 3), **ci)),
        "size_smaller_checked": run(lambda: torch.sparse_coo_tensor(T([[0, 2]]), T([1.0, 2.0]), (2,), **ci)),
        "size_zero_checked": run(lambda: torch.sparse_coo_tensor(T([[0]]), T([1.0]), (0,), **ci)),
        "dim_order_checked": run(lambda: torch.sparse_coo_tensor(T([[5, 0], [0, -7]]), T([1.0, 2.0]), (2, 3), **ci)),
        "negative_inferred": run(lambda: torch.sparse_coo_tensor(T([[0], [-1]]), T([1.0]))),
        "indices_1d": run(lambda: torch.sparse_coo_tensor(T([0, 1]), T([1.0, 2.0]))),
        "indices_1d_size": run(lambda: torch.sparse_coo_tensor(T([0, 1, 2]), T([1.0, 2.0]), (3,))),
        "indices_0d_size": run(lambda: torch.sparse_coo_tensor(T(0), T([1.0]), (3,))),
        "len_before_nnz": run(lambda: torch.sparse_coo_tensor(T([[0, 1]]), T([1.0, 2.0, 3.0]), (3, 4))),
        "bounds_before_values_checked": run(
            lambda: torch.sparse_coo_tensor(T([[5]]), T([[1.0]]), (3, 4), check_invariants=True)
        ),
        "indices_3d": run(lambda: torch.sparse_coo_tensor(T([[[0, 1]]]), T([1.0, 2.0]), (3,))),
        "nnz_mismatch": run(lambda: torch.sparse_coo_tensor(T([[0, 1]]), T([1.0, 2.0, 3.0]), (3,))),
        "len_size": run(lambda: torch.sparse_coo_tensor(T([[0, 1]]), T([1.0, 2.0]), (3, 4))),
        "values_shape": run(lambda: torch.sparse_coo_tensor(T([[0, 1]]), T([[1.0, 2.0], [3.0, 4.0]]), (3, 3))),
        "size_int": run(lambda: torch.sparse_coo_tensor(i2, v3, 3)),
        "size_float": run(lambda: torch.sparse_coo_tensor(T([[0, 1]]), T([1.0, 2.0]), (3.0,))),
        "size_bool": run(lambda: torch.sparse_coo_tensor(T([[0, 1]]), T([1.0, 2.0]), (True,))),
        "size_none_entry": run(lambda: torch.sparse_coo_tensor(T([[0, 1]]), T([1.0, 2.0]), (None,))),
    }
"""


def test_constructor_against_pytorch():
    """sparse_coo_tensor(indices, values[, size]) as PyTorch's: the plain call (one C++ step) and every other
    spelling, the inferred size, dtypes of indices and values, 0-dim values, strided operands, and its errors
    (the bounds in check_invariants=True's words, which we raise without it too: test_index_bounds_are_checked)"""
    ours, theirs = cases_here_and_in_pytorch(_CONSTRUCTOR_CASES, [("torch", minitorch)])
    assert ours == theirs
