"""torch.linalg's decompositions and solvers (python/minitorch/linalg/_decomp.py over ops/linalg_decomp.h's LAPACK
kernels): values against NumPy/SciPy in float64, batched, broadcast, non-contiguous and empty inputs, gradients
against finite differences (first and second order), and PyTorch's errors for bad input."""

import numpy as np
import pytest
import scipy.linalg as sla

import minitorch
import minitorch as torch
from minitorch.autograd import gradcheck, gradgradcheck

LA = minitorch.linalg
rng = np.random.default_rng(7)


def T(a, device="cpu", dtype=None, grad=False):
    t = torch.tensor(np.ascontiguousarray(a), dtype=dtype or torch.float64, device=device)
    return t.requires_grad_() if grad else t


def N(t):
    return t if isinstance(t, np.ndarray) else t.detach().cpu().numpy()


def spd(*shape):
    n = shape[-1]
    a = rng.standard_normal(shape)
    return a @ np.swapaxes(a, -1, -2) + n * np.eye(n)


def well(*shape):
    """A well-conditioned square matrix (or batch)."""
    n = shape[-1]
    return rng.standard_normal(shape) + n * np.eye(n)


def close(got, want, tol=1e-10):
    np.testing.assert_allclose(N(got), want, rtol=tol, atol=tol)


# ---------------------------------------------------------------------------------------------- solves


@pytest.mark.parametrize("batch", [(), (3,), (2, 2)])
def test_solve_inv_det_against_numpy(device, batch):
    a = well(*batch, 4, 4)
    b = rng.standard_normal(batch + (4, 3))
    A, B = T(a, device), T(b, device)
    close(LA.solve(A, B), np.linalg.solve(a, b))
    close(LA.inv(A), np.linalg.inv(a))
    close(torch.inverse(A), np.linalg.inv(a))
    close(A.inverse(), np.linalg.inv(a))
    close(LA.det(A), np.linalg.det(a))
    sign, logabs = LA.slogdet(A)
    ns, nl = np.linalg.slogdet(a)
    close(sign, ns)
    close(logabs, nl)
    close(
        LA.solve(A, B.transpose(-2, -1), left=False),
        np.swapaxes(np.linalg.solve(np.swapaxes(a, -1, -2), b), -1, -2),
    )


def test_solve_vector_and_broadcasting_rules():
    a = well(2, 3, 3)
    A = T(a)
    v = rng.standard_normal(3)
    close(LA.solve(A, T(v)), np.linalg.solve(a, v[None, :, None])[..., 0])
    bv = rng.standard_normal((2, 3))  # a batch of vectors: B.shape == A.shape[:-1]
    close(LA.solve(A, T(bv)), np.linalg.solve(a, bv[..., None])[..., 0])
    m = rng.standard_normal((3, 2))  # one matrix broadcast over A's batch
    close(LA.solve(A, T(m)), np.linalg.solve(a, m))
    with pytest.raises(
        RuntimeError, match=r"Incompatible shapes of A and B for the equation AX = B \(3x3 and 4x1\)"
    ):
        LA.solve(T(np.eye(3)), T(np.ones(4)))


def test_float32_and_noncontiguous_inputs():
    a = well(5, 5)
    A32 = T(a, dtype=torch.float32)
    x = LA.inv(A32)
    assert x.dtype == torch.float32
    np.testing.assert_allclose(N(x), np.linalg.inv(a), rtol=1e-4, atol=1e-5)
    At = T(a.T.copy()).transpose(0, 1)  # a transposed (non-contiguous) view holding a
    assert not At.is_contiguous()
    close(LA.inv(At), np.linalg.inv(a))
    strided = T(np.kron(a, np.ones((2, 2))))[::2, ::2]
    close(LA.det(strided), np.linalg.det(a))


def test_singular_matrices():
    z = np.array([[1.0, 2.0], [2.0, 4.0]])
    Z = T(z)
    assert float(LA.det(Z)) == 0.0
    sign, logabs = LA.slogdet(Z)
    assert float(sign) == 0.0 and float(logabs) == -np.inf
    with pytest.raises(
        LA.LinAlgError, match=r"^linalg.inv: The diagonal element 2 is zero, the inversion could not"
    ):
        LA.inv(Z)
    assert issubclass(LA.LinAlgError, RuntimeError)
    with pytest.raises(LA.LinAlgError, match=r"linalg.inv: \(Batch element 1\): The diagonal element"):
        LA.inv(T(np.stack([np.eye(2), z])))
    with pytest.raises(LA.LinAlgError, match="The solver failed because the input matrix is singular"):
        LA.solve(Z, T(np.ones(2)))
    inv, info = LA.inv_ex(T(np.stack([np.eye(2), z])))
    assert info.tolist() == [0, 2]
    close(inv[0], np.eye(2))
    res, info = LA.solve_ex(T(np.stack([np.eye(2), z])), T(np.ones((2, 2))))
    assert info.tolist() == [0, 2] and res.shape == (2, 2)


def test_empty_matrices(device):
    E = torch.empty(2, 0, 0, dtype=torch.float64, device=device)
    assert LA.inv(E).shape == (2, 0, 0)
    assert LA.det(E).tolist() == [1.0, 1.0]
    assert LA.cholesky(E).shape == (2, 0, 0)
    U, S, Vh = LA.svd(torch.empty(0, 3, dtype=torch.float64, device=device))
    assert U.shape == (0, 0) and S.shape == (0,) and Vh.shape == (3, 3)
    close(Vh, np.eye(3))
    assert LA.eigh(E).eigenvalues.shape == (2, 0)
    assert LA.qr(torch.empty(3, 0, dtype=torch.float64, device=device)).Q.shape == (3, 0)
    assert LA.solve(E, torch.empty(2, 0, 4, dtype=torch.float64, device=device)).shape == (2, 0, 4)


# --------------------------------------------------------------------------------------------- triangular


