"""Forward-mode AD (torch.autograd.forward_ad, the JVP rules, torch.func.jvp/jacfwd, autograd.functional)."""

import json
import os
import pathlib
import re
import subprocess
import warnings

import numpy as np
import pytest
from utils import REPO

import minitorch as torch
import minitorch.autograd.forward_ad as fwAD
import minitorch.nn.functional as F
from minitorch.autograd import _jvp_rules
from minitorch.autograd import functional as AF
from minitorch.func import hessian, jacfwd, jacrev, jvp, vmap
from minitorch.testing import assert_close
from tests.ops import op_schema, opdb

D = torch.float64
ROOT = pathlib.Path(REPO)


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
    # the public wrappers of the schema's private special functions and nn.functional's spellings (the
    # schema's unary ops themselves are OPDB_SWEEP's below)
    ("special.i0e", torch.special.i0e, [(5,)]),
    ("special.i1", torch.special.i1, [(5,)]),
    ("special.i1e", torch.special.i1e, [(5,)]),
    ("F.gelu", F.gelu, [(5,)]),
    ("F.gelu_tanh", lambda x: F.gelu(x, approximate="tanh"), [(5,)]),
    ("F.silu", F.silu, [(5,)]),
    ("F.mish", F.mish, [(5,)]),
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
    ("deg2rad", torch.deg2rad, [(5,)]),
    ("rad2deg", torch.rad2deg, [(5,)]),
    ("square", torch.square, [(5,)]),
    ("positive", torch.positive, [(5,)]),
    ("fix", torch.fix, [((5,), {"lo": 0.1, "hi": 0.9})]),
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


# every differentiable unary op of the op database (tests/ops/opdb.py), on 5 inputs from its gradcheck domain; a
# primitive without a spelling of its own (_angle_real) is reached through its public wrapper (angle)
OPDB_SWEEP = [
    (op.name, op_schema.function(op.name), [op])
    for op in opdb.UNARY_OPS
    if op.grad is not None and op.schema.variants
]
SWEEP = OPDB_SWEEP + SWEEP


def _make_inputs(specs):
    out = []
    for s in specs:
        if isinstance(s, opdb.Op):
            out.append(s.grad_input(5).detach())
        elif isinstance(s[0], tuple):
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
        m = re.match(r"^(unary|binary|func)\s+(\w+)(\.\w+)?", line)
        if m and m.group(3) and rows and rows[-1]["name"] == m.group(2):
            # an overload row (arange.start_step): its op's keys are its first row's (fill_.tensor opens fill_)
            cur = {"keys": {}}
        elif m:
            cur = {"kind": m.group(1), "name": m.group(2), "keys": {}, "sig": line}
            rows.append(cur)
        elif cur is not None and line.startswith("  ") and ":" in line:
            k, _, v = line.strip().partition(":")
            cur["keys"][k.strip()] = v.strip()
    return rows


def test_every_differentiable_schema_op_has_a_rule():
    rows = _schema_rows()
    assert len(rows) > 80
    with_rule = {r["name"] for r in rows if any(key == "jvp" or key.startswith("jvp_") for key in r["keys"])}
    missing = []
    for r in rows:
        k = r["keys"]
        if "Tensor(a!) self" in r["sig"] and r["name"][:-1] in with_rule:
            # an in-place row (index_put_) writes its out-of-place op's tangent: forward AD runs that op's rule
            # (_forward_ad._inplace), so the row declares none of its own
            assert not any(key.startswith("jvp") for key in k), (
                f"{r['name']}: its out-of-place op's rule applies"
            )
            continue
        if r["kind"] in ("unary", "binary"):
            differentiable = k.get("grad") != "none"
        else:
            # func rows: differentiable unless they return only indices; `variants: none` rows are private LAPACK
            # primitives, differentiated (and given JVPs) at their public torch.linalg wrappers
            differentiable = k.get("variants") != "none" and not r["name"].startswith("arg")
            # a private primitive (`vmap: private`, _where with its out=) is differentiated at its public
            # wrapper; a `rules: python` func's rule is still _jvp_rules.py's, under its public name
            differentiable = differentiable and k.get("vmap") != "private" and k.get("rules") != "python"
            # a `module: nn` row is a _C._nn kernel, differentiated (and given its JVP) at its nn.functional wrapper
            differentiable = differentiable and "module" not in k
        if differentiable and not any(key == "jvp" or key.startswith("jvp_") for key in k):
            missing.append(r["name"])
    assert not missing, f"differentiable ops of csrc/ops/ops.schema without a 'jvp:' rule: {missing}"
    # a `rules: python` row is exempt above only while Python holds its rule, under its public name (an in-place
    # row: its out-of-place op's, as _forward_ad._inplace computes it), so that no op escapes both
    from minitorch.func import _forward_ad

    by_construction = _forward_ad._ON_PRIMAL | _forward_ad._NO_TANGENT | _forward_ad._FILLS
    lacking = []
    for r in rows:
        k, name = r["keys"], r["name"]
        if k.get("rules") != "python" or k.get("variants") == "none" or name.startswith("arg"):
            continue
        keys = (name, "Tensor." + name, name.removesuffix("_"))
        if name not in by_construction and all(_jvp_rules.get_rule(key) is None for key in keys):
            lacking.append(name)
    assert not lacking, (
        f"`rules: python` ops of csrc/ops/ops.schema without a JVP rule in Python either: {lacking}"
    )
    # a schema op's rule is declared there only, and the build compiled what the schema says now
    # (a `module: nn` row's name is its _C._nn kernel's; torch.<name>, its torch-level spelling, keeps its rule)
    names = {r["name"] for r in rows if r["keys"].get("rules") != "python" and "module" not in r["keys"]}
    assert not names & set(_jvp_rules._COMPOSITE_RULES), "rules of schema ops belong in csrc/ops/ops.schema"
    declared = {(r["name"], key, v) for r in rows for key, v in r["keys"].items() if key.startswith("jvp")}
    built = {r for r in torch._C._op_schema_rules() if r[1].startswith("jvp")}
    assert built == declared, "rebuild: _C's JVP rules differ from ops.schema"
    for r in rows:
        if any(key.startswith("jvp") for key in r["keys"]):
            assert _jvp_rules.get_rule(r["name"]) is not None


def test_random_fills_leave_a_zero_tangent():
    # PyTorch's uniform_/normal_/random_/bernoulli_ (result: self_t.zero_()); uniform_ raised AttributeError here
    fills = (
        lambda t: t.uniform_(),
        lambda t: t.normal_(),
        lambda t: t.random_(0, 5),
        lambda t: t.bernoulli_(0.3),
        lambda t: t.exponential_(),
    )
    for fill in fills:
        with fwAD.dual_level():
            d = fwAD.make_dual(rand(4), rand(4))
            assert fill(d) is d
            assert_close(fwAD.unpack_dual(d).tangent, torch.zeros(4, dtype=D))


def test_fills_are_the_schemas_zero_tangent_rows():
    # forward AD writes the fills' tangent by name (_forward_ad._inplace): the names are the schema's `jvp: zero`
    # rows (the samplers exponential_ ... geometric_ among them since session 29)
    from minitorch.func import _forward_ad

    zero = {n for n, k, v in torch._C._op_schema_rules() if k == "jvp" and v == "zero"}
    samplers = {"exponential_", "cauchy_", "log_normal_", "geometric_"}
    assert zero == {"fill_", "zero_", "uniform_", "normal_", "random_", "bernoulli_"} | samplers
    assert _forward_ad._FILLS == zero
    with fwAD.dual_level():
        d = fwAD.make_dual(rand(4), rand(4))
        assert d.zero_() is d
        assert_close(fwAD.unpack_dual(d).tangent, torch.zeros(4, dtype=D))
        v, tv = rand(()), rand(())
        d.fill_(fwAD.make_dual(v, tv))  # the written value's tangent (PyTorch's fill_ rule)
        assert_close(fwAD.unpack_dual(d).primal, v.expand(4))
        assert_close(fwAD.unpack_dual(d).tangent, tv.expand(4))


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
        d = fwAD.make_dual(
            x.clone(), v.clone()
        )  # in-place ops write the tangent given in place, as PyTorch's
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
        plain.add_(d)  # a plain tensor written with a dual becomes dual, as PyTorch's
        assert_close(fwAD.unpack_dual(plain).tangent, v)
        assert_close(fwAD.unpack_dual(plain * 2).tangent, 2 * v)
        prm = torch.nn.Parameter(x.clone())
        with torch.no_grad(), pytest.raises(RuntimeError, match="which cannot become dual here"):
            prm.add_(d)  # its class cannot change to the dual's
    assert type(plain) is torch.Tensor and fwAD.unpack_dual(plain).tangent is None


