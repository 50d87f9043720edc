"""F.interpolate (nearest, bilinear, bicubic; forward and backward) beside NumPy (nearest as repeat, the
interpolating modes as the separable matmuls they are) and PyTorch when it imports; then antialias=True
(bilinear, bicubic, lanczos) on 3-channel float32 and uint8 images, down and up, NCHW and channels_last,
beside PyTorch. Markdown tables. MINITORCH_CPU_CAPABILITY and ATEN_CPU_CAPABILITY pick each library's path.

A report, not a test. Usage: PYTHONPATH=python python benchmarks/bench_upsample.py [--device cpu|cuda]
[--repeats 5] [--min-time 0.1] [--threads N] [--only all|aa|aa-uint8] [--stat median|min]  (default: the CPU,
then CUDA when a GPU is present)
"""

import argparse
import os
import platform
import sys
import time

import numpy as np

import minitorch
import minitorch.nn.functional as F

try:  # real PyTorch as a third column, only where it is installed
    import torch as real_torch
    import torch.nn.functional as real_F
except ImportError:
    real_torch = None

sys.path.insert(0, os.path.dirname(__file__))
from _timing import bench, fmt, loops_for

# (input shape, output spatial size)
SHAPES = [((8, 64, 32, 32), (64, 64)), ((1, 3, 256, 256), (512, 512)), ((16, 32, 64, 64), (32, 32))]


def linear_weights(n_in, n_out):
    """align_corners=False linear interpolation as an (out, in) matrix (the NumPy column's operator)."""
    W = np.zeros((n_out, n_in), np.float32)
    s = n_in / n_out
    for o in range(n_out):
        src = max(s * (o + 0.5) - 0.5, 0.0)
        i0 = min(int(src), n_in - 1)
        lam = src - i0
        W[o, i0] += 1 - lam
        W[o, min(i0 + 1, n_in - 1)] += lam
    return W


def cases_for(a, size, device, pt_ok):
    x = minitorch.from_numpy(a).to(device)
    xg = x.clone().requires_grad_(True)
    t = real_torch.from_numpy(a).to(device) if pt_ok else None
    tg = t.clone().requires_grad_(True) if pt_ok else None
    H, W = a.shape[2:]
    Wh, Ww = linear_weights(H, size[0]), linear_weights(W, size[1])
    up2 = size[0] == 2 * H and size[1] == 2 * W
    rows = {}
    for mode in ("nearest", "bilinear", "bicubic"):
        ac = None if mode == "nearest" else False
        if mode == "nearest" and up2:
            np_fn = lambda: a.repeat(2, 2).repeat(2, 3)
        elif mode == "bilinear":
            np_fn = lambda: np.matmul(Wh, np.matmul(a, Ww.T))
        else:
            np_fn = None
        go = minitorch.ones(a.shape[:2] + tuple(size), device=device)
        fwd = {"mt": lambda mode=mode, ac=ac: F.interpolate(x, size=size, mode=mode, align_corners=ac)}
        bwd = {
            "mt": lambda mode=mode, ac=ac, go=go: minitorch.autograd.grad(
                F.interpolate(xg, size=size, mode=mode, align_corners=ac), xg, go
            )
        }
        if np_fn is not None and device == "cpu":
            fwd["np"] = np_fn
            if mode == "bilinear":
                gnp = np.ones(a.shape[:2] + tuple(size), np.float32)
                bwd["np"] = lambda gnp=gnp: np.matmul(Wh.T, np.matmul(gnp, Ww))
        if pt_ok:
            gpt = real_torch.ones(a.shape[:2] + tuple(size), device=device)
            fwd["pt"] = lambda mode=mode, ac=ac: real_F.interpolate(t, size=size, mode=mode, align_corners=ac)
            bwd["pt"] = lambda mode=mode, ac=ac, gpt=gpt: real_torch.autograd.grad(
                real_F.interpolate(tg, size=size, mode=mode, align_corners=ac), tg, gpt
            )
        rows[mode] = fwd
        rows[mode + " backward"] = bwd
    return rows


# antialias=True: torchvision's Resize of one image (uint8 and float32), down and up: (input H x W, output size)
AA_CASES = [
    ((224, 224), (112, 112)),
    ((224, 224), (128, 128)),
    ((512, 512), (224, 224)),
    ((224, 224), (320, 320)),
]


