"""torch.linalg.ldl_factor(_ex) / ldl_solve: LD, pivots and info against LAPACK's sytrf (SciPy) and PyTorch,
reconstruction of A from them, solves against numpy.linalg.solve, batches, empty inputs and the errors."""

import json
import os
import subprocess

import numpy as np
import pytest

import minitorch as torch

lapack = pytest.importorskip("scipy.linalg.lapack")
LA = torch.linalg


def _sym(n, seed, kind="indefinite"):
    rng = np.random.default_rng(seed)
    a = rng.standard_normal((n, n))
    if kind == "spd":
        return a @ a.T + n * np.eye(n)
    a = a + a.T
    if kind == "zero_diagonal":  # forces 2x2 pivots
        a[np.diag_indices(n)] = 0.0
    return a


def _reconstruct(LD, piv):
    """P1 L1 P2 L2 ... D ... L2^T P2^T L1^T P1^T from sytrf's lower-triangle format (NumPy)."""
    n = LD.shape[0]
    M, D = np.eye(n), np.zeros((n, n))
    k = 0
    while k < n:
        step = 1 if piv[k] > 0 else 2
        kp = abs(piv[k]) - 1
        P = np.eye(n)
        kk = k + step - 1
        P[[kk, kp]] = P[[kp, kk]]
        L = np.eye(n)
        L[k + step :, k : k + step] = LD[k + step :, k : k + step]
        D[k : k + step, k : k + step] = LD[k : k + step, k : k + step]
        if step == 2:
            D[k, k + 1] = D[k + 1, k]
        M = M @ P @ L
        k += step
    return M @ D @ M.T


@pytest.mark.parametrize("n", [1, 2, 3, 6, 17, 70])
@pytest.mark.parametrize("kind", ["indefinite", "zero_diagonal", "spd"])
@pytest.mark.parametrize("dtype", [torch.float64, torch.float32])
def test_against_lapack_sytrf(n, kind, dtype):
    if kind == "zero_diagonal" and n == 1:
        pytest.skip("a 1x1 zero matrix is singular")
    a = _sym(n, n * 7 + len(kind))
    if kind != "indefinite":
        a = _sym(n, n * 7 + len(kind), kind)
    fn = lapack.dsytrf if dtype == torch.float64 else lapack.ssytrf
    lu, ipiv, info = fn(a.astype(np.float64 if dtype == torch.float64 else np.float32), lower=1)
    LD, piv, inf = LA.ldl_factor_ex(torch.tensor(a, dtype=dtype))
    assert (
        LD.dtype == dtype
        and piv.dtype == torch.int32
        and inf.dtype == torch.int32
        and inf.item() == info == 0
    )
    np.testing.assert_array_equal(piv.numpy(), ipiv)
    tol = 1e-10 if dtype == torch.float64 else 2e-3
    np.testing.assert_allclose(LD.numpy(), np.tril(lu), rtol=tol, atol=tol)
    np.testing.assert_allclose(_reconstruct(LD.double().numpy(), piv.tolist()), a, rtol=tol, atol=tol * n)
    b = np.random.default_rng(n).standard_normal((n, 3))
    x = LA.ldl_solve(LD, piv, torch.tensor(b, dtype=dtype))
    assert x.dtype == dtype
    np.testing.assert_allclose(x.numpy(), np.linalg.solve(a, b), rtol=tol * 10, atol=tol * 10)


def test_reads_the_lower_triangle_only():
    a = _sym(5, 3)
    junk = np.tril(a) + np.triu(np.full((5, 5), 99.0), 1)
    LD, piv = LA.ldl_factor(torch.tensor(junk))
    LD2, piv2 = LA.ldl_factor(torch.tensor(a))
    assert torch.equal(LD, LD2) and torch.equal(piv, piv2)
    assert (LD.triu(1) == 0).all()


def test_batched_noncontiguous_and_empty():
    mats = np.stack([_sym(4, s) for s in range(6)]).reshape(2, 3, 4, 4)
    A = torch.tensor(mats).transpose(-2, -1)  # symmetric, so the same matrices, read through strides
    LD, piv = LA.ldl_factor(A)
    assert LD.shape == (2, 3, 4, 4) and piv.shape == (2, 3, 4)
    for i in range(2):
        for j in range(3):
            lu, ipiv, _ = lapack.dsytrf(mats[i, j], lower=1)
            np.testing.assert_array_equal(piv[i, j].numpy(), ipiv)
            np.testing.assert_allclose(LD[i, j].numpy(), np.tril(lu), atol=1e-12)
    B = np.random.default_rng(0).standard_normal((3, 4, 2))  # broadcasts against the (2, 3) batch
    X = LA.ldl_solve(LD, piv, torch.tensor(B))
    assert X.shape == (2, 3, 4, 2)
    np.testing.assert_allclose(X.numpy(), np.linalg.solve(mats, np.broadcast_to(B, (2, 3, 4, 2))), atol=1e-10)
    X1 = LA.ldl_solve(LD[0, 0], piv[0, 0].long(), torch.tensor(B[0]))  # int64 pivots are accepted too
    np.testing.assert_allclose(X1.numpy(), np.linalg.solve(mats[0, 0], B[0]), atol=1e-10)
    e = LA.ldl_factor(torch.ones(0, 3, 3))
    assert e.LD.shape == (0, 3, 3) and e.pivots.shape == (0, 3) and e.pivots.dtype == torch.int32
    e = LA.ldl_factor_ex(torch.ones(0, 0))
    assert e.LD.shape == (0, 0) and e.pivots.shape == (0,) and e.info.item() == 0
    assert LA.ldl_solve(LD, piv, torch.ones(4, 0, dtype=torch.float64)).shape == (2, 3, 4, 0)


