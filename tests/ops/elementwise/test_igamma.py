"""torch.igamma / igammac (special.gammainc / gammaincc), the elementwise kernels of kernels/special_functors.h:
accuracy against SciPy in float64 and float32, PyTorch's special values, dtypes, errors and gradients (the
oracle), and gradcheck in x."""

import math

import numpy as np
import pytest
import scipy.special as sps

import minitorch
from tests.utils import cases_here_and_in_pytorch

F64 = minitorch.float64


def _ulps(got, ref, dtype):
    """|got - ref| in units of ref's spacing in `dtype` (the smallest normal's spacing below it)."""
    got, ref = np.asarray(got, np.float64), np.asarray(ref, np.float64)
    tiny = np.finfo(dtype).tiny
    spacing = np.spacing(np.maximum(np.abs(ref), tiny).astype(dtype)).astype(np.float64)
    return np.abs(got - ref) / spacing


def _grid():
    """(a, x) pairs over every method's region: wide log grids (P's series, Q's series for x <= 1.1, Q's
    continued fraction), a ~ x for large a (Temme's expansion: 20 < a < 200 within 30%, a > 200 within
    4.5 / sqrt(a)), and both sides of those borders"""
    g = np.logspace(-4, 5, 46)
    a, x = (v.ravel() for v in np.meshgrid(g, g))
    big = np.array([21.0, 50.0, 150.0, 199.0, 201.0, 1e3, 1e4, 1e5, 1e6])
    steps = np.array([-6.0, -4.4, -3.0, -1.0, -0.2, 0.0, 0.3, 1.5, 3.0, 4.6, 6.0])
    ab = np.repeat(big, steps.size)
    xb = np.maximum(ab + np.tile(steps, big.size) * np.sqrt(ab), 1e-3)
    near = np.array([0.29, 0.31, -0.29, -0.31])
    an = np.repeat(np.array([25.0, 100.0, 190.0]), near.size)
    xn = an * (1 + np.tile(near, 3))
    small = np.array([1e-30, 1e-10, 1e-3, 0.3, 0.5, 0.9, 2.0])
    xs = np.array([1e-30, 1e-8, 0.2, 0.5, 0.51, 0.956, 1.1, 1.11, 3.0, 40.0])
    a_s, x_s = (v.ravel() for v in np.meshgrid(small, xs))
    return np.concatenate([a, ab, an, a_s]), np.concatenate([x, xb, xn, x_s])


@pytest.mark.parametrize("upper", [False, True])
def test_float64_matches_scipy_to_its_conditioning(upper):
    """Against SciPy over every method's region. Where the result is x^a e^-x / Gamma(a) times a sum, its
    exponent a log x - x - log Gamma(a) carries rounding of that size (the same in SciPy's Cephes and here,
    with different libm's), so the error allowed is ulps of the result times 1 + |a log x| + x + |lgamma(a)|;
    SciPy's own is up to ~50 such units (its Q(0.5, 1.1) is 300 ulps off; mpmath's values below). Not compared:
    P's series for a >= 1e5 below a, which SciPy stops at 2000 terms (mpmath's values below)"""
    a, x = _grid()
    keep = ~((a >= 1e5) & (x < a))
    a, x = a[keep], x[keep]
    fn = minitorch.special.gammaincc if upper else minitorch.special.gammainc
    got = fn(minitorch.tensor(a, dtype=F64), minitorch.tensor(x, dtype=F64)).numpy()
    ref = (sps.gammaincc if upper else sps.gammainc)(a, x)
    cond = 1 + np.abs(a * np.log(x)) + x + np.abs(sps.gammaln(a))
    err = _ulps(got, ref, np.float64) / cond
    assert np.isnan(got).sum() == 0
    assert err.max() <= 64, (err.max(), a[err.argmax()], x[err.argmax()])


