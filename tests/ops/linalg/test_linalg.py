"""Linalg ops (mm, bmm, matmul, mv, dot, outer, addmm, einsum) against float64 NumPy, every dtype and device."""

import itertools

import numpy as np
import pytest
from utils import FLOAT_DTYPES, INT_DTYPES, TOL, assert_matches, child_json, make_array, make_tensor, to_np

import minitorch as torch

NUMERIC = FLOAT_DTYPES + INT_DTYPES


SHORT = {
    torch.int64: "Long",
    torch.int32: "Int",
    torch.int16: "Short",
    torch.int8: "Char",
    torch.uint8: "Byte",
}


def _cuda_int(device, dtype):
    """cuBLAS has no integer GEMM and neither has PyTorch on CUDA: such a product raises instead."""
    return device == "cuda" and dtype in INT_DTYPES


def _raises_no_int_gemm(dtype, fn):
    with pytest.raises(NotImplementedError, match=f"not implemented for '{SHORT[dtype]}'"):
        fn()


def _tol(dtype, k):
    """Tolerance for a length-k dot product: rounding grows with k, and half types round the result once."""
    r, a = TOL.get(dtype, (0, 0))
    return r * max(1.0, np.sqrt(k)), a * max(1.0, k)


def _ints_small(dtype, shape, rng):
    # int8/uint8 products wrap in PyTorch too; keep sums inside the type so NumPy float64 agrees.
    return make_array(shape, dtype, rng, low=-2, high=2)


def _data(dtype, shape, rng):
    return _ints_small(dtype, shape, rng) if dtype in INT_DTYPES else make_array(shape, dtype, rng)


def _layout(arr, dtype, device, layout):
    """make_tensor, with a real every-other-element view for "strided" (no tensor indexing needed)."""
    if layout != "strided" or np.ndim(arr) == 0:
        return make_tensor(arr, dtype, device, layout)
    big = np.zeros(tuple(2 * d for d in arr.shape), dtype=arr.dtype)
    big[tuple(slice(None, None, 2) for _ in arr.shape)] = arr
    t = torch.tensor(big, dtype=dtype, device=device)
    return t.as_strided(arr.shape, tuple(2 * s for s in t.stride()), 0)


def _check(got, expected, dtype, k):
    r, a = _tol(dtype, k)
    assert got.dtype == dtype
    assert_matches(got, expected, dtype=dtype, rtol=r, atol=a)


@pytest.mark.parametrize("dtype", NUMERIC)
def test_mm_dtypes(device, dtype):
    rng = np.random.default_rng(0)
    a, b = _data(dtype, (5, 7), rng), _data(dtype, (7, 3), rng)
    ta, tb = make_tensor(a, dtype, device), make_tensor(b, dtype, device)
    if _cuda_int(device, dtype):
        msg = f"\"addmm_cuda\" not implemented for '{SHORT[dtype]}'"
        with pytest.raises(NotImplementedError) as info:
            torch.mm(ta, tb)
        assert str(info.value) == msg
        return
    got = torch.mm(ta, tb)
    assert got.device == ta.device
    _check(got, a.astype(np.float64) @ b.astype(np.float64), dtype, 7)


@pytest.mark.parametrize("la", ["contiguous", "transposed", "strided"])
@pytest.mark.parametrize("lb", ["contiguous", "transposed", "strided"])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.bfloat16, torch.int64])
def test_mm_layouts(device, la, lb, dtype):
    rng = np.random.default_rng(1)
    a, b = _data(dtype, (6, 4), rng), _data(dtype, (4, 5), rng)
    ta, tb = _layout(a, dtype, device, la), _layout(b, dtype, device, lb)
    assert la != "strided" or not ta.is_contiguous()
    if _cuda_int(device, dtype):
        return _raises_no_int_gemm(dtype, lambda: ta @ tb)
    _check(ta @ tb, a.astype(np.float64) @ b.astype(np.float64), dtype, 4)


def test_mm_odd_strides(device):
    rng = np.random.default_rng(2)
    a = make_array((4, 6), torch.float32, rng)
    base = torch.tensor(a, device=device)
    # a column slice keeps unit stride with a larger leading dim; a row-broadcast needs a copy
    sub = base.narrow(1, 1, 3)
    b = make_array((3, 2), torch.float32, rng)
    assert_matches(sub @ torch.tensor(b, device=device), a[:, 1:4] @ b)
    row = torch.tensor(a[:1], device=device).expand(4, 6)
    c = make_array((6, 2), torch.float32, rng)
    assert_matches(
        row @ torch.tensor(c, device=device), np.broadcast_to(a[:1], (4, 6)) @ c, rtol=1e-5, atol=1e-5
    )
    # a column vector stored with an arbitrary stride and a 1xK row
    assert_matches(base.narrow(0, 0, 1) @ torch.tensor(c, device=device), a[:1] @ c, rtol=1e-5, atol=1e-5)


def test_mm_large_and_threads(device):
    rng = np.random.default_rng(3)
    a, b = make_array((130, 257), torch.float32, rng), make_array((257, 65), torch.float32, rng)
    f32 = torch.float32
    _check(
        torch.tensor(a, dtype=f32, device=device) @ torch.tensor(b, dtype=f32, device=device), a @ b, f32, 257
    )


