"""Forward-mode AD (torch.autograd.forward_ad, the JVP rules, torch.func.jvp/jacfwd, autograd.functional)."""

import json
import os
import pathlib
import re
import subprocess
import warnings

import numpy as np
import pytest

import minitorch as torch
import minitorch.autograd.forward_ad as fwAD
import minitorch.nn.functional as F
from minitorch.autograd import _jvp_rules
from minitorch.autograd import functional as AF
from minitorch.func import hessian, jacfwd, jacrev, jvp, vmap
from minitorch.testing import assert_close

D = torch.float64
ROOT = pathlib.Path(__file__).resolve().parents[1]


def rand(*shape, lo=-1.0, hi=1.0):
    return torch.rand(*shape, dtype=D) * (hi - lo) + lo


def fd_jvp(f, xs, ts, eps=1e-6):
    """Central finite difference of f along the tangents ts (float64)."""
    plus = f(*[x + eps * t for x, t in zip(xs, ts)])
    minus = f(*[x - eps * t for x, t in zip(xs, ts)])
    return (plus - minus) / (2 * eps)


def fwd(f, xs, ts):
    with fwAD.dual_level():
        # a torch builtin bound before the level (SWEEP's torch.sin) is called by its dispatching spelling, as
        # func.jvp does: the builtin itself would read the dual as its primal
        f = fwAD._dispatching(f)
        out = f(*[fwAD.make_dual(x, t) for x, t in zip(xs, ts)])
        p, t = fwAD.unpack_dual(out)
    return p, t


