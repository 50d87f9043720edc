"""F.softplus and F.leaky_relu: forward-mode and batching rules declared on their kernels' rows of csrc/ops/ops.schema
(which bind the public parameters: input, beta, threshold, negative_slope, inplace). Each JVP against central
finite differences and PyTorch's torch.func.jvp (default and explicit arguments, the threshold branch, keywords,
in-place leaky_relu), each vmap against a loop, strided and contiguous, with no generic-JVP or per-entry fallback
warning; HVPs through both; and the rows really are the rules the public names run."""

import pytest

import minitorch as torch
from minitorch.autograd import _jvp_rules
from tests.func import schema_rule_checks as checks

# one source for both sides: ops of a (3, 4) float64 input
SOURCE = r"""
def fns(torch):
    F = torch.nn.functional
    return {
        "softplus": lambda a: F.softplus(a),
        "softplus_beta": lambda a: F.softplus(a * 3, beta=2.0),
        "softplus_threshold": lambda a: F.softplus(a * 4, 0.5, 1.0),  # both sides of the linear branch
        "softplus_keywords": lambda a: F.softplus(input=a, threshold=0.3),
        "leaky_relu": lambda a: F.leaky_relu(a),
        "leaky_relu_slope": lambda a: F.leaky_relu(a, 0.2),
        "leaky_relu_keywords": lambda a: F.leaky_relu(input=a, negative_slope=-0.5),
        "leaky_relu_inplace": lambda a: F.leaky_relu(a * 1, 0.1, inplace=True),
        "softplus_module": lambda a: torch.nn.Softplus(beta=0.5)(a),
        "leaky_relu_module": lambda a: torch.nn.LeakyReLU(0.05)(a),
    }

"""

SOURCE += checks.JVP_CASES
_NS, FNS = checks.load(SOURCE)


@pytest.mark.parametrize("layout", ["strided", "contiguous"])
@pytest.mark.parametrize("name", list(FNS))
def test_jvp_matches_finite_differences(name, layout):
    checks.check_jvp_against_finite_differences(FNS[name], layout)


def test_jvp_matches_pytorch():
    checks.check_jvp_against_pytorch(SOURCE, _NS)


@pytest.mark.parametrize("strided", [False, True])
@pytest.mark.parametrize("name", list(FNS))
def test_vmap_matches_a_loop(name, strided):
    checks.check_vmap_against_a_loop(FNS[name], strided)


def test_hvp_through_softplus_and_leaky_relu_matches_finite_differences():
    # softplus declares `dual_term: fallback` (its rule re-run under autograd), leaky_relu `zero`
    F = torch.nn.functional

    def loss(a):
        return (F.softplus(a * 2, beta=1.5) ** 3).sum() + (F.leaky_relu(a, 0.3) * a.exp()).sum()

    checks.check_hvp_against_finite_differences(loss)


def test_the_public_names_run_the_schema_rows():
    rows = {(name, key): value for name, key, value in torch._C._op_schema_rules()}
    for name in ("softplus", "leaky_relu"):
        assert (name, "rules") not in rows and rows[(name, "vmap")] == "pointwise"
        assert _jvp_rules.JVP_RULES["F." + name] is _jvp_rules.JVP_RULES[name]
        assert "F." + name not in _jvp_rules._COMPOSITE_RULES
    assert rows[("softplus", "dual_term")] == "fallback" and rows[("leaky_relu", "dual_term")] == "zero"
