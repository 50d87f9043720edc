"""minitorch.special against the math module (float64 references), with PyTorch's dtypes and gradients; erfc,
erfinv, lgamma, digamma and polygamma are kernels of their own (csrc/kernels/functors.h)."""

import decimal
import math
import os
import re
import subprocess
import sys

import numpy as np
import pytest
import scipy.special

import minitorch
from minitorch import special
from minitorch.autograd import gradcheck

F32, F64 = minitorch.float32, minitorch.float64
X = [-12.0, -3.0, -0.5, 0.0, 0.3, 2.0, 7.5]


def t(a, dtype=F64, device="cpu"):
    return minitorch.tensor(a, dtype=dtype, device=device)


def close(got, want, rtol=1e-10, atol=1e-12):
    np.testing.assert_allclose(got.cpu().double().numpy(), np.asarray(want, dtype=np.float64), rtol, atol)


def ndtr_ref(x):
    return 0.5 * math.erfc(-x / math.sqrt(2))


@pytest.mark.parametrize("dtype", [F32, F64])
def test_aliases_match_math(device, dtype):
    tol = {"rtol": 1e-5, "atol": 1e-6} if dtype == F32 else {}
    x = t(X, dtype, device)
    close(special.expit(x), [1 / (1 + math.exp(-v)) for v in X], **tol)
    close(special.erf(x), [math.erf(v) for v in X], **tol)
    close(special.expm1(x), [math.expm1(v) for v in X], **tol)
    close(special.exp2(x), [2.0**v for v in X], **tol)
    close(special.log1p(x[3:]), [math.log1p(v) for v in X[3:]], **tol)
    close(special.round(t([0.5, 1.5, 2.345], dtype, device)), [0, 2, 2], **tol)
    close(
        special.round(t([2.345, -1.255], F64, device), decimals=2),
        [2.35, -1.25],
    )
    close(special.sinc(x), np.sinc(X), **tol)
    close(special.logsumexp(x, 0), math.log(sum(math.exp(v) for v in X)), **tol)
    close(special.softmax(x, 0), np.exp(X) / np.exp(X).sum(), **tol)
    close(special.log_softmax(x, 0), np.log(np.exp(X) / np.exp(X).sum()), rtol=1e-5, atol=1e-5)
    assert special.expit(x).dtype == dtype
    assert special.softmax(t([1, 2], F32), 0, dtype=F64).dtype == F64


def test_logit_xlogy_xlog1py_entr(device):
    p = t([0.1, 0.5, 0.9], device=device)
    close(special.logit(p), [math.log(v / (1 - v)) for v in (0.1, 0.5, 0.9)])
    close(special.logit(t([0.0, 1.0]), eps=0.25), [math.log(1 / 3), math.log(3)])
    x, y = t([0.0, 0.0, 2.0, 1.0], device=device), t([-1.0, math.nan, 3.0, 0.5], device=device)
    close(
        special.xlogy(x, t([0.0, math.nan, 3.0, 0.5], device=device)),
        [0, math.nan, 2 * math.log(3), math.log(0.5)],
    )
    close(special.xlog1py(x, y), [0, math.nan, 2 * math.log1p(3), math.log1p(0.5)])
    assert special.xlog1py(t([1, 2], minitorch.int64), t([1, 2], minitorch.int64)).dtype == F32
    close(
        special.entr(t([-1.0, 0.0, 0.5, math.nan], device=device)),
        [-math.inf, 0, -0.5 * math.log(0.5), math.nan],
    )
    # the x == 0 branch must not leak a NaN gradient
    a = t([0.0, 1.5]).requires_grad_()
    special.xlog1py(a, t([-1.0, 1.0])).sum().backward()
    close(a.grad, [0.0, math.log(2.0)])
    assert gradcheck(special.entr, (t([0.3, 1.7]).requires_grad_(),))
    assert gradcheck(special.xlog1py, (t([0.3, -1.7]).requires_grad_(), t([0.5, 2.0]).requires_grad_()))


def test_ndtr_log_ndtr(device):
    x = t(X, device=device)
    rtol = 1e-9 if hasattr(minitorch._C, "erfc") else 1e-6
    close(special.ndtr(x[1:]), [ndtr_ref(v) for v in X[1:]], rtol=rtol, atol=1e-15)
    # far left tail (asymptotic series) and the middle, in log space
    lx = [-40.0, -12.0, -3.0, 0.0, 1.0]
    want = [
        -804.6084420137538,
        -75.4106699146781,
        math.log(ndtr_ref(-3.0)),
        math.log(0.5),
        math.log(ndtr_ref(1.0)),
    ]
    close(special.log_ndtr(t(lx, device=device)), want, rtol=1e-6)
    assert special.log_ndtr(t([-40.0], F32)).dtype == F32
    assert math.isfinite(special.log_ndtr(t([-40.0], F32)).item())
    assert gradcheck(special.ndtr, (t([-1.0, 0.2, 1.3]).requires_grad_(),))


