"""Shape ops composed in Python (minitorch._composite_shape) on the CPU beside NumPy and PyTorch when it
imports: flip, roll, tile, diff, index_add, kron and unfold (materialized). Printed as a Markdown table with
R = t_torch / t_minitorch (above 1: minitorch is faster).

A report, not a test. Usage: PYTHONPATH=python python benchmarks/bench_composite_shape.py [--small]
PyTorch's column needs an interpreter that has both: PYTHONPATH=python /path/to/torch-env/bin/python ...
"""

import argparse
import os
import platform
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _timing import bench, fmt

import minitorch

try:  # real PyTorch as a second column, only where it is installed
    import torch as real_torch
except ImportError:
    real_torch = None


def np_index_add(x, idx, src):
    out = x.copy()
    np.add.at(out, idx, src)
    return out


def np_unfold(x, size, step):
    return np.ascontiguousarray(np.lib.stride_tricks.sliding_window_view(x, size, axis=1)[:, ::step])


def make_cases(n):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((n, n)).astype(np.float32)
    idx = rng.integers(0, n, n // 2)
    src = rng.standard_normal((n // 2, n)).astype(np.float32)
    a = rng.standard_normal((n // 16, n // 16)).astype(np.float32)
    b = rng.standard_normal((16, 16)).astype(np.float32)
    libs = {"minitorch": minitorch}
    if real_torch is not None:
        libs["torch"] = real_torch
    t = {
        k: (lib.from_numpy(x.copy()), lib.from_numpy(idx.copy()), lib.from_numpy(src.copy()))
        for k, lib in libs.items()
    }
    k2 = {k: (lib.from_numpy(a.copy()), lib.from_numpy(b.copy())) for k, lib in libs.items()}

    def per_lib(fn):
        return {k: (lambda k=k, lib=lib: fn(lib, *t[k], *k2[k])) for k, lib in libs.items()}

    return [
        (
            f"flip [{n}x{n}] dims (0, 1)",
            lambda: np.flip(x, (0, 1)).copy(),
            per_lib(lambda L, x, i, s, a, b: L.flip(x, (0, 1))),
        ),
        (
            f"roll [{n}x{n}] (3, -5)",
            lambda: np.roll(x, (3, -5), (0, 1)),
            per_lib(lambda L, x, i, s, a, b: L.roll(x, (3, -5), (0, 1))),
        ),
        (
            f"tile [{n}x{n}] (2, 2)",
            lambda: np.tile(x, (2, 2)),
            per_lib(lambda L, x, i, s, a, b: L.tile(x, (2, 2))),
        ),
        (
            f"diff [{n}x{n}] n=2 dim 1",
            lambda: np.diff(x, 2, 1),
            per_lib(lambda L, x, i, s, a, b: L.diff(x, 2, 1)),
        ),
        (
            f"index_add [{n}x{n}] dim 0, {n // 2} rows",
            lambda: np_index_add(x, idx, src),
            per_lib(lambda L, x, i, s, a, b: x.index_add(0, i, s)),
        ),
        (
            f"kron [{n // 16}x{n // 16}] x [16x16]",
            lambda: np.kron(a, b),
            per_lib(lambda L, x, i, s, a, b: L.kron(a, b)),
        ),
        (
            f"unfold [{n}x{n}] dim 1 size 8 step 4 + contiguous",
            lambda: np_unfold(x, 8, 4),
            per_lib(lambda L, x, i, s, a, b: x.unfold(1, 8, 4).contiguous()),
        ),
    ]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--small", action="store_true", help="256x256 instead of 1024x1024")
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--min-time", type=float, default=0.1)
    args = ap.parse_args()
    n = 256 if args.small else 1024
    minitorch.set_num_threads(1)
    if real_torch is not None:
        real_torch.set_num_threads(1)
    print(f"# composite shape ops, CPU, 1 thread ({platform.processor() or platform.machine()})\n")
    head = "| case | numpy | minitorch | torch | numpy/minitorch | R = torch/minitorch |"
    print(head)
    print("|" + "---|" * 6)
    for label, np_fn, fns in make_cases(n):
        cases = {"numpy": np_fn, **fns}
        t = bench(cases, args.repeats, args.min_time)
        tm, tt = t["minitorch"], t.get("torch")
        r = f"{tt / tm:.2f}" if tt else "-"
        print(f"| {label} | {fmt(t['numpy'])} | {fmt(tm)} | {fmt(tt)} | {t['numpy'] / tm:.2f} | {r} |")


if __name__ == "__main__":
    main()
