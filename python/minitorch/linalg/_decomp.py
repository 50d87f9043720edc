"""torch.linalg's decompositions and solvers: PyTorch's checks, broadcasting, named results and derivatives over the
LAPACK primitives of ops/linalg_decomp.h (the private _C._linalg_* functions).

Every function takes float32/float64 and complex64/complex128 matrices, with PyTorch's result dtypes (real
eigenvalues of eigh, singular values, logabsdet and norms for complex input).

Derivatives are autograd.Functions whose backward is written with the public, differentiable functions of this
module, so second derivatives (Hessians, gradient penalties) work too. They follow PyTorch's formulas
(FunctionsManual) in its conjugate-Wirtinger convention, written once with conjugate transposes (.mH) and conj(),
which are plain transposes and no-ops on real tensors, so the same code serves both kinds."""

import builtins
import functools
import math
import numbers
import operator
import warnings

from minitorch import _C, _argcheck, _creation
from minitorch._composite_shape import diag_embed as _diag_embed_op
from minitorch._dtype_names import scalar_name
from minitorch._out import write_out
from minitorch.autograd.function import Function
from minitorch.functional import broadcast_shapes as _broadcast_shapes
from minitorch.return_types import _make

# PyTorch's wording when a composite's out cannot take its result's dtype
_CASTABLE_TAIL = (
    ": Expected result to be safely castable from {expected} dtype, but got result with dtype {got}"
)
_EIGVALS_CAST = (
    "torch.linalg.{}: Expected eigenvalues to be safely castable from {{expected}} dtype, but got eigenvalues with "
    "dtype {{got}}"
)
_EIGVECS_CAST = (
    "torch.linalg.eig: Expected eigenvectors to be safely castable from {expected} dtype, but got eigenvectors "
    "with dtype {got}"
)

_INEXACT = (_C.float32, _C.float64, _C.complex64, _C.complex128)


class LinAlgError(RuntimeError):
    """torch.linalg.LinAlgError: a decomposition or solve failed on its input (singular, not positive-definite)."""


LinAlgError.__module__ = "minitorch.linalg"

_LU_FACTOR = _make("linalg_lu_factor", ("LU", "pivots"))
_LU_FACTOR_EX = _make("linalg_lu_factor_ex", ("LU", "pivots", "info"))
_LU = _make("linalg_lu", ("P", "L", "U"))
_LU_UNPACK = _make("lu_unpack", ("P", "L", "U"))
_SOLVE_EX = _make("linalg_solve_ex", ("result", "info"))
_INV_EX = _make("linalg_inv_ex", ("inverse", "info"))
_CHOLESKY_EX = _make("linalg_cholesky_ex", ("L", "info"))
_QR = _make("linalg_qr", ("Q", "R"))
_TORCH_QR = _make("qr", ("Q", "R"))
_EIGH = _make("linalg_eigh", ("eigenvalues", "eigenvectors"))
_SVD = _make("linalg_svd", ("U", "S", "Vh"))
_TORCH_SVD = _make("svd", ("U", "S", "V"))
_SLOGDET = _make("linalg_slogdet", ("sign", "logabsdet"))
_TORCH_SLOGDET = _make("slogdet", ("sign", "logabsdet"))
_LU_WITH_INFO = _make("_lu_with_info", ("LU", "pivots", "info"))
_LSTSQ = _make("linalg_lstsq", ("solution", "residuals", "rank", "singular_values"))
_GEQRF = _make("geqrf", ("a", "tau"))
_TRIANGULAR_SOLVE = _make("triangular_solve", ("solution", "cloned_coefficient"))


# ---------------------------------------------------------------------------------------------------- checks


def _check(A, fn, square=True, kernel=None, low_precision=False, dispatch_all=False):
    """PyTorch's checks of a matrix argument, in its words and order: rank, squareness, dtype (dispatch_all:
    the kernel's dtype dispatch refuses every dtype it lacks in its words, an integer one too)."""
    if not _C._is_tensor(A):
        raise TypeError(f"{fn}(): argument 'A' (position 1) must be Tensor, not {type(A).__name__}")
    if A.dim() < 2:
        raise RuntimeError(f"{fn}: The input tensor A must have at least 2 dimensions.")
    if square and A.shape[-1] != A.shape[-2]:
        raise RuntimeError(
            f"{fn}: A must be batches of square matrices, but they are {A.shape[-2]} by {A.shape[-1]} matrices"
        )
    if dispatch_all and A.dtype not in _INEXACT:
        raise NotImplementedError(f"\"{kernel}_cpu\" not implemented for '{scalar_name(A.dtype)}'")
    _check_dtype(A, fn, kernel, low_precision)


def _empty_half_as_float(fn):
    """fn, whose kernel PyTorch never dispatches for an empty input: there an empty float16 or bfloat16 matrix
    (or batch) gives results of its dtype (`linalg.svd(torch.zeros(0, 2, dtype=torch.float16))`: empty float16
    factors; det of 0 x 0 matrices: ones), where a nonempty one is refused by the kernel's dtype dispatch.
    Computed in float32 and converted back; triangular_solve, geqrf, eig and the others dispatch first and
    refuse an empty one too."""

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        A = args[0] if args else None
        if not (_C._is_tensor(A) and A.dtype in _LOW and A.numel() == 0) or kwargs.get("out") is not None:
            return fn(*args, **kwargs)
        low = A.dtype

        def up(v):
            return v.to(_C.float32) if _C._is_tensor(v) and v.dtype == low else v

        def down(v):
            return v.to(low) if _C._is_tensor(v) and v.dtype == _C.float32 else v

        r = fn(*map(up, args), **{k: up(v) for k, v in kwargs.items()})
        return type(r)(tuple(map(down, r))) if isinstance(r, tuple) else down(r)

    return wrapper


_LOW = (_C.float16, _C.bfloat16)


def _check_dtype(A, fn, kernel=None, low_precision=False):
    if A.dtype in _INEXACT:
        return
    name = scalar_name(A.dtype)
    if A.dtype in (_C.float16, _C.bfloat16):
        if low_precision:
            raise NotImplementedError(f"{fn}: Low precision dtypes not supported. Got {name}")
        raise NotImplementedError(f"\"{kernel}_cpu\" not implemented for '{name}'")
    raise NotImplementedError(f"{fn}: Expected a floating point or complex tensor as input. Got {name}")


def _check_same(A, B, fn, a="A"):
    if not _C._is_tensor(B):
        raise TypeError(f"{fn}(): argument 'B' (position 2) must be Tensor, not {type(B).__name__}")
    if A.dtype != B.dtype:
        raise RuntimeError(
            f"{fn}: Expected {a} and B to have the same dtype, but found {a} of type {scalar_name(A.dtype)} and B "
            f"of type {scalar_name(B.dtype)} instead"
        )
    if A.device != B.device:
        raise RuntimeError(
            f"{fn}: Expected A and B to be on the same device, but found A on {A.device} and B on {B.device} instead"
        )


# The CPU kernels' info for a matrix holding inf or NaN, which they hand back as NaN without calling LAPACK
# (ops/linalg_decomp.h): the iterative drivers can loop forever on such input. The cuSOLVER kernels
# (kernels/cuda/linalg_cusolver.cpp) never set it: a non-finite CUDA matrix gives NaN or a positive info.
_NON_FINITE = -1000


def _raise_info(info, fn, what, error=LinAlgError):
    """error (LinAlgError) for the first failed matrix of a batch, worded by what(code); nothing when all
    succeeded (a non-finite input's NaN results are not a failure here: see _raise_if_nan). A meta info has
    no values: the shapes stand, as PyTorch's meta functions check nothing there."""
    if info.numel() == 0 or info.is_meta:
        return
    flat = info.reshape(-1)
    bad = _C.nonzero((flat != 0) & (flat != _NON_FINITE))
    if bad.numel() == 0:
        return
    i = int(bad[0, 0])
    where = f"(Batch element {i}): " if info.dim() > 0 else ""
    raise error(f"{fn}: {where}{what(int(flat[i]))}")


def _raise_if_nan(A, info, fn):
    """PyTorch's error for a NaN input to an SVD (an inf input gives NaN results there, as here). info None: a CUDA
    input, checked before the kernel runs, since cuSOLVER's kernels do not look at the data (PyTorch's CUDA SVD
    raises LinAlgError "The algorithm failed to converge ..." for NaN input too); else the CPU kernels' info,
    which flags a non-finite matrix."""
    if A.is_meta:
        return
    flagged = A.is_cuda if info is None else bool(info.numel()) and bool((info == _NON_FINITE).any())
    if flagged and bool(A.isnan().any()):
        raise LinAlgError(
            f"{fn}: The algorithm failed to converge because the input matrix contained non-finite values."
        )


def _not_pd(code):
    return (
        "The factorization could not be completed because the input is not positive-definite "
        f"(the leading minor of order {code} is not positive-definite)."
    )


def _no_convergence(what):
    return lambda code: (
        "The algorithm failed to converge because the input matrix is ill-conditioned or has too many repeated "
        f"{what} (error code: {code})."
    )


def _batch_broadcast(A, B, fn, B_core):
    """A [*a, n, n] and B [*b, *core]: both expanded to the broadcast batch."""
    try:
        batch = _broadcast_shapes(tuple(A.shape[:-2]), tuple(B.shape[: B.dim() - B_core]))
    except RuntimeError:
        raise RuntimeError(
            f"{fn}: Incompatible batch shapes of A and B: {list(A.shape[:-2])} and "
            f"{list(B.shape[: B.dim() - B_core])}"
        ) from None
    batch = tuple(batch)
    return A.expand(batch + tuple(A.shape[-2:])), B.expand(batch + tuple(B.shape[B.dim() - B_core :]))


def _mT(x):
    return x.transpose(-2, -1)


def _mH(x):
    """The conjugate transpose: the transpose of a real matrix, so each formula below serves both kinds."""
    return x.mH


def _real_dtype(dtype):
    """The real dtype of a complex one (the dtype of eigh's eigenvalues, singular values, norms); itself if real."""
    return {_C.complex64: _C.float32, _C.complex128: _C.float64}.get(dtype, dtype)


def _eye_like(A, n=None):
    n = A.shape[-1] if n is None else n
    return _C.eye(n, dtype=A.dtype, device=A.device).expand(tuple(A.shape[:-2]) + (n, n))


def _diag_embed(v):
    return _diag_embed_op(v)


def _diagonal(A):
    return A.diagonal(0, -2, -1)


# -------------------------------------------------------------------------------- triangular and LU solves


class _SolveTriangular(Function):
    @staticmethod
    def forward(ctx, A, B, upper, left, unitriangular):
        X = _C._linalg_solve_triangular(A, B, upper, left, unitriangular)
        ctx.upper, ctx.left, ctx.unit = upper, left, unitriangular
        ctx.save_for_backward(A, X)
        return X

    @staticmethod
    def backward(ctx, gX):
        A, X = ctx.saved_tensors
        upper, left, unit = ctx.upper, ctx.left, ctx.unit
        gB = solve_triangular(_mH(A), gX, upper=not upper, left=left, unitriangular=unit)
        gA = None
        if ctx.needs_input_grad[0]:
            gA = -(gB @ _mH(X)) if left else -(_mH(X) @ gB)
            gA = gA.triu(1 if unit else 0) if upper else gA.tril(-1 if unit else 0)
        return gA, gB, None, None, None


def solve_triangular(A, B, *, upper, left=True, unitriangular=False, out=None):
    """The solution X of A X = B (left) or X A = B for triangular A, batched and broadcast."""
    fn = "linalg.solve_triangular"
    _check(A, fn, kernel="triangular_solve")
    if _C._is_tensor(B) and B.dtype != A.dtype:
        B = B.to(A.dtype)  # PyTorch casts B to A's dtype here, where the other solvers refuse a mismatch
    _check_same(A, B, fn)
    if B.dim() < 2:
        raise RuntimeError(f"{fn}: The input tensor B must have at least 2 dimensions.")
    n = A.shape[-1]
    if (B.shape[-2] if left else B.shape[-1]) != n:
        eq = "AX = B" if left else "XA = B"
        raise RuntimeError(
            f"{fn}: Incompatible shapes of A and B for the equation {eq} "
            f"({A.shape[-2]}x{A.shape[-1]} and {B.shape[-2]}x{B.shape[-1]})"
        )
    A, B = _batch_broadcast(A, B, fn, 2)
    return write_out(
        _SolveTriangular.apply(A, B, upper, left, unitriangular),
        out,
        "linalg_solve_triangular",
        dtype_error="expected scalar type {expected} but found {got}",
    )


