"""Autograd overhead: per-op cost with and without requires_grad, and a tiny MLP forward+backward, beside a
hand-written NumPy forward/backward (the floor) and PyTorch when installed. Printed as a Markdown table.

A report, not a test. Usage: PYTHONPATH=python python benchmarks/bench_autograd.py
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


def op_cases(n):
    """Per-op overhead on small tensors: columns are numpy, minitorch (no grad), minitorch (requires_grad),
    and the same two for torch."""
    rng = np.random.default_rng(0)
    a_np = rng.standard_normal((n, n)).astype(np.float32)
    b_np = rng.standard_normal((n, n)).astype(np.float32)
    libs = {"minitorch": minitorch}
    if real_torch is not None:
        libs["torch"] = real_torch
    made = {}
    for name, lib in libs.items():
        a, b = lib.from_numpy(a_np.copy()), lib.from_numpy(b_np.copy())
        ag, bg = lib.from_numpy(a_np.copy()).requires_grad_(), lib.from_numpy(b_np.copy()).requires_grad_()
        made[name] = (a, b, ag, bg)
    ops = [
        ("add", lambda x, y: x + y, lambda x, y: x + y),
        ("mul", lambda x, y: x * y, lambda x, y: x * y),
        ("exp", lambda x, y: x.exp(), np.exp),
        ("sum", lambda x, y: x.sum(), lambda x, y: x.sum()),
        ("matmul", lambda x, y: x @ y, lambda x, y: x @ y),
        # views of floating tensors are tracked in grad mode even without requires_grad (base + replay), so
        # the plain minitorch column carries that cost too
        ("select+slice", lambda x, y: x[1][1:3], lambda x, y: x[1][1:3]),
        (
            "view+transpose",
            lambda x, y: x.view(-1).view(n, n).t(),
            lambda x, y: x.reshape(-1).reshape(n, n).T,
        ),
    ]
    cases = []
    for op, f, fnp in ops:
        cols = {"numpy": (lambda f=fnp: f(a_np, b_np)) if op != "exp" else (lambda: np.exp(a_np))}
        for name, (a, b, ag, bg) in made.items():
            cols[f"{name}"] = lambda f=f, a=a, b=b: f(a, b)
            cols[f"{name} grad"] = lambda f=f, a=ag, b=bg: f(a, b)
        cases.append((f"{op} [{n}x{n}]", cols))
    return cases


def mlp_case(batch, d_in, hidden, d_out):
    """A 2-layer MLP (linear-relu-linear, MSE loss): forward + backward + reading the 4 gradients."""
    rng = np.random.default_rng(1)
    x = rng.standard_normal((batch, d_in)).astype(np.float32)
    y = rng.standard_normal((batch, d_out)).astype(np.float32)
    w1 = (rng.standard_normal((d_in, hidden)) * 0.1).astype(np.float32)
    b1 = np.zeros(hidden, np.float32)
    w2 = (rng.standard_normal((hidden, d_out)) * 0.1).astype(np.float32)
    b2 = np.zeros(d_out, np.float32)

    def numpy_step():
        h = x @ w1 + b1
        r = np.maximum(h, 0)
        out = r @ w2 + b2
        diff = out - y
        loss = (diff * diff).mean()
        g_out = 2 * diff / diff.size
        g_w2 = r.T @ g_out
        g_b2 = g_out.sum(0)
        g_r = g_out @ w2.T
        g_h = g_r * (h > 0)
        g_w1 = x.T @ g_h
        g_b1 = g_h.sum(0)
        return loss, g_w1, g_b1, g_w2, g_b2

    cols = {"numpy": numpy_step}
    libs = {"minitorch": minitorch}
    if real_torch is not None:
        libs["torch"] = real_torch
    for name, lib in libs.items():
        X, Y = lib.from_numpy(x), lib.from_numpy(y)
        params = [lib.from_numpy(p.copy()).requires_grad_() for p in (w1, b1, w2, b2)]

        def step(lib=lib, X=X, Y=Y, params=params):
            W1, B1, W2, B2 = params
            for p in params:
                p.grad = None
            out = (X @ W1 + B1).relu() @ W2 + B2
            loss = ((out - Y) ** 2).mean()
            loss.backward()
            return loss

        cols[name] = step
    return (f"MLP fwd+bwd [{batch}x{d_in}->{hidden}->{d_out}]", cols)


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--min-time", type=float, default=0.1, help="seconds per repeat (approximately)")
    args = ap.parse_args()
    print(
        f"CPU: {platform.machine()}, {os.cpu_count()} logical cores; numpy {np.__version__}; "
        f"torch {real_torch.__version__ if real_torch else 'not installed'}"
    )
    print(
        f"median of {args.repeats} interleaved repeats; 'grad' columns: inputs require grad (recording on)\n"
    )
    has_torch = real_torch is not None
    head = "| case | numpy | minitorch | minitorch grad | grad overhead |"
    sep = "|---|---|---|---|---|"
    if has_torch:
        head += " torch | torch grad |"
        sep += "---|---|"
    print(head)
    print(sep)
    for name, cols in op_cases(4) + op_cases(64):
        t = bench(cols, args.repeats, args.min_time)
        row = (
            f"| {name} | {fmt(t['numpy'])} | {fmt(t['minitorch'])} | {fmt(t['minitorch grad'])} | "
            f"{(t['minitorch grad'] - t['minitorch']) * 1e6:+.2f} us |"
        )
        if has_torch:
            row += f" {fmt(t['torch'])} | {fmt(t['torch grad'])} |"
        print(row, flush=True)
    print()
    head = "| case | numpy (hand-written) | minitorch | t_numpy / t_minitorch |"
    sep = "|---|---|---|---|"
    if has_torch:
        head += " torch | t_torch / t_minitorch |"
        sep += "---|---|"
    print(head)
    print(sep)
    for shape in [(32, 16, 32, 1), (256, 128, 256, 10)]:
        name, cols = mlp_case(*shape)
        t = bench(cols, args.repeats, args.min_time)
        row = f"| {name} | {fmt(t['numpy'])} | {fmt(t['minitorch'])} | {t['numpy'] / t['minitorch']:.2f} |"
        if has_torch:
            row += f" {fmt(t['torch'])} | {t['torch'] / t['minitorch']:.2f} |"
        print(row, flush=True)


if __name__ == "__main__":
    main()
