"""Checkpoints and interop: minitorch.save/load beside numpy.savez/load (and torch.save/load when installed),
and the per-call cost of DLPack exchange beside NumPy's own (and PyTorch's), in one run. A report, not a test.

    PYTHONPATH=python python benchmarks/bench_io.py
"""

import io
import statistics
import time

import numpy as np

import minitorch

try:
    import torch as real_torch
except ImportError:
    real_torch = None


def median_time(fn, repeats=7, number=1):
    fn()
    out = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        for _ in range(number):
            fn()
        out.append((time.perf_counter() - t0) / number)
    return statistics.median(out)


def fmt(s):
    return f"{s * 1e6:.2f} us" if s < 1e-3 else f"{s * 1e3:.2f} ms"


def main():
    rng = np.random.default_rng(0)
    # a state dict of ~64 MiB: a few large weights and many small ones, as a model has
    arrays = {f"layer{i}.weight": rng.standard_normal((1024, 1024)).astype(np.float32) for i in range(16)}
    arrays.update({f"layer{i}.bias": rng.standard_normal(1024).astype(np.float32) for i in range(16)})
    nbytes = sum(a.nbytes for a in arrays.values())
    mt_sd = {k: minitorch.from_numpy(v) for k, v in arrays.items()}
    rows = []

    def save_load_mt():
        buf = io.BytesIO()
        minitorch.save(mt_sd, buf)
        buf.seek(0)
        return minitorch.load(buf)

    def save_load_np():
        buf = io.BytesIO()
        np.savez(buf, **arrays)
        buf.seek(0)
        with np.load(buf) as z:
            return {k: z[k] for k in z.files}

    cases = {"numpy (savez/load)": save_load_np, "minitorch": save_load_mt}
    if real_torch is not None:
        pt_sd = {k: real_torch.from_numpy(v) for k, v in arrays.items()}

        def save_load_pt():
            buf = io.BytesIO()
            real_torch.save(pt_sd, buf)
            buf.seek(0)
            return real_torch.load(buf)

        cases["torch"] = save_load_pt
    for name, fn in cases.items():
        t = median_time(fn, repeats=5)
        rows.append(
            (f"save+load {nbytes / 2**20:.0f} MiB state dict", name, t, f"{2 * nbytes / t / 1e9:.2f} GB/s")
        )

    x = np.ones((64, 64), dtype=np.float32)
    t_mt = minitorch.ones(64, 64)
    dl = {
        "numpy from numpy": lambda: np.from_dlpack(x),
        "minitorch from numpy": lambda: minitorch.from_dlpack(x),
        "numpy from minitorch": lambda: np.from_dlpack(t_mt),
        "minitorch from minitorch": lambda: minitorch.from_dlpack(t_mt),
    }
    if real_torch is not None:
        t_pt = real_torch.ones(64, 64)
        dl["torch from numpy"] = lambda: real_torch.from_dlpack(x)
        dl["torch from minitorch"] = lambda: real_torch.from_dlpack(t_mt)
        dl["minitorch from torch"] = lambda: minitorch.from_dlpack(t_pt)
    for name, fn in dl.items():
        rows.append(("DLPack exchange, per call", name, median_time(fn, number=2000), ""))

    print(
        f"minitorch {minitorch.__version__}; numpy {np.__version__}; "
        f"torch {real_torch.__version__ if real_torch else 'absent'}; median of repeats\n"
    )
    print("| case | library | time | rate |")
    print("|---|---|---|---|")
    for case, lib, t, rate in rows:
        print(f"| {case} | {lib} | {fmt(t)} | {rate} |")


if __name__ == "__main__":
    main()