def _check_solve_dtype(A, fn):
    # solve refuses an integer A before looking at its shape (the other functions check the shape first)
    if _C._is_tensor(A) and not A.dtype.is_floating_point:
        _check_dtype(A, fn)


def _vector_rhs(A, B):
    """PyTorch's rule: B is a (batch of) vector(s) when it is 1-D, or has A's batch and one dim less."""
    return B.dim() == 1 or (B.dim() == A.dim() - 1 and tuple(B.shape) == tuple(A.shape[:-1]))


class _Solve(Function):
    @staticmethod
    def forward(ctx, A, B, left):
        LU, piv, info = _C._linalg_lu_factor_ex(A)
        _raise_info(
            info, "torch.linalg.solve", lambda c: "The solver failed because the input matrix is singular."
        )
        X = _C._linalg_lu_solve(LU, piv, B, left, False)
        ctx.left = left
        ctx.save_for_backward(A, X)
        return X

    @staticmethod
    def backward(ctx, gX):
        A, X = ctx.saved_tensors
        gB = solve(_mH(A), gX, left=ctx.left)
        gA = None
        if ctx.needs_input_grad[0]:
            gA = -(gB @ _mH(X)) if ctx.left else -(_mH(X) @ gB)
        return gA, gB, None


@_empty_half_as_float
def solve(A, B, *, left=True, out=None):
    """The solution X of A X = B (left) or X A = B: LU with partial pivoting (LAPACK getrf/getrs)."""
    fn = "linalg.solve"
    if _C._is_tensor(A) and not _C._is_tensor(B):  # the parser's check, before any of the op's
        raise TypeError(f"linalg_solve(): argument 'B' (position 2) must be Tensor, not {type(B).__name__}")
    _check_solve_dtype(A, fn)
    _check(A, fn, kernel="lu")
    _check_same(A, B, fn)
    vector = left and _vector_rhs(A, B)
    Bm = B.unsqueeze(-1) if vector else B
    if Bm.dim() < 2 or (Bm.shape[-2] if left else Bm.shape[-1]) != A.shape[-1]:
        rows, cols = (Bm.shape[-2], Bm.shape[-1]) if Bm.dim() >= 2 else (Bm.shape[-1], 1)
        eq = "AX = B" if left else "XA = B"
        raise RuntimeError(
            f"{fn}: Incompatible shapes of A and B for the equation {eq} ({A.shape[-2]}x{A.shape[-1]} and {rows}x{cols})"
        )
    A2, B2 = _batch_broadcast(A, Bm, fn, 2)
    X = _Solve.apply(A2, B2, left)
    return write_out(X.squeeze(-1) if vector else X, out, "_linalg_solve_ex")


def solve_ex(A, B, *, left=True, check_errors=False, out=None):
    """solve, with an info tensor (nonzero where A was singular) instead of an error unless check_errors."""
    fn = "linalg.solve"
    for i, (what, t) in enumerate((("A", A), ("B", B))):  # the parser's kinds come before the dtype check
        if not _C._is_tensor(t):
            raise TypeError(
                f"linalg_solve_ex(): argument '{what}' (position {i + 1}) must be Tensor, not {type(t).__name__}"
            )
    _check_solve_dtype(A, fn)
    _check(A, fn, kernel="lu")
    _check_same(A, B, fn)
    info = _C._linalg_lu_factor_ex(A.detach())[2]
    if check_errors:
        _raise_info(
            info, "torch.linalg.solve_ex", lambda c: "The solver failed because the input matrix is singular."
        )
    if bool((info != 0).any()):
        vector = left and _vector_rhs(A, B)
        shape = tuple(
            _broadcast_shapes(tuple(A.shape[:-2]), tuple(B.shape[: B.dim() - (1 if vector else 2)]))
        )
        shape += tuple(B.shape[-1:]) if vector else tuple(B.shape[-2:])
        X = _C.full(shape, math.nan, dtype=A.dtype, device=A.device)
    else:
        X = solve(A, B, left=left)
    return _SOLVE_EX((write_out(X, out[0] if out else None, "_linalg_solve_ex"), info))


def lu_factor_ex(A, *, pivot=True, check_errors=False, out=None):
    """(LU, pivots, info): A = P L U with partial pivoting (LAPACK getrf); pivots are 1-based int32."""
    _check_lu(A, pivot)
    if A.dtype not in _INEXACT:  # no matrices in a dtype the kernel refuses: PyTorch's shapes, no kernel
        batch, k = tuple(A.shape[:-2]), builtins.min(A.shape[-2], A.shape[-1])
        zeros = functools.partial(_C.zeros, dtype=_C.int32, device=A.device)
        return _LU_FACTOR_EX((A.clone(), zeros(batch + (k,)), zeros(batch)))
    LU, piv, info = _LUFactorFunction.apply(A)
    if check_errors:
        _raise_info(
            info,
            "torch.linalg.lu_factor_ex",
            lambda c: f"U[{c},{c}] is zero and using it on lu_solve would result in a division by zero.",
        )
    return _LU_FACTOR_EX((LU, piv, info))


def _check_lu(A, pivot):
    fn = "linalg.lu_factor"
    if not _C._is_tensor(A):
        raise TypeError(
            f"linalg_lu_factor_ex(): argument 'A' (position 1) must be Tensor, not {type(A).__name__}"
        )
    if A.dim() < 2:
        raise RuntimeError(
            f"torch.lu_factor: Expected tensor with 2 or more dimensions. Got size: {list(A.shape)} instead"
        )
    # its kernel refuses other dtypes by name (no matrices: no kernel)
    if A.dtype not in _INEXACT and A.numel():
        raise NotImplementedError(f"\"lu_{A.device.type}\" not implemented for '{scalar_name(A.dtype)}'")
    if not pivot and A.numel():  # PyTorch returns an empty input before its kernel's refusal
        raise RuntimeError(f"{fn}: LU without pivoting is not implemented on the CPU")


def lu_factor(A, *, pivot=True, out=None):
    """(LU, pivots) of A = P L U; raises when U has a zero on its diagonal, as PyTorch does."""
    LU, piv, info = lu_factor_ex(A, pivot=pivot)
    _raise_info(
        info,
        "torch.linalg.lu_factor",
        lambda c: (
            f"U[{c},{c}] is zero and using it on lu_solve would result in a division by zero. If you still "
            "want to perform the factorization, consider calling linalg.lu(A, pivot) or linalg.lu_factor_ex(A, pivot)"
        ),
        RuntimeError,  # PyTorch's class here, not LinAlgError
    )
    return _LU_FACTOR((LU, piv))


def _perm_of_pivots(pivots, batch, m, k, device):
    """The row permutation of LAPACK's 1-based pivots (row i swapped with row pivots[i] - 1, in order), shaped
    batch + (m,). A few matrices replay the swaps on Python ints (PyTorch's loop is C++): as k steps of four
    tensor ops each, a 256x256 linalg.lu spent 60 % of its time here (2.3x PyTorch's). Many small matrices keep
    the tensor steps, whose count does not grow with the batch; so do tensor-likes and tensors without data."""
    count = math.prod(batch)
    if type(pivots) is _C.Tensor and count <= 64 and pivots.device.type != "meta":
        rows = pivots.reshape(count, k).tolist()
        perms = []
        for row in rows:
            p = list(range(m))
            for i, j in enumerate(row):
                if not 1 <= j <= m:
                    raise RuntimeError(
                        "pivots passed to lu_unpack must be between 1 and LU.size(-2) inclusive.Did you properly "
                        "pass the result of lu_factor?"
                    )
                p[i], p[j - 1] = p[j - 1], p[i]
            perms.append(p)
        return _creation.tensor(perms, dtype=_C.int64, device=device).reshape(batch + (m,))
    perm = _C.arange(m, device=device).expand(batch + (m,)).clone()
    piv = (pivots.to(_C.int64) - 1).reshape(batch + (k,))
    for i in range(k):
        j = piv[..., i : i + 1]
        pi = perm[..., i : i + 1].clone()
        perm[..., i : i + 1] = perm.gather(-1, j)
        perm.scatter_(-1, j, pi)
    return perm


@_argcheck.parses(
    "Tensor LU_data, Tensor LU_pivots, bool unpack_data=True, bool unpack_pivots=True, *, Tensor[]? out=None",
    upfront=False,
)
def lu_unpack(LU_data, LU_pivots, unpack_data=True, unpack_pivots=True):
    """(P, L, U) from lu_factor's result: A = P @ L @ U."""
    if LU_data.dim() < 2:
        raise RuntimeError(
            f"torch.lu_unpack: Expected tensor with 2 or more dimensions. Got size: {list(LU_data.shape)} instead"
        )
    if unpack_pivots and LU_pivots.dtype != _C.int32:
        raise RuntimeError(
            "torch.lu_unpack: LU_pivots is expected to be a contiguous tensor of torch.int32 dtype.\n"
            "Note: this function is intended to be used with the output produced by torch.linalg.lu_factor"
        )
    m, n = LU_data.shape[-2], LU_data.shape[-1]
    k = builtins.min(m, n)
    batch = tuple(LU_data.shape[:-2])
    if unpack_pivots and tuple(LU_pivots.shape) != batch + (k,):
        raise ValueError(
            f"Expected LU_pivots to have shape {list(batch + (k,))} but got {list(LU_pivots.shape)} instead."
        )
    if unpack_data:
        L = LU_data[..., :, :k].tril(-1) + _C.eye(m, k, dtype=LU_data.dtype, device=LU_data.device)
        U = LU_data[..., :k, :].triu()
    else:
        L = U = _C.empty((0,), dtype=LU_data.dtype, device=LU_data.device)
    if unpack_pivots:
        # LAPACK swapped row i with row pivots[i] - 1, in order: replay the swaps on the identity permutation
        perm = _perm_of_pivots(LU_pivots, batch, m, k, LU_data.device)
        # P^T A = L U permutes A's rows by perm: P[perm[j], j] = 1
        P = _C.zeros(batch + (m, m), dtype=LU_data.dtype, device=LU_data.device)
        P.scatter_(-2, perm.unsqueeze(-2), 1.0)
    else:
        P = _C.empty((0,), dtype=LU_data.dtype, device=LU_data.device)
    return _LU_UNPACK((P, L, U))


def _lu_backward_square(L, U, gL, gU):
    """P^T gA for square A = P L U: L^-H [tril(L^H gL, -1) + triu(gU U^H)] U^-H (PyTorch's formula)."""
    inner = (_mH(L) @ gL).tril(-1) + (gU @ _mH(U)).triu()
    inner = solve_triangular(_mH(U), inner, upper=False, left=False)
    return solve_triangular(_mH(L), inner, upper=True, unitriangular=True)


def _lu_backward(P, L, U, gL, gU):
    """gA for A = P L U. A wide A = P L [U1 U2] and a tall P^T A = [L1; L2] U reduce to the square case: the
    extra block's equation (P^T A2 = L U2, resp. A2' = L2 U) moves its gradient onto L (resp. U) first."""
    m, n = L.shape[-2], U.shape[-1]
    k = builtins.min(m, n)
    if m == n:
        return P @ _lu_backward_square(L, U, gL, gU)
    if m < n:
        U1, U2, gU1, gU2 = U[..., :k], U[..., k:], gU[..., :k], gU[..., k:]
        LtgU2 = solve_triangular(_mH(L), gU2, upper=True, unitriangular=True)  # L^-H gU2
        g1 = _lu_backward_square(L, U1, gL - LtgU2 @ _mH(U2), gU1)
        return P @ _C.cat([g1, LtgU2], -1)
    L1, L2, gL1, gL2 = L[..., :k, :], L[..., k:, :], gL[..., :k, :], gL[..., k:, :]
    gL2Ut = solve_triangular(_mH(U), gL2, upper=False, left=False)  # gL2 U^-H
    g1 = _lu_backward_square(L1, U, gL1, gU - _mH(L2) @ gL2Ut)
    return P @ _C.cat([g1, gL2Ut], -2)


