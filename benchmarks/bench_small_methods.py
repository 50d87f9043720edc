"""Per-call cost of the small Tensor methods (metadata, flags, no-op conversions, new, sum_to_size, hsplit's
separate ints, to_dlpack) beside PyTorch: one process per library, run in turn three times, best of each.

A report, not a test. Usage:
  PYTHONPATH=python python benchmarks/bench_small_methods.py [--torch-python /tmp/tv/bin/python]
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
    "x.new(2, 3)", "x.new()", "x.float()", "d.double()", "x.double()", "x.type_as(y)", "x.type_as(d)",
    "x.contiguous()", "xt.contiguous()", "x.is_conj()", "x.is_neg()", "x.is_signed()", "x.is_distributed()",
    "x.ndimension()", "x.stride()", "x.stride(0)", "x.storage_offset()", "x.is_contiguous()", "x.nelement()",
    "x.is_same_size(y)", "x.requires_grad_(False)", "x.sum_to_size(8, 8)", "x.sum_to_size((1, 8))",
    "torch.to_dlpack(x)", "x.hsplit(2, 2)", "x.hsplit(2)", "torch.hsplit(x, [2, 2])", "x.dim()",
]  # fmt: skip


def worker(lib):
    if lib == "torch":
        import torch
    else:
        import minitorch as torch
    torch.set_num_threads(1)
    x = torch.rand(8, 8)
    g = {"torch": torch, "x": x, "y": torch.rand(8, 8), "d": x.double(), "xt": x.t()}
    out = {}
    for stmt in CASES:
        n = 20000
        out[stmt] = min(timeit.Timer(stmt, globals=g).repeat(5, n)) / n * 1e6
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
