"""torch.linalg.ldl_factor(_ex) and ldl_solve: Bunch-Kaufman LDL^T with LAPACK sytrf's pivots and layout.

Our LAPACK binding has no sytrf, so this is LAPACK's unblocked algorithm (dsytf2, lower) written over tensor
ops: one Python step per column (or 2x2 block), each step vectorized, matrices of a batch one by one. The
pivot choices, the LD layout (L below the diagonal, D's 1x1 and 2x2 blocks on and just below it, the rest
zero) and the 1-based pivots (a 2x2 block's two entries both -p) are sytrf's, so LD and pivots match
PyTorch's bit for bit up to rounding. Real dtypes only (complex, symmetric or Hermitian, raises
NotImplementedError); no derivative, as in PyTorch (the results are outside the graph here)."""

import math

from minitorch import _C, _argcheck
from minitorch._creation import tensor
from minitorch._dtype_names import scalar_name
from minitorch.autograd.grad_mode import no_grad
from minitorch.functional import broadcast_shapes
from minitorch.return_types import _make

__all__ = ["ldl_factor", "ldl_factor_ex", "ldl_solve"]

_ALPHA = (1.0 + math.sqrt(17.0)) / 8.0  # Bunch-Kaufman's growth bound

_LDL = _make("linalg_ldl_factor", ("LD", "pivots"))
_LDL_EX = _make("linalg_ldl_factor_ex", ("LD", "pivots", "info"))


def _check_square(A, fn):
    if A.dim() < 2:
        raise RuntimeError(f"{fn}: The input tensor A must have at least 2 dimensions.")
    if A.shape[-1] != A.shape[-2]:
        raise RuntimeError(
            f"{fn}: A must be batches of square matrices, but they are {A.shape[-2]} by {A.shape[-1]} matrices"
        )


def _check_dtype(A, fn):
    if not (A.dtype.is_floating_point or A.dtype.is_complex):
        raise NotImplementedError(
            f"{fn}: Expected a floating point or complex tensor as input. Got {scalar_name(A.dtype)}"
        )
    if A.dtype in (_C.float16, _C.bfloat16):
        raise NotImplementedError(f"\"ldl_factor_kernel_cpu\" not implemented for '{scalar_name(A.dtype)}'")
    if A.dtype.is_complex:
        raise NotImplementedError(
            f"{fn}: complex inputs are not supported by minitorch yet (real dtypes only)"
        )


def _abs(x):
    return abs(x.item())


def _swap(a, i_src, j_src):
    """Swaps two same-shaped views of a (given as index tuples)."""
    t = a[i_src].clone()
    a[i_src] = a[j_src]
    a[j_src] = t


def _sytf2(a):
    """Factors the n x n matrix a in place (its lower triangle is read); returns (pivots, info) as lists."""
    n = a.shape[0]
    piv = [0] * n
    info = 0
    k = 0
    while k < n:
        kstep = 1
        absakk = _abs(a[k, k])
        if k < n - 1:
            col = a[k + 1 :, k].abs()
            imax = k + 1 + int(col.argmax().item())
            colmax = _abs(a[imax, k])
        else:
            imax, colmax = k, 0.0
        if max(absakk, colmax) == 0.0 or math.isnan(absakk):  # LAPACK 3's test: a zero column, or NaN
            info = info or k + 1
            kp = k
        else:
            if absakk >= _ALPHA * colmax:
                kp = k
            else:
                rowmax = float(a[imax, k:imax].abs().max().item())
                if imax < n - 1:
                    rowmax = max(rowmax, float(a[imax + 1 :, imax].abs().max().item()))
                if absakk >= _ALPHA * colmax * (colmax / rowmax):
                    kp = k
                elif _abs(a[imax, imax]) >= _ALPHA * rowmax:
                    kp = imax
                else:
                    kp, kstep = imax, 2
            kk = k + kstep - 1
            if kp != kk:  # symmetric interchange of rows and columns kk and kp of the trailing matrix
                if kp < n - 1:
                    _swap(a, (slice(kp + 1, None), kk), (slice(kp + 1, None), kp))
                if kp > kk + 1:
                    _swap(a, (slice(kk + 1, kp), kk), (kp, slice(kk + 1, kp)))
                _swap(a, (kk, kk), (kp, kp))
                if kstep == 2:
                    _swap(a, (k + 1, k), (kp, k))
            if kstep == 1:
                if k < n - 1:
                    x = a[k + 1 :, k].clone()
                    r = 1.0 / a[k, k].item()
                    a[k + 1 :, k + 1 :] -= r * _C.outer(x, x)
                    a[k + 1 :, k] *= r
            elif k < n - 2:
                d21 = a[k + 1, k].item()
                d11 = a[k + 1, k + 1].item() / d21
                d22 = a[k, k].item() / d21
                t = 1.0 / (d11 * d22 - 1.0)
                d21 = t / d21
                ak, ak1 = a[k + 2 :, k].clone(), a[k + 2 :, k + 1].clone()
                wk = (ak * d11 - ak1) * d21
                wk1 = (ak1 * d22 - ak) * d21
                a[k + 2 :, k + 2 :] -= _C.outer(ak, wk) + _C.outer(ak1, wk1)
                a[k + 2 :, k] = wk
                a[k + 2 :, k + 1] = wk1
        if kstep == 1:
            piv[k] = kp + 1
        else:
            piv[k] = piv[k + 1] = -(kp + 1)
        k += kstep
    return piv, info


