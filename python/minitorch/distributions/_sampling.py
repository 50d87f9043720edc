"""Vectorized samplers and special functions the distributions need beyond the core ops: standard Gamma
(Marsaglia-Tsang) with its implicit reparameterization gradient, the regularized incomplete gamma function's
torch spellings (the kernels of csrc/kernels/special_functors.h) and Gamma.cdf's form differentiable in a too,
Poisson (inversion / PTRS) and Binomial (inversion / BTRS) sampling.

Everything works on whole tensors: rejection samplers run a few rounds, each over the elements not yet
accepted (gathered by index, scattered back), and the series / continued fractions iterate only over the
elements that have not converged. The random numbers come from minitorch.rand / randn, so manual_seed makes
every sampler reproducible."""

import math

from minitorch import _C, _argcheck, _composite_shape, _dtype_info
from minitorch._dtype_names import scalar_name
from minitorch.autograd import function as _function
from minitorch.autograd import grad_mode

__all__ = [
    "binomial",
    "gammainc",
    "gammaincc",
    "poisson",
    "sample_dirichlet",
    "standard_gamma",
    "standard_gamma_grad",
]

# Above this shape parameter the gamma quantile's derivative comes from the Wilson-Hilferty approximation (the
# series / continued fraction would need ~9 sqrt(alpha) terms); its relative error is below 1e-6 there (worst in
# the far tails, ~3e-8 at alpha = 1e5; measured against finite differences of scipy's gammaincinv).
_GRAD_ASYMPTOTIC_ALPHA = 1.0e4
_MAX_TERMS = 20000
_EPS64 = 2.220446049250313e-16
_TINY64 = 2.2250738585072014e-308


def _f64(t):
    return t.detach().to(_C.float64)


def _rand(n, like):
    return _C.rand((n,), dtype=like.dtype, device=like.device)


def _randn(n, like):
    return _C.randn((n,), dtype=like.dtype, device=like.device)


def _nonzero1(mask):
    return mask.nonzero().reshape(-1)


# ---------------------------------------------------------------------------------------------- standard gamma


def _mt_round(d, c):
    """One Marsaglia-Tsang proposal per element: (accepted mask, value ``d v``)."""
    m = d.numel()
    z = _randn(m, d)
    u = _rand(m, d)
    v = 1.0 + c * z
    positive = v > 0
    v3 = v * v * v
    safe_v3 = _C._where(positive, v3, 1.0)
    z2 = z * z
    squeeze = u < 1.0 - 0.0331 * z2 * z2
    full = _C.log(u) < 0.5 * z2 + d * (1.0 - safe_v3 + _C.log(safe_v3))
    return positive & (squeeze | full), d * safe_v3


def _marsaglia_tsang(alpha):
    """Gamma(alpha, 1) draws for a flat tensor ``alpha >= 1`` (Marsaglia & Tsang 2000): propose ``d (1 + c z)^3``
    with normal z, accept with the squeeze or the log test. >= 95 % are accepted per round: the first round runs
    over everything without indexing, later ones only over the (gathered) rejected elements."""
    d = alpha - 1.0 / 3.0
    c = (9.0 * d).rsqrt()
    ok, value = _mt_round(d, c)
    out = _C._where(ok, value, 0.0)
    pending = _nonzero1(~ok)
    d, c = d[pending], c[pending]
    while pending.numel():
        ok, value = _mt_round(d, c)
        took = _nonzero1(ok)
        if took.numel():
            out[pending[took]] = value[took]
        rest = _nonzero1(~ok)
        pending, d, c = pending[rest], d[rest], c[rest]
    return out