@pytest.mark.parametrize("m,k,n", [(0, 3, 4), (3, 0, 4), (3, 4, 0), (0, 0, 0)])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.int32])
def test_mm_empty(device, m, k, n, dtype):
    a = torch.ones(m, k, dtype=dtype, device=device)
    b = torch.ones(k, n, dtype=dtype, device=device)
    r = torch.mm(a, b)
    assert tuple(r.shape) == (m, n) and r.dtype == dtype
    assert_matches(r, np.zeros((m, n)))


@pytest.mark.parametrize("dtype", NUMERIC)
def test_bmm(device, dtype):
    rng = np.random.default_rng(4)
    a, b = _data(dtype, (4, 3, 5), rng), _data(dtype, (4, 5, 2), rng)
    ta, tb = make_tensor(a, dtype, device), make_tensor(b, dtype, device)
    if _cuda_int(device, dtype):
        return _raises_no_int_gemm(dtype, lambda: torch.bmm(ta, tb))
    _check(torch.bmm(ta, tb), a @ b, dtype, 5)


def test_bmm_transposed_and_many_small(device):
    rng = np.random.default_rng(5)
    a, b = make_array((64, 8, 6), torch.float32, rng), make_array((64, 7, 6), torch.float32, rng)
    ta = torch.tensor(a, device=device)
    tb = torch.tensor(b, device=device).transpose(1, 2)  # column-major batches: no copy needed
    assert_matches(torch.bmm(ta, tb), a @ b.transpose(0, 2, 1))
    expanded = torch.tensor(a[:1], device=device).expand(64, 8, 6)  # batch stride 0
    assert_matches(torch.bmm(expanded, tb), np.broadcast_to(a[:1], a.shape) @ b.transpose(0, 2, 1))


@pytest.mark.parametrize(
    "sa,sb",
    [
        ((3,), (3,)),
        ((2, 3), (3,)),
        ((3,), (3, 4)),
        ((2, 3), (3, 4)),
        ((5, 2, 3), (3,)),
        ((5, 2, 3), (3, 4)),
        ((3,), (5, 3, 4)),
        ((2, 3), (5, 3, 4)),
        ((5, 2, 3), (5, 3, 4)),
        ((5, 1, 2, 3), (6, 3, 4)),
        ((1, 2, 3), (4, 1, 3, 2)),
        ((2, 1, 4, 3), (1, 5, 3, 2)),
        ((0, 2, 3), (3, 4)),
        ((2, 0), (0, 3)),
        ((2, 3, 0), (0, 4)),
        ((2, 3, 0), (0,)),
        ((2, 2, 0), (2, 0, 3)),
    ],
)
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.float16, torch.int32])
def test_matmul_shapes(device, sa, sb, dtype):
    rng = np.random.default_rng(6)
    a, b = _data(dtype, sa, rng), _data(dtype, sb, rng)
    ta, tb = make_tensor(a, dtype, device), make_tensor(b, dtype, device)
    expected = np.matmul(a.astype(np.float64), b.astype(np.float64))
    if _cuda_int(device, dtype) and expected.size > 0 and sa[-1] > 0:  # empty products need no GEMM
        return _raises_no_int_gemm(dtype, lambda: torch.matmul(ta, tb))
    _check(torch.matmul(ta, tb), expected, dtype, sa[-1])
    _check(ta.matmul(tb), expected, dtype, sa[-1])
    _check(ta @ tb, expected, dtype, sa[-1])


def test_rmatmul_and_notimplemented(device):
    a = torch.ones(2, 2, device=device)
    with pytest.raises(TypeError):
        a @ 3
    with pytest.raises(TypeError):
        3 @ a
    assert a.__rmatmul__(torch.eye(2, device=device)).tolist() == [[1.0, 1.0], [1.0, 1.0]]


@pytest.mark.parametrize("dtype", NUMERIC)
def test_mv_dot_outer(device, dtype):
    rng = np.random.default_rng(7)
    m, v, w = _data(dtype, (4, 6), rng), _data(dtype, (6,), rng), _data(dtype, (3,), rng)
    tm, tv, tw = (make_tensor(x, dtype, device) for x in (m, v, w))
    if _cuda_int(device, dtype):
        _raises_no_int_gemm(dtype, lambda: torch.mv(tm, tv))
        _raises_no_int_gemm(dtype, lambda: torch.dot(tv, tv))
        _check(torch.outer(tv, tw), np.outer(v, w), dtype, 1)  # a broadcast multiply, not a GEMM
        return
    _check(torch.mv(tm, tv), m @ v, dtype, 6)
    _check(tm.mv(tv), m @ v, dtype, 6)
    _check(torch.dot(tv, tv), np.dot(v, v), dtype, 6)
    _check(tv.dot(tv), np.dot(v, v), dtype, 6)
    _check(torch.outer(tv, tw), np.outer(v, w), dtype, 1)
    _check(tv.outer(tw), np.outer(v, w), dtype, 1)


def test_dot_strided_and_empty(device):
    a = np.arange(10, dtype=np.float32)
    t = torch.tensor(a, device=device)
    assert_matches(
        torch.dot(t.as_strided((5,), (2,), 0), t.as_strided((5,), (2,), 1)), np.dot(a[::2], a[1::2])
    )
    e = torch.ones(0, device=device)
    r = torch.dot(e, e)
    assert tuple(r.shape) == () and r.item() == 0.0
    assert tuple(torch.mv(torch.ones(3, 0, device=device), e).shape) == (3,)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.bfloat16, torch.int64])
