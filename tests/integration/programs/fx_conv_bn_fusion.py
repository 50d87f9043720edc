# Follows PyTorch's "(beta) Building a Convolution/Batch Norm fuser in FX" tutorial (intermediate/fx_conv_bn_fuser,
# by Horace He): symbolically trace a model, fold each BatchNorm2d that follows a Conv2d into the convolution's
# weights, erase the batch norm from the graph and recompile; then benchmark on ResNet-18. Adapted only where it
# downloads: torchvision.models.resnet18 is built here (same architecture, narrower channels, a small input) and
# its batch norms get running statistics from a few training-mode batches so the fusion has something to fold.
import copy
import time
from typing import Any

import torch
from torch import fx, nn


# Create a simple model (the tutorial's own)
class WrappedBatchNorm(nn.Module):
    def __init__(self):
        super().__init__()
        self.mod = nn.BatchNorm2d(1)

    def forward(self, x):
        return self.mod(x)


class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 1, 1)
        self.bn1 = nn.BatchNorm2d(1)
        self.conv2 = nn.Conv2d(1, 1, 1)
        self.nested = nn.Sequential(
            nn.BatchNorm2d(1),
            nn.Conv2d(1, 1, 1),
        )
        self.wrapped = WrappedBatchNorm()

    def forward(self, x):
        x = self.conv1(x)
        x = self.bn1(x)
        x = self.conv2(x)
        x = self.nested(x)
        x = self.wrapped(x)
        return x


model = M()
model.eval()


# Fusing Convolution with Batch Norm
def fuse_conv_bn_eval(conv, bn):
    """Given a conv Module `A` and an batch_norm module `B`, returns a conv module `C` such that
    C(x) == B(A(x)) in inference mode."""
    assert not (conv.training or bn.training), "Fusion only for eval!"
    fused_conv = copy.deepcopy(conv)

    fused_conv.weight, fused_conv.bias = fuse_conv_bn_weights(
        fused_conv.weight, fused_conv.bias, bn.running_mean, bn.running_var, bn.eps, bn.weight, bn.bias
    )

    return fused_conv


def fuse_conv_bn_weights(conv_w, conv_b, bn_rm, bn_rv, bn_eps, bn_w, bn_b):
    if conv_b is None:
        conv_b = torch.zeros_like(bn_rm)
    bn_var_rsqrt = torch.rsqrt(bn_rv + bn_eps)

    conv_w = conv_w * (bn_w * bn_var_rsqrt).reshape([-1] + [1] * (len(conv_w.shape) - 1))
    conv_b = (conv_b - bn_rm) * bn_var_rsqrt * bn_w + bn_b

    return torch.nn.Parameter(conv_w), torch.nn.Parameter(conv_b)


# FX Fusion Pass
def _parent_name(target: str) -> tuple[str, str]:
    """Splits a ``qualname`` into parent path and last atom. For example, `foo.bar.baz` -> (`foo.bar`, `baz`)"""
    *parent, name = target.rsplit(".", 1)
    return parent[0] if parent else "", name


def replace_node_module(node: fx.Node, modules: dict[str, Any], new_module: torch.nn.Module):
    assert isinstance(node.target, str)
    parent_name, name = _parent_name(node.target)
    setattr(modules[parent_name], name, new_module)


def fuse(model: torch.nn.Module) -> torch.nn.Module:
    model = copy.deepcopy(model)
    # The first step of most FX passes is to symbolically trace our model to obtain a `GraphModule`.
    fx_model: fx.GraphModule = fx.symbolic_trace(model)
    modules = dict(fx_model.named_modules())

    # Each `GraphModule` has a `Graph`; iterating through its `Node`s visits every operation.
    for node in fx_model.graph.nodes:
        if node.op != "call_module":  # If our current node isn't calling a Module then we can ignore it.
            continue
        # A batch norm whose input is a convolution
        if type(modules[node.target]) is nn.BatchNorm2d and type(modules[node.args[0].target]) is nn.Conv2d:
            if len(node.args[0].users) > 1:  # Output of conv is used by other nodes
                continue
            conv = modules[node.args[0].target]
            bn = modules[node.target]
            fused_conv = fuse_conv_bn_eval(conv, bn)
            replace_node_module(node.args[0], modules, fused_conv)
            # As we've folded the batch norm into the conv, we need to replace all uses of the batch norm with
            # the conv.
            node.replace_all_uses_with(node.args[0])
            # Now that all uses of the batch norm have been replaced, we can safely remove the batch norm.
            fx_model.graph.erase_node(node)
    fx_model.graph.lint()
    # After we've modified our graph, we need to recompile our graph in order to keep the generated code in sync.
    fx_model.recompile()
    return fx_model


