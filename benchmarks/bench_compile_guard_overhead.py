"""Per-call overhead of torch.compile's guards on Python values (globals, closure cells, object attributes):
a tiny compiled function and a small compiled module, timed with those guards checked and with them turned off
(minitorch only), beside PyTorch's torch.compile of the same code (backend "eager": the graph runs as is, so
the time is the call's dispatch and guard cost plus two tiny ops). One thread each. "number" calls a compiled
``x * n`` with n changing on every call (a graph input after the first recompile, as PyTorch's automatic
dynamic). "state" calls a compiled module whose tensor attribute is replaced on every call
(``self.h = self.h * 0.5 + x``, an RNN's hidden state): a graph input guarded on its metadata, as in PyTorch.

Usage: PYTHONPATH=python python benchmarks/bench_compile_guard_overhead.py [--torch-python PY]
"""

import argparse
import json
import os
import subprocess
import sys

CODE = r"""
import json, sys, timeit
import {lib} as torch
torch.set_num_threads(1)
G = [2.0]
SHIFT = 1.0


class Cfg:
    scale = 1.5


cfg = Cfg()


def tiny(x):
    return x * G[0] + SHIFT


class Small(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.alpha = 0.5
        self.cfg = cfg

    def forward(self, x):
        y = x * self.alpha if self.training else x
        return y * self.cfg.scale


def per_call(f, x):
    for _ in range(20):
        f(x)
    n, best = 2000, float("inf")
    for _ in range(5):
        best = min(best, timeit.timeit(lambda: f(x), number=n) / n)
    return best


x = torch.ones(4)
out = {{}}
if "{off}" == "1":
    from minitorch._dynamo import eval_frame
    eval_frame.py_guards.sources = lambda fn, args, kwargs, stores=None: None
out["tiny"] = per_call(torch.compile(tiny, backend="eager"), x)
out["module"] = per_call(torch.compile(Small(), backend="eager"), x)


def scaled(x, n):
    return x * n


# a number argument that changes on every call: after one recompile it is a graph input (automatic dynamic)
cs = torch.compile(scaled, backend="eager")
ns = [0.5, 1.5, 2.5, 3.5]
k = [0]


def cycling(x):
    k[0] += 1
    return cs(x, ns[k[0] & 3])


out["number"] = per_call(cycling, x)


class State(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.h = torch.zeros(4)

    def forward(self, x):
        self.h = self.h * 0.5 + x
        return self.h


out["state"] = per_call(torch.compile(State(), backend="eager"), x)
print(json.dumps(out))
"""


def run(py, lib, off):
    env = dict(os.environ, OMP_NUM_THREADS="1")
    res = subprocess.run(
        [py, "-c", CODE.format(lib=lib, off=off)], capture_output=True, text=True, env=env, check=True
    )
    return json.loads(res.stdout.strip().splitlines()[-1])


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--torch-python", default="/tmp/tv/bin/python")
    a = ap.parse_args()
    ours_on = run(sys.executable, "minitorch", "0")
    ours_off = run(sys.executable, "minitorch", "1")
    theirs = run(a.torch_python, "torch", "0") if os.path.exists(a.torch_python) else None
    print(f"{'case':8} {'guards on':>10} {'guards off':>10} {'added':>8} {'PyTorch':>10} {'R':>6}")
    for case in ("tiny", "module", "number", "state"):
        on, off = ours_on[case] * 1e6, ours_off[case] * 1e6
        t = theirs[case] * 1e6 if theirs else float("nan")
        print(f"{case:8} {on:9.2f}us {off:9.2f}us {on - off:7.2f}us {t:9.2f}us {t / on:6.2f}")


if __name__ == "__main__":
    main()
