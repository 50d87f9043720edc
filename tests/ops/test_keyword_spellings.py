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
    """each expression's result here (an exception: its type and first line)"""
    import minitorch as torch

    t = torch.arange(24.0).reshape(2, 3, 4)
    out = []
    for e in expressions:
        try:
            r = eval(e, {"torch": torch, "t": t})
            out.append(tuple(r) if isinstance(r, tuple) else r)
        except Exception as err:  # noqa: BLE001  (the exception is the result)
            out.append(f"{type(err).__name__}: {str(err).splitlines()[0]}")
    return out


_ORACLE_SCRIPT = (
    "import json, sys, torch\n"
    "t = torch.arange(24.).reshape(2, 3, 4)\n"
    "out = []\n"
    "for e in json.load(sys.stdin):\n"
    "    try:\n"
    "        r = eval(e, {'torch': torch, 't': t})\n"
    "        out.append(list(r) if isinstance(r, tuple) else r)\n"
    "    except Exception as err:\n"
    "        out.append(f'{type(err).__name__}: {str(err).splitlines()[0]}')\n"
    "print(json.dumps(out))\n"
)


def _pytorch_results(exprs):
    """the same expressions' results under PyTorch (the oracle), as JSON values"""
    res = subprocess.run(
        [ORACLE, "-c", _ORACLE_SCRIPT], input=json.dumps(exprs), capture_output=True, text=True, timeout=300,
        check=False,
    )  # fmt: skip
    assert res.returncode == 0, res.stderr
    return json.loads(res.stdout)


def _ours(exprs):
    return json.loads(json.dumps([list(r) if isinstance(r, tuple) else r for r in _run(exprs)]))


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
    exprs = [c[0] for c in CASES]
    assert dict(zip(exprs, _ours(exprs))) == dict(zip(exprs, _pytorch_results(exprs)))


# PyTorch's parser takes NumPy's names for four parameters (axis for dim, keepdims for keepdim, x, a or x1 for
# input, x2 for other), only where the canonical name is not given too and only for its C++ parser's functions
# (torch.split, Tensor.norm and Tensor.unflatten are Python there and refuse them). (expression, result)
NUMPY_CASES = [
    ("t.sum(axis=1).tolist()", [[12.0, 15.0, 18.0, 21.0], [48.0, 51.0, 54.0, 57.0]]),
    ("torch.sum(t, axis=(0, 2), keepdims=True).shape", (1, 3, 1)),
    ("torch.sum(a=t, dim=0).shape", (3, 4)),
    ("torch.sum(x1=t).item()", 276.0),
    ("torch.mean(t, axis=1, keepdims=True).flatten().tolist()", [4.0, 5.0, 6.0, 7.0, 16.0, 17.0, 18.0, 19.0]),
    ("t.mean(axis=-1).shape", (2, 3)),
    ("torch.max(t, axis=2).indices.tolist()", [[3, 3, 3], [3, 3, 3]]),
    ("t.max(axis=0, keepdims=True).values.shape", (1, 3, 4)),
    ("torch.amax(t, axis=(1, 2)).tolist()", [11.0, 23.0]),
    ("torch.argmin(t, axis=1, keepdims=True).shape", (2, 1, 4)),
    ("torch.std(t, axis=0, keepdims=True).shape", (1, 3, 4)),
    ("torch.var_mean(t, axis=1)[1].shape", (2, 4)),
    ("torch.cumsum(t, axis=2)[0, 0].tolist()", [0.0, 1.0, 3.0, 6.0]),
    ("torch.logsumexp(t, axis=0).shape", (3, 4)),
    ("torch.nansum(t, axis=0).shape", (3, 4)),
    ("torch.all(t, axis=0).shape", (3, 4)),
    ("torch.count_nonzero(t, axis=0).tolist()[0]", [1, 2, 2, 2]),
    ("torch.softmax(t, axis=0).shape", (2, 3, 4)),
    ("t.softmax(axis=0).shape", (2, 3, 4)),
    ("torch.cat([t, t], axis=1).shape", (2, 6, 4)),
    ("torch.stack([t, t], axis=3).shape", (2, 3, 4, 2)),
    ("torch.unsqueeze(t, axis=0).shape", (1, 2, 3, 4)),
    ("torch.add(t, x2=t, alpha=2)[1, 2, 3].item()", 69.0),
    ("torch.add(x1=t, x2=t)[0, 0, 1].item()", 2.0),
    ("t.add(x2=t)[0, 0, 1].item()", 2.0),
    ("torch.maximum(x1=t, x2=-t).sum().item()", 276.0),
    ("round(torch.linalg.vector_norm(x=t).item() ** 2)", 4324),
    ("round(torch.linalg.vector_norm(input=t[0, 0]).item() ** 2)", 14),
    ("round(torch.linalg.norm(x=t[0, 0]).item() ** 2)", 14),
    ("torch.linalg.matrix_norm(t, keepdims=True).shape", (2, 1, 1)),
    ("torch.diff(t, axis=0).shape", (1, 3, 4)),
    ("torch.cummax(t, axis=1).indices[0, 2].tolist()", [2, 2, 2, 2]),
    ("torch.nanmean(t, axis=2).shape", (2, 3)),
    ("torch.quantile(t, 0.5, axis=0).shape", (3, 4)),
]