# (name, f, input makers): random inputs inside each op's domain
POS = {"lo": 0.2, "hi": 2.0}
UNIT = {"lo": -0.9, "hi": 0.9}
SWEEP = [
    ("abs", torch.abs, [(5,)]),
    ("neg", torch.neg, [(5,)]),
    ("relu", torch.relu, [(5,)]),
    ("exp", torch.exp, [(5,)]),
    ("exp2", torch.exp2, [(5,)]),
    ("expm1", torch.expm1, [(5,)]),
    ("log", torch.log, [((5,), POS)]),
    ("log2", torch.log2, [((5,), POS)]),
    ("log10", torch.log10, [((5,), POS)]),
    ("log1p", torch.log1p, [((5,), POS)]),
    ("sqrt", torch.sqrt, [((5,), POS)]),
    ("rsqrt", torch.rsqrt, [((5,), POS)]),
    ("reciprocal", torch.reciprocal, [((5,), POS)]),
    ("sin", torch.sin, [(5,)]),
    ("cos", torch.cos, [(5,)]),
    ("tan", torch.tan, [(5,)]),
    ("asin", torch.asin, [((5,), UNIT)]),
    ("acos", torch.acos, [((5,), UNIT)]),
    ("atan", torch.atan, [(5,)]),
    ("sinh", torch.sinh, [(5,)]),
    ("cosh", torch.cosh, [(5,)]),
    ("tanh", torch.tanh, [(5,)]),
    ("erf", torch.erf, [(5,)]),
    ("erfc", torch.erfc, [(5,)]),
    ("erfinv", torch.erfinv, [((5,), UNIT)]),
    ("asinh", torch.asinh, [(5,)]),
    ("acosh", torch.acosh, [((5,), {"lo": 1.2, "hi": 3.0})]),
    ("atanh", torch.atanh, [((5,), UNIT)]),
    ("lgamma", torch.lgamma, [((5,), POS)]),
    ("digamma", torch.digamma, [((5,), POS)]),
    ("i0", torch.i0, [(5,)]),
    ("special.i0e", torch.special.i0e, [(5,)]),
    ("special.i1", torch.special.i1, [(5,)]),
    ("special.i1e", torch.special.i1e, [(5,)]),
    ("sigmoid", torch.sigmoid, [(5,)]),
    ("gelu", F.gelu, [(5,)]),
    ("gelu_tanh", lambda x: F.gelu(x, approximate="tanh"), [(5,)]),
    ("silu", F.silu, [(5,)]),
    ("mish", F.mish, [(5,)]),
    ("add", lambda a, b: torch.add(a, b, alpha=2.5), [(2, 3), (3,)]),
    ("sub", lambda a, b: a - b, [(2, 3), (2, 3)]),
    ("mul", torch.mul, [(2, 3), (2, 1)]),
    ("div", torch.div, [(4,), ((4,), POS)]),
    ("remainder", torch.remainder, [((4,), POS), ((4,), {"lo": 0.3, "hi": 0.5})]),
    ("fmod", torch.fmod, [((4,), POS), ((4,), {"lo": 0.3, "hi": 0.5})]),
    ("pow", torch.pow, [((4,), POS), (4,)]),
    ("pow_scalar", lambda a: a**3, [(4,)]),
    ("rpow", lambda a: 2.0**a, [(4,)]),
    ("maximum", torch.maximum, [(6,), (6,)]),
    ("minimum", torch.minimum, [(6,), (6,)]),
    ("atan2", torch.atan2, [(5,), (5,)]),
    ("sort", lambda x: torch.sort(x, 1)[0], [(3, 4)]),
    ("topk", lambda x: torch.topk(x, 2)[0], [(3, 4)]),
    ("kthvalue", lambda x: torch.kthvalue(x, 2, 1)[0], [(3, 4)]),
    ("mode", lambda x: torch.mode(x, 0, keepdim=True)[0], [(3, 4)]),
    ("tril", lambda x: torch.tril(x, -1), [(4, 4)]),
    ("triu", torch.triu, [(4, 4)]),
    ("logsumexp", lambda x: torch.logsumexp(x, 1), [(3, 4)]),
    ("cumsum", lambda x: torch.cumsum(x, 0), [(4, 3)]),
    ("cumprod", lambda x: torch.cumprod(x, 1), [(3, 5)]),
    ("softmax", lambda x: torch.softmax(x, -1), [(3, 4)]),
    ("log_softmax", lambda x: torch.log_softmax(x, 0), [(3, 4)]),
    ("matmul", torch.matmul, [(2, 3, 4), (4, 5)]),
    ("mm", torch.mm, [(3, 4), (4, 2)]),
    ("bmm", torch.bmm, [(2, 3, 4), (2, 4, 2)]),
    ("linear", F.linear, [(3, 4), (5, 4), (5,)]),
    ("conv2d", lambda x, w, b: F.conv2d(x, w, b, padding=1, stride=2), [(2, 3, 5, 5), (4, 3, 3, 3), (4,)]),
    ("F.relu", F.relu, [(6,)]),
    ("F.softmax", lambda x: F.softmax(x, dim=1), [(3, 4)]),
    ("F.log_softmax", lambda x: F.log_softmax(x, dim=1), [(3, 4)]),
    ("layer_norm", lambda x, w, b: F.layer_norm(x, (4,), w, b), [(3, 4), (4,), (4,)]),
    ("sum", lambda x: x.sum(1, keepdim=True), [(3, 4)]),
    ("mean", lambda x: torch.mean(x, (0, 1)), [(3, 4, 2)]),
    ("var", lambda x: torch.var(x, 1), [(3, 4)]),
    ("std", lambda x: x.std(0, correction=0), [(3, 4)]),
    ("prod", lambda x: x.prod(1), [(3, 4)]),
    ("max_dim", lambda x: x.max(1)[0], [(3, 4)]),
    ("amax", lambda x: x.amax(0), [(3, 4)]),
    ("norm", lambda x: x.norm(), [(3, 4)]),
    ("clamp", lambda x: x.clamp(-0.5, 0.5), [(8,)]),
    (
        "views",
        lambda x: x.view(2, 6).t().reshape(3, 4).permute(1, 0).transpose(0, 1).unsqueeze(0).squeeze(0),
        [(3, 4)],
    ),
    ("indexing", lambda x: x[1:, ::2][torch.tensor([0, 1, 1])], [(4, 5)]),
    (
        "cat_stack",
        lambda a, b: torch.stack([torch.cat([a, b], 0), torch.cat([b, a], 0)], 1),
        [(2, 3), (2, 3)],
    ),
    ("where", lambda a, b: torch.where(a > 0, a, b), [(6,), (6,)]),
    ("mse_loss", F.mse_loss, [(3, 4), (3, 4)]),
    ("cross_entropy", lambda x: F.cross_entropy(x, torch.tensor([0, 2, 1])), [(3, 4)]),
    ("expand_flip", lambda x: x.expand(2, 3, 4).flip(2).contiguous(), [(3, 4)]),
    # composites of nn.functional and torch.special's aliases, dispatched whole (inputs away from the kinks)
    ("F.relu6", F.relu6, [((8,), {"lo": 0.2, "hi": 5.5})]),
    ("F.hardsigmoid", F.hardsigmoid, [((8,), {"lo": -2.5, "hi": 2.5})]),
    ("F.hardswish", F.hardswish, [((8,), {"lo": -2.5, "hi": 2.5})]),
    ("F.hardswish_tails", lambda x: F.hardswish(x * 10), [((8,), {"lo": 0.4, "hi": 1.0})]),
    ("F.softsign", F.softsign, [(6,)]),
    ("F.threshold", lambda x: F.threshold(x, 0.1, 20.0), [(3, 4)]),
    ("F.hardshrink", lambda x: F.hardshrink(x, 0.3), [(3, 4)]),
    ("F.glu", lambda x: F.glu(x, 0), [(4, 3)]),
    ("F.softmin", lambda x: F.softmin(x, dim=1), [(3, 4)]),
    ("F.selu", F.selu, [(8,)]),
    ("F.celu", lambda x: F.celu(x, alpha=0.7), [(8,)]),
    ("special.erf", torch.special.erf, [(5,)]),
    ("special.expit", torch.special.expit, [(5,)]),
    ("special.logsumexp", lambda x: torch.special.logsumexp(x, 1), [(3, 4)]),
    ("special.xlogy", torch.special.xlogy, [((5,), POS), ((5,), POS)]),
    ("special.gammaln", torch.special.gammaln, [((5,), POS)]),
    ("special.log1p", torch.special.log1p, [((5,), POS)]),
    ("to_double", lambda x: x.to(torch.float64).double().contiguous(), [(4,)]),
]


