# A small video classifier in the style of torchvision's R3D-18 (torchvision/models/video/resnet.py: a
# Conv3d(3x7x7, stride 1x2x2) + BatchNorm3d + ReLU stem, BasicBlocks of two 3x3x3 Conv3d + BatchNorm3d with a
# 1x1x1 strided downsample shortcut, AdaptiveAvgPool3d(1) and a Linear head), scaled down and trained on
# synthetic "moving blob" clips whose class is the direction the blob travels: the class lies in how the blob
# moves across frames, which the 3-D convolutions see (reversing time swaps the predicted directions, checked
# below). Asserts the training loss falls and held-out accuracy is far above chance (25 %); also runs unchanged
# on PyTorch (MT_REAL_TORCH=1).
import math

import torch
import torch.nn.functional as F
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

FRAMES, SIZE, CLASSES = 8, 16, 4
DIRECTIONS = torch.tensor(
    [[0.0, 1.0], [0.0, -1.0], [1.0, 0.0], [-1.0, 0.0]]
)  # (dy, dx): right, left, down, up


def moving_blobs(n, generator):
    """n clips (1 x FRAMES x SIZE x SIZE) of a Gaussian blob moving 1 px/frame in one of four directions, plus
    pixel noise; labels are the direction."""
    labels = torch.randint(0, CLASSES, (n,), generator=generator)
    start = 4 + torch.rand(n, 2, generator=generator) * (SIZE - 8)  # keeps the blob inside the frame
    speed = 0.75 + 0.5 * torch.rand(n, 1, generator=generator)
    t = torch.arange(FRAMES, dtype=torch.float32) - (FRAMES - 1) / 2
    # centers (n, FRAMES, 2): start + t * speed * direction
    centers = start[:, None, :] + t[None, :, None] * speed[:, :, None] * DIRECTIONS[labels][:, None, :]
    yy = torch.arange(SIZE, dtype=torch.float32).view(1, 1, SIZE, 1)
    xx = torch.arange(SIZE, dtype=torch.float32).view(1, 1, 1, SIZE)
    d2 = (yy - centers[..., 0, None, None]) ** 2 + (xx - centers[..., 1, None, None]) ** 2
    clips = torch.exp(-d2 / (2 * 1.5**2)) + 0.1 * torch.randn(n, FRAMES, SIZE, SIZE, generator=generator)
    return clips.unsqueeze(1), labels


class BasicBlock(nn.Module):
    expansion = 1

    def __init__(self, inplanes, planes, stride=1, downsample=None):
        super().__init__()
        self.conv1 = nn.Sequential(
            nn.Conv3d(inplanes, planes, kernel_size=3, stride=stride, padding=1, bias=False),
            nn.BatchNorm3d(planes),
            nn.ReLU(inplace=True),
        )
        self.conv2 = nn.Sequential(
            nn.Conv3d(planes, planes, kernel_size=3, padding=1, bias=False), nn.BatchNorm3d(planes)
        )
        self.relu = nn.ReLU(inplace=True)
        self.downsample = downsample

    def forward(self, x):
        residual = x if self.downsample is None else self.downsample(x)
        out = self.conv2(self.conv1(x))
        return self.relu(out + residual)


class TinyR3D(nn.Module):
    def __init__(self, num_classes=CLASSES, widths=(16, 32)):
        super().__init__()
        self.stem = nn.Sequential(
            nn.Conv3d(1, widths[0], kernel_size=(3, 5, 5), stride=(1, 2, 2), padding=(1, 2, 2), bias=False),
            nn.BatchNorm3d(widths[0]),
            nn.ReLU(inplace=True),
            nn.MaxPool3d(kernel_size=(1, 3, 3), stride=(1, 2, 2), padding=(0, 1, 1)),
        )
        self.layer1 = BasicBlock(widths[0], widths[0])
        down = nn.Sequential(
            nn.Conv3d(widths[0], widths[1], kernel_size=1, stride=2, bias=False), nn.BatchNorm3d(widths[1])
        )
        self.layer2 = BasicBlock(widths[0], widths[1], stride=2, downsample=down)
        self.avgpool = nn.AdaptiveAvgPool3d((1, 1, 1))
        self.fc = nn.Linear(widths[1], num_classes)
        for m in self.modules():  # torchvision's VideoResNet initialization
            if isinstance(m, nn.Conv3d):
                nn.init.kaiming_normal_(m.weight, mode="fan_out", nonlinearity="relu")
            elif isinstance(m, nn.BatchNorm3d):
                nn.init.constant_(m.weight, 1)
                nn.init.constant_(m.bias, 0)

    def forward(self, x):
        x = self.stem(x)
        x = self.layer2(self.layer1(x))
        return self.fc(self.avgpool(x).flatten(1))


gen = torch.Generator().manual_seed(1)
train_x, train_y = moving_blobs(256, gen)
test_x, test_y = moving_blobs(128, gen)
assert tuple(train_x.shape) == (256, 1, FRAMES, SIZE, SIZE)
loader = DataLoader(TensorDataset(train_x, train_y), batch_size=32, shuffle=True)

model = TinyR3D().to(device)
print(model.stem)
n_params = sum(p.numel() for p in model.parameters())
print(f"parameters: {n_params}")
assert tuple(model.stem[0].weight.shape) == (16, 1, 3, 5, 5)
optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9, weight_decay=1e-4)
scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=4)

epoch_losses = []
for epoch in range(4):
    model.train()
    total, count = 0.0, 0
    for clips, labels in loader:
        clips, labels = clips.to(device), labels.to(device)
        optimizer.zero_grad()
        loss = F.cross_entropy(model(clips), labels)
        loss.backward()
        optimizer.step()
        total += loss.item() * labels.shape[0]
        count += labels.shape[0]
    scheduler.step()
    epoch_losses.append(total / count)
    print(f"epoch {epoch}: train loss {epoch_losses[-1]:.4f}")

model.eval()
with torch.no_grad():
    logits = model(test_x.to(device))
    accuracy = (logits.argmax(1).cpu() == test_y).float().mean().item()
print(f"held-out accuracy: {accuracy:.3f} (chance {1 / CLASSES:.2f})")

assert math.isfinite(epoch_losses[-1])
assert epoch_losses[-1] < 0.5 * epoch_losses[0], epoch_losses
assert accuracy > 0.6, accuracy
# the 3-D features really see time: reversing the clips swaps right/left and down/up
with torch.no_grad():
    flipped = model(test_x.flip(2).to(device)).argmax(1).cpu()
swap = torch.tensor([1, 0, 3, 2])
assert (flipped == swap[test_y]).float().mean().item() > 0.5
print("video_classifier_3d: ok")
