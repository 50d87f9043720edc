"""Mixed precision: autocast's op policy (iterating the same table the ops use), nesting, threads, the
decorator, backward dtypes, the CUDA spellings on a machine without CUDA, and GradScaler's rules."""

import threading
import warnings

import numpy as np
import pytest
from utils import run_oracle

import minitorch
from minitorch import nn
from minitorch.nn import functional as F
from tests.ops import op_schema, opdb

LOWER = {"cpu": minitorch.bfloat16, "cuda": minitorch.float16}


def _x(*shape, device="cpu"):
    return minitorch.randn(shape).to(device)


# one call per op of the policy table; each returns the op's output (the elementwise ops' below, from the op database)
CALLS = {
    "mm": lambda d: minitorch.mm(_x(4, 3, device=d), _x(3, 5, device=d)),
    "bmm": lambda d: minitorch.bmm(_x(2, 4, 3, device=d), _x(2, 3, 5, device=d)),
    "addmm": lambda d: minitorch.addmm(_x(5, device=d), _x(4, 3, device=d), _x(3, 5, device=d)),
    "mv": lambda d: minitorch.mv(_x(4, 3, device=d), _x(3, device=d)),
    "addmv": lambda d: minitorch.addmv(_x(4, device=d), _x(4, 3, device=d), _x(3, device=d)),
    "matmul": lambda d: minitorch.matmul(_x(2, 4, 3, device=d), _x(3, 5, device=d)),
    "linear": lambda d: F.linear(_x(4, 3, device=d), _x(5, 3, device=d), _x(5, device=d)),
    "conv1d": lambda d: F.conv1d(_x(1, 2, 8, device=d), _x(3, 2, 3, device=d)),
    "conv2d": lambda d: F.conv2d(_x(1, 2, 6, 6, device=d), _x(3, 2, 3, 3, device=d)),
    "conv_transpose1d": lambda d: F.conv_transpose1d(_x(1, 2, 8, device=d), _x(2, 3, 3, device=d)),
    "conv_transpose2d": lambda d: F.conv_transpose2d(_x(1, 2, 6, 6, device=d), _x(2, 3, 3, 3, device=d)),
    "softplus": lambda d: F.softplus(_x(4, device=d)),
    "softmax": lambda d: _x(3, 4, device=d).softmax(1),
    "log_softmax": lambda d: _x(3, 4, device=d).log_softmax(1),
    "sum": lambda d: _x(3, 4, device=d).sum(),
    "prod": lambda d: _x(3, 4, device=d).prod(),
    "cumsum": lambda d: _x(3, 4, device=d).cumsum(1),
    "cumprod": lambda d: _x(3, 4, device=d).cumprod(1),
    "norm": lambda d: _x(3, 4, device=d).norm(),
    "layer_norm": lambda d: F.layer_norm(_x(3, 4, device=d), (4,)),
    "group_norm": lambda d: F.group_norm(_x(2, 4, 3, device=d), 2),
    "cross_entropy": lambda d: F.cross_entropy(_x(3, 4, device=d), minitorch.tensor([0, 1, 3]).to(d)),
    "nll_loss": lambda d: F.nll_loss(_x(3, 4, device=d), minitorch.tensor([0, 1, 3]).to(d)),
    "mse_loss": lambda d: F.mse_loss(_x(3, 4, device=d), _x(3, 4, device=d)),
    "l1_loss": lambda d: F.l1_loss(_x(3, 4, device=d), _x(3, 4, device=d)),
    "smooth_l1_loss": lambda d: F.smooth_l1_loss(_x(3, 4, device=d), _x(3, 4, device=d)),
    "huber_loss": lambda d: F.huber_loss(_x(3, 4, device=d), _x(3, 4, device=d)),
    "kl_div": lambda d: F.kl_div(_x(3, 4, device=d), _x(3, 4, device=d).softmax(1)),
    "binary_cross_entropy_with_logits": lambda d: F.binary_cross_entropy_with_logits(
        _x(3, 4, device=d), _x(3, 4, device=d).sigmoid()
    ),
    "binary_cross_entropy": lambda d: F.binary_cross_entropy(
        _x(3, 4, device=d).sigmoid(), _x(3, 4, device=d).sigmoid()
    ),
    "dot": lambda d: minitorch.dot(_x(4, device=d), _x(4, device=d)),
    "cat": lambda d: minitorch.cat([_x(2, device=d), _x(2, device=d).to(minitorch.float16)]),
    "stack": lambda d: minitorch.stack([_x(2, device=d), _x(2, device=d).to(minitorch.float16)]),
}
POLICY = minitorch._C._autocast_policy()


