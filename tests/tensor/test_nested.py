"""torch.nested: NestedTensor construction (strided and jagged), printing, sizes, to_padded_tensor, the
component-wise ops (elementwise, softmax, matmul, transpose), autograd to the components, and PyTorch's errors;
against PyTorch (printing and padded values) and NumPy."""

import numpy as np
import pytest
from utils import run_oracle

import minitorch as torch
from minitorch.autograd import gradcheck

SETUP = """
a = torch.arange(6.0).reshape(2, 3)
b = torch.arange(12.0).reshape(4, 3) / 4 - 1
nt = torch.nested.nested_tensor([a, b])
jt = torch.nested.nested_tensor([a, b], layout=torch.jagged)
w = torch.linspace(-1, 1, 6).reshape(3, 2)
u, v = torch.ones(2, 3), torch.ones(2, 4)
g, starts, lengths = torch.arange(12.0).reshape(3, 4), torch.tensor([0, 1, 2]), torch.tensor([2, 3, 1])
"""
PADDED = [
    "torch.nested.to_padded_tensor(nt, -1.0)",
    "nt.to_padded_tensor(0.0, output_size=(3, 5, 4))",
    "torch.nested.to_padded_tensor(jt, 2.5)",
    "torch.nested.to_padded_tensor(nt * 2 + 1, 0.0)",
    "torch.nested.to_padded_tensor(1 - jt, 0.0)",
    "torch.nested.to_padded_tensor(nt + nt, 0.0)",
    "torch.nested.to_padded_tensor(nt.softmax(-1), 0.0)",
    "torch.nested.to_padded_tensor(nt.softmax(1), 0.0)",
    "torch.nested.to_padded_tensor(jt.softmax(-1), 0.0)",
    "torch.nested.to_padded_tensor(nt.relu(), 0.0)",
    "torch.nested.to_padded_tensor(nt.transpose(1, 2).contiguous(), 0.0)",
    "torch.nested.to_padded_tensor(jt.transpose(1, 2).contiguous(), 0.0)",
    "torch.nested.to_padded_tensor(jt @ w, 0.0)",
    "torch.nested.to_padded_tensor(torch.matmul(jt, w), 0.0)",
    "torch.nested.to_padded_tensor(jt * torch.tensor([1.0, 2.0, 3.0]), 0.0)",
    "torch.nested.to_padded_tensor(nt.matmul(torch.nested.nested_tensor([torch.ones(3, 2), torch.ones(3, 5)])), 0.0)",
    "torch.nested.to_padded_tensor(torch.nested.as_nested_tensor(torch.ones(2, 3, 4)), 0.0)",
    "torch.nested.to_padded_tensor(torch.nested.nested_tensor([[1, 2], [3]]), 0)",
    "torch.nested.to_padded_tensor(torch.nested.nested_tensor([u, v], layout=torch.jagged), 0.0)",
    "torch.nested.to_padded_tensor(torch.nested.narrow(g, 1, starts, lengths, layout=torch.jagged).contiguous(), -1.0)",
]
REPRS = [
    "nt", "nt * 2", "nt.transpose(1, 2)", "torch.nested.nested_tensor([[1, 2], [3]])",
    "torch.nested.nested_tensor([a, b], dtype=torch.float64, requires_grad=True)",
    "torch.nested.nested_tensor([torch.tensor(1.0), torch.tensor(2.0)])", "nt.unbind()",
    "nt.dim(), nt.size(0), nt.size(2), nt.size(-1), nt.numel(), nt.is_nested, nt.layout, nt.dtype",
    "jt.dim(), jt.size(0), jt.size(2), jt.numel(), jt.is_nested, jt.layout, jt.values(), jt.offsets()",
    "torch.nested.nested_tensor([a, b.int()]).dtype, torch.nested.nested_tensor([a.int(), b]).dtype",
    "torch.ones(2).is_nested",
]  # fmt: skip


def _env():
    env = {"torch": torch}
    exec(SETUP, env)  # noqa: S102  (the same setup runs under PyTorch)
    return env


def test_against_pytorch():
    script = (
        "import json, sys, warnings, torch\nwarnings.simplefilter('ignore')\nexec(" + repr(SETUP) + ")\n"
        "calls = json.loads(sys.stdin.read())\n"
        "print(json.dumps([[eval(c).tolist() for c in calls[0]], [repr(eval(c)) for c in calls[1]]]))\n"
    )
    padded, reprs = run_oracle(script, [PADDED, REPRS], timeout=300)
    env = _env()
    for c, ref in zip(PADDED, padded):
        np.testing.assert_allclose(
            np.array(eval(c, env).tolist()), np.array(ref), rtol=1e-6, atol=1e-6, err_msg=c
        )
    for c, ref in zip(REPRS, reprs):
        assert repr(eval(c, env)).replace("minitorch", "torch") == ref, c