def _make_inputs(specs):
    out = []
    for s in specs:
        if isinstance(s[0], tuple):
            shape, dom = s
            out.append(rand(*shape, **dom))
        else:
            out.append(rand(*s))
    return out


@pytest.mark.parametrize("name,f,specs", SWEEP, ids=[s[0] for s in SWEEP])
def test_rule_matches_finite_differences_and_reverse_mode(name, f, specs):
    torch.manual_seed(0)
    xs = _make_inputs(specs)
    ts = [rand(*x.shape) for x in xs]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # every op here has a rule: the generic JVP would warn
        p, t = fwd(f, xs, ts)
    assert_close(p, f(*xs))
    tol = 1e-5 if name not in ("cumprod", "prod") else 1e-4
    assert_close(t, fd_jvp(f, xs, ts), rtol=tol, atol=tol)
    # against the reverse-mode Jacobian: J t = sum_j J_j t_j
    jac = jacrev(f, argnums=tuple(range(len(xs))))(*xs)
    expect = sum((j.reshape(p.numel(), -1) @ tj.reshape(-1)).reshape(p.shape) for j, tj in zip(jac, ts))
    assert_close(t, expect, rtol=1e-7, atol=1e-9)


def _schema_rows():
    rows, cur = [], None
    for line in (ROOT / "csrc/ops/ops.schema").read_text().splitlines():
        m = re.match(r"^(unary|binary|func)\s+(\w+)", line)
        if m:
            cur = {"kind": m.group(1), "name": m.group(2), "keys": {}, "sig": line}
            rows.append(cur)
        elif cur is not None and line.startswith("  ") and ":" in line:
            k, _, v = line.strip().partition(":")
            cur["keys"][k.strip()] = v.strip()
    return rows