@pytest.mark.parametrize("dtype", [F32, F64])
def test_log_ndtr_without_a_tail_element(dtype):
    """A tensor with no element left of the asymptotic series' cut (-10) takes the direct branch alone: the same
    values, bit for bit, as the general path gives those elements beside a tail element; against SciPy's
    log_ndtr in float64; NaN stays NaN (it takes the general path), an empty tensor stays empty, and gradients
    match the general path's."""
    a = np.random.default_rng(3).uniform(-10, 9, 4099)
    a[:4] = [-10.0, 0.0, -0.0, 37.0]
    x = t(a, dtype)
    alone = special.log_ndtr(x)
    beside = special.log_ndtr(minitorch.cat([x, t([-25.0], dtype)]))[:-1]
    np.testing.assert_array_equal(alone.numpy(), beside.numpy())
    want = scipy.special.log_ndtr(x.double().numpy())
    # float32: log1p(-Phi(-x)) of a float Phi, so the right tail's tiny results carry Phi's float rounding
    tol = {"rtol": 1e-12, "atol": 1e-300} if dtype == F64 else {"rtol": 2e-6, "atol": 1e-9}
    np.testing.assert_allclose(alone.double().numpy(), want, **tol)
    got = special.log_ndtr(t([0.5, float("nan"), 1.0], dtype)).numpy()
    assert np.isnan(got[1]) and np.isfinite(got[[0, 2]]).all()
    assert special.log_ndtr(t([], dtype)).shape == (0,)
    xs = t(a[:64]).requires_grad_()
    (g1,) = minitorch.autograd.grad(special.log_ndtr(xs).sum(), xs)
    xt = minitorch.cat([xs, t([-25.0])])
    (g2,) = minitorch.autograd.grad(special.log_ndtr(xt).sum(), xs)
    np.testing.assert_array_equal(g1.numpy(), g2.numpy())
    assert gradcheck(special.log_ndtr, (t([-9.0, -1.0, 0.2, 3.0]).requires_grad_(),))


def erfcx_asymptotic(x, terms=12):
    """exp(x^2) erfc(x) ~ 1/(x sqrt(pi)) sum_k (-1)^k (2k-1)!! / (2x^2)^k; 12 terms reach 1e-15 at x >= 8."""
    s, term = 1.0, 1.0
    for k in range(1, terms):
        term *= -(2 * k - 1) / (2 * x * x)
        s += term
    return s / (x * math.sqrt(math.pi))


def test_kernel_backed(device):
    x = t(X, device=device)
    close(special.erfc(x), [math.erfc(v) for v in X], rtol=1e-9, atol=1e-300)
    close(
        special.erfcx(t([-1.0, 0.5, 3.0, 8.5, 30.0], device=device)),
        [
            math.exp(1) * math.erfc(-1),
            math.exp(0.25) * math.erfc(0.5),
            math.exp(9) * math.erfc(3),
            erfcx_asymptotic(8.5),
            erfcx_asymptotic(30.0),
        ],
        rtol=1e-7,
    )


def test_erfinv_ndtri():
    p = [0.01, 0.3, 0.5, 0.975]
    r = special.ndtri(t(p))
    close(t([ndtr_ref(v) for v in r.tolist()]), p, rtol=1e-8)
    close(special.erfinv(t([0.0])), [0.0])


def test_ndtri_without_a_tail_element_takes_the_direct_branch_alone():
    """No p in (0, 1e-3): the direct branch alone runs (special/__init__.py's fast path), with the bits the
    general path gives those elements beside a tail one, and the same gradient 1 / pdf; NaN, 0 and 1 keep theirs."""
    p = np.random.default_rng(7).uniform(1e-3, 1, 1000)
    alone = special.ndtri(minitorch.from_numpy(p)).numpy()
    mixed = special.ndtri(minitorch.from_numpy(np.concatenate([p, [1e-5]]))).numpy()
    np.testing.assert_array_equal(alone, mixed[:-1])
    edge = special.ndtri(t([0.0, 1.0, math.nan, 0.5])).tolist()
    assert edge[0] == -math.inf and edge[1] == math.inf and math.isnan(edge[2]) and edge[3] == 0.0
    x = minitorch.from_numpy(p[:8].copy()).requires_grad_()
    special.ndtri(x).sum().backward()
    pdf = np.exp(-(alone[:8] ** 2) / 2) / math.sqrt(2 * math.pi)
    np.testing.assert_allclose(x.grad.numpy(), 1 / pdf, rtol=1e-12)


def test_gamma_family():
    x = [0.5, 1.0, 3.7, 10.0]
    close(special.gammaln(t(x)), [math.lgamma(v) for v in x], rtol=1e-9)
    want = [sum(math.lgamma(v - j / 2) for j in range(3)) + 3 * 2 / 4 * math.log(math.pi) for v in (1.5, 4.0)]
    close(special.multigammaln(t([1.5, 4.0]), 3), want, rtol=1e-9)
    with pytest.raises(RuntimeError, match="p has to be greater than or equal to 1"):
        special.multigammaln(t([2.0]), 0)
    h = 1e-6
    close(special.psi(t([2.5])), [(math.lgamma(2.5 + h) - math.lgamma(2.5 - h)) / (2 * h)], rtol=1e-7)


def test_all_names_documented():
    for name in special.__all__:
        assert getattr(special, name).__doc__, name


# ---- the kernels behind them (csrc/kernels/functors.h): edges, float32, polygamma, aliases, bad input

ZETA = {
    2: math.pi**2 / 6,
    3: 1.2020569031595942854,
    4: math.pi**4 / 90,
    5: 1.0369277551433699263,
    6: math.pi**6 / 945,
}