def ldl_factor_ex(A, *, hermitian=False, check_errors=False, out=None):
    """The Bunch-Kaufman factorization A = P L D L^T P^T of symmetric A (its lower triangle is read): LD holds
    L (unit diagonal implied) and the 1x1 / 2x2 blocks of D, pivots LAPACK's sytrf pivots, info the first zero
    pivot (1-based; 0 when D is invertible)."""
    fn = "torch.linalg.ldl_factor_ex"
    _check_square(A, fn)
    _check_dtype(A, fn)
    n = A.shape[-1]
    batch = tuple(A.shape[:-2])
    with no_grad():
        mats = A.detach().reshape((math.prod(batch), n, n))
        LD = _C.zeros(tuple(mats.shape), dtype=A.dtype, device=A.device)
        pivots, infos = [], []
        for b in range(mats.shape[0]):
            a = mats[b].clone()
            p, info = _sytf2(a)
            LD[b] = a.tril()
            pivots.append(p)
            infos.append(info)
        piv = tensor(pivots, dtype=_C.int32, device=A.device).reshape(batch + (n,)) if pivots else None
        if piv is None:
            piv = _C.zeros(batch + (n,), dtype=_C.int32, device=A.device)
        info_t = tensor(infos, dtype=_C.int32, device=A.device).reshape(batch) if infos else None
        if info_t is None:
            info_t = _C.zeros(batch, dtype=_C.int32, device=A.device)
    if check_errors:
        _raise_for_info(infos, fn)
    result = _LDL_EX((LD.reshape(batch + (n, n)), piv, info_t))
    if out is not None:
        for dst, src in zip(out, result):
            dst.resize_(src.shape)
            dst.copy_(src)
        return _LDL_EX(tuple(out))
    return result


def _raise_for_info(infos, fn):
    bad = next((i for i in infos if i > 0), 0)
    if bad:
        # PyTorch reaches an internal assert here ("Unknown error code"); we say what the code means
        raise RuntimeError(
            f"{fn}: The factorization could not be completed because the input is singular: D[{bad - 1}, "
            f"{bad - 1}] is exactly zero (LAPACK's sytrf info {bad})."
        )


def ldl_factor(A, *, hermitian=False, out=None):
    """ldl_factor_ex without info: raises when D comes out singular."""
    LD, piv, info = ldl_factor_ex(A, hermitian=hermitian)
    _raise_for_info(info.reshape(-1).tolist(), "torch.linalg.ldl_factor")
    if out is not None:
        for dst, src in zip(out, (LD, piv)):
            dst.resize_(src.shape)
            dst.copy_(src)
        return _LDL(tuple(out))
    return _LDL((LD, piv))


