# Follows the Fourier neural operator's reference code (neuraloperator's fourier_1d.py, Li et al. 2020):
# SpectralConv1d (torch.fft.rfft, the lowest modes multiplied by complex weights -- torch.cfloat parameters --
# through torch.einsum, torch.fft.irfft back), the FNO1d stack of spectral + pointwise layers with a lifting
# and a projection, its relative L2 loss (LpLoss), Adam with weight decay and a StepLR schedule. The data is
# made here instead of the Burgers dataset: learn the antiderivative operator a -> u(x) = integral_0^x a on a
# 64-point grid, with a drawn as random smooth Fourier series. Then a 2-D spectral layer (rfft2/irfft2) on a
# tiny image batch, checked against a direct evaluation of the same truncated Fourier multiplier.
import math

import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(0)


class SpectralConv1d(nn.Module):
    def __init__(self, in_channels, out_channels, modes1):
        super().__init__()
        self.in_channels = in_channels
        self.out_channels = out_channels
        self.modes1 = modes1  # Fourier modes kept, at most floor(N/2) + 1
        self.scale = 1 / (in_channels * out_channels)
        self.weights1 = nn.Parameter(
            self.scale * torch.rand(in_channels, out_channels, self.modes1, dtype=torch.cfloat)
        )

    def compl_mul1d(self, input, weights):
        # (batch, in_channel, x), (in_channel, out_channel, x) -> (batch, out_channel, x)
        return torch.einsum("bix,iox->box", input, weights)

    def forward(self, x):
        batchsize = x.shape[0]
        x_ft = torch.fft.rfft(x)
        out_ft = torch.zeros(
            batchsize, self.out_channels, x.size(-1) // 2 + 1, device=x.device, dtype=torch.cfloat
        )
        out_ft[:, :, : self.modes1] = self.compl_mul1d(x_ft[:, :, : self.modes1], self.weights1)
        return torch.fft.irfft(out_ft, n=x.size(-1))


class FNO1d(nn.Module):
    def __init__(self, modes, width):
        super().__init__()
        self.modes1 = modes
        self.width = width
        self.fc0 = nn.Linear(2, self.width)  # input channel is 2: (a(x), x)
        self.conv0 = SpectralConv1d(self.width, self.width, self.modes1)
        self.conv1 = SpectralConv1d(self.width, self.width, self.modes1)
        self.conv2 = SpectralConv1d(self.width, self.width, self.modes1)
        self.w0 = nn.Conv1d(self.width, self.width, 1)
        self.w1 = nn.Conv1d(self.width, self.width, 1)
        self.w2 = nn.Conv1d(self.width, self.width, 1)
        self.fc1 = nn.Linear(self.width, 64)
        self.fc2 = nn.Linear(64, 1)

    def forward(self, x):
        grid = self.get_grid(x.shape, x.device)
        x = torch.cat((x, grid), dim=-1)
        x = self.fc0(x)
        x = x.permute(0, 2, 1)
        x = F.gelu(self.conv0(x) + self.w0(x))
        x = F.gelu(self.conv1(x) + self.w1(x))
        x = self.conv2(x) + self.w2(x)
        x = x.permute(0, 2, 1)
        x = F.gelu(self.fc1(x))
        return self.fc2(x)

    def get_grid(self, shape, device):
        batchsize, size_x = shape[0], shape[1]
        gridx = torch.linspace(0, 1, size_x, dtype=torch.float)
        return gridx.reshape(1, size_x, 1).repeat([batchsize, 1, 1]).to(device)


class LpLoss:
    """Relative L2 error summed over the batch, as the reference's LpLoss(size_average=False)."""

    def __call__(self, x, y):
        num = torch.norm(x.reshape(x.size(0), -1) - y.reshape(y.size(0), -1), 2, 1)
        den = torch.norm(y.reshape(y.size(0), -1), 2, 1)
        return torch.sum(num / den)


def make_data(n, s=64, terms=6):
    """a: random smooth periodic functions; u: their antiderivatives from 0, by the spectral integral."""
    x = torch.arange(s, dtype=torch.float64) / s
    k = torch.arange(1, terms + 1, dtype=torch.float64)
    ca = torch.randn(n, terms, dtype=torch.float64) / k
    cb = torch.randn(n, terms, dtype=torch.float64) / k
    c0 = torch.randn(n, 1, dtype=torch.float64) * 0.5
    ph = 2 * math.pi * k[None, :, None] * x[None, None, :]
    a = c0 + (ca[..., None] * torch.cos(ph) + cb[..., None] * torch.sin(ph)).sum(1)
    u = c0 * x + (
        ca[..., None] * torch.sin(ph) / (2 * math.pi * k[None, :, None])
        + cb[..., None] * (1 - torch.cos(ph)) / (2 * math.pi * k[None, :, None])
    ).sum(1)
    return a.float().unsqueeze(-1), u.float().unsqueeze(-1)