def test_jagged_shape_and_numpy():
    env = _env()
    jt = env["jt"]
    assert len(jt.shape) == 3 and jt.shape[0] == 2 and jt.shape[2] == 3 and repr(jt.shape[1]).startswith("j")
    assert jt.size(1) == jt.shape[1] and (jt * 2).size(1) == jt.size(
        1
    )  # the ragged size survives pointwise ops
    assert jt.transpose(1, 2).shape[2] == jt.shape[1]
    a, b = env["a"].numpy(), env["b"].numpy()
    pad = torch.nested.to_padded_tensor(jt.softmax(-1), 0.0).numpy()
    for i, x in enumerate((a, b)):
        e = np.exp(x - x.max(-1, keepdims=True))
        np.testing.assert_allclose(pad[i, : len(x)], e / e.sum(-1, keepdims=True), rtol=1e-6)
        np.testing.assert_array_equal(pad[i, len(x) :], 0)
    np.testing.assert_array_equal(jt.values().numpy(), np.concatenate([a, b]))
    assert jt.offsets().tolist() == [0, 2, 6]


def test_autograd():
    a = torch.randn(2, 3, dtype=torch.float64, requires_grad=True)
    b = torch.randn(4, 3, dtype=torch.float64, requires_grad=True)
    w = torch.randn(3, 2, dtype=torch.float64, requires_grad=True)

    ones = torch.ones(3, 2, dtype=torch.float64)

    def f(a, b, w):
        nt = torch.nested.as_nested_tensor([a, b], layout=torch.jagged)
        return torch.nested.to_padded_tensor((nt @ w).softmax(-1) * 2 + nt.exp() @ ones, 0.0)

    assert gradcheck(f, (a, b, w))
    # a leaf nested tensor: copies of the data, with the gradients of the components as a NestedTensor
    x = torch.nested.nested_tensor([a.detach(), b.detach()], requires_grad=True)
    assert x.requires_grad and not a.detach().requires_grad
    torch.nested.to_padded_tensor(x.exp(), 0.0).sum().backward()
    g = x.grad
    assert g.is_nested
    np.testing.assert_allclose(g.unbind()[1].numpy(), np.exp(b.detach().numpy()))


def test_errors():
    env = _env()
    nt, jt, a = env["nt"], env["jt"], env["a"]
    cases = [
        (lambda: nt.size(1), RuntimeError, "Given dimension 1 is irregular and does not have a size."),
        (lambda: nt.size(), RuntimeError, "Internal error: NestedTensorImpl doesn't support sizes. Please file"),
        (lambda: nt.shape, RuntimeError, "Internal error: NestedTensorImpl doesn't support sizes."),
        (lambda: nt.size(3), IndexError, r"Dimension out of range \(expected to be in range of \[-3, 2\], but got 3\)"),
        (lambda: nt.unbind(1), RuntimeError, "NestedTensor can only be unbound along dimension 0 got dimension 1 "),
        (lambda: jt.unbind(1), RuntimeError, r"unbind\(\): only supported for NestedTensor on dim=0"),
        (lambda: nt.softmax(0), RuntimeError, "Cannot apply softmax across nested dimension 0"),
        (lambda: jt.softmax(0), RuntimeError, "softmax\\(\\): not supported when reducing across the batch dimension"),
        (lambda: nt.transpose(0, 1), RuntimeError, "Nested tensor dimension 0 cannot be transposed"),
        (lambda: jt.transpose(0, 1), ValueError, "Transpose is not supported on the batch dimension for jagged NT"),
        (lambda: nt + torch.nested.nested_tensor([a, a]), RuntimeError, "add does not support broadcasting when "),
        (lambda: nt + a, RuntimeError, "Expected both self and other to be nested, but got a nested self and non-"),
        (lambda: nt.to_padded_tensor(0.0, output_size=(2, 3, 3)), RuntimeError, "Value in output_size is less "),
        (lambda: nt.to_padded_tensor(0.0, output_size=(2, 4)), RuntimeError, "Length of output_size does not match"),
        (lambda: torch.nested.nested_tensor(a), TypeError, r"Only lists \(List\[Tensor\] and List\[List...\[Scalar\]\]\)"),
        (lambda: torch.nested.nested_tensor([a, torch.ones(3)]), RuntimeError,
         "All Tensors given to nested_tensor must have the same dimension. Found dimension 1 for Tensor at index 1"),
        (lambda: torch.nested.nested_tensor([torch.ones(2, 3), torch.ones(3, 4)], layout=torch.jagged), RuntimeError,
         "the jagged layout only allows for a single ragged dimension"),
        (lambda: torch.nested.nested_tensor([torch.tensor(1.0)], layout=torch.jagged), RuntimeError,
         "Cannot construct a nested tensor from a list of zero-dim tensors"),
        (lambda: torch.nested.nested_tensor([a], layout=torch.sparse_coo), RuntimeError,
         "Specified layout is unsupported for nested tensors: torch.sparse_coo"),
        (lambda: torch.matmul(nt, torch.nested.nested_tensor([a.T])), RuntimeError,
         "matmul: Expected size for the 1st dimension of 2nd input tensor to be: 2 but got: 1."),
    ]  # fmt: skip
    for fn, exc, msg in cases:
        with pytest.raises(exc, match=msg):
            fn()


def test_empty_and_isinstance():
    e = torch.nested.nested_tensor([])
    assert len(e.unbind()) == 0 and e.numel() == 0
    nt = _env()["nt"]
    assert not isinstance(nt, torch.Tensor)  # a plain class (see nested/_nested_tensor.py), unlike PyTorch
    assert nt.is_contiguous()
