"""out= of the products (mm, bmm, mv, dot, matmul, addmm, addmv, baddbmm, outer/ger): the GEMM writes straight
into an out of the result's shape and dtype that BLAS can write (row-major, column-major, rows of a wider
buffer), bind_out.cpp's try_direct_gemm and ops/linalg.h's *_into; every other out keeps the general path
(temporary, resize with its warning, dtype check, copy). Values against NumPy in float64."""

import subprocess
import sys
import warnings

import numpy as np
import pytest
from utils import to_np

import minitorch

RNG = np.random.default_rng(0)
A, B, V, W = (
    RNG.standard_normal((5, 4)),
    RNG.standard_normal((4, 6)),
    RNG.standard_normal(4),
    RNG.standard_normal(6),
)
BA, BB = RNG.standard_normal((3, 5, 4)), RNG.standard_normal((3, 4, 6))
BIAS_MV, BIAS_MM = RNG.standard_normal(5), RNG.standard_normal(6)

# (name, call over the inputs dict `t` and out, NumPy reference over the arrays dict `n`)
GEMMS = [
    ("mm", lambda T, t, out: T.mm(t["a"], t["b"], out=out), lambda n: n["a"] @ n["b"]),
    ("mm of a.t()", lambda T, t, out: T.mm(t["b"].t(), t["a"].t(), out=out), lambda n: n["b"].T @ n["a"].T),
    ("bmm", lambda T, t, out: T.bmm(t["ba"], t["bb"], out=out), lambda n: n["ba"] @ n["bb"]),
    ("mv", lambda T, t, out: T.mv(t["a"], t["v"], out=out), lambda n: n["a"] @ n["v"]),
    ("dot", lambda T, t, out: T.dot(t["v"], t["v"], out=out), lambda n: np.asarray(n["v"] @ n["v"])),
    ("matmul 2x2", lambda T, t, out: T.matmul(t["a"], t["b"], out=out), lambda n: n["a"] @ n["b"]),
    ("matmul 1x2", lambda T, t, out: T.matmul(t["v"], t["b"], out=out), lambda n: n["v"] @ n["b"]),
    ("matmul 2x1", lambda T, t, out: T.matmul(t["a"], t["v"], out=out), lambda n: n["a"] @ n["v"]),
    (
        "matmul 1x1",
        lambda T, t, out: T.matmul(t["v"], t["v"], out=out),
        lambda n: np.asarray(n["v"] @ n["v"]),
    ),
    ("matmul 3x3", lambda T, t, out: T.matmul(t["ba"], t["bb"], out=out), lambda n: n["ba"] @ n["bb"]),
    (
        "addmm",
        lambda T, t, out: T.addmm(t["w"], t["a"], t["b"], beta=t["h"], alpha=2, out=out),
        lambda n: n["h"] * n["w"] + 2 * (n["a"] @ n["b"]),
    ),
    (
        "addmm defaults",
        lambda T, t, out: T.addmm(t["w"], t["a"], t["b"], out=out),
        lambda n: n["w"] + n["a"] @ n["b"],
    ),
    (
        "addmv",
        lambda T, t, out: T.addmv(t["x"], t["a"], t["v"], beta=3, alpha=-1, out=out),
        lambda n: 3 * n["x"] - n["a"] @ n["v"],
    ),
    (
        "baddbmm",
        lambda T, t, out: T.baddbmm(t["w"], t["ba"], t["bb"], alpha=t["h"], out=out),
        lambda n: n["w"] + n["h"] * (n["ba"] @ n["bb"]),
    ),
    ("outer", lambda T, t, out: T.outer(t["v"], t["w"], out=out), lambda n: np.outer(n["v"], n["w"])),
    ("ger", lambda T, t, out: T.ger(t["w"], t["v"], out=out), lambda n: np.outer(n["w"], n["v"])),
]
IDS = [g[0] for g in GEMMS]


def _inputs(device, dtype):
    arrays = {"a": A, "b": B, "v": V, "w": BIAS_MM, "x": BIAS_MV, "ba": BA, "bb": BB}
    if not dtype.is_floating_point:  # small integers: exact products
        arrays = {k: np.round(a * 3) for k, a in arrays.items()}
    tensors = {k: minitorch.tensor(a, device=device).to(dtype) for k, a in arrays.items()}
    numpys = {k: to_np(t) for k, t in tensors.items()}
    # a scale that is not 1 (an integer one for integer products, whose beta and alpha must be integers)
    tensors["h"] = numpys["h"] = 0.5 if dtype.is_floating_point else 3
    return tensors, numpys