# (a, x, P, Q) from mpmath at 60 digits: each method's region, the borders between them, a tiny a, a huge one
MPMATH = [
    (0.5, 1.1, 0.8619892624313404, 0.13801073756865953),
    (18.51692594300144, 0.0023481937749161726, 7.05664400665615e-66, 1.0),
    (0.19932182558127864, 1.0613883059018818, 0.9524667429005388, 0.047533257099461254),
    (0.0010820774086516096, 0.9709084610326462, 0.9997504137370866, 0.00024958626291333866),
    (1e-40, 0.956, 1.0, 2.3630991229071e-41),
    (2.0, 1.0, 0.26424111765711533, 0.7357588823428847),
    (30.0, 28.0, 0.3773896943143976, 0.6226103056856024),
    (150.0, 160.0, 0.7956261882343224, 0.20437381176567754),
    (1000.0, 1010.0, 0.6276789447369947, 0.3723210552630053),
    (100000.0, 100300.0, 0.8286363112512076, 0.17136368874879235),
    (3.0, 40.0, 0.9999999999999964, 3.572865928700226e-15),
    (0.3, 0.001, 0.14024245892486736, 0.8597575410751326),
    (7.5, 2.0, 0.002262655847083079, 0.9977373441529169),
    (250.0, 245.0, 0.38314100329279793, 0.6168589967072021),
    # P's series past Cephes' 2000 terms (SciPy's and PyTorch's P(1e6, 994000) are 6e-7 off)
    (1000000.0, 994000.0, 9.178900262302024e-10, 0.99999999908211),
    (100000.0, 99000.0, 0.0007574199211747679, 0.9992425800788253),
]


def test_float64_against_mpmath():
    """Within 4 ulps of the true values plus half the conditioning of x^a e^-x / Gamma(a) (above: lgamma(1e-40)
    = 92.1 rounds to 1e-14 of P(1e-40, 0.956)), where SciPy (0.5, 1.1) and PyTorch (Q(1e-40, 0.956) 3x off; in
    Temme's expansion its float pi and log1p(s) - s cost it 1e-9 and 1e-13) are further off"""
    a, x, p, q = (np.array(v) for v in zip(*MPMATH))
    ta, tx = minitorch.tensor(a, dtype=F64), minitorch.tensor(x, dtype=F64)
    bound = 4 + (1 + np.abs(a * np.log(x)) + x + np.abs(sps.gammaln(a))) / 2
    bound[(a >= 1000) & (np.abs(x - a) < 4.5 * np.sqrt(a))] = 4  # Temme's expansion: no such exponent
    for got, want in ((minitorch.igamma(ta, tx), p), (minitorch.igammac(ta, tx), q)):
        err = _ulps(got.numpy(), want, np.float64)
        assert (err <= bound).all(), (err, bound)


@pytest.mark.parametrize("upper", [False, True])
def test_float32_rounds_the_double_result_once(upper):
    """float32 computes in double (series stopped at 2^-28) and rounds once: within one float32 ulp of SciPy's
    double result on the same float32 inputs (PyTorch's float kernel is off by more: its series stop at 6e-8)"""
    a, x = _grid()
    keep = (a < 1e4) & (x < 1e4)
    a32, x32 = a[keep].astype(np.float32), x[keep].astype(np.float32)
    fn = minitorch.igammac if upper else minitorch.igamma
    got = fn(minitorch.tensor(a32), minitorch.tensor(x32)).numpy()
    assert got.dtype == np.float32
    ref = (sps.gammaincc if upper else sps.gammainc)(a32.astype(np.float64), x32.astype(np.float64))
    assert _ulps(got, ref, np.float32).max() <= 1.0


