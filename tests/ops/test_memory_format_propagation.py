"""Memory layouts through ops: elementwise outputs take TensorIterator's strides from their inputs, layers hand
back a channels-last input's layout, preserve_format keeps any dense layout; Tensor._base, storage identity.
Strides and values are compared with PyTorch where it can be run (MINITORCH_ORACLE_PYTHON), and with the
strides PyTorch 2.15 gives, written down, always."""

import json
import os
import subprocess

import numpy as np
import pytest

import minitorch as torch

ORACLE = os.environ.get("MINITORCH_ORACLE_PYTHON")

# Inputs both libraries build the same way: x is NCHW, xc the same values channels-last, t and q transposed and
# permuted dense tensors.
SETUP = """
F = torch.nn.functional
x = torch.arange(120.0).reshape(2, 3, 4, 5).sin()
xc = x.contiguous(memory_format=torch.channels_last)
y = torch.arange(120.0).reshape(2, 3, 4, 5).cos()
b3 = torch.arange(3.0).reshape(3, 1, 1)
r5 = torch.arange(5.0)
w = torch.arange(108.0).reshape(4, 3, 3, 3).cos()
wc = w.contiguous(memory_format=torch.channels_last)
b4 = torch.arange(4.0)
t = torch.arange(12.0).reshape(3, 4).t()
q = torch.arange(24.0).reshape(2, 3, 4).permute(1, 0, 2)
x5c = torch.arange(240.0).reshape(2, 3, 2, 4, 5).sin().contiguous(memory_format=torch.channels_last_3d)
"""