def _elementwise_call(op, policies):
    """The call of an elementwise op of the op database (tests/ops/opdb.py): its method on inputs from its
    domain, with a float16 other where the policy promotes (float32 and float16 mixed)."""
    fn = op_schema.function(op.name)
    if op.name in op_schema.UNARY:
        lo, hi = op.domain or (None, None)

        def unary(d):
            x = _x(4, device=d) if lo is None else minitorch.rand(4).to(d) * (hi - lo) + lo
            return getattr(x, op.name)() if "method" in op.schema.variants else fn(x)

        return unary

    def binary(d):
        a, b = _x(4, device=d), _x(4, device=d)
        if op.domain == "pow":
            a = a.abs()
        return fn(a, b.to(minitorch.float16) if "promote" in policies else b)

    return binary


CALLS.update(
    {name: _elementwise_call(opdb.OPS[name], (cuda, cpu)) for name, cuda, cpu in POLICY if name in opdb.OPS}
)


def test_every_policy_entry_has_a_test_call():
    assert {name for name, _, _ in POLICY} == set(CALLS)


@pytest.mark.parametrize("name,cuda_policy,cpu_policy", POLICY, ids=[p[0] for p in POLICY])
def test_autocast_output_dtype_follows_the_policy(device, name, cuda_policy, cpu_policy):
    policy = cuda_policy if device == "cuda" else cpu_policy
    minitorch.manual_seed(0)
    plain = CALLS[name](device)
    minitorch.manual_seed(0)
    if policy == "banned":
        with (
            pytest.raises(RuntimeError, match="are unsafe to autocast"),
            minitorch.autocast(device, LOWER[device]),
        ):
            CALLS[name](device)
        return
    with minitorch.autocast(device_type=device, dtype=LOWER[device]):
        out = CALLS[name](device)
    expected = {
        "lower": LOWER[device],
        "fp32": minitorch.float32,
        "promote": minitorch.float32,  # the test inputs mix float32 with float16
        "same": plain.dtype,
    }[policy]
    assert out.dtype == expected, (name, policy, out.dtype)
    # the values are the float32 result up to the lower precision's rounding
    ref = plain.detach().float().cpu().numpy()
    got = out.detach().float().cpu().numpy()
    tol = 6e-2 if policy == "lower" else 1e-2
    np.testing.assert_allclose(got, ref, rtol=tol, atol=tol * max(1.0, float(np.abs(ref).max())))


def test_float64_and_integer_inputs_are_never_cast():
    with minitorch.autocast("cpu"):
        a = minitorch.randn(3, 3, dtype=minitorch.float64)
        assert minitorch.mm(a, a).dtype == minitorch.float64
        i = minitorch.ones(3, dtype=minitorch.int64)
        assert minitorch.cat([i, i]).dtype == minitorch.int64


def test_nesting_restores_and_disabled_inner_region():
    assert not minitorch.is_autocast_enabled("cpu")
    x = minitorch.randn(2, 2)
    with minitorch.autocast("cpu"):
        assert minitorch.is_autocast_enabled("cpu")
        with minitorch.autocast("cpu", enabled=False):
            assert minitorch.mm(x, x).dtype == minitorch.float32
        assert minitorch.mm(x, x).dtype == minitorch.bfloat16
        with minitorch.autocast("cpu", dtype=minitorch.float16):
            assert minitorch.mm(x, x).dtype == minitorch.float16
        assert minitorch.get_autocast_dtype("cpu") == minitorch.bfloat16
    assert not minitorch.is_autocast_enabled("cpu")
    assert minitorch.mm(x, x).dtype == minitorch.float32


def test_autocast_is_thread_local():
    seen = []
    x = minitorch.randn(2, 2)

    def other():
        seen.append(minitorch.mm(x, x).dtype)

    with minitorch.autocast("cpu"):
        t = threading.Thread(target=other)
        t.start()
        t.join()
    assert seen == [minitorch.float32]


