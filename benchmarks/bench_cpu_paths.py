"""The float unary ops on each CPU path the build has (MINITORCH_CPU_CAPABILITY=avx512|avx2|default, each in its
own process), beside NumPy and, when `import torch` works, PyTorch, all timed in the same run. Shows what a
build without SLEEF gives on each instruction set (collect_env says whether SLEEF is linked). Ratios are
other / minitorch (above 1: minitorch is faster).

A report, not a test. Usage: PYTHONPATH=python python benchmarks/bench_cpu_paths.py [--n 1048576] [--threads 1]
[--ops exp,log,...] [--baseline DIR]
(--baseline: DIR holds another build's `minitorch` package, e.g. a copy of the branch point's, timed at each
capability in the same run; its ratios are the "was" columns.)
(PyTorch's column appears when run with a Python that has PyTorch, e.g. /tmp/tv/bin/python).
"""

import argparse
import json
import os
import subprocess
import sys

OPS = [
    "exp",
    "log",
    "log1p",
    "tanh",
    "sigmoid",
    "erf",
    "erfinv",
    "sin",
    "cos",
    "pow2.5",
    "gelu",
    "softplus",
    "softmax",
    "logsumexp dim0",
    "randn",
    "atan",
    "atan2",
    "fmod",
    "remainder",
    "logaddexp",
    "logaddexp2",
    "lgamma",
    "digamma",
    "exp2",
    "expm1",
    "log2",
    "log10",
    "tan",
    "asin",
    "acos",
    "sinh",
    "cosh",
    "pow",
    "max_pool1d k2",
    "max_pool1d k3s2",
    "max_pool1d k2 indices",
    "heaviside",
    "sign",
    "random_",
]
DTYPES = ["float32", "float64"]

_CHILD = r"""
import json, sys
import numpy as np
sys.path.insert(0, {here!r})
from _timing import bench
lib_name, n, threads, repeats, min_time = {args!r}
if lib_name == "torch":
    import torch as lib
    import torch.nn.functional as F
else:
    import minitorch as lib
    import minitorch.nn.functional as F
lib.set_num_threads(threads)
rng = np.random.default_rng(0)
out = {{"cap": lib.backends.cpu.get_cpu_capability() if lib_name != "torch" else "torch",
        "sleef": bool(lib._C._has_sleef()) if lib_name != "torch" else None}}
for dt in {dtypes!r}:
    x = lib.from_numpy((rng.standard_normal(n) * 3).astype(dt))
    pos = lib.from_numpy((rng.random(n) * 10 + 0.01).astype(dt))
    unit = lib.from_numpy((rng.random(n) * 1.98 - 0.99).astype(dt))
    lead = x.reshape(4, -1)
    m = x.reshape(-1, 1000) if n % 1000 == 0 else x.reshape(1, -1)
    rows = x.reshape(256, -1) if n % 256 == 0 else x.reshape(1, -1)  # (C, L): 256 rows of max_pool1d
    steps = lib.from_numpy(rng.integers(-2, 3, n).astype(dt))  # heaviside's input: a third of it zeros
    fns = {{
        "exp": lambda: lib.exp(x), "log": lambda: lib.log(pos), "log1p": lambda: lib.log1p(pos),
        "tanh": lambda: lib.tanh(x), "sigmoid": lambda: lib.sigmoid(x), "erf": lambda: lib.erf(x),
        "erfinv": lambda: lib.erfinv(unit), "cos": lambda: lib.cos(x), "atan": lambda: lib.atan(x),
        "atan2": lambda: lib.atan2(x, pos), "fmod": lambda: lib.fmod(x, pos),
        "remainder": lambda: lib.remainder(x, pos),
        "logaddexp": lambda: lib.logaddexp(x, pos), "logaddexp2": lambda: lib.logaddexp2(x, pos),
        "logsumexp dim0": lambda: lib.logsumexp(lead, 0), "randn": lambda: lib.randn(n, dtype=x.dtype),
        "sin": lambda: lib.sin(x), "pow2.5": lambda: lib.pow(pos, 2.5), "gelu": lambda: F.gelu(x),
        "softplus": lambda: F.softplus(x), "softmax": lambda: lib.softmax(m, dim=-1),
        "lgamma": lambda: lib.lgamma(pos), "digamma": lambda: lib.digamma(pos),
        "exp2": lambda: lib.exp2(x), "expm1": lambda: lib.expm1(x), "log2": lambda: lib.log2(pos),
        "log10": lambda: lib.log10(pos), "tan": lambda: lib.tan(x), "asin": lambda: lib.asin(unit),
        "acos": lambda: lib.acos(unit), "sinh": lambda: lib.sinh(x), "cosh": lambda: lib.cosh(x),
        "pow": lambda: lib.pow(pos, x),
        "max_pool1d k2": lambda: F.max_pool1d(rows, 2), "max_pool1d k3s2": lambda: F.max_pool1d(rows, 3, 2),
        "max_pool1d k2 indices": lambda: F.max_pool1d(rows, 2, return_indices=True),
        "heaviside": lambda: lib.heaviside(steps, pos), "sign": lambda: lib.sign(x),
        "random_": lambda: x.random_(),
    }}
    for op in {ops!r}:
        out[op + " " + dt] = bench({{"t": fns[op]}}, repeats, min_time)["t"]
print(json.dumps(out))
"""


