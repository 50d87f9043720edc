"""Issue 32's rows of the twenty-fifth session at one thread beside PyTorch: max pooling without indices (padding,
strides, 1-D and 2-D), float32 layer_norm / group_norm statistics (rows of 64, 121, 768, 4099), row copies of
64004 bytes, which glibc's memcpy moves slowly at odd offsets (index_select, advanced indexing, embedding,
index_put, triu; outputs preallocated where PyTorch takes out=, so page faults do not hide the copies), and
float32 i1e. One process per CPU capability, each timed in the calling thread's CPU time (min of
repeats), so a loaded machine's waits enter neither column.

  PYTHONPATH=python /tmp/tv/bin/python benchmarks/bench_pool_norm_rows.py [--caps avx2,avx512] [--baseline DIR]

The Python running this needs both minitorch and PyTorch importable (the oracle's venv with PYTHONPATH=python).
MINITORCH_CPU_CAPABILITY and ATEN_CPU_CAPABILITY are set for each child."""

import json
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from _timing import capability_main, thread_cpu_min

# (name, input array, whether the input requires grad, timed expression over torch, F, x and the extra operands)
CASES = [
    ("F.max_pool1d(x, 3, 1, 1) [8, 32, 256] f32", "p32", False, "F.max_pool1d(x, 3, 1, 1)"),
    ("F.max_pool1d(x, 3, 1, 1) [8, 32, 256] f64", "p64", False, "F.max_pool1d(x, 3, 1, 1)"),
    ("F.max_pool1d(x, 3, 2, 1) [8, 32, 256] f32", "p32", False, "F.max_pool1d(x, 3, 2, 1)"),
    ("F.max_pool1d(x, 5, 1, 2) [8, 32, 256] f32", "p32", False, "F.max_pool1d(x, 5, 1, 2)"),
    ("F.max_pool1d(x, 3) [8, 32, 256] f32", "p32", False, "F.max_pool1d(x, 3)"),
    ("F.max_pool1d(x, 3, 1) [8, 32, 256] f32", "p32", False, "F.max_pool1d(x, 3, 1)"),
    ("F.max_pool1d(x, 2) [8, 32, 256] f64", "p64", False, "F.max_pool1d(x, 2)"),
    (
        "F.max_pool1d(x, 3, 1, 1) fwd+bwd [8, 32, 256] f32",
        "p32",
        True,
        "G(F.max_pool1d(x, 3, 1, 1).sum(), x)",
    ),
    ("F.max_pool2d(x, 3, 1, 1) [8, 16, 32, 32] f32", "q32", False, "F.max_pool2d(x, 3, 1, 1)"),
    ("F.max_pool2d(x, 3, 2, 1) [8, 16, 32, 32] f32", "q32", False, "F.max_pool2d(x, 3, 2, 1)"),
    ("F.max_pool2d(x, 2) [8, 16, 32, 32] f32", "q32", False, "F.max_pool2d(x, 2)"),
    ("F.max_pool2d(x, 3, 2, 1) [8, 16, 32, 32] f64", "q64", False, "F.max_pool2d(x, 3, 2, 1)"),
    ("nn.GroupNorm(16, 16) [32, 16, 11, 11] f32", "g32", False, "gn(x)"),
    ("F.group_norm(x, 8) [16, 64, 16, 16] f32", "h32", False, "F.group_norm(x, 8)"),
    ("F.layer_norm rows of 64 [1024, 64] f32", "r64", False, "F.layer_norm(x, (64,))"),
    ("F.layer_norm rows of 121 [512, 121] f32", "r121", False, "F.layer_norm(x, (121,))"),
    ("F.layer_norm rows of 768 [85, 768] f32", "r768", False, "F.layer_norm(x, (768,), w768, b768)"),
    ("F.layer_norm rows of 4099 [16, 4099] f32", "r4099", False, "F.layer_norm(x, (4099,))"),
    ("F.layer_norm rows of 64, mean 1e4 [1024, 64] f32", "m64", False, "F.layer_norm(x, (64,))"),
    (
        "index_select(x, 0, i, out=o) rows of 16001 [16, 16001] f32",
        "c32",
        False,
        "torch.index_select(x, 0, idx, out=o)",
    ),
    ("x[i] rows of 16001 [16, 16001] f32", "c32", False, "x[idx]"),
    ("F.embedding(i, w) rows of 16001 [16, 16001] f32", "c32", False, "F.embedding(idx, x)"),
    ("x.index_put_((i,), v) rows of 16001 [16, 16001] f32", "c32", False, "x.index_put_((idx,), vals)"),
    (
        "torch.triu(x[:, 1:], out=o[:, 1:]) [16, 16001] f32",
        "c32",
        False,
        "torch.triu(x[:, 1:], out=o[:, 1:])",
    ),
    ("torch.stack 16 x [33, 100] f32", "s32", False, "torch.stack([x] * 16)"),
    ("x.repeat(2, 3) [100, 333] f32", "t32", False, "x.repeat(2, 3)"),
    ("torch.special.i1e [256, 256] f32 in [-20, 20)", "i32", False, "torch.special.i1e(x)"),
]


def child(number, repeat, only):
    import numpy as np
    import torch as real

    import minitorch

    real.set_num_threads(1)
    minitorch.set_num_threads(1)
    rng = np.random.default_rng(0)
    arrays = {}
    for name, shape in (
        ("p", (8, 32, 256)),
        ("q", (8, 16, 32, 32)),
        ("g", (32, 16, 11, 11)),
        ("h", (16, 64, 16, 16)),
        ("r64", (1024, 64)),
        ("r121", (512, 121)),
        ("r768", (85, 768)),
        ("r4099", (16, 4099)),
        ("c", (16, 16001)),
        ("s", (33, 100)),
        ("t", (100, 333)),
    ):
        v = rng.standard_normal(shape)
        if name.startswith("r"):
            arrays[name] = v.astype(np.float32)
        else:
            arrays[name + "64"], arrays[name + "32"] = v, v.astype(np.float32)
    arrays["m64"] = (rng.standard_normal((1024, 64)) * 0.1 + 1e4).astype(np.float32)
    arrays["i32"] = rng.uniform(-20, 20, (256, 256)).astype(np.float32)
    idx = rng.integers(0, 16, 16)
    vals = rng.standard_normal((16, 16001)).astype(np.float32)
    w768 = rng.standard_normal(768).astype(np.float32)
    libs = {"minitorch": minitorch, "torch": real}
    out = {
        "caps": [minitorch.backends.cpu.get_cpu_capability(), real.backends.cpu.get_cpu_capability()],
        "rows": [],
    }
    for name, arr, grad, expr in CASES:
        if only and not any(o in name for o in only):
            continue
        t = {}
        for lib, torch in libs.items():
            x = torch.from_numpy(arrays[arr].copy()).requires_grad_(grad)
            env = {
                "torch": torch,
                "F": torch.nn.functional,
                "G": torch.autograd.grad,
                "x": x,
                "gn": torch.nn.GroupNorm(16, 16),
                "idx": torch.from_numpy(idx),
                "vals": torch.from_numpy(vals),
                "o": torch.empty(16, 16001),
                "w768": torch.from_numpy(w768),
                "b768": torch.from_numpy(w768[::-1].copy()),
            }
            fn = eval("lambda: " + expr, env)
            fn()
            t[lib] = thread_cpu_min(fn, number, repeat)
        out["rows"].append([name, t["minitorch"] * 1e6, t["torch"] * 1e6])
    print(json.dumps(out))


def main():
    capability_main(__file__, __doc__, child)


if __name__ == "__main__":
    main()
