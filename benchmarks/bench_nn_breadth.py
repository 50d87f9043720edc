"""nn breadth ops (unfold/fold, embedding_bag, rms_norm, prelu, cosine_similarity, AdaptiveLogSoftmaxWithLoss) on
the CPU: minitorch
against a NumPy formulation, and against PyTorch when `import torch` works (run with PyTorch's Python and
PYTHONPATH=python). Prints seconds per call and the ratios minitorch / NumPy and minitorch / PyTorch."""

# ruff: noqa: B008  (the cases bind their inputs as lambda defaults: built once, outside the timed call)
import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _timing import bench, fmt

try:
    import torch
except Exception:  # noqa: BLE001 - absent or unloadable: minitorch and NumPy only
    torch = None

import minitorch
from minitorch.nn import functional as F


def _np_unfold(x, k):
    n, c = x.shape[:2]
    v = np.lib.stride_tricks.sliding_window_view(x, (k, k), axis=(2, 3))  # n, c, oh, ow, k, k
    return np.ascontiguousarray(v.transpose(0, 1, 4, 5, 2, 3)).reshape(n, c * k * k, -1)


def _np_fold(cols, size, k):
    n, ck, _ = cols.shape
    c = ck // (k * k)
    oh, ow = size[0] - k + 1, size[1] - k + 1
    cols = cols.reshape(n, c, k, k, oh, ow)
    out = np.zeros((n, c) + tuple(size), cols.dtype)
    for i in range(k):
        for j in range(k):
            out[:, :, i : i + oh, j : j + ow] += cols[:, :, i, j]
    return out


def _np_bag(table, ids, offsets):
    return np.add.reduceat(table[ids], offsets, axis=0) / np.diff(np.append(offsets, len(ids)))[:, None]


