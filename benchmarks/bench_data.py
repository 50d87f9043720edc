"""DataLoader throughput (batches/s) of minitorch beside a plain NumPy loop and PyTorch's DataLoader.

A report, not a test. Usage: PYTHONPATH=python python benchmarks/bench_data.py [--n 8192 --features 3072
--batch-size 64 --epochs 5 --warmup 2]

Two datasets, both shuffled every epoch:
- tensors: a TensorDataset of float32 samples (`--features` each) and int64 labels; the NumPy baseline
  gathers each batch with fancy indexing (X[idx], y[idx]), the floor any loader is compared with.
- python: a Dataset whose __getitem__ does CIFAR-style augmentation in NumPy per sample (pad, crop, flip,
  normalize) and returns (ndarray, int), the common shape of real datasets; identical code for minitorch and
  PyTorch. This is where workers pay off; on the tensors dataset the per-batch work is too small for them.
- pinned->cuda (where a GPU is present): the tensors dataset with pin_memory=True, each batch copied to the GPU
  with non_blocking=True as training loops do, one synchronize at the end of the epoch.
Each loader runs with num_workers 0 and 2. Workers are persistent and `--warmup` epochs run first, so the
numbers are steady-state throughput (worker start-up excluded); each row is the median over `--epochs`
epochs, with the libraries interleaved epoch by epoch so drift hits all alike.
"""

import argparse
import os
import platform
import statistics
import time

import numpy as np

import minitorch
from minitorch.utils import data as mdata

try:  # real PyTorch as a second column, only where it is installed
    import torch as real_torch
    import torch.utils.data as tdata
except ImportError:
    real_torch = None


class PyDataset:
    """CIFAR-style augmentation in NumPy per sample (pad, crop, flip, normalize), library-neutral.

    The crop offset and flip come from the index, so every loader produces the same samples.
    """

    def __init__(self, x, y):
        self.x, self.y = x, y
        self.mean = np.array([0.49, 0.48, 0.45], np.float32).reshape(3, 1, 1)
        self.std = np.array([0.25, 0.24, 0.26], np.float32).reshape(3, 1, 1)

    def __len__(self):
        return len(self.x)

    def __getitem__(self, i):
        img = self.x[i].reshape(3, -1, 32) if self.x.shape[1] % 96 == 0 else self.x[i].reshape(1, 1, -1)
        pad = np.pad(img, ((0, 0), (4, 4), (4, 4)), mode="reflect") if img.shape[1] > 4 else img
        r, c = (i * 7) % 9, (i * 5) % 9
        crop = pad[:, r : r + img.shape[1], c : c + img.shape[2]] if pad is not img else img
        if i % 2:
            crop = crop[:, :, ::-1]
        return ((crop - self.mean[: crop.shape[0]]) / self.std[: crop.shape[0]]).reshape(-1), int(self.y[i])


class MPyDataset(PyDataset, mdata.Dataset):
    pass


if real_torch is not None:

    class TPyDataset(PyDataset, tdata.Dataset):
        pass


def numpy_epoch(x, y, batch_size, rng):
    """The baseline: a shuffled pass of fancy-indexed batches, no loader at all."""
    perm = rng.permutation(len(x))
    n = 0
    for s in range(0, len(x), batch_size):
        idx = perm[s : s + batch_size]
        xb, yb = x[idx], y[idx]
        n += 1
    del xb, yb
    return n


def to_cuda(lib, loader):
    """An epoch of the loader's pinned batches copied to the GPU without blocking, synchronized at the end."""

    def epoch():
        for xb, yb in loader:
            xb.to("cuda", non_blocking=True)
            yb.to("cuda", non_blocking=True)
            yield None
        lib.cuda.synchronize()

    return epoch


