"""Fits the tables and polynomials of the float64 pow in csrc/kernels/cpu/vec/pow64.h (AVX-512 and AVX2) and prints
them as C.

log: x = 2^k z with z in [OFF, 2 OFF), OFF = 0x3FE6C00000000000 = 0.7109375; bits 51..47 of bits(x) - OFF pick
one of 32 intervals of z (1/64 wide below 1, 1/32 above). Interval 18, [1 - 1/128, 1 + 1/64), gets c = 1
(invc = 1, log c = 0): near x = 1, r = z - 1 is exact and log x keeps its relative accuracy (1 sits half way
into it: of the offsets tried, the one with the smallest max |r|^3 / |log z|). Elsewhere invc is a short
multiple of 2^-q (q <= 7) chosen so that r = z invc - 1 is exact in one FMA: z is a multiple of 2^-53 (z < 1)
or 2^-52 (z >= 1), so z invc - 1 is a multiple of 2^-(53+q) or 2^-(52+q), exact while |r| < 2^-q or
2^-(q-1). Among the multiples that satisfy this, the one with the smallest max |r| over the interval (ties:
the smallest max |r|^3 / (3 |log z|), the size of the cubic term next to log x). invc has at most 8
significant bits, so the kernel fetches only its high words (32-bit table). -log(invc) is split hi + lo with
hi a multiple of 2^-42, as is ln2_hi, so k ln2_hi + logc_hi is exact for |k| < 2^11 (|sum| < 2^10).

log1p(r) = r - r^2/2 + (-r^3/2) q(r), q of degree 7, minimax for the error relative to log1p(r) over the
union of the intervals' r ranges (weight |r^3 / (2 log1p r)| on q - g, g = -2 (log1p r - r + r^2/2) / r^3);
degree 6 is printed too (2^-62.8: not enough for |y log x| up to 745). The kernel evaluates q = B0 + r q1(r),
q1 by Estrin's scheme in r and ar2 = -r^2/2, so B3, B4 are printed times -2, B5, B6 times 4, B7 times -8.

exp: w = k ln2 + s with k a multiple of 1/16, |s| <= ln2/32 + 2^-8 (the low part of y log x, clamped to 2^-8:
it is below 2^-19 |log x| |y| <= 2^-9 wherever |y log x| <= 1000, printed below), exp(s) = 1 + s + s^2 P(s),
P of degree 5 minimax for the error relative to exp(s) (weight s^2 / e^s). The 2^(j/16) table is
avx512_math.h's kExp2jHi/kExp2jLo (not refitted).

Remez exchange in mpmath (60 digits) for the unrounded minimax; then the coefficients are rounded to double
one at a time (lowest degree first), the free ones corrected after each rounding by a linear program
(discrete minimax; scipy's HiGHS); the rounded polynomial's error is re-measured on a dense grid in exact
arithmetic (the evaluation roundings are the kernel's, measured by tests/ops/elementwise/test_vec_pow_softplus.py). Needs mpmath, numpy, scipy (none a dependency of minitorch).
Usage: python3 scripts/fit_pow64_tables.py (about 25 s)
"""

import struct
from fractions import Fraction as Fr

import mpmath as mp

mp.mp.dps = 60

ONE = 0x3FF0000000000000
N = 32
SH = 47  # 52 - log2(N)
J1 = 18  # the interval holding 1
OFF = ONE - (J1 * (1 << SH) + (1 << (SH - 1)))  # 1 sits half way into interval J1
assert OFF == 0x3FE6C00000000000


def b2d(b):
    return struct.unpack("<d", struct.pack("<Q", b))[0]


def log_table():
    rows = []
    for j in range(N):
        a = Fr(b2d(OFF + j * (1 << SH)))
        b = Fr(b2d(OFF + (j + 1) * (1 << SH) - 1))  # largest z of the interval (inclusive)
        if a <= 1 <= b:
            assert j == J1
            rows.append((j, a, b, Fr(1), a - 1, b - 1))
            continue
        best = None
        for q in range(3, 8):
            g = Fr(1, 1 << q)
            lim = Fr(1, 1 << q) if b < 1 else Fr(2, 1 << q)
            cen = 2 / (a + b)
            for m in range(int(cen / g) - 3, int(cen / g) + 4):
                ic = m * g
                lo, hi = a * ic - 1, b * ic - 1
                rmax = max(abs(lo), abs(hi))
                if rmax >= lim:
                    continue
                cube = max(float(abs(lo)) ** 3 / abs(mp.log(a)), float(abs(hi)) ** 3 / abs(mp.log(b))) / 3
                key = (rmax, cube)
                if best is None or key < best[0]:
                    best = (key, ic, lo, hi)
        assert best is not None, j
        rows.append((j, a, b, best[1], best[2], best[3]))
    return rows


