"""Issue 32's last rows below 1 at one thread beside PyTorch (logsigmoid forward and backward, nan_to_num, pdist with
a general p, unique_consecutive of a small 2-D tensor, silu, gelu, elu/celu/selu forward and backward), one process per CPU capability, each timed in the calling
thread's CPU time (min of repeats), so a loaded machine's waits enter neither column.

  PYTHONPATH=python /tmp/tv/bin/python benchmarks/bench_act_rows.py [--caps avx2,avx512] [--number 100]

The Python running this needs both minitorch and PyTorch importable (the oracle's venv with PYTHONPATH=python).
MINITORCH_CPU_CAPABILITY and ATEN_CPU_CAPABILITY are set for each child."""

import json
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from _timing import capability_main, thread_cpu_min

# (name, input array, whether the input requires grad, timed expression over torch, F and x)
CASES = [
    ("F.logsigmoid [256, 256] f32", "a32", False, "F.logsigmoid(x)"),
    ("F.logsigmoid [256, 256] f64", "a64", False, "F.logsigmoid(x)"),
    ("F.logsigmoid fwd+bwd [256, 256] f32", "a32", True, "torch.autograd.grad(F.logsigmoid(x).sum(), x)"),
    ("nan_to_num [256, 256] f32", "u32", False, "torch.nan_to_num(x)"),
    ("nan_to_num [256, 256] f64", "u64", False, "torch.nan_to_num(x)"),
    ("nan_to_num [256, 256] f32, 1% nan/inf", "w32", False, "torch.nan_to_num(x)"),
    ("nan_to_num [8, 8] f32", "s32", False, "torch.nan_to_num(x)"),
    ("pdist [64, 64] f64 p=1.5", "p64", False, "torch.pdist(x, 1.5)"),
    ("pdist [64, 64] f32 p=1.5", "p32", False, "torch.pdist(x, 1.5)"),
    ("pdist [64, 64] f64 p=2.5", "p64", False, "torch.pdist(x, 2.5)"),
    ("unique_consecutive [8, 8] f32", "q32", False, "torch.unique_consecutive(x)"),
    ("Tensor.unique_consecutive [8, 8] f64", "q64", False, "x.unique_consecutive()"),
    ("F.silu [256, 256] f64", "a64", False, "F.silu(x)"),
    ("F.silu [256, 256] f32", "a32", False, "F.silu(x)"),
    ("F.silu fwd+bwd [256, 256] f64", "a64", True, "torch.autograd.grad(F.silu(x).sum(), x)"),
    ("F.gelu [256, 256] f32", "a32", False, "F.gelu(x)"),
    ("F.gelu [256, 256] f32 in (0.1, 0.9)", "u32", False, "F.gelu(x)"),
    ("F.gelu [256, 256] f64", "a64", False, "F.gelu(x)"),
    ("F.gelu fwd+bwd [256, 256] f32", "a32", True, "torch.autograd.grad(F.gelu(x).sum(), x)"),
    ("F.elu [256, 256] f64", "a64", False, "F.elu(x)"),
    ("F.celu [256, 256] f64", "a64", False, "F.celu(x)"),
    ("F.selu [256, 256] f64", "a64", False, "F.selu(x)"),
    ("F.elu [256, 256] f32", "a32", False, "F.elu(x)"),
    ("F.elu fwd+bwd [256, 256] f64", "a64", True, "torch.autograd.grad(F.elu(x).sum(), x)"),
    ("F.selu fwd+bwd [256, 256] f64", "a64", True, "torch.autograd.grad(F.selu(x).sum(), x)"),
    ("pdist [64, 64] f32 p=2.5", "p32", False, "torch.pdist(x, 2.5)"),
    ("F.silu [1024, 1024] f64", "b64", False, "F.silu(x)"),
    ("F.gelu [1024, 1024] f32", "b32", False, "F.gelu(x)"),
    ("F.elu [1024, 1024] f64", "b64", False, "F.elu(x)"),
    ("F.celu [1024, 1024] f64", "b64", False, "F.celu(x)"),
    ("F.selu [1024, 1024] f64", "b64", False, "F.selu(x)"),
    ("F.gelu fwd+bwd [1024, 1024] f32", "b32", True, "torch.autograd.grad(F.gelu(x).sum(), x)"),
    ("F.silu fwd+bwd [1024, 1024] f64", "b64", True, "torch.autograd.grad(F.silu(x).sum(), x)"),
    ("F.elu fwd+bwd [1024, 1024] f64", "b64", True, "torch.autograd.grad(F.elu(x).sum(), x)"),
]


def child(number, repeat, only):
    import numpy as np
    import torch as real

    import minitorch

    real.set_num_threads(1)
    minitorch.set_num_threads(1)
    rng = np.random.default_rng(0)
    a64 = rng.uniform(-8, 8, (256, 256))
    b64 = rng.uniform(-8, 8, (1024, 1024))
    u64 = rng.uniform(0.1, 0.9, (256, 256))
    w64 = u64.copy()
    flat = w64.reshape(-1)
    k = rng.choice(flat.size, flat.size // 100, replace=False)
    flat[k[0::3]], flat[k[1::3]], flat[k[2::3]] = np.nan, np.inf, -np.inf
    p64 = rng.standard_normal((64, 64))
    q64 = np.floor(rng.uniform(0, 3, (8, 8)))
    arrays = {}
    s64 = u64[:8, :8].copy()
    for name, v in (("a", a64), ("u", u64), ("w", w64), ("p", p64), ("q", q64), ("s", s64), ("b", b64)):
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
        for lib, (torch, F) in libs.items():
            x = torch.from_numpy(arrays[arr].copy()).requires_grad_(grad)
            fn = eval("lambda: " + expr, {"torch": torch, "F": F, "x": x})
            fn()
            t[lib] = thread_cpu_min(fn, number, repeat)
        out["rows"].append([name, t["minitorch"] * 1e6, t["torch"] * 1e6])
    print(json.dumps(out))


def main():
    capability_main(__file__, __doc__, child)


if __name__ == "__main__":
    main()
