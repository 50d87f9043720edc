"""F.linear_cross_entropy and nn.LinearCrossEntropyLoss: the reference path against a float64 NumPy cross
entropy of the linear logits, the chunked path (LinearCrossEntropyOptions) against the reference in values and
gradients, its backward-once rule, its fallbacks and the options' checks."""

import numpy as np
import pytest

import minitorch
from minitorch import nn
from minitorch.autograd import gradcheck
from minitorch.nn import functional as F


def _np_loss(x, W, b, t, cw, eps, ignore=-100):
    """Per-row losses and the 'mean' divisor of cross entropy with class weights and label smoothing."""
    z = x @ W.T + (0 if b is None else b)
    logp = z - z.max(1, keepdims=True)
    logp = logp - np.log(np.exp(logp).sum(1, keepdims=True))
    C = W.shape[0]
    w = np.ones(C) if cw is None else cw
    valid = t != ignore
    ts = np.where(valid, t, 0)
    nll = -logp[np.arange(len(t)), ts] * w[ts]
    smooth = -(logp * w).sum(1)
    loss = ((1 - eps) * nll + eps / C * smooth) * valid
    return loss, (w[ts] * valid).sum()


def _case(seed=0, N=37, D=8, C=50, dtype=minitorch.float64):
    rng = np.random.default_rng(seed)
    xn, Wn, bn = rng.standard_normal((N, D)), rng.standard_normal((C, D)), rng.standard_normal(C)
    tn = rng.integers(0, C, N)
    tn[3] = -100
    cw = rng.random(C) + 0.5
    leaf = lambda a: minitorch.tensor(a, dtype=dtype, requires_grad=True)
    return (xn, Wn, bn, tn, cw), (
        leaf(xn),
        leaf(Wn),
        leaf(bn),
        minitorch.tensor(tn),
        minitorch.tensor(cw, dtype=dtype),
    )


