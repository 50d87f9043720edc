"""minitorch._composite_math: PyTorch's pointwise, reduction, search and set functions composed in Python,
checked against NumPy/math (float64 references), with PyTorch's output dtypes, gradients and errors."""

import math
import re

import numpy as np
import pytest

import minitorch
from minitorch.autograd import gradcheck, gradgradcheck
from tests.utils import ALL_DTYPES, cases_here_and_in_pytorch, rerun_in_child, run_oracle

F16, F32, F64, I64 = minitorch.float16, minitorch.float32, minitorch.float64, minitorch.int64
NAN, INF = math.nan, math.inf
SPECIAL = [0.0, -0.0, 1.0, -1.0, INF, -INF, NAN, 2.5, -2.5]


def t(a, dtype=None, device="cpu"):
    return minitorch.tensor(a, dtype=dtype, device=device)


def close(got, want, rtol=1e-5, atol=1e-6):
    np.testing.assert_allclose(got.cpu().double().numpy(), np.asarray(want, dtype=np.float64), rtol, atol)


def rand(shape, seed=0, low=-3.0, high=3.0):
    return np.random.default_rng(seed).uniform(low, high, shape)


def dbl(a, grad=True):
    return minitorch.tensor(a, dtype=F64, requires_grad=grad)


# ------------------------------------------------------------------------------------------ addcmul family


@pytest.mark.parametrize("dtype", [F32, F64])
def test_addcmul_addcdiv_values(device, dtype):
    a, b, c = rand((4, 5), 0), rand((4, 5), 1), rand((4, 5), 2, 0.5, 2)
    x, y, z = (t(v, dtype, device) for v in (a, b, c))
    close(minitorch.addcmul(x, y, z, value=0.3), a + 0.3 * b * c)
    close(x.addcmul(y, z), a + b * c)
    close(minitorch.addcdiv(x, y, z, value=-2), a - 2 * b / c)
    # non-contiguous operands and broadcasting
    close(minitorch.addcmul(x.T, y.T, z.T[0]), a.T + b.T * c.T[0])
    assert minitorch.addcmul(x, y, z).dtype == dtype


@pytest.mark.parametrize("layout", ["contiguous", "transposed"])
def test_addcmul_inplace_adam_step(device, layout):
    # the hand-written Adam update: exp_avg_sq.mul_(b2).addcmul_(g, g, value=1 - b2)
    g, s = rand((6, 3), 3), rand((6, 3), 4, 0, 1)
    G, S = t(g, F32, device), t(s, F32, device)
    if layout == "transposed":
        G, S = t(g.T.copy(), F32, device).T, t(s.T.copy(), F32, device).T
    out = S.mul_(0.99).addcmul_(G, G, value=0.01)
    assert out is S
    close(S, s * 0.99 + 0.01 * g * g)
    S.addcdiv_(G, S.sqrt().add(1e-8), value=-0.1)
    close(S, (s * 0.99 + 0.01 * g * g) - 0.1 * g / (np.sqrt(s * 0.99 + 0.01 * g * g) + 1e-8), rtol=1e-4)


@pytest.mark.parametrize("dtype", [F32, F64, F16, minitorch.bfloat16])
def test_addcmul_addcdiv_one_pass_kernel(device, dtype):
    """The one-pass kernel (fn::Addcmul / fn::Addcdiv) computes PyTorch's self + value * t1 * t2 (/ t2) in that
    order, the value rounded to the compute type first; half and bfloat16 in float, rounded once: bit for bit
    against NumPy in float32/float64, over broadcast and strided operands, out= and an empty result."""
    npdt = np.float64 if dtype == F64 else np.float32
    rng = np.random.default_rng(11)
    a, b, c = rng.uniform(-3, 3, (5, 1, 7)), rng.uniform(-3, 3, (1, 4, 7)), rng.uniform(0.5, 2, (4, 1))
    x, y, z = (t(v, dtype, device) for v in (a, b, c))
    xa, ya, za = (
        v.float().cpu().numpy().astype(npdt) if dtype != F64 else v.cpu().numpy() for v in (x, y, z)
    )
    for value in (0.3, -2, 1):
        v = npdt(value)
        for name, want in (("addcmul", xa + v * ya * za), ("addcdiv", xa + v * ya / za)):
            got = getattr(minitorch, name)(x, y, z, value=value)
            assert got.dtype == dtype and got.shape == (5, 4, 7)
            if dtype in (F32, F64):
                np.testing.assert_array_equal(got.cpu().numpy(), want)
            else:
                w = minitorch.from_numpy(want.astype(np.float32)).to(dtype).float().numpy()
                np.testing.assert_array_equal(got.float().cpu().numpy(), w)
            # strided operands (transposed views) give the same values
            tr = getattr(minitorch, name)(x.mT.contiguous().mT, y.mT.contiguous().mT, z, value=value)
            np.testing.assert_array_equal(tr.float().cpu().numpy(), got.float().cpu().numpy())
            o = minitorch.empty(5, 4, 7, dtype=dtype, device=device)
            assert getattr(minitorch, name)(x, y, z, value=value, out=o) is o
            np.testing.assert_array_equal(o.float().cpu().numpy(), got.float().cpu().numpy())
            # a bool value is the front end's (the direct path takes plain int and float values only): the
            # same kernel and bits
            if value == 1:
                via_front = getattr(minitorch, name)(x, y, z, value=True)
                np.testing.assert_array_equal(via_front.float().cpu().numpy(), got.float().cpu().numpy())
    e = minitorch.empty(0, 7, dtype=dtype, device=device)
    assert minitorch.addcmul(e, e, x[0, 0]).shape == (0, 7) and minitorch.addcdiv(e, x[0, 0], e).shape == (
        0,
        7,
    )
    # inf and NaN flow through as IEEE arithmetic says
    s = t([1.0, INF, NAN, 0.0], dtype, device)
    close(
        minitorch.addcdiv(s, t([1.0, 1.0, 1.0, 1.0], dtype, device), t([0.0, 1.0, 1.0, -0.0], dtype, device)),
        [INF, INF, NAN, -INF],
    )


def test_addcmul_inplace_broadcast_and_dtype_errors():
    x = t([1.0, 2.0, 3.0])
    x.addcmul_(t([2.0]), t([[1.0], [1.0], [1.0]])[0])  # broadcasting operands into self is fine
    close(x, [3, 4, 5])
    with pytest.raises(
        RuntimeError, match=r"output with shape \[3\] doesn't match the broadcast shape \[2, 3\]"
    ):
        x.addcmul_(minitorch.ones(2, 3), x)
    with pytest.raises(RuntimeError, match="result type Float can't be cast to the desired output type Long"):
        t([1, 2, 3]).addcmul_(x, x)
    with pytest.raises(RuntimeError, match="Integer division with addcdiv is no longer supported"):
        minitorch.addcdiv(x, t([1, 2, 3]), t([1, 2, 3]))


def test_addcmul_integer_and_promotion():
    i = t([1, 2, 3])
    r = minitorch.addcmul(i, i, i, value=2)
    assert r.dtype == I64 and r.tolist() == [3, 10, 21]
    assert minitorch.addcmul(i, i, i, value=0.5).tolist() == [1, 2, 3]  # PyTorch truncates the scalar
    assert minitorch.addcmul(i, t([1.0, 1, 1]), i).dtype == F32
    assert minitorch.addcdiv(t([1.0, 2.0]), t([1, 2]), t([2.0, 4.0]), value=2).tolist() == [2.0, 3.0]


def test_addcmul_addcdiv_grad():
    a, b, c = rand((3, 2), 5), rand((3, 2), 6), rand((3, 2), 7, 0.5, 2)
    assert gradcheck(lambda x, y, z: minitorch.addcmul(x, y, z, value=0.7), (dbl(a), dbl(b), dbl(c)))
    assert gradcheck(lambda x, y, z: minitorch.addcdiv(x, y, z, value=-1.5), (dbl(a), dbl(b), dbl(c)))
    # in-place on a non-leaf with autograd takes the differentiable path
    x, y = dbl(a), dbl(b)
    z = x * 1.0
    z.addcmul_(y, y, value=2.0)
    z.sum().backward()
    close(x.grad, np.ones_like(a))
    close(y.grad, 4 * b)


# ------------------------------------------------------------------------------------------ BLAS-like


@pytest.mark.parametrize("dtype", [F32, F64])
def test_baddbmm_addbmm_addmv_addr(device, dtype):
    i2, b1, b2 = rand((4, 2), 0), rand((3, 4, 5), 1), rand((3, 5, 2), 2)
    v4, v5, m45 = rand((4,), 3), rand((5,), 4), rand((4, 5), 5)
    I2, B1, B2, V4, V5, M45 = (t(v, dtype, device) for v in (i2, b1, b2, v4, v5, m45))
    tol = {"rtol": 1e-4, "atol": 1e-4}
    close(minitorch.baddbmm(I2, B1, B2, beta=0.5, alpha=2), 0.5 * i2 + 2 * (b1 @ b2), **tol)
    close(minitorch.addbmm(I2, B1, B2, beta=0.5, alpha=2), 0.5 * i2 + 2 * (b1 @ b2).sum(0), **tol)
    close(minitorch.addmv(V4, M45, V5, alpha=-1), v4 - m45 @ v5, **tol)
    close(minitorch.addr(M45, V4, V5, beta=2), 2 * m45 + np.outer(v4, v5), **tol)
    # non-contiguous batch operands
    close(
        minitorch.baddbmm(I2.T, B2.transpose(1, 2), B1.transpose(1, 2)),
        i2.T + (b1 @ b2).transpose(0, 2, 1),
        **tol,
    )
    # beta == 0 ignores input entirely, NaNs included
    nan_in = t(np.full((4, 2), np.nan), dtype, device)
    close(minitorch.baddbmm(nan_in, B1, B2, beta=0), b1 @ b2, **tol)
    close(minitorch.addmv(nan_in[:, 0], M45, V5, beta=0), m45 @ v5, **tol)
    # in-place variants
    out = minitorch.zeros(3, 4, 2, dtype=dtype, device=device)
    assert out.baddbmm_(B1, B2, alpha=3) is out
    close(out, 3 * (b1 @ b2), **tol)
    v = V4.clone()
    minitorch.addmv_(v, M45, V5)
    close(v, v4 + m45 @ v5, **tol)
    m = M45.clone()
    m.addr_(V4, V5, alpha=0.5)
    close(m, m45 + 0.5 * np.outer(v4, v5), **tol)


def test_blas_like_errors_and_grad():
    i = t([1, 2, 3])
    with pytest.raises(
        RuntimeError, match="For integral input tensors, argument alpha must not be a floating"
    ):
        minitorch.addr(i, i, i, alpha=0.5)
    assert (
        minitorch.addr(i, i, i, alpha=2).tolist()
        == (np.arange(1, 4) + 2 * np.outer([1, 2, 3], [1, 2, 3])).tolist()
    )
    a, b, c = rand((2, 3), 0), rand((4, 2, 5), 1), rand((4, 5, 3), 2)
    assert gradcheck(lambda x, y, z: minitorch.addbmm(x, y, z, beta=0.3, alpha=1.7), (dbl(a), dbl(b), dbl(c)))
    assert gradcheck(lambda x, y, z: minitorch.baddbmm(x, y, z, beta=0.3), (dbl(a), dbl(b), dbl(c)))


# ------------------------------------------------------------------------------------------ pointwise


def test_square(device):
    x = t([[-2.0, 3.0], [0.5, 0.0]], F32, device)
    close(minitorch.square(x.T), np.array([[4, 0.25], [9, 0]]))
    assert minitorch.square(t([1, -3], device=device)).tolist() == [1, 9]
    b = minitorch.square(t([True, False], device=device))
    assert b.dtype == I64 and b.tolist() == [1, 0]
    y = x.clone()
    assert minitorch.square_(y) is y and y.square_() is y
    close(y, np.array([[16, 81], [0.0625, 0]]))
    assert gradcheck(minitorch.square, (dbl(rand((3,), 1)),))
    assert minitorch.square(minitorch.zeros(0, 3)).shape == (0, 3)


