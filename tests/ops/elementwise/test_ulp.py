"""Accuracy of the float unary ops in ulps against a higher-precision NumPy reference, over each function's
domain and its edge values (0, -0, +-inf, NaN, denormals, large arguments), for every CPU instruction-set
path (SLEEF AVX-512, AVX2, the scalar functors), float32 and float64, and half/bfloat16 through float."""

import json
import math
import os
import subprocess
import sys

import numpy as np
import pytest

import minitorch

HERE = os.path.dirname(os.path.abspath(__file__))

# op -> (reference on a NumPy array of a wider type, float32 domain (lo, hi, log-spaced?))
_erf = np.vectorize(math.erf, otypes=[np.float64])
_erfc = np.vectorize(math.erfc, otypes=[np.float64])
DIRECT = {
    "exp": (np.exp, (-103.0, 88.7, False)),
    "exp2": (np.exp2, (-149.0, 127.9, False)),
    "expm1": (np.expm1, (-20.0, 88.7, False)),
    "log": (np.log, (1e-45, 3e38, True)),
    "log2": (np.log2, (1e-45, 3e38, True)),
    "log10": (np.log10, (1e-45, 3e38, True)),
    "log1p": (np.log1p, (-0.999, 3e38, True)),
    "sin": (np.sin, (-1e4, 1e4, False)),
    "cos": (np.cos, (-1e4, 1e4, False)),
    "tan": (np.tan, (-1e4, 1e4, False)),
    "asin": (np.arcsin, (-1.0, 1.0, False)),
    "acos": (np.arccos, (-1.0, 1.0, False)),
    "atan": (np.arctan, (-1e6, 1e6, True)),
    "atanh": (np.arctanh, (-0.99999, 0.99999, False)),
    "sinh": (np.sinh, (-89.0, 89.0, False)),
    "cosh": (np.cosh, (-89.0, 89.0, False)),
    "tanh": (np.tanh, (-20.0, 20.0, False)),
    "erf": (_erf, (-6.0, 6.0, False)),
    "erfc": (_erfc, (-6.0, 27.0, False)),
}
# composed formulas (the same ones PyTorch's vectorized CPU kernels use): checked with the suite's tolerances
COMPOSED = {
    "sigmoid": lambda x: 1 / (1 + np.exp(-x)),
    "silu": lambda x: x / (1 + np.exp(-x)),
    "gelu": lambda x: x * 0.5 * (1 + _erf(x.astype(np.float64) / math.sqrt(2))),
    "gelu_tanh": lambda x: 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x**3))),
    "mish": lambda x: x * np.tanh(np.where(x > 20, x, np.log1p(np.exp(np.minimum(x, 20))))),
}
SPECIAL32 = np.array(
    [
        0.0,
        -0.0,
        np.inf,
        -np.inf,
        np.nan,
        1e-45,
        -1e-45,
        1e-40,
        -1e-40,
        1.17549435e-38,
        3.4e38,
        -3.4e38,
        1.0,
        -1.0,
    ],
    dtype=np.float32,
)
SPECIAL64 = np.array(
    [
        0.0,
        -0.0,
        np.inf,
        -np.inf,
        np.nan,
        5e-324,
        -5e-324,
        1e-310,
        -1e-310,
        2.2e-308,
        1.7e308,
        -1.7e308,
        1.0,
        -1.0,
    ],
    dtype=np.float64,
)


def limit(op, dtype, cap):
    """Largest error allowed, in ulps. Our vector kernels and SLEEF's u10 functions (where the build has SLEEF)
    are held to 1.0 ulp; without SLEEF, what has no kernel of our own runs the scalar path's glibc. The scalar
    path (glibc and VecExp.h's float32 exp, subnormal results included; AVX-512 takes AVX2's
    rows where its table has none) measured up to 2.06 (tanh, sinh, log10), as NumPy's own
    results on this libm (erfc's float64 reference, math.erfc, is a float64 result too). float32 tanh: AVX-512 has our table of polynomials (1.17 ulp over all floats), AVX2
    Cephes' formula (1.31 measured). The float64 erf reference (math.erf) is itself a float64 result. `cap` is
    the path of the process that calls (a child forced to another capability asks its own table)."""
    vec = cap != "DEFAULT" and minitorch._C._has_vec_loop(op, dtype == np.float64)
    u = 1.0 if vec else 2.5  # no vector loop on this path: the scalar functor
    if op == "tanh" and dtype == np.float32 and vec:
        u = 1.5  # AVX-512 table 1.17, AVX2 Cephes' tanhf over SLEEF's or our expf 1.31 (2.3x faster than SLEEF's)
    if op == "erfc" and dtype == np.float64 and vec:
        # against glibc's erfc, itself off by up to 2.49 ulp: AVX2's kernel (s_erf.c's method) measured 2.31 ulp
        # from mpmath's 120-bit erfc over [-6, 27] and 4.0 from glibc's
        return 5.0
    if op == "erfc" and not vec:
        u = 3.0  # glibc 2.36's erfcf: 2.58 ulp on test_float32_dense's comb of [0, 10.1]
    return max(u, 2.0) if (op in ("erf", "erfc") and dtype == np.float64) else u


