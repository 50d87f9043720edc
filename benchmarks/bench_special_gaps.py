"""The special-function rows of issue 32 (polygamma, erfinv, ndtri, igamma, the Bessel and Airy functions, i1e,
digamma, and float64 pow, whose kernel is the special functions' kind) beside PyTorch in one process per CPU capability, calls alternating, each timed in the calling thread's CPU time (min of
repeats), so a loaded machine's waits do not enter either column; one thread, 256x256 values.

  PYTHONPATH=python /tmp/tv/bin/python benchmarks/bench_special_gaps.py [--caps avx2,avx512] [--number 20]
      [-k polygamma,erfinv] [--baseline DIR]

The Python running this needs both minitorch and PyTorch importable (the oracle's venv with PYTHONPATH=python).
MINITORCH_CPU_CAPABILITY and ATEN_CPU_CAPABILITY are set for each child, which prints what each library took."""

import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(__file__))
from _timing import capability_main

# (row name, expression over torch and x (y: igamma's second operand), dtype, x's range)
CASES = [
    ("polygamma(1, x)", "torch.polygamma(1, x)", "float32", (0.1, 10.1)),
    ("polygamma(1, x)", "torch.polygamma(1, x)", "float32", (-20.0, 20.0)),
    ("polygamma(2, x)", "torch.polygamma(2, x)", "float32", (0.1, 10.1)),
    ("polygamma(3, x)", "torch.polygamma(3, x)", "float32", (0.1, 10.1)),
    ("special.polygamma(2, x)", "torch.special.polygamma(2, x)", "float32", (0.1, 0.9)),
    ("polygamma(1, x)", "torch.polygamma(1, x)", "float64", (0.1, 10.1)),
    ("polygamma(1, x)", "torch.polygamma(1, x)", "float64", (-20.0, 20.0)),
    ("erfinv", "torch.erfinv(x)", "float32", (0.1, 0.9)),
    ("erfinv", "torch.erfinv(x)", "float32", (-1.0, 1.0)),
    ("erfinv", "torch.erfinv(x)", "float64", (0.1, 0.9)),
    ("special.ndtri", "torch.special.ndtri(x)", "float64", (0.1, 0.9)),
    ("igamma", "torch.igamma(x, y)", "float32", (0.1, 0.9)),
    ("igammac", "torch.igammac(x, y)", "float32", (0.1, 0.9)),
    # the modified Bessel functions: the sweep's values (K's [0, 2] expansion) and both of K's expansions
    ("special.modified_bessel_i0", "torch.special.modified_bessel_i0(x)", "float32", (0.1, 0.9)),
    ("special.modified_bessel_i1", "torch.special.modified_bessel_i1(x)", "float32", (0.1, 0.9)),
    ("special.modified_bessel_k0", "torch.special.modified_bessel_k0(x)", "float32", (0.1, 0.9)),
    ("special.modified_bessel_k1", "torch.special.modified_bessel_k1(x)", "float32", (0.1, 0.9)),
    (
        "special.scaled_modified_bessel_k0",
        "torch.special.scaled_modified_bessel_k0(x)",
        "float32",
        (0.1, 0.9),
    ),
    (
        "special.scaled_modified_bessel_k1",
        "torch.special.scaled_modified_bessel_k1(x)",
        "float32",
        (0.1, 0.9),
    ),
    ("special.modified_bessel_k0", "torch.special.modified_bessel_k0(x)", "float32", (0.1, 20.0)),
    ("special.modified_bessel_k1", "torch.special.modified_bessel_k1(x)", "float64", (0.1, 20.0)),
    (
        "special.scaled_modified_bessel_k1",
        "torch.special.scaled_modified_bessel_k1(x)",
        "float64",
        (0.1, 20.0),
    ),
    # the Bessel functions of the first and second kind: the sweep's values, and both sides of the switch at 5
    ("special.bessel_j0", "torch.special.bessel_j0(x)", "float32", (0.1, 0.9)),
    ("special.bessel_j1", "torch.special.bessel_j1(x)", "float32", (0.1, 0.9)),
    ("special.bessel_y0", "torch.special.bessel_y0(x)", "float32", (0.1, 0.9)),
    ("special.bessel_y1", "torch.special.bessel_y1(x)", "float32", (0.1, 0.9)),
    ("special.bessel_j0", "torch.special.bessel_j0(x)", "float64", (0.1, 20.0)),
    ("special.bessel_y1", "torch.special.bessel_y1(x)", "float32", (0.1, 20.0)),
    ("special.spherical_bessel_j0", "torch.special.spherical_bessel_j0(x)", "float32", (0.1, 0.9)),
    ("special.spherical_bessel_j0", "torch.special.spherical_bessel_j0(x)", "float64", (-20.0, 20.0)),
    ("special.airy_ai", "torch.special.airy_ai(x)", "float32", (0.1, 0.9)),
    ("special.airy_ai", "torch.special.airy_ai(x)", "float32", (-20.0, 20.0)),
    ("special.airy_ai", "torch.special.airy_ai(x)", "float64", (-20.0, 20.0)),
    # the scaled Bessel I1: the sweep's values ([0, 8]: the first expansion) and both expansions
    ("special.i1e", "torch.special.i1e(x)", "float32", (0.1, 0.9)),
    ("special.i1e", "torch.special.i1e(x)", "float32", (-20.0, 20.0)),
    ("special.i1e", "torch.special.i1e(x)", "float64", (0.1, 0.9)),
    ("digamma", "torch.digamma(x)", "float64", (0.1, 0.9)),
    ("digamma", "torch.digamma(x)", "float64", (0.1, 10.1)),
    ("digamma", "torch.digamma(x)", "float64", (-20.0, 20.0)),
    ("digamma", "torch.digamma(x)", "float32", (0.1, 10.1)),
    # float64 pow (vec/pow64.h) with a tensor exponent (y in (0.1, 0.9)) and a number
    ("pow(x, y)", "torch.pow(x, y)", "float64", (0.1, 10.1)),
    ("pow(x, 2.5)", "torch.pow(x, 2.5)", "float64", (0.1, 10.1)),
]


