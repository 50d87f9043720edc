"""Polynomials of erfinv_d_for_f32 in csrc/kernels/cpu/vec/f32_via_f64.h (float32 erfinv on AVX2, evaluated in
double): erfinv(a) = a P(w) with w = -log(1 - a^2), P a polynomial in t = w - 2.5 for w < 5 and in
t = sqrt(w) - 3 for 5 <= w <= 17 (Giles' variables; a float a < 1 has w < 16). Least squares on Chebyshev
nodes of t against mpmath's erfinv(a) / a, then the largest relative error on a dense grid of t. Prints the
coefficients, highest degree first (the kernel's Horner order).

Needs mpmath (not a dependency of minitorch).
Usage: python3 scripts/fit_erfinv32.py [degree]   (12: the kernel's, relative errors 4e-11 and 2e-10; ~1 min)
       python3 scripts/fit_erfinv32.py --far [degree]   (8: erfinv_far_d in f64_series.h, w in [16, 38], t =
       sqrt(w) - 5, the float64 kernel's start where 1 - a < 5.6e-8; relative error 2.6e-10)
       python3 scripts/fit_erfinv32.py --rational   (erfinv_rational_d in f64_series.h: erfinv(a) / a = P(t) /
       Q(t), t = a^2 in [0, 0.9025], degrees 7 and 5, Q(0) = 1: least squares weighted by 1 / (f Q), reweighted
       toward minimax (Lawson); relative error 3.3e-11 evaluated in double; ~1 min)
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


def fit_rational(top=0.9025, m=7, n=5, nodes=400, iters=60):
    """P / Q with Q(0) = 1 fitted to erfinv(sqrt t) / sqrt t on [0, top]; coefficients lowest degree first."""
    k = np.arange(nodes)
    t = top / 2 + top / 2 * np.cos(np.pi * (k + 0.5) / nodes)
    y = np.array([float(ratio(-mp.log(1 - mp.mpf(v)))) for v in t])
    s = t / top  # fitted in s on [0, 1], scaled back below
    q_prev, lw = np.ones_like(s), np.ones_like(s)
    for _ in range(iters):
        a = np.hstack([s[:, None] ** np.arange(m + 1), -(y[:, None] * s[:, None] ** np.arange(1, n + 1))])
        w = np.sqrt(lw) / np.abs(y * q_prev)
        c = np.linalg.lstsq(a * w[:, None], y * w, rcond=None)[0]
        p, q = c[: m + 1], np.concatenate([[1.0], c[m + 1 :]])
        q_prev = np.polyval(q[::-1], s)
        err = (np.polyval(p[::-1], s) / q_prev - y) / y
        lw = lw * np.abs(err)
        lw /= lw.sum()
    p, q = p / top ** np.arange(m + 1), q / top ** np.arange(n + 1)
    tt = np.linspace(0, top, 4001)
    got = np.polyval(p[::-1], tt) / np.polyval(q[::-1], tt)
    worst = max(abs((mp.mpf(g) - r) / r) for g, r in zip(got, (ratio(-mp.log(1 - mp.mpf(v))) for v in tt)))
    return p, q, float(worst)


def main():
    if "--rational" in sys.argv:
        p, q, worst = fit_rational()
        print(f"// t = a^2 in [0, 0.9025]: relative error {worst:.2g}")
        print("P (t^7 first):", ", ".join(repr(float(v)) for v in p[::-1]))
        print("Q (t^5 first):", ", ".join(repr(float(v)) for v in q[::-1]))
        return
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