def remez(g, w, lo, hi, m, fixed=(), iters=40, grid=4000):
    """Minimax sum_k c_k x^k (k < m) for max |w(x) (p(x) - g(x))| on [lo, hi]; c_k for k < len(fixed) given."""
    nf = len(fixed)
    free = list(range(nf, m))
    n = len(free) + 1

    def gg(x):
        return g(x) - sum(c * x**k for k, c in enumerate(fixed))

    xs = [lo + (hi - lo) * (1 - mp.cos(mp.pi * i / grid)) / 2 for i in range(grid + 1)]
    xs = [x for x in xs if w(x) != 0]
    gx = [gg(x) for x in xs]
    wx = [w(x) for x in xs]
    ref = [(lo + hi) / 2 - (hi - lo) / 2 * mp.cos(mp.pi * (i + mp.mpf(1) / 2) / n) for i in range(n)]
    wmax = max(wx)
    ref = [x if w(x) > wmax * mp.mpf("1e-3") else x + (hi - lo) / (4 * n) for x in ref]
    best = None
    for _ in range(iters):
        a = mp.matrix(n, n)
        b = mp.matrix(n, 1)
        for i, x in enumerate(ref):
            for jj, k in enumerate(free):
                a[i, jj] = x**k
            a[i, n - 1] = (-1) ** i / w(x)
            b[i] = gg(x)
        sol = mp.lu_solve(a, b)
        c = {k: sol[jj] for jj, k in enumerate(free)}

        def p(x, c=c):
            return sum(c[k] * x**k for k in free)

        err = [wx[i] * (p(xs[i]) - gx[i]) for i in range(len(xs))]
        runs = []  # one extremum per sign run
        for i, e in enumerate(err):
            s = e >= 0
            if runs and runs[-1][0] == s:
                if abs(e) > abs(err[runs[-1][1]]):
                    runs[-1] = (s, i)
            else:
                runs.append((s, i))
        while len(runs) > n:  # drop the smallest, merging the neighbours it separated
            k = min(range(len(runs)), key=lambda j: abs(err[runs[j][1]]))
            runs.pop(k)
            if 0 < k < len(runs) and runs[k - 1][0] == runs[k][0]:
                keep = max(runs[k - 1], runs[k], key=lambda r: abs(err[r[1]]))
                runs[k - 1 : k + 1] = [keep]
        emax = max(abs(e) for e in err)
        best = (list(fixed) + [c[k] for k in free], emax)
        if len(runs) < n:
            break
        emin = min(abs(err[i]) for _, i in runs)
        ref = [xs[i] for _, i in runs]
        if emin > 0 and emax / emin < 1 + mp.mpf("1e-4"):
            break
    return best


def fit_rounded(g, w, lo, hi, m, npts=3000):
    """Remez, then round the coefficients to double one at a time (lowest degree first); after each rounding
    the free ones are corrected by a linear program (discrete minimax over npts Chebyshev points, solved by
    scipy's HiGHS on the error scaled to O(1), so its tolerances cost nothing at this precision). An LP rather
    than Remez for the refit: with the weight's zero at r = 0 and the low coefficients fixed, the remaining
    basis is not a Haar system and the exchange does not converge."""
    import numpy as np
    from scipy.optimize import linprog

    c, _ = remez(g, w, lo, hi, m)
    c = [mp.mpf(v) for v in c]
    xs = [lo + (hi - lo) * (1 - mp.cos(mp.pi * (i + mp.mpf(1) / 2) / npts)) / 2 for i in range(npts)]
    xs = [x for x in xs if w(x) != 0]
    gx = [g(x) for x in xs]
    wx = [w(x) for x in xs]
    R = max(abs(lo), abs(hi))
    for nf in range(1, m + 1):
        c[nf - 1] = mp.mpf(float(c[nf - 1]))
        if nf == m:
            break
        e0 = [wx[i] * (sum(c[k] * xs[i] ** k for k in range(m)) - gx[i]) for i in range(len(xs))]
        scale = max(abs(e) for e in e0)
        free = list(range(nf, m))
        wm = max(wx)
        A = np.array([[float(wx[i] / wm * (xs[i] / R) ** k) for k in free] for i in range(len(xs))])
        b = np.array([float(e / scale) for e in e0])
        nv = len(free)
        ones = -np.ones((len(xs), 1))
        A_ub = np.vstack([np.hstack([A, ones]), np.hstack([-A, ones])])
        b_ub = np.concatenate([-b, b])
        cost = np.zeros(nv + 1)
        cost[-1] = 1
        res = linprog(cost, A_ub=A_ub, b_ub=b_ub, bounds=[(None, None)] * (nv + 1), method="highs")
        assert res.status == 0, (
            res.message,
            np.isfinite(A).all(),
            np.isfinite(b).all(),
            A.shape,
            float(scale),
        )
        for jj, k in enumerate(free):
            c[k] += mp.mpf(res.x[jj]) * scale / (wm * R**k)
    return [float(v) for v in c]


def maxerr(g, w, lo, hi, c, npts=20000):
    e = mp.mpf(0)
    for i in range(npts + 1):
        x = lo + (hi - lo) * mp.mpf(i) / npts
        if w(x) == 0:
            continue
        e = max(e, abs(w(x) * (sum(mp.mpf(v) * x**k for k, v in enumerate(c)) - g(x))))
    return e


