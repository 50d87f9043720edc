"""torch.segment_reduce: values against a NumPy loop in float64, gradients (finite differences and PyTorch's own
tie/zero rules through the oracle), offsets, axis, initial, unsafe, and PyTorch's errors."""

import numpy as np
import pytest
from utils import cases_here_and_in_pytorch

import minitorch

REDUCES = ["sum", "mean", "max", "min", "prod"]


def reference(data, lengths, reduce, initial=None):
    """segment_reduce along axis 0 with 1-D lengths, one segment at a time in float64"""
    out, start = [], 0
    for n in lengths:
        seg = data[start : start + n]
        start += n
        if reduce == "mean":
            if n == 0:
                r = np.full(data.shape[1:], np.nan if initial is None else initial)
            else:
                r = (seg.sum(0) + (0 if initial is None else initial)) / n
        else:
            fn = {"sum": np.sum, "prod": np.prod, "max": np.max, "min": np.min}[reduce]
            ident = {"sum": 0.0, "prod": 1.0, "max": -np.inf, "min": np.inf}[reduce]
            init = ident if initial is None else initial
            stacked = np.concatenate([np.full((1,) + data.shape[1:], init), seg])
            r = fn(stacked, 0)
        out.append(r)
    return np.stack(out) if out else np.zeros((0,) + data.shape[1:])


@pytest.mark.parametrize("reduce", REDUCES)
@pytest.mark.parametrize("initial", [None, 0.5])
def test_values_match_numpy(reduce, initial):
    rng = np.random.default_rng(0)
    data = rng.standard_normal((9, 3, 2))
    lengths = [3, 0, 4, 1, 1]
    got = minitorch.segment_reduce(
        minitorch.tensor(data), reduce, lengths=minitorch.tensor(lengths), initial=initial
    )
    np.testing.assert_allclose(got.numpy(), reference(data, lengths, reduce, initial), rtol=1e-12)


@pytest.mark.parametrize("reduce", REDUCES)
def test_offsets_axis_and_non_contiguous_data(reduce):
    rng = np.random.default_rng(1)
    base = rng.standard_normal((5, 8))
    data = minitorch.tensor(base).t()  # (8, 5), non-contiguous
    lengths = [2, 3, 0, 3]
    by_len = minitorch.segment_reduce(data, reduce, lengths=minitorch.tensor(lengths))
    by_off = minitorch.segment_reduce(data, reduce, offsets=minitorch.tensor([0, 2, 5, 5, 8]))
    expect = reference(base.T, lengths, reduce)
    np.testing.assert_allclose(by_len.numpy(), expect, rtol=1e-12)
    np.testing.assert_allclose(by_off.numpy(), expect, rtol=1e-12)
    # axis 1 with 2-D lengths: one row of lengths per index of dim 0
    rows = [[3, 5], [8, 0], [2, 6]]
    got = minitorch.segment_reduce(minitorch.tensor(base[:3]), reduce, lengths=minitorch.tensor(rows), axis=1)
    for i, r in enumerate(rows):
        np.testing.assert_allclose(got[i].numpy(), reference(base[i], r, reduce), rtol=1e-12)


@pytest.mark.parametrize("reduce", REDUCES)
def test_gradient_matches_finite_differences(reduce):
    rng = np.random.default_rng(2)
    # distinct values keep max/min away from ties, no zeros keep prod's division exact
    x = minitorch.tensor(rng.permutation(24).reshape(8, 3) / 7.0 + 0.5, requires_grad=True)
    lengths = minitorch.tensor([3, 2, 3])
    assert minitorch.autograd.gradcheck(
        lambda t: minitorch.segment_reduce(t, reduce, lengths=lengths, initial=1.55), (x,)
    )
    offsets = minitorch.tensor([0, 5, 8])
    assert minitorch.autograd.gradcheck(lambda t: minitorch.segment_reduce(t, reduce, offsets=offsets), (x,))


def test_dtypes_and_empty():
    for dt in (minitorch.float32, minitorch.float16, minitorch.bfloat16):
        x = minitorch.arange(12.0).reshape(3, 4).to(dt)
        got = minitorch.segment_reduce(x, "sum", lengths=minitorch.tensor([1, 2], dtype=minitorch.int32))
        assert got.dtype == dt
        np.testing.assert_allclose(got.float().numpy(), [[0, 1, 2, 3], [12, 14, 16, 18]])
    assert minitorch.segment_reduce(minitorch.ones(0), "sum", lengths=minitorch.tensor([0, 0])).tolist() == [
        0,
        0,
    ]
    assert minitorch.segment_reduce(minitorch.ones(2, 0), "max", lengths=minitorch.tensor([2])).shape == (
        1,
        0,
    )


