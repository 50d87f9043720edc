# PyTorch's argument kinds for int and bool parameters across the bindings: no bool for an int, no int for a
# bool, no float or float tensor for an int; NumPy ints, integer tensors (0-d, or one element for a SymInt) and
# None for int? accepted; the refusals worded as PyTorch's parser words them.
import numpy as np
import pytest

import minitorch as torch
from tests.utils import run_oracle

# (expression over torch, x, np; the outcome class PyTorch 2.15 gives: "ok" or the exception's name). Each
# expectation was read off the oracle; test_matches_pytorch checks them all against it again.
CASES = [
    # bool for int
    ("torch.chunk(x, True)", "TypeError"),
    ("x.chunk(True)", "TypeError"),
    ("x.chunk(2, True)", "TypeError"),
    ("x.transpose(True, 0)", "TypeError"),
    ("torch.transpose(x, 0, True)", "TypeError"),
    ("x.unsqueeze(True)", "TypeError"),
    ("torch.unsqueeze(x, True)", "TypeError"),
    ("x.narrow(0, True, 2)", "TypeError"),
    ("x.select(0, True)", "TypeError"),
    ("x.softmax(True)", "TypeError"),
    ("x.cumsum(True)", "TypeError"),
    ("x.split(True)", "TypeError"),
    ("x.diag(True)", "TypeError"),
    ("x.tril(True)", "TypeError"),
    ("x.index_select(True, torch.tensor([0]))", "TypeError"),
    ("x.gather(True, torch.zeros(4, 6, dtype=torch.long))", "TypeError"),
    ("x.scatter(True, torch.zeros(4, 6, dtype=torch.long), 1.0)", "TypeError"),
    ("x.kthvalue(True)", "TypeError"),
    ("x.unbind(True)", "TypeError"),
    ("torch.unbind(x, True)", "TypeError"),
    ("x.movedim(True, 0)", "TypeError"),
    ("x.flatten(True)", "TypeError"),
    ("x.size(True)", "TypeError"),
    ("x.stride(True)", "TypeError"),
    ("torch.cat([x, x], True)", "TypeError"),
    ("torch.stack([x, x], True)", "TypeError"),
    ("x.abs().multinomial(True)", "TypeError"),
    ("x.diagonal(True)", "TypeError"),
    ("x.polygamma(True)", "TypeError"),
    ("torch.linspace(0, 1, True)", "TypeError"),
    ("torch.randperm(True)", "TypeError"),
    ("torch.eye(True)", "TypeError"),
    ("torch.eye(2, True)", "TypeError"),
    ("torch.tril_indices(True, 3)", "TypeError"),
    ("torch.full((True,), 1.0)", "TypeError"),
    ("x.topk(True)", "TypeError"),
    (
        "torch.nn.functional.nll_loss(torch.randn(3, 4), torch.tensor([0, 1, 2]), ignore_index=True)",
        "TypeError",
    ),
    # int for bool
    ("x.sum(0, 1)", "TypeError"),
    ("x.sum(0, keepdim=0)", "TypeError"),
    ("x.amax(0, 1)", "TypeError"),
    ("x.argmax(0, 1)", "TypeError"),
    ("x.max(0, 1)", "TypeError"),
    ("x.median(0, 1)", "TypeError"),
    ("x.prod(0, 1)", "TypeError"),
    ("x.logsumexp(0, 1)", "TypeError"),
    ("x.topk(2, 1, 0)", "TypeError"),
    ("x.abs().multinomial(1, 1)", "TypeError"),
    ("torch.zeros(2, requires_grad=1)", "TypeError"),
    ("torch.zeros(2, pin_memory=1)", "TypeError"),
    ("torch.randn(2).requires_grad_(1)", "TypeError"),
    ("x.numpy(force=1)", "TypeError"),
    ("x.clone().copy_(x, 1)", "TypeError"),
    ("x.clone().index_put_((torch.tensor([0]),), torch.tensor(1.0), 1)", "TypeError"),
    ("x.nonzero(as_tuple=1)", "TypeError"),
    ("torch.gather(x, 0, torch.zeros(4, 6, dtype=torch.long), sparse_grad=1)", "TypeError"),
    ("torch.nn.functional.max_pool2d(torch.randn(1, 1, 4, 4), 2, ceil_mode=1)", "TypeError"),
    ("torch.nn.functional.avg_pool2d(torch.randn(1, 1, 4, 4), 2, ceil_mode=1)", "TypeError"),
    ("x.sum(0, np.bool_(True))", "TypeError"),
    ("x.sum(0, torch.tensor(True))", "TypeError"),
    ("x.mean(0, None)", "TypeError"),
    # float and float tensor for int
    ("torch.chunk(x, 2.0)", "TypeError"),
    ("torch.chunk(x, torch.tensor(2.0))", "TypeError"),
    ("x.topk(torch.tensor(2.0))", "TypeError"),
    ("x.renorm(2, torch.tensor(1.0), 1)", "TypeError"),
    ("x.unsqueeze(1.0)", "TypeError"),
    ("x.unsqueeze(torch.tensor(0.0))", "TypeError"),
    ("x.flatten(0.0)", "TypeError"),
    ("torch.linspace(0, 1, 5.0)", "TypeError"),
    ("torch.zeros(2.0)", "TypeError"),
    # __index__: NumPy ints and integer tensors are ints
    ("torch.chunk(x, np.int64(2))", "ok"),
    ("torch.chunk(x, torch.tensor(2))", "ok"),
    ("x.topk(torch.tensor(2))", "ok"),
    ("x.transpose(np.int64(1), 0)", "ok"),
    ("x.movedim(np.int64(0), 1)", "ok"),
    ("torch.cat([x, x], np.int64(1))", "ok"),
    ("x.size(np.int64(0))", "ok"),
    ("x.select(torch.tensor(0), 1)", "ok"),
    ("x.narrow(0, torch.tensor(1), 2)", "ok"),
    ("x.triu(np.int64(1))", "ok"),
    ("x.softmax(np.int64(1))", "ok"),
    ("x.split(torch.tensor(2))", "ok"),
    ("x.view(4, torch.tensor(6))", "ok"),
    ("x.view(torch.tensor([24]))", "ok"),
    ("torch.eye(np.int64(2))", "ok"),
    ("torch.empty(np.int64(3))", "ok"),
    ("x.flip(0)", "ok"),
    # None for int? / bool?; Scalars and floats take ints and bools
    ("x.argmax(None)", "ok"),
    ("x.std(None)", "ok"),
    ("x.clamp(True)", "ok"),
    ("x.pow(True)", "ok"),
    ("x.nan_to_num(1)", "ok"),
    ("torch.dropout(x, 0, False)", "ok"),
    ("torch.dropout(x, True, False)", "ok"),
    ("x.sum(0, True)", "ok"),
    ("x.sum(np.int64(0))", "ok"),
    # tensors for an int: PyTorch's `int` takes a 0-d integer tensor only (no bool, no other rank, no NumPy
    # array); its `SymInt` (topk's k, tril's diagonal, select's index, sizes) a one-element integer tensor
    ("torch.transpose(x, torch.tensor([0]), 1)", "TypeError"),
    ("torch.transpose(x, torch.tensor(True), 1)", "TypeError"),
    ("x.transpose(torch.tensor(0), 1)", "ok"),
    ("torch.cumsum(x, torch.tensor([0]))", "TypeError"),
    ("x.unsqueeze(torch.tensor([0]))", "TypeError"),
    ("x.unsqueeze(np.array(0))", "TypeError"),
    ("torch.chunk(x, np.array(2))", "TypeError"),
    ("x.softmax(torch.tensor([[1]]))", "TypeError"),
    ("x.size(torch.tensor([True]))", "TypeError"),
    ("x.topk(torch.tensor([2]))", "ok"),
    ("x.topk(torch.tensor([[2]], dtype=torch.uint8))", "ok"),
    ("x.topk(np.array(2))", "ok"),
    ("x.topk(np.array([2]))", "TypeError"),
    ("x.topk(2, torch.tensor([0]))", "TypeError"),
    ("x.kthvalue(torch.tensor([1]))", "ok"),
    ("x.tril(torch.tensor([1]))", "ok"),
    ("x.triu(torch.tensor([[1]]))", "ok"),
    ("x.select(0, torch.tensor([1]))", "ok"),
    ("x.select(torch.tensor([0]), 1)", "TypeError"),
    ("x.narrow(0, 1, torch.tensor([2]))", "ok"),
    ("x.abs().multinomial(torch.tensor([2]))", "ok"),
    ("torch.randperm(torch.tensor([3]))", "ok"),
    ("torch.eye(torch.tensor([2]), torch.tensor([3]))", "ok"),
    (
        "torch.nn.functional.nll_loss(torch.randn(3, 4), torch.tensor([0, 1, 2]), ignore_index=torch.tensor([1]))",
        "ok",
    ),
    # eye's two signatures take no None for m
    ("torch.eye(2, None)", "TypeError"),
    ("torch.eye(2, m=None)", "TypeError"),
    ("torch.eye(2, 3)", "ok"),
]