def _standard_gamma_sample(alpha):
    """Gamma(alpha, 1) samples shaped like ``alpha`` (its dtype), no gradient. ``alpha < 1`` is boosted:
    ``G(alpha) = G(alpha + 1) * U^(1/alpha)``, computed in logs; results are clamped to the dtype's tiny (as
    PyTorch's) so that log-densities of samples stay finite. Computed in float64 for float64 parameters and in
    float32 otherwise (as PyTorch's sampler accumulates)."""
    with grad_mode.no_grad():
        shape = tuple(alpha.shape)
        work = _C.float64 if alpha.dtype == _C.float64 else _C.float32
        a = alpha.detach().to(work).reshape(-1)
        if a.numel() == 0:
            return _C.zeros(shape, dtype=alpha.dtype, device=alpha.device)
        boost = a < 1.0
        any_boost = bool(boost.any())
        x = _marsaglia_tsang(_C._where(boost, a + 1.0, a) if any_boost else a)
        if any_boost:
            u = _rand(a.numel(), a)
            x = _C._where(boost, _C.exp(_C.log(x) + _C.log(u) / a), x)
        x = x.to(alpha.dtype).reshape(shape)
        return x.clamp(min=_dtype_info.finfo(alpha.dtype).tiny)


def _iterate(state, step, done, n_out, block=8):
    """Runs ``state = step(k, state)`` (k = 1, 2, ...) over flat tensors until ``done(state)`` holds for every
    element, returning the first ``n_out`` state tensors at each element's convergence.

    Checks (one reduction) once per ``block`` steps and then drops the converged elements (gathered by index,
    their results scattered back), so later steps only touch the stragglers. The extra steps a converged element
    may take before its check must not change it (terms below rounding, a continued fraction at its limit)."""
    n = state[0].numel()
    outs = [_C.zeros_like(state[i]) for i in range(n_out)]
    idx = _C.arange(n, device=state[0].device)
    k = 0
    while idx.numel() and k < _MAX_TERMS:
        for _ in range(block):
            k += 1
            state = step(k, state)
        # an element whose result went non-finite (a NaN or overflow inside) stays so: stop it, not at the cap
        fin = done(state) | ~_C.isfinite(state[0])
        n_fin = int(fin.sum())
        if n_fin == 0:
            continue
        if n_fin == idx.numel():
            for o, v in zip(outs, state[:n_out]):
                o[idx] = v
            return outs
        f = _nonzero1(fin)
        for o, v in zip(outs, state[:n_out]):
            o[idx[f]] = v[f]
        keep = _nonzero1(~fin)
        idx = idx[keep]
        state = [v[keep] for v in state]
    if idx.numel():
        for o, v in zip(outs, state[:n_out]):
            o[idx] = v
    return outs


def _series_terms(a, x, with_grad):
    """The lower-gamma series S = sum_n prod_{k<=n} x / (a + k) (so P(a, x) = x^a e^-x / Gamma(a + 1) * S) and
    dS/da = -sum_n term_n * sum_{k<=n} 1 / (a + k), iterating each element until its terms stop mattering."""
    one = _C.ones_like(a)
    zero = _C.zeros_like(a)

    def step(k, st):
        s, ds, t, h, aa, xx = st
        inv = (aa + k).reciprocal()
        t = t * xx * inv
        if with_grad:
            h = h + inv
            ds = ds - t * h
        return [s + t, ds, t, h, aa, xx]

    def done(st):
        s, _, t, h, _, _ = st
        return t * (1.0 + h) <= _EPS64 * s

    return _iterate([one, zero, one, zero, a, x], step, done, 2)