@pytest.mark.parametrize("bias_shape", [(4, 5), (5,), (1, 5), (4, 1), ()])
def test_addmm(device, dtype, bias_shape):
    rng = np.random.default_rng(8)
    s, a, b = _data(dtype, bias_shape, rng), _data(dtype, (4, 3), rng), _data(dtype, (3, 5), rng)
    ts, ta, tb = (make_tensor(x, dtype, device) for x in (s, a, b))
    if _cuda_int(device, dtype):
        return _raises_no_int_gemm(dtype, lambda: torch.addmm(ts, ta, tb))
    _check(torch.addmm(ts, ta, tb), s + a @ b, dtype, 3)
    _check(torch.addmm(ts, ta, tb, beta=2, alpha=3), 2 * s + 3 * (a @ b), dtype, 3)
    _check(ts.addmm(ta, tb, beta=0, alpha=2), np.broadcast_to(2 * (a @ b), (4, 5)), dtype, 3)


def test_addmm_beta_zero_ignores_nan(device):
    s = torch.full((2, 2), float("nan"), device=device)
    r = torch.addmm(s, torch.eye(2, device=device), torch.eye(2, device=device), beta=0)
    assert r.tolist() == [[1.0, 0.0], [0.0, 1.0]]


def test_addmm_k_zero(device):
    s = torch.ones(2, 3, device=device)
    r = torch.addmm(s, torch.ones(2, 0, device=device), torch.ones(0, 3, device=device), beta=2.5)
    assert_matches(r, np.full((2, 3), 2.5))


EINSUM_CASES = [
    ("ij,jk->ik", [(3, 4), (4, 5)]),
    ("bij,bjk->bik", [(2, 3, 4), (2, 4, 5)]),
    ("ii->i", [(4, 4)]),
    ("ii", [(4, 4)]),
    ("ij->ji", [(3, 4)]),
    ("ij->", [(3, 4)]),
    ("ij->j", [(3, 4)]),
    ("i,i->", [(5,), (5,)]),
    ("i,j->ij", [(3,), (4,)]),
    ("bhqd,bhkd->bhqk", [(2, 3, 4, 5), (2, 3, 6, 5)]),
    ("bhqk,bhkd->bhqd", [(2, 3, 4, 6), (2, 3, 6, 5)]),
    ("ij,jk", [(3, 4), (4, 5)]),
    ("ba,ca", [(3, 4), (5, 4)]),
    ("ij,jk,kl->il", [(2, 3), (3, 4), (4, 5)]),
    ("...ij,...jk->...ik", [(2, 3, 4), (2, 4, 5)]),
    ("...ij,...jk", [(6, 2, 3, 4), (2, 4, 5)]),
    ("b...,b...->b...", [(3, 2, 4), (3, 2, 4)]),
    ("b...,b...->...", [(3, 2, 4), (3, 1, 4)]),
    ("i...->...", [(3, 2, 4)]),
    ("iij->j", [(3, 3, 4)]),
    ("ijk,ikl->jl", [(2, 3, 4), (2, 4, 5)]),
    ("bn,anm,bm->ba", [(2, 3), (4, 3, 5), (2, 5)]),
    ("i,i,i->i", [(4,), (4,), (4,)]),
    ("ij,ij->ij", [(3, 4), (3, 4)]),
    ("ij,kj->ik", [(3, 0), (4, 0)]),
    ("i j , j k -> i k", [(3, 4), (4, 5)]),
]


@pytest.mark.parametrize("eq,shapes", EINSUM_CASES)
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.int64])
def test_einsum(device, eq, shapes, dtype):
    rng = np.random.default_rng(9)
    arrays = [_data(dtype, s, rng) for s in shapes]
    tensors = [make_tensor(a, dtype, device) for a in arrays]
    expected = np.einsum(eq.replace(" ", ""), *[a.astype(np.float64) for a in arrays])
    k = max([1] + [d for s in shapes for d in s])
    if _cuda_int(device, dtype):
        # equations that only permute or take diagonals need no GEMM; the rest raise as PyTorch does on CUDA
        try:
            got = torch.einsum(eq, *tensors)
        except NotImplementedError as e:
            assert f"not implemented for '{SHORT[dtype]}'" in str(e)
            return
        _check(got, expected, dtype, k * k)
        return
    _check(torch.einsum(eq, *tensors), expected, dtype, k * k)
    _check(torch.einsum(eq, tensors), expected, dtype, k * k)


def test_einsum_transposed_operands(device):
    rng = np.random.default_rng(10)
    a, b = make_array((5, 4), torch.float32, rng), make_array((3, 5), torch.float32, rng)
    ta, tb = (
        make_tensor(a, torch.float32, device, "transposed"),
        make_tensor(b, torch.float32, device, "transposed"),
    )
    assert_matches(torch.einsum("ij,ki->jk", ta, tb), np.einsum("ij,ki->jk", a, b), rtol=1e-5, atol=1e-5)


def _raises(exc, msg, fn):
    with pytest.raises(exc) as info:
        fn()
    assert str(info.value) == msg, str(info.value)


