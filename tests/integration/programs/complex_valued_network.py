# Follows wavefrontshaping/complexPyTorch (complexPyTorch/complexLayers.py, complexFunctions.py and the README's
# ComplexNet example): complex64 activations through pairs of real layers (apply_complex: (fr - fi) + i(fr + fi)
# on the real and imaginary parts), complex_relu on both parts, complex_max_pool2d that selects by modulus and
# restores the phase with atan2/cos/sin and gather, the covariance ("whitening") ComplexBatchNorm2d and
# ComplexBatchNorm1d with their running statistics, then |z| and log_softmax, NLL loss, SGD with momentum.
# Adapted: MNIST is replaced by synthetic 1x28x28 digits of ten block patterns (cast to complex64 as the example
# casts MNIST), 2 epochs. Added: each layer checked against the complex arithmetic it stands for, and the trained
# network must beat chance by far on held-out data.
# ruff: noqa: SIM102, UP032  (complexLayers.py's nested ifs and the README's str.format, kept)
import numpy as np
import torch
import torch.nn as nn  # noqa: PLR0402  (the README's import)
import torch.nn.functional as F
from torch.nn import BatchNorm2d, Conv2d, Linear, Module, Parameter, init
from torch.nn.functional import max_pool2d, relu

torch.manual_seed(0)

# ---- complexFunctions.py


def complex_relu(inp):
    return relu(inp.real).type(torch.complex64) + 1j * relu(inp.imag).type(torch.complex64)


def _retrieve_elements_from_indices(tensor, indices):
    flattened_tensor = tensor.flatten(start_dim=-2)
    output = flattened_tensor.gather(dim=-1, index=indices.flatten(start_dim=-2)).view_as(indices)
    return output


def complex_max_pool2d(
    inp, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False
):
    absolute_value, indices = max_pool2d(
        inp.abs(),
        kernel_size=kernel_size,
        stride=stride,
        padding=padding,
        dilation=dilation,
        ceil_mode=ceil_mode,
        return_indices=True,
    )
    absolute_value = absolute_value.type(torch.complex64)
    angle = torch.atan2(inp.imag, inp.real)
    angle = _retrieve_elements_from_indices(angle, indices)
    return absolute_value * (
        torch.cos(angle).type(torch.complex64) + 1j * torch.sin(angle).type(torch.complex64)
    )


# ---- complexLayers.py


def apply_complex(fr, fi, inp, dtype=torch.complex64):
    return (fr(inp.real) - fi(inp.imag)).type(dtype) + 1j * (fr(inp.imag) + fi(inp.real)).type(dtype)


class ComplexConv2d(Module):
    def __init__(
        self, in_channels, out_channels, kernel_size=3, stride=1, padding=0, dilation=1, groups=1, bias=True
    ):
        super(ComplexConv2d, self).__init__()
        self.conv_r = Conv2d(in_channels, out_channels, kernel_size, stride, padding, dilation, groups, bias)
        self.conv_i = Conv2d(in_channels, out_channels, kernel_size, stride, padding, dilation, groups, bias)

    def forward(self, inp):
        return apply_complex(self.conv_r, self.conv_i, inp)


class ComplexLinear(Module):
    def __init__(self, in_features, out_features):
        super(ComplexLinear, self).__init__()
        self.fc_r = Linear(in_features, out_features)
        self.fc_i = Linear(in_features, out_features)

    def forward(self, inp):
        return apply_complex(self.fc_r, self.fc_i, inp)


class NaiveComplexBatchNorm2d(Module):
    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=True, track_running_stats=True):
        super(NaiveComplexBatchNorm2d, self).__init__()
        self.bn_r = BatchNorm2d(num_features, eps, momentum, affine, track_running_stats)
        self.bn_i = BatchNorm2d(num_features, eps, momentum, affine, track_running_stats)

    def forward(self, inp):
        return self.bn_r(inp.real).type(torch.complex64) + 1j * self.bn_i(inp.imag).type(torch.complex64)