class _LUFactorFunction(Function):
    """(LU, pivots, info) with LU differentiable: L and U packed in one matrix, as LAPACK's getrf leaves them."""

    @staticmethod
    def forward(ctx, A):
        LU, piv, info = _C._linalg_lu_factor_ex(A)
        ctx.save_for_backward(LU, piv)
        ctx.mark_non_differentiable(piv, info)
        return LU, piv, info

    @staticmethod
    def backward(ctx, gLU, _gpiv, _ginfo):
        LU, piv = ctx.saved_tensors
        P, L, U = lu_unpack(LU, piv)
        k = builtins.min(LU.shape[-2], LU.shape[-1])
        return _lu_backward(P, L, U, gLU[..., :, :k].tril(-1), gLU[..., :k, :].triu())


class _LUFunction(Function):
    @staticmethod
    def forward(ctx, A):
        LU, piv, _ = _C._linalg_lu_factor_ex(A)
        P, L, U = lu_unpack(LU, piv)
        ctx.save_for_backward(P, L, U)
        ctx.mark_non_differentiable(P)
        return P, L, U

    @staticmethod
    def backward(ctx, _gP, gL, gU):
        P, L, U = ctx.saved_tensors
        return _lu_backward(P, L, U, gL, gU)


def lu(A, *, pivot=True, out=None):
    """(P, L, U) with A = P @ L @ U (partial pivoting); differentiable for square A."""
    _check_lu(A, pivot)
    if A.dtype not in _INEXACT:  # no matrices in a dtype the kernel refuses (see lu_factor_ex)
        batch, (m, n) = tuple(A.shape[:-2]), A.shape[-2:]
        k, opts = builtins.min(m, n), {"dtype": A.dtype, "device": A.device}
        P = _C.eye(m, **opts).expand(*batch, m, m).clone() if pivot else _C.empty((0,), **opts)
        return _LU((P, _C.zeros(*batch, m, k, **opts), _C.zeros(*batch, k, n, **opts)))
    P, L, U = _LUFunction.apply(A)
    if not pivot:  # an empty A (_check_lu refused the others): PyTorch's P is then an empty vector
        P = _C.empty((0,), dtype=A.dtype, device=A.device)
    return _LU((P, L, U))


@_empty_half_as_float
def lu_solve(LU, pivots, B, *, left=True, adjoint=False, out=None):
    """The solution of A X = B (or X A = B; A^H with adjoint) from A's lu_factor."""
    fn = "linalg.lu_solve"
    for pos, (name, arg) in enumerate((("LU", LU), ("pivots", pivots), ("B", B)), 1):
        if not _C._is_tensor(arg):
            raise TypeError(
                f"linalg_lu_solve(): argument '{name}' ({'position ' + str(pos)}) must be Tensor, not "
                f"{type(arg).__name__}"
            )
    if not (LU.is_floating_point() or LU.is_complex()):  # PyTorch checks the dtype first, named in full
        raise NotImplementedError(
            f"torch.{fn}: Expected a floating point or complex tensor as input. Got {scalar_name(LU.dtype)}"
        )
    _check(LU, fn, kernel="lu_solve")
    _check_same(LU, B, fn, "LU")
    if B.dim() < 2:
        raise RuntimeError(f"{fn}: The input tensor B must have at least 2 dimensions.")
    if (B.shape[-2] if left else B.shape[-1]) != LU.shape[-1]:
        eq = "AX = B" if left else "XA = B"
        raise RuntimeError(
            f"{fn}: Incompatible shapes of A and B for the equation {eq} "
            f"({LU.shape[-2]}x{LU.shape[-1]} and {B.shape[-2]}x{B.shape[-1]})"
        )
    batch = tuple(_broadcast_shapes(tuple(LU.shape[:-2]), tuple(B.shape[:-2])))
    LU = LU.expand(batch + tuple(LU.shape[-2:]))
    pivots = pivots.expand(batch + tuple(pivots.shape[-1:]))
    B = B.expand(batch + tuple(B.shape[-2:]))
    if B.requires_grad or LU.requires_grad:
        raise NotImplementedError(
            "linalg.lu_solve: the derivative is not implemented in minitorch; use linalg.solve(A, B), which is "
            "differentiable"
        )
    return write_out(
        _C._linalg_lu_solve(LU.detach(), pivots, B.detach(), left, adjoint), out, "linalg_lu_solve"
    )


# ---------------------------------------------------------------------------------------- inverse and det


class _Inv(Function):
    @staticmethod
    def forward(ctx, A):
        LU, piv, info = _C._linalg_lu_factor_ex(A)
        _raise_info(
            info,
            "linalg.inv",
            lambda c: (
                f"The diagonal element {c} is zero, the inversion could not be completed because the input "
                "matrix is singular."
            ),
        )
        Y = _C._linalg_lu_solve(LU, piv, _eye_like(A).contiguous(), True, False)
        ctx.save_for_backward(Y)
        return Y

    @staticmethod
    def backward(ctx, gY):
        (Y,) = ctx.saved_tensors
        Yh = _mH(Y)
        return -(Yh @ gY @ Yh)


def inv(A, *, out=None):
    """A^-1 (LU with partial pivoting); LinAlgError for a singular matrix."""
    _check(A, "linalg.inv", low_precision=True)
    return write_out(_Inv.apply(A), out, "linalg_inv_ex")


def inv_ex(A, *, check_errors=False, out=None):
    """(A^-1, info): info nonzero where A is singular (those inverses are undefined)."""
    _check(A, "linalg.inv", low_precision=True)
    LU, piv, info = _C._linalg_lu_factor_ex(A.detach())
    if check_errors or not bool((info != 0).any()):
        return _INV_EX((inv(A), info))
    # some matrices are singular: their inverses are whatever the solve gives, from the factorization at hand
    return _INV_EX((_C._linalg_lu_solve(LU, piv, _eye_like(A).contiguous(), True, False), info))


def _lu_parity(A, piv):
    """+1 or -1 per matrix: the parity of the row swaps in LAPACK's pivots, in A's dtype."""
    n = A.shape[-1]
    swaps = (piv != _C.arange(1, n + 1, dtype=_C.int32, device=A.device)).sum(-1)
    return 1.0 - 2.0 * (swaps % 2).to(A.dtype)


def _lu_det(A):
    """(det, LU, pivots) of A without recording: the product of U's diagonal, signed by the pivots' parity."""
    LU, piv, _ = _C._linalg_lu_factor_ex(A)
    return _lu_parity(A, piv) * _diagonal(LU).prod(-1), LU, piv


def _det_grad_svd(A, g):
    """PyTorch's gradient of det at any A (singular included). With A = U S Vh the cofactor matrix is
    det(U) det(Vh) conj(U) diag(prod_{j != i} s_j) conj(Vh); the gradient is g times its conjugate."""
    U, S, Vh = svd(A.detach())
    n = S.shape[-1]
    mask = 1.0 - _C.eye(n, dtype=S.dtype, device=A.device)
    others = (S.unsqueeze(-2) * mask + (1.0 - mask)).prod(-1)  # prod over j != i
    phase = (_lu_det(U)[0] * _lu_det(Vh)[0]).conj()
    return (g * phase).unsqueeze(-1).unsqueeze(-1) * (U * others.unsqueeze(-2)) @ Vh


class _Det(Function):
    @staticmethod
    def forward(ctx, A):
        d = _lu_det(A)[0] if A.shape[-1] else _C.ones(tuple(A.shape[:-2]), dtype=A.dtype, device=A.device)
        ctx.save_for_backward(A, d)
        return d

    @staticmethod
    def backward(ctx, g):
        A, d = ctx.saved_tensors
        if A.shape[-1] == 0:
            return _C.zeros_like(A)
        if bool((d == 0).any()):
            return _det_grad_svd(A, g)
        # d det(A) = det(A) A^-T, holomorphic: the gradient is g conj(det(A)) A^-H
        return (g * d.conj()).unsqueeze(-1).unsqueeze(-1) * _mH(inv(A))


@_empty_half_as_float
def det(A, *, out=None):
    """det(A) from A's LU factorization; differentiable at singular matrices too (through the SVD there)."""
    _check(A, "linalg.det", kernel="lu")
    return write_out(_Det.apply(A), out, "_linalg_det")


class _SlogDet(Function):
    @staticmethod
    def forward(ctx, A):
        LU, piv, _ = _C._linalg_lu_factor_ex(A)
        diag = _diagonal(LU)
        # the sign as a product of unit factors, which cannot overflow as det itself can
        sign = _lu_parity(A, piv) * diag.sgn().prod(-1)
        ctx.save_for_backward(A, sign)
        # a real sign (+-1 or 0) is piecewise constant, but PyTorch still makes it an output that requires grad
        # (its gradient is zero), so it stays one here
        return sign, diag.abs().log().sum(-1)

    @staticmethod
    def backward(ctx, gsign, glogabs):
        A, sign = ctx.saved_tensors
        # log det A = logabsdet + i arg(det A) is holomorphic with derivative A^-T. The loss's gradient on it:
        # glogabs on the real part, and on the phase (sign = e^{i arg}) Im(gsign conj(sign)) on the imaginary one
        g = glogabs
        if A.is_complex():
            g = g + 1j * (gsign * sign.conj()).imag
        return g.unsqueeze(-1).unsqueeze(-1) * _mH(inv(A))


def slogdet(A, *, out=None):
    """(sign, log|det A|): sign 0 and logabsdet -inf for a singular matrix. For complex A the sign is
    det / |det| (complex, of modulus 1) and logabsdet is real."""
    _check(A, "linalg.slogdet", low_precision=True)
    if A.shape[-1] == 0:
        batch = tuple(A.shape[:-2])
        one = _C.ones(batch, dtype=A.dtype, device=A.device)
        return _SLOGDET((one, _C.zeros(batch, dtype=_real_dtype(A.dtype), device=A.device)))
    return _SLOGDET(_SlogDet.apply(A))


def logdet(A):
    """log det(A): nan for a negative real determinant, -inf for zero; for complex A, log(sign) + logabsdet."""
    _check(A, "logdet", low_precision=True)  # (in its own name, before slogdet's)
    sign, logabs = slogdet(A)
    if A.is_complex():
        # PyTorch's complex sum at a singular matrix, log(0) + -inf, comes out as -inf + nan j: keep its value
        return _C._where(sign == 0, complex(-math.inf, math.nan), sign.log() + logabs)
    return _C._where(sign < 0, math.nan, logabs)


# ----------------------------------------------------------------------------------------------- Cholesky


class _Cholesky(Function):
    @staticmethod
    def forward(ctx, A, upper):
        L, info = _C._linalg_cholesky_ex(A, upper)
        ctx.upper = upper
        ctx.save_for_backward(L)
        ctx.mark_non_differentiable(info)
        return L, info

    @staticmethod
    def backward(ctx, gL, _ginfo):
        (L,) = ctx.saved_tensors
        if ctx.upper:  # U = L^H
            L, gL = _mH(L), _mH(gL)
        # PyTorch's gA = L^-H M L^-1, M = (tril(L^H gL) + tril(L^H gL, -1)^H) / 2 (Hermitian up to the
        # imaginary part of its diagonal, which moves no Hermitian direction of A)
        P = (_mH(L) @ gL).tril()
        P = 0.5 * (P + _mH(P.tril(-1)))
        X = solve_triangular(_mH(L), P, upper=True)
        return solve_triangular(L, X, upper=False, left=False), None


@_empty_half_as_float
def cholesky_ex(A, *, upper=False, check_errors=False, out=None):
    """(L, info): A = L L^H (or U^H U), info > 0 where A is not positive-definite."""
    _check(A, "linalg.cholesky", kernel="cholesky")
    L, info = _Cholesky.apply(A, upper)
    if check_errors:
        _raise_info(info, "linalg.cholesky", _not_pd)
    return _CHOLESKY_EX((L, info))


@_empty_half_as_float
def cholesky(A, *, upper=False, out=None):
    """The Cholesky factor of a Hermitian (symmetric) positive-definite A, reading its lower (or upper)
    triangle; LinAlgError otherwise."""
    _check(A, "linalg.cholesky", kernel="cholesky")
    L, info = _Cholesky.apply(A, upper)
    _raise_info(info, "linalg.cholesky", _not_pd)
    return write_out(L, out, "linalg_cholesky_ex")


def _check_b_and_A(b, A):
    """The dtype check of the legacy solvers (cholesky_solve, triangular_solve), in their words."""
    if b.dtype != A.dtype:
        raise RuntimeError(
            f"Expected b and A to have the same dtype, but found b of type {scalar_name(b.dtype)} and A of type "
            f"{scalar_name(A.dtype)} instead."
        )