@pytest.mark.parametrize("dtype", [F32, F64])
def test_logaddexp(device, dtype):
    a, b = rand((5, 4), 0, -80, 80), rand((4,), 1, -80, 80)
    x, y = t(a, dtype, device), t(b, dtype, device)
    close(minitorch.logaddexp(x, y), np.logaddexp(a, b), rtol=1e-6)
    close(minitorch.logaddexp2(x.T, y.unsqueeze(1)), np.logaddexp2(a.T, b[:, None]), rtol=1e-6)
    s = t(SPECIAL, dtype, device)
    close(
        minitorch.logaddexp(s, s.flip(0) if hasattr(s, "flip") else t(SPECIAL[::-1], dtype, device)),
        np.logaddexp(SPECIAL, SPECIAL[::-1]),
    )
    assert minitorch.logaddexp(x, y).dtype == dtype
    assert gradcheck(minitorch.logaddexp, (dbl(a[:2]), dbl(b)))
    with pytest.raises(NotImplementedError, match="\"logaddexp_cpu\" not implemented for 'Long'"):
        minitorch.logaddexp(t([1]), t([2]))


_LOGADDEXP_CHECK = r"""
import numpy as np
import minitorch as m

rng = np.random.default_rng(5)
n = 20011
for npdt in (np.float32, np.float64):
    a = (rng.standard_normal(n) * np.r_[1, 10, 100, 0.01, 1e-5][rng.integers(0, 5, n)]).astype(npdt)
    b = (rng.standard_normal(n) * np.r_[3, 0.1, 30][rng.integers(0, 3, n)]).astype(npdt)
    for f, nf in ((m.logaddexp, np.logaddexp), (m.logaddexp2, np.logaddexp2)):
        x, y = m.from_numpy(a), m.from_numpy(b)
        r = f(x, y).numpy()
        ref = nf(a.astype(np.longdouble), b.astype(np.longdouble))
        # max + log1p(...) cancels where the result is near 0: the error is measured against the operands'
        # scale, the formula's own conditioning (PyTorch's results measure 1.34-1.64 ulp of it here)
        scale = np.spacing(np.maximum(np.maximum(np.abs(a), np.abs(b)), npdt(1))).astype(np.longdouble)
        err = float((np.abs(r.astype(np.longdouble) - ref) / scale).max())
        assert err <= 2.0, (npdt.__name__, f.__name__, err)
        # every layout of the row loop gives the dense result: a broadcast number on either side, strided
        np.testing.assert_array_equal(f(x[:1].expand(n), y).numpy(), f(x[:1].clone().expand(n).contiguous(), y).numpy())
        np.testing.assert_array_equal(f(x, y[5]).numpy(), f(x, y[5].expand(n).contiguous()).numpy())
        np.testing.assert_array_equal(f(x[::3], y[::3]).numpy(), r[::3])
    # the special values, each against each, in the row loop (a whole vector of them) and its tail
    sp = np.array([0.0, -0.0, 1.0, -1.0, np.inf, -np.inf, np.nan, 2.5, -2.5, 1e30, -1e30, 1e-40], npdt)
    a, b = np.repeat(sp, sp.size), np.tile(sp, sp.size)
    for f, nf in ((m.logaddexp, np.logaddexp), (m.logaddexp2, np.logaddexp2)):
        with np.errstate(invalid="ignore"):
            want = nf(a, b)
        np.testing.assert_allclose(f(m.from_numpy(a), m.from_numpy(b)).numpy(), want, rtol=1e-6, atol=0)
print("ok")
"""


@pytest.mark.parametrize("cap", [None, "avx2", "default"])
def test_logaddexp_accuracy_on_each_path(cap):
    """the CPU's row loop (and the scalar functor with MINITORCH_CPU_CAPABILITY=default): within 2 ulp of the
    operands' scale against a long-double reference, the same bits in every layout"""
    import os
    import subprocess
    import sys

    env = dict(os.environ)
    if cap:
        env["MINITORCH_CPU_CAPABILITY"] = cap
    r = subprocess.run(
        [sys.executable, "-c", _LOGADDEXP_CHECK], check=False, env=env, capture_output=True, text=True
    )
    assert r.returncode == 0 and r.stdout.strip() == "ok", r.stderr[-2000:]


def test_logaddexp_half_precision_computes_in_float():
    """float16/bfloat16 in float, rounded once (a bfloat16 step by step gave 1.6875 for logaddexp(1, 1))"""
    a = np.array([1.0, -3.5, 7.25, 0.0, INF, -INF, NAN, 60.0], np.float32)
    b = np.array([1.0, 2.0, 7.25, -0.0, INF, -INF, 1.0, -60.0], np.float32)
    for dt in (minitorch.float16, minitorch.bfloat16):
        x, y = minitorch.tensor(a).to(dt), minitorch.tensor(b).to(dt)
        want = minitorch.logaddexp(x.float(), y.float()).to(dt)
        got = minitorch.logaddexp(x, y)
        assert got.dtype == dt
        np.testing.assert_array_equal(got.float().numpy(), want.float().numpy())
    assert (
        minitorch.logaddexp(
            minitorch.ones(1, dtype=minitorch.bfloat16), minitorch.ones(1, dtype=minitorch.bfloat16)
        ).item()
        == 1.6953125
    )
    # PyTorch's spellings: the method and out=, no in-place form; integers refused in its words, and complex for
    # logaddexp2 only (logaddexp's complex kernel: tests/ops/complex)
    x = minitorch.tensor([0.5, 2.0])
    out = minitorch.empty(2)
    assert minitorch.logaddexp(x, x, out=out) is out
    np.testing.assert_allclose(out.numpy(), np.logaddexp([0.5, 2.0], [0.5, 2.0]), rtol=1e-6)
    np.testing.assert_allclose(x.logaddexp2(x).numpy(), [1.5, 3.0], rtol=1e-6)
    assert not hasattr(x, "logaddexp_")
    with pytest.raises(NotImplementedError, match="\"logaddexp2_cpu\" not implemented for 'Bool'"):
        minitorch.logaddexp2(minitorch.tensor([True]), minitorch.tensor([True]))
    with pytest.raises(NotImplementedError, match="\"logaddexp2_cpu\" not implemented for 'ComplexFloat'"):
        minitorch.logaddexp2(
            minitorch.ones(1, dtype=minitorch.complex64), minitorch.ones(1, dtype=minitorch.complex64)
        )
    # the gradient: grad / (1 + exp(other - self)) for self, with the broadcast side summed
    g = minitorch.tensor([0.5, -1.0, 3.0], dtype=minitorch.float64, requires_grad=True)
    h = minitorch.tensor([0.25], dtype=minitorch.float64, requires_grad=True)
    r = minitorch.logaddexp(g, h)
    assert r.grad_fn.name() == "LogaddexpBackward0"
    r.sum().backward()
    gv = np.array([0.5, -1.0, 3.0])
    np.testing.assert_allclose(g.grad.numpy(), 1 / (1 + np.exp(0.25 - gv)), rtol=1e-12)
    np.testing.assert_allclose(h.grad.numpy(), [np.sum(1 / (1 + np.exp(gv - 0.25)))], rtol=1e-12)


def test_xlogy_and_grad(device):
    x = t([0.0, 0.0, 2.0, 3.0, 0.0, 1.0], F64, device)
    y = t([0.0, NAN, 3.0, 0.0, 5.0, -1.0], F64, device)
    close(minitorch.xlogy(x, y), [0, NAN, 2 * math.log(3), -INF, 0, NAN])
    assert minitorch.xlogy(t([1, 2]), t([3, 4])).dtype == F32
    close(minitorch.xlogy(2, t([3.0, 4.0], device=device)), [2 * math.log(3), 2 * math.log(4)])
    close(minitorch.xlogy(t([3.0, 4.0], device=device), 2), [3 * math.log(2), 4 * math.log(2)])
    z = t([1.0, 2.0], device=device)
    z.xlogy_(t([2.0, 2.0], device=device))
    close(z, [math.log(2), 2 * math.log(2)])
    # x == 0: value 0 and a finite (zero) gradient for x, unlike 0 * log(0)
    xa, ya = dbl([0.0, 1.5]), dbl([0.0, 2.0])
    minitorch.xlogy(xa, ya).sum().backward()
    assert not np.isnan(xa.grad.numpy()).any()
    close(xa.grad, [0.0, math.log(2)])
    assert gradcheck(minitorch.xlogy, (dbl(rand((4,), 2)), dbl(rand((4,), 3, 0.5, 3))))


def test_hypot_fmax_fmin_copysign_signbit(device):
    a, b = rand((3, 4), 0), rand((3, 4), 1)
    x, y = t(a, F32, device), t(b, F32, device)
    close(minitorch.hypot(x, y), np.hypot(a, b))
    s, r = np.array(SPECIAL), np.array(SPECIAL[::-1])
    S, R = t(s, F64, device), t(r, F64, device)
    close(minitorch.fmax(S, R), np.fmax(s, r))
    close(minitorch.fmin(S, R), np.fmin(s, r))
    assert minitorch.fmax(t([1, 5]), t([3, 2])).tolist() == [3, 5]
    close(minitorch.copysign(x, S[:4].reshape(1, 4) if False else y), np.copysign(a, b))
    assert minitorch.copysign(t([1, -2]), t([-1, 1])).dtype == F32
    np.testing.assert_array_equal(
        minitorch.signbit(S).cpu().numpy(), np.signbit(s) & ~np.isnan(s) | (s == 0) & np.signbit(s)
    )
    assert minitorch.signbit(t([-1, 0, 2])).tolist() == [True, False, False]
    with pytest.raises(NotImplementedError, match="\"hypot_cpu\" not implemented for 'Long'"):
        minitorch.hypot(t([1]), t([2]))
    assert gradcheck(minitorch.hypot, (dbl(a[0]), dbl(b[0])))
    assert gradcheck(minitorch.copysign, (dbl(a[0]), dbl(b[0], False)))


def test_sgn_heaviside_frac_fix_angles(device):
    s = np.array(SPECIAL)
    S = t(s, F32, device)
    close(minitorch.sgn(S), np.nan_to_num(np.sign(s)))  # PyTorch: sign(nan) == 0
    close(
        minitorch.heaviside(S, t([0.5], F32, device)), np.nan_to_num(np.heaviside(s, 0.5))
    )  # PyTorch: heaviside(nan) == 0
    with pytest.raises(
        RuntimeError, match="heaviside is not yet implemented for tensors with different dtypes"
    ):
        minitorch.heaviside(S, t([1], device=device))
    close(minitorch.frac(S), np.where(np.isinf(s), np.nan, s - np.trunc(s)))
    close(minitorch.fix(S), np.trunc(s))
    assert minitorch.fix(t([3, -2])).tolist() == [3, -2]
    with pytest.raises(NotImplementedError, match="\"frac_cpu\" not implemented for 'Long'"):
        minitorch.frac(t([1]))
    d = minitorch.deg2rad(t([180, 90], device=device))
    assert d.dtype == F32
    close(d, [math.pi, math.pi / 2])
    close(minitorch.rad2deg(t([math.pi], F64, device)), [180.0])
    y = t([1.5, -2.25], device=device)
    y.frac_()
    close(y, [0.5, -0.25])


