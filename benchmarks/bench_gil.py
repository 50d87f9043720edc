"""GIL release around ops: per-op host cost of tiny ops (where a release would show as overhead), and what
releasing buys: two Python threads running big ops at once, and a pure-Python thread's progress while another
thread sits in one long op. NumPy (which releases the GIL in its big loops and BLAS) and PyTorch beside.

A report, not a test. Usage: PYTHONPATH=python python benchmarks/bench_gil.py
"""

import argparse
import os
import platform
import threading
import time

import numpy as np
from _timing import bench, fmt

import minitorch

try:  # real PyTorch as a second column, only where it is installed
    import torch as real_torch
except ImportError:
    real_torch = None


def libs():
    out = {"numpy": None, "minitorch": minitorch}
    if real_torch is not None:
        out["torch"] = real_torch
    return out


def tiny_cases():
    """Small-tensor ops: below the release threshold, so these measure only the check that decides."""
    rng = np.random.default_rng(0)
    a1, b1 = rng.standard_normal(1), rng.standard_normal(1)
    a2, b2 = rng.standard_normal((2, 2)), rng.standard_normal((2, 2))
    ops = (
        ("a + b, 1 element", (a1, b1), lambda m, x, y: x + y),
        ("a.sum(), 1 element", (a1, b1), lambda m, x, y: x.sum()),
        ("mm 2x2", (a2, b2), lambda m, x, y: x @ y),
        ("exp, 1 element", (a1, b1), lambda m, x, y: m.exp(x)),
    )
    cases = []
    for label, (a, b), op in ops:
        fns = {}
        for name, lib in libs().items():
            mod = np if lib is None else lib
            x, y = (
                (a.copy(), b.copy()) if lib is None else (lib.from_numpy(a.copy()), lib.from_numpy(b.copy()))
            )
            fns[name] = lambda op=op, mod=mod, x=x, y=y: op(mod, x, y)
        cases.append((label, fns))

    def tiny_backward(lib):
        x = lib.from_numpy(a1.copy()).requires_grad_()

        def run():
            (x * 2).sum().backward()

        return run

    fns = {"numpy": None, "minitorch": tiny_backward(minitorch)}
    if real_torch is not None:
        fns["torch"] = tiny_backward(real_torch)
    cases.append(("(x * 2).sum().backward(), 1 element", fns))
    return cases


def in_threads(fn, nthreads):
    """Wall time of nthreads threads each calling fn once."""
    ts = [threading.Thread(target=fn) for _ in range(nthreads)]
    t0 = time.perf_counter()
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    return time.perf_counter() - t0


def concurrency_rows(n, reps):
    """Two threads each doing `reps` exp over n float32 elements with the library's own threading at 1
    thread: serial time / threaded time is the parallel speedup (about 1 when the GIL serializes them)."""
    rows = []
    rng = np.random.default_rng(0)
    a_np = rng.standard_normal(n).astype(np.float32)
    for name, lib in libs().items():
        a = a_np.copy() if lib is None else lib.from_numpy(a_np.copy())
        exp = np.exp if lib is None else lib.exp

        def work(a=a, exp=exp):
            for _ in range(reps):
                exp(a)

        work()
        serial = min(in_threads(work, 1) for _ in range(3)) * 2
        threaded = min(in_threads(work, 2) for _ in range(3))
        rows.append((name, serial, threaded))
    return rows


def counter_progress(lib, n):
    """Pure-Python increments a second thread makes while the main thread runs one n^3 float64 matmul, per
    millisecond of that matmul (0 when the op holds the GIL). The spinner stamps its progress so that only
    increments inside the op's time window count (not the switch interval it gets after the op returns)."""
    rng = np.random.default_rng(0)
    a_np = rng.standard_normal((n, n))
    a = a_np.copy() if lib is None else lib.from_numpy(a_np.copy())
    stop = threading.Event()
    stamps = []

    def spin():
        i = 0
        while not stop.is_set():
            i += 1
            if i % 64 == 0:
                stamps.append(time.perf_counter())

    t = threading.Thread(target=spin)
    t.start()
    time.sleep(0.01)
    t0 = time.perf_counter()
    a @ a
    t1 = time.perf_counter()
    stop.set()
    t.join()
    inside = 64 * sum(t0 <= s <= t1 for s in stamps)
    return inside / ((t1 - t0) * 1e3), t1 - t0


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--repeats", type=int, default=7)
    ap.add_argument("--min-time", type=float, default=0.2, help="seconds per repeat (approximately)")
    args = ap.parse_args()
    print(
        f"# GIL release, {platform.machine()}, {os.cpu_count()} cpus, minitorch threads "
        f"{minitorch.get_num_threads()}, torch {real_torch.__version__ if real_torch else 'absent'}\n"
    )
    names = list(libs())
    print(
        "| tiny op | "
        + " | ".join(names)
        + " | t_numpy / t_minitorch |"
        + (" t_torch / t_minitorch |" if real_torch else "")
    )
    print("|---" * (len(names) + 2 + bool(real_torch)) + "|")
    for label, fns in tiny_cases():
        t = bench({k: f for k, f in fns.items() if f is not None}, args.repeats, args.min_time)
        cells = [fmt(t.get(k)) for k in names]
        r_np = f"{t['numpy'] / t['minitorch']:.2f}" if "numpy" in t else "-"
        row = f"| {label} | " + " | ".join(cells) + f" | {r_np} |"
        if real_torch:
            row += f" {t['torch'] / t['minitorch']:.2f} |"
        print(row, flush=True)

    print("\n| two threads, 8 exp over 2e6 float32 each (op threads = 1) | serial | threaded | speedup |")
    print("|---|---|---|---|")
    prev = minitorch.get_num_threads()
    minitorch.set_num_threads(1)
    if real_torch is not None:
        tprev = real_torch.get_num_threads()
        real_torch.set_num_threads(1)
    for name, serial, threaded in concurrency_rows(2_000_000, 8):
        print(f"| {name} | {fmt(serial)} | {fmt(threaded)} | {serial / threaded:.2f} |", flush=True)
    minitorch.set_num_threads(prev)
    if real_torch is not None:
        real_torch.set_num_threads(tprev)

    print(
        "\n| Python counter in a second thread during one 1024^3 float64 matmul | increments / ms | op time |"
    )
    print("|---|---|---|")
    for name, lib in libs().items():
        rate, dt = counter_progress(lib, 1024)
        print(f"| {name} | {rate:.0f} | {fmt(dt)} |", flush=True)


if __name__ == "__main__":
    main()