# PyTorch's parser checks these legacy spellings' arguments before they run (an int for upper, some or
# compute_uv would otherwise be taken as its truth value): checked upfront, cheap beside the factorizations
@_argcheck.parses("Tensor input, Tensor input2, bool upper=False, *, Tensor? out=None")
def cholesky_solve(B, L, upper=False, *, out=None):
    """The solution of A X = B given A's Cholesky factor L (A = L L^H, or U^H U)."""
    fn = "cholesky_solve"
    if B.dim() < 2 or L.dim() < 2:
        raise RuntimeError(f"{fn}: The input tensor B must have at least 2 dimensions.")
    _check(L, "linalg.cholesky_solve", kernel="cholesky_solve")
    _check_b_and_A(B, L)
    _check_same(L, B, fn)
    if upper:
        Y = solve_triangular(_mH(L), B, upper=False)
        return write_out(solve_triangular(L, Y, upper=True), out, fn, "castable", fn + _CASTABLE_TAIL)
    Y = solve_triangular(L, B, upper=False)
    return write_out(solve_triangular(_mH(L), Y, upper=True), out, fn, "castable", fn + _CASTABLE_TAIL)


@_argcheck.parses("Tensor input, bool upper=False, *, Tensor? out=None")
def cholesky_inverse(L, upper=False, *, out=None):
    """A^-1 from A's Cholesky factor."""
    _check(L, "cholesky_inverse", square=True, kernel="cholesky_inverse_out", dispatch_all=True)
    fn = "cholesky_inverse"
    return write_out(cholesky_solve(_eye_like(L), L, upper), out, fn, "castable", fn + _CASTABLE_TAIL)


# ----------------------------------------------------------------------------------------------------- QR


class _Geqrf(Function):
    # PyTorch records geqrf with a backward that raises: its results require grad, and a gradient asked
    # through them fails instead of silently leaving out the path through geqrf
    @staticmethod
    def forward(ctx, input):
        return tuple(_C._linalg_geqrf(input))

    @staticmethod
    def backward(ctx, ga, gtau):
        raise NotImplementedError("the derivative for 'geqrf' is not implemented.")


def geqrf(input, *, out=None):
    """LAPACK's geqrf: R above the diagonal, the Householder reflectors below, and their scales tau."""
    _check(input, "geqrf", square=False, kernel="geqrf")
    if input.requires_grad and _C.is_grad_enabled():
        return _GEQRF(_Geqrf.apply(input))
    return _GEQRF(_C._linalg_geqrf(input.detach()))


@_argcheck.parses(
    "Tensor input, Tensor tau, *, Tensor? out=None", name="linalg_householder_product", upfront=False
)
def householder_product(A, tau, *, out=None):
    """The first n columns of the product of the Householder reflectors stored in A's columns (LAPACK orgqr)."""
    _householder_check(A, tau)
    if _C.is_grad_enabled() and (A.requires_grad or tau.requires_grad):
        Q = _householder_product_composed(A, tau)
    else:
        Q = _C._linalg_householder_product(A, tau)
    return write_out(
        Q,
        out,
        "linalg_householder_product",
        "castable",
        "torch.linalg.householder_product" + _CASTABLE_TAIL,
    )


def _householder_check(A, tau):
    """PyTorch's checks of householder_product's operands, in its words and order: the shapes before the dtypes."""
    fn = "torch.linalg.householder_product"
    if A.dim() < 2:
        raise RuntimeError(f"{fn}: input must have at least 2 dimensions.")
    if A.size(-2) < A.size(-1):
        raise RuntimeError(f"{fn}: input.shape[-2] must be greater than or equal to input.shape[-1]")
    if A.size(-1) < tau.size(-1):
        raise RuntimeError(f"{fn}: input.shape[-1] must be greater than or equal to tau.shape[-1]")
    if A.dim() - tau.dim() != 1:
        raise RuntimeError(
            f"{fn}: Expected tau to have one dimension less than input, but got tau.ndim equal to {tau.dim()} and "
            f"input.ndim is equal to {A.dim()}"
        )
    if tuple(tau.shape[:-1]) != tuple(A.shape[:-2]):
        raise RuntimeError(
            f"{fn}: Expected batch dimensions of tau to be equal to input.shape[:-2], but got {list(tau.shape[:-1])}"
        )
    if tau.dtype != A.dtype:
        raise RuntimeError(
            f"{fn}: tau dtype {scalar_name(tau.dtype)} does not match input dtype {scalar_name(A.dtype)}"
        )
    if A.dtype not in _INEXACT:
        raise NotImplementedError(f"\"orgqr_cpu\" not implemented for '{scalar_name(A.dtype)}'")


def _householder_product_composed(A, tau):
    """householder_product in recorded ops, so autograd differentiates it (to any order) in A and tau:
    Q = H_1 H_2 ... H_k applied to the first n columns of I, H_j = I - tau_j v_j v_j^H, v_j being A's column j
    below the diagonal with an implicit 1 on it (LAPACK's orgqr)."""
    m, n = A.shape[-2], A.shape[-1]
    k = tau.shape[-1]
    V = A[..., :, :k].tril(-1) + _C.eye(m, k, dtype=A.dtype, device=A.device)
    # the scaled reflectors tau_j v_j and the rows v_j^H, each split once: three recorded ops per reflector
    # (two products and a difference) instead of seven with the per-step indexing and scaling
    TV = (V * tau[..., None, :]).split(1, -1)
    Vh = _mH(V).split(1, -2)
    Q = _C.eye(m, n, dtype=A.dtype, device=A.device).expand(*A.shape[:-2], m, n)
    for j in reversed(range(k)):
        # H_j Q = Q - tau_j v_j (v_j^H Q)
        Q = Q - TV[j] @ (Vh[j] @ Q)
    return Q


def _syminvadj(X):
    """X + X^H with the diagonal counted once (its real part: R's diagonal is real)."""
    return X + _mH(X) - _diag_embed(_diagonal(X).real)


def _qr_backward_tall(gQ, gR, Q, R):
    """PyTorch's formula for A = Q R with m >= n (reduced): gA = [gQ + Q syminvadj(triu(gR R^H - Q^H gQ))] R^-H."""
    M = gR @ _mH(R) if gR is not None else 0
    if gQ is not None:
        M = M - _mH(Q) @ gQ
    gA = Q @ _syminvadj(M.triu())
    if gQ is not None:
        gA = gA + gQ
    return solve_triangular(_mH(R), gA, upper=False, left=False)


class _QRFunction(Function):
    @staticmethod
    def forward(ctx, A, mode):
        m, n = A.shape[-2], A.shape[-1]
        k = builtins.min(m, n)
        a, tau = _C._linalg_geqrf(A)
        R = (a if mode == "complete" else a[..., :k, :]).triu()
        if mode == "r":
            Q = _C.empty((0,), dtype=A.dtype, device=A.device)
        elif mode == "complete" and m > n:
            pad = _C.zeros(tuple(A.shape[:-1]) + (m - n,), dtype=A.dtype, device=A.device)
            Q = _C._linalg_householder_product(_C.cat([a, pad], -1), tau)
        else:
            Q = _C._linalg_householder_product(a[..., :, :k], tau)
        ctx.mode = mode
        ctx.save_for_backward(A, Q, R)
        return Q, R

    @staticmethod
    def backward(ctx, gQ, gR):
        A, Q, R = ctx.saved_tensors
        m, n = A.shape[-2], A.shape[-1]
        if ctx.mode == "r":
            raise RuntimeError(
                "The derivative of linalg.qr depends on Q, which is not computed when mode='r'. Please use "
                "linalg.qr(A, mode='reduced') if you are going to differentiate through linalg.qr."
            )
        if ctx.mode == "complete" and m > n:
            raise RuntimeError(
                "The QR decomposition is not differentiable when mode='complete' and nrows > ncols."
            )
        if m >= n:
            return _qr_backward_tall(gQ, gR, Q, R), None
        # wide: A = Q [R1 R2] with X = A[:, :m] = Q R1 and Y = A[:, m:] = Q R2
        Y = A[..., m:]
        gR1, gR2 = (None, None) if gR is None else (gR[..., :m], gR[..., m:])
        gQx = gQ if gR2 is None else (Y @ _mH(gR2) if gQ is None else gQ + Y @ _mH(gR2))
        gX = _qr_backward_tall(gQx, gR1, Q, R[..., :m])
        gY = _C.zeros_like(Y) if gR2 is None else Q @ gR2
        return _C.cat([gX, gY], -1), None


def qr(A, mode="reduced", *, out=None):
    """(Q, R) with A = Q R (Householder QR, LAPACK geqrf/orgqr); mode 'reduced', 'complete' or 'r'."""
    if not _C._is_tensor(A):
        raise TypeError(f"linalg_qr(): argument 'A' (position 1) must be Tensor, not {type(A).__name__}")
    if not isinstance(mode, str):
        raise TypeError(f"linalg_qr(): argument 'mode' (position 2) must be str, not {type(mode).__name__}")
    _check(A, "linalg.qr", square=False, kernel="geqrf")  # PyTorch checks A (rank, dtype) before the mode
    if mode not in ("reduced", "complete", "r"):
        raise RuntimeError(
            f"qr received unrecognized mode '{mode}' but expected one of 'reduced' (default), 'r', or 'complete'"
        )
    return _QR(_QRFunction.apply(A, mode))


# -------------------------------------------------------------------------------------------------- eigh


class _Eigh(Function):
    @staticmethod
    def forward(ctx, A, upper):
        w, V, info = _C._linalg_eigh(A, upper, True)
        _raise_info(info, "linalg.eigh", _no_convergence("eigenvalues"))
        ctx.save_for_backward(w, V)
        return w, V

    @staticmethod
    def backward(ctx, gw, gV):
        w, V = ctx.saved_tensors
        Vh = _mH(V)
        if _absent(gV):  # the eigenvalues alone: no division by their gaps (zero for repeated ones)
            return (V * gw.unsqueeze(-2)) @ Vh, None
        # PyTorch's gA = V (diag(gw) + skew(V^H gV) / E) V^H, E_ij = w_j - w_i, skew(X) = (X - X^H) / 2: the
        # projection onto the tangent space of the unitary group makes gA Hermitian
        VhgV = Vh @ gV
        if V.is_complex():
            _check_phase_invariance(_diagonal(VhgV).imag, _EIGVEC_PHASE.format("linalg_eigh_backward"))
        E = w.unsqueeze(-2) - w.unsqueeze(-1)
        eye = _C.eye(w.shape[-1], dtype=w.dtype, device=w.device)
        inner = 0.5 * (VhgV - _mH(VhgV)) / (E + eye) * (1.0 - eye) + _diag_embed(gw)
        return V @ inner @ Vh, None


def _uplo(UPLO):
    if UPLO not in ("L", "U"):
        raise RuntimeError(f"Expected UPLO argument to be 'L' or 'U', but got {UPLO}")
    return UPLO == "U"


@_argcheck.parses('Tensor A, str UPLO="L", *, Tensor? out=None', name="linalg_eigh")
@_empty_half_as_float
def eigh(A, UPLO="L", *, out=None):
    """(eigenvalues ascending, orthonormal eigenvectors) of a Hermitian (symmetric) A, reading its UPLO triangle;
    the eigenvalues are real (float32 for complex64, float64 for complex128)."""
    _check(A, "linalg.eigh", kernel="linalg_eigh")
    upper = _uplo(UPLO)
    return _EIGH(_Eigh.apply(A, upper))


@_argcheck.parses('Tensor A, str UPLO="L", *, Tensor? out=None', name="linalg_eigvalsh")
@_empty_half_as_float
def eigvalsh(A, UPLO="L", *, out=None):
    """The eigenvalues of a Hermitian (symmetric) A, ascending and real."""
    _check(A, "linalg.eigh", kernel="linalg_eigh")
    upper = _uplo(UPLO)
    if A.requires_grad and _C.is_grad_enabled():
        return write_out(_Eigh.apply(A, upper)[0], out, "_linalg_eigh")
    w, _, info = _C._linalg_eigh(A.detach(), upper, False)
    _raise_info(info, "linalg.eigh", _no_convergence("eigenvalues"))
    return write_out(w, out, "_linalg_eigh")


