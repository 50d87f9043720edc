"""minitorch.optim and the multi-tensor kernels under it, against NumPy float64 versions of PyTorch's
documented algorithms: every option, param groups, mixed dtypes, strided params, state_dict, bad input."""

import copy
import io
import math

import numpy as np
import pytest
from utils import REPO, TOL

import minitorch
from minitorch import _C, optim

SHAPES = [(3, 4), (5,), (2, 3, 2), ()]


def round_to(a, dtype):
    """NumPy values rounded to what a tensor of `dtype` stores (the reference keeps state in that dtype too)."""
    if dtype == minitorch.float64:
        return np.asarray(a, dtype=np.float64)
    return (
        minitorch.tensor(np.asarray(a, dtype=np.float64), dtype=minitorch.float64).to(dtype).double().numpy()
    )


def to_np(t):
    return t.detach().double().cpu().numpy()


# ---- NumPy references (PyTorch's pseudocode in the optimizer docs), one step for one parameter


def ref_sgd(p, g, st, lr, momentum=0, dampening=0, weight_decay=0, nesterov=False, maximize=False):
    d = -g if maximize else g
    if weight_decay:
        d = d + weight_decay * p
    if momentum:
        buf = d.copy() if "buf" not in st else momentum * st["buf"] + (1 - dampening) * d
        st["buf"] = buf
        d = d + momentum * buf if nesterov else buf
    return p - lr * d


def ref_adam(
    p,
    g,
    st,
    lr=1e-3,
    betas=(0.9, 0.999),
    eps=1e-8,
    weight_decay=0,
    amsgrad=False,
    maximize=False,
    decoupled=False,
):
    b1, b2 = betas
    g = -g if maximize else g
    st["step"] = st.get("step", 0) + 1
    t = st["step"]
    if weight_decay:
        if decoupled:
            p = p * (1 - lr * weight_decay)
        else:
            g = g + weight_decay * p
    m = b1 * st.get("m", 0) + (1 - b1) * g
    v = b2 * st.get("v", 0) + (1 - b2) * g * g
    st["m"], st["v"] = m, v
    bc1 = 1 - b1**t
    bc2 = 1 - b2**t
    if amsgrad:
        vmax = np.maximum(st.get("vmax", 0), v)
        st["vmax"] = vmax
        denom = np.sqrt(vmax) / math.sqrt(bc2) + eps
    else:
        denom = np.sqrt(v) / math.sqrt(bc2) + eps
    return p - lr / bc1 * m / denom


def ref_rmsprop(
    p, g, st, lr=1e-2, alpha=0.99, eps=1e-8, weight_decay=0, momentum=0, centered=False, maximize=False
):
    g = -g if maximize else g
    if weight_decay:
        g = g + weight_decay * p
    sq = alpha * st.get("sq", 0) + (1 - alpha) * g * g
    st["sq"] = sq
    if centered:
        ga = alpha * st.get("ga", 0) + (1 - alpha) * g
        st["ga"] = ga
        avg = np.sqrt(sq - ga * ga) + eps
    else:
        avg = np.sqrt(sq) + eps
    if momentum > 0:
        buf = momentum * st.get("buf", 0) + g / avg
        st["buf"] = buf
        return p - lr * buf
    return p - lr * g / avg


def ref_adagrad(
    p, g, st, lr=1e-2, lr_decay=0, weight_decay=0, initial_accumulator_value=0, eps=1e-10, maximize=False
):
    g = -g if maximize else g
    st["step"] = st.get("step", 0) + 1
    if weight_decay:
        g = g + weight_decay * p
    clr = lr / (1 + (st["step"] - 1) * lr_decay)
    s = st.get("sum", initial_accumulator_value) + g * g
    st["sum"] = s
    return p - clr * g / (np.sqrt(s) + eps)


def ref_adamw(p, g, st, **kw):
    kw.setdefault("weight_decay", 1e-2)
    return ref_adam(p, g, st, decoupled=True, **kw)


OPTIMIZERS = {
    "sgd": (optim.SGD, ref_sgd),
    "adam": (optim.Adam, ref_adam),
    "adamw": (optim.AdamW, ref_adamw),
    "rmsprop": (optim.RMSprop, ref_rmsprop),
    "adagrad": (optim.Adagrad, ref_adagrad),
}

