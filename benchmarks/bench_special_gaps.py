"""The special-function rows of issue 32 still below PyTorch (polygamma, erfinv, ndtri, igamma) beside PyTorch in
one process per CPU capability, calls alternating, each timed in the calling thread's CPU time (min of repeats),
so a loaded machine's waits do not enter either column; one thread, 256x256 values.

  PYTHONPATH=python /tmp/tv/bin/python benchmarks/bench_special_gaps.py [--caps avx2,avx512] [--number 20]
      [-k polygamma,erfinv]

The Python running this needs both minitorch and PyTorch importable (the oracle's venv with PYTHONPATH=python).
MINITORCH_CPU_CAPABILITY and ATEN_CPU_CAPABILITY are set for each child, which prints what each library took."""

import argparse
import json
import os
import subprocess
import sys
import time

# (row name, expression over torch and x (y: igamma's second operand), dtype, x's range)
CASES = [
    ("polygamma(1, x)", "torch.polygamma(1, x)", "float32", (0.1, 10.1)),
    ("polygamma(1, x)", "torch.polygamma(1, x)", "float32", (-20.0, 20.0)),
    ("polygamma(2, x)", "torch.polygamma(2, x)", "float32", (0.1, 10.1)),
    ("polygamma(3, x)", "torch.polygamma(3, x)", "float32", (0.1, 10.1)),
    ("special.polygamma(2, x)", "torch.special.polygamma(2, x)", "float32", (0.1, 0.9)),
    ("polygamma(1, x)", "torch.polygamma(1, x)", "float64", (0.1, 10.1)),
    ("erfinv", "torch.erfinv(x)", "float32", (0.1, 0.9)),
    ("erfinv", "torch.erfinv(x)", "float64", (0.1, 0.9)),
    ("special.ndtri", "torch.special.ndtri(x)", "float64", (0.1, 0.9)),
    ("igamma", "torch.igamma(x, y)", "float32", (0.1, 0.9)),
]


def child(number, repeat, names):
    import numpy as np
    import torch as real

    import minitorch

    real.set_num_threads(1)
    minitorch.set_num_threads(1)
    out = {
        "caps": [minitorch.backends.cpu.get_cpu_capability(), real.backends.cpu.get_cpu_capability()],
        "rows": [],
    }
    rng = np.random.default_rng(0)
    for name, expr, dtype, (lo, hi) in CASES:
        if names and not any(k in name for k in names):
            continue
        a = rng.uniform(lo, hi, (256, 256)).astype(dtype)
        b = rng.uniform(0.1, 0.9, (256, 256)).astype(dtype)
        fns = {}
        for lib, mod in (("minitorch", minitorch), ("torch", real)):
            env = {"torch": mod, "x": mod.from_numpy(a), "y": mod.from_numpy(b)}
            fns[lib] = eval("lambda: " + expr, env)
            fns[lib]()
        best = {lib: float("inf") for lib in fns}
        for _ in range(repeat):  # alternating, so drift and load hit both alike
            for lib, fn in fns.items():
                t0 = time.thread_time()
                for _ in range(number):
                    fn()
                best[lib] = min(best[lib], (time.thread_time() - t0) / number)
        rows = f"{name} {dtype} [{lo:g}, {hi:g})"
        out["rows"].append([rows, best["minitorch"] * 1e6, best["torch"] * 1e6])
    print(json.dumps(out))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--caps", default="avx512,avx2")
    ap.add_argument("--number", type=int, default=20)
    ap.add_argument("--repeat", type=int, default=15)
    ap.add_argument("-k", default="", help="comma-separated substrings of the row names to run")
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    names = [k for k in args.k.split(",") if k]
    if args.child:
        return child(args.number, args.repeat, names)
    print("| op, dtype, x in | capability (ours / PyTorch's) | minitorch (us) | PyTorch (us) | R |")
    print("|---|---|---|---|---|")
    for cap in args.caps.split(","):
        env = dict(os.environ, MINITORCH_CPU_CAPABILITY=cap, ATEN_CPU_CAPABILITY=cap, OMP_NUM_THREADS="1")
        cmd = [
            sys.executable,
            __file__,
            "--child",
            "--number",
            str(args.number),
            "--repeat",
            str(args.repeat),
        ]
        cmd += ["-k", args.k] if args.k else []
        res = json.loads(subprocess.run(cmd, env=env, capture_output=True, text=True, check=True).stdout)
        caps = " / ".join(res["caps"])
        for name, ours, theirs in res["rows"]:
            print(f"| {name} | {caps} | {ours:.1f} | {theirs:.1f} | {theirs / ours:.2f} |")


if __name__ == "__main__":
    main()