def _sample(op, dtype, cap, n=20000):
    lo, hi, logspace = DIRECT[op][1]
    rng = np.random.default_rng(0)
    if logspace:
        pos = np.exp(rng.uniform(np.log(lo if lo > 0 else 1e-30), np.log(hi), n))
        x = pos if lo > 0 else np.concatenate([pos, rng.uniform(lo, 0, n // 4)])
    else:
        x = rng.uniform(lo, hi, n)
        x = np.concatenate([x, rng.uniform(-1, 1, n // 4) * min(1.0, hi)])  # dense near 0
    if dtype == np.float64:
        x = np.concatenate([x, x * (1 + 1e-9)])
    return x.astype(dtype)


def _ulps(ours, ref, dtype):
    """|ours - ref| in units of the spacing of `dtype` at ref (ref in a wider type), finite values only."""
    refd = ref.astype(dtype)
    spacing = np.abs(np.spacing(refd)).astype(np.longdouble)
    err = np.abs(ours.astype(np.longdouble) - ref.astype(np.longdouble))
    fin = np.isfinite(refd) & np.isfinite(ours)
    return float(np.max(err[fin] / spacing[fin])) if fin.any() else 0.0


def max_ulps(op, dtype, cap):
    """Largest error of minitorch.<op> over its sampled domain, in ulps of dtype."""
    x = _sample(op, dtype, cap)
    wide = np.float64 if dtype == np.float32 else np.longdouble
    ref = DIRECT[op][0](x.astype(wide) if op not in ("erf", "erfc") else x.astype(np.float64))
    ours = getattr(minitorch, op)(minitorch.from_numpy(x)).numpy()
    # a result that overflows (or not) where the reference does not is an error too
    if (np.isfinite(ref.astype(dtype)) != np.isfinite(ours)).any():
        return float("inf")
    return _ulps(ours, ref, dtype)


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=["float32", "float64"])
@pytest.mark.parametrize("op", sorted(DIRECT))
def test_direct_ulps(op, dtype):
    cap = minitorch.backends.cpu.get_cpu_capability()
    assert max_ulps(op, dtype, cap) <= limit(op, dtype, cap)


def _float32_grid(lo, hi, step):
    """Every step-th float32 bit pattern in [lo, hi] (lo, hi >= 0), both signs."""
    bits = np.arange(np.float32(lo).view(np.int32), np.float32(hi).view(np.int32) + 1, step, dtype=np.int32)
    x = bits.view(np.float32)
    return np.concatenate([x, -x])


def _edges32(points):
    """Each point and its float32 neighbours two ulps either way."""
    p = np.asarray(points, dtype=np.float32)
    out, up, down = [p], p, p
    for _ in range(2):
        up, down = np.nextafter(up, np.float32(np.inf)), np.nextafter(down, np.float32(-np.inf))
        out += [up, down]
    return np.concatenate(out)


# Where the own float32 kernels (kernels/cpu/vec/avx512_math.h) change interval or formula: tanh's quarter
# octaves from 1/16 to 16 and its clamp at 9.5 (tanh rounds to 1 from 9.01); log's table of m = 1 + k/16,
# whose edges are m = 1 + (k + 1/2)/16 in [0.75, 1.5) at many exponents, and 1 itself; erf's split at 2, its
# tail's clamps 2 and 3.93.
EDGES32 = {
    "tanh": _edges32(
        [0.0, 2.0**-4, 9.01, 9.5, 10.0, 20.0]
        + [2.0**k * (1 + j / 4) for k in range(-4, 4) for j in range(4)]
        + [float(np.float32(1e-30)), float(np.float32(1e-40))]
    ),
    # log: 32 entries, m = 1 + i/32 (i = 0..15) and 0.75 + i/64 (m < 1), at many exponents; x = 1 between the
    # first and last; the worst points found by the exhaustive checks of this kernel and the one before it
    "log": _edges32(
        [
            2.0**e * m
            for e in (-149, -130, -126, -100, -20, -1, 0, 1, 20, 100, 127)
            for m in [1 + i / 32 for i in range(17)] + [0.75 + i / 64 for i in range(16)]
        ]
        + [1.0, 0.75, 1.5, 2.0**-149, 2.0**-126, 3.4e38, 1.06067801, 1.03158665]
    ),
    "erf": _edges32([2.0, 3.93, 4.0, 1e-30, 1e-40, 2.0**-126]),
    # erfc runs in double through AVX2's float64 pieces (0.25 for x only, 0.84375, 1.25, 1/0.35); float32
    # results turn subnormal past 9.19 and 0 past 10.05
    "erfc": _edges32([0.25, 0.84375, 1.25, 1 / 0.35, 6.0, 9.19, 10.05, 10.06, 1e-30, 1e-40, 2.0**-126]),
    # expm1 runs in double through exp's table: n = round(16 x / ln2) steps at (m + 1/2) ln2/16 (n = 0, where u is
    # the polynomial alone, below ln2/32), overflow past 88.72, -1 from -17.3, the clamps 89 and -104
    "expm1": _edges32(
        [(m + 0.5) * math.log(2) / 16 for m in range(-30, 30)]
        + [88.72, 88.7228, 89.0, 17.3, 104.0, 1e-30, 1e-40, 2.0**-25]
    ),
    # log1p shares log's table through u = 1 + x; below |x| = 0.03 it takes x itself, and u = 1 below 2^-25
    "log1p": _edges32(
        [2.0**e * (1 + (k + 0.5) / 16) - 1 for e in (-1, 0, 1, 2, 20, 100) for k in range(-4, 8)]
        + [0.03, 2.0**-25, 2.0**-24, 1e-30, 1e-40, 0.5, 1.0, 3.4e38]
    ),
    # exp: n = round(32 x / ln2) steps at (m + 1/2) ln2/32, overflow past 88.72, subnormal results below -87.34,
    # 0 from -103.97, the clamps 89 and -104
    "exp": _edges32(
        [(m + 0.5) * math.log(2) / 32 for m in range(-4800, 4100, 37)]
        + [(m + 0.5) * math.log(2) / 32 for m in range(-40, 40)]
        + [88.72, 88.7228, 89.0, -87.34, -87.5620651, -103.97, -104.0, 1e-30, 1e-40]
    ),
    # sin/cos run in double after x = m pi/2 + r (|x| <= 2^20, beyond it SLEEF's): the floats nearest to
    # multiples of pi/2, where r is tiny and the reduction's error would show, and the 2^20 switch
    "sin": _edges32(
        [k * math.pi / 2 for k in list(range(1, 300)) + list(range(300, 667600, 331))]
        + [2.0**20, 2.0**20 * 1.01, 1e-30, 1e-40, 2.0**-126, 1e6, 1e7]
    ),
    # AVX2's float32 expm1/log2/log10/tan/asin/acos/sinh/cosh run in double (kernels/cpu/vec/
    # f32_via_f64.h), its exp2 in float (avx2_math.h): exp2's rint(x) steps at half-integers, its exact
    # integers, overflow at 128, the subnormal range down to -150 and the clamps at 129 and -151
    "exp2": _edges32(
        [k / 2 for k in range(-300, 257)]
        + [127.99, 128.0, 129.0, -126.0, -149.0, -149.5, -150.0, -151.0, -152.0, 1e-30, 1e-40]
    ),
    # log2/log10: the mantissa split at sqrt(2), powers of two and of ten (exact results), x near 1
    "log2": _edges32(
        [math.sqrt(2) * 2.0**e for e in range(-149, 128, 3)]
        + [2.0**e for e in range(-149, 128, 5)]
        + [10.0**e for e in range(-44, 39)]
        + [1.0, 3.4e38, 1e-45, 1.17549435e-38]
    ),
    # tan: near multiples of pi/4 (the quadrant switch) and of pi/2 (the poles, where -cos r / sin r is
    # largest), the 2^20 switch to the C library
    "tan": _edges32(
        [k * math.pi / 4 for k in range(1, 400)]
        + [k * math.pi / 2 for k in range(400, 667600, 977)]
        + [2.0**20, 2.0**20 * 1.01, 1e-30, 1e-40, 2.0**-126]
    ),
    # asin/acos: +-1 and the floats just inside, 0.5, tiny arguments
    "asin": _edges32([1.0, 1.0 - 2.0**-24, 0.5, 0.9999, 1e-4, 2.0**-12, 1e-30, 1e-40, 2.0**-126]),
    # sinh/cosh (float32 through the float64 kernel): its switches at 0.5 and 22, overflow past 89.4
    "sinh": _edges32([0.5, 22.0, 89.0, 89.4, 89.415985, 89.5, 1e-30, 1e-40, 2.0**-126, 1e-4]),
}
EDGES32["cos"] = EDGES32["sin"]
EDGES32["log"] = EDGES32["log"][EDGES32["log"] > 0]
EDGES32["log10"] = EDGES32["log2"]
EDGES32["acos"] = EDGES32["asin"]
EDGES32["cosh"] = EDGES32["sinh"]


@pytest.mark.parametrize("op", sorted(EDGES32))
def test_float32_interval_edges(op):
    x = np.concatenate([EDGES32[op], -EDGES32[op]]) if op != "log" else EDGES32[op]
    x = x[x > -1] if op == "log1p" else x
    x = x[x > 0] if op in ("log2", "log10") else x
    with np.errstate(invalid="ignore"):  # asin/acos of the floats just past +-1: NaN, as ours must be
        ref = DIRECT[op][0](x.astype(np.float64))
    ours = getattr(minitorch, op)(minitorch.from_numpy(x)).numpy()
    with np.errstate(over="ignore"):  # expm1 overflows float32 past 88.72, as ours must
        np.testing.assert_array_equal(np.isfinite(ours), np.isfinite(ref.astype(np.float32)))
        # bit for bit the strided layout (a buffer) and single elements (a padded tail)
        np.testing.assert_array_equal(getattr(minitorch, op)(minitorch.from_numpy(x)[::3]).numpy(), ours[::3])
        np.testing.assert_array_equal(getattr(minitorch, op)(minitorch.from_numpy(x[5:6])).numpy(), ours[5:6])
        assert _ulps(ours, ref, np.float32) <= limit(
            op, np.float32, minitorch.backends.cpu.get_cpu_capability()
        )
    np.testing.assert_array_equal(np.signbit(ours[x == 0]), np.signbit(ref[x == 0]))  # tanh(-0) = -0


@pytest.mark.parametrize(
    "op,lo,hi",
    [
        ("tanh", 0.0, 12.0),
        ("log", 1e-45, 3.4e38),
        ("erf", 0.0, 4.5),
        ("erfc", 0.0, 10.1),
        ("log1p", 0.0, 3.4e38),
        ("expm1", 0.0, 88.7),
        ("exp", 0.0, 88.7),
        ("sin", 0.0, 1.1e6),
        ("cos", 0.0, 1.1e6),
        ("exp2", 0.0, 128.0),
        ("log2", 1e-45, 3.4e38),
        ("log10", 1e-45, 3.4e38),
        ("tan", 0.0, 1.1e6),
        ("asin", 0.0, 1.0),
        ("acos", 0.0, 1.0),
        ("sinh", 0.0, 89.4),
        ("cosh", 0.0, 89.4),
    ],
)
def test_float32_dense(op, lo, hi):
    """A regular comb through all float32 bit patterns of the domain (the kernels were checked on every
    float: tanh 1.17 ulp, log 0.752 ulp, log1p 0.81 ulp, expm1 0.50 ulp; AVX2's through double on every 257th
    float against long double: exp2 and expm1 0.5001, log2, log10, asin, acos, sinh, cosh 0.500, tan 0.500 up
    to 2^20)."""
    x = _float32_grid(lo, hi, 997)
    if op in ("log", "log2", "log10"):
        x = x[x > 0]
    if op == "log1p":
        x = x[x > -1]
    ref = DIRECT[op][0](x.astype(np.float64))
    ours = getattr(minitorch, op)(minitorch.from_numpy(x)).numpy()
    assert np.isfinite(ours).all()
    assert _ulps(ours, ref, np.float32) <= limit(op, np.float32, minitorch.backends.cpu.get_cpu_capability())


@pytest.mark.parametrize("op", ["sin", "cos"])
def test_float32_sincos_lane_by_lane(op):
    """A lane beyond the double kernel's range (|x| > 2^20, inf, NaN) takes SLEEF's (or libm's) function alone: its
    neighbours' results are those they have in a vector of small values only."""
    rng = np.random.default_rng(3)
    small = rng.uniform(-100, 100, 64).astype(np.float32)
    mixed = small.copy()
    mixed[::5] = np.array(
        [3e7, -1e30, np.inf, np.nan, 2.0**20 + 1, -4e9, 1e38, 5e8, -np.inf, 7e6, 3e9, 2e20, 9e9]
    )[: len(mixed[::5])]
    f = getattr(minitorch, op)
    alone = f(minitorch.from_numpy(small)).numpy()
    together = f(minitorch.from_numpy(mixed)).numpy()
    keep = np.ones(64, bool)
    keep[::5] = False
    np.testing.assert_array_equal(together[keep], alone[keep])
    big = mixed[~keep]
    with np.errstate(invalid="ignore"):  # sin/cos of +-inf are NaN, as ours must be
        ref = getattr(np, op)(big.astype(np.float64))
    np.testing.assert_array_equal(np.isnan(together[~keep]), np.isnan(ref))
    fin = np.isfinite(ref)
    assert _ulps(together[~keep][fin], ref[fin], np.float32) <= 1.0
    zeros = np.array([0.0, -0.0] * 9, dtype=np.float32)  # 18: a whole vector and a tail
    got = f(minitorch.from_numpy(zeros)).numpy()
    np.testing.assert_array_equal(got, np.float32(0.0 if op == "sin" else 1.0))
    np.testing.assert_array_equal(np.signbit(got), np.signbit(zeros) if op == "sin" else False)


def _edges64(points, k=3):
    """Each point and its float64 neighbours k ulps either way."""
    p = np.asarray(points, dtype=np.float64)
    out, up, down = [p], p, p
    for _ in range(k):
        up, down = np.nextafter(up, np.inf), np.nextafter(down, -np.inf)
        out += [up, down]
    return np.concatenate(out)


# Where the own float64 kernels (kernels/cpu/vec/avx512_math.h) change table entry or clamp: exp's n =
# round(16 x / ln2) steps at x = (m + 1/2) ln2/16 (tanh's at |x| = (m + 1/2) ln2/32), its overflow (709.78),
# first subnormal (-708.4) and zero (-745.13) results and clamps (746, -746); tanh's clamp (20; tanh rounds to 1
# from 19.06), its switch from the odd polynomial to 1 - 2 / (exp(2|x|) + 1) at |x| = 0.3, the older formula's
# weak spot near 0.013; tiny and subnormal x.
_LN2_16 = math.log(2) / 16
EDGES64 = {
    "exp": _edges64(
        [(m + 0.5) * _LN2_16 for m in range(-17200, 16390, 7)]
        + [(m + 0.5) * _LN2_16 for m in range(-40, 40)]
        + [
            709.782712893384,
            -708.3964185322641,
            -745.1332191019411,
            710.0,
            746.0,
            -746.0,
            1e-300,
            5e-324,
            0.0,
        ]
    ),
    "tanh": _edges64(
        [(m + 0.5) * _LN2_16 / 2 for m in range(930)]
        + list(np.linspace(0.005, 0.03, 2001))
        + list(np.linspace(0.29, 0.31, 2001))
        + [0.3, 18.7, 19.06, 20.0, 1e-300, 5e-324, 2.0**-1022, 1e-8, 0.0]
    ),
    # AVX2's float64 log/log1p (kernels/cpu/vec/avx2_math.h): the mantissa split at sqrt(2), the subnormal
    # scaling, 1 + x crossing 2 (the correction term's two formulas) and log1p's own-x range [sqrt(1/2) - 1,
    # sqrt(2) - 1); sin/cos: the Cody-Waite reduction's quadrant edges near multiples of pi/4, the largest
    # multiples of pi/2 it serves and its limit 2^20 pi/2 (beyond: the C library, lane by lane)
    "log": _edges64(
        [math.sqrt(2) * 2.0**e for e in range(-1074, 1024, 3)]
        + [1.0, 2.0, 0.5, 2.0**-1022, 2.0**-1023, 5e-324, 1.7976931348623157e308]
        + list(1 + np.linspace(-1e-6, 1e-6, 201))
    ),
    "log1p": _edges64(
        [math.sqrt(2) - 1, math.sqrt(0.5) - 1, 1.0, -0.5, -0.9999999999, 2.0**-54, 2.0**-53, 1e-300, 5e-324]
        + [2.0**e for e in range(-60, 1024, 5)]
        + list(np.linspace(-0.3, 0.42, 2001))
    ),
    "sin": _edges64(
        [m * math.pi / 4 for m in range(-400, 401)]
        + [m * math.pi / 2 for m in (10**5, 333333, 10**6, 1048575, 1048576)]
        + [1647099.0, 1647100.0, 1e7, 1e22, 2.0**-26, 1e-300, 5e-324, 0.0]
    ),
    # AVX2's float64 erf: s_erf.c's four pieces (0.84375, 1.25, 1/0.35 between its two erfc fits, 6) and the
    # scaled formula below 2^-28
    "erf": _edges64(
        [0.84375, 1.25, 1 / 0.35, 6.0, 2.0**-28, 1e-300, 5e-324, 0.0, 28.0]
        + list(np.linspace(0.8, 1.3, 2001))
        + list(np.linspace(2.8, 2.9, 501))
    ),
    # AVX2's float64 erfc: s_erf.c's pieces (x < 0.25 signed, 0.84375, 1.25, 1/0.35, the clamp at 28), exp's
    # subnormal results past 26.55 and 0 past 27.23
    "erfc": _edges64(
        [0.25, 0.84375, 1.25, 1 / 0.35, 6.0, 26.55, 27.0, 27.23, 27.3, 28.0, 2.0**-56, 1e-300, 5e-324, 0.0]
        + list(np.linspace(0.2, 1.3, 2001))
        + list(np.linspace(2.8, 2.9, 501))
        + list(np.linspace(5.0, 27.5, 2001))
    ),
    # AVX2's float64 atan: s_atan.c's piece edges (0.4375, 0.6875, 1.1875, 2.4375), tiny and huge |x|
    "atan": _edges64(
        [0.4375, 0.6875, 1.1875, 2.4375, 2.0**-27, 2.0**66, 1e300, 5e-324, 0.0]
        + list(np.linspace(0.4, 2.5, 4001))
    ),
    # AVX2's float64 exp2 (exp's table on the exact reduction x = k/16 + f): the k steps at (m + 1/2)/16,
    # integers (exact), overflow at 1024, subnormal results from -1022, 0 from -1075, the clamps +-1076
    "exp2": _edges64(
        [(m + 0.5) / 16 for m in range(-17200, 16390, 7)]
        + [float(k) for k in range(-1074, 1024, 9)]
        + [1023.99, 1024.0, -1022.0, -1074.0, -1075.0, -1076.0, 1076.0, 1e-300, 5e-324, 0.0]
    ),
    # expm1: the Taylor branch below 0.3, exp's parts above (the steps at (m + 1/2) ln2/16), the clamp 40 where
    # exp itself takes over, overflow at 709.78, tiny x (x itself)
    "expm1": _edges64(
        [(m + 0.5) * _LN2_16 for m in range(-80, 80)]
        + list(np.linspace(0.29, 0.31, 2001))
        + [0.3, 40.0, 36.7, 709.782712893384, 710.0, 2.0**-54, 2.0**-53, 1e-300, 5e-324, 0.0]
    ),
    # log2/log10: log's mantissa split at sqrt(2), powers of two (log2 exact) and ten, x near 1, subnormals
    "log2": _edges64(
        [math.sqrt(2) * 2.0**e for e in range(-1074, 1024, 3)]
        + [2.0**e for e in range(-1074, 1024, 7)]
        + [10.0**e for e in range(-300, 301, 3)]
        + [1.0, 2.0**-1022, 5e-324, 1.7976931348623157e308]
        + list(1 + np.linspace(-1e-6, 1e-6, 201))
    ),
    # sinh/cosh: sinh's Taylor branch below 0.5, exp's parts to 22, e^a / 2 beyond (inf past 710.4758)
    "sinh": _edges64(
        [0.5, 22.0, 710.4758600739439, 710.4758600739440, 711.0, 1e-300, 5e-324, 0.0, 2.0**-26]
        + list(np.linspace(0.45, 0.55, 2001))
        + list(np.linspace(21.9, 22.1, 501))
    ),
}
# AVX2's float64 asin/acos (e_asin.c, e_acos.c): the switch to the square-root form at |x| = 0.5, asin's at
# 0.975 (0x3fef3333), +-1 and the doubles just inside, tiny and subnormal x
EDGES64["asin"] = _edges64(
    [0.5, 0.97499990463256836, 0.975, 1.0, 2.0**-27, 2.0**-57, 1e-300, 5e-324, 0.0]
    + list(np.linspace(0.45, 0.55, 2001))
    + list(np.linspace(0.97, 0.98, 2001))
    + list(1 - np.logspace(-16, -1, 500))
)
EDGES64["acos"] = EDGES64["asin"]
# AVX2's float64 tan: sin's reduction (quadrant edges near multiples of pi/4, its limit 2^20 pi/2), k_tan.c's
# switch to pi/4 - |x| at 0.6744 (0x3fe59428) of the reduced argument, odd quadrants (-1/tan) near the poles
EDGES64["tan"] = _edges64(
    [m * math.pi / 4 for m in range(-400, 401)]
    + [k * math.pi / 2 + d for k in (0, 1, 3, 1001) for d in (0.6743354797363281, -0.6743354797363281)]
    + [m * math.pi / 2 for m in (10**5, 333333, 10**6, 1048575, 1048576)]
    + [1647099.0, 1647100.0, 1e7, 1e22, 2.0**-27, 2.0**-28, 1e-300, 5e-324, 0.0]
    + list(np.linspace(0.6, 0.75, 2001))
    + list(np.linspace(1.5, 1.64, 2001))
)
EDGES64["cos"] = EDGES64["sin"]
EDGES64["log10"] = EDGES64["log2"]
EDGES64["cosh"] = EDGES64["sinh"]


def _check_float64(op, x):
    """ours(x) against the long-double reference: the same infinities, within the op's ulp limit; returns ours."""
    ours = getattr(minitorch, op)(minitorch.from_numpy(x)).numpy()
    ref = DIRECT[op][0](x.astype(np.longdouble))
    with np.errstate(over="ignore"):  # exp's reference beyond 709.78 overflows float64, as ours must
        assert (np.isfinite(ours) == np.isfinite(ref.astype(np.float64))).all()
        assert _ulps(ours, ref, np.float64) <= limit(
            op, np.float64, minitorch.backends.cpu.get_cpu_capability()
        )
    return ours


@pytest.mark.parametrize("op", sorted(EDGES64))
def test_float64_table_edges(op):
    x = EDGES64[op]
    x = np.concatenate([x, -x])
    if op in ("log2", "log10"):
        x = np.abs(x)
    ours = _check_float64(op, x)
    if op in ("tanh", "sin", "erf", "atan", "sinh", "expm1", "asin", "tan"):
        # odd, -0 stays -0 (sin's sign follows the quadrant beyond its small arguments)
        # (a NaN's sign bit means nothing: asin beyond +-1)
        keep = (np.abs(x) < (1e-8 if op in ("sin", "tan") else np.inf)) & ~np.isnan(ours)
        np.testing.assert_array_equal(np.signbit(ours[keep]), np.signbit(x[keep]))


@pytest.mark.parametrize("op", sorted(EDGES64))
def test_float64_dense(op):
    """Two million float64 values over the whole range of the function, log-spaced down to subnormals."""
    rng = np.random.default_rng(4)
    hi = {
        "exp": 709.7,
        "tanh": 25.0,
        "log": 1.7e308,
        "log1p": 1.7e308,
        "sin": 2e6,
        "cos": 2e6,
        "erf": 7.0,
        "erfc": 27.5,
        "atan": 1.7e308,
        "exp2": 1023.9,
        "expm1": 709.7,
        "log2": 1.7e308,
        "log10": 1.7e308,
        "sinh": 710.4,
        "cosh": 710.4,
        "asin": 1.0,
        "acos": 1.0,
        "tan": 2e6,
    }[op]
    lo = {"exp": -745.0, "log": 0.0, "log1p": -1.0, "exp2": -1075.0, "expm1": -50.0}.get(op, -hi)
    x = np.concatenate(
        [
            rng.uniform(lo, min(hi, 1e3), 10**6),
            np.exp(rng.uniform(np.log(5e-324), np.log(hi), 10**6)) * rng.choice([-1.0, 1.0], 10**6),
        ]
    )
    if op in ("log", "log2", "log10"):
        x = np.abs(x)
    elif op == "expm1":
        x = np.maximum(x, -50.0)
    elif op == "log1p":
        x = np.where(x < 0, -np.minimum(-x, 1.0) * 0.99999, x)
    _check_float64(op, x)


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=["float32", "float64"])
@pytest.mark.parametrize("op", sorted(DIRECT) + sorted(COMPOSED))
def test_special_values(op, dtype):
    x = SPECIAL32 if dtype == np.float32 else SPECIAL64
    with np.errstate(all="ignore"):
        ref = np.asarray(
            (DIRECT[op][0] if op in DIRECT else COMPOSED[op])(x.astype(np.float64)), dtype=np.float64
        )
    ours = getattr(minitorch, op)(minitorch.from_numpy(x)).numpy()
    np.testing.assert_array_equal(np.isnan(ours), np.isnan(ref.astype(dtype)), err_msg=f"{op} NaN at {x}")
    np.testing.assert_array_equal(np.isinf(ours), np.isinf(ref.astype(dtype)), err_msg=f"{op} inf at {x}")
    fin = np.isfinite(ours)
    np.testing.assert_allclose(ours[fin], ref[fin].astype(dtype), rtol=4e-7 if dtype == np.float32 else 1e-15)
    # signed zeros: odd functions keep -0, as libm
    zero = (ref == 0) & (x == 0)
    np.testing.assert_array_equal(np.signbit(ours[zero]), np.signbit(ref[zero].astype(dtype)))


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=["float32", "float64"])
@pytest.mark.parametrize("op", sorted(COMPOSED))
def test_composed(op, dtype):
    x = np.random.default_rng(1).uniform(-30, 30, 30000).astype(dtype)
    with np.errstate(over="ignore", invalid="ignore"):
        ref = COMPOSED[op](x.astype(np.float64 if dtype == np.float32 else np.longdouble))
    ours = getattr(minitorch, op)(minitorch.from_numpy(x)).numpy()
    rtol, atol = (1.3e-6, 1e-5) if dtype == np.float32 else (1e-7, 1e-7)  # PyTorch's assert_close defaults
    np.testing.assert_allclose(ours, ref.astype(np.float64), rtol=rtol, atol=atol)


@pytest.mark.parametrize("op", ["tanh", "exp", "log1p", "sigmoid", "gelu", "sin"])
@pytest.mark.parametrize("dtype", [minitorch.float16, minitorch.bfloat16])
def test_half_through_float(op, dtype):
    x = minitorch.from_numpy(np.random.default_rng(2).uniform(0.01, 8, 1000).astype(np.float32)).to(dtype)
    f = getattr(minitorch, op)
    # computed in float, rounded once: exactly the float32 result rounded
    assert minitorch.equal(f(x), f(x.float()).to(dtype))


@pytest.mark.parametrize("op", ["tanh", "exp", "expm1", "sigmoid", "silu", "erf", "erfc", "exp2", "erfinv"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=["float32", "float64"])
def test_layout_independent(op, dtype):
    """Dense, strided, odd-length and parallel-sized inputs give bit-identical values (one code path)."""
    a = np.random.default_rng(3).uniform(-5, 5, (300, 301)).astype(dtype)
    f = getattr(minitorch, op)
    x = minitorch.from_numpy(a)
    dense = f(x).numpy()
    np.testing.assert_array_equal(f(minitorch.from_numpy(a.T.copy()).t()).numpy(), dense)
    np.testing.assert_array_equal(f(x[:, 1:]).numpy(), dense[:, 1:])
    np.testing.assert_array_equal(f(x[::2]).numpy(), dense[::2])
    one = f(minitorch.from_numpy(a[5, 7:8].copy())).numpy()
    np.testing.assert_array_equal(one, dense[5, 7:8])
    assert f(minitorch.from_numpy(a[:0])).shape == (0, 301)


@pytest.mark.parametrize("op", ["tanh", "exp", "sin", "log1p", "expm1", "sigmoid", "erf"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=["float32", "float64"])
def test_thread_split_independent(op, dtype):
    """Split over two threads from a few thousand elements (chunk edges off the vector width) or run on one:
    bit-identical values."""
    a = np.random.default_rng(5).uniform(0.01, 5, 10007).astype(dtype)
    f = getattr(minitorch, op)
    n = minitorch.get_num_threads()
    try:
        minitorch.set_num_threads(1)
        one = f(minitorch.from_numpy(a)).numpy()
        minitorch.set_num_threads(2)
        two = f(minitorch.from_numpy(a)).numpy()
    finally:
        minitorch.set_num_threads(n)
    np.testing.assert_array_equal(one, two)


_CHILD = """
import json, sys
sys.path.insert(0, {here!r})
import test_ulp
cap = test_ulp.minitorch.backends.cpu.get_cpu_capability()
bad = {{}}
for op in sorted(test_ulp.DIRECT):
    for dt in (test_ulp.np.float32, test_ulp.np.float64):
        u = test_ulp.max_ulps(op, dt, cap)
        if u > test_ulp.limit(op, dt, cap):
            bad[op + " " + dt.__name__] = u
print(json.dumps({{"cap": cap, "bad": bad}}))
"""


@pytest.mark.parametrize("cap", ["avx2", "default"])
def test_other_capabilities(cap):
    """The AVX2 table and the scalar fallback, forced by MINITORCH_CPU_CAPABILITY in a fresh process."""
    env = dict(os.environ, MINITORCH_CPU_CAPABILITY=cap)
    r = subprocess.run(
        [sys.executable, "-c", _CHILD.format(here=HERE)], env=env, capture_output=True, text=True, check=True
    )
    res = json.loads(r.stdout.strip().splitlines()[-1])
    if cap == "default":
        assert res["cap"] == "DEFAULT"
    else:  # AVX2 where the CPU has AVX2 (SLEEF or not), else the scalar path
        assert res["cap"] in ("AVX2", "DEFAULT")
    assert not res["bad"], res


def atan2_report(dtype="float32"):
    """Largest atan2 error in ulps of dtype against long double over random and log-spread operands, and the C99
    special values (signed zeros, infinities, NaN) that differ from the correctly rounded ones, in this process's
    path."""
    dt = np.dtype(dtype).type
    rng = np.random.default_rng(8)
    n = 200000
    span = (-100, 80) if dt == np.float32 else (-700, 700)

    def operands():
        wide = np.exp(rng.uniform(*span, n)) * np.sign(rng.standard_normal(n))
        return np.concatenate([rng.standard_normal(n), wide]).astype(dt)

    y, x = operands(), operands()
    got = minitorch.atan2(minitorch.from_numpy(y), minitorch.from_numpy(x)).numpy()
    ref = np.arctan2(y.astype(np.longdouble), x.astype(np.longdouble))
    spacing = np.spacing(np.abs(ref.astype(dt))).astype(np.longdouble)
    tiny = np.longdouble(1.4e-45 if dt == np.float32 else 5e-324)
    worst = float(np.max(np.abs(got - ref) / np.maximum(spacing, tiny)))
    special = np.array([0.0, -0.0, 1.0, -1.0, np.inf, -np.inf, np.nan, 1e-45], dtype=dt)
    sy, sx = (v.ravel() for v in np.meshgrid(special, special))
    g = minitorch.atan2(minitorch.from_numpy(sy), minitorch.from_numpy(sx)).numpy()
    # the correctly rounded values (NumPy's own float32 arctan2 is 1 ulp off at (1, 1) in some releases: the
    # H200 machine's NumPy gave 0.78539813 where this one gives float32(pi/4) = 0.78539819)
    with np.errstate(invalid="ignore"):
        r = np.arctan2(sy.astype(np.longdouble), sx.astype(np.longdouble)).astype(dt)
    same = ((g == r) & (np.signbit(g) == np.signbit(r))) | (np.isnan(g) & np.isnan(r))
    cap = minitorch.backends.cpu.get_cpu_capability()
    return cap, worst, [(float(sy[i]), float(sx[i]), float(g[i])) for i in np.where(~same)[0]]


_ATAN2_CHILD = """
import json, sys
sys.path.insert(0, {here!r})
import test_ulp
print(json.dumps(test_ulp.atan2_report({dtype!r})))
"""


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("cap", ["this", "avx2", "default"])
def test_atan2(cap, dtype):
    """atan2 on each path: AVX2's row loops of their own, float32 within 1 ulp (0.5 + 1e-6 measured), float64
    within 2 (1.55 measured: the quotient's rounding adds to atan's); the scalar functor (glibc's atan2f, 1.42
    measured; atan2) within the scalar path's 2.5; C99's special values exactly, signs of zero included."""
    if cap == "this":
        path, worst, wrong = atan2_report(dtype)
    else:
        env = dict(os.environ, MINITORCH_CPU_CAPABILITY=cap)
        r = subprocess.run(
            [sys.executable, "-c", _ATAN2_CHILD.format(here=HERE, dtype=dtype)],
            env=env,
            capture_output=True,
            text=True,
            check=True,
        )
        path, worst, wrong = json.loads(r.stdout.strip().splitlines()[-1])
    limit = 2.5 if path != "AVX2" else (1.0 if dtype == "float32" else 2.0)
    assert worst <= limit and not wrong, (path, worst, wrong)


def sinc_report(dtype="float32"):
    """sinc in this process's path against PyTorch's formula in long double, sin(p) / p with p = pi x rounded in the
    dtype (so a zero of sinc lies where its p's sin is 0), over random and log-spread arguments, near the integers,
    and past the vector sin's 2^20 range: (path, worst ulps, worst absolute error against NumPy's float64 sinc of
    x, the special arguments whose result differs, whether strided, half-length and empty inputs give the dense
    bits)."""
    dt = np.dtype(dtype).type
    rng = np.random.default_rng(9)
    n = 100000
    ints = np.repeat(np.arange(-200.0, 201.0), 8) + rng.uniform(-1e-3, 1e-3, 401 * 8)
    wide = np.exp(rng.uniform(-100, 60 if dt == np.float32 else 200, n)) * np.sign(rng.standard_normal(n))
    x = np.concatenate([rng.uniform(-50, 50, n), wide, ints, [3e6, -7e7, 2.0**20 * 1.5]]).astype(dt)
    got = minitorch.sinc(minitorch.from_numpy(x)).numpy()
    p = (dt(np.pi) * x).astype(dt).astype(np.longdouble)
    with np.errstate(invalid="ignore", divide="ignore"):
        ref = np.where(x == 0, np.longdouble(1), np.sin(p) / p)
    spacing = np.spacing(np.abs(ref.astype(dt))).astype(np.longdouble)
    tiny = np.longdouble(1.4e-45 if dt == np.float32 else 5e-324)
    worst = float(np.max(np.abs(got - ref) / np.maximum(spacing, tiny)))
    small = np.abs(x) < 1e4
    abs_err = float(np.max(np.abs(got[small].astype(np.float64) - np.sinc(x[small].astype(np.float64)))))
    special = np.array(
        [0.0, -0.0, np.inf, -np.inf, np.nan, 1e-45 if dt == np.float32 else 5e-324, 1.0, -2.0], dt
    )
    g = minitorch.sinc(minitorch.from_numpy(special)).numpy()
    want = np.array([1.0, 1.0, np.nan, np.nan, np.nan, 1.0, 0.0, 0.0], dt)
    close = (np.abs(g - want) <= 1e-7) | (np.isnan(g) & np.isnan(want))
    wrong = [(float(special[i]), float(g[i])) for i in np.where(~close)[0]]
    t = minitorch.from_numpy(x)
    layouts = (
        np.array_equal(minitorch.sinc(t[::3]).numpy(), got[::3], equal_nan=True)
        and np.array_equal(minitorch.sinc(t[5:12]).numpy(), got[5:12], equal_nan=True)
        and minitorch.sinc(t[:0]).shape == (0,)
        and minitorch.sinc(minitorch.empty(0, 3, dtype=t.dtype)).shape == (0, 3)
    )
    return minitorch.backends.cpu.get_cpu_capability(), worst, abs_err, wrong, bool(layouts)


_SINC_CHILD = """
import json, sys
sys.path.insert(0, {here!r})
import test_ulp
print(json.dumps(test_ulp.sinc_report({dtype!r})))
"""


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("cap", ["this", "avx2", "default"])
def test_sinc(cap, dtype):
    """sinc on each path (the vector sin's rows at AVX-512 and AVX2, the scalar functor's sin at the baseline):
    PyTorch's sin(p) / p with p = pi x in the dtype, within 1.5 ulp (a sin within 1 and the quotient's rounding;
    NumPy's float64 sinc of x within 3 float32 or float64 epsilons, since p's rounding moves sinc by up to one),
    sinc(0) = 1 exactly, NaN at the infinities, the same bits strided, in a short tail and nothing for an empty
    input."""
    if cap == "this":
        path, worst, abs_err, wrong, layouts = sinc_report(dtype)
    else:
        env = dict(os.environ, MINITORCH_CPU_CAPABILITY=cap)
        r = subprocess.run(
            [sys.executable, "-c", _SINC_CHILD.format(here=HERE, dtype=dtype)],
            env=env,
            capture_output=True,
            text=True,
            check=True,
        )
        path, worst, abs_err, wrong, layouts = json.loads(r.stdout.strip().splitlines()[-1])
        assert path == ("DEFAULT" if cap == "default" else path)
    eps = float(np.finfo(dtype).eps)
    assert worst <= 1.5 and abs_err <= 3 * eps and not wrong and layouts, (
        path,
        worst,
        abs_err,
        wrong,
        layouts,
    )


def fmod_report(dtype="float32"):
    """fmod against NumPy's (C's, exact) and remainder against fmod + b, bit for bit, over random bit patterns,
    ordinary and tiny divisors, quotients near 2^52 (float64: the vector kernel's limit) and the special values,
    in this process's path: the mismatching (a, b) pairs."""
    dt = np.dtype(dtype).type
    ut = np.uint32 if dt == np.float32 else np.uint64
    rng = np.random.default_rng(12)
    n = 300000
    if dt == np.float32:
        pats = rng.integers(0, 2**32, (2, n), dtype=np.uint64).astype(np.uint32).view(np.float32)
    else:
        pats = rng.integers(0, 2**64 - 1, (2, n), dtype=np.uint64, endpoint=True).view(np.float64)
    a = np.concatenate([pats[0], (rng.standard_normal(n) * 100).astype(dt)])
    b = np.concatenate([pats[1], (rng.standard_normal(n) * 1e-3).astype(dt)])
    if dt == np.float64:  # quotients around the kernel's 2^52 limit
        q = np.exp2(rng.uniform(40, 60, n))
        bb = rng.standard_normal(n)
        a, b = np.concatenate([a, q * bb * rng.uniform(0.5, 2, n)]), np.concatenate([b, bb])
    # quotients over the whole exponent range, b normal or subnormal (the float64 kernel's 51-bit steps; C's fmod
    # for a subnormal float64 b)
    lo, hi = (-149, 127) if dt == np.float32 else (-1074, 1023)
    sign = np.where(rng.random((2, n)) < 0.5, -1.0, 1.0)
    wa = sign[0] * np.ldexp(rng.uniform(1, 2, n), rng.integers(lo, hi + 1, n))
    wb = sign[1] * np.ldexp(rng.uniform(1, 2, n), rng.integers(lo, hi + 1, n))
    a, b = np.concatenate([a, wa.astype(dt)]), np.concatenate([b, wb.astype(dt)])
    big, tiny = (-3e38, 1e-45) if dt == np.float32 else (-1.7e308, 5e-324)
    special = np.array([0.0, -0.0, 1.0, -1.0, np.inf, -np.inf, np.nan, tiny, big, 2.5, 7.0], dtype=dt)
    sa, sb = (v.ravel() for v in np.meshgrid(special, special))
    a, b = np.concatenate([a, sa]).astype(dt), np.concatenate([b, sb]).astype(dt)
    ta, tb = minitorch.from_numpy(a), minitorch.from_numpy(b)
    with np.errstate(invalid="ignore", over="ignore"):
        want = np.fmod(a, b)
        # Python's %: fmod, then + b (rounded in the dtype) where non-zero and of the other sign, as PyTorch
        fix = (want != 0) & ((b < 0) != (want < 0))
        want_rem = np.where(fix, want + b, want).astype(dt)
    wrong = []
    for got, ref in ((minitorch.fmod(ta, tb).numpy(), want), (minitorch.remainder(ta, tb).numpy(), want_rem)):
        same = (got.view(ut) == ref.view(ut)) | (np.isnan(got) & np.isnan(ref))
        wrong += [(float(a[i]), float(b[i])) for i in np.where(~same)[0][:5]]
    # the rows' other shapes: a number divisor (a stride-0 operand), strided views
    with np.errstate(invalid="ignore", over="ignore"):
        rem_num = np.fmod(a, dt(-0.7))
        rem_num = np.where((rem_num != 0) & (rem_num > 0), rem_num + dt(-0.7), rem_num).astype(dt)
        shapes = (
            (minitorch.fmod(ta, 0.3).numpy(), np.fmod(a, dt(0.3))),
            (minitorch.remainder(ta, -0.7).numpy(), rem_num),
            (minitorch.fmod(ta[::3], tb[::3]).numpy(), want[::3]),
            (minitorch.remainder(ta[1::2], tb[1::2]).numpy(), want_rem[1::2]),
        )
    for k, (got, ref) in enumerate(shapes):
        same = (got.view(ut) == ref.view(ut)) | (np.isnan(got) & np.isnan(ref))
        wrong += [(k, int(i)) for i in np.where(~same)[0][:5]]
    return wrong


_FMOD_CHILD = """
import json, sys
sys.path.insert(0, {here!r})
import test_ulp
print(json.dumps(test_ulp.fmod_report({dtype!r})))
"""


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("cap", ["this", "avx2", "default"])
def test_fmod_exact(cap, dtype):
    """fmod is exact in IEEE arithmetic: every path (AVX2's row loops: float32 through double, float64 with an
    FMA below quotients of 2^52; the C library's fmodf/fmod) gives C's bits, signed zeros and special values
    included; remainder (Python's %) is fmod and one rounded add, the same bits on every path too."""
    if cap == "this":
        wrong = fmod_report(dtype)
    else:
        env = dict(os.environ, MINITORCH_CPU_CAPABILITY=cap)
        r = subprocess.run(
            [sys.executable, "-c", _FMOD_CHILD.format(here=HERE, dtype=dtype)],
            env=env,
            capture_output=True,
            text=True,
            check=True,
        )
        wrong = json.loads(r.stdout.strip().splitlines()[-1])
    assert not wrong, wrong


def _digamma_ld(x):
    """digamma in long double (64-bit mantissa, 11 bits past the kernels' double): reflection for x < 0, the
    recurrence up to z >= 40 and the asymptotic series to z^-16; exact at the special values as PyTorch."""
    x = np.asarray(x, np.float64)
    v = x.astype(np.longdouble)
    pi = np.arctan(np.longdouble(1)) * 4
    neg = v < 0
    z = np.where(neg, 1 - v, v)
    acc = np.zeros_like(z)
    with np.errstate(all="ignore"):
        for _ in range(40):
            step = z < 40
            acc = np.where(step, acc - 1 / z, acc)
            z = np.where(step, z + 1, z)
        q2 = 1 / (z * z)
        coef = [1 / 12, -1 / 120, 1 / 252, -1 / 240, 1 / 132, -691 / 32760, 1 / 12, -3617 / 8160]
        ser = sum(np.longdouble(c) * q2 ** (k + 1) for k, c in enumerate(coef))
        r = acc + np.log(z) - 0.5 / z - ser
        f = v - np.round(v)
        r = np.where(neg, r - pi / np.tan(pi * f), r)
    r = np.where(neg & (v == np.round(v)), np.nan, r)
    return np.where(x == 0, np.where(np.signbit(x), np.inf, -np.inf), r)


def _lgamma_ref(x):
    """C's double lgamma (glibc: accurate to a few double ulps, its negative zeros included), inf at the poles."""
    x = np.asarray(x, np.float64)
    pole = (x <= 0) & (np.floor(x) == x)
    safe = np.where(pole | np.isnan(x), 1.0, x)
    r = np.vectorize(math.lgamma, otypes=[np.float64])(safe)
    return np.where(pole, np.inf, np.where(np.isnan(x), np.nan, r))


def gamma_report(op):
    """Largest float32 error of lgamma or digamma in ulps, over random positive and negative values (linear and
    log-spread, subnormals to 3e38), the floats nearest their zeros (lgamma: 1, 2 and four negative ones;
    digamma: 1.4616 and four negative ones), strided and tail lanes (an odd length, a view with step 3), and
    the special values that differ from the reference (NaN, infinities, signs of zero), in this process's path."""
    rng = np.random.default_rng(13)
    n = 40000
    zeros = {
        "lgamma": [1.0, 2.0, -2.4570247382208006, -2.7476826467274127, -3.14358088834998, -3.955294284858598],
        "digamma": [
            1.4616321449683622,
            -0.5040830082644554,
            -1.5734984731623904,
            -2.6107208684441447,
            -8.695764163816401,
        ],
    }[op]
    near = np.concatenate(
        [np.float32(z).view(np.int32) + np.arange(-300, 301, dtype=np.int32) for z in zeros]
    ).view(np.float32)
    x = np.concatenate(
        [
            rng.uniform(0, 12, n),
            rng.uniform(-30, 0, n),
            np.exp(rng.uniform(np.log(1e-44), np.log(3e38), n)),
            -np.exp(rng.uniform(np.log(1e-44), np.log(8e6), n)),
            near,
        ]
    ).astype(np.float32)
    ref = _lgamma_ref(x) if op == "lgamma" else _digamma_ld(x)
    f = getattr(minitorch, op)
    if x.size % 8 == 0:
        x = x[:-1]  # an odd length: the last vector is a padded tail
    got = f(minitorch.from_numpy(x)).numpy()
    strided = f(minitorch.from_numpy(x)[::3]).numpy()
    short = f(minitorch.from_numpy(x[:-3])).numpy()
    with np.errstate(over="ignore", invalid="ignore"):
        reff = ref.astype(np.float32)
        spacing = np.spacing(np.abs(reff)).astype(np.longdouble)
        err = np.abs(got.astype(np.longdouble) - ref.astype(np.longdouble)) / spacing
    fin = np.isfinite(reff) & np.isfinite(got)
    same_class = (np.isfinite(got) == np.isfinite(reff)) & (np.isnan(got) == np.isnan(reff))
    worst = float(np.max(err[fin]))
    special = np.array(
        [0.0, -0.0, np.inf, -np.inf, np.nan, -1.0, -2.0, -7.0, 1.0, 2.0, 1e-45, -1e-45, 3e38, -3e38]
    )
    sp = special.astype(np.float32)
    g = f(minitorch.from_numpy(sp)).numpy()
    with np.errstate(over="ignore"):
        r = (_lgamma_ref(sp) if op == "lgamma" else _digamma_ld(sp)).astype(np.float32)
    ok = (np.isnan(g) & np.isnan(r)) | ((g == r) & (np.signbit(g) == np.signbit(r)))
    wrong = [(float(sp[i]), float(g[i]), float(r[i])) for i in np.where(~ok)[0]]
    for name, part, whole in (("strided", strided, got[::3]), ("tail", short, got[:-3])):
        wrong += [(name, int(i)) for i in np.where(part.view(np.uint32) != whole.view(np.uint32))[0][:3]]
    wrong += [("class", float(x[i]), float(got[i])) for i in np.where(~same_class)[0][:3]]
    path = minitorch.backends.cpu.get_cpu_capability()
    return path, bool(minitorch._C._has_vec_loop(op, False)), worst, wrong


_GAMMA_CHILD = """
import json, sys
sys.path.insert(0, {here!r})
import test_ulp
print(json.dumps(test_ulp.gamma_report({op!r})))
"""


@pytest.mark.parametrize("op", ["lgamma", "digamma"])
@pytest.mark.parametrize("cap", ["this", "avx2", "default"])
def test_gamma_float32(cap, op):
    """float32 lgamma and digamma on each path: AVX2's loops of their own through double (gamma_f32.h: 0.500
    ulp measured against mpmath, the floats nearest every zero included) within 1 ulp of the reference; the
    scalar functors within 2.5, lgamma's (glibc's lgammaf, which PyTorch calls too: 3.5 measured at x < 0)
    within 4; special values exact, strided and tail lanes bit for bit those of the dense loop."""
    if cap == "this":
        path, vec, worst, wrong = gamma_report(op)
    else:
        env = dict(os.environ, MINITORCH_CPU_CAPABILITY=cap)
        r = subprocess.run(
            [sys.executable, "-c", _GAMMA_CHILD.format(here=HERE, op=op)],
            env=env,
            capture_output=True,
            text=True,
            check=True,
        )
        path, vec, worst, wrong = json.loads(r.stdout.strip().splitlines()[-1])
    if path == "AVX2":
        assert vec
    limit = 1.0 if vec else (4.0 if op == "lgamma" else 2.5)
    assert worst <= limit and not wrong, (path, vec, worst, wrong)


_BESSEL = ["i0", "_special_i0e", "_special_i1", "_special_i1e"]  # kernels/cpu/vec/bessel_i.h, SLEEF or not
# The functions AVX2 without SLEEF computes with kernels of its own (kernels/cpu/vec/f32_via_f64.h,
# avx2_math.h) rather than the scalar functor: a table entry that silently went empty would pass every accuracy
# test above on the scalar path, so this asks the table itself.
OWN_AVX2 = {
    False: [
        "exp2",
        "expm1",
        "log2",
        "log10",
        "tan",
        "asin",
        "acos",
        "sinh",
        "cosh",
        "atan",
        "atanh",
        "log",
        "log1p",
        "erfc",
        *_BESSEL,
    ],
    True: [
        "exp2",
        "expm1",
        "log2",
        "log10",
        "sinh",
        "cosh",
        "exp",
        "log",
        "log1p",
        "sin",
        "cos",
        "atan",
        "tan",
        "asin",
        "acos",
        "erfc",
        "erfinv",
        "atanh",
        "pow",
        *_BESSEL,
    ],
}


@pytest.mark.parametrize("f64", [False, True], ids=["float32", "float64"])
def test_avx2_own_kernels_are_chosen(f64):
    if minitorch.backends.cpu.get_cpu_capability() != "AVX2" or minitorch._C._has_sleef():
        pytest.skip("AVX2 without SLEEF only")
    missing = [op for op in OWN_AVX2[f64] if not minitorch._C._has_vec_loop(op, f64)]
    assert not missing, missing


# Every name kernels/cpu/elementwise.cpp's has_vec_loop answers for: VecUnary.h's MT_VEC_UNARY_FNS and the row ops
VEC_ROWS = [
    *DIRECT,
    *(
        op
        for op in ("erfinv", "sigmoid", "gelu", "gelu_tanh", "silu", "mish", "lgamma", "digamma")
        if op not in DIRECT
    ),
    *_BESSEL,
    *(
        "pow",
        "atan2",
        "fmod",
        "remainder",
        "floor_divide",
        "logaddexp",
        "logaddexp2",
        "softplus",
        "log_sigmoid",
    ),
    "softmax",
    "polygamma",
]
# Rows AVX2 has and AVX-512 may lack, with the reason (none now: AVX-512 takes AVX2's row where it has no own)
AVX512_MAY_LACK = {}

_ROWS_CHILD = """
import json, minitorch as m
print(json.dumps({"cap": m.backends.cpu.get_cpu_capability(),
                  "rows": {n + " " + dt: m._C._has_vec_loop(n, dt == "float64")
                           for n in %r for dt in ("float32", "float64")}}))
"""


def test_avx512_has_every_avx2_row():
    """Where AVX2 has a vector row and AVX-512 none of its own, an AVX-512 CPU must run AVX2's row, not the scalar
    loop (1.3-41x slower than AVX2's before the tables were joined: float32 erfinv 41x, tan/atan 8x, float64
    asin/acos 10x, fmod 10x), unless AVX512_MAY_LACK names it with a reason."""
    if minitorch.backends.cpu.get_cpu_capability() != "AVX512":
        pytest.skip("this CPU has no AVX-512")
    assert minitorch._C._has_vec_loop("fmod", False) and not minitorch._C._has_vec_loop("no_such_op", False)
    rows = {}
    for cap in ("avx512", "avx2"):
        env = dict(os.environ, MINITORCH_CPU_CAPABILITY=cap)
        r = subprocess.run(
            [sys.executable, "-c", _ROWS_CHILD % (VEC_ROWS,)],
            env=env,
            capture_output=True,
            text=True,
            check=True,
        )
        res = json.loads(r.stdout.strip().splitlines()[-1])
        assert res["cap"] == cap.upper()
        rows[cap] = res["rows"]
    lacking = [
        k for k, has in rows["avx2"].items() if has and not rows["avx512"][k] and k not in AVX512_MAY_LACK
    ]
    assert not lacking, lacking


# AVX-512 runs AVX2's rows for these (no kernel of its own, SLEEF or not; float32 erfinv its own, AVX2's
# expressions in eight lanes; erfc AVX2's float64 kernel, float32 through it; float64 erfinv and atanh AVX2's
# kernels over each half of its vectors; float64 exp2, float32 lgamma/digamma and the I Bessel functions its own,
# AVX2's operations in eight double lanes): the same bits as the AVX2 path
_BESSEL_BITS = ["i0", "special.i0e", "special.i1", "special.i1e"]
# float32 expm1 is AVX-512's own kernel and AVX2 its operations in four double lanes, SLEEF or not
AVX2_ROWS_ON_AVX512 = {
    "float32": ["erfinv", "sinh", "cosh", "atan2", "erfc", "lgamma", "digamma", "expm1", *_BESSEL_BITS],
    "float64": ["atan2", "erfc", "erfinv", "atanh", "exp2", *_BESSEL_BITS],
}
# without SLEEF, AVX2's kernels of its own (f32_via_f64.h, avx2_math.h); float32 log2 and log10 are AVX-512's
# own, AVX2's formulas step for step in eight lanes (avx512_math.h), so they must give AVX2's bits too, as must
# float64 expm1, sinh and cosh, AVX2's operations in eight lanes there (float32 exp2 and atanh are AVX-512's own
# formulas: held to their ulp limits only)
if not minitorch._C._has_sleef():
    AVX2_ROWS_ON_AVX512["float32"] += ["log2", "log10", "tan", "asin", "acos", "atan"]
    AVX2_ROWS_ON_AVX512["float64"] += [
        "expm1",
        "log2",
        "log10",
        "tan",
        "asin",
        "acos",
        "sinh",
        "cosh",
    ]

_BITS_CHILD = r"""
import sys
import numpy as np
import minitorch as m

rows = %r
rng = np.random.default_rng(9)
special = [0.0, -0.0, np.inf, -np.inf, np.nan, 1e-40, -1e-40, 1e-310, 1.0, -1.0, 0.5, -0.999, 88.9, -89.5, 710.0, 3e38]
out = {}
for dt, ops in rows.items():
    for op in ops:
        lo, hi = (-1.0, 1.0) if op in ("erfinv", "asin", "acos", "atanh") else (-30.0, 30.0)
        a = np.concatenate([rng.uniform(lo, hi, 4001), np.exp(rng.uniform(-80, 80, 2000)), special]).astype(dt)
        if op in ("log2", "log10"):
            a = np.abs(a)
        x = m.from_numpy(a)
        y = m.from_numpy(np.roll(a, 7)) if op == "atan2" else None
        f = getattr(m.special, op[8:]) if op.startswith("special.") else getattr(m, op)
        got = m.atan2(x, y) if op == "atan2" else f(x)
        out[dt + " " + op] = got.numpy().view(np.uint32 if dt == "float32" else np.uint64)
np.savez(sys.argv[1], **out)
"""


def test_avx512_gives_avx2_rows_bits(tmp_path):
    """The rows AVX-512 takes from AVX2 give AVX2's bits there (NaN payloads, signed zeros, overflow edges and
    an odd length's tail included), so MINITORCH_CPU_CAPABILITY=avx512 and avx2 agree on them."""
    if minitorch.backends.cpu.get_cpu_capability() != "AVX512":
        pytest.skip("this CPU has no AVX-512")
    got = {}
    for cap in ("avx512", "avx2"):
        path = tmp_path / f"{cap}.npz"
        env = dict(os.environ, MINITORCH_CPU_CAPABILITY=cap)
        subprocess.run(
            [sys.executable, "-c", _BITS_CHILD % (AVX2_ROWS_ON_AVX512,), str(path)],
            check=True,
            env=env,
            timeout=300,
        )
        got[cap] = np.load(path)
    keys = got["avx2"].files
    assert len(keys) == sum(map(len, AVX2_ROWS_ON_AVX512.values()))
    differ = [k for k in keys if not np.array_equal(got["avx512"][k], got["avx2"][k])]
    assert not differ, differ


_EXP2_CHILD = r"""
import json, sys
import numpy as np
import minitorch as m

x = np.load(sys.argv[1])
np.save(sys.argv[2], m.exp2(m.from_numpy(x)).numpy())
print(json.dumps({"cap": m.backends.cpu.get_cpu_capability(), "vec": m._C._has_vec_loop("exp2", True)}))
"""


def _exp2_float64_points():
    """exp2's float64 edges (EDGES64), each unit of [-1080, 1030] at 1/64 steps with its neighbours, the
    subnormal and overflow ends densely, random and log-spread values, and the special values."""
    rng = np.random.default_rng(12)
    x = np.concatenate(
        [
            EDGES64["exp2"],
            _edges64(np.arange(-1080.0, 1030.0, 1 / 64), k=1),
            np.linspace(-1080.0, -1015.0, 200001),
            np.linspace(1015.0, 1030.0, 50001),
            rng.uniform(-1080, 1030, 300000),
            np.exp(rng.uniform(np.log(5e-324), np.log(1030.0), 200000)),
            SPECIAL64,
            [1023.5, 1024.0, -1021.0, -1022.0, -1074.5, -1075.0, 2.0**-60],
        ]
    )
    return np.concatenate([x, -x])


@pytest.mark.parametrize("cap", ["avx512", "avx2", "default"])
def test_exp2_float64_each_capability(cap, tmp_path):
    """float64 exp2 on each instruction-set path against long double: AVX-512's own kernel and AVX2's within 0.82
    ulp (exp's table on the exact reduction: 0.65 on normal results, 0.81 on subnormal ones) and bit for bit
    alike, the scalar path within its limit; integers give their powers of two exactly, -0 gives 1, results
    are never negative, and the infinities fall where the reference's do (1024 and beyond; 0 from -1075)."""
    x = _exp2_float64_points()
    np.save(tmp_path / "x.npy", x)
    got = {}
    for c in dict.fromkeys([cap, "avx2"]) if cap == "avx512" else [cap]:
        env = dict(os.environ, MINITORCH_CPU_CAPABILITY=c)
        r = subprocess.run(
            [sys.executable, "-c", _EXP2_CHILD, str(tmp_path / "x.npy"), str(tmp_path / f"{c}.npy")],
            env=env,
            capture_output=True,
            text=True,
            check=True,
        )
        res = json.loads(r.stdout.strip().splitlines()[-1])
        if res["cap"] != c.upper():
            pytest.skip(f"this CPU has no {c}")
        assert res["vec"] == (c != "default")
        got[c] = np.load(tmp_path / f"{c}.npy")
    ours = got[cap]
    with np.errstate(over="ignore"):
        ref = np.exp2(x.astype(np.longdouble))
        ref64 = ref.astype(np.float64)
    np.testing.assert_array_equal(np.isnan(ours), np.isnan(x))
    np.testing.assert_array_equal(np.isinf(ours), np.isinf(ref64))
    assert not np.signbit(ours[~np.isnan(ours)]).any()  # (a NaN keeps its sign bit)
    whole = (x == np.round(x)) & (np.abs(x) <= 1074)
    np.testing.assert_array_equal(ours[whole], ref64[whole])
    assert ours[x == 0].tolist() == [1.0] * int((x == 0).sum())
    with np.errstate(over="ignore", invalid="ignore"):  # the infinite results, compared above
        worst = _ulps(ours, ref, np.float64)
    assert worst <= (0.82 if cap != "default" else limit("exp2", np.float64, "DEFAULT"))
    if cap == "avx512":
        np.testing.assert_array_equal(ours.view(np.uint64), got["avx2"].view(np.uint64))


_FLOORDIV_CHILD = r"""
import sys
import numpy as np
import minitorch as m

d = np.load(sys.argv[1])
out = {}
for dt in ("float32", "float64"):
    a = m.from_numpy(d["a"]).to(getattr(m, dt))
    b = m.from_numpy(d["b"]).to(getattr(m, dt))
    out[dt] = (a // b).double().numpy()
    out[dt + " strided"] = m.floor_divide(a.repeat_interleave(2)[::2], b.repeat_interleave(2)[::2]).double().numpy()
    out[dt + " scalar"] = m.floor_divide(a, -2.5).double().numpy()
np.savez(sys.argv[2], **out)
"""


@pytest.mark.parametrize("cap", ["avx512", "avx2", "default"])
def test_floor_divide_matches_pytorch_bit_for_bit(tmp_path, cap):
    """Float floor_divide (AVX2's row loops, kernels/cpu/vec/unary_impl.h, which AVX-512 runs too, and the
    scalar functor) gives PyTorch's bits in float32 and float64: random magnitudes of both signs, integral
    divisors, zero divisors of both signs, infinities, NaN, huge quotients, dense, strided and with a scalar
    divisor. (Half and bfloat16 compute in float and round once; PyTorch rounds each step to the dtype, so
    large quotients differ there by an ulp or two, on every path: test_cpu_loop_paths.py holds the paths to
    the same bits.)"""
    py = os.environ.get("MINITORCH_ORACLE_PYTHON")
    if not py or not os.path.exists(py):
        pytest.skip("no PyTorch to compare with: set MINITORCH_ORACLE_PYTHON to a Python that imports torch")
    if cap == "avx2" and minitorch.backends.cpu.get_cpu_capability() == "DEFAULT":
        pytest.skip("this CPU runs the scalar path only")
    if cap == "avx512" and minitorch.backends.cpu.get_cpu_capability() != "AVX512":
        pytest.skip("this CPU has no AVX-512")
    rng = np.random.default_rng(21)
    n = 20000
    a = rng.standard_normal(n) * np.exp2(rng.integers(-30, 60, n))
    b = rng.standard_normal(n) * np.exp2(rng.integers(-30, 30, n))
    b[::7] = np.round(b[::7] * 4)  # integral divisors, zeros among them
    a[::5] = np.round(a[::5])
    special = np.array([0.0, -0.0, 1.0, -1.0, 2.5, -7.0, np.inf, -np.inf, np.nan, 1e-40, 3e38, -1e-300])
    sa, sb = (v.ravel() for v in np.meshgrid(special, special))
    a, b = np.concatenate([a, sa]), np.concatenate([b, sb])
    src = tmp_path / "ab.npz"
    np.savez(src, a=a, b=b)
    ours, theirs = tmp_path / "ours.npz", tmp_path / "theirs.npz"
    env = dict(os.environ, MINITORCH_CPU_CAPABILITY=cap)
    subprocess.run(
        [sys.executable, "-c", _FLOORDIV_CHILD, str(src), str(ours)], check=True, env=env, timeout=300
    )
    oracle = _FLOORDIV_CHILD.replace("import minitorch as m", "import torch as m")
    subprocess.run([py, "-c", oracle, str(src), str(theirs)], check=True, timeout=300)
    got, want = np.load(ours), np.load(theirs)
    assert len(want.files) == 6
    for k in want.files:
        g, w = got[k], want[k]
        # the bits, signed zeros included; NaN is NaN (PyTorch's vector loops leave other payloads and signs)
        same = (g.view(np.uint64) == w.view(np.uint64)) | (np.isnan(g) & np.isnan(w))
        assert same.all(), (k, a[~same][:5], b[~same][:5], g[~same][:5], w[~same][:5])


_EXP_ROWS_CHILD = """
import json, sys
import numpy as np
sys.path.insert(0, {here!r})
import test_ulp
mt = test_ulp.minitorch
rng = np.random.default_rng(31)
# every range the float32 exp rows meet: softmax's shifted rows, the clamps, subnormal results, odd lengths
x = np.concatenate([rng.uniform(-1, 0, 4001), rng.uniform(-104, 89, 4001), rng.uniform(-103.9, -87, 999),
                    np.array([0.0, -0.0, 88.72, 88.73, -103.97, -104.0, -200.0, 200.0, np.inf, -np.inf, np.nan])])
x = x.astype(np.float32)
t = mt.from_numpy(x)
dense = mt.exp(t).numpy()
strided = mt.exp(mt.from_numpy(np.repeat(x, 2))[::2]).numpy()
m = rng.uniform(-3, 3, (37, 129)).astype(np.float32)
sm = mt.softmax(mt.from_numpy(m), 1).numpy()
lsm = mt.log_softmax(mt.from_numpy(m), 1).numpy()
e = np.exp(m.astype(np.float64) - m.max(1, keepdims=True))
ref_sm = e / e.sum(1, keepdims=True)
print(json.dumps({{
    "cap": mt.backends.cpu.get_cpu_capability(),
    "ulps": test_ulp._ulps(dense, np.exp(x.astype(np.float64)), np.float32),
    "same_bits": bool(np.array_equal(dense.view(np.uint32), strided.view(np.uint32))),
    "specials": [float(v) for v in dense[-11:]],
    "softmax": float(np.max(np.abs(sm - ref_sm) / ref_sm)),
    "log_softmax": float(np.max(np.abs(lsm - np.log(ref_sm)) / np.maximum(1.0, np.abs(np.log(ref_sm))))),
}}))
"""


def test_default_exp_rows():
    """float32 exp and softmax at MINITORCH_CPU_CAPABILITY=default (a CPU without AVX2), where VecExp.h's exp runs
    in SSE2 lanes: within 2 ulp of the double exp over the clamps and subnormal results, the dense and strided
    loops the same bits, IEEE's special values, and softmax/log_softmax rows against NumPy's double."""
    env = dict(os.environ, MINITORCH_CPU_CAPABILITY="default")
    r = subprocess.run(
        [sys.executable, "-c", _EXP_ROWS_CHILD.format(here=HERE)],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    res = json.loads(r.stdout.strip().splitlines()[-1])
    assert res["cap"] == "DEFAULT"
    assert res["ulps"] <= 2.0, res
    assert res["same_bits"], res
    sp = res["specials"]
    assert sp[:2] == [1.0, 1.0] and 3.39e38 < sp[2] < math.inf and sp[3] == math.inf  # exp(88.72) is finite
    assert sp[4] > 0 and sp[5:8] == [0.0, 0.0, math.inf] and sp[8:10] == [math.inf, 0.0]
    assert math.isnan(sp[10])
    # a few float32 roundings: exp, the sum, the division (log_softmax's relative to its magnitude past 1)
    assert res["softmax"] <= 1e-6 and res["log_softmax"] <= 1e-6, res
