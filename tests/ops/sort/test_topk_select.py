"""topk's selection of k < n on the CPU (integer keys, a buffer of candidates cut back by nth_element): values
against PyTorch (the oracle) and a stable NumPy order, indices exactly where the order is strict and as sets
where values tie, NaN largest, -0.0 beside 0.0, sorted=True and False, largest both ways, rows long enough to
cut the buffer many times (ascending and descending inputs, the worst orders for a running bar), every
sortable dtype, a middle dim and out=."""

import json

import numpy as np
import pytest
from utils import ALL_DTYPES, make_array, run_oracle, to_np

import minitorch

SORTABLE = [d for d in ALL_DTYPES if d != minitorch.bool]
NAME = {d: str(d).split(".")[-1] for d in SORTABLE}


def stable_topk(a, k, largest):
    """(values, indices) of the first k in RowOrder's order along the last dim: NaN largest, ties by position."""
    a = np.asarray(a, dtype=np.float64)
    key = np.where(np.isnan(a), np.inf, a)
    nan = np.isnan(a)
    out_i = np.empty(a.shape[:-1] + (k,), np.int64)
    for pos in np.ndindex(a.shape[:-1]):
        row, rn = key[pos], nan[pos]
        # lexsort: last key primary; NaN above +inf
        order = (
            np.lexsort((np.arange(row.size), -row, ~rn))
            if largest
            else np.lexsort((np.arange(row.size), row, rn))
        )
        out_i[pos] = order[:k]
    return np.take_along_axis(a, out_i, -1), out_i


def rows_for(dtype, rng, shape, kind):
    if kind == "ties":
        a = rng.integers(0, 6, shape).astype(np.float64) - (0 if dtype == minitorch.uint8 else 3)
    elif kind == "ascending":
        a = np.broadcast_to(np.arange(shape[-1], dtype=np.float64), shape).copy() % 120
    elif kind == "descending":
        a = np.broadcast_to(-np.arange(shape[-1], dtype=np.float64), shape).copy() % 120
    else:
        a = make_array(shape, dtype, rng, -100, 100)
    return np.asarray(minitorch.tensor(a, dtype=dtype).to(minitorch.float64).numpy())


@pytest.mark.parametrize("dtype", SORTABLE)
@pytest.mark.parametrize("kind", ["random", "ties", "ascending", "descending"])
def test_topk_matches_stable_order(dtype, kind):
    rng = np.random.default_rng(7)
    for shape, ks in (((5, 100), (1, 5, 64, 99)), ((3, 3000), (1, 3, 40, 700, 2999))):
        a = rows_for(dtype, rng, shape, kind)
        x = minitorch.tensor(a, dtype=dtype)
        for k in ks:
            for largest in (True, False):
                ev, ei = stable_topk(a, k, largest)
                for sorted_ in (True, False):
                    v, i = x.topk(k, largest=largest, sorted=sorted_)
                    assert v.dtype == dtype and i.dtype == minitorch.int64 and v.shape == (shape[0], k)
                    gv, gi = to_np(v).astype(np.float64), to_np(i)
                    if sorted_:
                        np.testing.assert_array_equal(gv, ev)
                        np.testing.assert_array_equal(gi, ei)  # ties by position (PyTorch's stable order)
                    else:
                        np.testing.assert_array_equal(np.sort(gv, -1), np.sort(ev, -1))
                        np.testing.assert_array_equal(np.sort(gi, -1), np.sort(ei, -1))
                    np.testing.assert_array_equal(np.take_along_axis(a, gi, -1), gv)


@pytest.mark.parametrize(
    "dtype", [minitorch.float32, minitorch.float64, minitorch.float16, minitorch.bfloat16]
)
def test_topk_nan_and_signed_zero(dtype):
    """NaN is the largest value (first for largest=True, last otherwise), several NaNs by position; -0.0 and 0.0
    tie (by position)"""
    rng = np.random.default_rng(8)
    a = rng.standard_normal((4, 700))
    a[:, rng.integers(0, 700, 9)] = np.nan
    a[:, 5] = -0.0
    a[:, 6] = 0.0
    a[0, :] = np.where(np.arange(700) % 3 == 0, np.nan, 0.0)
    x = minitorch.tensor(a, dtype=dtype)
    a = to_np(x).astype(np.float64)
    for k in (1, 4, 12, 350):
        for largest in (True, False):
            ev, ei = stable_topk(a, k, largest)
            v, i = x.topk(k, largest=largest)
            np.testing.assert_array_equal(to_np(v).astype(np.float64), ev)
            np.testing.assert_array_equal(to_np(i), ei)
    assert np.signbit(to_np(minitorch.tensor([0.0, -0.0], dtype=dtype).topk(1, largest=False)[0])[0]) == 0