def test_errors_mm(device):
    f32 = torch.ones(2, 3, device=device)
    _raises(RuntimeError, "self must be a matrix", lambda: torch.mm(torch.ones(3, device=device), f32))
    _raises(RuntimeError, "mat2 must be a matrix", lambda: torch.mm(f32, torch.ones(3, device=device)))
    _raises(
        RuntimeError,
        "mm: mat1 and mat2 shapes cannot be multiplied (2x3 and 4x5)",
        lambda: torch.mm(f32, torch.ones(4, 5, device=device)),
    )
    _raises(
        RuntimeError,
        "expected m1 and m2 to have the same dtype, but got: float != double",
        lambda: torch.mm(f32, torch.ones(3, 2, dtype=torch.float64, device=device)),
    )
    _raises(
        RuntimeError,
        "expected m1 and m2 to have the same dtype, but got: float != double",
        lambda: f32 @ torch.ones(3, 2, dtype=torch.float64, device=device),
    )
    _raises(
        RuntimeError,
        "mm: mat1 and mat2 shapes cannot be multiplied (2x3 and 4x5)",
        lambda: f32 @ torch.ones(4, 5, device=device),
    )
    _raises(
        RuntimeError,
        "both arguments to matmul need to be at least 1D, but they are 0D and 2D",
        lambda: torch.matmul(torch.tensor(1.0, device=device), f32),
    )
    bools = torch.ones(2, 2, dtype=torch.bool, device=device)
    name = "addmm_cuda" if device == "cuda" else "addmm_impl_cpu_"
    _raises(RuntimeError, f"\"{name}\" not implemented for 'Bool'", lambda: torch.mm(bools, bools))


def test_errors_bmm_mv_dot_outer(device):
    _raises(
        RuntimeError,
        "batch1 must be a 3D tensor",
        lambda: torch.bmm(torch.ones(2, 3, device=device), torch.ones(2, 3, 4, device=device)),
    )
    _raises(
        RuntimeError,
        "batch2 must be a 3D tensor",
        lambda: torch.bmm(torch.ones(2, 2, 3, device=device), torch.ones(3, 4, device=device)),
    )
    _raises(
        RuntimeError,
        "Expected size for first two dimensions of batch2 tensor to be: [2, 3] but got: [2, 4].",
        lambda: torch.bmm(torch.ones(2, 2, 3, device=device), torch.ones(2, 4, 4, device=device)),
    )
    _raises(
        RuntimeError,
        "expected scalar type Float but found Double",
        lambda: torch.bmm(
            torch.ones(2, 2, 3, device=device), torch.ones(2, 3, 4, dtype=torch.float64, device=device)
        ),
    )
    _raises(
        RuntimeError,
        "size mismatch, got input (2), mat (2x3), vec (4)",
        lambda: torch.mv(torch.ones(2, 3, device=device), torch.ones(4, device=device)),
    )
    _raises(
        RuntimeError,
        "vector + matrix @ vector expected, got 1, 2, 2",
        lambda: torch.mv(torch.ones(2, 3, device=device), torch.ones(3, 1, device=device)),
    )
    _raises(
        RuntimeError,
        "1D tensors expected, but got 2D and 2D tensors",
        lambda: torch.dot(torch.ones(2, 2, device=device), torch.ones(2, 2, device=device)),
    )
    _raises(
        RuntimeError,
        "inconsistent tensor size, expected tensor [3] and src [4] to have the same number of elements, "
        "but got 3 and 4 elements respectively",
        lambda: torch.dot(torch.ones(3, device=device), torch.ones(4, device=device)),
    )
    _raises(
        RuntimeError,
        "dot : expected both vectors to have same dtype, but found Float and Double",
        lambda: torch.dot(torch.ones(3, device=device), torch.ones(3, dtype=torch.float64, device=device)),
    )
    _raises(
        RuntimeError,
        "outer: Expected 1-D argument self, but got 2-D",
        lambda: torch.outer(torch.ones(2, 2, device=device), torch.ones(2, device=device)),
    )


def test_errors_addmm(device):
    m = torch.ones(2, 3, device=device)
    _raises(
        RuntimeError,
        "self and mat2 must have the same dtype, but got Double and Float",
        lambda: torch.addmm(
            torch.ones(2, 2, dtype=torch.float64, device=device), m, torch.ones(3, 2, device=device)
        ),
    )
    _raises(
        RuntimeError,
        "mat1 must be a matrix, got 1-D tensor",
        lambda: torch.addmm(torch.ones(2, device=device), torch.ones(3, device=device), m),
    )
    _raises(
        RuntimeError,
        "addmm: mat1 and mat2 shapes cannot be multiplied (2x3 and 2x3)",
        lambda: torch.addmm(torch.ones(2, device=device), m, m),
    )


def test_errors_matmul_folded(device):
    a = torch.ones(2, 3, 4, device=device)
    _raises(
        RuntimeError,
        "mm: mat1 and mat2 shapes cannot be multiplied (6x4 and 5x2)",
        lambda: a @ torch.ones(5, 2, device=device),
    )
    _raises(
        RuntimeError,
        "size mismatch, got input (6), mat (6x4), vec (5)",
        lambda: a @ torch.ones(5, device=device),
    )


