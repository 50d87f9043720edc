# torch.round's decimals overload (PyTorch's round.decimals) and special.round, which shares it.
import numpy as np
import pytest

import minitorch as torch
import minitorch.autograd.forward_ad as fwAD
from tests.utils import run_oracle

DTYPES = ["float16", "bfloat16", "float32", "float64"]
DECIMALS = range(-3, 7)


def _values():
    rng = np.random.default_rng(7)
    return np.concatenate(
        [
            rng.uniform(-10, 10, 1500),
            rng.uniform(-1e4, 1e4, 500),
            rng.standard_normal(500) * 1e-3,
            # near the halfway points the products round to
            np.round(rng.uniform(-100, 100, 500), 3) + 0.0005,
            [0.0, -0.0, np.inf, -np.inf, np.nan, 0.5, 1.5, 2.5, 0.15, 0.25, 0.35, 65504.0, 1e38, -3e38],
        ]
    )


def _bits_equal(got, want):
    same = (got == want) & (np.signbit(got) == np.signbit(want))
    return bool(np.all(same | (np.isnan(got) & np.isnan(want))))


def _formula(x64, dt, d):
    """PyTorch's kernel in NumPy: the float16/float32/float64 input, computed in its opmath (float32 for
    float16), the power of ten rounded to it, the result rounded back once."""
    x = x64.astype(dt)
    op = np.float32 if dt == np.float16 else dt
    p = op(10.0 ** abs(d))
    y = x.astype(op)
    r = np.rint(y * p) / p if d > 0 else np.rint(y / p) * p
    return r.astype(dt)


_ORACLE = """
import json, sys, torch
data = json.loads(sys.stdin.read())
out = {}
for dt in data["dtypes"]:
    t = torch.tensor(data["x"], dtype=torch.float64).to(getattr(torch, dt))
    for d in data["decimals"]:
        out[f"{dt} {d}"] = torch.round(t, decimals=d).double().tolist()
print(json.dumps(out))
"""


def test_values_match_pytorch_bit_for_bit():
    x = _values()
    res = run_oracle(_ORACLE, {"x": x.tolist(), "dtypes": DTYPES, "decimals": list(DECIMALS)})
    for dt in DTYPES:
        t = torch.tensor(x, dtype=torch.float64).to(getattr(torch, dt))
        for d in DECIMALS:
            got = torch.round(t, decimals=d).double().numpy()
            assert _bits_equal(got, np.array(res[f"{dt} {d}"])), (dt, d)


@pytest.mark.parametrize("dt", [np.float16, np.float32, np.float64])
def test_values_match_the_formula_in_numpy(dt):
    """Without the oracle: the same formula computed in NumPy's IEEE arithmetic, bit for bit."""
    x = _values()
    with np.errstate(over="ignore"):  # 1e38 past float16, inf times 10^d
        t = torch.from_numpy(x.astype(dt))
        wants = {d: _formula(x, dt, d) for d in DECIMALS}
    for d, want in wants.items():
        assert _bits_equal(torch.round(t, decimals=d).numpy(), want), d
    # halves go to even: 0.25 * 10 is 2.5 (to 2), 0.35 * 10 rounds up to 3.5 (to 4); 2.5 and 125 have no digits
    # to drop
    r = torch.round(torch.tensor([0.25, 0.35, -1.5, 2.5, 125.0], dtype=torch.float64), decimals=1)
    assert r.tolist() == [0.2, 0.4, -1.5, 2.5, 125.0]
    # float64 is NumPy's own np.round (the same formula)
    if dt == np.float64:
        for d in DECIMALS:
            assert _bits_equal(torch.round(t, decimals=d).numpy(), np.round(x, d)), d


def test_bfloat16_computes_in_float32_and_rounds_once():
    x = torch.tensor([1.2265625, -3.140625, 100.5, 0.0078125], dtype=torch.bfloat16)
    for d in (-2, -1, 1, 2, 3):
        want = torch.round(x.float(), decimals=d).to(torch.bfloat16)
        assert torch.equal(torch.round(x, decimals=d), want), d