# name -> (statement setting r, the strides PyTorch 2.15 gives r, whether r's values are deterministic)
CASES = {
    "cl+contig": ("r = xc + y", (60, 1, 15, 3), True),
    "contig+cl": ("r = y + xc", (60, 20, 5, 1), True),
    "cl+cl": ("r = xc * xc", (60, 1, 15, 3), True),
    "cl+bias": ("r = xc + b3", (60, 1, 15, 3), True),
    "bias+cl": ("r = b3 + xc", (60, 1, 15, 3), True),
    "cl+row": ("r = xc - r5", (60, 1, 15, 3), True),
    "row+cl": ("r = r5 - xc", (60, 1, 15, 3), True),
    "cl*number": ("r = xc * 2", (60, 1, 15, 3), True),
    "cl+0d": ("r = xc + torch.tensor(2.0)", (60, 1, 15, 3), True),
    "one_element+cl": ("r = torch.ones(1, 1, 1, 1) + xc", (60, 1, 15, 3), True),
    "cl+partial_broadcast": ("r = xc + torch.ones(2, 3, 1, 5)", (60, 1, 15, 3), True),
    "partial_broadcast+cl": ("r = torch.ones(2, 3, 1, 5) + xc", (60, 5, 15, 1), True),
    "cl_slice+contig": ("r = xc[:, :, :1] + x", (60, 20, 5, 1), True),
    "int_cl+float": ("r = (xc * 10).int() + 1.5", (60, 1, 15, 3), True),
    "compare": ("r = xc > 0", (60, 1, 15, 3), True),
    "neg": ("r = -xc", (60, 1, 15, 3), True),
    "exp": ("r = torch.exp(xc)", (60, 1, 15, 3), True),
    "int": ("r = (xc * 10).int()", (60, 1, 15, 3), True),
    "double": ("r = xc.double()", (60, 1, 15, 3), True),
    "to_dtype": ("r = xc.to(torch.float64)", (60, 1, 15, 3), True),
    "half": ("r = xc.half()", (60, 1, 15, 3), True),
    "where_cl": ("r = torch.where(xc > 0, xc, 0.0)", (60, 1, 15, 3), True),
    "where_mixed": ("r = torch.where(y > 0, xc, y)", (60, 20, 5, 1), True),
    "clamp": ("r = xc.clamp(-0.5, 0.5)", (60, 1, 15, 3), True),
    "lerp": ("r = torch.lerp(xc, y, 0.3)", (60, 1, 15, 3), True),
    "relu": ("r = torch.relu(xc)", (60, 1, 15, 3), True),
    "gelu": ("r = F.gelu(xc)", (60, 1, 15, 3), True),
    "silu": ("r = F.silu(xc)", (60, 1, 15, 3), True),
    "sigmoid": ("r = torch.sigmoid(xc)", (60, 1, 15, 3), True),
    "leaky_relu": ("r = F.leaky_relu(xc, 0.1)", (60, 1, 15, 3), True),
    "dropout": ("r = F.dropout(xc, 0.5)", (60, 1, 15, 3), False),
    "dropout_eval": ("r = F.dropout(xc, 0.5, training=False)", (60, 1, 15, 3), True),
    "conv_cl_input": ("r = F.conv2d(xc, w, b4)", (24, 1, 12, 4), True),
    "conv_cl_weight": ("r = F.conv2d(x, wc)", (24, 1, 12, 4), True),
    "conv_contig": ("r = F.conv2d(x, w)", (24, 6, 3, 1), True),
    "batch_norm_train": ("r = F.batch_norm(xc, None, None, training=True)", (60, 1, 15, 3), True),
    "batch_norm_eval": (
        "r = F.batch_norm(xc, torch.zeros(3), torch.ones(3), torch.ones(3), torch.zeros(3))",
        (60, 1, 15, 3),
        True,
    ),
    "max_pool2d": ("r = F.max_pool2d(xc, 2)", (12, 1, 6, 3), True),
    "avg_pool2d": ("r = F.avg_pool2d(xc, 2)", (12, 1, 6, 3), True),
    "adaptive_avg_pool2d": ("r = F.adaptive_avg_pool2d(xc, (2, 2))", (12, 1, 6, 3), True),
    "interpolate_nearest": ("r = F.interpolate(xc, scale_factor=2)", (240, 1, 30, 3), True),
    "interpolate_bilinear": ("r = F.interpolate(xc, scale_factor=2, mode='bilinear')", (240, 1, 30, 3), True),
    "cl3d+1": ("r = x5c + 1", (120, 1, 60, 15, 3), True),
    "inplace_keeps_self": ("r = y.clone(); r.add_(xc)", (60, 20, 5, 1), True),
    "inplace_cl_self": ("r = xc.clone(); r.mul_(y)", (60, 1, 15, 3), True),
    "out_keeps_out": ("r = torch.empty(2, 3, 4, 5); torch.add(xc, xc, out=r)", (60, 20, 5, 1), True),
    "out_resized": ("r = torch.empty(0); torch.add(xc, xc, out=r)", (60, 1, 15, 3), True),
    "transposed+1": ("r = t + 1", (1, 4), True),
    "transposed+transposed": ("r = t * t", (1, 4), True),
    "transposed+contig": ("r = t + torch.ones(4, 3)", (1, 4), True),
    "contig+transposed": ("r = torch.ones(4, 3) + t", (3, 1), True),
    "transposed_clone": ("r = t.clone()", (1, 4), True),
    "transposed_empty_like": ("r = torch.empty_like(t)", (1, 4), False),
    "transposed_float": ("r = t.double()", (1, 4), True),
    "permuted_clone": ("r = q.clone()", (4, 12, 1), True),
    "permuted_zeros_like": ("r = torch.zeros_like(q)", (4, 12, 1), True),
    "permuted_ones_like": ("r = torch.ones_like(q, dtype=torch.int64)", (4, 12, 1), True),
    "permuted_mul": ("r = q * 2", (4, 12, 1), True),
    "permuted_to": ("r = q.to(torch.float64)", (4, 12, 1), True),
    "permuted_contiguous": ("r = q.contiguous()", (8, 4, 1), True),
    "sliced_cl_clone": ("r = xc[:, :, ::2].clone()", (30, 1, 15, 3), True),
    "sliced_cl_add": ("r = xc[:, :, ::2] + 1", (30, 1, 15, 3), True),
    "sliced_cl_empty_like": ("r = torch.empty_like(xc[:, :, ::2])", (30, 1, 15, 3), False),
    "sliced_transposed_clone": ("r = t[::2].clone()", (1, 2), True),
    "sliced_transposed_double": ("r = t[::2].double()", (1, 2), True),
    "sliced_transposed_add": ("r = t[::2] + 1", (1, 2), True),
    "sliced_permuted_zeros_like": ("r = torch.zeros_like(q[:, :, ::2])", (2, 6, 1), True),
    "sliced_permuted_to": ("r = q[:, :, ::2].to(torch.float64)", (2, 6, 1), True),
}


