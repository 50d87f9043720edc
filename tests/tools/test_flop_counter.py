"""torch.utils.flop_counter.FlopCounterMode: totals and per-module, per-op counts of a small conv/linear model
(forward and backward), matmul's decompositions, bmm/baddbmm/addmm, convolutions (grouped, transposed,
unbatched), attention and einsum, all against PyTorch's counts; the table; nesting and the extent."""

import json
import os
import subprocess

import pytest

import minitorch as torch
from minitorch.utils.flop_counter import FlopCounterMode

# run by both libraries with `torch` bound to each; returns {case: {module: {op: flops}}}
SCRIPT = """
F = torch.nn.functional

class Block(torch.nn.Module):
    def __init__(s):
        super().__init__()
        s.conv = torch.nn.Conv2d(3, 4, 3, padding=1, stride=2)
        s.fc = torch.nn.Linear(4 * 4 * 4, 10)
    def forward(s, x):
        return s.fc(s.conv(x).relu().flatten(1))

class Net(torch.nn.Module):
    def __init__(s):
        super().__init__()
        s.block = Block()
        s.head = torch.nn.Linear(10, 5, bias=False)
        s.seq = torch.nn.Sequential(torch.nn.Linear(5, 3), torch.nn.Tanh())
    def forward(s, x):
        y = s.seq(s.head(s.block(x)))
        return y @ torch.ones(3, 6)

def counts(fc):
    return {k: {str(o): c for o, c in v.items()} for k, v in fc.get_flop_counts().items()}

def run():
    torch.manual_seed(0)
    out = {}
    net = Net()
    x = torch.randn(2, 3, 8, 8)
    with FlopCounterMode(display=False) as fc:
        net(x)
    out["forward"] = counts(fc)
    with FlopCounterMode(display=False) as fc:
        net(x).sum().backward()
    out["backward_params"] = counts(fc)
    with FlopCounterMode(display=False) as fc:
        net(x.clone().requires_grad_()).sum().backward()
    out["backward_all"] = counts(fc)
    a, b = torch.randn(3, 4, 5), torch.randn(3, 5, 6)
    with FlopCounterMode(display=False) as fc:
        torch.bmm(a, b)
        torch.baddbmm(torch.zeros(3, 4, 6), a, b)
        torch.addmm(torch.zeros(4, 6), a[0], b[0])
        torch.mm(a[0], b[0])
        a[0].mm(b[0].t().contiguous().t())
        a.bmm(b)
        torch.zeros(4, 6).addmm(a[0], b[0])
    out["products"] = counts(fc)
    with FlopCounterMode(display=False) as fc:
        torch.matmul(a, b)
        torch.matmul(a, b[0])
        torch.matmul(a[0, 0], b[0])
        torch.matmul(a[0], b[0, :, 0])
        torch.matmul(a[0, 0], b[0, :, 0])
        torch.matmul(a[0], b)
        torch.matmul(torch.randn(2, 1, 4, 5), torch.randn(3, 5, 2))
        a @ b
        a.matmul(b[0])
    out["matmul"] = counts(fc)
    with FlopCounterMode(display=False) as fc:
        F.conv1d(torch.randn(2, 4, 10), torch.randn(6, 2, 3), groups=2)
        F.conv_transpose2d(torch.randn(1, 4, 5, 5), torch.randn(4, 3, 3, 3), stride=2)
        F.conv2d(torch.randn(3, 6, 6), torch.randn(2, 3, 3, 3), padding=1)
        F.conv3d(torch.randn(1, 2, 4, 4, 4), torch.randn(3, 2, 2, 2, 2))
        F.linear(torch.randn(2, 3, 4), torch.randn(5, 4), torch.randn(5))
        F.linear(torch.randn(2, 3, 4).transpose(0, 1), torch.randn(5, 4), torch.randn(5))
        F.linear(torch.randn(2, 2, 3, 4), torch.randn(5, 4))
    out["conv_linear"] = counts(fc)
    q = torch.randn(2, 3, 7, 8, requires_grad=True)
    k = torch.randn(2, 3, 9, 8, requires_grad=True)
    v = torch.randn(2, 3, 9, 4)
    with FlopCounterMode(display=False) as fc:
        F.scaled_dot_product_attention(q, k, v, is_causal=False).sum().backward()
    out["sdpa"] = counts(fc)
    w = torch.randn(6, 2, 3, requires_grad=True)
    wt = torch.randn(4, 3, 3, 3, requires_grad=True)
    xt = torch.randn(1, 4, 5, 5, requires_grad=True)
    with FlopCounterMode(display=False) as fc:
        F.conv1d(torch.randn(2, 4, 10), w, groups=2).sum().backward()
        F.conv_transpose2d(xt, wt, stride=2).sum().backward()
    out["conv_backward"] = counts(fc)
    with FlopCounterMode(display=False) as fc:
        torch.einsum("bij,bjk->bik", a, b)
        torch.einsum("ij,jk->ik", a[0], b[0])
    out["einsum"] = counts(fc)
    return out
"""