def test_small_a_keeps_the_digits_of_log_gamma_1p():
    """Q(a, x) for a tiny a: 1 - x^a / Gamma(1 + a) needs log Gamma(1 + a) ~ -0.577 a, which lgamma(1 + a)
    rounds away (PyTorch's Q(1e-40, 0.956) is off by 3x); SciPy's lgam1p is the reference"""
    a = np.array([1e-40, 1e-20, 1e-8, 1e-4, 9e-4, 1.1e-3, 0.01])
    x = np.array([0.956, 0.5, 0.12, 1.0, 0.3, 0.7, 1.05])
    got = minitorch.igammac(minitorch.tensor(a, dtype=F64), minitorch.tensor(x, dtype=F64)).numpy()
    np.testing.assert_allclose(got, sps.gammaincc(a, x), rtol=1e-13)


def test_gradcheck_in_x():
    a = minitorch.tensor([0.3, 2.0, 1e-3, 30.0, 250.0], dtype=F64)
    x = minitorch.tensor([0.2, 1.5, 0.9, 28.0, 260.0], dtype=F64, requires_grad=True)
    for fn in (minitorch.igamma, minitorch.igammac, minitorch.special.gammainc, minitorch.special.gammaincc):
        assert minitorch.autograd.gradcheck(lambda t, fn=fn: fn(a, t), (x,))
    # the density itself: dP/dx = x^(a-1) e^-x / Gamma(a)
    (g,) = minitorch.autograd.grad(minitorch.igamma(a, x).sum(), x)
    an, xn = a.numpy(), x.detach().numpy()
    np.testing.assert_allclose(g.numpy(), np.exp((an - 1) * np.log(xn) - xn - sps.gammaln(an)), rtol=1e-12)


# PyTorch's special values (calc_igamma/calc_igammac's order), dtypes, errors and gradients, case by case
_CASES = """
def cases(torch):
    out = {}
    nan, inf = float("nan"), float("inf")
    vals = [nan, -inf, -1.0, -0.0, 0.0, 1e-30, 0.5, 1.0, 30.0, 1e6, inf]
    a = torch.tensor([v for v in vals for _ in vals], dtype=torch.float64)
    x = torch.tensor([w for _ in vals for w in vals], dtype=torch.float64)
    for dt in ("float64", "float32"):
        d = getattr(torch, dt)
        for name in ("igamma", "igammac"):
            r = getattr(torch, name)(a.to(d), x.to(d)).double().tolist()
            out[f"{name} {dt}"] = [repr(v) if v != v or v in (0.0, 1.0) else round(v, 5) for v in r]
    def dt_of(*args):
        try:
            return str(torch.igamma(*args).dtype)
        except Exception as e:
            return type(e).__name__ + ": " + str(e)
    h, b = torch.ones(2, dtype=torch.float16), torch.ones(2, dtype=torch.bfloat16)
    out["dtypes"] = [
        dt_of(h, b), dt_of(h, h), dt_of(b, b), dt_of(torch.tensor([True]), torch.tensor([1.0])),
        dt_of(torch.tensor([1]), torch.tensor(2.0, dtype=torch.float64)), dt_of(torch.tensor([1]), torch.tensor([2])),
        dt_of(torch.tensor([True]), torch.tensor([False])), dt_of(torch.ones(2, dtype=torch.complex64), h),
        dt_of(torch.ones(2, dtype=torch.int8), torch.ones(2, dtype=torch.int16)),
    ]
    def err(f):
        try:
            f()
            return "ok"
        except Exception as e:
            return type(e).__name__ + ": " + str(e).splitlines()[0]
    one = torch.ones(2)
    out["errors"] = [
        err(lambda: torch.igammac(torch.tensor([1]), torch.tensor([2]))),
        err(lambda: torch.special.gammainc(torch.tensor([1]), torch.tensor([2]))),
        err(lambda: torch.special.gammaincc(torch.tensor([1]), torch.tensor([2]))),
        err(lambda: torch.igamma(one, 2.0)),
        err(lambda: torch.igamma(2.0, one)),
        err(lambda: torch.special.gammainc(one, 2)),
        err(lambda: one.igamma(2.0)),
        err(lambda: torch.tensor([1, 2]).igamma_(one)),
        err(lambda: one.igammac_(torch.ones(2, 2))),
    ]
    ag = torch.tensor([1.5, 0.5], dtype=torch.float64, requires_grad=True)
    xg = torch.tensor([0.5, 2.0], dtype=torch.float64, requires_grad=True)
    out["grad a"] = [err(lambda: torch.igamma(ag, xg).sum().backward()),
                     err(lambda: torch.igammac(ag, xg.detach()).sum().backward())]
    grads = []
    for f in (torch.igamma, torch.igammac):
        (g,) = torch.autograd.grad(f(ag.detach(), xg).sum(), xg)
        grads.append([round(v, 12) for v in g.tolist()])
    out["grad x"] = grads
    fwAD = torch.autograd.forward_ad
    with fwAD.dual_level():
        d = fwAD.make_dual(xg.detach(), torch.ones(2, dtype=torch.float64))
        out["forward"] = [err(lambda: torch.igamma(ag.detach(), d)), err(lambda: torch.special.gammaincc(ag.detach(), d))]
    t = torch.tensor([1.0, 2.0])
    r = torch.empty(2)
    # (PyTorch's float32 P(1, 1) is 10 ulps off: four digits)
    out["forms"] = [
        [round(v, 4) for v in t.clone().igamma_(torch.tensor([1.0, 1.0])).tolist()],
        [round(v, 4) for v in t.igammac(torch.tensor(1.0)).tolist()],
        torch.igamma(t, torch.tensor([1.0, 1.0]), out=r) is r, [round(v, 4) for v in r.tolist()],
        [round(v, 4) for v in torch.special.gammaincc(t, torch.tensor(3.0), out=r).tolist()],
    ]
    return out
"""