def aa_rows(rng, dtypes=("uint8", "float32")):
    for (h, w), size in AA_CASES:
        img = rng.integers(0, 256, (1, 3, h, w)).astype(np.uint8)
        shp = f"1x3x{h}x{w} -> " + "x".join(map(str, size))
        for dtype in dtypes:
            a = img if dtype == "uint8" else img.astype(np.float32) / 255
            # channels_last as torchvision hands a decoded HWC image over (uint8: PyTorch's kernel skips its
            # repacking there); bilinear only, the other filters run the same passes
            layouts = ("nchw", "nhwc") if dtype == "uint8" else ("nchw",)
            for layout in layouts:
                x = minitorch.from_numpy(a)
                t = real_torch.from_numpy(a) if real_torch is not None else None
                if layout == "nhwc":
                    x = x.contiguous(memory_format=minitorch.channels_last)
                    t = t.contiguous(memory_format=real_torch.channels_last) if t is not None else None
                modes = ("bilinear", "bicubic", "lanczos") if layout == "nchw" else ("bilinear",)
                for mode in modes:
                    fns = {
                        "mt": lambda x=x, size=size, mode=mode: F.interpolate(
                            x, size=size, mode=mode, antialias=True
                        )
                    }
                    if t is not None:
                        fns["pt"] = lambda t=t, size=size, mode=mode: real_F.interpolate(
                            t, size=size, mode=mode, antialias=True
                        )
                    tag = "" if layout == "nchw" else " channels_last"
                    yield f"{mode} aa {dtype}{tag}", shp, fns
            if (
                dtype == "uint8"
            ):  # antialias=False runs the same fixed-point passes (x, t: channels_last here)
                fns = {"mt": lambda x=x, size=size: F.interpolate(x, size=size, mode="bilinear")}
                if t is not None:
                    fns["pt"] = lambda t=t, size=size: real_F.interpolate(t, size=size, mode="bilinear")
                yield "bilinear uint8 channels_last", shp, fns
            if dtype == "float32" and size in ((128, 128), (320, 320)):
                xg = minitorch.from_numpy(a).requires_grad_(True)
                tg = real_torch.from_numpy(a).requires_grad_(True) if real_torch is not None else None
                go = minitorch.ones(1, 3, *size)
                fns = {
                    "mt": lambda size=size, go=go, xg=xg: minitorch.autograd.grad(
                        F.interpolate(xg, size=size, mode="bilinear", antialias=True), xg, go
                    )
                }
                if tg is not None:
                    gpt = real_torch.ones(1, 3, *size)
                    fns["pt"] = lambda size=size, gpt=gpt, tg=tg: real_torch.autograd.grad(
                        real_F.interpolate(tg, size=size, mode="bilinear", antialias=True), tg, gpt
                    )
                yield "bilinear aa float32 backward", shp, fns


def best_of(cases, repeats, min_time):
    """bench's interleaved repeats, the fastest batch of each column: on a shared, loaded machine the other
    processes only ever add time, so the minimum is the steadier estimate (--stat min)."""
    loops = {k: loops_for(fn, min_time) for k, fn in cases.items()}
    best = {k: float("inf") for k in cases}
    for _ in range(repeats):
        for k, fn in cases.items():
            t0 = time.perf_counter()
            for _ in range(loops[k]):
                fn()
            best[k] = min(best[k], (time.perf_counter() - t0) / loops[k])
    return best


def synced(fn, sync):
    def run():
        fn()
        sync()

    return run


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--device", choices=["cpu", "cuda"])
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--min-time", type=float, default=0.1)
    p.add_argument("--threads", type=int, help="threads for both libraries (default: theirs)")
    p.add_argument("--only", choices=["all", "aa", "aa-uint8"], default="all")
    p.add_argument(
        "--stat", choices=["median", "min"], default="median", help="antialias rows: per-call time"
    )
    args = p.parse_args()
    if args.threads:
        minitorch.set_num_threads(args.threads)
        if real_torch is not None:
            real_torch.set_num_threads(args.threads)
    devices = [args.device] if args.device else ["cpu"] + (["cuda"] if minitorch.cuda.is_available() else [])
    cap = real_torch.backends.cpu.get_cpu_capability() if real_torch else "-"
    print(
        f"# bench_upsample: {platform.machine()}, {os.cpu_count()} CPUs, minitorch threads "
        f"{minitorch.get_num_threads()} ({minitorch.backends.cpu.get_cpu_capability()}), NumPy {np.__version__}, "
        f"PyTorch {real_torch.__version__ if real_torch else 'not installed'} ({cap})"
    )
    rng = np.random.default_rng(0)
    for dev in devices if args.only == "all" else []:
        on_gpu = dev == "cuda"
        pt_ok = real_torch is not None and (not on_gpu or real_torch.cuda.is_available())
        syncs = {
            "mt": minitorch.cuda.synchronize if on_gpu else (lambda: None),
            "np": lambda: None,
            "pt": (real_torch.cuda.synchronize if on_gpu else (lambda: None)) if pt_ok else (lambda: None),
        }
        print(f"\n## {dev}\n")
        print("| op | input -> size | NumPy | minitorch | PyTorch | NumPy / mt | PyTorch / mt |")
        print("|---|---|---|---|---|---|---|")
        for shape, size in SHAPES:
            a = rng.standard_normal(shape).astype(np.float32)
            for name, cases in cases_for(a, size, dev, pt_ok).items():
                r = bench({k: synced(fn, syncs[k]) for k, fn in cases.items()}, args.repeats, args.min_time)
                tn, tm, tp = r.get("np"), r["mt"], r.get("pt")
                rn = f"{tn / tm:.2f}" if tn else "-"
                rp = f"{tp / tm:.2f}" if tp else "-"
                shp = "x".join(map(str, shape)) + " -> " + "x".join(map(str, size))
                print(f"| {name} | {shp} | {fmt(tn)} | {fmt(tm)} | {fmt(tp)} | {rn} | {rp} |")
    print("\n## cpu, antialias=True\n")
    print("| op | input -> size | minitorch | PyTorch | PyTorch / mt |")
    print("|---|---|---|---|---|")
    for name, shp, fns in aa_rows(rng, ("uint8",) if args.only == "aa-uint8" else ("uint8", "float32")):
        r = (best_of if args.stat == "min" else bench)(fns, args.repeats, args.min_time)
        tm, tp = r["mt"], r.get("pt")
        print(f"| {name} | {shp} | {fmt(tm)} | {fmt(tp)} | {f'{tp / tm:.2f}' if tp else '-'} |")


if __name__ == "__main__":
    main()
