"""The factories of a tensor whose rules csrc/ops/ops.schema declares (`jvp: none`; vmap pointwise, random_rule,
new_factory_rule): empty_like, zeros_like, ones_like, full_like, rand_like, randn_like, randint_like, new_empty,
new_zeros, new_ones, new_full. Forward AD leaves their results without a tangent (as PyTorch's, compared), vmap
batches them without the per-entry fallback: the deterministic ones against a loop, the random ones by
randomness mode."""

import warnings

import pytest

import minitorch as torch
from minitorch.autograd import forward_ad as fwAD
from minitorch.func import vmap
from minitorch.testing import assert_close
from tests.utils import cases_here_and_in_pytorch

D = torch.float64

SOURCE = r"""
def fns(torch):
    return {
        "empty_like": lambda a: torch.empty_like(a),
        "zeros_like": lambda a: torch.zeros_like(a),
        "ones_like": lambda a: torch.ones_like(a, dtype=torch.float32),
        "full_like": lambda a: torch.full_like(a, 2.5),
        "rand_like": lambda a: torch.rand_like(a),
        "randn_like": lambda a: torch.randn_like(a),
        "randint_like": lambda a: torch.randint_like(a, 5),
        "new_empty": lambda a: a.new_empty(2, 3),
        "new_zeros": lambda a: a.new_zeros((2,)),
        "new_ones": lambda a: a.new_ones(3, dtype=torch.float32),
        "new_full": lambda a: a.new_full((2, 2), 3.0),
    }


def cases(torch, fwAD):
    run = runner(lambda r: [list(r.shape), str(r.dtype), fwAD.unpack_dual(r).tangent is None])
    x = torch.arange(12.0, dtype=torch.float64).reshape(4, 3).t()
    out = {}
    with fwAD.dual_level():
        d = fwAD.make_dual(x, torch.ones_like(x))
        for name, f in fns(torch).items():
            out[name] = run(lambda: f(d))
    return out
"""


def test_results_have_no_tangent_as_pytorchs():
    ours, theirs = cases_here_and_in_pytorch(SOURCE, [("torch", torch), ("torch.autograd.forward_ad", fwAD)])
    assert ours == theirs
    assert all(r[2] is True for r in ours.values())  # each result without a tangent


_NS = {}
exec(SOURCE, _NS)  # noqa: S102 - the source PyTorch runs too
FNS = _NS["fns"](torch)
DETERMINISTIC = ["zeros_like", "ones_like", "full_like", "new_zeros", "new_ones", "new_full"]


@pytest.mark.parametrize("strided", [False, True])
@pytest.mark.parametrize("name", DETERMINISTIC)
def test_vmap_matches_a_loop(name, strided):
    f = FNS[name]
    xs = torch.randn(4, 5, 3, dtype=D).permute(2, 1, 0) if strided else torch.randn(5, 3, 4, dtype=D)
    dim = 1 if strided else 0
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the per-entry fallback warns: each has its rule
        got = vmap(f, in_dims=dim)(xs)
    assert_close(got, torch.stack([f(x) for x in xs.unbind(dim)]))


@pytest.mark.parametrize("name", ["empty_like", "new_empty"])
def test_vmap_of_empty_factories_gives_each_entry_its_shape_and_dtype(name):
    f = FNS[name]
    xs = torch.randn(5, 3, 4, dtype=D)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = vmap(f)(xs)
    want = f(xs[0])
    assert got.shape == (5, *want.shape) and got.dtype == want.dtype


@pytest.mark.parametrize("name", ["rand_like", "randn_like", "randint_like"])
def test_vmap_of_random_factories_follows_the_randomness_mode(name):
    f = FNS[name]
    xs = torch.randn(5, 3, 4, dtype=D)
    with pytest.raises(RuntimeError, match="called random operation while in randomness error mode"):
        vmap(f)(xs)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        different = vmap(f, randomness="different")(xs)
        same = vmap(f, randomness="same")(xs)
    assert different.shape == same.shape == xs.shape
    assert all(torch.equal(same[i], same[0]) for i in range(5))
    assert not all(torch.equal(different[i], different[0]) for i in range(5))
