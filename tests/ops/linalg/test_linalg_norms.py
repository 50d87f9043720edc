"""minitorch.linalg: vector_norm, matrix_norm, norm, vecdot, multi_dot, matmul, diagonal, cross, matrix_power
and vander against float64 NumPy, over float32/float64, dims, keepdim, non-contiguous inputs and empty tensors;
gradients by finite differences (away from the norms' kinks); PyTorch's errors; the decompositions' clear
NotImplementedError. Every device present."""

import math
import re

import numpy as np
import pytest
from utils import TOL, assert_matches, cases_here_and_in_pytorch, to_np

import minitorch
from minitorch import linalg as LA
from minitorch.autograd import gradcheck

DTYPES = [minitorch.float32, minitorch.float64]
INF = math.inf


def _t(arr, dtype=minitorch.float64, device="cpu"):
    return minitorch.tensor(np.asarray(arr), dtype=dtype, device=device)


def _data(shape, dtype, seed=0):
    a = np.random.default_rng(seed).uniform(-2, 2, shape)
    return a.astype(np.float32).astype(np.float64) if dtype == minitorch.float32 else a


def np_vector_norm(a, ord, dim, keepdim):
    axis = None if dim is None or dim == () else dim
    x = np.abs(a)
    if ord == INF:
        r = x.max(axis=axis, keepdims=keepdim)
    elif ord == -INF:
        r = x.min(axis=axis, keepdims=keepdim)
    elif ord == 0:
        r = (x != 0).sum(axis=axis, keepdims=keepdim).astype(np.float64)
    else:
        with np.errstate(divide="ignore"):  # a negative ord over a zero: (inf) ** (1 / ord) == 0
            r = (x**ord).sum(axis=axis, keepdims=keepdim) ** (1.0 / ord)
    return np.asarray(r)


ORDS = [2, 1, 3, 0.5, -1, INF, -INF, 0]
DIMS = [None, 0, -1, (0, 2), (), (2, 0, 1)]


@pytest.mark.parametrize("keepdim", [False, True])
@pytest.mark.parametrize("dim", DIMS, ids=str)
@pytest.mark.parametrize("ord", ORDS, ids=str)
@pytest.mark.parametrize("dtype", DTYPES)
def test_vector_norm(device, dtype, ord, dim, keepdim):
    a = _data((3, 4, 5), dtype)
    a[0, 0, 0] = 0.0  # one exact zero, which ord=0 must not count
    got = LA.vector_norm(_t(a, dtype, device), ord, dim, keepdim)
    assert got.dtype == dtype
    if dim == () and keepdim:
        expected = np_vector_norm(a, ord, None, True)
    else:
        expected = np_vector_norm(a, ord, dim, keepdim)
    r, at = TOL[dtype]
    assert_matches(got, expected, rtol=10 * r, atol=10 * at)


@pytest.mark.parametrize("ord", [2, 1, INF, 3])
def test_vector_norm_non_contiguous(device, ord):
    a = _data((6, 5), minitorch.float64, 1)
    t = _t(np.ascontiguousarray(a.T), device=device).T
    assert not t.is_contiguous()
    assert_matches(LA.vector_norm(t, ord, 1), np_vector_norm(a, ord, 1, False))
    big = _t(np.repeat(a, 2, axis=1), device=device)[:, ::2]
    assert not big.is_contiguous()
    assert_matches(LA.vector_norm(big, ord, (0, 1)), np_vector_norm(a, ord, None, False))


def test_vector_norm_dtype_argument(device):
    a = np.array([1e-3, 2.0, 3.0], dtype=np.float32)
    got = LA.vector_norm(_t(a, minitorch.float32, device), dtype=minitorch.float64)
    assert got.dtype == minitorch.float64
    assert_matches(got, np.sqrt((a.astype(np.float64) ** 2).sum()))
    with pytest.raises(
        RuntimeError,
        match=r"^linalg\.vector_norm: the dtype of the input \(Double\) should be convertible without narrowing to "
        r"the specified dtype \(Float\)$",
    ):
        LA.vector_norm(_t(a, device=device), dtype=minitorch.float32)
    with pytest.raises(
        RuntimeError, match=r"^linalg\.vector_norm: dtype should be floating point or complex, but got Long$"
    ):
        LA.vector_norm(_t(a, device=device), dtype=minitorch.int64)