def test_every_differentiable_schema_op_has_a_rule():
    rows = _schema_rows()
    assert len(rows) > 80
    missing = []
    for r in rows:
        k = r["keys"]
        if r["kind"] in ("unary", "binary"):
            differentiable = k.get("grad") != "none"
        else:
            # func rows: differentiable unless they return only indices; `variants: none` rows are private LAPACK
            # primitives, differentiated (and given JVPs) at their public torch.linalg wrappers
            differentiable = k.get("variants") != "none" and not r["name"].startswith("arg")
        if differentiable and not any(key == "jvp" or key.startswith("jvp_") for key in k):
            missing.append(r["name"])
    assert not missing, f"differentiable ops of csrc/ops/ops.schema without a 'jvp:' rule: {missing}"
    # a schema op's rule is declared there only, and the build compiled what the schema says now
    names = {r["name"] for r in rows}
    assert not names & set(_jvp_rules._COMPOSITE_RULES), "rules of schema ops belong in csrc/ops/ops.schema"
    declared = {(r["name"], key, v) for r in rows for key, v in r["keys"].items() if key.startswith("jvp")}
    built = {r for r in torch._C._op_schema_rules() if r[1].startswith("jvp")}
    assert built == declared, "rebuild: _C's JVP rules differ from ops.schema"
    for r in rows:
        if any(key.startswith("jvp") for key in r["keys"]):
            assert _jvp_rules.get_rule(r["name"]) is not None


def test_rules_compile():
    for key in _jvp_rules.JVP_RULES:
        assert _jvp_rules.get_rule(key) is not None


# ------------------------------------------------------------------------------------------------ API


def test_dual_level_and_unpack():
    x, v = rand(3), rand(3)
    assert fwAD.unpack_dual(x) == (x, None)
    with fwAD.dual_level() as lvl:
        assert lvl == 0
        d = fwAD.make_dual(x, v)
        assert isinstance(d, torch.Tensor)
        u = fwAD.unpack_dual(d)
        assert type(u) is fwAD.UnpackedDualTensor and u._fields == ("primal", "tangent")
        assert_close(u.primal, x)
        assert u.tangent is v
        assert fwAD.unpack_dual(x).tangent is None
        assert fwAD.unpack_dual(d.detach()).tangent is None
        assert fwAD.unpack_dual(torch.zeros_like(d)).tangent is None
        assert fwAD.unpack_dual(d > 0).tangent is None
        assert fwAD.unpack_dual(d.argmax()).tangent is None
        assert_close(fwAD.unpack_dual(torch.floor(d)).tangent, torch.zeros(3, dtype=D))
        y = d * 2
        assert "tangent=" in repr(d)
    # after the level the dual is its primal
    assert fwAD.unpack_dual(y).tangent is None
    assert_close(y + 1, 2 * x + 1)
    assert "tangent" not in repr(y)


def test_enter_exit_levels():
    lvl = fwAD.enter_dual_level()
    try:
        with pytest.raises(RuntimeError, match="^Nested forward mode AD is not supported at the moment$"):
            fwAD.enter_dual_level()
        with pytest.raises(RuntimeError, match="Trying to exit a forward AD level that was not the last one"):
            fwAD.exit_dual_level(level=lvl + 3)
    finally:
        fwAD.exit_dual_level(level=lvl)
    with pytest.raises(RuntimeError, match="^Dual level must be a positive number.$"):
        fwAD.exit_dual_level()

    @fwAD.dual_level()
    def decorated(x, v):
        return fwAD.unpack_dual(fwAD.make_dual(x, v).sin()).tangent

    x, v = rand(3), rand(3)
    assert_close(decorated(x, v), x.cos() * v)