# (expression, the first line of PyTorch 2.15's TypeError): the hand-written bindings' refusals and calls of
# the wrong shape in PyTorch's words (csrc/python/arg_errors.cpp), read off the oracle; test_wording_matches_pytorch
# checks them against it again
WORDED = [
    ("x.transpose(True, 0)", "transpose(): argument 'dim0' (position 1) must be int, not bool"),
    ("x.transpose(0, dim1=True)", "transpose(): argument 'dim1' must be int, not bool"),
    ("torch.transpose(x, 0, 1.5)", "transpose(): argument 'dim1' (position 3) must be int, not float"),
    ("torch.flatten(x, True)", "flatten(): argument 'start_dim' (position 2) must be int, not bool"),
    ("x.flatten(True)", "flatten(): argument 'start_dim' (position 1) must be int, not bool"),
    ("x.unsqueeze(None)", "unsqueeze(): argument 'dim' (position 1) must be int, not NoneType"),
    ("torch.chunk(x, 2, True)", "chunk(): argument 'dim' (position 3) must be int, not bool"),
    ("x.select(0, True)", "select(): argument 'index' (position 2) must be int, not bool"),
    ("torch.cat([x, x], True)", "cat(): argument 'dim' (position 2) must be int, not bool"),
    ("x.size(True)", "size(): argument 'dim' (position 1) must be int, not bool"),
    ("x.clone().copy_(x, 1)", "copy_(): argument 'non_blocking' (position 2) must be bool, not int"),
    ("torch.zeros(2, requires_grad=1)", "zeros(): argument 'requires_grad' must be bool, not int"),
    ("x.numpy(force=1)", "numpy(): argument 'force' must be bool, not int"),
    ("torch.topk(x, k=True)", "topk(): argument 'k' must be int, not bool"),
    ("torch.topk(x, np.bool_(True))", "topk(): argument 'k' (position 2) must be int, not numpy.bool"),
    ("torch.eye(None)", "eye(): argument 'n' (position 1) must be int, not NoneType"),
    (
        "torch.eye(2, None)",
        "eye() received an invalid combination of arguments - got (int, NoneType), but expected one of:",
    ),
    ("torch.topk(x, torch.tensor(2.0))", "topk(): argument 'k' (position 2) must be int, not Tensor"),
    (
        "torch.transpose(x, torch.tensor([0]), 1)",
        "transpose(): argument 'dim0' (position 2) must be int, not Tensor",
    ),
    (
        "torch.transpose(x, torch.tensor(True), 1)",
        "transpose(): argument 'dim0' (position 2) must be int, not Tensor",
    ),
    ("x.unsqueeze(np.array(0))", "unsqueeze(): argument 'dim' (position 1) must be int, not numpy.ndarray"),
    ("torch.cumsum(x, torch.tensor([0]))", "cumsum(): argument 'dim' (position 2) must be int, not Tensor"),
    ("x.topk(1, 0, True, True, 5)", "topk() takes from 1 to 4 positional arguments but 5 were given"),
    ("torch.topk(x, 1, 0, True, True, 5)", "topk() takes from 2 to 5 positional arguments but 6 were given"),
    ("torch.topk(x)", 'topk() missing 1 required positional arguments: "k"'),
    ("x.topk()", 'topk() missing 1 required positional arguments: "k"'),
    ("torch.topk(x, 1, foo=2)", "topk() got an unexpected keyword argument 'foo'"),
    ("torch.transpose(x, 0)", 'transpose() missing 1 required positional arguments: "dim1"'),
    ("torch.flatten(x, 0, 1, 2)", "flatten() takes from 1 to 3 positional arguments but 4 were given"),
    ("torch.chunk([1, 2], 2)", "chunk(): argument 'input' (position 1) must be Tensor, not list"),
    ("torch.randperm(True)", "randperm(): argument 'n' (position 1) must be int, not bool"),
    ("torch.unbind(x, True)", "unbind(): argument 'dim' (position 2) must be int, not bool"),
    ("torch.stack([x, x], dim=True)", "stack(): argument 'dim' must be int, not bool"),
    ("x.diagonal(0, True)", "diagonal(): argument 'dim1' (position 2) must be int, not bool"),
    ("x.abs().multinomial(True)", "multinomial(): argument 'num_samples' (position 1) must be int, not bool"),
    # the reductions' hand bindings (`binding: own` rows): dims as PyTorch's int list, max/min's three overloads
    (
        "torch.sum(x, (0, 'a'))",
        "sum(): argument 'dim' failed to unpack the object at pos 2 with error \"type must be tuple of ints,but got str\"",
    ),
    (
        "x.sum((1, 1.5))",
        "sum(): argument 'dim' failed to unpack the object at pos 2 with error \"type must be tuple of ints,but got float\"",
    ),
    (
        "torch.mean(x, [0, None])",
        "mean(): argument 'dim' failed to unpack the object at pos 2 with error \"type must be tuple of ints,but got NoneType\"",
    ),
    (
        "torch.amax(x, (0, 1.5))",
        "amax(): argument 'dim' failed to unpack the object at pos 2 with error \"type must be tuple of ints,but got float\"",
    ),
    (
        "x.all((0, 'a'))",
        "all(): argument 'dim' failed to unpack the object at pos 2 with error \"type must be tuple of ints,but got str\"",
    ),
    ("torch.prod(x, 0, 1)", "prod(): argument 'keepdim' (position 3) must be bool, not int"),
    (
        "torch.max(x, None)",
        "max() received an invalid combination of arguments - got (Tensor, NoneType), but expected one of:",
    ),
    (
        "x.max(None)",
        "max() received an invalid combination of arguments - got (NoneType), but expected one of:",
    ),
    (
        "torch.min(x, 1.5)",
        "min() received an invalid combination of arguments - got (Tensor, float), but expected one of:",
    ),
    (
        "x.min((0, 1))",
        "min() received an invalid combination of arguments - got (tuple), but expected one of:",
    ),
    (
        "torch.max(x, dim=None)",
        "max() received an invalid combination of arguments - got (Tensor, dim=NoneType), but expected one of:",
    ),
    ("torch.sum(x, 0, 1)", "sum(): argument 'keepdim' (position 3) must be bool, not int"),
    ("x.mean(0, keepdim=1)", "mean(): argument 'keepdim' must be bool, not int"),
    ("torch.amin(x, 0, 1)", "amin(): argument 'keepdim' (position 3) must be bool, not int"),
    (
        "torch.tril_indices(3, 3, 1.5)",
        "tril_indices(): argument 'offset' (position 3) must be int, not float",
    ),
    ("torch.triu_indices(3, True)", "triu_indices(): argument 'col' (position 2) must be int, not bool"),
    ("torch.tril_indices(3)", 'tril_indices() missing 1 required positional arguments: "col"'),
    ("torch.tril_indices(3, 3, pin_memory=1)", "tril_indices(): argument 'pin_memory' must be bool, not int"),
    # Python composites checked against PyTorch's signatures (_argcheck.parses), their method and in-place
    # spellings under their own names with positions that skip self
    ("torch.svd(x, some=3)", "svd(): argument 'some' must be bool, not int"),
    ("torch.svd(x, 3)", "svd(): argument 'some' (position 2) must be bool, not int"),
    ("x.svd(3)", "svd(): argument 'some' (position 1) must be bool, not int"),
    ("torch.svd(x, True, 1)", "svd(): argument 'compute_uv' (position 3) must be bool, not int"),
    ("torch.cholesky_solve(x, x, upper=3)", "cholesky_solve(): argument 'upper' must be bool, not int"),
    ("x.cholesky_solve(x, 3)", "cholesky_solve(): argument 'upper' (position 2) must be bool, not int"),
    (
        "torch.cholesky_inverse(x, 3)",
        "cholesky_inverse(): argument 'upper' (position 2) must be bool, not int",
    ),
    (
        "torch.triangular_solve(x, x, transpose=3)",
        "triangular_solve(): argument 'transpose' must be bool, not int",
    ),
    ("torch.diff(x, n=False)", "diff(): argument 'n' must be int, not bool"),
    ("x.diff(False)", "diff(): argument 'n' (position 1) must be int, not bool"),
    ("x.diff(1, 2.5)", "diff(): argument 'dim' (position 2) must be int, not float"),
    ("torch.diff(x, 1, 0, 3)", "diff(): argument 'prepend' (position 4) must be Tensor, not int"),
    (
        "torch.nn.functional.cosine_similarity(x, x, dim=2.5)",
        "cosine_similarity(): argument 'dim' must be int, not float",
    ),
    (
        "torch.nn.functional.cosine_similarity(x, x, 1, 'a')",
        "cosine_similarity(): argument 'eps' (position 4) must be float, not str",
    ),
    (
        "torch.cosine_similarity(x, x, 2.5)",
        "cosine_similarity(): argument 'dim' (position 3) must be int, not float",
    ),
    ("torch.rot90(x, 2.5)", "rot90(): argument 'k' (position 2) must be int, not float"),
    ("x.rot90(False)", "rot90(): argument 'k' (position 1) must be int, not bool"),
    ("torch.diag_embed(x, dim1=False)", "diag_embed(): argument 'dim1' must be int, not bool"),
    ("torch.slice_scatter(x, x, 2.5)", "slice_scatter(): argument 'dim' (position 3) must be int, not float"),
    ("torch.cov(x, correction=2.5)", "cov(): argument 'correction' must be int, not float"),
    ("torch.lu(x, pivot=3)", "_lu_with_info(): argument 'pivot' must be bool, not int"),
    ("torch.asarray(x, requires_grad=3)", "asarray(): argument 'requires_grad' must be bool, not int"),
    (
        "torch.searchsorted(x, x, right=3)",
        "searchsorted() received an invalid combination of arguments - got (Tensor, Tensor, right=int), but expected one of:",
    ),
    (
        "torch.isin(x, x, invert=3)",
        "isin() received an invalid combination of arguments - got (Tensor, Tensor, invert=int), but expected one of:",
    ),
    (
        "torch.bucketize(x, x, out_int32=1)",
        "bucketize() received an invalid combination of arguments - got (Tensor, Tensor, out_int32=int), but expected one of:",
    ),
    ("x.renorm(2, 2.5, 1.0)", "renorm(): argument 'dim' (position 2) must be int, not float"),
    ("torch.renorm(x, 2, 2.5, 1.0)", "renorm(): argument 'dim' (position 3) must be int, not float"),
    ("x.renorm_(2, 2.5, 1.0)", "renorm_(): argument 'dim' (position 2) must be int, not float"),
    ("x.renorm(p=2, dim=2.5, maxnorm=1.0)", "renorm(): argument 'dim' must be int, not float"),
    ("x.renorm_(2, dim=2.5, maxnorm=1.0)", "renorm_(): argument 'dim' must be int, not float"),
    ("x.nan_to_num_('a')", "nan_to_num_(): argument 'nan' (position 1) must be float, not str"),
    ("x.nan_to_num_(1, 'a')", "nan_to_num_(): argument 'posinf' (position 2) must be float, not str"),
    ("torch.nan_to_num_(x, 'a')", "nan_to_num_(): argument 'nan' (position 2) must be float, not str"),
    ("x.cummax(2.5)", "cummax(): argument 'dim' (position 1) must be int, not float"),
    ("x.logcumsumexp(True)", "logcumsumexp(): argument 'dim' (position 1) must be int, not bool"),
    ("x.renorm_(2, 0)", 'renorm_() missing 1 required positional arguments: "maxnorm"'),
    # the shape family's rows (csrc/ops/ops.schema): the aliases under their own names and argument names, the
    # overloads refusing an int beside a tuple, an explicit None, a bad first element; a bad later one is
    # the int list's own message
    ("x.swapdims(0, 1.5)", "swapdims(): argument 'dim1' (position 2) must be int, not float"),
    ("torch.swapdims(x, 0, 1.5)", "swapdims(): argument 'dim1' (position 3) must be int, not float"),
    ("x.swapaxes_(axis0=0, axis1=True)", "swapaxes_(): argument 'axis1' must be int, not bool"),
    ("x.swapdims_(0, dim1=1.5)", "swapdims_(): argument 'dim1' must be int, not float"),
    ("x.transpose_(0, 1.5)", "transpose_(): argument 'dim1' (position 2) must be int, not float"),
    ("x.unsqueeze_(1.5)", "unsqueeze_(): argument 'dim' (position 1) must be int, not float"),
    ("torch.unflatten(x, 1.5, (2, 3))", "unflatten(): argument 'dim' (position 2) must be int, not float"),
    ("x.diagonal(0, 0, 1.5)", "diagonal(): argument 'dim2' (position 3) must be int, not float"),
    (
        "x.movedim((0, 1), 1)",
        "movedim() received an invalid combination of arguments - got (tuple, int), but expected one of:",
    ),
    (
        "torch.moveaxis(x, 0, (1,))",
        "moveaxis() received an invalid combination of arguments - got (Tensor, int, tuple), but expected one of:",
    ),
    (
        "x.moveaxis(0, 1.5)",
        "moveaxis() received an invalid combination of arguments - got (int, float), but expected one of:",
    ),
    (
        "x.squeeze_(None)",
        "squeeze_() received an invalid combination of arguments - got (NoneType), but expected one of:",
    ),
    (
        "x.squeeze((1.5, 0))",
        "squeeze() received an invalid combination of arguments - got (tuple), but expected one of:",
    ),
    (
        "torch.squeeze(x, (0, 1.5))",
        (
            "squeeze(): argument 'dim' failed to unpack the object at pos 2 with error "
            '"type must be tuple of ints,but got float"'
        ),
    ),
    (
        "x.movedim((0, 1.5), (1, 0))",
        (
            "movedim(): argument 'source' failed to unpack the object at pos 2 with error "
            '"type must be tuple of ints,but got float"'
        ),
    ),
    # a type defined in C is named with its module, as PyTorch's parser prints tp_name (numpy.ndarray)
    ("torch.cat([x, np.ones(2)])", "expected Tensor as element 1 in argument 0, but got numpy.ndarray"),
    ("torch.stack([np.float64(1)])", "expected Tensor as element 0 in argument 0, but got numpy.float64"),
    ("torch.block_diag(np.ones(2))", "expected Tensor as element 0 in argument 0, but got numpy.ndarray"),
    ("torch.kron(np.ones(2), x)", "kron(): argument 'input' (position 1) must be Tensor, not numpy.ndarray"),
    (
        "torch.cross(x, np.bool_(True))",
        "cross(): argument 'other' (position 2) must be Tensor, not numpy.bool",
    ),
    (
        "torch.nn.functional.dropout(np.int64(1), 0.5)",
        "dropout(): argument 'input' (position 1) must be Tensor, not numpy.int64",
    ),
    # a method of one signature taking only self is CPython's METH_NOARGS in PyTorch (keywords checked first)
    ("x.fliplr(1)", "TensorBase.fliplr() takes no arguments (1 given)"),
    ("x.flipud(dims=1)", "TensorBase.flipud() takes no keyword arguments"),
    ("x.msort(a=1)", "TensorBase.msort() takes no keyword arguments"),
    ("x.t(1, 2)", "TensorBase.t() takes no arguments (2 given)"),
    ("x.relu(1, a=2)", "TensorBase.relu() takes no keyword arguments"),
    ("x.zero_(1)", "TensorBase.zero_() takes no arguments (1 given)"),
    ("torch.fliplr(x, 1)", "fliplr() takes 1 positional argument but 2 were given"),
]

