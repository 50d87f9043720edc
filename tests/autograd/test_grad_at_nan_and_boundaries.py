"""Gradients and forward-mode tangents of the ReLU/clamp/maximum families at NaN, +-inf, bounds and ties: PyTorch 2.15's (oracle) and its formulas (NumPy)."""

import numpy as np
import pytest
from utils import cases_here, cases_here_and_in_pytorch

import minitorch as torch

# Run by both libraries (the oracle through MINITORCH_ORACLE_PYTHON): each case's gradients (backward of a sum,
# one list per input) or forward-mode tangent (input k's tangent is 10**k, so a mean of two tangents is visible).
# The unary inputs are padded to 64 elements with NaN first: PyTorch's CPU backward of hardtanh, hardshrink,
# softshrink and the ELU family answers differently at a NaN in its vectorized loop and in its scalar tail
# (docs/reliability.md, known differences); ours is the vectorized loop's everywhere, which position 0 of 64
# elements reaches on any vector width.
CASES = r"""
def cases(torch):
    nan, inf = float("nan"), float("inf")
    F = torch.nn.functional
    XS = [nan, inf, -inf, -6.0, -3.0, -2.0, -1.0, -0.5, -0.0, 0.0, 0.5, 1.0, 2.0, 3.0, 6.0]
    XS = XS + [0.25] * (64 - len(XS))
    PAIRS = [(a, b) for a in XS[:15] for b in XS[:15]]
    B3 = [nan, -inf, -1.0, 0.0, 1.0, inf]
    TRIPLES = [(x, lo, hi) for x in XS[:15] for lo in B3 for hi in B3]
    unary = {
        "relu": F.relu,
        "relu_": lambda x: torch.relu_(x * 1),
        "relu6": F.relu6,
        "hardtanh": F.hardtanh,
        "hardshrink": F.hardshrink,
        "softshrink": F.softshrink,
        "elu": F.elu,
        "selu": F.selu,
        "threshold": lambda x: F.threshold(x, 0.5, 2.0),
        "threshold_inplace": lambda x: F.threshold(x * 1, 0.5, 2.0, inplace=True),
        "leaky_relu": F.leaky_relu,
        "hardsigmoid": F.hardsigmoid,
        "clamp": lambda x: torch.clamp(x, -1, 1),
        "clamp_min": lambda x: torch.clamp(x, min=-1.0),
        "clamp_max": lambda x: torch.clamp(x, max=1),
        "clamp_min_fn": lambda x: torch.clamp_min(x, -1.0),
        "clamp_max_fn": lambda x: torch.clamp_max(x, 1.0),
        "clip": lambda x: torch.clip(x, -1.0, 1.0),
        "clamp_": lambda x: (x * 1).clamp_(-1.0, 1.0),
        "clamp_nan_bound": lambda x: torch.clamp(x, nan, 1.0),
        "clamp_min_above_max": lambda x: torch.clamp(x, 1.0, -1.0),
        "prelu": lambda x: F.prelu(x.reshape(1, -1), torch.tensor([0.25], dtype=x.dtype)),
    }
    binary = {
        "maximum": torch.maximum,
        "minimum": torch.minimum,
        "max": torch.max,
        "min": torch.min,
        "fmax": torch.fmax,
        "fmin": torch.fmin,
        "clamp_tensor_min": lambda x, lo: torch.clamp(x, min=lo),
        "clamp_tensor_max": lambda x, hi: torch.clamp(x, max=hi),
        "clamp_min_tensor": torch.clamp_min,
        "clamp_max_tensor": torch.clamp_max,
    }
    ternary = {
        "clamp_tensors": torch.clamp,
        "clamp_tensors_": lambda x, lo, hi: (x * 1).clamp_(lo, hi),
    }

    def grads(f, cols, dtype):
        ts = [torch.tensor(c, dtype=dtype, requires_grad=True) for c in cols]
        y = f(*ts)
        return [g.tolist() for g in torch.autograd.grad(y, ts, torch.ones_like(y))]

    def jvp(f, cols, dtype):
        ps = tuple(torch.tensor(c, dtype=dtype) for c in cols)
        ts = tuple(torch.full_like(p, 10.0**k) for k, p in enumerate(ps))
        return torch.func.jvp(f, ps, ts)[1].reshape(-1).tolist()

    out = {}
    for dt in ("float32", "float64"):
        dtype = getattr(torch, dt)
        groups = ((unary, [XS]), (binary, list(zip(*PAIRS))), (ternary, list(zip(*TRIPLES))))
        for table, cols in groups:
            for name, f in table.items():
                out[f"{dt} {name} grad"] = grads(f, cols, dtype)
                if not name.endswith("_"):
                    out[f"{dt} {name} jvp"] = jvp(f, cols, dtype)
    return out
"""


