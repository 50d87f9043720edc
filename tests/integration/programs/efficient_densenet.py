# Follows gpleiss/efficient_densenet_pytorch (models/densenet.py and demo.py): a DenseNet-BC whose dense layers
# concatenate all earlier features and, with efficient=True, recompute the concatenation + BatchNorm + ReLU +
# 1x1 conv bottleneck in the backward pass through torch.utils.checkpoint (cp.checkpoint(bn_function,
# *prev_features)) instead of keeping it; trained with SGD (momentum, nesterov) and a MultiStepLR schedule.
# Adapted: CIFAR-10 is replaced by synthetic 3x32x32 images whose class sets a colour/texture bias, a depth-22
# (three blocks of 3 layers) network and 2 epochs. Added: the efficient and the plain network, given the same
# weights, agree on outputs and gradients; the reentrant checkpoint reruns norm1 in the backward (its
# num_batches_tracked counts 2 per step, as in PyTorch); checkpoint_sequential and use_reentrant=False agree too.
# ruff: noqa: SIM114  (densenet.py's initialization branches, kept)
import math
from collections import OrderedDict

import torch
import torch.nn as nn  # noqa: PLR0402  (the repository's import)
import torch.nn.functional as F
import torch.utils.checkpoint as cp

torch.manual_seed(0)


def _bn_function_factory(norm, relu, conv):
    def bn_function(*inputs):
        concated_features = torch.cat(inputs, 1)
        bottleneck_output = conv(relu(norm(concated_features)))
        return bottleneck_output

    return bn_function


class _DenseLayer(nn.Module):
    def __init__(self, num_input_features, growth_rate, bn_size, drop_rate, efficient=False):
        super(_DenseLayer, self).__init__()
        (self.add_module("norm1", nn.BatchNorm2d(num_input_features)),)
        (self.add_module("relu1", nn.ReLU(inplace=True)),)
        (
            self.add_module(
                "conv1",
                nn.Conv2d(num_input_features, bn_size * growth_rate, kernel_size=1, stride=1, bias=False),
            ),
        )
        (self.add_module("norm2", nn.BatchNorm2d(bn_size * growth_rate)),)
        (self.add_module("relu2", nn.ReLU(inplace=True)),)
        (
            self.add_module(
                "conv2",
                nn.Conv2d(bn_size * growth_rate, growth_rate, kernel_size=3, stride=1, padding=1, bias=False),
            ),
        )
        self.drop_rate = drop_rate
        self.efficient = efficient

    def forward(self, *prev_features):
        bn_function = _bn_function_factory(self.norm1, self.relu1, self.conv1)
        if self.efficient and any(prev_feature.requires_grad for prev_feature in prev_features):
            bottleneck_output = cp.checkpoint(bn_function, *prev_features, use_reentrant=True)
        else:
            bottleneck_output = bn_function(*prev_features)
        new_features = self.conv2(self.relu2(self.norm2(bottleneck_output)))
        if self.drop_rate > 0:
            new_features = F.dropout(new_features, p=self.drop_rate, training=self.training)
        return new_features


class _Transition(nn.Sequential):
    def __init__(self, num_input_features, num_output_features):
        super(_Transition, self).__init__()
        self.add_module("norm", nn.BatchNorm2d(num_input_features))
        self.add_module("relu", nn.ReLU(inplace=True))
        self.add_module(
            "conv", nn.Conv2d(num_input_features, num_output_features, kernel_size=1, stride=1, bias=False)
        )
        self.add_module("pool", nn.AvgPool2d(kernel_size=2, stride=2))


class _DenseBlock(nn.Module):
    def __init__(self, num_layers, num_input_features, bn_size, growth_rate, drop_rate, efficient=False):
        super(_DenseBlock, self).__init__()
        for i in range(num_layers):
            layer = _DenseLayer(
                num_input_features + i * growth_rate,
                growth_rate=growth_rate,
                bn_size=bn_size,
                drop_rate=drop_rate,
                efficient=efficient,
            )
            self.add_module("denselayer%d" % (i + 1), layer)

    def forward(self, init_features):
        features = [init_features]
        for name, layer in self.named_children():
            new_features = layer(*features)
            features.append(new_features)
        return torch.cat(features, 1)


