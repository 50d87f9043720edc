# PyTorch's deprecated signatures and "invalid combination of arguments" messages, checked against the oracle.
#
# The deprecated ones put the scalars first (addmm(beta, input, alpha, mat1, mat2), x.addcmul_(value, t1, t2));
# the messages list each signature with its "didn't match because" line, as PyTorch's parser words them.
import json
import os
import subprocess
import sys
import warnings

import pytest

import minitorch as torch
from tests.utils import run_oracle

# each expression's result (its values, or the exception's type and full message) and the deprecation warnings
# it gave, run under one library in a fresh interpreter (the warning comes once per process)
_SCRIPT = """
import json, sys, warnings
if sys.argv[1] == "minitorch":
    import minitorch as torch
else:
    import torch
M = torch.arange(4.0).reshape(2, 2) + 1
m = torch.tensor([[1.0, 2.0], [0.0, -1.0]])
v = torch.tensor([2.0, -3.0])
b = torch.arange(12.0).reshape(3, 2, 2) - 5
out = []
for expr in json.loads(sys.stdin.read()):
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        try:
            r = eval(expr)
            res = ["ok", r.tolist()]
        except Exception as e:
            res = [type(e).__name__, str(e)]
    # PyTorch's C++ warning ends in the place in its sources that raised it
    res.append([str(x.message).split(" (Triggered internally")[0] for x in w if "deprecated" in str(x.message)])
    out.append(res)
print(json.dumps(out))
"""


def _ours(exprs):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    res = subprocess.run(
        [sys.executable, "-c", _SCRIPT, "minitorch"],
        input=json.dumps(exprs),
        capture_output=True,
        text=True,
        timeout=600,
        env=env,
        check=True,
    )
    return json.loads(res.stdout.strip().splitlines()[-1])


def _theirs(exprs):
    return run_oracle(_SCRIPT.replace("sys.argv[1]", '"torch"'), exprs)


# every deprecated form PyTorch 2.15 takes: functions (with out=), methods and in-place methods, 0-dim tensors
# and bools as the scalars
DEPRECATED_CALLS = [
    "v.addmv(2, m, v)",  # the one warning (torch.addmm's lists a signature minitorch lacks: see below)
    "torch.addmm(2, M, m, m)",
    "torch.addmm(2, M, 3, m, m)",
    "torch.addmm(2, M, m, m, out=torch.empty(2, 2))",
    "torch.addmm(0.5, M, -1, m, m, out=torch.empty(2, 2))",
    "torch.addmm(torch.tensor(2.0), M, torch.tensor(3.0), m, m)",
    "torch.addmm(True, M, m, m)",
    "M.addmm(2, m, m)",
    "M.addmm(2, 3, m, m)",
    "M.clone().addmm_(2, m, m)",
    "M.clone().addmm_(2, 3, m, m)",
    "torch.addmv(2, v, m, v)",
    "torch.addmv(2, v, 3, m, v)",
    "torch.addmv(2, v, 3, m, v, out=torch.empty(2))",
    "v.clone().addmv_(2, 3, m, v)",
    "torch.addr(2, M, v, v)",
    "torch.addr(2, M, 3, v, v)",
    "M.addr(2, v, v)",
    "M.clone().addr_(-1, 2, v, v)",
    "torch.baddbmm(2, b, 3, b, b)",
    "b.baddbmm(2, b, b)",
    "b.clone().baddbmm_(2, 3, b, b)",
    "torch.addbmm(2, M, b, b)",
    "M.addbmm(2, 3, b, b)",
    "M.clone().addbmm_(2, b, b)",
    "torch.addcmul(v, 2, v, v)",
    "torch.addcmul(v, 2, v, v, out=torch.empty(2))",
    "v.addcmul(2, v, v)",
    "v.clone().addcmul_(0.5, v, v)",
    "torch.addcdiv(v, 2, v, v)",
    "v.clone().addcdiv_(torch.tensor(2.0), v, v)",
    # the usual forms beside them, unchanged
    "torch.addmm(M, m, m, beta=2, alpha=3)",
    "v.addmv(m, v, alpha=2)",
]

# bad calls around the deprecated forms and the usual ones: PyTorch's message, word for word (its deprecated
# signatures are in none of them). torch.addmm and torch.baddbmm are left out: PyTorch lists their CUDA-only
# out_dtype signature too, which minitorch does not have.
BAD_CALLS = [
    "M.addmm(2, m, 'a')",
    "M.addmm(2, m)",
    "M.addmm(2, 3, m, m, 5)",
    "M.addmm(2, 3, m, m, foo=5)",
    "M.addmm(2, 3, m, mat2=m, foo=5)",
    "M.addmm(m, mat2=m, beta='a', alpha=1, foo=2)",
    "M.clone().addmm_(2, 3, m, 'a')",
    "torch.addmv(2, v, m)",
    "torch.addmv(v, 'a', v)",
    "torch.addmv(v, m, v, 2, 3, 4)",
    "torch.addmv()",
    "v.addmv(2, 3, m)",
    "torch.addr(M, v)",
    "torch.addr(M, v, 'a')",
    "torch.addr(2, M, v, v, beta=2)",
    "M.addr(v, v, v)",
    "torch.addbmm(M, b, b, 'x')",
    "torch.addbmm(2, M, b, b, b)",
    "b.baddbmm()",
    "torch.addcmul(v, 2, v, v, value=3)",
    "torch.addcmul(v, v, v, v)",
    "torch.addcmul(v, v, v, value=None)",
    "torch.addcmul()",
    "v.addcmul(v, v, v)",
    "v.clone().addcmul_()",
]


