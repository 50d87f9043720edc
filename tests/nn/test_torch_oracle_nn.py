"""PyTorch as a second oracle for nn and autocast: layers forward and backward with the same weights, a few
training steps that must follow PyTorch's trajectory, and autocast's output dtype for every op of the policy
table. Skipped where PyTorch is not installed (it runs on the GPU machine, with CUDA)."""

import numpy as np
import pytest
from conftest import REAL_TORCH as pt

import minitorch as mt
from tests.ops import op_schema, opdb

pytestmark = pytest.mark.skipif(pt is None, reason="PyTorch is not installed")

DEVICES = ["cpu"]
if pt is not None and pt.cuda.is_available() and mt.cuda.is_available():
    DEVICES.append("cuda")


def to_pt(t):
    return pt.from_numpy(t.detach().cpu().numpy().copy())


def same_weights(m_mod, t_mod):
    """Copies minitorch's parameters and buffers into the PyTorch module."""
    sd = {k: to_pt(v) for k, v in m_mod.state_dict().items()}
    t_mod.load_state_dict(sd)


LAYERS = [
    ("Linear", lambda nn: nn.Linear(5, 4), (3, 5)),
    ("Conv2d", lambda nn: nn.Conv2d(4, 6, 3, stride=2, padding=1, dilation=1, groups=2), (2, 4, 9, 9)),
    ("Conv2d_dil", lambda nn: nn.Conv2d(3, 4, 3, padding="same", dilation=2, bias=False), (2, 3, 8, 7)),
    ("Conv1d", lambda nn: nn.Conv1d(3, 5, 4, stride=3, padding=2), (2, 3, 17)),
    ("ConvT2d", lambda nn: nn.ConvTranspose2d(4, 2, 3, stride=2, padding=1, output_padding=1), (2, 4, 5, 5)),
    ("MaxPool2d", lambda nn: nn.MaxPool2d(3, stride=2, padding=1, ceil_mode=True), (2, 3, 9, 8)),
    ("AvgPool2d", lambda nn: nn.AvgPool2d(3, stride=2, padding=1, count_include_pad=False), (2, 3, 9, 8)),
    ("AdaptiveAvgPool2d", lambda nn: nn.AdaptiveAvgPool2d((3, 4)), (2, 3, 7, 9)),
    ("BatchNorm2d", lambda nn: nn.BatchNorm2d(3), (4, 3, 5, 5)),
    ("LayerNorm", lambda nn: nn.LayerNorm((4, 5)), (3, 4, 5)),
    ("GroupNorm", lambda nn: nn.GroupNorm(2, 6), (3, 6, 4)),
    ("GELU", lambda nn: nn.GELU(), (3, 7)),
    ("Sequential", lambda nn: nn.Sequential(nn.Linear(6, 8), nn.Tanh(), nn.Linear(8, 2)), (5, 6)),
]


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("name,make,shape", LAYERS, ids=[c[0] for c in LAYERS])
def test_layer_forward_backward_matches_pytorch(device, name, make, shape):
    mt.manual_seed(0)
    m_mod = make(mt.nn).double().to(device)
    t_mod = make(pt.nn).double().to(device)
    same_weights(m_mod, t_mod)
    rng = np.random.default_rng(0)
    xn = rng.standard_normal(shape)
    xm = mt.from_numpy(xn.copy()).to(device).requires_grad_(True)
    xt = pt.from_numpy(xn.copy()).to(device).requires_grad_(True)
    ym, yt = m_mod(xm), t_mod(xt)
    np.testing.assert_allclose(ym.detach().cpu().numpy(), yt.detach().cpu().numpy(), rtol=1e-10, atol=1e-12)
    gn = rng.standard_normal(tuple(yt.shape))
    ym.backward(mt.from_numpy(gn.copy()).to(device))
    yt.backward(pt.from_numpy(gn.copy()).to(device))
    np.testing.assert_allclose(xm.grad.cpu().numpy(), xt.grad.cpu().numpy(), rtol=1e-9, atol=1e-11)
    for (n1, p1), (n2, p2) in zip(m_mod.named_parameters(), t_mod.named_parameters()):
        assert n1 == n2
        np.testing.assert_allclose(p1.grad.cpu().numpy(), p2.grad.cpu().numpy(), rtol=1e-9, atol=1e-11)
    for (n1, b1), (n2, b2) in zip(m_mod.named_buffers(), t_mod.named_buffers()):
        assert n1 == n2
        np.testing.assert_allclose(b1.cpu().numpy(), b2.cpu().numpy(), rtol=1e-12, atol=1e-12)