def numpy_times(n, repeats, min_time, ops=OPS):
    import numpy as np
    from _timing import bench

    rng = np.random.default_rng(0)
    out = {}
    for dt in DTYPES:
        x = (rng.standard_normal(n) * 3).astype(dt)
        pos = (rng.random(n) * 10 + 0.01).astype(dt)
        unit = (rng.random(n) * 1.98 - 0.99).astype(dt)
        fns = {
            "exp": (np.exp, x),
            "log": (np.log, pos),
            "log1p": (np.log1p, pos),
            "tanh": (np.tanh, x),
            "sin": (np.sin, x),
            "cos": (np.cos, x),
            "atan": (np.arctan, x),
            "atan2": (lambda v, pos=pos: np.arctan2(v, pos), x),
            "fmod": (lambda v, pos=pos: np.fmod(v, pos), x),
            "remainder": (lambda v, pos=pos: np.remainder(v, pos), x),
            "logaddexp": (lambda v, pos=pos: np.logaddexp(v, pos), x),
            "logaddexp2": (lambda v, pos=pos: np.logaddexp2(v, pos), x),
            "randn": (lambda v: rng.standard_normal(v.size, dtype=v.dtype), x),
            "pow2.5": (lambda v: np.power(v, 2.5), pos),
            "exp2": (np.exp2, x),
            "expm1": (np.expm1, x),
            "log2": (np.log2, pos),
            "log10": (np.log10, pos),
            "tan": (np.tan, x),
            "asin": (np.arcsin, unit),
            "acos": (np.arccos, unit),
            "sinh": (np.sinh, x),
            "cosh": (np.cosh, x),
            "pow": (lambda v, x=x: np.power(v, x), pos),
            "max_pool1d k2": (lambda v: np.maximum(v[:, 0::2], v[:, 1::2]), x.reshape(256, -1)),
            "max_pool1d k3s2": (
                lambda v: np.maximum(np.maximum(v[:, 0:-2:2], v[:, 1:-1:2]), v[:, 2::2]),
                x.reshape(256, -1),
            ),
            "heaviside": (lambda v, pos=pos: np.heaviside(v, pos), rng.integers(-2, 3, n).astype(dt)),
            "sign": (np.sign, x),
            "random_": (
                lambda v: rng.integers(0, 2 ** (np.finfo(v.dtype).nmant + 1) + 1, v.size).astype(v.dtype),
                x,
            ),
        }
        for op, (f, v) in fns.items():
            if op not in ops:
                continue
            out[op + " " + dt] = bench({"t": lambda f=f, v=v: f(v)}, repeats, min_time)["t"]
    return out


def run_child(lib, cap, args, package_dir=None):
    here = os.path.dirname(os.path.abspath(__file__))
    code = _CHILD.format(
        here=here, args=(lib, args.n, args.threads, args.repeats, args.min_time), dtypes=DTYPES, ops=args.ops
    )
    env = dict(os.environ)
    if cap:
        env["MINITORCH_CPU_CAPABILITY"] = cap
    if package_dir:
        env["PYTHONPATH"] = package_dir
    r = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=False)
    if r.returncode != 0:
        return None
    return json.loads(r.stdout.strip().splitlines()[-1])


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=1 << 20)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--min-time", type=float, default=0.05)
    ap.add_argument("--ops", default=",".join(OPS), help="a comma-separated subset of the rows")
    ap.add_argument("--baseline", default=None, help="a directory holding another build's minitorch package")
    args = ap.parse_args()
    args.ops = [op for op in args.ops.split(",") if op in OPS]
    paths, base = {}, {}
    for cap in ("avx512", "avx2", "default"):
        res = run_child("minitorch", cap, args)
        if res and res["cap"].lower() == cap and res["cap"] not in {p["cap"] for p in paths.values()}:
            paths[res["cap"]] = res
            if args.baseline:
                base[res["cap"]] = run_child("minitorch", cap, args, args.baseline)
    torch_res = run_child("torch", None, args)
    np_res = numpy_times(args.n, args.repeats, args.min_time, args.ops)
    sleef = next(iter(paths.values()))["sleef"] if paths else None
    print(
        f"n={args.n}, {args.threads} thread(s), SLEEF linked: {sleef}; times in us; ratio = other / minitorch"
    )
    caps = list(paths)
    head = (
        "| op | "
        + " | ".join(f"{c} us" for c in caps)
        + " | NumPy us | PyTorch us | "
        + " | ".join(f"torch/{c}" for c in caps)
        + "".join(f" | torch/{c} was" for c in caps if base.get(c))
        + " |"
    )
    print(head)
    print("|" + "---|" * (head.count("|") - 1))
    for dt in DTYPES:
        for op in args.ops:
            k = f"{op} {dt}"
            mt = [paths[c][k] for c in caps]
            npt = np_res.get(k)
            tt = torch_res.get(k) if torch_res else None
            cells = [f"{t * 1e6:.0f}" for t in mt]
            cells += [f"{npt * 1e6:.0f}" if npt else "-", f"{tt * 1e6:.0f}" if tt else "-"]
            cells += [f"{tt / t:.2f}" if tt else "-" for t in mt]
            cells += [f"{tt / base[c][k]:.2f}" if tt and k in base[c] else "-" for c in caps if base.get(c)]
            print(f"| {k} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