def test_spellings_out_inplace_noncontiguous_empty():
    base = torch.tensor([[1.234, -5.678, 9.0049], [0.05, 123.456, -0.0051]], dtype=torch.float64)
    want = torch.from_numpy(np.round(base.numpy(), 2))
    assert torch.equal(torch.round(base, decimals=2), want)
    assert torch.equal(base.round(decimals=2), want)
    assert torch.equal(torch.special.round(base, decimals=2), want)
    nc = base.t()  # non-contiguous
    assert not nc.is_contiguous() and torch.equal(torch.round(nc, decimals=2), want.t())
    y = base.clone()
    assert y.round_(decimals=2) is y and torch.equal(y, want)
    y = base.clone().t()
    assert torch.round_(y, decimals=2) is y and torch.equal(y, want.t())
    out = torch.empty(2, 3, dtype=torch.float64)
    assert torch.round(base, decimals=2, out=out) is out and torch.equal(out, want)
    # an op of its input's own dtype: PyTorch's out must have that dtype, castable or not
    with pytest.raises(RuntimeError, match="^Found dtype Float but expected Double$"):
        torch.round(base, decimals=2, out=torch.empty(2, 3, dtype=torch.float32))
    with pytest.raises(RuntimeError, match="^Found dtype Long but expected Double$"):
        torch.round(base, decimals=2, out=torch.empty(2, 3, dtype=torch.long))
    for t in (torch.empty(0), torch.empty(3, 0, dtype=torch.float16)):
        r = torch.round(t, decimals=1)
        assert r.shape == t.shape and r.dtype == t.dtype
    # 0-dim, and decimals=0 is round
    assert torch.round(torch.tensor(2.5), decimals=0).item() == 2.0
    assert torch.round(torch.tensor(-0.049), decimals=1).item() == 0.0
    assert np.signbit(torch.round(torch.tensor(-0.049), decimals=1).item())
    # powers of ten past the type: 10^39 is inf in float32 (x * inf / inf is NaN), 10^-50 a zero divisor
    assert np.isnan(torch.round(torch.tensor([1.25]), decimals=39).item())
    assert np.isnan(torch.round(torch.tensor([1.25]), decimals=-50).item())


def test_refusals_in_pytorchs_words():
    for t, name in (
        (torch.tensor([1, 2]), "Long"),
        (torch.tensor([True]), "Bool"),
        (torch.tensor([1j]), "ComplexFloat"),
    ):
        with pytest.raises(NotImplementedError, match=f"^\"round_cpu\" not implemented for '{name}'$"):
            torch.round(t, decimals=1)
        with pytest.raises(NotImplementedError, match=f"^\"round_vml_cpu\" not implemented for '{name}'$"):
            torch.round(t, decimals=0)
        with pytest.raises(NotImplementedError, match=f"^\"round_vml_cpu\" not implemented for '{name}'$"):
            torch.special.round(t)
        with pytest.raises(NotImplementedError, match=f"^\"round_cpu\" not implemented for '{name}'$"):
            t.clone().round_(decimals=-1)
    # without decimals, integers stay as they are
    assert torch.round(torch.tensor([1, 2])).tolist() == [1, 2]
    assert torch.tensor([3]).round_().tolist() == [3]
    x = torch.tensor([1.5])
    with pytest.raises(TypeError, match=r"^round\(\): argument 'decimals' must be int, not float$"):
        x.round(decimals=1.0)
    with pytest.raises(TypeError, match=r"^round_\(\): argument 'decimals' must be int, not str$"):
        x.round_(decimals="a")
    with pytest.raises(TypeError, match="decimals"):
        torch.round(x, decimals=1.0)
    with pytest.raises(TypeError, match="decimals"):
        torch.round(x, decimals=True)
    with pytest.raises(TypeError):
        torch.round(x, 1)  # keyword-only
    # PyTorch's int takes a 0-dim integer tensor
    assert torch.round(torch.tensor([1.25]), decimals=torch.tensor(1)).tolist() == pytest.approx([1.2])


def test_gradient_forward_ad_and_vmap_are_rounds():
    x = torch.tensor([1.26, -2.35, 0.5], dtype=torch.float64, requires_grad=True)
    y = torch.round(x, decimals=1)
    assert y.grad_fn.name() == "RoundBackward1"  # PyTorch's node of round.decimals
    assert torch.round(x.detach(), decimals=1).grad_fn is None
    (y * torch.tensor([1.0, 2.0, 3.0], dtype=torch.float64)).sum().backward()
    assert x.grad.tolist() == [0.0, 0.0, 0.0]
    with fwAD.dual_level():
        d = fwAD.make_dual(x.detach(), torch.ones(3, dtype=torch.float64))
        p, t = fwAD.unpack_dual(d.round(decimals=-1))
        assert p.tolist() == [0.0, -0.0, 0.0] and t.tolist() == [0.0, 0.0, 0.0]
    b = torch.randn(4, 5)
    got = torch.vmap(lambda v: torch.round(v, decimals=2))(b)
    assert torch.equal(got, torch.round(b, decimals=2))