LOSSES = [
    ("ce", lambda F, x, t, p, w: F.cross_entropy(x, t)),
    ("ce_opts", lambda F, x, t, p, w: F.cross_entropy(x, t, weight=w, ignore_index=1, label_smoothing=0.2)),
    ("ce_prob", lambda F, x, t, p, w: F.cross_entropy(x, p, label_smoothing=0.1, reduction="sum")),
    ("nll", lambda F, x, t, p, w: F.nll_loss(x.log_softmax(1), t, weight=w, reduction="mean")),
    ("mse", lambda F, x, t, p, w: F.mse_loss(x, p)),
    ("l1", lambda F, x, t, p, w: F.l1_loss(x, p, reduction="sum")),
    ("smooth_l1", lambda F, x, t, p, w: F.smooth_l1_loss(x, p * 4, beta=0.5)),
    ("huber", lambda F, x, t, p, w: F.huber_loss(x, p * 4, delta=0.7)),
    ("bce", lambda F, x, t, p, w: F.binary_cross_entropy(x.sigmoid(), p, reduction="none")),
    ("bce_logits", lambda F, x, t, p, w: F.binary_cross_entropy_with_logits(x, p, pos_weight=w)),
    ("kl_div", lambda F, x, t, p, w: F.kl_div(x.log_softmax(1), p, reduction="batchmean")),
]


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("name,fn", LOSSES, ids=[c[0] for c in LOSSES])
def test_loss_matches_pytorch(device, name, fn):
    rng = np.random.default_rng(1)
    xn = rng.standard_normal((6, 4))
    tn = rng.integers(0, 4, size=6)
    pn = rng.dirichlet(np.ones(4), size=6)
    wn = rng.uniform(0.5, 2.0, size=4)
    outs = []
    for lib in (mt, pt):
        x = lib.from_numpy(xn.copy()).to(device).requires_grad_(True)
        t = lib.from_numpy(tn.copy()).to(device)
        p = lib.from_numpy(pn.copy()).to(device)
        w = lib.from_numpy(wn.copy()).to(device)
        loss = fn(lib.nn.functional, x, t, p, w)
        loss.sum().backward()
        outs.append((loss.detach().cpu().numpy(), x.grad.cpu().numpy()))
    np.testing.assert_allclose(outs[0][0], outs[1][0], rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(outs[0][1], outs[1][1], rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("opt", ["sgd", "adam"])
def test_training_trajectory_matches_pytorch(device, opt):
    """Ten steps of a small CNN classifier: the parameters after each step agree with PyTorch's."""

    def build(lib):
        nn = lib.nn
        return nn.Sequential(
            nn.Conv2d(1, 3, 3, padding=1),
            nn.BatchNorm2d(3),
            nn.ReLU(),
            nn.MaxPool2d(2),
            nn.Flatten(),
            nn.Linear(3 * 4 * 4, 5),
        ).double()

    mt.manual_seed(0)
    m_mod, t_mod = build(mt).to(device), build(pt).to(device)
    same_weights(m_mod, t_mod)

    def make_opt(lib, mod):
        if opt == "sgd":
            return lib.optim.SGD(mod.parameters(), lr=0.1, momentum=0.9, nesterov=True, weight_decay=1e-3)
        return lib.optim.Adam(mod.parameters(), lr=0.01, weight_decay=1e-3, amsgrad=True)

    mo, to = make_opt(mt, m_mod), make_opt(pt, t_mod)
    rng = np.random.default_rng(2)
    for _ in range(10):
        xn = rng.standard_normal((8, 1, 8, 8))
        yn = rng.integers(0, 5, size=8)
        for lib, mod, o in ((mt, m_mod, mo), (pt, t_mod, to)):
            o.zero_grad()
            x, y = lib.from_numpy(xn.copy()).to(device), lib.from_numpy(yn.copy()).to(device)
            lib.nn.functional.cross_entropy(mod(x), y).backward()
            o.step()
        for (n, a), (_, b) in zip(m_mod.state_dict().items(), t_mod.state_dict().items()):
            np.testing.assert_allclose(a.cpu().numpy(), b.cpu().numpy(), rtol=1e-8, atol=1e-10, err_msg=n)


def _policy_calls(lib, device, dtype):
    """One call per op of minitorch's autocast table, written for either library; inputs of `dtype`."""
    F = lib.nn.functional

    def x(*shape, positive=False):
        a = lib.from_numpy(np.random.default_rng(3).uniform(0.1 if positive else -1, 1, size=shape))
        return a.to(device).to(dtype)

    def dom(low, high):
        a = lib.from_numpy(np.random.default_rng(3).uniform(low, high, size=(4,)))
        return a.to(device).to(dtype)

    def elementwise(op):
        """An elementwise op of the op database (tests/ops/opdb.py), on inputs from its domain."""
        if op.name in op_schema.UNARY:
            return lambda: getattr(dom(*(op.domain or (-1, 1))), op.name)()
        return lambda: getattr(lib, op.name)(x(4, positive=op.domain == "pow"), x(4))

    t = lib.tensor([0, 1, 3]).to(device)
    calls = {name: elementwise(opdb.OPS[name]) for name, _, _ in mt._C._autocast_policy() if name in opdb.OPS}
    return calls | {
        "mm": lambda: lib.mm(x(4, 3), x(3, 5)),
        "bmm": lambda: lib.bmm(x(2, 4, 3), x(2, 3, 5)),
        "addmm": lambda: lib.addmm(x(5), x(4, 3), x(3, 5)),
        "mv": lambda: lib.mv(x(4, 3), x(3)),
        "matmul": lambda: lib.matmul(x(2, 4, 3), x(3, 5)),
        "linear": lambda: F.linear(x(4, 3), x(5, 3), x(5)),
        "conv1d": lambda: F.conv1d(x(1, 2, 8), x(3, 2, 3)),
        "conv2d": lambda: F.conv2d(x(1, 2, 6, 6), x(3, 2, 3, 3)),
        "conv_transpose1d": lambda: F.conv_transpose1d(x(1, 2, 8), x(2, 3, 3)),
        "conv_transpose2d": lambda: F.conv_transpose2d(x(1, 2, 6, 6), x(2, 3, 3, 3)),
        "softplus": lambda: F.softplus(x(4)),
        "softmax": lambda: x(3, 4).softmax(1),
        "log_softmax": lambda: x(3, 4).log_softmax(1),
        "sum": lambda: x(3, 4).sum(),
        "prod": lambda: x(3, 4).prod(),
        "cumsum": lambda: x(3, 4).cumsum(1),
        "cumprod": lambda: x(3, 4).cumprod(1),
        "norm": lambda: x(3, 4).norm(),
        "layer_norm": lambda: F.layer_norm(x(3, 4), (4,)),
        "group_norm": lambda: F.group_norm(x(2, 4, 3), 2),
        "cross_entropy": lambda: F.cross_entropy(x(3, 4), t),
        "nll_loss": lambda: F.nll_loss(x(3, 4), t),
        "mse_loss": lambda: F.mse_loss(x(3, 4), x(3, 4)),
        "l1_loss": lambda: F.l1_loss(x(3, 4), x(3, 4)),
        "smooth_l1_loss": lambda: F.smooth_l1_loss(x(3, 4), x(3, 4)),
        "huber_loss": lambda: F.huber_loss(x(3, 4), x(3, 4)),
        "kl_div": lambda: F.kl_div(x(3, 4), x(3, 4, positive=True), reduction="batchmean"),
        "binary_cross_entropy_with_logits": lambda: F.binary_cross_entropy_with_logits(
            x(3, 4), x(3, 4).sigmoid()
        ),
        "binary_cross_entropy": lambda: F.binary_cross_entropy(x(3, 4).sigmoid(), x(3, 4).sigmoid()),
        "dot": lambda: lib.dot(x(4), x(4)),
        "cat": lambda: lib.cat([x(2), x(2).to(lib.float32)]),
        "stack": lambda: lib.stack([x(2), x(2).to(lib.float32)]),
    }


POLICY = mt._C._autocast_policy()


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("input_dtype", ["float32", "lower"])
@pytest.mark.parametrize("op", [p[0] for p in POLICY])
def test_autocast_output_dtype_matches_pytorch(device, input_dtype, op):
    lower = "bfloat16" if device == "cpu" else "float16"
    dt = lower if input_dtype == "lower" else "float32"
    results = []
    for lib in (mt, pt):
        call = _policy_calls(lib, device, getattr(lib, dt))[op]
        try:
            with lib.autocast(device_type=device, dtype=getattr(lib, lower)):
                results.append(str(call().dtype).split(".")[-1])
        except RuntimeError as e:
            results.append("error: unsafe" if "unsafe to autocast" in str(e) else f"error: {e}")
    assert results[0] == results[1], f"{op}: minitorch {results[0]}, PyTorch {results[1]}"


FUNCTIONAL = [
    ("relu", lambda F, x: F.relu(x)),
    ("relu6", lambda F, x: F.relu6(x * 4)),
    ("leaky_relu", lambda F, x: F.leaky_relu(x, 0.2)),
    ("gelu", lambda F, x: F.gelu(x)),
    ("gelu_tanh", lambda F, x: F.gelu(x, approximate="tanh")),
    ("silu", lambda F, x: F.silu(x)),
    ("mish", lambda F, x: F.mish(x)),
    ("elu", lambda F, x: F.elu(x, 0.7)),
    ("selu", lambda F, x: F.selu(x)),
    ("celu", lambda F, x: F.celu(x, 1.3)),
    ("hardtanh", lambda F, x: F.hardtanh(x, -0.5, 0.7)),
    ("hardswish", lambda F, x: F.hardswish(x * 4)),
    ("hardsigmoid", lambda F, x: F.hardsigmoid(x * 4)),
    ("logsigmoid", lambda F, x: F.logsigmoid(x)),
    ("softplus", lambda F, x: F.softplus(x, beta=2.0, threshold=1.0)),
    ("softsign", lambda F, x: F.softsign(x)),
    ("tanhshrink", lambda F, x: F.tanhshrink(x)),
    ("threshold", lambda F, x: F.threshold(x, 0.1, -3.0)),
    ("glu", lambda F, x: F.glu(x, 1)),
    ("softmin", lambda F, x: F.softmin(x, dim=1)),
    ("normalize", lambda F, x: F.normalize(x, p=3.0, dim=0)),
    ("cosine_similarity", lambda F, x: F.cosine_similarity(x[:, :2], x[:, 2:])),
    ("pairwise_distance", lambda F, x: F.pairwise_distance(x[:, :2], x[:, 2:], p=1.5)),
    ("pad_reflect", lambda F, x: F.pad(x[None], (2, 1), mode="reflect")),
    ("pad_circular", lambda F, x: F.pad(x[None], (1, 2), mode="circular")),
    ("pad_replicate", lambda F, x: F.pad(x[None], (3, 1), mode="replicate")),
    ("instance_norm", lambda F, x: F.instance_norm(x.reshape(1, 2, 6))),
    ("dropout_eval", lambda F, x: F.dropout(x, 0.5, training=False)),
    ("one_hot", lambda F, x: F.one_hot((x.abs() * 2).long(), 6)),
]


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("name,fn", FUNCTIONAL, ids=[c[0] for c in FUNCTIONAL])
def test_functional_matches_pytorch(device, name, fn):
    xn = np.random.default_rng(5).uniform(-2.5, 2.5, size=(3, 4))
    got = fn(mt.nn.functional, mt.from_numpy(xn.copy()).to(device))
    ref = fn(pt.nn.functional, pt.from_numpy(xn.copy()).to(device))
    assert str(got.dtype).split(".")[-1] == str(ref.dtype).split(".")[-1]
    tol = 1e-12
    if device == "cuda" and name in ("hardswish", "hardsigmoid"):
        # PyTorch's CUDA kernels scale by a float 1/6 also in float64 (hardsigmoid(3) = 1.0000000298); ours is
        # the float64 1/6, as PyTorch's CPU kernels: compared with the exact values instead
        x4 = xn * 4  # the cases' input
        exact = np.clip(x4 + 3, 0, 6) / 6 * (x4 if name == "hardswish" else 1)
        np.testing.assert_allclose(got.cpu().numpy(), exact, rtol=tol, atol=tol)
        tol = 1e-7
    np.testing.assert_allclose(got.cpu().numpy(), ref.cpu().numpy(), rtol=tol, atol=tol)
