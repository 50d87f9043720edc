"""The keyword spellings PyTorch accepts for shape, view and factory calls (t.view(size=...),
torch.randint(low=, high=, size=), torch.cat(tensors=...)): each expression runs here, its result is the one
PyTorch gives (written down from PyTorch 2.x), and, when MINITORCH_ORACLE_PYTHON names a Python with torch,
the same expressions run there too and must agree."""

import json
import os
import subprocess

import pytest

import minitorch

# (expression, result): `t` is arange(24.).reshape(2, 3, 4); a result that is a torch.Size is written as a tuple
CASES = [
    ("t.view(size=(6, 4)).shape", (6, 4)),
    ("t.view(dtype=torch.int32).shape", (2, 3, 4)),
    ("t.reshape(shape=(6, 4)).shape", (6, 4)),
    ("torch.reshape(input=t, shape=(6, 4)).shape", (6, 4)),
    ("t.permute(dims=(2, 0, 1)).shape", (4, 2, 3)),
    ("torch.permute(input=t, dims=(2, 0, 1)).shape", (4, 2, 3)),
    ("t[:1].expand(size=(3, 3, 4)).shape", (3, 3, 4)),
    ("t[:1].expand(size=(3, -1, -1), implicit=False).shape", (3, 3, 4)),
    ("t[:1].expand_as(other=t).shape", (2, 3, 4)),
    ("t.view_as(other=t).shape", (2, 3, 4)),
    ("t.reshape_as(other=t).shape", (2, 3, 4)),
    ("t.transpose(dim0=0, dim1=2).shape", (4, 3, 2)),
    ("torch.transpose(input=t, dim0=0, dim1=2).shape", (4, 3, 2)),
    ("t.swapaxes(axis0=0, axis1=2).shape", (4, 3, 2)),
    ("torch.swapaxes(input=t, axis0=0, axis1=2).shape", (4, 3, 2)),
    ("t.swapdims(dim0=0, dim1=2).shape", (4, 3, 2)),
    ("t.unsqueeze(dim=0).shape", (1, 2, 3, 4)),
    ("torch.unsqueeze(input=t, dim=0).shape", (1, 2, 3, 4)),
    ("t[:1].squeeze(dim=0).shape", (3, 4)),
    ("torch.squeeze(input=t[:1], dim=0).shape", (3, 4)),
    ("torch.t(input=t[0]).shape", (4, 3)),
    ("torch.narrow(input=t, dim=1, start=0, length=2).shape", (2, 2, 4)),
    ("torch.unflatten(input=t, dim=2, sizes=(2, 2)).shape", (2, 3, 2, 2)),
    ("torch.cat(tensors=[t, t], dim=0).shape", (4, 3, 4)),
    ("torch.stack(tensors=[t, t]).shape", (2, 2, 3, 4)),
    ("torch.randint(low=0, high=5, size=(3,)).shape", (3,)),
    ("torch.randint(high=5, size=(3,)).shape", (3,)),
    ("torch.randint(2, high=3, size=(3,)).tolist()", [2, 2, 2]),
    ("torch.randint(4, 5, size=(2,)).tolist()", [4, 4]),
    ("torch.zeros(size=(2, 3)).shape", (2, 3)),
    ("torch.ones(size=[2]).shape", (2,)),
    ("torch.full(size=(2, 3), fill_value=1.5).shape", (2, 3)),
    ("torch.empty(size=(2, 3)).shape", (2, 3)),
    ("torch.rand(size=(2, 3)).shape", (2, 3)),
    ("torch.randn(size=(2, 3)).shape", (2, 3)),
    ("t.new_zeros(size=(2, 3)).shape", (2, 3)),
    ("t.new_empty_strided(size=(2, 3), stride=(1, 2)).stride()", (1, 2)),
    ("torch.empty_strided(size=(2, 3), stride=(1, 2)).stride()", (1, 2)),
    ("t.flip(dims=(0,))[0, 0, 0].item()", 12.0),
    ("t.repeat(repeats=(1, 2, 1)).shape", (2, 6, 4)),
    ("t.sum(dim=1, keepdim=True).shape", (2, 1, 4)),
    ("torch.arange(end=5).tolist()", [0, 1, 2, 3, 4]),
    ("torch.arange(start=1, end=5, step=2).tolist()", [1, 3]),
]


def _run(expressions):
    import minitorch as torch

    t = torch.arange(24.0).reshape(2, 3, 4)
    out = []
    for e in expressions:
        r = eval(e, {"torch": torch, "t": t})
        out.append(tuple(r) if isinstance(r, tuple) else r)
    return out


@pytest.mark.parametrize("expr,expected", CASES, ids=[c[0] for c in CASES])
def test_keyword_spelling(expr, expected):
    t = minitorch.arange(24.0).reshape(2, 3, 4)
    r = eval(expr, {"torch": minitorch, "t": t})
    assert (tuple(r) if isinstance(r, tuple) else r) == expected


def test_both_given_is_pytorchs_type_error():
    t = minitorch.arange(6.0)
    with pytest.raises(TypeError, match=r"view\(\) received an invalid combination of arguments"):
        t.view(2, 3, size=(3, 2))


ORACLE = os.environ.get("MINITORCH_ORACLE_PYTHON")


@pytest.mark.skipif(not ORACLE, reason="set MINITORCH_ORACLE_PYTHON to a Python with torch")
def test_results_match_pytorch():
    script = (
        "import json, sys, torch\n"
        "t = torch.arange(24.).reshape(2, 3, 4)\n"
        "out = []\n"
        "for e in json.load(sys.stdin):\n"
        "    r = eval(e, {'torch': torch, 't': t})\n"
        "    out.append(list(r) if isinstance(r, tuple) else r)\n"
        "print(json.dumps(out))\n"
    )
    exprs = [c[0] for c in CASES]
    res = subprocess.run(
        [ORACLE, "-c", script],
        input=json.dumps(exprs),
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert res.returncode == 0, res.stderr
    theirs = json.loads(res.stdout)
    ours = json.loads(json.dumps([list(r) if isinstance(r, tuple) else r for r in _run(exprs)]))
    assert dict(zip(exprs, ours)) == dict(zip(exprs, theirs))