def erfinv_bisect(y):
    if abs(y) < 1e-20:  # erfinv(y) = sqrt(pi)/2 y (1 + O(y^2)); bisection stops at ~1e-59
        return math.sqrt(math.pi) / 2 * y
    lo, hi = -30.0, 30.0
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        # erf rounds to 1 past ~5.9: compare erfc's there, which keeps the tail's digits
        below = math.erfc(mid) > 1 - y if y > 0.5 else math.erf(mid) < y
        lo, hi = (mid, hi) if below else (lo, mid)
    return 0.5 * (lo + hi)


def test_erfinv_accuracy_to_the_tails(device):
    ys = [k / 64 for k in range(-63, 64)] + [1 - 2.0**-k for k in (10, 20, 30, 40, 52)]
    ys += [-v for v in ys[-5:]] + [1e-300, -5e-324]
    got = minitorch.erfinv(t(ys, device=device)).cpu().tolist()
    want = [math.copysign(erfinv_bisect(abs(v)), v) for v in ys]
    np.testing.assert_allclose(got, want, rtol=4e-15, atol=0)
    edge = minitorch.erfinv(t([1.0, -1.0, 1.5, -2.0, math.nan, -0.0], device=device)).cpu().tolist()
    assert edge[:2] == [math.inf, -math.inf] and all(math.isnan(v) for v in edge[2:5])
    assert math.copysign(1, edge[5]) == -1  # the sign of zero kept
    # float32: CUDA's kernel rounds the float64 result once; the CPU's (scalar and vector) evaluate a
    # polynomial in double accurate to ~2e-10 (kernels/cpu/vec/f32_via_f64.h), so a rare float lands one ulp
    # away from that rounding, never further from the true value than 0.5 + 0.01 ulp
    y32 = minitorch.rand(10000, generator=minitorch.Generator().manual_seed(3)) * 2 - 1
    want64 = minitorch.erfinv(y32.double()).numpy()
    got32 = minitorch.erfinv(y32.to(device)).cpu().numpy()
    np.testing.assert_array_max_ulp(got32, want64.astype(np.float32), maxulp=1)
    spacing = np.spacing(np.abs(want64).astype(np.float32)).astype(np.float64)
    assert np.max(np.abs(got32 - want64) / spacing) < 0.51


def test_erfinv_float32_over_every_path():
    """Every 61st float of (-1, 1) and the 3000 floats below 1 (the tail branch), on the scalar path and the
    vector one: within 0.51 ulp of the float64 result, and the special values."""
    import os
    import subprocess
    import sys

    script = (
        "import sys, numpy as np, minitorch as m\n"
        "x = np.arange(0, 1065353216, 61, dtype=np.int64).astype(np.uint32).view(np.float32)\n"
        "x = np.concatenate([x, np.float32(1) - np.spacing(np.float32(1)) * np.arange(1, 3000, dtype=np.float32)])\n"
        "x = np.concatenate([x, -x, np.float32([1, -1, 1.5, -3, np.inf, np.nan, 1e-45, -1e-40])])\n"
        "np.savez(sys.argv[1], x=x, g=m.erfinv(m.from_numpy(x)).numpy(), r=m.erfinv(m.from_numpy(x.astype(np.float64))).numpy())\n"
    )
    caps = ["default"] + ([] if minitorch.backends.cpu.get_cpu_capability() == "DEFAULT" else ["avx2"])
    for cap in caps:
        path = f"{os.environ.get('TMPDIR', '/tmp')}/erfinv_{os.getpid()}_{cap}.npz"
        env = dict(os.environ, MINITORCH_CPU_CAPABILITY=cap)
        subprocess.run([sys.executable, "-c", script, path], check=True, env=env, timeout=300)
        d = np.load(path)
        os.unlink(path)
        x, g, r = d["x"], d["g"], d["r"]
        fin = np.abs(x) < 1
        spacing = np.spacing(np.abs(r[fin]).astype(np.float32)).astype(np.float64)
        err = np.abs(g[fin].astype(np.float64) - r[fin]) / np.maximum(spacing, np.float64(1.4e-45))
        assert err.max() < 0.51, (cap, err.max())
        assert np.array_equal(np.signbit(g[fin]), np.signbit(x[fin]))  # -0 stays -0
        tail = g[~fin].tolist()
        assert tail[0] == math.inf and tail[1] == -math.inf and all(math.isnan(v) for v in tail[2:6])
        assert tail[6:] == [float(v) for v in r[~fin][6:].astype(np.float32)]  # x = 1e-45 / -1e-40