def test_generic_fallback_warns_once_and_is_correct():
    x, v = rand(2, 3, 4, 4), rand(2, 3, 4, 4)
    f = lambda a: torch.renorm(a, 2, 1, 0.5)
    fwAD._warned.discard("renorm")
    with pytest.warns(UserWarning, match="renorm has no JVP rule"):
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


def _pytorch_tangents(cases, x, v):
    """PyTorch's forward-mode tangent of each case (a lambda's source) at x in direction v, run by the oracle."""
    py = _oracle()
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
    payload = json.dumps({"x": x.tolist(), "v": v.tolist(), "cases": cases})
    res = subprocess.run(
        [py, "-c", script], input=payload, capture_output=True, text=True, timeout=300, check=False
    )
    assert res.returncode == 0, res.stderr
    return json.loads(res.stdout.strip().splitlines()[-1])


def test_jvp_matches_pytorch():
    _oracle()
    torch.manual_seed(3)
    x, v = rand(3, 4), rand(3, 4)
    theirs = _pytorch_tangents(ORACLE_CASES, x, v)
    for k, src in ORACLE_CASES.items():
        _, t = fwd(eval(src, {"torch": torch}), [x], [v])
        np.testing.assert_allclose(t.numpy(), np.array(theirs[k]), rtol=1e-10, atol=1e-12)


_EARLY_SIN = torch.sin  # bound at import, before any dual level: the C++ builtin itself
_EARLY_RELU = F.relu


def test_builtin_bound_before_the_level_computes_the_tangent():
    # a reference taken before the level is the C++ builtin itself: it hands a dual to the namespace's
    # dispatching spelling (as PyTorch's C++ dispatch computes the tangent there); a _C function outside the
    # torch namespaces, which would compute on the primal and lose the tangent silently, refuses a live dual
    x = torch.tensor([0.5, -1.0, 2.0], dtype=torch.float64)
    t = torch.tensor([1.0, 2.0, -1.0], dtype=torch.float64)
    with fwAD.dual_level():
        d = fwAD.make_dual(x, t)
        assert_close(fwAD.unpack_dual(torch.sin(d)).tangent, torch.cos(x) * t)
        assert_close(fwAD.unpack_dual(_EARLY_SIN(d)).tangent, torch.cos(x) * t)
        assert_close(fwAD.unpack_dual(_EARLY_RELU(d)).tangent, (x > 0).double() * t)
        assert_close(fwAD.unpack_dual(torch._C.exp(d)).tangent, torch.exp(x) * t)
        assert_close(fwAD.unpack_dual(torch._C.add(d, 1.0)).tangent, t)
        assert_close(fwAD.unpack_dual(torch._C.mul(x, d)).tangent, x * t)  # the dual second
        with pytest.raises(RuntimeError, match="bound before the dual level was entered"):
            torch._C._hypot(d, d)
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


# ------------------------------------------------------------------------------------------------ issue 31 rules
# Ops that took the generic double-vjp JVP (with its warning) before they got rules: pools, normalization,
# interpolation, attention, the losses, torch.linalg. Checked against finite differences and the reverse-mode
# Jacobian (autograd.functional.jacobian, one backward per output), with the fallback's warning an error.

PROB = {"lo": 0.1, "hi": 0.9}


def _spd(a):
    """A symmetric positive-definite matrix from any square one (so that the tangent is symmetric too)."""
    return a @ a.mT + torch.eye(a.shape[-1], dtype=a.dtype) * a.shape[-1]


def _sym(a):
    return a + a.mT


def _sign_free(v):
    """Each column times its first entry: independent of the sign LAPACK picks for a singular/eigen vector."""
    return v * v[..., :1, :]


def _flat(*parts):
    return torch.cat([p.reshape(-1) for p in parts])


def _svd_parts(a, **kw):
    u, s, vh = torch.linalg.svd(a, **kw)
    return _flat(_sign_free(u), s, _sign_free(vh.mT))


def _eigh_parts(a):
    w, v = torch.linalg.eigh(a)
    return _flat(w, _sign_free(v))


def _torch_svd_parts(a):
    u, s, v = torch.svd(a)
    return _flat(_sign_free(u), s, _sign_free(v))