# PyTorch's error when a loss of complex eigenvectors (or singular vectors) depends on their arbitrary phases
_EIGVEC_PHASE = (
    "{}: The eigenvectors in the complex case are specified up to multiplication by e^{{i phi}}. The specified "
    "loss function depends on this quantity, so it is ill-defined."
)
_SVD_PHASE = (
    "svd_backward: The singular vectors in the complex case are specified up to multiplication by e^{i phi}. The "
    "specified loss function depends on this phase term, making it ill-defined."
)


def _absent(g):
    """Whether an output's gradient is the zeros autograd passes for an unused output (taken as absent, as
    PyTorch's undefined gradient, so that no 0/0 enters); a gradient that is itself differentiated is kept."""
    return g is None or (not g.requires_grad and not bool(g.any()))


def _check_phase_invariance(im, message):
    """Multiplying a column v of V by e^{i phi} moves the loss by phi Im(v^H g): PyTorch demands those terms
    vanish (allclose to 0 with rtol = atol = 1e-2) so that the gradient does not depend on LAPACK's phases."""
    if im.numel() and bool((im.abs() > 1e-2).any()):
        raise RuntimeError(message)


class _Eig(Function):
    """eig of a general square matrix; backward is PyTorch's linalg_eig_backward (eigenvectors of unit norm),
    whose result for a real A is the real part."""

    @staticmethod
    def forward(ctx, A):
        L, V, info = _C._linalg_eig(A, True)
        _raise_info(info, "linalg.eig", _no_convergence("eigenvalues"))
        ctx.real_input = not A.is_complex()
        ctx.save_for_backward(L, V)
        return L, V

    @staticmethod
    def backward(ctx, gL, gV):
        L, V = ctx.saved_tensors
        Vh = _mH(V)
        Lc = L.conj()
        E = Lc.unsqueeze(-2) - Lc.unsqueeze(-1)
        eye = _C.eye(L.shape[-1], dtype=_C.bool, device=L.device)
        E = E.masked_fill(eye, 1)
        g = _diag_embed_op(gL)
        if not _absent(gV):
            VhgV = Vh @ gV
            diag = _diagonal(VhgV)
            _check_phase_invariance(diag.imag, _EIGVEC_PHASE.format("linalg_eig_backward"))
            # the projection onto the tangent space of matrices with columns of unit norm
            g = g + ((VhgV - Vh @ (V * diag.real.unsqueeze(-2))) / E).masked_fill(eye, 0)
        gA = solve(Vh, g @ Vh)  # V^-H g V^H
        return gA.real if ctx.real_input else gA


_EIG = _make("linalg_eig", ("eigenvalues", "eigenvectors"))


def _check_eig(A, fn):
    if (
        _C._is_tensor(A)
        and not (A.dtype.is_floating_point or A.dtype.is_complex)
        and A.dim() >= 2
        and A.shape[-1] == A.shape[-2]
    ):
        # PyTorch looks up the complex result type first, which integers do not have
        raise RuntimeError(f"Unknown Complex ScalarType for {scalar_name(A.dtype)}")
    _check(A, fn, kernel="linalg_eig_out")


def eig(A, *, out=None):
    """(eigenvalues, eigenvectors) of a general square A, both complex (complex64 for float32 and complex64,
    complex128 for float64 and complex128); eigenvectors of unit norm, as LAPACK's geev gives them (PyTorch's CPU
    uses the same)."""
    _check_eig(A, "linalg.eig")
    if A.requires_grad and _C.is_grad_enabled():
        res = _EIG(_Eig.apply(A))
    else:
        L, V, info = _C._linalg_eig(A.detach(), True)
        _raise_info(info, "linalg.eig", _no_convergence("eigenvalues"))
        res = _EIG((L, V))
    if out is None:
        return res
    write_out(res[0], out[0], "linalg_eig", "castable", _EIGVALS_CAST.format("eig"))
    write_out(res[1], out[1], "linalg_eig", "castable", _EIGVECS_CAST)
    return _EIG(tuple(out))


def eigvals(A, *, out=None):
    """The eigenvalues of a general square A, complex (see eig)."""
    _check_eig(A, "linalg.eigvals")
    if A.requires_grad and _C.is_grad_enabled():
        return write_out(_Eig.apply(A)[0], out, None, "castable", _EIGVALS_CAST.format("eigvals"))
    L, _, info = _C._linalg_eig(A.detach(), False)
    _raise_info(info, "linalg.eigvals", _no_convergence("eigenvalues"))
    return write_out(L, out, None, "castable", _EIGVALS_CAST.format("eigvals"))


# --------------------------------------------------------------------------------------------------- SVD


class _SVDFunction(Function):
    @staticmethod
    def forward(ctx, A, full_matrices):
        _raise_if_nan(A, None, "linalg.svd")
        U, S, Vh, info = _C._linalg_svd(A, full_matrices, True)
        _raise_if_nan(A, info, "linalg.svd")
        _raise_info(info, "linalg.svd", _no_convergence("singular values"))
        ctx.save_for_backward(U, S, Vh)
        return U, S, Vh

    @staticmethod
    def backward(ctx, gU, gS, gVh):
        U, S, Vh = ctx.saved_tensors
        m, n = U.shape[-2], Vh.shape[-1]
        k = S.shape[-1]
        # full_matrices: the extra columns of U and rows of Vh do not enter the gradient (PyTorch's rule)
        U, Vh = U[..., :, :k], Vh[..., :k, :]
        no_gU, no_gVh = _absent(gU), _absent(gVh)
        if no_gU and no_gVh:  # the singular values alone: no division by their gaps or by them
            return (U * gS.unsqueeze(-2)) @ Vh, None
        gU, gVh = gU[..., :, :k], gVh[..., :k, :]
        V, gV = _mH(Vh), _mH(gVh)
        UhgU = _mH(U) @ gU
        VhgV = _mH(V) @ gV
        diag_S = gS
        if U.is_complex():
            # (u_i, v_i) -> e^{i phi} (u_i, v_i) leaves A alone and moves the loss by phi Im(u_i^H gu_i + v_i^H gv_i)
            im_U, im_V = _diagonal(UhgU).imag, _diagonal(VhgV).imag
            _check_phase_invariance(im_U + im_V, _SVD_PHASE)
            # the phases' part of Im(u_i^H dA v_i) / s_i, split evenly between u_i and v_i
            diag_S = gS + 1j * (im_U - im_V) / (2.0 * S)
        eye = _C.eye(k, dtype=S.dtype, device=S.device)
        S2 = S * S
        F = (1.0 - eye) / (S2.unsqueeze(-2) - S2.unsqueeze(-1) + eye)  # 1 / (s_j^2 - s_i^2) off the diagonal
        Sr = S.unsqueeze(-2)  # scales columns
        Sc = S.unsqueeze(-1)  # scales rows
        # gA = U [(F o (U^H gU - gU^H U)) S + S (F o (V^H gV - gV^H V)) + diag] V^H, plus the parts of gU and gV
        # outside the spans of U and V when A is not square
        inner = (F * (UhgU - _mH(UhgU))) * Sr + Sc * (F * (VhgV - _mH(VhgV))) + _diag_embed(diag_S)
        gA = U @ inner @ Vh
        if m > k and not no_gU:
            gA = gA + ((gU - U @ UhgU) / Sr) @ Vh
        if n > k and not no_gVh:
            gA = gA + U @ ((_mH(gV) - _mH(VhgV) @ Vh) / Sc)
        return gA, None


@_argcheck.parses(
    "Tensor A, bool full_matrices=True, *, str? driver=None, Tensor[]? out=None", name="linalg_svd"
)
@_empty_half_as_float
def svd(A, full_matrices=True, *, driver=None, out=None):
    """(U, S, Vh) with A = U diag(S) Vh, S descending and real (LAPACK gesdd)."""
    _check(A, "linalg.svd", square=False, kernel="linalg_svd")
    if driver is not None:
        raise RuntimeError(
            "torch.linalg.svd: keyword argument `driver=` is only supported on CUDA inputs with cuSOLVER backend."
        )
    return _SVD(_SVDFunction.apply(A, full_matrices))


@_argcheck.parses("Tensor A, *, str? driver=None, Tensor? out=None", name="linalg_svdvals")
@_empty_half_as_float
def svdvals(A, *, driver=None, out=None):
    """The singular values of A, descending."""
    _check(A, "linalg.svd", square=False, kernel="linalg_svd")
    if A.requires_grad and _C.is_grad_enabled():
        return write_out(svd(A, full_matrices=False).S, out, "_linalg_svd")
    _raise_if_nan(A, None, "linalg.svd")
    S, info = _C._linalg_svd(A.detach(), False, False)[1::2]
    _raise_if_nan(A, info, "linalg.svd")
    _raise_info(info, "linalg.svd", _no_convergence("singular values"))
    return write_out(S, out, "_linalg_svd")


# ------------------------------------------------------------------------------- least squares, pinv, rank


@_argcheck.parses("Tensor input, Tensor b, float? rcond=None, *, str? driver=None", name="linalg_lstsq")
def lstsq(input, b, rcond=None, *, driver=None):
    """(solution, residuals, rank, singular_values) of min ||A X - B|| (A input, B b; LAPACK gelsy by default
    on the CPU; gels, the only driver, on CUDA)."""
    fn = "torch.linalg.lstsq"
    A, B = input, b
    # PyTorch's checks in its order: ranks, dtypes, the rows, the driver, then the dtype's kind
    if A.dim() < 2:
        raise RuntimeError(f"{fn}: input must have at least 2 dimensions.")
    if B.dim() < 1:
        raise RuntimeError(f"{fn}: other must have at least 1 dimension.")
    if A.dtype != B.dtype:
        raise RuntimeError(
            f"{fn}: Expected input and other to have the same dtype, but got input's dtype {scalar_name(A.dtype)} "
            f"and other's dtype {scalar_name(B.dtype)}"
        )
    if not 0 <= A.dim() - B.dim() <= 1:
        raise RuntimeError(
            f"{fn}: input.dim() must be greater or equal to other.dim() and (input.dim() - other.dim()) <= 1"
        )
    # PyTorch's linalg_solve_is_vector_rhs: a vector (batch) is the input's shape without its last dim; another
    # other of one dim less is a matrix whose batch PyTorch pads with a trailing 1 (its unsqueeze(-3)) before
    # broadcasting (a (1, 2, 2, 2) input and a (2, 2, 1) other give a (2, 2, 2, 1) solution)
    vector = B.dim() == 1 or (B.dim() == A.dim() - 1 and tuple(B.shape) == tuple(A.shape[:-1]))
    Bm = B.unsqueeze(-1) if vector else B.unsqueeze(-3) if B.dim() == A.dim() - 1 else B
    if Bm.shape[-2] != A.shape[-2]:
        raise RuntimeError(f"{fn}: input.size(-2) should match other.size({-1 if vector else -2})")
    _check_same(A, Bm, fn)
    # PyTorch's CUDA lstsq has gels only (cuSOLVER's QR): its default there, and the only driver it takes
    if driver is None:
        driver = "gels" if A.is_cuda else "gelsy"
    elif A.is_cuda and driver != "gels":
        raise RuntimeError(f"{fn}: `driver` other than `gels` is not supported on CUDA")
    if driver not in ("gels", "gelsy", "gelsd", "gelss"):
        raise RuntimeError(f"{fn}: parameter `driver` should be one of (gels, gelsy, gelsd, gelss)")
    if A.dtype not in _INEXACT:
        # without rcond PyTorch first computes its default from the dtype's epsilon, which only float types
        # have; given one, the kernel's dtype dispatch refuses
        if rcond is None:
            raise RuntimeError("This function doesn't handle types other than float and double")
        raise NotImplementedError(
            f"\"linalg_lstsq_{A.device.type}\" not implemented for '{scalar_name(A.dtype)}'"
        )
    A2, B2 = _batch_broadcast(A, Bm, fn, 2)
    m, n = A.shape[-2], A.shape[-1]
    rc = -1.0 if rcond is None else float(rcond)
    X, rank, sv, info = _C._linalg_lstsq(A2.detach(), B2.detach(), rc, driver)
    if driver == "gels":
        _raise_info(
            info,
            fn,
            lambda c: (
                "The least squares solution could not be computed because the input matrix does not have full "
                f"rank (error code: {c})."
            ),
        )
    sol = X[..., :n, :]
    full_rank = bool((rank == builtins.min(m, n)).all()) if rank.numel() else True
    if m > n and driver != "gelsy" and full_rank:
        residuals = (X[..., n:, :].abs() ** 2).sum(-2)
    else:
        residuals = _C.empty((0,), dtype=_real_dtype(A.dtype), device=A.device)
    if driver == "gels":
        rank = _C.empty((0,), dtype=_C.int64, device=A.device)
    # rank and singular values are the input's, over its own batch (not the batch broadcast with other's):
    # the broadcast copies of one matrix hold the same values, the first is kept
    batch = tuple(A.shape[:-2])
    if tuple(A2.shape[:-2]) != batch:
        rank = _input_batch(rank, batch, 0)
        sv = _input_batch(sv, batch, 1)
    if (A.requires_grad or B.requires_grad) and _C.is_grad_enabled():
        sol = _LstsqGrad.apply(A2, B2, sol)
    if vector:
        sol = sol.squeeze(-1)
    return _LSTSQ((sol, residuals, rank, sv))


