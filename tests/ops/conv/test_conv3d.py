"""3-D convolution and pooling (F.conv3d, conv_transpose3d, max/avg/adaptive/lp pools, max_unpool3d and the
nn modules over them) against NumPy float64 references written here as direct loops: strides, paddings
('same'/'valid' and the padding modes included), dilations, groups, bias, unbatched, non-contiguous and empty
inputs, float and integer dtypes, returned indices, gradients by gradcheck, and bad inputs raising PyTorch
2.15's exceptions and messages (each message below was read off PyTorch 2.15 running the same call)."""

import math
import re
import warnings

import numpy as np
import pytest

import minitorch
import minitorch.nn.functional as F
from minitorch import nn
from minitorch.autograd import gradcheck, gradgradcheck

RNG = np.random.default_rng(1234)


# ------------------------------------------------------------------------------ NumPy references
def _t3(v):
    return (v,) * 3 if isinstance(v, int) else tuple(v)


def _pads(padding):
    """int, (pd, ph, pw) or ((lo, hi), (lo, hi), (lo, hi)) -> per-dim (lo, hi)."""
    return [(p, p) if isinstance(p, int) else tuple(p) for p in _t3(padding)]


def np_conv3d(x, w, b=None, stride=1, padding=0, dilation=1, groups=1):
    """Direct 3-D convolution: one einsum per output position and group over the padded window."""
    s, d = _t3(stride), _t3(dilation)
    xp = np.pad(x, ((0, 0), (0, 0), *_pads(padding)))
    n = x.shape[0]
    o, cg, *k = w.shape
    out_sz = [(xp.shape[2 + i] - d[i] * (k[i] - 1) - 1) // s[i] + 1 for i in range(3)]
    out = np.zeros((n, o, *out_sz), dtype=np.result_type(x, w))
    og = o // groups
    for g in range(groups):
        xs, ws = xp[:, g * cg : (g + 1) * cg], w[g * og : (g + 1) * og]
        for od, oh, ow in np.ndindex(*out_sz):
            patch = xs[
                :,
                :,
                od * s[0] : od * s[0] + d[0] * (k[0] - 1) + 1 : d[0],
                oh * s[1] : oh * s[1] + d[1] * (k[1] - 1) + 1 : d[1],
                ow * s[2] : ow * s[2] + d[2] * (k[2] - 1) + 1 : d[2],
            ]
            out[:, g * og : (g + 1) * og, od, oh, ow] = np.einsum("ncijk,ocijk->no", patch, ws)
    if b is not None:
        out = out + b[None, :, None, None, None]
    return out


def np_conv_transpose3d(x, w, b=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    """Scatter definition: input position i adds x[i] * w[c, o] at i*stride + k*dilation, then crops padding."""
    s, p, op, d = _t3(stride), _t3(padding), _t3(output_padding), _t3(dilation)
    n, cin, *sp = x.shape
    _, cog, *k = w.shape
    full = [(sp[i] - 1) * s[i] + d[i] * (k[i] - 1) + 1 + op[i] for i in range(3)]
    out = np.zeros((n, groups * cog, *full), dtype=np.result_type(x, w))
    cig = cin // groups
    for g in range(groups):
        for i, j, m in np.ndindex(*sp):
            contrib = np.einsum(
                "nc,coxyz->noxyz", x[:, g * cig : (g + 1) * cig, i, j, m], w[g * cig : (g + 1) * cig]
            )
            out[
                :,
                g * cog : (g + 1) * cog,
                i * s[0] : i * s[0] + d[0] * (k[0] - 1) + 1 : d[0],
                j * s[1] : j * s[1] + d[1] * (k[1] - 1) + 1 : d[1],
                m * s[2] : m * s[2] + d[2] * (k[2] - 1) + 1 : d[2],
            ] += contrib
    out = out[:, :, p[0] : full[0] - p[0], p[1] : full[1] - p[1], p[2] : full[2] - p[2]]
    if b is not None:
        out = out + b[None, :, None, None, None]
    return out


def _pool_size(n, k, p, s, d, ceil):
    o = (n + 2 * p - d * (k - 1) - 1 + (s - 1 if ceil else 0)) // s + 1
    if ceil and (o - 1) * s >= n + p:
        o -= 1
    return o


def _pick(v):
    """PyTorch's window argmax along the last axis: the first maximum, or the last NaN when there is one."""
    nan = np.isnan(v) if v.dtype.kind == "f" else np.zeros(v.shape, bool)
    last_nan = v.shape[-1] - 1 - np.argmax(nan[..., ::-1], -1)
    return np.where(nan.any(-1), last_nan, np.argmax(v, -1))


def np_max_pool3d(x, k, s=None, p=0, d=1, ceil=False):
    """Values and flat D*H*W indices; each window scanned in (d, h, w) order over in-input positions only."""
    k = _t3(k)
    s, p, d = _t3(s if s is not None else k), _t3(p), _t3(d)
    n, c, *sp = x.shape
    out_sz = [_pool_size(sp[i], k[i], p[i], s[i], d[i], ceil) for i in range(3)]
    flat = x.reshape(n, c, -1)
    vals = np.zeros((n, c, *out_sz), x.dtype)
    idx = np.zeros((n, c, *out_sz), np.int64)
    for o in np.ndindex(*out_sz):
        axes = [[o[i] * s[i] - p[i] + t * d[i] for t in range(k[i])] for i in range(3)]
        axes = [[v for v in a if 0 <= v < sp[i]] for i, a in enumerate(axes)]
        pos = [(a * sp[1] + b) * sp[2] + e for a in axes[0] for b in axes[1] for e in axes[2]]
        v = flat[:, :, pos]
        j = _pick(v)
        vals[(slice(None), slice(None), *o)] = np.take_along_axis(v, j[..., None], -1)[..., 0]
        idx[(slice(None), slice(None), *o)] = np.asarray(pos)[j]
    return vals, idx


def np_avg_pool3d(x, k, s=None, p=0, ceil=False, count_include_pad=True, divisor=None):
    k = _t3(k)
    s, p = _t3(s if s is not None else k), _t3(p)
    n, c, *sp = x.shape
    out_sz = [_pool_size(sp[i], k[i], p[i], s[i], 1, ceil) for i in range(3)]
    out = np.zeros((n, c, *out_sz), np.float64)
    for o in np.ndindex(*out_sz):
        start = [o[i] * s[i] - p[i] for i in range(3)]
        end = [min(start[i] + k[i], sp[i] + p[i]) for i in range(3)]
        pool = math.prod(end[i] - start[i] for i in range(3))
        lo = [max(v, 0) for v in start]
        hi = [min(end[i], sp[i]) for i in range(3)]
        window = x[:, :, lo[0] : hi[0], lo[1] : hi[1], lo[2] : hi[2]]
        total = window.sum(axis=(2, 3, 4))
        div = divisor if divisor is not None else (pool if count_include_pad else window[0, 0].size)
        out[(slice(None), slice(None), *o)] = total / div
    return out


def _adaptive_ranges(n, o):
    return [((i * n) // o, -((-(i + 1) * n) // o)) for i in range(o)]


def np_adaptive_pool3d(x, out_sz, kind):
    n, c, *sp = x.shape
    ranges = [_adaptive_ranges(sp[i], out_sz[i]) for i in range(3)]
    vals = np.zeros((n, c, *out_sz), x.dtype)
    idx = np.zeros((n, c, *out_sz), np.int64)
    flat = x.reshape(n, c, -1)
    for o in np.ndindex(*out_sz):
        (a0, a1), (b0, b1), (e0, e1) = (ranges[i][o[i]] for i in range(3))
        pos = [
            (a * sp[1] + b) * sp[2] + e for a in range(a0, a1) for b in range(b0, b1) for e in range(e0, e1)
        ]
        v = flat[:, :, pos]
        at = (slice(None), slice(None), *o)
        if kind == "avg":
            vals[at] = v.mean(-1)
        else:
            j = _pick(v)
            vals[at] = np.take_along_axis(v, j[..., None], -1)[..., 0]
            idx[at] = np.asarray(pos)[j]
    return vals, idx


def T(a, dtype=minitorch.float64, device="cpu", grad=False):
    t = minitorch.tensor(np.ascontiguousarray(a)).to(dtype).to(device)
    return t.requires_grad_() if grad else t


def N(t):
    return (
        t.detach().cpu().to(minitorch.float64).numpy() if t.is_floating_point() else t.detach().cpu().numpy()
    )


TOLS = {minitorch.float64: 1e-10, minitorch.float32: 2e-4}


# --------------------------------------------------------------------------------------------- conv3d
CONV_CASES = [
    # x shape, w shape, stride, padding, dilation, groups
    ((2, 3, 5, 5, 5), (4, 3, 3, 3, 3), 1, 1, 1, 1),
    ((2, 4, 7, 6, 5), (6, 2, 3, 2, 3), (2, 1, 2), (1, 0, 2), (1, 2, 1), 2),
    ((1, 3, 6, 4, 5), (3, 1, 2, 3, 1), (1, 2, 1), (1, 1, 0), (2, 1, 1), 3),
    ((2, 2, 4, 5, 3), (5, 2, 1, 3, 3), 1, (0, 1, 1), 1, 1),  # depth kernel 1: no depth gather
    ((1, 2, 6, 3, 3), (2, 2, 3, 1, 1), (3, 1, 1), 2, (2, 1, 1), 1),  # depth taps landing in padding
]


@pytest.mark.parametrize("bias", [True, False])
@pytest.mark.parametrize("case", range(len(CONV_CASES)))
@pytest.mark.parametrize("dtype", [minitorch.float64, minitorch.float32])
def test_conv3d_values(device, case, bias, dtype):
    xs, ws, s, p, d, g = CONV_CASES[case]
    x, w, b = RNG.standard_normal(xs), RNG.standard_normal(ws), RNG.standard_normal(ws[0])
    out = F.conv3d(
        T(x, dtype, device), T(w, dtype, device), T(b, dtype, device) if bias else None, s, p, d, g
    )
    assert out.dtype == dtype and out.is_contiguous()
    ref = np_conv3d(x, w, b if bias else None, s, p, d, g)
    np.testing.assert_allclose(N(out), ref, rtol=TOLS[dtype], atol=TOLS[dtype])


def test_conv3d_same_valid_and_warning(device):
    x = RNG.standard_normal((2, 2, 5, 6, 7))
    for ks, dil in [((3, 3, 3), 1), ((2, 3, 4), (1, 2, 1)), ((2, 2, 2), 2), ((4, 1, 2), (1, 1, 3))]:
        w = RNG.standard_normal((3, 2, *ks))
        dil3 = _t3(dil)
        totals = [dil3[i] * (ks[i] - 1) for i in range(3)]
        pads = [(t // 2, t - t // 2) for t in totals]
        with warnings.catch_warnings(record=True) as rec:
            warnings.simplefilter("always")
            out = F.conv3d(T(x, device=device), T(w, device=device), None, 1, "same", dil)
        asym = any(lo != hi for lo, hi in pads)
        assert any("even kernel lengths" in str(r.message) for r in rec) == asym
        assert tuple(out.shape) == (2, 3, 5, 6, 7)
        np.testing.assert_allclose(N(out), np_conv3d(x, w, None, 1, pads, dil), atol=1e-10)
    w = RNG.standard_normal((3, 2, 2, 3, 4))
    out = F.conv3d(T(x, device=device), T(w, device=device), padding="valid")
    np.testing.assert_allclose(N(out), np_conv3d(x, w), atol=1e-10)


def test_conv3d_noncontiguous_unbatched_empty(device):
    base = RNG.standard_normal((3, 6, 2, 5, 7))
    x = T(base, device=device).permute(2, 0, 1, 3, 4)  # (2, 3, 6, 5, 7), not contiguous
    xs = T(RNG.standard_normal((2, 3, 12, 5, 7)), device=device)[:, :, ::2]  # strided
    wbase = RNG.standard_normal((3, 4, 2, 3, 2))
    w = T(wbase, device=device).transpose(0, 1)  # (4, 3, 2, 3, 2), not contiguous
    assert not x.is_contiguous() and not w.is_contiguous() and not xs.is_contiguous()
    np.testing.assert_allclose(
        N(F.conv3d(x, w, stride=(2, 1, 1), padding=1)),
        np_conv3d(N(x), N(w), stride=(2, 1, 1), padding=1),
        atol=1e-10,
    )
    np.testing.assert_allclose(N(F.conv3d(xs, w)), np_conv3d(N(xs), N(w)), atol=1e-10)
    # unbatched (C, D, H, W)
    out = F.conv3d(x[0], w, padding=(0, 1, 0))
    assert tuple(out.shape) == (4, 5, 5, 6)
    np.testing.assert_allclose(N(out), np_conv3d(N(x[:1]), N(w), padding=(0, 1, 0))[0], atol=1e-10)
    # empty batch, and PyTorch's zero-channel answer (zero output channels)
    e = F.conv3d(T(np.zeros((0, 3, 6, 5, 7)), device=device), w, T(np.ones(4), device=device))
    assert tuple(e.shape) == (0, 4, 5, 3, 6)
    z = F.conv3d(T(np.zeros((2, 0, 6, 5, 7)), device=device), T(np.zeros((4, 0, 3, 3, 3)), device=device))
    assert tuple(z.shape) == (2, 0, 4, 3, 5)


@pytest.mark.parametrize("dtype", [minitorch.float16, minitorch.bfloat16])
def test_conv3d_half_precision(dtype):
    x, w = RNG.standard_normal((1, 2, 4, 4, 4)), RNG.standard_normal((3, 2, 2, 2, 2))
    out = F.conv3d(T(x, dtype), T(w, dtype), stride=(1, 2, 1), padding=1)
    assert out.dtype == dtype
    xr, wr = N(T(x, dtype)), N(T(w, dtype))  # the rounded inputs
    np.testing.assert_allclose(N(out), np_conv3d(xr, wr, stride=(1, 2, 1), padding=1), rtol=3e-2, atol=3e-2)


@pytest.mark.parametrize(
    "dtype", [minitorch.int64, minitorch.int32, minitorch.int16, minitorch.int8, minitorch.uint8]
)
def test_conv3d_integers_wrap_as_pytorch(dtype):
    lo, hi = (0, 60) if dtype == minitorch.uint8 else (-60, 60)
    x = RNG.integers(lo, hi, (2, 4, 5, 4, 4))
    w = RNG.integers(lo // 10, hi // 10, (4, 2, 2, 3, 2))
    b = RNG.integers(lo, hi, 4)
    out = F.conv3d(T(x, dtype), T(w, dtype), T(b, dtype), (2, 1, 1), (1, 0, 1), (1, 1, 2), 2)
    assert out.dtype == dtype
    ref = np_conv3d(
        x.astype(np.int64), w.astype(np.int64), b.astype(np.int64), (2, 1, 1), (1, 0, 1), (1, 1, 2), 2
    )
    np_dtype = {minitorch.int64: np.int64, minitorch.int32: np.int32, minitorch.int16: np.int16,
                minitorch.int8: np.int8, minitorch.uint8: np.uint8}[dtype]  # fmt: skip
    np.testing.assert_array_equal(out.numpy(), ref.astype(np_dtype))  # wraps modulo 2**bits as PyTorch's
    if dtype == minitorch.int8:
        assert (np.abs(ref) > 127).any()  # the case really wraps


@pytest.mark.filterwarnings("ignore:Using padding=.same.")
def test_conv3d_gradcheck():
    x = T(RNG.standard_normal((2, 4, 4, 3, 4)), grad=True)
    w = T(RNG.standard_normal((4, 2, 2, 2, 3)), grad=True)
    b = T(RNG.standard_normal(4), grad=True)
    assert gradcheck(lambda x, w, b: F.conv3d(x, w, b, (2, 1, 1), (1, 1, 0), (1, 2, 1), 2), (x, w, b))
    assert gradcheck(lambda x, w: F.conv3d(x, w, None, 1, "same", (1, 2, 1), 2), (x, w[:, :, :, :1]))
    assert gradcheck(lambda x, w: F.conv3d(x[0], w, groups=2), (x, w))  # unbatched


def test_conv3d_grad_values(device):
    x, w, b = (
        RNG.standard_normal((2, 2, 5, 4, 4)),
        RNG.standard_normal((3, 2, 3, 2, 2)),
        RNG.standard_normal(3),
    )
    xt, wt, bt = (T(a, device=device, grad=True) for a in (x, w, b))
    out = F.conv3d(xt, wt, bt, (2, 1, 1), 1, (1, 2, 1))
    g = RNG.standard_normal(tuple(out.shape))
    out.backward(T(g, device=device))
    # the adjoint: grad wrt x is conv_transpose3d of g, grad wrt b the sum of g
    np.testing.assert_allclose(N(bt.grad), g.sum(axis=(0, 2, 3, 4)), atol=1e-10)
    ref_gx = np_conv_transpose3d(g, w, None, (2, 1, 1), 1, (0, 0, 0), 1, (1, 2, 1))
    gx = np.zeros_like(x)
    gx[:, :, : ref_gx.shape[2], : ref_gx.shape[3], : ref_gx.shape[4]] = ref_gx
    np.testing.assert_allclose(N(xt.grad), gx, atol=1e-10)
    # grad wrt w by finite differences on one entry
    eps = 1e-6
    w2 = w.copy()
    w2[1, 0, 2, 1, 0] += eps
    fd = (
        (np_conv3d(x, w2, b, (2, 1, 1), 1, (1, 2, 1)) - np_conv3d(x, w, b, (2, 1, 1), 1, (1, 2, 1))) * g
    ).sum() / eps
    assert abs(N(wt.grad)[1, 0, 2, 1, 0] - fd) < 1e-4


# ----------------------------------------------------------------------------------- conv_transpose3d
CONVT_CASES = [
    # x shape, w shape (in, out/g, k), stride, padding, output_padding, groups, dilation
    ((2, 3, 3, 4, 3), (3, 2, 3, 3, 3), 1, 0, 0, 1, 1),
    ((2, 4, 3, 3, 4), (4, 3, 3, 2, 3), (2, 1, 2), (1, 0, 2), (1, 0, 1), 2, (1, 2, 1)),
    ((1, 3, 4, 3, 3), (3, 1, 2, 3, 1), (3, 2, 1), (2, 1, 0), (2, 0, 0), 3, (2, 1, 1)),
    ((2, 2, 3, 3, 3), (2, 3, 1, 2, 2), (1, 2, 2), 0, (0, 1, 1), 1, 1),
]


@pytest.mark.parametrize("bias", [True, False])
@pytest.mark.parametrize("case", range(len(CONVT_CASES)))
@pytest.mark.parametrize("dtype", [minitorch.float64, minitorch.float32])
def test_conv_transpose3d_values(device, case, bias, dtype):
    xs, ws, s, p, op, g, d = CONVT_CASES[case]
    x, w = RNG.standard_normal(xs), RNG.standard_normal(ws)
    b = RNG.standard_normal(ws[1] * g)
    bt = T(b, dtype, device) if bias else None
    out = F.conv_transpose3d(T(x, dtype, device), T(w, dtype, device), bt, s, p, op, g, d)
    assert out.dtype == dtype and out.is_contiguous()
    ref = np_conv_transpose3d(x, w, b if bias else None, s, p, op, g, d)
    np.testing.assert_allclose(N(out), ref, rtol=TOLS[dtype], atol=TOLS[dtype])


def test_conv_transpose3d_unbatched_noncontiguous_empty_int64(device):
    x = T(RNG.standard_normal((3, 2, 4, 3, 5)), device=device).permute(1, 0, 2, 3, 4)
    w = T(RNG.standard_normal((3, 2, 2, 2, 2)), device=device)
    assert not x.is_contiguous()
    np.testing.assert_allclose(
        N(F.conv_transpose3d(x, w, stride=2)), np_conv_transpose3d(N(x), N(w), stride=2), atol=1e-10
    )
    out = F.conv_transpose3d(x[1], w, padding=(1, 0, 0))
    np.testing.assert_allclose(N(out), np_conv_transpose3d(N(x[1:2]), N(w), padding=(1, 0, 0))[0], atol=1e-10)
    e = F.conv_transpose3d(T(np.zeros((0, 3, 2, 2, 2)), device=device), w, stride=2)
    assert tuple(e.shape) == (0, 2, 4, 4, 4)
    xi, wi = RNG.integers(-9, 9, (2, 4, 3, 2, 3)), RNG.integers(-4, 4, (4, 3, 2, 3, 2))
    out = F.conv_transpose3d(T(xi, minitorch.int64), T(wi, minitorch.int64), T(np.arange(6), minitorch.int64),
                             (2, 1, 2), (1, 0, 1), (1, 0, 1), 2, (1, 2, 1))  # fmt: skip
    assert out.dtype == minitorch.int64
    np.testing.assert_array_equal(
        out.numpy(), np_conv_transpose3d(xi, wi, np.arange(6), (2, 1, 2), (1, 0, 1), (1, 0, 1), 2, (1, 2, 1))
    )


def test_conv_transpose3d_gradcheck_and_adjoint():
    x = T(RNG.standard_normal((1, 4, 3, 2, 3)), grad=True)
    w = T(RNG.standard_normal((4, 1, 2, 2, 3)), grad=True)
    b = T(RNG.standard_normal(2), grad=True)
    assert gradcheck(
        lambda x, w, b: F.conv_transpose3d(x, w, b, (2, 1, 2), (1, 0, 1), (1, 0, 0), 2, (1, 2, 1)), (x, w, b)
    )
    # <conv3d(u, w), v> == <u, conv_transpose3d(v, w)>
    u, wv = RNG.standard_normal((2, 3, 6, 5, 6)), RNG.standard_normal((4, 3, 2, 3, 2))
    cu = np_conv3d(u, wv, stride=(2, 1, 2), padding=1, dilation=(1, 1, 2))
    v = RNG.standard_normal(cu.shape)
    tv = F.conv_transpose3d(T(v), T(wv), None, (2, 1, 2), 1, (0, 0, 1), 1, (1, 1, 2))
    assert tuple(tv.shape) == u.shape
    assert abs((cu * v).sum() - (u * N(tv)).sum()) < 1e-8


# --------------------------------------------------------------------------------------------- pools
MAXPOOL_CASES = [
    # kernel, stride, padding, dilation, ceil_mode
    (3, 2, 1, 1, False),
    (3, 2, 1, 1, True),
    ((2, 3, 2), (1, 2, 3), (1, 1, 1), (2, 1, 1), True),
    (2, None, 0, 1, False),
    ((3, 3, 3), 2, (0, 1, 1), (1, 2, 2), True),
    ((1, 2, 2), (1, 2, 2), 0, 1, False),
]


@pytest.mark.parametrize("case", range(len(MAXPOOL_CASES)))
@pytest.mark.parametrize("dtype", [minitorch.float64, minitorch.float32])
def test_max_pool3d_values_and_indices(device, case, dtype):
    k, s, p, d, ceil = MAXPOOL_CASES[case]
    x = RNG.standard_normal((2, 3, 7, 8, 9))
    xt = T(x, dtype, device)
    vals, idx = F.max_pool3d(xt, k, s, p, d, ceil, True)
    rv, ri = np_max_pool3d(N(xt), k, s, p, d, ceil)
    np.testing.assert_array_equal(N(vals), rv)
    np.testing.assert_array_equal(idx.cpu().numpy(), ri)
    assert idx.dtype == minitorch.int64
    np.testing.assert_array_equal(N(F.max_pool3d(xt, k, s, p, d, ceil)), rv)
    np.testing.assert_array_equal(N(nn.MaxPool3d(k, s, p, d, ceil_mode=ceil)(xt)), rv)


def test_max_pool3d_ties_inf_nan_unbatched_noncontiguous(device):
    # ties: the first maximum in (d, h, w) scan order wins, across depth slices too
    x = np.zeros((1, 1, 2, 2, 2))
    x[0, 0, 1, 0, 0] = x[0, 0, 0, 1, 1] = x[0, 0, 1, 1, 1] = 5.0
    _, idx = F.max_pool3d(T(x, device=device), 2, return_indices=True)
    assert idx.flatten().tolist() == [3]
    # an all -inf input with padding: the first in-input position, never a padded one
    x = np.full((1, 1, 3, 3, 3), -np.inf)
    vals, idx = F.max_pool3d(T(x, device=device), 3, 1, 1, return_indices=True)
    rv, ri = np_max_pool3d(x, 3, 1, 1)
    np.testing.assert_array_equal(idx.cpu().numpy(), ri)
    assert np.isneginf(N(vals)).all()
    # NaN propagates; across depth the last NaN's position is returned, as PyTorch's scan (one NaN per slice:
    # within a slice the 2-D kernel decides)
    x = np.array([0.0, np.nan, 1, 0, np.nan, 0, 2, 1]).reshape(1, 1, 2, 2, 2)
    vals, idx = F.max_pool3d(T(x, device=device), 2, return_indices=True)
    assert np.isnan(N(vals)).all() and idx.flatten().tolist() == [4]  # PyTorch 2.15 gives 4
    vals, idx = F.adaptive_max_pool3d(T(x, device=device), 1, return_indices=True)
    assert np.isnan(N(vals)).all() and idx.flatten().tolist() == [4]  # PyTorch 2.15 gives 4
    # unbatched and non-contiguous
    base = RNG.standard_normal((5, 6, 3, 7))
    xt = T(base, device=device).permute(2, 0, 1, 3)  # (3, 5, 6, 7)
    vals, idx = F.max_pool3d(xt, (2, 3, 2), (1, 2, 2), (1, 1, 0), return_indices=True)
    rv, ri = np_max_pool3d(N(xt)[None], (2, 3, 2), (1, 2, 2), (1, 1, 0))
    np.testing.assert_array_equal(N(vals), rv[0])
    np.testing.assert_array_equal(idx.cpu().numpy(), ri[0])
    e = F.max_pool3d(T(np.zeros((0, 2, 4, 4, 4)), device=device), 2, return_indices=True)
    assert tuple(e[0].shape) == tuple(e[1].shape) == (0, 2, 2, 2, 2)


@pytest.mark.parametrize(
    "dtype", [minitorch.int64, minitorch.int32, minitorch.int16, minitorch.int8, minitorch.uint8]
)
def test_max_pool3d_integers(dtype):
    lo = 0 if dtype == minitorch.uint8 else -128
    x = RNG.integers(lo, lo + 256, (2, 2, 6, 5, 4))
    x[0, 0, :2] = lo  # windows made only of the type's lowest value, with padding around them
    vals, idx = F.max_pool3d(T(x, dtype), (3, 2, 2), (2, 1, 2), (1, 1, 0), (1, 2, 1), True, True)
    assert vals.dtype == dtype
    rv, ri = np_max_pool3d(x, (3, 2, 2), (2, 1, 2), (1, 1, 0), (1, 2, 1), True)
    np.testing.assert_array_equal(vals.numpy(), rv)
    np.testing.assert_array_equal(idx.numpy(), ri)


AVGPOOL_CASES = [
    # kernel, stride, padding, ceil_mode, count_include_pad, divisor_override
    (3, 2, 1, False, True, None),
    (3, 2, 1, True, False, None),
    ((2, 3, 2), (1, 2, 3), (1, 1, 1), True, True, None),
    (3, 2, 1, True, True, 5),
    ((3, 2, 3), (2, 2, 2), (1, 1, 0), True, False, None),
    (2, None, 0, False, True, -3),
]


@pytest.mark.parametrize("case", range(len(AVGPOOL_CASES)))
@pytest.mark.parametrize("dtype", [minitorch.float64, minitorch.float32])
def test_avg_pool3d_values(device, case, dtype):
    k, s, p, ceil, cip, div = AVGPOOL_CASES[case]
    x = RNG.standard_normal((2, 3, 7, 8, 9))
    out = F.avg_pool3d(T(x, dtype, device), k, s, p, ceil, cip, div)
    np.testing.assert_allclose(
        N(out), np_avg_pool3d(x, k, s, p, ceil, cip, div), rtol=TOLS[dtype], atol=TOLS[dtype]
    )
    mod = nn.AvgPool3d(k, s, p, ceil, cip, div)(T(x[0], dtype, device))  # unbatched through the module
    np.testing.assert_allclose(
        N(mod), np_avg_pool3d(x[:1], k, s, p, ceil, cip, div)[0], rtol=TOLS[dtype], atol=TOLS[dtype]
    )


def test_avg_pool3d_int64_truncates_as_pytorch():
    x = RNG.integers(-50, 50, (2, 2, 5, 4, 6))
    for k, s, p, ceil, cip, div in [
        (3, 2, 1, True, False, None),
        (2, 1, 1, False, True, -3),
        (2, 2, 0, False, True, None),
    ]:
        out = F.avg_pool3d(T(x, minitorch.int64), k, s, p, ceil, cip, div)
        assert out.dtype == minitorch.int64
        ref = np_avg_pool3d(x.astype(np.float64), k, s, p, ceil, cip, div)
        np.testing.assert_array_equal(out.numpy(), np.trunc(ref).astype(np.int64))  # C++ integer division
    assert (
        F.avg_pool3d(T(np.array([-3, 0, 0, 0, 0, 0, 0, 0]).reshape(1, 1, 2, 2, 2), minitorch.int64), 2).item()
        == 0
    )


@pytest.mark.parametrize(
    "osize", [(3, 5, 4), (1, 1, 1), (7, 8, 9), (5, 3, 2), (10, 11, 12), (None, 2, None), 2]
)
def test_adaptive_pools_values(device, osize):
    x = RNG.standard_normal((2, 3, 7, 8, 9))
    full = [x.shape[2 + i] if v is None else v for i, v in enumerate(_t3(osize))]
    av = F.adaptive_avg_pool3d(T(x, device=device), osize)
    np.testing.assert_allclose(N(av), np_adaptive_pool3d(x, full, "avg")[0], atol=1e-12)
    mv, mi = F.adaptive_max_pool3d(T(x, device=device), osize, return_indices=True)
    rv, ri = np_adaptive_pool3d(x, full, "max")
    np.testing.assert_array_equal(N(mv), rv)
    np.testing.assert_array_equal(mi.cpu().numpy(), ri)
    f32 = F.adaptive_avg_pool3d(T(x, minitorch.float32, device), osize)
    np.testing.assert_allclose(N(f32), np_adaptive_pool3d(x, full, "avg")[0], rtol=1e-5, atol=1e-6)
    # modules, unbatched
    np.testing.assert_allclose(
        N(nn.AdaptiveAvgPool3d(osize)(T(x[1], device=device))),
        np_adaptive_pool3d(x[1:], full, "avg")[0][0],
        atol=1e-12,
    )
    mv, mi = nn.AdaptiveMaxPool3d(osize, return_indices=True)(T(x[1], device=device))
    np.testing.assert_array_equal(mi.cpu().numpy(), ri[1])


def test_adaptive_pools_empty():
    assert tuple(F.adaptive_avg_pool3d(T(np.zeros((0, 3, 4, 4, 4))), 2).shape) == (0, 3, 2, 2, 2)
    assert tuple(F.adaptive_avg_pool3d(T(np.zeros((0, 3, 4, 4))), 2).shape) == (
        0,
        2,
        2,
        2,
    )  # PyTorch allows it
    x = T(RNG.standard_normal((2, 3, 4, 4, 4)), grad=True)
    out = F.adaptive_avg_pool3d(x, 0)
    assert tuple(out.shape) == (2, 3, 0, 0, 0)
    # PyTorch's backward kernel refuses the empty grad_output (tests/ops/test_reliability.py checks the rest)
    with pytest.raises(
        RuntimeError, match="adaptive_avg_pool3d_backward\\(\\): Expected grad_output to have non-zero"
    ):
        out.sum().backward()
    v, i = F.adaptive_max_pool3d(T(np.zeros((0, 3, 4, 4, 4))), (1, 2, 3), True)
    assert tuple(v.shape) == tuple(i.shape) == (0, 3, 1, 2, 3)


def test_lp_pool3d_and_max_unpool3d(device):
    x = np.abs(RNG.standard_normal((2, 2, 6, 5, 6))) + 0.1
    for p in (2.0, 1.5):
        out = F.lp_pool3d(T(x, device=device), p, (2, 3, 2), (1, 2, 2), True)
        ref = np_avg_pool3d(x**p, (2, 3, 2), (1, 2, 2), 0, True) * 12
        np.testing.assert_allclose(N(out), ref ** (1 / p), rtol=1e-10)
    np.testing.assert_allclose(
        N(nn.LPPool3d(2, 2)(T(x, device=device))), np.sqrt(np_avg_pool3d(x**2, 2) * 8), rtol=1e-10
    )
    xr = RNG.standard_normal((2, 3, 7, 8, 9))
    vals, idx = F.max_pool3d(T(xr, device=device), 2, 2, return_indices=True)
    up = F.max_unpool3d(vals, idx, 2, 2, output_size=(7, 8, 9))
    assert tuple(up.shape) == (2, 3, 7, 8, 9)
    ref = np.zeros((2, 3, 7 * 8 * 9))
    np.put_along_axis(ref, idx.cpu().numpy().reshape(2, 3, -1), N(vals).reshape(2, 3, -1), -1)
    np.testing.assert_array_equal(N(up), ref.reshape(2, 3, 7, 8, 9))
    up2 = nn.MaxUnpool3d(2)(vals[0], idx[0], output_size=(7, 8, 9))  # unbatched
    np.testing.assert_array_equal(N(up2), N(up[0]))
    v6, i6 = F.max_pool3d(T(xr[:, :, :6, :, :8], device=device), 2, return_indices=True)
    assert tuple(nn.MaxUnpool3d(2)(v6[1], i6[1]).shape) == (3, 6, 8, 8)  # the default size


def test_pool_gradcheck():
    x = T(RNG.standard_normal((1, 2, 5, 4, 5)), grad=True)
    assert gradcheck(lambda x: F.max_pool3d(x, (3, 2, 2), (2, 1, 2), (1, 1, 0), (1, 2, 1), True), (x,))
    assert gradcheck(lambda x: F.avg_pool3d(x, 3, 2, 1, True, False), (x,))
    assert gradcheck(lambda x: F.avg_pool3d(x, (2, 3, 2), 1, 1, False, True, 7), (x,))
    assert gradcheck(lambda x: F.adaptive_avg_pool3d(x, (3, 3, 2)), (x,))
    assert gradcheck(lambda x: F.adaptive_max_pool3d(x, (2, 3, 4)), (x,))
    assert gradcheck(lambda x: F.lp_pool3d(x.abs() + 0.5, 2.0, 2, 1), (x,))
    v, i = F.max_pool3d(x.detach(), 2, 2, return_indices=True)
    v.requires_grad_()
    assert gradcheck(lambda v: F.max_unpool3d(v, i, 2, 2, output_size=(5, 4, 5)), (v,))


def test_double_backward():
    x = T(RNG.standard_normal((1, 2, 4, 3, 3)), grad=True)
    w = T(RNG.standard_normal((2, 2, 2, 2, 2)), grad=True)
    assert gradgradcheck(lambda x, w: F.conv3d(x, w, None, (2, 1, 1), 1), (x, w))
    assert gradgradcheck(lambda x, w: F.conv_transpose3d(x, w, None, (2, 1, 1), 1), (x, w))
    assert gradgradcheck(lambda x: F.avg_pool3d(x, 2, 1, 1), (x,))
    assert gradgradcheck(lambda x: F.max_pool3d(x, 2, 1, 1), (x,))


def test_max_pool3d_grad_goes_to_argmax(device):
    x = T(RNG.standard_normal((2, 2, 5, 6, 5)), device=device, grad=True)
    vals, idx = F.max_pool3d(x, 3, 1, 1, return_indices=True)  # overlapping windows: gradients accumulate
    g = RNG.standard_normal(tuple(vals.shape))
    vals.backward(T(g, device=device))
    ref = np.zeros((2, 2, 150))
    flat_idx = idx.cpu().numpy().reshape(2, 2, -1)
    for a in range(2):
        for b in range(2):
            np.add.at(ref[a, b], flat_idx[a, b], g.reshape(2, 2, -1)[a, b])
    np.testing.assert_allclose(N(x.grad).reshape(2, 2, -1), ref, atol=1e-12)


# ------------------------------------------------------------------------------------------- modules
def test_conv3d_module_state_dict_repr_init():
    m = nn.Conv3d(4, 6, (1, 2, 3), stride=(1, 2, 1), padding=(0, 1, 1), groups=2)
    assert {k: tuple(v.shape) for k, v in m.state_dict().items()} == {"weight": (6, 2, 1, 2, 3), "bias": (6,)}
    assert repr(m) == "Conv3d(4, 6, kernel_size=(1, 2, 3), stride=(1, 2, 1), padding=(0, 1, 1), groups=2)"
    t = nn.ConvTranspose3d(4, 6, 3, stride=2, output_padding=1, groups=2, bias=False)
    assert {k: tuple(v.shape) for k, v in t.state_dict().items()} == {"weight": (4, 3, 3, 3, 3)}
    assert repr(t) == (
        "ConvTranspose3d(4, 6, kernel_size=(3, 3, 3), stride=(2, 2, 2), output_padding=(1, 1, 1), groups=2, "
        "bias=False)"
    )
    fan_in, fan_out = nn.init._calculate_fan_in_and_fan_out(m.weight)
    assert (fan_in, fan_out) == (2 * 6, 6 * 6)
    assert nn.init._calculate_fan_in_and_fan_out(t.weight) == (3 * 27, 4 * 27)
    # kaiming_uniform(a=sqrt(5)) and the bias bound are both 1/sqrt(fan_in)
    big = nn.Conv3d(8, 64, 3)
    bound = 1 / math.sqrt(8 * 27)
    w = N(big.weight)
    assert np.abs(w).max() <= bound and np.abs(w).max() > 0.9 * bound
    assert abs(w.std() - bound / math.sqrt(3)) < 0.05 * bound
    assert np.abs(N(big.bias)).max() <= bound
    assert math.isclose(nn.init.calculate_gain("conv3d"), 1.0)
    assert math.isclose(nn.init.calculate_gain("conv_transpose3d"), 1.0)


_NP_MODE = {"reflect": "reflect", "replicate": "edge", "circular": "wrap", "zeros": "constant"}


@pytest.mark.parametrize("mode", ["zeros", "reflect", "replicate", "circular"])
def test_conv3d_module_padding_modes(device, mode):
    x = RNG.standard_normal((2, 2, 5, 6, 7))
    m = nn.Conv3d(2, 4, (3, 2, 3), stride=(1, 2, 1), padding=(1, 2, 0), dilation=(2, 1, 1), padding_mode=mode)
    m = m.to(minitorch.float64).to(device)
    out = m(T(x, device=device))
    xp = np.pad(x, ((0, 0), (0, 0), (1, 1), (2, 2), (0, 0)), mode=_NP_MODE[mode])
    ref = np_conv3d(xp, N(m.weight), N(m.bias), (1, 2, 1), 0, (2, 1, 1))
    np.testing.assert_allclose(N(out), ref, atol=1e-10)
    # 'same' with an even kernel: the odd remainder of the padding goes right, the mode's values there
    s = (
        nn.Conv3d(2, 3, (2, 3, 4), padding="same", padding_mode=mode, bias=False)
        .to(minitorch.float64)
        .to(device)
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = s(T(x[0], device=device))  # unbatched
    xp = np.pad(x[:1], ((0, 0), (0, 0), (0, 1), (1, 1), (1, 2)), mode=_NP_MODE[mode])
    np.testing.assert_allclose(N(out), np_conv3d(xp, N(s.weight))[0], atol=1e-10)


def test_conv_transpose3d_module_output_size():
    m = nn.ConvTranspose3d(3, 2, 3, stride=2).to(minitorch.float64)
    x = T(RNG.standard_normal((2, 3, 3, 4, 3)))
    out = m(x, output_size=[8, 9, 8])
    ref = np_conv_transpose3d(N(x), N(m.weight), N(m.bias), 2, 0, (1, 0, 1))
    np.testing.assert_allclose(N(out), ref, atol=1e-10)
    assert tuple(m(x, output_size=(2, 2, 7, 10, 7)).shape) == (2, 2, 7, 10, 7)
    assert tuple(m(x[0], output_size=(2, 7, 10, 8)).shape) == (2, 7, 10, 8)
    with pytest.raises(ValueError, match=re.escape(
        "requested an output size of [9, 9, 8], but valid sizes range from [7, 9, 7] to [8, 10, 8] (for an input "
        "of torch.Size([3, 4, 3]))"
    )):  # fmt: skip
        m(x, output_size=[9, 9, 8])
    with pytest.raises(
        ValueError,
        match=re.escape("ConvTranspose3D: for 5D input, output_size must have 3 or 5 elements (got 2)"),
    ):
        m(x, output_size=[8, 9])


def test_lazy_conv3d_modules():
    x = T(RNG.standard_normal((2, 6, 4, 5, 4)), minitorch.float32)
    m = nn.LazyConv3d(6, 3, padding=1, groups=3)
    assert repr(m) == "LazyConv3d(0, 6, kernel_size=(3, 3, 3), stride=(1, 1, 1), padding=(1, 1, 1), groups=3)"
    out = m(x)
    assert type(m) is nn.Conv3d and m.in_channels == 6 and tuple(m.weight.shape) == (6, 2, 3, 3, 3)
    np.testing.assert_allclose(
        N(out), np_conv3d(N(x), N(m.weight), N(m.bias), 1, 1, 1, 3), rtol=1e-4, atol=1e-5
    )
    t = nn.LazyConvTranspose3d(4, (2, 3, 2), stride=2, groups=2)
    out = t(x[0])  # unbatched
    assert type(t) is nn.ConvTranspose3d and t.in_channels == 6 and tuple(t.weight.shape) == (6, 2, 2, 3, 2)
    assert tuple(out.shape) == (4, 8, 11, 8)
    t2 = nn.LazyConvTranspose2d(3, 2, groups=3)
    t2(x[:, :, 0])
    assert type(t2) is nn.ConvTranspose2d and tuple(t2.weight.shape) == (6, 1, 2, 2)
    t1 = nn.LazyConvTranspose1d(5, 3)
    t1(x[:, :, 0, 0])
    assert type(t1) is nn.ConvTranspose1d and tuple(t1.weight.shape) == (6, 5, 3)
    with pytest.raises(RuntimeError, match=re.escape(
        "Expected 4D (unbatched) or 5D (batched) input to LazyConv3d, but got input of size: torch.Size([4, 5, 4])"
    )):  # fmt: skip
        nn.LazyConv3d(4, 3)(x[0, 0])
    with pytest.raises(ValueError, match="in_channels must be divisible by groups"):
        nn.LazyConvTranspose3d(4, 3, groups=4)(x)


def test_pool_module_reprs():
    assert (
        repr(nn.MaxPool3d(3, 2, 1))
        == "MaxPool3d(kernel_size=3, stride=2, padding=1, dilation=1, ceil_mode=False)"
    )
    assert repr(nn.AvgPool3d(3)) == "AvgPool3d(kernel_size=3, stride=3, padding=0)"
    assert repr(nn.AdaptiveAvgPool3d((2, None, 3))) == "AdaptiveAvgPool3d(output_size=(2, None, 3))"
    assert repr(nn.AdaptiveMaxPool3d(2)) == "AdaptiveMaxPool3d(output_size=2)"
    assert (
        repr(nn.MaxUnpool3d(2)) == "MaxUnpool3d(kernel_size=(2, 2, 2), stride=(2, 2, 2), padding=(0, 0, 0))"
    )
    assert repr(nn.LPPool3d(2, 3)) == "LPPool3d(norm_type=2, kernel_size=3, stride=None, ceil_mode=False)"


def test_interpolate_area_5d():
    x = RNG.standard_normal((1, 2, 4, 6, 8))
    out = F.interpolate(T(x), size=(2, 3, 4), mode="area")
    np.testing.assert_allclose(N(out), x.reshape(1, 2, 2, 2, 3, 2, 4, 2).mean(axis=(3, 5, 7)), atol=1e-12)


def test_small_3d_cnn_trains():
    minitorch.manual_seed(0)
    net = nn.Sequential(
        nn.Conv3d(1, 4, 3, padding=1), nn.BatchNorm3d(4), nn.ReLU(), nn.MaxPool3d(2),
        nn.ConvTranspose3d(4, 4, 2, stride=2), nn.ReLU(), nn.AdaptiveAvgPool3d(1), nn.Flatten(), nn.Linear(4, 1),
    )  # fmt: skip
    x = minitorch.randn(8, 1, 4, 6, 6)
    y = x.mean(dim=(1, 2, 3, 4)).unsqueeze(1) * 3
    opt = minitorch.optim.Adam(net.parameters(), lr=0.02)
    losses = []
    for _ in range(30):
        opt.zero_grad()
        loss = F.mse_loss(net(x), y)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    assert losses[-1] < 0.3 * losses[0]


def test_torch_spellings_autocast_and_vmap():
    x, w = RNG.standard_normal((2, 3, 4, 5, 4)), RNG.standard_normal((4, 3, 2, 3, 2))
    np.testing.assert_allclose(
        N(minitorch.conv3d(T(x), T(w), None, 1, 1)), np_conv3d(x, w, None, 1, 1), atol=1e-10
    )
    wt = RNG.standard_normal((3, 2, 2, 2, 2))
    np.testing.assert_allclose(
        N(minitorch.conv_transpose3d(T(x), T(wt), None, 2)), np_conv_transpose3d(x, wt, None, 2), atol=1e-10
    )
    np.testing.assert_array_equal(N(minitorch.max_pool3d(T(x), 2, ())), np_max_pool3d(x, 2)[0])
    # autocast runs the convs in its lower precision, mixed-precision operands included
    xf, wf = T(x, minitorch.float32), T(w, minitorch.float32)
    with minitorch.autocast("cpu", dtype=minitorch.bfloat16):
        y = F.conv3d(xf.bfloat16(), wf, padding=1)
        z = F.conv_transpose3d(xf, T(wt, minitorch.bfloat16), stride=2)
    assert y.dtype == z.dtype == minitorch.bfloat16
    np.testing.assert_allclose(N(y), np_conv3d(x, w, None, 1, 1), rtol=0.05, atol=0.1)
    # vmap over a batch of weights (torch.func's conv rule reaches F.conv3d with groups)
    from minitorch.func import vmap

    ws = T(RNG.standard_normal((3, 4, 3, 2, 3, 2)))
    out = vmap(lambda w: F.conv3d(T(x), w, None, 1, 1))(ws)
    for i in range(3):
        np.testing.assert_allclose(N(out[i]), np_conv3d(x, N(ws[i]), None, 1, 1), atol=1e-10)


def test_plain_values_where_tensors_belong():
    w = _x(4, 3, 3, 3, 3)
    for call, msg in [
        # conv3d has two overloads (padding as ints or as a string): PyTorch's parser lists both
        (
            lambda: F.conv3d([1, 2], w),
            "conv3d() received an invalid combination of arguments - got (list, Tensor)",
        ),
        (lambda: F.max_pool3d(3, 2), "max_pool3d(): argument 'input' (position 1) must be Tensor, not int"),
        (
            lambda: F.conv_transpose3d(_x(1, 4, 2, 2, 2), None),
            "conv_transpose3d(): argument 'weight' (position 2)",
        ),
        (
            lambda: F.max_unpool3d(_x(1, 1, 2, 2, 2), [1], 2),
            "max_unpool3d(): argument 'indices' (position 2)",
        ),
    ]:
        with pytest.raises(TypeError, match=re.escape(msg)):
            call()


# --------------------------------------------------------------------------------------- bad inputs
def _x(*shape, dtype=minitorch.float32):
    return minitorch.zeros(shape, dtype=dtype)


X = _x(2, 3, 6, 6, 6)
W = _x(4, 3, 3, 3, 3)
WT = _x(3, 4, 3, 3, 3)

# (call, exception class, PyTorch 2.15's message for the same call)
BAD = [
    (lambda: F.conv3d(_x(3, 6, 6), W), RuntimeError,
     "Expected 4D (unbatched) or 5D (batched) input to conv3d, but got input of size: [3, 6, 6]"),
    (lambda: F.conv3d(_x(1, 2, 3, 6, 6, 6), W), RuntimeError,
     "Expected 4D (unbatched) or 5D (batched) input to conv3d, but got input of size: [1, 2, 3, 6, 6, 6]"),
    (lambda: F.conv3d(X, _x(4, 3, 3, 3)), RuntimeError,
     ("expected stride to be a single integer value or a list of 2 values to match the convolution dimensions, "
     "but got stride=[1, 1, 1]")),
    (lambda: F.conv3d(X, _x(4, 3)), RuntimeError, "weight should have at least three dimensions"),
    (lambda: F.conv3d(_x(2, 5, 6, 6, 6), W), RuntimeError,
     ("Given groups=1, weight of size [4, 3, 3, 3, 3], expected input[2, 5, 6, 6, 6] to have 3 channels, but got 5 "
     "channels instead")),
    (lambda: F.conv3d(_x(2, 6, 6, 6, 6), W, groups=3), RuntimeError,
     ("Given groups=3, expected weight to be divisible by 3 at dimension 0, but got weight of size "
     "[[4, 3, 3, 3, 3]] instead")),
    (lambda: F.conv3d(X, _x(0, 3, 3, 3, 3)), RuntimeError,
     "Given groups=1, expected weight to be at least 1 at dimension 0, but got weight of size [0, 3, 3, 3, 3] instead"),
    (lambda: F.conv3d(X, W, groups=0), RuntimeError, "non-positive groups is not supported"),
    (lambda: F.conv3d(X, W, _x(5)), RuntimeError,
     ("Given weight of size [4, 3, 3, 3, 3], expected bias to be 1-dimensional with 4 elements, but got bias of "
     "size [5] instead")),
    (lambda: F.conv3d(_x(2, 3, 2, 6, 6), W), RuntimeError,
     ("Calculated padded input size per channel: (2 x 6 x 6). Kernel size: (3 x 3 x 3). Kernel size can't be "
     "greater than actual input size")),
    (lambda: F.conv3d(X, W, stride=0), RuntimeError, "non-positive stride is not supported"),
    (lambda: F.conv3d(X, W, padding=-1), RuntimeError, "negative padding is not supported"),
    (lambda: F.conv3d(X, W, dilation=0), RuntimeError, "non-positive dilation is not supported"),
    (lambda: F.conv3d(X, W, dilation=-1), RuntimeError, "dilation should be greater than zero"),
    (lambda: F.conv3d(X, W, stride=(1, 1)), RuntimeError,
     ("expected stride to be a single integer value or a list of 3 values to match the convolution dimensions, "
     "but got stride=[1, 1]")),
    (lambda: F.conv3d(X, W, padding=(1, 1)), RuntimeError,
     ("expected padding to be a single integer value or a list of 3 values to match the convolution dimensions, "
     "but got padding=[1, 1]")),
    (lambda: F.conv3d(X, W, stride=2, padding="same"), RuntimeError,
     "padding='same' is not supported for strided convolutions"),
    (lambda: F.conv3d(X, W, padding="foo"), RuntimeError, "Invalid padding string: 'foo'"),
    (lambda: F.conv3d(X, W, stride=(1, 1), padding="same"), RuntimeError, "stride cannot broadcast to 3 dimensions"),
    (lambda: F.conv3d(X, W.double()), RuntimeError,
     ("Input type (torch.FloatTensor) and weight type (torch.DoubleTensor) should be the same or input should be a "
     "MKLDNN tensor and weight is a dense tensor")),
    (lambda: F.conv3d(X.double(), W), RuntimeError, "expected scalar type Double but found Float"),
    (lambda: F.conv3d(X, W, _x(4, dtype=minitorch.float64)), RuntimeError,
     "Input type (float) and bias type (double) should be the same"),
    (lambda: F.conv3d(X.long(), W), RuntimeError, "expected scalar type Long but found Float"),
    (lambda: F.conv3d(X.bool(), W.bool()), NotImplementedError, "\"compute_columns3d\" not implemented for 'Bool'"),
    (lambda: F.conv3d(_x(1, 3, 4, 0, 6), W[:, :, :1, :1, :1], padding=1), RuntimeError,
     "Only zero batch or zero channel inputs are supported, but got input shape: [1, 3, 4, 0, 6]"),
    (lambda: F.conv3d(X, W, stride=1.5), TypeError, "conv3d()"),
    (lambda: F.conv_transpose3d(_x(3, 6, 6), WT), RuntimeError,
     "Expected 4D (unbatched) or 5D (batched) input to conv_transpose3d, but got input of size: [3, 6, 6]"),
    (lambda: F.conv_transpose3d(_x(2, 5, 6, 6, 6), WT), RuntimeError,
     ("Given transposed=1, weight of size [3, 4, 3, 3, 3], expected input[2, 5, 6, 6, 6] to have 3 channels, but "
     "got 5 channels instead")),
    (lambda: F.conv_transpose3d(X, WT, _x(3)), RuntimeError,
     ("Given transposed=1, weight of size [3, 4, 3, 3, 3], expected bias to be 1-dimensional with 4 elements, but "
     "got bias of size [3] instead")),
    (lambda: F.conv_transpose3d(X, WT, stride=(1, 2, 2), output_padding=(1, 0, 0)), RuntimeError,
     ("output padding must be smaller than either stride or dilation, but got output_padding_depth: 1 "
     "output_padding_height: 0 output_padding_width: 0 stride_depth: 1 stride_height: 2 stride_width: 2 "
     "dilation_depth: 1 dilation_height: 1 dilation_width: 1")),
    (lambda: F.conv_transpose3d(_x(1, 3, 1, 1, 1), WT, padding=2), RuntimeError,
     ("Given input size per channel: (1 x 1 x 1). Calculated output size per channel: (-1 x -1 x -1). Output size "
     "is too small")),
    (lambda: F.conv_transpose3d(X, WT, output_padding=-1), RuntimeError, "negative output_padding is not supported"),
    (lambda: F.conv_transpose3d(X, WT, padding="same"), TypeError,
     "conv_transpose3d(): argument 'padding' must be tuple of ints, not str"),
    (lambda: F.conv_transpose3d(X.double(), WT), RuntimeError, "expected scalar type Double but found Float"),
    (lambda: F.conv_transpose3d(X, WT, _x(4, dtype=minitorch.float64)), RuntimeError,
     ("Input type (torch.FloatTensor) and bias type (torch.DoubleTensor) should be the same or input should be a "
     "MKLDNN tensor and bias is a dense tensor")),
    (lambda: F.conv_transpose3d(X.int(), WT.int()), NotImplementedError,
     "\"slow_conv_transpose3d_out_cpu\" not implemented for 'Int'"),
    (lambda: F.max_pool3d(_x(3, 6, 6), 2), RuntimeError, "non-empty 4D or 5D (batch mode) tensor expected for input"),
    (lambda: F.max_pool3d(X, 3, padding=2), RuntimeError,
     "pad should be at most half of effective kernel size, but got pad=2, kernel_size=3 and dilation=1"),
    (lambda: F.max_pool3d(_x(1, 1, 9, 9, 9), 3, 1, 2, 3), RuntimeError,
     "pad should be smaller than or equal to half of kernel size, but got kT: 3 kW: 3 kH: 3 padT: 2 padW: 2 padH: 2"),
    (lambda: F.max_pool3d(X, 0), RuntimeError, "stride should not be zero"),
    (lambda: F.max_pool3d(X, 0, 1), RuntimeError, "kernel size should be greater than zero, but got kT: 0 kH: 0 kW: 0"),
    (lambda: F.max_pool3d(X, 2, -1), RuntimeError, "stride should be greater than zero, but got dT: -1 dH: -1 dW: -1"),
    (lambda: F.max_pool3d(X, 2, dilation=0), RuntimeError,
     "dilation should be greater than zero, but got dilationT: 0 dilationH: 0 dilationW: 0"),
    (lambda: F.max_pool3d(_x(1, 1, 1, 6, 6), 2), RuntimeError,
     "Given input size: (1x1x6x6). Calculated output size: (1x0x3x3). Output size is too small"),
    (lambda: F.max_pool3d(X, (2, 2)), RuntimeError,
     "max_pool3d: kernel_size must either be a single int, or a tuple of three ints"),
    (lambda: F.max_pool3d(X, 2, (1, 1)), RuntimeError,
     "max_pool3d: stride must either be omitted, a single int, or a tuple of three ints"),
    (lambda: F.max_pool3d(X, 2, 2, -1), RuntimeError, "pad must be non-negative, but got pad: -1"),
    (lambda: F.max_pool3d(X.bool(), 2), NotImplementedError, "\"max_pool3d\" not implemented for 'Bool'"),
    (lambda: F.max_pool3d(_x(2, 0, 6, 6, 6), 2), RuntimeError,
     ("max_pool3d_with_indices_out_cpu_template(): Expected input to have non-zero size for non-batch dimensions, "
     "but input has sizes [2, 0, 6, 6, 6] with dimension 1 being empty")),
    (lambda: F.avg_pool3d(_x(1, 1, 6, 1, 6), 2, padding=1), RuntimeError,
     "input image (T: 6 H: 1 W: 6) smaller than kernel size (kT: 2 kH: 2 kW: 2)"),
    (lambda: F.avg_pool3d(X, 2, divisor_override=0), RuntimeError, "divisor must be not zero"),
    (lambda: F.avg_pool3d(X, 2, divisor_override=2.5), TypeError,
     "avg_pool3d(): argument 'divisor_override' must be int, not float"),
    (lambda: F.avg_pool3d(X, (2, 2)), RuntimeError, "avg_pool3d: kernel_size must be a single int, or a tuple of three ints"),
    (lambda: F.avg_pool3d(X.int(), 2), NotImplementedError, "\"avg_pool3d_out_frame\" not implemented for 'Int'"),
    (lambda: F.avg_pool3d(X.half(), 2), NotImplementedError, "\"avg_pool3d_out_frame\" not implemented for 'Half'"),
    (lambda: F.avg_pool3d(_x(2, 3, 0, 6, 6), 2), RuntimeError,
     ("avg_pool3d(): Expected input to have non-zero size for non-batch dimensions, but input has sizes "
     "[2, 3, 0, 6, 6] with dimension 2 being empty")),
    (lambda: F.adaptive_avg_pool3d(_x(3, 6, 6), 2), RuntimeError,
     "adaptive_avg_pool3d(): Expected 4D or 5D tensor, but got [3, 6, 6]"),
    (lambda: F.adaptive_avg_pool3d(X, (1, -2, 3)), RuntimeError,
     "adaptive_avg_pool3d: elements of output_size must be greater than or equal to 0 but received {1, -2,3}"),
    (lambda: F.adaptive_avg_pool3d(X, (2, 2)), RuntimeError, "adaptive_avg_pool3d: output_size must be 3"),
    (lambda: F.adaptive_avg_pool3d(_x(3, 6, 6), (2, 2, None)), ValueError, "Input dimension should be at least 4"),
    (lambda: F.adaptive_avg_pool3d(X.long(), 2), NotImplementedError,
     "\"adaptive_avg_pool3d_cpu\" not implemented for 'Long'"),
    (lambda: F.adaptive_max_pool3d(_x(3, 6, 6), 2), RuntimeError,
     "adaptive_max_pool3d(): Expected 4D or 5D tensor, but got: [3, 6, 6]"),
    (lambda: F.adaptive_max_pool3d(X, (1, -2, 3)), RuntimeError,
     "Trying to create tensor with negative dimension -2: [2, 3, 1, -2, 3]"),
    (lambda: F.adaptive_max_pool3d(_x(2, 3, 0, 6, 6), 2), RuntimeError,
     ("adaptive_max_pool3d(): Expected input to have non-zero size for non-batch dimensions, but input has sizes "
     "[2, 3, 0, 6, 6] with dimension 2 being empty")),
    (lambda: F.adaptive_max_pool3d(X.int(), 2), NotImplementedError,
     "\"adaptive_max_pool3d_cpu\" not implemented for 'Int'"),
    (lambda: F.max_unpool3d(_x(3, 6, 6), _x(3, 6, 6, dtype=minitorch.int64), 2), RuntimeError,
     "Input to max_unpooling3d should be a 4d or 5d Tensor, but got a tensor with 3 dimensions."),
    (lambda: F.max_unpool3d(_x(1, 1, 2, 2, 2), _x(1, 1, 2, 2, 2, dtype=minitorch.int32), 2), RuntimeError,
     "elements in indices should be type int64 but got: Int"),
    (lambda: F.max_unpool3d(_x(1, 1, 2, 2, 2), _x(1, 1, 2, 2, 1, dtype=minitorch.int64), 2), RuntimeError,
     ("Expected shape of indices to be same as that of the input tensor ([1, 1, 2, 2, 2]) but got indices tensor "
     "with shape: [1, 1, 2, 2, 1]")),
    (lambda: F.max_unpool3d(_x(1, 1, 2, 2, 2), minitorch.full((1, 1, 2, 2, 2), 100), 2), RuntimeError,
     "Found an invalid max index: 100 (output volumes are of size 4x4x4)"),
    (lambda: F.max_unpool3d(_x(1, 1, 3, 3, 3), _x(1, 1, 3, 3, 3, dtype=minitorch.int64), 2, output_size=(9, 7, 7)),
     ValueError, 'invalid output_size "(9, 7, 7)" (dim 0 must be between 4 and 8)'),
    (lambda: F.lp_pool3d(X, 0, 2), ValueError, "norm_type must be a non-zero value, but got 0"),
    (lambda: nn.Conv3d(3, 4, 3, groups=2), ValueError, "in_channels must be divisible by groups"),
    (lambda: nn.Conv3d(3, 4, 3, padding="same", stride=2), ValueError,
     "padding='same' is not supported for strided convolutions"),
    (lambda: nn.ConvTranspose3d(3, 4, 3, padding_mode="reflect"), ValueError,
     'Only "zeros" padding mode is supported for ConvTranspose3d'),
    (lambda: nn.Conv3d(3, 4, 3, padding=1, padding_mode="reflect")(_x(6, 6, 6)), NotImplementedError,
     "Padding size 6 is not supported for 3D input tensor."),
]  # fmt: skip


@pytest.mark.parametrize("i", range(len(BAD)))
def test_bad_inputs_raise_pytorch_errors(i):
    call, exc, msg = BAD[i]
    with pytest.raises(exc) as info:
        call()
    assert type(info.value) is exc
    assert str(info.value).startswith(msg), str(info.value)
