"""The native CSR products behind sparse @ dense (ops/sparse.h: our CPU kernels, cuSPARSE on CUDA): values against
scipy.sparse in float32/float64, int32 and int64 indices, empty rows and matrices, both product directions,
gradients by gradcheck and against the composed path, double backward, which operands take the kernel, and the
primitives' refusals of malformed structures."""

import numpy as np
import pytest
import scipy.sparse as sp

import minitorch
from minitorch import _C
from minitorch.autograd import gradcheck, gradgradcheck
from minitorch.sparse import _ops


def npy(t):
    return t.detach().cpu().double().numpy()


def coo(m, n, nnz, seed, dtype=minitorch.float64, device="cpu"):
    """A coalesced COO matrix with some empty rows, and its scipy twin."""
    rng = np.random.default_rng(seed)
    rows = rng.integers(0, max(m - 2, 1), nnz)  # the last rows stay empty
    cols = rng.integers(0, n, nnz)
    vals = rng.standard_normal(nnz)
    ref = sp.coo_matrix((vals, (rows, cols)), shape=(m, n)).tocsr()
    idx = minitorch.tensor(np.stack([rows, cols]), device=device)
    s = minitorch.sparse_coo_tensor(
        idx, minitorch.tensor(vals, dtype=dtype, device=device), (m, n)
    ).coalesce()
    return s, ref


@pytest.fixture
def kernel_calls(monkeypatch):
    """Counts the products that took the native kernels."""
    calls = []
    apply = _ops._CsrMm.apply

    def counted(*args):
        calls.append(args[-1])  # the transpose flag
        return apply(*args)

    monkeypatch.setattr(_ops._CsrMm, "apply", counted)
    return calls


@pytest.mark.parametrize("dtype", [minitorch.float32, minitorch.float64])
@pytest.mark.parametrize("layout", ["coo", "csr", "csr32"])
def test_products_match_scipy(device, dtype, layout, kernel_calls):
    s, ref = coo(50, 40, 300, seed=1, dtype=dtype, device=device)
    if layout != "coo":
        s = s.to_sparse_csr()
    if layout == "csr32":
        s = minitorch.sparse_csr_tensor(
            s.crow_indices().int(), s.col_indices().int(), s.values(), s.shape, device=device
        )
    rng = np.random.default_rng(2)
    x, y = rng.standard_normal((40, 9)), rng.standard_normal((6, 50))
    X = minitorch.tensor(x, dtype=dtype, device=device)
    Y = minitorch.tensor(y, dtype=dtype, device=device)
    tol = 1e-5 if dtype == minitorch.float32 else 1e-12
    np.testing.assert_allclose(npy(s @ X), ref @ x, rtol=tol, atol=tol)
    np.testing.assert_allclose(npy(Y @ s), y @ ref, rtol=tol, atol=tol)
    np.testing.assert_allclose(npy(s @ X[:, 3]), ref @ x[:, 3], rtol=tol, atol=tol)  # a vector
    np.testing.assert_allclose(npy(Y[1] @ s), y[1] @ ref, rtol=tol, atol=tol)
    xt = minitorch.tensor(x.T.copy(), dtype=dtype, device=device).t()  # a non-contiguous operand
    np.testing.assert_allclose(npy(s @ xt), ref @ x, rtol=tol, atol=tol)
    out = minitorch.sparse.mm(s, X)
    assert out.dtype == dtype and out.shape == (50, 9) and out.device.type == device
    assert kernel_calls == [False, True, False, True, False, False]


def test_empty_shapes(device, kernel_calls):
    s, _ = coo(5, 4, 0, seed=3, device=device)  # no stored element
    x = minitorch.ones(4, 3, dtype=minitorch.float64, device=device)
    assert npy(s @ x).tolist() == [[0.0] * 3] * 5
    s2, ref = coo(5, 4, 6, seed=3, device=device)
    assert (s2 @ minitorch.ones(4, 0, dtype=minitorch.float64, device=device)).shape == (5, 0)
    z = minitorch.zeros(0, 5, dtype=minitorch.float64, device=device)
    assert (z @ s2).shape == (0, 4)
    np.testing.assert_allclose(
        npy(s2.to_sparse_csr() @ minitorch.eye(4, dtype=minitorch.float64, device=device)),
        ref.toarray(),
        rtol=0,
        atol=0,
    )


def test_gradients_match_the_composed_path(device, kernel_calls):
    s, _ = coo(12, 10, 40, seed=4, device=device)
    rng = np.random.default_rng(5)
    x0, y0 = rng.standard_normal((10, 3)), rng.standard_normal((2, 12))

    def grads(native):
        v = s.values().detach().clone().requires_grad_()
        x = minitorch.tensor(x0, device=device, requires_grad=True)
        y = minitorch.tensor(y0, device=device, requires_grad=True)
        t = minitorch.sparse_coo_tensor(s.indices(), v, s.shape)
        t = t.coalesce() if native else t  # an uncoalesced tensor takes the composed path
        ((t @ x).sin().sum() + (y @ t).cos().sum()).backward()
        return npy(v.grad), npy(x.grad), npy(y.grad)

    composed = grads(False)
    assert not kernel_calls
    native = grads(True)
    assert kernel_calls == [False, True]
    for a, b in zip(native, composed):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12)


