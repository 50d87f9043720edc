"""minitorch.special: PyTorch's torch.special names over our elementwise ops."""

import math as _math

from minitorch import _C, _argcheck
from minitorch import _composite_math as _cm

__all__ = [
    "airy_ai",
    "bessel_j0",
    "bessel_j1",
    "bessel_y0",
    "bessel_y1",
    "chebyshev_polynomial_t",
    "chebyshev_polynomial_u",
    "chebyshev_polynomial_v",
    "chebyshev_polynomial_w",
    "digamma",
    "entr",
    "erf",
    "erfc",
    "erfcx",
    "erfinv",
    "exp2",
    "expit",
    "expm1",
    "gammaln",
    "hermite_polynomial_h",
    "hermite_polynomial_he",
    "i0",
    "i0e",
    "i1",
    "i1e",
    "laguerre_polynomial_l",
    "legendre_polynomial_p",
    "log1p",
    "log_ndtr",
    "log_softmax",
    "logit",
    "logsumexp",
    "modified_bessel_i0",
    "modified_bessel_i1",
    "modified_bessel_k0",
    "modified_bessel_k1",
    "multigammaln",
    "ndtr",
    "ndtri",
    "polygamma",
    "psi",
    "round",
    "scaled_modified_bessel_k0",
    "scaled_modified_bessel_k1",
    "shifted_chebyshev_polynomial_t",
    "shifted_chebyshev_polynomial_u",
    "shifted_chebyshev_polynomial_v",
    "shifted_chebyshev_polynomial_w",
    "sinc",
    "softmax",
    "spherical_bessel_j0",
    "xlog1py",
    "xlogy",
    "zeta",
]

_SQRT2 = _math.sqrt(2.0)


def _float(x):
    return x if x.is_floating_point() else x.to(_C.get_default_dtype())


def expit(input):
    """The logistic sigmoid 1 / (1 + exp(-input))."""
    return _C.sigmoid(input)


def erf(input):
    """The error function."""
    return _C.erf(input)


def erfc(input):
    """The complementary error function 1 - erf(input)."""
    return _C.erfc(input)


# The modified Bessel functions of the first kind are kernels of their own (csrc/ops/ops.schema), bound with
# PyTorch's out= keyword; torch.special has no Python layer over them either.
i0 = _C.i0
i0e = _C._special_i0e
i1 = _C._special_i1
i1e = _C._special_i1e


def erfinv(input):
    """The inverse error function on (-1, 1)."""
    return _C.erfinv(input)


def expm1(input):
    """exp(input) - 1, accurate near 0."""
    return _C.expm1(input)


def exp2(input):
    """2 ** input."""
    return _C.exp2(input)


def log1p(input):
    """log(1 + input), accurate near 0."""
    return _C.log1p(input)


def logit(input, eps=None):
    """log(p / (1 - p)), p clamped to [eps, 1 - eps] when eps is given."""
    return _cm.logit(input, eps)


@_argcheck.parses("Tensor input, int[1] dim, bool keepdim=False", name="special_logsumexp")
def logsumexp(input, dim, keepdim=False):
    """log(sum(exp(input))) along dim, computed stably."""
    return _C.logsumexp(input, dim, keepdim)


def softmax(input, dim, *, dtype=None):
    """softmax along dim (computed in dtype when given)."""
    if dtype is not None:
        input = input.to(dtype)
    return _C.softmax(input, dim)


def log_softmax(input, dim, *, dtype=None):
    """log_softmax along dim (computed in dtype when given)."""
    if dtype is not None:
        input = input.to(dtype)
    return _C.log_softmax(input, dim)


def round(input, *, decimals=0):
    """Round half to even, to `decimals` decimal places: torch.round's decimals overload, whose decimals=0
    refuses integers as PyTorch's special.round does ("round_vml_cpu")."""
    return _C.round(input, decimals=decimals)


def sinc(input):
    """sin(pi x) / (pi x), 1 at 0."""
    return _C.sinc(input)


def xlogy(input, other):
    """input * log(other), 0 where input == 0."""
    return _cm.xlogy(input, other)


def xlog1py(input, other):
    """input * log1p(other), 0 where input == 0 (unless other is NaN)."""
    x, y = _cm._float_pair(input, other)
    zero = _C.logical_and(_C.eq(x, 0), _C.logical_not(_C.isnan(y)))
    # the masked branch runs at y = 0 so its gradient is finite, not 0 * inf
    safe_y = _C._where(zero, 0.0, y)
    return _C._where(zero, 0.0, _C.mul(x, _C.log1p(safe_y)))