@pytest.mark.parametrize("upper", [False, True])
@pytest.mark.parametrize("left", [True, False])
@pytest.mark.parametrize("unit", [False, True])
def test_solve_triangular(device, upper, left, unit):
    a = well(2, 4, 4)
    tri = np.triu(a) if upper else np.tril(a)
    full = tri.copy()
    if unit:
        full[..., range(4), range(4)] = 1.0
    b = rng.standard_normal((2, 4, 3) if left else (2, 3, 4))
    X = LA.solve_triangular(T(a, device), T(b, device), upper=upper, left=left, unitriangular=unit)
    want = (
        np.linalg.solve(full, b)
        if left
        else np.swapaxes(np.linalg.solve(np.swapaxes(full, -1, -2), np.swapaxes(b, -1, -2)), -1, -2)
    )
    close(X, want)


def test_solve_triangular_errors_and_legacy_form():
    with pytest.raises(TypeError):
        LA.solve_triangular(T(np.eye(3)), T(np.ones((3, 2))))  # upper is keyword-only and required
    with pytest.raises(
        RuntimeError, match=r"Incompatible shapes of A and B for the equation AX = B \(3x3 and 4x2\)"
    ):
        LA.solve_triangular(T(np.eye(3)), T(np.ones((4, 2))), upper=True)
    a = np.triu(well(3, 3))
    b = rng.standard_normal((3, 2))
    with pytest.warns(UserWarning, match="triangular_solve is deprecated"):
        sol, clone = torch.triangular_solve(T(b), T(a))
    close(sol, sla.solve_triangular(a, b))
    close(clone, a)
    with pytest.warns(UserWarning):
        sol, _ = torch.triangular_solve(T(b), T(a), upper=True, transpose=True)
    close(sol, sla.solve_triangular(a, b, trans=1))


# ------------------------------------------------------------------------------------------------ Cholesky


def test_cholesky_and_solve(device):
    a = spd(3, 4, 4)
    A = T(a, device)
    L = LA.cholesky(A)
    close(L, np.linalg.cholesky(a))
    U = LA.cholesky(A, upper=True)
    close(U, np.swapaxes(np.linalg.cholesky(a), -1, -2))
    b = rng.standard_normal((3, 4, 2))
    close(torch.cholesky_solve(T(b, device), L), np.linalg.solve(a, b))
    close(torch.cholesky_solve(T(b, device), U, upper=True), np.linalg.solve(a, b))
    close(torch.cholesky_inverse(L), np.linalg.inv(a))


def test_cholesky_not_positive_definite():
    bad = -np.eye(3)
    with pytest.raises(
        LA.LinAlgError,
        match=r"^linalg.cholesky: The factorization could not be completed because the input is not "
        r"positive-definite \(the leading minor of order 1 is not positive-definite\).$",
    ):
        LA.cholesky(T(bad))
    with pytest.raises(LA.LinAlgError, match=r"\(Batch element 1\): The factorization"):
        LA.cholesky(T(np.stack([np.eye(3), bad])))
    _L, info = LA.cholesky_ex(T(np.stack([np.eye(3), bad])))
    assert info.tolist() == [0, 1]
    with pytest.raises(LA.LinAlgError):
        LA.cholesky_ex(T(bad), check_errors=True)


# ------------------------------------------------------------------------------------------------ LU


def test_lu_factor_and_unpack(device):
    a = rng.standard_normal((2, 4, 4))
    LU, piv = LA.lu_factor(T(a, device))
    assert piv.dtype == torch.int32
    for i in range(2):
        lu, p = sla.lu_factor(a[i])
        close(LU[i], lu)
        assert (N(piv[i]) - 1).tolist() == p.tolist()
    P, L, U = LA.lu(T(a, device))
    close(P @ L @ U, a)
    close(L, np.tril(N(L)))
    b = rng.standard_normal((2, 4, 3))
    close(LA.lu_solve(LU, piv, T(b, device)), np.linalg.solve(a, b))
    close(LA.lu_solve(LU, piv, T(b, device), adjoint=True), np.linalg.solve(np.swapaxes(a, -1, -2), b))
    bt = np.swapaxes(b, -1, -2)
    want = np.swapaxes(np.linalg.solve(np.swapaxes(a, -1, -2), b), -1, -2)
    close(LA.lu_solve(LU, piv, T(bt, device), left=False), want)
    with pytest.warns(UserWarning, match="lu_solve is deprecated"):
        close(torch.lu_solve(T(b, device), LU, piv), np.linalg.solve(a, b))


@pytest.mark.parametrize("shape", [(40, 40), (3, 6, 6), (7, 4), (4, 7), (70, 5, 5), (2, 40, 3, 3)])
def test_lu_permutation_against_scipy(device, shape):
    # P from LAPACK's pivots: replayed on Python ints for up to 64 matrices, by tensor steps beyond (both
    # against SciPy's getrf-based lu, whose partial pivoting picks the same rows)
    a = rng.standard_normal(shape)
    P, L, U = LA.lu(T(a, device))
    flat = a.reshape(-1, *shape[-2:])
    want = np.stack([sla.lu(m)[0] for m in flat]).reshape(shape[:-2] + (shape[-2], shape[-2]))
    np.testing.assert_array_equal(N(P), want)
    close(P @ L @ U, a)
    LU, piv = LA.lu_factor(T(a, device))
    # non-contiguous pivots (every other column of a wider tensor) give the same permutation
    wide = torch.stack([piv, piv], -1).reshape(*piv.shape[:-1], -1)[..., ::2]
    assert not wide.is_contiguous()
    np.testing.assert_array_equal(N(torch.lu_unpack(LU, wide)[0]), want)