@pytest.mark.parametrize("cap", ["default", "avx2"])
def test_erfinv_float32_same_bits_at_every_position(cap):
    """The float32 rows take eight or sixteen values a step, the tail through a padded block: a value gets the
    same bits whatever its position, in a short row, a strided view or a long one, |x| > 0.95 included."""
    script = (
        "import sys, numpy as np, minitorch as m\n"
        "x = np.random.default_rng(5).uniform(-1, 1, 203).astype(np.float32)\n"
        "x[::7] = np.float32(0.97) + np.float32(0.03) * x[::7] ** 2\n"
        "x[[3, 50, 51]] = [np.float32(1), -np.float32(0.0), np.nan]\n"
        "full = m.erfinv(m.from_numpy(x)).numpy()\n"
        "ok = all(np.array_equal(m.erfinv(m.from_numpy(x[:n].copy())).numpy(), full[:n], equal_nan=True)"
        " for n in range(1, 20))\n"
        "ok &= np.array_equal(m.erfinv(m.from_numpy(x)[1::3]).numpy(), full[1::3], equal_nan=True)\n"
        "ok &= np.array_equal(np.signbit(full), np.signbit(x)) and full[3] == np.inf\n"
        "print(m.backends.cpu.get_cpu_capability(), ok)\n"
    )
    if cap == "avx2" and minitorch.backends.cpu.get_cpu_capability() == "DEFAULT":
        pytest.skip("this CPU has no AVX2")
    import os
    import subprocess
    import sys

    env = dict(os.environ, MINITORCH_CPU_CAPABILITY=cap)
    res = subprocess.run(
        [sys.executable, "-c", script], check=False, env=env, capture_output=True, text=True, timeout=300
    )
    assert res.stdout.split() == [cap.upper(), "True"], res.stdout + res.stderr


def bessel_i_ref(x, n):
    """(exp(-|x|) I_n(x), |x|) for n = 0, 1: the power series in 40-digit decimal arithmetic (its terms share one
    sign), independent of the kernel's split into a double series and an asymptotic expansion."""
    with decimal.localcontext() as ctx:
        ctx.prec = 40
        ax = decimal.Decimal(abs(x))
        q, term = ax * ax / 4, (ax / 2) ** n
        total, k = term, 0
        while k < 20 or term > total * decimal.Decimal("1e-40"):
            k += 1
            term = term * q / (k * (k + n))
            total += term
        scaled = float(total * (-ax).exp())
    return (-scaled if (n == 1 and x < 0) else scaled), abs(x)


XS_BESSEL = [1e-300, 1e-8, 0.3, -1.0, 2.5, -7.25, 12.0, 19.75, 20.0, 20.25, -33.0, 64.0, 150.0, -400.0, 700.0]


@pytest.mark.parametrize("n", [0, 1])
def test_bessel_i_accuracy_over_the_whole_range(device, n):
    """i0/i1 and their scaled forms against an exact series in float64, across the kernel's switch from its
    power series to the asymptotic expansion at |x| = 20 and up to where I overflows (|x| ~ 713.99, where
    PyTorch 2.15 already gives inf from 709.8: docs/reliability.md)."""
    plain = minitorch.i0 if n == 0 else special.i1
    scaled = special.i0e if n == 0 else special.i1e
    x = t(XS_BESSEL, device=device)
    refs = [bessel_i_ref(v, n) for v in XS_BESSEL]
    np.testing.assert_allclose(scaled(x).cpu().tolist(), [s for s, _ in refs], rtol=2e-15, atol=0)
    want = [s * math.exp(e) for s, e in refs]
    np.testing.assert_allclose(plain(x).cpu().tolist(), want, rtol=4e-15, atol=0)
    big = plain(t([713.5, -713.5, 714.0, math.inf, -math.inf, math.nan], device=device)).cpu().tolist()
    half = math.exp(713.5 / 2)  # e^713.5 itself overflows a double; I_n(713.5) does not
    assert math.isfinite(big[0]) and abs(big[0] / (bessel_i_ref(713.5, n)[0] * half * half) - 1) < 4e-15
    assert big[1] == (big[0] if n == 0 else -big[0])  # even / odd
    assert big[2:5] == [math.inf, math.inf, math.inf if n == 0 else -math.inf] and math.isnan(big[5])
    edge = scaled(t([math.inf, -math.inf, 0.0], device=device)).cpu().tolist()
    assert edge == [0.0, 0.0, 1.0 if n == 0 else 0.0]
    # float32 rounds the float64 result once (computed in double for every dtype), also past float32's range
    x32 = minitorch.randn(4096, generator=minitorch.Generator().manual_seed(5)) * 30
    for f in (plain, scaled):
        assert minitorch.equal(f(x32.to(device)).cpu(), f(x32.double()).float())


def test_bessel_i_gradients(device):
    x = (minitorch.rand(7, dtype=F64) * 16 - 8).to(device).requires_grad_()
    for f in (minitorch.i0, special.i0e, special.i1, special.i1e):
        assert gradcheck(f, (x,))
    z = t([0.0], device=device).requires_grad_()
    for f, want in ((minitorch.i0, 0.0), (special.i1, 0.5), (special.i1e, 0.5), (special.i0e, 0.0)):
        (g,) = minitorch.autograd.grad(f(z).sum(), z)
        assert g.item() == want, f
    assert (
        special.i1(z).grad_fn.name() == "SpecialI1Backward0"
        and minitorch.i0(z).grad_fn.name() == "I0Backward0"
    )


_BESSEL_CHILD = r"""
import sys
import numpy as np
import minitorch
from minitorch import special

x = np.load(sys.argv[1])
out = {}
for name, f in (("i0", minitorch.i0), ("i0e", special.i0e), ("i1", special.i1), ("i1e", special.i1e)):
    for dt in ("float64", "float32", "float16", "bfloat16"):
        v = minitorch.from_numpy(x).to(getattr(minitorch, dt))
        out[name + " " + dt] = f(v).double().numpy()
        # every other element of a longer tensor: the strided path, the same values
        w = minitorch.from_numpy(np.repeat(x, 2)).to(getattr(minitorch, dt))[::2]
        out[name + " " + dt + " strided"] = f(w).double().numpy()
    out[name + " empty"] = np.array(f(minitorch.empty(0, 3, dtype=minitorch.float64)).shape)
    out[name + " int"] = f(minitorch.tensor([0, -3, 5, 9])).numpy()
np.savez(sys.argv[2], **out)
"""


