"""Sampling and window functions (minitorch/_random.py, _windows.py) on the CPU beside NumPy (and PyTorch when
installed): normal(mean, std, size), bernoulli(p tensor), Tensor.exponential_ and hann/kaiser windows.
Printed as a Markdown table with R = t_numpy / t_minitorch (above 1: minitorch is faster).

A report, not a test. Usage: PYTHONPATH=python python benchmarks/bench_torch_functions.py
(or with /tmp/tv/bin/python for a PyTorch column).
"""

import argparse
import os
import platform

import numpy as np
from _timing import bench, fmt

import minitorch

try:  # real PyTorch as a third column, only where it is installed
    import torch as real_torch
except ImportError:
    real_torch = None


def cases(n, win):
    rng = np.random.default_rng(0)
    p_np = rng.random(n).astype(np.float32)
    p_mt = minitorch.from_numpy(p_np)
    buf_mt = minitorch.empty(n)
    out = {
        f"normal(0, 1, ({n},))": {
            "minitorch": lambda: minitorch.normal(0.0, 1.0, (n,)),
            "numpy": lambda: rng.standard_normal(n, dtype=np.float32),
        },
        f"bernoulli(p[{n}])": {
            "minitorch": lambda: minitorch.bernoulli(p_mt),
            "numpy": lambda: (rng.random(n, dtype=np.float32) < p_np).astype(np.float32),
        },
        f"exponential_([{n}])": {
            "minitorch": lambda: buf_mt.exponential_(2.0),
            "numpy": lambda: rng.standard_exponential(n, dtype=np.float32) / 2.0,
        },
        f"hann_window({win})": {
            "minitorch": lambda: minitorch.hann_window(win),
            "numpy": lambda: np.hanning(win + 1)[:-1].astype(np.float32),
        },
        f"kaiser_window({win})": {
            "minitorch": lambda: minitorch.kaiser_window(win),
            "numpy": lambda: np.kaiser(win + 1, 12.0)[:-1].astype(np.float32),
        },
    }
    if real_torch is not None:
        p_t = real_torch.from_numpy(p_np)
        buf_t = real_torch.empty(n)
        fns = [
            lambda: real_torch.normal(0.0, 1.0, (n,)),
            lambda: real_torch.bernoulli(p_t),
            lambda: buf_t.exponential_(2.0),
            lambda: real_torch.hann_window(win),
            lambda: real_torch.kaiser_window(win),
        ]
        for row, fn in zip(out.values(), fns):
            row["torch"] = fn
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=1 << 20, help="samples per call")
    ap.add_argument("--window", type=int, default=1024, help="window length")
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--min-time", type=float, default=0.1)
    args = ap.parse_args()
    print(
        f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
        f"minitorch threads {minitorch.get_num_threads()}\n"
    )
    cols = ["minitorch", "numpy"] + (["torch"] if real_torch is not None else [])
    print(
        "| case | "
        + " | ".join(cols)
        + " | R numpy/minitorch |"
        + (" R torch/minitorch |" if real_torch else "")
    )
    print("|---" * (len(cols) + 2 + (1 if real_torch else 0)) + "|")
    for name, row in cases(args.n, args.window).items():
        t = bench(row, args.repeats, args.min_time)
        line = (
            f"| {name} | " + " | ".join(fmt(t[c]) for c in cols) + f" | {t['numpy'] / t['minitorch']:.2f} |"
        )
        if real_torch is not None:
            line += f" {t['torch'] / t['minitorch']:.2f} |"
        print(line)


if __name__ == "__main__":
    main()
