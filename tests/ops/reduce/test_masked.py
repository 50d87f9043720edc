"""torch.masked: the masked reductions and normalizations against NumPy and PyTorch (values, dtypes, fill rules
for fully masked-out rows), their gradients, and MaskedTensor (printing, operations, masks, autograd)."""

import warnings

import numpy as np
import pytest
from utils import run_oracle

import minitorch as torch
from minitorch.autograd import gradcheck
from minitorch.masked import MaskedTensor, as_masked_tensor, masked_tensor

warnings.filterwarnings("ignore", message="The PyTorch API of MaskedTensors")

# the same setup runs here and under PyTorch: a row fully masked out, a broadcast mask, integer and bool inputs
SETUP = """
d = torch.tensor([[0.5, -1.25, 2.0, 3.5], [1.5, 0.25, -2.0, 4.0], [-0.75, 1.0, 2.5, -3.0]], dtype=torch.float64)
f = d.float()
m = torch.tensor([[True, False, True, True], [False, False, False, False], [True, True, False, True]])
row = torch.tensor([True, False, True, False])
i = torch.tensor([[3, -1, 4, 1], [5, 9, -2, 6], [5, 3, 5, -8]], dtype=torch.int32)
b = i > 2
"""

CALLS = [
    f"torch.masked.{op}({x}, {dim}mask={mk}{kw})"
    for op in ("sum", "prod", "amax", "amin", "mean", "logsumexp", "std", "var")
    for x in ("d", "f")
    for dim in ("", "1, ", "0, ", "(0, 1), ", "-1, ")
    for mk in ("m", "row")
    for kw in ("", ", keepdim=True")
    if not (op in ("std", "var") and dim == "" and kw)
]
CALLS += [
    f"torch.masked.{op}(d, {dim}, mask={mk})"
    for op in ("argmax", "argmin")
    for dim in (0, 1)
    for mk in ("m", "row")
]
CALLS += [f"torch.masked.{op}(d, mask=m)" for op in ("argmax", "argmin")]
CALLS += [f"torch.masked.{op}(i, 1, mask=m)" for op in ("sum", "prod", "amax", "amin", "argmax")]
CALLS += ["torch.masked.sum(b, 0, mask=m)", "torch.masked.sum(i, mask=row, dtype=torch.float64)"]
CALLS += [f"torch.masked.{op}(i, 1, mask=m)" for op in ("std", "var")]
CALLS += ["torch.masked.mean(i, 1, mask=m, dtype=torch.float64)", "torch.masked.sum(d, (), mask=m)"]
CALLS += [
    f"torch.masked.{op}({x}, {dim}, mask={mk})"
    for op in ("softmax", "log_softmax", "softmin", "cumsum", "cumprod")
    for x in ("d", "f")
    for dim in (0, 1, -1)
    for mk in ("m", "row")
]
CALLS += ["torch.masked.cumsum(i, 1, mask=m)", "torch.masked.softmax(d, 1, mask=m, dtype=torch.float32)"]
CALLS += [
    f"torch.masked.norm(d, {o}, {dim}, mask={mk})"
    for o in ("2.0", "1", "3.5", "float('inf')", "-float('inf')", "0")
    for dim in (1, None)
    for mk in ("m", "row")
]
CALLS += [f"torch.masked.normalize(d, {o}, {dim}, mask=m)" for o in (2.0, 1) for dim in (0, 1)]
CALLS += [
    "torch.masked.var(d, 1, unbiased=False, mask=m)",
    "torch.masked.var(d, 1, correction=2, mask=row)",
    "torch.masked.std(d, 0, keepdim=True, mask=m)",
    "torch.masked.median(d, 1, mask=m)",
    "torch.masked.median(d, 0, mask=row)",
    "torch.masked.logaddexp(d, d * 2, input_mask=m, other_mask=row)",
    "torch.masked.sum(d, 1)",
    "torch.masked.mean(d, 0, keepdim=True)",
    "torch.masked.sum(torch.zeros(0, 3), 0, mask=torch.zeros(0, 3, dtype=torch.bool))",
    "torch.masked.sum(d.t(), 0, mask=m.t())",
]


RUN = (
    "import json, sys, warnings, torch\nwarnings.simplefilter('ignore')\n"
    + "exec(" + repr(SETUP) + ")\n"
    + "out = []\n"
    "for c in json.loads(sys.stdin.read()):\n"
    "    r = eval(c)\n"
    "    out.append([str(r.dtype), list(r.shape), r.tolist()])\n"
    "print(json.dumps(out))\n"
)  # fmt: skip


def test_masked_functions_against_pytorch():
    theirs = run_oracle(RUN, CALLS)
    env = {"torch": torch}
    exec(SETUP, env)  # noqa: S102  (the same setup runs under PyTorch)
    for c, (dtype, shape, ref) in zip(CALLS, theirs):
        mine = eval(c, env)
        assert str(mine.dtype) == dtype, c
        assert list(mine.shape) == shape, c
        tol = 1e-12 if dtype == "torch.float64" else 2e-6
        np.testing.assert_allclose(np.array(mine.tolist(), dtype=np.float64), np.array(ref, dtype=np.float64),
                                   rtol=tol, atol=tol, equal_nan=True, err_msg=c)  # fmt: skip


