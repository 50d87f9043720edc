"""Tables and polynomial of log_avx512 in csrc/kernels/cpu/vec/avx512_math.h (float32 log on AVX-512, 32-entry
tables fetched with vpermt2ps).

Reduction (as in the kernel): m = vgetmantps(x) in [0.75, 1.5), e = vgetexpps(x) (the exponent of x in [1, 2)
form, so x = 2^(e+1) m where m < 1), i = (bits of m >> 18) mod 32:
  i = 0..15:  m in [1 + i/32, 1 + (i+1)/32)            log x = e ln2 + log(c_i) + log1p(r)
  i = 16..31: m in [0.75 + (i-16)/64, 0.75 + (i-15)/64)  log x = e ln2 + (ln2 + log(c_i)) + log1p(r)
r = m invc_i - 1 (one FMA), c_i = 1/invc_i; invc_0 = invc_31 = 1 (r = m - 1 exactly around x = 1).
T_i = log(c_i) (+ ln2 for i >= 16) is split into T_hi on a 2^-17 grid (so e*L_hi + T_hi is exact for every
float exponent, L_hi = ln2 rounded down to 2^-17) and T_lo = float(T_i - T_hi); entry 31 is exactly
(L_hi, L_lo), so for x just below 1 (e = -1) both e*L_hi + T_hi and e*L_lo + T_lo are exactly 0.
log1p(r) = r + r^2 P(r), P of degree 3 (DEG): a weighted minimax fit (Lawson's iteration on a dense grid) of
(log1p(r) - r)/r^2 on the r range of the table, coefficients rounded to float one at a time (lowest first)
with the rest refitted.

invc_i (i = 1..30) is picked per interval among candidates (floats near 1/c_mid and multiples of 2^-q near
it, q = 6..12; a multiple of 2^-6 makes r = m invc - 1 exact) by simulating the kernel's float32 arithmetic
on every m of the interval (x = m, the exponent where log x is smallest) against numpy's double log and
keeping the one with the smallest max ulp error. Prints the C arrays.

Needs mpmath (not a dependency of minitorch).
Usage: python3 scripts/fit_log32_table.py        (degree-3 P: the kernel's tables, ~90 s)
       DEG=2 python3 scripts/fit_log32_table.py  (degree-2 P: one instruction fewer, 0.8035 ulp)
"""

import os

import mpmath as mp
import numpy as np

mp.mp.prec = 200
LN2 = mp.log(2)
L_HI = mp.floor(LN2 * 2**17) / 2**17  # 90852 / 2^17, 17 bits: e * L_HI exact for |e| <= 149
L_LO = float(np.float32(float(LN2 - L_HI)))
L_HI = float(L_HI)
R_LO, R_HI = -(2.0**-6), 2.0**-5  # r range allowed (set by entries 31 and 0)
DEG = int(os.environ.get("DEG", "3"))  # degree of P (log1p(r) = r + r^2 P(r)); DEG=2 for the shorter variant


def f32(a):
    return np.asarray(a, dtype=np.float64).astype(np.float32).astype(np.float64)


def f_target(r):
    """(log1p(r) - r) / r^2 by its series (|r| <= 1/32: 24 terms are far below double rounding)."""
    s = np.zeros_like(r)
    for k in range(26, 1, -1):
        s = s * r + (-1.0) ** (k + 1) / k
    return s


def fit_poly(lo, hi, deg=3, fixed=()):
    """Minimax (Lawson) of P(r) ~ f(r) with weight max(|r|, 2^-8) (the error r^2 dP relative to log x, which
    is at least about |r| next to x = 1); `fixed` leading coefficients are held."""
    r = np.linspace(lo, hi, 20001)
    r = r[r != 0]
    y = f_target(r)
    w0 = np.maximum(np.abs(r), 2.0**-8)
    nf = len(fixed)
    a = np.vander(r, deg + 1, increasing=True)
    yy = y - (a[:, :nf] @ np.array(fixed) if nf else 0)
    a = a[:, nf:]
    lw = np.ones_like(r) / len(r)
    for _ in range(300):
        sw = np.sqrt(lw) * w0
        c = np.linalg.lstsq(a * sw[:, None], yy * sw, rcond=None)[0]
        err = np.abs(a @ c - yy) * w0
        lw = lw * err
        lw /= lw.sum()
    return list(fixed) + list(c), float(np.max(np.abs(a @ c - yy) * w0))


def fit_rounded(lo, hi):
    fixed = []
    for k in range(DEG + 1):
        c, _ = fit_poly(lo, hi, DEG, tuple(fixed))
        fixed.append(float(np.float32(c[k])))
    return fixed