class _ComplexBatchNorm(Module):
    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=True, track_running_stats=True):
        super(_ComplexBatchNorm, self).__init__()
        self.num_features = num_features
        self.eps = eps
        self.momentum = momentum
        self.affine = affine
        self.track_running_stats = track_running_stats
        if self.affine:
            self.weight = Parameter(torch.Tensor(num_features, 3))
            self.bias = Parameter(torch.Tensor(num_features, 2))
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)
        if self.track_running_stats:
            self.register_buffer("running_mean", torch.zeros(num_features, dtype=torch.complex64))
            self.register_buffer("running_covar", torch.zeros(num_features, 3))
            self.running_covar[:, 0] = 1.4142135623730951
            self.running_covar[:, 1] = 1.4142135623730951
            self.register_buffer("num_batches_tracked", torch.tensor(0, dtype=torch.long))
        else:
            self.register_parameter("running_mean", None)
            self.register_parameter("running_covar", None)
            self.register_parameter("num_batches_tracked", None)
        self.reset_parameters()

    def reset_running_stats(self):
        if self.track_running_stats:
            self.running_mean.zero_()
            self.running_covar.zero_()
            self.running_covar[:, 0] = 1.4142135623730951
            self.running_covar[:, 1] = 1.4142135623730951
            self.num_batches_tracked.zero_()

    def reset_parameters(self):
        self.reset_running_stats()
        if self.affine:
            init.constant_(self.weight[:, :2], 1.4142135623730951)
            init.zeros_(self.weight[:, 2])
            init.zeros_(self.bias)


class ComplexBatchNorm2d(_ComplexBatchNorm):
    def forward(self, inp):
        exponential_average_factor = 0.0

        if self.training and self.track_running_stats:
            if self.num_batches_tracked is not None:
                self.num_batches_tracked += 1
                if self.momentum is None:
                    exponential_average_factor = 1.0 / float(self.num_batches_tracked)
                else:
                    exponential_average_factor = self.momentum

        if self.training or (not self.track_running_stats):
            mean_r = inp.real.mean([0, 2, 3]).type(torch.complex64)
            mean_i = inp.imag.mean([0, 2, 3]).type(torch.complex64)
            mean = mean_r + 1j * mean_i
        else:
            mean = self.running_mean

        if self.training and self.track_running_stats:
            with torch.no_grad():
                self.running_mean = (
                    exponential_average_factor * mean + (1 - exponential_average_factor) * self.running_mean
                )

        inp = inp - mean[None, :, None, None]

        if self.training or (not self.track_running_stats):
            n = inp.numel() / inp.size(1)
            Crr = 1.0 / n * inp.real.pow(2).sum(dim=[0, 2, 3]) + self.eps
            Cii = 1.0 / n * inp.imag.pow(2).sum(dim=[0, 2, 3]) + self.eps
            Cri = (inp.real.mul(inp.imag)).mean(dim=[0, 2, 3])
        else:
            Crr = self.running_covar[:, 0] + self.eps
            Cii = self.running_covar[:, 1] + self.eps
            Cri = self.running_covar[:, 2]

        if self.training and self.track_running_stats:
            with torch.no_grad():
                self.running_covar[:, 0] = (
                    exponential_average_factor * Crr * n / (n - 1)
                    + (1 - exponential_average_factor) * self.running_covar[:, 0]
                )
                self.running_covar[:, 1] = (
                    exponential_average_factor * Cii * n / (n - 1)
                    + (1 - exponential_average_factor) * self.running_covar[:, 1]
                )
                self.running_covar[:, 2] = (
                    exponential_average_factor * Cri * n / (n - 1)
                    + (1 - exponential_average_factor) * self.running_covar[:, 2]
                )

        det = Crr * Cii - Cri.pow(2)
        s = torch.sqrt(det)
        t = torch.sqrt(Cii + Crr + 2 * s)
        inverse_st = 1.0 / (s * t)
        Rrr = (Cii + s) * inverse_st
        Rii = (Crr + s) * inverse_st
        Rri = -Cri * inverse_st

        inp = (Rrr[None, :, None, None] * inp.real + Rri[None, :, None, None] * inp.imag).type(
            torch.complex64
        ) + 1j * (Rii[None, :, None, None] * inp.imag + Rri[None, :, None, None] * inp.real).type(
            torch.complex64
        )

        if self.affine:
            inp = (
                self.weight[None, :, 0, None, None] * inp.real
                + self.weight[None, :, 2, None, None] * inp.imag
                + self.bias[None, :, 0, None, None]
            ).type(torch.complex64) + 1j * (
                self.weight[None, :, 2, None, None] * inp.real
                + self.weight[None, :, 1, None, None] * inp.imag
                + self.bias[None, :, 1, None, None]
            ).type(torch.complex64)
        return inp


