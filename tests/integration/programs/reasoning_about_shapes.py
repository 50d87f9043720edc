# Follows PyTorch's "Reasoning about Shapes in PyTorch" recipe (recipes/reasoning_about_shapes): a convolution on
# meta tensors gives the output shape without materializing data (for a 2**10 x 3 x 2**16 x 2**16 input too, in
# about the same time), and forward hooks on a CIFAR-style Net built under `with torch.device("meta")` print each
# layer's output shape. Asserts added: the shapes the recipe prints, that meta outputs stay on meta, and that the
# same Net on real data has the shapes the meta run reported. The timings are printed but not compared.
import timeit

import torch

t = torch.rand(2, 3, 10, 10, device="meta")
conv = torch.nn.Conv2d(3, 5, 2, device="meta")
start = timeit.default_timer()
out = conv(t)
end = timeit.default_timer()

print(out)
print(f"Time taken: {end - start}")
assert out.is_meta and out.shape == (2, 5, 9, 9) and out.requires_grad

t_large = torch.rand(2**10, 3, 2**16, 2**16, device="meta")
start = timeit.default_timer()
out = conv(t_large)
end = timeit.default_timer()

print(out)
print(f"Time taken: {end - start}")
assert out.is_meta and out.shape == (2**10, 5, 2**16 - 1, 2**16 - 1)

import torch.nn as nn  # noqa: PLR0402  (the recipe's import, where it imports it)
import torch.nn.functional as F


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 6, 5)
        self.pool = nn.MaxPool2d(2, 2)
        self.conv2 = nn.Conv2d(6, 16, 5)
        self.fc1 = nn.Linear(16 * 5 * 5, 120)
        self.fc2 = nn.Linear(120, 84)
        self.fc3 = nn.Linear(84, 10)

    def forward(self, x):
        x = self.pool(F.relu(self.conv1(x)))
        x = self.pool(F.relu(self.conv2(x)))
        x = torch.flatten(x, 1)  # flatten all dimensions except batch
        x = F.relu(self.fc1(x))
        x = F.relu(self.fc2(x))
        x = self.fc3(x)
        return x


shapes = []


def fw_hook(module, input, output):
    print(f"Shape of output to {module} is {output.shape}.")
    shapes.append((type(module).__name__, tuple(output.shape), output.device.type))


# Any tensor created within this torch.device context manager will be
# on the meta device.
with torch.device("meta"):
    net = Net()
    inp = torch.randn((1024, 3, 32, 32))

for name, layer in net.named_modules():
    layer.register_forward_hook(fw_hook)

out = net(inp)

assert out.is_meta and out.shape == (1024, 10)
assert shapes == [
    ("Conv2d", (1024, 6, 28, 28), "meta"),
    ("MaxPool2d", (1024, 6, 14, 14), "meta"),
    ("Conv2d", (1024, 16, 10, 10), "meta"),
    ("MaxPool2d", (1024, 16, 5, 5), "meta"),
    ("Linear", (1024, 120), "meta"),
    ("Linear", (1024, 84), "meta"),
    ("Linear", (1024, 10), "meta"),
    ("Net", (1024, 10), "meta"),
], shapes

# the same network on real data reports the same shapes
meta_shapes = [s[:2] for s in shapes]
shapes.clear()
real = Net()
for name, layer in real.named_modules():
    layer.register_forward_hook(fw_hook)
real(torch.randn(2, 3, 32, 32))
assert [(n, (1024,) + s[1:]) for n, s in (x[:2] for x in shapes)] == meta_shapes
assert all(s[2] == "cpu" for s in shapes)
print("reasoning about shapes: ok")