def _close(got, want, key):
    got, want = np.asarray(got, dtype=np.float64), np.asarray(want, dtype=np.float64)
    rtol = 1e-6 if key.startswith("float32") else 1e-12
    np.testing.assert_allclose(got, want, rtol=rtol, atol=0, equal_nan=True, err_msg=key)


def test_matches_pytorch():
    ours, theirs = cases_here_and_in_pytorch(CASES, [("torch", torch)])
    assert sorted(ours) == sorted(theirs)
    for key, want in theirs.items():
        _close(ours[key], want, key)


# ---- the same cases against PyTorch 2.15's formulas (derivatives.yaml and its kernels), without the oracle

NAN, INF = float("nan"), float("inf")
XS = np.array(
    [NAN, INF, -INF, -6.0, -3.0, -2.0, -1.0, -0.5, -0.0, 0.0, 0.5, 1.0, 2.0, 3.0, 6.0] + [0.25] * 49
)
A, B = (np.array(c) for c in zip(*[(a, b) for a in XS[:15] for b in XS[:15]]))
_B3 = [NAN, -INF, -1.0, 0.0, 1.0, INF]
X3, LO, HI = (np.array(c) for c in zip(*[(x, lo, hi) for x in XS[:15] for lo in _B3 for hi in _B3]))


def _w(cond, a, b):
    return np.where(cond, a, b).astype(np.float64)


def _maxmin(a, b, larger):
    """maximum/minimum's backward: where(a == b, g / 2, g) masked to 0 on the losing side (a NaN loses no
    compare, so both sides take the gradient); the tangent: the mean at a tie, a's where it wins, else b's"""
    split = _w(a == b, 0.5, 1.0)
    lose_a, lose_b = (a < b, a > b) if larger else (a > b, a < b)
    tangent = _w(a == b, 5.5, _w(lose_b, 1.0, 10.0))
    return [_w(lose_a, 0.0, split), _w(lose_b, 0.0, split)], tangent


def _fmaxmin(a, b, larger):
    """fmax/fmin: as maximum/minimum where neither is NaN; a NaN side gives all to the other, a both-NaN pair
    to a (the forward's choice)"""
    split = _w(a == b, 0.5, 1.0)
    a_wins = ((a > b) if larger else (a < b)) | np.isnan(b)
    b_wins = ((a < b) if larger else (a > b)) | (np.isnan(a) & ~np.isnan(b))
    return [_w(b_wins, 0.0, split), _w(a_wins, 0.0, split)], _w(a == b, 5.5, _w(a_wins, 1.0, 10.0))


def _clamp_tensors(x, lo, hi):
    """clamp_backward_min_max / clamp_jvp of two tensor bounds (PyTorch 2.15)"""
    ordered, le = lo < hi, lo <= hi
    tie_lo, tie_hi = (x == lo) & ordered, (x == hi) & ordered
    gx = _w((x < lo) | (x > hi), 0.0, _w(tie_lo | tie_hi, 0.5, 1.0))
    glo = _w((x < lo) & le, 1.0, _w(tie_lo, 0.5, 0.0))
    ghi = _w((lo > hi) | ((x > hi) & le), 1.0, _w(tie_hi, 0.5, 0.0))
    t = _w(x < lo, 10.0, _w(x > hi, 100.0, 1.0))
    t = _w(tie_hi, 50.5, t)
    t = _w(tie_lo, 5.5, t)
    return [gx, glo, ghi], _w(lo > hi, 100.0, t)


