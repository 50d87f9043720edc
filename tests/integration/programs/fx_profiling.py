# Follows PyTorch's "(beta) Building a Simple CPU Performance Profiler with FX" tutorial (intermediate/
# fx_profiling_tutorial, by James Reed): symbolically trace a ResNet, print its graph, and run it through a
# ProfilingInterpreter (an fx.Interpreter whose run and run_node time every call) that summarizes the mean
# runtime of each node. Adapted: torchvision's resnet18 is built here (same architecture, narrower channels, a
# 32x32 input) and tabulate's table is formatted by hand. Added after it, as the FX documentation's "Writing
# Transformations" does: a quantize-like fx.Transformer pass that wraps every conv and linear call in simulated
# int8 fake quantization of its input, and a subgraph_rewriter.replace_pattern pass; both checked against eager.
# ruff: noqa: UP035, UP006  (the tutorial's typing.Dict and List, kept)
import statistics
import time
from typing import Any, Dict, List

import torch
import torch.fx
import torch.nn as nn  # noqa: PLR0402  (the tutorial's import)
from torch.fx import Interpreter

torch.manual_seed(0)


class BasicBlock(nn.Module):
    expansion = 1

    def __init__(self, inplanes, planes, stride=1, downsample=None):
        super().__init__()
        self.conv1 = nn.Conv2d(inplanes, planes, 3, stride, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(planes)
        self.relu = nn.ReLU(inplace=True)
        self.conv2 = nn.Conv2d(planes, planes, 3, 1, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(planes)
        self.downsample = downsample
        self.stride = stride

    def forward(self, x):
        identity = x
        out = self.conv1(x)
        out = self.bn1(out)
        out = self.relu(out)
        out = self.conv2(out)
        out = self.bn2(out)
        if self.downsample is not None:
            identity = self.downsample(x)
        out += identity
        out = self.relu(out)
        return out


class ResNet(nn.Module):
    def __init__(self, layers=(2, 2, 2, 2), width=8, num_classes=10):
        super().__init__()
        self.inplanes = width
        self.conv1 = nn.Conv2d(3, width, kernel_size=7, stride=2, padding=3, bias=False)
        self.bn1 = nn.BatchNorm2d(width)
        self.relu = nn.ReLU(inplace=True)
        self.maxpool = nn.MaxPool2d(kernel_size=3, stride=2, padding=1)
        self.layer1 = self._make_layer(width, layers[0])
        self.layer2 = self._make_layer(width * 2, layers[1], stride=2)
        self.layer3 = self._make_layer(width * 4, layers[2], stride=2)
        self.layer4 = self._make_layer(width * 8, layers[3], stride=2)
        self.avgpool = nn.AdaptiveAvgPool2d((1, 1))
        self.fc = nn.Linear(width * 8, num_classes)

    def _make_layer(self, planes, blocks, stride=1):
        downsample = None
        if stride != 1 or self.inplanes != planes:
            downsample = nn.Sequential(
                nn.Conv2d(self.inplanes, planes, 1, stride, bias=False),
                nn.BatchNorm2d(planes),
            )
        layers = [BasicBlock(self.inplanes, planes, stride, downsample)]
        self.inplanes = planes
        for _ in range(1, blocks):
            layers.append(BasicBlock(self.inplanes, planes))
        return nn.Sequential(*layers)

    def forward(self, x):
        x = self.conv1(x)
        x = self.bn1(x)
        x = self.relu(x)
        x = self.maxpool(x)
        x = self.layer1(x)
        x = self.layer2(x)
        x = self.layer3(x)
        x = self.layer4(x)
        x = self.avgpool(x)
        x = torch.flatten(x, 1)
        x = self.fc(x)
        return x


rn18 = ResNet()
rn18.eval()

input = torch.randn(5, 3, 32, 32)
output = rn18(input)

traced_rn18 = torch.fx.symbolic_trace(rn18)
print(traced_rn18.graph)
torch.testing.assert_close(traced_rn18(input), output)


def tabulate(rows, headers):
    cells = [headers] + [[f"{c:.6f}" if isinstance(c, float) else str(c) for c in r] for r in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(headers))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(cells[0], widths)), "  ".join("-" * w for w in widths)]
    lines += ["  ".join(c.ljust(w) for c, w in zip(r, widths)) for r in cells[1:]]
    return "\n".join(lines)


