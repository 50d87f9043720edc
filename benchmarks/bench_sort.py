"""The sort family: sort / argsort / topk (and median) beside NumPy (np.sort, np.argsort, np.argpartition +
sort for topk) and PyTorch when it imports, on the CPU and, where present, on CUDA. Markdown table.

A report, not a test. Usage: PYTHONPATH=python python benchmarks/bench_sort.py [--device cpu|cuda]
[--repeats 5] [--min-time 0.1]  (default: the CPU, then CUDA when a GPU is present)
"""

import argparse
import os
import platform
import sys

import numpy as np

import minitorch

try:  # real PyTorch as a third column, only where it is installed
    import torch as real_torch
except ImportError:
    real_torch = None

sys.path.insert(0, os.path.dirname(__file__))
from _timing import bench, fmt

SHAPES = [(1, 1000), (1, 1_000_000), (1000, 1000), (4096, 64)]
K = 10


def np_topk(a, k):
    part = np.argpartition(-a, k - 1, axis=1)[:, :k]
    vals = np.take_along_axis(a, part, 1)
    order = np.argsort(-vals, axis=1, kind="stable")
    return np.take_along_axis(vals, order, 1), np.take_along_axis(part, order, 1)


def op_table(a, x, t, k, pt_ok):
    """name -> (NumPy, minitorch, PyTorch or None) callables over one input."""
    return {
        "sort": (
            lambda: np.sort(a, axis=1, kind="stable"),
            lambda: minitorch.sort(x, stable=True),
            (lambda: real_torch.sort(t, stable=True)) if pt_ok else None,
        ),
        "argsort": (
            lambda: np.argsort(a, axis=1, kind="stable"),
            lambda: minitorch.argsort(x, stable=True),
            (lambda: real_torch.argsort(t, stable=True)) if pt_ok else None,
        ),
        f"topk k={k}": (
            lambda: np_topk(a, k),
            lambda: minitorch.topk(x, k),
            (lambda: real_torch.topk(t, k)) if pt_ok else None,
        ),
        "median(dim)": (
            lambda: np.median(a, axis=1),  # NumPy averages the middle two: a close, not equal, task
            lambda: minitorch.median(x, 1),
            (lambda: real_torch.median(t, 1)) if pt_ok else None,
        ),
    }


def run(device, repeats, min_time):
    rows = []
    on_gpu = device == "cuda"
    nothing = lambda: None
    mt_sync = minitorch.cuda.synchronize if on_gpu else nothing
    pt_ok = real_torch is not None and (not on_gpu or real_torch.cuda.is_available())
    pt_sync = (real_torch.cuda.synchronize if on_gpu else nothing) if pt_ok else nothing
    rng = np.random.default_rng(0)
    for shape in SHAPES:
        a = rng.standard_normal(shape).astype(np.float32)
        x = minitorch.from_numpy(a).to(device)
        t = real_torch.from_numpy(a).to(device) if pt_ok else None
        k = min(K, shape[1])
        ops = op_table(a, x, t, k, pt_ok)
        for name, (np_fn, mt_fn, pt_fn) in ops.items():
            cases = {"mt": mt_fn}
            sync = {"mt": mt_sync}
            if not on_gpu:
                cases["np"] = np_fn
                sync["np"] = nothing
            if pt_fn is not None:
                cases["pt"] = pt_fn
                sync["pt"] = pt_sync
            r = bench(cases, repeats, min_time, sync)
            rows.append((name, shape, r.get("np"), r["mt"], r.get("pt")))
    return rows


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--device", choices=["cpu", "cuda"])
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--min-time", type=float, default=0.1)
    args = p.parse_args()
    devices = [args.device] if args.device else ["cpu"] + (["cuda"] if minitorch.cuda.is_available() else [])
    print(
        f"# bench_sort: {platform.machine()}, {os.cpu_count()} CPUs, minitorch threads "
        f"{minitorch.get_num_threads()}, NumPy {np.__version__}, "
        f"PyTorch {real_torch.__version__ if real_torch else 'not installed'}"
    )
    for dev in devices:
        print(f"\n## {dev}\n")
        print("| op | shape | NumPy | minitorch | PyTorch | NumPy / mt | PyTorch / mt |")
        print("|---|---|---|---|---|---|---|")
        for name, shape, tn, tm, tp in run(dev, args.repeats, args.min_time):
            rn = f"{tn / tm:.2f}" if tn else "-"
            rp = f"{tp / tm:.2f}" if tp else "-"
            print(f"| {name} | {shape[0]}x{shape[1]} | {fmt(tn)} | {fmt(tm)} | {fmt(tp)} | {rn} | {rp} |")


if __name__ == "__main__":
    main()
