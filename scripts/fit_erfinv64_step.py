"""Polynomials of erfinv_step_*_d in csrc/kernels/cpu/vec/f64_series.h: the reciprocal derivative of float64
erfinv's Newton step without an exp. The step is x -= r / erf'(x) with erf'(x) = 2/sqrt(pi) exp(-x^2); taken at
the root x = erfinv(a) instead of at the start (the chord error is x d^2 either way, d the start's relative
error 3e-10), 1 / erf'(x) = Q(w) / m with m = (1 - a)(1 + a) = exp(-w), w = -log(m), and
Q(w) = sqrt(pi)/2 exp(x^2 - w), a smooth function of w in the start's own variables (t1 = w - 2.5 below w = 5,
t2 = sqrt(w) - 3 to 16, t3 = sqrt(w) - 5 to 38). Q's relative error e costs the step e d: 1e-9 here, 3e-19.
Least squares on Chebyshev nodes of t against mpmath, then the largest relative error on a dense grid of t.
Prints the coefficients, highest degree first (the kernel's Horner order).

Needs mpmath (not a dependency of minitorch: the oracle venv has it).
Usage: python3 scripts/fit_erfinv64_step.py [degree]   (9: the kernel's, relative errors ~1e-9 or below; ~1 min)
"""

import sys

import mpmath as mp
import numpy as np

mp.mp.dps = 30


def q_of_w(w):
    """sqrt(pi)/2 exp(erfinv(a)^2 - w) for a = sqrt(1 - exp(-w))."""
    if w == 0:
        return mp.sqrt(mp.pi) / 2
    a = mp.sqrt(-mp.expm1(-w))
    x = mp.erfinv(a)
    return mp.sqrt(mp.pi) / 2 * mp.exp(x * x - w)


def fit(lo, hi, center, use_sqrt, deg, nodes=400):
    to_t = np.sqrt if use_sqrt else (lambda v: v)
    tl, th = to_t(lo), to_t(hi)
    k = np.arange(nodes)
    t = (tl + th) / 2 + (th - tl) / 2 * np.cos(np.pi * (k + 0.5) / nodes)
    y = np.array([float(q_of_w(mp.mpf(v) ** 2 if use_sqrt else mp.mpf(v))) for v in t])
    c = np.polyfit(t - center, y, deg)
    tt = np.linspace(tl, th, 2000)
    ref = [q_of_w(mp.mpf(v) ** 2 if use_sqrt else mp.mpf(v)) for v in tt]
    got = np.polyval(c, tt - center)
    err = max(abs((mp.mpf(g) - r) / r) for g, r in zip(got, ref))
    return c, float(err)


def main():
    deg = int(sys.argv[1]) if len(sys.argv) > 1 else 9
    ranges = (
        ("w < 5, t1 = w - 2.5", (0.0, 5.0, 2.5, False)),
        ("5 <= w < 16, t2 = sqrt(w) - 3", (5.0, 16.0, 3.0, True)),
        ("w >= 16, t3 = sqrt(w) - 5", (16.0, 38.0, 5.0, True)),
    )
    for name, args in ranges:
        c, err = fit(*args, deg)
        print(f"// {name}: relative error {err:.2g}")
        print(", ".join(repr(float(v)) for v in c))


if __name__ == "__main__":
    main()