# Testing out our Fusion Pass
fused_model = fuse(model)
print(fused_model.code)
inp = torch.randn(5, 1, 1, 1)
torch.testing.assert_close(fused_model(inp), model(inp))
# every batch norm follows a conv once traced (the nested one follows conv2, the wrapped one nested.1): 3 convs left
calls = [n.target for n in fused_model.graph.nodes if n.op == "call_module"]
assert calls == ["conv1", "conv2", "nested.1"], calls


# Benchmarking our Fusion on ResNet18 (torchvision's architecture, built here)
class BasicBlock(nn.Module):
    expansion = 1

    def __init__(self, inplanes, planes, stride=1, downsample=None):
        super().__init__()
        self.conv1 = nn.Conv2d(inplanes, planes, kernel_size=3, stride=stride, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(planes)
        self.relu = nn.ReLU(inplace=True)
        self.conv2 = nn.Conv2d(planes, planes, kernel_size=3, stride=1, padding=1, bias=False)
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
    def __init__(self, layers=(2, 2, 2, 2), num_classes=1000, width=64):
        super().__init__()
        self.inplanes = width
        self.conv1 = nn.Conv2d(3, self.inplanes, kernel_size=7, stride=2, padding=3, bias=False)
        self.bn1 = nn.BatchNorm2d(self.inplanes)
        self.relu = nn.ReLU(inplace=True)
        self.maxpool = nn.MaxPool2d(kernel_size=3, stride=2, padding=1)
        self.layer1 = self._make_layer(width, layers[0])
        self.layer2 = self._make_layer(width * 2, layers[1], stride=2)
        self.layer3 = self._make_layer(width * 4, layers[2], stride=2)
        self.layer4 = self._make_layer(width * 8, layers[3], stride=2)
        self.avgpool = nn.AdaptiveAvgPool2d((1, 1))
        self.fc = nn.Linear(width * 8 * BasicBlock.expansion, num_classes)

        for m in self.modules():
            if isinstance(m, nn.Conv2d):
                nn.init.kaiming_normal_(m.weight, mode="fan_out", nonlinearity="relu")
            elif isinstance(m, nn.BatchNorm2d):
                nn.init.constant_(m.weight, 1)
                nn.init.constant_(m.bias, 0)

    def _make_layer(self, planes, blocks, stride=1):
        downsample = None
        if stride != 1 or self.inplanes != planes * BasicBlock.expansion:
            downsample = nn.Sequential(
                nn.Conv2d(
                    self.inplanes, planes * BasicBlock.expansion, kernel_size=1, stride=stride, bias=False
                ),
                nn.BatchNorm2d(planes * BasicBlock.expansion),
            )
        layers = [BasicBlock(self.inplanes, planes, stride, downsample)]
        self.inplanes = planes * BasicBlock.expansion
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


torch.manual_seed(0)
rn18 = ResNet(width=16)
# running statistics from a few batches, so each batch norm folds something other than the identity
rn18.train()
with torch.no_grad():
    for _ in range(3):
        rn18(torch.randn(4, 3, 64, 64) * 1.5 + 0.2)
rn18.eval()

inp = torch.randn(4, 3, 64, 64)
output = rn18(inp)


def benchmark(model, iters=5):
    for _ in range(2):
        model(inp)
    begin = time.time()
    for _ in range(iters):
        model(inp)
    return str(time.time() - begin)


fused_rn18 = fuse(rn18)
n_bn = sum(isinstance(m, nn.BatchNorm2d) for m in rn18.modules())
n_called = [n for n in fused_rn18.graph.nodes if n.op == "call_module"]
n_left = sum(isinstance(fused_rn18.get_submodule(n.target), nn.BatchNorm2d) for n in n_called)
print("batch norms:", n_bn, "left after fusion:", n_left)
assert n_bn == 20 and n_left == 0
with torch.no_grad():
    fused_out = fused_rn18(inp)
torch.testing.assert_close(fused_out, output.detach(), rtol=1e-4, atol=1e-4)
print("Unfused time: ", benchmark(rn18))
print("Fused time: ", benchmark(fused_rn18))
print("fx conv/bn fusion: ok")
