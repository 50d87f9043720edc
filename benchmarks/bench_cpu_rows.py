"""Single sweep rows beside PyTorch at a chosen instruction set: sinc, logcumsumexp along each dim, atan2, sigmoid,
copysign by a number and the int16 shifts (issue 32, session 30); comparisons and predicates into bool, fmod and
remainder, gelu and the I Bessel functions (session 31); addcmul/addcdiv and the in-place samplers (on an 8x8
`s`; session 32), each at 256x256 in its sweep dtype unless named, timed in
thread CPU time (best of 7 batches; the 2-vCPU machine's load moves wall-clock samples by 2-3x), one thread in each
library, optionally beside an earlier minitorch build.

A report, not a test. Usage:
  PYTHONPATH=python python benchmarks/bench_cpu_rows.py [--torch-python /tmp/tv/bin/python]
      [--base /path/to/an/older/python/dir] [--cpu-capability avx2|avx512|default] [--ours-only-capability]
      [-k name,...]
--cpu-capability holds both libraries there (MINITORCH_CPU_CAPABILITY and ATEN_CPU_CAPABILITY); with
--ours-only-capability PyTorch keeps its best instruction set (the sweep's AVX2 bar). R = PyTorch's time /
minitorch's (above 1: minitorch is faster); `base` is the older build's time.
"""

import argparse
import json
import os
import subprocess
import sys
import time

import numpy as np

# (label, statement over lib and x / y (256x256 of dtype) / i (256x256 int16), dtypes)
CASES = [
    ("torch.sinc(x)", "lib.sinc(x)", ("float32", "float64")),
    ("torch.sinc(x.t())", "lib.sinc(x.t())", ("float32", "float64")),
    ("torch.logcumsumexp(x, -1)", "lib.logcumsumexp(x, -1)", ("float32", "float64")),
    ("torch.logcumsumexp(x, 0)", "lib.logcumsumexp(x, 0)", ("float32", "float64")),
    ("torch.atan2(x, y)", "lib.atan2(x, y)", ("float32", "float64")),
    ("torch.sigmoid(x)", "lib.sigmoid(x)", ("float32", "float64")),
    ("torch.copysign(x, 2.0)", "lib.copysign(x, 2.0)", ("float32", "float64")),
    ("torch.copysign(x, -y)", "lib.copysign(x, -y)", ("float32", "float64")),
    ("i << 3", "i << 3", ("int16",)),
    ("i >> 3", "i >> 3", ("int16",)),
    ("torch.bitwise_left_shift(i, 3)", "lib.bitwise_left_shift(i, 3)", ("int16",)),
    ("torch.bitwise_right_shift(i, j)", "lib.bitwise_right_shift(i, j)", ("int16",)),
    ("i << j", "i << j", ("int16",)),
    ("i >> j", "i >> j", ("int16",)),
    # session 31 (sse37): the baseline's bools of float64, fmod, gelu and the I Bessel functions
    ("x < y", "x < y", ("float32", "float64", "int64")),
    ("x == 0.5", "x == 0.5", ("float32", "float64", "int64")),
    ("torch.logical_or(x, y)", "lib.logical_or(x, y)", ("float32", "float64")),
    ("torch.isposinf(x)", "lib.isposinf(x)", ("float32", "float64")),
    ("torch.isnan(x)", "lib.isnan(x)", ("float32", "float64")),
    ("torch.fmod(x, y)", "lib.fmod(x, y)", ("float32", "float64")),
    ("torch.fmod(x, 0.7)", "lib.fmod(x, 0.7)", ("float32", "float64")),
    ("torch.remainder(x, y)", "lib.remainder(x, y)", ("float32", "float64")),
    ("F.gelu(x)", "lib.nn.functional.gelu(x)", ("float32",)),
    ("F.gelu(x, approximate='tanh')", "lib.nn.functional.gelu(x, approximate='tanh')", ("float32",)),
    ("torch.i0(w)", "lib.i0(w)", ("float32", "float64")),
    ("torch.special.i0e(w)", "lib.special.i0e(w)", ("float32", "float64")),
    ("torch.special.i1(w)", "lib.special.i1(w)", ("float32", "float64")),
    ("torch.special.i1e(w)", "lib.special.i1e(w)", ("float32", "float64")),
    # session 32 (sse38): addcmul/addcdiv, the small in-place samplers (8x8) beside other small fills
    ("torch.addcmul(x, y, z, value=0.5)", "lib.addcmul(x, y, z, value=0.5)", ("float32", "float64")),
    ("torch.addcdiv(x, y, z, value=0.5)", "lib.addcdiv(x, y, z, value=0.5)", ("float32", "float64")),
    ("torch.addcdiv(x, y, z)", "lib.addcdiv(x, y, z)", ("float32", "float64")),
    ("x.addcdiv_(y, z, value=0.5)", "x.addcdiv_(y, z, value=0.5)", ("float32", "float64")),
    ("s.cauchy_(2)", "s.cauchy_(2)", ("float32", "float64")),
    ("s.uniform_()", "s.uniform_()", ("float32", "float64")),
    ("s.normal_()", "s.normal_()", ("float32", "float64")),
    ("s.exponential_()", "s.exponential_()", ("float32", "float64")),
]
SHAPE = (256, 256)