def _cf_terms(a, x, with_grad):
    """The upper-gamma continued fraction h (so Q(a, x) = x^a e^-x / Gamma(a) * h) by modified Lentz, with dh/da
    carried along (forward-mode through the recurrence); converges quickly for x >= a + 1."""
    tiny = 1e-300
    b = x + 1.0 - a
    d = b.reciprocal()
    dd = d * d  # d/da (1 / b) with db/da = -1
    c = _C.full_like(a, 1.0 / tiny)
    dc = _C.zeros_like(a)

    def step(i, st):
        h, dh, aa, b, d, dd, c, dc, delta, ddelta = st
        an = -i * (i - aa)
        b = b + 2.0
        den = an * d + b
        den = _C._where(den.abs() < tiny, tiny, den)
        cn = b + an / c
        cn = _C._where(cn.abs() < tiny, tiny, cn)
        if with_grad:
            dden = i * d + an * dd - 1.0
            dc = -1.0 + (i - an * dc / c) / c
        d = den.reciprocal()
        if with_grad:
            dd = -dden * d * d
        c = cn
        delta = c * d
        if with_grad:
            ddelta = dc * d + c * dd
            dh = dh * delta + h * ddelta
        return [h * delta, dh, aa, b, d, dd, c, dc, delta, ddelta]

    def done(st):
        h, dh, delta, ddelta = st[0], st[1], st[8], st[9]
        conv = (delta - 1.0).abs() <= _EPS64
        if with_grad:
            conv = conv & ((ddelta * h).abs() <= _EPS64 * dh.abs() + _TINY64)
        return conv

    ones = _C.ones_like(a)
    return _iterate([d, dd, a, b, d, dd, c, dc, ones, _C.zeros_like(a)], step, done, 2)


def _split(a, x, with_grad):
    """Series where x < a + 1, continued fraction elsewhere; returns (use_series, S, dS, h, dh) as full-size
    tensors (entries of the unused method are 0)."""
    use_series = x < a + 1.0
    n = a.numel()
    S = _C.zeros((n,), dtype=a.dtype, device=a.device)
    dS, H, dH = _C.zeros_like(S), _C.zeros_like(S), _C.zeros_like(S)
    si = _nonzero1(use_series)
    if si.numel():
        s, ds = _series_terms(a[si], x[si], with_grad)
        S[si], dS[si] = s, ds
    ci = _nonzero1(~use_series)
    if ci.numel():
        h, dh = _cf_terms(a[ci], x[ci], with_grad)
        H[ci], dH[ci] = h, dh
    return use_series, S, dS, H, dH


def _wilson_hilferty_z(a, x):
    return ((x / a).pow(1.0 / 3.0) - 1.0 + 1.0 / (9.0 * a)) * 3.0 * a.sqrt()


def _gamma_quantile_grad_f64(a, x):
    """d x / d a at fixed P(a, x) (the implicit reparameterization gradient of a Gamma(a, 1) sample x), for flat
    float64 tensors: -(dP/da) / p(x; a) with dP/da from the series or continued fraction above, and from the
    Wilson-Hilferty map (x = a (1 - 1/(9a) + z / (3 sqrt a))^3 at fixed z) for very large a."""
    out = _C.zeros_like(x)
    large = a >= _GRAD_ASYMPTOTIC_ALPHA
    exact = _nonzero1(~large)
    if exact.numel():
        ae, xe = a[exact], x[exact]
        use_series, S, dS, H, dH = _split(ae, xe, True)
        logx = _C.log(xe)
        g_series = -(xe / ae) * (S * (logx - _C.digamma(ae + 1.0)) + dS)
        g_cf = xe * (H * (logx - _C.digamma(ae)) + dH)
        out[exact] = _C._where(use_series, g_series, g_cf)
    asym = _nonzero1(large)
    if asym.numel():
        aa, xa = a[asym], x[asym]
        z = _wilson_hilferty_z(aa, xa)
        s = 1.0 - 1.0 / (9.0 * aa) + z / (3.0 * aa.sqrt())
        ds = 1.0 / (9.0 * aa * aa) - z / (6.0 * aa.pow(1.5))
        out[asym] = s * s * s + 3.0 * aa * s * s * ds
    return out


def _standard_gamma_grad(x, alpha):
    """d sample / d alpha for Gamma(alpha, 1) samples ``x`` (PyTorch's torch._standard_gamma_grad)."""
    shape = tuple(x.shape)
    g = _gamma_quantile_grad_f64(_f64(alpha).reshape(-1), _f64(x).reshape(-1))
    return g.to(x.dtype).reshape(shape)


