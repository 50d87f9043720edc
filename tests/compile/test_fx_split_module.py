"""torch.fx.passes.split_module: the split module's code and submodules against PyTorch's for the same
partitioning, values equal to the original, the options (keep_original_order, names, tuple_return, affix,
qualname_map) and the cycle error."""

import os
import subprocess

import numpy as np
import pytest

import minitorch as torch
from minitorch.fx.passes.split_module import split_module

# run by both libraries with `torch` bound to each; prints what is compared
SCRIPT = """
class MyModule(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.param = torch.nn.Parameter(torch.rand(3, 4))
        self.linear = torch.nn.Linear(4, 5)
        self.sub = torch.nn.Sequential(torch.nn.Linear(5, 5))
    def forward(self, x, y):
        z = self.linear(x + self.param).clamp(min=0.0, max=1.0)
        w = self.linear(y).clamp(min=0.0, max=1.0)
        return self.sub(z + w).relu(), w

def run(options):
    torch.manual_seed(0)
    mm = MyModule()
    tr = torch.fx.symbolic_trace(mm)
    counter = [0]
    def part(node):
        p = min(counter[0] // 3, 2)  # contiguous blocks: no cycle between partitions
        counter[0] += 1
        return p
    qm = {}
    res = split_module(tr, mm, part, qualname_map=qm, **options)
    out = [res.code, [n for n, _ in res.named_children()], sorted(qm.items())]
    out += [(n, sm.code) for n, sm in res.named_children()]
    x, y = torch.rand(3, 4), torch.rand(3, 4)
    a, b = res(x, y), tr(x, y)
    out.append(all(bool(torch.equal(p, q)) for p, q in zip(a, b)))
    return out

OPTIONS = [{}, {"keep_original_order": True}, {"keep_original_node_name": True, "keep_original_input_name": False},
           {"tuple_return": True, "partition_affix": "p"}]
"""


def _ours():
    ns = {"torch": torch, "split_module": split_module}
    exec(SCRIPT, ns)  # noqa: S102  (our own source)
    return ns


@pytest.mark.parametrize("index", range(4))
def test_split_runs_and_matches_original(index):
    ns = _ours()
    out = ns["run"](ns["OPTIONS"][index])
    assert out[-1] is True


def test_split_structure():
    ns = _ours()
    code, children, qm = ns["run"]({})[:3]
    assert children == ["submod_0", "submod_1", "submod_2"]
    assert "submod_0 = self.submod_0(x, param)" in code and "submod_2 = self.submod_2(getitem)" in code
    assert ("submod_0.linear", "linear") in qm


def test_split_matches_pytorch():
    py = os.environ.get("MINITORCH_ORACLE_PYTHON")
    if not py or not os.path.exists(py):
        pytest.skip("no PyTorch to compare with: set MINITORCH_ORACLE_PYTHON to a Python that imports torch")
    script = (
        "import json, torch\nfrom torch.fx.passes.split_module import split_module\n"
        f"{SCRIPT}\nprint(json.dumps([run(o) for o in OPTIONS]))\n"
    )
    res = subprocess.run([py, "-c", script], check=False, capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stderr[-2000:]
    import json

    theirs = json.loads(res.stdout.strip().splitlines()[-1])
    ns = _ours()
    ours = json.loads(json.dumps([ns["run"](o) for o in ns["OPTIONS"]]))
    assert ours == theirs


def test_split_single_partition_and_functions():
    def f(x, y):
        a = torch.sin(x)
        b = a * y
        return torch.cat([a, b]).sum(0)

    gm = torch.fx.symbolic_trace(f)
    one = split_module(gm, None, lambda n: 0)
    assert [n for n, _ in one.named_children()] == ["submod_0"]
    x, y = torch.randn(2, 3), torch.randn(2, 3)
    np.testing.assert_allclose(one(x, y).numpy(), f(x, y).numpy())
    # per node: every op its own partition
    ids = {}
    per = split_module(gm, None, lambda n: ids.setdefault(n.name, len(ids)))
    assert len(list(per.named_children())) == 4
    np.testing.assert_allclose(per(x.t().contiguous().t(), y).numpy(), f(x, y).numpy())
    assert per.meta["partition_names"] == {"submod_0", "submod_1", "submod_2", "submod_3"}


def test_split_cycle_raises():
    def f(x):
        a = x + 1  # partition 0
        b = a * 2  # partition 1
        return b - a  # partition 0 again: 0 -> 1 -> 0

    gm = torch.fx.symbolic_trace(f)
    parts = {"add": 0, "mul": 1, "sub": 0}
    with pytest.raises(RuntimeError, match="^cycle exists between partitions!$"):
        split_module(gm, None, lambda n: parts[n.name])