CASES = r"""
def cases(torch):
    def enc(t):
        return [list(t.shape), str(t.dtype), [str(v) for v in t.detach().double().reshape(-1).tolist()]]

    run = runner(enc)
    x = torch.arange(12.0).reshape(3, 4)
    L = torch.tensor([1, 2])
    nan = torch.tensor([1.0, float("nan"), 3.0, 0.0, 0.0, 2.0])
    out = {}
    out["amax"] = run(lambda: torch.segment_reduce(x, "amax", lengths=L))
    out["both"] = run(lambda: torch.segment_reduce(x, "sum", lengths=torch.tensor([3]), offsets=torch.tensor([0, 1, 3])))
    out["noinputs"] = run(lambda: torch.segment_reduce(x, "foo"))
    out["indices"] = run(lambda: torch.segment_reduce(x, "foo", indices=L))
    out["badreduce"] = run(lambda: torch.segment_reduce(x, "Sum", lengths=L))
    out["axis"] = run(lambda: torch.segment_reduce(x, "sum", lengths=L, axis=5))
    out["axislast"] = run(lambda: torch.segment_reduce(x, "sum", lengths=L, axis=1))
    out["rank"] = run(lambda: torch.segment_reduce(torch.tensor(3.0), "sum", lengths=torch.tensor([1])))
    out["neg"] = run(lambda: torch.segment_reduce(x, "sum", lengths=torch.tensor([4, -1])))
    out["sumcheck"] = run(lambda: torch.segment_reduce(x, "sum", lengths=torch.tensor([1, 1])))
    out["unsafe"] = run(lambda: torch.segment_reduce(x, "sum", lengths=torch.tensor([1, 1]), unsafe=True))
    out["emptylen"] = run(lambda: torch.segment_reduce(x, "sum", lengths=torch.tensor([], dtype=torch.long)))
    out["floatlen"] = run(lambda: torch.segment_reduce(x, "sum", lengths=torch.tensor([1.0, 2.0])))
    out["floatoff"] = run(lambda: torch.segment_reduce(x, "sum", offsets=torch.tensor([0.0, 3.0])))
    out["intdata"] = run(lambda: torch.segment_reduce(x.int(), "sum", lengths=L))
    out["cplx"] = run(lambda: torch.segment_reduce(x.to(torch.complex64), "sum", lengths=L))
    out["decreasing"] = run(lambda: torch.segment_reduce(x, "sum", offsets=torch.tensor([0, 2, 1])))
    out["offstart"] = run(lambda: torch.segment_reduce(x, "sum", offsets=torch.tensor([1, 1, 3])))
    out["overflow"] = run(lambda: torch.segment_reduce(x, "sum", lengths=L, initial=1e300))
    out["halfover"] = run(lambda: torch.segment_reduce(x.half(), "sum", lengths=L, initial=1e6))
    out["cplxinit"] = run(lambda: torch.segment_reduce(x, "sum", lengths=L, initial=1 + 2j))
    out["cplxinit64"] = run(lambda: torch.segment_reduce(x.double(), "sum", lengths=L, initial=1 + 2j))
    out["boolinit"] = run(lambda: torch.segment_reduce(x, "prod", lengths=L, initial=True))
    out["strinit"] = run(lambda: torch.segment_reduce(x, "sum", lengths=L, initial="a"))
    out["listlen"] = run(lambda: torch.segment_reduce(x, "sum", lengths=[1, 2]))
    out["meanempty"] = run(lambda: torch.segment_reduce(x, "mean", lengths=torch.tensor([0, 3])))
    out["meaninit"] = run(lambda: torch.segment_reduce(x, "mean", lengths=torch.tensor([0, 3]), initial=2))
    for r in ("max", "min", "prod", "mean"):
        out["nan" + r] = run(lambda: torch.segment_reduce(nan, r, lengths=torch.tensor([2, 2, 2])))
    for unsafe in (False, True):
        meta = lambda: torch.segment_reduce(x.to("meta"), "sum", lengths=L.to("meta"), unsafe=unsafe)
        out[f"meta{unsafe}"] = run(lambda: torch.tensor(list(meta().shape) + [meta().is_meta]))

    # gradients: ties, NaNs, zeros, initial
    def grad(values, reduce, lengths, g, **kw):
        t = torch.tensor(values, dtype=torch.float64, requires_grad=True)
        o = torch.segment_reduce(t, reduce, lengths=torch.tensor(lengths), **kw)
        return torch.autograd.grad(o, t, torch.tensor(g, dtype=torch.float64))[0]

    ties = [3.0, 3.0, 3.0, 1.0, 1.0]
    for r in REDUCES:
        out["ties" + r] = run(lambda: grad(ties, r, [3, 2], [-3.0, 6.0]))
        out["tiesinit" + r] = run(lambda: grad(ties, r, [3, 2], [-3.0, 6.0], initial=5.0))
    zeros = [0.0, 2.0, 0.0, 0.0, 0.0, 5.0, float("nan"), 1.0, 2.0, 0.0]
    for r in REDUCES:
        out["zeros" + r] = run(lambda: grad(zeros, r, [2, 2, 2, 2, 2], [1.0, 2.0, 3.0, 4.0, 5.0]))
        out["empty" + r] = run(lambda: grad([1.0, 2.0], r, [0, 2, 0], [1.0, 2.0, 3.0]))

    def twice():
        t = torch.tensor([1.0, 2.0, 3.0], dtype=torch.float64, requires_grad=True)
        o = torch.segment_reduce(t, "sum", lengths=torch.tensor([1, 2]))
        g = torch.autograd.grad(o, t, torch.ones(2, dtype=torch.float64), create_graph=True)[0]
        g.sum().backward()
        return g

    out["twice"] = run(twice)
    return out


REDUCES = ["sum", "mean", "max", "min", "prod"]
"""


def test_matches_pytorch():
    ours, theirs = cases_here_and_in_pytorch(CASES, [("torch", minitorch)])
    # PyTorch reads past lengths that sum beyond the data when unsafe: only the values of the covered ones
    assert ours.keys() == theirs.keys()
    for k in theirs:
        assert ours[k] == theirs[k], k