def test_lu_unpack_bad_and_empty_pivots():
    LU = T(rng.standard_normal((3, 3)))
    for bad in ([4, 2, 3], [0, 2, 3]):
        with pytest.raises(RuntimeError, match="pivots passed to lu_unpack must be between 1 and LU.size"):
            torch.lu_unpack(LU, torch.tensor(bad, dtype=torch.int32))
    P, L, U = LA.lu(T(np.zeros((2, 0, 0))))
    assert P.shape == (2, 0, 0) and L.shape == (2, 0, 0) and U.shape == (2, 0, 0)
    P, L, U = LA.lu(T(np.zeros((0, 3, 3))))
    assert P.shape == (0, 3, 3)
    # the gradient through a host-replayed permutation
    a = T(rng.standard_normal((6, 6)), grad=True)
    assert gradcheck(lambda x: LA.lu(x)[1].sum() + LA.lu(x)[2].sum(), (a,))


def test_lu_rectangular_and_errors():
    a = rng.standard_normal((5, 3))
    P, L, U = LA.lu(T(a))
    assert L.shape == (5, 3) and U.shape == (3, 3)
    close(P @ L @ U, a)
    P, L, U = LA.lu(T(a.T.copy()))
    assert L.shape == (3, 3) and U.shape == (3, 5)
    close(P @ L @ U, a.T)
    with pytest.raises(RuntimeError, match="LU without pivoting is not implemented on the CPU"):
        LA.lu_factor(T(np.eye(3)), pivot=False)
    with pytest.raises(
        RuntimeError,
        match=r"^torch.linalg.lu_factor: U\[1,1\] is zero and using it on lu_solve would result in a division",
    ):
        LA.lu_factor(T(np.zeros((3, 3))))
    _LU, _piv, info = LA.lu_factor_ex(T(np.zeros((3, 3))))
    assert int(info) == 1


# ------------------------------------------------------------------------------------------------- QR


@pytest.mark.parametrize("shape", [(5, 3), (3, 5), (4, 4), (2, 6, 4)])
@pytest.mark.parametrize("mode", ["reduced", "complete", "r"])
def test_qr(device, shape, mode):
    a = rng.standard_normal(shape)
    Q, R = LA.qr(T(a, device), mode=mode)
    k = min(shape[-2:])
    nq, nr = np.linalg.qr(a, mode="complete" if mode == "complete" else "reduced")
    # unique up to the signs of R's diagonal
    sign = np.sign(np.diagonal(N(R), 0, -2, -1)[..., :k]) * np.sign(np.diagonal(nr, 0, -2, -1)[..., :k])
    close(np.abs(N(R)), np.abs(nr))
    if mode != "r":
        close(Q @ R, a)
        qk = N(Q)[..., :k] * sign[..., None, :]
        close(qk, nq[..., :k])
        close(
            Q.transpose(-2, -1) @ Q, np.broadcast_to(np.eye(Q.shape[-1]), Q.shape[:-2] + (Q.shape[-1],) * 2)
        )
    else:
        assert Q.numel() == 0


def test_qr_bad_mode_and_geqrf():
    with pytest.raises(
        RuntimeError, match="qr received unrecognized mode 'foo' but expected one of 'reduced'"
    ):
        LA.qr(T(np.eye(2)), mode="foo")
    a = rng.standard_normal((4, 3))
    g, tau = torch.geqrf(T(a))
    qr_, _tau_np = sla.qr(a, mode="raw")[0]
    close(np.abs(np.triu(N(g))[:3]), np.abs(np.triu(qr_)[:3]))
    Q = LA.householder_product(g, tau)
    close(Q @ torch.triu(g)[:3], a)


# ------------------------------------------------------------------------------------------- eigh / SVD


def test_eigh_and_eigvalsh(device):
    a = spd(3, 5, 5) - 5 * np.eye(5)
    w, V = LA.eigh(T(a, device))
    nw = np.linalg.eigvalsh(a)
    close(w, nw)
    close(V @ torch.diag_embed(w) @ V.transpose(-2, -1), a)
    close(LA.eigvalsh(T(a, device)), nw)
    # only the named triangle is read
    junk = np.triu(a, 1) * 0 + np.tril(a) + np.triu(rng.standard_normal((3, 5, 5)), 1)
    close(LA.eigvalsh(T(junk, device)), nw)
    close(LA.eigvalsh(T(np.swapaxes(junk, -1, -2), device), UPLO="U"), nw)
    with pytest.raises(RuntimeError, match="Expected UPLO argument to be 'L' or 'U', but got X"):
        LA.eigh(T(a), UPLO="X")


@pytest.mark.parametrize("shape", [(4, 3), (3, 4), (2, 5, 5)])
@pytest.mark.parametrize("full", [True, False])
def test_svd(device, shape, full):
    a = rng.standard_normal(shape)
    U, S, Vh = LA.svd(T(a, device), full_matrices=full)
    nu, ns, nvh = np.linalg.svd(a, full_matrices=full)
    close(S, ns)
    assert U.shape == nu.shape and Vh.shape == nvh.shape
    k = min(shape[-2:])
    close(U[..., :k] @ torch.diag_embed(S) @ Vh[..., :k, :], a)
    close(LA.svdvals(T(a, device)), ns)
    u2, s2, v2 = torch.svd(T(a, device))
    close(u2 @ torch.diag_embed(s2) @ v2.transpose(-2, -1), a)