# torch.heaviside (one pass: the _heaviside row) beside PyTorch: each dtype's values (NaN, +-0, ties with
# values), broadcasting, strided and empty operands, out= and the in-place method, and the errors in its words
_HEAVISIDE_CASES = """
def cases(torch):
    import math

    def run(f):
        try:
            r = f()
        except Exception as e:
            return [type(e).__name__, str(e).splitlines()[0]]
        if isinstance(r, torch.Tensor):
            v = r.double().tolist() if r.dtype != torch.bool else r.tolist()
            v = [None if isinstance(a, float) and math.isnan(a) else a for a in v] if r.dim() == 1 else v
            return [str(r.dtype).split(".")[-1], list(r.shape), v, r.requires_grad]
        return repr(r)

    xs = [-2.0, -0.0, 0.0, 3.0, float("nan"), float("inf"), -float("inf"), 0.5, 0.0, -1.0]
    vs = [0.25, 0.5, 0.75, float("nan"), 1.0, -2.0, 0.0, 7.0, -0.0, 3.0]
    out = {}
    for d in ("float32", "float64", "float16", "bfloat16", "int64", "int32", "int16", "int8", "uint8", "bool"):
        dt = getattr(torch, d)
        if dt.is_floating_point:
            x, v = torch.tensor(xs).to(dt), torch.tensor(vs).to(dt)
        else:  # (no NaN or infinity converted to an integer)
            x = torch.tensor([-2, 0, 0, 3, 5, 100, -100, 1, 0, -1]).to(dt)
            v = torch.tensor([1, 2, 0, 4, -5, 6, 7, 0, 9, 1]).to(dt)
        out[d] = run(lambda: torch.heaviside(x, v))
        out[d + " method"] = run(lambda: x.heaviside(v))
        out[d + " inplace"] = run(lambda: x.clone().heaviside_(v))
        out[d + " out"] = run(lambda: torch.heaviside(x, v, out=torch.empty(0, dtype=dt)))
    x = torch.tensor(xs, dtype=torch.float64)
    v = torch.tensor(vs, dtype=torch.float64)
    big = torch.arange(-40.0, 40.0, dtype=torch.float64).reshape(8, 10) % 3 - 1
    out["strided"] = run(lambda: torch.heaviside(big.t()[::2], big.t()[1::2] + 0.5).reshape(-1))
    out["broadcast"] = run(lambda: torch.heaviside(x.reshape(10, 1), v[:3]).reshape(-1))
    out["0-dim values"] = run(lambda: torch.heaviside(x, torch.tensor(0.5, dtype=torch.float64)))
    out["empty"] = run(lambda: torch.heaviside(x[:0], v[:0]))
    out["keywords"] = run(lambda: torch.heaviside(input=x, values=v))
    out["grad result"] = run(lambda: torch.heaviside(x.clone().requires_grad_(), v))
    out["backward"] = run(lambda: torch.heaviside(x.clone().requires_grad_(), v).sum().backward())
    out["backward values"] = run(lambda: torch.heaviside(x, v.clone().requires_grad_()).sum().backward())
    out["mixed"] = run(lambda: torch.heaviside(x, v.float()))
    out["0-dim mixed"] = run(lambda: torch.heaviside(x, torch.tensor(0.5)))
    out["number"] = run(lambda: torch.heaviside(x, 0.5))
    out["complex"] = run(lambda: torch.heaviside(x.to(torch.complex64), v.to(torch.complex64)))
    out["complex other"] = run(lambda: torch.heaviside(x, v.to(torch.complex128)))
    out["out mixed"] = run(lambda: torch.heaviside(x, v, out=torch.empty(10)))
    out["out complex"] = run(lambda: torch.heaviside(x, v, out=torch.empty(10, dtype=torch.complex128)))
    out["out int"] = run(lambda: torch.heaviside(x, v, out=torch.empty(10, dtype=torch.int64)))
    out["inplace mixed"] = run(lambda: x.clone().heaviside_(v.float()))
    out["inplace broadcast"] = run(lambda: x[:1].clone().heaviside_(v))
    out["shapes"] = run(lambda: torch.heaviside(x, v[:3]))
    return out
"""


def test_heaviside_against_pytorch():
    ours, theirs = cases_here_and_in_pytorch(_HEAVISIDE_CASES, [("torch", minitorch)])
    assert ours.keys() == theirs.keys()
    for k in theirs:
        assert ours[k] == theirs[k], k


def test_heaviside_one_pass_values(device):
    """the kernel over long dense, strided and broadcast runs against NumPy, each float dtype"""
    rng = np.random.default_rng(7)
    a = rng.integers(-2, 3, 5000).astype(np.float64)
    a[::97] = np.nan
    b = rng.standard_normal(5000)
    want = np.where(a == 0, b, (a > 0).astype(np.float64))
    for dt in (F32, F64, F16, minitorch.bfloat16):
        x, v = t(a, dt, device), t(b, dt, device)
        ref = minitorch.tensor(want, dtype=dt).double().numpy()  # b as the dtype rounds it
        np.testing.assert_array_equal(minitorch.heaviside(x, v).cpu().double().numpy(), ref)
        np.testing.assert_array_equal(minitorch.heaviside(x[::3], v[::3]).cpu().double().numpy(), ref[::3])
        y = x.clone()
        assert y.heaviside_(v) is y
        np.testing.assert_array_equal(y.cpu().double().numpy(), ref)
    x = t(a[:12].reshape(3, 4), F64, device)
    got = minitorch.heaviside(x, t([[9.0], [8.0], [7.0]], F64, device))
    np.testing.assert_array_equal(
        got.cpu().numpy(),
        np.where(a[:12].reshape(3, 4) == 0, [[9.0], [8.0], [7.0]], a[:12].reshape(3, 4) > 0),
    )


def test_float_power():
    r = minitorch.float_power(t([1, 2, 3]), 2)
    assert r.dtype == F64 and r.tolist() == [1.0, 4.0, 9.0]
    assert minitorch.float_power(2, t([1.0, 3.0])).tolist() == [2.0, 8.0]
    assert minitorch.float_power(t([4.0]), t([0.5])).dtype == F64
    with pytest.raises(
        RuntimeError, match="the base given to float_power_ has dtype Float but the operation's"
    ):
        t([1.0]).float_power_(2)
    x = t([3.0], F64)
    x.float_power_(2)
    assert x.tolist() == [9.0]


@pytest.mark.parametrize("dtype", [F32, F64, minitorch.float16])
def test_nan_to_num(device, dtype):
    S = t(SPECIAL, dtype, device)
    big = {F32: np.finfo(np.float32).max, F64: np.finfo(np.float64).max, minitorch.float16: 65504.0}[dtype]
    want = np.nan_to_num(np.array(SPECIAL), nan=0.0, posinf=big, neginf=-big)
    np.testing.assert_array_equal(minitorch.nan_to_num(S).cpu().double().numpy(), want)
    close(
        minitorch.nan_to_num(S, 1.0, 2.0, -3.0), np.nan_to_num(np.array(SPECIAL), nan=1, posinf=2, neginf=-3)
    )
    S.nan_to_num_(nan=7.0)
    assert S.cpu().double().numpy()[6] == 7.0
    assert minitorch.nan_to_num(t([1, 2])).tolist() == [1, 2]
    x = dbl([1.0, NAN, INF, 2.0])
    minitorch.nan_to_num(x).sum().backward()
    close(x.grad, [1, 0, 0, 1])


@pytest.mark.parametrize("dtype", [F32, F64, F16, minitorch.bfloat16])
def test_nan_to_num_one_pass_kernel(device, dtype):
    """The one-pass kernel (fn::NanToNum): the three values converted to the dtype (out-of-range ones become
    +-inf, as PyTorch's static_cast), strided and empty inputs, out= and the in-place form, float64 values kept
    bit for bit."""
    finfo = {F32: np.finfo(np.float32), F64: np.finfo(np.float64), F16: np.finfo(np.float16)}
    hi = finfo[dtype].max if dtype in finfo else 3.3895313892515355e38
    vals = np.array(SPECIAL * 5)
    x = t(vals, dtype, device)
    held = x.double().cpu().numpy()
    got = minitorch.nan_to_num(x)
    assert got.dtype == dtype
    np.testing.assert_array_equal(
        got.double().cpu().numpy(), np.nan_to_num(held, nan=0.0, posinf=hi, neginf=-hi)
    )
    got = minitorch.nan_to_num(x[::2], nan=-1.5, posinf=1e300, neginf=-2.0)
    big = INF if dtype != F64 else 1e300  # beyond the dtype's range: +inf, as PyTorch's conversion
    np.testing.assert_array_equal(
        got.double().cpu().numpy(), np.nan_to_num(held[::2], nan=-1.5, posinf=big, neginf=-2.0)
    )
    assert minitorch.nan_to_num(minitorch.empty(0, 2, dtype=dtype, device=device)).shape == (0, 2)
    o = minitorch.empty(len(vals), dtype=dtype, device=device)
    assert minitorch.nan_to_num(x, 3.0, out=o) is o
    y = x.clone()
    assert y.nan_to_num_(3.0) is y
    np.testing.assert_array_equal(y.double().cpu().numpy(), o.double().cpu().numpy())
    if dtype == F64:
        r = np.random.default_rng(0).standard_normal(100)
        assert minitorch.nan_to_num(t(r, F64, device)).cpu().numpy().tobytes() == r.tobytes()


def test_logit_sinc(device):
    p = rand((5,), 0, 0.01, 0.99)
    close(minitorch.logit(t(p, F64, device)), np.log(p / (1 - p)))
    close(
        minitorch.logit(t([0.0, 1.0, 0.5], F64, device), eps=1e-3),
        [math.log(1e-3 / 0.999), math.log(0.999 / 1e-3), 0],
    )
    assert minitorch.logit(t([0, 1])).dtype == F32
    x = rand((6,), 1)
    x[0] = 0
    close(minitorch.sinc(t(x, F64, device)), np.sinc(x))
    assert minitorch.sinc(t([0, 1])).tolist()[0] == 1.0
    g = dbl([0.0, 0.5])
    minitorch.sinc(g).sum().backward()
    assert g.grad.tolist()[0] == 0.0
    assert gradcheck(minitorch.logit, (dbl(p),))
    assert gradcheck(minitorch.sinc, (dbl(x[1:]),))


def test_positive_isposinf_isneginf_isreal_ldexp():
    S = t(SPECIAL)
    assert minitorch.positive(S) is S
    with pytest.raises(NotImplementedError, match="The `\\+` operator, on a bool tensor is not supported."):
        minitorch.positive(t([True]))
    np.testing.assert_array_equal(minitorch.isposinf(S).numpy(), np.isposinf(SPECIAL))
    np.testing.assert_array_equal(minitorch.isneginf(S).numpy(), np.isneginf(SPECIAL))
    assert minitorch.isneginf(t([1])).tolist() == [False]
    assert minitorch.isreal(S).all().item()
    r = minitorch.ldexp(t([1.0, 3.0]), t([2, -1]))
    assert r.dtype == F32 and r.tolist() == [4.0, 1.5]
    assert minitorch.ldexp(t([1, 2]), t([1, 1])).dtype == F32


def test_gcd_lcm():
    rng = np.random.default_rng(0)
    a, b = rng.integers(-100, 100, 60), rng.integers(-100, 100, 60)
    a[:3], b[:3] = [0, 0, 5], [0, 4, 0]
    np.testing.assert_array_equal(minitorch.gcd(t(a), t(b)).numpy(), np.gcd(a, b))
    np.testing.assert_array_equal(minitorch.lcm(t(a), t(b)).numpy(), np.lcm(a, b))
    x = t(a)
    x.gcd_(t(b))
    np.testing.assert_array_equal(x.numpy(), np.gcd(a, b))
    with pytest.raises(NotImplementedError, match="\"gcd_cpu\" not implemented for 'Float'"):
        minitorch.gcd(t([1.0]), t([2.0]))


def test_tensor_isclose_allclose_equal():
    x = t([1.0, 2.0])
    assert x.isclose(t([1.0, 2.1])).tolist() == [True, False]
    assert x.allclose(t([1.0, 2.0 + 1e-7])) and not x.allclose(t([1.0, 3.0]))
    assert x.equal(t([1.0, 2.0])) and not x.equal(t([1.0]))


# ------------------------------------------------------------------------------------------ reductions, scans