def _unary_expect(x, f32):
    e = np.float32(np.exp(np.float32(x))).astype(np.float64) if f32 else np.exp(x)
    sixth = float(np.float32(1) / np.float32(6))
    selu_a, selu_s = 1.6732632423543772848170429916717, 1.0507009873554804934193349852946
    selu_s = float(np.float32(selu_s)) if f32 else selu_s
    selu_neg = np.float32(selu_a) * np.float32(selu_s) if f32 else selu_a * selu_s
    with np.errstate(invalid="ignore", over="ignore"):
        strict = {
            # threshold_backward: 0 where x <= t, so a NaN passes
            "relu": _w(x <= 0, 0.0, 1.0),
            "relu_": _w(x <= 0, 0.0, 1.0),
            "threshold": _w(x <= 0.5, 0.0, 1.0),
            "threshold_inplace": _w(x <= 0.5, 0.0, 1.0),
            # hardtanh_backward's vectorized loop: strictly inside (a NaN fails)
            "relu6": _w((x > 0) & (x < 6), 1.0, 0.0),
            "hardtanh": _w((x > -1) & (x < 1), 1.0, 0.0),
            "hardshrink": _w((x < -0.5) | (x > 0.5), 1.0, 0.0),
            "softshrink": _w((x < -0.5) | (x > 0.5), 1.0, 0.0),
            # elu_backward's vectorized loop: x > 0 takes scale, else (NaN too) scale * alpha * exp(x)
            "elu": _w(x > 0, 1.0, e),
            "selu": _w(x > 0, selu_s, selu_neg * e),
            "leaky_relu": _w(x > 0, 1.0, float(np.float32(0.01)) if f32 else 0.01),
            "hardsigmoid": _w((x > -3) & (x < 3), sixth, 0.0),
            # number bounds (clamp_backward, clamp_min/clamp_max): strictly inside, none at a bound or NaN
            "clamp": _w((x > -1) & (x < 1), 1.0, 0.0),
            "clamp_min": _w(x > -1, 1.0, 0.0),
            "clamp_max": _w(x < 1, 1.0, 0.0),
            "clamp_min_fn": _w(x > -1, 1.0, 0.0),
            "clamp_max_fn": _w(x < 1, 1.0, 0.0),
            "clip": _w((x > -1) & (x < 1), 1.0, 0.0),
            "clamp_": _w((x > -1) & (x < 1), 1.0, 0.0),
            "clamp_nan_bound": np.zeros_like(x),
            "clamp_min_above_max": np.zeros_like(x),
        }
    out = {name: ([g], g) for name, g in strict.items()}
    out["selu"] = ([strict["selu"]], strict["selu"])
    # _prelu_kernel: the backward's test is x > 0, the forward rule's x >= 0 (they differ at +-0)
    out["prelu"] = ([_w(x > 0, 1.0, 0.25)], _w(x >= 0, 1.0, 0.25))
    return out


def _expected(f32):
    exp = {}
    for name, (g, t) in _unary_expect(XS, f32).items():
        exp[f"{name} grad"], exp[f"{name} jvp"] = g, t
    for name, larger in (("maximum", True), ("minimum", False), ("max", True), ("min", False)):
        exp[f"{name} grad"], exp[f"{name} jvp"] = _maxmin(A, B, larger)
    for name, larger in (("fmax", True), ("fmin", False)):
        exp[f"{name} grad"], exp[f"{name} jvp"] = _fmaxmin(A, B, larger)
    for name, larger in (("clamp_tensor_min", True), ("clamp_min_tensor", True)):
        exp[f"{name} grad"], exp[f"{name} jvp"] = _maxmin(A, B, larger)
    for name, larger in (("clamp_tensor_max", False), ("clamp_max_tensor", False)):
        exp[f"{name} grad"], exp[f"{name} jvp"] = _maxmin(A, B, larger)
    exp["clamp_tensors grad"], exp["clamp_tensors jvp"] = _clamp_tensors(X3, LO, HI)
    exp["clamp_tensors_ grad"] = exp["clamp_tensors grad"]
    return {k: v for k, v in exp.items() if not k.endswith("_ jvp")}