class DenseNet(nn.Module):
    def __init__(
        self,
        growth_rate=12,
        block_config=(16, 16, 16),
        compression=0.5,
        num_init_features=24,
        bn_size=4,
        drop_rate=0,
        num_classes=10,
        small_inputs=True,
        efficient=False,
    ):
        super(DenseNet, self).__init__()
        assert 0 < compression <= 1, "compression of densenet should be between 0 and 1"

        if small_inputs:
            self.features = nn.Sequential(
                OrderedDict(
                    [
                        (
                            "conv0",
                            nn.Conv2d(3, num_init_features, kernel_size=3, stride=1, padding=1, bias=False),
                        ),
                    ]
                )
            )
        else:
            self.features = nn.Sequential(
                OrderedDict(
                    [
                        (
                            "conv0",
                            nn.Conv2d(3, num_init_features, kernel_size=7, stride=2, padding=3, bias=False),
                        ),
                    ]
                )
            )
            self.features.add_module("norm0", nn.BatchNorm2d(num_init_features))
            self.features.add_module("relu0", nn.ReLU(inplace=True))
            self.features.add_module(
                "pool0", nn.MaxPool2d(kernel_size=3, stride=2, padding=1, ceil_mode=False)
            )

        num_features = num_init_features
        for i, num_layers in enumerate(block_config):
            block = _DenseBlock(
                num_layers=num_layers,
                num_input_features=num_features,
                bn_size=bn_size,
                growth_rate=growth_rate,
                drop_rate=drop_rate,
                efficient=efficient,
            )
            self.features.add_module("denseblock%d" % (i + 1), block)
            num_features = num_features + num_layers * growth_rate
            if i != len(block_config) - 1:
                trans = _Transition(
                    num_input_features=num_features, num_output_features=int(num_features * compression)
                )
                self.features.add_module("transition%d" % (i + 1), trans)
                num_features = int(num_features * compression)

        self.features.add_module("norm_final", nn.BatchNorm2d(num_features))

        self.classifier = nn.Linear(num_features, num_classes)

        for name, param in self.named_parameters():
            if "conv" in name and "weight" in name:
                n = param.size(0) * param.size(2) * param.size(3)
                param.data.normal_().mul_(math.sqrt(2.0 / n))
            elif "norm" in name and "weight" in name:
                param.data.fill_(1)
            elif "norm" in name and "bias" in name:
                param.data.fill_(0)
            elif "classifier" in name and "bias" in name:
                param.data.fill_(0)

    def forward(self, x):
        features = self.features(x)
        out = F.relu(features, inplace=True)
        out = F.adaptive_avg_pool2d(out, (1, 1))
        out = torch.flatten(out, 1)
        out = self.classifier(out)
        return out