def test_make_dual_errors():
    x = rand(3)
    with pytest.raises(RuntimeError, match="no level exists, make sure to enter_dual_level\\(\\) first."):
        fwAD.make_dual(x, x)
    with fwAD.dual_level():
        with pytest.raises(
            RuntimeError,
            match=re.escape(
                "Trying to set a forward gradient that has a different size than that of the original Tensor, "
                "this is not supported. Tensor is of size [3] while the given forward gradient is of size [4]."
            ),
        ):
            fwAD.make_dual(x, rand(4))
        with pytest.raises(ValueError, match="^Expected primal to be floating point or complex, but got: "):
            fwAD.make_dual(torch.arange(3), torch.arange(3))
        with pytest.raises(ValueError, match="^Expected tangent to be floating point or complex, but got: "):
            fwAD.make_dual(x, torch.arange(3))
        d = fwAD.make_dual(x, x)
        with pytest.raises(RuntimeError, match="already has a forward gradient at the same level 0"):
            fwAD.make_dual(d, x)
        with pytest.raises(RuntimeError, match="^Invalid level given to _make_dual$"):
            fwAD.make_dual(x, x, level=5)
        with pytest.raises(TypeError, match="argument 'dual' \\(position 1\\) must be Tensor, not int"):
            fwAD.unpack_dual(5)


def test_non_contiguous_and_empty():
    base = rand(4, 6)
    x = base.t()[::2]  # non-contiguous
    v = rand(4, 6).t()[::2]
    assert not x.is_contiguous()
    f = lambda a: (a.exp() * a).sum(0)
    _, t = fwd(f, [x], [v])
    assert_close(t, fd_jvp(f, [x], [v]))
    e = torch.empty(0, 3, dtype=D)
    _, t = fwd(lambda a: a.sin().sum(0), [e], [e])
    assert t.shape == (3,) and float(t.abs().sum()) == 0.0


def test_inplace_and_setitem():
    x, v = rand(4), rand(4)
    with fwAD.dual_level():
        d = fwAD.make_dual(x.clone(), v)
        d.mul_(3).add_(1)
        d[0] = 0.0
        p, t = fwAD.unpack_dual(d)
    expect = v * 3
    expect[0] = 0
    assert_close(t, expect)
    assert_close(p[1:], x[1:] * 3 + 1)
    with fwAD.dual_level():
        d = fwAD.make_dual(x, v)
        plain = x.clone()
        with pytest.raises(RuntimeError, match="cannot hold one"):
            fwAD.dispatch("Tensor.add_", (plain, d))  # what plain.add_(d) reaches through a dispatching call


def test_generic_fallback_warns_once_and_is_correct():
    x, v = rand(2, 3, 4, 4), rand(2, 3, 4, 4)
    f = lambda a: F.max_pool2d(a, 2)
    fwAD._warned.discard("F.max_pool2d")
    with pytest.warns(UserWarning, match="F.max_pool2d has no JVP rule"):
        _, t = fwd(f, [x], [v])
    assert_close(t, fd_jvp(f, [x], [v]), rtol=1e-6, atol=1e-7)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        fwd(f, [x], [v])  # once only


# ------------------------------------------------------------------------------------------------ higher order


def test_nested_levels_forward_over_forward():
    x, t1, t2 = rand(3), rand(3), rand(3)
    f = lambda a: (a.sin() * a.exp()).sum()

    def inner(a):
        return jvp(f, (a,), (t1,))[1]

    _, second = jvp(inner, (x,), (t2,))
    h = AF.hessian(f, x)
    assert_close(second, t1 @ h @ t2)