@pytest.mark.parametrize("dt", ["float32", "float64"])
def test_matches_pytorch_formulas(dt):
    ours = cases_here(CASES, [("torch", torch)])
    want = _expected(dt == "float32")
    keys = sorted(k for k in ours if k.startswith(dt + " "))
    assert sorted(k.split(" ", 1)[1] for k in keys) == sorted(want)
    for key in keys:
        w = want[key.split(" ", 1)[1]]
        _close(ours[key], [np.asarray(v).tolist() for v in w] if isinstance(w, list) else w.tolist(), key)


def test_fuzzer_lp_pool1d_gradient_through_nan():
    """difffuzz's lp_pool1d with a negative norm: a window holding a negative entry pools to NaN, and the relu
    inside passes the gradient through the NaN (PyTorch's threshold_backward), so the window's input gradient
    is NaN, not 0 (values from PyTorch 2.15)"""
    x = torch.tensor(
        [[0.48, 0.37, 1.65, -0.53, 0.41, 2.0], [-0.49, 1.83, 1.18, 0.92, -1.01, 0.7]],
        dtype=torch.float64,
        requires_grad=True,
    )
    y = torch.nn.functional.lp_pool1d(x, -1.5, 3)
    np.testing.assert_allclose(np.asarray(y.tolist()), [[0.25163691953602035, NAN], [NAN, NAN]], rtol=1e-14)
    y.sum().backward()
    want = [[0.1989907123278908, 0.3814447043813319, 0.009082931513660616, NAN, NAN, NAN], [NAN] * 6]
    np.testing.assert_allclose(np.asarray(x.grad.tolist()), want, rtol=1e-13)


def test_infinite_gradient_outside_stays_out():
    """selects, not a multiply by a 0/1 mask: an infinite gradient where the input loses gives 0, not inf * 0"""
    x = torch.tensor([2.0, -2.0, 0.0], dtype=torch.float64, requires_grad=True)
    lo = torch.tensor([0.0, 0.0, 0.0], dtype=torch.float64, requires_grad=True)
    g = torch.tensor([INF, INF, INF], dtype=torch.float64)
    gx, glo = torch.autograd.grad(torch.maximum(x, lo), (x, lo), g)
    assert gx.tolist() == [INF, 0.0, INF] and glo.tolist() == [0.0, INF, INF]
    (gr,) = torch.autograd.grad(torch.relu(x), (x,), g)
    assert gr.tolist() == [INF, 0.0, 0.0]


# pow's base gradient at 0 where the exponent is 0: b * a ** (b - 1) would be 0 * inf; PyTorch gives 0 (no graph
# behind it for a number exponent), so x ** 2's third derivative at x == 0 is finite (pinn_burgers.py's residual)
POW_AT_ZERO = r"""
def cases(torch):
    x = torch.tensor([-1.0, 0.0, 0.5], dtype=torch.float64, requires_grad=True)

    def derivs(f, n):
        out, y = [], f(x)
        for _ in range(n):
            (y,) = torch.autograd.grad(y.sum(), x, create_graph=True)
            out.append(y.tolist())
        return out

    e = torch.tensor([0.0, 1.0, 2.0], dtype=torch.float64)
    z = torch.zeros(3, dtype=torch.float64, requires_grad=True)
    (g_tensor_exp,) = torch.autograd.grad((z ** e).sum(), z)
    return [
        derivs(lambda v: v ** 2, 3),
        derivs(lambda v: v ** 1, 2),
        derivs(lambda v: v ** 0, 1),
        derivs(lambda v: torch.pow(v, 3.0), 4),
        derivs(lambda v: v.pow(2) * torch.sin(v), 3),
        g_tensor_exp.tolist(),
    ]
"""


def test_pow_higher_derivatives_at_zero():
    ours, theirs = cases_here_and_in_pytorch(POW_AT_ZERO, [("torch", torch)])
    assert ours[:4] == theirs[:4] and ours[5] == theirs[5]
    np.testing.assert_allclose(ours[4], theirs[4], rtol=1e-14)  # sin's terms may round in another order
    assert ours[0] == [[-2.0, 0.0, 1.0], [2.0, 2.0, 2.0], [0.0, 0.0, 0.0]]
