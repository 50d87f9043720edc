"""The float32 unary rows of issue 32 (log, log2, log10, asin, acos, exp2, log1p, logit, gelu, softplus, logsigmoid,
nan_to_num) beside PyTorch in one process per CPU capability, timed in the calling thread's CPU time (min of
repeats), so a loaded machine's waits do not enter either column; one thread, 256x256 values in (0.1, 0.9) as
bench_sweep.py's medium float32 rows.

  PYTHONPATH=python /tmp/tv/bin/python benchmarks/bench_unary_f32.py [--caps avx2,avx512] [--number 100]

The Python running this needs both minitorch and PyTorch importable (the oracle's venv with PYTHONPATH=python).
MINITORCH_CPU_CAPABILITY and ATEN_CPU_CAPABILITY are set for each child, which prints what each library took."""

import argparse
import json
import os
import subprocess
import sys
import time
import timeit

CASES = [
    ("log", "torch.log(x)"),
    ("log2", "torch.log2(x)"),
    ("log10", "torch.log10(x)"),
    ("asin", "torch.asin(x)"),
    ("acos", "torch.acos(x)"),
    ("exp2", "torch.exp2(x)"),
    ("log1p", "torch.log1p(x)"),
    ("logit", "torch.logit(x)"),
    ("F.gelu", "F.gelu(x)"),
    ("F.softplus", "F.softplus(x)"),
    ("F.logsigmoid", "F.logsigmoid(x)"),
    ("nan_to_num", "torch.nan_to_num(x)"),
    ("exp", "torch.exp(x)"),
]


def child(number, repeat):
    import numpy as np
    import torch as real

    import minitorch

    real.set_num_threads(1)
    minitorch.set_num_threads(1)
    a = np.random.default_rng(0).uniform(0.1, 0.9, (256, 256)).astype(np.float32)
    libs = {
        "minitorch": (minitorch, minitorch.nn.functional, minitorch.from_numpy(a)),
        "torch": (real, real.nn.functional, real.from_numpy(a)),
    }
    out = {
        "caps": [minitorch.backends.cpu.get_cpu_capability(), real.backends.cpu.get_cpu_capability()],
        "rows": [],
    }
    for name, expr in CASES:
        t = {}
        for lib, (torch, F, x) in libs.items():
            fn = eval("lambda: " + expr, {"torch": torch, "F": F, "x": x})
            fn()
            t[lib] = min(timeit.repeat(fn, number=number, repeat=repeat, timer=time.thread_time)) / number
        out["rows"].append([name, t["minitorch"] * 1e6, t["torch"] * 1e6])
    print(json.dumps(out))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--caps", default="avx2,avx512")
    ap.add_argument("--number", type=int, default=100)
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        return child(args.number, args.repeat)
    print("| op | capability (ours / PyTorch's) | minitorch (us) | PyTorch (us) | R |")
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
        res = json.loads(subprocess.run(cmd, env=env, capture_output=True, text=True, check=True).stdout)
        caps = " / ".join(res["caps"])
        for name, ours, theirs in res["rows"]:
            print(f"| {name} | {caps} | {ours:.1f} | {theirs:.1f} | {theirs / ours:.2f} |")


if __name__ == "__main__":
    main()
