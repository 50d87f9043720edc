"""Per-call cost of ops on plain tensors before and after a Tensor subclass is defined (the bindings look for
subclass instances only from then on), and of the same ops on a subclass instance, beside PyTorch: one process
per column, run in turn three times, best of each.

A report, not a test. Usage:
  PYTHONPATH=python python benchmarks/bench_subclass_dispatch.py [--torch-python /tmp/tv/bin/python]
      [--base /path/to/another/build/python]   # a minitorch column of the build before a change
R = PyTorch's time / minitorch's (above 1: minitorch is faster).
"""

import argparse
import json
import os
import subprocess
import sys
import timeit

CASES = ["a + b", "torch.add(a, b)", "a.add(b)", "a.sum()", "a[0]", "a.float()", "a.t()", "torch.cat([a, b])"]


def worker(lib, mode):
    if lib == "torch":
        import torch
    else:
        import minitorch as torch
    torch.set_num_threads(1)
    a, b = torch.rand(4, 4), torch.rand(4, 4)
    if mode != "plain":

        class Sub(torch.Tensor):
            pass

        if mode == "subclass":
            a = a.as_subclass(Sub)
    g = {"torch": torch, "a": a, "b": b}
    out = {}
    for stmt in CASES:
        n = 5000 if mode == "subclass" else 20000
        out[stmt] = min(timeit.Timer(stmt, globals=g).repeat(5, n)) / n * 1e6
    print(json.dumps(out))


def run(python, lib, mode, path=None):
    env = dict(os.environ)
    if path:
        env["PYTHONPATH"] = path
    r = subprocess.run(
        [python, __file__, "--worker", lib, mode], env=env, capture_output=True, text=True, check=True
    )
    return json.loads(r.stdout.strip().splitlines()[-1])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--worker", nargs=2)
    ap.add_argument("--torch-python", default="/tmp/tv/bin/python")
    ap.add_argument("--base")
    args = ap.parse_args()
    if args.worker:
        worker(*args.worker)
        return
    columns = [("torch plain", args.torch_python, "torch", "plain", None)]
    if args.base:
        columns.append(("base plain", sys.executable, "minitorch", "plain", args.base))
    columns += [
        ("ours plain", sys.executable, "minitorch", "plain", None),
        ("ours plain, subclass defined", sys.executable, "minitorch", "defined", None),
        ("torch subclass", args.torch_python, "torch", "subclass", None),
        ("ours subclass", sys.executable, "minitorch", "subclass", None),
    ]
    best = {}
    for _ in range(3):
        for name, py, lib, mode, path in columns:
            res = run(py, lib, mode, path)
            prev = best.setdefault(name, res)
            for k, v in res.items():
                prev[k] = min(prev[k], v)
    names = [c[0] for c in columns]
    print(f"{'case':20s}" + "".join(f"{n:>30s}" for n in names))
    for stmt in CASES:
        print(f"{stmt:20s}" + "".join(f"{best[n][stmt]:>28.3f}us" for n in names))
    for mode in ("plain", "subclass"):
        ours = "ours plain" if mode == "plain" else "ours subclass"
        rs = [best[f"torch {mode}"][s] / best[ours][s] for s in CASES]
        print(f"R ({mode}): " + ", ".join(f"{s}: {r:.2f}" for s, r in zip(CASES, rs)))
    if args.base:
        print(
            "ours/base (plain): "
            + ", ".join(f"{s}: {best['ours plain'][s] / best['base plain'][s]:.3f}" for s in CASES)
        )
    print(
        "ours defined/plain: "
        + ", ".join(
            f"{s}: {best['ours plain, subclass defined'][s] / best['ours plain'][s]:.3f}" for s in CASES
        )
    )


if __name__ == "__main__":
    main()