_ORACLE = """
import json, sys
import numpy as np
import torch
out = []
for expr in json.loads(sys.stdin.read()):
    x = torch.randn(4, 6)
    try:
        eval(expr)
        out.append("ok")
    except Exception as e:
        out.append(type(e).__name__)
print(json.dumps(out))
"""


def outcome(expr):
    x = torch.randn(4, 6)
    try:
        eval(expr, {"torch": torch, "np": np, "x": x})
    except Exception as e:  # noqa: BLE001 - the outcome class is what the test compares
        return type(e).__name__
    return "ok"


@pytest.mark.parametrize("expr,want", CASES, ids=[c[0] for c in CASES])
def test_argument_kind(expr, want):
    assert outcome(expr) == want


def test_matches_pytorch():
    exprs = [c[0] for c in CASES]
    got = run_oracle(_ORACLE, exprs)
    assert {e: g for e, g in zip(exprs, got)} == {c[0]: c[1] for c in CASES}


def _first_line(expr):
    x = torch.randn(4, 4) if "x, x" in expr or "x.svd" in expr else torch.randn(4, 6)
    with pytest.raises(TypeError) as e:
        eval(expr, {"torch": torch, "np": np, "x": x})
    return str(e.value).splitlines()[0]


@pytest.mark.parametrize("expr,message", WORDED, ids=[w[0] for w in WORDED])
def test_refusal_wording(expr, message):
    assert _first_line(expr) == message