@pytest.mark.parametrize("ord", [2, 1, 0.5, INF, -INF, 0, -2])
@pytest.mark.parametrize("dim", [None, 1, (0, 1)], ids=str)
def test_torch_norm_and_tensor_norm_agree_with_vector_norm(device, ord, dim):
    t = _t(_data((4, 6), minitorch.float64, 2), device=device)
    want = to_np(LA.vector_norm(t, ord, dim))
    assert_matches(minitorch.norm(t, ord, dim), want)
    assert_matches(t.norm(ord, dim), want)
    if dim is not None and not isinstance(dim, tuple):
        assert_matches(LA.norm(t, ord, dim), want)


def test_vector_norm_scalar_and_empty(device):
    s = _t(-3.0, device=device)
    assert float(LA.vector_norm(s, 3)) == 3.0 and float(LA.vector_norm(s, dim=0)) == 3.0
    e = minitorch.zeros(0, 3, dtype=minitorch.float64, device=device)
    assert float(LA.vector_norm(e)) == 0.0 and float(LA.vector_norm(e, 0)) == 0.0
    assert_matches(LA.vector_norm(e, 1, 0), np.zeros(3))
    assert tuple(LA.vector_norm(e, INF, 1).shape) == (0,)
    with pytest.raises(
        RuntimeError, match=r"cannot compute the inf norm on an empty tensor because the operation"
    ):
        LA.vector_norm(e, INF)
    with pytest.raises(RuntimeError, match=r"cannot compute the -1 norm on an empty tensor"):
        LA.vector_norm(e, -1)
    with pytest.raises(
        RuntimeError, match=r"^linalg\.vector_norm cannot compute the inf norm on the dimension 0because"
    ):
        LA.vector_norm(e, INF, 0)


def test_vector_norm_errors(device):
    with pytest.raises(
        NotImplementedError,
        match=r"^linalg\.vector_norm: Expected a floating point or complex tensor as input\. Got Long$",
    ):
        LA.vector_norm(minitorch.tensor([1, 2], device=device))
    with pytest.raises(TypeError, match=r"argument 'ord' \(position 2\) must be Number, not str"):
        LA.vector_norm(minitorch.ones(3, device=device), "fro")
    x = minitorch.ones(2, 3, 4, device=device)
    with pytest.raises(
        IndexError, match=r"^Dimension out of range \(expected to be in range of \[-3, 2\], but got 3\)$"
    ):
        LA.vector_norm(x, dim=3)
    with pytest.raises(RuntimeError, match=r"^dim 0 appears multiple times in the list of dims$"):
        LA.vector_norm(x, dim=(0, -3))


VECTOR_NORM_DIM_CASES = """
def cases(torch):
    out = []
    x = torch.ones(2, 3)
    dims = [torch.tensor(0), torch.tensor([1]), torch.tensor(True), torch.tensor([0, 1]), torch.tensor(0.0),
            [torch.tensor(0)], True, (True,), (0, True), (0, torch.tensor([1])), (0, 1.0), [0, None], "a", (), 2.0]
    for d in dims:
        for inp in (x, x.bool()):  # the dim's parse comes before the input's dtype check
            try:
                out.append(list(torch.linalg.vector_norm(inp, 2, d).shape))
            except Exception as e:
                out.append([type(e).__name__, str(e)[:90]])
    return out
"""


def test_vector_norm_dim_parse_matches_pytorch():
    ours, theirs = cases_here_and_in_pytorch(VECTOR_NORM_DIM_CASES, [("torch", minitorch)])
    assert ours == theirs


EMPTY_MATRIX_NORM_CASES = """
def cases(torch):
    out = []
    for shape in [(0, 2), (2, 0), (3, 0, 2), (3, 2, 0), (0, 0)]:
        for ord in [2, -2, "nuc", "fro", 1, -1, float("inf"), float("-inf")]:
            for f in (torch.linalg.matrix_norm, torch.linalg.norm):
                try:
                    r = f(torch.empty(shape), ord)
                    out.append([list(r.shape), r.sum().item()])
                except Exception as e:
                    out.append([type(e).__name__, str(e)])
    return out
"""


