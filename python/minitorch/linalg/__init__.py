"""minitorch.linalg: PyTorch's torch.linalg: norms and products over our ops here, the decompositions and solvers
(inv, solve, det, cholesky, qr, eigh, svd, lstsq, ...) over LAPACK in _decomp.py, the LDL factorization
(Bunch-Kaufman, LAPACK sytrf's algorithm over tensor ops) in _ldl.py."""

import math as _math
import numbers as _numbers
import operator as _operator
import warnings

from minitorch import _C, _argcheck, _composite_shape
from minitorch._composite_shape import _wrap as _wrap_dim
from minitorch._dtype_names import scalar_name as _scalar_name
from minitorch._out import write_out
from minitorch.linalg import _decomp
from minitorch.linalg._ldl import ldl_factor, ldl_factor_ex, ldl_solve
from minitorch.return_types import linalg_polar as _Polar
from minitorch.return_types import linalg_polar_out as _PolarOut

# PyTorch's wording of an out of another dtype, for the norms it composes
_NORM_DTYPE = "linalg.{} expected out tensor dtype {{expected}} but got: {{got}}"
_MULTI_DOT_DTYPE = "multi_dot(): expected out tensor to have dtype {expected_cpp} but got {got_cpp}"


def _cond_out(result, out):
    return write_out(result, out, None, "castable", "linalg.cond" + _decomp._CASTABLE_TAIL)


__all__ = [
    "LinAlgError",
    "cholesky",
    "cholesky_ex",
    "cond",
    "cross",
    "det",
    "diagonal",
    "eig",
    "eigh",
    "eigvals",
    "eigvalsh",
    "householder_product",
    "inv",
    "inv_ex",
    "ldl_factor",
    "ldl_factor_ex",
    "ldl_solve",
    "lstsq",
    "lu",
    "lu_factor",
    "lu_factor_ex",
    "lu_solve",
    "matmul",
    "matrix_exp",
    "matrix_norm",
    "matrix_power",
    "matrix_rank",
    "matrix_sqrth",
    "multi_dot",
    "norm",
    "pinv",
    "polar",
    "qr",
    "slogdet",
    "solve",
    "solve_ex",
    "solve_triangular",
    "svd",
    "svdvals",
    "tensorinv",
    "tensorsolve",
    "vander",
    "vecdot",
    "vector_norm",
]

_FLOATS = (_C.float64, _C.float32, _C.float16, _C.bfloat16)
_INTS = (_C.int64, _C.int32, _C.int16, _C.int8, _C.uint8)


def _name(dtype):
    return _scalar_name(dtype)


def _fmt_ord(ord):
    # ATen prints an integral double without a fractional part ("-1 norm", "inf norm")
    if isinstance(ord, float) and _math.isfinite(ord) and ord == int(ord):
        return str(int(ord))
    return str(ord)


_COMPLEX = (_C.complex64, _C.complex128)


def _check_float_input(x, fn):
    if x.dtype not in _FLOATS and x.dtype not in _COMPLEX:
        raise NotImplementedError(
            f"{fn}: Expected a floating point or complex tensor as input. Got {_name(x.dtype)}"
        )


_VECTOR_NORM_SIGNATURE = "Tensor input, Scalar ord=2, int[1]? dim=None, bool keepdim=False, *, ScalarType? dtype=None, Tensor? out=None"


def _vector_norm_dim(input, dim):
    """vector_norm's dim as its parser's int[1]? reads it (an int, a sequence of ints, one integral or bool
    element of a tensor), before any check of the input's: PyTorch's TypeError otherwise"""
    if dim is None or (isinstance(dim, int) and not isinstance(dim, bool)):
        return dim
    if isinstance(dim, _C.Tensor):
        if dim.numel() != 1 or dim.is_floating_point() or dim.is_complex():
            raise TypeError(
                "linalg_vector_norm(): argument 'dim' (position 3) must be tuple of ints, not Tensor"
            )
        return (int(dim.item()),)
    if not isinstance(dim, (list, tuple)) or not all(
        _argcheck._list_int(d, i == 0) for i, d in enumerate(dim)
    ):
        _argcheck.check_call("linalg_vector_norm", (_VECTOR_NORM_SIGNATURE,), (input, 2, dim), {})
    return dim