@pytest.mark.parametrize("cap", ["avx512", "avx2", "default"])
def test_bessel_i_against_scipy_on_every_path(tmp_path, cap):
    """i0, i0e, i1, i1e against SciPy's (Cephes) in float64 over a dense grid across both expansions' ranges
    (the vector tables' Chebyshev kernels, kernels/cpu/vec/bessel_i.h, four double lanes on AVX2 and eight on
    AVX-512; the scalar functors' series elsewhere), float32 and half/bfloat16 as the float64 result rounded
    (computed in double), strided, empty and integer input (float32 results)."""
    have = minitorch.backends.cpu.get_cpu_capability()
    if (cap == "avx2" and have == "DEFAULT") or (cap == "avx512" and have != "AVX512"):
        pytest.skip(f"this CPU has no {cap}")
    rng = np.random.default_rng(3)
    x = np.concatenate(
        [
            np.linspace(-40, 40, 8001),
            rng.uniform(-720, 720, 4000),
            [8.0, np.nextafter(8.0, 0), np.nextafter(8.0, 9), -8.0, 1e-300, -1e-300, 5e-324, 0.0, -0.0],
            [np.inf, -np.inf, np.nan, 709.0, 709.9, 713.9, 714.0, -713.9],
        ]
    )
    xp, op = tmp_path / "x.npy", tmp_path / "out.npz"
    np.save(xp, x)
    env = dict(os.environ, MINITORCH_CPU_CAPABILITY=cap)
    subprocess.run([sys.executable, "-c", _BESSEL_CHILD, str(xp), str(op)], check=True, env=env, timeout=300)
    got = np.load(op)
    ints = np.array([0.0, -3.0, 5.0, 9.0])
    ref_at_ints = {
        "i0": scipy.special.i0(ints),
        "i0e": scipy.special.i0e(ints),
        "i1": scipy.special.i1(ints),
        "i1e": scipy.special.i1e(ints),
    }
    # SciPy's i0/i1 overflow where exp(|x|) does (709.78); I_n(x) itself is finite to 713.99: compare the
    # scaled form times e^(|x|/2) twice there
    with np.errstate(over="ignore", invalid="ignore"):
        h = np.exp(np.abs(x) / 2)
        refs = {
            "i0e": scipy.special.i0e(x),
            "i1e": scipy.special.i1e(x),
            "i0": np.where(np.isinf(x), np.inf, scipy.special.i0e(x) * h * h),
            "i1": np.where(np.isinf(x), x, scipy.special.i1e(x) * h * h),
        }
    for name, ref in refs.items():
        g = got[name + " float64"]
        # atol: I1 of the smallest subnormal is half of it, a tie either rounding may take
        np.testing.assert_allclose(g, ref, rtol=3e-15, atol=1e-321, err_msg=name)
        fin = np.isfinite(x)
        assert np.array_equal(np.signbit(g[fin]), np.signbit(ref[fin])), name  # i1(-0) = +0, i1 odd
        assert got[name + " empty"].tolist() == [0, 3]
        np.testing.assert_array_equal(got[name + " int"], ref_at_ints[name].astype(np.float32), err_msg=name)
        for dt, np_dt, rtol in (
            ("float32", np.float32, 0),
            ("float16", np.float16, 2**-10),
            ("bfloat16", None, 2**-7),
        ):
            g = got[f"{name} {dt}"]
            np.testing.assert_array_equal(got[f"{name} {dt} strided"], g, err_msg=name + dt)
            # the input rounded to the dtype, the function in float64, the result rounded once (float32) or
            # within an ulp (half, bfloat16: rounded through float32, and the dtype's own overflow)
            xr = minitorch.from_numpy(x).to(getattr(minitorch, dt)).double().numpy()
            with np.errstate(over="ignore", invalid="ignore"):
                hr = np.exp(np.abs(xr) / 2)
                r = (scipy.special.i0e if name[1] == "0" else scipy.special.i1e)(xr)
                r = (
                    r
                    if name.endswith("e")
                    else np.where(np.isinf(xr), np.abs(xr) if name == "i0" else xr, r * hr * hr)
                )
            if rtol == 0:
                np.testing.assert_array_equal(g, r.astype(np_dt).astype(np.float64), err_msg=name + dt)
            else:
                big = 65504.0 if dt == "float16" else 3.39e38
                r = np.where(np.abs(r) > big * (1 + rtol), np.copysign(np.inf, r), r)
                np.testing.assert_allclose(g, r, rtol=rtol, atol=0, err_msg=name + dt)


