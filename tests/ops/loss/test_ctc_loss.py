"""F.ctc_loss, nn.CTCLoss and torch.ctc_loss: losses against a NumPy sum over every alignment, gradients by finite
differences and against PyTorch, every target layout, reductions, zero_infinity, PyTorch's errors."""

import itertools
import re

import numpy as np
import pytest
from utils import run_oracle

import minitorch
import minitorch.nn.functional as F


def brute_force_nll(probs, target, blank):
    """-log of the summed probability of every frame-by-frame path that collapses to target (tiny T only)."""
    t_len, classes = probs.shape
    total = 0.0
    for path in itertools.product(range(classes), repeat=t_len):
        collapsed = [c for i, c in enumerate(path) if c != blank and (i == 0 or path[i - 1] != c)]
        if collapsed == list(target):
            total += np.prod([probs[t, c] for t, c in enumerate(path)])
    return -np.log(total) if total > 0 else np.inf


def _log_softmax(a):
    a = a - a.max(-1, keepdims=True)
    return a - np.log(np.exp(a).sum(-1, keepdims=True))


@pytest.mark.parametrize("blank", (0, 2))
def test_ctc_matches_sum_over_alignments(device, blank):
    rng = np.random.default_rng(0)
    raw = rng.standard_normal((5, 4, 3))
    lp = _log_softmax(raw)
    labels = [c for c in range(3) if c != blank]
    targets = [[labels[0], labels[1]], [labels[0], labels[0]], [labels[1]], []]
    lengths_in = [5, 5, 3, 2]
    padded = np.full((4, 2), labels[0])
    for i, row in enumerate(targets):
        padded[i, : len(row)] = row
    got = F.ctc_loss(
        minitorch.tensor(lp, device=device),
        minitorch.tensor(padded, device=device),
        minitorch.tensor(lengths_in),
        minitorch.tensor([len(r) for r in targets]),
        blank=blank,
        reduction="none",
    )
    want = [brute_force_nll(np.exp(lp[: lengths_in[i], i]), targets[i], blank) for i in range(4)]
    np.testing.assert_allclose(got.cpu().numpy(), want, rtol=1e-12)


def test_ctc_reductions_layouts_and_module(device):
    rng = np.random.default_rng(1)
    lp = minitorch.tensor(_log_softmax(rng.standard_normal((6, 3, 5))), device=device)
    padded = minitorch.tensor([[1, 2, 2], [3, 4, 0], [4, 0, 0]], device=device)
    flat = minitorch.tensor([1, 2, 2, 3, 4, 4], device=device)
    ins, outs = (6, 5, 4), (3, 2, 1)
    none = F.ctc_loss(lp, padded, ins, outs, reduction="none")
    np.testing.assert_allclose(
        F.ctc_loss(lp, flat, ins, outs, reduction="none").cpu().numpy(), none.cpu().numpy()
    )
    np.testing.assert_allclose(F.ctc_loss(lp, padded, ins, outs, reduction="sum").item(), none.sum().item())
    mean = (none.cpu().numpy() / np.array(outs)).mean()
    np.testing.assert_allclose(F.ctc_loss(lp, padded, ins, outs).item(), mean, rtol=1e-6)
    np.testing.assert_allclose(minitorch.nn.CTCLoss()(lp, padded, ins, outs).item(), mean, rtol=1e-6)
    np.testing.assert_allclose(minitorch.ctc_loss(lp, padded, ins, outs, 0, 2).item(), none.sum().item())
    assert repr(minitorch.nn.CTCLoss()) == "CTCLoss()"
    # unbatched (T, C) with a 1-D target, float targets (cast), a strided log_probs
    one = F.ctc_loss(lp[:, 0], padded[0].float(), minitorch.tensor(6), minitorch.tensor(3), reduction="none")
    assert one.shape == () and abs(one.item() - none[0].item()) < 1e-5
    strided = lp.transpose(0, 1).contiguous().transpose(0, 1)
    assert not strided.is_contiguous()
    np.testing.assert_allclose(
        F.ctc_loss(strided, padded, ins, outs, reduction="none").cpu().numpy(), none.cpu().numpy(), rtol=1e-6
    )


