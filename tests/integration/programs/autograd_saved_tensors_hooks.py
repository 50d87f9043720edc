# Follows PyTorch's "Hooks for autograd saved tensors" tutorial (intermediate/autograd_saved_tensors_hooks_tutorial):
# what a graph saves for backward (grad_fn._saved_self / _saved_other / _saved_result), the pack / unpack hooks of
# torch.autograd.graph.saved_tensors_hooks (identity hooks that print, a scale and unscale, packing to a list
# index, a tuple, a repr string), saved tensors moved to the CPU (by hand and with save_on_cpu, also inside a
# module), and saved tensors written to disk (the naive, the incorrect -- a second access of a saved tensor
# fails once its file is gone -- and the self-deleting temporary file). Asserts added for what the tutorial prints
# or states in comments, and that the self-deleting files are gone once the graph is freed.
import gc
import os
import uuid

import torch

torch.manual_seed(0)

a = torch.randn(5, requires_grad=True)
b = torch.ones(5, requires_grad=True)
y = a * b

print(y.grad_fn._saved_self)
print(y.grad_fn._saved_other)
assert torch.equal(y.grad_fn._saved_self, a) and torch.equal(y.grad_fn._saved_other, b)


def f(x):
    return x * x


x = torch.randn(5, requires_grad=True)
y = f(f(f(x)))

a = torch.randn(5, requires_grad=True)
b = torch.ones(5, requires_grad=True)
y = a * b

print(y.grad_fn._saved_self is a)  # True
print(y.grad_fn._saved_other is b)  # True
assert y.grad_fn._saved_self is a and y.grad_fn._saved_other is b

a = torch.randn(5, requires_grad=True)
y = torch.exp(a)
print(y.grad_fn._saved_result.equal(y))  # True
print(y.grad_fn._saved_result is y)  # False
assert y.grad_fn._saved_result.equal(y) and y.grad_fn._saved_result is not y
# the saved result shares y's storage
assert y.grad_fn._saved_result.data_ptr() == y.data_ptr()

# ---- saved tensors hooks
events = []


def pack_hook(x):
    print("Packing", x)
    events.append(("pack", x.tolist()))
    return x


def unpack_hook(x):
    print("Unpacking", x)
    events.append(("unpack", x.tolist()))
    return x


a = torch.ones(5, requires_grad=True)
b = torch.ones(5, requires_grad=True) * 2

with torch.autograd.graph.saved_tensors_hooks(pack_hook, unpack_hook):
    y = a * b

y.sum().backward()
# a * b saves both operands when packing, and unpacks both in backward
assert sorted(e[0] for e in events) == ["pack", "pack", "unpack", "unpack"], events
assert events[0][0] == "pack" and events[1][0] == "pack"
assert sorted(e[1] for e in events[:2]) == [[1.0] * 5, [2.0] * 5], events
assert torch.equal(a.grad, torch.full((5,), 2.0))

x = torch.randn(5, requires_grad=True)
with torch.autograd.graph.saved_tensors_hooks(lambda x: x * 4, lambda x: x / 4):
    y = torch.pow(x, 2)
y.sum().backward()
assert x.grad.equal(2 * x)

# ---- some unconventional examples: returning an int
storage = []


def pack(x):
    storage.append(x)
    return len(storage) - 1


def unpack(x):
    return storage[x]


x = torch.randn(5, requires_grad=True)
with torch.autograd.graph.saved_tensors_hooks(pack, unpack):
    y = x * x
y.sum().backward()

assert x.grad.equal(2 * x)
assert len(storage) == 2  # x * x saves x twice (self and other)


# returning a tuple
def pack(x):
    delta = torch.randn(*x.size())
    return x - delta, lambda x: x + delta


def unpack(packed):
    x, f = packed
    return f(x)


x = torch.randn(5, requires_grad=True)
with torch.autograd.graph.saved_tensors_hooks(pack, unpack):
    y = x * x
y.sum().backward()

assert torch.allclose(x.grad, 2 * x)

# returning a str
x = torch.randn(5, requires_grad=True)
with torch.autograd.graph.saved_tensors_hooks(lambda x: repr(x), lambda x: eval("torch." + x)):
    y = x * x
y.sum().backward()
assert torch.all(x.grad - 2 * x <= 1e-4)


# ---- saving tensors to CPU
def pack_hook(x):
    return (x.device, x.cpu())


def unpack_hook(packed):
    device, tensor = packed
    return tensor.to(device)


x = torch.randn(5, requires_grad=True)
with torch.autograd.graph.saved_tensors_hooks(pack, unpack):
    y = x * x