def _batch(fn, n):
    t0 = time.thread_time()
    for _ in range(n):
        fn()
    return (time.thread_time() - t0) / n


def worker(lib_name, names):
    if lib_name == "torch":
        import torch as lib
    else:
        import minitorch as lib
    lib.set_num_threads(1)
    out = {}
    for label, stmt, dtypes in CASES:
        if names and not any(k in label for k in names):
            continue
        for dt in dtypes:
            rng = np.random.default_rng(0)
            if dt == "int16":
                env = {
                    "i": lib.from_numpy(rng.integers(-1000, 1000, SHAPE).astype(np.int16)),
                    "j": lib.from_numpy(rng.integers(0, 15, SHAPE).astype(np.int16)),
                }
            elif dt == "int64":
                env = {
                    "x": lib.from_numpy(rng.integers(-3, 3, SHAPE)),
                    "y": lib.from_numpy(rng.integers(-3, 3, SHAPE)),
                }
            else:
                env = {
                    "x": lib.from_numpy(rng.uniform(-3, 3, SHAPE).astype(dt)),
                    "y": lib.from_numpy(rng.uniform(-3, 3, SHAPE).astype(dt)),
                    # the I Bessel functions' both expansions (|w| <= 8 and beyond)
                    "w": lib.from_numpy(rng.uniform(-12, 12, SHAPE).astype(dt)),
                    # a divisor away from 0 (addcdiv), an 8x8 tensor for the small in-place fills
                    "z": lib.from_numpy(rng.uniform(0.5, 3, SHAPE).astype(dt)),
                    "s": lib.from_numpy(rng.uniform(-3, 3, (8, 8)).astype(dt)),
                }
            env["lib"] = lib
            code = compile(stmt, label, "eval")
            fn = lambda code=code, env=env: eval(code, env)
            for _ in range(3):
                fn()
            n = 1
            while _batch(fn, n) * n < 0.02 and n < 1 << 20:
                n *= 2
            out[f"{label}|{dt}"] = min(_batch(fn, n) for _ in range(7))
    return out


def run(python, pythonpath, lib, args):
    env = dict(os.environ, OMP_NUM_THREADS="1")
    if pythonpath:
        env["PYTHONPATH"] = pythonpath
    if args.cpu_capability:
        env["MINITORCH_CPU_CAPABILITY"] = args.cpu_capability
        if not args.ours_only_capability:
            env["ATEN_CPU_CAPABILITY"] = args.cpu_capability
    cmd = [python, os.path.abspath(__file__), "--worker", lib, "-k", args.k]
    res = subprocess.run(cmd, env=env, capture_output=True, text=True, check=False)
    if res.returncode:
        raise SystemExit(f"{lib} worker failed:\n{res.stderr}")
    return json.loads(res.stdout.strip().splitlines()[-1])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--worker")
    ap.add_argument("-k", default="", help="only cases whose label contains one of these (comma separated)")
    ap.add_argument("--torch-python", default="/tmp/tv/bin/python")
    ap.add_argument("--base", default=None, help="the python/ dir of an earlier minitorch build, timed too")
    ap.add_argument("--cpu-capability", default=None)
    ap.add_argument("--ours-only-capability", action="store_true", help="PyTorch at its best instruction set")
    args = ap.parse_args()
    names = [k for k in args.k.split(",") if k]
    if args.worker:
        print(json.dumps(worker(args.worker, names)))
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
    cap = args.cpu_capability or "each library's best"
    if args.cpu_capability and args.ours_only_capability:
        cap += " (minitorch only; PyTorch at its best)"
    print(f"256x256 (s: 8x8), one thread, thread CPU time, best of 7 batches x 2 runs; capability: {cap}\n")
    head = "| case | dtype | PyTorch us |"
    head += " base us | base R |" if args.base else ""
    head += " ours us | R |"
    print(head)
    print("|---" * (head.count("|") - 1) + "|")
    for key, t in best["torch"].items():
        label, dt = key.split("|")
        row = f"| `{label}` | {dt} | {t * 1e6:.2f} |"
        if args.base:
            b = best["base"][key]
            row += f" {b * 1e6:.2f} | {t / b:.2f} |"
        o = best["ours"][key]
        print(row + f" {o * 1e6:.2f} | **{t / o:.2f}** |")


if __name__ == "__main__":
    main()
