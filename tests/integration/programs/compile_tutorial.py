# Follows PyTorch's "Introduction to torch.compile" tutorial (intermediate/torch_compile_tutorial, by William
# Wen): compile a function and a module, with torch.compile and as a decorator, check the results against eager,
# time eager against compiled, compare with TorchScript/FX tracing on data-dependent control flow, inspect graph
# breaks with torch._dynamo.explain and force an error on them with fullgraph=True, and hand the graph to a custom
# backend. Adapted where it needs a GPU or downloads: the DenseNet-121 timing runs a small MLP block on the CPU
# instead (GPT-2's MLP with its tanh-written GELU), timed with time.perf_counter instead of CUDA events.
import math
import time
import traceback

import torch

torch.manual_seed(0)


# Basic usage: optimize a function
def foo(x, y):
    a = torch.sin(x)
    b = torch.cos(y)
    return a + b


opt_foo1 = torch.compile(foo)
x, y = torch.randn(10, 10), torch.randn(10, 10)
print(opt_foo1(x, y))
torch.testing.assert_close(opt_foo1(x, y), foo(x, y))


# ... or decorate it
@torch.compile
def opt_foo2(x, y):
    a = torch.sin(x)
    b = torch.cos(y)
    return a + b


print(opt_foo2(x, y))
torch.testing.assert_close(opt_foo2(x, y), foo(x, y))


# Optimize a module
class MyModule(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(100, 10)

    def forward(self, x):
        return torch.nn.functional.relu(self.lin(x))


mod = MyModule()
opt_mod = torch.compile(mod)
t = torch.randn(10, 100)
print(opt_mod(t))
torch.testing.assert_close(opt_mod(t), mod(t))
assert opt_mod._orig_mod is mod


# Demonstrating speedups (the tutorial times DenseNet-121 on a GPU; here GPT-2's MLP block on the CPU)
def timed(fn):
    start = time.perf_counter()
    result = fn()
    return result, time.perf_counter() - start


class NewGELU(torch.nn.Module):
    def forward(self, x):
        return 0.5 * x * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * torch.pow(x, 3.0))))


def init_model():
    return torch.nn.Sequential(torch.nn.Linear(128, 512), NewGELU(), torch.nn.Linear(512, 128)).eval()


model = init_model()
model_opt = torch.compile(model)
inp = torch.randn(16, 32, 128)
with torch.no_grad():
    eager_out, eager_time = timed(lambda: model(inp))
    print("eager:", eager_time)
    compiled_out, compile_time = timed(lambda: model_opt(inp))
    print("compile (first call, includes compilation):", compile_time)
    torch.testing.assert_close(compiled_out, eager_out, rtol=1e-5, atol=1e-5)
    eager_times, compile_times = [], []
    for _ in range(5):
        _, e = timed(lambda: model(inp))
        eager_times.append(e)
        out, c = timed(lambda: model_opt(inp))
        compile_times.append(c)
        torch.testing.assert_close(out, eager_out, rtol=1e-5, atol=1e-5)
    print("eager median:", sorted(eager_times)[2], "compiled median:", sorted(compile_times)[2])


# Comparison to TorchScript and FX tracing: torch.compile handles data-dependent control flow
def f1(x, y):
    if x.sum() < 0:
        return -y
    return y


inp1, inp2 = torch.randn(5, 5), torch.randn(5, 5)
try:
    torch.fx.symbolic_trace(f1)
    raise AssertionError("FX tracing should not handle data-dependent control flow")
except Exception:  # noqa: BLE001  (the tutorial prints the error FX raises)
    print("FX tracing failed on f1, as the tutorial shows")
compile_f1 = torch.compile(f1)
print("compile 1, 1:", torch.allclose(f1(inp1, inp2), compile_f1(inp1, inp2)))
print("compile 1, 2:", torch.allclose(f1(-inp1, inp2), compile_f1(-inp1, inp2)))
assert torch.allclose(f1(inp1, inp2), compile_f1(inp1, inp2))
assert torch.allclose(f1(-inp1, inp2), compile_f1(-inp1, inp2))


# Graph breaks: explain() reports them
def bar(a, b):
    x = a / (torch.abs(a) + 1)
    if b.sum() < 0:
        b = b * -1
    return x * b


explain_output = torch._dynamo.explain(bar)(torch.randn(10), torch.randn(10))
print(explain_output)
assert explain_output.graph_break_count == 1
assert len(explain_output.break_reasons) == 1
assert any(f.name == "bar" for f in explain_output.break_reasons[0].user_stack)

# fullgraph=True raises at the first graph break
opt_bar = torch.compile(bar, fullgraph=True)
try:
    opt_bar(torch.randn(10), torch.randn(10))
    raise AssertionError("fullgraph=True should raise on a graph break")
except torch._dynamo.exc.Unsupported:
    traceback.print_exc(limit=1)

# a graph-break-free function gives one graph
explain_ok = torch._dynamo.explain(foo)(x, y)
print(explain_ok)
assert explain_ok.graph_count == 1 and explain_ok.graph_break_count == 0


# A custom backend receives the FX graph and example inputs, and returns what runs
seen = []


def custom_backend(gm: torch.fx.GraphModule, example_inputs: list):
    print("custom backend called with FX graph:")
    gm.print_readable()  # the tutorial prints gm.graph.print_tabular(), which needs the tabulate package
    seen.append([tuple(t.shape) for t in example_inputs])
    return gm.forward


opt_model = torch.compile(init_model(), backend=custom_backend)
with torch.no_grad():
    opt_model(torch.randn(4, 128))
    opt_model(torch.randn(4, 128))
# (PyTorch also passes the parameters it lifted into graph inputs)
assert len(seen) == 1 and (4, 128) in seen[0], seen

# reset() forgets the compiled graphs: the backend is called again
torch._dynamo.reset()
with torch.no_grad():
    opt_model(torch.randn(4, 128))
assert len(seen) == 2
print("compile tutorial: ok")