def _input_batch(t, batch, tail):
    """t (over a broadcast batch, then `tail` dims) cut to the input's own batch; an empty result as it is."""
    if t.numel() == 0:
        return t
    lead = t.dim() - tail - len(batch)
    return t[(0,) * lead + tuple(slice(0, 1) if b == 1 else slice(None) for b in batch)]


class _LstsqGrad(Function):
    """The least-squares solution as a function of A and B: the backward differentiates pinv(A) @ B."""

    @staticmethod
    def forward(ctx, A, B, X):
        ctx.save_for_backward(A, B)
        return X.clone()

    @staticmethod
    def backward(ctx, gX):
        from minitorch import autograd
        from minitorch.autograd.grad_mode import enable_grad

        A, B = ctx.saved_tensors
        with enable_grad():
            a = A.detach().requires_grad_(ctx.needs_input_grad[0])
            b = B.detach().requires_grad_(ctx.needs_input_grad[1])
            X = pinv(a) @ b
            inputs = [t for t in (a, b) if t.requires_grad]
            grads = list(autograd.grad([X], inputs, [gX], allow_unused=True))
        gA = grads.pop(0) if ctx.needs_input_grad[0] else None
        gB = grads.pop(0) if ctx.needs_input_grad[1] else None
        return gA, gB, None


def _tolerance(S, m, n, atol, rtol, dtype):
    """max(atol, rtol * largest singular value), per matrix, broadcast against S's last dim."""
    eps = 1.1920928955078125e-07 if _real_dtype(dtype) == _C.float32 else 2.220446049250313e-16
    if rtol is None:
        atol_given = atol is not None and (_C._is_tensor(atol) or atol > 0)
        rtol = 0.0 if atol_given else eps * builtins.max(m, n)
    smax = S.amax(-1, keepdim=True) if S.shape[-1] else _C.zeros_like(S.sum(-1, keepdim=True))
    at = 0.0 if atol is None else (atol.unsqueeze(-1) if _C._is_tensor(atol) else atol)
    rt = rtol.unsqueeze(-1) if _C._is_tensor(rtol) else rtol
    return _C.maximum(smax * rt, _C.zeros_like(smax) + at)


_NO_TOL = object()  # the deprecated positional tol not given


def matrix_rank(A, tol=_NO_TOL, hermitian=False, *, atol=None, rtol=None, out=None):
    """The number of singular values above max(atol, rtol * largest) (rtol defaults to eps * max(m, n));
    the older positional tol is an absolute tolerance."""
    if not _C._is_tensor(A):
        raise TypeError(
            f"linalg_matrix_rank(): argument 'input' (position 1) must be Tensor, not {type(A).__name__}"
        )
    if tol is None or not (tol is _NO_TOL or _C._is_tensor(tol) or isinstance(tol, numbers.Real)):
        # given as None, a str, ...: no overload takes it
        raise TypeError(
            "linalg_matrix_rank() received an invalid combination of arguments - got (Tensor, "
            f"{_argcheck._kind_name(tol)}), but "
            "expected one of:\n * (Tensor input, *, Tensor atol = None, Tensor rtol = None, bool hermitian = False, "
            "Tensor out = None)\n * (Tensor input, Tensor tol, bool hermitian = False, *, Tensor out = None)\n"
            " * (Tensor input, *, float atol = None, float rtol = None, bool hermitian = False, Tensor out = None)\n"
            " * (Tensor input, float tol, bool hermitian = False, *, Tensor out = None)\n"
        )
    if tol is _NO_TOL:
        tol = None
    if A.dim() < 2:
        raise RuntimeError(
            "torch.linalg.matrix_rank: The input tensor input must have at least 2 dimensions."
        )
    if A.dtype not in _INEXACT:
        if tol is None:
            raise RuntimeError("This function doesn't handle types other than float and double")
        # the deprecated positional tol goes straight to svd, which refuses (no matrices: zeros)
        if A.numel():
            raise NotImplementedError(
                f"linalg.svd: Expected a floating point or complex tensor as input. Got {scalar_name(A.dtype)}"
            )
    if tol is not None:
        atol, rtol = tol, 0.0
    if hermitian is not True and hermitian is not False:  # 1 == True, but no bool to the parser
        raise TypeError(
            f"linalg_matrix_rank(): argument 'hermitian' must be bool, not {type(hermitian).__name__}"
        )
    m, n = A.shape[-2], A.shape[-1]
    if A.numel() == 0:  # PyTorch's shortcut: no singular values, rank 0 per matrix, the tolerances unused
        return write_out(
            _C.zeros(tuple(A.shape[:-2]), dtype=_C.int64, device=A.device),
            out,
            None,
            "castable",
            "torch.linalg.matrix_rank" + _CASTABLE_TAIL,
        )
    S = eigvalsh(A.detach()).abs() if hermitian else svdvals(A.detach())
    tol_ = _tolerance(S, m, n, atol, rtol, A.dtype)
    return write_out((S > tol_).sum(-1), out, None, "castable", "torch.linalg.matrix_rank" + _CASTABLE_TAIL)


@_argcheck.parses(
    "Tensor input, *, Tensor? atol=None, Tensor? rtol=None, bool hermitian=False, Tensor out=None",
    "Tensor input, *, float? atol=None, float? rtol=None, bool hermitian=False, Tensor out=None",
    "Tensor input, Tensor rcond, bool hermitian=False, *, Tensor out=None",
    "Tensor input, float rcond, bool hermitian=False, *, Tensor out=None",
    name="linalg_pinv",
)
def pinv(input, rcond=None, hermitian=False, *, atol=None, rtol=None, out=None):
    """The Moore-Penrose pseudo-inverse through the SVD (the eigendecomposition when hermitian); the older
    positional rcond is a relative tolerance (PyTorch's overloads: rcond, when given, is a number or a tensor,
    never None, and excludes atol/rtol)."""
    A = input
    if rcond is not None:
        atol, rtol = 0.0, rcond
    if not _C._is_tensor(A):
        raise TypeError(
            f"linalg_pinv(): argument 'input' (position 1) must be Tensor, not {type(A).__name__}"
        )
    if _C.is_grad_enabled():  # PyTorch has no derivative for the tolerances
        for name, tol in (("atol", atol), ("rtol", rtol)):
            if isinstance(tol, _C.Tensor) and tol.requires_grad:
                raise RuntimeError(
                    f"The function 'linalg_pinv' is not differentiable with respect to argument '{name}'. This "
                    "input cannot have requires_grad True."
                )
    if A.dim() < 2 or A.dtype not in _INEXACT:
        kind = scalar_name(A.dtype)
        raise RuntimeError(
            f"linalg.pinv({kind}{{{list(A.shape)}}}): expected a tensor with 2 or more dimensions of float, double, "
            "cfloat or cdouble types"
        )
    m, n = A.shape[-2], A.shape[-1]
    if A.numel() == 0:  # PyTorch's shortcut: the empty transpose, the tolerances unused (not broadcast)
        return write_out(_mH(A).clone(), out, "linalg_pinv", "castable", "linalg.pinv" + _CASTABLE_TAIL)
    if hermitian:
        w, V = eigh(A)
        tol_ = _tolerance(w.abs(), m, n, atol, rtol, A.dtype)
        keep = w.abs() > tol_
        winv = _C._where(keep, 1.0 / _C._where(keep, w, 1.0), 0.0)
        return write_out(
            (V * winv.unsqueeze(-2)) @ _mH(V), out, "linalg_pinv", "castable", "linalg.pinv" + _CASTABLE_TAIL
        )
    U, S, Vh = svd(A, full_matrices=False)
    tol_ = _tolerance(S, m, n, atol, rtol, A.dtype)
    keep = S > tol_
    Sinv = _C._where(keep, 1.0 / _C._where(keep, S, 1.0), 0.0)
    return write_out(
        _mH(Vh) @ (Sinv.unsqueeze(-1) * _mH(U)),
        out,
        "linalg_pinv",
        "castable",
        "linalg.pinv" + _CASTABLE_TAIL,
    )


@_argcheck.parses("Tensor input, float rcond=1e-15")
def pinverse(input, rcond=1e-15):
    """torch.pinverse: pinv with a relative cut-off rcond."""
    return pinv(input, atol=0.0, rtol=rcond)


# ------------------------------------------------------------------------------------------ matrix_exp

# Higham's (2005) degree-13 Pade approximant of exp with scaling and squaring: the coefficients, and the 1-norm
# below which degree 13 needs no scaling for double-precision accuracy.
_PADE13 = (
    64764752532480000.0,
    32382376266240000.0,
    7771770303897600.0,
    1187353796428800.0,
    129060195264000.0,
    10559470521600.0,
    670442572800.0,
    33522128640.0,
    1323241920.0,
    40840800.0,
    960960.0,
    16380.0,
    182.0,
    1.0,
)
_THETA13 = 5.371920351148152


@_empty_half_as_float
def matrix_exp(A):
    """exp(A) = sum A^k / k! (Pade 13 with scaling and squaring); differentiable through its matmuls and solve."""
    if _C._is_tensor(A) and A.dtype in _LOW:
        # PyTorch's CPU kernel takes float16/bfloat16 (and loses every digit past 1 x 1 there:
        # docs/reliability.md); computed in float32 and rounded, as the other half-precision ops
        return matrix_exp(A.float()).to(A.dtype)
    _check(A, "linalg.matrix_exp", kernel="matrix_exp")
    if A.numel() == 0 or A.is_meta:  # (the scaling reads the norms: a meta result is the input's shape)
        return A.clone()
    norm = A.detach().abs().sum(-2).amax(-1)  # the 1-norm of each matrix
    # each matrix its own scaling, as PyTorch's: one shared s from the batch's largest norm would square every
    # matrix as often as the largest needs (a batch holding a 1e30 entry turned its neighbours into zeros), and a
    # NaN norm would have hidden every other one
    steps = _C.clamp(_C.ceil(_C.log2(norm.double() / _THETA13)), min=0).nan_to_num(0.0, 0.0, 0.0)
    s = int(steps.max()) if steps.numel() else 0
    X = A / _C.exp2(steps).to(A.dtype).unsqueeze(-1).unsqueeze(-1) if s else A
    b = _PADE13
    eye = _eye_like(A)
    X2 = X @ X
    X4 = X2 @ X2
    X6 = X4 @ X2
    U = X @ (X6 @ (b[13] * X6 + b[11] * X4 + b[9] * X2) + b[7] * X6 + b[5] * X4 + b[3] * X2 + b[1] * eye)
    V = X6 @ (b[12] * X6 + b[10] * X4 + b[8] * X2) + b[6] * X6 + b[4] * X4 + b[2] * X2 + b[0] * eye
    E = solve(V - U, V + U)
    uniform = bool((steps == s).all())
    for k in range(s):
        squared = E @ E
        E = squared if uniform else _C._where((steps > k).unsqueeze(-1).unsqueeze(-1), squared, E)
    return E


# ----------------------------------------------------------------------------------- tensorinv, tensorsolve


def tensorinv(A, ind=2, *, out=None):
    """The inverse of A seen as a matrix of its first ind dims by the rest."""
    _argcheck.check_tensor_like("linalg_tensorinv", "input", 1, A)
    if not _argcheck._int_like(ind, True):
        raise TypeError(
            f"linalg_tensorinv(): argument 'ind' (position 2) must be int, not {_argcheck._kind_name(ind)}"
        )
    ind = int(ind)  # a NumPy int or a 0-dim integer tensor, as PyTorch's parser takes them
    if ind <= 0:
        raise RuntimeError(f"Expected a strictly positive integer for 'ind', but got {ind}")
    if ind > A.dim():  # ATen slices A's sizes at ind
        raise RuntimeError(f"ArrayRef: invalid slice, N = {ind}; size = {A.dim()}")
    rows = tuple(A.shape[:ind])
    cols = tuple(A.shape[ind:])
    r, c = math.prod(rows), math.prod(cols)
    if r != c:
        raise RuntimeError(
            f"Expected self to satisfy the requirement prod(self.shape[ind:]) == prod(self.shape[:ind]), but got "
            f"{c} != {r}"
        )
    return write_out(
        inv(A.reshape(r, c)).reshape(cols + rows), out, None, "castable", "tensorinv" + _CASTABLE_TAIL
    )