def test_fill_rules_against_numpy():
    env = {"torch": torch}
    exec(SETUP, env)  # noqa: S102  (the same setup runs under PyTorch)
    d, m = env["d"].numpy(), env["m"].numpy()
    got = torch.masked.sum(env["d"], 1, mask=env["m"]).numpy()
    np.testing.assert_allclose(got, np.where(m, d, 0).sum(1))
    got = torch.masked.amax(env["d"], 1, mask=env["m"]).numpy()
    np.testing.assert_allclose(got, np.where(m, d, -np.inf).max(1))  # the empty row is amax's identity, -inf
    mean = torch.masked.mean(env["d"], 1, mask=env["m"]).numpy()
    assert np.isnan(mean[1])  # 0 / 0 for the fully masked-out row
    np.testing.assert_allclose(mean[[0, 2]], [np.mean(d[r][m[r]]) for r in (0, 2)])
    var = torch.masked.var(env["d"], 1, mask=env["m"]).numpy()
    np.testing.assert_allclose(var[[0, 2]], [np.var(d[r][m[r]], ddof=1) for r in (0, 2)])
    sm = torch.masked.softmax(env["d"], 1, mask=env["m"]).numpy()
    e = np.where(m[0], np.exp(d[0] - d[0][m[0]].max()), 0)
    np.testing.assert_allclose(sm[0], e / e.sum())
    assert np.isnan(sm[1]).all()  # softmax over nothing: -inf - (-inf)
    imax = torch.masked.amax(env["i"], 1, mask=env["m"])
    assert imax.dtype == torch.int32 and imax[1].item() == np.iinfo(np.int32).min


@pytest.mark.parametrize(
    "fn",
    [
        lambda x, m: torch.masked.sum(x, 1, mask=m),
        lambda x, m: torch.masked.prod(x, 0, mask=m),
        lambda x, m: torch.masked.amax(x, 1, mask=m),
        lambda x, m: torch.masked.mean(x, 0, mask=m),
        lambda x, m: torch.masked.var(x, 0, mask=m),
        lambda x, m: torch.masked.std(x, 0, mask=m),
        lambda x, m: torch.masked.norm(x, 2.0, 0, mask=m),
        lambda x, m: torch.masked.logsumexp(x, 1, mask=m),
        lambda x, m: torch.masked.softmax(x, 1, mask=m),
        lambda x, m: torch.masked.log_softmax(x, 0, mask=m),
        lambda x, m: torch.masked.softmin(x, 0, mask=m),
        lambda x, m: torch.masked.normalize(x, 2.0, 1, mask=m),
        lambda x, m: torch.masked.cumsum(x, 1, mask=m),
        lambda x, m: torch.masked.cumprod(x, 1, mask=m),
    ],
)
def test_gradients(fn):
    x = torch.tensor(
        [[0.5, -1.25, 2.0, 3.5], [1.5, 0.25, -2.0, 4.0], [-0.75, 1.0, 2.5, -3.0]], dtype=torch.float64
    )
    m = torch.tensor([[True, False, True, True], [True, True, False, True], [True, True, False, True]])
    x.requires_grad_()
    assert gradcheck(lambda t: fn(t, m), (x,))
    fn(x, m).sum().backward()
    assert (x.grad[~m] == 0).all()  # masked-out elements get no gradient


def test_errors():
    d = torch.ones(2, 3)
    with pytest.raises(ValueError, match=r"mean\(\): Could not infer output dtype. Input dtype must be either a "
                       r"floating point or complex dtype. Got: torch.int64"):  # fmt: skip
        torch.masked.mean(torch.ones(2, 3, dtype=torch.int64), mask=d > 0)
    with pytest.raises(
        IndexError, match="Dimension out of range \\(expected to be in range of \\[-2, 1\\], but got 2\\)"
    ):
        torch.masked.sum(d, 2, mask=d > 0)
    with pytest.raises(RuntimeError, match="dim=1 appears multiple times in the list of dims"):
        torch.masked.sum(d, (1, 1), mask=d > 0)
    with pytest.raises(IndexError, match="_input_mask expected broadcastable mask"):
        torch.masked.sum(d, 1, mask=torch.ones(1, 2, 3, dtype=torch.bool))
    with pytest.raises(AssertionError, match="Only one of unbiased and correction may be given"):
        torch.masked.var(d, 1, unbiased=True, correction=1, mask=d > 0)


# MaskedTensor