def _ours():
    ns = {"torch": torch, "FlopCounterMode": FlopCounterMode}
    exec(SCRIPT, ns)  # noqa: S102  (our own source)
    return ns["run"]()


def test_small_model_counts():
    out = _ours()
    fwd = out["forward"]
    # conv: 2 * N * out spatial * c_out * c_in * k*k; fc: addmm 2*2*64*10; head: mm 2*2*10*5; seq: addmm; @: mm
    conv, fc, head, seq, tail = (
        2 * 2 * 16 * 4 * 3 * 9,
        2 * 2 * 64 * 10,
        2 * 2 * 10 * 5,
        2 * 2 * 5 * 3,
        2 * 2 * 3 * 6,
    )
    assert fwd["Global"] == {"aten.convolution": conv, "aten.addmm": fc + seq, "aten.mm": head + tail}
    assert fwd["Net.block.conv"] == {"aten.convolution": conv}
    assert fwd["Net.seq.0"] == {"aten.addmm": seq} and fwd["Net.seq"] == {"aten.addmm": seq}
    assert fwd["Net"] == fwd["Global"]
    bw = out["backward_params"]["Global"]
    # the input needs no gradient: the conv's backward is its weight gradient only, each mm twice but the first
    assert bw["aten.convolution_backward"] == conv
    assert bw["aten.mm"] == head + tail + 2 * fc + 2 * head + 2 * seq + tail


def test_counts_match_pytorch():
    py = os.environ.get("MINITORCH_ORACLE_PYTHON")
    if not py or not os.path.exists(py):
        pytest.skip("no PyTorch to compare with: set MINITORCH_ORACLE_PYTHON to a Python that imports torch")
    script = (
        "import json, torch\nfrom torch.utils.flop_counter import FlopCounterMode\n"
        f"{SCRIPT}\nprint(json.dumps(run()))\n"
    )
    res = subprocess.run([py, "-c", script], check=False, capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stderr[-2000:]
    theirs = json.loads(res.stdout.strip().splitlines()[-1])
    ours = _ours()
    for case in theirs:
        assert ours[case] == theirs[case], case


def test_table_and_display(capsys):
    m = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.ReLU(), torch.nn.Linear(8, 2))
    with FlopCounterMode(depth=1) as fc:
        m(torch.randn(3, 4))
    printed = capsys.readouterr().out
    assert printed.strip() == fc.get_table(1).strip()
    lines = printed.strip().splitlines()
    assert lines[0].split() == ["Module", "FLOP", "%", "Total"]
    assert lines[2].split() == ["Sequential", "288.000", "100.00%"]
    assert lines[3].split() == ["-", "aten.addmm", "288.000", "100.00%"]
    assert "Sequential.0" not in printed and "Sequential.0" in fc.get_table(2)
    assert fc.get_total_flops() == 2 * 3 * 4 * 8 + 2 * 3 * 8 * 2


def test_extent_nesting_and_restoration():
    orig_mm, orig_call = torch.mm, torch.nn.Module.__call__
    a = torch.randn(4, 5)
    with FlopCounterMode(display=False) as outer:
        torch.mm(a, a.t())
        with FlopCounterMode(display=False) as inner:
            torch.mm(a, a.t())
        y = torch.mm(a.requires_grad_(), a.t())
    assert torch.mm is orig_mm and torch.nn.Module.__call__ is orig_call
    assert inner.get_total_flops() == 160 and outer.get_total_flops() == 480
    y.sum().backward()  # after the extent: not counted
    assert outer.get_total_flops() == 480
    with FlopCounterMode(display=False) as fc:
        torch.mm(torch.empty(0, 3), torch.empty(3, 2))
        torch.add(a, a)  # not a counted op
    assert fc.get_total_flops() == 0 and fc.get_flop_counts() == {"Global": {torch.ops.aten.mm: 0}}
    with pytest.raises(RuntimeError, match="not reentrant"), fc, fc:
        pass
