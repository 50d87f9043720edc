# Follows PyTorch's "Custom Backends" page of the torch.compiler documentation (torch.compiler_custom_backends):
# a backend is a callable taking (gm, example_inputs) and returning a callable; register one with
# torch._dynamo.register_backend and refer to it by name; the debugging backend that prints gm.graph and
# returns gm.forward; a backend that looks for specific ops in the graph; a module with a graph break gets one
# call per graph; an AOTAutograd backend built with torch._dynamo.backends.common.aot_autograd that sees the
# forward and backward graphs; and composable backends (try one, fall back to another). Asserts added: what each
# backend saw and that every compiled function computes what eager does. Adapted: the AOTAutograd model runs two
# steps instead of one, since minitorch returns the first call's capture run (a documented difference:
# docs/architecture.md, torch.compile) and runs the backend's callable, here the AOT-compiled graphs, from the
# second call on.
import torch
from torch._dynamo import register_backend

torch.manual_seed(0)


@register_backend
def my_compiler(gm, example_inputs):
    return gm.forward


@torch.compile(backend="my_compiler")
def f(x, y):
    return torch.sin(x) + torch.cos(y)


x, y = torch.randn(4), torch.randn(4)
torch.testing.assert_close(f(x, y), torch.sin(x) + torch.cos(y))
assert "my_compiler" in torch._dynamo.list_backends(exclude_tags=())

# Custom Backends after AOTAutograd
from functorch.compile import make_boxed_func
from torch._dynamo.backends.common import aot_autograd

seen = {"fw": 0, "bw": 0}


def my_fw_compiler(gm, example_inputs):
    print("AOTAutograd produced a forward graph:")
    gm.print_readable()
    seen["fw"] += 1
    return make_boxed_func(gm.forward)


def my_bw_compiler(gm, example_inputs):
    print("AOTAutograd produced a backward graph:")
    gm.print_readable()
    seen["bw"] += 1
    return make_boxed_func(gm.forward)


my_aot_backend = aot_autograd(fw_compiler=my_fw_compiler, bw_compiler=my_bw_compiler)
model_opt = torch.compile(torch.nn.Sequential(torch.nn.Linear(4, 3), torch.nn.Tanh()), backend=my_aot_backend)
for _ in range(2):  # two steps: minitorch's first call returns its capture run's output (see the header)
    inp = torch.randn(5, 4, requires_grad=True)
    out = model_opt(inp)
    out.sum().backward()
assert seen["fw"] >= 1 and seen["bw"] >= 1, seen
ref_model = model_opt._orig_mod
inp2 = inp.detach().clone().requires_grad_()
ref_model(inp2).sum().backward()
torch.testing.assert_close(inp.grad, inp2.grad)


# Debugging Backend
def my_debug_compiler(gm: torch.fx.GraphModule, example_inputs):
    print("my_compiler() called with FX graph:")
    print(gm.graph)  # the documentation's gm.graph.print_tabular() needs the tabulate package
    return gm.forward  # return a python callable


calls = []


def recording_compiler(gm, example_inputs):
    calls.append((gm, [tuple(t.shape) for t in example_inputs]))
    return my_debug_compiler(gm, example_inputs)


@torch.compile(backend=recording_compiler)
def fn(x, y):
    a = torch.cos(x)
    b = torch.sin(y)
    return a + b


a_, b_ = torch.randn(10), torch.randn(10)
torch.testing.assert_close(fn(a_, b_), torch.cos(a_) + torch.sin(b_))
assert len(calls) == 1 and calls[0][1] == [(10,), (10,)]
targets = [n.target for n in calls[0][0].graph.nodes if n.op == "call_function"]
assert torch.cos in targets and torch.sin in targets


# a module with a graph break: the backend is called once per graph
class MockModule(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.relu = torch.nn.ReLU()

    def forward(self, x):
        x = self.relu(torch.cos(x))
        print("a graph break")  # Python side effects break the graph
        return torch.sigmoid(x) * 2


calls.clear()
mod = MockModule()
optimized_mod = torch.compile(mod, backend=recording_compiler)
xin = torch.randn(10)
torch.testing.assert_close(optimized_mod(xin), mod(xin))
print("graphs compiled:", len(calls))
assert len(calls) == 2, len(calls)


# Speedy Backend: look for an op and swap in something else
def toy_backend(gm, inputs):
    for node in gm.graph.nodes:
        if node.op == "call_function" and node.target in (torch.relu, torch.nn.functional.relu):
            print("found relu: replacing it with clamp_min")
            node.target = torch.clamp_min
            node.args = (node.args[0], 0.0)
    gm.graph.lint()
    gm.recompile()
    return gm.forward


@torch.compile(backend=toy_backend)
def g(x):
    return torch.relu(x) * 3


xr = torch.randn(8)
torch.testing.assert_close(g(xr), torch.relu(xr) * 3)


# Composable Backends: try one backend, fall back to another
def optimizer_backend(gm, example_inputs):
    raise RuntimeError("this backend cannot handle the graph")


def fallback_backend(gm, example_inputs):
    return gm.forward


def my_composed_backend(gm, example_inputs):
    try:
        return optimizer_backend(gm, example_inputs)
    except Exception:  # noqa: BLE001  (the documentation's fallback on any failure)
        return fallback_backend(gm, example_inputs)


@torch.compile(backend=my_composed_backend)
def h(x):
    return (x * x).sum()


torch.testing.assert_close(h(torch.arange(4.0)), torch.tensor(14.0))
# a backend that fails, alone, surfaces its error (wrapped as PyTorch wraps it)
try:
    torch.compile(lambda x: x + 1, backend=optimizer_backend)(torch.ones(2))
except Exception as e:  # noqa: BLE001
    print("failing backend:", type(e).__name__, str(e).splitlines()[0])
    assert "this backend cannot handle the graph" in str(e)
else:
    raise AssertionError("a failing backend went unnoticed")
torch._dynamo.reset()
print("compile_custom_backends: ok")
