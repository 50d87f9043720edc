"""Convolution and pooling (minitorch._C._nn) against NumPy float64 references: values over strides,
paddings ('same'/'valid' included), dilations, groups, unbatched and non-contiguous inputs, each float dtype,
gradients by gradcheck, and bad inputs raising PyTorch's messages."""

import functools
import math
import os
import re
import subprocess
import sys

import numpy as np
import pytest
from conftest import DEVICES
from utils import TOL, assert_matches, cases_here_and_in_pytorch, rerun_in_child, to_np

import minitorch

F = minitorch._C._nn


# ---------------------------------------------------------------- NumPy references (float64)
def _pair(v):
    return (v, v) if isinstance(v, int) else tuple(v)


def np_conv2d(x, w, b=None, stride=1, padding=0, dilation=1, groups=1):
    """Direct conv over padded windows; padding is int, (ph, pw) or ((top, bottom), (left, right))."""
    sh, sw = _pair(stride)
    dh, dw = _pair(dilation)
    if isinstance(padding, int):
        padding = (padding, padding)
    pads = [p if isinstance(p, tuple) else (p, p) for p in padding]
    xp = np.pad(x, ((0, 0), (0, 0), pads[0], pads[1]))
    n, _, h, wd = xp.shape
    o, cg, kh, kw = w.shape
    oh = (h - dh * (kh - 1) - 1) // sh + 1
    ow = (wd - dw * (kw - 1) - 1) // sw + 1
    out = np.zeros((n, o, oh, ow))
    og = o // groups
    for g in range(groups):
        xs = xp[:, g * cg : (g + 1) * cg]
        for i in range(kh):
            for j in range(kw):
                patch = xs[
                    :, :, i * dh : i * dh + sh * (oh - 1) + 1 : sh, j * dw : j * dw + sw * (ow - 1) + 1 : sw
                ]
                out[:, g * og : (g + 1) * og] += np.einsum(
                    "nchw,oc->nohw", patch, w[g * og : (g + 1) * og, :, i, j]
                )
    if b is not None:
        out += b[None, :, None, None]
    return out