def interval(i):
    if i < 16:
        a = 1 + i / 32
        n = 2**18  # floats in [a, a + 1/32): spacing 2^-23
        m = a + np.arange(n) * 2.0**-23
    else:
        a = 0.75 + (i - 16) / 64
        n = 2**18  # spacing 2^-24
        m = a + np.arange(n) * 2.0**-24
    return m


def table_entry(i, invc):
    t = -mp.log(mp.mpf(invc)) + (LN2 if i >= 16 else 0)
    thi = mp.nint(t * 2**17) / 2**17
    tlo = float(np.float32(float(t - thi)))
    return float(thi), tlo


def ulp_err(res, ref):
    """|res - ref| over the spacing of float32(ref) away from zero (the minitorch test's ulp)."""
    rf = np.abs(ref.astype(np.float32))
    sp = (np.nextafter(rf, np.float32(np.inf)) - rf).astype(np.float64)
    return np.abs(res - ref) / sp


def simulate(m, e, invc, thi, tlo, coef):
    """The kernel's arithmetic in float32 (each operation rounded once; products of floats exact in double)."""
    r = f32(m * invc - 1.0)
    r2 = f32(r * r)
    p = f32(coef[-1] * r + coef[-2])
    for c in coef[-3::-1]:
        p = f32(p * r + c)
    y0 = f32(e * L_HI + thi)
    lo = f32(e * L_LO + tlo)
    lo = f32(r2 * p + lo)
    t = f32(r + lo)
    return f32(y0 + t), r


def candidates(i):
    if i in (0, 31):
        return [1.0]
    m = interval(i)
    a, b = m[0], m[-1]
    cmid = (a + b + (m[1] - m[0])) / 2
    out = set()
    ic = float(np.float32(1 / cmid))
    for k in range(-24, 25):  # floats near 1/c_mid (k ulps away) and further out in steps of 64 ulps
        out.add(float(np.float32(ic) + np.float32(k) * np.spacing(np.float32(ic))))
        out.add(float(np.float32(ic) + np.float32(64 * k) * np.spacing(np.float32(ic))))
    for q in range(6, 13):
        j0 = round(2**q / cmid)
        for j in range(j0 - 3, j0 + 4):
            out.add(j / 2**q)
    ok = []
    for c in sorted(out):
        if a * c - 1 >= R_LO and b * c - 1 <= R_HI:
            ok.append(c)
    return ok


def pick(i, coef):
    m = interval(i)
    e = 0.0 if i < 16 else -1.0
    x = m  # e = -1 with m < 1: x = 2^0 m
    ref = np.log(x)
    best = None
    for c in candidates(i):
        thi, tlo = table_entry(i, c)
        res, r = simulate(m, e, c, thi, tlo, coef)
        err = float(np.max(ulp_err(res, ref)))
        key = (round(err, 4), float(np.max(np.abs(r))))
        if best is None or key < best[0]:
            best = (key, c, thi, tlo, float(r.min()), float(r.max()))
    return best


def main():
    coef = fit_rounded(R_LO, R_HI)
    for it in range(2):
        rows = [pick(i, coef) for i in range(32)]
        rlo = min(b[4] for b in rows)
        rhi = max(b[5] for b in rows)
        coef = fit_rounded(rlo, rhi)
    rows = [pick(i, coef) for i in range(32)]
    _, perr = fit_poly(rlo, rhi, DEG, tuple(coef[:DEG]))
    print(
        f"// r range [{rlo:.6g}, {rhi:.6g}]; weighted poly error (r^2 dP / max(|r|, 2^-8)) {perr:.3g} "
        f"= 2^{np.log2(perr):.1f}"
    )
    print("// per interval: max ulp (simulated at the exponent where |log x| is smallest), max |r|")
    for i, b in enumerate(rows):
        print(f"//  {i:2d}: invc {b[1]:.9g}  err {b[0][0]:.4f}  |r| <= {b[0][1]:.5f}")
    print(f"// L_hi = {L_HI!r} ({L_HI * 2**17:.0f} * 2^-17), L_lo = {L_LO:.9e}f")
    print(
        "alignas(64) static const float kLog32InvC[32] = {" + ", ".join(f"{b[1]:.9e}f" for b in rows) + "};"
    )
    print("alignas(64) static const float kLog32THi[32] = {" + ", ".join(f"{b[2]:.9e}f" for b in rows) + "};")
    print("alignas(64) static const float kLog32TLo[32] = {" + ", ".join(f"{b[3]:.9e}f" for b in rows) + "};")
    print("P: " + ", ".join(f"{c:.9e}f" for c in coef))
    # exactness checks of the table values as floats
    for b in rows:
        assert float(np.float32(b[1])) == b[1] and float(np.float32(b[2])) == b[2]
        assert (b[2] * 2**17) == round(b[2] * 2**17)


if __name__ == "__main__":
    main()