def test_lstsq_pinv_rank_cond(device):
    a = rng.standard_normal((6, 3))
    b = rng.standard_normal((6, 2))
    want = np.linalg.lstsq(a, b, rcond=None)
    for driver in ["gels", "gelsy", "gelsd", "gelss"]:
        res = LA.lstsq(T(a, device), T(b, device), driver=driver)
        close(res.solution, want[0])
        if driver in ("gelsd", "gelss"):
            close(res.residuals, want[1])
            close(res.singular_values, want[3])
        if driver != "gels":
            assert int(res.rank) == 3
    assert LA.lstsq(T(a), T(b)).residuals.numel() == 0  # gelsy computes none, as PyTorch's
    wide = rng.standard_normal((2, 4))
    close(LA.lstsq(T(wide), T(b[:2]), driver="gelsd").solution, np.linalg.lstsq(wide, b[:2], rcond=None)[0])
    close(LA.pinv(T(a, device)), np.linalg.pinv(a))
    s = spd(4, 4)
    close(LA.pinv(T(s), hermitian=True), np.linalg.pinv(s))
    close(torch.pinverse(T(a)), np.linalg.pinv(a))
    d = np.diag([1.0, 0.4, 1e-20, 1e-10])
    assert int(LA.matrix_rank(T(d))) == 3
    assert int(LA.matrix_rank(T(d), atol=0.5)) == 1
    assert int(LA.matrix_rank(T(d), rtol=0.5)) == 1
    assert int(LA.matrix_rank(T(d), hermitian=True)) == 3
    close(LA.cond(T(s)), np.linalg.cond(s))
    close(LA.cond(T(s), "fro"), np.linalg.cond(s, "fro"))
    with pytest.raises(
        RuntimeError, match=r"parameter `driver` should be one of \(gels, gelsy, gelsd, gelss\)"
    ):
        LA.lstsq(T(a), T(b), driver="foo")
    with pytest.raises(RuntimeError, match=r"input.size\(-2\) should match other.size\(-2\)"):
        LA.lstsq(T(a), T(b[:4]))


def test_matrix_exp_and_tensor_forms():
    for scale in [0.01, 1.0, 30.0]:
        a = rng.standard_normal((2, 4, 4)) * scale
        close(
            LA.matrix_exp(T(a)),
            np.stack([sla.expm(x) for x in a]),
            tol=1e-9 * max(1.0, np.abs(sla.expm(a[0])).max()),
        )
    close(torch.matrix_exp(T(np.zeros((3, 3)))), np.eye(3))
    a = well(6, 6).reshape(2, 3, 6)
    close(LA.tensorinv(T(a), ind=2), np.linalg.tensorinv(a, ind=2))
    b = rng.standard_normal((2, 3))
    close(LA.tensorsolve(T(a.reshape(2, 3, 2, 3)), T(b)), np.linalg.tensorsolve(a.reshape(2, 3, 2, 3), b))


def test_lowrank():
    torch.manual_seed(0)
    a = rng.standard_normal((20, 3)) @ rng.standard_normal((3, 10))
    U, S, V = torch.svd_lowrank(T(a), q=4)
    close(S[:3], np.linalg.svd(a, compute_uv=False)[:3], tol=1e-8)
    close(U @ torch.diag(S) @ V.T, a, tol=1e-8)  # a has rank 3: the rank-4 approximation is exact
    _U, S, _V = torch.pca_lowrank(T(a), q=3)
    c = a - a.mean(0)
    close(S, np.linalg.svd(c, compute_uv=False)[:3], tol=1e-8)
    with pytest.raises(ValueError, match="must be non-negative integer and not greater than min"):
        torch.pca_lowrank(T(a), q=11)


# ------------------------------------------------------------------------------------------------ eig


@pytest.mark.parametrize("batch", [(), (3,)])
def test_eig_and_eigvals_against_numpy(device, batch):
    a = rng.standard_normal(batch + (5, 5))
    w, V = LA.eig(T(a, device))
    assert w.dtype == torch.complex128 and V.dtype == torch.complex128
    wn, Vn = N(w), N(V)
    # A V = V diag(w), unit-norm eigenvectors, and the same spectrum as NumPy's
    np.testing.assert_allclose(a @ Vn, Vn * wn[..., None, :], atol=1e-10)
    np.testing.assert_allclose(np.linalg.norm(Vn, axis=-2), 1.0, atol=1e-12)
    np.testing.assert_allclose(
        np.sort_complex(N(LA.eigvals(T(a, device))).ravel()),
        np.sort_complex(np.linalg.eigvals(a).ravel()),
        atol=1e-10,
    )
    w32 = LA.eigvals(T(a, device, dtype=torch.float32))
    assert w32.dtype == torch.complex64
    np.testing.assert_allclose(
        np.sort_complex(N(w32).ravel()), np.sort_complex(np.linalg.eigvals(a).ravel()), atol=1e-4
    )
    # a non-contiguous (transposed) input and an empty batch
    np.testing.assert_allclose(
        np.sort_complex(N(LA.eigvals(T(a, device).mT)).ravel()),
        np.sort_complex(np.linalg.eigvals(np.swapaxes(a, -1, -2)).ravel()),
        atol=1e-10,
    )
    assert LA.eigvals(torch.zeros(0, 3, 3, dtype=torch.float64, device=device)).shape == (0, 3)


def test_eig_gradients():
    a = rng.standard_normal((4, 4))
    # the spectrum's real and imaginary parts, and |V|^2 (free of each eigenvector's phase)
    assert gradcheck(lambda x: torch.view_as_real(LA.eigvals(x)), (T(a, grad=True),))
    assert gradcheck(lambda x: LA.eig(x).eigenvectors.abs() ** 2, (T(a, grad=True),))


def test_eig_errors():
    with pytest.raises(RuntimeError, match="^Unknown Complex ScalarType for Long$"):
        LA.eig(torch.ones(3, 3, dtype=torch.int64))
    with pytest.raises(NotImplementedError, match="linalg_eig_out_cpu"):
        LA.eigvals(torch.ones(3, 3, dtype=torch.float16))
    with pytest.raises(RuntimeError, match="must be batches of square matrices"):
        LA.eig(torch.ones(2, 3, dtype=torch.float64))
    # complex input is taken (issue 33; tests/ops/linalg/test_linalg_complex.py has the rest)
    w = LA.eigvals(torch.ones(2, 2, dtype=torch.complex64))
    assert w.dtype == torch.complex64
    np.testing.assert_allclose(np.sort_complex(N(w)), [0.0, 2.0], atol=1e-6)
    # a NaN matrix gives NaN results instead of reaching LAPACK's iterations
    assert N(LA.eigvals(T(np.full((2, 2), np.nan)))).real.tolist() != [0.0, 0.0]