@pytest.mark.parametrize("name", ["addmm", "addmv", "baddbmm", "addbmm"])
def test_integer_gemm_scales_convert_to_the_dtype(name):
    """PyTorch's integer GEMM kernels take float beta/alpha converted to the result's dtype: truncated toward
    zero and range-checked; an empty contraction scales self by beta first (addmv's does not), where a float
    beta other than 0 cannot be cast, and an unused alpha is never converted."""
    rng = np.random.default_rng(0)
    shapes = {
        "addmm": ((3, 4), (3, 5), (5, 4)),
        "addmv": ((3,), (3, 5), (5,)),
        "baddbmm": ((2, 3, 4), (2, 3, 5), (2, 5, 4)),
        "addbmm": ((3, 4), (2, 3, 5), (2, 5, 4)),
    }[name]
    fn = getattr(torch, name)
    for dt, npdt in ((torch.int64, np.int64), (torch.int32, np.int32), (torch.int16, np.int16)):
        s, m1, m2 = (rng.integers(-9, 10, size=sh).astype(npdt) for sh in shapes)
        prod = {"addbmm": lambda a, b: (a @ b).sum(0)}.get(name, np.matmul)(m1.astype(np.int64), m2)
        # strided inputs too: the transposed copy of self
        st = torch.tensor(s.T.copy(), dtype=dt).t() if s.ndim == 2 else torch.tensor(s, dtype=dt)
        for beta, alpha in ((0.5, 2.7), (-1.5, -1.9), (2, 0.9), (1.0 + 0j, 3)):
            got = fn(st, torch.tensor(m1, dtype=dt), torch.tensor(m2, dtype=dt), beta=beta, alpha=alpha)
            want = int(beta.real) * s.astype(np.int64) + int(alpha.real) * prod
            assert got.dtype == dt
            np.testing.assert_array_equal(got.numpy(), want.astype(npdt))
        # a 0-d tensor is a number here, not an operand that promotes
        got = fn(st, torch.tensor(m1, dtype=dt), torch.tensor(m2, dtype=dt), alpha=torch.tensor(1.5))
        assert got.dtype == dt
        np.testing.assert_array_equal(got.numpy(), (s + prod).astype(npdt))
    s, m1, m2 = (torch.ones(*sh, dtype=torch.uint8) for sh in shapes)
    for kw in ({"alpha": 1e20}, {"beta": float("nan")}, {"alpha": -1.5}, {"beta": 300}, {"alpha": 1 + 1j}):
        with pytest.raises(
            RuntimeError, match="^value cannot be converted to type uint8_t without overflow$"
        ):
            fn(s, m1, m2, **kw)
    assert fn(s, m1, m2, alpha=255.5).tolist() == (fn(s, m1, m2, alpha=255)).tolist()
    # an empty contraction
    k0 = [list(sh) for sh in shapes]
    if name == "addbmm":
        k0[1][0] = k0[2][0] = 0  # no batches: nothing summed
    else:
        k0[1][-1] = k0[2][-2 if len(k0[2]) > 1 else 0] = 0
    s, m1, m2 = (torch.full(sh, 3, dtype=torch.int32) for sh in k0)
    assert fn(s, m1, m2, alpha=1e20).dtype == torch.int32  # alpha unused: never converted
    assert (fn(s, m1, m2, beta=0.0) == 0).all()
    assert (fn(s, m1, m2, beta=2) == 6).all()
    if name == "addmv":  # its kernel truncates beta as everywhere else
        assert (fn(s, m1, m2, beta=1.5) == 3).all()
    else:
        for beta, kind in ((1.5, "Float"), (1.0, "Float"), (1.5 + 0j, "ComplexFloat")):
            with pytest.raises(
                RuntimeError, match=f"^result type {kind} can't be cast to the desired output type Int$"
            ):
                fn(s, m1, m2, beta=beta)
    # addr's kernel refuses a float scale for integers
    with pytest.raises(
        RuntimeError, match="For integral input tensors, argument alpha must not be a floating"
    ):
        torch.addr(
            torch.ones(2, 2, dtype=torch.int64),
            torch.ones(2, dtype=torch.int64),
            torch.ones(2, dtype=torch.int64),
            alpha=1.5,
        )


@pytest.mark.parametrize("name", ["addmm", "addmv"])
def test_floating_gemm_scales_convert_to_the_dtype(name):
    """PyTorch's floating GEMM kernels convert beta and alpha to their type too: a complex scale, or one out of
    the type's range, is refused (addmm converts float16's to float, its opmath type; addmv to float16)."""
    shapes = {"addmm": ((2, 2), (2, 2), (2, 2)), "addmv": ((2,), (2, 2), (2,))}[name]
    fn = getattr(torch, name)
    half = "float" if name == "addmm" else "c10::Half"
    for dt, shown in ((torch.float32, "float"), (torch.float64, "double"), (torch.float16, half)):
        args = [torch.ones(*sh, dtype=dt) for sh in shapes]
        kws = [{"alpha": 1j}, {"beta": 1j}]
        if dt != torch.float64:
            kws += [{"alpha": 1e300}, {"beta": -1e300}]
        for kw in kws:
            with pytest.raises(RuntimeError) as e:
                fn(*args, **kw)
            assert str(e.value) == f"value cannot be converted to type {shown} without overflow", kw
        assert (fn(*args, alpha=3.0, beta=0.5) == 6.5).all()
    h = [torch.ones(*sh, dtype=torch.float16) for sh in shapes]
    if name == "addmm":  # in float's range: taken, the float16 result overflows
        assert (fn(*h, alpha=1e5, beta=0) == float("inf")).all()
    else:
        with pytest.raises(
            RuntimeError, match="^value cannot be converted to type c10::Half without overflow$"
        ):
            fn(*h, alpha=1e5)


