"""The README's main job, on the GPU when there is one. First the tutorials' SimpleNN (3 -> 10 -> 2, ReLU)
trained with nn.CrossEntropyLoss and optim.SGD, written as the tutorials write it (seconds); then real
learning on a real data set: an MLP on scikit-learn's handwritten digits (examples/train_digits.py) with a
test accuracy line and a saved loss/accuracy plot. tqdm progress bars when tqdm is installed
(pip install ".[examples]"), plain lines otherwise.

    python examples/train_tutorial.py [--steps 300] [--lr 0.5] [--digits-epochs 15] [--amp] [--plot PATH]
"""

import argparse
import time

import minitorch as torch
from minitorch import nn, optim

try:
    from tqdm import tqdm
except ImportError:  # the progress bar is optional
    tqdm = None


class SimpleNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(3, 10)
        self.fc2 = nn.Linear(10, 2)

    def forward(self, x):
        x = torch.relu(self.fc1(x))
        x = self.fc2(x)
        return x


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=300)
    ap.add_argument("--lr", type=float, default=0.5)
    ap.add_argument("--digits-epochs", type=int, default=15, help="0 skips the digits part")
    ap.add_argument("--amp", action="store_true", help="mixed precision for the digits part")
    ap.add_argument("--plot", default="digits_training.png", help="PNG path for the digits plot")
    args = ap.parse_args()

    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    print(f"minitorch {torch.__version__}: training SimpleNN on {device}")
    torch.manual_seed(0)
    model = SimpleNN().to(device)
    criterion = nn.CrossEntropyLoss()
    optimizer = optim.SGD(model.parameters(), lr=args.lr)
    inputs = torch.randn(100, 3).to(device)
    labels = (inputs[:, 0] > 0).long()  # learnable: the class is the sign of the first feature

    steps = range(args.steps)
    bar = tqdm(steps, desc="training", unit="step") if tqdm is not None else None
    t0 = time.perf_counter()
    first = None
    for step in bar if bar is not None else steps:
        optimizer.zero_grad()
        outputs = model(inputs)
        loss = criterion(outputs, labels)
        loss.backward()
        optimizer.step()
        if first is None:
            first = loss.item()
        if step % 50 == 0 or step == args.steps - 1:
            if bar is not None:
                bar.set_postfix(loss=f"{loss.item():.4f}")
            else:
                print(f"step {step:4d}  loss {loss.item():.4f}")
    if bar is not None:
        bar.close()
    if device.type == "cuda":
        torch.cuda.synchronize()
    dt = time.perf_counter() - t0
    with torch.no_grad():
        acc = (model(inputs).argmax(dim=1) == labels).float().mean().item()
    print(
        f"first loss {first:.4f}, last loss {loss.item():.4f}, accuracy {acc:.2f}, "
        f"{args.steps / dt:.0f} steps/s"
    )
    assert loss.item() < 0.5 * first and acc > 0.9, "training did not converge"

    if args.digits_epochs > 0:
        from train_digits import train_digits  # beside this script

        print(f"training an MLP on scikit-learn's handwritten digits on {device}")
        test_acc, _, _ = train_digits(epochs=args.digits_epochs, amp=args.amp, plot=args.plot, device=device)
        assert test_acc > 0.9, f"digits test accuracy {test_acc:.3f}: training did not work"
    print("train_tutorial: ok")


if __name__ == "__main__":
    main()