def cases():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((16, 32, 28, 28)).astype(np.float32)
    cols = _np_unfold(x, 3)
    table = rng.standard_normal((10000, 64)).astype(np.float32)
    ids = rng.integers(0, 10000, 4096)
    offsets = np.arange(0, 4096, 16)
    h = rng.standard_normal((64, 128, 512)).astype(np.float32)
    g = rng.standard_normal(512).astype(np.float32)
    pr = rng.standard_normal((32, 64, 32, 32)).astype(np.float32)
    pw = rng.uniform(0, 0.5, 64).astype(np.float32)
    a, b = (
        rng.standard_normal((4096, 256)).astype(np.float32),
        rng.standard_normal((4096, 256)).astype(np.float32),
    )
    out = []
    libs = [("minitorch", minitorch, F)]
    if torch is not None:
        libs.append(("torch", torch, torch.nn.functional))

    def per_lib(make):
        return {name: make(lib, fn) for name, lib, fn in libs}

    out.append(
        (
            "unfold 16x32x28x28 k3",
            per_lib(lambda L, f: lambda t=L.from_numpy(x): f.unfold(t, 3)),
            lambda: _np_unfold(x, 3),
        )
    )
    out.append(
        (
            "fold 16x288x676 -> 28x28 k3",
            per_lib(lambda L, f: lambda t=L.from_numpy(cols): f.fold(t, (28, 28), 3)),
            lambda: _np_fold(cols, (28, 28), 3),
        )
    )
    out.append(
        (
            "embedding_bag mean 4096 ids/256 bags",
            per_lib(
                lambda L, f: (
                    lambda w=L.from_numpy(table), i=L.from_numpy(ids), o=L.from_numpy(offsets): (
                        f.embedding_bag(i, w, o, mode="mean")
                    )
                )
            ),
            lambda: _np_bag(table, ids, offsets),
        )
    )
    # the op F.embedding_bag ends in, with its bookkeeping tensors (offset2bag, bag_size, max_indices)
    bag_off = np.arange(0, 4096, 16)
    for mode, word, np_fn in (
        (0, "sum", lambda: np.add.reduceat(table[ids], bag_off, axis=0)),
        (2, "max", lambda: np.maximum.reduceat(table[ids], bag_off, axis=0)),
    ):
        out.append(
            (
                f"torch.embedding_bag {word} 4096 ids/256 bags",
                per_lib(
                    lambda L, f, m=mode: (
                        lambda w=L.from_numpy(table), i=L.from_numpy(ids), o=L.from_numpy(bag_off): (
                            L.embedding_bag(w, i, o, False, m)
                        )
                    )
                ),
                np_fn,
            )
        )
    out.append(
        (
            "rms_norm 64x128x512",
            per_lib(lambda L, f: lambda t=L.from_numpy(h), w=L.from_numpy(g): f.rms_norm(t, (512,), w)),
            lambda: h / np.sqrt((h * h).mean(-1, keepdims=True) + 1.19e-7) * g,
        )
    )
    out.append(
        (
            "prelu 32x64x32x32",
            per_lib(lambda L, f: lambda t=L.from_numpy(pr), w=L.from_numpy(pw): f.prelu(t, w)),
            lambda: np.where(pr > 0, pr, pw[None, :, None, None] * pr),
        )
    )
    out.append(
        (
            "cosine_similarity 4096x256",
            per_lib(lambda L, f: lambda u=L.from_numpy(a), v=L.from_numpy(b): f.cosine_similarity(u, v)),
            lambda: (a * b).sum(1) / np.sqrt(((a * a).sum(1) * (b * b).sum(1)).clip(1e-16)),
        )
    )
    # AdaptiveLogSoftmaxWithLoss over 512 rows, 20k classes in a 2k shortlist and two tail clusters, the same
    # weights in both libraries; NumPy: the head's log-softmax and each row's cluster log-softmax, picked
    asm_w = {"head": rng.standard_normal((2002, 256)).astype(np.float32) / 16}
    for i, (hid, osz) in enumerate(((64, 8000), (16, 10000))):
        asm_w[f"t{i}a"] = rng.standard_normal((hid, 256)).astype(np.float32) / 16
        asm_w[f"t{i}b"] = rng.standard_normal((osz, hid)).astype(np.float32) / 4
    asm_x = rng.standard_normal((512, 256)).astype(np.float32)
    asm_t = rng.integers(0, 20000, 512)

    def asm_module(L):
        m = L.nn.AdaptiveLogSoftmaxWithLoss(256, 20000, [2000, 10000], div_value=4.0)
        with L.no_grad():
            m.head.weight.copy_(L.from_numpy(asm_w["head"]))
            for i in range(2):
                m.tail[i][0].weight.copy_(L.from_numpy(asm_w[f"t{i}a"]))
                m.tail[i][1].weight.copy_(L.from_numpy(asm_w[f"t{i}b"]))
        return m

    def np_log_softmax(z):
        z = z - z.max(1, keepdims=True)
        return z - np.log(np.exp(z).sum(1, keepdims=True))

    def np_asm():
        head = np_log_softmax(asm_x @ asm_w["head"].T)
        out = head[np.arange(512), np.minimum(asm_t, 2000)].copy()
        for i, (lo, hi) in enumerate(((2000, 10000), (10000, 20000))):
            rows = np.nonzero((asm_t >= lo) & (asm_t < hi))[0]
            z = np_log_softmax((asm_x[rows] @ asm_w[f"t{i}a"].T) @ asm_w[f"t{i}b"].T)
            out[rows] = head[rows, 2000 + i] + z[np.arange(len(rows)), asm_t[rows] - lo]
        return -out.mean()

    out.append(
        (
            "AdaptiveLogSoftmaxWithLoss 512x256, 20k classes",
            per_lib(
                lambda L, f: (
                    lambda m=asm_module(L), t=L.from_numpy(asm_x), y=L.from_numpy(asm_t): m(t, y).loss
                )
            ),
            np_asm,
        )
    )
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--min-time", type=float, default=0.2)
    ap.add_argument("--only", default="", help="run the cases whose name contains this")
    args = ap.parse_args()
    threads = os.environ.get("OMP_NUM_THREADS")
    if threads:
        minitorch.set_num_threads(int(threads))
        if torch is not None:
            torch.set_num_threads(int(threads))
    print(f"{'case':40s} {'minitorch':>10s} {'numpy':>10s} {'torch':>10s} {'mt/np':>7s} {'mt/torch':>8s}")
    for name, libs, np_fn in cases():
        if args.only not in name:
            continue
        fns = dict(libs)
        fns["numpy"] = np_fn
        t = bench(fns, args.repeats, args.min_time)
        tt = t.get("torch")
        print(
            f"{name:40s} {fmt(t['minitorch']):>10s} {fmt(t['numpy']):>10s} "
            f"{fmt(tt) if tt else '-':>10s} {t['minitorch'] / t['numpy']:7.2f} "
            f"{(t['minitorch'] / tt) if tt else float('nan'):8.2f}"
        )


if __name__ == "__main__":
    main()
