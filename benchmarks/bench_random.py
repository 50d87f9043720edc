"""The CPU random draws (randn, normal_, randn_like, rand, randint, bernoulli_) beside PyTorch on each instruction set.

One process per instruction set, both libraries in it, set to the same one (MINITORCH_CPU_CAPABILITY and
ATEN_CPU_CAPABILITY = avx512, avx2, default), one thread each. Times are the thread's CPU time (the best of
interleaved repeats): on a shared 2-core machine wall time counts the 4 ms slices other processes take, which
CPU time does not. R = PyTorch's time / minitorch's (above 1: minitorch is faster).

A report, not a test. Usage: /tmp/tv/bin/python benchmarks/bench_random.py [--n 1048576] [--caps avx512,avx2,default]
(run with a Python that has PyTorch, PYTHONPATH=python for minitorch).
"""

import argparse
import json
import os
import subprocess
import sys

_CHILD = r"""
import json, sys, time, timeit
import minitorch as mt
import torch
n, repeats = {n}, {repeats}
mt.set_num_threads(1)
torch.set_num_threads(1)
cases = {{}}
for lib, L in (("mt", mt), ("torch", torch)):
    e32, e64 = L.empty(n), L.empty(n, dtype=L.float64)
    cases.setdefault("randn float32", {{}})[lib] = lambda L=L: L.randn(n)
    cases.setdefault("randn float64", {{}})[lib] = lambda L=L: L.randn(n, dtype=L.float64)
    cases.setdefault("normal_(2, 0.5) float32", {{}})[lib] = lambda e=e32: e.normal_(2.0, 0.5)
    cases.setdefault("normal_(2, 0.5) float64", {{}})[lib] = lambda e=e64: e.normal_(2.0, 0.5)
    cases.setdefault("randn_like float32", {{}})[lib] = lambda L=L, e=e32: L.randn_like(e)
    cases.setdefault("randn 256 float32", {{}})[lib] = lambda L=L: L.randn(256)
    cases.setdefault("rand float32", {{}})[lib] = lambda L=L: L.rand(n)
    cases.setdefault("rand float64", {{}})[lib] = lambda L=L: L.rand(n, dtype=L.float64)
    cases.setdefault("randint int64", {{}})[lib] = lambda L=L: L.randint(0, 1000, (n,))
    cases.setdefault("bernoulli_(0.3) float32", {{}})[lib] = lambda e=e32: e.bernoulli_(0.3)
out = {{"cap": mt.backends.cpu.get_cpu_capability()}}
for name, fns in cases.items():
    number = 2000 if "256" in name else 5
    best = {{lib: float("inf") for lib in fns}}
    for _ in range(repeats):
        for lib, fn in fns.items():
            fn()
            t = timeit.timeit(fn, number=number, timer=time.thread_time) / number
            best[lib] = min(best[lib], t)
    out[name] = best
print(json.dumps(out))
"""


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=1 << 20)
    ap.add_argument("--repeats", type=int, default=7)
    ap.add_argument("--caps", default="avx512,avx2,default")
    args = ap.parse_args()
    print(f"n={args.n}, 1 thread, thread CPU time (best of {args.repeats}); R = PyTorch / minitorch")
    print("| case | capability | minitorch us | PyTorch us | R |")
    print("|---|---|---|---|---|")
    for cap in args.caps.split(","):
        env = dict(os.environ, MINITORCH_CPU_CAPABILITY=cap, ATEN_CPU_CAPABILITY=cap, OMP_NUM_THREADS="1")
        code = _CHILD.format(n=args.n, repeats=args.repeats)
        r = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=False)
        if r.returncode != 0:
            print(f"| {cap}: failed: {r.stderr.strip().splitlines()[-1:]} |")
            continue
        res = json.loads(r.stdout.strip().splitlines()[-1])
        if res.pop("cap").lower() != cap:
            continue  # this CPU lacks the instruction set
        for name, t in res.items():
            print(
                f"| {name} | {cap} | {t['mt'] * 1e6:.1f} | {t['torch'] * 1e6:.1f} | {t['torch'] / t['mt']:.2f} |"
            )


if __name__ == "__main__":
    main()
