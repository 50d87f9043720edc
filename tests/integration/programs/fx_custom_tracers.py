# Follows three of pytorch/examples' FX programs (fx/custom_tracer.py, fx/module_tracer.py, fx/primitive_library.py):
# Tracer subclasses that lower nn.ReLU by overriding is_leaf_module and tag every node from create_node; a
# ModulePathTracer whose call_module/create_proxy overrides record the qualified name of the module each node
# came from (on a ResNet-18); composite "low precision" functions kept as call_function nodes by torch.fx.wrap,
# inlined afterwards through fx.Proxy and map_arg, and inlined during tracing by an InliningTracer. Adapted:
# torchvision's resnet18 is built here (same module names, narrower channels); the printed code the examples show
# in docstrings is asserted node by node, and each rewritten module is run against the eager one.
# ruff: noqa: UP035, UP006, FA100, SIM201, RUF012  (the examples' typing.Dict/Tuple/Optional/Union, comparisons and
# class-level tables, kept)
from typing import Any, Callable, Dict, Optional, Tuple, Union

import torch
import torch.fx
from torch.fx import Graph, GraphModule, Node, Tracer, symbolic_trace

torch.manual_seed(0)

# ---- custom_tracer.py, #1: trace through every torch.nn.ReLU submodule


class M1(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.relu = torch.nn.ReLU()

    def forward(self, x):
        return self.relu(x)


default_traced: GraphModule = symbolic_trace(M1())
default_traced.graph.print_tabular()
assert [n.op for n in default_traced.graph.nodes] == ["placeholder", "call_module", "output"]


class LowerReluTracer(Tracer):
    def is_leaf_module(self, m: torch.nn.Module, qualname: str):
        if isinstance(m, torch.nn.ReLU):
            return False
        return super().is_leaf_module(m, qualname)


lower_relu_tracer = LowerReluTracer()
custom_traced_graph: Graph = lower_relu_tracer.trace(M1())
custom_traced_graph.print_tabular()
relu_node = [n for n in custom_traced_graph.nodes if n.op == "call_function"]
assert len(relu_node) == 1 and relu_node[0].target is torch.nn.functional.relu, relu_node
assert relu_node[0].kwargs == {"inplace": False}, relu_node[0].kwargs
x = torch.randn(3, 4)
assert torch.equal(GraphModule(M1(), custom_traced_graph)(x), torch.relu(x))

# ---- custom_tracer.py, #2: an extra attribute on each node


class M2(torch.nn.Module):
    def forward(self, a, b):
        return a + b


class TaggingTracer(Tracer):
    def create_node(
        self,
        kind: str,
        target: Union[str, Callable],
        args: Tuple[Any],
        kwargs: Dict[str, Any],
        name: Optional[str] = None,
        type_expr: Optional[Any] = None,
    ) -> Node:
        n = super().create_node(kind, target, args, kwargs, name)
        n.tag = "foo"
        return n


custom_traced_graph = TaggingTracer().trace(M2())


def assert_all_nodes_have_tags(g: Graph) -> bool:
    for n in g.nodes:
        if not hasattr(n, "tag") or not n.tag == "foo":
            return False
    return True


print(assert_all_nodes_have_tags(custom_traced_graph))
assert assert_all_nodes_have_tags(custom_traced_graph)
assert not assert_all_nodes_have_tags(symbolic_trace(M2()).graph)

# ---- module_tracer.py: record the module hierarchy with a custom tracer


class ModulePathTracer(torch.fx.Tracer):
    current_module_qualified_name: str = ""
    node_to_originating_module: Dict[torch.fx.Node, str] = {}

    def call_module(
        self,
        m: torch.nn.Module,
        forward: Callable[..., Any],
        args: Tuple[Any, ...],
        kwargs: Dict[str, Any],
    ) -> Any:
        old_qualname = self.current_module_qualified_name
        try:
            self.current_module_qualified_name = self.path_of_module(m)
            return super().call_module(m, forward, args, kwargs)
        finally:
            self.current_module_qualified_name = old_qualname

    def create_proxy(
        self,
        kind: str,
        target: torch.fx.node.Target,
        args: Tuple[Any, ...],
        kwargs: Dict[str, Any],
        name: Optional[str] = None,
        type_expr: Optional[Any] = None,
    ):
        proxy = super().create_proxy(kind, target, args, kwargs, name, type_expr)
        self.node_to_originating_module[proxy.node] = self.current_module_qualified_name
        return proxy


# torchvision.models.resnet18, as torchvision writes it (names matter here: they are what the tracer records)
class BasicBlock(torch.nn.Module):
    def __init__(self, inplanes, planes, stride=1, downsample=None):
        super().__init__()
        self.conv1 = torch.nn.Conv2d(inplanes, planes, 3, stride, 1, bias=False)
        self.bn1 = torch.nn.BatchNorm2d(planes)
        self.relu = torch.nn.ReLU(inplace=True)
        self.conv2 = torch.nn.Conv2d(planes, planes, 3, 1, 1, bias=False)
        self.bn2 = torch.nn.BatchNorm2d(planes)
        self.downsample = downsample

    def forward(self, x):
        identity = x
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        if self.downsample is not None:
            identity = self.downsample(x)
        out += identity
        return self.relu(out)


class ResNet18(torch.nn.Module):
    def __init__(self, width=8, num_classes=10):
        super().__init__()
        self.inplanes = width
        self.conv1 = torch.nn.Conv2d(3, width, 7, 2, 3, bias=False)
        self.bn1 = torch.nn.BatchNorm2d(width)
        self.relu = torch.nn.ReLU(inplace=True)
        self.maxpool = torch.nn.MaxPool2d(3, 2, 1)
        self.layer1 = self._make_layer(width, 1)
        self.layer2 = self._make_layer(width * 2, 2)
        self.layer3 = self._make_layer(width * 4, 2)
        self.layer4 = self._make_layer(width * 8, 2)
        self.avgpool = torch.nn.AdaptiveAvgPool2d((1, 1))
        self.fc = torch.nn.Linear(width * 8, num_classes)

    def _make_layer(self, planes, stride):
        downsample = None
        if stride != 1 or self.inplanes != planes:
            downsample = torch.nn.Sequential(
                torch.nn.Conv2d(self.inplanes, planes, 1, stride, bias=False), torch.nn.BatchNorm2d(planes)
            )
        layers = [BasicBlock(self.inplanes, planes, stride, downsample), BasicBlock(planes, planes)]
        self.inplanes = planes
        return torch.nn.Sequential(*layers)

    def forward(self, x):
        x = self.maxpool(self.relu(self.bn1(self.conv1(x))))
        x = self.layer4(self.layer3(self.layer2(self.layer1(x))))
        x = torch.flatten(self.avgpool(x), 1)
        return self.fc(x)


rn18 = ResNet18()
tracer = ModulePathTracer()
traced_rn18 = tracer.trace(rn18)
origin = {}
for node in traced_rn18.nodes:
    module_qualname = tracer.node_to_originating_module.get(node)
    print("Node", node, "is from module", module_qualname)
    origin[node.name] = module_qualname
# the lines the example prints (its docstring), a sample of them
expected = {
    "x": "",
    "conv1": "conv1",
    "layer1_0_conv1": "layer1.0.conv1",
    "add": "layer1.0",
    "layer1_0_relu_1": "layer1.0.relu",
    "layer2_0_downsample_0": "layer2.0.downsample.0",
    "layer2_0_downsample_1": "layer2.0.downsample.1",
    "add_2": "layer2.0",
    "add_7": "layer4.1",
    "avgpool": "avgpool",
    "flatten": "",
    "fc": "fc",
    "output": None,
}
for name, qualname in expected.items():
    assert origin[name] == qualname, (name, origin.get(name), qualname)
print(len(origin))
rn18.eval()
img = torch.randn(2, 3, 32, 32)
assert torch.allclose(GraphModule(rn18, traced_rn18)(img), rn18(img), atol=1e-6)

# ---- primitive_library.py: composite operations kept whole by wrap, then inlined


def sigmoid_lowp(x: torch.Tensor):
    x = x.float()
    x = x.sigmoid()
    return x.half()


torch.fx.wrap(sigmoid_lowp)


def add_lowp(a: torch.Tensor, b: torch.Tensor):
    a, b = a.float(), b.float()
    c = a + b
    return c.half()


torch.fx.wrap(add_lowp)


class Foo(torch.nn.Module):
    def forward(self, x, y):
        x = sigmoid_lowp(x)
        y = sigmoid_lowp(y)
        return add_lowp(x, y)


traced = torch.fx.symbolic_trace(Foo())
print(traced.code)
assert [n.target for n in traced.graph.nodes if n.op == "call_function"] == [
    sigmoid_lowp,
    sigmoid_lowp,
    add_lowp,
]
assert "sigmoid_lowp" in traced.code and "add_lowp" in traced.code

a, b = torch.randn(5), torch.randn(5)
reference = Foo()(a, b)
assert reference.dtype == torch.float16


def inline_lowp_func(n: torch.fx.Node):
    if n.op == "call_function" and n.target.__module__ == inline_lowp_func.__module__:
        with n.graph.inserting_before(n):
            proxy_args = torch.fx.node.map_arg(n.args, torch.fx.Proxy)
            proxy_kwargs = torch.fx.node.map_arg(n.kwargs, torch.fx.Proxy)
            output_proxy = n.target(*proxy_args, **proxy_kwargs)
            n.replace_all_uses_with(output_proxy.node)
            n.graph.erase_node(n)


for node in list(traced.graph.nodes):
    if node.op == "call_function" and node.target is sigmoid_lowp:
        inline_lowp_func(node)

traced.recompile()
print(traced.code)
ops = [(n.op, n.target) for n in traced.graph.nodes if n.op in ("call_method", "call_function")]
assert ops == [
    ("call_method", "float"),
    ("call_method", "sigmoid"),
    ("call_method", "half"),
    ("call_method", "float"),
    ("call_method", "sigmoid"),
    ("call_method", "half"),
    ("call_function", add_lowp),
], ops
assert torch.equal(traced(a, b), reference)

f = Foo()


class InliningTracer(torch.fx.Tracer):
    FNS_TO_INLINE = [add_lowp]

    def create_node(self, kind, target, args, kwargs, name=None, type_expr=None):
        if kind == "call_function" and target in self.FNS_TO_INLINE:
            proxy_args = torch.fx.node.map_arg(args, torch.fx.Proxy)
            proxy_kwargs = torch.fx.node.map_arg(kwargs, torch.fx.Proxy)
            return target(*proxy_args, **proxy_kwargs).node
        else:
            return super().create_node(kind, target, args, kwargs, name, type_expr)


tracer = InliningTracer()
graph = tracer.trace(f)
module = torch.fx.GraphModule(f, graph)
print(module.code)
ops = [(n.op, n.target) for n in graph.nodes if n.op in ("call_method", "call_function")]
assert ops[:2] == [("call_function", sigmoid_lowp)] * 2, ops
assert [t for _, t in ops[2:]] == ["float", "float", __import__("operator").add, "half"], ops
assert torch.equal(module(a, b), reference)
print("fx_custom_tracers: ok")