def test_matrix_norms_of_empty_matrices_match_pytorch():
    # the 2-norm of no singular values is 0 there, the -2-norm amin's IndexError naming dim -1
    ours, theirs = cases_here_and_in_pytorch(EMPTY_MATRIX_NORM_CASES, [("torch", minitorch)])
    assert ours == theirs


def test_two_norm_of_an_empty_matrix_is_zero(device):
    for shape in [(0, 2), (3, 0, 2)]:
        r = LA.matrix_norm(minitorch.empty(shape, device=device), 2)
        assert r.shape == shape[:-2] and (r == 0).all().item()


# ---- matrix norms


@pytest.mark.parametrize("keepdim", [False, True])
@pytest.mark.parametrize("dim", [(-2, -1), (0, 2), (2, 0), (1, 0)], ids=str)
@pytest.mark.parametrize("ord", ["fro", INF, -INF, 1, -1], ids=str)
@pytest.mark.parametrize("dtype", DTYPES)
def test_matrix_norm(device, dtype, ord, dim, keepdim):
    a = _data((3, 4, 5), dtype, 3)
    got = LA.matrix_norm(_t(a, dtype, device), ord, dim, keepdim)
    assert got.dtype == dtype
    r, at = TOL[dtype]
    assert_matches(got, np.linalg.norm(a, ord, axis=dim, keepdims=keepdim), rtol=10 * r, atol=10 * at)


def test_matrix_norm_non_contiguous_and_empty(device):
    a = _data((5, 4), minitorch.float64, 4)
    t = _t(np.ascontiguousarray(a.T), device=device).T
    for ord in ["fro", 1, INF, -1]:
        assert_matches(LA.matrix_norm(t, ord), np.linalg.norm(a, ord))
    e = minitorch.zeros(2, 0, 4, dtype=minitorch.float64, device=device)
    for ord in ["fro", 1, INF]:
        assert_matches(LA.matrix_norm(e, ord), np.zeros(2))
    assert tuple(LA.matrix_norm(minitorch.zeros(0, 3, 4, device=device), INF).shape) == (0,)


@pytest.mark.parametrize("ord", ["nuc", 2, -2])
def test_matrix_norm_of_singular_values(device, ord):
    a = _data((2, 3, 4), minitorch.float64, 31)
    t = _t(a, device=device)
    assert_matches(LA.matrix_norm(t, ord), np.linalg.norm(a, ord, axis=(-2, -1)), rtol=1e-12, atol=1e-12)
    assert_matches(LA.norm(t[0], ord), np.linalg.norm(a[0], ord), rtol=1e-12, atol=1e-12)
    got = LA.matrix_norm(t, ord, dim=(0, 2), keepdim=True)
    want = np.linalg.norm(a, ord, axis=(0, 2), keepdims=True)
    assert tuple(got.shape) == want.shape
    assert_matches(got, want, rtol=1e-12, atol=1e-12)
    x = _t(a[0], device=device).requires_grad_()
    assert gradcheck(lambda m: LA.matrix_norm(m, ord), (x,))
    with pytest.raises(NotImplementedError, match="Low precision dtypes not supported. Got Half"):
        LA.matrix_norm(minitorch.ones(3, 3, dtype=minitorch.float16, device=device), ord)