class ComplexBatchNorm1d(_ComplexBatchNorm):
    def forward(self, inp):
        exponential_average_factor = 0.0

        if self.training and self.track_running_stats:
            if self.num_batches_tracked is not None:
                self.num_batches_tracked += 1
                if self.momentum is None:
                    exponential_average_factor = 1.0 / float(self.num_batches_tracked)
                else:
                    exponential_average_factor = self.momentum

        if self.training or (not self.track_running_stats):
            mean_r = inp.real.mean(dim=0).type(torch.complex64)
            mean_i = inp.imag.mean(dim=0).type(torch.complex64)
            mean = mean_r + 1j * mean_i
        else:
            mean = self.running_mean

        if self.training and self.track_running_stats:
            with torch.no_grad():
                self.running_mean = (
                    exponential_average_factor * mean + (1 - exponential_average_factor) * self.running_mean
                )

        inp = inp - mean[None, ...]

        if self.training or (not self.track_running_stats):
            n = inp.numel() / inp.size(1)
            Crr = inp.real.var(dim=0, unbiased=False) + self.eps
            Cii = inp.imag.var(dim=0, unbiased=False) + self.eps
            Cri = (inp.real.mul(inp.imag)).mean(dim=0)
        else:
            Crr = self.running_covar[:, 0] + self.eps
            Cii = self.running_covar[:, 1] + self.eps
            Cri = self.running_covar[:, 2]

        if self.training and self.track_running_stats:
            with torch.no_grad():
                self.running_covar[:, 0] = (
                    exponential_average_factor * Crr * n / (n - 1)
                    + (1 - exponential_average_factor) * self.running_covar[:, 0]
                )
                self.running_covar[:, 1] = (
                    exponential_average_factor * Cii * n / (n - 1)
                    + (1 - exponential_average_factor) * self.running_covar[:, 1]
                )
                self.running_covar[:, 2] = (
                    exponential_average_factor * Cri * n / (n - 1)
                    + (1 - exponential_average_factor) * self.running_covar[:, 2]
                )

        det = Crr * Cii - Cri.pow(2)
        s = torch.sqrt(det)
        t = torch.sqrt(Cii + Crr + 2 * s)
        inverse_st = 1.0 / (s * t)
        Rrr = (Cii + s) * inverse_st
        Rii = (Crr + s) * inverse_st
        Rri = -Cri * inverse_st

        inp = (Rrr[None, :] * inp.real + Rri[None, :] * inp.imag).type(torch.complex64) + 1j * (
            Rii[None, :] * inp.imag + Rri[None, :] * inp.real
        ).type(torch.complex64)

        if self.affine:
            inp = (
                self.weight[None, :, 0] * inp.real
                + self.weight[None, :, 2] * inp.imag
                + self.bias[None, :, 0]
            ).type(torch.complex64) + 1j * (
                self.weight[None, :, 2] * inp.real
                + self.weight[None, :, 1] * inp.imag
                + self.bias[None, :, 1]
            ).type(torch.complex64)
        return inp


# ---- each piece is the complex arithmetic it stands for
z = torch.randn(4, 7, dtype=torch.complex64)
lin = ComplexLinear(7, 3)
W = torch.complex(lin.fc_r.weight, lin.fc_i.weight).detach()
bias = torch.complex(lin.fc_r.bias - lin.fc_i.bias, lin.fc_r.bias + lin.fc_i.bias).detach()
assert torch.allclose(lin(z), z @ W.T + bias, atol=1e-5)
assert lin(z).dtype == torch.complex64

zr = torch.randn(2, 3, 6, 6, dtype=torch.complex64)
pooled = complex_max_pool2d(zr, 2, 2)
blocks = zr.unfold(2, 2, 2).unfold(3, 2, 2).reshape(2, 3, 3, 3, 4)
pick = blocks.abs().argmax(-1, keepdim=True)
expected = torch.gather(blocks, -1, pick).squeeze(-1)
assert torch.allclose(pooled, expected, atol=1e-5), (pooled - expected).abs().max()

cr = complex_relu(torch.tensor([1 - 2j, -3 + 4j]))
assert torch.equal(cr, torch.tensor([1 + 0j, 0 + 4j], dtype=torch.complex64))