def test_count_nonzero_aminmax(device):
    a = np.array([[0, 1, 2], [0, 0, 3]])
    x = t(a, device=device)
    assert minitorch.count_nonzero(x).item() == 3
    assert minitorch.count_nonzero(x.T, 1).tolist() == [0, 1, 2]
    assert minitorch.count_nonzero(x, (0, 1)).dtype == I64
    r = minitorch.aminmax(t(rand((3, 4)), F32, device), dim=1, keepdim=True)
    assert r.min.shape == (3, 1) and isinstance(r, minitorch.return_types.aminmax)
    close(r.max, rand((3, 4)).astype(np.float32).max(1, keepdims=True))
    mn, mx = minitorch.aminmax(x)
    assert (mn.item(), mx.item()) == (0, 3)
    with pytest.raises(RuntimeError, match="aminmax\\(\\): cannot compute aminmax over an empty dimension"):
        minitorch.aminmax(minitorch.zeros(0))
    with pytest.raises(
        IndexError, match=re.escape("aminmax: Expected reduction dim 1 to have non-zero size.")
    ):
        minitorch.aminmax(minitorch.zeros(2, 0, 3), dim=-2)


def _np_cummax(a, is_max):
    v, idx = np.empty_like(a), np.empty(a.shape, np.int64)
    cur, ci = None, 0
    for i, x in enumerate(a):  # reference semantics: the latest tie wins, a NaN sticks
        takes = cur is None or (x >= cur if is_max else x <= cur) or np.isnan(x)
        if takes and (cur is None or not (np.isnan(cur) and not np.isnan(x))):
            cur, ci = x, i
        v[i], idx[i] = cur, ci
    return v, idx


@pytest.mark.parametrize("is_max", [True, False])
def test_cummax_cummin(device, is_max):
    rng = np.random.default_rng(1)
    a = rng.integers(0, 5, (3, 37)).astype(np.float64)
    a[1, 5], a[2, 20], a[2, 30] = np.nan, np.nan, np.nan
    fn = minitorch.cummax if is_max else minitorch.cummin
    r = fn(t(a, F64, device).T, 0)  # non-contiguous, along dim 0
    assert isinstance(r, minitorch.return_types.cummax if is_max else minitorch.return_types.cummin)
    for row in range(3):
        v, i = _np_cummax(a[row], is_max)
        np.testing.assert_array_equal(r.values[:, row].cpu().numpy(), v)
        np.testing.assert_array_equal(r.indices[:, row].cpu().numpy(), i)
    ri = fn(t(a[0].astype(np.int64), device=device), 0)
    assert ri.values.dtype == I64
    x = dbl(rand((6,), 3))
    assert gradcheck(lambda z: fn(z, 0).values, (x,))
    assert fn(minitorch.zeros(0), 0).values.shape == (0,)


@pytest.mark.parametrize("dt", ["float32", "float16", "bfloat16", "int8", "uint8", "int32", "bool"])
def test_cummax_cummin_kernel_layouts_and_dtypes(device, dt):
    # the kernel's two layouts: the dim last (rows in parallel once large) and a middle dim (strips of 512
    # columns walked down the rows; 700 columns make a partial strip), every real dtype
    rng = np.random.default_rng(2)
    a = rng.integers(0, 6, (2, 9, 700)).astype(np.float64)
    a[0, 3, 5] = a[1, 0, 699] = np.nan
    mdt = getattr(minitorch, dt)
    is_float = dt.startswith(("float", "bfloat"))
    if not is_float:
        a = np.nan_to_num(a)
    src = minitorch.tensor(a, device=device).to(mdt)
    ref = src.to(minitorch.float64).cpu().numpy()  # the values as the dtype holds them
    for is_max in (True, False):
        fn = minitorch.cummax if is_max else minitorch.cummin
        for dim in (1, 2, -3):
            r = fn(src, dim)
            assert r.values.dtype == mdt and r.indices.dtype == I64
            moved = np.moveaxis(ref, dim, -1).reshape(-1, ref.shape[dim])
            got_v = np.moveaxis(r.values.to(minitorch.float64).cpu().numpy(), dim, -1).reshape(moved.shape)
            got_i = np.moveaxis(r.indices.cpu().numpy(), dim, -1).reshape(moved.shape)
            for row in range(moved.shape[0]):
                v, i = _np_cummax(moved[row], is_max)
                np.testing.assert_array_equal(got_v[row], v)
                np.testing.assert_array_equal(got_i[row], i)
    big = minitorch.tensor(rng.standard_normal((4, 40000)), device=device).to(mdt)  # rows above the grain
    v, i = _np_cummax(big.to(minitorch.float64).cpu().numpy()[3], True)
    r = minitorch.cummax(big, 1)
    np.testing.assert_array_equal(r.values[3].to(minitorch.float64).cpu().numpy(), v)
    np.testing.assert_array_equal(r.indices[3].cpu().numpy(), i)


_CUM_ORACLE = r"""
import json, sys, torch
out = []
for c in json.load(sys.stdin):
    x = torch.tensor(c["data"], dtype=torch.float64).to(getattr(torch, c["dtype"]))
    x = x.t() if c["t"] else x
    r = (torch.cummax if c["max"] else torch.cummin)(x, c["dim"])
    out.append([r.values.double().tolist(), r.indices.tolist()])
print(json.dumps(out))
"""