# every option of each optimizer, alone and combined
CASES = [
    ("sgd", {"lr": 0.1}),
    ("sgd", {"lr": 0.1, "momentum": 0.9}),
    ("sgd", {"lr": 0.1, "momentum": 0.9, "dampening": 0.3}),
    ("sgd", {"lr": 0.1, "momentum": 0.9, "nesterov": True}),
    ("sgd", {"lr": 0.1, "momentum": 0.5, "weight_decay": 0.1, "maximize": True}),
    ("sgd", {"lr": 0.05, "weight_decay": 0.2, "nesterov": False, "dampening": 0.5}),
    ("adam", {"lr": 0.1}),
    ("adam", {"lr": 0.1, "amsgrad": True}),
    ("adam", {"lr": 0.1, "weight_decay": 0.1}),
    ("adam", {"lr": 0.05, "betas": (0.8, 0.9), "eps": 1e-3, "maximize": True, "amsgrad": True}),
    ("adamw", {"lr": 0.1}),
    ("adamw", {"lr": 0.1, "weight_decay": 0.5, "amsgrad": True, "maximize": True}),
    ("rmsprop", {"lr": 0.01}),
    ("rmsprop", {"lr": 0.01, "centered": True}),
    ("rmsprop", {"lr": 0.01, "momentum": 0.9}),
    ("rmsprop", {"lr": 0.01, "momentum": 0.9, "centered": True, "weight_decay": 0.1, "alpha": 0.9}),
    ("rmsprop", {"lr": 0.01, "maximize": True, "eps": 1e-3}),
    ("adagrad", {"lr": 0.1}),
    ("adagrad", {"lr": 0.1, "lr_decay": 0.1, "weight_decay": 0.1}),
    ("adagrad", {"lr": 0.1, "initial_accumulator_value": 0.5, "eps": 1e-3, "maximize": True}),
]


def run_against_reference(name, kw, dtype, device, steps=5, shapes=SHAPES, seed=0):
    cls, ref = OPTIMIZERS[name]
    rng = np.random.default_rng(seed)
    p_np = [round_to(rng.uniform(-2, 2, s), dtype) for s in shapes]
    params = [minitorch.tensor(a, dtype=dtype, device=device, requires_grad=True) for a in p_np]
    opt = cls(params, **kw)
    states = [{} for _ in params]
    for _ in range(steps):
        for i, p in enumerate(params):
            g = round_to(rng.uniform(-1, 1, p_np[i].shape), dtype)
            p.grad = minitorch.tensor(g, dtype=dtype, device=device)
            p_np[i] = ref(p_np[i], g, states[i], **kw)
            if dtype != minitorch.float64:  # the state lives in the param's dtype
                p_np[i] = round_to(p_np[i], dtype)
                for k, v in states[i].items():
                    if k != "step" and isinstance(v, np.ndarray):
                        states[i][k] = round_to(v, dtype)
        opt.step()
    return params, p_np