def _layouts(shape, dtype, device):
    """out forms the GEMM writes (contiguous, transposed, rows of a wider buffer) then one it cannot (every
    other column: the general path), each filled with 7777 (no product here gives it) and returned with its
    buffer."""

    def filled(s):
        return minitorch.full(s, 7777, dtype=dtype, device=device)

    n = len(shape)
    yield "contiguous", filled(shape), None
    if n >= 2:
        buf = filled(shape[:-2] + (shape[-1], shape[-2]))
        yield "transposed", buf.transpose(-1, -2), buf
    if n >= 1:
        buf = filled(shape[:-1] + (shape[-1] + 2,))
        yield "slice", buf[..., 1:-1], buf
        buf = filled(shape[:-1] + (2 * shape[-1],))
        yield "every other", buf[..., ::2], buf


@pytest.mark.parametrize("dtype", [minitorch.float64, minitorch.float32, minitorch.int64], ids=str)
@pytest.mark.parametrize("name,call,ref", GEMMS, ids=IDS)
def test_out_gemm_layouts(device, name, call, ref, dtype):
    t, n = _inputs(device, dtype)
    want = ref(n)
    general = call(minitorch, t, None)
    rtol, atol = (1e-12, 1e-12) if dtype == minitorch.float64 else (1e-5, 1e-5)
    for layout, out, buf in _layouts(want.shape, dtype, device):
        ptr, version = out.data_ptr(), out._version
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # the right shape: no resize warning
            r = call(minitorch, t, out)
        assert r is out and out.data_ptr() == ptr and out._version == version + 1, layout
        np.testing.assert_allclose(to_np(out), want, rtol=rtol, atol=atol, err_msg=layout)
        assert minitorch.equal(out, general) or dtype != minitorch.int64, layout
        if buf is not None:  # the buffer's elements outside out are left alone
            assert (to_np(buf) == 7777).sum() == buf.numel() - out.numel(), layout


@pytest.mark.parametrize("name,call,ref", GEMMS, ids=IDS)
def test_out_gemm_general_path_rules(device, name, call, ref):
    t, _ = _inputs(device, minitorch.float32)
    want = call(minitorch, t, None)
    # an empty out: resized silently; another shape with elements: resized with PyTorch's warning
    out = minitorch.empty(0, device=device)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        call(minitorch, t, out)
    assert tuple(out.shape) == tuple(want.shape) and minitorch.equal(out, want)
    out = minitorch.empty(2, 7, device=device)
    with pytest.warns(UserWarning, match=r"was resized since it had shape \[2, 7\]"):
        call(minitorch, t, out)
    assert tuple(out.shape) == tuple(want.shape) and minitorch.equal(out, want)
    # an input that requires grad, or out itself: PyTorch's refusal
    for key in ("a", "v", "ba", "w"):
        tg = dict(t, **{key: t[key].detach().requires_grad_()})
        if call(minitorch, tg, None).requires_grad:
            with pytest.raises(RuntimeError, match=r"functions with out=\.\.\. arguments don't support"):
                call(minitorch, tg, minitorch.empty(want.shape, device=device))
    with pytest.raises(RuntimeError, match=r"functions with out=\.\.\. arguments don't support"):
        call(minitorch, t, minitorch.empty(want.shape, device=device, requires_grad=True))


@pytest.mark.parametrize(
    "name", ["mm", "bmm", "matmul 2x2", "matmul 3x3", "addmm", "addmm defaults", "addmv", "baddbmm"]
)
def test_out_gemm_exact_dtype(device, name):
    # PyTorch's GEMMs take no out of another dtype, a widening one included
    _, call, _ = GEMMS[IDS.index(name)]
    t, _ = _inputs(device, minitorch.float32)
    shape = call(minitorch, t, None).shape
    for dt, shown in ((minitorch.float64, "double"), (minitorch.int64, "long int")):
        out = minitorch.full(shape, 7, dtype=dt, device=device)
        with pytest.raises(
            RuntimeError, match=f"Expected out tensor to have dtype float, but got {shown} instead"
        ):
            call(minitorch, t, out)
        assert (to_np(out) == 7).all()


