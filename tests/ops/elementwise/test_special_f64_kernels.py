"""Accuracy of the float64 erfinv, atanh and trigamma kernels in ulps against mpmath (run by the oracle Python,
whose PyTorch install brings it) or long double, at every CPU capability (each in a child process), and the bit
kernels of nextafter and frexp against NumPy, signed zeros, subnormals, infinities and NaN included."""

import json
import math
import os
import subprocess
import sys

import numpy as np
import pytest
from utils import mpmath_reference

import minitorch

CAPS = ["avx512", "avx2", "default"]

# float64 inputs per function: uniform, log-spaced toward each edge (erfinv's and atanh's poles at +-1 down to
# 1 - 2^-53, trigamma's poles at 0 and the negative integers), tiny values and subnormals, both signs
_rng = np.random.default_rng(32)
_unit = np.concatenate(
    [
        _rng.uniform(-1, 1, 8000),
        1 - np.exp(_rng.uniform(np.log(1.2e-16), 0, 3000)),
        -(1 - np.exp2(-np.arange(1.0, 54.0))),
        np.exp(_rng.uniform(np.log(5e-324), 0, 1500)) * _rng.choice([-1.0, 1.0], 1500),
        [0.5, -0.5, 0.49999999999999994, 0.5000000000000001, 0.9966, 1 - 5.6e-8, 2.0**-28, 2.0**-29, 5e-324],
    ]
)
_poles = -np.floor(_rng.uniform(0, 30, 1000))
INPUTS = {
    "erfinv": _unit,
    "atanh": _unit,
    "trigamma": np.concatenate(
        [
            _rng.uniform(0.01, 20, 3000),
            np.exp(_rng.uniform(np.log(1e-150), np.log(1e15), 1500)),
            _rng.uniform(-60, 0, 1500),
            _poles + np.exp(_rng.uniform(np.log(1e-12), np.log(0.5), 1000)) * _rng.choice([-1.0, 1.0], 1000),
            [9.999999999999998, 10.0, 1.0, 0.5, -0.5, 1e6 + 0.5, -123456.78],
        ]
    ),
}
SPECIALS = [0.0, -0.0, 1.0, -1.0, 1.5, -2.0, math.inf, -math.inf, math.nan]

_MP_CHILD = r"""
import sys
import mpmath as mp
import numpy as np

mp.mp.dps = 40
x = np.load(sys.argv[1])
out = {}
for fn in ("erfinv", "atanh", "trigamma"):
    v = x[fn]
    f = {"erfinv": mp.erfinv, "atanh": mp.atanh, "trigamma": lambda t: mp.psi(1, t)}[fn]
    hi, lo = np.empty(len(v)), np.empty(len(v))
    for i, t in enumerate(v.tolist()):
        r = f(mp.mpf(t)) if t != 0 or fn == "trigamma" else mp.mpf(0)
        hi[i] = float(r)
        lo[i] = float(r - mp.mpf(hi[i])) if mp.isfinite(r) and abs(hi[i]) != float("inf") else 0.0
    out[fn + " hi"], out[fn + " lo"] = hi, lo
np.savez(sys.argv[2], **out)
"""

_OURS_CHILD = r"""
import json
import sys
import numpy as np
import minitorch as m

SPECIALS = json.loads(sys.argv[3])
x = np.load(sys.argv[1])
out = {"cap": np.array(m.backends.cpu.get_cpu_capability()),
       "trigamma vec": np.array(bool(m._C._has_vec_loop("polygamma", True)))}
for fn in ("erfinv", "atanh", "trigamma"):
    t = m.from_numpy(x[fn])
    out[fn] = (m.polygamma(1, t) if fn == "trigamma" else getattr(m, fn)(t)).numpy()
    # strided and odd-length views: the vector loops' tails and the strided path give the same values
    out[fn + " strided"] = (m.polygamma(1, t[1::3]) if fn == "trigamma" else getattr(m, fn)(t[1::3])).numpy()
    s = m.tensor(SPECIALS, dtype=m.float64)
    out[fn + " special"] = (m.polygamma(1, s) if fn == "trigamma" else getattr(m, fn)(s)).numpy()
np.savez(sys.argv[2], **out)
"""


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    return mpmath_reference(tmp_path_factory, _MP_CHILD, INPUTS)