class ProfilingInterpreter(Interpreter):
    def __init__(self, mod: torch.nn.Module):
        # Rather than have the user symbolically trace their model,
        # we're going to do it in the constructor. As a result, the
        # user can pass in any ``Module`` without having to worry about
        # symbolic tracing APIs
        gm = torch.fx.symbolic_trace(mod)
        super().__init__(gm)

        # We are going to store away two things here:
        #
        # 1. A list of total runtimes for ``mod``. In other words, we are
        #    storing away the time ``mod(...)`` took each time this
        #    interpreter is called.
        self.total_runtime_sec: List[float] = []
        # 2. A map from ``Node`` to a list of times (in seconds) that
        #    node took to run. This can be seen as similar to (1) but
        #    for specific sub-parts of the model.
        self.runtimes_sec: Dict[torch.fx.Node, List[float]] = {}

    ######################################################################
    # Next, let's override our first method: ``run()``. ``Interpreter``'s ``run``
    # method is the top-level entry point for execution of the model. We will
    # want to intercept this so that we can record the total runtime of the
    # model.

    def run(self, *args) -> Any:
        # Record the time we started running the model
        t_start = time.time()
        # Run the model by delegating back into Interpreter.run()
        return_val = super().run(*args)
        # Record the time we finished running the model
        t_end = time.time()
        # Store the total elapsed time this model execution took in the
        # ``ProfilingInterpreter``
        self.total_runtime_sec.append(t_end - t_start)
        return return_val

    ######################################################################
    # Now, let's override ``run_node``. ``Interpreter`` calls ``run_node`` each
    # time it executes a single node. We will intercept this so that we
    # can measure and record the time taken for each individual call in
    # the model.

    def run_node(self, n: torch.fx.Node) -> Any:
        # Record the time we started running the op
        t_start = time.time()
        # Run the op by delegating back into Interpreter.run_node()
        return_val = super().run_node(n)
        # Record the time we finished running the op
        t_end = time.time()
        # If we don't have an entry for this node in our runtimes_sec
        # data structure, add one with an empty list value.
        self.runtimes_sec.setdefault(n, [])
        # Record the total elapsed time for this single invocation
        # in the runtimes_sec data structure
        self.runtimes_sec[n].append(t_end - t_start)
        return return_val

    ######################################################################
    # Finally, we are going to define a method (one which doesn't override
    # any ``Interpreter`` method) that provides us a nice, organized view of
    # the data we have collected.

    def summary(self, should_sort: bool = False) -> str:
        # Build up a list of summary information for each node
        node_summaries: List[List[Any]] = []
        # Calculate the mean runtime for the whole network. Because the
        # network may have been called multiple times during profiling,
        # we need to summarize the runtimes. We choose to use the
        # arithmetic mean for this.
        mean_total_runtime = statistics.mean(self.total_runtime_sec)

        # For each node, record summary statistics
        for node, runtimes in self.runtimes_sec.items():
            # Similarly, compute the mean runtime for ``node``
            mean_runtime = statistics.mean(runtimes)
            # For easier understanding, we also compute the percentage
            # time each node took with respect to the whole network.
            pct_total = mean_runtime / mean_total_runtime * 100
            # Record the node's type, name of the node, mean runtime, and
            # percent runtime.
            node_summaries.append([node.op, str(node), mean_runtime, pct_total])

        # One of the most important questions to answer when doing performance
        # profiling is "Which op(s) took the longest?". We can make this easy
        # to see by providing sorting functionality in our summary view
        if should_sort:
            node_summaries.sort(key=lambda s: s[2], reverse=True)

        # Use the ``tabulate`` library to create a well-formatted table
        # presenting our summary information
        headers: List[str] = ["Op type", "Op", "Average runtime (s)", "Pct total runtime"]
        return tabulate(node_summaries, headers=headers)


interp = ProfilingInterpreter(rn18)
interp.run(input)
print(interp.summary(True))

# the profile covers every node once per run, and the interpreter computes what the module computes
interp.run(input)
result = interp.run(input)
torch.testing.assert_close(result, output)
nodes = list(interp.module.graph.nodes)
assert set(interp.runtimes_sec) == set(nodes), (len(interp.runtimes_sec), len(nodes))
assert all(len(v) == 3 for v in interp.runtimes_sec.values())
assert len(interp.total_runtime_sec) == 3
ops = {n.op for n in nodes}
assert ops == {"placeholder", "call_module", "call_function", "output"}, ops
assert (
    sum(n.op == "call_module" and isinstance(interp.module.get_submodule(n.target), nn.Conv2d) for n in nodes)
    == 20
)
table = interp.summary(True).splitlines()
assert table[0].split()[:2] == ["Op", "type"] and len(table) == len(nodes) + 2
means = [statistics.mean(v) for v in interp.runtimes_sec.values()]
assert sum(means) <= statistics.mean(interp.total_runtime_sec) * 1.05 + 1e-3