def test_ctc_gradcheck():
    rng = np.random.default_rng(2)
    x = minitorch.tensor(rng.standard_normal((6, 3, 4)), requires_grad=True)
    targets = minitorch.tensor([[1, 2, 2], [3, 1, 0], [2, 0, 0]])
    for red in ("none", "mean", "sum"):
        assert minitorch.autograd.gradcheck(
            lambda a, red=red: F.ctc_loss(a.log_softmax(2), targets, [6, 5, 3], [3, 2, 1], reduction=red),
            (x,),
        )


def test_ctc_impossible_and_empty():
    x = minitorch.randn(2, 1, 3, dtype=minitorch.float64, requires_grad=True)
    loss = F.ctc_loss(x.log_softmax(2), minitorch.tensor([[1, 1, 1]]), [2], [3], reduction="sum")
    assert loss.item() == float("inf")
    loss.backward()
    assert x.grad.isnan().all()  # PyTorch's NaN gradient of an impossible sample
    x.grad = None
    loss = F.ctc_loss(
        x.log_softmax(2), minitorch.tensor([[1, 1, 1]]), [2], [3], reduction="sum", zero_infinity=True
    )
    loss.backward()
    assert loss.item() == 0.0 and (x.grad == 0).all()
    lp = minitorch.randn(3, 2, 3).log_softmax(2)
    got = F.ctc_loss(lp, minitorch.tensor([[1], [0]]), [0, 0], [1, 0], reduction="none")
    assert got.tolist() == [float("inf"), 0.0]  # an empty input explains only an empty target


@pytest.mark.parametrize(
    "call, kind, message",
    [
        (
            lambda lp, tg: F.ctc_loss(lp, tg, [7, 5], [2, 1]),
            RuntimeError,
            "input_lengths to have value at most 6",
        ),
        (lambda lp, tg: F.ctc_loss(lp, tg, [6, 5], [3, 1]), RuntimeError, "size at least 3 at dimension 1"),
        (
            lambda lp, tg: F.ctc_loss(lp, tg, [6, 5], [2]),
            RuntimeError,
            "target_lengths must be of size batch_size",
        ),
        (
            lambda lp, tg: F.ctc_loss(lp, tg, [6, 5], [2, 1], blank=4),
            RuntimeError,
            "blank must be in label range",
        ),
        (
            # (both lengths tensors: a tensor beside a list is PyTorch's invalid combination, test_reliability)
            lambda lp, tg: F.ctc_loss(lp, tg, minitorch.tensor([6.0, 5.0]), minitorch.tensor([2, 1])),
            RuntimeError,
            "input_lengths must be integral",
        ),
        (
            lambda lp, tg: F.ctc_loss(lp, tg, [6, 5], [2, 1], reduction="avg"),
            ValueError,
            "avg is not a valid",
        ),
        (
            lambda lp, tg: F.ctc_loss(lp[None], tg, [6, 5], [2, 1]),
            RuntimeError,
            "Expected 3-dimensional tensor",
        ),
        (
            lambda lp, tg: minitorch.ctc_loss(lp, tg, [6, 5], [2, 1], 0, "mean"),
            TypeError,
            # PyTorch's parser: two signatures (lengths as int lists or tensors), neither takes a str reduction
            re.escape(
                "ctc_loss() received an invalid combination of arguments - got (Tensor, Tensor, list, list, int, str)"
            ),
        ),
    ],
)
def test_ctc_bad_input(call, kind, message):
    lp = minitorch.randn(6, 2, 4).log_softmax(2)
    with pytest.raises(kind, match=message):
        call(lp, minitorch.tensor([[1, 2], [3, 0]]))


_ORACLE = """
import json, sys
import numpy as np
import torch
F = torch.nn.functional
cases = json.loads(sys.stdin.read())
out = []
for c in cases:
    x = torch.tensor(c["x"], dtype=torch.float64, requires_grad=True)
    loss = F.ctc_loss(x.log_softmax(2), torch.tensor(c["targets"]), c["ins"], c["outs"], blank=c["blank"],
                      reduction=c["reduction"], zero_infinity=c["zi"])
    loss.sum().backward()
    out.append([np.asarray(loss.detach()).tolist(), x.grad.tolist()])
print(json.dumps(out))
"""


