"""A LeNet-style CNN classifier trained on synthetic images (a horizontal or a vertical bar in noise), with a
DataLoader, Adam, a StepLR schedule, evaluation mode and a checkpoint round trip; on the GPU when there is one.

    python examples/cnn_classifier.py [--epochs 4] [--batch-size 64]
"""

import argparse
import os
import tempfile
import time

import numpy as np

import minitorch as torch
import minitorch.nn.functional as F
from minitorch import nn
from minitorch.utils.data import DataLoader, TensorDataset


def make_bars(n, seed):
    """n 1x16x16 images: class 0 has a horizontal bar, class 1 a vertical one, at random places, in noise."""
    rng = np.random.default_rng(seed)
    x = rng.normal(0, 0.4, size=(n, 1, 16, 16)).astype(np.float32)
    y = rng.integers(0, 2, size=n)
    pos = rng.integers(2, 14, size=n)
    for i in range(n):
        if y[i] == 0:
            x[i, 0, pos[i], 3:13] += 1.5
        else:
            x[i, 0, 3:13, pos[i]] += 1.5
    return torch.from_numpy(x), torch.from_numpy(y.astype(np.int64))


class LeNet(nn.Module):
    def __init__(self, classes=2):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 6, 5, padding=2)
        self.bn1 = nn.BatchNorm2d(6)
        self.conv2 = nn.Conv2d(6, 16, 5)
        self.fc1 = nn.Linear(16 * 2 * 2, 64)
        self.drop = nn.Dropout(0.2)
        self.fc2 = nn.Linear(64, classes)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.bn1(self.conv1(x))), 2)  # 16 -> 8
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)  # 8 -> 4 -> 2
        x = torch.flatten(x, 1)
        return self.fc2(self.drop(F.relu(self.fc1(x))))


def evaluate(model, loader, device):
    model.eval()
    correct = total = 0
    with torch.no_grad():
        for x, y in loader:
            x, y = x.to(device), y.to(device)
            correct += (model(x).argmax(1) == y).sum().item()
            total += y.numel()
    model.train()
    return correct / total


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--epochs", type=int, default=4)
    ap.add_argument("--batch-size", type=int, default=64)
    ap.add_argument("--train-size", type=int, default=2048)
    args = ap.parse_args()

    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    torch.manual_seed(0)
    train = TensorDataset(*make_bars(args.train_size, 0))
    test = TensorDataset(*make_bars(512, 1))
    train_loader = DataLoader(
        train, batch_size=args.batch_size, shuffle=True, pin_memory=device.type == "cuda"
    )
    test_loader = DataLoader(test, batch_size=256)

    model = LeNet().to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=2, gamma=0.5)
    criterion = nn.CrossEntropyLoss()
    print(
        f"minitorch {torch.__version__}: LeNet on {device}, {sum(p.numel() for p in model.parameters())} parameters"
    )
    t0 = time.perf_counter()
    for epoch in range(args.epochs):
        total = 0.0
        for x, y in train_loader:
            x, y = x.to(device, non_blocking=True), y.to(device, non_blocking=True)
            optimizer.zero_grad()
            loss = criterion(model(x), y)
            loss.backward()
            optimizer.step()
            total += loss.item() * y.numel()
        scheduler.step()
        print(f"epoch {epoch + 1}: loss {total / len(train):.4f}, lr {scheduler.get_last_lr()[0]:.4g}, "
              f"test accuracy {evaluate(model, test_loader, device):.3f}")  # fmt: skip
    print(f"{args.epochs} epochs in {time.perf_counter() - t0:.1f} s")

    # checkpoint round trip: the restored model gives the same accuracy
    path = os.path.join(tempfile.mkdtemp(), "lenet.pt")
    torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict()}, path)
    restored = LeNet().to(device)
    restored.load_state_dict(torch.load(path, map_location=device)["model"])
    acc = evaluate(restored, test_loader, device)
    print(f"restored checkpoint: test accuracy {acc:.3f}")
    assert acc > 0.9, "the CNN did not learn"
    print("cnn_classifier: ok")


if __name__ == "__main__":
    main()
