"""Fits the float32 tanh and erf tables of csrc/kernels/cpu/vec/avx512_math.h: 32 intervals of |x| (0..1/16,
then four per octave), a degree-5 polynomial in (|x| - midpoint) each, weighted least squares for relative
error on Chebyshev nodes, the constant term rounded to float first and the rest refitted. Prints the C arrays
and (tanh) the largest error of a float32 Horner evaluation per interval (tests/ops/elementwise/test_ulp.py checks the
kernels themselves). erf keeps its constant and linear terms as float pairs hi + lo (its limit is 1 ulp).
exp64 prints the float64 exp/tanh constants: 2^(j/16) as double pairs hi + lo, ln2/16 hi + lo, 16/ln2.
exp32 prints the float32 exp table, 2^(j/32) as float pairs hi + lo, and ln2/32 as a 12-bit hi + lo.
sin32 prints the float32 sin/cos polynomial (evaluated in double): sin(r) = r (1 + z P(z)), z = r^2, |r| <=
pi/2, weighted least squares for sin's relative error, and pi/2 as a double pair.
Usage: python scripts/fit_vec_tables.py [tanh|erf|exp64|exp32|sin32]"""

import decimal
import math
import sys

import numpy as np

DEG = 5


def interval(i):
    if i == 0:
        return 0.0, 2.0**-4
    k, j = divmod(i - 1, 4)
    a = 2.0 ** (k - 4)
    return a * (1 + j / 4), a * (1 + (j + 1) / 4)


def fit(i):
    lo, hi = interval(i)
    if i == 0:  # Taylor series: exact 0 and 1 keep tiny x (and subnormals) exact
        return 0.0, np.array([0.0, 1.0, 0.0, -1 / 3, 0.0, 2 / 15], dtype=np.float32)
    hi = min(hi, 10.0)  # |x| is clamped at 9.5 in the kernel
    if lo >= 10.0:  # unused entries
        lo, hi = 8.0, 10.0
    mid = float(np.float32((lo + hi) / 2))
    n = 400
    xs = (lo + hi) / 2 + (hi - lo) / 2 * np.cos(np.pi * (np.arange(n) + 0.5) / n)
    t = xs - mid
    y = np.tanh(xs.astype(np.longdouble))
    a = np.vander(t, DEG + 1, increasing=True)
    w = 1 / y.astype(np.float64)
    c = np.linalg.lstsq(a * w[:, None], (y * w).astype(np.float64), rcond=None)[0]
    c0 = np.float32(c[0])
    rest = np.linalg.lstsq(
        a[:, 1:] * w[:, None], ((y - np.longdouble(c0)) * w).astype(np.float64), rcond=None
    )[0]
    return mid, np.array([c0, *rest], dtype=np.float32)


def max_ulps(i, mid, cf):
    lo, hi = interval(i)
    xs = np.linspace(lo, min(hi, 9.5), 20001).astype(np.float32)
    xs = xs[xs > 0]
    t = (xs - np.float32(mid)).astype(np.float32)
    p = np.full_like(t, cf[DEG])
    for d in range(DEG - 1, -1, -1):
        p = (p.astype(np.float64) * t + cf[d]).astype(np.float32)  # one rounding, as an FMA
    ref = np.tanh(xs.astype(np.longdouble))
    return float(np.max(np.abs(p - ref) / np.spacing(ref.astype(np.float32)).astype(np.longdouble)))


def fit_erf(i):
    """Coefficients c0 hi, c0 lo, c1 hi, c1 lo, c2..c5 for erf on interval i (|x| clamped at 4)."""
    lo, hi = interval(i)
    if i == 0:  # Taylor series 2/sqrt(pi) (x - x^3/3 + x^5/10)
        c1 = 2 / math.sqrt(math.pi)
        c = [0.0, c1, 0.0, -c1 / 3, 0.0, c1 / 10]
        mid = 0.0
    else:
        hi = min(hi, 4.0)
        if lo >= 4.0:
            lo, hi = 3.5, 4.0
        mid = float(np.float32((lo + hi) / 2))
        n = 200
        xs = (lo + hi) / 2 + (hi - lo) / 2 * np.cos(np.pi * (np.arange(n) + 0.5) / n)
        a = np.vander(xs - mid, DEG + 1, increasing=True)
        y = np.array([math.erf(v) for v in xs])
        w = 1 / y
        c0h = float(np.float32(np.linalg.lstsq(a * w[:, None], y * w, rcond=None)[0][0]))
        c = list(np.linalg.lstsq(a * w[:, None], (y - c0h) * w, rcond=None)[0])
        c[0] += c0h
    h0, h1 = np.float32(c[0]), np.float32(c[1])
    out = [h0, np.float32(c[0] - float(h0)), h1, np.float32(c[1] - float(h1))] + [
        np.float32(v) for v in c[2:]
    ]
    return mid, out


