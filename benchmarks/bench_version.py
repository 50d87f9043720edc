"""Per-call cost of the ops the version counter touches: in-place ops (one bump each, empty tensors too) and the
out-of-place ops that build their result by in-place writes (masked_fill, index_put, scatter, F.pad, clone,
the factories), and `.data` (a new version counter: an alias storage here), on small tensors where the call's
overhead is the cost, beside PyTorch.

A report, not a test. Best of `--repeats` timeit loops per case, minitorch's and PyTorch's loops alternating.
Usage: PYTHONPATH=python python benchmarks/bench_version.py [--repeats 5] [--number 100000] [--cpu-time]
(--cpu-time: each loop timed by the thread's CPU clock, which a loaded machine's preemption does not inflate).
"""

import argparse
import time
import timeit

import minitorch

try:  # real PyTorch as a second column, only where it is installed
    import torch as real_torch
except ImportError:
    real_torch = None


def cases(lib):
    F = lib.nn.functional
    x = lib.ones(4, 4)
    y = lib.ones(4, 4)
    e = lib.ones(0)
    m = x > 0
    idx = lib.tensor([0, 2])
    z = lib.zeros(1, 4, dtype=lib.long)
    return {
        "x.add_(1)": lambda: x.add_(1),
        "x.mul_(y)": lambda: x.mul_(y),
        "x.copy_(y)": lambda: x.copy_(y),
        "x.fill_(1)": lambda: x.fill_(1),
        "x.masked_fill_(m, 0)": lambda: x.masked_fill_(m, 0.0),
        "x[0] = 1": lambda: x.__setitem__(0, 1.0),
        "e.add_(1) (empty)": lambda: e.add_(1),
        "x.clone()": lambda: x.clone(),
        "zeros(4, 4)": lambda: lib.zeros(4, 4),
        "randn(4, 4)": lambda: lib.randn(4, 4),
        "x.masked_fill(m, 0)": lambda: x.masked_fill(m, 0.0),
        "x.index_put((idx,), 1)": lambda: x.index_put((idx,), y[0]),
        "x.scatter(0, z, 1)": lambda: x.scatter(0, z, 1.0),
        "F.pad(x, (1, 1))": lambda: F.pad(x, (1, 1)),
        "F.linear(x, y, b)": lambda: F.linear(x, y, y[0]),
        "x + y": lambda: x + y,
        "x.data": lambda: x.data,
        "x.data.add_(1)": lambda: x.data.add_(1),
        "x.detach()": lambda: x.detach(),
    }


def best(fn, number, timer):
    return timeit.Timer(fn, timer=timer).timeit(number) / number


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--number", type=int, default=100000)
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
                t[k] = min(t[k], best(cs[name], a.number, timer))
        mt = t["minitorch"]
        if "torch" in t:
            print(f"| {name} | {mt * 1e9:.0f} ns | {t['torch'] * 1e9:.0f} ns | {mt / t['torch']:.2f} |")
        else:
            print(f"| {name} | {mt * 1e9:.0f} ns | - | - |")


if __name__ == "__main__":
    main()