class _StandardGamma(_function.Function):
    """A Gamma(alpha, 1) sample whose gradient to alpha is the implicit one: how the sample moves when alpha
    changes at a fixed quantile."""

    @staticmethod
    def forward(ctx, alpha):
        x = _standard_gamma_sample(alpha)
        ctx.save_for_backward(x, alpha)
        return x

    @staticmethod
    def backward(ctx, grad):
        x, alpha = ctx.saved_tensors
        return grad * _standard_gamma_grad(x, alpha)


def _standard_gamma(alpha):
    """Gamma(alpha, 1) samples shaped like ``alpha``, differentiable in alpha."""
    return _StandardGamma.apply(alpha)


class _GammaInc(_function.Function):
    """P(a, x) (or Q = 1 - P, upper) with gradients to both arguments, for the distributions' cdf (torch.igamma
    itself differentiates x only, as PyTorch's): dP/dx is the Gamma(a) density, dP/da = -density * dx/da; Q's
    are their negatives."""

    @staticmethod
    def forward(ctx, a, x, upper=False):
        ctx.save_for_backward(a, x)
        ctx.sign = -1.0 if upper else 1.0
        return (_C._igammac if upper else _C._igamma)(a.detach(), x.detach())

    @staticmethod
    def backward(ctx, grad):
        a, x = ctx.saved_tensors
        dens = _C.exp((a - 1.0) * _C.log(x) - x - _C.lgamma(a)) * ctx.sign
        ga = gx = None
        if ctx.needs_input_grad[1]:
            gx = grad * dens
        if ctx.needs_input_grad[0]:
            ga = -grad * dens * _standard_gamma_grad(x, a)
        return ga, gx, None


def _gammainc(a, x, upper=False):
    """The regularized lower (upper) incomplete gamma function for broadcast tensors a, x, differentiable in
    both (Gamma.cdf's)."""
    return _GammaInc.apply(a, x, upper)


# ---------------------------------------------------------------------------------------------------- Poisson


def _poisson_inversion(lam):
    """Poisson draws by sequential search of the cdf (flat float64 ``lam`` below ~10): the draw is the number of
    cdf values F(0), F(1), ... below a uniform, counted while all elements step together (~lam + 1 steps)."""
    u = _rand(lam.numel(), lam)
    p = _C.exp(-lam)

    def step(k, st):
        cnt, F, p, u, ll = st
        cnt = cnt + (F < u).to(cnt.dtype)
        p = p * ll / k
        return [cnt, F + p, p, u, ll]

    def done(st):
        _, F, p, u, _ = st
        # passed u, or the pmf no longer moves the cdf (u within rounding of 1)
        return (F >= u) | (p <= _EPS64 * F)

    return _iterate([_C.zeros_like(lam), p.clone(), p, u, lam], step, done, 1, block=4)[0]


def _poisson_ptrs(lam):
    """Poisson draws for flat float64 ``lam >= 10`` by Hormann's transformed rejection with squeeze (PTRS,
    1993): about 1.1 proposals per draw."""
    n = lam.numel()
    out = _C.zeros_like(lam)
    slam = lam.sqrt()
    loglam = lam.log()
    b = 0.931 + 2.53 * slam
    a = -0.059 + 0.02483 * b
    inv_alpha = 1.1239 + 1.1328 / (b - 3.4)
    vr = 0.9277 - 3.6224 / (b - 2.0)
    pending = _C.arange(n, device=lam.device)
    L = lam
    while pending.numel():
        m = pending.numel()
        U = _rand(m, L) - 0.5
        V = _rand(m, L)
        us = 0.5 - U.abs()
        k = ((2.0 * a / us + b) * U + L + 0.43).floor()
        quick = (us >= 0.07) & (V <= vr)
        bad = (k < 0) | ((us < 0.013) & (V > us))
        safe_k = k.clamp(min=0.0)
        lhs = _C.log(V * inv_alpha / (a / (us * us) + b))
        rhs = -L + safe_k * loglam - _C.lgamma(safe_k + 1.0)
        ok = quick | (~bad & (lhs <= rhs))
        took = _nonzero1(ok)
        if took.numel():
            out[pending[took]] = k[took]
        rest = _nonzero1(~ok)
        pending, L, loglam, b, a, inv_alpha, vr = (v[rest] for v in (pending, L, loglam, b, a, inv_alpha, vr))
    return out