depth = 22
block_config = [(depth - 4) // 6 for _ in range(3)]
growth_rate = 12


def make(efficient):
    torch.manual_seed(1)
    return DenseNet(
        growth_rate=growth_rate,
        block_config=block_config,
        num_init_features=growth_rate * 2,
        num_classes=10,
        small_inputs=True,
        efficient=efficient,
    )


plain, efficient = make(False), make(True)
efficient.load_state_dict(plain.state_dict())
print(efficient)
print("Total parameters: ", sum(p.numel() for p in efficient.parameters()))

# ---- the checkpointed network is the plain one, computed differently
x = torch.randn(8, 3, 32, 32)
target = torch.randint(0, 10, (8,))
out_p = plain(x)
out_e = efficient(x)
assert torch.allclose(out_p, out_e, atol=1e-5), (out_p - out_e).abs().max()
F.cross_entropy(out_p, target).backward()
F.cross_entropy(out_e, target).backward()
for (name, p), q in zip(plain.named_parameters(), efficient.parameters()):
    assert torch.allclose(p.grad, q.grad, rtol=1e-4, atol=1e-5), (name, (p.grad - q.grad).abs().max())
layer = efficient.features.denseblock1.denselayer2
assert layer.norm1.num_batches_tracked.item() == 2, layer.norm1.num_batches_tracked  # rerun in the backward
assert layer.norm2.num_batches_tracked.item() == 1
assert plain.features.denseblock1.denselayer2.norm1.num_batches_tracked.item() == 1
# the recomputation (and its second BatchNorm update) happens only where an input requires grad
with torch.no_grad():
    efficient(x)
assert layer.norm1.num_batches_tracked.item() == 3

# ---- the other checkpoint forms on the same network: checkpoint_sequential and the non-reentrant variant
plain.zero_grad()
xs = x.clone().requires_grad_()
seq = cp.checkpoint_sequential(plain.features, 3, xs, use_reentrant=False)
ref = plain.features(x)
assert torch.allclose(seq, ref, atol=1e-5), (seq - ref).abs().max()
seq.pow(2).mean().backward()
assert xs.grad is not None and xs.grad.shape == x.shape
g_seq = [p.grad.clone() for p in plain.features.parameters()]
plain.zero_grad()
plain.features(x).pow(2).mean().backward()
for a, b in zip(g_seq, plain.features.parameters()):
    assert torch.allclose(a, b.grad, rtol=1e-4, atol=1e-5), (a - b.grad).abs().max()
plain.zero_grad()


def block_fn(inp):
    return plain.features.denseblock2(inp)


h = torch.randn(4, 30, 16, 16, requires_grad=True)
y_nr = cp.checkpoint(block_fn, h, use_reentrant=False)
(g_nr,) = torch.autograd.grad(y_nr.sum(), h)  # .grad-style use, which only the non-reentrant form allows
h2 = h.detach().requires_grad_()
(g_ref,) = torch.autograd.grad(block_fn(h2).sum(), h2)
assert torch.allclose(g_nr, g_ref, rtol=1e-4, atol=1e-5), (g_nr - g_ref).abs().max()

# ---- demo.py's training loop, on synthetic CIFAR-shaped data
n_train, n_valid, batch_size, n_epochs = 256, 128, 32, 2
labels = torch.randint(0, 10, (n_train + n_valid,))
colours = torch.randn(10, 3, 1, 1)
freqs = torch.arange(10).float().view(10, 1, 1) * 0.3 + 0.3
grid = torch.arange(32).float()
texture = torch.sin(freqs * grid.view(1, 32, 1) + freqs * grid.view(1, 1, 32))
images = colours[labels] + texture[labels].unsqueeze(1) + 0.5 * torch.randn(n_train + n_valid, 3, 32, 32)
train_set = torch.utils.data.TensorDataset(images[:n_train], labels[:n_train])
valid_set = torch.utils.data.TensorDataset(images[n_train:], labels[n_train:])
train_loader = torch.utils.data.DataLoader(train_set, batch_size=batch_size, shuffle=True)
valid_loader = torch.utils.data.DataLoader(valid_set, batch_size=batch_size, shuffle=False)

model = efficient
model.train()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9, nesterov=True, weight_decay=0.0001)
scheduler = torch.optim.lr_scheduler.MultiStepLR(
    optimizer, milestones=[0.5 * n_epochs, 0.75 * n_epochs], gamma=0.1
)


def run_epoch(loader, model, optimizer=None):
    training = optimizer is not None
    model.train(training)
    total_loss, correct, seen = 0.0, 0, 0
    with torch.set_grad_enabled(training):
        for images_b, target_b in loader:
            output = model(images_b)
            loss = F.cross_entropy(output, target_b)
            if training:
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
            total_loss += loss.item() * target_b.size(0)
            correct += (output.argmax(1) == target_b).sum().item()
            seen += target_b.size(0)
    return total_loss / seen, 1.0 - correct / seen


valid_loss0, valid_error0 = run_epoch(valid_loader, model)
for epoch in range(n_epochs):
    train_loss, train_error = run_epoch(train_loader, model, optimizer)
    scheduler.step()
    valid_loss, valid_error = run_epoch(valid_loader, model)
    print(
        "Epoch %d: train loss %.4f error %.3f, valid loss %.4f error %.3f, lr %.4f"
        % (epoch + 1, train_loss, train_error, valid_loss, valid_error, scheduler.get_last_lr()[0])
    )
assert scheduler.get_last_lr()[0] < 0.1 * 0.1 + 1e-9
assert valid_error < 0.5 and valid_error < valid_error0, (valid_error0, valid_error)
print("efficient_densenet: ok")