@pytest.mark.parametrize("name", ["addmm", "addmv", "baddbmm"])
def test_bool_gemm_empty_contraction_scales(name):
    """PyTorch's bool products over an empty contraction: addmm and baddbmm scale self by beta before their
    dtype dispatch, where only a bool or a zero passes (the message names the number's type); addmv's
    shortcut multiplies self by beta as a bool. A contraction that is not empty is refused as a kernel."""
    shapes = {
        "addmm": ((3, 4), (3, 0), (0, 4)),
        "addmv": ((3,), (3, 0), (0,)),
        "baddbmm": ((2, 3, 4), (2, 3, 0), (2, 0, 4)),
    }[name]
    fn = getattr(torch, name)
    s, m1, m2 = (torch.ones(*sh, dtype=torch.bool) for sh in shapes)
    for beta in (0, 0.0, 0j, False, True):
        got = fn(s, m1, m2, beta=beta)
        assert got.dtype == torch.bool and got.shape == s.shape and (got == bool(beta)).all()
    for beta, kind in ((2, "Long"), (2.5, "Float"), (1j, "ComplexFloat")):
        if name == "addmv":
            assert fn(s, m1, m2, beta=beta).all()
            continue
        with pytest.raises(RuntimeError) as e:
            fn(s, m1, m2, beta=beta)
        assert str(e.value) == f"result type {kind} can't be cast to the desired output type Bool"
    if name == "baddbmm":  # (its kernel's name is bmm's here)
        return
    k2 = [list(sh) for sh in shapes]
    k2[1][-1] = k2[2][-2 if len(k2[2]) > 1 else 0] = 2
    kernel = {"addmv": "addmv_impl_cpu"}.get(name, "addmm_impl_cpu_")
    with pytest.raises(NotImplementedError, match=f"\"{kernel}\" not implemented for 'Bool'"):
        fn(*(torch.ones(*sh, dtype=torch.bool) for sh in k2))


def test_einsum_sublist_format(device):
    # einsum(op, sublist, ..., [output]): 0-25 are 'A'-'Z', 26-51 'a'-'z', Ellipsis is '...'
    rng = np.random.default_rng(11)
    a, b = rng.standard_normal((2, 3)), rng.standard_normal((3, 4))
    ta, tb = torch.tensor(a, device=device), torch.tensor(b, device=device)
    assert_matches(torch.einsum(ta, [0, 1], tb, [1, 51], [0, 51]), a @ b)
    assert_matches(torch.einsum(ta, [0, 1], tb, [1, 2]), a @ b)  # implicit output: sorted subscripts
    assert_matches(torch.einsum(ta, [Ellipsis, 30], [Ellipsis]), a.sum(-1))
    assert_matches(torch.einsum(ta, [25, 26], [26, 25]), a.T)  # 'Z' and 'a'
    _raises(
        RuntimeError,
        "einsum(): output subscript C does not appear in the equation for any input operand",
        lambda: torch.einsum(ta, [0, 1], [2]),
    )
    for bad in (-1, 52):
        _raises(
            ValueError,
            "einsum(): subscript in subscript list is not within the valid range [0, 52)",
            lambda bad=bad: torch.einsum(ta, [0, bad]),
        )
    _raises(
        ValueError,
        "einsum(): must specify the equation string and at least one operand, or at least one operand and its "
        "subscripts list",
        lambda: torch.einsum(ta),
    )
    with pytest.raises(TypeError):
        torch.einsum(ta, ["i", "j"])
    with pytest.raises(TypeError):
        torch.einsum(1, [0])


def test_errors_einsum(device):
    a = torch.ones(2, 3, device=device)
    _raises(
        RuntimeError,
        "einsum(): more operands were provided than specified in the equation",
        lambda: torch.einsum("ij->ij", a, a),
    )
    _raises(
        RuntimeError,
        "einsum(): fewer operands were provided than specified in the equation",
        lambda: torch.einsum("ij,jk->ik", a),
    )
    _raises(
        RuntimeError,
        "einsum(): the number of subscripts in the equation (3) does not match the number of dimensions (2) "
        "for operand 0 and no ellipsis was given",
        lambda: torch.einsum("ijk->i", a),
    )
    _raises(
        RuntimeError,
        "einsum(): subscript j has size 2 for operand 1 which does not broadcast with previously seen size 3",
        lambda: torch.einsum("ij,jk->ik", a, a),
    )
    _raises(
        RuntimeError,
        "einsum(): output subscript k does not appear in the equation for any input operand",
        lambda: torch.einsum("ij->k", a),
    )
    _raises(
        RuntimeError,
        "einsum(): output subscript i appears more than once in the output",
        lambda: torch.einsum("ij->ii", a),
    )
    _raises(
        RuntimeError,
        "einsum(): invalid subscript given at index 1 in the equation string, subscripts must be in [a-zA-Z]",
        lambda: torch.einsum("i1->i", a),
    )


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a GPU")
def test_errors_device_mismatch():
    a, b = torch.ones(2, 2, device="cuda"), torch.ones(2, 2)
    msg = "Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu!"
    for fn in (torch.mm, torch.matmul):
        _raises(RuntimeError, msg, lambda fn=fn: fn(a, b))
    _raises(RuntimeError, msg, lambda: torch.bmm(a.unsqueeze(0), b.unsqueeze(0)))
    _raises(RuntimeError, msg, lambda: torch.einsum("ij,jk", a, b))


