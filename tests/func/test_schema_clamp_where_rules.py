"""clamp, clip, clamp_min, clamp_max and where: forward-mode and batching rules declared in csrc/ops/ops.schema with
`jvp_absent: none` (an argument without a tangent is None to the rule: number or tensor bounds with or without
tangents, where's condition and number operands), and Tensor.where / Tensor.polygamma reaching the op's rule in the
op's order (self second). Each JVP against central finite differences and PyTorch's torch.func.jvp, each vmap
against a loop, strided and contiguous, with no generic-JVP or per-entry fallback warning."""

import pytest

import minitorch as torch
from minitorch.func import vmap
from tests.func import schema_rule_checks as checks
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

"""

SOURCE += checks.JVP_CASES
_NS, FNS = checks.load(SOURCE)


@pytest.mark.parametrize("layout", ["strided", "contiguous"])
@pytest.mark.parametrize("name", list(FNS))
def test_jvp_matches_finite_differences(name, layout):
    checks.check_jvp_against_finite_differences(FNS[name], layout)


def test_jvp_matches_pytorch():
    # polygamma's kernel agrees with PyTorch's to ~1e-9 (its series, not the rule under test here)
    checks.check_jvp_against_pytorch(SOURCE, _NS, lambda key: 1e-8 if key.startswith("polygamma") else 1e-12)


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
    assert checks.close(ns["cases"](torch), theirs), (ns["cases"](torch), theirs)


@pytest.mark.parametrize("strided", [False, True])
@pytest.mark.parametrize("name", list(FNS))
def test_vmap_matches_a_loop(name, strided):
    checks.check_vmap_against_a_loop(FNS[name], strided)


def test_where_of_a_condition_alone_is_still_refused_under_vmap():
    with pytest.raises(RuntimeError, match="Attempted to vmap over aten::where"):
        vmap(lambda a: torch.where(a > 0)[0])(torch.randn(3, 4))


def test_hvp_through_clamp_bounds_matches_finite_differences():
    # clamp_min/clamp_max declare `dual_term: zero` (their tangent selects by the primal's comparisons)
    def loss(a):
        return (a.clamp_min(a.sin() * 0.3) ** 3).sum() + (torch.clamp_max(a, 0.2) * a.exp()).sum()

    checks.check_hvp_against_finite_differences(loss)