def tensorsolve(A, B, dims=None, *, out=None):
    """X with tensordot(A, X, X.ndim) == B."""
    if dims is not None:
        if not isinstance(dims, (list, tuple)):
            raise TypeError(
                f"linalg_tensorsolve(): argument 'dims' (position 3) must be tuple of ints, not {type(dims).__name__}"
            )
        nd = A.dim()
        dims = [d % nd for d in dims]
        order = [d for d in range(nd) if d not in dims] + list(dims)
        A = A.permute(order)
    xshape = tuple(A.shape[B.dim() :])
    n = math.prod(xshape)
    return write_out(
        solve(A.reshape(-1, n), B.reshape(-1)).reshape(xshape),
        out,
        None,
        "castable",
        "tensorsolve" + _CASTABLE_TAIL,
    )


# ------------------------------------------------------------------------------------- randomized low rank


def _approximate_basis(A, q, niter, M):
    """An orthonormal basis Q [.., m, q] of (A - M)'s range (Halko et al. 2009, algorithm 4.4), as PyTorch's
    get_approximate_basis: one random (n, q) matrix in A's floating dtype (float32 for the others), whose
    products with an integer or bool A fail in matmul's words."""
    niter = 2 if niter is None else niter
    dtype = A.dtype if A.is_complex() or A.dtype in (_C.float16, _C.float32, _C.float64) else _C.float32
    R = _C.randn(A.shape[-1], q, dtype=dtype, device=A.device)
    X = A @ R if M is None else A @ R - M @ R
    Q = qr(X).Q
    for _ in range(niter):
        X = _mH(A) @ Q if M is None else _mH(A) @ Q - _mH(M) @ Q
        Q = qr(X).Q
        X = A @ Q if M is None else A @ Q - M @ Q
        Q = qr(X).Q
    return Q


@_argcheck.python_in_pytorch
def svd_lowrank(A, q=6, niter=2, M=None):
    """(U, S, V) of a rank-q approximation of A (or A - M) by randomized subspace iteration, in PyTorch's steps
    (a wide A is transposed first)."""
    q = 6 if q is None else q
    m, n = A.shape[-2:]  # PyTorch's unpacking (its ValueError for fewer than 2 dims)
    q = int(q) if isinstance(q, bool) else q  # a bool is an int to PyTorch's randn, a float is refused there
    if M is not None:
        M = M.broadcast_to(A.size())
    if m < n:
        A = _mH(A)
        M = None if M is None else _mH(M)
    Q = _approximate_basis(A, q, niter, M)
    B = _mH(Q) @ A if M is None else _mH(Q) @ A - _mH(Q) @ M
    U, S, Vh = svd(B, full_matrices=False)
    U, V = Q @ U, _mH(Vh)
    return (V, S, U) if m < n else (U, S, V)


@_argcheck.python_in_pytorch
def pca_lowrank(A, q=None, center=True, niter=2):
    """(U, S, V) of the principal components of A's rows (centred by default) by svd_lowrank."""
    m, n = A.shape[-2:]  # PyTorch's unpacking (its ValueError for fewer than 2 dims)
    q = builtins.min(6, m, n) if q is None else q
    if not (0 <= q <= builtins.min(m, n)):
        raise ValueError(
            f"q(={q}) must be non-negative integer and not greater than min(m, n)={builtins.min(m, n)}"
        )
    if niter < 0:
        raise ValueError(f"niter(={niter}) must be non-negative integer")
    # PyTorch centres a dense A before the factorization rather than passing the mean as M
    return svd_lowrank(A - A.mean(-2, keepdim=True) if center else A, q, niter, None)


# -------------------------------------------------------------------------------- torch.* legacy spellings


@_argcheck.parses("Tensor input, bool some=True, bool compute_uv=True, *, Tensor[]? out=None", name="svd")
@_empty_half_as_float
def torch_svd(input, some=True, compute_uv=True, *, out=None):
    """torch.svd: (U, S, V) with V, not Vh; reduced unless some=False; zero U/V when not compute_uv."""
    if compute_uv:
        U, S, Vh = svd(input, full_matrices=not some)
        return _TORCH_SVD((U, S, _mH(Vh)))
    S = svdvals(input)
    m, n = input.shape[-2], input.shape[-1]
    batch = tuple(input.shape[:-2])
    U = _C.zeros(batch + (m, m), dtype=input.dtype, device=input.device)
    V = _C.zeros(batch + (n, n), dtype=input.dtype, device=input.device)
    return _TORCH_SVD((U, S, V))


def _removed_signature(name, args, kwargs, params):
    """The TypeError Python raises for a call that does not fit the removed function's signature."""
    if not args and params[0] not in kwargs:
        raise TypeError(f"{name}() missing 1 required positional argument: '{params[0]}'")
    if len(args) > len(params):
        raise TypeError(
            f"{name}() takes from 1 to {len(params)} positional arguments but {len(args)} were given"
        )
    for k in kwargs:
        if k not in params:
            raise TypeError(f"{name}() got an unexpected keyword argument '{k}'")


def torch_qr(*args, _name="qr", **kwargs):
    """torch.qr: removed from PyTorch (2.x raises, naming linalg.qr, whatever the arguments); so does this."""
    _removed_signature(_name, args, kwargs, ("input", "some"))
    some = kwargs.get("some", args[1] if len(args) > 1 else True)
    some = some if isinstance(some, bool) else True
    raise RuntimeError(
        "This function was deprecated since version 1.9 and is now removed. `torch.qr` is deprecated in favor of "
        "`torch.linalg.qr` and the boolean parameter `some` has been replaced with a string parameter `mode`.\n\n"
        "Q, R = torch.qr(A) should be replaced with:\nQ, R = torch.linalg.qr(A, mode='reduced')\n\nand\n\n"
        "Q, R = torch.qr(A, some=False) should be replaced with:\nQ, R = torch.linalg.qr(A, mode='complete')\n\n"
        f"Since `some` was set to {some}, use mode='{'reduced' if some else 'complete'}'."
    )


def torch_cholesky(*args, **kwargs):
    """torch.cholesky: removed from PyTorch (2.x raises, naming linalg.cholesky, whatever the arguments); so
    does this."""
    _removed_signature(kwargs.pop("_name", "cholesky"), args, kwargs, ("input", "upper"))
    raise RuntimeError(
        "This function was deprecated since version 1.9 and is now removed. `torch.cholesky` is deprecated in "
        "favor of `torch.linalg.cholesky`.\nL = torch.cholesky(A) should be replaced with:\n"
        "L = torch.linalg.cholesky(A)\nU = torch.cholesky(A, upper=True) should be replaced with:\n"
        "U = torch.linalg.cholesky(A).mH"
    )


def torch_symeig(input, eigenvectors=False, upper=True, *, out=None):
    """torch.symeig: removed from PyTorch (2.x raises, naming linalg.eigh); so does this."""
    raise RuntimeError(
        "This function was deprecated since version 1.9 and is now removed. The default behavior has changed from "
        "using the upper triangular portion of the matrix by default to using the lower triangular portion.\n\n"
        "L, _ = torch.symeig(A, upper=upper) should be replaced with:\n"
        "L = torch.linalg.eigvalsh(A, UPLO='U' if upper else 'L')\n\nand\n\n"
        "L, V = torch.symeig(A, eigenvectors=True) should be replaced with:\n"
        "L, V = torch.linalg.eigh(A, UPLO='U' if upper else 'L')"
    )


torch_symeig.__qualname__ = "_symeig"  # Python's TypeError for a call that does not fit names it as PyTorch's
_symeig = torch_symeig  # where pickle finds it by that name (PyTorch's is torch._linalg_utils._symeig)


def torch_eig(self, eigenvectors=False, *, e=None, v=None):
    """torch.eig: removed from PyTorch (2.x raises, naming linalg.eig); so does this."""
    raise RuntimeError(
        "This function was deprecated since version 1.9 and is now removed. `torch.linalg.eig` returns complex "
        "tensors of dtype `cfloat` or `cdouble` rather than real tensors mimicking complex tensors.\n\n"
        "L, _ = torch.eig(A) should be replaced with:\nL_complex = torch.linalg.eigvals(A)\n\nand\n\n"
        "L, V = torch.eig(A, eigenvectors=True) should be replaced with:\n"
        "L_complex, V_complex = torch.linalg.eig(A)"
    )


torch_eig.__qualname__ = "eig"  # Python's TypeError for a call that does not fit names it as PyTorch's


def torch_solve(input, A, *, out=None):
    """torch.solve: removed from PyTorch (2.x raises, naming linalg.solve); so does this."""
    raise RuntimeError(
        "This function was deprecated since version 1.9 and is now removed. `torch.solve` is deprecated in favor of "
        "`torch.linalg.solve`. `torch.linalg.solve` has its arguments reversed and does not return the LU "
        "factorization.\n\nTo get the LU factorization see `torch.lu`, which can be used with `torch.lu_solve` or "
        "`torch.lu_unpack`.\nX = torch.solve(B, A).solution should be replaced with:\nX = torch.linalg.solve(A, B)"
    )


def torch_lstsq(input, A, *, out=None):
    """torch.lstsq: removed from PyTorch (2.x raises, naming linalg.lstsq); so does this."""
    raise RuntimeError(
        "This function was deprecated since version 1.9 and is now removed. `torch.lstsq` is deprecated in favor of "
        "`torch.linalg.lstsq`.\n`torch.linalg.lstsq` has reversed arguments and does not return the QR "
        "decomposition in the returned tuple (although it returns other information about the problem).\n\nTo get "
        "the QR decomposition consider using `torch.linalg.qr`.\n\nThe returned solution in `torch.lstsq` stored the "
        "residuals of the solution in the last m - n columns of the returned value whenever m > n. In "
        "torch.linalg.lstsq, the residuals are in the field 'residuals' of the returned named tuple.\n\nThe "
        "unpacking of the solution, as in\nX, _ = torch.lstsq(B, A).solution[:A.size(1)]\nshould be replaced "
        "with:\nX = torch.linalg.lstsq(A, B).solution"
    )


def torch_matrix_rank(input, tol=None, symmetric=False, *, out=None):
    """torch.matrix_rank: removed from PyTorch (2.x raises, naming linalg.matrix_rank); so does this."""
    raise RuntimeError(
        "This function was deprecated since version 1.9 and is now removed.\nPlease use the "
        "`torch.linalg.matrix_rank` function instead. The parameter 'symmetric' was renamed in "
        "`torch.linalg.matrix_rank()` to 'hermitian'."
    )


torch_matrix_rank.__qualname__ = (
    "matrix_rank"  # Python's TypeError for a call that does not fit names it as PyTorch's
)


@_argcheck.python_in_pytorch  # torch.functional.lu: its errors come from _lu_with_info's parser or Python
def torch_lu(A, pivot=True, get_infos=False, out=None):
    """torch.lu (deprecated in PyTorch): (LU, pivots), with info when get_infos, from linalg.lu_factor_ex. A
    singular matrix is no error (PyTorch's _lu_with_info ignores its check_errors)."""
    get_infos = bool(get_infos)  # PyTorch's boolean dispatch reads get_infos before anything else
    if not _C._is_tensor(A):
        raise TypeError(
            f"_lu_with_info(): argument 'input' (position 1) must be Tensor, not {type(A).__name__}"
        )
    if type(pivot) is not bool:  # PyTorch hands pivot to _lu_with_info by keyword, whose parser checks it
        raise TypeError(f"_lu_with_info(): argument 'pivot' must be bool, not {type(pivot).__name__}")
    warnings.warn(
        "torch.lu is deprecated in favor of torch.linalg.lu_factor / torch.linalg.lu_factor_ex and will be removed "
        "in a future PyTorch release.\nLU, pivots = torch.lu(A, compute_pivots)\nshould be replaced with\n"
        "LU, pivots = torch.linalg.lu_factor(A, compute_pivots)\nand\n"
        "LU, pivots, info = torch.lu(A, compute_pivots, get_infos=True)\nshould be replaced with\n"
        "LU, pivots, info = torch.linalg.lu_factor_ex(A, compute_pivots)",
        UserWarning,
        stacklevel=2,
    )
    result = _LU_WITH_INFO(lu_factor_ex(A, pivot=pivot))
    if out is None:
        return result if get_infos else tuple(result[:2])
    if len(out) - get_infos != 2:  # PyTorch's _check_list_size, in its order (len() first)
        raise TypeError(f"expected tuple of {2 + get_infos} elements but got {len(out)}")
    if not isinstance(out, (tuple, list)):
        raise TypeError(f"argument 'out' must be tuple of Tensors, not {type(out).__name__}")
    for o, r in zip(out, result):
        o.resize_as_(r).copy_(r)
    return out