def test_autocast_as_decorator():
    @minitorch.autocast("cpu")
    def f(a):
        return a @ a

    assert f(minitorch.randn(2, 2)).dtype == minitorch.bfloat16
    assert not minitorch.is_autocast_enabled("cpu")


def test_exception_inside_region_restores_state():
    with pytest.raises(ValueError), minitorch.autocast("cpu"):
        raise ValueError
    assert not minitorch.is_autocast_enabled("cpu")


def test_bad_arguments():
    with pytest.raises(ValueError, match="Expected `device_type` of type `str`"):
        minitorch.autocast(minitorch.device("cpu"))
    with pytest.raises(RuntimeError, match="unsupported autocast device_type 'tpu'"):
        minitorch.autocast("tpu")
    with pytest.warns(UserWarning, match="CPU Autocast only supports dtype of torch.bfloat16"):
        ac = minitorch.autocast("cpu", dtype=minitorch.float64)
    with ac:
        assert not minitorch.is_autocast_enabled("cpu")


def test_backward_reaches_float32_weights_in_float32():
    lin = nn.Linear(4, 3)
    x = minitorch.randn(5, 4)
    with minitorch.autocast("cpu"):
        out = lin(x)
        out2 = lin(x)  # the cached weight cast is reused
        assert out.dtype == minitorch.bfloat16
        loss = (out.float() ** 2).sum() + out2.float().sum()
    loss.backward()
    assert lin.weight.grad.dtype == minitorch.float32 and lin.bias.grad.dtype == minitorch.float32
    # the gradient matches float32 autograd up to bfloat16 rounding
    w = lin.weight.detach().clone().requires_grad_(True)
    b = lin.bias.detach().clone().requires_grad_(True)
    ref = ((x @ w.t() + b) ** 2).sum() + (x @ w.t() + b).sum()
    ref.backward()
    np.testing.assert_allclose(lin.weight.grad.numpy(), w.grad.numpy(), rtol=5e-2, atol=5e-2)


@pytest.mark.skipif(minitorch.cuda.is_available(), reason="checks the fallback of a machine without CUDA")
def test_cuda_amp_without_cuda_warns_and_disables():
    with pytest.warns(UserWarning, match="CUDA is not available. Disabling"):
        ac = minitorch.cuda.amp.autocast()
    with ac:
        assert minitorch.mm(minitorch.ones(2, 2), minitorch.ones(2, 2)).dtype == minitorch.float32
    with pytest.warns(UserWarning, match="GradScaler is enabled, but CUDA is not available"):
        scaler = minitorch.cuda.amp.GradScaler()
    assert not scaler.is_enabled() and scaler.get_scale() == 1.0
    loss = minitorch.ones(())
    assert scaler.scale(loss) is loss
    assert scaler.state_dict() == {}


def test_deprecated_spellings_warn_future():
    with pytest.warns(FutureWarning, match=r"torch.cpu.amp.autocast\(args...\)` is deprecated"):
        ac = minitorch.cpu.amp.autocast()
    with ac:
        assert minitorch.mm(minitorch.ones(2, 2), minitorch.ones(2, 2)).dtype == minitorch.bfloat16


# ---- GradScaler (on the CPU here; the same code runs on CUDA tensors on the GPU machine)


def _scaler_setup(device, **kw):
    p = nn.Parameter(minitorch.ones(3).to(device))
    opt = minitorch.optim.SGD([p], lr=0.1)
    scaler = minitorch.amp.GradScaler(device, **kw)
    return p, opt, scaler


def test_grad_scaler_scales_unscales_and_steps(device):
    p, opt, scaler = _scaler_setup(device, init_scale=8.0)
    loss = (p * 2).sum()
    scaled = scaler.scale(loss)
    assert scaled.item() == pytest.approx(8.0 * loss.item())
    scaled.backward()
    np.testing.assert_allclose(p.grad.cpu().numpy(), 16.0)
    scaler.unscale_(opt)
    np.testing.assert_allclose(p.grad.cpu().numpy(), 2.0)
    with pytest.raises(RuntimeError, match="unscale_\\(\\) has already been called"):
        scaler.unscale_(opt)
    scaler.step(opt)
    np.testing.assert_allclose(p.detach().cpu().numpy(), 1 - 0.1 * 2.0, rtol=1e-6)
    scaler.update()
    assert scaler.get_scale() == 8.0  # one clean step, growth_interval 2000: unchanged


