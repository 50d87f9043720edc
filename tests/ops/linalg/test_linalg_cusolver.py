"""torch.linalg on CUDA tensors through cuSOLVER and cuBLAS (csrc/kernels/cuda/linalg_cusolver.cpp): results and
info tensors stay on the device and match NumPy in float32/float64/complex64/complex128, batched, with PyTorch's
errors read from the device info arrays; ldl, eig and lstsq (host LAPACK) still work on CUDA tensors. Skipped
without a GPU."""

import numpy as np
import pytest

import minitorch as torch

pytestmark = pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device")

LA = torch.linalg
rng = np.random.default_rng(11)
DTYPES = [torch.float32, torch.float64, torch.complex64, torch.complex128]
TOL = {torch.float32: 2e-4, torch.float64: 1e-10, torch.complex64: 2e-4, torch.complex128: 1e-10}


def rand(shape, dtype):
    a = rng.standard_normal(shape)
    return a + 1j * rng.standard_normal(shape) if dtype.is_complex else a


def mH(a):
    return np.conj(np.swapaxes(a, -1, -2))


def well(shape, dtype):
    return rand(shape, dtype) + shape[-1] * np.eye(shape[-1])


def hpd(shape, dtype):
    a = rand(shape, dtype)
    return a @ mH(a) + shape[-1] * np.eye(shape[-1])


def C(a, dtype):
    return torch.tensor(np.ascontiguousarray(a), dtype=dtype, device="cuda")


def N(t):
    assert t.device.type == "cuda", f"result left the device: {t.device}"
    return t.cpu().numpy()


def close(got, want, dtype, scale=1.0):
    tol = TOL[dtype] * scale
    np.testing.assert_allclose(N(got), want, rtol=tol, atol=tol)


@pytest.mark.parametrize("dtype", DTYPES)
def test_lu_factor_solve_and_unpack(dtype):
    a, b = well((3, 4, 4), dtype), rand((3, 4, 2), dtype)
    A, B = C(a, dtype), C(b, dtype)
    LU, piv = LA.lu_factor(A)
    assert piv.dtype == torch.int32 and piv.device.type == "cuda" and piv.shape == (3, 4)
    assert bool(((piv >= 1) & (piv <= 4)).all())
    P, L, U = torch.lu_unpack(LU, piv)
    close(P @ L @ U, a, dtype)
    close(LA.lu_solve(LU, piv, B), np.linalg.solve(a, b), dtype)
    close(LA.lu_solve(LU, piv, B, adjoint=True), np.linalg.solve(mH(a), b), dtype)
    bt = rand((3, 2, 4), dtype)
    # X A = B and X A^H = B
    close(
        LA.lu_solve(LU, piv, C(bt, dtype), left=False),
        np.swapaxes(np.linalg.solve(np.swapaxes(a, -1, -2), np.swapaxes(bt, -1, -2)), -1, -2),
        dtype,
    )
    want = mH(np.linalg.solve(a, mH(bt)))
    close(LA.lu_solve(LU, piv, C(bt, dtype), left=False, adjoint=True), want, dtype)
    close(LA.solve(A, B), np.linalg.solve(a, b), dtype)
    close(LA.inv(A), np.linalg.inv(a), dtype, scale=10)
    close(LA.det(A), np.linalg.det(a), dtype, scale=100)


@pytest.mark.parametrize("shape", [(5, 3), (3, 5)])
def test_lu_of_rectangular_matrices(shape):
    a = rand((2, *shape), torch.float64)
    P, L, U = LA.lu(C(a, torch.float64))
    close(P @ L @ U, a, torch.float64)


def test_singular_matrix_info_and_errors():
    a = np.stack([np.eye(2), [[1.0, 2.0], [2.0, 4.0]]])
    _LU, _piv, info = LA.lu_factor_ex(C(a, torch.float64))
    assert info.device.type == "cuda" and info.tolist() == [0, 2]
    with pytest.raises(
        LA.LinAlgError, match=r"\(Batch element 1\): The solver failed because the input matrix is singular"
    ):
        LA.solve(C(a, torch.float64), C(np.ones((2, 2, 1)), torch.float64))
    with pytest.raises(LA.LinAlgError, match="singular"):
        LA.inv(C(a[1], torch.float64))


