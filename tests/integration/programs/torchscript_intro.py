# Follows PyTorch's "Introduction to TorchScript" tutorial (beginner/Intro_to_TorchScript_tutorial): a cell traced
# with torch.jit.trace, a decision gate with control flow that tracing bakes in and scripting keeps, a scripted
# loop calling a traced cell, a traced wrapper around it, then save and load. Asserts added: each captured module
# computes what the Python modules compute, and the loaded archive too. (minitorch's script keeps data-dependent
# control flow by running that Python eagerly; its .code is then the source.)
import os
import tempfile
import warnings

import torch

warnings.filterwarnings("ignore", category=FutureWarning)  # torch.jit is deprecated in 2.15 (as in PyTorch)
torch.manual_seed(0)


class MyCell(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = torch.nn.Linear(4, 4)

    def forward(self, x, h):
        new_h = torch.tanh(self.linear(x) + h)
        return new_h, new_h


my_cell = MyCell()
x, h = torch.rand(3, 4), torch.rand(3, 4)
traced_cell = torch.jit.trace(my_cell, (x, h))
print(traced_cell)
traced_cell(x, h)
print(traced_cell.graph)
print(traced_cell.code)
print(traced_cell(x, h))
for a, b in zip(traced_cell(x, h), my_cell(x, h)):
    torch.testing.assert_close(a, b)


class MyDecisionGate(torch.nn.Module):
    def forward(self, x):
        if x.sum() > 0:
            return x
        else:
            return -x


class MyCell(torch.nn.Module):
    def __init__(self, dg):
        super().__init__()
        self.dg = dg
        self.linear = torch.nn.Linear(4, 4)

    def forward(self, x, h):
        new_h = torch.tanh(self.dg(self.linear(x)) + h)
        return new_h, new_h


my_cell = MyCell(MyDecisionGate())
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    traced_cell = torch.jit.trace(my_cell, (x, h))
# tracing runs the `if` on one input: PyTorch (and we) warn that the branch is baked in
assert any(issubclass(w.category, torch.jit.TracerWarning) for w in caught)
print(traced_cell.dg.code)
print(traced_cell.code)

scripted_gate = torch.jit.script(MyDecisionGate())

my_cell = MyCell(scripted_gate)
scripted_cell = torch.jit.script(my_cell)

print(scripted_gate.code)
print(scripted_cell.code)

# New inputs
x, h = torch.rand(3, 4), torch.rand(3, 4)
print(scripted_cell(x, h))
for a, b in zip(scripted_cell(x, h), my_cell(x, h)):
    torch.testing.assert_close(a, b)
# the scripted gate keeps both branches
pos, neg = torch.rand(2, 4), -torch.rand(2, 4)
torch.testing.assert_close(scripted_gate(pos), pos)
torch.testing.assert_close(scripted_gate(neg), -neg)


class MyRNNLoop(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.cell = torch.jit.trace(MyCell(scripted_gate), (x, h))

    def forward(self, xs):
        h, y = torch.zeros(3, 4), torch.zeros(3, 4)
        for i in range(xs.size(0)):
            y, h = self.cell(xs[i], h)
        return y, h


rnn_loop = torch.jit.script(MyRNNLoop())
print(rnn_loop.code)


class WrapRNN(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.loop = torch.jit.script(MyRNNLoop())

    def forward(self, xs):
        y, h = self.loop(xs)
        return torch.relu(y)


wrap = WrapRNN()
traced = torch.jit.trace(wrap, (torch.rand(10, 3, 4)))
print(traced.code)

xs = torch.rand(7, 3, 4)  # another sequence length: the scripted loop is a call in the trace, not unrolled
torch.testing.assert_close(traced(xs), wrap(xs))

with tempfile.TemporaryDirectory() as d:
    path = os.path.join(d, "wrapped_rnn.pt")
    traced.save(path)
    loaded = torch.jit.load(path)

print(loaded)
print(loaded.code)
torch.testing.assert_close(loaded(xs), wrap(xs))
print("torchscript intro: ok")
