"""Issue 32's out= rows of the non-elementwise ops at one thread beside PyTorch: index_select, gather, tril/triu,
cat and stack writing into a preallocated out of the result's shape (bind_out.cpp's direct path: the kernel
writes into out) against the general path's temporary and copy, which a --baseline build still takes. One
process per CPU capability, each timed in the calling thread's CPU time (min of repeats).

  PYTHONPATH=python /tmp/tv/bin/python benchmarks/bench_out_direct.py [--caps avx2] [--baseline DIR]

The Python running this needs both minitorch and PyTorch importable (the oracle's venv with PYTHONPATH=python)."""

import json
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from _timing import capability_main, thread_cpu_min

# (name, timed expression over torch, x, y [n, m] float32, idx (n reversed), gi [n, m] int64 and o, the out
# of shape key)
CASES = [
    ("index_select(x, 0, idx, out=o)", "torch.index_select(x, 0, idx, out=o)", "o"),
    ("gather(x, 1, gi, out=o)", "torch.gather(x, 1, gi, out=o)", "o"),
    ("triu(x, out=o)", "torch.triu(x, out=o)", "o"),
    ("tril(x, 1, out=o)", "torch.tril(x, 1, out=o)", "o"),
    ("triu(x, out=o[:, 1:]) strided out", "torch.triu(x, out=o[:, 1:])", "w"),
    ("cat([x, y], out=o)", "torch.cat([x, y], out=o)", "c"),
    ("cat([x, y], 1, out=o)", "torch.cat([x, y], 1, out=o)", "c1"),
    ("stack([x, y], out=o)", "torch.stack([x, y], out=o)", "s"),
]
SIZES = [(64, 64), (512, 512)]


def child(number, repeat, only):
    import numpy as np
    import torch as real

    import minitorch

    real.set_num_threads(1)
    minitorch.set_num_threads(1)
    rng = np.random.default_rng(0)
    out = {
        "caps": [minitorch.backends.cpu.get_cpu_capability(), real.backends.cpu.get_cpu_capability()],
        "rows": [],
    }
    for n, m in SIZES:
        xa, ya = (rng.standard_normal((n, m)).astype(np.float32) for _ in range(2))
        gia = rng.integers(0, m, (n, m))
        outs = {"o": (n, m), "w": (n, m + 1), "c": (2 * n, m), "c1": (n, 2 * m), "s": (2, n, m)}
        for name, expr, o in CASES:
            label = f"{name} [{n}, {m}] f32"
            if only and not any(k in label for k in only):
                continue
            t = {}
            for lib, torch in (("minitorch", minitorch), ("torch", real)):
                env = {
                    "torch": torch,
                    "x": torch.from_numpy(xa.copy()),
                    "y": torch.from_numpy(ya.copy()),
                    "idx": torch.arange(n - 1, -1, -1),
                    "gi": torch.from_numpy(gia.copy()),
                }
                env["o"] = torch.empty(outs[o])
                fn = eval("lambda: " + expr, env)
                fn()
                t[lib] = thread_cpu_min(fn, max(1, number * 64 * 64 // (n * m)), repeat)
            out["rows"].append([label, t["minitorch"] * 1e6, t["torch"] * 1e6])
    print(json.dumps(out))


def main():
    capability_main(__file__, __doc__, child, number=400)


if __name__ == "__main__":
    main()
