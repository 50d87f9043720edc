"""SyncBatchNorm's torch-level pieces: batch_norm_update_stats against NumPy and the oracle, the six CUDA-only ones'
CPU refusal in PyTorch's words, and their composed math (run on the CPU with the refusal lifted) against NumPy."""

import numpy as np
import pytest
from utils import cases_here_and_in_pytorch

import minitorch
from minitorch import _nn_ops

CUDA_ONLY = [
    "batch_norm_stats",
    "batch_norm_elemt",
    "batch_norm_gather_stats",
    "batch_norm_gather_stats_with_counts",
    "batch_norm_backward_reduce",
    "batch_norm_backward_elemt",
]


def test_update_stats_matches_numpy():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((4, 3, 5))
    rm, rv = minitorch.zeros(3, dtype=minitorch.float64), minitorch.ones(3, dtype=minitorch.float64)
    xt = minitorch.tensor(x).transpose(0, 2).contiguous().transpose(0, 2)  # non-contiguous
    mean, var = minitorch.batch_norm_update_stats(xt, rm, rv, 0.25)
    np.testing.assert_allclose(mean.numpy(), x.mean((0, 2)), rtol=1e-12)
    np.testing.assert_allclose(var.numpy(), x.var((0, 2)), rtol=1e-12)
    np.testing.assert_allclose(rm.numpy(), 0.25 * x.mean((0, 2)), rtol=1e-12)
    np.testing.assert_allclose(rv.numpy(), 0.75 + 0.25 * x.var((0, 2), ddof=1), rtol=1e-12)


CASES = r"""
def cases(torch):
    def enc(r):
        r = r if isinstance(r, tuple) else (r,)
        return [[list(t.shape), str(t.dtype), [str(round(v, 6)) for v in t.double().reshape(-1).tolist()]] for t in r]

    run = runner(enc)
    x = torch.arange(60.0, dtype=torch.float64).reshape(4, 3, 5).sin()
    m, v = torch.zeros(3, dtype=torch.float64), torch.ones(3, dtype=torch.float64)
    U = torch.batch_norm_update_stats
    out = {}
    out["stats"] = run(lambda: U(x, m, v, 0.1) + (m, v))
    out["none"] = run(lambda: U(x, None, None, 0.3))
    out["strided"] = run(lambda: U(x[:, :, ::2], m, None, 0.3) + (m,))
    out["int"] = run(lambda: U(x.int(), None, None, 0.1))
    out["mixed"] = run(lambda: U(x, m.float(), v.float(), 0.1))
    out["half"] = run(lambda: U(x.half(), m.float(), v.float(), 0.1))
    out["halfstats"] = run(lambda: U(x.float(), m.half(), v.half(), 0.1))
    out["empty"] = run(lambda: U(torch.ones(0, 3), None, None, 0.1))
    out["one"] = run(lambda: U(x.float()[:1, :, :1], None, torch.ones(3), 0.5))
    out["kind"] = run(lambda: U(torch.ones(4, 3), None, None, "a"))
    args = {
        "batch_norm_stats": (x, 1e-5),
        "batch_norm_elemt": (x, None, None, m, v, 1e-5),
        "batch_norm_gather_stats": (x, m[None], v[None], m, v, 0.1, 1e-5, 4),
        "batch_norm_gather_stats_with_counts": (x, m[None], v[None], m, v, 0.1, 1e-5, torch.tensor([4.0])),
        "batch_norm_backward_reduce": (x, x, m, v, None, True, True, True),
        "batch_norm_backward_elemt": (x, x, m, v, None, m, m, torch.tensor([4], dtype=torch.int32)),
    }
    for name, a in args.items():
        out[name] = run(lambda: getattr(torch, name)(*a))
    return out
"""


def test_matches_pytorch():
    ours, theirs = cases_here_and_in_pytorch(CASES, [("torch", minitorch)])
    assert ours.keys() == theirs.keys()
    for k in theirs:
        if k in CUDA_ONLY:  # the dispatcher's refusal, up to its list of registrations (a build's own)
            cut = "(if using custom build)."
            assert ours[k][0] == theirs[k][0] == "NotImplementedError"
            assert ours[k][1].split(cut)[0] == theirs[k][1].split(cut)[0], k
            continue
        assert ours[k] == theirs[k], k


