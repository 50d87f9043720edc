"""torch.lobpcg: the k extreme eigenpairs of a symmetric (generalized) eigenproblem by LOBPCG, over our linalg.

One iteration scheme serves method="ortho" and "basic": the Rayleigh-Ritz step runs on a B-orthonormal basis of
[X, W, P] (X and its residuals W, preconditioned by iK, and the previous search directions P), with W and P
B-orthogonalized against X and made B-orthonormal by SVQB, dropping the directions that have become
dependent. This is the robust variant of [DuerschEtal2018] that PyTorch's "ortho" implements; the stopping rule
is PyTorch's backward-stable one. A is used only through A @ X, so a sparse A works. Gradients: for a dense
symmetric A, as PyTorch's (eigenvalues and eigenvectors; not with B)."""

import math

from minitorch import _C
from minitorch.autograd.function import Function
from minitorch.autograd.grad_mode import no_grad
from minitorch.linalg import _decomp, vector_norm

__all__ = ["lobpcg"]

_FEPS = {_C.float32: 1.2e-07, _C.float64: 2.23e-16}


def _mT(x):
    return x.transpose(-2, -1)


def _svqb(B, U, drop_tol):
    """A B-orthonormal basis of the columns of U, without the directions whose B-Gram eigenvalue falls below
    drop_tol times the largest (Stathopoulos-Wu's SVQB)."""
    if U.shape[-1] == 0:
        return U
    BU = U if B is None else B @ U
    d = (U * BU).sum(0)
    keep = d > (d.max() * drop_tol**2 if d.numel() else 0)
    U, BU, d = U[:, keep], BU[:, keep], d[keep]
    if U.shape[-1] == 0:
        return U
    s = d.rsqrt()
    G = (_mT(U) @ BU) * s.unsqueeze(0) * s.unsqueeze(1)
    G = (G + _mT(G)) / 2
    theta, Z = _decomp.eigh(G)
    good = theta > theta.abs().max() * drop_tol
    return (U * s.unsqueeze(0)) @ (Z[:, good] * theta[good].rsqrt().unsqueeze(0))


def _b_orthogonalize(B, X, U):
    """U with its B-projection on the B-orthonormal X removed (twice, for rounding)."""
    for _ in range(2):
        BX = X if B is None else B @ X
        U = U - X @ (_mT(BX) @ U)
    return U


def _rayleigh_ritz(A, S, n, largest):
    H = _mT(S) @ (A @ S)
    H = (H + _mT(H)) / 2
    theta, Z = _decomp.eigh(H)
    if largest:
        theta, Z = theta.flip(0), Z.flip(1)
    return theta[:n], Z[:, :n]


def _run(A, B, X, iK, n, k, niter, tol, largest):
    dtype = X.dtype
    drop_tol = _FEPS.get(dtype, 2.23e-16) ** 0.5 if tol is None else tol
    x_norm = float(vector_norm(X))
    ix_norm = x_norm**-1  # PyTorch's order: an empty X (k = 0) fails here (ZeroDivisionError), before A @ X
    a_norm = float(vector_norm(A @ X)) * ix_norm
    b_norm = (float(vector_norm(B @ X)) if B is not None else x_norm) * ix_norm
    X = _svqb(B, X, drop_tol)
    if X.shape[-1] < n:  # a dependent start: top it up with random directions
        extra = _C.randn((X.shape[0], n - X.shape[-1]), dtype=dtype, device=X.device)
        X = _C.cat([X, _svqb(B, _b_orthogonalize(B, X, extra), drop_tol)], 1)
    E, Z = _rayleigh_ritz(A, X, n, largest)
    X = X @ Z
    P = None
    for _ in range(niter):
        BX = X if B is None else B @ X
        R = A @ X - BX * E
        rerr = vector_norm(R, 2, (0,)) / (vector_norm(X, 2, (0,)) * (a_norm + E.abs() * b_norm))
        converged = 0
        for ok in (rerr < tol).tolist():
            if not ok:
                break
            converged += 1
        if converged >= k:
            break
        W = R if iK is None else iK @ R
        rest = W if P is None else _C.cat([W, P], 1)
        Q = _svqb(B, _b_orthogonalize(B, X, rest), drop_tol)
        Q = _svqb(B, _b_orthogonalize(B, X, Q), drop_tol)  # once more: SVQB's output may have leaned on X
        S = _C.cat([X, Q], 1)
        E, Z = _rayleigh_ritz(A, S, n, largest)
        X = S @ Z
        P = Q @ Z[n:, :] if Q.shape[-1] else None  # the new directions' part of the update
    return E[:k], X[:, :k]