def entr(input):
    """-x log x for x > 0, 0 at 0, -inf for x < 0 (NaN stays NaN)."""
    x = _float(input)
    pos = _C.gt(x, 0)
    safe = _C._where(pos, x, 1.0)
    r = _C._where(pos, _C.neg(_C.mul(safe, _C.log(safe))), 0.0)
    r = _C.masked_fill(r, _C.lt(x, 0), -_math.inf)
    r = _C.masked_fill(r, _C.isnan(x), _math.nan)
    # PyTorch's gradient -(1 + log x) everywhere: inf at 0, NaN below (the piecewise value's would be 0 there)
    return _cm._with_gradient(x, r.detach(), lambda grad, x: _C.mul(grad, _C.neg(_C.add(_C.log(x), 1.0))))


def ndtr(input):
    """The standard normal CDF."""
    x = _float(input)
    # 0.5 erfc(-x / sqrt 2) keeps the left tail's relative accuracy, where 0.5 (1 + erf) rounds to 0
    return _C.mul(_C.erfc(_C.mul(x, -1.0 / _SQRT2)), 0.5)


def _log_ndtr_direct(mid):
    """log Phi(x) from Phi itself, for x not far in the left tail."""
    pos = _C.gt(mid, 0)
    # right of 0, log1p(-Phi(-x)) keeps the digits that log(Phi(x)) ~ log(1 - tiny) rounds away
    upper = _C.log1p(_C.neg(ndtr(_C.neg(_C._where(pos, mid, 0.0)))))
    lower = _C.log(ndtr(_C._where(pos, 0.0, mid)))
    return _C._where(pos, upper, lower)


def log_ndtr(input):
    """log of the standard normal CDF, accurate in both tails (an asymptotic series far to the left)."""
    _float_double_only("log_ndtr", input)
    x = _float(input)
    cut = -10.0
    # no element left of the cut, the common case: one reduction (NaN's min is NaN, which takes the general
    # path) tells, and the direct branch runs alone, without the asymptotic series' 30 passes (two thirds of
    # the op's time at 256x256 float64: 0.58-0.67 of PyTorch's per-element kernel)
    if x.numel() and float(_C.amin(x.detach())) >= cut:
        return _log_ndtr_direct(x)
    tail = _C.lt(x, cut)
    direct = _log_ndtr_direct(_C._where(tail, 0.0, x))
    # log Phi(x) = -x^2/2 - log(-x) - log(2 pi)/2 + log(sum_k (-1)^k (2k-1)!! / x^(2k)) for x << 0
    t = _C._where(tail, x, cut)
    inv2 = _C.reciprocal(_C.mul(t, t))
    s, term = _C.ones_like(t), _C.ones_like(t)
    for k in range(1, 12):
        term = _C.mul(term, _C.mul(inv2, -(2.0 * k - 1.0)))
        s = _C.add(s, term)
    asym = _C.sub(_C.sub(_C.mul(_C.mul(t, t), -0.5), _C.log(_C.neg(t))), 0.5 * _math.log(2 * _math.pi))
    return _C._where(tail, _C.add(asym, _C.log(s)), direct)


def ndtri(input):
    """The inverse of the standard normal CDF (the probit), via erfinv."""
    _float_double_only("ndtri", input)
    p = _float(input)
    # no element in the tail (0, 1e-3), the common case: one reduction (NaN's min is NaN, which takes the
    # general path) tells, and the direct branch runs alone, without the tail's mask and select (five passes,
    # a fifth of the op's time at 256x256 float64)
    if p.numel() and float(_C.amin(p.detach())) >= 1e-3:
        return _C.mul(_C.erfinv(_C.sub(_C.mul(p, 2.0), 1.0)), _SQRT2)
    tail = _C.logical_and(_C.lt(p, 1e-3), _C.gt(p, 0.0))
    # each branch sees only its own inputs (the other's infinite derivative times where's 0 would be NaN)
    direct = _C.mul(_C.erfinv(_C.sub(_C.mul(_C._where(tail, 0.5, p), 2.0), 1.0)), _SQRT2)
    # below 1e-3, 2p - 1 loses p's digits (every p under 5.6e-17 rounds to -1, giving -inf): start from
    # Abramowitz & Stegun 26.2.23 (error < 4.5e-4) and take Newton steps on log_ndtr(x) = log(p), which
    # doubles the correct digits each step; the converged step's derivative is 1 / pdf(x), ndtri's own
    if not bool(_C.any(tail)):
        return direct
    # the tail's Newton steps cost 20x the direct branch: only the tail elements take them
    q = p[tail]
    logq = _C.log(q)
    t = _C.sqrt(_C.mul(logq, -2.0))
    num = _C.add(_C.mul(_C.add(_C.mul(t, 0.010328), 0.802853), t), 2.515517)
    den = _C.add(_C.mul(_C.add(_C.mul(_C.add(_C.mul(t, 0.001308), 0.189269), t), 1.432788), t), 1.0)
    x = _C.neg(_C.sub(t, _C.div(num, den)))
    for _ in range(4 if p.dtype == _C.float64 else 3):
        lx = log_ndtr(x)
        # f / f' with f = log_ndtr(x) - log q and f' = pdf(x) / ndtr(x) = exp(-x^2/2 - log_ndtr(x)) / sqrt(2 pi)
        dlog = _C.mul(_C.exp(_C.sub(_C.mul(_C.mul(x, x), -0.5), lx)), 1.0 / _math.sqrt(2.0 * _math.pi))
        x = _C.sub(x, _C.div(_C.sub(lx, logq), dlog))
    return direct.masked_scatter(tail, x)