# PyTorch's TypeError for bad calls of generated rows, hand bindings and Python composites, word for word: the
# "invalid combination" list with its "didn't match because" lines (shown only where the call gives as many
# arguments as PyTorch's split of the signature has pieces), one signature's "but expected (...)", keywords in
# PyTorch's order, and the errors of the one plausible signature
MESSAGE_CALLS = [
    "torch.clamp(M, 'a')",
    "M.clamp('a', 'b')",
    "M.clamp(min='a', max='b')",
    "M.clamp('a', max='b')",
    "torch.clip(M, M, 'a')",
    "M.squeeze_(None)",
    "M.squeeze('a')",
    "torch.movedim(M, (0,), 'a')",
    "M.movedim('a', 'b')",
    "torch.searchsorted(M, M, right=1)",
    "torch.searchsorted(M, 'a', 'b', 'c')",
    "torch.isin(M, M, invert=1)",
    "torch.bucketize(M, M, out_int32=1)",
    "M.where(M > 0, 'a')",
    "M.where(M > 0, 'a', 'b')",
    "torch.lerp(M, M, 'a')",
    "torch.lerp(M, 'a', 'b')",
    "M.lerp(M, 'a')",
    "M.fill_('a')",
    "M.fill_(M, M)",
    "torch.nn.functional.conv3d(M, 'a')",
    "torch.nn.functional.conv3d(M, M, None, 1, 0, 1, 'a')",
    "torch.nn.functional.conv1d(M, M, None, 1, 0, 1, 'a')",
    "torch.addr(M, v)",
    "torch.addbmm()",
    "torch.addmv(v, m, v, out=1, foo=2)",
    "torch.addbmm(M, b, b, beta='a')",
    "torch.nn.functional.rms_norm(M, (2,), 'a', 'b')",
    "M.index_add(0, 'a', M, 'b')",
    "torch.topk(M, 'a')",
    "torch.randint(0, 3)",
]


def test_deprecated_signatures_match_pytorch():
    """each deprecated call gives PyTorch's values; a bad one its TypeError; the usual forms are unchanged"""
    assert _ours(DEPRECATED_CALLS + BAD_CALLS) == _theirs(DEPRECATED_CALLS + BAD_CALLS)


def test_invalid_combination_messages_match_pytorch():
    ours, theirs = _ours(MESSAGE_CALLS), _theirs(MESSAGE_CALLS)
    assert [r[0] for r in theirs] == ["TypeError"] * len(
        MESSAGE_CALLS
    )  # each a refusal, so the test can fail
    assert ours == theirs
    assert sum("didn't match because" in r[1] for r in ours) >= 8


@pytest.mark.parametrize(
    "expr",
    [
        "M.addmm(2, m, m)",
        "M.clone().addmm_(2, 3, m, m)",
        "torch.addmv(2, v, 3, m, v)",
        "torch.addr(2, M, v, v, out=torch.empty(2, 2))",
        "b.baddbmm(2, b, b)",
        "v.clone().addcmul_(2, v, v)",
        "torch.addcdiv(v, 2, v, v)",
    ],
)
def test_deprecation_warning_is_pytorchs(expr):
    """the first deprecated call of a process warns with PyTorch's text (the deprecated signature, then the
    ones to use instead); a second, of any deprecated signature, does not"""
    exprs = [expr, "M.addmm(2, m, m)", "torch.add(M, 2, M)"]
    ours, theirs = _ours(exprs), _theirs(exprs)
    assert ours == theirs
    assert len(ours[0][2]) == 1 and ours[1][2] == [] and ours[2][2] == []


def test_addmm_function_warning():
    """torch.addmm's warning: PyTorch's, less the CUDA-only out_dtype signature it also suggests"""
    (ours,) = _ours(["torch.addmm(2, M, 3, m, m)"])
    (theirs,) = _theirs(["torch.addmm(2, M, 3, m, m)"])
    suggested = theirs[2][0].split("\n")
    assert ours[:2] == theirs[:2]
    assert ours[2] == ["\n".join(line for line in suggested if "out_dtype" not in line)]
    assert ours[2][0].startswith(
        "This overload of addmm is deprecated:\n\taddmm(Number beta, Tensor input, Number alpha, Tensor mat1, "
        "Tensor mat2, *, Tensor out = None)\nConsider using one of the following signatures instead:\n\t"
        "addmm(Tensor input, Tensor mat1, Tensor mat2, *, Number beta = 1, Number alpha = 1, Tensor out = None)"
    )


def test_deprecated_forms_have_gradients():
    """a deprecated call records the same graph as its usual form"""
    M = torch.ones(2, 2, dtype=torch.float64, requires_grad=True)
    m = torch.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=torch.float64, requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.addmm(2, M, 3, m, m).sum().backward()
        assert M.grad.tolist() == [[2.0, 2.0], [2.0, 2.0]]
        assert torch.autograd.gradcheck(lambda a, b: torch.addmm(0.5, a, -2, b, b), (M, m))
        assert torch.autograd.gradcheck(lambda a, b: a[0].addmv(2, 3, b, a[1]), (M, m))
