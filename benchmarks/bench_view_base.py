"""Per-call cost of the view ops every view pays to know its base (Tensor._base): x.t(), x[0], x.view(-1),
x.narrow(0, 1, 2) on a float tensor in grad mode, on one that requires grad, under no_grad and on an int64
tensor, beside PyTorch.

A report, not a test. Best of `--repeats` timeit loops per case, minitorch's and PyTorch's loops alternating.
Usage: PYTHONPATH=python python benchmarks/bench_view_base.py [--repeats 5] [--number 200000] [--cpu-time]
(--cpu-time: each loop timed by the thread's CPU clock, which a loaded machine's preemption does not inflate).
"""

import argparse
import contextlib
import time
import timeit

import minitorch

try:  # real PyTorch as a second column, only where it is installed
    import torch as real_torch
except ImportError:
    real_torch = None


def cases(lib):
    f = lib.ones(4, 4)
    rg = lib.ones(4, 4, requires_grad=True)
    i = lib.ones(4, 4, dtype=lib.int64)
    out = {}
    for kind, x, ctx in (
        ("float", f, contextlib.nullcontext),
        ("float, requires_grad", rg, contextlib.nullcontext),
        ("float, no_grad", f, lib.no_grad),
        ("int64", i, contextlib.nullcontext),
    ):
        for op, fn in (
            ("x.t()", lambda x=x: x.t()),
            ("x[0]", lambda x=x: x[0]),
            ("x.view(-1)", lambda x=x: x.view(-1)),
            ("x.narrow(0, 1, 2)", lambda x=x: x.narrow(0, 1, 2)),
        ):
            out[f"{op} ({kind})"] = (fn, ctx)
    return out


def best(fn, ctx, number, timer):
    with ctx():
        return timeit.Timer(fn, timer=timer).timeit(number) / number


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--number", type=int, default=200000)
    p.add_argument("--cpu-time", action="store_true")
    a = p.parse_args()
    timer = time.thread_time if a.cpu_time else time.perf_counter
    libs = {"minitorch": cases(minitorch)}
    if real_torch is not None:
        libs["torch"] = cases(real_torch)
    print("best of", a.repeats, "interleaved timeit loops of", a.number, "calls; ratio = minitorch / torch\n")
    print("| case | minitorch | PyTorch | mt/torch |")
    print("|---|---|---|---|")
    for name in libs["minitorch"]:
        t = {k: float("inf") for k in libs}
        for _ in range(a.repeats):
            for k, cs in libs.items():
                t[k] = min(t[k], best(*cs[name], a.number, timer))
        mt = t["minitorch"]
        if "torch" in t:
            print(f"| {name} | {mt * 1e9:.0f} ns | {t['torch'] * 1e9:.0f} ns | {mt / t['torch']:.2f} |")
        else:
            print(f"| {name} | {mt * 1e9:.0f} ns | - | - |")


if __name__ == "__main__":
    main()