def _ours(src, tmp_path, cap):
    out = tmp_path / f"ours_{cap}.npz"
    env = dict(os.environ, MINITORCH_CPU_CAPABILITY=cap)
    subprocess.run(
        [sys.executable, "-c", _OURS_CHILD, str(src), str(out), json.dumps(SPECIALS)],
        check=True,
        env=env,
        timeout=600,
    )
    got = np.load(out)
    want = {"avx512": ("AVX512", "AVX2", "DEFAULT"), "avx2": ("AVX2", "DEFAULT"), "default": ("DEFAULT",)}[
        cap
    ]
    assert str(got["cap"]) in want
    return got


def _ulps(got, hi, lo):
    """|got - (hi + lo)| in ulps of the float64 result (hi + lo: mpmath's value to ~2^-106), finite values."""
    fin = np.isfinite(hi) & np.isfinite(got)
    spacing = np.spacing(np.abs(hi[fin]))
    err = (np.abs((got[fin] - hi[fin]) - lo[fin])) / spacing
    return err, fin


# Largest errors measured (mpmath at 40 digits): erfinv 1.47 ulp on the vector path, 1.66 on the scalar one (one
# Newton step from a start within 3e-10: the residual's rounding over erf's derivative, glibc's erf on the
# scalar path); atanh 0.74 on the vector path (0.5 log of a double-double quotient, fdlibm's log kernel),
# glibc's on the scalar one; trigamma 3.3 away from the poles (the recurrence's sum of up to ten reciprocal
# squares), 4.06 at 1.8e-7 from -12 (the reflection's pi^2 / sin^2(pi r), r = x - its nearest integer) on the
# functor; the vector row (kernels/cpu/vec/polygamma_lanes.h: the sums to z >= 8, sin(pi r) by its Taylor
# series) and its SSE2 twin at the default capability 2.4 for x > 0 and 3.56 at -25.984 (the same bits on both)
LIMITS = {"erfinv": 2.0, "atanh": (1.0, 2.5), "trigamma": 5.0}


def _limit(fn, cap, got_cap):
    lim = LIMITS[fn]
    if isinstance(lim, tuple):  # (vector path, scalar functor)
        vec = got_cap != "DEFAULT" and minitorch._C._has_vec_loop(fn, True)
        return lim[0] if vec else lim[1]
    return lim


@pytest.mark.parametrize("cap", CAPS)
@pytest.mark.parametrize("fn", ["erfinv", "atanh", "trigamma"])
def test_float64_ulps_against_mpmath(reference, tmp_path, cap, fn):
    src, ref = reference
    got = _ours(src, tmp_path, cap)
    x = INPUTS[fn]
    hi, lo = ref[fn + " hi"], ref[fn + " lo"]
    g = got[fn]
    # where the reference is infinite (the poles), ours is the same infinity; NaN only where mpmath's is
    np.testing.assert_array_equal(np.isinf(g), np.isinf(hi))
    np.testing.assert_array_equal(np.isnan(g), np.isnan(hi))
    err, fin = _ulps(g, hi, lo)
    worst = float(err.max())
    assert worst <= _limit(fn, cap, str(got["cap"])), (fn, cap, worst, x[fin][np.argmax(err)])
    np.testing.assert_array_equal(got[fn + " strided"].view(np.uint64), g[1::3].view(np.uint64))
    sp = got[fn + " special"]
    if fn == "trigamma":
        # the vector row (kernels/cpu/vec/polygamma_lanes.h) runs on every table; the scalar functor's limit too
        assert bool(got["trigamma vec"]) == (str(got["cap"]) != "DEFAULT")
        # +0, -0, -1 and -2 are poles (+inf), psi1(1) = pi^2 / 6, psi1(inf) = 0; -inf (no limit: the poles
        # crowd there) and NaN give NaN, as PyTorch 2.15
        assert sp[[0, 1, 3, 5]].tolist() == [math.inf] * 4 and sp[6] == 0.0 and np.isnan(sp[[7, 8]]).all()
        np.testing.assert_allclose(sp[2], math.pi**2 / 6, rtol=4e-16)
    else:
        # odd: -0 stays -0; +-1 give +-inf; beyond and NaN give NaN
        assert sp[0] == 0 and not np.signbit(sp[0]) and sp[1] == 0 and np.signbit(sp[1])
        assert sp[2] == math.inf and sp[3] == -math.inf and np.isnan(sp[4:]).all()