ntrain, ntest, batch_size = 256, 64, 32
x_train, y_train = make_data(ntrain)
x_test, y_test = make_data(ntest)
train_loader = torch.utils.data.DataLoader(
    torch.utils.data.TensorDataset(x_train, y_train), batch_size=batch_size, shuffle=True
)

model = FNO1d(modes=8, width=16)
n_complex = sum(p.numel() for p in model.parameters() if p.is_complex())
assert n_complex == 3 * 16 * 16 * 8, n_complex
optimizer = torch.optim.Adam(model.parameters(), lr=0.005, weight_decay=1e-4)
scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=20, gamma=0.5)
myloss = LpLoss()


def test_error():
    model.eval()
    with torch.no_grad():
        return myloss(model(x_test), y_test).item() / ntest


before = test_error()
for ep in range(30):
    model.train()
    train_l2 = 0.0
    for x, y in train_loader:
        optimizer.zero_grad()
        out = model(x)
        loss = myloss(out.view(x.size(0), -1), y.view(x.size(0), -1))
        loss.backward()
        optimizer.step()
        train_l2 += loss.item()
    scheduler.step()
    if ep % 10 == 9:
        print(f"epoch {ep + 1}: train relative L2 {train_l2 / ntrain:.4f}, test {test_error():.4f}")
after = test_error()
print(f"test relative L2: {before:.4f} -> {after:.4f}")
assert after < 0.25 * before and after < 0.1, (before, after)
assert all(p.grad is not None for p in model.parameters())


# ---- a 2-D spectral layer (fourier_2d.py's SpectralConv2d) against the same multiplier written out directly
class SpectralConv2d(nn.Module):
    def __init__(self, in_channels, out_channels, modes1, modes2):
        super().__init__()
        self.out_channels, self.modes1, self.modes2 = out_channels, modes1, modes2
        scale = 1 / (in_channels * out_channels)
        self.weights1 = nn.Parameter(
            scale * torch.rand(in_channels, out_channels, modes1, modes2, dtype=torch.cfloat)
        )
        self.weights2 = nn.Parameter(
            scale * torch.rand(in_channels, out_channels, modes1, modes2, dtype=torch.cfloat)
        )

    def forward(self, x):
        b = x.shape[0]
        x_ft = torch.fft.rfft2(x)
        out_ft = torch.zeros(b, self.out_channels, x.size(-2), x.size(-1) // 2 + 1, dtype=torch.cfloat)
        m1, m2 = self.modes1, self.modes2
        out_ft[:, :, :m1, :m2] = torch.einsum("bixy,ioxy->boxy", x_ft[:, :, :m1, :m2], self.weights1)
        out_ft[:, :, -m1:, :m2] = torch.einsum("bixy,ioxy->boxy", x_ft[:, :, -m1:, :m2], self.weights2)
        return torch.fft.irfft2(out_ft, s=(x.size(-2), x.size(-1)))


layer = SpectralConv2d(2, 3, 3, 3)
img = torch.randn(2, 2, 8, 8, requires_grad=True)
y = layer(img)
assert y.shape == (2, 3, 8, 8)
# direct: the full spectrum of the input, multiplied mode by mode, then the inverse real transform
full = torch.fft.fft2(img.detach())
spec = torch.zeros(2, 3, 8, 5, dtype=torch.cfloat)
for kx in list(range(3)) + list(range(5, 8)):
    w = layer.weights1 if kx < 3 else layer.weights2
    for ky in range(3):
        spec[:, :, kx, ky] = full[:, :, kx, ky] @ w.detach()[:, :, kx if kx < 3 else kx - 5, ky]
direct = torch.fft.irfft2(spec, s=(8, 8))
assert torch.allclose(y.detach(), direct, atol=1e-5), (y.detach() - direct).abs().max()
y.square().sum().backward()
assert img.grad.shape == img.shape and layer.weights1.grad.dtype == torch.cfloat
print("fourier_neural_operator: ok")