@pytest.fixture
def on_cpu(monkeypatch):
    """the CUDA-only pieces with their CPU refusal lifted, so their math runs here"""
    monkeypatch.setattr(_nn_ops, "_cuda_only", lambda name, input: None)


def test_cuda_only_math_matches_numpy(on_cpu):
    rng = np.random.default_rng(3)
    eps, mom = 1e-5, 0.2
    parts = [rng.standard_normal((n, 3, 4)) for n in (2, 5)]
    whole = np.concatenate(parts)
    stats = [minitorch.batch_norm_stats(minitorch.tensor(p), eps) for p in parts]
    for (mean, invstd), p in zip(stats, parts):
        np.testing.assert_allclose(mean.numpy(), p.mean((0, 2)), rtol=1e-12)
        np.testing.assert_allclose(invstd.numpy(), 1 / np.sqrt(p.var((0, 2)) + eps), rtol=1e-12)
    means = minitorch.stack([s[0] for s in stats])
    invstds = minitorch.stack([s[1] for s in stats])
    counts = minitorch.tensor([8.0, 20.0], dtype=minitorch.float64)
    rm, rv = minitorch.zeros(3, dtype=minitorch.float64), minitorch.ones(3, dtype=minitorch.float64)
    x = minitorch.tensor(parts[0])
    gmean, ginvstd = minitorch.batch_norm_gather_stats_with_counts(
        x, means, invstds, rm, rv, mom, eps, counts
    )
    np.testing.assert_allclose(gmean.numpy(), whole.mean((0, 2)), rtol=1e-10)
    np.testing.assert_allclose(ginvstd.numpy(), 1 / np.sqrt(whole.var((0, 2)) + eps), rtol=1e-10)
    np.testing.assert_allclose(rm.numpy(), mom * whole.mean((0, 2)), rtol=1e-10)
    np.testing.assert_allclose(rv.numpy(), 1 - mom + mom * whole.var((0, 2), ddof=1), rtol=1e-10)
    same = minitorch.batch_norm_gather_stats(x, means[:1], invstds[:1], None, None, mom, eps, 8)
    np.testing.assert_allclose(same[0].numpy(), parts[0].mean((0, 2)), rtol=1e-10)

    # forward and backward of batch norm over the whole batch against autograd of the composite
    w = rng.standard_normal(3)
    b = rng.standard_normal(3)
    xw = minitorch.tensor(whole, requires_grad=True)
    wt = minitorch.tensor(w, requires_grad=True)
    bt = minitorch.tensor(b, requires_grad=True)
    y = minitorch.nn.functional.batch_norm(xw, None, None, wt, bt, training=True, eps=eps)
    gy = minitorch.tensor(rng.standard_normal(whole.shape))
    gx, gw, gb = minitorch.autograd.grad(y, (xw, wt, bt), gy)
    xt = xw.detach()
    out = minitorch.batch_norm_elemt(xt, wt.detach(), bt.detach(), gmean, ginvstd, eps)
    np.testing.assert_allclose(out.numpy(), y.detach().numpy(), rtol=1e-8, atol=1e-10)
    sum_dy, sum_dy_xmu, grad_w, grad_b = minitorch.batch_norm_backward_reduce(
        gy, xt, gmean, ginvstd, wt.detach(), True, True, True
    )
    np.testing.assert_allclose(grad_w.numpy(), gw.numpy(), rtol=1e-8)
    np.testing.assert_allclose(grad_b.numpy(), gb.numpy(), rtol=1e-8)
    count = minitorch.tensor([8, 20], dtype=minitorch.int32)
    grad_x = minitorch.batch_norm_backward_elemt(
        gy, xt, gmean, ginvstd, wt.detach(), sum_dy, sum_dy_xmu, count
    )
    np.testing.assert_allclose(grad_x.numpy(), gx.numpy(), rtol=1e-7, atol=1e-10)
    no_input = minitorch.batch_norm_backward_reduce(gy, xt, gmean, ginvstd, None, False, False, True)
    assert no_input[0] is None and no_input[1] is None and no_input[2] is None
    np.testing.assert_allclose(no_input[3].numpy(), gb.numpy(), rtol=1e-8)