def main_erf():
    fits = [fit_erf(i) for i in range(32)]
    print("kErfMid = {" + ", ".join(f"{m:.9e}f" for m, _ in fits) + "};")
    for j, name in enumerate(["0h", "0l", "1h", "1l", "2", "3", "4", "5"]):
        print(f"kErfC{name} = {{" + ", ".join(f"{c[j]:.9e}f" for _, c in fits) + "};")


def main_exp64():
    decimal.getcontext().prec = 60
    two = decimal.Decimal(2)
    pairs = []
    for j in range(16):
        v = two ** (decimal.Decimal(j) / 16)
        hi = float(v)
        pairs.append((hi, float(v - decimal.Decimal(hi))))
    print("kExp2jHi = {" + ", ".join(repr(h) for h, _ in pairs) + "};")
    print("kExp2jLo = {" + ", ".join(repr(lo) for _, lo in pairs) + "};")
    step = two.ln() / 16
    hi = float(step)
    print(f"ln2/16 hi {hi!r} lo {float(step - decimal.Decimal(hi))!r}, 16/ln2 {float(1 / step)!r}")


def main_exp32():
    decimal.getcontext().prec = 60
    two = decimal.Decimal(2)
    pairs = []
    for j in range(32):
        v = two ** (decimal.Decimal(j) / 32)
        hi = np.float32(float(v))
        pairs.append((hi, np.float32(float(v - decimal.Decimal(float(hi))))))
    print("kExp2j32Hi = {" + ", ".join(f"{float(h):.9e}f" for h, _ in pairs) + "};")
    print("kExp2j32Lo = {" + ", ".join(f"{float(lo):.9e}f" for _, lo in pairs) + "};")
    step = two.ln() / 32
    m, e = math.frexp(float(step))
    # 12 bits: x - n hi is a multiple of ulp(x) or 2^-17 below 0.016, so the FMA's one rounding is exact or tiny
    hi = math.ldexp(round(m * 2**12), e - 12)
    lo = float(np.float32(float(step - decimal.Decimal(hi))))
    print(f"ln2/32 hi {hi!r} lo {lo!r}, 32/ln2 {float(np.float32(float(1 / step)))!r}")


def main_sin32():
    decimal.getcontext().prec = 60
    n = 2000
    r = (math.pi / 2) * 1.0001 * (0.5 + 0.5 * np.cos(np.pi * (np.arange(n) + 0.5) / n))
    r = r[r > 1e-4].astype(np.longdouble)
    z = r * r
    g = (np.sin(r) / r - 1) / z  # P(z), the target, in long double (the cancellation costs ~2^-50 here)
    w = (z * r / np.sin(r)).astype(np.float64)  # sin's relative error per unit error in P
    a = np.vander(z.astype(np.float64), 4, increasing=True)
    c = np.linalg.lstsq(a * w[:, None], g.astype(np.float64) * w, rcond=None)[0]
    p = np.polyval(c[::-1].astype(np.longdouble), z)
    err = np.max(np.abs(r * (1 + z * p) / np.sin(r) - 1))
    print("sin P(z) = " + ", ".join(repr(float(v)) for v in c) + f"  (max relative error {float(err):.3g})")
    half_pi = decimal.Decimal("1.5707963267948966192313216916397514420985846996875529104874722961")
    hi = float(half_pi)
    print(f"pi/2 hi {hi!r} lo {float(half_pi - decimal.Decimal(hi))!r}, 1/pi {float(1 / (2 * half_pi))!r}")


def main():
    if sys.argv[1:] == ["exp32"]:
        return main_exp32()
    if sys.argv[1:] == ["sin32"]:
        return main_sin32()
    if sys.argv[1:] == ["erf"]:
        return main_erf()
    if sys.argv[1:] == ["exp64"]:
        return main_exp64()
    mids, coefs = [], []
    for i in range(32):
        mid, cf = fit(i)
        mids.append(mid)
        coefs.append(cf)
        if interval(i)[0] < 9.5:
            print(f"// interval {i} {interval(i)}: {max_ulps(i, mid, cf):.3f} ulp")
    print("kTanhMid = {" + ", ".join(f"{m:.9e}f" for m in mids) + "};")
    for d in range(DEG + 1):
        print(f"kTanhC[{d}] = {{" + ", ".join(f"{c[d]:.9e}f" for c in coefs) + "};")


if __name__ == "__main__":
    main()