def _dims(dim, ndim):
    """dim (None, an int or a sequence) as a tuple of non-negative dims; None and () mean every dim."""
    if dim is None:
        return tuple(range(ndim))
    if isinstance(dim, int):
        dim = (dim,)
    out = []
    for d in dim:  # each dim's range, then its repeat, in turn (PyTorch's norms)
        w = _wrap_dim(int(d), ndim)
        if w in out:
            raise RuntimeError(f"dim {w} appears multiple times in the list of dims")
        out.append(w)
    return tuple(out) if out else tuple(range(ndim))


@_argcheck.parses(_VECTOR_NORM_SIGNATURE, name="linalg_vector_norm", upfront=False)
def vector_norm(input, ord=2, dim=None, keepdim=False, *, dtype=None, out=None):
    """The vector ord-norm of input over dim (every element when dim is None), as torch.linalg.vector_norm.

    ord: any real number or +-inf: inf is max |x|, -inf min |x|, 0 the count of nonzeros, p the p-norm
    (sum |x|^p)^(1/p). dtype: the dtype x is cast to before reducing (no narrowing casts), and of the result.
    minitorch.norm and Tensor.norm with a numeric p compute the same kernel."""
    x = input
    # the parser's Scalar: a bool, a NumPy number or a 0-d tensor without grad are Numbers to it
    _argcheck.check_number("linalg_vector_norm", "ord", 2, ord)
    if isinstance(ord, _C.Tensor):
        ord = ord.item()
    if isinstance(ord, complex):
        raise RuntimeError("linalg.vector_norm: Expected a non-complex scalar as the order of norm.")  # noqa: TRY004
    dim = _vector_norm_dim(x, dim)
    _check_float_input(x, "linalg.vector_norm")
    _C._check_norm_dtype(dtype, x.dtype, "linalg.vector_norm")
    ord = float(ord)
    dims = _dims(dim, x.dim())
    if ord < 0 or ord == _math.inf:
        # max/min have no identity: an empty reduction has no value
        whole = dim is None or (not isinstance(dim, (int, _C.Tensor)) and len(dim) == 0)
        if x.numel() == 0 and whole:
            raise RuntimeError(
                f"linalg.vector_norm cannot compute the {_fmt_ord(ord)} norm on an empty tensor because the "
                "operation does not have an identity"
            )
        for d in dims:
            if x.dim() and x.shape[d] == 0:
                raise RuntimeError(
                    f"linalg.vector_norm cannot compute the {_fmt_ord(ord)} norm on the dimension {d}because this "
                    "dimension is empty and the operation does not have an identity"
                )
    if dtype is not None and dtype != x.dtype:
        x = x.to(dtype)
    if x.is_complex():  # the norm of the moduli, real-valued; abs carries the complex gradient
        x = _C.abs(x)
    result = _C.norm(x, ord, list(dims), keepdim)
    return write_out(result, out, "linalg_vector_norm")


def _check_matrix(A, fn):
    if A.dim() < 2:
        raise RuntimeError(f"{fn}: The input tensor A must have at least 2 dimensions.")


def _matrix_dims(A, dim, fn):
    _check_matrix(A, fn)
    dim = tuple(dim) if not isinstance(dim, int) else (dim,)
    if len(dim) != 2:
        raise RuntimeError(f"{fn}: dim must be a 2-tuple. Got {' '.join(str(d) for d in dim)}")
    d0, d1 = (_wrap_dim(int(d), A.dim()) for d in dim)
    if d0 == d1:
        raise RuntimeError(f"{fn}: dims must be different. Got ({d0}, {d1})")
    return d0, d1


