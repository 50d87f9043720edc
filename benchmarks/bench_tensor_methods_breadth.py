"""Tensor methods composed in Python (scatter_reduce, lerp_, addmm_, cov) on the CPU beside NumPy and PyTorch
when installed. Printed as a Markdown table; ratios are other / minitorch (above 1: minitorch is faster).

A report, not a test. Usage: PYTHONPATH=python python benchmarks/bench_tensor_methods_breadth.py
(PyTorch's column appears when `import torch` works, e.g. run it with a Python that has PyTorch installed).
"""

import argparse
import platform

import numpy as np
from _timing import bench, fmt

try:  # real PyTorch as a second column, only where it is installed (imported before minitorch, as in tests)
    import torch as real_torch
except ImportError:
    real_torch = None

import minitorch


def cases(n):
    rng = np.random.default_rng(0)
    src = rng.standard_normal(n).astype(np.float32)
    idx = rng.integers(0, 1000, n)
    base = np.zeros(1000, np.float32)
    ema, p = rng.standard_normal(n).astype(np.float32), rng.standard_normal(n).astype(np.float32)
    m = rng.standard_normal((256, 256)).astype(np.float32)
    obs = rng.standard_normal((64, 4096)).astype(np.float32)

    def np_amax():
        out = base.copy()
        np.maximum.at(out, idx, src)
        return out

    def np_lerp():
        e = ema.copy()
        e += 0.001 * (p - e)
        return e

    out = {
        "scatter_reduce sum": {"numpy": lambda: np.bincount(idx, src, 1000)},
        "scatter_reduce amax": {"numpy": np_amax},
        "lerp_ (EMA)": {"numpy": np_lerp},
        "addmm_ 256": {"numpy": lambda: 0.5 * m + m @ m},
        "cov 64x4096": {"numpy": lambda: np.cov(obs)},
    }
    libs = [("minitorch", minitorch)] + ([("torch", real_torch)] if real_torch is not None else [])
    for name, lib in libs:
        T = lib.tensor
        S, I, B, E, P, M, O = T(src), T(idx), T(base), T(ema), T(p), T(m), T(obs)
        out["scatter_reduce sum"][name] = lambda B=B, I=I, S=S: B.scatter_reduce(0, I, S, "sum")
        out["scatter_reduce amax"][name] = lambda B=B, I=I, S=S: B.scatter_reduce(0, I, S, "amax")
        out["lerp_ (EMA)"][name] = lambda E=E, P=P: E.clone().lerp_(P, 0.001)
        out["addmm_ 256"][name] = lambda M=M: M.clone().addmm_(M, M, beta=0.5)
        out["cov 64x4096"][name] = lambda lib=lib, O=O: lib.cov(O)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=1 << 18, help="elements of the 1-D inputs")
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--min-time", type=float, default=0.1)
    args = ap.parse_args()
    print(
        f"{platform.processor() or platform.machine()}, {minitorch.get_num_threads()} threads, n={args.n}, float32"
    )
    print(f"median of {args.repeats} interleaved repeats; ratio = other / minitorch\n")
    head = "| op | minitorch | NumPy | NumPy/mt |" + (
        " PyTorch | torch/mt |" if real_torch is not None else ""
    )
    print(head)
    print("|" + "---|" * (head.count("|") - 1))
    for label, fns in cases(args.n).items():
        t = bench(fns, args.repeats, args.min_time)
        row = f"| {label} | {fmt(t['minitorch'])} | {fmt(t['numpy'])} | {t['numpy'] / t['minitorch']:.2f} |"
        if real_torch is not None:
            row += f" {fmt(t['torch'])} | {t['torch'] / t['minitorch']:.2f} |"
        print(row, flush=True)


if __name__ == "__main__":
    main()