# -------------------------------------------------------------------------------------------- bad inputs


@pytest.mark.parametrize(
    "fn",
    [
        "inv",
        "det",
        "slogdet",
        "cholesky",
        "eigh",
        "eigvalsh",
        "svd",
        "svdvals",
        "qr",
        "matrix_exp",
        "lu_factor",
    ],
)
def test_dtype_and_rank_errors(fn):
    f = getattr(LA, fn)
    with pytest.raises(NotImplementedError):
        f(torch.ones(3, 3, dtype=torch.int64))
    if fn == "matrix_exp":  # PyTorch's CPU kernel takes half precision (computed in float32 here)
        assert f(torch.ones(3, 3, dtype=torch.float16)).dtype == torch.float16
    else:
        with pytest.raises(NotImplementedError):
            f(torch.ones(3, 3, dtype=torch.float16))
    with pytest.raises(RuntimeError, match="at least 2 dimensions|2 or more dimensions"):
        f(torch.ones(3, dtype=torch.float64))
    if fn not in ("svd", "svdvals", "qr", "lu_factor"):
        with pytest.raises(
            RuntimeError, match="A must be batches of square matrices, but they are 2 by 3 matrices"
        ):
            f(torch.ones(2, 3, dtype=torch.float64))


def test_error_messages_name_the_function():
    with pytest.raises(
        NotImplementedError, match="^linalg.cholesky: Expected a floating point or complex tensor"
    ):
        LA.cholesky(torch.ones(3, 3, dtype=torch.int64))
    with pytest.raises(
        NotImplementedError, match="^linalg.inv: Low precision dtypes not supported. Got Half"
    ):
        LA.inv(torch.ones(3, 3, dtype=torch.float16))
    with pytest.raises(
        RuntimeError,
        match="^linalg.solve: Expected A and B to have the same dtype, but found A of type Double and B of type "
        "Float instead$",
    ):
        LA.solve(torch.eye(3, dtype=torch.float64), torch.ones(3, dtype=torch.float32))
    with pytest.raises(RuntimeError, match="^linalg.eig: A must be batches of square matrices"):
        LA.eig(torch.ones(2, 3))


# -------------------------------------------------------------------------------------------- gradients


def _sym(x):
    return x + x.transpose(-2, -1)


GRADS = {
    "solve": (lambda A, B: LA.solve(A, B), lambda: [well(2, 3, 3), rng.standard_normal((2, 3, 2))]),
    "solve_right": (
        lambda A, B: LA.solve(A, B, left=False),
        lambda: [well(3, 3), rng.standard_normal((2, 3))],
    ),
    "inv": (lambda A: LA.inv(A), lambda: [well(2, 3, 3)]),
    "det": (lambda A: LA.det(A), lambda: [well(2, 3, 3)]),
    "slogdet": (lambda A: LA.slogdet(A).logabsdet, lambda: [well(3, 3)]),
    "cholesky": (lambda A: LA.cholesky(_sym(A)), lambda: [spd(2, 3, 3)]),
    "cholesky_upper": (lambda A: LA.cholesky(_sym(A), upper=True), lambda: [spd(3, 3)]),
    "solve_triangular": (
        lambda A, B: LA.solve_triangular(A, B, upper=False),
        lambda: [np.tril(well(3, 3)), rng.standard_normal((3, 2))],
    ),
    "solve_triangular_right_unit": (
        lambda A, B: LA.solve_triangular(A, B, upper=True, left=False, unitriangular=True),
        lambda: [np.triu(well(3, 3)), rng.standard_normal((2, 3))],
    ),
    "qr_tall": (lambda A: LA.qr(A), lambda: [rng.standard_normal((5, 3))]),
    "qr_square": (lambda A: LA.qr(A), lambda: [rng.standard_normal((2, 3, 3))]),
    "qr_wide": (lambda A: LA.qr(A), lambda: [rng.standard_normal((3, 5))]),
    "eigh": (lambda A: LA.eigh(_sym(A)), lambda: [rng.standard_normal((2, 4, 4))]),
    "eigvalsh": (lambda A: LA.eigvalsh(_sym(A)), lambda: [rng.standard_normal((4, 4))]),
    "svd_tall": (lambda A: LA.svd(A, full_matrices=False), lambda: [rng.standard_normal((5, 3))]),
    "svd_wide": (lambda A: LA.svd(A, full_matrices=False), lambda: [rng.standard_normal((3, 5))]),
    "svdvals": (lambda A: LA.svdvals(A), lambda: [rng.standard_normal((2, 4, 3))]),
    "pinv": (lambda A: LA.pinv(A), lambda: [rng.standard_normal((4, 3))]),
    "lstsq": (
        lambda A, B: LA.lstsq(A, B).solution,
        lambda: [rng.standard_normal((5, 3)), rng.standard_normal((5, 2))],
    ),
    "matrix_exp": (lambda A: LA.matrix_exp(A), lambda: [rng.standard_normal((2, 3, 3))]),
    "cholesky_solve": (
        lambda B, L: torch.cholesky_solve(B, L.tril()),
        lambda: [rng.standard_normal((3, 2)), np.linalg.cholesky(spd(3, 3))],
    ),
}


def _outputs_for_gradcheck(fn):
    # gauge freedom: singular/eigen vectors are defined up to sign, so check sign-invariant functions of them
    def wrapped(*xs):
        out = fn(*xs)
        if isinstance(out, tuple) and len(out) == 3:  # svd: U diag(S) Vh and S
            U, S, Vh = out
            return U @ torch.diag_embed(S) @ Vh, S, (U * U), (Vh * Vh)
        if isinstance(out, tuple) and len(out) == 2 and out[0].dim() < out[1].dim():  # eigh: w and V V^T
            w, V = out
            return w, V @ V.transpose(-2, -1), V * V
        return out

    return wrapped


