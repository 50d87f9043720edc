"""torch.lobpcg against numpy.linalg.eigh / scipy.linalg.eigh: extreme eigenpairs of SPD and generalized
problems, batches, a sparse A, float32, a preconditioner, gradients by gradcheck, and PyTorch's errors."""

import numpy as np
import pytest

import minitorch as torch
from minitorch.autograd import gradcheck


def _spd(m, seed):
    a = np.random.default_rng(seed).standard_normal((m, m))
    return a @ a.T + np.eye(m)


def _check_pairs(a, E, X, ref, b=None, tol=1e-7):
    E, X = E.numpy(), X.numpy()
    np.testing.assert_allclose(E, ref, rtol=tol)
    bx = X if b is None else b @ X
    np.testing.assert_allclose(a @ X, bx * E, atol=tol * 100 * np.abs(ref).max())
    np.testing.assert_allclose(X.T @ bx, np.eye(X.shape[1]), atol=1e-10)


@pytest.mark.parametrize("m, k, n", [(12, 1, None), (30, 3, None), (50, 4, 7), (120, 5, None)])
@pytest.mark.parametrize("largest", [True, False])
def test_against_eigh(m, k, n, largest):
    a = _spd(m, m + k)
    w = np.linalg.eigvalsh(a)
    torch.manual_seed(0)
    E, X = torch.lobpcg(torch.tensor(a), k=k, n=n, largest=largest)
    assert E.shape == (k,) and X.shape == (m, k) and E.dtype == torch.float64
    _check_pairs(a, E, X, w[::-1][:k] if largest else w[:k])


def test_generalized_batched_sparse_float32_and_preconditioner():
    scipy_linalg = pytest.importorskip("scipy.linalg")
    a, b = _spd(24, 1), _spd(24, 2)
    E, X = torch.lobpcg(torch.tensor(a), k=2, B=torch.tensor(b))
    _check_pairs(a, E, X, scipy_linalg.eigh(a, b, eigvals_only=True)[::-1][:2], b=b)
    # batches, each with its own start
    mats = np.stack([_spd(15, s) for s in range(6)]).reshape(2, 3, 15, 15)
    X0 = torch.tensor(np.random.default_rng(0).standard_normal((2, 3, 15, 2)))
    E, X = torch.lobpcg(torch.tensor(mats), X=X0, largest=False)
    assert E.shape == (2, 3, 2) and X.shape == (2, 3, 15, 2)
    for i in range(2):
        for j in range(3):
            _check_pairs(mats[i, j], E[i, j], X[i, j], np.linalg.eigvalsh(mats[i, j])[:2])
    # a sparse 1-D Laplacian, whose eigenvalues are known in closed form
    m = 40
    diags = torch.tensor(np.stack([np.full(m, 2.0), np.full(m, -1.0), np.full(m, -1.0)]))
    L = torch.sparse.spdiags(diags, torch.tensor([0, -1, 1]), (m, m))
    E, X = torch.lobpcg(L, k=3, largest=True)
    exact = 2 - 2 * np.cos(np.pi * np.arange(m, 0, -1) / (m + 1))
    np.testing.assert_allclose(E.numpy(), exact[:3], rtol=1e-7)
    # float32 with its own default tolerance
    E32, X32 = torch.lobpcg(torch.tensor(a, dtype=torch.float32), k=2)
    assert E32.dtype == torch.float32 and X32.dtype == torch.float32
    np.testing.assert_allclose(E32.numpy(), np.linalg.eigvalsh(a)[::-1][:2], rtol=1e-3)
    # an exact inverse as preconditioner converges all the same
    iK = torch.tensor(np.linalg.inv(a))
    E, X = torch.lobpcg(torch.tensor(a), k=2, iK=iK, largest=False)
    _check_pairs(a, E, X, np.linalg.eigvalsh(a)[:2])


def test_gradients():
    m = 9
    A = torch.tensor(_spd(m, 5), requires_grad=True)
    X0 = torch.tensor(np.random.default_rng(3).standard_normal((m, 2)))
    assert gradcheck(lambda t: torch.lobpcg(t, X=X0, tol=1e-13, niter=-1)[0], (A,), atol=1e-5)

    # eigenvectors through a sign-free function of them
    def projector(t):
        X = torch.lobpcg(t, X=X0, tol=1e-13, niter=-1, largest=False)[1]
        return X @ X.T

    assert gradcheck(projector, (A,), atol=1e-5)
    E, _ = torch.lobpcg(A, X=X0, tol=1e-13)
    E.sum().backward()
    assert torch.allclose(A.grad, A.grad.T)  # symmetric, as PyTorch makes it


def test_errors():
    a = torch.tensor(_spd(8, 0))
    with pytest.raises(ValueError, match=r"LOBPCG algorithm is not applicable when the number of A rows \(=8\) is "
                       r"smaller than 3 x the number of requested eigenpairs \(=3\)"):  # fmt: skip
        torch.lobpcg(a, k=3)
    with pytest.raises(AssertionError, match="A must be square"):
        torch.lobpcg(torch.ones(8, 9, dtype=torch.float64))
    with pytest.raises(AssertionError, match="A and B must have same shape"):
        torch.lobpcg(a, B=torch.eye(7, dtype=torch.float64))
    # as PyTorch: the forward takes a B beside an A that requires grad, the backward refuses it
    E, _ = torch.lobpcg(a.clone().requires_grad_(), B=torch.eye(8, dtype=torch.float64))
    with pytest.raises(ValueError, match=r"lobpcg.backward does not support backward with B != I yet."):
        E.sum().backward()


def test_against_pytorch():
    import json
    import os
    import subprocess

    py = os.environ.get("MINITORCH_ORACLE_PYTHON")
    if not py or not os.path.exists(py):
        pytest.skip("no PyTorch to compare with: set MINITORCH_ORACLE_PYTHON to a Python that imports torch")
    a = _spd(20, 11)
    script = (
        "import json, sys, torch\na = torch.tensor(json.loads(sys.stdin.read()), dtype=torch.float64, requires_grad=True)\n"
        "E, X = torch.lobpcg(a, k=2, largest=False)\nE.sum().backward()\n"
        "print(json.dumps([E.tolist(), a.grad.tolist()]))\n"
    )
    res = subprocess.run([py, "-c", script], input=json.dumps(a.tolist()), capture_output=True, text=True,
                         timeout=300, check=False)  # fmt: skip
    assert res.returncode == 0, res.stderr
    E_ref, grad_ref = json.loads(res.stdout.strip().splitlines()[-1])
    A = torch.tensor(a, requires_grad=True)
    E, _ = torch.lobpcg(A, k=2, largest=False, tol=1e-12, niter=-1)
    E.sum().backward()
    np.testing.assert_allclose(E.detach().numpy(), E_ref, rtol=1e-8)
    np.testing.assert_allclose(A.grad.numpy(), grad_ref, atol=1e-4)
