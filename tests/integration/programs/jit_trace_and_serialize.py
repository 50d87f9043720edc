# Follows the Python half of PyTorch's "Loading a TorchScript Model in C++" tutorial (advanced/cpp_export: trace a
# ResNet with an example input, script a module whose forward branches on its input, save both archives) and the
# examples of the torch.jit.trace / trace_module / save / load / freeze reference pages: check_trace with
# check_inputs, the TracingCheckError a trace that depends on its input's values raises, the TracerWarning of a
# Python number taken out of a tensor, trace_module of two methods, _extra_files and map_location. Adapted: the
# C++ loader is torch.jit.load in this process, torchvision's resnet18 is built here (same layers, narrower
# channels, a 32x32 input), the archives go to a BytesIO and a temporary directory. Checked: every traced,
# scripted, frozen and reloaded module computes what the eager module does, on the example input and on others.
import io
import os
import tempfile
import warnings

import torch
from torch import nn

torch.manual_seed(0)


# ---- a ResNet-18-shaped network, traced as the tutorial traces torchvision's
class BasicBlock(nn.Module):
    def __init__(self, cin, cout, stride):
        super().__init__()
        self.conv1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(cout)
        self.conv2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(cout)
        self.relu = nn.ReLU(inplace=True)
        self.downsample = None
        if stride != 1 or cin != cout:
            self.downsample = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False), nn.BatchNorm2d(cout))

    def forward(self, x):
        identity = x if self.downsample is None else self.downsample(x)
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        return self.relu(out + identity)


