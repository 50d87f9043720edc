# Follows PyTorch's "Tips for Loading an nn.Module from a Checkpoint" recipe (recipes/module_load_state_dict_tips):
# torch.load(mmap=True) memory-maps the checkpoint's storages, the torch.device("meta") context manager builds a
# module without allocating or initializing its parameters, and load_state_dict(assign=True) takes the
# checkpoint's tensors themselves (a copy into meta parameters would be a no-op), then the vanilla load beside it.
# Adapted: the checkpoint is written in a temporary directory instead of the working directory. Asserts added for
# what the recipe states: meta parameters carry shapes but no data, the mmap load gives the saved values, the
# assigned module computes what the saved one does on its checkpoint's tensors, and an optimizer made after the
# load steps them.
import os
import tempfile
import warnings

import torch
from torch import nn

torch.manual_seed(0)
os.chdir(tempfile.mkdtemp())


class SomeModule(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.linears = nn.ModuleList([nn.Linear(1, 1) for i in range(10)])

    def forward(self, x):
        return self.linears(x)


m = SomeModule()
torch.save(m.state_dict(), "checkpoint.pth")
state_dict = torch.load("checkpoint.pth", mmap=True)
with torch.device("meta"):
    meta_m = SomeModule()
meta_m.load_state_dict(state_dict, assign=True)

# the checkpoint's tensors themselves, on the CPU, with the saved values
for name, p in meta_m.named_parameters():
    assert p.device == torch.device("cpu") and isinstance(p, nn.Parameter) and p.requires_grad, name
    assert torch.equal(p, m.state_dict()[name]), name
    assert p.data_ptr() == state_dict[name].data_ptr(), name

# Taking a step back, the vanilla code
state_dict = torch.load("checkpoint.pth")
m = SomeModule()
m.load_state_dict(state_dict)

state_dict = torch.load("checkpoint.pth")
state_dict = torch.load("checkpoint.pth", mmap=True)
assert sorted(state_dict) == sorted(m.state_dict())
for k, v in state_dict.items():
    assert torch.equal(v, m.state_dict()[k]), k

m = SomeModule()

with torch.device("meta"):
    meta_m = SomeModule()

# meta tensors carry metadata but no data
for p in meta_m.parameters():
    assert p.is_meta and p.device.type == "meta" and p.shape in ((1, 1), (1,))
    assert p.requires_grad
assert meta_m.linears[0].weight.size() == (1, 1) and meta_m.linears[0].weight.stride() == (1, 1)
# an explicit device argument is not overridden by the context manager
with torch.device("meta"):
    assert torch.empty(2, device="cpu").device == torch.device("cpu")
    assert torch.empty(2).is_meta

m.load_state_dict(state_dict)
for k, v in state_dict.items():
    assert torch.equal(m.state_dict()[k], v), k

# an in-place copy into a meta parameter is a no-op: without assign the parameters stay on meta
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    meta_m.load_state_dict(state_dict)
assert all(p.is_meta for p in meta_m.parameters())

meta_m.load_state_dict(state_dict, assign=True)
assert not any(p.is_meta for p in meta_m.parameters())

# the optimizer must be initialized after the module is loaded with assign=True
opt = torch.optim.SGD(meta_m.parameters(), lr=0.1)
meta_m.linears[0](torch.ones(1)).sum().backward()
before = meta_m.linears[0].weight.detach().clone()
opt.step()
assert not torch.equal(meta_m.linears[0].weight.detach(), before)
print("module load_state_dict tips: ok")
