"""The README's main job: the tutorials' SimpleNN (3 -> 10 -> 2, ReLU) trained with cross-entropy and SGD, on
the GPU when there is one. Written with autograd and tensors directly: `nn`/`optim` arrive with their issue,
and then this becomes the tutorial's code verbatim.

    python examples/train_tutorial.py [--steps 300]
"""

import argparse
import math
import time

import minitorch as torch


def linear_params(n_in, n_out, device):
    # PyTorch's nn.Linear default: U(-1/sqrt(n_in), 1/sqrt(n_in)) for weight and bias
    bound = 1.0 / math.sqrt(n_in)
    w = (torch.rand(n_out, n_in, device=device) * 2 - 1) * bound
    b = (torch.rand(n_out, device=device) * 2 - 1) * bound
    return w.requires_grad_(), b.requires_grad_()


def forward(params, x):
    w1, b1, w2, b2 = params
    h = torch.relu(x @ w1.t() + b1)
    return h @ w2.t() + b2


def cross_entropy(logits, labels):
    return -torch.log_softmax(logits, 1).gather(1, labels.unsqueeze(1)).mean()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=300)
    ap.add_argument("--lr", type=float, default=0.5)
    args = ap.parse_args()

    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    print(f"minitorch {torch.__version__}: training SimpleNN on {device}")
    torch.manual_seed(0)
    params = [*linear_params(3, 10, device), *linear_params(10, 2, device)]
    inputs = torch.randn(100, 3).to(device)
    labels = (inputs[:, 0] > 0).long()  # learnable: the class is the sign of the first feature

    t0 = time.perf_counter()
    first = None
    for step in range(args.steps):
        loss = cross_entropy(forward(params, inputs), labels)
        for p in params:
            p.grad = None
        loss.backward()
        with torch.no_grad():
            for p in params:
                p -= args.lr * p.grad
        if first is None:
            first = loss.item()
        if step % 50 == 0 or step == args.steps - 1:
            print(f"step {step:4d}  loss {loss.item():.4f}")
    if device.type == "cuda":
        torch.cuda.synchronize()
    dt = time.perf_counter() - t0
    with torch.no_grad():
        acc = (forward(params, inputs).argmax(1) == labels).float().mean().item()
    print(
        f"first loss {first:.4f}, last loss {loss.item():.4f}, accuracy {acc:.2f}, "
        f"{args.steps / dt:.0f} steps/s"
    )
    assert loss.item() < 0.5 * first and acc > 0.9, "training did not converge"
    print("train_tutorial: ok")


if __name__ == "__main__":
    main()