def test_digamma_lgamma_poles_and_reflection(device):
    x = t([0.0, -0.0, -1.0, -7.0, -0.5, -2.5, -100.25, 1.0, 1e-8, 1e6], device=device)
    d = minitorch.digamma(x).cpu().tolist()
    assert d[0] == -math.inf and d[1] == math.inf and math.isnan(d[2]) and math.isnan(d[3])
    # psi(1 - x) - psi(x) = pi cot(pi x); psi(1) = -Euler's gamma; psi(x) ~ -1/x - gamma near 0
    for v, got in zip([-0.5, -2.5, -100.25], d[4:7]):
        np.testing.assert_allclose(
            got, minitorch.digamma(t([1 - v])).item() - math.pi / math.tan(math.pi * v), 1e-12
        )
    np.testing.assert_allclose(
        d[7:9], [-0.5772156649015329, -1e8 - 0.5772156649015329 + 1.6449e-8], rtol=1e-12
    )
    np.testing.assert_allclose(d[9], math.log(1e6) - 0.5e-6 - 1 / 12e12, rtol=1e-15)
    lg = minitorch.lgamma(t([0.0, -1.0, -3.0, -0.5, 171.5, 1e300], device=device)).cpu().tolist()
    assert lg[:3] == [math.inf] * 3
    np.testing.assert_allclose(
        lg[3:], [math.lgamma(-0.5), math.lgamma(171.5), math.lgamma(1e300)], rtol=1e-14
    )


@pytest.mark.parametrize("n", [1, 2, 3, 5])
def test_polygamma_values(n, device):
    fact = math.factorial(n)
    sign = 1 if n % 2 else -1
    # psi_n(1) = (-1)^(n+1) n! zeta(n+1), and the recurrence psi_n(x+1) = psi_n(x) + (-1)^n n! / x^(n+1)
    np.testing.assert_allclose(
        minitorch.polygamma(n, t([1.0], device=device)).item(), sign * fact * ZETA[n + 1], 1e-13
    )
    xs = [0.25, 0.7, 3.5, 12.0, 80.0, -0.5, -3.75]
    a = minitorch.polygamma(n, t(xs, device=device)).cpu().tolist()
    b = minitorch.polygamma(n, t([v + 1 for v in xs], device=device)).cpu().tolist()
    for v, pa, pb in zip(xs, a, b):
        np.testing.assert_allclose(pb, pa + (-1) ** n * fact / v ** (n + 1), rtol=1e-11, atol=1e-300)
    assert minitorch.polygamma(n, t([0.0, -2.0], device=device)).cpu().tolist() == [sign * math.inf] * 2
    if n == 1:  # reflection: psi_1(x) + psi_1(1 - x) = pi^2 / sin^2(pi x), also far to the left
        for v in (-0.3, -1e6 - 0.5, -123456.78):
            s = minitorch.polygamma(1, t([v, 1 - v])).sum().item()
            np.testing.assert_allclose(s, math.pi**2 / math.sin(math.pi * v) ** 2, rtol=1e-9)


def test_polygamma_api_gradients_and_errors(device):
    x = t([0.4, 1.3, 2.2], device=device).requires_grad_()
    assert gradcheck(lambda v: minitorch.polygamma(1, v), (x,))
    assert gradcheck(lambda v: minitorch.polygamma(3, v), (x,))
    assert minitorch.autograd.gradgradcheck(minitorch.digamma, (x,))
    assert minitorch.polygamma(1, x).grad_fn.name() == "PolygammaBackward0"
    assert minitorch.polygamma(0, x.detach()).tolist() == minitorch.digamma(x.detach()).tolist()
    # integers promote to the default float dtype; the method, in-place and special spellings
    i = minitorch.tensor([1, 2, 3], device=device)
    assert i.polygamma(1).dtype == minitorch.float32
    np.testing.assert_allclose(i.polygamma(1).cpu().numpy(), [1.6449341, 0.6449341, 0.3949341], rtol=1e-6)
    y = t([2.0, 3.0], F32, device)
    assert y.polygamma_(1) is y
    np.testing.assert_allclose(y.cpu().numpy(), [0.6449341, 0.3949341], rtol=1e-6)
    assert special.polygamma(2, t([1.0])).item() == pytest.approx(-2 * ZETA[3], rel=1e-13)
    with pytest.raises(RuntimeError, match=r"polygamma\(n, x\) does not support negative n\."):
        minitorch.polygamma(-1, t([1.0], device=device))
    assert minitorch.polygamma(1, minitorch.empty(0, 3, device=device)).shape == (0, 3)


def test_aliases_out_and_inplace(device):
    x = t([0.1, 0.5, 0.9], device=device)
    for alias, op in [
        ("arcsinh", "asinh"),
        ("arctanh", "atanh"),
        ("arcsin", "asin"),
        ("arccos", "acos"),
        ("arctan", "atan"),
    ]:
        assert minitorch.equal(getattr(minitorch, alias)(x), getattr(minitorch, op)(x))
        assert minitorch.equal(getattr(x, alias)(), getattr(x, op)())
        y = x.clone()
        assert getattr(y, alias + "_")() is y and minitorch.equal(y, getattr(minitorch, op)(x))
    assert minitorch.equal(minitorch.arccosh(x + 1), minitorch.acosh(x + 1))
    out = minitorch.empty(3, dtype=F64, device=device)
    assert minitorch.erfinv(x, out=out) is out and minitorch.equal(out, minitorch.erfinv(x))
    assert minitorch.lgamma(x, out=out) is out and minitorch.equal(out, minitorch.lgamma(x))
    z = t([1.0, 2.0], device=device)
    assert z.arctan2_(t([1.0, 1.0], device=device)) is z
    np.testing.assert_allclose(z.cpu().numpy(), [math.atan2(1, 1), math.atan2(2, 1)])
    assert minitorch.multiply(z, 2).tolist() == (z * 2).tolist()
    w = t([1.0, 5.0], device=device)
    assert w.greater_(t([2.0, 2.0], device=device)) is w and w.tolist() == [0.0, 1.0]