def test_lu_solve_with_bad_pivots_does_not_corrupt_the_device():
    # PyTorch checks pivots on the CPU only; cuSOLVER's getrs would swap rows out of bounds with these, so the
    # kernel clamps them: a wrong answer, never a wild write that would end the CUDA context
    a = well((4, 4), torch.float64)
    LU, _ = LA.lu_factor(C(a, torch.float64))
    for bad in ([0, 0, 0, 0], [9, 9, 9, 9]):
        X = LA.lu_solve(
            LU, torch.tensor(bad, dtype=torch.int32, device="cuda"), C(np.ones((4, 1)), torch.float64)
        )
        torch.cuda.synchronize()
        assert X.shape == (4, 1)
    close(
        LA.solve(C(a, torch.float64), C(np.ones((4, 1)), torch.float64)),
        np.linalg.solve(a, np.ones((4, 1))),
        torch.float64,
    )


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("upper", [False, True])
def test_cholesky(dtype, upper):
    a = hpd((2, 3, 5, 5), dtype)
    L = LA.cholesky(C(a, dtype), upper=upper)
    want = np.linalg.cholesky(a)
    close(L, mH(want) if upper else want, dtype, scale=10)
    _L, info = LA.cholesky_ex(C(a, dtype))
    assert info.device.type == "cuda" and info.tolist() == [[0, 0, 0], [0, 0, 0]]
    b = rand((2, 3, 5, 2), dtype)
    close(torch.cholesky_solve(C(b, dtype), C(want, dtype)), np.linalg.solve(a, b), dtype, scale=10)


def test_cholesky_not_positive_definite_names_the_batch_element_and_minor():
    bad = np.array([[[1.0, 2.0], [2.0, 1.0]]])
    with pytest.raises(
        LA.LinAlgError,
        match=r"^linalg.cholesky: \(Batch element 0\): The factorization could not be completed because the input "
        r"is not positive-definite \(the leading minor of order 2 is not positive-definite\).$",
    ):
        LA.cholesky(C(bad, torch.float64))
    _L, info = LA.cholesky_ex(C(np.stack([np.eye(2), bad[0], -np.eye(2)]), torch.float64))
    assert info.device.type == "cuda" and info.tolist() == [0, 2, 1]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("upper", [False, True])
@pytest.mark.parametrize("left", [True, False])
@pytest.mark.parametrize("unit", [False, True])
def test_solve_triangular(dtype, upper, left, unit):
    a = well((2, 4, 4), dtype)
    a = np.triu(a) if upper else np.tril(a)
    b = rand((2, 4, 3) if left else (2, 3, 4), dtype)
    X = LA.solve_triangular(C(a, dtype), C(b, dtype), upper=upper, left=left, unitriangular=unit)
    m = a.copy()
    if unit:
        m[..., np.arange(4), np.arange(4)] = 1
    want = (
        np.linalg.solve(m, b)
        if left
        else np.swapaxes(np.linalg.solve(np.swapaxes(m, -1, -2), np.swapaxes(b, -1, -2)), -1, -2)
    )
    close(X, want, dtype, scale=10)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(5, 3), (3, 5), (4, 4)])
def test_qr_geqrf_and_householder_product(dtype, shape):
    a = rand((2, *shape), dtype)
    A = C(a, dtype)
    for mode in ("reduced", "complete"):
        Q, R = LA.qr(A, mode=mode)
        close(Q @ R, a, dtype, scale=10)
        close(Q.mH @ Q, np.broadcast_to(np.eye(Q.shape[-1]), (2, Q.shape[-1], Q.shape[-1])), dtype, scale=10)
        assert bool((R.tril(-1) == 0).all())
    r = LA.qr(A, mode="r").R
    close(r.abs(), np.abs(np.linalg.qr(a, mode="r")), dtype, scale=10)
    qr, tau = torch.geqrf(A)
    assert tau.device.type == "cuda" and tau.shape == (2, min(shape))
    if shape[0] >= shape[1]:
        close(LA.householder_product(qr, tau), N(LA.qr(A).Q), dtype, scale=10)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("uplo", ["L", "U"])