GEMM_CASES = [
    # (a shape, b shape, a layout, b layout): batched, broadcast batch dims, transposed and strided operands
    ((33, 65), (65, 17), "contiguous", "contiguous"),
    ((33, 65), (65, 17), "transposed", "transposed"),
    ((33, 65), (65, 17), "strided", "transposed"),
    ((1, 300), (300, 40), "contiguous", "transposed"),
    ((40, 300), (300, 1), "transposed", "contiguous"),
    ((3, 17, 33), (3, 33, 9), "contiguous", "contiguous"),
    ((3, 17, 33), (3, 33, 9), "transposed", "contiguous"),
    ((2, 1, 5, 7), (4, 7, 3), "contiguous", "contiguous"),
    ((6, 8, 16), (16, 5), "contiguous", "contiguous"),
    ((16,), (4, 16, 3), "contiguous", "contiguous"),
]


def _gemm_operand(arr, dtype, device, layout):
    """make_tensor, where "transposed" swaps only the last two dims (a batch of column-major matrices)."""
    if layout == "transposed" and np.ndim(arr) > 2:
        sw = np.ascontiguousarray(np.swapaxes(arr, -1, -2))
        return torch.tensor(sw, dtype=dtype, device=device).transpose(-1, -2)
    return _layout(arr, dtype, device, layout)


@pytest.mark.parametrize("sa,sb,la,lb", GEMM_CASES, ids=[f"{c[0]}@{c[1]}-{c[2]}-{c[3]}" for c in GEMM_CASES])
@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16, torch.float32, torch.float64], ids=str)
def test_matmul_float_types_layouts(device, dtype, sa, sb, la, lb):
    # half types multiply exactly-representable inputs, accumulate in float32 and round once; checked
    # against float64 NumPy with a tolerance growing with k
    rng = np.random.default_rng(11)
    a, b = make_array(sa, dtype, rng, -1.0, 1.0), make_array(sb, dtype, rng, -1.0, 1.0)
    ta, tb = _gemm_operand(a, dtype, device, la), _gemm_operand(b, dtype, device, lb)
    got = ta @ tb
    assert got.device == ta.device and got.dtype == dtype
    _check(got, np.matmul(a, b), dtype, sa[-1])


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16, torch.float32, torch.float64], ids=str)
def test_bmm_broadcast_batch_and_addmm_scalars(device, dtype):
    rng = np.random.default_rng(12)
    a, b = make_array((1, 6, 40), dtype, rng, -1.0, 1.0), make_array((5, 40, 7), dtype, rng, -1.0, 1.0)
    ta = torch.tensor(a, dtype=dtype, device=device).expand(5, 6, 40)  # batch stride 0
    tb = torch.tensor(b, dtype=dtype, device=device)
    _check(torch.bmm(ta, tb), np.broadcast_to(a, (5, 6, 40)) @ b, dtype, 40)
    s = make_array((6, 7), dtype, rng, -1.0, 1.0)
    ts = torch.tensor(s, dtype=dtype, device=device)
    got = torch.addmm(ts, ta[0], tb[1], beta=0.5, alpha=-2)
    _check(got, 0.5 * s - 2 * (a[0] @ b[1]), dtype, 40)


def _restore_precision(fn):
    old = torch.get_float32_matmul_precision()
    try:
        fn()
    finally:
        torch.set_float32_matmul_precision(old)


def test_float32_matmul_precision_flags():
    def body():
        torch.set_float32_matmul_precision("highest")
        assert torch.get_float32_matmul_precision() == "highest"
        assert torch.backends.cuda.matmul.allow_tf32 is False
        torch.set_float32_matmul_precision("high")
        assert torch.backends.cuda.matmul.allow_tf32 is True
        torch.set_float32_matmul_precision("medium")
        assert torch.get_float32_matmul_precision() == "medium"
        assert torch.backends.cuda.matmul.allow_tf32 is True
        torch.backends.cuda.matmul.allow_tf32 = False
        assert torch.get_float32_matmul_precision() == "highest"
        torch.backends.cuda.matmul.allow_tf32 = True
        assert torch.get_float32_matmul_precision() == "high"
        # PyTorch warns and keeps the setting for an unknown string (its message lacks a space, verbatim)
        with pytest.warns(
            UserWarning, match="fast is not one of 'highest', 'high', or 'medium'; the current"
        ):
            torch.set_float32_matmul_precision("fast")
        assert torch.get_float32_matmul_precision() == "high"
        with pytest.raises(TypeError):
            torch.set_float32_matmul_precision(1)

    _restore_precision(body)
    assert torch.get_float32_matmul_precision() == "highest"  # the default, restored


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a GPU")
def test_tf32_flag_changes_cuda_float32_matmul():
    rng = np.random.default_rng(13)
    a = rng.standard_normal((1024, 1024)).astype(np.float32)
    b = rng.standard_normal((1024, 1024)).astype(np.float32)
    ref = a.astype(np.float64) @ b.astype(np.float64)
    ta, tb = torch.tensor(a, device="cuda"), torch.tensor(b, device="cuda")

    def rel_err():
        got = (ta @ tb).cpu().double().numpy()
        return np.linalg.norm(got - ref) / np.linalg.norm(ref)

    def body():
        torch.backends.cuda.matmul.allow_tf32 = False
        assert rel_err() < 1e-5
        torch.backends.cuda.matmul.allow_tf32 = True
        err = rel_err()
        assert 1e-6 < err < 1e-2, err  # TF32 keeps 10 mantissa bits
        torch.set_float32_matmul_precision("highest")
        assert rel_err() < 1e-5
        torch.set_float32_matmul_precision("high")
        assert 1e-6 < rel_err() < 1e-2

    _restore_precision(body)