def test_grad_scaler_skips_steps_with_inf_and_backs_off(device):
    p, opt, scaler = _scaler_setup(device, init_scale=16.0, growth_interval=2)
    before = p.detach().clone()
    scaler.scale((p * float("inf")).sum()).backward()
    assert scaler.step(opt) is None
    np.testing.assert_array_equal(p.detach().cpu().numpy(), before.cpu().numpy())
    scaler.update()
    assert scaler.get_scale() == 8.0
    # two clean steps grow the scale by growth_factor
    for _ in range(2):
        opt.zero_grad()
        scaler.scale(p.sum()).backward()
        scaler.step(opt)
        scaler.update()
    assert scaler.get_scale() == 16.0
    nan_p, nan_opt, nan_scaler = _scaler_setup(device, init_scale=4.0)
    nan_scaler.scale((nan_p * float("nan")).sum()).backward()
    nan_scaler.step(nan_opt)
    nan_scaler.update()
    assert nan_scaler.get_scale() == 2.0


def test_grad_scaler_state_dict_and_errors(device):
    p, opt, scaler = _scaler_setup(device, init_scale=32.0, growth_interval=7)
    scaler.scale(p.sum()).backward()
    scaler.step(opt)
    scaler.update()
    sd = scaler.state_dict()
    assert sd == {
        "scale": 32.0,
        "growth_factor": 2.0,
        "backoff_factor": 0.5,
        "growth_interval": 7,
        "_growth_tracker": 1,
    }
    other = minitorch.amp.GradScaler(device)
    other.load_state_dict(sd)
    assert other.get_scale() == 32.0 and other.get_growth_interval() == 7
    with pytest.raises(RuntimeError, match="The source state dict is empty"):
        other.load_state_dict({})
    with pytest.raises(ValueError, match="The growth factor must be > 1.0."):
        minitorch.amp.GradScaler(device, growth_factor=1.0)
    fresh = minitorch.amp.GradScaler(device)
    with pytest.raises(AssertionError, match="Attempted step but _scale is None"):
        fresh.step(opt)
    with pytest.raises(RuntimeError, match="Closure use is not currently supported"):
        scaler.step(opt, closure=lambda: 0)


def test_grad_scaler_refuses_fp16_gradients(device):
    p = nn.Parameter(minitorch.ones(3, dtype=minitorch.float16).to(device))
    opt = minitorch.optim.SGD([p], lr=0.1)
    scaler = minitorch.amp.GradScaler(device)
    scaler.scale(p.float().sum()).backward()
    with pytest.raises(ValueError, match="Attempting to unscale FP16 gradients."):
        scaler.step(opt)


def test_amp_training_reaches_the_float32_loss(device):
    """The same model trained in float32 and with autocast + GradScaler ends at about the same loss."""
    dtype = LOWER[device]

    def train(use_amp):
        minitorch.manual_seed(0)
        model = nn.Sequential(nn.Linear(20, 64), nn.ReLU(), nn.Linear(64, 4)).to(device)
        opt = minitorch.optim.SGD(model.parameters(), lr=0.1)
        scaler = minitorch.amp.GradScaler(device, enabled=use_amp)
        gen = np.random.default_rng(0)
        x = minitorch.from_numpy(gen.normal(size=(256, 20)).astype(np.float32)).to(device)
        y = x[:, :4].argmax(dim=1)
        for _ in range(60):
            opt.zero_grad()
            with minitorch.autocast(device, dtype=dtype, enabled=use_amp):
                out = model(x)
                loss = F.cross_entropy(out, y)
            scaler.scale(loss).backward()
            scaler.step(opt)
            scaler.update()
        return loss.item()

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        full, mixed = train(False), train(True)
    assert mixed == pytest.approx(full, rel=0.1, abs=0.02)


# ---- GradScaler with our fused optimizer steps: PyTorch's fused path (grad_scale/found_inf read on the
# device, no host sync), checked against the unscale-then-step path and against PyTorch's fused=True.