def _sytrs(a, piv, B):
    """Solves (P L D L^T P^T) X = B in place of B (n x k) for one factorization a with pivots piv (a list)."""
    n = a.shape[0]
    k = 0
    while k < n:  # L D y = P^T b
        if piv[k] > 0:
            kp = piv[k] - 1
            if kp != k:
                _swap(B, (k,), (kp,))
            if k < n - 1:
                B[k + 1 :] -= _C.outer(a[k + 1 :, k], B[k])
            B[k] /= a[k, k]
            k += 1
        else:
            kp = -piv[k] - 1
            if kp != k + 1:
                _swap(B, (k + 1,), (kp,))
            if k < n - 2:
                B[k + 2 :] -= _C.outer(a[k + 2 :, k], B[k]) + _C.outer(a[k + 2 :, k + 1], B[k + 1])
            akm1k = a[k + 1, k].item()
            akm1 = a[k, k].item() / akm1k
            ak = a[k + 1, k + 1].item() / akm1k
            denom = akm1 * ak - 1.0
            bkm1 = B[k] / akm1k
            bk = B[k + 1] / akm1k
            B[k] = (bkm1 * ak - bk) / denom
            B[k + 1] = (bk * akm1 - bkm1) / denom
            k += 2
    k = n - 1
    while k >= 0:  # L^T P^T x = y
        if piv[k] > 0:
            if k < n - 1:
                B[k] -= a[k + 1 :, k] @ B[k + 1 :]
            kp = piv[k] - 1
            if kp != k:
                _swap(B, (k,), (kp,))
            k -= 1
        else:
            if k < n - 1:
                B[k] -= a[k + 1 :, k] @ B[k + 1 :]
                B[k - 1] -= a[k + 1 :, k - 1] @ B[k + 1 :]
            kp = -piv[k] - 1
            if kp != k:
                _swap(B, (k,), (kp,))
            k -= 2
    return B


@_argcheck.parses(
    "Tensor LD, Tensor pivots, Tensor B, *, bool hermitian=False, Tensor? out=None",
    name="linalg_ldl_solve",
    upfront=False,
)
def ldl_solve(LD, pivots, B, *, hermitian=False, out=None):
    """X with A X = B, from ldl_factor's LD and pivots (batches broadcast)."""
    fn = "torch.linalg.ldl_solve"
    _check_square(LD, fn)
    if pivots.dtype.is_floating_point or pivots.dtype.is_complex or pivots.dtype == _C.bool:
        raise RuntimeError(f"{fn}: Expected pivots to be integers. Got {scalar_name(pivots.dtype)}")
    if tuple(LD.shape[:-1]) != tuple(pivots.shape):
        raise RuntimeError(
            f"{fn}: Expected LD.shape[:-1] and pivots.shape to be the same, but got pivots with shape "
            f"{list(pivots.shape)} instead"
        )
    if B.dtype != LD.dtype:
        raise RuntimeError(
            f"Expected b and A to have the same dtype, but found b of type {scalar_name(B.dtype)} and A of type "
            f"{scalar_name(LD.dtype)} instead."
        )
    if B.dim() < 2:
        raise IndexError(
            f"Dimension out of range (expected to be in range of [-{B.dim()}, {B.dim() - 1}], but got -2)"
        )
    n = LD.shape[-1]
    if B.shape[-2] != n:
        raise RuntimeError(
            f"Incompatible matrix sizes for {fn}: each A matrix is {n} by {n} but each b matrix is "
            f"{B.shape[-2]} by {B.shape[-1]}"
        )
    _check_dtype(LD, fn)
    batch = tuple(broadcast_shapes(tuple(LD.shape[:-2]), tuple(B.shape[:-2])))
    with no_grad():
        nb = math.prod(batch)
        lds = LD.detach().expand(batch + (n, n)).reshape((nb, n, n))
        pivs = pivots.expand(batch + (n,)).reshape((nb, n)).tolist()
        X = B.detach().expand(batch + tuple(B.shape[-2:])).reshape((nb,) + tuple(B.shape[-2:])).clone()
        for b in range(X.shape[0]):
            if X.shape[-1]:
                _sytrs(lds[b], pivs[b], X[b])
        X = X.reshape(batch + tuple(B.shape[-2:]))
    if out is not None:
        out.resize_(X.shape)
        out.copy_(X)
        return out
    return X
