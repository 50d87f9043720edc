"""The coefficients of csrc/kernels/cpu/vec/erf_f32_lanes.h: erf(a)/a - 1 as a polynomial of degree 6 in a^2 on [0, T],
log(erfc(a)) of degree 8 in a - T on [T, 3.93] weighted by erfc(a) (its error in erf), and e^f = 1 + f + f^2 E(f) with E
of degree 4 on [-ln2/2, ln2/2] relative; each a near-minimax fit on Chebyshev nodes (Lawson's iteration), its
coefficients rounded to float32 from the highest with the lower ones refitted. Needs SciPy (the oracle's venv):

  /tmp/tv/bin/python scripts/fit_erf_f32.py [T=0.90625]

scripts/check_erf_f32.cpp measures the kernel over every float32."""

import sys

import numpy as np
from scipy.special import erf, erfc


def lawson(A, f, iters=80):
    w = np.ones(len(f))
    for _ in range(iters):
        sw = np.sqrt(w)
        c, *_ = np.linalg.lstsq(A * sw[:, None], f * sw, rcond=None)
        e = np.abs(A @ c - f)
        w = w * (e + 1e-300)
        w /= w.sum()
    return c


def fit_f32(t, f, deg, rel=None):
    """Polynomial in t of degree deg minimizing max |p - f| / rel, float32 coefficients."""
    A = np.stack([t**k for k in range(deg + 1)], 1)
    if rel is not None:
        A, f = A / rel[:, None], f / rel
    fixed = {}
    for top in range(deg, -1, -1):
        free = [k for k in range(deg + 1) if k not in fixed]
        c = dict(zip(free, lawson(A[:, free], f - sum(A[:, k] * v for k, v in fixed.items()))))
        fixed[top] = float(np.float32(c[top]))
    c = np.array([fixed[k] for k in range(deg + 1)])
    return c, float(np.max(np.abs(A @ c - f)))


def main():
    T = float(sys.argv[1]) if len(sys.argv) > 1 else 0.90625
    HI = 3.93
    x = np.cos(np.linspace(0, np.pi, 6000)) * T / 2 + T / 2
    x = x[x > 1e-5]
    c, e = fit_f32(x * x, (erf(x) - x) / x, 6)
    print("P (a^2, from the constant term):", [repr(float(np.float32(v))) for v in c], f"max error {e:.3g}")
    a = np.cos(np.linspace(0, np.pi, 8000)) * (HI - T) / 2 + (HI + T) / 2
    c, e = fit_f32(a - T, np.log(erfc(a)), 8, rel=1 / erfc(a))
    print("Q (a - T):", [repr(float(np.float32(v))) for v in c], f"max error in erf {e:.3g}")
    f = np.cos(np.linspace(0, np.pi, 4000)) * np.log(2) / 2 * 1.001
    c, e = fit_f32(f, (np.expm1(f) - f) / (f * f + 1e-300), 4, rel=np.exp(f) / (f * f + 1e-300))
    print("E (f):", [repr(float(np.float32(v))) for v in c], f"max relative error {e:.3g}")


if __name__ == "__main__":
    main()