def test_matrix_norm_errors(device):
    x = minitorch.ones(2, 3, 4, device=device)
    with pytest.raises(RuntimeError, match=r"^linalg\.matrix_norm: Order 3 not supported\.$"):
        LA.matrix_norm(x, 3)
    with pytest.raises(RuntimeError, match=r"^linalg\.matrix_norm: Order abc not supported\.$"):
        LA.matrix_norm(x, "abc")
    with pytest.raises(
        RuntimeError, match=r"^linalg\.matrix_norm: The input tensor A must have at least 2 dimensions\.$"
    ):
        LA.matrix_norm(x[0, 0])
    with pytest.raises(
        NotImplementedError, match=r"^linalg\.matrix_norm: Expected a floating point .* Got Long$"
    ):
        LA.matrix_norm(minitorch.ones(3, 3, dtype=minitorch.int64, device=device))
    with pytest.raises(RuntimeError, match=r"^linalg\.matrix_norm: dim must be a 2-tuple\. Got 0 1 2$"):
        LA.matrix_norm(x, dim=(0, 1, 2))
    with pytest.raises(RuntimeError, match=r"^linalg\.matrix_norm: dims must be different\. Got \(1, 1\)$"):
        LA.matrix_norm(x, dim=(1, -2))
    with pytest.raises(IndexError, match=r"^Dimension out of range"):
        LA.matrix_norm(x, dim=(1, 5))
    with pytest.raises(RuntimeError, match=r"without narrowing to the specified dtype \(Float\)$"):
        LA.matrix_norm(x.double(), dtype=minitorch.float32)
    with pytest.raises(
        NotImplementedError, match=r"^linalg\.matrix_norm: Low precision dtypes not supported\. Got Half$"
    ):
        LA.matrix_norm(minitorch.ones(2, 2, dtype=minitorch.float16, device=device), 2)


def test_norm_dispatch(device):
    a = _data((2, 3, 4), minitorch.float64, 5)
    t = _t(a, device=device)
    assert_matches(LA.norm(t), np.sqrt((a**2).sum()))
    assert_matches(LA.norm(t, dim=(1, 2)), np.sqrt((a**2).sum((1, 2))))  # ord None: the 2-norm, a vector norm
    assert_matches(LA.norm(t, 1, dim=(1, 2)), np.linalg.norm(a, 1, axis=(1, 2)))  # ord with 2 dims: matrix
    assert_matches(LA.norm(t, 1, dim=1), np.abs(a).sum(1))  # one dim: vector
    assert_matches(LA.norm(t[0], INF), np.linalg.norm(a[0], INF))  # 2-D, no dim: matrix
    assert_matches(LA.norm(t[0, 0], INF), np.abs(a[0, 0]).max())  # 1-D: vector
    assert_matches(
        LA.norm(t, "fro", (0, 2), keepdim=True), np.linalg.norm(a, "fro", axis=(0, 2), keepdims=True)
    )
    got = LA.norm(t.float(), dtype=minitorch.float64)
    assert got.dtype == minitorch.float64
    with pytest.raises(
        RuntimeError,
        match=r"^linalg\.norm: If dim is specified, it must be of length 1 or 2\. Got \[0, 1, 2\]$",
    ):
        LA.norm(t, dim=(0, 1, 2))
    with pytest.raises(
        RuntimeError,
        match=r"^linalg\.norm: If dim is not specified but ord is, the input must be 1D or 2D\. Got 3D\.$",
    ):
        LA.norm(t, 2)
    with pytest.raises(
        RuntimeError, match=r"^linalg\.norm: If dim is not specified but ord is, .* Got 3D\.$"
    ):
        LA.norm(t, "fro")
    with pytest.raises(RuntimeError, match=r"^linalg\.matrix_norm: dim must be a 2-tuple\. Got 1$"):
        LA.norm(t, "fro", 1)


def _away_from_kinks(shape, seed):
    # distinct magnitudes, none near 0, so max/min/abs are differentiable where finite differences probe
    rng = np.random.default_rng(seed)
    mags = rng.permutation(np.linspace(0.5, 2.5, int(np.prod(shape)))).reshape(shape)
    return mags * rng.choice([-1.0, 1.0], shape)


@pytest.mark.parametrize("ord", [2, 1, 3, 0.5, -1, INF, -INF])
@pytest.mark.parametrize("dim", [None, 1, (0, 2)], ids=str)
def test_vector_norm_gradcheck(device, ord, dim):
    x = _t(_away_from_kinks((2, 3, 4), 6), device=device).requires_grad_()
    assert gradcheck(lambda a: LA.vector_norm(a, ord, dim), (x,))


@pytest.mark.parametrize("ord", ["fro", 1, -1, INF, -INF])
def test_matrix_norm_gradcheck(device, ord):
    x = _t(_away_from_kinks((2, 3, 4), 7), device=device).requires_grad_()
    assert gradcheck(lambda a: LA.matrix_norm(a, ord), (x,))
    assert gradcheck(lambda a: LA.matrix_norm(a, ord, (0, 2), keepdim=True), (x,))