def test_topk_middle_dim_and_out():
    rng = np.random.default_rng(9)
    a = rng.standard_normal((3, 500, 4)).astype(np.float32)
    x = minitorch.tensor(a)
    v, i = x.topk(7, dim=1, largest=False)
    ev, ei = stable_topk(np.moveaxis(a, 1, -1), 7, False)
    np.testing.assert_array_equal(to_np(v), np.moveaxis(ev, -1, 1).astype(np.float32))
    np.testing.assert_array_equal(to_np(i), np.moveaxis(ei, -1, 1))
    tv, ti = minitorch.empty(3, 4, 9), minitorch.empty(3, 4, 9, dtype=minitorch.int64)
    r = minitorch.topk(x.transpose(1, 2), 9, out=(tv, ti))
    assert r[0] is tv and r[1] is ti
    ev, ei = stable_topk(np.moveaxis(a, 1, -1), 9, True)
    np.testing.assert_array_equal(to_np(tv), ev.astype(np.float32))
    np.testing.assert_array_equal(to_np(ti), ei)


ORACLE = """
import json, sys, torch
p = json.load(sys.stdin)
out = []
for c in p:
    a = [[float("nan") if e is None else e for e in r] for r in c["a"]]
    x = torch.tensor(a, dtype=torch.float64).to(getattr(torch, c["dtype"]))
    v, i = torch.topk(x, c["k"], largest=c["largest"], sorted=c["sorted"])
    out.append([v.double().tolist(), i.tolist()])
print(json.dumps(out))
"""


def test_topk_against_pytorch():
    """Values as PyTorch's (sorted: in order; unsorted: as sets), indices as PyTorch's where the values are
    distinct, and as the set of positions of each tied value where they tie"""
    rng = np.random.default_rng(10)
    cases = []
    for dtype in (minitorch.float32, minitorch.float64, minitorch.int64, minitorch.int32, minitorch.uint8):
        for kind in ("random", "ties"):
            a = rows_for(dtype, rng, (6, 1000), kind)
            if dtype in (minitorch.float32, minitorch.float64) and kind == "random":
                a[:, rng.integers(0, 1000, 5)] = np.nan
            for k in (1, 5, 100, 600):
                for largest in (True, False):
                    for sorted_ in (True, False):
                        cases.append(
                            {"a": a, "dtype": NAME[dtype], "k": k, "largest": largest, "sorted": sorted_}
                        )
    payload = [dict(c, a=np.where(np.isnan(c["a"]), None, c["a"]).tolist()) for c in cases]
    theirs = run_oracle(ORACLE, json.loads(json.dumps(payload)))
    for c, (tv, ti) in zip(cases, theirs):
        a = c["a"]
        x = minitorch.tensor(a, dtype=getattr(minitorch, c["dtype"]))
        v, i = x.topk(c["k"], largest=c["largest"], sorted=c["sorted"])
        gv, gi = to_np(v).astype(np.float64), to_np(i)
        tv = np.array([[np.nan if e is None else e for e in r] for r in tv], np.float64)
        ti = np.array(ti)
        if c["sorted"]:
            np.testing.assert_array_equal(gv, tv)
        else:
            np.testing.assert_array_equal(np.sort(gv, -1), np.sort(tv, -1))
        # indices: for each row and value, the same set of positions among those holding that value, unless the
        # value is tied past the cut (then any of the tied positions is a valid choice: it must hold the value)
        for r in range(a.shape[0]):
            np.testing.assert_array_equal(np.take(a[r], gi[r]), gv[r])
            assert len(set(gi[r].tolist())) == c["k"]
            key = np.where(np.isnan(a[r]), np.inf, a[r])  # NaNs tie with each other, as the largest value
            chosen = key[gi[r]]
            cut = chosen.min() if c["largest"] else chosen.max()
            for val in set(chosen.tolist()):
                mine = {j for j in gi[r].tolist() if key[j] == val}
                other = {j for j in ti[r].tolist() if key[j] == val}
                if val == cut:
                    assert len(mine) == len(other)
                else:
                    assert mine == other, (c["dtype"], c["k"], c["largest"], r, val)