_ORACLE_WORDS = """
import json, sys
import numpy as np
import torch
out = []
for expr in json.loads(sys.stdin.read()):
    x = torch.randn(4, 4) if "x, x" in expr or "x.svd" in expr else torch.randn(4, 6)
    try:
        eval(expr)
        out.append("ok")
    except Exception as e:
        out.append(type(e).__name__ + ": " + str(e).splitlines()[0])
print(json.dumps(out))
"""


def test_wording_matches_pytorch():
    exprs = [w[0] for w in WORDED]
    got = run_oracle(_ORACLE_WORDS, exprs)
    assert dict(zip(exprs, got)) == {w[0]: "TypeError: " + w[1] for w in WORDED}


def test_wording():
    # PyTorch's words where one signature is bound; a refused overload set is still a TypeError
    x = torch.randn(4, 6)
    with pytest.raises(TypeError, match=r"topk\(\): argument 'largest' \(position 3\) must be bool, not int"):
        x.topk(2, 1, 0)
    with pytest.raises(
        TypeError, match=r"^chunk\(\): argument 'chunks' \(position 2\) must be int, not bool$"
    ):
        torch.chunk(x, True)
    with pytest.raises(ValueError, match="Overflow when unpacking long long"):
        x.topk(2**64)


def test_lax_values_still_compute():
    # the accepted kinds give the same values as plain ints
    x = torch.arange(24.0).reshape(4, 6)
    assert [t.tolist() for t in torch.chunk(x, np.int64(2), torch.tensor(1))] == [
        t.tolist() for t in torch.chunk(x, 2, 1)
    ]
    np.testing.assert_array_equal(x.topk(torch.tensor(3)).values.numpy(), x.topk(3).values.numpy())


