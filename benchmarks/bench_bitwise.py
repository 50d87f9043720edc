"""The integer bitwise ops (shifts, and, xor) on the CPU beside NumPy and PyTorch when installed: a tensor shift
amount and a Python number, int32, int64 and uint8. Printed as a Markdown table; ratios are other / minitorch
(above 1: minitorch is faster).

A report, not a test. Usage: PYTHONPATH=python python benchmarks/bench_bitwise.py [--n 65536] [--threads 1]
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
    out = {}
    for dt in ("int32", "int64", "uint8"):
        bits = np.iinfo(dt).bits
        a = rng.integers(0, 100, n).astype(dt)
        s = rng.integers(0, bits, n).astype(dt)
        out[f"a << s {dt}"] = {"numpy": lambda a=a, s=s: np.left_shift(a, s)}
        out[f"a >> s {dt}"] = {"numpy": lambda a=a, s=s: np.right_shift(a, s)}
        out[f"a << 3 {dt}"] = {"numpy": lambda a=a: np.left_shift(a, 3)}
        out[f"a & s {dt}"] = {"numpy": lambda a=a, s=s: np.bitwise_and(a, s)}
        libs = [("minitorch", minitorch)] + ([("torch", real_torch)] if real_torch is not None else [])
        for name, lib in libs:
            A, S = lib.from_numpy(a.copy()), lib.from_numpy(s.copy())
            out[f"a << s {dt}"][name] = lambda A=A, S=S: A << S
            out[f"a >> s {dt}"][name] = lambda A=A, S=S: A >> S
            out[f"a << 3 {dt}"][name] = lambda A=A: A << 3
            out[f"a & s {dt}"][name] = lambda A=A, S=S: A & S
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=1 << 16, help="elements of the 1-D inputs")
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--min-time", type=float, default=0.1)
    ap.add_argument("--threads", type=int, default=None)
    args = ap.parse_args()
    if args.threads:
        minitorch.set_num_threads(args.threads)
        if real_torch is not None:
            real_torch.set_num_threads(args.threads)
    print(f"{platform.processor() or platform.machine()}, {minitorch.get_num_threads()} threads, n={args.n}")
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
