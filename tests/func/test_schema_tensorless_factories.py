"""The factories that take no tensor, whose rules csrc/ops/ops.schema declares (`jvp: none`; `vmap: no_tensor`, and
`vmap: random_factory` for rand, randn, randint, randperm): under vmap a batched number argument is refused as PyTorch refuses it (its
.item() message, or its binding's TypeError for a float where an int goes), compared with PyTorch; the random
ones draw per entry by randomness mode; forward AD gives their results no tangent."""

import warnings

import pytest

import minitorch as torch
from minitorch.func import _batch_rules, vmap
from minitorch.func._batched import RULES
from tests.utils import cases_here_and_in_pytorch

SOURCE = r"""
def fns(torch):
    return {
        "rand": lambda v: torch.rand(v),
        "randn": lambda v: torch.randn(2, v),
        "randint": lambda v: torch.randint(v, (2,)),
        "randint_low": lambda v: torch.randint(0, v, (2,)),
        "randperm": lambda v: torch.randperm(v),
        "empty": lambda v: torch.empty(v),
        "zeros": lambda v: torch.zeros(2, v),
        "zeros_size": lambda v: torch.zeros(size=(v,)),
        "ones": lambda v: torch.ones((v, 2)),
        "arange": lambda v: torch.arange(v),
        "arange_start": lambda v: torch.arange(0, 5, v),
        "eye": lambda v: torch.eye(v),
        "eye_m": lambda v: torch.eye(2, v),
        "full": lambda v: torch.full((2,), v),
        "full_size": lambda v: torch.full((v,), 1.0),
        "scalar_tensor": lambda v: torch.scalar_tensor(v),
        "tril_indices": lambda v: torch.tril_indices(v, 3),
        "triu_indices": lambda v: torch.triu_indices(3, 3, v),
    }


def cases(torch, func):
    run = runner(lambda r: [list(r.shape), str(r.dtype)])
    out = {}
    for name, f in fns(torch).items():
        for value in (torch.tensor([3, 4]), torch.tensor([3.0, 4.0])):
            for mode in ("error", "different", "same"):
                key = f"{name} {value.dtype} {mode}"
                out[key] = run(lambda: func.vmap(f, randomness=mode)(value))
    return out
"""


def test_a_batched_number_argument_is_refused_as_pytorchs():
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no per-entry fallback (it stacked entries of different sizes)
        ours, theirs = cases_here_and_in_pytorch(SOURCE, [("torch", torch), ("torch.func", torch.func)])
    assert ours == theirs
    assert any("calling .item()" in str(r) for r in ours.values())
    assert any(r[0] == "TypeError" for r in ours.values())


def test_the_randomness_mode_draws_the_schemas_random_factories():
    # _vmap's randomness mode intercepts them by name: the names are the schema's `vmap: random_factory` rows
    declared = {n for n, k, v in torch._C._op_schema_rules() if k == "vmap" and v == "random_factory"}
    assert declared == {"rand", "randn", "randint", "randperm"}
    assert _batch_rules.RANDOM_FACTORIES == declared | {"normal"}
    xs = torch.zeros(5)
    f = {
        "rand": lambda x: torch.rand(3),
        "randn": lambda x: torch.randn(3),
        "randint": lambda x: torch.randint(0, 1000, (3,)),
        "randperm": lambda x: torch.randperm(20),
    }
    for name in declared:
        with pytest.raises(RuntimeError, match="called random operation while in randomness error mode"):
            vmap(f[name])(xs)
        different = vmap(f[name], randomness="different")(xs)
        same = vmap(f[name], randomness="same")(xs)
        assert different.shape == (5, *same.shape[1:]) and same.shape[0] == 5
        assert all(torch.equal(same[i], same[0]) for i in range(5))
        assert not all(torch.equal(different[i], different[0]) for i in range(5))


def test_forward_ad_gives_no_tangent():
    from minitorch.autograd import forward_ad as fwAD

    with fwAD.dual_level():
        for f in (lambda: torch.rand(2), lambda: torch.randint(3, (2,)), lambda: torch.randperm(3)):
            assert fwAD.unpack_dual(f()).tangent is None
        # a dual number argument is read as its primal's value (PyTorch's Scalar): the result has no tangent
        d = fwAD.make_dual(torch.tensor(2.0), torch.tensor(1.0))
        for f in (lambda: torch.full((2,), d), lambda: torch.scalar_tensor(d), lambda: torch.arange(d)):
            r = f()
            assert fwAD.unpack_dual(r).tangent is None and float(r.reshape(-1)[-1]) in (1.0, 2.0)


def test_the_factories_rules_are_the_schemas():
    rows = {(n, k): v for n, k, v in torch._C._op_schema_rules()}
    names = (
        "empty",
        "zeros",
        "ones",
        "arange",
        "eye",
        "full",
        "scalar_tensor",
        "tril_indices",
        "triu_indices",
    )
    for name in names:
        assert rows[name, "vmap"] == "no_tensor" and rows[name, "jvp"] == "none"
        assert RULES[name] is _batch_rules.no_tensor