def test_ctc_against_pytorch():
    rng = np.random.default_rng(3)
    cases, mine = [], []
    for reduction, zi, blank in itertools.product(("none", "mean", "sum"), (False, True), (0, 4)):
        x = rng.standard_normal((7, 4, 5))
        labels = [c for c in range(5) if c != blank]
        targets = [
            [labels[0], labels[1], labels[1]],
            [labels[2], labels[2], labels[3]],
            [labels[1], 0, 0],
            [0, 0, 0],
        ]
        targets = [[labels[0] if v == 0 and blank == 0 else v for v in row] for row in targets]
        case = {"x": x.tolist(), "targets": targets, "ins": [7, 6, 2, 3], "outs": [3, 3, 1, 0]}
        case.update(blank=blank, reduction=reduction, zi=zi)
        cases.append(case)
        xt = minitorch.tensor(x, requires_grad=True)
        loss = F.ctc_loss(
            xt.log_softmax(2), minitorch.tensor(targets), case["ins"], case["outs"], blank, reduction, zi
        )
        loss.sum().backward()
        mine.append([loss.detach().numpy(), xt.grad.numpy()])
    for ours, theirs in zip(mine, run_oracle(_ORACLE, cases)):
        for a, b in zip(ours, theirs):
            np.testing.assert_allclose(a, np.array(b, dtype=float), rtol=1e-9, atol=1e-12)


# ---- the CPU kernel (_C._ctc_loss and its backward): layouts, edge samples, dtypes, PyTorch's NaN rules


def brute_force_grad(x, target, blank, eps=1e-6):
    """d nll(log_softmax(x)) / dx of one sample (T, C) by central differences of the sum over alignments."""
    g = np.zeros_like(x)
    for i in np.ndindex(*x.shape):
        d = np.zeros_like(x)
        d[i] = eps
        hi = brute_force_nll(np.exp(_log_softmax(x + d)), target, blank)
        lo = brute_force_nll(np.exp(_log_softmax(x - d)), target, blank)
        g[i] = (hi - lo) / (2 * eps)
    return g


def test_ctc_kernel_strided_edge_samples_against_alignments():
    # (N, T, C) transposed: a log_probs whose batch stride is smaller than its frame stride; sample 0 repeats a
    # label (needs the blank between), 1 has an empty target, 2 a shorter input, 3 an empty input and target
    rng = np.random.default_rng(4)
    raw = rng.standard_normal((4, 5, 3))
    x = minitorch.tensor(raw, requires_grad=True)
    lp = x.transpose(0, 1).log_softmax(2)
    lp_strided = x.log_softmax(2).transpose(0, 1)
    assert not lp_strided.is_contiguous()
    targets = [[1, 1], [], [2, 1], []]
    ins, outs = [5, 5, 3, 0], [2, 0, 2, 0]
    padded = minitorch.tensor([[1, 1], [0, 0], [2, 1], [0, 0]])
    loss = F.ctc_loss(lp_strided, padded, ins, outs, reduction="none")
    want = [brute_force_nll(np.exp(_log_softmax(raw[i, : ins[i]])), targets[i], 0) for i in range(3)] + [0.0]
    np.testing.assert_allclose(loss.detach().numpy(), want, rtol=1e-12)
    np.testing.assert_allclose(
        F.ctc_loss(lp, padded, ins, outs, reduction="none").detach().numpy(), want, rtol=1e-12
    )
    loss.sum().backward()
    for i in range(3):
        want_g = brute_force_grad(raw[i, : ins[i]], targets[i], 0)
        np.testing.assert_allclose(x.grad.numpy()[i, : ins[i]], want_g, atol=1e-7)
        assert (x.grad.numpy()[i, ins[i] :] == 0).all()  # frames past the input length
    assert (x.grad.numpy()[3] == 0).all()


def test_ctc_kernel_batch_of_one_and_concatenated_targets():
    rng = np.random.default_rng(5)
    raw = rng.standard_normal((4, 1, 3))
    x = minitorch.tensor(raw, requires_grad=True)
    loss = F.ctc_loss(
        x.log_softmax(2), minitorch.tensor([2, 2], dtype=minitorch.int32), [4], [2], reduction="sum"
    )
    assert loss.item() == pytest.approx(
        brute_force_nll(np.exp(_log_softmax(raw[:, 0])), [2, 2], 0), rel=1e-12
    )
    loss.backward()
    np.testing.assert_allclose(x.grad.numpy()[:, 0], brute_force_grad(raw[:, 0], [2, 2], 0), atol=1e-7)