# ---- products and constructions


@pytest.mark.parametrize("dtype", DTYPES)
def test_vecdot(device, dtype):
    a, b = _data((3, 4, 5), dtype, 8), _data((4, 5), dtype, 9)
    got = LA.vecdot(_t(a, dtype, device), _t(b, dtype, device))
    r, at = TOL[dtype]
    assert_matches(got, (a * b).sum(-1), rtol=10 * r, atol=10 * at)
    assert_matches(
        LA.vecdot(_t(a, dtype, device), _t(a, dtype, device), dim=1),
        (a * a).sum(1),
        rtol=10 * r,
        atol=10 * at,
    )
    with pytest.raises(
        RuntimeError, match=r"^linalg\.vecdot: Expected x and y to have the same dtype, but found x of type"
    ):
        LA.vecdot(_t(a, minitorch.float64, device), _t(a, minitorch.float32, device))
    with pytest.raises(NotImplementedError, match=r"^linalg\.vecdot: Expected a floating point"):
        LA.vecdot(minitorch.ones(3, dtype=minitorch.int64), minitorch.ones(3, dtype=minitorch.int64))
    with pytest.raises(
        NotImplementedError, match=r"^linalg\.vecdot: Expected a floating point"
    ):  # dtype first
        LA.vecdot(minitorch.ones(3, dtype=minitorch.int64), minitorch.ones(3, dtype=minitorch.float32))


class _RecordingC:
    """Stands in for minitorch._C inside minitorch.linalg, writing down the shapes each mm multiplies."""

    def __init__(self, real):
        self.real, self.calls = real, []

    def __getattr__(self, name):
        return getattr(self.real, name)

    def mm(self, a, b):
        self.calls.append((tuple(a.shape), tuple(b.shape)))
        return self.real.mm(a, b)


def _brute_chain_cost(dims):
    """The least number of scalar multiplications of a chain with these dims, by trying every split."""
    n = len(dims) - 1
    if n == 1:
        return 0
    return min(
        _brute_chain_cost(dims[: k + 1]) + _brute_chain_cost(dims[k:]) + dims[0] * dims[k] * dims[-1]
        for k in range(1, n)
    )


@pytest.mark.parametrize(
    "dims",
    [(10, 100, 5, 50), (50, 5, 100, 10), (30, 35, 15, 5, 10, 20, 25), (2, 40, 3, 40, 2), (7, 7, 7)],
    ids=str,
)
def test_multi_dot_takes_the_cheapest_order(device, monkeypatch, dims):
    rng = np.random.default_rng(10)
    mats = [rng.standard_normal((dims[i], dims[i + 1])) for i in range(len(dims) - 1)]
    rec = _RecordingC(minitorch._C)
    monkeypatch.setattr(LA, "_C", rec)
    got = LA.multi_dot([_t(m, device=device) for m in mats])
    expected = mats[0]
    for m in mats[1:]:
        expected = expected @ m
    assert_matches(got, expected, rtol=1e-9, atol=1e-9)
    assert sum(a[0] * a[1] * b[1] for a, b in rec.calls) == _brute_chain_cost(list(dims))


def test_multi_dot_vectors_and_errors(device):
    rng = np.random.default_rng(11)
    v, A, B, w = (
        rng.standard_normal(3),
        rng.standard_normal((3, 4)),
        rng.standard_normal((4, 5)),
        rng.standard_normal(5),
    )
    tv, tA, tB, tw = (_t(a, device=device) for a in (v, A, B, w))
    assert_matches(LA.multi_dot([tv, tA, tB, tw]), v @ A @ B @ w)
    assert_matches(LA.multi_dot([tv, tA]), v @ A)
    assert_matches(LA.multi_dot([tA, tB, tw]), A @ B @ w)
    assert_matches(LA.multi_dot((tA.T.contiguous().T, tB)), A @ B)
    with pytest.raises(RuntimeError, match=r"^multi_dot\(\): expected at least 2 tensors but got 1$"):
        LA.multi_dot([tA])
    with pytest.raises(RuntimeError, match=r"^multi_dot\(\): the last tensor must be 1D or 2D but got 3D$"):
        LA.multi_dot([tA, tB.unsqueeze(0)])
    with pytest.raises(
        RuntimeError,
        match=r"^multi_dot\(\): tensors 0 and 1 with shapes \[3, 4\] and \[3, 4\] cannot be multiplied$",
    ):
        LA.multi_dot([tA, tA])
    with pytest.raises(RuntimeError, match=r"^multi_dot\(\): tensor 1 must be 2D but got 1D$"):
        LA.multi_dot([tA, tw[:4], tw])
    with pytest.raises(
        RuntimeError,
        match=r"^multi_dot\(\): all tensors must have be the same dtype but tensor 0 is double and tensor 1 float$",
    ):
        LA.multi_dot([tA, tB.float()])


