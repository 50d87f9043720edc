"""Fits the float64 exp and tanh polynomials of csrc/kernels/cpu/vec/avx512_math.h (AVX-512) and prints them
as C.

  expm1 core (exp and tanh's |x| >= C0 path): q(r) = r + r^2 P(r), P of degree 4 (c2..c6), on |r| <= R0 =
  ln2/32 (plus a hair for the rounding of n), minimax for the error of exp(r) = 1 + q relative to exp(r), i.e.
  weight r^2 / e^r on (P - (expm1(r) - r) / r^2).
  tanh small path: tanh(a) = a + a^3 S(a^2) on [0, C0], S of degree NS - 1 in z = a^2, minimax for the error
  relative to tanh(a), i.e. weight z a / tanh(a) on (S - (tanh(a) - a) / a^3).
  tables: 2^(j/16) as double pairs hi + lo (the same values as kExp2jHi/kExp2jLo in avx512_math.h), ln2 split
  hi + lo (hi = 16 (ln2/16 rounded), so k hi is exact in an FMA for k a multiple of 1/16), 1/ln2, 2/ln2.
  Defaults C0 = 0.3, NS = 8 are the kernel's; "0.28 7" saves one FMA in tanh (3% faster) for 0.73 ulp.

Remez exchange in mpmath (60 digits) on the polynomial's own variable; coefficients rounded to double and the
rounded polynomial's error re-measured on a fine grid (exact arithmetic, no evaluation rounding: tests/ops/elementwise/test_ulp.py
measures the kernels themselves).  Needs mpmath (not a dependency of minitorch). Usage: python3 scripts/fit_exp_tanh64.py [C0 NS]"""

import sys

import mpmath as mp

mp.mp.dps = 60


def remez(g, w, lo, hi, m, iters=30, grid=6000):
    """Minimax polynomial sum c_k x^k, k < m, for max |w(x) (p(x) - g(x))| on [lo, hi]."""
    n = m + 1
    # initial reference: Chebyshev extrema
    ref = [(lo + hi) / 2 - (hi - lo) / 2 * mp.cos(mp.pi * i / (n - 1)) for i in range(n)]
    ref[0] = lo + (hi - lo) * mp.mpf("1e-6") if w(lo) == 0 else ref[0]
    xs = [lo + (hi - lo) * (1 - mp.cos(mp.pi * i / grid)) / 2 for i in range(grid + 1)]
    if w(xs[0]) == 0:
        xs[0] = lo + (hi - lo) * mp.mpf("1e-9")
    gx = [g(x) for x in xs]
    wx = [w(x) for x in xs]
    best = None
    for _ in range(iters):
        a = mp.matrix(n, n)
        b = mp.matrix(n, 1)
        for i, x in enumerate(ref):
            for k in range(m):
                a[i, k] = x**k
            a[i, m] = (-1) ** i / w(x)
            b[i] = g(x)
        sol = mp.lu_solve(a, b)
        c = [sol[k] for k in range(m)]
        err = [wx[i] * (mp.polyval(c[::-1], xs[i]) - gx[i]) for i in range(len(xs))]
        # local extrema of err with alternating signs (one per sign run)
        runs = []
        for i, e in enumerate(err):
            s = e >= 0
            if runs and runs[-1][0] == s:
                if abs(e) > abs(err[runs[-1][1]]):
                    runs[-1] = (s, i)
            else:
                runs.append((s, i))
        # keep n alternating extrema: drop the smallest (the weight's zero makes tiny spurious ones), merge the
        # neighbours it separated, keeping the larger
        while len(runs) > n:
            k = min(range(len(runs)), key=lambda j: abs(err[runs[j][1]]))
            runs.pop(k)
            if 0 < k < len(runs) and runs[k - 1][0] == runs[k][0]:
                keep = max(runs[k - 1], runs[k], key=lambda r: abs(err[r[1]]))
                runs[k - 1 : k + 1] = [keep]
        emax = max(abs(e) for e in err)
        best = (c, emax)
        if len(runs) < n:
            break
        newref = []
        for _, i in runs:  # refine each extremum by a parabola through its grid neighbours
            if 0 < i < len(xs) - 1:
                x0, x1, x2 = xs[i - 1], xs[i], xs[i + 1]
                e0, e1, e2 = abs(err[i - 1]), abs(err[i]), abs(err[i + 1])
                den = (x0 - x1) * (x0 - x2) * (x1 - x2)
                aa = (x2 * (e1 - e0) + x1 * (e0 - e2) + x0 * (e2 - e1)) / den
                bb = (x2**2 * (e0 - e1) + x1**2 * (e2 - e0) + x0**2 * (e1 - e2)) / den
                xv = -bb / (2 * aa) if aa != 0 else x1
                newref.append(xv if x0 < xv < x2 else x1)
            else:
                newref.append(xs[i])
        emin = min(abs(err[i]) for _, i in runs)
        ref = newref
        if emin > 0 and emax / emin < 1 + mp.mpf("1e-6"):
            break
    return best


