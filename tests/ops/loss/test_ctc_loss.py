"""F.ctc_loss, nn.CTCLoss and torch.ctc_loss: losses against a NumPy sum over every alignment, gradients by finite
differences and against PyTorch, every target layout, reductions, zero_infinity, PyTorch's errors."""

import itertools

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
            lambda lp, tg: F.ctc_loss(lp, tg, minitorch.tensor([6.0, 5.0]), [2, 1]),
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
            "must be int, not str",
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