def test_multi_dot_gradcheck(device):
    rng = np.random.default_rng(12)
    xs = [_t(rng.standard_normal(s), device=device).requires_grad_() for s in [(2, 3), (3, 4), (4, 2), (2,)]]
    assert gradcheck(lambda *a: LA.multi_dot(a), tuple(xs))


@pytest.mark.parametrize("dtype", DTYPES)
def test_cross(device, dtype):
    a, b = _data((4, 3), dtype, 13), _data((1, 3), dtype, 14)
    r, at = TOL[dtype]
    assert_matches(
        LA.cross(_t(a, dtype, device), _t(b, dtype, device)), np.cross(a, b), rtol=10 * r, atol=10 * at
    )
    c, d = _data((3, 5), dtype, 15), _data((3, 5), dtype, 16)
    tc = _t(np.ascontiguousarray(c.T), dtype, device).T
    got = LA.cross(tc, _t(d, dtype, device), dim=0)
    assert_matches(got, np.cross(c, d, axis=0), rtol=10 * r, atol=10 * at)
    with pytest.raises(
        RuntimeError, match=r"^linalg\.cross: inputs dimension -1 must have length 3\. Got 4 and 4$"
    ):
        LA.cross(
            minitorch.ones(5, 4, dtype=dtype, device=device), minitorch.ones(5, 4, dtype=dtype, device=device)
        )
    with pytest.raises(
        RuntimeError, match=r"^linalg\.cross: inputs must have the same number of dimensions\.$"
    ):
        LA.cross(_t(a, dtype, device), _t(b[0], dtype, device))
    x = _t(a, device=device).requires_grad_()
    y = _t(_data((4, 3), minitorch.float64, 17), device=device).requires_grad_()
    assert gradcheck(LA.cross, (x, y))


@pytest.mark.parametrize("n", [0, 1, 2, 3, 5, 8])
@pytest.mark.parametrize("dtype", DTYPES)
def test_matrix_power(device, dtype, n):
    a = _data((2, 3, 3), dtype, 18) / 2
    got = LA.matrix_power(_t(a, dtype, device), n)
    assert got.dtype == dtype and tuple(got.shape) == (2, 3, 3)
    r, at = TOL[dtype]
    assert_matches(got, np.linalg.matrix_power(a, n), rtol=20 * r, atol=20 * at)


def test_matrix_power_ints_grad_and_errors(device):
    m = np.array([[1, 1], [1, 0]])
    if device == "cuda":  # integer matmul has no CUDA kernel (cuBLAS has none; PyTorch refuses the same)
        with pytest.raises(NotImplementedError, match="not implemented for 'Long'"):
            LA.matrix_power(minitorch.tensor(m, device=device), 10)
    else:
        fib = LA.matrix_power(minitorch.tensor(m, device=device), 10)
        assert fib.dtype == minitorch.int64 and to_np(fib).tolist() == [[89, 55], [55, 34]]
    src = _t(np.eye(2), device=device)
    assert LA.matrix_power(src, 1).data_ptr() != src.data_ptr()  # a new tensor, as PyTorch returns
    x = _t(_data((3, 3), minitorch.float64, 19) / 2, device=device).requires_grad_()
    assert gradcheck(lambda a: LA.matrix_power(a, 5), (x,))
    w = np.eye(3) * 3 + _data((3, 3), np.float64, 23) / 4
    assert_matches(
        LA.matrix_power(_t(w, device=device), -3), np.linalg.matrix_power(w, -3), rtol=1e-10, atol=1e-12
    )
    assert gradcheck(lambda a: LA.matrix_power(a, -2), (_t(w, device=device).requires_grad_(),))
    with pytest.raises(
        RuntimeError,
        match=r"^linalg\.matrix_power: A must be batches of square matrices, but they are 3 by 4 matrices$",
    ):
        LA.matrix_power(minitorch.ones(2, 3, 4), 2)
    with pytest.raises(
        RuntimeError, match=r"^linalg\.matrix_power: The input tensor A must have at least 2 dimensions\.$"
    ):
        LA.matrix_power(minitorch.ones(3), 2)
    with pytest.raises(TypeError, match=r"argument 'n' \(position 2\) must be int, not float"):
        LA.matrix_power(x, 2.0)