MT_SETUP = """
masked_tensor, as_masked_tensor = torch.masked.masked_tensor, torch.masked.as_masked_tensor
d = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
m = torch.tensor([[True, False, True], [False, False, True]])
mt = masked_tensor(d, m)
"""
MT_CALLS = [
    "mt", "mt.sum()", "mt.sum(1)", "mt.amax(0)", "mt.mean()", "mt.mean(1, keepdim=True)", "mt * 2", "mt - 2", "d * mt",
    "mt + mt", "mt.exp()", "mt / d", "mt.softmax(1)", "mt[0]", "mt[:, 1]",
    "masked_tensor(torch.tensor([1, 2]), torch.tensor([True, False]))", "mt > 2", "-mt", "mt.argmax(1)",
    "mt.prod(0)", "mt.var(1)", "masked_tensor(torch.tensor(3.5), torch.tensor(False))",
]  # fmt: skip


def test_maskedtensor_against_pytorch():
    script = (
        "import json, sys, warnings, torch\nwarnings.simplefilter('ignore')\nexec(" + repr(MT_SETUP) + ")\n"
        "print(json.dumps([repr(eval(c)) for c in json.loads(sys.stdin.read())]))\n"
    )
    theirs = run_oracle(script, MT_CALLS)
    env = {"torch": torch}
    exec(MT_SETUP, env)  # noqa: S102  (the same setup runs under PyTorch)
    for c, ref in zip(MT_CALLS, theirs):
        assert repr(eval(c, env)) == ref, c


def test_maskedtensor_data_mask_and_to_tensor():
    d = torch.tensor([[1.0, 2.0], [3.0, 4.0]])
    m = torch.tensor([[True, False], [False, True]])
    mt = masked_tensor(d, m)
    assert isinstance(mt, MaskedTensor) and mt.shape == (2, 2) and mt.dtype == torch.float32 and mt.dim() == 2
    assert torch.equal(mt.get_mask(), m) and torch.equal(mt.get_data(), d)
    assert mt.to_tensor(-1.0).tolist() == [[1.0, -1.0], [-1.0, 4.0]]
    d[0, 0] = 9.0  # masked_tensor copies its data
    assert mt.get_data()[0, 0].item() == 1.0
    s = (mt * mt).sum(0)
    assert s.get_mask().tolist() == [True, True] and s.get_data().tolist() == [1.0, 16.0]


def test_maskedtensor_errors():
    d = torch.ones(2, 3)
    with pytest.raises(TypeError, match="mask must have dtype bool."):
        masked_tensor(d, d)
    with pytest.raises(ValueError, match=r"data.dim\(\) must equal mask.dim\(\)"):
        masked_tensor(d, torch.ones(3, dtype=torch.bool))
    with pytest.raises(ValueError, match=r"data.size\(\) must equal mask.size\(\)"):
        masked_tensor(d, torch.ones(3, 2, dtype=torch.bool))
    with pytest.raises(TypeError, match="data must be a Tensor"):
        masked_tensor([1.0], torch.ones(1, dtype=torch.bool))
    with pytest.raises(TypeError, match="is not supported in MaskedTensor"):
        masked_tensor(torch.ones(2, dtype=torch.complex64), torch.ones(2, dtype=torch.bool))
    a = masked_tensor(d, d > 0)
    b = masked_tensor(d, torch.zeros(2, 3, dtype=torch.bool))
    with pytest.raises(
        ValueError, match="Input masks must match. If you need support for this, please open an "
    ):
        a + b
    with pytest.raises(TypeError, match="unsupported operand"):
        2 - a  # PyTorch's MaskedTensor has no reflected operators with a scalar
    with pytest.warns(UserWarning, match="prototype stage"):
        masked_tensor(d, d > 0)


def test_maskedtensor_autograd():
    d = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], dtype=torch.float64)
    m = torch.tensor([[True, False, True], [False, False, True]])
    mx = masked_tensor(d, m, requires_grad=True)
    assert mx.requires_grad and not d.requires_grad
    y = (mx * mx).sum()
    y.backward()
    assert isinstance(mx.grad, MaskedTensor)
    assert torch.equal(mx.grad.get_mask(), m)
    np.testing.assert_allclose(mx.grad.to_tensor(0).numpy(), np.where(m.numpy(), 2 * d.numpy(), 0))
    # as_masked_tensor is differentiable back to its data; masked-out gradients are zero
    x = d.clone().requires_grad_()
    as_masked_tensor(x, m).exp().sum(1).sum().backward()
    # from a MaskedTensor output even a plain leaf's gradient is a MaskedTensor (PyTorch's)
    assert isinstance(x.grad, MaskedTensor) and torch.equal(x.grad.get_mask(), m)
    np.testing.assert_allclose(x.grad.to_tensor(0).numpy(), np.where(m.numpy(), np.exp(d.numpy()), 0))
    x.grad = None
    as_masked_tensor(x, m).get_data().sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), m.numpy().astype(np.float64))
    # the whole chain against finite differences
    assert gradcheck(lambda t: as_masked_tensor(t, m).softmax(1).get_data().sum(0), (x,))