def test_special_values_dtypes_errors_and_gradients_as_pytorch():
    ours, theirs = cases_here_and_in_pytorch(_CASES, [("torch", minitorch)])
    assert ours.keys() == theirs.keys()
    for key in ours:
        if key.startswith(("igamma", "grad x")):
            # away from the special values, PyTorch's float32 kernel is accurate to its own ~1e-7
            tol = 2e-5 if "float32" in key else 1e-9
            mine, ref = ours[key], theirs[key]
            assert len(mine) == len(ref)
            for m, r in zip(np.ravel(mine), np.ravel(ref)):
                if isinstance(r, str) or isinstance(m, str):
                    assert m == r, (key, m, r)
                else:
                    assert math.isclose(m, r, rel_tol=tol, abs_tol=1e-12), (key, m, r)
        else:
            assert ours[key] == theirs[key], key


def test_in_place_and_out_keep_their_tensors():
    a = minitorch.tensor([0.5, 2.0], dtype=F64)
    x = minitorch.tensor([1.0, 3.0], dtype=F64)
    want = sps.gammainc(a.numpy(), x.numpy())
    y = a.clone()
    assert y.igamma_(x) is y
    np.testing.assert_allclose(y.numpy(), want, rtol=1e-15)
    out = minitorch.empty(2, dtype=F64)
    assert minitorch.igammac(a, x, out=out) is out
    # Q(1/2, x) = erfc(sqrt x) (SciPy's Q(0.5, 1) is 15 ulps off)
    np.testing.assert_allclose(out.numpy(), [math.erfc(1.0), sps.gammaincc(2.0, 3.0)], rtol=1e-15)
    # a transposed (strided) pair and a broadcast number-like 0-d tensor run through the same kernel
    m = minitorch.tensor(np.arange(1.0, 7.0).reshape(2, 3), dtype=F64).t()
    np.testing.assert_allclose(
        minitorch.igamma(m, minitorch.tensor(2.5, dtype=F64)).numpy(),
        sps.gammainc(m.numpy(), 2.5),
        rtol=1e-14,
    )