def test_gradcheck_and_double_backward():
    s, _ = coo(7, 6, 18, seed=6)
    idx = s.indices()
    v = s.values().detach().clone().requires_grad_()
    x = minitorch.tensor(np.random.default_rng(7).standard_normal((6, 4)), requires_grad=True)
    y = minitorch.tensor(np.random.default_rng(8).standard_normal((3, 7)), requires_grad=True)

    def build(v):
        return minitorch.sparse_coo_tensor(idx, v, (7, 6))._coalesced_(True)

    assert gradcheck(lambda v, x: build(v) @ x, (v, x))
    assert gradcheck(lambda v, y: y @ build(v), (v, y))
    assert gradcheck(lambda v, x: build(v).to_sparse_csr() @ x[:, 1], (v, x))
    assert gradgradcheck(lambda v, x: build(v) @ x, (v, x))
    assert gradgradcheck(lambda v, y: y @ build(v), (v, y))


def test_other_dtypes_and_batches_take_the_composed_path(kernel_calls):
    s, ref = coo(6, 5, 10, seed=9)
    x = np.random.default_rng(10).standard_normal((3, 5, 2))
    out = s @ minitorch.tensor(x)  # batched dense operand
    np.testing.assert_allclose(npy(out), np.stack([ref @ x[k] for k in range(3)]), rtol=1e-12)
    sc = s.to(minitorch.complex128)
    xc = minitorch.tensor(x[0]).to(minitorch.complex128)
    np.testing.assert_allclose((sc @ xc).numpy(), ref @ x[0], rtol=1e-12)
    assert not kernel_calls


def test_primitives_refuse_malformed_structures():
    crow = minitorch.tensor([0, 2, 3])
    col = minitorch.tensor([0, 2, 1])
    vals = minitorch.tensor([1.0, 2.0, 3.0])
    dense = minitorch.ones(3, 2)
    out = _C._sparse_csr_mm(crow, col, vals, dense, 3, False)
    np.testing.assert_array_equal(out.numpy(), [[3.0, 3.0], [3.0, 3.0]])
    with pytest.raises(IndexError, match="column index 5 is out of bounds for 3 columns"):
        _C._sparse_csr_mm(crow, minitorch.tensor([0, 5, 1]), vals, dense, 3, False)
    with pytest.raises(RuntimeError, match="must not decrease"):
        _C._sparse_csr_mm(minitorch.tensor([0, 3, 2]), col, vals, dense, 3, False)
    with pytest.raises(RuntimeError, match=r"crow_indices\[-1\] must equal"):
        _C._sparse_csr_mm(minitorch.tensor([0, 1, 2]), col, vals, dense, 3, False)
    with pytest.raises(RuntimeError, match="must both be int32 or both int64"):
        _C._sparse_csr_mm(crow.int(), col, vals, dense, 3, False)
    with pytest.raises(RuntimeError, match="expected the dense operand of dtype Float"):
        _C._sparse_csr_mm(crow, col, vals, dense.double(), 3, False)
    with pytest.raises(RuntimeError, match="values must be float32 or float64"):
        _C._sparse_csr_mm(crow, col, vals.half(), dense.half(), 3, False)
    with pytest.raises(RuntimeError, match=r"shapes cannot be multiplied \(2x3 and 2x2\)"):
        _C._sparse_csr_mm(crow, col, vals, minitorch.ones(2, 2), 3, False)
    with pytest.raises(IndexError, match="column index -1"):
        _C._sparse_csr_sddmm(crow, minitorch.tensor([0, -1, 1]), minitorch.ones(2, 2), minitorch.ones(3, 2))
    with pytest.raises(RuntimeError, match="do not fit the sparse pattern"):
        _C._sparse_csr_sddmm(crow, col, minitorch.ones(3, 2), minitorch.ones(3, 2))


def test_bool_products_refused_as_pytorch():
    a = minitorch.tensor([[True, False], [False, True]])
    for s, kernel in (
        (a.to_sparse(), "addmm_sparse_dense"),
        (a.to_sparse_csr(), "addmm_out_sparse_csr_impl_mkl"),
    ):
        for call in (
            lambda s=s: minitorch.sparse.mm(s, a),
            lambda s=s: a @ s,
            lambda s=s: minitorch.mm(s, a),
        ):
            with pytest.raises(NotImplementedError, match=f"\"{kernel}\" not implemented for 'Bool'"):
                call()