def test_out_gemm_aliasing_an_input(device):
    # out is an input: the general path computes the product first (PyTorch's mm reads a row it already wrote)
    a = minitorch.tensor(RNG.standard_normal((4, 4)), device=device)
    b = minitorch.tensor(RNG.standard_normal((4, 4)), device=device)
    want = to_np(a) @ to_np(b)
    z = a.clone()
    assert minitorch.mm(z, b, out=z) is z
    np.testing.assert_allclose(to_np(z), want, rtol=1e-12)
    z = a.clone()
    minitorch.matmul(b.clone(), z, out=z)
    np.testing.assert_allclose(to_np(z), to_np(b) @ to_np(a), rtol=1e-12)
    z = a.clone()
    minitorch.addmm(z, z, b, beta=2, out=z)  # out is the bias and a factor
    np.testing.assert_allclose(to_np(z), 2 * to_np(a) + want, rtol=1e-12)
    z = a.clone()
    minitorch.addmm(z[0], a, b, out=z)  # the bias is a row of out
    np.testing.assert_allclose(to_np(z), to_np(a)[0] + want, rtol=1e-12)
    v = minitorch.tensor(RNG.standard_normal(4), device=device)
    z = v.clone()
    minitorch.mv(a, z, out=z)
    np.testing.assert_allclose(to_np(z), to_np(a) @ to_np(v), rtol=1e-12)


def test_out_gemm_empty_and_zero_k(device):
    f64 = minitorch.float64
    k0a, k0b = (
        minitorch.empty(5, 0, dtype=f64, device=device),
        minitorch.empty(0, 6, dtype=f64, device=device),
    )
    w = minitorch.tensor(BIAS_MM, device=device)
    for call, want in (
        (lambda out: minitorch.mm(k0a, k0b, out=out), np.zeros((5, 6))),
        (lambda out: minitorch.matmul(k0a, k0b, out=out), np.zeros((5, 6))),
        (lambda out: minitorch.addmm(w, k0a, k0b, out=out), np.broadcast_to(BIAS_MM, (5, 6))),
        (lambda out: minitorch.addmm(w, k0a, k0b, beta=3, out=out), 3 * np.broadcast_to(BIAS_MM, (5, 6))),
        (lambda out: minitorch.addmm(w * np.nan, k0a, k0b, beta=0, out=out), np.zeros((5, 6))),
        (
            lambda out: minitorch.mv(k0a, minitorch.empty(0, dtype=f64, device=device), out=out[:, 0]),
            np.zeros(5),
        ),
        (lambda out: minitorch.dot(k0a[0], k0a[0], out=out[0, 0]), np.zeros(())),
    ):
        buf = minitorch.full((5, 6), np.nan, dtype=f64, device=device)
        out = call(buf)
        np.testing.assert_array_equal(to_np(out), want)
    # an empty result: nothing written, out resized silently
    out = minitorch.full((0, 6), 7.0, dtype=f64, device=device)
    minitorch.mm(k0b.t()[:0], k0b, out=out)
    assert tuple(out.shape) == (0, 6)
    # beta == 0 ignores a NaN bias, also where a product is computed
    a, b = minitorch.tensor(A, device=device), minitorch.tensor(B, device=device)
    out = minitorch.empty(5, 6, dtype=f64, device=device)
    minitorch.addmm(w * np.nan, a, b, beta=0, out=out)
    np.testing.assert_allclose(to_np(out), A @ B, rtol=1e-12)


def test_out_gemm_errors_leave_out_alone(device):
    a = minitorch.tensor(A, device=device)
    out = minitorch.full((5, 6), 7.0, dtype=minitorch.float64, device=device)
    with pytest.raises(
        RuntimeError, match=r"^mm: mat1 and mat2 shapes cannot be multiplied \(5x4 and 5x4\)$"
    ):
        minitorch.mm(a, a, out=out)
    with pytest.raises(RuntimeError, match="expected m1 and m2 to have the same dtype"):
        minitorch.mm(a, minitorch.tensor(B, device=device).float(), out=out)
    with pytest.raises(RuntimeError, match="value cannot be converted to type int64_t without overflow"):
        minitorch.addmm(a.long()[0, :1], a.long(), a.long().t(), beta=1e20, out=minitorch.empty(5, 5).long())
    with pytest.raises(
        RuntimeError, match=r"The expanded size of the tensor \(6\) must match the existing size \(4\)"
    ):
        minitorch.addmm(a[0], a, minitorch.tensor(B, device=device), out=out)
    assert (to_np(out) == 7).all()