@pytest.mark.parametrize("name", sorted(GRADS))
def test_gradcheck(name):
    fn, make = GRADS[name]
    inputs = [T(a, grad=True) for a in make()]
    assert gradcheck(_outputs_for_gradcheck(fn), inputs, eps=1e-6, atol=1e-6, rtol=1e-5)


@pytest.mark.parametrize(
    "name", ["solve", "inv", "det", "cholesky", "solve_triangular", "slogdet", "qr_tall"]
)
def test_gradgradcheck(name):
    fn, make = GRADS[name]
    inputs = [T(a, grad=True) for a in make()]
    assert gradgradcheck(_outputs_for_gradcheck(fn), inputs, eps=1e-6, atol=1e-5, rtol=1e-4)


def test_det_gradient_at_a_singular_matrix():
    # rank n-1: d det / dA is the adjugate transposed, nonzero
    a = np.array([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [1.0, 0.0, 1.0]])
    A = T(a, grad=True)
    LA.det(A).backward()
    adj = np.array(
        [
            [np.linalg.det(np.delete(np.delete(a, i, 0), j, 1)) * (-1) ** (i + j) for j in range(3)]
            for i in range(3)
        ]
    )
    close(A.grad, adj, tol=1e-8)


def test_qr_and_svd_backward_errors():
    A = T(rng.standard_normal((4, 3)), grad=True)
    with pytest.raises(
        RuntimeError, match="The derivative of linalg.qr depends on Q, which is not computed when mode='r'"
    ):
        LA.qr(A, mode="r").R.sum().backward()
    with pytest.raises(
        RuntimeError,
        match="The QR decomposition is not differentiable when mode='complete' and nrows > ncols",
    ):
        Q, R = LA.qr(A, mode="complete")
        (Q.sum() + R.sum()).backward()


# ------------------------------------------------------------------------- non-finite input, old spellings


def test_non_finite_input_never_reaches_lapack():
    # LAPACK's iterative drivers can loop forever on inf/NaN: such matrices come back NaN (an SVD of NaN raises,
    # as PyTorch's does) instead of hanging
    a = np.array([[np.inf, 1.0], [1.0, 2.0]])
    S = LA.svdvals(T(a))
    assert np.isnan(N(S)).all()
    assert np.isnan(N(LA.svd(T(np.stack([np.eye(2), a]))).S[1])).all()
    with pytest.raises(
        LA.LinAlgError, match="failed to converge because the input matrix contained non-finite"
    ):
        LA.svd(T(np.array([[np.nan, 1.0], [1.0, 2.0]])))
    w, V = LA.eigh(T(np.array([[np.nan, 1.0], [1.0, 2.0]])))
    assert np.isnan(N(w)).all() and np.isnan(N(V)).all()
    good = well(2, 2)
    w2 = LA.eigvalsh(T(np.stack([good + good.T, a])))
    close(w2[0], np.linalg.eigvalsh(good + good.T))
    for driver in ["gelsy", "gelsd", "gelss"]:
        assert np.isnan(N(LA.lstsq(T(a), T(np.ones((2, 1))), driver=driver).solution)).all()


def test_older_positional_forms_and_removed_functions():
    d = np.diag([1.0, 0.4, 1e-3])
    assert int(LA.matrix_rank(T(d), 0.01)) == 2  # positional tol: absolute
    close(LA.pinv(T(d), 0.01), np.diag([1.0, 2.5, 0.0]))  # positional rcond: relative
    with pytest.raises(
        RuntimeError,
        match=r"`torch.qr` is deprecated in favor of `torch.linalg.qr`[\s\S]*use mode='complete'",
    ):
        torch.qr(T(np.eye(2)), False)
    with pytest.raises(RuntimeError, match="now removed. `torch.cholesky` is deprecated in favor of"):
        T(np.eye(2)).cholesky()
    for name in ["symeig", "eig", "matrix_rank"]:
        with pytest.raises(
            RuntimeError, match="This function was deprecated since version 1.9 and is now removed"
        ):
            getattr(torch, name)(T(np.eye(2)))
    with pytest.warns(UserWarning, match="torch.lu is deprecated in favor of torch.linalg.lu_factor"):
        LU, piv = torch.lu(T(np.eye(2) * 2))
    assert piv.tolist() == [1, 2]
    close(LU, np.eye(2) * 2)
    with pytest.warns(UserWarning, match="torch.triangular_solve is deprecated"):
        torch.triangular_solve(T(np.ones((2, 1))), T(np.eye(2)))
    with pytest.raises(RuntimeError, match="use mode='reduced'"):  # whatever the arguments, as PyTorch's
        torch.qr([1, 2], 0.5)
    with pytest.raises(
        TypeError, match=r"linalg_qr\(\): argument 'mode' \(position 2\) must be str, not int"
    ):
        LA.qr(T(np.eye(2)), 2)
    with pytest.raises(
        TypeError, match=r"linalg_lu_solve\(\): argument 'pivots' \(position 2\) must be Tensor"
    ):
        LA.lu_solve(T(np.eye(2)), 2, T(np.eye(2)))
    with pytest.raises(NotImplementedError, match="linalg.solve: Expected a floating point"):
        LA.solve(torch.tensor(2), torch.tensor([1, 2]))  # the dtype before the shape, as PyTorch's solve
    with pytest.raises(ValueError, match="linalg.cond got an invalid norm type: 4"):
        LA.cond(T(np.eye(2)), 4)