def test_singular_info_and_errors():
    r = LA.ldl_factor_ex(torch.zeros(3, 3))
    assert r.info.item() == 1 and r.pivots.tolist() == [1, 2, 3]
    r = LA.ldl_factor_ex(torch.tensor([[1.0, 0, 0], [0, 0, 0], [0, 0, 1]]))
    assert r.info.item() == 2 and r.LD.tolist() == [[1, 0, 0], [0, 0, 0], [0, 0, 1]]
    with pytest.raises(RuntimeError, match="torch.linalg.ldl_factor: .*singular"):
        LA.ldl_factor(torch.zeros(3, 3))
    with pytest.raises(RuntimeError, match="torch.linalg.ldl_factor_ex: .*singular"):
        LA.ldl_factor_ex(torch.zeros(2, 3, 3), check_errors=True)
    with pytest.raises(
        RuntimeError, match="torch.linalg.ldl_factor_ex: The input tensor A must have at least 2 "
    ):
        LA.ldl_factor(torch.ones(3))
    with pytest.raises(
        RuntimeError, match="A must be batches of square matrices, but they are 3 by 4 matrices"
    ):
        LA.ldl_factor(torch.ones(3, 4))
    with pytest.raises(
        NotImplementedError, match="Expected a floating point or complex tensor as input. Got Long"
    ):
        LA.ldl_factor(torch.ones(3, 3, dtype=torch.int64))
    with pytest.raises(NotImplementedError, match="\"ldl_factor_kernel_cpu\" not implemented for 'Half'"):
        LA.ldl_factor(torch.ones(3, 3, dtype=torch.float16))
    LD, piv = LA.ldl_factor(torch.tensor(_sym(5, 0)))
    o = lambda *s: torch.ones(*s, dtype=torch.float64)
    with pytest.raises(
        RuntimeError, match="Expected b and A to have the same dtype, but found b of type Float and A "
    ):
        LA.ldl_solve(LD, piv, torch.ones(5, 1))
    with pytest.raises(
        IndexError, match=r"Dimension out of range \(expected to be in range of \[-1, 0\], but got -2\)"
    ):
        LA.ldl_solve(LD, piv, o(5))
    with pytest.raises(RuntimeError, match="each A matrix is 5 by 5 but each b matrix is 4 by 1"):
        LA.ldl_solve(LD, piv, o(4, 1))
    with pytest.raises(
        RuntimeError, match="torch.linalg.ldl_solve: Expected pivots to be integers. Got Float"
    ):
        LA.ldl_solve(LD, piv.float(), o(5, 1))
    with pytest.raises(
        RuntimeError, match=r"Expected LD.shape\[:-1\] and pivots.shape to be the same, but got "
    ):
        LA.ldl_solve(LD, piv[:4], o(5, 1))
    with pytest.raises(
        RuntimeError, match="torch.linalg.ldl_solve: The input tensor A must have at least 2 "
    ):
        LA.ldl_solve(LD[0], piv, o(5, 1))


def test_against_pytorch():
    py = os.environ.get("MINITORCH_ORACLE_PYTHON")
    if not py or not os.path.exists(py):
        pytest.skip("no PyTorch to compare with: set MINITORCH_ORACLE_PYTHON to a Python that imports torch")
    mats = [_sym(n, n, kind).tolist() for n in (2, 5, 9) for kind in ("indefinite", "zero_diagonal", "spd")]
    script = (
        "import json, sys, torch\nout = []\n"
        "for a in json.loads(sys.stdin.read()):\n"
        "    LD, piv = torch.linalg.ldl_factor(torch.tensor(a, dtype=torch.float64))\n"
        "    x = torch.linalg.ldl_solve(LD, piv, torch.arange(len(a) * 2.0, dtype=torch.float64).reshape(-1, 2))\n"
        "    out.append([LD.tolist(), piv.tolist(), x.tolist()])\n"
        "print(json.dumps(out))\n"
    )
    res = subprocess.run(
        [py, "-c", script], input=json.dumps(mats), capture_output=True, text=True, timeout=300, check=False
    )
    assert res.returncode == 0, res.stderr
    for a, (ld, piv, x) in zip(mats, json.loads(res.stdout.strip().splitlines()[-1])):
        LD, p = LA.ldl_factor(torch.tensor(a, dtype=torch.float64))
        assert p.tolist() == piv
        np.testing.assert_allclose(LD.numpy(), ld, atol=1e-12)
        b = torch.arange(len(a) * 2.0, dtype=torch.float64).reshape(-1, 2)
        np.testing.assert_allclose(LA.ldl_solve(LD, p, b).numpy(), x, atol=1e-10)