@pytest.mark.parametrize("name,kw", CASES, ids=[f"{n}-{i}" for i, (n, _) in enumerate(CASES)])
def test_matches_reference_float64(name, kw, device):
    params, expected = run_against_reference(name, kw, minitorch.float64, device)
    for p, e in zip(params, expected):
        np.testing.assert_allclose(to_np(p), e, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("dtype", [minitorch.float32, minitorch.float16, minitorch.bfloat16])
@pytest.mark.parametrize(
    "name,kw",
    [
        ("sgd", {"lr": 0.1, "momentum": 0.9, "nesterov": True}),
        ("adam", {"lr": 0.1, "amsgrad": True, "weight_decay": 0.1}),
        ("adamw", {"lr": 0.1}),
        ("rmsprop", {"lr": 0.01, "momentum": 0.9, "centered": True}),
        ("adagrad", {"lr": 0.1, "lr_decay": 0.1}),
    ],
)
def test_matches_reference_low_precision(name, kw, dtype, device):
    # one step at a time, the reference restarting from the kernel's stored values, so rounding cannot drift
    rtol, atol = TOL[dtype]
    params, expected = run_against_reference(name, kw, dtype, device, steps=1)
    for p, e in zip(params, expected):
        assert p.dtype == dtype
        np.testing.assert_allclose(to_np(p), e, rtol=rtol, atol=atol)
    params, expected = run_against_reference(name, kw, dtype, device, steps=3)
    for p, e in zip(params, expected):
        np.testing.assert_allclose(to_np(p), e, rtol=4 * rtol, atol=4 * atol)


@pytest.mark.parametrize("name", ["sgd", "adam", "rmsprop", "adagrad"])
def test_mixed_dtypes_in_one_group(name, device):
    cls, ref = OPTIMIZERS[name]
    kw = {"lr": 0.05, "momentum": 0.9} if name in ("sgd", "rmsprop") else {"lr": 0.05}
    rng = np.random.default_rng(1)
    dtypes = [minitorch.float32, minitorch.float16, minitorch.float64, minitorch.float16, minitorch.bfloat16]
    p_np = [round_to(rng.uniform(-1, 1, (4, 3)), dt) for dt in dtypes]
    params = [minitorch.tensor(a, dtype=dt, device=device, requires_grad=True) for a, dt in zip(p_np, dtypes)]
    opt = cls(params, **kw)
    states = [{} for _ in params]
    g_np = [round_to(rng.uniform(-1, 1, (4, 3)), dt) for dt in dtypes]
    for p, g, dt in zip(params, g_np, dtypes):
        p.grad = minitorch.tensor(g, dtype=dt, device=device)
    opt.step()
    for i, (p, dt) in enumerate(zip(params, dtypes)):
        e = ref(p_np[i], g_np[i], states[i], **kw)
        assert p.dtype == dt
        np.testing.assert_allclose(to_np(p), e, rtol=TOL[dt][0], atol=TOL[dt][1])


def test_param_groups_with_different_options(device):
    rng = np.random.default_rng(2)
    a_np, b_np = rng.uniform(-1, 1, (3, 3)), rng.uniform(-1, 1, (4,))
    a = minitorch.tensor(a_np, dtype=minitorch.float64, device=device, requires_grad=True)
    b = minitorch.tensor(b_np, dtype=minitorch.float64, device=device, requires_grad=True)
    opt = optim.SGD([{"params": [a]}, {"params": b, "lr": 0.5, "momentum": 0.9, "nesterov": True}], lr=0.1)
    assert opt.param_groups[0]["lr"] == 0.1 and opt.param_groups[0]["momentum"] == 0
    assert opt.param_groups[1]["lr"] == 0.5 and opt.param_groups[1]["nesterov"] is True
    sa, sb = {}, {}
    for _ in range(3):
        ga, gb = rng.uniform(-1, 1, (3, 3)), rng.uniform(-1, 1, (4,))
        a.grad = minitorch.tensor(ga, dtype=minitorch.float64, device=device)
        b.grad = minitorch.tensor(gb, dtype=minitorch.float64, device=device)
        opt.step()
        a_np = ref_sgd(a_np, ga, sa, lr=0.1)
        b_np = ref_sgd(b_np, gb, sb, lr=0.5, momentum=0.9, nesterov=True)
    np.testing.assert_allclose(to_np(a), a_np, rtol=1e-12)
    np.testing.assert_allclose(to_np(b), b_np, rtol=1e-12)
    assert "momentum_buffer" not in opt.state[a]
    assert "momentum_buffer" in opt.state[b]


@pytest.mark.parametrize("name", list(OPTIMIZERS))
def test_params_without_grad_are_skipped(name, device):
    cls, _ = OPTIMIZERS[name]
    a = minitorch.ones(3, dtype=minitorch.float64, device=device, requires_grad=True)
    b = minitorch.ones(3, dtype=minitorch.float64, device=device, requires_grad=True)
    opt = cls([a, b], lr=0.1)
    a.grad = minitorch.full((3,), 0.5, dtype=minitorch.float64, device=device)
    opt.step()
    np.testing.assert_array_equal(to_np(b), np.ones(3))
    assert not np.allclose(to_np(a), np.ones(3))
    if name != "adagrad":  # Adagrad creates its state eagerly, as PyTorch's
        assert len(opt.state[b]) == 0


def test_sgd_momentum_buffer_starts_per_parameter(device):
    # b gets its first gradient one step after a: its buffer starts from its own first d_p
    a = minitorch.zeros(2, dtype=minitorch.float64, device=device, requires_grad=True)
    b = minitorch.zeros(2, dtype=minitorch.float64, device=device, requires_grad=True)
    opt = optim.SGD([a, b], lr=1.0, momentum=0.5, dampening=0.5)
    a.grad = minitorch.ones(2, dtype=minitorch.float64, device=device)
    opt.step()
    b.grad = minitorch.ones(2, dtype=minitorch.float64, device=device)
    opt.step()
    np.testing.assert_allclose(to_np(a), [-2.0, -2.0])  # bufs 1, then 0.5 + 0.5
    np.testing.assert_allclose(to_np(b), [-1.0, -1.0])


@pytest.mark.parametrize("name", ["sgd", "adam", "rmsprop"])
def test_strided_params(name, device):
    cls, ref = OPTIMIZERS[name]
    kw = {"lr": 0.1, "momentum": 0.9} if name != "adam" else {"lr": 0.1}
    rng = np.random.default_rng(3)
    base = rng.uniform(-1, 1, (6, 4))
    t_view = minitorch.tensor(base, dtype=minitorch.float64, device=device).t()  # transposed
    s_view = minitorch.tensor(base, dtype=minitorch.float64, device=device)[::2]  # every other row
    for v in (t_view, s_view):
        assert not v.is_contiguous()
        v.requires_grad_()
    opt = cls([t_view, s_view], **kw)
    exp = [base.T.copy(), base[::2].copy()]
    states = [{}, {}]
    for _ in range(3):
        for i, v in enumerate((t_view, s_view)):
            g = rng.uniform(-1, 1, exp[i].shape)
            v.grad = minitorch.tensor(g, dtype=minitorch.float64, device=device)
            exp[i] = ref(exp[i], g, states[i], **kw)
        opt.step()
    np.testing.assert_allclose(to_np(t_view), exp[0], rtol=1e-10)
    np.testing.assert_allclose(to_np(s_view), exp[1], rtol=1e-10)


def test_empty_params_are_left_alone(device):
    e = minitorch.zeros(0, 3, device=device, requires_grad=True)
    x = minitorch.ones(2, device=device, requires_grad=True)
    opt = optim.Adam([e, x], lr=0.1)
    e.grad = minitorch.zeros(0, 3, device=device)
    x.grad = minitorch.ones(2, device=device)
    opt.step()
    assert tuple(e.shape) == (0, 3)
    np.testing.assert_allclose(to_np(x), [0.9, 0.9], rtol=1e-5)


@pytest.mark.parametrize("name", list(OPTIMIZERS))
def test_state_dict_round_trip_continues_identically(name, device):
    cls, _ = OPTIMIZERS[name]
    kw = {"lr": 0.05}
    if name in ("sgd", "rmsprop"):
        kw["momentum"] = 0.9
    if name == "adam":
        kw["amsgrad"] = True
    rng = np.random.default_rng(4)
    init = [rng.uniform(-1, 1, s) for s in [(3, 2), (4,)]]
    grads = [[rng.uniform(-1, 1, a.shape) for a in init] for _ in range(6)]

    def make():
        ps = [minitorch.tensor(a, dtype=minitorch.float32, device=device, requires_grad=True) for a in init]
        return ps, cls(ps, **kw)

    def step(ps, opt, gs):
        for p, g in zip(ps, gs):
            p.grad = minitorch.tensor(g, dtype=minitorch.float32, device=device)
        opt.step()

    ps1, opt1 = make()
    for gs in grads[:3]:
        step(ps1, opt1, gs)
    buf = io.BytesIO()
    minitorch.save(opt1.state_dict(), buf)
    buf.seek(0)
    sd = minitorch.load(buf)
    assert sorted(sd["state"]) == [0, 1]
    assert sd["param_groups"][0]["params"] == [0, 1]

    ps2 = [p.detach().clone().requires_grad_() for p in ps1]
    opt2 = cls(ps2, **kw)
    opt2.load_state_dict(sd)
    for v in opt2.state[ps2[0]].values():
        if isinstance(v, minitorch.Tensor):
            assert v.device == ps2[0].device
            assert v.dtype == minitorch.float32  # the params' dtype; steps are float32 anyway
    for gs in grads[3:]:
        step(ps1, opt1, gs)
        step(ps2, opt2, gs)
    for a, b in zip(ps1, ps2):
        np.testing.assert_array_equal(to_np(a), to_np(b))


def test_load_state_dict_casts_to_param_dtype(device):
    p = minitorch.ones(3, dtype=minitorch.float64, device=device, requires_grad=True)
    opt = optim.Adam([p])
    p.grad = minitorch.ones(3, dtype=minitorch.float64, device=device)
    opt.step()
    sd = copy.deepcopy(opt.state_dict())
    sd["state"][0]["exp_avg"] = sd["state"][0]["exp_avg"].float().cpu()
    q = minitorch.ones(3, dtype=minitorch.float64, device=device, requires_grad=True)
    opt2 = optim.Adam([q])
    opt2.load_state_dict(sd)
    assert opt2.state[q]["exp_avg"].dtype == minitorch.float64
    assert opt2.state[q]["exp_avg"].device == q.device
    assert opt2.state[q]["step"].dtype == minitorch.float32
    with pytest.raises(ValueError, match="different number of parameter groups"):
        opt2.load_state_dict({"state": {}, "param_groups": []})
    with pytest.raises(ValueError, match="doesn't match the size of optimizer's group"):
        opt2.load_state_dict({"state": {}, "param_groups": [dict(sd["param_groups"][0], params=[0, 1])]})


@pytest.mark.parametrize(
    "make_opt",
    [
        lambda ps: optim.SGD(ps, lr=0.05, momentum=0.9),
        lambda ps: optim.Adam(ps, lr=0.05),
        lambda ps: optim.AdamW(ps, lr=0.05),
        lambda ps: optim.RMSprop(ps, lr=0.01),
        lambda ps: optim.Adagrad(ps, lr=0.3),
    ],
)
def test_linear_regression_converges(make_opt, device):
    rng = np.random.default_rng(5)
    X = rng.normal(size=(64, 3))
    w_true = np.array([1.5, -2.0, 0.5])
    y = X @ w_true + 0.3
    Xt = minitorch.tensor(X, dtype=minitorch.float32, device=device)
    yt = minitorch.tensor(y, dtype=minitorch.float32, device=device)
    w = minitorch.zeros(3, device=device, requires_grad=True)
    b = minitorch.zeros(1, device=device, requires_grad=True)
    opt = make_opt([w, b])
    first = None
    for _ in range(300):
        opt.zero_grad()
        loss = ((Xt @ w + b - yt) ** 2).mean()
        loss.backward()
        opt.step()
        first = loss.item() if first is None else first
    assert loss.item() < 0.01 * first
    np.testing.assert_allclose(to_np(w), w_true, atol=0.1)


def test_step_closure_runs_with_grad():
    w = minitorch.ones(2, requires_grad=True)
    opt = optim.SGD([w], lr=0.1)

    def closure():
        opt.zero_grad()
        loss = (w * w).sum()
        loss.backward()
        return loss

    with minitorch.no_grad():
        loss = opt.step(closure)
    assert loss.item() == 2.0
    np.testing.assert_allclose(to_np(w), [0.8, 0.8])


def test_zero_grad():
    w = minitorch.ones(2, requires_grad=True)
    h = minitorch.ones(3, dtype=minitorch.float16, requires_grad=True)
    opt = optim.SGD([w, h])
    w.grad = minitorch.ones(2)
    h.grad = minitorch.ones(3, dtype=minitorch.float16)
    opt.zero_grad(set_to_none=False)
    np.testing.assert_array_equal(to_np(w.grad), [0, 0])
    np.testing.assert_array_equal(to_np(h.grad), [0, 0, 0])
    opt.zero_grad()
    assert w.grad is None and h.grad is None


def test_repr_and_defaults():
    w = minitorch.ones(2, requires_grad=True)
    opt = optim.SGD([w], lr=0.1, momentum=0.9)
    r = repr(opt)
    assert r.startswith("SGD (\nParameter Group 0\n")
    assert "    lr: 0.1\n" in r and "    momentum: 0.9\n" in r and "params" not in r
    assert optim.AdamW([w]).defaults["weight_decay"] == 1e-2
    assert optim.Adam([w]).defaults["weight_decay"] == 0
    assert optim.RMSprop([w]).defaults["lr"] == 1e-2
    assert optim.Adagrad([w]).defaults["eps"] == 1e-10


def test_add_param_group():
    a = minitorch.ones(2, requires_grad=True)
    b = minitorch.ones(2, requires_grad=True)
    opt = optim.Adam([a], lr=0.1)
    opt.add_param_group({"params": b, "lr": 0.01})
    assert len(opt.param_groups) == 2 and opt.param_groups[1]["betas"] == (0.9, 0.999)
    with pytest.raises(ValueError, match="some parameters appear in more than one parameter group"):
        opt.add_param_group({"params": [a]})


def test_bad_inputs():
    w = minitorch.ones(2, requires_grad=True)
    with pytest.raises(ValueError, match="optimizer got an empty parameter list"):
        optim.SGD([], lr=0.1)
    with pytest.raises(ValueError, match="Invalid learning rate: -1"):
        optim.SGD([w], lr=-1)
    with pytest.raises(ValueError, match="Invalid learning rate: -1"):
        optim.Adam([w], lr=-1)
    with pytest.raises(ValueError, match="Invalid momentum value: -0.5"):
        optim.SGD([w], momentum=-0.5)
    with pytest.raises(ValueError, match="Nesterov momentum requires a momentum and zero dampening"):
        optim.SGD([w], lr=0.1, nesterov=True)
    with pytest.raises(ValueError, match="Invalid beta parameter at index 1: 1.0"):
        optim.Adam([w], betas=(0.9, 1.0))
    with pytest.raises(ValueError, match="Invalid epsilon value: -1"):
        optim.Adam([w], eps=-1)
    with pytest.raises(ValueError, match="Invalid alpha value: -0.1"):
        optim.RMSprop([w], alpha=-0.1)
    with pytest.raises(ValueError, match="Invalid lr_decay value: -1"):
        optim.Adagrad([w], lr_decay=-1)
    with pytest.raises(ValueError, match="Invalid weight_decay value: -1"):
        optim.AdamW([w], weight_decay=-1)
    with pytest.raises(ValueError, match="some parameters appear in more than one parameter group"):
        optim.SGD([{"params": [w]}, {"params": [w]}], lr=0.1)
    with pytest.raises(ValueError, match="can't optimize a non-leaf Tensor"):
        optim.SGD([w * 2], lr=0.1)
    with pytest.raises(TypeError, match="params argument given to the optimizer should be an iterable"):
        optim.SGD(w, lr=0.1)
    with pytest.raises(TypeError, match="optimizer can only optimize Tensors"):
        optim.SGD([1.0], lr=0.1)
    with pytest.raises(TypeError, match="organized in ordered collections"):
        optim.SGD([{"params": {w}}], lr=0.1)
    # a set as the whole params argument is still taken (PyTorch 2.15: a FutureWarning, an error to come)
    with pytest.warns(FutureWarning, match="ordering of tensors in sets will change between runs"):
        o = optim.SGD({w}, lr=0.1)
    assert o.param_groups[0]["params"] == [w]


# ---- the multi-tensor primitives


def lists(device, dtype=minitorch.float64, seed=6, shapes=((3, 4), (7,), (2, 2, 2))):
    rng = np.random.default_rng(seed)
    arrs = [round_to(rng.uniform(0.5, 2, s), dtype) for s in shapes]
    return arrs, [minitorch.tensor(a, dtype=dtype, device=device) for a in arrs]


@pytest.mark.parametrize(
    "dtype", [minitorch.float64, minitorch.float32, minitorch.float16, minitorch.bfloat16]
)
def test_foreach_pointwise(dtype, device):
    rtol, atol = TOL[dtype]
    a, ta = lists(device, dtype, 6)
    b, tb = lists(device, dtype, 7)
    c, tc = lists(device, dtype, 8)

    def check(ts, exps):
        for t, e in zip(ts, exps):
            assert t.dtype == dtype
            np.testing.assert_allclose(to_np(t), e, rtol=rtol, atol=atol)

    _C._foreach_add_(ta, tb, alpha=0.5)
    a = [round_to(x + 0.5 * y, dtype) for x, y in zip(a, b)]
    check(ta, a)
    _C._foreach_add_(ta, 1.25)
    a = [round_to(x + 1.25, dtype) for x in a]
    check(ta, a)
    _C._foreach_mul_(ta, 0.5)
    a = [round_to(x * 0.5, dtype) for x in a]
    check(ta, a)
    _C._foreach_mul_(ta, minitorch.tensor(2.0, device=device))
    a = [round_to(x * 2.0, dtype) for x in a]
    check(ta, a)
    _C._foreach_mul_(ta, tb)
    a = [round_to(x * y, dtype) for x, y in zip(a, b)]
    check(ta, a)
    _C._foreach_addcmul_(ta, tb, tc, value=0.5)
    a = [round_to(x + 0.5 * y * z, dtype) for x, y, z in zip(a, b, c)]
    check(ta, a)
    _C._foreach_addcdiv_(ta, tb, tc, value=-0.5)
    a = [round_to(x - 0.5 * y / z, dtype) for x, y, z in zip(a, b, c)]
    check(ta, a)
    _C._foreach_lerp_(ta, tc, 0.25)
    a = [round_to(x + 0.25 * (z - x), dtype) for x, z in zip(a, c)]
    check(ta, a)
    check(_C._foreach_sqrt(ta), [np.sqrt(x) for x in a])
    check(ta, a)  # sqrt is out of place
    _C._foreach_zero_(ta)
    check(ta, [np.zeros_like(x) for x in a])


@pytest.mark.parametrize(
    "dtype", [minitorch.float64, minitorch.float32, minitorch.float16, minitorch.bfloat16]
)
@pytest.mark.parametrize("ord", [1.0, 2.0, math.inf, 3.0])
def test_foreach_norm(dtype, ord, device):
    rtol, atol = TOL[dtype]
    rng = np.random.default_rng(9)
    shapes = [(3, 4), (70000,), (1,), (5, 7)]  # one spans several chunks
    arrs = [round_to(rng.uniform(-2, 2, s), dtype) for s in shapes]
    ts = [minitorch.tensor(a, dtype=dtype, device=device) for a in arrs]
    ts[3] = ts[3].t()  # strided input
    arrs[3] = arrs[3].T
    out = _C._foreach_norm(ts, ord)
    for o, a in zip(out, arrs):
        assert o.dim() == 0 and o.dtype == dtype
        # the result is stored in the input dtype: float16 L1 of 70000 elements overflows to inf, as in PyTorch
        expected = round_to(np.linalg.norm(a.ravel(), ord), dtype)
        np.testing.assert_allclose(to_np(o), expected, rtol=max(rtol, 1e-6), atol=atol)


def test_foreach_norm_special_values(device):
    e = minitorch.zeros(0, device=device)
    x = minitorch.tensor([1.0, float("nan"), 2.0], device=device)
    y = minitorch.tensor([1.0, float("inf")], device=device)
    n2 = _C._foreach_norm([e, x, y])
    assert n2[0].item() == 0.0 and math.isnan(n2[1].item()) and math.isinf(n2[2].item())
    ninf = _C._foreach_norm([x, y], math.inf)
    assert math.isnan(ninf[0].item()) and math.isinf(ninf[1].item())


def test_foreach_many_tensors_and_a_large_one(device):
    # crosses the CUDA launch limits: more tensors than one launch holds and a tensor cut across launches
    rng = np.random.default_rng(10)
    big = 65536 * 321 + 5 if device == "cuda" else 40000
    shapes = [(int(n),) for n in rng.integers(1, 3000, 130)] + [(big,)] + [(17,)] * 3
    arrs = [rng.uniform(-1, 1, s).astype(np.float32) for s in shapes]
    ts = [minitorch.tensor(a, device=device) for a in arrs]
    gs = [minitorch.tensor(np.ones_like(a), device=device) for a in arrs]
    _C._foreach_add_(ts, gs, alpha=2.0)
    for t, a in zip(ts, arrs):
        np.testing.assert_allclose(t.cpu().numpy(), a + 2.0, rtol=1e-6)
    norms = _C._foreach_norm(ts)
    for n, a in zip(norms, arrs):
        np.testing.assert_allclose(n.item(), np.linalg.norm((a + 2.0).astype(np.float64)), rtol=1e-5)


def test_foreach_bad_inputs(device):
    a = [minitorch.ones(2, device=device), minitorch.ones(3, device=device)]
    with pytest.raises(RuntimeError, match="Tensor list must have at least one tensor."):
        _C._foreach_add_([], [], alpha=1)
    with pytest.raises(RuntimeError, match="Tensor lists must have the same number of tensors, got 2 and 1"):
        _C._foreach_add_(a, [minitorch.ones(2, device=device)])
    with pytest.raises(RuntimeError, match="different shapes"):
        _C._foreach_mul_(a, [minitorch.ones(2, device=device), minitorch.ones(4, device=device)])
    with pytest.raises(RuntimeError, match="not implemented for 'Long'"):
        _C._foreach_mul_([minitorch.ones(2, dtype=minitorch.int64, device=device)], 2.0)
    with pytest.raises(
        RuntimeError,
        match="more than one element of the written-to tensor refers to a single memory location",
    ):
        _C._foreach_zero_([minitorch.ones(1, device=device).expand(3)])


def test_foreach_does_not_record_autograd_and_bumps_version():
    w = minitorch.ones(3, requires_grad=True)
    x = minitorch.ones(3, requires_grad=True)
    y = (w * x).sum()  # saves x for w's gradient
    v0 = x._version
    _C._foreach_add_([x], 1.0)
    assert x.is_leaf and x.grad_fn is None and x.requires_grad
    np.testing.assert_array_equal(to_np(x), [2, 2, 2])
    assert x._version > v0
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.backward()


# ---- GradScaler's kernels


@pytest.mark.parametrize("dtype", [minitorch.float32, minitorch.float16])
def test_amp_unscale(dtype, device):
    grads = [
        minitorch.tensor([2.0, 4.0], dtype=dtype, device=device),
        minitorch.tensor([[8.0]], dtype=dtype, device=device),
    ]
    found = minitorch.zeros(1, device=device)
    inv = minitorch.full((1,), 0.5, device=device)
    _C._amp_foreach_non_finite_check_and_unscale_(grads, found, inv)
    assert found.item() == 0.0
    np.testing.assert_array_equal(to_np(grads[0]), [1.0, 2.0])
    np.testing.assert_array_equal(to_np(grads[1]), [[4.0]])
    for bad in (float("inf"), float("-inf"), float("nan")):
        g = [
            minitorch.tensor([1.0, bad], dtype=dtype, device=device),
            minitorch.ones(3, dtype=dtype, device=device),
        ]
        found = minitorch.zeros(1, device=device)
        _C._amp_foreach_non_finite_check_and_unscale_(g, found, inv)
        assert found.item() == 1.0
        np.testing.assert_array_equal(to_np(g[1]), [0.5] * 3)


def test_amp_update_scale_rule(device):
    scale = minitorch.full((1,), 1024.0, device=device)
    tracker = minitorch.zeros(1, dtype=minitorch.int32, device=device)
    ok = minitorch.zeros(1, device=device)
    inf = minitorch.ones(1, device=device)
    seq = []
    for found in [ok, ok, ok, inf, ok, ok, ok]:
        _C._amp_update_scale_(scale, tracker, found, 2.0, 0.5, 3)
        seq.append((scale.item(), int(tracker.item())))
    assert seq == [(1024, 1), (1024, 2), (2048, 0), (1024, 0), (1024, 1), (1024, 2), (2048, 0)]
    # growth that would overflow float32 is refused, the count restarts
    big = minitorch.full((1,), 3e38, device=device)
    tr = minitorch.zeros(1, dtype=minitorch.int32, device=device)
    _C._amp_update_scale_(big, tr, ok, 2.0, 0.5, 1)
    assert big.item() == pytest.approx(3e38) and int(tr.item()) == 0


def test_amp_bad_inputs(device):
    g = [minitorch.ones(2, device=device)]
    with pytest.raises(RuntimeError, match="found_inf must be a float tensor."):
        _C._amp_foreach_non_finite_check_and_unscale_(
            g, minitorch.zeros(1, dtype=minitorch.int32, device=device), minitorch.ones(1, device=device)
        )
    with pytest.raises(RuntimeError, match="inv_scale must be a 1-element tensor."):
        _C._amp_foreach_non_finite_check_and_unscale_(
            g, minitorch.zeros(1, device=device), minitorch.ones(2, device=device)
        )
    with pytest.raises(RuntimeError, match="growth_tracker must be an int tensor."):
        _C._amp_update_scale_(
            minitorch.ones(1, device=device),
            minitorch.zeros(1, device=device),
            minitorch.zeros(1, device=device),
            2.0,
            0.5,
            10,
        )
    with pytest.raises(RuntimeError, match="current_scale must be a float tensor."):
        _C._amp_update_scale_(
            minitorch.ones(1, dtype=minitorch.float64, device=device),
            minitorch.zeros(1, dtype=minitorch.int32, device=device),
            minitorch.zeros(1, device=device),
            2.0,
            0.5,
            10,
        )


def test_fused_bad_calls_leave_state_alone(device):
    p = [minitorch.ones(3, device=device)]
    g = [minitorch.ones(3, device=device)]
    m, v = [minitorch.zeros(3, device=device)], [minitorch.zeros(3, device=device)]
    step = minitorch.zeros((), device=device)
    with pytest.raises(RuntimeError, match="Tensor lists must have the same number of tensors, got 1 and 0"):
        _C._fused_adam_(p, g, m, v, [], [step], 0.1, 0.9, 0.999, 0.0, 1e-8, True, False)
    assert step.item() == 0.0
    with pytest.raises(RuntimeError, match="state_steps must hold one-element float32 tensors"):
        _C._fused_adam_(
            p,
            g,
            m,
            v,
            [],
            [minitorch.zeros((), dtype=minitorch.float64, device=device)],
            0.1,
            0.9,
            0.999,
            0.0,
            1e-8,
            False,
            False,
        )
    with pytest.raises(RuntimeError, match="momentum_buffer_list must hold one tensor per parameter"):
        _C._fused_sgd_(p, g, [], 0.1, 0.9, 0.0, 0.0, False, False, True)
    with pytest.raises(ValueError, match="Nesterov momentum requires a momentum and zero dampening"):
        _C._fused_sgd_(p, g, [], 0.1, 0.0, 0.0, 0.0, True, False, True)
    np.testing.assert_array_equal(to_np(p[0]), [1, 1, 1])


def test_load_state_dict_with_numeric_step(device):
    p = minitorch.ones(2, device=device, requires_grad=True)
    opt = optim.Adam([p], lr=0.1)
    p.grad = minitorch.ones(2, device=device)
    opt.step()
    sd = copy.deepcopy(opt.state_dict())
    sd["state"][0]["step"] = 1  # PyTorch before 1.12 saved the step as a number
    q = minitorch.ones(2, device=device, requires_grad=True)
    opt2 = optim.Adam([q], lr=0.1)
    opt2.load_state_dict(sd)
    assert isinstance(opt2.state[q]["step"], minitorch.Tensor)
    q.grad = minitorch.ones(2, device=device)
    opt2.step()
    assert opt2.state[q]["step"].item() == 2.0


# ---- PyTorch as a second oracle (the GPU machine has it; skipped elsewhere)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("name,kw", CASES, ids=[f"{n}-{i}" for i, (n, _) in enumerate(CASES)])
def test_matches_pytorch(name, kw, dtype, device):
    from conftest import REAL_TORCH as pt

    if pt is None:
        pytest.skip("PyTorch is not installed")
    if device == "cuda" and not pt.cuda.is_available():
        pytest.skip("PyTorch has no CUDA here")
    torch_cls = {"sgd": "SGD", "adam": "Adam", "adamw": "AdamW", "rmsprop": "RMSprop", "adagrad": "Adagrad"}[
        name
    ]
    rng = np.random.default_rng(11)
    init = [rng.uniform(-2, 2, s) for s in SHAPES]
    mdt, tdt = getattr(minitorch, dtype), getattr(pt, dtype)
    mp = [minitorch.tensor(a, dtype=mdt, device=device, requires_grad=True) for a in init]
    tp = [pt.tensor(a, dtype=tdt, device=device, requires_grad=True) for a in init]
    mopt = OPTIMIZERS[name][0](mp, **kw)
    topt = getattr(pt.optim, torch_cls)(tp, **kw)
    for _ in range(5):
        for a, b in zip(mp, tp):
            g = rng.uniform(-1, 1, tuple(a.shape))
            a.grad = minitorch.tensor(g, dtype=mdt, device=device)
            b.grad = pt.tensor(g, dtype=tdt, device=device)
        mopt.step()
        topt.step()
    rtol, atol = (1e-10, 1e-12) if dtype == "float64" else (2e-5, 2e-6)
    for a, b in zip(mp, tp):
        np.testing.assert_allclose(to_np(a), b.detach().double().cpu().numpy(), rtol=rtol, atol=atol)


def test_multi_tensor_plan_covers_every_chunk_once(tmp_path):
    # The CUDA launch planner is plain C++: checked here on any machine with a compiler.
    import shutil
    import subprocess
    from pathlib import Path

    cxx = shutil.which("c++") or shutil.which("g++") or shutil.which("clang++")
    if cxx is None:
        pytest.skip("no C++ compiler")
    root = Path(REPO)
    exe = tmp_path / "plan_check"
    src = Path(__file__).resolve().parent / "cpp" / "multi_tensor_plan_check.cpp"
    subprocess.run([cxx, "-std=c++17", "-O1", f"-I{root / 'csrc'}", str(src), "-o", str(exe)], check=True)
    out = subprocess.run([str(exe)], check=False, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stdout + out.stderr
    assert out.stdout.startswith("ok")


def test_foreach_mul_by_cpu_scalar_tensor(device):
    ts = [minitorch.ones(3, device=device), minitorch.ones(2, dtype=minitorch.float16, device=device)]
    _C._foreach_mul_(ts, minitorch.tensor(0.25))  # a CPU 0-dim factor works on every device
    np.testing.assert_array_equal(to_np(ts[0]), [0.25] * 3)
    np.testing.assert_array_equal(to_np(ts[1]), [0.25] * 2)
    with pytest.raises(RuntimeError, match="expected a zero-dimensional tensor"):
        _C._foreach_mul_(ts, minitorch.ones(2))