def test_lu_gradient_and_cond_of_empty():
    a = well(2, 3, 3)
    A = T(a, grad=True)
    assert gradcheck(lambda x: LA.lu(x)[1:], [A], eps=1e-6, atol=1e-6, rtol=1e-5)
    assert gradcheck(lambda x: LA.lu_factor(x).LU, [A], eps=1e-6, atol=1e-6, rtol=1e-5)
    assert not LA.lu_factor(A).pivots.requires_grad
    for shape in [(4, 3), (3, 5), (2, 2, 4)]:  # tall, wide, batched wide
        R = T(rng.standard_normal(shape), grad=True)
        assert gradcheck(lambda x: LA.lu(x)[1:], [R], eps=1e-6, atol=1e-6, rtol=1e-5)
        assert gradcheck(lambda x: LA.lu_factor(x).LU, [R], eps=1e-6, atol=1e-6, rtol=1e-5)
    assert LA.cond(torch.empty(3, 0, 0, dtype=torch.float64)).tolist() == [0.0, 0.0, 0.0]


def test_removed_and_lowrank_functions_fail_as_pytorchs_python():
    """torch.eig/symeig/matrix_rank keep PyTorch's Python signatures (a call that does not fit is Python's
    TypeError, naming the function as PyTorch's); svd_lowrank/pca_lowrank unpack A's last two dims as PyTorch's
    Python does (its ValueError), draw their basis in a float dtype and refuse integer inputs there (issue 34)"""
    e = T(np.eye(2))
    cases = [
        (lambda: torch.eig(e, p=3), TypeError, "eig() got an unexpected keyword argument 'p'"),
        (lambda: torch.eig(e, 1, 2), TypeError, "eig() takes from 1 to 2 positional arguments but 3 were given"),
        (lambda: torch.symeig(e, 1, 2, 3), TypeError, "_symeig() takes from 1 to 3 positional arguments but 4 were given"),
        (lambda: torch.matrix_rank(e, hermitian=True), TypeError,
         "matrix_rank() got an unexpected keyword argument 'hermitian'"),
        (lambda: torch.svd_lowrank(T(np.ones(5)), 2), ValueError, "not enough values to unpack (expected 2, got 1)"),
        (lambda: torch.pca_lowrank(torch.tensor(-0.9), 4, 4), ValueError, "not enough values to unpack (expected 2, got 0)"),
        (lambda: torch.pca_lowrank(T(np.ones((3, 3))), 4), ValueError,
         "q(=4) must be non-negative integer and not greater than min(m, n)=3"),
        (lambda: torch.svd_lowrank(torch.ones(4, 3, dtype=torch.int64), 2), RuntimeError,
         "expected m1 and m2 to have the same dtype, but got: long int != float"),
        (lambda: torch.svd_lowrank(torch.ones(4, 3, dtype=torch.uint8), 1e30), TypeError, ""),
        (lambda: torch.linalg.eigvalsh(e, 1), TypeError, "linalg_eigvalsh(): argument 'UPLO' (position 2) must be str, not int"),
        (lambda: torch.linalg.eigh(e, UPLO=None), TypeError, "linalg_eigh(): argument 'UPLO' must be str, not NoneType"),
    ]  # fmt: skip
    for call, cls, msg in cases:
        with pytest.raises(cls) as err:
            call()
        assert type(err.value) is cls and msg in str(err.value), (msg, err.value)
    # a bool q is an int there; niter=None the default
    rng = np.random.default_rng(5)
    a = rng.standard_normal((6, 2)) @ rng.standard_normal((2, 5))
    U, S, V = torch.pca_lowrank(T(a), True)
    assert U.shape == (6, 1) and S.shape == (1,) and V.shape == (5, 1)
    U, S, V = torch.svd_lowrank(T(a), 2, None)
    np.testing.assert_allclose(S.numpy(), np.linalg.svd(a, compute_uv=False)[:2], rtol=1e-8)


def test_slogdet_real_sign_requires_grad_with_zero_gradient():
    # PyTorch: the sign output of a real slogdet requires grad (so a loss may use it) and contributes nothing
    A = torch.tensor([[2.0, 1.0], [1.0, -3.0]], dtype=torch.float64, requires_grad=True)
    sign, logabs = torch.linalg.slogdet(A)
    assert sign.requires_grad and logabs.requires_grad and sign.item() == -1.0
    (sign * 5 + logabs).backward()
    np.testing.assert_allclose(A.grad.numpy(), np.linalg.inv(A.detach().numpy()).T, rtol=1e-12)


def test_geqrf_negative_zero_leading_entry_as_pytorch():
    # the reflector's sign follows sign(alpha): -0.0 counts as positive, as in PyTorch's (MKL's) geqrf
    A = torch.tensor([[-0.0], [0.0], [3.0], [-4.0]], dtype=torch.float64)
    a, tau = torch.geqrf(A)
    assert a[0, 0].item() == -5.0 and tau.item() == 1.0
    Q, R = torch.linalg.qr(A)
    np.testing.assert_allclose((Q @ R).numpy(), A.numpy(), atol=1e-15)
    assert R.item() == -5.0


@pytest.mark.parametrize("dtype", [torch.float64, torch.complex128])
@pytest.mark.parametrize("shape", [(5, 3), (3, 5), (2, 4, 4)])
def test_ormqr_multiplies_by_the_geqrf_q(dtype, shape):
    rng = np.random.default_rng(7)
    a = rng.standard_normal(shape)
    if dtype == torch.complex128:
        a = a + 1j * rng.standard_normal(shape)
    A = torch.tensor(a, dtype=dtype)
    g, tau = torch.geqrf(A)
    m = shape[-2]
    Q = np.linalg.qr(a, mode="complete")[0]
    # geqrf's Q may differ from NumPy's by column signs (phases): recover it from R's diagonal convention by
    # applying ormqr to the identity, then check Q is unitary and reproduces A with geqrf's R
    eye = torch.eye(m, dtype=dtype).expand(*shape[:-2], m, m).contiguous()
    q = torch.ormqr(g, tau, eye).numpy()
    r = np.triu(g.numpy())[..., : min(shape[-2:]), :]
    np.testing.assert_allclose(q[..., : r.shape[-2]] @ r, a, atol=1e-10)
    np.testing.assert_allclose(
        np.swapaxes(q, -1, -2).conj() @ q, np.broadcast_to(np.eye(m), q.shape), atol=1e-10
    )
    assert Q.shape == q.shape
    c = torch.tensor(rng.standard_normal((*shape[:-2], m, 2)), dtype=dtype)
    np.testing.assert_allclose(torch.ormqr(g, tau, c).numpy(), q @ c.numpy(), atol=1e-10)
    np.testing.assert_allclose(
        torch.ormqr(g, tau, c, transpose=True).numpy(), np.swapaxes(q, -1, -2).conj() @ c.numpy(), atol=1e-10
    )
    ct = c.mT.contiguous()
    np.testing.assert_allclose(g.ormqr(tau, ct, left=False).numpy(), ct.numpy() @ q, atol=1e-10)
    assert gradcheck(lambda x: torch.ormqr(g, tau, x, transpose=True), (c.clone().requires_grad_(),))


