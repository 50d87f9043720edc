"""One and two threads, minitorch beside PyTorch, on an idle machine and beside busy-loop processes (oversubscribed).

A report, not a test. One worker process per library (PyTorch under --torch-python, default /tmp/tv/bin/python);
each worker switches set_num_threads between 1 and 2 itself, and the parent asks the workers in turn for one
timed sample per (case, threads), so load and drift hit both libraries and both thread counts alike. Each sample
is the mean time per call over a batch of calls (what a loop of ops sees, preemptions included); the table shows
the median of --repeats samples (--best: the fastest, on a machine loaded by others). `--load K` starts K processes that spin in a loop for the whole run (pinned to
the last CPU with --pin): a machine shared with other jobs, where a thread pool's worker can be preempted or its
idle spinning can take a core from the thread it waits for.

Columns: each library's time at 1 and at 2 threads, its speed-up 1t/2t (above 1: the second thread helps), and
R = PyTorch's time / minitorch's at each thread count (above 1: minitorch is faster).

Usage: PYTHONPATH=python python benchmarks/bench_threads.py [--load 1] [--pin] [--repeats 7] [-k exp]
    [--baseline /path/to/other/python]
"""

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import time

import numpy as np
from _timing import Worker, find_torch_python, fmt

HERE = os.path.dirname(os.path.abspath(__file__))


def _rand(*shape, dtype="float32", seed=0):
    return np.random.default_rng(seed).uniform(0.1, 0.9, size=shape).astype(dtype)


def cases(t):
    """{name: zero-argument callable} for the library t (minitorch or torch)"""

    def T(*shape, dtype="float32", seed=0):
        return t.from_numpy(_rand(*shape, dtype=dtype, seed=seed)).clone()

    a64k, b64k = T(65536), T(65536, seed=1)
    a1m, b1m = T(1 << 20), T(1 << 20, seed=1)
    d1m = T(1 << 20, dtype="float64")
    m256 = T(256, 256)
    m512 = T(512, 512)
    w128, x128 = T(128, 128), T(128, 128, seed=1)
    w256, x256 = T(256, 256, dtype="float64"), T(256, 256, dtype="float64", seed=1)
    rows = T(4096, 16)
    lin = t.nn.Linear(16, 16)
    img = T(8, 16, 32, 32)
    conv = t.nn.Conv2d(16, 16, 3, padding=1)
    # issue 32's two-thread rows (the sweep's medium templates)
    m256b = T(256, 256, seed=1)
    d256 = T(256, 256, dtype="float64")
    pool_in = T(32, 16, 128)
    amp1d = t.nn.AdaptiveMaxPool1d(16)
    probs = t.softmax(m256b, dim=1)
    w1024 = t.from_numpy(np.random.default_rng(2).uniform(0.5, 1.5, size=(1024, 1024)).astype("float32"))
    c256, s8 = T(256, 256, seed=3), T(8, 8)  # filled in place by the samplers
    return {
        "logaddexp2 256x256 f32": lambda: t.logaddexp2(m256, m256b),
        "AdaptiveMaxPool1d(16) 32x16x128": lambda: amp1d(pool_in),
        "adaptive_avg_pool1d(x, 1) 1024x1024": lambda: t.nn.functional.adaptive_avg_pool1d(w1024, 1),
        "cross_entropy probs 256x256": lambda: t.nn.functional.cross_entropy(m256, probs),
        "cauchy_ 256x256 f32": lambda: c256.cauchy_(2),
        "cauchy_ 8x8 f32": lambda: s8.cauchy_(2),
        "dist 256x256 f32": lambda: t.dist(m256, m256b),
        "prod 1024x1024 dim=1 f32": lambda: w1024.prod(1),
        "topk 256x256 f64 k=16 unsorted": lambda: d256.topk(16, sorted=False),
        "exp 64k f32": lambda: t.exp(a64k),
        "exp 1M f32": lambda: t.exp(a1m),
        "exp 1M f64": lambda: t.exp(d1m),
        "add 64k f32": lambda: a64k + b64k,
        "add 1M f32": lambda: a1m + b1m,
        "mul 1M f32": lambda: a1m * b1m,
        "sigmoid 256x256 f32": lambda: t.sigmoid(m256),
        "sum 1M f32": lambda: a1m.sum(),
        "sum 512x512 dim=1": lambda: m512.sum(dim=1),
        "amax 512x512 dim=0": lambda: m512.amax(dim=0),
        "softmax 256x256 dim=-1": lambda: t.softmax(m256, dim=-1),
        "matmul 128x128": lambda: w128 @ x128,
        "matmul 256x256 f64": lambda: w256 @ x256,
        "linear 4096x16 -> 16": lambda: lin(rows),
        "conv2d 8x16x32x32 3x3": lambda: conv(img),
        "transpose copy 512x512": lambda: m512.t().contiguous(),
    }


