"""Tensors compiled code reads from outside its arguments (a module attribute replaced each call as an RNN's
hidden state, a reassigned buffer, an attribute of an object argument, a global, a closure cell) are graph
inputs guarded on their metadata, as in Dynamo: replacing them reuses the graph instead of recompiling up to
the limit, and a new value of the same metadata is read, not a stale constant. The functions are in
tests/compile/_tensor_state_cases.py, run here and under PyTorch (the oracle of the outputs, states and graph
counts)."""

import pytest

import minitorch as torch
from tests.compile import _case_files

CASES = "_tensor_state_cases.py"


@pytest.fixture(scope="module")
def ours():
    return _case_files.run_here(CASES)


def test_state_tensors_are_graph_inputs(ours):
    assert ours["module attribute replaced each call"]["graphs"] == 1
    assert ours["module attribute replaced each call"]["state"] == ["T", [45.0, 55.0, 65.0], [3]]
    # a global replaced by a tensor of the same metadata: same graph, its new values read
    outs = ours["global tensor read"]["outs"]
    assert outs[2] == ["T", [2.0, 3.0, 4.0], [3]] and outs[3] == ["T", [6.0, 8.0, 10.0], [3]]


def test_outputs_states_and_counts_match_pytorch(ours):
    theirs = _case_files.run_in_pytorch(CASES)
    assert set(ours) == set(theirs)
    for name, want in theirs.items():
        assert ours[name] == want, (name, ours[name], want)


def test_lifted_tensor_is_a_named_placeholder():
    class M(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.h = torch.zeros(2)

        def forward(self, x):
            self.h = self.h + x
            return self.h

    seen = []

    def be(gm, example_inputs):
        seen.append((gm, example_inputs))
        return gm.forward

    m = M()
    cm = torch.compile(m, backend=be)
    h0 = m.h
    cm(torch.ones(2))
    gm, inputs = seen[0]
    assert [n.target for n in gm.graph.nodes if n.op == "placeholder"] == ["x", "L_self_h"]
    assert inputs[1] is h0 and m.h.tolist() == [1.0, 1.0]
    m.h = torch.zeros(3)  # other sizes: a second graph
    assert cm(torch.ones(3)).tolist() == [1.0, 1.0, 1.0] and len(seen) == 2
    m.h = torch.zeros(2, dtype=torch.float64)  # another dtype: a third
    cm(torch.ones(2))
    assert len(seen) == 3 and m.h.dtype == torch.float64


def test_class_attribute_tensor_is_a_graph_input():
    # as PyTorch: lifted where its class holds it, so a new tensor of the same metadata reuses the graph
    seen = []

    def be(gm, example_inputs):
        seen.append(gm)
        return gm.forward

    class M(torch.nn.Module):
        table = torch.arange(3.0)

        def forward(self, x):
            return x + self.table

    m = M()
    cm = torch.compile(m, backend=be)
    assert cm(torch.ones(3)).tolist() == [1.0, 2.0, 3.0]
    M.table = torch.full((3,), 5.0)
    assert cm(torch.ones(3)).tolist() == [6.0, 6.0, 6.0] and len(seen) == 1
    assert "table" not in m.__dict__ and M.table.tolist() == [
        5.0,
        5.0,
        5.0,
    ]  # put back in the class, not the instance
    m.table = torch.full((3,), 7.0)  # an instance attribute of the name now shadows it: read, same graph
    assert cm(torch.ones(3)).tolist() == [8.0, 8.0, 8.0] and len(seen) == 1
    M.table = torch.ones(2)
    assert cm(torch.ones(3)).tolist() == [8.0, 8.0, 8.0]
