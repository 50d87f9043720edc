"""scaled_dot_product_attention: values against a float64 NumPy reference (masks, causal, scale, GQA,
broadcast batch dims, fully masked rows), gradients by gradcheck, dropout statistics and bad inputs."""

import numpy as np
import pytest

import minitorch
import minitorch.nn.functional as F
from minitorch.autograd import gradcheck, gradgradcheck
from tests.utils import FLOAT_DTYPES, TOL, assert_matches, make_array, to_np


def ref_sdpa(q, k, v, mask=None, causal=False, scale=None):
    """float64 reference; mask is bool (True attends) or additive; fully masked rows give zeros."""
    q, k, v = (np.asarray(x, np.float64) for x in (q, k, v))
    scale = 1.0 / np.sqrt(q.shape[-1]) if scale is None else scale
    s = np.matmul(q, np.swapaxes(k, -1, -2)) * scale
    L, S = s.shape[-2], s.shape[-1]
    if causal:
        s = np.where(np.tril(np.ones((L, S), bool)), s, -np.inf)
    if mask is not None:
        mask = np.asarray(mask)
        s = np.where(mask, s, -np.inf) if mask.dtype == bool else s + mask
    mx = s.max(-1, keepdims=True)
    dead = np.isneginf(mx)
    e = np.exp(s - np.where(dead, 0.0, mx))
    p = np.where(dead, 0.0, e / np.where(dead, 1.0, e.sum(-1, keepdims=True)))
    return np.matmul(p, v)


def rnd(rng, *shape):
    return rng.standard_normal(shape)


def T(a, dtype=minitorch.float64, device="cpu", rg=False):
    return minitorch.tensor(np.asarray(a), dtype=dtype, device=device, requires_grad=rg)


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_values_dtypes(device, dtype):
    rng = np.random.default_rng(0)
    q, k, v = (make_array(s, dtype, rng, -1, 1) for s in [(2, 3, 5, 8), (2, 3, 7, 8), (2, 3, 7, 6)])
    out = F.scaled_dot_product_attention(T(q, dtype, device), T(k, dtype, device), T(v, dtype, device))
    assert out.dtype == dtype and out.device.type == device
    r, a = TOL[dtype]
    assert_matches(out, ref_sdpa(q, k, v), rtol=r * 4, atol=a * 4)


@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("L,S", [(5, 5), (3, 9), (9, 3), (130, 70)])
def test_values_causal_shapes(device, causal, L, S):
    rng = np.random.default_rng(1)
    q, k, v = rnd(rng, 2, 2, L, 16), rnd(rng, 2, 2, S, 16), rnd(rng, 2, 2, S, 4)
    out = F.scaled_dot_product_attention(
        T(q, device=device), T(k, device=device), T(v, device=device), is_causal=causal
    )
    assert_matches(out, ref_sdpa(q, k, v, causal=causal))


@pytest.mark.parametrize(
    "mshape", [(6, 7), (1, 6, 7), (2, 1, 6, 7), (1, 3, 6, 7), (2, 3, 6, 7), (2, 3, 1, 7), (7,), (2, 1, 1, 7)]
)
@pytest.mark.parametrize("kind", ["bool", "float"])
def test_masks_broadcast(device, mshape, kind):
    rng = np.random.default_rng(2)
    q, k, v = rnd(rng, 2, 3, 6, 8), rnd(rng, 2, 3, 7, 8), rnd(rng, 2, 3, 7, 5)
    if kind == "bool":
        m = rng.random(mshape) > 0.3
        mt = minitorch.tensor(m, device=device)
    else:
        m = rng.standard_normal(mshape)
        mt = T(m, device=device)
    out = F.scaled_dot_product_attention(
        T(q, device=device), T(k, device=device), T(v, device=device), attn_mask=mt
    )
    assert_matches(out, ref_sdpa(q, k, v, mask=m))


def test_float32_mask_with_float64_inputs_and_noncontiguous(device):
    rng = np.random.default_rng(3)
    q, k, v = rnd(rng, 3, 2, 5, 4), rnd(rng, 3, 2, 6, 4), rnd(rng, 3, 2, 6, 4)
    m = rng.standard_normal((5, 6)).astype(np.float32)
    # inputs as transposed views: [B, L, H, E] -> [B, H, L, E]
    qt = T(np.swapaxes(q, 1, 2).copy(), device=device).transpose(1, 2)
    kt = T(np.swapaxes(k, 1, 2).copy(), device=device).transpose(1, 2)
    vt = T(np.swapaxes(v, -1, -2).copy(), device=device).transpose(-1, -2)
    assert not qt.is_contiguous()
    out = F.scaled_dot_product_attention(qt, kt, vt, attn_mask=minitorch.tensor(m, device=device), scale=0.3)
    assert_matches(out, ref_sdpa(q, k, v, mask=m.astype(np.float64), scale=0.3))


