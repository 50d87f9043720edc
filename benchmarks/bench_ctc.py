"""F.ctc_loss forward and forward+backward beside NumPy (the forward recursion in log space, vectorized over the
batch) and PyTorch when it imports. Markdown table of ratios t_other / t_minitorch (above 1: minitorch faster).

A report, not a test. Usage: PYTHONPATH=python python benchmarks/bench_ctc.py [--device cpu|cuda]
(with PyTorch: PYTHONPATH=python /tmp/tv/bin/python benchmarks/bench_ctc.py)
"""

import argparse
import os
import platform

import numpy as np
from _timing import bench, fmt

import minitorch
import minitorch.nn.functional as F

try:  # real PyTorch as a third column, only where it is installed
    import torch as real_torch
except ImportError:
    real_torch = None

# (frames T, batch N, classes C, target length S): a small speech batch and a longer one
SHAPES = [(50, 8, 20, 10), (200, 16, 40, 50)]


def numpy_ctc(lp, targets, s_len):
    """Forward-only negative log-likelihoods, all samples at full length (the NumPy column)."""
    t_len, n, _ = lp.shape
    ext = np.zeros((n, 2 * s_len + 1), np.int64)
    ext[:, 1::2] = targets
    skip = np.zeros(ext.shape, bool)
    skip[:, 3::2] = targets[:, 1:] != targets[:, :-1]
    emit = np.take_along_axis(lp, np.broadcast_to(ext, (t_len,) + ext.shape), 2)
    alpha = np.full(ext.shape, -np.inf)
    alpha[:, :2] = emit[0, :, :2]
    for t in range(1, t_len):
        p1 = np.concatenate([np.full((n, 1), -np.inf), alpha[:, :-1]], 1)
        p2 = np.where(skip, np.concatenate([np.full((n, 2), -np.inf), alpha[:, :-2]], 1), -np.inf)
        alpha = np.logaddexp(np.logaddexp(alpha, p1), p2) + emit[t]
    return -np.logaddexp(alpha[:, -1], alpha[:, -2])


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--device", choices=["cpu", "cuda"])
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--min-time", type=float, default=0.1)
    args = p.parse_args()
    devices = [args.device] if args.device else ["cpu"] + (["cuda"] if minitorch.cuda.is_available() else [])
    print(
        f"# bench_ctc: {platform.machine()}, {os.cpu_count()} CPUs, minitorch threads {minitorch.get_num_threads()}, "
        f"PyTorch {real_torch.__version__ if real_torch else 'not installed'}"
    )
    rng = np.random.default_rng(0)
    for dev in devices:
        pt_ok = real_torch is not None and (dev == "cpu" or real_torch.cuda.is_available())
        print(f"\n## {dev}\n")
        print("| case | T x N x C, S | NumPy | minitorch | PyTorch | NumPy / mt | PyTorch / mt |")
        print("|---|---|---|---|---|---|---|")
        for t_len, n, c, s in SHAPES:
            raw = rng.standard_normal((t_len, n, c)).astype(np.float32)
            lp_np = raw - np.log(np.exp(raw).sum(-1, keepdims=True))
            targets = rng.integers(1, c, (n, s))
            x = minitorch.tensor(raw, device=dev, requires_grad=True)
            tg = minitorch.tensor(targets, device=dev)
            lens_in, lens_out = [t_len] * n, [s] * n
            fwd = {
                "mt": lambda x=x, tg=tg, lens_in=lens_in, lens_out=lens_out: F.ctc_loss(
                    x.log_softmax(2), tg, lens_in, lens_out
                )
            }
            bwd = {
                "mt": lambda x=x, tg=tg, lens_in=lens_in, lens_out=lens_out: F.ctc_loss(
                    x.log_softmax(2), tg, lens_in, lens_out
                ).backward()
            }
            if dev == "cpu":
                fwd["np"] = lambda lp_np=lp_np, targets=targets, s=s: numpy_ctc(lp_np, targets, s)
            if pt_ok:
                xt = real_torch.tensor(raw, device=dev, requires_grad=True)
                tt = real_torch.tensor(targets, device=dev)
                fwd["pt"] = lambda xt=xt, tt=tt, lens_in=lens_in, lens_out=lens_out: (
                    real_torch.nn.functional.ctc_loss(xt.log_softmax(2), tt, lens_in, lens_out)
                )
                bwd["pt"] = lambda xt=xt, tt=tt, lens_in=lens_in, lens_out=lens_out: (
                    real_torch.nn.functional.ctc_loss(xt.log_softmax(2), tt, lens_in, lens_out).backward()
                )
            for name, cases in (("forward", fwd), ("forward+backward", bwd)):
                r = bench(cases, args.repeats, args.min_time)
                tn, tm, tp = r.get("np"), r["mt"], r.get("pt")
                rn = f"{tn / tm:.2f}" if tn else "-"
                rp = f"{tp / tm:.2f}" if tp else "-"
                print(f"| {name} | {t_len}x{n}x{c}, {s} | {fmt(tn)} | {fmt(tm)} | {fmt(tp)} | {rn} | {rp} |")


if __name__ == "__main__":
    main()