def _poisson_sample(rate):
    """Poisson(rate) draws shaped like ``rate`` (float, its dtype), no gradient."""
    with grad_mode.no_grad():
        shape = tuple(rate.shape)
        lam = _f64(rate).reshape(-1)
        out = _C.zeros_like(lam)
        small = lam < 10.0
        si = _nonzero1(small)
        if si.numel():
            out[si] = _poisson_inversion(lam[si])
        li = _nonzero1(~small)
        if li.numel():
            out[li] = _poisson_ptrs(lam[li])
        return out.to(rate.dtype).reshape(shape)


# --------------------------------------------------------------------------------------------------- Binomial


def _binomial_inversion(n, q):
    """Binomial(n, q) draws by sequential search of the cdf (flat float64, n q < 10: ~n q + 1 steps on average);
    the draw is the number of cdf values F(0), F(1), ... below a uniform, capped at n."""
    u = _rand(n.numel(), n)
    ratio = q / (1.0 - q)
    p = _C.exp(n * _C.log1p(-q))

    def step(k, st):
        cnt, F, p, u, nn, r = st
        cnt = cnt + ((F < u) & (cnt < nn)).to(cnt.dtype)
        p = p * r * (nn - (k - 1)) / k
        return [cnt, F + p, p.clamp(min=0.0), u, nn, r]

    def done(st):
        cnt, F, p, u, nn, _ = st
        return (F >= u) | (p <= _EPS64 * F) | (cnt >= nn)

    return _iterate([_C.zeros_like(n), p.clone(), p, u, n, ratio], step, done, 1, block=4)[0]


def _binomial_btrs(n, q):
    """Binomial(n, q) draws for flat float64 n q >= 10, q <= 1/2 by Hormann's transformed rejection with squeeze
    (BTRS, 1993), accepting against the exact log pmf ratio to the mode."""
    m_count = n.numel()
    out = _C.zeros_like(n)
    spq = (n * q * (1.0 - q)).sqrt()
    b = 1.15 + 2.53 * spq
    a = -0.0873 + 0.0248 * b + 0.01 * q
    c = n * q + 0.5
    alpha = (2.83 + 5.1 / b) * spq
    vr = 0.92 - 4.2 / b
    mode = ((n + 1.0) * q).floor()
    log_ratio = _C.log(q) - _C.log1p(-q)
    log_pmf_mode = -_C.lgamma(mode + 1.0) - _C.lgamma(n - mode + 1.0)
    pending = _C.arange(m_count, device=n.device)
    N = n
    while pending.numel():
        mm = pending.numel()
        U = _rand(mm, N) - 0.5
        V = _rand(mm, N)
        us = 0.5 - U.abs()
        k = ((2.0 * a / us + b) * U + c).floor()
        inside = (k >= 0) & (k <= N)
        quick = inside & (us >= 0.07) & (V <= vr)
        kk = k.clamp(min=0.0)
        kk = _C.minimum(kk, N)
        lhs = _C.log(V * alpha / (a / (us * us) + b))
        rhs = (-_C.lgamma(kk + 1.0) - _C.lgamma(N - kk + 1.0)) - log_pmf_mode + (kk - mode) * log_ratio
        ok = quick | (inside & (lhs <= rhs))
        took = _nonzero1(ok)
        if took.numel():
            out[pending[took]] = k[took]
        rest = _nonzero1(~ok)
        pending, N, b, a, c, alpha, vr, mode, log_ratio, log_pmf_mode = (
            v[rest] for v in (pending, N, b, a, c, alpha, vr, mode, log_ratio, log_pmf_mode)
        )
    return out


