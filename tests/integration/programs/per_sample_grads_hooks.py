# Per-sample gradients the way Opacus computes them (its GradSampleModule, as its "Building an Image Classifier
# with Differential Privacy" tutorial uses it), written with PyTorch's module hooks: a forward hook keeps each
# layer's input activations, a full backward hook receives the gradients of its output, and the per-sample
# gradient of a Linear or Conv2d weight is an einsum of the two (the convolution's input unfolded into patches).
# Then one DP-SGD step as Opacus's optimizer takes it (per-sample clipping to a norm bound, summed, Gaussian
# noise, averaged) and a short DP-SGD training run. Adapted: no Opacus (the hooks and the einsum rules are
# written here from its documented method), CIFAR-10 becomes a synthetic 8x8 two-class set. Checked: the hooked
# per-sample gradients equal a loop of autograd.grad over single samples and torch.func's vmap(grad(...)) over
# functional_call; the DP-SGD update equals the one computed by hand; the training loss falls.
import torch
import torch.nn.functional as F
from torch import nn
from torch.func import functional_call, grad, vmap

torch.manual_seed(0)


class SmallCNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 6, 3, padding=1)
        self.conv2 = nn.Conv2d(6, 8, 3, stride=2)
        self.fc1 = nn.Linear(8 * 3 * 3, 16)
        self.fc2 = nn.Linear(16, 2)

    def forward(self, x):
        x = F.relu(self.conv1(x))
        x = F.relu(self.conv2(x))
        x = torch.flatten(x, 1)
        return self.fc2(F.relu(self.fc1(x)))


class GradSampler:
    """Hooks every Linear and Conv2d of a model; after backward, each parameter has .grad_sample, the gradient
    of every sample's loss (the batch's loss being their mean, as with loss_reduction="mean")."""

    def __init__(self, model):
        self.handles = []
        for module in model.modules():
            if isinstance(module, (nn.Linear, nn.Conv2d)):
                self.handles.append(module.register_forward_hook(self.save_activations))
                self.handles.append(module.register_full_backward_hook(self.compute_grad_sample))

    @staticmethod
    def save_activations(module, inputs, output):
        module.activations = inputs[0].detach()

    @staticmethod
    def compute_grad_sample(module, grad_input, grad_output):
        activations = module.activations
        backprops = grad_output[0].detach()
        n = activations.shape[0]
        # the loss is the batch mean: every sample's own gradient is n times its share
        backprops = backprops * n
        if isinstance(module, nn.Linear):
            weight_grad = torch.einsum("n...i,n...j->nij", backprops, activations)
            bias_grad = torch.einsum("n...k->nk", backprops)
        else:
            patches = F.unfold(
                activations,
                module.kernel_size,
                dilation=module.dilation,
                padding=module.padding,
                stride=module.stride,
            )
            backprops = backprops.reshape(n, backprops.shape[1], -1)
            weight_grad = torch.einsum("noq,npq->nop", backprops, patches).reshape(n, *module.weight.shape)
            bias_grad = backprops.sum(dim=2)
        module.weight.grad_sample = weight_grad
        module.bias.grad_sample = bias_grad

    def remove(self):
        for handle in self.handles:
            handle.remove()


def make_data(n):
    # two classes: the red channel brighter or darker than the noise around it
    y = torch.randint(0, 2, (n,))
    x = torch.randn(n, 3, 8, 8)
    x[:, 0] += (2 * y - 1).float().view(n, 1, 1) * 0.5
    return x, y


model = SmallCNN()
sampler = GradSampler(model)
data, targets = make_data(16)

# ---- per-sample gradients three ways
model.zero_grad()
loss = F.cross_entropy(model(data), targets)
loss.backward()
hooked = {name: p.grad_sample.clone() for name, p in model.named_parameters()}
for name, p in model.named_parameters():
    # their mean is the ordinary gradient of the mean loss
    assert torch.allclose(hooked[name].mean(0), p.grad, atol=1e-6), name