def test_ctc_kernel_float32_follows_float64():
    rng = np.random.default_rng(6)
    raw = rng.standard_normal((30, 3, 6))
    targets = minitorch.tensor(rng.integers(1, 6, (3, 8)))
    ins, outs = [30, 25, 20], [8, 5, 8]
    results = {}
    for dt in (minitorch.float32, minitorch.float64):
        x = minitorch.tensor(raw, dtype=dt, requires_grad=True)
        loss = F.ctc_loss(x.log_softmax(2), targets, ins, outs, reduction="none")
        assert loss.dtype == dt
        loss.sum().backward()
        assert x.grad.dtype == dt
        results[dt] = (loss.detach().double().numpy(), x.grad.double().numpy())
    for a, b in zip(results[minitorch.float32], results[minitorch.float64]):
        np.testing.assert_allclose(a, b, rtol=2e-5, atol=2e-6)


def test_ctc_kernel_impossible_samples_nan_and_zero_infinity():
    rng = np.random.default_rng(7)
    x = minitorch.tensor(rng.standard_normal((5, 2, 3)), requires_grad=True)
    targets = minitorch.tensor([[1, 1, 1], [1, 2, 0]])  # sample 0 needs 5 frames and gets 3
    loss = F.ctc_loss(x.log_softmax(2), targets, [3, 5], [3, 2], reduction="none")
    assert loss[0].item() == float("inf") and np.isfinite(loss[1].item())
    loss.sum().backward()
    g = x.grad.numpy()
    assert np.isnan(g[:3, 0]).all() and (g[3:, 0] == 0).all()  # NaN up to the input length, 0 past it
    assert np.isfinite(g[:, 1]).all()
    x.grad = None
    loss = F.ctc_loss(x.log_softmax(2), targets, [3, 5], [3, 2], reduction="none", zero_infinity=True)
    assert loss[0].item() == 0.0
    loss.sum().backward()
    assert (x.grad.numpy()[:, 0] == 0).all()
    np.testing.assert_allclose(x.grad.numpy()[:, 1], g[:, 1])


def test_ctc_kernel_gradient_is_not_twice_differentiable():
    x = minitorch.randn(5, 2, 4, dtype=minitorch.float64, requires_grad=True)
    loss = F.ctc_loss(x.log_softmax(2), minitorch.tensor([[1, 2], [3, 3]]), [5, 5], [2, 2])
    (g,) = minitorch.autograd.grad(loss, x, create_graph=True)
    assert g.requires_grad  # as PyTorch's: the gradient records, its own derivative raises
    with pytest.raises(RuntimeError, match="derivative for aten::_ctc_loss_backward is not implemented"):
        g.sum().backward()


def test_ctc_kernel_direct_call_and_errors():
    lp = minitorch.randn(6, 2, 4).log_softmax(2)
    nll, log_alpha = minitorch._C._ctc_loss(lp, minitorch.tensor([[1, 2], [3, 0]]), [6, 4], [2, 1])
    assert nll.shape == (2,) and log_alpha.shape == (2, 6, 5)
    for call, message in [
        (lambda: F.ctc_loss(lp, minitorch.tensor([1, 2, 3, 1]), [6, 5], [2, 1]), "size 3 at dimension 0"),
        (
            lambda: minitorch._C._ctc_loss(lp, minitorch.tensor([[1, 2], [3, 0]]), [-1, 4], [2, 1]),
            "at least 0",
        ),
        (
            lambda: minitorch._C._ctc_loss(lp, minitorch.tensor([[1, 2], [3, 0]]), [6, 4], [-1, 1]),
            "at least 0",
        ),
        (
            lambda: minitorch._C._ctc_loss(lp, minitorch.tensor([[[1, 2]]]), [6, 4], [2, 1]),
            "1 to 2 dimensions",
        ),
        (lambda: minitorch._C._ctc_loss(lp, minitorch.tensor([[1.0, 2.0], [3, 0]]), [6, 4], [2, 1]), "Int"),
    ]:
        with pytest.raises(RuntimeError, match=message):
            call()
    with pytest.raises(NotImplementedError, match="\"ctc_loss_cpu\" not implemented for 'Half'"):
        F.ctc_loss(lp.half(), minitorch.tensor([[1, 2], [3, 0]]), [6, 4], [2, 1])
    with pytest.raises(IndexError, match="target label 7 is out of range for 4 classes"):
        F.ctc_loss(lp, minitorch.tensor([[1, 7], [3, 0]]), [6, 4], [2, 1])