def test_regularized_incomplete_gamma_and_sampler_ops_at_the_top_level():
    import scipy.special as sps

    a = np.array([0.5, 1.0, 2.5, 10.0, 30.0])
    x = np.array([0.1, 1.0, 3.0, 9.0, 35.0])
    got = minitorch.special.gammainc(t(a), t(x)).tolist()
    np.testing.assert_allclose(got, sps.gammainc(a, x), rtol=1e-10)
    np.testing.assert_allclose(minitorch.igammac(t(a), t(x)).tolist(), sps.gammaincc(a, x), rtol=1e-10)
    assert "gammainc" in minitorch.special.__all__
    assert minitorch.igamma(t(a), t(x)).tolist() == got
    minitorch.manual_seed(0)
    draws = minitorch.poisson(minitorch.full((20000,), 4.0, dtype=minitorch.float64))
    assert abs(draws.mean().item() - 4.0) < 5 * (4.0 / 20000) ** 0.5
    assert minitorch.binomial(minitorch.full((3,), 5.0), minitorch.zeros(3)).tolist() == [0.0, 0.0, 0.0]


def test_incomplete_gamma_promotes_mixed_dtypes():
    half, f32 = minitorch.ones(2, dtype=minitorch.float16), minitorch.ones(2)
    assert minitorch.igammac(half, f32).dtype == minitorch.float32  # as PyTorch's binary kernels
    assert minitorch.special.gammainc(half, half).dtype == minitorch.float16


def test_multigammaln_p_is_an_int():
    """PyTorch's parser for special.multigammaln (issue 34): p is an int, not a float"""
    with pytest.raises(
        TypeError, match=re.escape("special_multigammaln(): argument 'p' must be int, not float")
    ):
        minitorch.special.multigammaln(minitorch.ones(2), p=-0.5)
    with pytest.raises(
        TypeError, match=re.escape("special_multigammaln(): argument 'p' (position 2) must be int, not float")
    ):
        minitorch.special.multigammaln(minitorch.ones(2), 1e30)
    x = np.array([1.5, 3.0])
    np.testing.assert_allclose(
        minitorch.special.multigammaln(minitorch.tensor(x, dtype=minitorch.float64), 2).numpy(),
        scipy.special.multigammaln(x, 2),
        rtol=1e-12,
    )


def test_gammainc_gammaincc_special_cases_as_pytorch():
    # PyTorch's order of special cases (calc_igamma/calc_igammac): a negative operand -> nan; a = 0 -> 1/0 for
    # x > 0 else nan; x = 0 -> 0/1 even for a nan a; an infinite a -> nan with an infinite x, else 0/1; an
    # infinite x -> 1/0
    nan, inf = float("nan"), float("inf")
    a = minitorch.tensor([nan, -1.0, 0.0, 0.0, inf, inf, 2.0, 2.0, nan, 0.5], dtype=minitorch.float64)
    x = minitorch.tensor([0.0, 1.0, 1.0, 0.0, inf, 3.0, inf, -1.0, 1.0, 0.0], dtype=minitorch.float64)
    lower = [0.0, nan, 1.0, nan, nan, 0.0, 1.0, nan, nan, 0.0]
    upper = [1.0, nan, 0.0, nan, nan, 1.0, 0.0, nan, nan, 1.0]
    np.testing.assert_array_equal(minitorch.special.gammainc(a, x).numpy(), lower)
    np.testing.assert_array_equal(minitorch.special.gammaincc(a, x).numpy(), upper)
    for dt in (minitorch.float16, minitorch.float32):
        np.testing.assert_array_equal(minitorch.igammac(a.to(dt), x.to(dt)).double().numpy(), upper)
    # away from the corners, the values: P(2, 1) = 1 - 2/e
    assert minitorch.special.gammainc(
        minitorch.tensor(2.0, dtype=minitorch.float64), minitorch.tensor(1.0, dtype=minitorch.float64)
    ).item() == pytest.approx(1 - 2 / np.e, rel=1e-12)


def test_erfcx_refuses_half_precision(device):
    # PyTorch's erfcx kernels take float and double only (fuzz seed 2201 found half accepted here)
    for dt, name in ((minitorch.float16, "Half"), (minitorch.bfloat16, "BFloat16")):
        kernel = "erfcx_cuda" if device == "cuda" else "erfcx_cpu"
        with pytest.raises(NotImplementedError, match=f"\"{kernel}\" not implemented for '{name}'"):
            special.erfcx(minitorch.ones(2, dtype=dt, device=device))
    assert (
        special.erfcx(minitorch.tensor([0, 1], device=device)).dtype == minitorch.float32
    )  # integers promote


