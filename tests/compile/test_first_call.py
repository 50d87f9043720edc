"""The first call of a compiled callable returns what the backend's compiled graph computes, as in PyTorch
(whose capture is symbolic): a backend that changes results changes the first call's, the compiled graph runs
once per call, and what the capture ran on real values (inputs and buffers written in place, Python side
effects, random draws) happens once. The functions are in tests/compile/_first_call_cases.py, run here and
under PyTorch (the oracle of the outputs, states and counts)."""

import pytest

import minitorch as torch
from tests.compile import _case_files

CASES = "_first_call_cases.py"

# cases whose counts differ from PyTorch's, and why (outputs and states are the same)
COUNT_DIFFERENCES = {}


@pytest.fixture(scope="module")
def ours():
    return _case_files.run_here(CASES)


def test_first_call_runs_the_compiled_graph(ours):
    # shifting backend: x * 2 on x + 1, from the first call on
    assert ours["shifting backend"]["outs"] == [["T", [4.0] * 3, [3]]] * 2
    assert ours["counting backend"]["runs"] == 3 and ours["counting backend"]["graphs"] == 1
    # written once per call, not twice on the first
    assert ours["input written in place"]["inputs"] == [[["T", [2.0] * 3, [3]]]] * 2
    assert ours["random draws"] == [True, True]
    assert ours["gradient through an input written in place"] == ["T", [3.0] * 3, [3]]


def test_outputs_states_and_counts_match_pytorch(ours):
    theirs = _case_files.run_in_pytorch(CASES)
    assert set(ours) == set(theirs)
    for name, want in theirs.items():
        got = ours[name]
        if not isinstance(want, dict):
            assert got == want, name
            continue
        for key in ("outs", "inputs", "state"):
            assert got[key] == want[key], (name, key, got[key], want[key])
        if name not in COUNT_DIFFERENCES:
            assert (got["graphs"], got["runs"]) == (want["graphs"], want["runs"]), (name, got, want)


def test_a_backend_error_leaves_the_state_as_the_call_found_it():
    log = []

    def f(x):
        log.append(1)
        x.add_(1)
        return x * 2

    def broken(gm, example_inputs):
        raise ValueError("no")

    x = torch.ones(2)
    with pytest.raises(torch._dynamo.exc.BackendCompilerFailed):
        torch.compile(f, backend=broken)(x)
    assert log == [] and x.tolist() == [1.0, 1.0]