_IDX = torch.tensor([0, 2, 1, 3])
_RM = torch.tensor([0.3, -0.2, 0.1], dtype=D)  # running statistics (PyTorch refuses their tangents)
_RV = torch.tensor([0.5, 1.5, 0.8], dtype=D)
_W4 = torch.tensor([0.5, 1.0, 2.0, 0.7], dtype=D)
_PM = torch.tensor([[1.0, -1.0, 1.0], [-1.0, -1.0, 1.0]], dtype=D)  # +-1 targets
COVERED = [
    # pools
    ("max_pool1d", lambda x: F.max_pool1d(x, 3, 2, padding=1), [(2, 3, 9)]),
    ("max_pool1d_indices", lambda x: F.max_pool1d(x, 2, return_indices=True)[0], [(2, 3, 8)]),
    ("max_pool2d", lambda x: F.max_pool2d(x, 2), [(2, 3, 4, 6)]),
    ("max_pool2d_indices", lambda x: F.max_pool2d(x, 3, 2, 1, return_indices=True)[0], [(3, 5, 5)]),
    ("max_pool2d_with_indices", lambda x: F.max_pool2d_with_indices(x, 2, dilation=2)[0], [(1, 2, 6, 6)]),
    ("max_pool3d", lambda x: F.max_pool3d(x, 2, stride=1), [(1, 2, 3, 4, 4)]),
    ("max_pool3d_indices", lambda x: F.max_pool3d(x, 2, return_indices=True)[0], [(2, 4, 4, 4)]),
    ("adaptive_max_pool1d", lambda x: F.adaptive_max_pool1d(x, 3), [(2, 3, 7)]),
    ("adaptive_max_pool2d", lambda x: F.adaptive_max_pool2d(x, (2, 3), return_indices=True)[0], [(2, 5, 7)]),
    ("adaptive_max_pool3d", lambda x: F.adaptive_max_pool3d(x, 2), [(1, 2, 4, 5, 3)]),
    ("avg_pool2d", lambda x: F.avg_pool2d(x, 3, 2, 1, count_include_pad=False), [(2, 3, 6, 5)]),
    ("avg_pool3d", lambda x: F.avg_pool3d(x, 2, ceil_mode=True), [(1, 2, 5, 4, 3)]),
    ("adaptive_avg_pool1d", lambda x: F.adaptive_avg_pool1d(x, 4), [(2, 3, 7)]),
    ("adaptive_avg_pool3d", lambda x: F.adaptive_avg_pool3d(x, (2, 3, 2)), [(1, 2, 5, 4, 3)]),
    # normalization: training and eval, with and without the affine parameters' tangents
    (
        "batch_norm_train",
        lambda x, w, b: F.batch_norm(x, None, None, w, b, training=True),
        [(4, 3, 5), (3,), (3,)],
    ),
    (
        "batch_norm_eval",
        lambda x, w, b: F.batch_norm(x, _RM, _RV, w, b, eps=1e-3),
        [(4, 3, 2, 2), (3,), (3,)],
    ),
    ("batch_norm_1d", lambda x: F.batch_norm(x, None, None, training=True), [(5, 3)]),
    (
        "torch.batch_norm",
        lambda x, w: torch.batch_norm(x, w, None, None, None, True, 0.1, 1e-5, False),
        [(4, 3, 2), (3,)],
    ),
    ("instance_norm", lambda x, w, b: F.instance_norm(x, weight=w, bias=b), [(2, 3, 6), (3,), (3,)]),
    ("instance_norm_running", lambda x: F.instance_norm(x, _RM, _RV, use_input_stats=False), [(2, 3, 2, 3)]),
    ("group_norm", lambda x, w, b: F.group_norm(x, 2, w, b), [(2, 4, 3, 3), (4,), (4,)]),
    ("group_norm_1d", lambda x: F.group_norm(x, 3), [(2, 6, 5)]),
    ("torch.layer_norm", lambda x, w: torch.layer_norm(x, (3, 4), w), [(2, 3, 4), (3, 4)]),
    # interpolation: linear in the input whatever the mode
    ("interpolate_nearest", lambda x: F.interpolate(x, scale_factor=2), [(2, 3, 3, 4)]),
    (
        "interpolate_linear",
        lambda x: F.interpolate(x, size=7, mode="linear", align_corners=True),
        [(2, 3, 4)],
    ),
    ("interpolate_bilinear", lambda x: F.interpolate(x, size=(5, 3), mode="bilinear"), [(1, 2, 4, 4)]),
    ("interpolate_bicubic", lambda x: F.interpolate(x, scale_factor=1.5, mode="bicubic"), [(1, 2, 4, 4)]),
    (
        "interpolate_trilinear",
        lambda x: F.interpolate(x, scale_factor=2, mode="trilinear"),
        [(1, 1, 2, 3, 2)],
    ),
    ("interpolate_area", lambda x: F.interpolate(x, size=(2, 3), mode="area"), [(1, 2, 5, 6)]),
    ("upsample_bilinear", lambda x: F.upsample_bilinear(x, scale_factor=2), [(1, 2, 3, 3)]),
    # attention
    (
        "sdpa",
        lambda q, k, v: F.scaled_dot_product_attention(q, k, v),
        [(2, 3, 4, 5), (2, 3, 6, 5), (2, 3, 6, 7)],
    ),
    (
        "sdpa_mask_scale",
        lambda q, k, v, m: F.scaled_dot_product_attention(q, k, v, attn_mask=m, scale=0.7),
        [(3, 4, 5), (3, 6, 5), (3, 6, 2), (4, 6)],
    ),
    ("sdpa_causal", lambda q, k, v: F.scaled_dot_product_attention(q, k, v, is_causal=True), [(5, 3)] * 3),
    (
        "sdpa_gqa",
        lambda q, k, v: F.scaled_dot_product_attention(q, k, v, enable_gqa=True),
        [(4, 3, 2), (2, 5, 2), (2, 5, 3)],
    ),
    # losses (differences away from the kinks of l1/smooth_l1/huber with these seeds)
    ("mse_weighted", lambda x, y, w: F.mse_loss(x, y, weight=w), [(3, 4), (3, 4), ((3, 4), POS)]),
    ("l1_loss", lambda x, y: F.l1_loss(x, y, reduction="sum"), [(3, 4), (3, 4)]),
    ("l1_weighted", lambda x, y, w: F.l1_loss(x, y, weight=w), [(3, 4), (3, 4), ((3, 4), POS)]),
    ("smooth_l1_loss", lambda x, y: F.smooth_l1_loss(x, y, beta=0.5), [(3, 4), (3, 4)]),
    ("smooth_l1_none", lambda x, y: F.smooth_l1_loss(x, y, reduction="none", beta=0.3), [(3, 4), (3, 4)]),
    ("huber_loss", lambda x, y: F.huber_loss(x, y, delta=0.4), [(3, 4), (3, 4)]),
    ("huber_weighted", lambda x, y, w: F.huber_loss(x, y, delta=0.4, weight=w), [(3, 4), (3, 4), (3, 4)]),
    ("binary_cross_entropy", F.binary_cross_entropy, [((3, 4), PROB), ((3, 4), PROB)]),
    (  # a fixed weight: PyTorch's binary_cross_entropy refuses one that requires grad (the Jacobian below)
        "binary_cross_entropy_weighted",
        lambda x, y: F.binary_cross_entropy(x, y, _W4.exp(), reduction="sum"),
        [((3, 4), PROB), ((3, 4), PROB)],
    ),
    ("bce_with_logits", F.binary_cross_entropy_with_logits, [(3, 4), ((3, 4), PROB)]),
    (
        "bce_with_logits_pos_weight",
        lambda x, y: F.binary_cross_entropy_with_logits(x, y, _W4.exp(), pos_weight=_W4, reduction="none"),
        [(3, 4), ((3, 4), PROB)],
    ),
    ("kl_div", lambda x, y: F.kl_div(x, y, reduction="batchmean"), [(3, 4), ((3, 4), PROB)]),
    ("kl_div_log_target", lambda x, y: F.kl_div(x, y, reduction="sum", log_target=True), [(3, 4), (3, 4)]),
    ("cross_entropy_probs", lambda x, y: F.cross_entropy(x, y.softmax(1)), [(3, 4), (3, 4)]),
    (
        "cross_entropy_probs_weighted_smoothed",
        lambda x, y: F.cross_entropy(x, y.softmax(1), _W4, label_smoothing=0.2),
        [(3, 4, 2), (3, 4, 2)],
    ),
    (
        "cross_entropy_smoothing",
        lambda x: F.cross_entropy(x, _IDX, label_smoothing=0.1, ignore_index=3),
        [(4, 5)],
    ),
    (
        "cross_entropy_smoothing_weighted",
        lambda x: F.cross_entropy(x, _IDX, _W4.repeat(2)[:5], label_smoothing=0.3),
        [(4, 5)],
    ),
    ("nll_loss", lambda x: F.nll_loss(x, _IDX, reduction="sum"), [(4, 5)]),
    # torch.linalg
    ("solve", lambda a, b: torch.linalg.solve(_spd(a), b), [(3, 3), (3, 2)]),
    ("solve_vector", lambda a, b: torch.linalg.solve(_spd(a), b), [(2, 3, 3), (2, 3)]),
    ("solve_right", lambda a, b: torch.linalg.solve(_spd(a), b, left=False), [(3, 3), (2, 3)]),
    ("solve_ex", lambda a, b: torch.linalg.solve_ex(_spd(a), b)[0], [(3, 3), (3,)]),
    (
        "solve_triangular",
        lambda a, b: torch.linalg.solve_triangular(a + 3 * torch.eye(3, dtype=D), b, upper=True),
        [(3, 3), (3, 2)],
    ),
    (
        "solve_triangular_right_unit",
        lambda a, b: torch.linalg.solve_triangular(a, b, upper=False, left=False, unitriangular=True),
        [(3, 3), (2, 3)],
    ),
    ("slogdet", lambda a: torch.linalg.slogdet(a + 2 * torch.eye(3, dtype=D))[1], [(2, 3, 3)]),
    ("torch.slogdet", lambda a: torch.slogdet(a - 2 * torch.eye(3, dtype=D)).logabsdet, [(3, 3)]),
    ("logdet", lambda a: torch.logdet(_spd(a)), [(3, 3)]),
    ("inv_ex", lambda a: torch.linalg.inv_ex(_spd(a))[0], [(3, 3)]),
    ("cholesky", lambda a: torch.linalg.cholesky(_spd(a)), [(2, 3, 3)]),
    ("cholesky_upper", lambda a: torch.linalg.cholesky(_spd(a), upper=True), [(3, 3)]),
    ("cholesky_ex", lambda a: torch.linalg.cholesky_ex(_spd(a))[0], [(3, 3)]),
    ("qr_tall", lambda a: _flat(*torch.linalg.qr(a)), [(5, 3)]),
    ("qr_square_complete", lambda a: _flat(*torch.linalg.qr(a, mode="complete")), [(2, 3, 3)]),
    ("qr_wide", lambda a: _flat(*torch.linalg.qr(a)), [(3, 5)]),
    ("eigh", lambda a: _eigh_parts(_sym(a)), [(4, 4)]),
    ("eigh_upper", lambda a: torch.linalg.eigh(_sym(a), UPLO="U")[0], [(2, 3, 3)]),
    ("eigvalsh", lambda a: torch.linalg.eigvalsh(_sym(a)), [(2, 4, 4)]),
    ("svd_tall", lambda a: _svd_parts(a, full_matrices=False), [(5, 3)]),
    ("svd_wide", lambda a: _svd_parts(a, full_matrices=False), [(3, 5)]),
    ("svd_square_full", lambda a: _svd_parts(a), [(2, 4, 4)]),
    (
        "torch.svd",
        lambda a: _torch_svd_parts(a),
        [(5, 3)],
    ),
    ("svdvals", torch.linalg.svdvals, [(2, 4, 3)]),
    ("matrix_exp", torch.linalg.matrix_exp, [(2, 3, 3)]),
    ("torch.matrix_exp", torch.matrix_exp, [(4, 4)]),
    # the torch-level pool spellings, rearrangements, shrinks, multilinear ops
    ("torch.max_pool1d", lambda x: torch.max_pool1d(x, 3, 2), [(2, 3, 8)]),
    ("torch.max_pool2d", lambda x: torch.max_pool2d(x, 2), [(2, 3, 4, 4)]),
    ("torch.max_pool3d", lambda x: torch.max_pool3d(x, 2, 1), [(1, 2, 3, 3, 3)]),
    ("torch.adaptive_max_pool1d", lambda x: torch.adaptive_max_pool1d(x, 3)[0], [(2, 3, 7)]),
    ("torch.avg_pool1d", lambda x: torch.avg_pool1d(x, 2), [(2, 3, 6)]),
    ("torch.adaptive_avg_pool1d", lambda x: torch.adaptive_avg_pool1d(x, 4), [(2, 3, 7)]),
    ("pixel_shuffle", lambda x: F.pixel_shuffle(x, 2), [(1, 8, 2, 3)]),
    ("pixel_unshuffle", lambda x: F.pixel_unshuffle(x, 2), [(1, 2, 4, 4)]),
    ("channel_shuffle", lambda x: F.channel_shuffle(x, 2), [(1, 4, 2, 2)]),
    ("unfold", lambda x: F.unfold(x, 2, padding=1), [(1, 2, 3, 3)]),
    ("fold", lambda x: F.fold(x, (3, 3), 2), [(1, 8, 4)]),
    ("softshrink", lambda x: F.softshrink(x, 0.3), [(8,)]),
    ("hardshrink", F.hardshrink, [(8,)]),
    ("tanhshrink", F.tanhshrink, [(8,)]),
    ("prelu", F.prelu, [(2, 3, 4), (3,)]),
    ("prelu_one_slope", F.prelu, [(5,), (1,)]),
    ("einsum", lambda a, b: torch.einsum("ij,jk->ik", a, b), [(2, 3), (3, 4)]),
    ("einsum_list", lambda a, b: torch.einsum("bij,bjk->bik", [a, b]), [(2, 2, 3), (2, 3, 2)]),
    ("kron", torch.kron, [(2, 3), (3, 2)]),
    ("cross", lambda a, b: torch.cross(a, b), [(4, 3), (4, 3)]),
    ("linalg.cross", lambda a, b: torch.linalg.cross(a, b, dim=0), [(3, 2), (3, 1)]),
    # norms, distances, more linalg
    ("vector_norm", lambda x: torch.linalg.vector_norm(x, 3, (0, 2), keepdim=True), [(2, 3, 4)]),
    ("torch.norm_p", lambda x: torch.norm(x, 3, 1), [(3, 4)]),
    ("Tensor.norm_inf", lambda x: x.norm(float("inf")), [(3, 4)]),
    ("Tensor.norm_fro_dims", lambda x: x.norm("fro", (0, 1), keepdim=True), [(3, 4, 2)]),
    ("vector_norm_1", lambda x: torch.linalg.vector_norm(x, 1), [(3, 4)]),
    ("vector_norm_inf", lambda x: torch.linalg.vector_norm(x, float("inf"), -1), [(3, 4)]),
    ("vector_norm_frac", lambda x: torch.linalg.vector_norm(x, 0.5), [((3, 4), POS)]),
    ("matrix_norm_fro", lambda x: torch.linalg.matrix_norm(x), [(2, 3, 4)]),
    ("matrix_norm_nuc", lambda x: torch.linalg.matrix_norm(x, "nuc", dim=(0, 2), keepdim=True), [(3, 2, 4)]),
    ("matrix_norm_2", lambda x: torch.linalg.matrix_norm(x, 2), [(2, 3, 3)]),
    ("matrix_norm_-2", lambda x: torch.linalg.matrix_norm(x, -2), [(3, 4)]),
    ("matrix_norm_1", lambda x: torch.linalg.matrix_norm(x, 1), [(2, 3, 4)]),
    ("matrix_norm_-inf", lambda x: torch.linalg.matrix_norm(x, -float("inf"), keepdim=True), [(2, 3, 4)]),
    ("linalg.norm", lambda x: torch.linalg.norm(x), [(2, 3, 4)]),
    ("linalg.norm_matrix", lambda x: torch.linalg.norm(x, float("inf")), [(3, 4)]),
    ("linalg.norm_vector", lambda x: torch.linalg.norm(x, 4, dim=1), [(3, 4)]),
    ("cdist", torch.cdist, [(2, 4, 3), (2, 5, 3)]),
    ("cdist_p1", lambda a, b: torch.cdist(a, b, p=1.0), [(4, 3), (5, 3)]),
    ("cdist_inf", lambda a, b: torch.cdist(a, b, p=float("inf")), [(4, 3), (5, 3)]),
    ("pairwise_distance", lambda a, b: F.pairwise_distance(a, b, p=3.0, keepdim=True), [(4, 3), (4, 3)]),
    ("pdist", F.pdist, [(4, 3)]),
    ("pdist_p3", lambda x: F.pdist(x, 3.0), [(4, 3)]),
    ("normalize", F.normalize, [(3, 4)]),
    ("normalize_p1", lambda x: F.normalize(x, 1.0, 0), [(3, 4)]),
    ("cosine_similarity", lambda a, b: F.cosine_similarity(a, b, dim=-1), [(3, 4), (4,)]),
    ("rms_norm", lambda x, w: F.rms_norm(x, (4,), w), [(3, 4), (4,)]),
    ("rms_norm_eps", lambda x: F.rms_norm(x, (3, 4), eps=1e-3), [(2, 3, 4)]),
    ("matrix_power", lambda a: torch.linalg.matrix_power(a, 3), [(2, 3, 3)]),
    ("matrix_power_negative", lambda a: torch.linalg.matrix_power(_spd(a), -2), [(3, 3)]),
    ("torch.matrix_power", lambda a: torch.matrix_power(a, 2), [(3, 3)]),
    (
        "cholesky_solve",
        lambda b, a: torch.cholesky_solve(b, torch.linalg.cholesky(_spd(a))),
        [(3, 2), (3, 3)],
    ),
    (
        "cholesky_solve_upper",
        lambda b, a: torch.cholesky_solve(b, torch.linalg.cholesky(_spd(a), upper=True), upper=True),
        [(2, 3, 2), (3, 3)],
    ),
    ("cholesky_inverse", lambda a: torch.cholesky_inverse(torch.linalg.cholesky(_spd(a))), [(3, 3)]),
    # more losses and pools; the composites (poisson/margin-ranking/...) run on the duals op by op
    ("clamp_min", lambda x, m: torch.clamp_min(x, m), [(6,), (6,)]),
    ("clamp_max", lambda x: torch.clamp_max(x, 0.2), [(6,)]),
    ("hinge_embedding_loss", lambda x: F.hinge_embedding_loss(x, _PM, margin=0.5), [(2, 3)]),
    ("soft_margin_loss", lambda x: F.soft_margin_loss(x, _PM, reduction="sum"), [(2, 3)]),
    ("cosine_embedding_loss", lambda a, b: F.cosine_embedding_loss(a, b, _PM[:, 0], 0.1), [(2, 3), (2, 3)]),
    (
        "cosine_embedding_1d",
        lambda a, b: F.cosine_embedding_loss(a, b, torch.tensor(-1.0), -0.9),
        [(3,), (3,)],
    ),
    ("multi_margin_loss", lambda x: F.multi_margin_loss(x, _IDX, margin=0.7), [(4, 5)]),
    ("multi_margin_loss_p2", lambda x: F.multi_margin_loss(x, _IDX, p=2, weight=_W4.repeat(2)[:5]), [(4, 5)]),
    ("lp_pool1d", lambda x: F.lp_pool1d(x, 2.0, 2), [((2, 3, 6), POS)]),
    ("lp_pool2d", lambda x: F.lp_pool2d(x, 3.0, (2, 1), stride=1), [((1, 2, 3, 3), POS)]),
    ("gaussian_nll_loss", F.gaussian_nll_loss, [(3, 4), (3, 4), ((3, 4), POS)]),
    (
        "gaussian_nll_loss_shared",
        lambda x, y, v: F.gaussian_nll_loss(x, y, v, full=True),
        [(3, 4), (3, 4), ((3,), POS)],
    ),
    ("poisson_nll_loss", lambda x, y: F.poisson_nll_loss(x, y.abs()), [(3, 4), (3, 4)]),
    (
        "poisson_nll_loss_full",
        lambda x, y: F.poisson_nll_loss(x, y * 3, log_input=False, full=True),
        [((3, 4), POS), ((3, 4), POS)],
    ),
    ("margin_ranking_loss", lambda a, b: F.margin_ranking_loss(a, b, _PM[0], 0.1), [(3,), (3,)]),
    ("multilabel_soft_margin_loss", lambda x: F.multilabel_soft_margin_loss(x, (_PM > 0).to(D)), [(2, 3)]),
    ("triplet_margin_loss", lambda a, p, n: F.triplet_margin_loss(a, p, n, margin=2.0), [(3, 4)] * 3),
    ("local_response_norm", lambda x: F.local_response_norm(x, 3), [(2, 4, 3)]),
    ("embedding_bag", lambda w: F.embedding_bag(torch.tensor([[0, 1], [2, 4]]), w, mode="mean"), [(5, 3)]),
    ("logcumsumexp", lambda x: torch.logcumsumexp(x, 1), [(3, 5)]),
    ("cummax", lambda x: torch.cummax(x, 0).values, [(4, 3)]),
    ("cummin", lambda x: x.cummin(1)[0], [(3, 4)]),
    ("nanmean", lambda x: torch.nanmean(torch.where(x > 0.8, float("nan"), x), 1), [(3, 5)]),
    ("median", lambda x: x.median(), [(3, 5)]),
    ("median_dim", lambda x: torch.median(x, 1, keepdim=True).values, [(3, 5)]),
    ("nanmedian_dim", lambda x: torch.nanmedian(x, 0)[0], [(3, 5)]),
    ("dist", lambda a, b: torch.dist(a, b, 3), [(3, 4), (4,)]),
    ("tensordot", lambda a, b: torch.tensordot(a, b, dims=([1, 2], [0, 1])), [(2, 3, 4), (3, 4, 5)]),
    ("block_diag", lambda a, b: torch.block_diag(a, b), [(2, 3), (1, 2)]),
    ("multi_dot", lambda a, b, c: torch.linalg.multi_dot([a, b, c]), [(2, 3), (3, 4), (4, 2)]),
    (
        "tensorinv",
        lambda a: torch.linalg.tensorinv((a + 3 * torch.eye(6, dtype=D)).reshape(6, 2, 3), 1),
        [(6, 6)],
    ),
    ("tensorsolve", lambda a, b: torch.linalg.tensorsolve(_spd(a).reshape(2, 3, 6), b), [(6, 6), (2, 3)]),
    (
        "tensorsolve_dims",
        lambda a, b: torch.linalg.tensorsolve(_spd(a).reshape(6, 2, 3).movedim(0, 2), b, dims=(0, 1)),
        [(6, 6), (6,)],
    ),
    ("lu", lambda a: _flat(*torch.linalg.lu(a)[1:]), [(2, 4, 4)]),
    ("lu_factor", lambda a: torch.linalg.lu_factor(a).LU, [(4, 4)]),
    ("lu_factor_ex", lambda a: torch.linalg.lu_factor_ex(a)[0], [(2, 3, 3)]),
    ("pinv_tall", torch.linalg.pinv, [(5, 3)]),
    ("pinv_wide", torch.linalg.pinv, [(2, 3, 5)]),
    ("pinv_hermitian", lambda a: torch.linalg.pinv(_spd(a), hermitian=True), [(3, 3)]),
    ("pinverse", torch.pinverse, [(4, 3)]),
    ("lstsq", lambda a, b: torch.linalg.lstsq(a, b).solution, [(5, 3), (5, 2)]),
    ("lstsq_vector", lambda a, b: torch.linalg.lstsq(a, b, driver="gelsd").solution, [(2, 4, 3), (2, 4)]),
    ("cond", torch.linalg.cond, [(2, 3, 3)]),
    ("cond_-2", lambda a: torch.linalg.cond(a, -2), [(4, 3)]),
    ("cond_fro", lambda a: torch.linalg.cond(a + 3 * torch.eye(3, dtype=D), "fro"), [(3, 3)]),
    ("cond_inf", lambda a: torch.linalg.cond(a + 3 * torch.eye(3, dtype=D), float("inf")), [(3, 3)]),
    ("index_add", lambda a, s: a.index_add(0, torch.tensor([2, 0, 2]), s, alpha=2.0), [(4, 3), (3, 3)]),
    ("index_copy_", lambda a, s: a.clone().index_copy_(1, torch.tensor([2, 0]), s), [(4, 3), (4, 2)]),
    ("index_put", lambda a, v: a.index_put((torch.tensor([1, 3]),), v, accumulate=True), [(4, 3), (2, 3)]),
    ("scatter_src", lambda a, s: a.scatter(1, torch.tensor([[2, 0], [1, 0]]), s), [(2, 3), (2, 2)]),
    ("scatter_value", lambda a: a.scatter(1, torch.tensor([[2], [0]]), 1.5), [(2, 3)]),
    ("scatter_add", lambda a, s: torch.scatter_add(a, 0, torch.tensor([[1, 0, 1]]), s), [(2, 3), (1, 3)]),
    ("masked_scatter", lambda a, s: a.masked_scatter(torch.tensor([True, False, True]), s), [(2, 3), (2, 3)]),
]