def gammaln(input):
    """log |Gamma(input)|."""
    return _C.lgamma(input)


def digamma(input):
    """The logarithmic derivative of Gamma."""
    return _C.digamma(input)


def polygamma(n, input):
    """The n-th derivative of digamma (n = 0: digamma itself)."""
    return _C.polygamma(n, input)


def psi(input):
    """Alias of digamma."""
    return digamma(input)


@_argcheck.parses("Tensor input, int p", name="special_multigammaln")
def multigammaln(input, p):
    """The log multivariate gamma function of dimension p: sum_i lgamma(a - i/2) + p(p-1)/4 log(pi)."""
    return _cm.mvlgamma(input, p)


def _float_double_only(op, input):
    """PyTorch's kernels of some special functions take float and double only (not half, not bfloat16)"""
    if input.dtype in (_C.float16, _C.bfloat16):
        _cm._not_implemented(f"{op}_cuda" if input.is_cuda else f"{op}_cpu", input)


def erfcx(input):
    """The scaled complementary error function exp(x^2) erfc(x), without overflow for large x."""
    _float_double_only("erfcx", input)
    x = _float(input)
    big = _C.gt(x, 8.0)
    small = _C._where(big, 0.0, x)
    direct = _C.mul(_C.exp(_C.mul(small, small)), _C.erfc(small))
    # erfcx(x) ~ 1/(x sqrt(pi)) * sum_k (-1)^k (2k-1)!! / (2x^2)^k for large x
    t = _C._where(big, x, 8.0)
    inv = _C.reciprocal(_C.mul(_C.mul(t, t), 2.0))
    s, term = _C.ones_like(t), _C.ones_like(t)
    for k in range(1, 14):
        term = _C.mul(term, _C.mul(inv, -(2.0 * k - 1.0)))
        s = _C.add(s, term)
    asym = _C.div(s, _C.mul(t, _math.sqrt(_math.pi)))
    return _C._where(big, asym, direct)


_argcheck.translate_module(globals())  # PyTorch's TypeError for an argument of the wrong kind (_argcheck.py)


# ---- the long tail: Bessel J/Y/K, spherical j0, Airy's Ai, Hurwitz's zeta and the orthogonal polynomials,
# kernels of their own (csrc/kernels/special_functors.h) bound as private `_special_<name>` rows of
# csrc/ops/ops.schema. The differentiable Bessel functions are the bindings themselves (as i1 above: forward
# AD and the overrides find them by identity; their rows refuse float16/bfloat16); the others check PyTorch's
# float/double-only dtypes here and, having no grad_fn in PyTorch, run on detached inputs.


_TAIL_DOCS = {
    "bessel_j0": "The Bessel function of the first kind of order 0, J0(x).",
    "bessel_j1": "The Bessel function of the first kind of order 1, J1(x).",
    "bessel_y0": "The Bessel function of the second kind of order 0, Y0(x) (NaN for x < 0).",
    "bessel_y1": "The Bessel function of the second kind of order 1, Y1(x) (NaN for x < 0).",
    "modified_bessel_i0": "The modified Bessel function of the first kind of order 0, I0(x).",
    "modified_bessel_i1": "The modified Bessel function of the first kind of order 1, I1(x).",
    "modified_bessel_k0": "The modified Bessel function of the second kind of order 0, K0(x) (NaN for x < 0).",
    "modified_bessel_k1": "The modified Bessel function of the second kind of order 1, K1(x) (NaN for x < 0).",
    "scaled_modified_bessel_k0": "exp(x) K0(x), without K0's underflow (not differentiable, as PyTorch's).",
    "scaled_modified_bessel_k1": "exp(x) K1(x), without K1's underflow (not differentiable, as PyTorch's).",
    "spherical_bessel_j0": "The spherical Bessel function of the first kind of order 0, sin(x) / x (not differentiable).",
    "airy_ai": "Airy's function Ai(x) (not differentiable, as PyTorch's).",
    "zeta": "Hurwitz's zeta function sum_k (q + k)^-x, zeta(input=x, other=q); differentiable in q only.",
    "chebyshev_polynomial_t": "The Chebyshev polynomial of the first kind T_n(x), n truncated to an integer.",
    "chebyshev_polynomial_u": "The Chebyshev polynomial of the second kind U_n(x), n truncated to an integer.",
    "chebyshev_polynomial_v": "The Chebyshev polynomial of the third kind V_n(x), n truncated to an integer.",
    "chebyshev_polynomial_w": "The Chebyshev polynomial of the fourth kind W_n(x), n truncated to an integer.",
    "shifted_chebyshev_polynomial_t": "T_n(2x - 1), the shifted Chebyshev polynomial of the first kind.",
    "shifted_chebyshev_polynomial_u": "U_n(2x - 1), the shifted Chebyshev polynomial of the second kind.",
    "shifted_chebyshev_polynomial_v": "V_n(2x - 1), the shifted Chebyshev polynomial of the third kind.",
    "shifted_chebyshev_polynomial_w": "W_n(2x - 1), the shifted Chebyshev polynomial of the fourth kind.",
    "hermite_polynomial_h": "The physicists' Hermite polynomial H_n(x) (NaN past PyTorch's order limit).",
    "hermite_polynomial_he": "The probabilists' Hermite polynomial He_n(x) (NaN past PyTorch's order limit).",
    "laguerre_polynomial_l": "The Laguerre polynomial L_n(x), n truncated to an integer.",
    "legendre_polynomial_p": "The Legendre polynomial P_n(x), n truncated to an integer.",
}