_KERNEL_ORACLE = """
import json, sys
import numpy as np
import torch
F = torch.nn.functional
out = []
for c in json.loads(sys.stdin.read()):
    dt = getattr(torch, c["dtype"])
    lp = torch.tensor(c["lp"], dtype=torch.float64).to(dt).requires_grad_()
    targets = torch.tensor(c["targets"])
    nll, log_alpha = torch._ctc_loss(lp, targets, c["ins"], c["outs"], 0, c["zi"])
    loss = F.ctc_loss(lp, targets, c["ins"], c["outs"], reduction="none", zero_infinity=c["zi"])
    (loss * torch.tensor(c["w"], dtype=dt)).sum().backward()
    out.append([nll.tolist(), log_alpha.tolist(), loss.tolist(), lp.grad.tolist()])
print(json.dumps(out))
"""


def test_ctc_kernel_against_pytorch():
    # log_alpha (inside each sample's lengths), the losses and the gradients, per dtype: an impossible sample
    # with and without zero_infinity, a -inf log-probability (PyTorch's gradient is NaN there), unnormalized
    # log-probabilities, repeated labels, uneven lengths and per-sample output gradients
    rng = np.random.default_rng(8)
    raw = rng.standard_normal((9, 5, 4)) * 2
    lp = raw - np.log(np.exp(raw).sum(-1, keepdims=True))
    lp[:, 4] = raw[:, 4]  # not normalized
    lp[3, 1, 2] = -np.inf
    targets = [[1, 1, 2, 3], [2, 3, 2, 0], [3, 3, 3, 3], [1, 0, 0, 0], [2, 1, 1, 0]]
    ins, outs = [9, 8, 5, 9, 7], [4, 3, 4, 1, 3]
    w = [1.0, 0.5, 2.0, -1.0, 0.25]
    cases = [
        {"lp": lp.tolist(), "targets": targets, "ins": ins, "outs": outs, "zi": zi, "w": w, "dtype": dt}
        for dt in ("float64", "float32")
        for zi in (False, True)
    ]
    theirs = run_oracle(_KERNEL_ORACLE, cases)
    for c, (t_nll, t_alpha, t_loss, t_grad) in zip(cases, theirs):
        dt = getattr(minitorch, c["dtype"])
        rtol, atol = (1e-12, 1e-12) if c["dtype"] == "float64" else (2e-5, 2e-5)
        x = minitorch.tensor(lp, dtype=minitorch.float64).to(dt).requires_grad_()
        tg = minitorch.tensor(targets)
        nll, log_alpha = minitorch._C._ctc_loss(x.detach(), tg, ins, outs, 0, c["zi"])
        np.testing.assert_allclose(nll.numpy(), t_nll, rtol=rtol)
        t_alpha = np.array(t_alpha, dtype=float)
        for b in range(5):  # PyTorch leaves log_alpha uninitialized past a sample's lengths
            got, want = (
                log_alpha.double().numpy()[b, : ins[b], : 2 * outs[b] + 1],
                t_alpha[b, : ins[b], : 2 * outs[b] + 1],
            )
            np.testing.assert_allclose(got, want, rtol=rtol, atol=atol)
        loss = F.ctc_loss(x, tg, ins, outs, reduction="none", zero_infinity=c["zi"])
        np.testing.assert_allclose(loss.detach().double().numpy(), t_loss, rtol=rtol)
        (loss * minitorch.tensor(w, dtype=dt)).sum().backward()
        np.testing.assert_allclose(
            x.grad.double().numpy(), np.array(t_grad, dtype=float), rtol=rtol, atol=atol
        )