@pytest.mark.parametrize("name,f,specs", COVERED, ids=[c[0] for c in COVERED])
def test_covered_ops_have_rules_matching_finite_differences(name, f, specs):
    torch.manual_seed(0)
    xs = _make_inputs(specs)
    ts = [rand(*x.shape) for x in xs]
    with warnings.catch_warnings():
        warnings.filterwarnings(
            "error", message="forward AD"
        )  # the generic JVP's warning: each op has a rule
        p, t = fwd(f, xs, ts)
    assert_close(p, f(*xs))
    assert_close(t, fd_jvp(f, xs, ts), rtol=1e-5, atol=1e-6)
    # against the reverse-mode Jacobian: J t = sum_j J_j t_j
    jac = AF.jacobian(f, tuple(xs))
    expect = sum((j.reshape(p.numel(), -1) @ tj.reshape(-1)).reshape(p.shape) for j, tj in zip(jac, ts))
    assert_close(t, expect, rtol=1e-7, atol=1e-9)


def test_max_pool_tangent_is_gathered_at_the_argmax():
    # the first maximum of each window takes the tangent, as the indices PyTorch returns say (ties included)
    x = torch.tensor([[[1.0, 3.0, 3.0, 0.0, 2.0, 2.0]]], dtype=D)
    v = torch.arange(6, dtype=D).reshape(1, 1, 6) + 1
    _, t = fwd(lambda a: F.max_pool1d(a, 2), [x], [v])
    out, idx = F.max_pool1d(x, 2, return_indices=True)
    assert_close(t, v.reshape(-1)[idx.reshape(-1)].reshape(out.shape))
    with fwAD.dual_level():
        vals, ind = F.max_pool1d(fwAD.make_dual(x, v), 2, return_indices=True)
        assert fwAD.unpack_dual(ind).tangent is None
        assert_close(fwAD.unpack_dual(vals).tangent, t)