_FUSED_CASES = {
    "SGD": lambda ps: minitorch.optim.SGD(ps, lr=0.1, momentum=0.9, nesterov=True, weight_decay=0.01),
    "SGD-plain": lambda ps: minitorch.optim.SGD(ps, lr=0.1),
    "Adam": lambda ps: minitorch.optim.Adam(ps, lr=0.01, amsgrad=True, weight_decay=0.1),
    "AdamW": lambda ps: minitorch.optim.AdamW(ps, lr=0.01),
    "RMSprop": lambda ps: minitorch.optim.RMSprop(ps, lr=0.01, momentum=0.5, centered=True),
    "Adagrad": lambda ps: minitorch.optim.Adagrad(ps, lr=0.1),
}
# per step: the factor of the loss (inf makes that step's gradients non-finite: a skipped step)
_FUSED_LOSS_FACTORS = [1.0, float("inf"), 0.5, 2.0]


def _run_scaled_steps(make_opt, device, fused):
    rng = np.random.default_rng(5)
    w = nn.Parameter(minitorch.tensor(rng.standard_normal((3, 4)), dtype=minitorch.float32, device=device))
    b = nn.Parameter(minitorch.tensor(rng.standard_normal(4), dtype=minitorch.float32, device=device))
    x = minitorch.tensor(rng.standard_normal((5, 3)), dtype=minitorch.float32, device=device)
    opt = make_opt([w, b])
    if not fused:
        opt._step_supports_amp_scaling = False  # the unscale_ + check-on-the-host path
    scaler = minitorch.amp.GradScaler(device, init_scale=1024.0, growth_interval=2)
    seen = []
    for factor in _FUSED_LOSS_FACTORS:
        opt.zero_grad()
        scaler.scale(((x @ w + b) ** 2).sum() * factor).backward()
        scaler.step(opt)
        scaler.update()
        seen.append(
            (
                w.detach().cpu().numpy().copy(),
                b.detach().cpu().numpy().copy(),
                scaler.get_scale(),
                w.grad.cpu().numpy(),
            )
        )
    return seen, opt


@pytest.mark.parametrize("name", sorted(_FUSED_CASES))
def test_fused_grad_scaler_step_equals_the_unscale_path(device, name):
    fused, opt = _run_scaled_steps(_FUSED_CASES[name], device, True)
    plain, _ = _run_scaled_steps(_FUSED_CASES[name], device, False)
    for k, ((w1, b1, s1, g1), (w2, b2, s2, g2)) in enumerate(zip(fused, plain)):
        # the grads are divided by the scale in the kernel where unscale_ multiplies by its reciprocal: ulps
        np.testing.assert_allclose(w1, w2, rtol=1e-6, atol=1e-7, err_msg=f"step {k}")
        np.testing.assert_allclose(b1, b2, rtol=1e-6, atol=1e-7, err_msg=f"step {k}")
        assert s1 == s2
        if np.isfinite(_FUSED_LOSS_FACTORS[k]):  # a step's grads are left unscaled, as by unscale_
            np.testing.assert_allclose(g1, g2, rtol=1e-6)
    # the skipped step did not count: steps 1, 3 and 4 ran
    steps = [s["step"] for s in opt.state.values() if "step" in s]
    assert all(float(s) == 3 for s in steps)
    assert not hasattr(opt, "grad_scale") and not hasattr(opt, "found_inf")


@pytest.mark.parametrize("dampening", [0.0, 0.3])
def test_fused_sgd_skipped_first_step_leaves_a_first_step(device, dampening):
    # the first step's gradients are inf: the momentum buffer must start at the next (clean) step as a first step
    make = lambda ps: minitorch.optim.SGD(ps, lr=0.1, momentum=0.9, dampening=dampening)
    factors = [float("inf"), 1.0, 0.5]
    runs = []
    for fused in (True, False):
        rng = np.random.default_rng(9)
        w = nn.Parameter(
            minitorch.tensor(rng.standard_normal((3, 2)), dtype=minitorch.float32, device=device)
        )
        x = minitorch.tensor(rng.standard_normal((4, 3)), dtype=minitorch.float32, device=device)
        opt = make([w])
        if not fused:
            opt._step_supports_amp_scaling = False
        scaler = minitorch.amp.GradScaler(device, init_scale=256.0)
        for f in factors:
            opt.zero_grad()
            scaler.scale(((x @ w) ** 2).sum() * f).backward()
            scaler.step(opt)
            scaler.update()
        runs.append(w.detach().cpu().numpy())
    np.testing.assert_allclose(runs[0], runs[1], rtol=1e-6, atol=1e-7)


