"""histc, histogram, sinc, kron, dist and the in-place samplers (exponential_, log_normal_, cauchy_, geometric_)
beside PyTorch, and beside an earlier minitorch build: the sweep's rows of these ops (bench_sweep.py's templates
at 8x8 and 256x256), timed in thread CPU time (best of 7 batches; the 2-vCPU machine's load moves wall-clock
samples by 2-3x), one thread in each library.

A report, not a test. Usage:
  PYTHONPATH=python python benchmarks/bench_composite_kernels.py [--torch-python /tmp/tv/bin/python]
      [--base /path/to/an/older/python/dir] [--cpu-capability avx2|avx512|default] [--dtypes float32,float64]
R = PyTorch's time / minitorch's (above 1: minitorch is faster); `base` is the older build's time.
"""

import argparse
import json
import os
import subprocess
import sys
import time

import numpy as np

# (label, statement over lib, x, y (x's shape), v (x's last dim, a 1-D tensor), shapes)
CASES = [
    ("torch.histc(x)", "lib.histc(x)"),
    ("torch.histc(x, 2, -1)", "lib.histc(x, 2, -1)"),
    ("torch.histc(x, 100, 0, 1)", "lib.histc(x, 100, 0.0, 1.0)"),
    ("torch.histogram(x, 1)", "lib.histogram(x, 1)"),
    ("x.histogram(2)", "x.histogram(2)"),
    ("torch.histogram(x, 16, weight=y, density=True)", "lib.histogram(x, 16, weight=y, density=True)"),
    ("torch.histogram(x, edges)", "lib.histogram(x, e)"),
    ("torch.sinc(x)", "lib.sinc(x)"),
    ("x.sinc()", "x.sinc()"),
    ("torch.kron(x, v)", "lib.kron(x, v)"),
    ("torch.kron(s, s) (8x8 each)", "lib.kron(s, s)"),
    ("torch.dist(x, y)", "lib.dist(x, y)"),
    ("torch.dist(x, y, 0.5)", "lib.dist(x, y, 0.5)"),
    ("x.exponential_()", "x.exponential_()"),
    ("x.log_normal_()", "x.log_normal_()"),
    ("x.cauchy_(2)", "x.cauchy_(2)"),
    ("x.geometric_(0.3)", "x.geometric_(0.3)"),
]
SIZES = {"small": (8, 8), "medium": (256, 256)}


def worker(lib_name, dtypes, cap):
    if lib_name == "torch":
        import torch as lib
    else:
        import minitorch as lib
    lib.set_num_threads(1)
    rng = np.random.default_rng(0)
    out = {}
    for size, shape in SIZES.items():
        for dt in dtypes:
            xa = rng.uniform(0.1, 0.9, size=shape).astype(dt)
            env = {
                "lib": lib,
                "x": lib.from_numpy(xa.copy()),
                "y": lib.from_numpy(rng.uniform(0.1, 0.9, size=shape).astype(dt)),
                "v": lib.from_numpy(rng.uniform(0.1, 0.9, size=shape[-1:]).astype(dt)),
                "s": lib.from_numpy(rng.uniform(0.1, 0.9, size=(8, 8)).astype(dt)),
                "e": lib.from_numpy(np.linspace(0.0, 1.0, 17).astype(dt)),
            }
            for label, stmt in CASES:
                code = compile(stmt, label, "eval")
                fn = lambda code=code, env=env: eval(code, env)
                for _ in range(3):
                    fn()
                n = 1
                while True:
                    t0 = time.thread_time()
                    for _ in range(n):
                        fn()
                    t = time.thread_time() - t0
                    if t > 0.02 or n > 1 << 20:
                        break
                    n *= 2
                best = min(_batch(fn, n) for _ in range(7))
                out[f"{label}|{size}|{dt}"] = best
    return out


def _batch(fn, n):
    t0 = time.thread_time()
    for _ in range(n):
        fn()
    return (time.thread_time() - t0) / n


def run(python, pythonpath, lib, args):
    env = dict(os.environ, OMP_NUM_THREADS="1")
    if pythonpath:
        env["PYTHONPATH"] = pythonpath
    if args.cpu_capability:
        env["MINITORCH_CPU_CAPABILITY"] = args.cpu_capability
        env["ATEN_CPU_CAPABILITY"] = args.cpu_capability
    cmd = [python, os.path.abspath(__file__), "--worker", lib, "--dtypes", args.dtypes]
    res = subprocess.run(cmd, env=env, capture_output=True, text=True, check=False)
    if res.returncode:
        raise SystemExit(f"{lib} worker failed:\n{res.stderr}")
    return json.loads(res.stdout.strip().splitlines()[-1])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--worker")
    ap.add_argument("--dtypes", default="float32,float64")
    ap.add_argument("--torch-python", default="/tmp/tv/bin/python")
    ap.add_argument("--base", default=None, help="the python/ dir of an earlier minitorch build, timed too")
    ap.add_argument("--cpu-capability", default=None)
    args = ap.parse_args()
    dtypes = args.dtypes.split(",")
    if args.worker:
        print(json.dumps(worker(args.worker, dtypes, args.cpu_capability)))
        return
    here = os.environ.get("PYTHONPATH", "python")
    runs = {"torch": [], "ours": [], "base": []}
    # two rounds, the order reversed in the second, each library's best per case
    for order in (("torch", "ours", "base"), ("base", "ours", "torch")):
        for lib in order:
            if lib == "base" and not args.base:
                continue
            if lib == "torch":
                runs[lib].append(run(args.torch_python, None, "torch", args))
            else:
                runs[lib].append(run(sys.executable, args.base if lib == "base" else here, "minitorch", args))
    best = {k: {c: min(r[c] for r in v) for c in v[0]} for k, v in runs.items() if v}
    cap = args.cpu_capability or "default build dispatch"
    print(f"one thread, thread CPU time, best of 7 batches x 2 runs; capability: {cap}\n")
    head = "| case | size | dtype | PyTorch us |"
    head += " base us | base R |" if args.base else ""
    print(head + " ours us | R |")
    print("|---" * (head.count("|") + 1) + "|")
    for key, t in best["torch"].items():
        label, size, dt = key.split("|")
        row = f"| `{label}` | {size} | {dt} | {t * 1e6:.2f} |"
        if args.base:
            b = best["base"][key]
            row += f" {b * 1e6:.2f} | {t / b:.2f} |"
        o = best["ours"][key]
        print(row + f" {o * 1e6:.2f} | **{t / o:.2f}** |")


if __name__ == "__main__":
    main()