def test_full_svd_and_refused_tangents():
    # the completing singular vectors of a full SVD get zero tangents (PyTorch's), the others the reduced ones'
    torch.manual_seed(1)
    a, v = rand(4, 3), rand(4, 3)
    for m, t in ((a, v), (a.mT, v.mT)):
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            for i in range(3):
                _, full = fwd(lambda x, i=i: torch.linalg.svd(x)[i], [m], [t])
                _, red = fwd(lambda x, i=i: torch.linalg.svd(x, full_matrices=False)[i], [m], [t])
                k = red.shape[-1] if i == 0 else red.shape[0] if i == 2 else 0
                part = full[..., :k] if i == 0 else full[..., :k, :] if i == 2 else full
                assert_close(part, red)
                rest = full[..., k:] if i == 0 else full[..., k:, :] if i == 2 else full[..., :0]
                assert float(rest.abs().sum()) == 0
    x = rand(4, 3)
    rm, rv = rand(3), rand(3, lo=0.5, hi=1.0)
    with fwAD.dual_level():
        d = fwAD.make_dual(rm, rand(3))
        msg = (
            "batch_norm is not differentiable wrt running_mean and running_var, they cannot have forward grad"
        )
        with pytest.raises(RuntimeError, match=msg):
            F.batch_norm(fwAD.make_dual(x, v), d, rv)
        F.batch_norm(x, d, rv, training=True)  # the running statistics are not read: no error, as PyTorch's
        msg = "The derivative of linalg.qr depends on Q, which is not computed when mode='r'."
        with pytest.raises(RuntimeError, match=re.escape(msg)):
            torch.linalg.qr(fwAD.make_dual(x, v), mode="r")
        msg = "The QR decomposition is not differentiable when mode='complete' and nrows > ncols."
        with pytest.raises(RuntimeError, match=re.escape(msg)):
            torch.linalg.qr(fwAD.make_dual(x, v), mode="complete")


