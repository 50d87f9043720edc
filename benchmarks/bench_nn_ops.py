"""nn ops (minitorch._C._nn) forward and forward+backward on the CPU beside hand-written NumPy (forward and
backward formulas in float32) and PyTorch when installed: linear (tiny and MLP sizes), batch_norm, layer_norm,
group_norm, embedding and dropout. Printed as a Markdown table.

A report, not a test. Usage: PYTHONPATH=python python benchmarks/bench_nn_ops.py [--device cuda]
(with --device cuda the NumPy column is left out and every call ends in a synchronize).
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


# ---- NumPy references (forward and backward by hand, float32)


def np_linear(x, w, b, g):
    y = x @ w.T + b
    if g is None:
        return y
    return y, g @ w, g.T @ x, g.sum(0)


def np_norm_rows(x2, g2, eps=1e-5):
    """Normalization over the last axis of x2 [R, D] (layer norm without affine) and its input gradient."""
    m = x2.mean(1, keepdims=True)
    rstd = 1 / np.sqrt(x2.var(1, keepdims=True) + eps)
    xhat = (x2 - m) * rstd
    if g2 is None:
        return xhat
    dx = rstd * (g2 - g2.mean(1, keepdims=True) - xhat * (g2 * xhat).mean(1, keepdims=True))
    return xhat, dx


def np_layer_norm(x, w, b, g):
    xhat = np_norm_rows(x, None)
    y = xhat * w + b
    if g is None:
        return y
    _, dx = np_norm_rows(x, g * w)
    return y, dx, (g * xhat).sum(0), g.sum(0)


def np_batch_norm(x, w, b, g, eps=1e-5):
    axes = (0,) + tuple(range(2, x.ndim))
    bs = (1, x.shape[1]) + (1,) * (x.ndim - 2)
    m = x.mean(axes, keepdims=True)
    rstd = 1 / np.sqrt(x.var(axes, keepdims=True) + eps)
    xhat = (x - m) * rstd
    y = xhat * w.reshape(bs) + b.reshape(bs)
    if g is None:
        return y
    gw = g * w.reshape(bs)
    dx = rstd * (gw - gw.mean(axes, keepdims=True) - xhat * (gw * xhat).mean(axes, keepdims=True))
    return y, dx, (g * xhat).sum(axes), g.sum(axes)


def np_group_norm(x, groups, w, b, g):
    n, c = x.shape[:2]
    bs = (1, c) + (1,) * (x.ndim - 2)
    x2 = x.reshape(n * groups, -1)
    xhat = np_norm_rows(x2, None).reshape(x.shape)
    y = xhat * w.reshape(bs) + b.reshape(bs)
    if g is None:
        return y
    _, dx = np_norm_rows(x2, (g * w.reshape(bs)).reshape(n * groups, -1))
    axes = (0,) + tuple(range(2, x.ndim))
    return y, dx.reshape(x.shape), (g * xhat).sum(axes), g.sum(axes)


def np_embedding(w, idx, g):
    y = w[idx]
    if g is None:
        return y
    gw = np.zeros_like(w)
    np.add.at(gw, idx.reshape(-1), g.reshape(-1, w.shape[1]))
    return y, gw


def np_dropout(x, p, rng):
    keep = rng.random(x.shape, dtype=np.float32) >= p
    return np.where(keep, x * np.float32(1 / (1 - p)), np.float32(0))


# ---- cases: name -> (numpy fn or None, {lib: (forward fn, forward+backward fn)})


def make_cases(device):
    rng = np.random.default_rng(0)
    libs = {"minitorch": minitorch}
    if real_torch is not None:
        libs["torch"] = real_torch
    sync = {
        "minitorch": (lambda: minitorch.cuda.synchronize()) if device == "cuda" else (lambda: None),
        "torch": (lambda: real_torch.cuda.synchronize()) if device == "cuda" else (lambda: None),
    }
    f = lambda *s: rng.standard_normal(s).astype(np.float32)

    def lib_fns(name, lib, arrays, call, needs_grad):
        """Forward (no grad) and forward+backward (grad of every floating input given in needs_grad)."""
        fn = lib.nn.functional if name == "torch" else None
        on = [lib.from_numpy(a.copy()).to(device) for a in arrays]
        ong = [
            lib.from_numpy(a.copy()).to(device).requires_grad_() if r else lib.from_numpy(a.copy()).to(device)
            for a, r in zip(arrays, needs_grad)
        ]
        s = sync[name]

        def fwd():
            call(name, fn, *on)
            s()

        def fwd_bwd():
            for t in ong:
                t.grad = None
            out = call(name, fn, *ong)
            out.backward(lib.ones_like(out))
            s()

        return fwd, fwd_bwd

    def C(name, fn):
        return minitorch._C._nn if name == "minitorch" else fn

    cases = []

    def add(label, arrays, call, needs_grad, np_fwd, np_bwd):
        cols = {}
        if device == "cpu":
            cols["numpy"] = (np_fwd, np_bwd)
        for name, lib in libs.items():
            cols[name] = lib_fns(name, lib, arrays, call, needs_grad)
        cases.append((label, cols))

    for b, i, o in [(100, 3, 10), (64, 784, 256)]:
        x, w, bias = f(b, i), f(o, i) * 0.1, f(o)
        g = np.ones((b, o), np.float32)
        add(
            f"linear [{b}x{i} -> {o}]",
            [x, w, bias],
            lambda n, fn, x, w, b: C(n, fn).linear(x, w, b),
            [True, True, True],
            lambda x=x, w=w, bias=bias: np_linear(x, w, bias, None),
            lambda x=x, w=w, bias=bias, g=g: np_linear(x, w, bias, g),
        )
    for shape in [(64, 256), (32, 64, 16, 16)]:
        x, w, bias = f(*shape), f(shape[1]), f(shape[1])
        g = np.ones(shape, np.float32)
        rm, rv = np.zeros(shape[1], np.float32), np.ones(shape[1], np.float32)
        add(
            f"batch_norm train {list(shape)}",
            [x, w, bias, rm, rv],
            lambda n, fn, x, w, b, rm, rv: (
                C(n, fn).batch_norm(x, w, b, rm, rv, True, 0.1, 1e-5)
                if n == "minitorch"
                else fn.batch_norm(x, rm, rv, w, b, True, 0.1, 1e-5)
            ),
            [True, True, True, False, False],
            lambda x=x, w=w, bias=bias: np_batch_norm(x, w, bias, None),
            lambda x=x, w=w, bias=bias, g=g: np_batch_norm(x, w, bias, g),
        )
    x, w, bias = f(512, 768), f(768), f(768)
    g = np.ones((512, 768), np.float32)
    add(
        "layer_norm [512x768]",
        [x, w, bias],
        lambda n, fn, x, w, b: C(n, fn).layer_norm(x, (768,), w, b, 1e-5),
        [True, True, True],
        lambda x=x, w=w, bias=bias: np_layer_norm(x, w, bias, None),
        lambda x=x, w=w, bias=bias, g=g: np_layer_norm(x, w, bias, g),
    )
    x, w, bias = f(16, 64, 16, 16), f(64), f(64)
    g = np.ones(x.shape, np.float32)
    add(
        "group_norm [16x64x16x16], 8 groups",
        [x, w, bias],
        lambda n, fn, x, w, b: C(n, fn).group_norm(x, 8, w, b, 1e-5),
        [True, True, True],
        lambda x=x, w=w, bias=bias: np_group_norm(x, 8, w, bias, None),
        lambda x=x, w=w, bias=bias, g=g: np_group_norm(x, 8, w, bias, g),
    )
    wt = f(10000, 128)
    idx = rng.integers(0, 10000, (64, 32))
    g = np.ones((64, 32, 128), np.float32)
    cols = {}
    if device == "cpu":
        cols["numpy"] = (lambda: np_embedding(wt, idx, None), lambda: np_embedding(wt, idx, g))
    for name, lib in libs.items():
        W = lib.from_numpy(wt.copy()).to(device)
        Wg = lib.from_numpy(wt.copy()).to(device).requires_grad_()
        I = lib.from_numpy(idx.copy()).to(device)
        emb = minitorch._C._nn.embedding if name == "minitorch" else real_torch.embedding
        s = sync[name]

        def fwd(emb=emb, W=W, I=I, s=s):
            emb(W, I)
            s()

        def fwd_bwd(emb=emb, Wg=Wg, I=I, s=s, lib=lib):
            Wg.grad = None
            out = emb(Wg, I)
            out.backward(lib.ones_like(out))
            s()

        cols[name] = (fwd, fwd_bwd)
    cases.append(("embedding [10000x128], 64x32 indices", cols))
    x = f(1 << 20)
    drng = np.random.default_rng(1)
    cols = {}
    if device == "cpu":
        cols["numpy"] = (lambda: np_dropout(x, 0.5, drng), None)
    for name, lib in libs.items():
        X = lib.from_numpy(x.copy()).to(device)
        drop = minitorch._C._nn.dropout if name == "minitorch" else real_torch.dropout
        s = sync[name]

        def fwd(drop=drop, X=X, s=s):
            drop(X, 0.5, True)
            s()

        cols[name] = (fwd, None)
    cases.append(("dropout p=0.5 [1M]", cols))
    return cases


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--min-time", type=float, default=0.1, help="seconds per repeat (approximately)")
    ap.add_argument("--device", default="cpu")
    args = ap.parse_args()
    print(
        f"CPU: {platform.machine()}, {os.cpu_count()} logical cores; numpy {np.__version__}; "
        f"torch {real_torch.__version__ if real_torch else 'not installed'}; device {args.device}"
    )
    print(f"median of {args.repeats} interleaved repeats; float32; 'f+b' = forward + backward (all grads)\n")
    has_np = args.device == "cpu"
    has_torch = real_torch is not None
    head, sep = "| case | pass | minitorch |", "|---|---|---|"
    if has_np:
        head += " numpy | t_numpy / t_minitorch |"
        sep += "---|---|"
    if has_torch:
        head += " torch | t_torch / t_minitorch |"
        sep += "---|---|"
    print(head)
    print(sep)
    for label, cols in make_cases(args.device):
        for k, kind in enumerate(["fwd", "f+b"]):
            fns = {name: pair[k] for name, pair in cols.items() if pair[k] is not None}
            if "minitorch" not in fns:
                continue
            t = bench(fns, args.repeats, args.min_time)
            row = f"| {label} | {kind} | {fmt(t['minitorch'])} |"
            if has_np:
                row += (
                    f" {fmt(t['numpy'])} | {t['numpy'] / t['minitorch']:.2f} |"
                    if "numpy" in t
                    else " - | - |"
                )
            if has_torch:
                row += f" {fmt(t['torch'])} | {t['torch'] / t['minitorch']:.2f} |"
            print(row, flush=True)


if __name__ == "__main__":
    main()
