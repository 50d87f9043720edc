# Follows PyTorch's "Skipping Module Parameter Initialization" tutorial (prototype/skip_param_init) and the meta
# device page of PyTorch's documentation (torch.meta): re-initializing after construction versus skip_init, a
# custom module written to support skipping (the tutorial's MyModule: a device kwarg passed to parameters,
# submodules, containers and buffers, only torch.nn.init in the constructor), how skip_init works (construct on
# the meta device, then to_empty), meta tensors under `with torch.device("meta")` (shapes without data, ops that
# propagate shapes, data reads that refuse), and the idiom built on it: size a large model on meta, materialize
# it with to_empty and reset_parameters. Asserts added for what the tutorial and the page print or state.
import torch
from torch import nn
from torch.nn.utils import skip_init

torch.manual_seed(0)

# ---- re-initializing after construction, then skipping the default initialization
m = nn.Linear(10, 5)
nn.init.orthogonal_(m.weight)
w = m.weight.detach()
assert torch.allclose(w @ w.T, torch.eye(5), atol=1e-5)

m = skip_init(nn.Linear, 10, 5)
assert m.weight.device == torch.device("cpu") and m.weight.shape == (5, 10) and m.bias.shape == (5,)
assert isinstance(m.weight, nn.Parameter) and m.weight.requires_grad
nn.init.orthogonal_(m.weight)
w = m.weight.detach()
assert torch.allclose(w @ w.T, torch.eye(5), atol=1e-5)

m2 = skip_init(nn.Linear, in_features=6, out_features=1)
assert m2.weight.shape == (1, 6)

# ---- updating modules to support skipping initialization


class MyModule(torch.nn.Module):
    def __init__(self, foo, bar, device=None):
        super().__init__()

        # ==== Case 1: Module creates parameters directly. ====
        self.param1 = torch.nn.Parameter(torch.empty((foo, bar), device=device))
        self.register_parameter("param2", torch.nn.Parameter(torch.empty(bar, device=device)))

        with torch.no_grad():
            nn.init.kaiming_uniform_(self.param1)
            nn.init.uniform_(self.param2)

        # ==== Case 2: Module creates submodules. ====
        self.fc = torch.nn.Linear(bar, 5, device=device)

        self.linears = torch.nn.Sequential(
            torch.nn.Linear(5, 5, device=device), torch.nn.Linear(5, 1, device=device)
        )

        # ==== Case 3: Module creates buffers. ====
        self.register_buffer("some_buffer", torch.ones(7, device=device))

    def forward(self, x):
        return self.linears(self.fc(x @ self.param1 + self.param2)) + self.some_buffer.sum()


mm = skip_init(MyModule, 3, 4)
print(mm)
assert [n for n, _ in mm.named_parameters()] == [
    "param1",
    "param2",
    "fc.weight",
    "fc.bias",
    "linears.0.weight",
    "linears.0.bias",
    "linears.1.weight",
    "linears.1.bias",
]
assert all(p.device == torch.device("cpu") for p in mm.parameters())
assert mm.some_buffer.shape == (7,) and mm.some_buffer.device == torch.device("cpu")
with torch.no_grad():
    for p in mm.parameters():
        p.normal_(0, 0.1)
    mm.some_buffer.fill_(1.0)
assert mm(torch.randn(2, 3)).shape == (2, 1)

# the two refusals skip_init documents
try:
    skip_init(torch.Tensor)
    raise AssertionError("skip_init of a non-module must raise")
except RuntimeError as e:
    assert "Expected a Module" in str(e), e


