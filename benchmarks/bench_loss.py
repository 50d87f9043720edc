"""Loss functions: cross_entropy and mse_loss forward+backward beside a hand-written NumPy forward/backward (CPU)
and PyTorch when it imports, on the CPU and, where present, on CUDA. Printed as a Markdown table with ratios.

A report, not a test. Usage: PYTHONPATH=python python benchmarks/bench_loss.py [--device cpu|cuda] [--no-large]
(default: the CPU, then CUDA when a GPU is present)
"""

import argparse
import os
import platform

import numpy as np
from _timing import bench, fmt

import minitorch

try:  # real PyTorch as a second column, only where it is installed
    import torch as real_torch
except ImportError:
    real_torch = None

F = minitorch._C._nn


def np_cross_entropy_step(x, t):
    """Mean cross entropy over rows and its gradient, the way one writes it in NumPy."""
    m = x.max(axis=1, keepdims=True)
    e = np.exp(x - m)
    s = e.sum(axis=1, keepdims=True)
    n = x.shape[0]
    loss = (np.log(s[:, 0]) + m[:, 0] - x[np.arange(n), t]).mean()
    g = e / s
    g[np.arange(n), t] -= 1
    g /= n
    return loss, g


def np_mse_step(x, y):
    d = x - y
    return (d * d).mean(), (2.0 / d.size) * d


def lib_cases(make_step, device):
    cols = {"minitorch": make_step(minitorch, device)}
    if real_torch is not None:
        cols["torch"] = make_step(real_torch, device)
    return cols


def ce_case(n, c, device):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((n, c)).astype(np.float32)
    t = rng.integers(0, c, size=n)

    def make(lib, dev):
        X = lib.from_numpy(x.copy()).to(dev).requires_grad_()
        T = lib.from_numpy(t.copy()).to(dev)
        ce = F.cross_entropy if lib is minitorch else real_torch.nn.functional.cross_entropy

        def step():
            X.grad = None
            loss = ce(X, T)
            loss.backward()
            return loss

        return step

    cols = {"numpy": lambda: np_cross_entropy_step(x, t)} if device == "cpu" else {}
    cols.update(lib_cases(make, device))
    return f"cross_entropy fwd+bwd [{n}x{c}]", cols


def mse_case(n, device):
    rng = np.random.default_rng(1)
    x = rng.standard_normal(n).astype(np.float32)
    y = rng.standard_normal(n).astype(np.float32)

    def make(lib, dev):
        X = lib.from_numpy(x.copy()).to(dev).requires_grad_()
        Y = lib.from_numpy(y.copy()).to(dev)
        mse = F.mse_loss if lib is minitorch else real_torch.nn.functional.mse_loss

        def step():
            X.grad = None
            loss = mse(X, Y)
            loss.backward()
            return loss

        return step

    cols = {"numpy": lambda: np_mse_step(x, y)} if device == "cpu" else {}
    cols.update(lib_cases(make, device))
    return f"mse_loss fwd+bwd [{n}]", cols


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--device", default=None, choices=["cpu", "cuda"])
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--min-time", type=float, default=0.1, help="seconds per repeat (approximately)")
    ap.add_argument("--no-large", action="store_true", help="skip the 4096x32000 case (512 MiB of logits)")
    args = ap.parse_args()
    devices = [args.device] if args.device else ["cpu"] + (["cuda"] if minitorch.cuda.is_available() else [])
    for dev in devices:
        run_device(dev, args)
        print()


def run_device(dev, args):
    print(
        f"{dev.upper()}: {platform.machine()}, {os.cpu_count()} logical cores; numpy {np.__version__}; "
        f"torch {real_torch.__version__ if real_torch else 'not installed'}; float32, mean reduction"
    )
    print(f"median of {args.repeats} interleaved repeats; each step: forward, backward, gradient written\n")
    no_sync = lambda: None
    sync = {
        "numpy": no_sync,
        "minitorch": (lambda: minitorch.cuda.synchronize()) if dev == "cuda" else no_sync,
        "torch": (lambda: real_torch.cuda.synchronize()) if dev == "cuda" and real_torch else no_sync,
    }
    shapes = [(100, 2), (64, 10), (256, 1000)] + ([] if args.no_large else [(4096, 32000)])
    cases = [ce_case(n, c, dev) for n, c in shapes] + [mse_case(n, dev) for n in (100, 1 << 20)]
    has_np = dev == "cpu"
    has_torch = real_torch is not None
    head, sep = "| case |", "|---|"
    if has_np:
        head += " numpy | t_numpy / t_minitorch |"
        sep += "---|---|"
    head += " minitorch |"
    sep += "---|"
    if has_torch:
        head += " torch | t_torch / t_minitorch |"
        sep += "---|---|"
    print(head)
    print(sep)
    for name, cols in cases:
        big = "32000" in name
        t = bench(cols, 3 if big else args.repeats, args.min_time, sync)
        row = f"| {name} |"
        if has_np:
            row += f" {fmt(t['numpy'])} | {t['numpy'] / t['minitorch']:.2f} |"
        row += f" {fmt(t['minitorch'])} |"
        if has_torch:
            row += f" {fmt(t['torch'])} | {t['torch'] / t['minitorch']:.2f} |"
        print(row, flush=True)


if __name__ == "__main__":
    main()
