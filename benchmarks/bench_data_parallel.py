"""DataParallel overhead: an MLP's forward + backward run plainly and through nn.DataParallel with 1-3 replicas
(CPU replicas are a minitorch extension; on the GPU machine also CUDA replicas on one GPU), beside a hand-written
NumPy forward/backward of the same MLP (the floor) and PyTorch's plain module and DataParallel when installed.
Printed as a Markdown table.

A report, not a test. Usage: PYTHONPATH=python python benchmarks/bench_data_parallel.py [--device cuda]
"""

import argparse
import os
import platform
import statistics
import timeit

import numpy as np

import minitorch

try:  # real PyTorch as a second column, only where it is installed
    import torch as real_torch
except ImportError:
    real_torch = None


def _loops(fn, min_time):
    timer = timeit.Timer(fn)
    for _ in range(3):
        fn()
    number = 1
    while True:
        t = timer.timeit(number)
        if t >= min_time / 5 or number >= 1 << 20:
            break
        number *= 2
    return max(1, int(number * min_time / max(t, 1e-9)))


def bench(fn, repeats, min_time):
    loops = _loops(fn, min_time)
    return statistics.median(timeit.Timer(fn).timeit(loops) / loops for _ in range(repeats))


def fmt(s):
    if s is None:
        return "-"
    if s < 1e-3:
        return f"{s * 1e6:.1f} us"
    return f"{s * 1e3:.2f} ms"


def make_mlp(lib, sizes, weights, device):
    layers = []
    for i, (w, b) in enumerate(weights):
        lin = lib.nn.Linear(w.shape[1], w.shape[0])
        with lib.no_grad():
            lin.weight.copy_(lib.from_numpy(w.copy()))
            lin.bias.copy_(lib.from_numpy(b.copy()))
        layers.append(lin)
        if i < len(weights) - 1:
            layers.append(lib.nn.ReLU())
    return lib.nn.Sequential(*layers).to(device)


def numpy_step(x, weights):
    """Forward and backward of sum(mlp(x)) by hand: the floor for the same arithmetic."""
    acts = [x]
    h = x
    for i, (w, b) in enumerate(weights):
        h = h @ w.T + b
        if i < len(weights) - 1:
            h = np.maximum(h, 0)
        acts.append(h)
    g = np.ones_like(h)
    grads = []
    for i in range(len(weights) - 1, -1, -1):
        w, _ = weights[i]
        grads.append((g.T @ acts[i], g.sum(0)))
        g = g @ w
        if i > 0:
            g = g * (acts[i] > 0)
    return grads


def step(model, x):
    model.zero_grad()
    model(x).sum().backward()


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--min-time", type=float, default=0.2, help="seconds per repeat (approximately)")
    ap.add_argument("--device", default="cpu", choices=["cpu", "cuda"])
    args = ap.parse_args()
    print(
        f"# DataParallel forward+backward, {platform.machine()}, {os.cpu_count()} cpus, device {args.device}, "
        f"torch {real_torch.__version__ if real_torch else 'absent'}\n"
    )
    print("| case | batch | minitorch | numpy | torch | t_numpy / t_minitorch | t_torch / t_minitorch |")
    print("|---|---|---|---|---|---|---|")
    rng = np.random.default_rng(0)
    for sizes, batch in (([64, 128, 10], 64), ([784, 512, 512, 10], 256)):
        run_size(sizes, batch, rng, args)


def run_size(sizes, batch, rng, args):
    """One MLP shape: the plain module and DataParallel x1-x3, each with its NumPy and PyTorch columns."""
    cuda = args.device == "cuda"
    weights = [
        (
            (rng.standard_normal((o, i)) / np.sqrt(i)).astype(np.float32),
            rng.standard_normal(o).astype(np.float32) * 0.1,
        )
        for i, o in zip(sizes[:-1], sizes[1:])
    ]
    x_np = rng.standard_normal((batch, sizes[0])).astype(np.float32)
    dev = "cuda" if cuda else "cpu"
    m = make_mlp(minitorch, sizes, weights, dev)
    x = minitorch.from_numpy(x_np.copy()).to(dev)
    t_np = None if cuda else bench(lambda: numpy_step(x_np, weights), args.repeats, args.min_time)
    tm = tx = None
    if real_torch is not None:
        tm = make_mlp(real_torch, sizes, weights, dev)
        tx = real_torch.from_numpy(x_np.copy()).to(dev)
    if cuda:
        sync = minitorch.cuda.synchronize
        tsync = real_torch.cuda.synchronize if real_torch else None
        ids_list = [[0], [0, 0], [0, 0, 0]]
    else:

        def sync():
            pass

        tsync = sync
        ids_list = [["cpu"], ["cpu"] * 2, ["cpu"] * 3]
    cases = [("plain module", m, tm)]
    for ids in ids_list:
        # PyTorch refuses CPU device ids and repeated GPUs: its DataParallel only has the one-GPU column
        tdp = (
            real_torch.nn.DataParallel(tm, device_ids=[0])
            if tm is not None and cuda and len(ids) == 1
            else None
        )
        cases.append((f"DataParallel x{len(ids)}", minitorch.nn.DataParallel(m, device_ids=ids), tdp))
    for name, model, tmodel in cases:
        t_mt = bench(lambda model=model: (step(model, x), sync()), args.repeats, args.min_time)
        t_t = None
        if tmodel is not None:
            t_t = bench(lambda tmodel=tmodel: (step(tmodel, tx), tsync()), args.repeats, args.min_time)
        r_np = f"{t_np / t_mt:.2f}" if t_np else "-"
        r_t = f"{t_t / t_mt:.2f}" if t_t else "-"
        print(
            f"| {name} [{'x'.join(map(str, sizes))}] | {batch} | {fmt(t_mt)} | {fmt(t_np)} | {fmt(t_t)} "
            f"| {r_np} | {r_t} |",
            flush=True,
        )


if __name__ == "__main__":
    main()
