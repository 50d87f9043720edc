"""Convolution and pooling speed: conv2d forward and forward+backward on ResNet- and LeNet-style layers and
two pooling layers, beside a NumPy im2col + matmul forward (CPU) and PyTorch (CPU, and CUDA with
cudnn.benchmark off/on) when it imports. Printed as Markdown tables with ratios.

A report, not a test. Usage: PYTHONPATH=python python benchmarks/bench_conv.py [--batch N] [--device cpu|cuda]
"""

# ruff: noqa: B023 - every closure is timed within the loop iteration that made it

import argparse
import os
import platform
import statistics
import time

import numpy as np

import minitorch

try:  # real PyTorch as a second column, only where it is installed
    import torch as real_torch
except ImportError:
    real_torch = None

F = minitorch._C._nn

# (name, C_in, C_out, H=W, kernel, stride, padding)
CONV_LAYERS = [
    ("ResNet 3x3 64->64 @56", 64, 64, 56, 3, 1, 1),
    ("ResNet 3x3 128->128 @28", 128, 128, 28, 3, 1, 1),
    ("ResNet 1x1 256->64 @56", 256, 64, 56, 1, 1, 0),
    ("ResNet 7x7/2 3->64 @224", 3, 64, 224, 7, 2, 3),
    ("LeNet 5x5 1->6 @28", 1, 6, 28, 5, 1, 0),
    ("LeNet 5x5 6->16 @14", 6, 16, 14, 5, 1, 0),
]


def timed(fn, sync, min_time, repeats):
    """Median seconds per call over `repeats` timings of enough calls to last min_time each."""
    for _ in range(2):
        fn()
    sync()
    n, t = 1, 0.0
    while True:
        t0 = time.perf_counter()
        for _ in range(n):
            fn()
        sync()
        t = time.perf_counter() - t0
        if t >= min_time or n >= 1 << 16:
            break
        n *= 2
    samples = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        for _ in range(n):
            fn()
        sync()
        samples.append((time.perf_counter() - t0) / n)
    return statistics.median(samples)


def fmt(s):
    if s is None:
        return "-"
    return f"{s * 1e6:.1f} us" if s < 1e-3 else f"{s * 1e3:.2f} ms"


def ratio(a, b):
    return "-" if a is None or b is None else f"{a / b:.2f}x"


def numpy_conv2d(x, w, stride, padding):
    """The floor an im2col implementation in NumPy reaches: windows as a strided view, one matmul per batch."""
    if padding:
        x = np.pad(x, ((0, 0), (0, 0), (padding, padding), (padding, padding)))
    k = w.shape[2]
    win = np.lib.stride_tricks.sliding_window_view(x, (k, k), axis=(2, 3))[:, :, ::stride, ::stride]
    n, c, oh, ow = win.shape[:4]
    cols = win.transpose(0, 2, 3, 1, 4, 5).reshape(n, oh * ow, c * k * k)
    return (cols @ w.reshape(w.shape[0], -1).T).transpose(0, 2, 1).reshape(n, w.shape[0], oh, ow)


def conv_rows(batch, device, min_time, repeats):
    rng = np.random.default_rng(0)
    mt_sync = minitorch.cuda.synchronize if device == "cuda" else (lambda: None)
    rows = []
    for name, cin, cout, hw, k, s, p in CONV_LAYERS:
        x_np = rng.standard_normal((batch, cin, hw, hw)).astype(np.float32)
        w_np = (rng.standard_normal((cout, cin, k, k)) / np.sqrt(cin * k * k)).astype(np.float32)
        b_np = np.zeros(cout, np.float32)
        r = {"layer": name}
        if device == "cpu":
            r["numpy fwd"] = timed(lambda: numpy_conv2d(x_np, w_np, s, p), lambda: None, min_time, repeats)

        def mt_cases(x_np=x_np, w_np=w_np, b_np=b_np, s=s, p=p):
            x = minitorch.tensor(x_np, device=device)
            w = minitorch.tensor(w_np, device=device).requires_grad_()
            b = minitorch.tensor(b_np, device=device).requires_grad_()
            xg = minitorch.tensor(x_np, device=device).requires_grad_()

            def fwd():
                with minitorch.no_grad():
                    F.conv2d(x, w, b, s, p)

            def fwd_bwd():
                F.conv2d(xg, w, b, s, p).sum().backward()

            return fwd, fwd_bwd

        def torch_cases(x_np=x_np, w_np=w_np, b_np=b_np, s=s, p=p):
            tf = real_torch.nn.functional
            x = real_torch.tensor(x_np, device=device)
            w = real_torch.tensor(w_np, device=device).requires_grad_()
            b = real_torch.tensor(b_np, device=device).requires_grad_()
            xg = real_torch.tensor(x_np, device=device).requires_grad_()

            def fwd():
                with real_torch.no_grad():
                    tf.conv2d(x, w, b, s, p)

            def fwd_bwd():
                tf.conv2d(xg, w, b, s, p).sum().backward()

            return fwd, fwd_bwd

        modes = [("", None)] if device == "cpu" else [(" bench=off", False), (" bench=on", True)]
        for suffix, bench_flag in modes:
            if bench_flag is not None:
                minitorch.backends.cudnn.benchmark = bench_flag
            fwd, fwd_bwd = mt_cases()
            r["minitorch fwd" + suffix] = timed(fwd, mt_sync, min_time, repeats)
            r["minitorch fwd+bwd" + suffix] = timed(fwd_bwd, mt_sync, min_time, repeats)
            if real_torch is not None:
                if bench_flag is not None:
                    real_torch.backends.cudnn.benchmark = bench_flag
                t_sync = real_torch.cuda.synchronize if device == "cuda" else (lambda: None)
                fwd, fwd_bwd = torch_cases()
                r["torch fwd" + suffix] = timed(fwd, t_sync, min_time, repeats)
                r["torch fwd+bwd" + suffix] = timed(fwd_bwd, t_sync, min_time, repeats)
        rows.append(r)
    return rows


