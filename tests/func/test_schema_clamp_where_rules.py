"""clamp, clip, clamp_min, clamp_max and where: forward-mode and batching rules declared in csrc/ops/ops.schema with
`jvp_absent: none` (an argument without a tangent is None to the rule: number or tensor bounds with or without
tangents, where's condition and number operands), and Tensor.where / Tensor.polygamma reaching the op's rule in the
op's order (self second). Each JVP against central finite differences and PyTorch's torch.func.jvp, each vmap
against a loop, strided and contiguous, with no generic-JVP or per-entry fallback warning."""

import warnings

import pytest

import minitorch as torch
from minitorch.func import jvp, vmap
from minitorch.testing import assert_close
from tests.utils import CASE_HELPERS, cases_in_pytorch

D = torch.float64

# one source for both sides: ops of a (3, 4) float64 input; fixed tensors carry no tangent
SOURCE = r"""
def fns(torch):
    lo = torch.linspace(-1.0, -0.1, 12, dtype=torch.float64).reshape(3, 4)
    hi = torch.linspace(0.9, 0.05, 12, dtype=torch.float64).reshape(4, 3).t()
    fixed = torch.tensor([[0.3, -0.8, 1.2, 0.05], [-0.4, 0.7, -1.1, 0.2], [0.9, -0.15, 0.45, -0.6]], dtype=torch.float64)
    cond = torch.tensor([[True, False, True, False], [False, False, True, True], [True, True, False, False]])
    return {
        "clamp_numbers": lambda a: a.clamp(-0.5, 0.5),
        "clamp_min_number": lambda a: torch.clamp(a, min=0.0),
        "clip_max_number": lambda a: a.clip(max=0.2),
        "clamp_fixed_tensors": lambda a: a.clamp(lo, hi),
        "clamp_dual_tensors": lambda a: torch.clamp(a, a.sin() - 0.5, a.cos() + 0.5),
        "clamp_dual_bounds_fixed_self": lambda a: torch.clamp(fixed, a.sin() - 0.5, a.cos() + 0.2),
        "clamp_one_tensor": lambda a: torch.clamp(a, min=a * 0.5),
        "clip_fixed_max": lambda a: torch.clip(a, max=hi),
        "clamp_": lambda a: (a * 1).clamp_(-0.3, 0.3),
        "clip_tensors_": lambda a: (a * 1).clip_(lo, a.exp() - 0.8),
        "clamp_min": lambda a: a.clamp_min(0.1),
        "clamp_min_tensor": lambda a: torch.clamp_min(a, a.exp() - 1.5),
        "clamp_min_fixed_self": lambda a: torch.clamp_min(fixed, a),
        "clamp_max": lambda a: torch.clamp_max(a, -0.1),
        "clamp_max_fixed": lambda a: a.clamp_max(hi),
        "clamp_min_": lambda a: (a * 1).clamp_min_(0.0),
        "clamp_max_": lambda a: (a * 1).clamp_max_(lo),
        "where_number": lambda a: torch.where(cond, a, 0.0),
        "where_number_first": lambda a: torch.where(cond, 1.5, a),
        "where_both": lambda a: torch.where(a > 0, a.exp(), a * a),
        "where_fixed_input": lambda a: torch.where(cond, fixed, a),
        "where_keywords": lambda a: torch.where(cond, input=a, other=fixed),
        "where_method": lambda a: a.where(cond, a.sin()),
        "where_method_number": lambda a: a.where(cond, 2.0),
        "where_method_fixed_self": lambda a: fixed.where(a > 0, a),
        "where_method_keywords": lambda a: a.where(condition=cond, other=a * 3),
        "polygamma_method": lambda a: (a.abs() + 0.5).polygamma(1),
        "polygamma": lambda a: torch.polygamma(2, a.abs() + 0.5),
        "polygamma_": lambda a: (a.abs() + 0.5).polygamma_(1),
    }


def cases(torch, data):
    run = runner(lambda r: [r[0].tolist(), r[1].tolist()])
    base = torch.tensor(data["x"], dtype=torch.float64).t()  # (3, 4), strided
    tan = torch.tensor(data["t"], dtype=torch.float64).t()
    out = {}
    for layout, (x, t) in {"strided": (base, tan), "contiguous": (base.contiguous(), tan.contiguous())}.items():
        for name, f in fns(torch).items():
            out[name + "/" + layout] = run(lambda: torch.func.jvp(f, (x,), (t,)))
    return out
"""

_NS = {}
exec(CASE_HELPERS + SOURCE, _NS)  # noqa: S102 - the source PyTorch runs too
FNS = _NS["fns"](torch)


def _inputs(layout):
    torch.manual_seed(3)
    x, t = torch.randn(4, 3, dtype=D).t(), torch.randn(4, 3, dtype=D).t()
    return (x, t) if layout == "strided" else (x.contiguous(), t.contiguous())