def test_fully_masked_rows_are_zero(device):
    rng = np.random.default_rng(4)
    q, k, v = rnd(rng, 1, 2, 4, 3), rnd(rng, 1, 2, 5, 3), rnd(rng, 1, 2, 5, 3)
    m = rng.random((4, 5)) > 0.5
    m[1] = False
    fm = np.where(m, 0.0, -np.inf)
    for mt in (minitorch.tensor(m, device=device), T(fm, device=device)):
        qq, kk, vv = T(q, device=device, rg=True), T(k, device=device, rg=True), T(v, device=device, rg=True)
        out = F.scaled_dot_product_attention(qq, kk, vv, attn_mask=mt)
        o = to_np(out)
        assert np.all(o[:, :, 1] == 0)
        assert_matches(out, ref_sdpa(q, k, v, mask=m))
        out.sum().backward()
        for t in (qq, kk, vv):
            assert np.isfinite(to_np(t.grad)).all()
        assert np.all(to_np(qq.grad)[:, :, 1] == 0)


def test_scale_and_empty(device):
    rng = np.random.default_rng(5)
    q, k, v = rnd(rng, 2, 4, 3), rnd(rng, 2, 6, 3), rnd(rng, 2, 6, 2)
    out = F.scaled_dot_product_attention(
        T(q, device=device), T(k, device=device), T(v, device=device), scale=2.5
    )
    assert_matches(out, ref_sdpa(q, k, v, scale=2.5))
    # 2-D inputs (no batch)
    out = F.scaled_dot_product_attention(
        T(q[0], device=device), T(k[0], device=device), T(v[0], device=device)
    )
    assert_matches(out, ref_sdpa(q[0], k[0], v[0]))
    e = F.scaled_dot_product_attention(
        T(np.zeros((0, 4, 3)), device=device),
        T(np.zeros((0, 6, 3)), device=device),
        T(np.zeros((0, 6, 2)), device=device),
    )
    assert tuple(e.shape) == (0, 4, 2)
    # no keys: every row fully masked -> zeros
    z = F.scaled_dot_product_attention(
        T(q, device=device), T(np.zeros((2, 0, 3)), device=device), T(np.zeros((2, 0, 2)), device=device)
    )
    assert tuple(z.shape) == (2, 4, 2) and np.all(to_np(z) == 0)


def test_batch_broadcast_and_gqa(device):
    rng = np.random.default_rng(6)
    q, k, v = rnd(rng, 2, 3, 5, 4), rnd(rng, 1, 3, 6, 4), rnd(rng, 1, 3, 6, 4)
    out = F.scaled_dot_product_attention(T(q, device=device), T(k, device=device), T(v, device=device))
    assert_matches(out, ref_sdpa(q, k, v))
    q, k, v = rnd(rng, 2, 6, 5, 4), rnd(rng, 2, 2, 7, 4), rnd(rng, 2, 2, 7, 3)
    out = F.scaled_dot_product_attention(
        T(q, device=device), T(k, device=device), T(v, device=device), enable_gqa=True
    )
    kr, vr = np.repeat(k, 3, axis=1), np.repeat(v, 3, axis=1)
    assert_matches(out, ref_sdpa(q, kr, vr))


def test_grad_float64():
    rng = np.random.default_rng(7)
    q, k, v = (T(rnd(rng, *s), rg=True) for s in [(2, 2, 4, 3), (2, 2, 5, 3), (2, 2, 5, 2)])
    assert gradcheck(lambda a, b, c: F.scaled_dot_product_attention(a, b, c), (q, k, v))
    assert gradcheck(
        lambda a, b, c: F.scaled_dot_product_attention(a, b, c, is_causal=True, scale=0.7), (q, k, v)
    )
    bm = minitorch.tensor(rng.random((4, 5)) > 0.4)
    fm = T(rnd(rng, 2, 1, 4, 5))
    assert gradcheck(lambda a, b, c: F.scaled_dot_product_attention(a, b, c, attn_mask=bm), (q, k, v))
    assert gradcheck(lambda a, b, c: F.scaled_dot_product_attention(a, b, c, attn_mask=fm), (q, k, v))
    assert gradgradcheck(lambda a, b, c: F.scaled_dot_product_attention(a, b, c, is_causal=True), (q, k, v))
    # a float mask that requires grad gets its gradient (math path)
    fmg = T(rnd(rng, 4, 5), rg=True)
    assert gradcheck(
        lambda a, m: F.scaled_dot_product_attention(a, k.detach(), v.detach(), attn_mask=m), (q, fmg)
    )
    # GQA and broadcast batch: gradients sum back over the repeated heads
    kg, vg = T(rnd(rng, 2, 1, 5, 3), rg=True), T(rnd(rng, 2, 1, 5, 2), rg=True)
    assert gradcheck(lambda a, b, c: F.scaled_dot_product_attention(a, b, c, enable_gqa=True), (q, kg, vg))