def test_nextafter_and_frexp_bits_match_numpy():
    """float32 and float64: the one-pass kernels give NumPy's bits over random magnitudes of both signs, zeros of
    both signs, subnormals, the largest finite values, infinities and NaN, dense, broadcast and strided."""
    for dt in (np.float32, np.float64):
        fi = np.finfo(dt)
        rng = np.random.default_rng(4)
        with np.errstate(over="ignore"):
            a = (rng.standard_normal(3000) * 10.0 ** rng.integers(-320, 300, 3000)).astype(dt)
        edge = np.array(
            [0.0, -0.0, fi.smallest_subnormal, -fi.smallest_subnormal, fi.tiny, -fi.tiny, fi.max, -fi.max]
            + [np.inf, -np.inf, np.nan, 1.0, -1.0],
            dtype=dt,
        )
        ea, eb = (v.ravel() for v in np.meshgrid(edge, edge))
        a = np.concatenate([a, ea])
        b = np.concatenate([np.roll(a[:3000], 5), eb])
        A, B = minitorch.from_numpy(a), minitorch.from_numpy(b)
        got = minitorch.nextafter(A, B).numpy()
        same = (
            got.view(np.uint64 if dt == np.float64 else np.uint32)
            == np.nextafter(a, b).view(got.view(np.uint64 if dt == np.float64 else np.uint32).dtype)
        ) | (np.isnan(got) & np.isnan(np.nextafter(a, b)))
        assert same.all(), (a[~same][:4], b[~same][:4], got[~same][:4])
        np.testing.assert_array_equal(minitorch.nextafter(A[::3], B[::3]).numpy(), got[::3])
        toward = minitorch.nextafter(A, minitorch.tensor(-np.inf, dtype=A.dtype)).numpy()
        np.testing.assert_array_equal(toward, np.nextafter(a, dt(-np.inf)))
        m, e = minitorch.frexp(A)
        rm, re = np.frexp(a)
        assert e.dtype == minitorch.int32
        bits = np.uint64 if dt == np.float64 else np.uint32
        fin = np.isfinite(a)
        np.testing.assert_array_equal(m.numpy().view(bits)[fin], rm.view(bits)[fin])  # -0 keeps its sign
        np.testing.assert_array_equal(
            e.numpy(), np.where(fin, re, 0)
        )  # inf and NaN: exponent 0, as PyTorch's
        np.testing.assert_array_equal(m.numpy()[~fin & ~np.isnan(a)], a[~fin & ~np.isnan(a)])
        assert np.isnan(m.numpy()[np.isnan(a)]).all()
        ms, es = minitorch.frexp(A[1::2])
        np.testing.assert_array_equal(ms.numpy().view(bits), m.numpy()[1::2].view(bits))
        np.testing.assert_array_equal(es.numpy(), e.numpy()[1::2])