def test_forward_over_reverse_hvp():
    x, v = rand(4), rand(4)
    f = lambda a: (a.tanh() ** 2 * a).sum() + a.prod()
    h = AF.hessian(f, x)
    # dual whose primal requires grad, then backward through the tangent
    xr = x.clone().requires_grad_()
    with fwAD.dual_level():
        out = f(fwAD.make_dual(xr, v))
        _, t = fwAD.unpack_dual(out)
    (hv,) = torch.autograd.grad(t, xr)
    assert_close(hv, h @ v)
    assert_close(AF.hvp(f, x, v)[1], h @ v)
    assert_close(jvp(torch.func.grad(f), (x,), (v,))[1], h @ v)
    assert_close(hessian(f)(x), h)
    assert_close(AF.hessian(f, x, vectorize=True, outer_jacobian_strategy="forward-mode"), h)


def test_jacfwd_and_forward_jacobian():
    x = rand(3)
    f = lambda a: torch.cat([a.sin() * a[0], a.cumsum(0)])
    expect = jacrev(f)(x)
    assert_close(jacfwd(f)(x), expect)
    assert_close(AF.jacobian(f, x, vectorize=True, strategy="forward-mode"), expect)
    xs = rand(5, 3)
    assert_close(vmap(jacfwd(f))(xs), torch.stack([jacrev(f)(r) for r in xs]))


def test_mlp_jvp_matches_double_vjp():
    torch.manual_seed(1)
    net = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.GELU(), torch.nn.Linear(8, 3)).double()
    x, v = rand(5, 4), rand(5, 4)
    _, fwd_t = jvp(net, (x,), (v,))
    _, trick = AF.jvp(net, x, v, strict=True)  # strict keeps the double-vjp trick
    assert_close(fwd_t, trick)


# ------------------------------------------------------------------------------------------------ PyTorch


def _oracle():
    py = os.environ.get("MINITORCH_ORACLE_PYTHON")
    if not py or not os.path.exists(py):
        pytest.skip("no PyTorch to compare with: set MINITORCH_ORACLE_PYTHON to a Python that imports torch")
    return py


ORACLE_CASES = {
    "sin_exp": "lambda a: (a.sin() * a.exp()).sum(-1)",
    "softmax": "lambda a: torch.softmax(a, -1)",
    "layer_norm": "lambda a: torch.nn.functional.layer_norm(a, (4,))",
    "logsumexp": "lambda a: torch.logsumexp(a, 0)",
}


def test_jvp_matches_pytorch():
    py = _oracle()
    torch.manual_seed(3)
    x, v = rand(3, 4), rand(3, 4)
    script = (
        "import json, sys, torch\n"
        "import torch.autograd.forward_ad as fwAD\n"
        "d = json.loads(sys.stdin.read())\n"
        "x = torch.tensor(d['x'], dtype=torch.float64); v = torch.tensor(d['v'], dtype=torch.float64)\n"
        "out = {}\n"
        "for k, src in d['cases'].items():\n"
        "    with fwAD.dual_level():\n"
        "        out[k] = fwAD.unpack_dual(eval(src)(fwAD.make_dual(x, v))).tangent.tolist()\n"
        "print(json.dumps(out))\n"
    )
    payload = json.dumps({"x": x.tolist(), "v": v.tolist(), "cases": ORACLE_CASES})
    res = subprocess.run(
        [py, "-c", script], input=payload, capture_output=True, text=True, timeout=300, check=False
    )
    assert res.returncode == 0, res.stderr
    theirs = json.loads(res.stdout.strip().splitlines()[-1])
    for k, src in ORACLE_CASES.items():
        _, t = fwd(eval(src, {"torch": torch}), [x], [v])
        np.testing.assert_allclose(t.numpy(), np.array(theirs[k]), rtol=1e-10, atol=1e-12)


_EARLY_SIN = torch.sin  # bound at import, before any dual level: the C++ builtin itself
_EARLY_RELU = F.relu