def test_composite_rule_runs_op_by_op_through_a_builtin_it_calls():
    # triplet_margin_loss runs on the duals op by op; its swap path calls the builtin _C.minimum directly, which
    # hands the duals to torch.minimum's rule (no generic JVP, no warning)
    torch.manual_seed(6)
    a, p, n = rand(3, 4), rand(3, 4), rand(3, 4)
    ts = [rand(3, 4) for _ in range(3)]
    f = lambda x, y, z: F.triplet_margin_loss(x, y, z, margin=2.0, swap=True)
    fwAD._warned.discard("F.triplet_margin_loss")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        _, t = fwd(f, [a, p, n], ts)
    assert_close(t, fd_jvp(f, [a, p, n], ts))


def test_loss_weight_tangents():
    # weights' tangents count where PyTorch differentiates the weights (probability targets, the binary losses);
    # with class indices PyTorch's nll_loss holds the class weights constant and drops their tangent
    torch.manual_seed(4)
    x, w = rand(4, 5), rand(5, lo=0.5, hi=1.5)
    tx, tw = rand(4, 5), rand(5)
    y = rand(4, 5).softmax(1)
    bx, by, bw, bpw = (
        rand(4, 5),
        rand(4, 5, lo=0.1, hi=0.9),
        rand(4, 5, lo=0.5, hi=1.5),
        rand(5, lo=0.5, hi=2),
    )
    cases = [
        (lambda a, b: F.cross_entropy(a, y, b, label_smoothing=0.2), [x, w], [tx, tw]),
        (lambda a, b, p: F.binary_cross_entropy_with_logits(a, by, b, pos_weight=p), [bx, bw, bpw],
         [tx, rand(4, 5), tw]),
        (lambda a, b: F.binary_cross_entropy(a.sigmoid(), by, b), [bx, bw], [tx, rand(4, 5)]),
        (lambda a, b: F.huber_loss(a, by, weight=b, delta=0.3), [bx, bw], [tx, rand(4, 5)]),
    ]  # fmt: skip
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for f, xs, ts in cases:
            _, t = fwd(f, xs, ts)
            assert_close(t, fd_jvp(f, xs, ts))
        for f in (
            lambda a, b: F.cross_entropy(a, _IDX, b),
            lambda a, b: F.nll_loss(a.log_softmax(1), _IDX, b),
        ):
            _, t = fwd(f, [x, w], [tx, tw])
            assert_close(t, fd_jvp(lambda a, f=f: f(a, w), [x], [tx]))


def test_covered_ops_under_jacfwd_and_hessian():
    # the rules compose with vmap (jacfwd's batched tangents) and with reverse mode (forward-over-reverse)
    torch.manual_seed(2)
    x = rand(1, 2, 4, 4)
    f = lambda a: F.max_pool2d(F.group_norm(a, 1), 2).sum(0)
    assert_close(jacfwd(f)(x), jacrev(f)(x))
    A = rand(3, 3)
    g = lambda a: torch.linalg.slogdet(_spd(a))[1] + torch.linalg.svdvals(a).sum()
    assert_close(hessian(g)(A), AF.hessian(g, A), rtol=1e-6, atol=1e-8)
    y = rand(3, 4)
    h = lambda a: F.interpolate(a.unsqueeze(0), scale_factor=2, mode="linear").pow(2).sum()
    assert_close(AF.hvp(h, y, y)[1], AF.hessian(h, y).reshape(12, 12).mv(y.reshape(-1)).reshape(3, 4))