_NO_TEMPORARY = r"""
import minitorch as T
def rss():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * 4096
n = 4096
a, b = T.randn(n, 1), T.randn(1, n)
# outs already resident; the general path's 64 MiB temporary stays resident in the allocator's cache once freed
for name, out in (("direct", T.ones(n, n)), ("direct transposed", T.ones(n, n).t()),
                  ("general", T.ones(n, 2 * n)[:, ::2])):
    before = rss()
    T.mm(a, b, out=out)
    print(name, (rss() - before) >> 20)
"""


def test_out_gemm_writes_without_a_temporary():
    # the proof the direct path ran: the process's resident memory does not grow by the result's 64 MiB, as
    # it does for an out the GEMM cannot write (a fresh process: this one's allocator cache may hold a block)
    r = subprocess.run([sys.executable, "-c", _NO_TEMPORARY], capture_output=True, text=True, check=True)
    grew = {line.rsplit(" ", 1)[0]: int(line.rsplit(" ", 1)[1]) for line in r.stdout.splitlines()}
    assert grew["direct"] < 8 and grew["direct transposed"] < 8 and grew["general"] >= 60, grew


def test_out_mv_dot_dtype_messages():
    # PyTorch's mv_out is addmv_out over out (out's size right: the three dtypes, out's first) or over a fresh
    # addend (the exact rule's words); dot_out checks out against input before the shapes or other's dtype
    m, v = minitorch.ones(2, 3), minitorch.ones(3)
    cases = [
        (lambda: minitorch.mv(m, v, out=minitorch.empty(2, dtype=minitorch.float64)),
         "addmv input tensors must have the same dtype, but got Double, Float, and Float"),
        (lambda: minitorch.mv(m.long(), v.long(), out=minitorch.empty(2)),
         "addmv input tensors must have the same dtype, but got Float, Long, and Long"),
        (lambda: minitorch.mv(m, v, out=minitorch.empty(3, dtype=minitorch.float64)),
         "Expected out tensor to have dtype float, but got double instead"),
        (lambda: minitorch.dot(v, v, out=minitorch.empty((), dtype=minitorch.float64)),
         "result dtype Double does not match input dtype Float"),
        (lambda: minitorch.dot(v, minitorch.ones(4), out=minitorch.empty((), dtype=minitorch.int32)),
         "result dtype Int does not match input dtype Float"),
        (lambda: minitorch.dot(v.long(), v, out=minitorch.empty(())),
         "result dtype Float does not match input dtype Long"),
        (lambda: minitorch.dot(v, v.long(), out=minitorch.empty(())),
         "dot : expected both vectors to have same dtype, but found Float and Long"),
    ]  # fmt: skip
    for call, message in cases:
        with pytest.raises(RuntimeError) as e:
            call()
        assert str(e.value) == message


def test_out_outer_castable():
    # PyTorch's outer is mul_out over a column: out takes any dtype the product casts to
    a = minitorch.tensor([1.0, 2.0, 3.0])
    b = minitorch.tensor([1.0, -1.0])
    want = np.outer([1.0, 2.0, 3.0], [1.0, -1.0])
    for name in ("outer", "ger"):
        f = getattr(minitorch, name)
        for dt in (minitorch.float64, minitorch.float16, minitorch.complex64):
            out = minitorch.empty(3, 2, dtype=dt)
            assert f(a, b, out=out) is out and out.dtype == dt
            np.testing.assert_array_equal(to_np(out), want.astype(out.numpy().dtype))
        out = minitorch.empty(3, 2, dtype=minitorch.int32)
        assert f(a.int(), b.long(), out=out) is out
        np.testing.assert_array_equal(to_np(out), want)
        for dt, shown in ((minitorch.int64, "Long"), (minitorch.bool, "Bool")):
            with pytest.raises(RuntimeError) as e:
                f(a, b, out=minitorch.empty(3, 2, dtype=dt))
            assert str(e.value) == f"result type Float can't be cast to the desired output type {shown}"
        with pytest.raises(RuntimeError) as e:
            f(a.long(), b.long(), out=minitorch.empty(3, 2, dtype=minitorch.bool))
        assert str(e.value) == "result type Long can't be cast to the desired output type Bool"


