"""Issue 32's last rows below 1 at one thread beside PyTorch (logsigmoid forward and backward, nan_to_num, pdist with
a general p, unique_consecutive of a small 2-D tensor), one process per CPU capability, each timed in the calling
thread's CPU time (min of repeats), so a loaded machine's waits enter neither column.

  PYTHONPATH=python /tmp/tv/bin/python benchmarks/bench_act_rows.py [--caps avx2,avx512] [--number 100]

The Python running this needs both minitorch and PyTorch importable (the oracle's venv with PYTHONPATH=python).
MINITORCH_CPU_CAPABILITY and ATEN_CPU_CAPABILITY are set for each child."""

import argparse
import json
import os
import subprocess
import sys
import time
import timeit

# (name, input array, whether the input requires grad, timed expression over torch, F and x)
CASES = [
    ("F.logsigmoid [256, 256] f32", "a32", False, "F.logsigmoid(x)"),
    ("F.logsigmoid [256, 256] f64", "a64", False, "F.logsigmoid(x)"),
    ("F.logsigmoid fwd+bwd [256, 256] f32", "a32", True, "torch.autograd.grad(F.logsigmoid(x).sum(), x)"),
    ("nan_to_num [256, 256] f32", "u32", False, "torch.nan_to_num(x)"),
    ("nan_to_num [256, 256] f64", "u64", False, "torch.nan_to_num(x)"),
    ("nan_to_num [256, 256] f32, 1% nan/inf", "w32", False, "torch.nan_to_num(x)"),
    ("nan_to_num [8, 8] f32", "s32", False, "torch.nan_to_num(x)"),
    ("pdist [64, 64] f64 p=1.5", "p64", False, "torch.pdist(x, 1.5)"),
    ("pdist [64, 64] f32 p=1.5", "p32", False, "torch.pdist(x, 1.5)"),
    ("pdist [64, 64] f64 p=2.5", "p64", False, "torch.pdist(x, 2.5)"),
    ("unique_consecutive [8, 8] f32", "q32", False, "torch.unique_consecutive(x)"),
    ("Tensor.unique_consecutive [8, 8] f64", "q64", False, "x.unique_consecutive()"),
]


def child(number, repeat, only):
    import numpy as np
    import torch as real

    import minitorch

    real.set_num_threads(1)
    minitorch.set_num_threads(1)
    rng = np.random.default_rng(0)
    a64 = rng.uniform(-8, 8, (256, 256))
    u64 = rng.uniform(0.1, 0.9, (256, 256))
    w64 = u64.copy()
    flat = w64.reshape(-1)
    k = rng.choice(flat.size, flat.size // 100, replace=False)
    flat[k[0::3]], flat[k[1::3]], flat[k[2::3]] = np.nan, np.inf, -np.inf
    p64 = rng.standard_normal((64, 64))
    q64 = np.floor(rng.uniform(0, 3, (8, 8)))
    arrays = {}
    s64 = u64[:8, :8].copy()
    for name, v in (("a", a64), ("u", u64), ("w", w64), ("p", p64), ("q", q64), ("s", s64)):
        arrays[name + "64"], arrays[name + "32"] = v, v.astype(np.float32)
    libs = {"minitorch": (minitorch, minitorch.nn.functional), "torch": (real, real.nn.functional)}
    out = {
        "caps": [minitorch.backends.cpu.get_cpu_capability(), real.backends.cpu.get_cpu_capability()],
        "rows": [],
    }
    for name, arr, grad, expr in CASES:
        if only and not any(o in name for o in only):
            continue
        t = {}
        for lib, (torch, F) in libs.items():
            x = torch.from_numpy(arrays[arr].copy()).requires_grad_(grad)
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
    ap.add_argument("-k", default="", help="only rows whose names contain one of these (comma separated)")
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    only = [s for s in args.k.split(",") if s]
    if args.child:
        return child(args.number, args.repeat, only)
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
        cmd += ["-k", args.k] if args.k else []
        res = json.loads(subprocess.run(cmd, env=env, capture_output=True, text=True, check=True).stdout)
        caps = " / ".join(res["caps"])
        for name, ours, theirs in res["rows"]:
            print(f"| {name} | {caps} | {ours:.1f} | {theirs:.1f} | {theirs / ours:.2f} |", flush=True)


if __name__ == "__main__":
    main()