def test_ormqr_errors_are_pytorchs():
    A = torch.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    g, tau = torch.geqrf(A)
    C = torch.arange(6.0).reshape(3, 2)
    cases = [
        (lambda: torch.ormqr(torch.ones(3), tau, C), RuntimeError, "torch.ormqr: input must have at least 2 dimensions."),
        (lambda: torch.ormqr(g, tau, torch.ones(3)), RuntimeError, "torch.ormqr: other must have at least 2 dimensions."),
        (lambda: torch.ormqr(g, tau, torch.ones(2, 2)), RuntimeError, "torch.ormqr: other.shape[-2] must be equal to input.shape[-2]"),
        (lambda: torch.ormqr(g, tau[:1], C), RuntimeError, "torch.ormqr: tau.shape[-1] must be equal to min(other.shape[-2], input.shape[-1])"),
        (lambda: torch.ormqr(g, tau.expand(2, 2), C), RuntimeError, "torch.ormqr: Expected tau to have one dimension less than input, but got tau.ndim equal to 2 and input.ndim is equal to 2"),
        (lambda: torch.ormqr(g.expand(2, 3, 2), tau.expand(2, 2), C), RuntimeError, "torch.ormqr: Expected other to have the same number of dimensions as input, but got other.ndim equal to 2 and input.ndim is equal to 3"),
        (lambda: torch.ormqr(g.expand(2, 3, 2), tau.expand(2, 2), C.expand(3, 3, 2)), RuntimeError, "torch.ormqr: Expected batch dimensions of other to be equal to input.shape[:-2], but got [3]"),
        (lambda: torch.ormqr(g, tau.double(), C), RuntimeError, "torch.ormqr: Expected input and tau to have the same dtype, but input has dtypeFloat and tau has dtype Double"),
        (lambda: torch.ormqr(g, tau, C.double()), RuntimeError, "torch.ormqr: Expected input and other to have the same dtype, but input has dtypeFloat and other has dtype Double"),
        (lambda: torch.ormqr(g.int(), tau.int(), C.int()), NotImplementedError, "\"ormqr_cpu\" not implemented for 'Int'"),
    ]  # fmt: skip
    for call, cls, msg in cases:
        with pytest.raises(cls) as e:
            call()
        assert type(e.value) is cls and str(e.value).startswith(msg), (msg, str(e.value))


def test_torch_matrix_power_spelling():
    M = torch.tensor([[2.0, 1.0], [0.0, 1.0]], dtype=torch.float64)
    m = M.numpy()
    np.testing.assert_allclose(torch.matrix_power(M, 3).numpy(), np.linalg.matrix_power(m, 3))
    np.testing.assert_allclose(M.matrix_power(-2).numpy(), np.linalg.matrix_power(m, -2))
    np.testing.assert_allclose(torch.matrix_power(M, 0).numpy(), np.eye(2))
    with pytest.raises(
        TypeError, match=r"^matrix_power\(\): argument 'n' \(position 2\) must be int, not float$"
    ):
        torch.matrix_power(M, 2.5)
    with pytest.raises(
        TypeError, match=r"^matrix_power\(\): argument 'n' \(position 1\) must be int, not float$"
    ):
        M.matrix_power(2.5)
    with pytest.raises(TypeError, match=r"^linalg_matrix_power\(\): argument 'n' \(position 2\)"):
        torch.linalg.matrix_power(M, 2.5)
    with pytest.raises(
        RuntimeError, match="linalg.matrix_power: The input tensor A must have at least 2 dimensions."
    ):
        torch.matrix_power(torch.ones(3), 2)
    with pytest.raises(
        RuntimeError, match="A must be batches of square matrices, but they are 2 by 3 matrices"
    ):
        torch.matrix_power(torch.ones(2, 3), 2)


def test_geqrf_records_a_backward_that_raises():
    # as PyTorch: the results require grad and a gradient through them fails (it was silently left out)
    a = torch.randn(3, 2, dtype=torch.float64, requires_grad=True)
    g, tau = torch.geqrf(a)
    assert g.requires_grad and tau.requires_grad
    with pytest.raises(NotImplementedError, match=r"^the derivative for 'geqrf' is not implemented\.$"):
        (g.sum() + tau.sum()).backward()
    with torch.no_grad():
        assert not torch.geqrf(a)[0].requires_grad
    assert not torch.geqrf(a.detach()).a.requires_grad


def test_lstsq_rank_errors():
    """PyTorch's order: input's rank, then other's (a 0-d right-hand side is refused, not indexed)."""
    fn = "torch.linalg.lstsq"
    with pytest.raises(RuntimeError, match=rf"^{fn}: input must have at least 2 dimensions.$"):
        LA.lstsq(torch.ones(3), torch.tensor(2.5))
    for b in (torch.tensor(2.5), torch.tensor(2)):
        with pytest.raises(RuntimeError, match=rf"^{fn}: other must have at least 1 dimension.$"):
            LA.lstsq(torch.ones(2, 3), b)
