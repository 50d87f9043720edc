"""The polynomial of exp_avx2_f32 in csrc/kernels/cpu/vec/avx2_math.h (float32 exp on AVX2, in float):
expm1(r) = r + r^2 Q(r) on |r| <= ln2/2 (+0.05%), Q fitted by weighted least squares for the error relative to
exp(r) (Lawson-style reweighting toward the minimax), coefficients rounded to float, then the error of the rounded
polynomial on a dense grid in units of 2^-24. Prints the coefficients, lowest degree first.

Usage: python3 scripts/fit_exp32_poly.py [degree of Q]   (5: the kernel's, 0.008 ulp; 4 gives 0.10)
"""

import sys

import numpy as np


def main():
    deg = int(sys.argv[1]) if len(sys.argv) > 1 else 5
    half = np.log(2) / 2 * 1.0005
    n = 4000
    r = half * np.cos(np.pi * (np.arange(n) + 0.5) / n)
    y = (np.expm1(r) - r) / r**2
    w = r**2 / np.exp(r)  # Q's error times r^2, relative to exp(r)
    vander = np.vander(r, deg + 1, increasing=True)
    for _ in range(30):
        c, *_ = np.linalg.lstsq(vander * w[:, None], y * w, rcond=None)
        e = np.abs((vander @ c - y) * w)
        w = w * (e / e.max()) ** 0.3 + w * 1e-3
    cf = c.astype(np.float32)
    rr = np.linspace(-half, half, 200001)
    q = np.zeros_like(rr)
    for v in cf[::-1]:
        q = q * rr + np.float64(v)
    err = np.max(np.abs((rr + rr**2 * q) - np.expm1(rr)) / np.exp(rr))
    print(f"degree {deg}: {err / 2**-24:.3f} float ulp")
    print(", ".join(repr(float(v)) for v in cf))


if __name__ == "__main__":
    main()