def epoch_time(make_iter):
    t0 = time.perf_counter()
    n = 0
    for _ in make_iter():
        n += 1
    return time.perf_counter() - t0, n


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=8192, help="samples per epoch")
    ap.add_argument("--features", type=int, default=3072, help="float32 values per sample (3072 = 3x32x32)")
    ap.add_argument("--batch-size", type=int, default=64)
    ap.add_argument("--epochs", type=int, default=5, help="timed epochs per row (median reported)")
    ap.add_argument("--warmup", type=int, default=2, help="untimed epochs per loader first")
    args = ap.parse_args()

    rng = np.random.default_rng(0)
    x = rng.standard_normal((args.n, args.features), dtype=np.float32)
    y = rng.integers(0, 10, args.n).astype(np.int64)
    bs = args.batch_size
    batch_mb = bs * args.features * 4 / 1e6

    loaders = {}  # (dataset, library, workers) -> callable returning an iterable over one epoch
    np_rng = np.random.default_rng(1)
    loaders[("tensors", "numpy loop", 0)] = lambda: range(numpy_epoch(x, y, bs, np_rng))
    mt_tensors = mdata.TensorDataset(minitorch.from_numpy(x), minitorch.from_numpy(y))
    mt_python = MPyDataset(x, y)
    for nw in (0, 2):
        kw = {"num_workers": nw, "persistent_workers": nw > 0}
        loaders[("tensors", "minitorch", nw)] = mdata.DataLoader(
            mt_tensors, batch_size=bs, shuffle=True, **kw
        )
        loaders[("python", "minitorch", nw)] = mdata.DataLoader(mt_python, batch_size=bs, shuffle=True, **kw)
        if real_torch is not None:
            t_tensors = tdata.TensorDataset(real_torch.from_numpy(x), real_torch.from_numpy(y))
            loaders[("tensors", "torch", nw)] = tdata.DataLoader(t_tensors, batch_size=bs, shuffle=True, **kw)
            loaders[("python", "torch", nw)] = tdata.DataLoader(
                TPyDataset(x, y), batch_size=bs, shuffle=True, **kw
            )

    if minitorch.cuda.is_available():
        for nw in (0, 2):
            kw = {"num_workers": nw, "persistent_workers": nw > 0, "pin_memory": True}
            loaders[("pinned->cuda", "minitorch", nw)] = to_cuda(
                minitorch, mdata.DataLoader(mt_tensors, batch_size=bs, shuffle=True, **kw)
            )
            if real_torch is not None and real_torch.cuda.is_available():
                t_tensors = tdata.TensorDataset(real_torch.from_numpy(x), real_torch.from_numpy(y))
                loaders[("pinned->cuda", "torch", nw)] = to_cuda(
                    real_torch, tdata.DataLoader(t_tensors, batch_size=bs, shuffle=True, **kw)
                )

    def iterate(loader):
        return loader() if callable(loader) else iter(loader)

    for _ in range(args.warmup):  # starts the persistent workers, fills the shared-memory pools, faults pages
        for loader in loaders.values():
            epoch_time(lambda loader=loader: iterate(loader))
    times = {k: [] for k in loaders}
    counts = {}
    for _ in range(args.epochs):
        for k, loader in loaders.items():
            t, n = epoch_time(lambda loader=loader: iterate(loader))
            times[k].append(t)
            counts[k] = n

    print(f"# DataLoader throughput: {platform.processor() or platform.machine()}, {os.cpu_count()} CPUs")
    print(
        f"n={args.n}, {args.features} float32 per sample, batch {bs} ({batch_mb:.2f} MB), "
        f"median of {args.epochs} epochs; torch: {real_torch.__version__ if real_torch else 'not installed'}\n"
    )
    print("| dataset | loader | workers | batches/s | MB/s | vs numpy loop |")
    print("|---|---|---:|---:|---:|---:|")
    base = counts[("tensors", "numpy loop", 0)] / statistics.median(times[("tensors", "numpy loop", 0)])
    for (ds, lib, nw), ts in times.items():
        rate = counts[(ds, lib, nw)] / statistics.median(ts)
        print(f"| {ds} | {lib} | {nw} | {rate:,.0f} | {rate * batch_mb:,.0f} | {rate / base:.2f} |")


if __name__ == "__main__":
    main()
