"""Polynomials of erfinv_d_for_f32 in csrc/kernels/cpu/vec/f32_via_f64.h (float32 erfinv on AVX2, evaluated in
double): erfinv(a) = a P(w) with w = -log(1 - a^2), P a polynomial in t = w - 2.5 for w < 5 and in
t = sqrt(w) - 3 for 5 <= w <= 17 (Giles' variables; a float a < 1 has w < 16). Least squares on Chebyshev
nodes of t against mpmath's erfinv(a) / a, then the largest relative error on a dense grid of t. Prints the
coefficients, highest degree first (the kernel's Horner order).

Needs mpmath (not a dependency of minitorch).
Usage: python3 scripts/fit_erfinv32.py [degree]   (12: the kernel's, relative errors 4e-11 and 2e-10; ~1 min)
       python3 scripts/fit_erfinv32.py --far [degree]   (8: erfinv_far_d in f64_series.h, w in [16, 38], t =
       sqrt(w) - 5, the float64 kernel's start where 1 - a < 5.6e-8; relative error 2.6e-10)
"""

import sys

import mpmath as mp
import numpy as np

mp.mp.dps = 30


def ratio(w):
    """erfinv(a) / a for a = sqrt(1 - exp(-w))."""
    if w == 0:
        return mp.sqrt(mp.pi) / 2
    a = mp.sqrt(1 - mp.exp(-w))
    return mp.erfinv(a) / a


def fit(lo, hi, center, use_sqrt, deg, nodes=600):
    to_t = np.sqrt if use_sqrt else (lambda v: v)
    tl, th = to_t(lo), to_t(hi)
    k = np.arange(nodes)
    t = (tl + th) / 2 + (th - tl) / 2 * np.cos(np.pi * (k + 0.5) / nodes)
    y = np.array([float(ratio(mp.mpf(v) ** 2 if use_sqrt else mp.mpf(v))) for v in t])
    c = np.polyfit(t - center, y, deg)
    tt = np.linspace(tl, th, 3000)
    ref = [ratio(mp.mpf(v) ** 2 if use_sqrt else mp.mpf(v)) for v in tt]
    got = np.polyval(c, tt - center)
    err = max(abs((mp.mpf(g) - r) / r) for g, r in zip(got, ref))
    return c, float(err)


def main():
    far = "--far" in sys.argv
    rest = [v for v in sys.argv[1:] if v != "--far"]
    deg = int(rest[0]) if rest else (8 if far else 12)
    ranges = (
        (("w >= 16, t = sqrt(w) - 5", (16.0, 38.0, 5.0, True)),)
        if far
        else (
            ("w < 5, t = w - 2.5", (0.0, 5.0, 2.5, False)),
            ("w >= 5, t = sqrt(w) - 3", (5.0, 17.0, 3.0, True)),
        )
    )
    for name, args in ranges:
        c, err = fit(*args, deg)
        print(f"// {name}: relative error {err:.2g}")
        print(", ".join(repr(float(v)) for v in c))


if __name__ == "__main__":
    main()
