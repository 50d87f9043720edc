"""Ops on channels-last and transposed (permuted dense) inputs beside contiguous ones, in minitorch, NumPy (the
same strided arrays) and PyTorch when `import torch` works: elementwise, activations, a conv layer and a
BatchNorm+ReLU block. Outputs keep their input's layout in both libraries (ops/layout), and a permuted output
whose inputs share its order is walked in memory order, so a channels-last add should cost what a contiguous
one does. Prints a markdown table; ratios are other / minitorch (above 1: minitorch is faster).

  PYTHONPATH=python python benchmarks/bench_memory_format.py [--repeats 5 --min-time 0.05]
"""

import numpy as np
from _timing import ratio_table_main

import minitorch

try:
    import torch as real_torch
except ImportError:
    real_torch = None


def cases():
    rng = np.random.default_rng(0)
    nchw = rng.standard_normal((8, 64, 32, 32)).astype(np.float32)
    sq = rng.standard_normal((1024, 1024)).astype(np.float32)
    libs = [("minitorch", minitorch)] + ([("torch", real_torch)] if real_torch is not None else [])
    out = {}
    made = {}
    for name, L in libs:
        x = L.from_numpy(nchw.copy())
        xcl = x.contiguous(memory_format=L.channels_last)
        t = L.from_numpy(sq.copy()).t()
        conv = L.nn.Conv2d(64, 64, 3, padding=1).eval()
        block = L.nn.Sequential(L.nn.BatchNorm2d(64), L.nn.ReLU()).eval()
        convcl = L.nn.Conv2d(64, 64, 3, padding=1).eval().to(memory_format=L.channels_last)
        made[name] = (L, x, xcl, t, conv, convcl, block)

    def row(title, fn, numpy_fn=None):
        out[title] = {name: (lambda fn=fn, args=args: fn(*args)) for name, args in made.items()}
        if numpy_fn is not None:
            out[title]["numpy"] = numpy_fn

    ncl = np.ascontiguousarray(nchw.transpose(0, 2, 3, 1)).transpose(0, 3, 1, 2)  # NumPy's channels-last view
    nt = sq.T
    row("add, contiguous 8x64x32x32", lambda L, x, *_: x + x, lambda: nchw + nchw)
    row("add, channels-last", lambda L, x, xcl, *_: xcl + xcl, lambda: ncl + ncl)
    row("relu, channels-last", lambda L, x, xcl, *_: L.relu(xcl), lambda: np.maximum(ncl, 0))
    row("add, transposed 1024^2", lambda L, x, xcl, t, *_: t + t, lambda: nt + nt)
    row("sigmoid, transposed 1024^2", lambda L, x, xcl, t, *_: L.sigmoid(t))
    with_grad_off = lambda f: lambda *a: _no_grad(a[0], f, *a)
    row("conv3x3 64->64, contiguous", with_grad_off(lambda L, x, xcl, t, conv, *_: conv(x)))
    row("conv3x3 64->64, channels-last", with_grad_off(lambda L, x, xcl, t, conv, convcl, *_: convcl(xcl)))
    row(
        "BatchNorm2d+ReLU, channels-last", with_grad_off(lambda L, x, xcl, t, conv, convcl, block: block(xcl))
    )
    return out


def _no_grad(L, f, *args):
    with L.no_grad():
        return f(*args)


def main():
    ratio_table_main(__doc__.splitlines()[0], cases, minitorch.get_num_threads(), min_time=0.05)


if __name__ == "__main__":
    main()
