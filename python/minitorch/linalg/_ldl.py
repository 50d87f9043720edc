"""torch.linalg.ldl_factor(_ex) and ldl_solve: Bunch-Kaufman LDL^T through LAPACK's sytrf/sytrs (hetrf/hetrs for
Hermitian complex input), as PyTorch computes them: LD holds L below the diagonal and D's 1x1 / 2x2 blocks on and
just below it (the upper triangle zero), pivots are sytrf's 1-based pivots (a 2x2 block's two entries both -p).
This module keeps PyTorch's checks, messages and batch broadcasting; the factorization itself is
``_C._linalg_ldl_factor_ex`` / ``_C._linalg_ldl_solve`` (csrc/ops/linalg_decomp.cpp). No derivative, as in
PyTorch (the results are outside the graph)."""

from minitorch import _C, _argcheck
from minitorch._dtype_names import scalar_name
from minitorch._out import write_out
from minitorch.autograd.grad_mode import no_grad
from minitorch.functional import broadcast_shapes
from minitorch.linalg._decomp import _empty_half_as_float
from minitorch.return_types import _make

__all__ = ["ldl_factor", "ldl_factor_ex", "ldl_solve"]

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


@_empty_half_as_float
def ldl_factor_ex(A, *, hermitian=False, check_errors=False, out=None):
    """The Bunch-Kaufman factorization A = P L D L^T P^T of symmetric A (L D L^H of Hermitian A with
    ``hermitian=True``; its lower triangle is read): LD holds L (unit diagonal implied) and the 1x1 / 2x2 blocks
    of D, pivots LAPACK's sytrf pivots, info the first zero pivot (1-based; 0 when D is invertible)."""
    fn = "torch.linalg.ldl_factor_ex"
    _argcheck.check_tensor_like("linalg_ldl_factor_ex", "input", 1, A)
    _check_square(A, fn)
    _check_dtype(A, fn)
    with no_grad():
        LD, piv, info_t = _C._linalg_ldl_factor_ex(A.detach(), bool(hermitian))
    if check_errors and not info_t.is_meta:  # (a meta info has no values: the shapes stand)
        _raise_for_info(info_t.reshape(-1).tolist(), fn)
    result = _LDL_EX((LD, piv, info_t))
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


@_empty_half_as_float
def ldl_factor(A, *, hermitian=False, out=None):
    """ldl_factor_ex without info: raises when D comes out singular."""
    _argcheck.check_tensor_like("linalg_ldl_factor", "input", 1, A)
    LD, piv, info = ldl_factor_ex(A, hermitian=hermitian)
    if not info.is_meta:
        _raise_for_info(info.reshape(-1).tolist(), "torch.linalg.ldl_factor")
    if out is not None:
        for dst, src in zip(out, (LD, piv)):
            dst.resize_(src.shape)
            dst.copy_(src)
        return _LDL(tuple(out))
    return _LDL((LD, piv))


@_argcheck.parses(
    "Tensor LD, Tensor pivots, Tensor B, *, bool hermitian=False, Tensor? out=None",
    name="linalg_ldl_solve",
    upfront=False,
)
def ldl_solve(LD, pivots, B, *, hermitian=False, out=None):
    """X with A X = B, from ldl_factor's LD and pivots (batches broadcast)."""
    fn = "torch.linalg.ldl_solve"
    _check_square(LD, fn)
    _check_dtype(LD, fn)  # PyTorch's order: square, floating, then the pivots
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
    batch = tuple(broadcast_shapes(tuple(LD.shape[:-2]), tuple(B.shape[:-2])))
    with no_grad():
        lds = LD.detach().expand(batch + (n, n))
        piv = pivots.expand(batch + (n,))
        X = _C._linalg_ldl_solve(lds, piv, B.detach().expand(batch + tuple(B.shape[-2:])), bool(hermitian))
    return write_out(X, out)