def _cum_rows(rng, n):
    """rows that take each path of the kernel's blocks: a new extremum early then none (the vector blocks),
    ascending (every element replaces), ties (the latest index), NaN late in a stable stretch and first, signed
    zeros, infinities"""
    rows = [
        rng.standard_normal(n),
        np.sort(rng.standard_normal(n)),
        -np.sort(rng.standard_normal(n)),
        np.full(n, 2.0),
        rng.integers(0, 3, n).astype(np.float64),
    ]
    r = rng.standard_normal(n)
    r[[n // 2 + 3, n - 5]] = np.nan
    rows.append(r)
    r = rng.standard_normal(n)
    r[0] = np.nan
    rows.append(r)
    rows.append(np.where(rng.random(n) < 0.5, 0.0, -0.0))
    r = rng.standard_normal(n)
    r[[3, n // 2]] = [np.inf, -np.inf]
    rows.append(r)
    return np.stack(rows)


@pytest.mark.parametrize("dt", ["float32", "float64", "int64", "int32", "int16", "int8", "uint8"])
def test_cummax_cummin_vector_blocks_match_pytorch(dt):
    # the kernel's vector blocks along the last dim (a row tested a vector at a time) and down the columns of a
    # middle dim (a select per lane; 9 columns: a vector and a tail, 600: a strip of 512 and a partial one),
    # contiguous and transposed, against PyTorch's own cummax/cummin
    rng = np.random.default_rng(7)
    is_float = dt.startswith("float")
    cases = []
    for a in (_cum_rows(rng, 70), rng.standard_normal((3, 600))):
        if not is_float:
            a = np.nan_to_num(a, posinf=50, neginf=-50)
            a = np.abs(a * 20) if dt == "uint8" else np.clip(a * 20, -100, 100)
            a = np.trunc(a)
        for is_max in (True, False):
            cases.append({"data": a.tolist(), "dtype": dt, "t": False, "max": is_max, "dim": 1})
            cases.append({"data": a.T.copy().tolist(), "dtype": dt, "t": False, "max": is_max, "dim": 0})
            cases.append({"data": a.tolist(), "dtype": dt, "t": True, "max": is_max, "dim": 0})
            cases.append({"data": a.T.copy().tolist(), "dtype": dt, "t": True, "max": is_max, "dim": 1})
    want = run_oracle(_CUM_ORACLE, cases)
    mdt = getattr(minitorch, dt)
    for c, (wv, wi) in zip(cases, want):
        x = minitorch.tensor(np.array(c["data"])).to(mdt)
        x = x.t() if c["t"] else x
        r = (minitorch.cummax if c["max"] else minitorch.cummin)(x, c["dim"])
        np.testing.assert_array_equal(r.values.to(minitorch.float64).numpy(), np.array(wv))
        np.testing.assert_array_equal(r.indices.numpy(), np.array(wi))
        got_signs = np.signbit(r.values.to(minitorch.float64).numpy())
        np.testing.assert_array_equal(got_signs, np.signbit(np.array(wv)))  # which zero of a tie


def test_cummax_gradient_goes_to_the_latest_tie_and_errors(device):
    x = minitorch.tensor([1.0, 3.0, 3.0, 2.0, 5.0], dtype=F64, device=device, requires_grad=True)
    minitorch.cummax(x, 0).values.backward(
        minitorch.tensor([1.0, 10, 100, 1000, 10000], dtype=F64, device=device)
    )
    np.testing.assert_array_equal(x.grad.cpu().numpy(), [1, 10, 1100, 0, 10000])  # PyTorch's CummaxBackward0
    s = minitorch.tensor(2.5, dtype=F64, device=device, requires_grad=True)
    r = minitorch.cummin(s, -1)
    assert r.values.shape == () and r.indices.item() == 0
    r.values.backward()
    assert s.grad.item() == 1.0
    with pytest.raises(
        IndexError, match=re.escape("cummax(): Expected reduction dim -1 or 0 for scalar but got 1")
    ):
        minitorch.cummax(s, 1)
    with pytest.raises(IndexError, match=re.escape("expected to be in range of [-2, 1], but got 2")):
        minitorch.cummin(minitorch.ones(2, 3, device=device), 2)
    with pytest.raises(NotImplementedError, match="\"cummax_c[a-z]+\" not implemented for 'ComplexFloat'"):
        minitorch.cummax(minitorch.ones(3, dtype=minitorch.complex64, device=device), 0)
    with pytest.raises(
        TypeError, match=re.escape("cummax(): argument 'dim' (position 2) must be int, not float")
    ):
        minitorch.cummax(minitorch.ones(3), 0.5)


def test_logcumsumexp(device):
    a = rand((3, 50), 2, -300, 300)
    close(minitorch.logcumsumexp(t(a, F64, device), 1), np.logaddexp.accumulate(a, 1), rtol=1e-10)
    close(minitorch.logcumsumexp(t(a, F64, device).T, 0), np.logaddexp.accumulate(a, 1).T, rtol=1e-10)
    close(minitorch.logcumsumexp(t([-INF, -INF, 0.0], device=device), 0), [-INF, -INF, 0])
    assert gradcheck(lambda z: minitorch.logcumsumexp(z, 0), (dbl(rand((7,), 4)),))
    with pytest.raises(NotImplementedError, match="not implemented for 'Long'"):
        minitorch.logcumsumexp(t([1, 2]), 0)


def test_logcumsumexp_layouts(device):
    """A transposed input scanned along either dim: values against NumPy, PyTorch's contiguous result, the
    gradient through the transposed view; a length-1 dim and a 0-dim input give new tensors."""
    a = rand((6, 9), 5, -20, 20)
    xt = t(a.T.copy(), F64, device).T  # a's values, strides (1, 6)
    for d in (0, 1, -1):
        r = minitorch.logcumsumexp(xt, d)
        close(r, np.logaddexp.accumulate(a, d), rtol=1e-12)
        assert r.is_contiguous()
    g = dbl(rand((5, 4), 6)).detach().T.requires_grad_()
    assert gradcheck(lambda z: minitorch.logcumsumexp(z, 1), (g,))
    one = t([[0.5, 1.5]], F64, device)
    r = minitorch.logcumsumexp(one, 0)
    r.add_(1.0)
    close(one, [[0.5, 1.5]])
    s = minitorch.logcumsumexp(t(2.0, F64, device), 0)
    assert s.shape == () and s.item() == 2.0


@pytest.mark.parametrize("dtype", [F32, F64])
def test_logcumsumexp_kernel(dtype):
    """The CPU kernel (a running max and a sum of exps in double, the exps and logs in blocks through the vector
    table): every dim of a 3-D input, rows past the 256-element block and strips past the 512-column strip,
    transposed and empty inputs, against NumPy's float64 logaddexp.accumulate; PyTorch's infinities (-inf until a
    finite value, +inf from a +inf on) and NaN from the first NaN on, in each lane of a strip and each element of
    a row; the gradient against finite differences through both layouts, and its own gradient."""
    rng = np.random.default_rng(21)
    tol = {"rtol": 2e-7, "atol": 2e-7} if dtype == F32 else {"rtol": 1e-13, "atol": 1e-13}
    for shape in [(3, 5, 700), (2, 600, 3), (700, 2, 3)]:
        a = rng.uniform(-30, 30, shape)
        a[..., ::7] *= 20  # far below and above the running max
        x = minitorch.from_numpy(a.astype(np.float32 if dtype == F32 else np.float64))
        ref_in = x.double().numpy()
        for d in (0, 1, 2, -1):
            r = minitorch.logcumsumexp(x, d)
            assert r.dtype == dtype and r.is_contiguous()
            np.testing.assert_allclose(r.double().numpy(), np.logaddexp.accumulate(ref_in, d), **tol)
        xt = x.transpose(0, 2)  # strided: the kernel reads a contiguous copy
        np.testing.assert_array_equal(
            minitorch.logcumsumexp(xt, 0).numpy(), minitorch.logcumsumexp(x, 2).numpy().transpose(2, 1, 0)
        )
    # special values along a row and down the columns of a strip (each column its own pattern)
    rows = np.array(
        [
            [-INF, -INF, 1.0, -INF, 2.0, 0.5],
            [-INF, INF, 3.0, INF, -INF, 1.0],
            [1.0, NAN, 2.0, 50.0, -INF, INF],
            [INF, INF, -INF, INF, 1.0, 2.0],
            [-INF, -INF, -INF, -INF, -INF, -INF],
            [5.0, -1e300, 5.0, 1e300, -1e300, 0.0],
        ]
    )
    with np.errstate(invalid="ignore", over="ignore"):
        want = np.logaddexp.accumulate(rows.astype(np.float32 if dtype == F32 else np.float64), 1)
    for got in (
        minitorch.logcumsumexp(t(rows, dtype), 1).numpy(),
        minitorch.logcumsumexp(t(rows.T.copy(), dtype), 0).numpy().T,
    ):
        np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=0)
    for shape, d in [((0, 4), 0), ((0, 4), 1), ((3, 0), 1), ((3, 0, 2), 0)]:
        e = minitorch.logcumsumexp(minitorch.empty(*shape, dtype=dtype), d)
        assert e.shape == shape and e.dtype == dtype
    if dtype == F64:
        for shape, d in [((6, 5), 1), ((4, 3, 5), 1), ((4, 3), 0)]:
            g = dbl(rand(shape, 8, -4, 4))
            assert gradcheck(lambda z, d=d: minitorch.logcumsumexp(z, d), (g,))
            assert gradcheck(lambda z, d=d: minitorch.logcumsumexp(z.T, d % 2), (dbl(rand((5, 6), 9)),))
        assert gradgradcheck(lambda z: minitorch.logcumsumexp(z, 1), (dbl(rand((3, 5), 10)),))
        h = dbl(rand((2, 4), 11))
        assert type(minitorch.logcumsumexp(h, 1).grad_fn).__name__ == "LogcumsumexpBackward0"


@pytest.mark.parametrize("cap", ["avx2", "default"])
def test_logcumsumexp_kernel_other_capabilities(cap):
    """the kernel's exps and logs through the AVX2 table and the scalar functions, in a fresh process"""
    rerun_in_child(__file__, "test_logcumsumexp_kernel and not other", MINITORCH_CPU_CAPABILITY=cap)


def test_logcumsumexp_complex(device):
    # the left-to-right scan of complex logaddexp, as PyTorch's: exp of each result is the running sum of exp,
    # and the imaginary parts take the scan's branch (PyTorch 2.15's values at the second row's 2-pi steps)
    rng = np.random.default_rng(1)
    z = rng.uniform(-3, 3, (4, 37)) + 1j * rng.uniform(-6, 6, (4, 37))
    z[0, 5] = complex(-INF, 0)
    r = minitorch.logcumsumexp(minitorch.tensor(z, device=device), 1).cpu().numpy()
    np.testing.assert_allclose(np.exp(r), np.cumsum(np.exp(z), 1), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(r[0, :3], [0.07092975 + 0.30755428j, 2.69141358 - 4.2828954j,
                                          2.68413376 - 4.28631761j], rtol=1e-7)  # fmt: skip
    want_imag = np.angle(np.cumsum(np.exp(z), 1))  # the principal value, then each step's 2-pi jumps
    steps = np.round((r.imag - want_imag) / (2 * np.pi))
    assert np.allclose(r.imag, want_imag + 2 * np.pi * steps, atol=1e-9)
    # PyTorch 2.15's values where a doubling scan takes another 2-pi branch
    np.testing.assert_allclose(
        [r[0, 35], r[3, 33]],
        [2.9691274405919446 + 5.078779377040733j, 1.563215721726917 + 4.3837585021612275j],
        rtol=1e-12,
    )
    x = minitorch.tensor(z[1, :6] / 3, device=device, requires_grad=True)
    assert gradcheck(lambda v: minitorch.logcumsumexp(v, 0).abs(), (x,))
    one = minitorch.logcumsumexp(minitorch.tensor([1 + 2j], device=device), 0)
    assert one.dtype == minitorch.complex64 and one.item() == 1 + 2j


def test_trapezoid(device):
    y, xs = rand((3, 6), 0), np.cumsum(rand((6,), 1, 0.1, 1))
    Y = t(y, F64, device)
    close(minitorch.trapezoid(Y), np.trapezoid(y) if hasattr(np, "trapezoid") else np.trapz(y))
    close(minitorch.trapezoid(Y, dx=0.5, dim=0), 0.5 * (y[1:] + y[:-1]).sum(0) / 2)
    close(minitorch.trapezoid(Y, t(xs, F64, device)), ((y[:, 1:] + y[:, :-1]) / 2 * np.diff(xs)).sum(1))
    close(minitorch.trapz(Y, dx=2.0), 2 * ((y[:, 1:] + y[:, :-1]) / 2).sum(1))
    close(minitorch.cumulative_trapezoid(Y), np.cumsum((y[:, 1:] + y[:, :-1]) / 2, 1))
    assert minitorch.trapezoid(t([1, 2, 3])).dtype == F32
    assert gradcheck(lambda z: minitorch.trapezoid(z), (dbl(y),))
    assert gradcheck(lambda z, w: minitorch.cumulative_trapezoid(z, w), (dbl(y), dbl(xs)))


@pytest.mark.parametrize("n", [0, 1, 3])
def test_trapezoid_dtypes_follow_pytorch_formulas(device, n):
    # PyTorch's ATen formulas fix the result dtype: with sample points, promote(x, y) then / 2 (floating); with a
    # constant spacing, y's own arithmetic; empty operands go through the same formulas (once float16 came back
    # for a float32 x), and trapezoid of nothing is zeros of y's dtype
    pairs = [
        (F16, F32),
        (F32, F16),
        (minitorch.int64, F16),
        (minitorch.bfloat16, F16),
        (F16, minitorch.int64),
    ]
    for yd, xd in pairs:
        y = minitorch.ones(n, dtype=yd, device=device)
        x = minitorch.arange(n, device=device).to(xd)
        want = minitorch.promote_types(yd, xd)
        want = want if want.is_floating_point else F32
        assert minitorch.cumulative_trapezoid(y, x).dtype == want, (yd, xd)
        assert minitorch.cumulative_trapezoid(y, x).shape == (max(n - 1, 0),)
        assert minitorch.trapezoid(y, x).dtype == (yd if n == 0 else want), (yd, xd)
        assert minitorch.cumulative_trapezoid(y, dx=2).dtype == (yd if yd.is_floating_point else F32)
    with pytest.raises(IndexError, match="slice\\(\\) cannot be applied to a 0-dim tensor"):
        minitorch.cumulative_trapezoid(minitorch.tensor(1.0, device=device))
    with pytest.raises(IndexError, match="Dimension specified as -1 but tensor has no dimensions"):
        minitorch.trapezoid(minitorch.tensor(True, device=device))
    with pytest.raises(NotImplementedError, match="received a bool input for `x` or `y`"):
        minitorch.cumulative_trapezoid(
            minitorch.ones(3, device=device), minitorch.ones(3, dtype=minitorch.bool)
        )


# ------------------------------------------------------------------------------------------ statistics


@pytest.mark.parametrize("interpolation", ["linear", "lower", "higher", "midpoint", "nearest"])
def test_quantile_against_numpy(device, interpolation):
    a = rand((4, 7, 5), 3)
    q = np.array([0.0, 0.25, 0.5, 0.9, 1.0])
    X = t(a, F64, device)
    got = minitorch.quantile(X, t(q, F64, device), dim=1, interpolation=interpolation)
    close(got, np.quantile(a, q, axis=1, method=interpolation), rtol=1e-10)
    close(
        minitorch.quantile(X.transpose(0, 2), 0.3, interpolation=interpolation),
        np.quantile(a, 0.3, method=interpolation),
    )
    a[1, 2, 3] = np.nan
    X = t(a, F64, device)
    close(minitorch.quantile(X, 0.5, dim=2, keepdim=True), np.quantile(a, 0.5, axis=2, keepdims=True))
    close(
        minitorch.nanquantile(X, t(q, F64, device), dim=2, interpolation=interpolation),
        np.nanquantile(a, q, axis=2, method=interpolation),
        rtol=1e-10,
    )


def test_quantile_shapes_errors_grad():
    x = t(rand((3, 4)), F32)
    assert minitorch.quantile(x, 0.5).shape == ()
    assert minitorch.quantile(x, 0.5, keepdim=True).shape == (1, 1)
    assert minitorch.quantile(x, t([0.2, 0.7]), keepdim=True).shape == (2, 1, 1)
    assert minitorch.nanquantile(t([NAN, NAN]), 0.5).isnan().item()
    with pytest.raises(
        RuntimeError, match="quantile\\(\\) input tensor must be either float or double dtype"
    ):
        minitorch.quantile(t([1, 2]), 0.5)
    with pytest.raises(RuntimeError, match="quantile\\(\\) q must be in the range \\[0, 1\\] but got 1.5"):
        minitorch.quantile(x, 1.5)
    with pytest.raises(RuntimeError, match="q tensor must be same dtype as the input tensor"):
        minitorch.quantile(x, t([0.5], F64))
    assert gradcheck(lambda z: minitorch.quantile(z, t([0.3, 0.8], F64), dim=0), (dbl(rand((5, 3), 8)),))


def test_nanmedian(device):
    a = rand((4, 6), 5)
    a[0, 1], a[2, :] = np.nan, np.nan
    X = t(a, F64, device)
    r = minitorch.nanmedian(X[:2], 1)
    assert isinstance(r, minitorch.return_types.nanmedian)
    for row in range(2):
        vals = np.sort(a[row][~np.isnan(a[row])])
        want = vals[(len(vals) - 1) // 2]
        assert r.values[row].item() == want and a[row, r.indices[row].item()] == want
    assert math.isnan(minitorch.nanmedian(X, 1).values[2].item())
    finite = np.sort(a[~np.isnan(a)])
    assert minitorch.nanmedian(X).item() == finite[(len(finite) - 1) // 2]
    assert minitorch.nanmedian(X.T, 0, keepdim=True).values.shape == (1, 4)


def test_nanmedian_refuses_bad_dims_and_bool(device):
    # a dim out of range was wrapped silently (nanmedian(2) of a 1-d tensor gave the whole median; fuzz seed 2201)
    x = t(rand((4,), 3), F64, device)
    for dim in (2, -2):
        with pytest.raises(IndexError, match="Dimension out of range"):
            x.nanmedian(dim)
    assert x.nanmedian(-1).values.item() == x.nanmedian().item()
    for bad in (True, x, "0"):
        with pytest.raises(TypeError, match="argument 'dim'"):
            minitorch.nanmedian(x, bad)
    with pytest.raises(NotImplementedError, match="not implemented for 'Bool'"):
        minitorch.tensor([True, False], device=device).nanmedian()


def test_nanmedian_of_an_empty_tensor(device):
    # NaN that stays a function of the input: its gradient is the empty tensor (issue 34)
    for shape in ((0,), (0, 3), (5, 0, 4)):
        x = minitorch.zeros(shape, dtype=F64, device=device, requires_grad=True)
        r = x.nanmedian()
        assert r.shape == () and math.isnan(r.item()) and r.requires_grad
        (g,) = minitorch.autograd.grad(r, x)
        assert g.shape == x.shape
    assert minitorch.zeros(0, 2, device=device).t().nanmedian().isnan().item()
    for dt in (F32, minitorch.float16, minitorch.bfloat16):
        r = minitorch.tensor([], dtype=dt, device=device).nanmedian()
        assert r.dtype == dt and math.isnan(r.item()) and not r.requires_grad
    # integer types receive PyTorch's NaN cast as x86 performs it
    want = {minitorch.int64: -(2**63), minitorch.int32: -(2**31), minitorch.int16: 0, minitorch.uint8: 0}
    for dt, v in want.items():
        r = minitorch.tensor([], dtype=dt, device=device).nanmedian()
        assert r.dtype == dt and r.item() == v


def test_histc_bincount(device):
    a = rand((200,), 6)
    X = t(a, F32, device)
    close(
        minitorch.histc(X, bins=7),
        np.histogram(a.astype(np.float32), 7, (a.astype(np.float32).min(), a.astype(np.float32).max()))[0],
    )
    close(minitorch.histc(X, bins=4, min=-1, max=1), np.histogram(a, 4, (-1, 1))[0])
    with pytest.raises(NotImplementedError, match="\"histogram_cpu\" not implemented for 'Long'"):
        minitorch.histc(t([1, 2]))
    b = np.random.default_rng(0).integers(0, 50, 300)
    B = t(b, device=device)
    r = minitorch.bincount(B)
    assert r.dtype == I64
    np.testing.assert_array_equal(r.cpu().numpy(), np.bincount(b))
    np.testing.assert_array_equal(
        minitorch.bincount(B, minlength=80).cpu().numpy(), np.bincount(b, minlength=80)
    )
    w = rand((300,), 7)
    rw = minitorch.bincount(B, t(w, F32, device))
    assert rw.dtype == F32
    close(rw, np.bincount(b, w), rtol=1e-4, atol=1e-4)
    assert minitorch.bincount(B, t(b, device=device)).dtype == F64
    assert minitorch.bincount(t([], I64), minlength=3).tolist() == [0, 0, 0]
    with pytest.raises(RuntimeError, match="bincount only supports 1-d non-negative integral inputs."):
        minitorch.bincount(t([-1, 2]))
    with pytest.raises(NotImplementedError, match="\"bincount_cpu\" not implemented for 'Float'"):
        minitorch.bincount(t([1.0]))


# ------------------------------------------------------------------------------------------ search, sets


@pytest.mark.parametrize("right", [False, True])
@pytest.mark.parametrize("n", [40, 5000])  # compare-and-sum and sort-merge paths
def test_searchsorted_bucketize(device, right, n):
    rng = np.random.default_rng(n)
    seq = np.sort(rng.integers(0, n // 2, n)).astype(np.float64)
    vals = rng.integers(-2, n // 2 + 2, (3, n)).astype(np.float64)
    side = "right" if right else "left"
    S, V = t(seq, F64, device), t(vals, F64, device)
    r = minitorch.searchsorted(S, V, right=right)
    assert r.dtype == I64
    np.testing.assert_array_equal(r.cpu().numpy(), np.searchsorted(seq, vals, side=side))
    np.testing.assert_array_equal(
        minitorch.searchsorted(S, V.T, side=side).cpu().numpy(), np.searchsorted(seq, vals.T, side=side)
    )
    np.testing.assert_array_equal(
        minitorch.bucketize(V, S, right=right).cpu().numpy(), np.searchsorted(seq, vals, side=side)
    )
    # batched boundaries (one row per row of values), int boundaries against float values, int32 output
    rows = np.sort(vals, 1)
    rb = minitorch.searchsorted(t(rows, F64, device), V, right=right, out_int32=True)
    assert rb.dtype == minitorch.int32
    for i in range(3):
        np.testing.assert_array_equal(rb[i].cpu().numpy(), np.searchsorted(rows[i], vals[i], side=side))
    ri = minitorch.searchsorted(t(seq.astype(np.int64), device=device), V, right=right)
    np.testing.assert_array_equal(ri.cpu().numpy(), np.searchsorted(seq, vals, side=side))


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "int32", "int64"])
def test_searchsorted_kernel_layouts_and_dtypes(device, dtype):
    # the CPU's binary-search kernel (other devices compose): batched and shared sequences, strided operands
    rng = np.random.default_rng(7)
    dt = getattr(minitorch, dtype)
    rows = np.sort(rng.integers(0, 20, (4, 33)), 1).astype(np.float64)  # ties, and values off both ends
    vals = rng.integers(-3, 24, (4, 17)).astype(np.float64)
    S, V = t(rows, F64, device).to(dt), t(vals, F64, device).to(dt)
    for right in (False, True):
        side = "right" if right else "left"
        want = np.stack([np.searchsorted(rows[i], vals[i], side=side) for i in range(4)])
        np.testing.assert_array_equal(minitorch.searchsorted(S, V, right=right).cpu().numpy(), want)
        # transposed-and-back (non-contiguous) operands and a strided 1-d sequence
        St, Vt = S.T.contiguous().T, V.T.contiguous().T
        assert not St.is_contiguous() and not Vt.is_contiguous()
        np.testing.assert_array_equal(minitorch.searchsorted(St, Vt, right=right).cpu().numpy(), want)
        np.testing.assert_array_equal(
            minitorch.searchsorted(S[1, ::2], V, right=right).cpu().numpy(),
            np.searchsorted(rows[1, ::2], vals, side=side),
        )
    # empty sequences and empty values
    assert minitorch.searchsorted(minitorch.zeros(2, 0, dtype=dt), V[:2]).tolist() == [[0] * 17] * 2
    assert minitorch.searchsorted(S, V[:, :0]).shape == (4, 0)


def test_searchsorted_nan_as_pytorch():
    # PyTorch's negated comparisons: a NaN value lands past the end, a NaN boundary counts as below every value
    nan = float("nan")
    s = t([1.0, 2.0, nan])
    v = t([5.0, nan, 0.5, 2.0])
    assert minitorch.searchsorted(s, v).tolist() == [3, 3, 0, 1]
    assert minitorch.searchsorted(s, v, right=True).tolist() == [3, 3, 0, 3]


def test_searchsorted_scalar_sorter_errors():
    s = t([1.0, 2.0, 2.0, 5.0])
    assert minitorch.searchsorted(s, 2).item() == 1 and minitorch.searchsorted(s, 2, right=True).item() == 3
    assert minitorch.bucketize(2.5, s).shape == ()
    perm = t([3, 0, 2, 1])
    unsorted = t([5.0, 1.0, 2.0, 2.0])
    assert minitorch.searchsorted(unsorted, t([2.5]), sorter=t([1, 2, 3, 0])).tolist() == [3]
    del perm
    with pytest.raises(RuntimeError, match="side and right can't be set to opposites"):
        minitorch.searchsorted(s, t([1.0]), right=True, side="left")
    with pytest.raises(
        RuntimeError, match="boundaries tensor should be 1 dimension or the first N-1 dimensions"
    ):
        minitorch.searchsorted(t([[1.0, 2.0]]), t([2.5]))
    assert minitorch.searchsorted(s, minitorch.zeros(0)).shape == (0,)


def test_isin(device):
    rng = np.random.default_rng(2)
    for n, m in [(20, 5), (3000, 500)]:  # broadcast compare and sort paths
        e, te = rng.integers(0, 1000, (n // 4, 4)), rng.integers(0, 1000, m)
        E, TE = t(e, device=device), t(te, device=device)
        np.testing.assert_array_equal(minitorch.isin(E, TE).cpu().numpy(), np.isin(e, te))
        np.testing.assert_array_equal(minitorch.isin(E.T, TE, invert=True).cpu().numpy(), ~np.isin(e.T, te))
    assert minitorch.isin(t([1, 2, 3]), 2).tolist() == [False, True, False]
    assert minitorch.isin(2, t([1, 2])).item() is True
    assert minitorch.isin(t([1, 2]), t([1.0, 2.5])).tolist() == [True, False]
    assert minitorch.isin(t([1, 2]), t([], I64)).tolist() == [False, False]


def test_unique(device):
    rng = np.random.default_rng(3)
    a = rng.integers(-5, 6, (4, 7))
    X = t(a, device=device)
    u, inv, cnt = minitorch.unique(X.T, return_inverse=True, return_counts=True)
    wu, winv, wcnt = np.unique(a.T, return_inverse=True, return_counts=True)
    np.testing.assert_array_equal(u.cpu().numpy(), wu)
    np.testing.assert_array_equal(inv.cpu().numpy(), winv.reshape(a.T.shape))
    np.testing.assert_array_equal(cnt.cpu().numpy(), wcnt)
    assert X.unique().tolist() == wu.tolist()
    f = rand((30,), 4).round()
    np.testing.assert_array_equal(minitorch.unique(t(f, F32, device)).cpu().numpy(), np.unique(f))
    e = minitorch.unique(minitorch.zeros(0), return_inverse=True, return_counts=True)
    assert [x.shape for x in e] == [(0,), (0,), (0,)]
    rows = np.array([[1, 2], [0, 5], [1, 2], [0, 1]])
    ud, di, dc = minitorch.unique(t(rows, device=device), dim=0, return_inverse=True, return_counts=True)
    wu, wi, wc = np.unique(rows, axis=0, return_inverse=True, return_counts=True)
    assert ud.tolist() == wu.tolist() and di.tolist() == wi.ravel().tolist() and dc.tolist() == wc.tolist()
    assert minitorch.unique(t(rows.T, device=device), dim=1).tolist() == np.unique(rows.T, axis=1).tolist()


def test_unique_consecutive(device):
    x = t([3, 3, 1, 3, 2, 2], device=device)
    v, i, c = minitorch.unique_consecutive(x, return_inverse=True, return_counts=True)
    assert v.tolist() == [3, 1, 3, 2] and i.tolist() == [0, 0, 1, 2, 3, 3] and c.tolist() == [2, 1, 1, 2]
    rows = t([[1, 2], [1, 2], [0, 1], [1, 2]], device=device)
    v, c = minitorch.unique_consecutive(rows, dim=0, return_counts=True)
    assert v.tolist() == [[1, 2], [0, 1], [1, 2]] and c.tolist() == [2, 1, 1]


@pytest.mark.parametrize("flags", [(False, False), (False, True), (True, False), (True, True)])
def test_unique_consecutive_runs_against_numpy(device, flags):
    # each flag combination builds only what it returns: values, inverse and counts checked one by one
    # against runs found by NumPy (NaN is a run of its own each time, as PyTorch's != test; strided input)
    inv, cnt = flags
    rng = np.random.default_rng(3)
    a = np.repeat(rng.integers(0, 4, 300).astype(np.float64), rng.integers(1, 5, 300))
    a[[5, 6, 40]] = np.nan
    starts = np.flatnonzero(np.r_[True, ~(a[1:] == a[:-1])])
    want_counts = np.diff(np.r_[starts, a.size])
    x = t(np.stack([a, a]), device=device)[0]
    for inp in (x, t(np.stack([a, -a]).T.copy(), device=device)[:, 0]):
        assert not inp.is_contiguous() or inp is x
        out = minitorch.unique_consecutive(inp, return_inverse=inv, return_counts=cnt)
        out = out if isinstance(out, tuple) else (out,)
        np.testing.assert_array_equal(out[0].cpu().numpy(), a[starts])
        if inv:
            np.testing.assert_array_equal(
                out[1].cpu().numpy(), np.repeat(np.arange(starts.size), want_counts)
            )
        if cnt:
            assert out[-1].dtype == minitorch.int64
            np.testing.assert_array_equal(out[-1].cpu().numpy(), want_counts)
    one = minitorch.unique_consecutive(t([7.0], device=device), return_inverse=inv, return_counts=True)
    assert one[0].tolist() == [7.0] and one[-1].tolist() == [1]


@pytest.mark.parametrize(
    "dtype", [*ALL_DTYPES, minitorch.complex64, minitorch.complex128], ids=lambda d: str(d).split(".")[-1]
)
def test_unique_consecutive_values_every_dtype(device, dtype):
    # the values-only call (inlined: flat view, ne, cat, compaction) over 2-D, transposed and empty inputs,
    # against NumPy's runs; a leaf requiring grad takes the general path and gives the same values
    if dtype.is_complex and device != "cpu":
        pytest.skip("complex kernels are CPU-only")
    rng = np.random.default_rng(5)
    a = np.repeat(rng.integers(0, 3, 40), rng.integers(1, 4, 40))[:60].reshape(6, 10)
    if dtype == minitorch.bool:
        a = a > 0
    if dtype.is_complex:
        a = a + 1j * (a % 2)
    x = minitorch.tensor(a, dtype=dtype, device=device)

    def host(v):  # NumPy has no bfloat16: its values (small integers) compared as float32
        v = v.detach().cpu()
        return (v.float() if v.dtype == minitorch.bfloat16 else v).numpy()

    def runs(v):
        v = v.ravel()
        return v[np.r_[True, v[1:] != v[:-1]]]

    got = minitorch.unique_consecutive(x)
    assert got.dtype == dtype
    np.testing.assert_array_equal(host(got), runs(a))
    np.testing.assert_array_equal(host(minitorch.unique_consecutive(x.t())), runs(a.T))
    assert minitorch.unique_consecutive(x[:0]).shape == (0,)
    np.testing.assert_array_equal(host(minitorch.unique_consecutive(x[0, :1])), a[0, :1])
    if dtype.is_floating_point or dtype.is_complex:
        leaf = x.detach().clone().requires_grad_(True)
        v = minitorch.unique_consecutive(leaf)
        assert not v.requires_grad
        np.testing.assert_array_equal(host(v), runs(a))


def test_unique_consecutive_values_signed_zeros_nan_and_0d(device):
    # PyTorch's != test: -0.0 and 0.0 are one run (its first element kept, sign and all), each NaN a run of its
    # own; a 0-d input gives one value
    got = minitorch.unique_consecutive(t([-0.0, 0.0, math.nan, math.nan, 1.0, 1.0], device=device)).cpu()
    assert got.shape == (4,) and math.copysign(1.0, got[0].item()) == -1.0
    assert got[1:3].isnan().all().item() and got[3].item() == 1.0
    zero_d = minitorch.unique_consecutive(minitorch.tensor(5.0, device=device))
    assert zero_d.shape == (1,) and zero_d.tolist() == [5.0]


# ------------------------------------------------------------------------------------------ cdist


@pytest.mark.parametrize("p", [0.0, 1.0, 2.0, 3.0, math.inf])
def test_cdist_against_numpy(device, p):
    a, b = rand((2, 30, 4), 0), rand((2, 27, 4), 1)  # > 25 rows: p=2 takes the matmul route
    d = a[:, :, None, :] - b[:, None, :, :]
    if p == 0:
        want = (d != 0).sum(-1)
    elif p == math.inf:
        want = np.abs(d).max(-1)
    else:
        want = (np.abs(d) ** p).sum(-1) ** (1 / p)
    close(minitorch.cdist(t(a, F64, device), t(b, F64, device), p=p), want, rtol=1e-8, atol=1e-8)
    close(
        minitorch.cdist(t(a[0], F32, device), t(b[0, :5], F32, device), p=p),
        want[0, :, :5],
        rtol=1e-4,
        atol=1e-4,
    )


def test_cdist_errors_and_grad():
    x = t(rand((3, 2)))
    with pytest.raises(RuntimeError, match="cdist only supports floating-point dtypes, X1 got: Long"):
        minitorch.cdist(t([[1, 2]]), x)
    with pytest.raises(RuntimeError, match="cdist only supports at least 2D tensors, X1 got: 1D"):
        minitorch.cdist(t([1.0, 2.0]), x)
    with pytest.raises(RuntimeError, match="X1 and X2 must have the same number of columns. X1: 2 X2: 3"):
        minitorch.cdist(x, minitorch.ones(2, 3))
    with pytest.raises(RuntimeError, match="cdist only supports non-negative p values"):
        minitorch.cdist(x, x, p=-1)
    a, b = rand((4, 3), 2), rand((5, 3), 3)
    assert gradcheck(lambda u, v: minitorch.cdist(u, v), (dbl(a), dbl(b)))
    assert gradcheck(lambda u, v: minitorch.cdist(u, v, p=3), (dbl(a), dbl(b)))
    assert gradcheck(
        lambda u, v: minitorch.cdist(u, v, compute_mode="use_mm_for_euclid_dist"), (dbl(a), dbl(b))
    )


# ------------------------------------------------------------------ found by the differential fuzzer (issue 34)


@pytest.mark.parametrize(
    "a, b, want",
    [
        ((1.5, F16), (True, None), F16),  # a bool other does not widen
        ((1.5, minitorch.bfloat16), (False, None), minitorch.bfloat16),
        ((2, I64), (-1.5, F16), F16),  # an integer input takes the float other's dtype
        ((2, I64), (3, I64), F32),
        ((1.5, F16), (-2.0, "0-dim"), F16),  # a 0-dim float32 tensor does not widen float16
    ],
)
def test_copysign_result_dtype(a, b, want):
    x = t([a[0]], a[1])
    y = t(b[0]) if b[1] == "0-dim" else t([b[0]], b[1])
    r = minitorch.copysign(x, y)
    assert r.dtype == want
    np.testing.assert_array_equal(r.double().numpy(), np.copysign(float(a[0]), float(b[0])).reshape(1))


@pytest.mark.parametrize("dtype", [F16, minitorch.bfloat16, F32, F64])
def test_copysign_by_a_number(dtype):
    """copysign(x, number), the binary row taking the number itself: the tensor's dtype kept, each number's sign
    (-0.0 negative, NaN positive), the same values as through a 0-dim tensor, the gradient of x"""
    a = np.array([1.5, -2.0, 0.0, -0.0, INF, -INF, NAN], np.float32)
    x = t(a, dtype)
    for c in (-1.0, 2, -0.0, 0, NAN, -3):
        r = minitorch.copysign(x, c)
        assert r.dtype == dtype
        want = np.copysign(np.abs(a), np.copysign(1.0, c))
        np.testing.assert_array_equal(r.double().numpy(), want)
        np.testing.assert_array_equal(np.signbit(r.double().numpy()), np.signbit(want))
    assert gradcheck(lambda z: minitorch.copysign(z, -1.5), (dbl(rand((5,), 12)),))
    assert gradcheck(lambda z: minitorch.copysign(z, 2), (dbl(rand((5,), 13)),))


def test_ldexp_dtype_exactness_and_errors():
    # result_type(input, other), integers to the default float dtype
    assert minitorch.ldexp(t([True]), t([-1.0], minitorch.bfloat16)).dtype == minitorch.bfloat16
    assert minitorch.ldexp(t([2]), t([1.0], F16)).dtype == F16
    assert minitorch.ldexp(t([1.5], F16), t([2])).dtype == F16
    assert minitorch.ldexp(t([1.5], F16), t(2.0)).dtype == F16
    # a float input times 2**k for an integer k is exact, as C's ldexp: no overflow of 2**k on the way
    r = minitorch.ldexp(t([0.0, 1e-30, 3.0]), t([2000, 150, -2000]))
    np.testing.assert_array_equal(r.numpy(), np.ldexp(np.float32([0.0, 1e-30, 3.0]), [2000, 150, -2000]))
    r = minitorch.ldexp(t([1e-30], F64), t([150], minitorch.int32))
    assert r.dtype == F64 and r.item() == math.ldexp(1e-30, 150)
    assert minitorch.ldexp(t([1e-4], F16), t([17])).item() == float(np.ldexp(np.float16(1e-4), 17))
    # a float exponent: 2**other in the result dtype (a 0-dim float32 other with a float64 input in float64)
    x = t([2.0, 3.0], F64)
    minitorch.ldexp_(x, t(-0.36333100029549215))
    w = float(np.float32(-0.36333100029549215))
    np.testing.assert_allclose(x.numpy(), [2.0 * 2.0**w, 3.0 * 2.0**w], rtol=1e-15)
    assert gradcheck(minitorch.ldexp, (dbl([0.5, -1.5]), t([3, -2])))
    with pytest.raises(NotImplementedError, match="\"ldexp_cpu_exp\" not implemented for 'Bool'"):
        minitorch.ldexp(t([1.0]), t([True]))
    with pytest.raises(
        TypeError, match=r"ldexp\(\): argument 'other' \(position 2\) must be Tensor, not int"
    ):
        minitorch.ldexp(t([1.0]), 3)
    with pytest.raises(TypeError, match=r"argument 'input' \(position 1\) must be Tensor, not float"):
        minitorch.ldexp(2.0, t([1.0]))


@pytest.mark.parametrize("dtype", [minitorch.int8, minitorch.int16, minitorch.int32, minitorch.uint8])
def test_shift_by_a_python_int_keeps_the_tensor_dtype(dtype):
    for x in (t(5, dtype), t([5, 3], dtype)):
        left, right = x.bitwise_left_shift(2), minitorch.bitwise_right_shift(x, 1)
        assert left.dtype == dtype and right.dtype == dtype and (x << 1).dtype == dtype
        np.testing.assert_array_equal(left.numpy(), np.left_shift(x.numpy(), 2))
        np.testing.assert_array_equal(right.numpy(), np.right_shift(x.numpy(), 1))
    # a tensor operand still promotes
    assert minitorch.bitwise_left_shift(t([3], dtype), t([1], I64)).dtype == I64


def test_cdist_pdist_zero_norm_counts_like_pytorch():
    # p=0 counts the nonzero differences as PyTorch's kernel does, min(ceil(|d|), 1): NaN gives NaN, inf counts
    a = t([[NAN, 3.0, -1.0], [INF, 0.0, 2.0], [1.0, 0.0, 0.0]], F64)
    b = t([[0.0, 3.0, 0.0], [1.0, 0.0, 0.0]], F64)
    want = np.array([[np.nan, np.nan], [3.0, 2.0], [2.0, 0.0]])
    np.testing.assert_array_equal(minitorch.cdist(a, b, 0).numpy(), want)
    np.testing.assert_array_equal(minitorch.pdist(a, 0).numpy(), [np.nan, np.nan, 2.0])
    # the count is attached to the graph with a zero gradient (PyTorch's), not cut off from it
    x1, x2 = dbl(rand((3, 2), 4)), dbl(rand((2, 2), 5))
    minitorch.cdist(x1, x2, 0).sum().backward()
    assert x1.grad.tolist() == [[0.0, 0.0]] * 3 and x2.grad.tolist() == [[0.0, 0.0]] * 2
    # pdist of one row: no pairs, and a zero gradient
    x = dbl([[1.0, -2.0, 0.5]])
    r = minitorch.pdist(x, 3)
    assert tuple(r.shape) == (0,) and r.requires_grad
    r.sum().backward()
    assert x.grad.tolist() == [[0.0, 0.0, 0.0]]


@pytest.mark.parametrize("dtype", [F16, minitorch.bfloat16, F32, F64])
def test_signbit_reads_the_sign_bit_of_nan(dtype):
    vals = np.array([np.nan, -np.nan, 1.0, -0.0, 0.0, -2.0, -np.inf], dtype=np.float32)
    x = t(vals.tolist(), F32).to(dtype)
    want = np.signbit(x.float().numpy())  # the sign bits as stored (a NaN's included)
    assert want[1] and want[3]
    np.testing.assert_array_equal(minitorch.signbit(x).numpy(), want)
    np.testing.assert_array_equal(minitorch.signbit(x[::2]).numpy(), want[::2])


def test_addcmul_addcdiv_compute_in_the_common_dtype():
    # an int32 tensor1 and a float32 tensor2 with a float64 input: the product/quotient is a float64 one
    x, a, b = t([-0.0022606727614462585], F64), t([3], minitorch.int32), t([1.0919025531892963], F32)
    b64 = float(np.float32(1.0919025531892963))
    assert minitorch.addcdiv(x, a, b, value=0.5).item() == -0.0022606727614462585 + 0.5 * (3 / b64)
    assert minitorch.addcmul(x, a, b, value=0.5).item() == -0.0022606727614462585 + 0.5 * (3 * b64)
    # 0-dim operands do not widen a dimensioned float one; a 0-dim float does widen integers
    r = minitorch.addcmul(t([1.0], F16), t(2.0, F32), t(3.0, F64))
    assert r.dtype == F16 and r.tolist() == [7.0]
    r = minitorch.addcdiv(t(1.0, F32), t(2.0, F64), t([4], minitorch.int32))
    assert r.dtype == F64 and r.tolist() == [1.5]
    assert gradcheck(lambda u, v: minitorch.addcdiv(u, v, t([2], minitorch.int32)), (dbl([0.5]), dbl([1.5])))


def test_histc_half_precision_bins_as_pytorch():
    """PyTorch's linear interpolation with each step rounded in the input's dtype ((x - min) * bins / (max -
    min), truncated), and counts kept in float: a bfloat16 count goes past 256"""
    rng = np.random.default_rng(11)
    for bins, lo, hi in ((10, 0, 0), (100, 0, 0), (7, -1.3, 1.7), (333, 0, 0)):
        v = rng.standard_normal(400).astype(np.float16)
        got = minitorch.histc(minitorch.tensor(v), bins, lo, hi)
        lo16, hi16 = (v.min(), v.max()) if lo == hi else (np.float16(lo), np.float16(hi))
        inside = (v >= lo16) & (v <= hi16)
        pos = ((v - lo16) * np.float16(bins) / np.float16(hi16 - lo16)).astype(np.int64)
        want = np.bincount(np.clip(pos[inside], 0, bins - 1), minlength=bins).astype(np.float16)
        assert got.dtype == minitorch.float16
        np.testing.assert_array_equal(got.numpy(), want)
    ones = minitorch.ones(300, dtype=minitorch.bfloat16)
    assert minitorch.histc(ones, 1).item() == 300.0


def test_searchsorted_and_renorm_refuse_what_pytorch_refuses(device):
    # fuzz seed 2201: a bool sequence, 0-d sequences and out-of-range renorm dims were accepted
    with pytest.raises(NotImplementedError, match="\"searchsorted_out_cpu\" not implemented for 'Bool'"):
        minitorch.searchsorted(minitorch.tensor([False, True]), minitorch.tensor([True]))
    with pytest.raises(
        RuntimeError, match=r"input value can be a scalar only when boundaries tensor dimension is 1"
    ):
        minitorch.searchsorted(
            minitorch.tensor([[1.0, 2.0]], device=device), minitorch.tensor(0.5, device=device)
        )
    with pytest.raises(
        RuntimeError, match="boundaries tensor should have positive dimension, but got 0 dimension"
    ):
        minitorch.searchsorted(minitorch.tensor(1.0, device=device), minitorch.tensor([0.5], device=device))
    # what stays allowed: a 0-d value into a 1-d sequence, bool values into a numeric sequence
    assert (
        minitorch.searchsorted(
            minitorch.tensor([1.0, 2.0], device=device), minitorch.tensor(1.5, device=device)
        ).item()
        == 1
    )
    assert minitorch.searchsorted(minitorch.tensor([0, 1, 2]), minitorch.tensor([True])).tolist() == [1]
    x = minitorch.ones(2, 3, device=device)
    for dim in (2, -3):
        with pytest.raises(IndexError, match="Dimension out of range"):
            x.renorm(2, dim, 1.0)
    np.testing.assert_allclose(x.renorm(2, -2, 1.0).cpu().numpy(), np.full((2, 3), 3**-0.5), rtol=1e-6)


def test_unique_consecutive_flags_are_bools():
    # PyTorch's parser takes only Python bools for the flags and an int dim (fuzz seed 2201: 1.5 was taken as
    # true); numpy.bool is refused by PyTorch too
    x = minitorch.tensor([1, 1, 2])
    for kw, kind in (
        ({"return_inverse": 1.5}, "float"),
        ({"return_counts": 1}, "int"),
        ({"return_inverse": None}, "NoneType"),
        ({"return_counts": np.bool_(True)}, "numpy.bool"),
    ):
        name = next(iter(kw))
        with pytest.raises(TypeError, match=f"argument '{name}' must be bool, not {kind}$"):
            minitorch.unique_consecutive(x, **kw)
    for dim, kind in ((1.0, "float"), (True, "bool")):
        with pytest.raises(TypeError, match=f"argument 'dim' must be int, not {kind}$"):
            x.unique_consecutive(dim=dim)
    values, counts = minitorch.unique_consecutive(x, return_counts=True)
    assert values.tolist() == [1, 2] and counts.tolist() == [2, 1]
    assert minitorch.unique_consecutive(x, dim=0, return_inverse=True)[1].tolist() == [0, 0, 1]


def test_dist_takes_pytorchs_scalars_for_p():
    # p is a Scalar to PyTorch's parser: a bool (False is the 0-norm: the count of nonzero differences) or a 0-d
    # tensor; a tensor of more elements is refused
    a, b = np.array([[0.0, 1.5, -2.0], [3.0, 0.0, 4.0]]), np.array([[0.0, 0.5, -2.0], [1.0, 0.0, 1.0]])
    x, y = minitorch.tensor(a), minitorch.tensor(b)
    assert minitorch.dist(x, y, False).item() == 3.0
    assert minitorch.dist(x, y, True).item() == pytest.approx(np.abs(a - b).sum())
    assert x.dist(y, minitorch.tensor(3.0)).item() == pytest.approx((np.abs(a - b) ** 3).sum() ** (1 / 3))
    with pytest.raises(
        TypeError, match=r"^dist\(\): argument 'p' \(position 3\) must be Number, not Tensor$"
    ):
        minitorch.dist(x, y, minitorch.tensor([2.0]))


@pytest.mark.parametrize("dtype", [minitorch.float32, minitorch.float64], ids=str)
def test_quantile_by_selection_matches_numpy_and_the_sort_path(dtype):
    # one q over rows longer than 32 takes kthvalue (O(n) a row) on plain CPU values: NumPy's values, and the
    # same bits as the sort path (taken by a q tensor of two entries), ties, NaN rows and every interpolation
    rng = np.random.default_rng(11)
    for shape, dim in [((1000,), None), ((5, 70), 1), ((70, 5), 0), ((3, 40, 4), 1)]:
        a = np.round(rng.standard_normal(shape), 1)  # many ties
        x = minitorch.tensor(a, dtype=dtype)
        for q in (0.0, 0.3, 0.5, 0.999, 1.0):
            for interp in ("linear", "lower", "higher", "midpoint", "nearest"):
                got = minitorch.quantile(x, q, dim=dim, interpolation=interp)
                both = minitorch.quantile(
                    x, minitorch.tensor([q, q], dtype=dtype), dim=dim, interpolation=interp
                )
                assert np.array_equal(got.numpy(), both[0].numpy())
                want = np.quantile(x.double().numpy(), q, axis=dim, method=interp)
                tol = (
                    1e-4 if dtype == minitorch.float32 else 1e-12
                )  # the rank q * (n - 1) is computed in dtype
                np.testing.assert_allclose(got.double().numpy(), want, rtol=tol, atol=tol)
        a[(0,) * len(shape)] = np.nan
        got = minitorch.quantile(minitorch.tensor(a, dtype=dtype), 0.4, dim=dim)
        want = np.quantile(a, 0.4, axis=dim)
        np.testing.assert_array_equal(np.isnan(got.numpy()), np.isnan(want))
    # with a gradient the sort path runs (one element per tie receives it)
    x = minitorch.tensor(np.round(rng.standard_normal(100), 1), dtype=dtype, requires_grad=True)
    minitorch.quantile(x, 0.3).backward()
    assert x.grad.sum().item() == pytest.approx(1.0) and (x.grad != 0).sum().item() <= 2


# ------------------------------------------------------------------------------------------ fake quantization

_FAKE_QUANT_CASES = r"""
def cases(torch):
    run = runner(lambda r: [[v if v == v else "nan" for v in r[0].double().flatten().tolist()], str(r[0].dtype),
                            None if r[1] is None else r[1].double().flatten().tolist()])
    vals = [-3.0, -0.25, -0.05, 0.05, 0.15, 0.25, 0.35, 1.26, 2.0, float("inf"), float("-inf"), float("nan"), 1e10]
    out = {}

    def grad_of(f, x):
        x = x.detach().requires_grad_()
        y = f(x)
        y.backward(torch.arange(1.0, y.numel() + 1).reshape(y.shape).to(y.dtype))
        return y, x.grad

    for dt in (torch.float32, torch.float64, torch.float16, torch.bfloat16):
        x = torch.tensor(vals, dtype=dt)
        out[f"tensor {dt}"] = run(lambda: grad_of(lambda v: torch.fake_quantize_per_tensor_affine(v, 0.1, 3, -8, 7), x))
        out[f"qparams {dt}"] = run(lambda: (torch.fake_quantize_per_tensor_affine(
            x, torch.tensor(0.37), torch.tensor(-2, dtype=torch.int32), -128, 127), None))
    x = torch.linspace(-2, 2, 24).reshape(2, 3, 4)
    scale, zp = torch.tensor([0.1, 0.25, 0.07]), torch.tensor([0, 3, -5], dtype=torch.int32)
    out["channel"] = run(lambda: grad_of(lambda v: torch.fake_quantize_per_channel_affine(v, scale, zp, 1, -8, 7), x))
    out["channel float zp"] = run(lambda: (torch.fake_quantize_per_channel_affine(
        x, scale, torch.tensor([0.4, 2.6, -5.5]), 1, -8, 7), None))
    out["channel float zp f64"] = run(lambda: (torch.fake_quantize_per_channel_affine(
        x.double(), scale, torch.tensor([0.4, 2.6, -5.5]), 1, -8, 7), None))
    out["channel last axis"] = run(lambda: (torch.fake_quantize_per_channel_affine(
        x, torch.tensor([0.1, 0.2, 0.3, 0.4]), torch.tensor([1, 0, 0, 3], dtype=torch.int32), 2, 0, 15), None))
    bad = {
        "min > max": lambda: torch.fake_quantize_per_tensor_affine(x, 0.1, 0, 7, -8),
        "zp out of range": lambda: torch.fake_quantize_per_tensor_affine(x, 0.1, 9, -8, 7),
        "int input": lambda: torch.fake_quantize_per_tensor_affine(torch.arange(3), 0.1, 0, -8, 7),
        "channel zp out of range": lambda: torch.fake_quantize_per_channel_affine(
            x, scale, torch.tensor([0, 9, 0], dtype=torch.int32), 1, -8, 7),
        "channel zp long": lambda: torch.fake_quantize_per_channel_affine(x, scale, zp.long(), 1, -8, 7),
        "channel scale 2-d": lambda: torch.fake_quantize_per_channel_affine(x, scale[None], zp, 1, -8, 7),
        "channel size": lambda: torch.fake_quantize_per_channel_affine(x, scale, zp, 2, -8, 7),
        "channel axis": lambda: torch.fake_quantize_per_channel_affine(x, scale, zp, 3, -8, 7),
        "channel negative axis": lambda: torch.fake_quantize_per_channel_affine(x, scale, zp, -2, -8, 7),
    }
    for k, f in bad.items():
        out[k] = run(lambda: (f(), None))
    return out
"""


def test_fake_quantize_against_pytorch():
    """values (nearbyint's ties to even, the float32 scale under float64 input, NaN and inf to the ends), the
    straight-through gradient's mask, both overloads, per channel, and the errors, as PyTorch"""
    ours, theirs = cases_here_and_in_pytorch(_FAKE_QUANT_CASES, [("torch", minitorch)])
    assert ours.keys() == theirs.keys()
    for k in theirs:
        assert ours[k] == theirs[k], (k, ours[k], theirs[k])
