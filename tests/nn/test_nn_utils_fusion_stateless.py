"""nn.utils.fusion (a BatchNorm folded into the convolution / linear layer before it: same output in eval
mode), nn.utils.stateless.functional_call (a module run with some tensors swapped in for one call), with
PyTorch's errors, and nn.utils.convert_conv2d/3d_weight_memory_format (against PyTorch)."""

import warnings

import numpy as np
import pytest

import minitorch
from minitorch import nn
from minitorch.nn.utils import (
    fuse_conv_bn_eval,
    fuse_conv_bn_weights,
    fuse_linear_bn_eval,
    fuse_linear_bn_weights,
)
from minitorch.nn.utils.stateless import functional_call
from tests.utils import cases_here_and_in_pytorch


def npy(t):
    return t.detach().double().cpu().numpy().copy()


def randomize_bn(bn, seed=0):
    rng = np.random.default_rng(seed)
    n = bn.num_features
    with minitorch.no_grad():
        bn.running_mean.copy_(minitorch.tensor(rng.standard_normal(n)))
        bn.running_var.copy_(minitorch.tensor(rng.uniform(0.5, 2.0, n)))
        if bn.affine:
            bn.weight.copy_(minitorch.tensor(rng.standard_normal(n)))
            bn.bias.copy_(minitorch.tensor(rng.standard_normal(n)))
    return bn.eval()


# ---- fusion
@pytest.mark.parametrize(
    "conv, bn, shape",
    [
        (lambda: nn.Conv2d(3, 4, 3, padding=1), lambda: nn.BatchNorm2d(4), (2, 3, 6, 6)),
        (lambda: nn.Conv2d(3, 4, 3, bias=False), lambda: nn.BatchNorm2d(4), (2, 3, 5, 5)),
        (lambda: nn.Conv2d(3, 4, 1), lambda: nn.BatchNorm2d(4, affine=False), (1, 3, 4, 4)),
        (lambda: nn.Conv1d(2, 5, 3, stride=2), lambda: nn.BatchNorm1d(5), (3, 2, 9)),
        (lambda: nn.Conv2d(4, 6, 3, groups=2), lambda: nn.BatchNorm2d(6, eps=1e-3), (2, 4, 5, 5)),
    ],
)
def test_fuse_conv_bn_eval_same_output(conv, bn, shape, device):
    minitorch.manual_seed(0)
    c = conv().double().to(device).eval()
    b = randomize_bn(bn().double().to(device))
    w_before = npy(c.weight)
    fused = fuse_conv_bn_eval(c, b)
    x = minitorch.randn(shape, dtype=minitorch.float64, device=device)
    np.testing.assert_allclose(npy(fused(x)), npy(b(c(x))), rtol=1e-10, atol=1e-12)
    assert fused is not c and type(fused) is type(c)
    np.testing.assert_array_equal(npy(c.weight), w_before)  # the original layer is untouched
    assert isinstance(fused.weight, nn.Parameter) and isinstance(fused.bias, nn.Parameter)
    assert fused.weight.requires_grad
    # as in PyTorch: a bias made up for a conv without one does not require grad
    assert fused.bias.requires_grad == (c.bias is not None)


def test_fuse_conv_transpose_bn():
    minitorch.manual_seed(0)
    c = nn.ConvTranspose2d(3, 4, 3, stride=2).double().eval()
    b = randomize_bn(nn.BatchNorm2d(4).double())
    fused = fuse_conv_bn_eval(c, b, transpose=True)
    x = minitorch.randn(2, 3, 4, 4, dtype=minitorch.float64)
    np.testing.assert_allclose(npy(fused(x)), npy(b(c(x))), rtol=1e-10, atol=1e-12)


def test_fuse_conv_bn_weights_formula():
    rng = np.random.default_rng(1)
    W, B = rng.standard_normal((4, 2, 3, 3)), rng.standard_normal(4)
    rm, rv, g, beta = (
        rng.standard_normal(4),
        rng.uniform(0.5, 2, 4),
        rng.standard_normal(4),
        rng.standard_normal(4),
    )
    t = minitorch.tensor
    fw, fb = fuse_conv_bn_weights(t(W), t(B), t(rm), t(rv), 1e-5, t(g), t(beta))
    scale = g / np.sqrt(rv + 1e-5)
    np.testing.assert_allclose(npy(fw), W * scale[:, None, None, None], rtol=1e-12)
    np.testing.assert_allclose(npy(fb), (B - rm) * scale + beta, rtol=1e-12)
    # no conv bias, no affine: zeros and ones; dtypes follow the conv's weight
    fw, fb = fuse_conv_bn_weights(t(W).float(), None, t(rm), t(rv), 1e-5, None, None)
    assert fw.dtype == minitorch.float32 and fb.dtype == minitorch.float32
    np.testing.assert_allclose(npy(fb), -rm / np.sqrt(rv + 1e-5), rtol=1e-6)