def test_to_np_roundtrip_helper_still_works():
    # guard: the helper this file leans on keeps float64 for half types
    assert to_np(torch.ones(2, dtype=torch.float16)).dtype == np.float64


# A process's float GEMMs run on OpenBLAS until they add up to MINITORCH_SGEMM_ONEDNN_AFTER multiply-adds, then on
# oneDNN (kernels/cpu/BlasGemm.h), and a single row or column on OpenBLAS's ?gemv. The child prints its products
# (as float64 lists) for the parent to check against NumPy and to compare between the libraries.
_GEMM_CHILD = r"""
import itertools, json
import numpy as np
import minitorch as torch
# the switch, before any other product: this one's first two calls before it (cold), the third and later after it
p, q = np.random.default_rng(22).standard_normal((2, 64 * 784)).astype("float32")
tp, tq = torch.tensor(p.reshape(64, 784)), torch.tensor(q.reshape(784, 64))
switch = [(tp @ tq).double().tolist() for _ in range(4)]
rng = np.random.default_rng(21)
out = []
def view(arr, layout):  # n: row-major, t: a transposed column-major copy, s: every other column of a wider one
    if layout == "t":
        return torch.tensor(np.ascontiguousarray(arr.T)).t()
    if layout == "s":
        big = np.zeros((arr.shape[0], 2 * arr.shape[1]), arr.dtype)
        big[:, ::2] = arr
        return torch.tensor(big)[:, ::2]
    return torch.tensor(arr)
for (m, k, n), la, lb, dt in itertools.product(
    ((1, 300, 70), (70, 300, 1), (1, 40, 1), (1, 1, 9), (33, 65, 17), (64, 128, 128)), "nts", "nts",
    ("float32", "float64"),
):
    a, b = rng.standard_normal((m, k)).astype(dt), rng.standard_normal((k, n)).astype(dt)
    c = rng.standard_normal((m, n)).astype(dt)
    x, y, z = view(a, la), view(b, lb), torch.tensor(c)
    out.append([(x @ y).double().tolist(), torch.addmm(z, x, y, beta=0.5, alpha=-2.0).double().tolist()])
out.append(switch)
print(json.dumps(out))
"""


def _gemm_child(after):
    return child_json(_GEMM_CHILD, MINITORCH_SGEMM_ONEDNN_AFTER=str(after), OMP_NUM_THREADS="1")


def test_cpu_float_gemm_libraries_and_the_switch():
    """Every layout (row-major, transposed, strided) of matmul and addmm, single rows and columns (?gemv) among
    them, on OpenBLAS (a budget never spent) and on oneDNN (budget 0) against NumPy; then a budget of three
    calls of one product: its first two calls give OpenBLAS's bits, the rest oneDNN's."""
    work = 64 * 784 * 64
    openblas, onednn, switched = _gemm_child(1 << 62), _gemm_child(0), _gemm_child(3 * work)
    rng = np.random.default_rng(21)
    cases = itertools.product(
        ((1, 300, 70), (70, 300, 1), (1, 40, 1), (1, 1, 9), (33, 65, 17), (64, 128, 128)),
        "nts",
        "nts",
        ("float32", "float64"),
    )
    for i, ((m, k, n), la, lb, dt) in enumerate(cases):
        a, b = rng.standard_normal((m, k)).astype(dt), rng.standard_normal((k, n)).astype(dt)
        c = rng.standard_normal((m, n)).astype(dt)
        ref = a.astype(np.float64) @ b.astype(np.float64)
        tol = 2e-5 * np.sqrt(k) if dt == "float32" else 1e-13 * np.sqrt(k)
        for res in (openblas, onednn, switched):
            np.testing.assert_allclose(res[i][0], ref, rtol=tol, atol=tol, err_msg=f"{m, k, n} {la}{lb} {dt}")
            np.testing.assert_allclose(
                res[i][1],
                0.5 * c - 2.0 * ref,
                rtol=tol,
                atol=3 * tol,
                err_msg=f"addmm {m, k, n} {la}{lb} {dt}",
            )
    first, after = openblas[-1][0], onednn[-1][0]
    assert first != after  # the libraries sum in different orders: the bits tell them apart
    assert switched[-1] == [first, first, after, after]
