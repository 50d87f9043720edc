# Follows PyTorch's "Pruning Tutorial" (intermediate/pruning_tutorial.py): LeNet, random_unstructured and
# l1_unstructured on one layer, iterative ln_structured, the pruned state_dict, remove, pruning many layers,
# global_unstructured and a custom pruning method; the tutorial's printouts are kept, the sparsity numbers it
# shows are asserted, and a few SGD steps check that pruned weights stay zero while the loss falls.
import torch
import torch.nn.functional as F
import torch.nn.utils.prune as prune  # noqa: PLR0402  (the tutorial's import)
from torch import nn

torch.manual_seed(0)
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


class LeNet(nn.Module):
    def __init__(self):
        super(LeNet, self).__init__()
        # 1 input image channel, 6 output channels, 5x5 square conv kernel
        self.conv1 = nn.Conv2d(1, 6, 5)
        self.conv2 = nn.Conv2d(6, 16, 5)
        self.fc1 = nn.Linear(16 * 5 * 5, 120)  # 5x5 image dimension
        self.fc2 = nn.Linear(120, 84)
        self.fc3 = nn.Linear(84, 10)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv1(x)), (2, 2))
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        x = x.view(-1, int(x.nelement() / x.shape[0]))
        x = F.relu(self.fc1(x))
        x = F.relu(self.fc2(x))
        x = self.fc3(x)
        return x


def zeros(t):
    return int(torch.sum(t == 0))


model = LeNet().to(device=device)

# Inspect a Module
module = model.conv1
print(list(module.named_parameters()))
print(list(module.named_buffers()))
assert [n for n, _ in module.named_parameters()] == ["weight", "bias"]
assert list(module.named_buffers()) == []

# Pruning a Module: 30% of conv1's weights at random
weight_before = module.weight.detach().clone()
prune.random_unstructured(module, name="weight", amount=0.3)
print(list(module.named_parameters()))
print(list(module.named_buffers()))
print(module.weight)
print(module._forward_pre_hooks)
assert [n for n, _ in module.named_parameters()] == ["bias", "weight_orig"]
assert [n for n, _ in module.named_buffers()] == ["weight_mask"]
assert zeros(module.weight_mask) == 45  # round(0.3 * 150)
assert torch.equal(module.weight, weight_before * module.weight_mask)
assert torch.equal(module.weight_orig, weight_before)  # the original values are kept

# the 3 smallest entries of the bias
prune.l1_unstructured(module, name="bias", amount=3)
print(list(module.named_parameters()))
print(list(module.named_buffers()))
print(module.bias)
print(module._forward_pre_hooks)
assert [n for n, _ in module.named_parameters()] == ["weight_orig", "bias_orig"]
assert [n for n, _ in module.named_buffers()] == ["weight_mask", "bias_mask"]
smallest = module.bias_orig.abs().argsort()[:3]
assert module.bias_mask[smallest].sum().item() == 0 and zeros(module.bias_mask) == 3

# Iterative Pruning: half of the 6 output channels by L2 norm, on top of the random mask
prune.ln_structured(module, name="weight", amount=0.5, n=2, dim=0)
print(module.weight)
per_channel = module.weight_mask.reshape(6, -1)
dead = per_channel.sum(1) == 0
assert int(dead.sum()) == 3
# the previous mask is kept in the channels that live
assert torch.equal(
    per_channel[~dead], (weight_before.reshape(6, -1) != 0)[~dead].float() * per_channel[~dead]
)
assert zeros(per_channel[~dead]) > 0

for hook in module._forward_pre_hooks.values():
    if hook._tensor_name == "weight":  # select out the correct hook
        break
print(list(hook))  # pruning history in the container
assert [type(h).__name__ for h in hook] == ["RandomUnstructured", "LnStructured"]

# Serializing a pruned model
print(model.state_dict().keys())
assert list(model.state_dict().keys())[:4] == [
    "conv1.weight_orig",
    "conv1.bias_orig",
    "conv1.weight_mask",
    "conv1.bias_mask",
]

# Remove pruning re-parametrization
print(list(module.named_parameters()))
print(list(module.named_buffers()))
print(module.weight)
pruned = module.weight.detach().clone()
prune.remove(module, "weight")
print(list(module.named_parameters()))
print(list(module.named_buffers()))
assert [n for n, _ in module.named_parameters()] == ["bias_orig", "weight"]
assert [n for n, _ in module.named_buffers()] == ["bias_mask"]
assert torch.equal(module.weight, pruned)

