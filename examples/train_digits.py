"""Real learning on a real data set: scikit-learn's bundled handwritten digits (1797 8x8 images, 10 classes),
an MLP trained with Adam through a DataLoader, on the GPU when there is one (with autocast + GradScaler there
when --amp is given; bfloat16 autocast on the CPU). Prints a tqdm progress bar, a test accuracy line, and
saves a loss/accuracy plot. The second half of the README's main job (examples/train_tutorial.py).

    python examples/train_digits.py [--epochs 15] [--amp] [--plot digits_training.png]

Needs the examples extra: pip install ".[examples]" (scikit-learn, tqdm, matplotlib).
"""

import argparse
import os
import time

import numpy as np

import minitorch as torch
from minitorch import nn, optim
from minitorch.utils.data import DataLoader, TensorDataset

try:
    from tqdm import tqdm
except ImportError:  # the progress bar is optional
    tqdm = None


class DigitsMLP(nn.Module):
    def __init__(self, hidden=128):
        super().__init__()
        self.net = nn.Sequential(
            nn.Linear(64, hidden),
            nn.ReLU(),
            nn.Dropout(0.1),
            nn.Linear(hidden, hidden),
            nn.ReLU(),
            nn.Linear(hidden, 10),
        )

    def forward(self, x):
        return self.net(x)


def load_digits_split(test_fraction=0.25, seed=0):
    """(x_train, y_train, x_test, y_test) as float32/int64 NumPy arrays, pixels scaled to [0, 1], stratified."""
    from sklearn.datasets import load_digits
    from sklearn.model_selection import train_test_split

    x, y = load_digits(return_X_y=True)
    x = (x / 16.0).astype(np.float32)
    x_tr, x_te, y_tr, y_te = train_test_split(x, y, test_size=test_fraction, random_state=seed, stratify=y)
    return x_tr, y_tr.astype(np.int64), x_te, y_te.astype(np.int64)


def evaluate(model, x, y):
    model.eval()
    with torch.no_grad():
        acc = (model(x).argmax(dim=1) == y).float().mean().item()
    model.train()
    return acc


def train_digits(
    epochs=20, lr=3e-3, batch_size=64, amp=False, plot="digits_training.png", device=None, quiet=False
):
    """Trains DigitsMLP; returns (test_accuracy, plot_path or None, history dict)."""
    if device is None:
        device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    torch.manual_seed(0)
    x_tr, y_tr, x_te, y_te = load_digits_split()
    train_loader = DataLoader(
        TensorDataset(torch.from_numpy(x_tr), torch.from_numpy(y_tr)), batch_size=batch_size, shuffle=True
    )
    x_test, y_test = torch.from_numpy(x_te).to(device), torch.from_numpy(y_te).to(device)

    model = DigitsMLP().to(device)
    criterion = nn.CrossEntropyLoss()
    optimizer = optim.Adam(model.parameters(), lr=lr)
    amp_dtype = torch.float16 if device.type == "cuda" else torch.bfloat16
    scaler = torch.amp.GradScaler(device.type, enabled=amp and amp_dtype == torch.float16)

    history = {"loss": [], "test_acc": []}
    epochs_iter = range(epochs)
    bar = tqdm(epochs_iter, desc="digits", unit="epoch", disable=quiet) if tqdm is not None else None
    t0 = time.perf_counter()
    for epoch in bar if bar is not None else epochs_iter:
        total, n = 0.0, 0
        for xb, yb in train_loader:
            xb, yb = xb.to(device, non_blocking=True), yb.to(device, non_blocking=True)
            optimizer.zero_grad()
            with torch.autocast(device_type=device.type, dtype=amp_dtype, enabled=amp):
                loss = criterion(model(xb), yb)
            scaler.scale(loss).backward()
            scaler.step(optimizer)
            scaler.update()
            total += loss.item() * len(yb)
            n += len(yb)
        history["loss"].append(total / n)
        history["test_acc"].append(evaluate(model, x_test, y_test))
        if bar is not None:
            bar.set_postfix(loss=f"{history['loss'][-1]:.4f}", test_acc=f"{history['test_acc'][-1]:.3f}")
        elif not quiet:
            print(
                f"epoch {epoch + 1:3d}  loss {history['loss'][-1]:.4f}  test accuracy {history['test_acc'][-1]:.3f}"
            )
    if bar is not None:
        bar.close()
    dt = time.perf_counter() - t0
    acc = history["test_acc"][-1]
    print(
        f"digits: test accuracy {acc:.4f} on {len(y_te)} held-out images after {epochs} epochs "
        f"({dt:.1f} s on {device}{', AMP' if amp else ''})"
    )
    path = save_plot(history, plot) if plot else None
    if path:
        print(f"digits: loss/accuracy plot saved to {path}")
    return acc, path, history


def save_plot(history, path):
    try:
        import matplotlib

        matplotlib.use("Agg")  # a file, never a window: this runs headless in CI and in scripts
        import matplotlib.pyplot as plt
    except ImportError:
        print("digits: matplotlib is not installed, no plot (pip install '.[examples]')")
        return None
    epochs = range(1, len(history["loss"]) + 1)
    fig, ax1 = plt.subplots(figsize=(6, 4))
    ax1.plot(epochs, history["loss"], color="tab:blue", label="training loss")
    ax1.set_xlabel("epoch")
    ax1.set_ylabel("training loss", color="tab:blue")
    ax2 = ax1.twinx()
    ax2.plot(epochs, history["test_acc"], color="tab:orange", label="test accuracy")
    ax2.set_ylabel("test accuracy", color="tab:orange")
    ax2.set_ylim(0, 1)
    ax1.set_title("minitorch: MLP on scikit-learn's digits")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return os.path.abspath(path)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--epochs", type=int, default=15)
    ap.add_argument("--lr", type=float, default=3e-3)
    ap.add_argument("--amp", action="store_true", help="mixed precision (float16 + GradScaler on the GPU)")
    ap.add_argument(
        "--plot", default="digits_training.png", help="PNG path for the loss/accuracy plot ('' for none)"
    )
    args = ap.parse_args()
    acc, _, _ = train_digits(epochs=args.epochs, lr=args.lr, amp=args.amp, plot=args.plot)
    assert acc > 0.9, f"test accuracy {acc:.3f} is too low: training did not work"
    print("train_digits: ok")


if __name__ == "__main__":
    main()