_F = "torch.nn.functional"
COVERED_ORACLE = {
    "max_pool1d": f"lambda a: {_F}.max_pool1d(a.unsqueeze(0), 2)",
    "max_pool2d_indices": f"lambda a: {_F}.max_pool2d(a.unsqueeze(0), 2, 1, return_indices=True)[0]",
    "adaptive_max_pool2d": f"lambda a: {_F}.adaptive_max_pool2d(a.unsqueeze(0), (2, 3))",
    "avg_pool3d": f"lambda a: {_F}.avg_pool3d(a.reshape(1, 1, 2, 2, 3), (1, 2, 2), 1)",
    "batch_norm": f"lambda a: {_F}.batch_norm(a, None, None, a[0].exp(), a[1], training=True)",
    "batch_norm_eval": f"lambda a: {_F}.batch_norm(a, a[0].detach(), a[1].exp().detach(), a[2])",
    "group_norm": f"lambda a: {_F}.group_norm(a.reshape(1, 6, 2), 3, a.reshape(-1)[:6])",
    "instance_norm": f"lambda a: {_F}.instance_norm(a.unsqueeze(0))",
    "bicubic": f"lambda a: {_F}.interpolate(a[None, None], size=(5, 6), mode='bicubic', align_corners=True)",
    "sdpa": f"lambda a: {_F}.scaled_dot_product_attention(a, a.flip(0), a * 2, is_causal=True)",
    "sdpa_mask": f"lambda a: {_F}.scaled_dot_product_attention(a, a, a.exp(), attn_mask=a[:, :3].T)",
    "l1": f"lambda a: {_F}.l1_loss(a, a.flip(1) * 0.5)",
    "smooth_l1": f"lambda a: {_F}.smooth_l1_loss(a, a.flip(1) * 0.5, beta=0.3)",
    "huber": f"lambda a: {_F}.huber_loss(a, a.flip(0), delta=0.2, reduction='sum')",
    "bce": f"lambda a: {_F}.binary_cross_entropy(a.sigmoid(), a.flip(0).sigmoid())",
    "bce_logits": f"lambda a: {_F}.binary_cross_entropy_with_logits(a, a.sigmoid().flip(0), "
    "pos_weight=a[0].exp().detach())",
    "kl_div": f"lambda a: {_F}.kl_div(a.log_softmax(1), a.softmax(0), reduction='batchmean')",
    "kl_div_log": f"lambda a: {_F}.kl_div(a, a.flip(1), reduction='none', log_target=True)",
    "ce_smooth": f"lambda a: {_F}.cross_entropy(a, torch.tensor([0, 2, 1]), label_smoothing=0.2)",
    "ce_smooth_weighted": f"lambda a: {_F}.cross_entropy(a, torch.tensor([0, 2, 1]), a[0].exp().detach(), "
    "label_smoothing=0.2)",
    "ce_probs": f"lambda a: {_F}.cross_entropy(a, a.flip(0).softmax(1), label_smoothing=0.1)",
    "solve": "lambda a: torch.linalg.solve(a @ a.T + 3 * torch.eye(3, dtype=a.dtype), a)",
    "solve_triangular": "lambda a: torch.linalg.solve_triangular(a[:, :3] + 3 * torch.eye(3, dtype=a.dtype), a, "
    "upper=False)",
    "slogdet": "lambda a: torch.linalg.slogdet(a[:, :3])[1]",
    "cholesky": "lambda a: torch.linalg.cholesky(a.T @ a + torch.eye(4, dtype=a.dtype))",
    "qr": "lambda a: torch.cat([p.reshape(-1) for p in torch.linalg.qr(a.T)])",
    "qr_wide": "lambda a: torch.linalg.qr(a)[1]",
    "eigh": "lambda a: torch.cat([(lambda w, v: torch.cat([w, (v * v[:1]).reshape(-1)]))"
    "(*torch.linalg.eigh(a @ a.T))])",
    "svd": "lambda a: (lambda u, s, vh: torch.cat([(u * u[:1]).reshape(-1), s, (vh * vh[:, :1]).reshape(-1)]))"
    "(*torch.linalg.svd(a, full_matrices=False))",
    "svdvals": "lambda a: torch.linalg.svdvals(a.T)",
    "matrix_exp": "lambda a: torch.linalg.matrix_exp(a[:, :3])",
    "vector_norm3": "lambda a: torch.linalg.vector_norm(a, 3, 1)",
    "matrix_norm_nuc": "lambda a: torch.linalg.matrix_norm(a, 'nuc')",
    "matrix_norm_inf": "lambda a: torch.linalg.matrix_norm(a, float('inf'))",
    "normalize": f"lambda a: {_F}.normalize(a, dim=0)",
    "cosine_similarity": f"lambda a: {_F}.cosine_similarity(a, a.flip(1))",
    "prelu": f"lambda a: {_F}.prelu(a, a[0, :1].exp())",
    "rms_norm": f"lambda a: {_F}.rms_norm(a, (4,), a[0])",
    "einsum": "lambda a: torch.einsum('ij,kj->ik', a, a.exp())",
    "kron": "lambda a: torch.kron(a, a[:2, :2])",
    "matrix_power": "lambda a: torch.linalg.matrix_power(a[:, :3], -3)",
    "cholesky_solve": "lambda a: torch.cholesky_solve(a, torch.linalg.cholesky(a @ a.T + torch.eye(3, dtype=a.dtype)))",
    "hinge": f"lambda a: {_F}.hinge_embedding_loss(a, a.detach().sign(), margin=0.5)",
    "cosine_embedding": f"lambda a: {_F}.cosine_embedding_loss(a, a.flip(1), torch.tensor([1.0, -1.0, -1.0]), -0.5)",
    "lp_pool1d": f"lambda a: {_F}.lp_pool1d(a.exp().unsqueeze(0), 3.0, 2)",
    "gaussian_nll": f"lambda a: {_F}.gaussian_nll_loss(a, a.flip(0), a.exp())",
    "poisson_nll": f"lambda a: {_F}.poisson_nll_loss(a, a.exp().flip(1), full=True)",
    "triplet": f"lambda a: {_F}.triplet_margin_loss(a, a.flip(0), a * 2, margin=3.0)",
    "pinv": "lambda a: torch.linalg.pinv(a)",
    "lstsq": "lambda a: torch.linalg.lstsq(a.T, a[0].exp()).solution",
    "cond": "lambda a: torch.linalg.cond(a[:, :3])",
    "lu": "lambda a: torch.cat([p.reshape(-1) for p in torch.linalg.lu(a[:, :3])[1:]])",
    "lu_factor": "lambda a: torch.linalg.lu_factor(a[:, 1:]).LU",
    "tensorinv": "lambda a: torch.linalg.tensorinv(a[:, :3].reshape(3, 3, 1), ind=1)",
}


def test_covered_jvps_match_pytorch():
    _oracle()
    torch.manual_seed(5)
    x, v = rand(3, 4), rand(3, 4)
    theirs = _pytorch_tangents(COVERED_ORACLE, x, v)
    for k, src in COVERED_ORACLE.items():
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            _, t = fwd(eval(src, {"torch": torch}), [x], [v])
        np.testing.assert_allclose(t.numpy(), np.array(theirs[k]), rtol=1e-9, atol=1e-11, err_msg=k)


# ------------------------------------------------------------------------------------------------ setup_context


class _ScaledExp(torch.autograd.Function):
    """PyTorch 2's style: forward without ctx, setup_context saving for backward and (save_for_forward) jvp."""

    @staticmethod
    def forward(x, scale=2.0):
        return torch.exp(x) * scale

    @staticmethod
    def setup_context(ctx, inputs, output):
        ctx.inputs = inputs
        ctx.save_for_backward(output)
        ctx.save_for_forward(output)

    @staticmethod
    def backward(ctx, g):
        (r,) = ctx.saved_tensors
        return g * r, None

    @staticmethod
    def jvp(ctx, t, t_scale):
        (r,) = ctx.saved_tensors
        return t * r


def test_setup_context_style_function():
    x0 = np.array([0.5, -1.0, 2.0])
    x = torch.tensor(x0, requires_grad=True)
    y = _ScaledExp.apply(x)
    np.testing.assert_allclose(y.detach().numpy(), 2 * np.exp(x0))
    assert y.grad_fn is not None
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), 2 * np.exp(x0))
    # keyword arguments bind to forward's parameters; setup_context sees them positionally, defaults filled
    out = _ScaledExp.apply(x.detach(), scale=3.0)
    np.testing.assert_allclose(out.numpy(), 3 * np.exp(x0))
    seen = {}

    class Spy(_ScaledExp):
        @staticmethod
        def setup_context(ctx, inputs, output):
            seen["inputs"] = inputs
            _ScaledExp.setup_context(ctx, inputs, output)

    Spy.apply(x.detach())
    assert len(seen["inputs"]) == 2 and seen["inputs"][1] == 2.0
    # forward AD: jvp reads what save_for_forward kept, also while the primal records for backward
    v = torch.tensor([1.0, 2.0, -1.0], dtype=D)
    with fwAD.dual_level():
        p, t = fwAD.unpack_dual(_ScaledExp.apply(fwAD.make_dual(x, v), 4.0))
    np.testing.assert_allclose(t.detach().numpy(), 4 * np.exp(x0) * v.numpy())
    assert p.grad_fn is not None
    _, t = jvp(lambda a: _ScaledExp.apply(a), (x.detach(),), (v,))
    np.testing.assert_allclose(t.numpy(), 2 * np.exp(x0) * v.numpy())

    # and the ctx style still passes apply's keyword arguments to forward, as PyTorch's
    class CtxStyle(torch.autograd.Function):
        @staticmethod
        def forward(ctx, a, k=1.0):
            return a * k

        @staticmethod
        def backward(ctx, g):
            return g, None

    np.testing.assert_allclose(CtxStyle.apply(x.detach(), k=5.0).numpy(), 5 * x0)