@pytest.mark.parametrize("bn_features", [3, 1])
def test_fuse_linear_bn_eval_same_output(bn_features):
    minitorch.manual_seed(0)
    lin = nn.Linear(5, 3).double().eval()
    b = randomize_bn(nn.BatchNorm1d(bn_features).double())
    fused = fuse_linear_bn_eval(lin, b)
    x = minitorch.randn(4, 5, dtype=minitorch.float64)
    if bn_features == 3:
        np.testing.assert_allclose(npy(fused(x)), npy(b(lin(x))), rtol=1e-10, atol=1e-12)
    else:
        # one BatchNorm channel: its statistics apply to every output feature
        scale = npy(b.weight) / np.sqrt(npy(b.running_var) + b.eps)
        ref = (npy(lin(x)) - npy(b.running_mean)) * scale + npy(b.bias)
        np.testing.assert_allclose(npy(fused(x)), ref, rtol=1e-10, atol=1e-12)


def test_fuse_linear_bn_weights_no_bias():
    t = minitorch.tensor
    W = np.arange(6.0).reshape(2, 3)
    fw, fb = fuse_linear_bn_weights(
        t(W), None, t([1.0, 2.0]), t([4.0, 1.0]), 0.0, t([2.0, 3.0]), t([0.5, 0.0])
    )
    np.testing.assert_allclose(npy(fw), W * np.array([[1.0], [3.0]]))
    np.testing.assert_allclose(npy(fb), [-1 + 0.5, -6.0])


def test_fusion_errors():
    with pytest.raises(AssertionError, match="^Fusion only for eval!$"):
        fuse_conv_bn_eval(nn.Conv2d(2, 3, 1), nn.BatchNorm2d(3).eval())
    with pytest.raises(AssertionError, match="^Fusion only for eval!$"):
        fuse_linear_bn_eval(nn.Linear(2, 3).eval(), nn.BatchNorm1d(3))
    with pytest.raises(
        AssertionError,
        match="^To fuse, linear.out_features == bn.num_features or bn.num_features == 1, "
        "got linear.out_features=3 and bn.num_features=4$",
    ):
        fuse_linear_bn_eval(nn.Linear(2, 3).eval(), nn.BatchNorm1d(4).eval())
    with pytest.raises(AssertionError, match="^bn.running_mean and bn.running_var must not be None$"):
        fuse_conv_bn_eval(nn.Conv2d(2, 3, 1).eval(), nn.BatchNorm2d(3, track_running_stats=False).eval())