def carr(name, vals, per=4):
    s = f"alignas(64) static const double {name}[{len(vals)}] = {{\n"
    for i in range(0, len(vals), per):
        s += "    " + " ".join(repr(float(v)) + "," for v in vals[i : i + per]) + "\n"
    return s + "};"


def main():
    rows = log_table()
    ln2 = mp.log(2)
    ln2hi = float(mp.nint(ln2 * 2**42) / 2**42)
    ln2lo = float(ln2 - ln2hi)
    invc, lch, lcl = [], [], []
    rmin, rmax = Fr(0), Fr(0)
    worst_cube = worst_lo = 0
    for j, a, b, ic, lo, hi in rows:
        lc = -mp.log(mp.mpf(ic.numerator) / ic.denominator)
        h = float(mp.nint(lc * 2**42) / 2**42)
        invc.append(float(ic))
        lch.append(h)
        lcl.append(float(lc - h))
        assert Fr(float(ic)) == ic
        rmin, rmax = min(rmin, lo), max(rmax, hi)
        rm = max(abs(float(lo)), abs(float(hi)))
        # Fast2Sum t1 + r needs |t1| >= |r| where t1 = logc_hi (k = 0) is not 0
        assert j == J1 or abs(h) >= rm, j
        if j != J1:
            lz = min(abs(mp.log(a)), abs(mp.log(b)))
            cube = max(float(abs(lo)) ** 3 / abs(mp.log(a)), float(abs(hi)) ** 3 / abs(mp.log(b))) / 3
            low = (rm**4 / 4 + abs(float(lc - h)) + 2 * 2.0**-53 * (rm + abs(h))) / lz
        else:  # log z = log1p(r) ~ r
            cube = rm**2 / 3
            low = rm**3 / 4 + 2 * 2.0**-53
        worst_cube, worst_lo = max(worst_cube, cube), max(worst_lo, low)
    print(
        f"// OFF = 0x{OFF:016X}, r in [{float(rmin):.6f}, {float(rmax):.6f}]; for k = 0 (the worst case): max |cubic term / log z| 2^{float(mp.log(worst_cube, 2)):.2f},"
    )
    print(f"// max |lo / log z| 2^{float(mp.log(worst_lo, 2)):.2f} (r^4/4, logc_lo and the Fast2Sum errors)")
    print("// ln2 hi (a multiple of 2^-42), lo:", repr(ln2hi), repr(ln2lo))
    words = []
    for v in invc:
        b = struct.unpack("<Q", struct.pack("<d", v))[0]
        assert b & 0xFFFFFFFF == 0
        words.append(b >> 32)
    print("alignas(64) static const uint32_t kPow64InvCHi[32] = {  // high words; the low words are 0")
    for i in range(0, 32, 8):
        print("    " + " ".join(f"0x{w:08X}," for w in words[i : i + 8]))
    print("};")
    print(carr("kPow64LogCHi", lch))
    print(carr("kPow64LogCLo", lcl))

    # log1p(r) = r - r^2/2 + (-r^3/2) q(r)
    def g(r):
        if abs(r) < mp.mpf("1e-12"):
            return -2 * (mp.mpf(1) / 3 - r / 4 + r**2 / 5)
        return -2 * (mp.log1p(r) - r + r**2 / 2) / r**3

    def w(r):
        return abs(r**3 / (2 * mp.log1p(r))) if r != 0 else mp.mpf(0)

    lo, hi = mp.mpf(float(rmin)), mp.mpf(float(rmax))
    for deg in (6, 7):
        B = fit_rounded(g, w, lo, hi, deg + 1)
        e = maxerr(g, w, lo, hi, B)
        print(f"// log1p: q of degree {deg}: max error relative to log1p(r) 2^{float(mp.log(e, 2)):.2f}")
        print("//   B0..: " + ", ".join(repr(v) for v in B))
    print(
        f"//   as in the kernel: B0 {B[0]!r}; a1 = {B[2]!r} r + {B[1]!r}; a3 = {-2 * B[4]!r} r + {-2 * B[3]!r}; a5 = {4 * B[6]!r} r + {4 * B[5]!r}; B7 * -8 = {-8 * B[7]!r}"
    )

    # exp(s) = 1 + s + s^2 P(s)
    R = mp.log(2) / 32 * (1 + mp.mpf(2) ** -30) + mp.mpf(2) ** -8

    def ge(r):
        if abs(r) < mp.mpf("1e-12"):
            return mp.mpf(1) / 2 + r / 6 + r**2 / 24
        return (mp.expm1(r) - r) / r**2

    def we(r):
        return r**2 / mp.exp(r)

    for deg in (4, 5):
        c = fit_rounded(ge, we, -R, R, deg + 1)
        e = maxerr(ge, we, -R, R, c)
        print(
            f"// expm1 on |s| <= {float(R):.5f}: P of degree {deg}: max error relative to exp(s) "
            f"2^{float(mp.log(e, 2)):.2f}"
        )
        print("//   C0..: " + ", ".join(repr(v) for v in c))


if __name__ == "__main__":
    main()