@_argcheck.parses(
    "Tensor A, Scalar ord, int[] dim=[-2,-1], bool keepdim=False, *, ScalarType? dtype=None, Tensor? out=None",
    'Tensor A, str ord="fro", int[] dim=[-2,-1], bool keepdim=False, *, ScalarType? dtype=None, Tensor? out=None',
    name="linalg_matrix_norm",
)
def matrix_norm(A, ord="fro", dim=(-2, -1), keepdim=False, *, dtype=None, out=None):
    """The matrix ord-norm of the matrices in the dims dim of A, as torch.linalg.matrix_norm.

    ord: 'fro' (sqrt of the sum of squares), inf / -inf (max / min absolute row sum), 1 / -1 (max / min
    absolute column sum); 'nuc', 2 and -2: the sum, largest and smallest singular value (LAPACK's SVD)."""
    fn = "linalg.matrix_norm"
    if isinstance(ord, str):
        if ord not in ("fro", "nuc"):
            raise RuntimeError(f"{fn}: Order {ord} not supported.")
    elif abs(ord) not in (1, 2, _math.inf):
        raise RuntimeError(f"{fn}: Order {_fmt_ord(float(ord))} not supported.")
    # PyTorch's order: a matrix, its dtype (no half types for the SVD's orders), then the dims
    _check_matrix(A, fn)
    _check_float_input(A, fn)
    svd_ord = ord == "nuc" or (not isinstance(ord, str) and abs(ord) == 2)
    if svd_ord and A.dtype in (_C.float16, _C.bfloat16):
        raise NotImplementedError(f"{fn}: Low precision dtypes not supported. Got {_name(A.dtype)}")
    d0, d1 = _matrix_dims(A, dim, fn)
    _C._check_norm_dtype(dtype, A.dtype, fn)
    if svd_ord:
        # the singular values of the matrices in (d0, d1): their sum, largest or smallest
        M = A if dtype is None else A.to(dtype)
        S = _decomp.svdvals(_C.movedim(M, [d0, d1], [-2, -1]))
        # (the largest of no singular values is PyTorch's 0, as the sum: they are non-negative)
        nothing = S.shape[-1] == 0
        result = (
            S.sum(-1) if ord == "nuc" or (ord > 0 and nothing) else (S.amax(-1) if ord > 0 else S.amin(-1))
        )
        if nothing and ord == 2:
            result = result.detach()  # PyTorch's max over no singular values is a new zero, outside the graph
        if keepdim:
            result = result.unsqueeze(min(d0, d1)).unsqueeze(max(d0, d1))
        return write_out(result, out, None, dtype_error=_NORM_DTYPE.format("matrix_norm"))
    if ord == "fro":
        result = vector_norm(A, 2, (d0, d1), keepdim, dtype=dtype)
    else:
        # the inf-norm is the 1-norm of the transpose: sum |a| down one dim, then the extreme along the other
        if abs(ord) == _math.inf:
            d0, d1 = d1, d0
        sums = vector_norm(A, 1, d0, keepdim, dtype=dtype)
        if not keepdim and d0 < d1:
            d1 -= 1
        if ord > 0 and sums.shape[d1] == 0:
            result = sums.sum(d1, keepdim)  # PyTorch's max of non-negative norms is 0 over nothing
        else:
            result = sums.amax(d1, keepdim) if ord > 0 else sums.amin(d1, keepdim)
    return write_out(result, out, None, dtype_error=_NORM_DTYPE.format("matrix_norm"))


_NORM_SIGNATURES = (
    "Tensor input, Scalar? ord=None, int[1]? dim=None, bool keepdim=False, *, ScalarType? dtype=None, Tensor? out=None",
    "Tensor input, str ord, int[1]? dim=None, bool keepdim=False, *, ScalarType? dtype=None, Tensor? out=None",
)