# ---- functional_call
def call(*args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        return functional_call(*args, **kwargs)


def test_functional_call_swaps_for_one_call(device):
    m = nn.Linear(3, 2).double().to(device)
    w_obj, w_val = m.weight, npy(m.weight)
    W = minitorch.randn(2, 3, dtype=minitorch.float64, device=device, requires_grad=True)
    x = minitorch.randn(4, 3, dtype=minitorch.float64, device=device)
    out = call(m, {"weight": W}, (x,))
    np.testing.assert_allclose(npy(out), npy(x) @ npy(W).T + npy(m.bias), rtol=1e-12)
    assert m.weight is w_obj and isinstance(m._parameters["weight"], nn.Parameter)
    np.testing.assert_array_equal(npy(m.weight), w_val)
    out.sum().backward()
    np.testing.assert_allclose(npy(W.grad), np.tile(npy(x).sum(0), (2, 1)), rtol=1e-12)
    assert m.weight.grad is None


def test_functional_call_nested_buffers_kwargs_and_single_arg():
    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.body = nn.Sequential(nn.Linear(2, 2), nn.BatchNorm1d(2))

        def forward(self, x, *, shift=0.0):
            return self.body(x) + shift

    net = Net().eval()
    rm = minitorch.tensor([1.0, -1.0])
    x = minitorch.randn(3, 2)
    out = call(net, {"body.1.running_mean": rm}, x, {"shift": 2.0})
    ref_bn = nn.BatchNorm1d(2).eval()
    ref_bn.load_state_dict(net.body[1].state_dict())
    with minitorch.no_grad():
        ref_bn.running_mean.copy_(rm)
    np.testing.assert_allclose(npy(out), npy(ref_bn(net.body[0](x)) + 2.0), rtol=1e-6)
    np.testing.assert_array_equal(npy(net.body[1].running_mean), [0, 0])


def test_functional_call_restores_after_exception():
    class Boom(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(2, 2)

        def forward(self, x):
            raise ValueError("boom")

    m = Boom()
    w = m.lin.weight
    with pytest.raises(ValueError, match="boom"):
        call(m, {"lin.weight": minitorch.zeros(2, 2)}, minitorch.zeros(1, 2))
    assert m.lin.weight is w


def test_functional_call_tied_weights_and_strict():
    class Tied(nn.Module):
        def __init__(self):
            super().__init__()
            self.a = nn.Linear(2, 2)
            self.b = nn.Linear(2, 2)
            self.b.weight = self.a.weight

        def forward(self, x):
            return self.a(x) + self.b(x)

    m = Tied()
    x = minitorch.randn(1, 2)
    zeros = minitorch.zeros(2, 2)
    np.testing.assert_allclose(
        npy(call(m, {"a.weight": zeros}, x)), npy(m.a.bias + m.b.bias)[None], rtol=1e-6
    )
    np.testing.assert_allclose(
        npy(call(m, {"a.weight": zeros}, x, tie_weights=False)), npy(m.b(x) + m.a.bias), rtol=1e-6
    )
    with pytest.raises(
        ValueError,
        match="^functional_call got multiple values for keys \\['a.weight', 'b.weight'\\], "
        "which are tied. Consider using tie_weights=False$",
    ):
        call(m, {"a.weight": zeros, "b.weight": minitorch.ones(2, 2)}, x)
    with pytest.raises(
        RuntimeError,
        match="^Error\\(s\\) in reparametrizing for Tied:\n\tMissing key\\(s\\): 'a.bias', 'b.bias'.$",
    ):
        call(m, {"a.weight": zeros}, x, strict=True)
    with pytest.raises(RuntimeError, match="Unexpected key\\(s\\): 'c'.\n\tMissing key"):
        call(m, {"c": zeros}, x, strict=True)
    with pytest.raises(AttributeError, match="^Tied has no attribute `c`$"):
        call(m, {"c.weight": zeros}, x)


def test_functional_call_new_attribute_is_removed_and_bad_value():
    m = nn.Linear(2, 2)
    call(m, {"extra": minitorch.ones(1)}, minitorch.zeros(1, 2))
    assert not hasattr(m, "extra")
    with pytest.raises(TypeError, match="^3 is not an instance of torch.Tensor$"):
        call(m, {"weight": 3}, minitorch.zeros(1, 2))
    assert isinstance(m.weight, nn.Parameter)


def test_functional_call_warns_deprecated():
    with pytest.warns(
        FutureWarning, match="^`torch.nn.utils.stateless.functional_call` is deprecated as of PyTorch 2.0"
    ):
        functional_call(nn.Linear(1, 1), {}, minitorch.zeros(1, 1))


_MEMORY_FORMAT = r"""
def cases(torch):
    nn = torch.nn
    m = nn.Sequential(nn.Conv2d(3, 4, 3), nn.Sequential(nn.ConvTranspose2d(4, 2, 2), nn.Conv3d(2, 2, 1)), nn.Linear(2, 2))
    w0 = m[0].weight
    before = [p.detach().clone().tolist() for p in m.parameters()]
    r = torch.nn.utils.convert_conv2d_weight_memory_format(m, torch.channels_last)
    out = [r is m, m[0].weight is w0, [list(p.stride()) for p in m.parameters()],
           [p.detach().tolist() for p in m.parameters()] == before,
           m[0].weight.is_contiguous(memory_format=torch.channels_last)]
    torch.nn.utils.convert_conv3d_weight_memory_format(m, torch.channels_last_3d)
    out.append([list(p.stride()) for p in m.parameters()])
    torch.nn.utils.convert_conv2d_weight_memory_format(m, torch.contiguous_format)
    out.append([list(p.stride()) for p in m.parameters()])
    out.append([p.requires_grad for p in m.parameters()])
    return out
"""


def test_convert_conv_weight_memory_format_as_pytorch():
    # the weights keep their Parameter objects and values; only the (transposed) convolutions' layouts change
    ours, theirs = cases_here_and_in_pytorch(_MEMORY_FORMAT, [("torch", minitorch)])
    assert ours == theirs
