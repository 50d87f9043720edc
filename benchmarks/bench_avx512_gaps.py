"""The float ops with a vector row on AVX2 but none on AVX-512 (there the scalar loop serves them), timed under
MINITORCH_CPU_CAPABILITY=avx512 and avx2 (each in its own process) beside PyTorch, all in the same run.

A report, not a test (tests/ops/elementwise/test_ulp.py::test_avx512_has_every_avx2_row holds the tables equal). Usage:
PYTHONPATH=python python benchmarks/bench_avx512_gaps.py [--ops exp2,tan,...] [--torch /tmp/tv/bin/python]
Without --ops it times the current gaps (none, once every AVX2 row has an AVX-512 one); --ops times the named
rows whatever the tables hold (the "after" measurement). Ratios: avx512/avx2 = AVX-512's time over AVX2's (above 1:
AVX-512 is slower), torch/avx512 = PyTorch's time over ours on AVX-512 (above 1: minitorch is faster).
"""

import argparse
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
# kernels/cpu/VecUnary.h's MT_VEC_UNARY_FNS, then the two-operand rows of its Table (has_vec_loop knows both)
UNARY = [
    "exp",
    "exp2",
    "expm1",
    "log",
    "log2",
    "log10",
    "log1p",
    "sin",
    "cos",
    "tan",
    "asin",
    "acos",
    "atan",
    "atanh",
    "sinh",
    "cosh",
    "tanh",
    "erf",
    "erfinv",
    "sigmoid",
    "gelu",
    "gelu_tanh",
    "silu",
    "mish",
    "lgamma",
    "digamma",
    "i0",
    "_special_i0e",
    "_special_i1",
    "_special_i1e",
]
BINARY = ["pow", "atan2", "fmod", "remainder", "floor_divide", "logaddexp", "logaddexp2", "softplus"]
DTYPES = ["float32", "float64"]
SIZES = {"256x256": (256, 256), "1M": (1 << 20,)}

_ROWS_CHILD = r"""
import json, minitorch as m
names = {names!r}
print(json.dumps({{"cap": m.backends.cpu.get_cpu_capability(),
                   "rows": {{f"{{n}} {{dt}}": bool(m._C._has_vec_loop(n, dt == "float64"))
                            for n in names for dt in ("float32", "float64")}}}}))
"""

_TIME_CHILD = r"""
import json, sys
import numpy as np
sys.path.insert(0, {here!r})
from _timing import bench
lib_name, keys, sizes, repeats, min_time = {args!r}
if lib_name == "torch":
    import torch as lib
    import torch.nn.functional as F
else:
    import minitorch as lib
    import minitorch.nn.functional as F
lib.set_num_threads(1)
UNIT = {{"asin", "acos", "atanh", "erfinv"}}  # (-1, 1)
POS = {{"log", "log2", "log10", "log1p", "lgamma", "digamma"}}
out = {{}}
for key in keys:
    op, dt = key.split()
    for size_name, shape in sizes.items():
        rng = np.random.default_rng(0)
        n = int(np.prod(shape))
        if op in UNIT:
            a = rng.random(n) * 1.98 - 0.99
        elif op in POS:
            a = rng.random(n) * 10 + 0.01
        else:
            a = rng.standard_normal(n) * 3
        b = rng.random(n) * 10 + 0.01
        x = lib.from_numpy(a.astype(dt).reshape(shape))
        y = lib.from_numpy(b.astype(dt).reshape(shape))
        special = {{"_special_i0e": lib.special.i0e, "_special_i1": lib.special.i1, "_special_i1e": lib.special.i1e,
                   "gelu": F.gelu, "gelu_tanh": lambda v: F.gelu(v, approximate="tanh"), "silu": F.silu,
                   "mish": F.mish, "softplus": F.softplus}}
        if op in {binary!r} and op != "softplus":
            f = getattr(lib, op)
            fn = lambda f=f: f(x, y)
        else:
            f = special.get(op) or getattr(lib, op)
            fn = lambda f=f: f(x)
        out[key + " " + size_name] = bench({{"t": fn}}, repeats, min_time)["t"]
print(json.dumps(out))
"""


def child(code, py=sys.executable, cap=None):
    env = dict(os.environ, OMP_NUM_THREADS="1", MKL_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1")
    env.pop("MINITORCH_CPU_CAPABILITY", None)
    if cap:
        env["MINITORCH_CPU_CAPABILITY"] = cap
    r = subprocess.run([py, "-c", code], env=env, capture_output=True, text=True, check=False)
    if r.returncode != 0:
        sys.exit(f"child ({cap or py}) failed:\n{r.stderr[-2000:]}")
    return json.loads(r.stdout.strip().splitlines()[-1])


def rows(cap):
    return child(_ROWS_CHILD.format(names=UNARY + BINARY), cap=cap)


def times(lib, keys, args, py=sys.executable, cap=None):
    code = _TIME_CHILD.format(here=HERE, args=(lib, keys, SIZES, args.repeats, args.min_time), binary=BINARY)
    return child(code, py=py, cap=cap)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ops", default="", help="comma-separated 'op dtype' keys or ops (both dtypes) to time")
    ap.add_argument("--torch", default="/tmp/tv/bin/python", help="a Python that imports PyTorch")
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--min-time", type=float, default=0.05)
    ap.add_argument("--rounds", type=int, default=2, help="processes per path, in alternating order")
    args = ap.parse_args()
    r512, r2 = rows("avx512"), rows("avx2")
    if r512["cap"] != "AVX512":
        sys.exit(f"this CPU has no AVX-512 (capability {r512['cap']})")
    gaps = [k for k, v in r2["rows"].items() if v and not r512["rows"][k]]
    print("AVX2 rows missing on AVX-512:", ", ".join(gaps) or "none")
    extra = [k for k, v in r512["rows"].items() if v and not r2["rows"][k]]
    print("AVX-512 rows missing on AVX2:", ", ".join(extra) or "none")
    keys = []
    for item in filter(None, (s.strip() for s in args.ops.split(","))):
        keys += [item] if " " in item else [f"{item} {dt}" for dt in DTYPES]
    keys = keys or gaps
    if not keys:
        return
    # the same row on both paths differed by up to 1.8x between two processes on a loaded 2-core machine: rounds
    # in alternating order, the fastest median of each
    t512, t2 = {}, {}
    for r in range(args.rounds):
        for cap, acc in (("avx512", t512), ("avx2", t2))[:: 1 if r % 2 == 0 else -1]:
            for k, v in times("minitorch", keys, args, cap=cap).items():
                acc[k] = min(v, acc.get(k, v))
    tt = times("torch", keys, args, py=args.torch) if os.path.exists(args.torch) else {}
    print(
        "\none thread; us per call (the fastest round's median); avx512/avx2 above 1: AVX-512 slower; torch/avx512 above 1: we are faster"
    )
    print(
        "| op | size | AVX-512 row | AVX-512 us | AVX2 us | PyTorch us | avx512/avx2 | torch/avx512 | torch/avx2 |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    for key in keys:
        for size in SIZES:
            k = f"{key} {size}"
            a, b, c = t512[k], t2[k], tt.get(k)
            cells = [f"{a * 1e6:.0f}", f"{b * 1e6:.0f}", f"{c * 1e6:.0f}" if c else "-", f"{a / b:.2f}"]
            cells += [f"{c / a:.2f}" if c else "-", f"{c / b:.2f}" if c else "-"]
            row = "yes" if r512["rows"][key] else "no"
            print(f"| {key} | {size} | {row} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