@_argcheck.parses(*_NORM_SIGNATURES, name="linalg_norm", upfront=False)
def norm(input, ord=None, dim=None, keepdim=False, *, out=None, dtype=None):
    """torch.linalg.norm: a matrix norm when ord is a string, or when ord is given with a 2-dim dim (or a 2-D
    input and no dim); otherwise the vector norm (ord None means 2, over every element when dim is None)."""
    A = input
    if isinstance(ord, _C.Tensor) and _argcheck.is_number(ord):
        ord = ord.item()  # the parser's Number
    if isinstance(dim, _C.Tensor):  # one integer element stands for the int[1] list, as in PyTorch's parser
        if dim.numel() != 1 or dim.is_floating_point() or dim.is_complex():
            _argcheck.check_call("linalg_norm", _NORM_SIGNATURES, (A, ord, dim, keepdim), {})
        dim = (int(dim.reshape(-1)[0].item()),)
    if isinstance(dim, int):
        dim = (dim,)
    if dim is not None:
        if len(dim) not in (1, 2):
            msg = "must" if not isinstance(ord, str) else "mut"  # sic: ATen's two overloads spell it apart
            raise RuntimeError(
                f"linalg.norm: If dim is specified, it {msg} be of length 1 or 2. Got {list(dim)}"
            )
    elif ord is not None and A.dim() not in (1, 2):
        raise RuntimeError(
            f"linalg.norm: If dim is not specified but ord is, the input must be 1D or 2D. Got {A.dim()}D."
        )
    if isinstance(ord, str) or (
        ord is not None and ((dim is not None and len(dim) == 2) or (dim is None and A.dim() == 2))
    ):
        result = matrix_norm(A, ord, dim if dim is not None else (0, 1), keepdim, dtype=dtype)
    else:
        result = vector_norm(A, 2 if ord is None else ord, dim, keepdim, dtype=dtype)
    return write_out(result, out, None, dtype_error=_NORM_DTYPE.format("norm"))


def vecdot(x, y, *, dim=-1, out=None):
    """sum(conj(x) * y) over dim, broadcasting the other dims (real tensors: the dot product along dim)."""
    _argcheck.check_tensor("linalg_vecdot", "x", 1, x)  # PyTorch's parser first
    _argcheck.check_tensor("linalg_vecdot", "y", 2, y)
    _check_float_input(x, "linalg.vecdot")  # before the dtypes are compared, as PyTorch
    if x.dtype != y.dtype:
        raise RuntimeError(
            "linalg.vecdot: Expected x and y to have the same dtype, but found x of type "
            f"{_name(x.dtype)} and y of type {_name(y.dtype)} instead"
        )
    if x.dim() == 1 and y.dim() == 1 and x.shape[0] != y.shape[0]:  # two vectors: PyTorch's dot, unbroadcast
        raise RuntimeError(
            f"inconsistent tensor size, expected tensor [{x.shape[0]}] and src [{y.shape[0]}] to have the same "
            f"number of elements, but got {x.shape[0]} and {y.shape[0]} elements respectively"
        )
    result = ((_C.conj(x) if x.is_complex() else x) * y).sum(dim)
    return write_out(
        result, out, "sum", dtype_error="linalg.vecdot: Expected out of dtype{expected} but found {got}"
    )


def _chain_order(shapes):
    """Cormen et al.'s matrix-chain dynamic program: split[i][j] is where the cheapest product of i..j splits."""
    n = len(shapes)
    p = [shapes[0][0]] + [s[1] for s in shapes]
    cost = [[0] * n for _ in range(n)]
    split = [[0] * n for _ in range(n)]
    for length in range(1, n):
        for i in range(n - length):
            j = i + length
            cost[i][j] = None
            for k in range(i, j):
                c = cost[i][k] + cost[k + 1][j] + p[i] * p[k + 1] * p[j + 1]
                if cost[i][j] is None or c < cost[i][j]:
                    cost[i][j], split[i][j] = c, k
    return split