def test_eigh_and_eigvalsh(dtype, uplo):
    a = hpd((3, 6, 6), dtype)
    w_want = np.linalg.eigvalsh(a)
    # the triangle eigh does not read holds junk
    junk = (
        np.triu(a) + np.tril(rand((3, 6, 6), dtype), -1)
        if uplo == "U"
        else np.tril(a) + np.triu(rand((3, 6, 6), dtype), 1)
    )
    w, V = LA.eigh(C(junk, dtype), UPLO=uplo)
    assert w.dtype == (torch.float32 if dtype in (torch.float32, torch.complex64) else torch.float64)
    close(w, w_want, dtype, scale=100)
    close(C(a, dtype) @ V, N(V * w.unsqueeze(-2)), dtype, scale=100)
    close(V.mH @ V, np.broadcast_to(np.eye(6), (3, 6, 6)), dtype, scale=10)
    close(LA.eigvalsh(C(junk, dtype), UPLO=uplo), w_want, dtype, scale=100)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(5, 3), (3, 5), (4, 4)])
@pytest.mark.parametrize("full", [True, False])
def test_svd(dtype, shape, full):
    a = rand((2, *shape), dtype)
    m, n = shape
    k = min(m, n)
    U, S, Vh = LA.svd(C(a, dtype), full_matrices=full)
    assert U.shape == (2, m, m if full else k) and Vh.shape == (2, n if full else k, n)
    assert S.dtype == (torch.float32 if dtype in (torch.float32, torch.complex64) else torch.float64)
    close(S, np.linalg.svd(a, compute_uv=False), dtype, scale=10)
    close((U[..., :k] * S.unsqueeze(-2).to(dtype)) @ Vh[..., :k, :], a, dtype, scale=10)
    close(U.mH @ U, np.broadcast_to(np.eye(U.shape[-1]), (2, U.shape[-1], U.shape[-1])), dtype, scale=10)
    close(Vh @ Vh.mH, np.broadcast_to(np.eye(Vh.shape[-2]), (2, Vh.shape[-2], Vh.shape[-2])), dtype, scale=10)
    close(LA.svdvals(C(a, dtype)), np.linalg.svd(a, compute_uv=False), dtype, scale=10)


def test_svd_of_nan_raises_as_pytorch_cuda():
    a = np.full((3, 3), np.nan)
    for svd in (LA.svd, LA.svdvals):
        with pytest.raises(LA.LinAlgError, match="The algorithm failed to converge"):
            svd(C(a, torch.float64))


def test_empty_and_single_element_batches():
    E = torch.empty(2, 0, 0, dtype=torch.float64, device="cuda")
    assert LA.cholesky(E).shape == (2, 0, 0) and LA.eigvalsh(E).shape == (2, 0)
    U, S, Vh = LA.svd(torch.empty(2, 0, 3, dtype=torch.float64, device="cuda"))
    assert U.shape == (2, 0, 0) and S.shape == (2, 0) and Vh.shape == (2, 3, 3)
    close(Vh, np.broadcast_to(np.eye(3), (2, 3, 3)), torch.float64)
    one = C([[4.0]], torch.float64)
    close(LA.cholesky(one), [[2.0]], torch.float64)


def test_host_lapack_stubs_still_take_cuda_tensors():
    a = rand((2, 4, 4), torch.float64)
    w = LA.eigvals(C(a, torch.float64))
    np.testing.assert_allclose(np.sort_complex(N(w)), np.sort_complex(np.linalg.eigvals(a)), atol=1e-10)
    b = rand((2, 4, 2), torch.float64)
    s = hpd((4, 4), torch.float64)
    LD, piv = LA.ldl_factor(C(s, torch.float64))
    close(LA.ldl_solve(LD, piv, C(b[0], torch.float64)), np.linalg.solve(s, b[0]), torch.float64)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(6, 3), (3, 6), (4, 4)])