def test_builtin_bound_before_the_level_raises_not_drops_the_tangent():
    # through the namespace the op dispatches; a reference taken earlier would compute on the primal and lose
    # the tangent silently, so the Tensor conversion refuses a live dual
    x = torch.tensor([0.5, -1.0, 2.0], dtype=torch.float64)
    t = torch.tensor([1.0, 2.0, -1.0], dtype=torch.float64)
    with fwAD.dual_level():
        d = fwAD.make_dual(x, t)
        assert_close(fwAD.unpack_dual(torch.sin(d)).tangent, torch.cos(x) * t)
        for early in (_EARLY_SIN, _EARLY_RELU, lambda v: torch._C.exp(v), lambda v: torch._C.add(v, 1.0)):
            with pytest.raises(RuntimeError, match="bound before the dual level was entered"):
                early(d)
        # the machinery's own dual-in-dual wrapping (forward over forward) still works
        assert_close(fwAD.unpack_dual(torch.sin(d) * 2).tangent, 2 * torch.cos(x) * t)
    # after the level the dual is a plain tensor again, as PyTorch's
    assert_close(_EARLY_SIN(d), torch.sin(x))


def test_transforms_accept_builtins_passed_as_functions():
    # jvp/jacfwd/autograd.functional.jvp given the builtin itself dispatch it inside their level
    x = torch.tensor([0.3, 1.2], dtype=torch.float64)
    v = torch.tensor([1.0, -2.0], dtype=torch.float64)
    assert_close(jvp(_EARLY_SIN, (x,), (v,))[1], torch.cos(x) * v)
    assert_close(jacfwd(_EARLY_SIN)(x), torch.diag(torch.cos(x)))
    assert_close(AF.jvp(_EARLY_SIN, x, v)[1], torch.cos(x) * v)


class _ExpFn(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, scale):
        ctx.result = torch.exp(x) * scale
        return ctx.result

    @staticmethod
    def backward(ctx, g):
        return g * ctx.result, None

    @staticmethod
    def jvp(ctx, t, t_scale):
        assert t_scale is None  # a non-tensor input gets None
        return t * ctx.result


def test_custom_function_jvp_under_dual_level():
    x0 = np.array([[0.5, -1.0], [2.0, 0.25]])
    t0 = np.array([[1.0, 2.0], [-3.0, 0.5]])
    primal = torch.tensor(x0, requires_grad=True)
    with fwAD.dual_level():
        x = fwAD.make_dual(primal, torch.tensor(t0).t().contiguous().t())
        out = _ExpFn.apply(x, 3.0)
        p, t = fwAD.unpack_dual(out)
        np.testing.assert_allclose(t.detach().numpy(), 3 * np.exp(x0) * t0)
    # the reverse-mode graph through the primal is recorded too
    p.sum().backward()
    np.testing.assert_allclose(primal.grad.numpy(), 3 * np.exp(x0))


def test_gradcheck_forward_ad_catches_a_wrong_jvp():
    class Wrong(_ExpFn):
        @staticmethod
        def jvp(ctx, t, t_scale):
            return t * ctx.result * 1.01

    x = torch.tensor([0.3, -0.7, 1.1], dtype=torch.float64, requires_grad=True)
    kw = {"check_forward_ad": True, "check_backward_ad": False}
    assert torch.autograd.gradcheck(lambda a: _ExpFn.apply(a, 2.0), (x,), **kw)
    with pytest.raises(torch.autograd.GradcheckError, match="forward mode"):
        torch.autograd.gradcheck(lambda a: Wrong.apply(a, 2.0), (x,), **kw)


def test_custom_function_without_jvp_raises_pytorchs_error():
    class NoJvp(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g * 2

    with fwAD.dual_level():
        d = fwAD.make_dual(torch.ones(2), torch.ones(2))
        msg = (
            "You must implement the jvp function for custom autograd.Function to use it with forward mode AD."
        )
        with pytest.raises(NotImplementedError, match=re.escape(msg)):
            NoJvp.apply(d)