def _binomial_sample(total_count, probs):
    """Binomial(total_count, probs) draws shaped like their broadcast (probs' dtype), no gradient. Draws for
    q = min(p, 1 - p) and reflects, so both samplers see q <= 1/2. On the CPU (float32 and float64 of one shape
    and dtype) the C++ sampler draws (kernels/cpu/random.cpp: the same inversion / BTRS split); the tensor
    composite below serves the other devices."""
    if (
        probs.device.type == "cpu"
        and total_count.device.type == "cpu"
        and probs.dtype in (_C.float32, _C.float64)
        and total_count.dtype == probs.dtype
        and tuple(total_count.shape) == tuple(probs.shape)
    ):
        return _C._binomial(total_count, probs)
    with grad_mode.no_grad():
        shape = tuple(probs.shape)
        n = _f64(total_count).reshape(-1)
        p = _f64(probs).reshape(-1)
        flip = p > 0.5
        q = _C._where(flip, 1.0 - p, p)
        out = _C.zeros_like(p)
        small = n * q < 10.0
        # a NaN rate or count, or an infinite count, has no draw (NaN, as PyTorch's for the rate and the
        # infinite count); the samplers below would search or reject forever on them
        undefined = p.isnan() | n.isnan() | (n.isinf() & (q > 0))
        degenerate = (q <= 0) | (n <= 0) | undefined
        si = _nonzero1(small & ~degenerate)
        if si.numel():
            out[si] = _binomial_inversion(n[si], q[si])
        li = _nonzero1(~small & ~degenerate)
        if li.numel():
            out[li] = _binomial_btrs(n[li], q[li])
        out = _C._where(flip, n - out, out).masked_fill(undefined, math.nan)
        return out.to(probs.dtype).reshape(shape)


# ------------------------------------------------------------------------------------------ torch.* spellings
# The samplers under PyTorch's top-level names (torch.poisson, torch.binomial, torch._standard_gamma,
# torch._sample_dirichlet, torch.special.gammainc/gammaincc), for the package root and minitorch.special to export.


def _device_name(t):
    return "cuda" if t.device.type == "cuda" else "cpu"


@_argcheck.parses("Tensor input, Generator? generator=None")
def poisson(input, generator=None):
    """Poisson draws with the rates in ``input`` (a float tensor), as torch.poisson; no gradient."""
    if not input.dtype.is_floating_point:
        raise NotImplementedError(
            f"\"poisson_{_device_name(input)}\" not implemented for '{scalar_name(input.dtype)}'"
        )
    if input.numel() and bool((input < 0).any()):
        raise RuntimeError("invalid Poisson rate, expected rate to be non-negative")
    return _poisson_sample(input)


@_argcheck.parses("Tensor count, Tensor prob, Generator? generator=None", upfront=False)
def binomial(count, prob, generator=None):
    """Binomial(count, prob) draws (broadcast), as torch.binomial: counts below 0 draw 0; no gradient."""
    cd = count.dtype
    if (cd == _C.float32 or cd == _C.float64) and prob.dtype == cd and count.is_cpu and prob.is_cpu:
        # the common call, checked in a few attribute reads (the checks below cost more than 64 draws)
        if count.shape != prob.shape:
            count, prob = _composite_shape.broadcast_tensors(count, prob)
        return _C._binomial(count, prob, generator)
    for what, t in (("count", count), ("prob", prob)):
        if not t.dtype.is_floating_point:
            raise ValueError(
                f"binomial only supports floating-point dtypes for {what}, got: {scalar_name(t.dtype)}"
            )
    if count.dtype in (_C.float16, _C.bfloat16):  # PyTorch's kernel is float and double only
        raise NotImplementedError(
            f"\"binomial_{'cuda' if count.is_cuda else 'cpu'}\" not implemented for '{scalar_name(count.dtype)}'"
        )
    if prob.dtype != count.dtype:
        raise RuntimeError(f"Found dtype {scalar_name(prob.dtype)} but expected {scalar_name(count.dtype)}")
    if tuple(count.shape) != tuple(prob.shape):
        count, prob = _composite_shape.broadcast_tensors(count, prob)
    # the C++ sampler takes counts below 0 as 0 and clamps prob to [0, 1] itself
    if count.is_cpu and prob.is_cpu:
        return _C._binomial(count, prob, generator)
    return _binomial_sample(count.clamp(min=0), prob.clamp(min=0, max=1))