# ------------------------------------------------------------------------------------------------ attention
# nn.MultiheadAttention's forward AD runs its composite on the duals (F.linear, Tensor.bmm, softmax or sdpa, each
# with a rule) instead of the double-vjp trick: checked against finite differences with the fallback's warning an
# error, and against PyTorch's forward AD through F.multi_head_attention_forward with deterministic weights (its
# need_weights=False path only against finite differences: PyTorch's CPU flash attention has no forward AD).

_MHA_W = "torch.arange(48.0, dtype=a.dtype).reshape(12, 4).sin() * 0.5"
_MHA_B = "torch.arange(12.0, dtype=a.dtype).cos() * 0.1"
_MHA_OUT = (
    "torch.arange(16.0, dtype=a.dtype).reshape(4, 4).cos() * 0.4, torch.arange(4.0, dtype=a.dtype) * 0.05"
)
_MHA_KV = "a.detach().flip(0).tanh()"
_MHA_Q = "torch.arange(12.0, dtype=a.dtype).reshape(3, 4).sin()"
MHA_ORACLE = {
    "mha_query": f"lambda a: {_F}.multi_head_attention_forward(a, {_MHA_KV}, {_MHA_KV}, 4, 2, {_MHA_W}, {_MHA_B}, "
    f"None, None, False, 0.0, {_MHA_OUT})[0]",
    "mha_query_weights": f"lambda a: {_F}.multi_head_attention_forward(a, {_MHA_KV}, {_MHA_KV}, 4, 2, {_MHA_W}, "
    f"{_MHA_B}, None, None, False, 0.0, {_MHA_OUT}, average_attn_weights=False)[1]",
    "mha_in_proj_weight": f"lambda a: {_F}.multi_head_attention_forward({_MHA_Q}, {_MHA_Q}, {_MHA_Q}, 4, 2, "
    f"a.repeat(4, 1) * 0.5, {_MHA_B}, None, None, False, 0.0, {_MHA_OUT})[0]",
}


def test_multihead_attention_jvp_matches_pytorch():
    _oracle()
    torch.manual_seed(7)
    x, v = rand(3, 4), rand(3, 4)
    theirs = _pytorch_tangents(MHA_ORACLE, x, v)
    for k, src in MHA_ORACLE.items():
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            _, t = fwd(eval(src, {"torch": torch}), [x], [v])
        np.testing.assert_allclose(t.numpy(), np.array(theirs[k]), rtol=1e-9, atol=1e-11, err_msg=k)


@pytest.mark.parametrize("need_weights", [True, False])
@pytest.mark.parametrize("extras", [{}, {"add_bias_kv": True, "add_zero_attn": True}])
def test_multihead_attention_module_jvp_matches_finite_differences(need_weights, extras):
    torch.manual_seed(0)
    mha = torch.nn.MultiheadAttention(8, 2, dtype=D, **extras)
    params = {k: p.detach() for k, p in mha.named_parameters()}
    q, kv = rand(5, 3, 8), rand(4, 3, 8)
    mask = torch.tensor([[False, False, True, False]] * 3)

    def by_query(x):
        return mha(x, kv, kv, need_weights=need_weights, key_padding_mask=mask)[0]

    def by_in_proj(w):
        return torch.func.functional_call(
            mha, {**params, "in_proj_weight": w}, (q, kv, kv), {"need_weights": need_weights}
        )[0]

    for f, x in ((by_query, q), (by_in_proj, params["in_proj_weight"])):
        t_in = torch.randn_like(x)
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # the generic JVP's warning: the composite must not take it
            out, t = jvp(f, (x,), (t_in,))
        eps = 1e-6
        fd = (f(x + eps * t_in) - f(x - eps * t_in)) / (2 * eps)
        assert_close(out, f(x))
        assert_close(t, fd, rtol=1e-6, atol=1e-7)


def test_multihead_attention_jacfwd_matches_jacrev():
    # jacfwd vmaps the standard basis as tangents: MultiheadAttention's composite runs on batched duals
    torch.manual_seed(1)
    mha = torch.nn.MultiheadAttention(4, 2, dtype=D)
    q, kv = rand(3, 4), rand(2, 4)
    for need_weights in (True, False):
        f = lambda x, nw=need_weights: mha(x, kv, kv, need_weights=nw)[0]
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            fwd_j = jacfwd(f)(q)
        assert_close(fwd_j, jacrev(f)(q))


@pytest.mark.parametrize("mode", ["LSTM", "GRU"])
def test_recurrent_layer_jvp_by_its_ops_rules(mode):
    torch.manual_seed(2)
    rnn = getattr(torch.nn, mode)(3, 4, num_layers=2, dtype=D)
    x, t = rand(5, 2, 3), rand(5, 2, 3)

    def f(a):
        return rnn(a)[0]

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the generic JVP's warning: the steps' rules must carry the tangent
        _, tan = jvp(f, (x,), (t,))
    eps = 1e-6
    assert_close(tan, (f(x + eps * t) - f(x - eps * t)) / (2 * eps), rtol=1e-6, atol=1e-7)


def test_dual_tensor_metadata_properties_read_the_primal():
    # C++ properties of the alias would reach a builtin with the dual; they read the primal instead
    x = rand(3, 2)
    with fwAD.dual_level():
        d = fwAD.make_dual(x, rand(3, 2))
        assert (d.is_cuda, d.is_cpu, d.is_meta) == (x.is_cuda, x.is_cpu, x.is_meta)
        assert (d.itemsize, d.nbytes, d.output_nr, d.retains_grad) == (8, 48, 0, False)
        assert d.real is d
        with pytest.raises(TypeError, match="imag is not implemented for tensors with non-complex dtypes"):
            d.imag  # noqa: B018


_SCHEMA_ALIASES = [
    (alias, row[1], row[0])
    for row in torch._C._op_schema()
    for alias in re.findall(r"(\w+)(?:\[[^\]]*\])?", row[5])
    if row[1] in _jvp_rules.JVP_RULES
]


@pytest.mark.parametrize("alias,op,kind", _SCHEMA_ALIASES, ids=[a for a, _, _ in _SCHEMA_ALIASES])
def test_schema_aliases_take_their_ops_rule(alias, op, kind):
    # torch.arcsin(d) is asin's rule, not the generic JVP's warning; the tangent is the op's own
    x = torch.rand(5, dtype=torch.float64) * 0.5 + (1.5 if op == "acosh" else 0.2)
    y = torch.rand(5, dtype=torch.float64) + 1.5
    tx, ty = torch.randn(5, dtype=torch.float64), torch.randn(5, dtype=torch.float64)

    def call(name):  # looked up inside the level, as a program calls torch.arcsin(x)
        if kind == "binary":
            return lambda a, b: getattr(torch, name)(a, b)
        return lambda a, b: getattr(torch, name)(a)

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with fwAD.dual_level():
            got = fwAD.unpack_dual(call(alias)(fwAD.make_dual(x, tx), fwAD.make_dual(y, ty))).tangent
            want = fwAD.unpack_dual(call(op)(fwAD.make_dual(x, tx), fwAD.make_dual(y, ty))).tangent
    if want is None:  # comparisons: no tangent under either name
        assert got is None
        return
    assert_close(got, want)
    assert_close(got, fd_jvp(call(alias), (x, y), (tx, ty)), rtol=1e-6, atol=1e-8)