def multi_dot(tensors, *, out=None):
    """The product of a chain of matrices in the cheapest order (fewest scalar multiplications), as
    torch.linalg.multi_dot: the first and last may be vectors (row and column), the rest must be 2-D."""
    if not isinstance(tensors, (list, tuple)):  # the parser's TensorList (a tensor is not one)
        raise TypeError(
            "linalg_multi_dot(): argument 'tensors' (position 1) must be tuple of Tensors, not "
            f"{_argcheck._kind_name(tensors)}"
        )
    tensors = list(tensors)
    _argcheck.check_tensor_list(tensors, 0)
    n = len(tensors)
    if n < 2:
        raise RuntimeError(f"multi_dot(): expected at least 2 tensors but got {n}")
    first_vec = tensors[0].dim() == 1
    last_vec = tensors[-1].dim() == 1
    if tensors[0].dim() not in (1, 2):
        raise RuntimeError(f"multi_dot(): the first tensor must be 1D or 2D but got {tensors[0].dim()}D")
    if tensors[-1].dim() not in (1, 2):
        raise RuntimeError(f"multi_dot(): the last tensor must be 1D or 2D but got {tensors[-1].dim()}D")
    for i in range(1, n - 1):
        if tensors[i].dim() != 2:
            raise RuntimeError(f"multi_dot(): tensor {i} must be 2D but got {tensors[i].dim()}D")
    dtype, device = tensors[0].dtype, tensors[0].device
    for i, t in enumerate(tensors[1:], 1):
        if t.dtype != dtype:
            raise RuntimeError(
                f"multi_dot(): all tensors must have be the same dtype but tensor 0 is {_short(dtype)} and "
                f"tensor {i} {_short(t.dtype)}"
            )
        if t.device != device:
            raise RuntimeError(
                f"multi_dot(): all tensors must be on the same device but tensor 0 is on {device} and tensor "
                f"{i} on {t.device}"
            )
    mats = list(tensors)
    if first_vec:
        mats[0] = mats[0].unsqueeze(0)
    if last_vec:
        mats[-1] = mats[-1].unsqueeze(1)
    for i in range(n - 1):
        if mats[i].shape[1] != mats[i + 1].shape[0]:
            raise RuntimeError(
                f"multi_dot(): tensors {i} and {i + 1} with shapes {list(tensors[i].shape)} and "
                f"{list(tensors[i + 1].shape)} cannot be multiplied"
            )
    if n == 2:
        result = _C.mm(mats[0], mats[1])
    elif n == 3:
        # ATen compares the two orders directly: (AB)C costs a*c*(b+d), A(BC) costs b*d*(a+c)
        a, b = mats[0].shape
        c, d = mats[2].shape
        if a * c * (b + d) > b * d * (a + c):
            result = _C.mm(mats[0], _C.mm(mats[1], mats[2]))
        else:
            result = _C.mm(_C.mm(mats[0], mats[1]), mats[2])
    else:
        split = _chain_order([tuple(m.shape) for m in mats])

        def product(i, j):
            if i == j:
                return mats[i]
            k = split[i][j]
            return _C.mm(product(i, k), product(k + 1, j))

        result = product(0, n - 1)
    if first_vec and last_vec:
        result = result.reshape(())
    elif first_vec:
        result = result.squeeze(0)
    elif last_vec:
        result = result.squeeze(1)
    return write_out(result, out, "mm", dtype_error=_MULTI_DOT_DTYPE)


_SHORT = {
    _C.float64: "double",
    _C.float32: "float",
    _C.float16: "c10::Half",
    _C.bfloat16: "c10::BFloat16",
    _C.int64: "long int",
    _C.int32: "int",
}


def _short(dtype):
    return _SHORT.get(dtype, str(dtype))


