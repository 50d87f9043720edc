"""The float32 unary rows of issue 32 (log, log2, log10, asin, acos, exp2, log1p, logit, gelu, softplus, logsigmoid,
nan_to_num) beside PyTorch in one process per CPU capability, timed in the calling thread's CPU time (min of
repeats), so a loaded machine's waits do not enter either column; one thread, 256x256 values in (0.1, 0.9) as
bench_sweep.py's medium float32 rows.

  PYTHONPATH=python /tmp/tv/bin/python benchmarks/bench_unary_f32.py [--caps avx2,avx512] [--number 100]

The Python running this needs both minitorch and PyTorch importable (the oracle's venv with PYTHONPATH=python).
MINITORCH_CPU_CAPABILITY and ATEN_CPU_CAPABILITY are set for each child, which prints what each library took."""

import json
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from _timing import capability_main, thread_cpu_min

CASES = [
    ("log", "torch.log(x)"),
    ("log2", "torch.log2(x)"),
    ("log10", "torch.log10(x)"),
    ("asin", "torch.asin(x)"),
    ("acos", "torch.acos(x)"),
    ("exp2", "torch.exp2(x)"),
    ("log1p", "torch.log1p(x)"),
    ("logit", "torch.logit(x)"),
    ("F.gelu", "F.gelu(x)"),
    ("F.softplus", "F.softplus(x)"),
    ("F.logsigmoid", "F.logsigmoid(x)"),
    ("nan_to_num", "torch.nan_to_num(x)"),
    ("exp", "torch.exp(x)"),
]


def child(number, repeat, only):
    import numpy as np
    import torch as real

    import minitorch

    real.set_num_threads(1)
    minitorch.set_num_threads(1)
    a = np.random.default_rng(0).uniform(0.1, 0.9, (256, 256)).astype(np.float32)
    libs = {
        "minitorch": (minitorch, minitorch.nn.functional, minitorch.from_numpy(a)),
        "torch": (real, real.nn.functional, real.from_numpy(a)),
    }
    out = {
        "caps": [minitorch.backends.cpu.get_cpu_capability(), real.backends.cpu.get_cpu_capability()],
        "rows": [],
    }
    for name, expr in CASES:
        if only and not any(o in name for o in only):
            continue
        t = {}
        for lib, (torch, F, x) in libs.items():
            fn = eval("lambda: " + expr, {"torch": torch, "F": F, "x": x})
            fn()
            t[lib] = thread_cpu_min(fn, number, repeat)
        out["rows"].append([name, t["minitorch"] * 1e6, t["torch"] * 1e6])
    print(json.dumps(out))


def main():
    capability_main(__file__, __doc__, child)


if __name__ == "__main__":
    main()