# PyTorch's int-list parser on the composites that check their int lists in Python (_argcheck.check_call:
# tensordot's dim lists, the size-only sparse_coo_tensor, rot90, F.conv3d) and on the generated bindings:
# an element is an int or a one-element integer tensor of any rank (a bool after the first), and a later
# bad element's message names its place in the list, not the argument's position
INT_LISTS = [
    ("torch.tensordot(x, x, dims=([0, 'a'], [0, 1]))", 'TypeError: tensordot(): argument \'dims_self\' failed to unpack the object at pos 2 with error "type must be tuple of ints,but got str"'),
    ('torch.tensordot(x, x, dims=([0, 1, 1.5], [0, 1, 2]))', 'TypeError: tensordot(): argument \'dims_self\' failed to unpack the object at pos 3 with error "type must be tuple of ints,but got float"'),
    ('torch.tensordot(x, x, dims=([torch.tensor([[0]])], [0]))', 'ok (3, 4, 3, 4)'),
    ('torch.tensordot(x, x, dims=([0, torch.tensor([1])], [0, 1]))', 'ok (4, 4)'),
    ('torch.tensordot(x, x, dims=([0, True], [0, 1]))', 'ok (4, 4)'),
    ('torch.tensordot(x, x, dims=([True], [0]))', "TypeError: tensordot(): argument 'dims_self' (position 3) must be tuple of ints, but found element of type bool at pos 0"),
    ('torch.tensordot(x, x, dims=([0], [torch.tensor([1.0])]))', "TypeError: tensordot(): argument 'dims_other' (position 4) must be tuple of ints, but found element of type Tensor at pos 0"),
    ('torch.tensordot(x, x, dims=(torch.tensor([0]), [0]))', "TypeError: tensordot(): argument 'dims_self' (position 3) must be tuple of ints, not Tensor"),
    ("torch.tensordot(x, x, dims=((0,), 'a'))", "TypeError: tensordot(): argument 'dims_other' (position 4) must be tuple of ints, not str"),
    ('torch.sparse_coo_tensor(3)', 'ok (3,)'),
    ('torch.sparse_coo_tensor(torch.tensor([True]))', 'ok (1,)'),
    ('torch.sparse_coo_tensor(torch.tensor([[3]]))', 'ok (3,)'),
    ('torch.sparse_coo_tensor(torch.tensor([1.5]))', "TypeError: sparse_coo_tensor(): argument 'size' (position 1) must be tuple of ints, not Tensor"),
    ('torch.sparse_coo_tensor((2, True))', 'ok (2, 1)'),
    ('torch.sparse_coo_tensor((torch.tensor([2]), torch.tensor([[3]])))', 'ok (2, 3)'),
    ('torch.sparse_coo_tensor((2, torch.tensor([3.0])))', 'TypeError: sparse_coo_tensor(): argument \'size\' failed to unpack the object at pos 2 with error "type must be tuple of ints,but got Tensor"'),
    ('torch.sparse_coo_tensor(True)', "TypeError: sparse_coo_tensor(): argument 'size' (position 1) must be tuple of ints, not bool"),
    ("torch.sparse_coo_tensor((2, 'a'))", 'TypeError: sparse_coo_tensor(): argument \'size\' failed to unpack the object at pos 2 with error "type must be tuple of ints,but got str"'),
    ("torch.sparse_coo_tensor(('a', 2))", "TypeError: sparse_coo_tensor(): argument 'size' (position 1) must be tuple of ints, but found element of type str at pos 0"),
    ('torch.sparse_coo_tensor([2.5])', "TypeError: sparse_coo_tensor(): argument 'size' (position 1) must be tuple of ints, but found element of type float at pos 0"),
    ('torch.rot90(x, 1, [0, 1.0])', 'TypeError: rot90(): argument \'dims\' failed to unpack the object at pos 2 with error "type must be tuple of ints,but got float"'),
    ('torch.rot90(x, 1, [0, torch.tensor([1])])', 'ok (3, 2, 4)'),
    ('torch.rot90(x, 1, [torch.tensor([0]), 2])', 'ok (4, 3, 2)'),
    ("torch.nn.functional.conv_transpose3d(torch.ones(1, 1, 2, 2, 2), torch.ones(1, 1, 1, 1, 1), None, [1, 'a'])", 'TypeError: conv_transpose3d(): argument \'stride\' failed to unpack the object at pos 2 with error "type must be tuple of ints,but got str"'),
    ('torch.nn.functional.conv3d(torch.ones(1, 1, 2, 2, 2), torch.ones(1, 1, 1, 1, 1), None, (1, torch.tensor([1]), 1))', 'ok (1, 1, 2, 2, 2)'),
    ('torch.nn.functional.conv3d(torch.ones(1, 1, 2, 2, 2), torch.ones(1, 1, 1, 1, 1), None, torch.tensor([[2]]))', 'ok (1, 1, 1, 1, 1)'),
    ('torch.roll(x, 1, [0, 1, 2, 1.5])', 'TypeError: roll(): argument \'dims\' failed to unpack the object at pos 4 with error "type must be tuple of ints,but got float"'),
    ("torch.roll(x, [1, 1, 'a'], [0, 1, 2])", 'TypeError: roll(): argument \'shifts\' failed to unpack the object at pos 3 with error "type must be tuple of ints,but got str"'),
    ('torch.logsumexp(x, [0, 1, 1.5])', 'TypeError: logsumexp(): argument \'dim\' failed to unpack the object at pos 3 with error "type must be tuple of ints,but got float"'),
    ("torch.as_strided(x, (2, 2, 'a'), (1, 1, 1))", 'TypeError: as_strided(): argument \'size\' failed to unpack the object at pos 3 with error "type must be tuple of ints,but got str"'),
    ("torch.nn.functional.avg_pool2d(torch.ones(1, 1, 4, 4), 2, (1, 'a'))", 'TypeError: avg_pool2d(): argument \'stride\' failed to unpack the object at pos 2 with error "type must be tuple of ints,but got str"'),
    ("torch.nn.functional.conv2d(torch.ones(1, 1, 4, 4), torch.ones(1, 1, 2, 2), None, (1, 'a'))", 'TypeError: conv2d(): argument \'stride\' failed to unpack the object at pos 2 with error "type must be tuple of ints,but got str"'),
    ('torch.nn.functional.conv2d(torch.ones(1, 1, 4, 4), torch.ones(1, 1, 2, 2), None, torch.tensor([2]))', 'ok (1, 1, 2, 2)'),
]  # fmt: skip