def _complex_sym(n, seed, hermitian):
    rng = np.random.default_rng(seed)
    a = rng.standard_normal((n, n)) + 1j * rng.standard_normal((n, n))
    return a + a.conj().T if hermitian else a + a.T


@pytest.mark.parametrize("n", [1, 4, 9])
@pytest.mark.parametrize("hermitian", [False, True])
@pytest.mark.parametrize("dtype", [torch.complex128, torch.complex64])
def test_complex_symmetric_and_hermitian_against_lapack(n, hermitian, dtype):
    a = _complex_sym(n, n + 3 * hermitian, hermitian)
    npdt = np.complex128 if dtype == torch.complex128 else np.complex64
    fn = {
        (False, torch.complex128): lapack.zsytrf,
        (False, torch.complex64): lapack.csytrf,
        (True, torch.complex128): lapack.zhetrf,
        (True, torch.complex64): lapack.chetrf,
    }[(hermitian, dtype)]
    lu, ipiv, info = fn(a.astype(npdt), lower=1)
    LD, piv, inf = LA.ldl_factor_ex(torch.tensor(a, dtype=dtype), hermitian=hermitian)
    assert LD.dtype == dtype and inf.item() == info == 0
    np.testing.assert_array_equal(piv.numpy(), ipiv)
    tol = 1e-10 if dtype == torch.complex128 else 1e-3
    np.testing.assert_allclose(LD.numpy(), np.tril(lu), rtol=tol, atol=tol)
    b = np.random.default_rng(n).standard_normal((n, 2)) + 0.5j
    x = LA.ldl_solve(LD, piv, torch.tensor(b, dtype=dtype), hermitian=hermitian)
    np.testing.assert_allclose(x.numpy(), np.linalg.solve(a, b), rtol=tol * 10, atol=tol * 10)


def test_solve_refuses_pivots_that_would_index_outside():
    LD, piv = LA.ldl_factor(torch.tensor(_sym(4, 1)))
    b = torch.ones(4, 1, dtype=torch.float64)
    for bad in (0, 5, -5):
        p = piv.clone()
        p[1] = bad
        with pytest.raises(RuntimeError, match="pivots must be LAPACK's sytrf pivots"):
            LA.ldl_solve(LD, p, b)


def test_complex_against_pytorch():
    py = os.environ.get("MINITORCH_ORACLE_PYTHON")
    if not py or not os.path.exists(py):
        pytest.skip("no PyTorch to compare with: set MINITORCH_ORACLE_PYTHON to a Python that imports torch")
    cases = [(n, h) for n in (3, 6) for h in (False, True)]
    mats = [_complex_sym(n, 40 + n, h) for n, h in cases]
    payload = [[a.real.tolist(), a.imag.tolist(), h] for a, (_, h) in zip(mats, cases)]
    script = (
        "import json, sys, torch\nout = []\n"
        "for re, im, h in json.loads(sys.stdin.read()):\n"
        "    a = torch.complex(torch.tensor(re, dtype=torch.float64), torch.tensor(im, dtype=torch.float64))\n"
        "    LD, piv = torch.linalg.ldl_factor(a, hermitian=h)\n"
        "    x = torch.linalg.ldl_solve(LD, piv, torch.ones(a.shape[0], 1, dtype=a.dtype), hermitian=h)\n"
        "    out.append([LD.real.tolist(), LD.imag.tolist(), piv.tolist(), x.real.tolist(), x.imag.tolist()])\n"
        "print(json.dumps(out))\n"
    )
    res = subprocess.run(
        [py, "-c", script],
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert res.returncode == 0, res.stderr
    for a, (_, h), (ldr, ldi, piv, xr, xi) in zip(
        mats, cases, json.loads(res.stdout.strip().splitlines()[-1])
    ):
        LD, p = LA.ldl_factor(torch.tensor(a), hermitian=h)
        assert p.tolist() == piv
        np.testing.assert_allclose(LD.numpy(), np.array(ldr) + 1j * np.array(ldi), atol=1e-12)
        x = LA.ldl_solve(LD, p, torch.ones(a.shape[0], 1, dtype=torch.complex128), hermitian=h)
        np.testing.assert_allclose(x.numpy(), np.array(xr) + 1j * np.array(xi), atol=1e-10)
