"""F.grid_sample on the CPU beside PyTorch per CPU capability, the grid made once (the sampling kernel's own cost):
one channel (the spatial transformer tutorial's MNIST batch, every padding, bilinear and nearest, the backward) and
three channels, one process per capability, each row timed in the calling thread's CPU time (min of repeats).

  PYTHONPATH=python /tmp/tv/bin/python benchmarks/bench_grid_sample_cpu.py [--caps avx2,avx512,default]

The Python running this needs both minitorch and PyTorch importable (the oracle's venv with PYTHONPATH=python).
MINITORCH_CPU_CAPABILITY and ATEN_CPU_CAPABILITY are set for each child."""

import functools
import json
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from _timing import capability_main, thread_cpu_min

# (name, input shape, mode, padding, align_corners, backward)
CASES = [
    ("bilinear zeros 64x1x28x28", (64, 1, 28, 28), "bilinear", "zeros", False, False),
    ("bilinear border 64x1x28x28", (64, 1, 28, 28), "bilinear", "border", False, False),
    ("bilinear reflection 64x1x28x28", (64, 1, 28, 28), "bilinear", "reflection", False, False),
    ("bilinear zeros align 64x1x28x28 f64", (64, 1, 28, 28), "bilinear", "zeros", True, False),
    ("nearest zeros 64x1x28x28", (64, 1, 28, 28), "nearest", "zeros", False, False),
    ("bilinear zeros fwd+bwd 64x1x28x28", (64, 1, 28, 28), "bilinear", "zeros", False, True),
    ("bilinear zeros 8x3x128x128", (8, 3, 128, 128), "bilinear", "zeros", False, False),
]


def child(number, repeat, only):
    import numpy as np
    import torch as real

    import minitorch

    real.set_num_threads(1)
    minitorch.set_num_threads(1)
    libs = {"minitorch": minitorch, "torch": real}
    out = {
        "caps": [minitorch.backends.cpu.get_cpu_capability(), real.backends.cpu.get_cpu_capability()],
        "rows": [],
    }
    for name, shape, mode, pad, align, backward in CASES:
        if only and not any(o in name for o in only):
            continue
        dtype = np.float64 if name.endswith("f64") else np.float32
        rng = np.random.default_rng(0)
        a = rng.standard_normal(shape).astype(dtype)
        theta = (np.eye(2, 3)[None] + 0.1 * rng.standard_normal((shape[0], 2, 3))).astype(dtype)
        t = {}
        for lib, L in libs.items():
            F = L.nn.functional
            x = L.from_numpy(a.copy()).requires_grad_(backward)
            g = F.affine_grid(L.from_numpy(theta), shape, align_corners=align)

            sample = functools.partial(F.grid_sample, mode=mode, padding_mode=pad, align_corners=align)

            def fn(sample=sample, x=x, g=g, L=L, bw=backward):
                y = sample(x, g)
                return L.autograd.grad(y.sum(), x) if bw else y

            fn()
            t[lib] = thread_cpu_min(fn, number, repeat)
        out["rows"].append([name, t["minitorch"] * 1e6, t["torch"] * 1e6])
    print(json.dumps(out))


def main():
    capability_main(__file__, __doc__, child, caps="avx512,avx2,default")


if __name__ == "__main__":
    main()