def test_fused_grad_scaler_step_reads_nothing_back(device, monkeypatch):
    rng = np.random.default_rng(1)
    w = nn.Parameter(minitorch.tensor(rng.standard_normal((4, 4)), dtype=minitorch.float32, device=device))
    opt = minitorch.optim.Adam([w], lr=0.01)
    scaler = minitorch.amp.GradScaler(device)
    scaler.scale((w**2).sum()).backward()

    def no_item(self):
        raise AssertionError("GradScaler.step read a value back (a host sync)")

    monkeypatch.setattr(minitorch.Tensor, "item", no_item)
    monkeypatch.setattr(minitorch.Tensor, "__bool__", no_item)
    scaler.step(opt)
    scaler.update()
    monkeypatch.undo()
    assert float(opt.state[w]["step"]) == 1


def test_fused_grad_scaler_after_unscale_and_fp16_and_explicit_fused(device):
    # unscale_ first (for clipping): the kernel gets the flag only, the grads are not divided twice
    p, opt, scaler = _scaler_setup(device, init_scale=8.0)
    scaler.scale((p * 2).sum()).backward()
    scaler.unscale_(opt)
    scaler.step(opt)
    np.testing.assert_allclose(p.detach().cpu().numpy(), 1 - 0.1 * 2.0, rtol=1e-6)
    np.testing.assert_allclose(p.grad.cpu().numpy(), 2.0)
    # fused=True takes float16 gradients, as PyTorch's fused kernels do; the default refuses them (above)
    h = nn.Parameter(minitorch.ones(3, dtype=minitorch.float16).to(device))
    hopt = minitorch.optim.SGD([h], lr=0.5, fused=True)
    hs = minitorch.amp.GradScaler(device, init_scale=4.0)
    hs.scale(h.float().sum()).backward()
    hs.step(hopt)
    np.testing.assert_allclose(h.detach().float().cpu().numpy(), 0.5)
    with pytest.raises(RuntimeError, match="found_inf must be a one-element float32 tensor"):
        minitorch._C._fused_sgd_(
            [p], [p.grad], [], 0.1, 0.0, 0.0, 0.0, False, False, False, found_inf=minitorch.zeros(2)
        )


_ORACLE_FUSED = r"""
import json, sys
import numpy as np
import torch
cases = {
    "SGD": lambda ps: torch.optim.SGD(ps, lr=0.1, momentum=0.9, nesterov=True, weight_decay=0.01, fused=True),
    "Adam": lambda ps: torch.optim.Adam(ps, lr=0.01, amsgrad=True, weight_decay=0.1, fused=True),
    "AdamW": lambda ps: torch.optim.AdamW(ps, lr=0.01, fused=True),
    "Adagrad": lambda ps: torch.optim.Adagrad(ps, lr=0.1, fused=True),
}
factors = json.loads(sys.stdin.read())
out = {}
for name, make in cases.items():
    rng = np.random.default_rng(5)
    w = torch.nn.Parameter(torch.tensor(rng.standard_normal((3, 4)), dtype=torch.float32))
    b = torch.nn.Parameter(torch.tensor(rng.standard_normal(4), dtype=torch.float32))
    x = torch.tensor(rng.standard_normal((5, 3)), dtype=torch.float32)
    opt = make([w, b])
    scaler = torch.amp.GradScaler("cpu", init_scale=1024.0, growth_interval=2)
    for f in factors:
        opt.zero_grad()
        scaler.scale(((x @ w + b) ** 2).sum() * f).backward()
        scaler.step(opt)
        scaler.update()
    out[name] = [w.detach().numpy().tolist(), b.detach().numpy().tolist(), scaler.get_scale()]
print(json.dumps(out))
"""


def test_fused_grad_scaler_steps_match_pytorch_fused():
    ref = run_oracle(_ORACLE_FUSED, _FUSED_LOSS_FACTORS)
    for name, (w, b, scale) in ref.items():
        seen, _ = _run_scaled_steps(_FUSED_CASES[name], "cpu", True)
        np.testing.assert_allclose(seen[-1][0], w, rtol=1e-5, atol=1e-6, err_msg=name)
        np.testing.assert_allclose(seen[-1][1], b, rtol=1e-5, atol=1e-6, err_msg=name)
        assert seen[-1][2] == scale
