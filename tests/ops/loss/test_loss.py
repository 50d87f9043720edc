"""Loss functions of minitorch._C._nn against float64 NumPy references, gradients by finite differences, errors.

The fused class losses (cross_entropy, nll_loss) are covered over reductions, class weights, ignore_index,
label smoothing, probability targets, unbatched and (N, C, d1, ...) inputs, non-contiguous inputs, empty
batches and every float dtype; the composites (mse, l1, smooth_l1, huber, bce, bce_with_logits, kl_div,
soft_margin) over reductions, broadcasting and dtypes. Every device present.
"""

import re
import warnings

import numpy as np
import pytest
from utils import FLOAT_DTYPES, TOL, assert_matches, make_array, to_np

import minitorch
from minitorch.autograd import gradcheck, gradgradcheck

F = minitorch._C._nn
REDUCTIONS = ["none", "mean", "sum"]


# ---- NumPy references (float64)


def np_log_softmax(x, axis):
    m = x.max(axis=axis, keepdims=True)
    return x - m - np.log(np.exp(x - m).sum(axis=axis, keepdims=True))


def reduce_np(loss, reduction, denom=None):
    if reduction == "none":
        return loss
    if reduction == "sum":
        return np.asarray(loss.sum())
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.asarray(loss.sum() / (loss.size if denom is None else denom))


def np_nll(logp, target, weight, reduction, ignore_index):
    unbatched = logp.ndim == 1
    if unbatched:
        logp, target = logp[None], np.asarray(target)[None]
    C = logp.shape[1]
    lp = np.moveaxis(logp, 1, -1)
    w = np.ones(C) if weight is None else weight
    keep = target != ignore_index
    ts = np.where(keep, target, 0)
    picked = np.take_along_axis(lp, ts[..., None], -1)[..., 0]
    wt = w[ts] * keep
    loss = -wt * picked
    if unbatched and reduction == "none":
        loss = loss[0]
    return reduce_np(loss, reduction, wt.sum())


def np_cross_entropy(x, target, weight=None, reduction="mean", ignore_index=-100, label_smoothing=0.0):
    cdim = 0 if x.ndim == 1 else 1
    C = x.shape[cdim]
    logp = np_log_softmax(x, cdim)
    wshape = [1] * x.ndim
    wshape[cdim] = C
    wb = np.ones(wshape) if weight is None else weight.reshape(wshape)
    if target.shape == x.shape:  # probabilities
        t = target * (1 - label_smoothing) + label_smoothing / C
        loss = -(logp * t * wb).sum(cdim)
        return reduce_np(loss, reduction, x.size / C)
    nll = np_nll(logp, target, weight, reduction, ignore_index)
    if label_smoothing <= 0:
        return nll
    keep = target != ignore_index
    smooth = np.where(keep, -(logp * wb).sum(cdim), 0.0)
    if reduction == "mean":
        w = np.ones(C) if weight is None else weight
        denom = w[np.where(keep, target, 0)][keep].sum()
        smooth = np.asarray(smooth.sum() / denom)
    else:
        smooth = reduce_np(smooth, reduction)
    return (1 - label_smoothing) * nll + label_smoothing / C * smooth


# ---- inputs


def rand(shape, dtype, rng, low=-3.0, high=3.0):
    return make_array(shape, dtype, rng, low, high)


