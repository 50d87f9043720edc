"""The composed losses (margin ranking, triplet, multi-margin, multilabel margin, Gaussian NLL) forward+backward and
linalg.vector_norm / matrix_norm, beside NumPy (CPU, forward only) and PyTorch when it imports. Markdown table of
ratios t_other / t_minitorch (above 1: minitorch is faster).

A report, not a test. Usage: PYTHONPATH=python python benchmarks/bench_loss_breadth.py [--device cpu|cuda]
(with PyTorch: PYTHONPATH=python /tmp/tv/bin/python benchmarks/bench_loss_breadth.py)
"""

import argparse
import os
import platform

import numpy as np
from _timing import bench, fmt

import minitorch

try:  # real PyTorch as a second column, only where it is installed
    import torch as real_torch
except ImportError:
    real_torch = None


def _np_pdist(a, b):
    return np.sqrt(((a - b + 1e-6) ** 2).sum(-1))


NP_FWD = {
    "margin_ranking_loss": lambda x, y, s: np.maximum(0, -s * (x - y)).mean(),
    "triplet_margin_loss": lambda a, p, n: np.maximum(0, 1 + _np_pdist(a, p) - _np_pdist(a, n)).mean(),
    "gaussian_nll_loss": lambda x, t, v: (0.5 * (np.log(v) + (x - t) ** 2 / v)).mean(),
}


def _np_multi_margin(x, t):
    xy = np.take_along_axis(x, t[:, None], 1)
    z = np.maximum(0, 1 - xy + x)
    z[np.arange(len(t)), t] = 0
    return (z.sum(1) / x.shape[1]).mean()


NP_FWD["multi_margin_loss"] = _np_multi_margin


def loss_case(name, n, c, device):
    rng = np.random.default_rng(0)
    x, y, z = (rng.standard_normal((n, c)).astype(np.float32) for _ in range(3))
    if name == "margin_ranking_loss":
        args = [x, y, np.sign(z)]
    elif name == "gaussian_nll_loss":
        args = [x, y, np.abs(z) + 0.1]
    elif name == "multi_margin_loss":
        args = [x, rng.integers(0, c, n)]
    elif name == "multilabel_margin_loss":
        t = np.full((n, c), -1, dtype=np.int64)
        t[:, :3] = rng.integers(0, c, (n, 3))
        args = [x, t]
    else:
        args = [x, y, z]

    def make(lib):
        ts = [lib.from_numpy(a.copy()).to(device) for a in args]
        ts[0].requires_grad_()
        fn = getattr(lib.nn.functional, name)

        def step():
            ts[0].grad = None
            loss = fn(*ts)
            loss.backward()
            return loss

        return step

    cols = {}
    if device == "cpu" and name in NP_FWD:
        cols["numpy (fwd)"] = lambda: NP_FWD[name](*args)
    cols["minitorch"] = make(minitorch)
    if real_torch is not None:
        cols["torch"] = make(real_torch)
    return f"{name} fwd+bwd [{n}x{c}]", cols


def norm_case(kind, shape, ord, device):
    a = np.random.default_rng(1).standard_normal(shape).astype(np.float32)
    axis = (-2, -1) if kind == "matrix_norm" else None

    def make(lib):
        t = lib.from_numpy(a.copy()).to(device)
        fn = getattr(lib.linalg, kind)
        return lambda: fn(t, ord, dim=axis) if kind == "matrix_norm" else fn(t, ord)

    cols = {}
    if device == "cpu":
        if kind == "vector_norm":
            cols["numpy (fwd)"] = lambda: np.linalg.norm(a.ravel(), ord)
        else:
            cols["numpy (fwd)"] = lambda: np.linalg.norm(a, ord, axis=axis)
    cols["minitorch"] = make(minitorch)
    if real_torch is not None:
        cols["torch"] = make(real_torch)
    return f"{kind}(ord={ord}) [{'x'.join(map(str, shape))}]", cols


def run_device(dev, args):
    print(
        f"{dev.upper()}: {platform.machine()}, {os.cpu_count()} logical cores; numpy {np.__version__}; "
        f"torch {real_torch.__version__ if real_torch else 'not installed'}; float32, mean reduction"
    )
    print(f"median of {args.repeats} interleaved repeats\n")
    no_sync = lambda: None
    cuda_sync = {
        "minitorch": (lambda: minitorch.cuda.synchronize()) if dev == "cuda" else no_sync,
        "torch": (lambda: real_torch.cuda.synchronize()) if dev == "cuda" and real_torch else no_sync,
    }
    cases = []
    for n, c in [(64, 10), (4096, 128)]:
        for name in ["margin_ranking_loss", "triplet_margin_loss", "gaussian_nll_loss", "multi_margin_loss"]:
            cases.append(loss_case(name, n, c, dev))
        cases.append(loss_case("multilabel_margin_loss", n, min(c, 32), dev))
    for shape in [(1000,), (1 << 20,)]:
        for ord in [2, 1, float("inf")]:
            cases.append(norm_case("vector_norm", shape, ord, dev))
    for shape in [(64, 64), (32, 128, 128)]:
        for ord in ["fro", 1, float("inf")]:
            cases.append(norm_case("matrix_norm", shape, ord, dev))
    print("| case | numpy (fwd) | minitorch | torch | t_numpy / t_minitorch | t_torch / t_minitorch |")
    print("|---|---|---|---|---|---|")
    for name, cols in cases:
        t = bench(cols, args.repeats, args.min_time, cuda_sync)
        tn, tm, tt = t.get("numpy (fwd)"), t["minitorch"], t.get("torch")
        rn = f"{tn / tm:.2f}" if tn else "-"
        rt = f"{tt / tm:.2f}" if tt else "-"
        print(f"| {name} | {fmt(tn)} | {fmt(tm)} | {fmt(tt)} | {rn} | {rt} |", flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--device", default=None, choices=["cpu", "cuda"])
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--min-time", type=float, default=0.05, help="seconds per repeat (approximately)")
    args = ap.parse_args()
    devices = [args.device] if args.device else ["cpu"] + (["cuda"] if minitorch.cuda.is_available() else [])
    for dev in devices:
        run_device(dev, args)
        print()


if __name__ == "__main__":
    main()