def run_case(lib, code):
    env = {"torch": lib}
    exec(SETUP, env)  # noqa: S102 - the cases above, run the same way in both libraries
    exec(code, env)  # noqa: S102
    return env["r"]


ORACLE_SCRIPT = (
    """
import json, sys, torch
cases = json.loads(sys.stdin.read())
setup = cases.pop("__setup__")
out = {}
for name, code in cases.items():
    env = {"torch": torch}
    exec(setup, env)
    exec(code, env)
    r = env["r"]
    out[name] = [list(r.stride()), r.double().flatten().tolist()]
print(json.dumps(out))
"""
).strip()


@pytest.fixture(scope="module")
def oracle():
    if not ORACLE:
        pytest.skip("PyTorch (the oracle) is not available: set MINITORCH_ORACLE_PYTHON")
    payload = {name: code for name, (code, _, _) in CASES.items()}
    payload["__setup__"] = SETUP
    res = subprocess.run(
        [ORACLE, "-c", ORACLE_SCRIPT], input=json.dumps(payload), capture_output=True, text=True, check=True
    )
    return json.loads(res.stdout)


@pytest.mark.parametrize("name", list(CASES))
def test_strides_as_pytorch(name):
    code, strides, _ = CASES[name]
    assert run_case(torch, code).stride() == strides


