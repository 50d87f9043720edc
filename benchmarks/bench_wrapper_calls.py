"""Per-call cost of the ops issue 32's sweep found behind thin Python wrappers or small-shape paths (fmax/fmin,
signbit, copysign, logit, F.pad's 1-D non-constant modes, LayerNorm over 16 features, cross_entropy with
probability targets, int16 shifts) beside PyTorch: one process per library, run in turn three times, best of each
(min of 5 timeit repeats per round), one thread.

A report, not a test. Usage:
  PYTHONPATH=python python benchmarks/bench_wrapper_calls.py [--torch-python /tmp/tv/bin/python]
      [--base /path/to/another/build/python]   # a second minitorch column (the build before a change)
R = PyTorch's time / minitorch's (above 1: minitorch is faster).
"""

import argparse
import json
import os
import subprocess
import sys
import timeit

CASES = [
    "torch.copysign(x, y)", "x.copysign(y)", "torch.copysign(x, -1.0)", "torch.fmax(x, y)", "torch.fmin(x, y)",
    "torch.signbit(x)", "torch.logit(x)", "torch.logit(x, 0.1)", "torch.special.logit(x)",
    "torch.fmax(m, m2)", "torch.logit(m)", "torch.logit(m, 0.1)", "torch.signbit(m)", "torch.copysign(m, m2)",
    "F.pad(p, (16, 16), 'replicate')", "rep(p)", "F.pad(p2, (3, 3), 'reflect')", "F.pad(p2, (3, 3), 'circular')",
    "ln(h)", "F.cross_entropy(m, soft)", "s16 << a16", "s16 >> a16",
]  # fmt: skip


def worker(lib):
    if lib == "torch":
        import torch
    else:
        import minitorch as torch
    import numpy as np

    torch.set_num_threads(1)
    rng = np.random.default_rng(0)

    def u(*shape, lo=0.1, hi=0.9):
        return torch.from_numpy(rng.uniform(lo, hi, shape).astype(np.float32))

    g = {
        "torch": torch,
        "F": torch.nn.functional,
        "x": u(8, 8),
        "y": u(8, 8, lo=-1, hi=1),
        "m": u(256, 256),
        "m2": u(256, 256, lo=-1, hi=1),
        "soft": torch.softmax(u(256, 256), 1),
        "p": u(2, 16, 4),
        "p2": u(2, 16, 32),
        "rep": torch.nn.ReplicationPad1d(16),
        "h": u(4096, 16, lo=-2, hi=2),
        "ln": torch.nn.LayerNorm(16),
        "s16": torch.from_numpy(rng.integers(-100, 100, 65536).astype(np.int16)),
        "a16": torch.from_numpy(rng.integers(0, 8, 65536).astype(np.int16)),
    }
    out = {}
    for stmt in CASES:
        timer = timeit.Timer(stmt, globals=g)
        n = 20
        while timer.timeit(n) < 0.02:
            n *= 4
        out[stmt] = min(timer.repeat(5, n)) / n * 1e6
    print(json.dumps(out))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--worker")
    ap.add_argument("--torch-python", default=os.environ.get("MINITORCH_ORACLE_PYTHON", "/tmp/tv/bin/python"))
    ap.add_argument("--base", default=None, help="another minitorch build's python/ directory, as a column")
    ap.add_argument("--rounds", type=int, default=3)
    a = ap.parse_args()
    if a.worker:
        return worker(a.worker)
    here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python")
    columns = ([("before", sys.executable, "minitorch", a.base)] if a.base else []) + [
        ("minitorch", sys.executable, "minitorch", here),
        ("PyTorch", a.torch_python, "torch", ""),
    ]
    best = {c[0]: {} for c in columns}
    for _ in range(a.rounds):
        for name, py, lib, path in columns:
            env = dict(os.environ, PYTHONPATH=path, OMP_NUM_THREADS="1")
            run = subprocess.run(
                [py, os.path.abspath(__file__), "--worker", lib],
                env=env,
                capture_output=True,
                text=True,
                cwd="/",
                check=False,
            )
            if run.returncode:
                sys.exit(run.stderr)
            for k, v in json.loads(run.stdout).items():
                best[name][k] = min(v, best[name].get(k, v))
    names = [c[0] for c in columns]
    print(
        "| call | "
        + " | ".join(f"{n} (us)" for n in names)
        + " | R"
        + (" before | R after |" if a.base else " |")
    )
    print("|---" * (len(names) + 1 + (2 if a.base else 1)) + "|")
    for stmt in CASES:
        t = best["PyTorch"][stmt]
        rs = [t / best[n][stmt] for n in names if n != "PyTorch"]
        cells = " | ".join(f"{best[n][stmt]:.3f}" for n in names)
        print(f"| `{stmt}` | {cells} | " + " | ".join(f"{r:.2f}" for r in rs) + " |")


if __name__ == "__main__":
    main()