def np_conv_transpose2d(x, w, b=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    """Scatter definition: input (n, c, ih, iw) adds x * w[c, o] at (ih*s + kh*d - p, iw*s + kw*d - p)."""
    sh, sw = _pair(stride)
    ph, pw = _pair(padding)
    oph, opw = _pair(output_padding)
    dh, dw = _pair(dilation)
    n, c, h, wd = x.shape
    _, og, kh, kw = w.shape
    cg = c // groups
    fh = (h - 1) * sh + dh * (kh - 1) + 1 + oph
    fw = (wd - 1) * sw + dw * (kw - 1) + 1 + opw
    full = np.zeros((n, og * groups, fh, fw))
    for g in range(groups):
        xs = x[:, g * cg : (g + 1) * cg]
        for i in range(kh):
            for j in range(kw):
                contrib = np.einsum("nchw,co->nohw", xs, w[g * cg : (g + 1) * cg, :, i, j])
                full[
                    :,
                    g * og : (g + 1) * og,
                    i * dh : i * dh + sh * (h - 1) + 1 : sh,
                    j * dw : j * dw + sw * (wd - 1) + 1 : sw,
                ] += contrib
    out = full[:, :, ph : fh - ph, pw : fw - pw]
    if b is not None:
        out = out + b[None, :, None, None]
    return out


def _pool_out(size, k, s, p, d, ceil_mode):
    num = size + 2 * p - d * (k - 1) - 1
    out = (-(-num // s) if ceil_mode else num // s) + 1
    if ceil_mode and (out - 1) * s >= size + p:
        out -= 1
    return out


def np_max_pool2d(x, k, s=None, p=0, d=1, ceil_mode=False):
    k, s, p, d = _pair(k), _pair(s if s is not None else k), _pair(p), _pair(d)
    n, c, h, w = x.shape
    oh = _pool_out(h, k[0], s[0], p[0], d[0], ceil_mode)
    ow = _pool_out(w, k[1], s[1], p[1], d[1], ceil_mode)
    out = np.empty((n, c, oh, ow))
    idx = np.empty((n, c, oh, ow), dtype=np.int64)
    for i in range(oh):
        for j in range(ow):
            hs = [i * s[0] - p[0] + a * d[0] for a in range(k[0])]
            ws = [j * s[1] - p[1] + b * d[1] for b in range(k[1])]
            cand = [(hh, ww) for hh in hs for ww in ws if 0 <= hh < h and 0 <= ww < w]
            vals = np.stack([x[:, :, hh, ww] for hh, ww in cand], -1)
            # PyTorch's rule (`v > best || isnan(v)` in scan order): the first maximum, or the last NaN
            nan = np.isnan(vals)
            last_nan = vals.shape[-1] - 1 - np.argmax(nan[..., ::-1], -1)
            arg = np.where(nan.any(-1), last_nan, np.argmax(vals, -1))
            out[:, :, i, j] = np.take_along_axis(vals, arg[..., None], -1)[..., 0]
            flat = np.array([hh * w + ww for hh, ww in cand])
            idx[:, :, i, j] = flat[arg]
    return out, idx


def np_avg_pool2d(x, k, s=None, p=0, ceil_mode=False, count_include_pad=True, divisor_override=None):
    k, s, p = _pair(k), _pair(s if s is not None else k), _pair(p)
    n, c, h, w = x.shape
    oh = _pool_out(h, k[0], s[0], p[0], 1, ceil_mode)
    ow = _pool_out(w, k[1], s[1], p[1], 1, ceil_mode)
    out = np.empty((n, c, oh, ow))
    for i in range(oh):
        for j in range(ow):
            h0, w0 = i * s[0] - p[0], j * s[1] - p[1]
            h1, w1 = min(h0 + k[0], h + p[0]), min(w0 + k[1], w + p[1])
            size = (h1 - h0) * (w1 - w0)  # the window with padding, cut at the padded border
            a0, b0, a1, b1 = max(h0, 0), max(w0, 0), min(h1, h), min(w1, w)
            total = x[:, :, a0:a1, b0:b1].sum((2, 3))
            div = divisor_override or (size if count_include_pad else (a1 - a0) * (b1 - b0))
            out[:, :, i, j] = total / div
    return out


def np_adaptive_pool2d(x, osize, reduce):
    n, c, h, w = x.shape
    oh, ow = osize
    out = np.empty((n, c, oh, ow))
    for i in range(oh):
        for j in range(ow):
            a0, a1 = (i * h) // oh, -(-((i + 1) * h) // oh)
            b0, b1 = (j * w) // ow, -(-((j + 1) * w) // ow)
            out[:, :, i, j] = reduce(x[:, :, a0:a1, b0:b1], axis=(2, 3))
    return out


# ---------------------------------------------------------------- helpers
def rand(rng, *shape):
    return rng.uniform(-1, 1, size=shape)


def T(a, dtype=minitorch.float64, device="cpu", requires_grad=False):
    t = minitorch.tensor(a, dtype=dtype, device=device)
    if requires_grad:
        t.requires_grad_(True)
    return t


def rounded(a, dtype):
    """The values `a` takes in `dtype` (so the reference sees what the op sees)."""
    return minitorch.tensor(a, dtype=minitorch.float64).to(dtype).double().numpy()


def noncontig(a, dtype, device):
    """Same values as `a`, stored with H and W swapped (a transposed view)."""
    return minitorch.tensor(
        np.ascontiguousarray(np.swapaxes(a, -1, -2)), dtype=dtype, device=device
    ).transpose(-1, -2)


# Looser tolerance for low precision: one rounding of an output summed from K products.
CONV_TOL = {
    minitorch.float64: TOL[minitorch.float64],
    minitorch.float32: (1e-4, 1e-5),
    minitorch.float16: (1e-2, 1e-2),
    minitorch.bfloat16: (5e-2, 5e-2),
}
FLOATS = [minitorch.float32, minitorch.float64, minitorch.float16, minitorch.bfloat16]


@pytest.fixture(autouse=True)
def no_tf32():
    """cuDNN's float32 convs use TF32 by default (as PyTorch): about 1e-3 relative error, too coarse for
    float32 tolerances, so value tests run without it (test_tf32_tolerance covers the default)."""
    cudnn = minitorch.backends.cudnn
    old = cudnn.allow_tf32
    cudnn.allow_tf32 = False
    yield
    cudnn.allow_tf32 = old


# ---------------------------------------------------------------- conv2d values
CONV2D_CASES = [
    # (x shape, w shape, kwargs)
    ((2, 3, 7, 6), (4, 3, 3, 3), {}),
    ((2, 3, 7, 6), (4, 3, 3, 3), {"stride": 2, "padding": 1}),
    ((1, 4, 9, 8), (6, 2, 3, 2), {"stride": (2, 1), "padding": (1, 0), "groups": 2}),
    ((2, 2, 9, 9), (3, 2, 3, 3), {"dilation": 2, "padding": 2}),
    ((2, 2, 10, 9), (4, 2, 3, 3), {"dilation": (2, 1), "stride": (1, 3)}),
    ((3, 8, 5, 5), (16, 8, 1, 1), {}),  # 1x1 direct GEMM path
    ((2, 6, 5, 5), (6, 2, 1, 1), {"groups": 3}),  # grouped 1x1
    ((2, 4, 6, 6), (4, 1, 3, 3), {"groups": 4, "padding": 1}),  # depthwise
    ((2, 3, 6, 7), (2, 3, 5, 4), {"padding": "valid"}),
    ((2, 3, 6, 7), (2, 3, 3, 3), {"padding": "same"}),
    ((2, 3, 6, 7), (2, 3, 4, 2), {"padding": "same"}),  # odd total padding: extra on the bottom/right
    ((2, 3, 6, 7), (2, 3, 2, 3), {"padding": "same", "dilation": (3, 2)}),
    ((1, 2, 40, 40), (3, 2, 3, 3), {"padding": 1}),
]


def _ref_padding(w_shape, kwargs):
    p = kwargs.get("padding", 0)
    if p == "valid":
        return 0
    if p == "same":
        d = _pair(kwargs.get("dilation", 1))
        tot = [d[i] * (w_shape[2 + i] - 1) for i in range(2)]
        return tuple((t // 2, t - t // 2) for t in tot)
    return p


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("bias", [True, False])
@pytest.mark.parametrize("case", range(len(CONV2D_CASES)))
def test_conv2d_values(device, bias, case):
    xs, ws, kw = CONV2D_CASES[case]
    rng = np.random.default_rng(case)
    x, w, b = rand(rng, *xs), rand(rng, *ws), rand(rng, ws[0])
    ref_kw = dict(kw, padding=_ref_padding(ws, kw))
    expect = np_conv2d(x, w, b if bias else None, **ref_kw)
    got = F.conv2d(T(x, device=device), T(w, device=device), T(b, device=device) if bias else None, **kw)
    assert got.device.type == device
    assert_matches(got, expect)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", FLOATS)
def test_conv2d_dtypes_and_noncontiguous(device, dtype):
    rng = np.random.default_rng(1)
    x = rounded(rand(rng, 2, 4, 8, 7), dtype)
    w = rounded(rand(rng, 6, 2, 3, 3), dtype)
    b = rounded(rand(rng, 6), dtype)
    expect = np_conv2d(x, w, b, stride=(1, 2), padding=1, groups=2)
    got = F.conv2d(
        noncontig(x, dtype, device), noncontig(w, dtype, device), T(b, dtype, device), (1, 2), 1, 1, 2
    )
    assert got.dtype == dtype
    rtol, atol = CONV_TOL[dtype]
    assert_matches(got, expect, rtol=rtol, atol=atol)


@pytest.mark.parametrize("device", DEVICES)
def test_conv2d_unbatched_and_empty(device):
    rng = np.random.default_rng(2)
    x, w = rand(rng, 3, 6, 6), rand(rng, 2, 3, 3, 3)
    got = F.conv2d(T(x, device=device), T(w, device=device), padding=1)
    assert tuple(got.shape) == (2, 6, 6)
    assert_matches(got, np_conv2d(x[None], w, padding=1)[0])
    empty = F.conv2d(minitorch.zeros(0, 3, 6, 6, dtype=minitorch.float64, device=device), T(w, device=device))
    assert tuple(empty.shape) == (0, 2, 4, 4)


@pytest.mark.parametrize("device", DEVICES)
def test_conv1d_values(device):
    rng = np.random.default_rng(3)
    for xs, ws, kw in [
        ((2, 4, 11), (6, 2, 3), {"stride": 2, "padding": 1, "groups": 2}),
        ((2, 3, 10), (5, 3, 4), {"dilation": 2}),
        ((3, 10), (2, 3, 4), {"padding": "same"}),  # unbatched, odd total padding
        ((2, 3, 10), (2, 3, 1), {}),
    ]:
        x, w, b = rand(rng, *xs), rand(rng, *ws), rand(rng, ws[0])
        batched = len(xs) == 3
        x4 = (x if batched else x[None])[:, :, None, :]
        p = kw.get("padding", 0)
        if p == "same":
            t = kw.get("dilation", 1) * (ws[2] - 1)
            p = ((0, 0), (t // 2, t - t // 2))
        else:
            p = (0, p)
        expect = np_conv2d(
            x4,
            w[:, :, None, :],
            b,
            stride=(1, kw.get("stride", 1)),
            padding=p,
            dilation=(1, kw.get("dilation", 1)),
            groups=kw.get("groups", 1),
        )[:, :, 0]
        if not batched:
            expect = expect[0]
        got = F.conv1d(T(x, device=device), T(w, device=device), T(b, device=device), **kw)
        assert_matches(got, expect)


CONVT_CASES = [
    ((2, 4, 5, 4), (4, 3, 3, 3), {}),
    ((2, 4, 5, 4), (4, 3, 3, 3), {"stride": 2, "padding": 1, "output_padding": 1}),
    (
        (1, 4, 5, 6),
        (4, 2, 3, 2),
        {"stride": (2, 3), "padding": (1, 0), "groups": 2, "output_padding": (1, 2)},
    ),
    ((2, 2, 4, 4), (2, 3, 3, 3), {"dilation": 2, "padding": 1}),
    ((2, 6, 4, 4), (6, 4, 1, 1), {}),  # 1x1 direct
]


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("case", range(len(CONVT_CASES)))
def test_conv_transpose2d_values(device, case):
    xs, ws, kw = CONVT_CASES[case]
    rng = np.random.default_rng(10 + case)
    x, w = rand(rng, *xs), rand(rng, *ws)
    b = rand(rng, ws[1] * kw.get("groups", 1))
    expect = np_conv_transpose2d(x, w, b, **kw)
    got = F.conv_transpose2d(T(x, device=device), T(w, device=device), T(b, device=device), **kw)
    assert_matches(got, expect)
    unbatched = F.conv_transpose2d(T(x[0], device=device), T(w, device=device), None, **kw)
    assert_matches(unbatched, np_conv_transpose2d(x[:1], w, None, **kw)[0])


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", FLOATS)
def test_conv_transpose_dtypes(device, dtype):
    rng = np.random.default_rng(20)
    x, w = rounded(rand(rng, 2, 4, 5, 5), dtype), rounded(rand(rng, 4, 3, 3, 3), dtype)
    got = F.conv_transpose2d(noncontig(x, dtype, device), T(w, dtype, device), None, 2, 1, 1)
    rtol, atol = CONV_TOL[dtype]
    assert_matches(got, np_conv_transpose2d(x, w, None, 2, 1, 1), rtol=rtol, atol=atol)


@pytest.mark.parametrize("device", DEVICES)
def test_conv_transpose1d_values(device):
    rng = np.random.default_rng(21)
    x, w, b = rand(rng, 2, 4, 6), rand(rng, 4, 3, 3), rand(rng, 6)
    got = F.conv_transpose1d(
        T(x, device=device),
        T(w, device=device),
        T(b, device=device),
        stride=2,
        padding=1,
        output_padding=1,
        groups=2,
        dilation=1,
    )
    expect = np_conv_transpose2d(
        x[:, :, None], w[:, :, None], b, stride=(1, 2), padding=(0, 1), output_padding=(0, 1), groups=2
    )[:, :, 0]
    assert_matches(got, expect)


def test_conv_transpose_is_adjoint_of_conv():
    # <conv(y, w), x> == <y, conv_transpose(x, w)>: the transposed conv is the adjoint of the conv
    rng = np.random.default_rng(22)
    y, w = T(rand(rng, 2, 3, 9, 8)), T(rand(rng, 4, 3, 3, 3))
    x = T(rand(rng, 2, 4, 5, 4))
    lhs = (F.conv2d(y, w, None, 2, 1) * x).sum().item()
    rhs = (y * F.conv_transpose2d(x, w, None, 2, 1, (0, 1))).sum().item()
    assert math.isclose(lhs, rhs, rel_tol=1e-10)


# ---------------------------------------------------------------- gradients
GRAD_CASES = [
    ("conv2d", (2, 4, 5, 5), (4, 2, 3, 3), {"stride": 2, "padding": 1, "groups": 2}),
    ("conv2d", (1, 2, 6, 5), (3, 2, 2, 3), {"dilation": (2, 1), "padding": "same"}),
    ("conv2d", (2, 3, 4, 4), (2, 3, 1, 1), {}),
    ("conv1d", (2, 2, 7), (3, 2, 3), {"stride": 2, "padding": 1}),
    (
        "conv_transpose2d",
        (2, 4, 3, 3),
        (4, 1, 3, 3),
        {"stride": 2, "padding": 1, "output_padding": 1, "groups": 2},
    ),
    ("conv_transpose1d", (2, 2, 4), (2, 3, 3), {"stride": 2, "dilation": 2}),
]


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("case", range(len(GRAD_CASES)))
def test_conv_gradcheck(device, case):
    name, xs, ws, kw = GRAD_CASES[case]
    rng = np.random.default_rng(30 + case)
    nb = ws[0] if not name.startswith("conv_transpose") else ws[1] * kw.get("groups", 1)
    x = T(rand(rng, *xs), device=device, requires_grad=True)
    w = T(rand(rng, *ws), device=device, requires_grad=True)
    b = T(rand(rng, nb), device=device, requires_grad=True)
    fn = getattr(F, name)
    assert minitorch.autograd.gradcheck(lambda x, w, b: fn(x, w, b, **kw), (x, w, b))


@pytest.mark.parametrize("device", DEVICES)
def test_gradgradcheck(device):
    # conv gradients are recorded ops (transposed conv, weight-gradient op), so they differentiate again
    rng = np.random.default_rng(35)
    x = T(rand(rng, 2, 4, 5, 5), device=device, requires_grad=True)
    w = T(rand(rng, 4, 2, 3, 3), device=device, requires_grad=True)
    b = T(rand(rng, 4), device=device, requires_grad=True)
    assert minitorch.autograd.gradgradcheck(lambda x, w, b: F.conv2d(x, w, b, 2, 1, 1, 2), (x, w, b))
    wt = T(rand(rng, 4, 1, 3, 3), device=device, requires_grad=True)
    xt = T(rand(rng, 2, 4, 3, 3), device=device, requires_grad=True)
    assert minitorch.autograd.gradgradcheck(lambda x, w: F.conv_transpose2d(x, w, None, 2, 1, 1, 2), (xt, wt))
    xp = T(rand(rng, 2, 2, 6, 5), device=device, requires_grad=True)
    assert minitorch.autograd.gradgradcheck(lambda x: F.avg_pool2d(x, 3, 2, 1, True, False), (xp,))
    assert minitorch.autograd.gradgradcheck(lambda x: F.adaptive_avg_pool2d(x, (3, 2)), (xp,))
    xm = T(rng.permutation(60).reshape(1, 3, 4, 5) * 0.1, device=device, requires_grad=True)
    assert minitorch.autograd.gradgradcheck(lambda x: F.max_pool2d(x, 2, 1), (xm,))


@pytest.mark.parametrize("device", DEVICES)
def test_conv_grad_values_and_partial(device):
    # only the input requires grad: the weight and bias get no gradient, the input's matches the adjoint
    rng = np.random.default_rng(40)
    x = T(rand(rng, 2, 3, 6, 6), device=device, requires_grad=True)
    w = T(rand(rng, 4, 3, 3, 3), device=device)
    F.conv2d(x, w, None, 1, 1).sum().backward()
    assert w.grad is None
    ones = np.ones((2, 4, 6, 6))
    assert_matches(x.grad, np_conv_transpose2d(ones, w.detach().cpu().numpy(), None, 1, 1))


# ---------------------------------------------------------------- pooling
MAXPOOL_CASES = [
    (3, None, 0, 1, False),
    (2, 2, 0, 1, False),
    (3, 2, 1, 1, False),
    (3, 2, 1, 1, True),
    ((3, 2), (2, 1), (1, 0), 1, True),
    (3, 1, 1, 2, False),
    (2, 3, 0, (2, 1), True),
]


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("case", range(len(MAXPOOL_CASES)))
def test_max_pool2d_values(device, case):
    k, s, p, d, ceil = MAXPOOL_CASES[case]
    rng = np.random.default_rng(50 + case)
    x = rand(rng, 2, 3, 9, 8)
    out, idx = F.max_pool2d_with_indices(T(x, device=device), k, s, p, d, ceil)
    e_out, e_idx = np_max_pool2d(x, k, s, p, d, ceil)
    assert_matches(out, e_out)
    assert idx.dtype == minitorch.int64
    np.testing.assert_array_equal(idx.cpu().numpy(), e_idx)
    assert_matches(F.max_pool2d(T(x, device=device), k, s, p, d, ceil), e_out)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", FLOATS)
def test_max_pool2d_dtypes_noncontiguous_unbatched(device, dtype):
    rng = np.random.default_rng(60)
    x = rounded(rand(rng, 3, 7, 7), dtype)
    got = F.max_pool2d(noncontig(x, dtype, device), 3, 2, 1)
    assert got.dtype == dtype
    assert_matches(got, np_max_pool2d(x[None], 3, 2, 1)[0][0])


# Without return_indices and without a gradient to save them for, the CPU kernel writes the values only (its
# windows without the index lanes and stores): every dtype it takes (integers too), NaN (the last wins), ties,
# padding, dilation, ceil_mode, channels-last and strided inputs, against the with-indices values and NumPy;
# a gradient still goes to the saved indices, and no_grad on a leaf that requires grad takes the values path.
@pytest.mark.parametrize(
    "dtype", FLOATS + [minitorch.int64, minitorch.int32, minitorch.uint8, minitorch.int8]
)
def test_max_pool2d_values_only_paths(dtype):
    rng = np.random.default_rng(64)
    x = rng.integers(0 if dtype == minitorch.uint8 else -4, 5, size=(2, 3, 9, 8)).astype(np.float64)
    if dtype.is_floating_point:
        x[0, 0, 1, 1], x[0, 0, 1, 2], x[1, 2, 4, 4] = np.nan, np.nan, -np.inf
    for k, s, p, d, ceil in MAXPOOL_CASES:
        e_out, _ = np_max_pool2d(x, k, s, p, d, ceil)
        for inp in (
            T(x, dtype),
            noncontig(x, dtype, "cpu"),
            T(x, dtype).contiguous(memory_format=minitorch.channels_last),
            T(x[0], dtype),  # unbatched
        ):
            want = e_out if inp.dim() == 4 else e_out[0]
            got = F.max_pool2d(inp, k, s, p, d, ceil)
            assert got.dtype == dtype and got.shape == want.shape
            np.testing.assert_array_equal(got.double().numpy(), rounded(want, dtype))
            np.testing.assert_array_equal(
                got.double().numpy(), F.max_pool2d_with_indices(inp, k, s, p, d, ceil)[0].double().numpy()
            )
            if inp.dim() == 4 and dtype.is_floating_point:  # (PyTorch's max_pool1d takes floats only)
                np.testing.assert_array_equal(
                    F.max_pool1d(inp[:, :, 0], k if isinstance(k, int) else k[1], 1, 0).double().numpy(),
                    np_max_pool2d(x[:, :, :1], (1, k if isinstance(k, int) else k[1]), 1)[0][:, :, 0],
                )
    assert F.max_pool2d(minitorch.empty(0, 3, 8, 8, dtype=dtype), 2).shape == (0, 3, 4, 4)
    if dtype.is_floating_point:
        assert F.max_pool1d(minitorch.empty(0, 3, 8, dtype=dtype), 2).shape == (0, 3, 4)


def test_max_pool_values_only_keeps_gradients():
    rng = np.random.default_rng(65)
    x = rng.permutation(2 * 3 * 9 * 8).reshape(2, 3, 9, 8) / 7.0
    e_out, e_idx = np_max_pool2d(x, 3, 2, 1)
    leaf = T(x, requires_grad=True)
    out = F.max_pool2d(leaf, 3, 2, 1)
    assert out.requires_grad and out.grad_fn is not None
    w = rng.standard_normal(out.shape)
    out.backward(T(w))
    want = np.zeros_like(x)
    for i in np.ndindex(*e_idx.shape):
        want[i[0], i[1]].reshape(-1)[e_idx[i]] += w[i]
    np.testing.assert_allclose(leaf.grad.numpy(), want, rtol=1e-12)
    assert minitorch.autograd.gradcheck(lambda t: F.max_pool2d(t, 3, 2, 1), (leaf.detach().requires_grad_(),))
    assert minitorch.autograd.gradcheck(
        lambda t: F.max_pool1d(t, 3, 1, 1), (leaf.detach()[:, :, 0].requires_grad_(),)
    )
    with minitorch.no_grad():
        got = F.max_pool2d(leaf, 3, 2, 1)
        got1 = F.max_pool1d(leaf[:, :, 0], 3, 1, 1)
    assert not got.requires_grad and got.grad_fn is None and not got1.requires_grad
    np.testing.assert_array_equal(got.numpy(), e_out)
    np.testing.assert_array_equal(got1.numpy(), np_max_pool2d(x[:, :, :1], (1, 3), 1, (0, 1))[0][:, :, 0])


@pytest.mark.parametrize("device", DEVICES)
def test_max_pool_nan_and_ties(device):
    x = np.array([[[[1.0, 5.0, 5.0, 0.0], [float("nan"), 2.0, 1.0, 1.0]]]])
    out, idx = F.max_pool2d_with_indices(T(x, device=device), 2, 2)
    got = out.cpu().numpy()
    assert np.isnan(got[0, 0, 0, 0]) and got[0, 0, 0, 1] == 5.0
    assert idx.cpu().numpy().tolist() == [[[[4, 2]]]]  # NaN wins; the first of equal maxima wins


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize(
    "shape",
    [(2, 3, 8, 16), (2, 3, 9, 19), (2, 3, 5, 8), (2, 3, 7, 7), (1, 2, 4, 3), (2, 3, 3, 2), (0, 3, 8, 8)],
)
@pytest.mark.parametrize("ceil", [False, True])
def test_max_pool2d_2x2_float32(device, shape, ceil):
    # float32 2x2/2 takes the CPU's four-windows-per-step path: NaN, ties, -inf and +-0 at every window
    # position, widths with and without a remainder, ceil_mode's partial windows, a non-contiguous input
    rng = np.random.default_rng(62)
    n, _, h, w = shape
    x = rng.integers(-3, 3, size=shape).astype(np.float32)  # small integers: many ties
    specials = [np.nan, -np.inf, np.inf, -0.0, 0.0]
    flat = x.reshape(-1)
    if flat.size:
        pos = rng.choice(flat.size, size=min(flat.size, 12), replace=False)
        flat[pos] = [specials[i % len(specials)] for i in range(pos.size)]
    if n and h >= 2 and w >= 2:
        x[0, 0, :2, :2] = -np.inf  # a window of -inf only
        x[0, 1, :2, :2] = [[1.0, np.nan], [np.nan, 2.0]]  # the last NaN wins, as PyTorch
    e_out, e_idx = np_max_pool2d(x.astype(np.float64), 2, 2, 0, 1, ceil) if n else (None, None)
    for inp in (T(x, minitorch.float32, device), noncontig(x, minitorch.float32, device)):
        out, idx = F.max_pool2d_with_indices(inp, 2, 2, 0, 1, ceil)
        assert out.dtype == minitorch.float32
        if e_out is None:
            assert out.shape == (0, 3, 4, 4) and idx.shape == (0, 3, 4, 4)
            continue
        np.testing.assert_array_equal(out.cpu().numpy(), e_out.astype(np.float32))
        np.testing.assert_array_equal(idx.cpu().numpy(), e_idx)
        np.testing.assert_array_equal(
            F.max_pool2d(inp, 2, 2, 0, 1, ceil).cpu().numpy(), e_out.astype(np.float32)
        )


@pytest.mark.parametrize("device", DEVICES)
def test_max_pool1d_values(device):
    rng = np.random.default_rng(61)
    x = rand(rng, 2, 3, 11)
    out, idx = F.max_pool1d_with_indices(T(x, device=device), 3, 2, 1, 1, True)
    e_out, e_idx = np_max_pool2d(x[:, :, None], (1, 3), (1, 2), (0, 1), 1, True)
    assert_matches(out, e_out[:, :, 0])
    np.testing.assert_array_equal(idx.cpu().numpy(), e_idx[:, :, 0])
    assert_matches(F.max_pool1d(T(x[0], device=device), 2), np_max_pool2d(x[:1, :, None], (1, 2))[0][0, :, 0])


# max_pool1d's row kernel (one input row per plane): selects instead of the 2-D loop's branch, the float 2/2
# window four outputs per SSE step, the vector lanes of kernels/cpu/pool.cpp's max_pool_lanes (two or four
# doubles, eight floats at AVX2). Ties, NaN (the last wins), -inf and +-0 at every position; widths with and
# without a remainder of each vector step; padding, dilation and ceil_mode's partial windows.
POOL1D_CASES = [(2, 2, 0, 1, False), (2, 2, 0, 1, True), (3, 1, 0, 1, False), (3, 2, 1, 1, True)]
POOL1D_CASES += [(4, 4, 2, 1, False), (2, 1, 1, 2, True), (5, 3, 2, 2, False), (1, 1, 0, 1, False)]
# the stride-2 taps deinterleaved from two loads (one element read past a window: rows ending there), the
# 4-wide stride-4 windows transposed from four loads
POOL1D_CASES += [(3, 2, 0, 1, False), (2, 2, 1, 2, False), (4, 2, 0, 1, True), (4, 4, 0, 1, False)]


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("width", [8, 19, 64, 2, 35, 40, 203])
def test_max_pool1d_row_kernel(device, dtype, width):
    NF = minitorch.nn.functional  # the Python entry: the plain case and return_indices alike
    rng = np.random.default_rng(63)
    x = rng.integers(-3, 3, size=(2, 3, width)).astype(np.float64)  # small integers: many ties
    specials = [np.nan, -np.inf, np.inf, -0.0, 0.0]
    flat = x.reshape(-1)
    pos = rng.choice(flat.size, size=min(flat.size, 10), replace=False)
    flat[pos] = [specials[i % len(specials)] for i in range(pos.size)]
    x[0, 0, :2] = [np.nan, np.nan]  # two NaNs in one window: the last one's index
    x[0, 1, :2] = [-np.inf, -np.inf]
    for k, s, p, d, ceil in POOL1D_CASES:
        if (width + 2 * p - d * (k - 1) - 1) < 0:
            continue
        e_out, e_idx = np_max_pool2d(x[:, :, None], (1, k), (1, s), (0, p), (1, d), ceil)
        for inp in (T(x, dtype, device), T(np.repeat(x, 2, axis=2), dtype, device)[:, :, ::2]):
            out, idx = NF.max_pool1d(inp, k, s, p, d, ceil, return_indices=True)
            assert out.dtype == dtype
            np.testing.assert_array_equal(out.cpu().double().numpy(), e_out[:, :, 0])
            np.testing.assert_array_equal(idx.cpu().numpy(), e_idx[:, :, 0])
            np.testing.assert_array_equal(
                NF.max_pool1d(inp, k, s, p, d, ceil).cpu().double().numpy(), e_out[:, :, 0]
            )
        noncontig1 = T(np.ascontiguousarray(x.transpose(0, 2, 1)), dtype, device).transpose(1, 2)
        out = NF.max_pool1d(noncontig1, k, s, p, d, ceil)
        np.testing.assert_array_equal(out.cpu().double().numpy(), e_out[:, :, 0])
    # the gradient goes to the first maximum of each window (indices), accumulated where windows overlap
    g = T(x, device=device, requires_grad=True)
    kg = min(3, width)
    out = NF.max_pool1d(g, kg, 1)
    w = rng.standard_normal(out.shape)
    out.backward(T(w, device=device))
    _, e_idx = np_max_pool2d(x[:, :, None], (1, kg), (1, 1))
    want = np.zeros_like(x)
    for i in np.ndindex(*e_idx[:, :, 0].shape):
        want[i[0], i[1], e_idx[i[0], i[1], 0, i[2]]] += w[i]
    np.testing.assert_allclose(g.grad.cpu().numpy(), want, rtol=1e-12)
    if width > 2 and dtype == minitorch.float64:
        distinct = T(
            rng.permutation(2 * 3 * width).reshape(2, 3, width) / 7.0, device=device, requires_grad=True
        )
        assert minitorch.autograd.gradcheck(lambda t: NF.max_pool1d(t, 2, 2), (distinct,))
    assert NF.max_pool1d(minitorch.empty(0, 3, width, dtype=dtype, device=device), 2).shape[:2] == (0, 3)


# the row kernel's vector lanes at each capability (read once per process): the baseline (SSE2: the float
# windows' SSE paths, float64 in two lanes) and AVX2 (float64 in four, float32 in eight); AVX-512 CPUs run the
# AVX2 copies, which the parent process checks
@pytest.mark.parametrize("cap", ["default", "avx2"])
def test_max_pool1d_lanes_at_each_capability(cap):
    rerun_in_child(__file__, "max_pool1d_row_kernel and cpu", MINITORCH_CPU_CAPABILITY=cap)


AVGPOOL_CASES = [
    (3, None, 0, False, True, None),
    (3, 2, 1, False, True, None),
    (3, 2, 1, False, False, None),
    (3, 2, 1, True, True, None),
    (3, 2, 1, True, False, None),
    ((2, 3), (1, 2), (1, 1), True, True, 5),
    (2, 1, 0, False, True, 3),
]


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("case", range(len(AVGPOOL_CASES)))
def test_avg_pool2d_values(device, case):
    k, s, p, ceil, cip, div = AVGPOOL_CASES[case]
    rng = np.random.default_rng(70 + case)
    x = rand(rng, 2, 3, 8, 9)
    got = F.avg_pool2d(T(x, device=device), k, s, p, ceil, cip, div)
    assert_matches(got, np_avg_pool2d(x, k, s, p, ceil, cip, div))


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", FLOATS)
def test_avg_pool_dtypes(device, dtype):
    rng = np.random.default_rng(80)
    x = rounded(rand(rng, 2, 3, 8, 8), dtype)
    got = F.avg_pool2d(noncontig(x, dtype, device), 3, 2, 1)
    rtol, atol = CONV_TOL[dtype]
    assert_matches(got, np_avg_pool2d(x, 3, 2, 1), rtol=rtol, atol=atol)
    got1 = F.avg_pool1d(T(x[:, :, 0], dtype, device), 3, 2, 1, True, False)
    expect1 = np_avg_pool2d(x[:, :, :1], (1, 3), (1, 2), (0, 1), True, False)[:, :, 0]
    assert_matches(got1, expect1, rtol=rtol, atol=atol)


@pytest.mark.parametrize("case", range(len(AVGPOOL_CASES)))
def test_avg_pool_int64_truncates(case):
    # PyTorch's CPU kernel takes int64: each window's integer sum divided with C++'s truncation toward zero
    k, s, p, ceil, cip, div = AVGPOOL_CASES[case]
    rng = np.random.default_rng(170 + case)
    x = rng.integers(-50, 50, (2, 3, 8, 9))
    got = F.avg_pool2d(minitorch.tensor(x), k, s, p, ceil, cip, div)
    sums = np_avg_pool2d(x.astype(np.float64), k, s, p, ceil, cip, 1)  # divisor 1: the window sums
    ones = np.ones(x.shape)
    divisors = np_avg_pool2d(ones, k, s, p, ceil, cip, 1) / np_avg_pool2d(ones, k, s, p, ceil, cip, div)
    assert got.dtype == minitorch.int64
    np.testing.assert_array_equal(got.numpy(), np.trunc(sums / divisors).astype(np.int64))
    got1 = F.avg_pool1d(minitorch.tensor(x[:, :, 0]), 3, 2, 1)
    want1 = np.trunc(np_avg_pool2d(x[:, :, :1].astype(np.float64), (1, 3), (1, 2), (0, 1))[:, :, 0])
    np.testing.assert_array_equal(got1.numpy(), want1.astype(np.int64))


def test_avg_pool_refuses_other_integers():
    for dtype, name in ((minitorch.int32, "Int"), (minitorch.uint8, "Byte"), (minitorch.bool, "Bool")):
        with pytest.raises(NotImplementedError, match=f"\"avg_pool2d\" not implemented for '{name}'"):
            F.avg_pool2d(minitorch.zeros(1, 1, 4, 4, dtype=dtype), 2)
    with pytest.raises(RuntimeError, match="only floating point|not implemented for 'Long'|could not infer"):
        F.adaptive_avg_pool2d(minitorch.zeros(1, 1, 4, 4, dtype=minitorch.int64), 1)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("osize", [(3, 4), (1, 1), (5, 7), (8, 9), (2, None)])
def test_adaptive_pool2d_values(device, osize):
    rng = np.random.default_rng(90)
    x = rand(rng, 2, 3, 8, 9)
    full = (osize[0], 9 if osize[1] is None else osize[1])
    assert_matches(F.adaptive_avg_pool2d(T(x, device=device), osize), np_adaptive_pool2d(x, full, np.mean))
    out, idx = F.adaptive_max_pool2d(T(x, device=device), osize)
    assert_matches(out, np_adaptive_pool2d(x, full, np.max))
    # the indices name the maxima
    flat = x.reshape(2, 3, -1)
    np.testing.assert_array_equal(
        np.take_along_axis(flat, idx.cpu().numpy().reshape(2, 3, -1), 2), out.cpu().numpy().reshape(2, 3, -1)
    )


@pytest.mark.parametrize("device", DEVICES)
def test_adaptive_pool1d_and_unbatched(device):
    rng = np.random.default_rng(91)
    x = rand(rng, 3, 10)
    got = F.adaptive_avg_pool1d(T(x, device=device), 4)
    assert_matches(got, np_adaptive_pool2d(x[None, :, None], (1, 4), np.mean)[0, :, 0])
    got2 = F.adaptive_avg_pool2d(T(x[None], device=device), 1)  # unbatched (C, H, W)
    assert tuple(got2.shape) == (1, 1, 1)
    assert_matches(got2, np.full((1, 1, 1), x.mean()))


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", [minitorch.float32, minitorch.float64])
# (L, output size): windows that tile the row (the CPU's max_pool1d lanes: 16 windows of 8, 40 of 3 (sixteen
# at a time and a tail), one of 37, L itself of 1) and, beside them, windows that overlap (10 -> 4)
@pytest.mark.parametrize("lo", [(128, 16), (120, 40), (37, 1), (33, 33), (10, 4)], ids=str)
def test_adaptive_max_pool1d_values_indices_and_grad(device, dtype, lo):
    """adaptive_max_pool1d against NumPy: values, indices (the first maximum; a NaN wins, the last NaN's
    index), batched, unbatched and strided inputs, an empty batch, and the gradient by gradcheck."""
    L, o = lo
    NF = minitorch.nn.functional  # (F here is the bound module, whose max pools return the indices too)
    rng = np.random.default_rng(93)
    # few distinct values, so windows hold ties (the first one's index is PyTorch's)
    x = rng.integers(-3, 4, size=(2, 5, L)).astype(np.float64)
    x[0, 1, L // 2] = np.nan
    x[1, 2, :: max(1, L // 5)] = np.nan
    xm = T(x, dtype, device)

    def expect(a):
        vals = np.empty(a.shape[:-1] + (o,))
        idx = np.empty(a.shape[:-1] + (o,), dtype=np.int64)
        for j in range(o):
            w0, w1 = (j * L) // o, -(-((j + 1) * L) // o)
            win = a[..., w0:w1]
            nan = np.isnan(win)
            last_nan = w1 - 1 - np.argmax(nan[..., ::-1], -1)
            first_max = w0 + np.argmax(np.where(nan, -np.inf, win), -1)
            has_nan = nan.any(-1)
            idx[..., j] = np.where(has_nan, last_nan, first_max)
            vals[..., j] = np.take_along_axis(a, idx[..., j : j + 1], -1)[..., 0]
        return vals, idx

    for inp, ref in ((xm, x), (xm[1], x[1]), (xm.transpose(0, 1).contiguous().transpose(0, 1), x)):
        out, idx = NF.adaptive_max_pool1d(inp, o, return_indices=True)
        ev, ei = expect(ref)
        np.testing.assert_array_equal(to_np(idx), ei)
        np.testing.assert_array_equal(to_np(out).astype(np.float64), ev)
        np.testing.assert_array_equal(to_np(NF.adaptive_max_pool1d(inp, o)).astype(np.float64), ev)
    # a strided last dim (every other value of a row twice as long)
    wide = rng.standard_normal((3, 4, 2 * L))
    sm = T(wide, minitorch.float64, device)[..., ::2]
    ev, ei = expect(wide[..., ::2])
    out, idx = NF.adaptive_max_pool1d(sm, o, return_indices=True)
    np.testing.assert_array_equal(to_np(idx), ei)
    assert_matches(out, ev)
    empty = NF.adaptive_max_pool1d(minitorch.zeros(0, 3, L, device=device), o)
    assert tuple(empty.shape) == (0, 3, o)
    if dtype == minitorch.float64:
        g = T(rng.standard_normal((2, 3, L)), device=device, requires_grad=True)  # distinct values
        assert minitorch.autograd.gradcheck(lambda a: NF.adaptive_max_pool1d(a, o), (g,))


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", [minitorch.float32, minitorch.float64])
def test_adaptive_avg_pool1d_to_one_of_contiguous_inputs(device, dtype):
    """adaptive_avg_pool1d(x, 1) of a contiguous input (the mean reduction, as ATen's 1 x 1 shortcut): values
    against float64 NumPy, batched and unbatched, rows long and short, PyTorch's contiguous output, an empty
    batch, and the gradient by gradcheck."""
    NF = minitorch.nn.functional
    rng = np.random.default_rng(94)
    tol = {"rtol": 1e-6, "atol": 1e-6} if dtype == minitorch.float32 else {}
    for shape in ((4, 6, 1024), (3, 7), (2, 5, 1), (6, 300)):
        xm = T(rand(rng, *shape), dtype, device)
        got = NF.adaptive_avg_pool1d(xm, 1)
        assert tuple(got.shape) == shape[:-1] + (1,) and got.is_contiguous() and got.dtype == dtype
        assert_matches(got, to_np(xm).astype(np.float64).mean(-1, keepdims=True), **tol)
    assert tuple(NF.adaptive_avg_pool1d(minitorch.zeros(0, 3, 8, dtype=dtype, device=device), 1).shape) == (
        0,
        3,
        1,
    )
    x = T(rand(rng, 2, 3, 40), device=device, requires_grad=True)
    assert minitorch.autograd.gradcheck(lambda a: NF.adaptive_avg_pool1d(a, 1), (x,))


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", [minitorch.float32, minitorch.float64])
def test_adaptive_avg_pool_to_one_of_strided_inputs(device, dtype):
    """Pooling to size 1 a non-contiguous input (a transposed unbatched 1-d one, a channels-last 2-d one, a
    stepped slice) reduces it in place: values against NumPy, PyTorch's output strides, gradients by
    gradcheck in float64."""
    rng = np.random.default_rng(92)
    x = rand(rng, 9, 6)  # (L, C): pooled as its transpose (C, L)
    tol = {"rtol": 1e-6, "atol": 1e-6} if dtype == minitorch.float32 else {}
    xt = T(x, dtype, device).t()
    got = F.adaptive_avg_pool1d(xt, 1)
    assert tuple(got.shape) == (6, 1)
    assert_matches(got, x.mean(0)[:, None], **tol)
    b = T(rand(rng, 2, 9, 6), dtype, device).transpose(1, 2)  # (N, C, L) with C fastest
    assert_matches(F.adaptive_avg_pool1d(b, [1]), to_np(b).mean(2, keepdims=True), **tol)
    assert F.adaptive_avg_pool1d(b, 1).stride() == (6, 1, 6)  # PyTorch's (channels-last in 2-d)
    s = T(rand(rng, 3, 12), dtype, device)[:, ::3]
    assert_matches(F.adaptive_avg_pool1d(s, 1), to_np(s).mean(1, keepdims=True), **tol)
    cl = T(rand(rng, 2, 3, 4, 5), dtype, device).contiguous(memory_format=minitorch.channels_last)
    got = minitorch._C._nn.adaptive_avg_pool2d(cl, [1, 1])
    assert_matches(got, to_np(cl).mean((2, 3), keepdims=True), **tol)
    assert got.stride() == (3, 1, 3, 3)  # PyTorch's channels-last result
    xg = T(x, device=device).t().requires_grad_()
    assert minitorch.autograd.gradcheck(lambda v: F.adaptive_avg_pool1d(v, 1), (xg,))


POOL_GRAD_CASES = [
    ("max_pool2d", (2, 2, 6, 5), {"kernel_size": 3, "stride": 2, "padding": 1, "ceil_mode": True}),
    ("max_pool2d", (1, 2, 5, 5), {"kernel_size": 2, "stride": 1, "dilation": 2}),
    ("max_pool1d", (2, 3, 7), {"kernel_size": 3, "stride": 2}),
    (
        "avg_pool2d",
        (2, 2, 6, 5),
        {"kernel_size": 3, "stride": 2, "padding": 1, "ceil_mode": True, "count_include_pad": False},
    ),
    ("avg_pool2d", (1, 2, 5, 6), {"kernel_size": (2, 3), "stride": 1, "divisor_override": 4}),
    ("avg_pool1d", (2, 2, 7), {"kernel_size": 3, "stride": 2, "padding": 1}),
    ("adaptive_avg_pool2d", (2, 2, 7, 5), {"output_size": (3, 2)}),
    ("adaptive_avg_pool2d", (2, 2, 7, 5), {"output_size": 1}),  # global: through mean
    ("adaptive_avg_pool1d", (2, 2, 7), {"output_size": 4}),
    ("adaptive_max_pool2d", (2, 2, 7, 5), {"output_size": (3, 4)}),
]


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("case", range(len(POOL_GRAD_CASES)))
def test_pool_gradcheck(device, case):
    name, xs, kw = POOL_GRAD_CASES[case]
    rng = np.random.default_rng(100 + case)
    # distinct values, far apart: finite differences never flip a max
    vals = rng.permutation(np.prod(xs)).reshape(xs) * 0.1
    x = T(vals, device=device, requires_grad=True)
    fn = getattr(F, name)

    def f(x):
        r = fn(x, **kw)
        return r[0] if isinstance(r, tuple) else r

    assert minitorch.autograd.gradcheck(f, (x,))


@pytest.mark.parametrize("device", DEVICES)
def test_max_pool_grad_overlapping_windows(device):
    # stride < kernel: one input is the max of several windows and gets the sum of their gradients
    x = T(
        np.array([[[[0.0, 0.0, 0.0], [0.0, 9.0, 0.0], [0.0, 0.0, 0.0]]]]), device=device, requires_grad=True
    )
    F.max_pool2d(x, 2, 1).sum().backward()
    assert x.grad.cpu().numpy()[0, 0, 1, 1] == 4.0
    assert x.grad.cpu().numpy().sum() == 4.0


@pytest.mark.parametrize("device", DEVICES)
def test_empty_batch(device):
    # zero images: empty results of the right shape, and zero gradients for the parameters
    x = minitorch.zeros(0, 3, 8, 8, dtype=minitorch.float64, device=device).requires_grad_()
    w = T(np.ones((4, 3, 3, 3)), device=device, requires_grad=True)
    b = T(np.ones(4), device=device, requires_grad=True)
    y = F.conv2d(x, w, b, 1, 1)
    assert tuple(y.shape) == (0, 4, 8, 8)
    y.sum().backward()
    assert tuple(x.grad.shape) == (0, 3, 8, 8)
    assert w.grad.abs().sum().item() == 0 and b.grad.abs().sum().item() == 0
    assert tuple(F.conv_transpose2d(y.detach(), w.detach(), None, 2, 1, 1).shape) == (0, 3, 16, 16)
    xp = minitorch.zeros(0, 3, 8, 8, device=device).requires_grad_()
    assert tuple(F.max_pool2d(xp, 2).shape) == (0, 3, 4, 4)
    F.avg_pool2d(xp, 3, 2, 1).sum().backward()
    assert tuple(xp.grad.shape) == (0, 3, 8, 8)
    assert tuple(F.adaptive_max_pool2d(xp, 3)[1].shape) == (0, 3, 3, 3)


@pytest.mark.parametrize("device", DEVICES)
def test_empty_spatial_input_with_batch_and_channels_is_refused(device):
    # a zero-size kernel lets an input with no positions past the size checks; PyTorch then refuses it,
    # naming the input as its kernels see it (1-d lifted to 2-d, an unbatched input batched)
    msg = "Only zero batch or zero channel inputs are supported, but got input shape: "
    z = functools.partial(minitorch.zeros, device=device)
    for call, shape in (
        (lambda: F.conv1d(z(5, 3, 0), z(5, 3, 0)), "[5, 3, 1, 0]"),
        (
            lambda: F.conv1d(z(5, 3, 0, dtype=minitorch.int32), z(5, 3, 0, dtype=minitorch.int32)),
            "[5, 3, 1, 0]",
        ),
        (lambda: F.conv2d(z(5, 3, 0, 2), z(5, 3, 0, 1)), "[5, 3, 0, 2]"),
        (lambda: F.conv2d(z(3, 0, 2), z(5, 3, 0, 1)), "[1, 3, 0, 2]"),
        (lambda: F.conv_transpose1d(z(5, 3, 0), z(3, 5, 1)), "[5, 3, 1, 0]"),
        (lambda: F.conv1d(z(5, 3, 0, requires_grad=True), z(5, 3, 0)), "[5, 3, 1, 0]"),
    ):
        with pytest.raises(RuntimeError, match=re.escape(msg + shape)):
            call()
    # no batch: an empty result, as before
    assert tuple(F.conv1d(z(0, 3, 0), z(5, 3, 0)).shape) == (0, 5, 1)


# ---------------------------------------------------------------- bad inputs
def test_conv_errors():
    x = minitorch.randn(1, 4, 8, 8)
    w = minitorch.randn(64, 3, 3, 3)
    with pytest.raises(
        RuntimeError,
        match=r"Expected 3D \(unbatched\) or 4D \(batched\) input to conv2d, but got input of size: \[4, 8\]",
    ):
        F.conv2d(minitorch.randn(4, 8), w)
    with pytest.raises(RuntimeError, match=r"Expected 2D \(unbatched\) or 3D \(batched\) input to conv1d"):
        F.conv1d(minitorch.randn(4), minitorch.randn(2, 4, 1))
    with pytest.raises(
        RuntimeError,
        match=r"Given groups=1, weight of size \[64, 3, 3, 3\], expected input\[1, 4, 8, 8\] to have 3 channels, but got 4 channels instead",
    ):
        F.conv2d(x, w)
    with pytest.raises(
        RuntimeError,
        match=r"Calculated padded input size per channel: \(2 x 2\). Kernel size: \(3 x 3\). Kernel size can't be greater than actual input size",
    ):
        F.conv2d(minitorch.randn(1, 3, 2, 2), w)
    with pytest.raises(RuntimeError, match="padding='same' is not supported for strided convolutions"):
        F.conv2d(minitorch.randn(1, 3, 8, 8), w, stride=2, padding="same")
    with pytest.raises(RuntimeError, match="Invalid padding string: 'full'"):
        F.conv2d(minitorch.randn(1, 3, 8, 8), w, padding="full")
    with pytest.raises(RuntimeError, match="expected weight to be divisible by 3"):
        F.conv2d(minitorch.randn(1, 6, 8, 8), minitorch.randn(4, 2, 3, 3), groups=3)
    with pytest.raises(
        RuntimeError, match=r"expected bias to be 1-dimensional with 64 elements, but got bias of size \[3\]"
    ):
        F.conv2d(minitorch.randn(1, 3, 8, 8), w, minitorch.randn(3))
    with pytest.raises(RuntimeError, match="negative padding is not supported"):
        F.conv2d(minitorch.randn(1, 3, 8, 8), w, padding=-1)
    with pytest.raises(RuntimeError, match="non-positive stride is not supported"):
        F.conv2d(minitorch.randn(1, 3, 8, 8), w, stride=0)
    with pytest.raises(RuntimeError, match="expected scalar type Double but found Float"):
        F.conv2d(minitorch.randn(1, 3, 8, 8, dtype=minitorch.float64), w)
    with pytest.raises(
        RuntimeError, match=r"Input type \(long int\) and bias type \(float\) should be the same"
    ):
        F.conv2d(minitorch.ones(1, 3, 8, 8, dtype=minitorch.int64), w, minitorch.ones(64))
    with pytest.raises(NotImplementedError, match="\"slow_conv2d_cpu\" not implemented for 'Bool'"):
        F.conv2d(
            minitorch.ones(1, 3, 8, 8, dtype=minitorch.bool), minitorch.ones(2, 3, 3, 3, dtype=minitorch.bool)
        )
    with pytest.raises(NotImplementedError, match="\"slow_conv_dilated<>\" not implemented for 'Int'"):
        i32 = minitorch.int32
        F.conv2d(minitorch.ones(1, 3, 8, 8, dtype=i32), minitorch.ones(2, 3, 3, 3, dtype=i32), dilation=2)
    with pytest.raises(
        NotImplementedError, match="\"slow_conv_transpose2d_out_cpu\" not implemented for 'Byte'"
    ):
        u8 = minitorch.uint8
        F.conv_transpose2d(
            minitorch.ones(1, 3, 8, 8, dtype=u8), minitorch.ones(3, 2, 3, 3, dtype=minitorch.int64)
        )
    with pytest.raises(
        RuntimeError, match="expected stride to be a single integer value or a list of 2 values"
    ):
        F.conv2d(minitorch.randn(1, 3, 8, 8), w, stride=(1, 1, 1))
    with pytest.raises(RuntimeError, match="output padding must be smaller than either stride or dilation"):
        F.conv_transpose2d(minitorch.randn(1, 3, 4, 4), minitorch.randn(3, 2, 3, 3), output_padding=1)
    with pytest.raises(
        RuntimeError,
        match=r"Given transposed=1, weight of size \[3, 2, 3, 3\], expected input\[1, 4, 4, 4\] to have 3 channels",
    ):
        F.conv_transpose2d(minitorch.randn(1, 4, 4, 4), minitorch.randn(3, 2, 3, 3))


@pytest.mark.skipif("cuda" not in DEVICES, reason="needs a GPU")
def test_conv_device_mismatch():
    with pytest.raises(
        RuntimeError,
        match=r"Input type \(torch.cuda.FloatTensor\) and weight type \(torch.FloatTensor\) should be the same",
    ):
        F.conv2d(minitorch.randn(1, 3, 8, 8, device="cuda"), minitorch.randn(2, 3, 3, 3))


def test_pool_errors():
    x = minitorch.randn(1, 2, 6, 6)
    with pytest.raises(RuntimeError, match="pad should be at most half of effective kernel size"):
        F.max_pool2d(x, 2, padding=2)
    with pytest.raises(
        RuntimeError,
        match="^pad should be at most half of effective kernel size, but got pad=2, kernel_size=2 and",
    ):  # avg_pool2d's padding check is pooling_output_shape's too (dilation 1)
        F.avg_pool2d(x, 2, padding=2)
    with pytest.raises(RuntimeError, match="divisor must be not zero"):
        F.avg_pool2d(x, 2, divisor_override=0)
    with pytest.raises(
        RuntimeError,
        match=r"Given input size: \(2x6x6\). Calculated output size: \(2x0x0\). Output size is too small",
    ):
        F.max_pool2d(x, 7, padding=0)
    with pytest.raises(RuntimeError, match="^non-empty 3D or 4D \\(batch mode\\) tensor expected for input$"):
        F.max_pool2d(minitorch.randn(6, 6), 2)
    with pytest.raises(
        RuntimeError, match="max_pool2d: kernel_size must either be a single int, or a tuple of two ints"
    ):
        F.max_pool2d(x, (2, 2, 2))
    with pytest.raises(RuntimeError, match="^stride should not be zero$"):
        F.max_pool2d(x, 2, 0)
    with pytest.raises(
        RuntimeError, match="not implemented for 'Bool'"
    ):  # integers are pooled, as PyTorch's CPU
        F.max_pool2d(minitorch.ones(1, 1, 4, 4, dtype=minitorch.bool), 2)
    with pytest.raises(RuntimeError, match="adaptive_avg_pool2d\\(\\): Expected 3D or 4D tensor"):
        F.adaptive_avg_pool2d(minitorch.randn(4), 2)


# PyTorch 2.15's checks of the 2-d pools (avg_pool1d and max_pool1d with indices run them over a unit height) in
# its order: the arguments' lengths and C int range, avg's zero divisor and rank (its size(-3)), then per dim
# (height first) a zero stride and the padding against the effective kernel (pooling_output_shape), then the
# signs of kernel, stride and dilation, the empty dims, the padding against the kernel, the output size
# (pool2d_shape_check), and last the kernel's dtype
PF = minitorch.nn.functional  # the public entry points, Python checks included
_POOL_ORDER = [
    (lambda: PF.max_pool2d(minitorch.zeros(2, 5, 5), 0, 0), "stride should not be zero"),
    (lambda: PF.max_pool2d(minitorch.zeros(2, 5, 5), 0, 1, 1),
     "pad should be at most half of effective kernel size, but got pad=1, kernel_size=0 and dilation=1"),
    (lambda: PF.max_pool2d(minitorch.zeros(2, 5, 5), 0, 1),
     "kernel size should be greater than zero, but got kH: 0 kW: 0"),
    (lambda: PF.max_pool2d(minitorch.zeros(2, 5, 5), (3, 0), (0, 1)), "stride should not be zero"),
    (lambda: PF.max_pool2d(minitorch.zeros(2, 5, 5), 2, -1), "stride should be greater than zero, but got dH: -1 dW: -1"),
    (lambda: PF.max_pool2d(minitorch.zeros(2, 5, 5), 2, 1, 0, (0, 1)),
     "dilation should be greater than zero, but got dilationH: 0 dilationW: 1"),
    (lambda: PF.max_pool2d(minitorch.zeros(2, 5, 5), 2, 1, (2, 1), 5),
     "pad should be smaller than or equal to half of kernel size, but got padW = 1, padH = 2, kW = 2, kH = 2"),
    (lambda: PF.max_pool2d(minitorch.zeros(2, 5, 5), 0, 1, -1), "pad must be non-negative, but got pad: -1"),
    (lambda: PF.max_pool2d(minitorch.zeros(2, 0, 5), 0, 0), "stride should not be zero"),
    (lambda: PF.max_pool2d(minitorch.zeros(2, 0, 5), 0, 1),
     "kernel size should be greater than zero, but got kH: 0 kW: 0"),
    (lambda: PF.max_pool2d(minitorch.zeros(2, 5, 5, dtype=minitorch.bool), 0, 1),
     "kernel size should be greater than zero, but got kH: 0 kW: 0"),
    (lambda: PF.max_pool2d(minitorch.zeros(2, 5, 5, dtype=minitorch.bool), 9, 1),
     "Given input size: (2x5x5). Calculated output size: (2x-3x-3). Output size is too small"),
    (lambda: PF.max_pool2d(minitorch.zeros(2, 5, 5), 2, 2**40), "value cannot be converted to type int without overflow"),
    (lambda: PF.max_pool2d(minitorch.zeros(1, 1, 5, 5, 5), 0), "non-empty 3D or 4D (batch mode) tensor expected for input"),
    (lambda: PF.avg_pool2d(minitorch.zeros(2, 5, 5), 0, 0), "stride should not be zero"),
    (lambda: PF.avg_pool2d(minitorch.zeros(2, 5, 5), 1, 1, 1),
     "pad should be at most half of effective kernel size, but got pad=1, kernel_size=1 and dilation=1"),
    (lambda: PF.avg_pool2d(minitorch.zeros(2, 5, 5), 0, 1),
     "kernel size should be greater than zero, but got kH: 0 kW: 0"),
    (lambda: PF.avg_pool2d(minitorch.zeros(1, 1, 5, 5, 5), 0), "stride should not be zero"),
    (lambda: PF.avg_pool2d(minitorch.zeros(2, 5, 5), [], divisor_override=0),
     "avg_pool2d: kernel_size must either be a single int, or a tuple of two ints"),
    (lambda: PF.avg_pool2d(minitorch.zeros(5), 3, divisor_override=0), "divisor must be not zero"),
    (lambda: PF.avg_pool2d(minitorch.zeros(2, 5, 5, dtype=minitorch.bool), 9),
     "Given input size: (2x5x5). Calculated output size: (2x0x0). Output size is too small"),
    (lambda: PF.avg_pool1d(minitorch.zeros(2, 5), 0, 0), "stride should not be zero"),
    (lambda: PF.avg_pool1d(minitorch.zeros(2, 5), 0, 1),
     "kernel size should be greater than zero, but got kH: 1 kW: 0"),
    (lambda: PF.avg_pool1d(minitorch.zeros(2, 5), 2, -1), "stride should be greater than zero, but got dH: 1 dW: -1"),
    (lambda: PF.avg_pool1d(minitorch.zeros(2, 5), 9),
     "Given input size: (2x1x5). Calculated output size: (2x1x0). Output size is too small"),
    (lambda: PF.avg_pool1d(minitorch.zeros(2, 0, dtype=minitorch.bool), 1, 1),
     "Expected 3D or 4D (batch mode) tensor with optional 0 dim batch size for input, but got:[2, 1, 0]"),
    (lambda: PF.max_pool1d(minitorch.zeros(2, 5), 1, 0, 1, return_indices=True), "stride should not be zero"),
    (lambda: PF.lp_pool2d(minitorch.zeros(2, 5, 5), 2, 2, 0), "stride should not be zero"),
    (lambda: PF.lp_pool1d(minitorch.zeros(2, 5), 2, 0, 1),
     "kernel size should be greater than zero, but got kH: 1 kW: 0"),
]  # fmt: skip


@pytest.mark.parametrize("i", range(len(_POOL_ORDER)))
def test_pool_check_order(i):
    call, message = _POOL_ORDER[i]
    with pytest.raises(RuntimeError) as e:
        call()
    assert str(e.value) == message
    assert type(e.value) is RuntimeError


def test_pool_checks_as_pytorch():
    """every combination of bad kernel, stride and padding over ranks, empty dims and dtypes, against PyTorch"""
    source = r"""
import itertools
def cases(torch):
    run = runner(lambda r: list(r.shape))
    F = torch.nn.functional
    out = []
    shapes = {"max_pool2d": [(2, 5, 5), (2, 0, 5), (5, 5)], "avg_pool2d": [(2, 5, 5), (2, 0, 5), (5, 5)],
              "avg_pool1d": [(2, 5), (2, 0)]}
    for name, ss in shapes.items():
        f = getattr(F, name)
        for shape, dt in itertools.product(ss, ["float32", "bool"]):
            x = torch.zeros(shape, dtype=getattr(torch, dt))
            for k, s, p in itertools.product([0, 1, 2, -1], [0, 1, 2, -1], [0, 1, 2, -1]):
                out.append(run(lambda: f(x, k, s, p)))
            if name == "max_pool2d":
                for k, d, p in itertools.product([1, 2, 3], [0, 1, 3, 5, -1], [1, 2]):
                    out.append(run(lambda: f(x, k, 1, p, d)))
    return out
"""
    ours, theirs = cases_here_and_in_pytorch(source, [("torch", minitorch)])
    assert ours == theirs


_ADAPTIVE_ERRORS = [
    # (call, PyTorch 2.15's message): its 1-d forms are Python over the 2-d kernels (argument parser, dimension
    # check), and its max kernel reports a negative size as the output it could not allocate
    (
        lambda: F.adaptive_max_pool2d(minitorch.ones(2, 3, 4, 5), (1, 2, 3)),
        "adaptive_max_pool2d(): internal error: output_size.size() must be 2",
    ),
    (
        lambda: F.adaptive_avg_pool2d(minitorch.ones(2, 3, 4, 5), (1, 2, 3)),
        "adaptive_avg_pool2d: output_size must be 2",
    ),
    (
        lambda: F.adaptive_max_pool2d(minitorch.ones(3, 4), 2),
        "adaptive_max_pool2d(): Expected 3D or 4D tensor, but got: [3, 4]",
    ),
    (
        lambda: F.adaptive_avg_pool2d(minitorch.ones(3, 4), 2),
        "adaptive_avg_pool2d(): Expected 3D or 4D tensor, but got [3, 4]",
    ),
    (
        lambda: F.adaptive_max_pool1d(minitorch.ones(2, 3, 4), (1, 2)),
        "adaptive_max_pool1d() argument 'output_size' should contain one int (got 2)",
    ),
    (
        lambda: F.adaptive_avg_pool1d(minitorch.ones(2, 3, 4), (1, 2)),
        "adaptive_avg_pool1d() argument 'output_size' should contain one int (got 2)",
    ),
    (
        lambda: F.adaptive_max_pool1d(minitorch.ones(4), 2),
        (
            "Expected 2 to 3 dimensions, but got 1-dimensional tensor for argument #1 'self' (while checking arguments "
            "for adaptive_max_pool1d)"
        ),
    ),
    (
        lambda: F.adaptive_avg_pool1d(minitorch.ones(1, 2, 3, 4), 2),
        (
            "Expected 2 to 3 dimensions, but got 4-dimensional tensor for argument #1 'self' (while checking arguments "
            "for adaptive_avg_pool1d)"
        ),
    ),
    (
        lambda: F.adaptive_max_pool2d(minitorch.ones(2, 3, 4, 5), (-1, 2)),
        "Trying to create tensor with negative dimension -1: [2, 3, -1, 2]",
    ),
    (
        lambda: F.adaptive_max_pool2d(minitorch.ones(3, 4, 5), (None, -3)),
        "Trying to create tensor with negative dimension -3: [3, 4, -3]",
    ),
    (
        lambda: F.adaptive_max_pool1d(minitorch.ones(3, 4), -2),
        "Trying to create tensor with negative dimension -2: [3, 1, -2]",
    ),
    (
        lambda: F.adaptive_avg_pool2d(minitorch.ones(3, 4, 5), -3),
        "adaptive_avg_pool2d: elements of output_size must be greater than or equal to 0 but received {-3, -3}",
    ),
    (
        lambda: F.adaptive_avg_pool1d(minitorch.ones(2, 3, 4), -1),
        "adaptive_avg_pool2d: elements of output_size must be greater than or equal to 0 but received {1, -1}",
    ),
]


@pytest.mark.parametrize("case", range(len(_ADAPTIVE_ERRORS)))
def test_adaptive_pool_errors_word_pytorchs_messages(case):
    call, message = _ADAPTIVE_ERRORS[case]
    with pytest.raises(RuntimeError) as info:
        call()
    assert str(info.value) == message


def test_adaptive_max_pool_empty_output_size_is_allowed():
    out, idx = F.adaptive_max_pool2d(minitorch.ones(2, 3, 4, 5), (0, 2))
    assert tuple(out.shape) == tuple(idx.shape) == (2, 3, 0, 2)


def test_cudnn_flags_module():
    # PyTorch's defaults, in a fresh interpreter (the fixture above changes allow_tf32 here)
    code = "import minitorch as m; c = m.backends.cudnn; print(c.enabled, c.benchmark, c.deterministic, c.allow_tf32)"
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    fresh = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
    assert fresh.stdout.split() == ["True", "False", "False", "True"]
    cudnn = minitorch.backends.cudnn
    cudnn.allow_tf32 = True
    old = (cudnn.enabled, cudnn.benchmark, cudnn.deterministic, cudnn.allow_tf32)
    assert old == (True, False, False, True)
    try:
        cudnn.benchmark = True
        cudnn.deterministic = True
        assert minitorch._C._get_cudnn_flags() == (True, True, True, True)
        with cudnn.flags(enabled=True, benchmark=False, deterministic=False, allow_tf32=False):
            assert minitorch._C._get_cudnn_flags() == (True, False, False, False)
        assert cudnn.benchmark and cudnn.deterministic
    finally:
        cudnn.benchmark, cudnn.deterministic = old[1], old[2]
    assert cudnn.is_available() == (cudnn.version() is not None)


@pytest.mark.skipif("cuda" not in DEVICES, reason="needs a GPU")
@pytest.mark.parametrize("benchmark", [False, True])
@pytest.mark.parametrize("deterministic", [False, True])
def test_cudnn_flags_give_same_values(benchmark, deterministic):
    rng = np.random.default_rng(120)
    x, w = rand(rng, 4, 8, 12, 12), rand(rng, 16, 8, 3, 3)
    cudnn = minitorch.backends.cudnn
    with cudnn.flags(enabled=True, benchmark=benchmark, deterministic=deterministic, allow_tf32=False):
        xt = T(x, minitorch.float32, "cuda", requires_grad=True)
        wt = T(w, minitorch.float32, "cuda", requires_grad=True)
        out = F.conv2d(xt, wt, None, 1, 1)
        out.sum().backward()
    assert_matches(out, np_conv2d(x, w, None, 1, 1), rtol=1e-4, atol=1e-4)
    assert_matches(
        xt.grad, np_conv_transpose2d(np.ones((4, 16, 12, 12)), w, None, 1, 1), rtol=1e-4, atol=1e-4
    )


def _conv_against_cpu(device, dtype):
    """Grouped, strided, dilated conv forward + backward, a transposed conv and a 1x1 conv on `device`,
    against NumPy and against the CPU kernels' gradients."""
    rng = np.random.default_rng(130)
    x, w, b = rounded(rand(rng, 2, 4, 9, 8), dtype), rounded(rand(rng, 6, 2, 3, 2), dtype), rand(rng, 6)
    g = rounded(rand(rng, 2, 6, 5, 8), dtype)
    wt2 = rounded(rand(rng, 6, 2, 3, 3), dtype)
    rtol, atol = CONV_TOL[dtype]
    xt = T(x, dtype, device, requires_grad=True)
    wt = T(w, dtype, device, requires_grad=True)
    out = F.conv2d(xt, wt, T(b, dtype, device), (2, 1), 1, (1, 2), 2)
    out.backward(T(g, dtype, device))
    ct = F.conv_transpose2d(T(g, dtype, device), T(wt2, dtype, device), None, 2, 1, 1)
    one = F.conv2d(xt.detach(), T(w[:, :, :1, :1], dtype, device), None, 1, 0, 1, 2)  # 1x1: GEMM only
    assert_matches(out, np_conv2d(x, w, b, (2, 1), 1, (1, 2), 2), rtol=rtol, atol=atol)
    assert_matches(ct, np_conv_transpose2d(g, wt2, None, 2, 1, 1), rtol=rtol, atol=atol)
    assert_matches(one, np_conv2d(x, w[:, :, :1, :1], None, 1, 0, 1, 2), rtol=rtol, atol=atol)
    xc = T(x, minitorch.float64, requires_grad=True)
    wc = T(w, minitorch.float64, requires_grad=True)
    F.conv2d(xc, wc, T(b), (2, 1), 1, (1, 2), 2).backward(T(g))
    assert_matches(xt.grad, xc.grad.numpy(), rtol=rtol, atol=atol)
    assert_matches(wt.grad, wc.grad.numpy(), rtol=rtol, atol=atol * 10)


@pytest.mark.parametrize("dtype", [minitorch.float64, minitorch.float16])
def test_conv_against_cpu_float64(dtype):
    _conv_against_cpu("cpu", dtype)


@pytest.mark.skipif("cuda" not in DEVICES, reason="needs a GPU")
@pytest.mark.parametrize("dtype", [minitorch.float64, minitorch.float16])
@pytest.mark.parametrize("enabled", [True, False])
def test_cuda_conv_with_and_without_cudnn(dtype, enabled):
    # backends.cudnn.enabled = False takes the im2col + cuBLAS kernels: same values and gradients
    with minitorch.backends.cudnn.flags(enabled=enabled):
        _conv_against_cpu("cuda", dtype)


@pytest.mark.skipif("cuda" not in DEVICES, reason="needs a GPU")
def test_cudnn_legacy_path_in_a_child():
    """cuDNN's legacy API is the fallback for a configuration no graph-API engine takes, and otherwise never runs:
    the cuDNN tests again under MINITORCH_CUDNN_LEGACY=1 (read once per process, hence a child)."""
    select = "cudnn_flags_give_same_values or cuda_conv_with_and_without_cudnn or tf32_tolerance"
    rerun_in_child(__file__, select, MINITORCH_CUDNN_LEGACY="1")


@pytest.mark.skipif("cuda" not in DEVICES, reason="needs a GPU")
def test_tf32_tolerance():
    # the default (allow_tf32=True): float32 convs on cuDNN within TF32's 10-bit mantissa
    minitorch.backends.cudnn.allow_tf32 = True
    rng = np.random.default_rng(140)
    x, w = rand(rng, 4, 16, 12, 12), rand(rng, 8, 16, 3, 3)
    got = F.conv2d(T(x, minitorch.float32, "cuda"), T(w, minitorch.float32, "cuda"), None, 1, 1)
    assert_matches(got, np_conv2d(x, w, None, 1, 1), rtol=1e-2, atol=1e-2)


@pytest.mark.parametrize("dtype", ["uint8", "int8", "int16", "int32", "int64"])
def test_conv_integer_dtypes(dtype):
    """PyTorch's CPU kernels convolve integers exactly, wrapping in the input's type: conv1d/conv2d every
    integer type, the dilated and transposed ones int64 only (its other types refuse, as above)"""
    rng = np.random.default_rng(5)
    dt = getattr(minitorch, dtype)
    big = 1 if dtype == "int64" else 60  # uint8/int8 products and sums wrap
    x = rng.integers(-9, 9, (2, 4, 5, 6)) * big
    w = rng.integers(-9, 9, (6, 2, 3, 2))
    b = rng.integers(-9, 9, 6)

    def wrapped(ref):
        return ref.astype(np.int64).astype(np.dtype(dtype))

    def tensor(a):
        return minitorch.from_numpy(np.ascontiguousarray(a.astype(np.int64).astype(np.dtype(dtype))))

    kw = {"stride": (2, 1), "padding": (1, 2), "groups": 2}
    got = F.conv2d(tensor(x), tensor(w), tensor(b), **kw)
    assert got.dtype == dt
    ref = np_conv2d(wrapped(x).astype(np.float64), wrapped(w).astype(np.float64), wrapped(b), **kw)
    np.testing.assert_array_equal(got.numpy(), wrapped(ref))
    # non-contiguous input, conv1d, padding='same' (the odd extra after, as PyTorch's)
    w4 = w[:, :, :2, :2].repeat(2, axis=1)[:, :4]
    got = F.conv2d(tensor(x).transpose(2, 3), tensor(w4))
    ref = np_conv2d(wrapped(x).transpose(0, 1, 3, 2).astype(float), wrapped(w4).astype(float))
    np.testing.assert_array_equal(got.numpy(), wrapped(ref))
    x1, w1 = x[:, :, 0], w[:, :, 0]
    got = F.conv1d(tensor(x1), tensor(w1), groups=2, padding="same")
    ref = np_conv2d(
        wrapped(x1)[:, :, None].astype(float),
        wrapped(w1)[:, :, None].astype(float),
        padding=((0, 0), (0, 1)),
        groups=2,
    )
    np.testing.assert_array_equal(got.numpy(), wrapped(ref[:, :, 0]))
    if dtype != "int64":
        return
    kw = {"stride": (2, 3), "padding": (1, 0), "output_padding": (1, 2), "groups": 2, "dilation": (1, 2)}
    wt = rng.integers(-9, 9, (4, 3, 3, 2))
    got = F.conv_transpose2d(tensor(x), tensor(wt), tensor(b), **kw)
    np.testing.assert_array_equal(
        got.numpy(), np_conv_transpose2d(x.astype(float), wt, b, **kw).astype(np.int64)
    )
    got = F.conv2d(tensor(x), tensor(w), dilation=2, padding=1, groups=2)
    np.testing.assert_array_equal(got.numpy(), np_conv2d(x.astype(float), w, dilation=2, padding=1, groups=2))
    # a floating bias of another dtype is cast by the transposed conv only where the input is floating
    with pytest.raises(RuntimeError, match="result type Float can't be cast to the desired output type Long"):
        F.conv_transpose2d(tensor(x), tensor(wt), minitorch.ones(6), groups=2)
    h = F.conv_transpose2d(
        minitorch.ones(1, 2, 3, 3, dtype=minitorch.float16),
        minitorch.ones(2, 1, 2, 2).half(),
        minitorch.ones(1),
    )
    assert h.dtype == minitorch.float16 and h.sum().item() == 2 * 9 * 4 + 16


NF = minitorch.nn.functional
_F64 = minitorch.float64
_MKLDNN_WEIGHT = (
    "Input type (torch.FloatTensor) and weight type (torch.DoubleTensor) should be the same or input should be a "
    "MKLDNN tensor and weight is a dense tensor"
)


@pytest.mark.parametrize(
    "call, msg",
    [
        # oneDNN's wording where PyTorch picks it for float32 (a batch, a big enough kernel or image, groups)
        (lambda: NF.conv1d(minitorch.ones(5, 1, 2), minitorch.ones(5, 1, 2, dtype=_F64)), _MKLDNN_WEIGHT),
        (lambda: NF.conv1d(minitorch.ones(1, 2, 3), minitorch.ones(2, 1, 2, dtype=_F64), groups=2), _MKLDNN_WEIGHT),
        (lambda: NF.conv2d(minitorch.ones(1, 1, 5, 5), minitorch.ones(1, 1, 4, 4, dtype=_F64)), _MKLDNN_WEIGHT),
        (lambda: NF.conv2d(minitorch.ones(1, 3, 100, 100), minitorch.ones(1, 3, 3, 3, dtype=_F64)), _MKLDNN_WEIGHT),
        (lambda: NF.conv3d(minitorch.ones(2, 1, 2, 2, 2), minitorch.ones(1, 1, 2, 2, 2, dtype=_F64)), _MKLDNN_WEIGHT),
        (lambda: NF.conv_transpose2d(minitorch.ones(2, 1, 2, 2), minitorch.ones(1, 5, 2, 2, dtype=_F64)), _MKLDNN_WEIGHT),
        # the native kernel's for a single small image and a small kernel
        (lambda: NF.conv1d(minitorch.ones(1, 1, 2), minitorch.ones(5, 1, 2, dtype=_F64)), "expected scalar type Float but found Double"),
        (lambda: NF.conv2d(minitorch.ones(1, 1, 5, 5), minitorch.ones(1, 1, 3, 3, dtype=minitorch.float16), stride=2), "expected scalar type Float but found Half"),
        (lambda: NF.conv3d(minitorch.ones(1, 1, 2, 2, 2), minitorch.ones(1, 1, 2, 2, 2, dtype=_F64)), "expected scalar type Float but found Double"),
        (lambda: NF.conv_transpose1d(minitorch.ones(1, 1, 2), minitorch.ones(1, 5, 2, dtype=_F64)), "expected scalar type Float but found Double"),
        # a transposed conv's bias of another dtype: oneDNN refuses it, slow_conv_transpose3d names it
        (lambda: NF.conv_transpose1d(minitorch.ones(3, 1, 2), minitorch.ones(1, 5, 2), minitorch.ones(5, dtype=_F64)),
         "Input type (torch.FloatTensor) and bias type (torch.DoubleTensor) should be the same or input should be a MKLDNN tensor and bias is a dense tensor"),
        (lambda: NF.conv_transpose3d(minitorch.ones(1, 1, 2, 2, 2, dtype=_F64), minitorch.ones(1, 5, 2, 2, 2, dtype=_F64), minitorch.ones(5)),
         "expected scalar type Double but found Float"),
    ],
)  # fmt: skip
def test_conv_weight_dtype_error_names_the_backend_pytorch_picks(call, msg):
    with pytest.raises(RuntimeError) as info:
        call()
    assert str(info.value) == msg


def test_conv_backend_wording_follows_threads_and_the_mkldnn_switch():
    x, w = minitorch.ones(1, 1, 5, 5), minitorch.ones(2, 1, 4, 4, dtype=_F64)  # a 4x4 kernel: oneDNN
    with pytest.raises(RuntimeError, match="should be the same or input should be a MKLDNN tensor"):
        NF.conv2d(x, w)
    with (
        minitorch.backends.mkldnn.flags(enabled=False),
        pytest.raises(RuntimeError, match="^expected scalar type Float but found Double$"),
    ):
        NF.conv2d(x, w)
    # a 1x1 kernel on two images: oneDNN only with more than one thread
    x, w = minitorch.ones(2, 1, 5, 5), minitorch.ones(2, 1, 1, 1, dtype=_F64)
    n = minitorch.get_num_threads()
    try:
        minitorch.set_num_threads(1)
        with pytest.raises(RuntimeError, match="^expected scalar type Float but found Double$"):
            NF.conv2d(x, w)
        minitorch.set_num_threads(2)
        with pytest.raises(RuntimeError, match="should be the same or input should be a MKLDNN tensor"):
            NF.conv2d(x, w)
    finally:
        minitorch.set_num_threads(n)


@pytest.mark.parametrize(
    "fn", ["conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d"]
)
def test_conv_empty_input_is_pytorchs_empty_backend(fn):
    """No kernel runs on an empty input: a weight of another dtype is taken, the result has the product's dtype
    (a 0-d weight element's with an empty batch, the whole weight's with no channels), and every dtype passes."""
    nd = int(fn[-2])
    transposed = "transpose" in fn
    f = getattr(NF, fn)
    sp = (4,) * nd
    wshape = (1, 5, *(2,) * nd) if transposed else (5, 1, *(2,) * nd)
    out_sp = (5,) * nd if transposed else (3,) * nd
    for xdt, wdt, want in (
        (minitorch.float32, _F64, minitorch.float32),
        (minitorch.int64, _F64, _F64),
        (_F64, minitorch.int64, _F64),
        (minitorch.bool, minitorch.bool, minitorch.bool),
        (minitorch.int32, minitorch.int32, minitorch.int32),
    ):
        r = f(minitorch.empty(0, 1, *sp, dtype=xdt), minitorch.ones(wshape, dtype=wdt))
        assert r.dtype == want and tuple(r.shape) == (0, 5, *out_sp), (xdt, wdt)
    x = minitorch.empty(0, 1, *sp, requires_grad=True)
    w = minitorch.ones(wshape, dtype=_F64, requires_grad=True)
    r = f(x, w)
    assert r.requires_grad
    r.sum().backward()
    assert x.grad.shape == x.shape and w.grad.dtype == _F64 and not w.grad.any()
    if not transposed:  # a zero-channel input: zero output channels, the promoted dtype
        r = f(minitorch.empty(3, 0, *sp), minitorch.empty(5, 0, *(2,) * nd, dtype=_F64), minitorch.ones(5))
        assert r.dtype == _F64 and tuple(r.shape) == (3, 0, *out_sp)


def _np_conv_nd(x, w, b, stride, padding, dilation, groups):
    """Direct complex128 correlation (PyTorch's conv) by sliding windows: the NumPy reference."""
    nd = x.ndim - 2
    x = np.pad(x, [(0, 0), (0, 0)] + [(padding, padding)] * nd)
    k = w.shape[2:]
    span = [dilation * (kk - 1) + 1 for kk in k]
    win = np.lib.stride_tricks.sliding_window_view(x, span, axis=tuple(range(2, 2 + nd)))
    win = win[(...,) + tuple(slice(None, None, dilation) for _ in range(nd))]
    win = win[(slice(None), slice(None)) + tuple(slice(None, None, stride) for _ in range(nd))]
    cin_g, cout_g = w.shape[1], w.shape[0] // groups
    outs = []
    letters = "defg"[:nd]
    for g in range(groups):
        xs = win[:, g * cin_g : (g + 1) * cin_g]
        ws = w[g * cout_g : (g + 1) * cout_g]
        outs.append(np.einsum(f"nc{letters}{letters.upper()},oc{letters.upper()}->no{letters}", xs, ws))
    out = np.concatenate(outs, 1)
    return out + b.reshape((1, -1) + (1,) * nd)


@pytest.mark.parametrize("nd", [1, 2, 3])
@pytest.mark.parametrize("dtype", [minitorch.complex64, minitorch.complex128])
def test_complex_conv_matches_numpy(nd, dtype):
    """Complex convolutions (PyTorch computes them as three real ones): values against a complex128 NumPy
    correlation, with stride, padding, dilation, groups, a strided input and an unbatched one."""
    rng = np.random.default_rng(nd)
    conv = getattr(NF, f"conv{nd}d")

    def c(*shape):
        return rng.standard_normal(shape) + 1j * rng.standard_normal(shape)

    x, w, b = c(2, 4, *(7,) * nd), c(6, 2, *(3,) * nd), c(6)
    tol = 1e-4 if dtype == minitorch.complex64 else 1e-10
    for stride, padding, dilation, groups in ((1, 0, 1, 2), (2, 1, 2, 2), (1, 1, 1, 1)):
        wg = w if groups == 2 else c(6, 4, *(3,) * nd)
        got = conv(
            minitorch.tensor(x, dtype=dtype), minitorch.tensor(wg, dtype=dtype), minitorch.tensor(b, dtype=dtype),
            stride=stride, padding=padding, dilation=dilation, groups=groups,
        )  # fmt: skip
        want = _np_conv_nd(x, wg, b, stride, padding, dilation, groups)
        assert got.dtype == dtype
        np.testing.assert_allclose(got.numpy(), want, rtol=tol, atol=tol * 10)
    xt = minitorch.tensor(np.swapaxes(x, -1, -2).copy(), dtype=dtype).transpose(-1, -2)  # strided
    got = conv(xt, minitorch.tensor(w, dtype=dtype), None, groups=2)
    np.testing.assert_allclose(got.numpy(), _np_conv_nd(x, w, 0 * b, 1, 0, 1, 2), rtol=tol, atol=tol * 10)
    got = conv(minitorch.tensor(x[0], dtype=dtype), minitorch.tensor(w, dtype=dtype), groups=2)
    assert tuple(got.shape) == tuple(_np_conv_nd(x[:1], w, 0 * b, 1, 0, 1, 2).shape[1:])


@pytest.mark.parametrize("nd", [1, 2, 3])
def test_complex_conv_transpose_is_the_adjoint_and_gradients(nd):
    """conv_transpose is conv's transpose for complex tensors too (<conv_t(y, w), x> = <y, conv(x, w)>, a
    bilinear pairing), and both differentiate (gradcheck in complex128)."""
    rng = np.random.default_rng(10 + nd)
    conv, convt = getattr(NF, f"conv{nd}d"), getattr(NF, f"conv_transpose{nd}d")

    def c(*shape):
        return minitorch.tensor(rng.standard_normal(shape) + 1j * rng.standard_normal(shape))

    x, w = c(1, 2, *(5,) * nd), c(3, 2, *(2,) * nd)
    y = conv(x, w, stride=2)
    ybar = c(*y.shape)
    lhs = (convt(ybar, w, stride=2, output_padding=1) * x).sum()
    rhs = (ybar * y).sum()
    np.testing.assert_allclose(lhs.item(), rhs.item(), rtol=1e-12)
    small = [
        c(1, 2, *(3,) * nd).requires_grad_(),
        c(2, 2, *(2,) * nd).requires_grad_(),
        c(2).requires_grad_(),
    ]
    assert minitorch.autograd.gradcheck(lambda a, k, bb: conv(a, k, bb, padding=1), small)
    small_t = [small[0], c(2, 2, *(2,) * nd).requires_grad_(), small[2]]
    assert minitorch.autograd.gradcheck(lambda a, k, bb: convt(a, k, bb, stride=2), small_t)


def test_complex_conv_errors_name_the_types_as_pytorch():
    x = minitorch.ones(1, 2, 4, 4, dtype=minitorch.complex64)
    w = minitorch.ones(3, 2, 2, 2, dtype=minitorch.complex64)
    cases = [
        (lambda: NF.conv2d(x, w.real), "Input type (CPUComplexFloatType) and weight type (torch.FloatTensor) should be the same"),
        (lambda: NF.conv3d(x[:, :, None], w.real[:, :, None]), "Input type (CPUComplexFloatType) and weight type (torch.FloatTensor) should be the same"),
        (lambda: NF.conv2d(x, w, minitorch.ones(3)), "Input type (c10::complex<float>) and bias type (float) should be the same"),
        # two images: oneDNN's words
        (lambda: NF.conv2d(x.real.expand(2, 2, 4, 4), w), "Input type (torch.FloatTensor) and weight type (CPUComplexFloatType) should be the same or input should be a MKLDNN tensor and weight is a dense tensor"),
        (lambda: NF.embedding(minitorch.ones(2, dtype=minitorch.bool), minitorch.ones(3, 3)),
         "Expected tensor for argument #1 'indices' to have one of the following scalar types: Long, Int; but got CPUBoolType instead (while checking arguments for embedding)"),
    ]  # fmt: skip
    for call, msg in cases:
        with pytest.raises(RuntimeError) as info:
            call()
        assert str(info.value) == msg