def maxerr(g, w, lo, hi, c, npts=20000):
    e = 0
    for i in range(npts + 1):
        x = lo + (hi - lo) * mp.mpf(i) / npts
        if w(x) == 0:
            continue
        e = max(e, abs(w(x) * (mp.polyval(c[::-1], x) - g(x))))
    return e


def dbl(v):
    return float(v)


def cstr(v):
    return repr(dbl(v))


def main():
    c0 = mp.mpf(sys.argv[1]) if len(sys.argv) > 1 else mp.mpf("0.3")
    ns = int(sys.argv[2]) if len(sys.argv) > 2 else 8

    # --- tables
    two = mp.mpf(2)
    print("// 2^(j/16) hi, lo (= kExp2jHi/kExp2jLo)")
    his, los = [], []
    for j in range(16):
        v = two ** (mp.mpf(j) / 16)
        his.append(dbl(v))
        los.append(dbl(v - mp.mpf(his[-1])))
    print("hi = {" + ", ".join(repr(h) for h in his) + "}")
    print("lo = {" + ", ".join(repr(v) for v in los) + "}")
    l16 = mp.log(2) / 16
    l16h = dbl(l16)
    print(
        f"ln2 hi {16 * l16h!r} lo {dbl(16 * (l16 - mp.mpf(l16h)))!r}  1/ln2 {dbl(1 / mp.log(2))!r}"
        f"  2/ln2 {dbl(2 / mp.log(2))!r}"
    )

    # --- expm1 core
    r0 = mp.log(2) / 32 * (1 + mp.mpf("1e-3"))

    def gexp(r):
        return (mp.expm1(r) - r) / r**2 if r != 0 else mp.mpf(1) / 2

    def wexp(r):
        return r**2 / mp.exp(r)

    c, e = remez(gexp, wexp, -r0, r0, 5)
    cd = [mp.mpf(dbl(v)) for v in c]
    ed = maxerr(gexp, wexp, -r0, r0, cd)
    print(
        f"expm1 core c2..c6 (|r| <= {dbl(r0):.6g}): minimax {dbl(e):.3g} = 2^{dbl(mp.log(e, 2)):.2f}, "
        f"rounded {dbl(ed):.3g} = 2^{dbl(mp.log(ed, 2)):.2f} (relative to exp(r))"
    )
    print("  " + ", ".join(cstr(v) for v in c))
    print(
        "  C: "
        + "".join(f"_mm512_set1_pd({cstr(v)})" + (", " if i + 1 < len(c) else "") for i, v in enumerate(c))
    )

    # --- tanh small
    def gt(z):
        a = mp.sqrt(z)
        return (mp.tanh(a) - a) / a**3 if z != 0 else -mp.mpf(1) / 3

    def wt(z):
        a = mp.sqrt(z)
        return z * a / mp.tanh(a) if z != 0 else mp.mpf(0)

    c, e = remez(gt, wt, mp.mpf(0), c0**2, ns)
    # -1/3 rounded to double costs 2^-56 (z/3 * 2^-54) at the top of the interval: round it first and refit the
    # rest, S = s0 + z S1(z), S1 minimax for (g - s0) / z with weight w z
    s0 = mp.mpf(dbl(c[0]))
    c1, _ = remez(lambda z: (gt(z) - s0) / z, lambda z: wt(z) * z, mp.mpf(0), c0**2, ns - 1)
    c = [s0] + c1
    cd = [mp.mpf(dbl(v)) for v in c]
    ed = maxerr(gt, wt, mp.mpf(0), c0**2, cd)
    print(
        f"tanh small, {ns} coefficients, a <= {dbl(c0)}: minimax {dbl(e):.3g} = 2^{dbl(mp.log(e, 2)):.2f}, "
        f"rounded {dbl(ed):.3g} = 2^{dbl(mp.log(ed, 2)):.2f} (relative to tanh)"
    )
    print("  " + ", ".join(cstr(v) for v in c))
    print(
        "  C: "
        + "".join(f"_mm512_set1_pd({cstr(v)})" + (", " if i + 1 < len(c) else "") for i, v in enumerate(c))
    )


if __name__ == "__main__":
    main()