class ResNet18(nn.Module):
    def __init__(self, width=8, num_classes=10):
        super().__init__()
        self.conv1 = nn.Conv2d(3, width, 3, 1, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(width)
        self.relu = nn.ReLU(inplace=True)
        layers, cin = [], width
        for i, mult in enumerate((1, 2, 4, 8)):
            stride = 1 if i == 0 else 2
            layers.append(
                nn.Sequential(
                    BasicBlock(cin, width * mult, stride), BasicBlock(width * mult, width * mult, 1)
                )
            )
            cin = width * mult
        self.layer1, self.layer2, self.layer3, self.layer4 = layers
        self.avgpool = nn.AdaptiveAvgPool2d((1, 1))
        self.fc = nn.Linear(cin, num_classes)

    def forward(self, x):
        x = self.relu(self.bn1(self.conv1(x)))
        x = self.layer4(self.layer3(self.layer2(self.layer1(x))))
        return self.fc(torch.flatten(self.avgpool(x), 1))


model = ResNet18().eval()
# BatchNorm's running statistics away from their defaults, so that eval mode means something
with torch.no_grad():
    for module in model.modules():
        if isinstance(module, nn.BatchNorm2d):
            module.running_mean.uniform_(-0.1, 0.1)
            module.running_var.uniform_(0.5, 1.5)

example = torch.rand(1, 3, 32, 32)
others = [torch.rand(4, 3, 32, 32), torch.rand(2, 3, 48, 40)]
# check_inputs: the trace is re-run on these and compared with the eager module (as PyTorch's check_trace does)
traced = torch.jit.trace(model, example, check_inputs=[(t,) for t in others])
with torch.no_grad():
    for t in [example, *others]:
        assert torch.allclose(traced(t), model(t), atol=1e-5)
print("traced resnet output:", traced(torch.ones(1, 3, 32, 32))[0, :5].tolist())
assert "aten::" in str(traced.graph) or "conv" in str(traced.graph).lower()

# save as the tutorial does, to a file, and load it back
with tempfile.TemporaryDirectory() as tmp:
    path = os.path.join(tmp, "traced_resnet_model.pt")
    traced.save(path)
    loaded = torch.jit.load(path, map_location="cpu")
with torch.no_grad():
    for t in [example, *others]:
        assert torch.allclose(loaded(t), model(t), atol=1e-5)
print("saved and loaded: ok")


# ---- a module with control flow: tracing bakes the branch in, scripting keeps it
class MyModule(nn.Module):
    def __init__(self, n, m):
        super().__init__()
        self.weight = nn.Parameter(torch.rand(n, m))

    def forward(self, input):
        if input.sum() > 0:
            output = self.weight.mv(input)
        else:
            output = self.weight + input
        return output


my_module = MyModule(10, 20)
scripted = torch.jit.script(my_module)
positive, negative = torch.rand(20), -torch.rand(20)
with torch.no_grad():
    assert torch.allclose(scripted(positive), my_module(positive))
    assert torch.allclose(scripted(negative), my_module(negative))

buffer = io.BytesIO()
torch.jit.save(scripted, buffer, _extra_files={"notes.txt": "scripted MyModule"})
buffer.seek(0)
extra = {"notes.txt": ""}
reloaded = torch.jit.load(buffer, _extra_files=extra)
assert extra["notes.txt"] in ("scripted MyModule", b"scripted MyModule"), extra
with torch.no_grad():
    assert torch.allclose(reloaded(negative), my_module(negative))
    assert torch.allclose(reloaded(positive), my_module(positive))
print("scripted with control flow, saved with extra files: ok")

# tracing the same module: the comparison on another input shows the baked-in branch
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    traced_branch = torch.jit.trace(my_module, positive, check_trace=False)
assert any(issubclass(w.category, torch.jit.TracerWarning) for w in caught), [str(w.message) for w in caught]
with torch.no_grad():
    # the positive branch (mv) is all the trace knows: on a negative input it still runs mv
    assert torch.allclose(traced_branch(negative), my_module.weight.mv(negative))
# with check_inputs on the other branch, trace itself reports the divergence
try:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.jit.trace(my_module, positive, check_inputs=[(negative,)])
    raise AssertionError("a trace of data-dependent control flow passed its check")
except torch.jit.TracingCheckError as err:
    assert "Tracing failed sanity checks" in str(err), err
print("traced control flow: TracerWarning and TracingCheckError as documented")


# ---- trace_module: several methods of one module, each with its example inputs (the reference's example)
class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(1, 1, 3)

    def forward(self, x):
        return self.conv(x)

    def weighted_kernel_sum(self, weight):
        return weight * self.conv.weight


net = Net()
example_weight = torch.rand(1, 1, 3, 3)
example_forward_input = torch.rand(1, 1, 3, 3)
module = torch.jit.trace_module(
    net, {"forward": example_forward_input, "weighted_kernel_sum": example_weight}
)
probe = torch.rand(2, 1, 5, 5)
with torch.no_grad():
    assert torch.allclose(module(probe), net(probe))
    assert torch.allclose(
        module.weighted_kernel_sum(example_weight * 2), net.weighted_kernel_sum(example_weight * 2)
    )


# a traced function (not a module), with the tracer's check on other inputs
def fused_gelu_bias(x, bias):
    y = x + bias
    return y * 0.5 * (1.0 + torch.erf(y / 1.41421))


traced_fn = torch.jit.trace(
    fused_gelu_bias, (torch.rand(4, 8), torch.rand(8)), check_inputs=[(torch.rand(3, 8), torch.rand(8))]
)
a, b = torch.randn(5, 8), torch.randn(8)
assert torch.allclose(traced_fn(a, b), fused_gelu_bias(a, b))
# gradients flow through a traced function as through the eager one
a_req = a.clone().requires_grad_()
traced_fn(a_req, b).sum().backward()
a_ref = a.clone().requires_grad_()
fused_gelu_bias(a_ref, b).sum().backward()
assert torch.allclose(a_req.grad, a_ref.grad, atol=1e-6)
print("trace_module and traced functions: ok")

# ---- freeze: parameters become constants, the module keeps computing the same thing
frozen = torch.jit.freeze(torch.jit.script(model.eval()))
with torch.no_grad():
    for t in [example, *others]:
        assert torch.allclose(frozen(t), model(t), atol=1e-5)
optimized = torch.jit.optimize_for_inference(torch.jit.script(model.eval()))
with torch.no_grad():
    assert torch.allclose(optimized(example), model(example), atol=1e-5)
print("freeze and optimize_for_inference: ok")
print("jit trace and serialize: ok")