def test_vander(device):
    x = np.array([1.5, -2.0, 0.5, 3.0])
    assert_matches(LA.vander(_t(x, device=device)), np.vander(x, increasing=True))
    assert_matches(LA.vander(_t(x, minitorch.float32, device), N=6), np.vander(x, 6, increasing=True))
    xi = minitorch.tensor([1, 2, 3], device=device)
    got = LA.vander(xi, N=4)
    assert (
        got.dtype == minitorch.int64
        and to_np(got).tolist() == np.vander([1, 2, 3], 4, increasing=True).tolist()
    )
    b = _data((2, 3), minitorch.float64, 20)
    assert_matches(LA.vander(_t(b, device=device)), np.stack([np.vander(r, increasing=True) for r in b]))
    with pytest.raises(RuntimeError, match=r"^N must be greater than 1\.$"):
        LA.vander(_t(x, device=device), N=1)
    with pytest.raises(
        NotImplementedError,
        match=r"^linalg\.vander supports floating point, complex, and integer tensors, but got Bool$",
    ):
        LA.vander(minitorch.tensor([True, False]))
    xg = _t(x[:3], device=device).requires_grad_()
    assert gradcheck(lambda a: LA.vander(a, N=4), (xg,))


def test_diagonal_and_matmul(device):
    a = _data((2, 3, 4), minitorch.float64, 21)
    t = _t(a, device=device)
    assert_matches(LA.diagonal(t), np.diagonal(a, 0, -2, -1))
    assert_matches(LA.diagonal(t, offset=1, dim1=0, dim2=2), np.diagonal(a, 1, 0, 2))
    assert_matches(LA.matmul(t, t.transpose(-2, -1)), a @ np.swapaxes(a, -2, -1))


def test_unknown_names_and_star_import():
    with pytest.raises(AttributeError, match="no attribute 'no_such_function'"):
        minitorch.linalg.no_such_function  # noqa: B018
    # `import *` reads __all__, and every name there must resolve (none may be a decomposition stand-in)
    assert {"vector_norm", "matrix_norm", "norm", "multi_dot", "cross", "vander", "svd", "solve"} <= set(
        LA.__all__
    )
    assert all(getattr(LA, n).__doc__ for n in LA.__all__)


def test_matrix_norm_overloads_as_pytorch():
    """linalg.matrix_norm's two overloads (a Number ord, a str ord) as PyTorch's parser decides (issue 34)"""
    a = minitorch.tensor([[1.0, -2.0], [3.0, 4.0]])
    for args, kwargs, got in [
        ((a, 0, True), {}, "got (Tensor, int, bool)"),
        ((a, minitorch.ones(3)), {}, "got (Tensor, Tensor)"),
        ((a, "fro", 0), {}, "got (Tensor, str, int)"),
    ]:
        with pytest.raises(
            TypeError,
            match=re.escape(f"linalg_matrix_norm() received an invalid combination of arguments - {got}"),
        ):
            LA.matrix_norm(*args, **kwargs)
    assert LA.matrix_norm(a, minitorch.tensor(1.0)).item() == 6.0  # a 0-d tensor is a Number
    assert LA.matrix_norm(a, ord=1).item() == 6.0
    assert LA.matrix_norm(a, 2, (0, 1), True, dtype=minitorch.float64).shape == (1, 1)