names = [name for name, _ in model.named_parameters()]
loop = {name: [] for name in names}
for i in range(len(data)):
    sample_loss = F.cross_entropy(model(data[i : i + 1]), targets[i : i + 1])
    grads = torch.autograd.grad(sample_loss, list(model.parameters()))
    for name, g in zip(names, grads):
        loop[name].append(g)
loop = {name: torch.stack(gs) for name, gs in loop.items()}

params = {k: v.detach() for k, v in model.named_parameters()}


def compute_loss(params, sample, target):
    prediction = functional_call(model, params, (sample.unsqueeze(0),))
    return F.cross_entropy(prediction, target.unsqueeze(0))


sampler.remove()  # functional_call runs the model's forward: no hooks wanted there
vmapped = vmap(grad(compute_loss), in_dims=(None, 0, 0))(params, data, targets)
for name in names:
    assert hooked[name].shape == (16, *params[name].shape), name
    assert torch.allclose(hooked[name], loop[name], atol=1e-5), name
    assert torch.allclose(hooked[name], vmapped[name], atol=1e-5), name
print("per-sample gradients: hooks == loop == vmap(grad)")


# ---- one DP-SGD step (Opacus's DPOptimizer): clip every sample's whole gradient to max_grad_norm, sum,
# add N(0, (noise_multiplier * max_grad_norm)^2) noise, divide by the batch size
def dp_sgd_step(model, grad_samples, lr, max_grad_norm, noise_multiplier, generator):
    per_sample_norms = torch.stack(
        [g.reshape(g.shape[0], -1).norm(2, dim=1) for g in grad_samples.values()], 1
    )
    per_sample_norms = per_sample_norms.norm(2, dim=1)
    clip_factor = (max_grad_norm / (per_sample_norms + 1e-6)).clamp(max=1.0)
    n = per_sample_norms.shape[0]
    with torch.no_grad():
        for name, p in model.named_parameters():
            summed = torch.einsum("i,i...", clip_factor, grad_samples[name])
            noise = torch.normal(0.0, noise_multiplier * max_grad_norm, size=p.shape, generator=generator)
            p.add_(-lr * (summed + noise) / n)
    return per_sample_norms, clip_factor


before = {k: v.detach().clone() for k, v in model.named_parameters()}
gen = torch.Generator().manual_seed(1)
norms, factors = dp_sgd_step(model, hooked, 0.1, 1.0, 0.5, gen)
assert (factors <= 1.0).all() and (factors < 1.0).any(), factors  # some samples were clipped
# by hand, for the first parameter: the same noise drawn again from the same seed
first = names[0]
clipped = [hooked[first][i] * min(1.0, 1.0 / (norms[i].item() + 1e-6)) for i in range(16)]
noise = torch.normal(0.0, 0.5, size=before[first].shape, generator=torch.Generator().manual_seed(1))
expected = before[first] - 0.1 * (torch.stack(clipped).sum(0) + noise) / 16
assert torch.allclose(dict(model.named_parameters())[first].detach(), expected, atol=1e-6)
print(f"dp-sgd step: {int((factors < 1).sum())} of 16 samples clipped")

# ---- a short DP-SGD training run, with the hooks on again
torch.manual_seed(0)
model = SmallCNN()
sampler = GradSampler(model)
train_x, train_y = make_data(256)
gen = torch.Generator().manual_seed(2)
losses = []
for epoch in range(6):
    perm = torch.randperm(256)
    for start in range(0, 256, 32):
        idx = perm[start : start + 32]
        model.zero_grad()
        loss = F.cross_entropy(model(train_x[idx]), train_y[idx])
        loss.backward()
        grad_samples = {name: p.grad_sample for name, p in model.named_parameters()}
        dp_sgd_step(model, grad_samples, 0.3, 1.0, 0.1, gen)
    with torch.no_grad():
        losses.append(F.cross_entropy(model(train_x), train_y).item())
    print(f"epoch {epoch}: loss {losses[-1]:.4f}")
assert losses[-1] < 0.9 * losses[0] and losses[-1] < 0.6, losses
print("per-sample gradients with hooks (Opacus-style DP-SGD): ok")