def pool_rows(batch, device, min_time, repeats):
    rng = np.random.default_rng(1)
    mt_sync = minitorch.cuda.synchronize if device == "cuda" else (lambda: None)
    x_np = rng.standard_normal((batch, 64, 112, 112)).astype(np.float32)
    cases = [
        ("max_pool2d 3x3/2 pad 1 @112", lambda lib, x: lib(x, 3, 2, 1), "max_pool2d"),
        ("adaptive_avg_pool2d ->1 @112", lambda lib, x: lib(x, 1), "adaptive_avg_pool2d"),
    ]
    rows = []
    for name, call, fn in cases:
        r = {"layer": name}
        x = minitorch.tensor(x_np, device=device)
        xg = minitorch.tensor(x_np, device=device).requires_grad_()
        op = getattr(F, fn)
        r["minitorch fwd"] = timed(lambda: call(op, x), mt_sync, min_time, repeats)
        r["minitorch fwd+bwd"] = timed(lambda: call(op, xg).sum().backward(), mt_sync, min_time, repeats)
        if real_torch is not None:
            t_sync = real_torch.cuda.synchronize if device == "cuda" else (lambda: None)
            top = getattr(real_torch.nn.functional, fn)
            tx = real_torch.tensor(x_np, device=device)
            txg = real_torch.tensor(x_np, device=device).requires_grad_()
            r["torch fwd"] = timed(lambda: call(top, tx), t_sync, min_time, repeats)
            r["torch fwd+bwd"] = timed(lambda: call(top, txg).sum().backward(), t_sync, min_time, repeats)
        if device == "cpu" and fn == "adaptive_avg_pool2d":
            r["numpy fwd"] = timed(lambda: x_np.mean((2, 3), keepdims=True), lambda: None, min_time, repeats)
        rows.append(r)
    return rows


def table(title, rows):
    cols = [c for c in rows[0] if c != "layer"]
    print(f"\n### {title}\n")
    ratios = []
    for c in cols:
        if c.startswith("minitorch"):
            t = c.replace("minitorch", "torch")
            if any(t in r for r in rows):
                ratios.append((c, t, f"mt/torch{c[len('minitorch') :]}"))
            if c == "minitorch fwd" and any("numpy fwd" in r for r in rows):
                ratios.append((c, "numpy fwd", "mt/numpy fwd"))
    print("| layer | " + " | ".join(cols) + " | " + " | ".join(x[2] for x in ratios) + " |")
    print("|---|" + "---:|" * (len(cols) + len(ratios)))
    for r in rows:
        cells = [fmt(r.get(c)) for c in cols] + [ratio(r.get(a), r.get(b)) for a, b, _ in ratios]
        print(f"| {r['layer']} | " + " | ".join(cells) + " |", flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--device", default=None, help="cpu or cuda (default: both where present)")
    ap.add_argument("--batch", type=int, default=None, help="batch size (default 8 on CPU, 32 on CUDA)")
    ap.add_argument("--min-time", type=float, default=0.1)
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args()
    devices = [args.device] if args.device else ["cpu"] + (["cuda"] if minitorch.cuda.is_available() else [])
    print(
        f"minitorch conv benchmark: {platform.processor() or platform.machine()}, {os.cpu_count()} CPUs, "
        f"torch {real_torch.__version__ if real_torch else 'not installed'}, "
        f"cuDNN {minitorch.backends.cudnn.version()}"
    )
    for device in devices:
        batch = args.batch or (8 if device == "cpu" else 32)
        if device == "cuda" and real_torch is not None:
            real_torch.backends.cudnn.allow_tf32 = minitorch.backends.cudnn.allow_tf32
        table(
            f"conv2d float32 on {device}, batch {batch}",
            conv_rows(batch, device, args.min_time, args.repeats),
        )
        table(
            f"pooling float32 on {device}, batch {batch}",
            pool_rows(batch, device, args.min_time, args.repeats),
        )


if __name__ == "__main__":
    main()
