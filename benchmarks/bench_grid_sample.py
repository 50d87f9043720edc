"""F.affine_grid + F.grid_sample (bilinear, nearest, bicubic; forward and forward+backward) beside NumPy (bilinear
zeros-padded sampling by fancy indexing) and PyTorch when it imports. Markdown table.

A report, not a test. Usage: PYTHONPATH=python python benchmarks/bench_grid_sample.py [--device cpu|cuda]
[--repeats 5] [--min-time 0.1] [--padding zeros|border|reflection]  (default: the CPU, then CUDA when a GPU is
present). 5-D inputs (volumetric sampling) take bilinear and nearest. Run it with a Python that
has PyTorch (e.g. the oracle venv) for the PyTorch column.
"""

import argparse
import os
import platform
import sys
import warnings

import numpy as np

import minitorch
import minitorch.nn.functional as F

try:  # real PyTorch as a third column, only where it is installed
    import torch as real_torch
    import torch.nn.functional as real_F
except ImportError:
    real_torch = None

sys.path.insert(0, os.path.dirname(__file__))
from _timing import cuda_sync, print_ratio_table

warnings.simplefilter("ignore")
# input shapes: the spatial transformer tutorial's MNIST batch, an image batch, a batch of volumes
SHAPES = [(64, 1, 28, 28), (8, 3, 128, 128), (4, 2, 16, 32, 32)]


def numpy_bilinear(a, grid):
    """zeros-padded bilinear sampling, align_corners=False, by fancy indexing (the NumPy column)."""
    n, c, h, w = a.shape
    x = ((grid[..., 0] + 1) * w - 1) / 2
    y = ((grid[..., 1] + 1) * h - 1) / 2
    x0, y0 = np.floor(x), np.floor(y)
    out = np.zeros((n, c) + grid.shape[1:3], a.dtype)
    b = np.arange(n)[:, None, None]
    for dx in (0, 1):
        for dy in (0, 1):
            xi, yi = x0 + dx, y0 + dy
            wgt = (1 - np.abs(x - xi)) * (1 - np.abs(y - yi))
            ok = (xi >= 0) & (xi < w) & (yi >= 0) & (yi < h)
            v = a[
                b, :, np.clip(yi, 0, h - 1).astype(int), np.clip(xi, 0, w - 1).astype(int)
            ]  # (n, ho, wo, c)
            out += np.moveaxis(v * (wgt * ok)[..., None], -1, 1)
    return out


def cases_for(a, theta, device, pt_ok, pad):
    x = minitorch.from_numpy(a).to(device)
    th = minitorch.from_numpy(theta).to(device)
    xg, thg = x.clone().requires_grad_(True), th.clone().requires_grad_(True)
    if pt_ok:
        t, tt = real_torch.from_numpy(a).to(device), real_torch.from_numpy(theta).to(device)
        tg, ttg = t.clone().requires_grad_(True), tt.clone().requires_grad_(True)
    grid_np = F.affine_grid(th.cpu(), x.shape, align_corners=False).numpy()
    rows = {}
    volume = a.ndim == 5
    for mode in ("bilinear", "nearest") if volume else ("bilinear", "nearest", "bicubic"):

        def mt_fwd(mode=mode):
            g = F.affine_grid(th, x.shape, align_corners=False)
            return F.grid_sample(x, g, mode=mode, padding_mode=pad, align_corners=False)

        def mt_bwd(mode=mode):
            g = F.affine_grid(thg, xg.shape, align_corners=False)
            F.grid_sample(xg, g, mode=mode, padding_mode=pad, align_corners=False).sum().backward()

        fwd, bwd = {"minitorch": mt_fwd}, {"minitorch": mt_bwd}
        if mode == "bilinear" and device == "cpu" and pad == "zeros" and not volume:
            fwd["numpy"] = lambda: numpy_bilinear(a, grid_np)
        if pt_ok:

            def pt_fwd(mode=mode):
                g = real_F.affine_grid(tt, t.shape, align_corners=False)
                return real_F.grid_sample(t, g, mode=mode, padding_mode=pad, align_corners=False)

            def pt_bwd(mode=mode):
                g = real_F.affine_grid(ttg, tg.shape, align_corners=False)
                real_F.grid_sample(tg, g, mode=mode, padding_mode=pad, align_corners=False).sum().backward()

            fwd["torch"], bwd["torch"] = pt_fwd, pt_bwd
        rows[mode] = fwd
        rows[mode + " fwd+bwd"] = bwd
        if (
            mode == "bilinear" and not volume
        ):  # the sampling alone, the grid made once (the kernel's own cost)
            g_mt = F.affine_grid(th, x.shape, align_corners=False)
            alone = {"minitorch": lambda g=g_mt: F.grid_sample(x, g, padding_mode=pad, align_corners=False)}
            if pt_ok:
                g_pt = real_F.affine_grid(tt, t.shape, align_corners=False)
                alone["torch"] = lambda g=g_pt: real_F.grid_sample(
                    t, g, padding_mode=pad, align_corners=False
                )
            rows["bilinear, grid given"] = alone
    return rows


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--device", choices=["cpu", "cuda"])
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--min-time", type=float, default=0.1)
    p.add_argument("--padding", choices=["zeros", "border", "reflection"], default="zeros")
    args = p.parse_args()
    devices = [args.device] if args.device else ["cpu"] + (["cuda"] if minitorch.cuda.is_available() else [])
    print(
        f"# bench_grid_sample: {platform.machine()}, {os.cpu_count()} CPUs, minitorch threads "
        f"{minitorch.get_num_threads()}, NumPy {np.__version__}, "
        f"PyTorch {real_torch.__version__ if real_torch else 'not installed'}"
    )
    rng = np.random.default_rng(0)
    for dev in devices:
        on_gpu = dev == "cuda"
        pt_ok = real_torch is not None and (not on_gpu or real_torch.cuda.is_available())
        sync = cuda_sync(dev, minitorch, real_torch)
        cases = {}
        for shape in SHAPES:
            a = rng.standard_normal(shape).astype(np.float32)
            k = len(shape) - 2
            theta = (np.eye(k, k + 1)[None] + 0.1 * rng.standard_normal((shape[0], k, k + 1))).astype(
                np.float32
            )
            for name, fns in cases_for(a, theta, dev, pt_ok, args.padding).items():
                pad = "" if args.padding == "zeros" else f" {args.padding}"
                cases[f"{name}{pad}, {'x'.join(map(str, shape))}"] = fns
        print(f"\n## {dev}\n")
        print_ratio_table(cases, args.repeats, args.min_time, first="case", sync=sync)


if __name__ == "__main__":
    main()