class NoDevice(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.p = nn.Parameter(torch.zeros(n))


try:
    skip_init(NoDevice, 3)
    raise AssertionError("skip_init of a module without a device arg must raise")
except RuntimeError as e:
    assert "Module must support a 'device' arg to skip initialization" in str(e), e

# ---- implementation details: construct on the meta device, then to_empty
m = nn.Linear(10, 5, device="meta")
print(m.weight)
assert m.weight.is_meta and m.weight.device.type == "meta" and m.weight.shape == (5, 10)
m.to_empty(device="cpu")
assert not m.weight.is_meta and m.weight.device == torch.device("cpu") and m.weight.shape == (5, 10)
assert isinstance(m.weight, nn.Parameter)

# ---- the meta device page
with torch.device("meta"):
    t = torch.randn(30, 30)
print(t)
assert t.device == torch.device("meta") and t.shape == (30, 30) and t.dtype == torch.float32
assert "device='meta'" in repr(t) and "size=(30, 30)" in repr(t)

with torch.device("meta"):
    lin = nn.Linear(20, 30)
print(lin)
assert lin.weight.is_meta and lin.bias.is_meta

# ops propagate shapes, dtypes and strides without data
a = torch.empty(4, 6, device="meta")
b = torch.empty(6, 3, device="meta", dtype=torch.float64)
c = (a.double() @ b).relu().t()
assert c.is_meta and c.shape == (3, 4) and c.dtype == torch.float64 and c.stride() == (1, 3)
d = torch.cat([a, a], dim=1).view(2, 2, 12).sum(-1)
assert d.is_meta and d.shape == (2, 2)
assert torch.empty_like(d, device="cpu").device == torch.device("cpu")
assert torch.zeros(3, device="meta").new_ones(2).is_meta
try:
    d.sum().item()
    raise AssertionError("reading a meta tensor's data must raise")
except (RuntimeError, NotImplementedError) as e:
    print("item() on meta:", type(e).__name__, e)
try:
    d.tolist()
    raise AssertionError("reading a meta tensor's data must raise")
except (RuntimeError, NotImplementedError) as e:
    print("tolist() on meta:", type(e).__name__, e)

# ---- a model too large to build twice: size it on meta, then materialize and initialize


class Block(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.ln = nn.LayerNorm(d)
        self.attn = nn.MultiheadAttention(d, 4, batch_first=True)
        self.mlp = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d))

    def forward(self, x):
        h = self.ln(x)
        x = x + self.attn(h, h, h, need_weights=False)[0]
        return x + self.mlp(self.ln(x))


class TinyLM(nn.Module):
    def __init__(self, vocab=1000, d=64, n_layers=4):
        super().__init__()
        self.embed = nn.Embedding(vocab, d)
        self.blocks = nn.ModuleList(Block(d) for _ in range(n_layers))
        self.head = nn.Linear(d, vocab, bias=False)
        self.register_buffer("pos", torch.zeros(1, 16, d))

    def forward(self, idx):
        x = self.embed(idx) + self.pos[:, : idx.shape[1]]
        for blk in self.blocks:
            x = blk(x)
        return self.head(x)


with torch.device("meta"):
    big = TinyLM()
n_params = sum(p.numel() for p in big.parameters())
print("parameters, counted on meta:", n_params)
assert all(p.is_meta for p in big.parameters()) and big.pos.is_meta
reference_count = sum(p.numel() for p in TinyLM().parameters())
assert n_params == reference_count, (n_params, reference_count)
# shapes flow through the whole model on meta
logits_meta = big(torch.zeros(2, 16, dtype=torch.long, device="meta"))
assert logits_meta.is_meta and logits_meta.shape == (2, 16, 1000)

big.to_empty(device="cpu")
for module in big.modules():
    if hasattr(module, "reset_parameters") and not isinstance(module, nn.MultiheadAttention):
        module.reset_parameters()
    elif isinstance(module, nn.MultiheadAttention):
        module._reset_parameters()
with torch.no_grad():
    big.pos.zero_()
assert not any(p.is_meta for p in big.parameters())
assert torch.equal(big.blocks[0].ln.weight, torch.ones(64))
idx = torch.randint(0, 1000, (2, 16))
logits = big(idx)
assert logits.shape == (2, 16, 1000) and torch.isfinite(logits).all()
loss = nn.functional.cross_entropy(logits.view(-1, 1000), idx.view(-1))
loss.backward()
assert abs(loss.item() - torch.log(torch.tensor(1000.0)).item()) < 1.0, loss.item()
print("skip_param_init: ok")
