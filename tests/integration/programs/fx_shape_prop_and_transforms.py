# Follows the worked examples of PyTorch's torch.fx documentation ("Writing Transformations" and "The
# Interpreter Pattern"): operator replacement (torch.add -> torch.mul) by direct graph manipulation and by a
# Transformer, a graph rewrite with the graph-building API (inserting a relu after each add), the ShapeProp
# interpreter that records every node's shape and dtype, and torch.fx.passes.shape_prop.ShapeProp.
# Adapted: a small convolutional network stands in for torchvision's resnet18 (no torchvision here).
# ruff: noqa: UP035, UP006, SIM102  (the documentation's typing.Dict and nested ifs, kept)
from typing import Any, Dict

import torch
import torch.fx
import torch.nn as nn  # noqa: PLR0402  (the documentation's import)
import torch.nn.functional as F
from torch import fx
from torch.fx.node import Node

torch.manual_seed(0)


######################################################################
# Direct graph manipulation: replace torch.add with torch.mul
class M(torch.nn.Module):
    def forward(self, x, y):
        return torch.add(x, y), x.add(y)


def transform(m: torch.nn.Module, tracer_class: type = fx.Tracer) -> torch.nn.Module:
    graph: fx.Graph = tracer_class().trace(m)
    # FX represents its Graph as an ordered list of
    # nodes, so we can iterate through them.
    for node in graph.nodes:
        # Checks if we're calling a function (i.e:
        # torch.add)
        if node.op == "call_function":
            # The target attribute is the function
            # that call_function calls.
            if node.target == torch.add:
                node.target = torch.mul

    graph.lint()  # Does some checks to make sure the
    # Graph is well-formed.

    return fx.GraphModule(m, graph)


x, y = torch.randn(3, 4), torch.randn(3, 4)
gm = transform(M())
a, b = gm(x, y)
assert torch.allclose(a, x * y)  # the function call was replaced
assert torch.allclose(b, x + y)  # the method call was not (its target is the string "add")
assert "torch.mul" in gm.code


######################################################################
# The same replacement with a Transformer
class ReplaceAddWithMul(torch.fx.Transformer):
    def call_function(self, target, args, kwargs):
        if target != torch.add:
            return super().call_function(target, args, kwargs)
        return super().call_function(torch.mul, args, kwargs)


gm2 = ReplaceAddWithMul(fx.symbolic_trace(M())).transform()
a2, b2 = gm2(x, y)
assert torch.allclose(a2, x * y) and torch.allclose(b2, x + y)


######################################################################
# Graph-building API: insert a relu after every add
class N(torch.nn.Module):
    def forward(self, x, y):
        return torch.add(x, y) * 2


traced = fx.symbolic_trace(N())
for node in traced.graph.nodes:
    if node.op == "call_function" and node.target == torch.add:
        # Specifies the insertion point. Any nodes added to the
        # Graph within this scope will be inserted after `node`
        with traced.graph.inserting_after(node):
            # Insert a new `call_function` node calling `torch.relu`
            new_node = traced.graph.call_function(torch.relu, args=(node,))

            # We want all places that used the value of `node` to
            # now use that value after the `relu` call we've added.
            # We use the `replace_all_uses_with` API to do this.
            node.replace_all_uses_with(new_node)
            # replace_all_uses_with also replaced the relu's own input: point it back
            new_node.args = (node,)
traced.graph.lint()
traced.recompile()
assert torch.allclose(traced(x, y), torch.relu(x + y) * 2)


######################################################################
# The Interpreter Pattern: ShapeProp, as the documentation writes it
class ShapeProp:
    """
    Shape propagation. This class takes a `GraphModule`.
    Then, its `propagate` method executes the `GraphModule`
    node-by-node with the given arguments. As each operation
    executes, the ShapeProp class stores away the shape and
    element type for the output values of each operation on
    the `shape` and `dtype` attributes of the operation's
    `Node`.
    """

    def __init__(self, mod):
        self.mod = mod
        self.graph = mod.graph
        self.modules = dict(self.mod.named_modules())

    def propagate(self, *args):
        args_iter = iter(args)
        env: Dict[str, Node] = {}

        def load_arg(a):
            return torch.fx.graph.map_arg(a, lambda n: env[n.name])

        def fetch_attr(target: str):
            target_atoms = target.split(".")
            attr_itr = self.mod
            for i, atom in enumerate(target_atoms):
                if not hasattr(attr_itr, atom):
                    raise RuntimeError(f"Node referenced nonexistant target {'.'.join(target_atoms[:i])}")
                attr_itr = getattr(attr_itr, atom)
            return attr_itr

        for node in self.graph.nodes:
            if node.op == "placeholder":
                result = next(args_iter)
            elif node.op == "get_attr":
                result = fetch_attr(node.target)
            elif node.op == "call_function":
                result = node.target(*load_arg(node.args), **load_arg(node.kwargs))
            elif node.op == "call_method":
                self_obj, *args = load_arg(node.args)
                kwargs = load_arg(node.kwargs)
                result = getattr(self_obj, node.target)(*args, **kwargs)
            elif node.op == "call_module":
                result = self.modules[node.target](*load_arg(node.args), **load_arg(node.kwargs))
            elif node.op == "output":
                return load_arg(node.args[0])

            # This is the only code specific to shape propagation.
            # you can delete this `if` branch and this becomes
            # a generic GraphModule interpreter.
            if isinstance(result, torch.Tensor):
                node.shape = result.shape
                node.dtype = result.dtype

            env[node.name] = result

        return None


class SmallNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 8, 3, padding=1)
        self.bn1 = nn.BatchNorm2d(8)
        self.conv2 = nn.Conv2d(8, 16, 3, stride=2)
        self.pool = nn.AdaptiveAvgPool2d((1, 1))
        self.fc = nn.Linear(16, 10)
        self.register_buffer("scale", torch.ones(10))

    def forward(self, x):
        x = F.relu(self.bn1(self.conv1(x)))
        x = self.conv2(x).relu()
        x = torch.flatten(self.pool(x), 1)
        return self.fc(x) * self.scale


net = SmallNet().eval()
gm = torch.fx.symbolic_trace(net)
sample_input = torch.randn(2, 3, 16, 16)
out = ShapeProp(gm).propagate(sample_input)
assert torch.allclose(out, net(sample_input))
shapes: Dict[str, Any] = {}
for node in gm.graph.nodes:
    if hasattr(node, "shape"):
        shapes[node.name] = (tuple(node.shape), node.dtype)
        print(node.name, node.op, tuple(node.shape), node.dtype)
assert shapes["x"] == ((2, 3, 16, 16), torch.float32)
assert shapes["conv1"][0] == (2, 8, 16, 16)
assert shapes["conv2"][0] == (2, 16, 7, 7)
assert shapes["flatten"][0] == (2, 16)
assert shapes["fc"][0] == (2, 10)
assert shapes["scale"][0] == (10,)

######################################################################
# The library's own pass: torch.fx.passes.shape_prop.ShapeProp stores TensorMetadata on node.meta
from torch.fx.passes.shape_prop import ShapeProp as LibShapeProp

gm = torch.fx.symbolic_trace(net)
LibShapeProp(gm).propagate(sample_input)
for node in gm.graph.nodes:
    if node.op != "output" and node.name in shapes:
        meta = node.meta["tensor_meta"]
        assert (tuple(meta.shape), meta.dtype) == shapes[node.name], node.name
print("fx shape propagation and transformations: ok")
