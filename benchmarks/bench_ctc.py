"""F.ctc_loss forward and forward+backward beside NumPy (the forward recursion in log space, vectorized over the
batch) and PyTorch when it imports, both libraries on --threads threads (default 1). On the CPU minitorch runs
its kernel (_C._ctc_loss), on CUDA the log-space recursions in ops. Markdown table of ratios t_other / t_minitorch
(above 1: minitorch faster).

A report, not a test. Usage: PYTHONPATH=python python benchmarks/bench_ctc.py [--device cpu|cuda] [--threads N]
(with PyTorch: PYTHONPATH=python /tmp/tv/bin/python benchmarks/bench_ctc.py)
"""

import argparse
import os
import platform

import numpy as np
from _timing import cuda_sync, print_ratio_table

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


def cases_for(rng, shape, device, pt_ok):
    """{"forward ...": {library: fn}, "forward+backward ...": ...} for one (T, N, C, S)."""
    t_len, n, c, s = shape
    raw = rng.standard_normal((t_len, n, c)).astype(np.float32)
    lp_np = raw - np.log(np.exp(raw).sum(-1, keepdims=True))
    targets = rng.integers(1, c, (n, s))
    x = minitorch.tensor(raw, device=device, requires_grad=True)
    tg = minitorch.tensor(targets, device=device)
    lens_in, lens_out = [t_len] * n, [s] * n
    fwd = {"minitorch": lambda: F.ctc_loss(x.log_softmax(2), tg, lens_in, lens_out)}
    bwd = {"minitorch": lambda: F.ctc_loss(x.log_softmax(2), tg, lens_in, lens_out).backward()}
    if device == "cpu":
        fwd["numpy"] = lambda: numpy_ctc(lp_np, targets, s)
    if pt_ok:
        xt = real_torch.tensor(raw, device=device, requires_grad=True)
        tt = real_torch.tensor(targets, device=device)
        fwd["torch"] = lambda: real_torch.nn.functional.ctc_loss(xt.log_softmax(2), tt, lens_in, lens_out)
        bwd["torch"] = lambda: real_torch.nn.functional.ctc_loss(
            xt.log_softmax(2), tt, lens_in, lens_out
        ).backward()
    label = f"{t_len}x{n}x{c}, S={s}"
    return {f"forward, {label}": fwd, f"forward+backward, {label}": bwd}


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--device", choices=["cpu", "cuda"])
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--min-time", type=float, default=0.1)
    p.add_argument("--threads", type=int, default=1)
    args = p.parse_args()
    minitorch.set_num_threads(args.threads)
    if real_torch is not None:
        real_torch.set_num_threads(args.threads)
    devices = [args.device] if args.device else ["cpu"] + (["cuda"] if minitorch.cuda.is_available() else [])
    print(
        f"# bench_ctc: {platform.machine()}, {os.cpu_count()} CPUs, threads {minitorch.get_num_threads()}, "
        f"PyTorch {real_torch.__version__ if real_torch else 'not installed'}"
    )
    rng = np.random.default_rng(0)
    for dev in devices:
        on_gpu = dev == "cuda"
        pt_ok = real_torch is not None and (not on_gpu or real_torch.cuda.is_available())
        sync = cuda_sync(dev, minitorch, real_torch)
        cases = {}
        for shape in SHAPES:
            cases.update(cases_for(rng, shape, dev, pt_ok))
        print(f"\n## {dev} (T x N x C frames, batch, classes; S the target length)\n")
        print_ratio_table(cases, args.repeats, args.min_time, first="case", sync=sync)


if __name__ == "__main__":
    main()
