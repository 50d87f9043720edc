"""torch.compile keeps a compiled function's Python side effects: appends, item and attribute assignments,
global and nonlocal stores and a helper's mutations happen on every call with the eager values (traced tensors
included); logger calls and warnings break the graph, Python's random.random() is a graph input drawn at each
call; a capture that breaks undoes
what it did, so the statements before the break run once per call. The functions are in
tests/compile/_side_effect_cases.py, run here and under PyTorch (the oracle of the states, outputs and backend
call counts)."""

import warnings

import pytest

import minitorch as torch
from minitorch._dynamo.exc import Unsupported
from tests.compile import _case_files

CASES = "_side_effect_cases.py"

# cases whose backend call counts differ from PyTorch's, and why (the states and outputs are the same)
COUNT_DIFFERENCES = {
    # its int item stays a constant (automatic dynamic covers arguments, globals and cells only)
    "dict item assignment": "dict ints static",
}


@pytest.fixture(scope="module")
def ours():
    return _case_files.run_here(CASES)


def test_side_effects_equal_eager(ours):
    for name, r in ours.items():
        assert r["outs"] == r["eager_outs"], name
        assert r["state"] == r["eager_state"], (name, r["state"], r["eager_state"])
        assert r["graphs"] >= 1, name


def test_states_outputs_and_counts_match_pytorch(ours):
    theirs = _case_files.run_in_pytorch(CASES)
    assert set(ours) == set(theirs)
    for name in theirs:
        assert ours[name]["state"] == theirs[name]["state"], name
        assert ours[name]["outs"] == theirs[name]["outs"], name
        if name not in COUNT_DIFFERENCES:
            assert ours[name]["graphs"] == theirs[name]["graphs"], (name, ours[name], theirs[name])


def test_first_call_leaves_no_traced_values():
    seen = []

    def f(x):
        y = x.sin()
        seen.append(y)
        seen.append({"k": (y, 1)})
        return y

    x = torch.ones(2)
    out = torch.compile(f, backend="eager")(x)
    assert type(seen[0]) is torch.Tensor and seen[0] is out
    assert type(seen[1]["k"][0]) is torch.Tensor and seen[1]["k"][0] is out


def test_fullgraph_replays_and_refuses_what_it_cannot():
    log = []
    cf = torch.compile(lambda x: log.append(x.cos()) or x + 1, backend="eager", fullgraph=True)
    for i in range(3):
        cf(torch.full((2,), float(i)))
    assert [t.tolist() for t in log] == [
        [1.0, 1.0],
        [torch.cos(torch.tensor(1.0)).item()] * 2,
        [torch.cos(torch.tensor(2.0)).item()] * 2,
    ]
    mod = _case_files.load(CASES, "_side_effect_cases_fullgraph")
    with pytest.raises(Unsupported, match="^logging.Logger method not supported for non-export cases"):
        torch.compile(mod.f_log, backend="eager", fullgraph=True)(torch.ones(2))
    assert mod.RECORDS == []

    def warns(x):
        warnings.warn("careful")
        return x

    with pytest.raises(Unsupported, match="^Attempted to call function marked as skipped"):
        torch.compile(warns, backend="eager", fullgraph=True)(torch.ones(2))


class _Box:
    def __init__(self, v):
        self.v = v


def test_new_object_holding_a_traced_value_runs_eagerly():
    state = {}

    def f(x):
        state["box"] = _Box(x * 2)
        return x + 1

    cf = torch.compile(f, backend="eager")
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        for i in range(3):
            x = torch.full((2,), float(i))
            assert cf(x).tolist() == (x + 1).tolist()
            assert type(state["box"].v) is torch.Tensor and state["box"].v.tolist() == (x * 2).tolist()
    assert any("cannot be replayed" in str(m.message) for m in w)
    with pytest.raises(Unsupported, match="^Side effect that cannot be replayed"):
        torch.compile(f, backend="eager", fullgraph=True)(torch.ones(2))


def test_python_error_after_a_side_effect_keeps_it_once():
    log = []

    def f(x):
        log.append(x * 2)
        raise ValueError("boom")

    cf = torch.compile(f, backend="eager")
    for _ in range(2):
        with pytest.raises(ValueError, match="boom"):
            cf(torch.ones(2))
    assert [type(t) for t in log] == [torch.Tensor, torch.Tensor]
    assert [t.tolist() for t in log] == [[2.0, 2.0], [2.0, 2.0]]