def test_gammaincc_keeps_relative_accuracy_where_gammainc_is_near_one():
    """Q(a, x) was 1 - P: where P rounds to 1 (a small a, or the upper tail) that kept only P's rounding error,
    1e-16 for a true 1e-41 and even negative values; Q now comes from its own series (DLMF 8.7.3, x <= 1.1) or
    the continued fraction. scipy's gammaincc is the reference (PyTorch 2.15's own kernel is off by up to 3x at
    a = 1e-40)."""
    a = np.array([1e-40, 1e-40, 1e-40, 1e-40, 1e-5, 2e-3, 1e-3, 0.3, 0.5, 0.956, 2.0, 5.0])
    x = np.array([0.956, 0.12, 1e-40, 0.5, 0.7, 1.05, 2.7, 1e-3, 0.3, 0.12, 40.0, 60.0])
    for dt in (minitorch.float64, minitorch.float32):
        q = minitorch.igammac(minitorch.tensor(a, dtype=dt), minitorch.tensor(x, dtype=dt)).double().numpy()
        f32 = dt == minitorch.float32
        ref = scipy.special.gammaincc(*((a.astype(np.float32), x.astype(np.float32)) if f32 else (a, x)))
        assert (q > 0).all()
        # float32 results below 1.2e-38 are subnormal: their spacing is 1.4e-45
        np.testing.assert_allclose(q, ref, rtol=2e-6 if f32 else 1e-12, atol=3e-45 if f32 else 0)
    # the gradient in x is Q's, the negative of P's (finite differences in float64); PyTorch has none in a
    aa = minitorch.tensor([0.3, 2.0, 1e-3], dtype=minitorch.float64)
    xx = minitorch.tensor([0.2, 1.5, 0.9], dtype=minitorch.float64, requires_grad=True)
    assert minitorch.autograd.gradcheck(lambda x: minitorch.special.gammaincc(aa, x), (xx,))
    with pytest.raises(NotImplementedError, match="the derivative for 'igammac: input' is not implemented"):
        minitorch.special.gammaincc(aa.requires_grad_(), xx).sum().backward()


def test_incomplete_gamma_at_infinite_x_is_set_not_iterated():
    """x = inf took the continued fraction to its iteration cap (0.5-1 s per element; a 'hang' under the
    sanitizer build in fuzz seed 2403); it is P = 1, Q = 0 directly"""
    a = minitorch.tensor([0.5, 3.0, 1e-30, 1e4], dtype=minitorch.float64)
    x = minitorch.full((4,), math.inf, dtype=minitorch.float64)
    assert minitorch.igamma(a, x).tolist() == [1.0, 1.0, 1.0, 1.0]
    assert minitorch.igammac(a, x).tolist() == [0.0, 0.0, 0.0, 0.0]


def test_sinc_kernel_values_and_derivatives():
    """sinc as its own kernel (functors.h's Sinc, session 29): PyTorch's values (1 at 0, sin(pi x) / (pi x) with
    pi x rounded in the dtype), its gradient rule (0 where pi x^2 is 0: at 0 and where x^2 underflows), second
    derivatives against finite differences, forward mode, in place and out="""
    x = t([-2.5, -1.0, -1e-3, 0.0, 1e-200, 0.25, 3.0])
    want = np.sinc(x.numpy())
    np.testing.assert_allclose(minitorch.sinc(x).numpy(), want, rtol=1e-15, atol=1e-17)
    assert (
        minitorch.sinc(t([0.0], F32)).item() == 1.0 and minitorch.sinc(t([0], minitorch.int64)).dtype == F32
    )
    # float32: pi x rounded to float, then sinf over it, as PyTorch's kernel
    xs = np.linspace(-3, 3, 61, dtype=np.float32)
    px = np.float32(np.pi) * xs
    ref = np.where(xs == 0, np.float32(1), np.sin(px) / px).astype(np.float32)
    np.testing.assert_allclose(minitorch.sinc(t(xs, F32)).numpy(), ref, rtol=2e-7, atol=1e-7)
    g = x.clone().requires_grad_()
    minitorch.sinc(g).sum().backward()
    pix = np.pi * x.numpy()
    with np.errstate(divide="ignore", invalid="ignore"):
        d = (pix * np.cos(pix) - np.sin(pix)) / (np.pi * x.numpy() ** 2)
    d[[3, 4]] = 0.0  # x = 0 and x = 1e-200 (pi x^2 underflows to 0): PyTorch's where gives 0
    np.testing.assert_allclose(g.grad.numpy(), d, rtol=1e-12, atol=1e-15)
    y = t([-2.5, -1.0, -0.3, 0.25, 0.7, 3.0]).requires_grad_()
    assert gradcheck(minitorch.sinc, (y,))
    assert minitorch.autograd.gradgradcheck(minitorch.sinc, (y,))
    import minitorch.autograd.forward_ad as fwAD

    tangent = t([1.0, 2.0, -1.0, 0.5, 1.0, 1.0])
    with fwAD.dual_level():
        out = fwAD.unpack_dual(minitorch.sinc(fwAD.make_dual(y.detach(), tangent))).tangent
    eps = 1e-6
    fd = (minitorch.sinc(y.detach() + eps * tangent) - minitorch.sinc(y.detach() - eps * tangent)) / (2 * eps)
    np.testing.assert_allclose(out.numpy(), fd.numpy(), rtol=1e-6, atol=1e-9)
    s = t([0.0, 0.5])
    assert s.sinc_() is s and s.tolist() == [1.0, float(np.sinc(0.5))]
    o = minitorch.empty(2, dtype=F64)
    assert minitorch.sinc(t([0.0, 0.5]), out=o) is o and o.tolist() == s.tolist()
    assert minitorch.sinc_(t([0.0])).item() == 1.0