def matmul(input, other, *, out=None):
    """The matrix product with broadcasting, as torch.matmul (alias of it in torch.linalg)."""
    if out is not None:
        return _C.matmul(input, other, out=out)
    return _C.matmul(input, other)


def diagonal(A, *, offset=0, dim1=-2, dim2=-1):
    """The diagonals of the matrices in the last two dims of A (torch.diagonal with other defaults), a view."""
    return _C.diagonal(A, offset, dim1, dim2)


def cross(input, other, *, dim=-1, out=None):
    """The cross product of 3-vectors along dim, broadcasting the other dims, as torch.linalg.cross."""
    if input.dim() != other.dim():
        raise RuntimeError("linalg.cross: inputs must have the same number of dimensions.")
    d = _wrap_dim(dim, input.dim())
    if input.shape[d] != 3 or other.shape[d] != 3:
        raise RuntimeError(
            f"linalg.cross: inputs dimension {dim} must have length 3. Got {input.shape[d]} and {other.shape[d]}"
        )
    if input.dtype == _C.bool:  # PyTorch's kernel dispatches on input's dtype before reading other in it
        raise NotImplementedError("\"cross\" not implemented for 'Bool'")
    if input.dtype != other.dtype:
        raise RuntimeError(f"expected scalar type {_name(input.dtype)} but found {_name(other.dtype)}")
    return _composite_shape.cross_product(input, other, d, out)


def matrix_power(A, n, *, out=None):
    """A multiplied by itself n times over the last two dims, by repeated squaring: the identity for n == 0,
    inv(A) multiplied |n| times for a negative n."""
    if not _argcheck._int_like(n, True):  # the parser's int: a 0-d integer tensor or NumPy int too
        raise TypeError(
            f"linalg_matrix_power(): argument 'n' (position 2) must be int, not {type(n).__name__}"
        )
    return _decomp.matrix_power_impl(A, _operator.index(n), out)


def vander(x, *, N=None):
    """The Vandermonde matrix of x with increasing powers x^0 .. x^(N-1) along a new last dim (N defaults to
    x.shape[-1]), batched over x's other dims, as torch.linalg.vander."""
    if x.dtype not in (_C.float32, _C.float64) and x.dtype not in _INTS and x.dtype not in _COMPLEX:
        raise NotImplementedError(
            f"linalg.vander supports floating point, complex, and integer tensors, but got {_name(x.dtype)}"
        )
    x1 = x.unsqueeze(-1) if x.dim() == 0 else x
    n = x1.shape[-1] if N is None else N
    if n <= 1:
        raise RuntimeError("N must be greater than 1.")
    shape = tuple(x1.shape) + (n - 1,)
    powers = x1.unsqueeze(-1).expand(shape).cumprod(-1)
    ones = _C.ones(tuple(x1.shape) + (1,), dtype=powers.dtype, device=x.device)
    return _C.cat([ones, powers], -1)


def _check_decomposable(A, fn):
    """linalg.<fn>'s checks of a batch of matrices: the rank, then a floating or complex dtype"""
    if A.dim() < 2:
        raise RuntimeError(f"linalg.{fn}: The input tensor A must have at least 2 dimensions.")
    if not (A.is_floating_point() or A.is_complex()):
        raise NotImplementedError(
            f"linalg.{fn}: Expected a floating point or complex tensor as input. Got {_scalar_name(A.dtype)}"
        )


