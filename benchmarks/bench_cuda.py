"""GPU benchmarks of minitorch against PyTorch in one run, printed as a Markdown table.

A report, not a test (benchmarks/README.md has the protocol). Device time comes from CUDA events around a
batch of calls, after warm-up, as the median of repeats interleaved between the libraries; host overhead
comes from perf_counter. Inputs hold identical values in both libraries. Usage (GPU machine):
    python benchmarks/bench_cuda.py [--quick]
"""

import argparse
import statistics
import sys
import time

import numpy as np

import minitorch

try:
    import torch as real_torch
except ImportError:
    real_torch = None

LIBS = {"minitorch": minitorch}
if real_torch is not None and real_torch.cuda.is_available():
    LIBS["torch"] = real_torch


def device_time(lib, fn, reps, min_ms=2.0):
    """Median seconds per call of fn on the GPU: calls are batched so that one timed batch lasts >= min_ms."""
    for _ in range(3):
        fn()
    lib.cuda.synchronize()
    s, e = lib.cuda.Event(enable_timing=True), lib.cuda.Event(enable_timing=True)
    s.record()
    fn()
    e.record()
    e.synchronize()
    per = max(s.elapsed_time(e), 1e-3)
    batch = max(1, min(1000, int(min_ms / per)))
    out = []
    for _ in range(reps):
        s.record()
        for _ in range(batch):
            fn()
        e.record()
        e.synchronize()
        out.append(s.elapsed_time(e) / 1e3 / batch)
    return out


def interleaved(cases, reps):
    """cases: {lib: fn}. Repeats alternate between libraries so clock drift hits both alike."""
    samples = {k: [] for k in cases}
    for _ in range(reps):
        for k, (lib, fn) in cases.items():
            samples[k] += device_time(lib, fn, 1)
    return {k: statistics.median(v) for k, v in samples.items()}


def host_time(lib, fn, n, sync_each):
    for _ in range(50):
        fn()
    lib.cuda.synchronize()
    t0 = time.perf_counter()
    for _ in range(n):
        fn()
        if sync_each:
            lib.cuda.synchronize()
    lib.cuda.synchronize()
    return (time.perf_counter() - t0) / n


def fmt(s):
    return f"{s * 1e6:.1f} us" if s < 1e-3 else f"{s * 1e3:.3f} ms"


