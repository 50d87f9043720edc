# Follows PyTorch's "torch.export Tutorial" (intermediate/torch_export_tutorial): export a module, look at the
# ExportedProgram (graph_module, print_readable, graph_signature, range_constraints), run .module(); graph breaks
# on data-dependent control flow and the torch.cond rewrite; specialization on the example's shapes, then
# dynamic shapes with Dim (a shared batch dim, min/max bounds, Dim.AUTO) and their errors; non-tensor inputs
# specialized; save and load; run_decompositions. The tutorial's tb.print_exc() output is kept as a printed first
# line; asserts added that every exported program computes what the module does.
import os
import tempfile
import traceback as tb

import torch
from torch.export import Dim, export

torch.manual_seed(0)


class MyModule(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.lin = torch.nn.Linear(100, 10)

    def forward(self, x, y):
        return torch.nn.functional.relu(self.lin(x + y), inplace=True)


mod = MyModule()
exported_mod = export(mod, (torch.randn(8, 100), torch.randn(8, 100)))
print(type(exported_mod))
assert type(exported_mod).__name__ == "ExportedProgram"
a, b = torch.randn(8, 100), torch.randn(8, 100)
print(exported_mod.module()(a, b))
torch.testing.assert_close(exported_mod.module()(a, b), mod(a, b))

print(exported_mod)
print(exported_mod.graph_module)
print(exported_mod.graph_module.print_readable())
print(exported_mod.graph_signature)
sig = exported_mod.graph_signature
assert list(sig.user_inputs) == ["x", "y"], sig.user_inputs
assert sorted(sig.inputs_to_parameters.values()) == ["lin.bias", "lin.weight"]
assert len(sig.user_outputs) == 1
assert sorted(exported_mod.state_dict) == ["lin.bias", "lin.weight"]
placeholders = [n for n in exported_mod.graph.nodes if n.op == "placeholder"]
assert len(placeholders) == 4, placeholders  # the two parameters lifted to inputs, then x and y


# Graph breaks
class Bad1(torch.nn.Module):
    def forward(self, x):
        if x.sum() > 0:
            return torch.sin(x)
        return torch.cos(x)


try:
    export(Bad1(), (torch.randn(3, 3),))
except Exception as e:  # noqa: BLE001  (the tutorial prints whatever export raises)
    tb.print_exc(limit=1)
    bad1_error = e
else:
    raise AssertionError("data-dependent control flow exported")
print(type(bad1_error).__name__)


# Control flow ops: torch.cond
class Bad1Fixed(torch.nn.Module):
    def forward(self, x):
        def true_fn(x):
            return torch.sin(x)

        def false_fn(x):
            return torch.cos(x)

        return torch.cond(x.sum() > 0, true_fn, false_fn, [x])


exported_bad1_fixed = export(Bad1Fixed(), (torch.randn(3, 3),))
print(exported_bad1_fixed)
print(exported_bad1_fixed.module()(torch.ones(3, 3)))
print(exported_bad1_fixed.module()(-torch.ones(3, 3)))
torch.testing.assert_close(exported_bad1_fixed.module()(torch.ones(3, 3)), torch.sin(torch.ones(3, 3)))
torch.testing.assert_close(exported_bad1_fixed.module()(-torch.ones(3, 3)), torch.cos(-torch.ones(3, 3)))


# Constraints/Dynamic Shapes
class M(torch.nn.Module):
    def __init__(self):
        super().__init__()

        self.branch1 = torch.nn.Sequential(torch.nn.Linear(64, 32), torch.nn.ReLU())
        self.branch2 = torch.nn.Sequential(torch.nn.Linear(128, 64), torch.nn.ReLU())
        self.buffer = torch.ones(32)

    def forward(self, x1, x2):
        out1 = self.branch1(x1)
        out2 = self.branch2(x2)
        return (out1 + self.buffer, out2)


m = M()
example_args = (torch.randn(32, 64), torch.randn(32, 128))
ep = export(m, example_args)
print(ep)
assert ep.graph_signature.lifted_tensor_constants == ["buffer"] or "buffer" in str(ep.graph_signature)

example_args_2 = (torch.randn(64, 64), torch.randn(64, 128))
try:
    ep.module()(*example_args_2)  # fails
except Exception as e:  # noqa: BLE001  (the tutorial prints the guard's error)
    print("specialized:", str(e).splitlines()[0])
    assert "32" in str(e), e
else:
    raise AssertionError("an exported program without dynamic shapes accepted another batch size")

batch = Dim("batch")
dynamic_shapes = {"x1": {0: batch}, "x2": {0: batch}}
ep = export(m, args=example_args, dynamic_shapes=dynamic_shapes)
print(ep)
print(ep.range_constraints)
out1, out2 = ep.module()(*example_args_2)
ref1, ref2 = m(*example_args_2)
torch.testing.assert_close(out1, ref1)
torch.testing.assert_close(out2, ref2)
assert out1.shape == (64, 32) and out2.shape == (64, 64)

try:
    ep.module()(torch.randn(32, 64), torch.randn(64, 128))  # the two batch sizes must match
except Exception as e:  # noqa: BLE001
    print("shared dim:", str(e).splitlines()[0])
else:
    raise AssertionError("mismatched batch dims accepted")

# bounds on a Dim
batch = Dim("batch", min=4, max=64)
ep_bounded = export(m, example_args, dynamic_shapes={"x1": {0: batch}, "x2": {0: batch}})
ep_bounded.module()(torch.randn(4, 64), torch.randn(4, 128))
try:
    ep_bounded.module()(torch.randn(65, 64), torch.randn(65, 128))
except Exception as e:  # noqa: BLE001
    print("bounded:", str(e).splitlines()[0])
else:
    raise AssertionError("a batch above Dim's max accepted")

# a dim the code requires static cannot be marked dynamic
try:
    export(m, example_args, dynamic_shapes={"x1": {1: Dim("inner")}, "x2": None})
except Exception as e:  # noqa: BLE001
    print("constraint violation:", type(e).__name__, str(e).splitlines()[0])
else:
    raise AssertionError("a dynamic dim that Linear needs static was accepted")

# Dim.AUTO lets export decide
ep_auto = export(m, example_args, dynamic_shapes={"x1": (Dim.AUTO, Dim.AUTO), "x2": (Dim.AUTO, Dim.AUTO)})
out1, out2 = ep_auto.module()(*example_args_2)
torch.testing.assert_close(out1, m(*example_args_2)[0])


# Non-tensor inputs are specialized
class Scale(torch.nn.Module):
    def forward(self, x, factor: int):
        return x * factor


ep_scale = export(Scale(), (torch.ones(2), 3))
print(ep_scale.graph)
torch.testing.assert_close(ep_scale.module()(torch.ones(2), 3), torch.full((2,), 3.0))

# Save and load
with tempfile.TemporaryDirectory() as d:
    path = os.path.join(d, "exported_program.pt2")
    torch.export.save(ep, path)
    loaded = torch.export.load(path)
print(loaded)
x1, x2 = torch.randn(16, 64), torch.randn(16, 128)
for got, want in zip(loaded.module()(x1, x2), m(x1, x2)):
    torch.testing.assert_close(got, want)

# run_decompositions: the program lowered to core ops computes the same
core_ir_ep = ep.run_decompositions()
print(core_ir_ep.graph)
for got, want in zip(core_ir_ep.module()(x1, x2), m(x1, x2)):
    torch.testing.assert_close(got, want)
print("export_tutorial: ok")