# calls PyTorch refuses: (expression, its exception type and message, first line)
NUMPY_ERRORS = [
    ("torch.sum(t, dim=0, axis=1)", "TypeError: sum() got an unexpected keyword argument 'axis'"),
    ("torch.cumsum(t, axis='a')", "TypeError: cumsum(): argument 'dim' must be int, not str"),
    (
        "torch.argmax(t, axis=0, keepdims='a')",
        "TypeError: argmax(): argument 'keepdim' must be bool, not str",
    ),
    ("torch.unsqueeze(t, axis=0.5)", "TypeError: unsqueeze(): argument 'dim' must be int, not float"),
    ("torch.split(t, 1, axis=0)", "TypeError: split() got an unexpected keyword argument 'axis'"),
    ("torch.norm(t, axis=0)", "TypeError: norm() got an unexpected keyword argument 'axis'"),
    ("t.norm(dim=0, keepdims=True)", "unexpected keyword argument 'keepdims'"),
    ("t.unflatten(axis=1, sizes=(3, 1))", "unexpected keyword argument 'axis'"),
    ("torch.transpose(t, axis0=0, axis1=1)", "TypeError: transpose()"),
]


@pytest.mark.parametrize("expr,expected", NUMPY_CASES, ids=[c[0] for c in NUMPY_CASES])
def test_numpy_keyword_names(expr, expected):
    assert _run([expr])[0] == expected


@pytest.mark.parametrize("expr,expected", NUMPY_ERRORS, ids=[c[0] for c in NUMPY_ERRORS])
def test_numpy_keyword_names_refused_as_pytorch_refuses(expr, expected):
    got = _run([expr])[0]
    assert isinstance(got, str) and expected in got, got


@pytest.mark.skipif(not ORACLE, reason="set MINITORCH_ORACLE_PYTHON to a Python with torch")
def test_numpy_keyword_names_match_pytorch():
    exprs = [c[0] for c in NUMPY_CASES]
    assert dict(zip(exprs, _ours(exprs))) == dict(zip(exprs, _pytorch_results(exprs)))
    # the refusals: ours words them as PyTorch's (its method names carry "Tensor." where they are Python)
    errs = [c[0] for c in NUMPY_ERRORS]
    for (e, expected), pt, mine in zip(NUMPY_ERRORS, _pytorch_results(errs), _run(errs)):
        assert isinstance(pt, str) and expected in pt, (e, pt)  # (the expectation is PyTorch's)
        assert isinstance(mine, str) and expected in mine, (e, mine)
