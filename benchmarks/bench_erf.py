"""erf and gelu (forward, and forward+backward through gelu's one-pass gradient) beside PyTorch, float32 and float64,
in one process per CPU capability (default included), timed in the calling thread's CPU time (min of repeats), so a
loaded machine's waits enter neither column; one thread.

  PYTHONPATH=python /tmp/tv/bin/python benchmarks/bench_erf.py [--caps avx512,avx2,default] [--number 20]

The Python running this needs both minitorch and PyTorch importable (the oracle's venv with PYTHONPATH=python).
MINITORCH_CPU_CAPABILITY and ATEN_CPU_CAPABILITY are set for each child (PyTorch's erf is MKL's vsErf/vdErf at
every capability of its wheel; its gelu is its own vectorized formula, compiled per capability)."""

import json
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from _timing import capability_main, thread_cpu_min

# (name, input array, whether the input requires grad, timed expression over torch, F and x)
CASES = [
    ("erf [256, 256] f32 in (-8, 8)", "a32", False, "torch.erf(x)"),
    ("erf [256, 256] f32 in (-3, 3)", "c32", False, "torch.erf(x)"),
    ("erf [256, 256] f32 in (-0.9, 0.9)", "s32", False, "torch.erf(x)"),
    ("erf [1024, 1024] f32 in (-8, 8)", "b32", False, "torch.erf(x)"),
    ("erf [256, 256] f64 in (-8, 8)", "a64", False, "torch.erf(x)"),
    ("erf [256, 256] f64 in (-3, 3)", "c64", False, "torch.erf(x)"),
    ("erf [256, 256] f64 in (-0.9, 0.9)", "s64", False, "torch.erf(x)"),
    ("erf [1024, 1024] f64 in (-8, 8)", "b64", False, "torch.erf(x)"),
    ("F.gelu [256, 256] f32", "a32", False, "F.gelu(x)"),
    ("F.gelu [256, 256] f64", "a64", False, "F.gelu(x)"),
    ("F.gelu [1024, 1024] f32", "b32", False, "F.gelu(x)"),
    ("F.gelu fwd+bwd [256, 256] f32", "a32", True, "torch.autograd.grad(F.gelu(x).sum(), x)"),
    ("F.gelu fwd+bwd [256, 256] f64", "a64", True, "torch.autograd.grad(F.gelu(x).sum(), x)"),
    ("F.gelu fwd+bwd [1024, 1024] f32", "b32", True, "torch.autograd.grad(F.gelu(x).sum(), x)"),
]


def child(number, repeat, only):
    import numpy as np
    import torch as real

    import minitorch

    real.set_num_threads(1)
    minitorch.set_num_threads(1)
    rng = np.random.default_rng(0)
    arrays = {}
    for name, lim, shape in (
        ("a", 8, (256, 256)),
        ("c", 3, (256, 256)),
        ("s", 0.9, (256, 256)),
        ("b", 8, (1024, 1024)),
    ):
        v = rng.uniform(-lim, lim, shape)
        arrays[name + "64"], arrays[name + "32"] = v, v.astype(np.float32)
    libs = {"minitorch": (minitorch, minitorch.nn.functional), "torch": (real, real.nn.functional)}
    out = {
        "caps": [minitorch.backends.cpu.get_cpu_capability(), real.backends.cpu.get_cpu_capability()],
        "rows": [],
    }
    for name, arr, grad, expr in CASES:
        if only and not any(o in name for o in only):
            continue
        t = {}
        big = "1024" in name
        for lib, (torch, F) in libs.items():
            x = torch.from_numpy(arrays[arr]).requires_grad_(grad)
            fn = eval("lambda: " + expr, {"torch": torch, "F": F, "x": x})
            fn()
            t[lib] = thread_cpu_min(fn, max(1, number // 8) if big else number, repeat)
        out["rows"].append([name, t["minitorch"] * 1e6, t["torch"] * 1e6])
    print(json.dumps(out))


def main():
    capability_main(__file__, __doc__, child, caps="avx512,avx2,default", number=40, repeat=7)


if __name__ == "__main__":
    main()