def standard_gamma(input, generator=None):
    """Gamma(input, 1) draws, as torch._standard_gamma; differentiable in ``input`` (implicit gradient)."""
    return _standard_gamma(input)


def standard_gamma_grad(input, output):
    """d output / d input for ``output = _standard_gamma(input)`` draws, as torch._standard_gamma_grad."""
    return _standard_gamma_grad(output, input)


def sample_dirichlet(input, generator=None):
    """Dirichlet(input) draws over the last dim, as torch._sample_dirichlet; no gradient."""
    with grad_mode.no_grad():
        g = _standard_gamma_sample(input)
        y = g / g.sum(-1, True)
        fi = _dtype_info.finfo(y.dtype)
        return y.clamp(min=fi.tiny, max=1 - fi.eps / 2)


# torch.igamma/igammac and special.gammainc/gammaincc: the kernels (csrc/kernels/special_functors.h, the
# schema's _igamma/_igammac rows: dtypes, PyTorch's special values, x's gradient) under PyTorch's signatures,
# which take tensors only


@_argcheck.parses("Tensor input, Tensor other, *, Tensor? out=None")
def igamma(input, other, *, out=None):
    """The regularized lower incomplete gamma function P(input, other), as torch.igamma."""
    return _C._igamma(input, other) if out is None else _C._igamma(input, other, out=out)


@_argcheck.parses("Tensor input, Tensor other, *, Tensor? out=None")
def igammac(input, other, *, out=None):
    """The regularized upper incomplete gamma function Q(input, other) = 1 - P, as torch.igammac."""
    return _C._igammac(input, other) if out is None else _C._igammac(input, other, out=out)


@_argcheck.parses("Tensor input, Tensor other, *, Tensor? out=None", name="special_gammainc")
def gammainc(input, other, *, out=None):
    """P(input, other), as torch.special.gammainc (torch.igamma)."""
    return _C._igamma(input, other) if out is None else _C._igamma(input, other, out=out)


@_argcheck.parses("Tensor input, Tensor other, *, Tensor? out=None", name="special_gammaincc")
def gammaincc(input, other, *, out=None):
    """Q(input, other) = 1 - P, as torch.special.gammaincc (torch.igammac)."""
    return _C._igammac(input, other) if out is None else _C._igammac(input, other, out=out)


def _inplace(self, value):
    # PyTorch's in-place checks: the result's dtype must cast to self's, its shape must be self's
    if not _C.can_cast(value.dtype, self.dtype):
        raise RuntimeError(
            f"result type {scalar_name(value.dtype)} can't be cast to the desired output type {scalar_name(self.dtype)}"
        )
    if tuple(value.shape) != tuple(self.shape):
        raise RuntimeError(
            f"output with shape {list(self.shape)} doesn't match the broadcast shape {list(value.shape)}"
        )
    return self.copy_(value)


@_argcheck.parses("Tensor other", name="igamma", method=True)
def _igamma_method(self, other):
    """Tensor.igamma: P(self, other)."""
    return _C._igamma(self, other)


@_argcheck.parses("Tensor other", name="igammac", method=True)
def _igammac_method(self, other):
    """Tensor.igammac: Q(self, other)."""
    return _C._igammac(self, other)


@_argcheck.parses("Tensor other", name="igamma_", method=True)
def _igamma_(self, other):
    """Tensor.igamma_: P(self, other) written into self (the result must keep self's dtype and shape)."""
    return _inplace(self, _C._igamma(self, other))


@_argcheck.parses("Tensor other", name="igammac_", method=True)
def _igammac_(self, other):
    """Tensor.igammac_: Q(self, other) written into self."""
    return _inplace(self, _C._igammac(self, other))


# the Tensor methods PyTorch spells these functions with (the root installs them)
TENSOR_METHODS = {
    "igamma": _igamma_method,
    "igammac": _igammac_method,
    "igamma_": _igamma_,
    "igammac_": _igammac_,
}