def both(np_array, dtype_name=None):
    """The same values as a CUDA tensor of each library."""
    out = {}
    for name, lib in LIBS.items():
        t = lib.tensor(np_array).cuda() if name == "minitorch" else lib.from_numpy(np_array).cuda()
        if dtype_name:
            t = t.to(getattr(lib, dtype_name))
        out[name] = t
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="smaller sizes and fewer repeats")
    args = ap.parse_args()
    if not minitorch.cuda.is_available():
        print("no GPU: nothing to benchmark")
        return 0
    reps = 5 if args.quick else 9
    rng = np.random.default_rng(0)
    rows = []  # (case, {lib: seconds}, rate_fn or None)
    libs = list(LIBS)

    def row(name, times, work=None, unit=None):
        rows.append((name, times, work, unit))

    # ---- per-op host overhead on tiny tensors
    tiny = both(rng.standard_normal(1).astype(np.float32))
    tiny2 = both(rng.standard_normal(1).astype(np.float32))
    for sync_each in (False, True):
        t = {k: host_time(LIBS[k], lambda k=k: tiny[k] + tiny2[k], 2000, sync_each) for k in libs}
        row(f"a + b, 1 el, host per op ({'sync each' if sync_each else 'no sync'})", t)

    # ---- bandwidth: device copy as the ceiling, then elementwise
    n = 1 << (24 if args.quick else 26)
    x = both(rng.standard_normal(n).astype(np.float32))
    y = both(rng.standard_normal(n).astype(np.float32))
    dst = {k: x[k].clone() for k in libs}
    t = interleaved({k: (LIBS[k], lambda k=k: dst[k].copy_(x[k])) for k in libs}, reps)
    row(f"device copy 2^{n.bit_length() - 1} f32", t, 8 * n, "GB/s")
    copy_bw = {k: 8 * n / v for k, v in t.items()}
    for dt, item in (("float32", 4), ("bfloat16", 2)):
        a = {k: x[k].to(getattr(LIBS[k], dt)) for k in libs}
        b = {k: y[k].to(getattr(LIBS[k], dt)) for k in libs}
        for op in ("add", "mul"):
            fn = {k: (LIBS[k], lambda k=k, op=op, a=a, b=b: getattr(LIBS[k], op)(a[k], b[k])) for k in libs}
            row(f"{op} 2^{n.bit_length() - 1} {dt}", interleaved(fn, reps), 3 * item * n, "GB/s")
    # random normals: write-bound in PyTorch (curand's float Box-Muller); ours, Philox per element
    for dt, item in (("float32", 4), ("bfloat16", 2), ("float64", 8)):
        fn = {
            k: (LIBS[k], lambda k=k, dt=dt: LIBS[k].randn(n, device="cuda", dtype=getattr(LIBS[k], dt)))
            for k in libs
        }
        row(f"randn 2^{n.bit_length() - 1} {dt}", interleaved(fn, reps), item * n, "GB/s")
    x = y = dst = None  # free before the next section

    # ---- reductions and softmax on a 2-D tensor
    r, c = (4096, 4096) if args.quick else (8192, 8192)
    m = both(rng.standard_normal((r, c)).astype(np.float32))
    for op in ("sum", "amax"):
        for dim in (0, 1, None):
            if dim is None:
                fn = {k: (LIBS[k], lambda k=k, op=op: getattr(m[k], op)()) for k in libs}
            else:
                fn = {k: (LIBS[k], lambda k=k, op=op, dim=dim: getattr(m[k], op)(dim)) for k in libs}
            row(f"{op} {r}x{c} f32 dim={dim}", interleaved(fn, reps), 4 * r * c, "GB/s")
    fn = {k: (LIBS[k], lambda k=k: m[k].softmax(-1)) for k in libs}
    row(f"softmax {r}x{c} f32 dim=-1", interleaved(fn, reps), 8 * r * c, "GB/s")
    m = None

    # ---- matmul through cuBLAS
    sizes = (1024, 4096) if args.quick else (1024, 2048, 4096, 8192)
    for dt, tf32 in (("float32", False), ("float32", True), ("float16", False), ("bfloat16", False)):
        for s in sizes:
            a = both(rng.standard_normal((s, s)).astype(np.float32), dt)
            b = both(rng.standard_normal((s, s)).astype(np.float32), dt)
            for k, lib in LIBS.items():
                lib.backends.cuda.matmul.allow_tf32 = tf32
            fn = {k: (LIBS[k], lambda k=k, a=a, b=b: a[k] @ b[k]) for k in libs}
            name = f"matmul {s}^3 {dt}{' tf32' if tf32 else ''}"
            row(name, interleaved(fn, reps), 2 * s**3, "TFLOP/s")
    for lib in LIBS.values():
        lib.backends.cuda.matmul.allow_tf32 = False

    # ---- host <-> device copies, 256 MiB
    nb = 1 << 26
    host = {k: LIBS[k].zeros(nb) for k in libs}
    pinned = {k: host[k].pin_memory() for k in libs}
    gpu = {k: LIBS[k].zeros(nb, device="cuda") for k in libs}
    for kind, src in (("pageable", host), ("pinned", pinned)):
        fn = {k: (LIBS[k], lambda k=k, src=src: gpu[k].copy_(src[k], non_blocking=True)) for k in libs}
        row(f"H2D 256 MiB {kind}", interleaved(fn, 3), 4 * nb, "GB/s")
        fn = {k: (LIBS[k], lambda k=k, src=src: src[k].copy_(gpu[k], non_blocking=True)) for k in libs}
        row(f"D2H 256 MiB {kind}", interleaved(fn, 3), 4 * nb, "GB/s")
    # overlap: how long the host is held by a non_blocking pinned upload vs how long the upload takes
    t = {}
    for k in libs:
        LIBS[k].cuda.synchronize()
        t0 = time.perf_counter()
        gpu[k].copy_(pinned[k], non_blocking=True)
        t[k] = time.perf_counter() - t0
        LIBS[k].cuda.synchronize()
    row("H2D 256 MiB pinned non_blocking: host blocked for", t)

    # ---- report
    head = (
        "| case | " + " | ".join(libs) + (" | t_torch / t_minitorch" if "torch" in libs else "") + " | rate |"
    )
    print(
        f"device: {minitorch.cuda.get_device_name(0)}; minitorch {minitorch.__version__}; "
        f"torch {real_torch.__version__ if real_torch else 'absent'}"
    )
    print("median of interleaved repeats, CUDA events around batched calls; ratio > 1: minitorch faster\n")
    print(head)
    print("|" + "---|" * (head.count("|") - 1))
    for name, times, work, unit in rows:
        cells = [fmt(times[k]) for k in libs]
        ratio = f" | {times['torch'] / times['minitorch']:.2f}" if "torch" in libs else ""
        rate = ""
        if work:
            scale = 1e9 if unit == "GB/s" else 1e12
            rate = " / ".join(f"{work / times[k] / scale:.1f}" for k in libs) + f" {unit}"
            if unit == "GB/s" and name.split()[0] in ("add", "mul"):
                rate += " (" + " / ".join(f"{work / times[k] / copy_bw[k]:.0%}" for k in libs) + " of copy)"
        print(f"| {name} | " + " | ".join(cells) + ratio + f" | {rate} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