def test_grad_matches_reference_gradient(device):
    # the gradient of sum(out * w) against finite differences of the NumPy reference
    rng = np.random.default_rng(8)
    q, k, v = rnd(rng, 1, 2, 3, 4), rnd(rng, 1, 2, 5, 4), rnd(rng, 1, 2, 5, 3)
    m = rng.random((3, 5)) > 0.3
    w = rnd(rng, 1, 2, 3, 3)
    qq = T(q, device=device, rg=True)
    out = F.scaled_dot_product_attention(
        qq, T(k, device=device), T(v, device=device), attn_mask=minitorch.tensor(m, device=device)
    )
    (out * T(w, device=device)).sum().backward()
    num = np.zeros_like(q)
    h = 1e-6
    for idx in np.ndindex(q.shape):
        qp, qm = q.copy(), q.copy()
        qp[idx] += h
        qm[idx] -= h
        num[idx] = ((ref_sdpa(qp, k, v, m) - ref_sdpa(qm, k, v, m)) * w).sum() / (2 * h)
    np.testing.assert_allclose(to_np(qq.grad), num, rtol=1e-5, atol=1e-7)


def test_dropout(device):
    rng = np.random.default_rng(9)
    q, k = rnd(rng, 1, 64, 8), rnd(rng, 1, 32, 8)
    v = np.ones((1, 32, 1))
    minitorch.manual_seed(0)
    out = F.scaled_dot_product_attention(
        T(q, device=device), T(k, device=device), T(v, device=device), dropout_p=0.5
    )
    o = to_np(out)[0, :, 0]
    # each output is sum(p_kept) / (1 - p): mean 1 over the rows, values vary
    assert abs(o.mean() - 1.0) < 0.25 and o.std() > 0.05
    ref = to_np(F.scaled_dot_product_attention(T(q, device=device), T(k, device=device), T(v, device=device)))
    np.testing.assert_allclose(ref[0, :, 0], 1.0, rtol=1e-12)


def test_bad_inputs():
    q = minitorch.randn(2, 3, 4)
    with pytest.raises(
        RuntimeError,
        match="Expected query, key, and value to have the same dtype, but got "
        "query.dtype: float key.dtype: double and value.dtype: float instead.",
    ):
        F.scaled_dot_product_attention(q, q.double(), q)
    with pytest.raises(
        RuntimeError, match="Expected query, key, and value to all be  at least 2 dimensional"
    ):
        F.scaled_dot_product_attention(minitorch.randn(4), q, q)
    with pytest.raises(
        RuntimeError, match="Expected attn_mask dtype to be bool or float or to match query dtype"
    ):
        F.scaled_dot_product_attention(q, q, q, attn_mask=minitorch.ones(3, 3, dtype=minitorch.int64))
    with pytest.raises(RuntimeError, match="Explicit attn_mask should not be set when is_causal=True"):
        F.scaled_dot_product_attention(
            q, q, q, attn_mask=minitorch.ones(3, 3, dtype=minitorch.bool), is_causal=True
        )
    with pytest.raises(RuntimeError):  # E of key differs from query's
        F.scaled_dot_product_attention(q, minitorch.randn(2, 3, 5), minitorch.randn(2, 3, 5))
    with pytest.raises(RuntimeError):  # S of key and value differ
        F.scaled_dot_product_attention(q, q, minitorch.randn(2, 5, 4))
    with pytest.raises(RuntimeError):  # batch dims that do not broadcast
        F.scaled_dot_product_attention(q, minitorch.randn(3, 3, 4), minitorch.randn(3, 3, 4))
    with pytest.raises(RuntimeError):  # mask that does not broadcast
        F.scaled_dot_product_attention(q, q, q, attn_mask=minitorch.ones(2, 3, dtype=minitorch.bool))
    with pytest.raises(
        RuntimeError, match="Number of heads in key and value must divide the number of heads in"
    ):
        F.scaled_dot_product_attention(
            minitorch.randn(1, 4, 3, 2),
            minitorch.randn(1, 3, 3, 2),
            minitorch.randn(1, 3, 3, 2),
            enable_gqa=True,
        )
    with pytest.raises(TypeError):
        F.scaled_dot_product_attention(q, q, q, None, 0.0, False, 1.0)  # scale is keyword-only