# ---- added: a quantize-like pass as an fx.Transformer: every conv and linear sees its input fake-quantized to int8
def fake_quant(x, scale, zero_point):
    return torch.fake_quantize_per_tensor_affine(x, scale, zero_point, -128, 127)


torch.fx.wrap("fake_quant")


class FakeQuantize(torch.fx.Transformer):
    def __init__(self, module, scales):
        super().__init__(module)
        self.scales = scales

    def call_module(self, target, args, kwargs):
        if isinstance(self.fetch_attr(target), (nn.Conv2d, nn.Linear)):
            # args hold Proxies: the calls we emit are recorded into the new graph
            args = (
                torch.fx.Proxy(
                    self.new_graph.create_node(
                        "call_function", fake_quant, (args[0].node, self.scales[target], 0)
                    )
                ),
            )
        return super().call_module(target, args, kwargs)


# calibration: the largest magnitude each conv/linear input reaches on a few batches (an observer)
class Observer(Interpreter):
    def __init__(self, gm):
        super().__init__(gm)
        self.amax = {}

    def call_module(self, target, args, kwargs):
        if isinstance(self.fetch_attr(target), (nn.Conv2d, nn.Linear)):
            self.amax[target] = max(self.amax.get(target, 0.0), args[0].abs().max().item())
        return super().call_module(target, args, kwargs)


observer = Observer(traced_rn18)
for _ in range(3):
    observer.run(torch.randn(5, 3, 32, 32))
scales = {k: v / 127 for k, v in observer.amax.items()}
quantized = FakeQuantize(traced_rn18, scales).transform()
print(quantized.code)
fq_nodes = [n for n in quantized.graph.nodes if n.op == "call_function" and n.target is fake_quant]
assert len(fq_nodes) == 21, len(fq_nodes)  # 20 convolutions and the classifier
assert all(n.users and next(iter(n.users)).op == "call_module" for n in fq_nodes)


# the same simulated quantization written into the modules by hand, for reference
class QuantRef(nn.Module):
    def __init__(self, mod, scale):
        super().__init__()
        self.mod, self.scale = mod, scale

    def forward(self, x):
        return self.mod(fake_quant(x, self.scale, 0))


ref = torch.fx.symbolic_trace(rn18)
for name, mod in list(ref.named_modules()):
    if name in scales:
        parent, _, leaf = name.rpartition(".")
        setattr(ref.get_submodule(parent) if parent else ref, leaf, QuantRef(mod, scales[name]))
x = torch.randn(5, 3, 32, 32)
torch.testing.assert_close(quantized(x), ref(x))
err = (quantized(x) - rn18(x)).abs().max() / rn18(x).abs().max()
print("fake int8 vs float, relative max error:", err.item())
assert 0 < err < 0.2, err
# the fake-quantized graph passes gradients (straight-through estimator inside the clamp range)
xg = x.clone().requires_grad_()
quantized(xg).sum().backward()
assert xg.grad is not None and torch.isfinite(xg.grad).all()


# ---- added: replace a pattern (relu(x + y)) with a fused op via subgraph_rewriter.replace_pattern
def pattern(x, y):
    return torch.relu(torch.add(x, y))


def replacement(x, y):
    return torch.clamp_min(x + y, 0.0)


class AddRelu(nn.Module):
    def forward(self, a, b, c):
        u = torch.relu(torch.add(a, b))
        v = torch.relu(torch.add(u, c))
        return torch.sigmoid(v) * u


gm = torch.fx.symbolic_trace(AddRelu())
matches = torch.fx.subgraph_rewriter.replace_pattern(gm, pattern, replacement)
print(gm.code)
assert len(matches) == 2
assert not any(n.target is torch.relu for n in gm.graph.nodes)
a, b, c = torch.randn(3, 4, 4).unbind()
torch.testing.assert_close(gm(a, b, c), AddRelu()(a, b, c))
print("fx_profiling: ok")