# the covariance batch norm (affine=False) whitens: the real and imaginary parts of each feature come out
# centred, decorrelated and of unit variance, though they went in correlated
bn1 = ComplexBatchNorm1d(5, affine=False)
mix = torch.tensor([[1.0, 0.5], [0.3, 2.0]])  # correlated parts, well conditioned
raw = torch.randn(512, 5, 2) @ mix.T + torch.tensor([3.0, -1.0])
zc = torch.complex(raw[..., 0], raw[..., 1])
white = bn1(zc)
parts = torch.stack([white.real, white.imag], -1)  # (512, 5, 2)
cov = torch.einsum("nci,ncj->cij", parts, parts) / 512
assert torch.allclose(parts.mean(0), torch.zeros(5, 2), atol=1e-4)
assert torch.allclose(cov, torch.eye(2).expand(5, 2, 2), atol=2e-3), cov
assert bn1.num_batches_tracked.item() == 1
assert torch.allclose(bn1.running_mean, 0.1 * zc.mean(0), atol=1e-4)
bn1.eval()
assert bn1(zc).shape == zc.shape

# ---- the README's ComplexNet on synthetic MNIST-shaped digits


class ComplexNet(nn.Module):
    def __init__(self):
        super(ComplexNet, self).__init__()
        self.conv1 = ComplexConv2d(1, 10, 5, 1)
        self.bn = ComplexBatchNorm2d(10)
        self.conv2 = ComplexConv2d(10, 20, 5, 1)
        self.fc1 = ComplexLinear(4 * 4 * 20, 500)
        self.fc2 = ComplexLinear(500, 10)

    def forward(self, x):
        x = self.conv1(x)
        x = complex_relu(x)
        x = complex_max_pool2d(x, 2, 2)
        x = self.bn(x)
        x = self.conv2(x)
        x = complex_relu(x)
        x = complex_max_pool2d(x, 2, 2)
        x = x.view(-1, 4 * 4 * 20)
        x = self.fc1(x)
        x = complex_relu(x)
        x = self.fc2(x)
        x = x.abs()
        x = F.log_softmax(x, dim=1)
        return x


rng = np.random.default_rng(0)
prototypes = (rng.random((10, 4, 4)) > 0.5).astype(np.float32)


def make_digits(n):
    labels = rng.integers(0, 10, n)
    imgs = np.zeros((n, 1, 28, 28), np.float32)
    for k, lab in enumerate(labels):
        big = np.kron(prototypes[lab], np.ones((5, 5), np.float32))  # 20x20
        dy, dx = rng.integers(0, 9, 2)
        imgs[k, 0, dy : dy + 20, dx : dx + 20] = big
    imgs += 0.3 * rng.standard_normal(imgs.shape).astype(np.float32)
    imgs = (imgs - 0.5) / 1.0  # transforms.Normalize((0.5,), (1.0,))
    return torch.from_numpy(imgs), torch.from_numpy(labels).long()


x_train, y_train = make_digits(640)
x_test, y_test = make_digits(256)
batch_size = 64
train_loader = torch.utils.data.DataLoader(
    torch.utils.data.TensorDataset(x_train, y_train), batch_size=batch_size, shuffle=True
)

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = ComplexNet().to(device)
optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)


def train(model, device, train_loader, optimizer, epoch):
    model.train()
    for batch_idx, (data, target) in enumerate(train_loader):
        data, target = data.to(device).type(torch.complex64), target.to(device)
        optimizer.zero_grad()
        output = model(data)
        loss = F.nll_loss(output, target)
        loss.backward()
        optimizer.step()
        if batch_idx % 5 == 0:
            print(
                "Train Epoch: {:3} [{:6}/{:6} ({:3.0f}%)]\tLoss: {:.6f}".format(
                    epoch,
                    batch_idx * len(data),
                    len(train_loader.dataset),
                    100.0 * batch_idx / len(train_loader),
                    loss.item(),
                )
            )
    return loss.item()


for epoch in range(2):
    last_loss = train(model, device, train_loader, optimizer, epoch)

model.eval()
with torch.no_grad():
    out = model(x_test.type(torch.complex64))
    acc = (out.argmax(1) == y_test).float().mean().item()
print("held-out accuracy %.3f" % acc)
assert model.bn.num_batches_tracked.item() == 20
assert torch.isfinite(out).all()
assert acc > 0.6, acc
print("complex_valued_network: ok")
