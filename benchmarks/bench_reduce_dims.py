"""Issue 32's reductions beside PyTorch: sum/prod/amax/amin along the outer dim (dim 0 of 2-D and 3-D tensors,
keepdim), a middle dim and the rows, float32 and float64; topk with small and large k (sorted or not, largest
or smallest); layer_norm rows of 64; median of all values; prod along 1024-long rows. One process per CPU
capability; rows marked "1 thr" run at set_num_threads(1) both and are timed in the calling thread's CPU time
(min of repeats), rows marked "2 thr" at two threads both, in wall time (min of repeats: the second thread's
work is not in the caller's CPU time).

  PYTHONPATH=python /tmp/tv/bin/python benchmarks/bench_reduce_dims.py [--caps avx2] [--baseline DIR] [-k ...]

The Python running this needs both minitorch and PyTorch importable (the oracle's venv with PYTHONPATH=python)."""

import json
import os
import sys
import time
import timeit

sys.path.insert(0, os.path.dirname(__file__))
from _timing import capability_main, thread_cpu_min

# (name, timed expression over torch and the inputs, input key, threads). Inputs: x [512, 512] standard
# normal, u [512, 512] uniform in [0.5, 1.5] (products neither overflow nor underflow: PyTorch's float
# accumulator would meet denormals), y [32, 128, 64], t [64, 100], s [16, 4096], g [4096, 64], m [256, 256]
# normal, w [1024, 1024] uniform as u, c [64, 2048, 1, 1] and n [64, 2048, 1] normal, each in the row's dtype
# (integer rows: the values rounded to integers; their products wrap, as both libraries' do). A fourth field names the row's dtypes
# when they are not DTYPES.
CASES = [
    ("sum(x, 0)", "torch.sum(x, 0)", 1),
    ("sum(x, 0)", "torch.sum(x, 0)", 2),
    ("prod(u, 0)", "torch.prod(u, 0)", 1),
    ("prod(u, 0)", "torch.prod(u, 0)", 2),
    ("amax(x, 0)", "torch.amax(x, 0)", 1),
    ("amax(x, 0)", "torch.amax(x, 0)", 2),
    ("amin(x, 0)", "torch.amin(x, 0)", 1),
    ("mean(x, 0)", "torch.mean(x, 0)", 1),
    ("sum(x, 0, keepdim=True)", "torch.sum(x, 0, keepdim=True)", 1),
    ("sum(x[:, ::2], 0) strided", "torch.sum(x[:, ::2], 0)", 1),
    ("sum(y, 0) [32, 128, 64]", "torch.sum(y, 0)", 1),
    ("amax(y, 0, keepdim=True) [32, 128, 64]", "torch.amax(y, 0, keepdim=True)", 1),
    ("sum(y, 1) [32, 128, 64]", "torch.sum(y, 1)", 1),
    ("prod(u, 1)", "torch.prod(u, 1)", 1),
    ("amax(x, 1)", "torch.amax(x, 1)", 1),
    ("amin(x, 1)", "torch.amin(x, 1)", 1),
    ("topk(t, 5) [64, 100]", "torch.topk(t, 5)", 1),
    ("topk(t, 5, sorted=False) [64, 100]", "torch.topk(t, 5, sorted=False)", 1),
    ("topk(t, 5, largest=False) [64, 100]", "torch.topk(t, 5, largest=False)", 1),
    ("topk(s, 16) [16, 4096]", "torch.topk(s, 16)", 1),
    ("topk(s, 512) [16, 4096]", "torch.topk(s, 512)", 1),
    ("topk(s, 512, sorted=False) [16, 4096]", "torch.topk(s, 512, sorted=False)", 1),
    ("topk(s, 16) [16, 4096]", "torch.topk(s, 16)", 2),
    ("layer_norm(g, (64,)) [4096, 64]", "torch.nn.functional.layer_norm(g, (64,))", 1),
    ("median(m) all values [256, 256]", "torch.median(m)", 1),
    ("prod(w, 1) [1024, 1024]", "torch.prod(w, 1)", 1),
    ("sum(c, (2, 3)) [64, 2048, 1, 1]", "torch.sum(c, (2, 3))", 1),
    ("mean(c, (2, 3)) [64, 2048, 1, 1]", "torch.mean(c, (2, 3))", 1),
    ("amax(c, (2, 3)) [64, 2048, 1, 1]", "torch.amax(c, (2, 3))", 1),
    ("sum(c, (2, 3), keepdim=True) [64, 2048, 1, 1]", "torch.sum(c, (2, 3), keepdim=True)", 1),
    ("sum(n, 2) [64, 2048, 1]", "torch.sum(n, 2)", 1),
    ("prod(n, 2) [64, 2048, 1]", "torch.prod(n, 2)", 1),
    ("sum(c, (2, 3)) [64, 2048, 1, 1]", "torch.sum(c, (2, 3))", 1, ("int32", "int64")),
    ("prod(w) [1024, 1024]", "torch.prod(w)", 1, ("int64",)),
    ("sum(w) [1024, 1024]", "torch.sum(w)", 1, ("int64",)),
    ("sum(w, 1) [1024, 1024]", "torch.sum(w, 1)", 1, ("int32", "int64")),
    ("prod(w, 1) [1024, 1024]", "torch.prod(w, 1)", 1, ("int64",)),
]
DTYPES = ["float32", "float64"]


def wall_min(fn, number, repeat):
    """fn's best time per call in wall time (several threads work for it)."""
    return min(timeit.repeat(fn, number=number, repeat=repeat, timer=time.perf_counter)) / number


def child(number, repeat, only):
    import numpy as np
    import torch as real

    import minitorch

    rng = np.random.default_rng(0)
    arrays = {
        "x": rng.standard_normal((512, 512)),
        "u": rng.uniform(0.5, 1.5, (512, 512)),
        "y": rng.standard_normal((32, 128, 64)),
        "t": rng.standard_normal((64, 100)),
        "s": rng.standard_normal((16, 4096)),
        "g": rng.standard_normal((4096, 64)),
        "m": rng.standard_normal((256, 256)),
        "w": rng.uniform(0.5, 1.5, (1024, 1024)),
        "c": rng.standard_normal((64, 2048, 1, 1)) * 8,
        "n": rng.standard_normal((64, 2048, 1)) * 8,
    }
    out = {
        "caps": [minitorch.backends.cpu.get_cpu_capability(), real.backends.cpu.get_cpu_capability()],
        "rows": [],
    }
    short = {"float32": "f32", "float64": "f64", "int32": "i32", "int64": "i64"}
    for dt in ["float32", "float64", "int32", "int64"]:
        for name, expr, threads, *dts in CASES:
            if dt not in (dts[0] if dts else DTYPES):
                continue
            label = f"{name} {short[dt]} {threads} thr"
            if only and not any(k in label for k in only):
                continue
            t = {}
            for lib, torch in (("minitorch", minitorch), ("torch", real)):
                real.set_num_threads(threads)
                minitorch.set_num_threads(threads)
                env = {
                    k: torch.from_numpy((np.rint(a) if "int" in dt else a).astype(dt))
                    for k, a in arrays.items()
                }
                env["torch"] = torch
                fn = eval("lambda: " + expr, env)
                fn()
                timer = thread_cpu_min if threads == 1 else wall_min
                t[lib] = timer(fn, number, repeat)
            out["rows"].append([label, t["minitorch"] * 1e6, t["torch"] * 1e6])
    print(json.dumps(out))


def main():
    capability_main(__file__, __doc__, child, number=100)


if __name__ == "__main__":
    main()