class _EigenpairsOf(Function):
    """(E, X) as a differentiable function of the symmetric A: the derivative of eigenpairs of a symmetric
    matrix, the full spectrum (from eigh, in backward only) supplying the directions X's columns can turn to."""

    @staticmethod
    def forward(ctx, A, E, X, with_b=False):
        ctx.save_for_backward(A, E, X)
        ctx.with_b = with_b
        return E.clone(), X.clone()

    @staticmethod
    def backward(ctx, gE, gX):
        if ctx.with_b:  # PyTorch's forward takes a B; its backward refuses it
            raise ValueError("lobpcg.backward does not support backward with B != I yet.")
        A, E, X = ctx.saved_tensors
        grad = _C.zeros(tuple(A.shape), dtype=A.dtype, device=A.device)
        if gE is not None:
            grad = grad + (X * gE.unsqueeze(0)) @ _mT(X)
        if gX is not None:
            lam, V = _decomp.eigh(A)
            # coefficient of v_j in dx_i: (v_j . g_i) / (E_i - lam_j), without x_i's own direction
            diff = E.unsqueeze(0) - lam.unsqueeze(1)
            own = (_mT(V) @ X).abs().argmax(0)
            rows = _C.arange(0, lam.shape[0], dtype=_C.int64, device=A.device).unsqueeze(1)
            diff = _C._where(rows == own.unsqueeze(0), float("inf"), diff)
            C = (_mT(V) @ gX) / diff
            grad = grad + V @ C @ _mT(X)
        return (grad + _mT(grad)) / 2, None, None, None


def lobpcg(
    A,
    k=None,
    B=None,
    X=None,
    n=None,
    iK=None,
    niter=None,
    tol=None,
    largest=None,
    method=None,
    tracker=None,
    ortho_iparams=None,
    ortho_fparams=None,
    ortho_bparams=None,
):
    """The k largest (or smallest, largest=False) eigenvalues E and B-orthonormal eigenvectors X of
    A X = B X diag(E) for symmetric A (and positive definite B), by LOBPCG with n >= k search vectors
    (X's columns when given, else random); A of shape (*, m, m) with batches solved one by one."""
    # PyTorch's differentiable path symmetrizes A and B before any check: their errors first (a non-square
    # A's broadcast, a 1-D A's mT, a non-tensor B's missing attribute)
    # and goes on with the symmetrized A (a broadcast (5, 1, 5) + (5, 5, 1) is a square (5, 5, 5))
    grad = A.requires_grad or (B is not None and B.requires_grad)
    if grad:  # A is symmetric from here on, which the backward's A_sym was
        A = (A + A.mT) / 2
        if B is not None:
            B = (B + B.mT) / 2
    if A.shape[-2] != A.shape[-1]:
        raise AssertionError(f"A must be square, got shape {A.shape}")
    if B is not None and tuple(A.shape) != tuple(B.shape):
        raise AssertionError(f"A and B must have same shape, got {A.shape} vs {B.shape}")
    # PyTorch's get_floating_dtype: float16/32/64 kept, anything else (bfloat16 too) float32
    dtype = A.dtype if A.dtype in (_C.float16, _C.float32, _C.float64) else _C.float32
    device = A.device
    if tol is None:
        tol = _FEPS[dtype] ** 0.5  # PyTorch's table: its KeyError for a half-precision A
    m = A.shape[-1]
    k = (1 if X is None else X.shape[-1]) if k is None else k
    n = (k if n is None else n) if X is None else X.shape[-1]
    if m < 3 * n:
        raise ValueError(
            f"LOBPCG algorithm is not applicable when the number of A rows (={m})"
            f" is smaller than 3 x the number of requested eigenpairs (={n})"
        )
    largest = True if largest is None else bool(largest)
    niter = 1000 if niter is None else niter
    if niter < 0:
        niter = 1 << 62  # PyTorch's -1: until convergence
    ortho_fparams = ortho_fparams or {}
    tol_run = ortho_fparams.get("ortho_tol", tol) if method in (None, "ortho") else tol
    batch = tuple(A.shape[:-2])
    count = math.prod(batch)
    with no_grad():
        Ad = A.detach()
        As = Ad.reshape((count, m, m)) if batch else [Ad]  # (a sparse A has no reshape: it is 2-D)
        Bs = None if B is None else (B.detach().reshape((count, m, m)) if batch else [B.detach()])
        Xs = None if X is None else X.detach().reshape((count, m, n))
        Es, Vs = [], []
        for i in range(count):
            # a given X keeps its dtype, as PyTorch's (an integer or bool X fails its first norm)
            Xi = _C.randn((m, n), dtype=dtype, device=device) if Xs is None else Xs[i]
            if tuple(Xi.shape) != (m, n):
                raise AssertionError(f"X shape mismatch: got {tuple(Xi.shape)}, expected {(m, n)}")
            E, V = _run(As[i], None if Bs is None else Bs[i], Xi, iK, n, k, niter, tol_run, largest)
            Es.append(E)
            Vs.append(V)
        if count:
            E = _C.stack(Es).reshape(batch + (k,))
            V = _C.stack(Vs).reshape(batch + (m, k))
        else:  # an empty batch: no matrix to solve
            E = _C.zeros(batch + (k,), dtype=dtype, device=device)
            V = _C.zeros(batch + (m, k), dtype=dtype, device=device)
    if grad:
        with_b = B is not None
        if batch and count:
            pairs = [
                _EigenpairsOf.apply(a, e, v, with_b) for a, e, v in zip(A.reshape((count, m, m)), Es, Vs)
            ]
            return _C.stack([p[0] for p in pairs]).reshape(batch + (k,)), _C.stack(
                [p[1] for p in pairs]
            ).reshape(batch + (m, k))
        return _EigenpairsOf.apply(A, E, V, with_b)
    return E, V