def torch_slogdet(input):
    """torch.slogdet: linalg.slogdet under torch.return_types.slogdet."""
    sign, logabs = slogdet(input)
    return _TORCH_SLOGDET((sign, logabs))


@_argcheck.parses(
    "Tensor input, Tensor A, bool upper=True, bool transpose=False, bool unitriangular=False, *, Tensor[]? out=None"
)
def triangular_solve(b, A, upper=True, transpose=False, unitriangular=False, *, out=None):
    """torch.triangular_solve: (solution of op(A) X = b, a copy of A)."""
    warnings.warn(
        "torch.triangular_solve is deprecated in favor of torch.linalg.solve_triangularand will be removed in a "
        "future PyTorch release.\ntorch.linalg.solve_triangular has its arguments reversed and does not return a "
        "copy of one of the inputs.\nX = torch.triangular_solve(B, A).solution\nshould be replaced with\n"
        "X = torch.linalg.solve_triangular(A, B).",
        UserWarning,
        stacklevel=3,  # the caller, past _argcheck's wrapper
    )
    if _C._is_tensor(b) and _C._is_tensor(A):
        _check_b_and_A(b, A)
    M = _mT(A) if transpose else A  # the transpose, not the adjoint, of a complex A (PyTorch's op(A) = A^T)
    X = solve_triangular(M, b, upper=upper != transpose, unitriangular=unitriangular)
    return _TRIANGULAR_SOLVE((X, A.clone()))


def torch_lu_solve(b, LU_data, LU_pivots, *, out=None):
    """torch.lu_solve(b, LU, pivots): linalg.lu_solve with PyTorch's older argument order."""
    warnings.warn(
        "torch.lu_solve is deprecated in favor of torch.linalg.lu_solveand will be removed in a future PyTorch "
        "release.\nNote that torch.linalg.lu_solve has its arguments reversed.\nX = torch.lu_solve(B, LU, pivots)\n"
        "should be replaced with\nX = torch.linalg.lu_solve(LU, pivots, B)",
        UserWarning,
        stacklevel=3,  # the caller, past _argcheck's wrapper
    )
    return lu_solve(LU_data, LU_pivots, b, out=out)


@_argcheck.parses("Tensor input, Tensor input2", upfront=False)
def orgqr(input, tau):
    """torch.orgqr: linalg.householder_product."""
    return householder_product(input, tau)


def matrix_power_impl(A, n, out=None):
    """linalg.matrix_power after its argument parsing: repeated squaring, the identity for n == 0, inv(A)
    multiplied |n| times for a negative n."""
    if A.dim() < 2:
        raise RuntimeError("linalg.matrix_power: The input tensor A must have at least 2 dimensions.")
    if A.shape[-1] != A.shape[-2]:
        raise RuntimeError(
            "linalg.matrix_power: A must be batches of square matrices, but they are "
            f"{A.shape[-2]} by {A.shape[-1]} matrices"
        )
    if n < 0:
        A, n = inv(A), -n
    if n == 0:
        k = A.shape[-1]
        result = _C.eye(k, dtype=A.dtype, device=A.device).expand(tuple(A.shape)).clone()
    else:
        result, base = None, A
        while True:
            if n & 1:
                result = base if result is None else _C.matmul(result, base)
            n >>= 1
            if not n:
                break
            base = _C.matmul(base, base)
        if result is A:
            result = A.clone()
    if out is not None and not _C.can_cast(result.dtype, out.dtype):
        raise RuntimeError(
            f"matrix_power: Expected result to be safely castable from {scalar_name(result.dtype)} dtype, but got "
            f"result with dtype {scalar_name(out.dtype)}"
        )
    return write_out(result, out, "matmul")


def _matrix_power_spelling(position):
    def matrix_power(input, n):
        """torch.matrix_power: linalg.matrix_power (input multiplied by itself n times)."""
        if not _argcheck._int_like(n, True):  # the parser's int: a 0-d integer tensor or NumPy int too
            raise TypeError(
                f"matrix_power(): argument 'n' (position {position}) must be int, not {type(n).__name__}"
            )
        return matrix_power_impl(input, operator.index(n))

    return matrix_power


@_argcheck.parses(
    "Tensor input, Tensor input2, Tensor input3, bool left=True, bool transpose=False, *, Tensor? out=None",
    name="ormqr",
    upfront=False,
)
def ormqr(input, tau, other, left=True, transpose=False, *, out=None):
    """torch.ormqr: other multiplied by the Q of a geqrf factorization (input, tau) without forming Q by hand:
    Q @ other (left) or other @ Q, with Q^H instead when transpose; PyTorch's checks in its order and words."""
    fn = "torch.ormqr"
    if input.dim() < 2:
        raise RuntimeError(f"{fn}: input must have at least 2 dimensions.")
    if other.dim() < 2:
        raise RuntimeError(f"{fn}: other must have at least 2 dimensions.")
    side = -2 if left else -1
    if other.shape[side] != input.shape[-2]:
        raise RuntimeError(f"{fn}: other.shape[{side}] must be equal to input.shape[-2]")
    if tau.dim() != input.dim() - 1:
        raise RuntimeError(
            f"{fn}: Expected tau to have one dimension less than input, but got tau.ndim equal to {tau.dim()} "
            f"and input.ndim is equal to {input.dim()}"
        )
    if tau.shape[-1] != builtins.min(other.shape[side], input.shape[-1]):
        raise RuntimeError(f"{fn}: tau.shape[-1] must be equal to min(other.shape[-2], input.shape[-1])")
    if other.dim() != input.dim():
        raise RuntimeError(
            f"{fn}: Expected other to have the same number of dimensions as input, but got other.ndim equal to "
            f"{other.dim()} and input.ndim is equal to {input.dim()}"
        )
    batch = list(input.shape[:-2])
    for what, t in (("tau", tau), ("other", other)):
        got = list(t.shape[:-1] if what == "tau" else t.shape[:-2])
        if got != batch:
            raise RuntimeError(
                f"{fn}: Expected batch dimensions of {what} to be equal to input.shape[:-2], but got {got}"
            )
    for what, t in (("tau", tau), ("other", other)):
        if t.dtype != input.dtype:
            raise RuntimeError(
                f"{fn}: Expected input and {what} to have the same dtype, but input has "
                f"dtype{scalar_name(input.dtype)} and {what} has dtype {scalar_name(t.dtype)}"
            )
    if input.dtype not in _INEXACT:
        raise NotImplementedError(f"\"ormqr_cpu\" not implemented for '{scalar_name(input.dtype)}'")
    m, n = input.shape[-2], input.shape[-1]
    # householder_product gives the first columns of H_1...H_k applied to the identity: m of them is all of Q
    if n < m:
        pad = _C.zeros((*input.shape[:-1], m - n), dtype=input.dtype, device=input.device)
        Q = householder_product(_C.cat([input, pad], -1), tau)
    else:
        Q = householder_product(input[..., :, :m], tau)
    if transpose:
        Q = Q.mH
    return write_out(
        _C.matmul(Q, other) if left else _C.matmul(other, Q),
        out,
        "ormqr",
        dtype_error="torch.ormqr: Expected input and result to have the same dtype, but input has dtype{expected} "
        "and result has dtype {got}",
    )


# linalg's names defined here (minitorch.linalg re-exports them)
LINALG = {
    "LinAlgError": LinAlgError,
    "cholesky": cholesky,
    "cholesky_ex": cholesky_ex,
    "det": det,
    "eig": eig,
    "eigh": eigh,
    "eigvals": eigvals,
    "eigvalsh": eigvalsh,
    "householder_product": householder_product,
    "inv": inv,
    "inv_ex": inv_ex,
    "lstsq": lstsq,
    "lu": lu,
    "lu_factor": lu_factor,
    "lu_factor_ex": lu_factor_ex,
    "lu_solve": lu_solve,
    "matrix_exp": matrix_exp,
    "matrix_rank": matrix_rank,
    "pinv": pinv,
    "qr": qr,
    "slogdet": slogdet,
    "solve": solve,
    "solve_ex": solve_ex,
    "solve_triangular": solve_triangular,
    "svd": svd,
    "svdvals": svdvals,
    "tensorinv": tensorinv,
    "tensorsolve": tensorsolve,
}
# torch.<name> spellings (and Tensor.<name> methods where PyTorch has them: TENSOR_METHODS)
TORCH = {
    "inverse": inv,
    "det": det,
    "logdet": logdet,
    "slogdet": torch_slogdet,
    "svd": torch_svd,
    "qr": torch_qr,
    "cholesky": torch_cholesky,
    "cholesky_solve": cholesky_solve,
    "cholesky_inverse": cholesky_inverse,
    "triangular_solve": triangular_solve,
    "lu_solve": torch_lu_solve,
    "lu_unpack": lu_unpack,
    "pinverse": pinverse,
    "matrix_exp": matrix_exp,
    "geqrf": geqrf,
    "orgqr": orgqr,
    "ormqr": ormqr,
    "matrix_power": _matrix_power_spelling(2),
    "svd_lowrank": svd_lowrank,
    "pca_lowrank": pca_lowrank,
    "symeig": torch_symeig,
    "eig": torch_eig,
    "matrix_rank": torch_matrix_rank,
    "lu": torch_lu,
    "solve": torch_solve,
    "lstsq": torch_lstsq,
}


def _removed_method(name, fn):
    """Tensor.<name>(eigenvectors=False) of a removed function: PyTorch's Python method, which takes any value
    there (no parser) and raises fn's error; more arguments are Python's own TypeError."""

    @_argcheck.checks_own_arguments
    def method(self, eigenvectors=False):
        return fn(self)

    method.__name__, method.__qualname__ = name, f"Tensor.{name}"
    return method


def _removed_binary(name, fn):
    """Tensor.<name>(other) of a removed function (solve, lstsq): PyTorch's Python method, fn's error for any
    other; a call without one is Python's own TypeError, naming the method as PyTorch's."""

    @_argcheck.checks_own_arguments
    def method(self, other):
        return fn(self, other)

    method.__name__, method.__qualname__ = name, f"Tensor.{name}"
    return method


TENSOR_METHODS = {
    "matrix_power": _matrix_power_spelling(1),
    "solve": _removed_binary("solve", torch_solve),
    "lstsq": _removed_binary("lstsq", torch_lstsq),
    # removed: PyTorch's methods (self, eigenvectors=False) raise whatever eigenvectors is
    "symeig": _removed_method("symeig", torch_symeig),
    "eig": _removed_method("eig", torch_eig),
    "qr": lambda self, *args, **kwargs: torch_qr(self, *args, _name="Tensor.qr", **kwargs),
    "cholesky": lambda self, *args, **kwargs: torch_cholesky(self, *args, _name="Tensor.cholesky", **kwargs),
}
TENSOR_METHODS |= {
    name: TORCH[name]
    for name in (
        "inverse",
        "det",
        "logdet",
        "slogdet",
        "svd",
        "cholesky_solve",
        "cholesky_inverse",
        "triangular_solve",
        "lu_solve",
        "pinverse",
        "matrix_exp",
        "geqrf",
        "orgqr",
        "ormqr",
    )
}


def _tensor_lu(self, pivot=True, get_infos=False):
    """Tensor.lu: PyTorch's Python method (no out=; more arguments are Python's own TypeError), a plain
    tuple."""
    return tuple(torch_lu(self, pivot, get_infos))


_tensor_lu.__name__, _tensor_lu.__qualname__ = "lu", "Tensor.lu"
TENSOR_METHODS["lu"] = _argcheck.python_in_pytorch(_tensor_lu)