@_argcheck.parses("Tensor input", name="linalg_matrix_sqrth")
def matrix_sqrth(A):
    """The principal square root of symmetric (Hermitian) positive-(semi)definite matrices from eigh of the lower
    triangle: V diag(sqrt(L)) V^H, eigenvalues below zero (rounding) taken as zero as PyTorch does."""
    if A.dim() < 2:
        raise RuntimeError("linalg.matrix_sqrth: The input tensor A must have at least 2 dimensions.")
    if A.shape[-1] != A.shape[-2]:
        raise RuntimeError(
            "linalg.matrix_sqrth: A must be batches of square matrices, but they are "
            f"{A.shape[-2]} by {A.shape[-1]} matrices"
        )
    _check_decomposable(A, "matrix_sqrth")
    if A.dtype in (_C.float16, _C.bfloat16):
        raise NotImplementedError(
            f"linalg.matrix_sqrth: Low precision dtypes not supported. Got {_scalar_name(A.dtype)}"
        )
    vals, vecs = _decomp.eigh(A)
    root = vals.clamp(min=0).sqrt().to(vecs.dtype)
    return (vecs * root.unsqueeze(-2)) @ vecs.mH


@_argcheck.parses("Tensor A, *, Tensor[]? out=None", name="linalg_polar")
def polar(A, *, out=None):
    """The polar decomposition A = U H of (m, n) matrices with m >= n from the thin SVD A = W S V^H: U = W V^H
    (orthonormal columns), H = V S V^H (positive semidefinite), as a (U, H) named tuple."""
    _check_decomposable(A, "polar")
    m, n = A.shape[-2], A.shape[-1]
    if m < n:
        raise RuntimeError(
            f"linalg.polar: input must have at least as many rows as columns, but got {m} by {n} matrices"
        )
    w, s, vh = _decomp.svd(A, full_matrices=False)
    v = vh.mH
    u = w @ vh
    h = (v * s.to(v.dtype).unsqueeze(-2)) @ vh
    if out is not None:
        write_out((u, h), out, None)
        return _PolarOut(*out)
    return _Polar(u, h)


# PyTorch's TypeError for an argument of the wrong kind, as for this module's own functions below
globals().update({_n: _argcheck.translating(_f, _n) for _n, _f in _decomp.LINALG.items() if callable(_f)})
globals()["LinAlgError"] = _decomp.LinAlgError


def cond(A, p=None, *, out=None):
    """The condition number of A in the norm p (2 by default: the ratio of extreme singular values)."""
    if not _argcheck._tensor_like(A) and p is None:
        raise TypeError(
            f"linalg_cond(): argument 'input' (position 1) must be Tensor, not {type(A).__name__}"
        )
    if _argcheck._plain_0d(p):  # the parser's Number: a 0-d tensor without grad stands for its value
        p = p.item()
    if not _argcheck._tensor_like(A) or (p is not None and not isinstance(p, (str, _numbers.Number))):
        # the parser's (Number or str p) overloads
        got = ", ".join(_argcheck._kind_name(v) for v in ((A,) if p is None else (A, p)))
        raise TypeError(
            f"linalg_cond() received an invalid combination of arguments - got ({got}), but "
            "expected one of:\n * (Tensor input, Number p = None, *, Tensor out = None)\n"
            " * (Tensor input, str p, *, Tensor out = None)\n"
        )
    if _C._is_tensor(A) and A.dim() < 2:  # after the parser's overloads
        raise RuntimeError("linalg.cond: The input tensor must have at least 2 dimensions.")
    # PyTorch's order: a string norm's squareness first (any string, before its name is checked), the norm's
    # name, then no matrices or empty ones (zeros, outside the graph, any dtype), then a numeric norm's
    # squareness, then the dtype its first kernel checks
    if isinstance(p, str):
        _cond_square(A, p)
    if isinstance(p, complex):
        raise ValueError("linalg.cond: Expected a non-complex scalar as the order of norm.")  # noqa: TRY004
    if p not in (None, 1, -1, 2, -2, _math.inf, -_math.inf, "fro", "nuc"):  # a float as C++ streams it (%g)
        raise ValueError(f"linalg.cond got an invalid norm type: {f'{p:g}' if isinstance(p, float) else p}")
    if A.numel() == 0:
        real = _decomp._real_dtype(A.dtype)
        return _cond_out(_C.zeros(tuple(A.shape[:-2]), dtype=real, device=A.device), out)
    if p in (None, 2, -2):
        _decomp._check(A, "linalg.svd", square=False, kernel="linalg_svd")
        S = _decomp.svdvals(A)
        big, small = S[..., 0], S[..., -1]
        return _cond_out(big / small if p != -2 else small / big, out)
    if not isinstance(p, str):
        _cond_square(A, p)
    if p == "nuc":
        _decomp._check(A, "linalg.svd", kernel="linalg_svd")
    else:
        _decomp._check(A, "linalg.inv", low_precision=True)
    return _cond_out(matrix_norm(A, p) * matrix_norm(_decomp.inv(A), p), out)


