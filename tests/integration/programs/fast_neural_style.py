# Follows pytorch/examples fast_neural_style: TransformerNet unchanged (ReflectionPad2d + Conv2d layers,
# InstanceNorm2d(affine=True), five residual blocks, nearest-neighbour upsampling by F.interpolate before a
# conv instead of a transposed conv), the gram-matrix style loss plus a content loss, Adam. The VGG16 loss
# network (a torchvision download) becomes a small frozen random conv net; images are synthetic 32x32.
import numpy as np
import torch
from torch import nn


class ConvLayer(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, stride):
        super().__init__()
        reflection_padding = kernel_size // 2
        self.reflection_pad = nn.ReflectionPad2d(reflection_padding)
        self.conv2d = nn.Conv2d(in_channels, out_channels, kernel_size, stride)

    def forward(self, x):
        out = self.reflection_pad(x)
        out = self.conv2d(out)
        return out


class ResidualBlock(nn.Module):
    def __init__(self, channels):
        super().__init__()
        self.conv1 = ConvLayer(channels, channels, kernel_size=3, stride=1)
        self.in1 = nn.InstanceNorm2d(channels, affine=True)
        self.conv2 = ConvLayer(channels, channels, kernel_size=3, stride=1)
        self.in2 = nn.InstanceNorm2d(channels, affine=True)
        self.relu = nn.ReLU()

    def forward(self, x):
        residual = x
        out = self.relu(self.in1(self.conv1(x)))
        out = self.in2(self.conv2(out))
        out = out + residual
        return out


class UpsampleConvLayer(nn.Module):
    """Upsamples the input and then does a convolution (better than ConvTranspose2d, see
    http://distill.pub/2016/deconv-checkerboard/)."""

    def __init__(self, in_channels, out_channels, kernel_size, stride, upsample=None):
        super().__init__()
        self.upsample = upsample
        reflection_padding = kernel_size // 2
        self.reflection_pad = nn.ReflectionPad2d(reflection_padding)
        self.conv2d = nn.Conv2d(in_channels, out_channels, kernel_size, stride)

    def forward(self, x):
        x_in = x
        if self.upsample:
            x_in = torch.nn.functional.interpolate(x_in, mode="nearest", scale_factor=self.upsample)
        out = self.reflection_pad(x_in)
        out = self.conv2d(out)
        return out


class TransformerNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = ConvLayer(3, 32, kernel_size=9, stride=1)
        self.in1 = nn.InstanceNorm2d(32, affine=True)
        self.conv2 = ConvLayer(32, 64, kernel_size=3, stride=2)
        self.in2 = nn.InstanceNorm2d(64, affine=True)
        self.conv3 = ConvLayer(64, 128, kernel_size=3, stride=2)
        self.in3 = nn.InstanceNorm2d(128, affine=True)
        self.res1 = ResidualBlock(128)
        self.res2 = ResidualBlock(128)
        self.res3 = ResidualBlock(128)
        self.res4 = ResidualBlock(128)
        self.res5 = ResidualBlock(128)
        self.deconv1 = UpsampleConvLayer(128, 64, kernel_size=3, stride=1, upsample=2)
        self.in4 = nn.InstanceNorm2d(64, affine=True)
        self.deconv2 = UpsampleConvLayer(64, 32, kernel_size=3, stride=1, upsample=2)
        self.in5 = nn.InstanceNorm2d(32, affine=True)
        self.deconv3 = ConvLayer(32, 3, kernel_size=9, stride=1)
        self.relu = nn.ReLU()

    def forward(self, X):
        y = self.relu(self.in1(self.conv1(X)))
        y = self.relu(self.in2(self.conv2(y)))
        y = self.relu(self.in3(self.conv3(y)))
        y = self.res1(y)
        y = self.res2(y)
        y = self.res3(y)
        y = self.res4(y)
        y = self.res5(y)
        y = self.relu(self.in4(self.deconv1(y)))
        y = self.relu(self.in5(self.deconv2(y)))
        y = self.deconv3(y)
        return y


class LossNet(nn.Module):
    """Stands in for utils' Vgg16: two stages of frozen features (relu1_2-like and relu2_2-like)."""

    def __init__(self):
        super().__init__()
        self.slice1 = nn.Sequential(
            nn.Conv2d(3, 16, 3, padding=1), nn.ReLU(), nn.Conv2d(16, 16, 3, padding=1), nn.ReLU()
        )
        self.slice2 = nn.Sequential(nn.MaxPool2d(2), nn.Conv2d(16, 32, 3, padding=1), nn.ReLU())
        for p in self.parameters():
            p.requires_grad = False

    def forward(self, x):
        h1 = self.slice1(x)
        h2 = self.slice2(h1)
        return h1, h2


def gram_matrix(y):
    (b, ch, h, w) = y.size()
    features = y.view(b, ch, w * h)
    features_t = features.transpose(1, 2)
    gram = features.bmm(features_t) / (ch * h * w)
    return gram


def normalize_batch(batch):
    # normalize using imagenet mean and std
    mean = batch.new_tensor([0.485, 0.456, 0.406]).view(-1, 1, 1)
    std = batch.new_tensor([0.229, 0.224, 0.225]).view(-1, 1, 1)
    batch = batch.div_(255.0)
    return (batch - mean) / std


torch.manual_seed(42)
rng = np.random.default_rng(42)
# content: smooth random colour fields (0..255); style: diagonal stripes
content = torch.from_numpy(rng.uniform(0, 255, (8, 3, 8, 8)).astype(np.float32))
content = torch.nn.functional.interpolate(content, size=(32, 32), mode="bilinear", align_corners=False)
ii, jj = np.meshgrid(np.arange(32), np.arange(32), indexing="ij")
stripes = (np.sin((ii + jj) / 2.0)[None] * np.array([100, 60, 20])[:, None, None] + 128).astype(np.float32)
style = torch.from_numpy(stripes).unsqueeze(0)

transformer = TransformerNet()
optimizer = torch.optim.Adam(transformer.parameters(), 1e-3)
mse_loss = torch.nn.MSELoss()
vgg = LossNet()
content_weight, style_weight = 1e5, 1e10
features_style = vgg(normalize_batch(style.clone()))
gram_style = [gram_matrix(y) for y in features_style]

losses = []
batch_size = 4
for step in range(6):
    x = content[(step * batch_size) % 8 : (step * batch_size) % 8 + batch_size].clone()
    n_batch = len(x)
    optimizer.zero_grad()

    y = transformer(x)
    y = normalize_batch(y)
    x = normalize_batch(x)

    features_y = vgg(y)
    features_x = vgg(x)

    content_loss = content_weight * mse_loss(features_y[1], features_x[1])

    style_loss = 0.0
    for ft_y, gm_s in zip(features_y, gram_style):
        gm_y = gram_matrix(ft_y)
        style_loss += mse_loss(gm_y, gm_s[:n_batch, :, :].expand_as(gm_y))
    style_loss *= style_weight

    total_loss = content_loss + style_loss
    total_loss.backward()
    optimizer.step()
    losses.append(total_loss.item())
    print(
        f"step {step}: content {content_loss.item():.1f} style {style_loss.item():.1f} total {total_loss.item():.1f}"
    )

with torch.no_grad():
    out = transformer(content[:2]).clamp(0, 255)
assert out.shape == (2, 3, 32, 32)
assert all(b < a for a, b in zip(losses, losses[1:])) and losses[-1] < 0.9 * losses[0], losses
print("fast neural style: ok")
