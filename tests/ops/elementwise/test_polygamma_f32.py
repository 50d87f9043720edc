"""float32 polygamma(n, x) on every CPU capability against mpmath: the vector row (kernels/cpu/vec/gamma_f32.h,
orders 1-6), digamma's row for n = 0, and the scalar functor beyond, its lanes outside the row's domain
included."""

import json
import math
import os
import subprocess
import sys

import numpy as np
import pytest
from utils import mpmath_reference

CAPS = ["avx512", "avx2", "default"]
ORDERS = [1, 2, 3, 4, 6, 7]

_rng = np.random.default_rng(61)
POS = np.concatenate(
    [
        _rng.uniform(0, 12, 1500),
        np.exp(_rng.uniform(np.log(1e-44), np.log(3e38), 700)),
        np.float32([1, 2, 7.999999, 8, 8.000001, 9.5, 1e-30, 3e38, 2.0**-126]),
    ]
).astype(np.float32)
# trigamma's own row takes x < 0 too: by reflection, next to the poles included
NEG = np.concatenate(
    [
        _rng.uniform(-30, 0, 800),
        -np.floor(_rng.uniform(0, 30, 300)) + np.exp(_rng.uniform(np.log(1e-6), np.log(0.5), 300)),
        -np.floor(_rng.uniform(1, 30, 300)) - np.exp(_rng.uniform(np.log(1e-6), np.log(0.5), 300)),
        -np.exp(_rng.uniform(np.log(1e-40), np.log(8e6), 300)),
    ]
).astype(np.float32)
NEG = NEG[NEG != np.round(NEG)]  # float32 rounding put some on a pole, where mpmath raises
SPECIALS = np.float32([0.0, -0.0, 1.0, -1.0, -2.0, -3.5, math.inf, -math.inf, math.nan, 1e-45, -1e-45])

_MP_CHILD = r"""
import json, sys
import mpmath as mp
import numpy as np

mp.mp.dps = 40
d = np.load(sys.argv[1])
out = {}
for n in json.loads(sys.argv[3]):
    xs = d["pos"] if n > 1 else np.concatenate([d["pos"], d["neg"]])
    out[str(n)] = np.array([float(mp.psi(n, mp.mpf(float(v)))) for v in xs.tolist()])
np.savez(sys.argv[2], **out)
"""

_OURS_CHILD = r"""
import json, sys
import numpy as np
import minitorch as m

d = np.load(sys.argv[1])
out = {"cap": np.array(m.backends.cpu.get_cpu_capability()),
       "vec": np.array(bool(m._C._has_vec_loop("polygamma", False)))}
x = np.concatenate([d["pos"], d["neg"]])
for n in json.loads(sys.argv[3]):
    t = m.from_numpy(x)
    out[str(n)] = m.polygamma(n, t).numpy()
    out[str(n) + " strided"] = m.polygamma(n, t[1::3]).numpy()
    out[str(n) + " tail"] = m.polygamma(n, t[:-5]).numpy()
    y = t.clone()
    y.polygamma_(n)
    out[str(n) + " inplace"] = y.numpy()
    # the float64 functor's result rounded once: what every lane outside the row's domain must give
    out[str(n) + " f64"] = m.polygamma(n, m.from_numpy(x.astype(np.float64))).numpy()
    s = m.from_numpy(d["special"])
    out[str(n) + " special"] = m.polygamma(n, s).numpy()
    out[str(n) + " special f64"] = m.polygamma(n, s.double()).numpy()
out["digamma"] = m.digamma(m.from_numpy(x)).numpy()
out["0"] = m.polygamma(0, m.from_numpy(x)).numpy()
np.savez(sys.argv[2], **out)
"""


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    return mpmath_reference(
        tmp_path_factory,
        _MP_CHILD,
        {"pos": POS, "neg": NEG, "special": SPECIALS},
        [json.dumps(ORDERS)],
        timeout=900,
    )


@pytest.mark.parametrize("cap", CAPS)
def test_polygamma_float32_against_mpmath(reference, tmp_path, cap):
    """Within 0.501 ulp of mpmath wherever it is computed in double and rounded once (the row's series leaves
    ~1e-13 relative at n = 6, the functor ~1e-15), the poles' infinities and NaNs as the float64 functor's; the
    lanes the row leaves to the functor (x <= 0 for n >= 2, non-finite x) give its float64 result rounded;
    strided, tail and in-place results bit for bit the dense ones; n = 0 digamma's."""
    src, ref = reference
    out = tmp_path / f"ours_{cap}.npz"
    env = dict(os.environ, MINITORCH_CPU_CAPABILITY=cap)
    subprocess.run(
        [sys.executable, "-c", _OURS_CHILD, str(src), str(out), json.dumps(ORDERS)],
        check=True,
        env=env,
        timeout=600,
    )
    got = np.load(out)
    path = str(got["cap"])
    assert (
        path
        in {"avx512": ("AVX512", "AVX2", "DEFAULT"), "avx2": ("AVX2", "DEFAULT"), "default": ("DEFAULT",)}[
            cap
        ]
    )
    if path != "DEFAULT":
        assert bool(got["vec"])
    npos = len(POS)
    for n in ORDERS:
        g = got[str(n)]
        want = ref[str(n)]
        mine = g[: len(want)]
        with np.errstate(over="ignore"):
            w32 = want.astype(np.float32)
        fin = np.isfinite(w32)
        assert np.array_equal(np.isinf(mine), ~fin), (n, cap)  # overflow where the true value does
        spacing = np.spacing(np.abs(w32[fin])).astype(np.float64)
        err = np.abs(mine[fin].astype(np.float64) - want[fin]) / spacing
        worst = float(err.max())
        assert worst <= 0.501, (
            n,
            cap,
            worst,
            float(np.concatenate([POS, NEG])[: len(want)][fin][np.argmax(err)]),
        )
        with np.errstate(over="ignore"):
            f64 = got[str(n) + " f64"].astype(np.float32)
            spd = got[str(n) + " special f64"].astype(np.float32)
        if n > 1:  # x <= 0: the functor's float64 result, rounded
            np.testing.assert_array_equal(g[npos:], f64[npos:])
        sp = got[str(n) + " special"]
        assert np.array_equal(sp, spd, equal_nan=True) and np.array_equal(np.signbit(sp), np.signbit(spd)), (
            n,
            sp,
        )
        np.testing.assert_array_equal(got[str(n) + " strided"].view(np.uint32), g[1::3].view(np.uint32))
        np.testing.assert_array_equal(got[str(n) + " tail"].view(np.uint32), g[:-5].view(np.uint32))
        np.testing.assert_array_equal(got[str(n) + " inplace"].view(np.uint32), g.view(np.uint32))
    np.testing.assert_array_equal(got["0"].view(np.uint32), got["digamma"].view(np.uint32))