def _tail_dtype(op, *args):
    ts = [a for a in args if isinstance(a, _C.Tensor)]
    dtype = _C.result_type(*args) if len(args) == 2 else args[0].dtype
    if dtype in (_C.float16, _C.bfloat16):
        _cm._not_implemented(f"{op}_cuda" if ts and ts[0].is_cuda else f"{op}_cpu", dtype)


def _tail(name):
    # the one-input tail rows PyTorch does not differentiate (the differentiable ones are bound as they are)
    kernel = getattr(_C, "_special_" + name)

    def fn(input, *, out=None):
        if not isinstance(input, _C.Tensor):
            raise TypeError(
                f"special_{name}(): argument 'x' (position 1) must be Tensor, not {type(input).__name__}"
            )
        _tail_dtype(name, input)
        input = input.detach()
        return kernel(input) if out is None else kernel(input, out=out)

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = _TAIL_DOCS[name]
    return fn


def _tail2(name, differentiable=False):
    kernel = getattr(_C, "_special_" + name)

    def fn(input, other, *, out=None):
        if not isinstance(input, _C.Tensor) and not isinstance(other, _C.Tensor):
            raise TypeError(
                f"special_{name}() received an invalid combination of arguments: neither is a Tensor"
            )
        _tail_dtype(name, input, other)
        if not differentiable:
            input = input.detach() if isinstance(input, _C.Tensor) else input
            other = other.detach() if isinstance(other, _C.Tensor) else other
        return kernel(input, other) if out is None else kernel(input, other, out=out)

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = _TAIL_DOCS[name]
    return fn


bessel_j0 = _C._special_bessel_j0
bessel_j1 = _C._special_bessel_j1
bessel_y0 = _C._special_bessel_y0
bessel_y1 = _C._special_bessel_y1
modified_bessel_i0 = _C._special_modified_bessel_i0
modified_bessel_i1 = _C._special_modified_bessel_i1
modified_bessel_k0 = _C._special_modified_bessel_k0
modified_bessel_k1 = _C._special_modified_bessel_k1
scaled_modified_bessel_k0 = _tail("scaled_modified_bessel_k0")
scaled_modified_bessel_k1 = _tail("scaled_modified_bessel_k1")
spherical_bessel_j0 = _tail("spherical_bessel_j0")
airy_ai = _tail("airy_ai")
zeta = _tail2("zeta", True)
chebyshev_polynomial_t = _tail2("chebyshev_polynomial_t")
chebyshev_polynomial_u = _tail2("chebyshev_polynomial_u")
chebyshev_polynomial_v = _tail2("chebyshev_polynomial_v")
chebyshev_polynomial_w = _tail2("chebyshev_polynomial_w")
shifted_chebyshev_polynomial_t = _tail2("shifted_chebyshev_polynomial_t")
shifted_chebyshev_polynomial_u = _tail2("shifted_chebyshev_polynomial_u")
shifted_chebyshev_polynomial_v = _tail2("shifted_chebyshev_polynomial_v")
shifted_chebyshev_polynomial_w = _tail2("shifted_chebyshev_polynomial_w")
hermite_polynomial_h = _tail2("hermite_polynomial_h")
hermite_polynomial_he = _tail2("hermite_polynomial_he")
laguerre_polynomial_l = _tail2("laguerre_polynomial_l")
legendre_polynomial_p = _tail2("legendre_polynomial_p")
