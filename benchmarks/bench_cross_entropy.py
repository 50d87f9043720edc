"""cross_entropy forward+backward through each path of the CPU kernel (kernels/cpu/loss.cpp): short rows, blocks
of spatial positions, long rows, long spatial rows, smoothing and weights, probability targets, float64 and
bfloat16; beside PyTorch. Each library runs in its own worker process on one thread, samples interleaved and
timed in the worker thread's CPU time (a shared machine's waits are not counted); the median of the samples.
--baseline DIR adds another build of minitorch (a directory holding its `minitorch` package) as a column, to
compare a change with its parent in one run.

  python benchmarks/bench_cross_entropy.py [--baseline DIR] [--repeats 7] [--torch-python PY] [-k name]
"""

import argparse
import json
import os
import statistics
import sys
import time

CASES = {}


def case(name):
    def add(fn):
        CASES[name] = fn
        return fn

    return add


def _step(lib, shape, classes_dim=1, prob=False, dtype="float32", grad=True, **kw):
    """A closure doing one cross_entropy (and its backward when grad) on fixed random data."""
    import numpy as np

    rng = np.random.default_rng(0)
    dt = getattr(lib, dtype)
    x = lib.tensor(rng.standard_normal(shape), dtype=dt, requires_grad=grad)
    C = shape[classes_dim]
    if prob:
        p = rng.random(shape)
        t = lib.tensor(p / p.sum(classes_dim, keepdims=True), dtype=dt)
    else:
        t = lib.tensor(rng.integers(0, C, size=shape[:classes_dim] + shape[classes_dim + 1 :]))
    if "weight" in kw:
        kw["weight"] = lib.tensor(rng.uniform(0.5, 2.0, C), dtype=dt)
    ce = lib.nn.functional.cross_entropy
    if not grad:
        return lambda: ce(x, t, **kw)

    def step():
        x.grad = None
        loss = ce(x, t, **kw)
        (loss.sum() if loss.dim() else loss).backward()

    return step


case("index [100x2] (tutorial)")(lambda lib: _step(lib, (100, 2)))
case("index [4096x16]")(lambda lib: _step(lib, (4096, 16)))
case("index [4096x16] smoothing 0.1, weight")(
    lambda lib: _step(lib, (4096, 16), label_smoothing=0.1, weight=True)
)
case("index [4096x16] none")(lambda lib: _step(lib, (4096, 16), reduction="none"))
case("prob [4096x16]")(lambda lib: _step(lib, (4096, 16), prob=True))
case("index [8x21x32x32] (spatial)")(lambda lib: _step(lib, (8, 21, 32, 32)))
case("prob [8x21x32x32] (spatial)")(lambda lib: _step(lib, (8, 21, 32, 32), prob=True))
case("prob [8x21x32x32] forward, no grad")(lambda lib: _step(lib, (8, 21, 32, 32), prob=True, grad=False))
case("index [256x1000] (long rows)")(lambda lib: _step(lib, (256, 1000)))
case("prob [256x1000] (long rows)")(lambda lib: _step(lib, (256, 1000), prob=True))
case("index [4x1000x64] (long spatial)")(lambda lib: _step(lib, (4, 1000, 64)))
case("index [4096x16] float64")(lambda lib: _step(lib, (4096, 16), dtype="float64"))
case("index [1024x16] bfloat16")(lambda lib: _step(lib, (1024, 16), dtype="bfloat16"))


def worker(name):
    """Answers {"op": "calib" | "time", "case", "loops"} lines with seconds (per call, thread CPU time)."""
    if name == "torch":
        import torch as lib
    else:
        import minitorch as lib
    lib.set_num_threads(1)
    steps = {}
    for line in sys.stdin:
        cmd = json.loads(line)
        fn = steps.get(cmd["case"])
        if fn is None:
            fn = steps[cmd["case"]] = CASES[cmd["case"]](lib)
            for _ in range(3):
                fn()
        n = cmd.get("loops", 1)
        t0 = time.thread_time()
        for _ in range(n):
            fn()
        print(json.dumps((time.thread_time() - t0) / n), flush=True)


def main():
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from _timing import Worker, find_torch_python, fmt

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--worker")
    ap.add_argument("--baseline", help="a directory holding another build's minitorch package")
    ap.add_argument("--torch-python", help="a Python that imports torch (default: the oracle venv's)")
    ap.add_argument("--repeats", type=int, default=7)
    ap.add_argument("--min-time", type=float, default=0.05, help="seconds of CPU time per sample")
    ap.add_argument("-k", default="", help="only cases whose names contain this")
    args = ap.parse_args()
    if args.worker:
        return worker(args.worker)
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env = dict(os.environ, OMP_NUM_THREADS="1")
    ours = os.path.join(here, "python")
    workers = [Worker("minitorch", sys.executable, dict(env, PYTHONPATH=ours), __file__)]
    if args.baseline:
        workers.append(Worker("baseline", sys.executable, dict(env, PYTHONPATH=args.baseline), __file__))
    tpy = find_torch_python(args.torch_python)
    if tpy:
        workers.append(Worker("torch", tpy, env, __file__))
    names = [w.name for w in workers]
    head = "| case | minitorch |" + "".join(
        f" {n} | t_{n} / t_minitorch |" for n in names if n != "minitorch"
    )
    print(
        "float32 unless named, forward + backward, one thread, median of interleaved samples (thread CPU time)\n"
    )
    print(head)
    print("|---|---|" + "---|---|" * (len(names) - 1))
    for name in CASES:
        if args.k not in name:
            continue
        loops = {}
        for w in workers:
            once = w.ask(op="calib", case=name, loops=1)
            loops[w.name] = max(1, int(args.min_time / max(once, 1e-7)))
        samples = {n: [] for n in names}
        for _ in range(args.repeats):
            for w in workers:
                samples[w.name].append(w.ask(op="time", case=name, loops=loops[w.name]))
        t = {n: statistics.median(s) for n, s in samples.items()}
        row = f"| {name} | {fmt(t['minitorch'])} |"
        for n in names[1:]:
            row += f" {fmt(t[n])} | {t[n] / t['minitorch']:.2f} |"
        print(row, flush=True)
    for w in workers:
        w.close()


if __name__ == "__main__":
    main()