CHUNKED = nn.LinearCrossEntropyOptions(batch_chunk_size=8, chunking_method=None)


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("eps", [0.0, 0.2])
@pytest.mark.parametrize("weighted", [False, True])
def test_reference_and_chunked_match_numpy(reduction, eps, weighted):
    (xn, Wn, bn, tn, cwn), (x, W, b, t, cw) = _case()
    loss, denom = _np_loss(xn, Wn, bn, tn, cwn if weighted else None, eps)
    want = {"mean": loss.sum() / denom, "sum": loss.sum(), "none": loss}[reduction]
    kw = {"weight": cw} if weighted else {}
    ref = F.linear_cross_entropy(x, W, t, linear_bias=b, reduction=reduction, label_smoothing=eps, **kw)
    got = F.linear_cross_entropy(
        x, W, t, linear_bias=b, reduction=reduction, label_smoothing=eps, options=CHUNKED, **kw
    )
    np.testing.assert_allclose(ref.detach().numpy(), want, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(got.detach().numpy(), want, rtol=1e-12, atol=1e-12)
    go = minitorch.tensor(np.random.default_rng(1).standard_normal(tuple(ref.shape)))
    g_ref = minitorch.autograd.grad(ref, (x, W, b), go)
    g_got = minitorch.autograd.grad(got, (x, W, b), go)
    for a, c in zip(g_ref, g_got):
        np.testing.assert_allclose(c.numpy(), a.numpy(), rtol=1e-10, atol=1e-12)


def test_reference_gradients_by_finite_differences_and_k_dim():
    (_, _, _, _, _), (x, W, b, t, cw) = _case(N=5, D=3, C=4)
    t = minitorch.tensor([0, 3, -100, 1, 2])
    assert gradcheck(
        lambda a, w, c: F.linear_cross_entropy(a, w, t, linear_bias=c, weight=cw, label_smoothing=0.1),
        (x, W, b),
    )
    # K-dimensional loss: weight (C, d1, in_features), logits (N, C, d1)
    rng = np.random.default_rng(2)
    Wk = minitorch.tensor(rng.standard_normal((4, 2, 3)), requires_grad=True)
    tk = minitorch.tensor(rng.integers(0, 4, (5, 2)))
    got = F.linear_cross_entropy(x, Wk, tk)
    logits = (x @ Wk.reshape(8, 3).t()).reshape(5, 4, 2)
    assert minitorch.allclose(got, F.cross_entropy(logits, tk))


def test_chunked_sizes_dtypes_and_backward_once():
    (_, _, _, _, _), (x, W, b, t, _) = _case(N=64, D=16, C=40)
    ref = F.linear_cross_entropy(x, W, t, linear_bias=b)
    for opts in (
        nn.LinearCrossEntropyOptions(),
        nn.LinearCrossEntropyOptions(chunking_method="aspect_ratio:4"),
        nn.LinearCrossEntropyOptions(batch_chunk_size=1, chunking_method=None),
        nn.LinearCrossEntropyOptions(batch_chunk_size=1000, chunking_method=None),
    ):
        assert minitorch.allclose(
            F.linear_cross_entropy(x, W, t, linear_bias=b, options=opts), ref, rtol=1e-12
        )
    # PyTorch's chunk-size rule: a chunk's logits about as large as the input, capped under the reference's peak
    assert nn.LinearCrossEntropyOptions()._chunk_rows(4096, 512, 32000) == 128
    assert nn.LinearCrossEntropyOptions()._chunk_rows(100, 64, 64) == 16
    # half inputs accumulate in float32
    xh, Wh = x.detach().half().requires_grad_(), W.detach().half().requires_grad_()
    got = F.linear_cross_entropy(xh, Wh, t, options=nn.LinearCrossEntropyOptions())
    assert got.dtype == minitorch.float16
    want = F.linear_cross_entropy(xh.detach().float(), Wh.detach().float(), t)
    assert abs(got.item() - want.item()) < 1e-2
    got.backward()
    assert xh.grad.dtype == minitorch.float16 and Wh.grad.dtype == minitorch.float16
    # the scalar reductions hand out precomputed gradients once unless asked to keep them
    loss = F.linear_cross_entropy(x, W, t, options=CHUNKED)
    loss.backward(retain_graph=True)
    with pytest.raises(RuntimeError, match="allow_retain_graph=True"):
        loss.backward()
    x.grad = None
    keep = nn.LinearCrossEntropyOptions(batch_chunk_size=8, chunking_method=None, allow_retain_graph=True)
    loss = F.linear_cross_entropy(x, W, t, options=keep)
    loss.backward(retain_graph=True)
    first = x.grad.clone()
    loss.backward()
    assert minitorch.allclose(x.grad, 2 * first)


def test_fallbacks_and_bad_options():
    (_, _, _, _, _), (x, W, _, t, _) = _case(N=6, D=3, C=4)
    probs = minitorch.softmax(minitorch.randn(6, 4, dtype=minitorch.float64), 1)
    with pytest.warns(UserWarning, match="the chunked path does not take probability targets"):
        got = F.linear_cross_entropy(x, W, probs, options=CHUNKED)
    assert minitorch.allclose(got, F.cross_entropy(x @ W.t(), probs))
    with pytest.raises(ValueError, match="invalid acc_policy: 'x'"):
        nn.LinearCrossEntropyOptions(acc_policy="x")
    with pytest.raises(ValueError, match="invalid chunking_method: 'foo'"):
        nn.LinearCrossEntropyOptions(chunking_method="foo")
    with pytest.raises(ValueError, match="batch_chunk_size must be positive int or None, got 0"):
        nn.LinearCrossEntropyOptions(batch_chunk_size=0)
    with pytest.raises(IndexError, match="Target 9 is out of bounds"):
        F.linear_cross_entropy(x, W, minitorch.tensor([0, 1, 9, 0, 0, 0]), options=CHUNKED)
    with pytest.raises(ValueError, match="to match target batch_size"):
        F.linear_cross_entropy(x, W, minitorch.tensor([0, 1]), options=CHUNKED)
    with pytest.raises(TypeError, match="options must be a LinearCrossEntropyOptions"):
        F.linear_cross_entropy(x, W, t, options={"batch_chunk_size": 2})


def test_module_layout_and_repr():
    minitorch.manual_seed(0)
    m = nn.LinearCrossEntropyLoss(4, 6, out_features=(2,), bias=True)
    assert m.linear.weight.shape == (12, 4) and m.linear.bias.shape == (12,)
    x = minitorch.randn(3, 4)
    t = minitorch.randint(0, 6, (3, 2))
    logits = m.linear(x).reshape(3, 6, 2)
    assert minitorch.allclose(m(x, t), F.cross_entropy(logits, t))
    assert (
        "in_features=4, num_classes=6, out_features=(2,), bias=True, reduction=mean, ignore_index=None"
        in repr(m)
    )
    with pytest.raises(RuntimeError, match="expected weight shape to be \\(6,\\), got \\(5,\\)"):
        nn.LinearCrossEntropyLoss(4, 6, weight=minitorch.ones(5))
    with pytest.raises(RuntimeError, match="expected label_smoothing to be in range \\[0, 1\\], got 1.5"):
        nn.LinearCrossEntropyLoss(4, 6, label_smoothing=1.5)
