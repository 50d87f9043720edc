"""Python-composed math ops (minitorch._composite_math) on the CPU beside NumPy and PyTorch when installed:
addcmul_ (the Adam second-moment update), logaddexp, cdist, unique, searchsorted, bincount and quantile.
Printed as a Markdown table; ratios are other / minitorch (above 1: minitorch is faster).

A report, not a test. Usage: PYTHONPATH=python python benchmarks/bench_composite_math.py
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
    g = rng.standard_normal(n).astype(np.float32)
    s = rng.random(n).astype(np.float32)
    a, b = rng.standard_normal(n).astype(np.float32), rng.standard_normal(n).astype(np.float32)
    p1, p2 = (
        rng.standard_normal((512, 64)).astype(np.float32),
        rng.standard_normal((512, 64)).astype(np.float32),
    )
    ints = rng.integers(0, 1000, n)
    seq = np.sort(rng.random(4096)).astype(np.float32)
    q = rng.standard_normal((256, 1024)).astype(np.float32)

    def np_addcmul():
        s_ = s.copy()
        s_ += 0.001 * g * g
        return s_

    def np_cdist():
        d = (p1 * p1).sum(1)[:, None] - 2 * p1 @ p2.T + (p2 * p2).sum(1)[None]
        return np.sqrt(np.maximum(d, 0))

    out = {
        "addcmul_ (Adam v)": {"numpy": np_addcmul},
        "logaddexp": {"numpy": lambda: np.logaddexp(a, b)},
        "cdist 512x512x64": {"numpy": np_cdist},
        "unique+counts": {"numpy": lambda: np.unique(ints, return_counts=True)},
        "searchsorted 4096": {"numpy": lambda: np.searchsorted(seq, a)},
        "bincount": {"numpy": lambda: np.bincount(ints)},
        "quantile dim=1": {"numpy": lambda: np.quantile(q, [0.1, 0.5, 0.9], axis=1)},
    }
    libs = [("minitorch", minitorch)] + ([("torch", real_torch)] if real_torch is not None else [])
    for name, lib in libs:
        T = lib.tensor
        G, S, A, B = T(g), T(s), T(a), T(b)
        P1, P2, I, SEQ, Q = T(p1), T(p2), T(ints), T(seq), T(q)
        QS = T([0.1, 0.5, 0.9])
        out["addcmul_ (Adam v)"][name] = lambda S=S, G=G: S.clone().addcmul_(G, G, value=0.001)
        out["logaddexp"][name] = lambda lib=lib, A=A, B=B: lib.logaddexp(A, B)
        out["cdist 512x512x64"][name] = lambda lib=lib, P1=P1, P2=P2: lib.cdist(P1, P2)
        out["unique+counts"][name] = lambda lib=lib, I=I: lib.unique(I, return_counts=True)
        out["searchsorted 4096"][name] = lambda lib=lib, SEQ=SEQ, A=A: lib.searchsorted(SEQ, A)
        out["bincount"][name] = lambda lib=lib, I=I: lib.bincount(I)
        out["quantile dim=1"][name] = lambda lib=lib, Q=Q, QS=QS: lib.quantile(Q, QS, dim=1)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=1 << 20, help="elements of the 1-D inputs")
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--min-time", type=float, default=0.2)
    ap.add_argument("--threads", type=int, default=None)
    args = ap.parse_args()
    if args.threads:
        minitorch.set_num_threads(args.threads)
        if real_torch is not None:
            real_torch.set_num_threads(args.threads)
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
