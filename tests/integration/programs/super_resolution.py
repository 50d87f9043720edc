# Follows pytorch/examples super_resolution: the ESPCN-style Net (conv 5x5, 3x3, 3x3, then conv to
# upscale_factor^2 channels and nn.PixelShuffle), orthogonal init, MSELoss, Adam, PSNR on a validation set.
# Synthetic luminance images (smooth random fields) and their 3x average-pooled low-resolution versions.
import math

import torch
import torch.nn.functional as F
from torch import nn, optim
from torch.nn import init


class Net(nn.Module):
    def __init__(self, upscale_factor):
        super().__init__()
        self.relu = nn.ReLU()
        self.conv1 = nn.Conv2d(1, 32, (5, 5), (1, 1), (2, 2))
        self.conv2 = nn.Conv2d(32, 32, (3, 3), (1, 1), (1, 1))
        self.conv3 = nn.Conv2d(32, 16, (3, 3), (1, 1), (1, 1))
        self.conv4 = nn.Conv2d(16, upscale_factor**2, (3, 3), (1, 1), (1, 1))
        self.pixel_shuffle = nn.PixelShuffle(upscale_factor)
        self._initialize_weights()

    def forward(self, x):
        x = self.relu(self.conv1(x))
        x = self.relu(self.conv2(x))
        x = self.relu(self.conv3(x))
        x = self.pixel_shuffle(self.conv4(x))
        return x

    def _initialize_weights(self):
        init.orthogonal_(self.conv1.weight, init.calculate_gain("relu"))
        init.orthogonal_(self.conv2.weight, init.calculate_gain("relu"))
        init.orthogonal_(self.conv3.weight, init.calculate_gain("relu"))
        init.orthogonal_(self.conv4.weight)


def smooth_images(n, size, gen):
    """Luminance images in [0, 1]: sums of a few random low-frequency 2-D sinusoids."""
    t = torch.linspace(0, 2 * math.pi, size)
    img = torch.zeros(n, 1, size, size)
    for _ in range(4):
        f = torch.rand(n, 2, generator=gen) * 2.5 + 0.5
        p = torch.rand(n, 2, generator=gen) * 2 * math.pi
        a = torch.rand(n, generator=gen)
        wave_y = torch.sin(f[:, :1] * t + p[:, :1])  # (n, size)
        wave_x = torch.sin(f[:, 1:] * t + p[:, 1:])
        img += a.view(n, 1, 1, 1) * (wave_y[:, None, :, None] * wave_x[:, None, None, :])
    return (img - img.amin(dim=(2, 3), keepdim=True)) / (
        img.amax(dim=(2, 3), keepdim=True) - img.amin(dim=(2, 3), keepdim=True)
    )


def nearest_upsample(x, r):
    n, c, h, w = x.shape
    return x[:, :, :, None, :, None].expand(n, c, h, r, w, r).reshape(n, c, h * r, w * r)


torch.manual_seed(123)
upscale = 3
g = torch.Generator().manual_seed(0)
hr_train, hr_val = smooth_images(64, 36, g), smooth_images(16, 36, g)
lr_train, lr_val = F.avg_pool2d(hr_train, upscale), F.avg_pool2d(hr_val, upscale)
assert lr_train.shape == (64, 1, 12, 12)

model = Net(upscale_factor=upscale)
criterion = nn.MSELoss()
optimizer = optim.Adam(model.parameters(), lr=0.003)


def psnr():
    with torch.no_grad():
        mse = criterion(model(lr_val), hr_val)
    return 10 * math.log10(1 / mse.item())


p0 = psnr()
for epoch in range(1, 31):
    for i in range(0, 64, 16):
        optimizer.zero_grad()
        loss = criterion(model(lr_train[i : i + 16]), hr_train[i : i + 16])
        loss.backward()
        optimizer.step()
    if epoch % 10 == 0:
        print(f"===> Epoch {epoch}: loss {loss.item():.5f}  Avg. PSNR: {psnr():.2f} dB")
p1 = psnr()
# nearest-neighbour upsampling as the baseline the network must beat
base = 10 * math.log10(1 / F.mse_loss(nearest_upsample(lr_val, upscale), hr_val).item())
print(f"PSNR {p0:.2f} -> {p1:.2f} dB (nearest upsampling {base:.2f} dB)")
assert model(lr_val[:1]).shape == (1, 1, 36, 36)
assert p1 > p0 + 5 and p1 > base, (p0, p1, base)
print("super resolution: ok")