def child(number, repeat, names):
    import numpy as np
    import torch as real

    import minitorch

    real.set_num_threads(1)
    minitorch.set_num_threads(1)
    out = {
        "caps": [minitorch.backends.cpu.get_cpu_capability(), real.backends.cpu.get_cpu_capability()],
        "rows": [],
    }
    rng = np.random.default_rng(0)
    for name, expr, dtype, (lo, hi) in CASES:
        if names and not any(k in name for k in names):
            continue
        a = rng.uniform(lo, hi, (256, 256)).astype(dtype)
        b = rng.uniform(0.1, 0.9, (256, 256)).astype(dtype)
        fns = {}
        for lib, mod in (("minitorch", minitorch), ("torch", real)):
            env = {"torch": mod, "x": mod.from_numpy(a), "y": mod.from_numpy(b)}
            fns[lib] = eval("lambda: " + expr, env)
            fns[lib]()
        best = {lib: float("inf") for lib in fns}
        for _ in range(repeat):  # alternating, so drift and load hit both alike
            for lib, fn in fns.items():
                t0 = time.thread_time()
                for _ in range(number):
                    fn()
                best[lib] = min(best[lib], (time.thread_time() - t0) / number)
        rows = f"{name} {dtype} [{lo:g}, {hi:g})"
        out["rows"].append([rows, best["minitorch"] * 1e6, best["torch"] * 1e6])
    print(json.dumps(out))


def main():
    capability_main(
        __file__, __doc__, child, header="op, dtype, x in", caps="avx512,avx2", number=20, repeat=15
    )


if __name__ == "__main__":
    main()