def test_lstsq_gels(dtype, shape):
    # CUDA's only driver (PyTorch's too): QR of A, or of A^H for the minimum-norm solution of a wide A
    m, n = shape
    a, b = rand((2, m, n), dtype), rand((2, m, 2), dtype)
    res = LA.lstsq(C(a, dtype), C(b, dtype), driver="gels")
    want = np.stack([np.linalg.lstsq(a[i], b[i], rcond=None)[0] for i in range(2)])
    close(res.solution, want, dtype, scale=100)
    assert res.rank.numel() == 0 and res.singular_values.numel() == 0
    if m > n:
        close(res.residuals, (np.abs(a @ want - b) ** 2).sum(-2), dtype, scale=100)
    else:
        assert res.residuals.numel() == 0
    # the default driver on CUDA, and a vector right-hand side
    close(LA.lstsq(C(a, dtype), C(b[..., 0], dtype)).solution, want[..., 0], dtype, scale=100)


def test_lstsq_takes_gels_only_on_cuda():
    a = C(rand((3, 2), torch.float64), torch.float64)
    b = C(rand((3, 1), torch.float64), torch.float64)
    for driver in ("gelsy", "gelsd", "gelss", "fictitious_driver"):
        with pytest.raises(
            RuntimeError, match="^torch.linalg.lstsq: `driver` other than `gels` is not supported on CUDA$"
        ):
            LA.lstsq(a, b, driver=driver)
    close(LA.lstsq(a, b, driver="gels").solution, N(LA.lstsq(a, b).solution), torch.float64)


def test_on_a_side_stream_and_with_gradients():
    a, b = hpd((2, 4, 4), torch.float64), rand((2, 4, 3), torch.float64)
    s = torch.cuda.Stream()
    with torch.cuda.stream(s):
        A, B = C(a, torch.float64), C(b, torch.float64)
        X = LA.solve(A, B)
        L = LA.cholesky(A)
        w = LA.eigvalsh(A)
    s.synchronize()
    close(X, np.linalg.solve(a, b), torch.float64)
    close(L, np.linalg.cholesky(a), torch.float64)
    close(w, np.linalg.eigvalsh(a), torch.float64)
    # gradients run the same formulas as on the CPU, over CUDA decompositions
    A = C(a, torch.float64).requires_grad_()
    (LA.svdvals(A).sum() + LA.eigvalsh(A).sum() + LA.cholesky(A).sum() + LA.det(A).sum()).backward()
    Ac = torch.tensor(a, dtype=torch.float64).requires_grad_()
    (LA.svdvals(Ac).sum() + LA.eigvalsh(Ac).sum() + LA.cholesky(Ac).sum() + LA.det(Ac).sum()).backward()
    close(A.grad, Ac.grad.numpy(), torch.float64, scale=1000)


@pytest.mark.parametrize("dtype", [torch.float64, torch.complex64])
def test_looped_and_batched_paths_agree(dtype):
    # the kernels loop over cuSOLVER's single-matrix routines for one or two large matrices and call the batched
    # cuBLAS/cuSOLVER routines for many small ones (PyTorch's heuristics): both sides of each switch
    for batch, n in [((1,), 70), ((2,), 70), ((9,), 70), ((12,), 3)]:
        a, s, b = well((*batch, n, n), dtype), hpd((*batch, n, n), dtype), rand((*batch, n, 2), dtype)
        A, S, B = C(a, dtype), C(s, dtype), C(b, dtype)
        LU, piv = LA.lu_factor(A)
        close(LA.lu_solve(LU, piv, B), np.linalg.solve(a, b), dtype, scale=100)
        close(LA.cholesky(S), np.linalg.cholesky(s), dtype, scale=100)
        t = np.triu(a)
        close(LA.solve_triangular(C(t, dtype), B, upper=True), np.linalg.solve(t, b), dtype, scale=100)