y.sum().backward()

torch.allclose(x.grad, (2 * x))
assert torch.allclose(x.grad, (2 * x))

import torch.nn as nn  # noqa: PLR0402  (the tutorial's import, where it imports it)


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.randn(5))

    def forward(self, x):
        with torch.autograd.graph.save_on_cpu(pin_memory=True):
            # some computation
            return self.w * x


x = torch.randn(5)
model = Model()
loss = model(x).sum()
loss.backward()
assert torch.allclose(model.w.grad, x)


class SaveToCpu(nn.Module):
    def __init__(self, module):
        super().__init__()
        self.module = module

    def forward(self, *args, **kwargs):
        with torch.autograd.graph.save_on_cpu(pin_memory=True):
            return self.module(*args, **kwargs)


model = nn.Sequential(
    nn.Linear(10, 100),
    SaveToCpu(nn.Linear(100, 100)),
    nn.Linear(100, 10),
)

x = torch.randn(10)
loss = model(x).sum()
loss.backward()
# the same gradients as without the wrapper
grads = [p.grad.clone() for p in model.parameters()]
model.zero_grad()
plain = nn.Sequential(model[0], model[1].module, model[2])
plain(x).sum().backward()
for g, p in zip(grads, plain.parameters()):
    assert torch.allclose(g, p.grad)

# ---- saving tensors to disk
# Naive version - HINT: Don't do this

tmp_dir = "temp"


def pack_hook(tensor):
    name = os.path.join(tmp_dir, str(uuid.uuid4()))
    torch.save(tensor, name)
    return name


def unpack_hook(name):
    return torch.load(name)


# Incorrect version - HINT: Don't do this

import tempfile

tmp_dir_obj = tempfile.TemporaryDirectory()
tmp_dir = tmp_dir_obj.name


def pack_hook(tensor):
    name = os.path.join(tmp_dir, str(uuid.uuid4()))
    torch.save(tensor, name)
    return name


def unpack_hook(name):
    tensor = torch.load(name)
    os.remove(name)
    return tensor


x = torch.ones(5, requires_grad=True)
with torch.autograd.graph.saved_tensors_hooks(pack_hook, unpack_hook):
    y = x.pow(2)
print(y.grad_fn._saved_self)
try:
    print(y.grad_fn._saved_self)
    print("Double access succeeded!")
    double_access = True
except:  # noqa: E722  (the tutorial's bare except)
    print("Double access failed!")
    double_access = False
assert not double_access


class SelfDeletingTempFile:
    def __init__(self):
        self.name = os.path.join(tmp_dir, str(uuid.uuid4()))

    def __del__(self):
        os.remove(self.name)


def pack_hook(tensor):
    temp_file = SelfDeletingTempFile()
    torch.save(tensor, temp_file.name)
    return temp_file


def unpack_hook(temp_file):
    return torch.load(temp_file.name)


# the self-deleting files: readable twice, gone once backward has freed what the graph saved
x = torch.randn(5, requires_grad=True)
with torch.autograd.graph.saved_tensors_hooks(pack_hook, unpack_hook):
    y = x.pow(2)
assert len(os.listdir(tmp_dir)) == 1
assert torch.equal(y.grad_fn._saved_self, x) and torch.equal(y.grad_fn._saved_self, x)
y.sum().backward()
gc.collect()
assert os.listdir(tmp_dir) == [], os.listdir(tmp_dir)
assert torch.allclose(x.grad, 2 * x)

# Only save on disk tensors that have size >= 1000
SAVE_ON_DISK_THRESHOLD = 1000


def pack_hook(x):
    if x.numel() < SAVE_ON_DISK_THRESHOLD:
        return x
    temp_file = SelfDeletingTempFile()
    torch.save(tensor, temp_file.name)  # noqa: F821  (the tutorial's; never reached with its small tensors)
    return temp_file


def unpack_hook(tensor_or_sctf):
    if isinstance(tensor_or_sctf, torch.Tensor):
        return tensor_or_sctf
    return torch.load(tensor_or_sctf.name)


class SaveToDisk(nn.Module):
    def __init__(self, module):
        super().__init__()
        self.module = module

    def forward(self, *args, **kwargs):
        with torch.autograd.graph.saved_tensors_hooks(pack_hook, unpack_hook):
            return self.module(*args, **kwargs)


net = nn.DataParallel(SaveToDisk(Model()))
out = net(torch.ones(5))
out.sum().backward()
assert torch.equal(net.module.module.w.grad, torch.ones(5))
print("autograd saved tensors hooks: ok")