@pytest.mark.parametrize("case", ["plain", "causal", "bool_mask", "float_mask", "gqa"])
def test_fused_backward_matches_recorded_backward(device, case):
    # .backward() runs the fused kernel (CPU, float/double); create_graph=True runs the formula in ops.
    rng = np.random.default_rng(10)
    L, S = (150, 130) if case != "gqa" else (70, 90)
    hk = 1 if case == "gqa" else 2
    q = T(rnd(rng, 2, 2, L, 8), device=device, rg=True)
    k = T(rnd(rng, 2, hk, S, 8), device=device, rg=True)
    v = T(rnd(rng, 2, hk, S, 5), device=device, rg=True)
    kw = {"enable_gqa": case == "gqa", "is_causal": case == "causal"}
    if case == "bool_mask":
        m = rng.random((2, 1, L, S)) > 0.3
        m[0, 0, 3] = False  # a fully masked row
        kw["attn_mask"] = minitorch.tensor(m, device=device)
    elif case == "float_mask":
        kw["attn_mask"] = T(rnd(rng, L, S), device=device)
    g = T(rnd(rng, 2, 2, L, 5), device=device)
    out = F.scaled_dot_product_attention(q, k, v, **kw)
    fused = minitorch.autograd.grad(out, (q, k, v), g)
    out = F.scaled_dot_product_attention(q, k, v, **kw)
    recorded = minitorch.autograd.grad(out, (q, k, v), g, create_graph=True)
    for a, b in zip(fused, recorded):
        assert tuple(a.shape) == tuple(b.shape)
        np.testing.assert_allclose(to_np(a), to_np(b), rtol=1e-10, atol=1e-12)
    # float32 through the same kernel
    q32, k32, v32 = (x.detach().float().requires_grad_() for x in (q, k, v))
    kw32 = dict(kw)
    if "attn_mask" in kw32 and kw32["attn_mask"].dtype != minitorch.bool:
        kw32["attn_mask"] = kw32["attn_mask"].float()
    out32 = F.scaled_dot_product_attention(q32, k32, v32, **kw32)
    f32 = minitorch.autograd.grad(out32, (q32, k32, v32), g.float())
    for a, b in zip(f32, recorded):
        np.testing.assert_allclose(to_np(a), to_np(b), rtol=1e-3, atol=1e-4)


def test_backward_without_keys(device):
    q = T(np.ones((2, 3, 4)), device=device, rg=True)
    k = T(np.zeros((2, 0, 4)), device=device, rg=True)
    v = T(np.zeros((2, 0, 2)), device=device, rg=True)
    F.scaled_dot_product_attention(q, k, v).sum().backward()
    assert np.all(to_np(q.grad) == 0) and tuple(k.grad.shape) == (2, 0, 4)


def test_sdpa_kernel_backends():
    # minitorch has one SDPA kernel; the backend flags decide only whether a call may run, as on PyTorch's CPU
    import minitorch as torch
    from minitorch.nn.attention import SDPBackend, sdpa_kernel

    q = torch.randn(1, 2, 4, 8)
    ref = F.scaled_dot_product_attention(q, q, q)
    assert [b.name for b in SDPBackend] == [
        "ERROR", "MATH", "FLASH_ATTENTION", "EFFICIENT_ATTENTION", "CUDNN_ATTENTION", "OVERRIDEABLE"
    ]  # fmt: skip
    assert int(SDPBackend.CUDNN_ATTENTION) == 3 and repr(SDPBackend.MATH) == "<SDPBackend.MATH: 0>"
    for ok in (
        SDPBackend.MATH,
        SDPBackend.FLASH_ATTENTION,
        [SDPBackend.EFFICIENT_ATTENTION, SDPBackend.MATH],
    ):
        with sdpa_kernel(ok) as r:
            assert r == {}
            np.testing.assert_array_equal(F.scaled_dot_product_attention(q, q, q).numpy(), ref.numpy())
    assert torch.backends.cuda.math_sdp_enabled() and torch.backends.cuda.flash_sdp_enabled()
    for bad in (SDPBackend.EFFICIENT_ATTENTION, SDPBackend.CUDNN_ATTENTION, SDPBackend.OVERRIDEABLE, []):
        with sdpa_kernel(bad), pytest.raises(RuntimeError, match="No viable backend for scaled_dot_product"):
            F.scaled_dot_product_attention(q, q, q)
    with sdpa_kernel(SDPBackend.FLASH_ATTENTION):
        assert torch.backends.cuda.flash_sdp_enabled() and not torch.backends.cuda.math_sdp_enabled()
    with (
        pytest.raises(AssertionError, match="Backend must be an instance of SDPBackend"),
        sdpa_kernel("math"),
    ):
        pass
    torch.backends.cuda.enable_math_sdp(False)
    torch.backends.cuda.enable_flash_sdp(False)
    try:
        with pytest.raises(RuntimeError, match="No viable backend"):
            F.scaled_dot_product_attention(q, q, q)
    finally:
        torch.backends.cuda.enable_math_sdp(True)
        torch.backends.cuda.enable_flash_sdp(True)