def test_out_addmv_forms():
    """addmv's out= (an ops.schema row whose out= the GEMM writes, try_direct_gemm) against NumPy: self of the
    result's length, of one element and 0-d (broadcast into out), contiguous and strided outs (every other
    element of a buffer, a column of a matrix), out that is self; integer products take float scales
    truncated toward zero, as PyTorch's kernel converts them."""
    rng = np.random.default_rng(3)
    a, v = rng.standard_normal((5, 4)), rng.standard_normal(4)
    ta, tv = minitorch.tensor(a), minitorch.tensor(v)
    f64 = minitorch.float64
    for s in (rng.standard_normal(5), rng.standard_normal(1), np.asarray(rng.standard_normal())):
        want = 0.5 * s - 2 * (a @ v)
        for layout in ("contiguous", "every other", "column"):
            buf = {
                "contiguous": minitorch.full((5,), 7.0, dtype=f64),
                "every other": minitorch.full((10,), 7.0, dtype=f64),
                "column": minitorch.full((5, 3), 7.0, dtype=f64),
            }[layout]
            out = (
                {"contiguous": buf, "every other": buf[::2]}[layout]
                if buf.dim() == 1 and layout != "column"
                else buf[:, 1]
            )
            with warnings.catch_warnings():
                warnings.simplefilter("error")
                r = minitorch.addmv(minitorch.tensor(s), ta, tv, beta=0.5, alpha=-2, out=out)
            assert r is out and tuple(out.shape) == (5,)
            np.testing.assert_allclose(to_np(out), want, rtol=1e-12, atol=1e-12, err_msg=layout)
            assert (to_np(buf) == 7.0).sum() == buf.numel() - 5, layout
    z = minitorch.tensor(s5 := rng.standard_normal(5))
    assert minitorch.addmv(z, ta, tv, beta=2, out=z) is z
    np.testing.assert_allclose(to_np(z), 2 * s5 + a @ v, rtol=1e-12)
    ai, vi, si = (np.round(x * 4).astype(np.int64) for x in (a, v, s5))
    out = minitorch.empty(5, dtype=minitorch.int64)
    minitorch.addmv(
        minitorch.tensor(si), minitorch.tensor(ai), minitorch.tensor(vi), beta=2.7, alpha=-1.5, out=out
    )
    np.testing.assert_array_equal(to_np(out), 2 * si - ai @ vi)


def test_out_addmv_refusals_and_resize():
    # PyTorch's structured addmv_out: out of another dtype refused before anything is written; out of
    # another size resized (with the warning when it had elements), then written; inputs of mixed dtypes
    # name all three
    m, v, x = minitorch.ones(3, 2), minitorch.ones(2), minitorch.ones(3)
    for dt, shown in ((minitorch.float64, "double"), (minitorch.int64, "long int")):
        out = minitorch.full((3,), 7, dtype=dt)
        with pytest.raises(RuntimeError) as e:
            minitorch.addmv(x, m, v, out=out)
        assert str(e.value) == f"Expected out tensor to have dtype float, but got {shown} instead"
        assert (to_np(out) == 7).all()
    with pytest.raises(RuntimeError) as e:
        minitorch.addmv(x.double(), m, v, out=minitorch.empty(3))
    assert str(e.value) == "addmv input tensors must have the same dtype, but got Double, Float, and Float"
    out = minitorch.full((5,), 7.0)
    with pytest.warns(
        UserWarning,
        match=r"was resized since it had shape \[5\], which does not match the required output shape \[3\]",
    ):
        minitorch.addmv(x, m, v, beta=2, out=out)
    assert out.tolist() == [4.0, 4.0, 4.0]
    out = minitorch.empty(0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        minitorch.addmv(x, m, v, out=out)
    assert out.tolist() == [3.0, 3.0, 3.0]