_ORACLE_INT_LISTS = """
import json, sys, warnings
import torch
warnings.simplefilter("ignore")
out = []
for expr in json.loads(sys.stdin.read()):
    x = torch.ones(2, 3, 4)
    try:
        out.append("ok " + repr(tuple(eval(expr).shape)))
    except Exception as e:
        out.append(type(e).__name__ + ": " + str(e).splitlines()[0])
print(json.dumps(out))
"""


def _int_list_outcome(expr):
    x = torch.ones(2, 3, 4)  # noqa: F841 - the expressions read it
    try:
        return "ok " + repr(tuple(eval(expr).shape))
    except Exception as e:  # noqa: BLE001 - the outcome is what the test compares
        return type(e).__name__ + ": " + str(e).splitlines()[0]


@pytest.mark.parametrize("expr,want", INT_LISTS, ids=[c[0] for c in INT_LISTS])
def test_int_list(expr, want):
    assert _int_list_outcome(expr) == want


def test_int_lists_match_pytorch():
    exprs = [c[0] for c in INT_LISTS]
    assert run_oracle(_ORACLE_INT_LISTS, exprs) == [c[1] for c in INT_LISTS]


def test_signature_kinds_are_known():
    """a signature string names native-functions kinds: a misspelt one (Number for Scalar) would accept anything,
    so it fails where the signature is read; TensorList is Tensor[] (histogram's out)"""
    from minitorch import _argcheck

    with pytest.raises(ValueError, match="unknown kind 'Number'"):
        _argcheck._signature("Tensor input, Number other")
    (p,) = _argcheck._signature("TensorList? out=None")
    assert p.kind == "Tensor[]" and p.word == "tuple of Tensors"
    with pytest.raises(TypeError, match=r"tuple of Tensors out = None\)"):
        torch.histogram(torch.ones(3), "a")
