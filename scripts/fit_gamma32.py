"""Constants of csrc/kernels/cpu/vec/gamma_f32.h (float32 lgamma and digamma on AVX2, evaluated in double).
No fit is needed there: each polynomial is a truncated Taylor or asymptotic series whose coefficients are
facts, computed here with mpmath and rounded to double, with the truncation error each leaves:
- sin(pi r) = r S(r^2) and cos(pi r) = C(r^2) for |r| <= 1/2 (the reflection formulas' pi cot(pi x) and
  log|sin(pi x)|), Taylor to r^23 and r^22;
- digamma's zero x0 on the positive axis as hi + lo, and digamma's Taylor coefficients at x0 (its window,
  where the shifted series would cancel to the last bits);
- the truncation of the Stirling and digamma asymptotic series at z >= 10 (their coefficients, Bernoulli
  numbers over small integers, are written as fractions in the header).

Needs mpmath (not a dependency of minitorch). Usage: python3 scripts/fit_gamma32.py
"""

import mpmath as mp

mp.mp.dps = 40


def taylor_sin_cos():
    s = [mp.pi ** (2 * k + 1) * (-1) ** k / mp.factorial(2 * k + 1) for k in range(12)]
    c = [mp.pi ** (2 * k) * (-1) ** k / mp.factorial(2 * k) for k in range(12)]
    r = mp.mpf(0.5)
    # the first term left out, at |r| = 1/2, relative to the function's smallest value there
    s_err = mp.pi**25 * r**25 / mp.factorial(25) / mp.sin(mp.pi * r)
    c_err = mp.pi**24 * r**24 / mp.factorial(24)  # absolute (cos(pi r) -> 0 at 1/2)
    return s, c, s_err, c_err


def digamma_root(deg=5, window=2.0**-10):
    x0 = mp.findroot(mp.digamma, mp.mpf("1.46"))
    hi = float(x0)
    lo = float(x0 - hi)
    coef = [mp.diff(mp.digamma, x0, n) / mp.factorial(n) for n in range(1, deg + 1)]
    # relative truncation: the first term left out over the first term kept, at the window's edge
    trunc = abs(mp.diff(mp.digamma, x0, deg + 1) / mp.factorial(deg + 1) * window**deg / coef[0])
    return hi, lo, coef, trunc


def asymptotic_truncation(z=10):
    b = mp.bernoulli
    stirling = abs(b(18) / (18 * 17 * mp.mpf(z) ** 17))  # after the z^-15 term (B16)
    digamma = abs(b(16) / (16 * mp.mpf(z) ** 16))  # after the z^-14 term (B14)
    return stirling, digamma


def main():
    s, c, s_err, c_err = taylor_sin_cos()
    print(f"sin(pi r) / r, coefficients of r^0, r^2, ... (relative truncation at 1/2: {float(s_err):.1e})")
    for v in s:
        print(f"  {float(v)!r},")
    print(f"cos(pi r), coefficients of r^0, r^2, ... (absolute truncation at 1/2: {float(c_err):.1e})")
    for v in c:
        print(f"  {float(v)!r},")
    hi, lo, coef, trunc = digamma_root()
    print(f"digamma's zero x0 = {hi!r} + {lo!r}")
    print(f"digamma(x0 + d) = sum c_n d^n, n = 1.. (relative truncation at |d| = 2^-10: {float(trunc):.1e})")
    for v in coef:
        print(f"  {float(v)!r},")
    st, dg = asymptotic_truncation()
    print(f"at z = 10: Stirling's series to z^-15 leaves {float(st):.1e}, digamma's to z^-14 {float(dg):.1e}")


if __name__ == "__main__":
    main()