# Pruning multiple parameters in a model
new_model = LeNet()
for name, module in new_model.named_modules():
    # prune 20% of connections in all 2D-conv layers
    if isinstance(module, torch.nn.Conv2d):
        prune.l1_unstructured(module, name="weight", amount=0.2)
    # prune 40% of connections in all linear layers
    elif isinstance(module, torch.nn.Linear):
        prune.l1_unstructured(module, name="weight", amount=0.4)

print(dict(new_model.named_buffers()).keys())  # to verify that all masks exist
assert list(dict(new_model.named_buffers()).keys()) == [
    "conv1.weight_mask",
    "conv2.weight_mask",
    "fc1.weight_mask",
    "fc2.weight_mask",
    "fc3.weight_mask",
]
assert zeros(new_model.conv2.weight) == round(0.2 * 2400) and zeros(new_model.fc1.weight) == round(
    0.4 * 48000
)

# Global pruning
model = LeNet()

parameters_to_prune = (
    (model.conv1, "weight"),
    (model.conv2, "weight"),
    (model.fc1, "weight"),
    (model.fc2, "weight"),
    (model.fc3, "weight"),
)

prune.global_unstructured(
    parameters_to_prune,
    pruning_method=prune.L1Unstructured,
    amount=0.2,
)

sparsity = {}
for name in ["conv1", "conv2", "fc1", "fc2", "fc3"]:
    w = getattr(model, name).weight
    sparsity[name] = 100.0 * float(torch.sum(w == 0)) / float(w.nelement())
    print(f"Sparsity in {name}.weight: {sparsity[name]:.2f}%")
global_sparsity = (
    100.0
    * float(
        torch.sum(model.conv1.weight == 0)
        + torch.sum(model.conv2.weight == 0)
        + torch.sum(model.fc1.weight == 0)
        + torch.sum(model.fc2.weight == 0)
        + torch.sum(model.fc3.weight == 0)
    )
    / float(
        model.conv1.weight.nelement()
        + model.conv2.weight.nelement()
        + model.fc1.weight.nelement()
        + model.fc2.weight.nelement()
        + model.fc3.weight.nelement()
    )
)
print(f"Global sparsity: {global_sparsity:.2f}%")
assert f"{global_sparsity:.2f}" == "20.00", global_sparsity
# one threshold for all: the layers with the smallest initial weights (the big fc1) lose the most
assert len({round(s, 2) for s in sparsity.values()}) > 1
assert sparsity["fc1"] > 20 > sparsity["conv1"], sparsity
threshold = max(
    float(getattr(model, n).weight_orig[getattr(model, n).weight_mask == 0].abs().max()) for n in sparsity
)
assert all(
    float(getattr(model, n).weight_orig[getattr(model, n).weight_mask == 1].abs().min()) >= threshold
    for n in sparsity
)


# Extending torch.nn.utils.prune with custom pruning functions
class FooBarPruningMethod(prune.BasePruningMethod):
    """Prune every other entry in a tensor"""

    PRUNING_TYPE = "unstructured"

    def compute_mask(self, t, default_mask):
        mask = default_mask.clone()
        mask.view(-1)[::2] = 0
        return mask


def foobar_unstructured(module, name):
    """Prunes tensor corresponding to parameter called `name` in `module`
    by removing every other entry in the tensors.
    """
    FooBarPruningMethod.apply(module, name)
    return module


model = LeNet()
foobar_unstructured(model.fc3, name="bias")

print(model.fc3.bias_mask)
assert model.fc3.bias_mask.tolist() == [0.0, 1.0] * 5

# Beyond the tutorial: the globally pruned model trains, and what was pruned stays zero
model = LeNet()
prune.global_unstructured(
    [(m, "weight") for m in (model.conv1, model.conv2, model.fc1, model.fc2, model.fc3)],
    pruning_method=prune.L1Unstructured,
    amount=0.5,
)
x = torch.randn(16, 1, 32, 32)
y = torch.randint(0, 10, (16,))
optimizer = torch.optim.Adam(model.parameters(), lr=2e-3)
losses = []
for step in range(40):
    optimizer.zero_grad()
    loss = F.cross_entropy(model(x), y)
    loss.backward()
    optimizer.step()
    losses.append(loss.item())
print(f"loss {losses[0]:.4f} -> {losses[-1]:.4f}")
assert losses[-1] < losses[0] * 0.3, losses  # 16 samples memorized
model(x)  # the pre-hooks recompute the pruned weights from the trained originals
for m in (model.conv1, model.conv2, model.fc1, model.fc2, model.fc3):
    assert torch.sum(m.weight[m.weight_mask == 0] != 0).item() == 0
    prune.remove(m, "weight")
assert not prune.is_pruned(model)
assert sum(zeros(m.weight) for m in (model.conv1, model.conv2, model.fc1, model.fc2, model.fc3)) >= 61470 // 2
print("pruning tutorial: ok")