def _cond_square(A, p):
    """linalg.cond's squareness check, naming the norm as PyTorch's message does (a finite float as %f)."""
    if A.shape[-1] != A.shape[-2]:
        name = p if isinstance(p, (str, int)) or _math.isinf(p) else f"{p:.6f}"
        raise RuntimeError(
            f"linalg.cond(ord={name}): A must be batches of square matrices, but they are {A.shape[-2]} by "
            f"{A.shape[-1]} matrices"
        )


# torch.frobenius_norm / torch.nuclear_norm (minitorch/__init__.py exports them): their bad arguments are the
# parser's, before ATen's deprecation warning
@_argcheck.parses("Tensor input, int[1] dim, bool keepdim=False, *, Tensor? out=None", name="frobenius_norm")
def _torch_frobenius_norm(input, dim, keepdim=False, *, out=None):
    """torch.frobenius_norm: kept by PyTorch for TorchScript only (it warns); torch.norm(input, 2, dim) over at
    most two dims."""
    warnings.warn(
        "at::frobenius_norm is deprecated and it is just left for JIT compatibility. It will be removed in a future "
        "PyTorch release. Please use `linalg.vector_norm(A, 2., dim, keepdim)` instead",
        UserWarning,
        stacklevel=2,
    )
    dim = _C._int_list_value(dim, "frobenius_norm", "dim", 2, False, True)  # int[1]: a bare int is one dim
    if len(dim) > 2:
        raise RuntimeError(f"Expected at most 2 dimensions, but got {len(dim)} dimensions instead.")
    if not (input.is_floating_point() or input.is_complex()):  # ATen's norm op, not linalg's, checks here
        raise NotImplementedError(
            f"norm(): input dtype should be either floating point or complex. Got {_scalar_name(input.dtype)} instead."
        )
    return write_out(_C.norm(input, 2, dim, keepdim), out, "frobenius_norm")


@_argcheck.parses(
    "Tensor input, bool keepdim=False, *, Tensor? out=None",
    "Tensor input, int[2] dim, bool keepdim=False, *, Tensor? out=None",
    name="nuclear_norm",
)
def _torch_nuclear_norm(input, dim=None, keepdim=False, *, out=None):
    """torch.nuclear_norm: kept by PyTorch for TorchScript only (it warns); linalg.matrix_norm(input, 'nuc')."""
    warnings.warn(
        "at::nuclear_norm is deprecated and it is just left for JIT compatibility. It will be removed in a future "
        "PyTorch release. Please use `linalg.matrix_norm(A, 'nuc', dim, keepdim)` instead",
        UserWarning,
        stacklevel=2,
    )
    if isinstance(dim, bool):  # nuclear_norm(input, keepdim): PyTorch's first overload
        dim, keepdim = None, dim
    elif dim is not None:  # ATen's int[2] dim: a bare int (or one-element integer tensor) stands for both
        dim = _C._int_list_value(dim, "nuclear_norm", "dim", 2, False, True)
        dim = tuple(dim) * 2 if len(dim) == 1 else tuple(dim)
    return write_out(
        matrix_norm(input, "nuc", (-2, -1) if dim is None else dim, keepdim), out, "nuclear_norm"
    )


_argcheck.translate_module(globals())  # PyTorch's TypeError for an argument of the wrong kind (_argcheck.py)
