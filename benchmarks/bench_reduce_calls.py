"""Per-call cost of the reductions' bindings on a 4x4 tensor: two builds of minitorch (--before DIR, a copy of an
older build's python/ tree, and the tree's own) beside PyTorch, each in its own process, the processes run in
turn round after round (interleaved, so load drift hits every column alike), best of all rounds per case.

    PYTHONPATH=python python benchmarks/bench_reduce_calls.py --before /tmp/old/python [--torch-python PY]
"""

import argparse
import json
import os
import subprocess
import sys

CASES = [
    ("sum(x)", "torch.sum(x)"),
    ("x.sum(0)", "x.sum(0)"),
    ("max(x, 1)", "torch.max(x, 1)"),
    ("x.mean()", "x.mean()"),
    ("x.std()", "x.std()"),
    ("sum(x, 0, out=o)", "torch.sum(x, 0, out=o)"),
    ("tril_indices(3, 3)", "torch.tril_indices(3, 3)"),
]

CHILD = """
import json, sys, timeit
import {module} as torch
x, o = torch.rand(4, 4), torch.empty(4)
out = {{}}
for name, stmt in {cases!r}:
    t = timeit.Timer(stmt, globals=globals())
    t.timeit(200)
    out[name] = min(t.repeat(repeat=5, number={number})) / {number}
print(json.dumps(out))
"""


def run(python, pythonpath, module, number):
    env = dict(os.environ, OMP_NUM_THREADS="1")
    if pythonpath:
        env["PYTHONPATH"] = pythonpath
    else:
        env.pop("PYTHONPATH", None)
    code = CHILD.format(module=module, cases=CASES, number=number)
    res = subprocess.run([python, "-c", code], env=env, capture_output=True, text=True, check=True)
    return json.loads(res.stdout)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--before", required=True, help="python/ directory of the older build")
    ap.add_argument("--after", default="python")
    ap.add_argument("--torch-python", default=os.environ.get("MINITORCH_ORACLE_PYTHON"))
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--number", type=int, default=20000)
    a = ap.parse_args()
    columns = {
        "before": (sys.executable, a.before, "minitorch"),
        "after": (sys.executable, a.after, "minitorch"),
    }
    if a.torch_python:
        columns["torch"] = (a.torch_python, None, "torch")
    best = {c: {} for c in columns}
    for _ in range(a.rounds):
        for c, (py, path, mod) in columns.items():
            for k, v in run(py, path, mod, a.number).items():
                best[c][k] = min(best[c].get(k, v), v)
    head = "| case | before (us) | after (us) | after / before |" + (
        " PyTorch (us) |" if a.torch_python else ""
    )
    print(head)
    print("|" + "---|" * head.count(" |"))
    for name, _ in CASES:
        b, n = best["before"][name] * 1e6, best["after"][name] * 1e6
        row = f"| `{name}` | {b:.2f} | {n:.2f} | {n / b:.2f} |"
        if a.torch_python:
            row += f" {best['torch'][name] * 1e6:.2f} |"
        print(row)


if __name__ == "__main__":
    main()