def test_nextafter_and_frexp_half_precision():
    """float16 and bfloat16: nextafter steps their own bits (the Python composite), frexp runs the kernel in float
    and rounds the mantissa, which has the dtype's bits, exactly."""
    a = np.array([0.0, -0.0, 6e-8, -6e-8, 1.0, -3.5, 65504.0, np.inf, -np.inf, 1e-5], dtype=np.float16)
    b = np.array([-1.0, 1.0, 0.0, 1.0, 2.0, 0.0, np.inf, 0.0, 0.0, 1.0], dtype=np.float16)
    got = minitorch.nextafter(minitorch.from_numpy(a), minitorch.from_numpy(b)).numpy()
    np.testing.assert_array_equal(got.view(np.uint16), np.nextafter(a, b).view(np.uint16))
    m, e = minitorch.frexp(minitorch.from_numpy(a))
    rm, re = np.frexp(a)
    fin = np.isfinite(a)
    np.testing.assert_array_equal(m.numpy().view(np.uint16)[fin], rm.view(np.uint16)[fin])
    np.testing.assert_array_equal(e.numpy()[fin], re[fin])
    x = minitorch.tensor([1e-39, -3.0, 0.0, 2.0**-133], dtype=minitorch.bfloat16)
    mb, eb = minitorch.frexp(x)
    xs = x.float().numpy()
    rm, re = np.frexp(xs)
    np.testing.assert_array_equal(mb.float().numpy(), rm)
    np.testing.assert_array_equal(eb.numpy(), re)


_DIGAMMA_CHILD = r"""
import sys
import numpy as np
import minitorch as m

rng = np.random.default_rng(8)
x = np.concatenate([rng.uniform(-50, 50, 20001), rng.uniform(0, 12, 8000), np.exp(rng.uniform(-700, 700, 4000)),
                    -np.exp(rng.uniform(-700, 50, 4000)), np.arange(-30, 30, 0.25),
                    [0.0, -0.0, np.inf, -np.inf, np.nan, 5e-324, -5e-324, 9.999999999999998, 10.0, 1e300, -1e300]])
t = m.from_numpy(x)
np.savez(sys.argv[1], cap=np.array(m.backends.cpu.get_cpu_capability()),
         vec=np.array(bool(m._C._has_vec_loop("digamma", True))), d=m.digamma(t).numpy(),
         strided=m.digamma(t[1::3]).numpy(), odd=m.digamma(t[:1001]).numpy(), x=x)
"""


def test_digamma_float64_vector_rows_give_the_scalar_bits(tmp_path):
    """float64 digamma's vector row (kernels/cpu/vec/unary_impl.h digamma_fast: the functor's operations in lanes,
    log and tan by the C library) gives the scalar functor's bits (MINITORCH_CPU_CAPABILITY=default) at each
    vector capability: dense, strided and odd-length (the tail), the poles, zeros of both signs, infinities, NaN,
    subnormals and both sides of the recurrence's end at 10."""
    got = {}
    for cap in CAPS:
        out = tmp_path / f"{cap}.npz"
        env = dict(os.environ, MINITORCH_CPU_CAPABILITY=cap)
        subprocess.run([sys.executable, "-c", _DIGAMMA_CHILD, str(out)], check=True, env=env, timeout=300)
        res = np.load(out)
        if str(res["cap"]) == cap.upper():
            got[cap] = res
    base = got["default"]
    assert not bool(base["vec"])
    x, d = base["x"], base["d"]
    # the scalar functor itself: psi(1) = -Euler's gamma, the poles NaN, -inf at +0 and +inf at -0, psi(inf) = inf
    at = {v: i for i, v in enumerate(x.tolist()) if v != 0}
    assert abs(d[at[1.0]] + 0.5772156649015329) < 1e-15
    assert np.isnan(d[at[-2.0]]) and np.isnan(d[at[-np.inf]]) and np.isnan(d[np.isnan(x)]).all()
    zero = x == 0
    assert (d[zero & ~np.signbit(x)] == -math.inf).all() and (d[zero & np.signbit(x)] == math.inf).all()
    assert d[at[np.inf]] == math.inf
    for cap, res in got.items():
        if cap == "default":
            continue
        assert bool(res["vec"]), cap
        for k in ("d", "strided", "odd"):
            np.testing.assert_array_equal(
                res[k].view(np.uint64), base[k].view(np.uint64), err_msg=f"{cap} {k}"
            )