def class_targets(shape, C, rng, ignore_index=None):
    t = rng.integers(0, C, size=shape)
    if ignore_index is not None and t.size > 1:
        t.reshape(-1)[:: max(2, t.size // 3)] = ignore_index
    return t


def mt(a, dtype, device, requires_grad=False):
    return minitorch.tensor(np.asarray(a), dtype=dtype, device=device, requires_grad=requires_grad)


def long(a, device):
    return minitorch.tensor(np.asarray(a, dtype=np.int64), dtype=minitorch.int64, device=device)


def low_tol(dtype, value):
    """Tolerance for a loss computed from inputs of `dtype`: half precision rounds the result itself."""
    r, a = TOL[dtype]
    return r, a * max(1.0, float(np.nanmax(np.abs(value))) if np.size(value) else 1.0)


# ---- cross_entropy / nll_loss values

# (input shape, target shape): batched, unbatched, spatial (N, C, d1, d2), spatial with one extra dim; spatial
# with 8 classes or more, which the CPU moves to the last dim for the kernels' vector path
CLASS_SHAPES = [
    ((6, 5), (6,)),
    ((5,), ()),
    ((3, 4, 2, 3), (3, 2, 3)),
    ((2, 3, 4), (2, 4)),
    ((3, 9, 2, 3), (3, 2, 3)),
    ((2, 10, 5), (2, 5)),
    (
        (2, 120, 5, 5),
        (2, 5, 5),
    ),  # more positions than one block of the CPU kernel's tiles (17 at 120 classes)
]


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("shapes", CLASS_SHAPES, ids=str)
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("label_smoothing", [0.0, 0.25])
def test_cross_entropy_class_targets(device, dtype, reduction, shapes, weighted, label_smoothing):
    rng = np.random.default_rng(0)
    xs, ts = shapes
    C = xs[0] if len(xs) == 1 else xs[1]
    x = rand(xs, dtype, rng)
    t = class_targets(ts, C, rng, ignore_index=-100)
    w = rand((C,), dtype, rng, 0.5, 2.0) if weighted else None
    got = F.cross_entropy(
        mt(x, dtype, device),
        long(t, device),
        weight=None if w is None else mt(w, dtype, device),
        reduction=reduction,
        label_smoothing=label_smoothing,
    )
    exp = np_cross_entropy(x, t, w, reduction, -100, label_smoothing)
    assert got.dtype == dtype
    rtol, atol = low_tol(dtype, exp)
    assert_matches(got, exp, rtol=rtol, atol=atol)


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
@pytest.mark.parametrize("reduction", REDUCTIONS)
# spatial: the CPU kernel's blocks of positions, one block per n or several (17 positions a block at 120 classes)
@pytest.mark.parametrize("shape", [(6, 5), (5,), (2, 4, 3), (3, 9, 2, 3), (2, 120, 5, 5)], ids=str)
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("label_smoothing", [0.0, 0.3])
def test_cross_entropy_probability_targets(device, dtype, reduction, shape, weighted, label_smoothing):
    rng = np.random.default_rng(1)
    C = shape[0] if len(shape) == 1 else shape[1]
    x = rand(shape, dtype, rng)
    cdim = 0 if len(shape) == 1 else 1
    p = np.exp(np_log_softmax(rand(shape, minitorch.float64, rng), cdim))
    p = to_np(mt(p, dtype, "cpu"))  # the values the library sees
    w = rand((C,), dtype, rng, 0.5, 2.0) if weighted else None
    got = F.cross_entropy(
        mt(x, dtype, device),
        mt(p, dtype, device),
        weight=None if w is None else mt(w, dtype, device),
        reduction=reduction,
        label_smoothing=label_smoothing,
    )
    exp = np_cross_entropy(x, p, w, reduction, -100, label_smoothing)
    rtol, atol = low_tol(dtype, exp)
    assert_matches(got, exp, rtol=rtol, atol=atol)


@pytest.mark.parametrize("dtype", [minitorch.float32, minitorch.float64])
@pytest.mark.parametrize("reduction", REDUCTIONS)
# rows of 40 (two whole groups of the kernel's 16 partial sums and a tail), 16, 17 and 300 classes (past the
# short-row blocks: the row loop), contiguous and transposed (read in place or copied)
@pytest.mark.parametrize("shape", [(7, 40), (5, 16), (3, 17), (3, 300), (0, 40)], ids=str)
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("transposed", [False, True])
def test_cross_entropy_probability_rows(device, dtype, reduction, shape, weighted, transposed):
    """The probability rows' two sums in partial sums: values against float64 NumPy, smoothed or not, and the
    target's gradient (the stats' A / s) against NumPy's -scale w ((1 - eps) log_softmax)."""
    rng = np.random.default_rng(31)
    C = shape[1]
    x = rand(shape, minitorch.float64, rng, -4.0, 4.0)
    p = np.exp(np_log_softmax(rand(shape, minitorch.float64, rng), 1))
    w = rand((C,), minitorch.float64, rng, 0.5, 2.0) if weighted else None
    xm, pm = mt(x, dtype, device), mt(p, dtype, device)
    if transposed:
        xm, pm = mt(x.T, dtype, device).t(), mt(p.T, dtype, device).t()
        assert not xm.is_contiguous() or shape[0] == 0
    x, p = to_np(xm).astype(np.float64), to_np(pm).astype(np.float64)  # the values the library sees
    wm = None if w is None else mt(w, dtype, device)
    rtol, atol = (1e-5, 1e-5) if dtype == minitorch.float32 else (1e-12, 1e-12)
    for ls in (0.0, 0.25):
        pm.requires_grad_(True)
        with np.errstate(invalid="ignore"):  # an empty batch's mean, 0/0
            exp = np_cross_entropy(
                x, p, None if w is None else to_np(wm).astype(np.float64), reduction, -100, ls
            )
        got = F.cross_entropy(xm, pm, wm, reduction=reduction, label_smoothing=ls)
        assert got.dtype == dtype
        assert_matches(got, exp, rtol=rtol, atol=atol)
        got.sum().backward()
        ws = np.ones(C) if w is None else to_np(wm).astype(np.float64)
        scale = 1.0 / shape[0] if reduction == "mean" and shape[0] else 1.0
        assert_matches(pm.grad, -scale * (1 - ls) * ws * np_log_softmax(x, 1), rtol=rtol, atol=atol)
        pm = pm.detach()


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("shapes", CLASS_SHAPES, ids=str)
@pytest.mark.parametrize("weighted", [False, True])
def test_nll_loss(device, dtype, reduction, shapes, weighted):
    rng = np.random.default_rng(2)
    xs, ts = shapes
    C = xs[0] if len(xs) == 1 else xs[1]
    x = rand(xs, dtype, rng, -4.0, 0.0)
    t = class_targets(ts, C, rng, ignore_index=1)
    w = rand((C,), dtype, rng, 0.5, 2.0) if weighted else None
    got = F.nll_loss(
        mt(x, dtype, device),
        long(t, device),
        None if w is None else mt(w, dtype, device),
        reduction,
        1,
    )
    exp = np_nll(x, t, w, reduction, 1)
    rtol, atol = low_tol(dtype, exp)
    assert_matches(got, exp, rtol=rtol, atol=atol)


def test_cross_entropy_defaults_and_keywords(device):
    rng = np.random.default_rng(3)
    x = rand((4, 3), minitorch.float64, rng)
    t = np.array([0, 2, 1, 2])
    exp = np_cross_entropy(x, t)
    assert_matches(F.cross_entropy(mt(x, minitorch.float64, device), long(t, device)), exp)
    assert_matches(F.cross_entropy(input=mt(x, minitorch.float64, device), target=long(t, device)), exp)
    assert F.cross_entropy(mt(x, minitorch.float32, device), long(t, device)).shape == ()
    # ignore_index equal to a real class excludes it
    got = F.cross_entropy(mt(x, minitorch.float64, device), long(t, device), ignore_index=2)
    assert_matches(got, np_cross_entropy(x, t, ignore_index=2))


@pytest.mark.parametrize("fn", ["cross_entropy", "nll_loss"])
def test_class_loss_non_contiguous(device, fn):
    rng = np.random.default_rng(4)
    x = rand((5, 6), minitorch.float64, rng)
    t = class_targets((6,), 5, rng)
    xt = mt(x, minitorch.float64, device).t()  # (6, 5), transposed
    assert not xt.is_contiguous()
    tt = long(np.stack([t, t]), device)[:, 0::1][0]
    f = getattr(F, fn)
    ref = np_cross_entropy(x.T, t) if fn == "cross_entropy" else np_nll(x.T, t, None, "mean", -100)
    assert_matches(f(xt, tt), ref)
    # strided spatial input: every other element of the last dim, and a permuted class dim
    x4 = rand((2, 3, 4, 10), minitorch.float64, rng)
    t4 = class_targets((2, 4, 5), 3, rng)
    xs = mt(x4, minitorch.float64, device)[..., ::2]
    assert not xs.is_contiguous()
    xs_np = x4[..., ::2]
    ref = (
        np_cross_entropy(xs_np, t4, reduction="none")
        if fn == "cross_entropy"
        else np_nll(xs_np, t4, None, "none", -100)
    )
    assert_matches(f(xs, long(t4, device), reduction="none"), ref)
    xp = mt(np.ascontiguousarray(np.moveaxis(x4, 1, -1)), minitorch.float64, device).permute(0, 3, 1, 2)
    assert not xp.is_contiguous()
    ref = np_cross_entropy(x4, class_targets((2, 4, 10), 3, np.random.default_rng(5)), reduction="sum")
    got = (
        F.cross_entropy(
            xp, long(class_targets((2, 4, 10), 3, np.random.default_rng(5)), device), reduction="sum"
        )
        if fn == "cross_entropy"
        else None
    )
    if got is not None:
        assert_matches(got, ref)


def test_cross_entropy_weight_non_contiguous(device):
    rng = np.random.default_rng(6)
    x = rand((4, 3), minitorch.float64, rng)
    t = np.array([0, 1, 2, 1])
    wbig = rand((3, 2), minitorch.float64, rng, 0.5, 2.0)
    w = mt(wbig, minitorch.float64, device)[:, 1]
    assert not w.is_contiguous()
    assert_matches(
        F.cross_entropy(mt(x, minitorch.float64, device), long(t, device), w),
        np_cross_entropy(x, t, wbig[:, 1]),
    )


@pytest.mark.parametrize("fn", ["cross_entropy", "nll_loss"])
def test_class_loss_empty_batch(device, fn):
    f = getattr(F, fn)
    x = minitorch.zeros(0, 4, device=device, requires_grad=True)
    t = minitorch.zeros(0, dtype=minitorch.int64, device=device)
    assert np.isnan(f(x, t).item())
    assert f(x, t, reduction="sum").item() == 0.0
    assert f(x, t, reduction="none").shape == (0,)
    f(x, t, reduction="sum").backward()
    assert x.grad.shape == (0, 4)


@pytest.mark.parametrize("fn", ["cross_entropy", "nll_loss"])
def test_class_loss_all_ignored_mean_is_nan(device, fn):
    f = getattr(F, fn)
    x = minitorch.randn(3, 4, device=device, dtype=minitorch.float64, requires_grad=True)
    t = long([-100, -100, -100], device)
    assert np.isnan(f(x, t).item())
    assert f(x, t, reduction="sum").item() == 0.0
    assert to_np(f(x, t, reduction="none")).tolist() == [0.0, 0.0, 0.0]
    f(x, t, reduction="sum").backward()
    assert to_np(x.grad).tolist() == [[0.0] * 4] * 3


@pytest.mark.parametrize("shape", [(3000, 50), (5000, 3), (40, 7, 300)], ids=str)
@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_cross_entropy_large(device, shape, reduction):
    """Many rows: the CPU's parallel chunks and the CUDA kernel's several blocks and last-block reduction."""
    rng = np.random.default_rng(7)
    x = rand(shape, minitorch.float32, rng)
    t = class_targets((shape[0],) + shape[2:], shape[1], rng, ignore_index=-100)
    w = rand((shape[1],), minitorch.float32, rng, 0.5, 2.0)
    xm = mt(x, minitorch.float32, device, requires_grad=True)
    got = F.cross_entropy(
        xm, long(t, device), mt(w, minitorch.float32, device), reduction, label_smoothing=0.1
    )
    exp = np_cross_entropy(x, t, w, reduction, -100, 0.1)
    assert_matches(got, exp, rtol=1e-4, atol=1e-5)
    # deterministic: the same call gives the same bits
    again = F.cross_entropy(
        xm, long(t, device), mt(w, minitorch.float32, device), reduction, label_smoothing=0.1
    )
    assert np.array_equal(to_np(got), to_np(again))


# ---- gradients


def np_ce_grad(x, t, reduction, g):
    """d loss / d x of plain cross entropy with class targets, (N, C)."""
    logp = np_log_softmax(x, 1)
    d = np.exp(logp) - np.eye(x.shape[1])[t]
    if reduction == "mean":
        return g * d / x.shape[0]
    if reduction == "sum":
        return g * d
    return g[:, None] * d


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_cross_entropy_grad_matches_formula(device, reduction):
    rng = np.random.default_rng(8)
    x = rand((5, 4), minitorch.float64, rng)
    t = class_targets((5,), 4, rng)
    xm = mt(x, minitorch.float64, device, requires_grad=True)
    loss = F.cross_entropy(xm, long(t, device), reduction=reduction)
    assert loss.grad_fn.name() == "CrossEntropyLossBackward0"
    g = rand(loss.shape, minitorch.float64, rng) if reduction == "none" else np.float64(1.0)
    loss.backward(mt(g, minitorch.float64, device))
    assert_matches(xm.grad, np_ce_grad(x, t, reduction, g))


GRAD_CASES = [
    # (input shape, target shape or "prob", weighted, label_smoothing, ignore_index)
    ((4, 3), (4,), False, 0.0, -100),
    ((4, 3), (4,), True, 0.0, 1),
    ((4, 3), (4,), True, 0.3, -100),
    ((3,), (), False, 0.2, -100),
    ((2, 3, 2, 2), (2, 2, 2), True, 0.1, 0),
    ((4, 3), "prob", True, 0.2, -100),
    ((2, 3, 2), "prob", False, 0.0, -100),
    ((3,), "prob", False, 0.0, -100),
]


@pytest.mark.parametrize("case", GRAD_CASES, ids=str)
@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_cross_entropy_gradcheck(device, case, reduction):
    rng = np.random.default_rng(9)
    xs, ts, weighted, ls, ignore = case
    C = xs[0] if len(xs) == 1 else xs[1]
    x = mt(rand(xs, minitorch.float64, rng), minitorch.float64, device, requires_grad=True)
    w = mt(rand((C,), minitorch.float64, rng, 0.5, 2.0), minitorch.float64, device) if weighted else None
    if ts == "prob":
        cdim = 0 if len(xs) == 1 else 1
        t = mt(
            np.exp(np_log_softmax(rand(xs, minitorch.float64, rng), cdim)), minitorch.float64, device, True
        )
    else:
        t = long(class_targets(ts, C, rng, ignore_index=ignore if ignore >= 0 else None), device)
        if ignore >= 0:
            t = long(np.where(to_np(t) == -100, ignore, to_np(t)), device)
    assert gradcheck(
        lambda a, b: F.cross_entropy(a, b, w, reduction, ignore, ls),
        (x, t),
    )


@pytest.mark.parametrize("shape", [(5, 4), (3, 9, 2, 3), (4, 40), (1, 200, 12)], ids=str)
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_cross_entropy_prob_targets_input_grad(device, shape, weighted, reduction):
    """Probability targets that need no gradient (the CPU's blocked short-row backward), smoothed or not:
    values against NumPy, the input's gradient by gradcheck."""
    rng = np.random.default_rng(27)
    C = shape[1]
    x = mt(rand(shape, minitorch.float64, rng), minitorch.float64, device, requires_grad=True)
    p = np.exp(np_log_softmax(rand(shape, minitorch.float64, rng), 1))
    t = mt(p, minitorch.float64, device)
    w = rand((C,), minitorch.float64, rng, 0.5, 2.0) if weighted else None
    wm = None if w is None else mt(w, minitorch.float64, device)
    for ls in (0.0, 0.2):
        got = F.cross_entropy(x, t, wm, reduction=reduction, label_smoothing=ls)
        assert_matches(got, np_cross_entropy(to_np(x), p, w, reduction, -100, ls))
        assert gradcheck(
            lambda a, ls=ls: F.cross_entropy(a, t, wm, reduction=reduction, label_smoothing=ls), (x,)
        )


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("shapes", CLASS_SHAPES, ids=str)
def test_nll_loss_gradcheck(device, reduction, shapes):
    rng = np.random.default_rng(10)
    xs, ts = shapes
    C = xs[0] if len(xs) == 1 else xs[1]
    x = mt(rand(xs, minitorch.float64, rng, -3.0, 0.0), minitorch.float64, device, requires_grad=True)
    w = mt(rand((C,), minitorch.float64, rng, 0.5, 2.0), minitorch.float64, device)
    t = long(class_targets(ts, C, rng, ignore_index=-100), device)
    assert gradcheck(lambda a: F.nll_loss(a, t, w, reduction), (x,))
    assert gradcheck(lambda a: F.nll_loss(a, t, reduction=reduction), (x,))


@pytest.mark.parametrize("dtype", [minitorch.float32, minitorch.float16, minitorch.bfloat16])
@pytest.mark.parametrize("prob", [False, True])
def test_cross_entropy_low_precision_grad(device, dtype, prob):
    """Half/bfloat16/float gradients against the float64 ones (computed in float inside the kernels)."""
    rng = np.random.default_rng(11)
    x = rand((6, 5), dtype, rng)
    t = (
        mt(np.exp(np_log_softmax(rand((6, 5), minitorch.float64, rng), 1)), minitorch.float64, device)
        if prob
        else long(class_targets((6,), 5, rng), device)
    )
    w = rand((5,), dtype, rng, 0.5, 2.0)
    grads = []
    for dt in (dtype, minitorch.float64):
        xm = mt(x, dt, device, requires_grad=True)
        tm = t.to(dt) if prob else t
        F.cross_entropy(xm, tm, mt(w, dt, device), label_smoothing=0.1).backward()
        assert xm.grad.dtype == dt
        grads.append(to_np(xm.grad))
    r, a = TOL[dtype]
    np.testing.assert_allclose(grads[0], grads[1], rtol=r, atol=a * 0.1)


# Logits of a large magnitude: PyTorch's log_softmax is (x - max) - log(sum), and lse = max + log(sum) rounds
# to max there (float32 1e30 + log 2), so a loss or softmax formed from lse loses log(sum) (a target at a
# maximum gave a loss of 0 and a gradient of 1 - 1 instead of 1/k - 1). One huge value per dtype: float16's
# largest is formed in float without rounding, so it only checks the path. Shapes reach each CPU path:
# short rows, short spatial blocks, long rows (the vector table's, over 256 classes), long spatial rows, and
# half types' scalar loop; an empty batch too.
HUGE = {minitorch.float32: 1e30, minitorch.bfloat16: 1e30, minitorch.float64: 1e300, minitorch.float16: 1e4}


def np_ce_input_grad(x, target, weight, reduction, ignore_index, eps):
    """d loss.sum() / d x of cross_entropy in float64: scale * (softmax * sum_c u_c - u_c) per row, u_c the
    row's weighted (smoothed) target; and the largest of the two terms, whose rounding bounds the error of
    their difference (the kernels add sum_c u_c in the input's precision)."""
    cdim = 0 if x.ndim == 1 else 1
    C = x.shape[cdim]
    xl = np.moveaxis(x, cdim, -1)
    w = np.ones(C) if weight is None else weight
    if target.shape == x.shape:
        u = w * (np.moveaxis(target, cdim, -1) * (1 - eps) + eps / C)
        denom = xl[..., 0].size
    else:
        keep = (target != ignore_index)[..., None]
        onehot = np.eye(C)[np.where(target != ignore_index, target, 0)]
        u = w * (onehot * (1 - eps) + eps / C) * keep
        denom = (w * onehot * keep).sum()
    pa = np.exp(np_log_softmax(xl, -1)) * u.sum(-1, keepdims=True)
    g, mag = pa - u, np.abs(pa) + np.abs(u)
    if reduction == "mean":
        g, mag = g / denom, mag / denom
    return np.moveaxis(g, -1, cdim), float(mag.max()) if mag.size else 0.0


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("shape", [(5,), (6, 5), (0, 5), (2, 4, 3), (3, 300), (2, 300, 3)], ids=str)
@pytest.mark.parametrize("prob", [False, True])
@pytest.mark.parametrize("weighted", [False, True])
def test_cross_entropy_huge_logits(device, dtype, reduction, shape, prob, weighted):
    rng = np.random.default_rng(41)
    cdim = 0 if len(shape) == 1 else 1
    C = shape[cdim]
    big = HUGE[dtype]
    # each row: values in {big, 0, -big, 1}, a maximum of big at two classes or more (log(k) > 0)
    x = np.moveaxis(rng.choice([big, big, 0.0, -big, 1.0], size=shape), cdim, -1).copy()
    x[..., :2] = big
    at_max = x == big
    x = to_np(mt(np.moveaxis(x, -1, cdim), dtype, "cpu"))
    at_max = np.moveaxis(at_max, -1, cdim)
    w = rand((C,), dtype, rng, 0.5, 2.0) if weighted else None
    for eps in (0.0, 0.2):
        if prob:
            # the mass at the maxima (a loss of about log(k) that lse - x lost), a little elsewhere
            t = np.where(at_max, rng.uniform(0.5, 1.0, size=shape), rng.uniform(0.0, 1.0 / big, size=shape))
            t = to_np(mt(t, dtype, "cpu"))
            tm = mt(t, dtype, device, requires_grad=True)
        else:
            # targets at a maximum of their row, one elsewhere and one ignored where there are rows enough
            tl = np.moveaxis(at_max, cdim, -1).argmax(-1)
            if tl.size >= 3:
                tl.reshape(-1)[1] = np.moveaxis(x, cdim, -1).reshape(-1, C)[1].argmin()
                tl.reshape(-1)[2] = -100
            t = tl
            tm = long(t, device)
        xm = mt(x, dtype, device, requires_grad=True)
        wm = None if w is None else mt(w, dtype, device)
        got = F.cross_entropy(xm, tm, wm, reduction=reduction, label_smoothing=eps)
        with np.errstate(invalid="ignore"):  # an empty batch's mean, 0/0
            exp = np_cross_entropy(x, t, w, reduction, -100, eps)
        assert got.dtype == dtype
        r, a = TOL[dtype]
        assert_matches(got, exp, rtol=r, atol=a)
        got.sum().backward()
        exp_g, mag = np_ce_input_grad(x, t, w, reduction, -100, eps)
        assert_matches(xm.grad, exp_g, rtol=r, atol=a + r * mag)
        if prob:  # d loss / d t_c = -scale (1 - eps) w_c log_softmax(x)_c
            scale = 1.0 / (x.size / C) if reduction == "mean" and x.size else 1.0
            wb = np.ones(C) if w is None else w
            wb = wb.reshape([C] + [1] * (x.ndim - cdim - 1))
            exp_gt = -scale * (1 - eps) * wb * np_log_softmax(x, cdim)
            assert_matches(tm.grad, exp_gt, rtol=r, atol=a)


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
@pytest.mark.parametrize("C", [2, 300])
@pytest.mark.parametrize("smoothing", [0.0, 0.1])
def test_cross_entropy_infinite_targets(device, dtype, C, smoothing):
    """Infinite logits and probabilities (fuzz seed 4435's CrossEntropyLoss()(x, x) with a -inf): each term
    t_c ((m - x_c) + ls) as PyTorch's t_c log_softmax_c, so (-inf) (inf + 0) is -inf; ls times the sum of the
    targets (0 * -inf where ls = 0) gave NaN."""
    rng = np.random.default_rng(43)
    x = rand((4, C), dtype, rng)
    x[0, 0], x[1, 1], x[2, 0] = -np.inf, np.inf, -np.inf
    t = x.copy()
    t[2] = np.abs(t[2])
    got = F.cross_entropy(
        mt(x, dtype, device), mt(t, dtype, device), reduction="none", label_smoothing=smoothing
    )
    with np.errstate(invalid="ignore"):
        exp = np_cross_entropy(x, t, None, "none", -100, smoothing)
    r, a = TOL[dtype]
    assert np.array_equal(np.isnan(to_np(got)), np.isnan(exp)), (to_np(got), exp)
    assert_matches(got, exp, rtol=r, atol=a * max(1.0, float(np.nanmax(np.abs(exp[np.isfinite(exp)])))))


@pytest.mark.parametrize("dtype", [minitorch.float32, minitorch.float64])
@pytest.mark.parametrize("shape", [(2, 2, 1500), (3, 5, 700), (2, 40, 30)], ids=str)
@pytest.mark.parametrize("prob", [False, True])
@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_cross_entropy_spatial_grad(device, dtype, shape, prob, reduction):
    """(N, C, L) inputs' gradient (the CPU's blocks of positions worked in place, up to kBlockElems / C = 1024
    positions a block at two classes, several blocks per n) against float64 NumPy and against the same rows
    laid out as (N * L, C); weights, smoothing and ignore_index, an incoming gradient per position for none."""
    rng = np.random.default_rng(44)
    N, C, L = shape
    x = rand(shape, dtype, rng)
    w = rand((C,), dtype, rng, 0.5, 2.0)
    if prob:
        t = to_np(mt(np.exp(np_log_softmax(rand(shape, minitorch.float64, rng), 1)), dtype, "cpu"))
    else:
        t = class_targets((N, L), C, rng, ignore_index=-100)
    g = rand((N, L), dtype, rng, 0.5, 1.5) if reduction == "none" else np.asarray(1.0)
    r, a = TOL[dtype]
    grads = []
    for rows in (False, True):
        xs, ts, gs = x, t, g
        if rows:  # the same samples as rows of classes
            xs = x.transpose(0, 2, 1).reshape(-1, C)
            ts = t.transpose(0, 2, 1).reshape(-1, C) if prob else t.reshape(-1)
            gs = g.reshape(-1) if reduction == "none" else g
        xm = mt(xs, dtype, device, requires_grad=True)
        tm = mt(ts, dtype, device) if prob else long(ts, device)
        loss = F.cross_entropy(xm, tm, mt(w, dtype, device), reduction=reduction, label_smoothing=0.1)
        loss.backward(mt(gs, dtype, device))
        got = to_np(xm.grad)
        grads.append(got.reshape(N, L, C).transpose(0, 2, 1) if rows else got)
    exp_g, mag = np_ce_input_grad(x, t, w, reduction, -100, 0.1)
    gb = g[:, None, :] if reduction == "none" else g
    assert_matches(mt(grads[0], dtype, "cpu"), exp_g * gb, rtol=r, atol=a + r * mag * 2)
    np.testing.assert_allclose(grads[0], grads[1], rtol=r, atol=r * mag)


def test_cross_entropy_huge_logits_pytorch_example():
    """docs/reliability.md's fuzz seed 4435: PyTorch gives 1.886e30 (ours was 5e29) and the gradient
    [0, -1, 0, 0, 0.5] (softmax [1/2, 0, 1/2, 0, 0] times the target's sum, 2e30, less the target)."""
    v = [1e30, 1.0, 1e30, 0.0, -0.5]
    x = minitorch.tensor(v, requires_grad=True)
    loss = minitorch.nn.CrossEntropyLoss()(x, minitorch.tensor(v))
    xf = to_np(x)
    exp = np_cross_entropy(xf, xf)
    assert_matches(loss, exp)
    assert abs(loss.item() / 1.8862944e30 - 1) < 1e-6
    loss.backward()
    assert_matches(x.grad, np_ce_input_grad(xf, xf, None, "mean", -100, 0.0)[0])


def test_cross_entropy_grad_reaches_both_inputs_and_accumulates(device):
    x = minitorch.randn(3, 4, dtype=minitorch.float64, device=device, requires_grad=True)
    p = minitorch.softmax(minitorch.randn(3, 4, dtype=minitorch.float64, device=device), 1).requires_grad_()
    F.cross_entropy(x, p).backward()
    g1 = to_np(x.grad).copy()
    assert p.grad is not None
    F.cross_entropy(x, p).backward()
    np.testing.assert_allclose(to_np(x.grad), 2 * g1)


@pytest.mark.parametrize("case", GRAD_CASES, ids=str)
@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_cross_entropy_gradgradcheck(device, case, reduction):
    """create_graph=True: the gradient is built from recorded ops, so it differentiates again."""
    rng = np.random.default_rng(21)
    xs, ts, weighted, ls, ignore = case
    C = xs[0] if len(xs) == 1 else xs[1]
    x = mt(rand(xs, minitorch.float64, rng), minitorch.float64, device, requires_grad=True)
    w = mt(rand((C,), minitorch.float64, rng, 0.5, 2.0), minitorch.float64, device) if weighted else None
    if ts == "prob":
        cdim = 0 if len(xs) == 1 else 1
        t = mt(
            np.exp(np_log_softmax(rand(xs, minitorch.float64, rng), cdim)), minitorch.float64, device, True
        )
    else:
        t = long(class_targets(ts, C, rng, ignore_index=ignore), device)
    assert gradgradcheck(lambda a, b: F.cross_entropy(a, b, w, reduction, ignore, ls), (x, t))


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_nll_loss_gradgradcheck(device, reduction):
    rng = np.random.default_rng(22)
    x = mt(rand((4, 3), minitorch.float64, rng, -3.0, 0.0), minitorch.float64, device, requires_grad=True)
    w = mt(rand((3,), minitorch.float64, rng, 0.5, 2.0), minitorch.float64, device)
    t = long([0, 2, -100, 1], device)
    assert gradgradcheck(lambda a: F.nll_loss(a, t, w, reduction), (x,))


def test_cross_entropy_create_graph_matches_fused(device):
    rng = np.random.default_rng(23)
    x = mt(rand((5, 4), minitorch.float64, rng), minitorch.float64, device, requires_grad=True)
    t = long([0, 3, -100, 1, 2], device)
    w = mt(rand((4,), minitorch.float64, rng, 0.5, 2.0), minitorch.float64, device)
    (g1,) = minitorch.autograd.grad(F.cross_entropy(x, t, w, label_smoothing=0.2), x, create_graph=True)
    (g2,) = minitorch.autograd.grad(F.cross_entropy(x, t, w, label_smoothing=0.2), x)
    assert g1.requires_grad and not g2.requires_grad
    np.testing.assert_allclose(to_np(g1), to_np(g2), rtol=1e-12, atol=1e-14)


def test_cross_entropy_no_grad_records_nothing(device):
    x = minitorch.randn(3, 4, device=device, requires_grad=True)
    with minitorch.no_grad():
        loss = F.cross_entropy(x, long([0, 1, 2], device))
    assert loss.grad_fn is None and not loss.requires_grad


def test_cross_entropy_saved_input_modified_raises(device):
    x = minitorch.randn(3, 4, device=device, requires_grad=True)
    y = x * 1
    loss = F.cross_entropy(y, long([0, 1, 2], device))
    y.add_(1)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        loss.backward()


# ---- errors in PyTorch's words


def test_class_loss_errors(device):
    x = minitorch.randn(3, 5, device=device)
    t = long([0, 1, 2], device)
    with pytest.raises(
        ValueError, match=r"Expected input batch_size \(3\) to match target batch_size \(4\)\."
    ):
        F.cross_entropy(x, long([0, 1, 2, 3], device))
    with pytest.raises(
        ValueError, match=r"Expected input batch_size \(3\) to match target batch_size \(4\)\."
    ):
        F.nll_loss(x, long([0, 1, 2, 3], device))
    # PyTorch 2.15's words for a 2-D input (uint8 class indices are taken)
    with pytest.raises(RuntimeError, match="expected target dtype to be Long or Byte, but got Float"):
        F.cross_entropy(x, minitorch.zeros(3, device=device))
    with pytest.raises(RuntimeError, match="expected target dtype to be Long or Byte, but got Int"):
        F.nll_loss(x, t.int())
    with pytest.raises(
        RuntimeError,
        match=r"weight tensor should be defined either for all 5 classes or no classes but got weight tensor of "
        r"shape: \[4\]",
    ):
        F.cross_entropy(x, t, minitorch.ones(4, device=device))
    with pytest.raises(RuntimeError, match="cross_entropy: weight tensor should be defined either for all 5"):
        F.cross_entropy(x, minitorch.zeros(3, 5, device=device), minitorch.ones(2, device=device))
    with pytest.raises(
        RuntimeError, match="Expected floating point type for target with class probabilities, got Long"
    ):
        F.cross_entropy(x, minitorch.zeros(3, 5, dtype=minitorch.int64, device=device))
    with pytest.raises(RuntimeError, match="ignore_index is not supported for floating point target"):
        F.cross_entropy(x, minitorch.zeros(3, 5, device=device), ignore_index=1)
    with pytest.raises(RuntimeError, match=r"label_smoothing must be between 0.0 and 1.0. Got: 1.5"):
        F.cross_entropy(x, t, label_smoothing=1.5)
    with pytest.raises(RuntimeError, match=r"label_smoothing must be between 0.0 and 1.0. Got: -0.5"):
        F.cross_entropy(x, minitorch.zeros(3, 5, device=device), label_smoothing=-0.5)
    # a 0-d input with a 0-d target: probabilities to PyTorch 2.15 (same shapes), so a Long one is refused as such
    with pytest.raises(
        RuntimeError, match="Expected floating point type for target with class probabilities, got Long"
    ):
        F.cross_entropy(minitorch.tensor(1.0, device=device), long(0, device))
    with pytest.raises(ValueError, match="Expected 1 or more dimensions \\(got 0\\)"):
        F.nll_loss(minitorch.tensor(1.0, device=device), long(0, device))
    with pytest.raises(RuntimeError, match="0D or 1D target tensor expected, multi-target not supported"):
        F.nll_loss(x, minitorch.zeros(3, 2, dtype=minitorch.int64, device=device))
    with pytest.raises(RuntimeError, match=r"Expected target size \[3, 4\], got \[3, 5\]"):
        F.cross_entropy(
            minitorch.randn(3, 2, 4, device=device),
            minitorch.zeros(3, 5, dtype=minitorch.int64, device=device),
        )
    with pytest.raises(RuntimeError, match="not implemented for 'Long'"):
        F.cross_entropy(minitorch.zeros(3, 5, dtype=minitorch.int64, device=device), t)
    for fn in (F.cross_entropy, F.nll_loss):  # get_enum's deprecated spelling of mean, with its warning
        with pytest.warns(UserWarning, match=r"reduction='elementwise_mean' is deprecated"):
            got = fn(x, t, reduction="elementwise_mean")
        assert got.item() == fn(x, t, reduction="mean").item()
        with pytest.raises(ValueError, match="elementwise_sum is not a valid value for reduction"):
            fn(x, t, reduction="elementwise_sum")


def test_class_loss_target_out_of_bounds_cpu():
    x = minitorch.randn(3, 5)
    for fn in (F.cross_entropy, F.nll_loss):
        with pytest.raises(IndexError, match="Target 5 is out of bounds."):
            fn(x, long([0, 5, 1], "cpu"))
        with pytest.raises(IndexError, match="Target -1 is out of bounds."):
            fn(x, long([0, -1, 1], "cpu"), reduction="none")
    # raised from a worker thread of the parallel path too
    big = minitorch.randn(3000, 50)
    t = np.zeros(3000, dtype=np.int64)
    t[2500] = 50
    with pytest.raises(IndexError, match="Target 50 is out of bounds."):
        F.cross_entropy(big, long(t, "cpu"))


@pytest.mark.skipif(not minitorch.cuda.is_available(), reason="needs a GPU")
def test_class_loss_target_out_of_bounds_cuda_gives_nan():
    """On CUDA a bad target is not raised (that would need a sync): its row's loss and gradient are NaN."""
    x = minitorch.randn(3, 5, device="cuda", requires_grad=True)
    t = long([0, 7, 1], "cuda")
    none = to_np(F.cross_entropy(x, t, reduction="none"))
    assert np.isnan(none[1]) and np.isfinite(none[[0, 2]]).all()
    assert np.isnan(F.nll_loss(x, t).item())
    F.cross_entropy(x, t, reduction="none").sum().backward()
    g = to_np(x.grad)
    assert np.isnan(g[1]).all() and np.isfinite(g[[0, 2]]).all()


def test_class_loss_device_mismatch():
    if not minitorch.cuda.is_available():
        pytest.skip("needs a GPU")
    with pytest.raises(RuntimeError, match="Expected all tensors to be on the same device"):
        F.cross_entropy(minitorch.randn(3, 5, device="cuda"), long([0, 1, 2], "cpu"))


# ---- pointwise losses


def np_pointwise(name, x, t, **kw):
    d = x - t
    if name == "mse_loss":
        return d * d
    if name == "l1_loss":
        return np.abs(d)
    if name == "smooth_l1_loss":
        beta = kw.get("beta", 1.0)
        z = np.abs(d)
        return np.abs(d) if beta == 0 else np.where(z < beta, 0.5 * z * z / beta, z - 0.5 * beta)
    if name == "huber_loss":
        delta = kw.get("delta", 1.0)
        z = np.abs(d)
        return np.where(z < delta, 0.5 * z * z, delta * (z - 0.5 * delta))
    if name == "soft_margin_loss":
        return np.log1p(np.exp(-x * t))
    raise ValueError(name)


POINTWISE = [
    ("mse_loss", {}),
    ("l1_loss", {}),
    ("smooth_l1_loss", {}),
    ("smooth_l1_loss", {"beta": 0.5}),
    ("smooth_l1_loss", {"beta": 0.0}),
    ("huber_loss", {}),
    ("huber_loss", {"delta": 0.7}),
    ("soft_margin_loss", {}),
]


@pytest.mark.parametrize("name,kw", POINTWISE, ids=str)
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_pointwise_losses(device, name, kw, dtype, reduction):
    rng = np.random.default_rng(12)
    x = rand((4, 5), dtype, rng)
    t = rand((4, 5), dtype, rng)
    if name == "soft_margin_loss":
        t = np.sign(t) + (t == 0)
    got = getattr(F, name)(mt(x, dtype, device), mt(t, dtype, device), reduction, **kw)
    exp = reduce_np(np_pointwise(name, x, t, **kw), reduction)
    assert got.dtype == dtype
    rtol, atol = low_tol(dtype, exp)
    assert_matches(got, exp, rtol=rtol * 2, atol=atol * 2)


@pytest.mark.parametrize("name,kw", POINTWISE, ids=str)
@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_pointwise_losses_gradcheck(device, name, kw, reduction):
    rng = np.random.default_rng(13)
    x = mt(rand((3, 4), minitorch.float64, rng), minitorch.float64, device, True)
    # PyTorch's soft_margin_loss has no derivative for the target (it refuses one that requires grad)
    t = mt(rand((3, 4), minitorch.float64, rng), minitorch.float64, device, name != "soft_margin_loss")
    assert gradcheck(lambda a, b: getattr(F, name)(a, b, reduction, **kw), (x, t))


def test_pointwise_non_contiguous_and_broadcast(device):
    rng = np.random.default_rng(14)
    x = rand((5, 4), minitorch.float64, rng)
    t = rand((4, 5), minitorch.float64, rng)
    got = F.mse_loss(mt(x, minitorch.float64, device), mt(t, minitorch.float64, device).t())
    assert_matches(got, np.mean((x - t.T) ** 2))
    tb = rand((4,), minitorch.float64, rng)
    with pytest.warns(UserWarning, match=r"Using a target size \(torch.Size\(\[4\]\)\) that is different"):
        got = F.l1_loss(mt(x, minitorch.float64, device), mt(tb, minitorch.float64, device), "none")
    assert_matches(got, np.abs(x - tb))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        F.mse_loss(mt(x, minitorch.float64, device), mt(x, minitorch.float64, device))


@pytest.mark.parametrize("name", ["mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss", "soft_margin_loss"])
def test_pointwise_empty(device, name):
    x = minitorch.zeros(0, 3, device=device)
    f = getattr(F, name)
    assert np.isnan(f(x, x).item())
    assert f(x, x, "sum").item() == 0.0
    assert f(x, x, "none").shape == (0, 3)


def test_pointwise_errors(device):
    x = minitorch.randn(3, device=device)
    for name in ("mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss", "soft_margin_loss"):
        with pytest.raises(ValueError, match="avg is not a valid value for reduction"):
            getattr(F, name)(x, x, "avg")
    with pytest.raises(RuntimeError, match="smooth_l1_loss does not support negative values for beta."):
        F.smooth_l1_loss(x, x, beta=-1.0)
    with pytest.raises(RuntimeError, match="huber_loss does not support non-positive values for delta."):
        F.huber_loss(x, x, delta=0.0)


def test_soft_margin_loss_refuses_what_pytorch_refuses(device):
    # fuzz seed 2201: an integer input gave an integer 0, a target broadcasting past input's shape and a target
    # requiring grad were accepted
    x = minitorch.randn(3, device=device)
    t = minitorch.ones(3, device=device, requires_grad=True)
    with pytest.raises(RuntimeError, match="not differentiable with respect to argument 'target'"):
        F.soft_margin_loss(x, t)
    with minitorch.no_grad():
        F.soft_margin_loss(x, t)
    with pytest.raises(
        RuntimeError,
        match=re.escape("output with shape [5, 4, 1] doesn't match the broadcast shape [5, 4, 2]"),
    ):
        F.soft_margin_loss(
            minitorch.ones(5, 4, 1, device=device), minitorch.ones(5, 4, 2, device=device), reduction="none"
        )
    i = minitorch.tensor([1, -1], device=device)
    with pytest.raises(RuntimeError, match="result type Float can't be cast to the desired output type Long"):
        F.soft_margin_loss(i, i)
    # a smaller target broadcasts, an integer target follows the float input
    got = F.soft_margin_loss(
        minitorch.zeros(5, 2, device=device), minitorch.tensor([1, -1], device=device), "none"
    )
    assert got.shape == (5, 2) and got.dtype == minitorch.float32
    np.testing.assert_allclose(got.cpu().numpy(), np.full((5, 2), np.log(2.0)), rtol=1e-6)


# ---- binary cross entropy, kl_div


def np_bce(x, t, w=None):
    loss = -(t * np.maximum(np.log(x), -100) + (1 - t) * np.maximum(np.log1p(-x), -100))
    return loss if w is None else loss * w


def np_bce_logits(x, t, w=None, pw=None):
    log_sig = np.minimum(x, 0) - np.log1p(np.exp(-np.abs(x)))
    if pw is not None:
        log_sig = log_sig * ((pw - 1) * t + 1)
    loss = (1 - t) * x - log_sig
    return loss if w is None else loss * w


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("weighted", [False, True])
def test_binary_cross_entropy(device, dtype, reduction, weighted):
    rng = np.random.default_rng(15)
    x = rand((4, 3), dtype, rng, 0.02, 0.98)
    t = rand((4, 3), dtype, rng, 0.0, 1.0)
    w = rand((3,), dtype, rng, 0.5, 2.0) if weighted else None
    got = F.binary_cross_entropy(
        mt(x, dtype, device), mt(t, dtype, device), None if w is None else mt(w, dtype, device), reduction
    )
    exp = reduce_np(np_bce(x, t, w), reduction)
    rtol, atol = low_tol(dtype, exp)
    assert_matches(got, exp, rtol=rtol * 4, atol=atol * 4)


def test_binary_cross_entropy_clamps_log(device):
    x = mt([0.0, 1.0, 0.5], minitorch.float32, device)
    t = mt([1.0, 0.0, 1.0], minitorch.float32, device)
    assert_matches(F.binary_cross_entropy(x, t, reduction="none"), [100.0, 100.0, np.log(2.0)])


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_binary_cross_entropy_gradcheck(device, reduction):
    rng = np.random.default_rng(16)
    x = mt(rand((3, 4), minitorch.float64, rng, 0.1, 0.9), minitorch.float64, device, True)
    t = mt(rand((3, 4), minitorch.float64, rng, 0.0, 1.0), minitorch.float64, device, True)
    w = mt(rand((4,), minitorch.float64, rng, 0.5, 2.0), minitorch.float64, device)
    assert gradcheck(lambda a, b: F.binary_cross_entropy(a, b, w, reduction), (x, t))


def test_binary_cross_entropy_errors(device):
    t = minitorch.zeros(3, device=device)
    if device == "cpu":
        with pytest.raises(RuntimeError, match="all elements of input should be between 0 and 1"):
            F.binary_cross_entropy(mt([0.5, 1.5, 0.2], minitorch.float32, device), t)
    with pytest.raises(
        ValueError, match=r"Using a target size \(torch.Size\(\[2\]\)\) that is different to the input"
    ):
        F.binary_cross_entropy(minitorch.full((3,), 0.5, device=device), minitorch.zeros(2, device=device))
    with pytest.raises(ValueError, match="foo is not a valid value for reduction"):
        F.binary_cross_entropy(minitorch.full((3,), 0.5, device=device), t, reduction="foo")


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("pos_weighted", [False, True])
def test_bce_with_logits(device, dtype, reduction, weighted, pos_weighted):
    rng = np.random.default_rng(17)
    x = rand((4, 3), dtype, rng, -5, 5)
    x[0, 0], x[0, 1] = -100.0, 100.0  # no overflow at extreme logits
    t = rand((4, 3), dtype, rng, 0.0, 1.0)
    w = rand((3,), dtype, rng, 0.5, 2.0) if weighted else None
    pw = rand((3,), dtype, rng, 0.5, 3.0) if pos_weighted else None
    got = F.binary_cross_entropy_with_logits(
        mt(x, dtype, device),
        mt(t, dtype, device),
        None if w is None else mt(w, dtype, device),
        reduction,
        None if pw is None else mt(pw, dtype, device),
    )
    exp = reduce_np(np_bce_logits(x, t, w, pw), reduction)
    assert np.isfinite(to_np(got)).all()
    rtol, atol = low_tol(dtype, exp)
    assert_matches(got, exp, rtol=rtol * 4, atol=atol * 4)


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_bce_with_logits_gradcheck(device, reduction):
    rng = np.random.default_rng(18)
    x = mt(rand((3, 4), minitorch.float64, rng), minitorch.float64, device, True)
    t = mt(rand((3, 4), minitorch.float64, rng, 0.0, 1.0), minitorch.float64, device, True)
    w = mt(rand((4,), minitorch.float64, rng, 0.5, 2.0), minitorch.float64, device)
    pw = mt(rand((4,), minitorch.float64, rng, 0.5, 3.0), minitorch.float64, device)
    assert gradcheck(lambda a, b: F.binary_cross_entropy_with_logits(a, b, w, reduction, pw), (x, t))
    assert gradcheck(lambda a, b: F.binary_cross_entropy_with_logits(a, b, reduction=reduction), (x, t))


def test_bce_with_logits_errors(device):
    with pytest.raises(
        ValueError,
        match=r"Target size \(torch.Size\(\[2\]\)\) must be the same as input size \(torch.Size\(\[3\]\)\)",
    ):
        F.binary_cross_entropy_with_logits(
            minitorch.zeros(3, device=device), minitorch.zeros(2, device=device)
        )


def np_kl_div(x, t, log_target):
    if log_target:
        return np.exp(t) * (t - x)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(t == 0, 0.0, t * np.log(np.where(t == 0, 1.0, t))) - t * x


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
@pytest.mark.parametrize("reduction", REDUCTIONS + ["batchmean"])
@pytest.mark.parametrize("log_target", [False, True])
def test_kl_div(device, dtype, reduction, log_target):
    rng = np.random.default_rng(19)
    x = rand((4, 5), dtype, rng, -3, 0)
    t = rand((4, 5), dtype, rng, -3, 0) if log_target else rand((4, 5), dtype, rng, 0, 1)
    if not log_target:
        t[0, 0] = 0.0  # 0 * log 0 counts as 0
    got = F.kl_div(mt(x, dtype, device), mt(t, dtype, device), reduction, log_target)
    loss = np_kl_div(x, t, log_target)
    exp = np.asarray(loss.sum() / 4) if reduction == "batchmean" else reduce_np(loss, reduction)
    rtol, atol = low_tol(dtype, exp)
    assert_matches(got, exp, rtol=rtol * 4, atol=atol * 4)


@pytest.mark.parametrize("reduction", REDUCTIONS + ["batchmean"])
@pytest.mark.parametrize("log_target", [False, True])
def test_kl_div_gradcheck(device, reduction, log_target):
    rng = np.random.default_rng(20)
    x = mt(rand((3, 4), minitorch.float64, rng, -3, 0), minitorch.float64, device, True)
    lo, hi = (-3, 0) if log_target else (0.1, 1)
    t = mt(rand((3, 4), minitorch.float64, rng, lo, hi), minitorch.float64, device, True)
    assert gradcheck(lambda a, b: F.kl_div(a, b, reduction, log_target), (x, t))


def test_kl_div_errors(device):
    x = minitorch.zeros(3, device=device)
    with pytest.raises(ValueError, match="bad is not a valid value for reduction"):
        F.kl_div(x, x, "bad")


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_mse_loss_node_broadcast_and_double_backward(device, reduction):
    """mse_loss records one node; its gradient reaches a broadcast target and differentiates again."""
    rng = np.random.default_rng(24)
    x = mt(rand((3, 4), minitorch.float64, rng), minitorch.float64, device, True)
    t = mt(rand((4,), minitorch.float64, rng), minitorch.float64, device, True)
    loss = F.mse_loss(x, x * 1, reduction)
    assert loss.grad_fn.name() == "MseLossBackward0"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        assert gradcheck(lambda a, b: F.mse_loss(a, b, reduction), (x, t))
        assert gradgradcheck(lambda a, b: F.mse_loss(a, b, reduction), (x, t))
    xs = x.detach().requires_grad_()
    with pytest.warns(UserWarning, match="Using a target size"):
        out = F.mse_loss(xs, t.detach(), reduction)
    (out.sum() if reduction == "none" else out).backward()
    d = to_np(x) - to_np(t)
    exp = 2 * d / (d.size if reduction == "mean" else 1)
    assert_matches(xs.grad, exp)


@pytest.mark.parametrize("C", [3, 40, 100])
def test_cross_entropy_nonfinite_logits(device, C):
    """NaN in a row gives that row NaN; a -inf logit is a zero probability (both the short-row path and the
    vector path)."""
    rng = np.random.default_rng(25)
    x = rand((3, C), minitorch.float32, rng)
    x[0, C - 1] = np.nan
    x[1, 1] = -np.inf
    t = np.array([0, 0, 1])
    got = to_np(F.cross_entropy(mt(x, minitorch.float32, device), long(t, device), reduction="none"))
    assert np.isnan(got[0])
    exp = np_cross_entropy(x[1:], t[1:], reduction="none")
    np.testing.assert_allclose(got[1:], exp, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_cross_entropy_long_rows_float32_grad(device, reduction):
    """Rows long enough for the CPU's vector exp: values and gradient against float64 NumPy."""
    rng = np.random.default_rng(26)
    x = rand((7, 203), minitorch.float32, rng, -10, 10)
    t = class_targets((7,), 203, rng)
    xm = mt(x, minitorch.float32, device, requires_grad=True)
    loss = F.cross_entropy(xm, long(t, device), reduction=reduction)
    assert_matches(loss, np_cross_entropy(x, t, reduction=reduction), rtol=1e-5, atol=1e-5)
    g = rand(loss.shape, minitorch.float32, rng) if reduction == "none" else np.float64(1.0)
    loss.backward(mt(g, minitorch.float32, device))
    assert_matches(xm.grad, np_ce_grad(x, t, reduction, g), rtol=1e-5, atol=1e-7)


def test_binary_cross_entropy_grad_at_saturation(device):
    """x exactly 0 or 1 (a saturated sigmoid): PyTorch's finite gradient (x - t) / max(x (1 - x), 1e-12)."""
    x = mt([0.0, 1.0, 0.25], minitorch.float64, device, True)
    t = mt([1.0, 0.0, 1.0], minitorch.float64, device)
    loss = F.binary_cross_entropy(x, t, reduction="sum")
    assert loss.grad_fn.name() == "BinaryCrossEntropyBackward0"
    loss.backward()
    assert_matches(x.grad, [-1e12, 1e12, (0.25 - 1.0) / (0.25 * 0.75)])


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_binary_cross_entropy_weight_grad_and_double_backward(device, reduction):
    rng = np.random.default_rng(27)
    x = mt(rand((3, 4), minitorch.float64, rng, 0.1, 0.9), minitorch.float64, device, True)
    t = mt(rand((3, 4), minitorch.float64, rng, 0.0, 1.0), minitorch.float64, device, True)
    w = mt(rand((4,), minitorch.float64, rng, 0.5, 2.0), minitorch.float64, device, True)
    assert gradcheck(lambda a, b, c: F.binary_cross_entropy(a, b, c, reduction), (x, t, w))
    assert gradgradcheck(lambda a, b: F.binary_cross_entropy(a, b, w.detach(), reduction), (x, t))


def test_cross_entropy_with_a_0d_target_fails_as_pytorch():
    """ATen's order for a 0-d target (issue 34): a batched input compares batch sizes (the 0-d target's counts
    as 0, a ValueError), a 0-d input with a probability target reads its class dim 1 (an IndexError); a 1-D
    input takes a 0-d class index"""
    nf = minitorch.nn.functional
    for target in (minitorch.tensor(1), minitorch.tensor(1.5)):
        with pytest.raises(
            ValueError, match=re.escape("Expected input batch_size (2) to match target batch_size (0).")
        ):
            nf.cross_entropy(minitorch.ones(2, 5, 1, 2), target)
    with pytest.raises(IndexError, match=re.escape("Dimension specified as 1 but tensor has no dimensions")):
        nf.cross_entropy(minitorch.tensor(-0.76), minitorch.tensor(0.5))
    logits = np.array([0.5, -1.0, 2.0, 0.0, 1.0])
    got = nf.cross_entropy(minitorch.tensor(logits), minitorch.tensor(2))
    np.testing.assert_allclose(got.item(), -(logits[2] - np.log(np.exp(logits).sum())), rtol=1e-12)


@pytest.mark.parametrize("name", ["mse_loss", "l1_loss", "huber_loss"])
@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
def test_weighted_pointwise_losses_match_numpy(name, reduction):
    """F.mse_loss/l1_loss/huber_loss(weight=) as PyTorch 2.15 composes them: the elementwise loss times the
    weight; the mean divides by sum(weight) for mse and l1 and by the count for huber (the weight was ignored)"""
    rng = np.random.default_rng(3)
    x, y, w = rng.standard_normal((3, 4)), 3 * rng.standard_normal((3, 4)), rng.random((3, 4))
    d = x - y
    each = {
        "mse_loss": d**2,
        "l1_loss": np.abs(d),
        "huber_loss": np.where(np.abs(d) < 1, 0.5 * d**2, np.abs(d) - 0.5),
    }
    ref = each[name] * w
    if reduction == "sum":
        ref = ref.sum()
    elif reduction == "mean":
        ref = ref.sum() / w.sum() if name != "huber_loss" else ref.mean()
    xt = minitorch.tensor(x, requires_grad=True)
    got = getattr(minitorch.nn.functional, name)(
        xt, minitorch.tensor(y), reduction=reduction, weight=minitorch.tensor(w)
    )
    np.testing.assert_allclose(got.detach().numpy(), ref, rtol=1e-12)
    # xt[:, ::2] strided; gradient against finite differences (away from huber's kink at |d| = 1)
    assert gradcheck(
        lambda a: getattr(minitorch.nn.functional, name)(
            a, minitorch.tensor(y[:, ::2]), reduction="sum", weight=minitorch.tensor(w[:, ::2])
        ),
        (xt.detach()[:, ::2].requires_grad_(),),
    )
    with pytest.raises(ValueError, match="Weights and input must have the same size."):
        getattr(minitorch.nn.functional, name)(
            xt, minitorch.tensor(y), weight=minitorch.ones(4, dtype=minitorch.float64)
        )


@pytest.mark.parametrize("dtype", [minitorch.float32, minitorch.float64])
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("shape", [(3872, 16), (1000, 2), (40, 256), (9, 257)], ids=str)
def test_cross_entropy_many_short_rows(device, dtype, reduction, shape):
    """Class-index rows in the CPU's blocks of short rows (2 to 256 classes; 257 takes the row path): weighted,
    with ignored rows, values and gradient against float64 NumPy."""
    rng = np.random.default_rng(41)
    N, C = shape
    x = rand(shape, dtype, rng, -8, 8)
    t = class_targets((N,), C, rng, ignore_index=-100)
    w = rand((C,), dtype, rng, 0.5, 2.0)
    xm = mt(x, dtype, device, requires_grad=True)
    loss = F.cross_entropy(xm, long(t, device), mt(w, dtype, device), reduction=reduction)
    tol = 2e-5 if dtype == minitorch.float32 else 1e-12
    assert_matches(loss, np_cross_entropy(x, t, w, reduction), rtol=tol, atol=tol)
    g = rand(loss.shape, dtype, rng) if reduction == "none" else np.float64(1.5)
    loss.backward(mt(g, dtype, device))
    kept = t != -100
    tt = np.where(kept, t, 0)
    wt = np.where(kept, w.astype(np.float64)[tt], 0.0)
    d = wt[:, None] * (np.exp(np_log_softmax(x.astype(np.float64), 1)) - np.eye(C)[tt])
    if reduction == "none":
        d *= g[:, None]
    else:
        d *= g / (wt.sum() if reduction == "mean" else 1.0)
    assert_matches(xm.grad, d, rtol=tol, atol=tol)


def test_cross_entropy_short_rows_nonfinite_and_bad_target(device):
    """Blocks of short rows keep the row path's answers: NaN or +inf in a row, or a row all -inf, gives NaN
    (PyTorch's log_softmax too); a -inf logit is a zero probability; a target out of range raises."""
    x = np.zeros((64, 4), dtype=np.float32)
    x[1, 2], x[2, 0], x[3, :], x[4, 1] = np.nan, np.inf, -np.inf, -np.inf
    t = np.zeros(64, dtype=np.int64)
    got = to_np(F.cross_entropy(mt(x, minitorch.float32, device), long(t, device), reduction="none"))
    assert np.isnan(got[1:4]).all() and not np.isnan(got[[0, 4, 5]]).any()
    np.testing.assert_allclose(got[4], np.log(3.0), rtol=1e-6)
    np.testing.assert_allclose(got[0], np.log(4.0), rtol=1e-6)
    if device == "cpu":
        t[40] = 4
        with pytest.raises(IndexError, match="^Target 4 is out of bounds.$"):
            F.cross_entropy(mt(x, minitorch.float32, device), long(t, device))


@pytest.mark.parametrize(
    "name,kw", [("huber_loss", {"delta": 0.7}), ("smooth_l1_loss", {"beta": 0.5})], ids=str
)
@pytest.mark.parametrize("dtype", [minitorch.float32, minitorch.float64])
@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_huber_smooth_l1_fused_large(device, name, kw, dtype, reduction):
    """huber_loss / smooth_l1_loss over more values than one chunk of the CPU's fused kernel (2^15) and a
    strided input: values and both gradients against float64 NumPy, PyTorch's node names."""
    rng = np.random.default_rng(51)
    x = rand((300, 230), dtype, rng)
    t = rand((230, 300), dtype, rng).T  # a transposed target
    xm = mt(x, dtype, device, requires_grad=True)
    tm = mt(t.T, dtype, device).t().requires_grad_()
    loss = getattr(F, name)(xm, tm, reduction, **kw)
    assert (
        loss.grad_fn.name()
        == {"huber_loss": "HuberLossBackward0", "smooth_l1_loss": "SmoothL1LossBackward0"}[name]
    )
    x64, t64 = x.astype(np.float64), t.astype(np.float64)
    tol = 1e-5 if dtype == minitorch.float32 else 1e-12
    assert_matches(loss, reduce_np(np_pointwise(name, x64, t64, **kw), reduction), rtol=tol, atol=tol)
    g = rand(loss.shape, dtype, rng) if reduction == "none" else np.float64(2.5)
    loss.backward(mt(g, dtype, device))
    d = x64 - t64
    p = kw.get("delta", kw.get("beta"))
    dd = np.clip(d, -p, p) if name == "huber_loss" else np.clip(d / p, -1, 1)
    exp = dd * g / (d.size if reduction == "mean" else 1)
    assert_matches(xm.grad, exp, rtol=tol, atol=tol)
    assert_matches(tm.grad, -exp, rtol=tol, atol=tol)


@pytest.mark.parametrize("name", ["huber_loss", "smooth_l1_loss"])
@pytest.mark.parametrize("dtype", [minitorch.float32, minitorch.float64])
def test_huber_smooth_l1_layouts(device, name, dtype):
    """The fused kernel over operands of other layouts: a transposed pair is read in place and the loss and the
    gradient keep its strides, a mixed pair takes the first operand's order, a stepped slice is gathered
    (PyTorch's TensorIterator strides: (1, 7) for a transposed (7, 5)); values against float64 NumPy."""
    rng = np.random.default_rng(52)
    a, b = rand((5, 7), dtype, rng), rand((5, 7), dtype, rng)
    wide = rand((7, 10), dtype, rng)
    kw = {"delta": 0.8} if name == "huber_loss" else {"beta": 0.6}
    p = 0.8 if name == "huber_loss" else 0.6
    tol = 1e-5 if dtype == minitorch.float32 else 1e-12
    t_ = lambda v: mt(v, dtype, device).t()  # a (7, 5) view with strides (1, 7)
    c_ = lambda v: mt(v.T, dtype, device)
    cases = [
        (t_(a), t_(b), (1, 7)),
        (t_(a), c_(b), (1, 7)),
        (c_(a), t_(b), (5, 1)),
        (mt(wide, dtype, device)[:, ::2], t_(b), (5, 1)),
    ]
    for x, y, strides in cases:
        x.requires_grad_()
        x64, y64 = to_np(x).astype(np.float64), to_np(y).astype(np.float64)
        for reduction in REDUCTIONS:
            loss = getattr(F, name)(x, y, reduction, **kw)
            assert_matches(loss, reduce_np(np_pointwise(name, x64, y64, **kw), reduction), rtol=tol, atol=tol)
            if reduction == "none" and device == "cpu":  # the layout rule is the CPU kernel's
                assert loss.stride() == strides
            g = rand(loss.shape, dtype, rng) if reduction == "none" else np.float64(1.5)
            x.grad = None
            loss.backward(mt(g, dtype, device))
            d = x64 - y64
            dd = np.clip(d, -p, p) if name == "huber_loss" else np.clip(d / p, -1, 1)
            assert_matches(x.grad, dd * g / (d.size if reduction == "mean" else 1), rtol=tol, atol=tol)
            if device == "cpu" and x.stride() in ((1, 7), (5, 1)):  # zeros_like(input)'s layout
                assert x.grad.stride() == x.stride()


def test_huber_fused_nan_mixed_dtypes_and_double_backward(device):
    """A NaN difference gives a NaN loss and gradient; a float32 input with a float64 target (the composite
    path) gives huber_loss float32 and smooth_l1_loss float64, as PyTorch; create_graph gives a second
    derivative (the gradient built from ops)."""
    x = mt([0.5, np.nan, 3.0, -2.0], minitorch.float32, device, requires_grad=True)
    t = mt([0.0, 0.0, 0.0, 0.0], minitorch.float32, device)
    loss = F.huber_loss(x, t, "none")
    loss.sum().backward()
    assert np.isnan(to_np(loss)[1]) and np.isnan(to_np(x.grad)[1])
    np.testing.assert_allclose(to_np(x.grad)[[0, 2, 3]], [0.5, 1.0, -1.0])
    u, v = mt([0.25, 2.0], minitorch.float32, device), mt([0.0, 0.0], minitorch.float64, device)
    y = F.smooth_l1_loss(u, v)
    assert y.dtype == minitorch.float64 and y.item() == (0.03125 + 1.5) / 2
    y = F.huber_loss(u, v)
    assert y.dtype == minitorch.float32 and y.item() == (0.03125 + 1.5) / 2
    a = mt([0.3, -0.2, 1.5], minitorch.float64, device, requires_grad=True)
    b = mt([0.0, 0.1, 0.0], minitorch.float64, device)
    assert gradgradcheck(lambda u: F.huber_loss(u, b, "sum", delta=0.5), (a,))
    assert gradgradcheck(lambda u: F.smooth_l1_loss(u, b, "mean", beta=0.7), (a,))