@pytest.mark.parametrize("name", list(CASES))
def test_strides_and_values_against_oracle(name, oracle):
    code, _, deterministic = CASES[name]
    r = run_case(torch, code)
    strides, values = oracle[name]
    assert list(r.stride()) == strides
    if deterministic:
        np.testing.assert_allclose(r.double().flatten().numpy(), np.array(values), rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("name", [n for n, c in CASES.items() if c[2]])
def test_values_follow_the_logical_order(name):
    # the same op on plainly contiguous inputs gives the same values: layouts change only where they sit
    code, _, _ = CASES[name]
    r = run_case(torch, code)
    plain = run_case(torch, code.replace("xc", "x").replace("wc", "w").replace("x5c", "x5c.contiguous()"))
    np.testing.assert_allclose(r.double().numpy(), plain.double().numpy(), rtol=1e-6, atol=1e-6)


def test_dropout_keeps_the_layout_and_scales_kept_values():
    x = torch.rand(4, 8, 6, 6) + 1
    xc = x.contiguous(memory_format=torch.channels_last)
    r = torch.nn.functional.dropout(xc, 0.25)
    kept = r != 0
    assert r.stride() == xc.stride()
    np.testing.assert_allclose(r[kept].numpy(), (xc[kept] / 0.75).numpy(), rtol=1e-6)
    assert 0.6 < kept.float().mean().item() < 0.9


def test_channels_last_gradients_match_contiguous():
    w = torch.randn(4, 3, 3, 3, dtype=torch.float64)
    x = torch.randn(2, 3, 6, 6, dtype=torch.float64)
    grads = []
    for layout in (torch.contiguous_format, torch.channels_last):
        a = x.clone().contiguous(memory_format=layout).requires_grad_()
        h = torch.nn.functional.conv2d(a, w, padding=1)
        h = torch.nn.functional.batch_norm(torch.relu(h) + 1, None, None, training=True)
        h = torch.nn.functional.max_pool2d(h, 2) * torch.arange(4.0, dtype=torch.float64).view(4, 1, 1)
        h.sum().backward()
        grads.append(a.grad)
    np.testing.assert_allclose(grads[0].numpy(), grads[1].numpy(), rtol=1e-10, atol=1e-10)


def test_gradients_of_dense_leaves_have_their_layout():
    # PyTorch's layout contract for .grad: a dense leaf's strides, else contiguous
    m = torch.nn.Conv2d(3, 4, 3).to(memory_format=torch.channels_last)
    m(torch.randn(2, 3, 6, 6)).sum().backward()
    assert m.weight.grad.stride() == m.weight.stride() == (27, 1, 9, 3)
    a = torch.randn(3, 4).t().requires_grad_()
    (a * 2).sum().backward()
    assert a.grad.stride() == (1, 4)
    np.testing.assert_array_equal(a.grad.numpy(), np.full((4, 3), 2.0, np.float32))
    xc = torch.randn(2, 3, 4, 5).contiguous(memory_format=torch.channels_last).requires_grad_()
    k = torch.randn(2, 3, 4, 5)
    (torch.relu(xc) * k).sum().backward()
    assert xc.grad.stride() == (60, 1, 15, 3)
    np.testing.assert_allclose(xc.grad.numpy(), np.where(xc.detach().numpy() > 0, k.numpy(), 0.0))
    xc.sum().backward()  # accumulation keeps the layout
    assert xc.grad.stride() == (60, 1, 15, 3)
    s = torch.randn(4, 6)[:, ::2].requires_grad_()
    s.sum().backward()
    assert s.grad.stride() == (3, 1)


def test_clone_and_to_of_a_permuted_tensor_keep_history():
    a = torch.randn(3, 4, dtype=torch.float64, requires_grad=True)
    b = a.t().clone()
    c = a.t().to(torch.float32)
    assert b.stride() == (1, 4) and c.stride() == (1, 4) and b._base is None
    (b * torch.arange(12.0, dtype=torch.float64).view(4, 3)).sum().backward()
    np.testing.assert_array_equal(a.grad.numpy(), np.arange(12.0).reshape(4, 3).T)
    c.sum().backward()
    np.testing.assert_array_equal(a.grad.numpy(), np.arange(12.0).reshape(4, 3).T + 1)


def test_non_dense_inputs_fall_back_to_contiguous():
    x = torch.arange(24.0).reshape(4, 6)[:, ::2]
    assert (
        x.clone().stride() == (3, 1) and torch.empty_like(x).stride() == (3, 1) and (x + 1).stride() == (3, 1)
    )
    e = torch.empty(0, 3).t()
    assert torch.empty_like(e).shape == (3, 0)


def test_permuted_dense_ops_walk_memory_in_order():
    # large enough for the threaded path: values must not depend on how the walk is split
    x = torch.randn(64, 96, 33).permute(2, 0, 1)
    y = torch.randn(64, 96, 33).permute(2, 0, 1)
    r = x * y + 1
    assert r.stride() == x.stride()
    np.testing.assert_array_equal(r.numpy(), x.numpy() * y.numpy() + np.float32(1))


def test_cpu_and_cuda_take_memory_format():
    x = torch.arange(24.0).reshape(1, 2, 3, 4)
    assert x.cpu(memory_format=torch.channels_last).stride() == (24, 1, 8, 2)
    with pytest.raises(TypeError, match="memory_format"):
        x.cuda(memory_format=1)
    if not torch.cuda.is_available():
        with pytest.raises((RuntimeError, AssertionError)):
            x.cuda(memory_format=torch.channels_last)


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a GPU")
def test_cuda_memory_format_and_propagation():
    x = torch.arange(120.0).reshape(2, 3, 4, 5)
    g = x.cuda(memory_format=torch.channels_last)
    assert g.is_cuda and g.stride() == (60, 1, 15, 3)
    assert (g + 1).stride() == (60, 1, 15, 3) and (g.cpu() + 1).stride() == (60, 1, 15, 3)
    np.testing.assert_array_equal((g * 2).cpu().numpy(), x.numpy() * 2)
    assert x.cuda().cpu(memory_format=torch.channels_last).stride() == (60, 1, 15, 3)


def test_base_of_views():
    x = torch.randn(4, 4)
    v = x[1:]
    assert x._base is None and v._base is x and v[1:]._base is x and x.t()._base is x
    for r in (x.clone(), x.t().contiguous(), x + 1, x.t().clone(), x.to(torch.float64)):
        assert r._base is None
    assert x.contiguous(memory_format=torch.contiguous_format)._base is None


def test_untyped_storage_identity():
    x = torch.randn(4, 4)
    v = x[1:]
    s = x.untyped_storage()
    assert s is x.untyped_storage() and s is v.untyped_storage() and s == v.untyped_storage()
    assert s.data_ptr() == v.untyped_storage().data_ptr() == x.data_ptr()
    assert x.clone().untyped_storage() is not s
    x.data = torch.zeros(2)  # the storage object keeps the memory it was made for
    assert s.nbytes() == 64 and x.untyped_storage() is not s
