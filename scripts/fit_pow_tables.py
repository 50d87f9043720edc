"""Fits the tables and polynomials of csrc/kernels/cpu/vec/pow_f32_tables.h (float32 pow computed in float64).

log2: |x| (as a double) = 2^k z with z in [OFF, 2 OFF), OFF = 0x3FE6800000000000 = 0.703125; the top four
mantissa bits of bits(x) - OFF pick one of 16 intervals of z. Interval 9 is [1 - 1/64, 1 + 1/32): it gets
c = 1 exactly (invc = 1, log2 c = 0), so near x = 1 r = z - 1 is exact and log2 x = r q(r) keeps its
relative accuracy. Elsewhere invc = 2 / (a + b) rounded to double (centres |r| on the interval [a, b)),
r = z invc - 1 with one rounding (FMA), and the table holds -log2(invc) rounded to double (computed from the
rounded invc, so the table is self-consistent). q(r) ~ log2(1 + r) / r, degree 5, fitted for relative error
over the union of the r ranges.

exp2: z = n/16 + r, |r| <= 1/32; 2^z = 2^floor(n/16) T[n mod 16] (1 + r p(r)), T = 2^(j/16) rounded to
double, p(r) ~ (2^r - 1) / r, degree 3, fitted for the relative error of 1 + r p(r) against 2^r.

Both fits: weighted least squares on Chebyshev nodes in mpmath (50 digits), then Lawson's iteration
(reweighting by the error) towards the minimax polynomial; coefficients rounded to double one at a time,
the others refitted. Prints the C arrays and the max relative error of the rounded polynomials (evaluated
in mpmath on a dense grid).
Needs mpmath (pip install mpmath; not a dependency of minitorch). Usage: python3 scripts/fit_pow_tables.py"""

import struct

import mpmath as mp

mp.mp.dps = 50

OFF = 0x3FE6800000000000
STEP = 1 << 48


def b2d(b):
    return struct.unpack("<d", struct.pack("<Q", b))[0]


def d2b(d):
    return struct.unpack("<Q", struct.pack("<d", d))[0]


def log_table():
    invc, logc, rmin, rmax = [], [], 0.0, 0.0
    for j in range(16):
        a = b2d(OFF + j * STEP)
        b = b2d(OFF + (j + 1) * STEP)
        if j == 9:
            assert a == 1 - 1 / 64 and b == 1 + 1 / 32
            ic = 1.0
        else:
            ic = float(2 / (mp.mpf(a) + mp.mpf(b)))
        invc.append(ic)
        logc.append(float(-mp.log(mp.mpf(ic), 2)))
        # r = fl(z ic - 1) for z in [a, b) (b excluded; the largest float below b is within 2^-24 b of it)
        lo = float(mp.mpf(a) * ic - 1)
        hi = float(mp.mpf(b) * ic - 1)
        rmin, rmax = min(rmin, lo), max(rmax, hi)
    return invc, logc, rmin, rmax


def fit(f, w, lo, hi, deg, fixed=None, n=300, iters=60):
    """min over c of max |w(x) (sum c_k x^k - f(x))| on [lo, hi]; fixed: {k: value} kept as given."""
    fixed = dict(fixed or {})
    free = [k for k in range(deg + 1) if k not in fixed]
    xs = [
        mp.mpf(lo + hi) / 2 + mp.mpf(hi - lo) / 2 * mp.cos(mp.pi * (i + mp.mpf(1) / 2) / n) for i in range(n)
    ]
    fx = [f(x) for x in xs]
    wx = [w(x) for x in xs]
    lw = [mp.mpf(1)] * n  # Lawson weights
    c = None
    for _ in range(iters):
        A = mp.matrix(len(free), len(free))
        rhs = mp.matrix(len(free), 1)
        for i, x in enumerate(xs):
            ww = lw[i] * wx[i] ** 2
            t = fx[i] - sum(v * x**k for k, v in fixed.items())
            pw = [x**k for k in free]
            for p in range(len(free)):
                rhs[p] += ww * pw[p] * t
                for q in range(len(free)):
                    A[p, q] += ww * pw[p] * pw[q]
        sol = mp.lu_solve(A, rhs)
        c = dict(fixed)
        for p, k in enumerate(free):
            c[k] = sol[p]
        err = [abs(wx[i] * (sum(c[k] * xs[i] ** k for k in c) - fx[i])) for i in range(n)]
        tot = sum(lw[i] * err[i] for i in range(n))
        lw = [lw[i] * err[i] / tot for i in range(n)]
    return [c[k] for k in range(deg + 1)]


def fit_rounded(f, w, lo, hi, deg):
    """Round the coefficients to double one at a time (lowest degree first), refitting the rest."""
    fixed = {}
    for k in range(deg + 1):
        c = fit(f, w, lo, hi, deg, fixed)
        fixed[k] = mp.mpf(float(c[k]))
    return [float(fixed[k]) for k in range(deg + 1)]


def max_err(g, lo, hi, n=4001):
    return max(abs(g(mp.mpf(lo) + (mp.mpf(hi) - lo) * i / (n - 1))) for i in range(n))


def fmt(name, vals):
    body = ",\n".join(
        "    {}".format(", ".join(repr(v) for v in vals[i : i + 3])) for i in range(0, len(vals), 3)
    )
    return f"alignas(64) static const double {name}[{len(vals)}] = {{\n{body},\n}};"


def log2_1p_over_r(r):
    return mp.log1p(r) / (r * mp.ln2) if r != 0 else 1 / mp.ln2


def exp2m1_over_r(r):
    return mp.expm1(r * mp.ln2) / r if r != 0 else mp.ln2


def main():
    invc, logc, rmin, rmax = log_table()
    print(f"// log2 table: OFF = 0x{OFF:016X}, r in [{rmin:.6f}, {rmax:.6f}]")
    print(fmt("kPowInvC", invc))
    print(fmt("kPowLogC", logc))
    # relative error of log2(1 + r) = r q(r): weight 1 / q
    lq = fit_rounded(log2_1p_over_r, lambda r: 1 / log2_1p_over_r(r), rmin, rmax, 5)
    e = max_err(
        lambda r: (sum(c * r**k for k, c in enumerate(lq)) - log2_1p_over_r(r)) / log2_1p_over_r(r),
        rmin,
        rmax,
    )
    print(f"// log2(1 + r) / r, degree 5: max relative error {float(e):.3g} (2^{float(mp.log(e, 2)):.2f})")
    print("static const double kPowLogQ[6] = {{{}}};".format(", ".join(repr(v) for v in lq)))

    t = [float(mp.power(2, mp.mpf(j) / 16)) for j in range(16)]
    print(fmt("kPowExp2T", t))
    # relative error of 1 + r p(r) against 2^r: weight r / 2^r
    h = mp.mpf(1) / 32
    ep = fit_rounded(exp2m1_over_r, lambda r: r / mp.power(2, r), -h, h, 3)
    e = max_err(lambda r: (1 + r * sum(c * r**k for k, c in enumerate(ep))) / mp.power(2, r) - 1, -h, h)
    print(
        f"// (2^r - 1) / r, degree 3: max relative error of 1 + r p(r): {float(e):.3g} (2^{float(mp.log(e, 2)):.2f})"
    )
    print("static const double kPowExp2P[4] = {{{}}};".format(", ".join(repr(v) for v in ep)))
    e = max(abs(mp.mpf(t[j]) / mp.power(2, mp.mpf(j) / 16) - 1) for j in range(16))
    print(f"// table 2^(j/16) max relative rounding error: {float(e):.3g}")


if __name__ == "__main__":
    main()