@pytest.mark.parametrize("layout", ["strided", "contiguous"])
@pytest.mark.parametrize("name", list(FNS))
def test_jvp_matches_finite_differences(name, layout):
    f = FNS[name]
    x, t = _inputs(layout)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the generic (double-vjp) JVP would warn: each op has its rule
        p, tangent = jvp(f, (x,), (t,))
    assert_close(p, f(x))
    eps = 1e-6
    fd = (f(x + eps * t) - f(x - eps * t)) / (2 * eps)
    assert_close(tangent, fd, rtol=1e-6, atol=1e-7)


def _close(a, b, rel=1e-12):
    """Nested lists equal to rel (an error case's [type, message] exactly)."""
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_close(x, y, rel) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_close(a[k], b[k], rel) for k in a)
    if isinstance(a, str) or isinstance(b, str):
        return a == b
    return a == pytest.approx(b, rel=rel, abs=rel)


def test_jvp_matches_pytorch():
    torch.manual_seed(4)
    data = {"x": torch.randn(4, 3, dtype=D).tolist(), "t": torch.randn(4, 3, dtype=D).tolist()}
    theirs = cases_in_pytorch(SOURCE, [("torch", torch)], data)
    ours = _NS["cases"](torch, data)
    assert set(ours) == set(theirs)
    for key in ours:
        # polygamma's kernel agrees with PyTorch's to ~1e-9 (its series, not the rule under test here)
        rel = 1e-8 if key.startswith("polygamma") else 1e-12
        assert _close(ours[key], theirs[key], rel), (key, ours[key], theirs[key])


def test_ties_and_absent_tangents_match_pytorch():
    # at a bound (and a tie of two tensor bounds) the rules pick PyTorch's tangent: 0 at a number bound, the mean
    # of x's and a tensor bound's; a bound or operand without a tangent contributes none
    source = r"""
def cases(torch):
    run = runner(lambda r: r[1].tolist())
    x = torch.tensor([-1.0, 0.0, 0.5, 1.0, 2.0], dtype=torch.float64)
    t = torch.tensor([1.0, 2.0, 3.0, 4.0, 5.0], dtype=torch.float64)
    b = torch.tensor([0.0, 0.0, 0.5, 2.0, 1.0], dtype=torch.float64)
    return {
        "number_bounds": run(lambda: torch.func.jvp(lambda a: a.clamp(0.0, 1.0), (x,), (t,))),
        "tensor_ties": run(lambda: torch.func.jvp(lambda a: a.clamp(b, b + a * 0), (x,), (t,))),
        "min_tie": run(lambda: torch.func.jvp(lambda a: torch.clamp_min(a, b * 2), (x,), (t,))),
        "bound_only": run(lambda: torch.func.jvp(lambda c: torch.clamp_max(x, c), (b,), (t,))),
        "where_other_only": run(lambda: torch.func.jvp(lambda c: torch.where(x > 0, x, c), (b,), (t,))),
    }
"""
    ns = {}
    exec(CASE_HELPERS + source, ns)  # noqa: S102 - the source PyTorch runs too
    theirs = cases_in_pytorch(source, [("torch", torch)])
    assert _close(ns["cases"](torch), theirs), (ns["cases"](torch), theirs)


def _loop(f, xs):
    return torch.stack([f(x) for x in xs])


@pytest.mark.parametrize("strided", [False, True])
@pytest.mark.parametrize("name", list(FNS))
def test_vmap_matches_a_loop(name, strided):
    f = FNS[name]
    torch.manual_seed(5)
    if strided:  # the batch dim in the middle of a transposed buffer: the batched value is not contiguous
        xs = torch.randn(4, 5, 3, dtype=D).permute(2, 1, 0)
        got_fn, want = vmap(f, in_dims=1), _loop(f, xs.unbind(1))
    else:
        xs = torch.randn(5, 3, 4, dtype=D)
        got_fn, want = vmap(f), _loop(f, xs.unbind(0))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the per-entry fallback warns: each op has its rule
        got = got_fn(xs)
    assert_close(got, want)


def test_where_of_a_condition_alone_is_still_refused_under_vmap():
    with pytest.raises(RuntimeError, match="Attempted to vmap over aten::where"):
        vmap(lambda a: torch.where(a > 0)[0])(torch.randn(3, 4))


def test_hvp_through_clamp_bounds_matches_finite_differences():
    # clamp_min/clamp_max declare `dual_term: zero` (their tangent selects by the primal's comparisons)
    from minitorch.autograd import forward_ad as fwAD

    def loss(a):
        return (a.clamp_min(a.sin() * 0.3) ** 3).sum() + (torch.clamp_max(a, 0.2) * a.exp()).sum()

    torch.manual_seed(6)
    x, v = torch.randn(3, 4, dtype=D), torch.randn(3, 4, dtype=D)
    xr = x.clone().requires_grad_()
    with fwAD.dual_level():
        (g,) = torch.autograd.grad(loss(fwAD.make_dual(xr, v)), xr)
        got = fwAD.unpack_dual(g).tangent
    eps = 1e-6
    fd = (torch.func.grad(loss)(x + eps * v) - torch.func.grad(loss)(x - eps * v)) / (2 * eps)
    assert_close(got, fd, rtol=1e-5, atol=1e-6)