def worker(name):
    if name == "torch":
        import torch as t
    else:
        import minitorch as t
    out = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)
    fns = None
    for line in sys.stdin:
        cmd = json.loads(line)
        if cmd["op"] == "info":
            reply = {"version": t.__version__}
        elif cmd["op"] == "setup":
            with t.no_grad():
                fns = cases(t)
            reply = sorted(fns)
        else:
            t.set_num_threads(cmd["threads"])
            fn = fns[cmd["case"]]
            with t.no_grad():
                if cmd["op"] == "calibrate":
                    for _ in range(3):
                        fn()
                    t0 = time.perf_counter()
                    n = 0
                    while time.perf_counter() - t0 < cmd["min_time"]:
                        fn()
                        n += 1
                    reply = max(1, n)
                else:
                    fn()  # the first call after a thread-count switch starts the pool
                    t0 = time.perf_counter()
                    for _ in range(cmd["loops"]):
                        fn()
                    reply = (time.perf_counter() - t0) / cmd["loops"]
        out.write(json.dumps(reply) + "\n")
        out.flush()


def spinner(cpu):
    if cpu is not None:
        os.sched_setaffinity(0, {cpu})
    while True:
        pass


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--worker")
    ap.add_argument("--spin", type=int, default=None, help=argparse.SUPPRESS)
    ap.add_argument("--load", type=int, default=0, help="busy-loop processes running beside the timing")
    ap.add_argument("--pin", action="store_true", help="pin the busy loops to the last CPU")
    ap.add_argument("--repeats", type=int, default=7)
    ap.add_argument("--best", action="store_true", help="the fastest sample instead of the median")
    ap.add_argument(
        "--min-time", type=float, default=0.05, help="seconds per sample (calibrated at 1 thread)"
    )
    ap.add_argument("-k", default="", help="only cases containing one of these (comma separated)")
    ap.add_argument(
        "--variant",
        action="append",
        default=[],
        help="VAR=VALUE: one more minitorch worker with this environment variable (e.g. MINITORCH_THREAD_POOL=own)",
    )
    ap.add_argument(
        "--baseline",
        default=None,
        help="a python/ folder holding another build of minitorch (the before of a change): one more worker",
    )
    ap.add_argument("--torch-python", default=None)
    args = ap.parse_args()
    if args.worker:
        return worker(args.worker)
    if args.spin is not None:
        return spinner(args.spin if args.spin >= 0 else None)

    tpy = find_torch_python(args.torch_python)
    if tpy is None:
        sys.exit("bench_threads needs a Python with PyTorch (--torch-python, or /tmp/tv/bin/python)")
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        p for p in [os.path.join(HERE, "..", "python"), env.get("PYTHONPATH")] if p
    )
    # both libraries start with two threads (OpenMP's team size), then set_num_threads switches between 1 and 2
    env["OMP_NUM_THREADS"] = "2"
    tenv = {k: v for k, v in env.items() if k != "PYTHONPATH"}
    workers = [Worker("minitorch", sys.executable, env, __file__)]
    for v in args.variant:
        key, _, val = v.partition("=")
        workers.append(Worker("minitorch", sys.executable, dict(env, **{key: val}), __file__))
        workers[-1].name = f"mt {v}"
    if args.baseline:
        workers.append(Worker("minitorch", sys.executable, dict(env, PYTHONPATH=args.baseline), __file__))
        workers[-1].name = "mt base"
    workers.append(Worker("torch", tpy, tenv, __file__))
    info = {w.name: w.ask(op="info")["version"] for w in workers}
    names = workers[0].ask(op="setup")
    for w in workers[1:]:
        w.ask(op="setup")
    only = [s for s in args.k.split(",") if s]
    names = [n for n in names if not only or any(o in n for o in only)]

    spinners = []
    pin = (os.cpu_count() or 1) - 1 if args.pin else -1
    for _ in range(args.load):
        spinners.append(subprocess.Popen([sys.executable, __file__, "--spin", str(pin)]))
    try:
        print(
            f"# {platform.machine()}, {os.cpu_count()} CPUs, {args.load} busy loop(s)"
            f"{f' pinned to CPU {pin}' if args.load and args.pin else ''}; "
            + ", ".join(f"{k} {v}" for k, v in info.items())
            + f"; {'best' if args.best else 'median'} of {args.repeats} samples, each the mean per call of a batch\n"
        )
        mts = [w.name for w in workers if w.name != "torch"]
        head = ["case"]
        for w in workers:
            head += [f"{w.name} 1t", f"{w.name} 2t", f"{w.name} 1t/2t"]
        for m in mts:
            head += [f"R 1t ({m})" if len(mts) > 1 else "R 1t", f"R 2t ({m})" if len(mts) > 1 else "R 2t"]
        print("| " + " | ".join(head) + " |")
        print("|" + "---|" * len(head))
        for name in names:
            loops = {
                w.name: w.ask(op="calibrate", case=name, threads=1, min_time=args.min_time) for w in workers
            }
            samples = {(w.name, n): [] for w in workers for n in (1, 2)}
            for _ in range(args.repeats):
                for n in (1, 2):
                    for w in workers:
                        samples[w.name, n].append(w.ask(op="time", case=name, threads=n, loops=loops[w.name]))
            med = {k: (min if args.best else statistics.median)(v) for k, v in samples.items()}
            cells = [name]
            for w in workers:
                a, b = med[w.name, 1], med[w.name, 2]
                cells += [fmt(a), fmt(b), f"{a / b:.2f}"]
            for m in mts:
                cells += [f"{med['torch', n] / med[m, n]:.2f}" for n in (1, 2)]
            print("| " + " | ".join(cells) + " |", flush=True)
        print(f"\nload {os.getloadavg()[0]:.1f} at end")
    finally:
        for s in spinners:
            s.kill()
            s.wait()
        for w in workers:
            w.close()


if __name__ == "__main__":
    main()
