"""all_reduce bandwidth over Gloo on loopback, 1 KB - 64 MB, minitorch beside PyTorch's gloo (when torch
imports) in the same run, and NumPy's local sum of the same buffers as the compute floor; then
all_to_all_single with uneven split sizes (Gloo's alltoallv), beside NumPy's local regrouping of the blocks;
then nn.SyncBatchNorm's training step beside BatchNorm2d's on the same rank (the cost of the synchronization;
PyTorch refuses SyncBatchNorm on CPU inputs, so it has no column there).

A report, not a test. Usage: PYTHONPATH=python python benchmarks/bench_distributed.py [--world 2]
"""

import argparse
import json
import os
import platform
import socket
import statistics
import subprocess
import sys
import time

import numpy as np

SIZES = [1 << 10, 1 << 14, 1 << 17, 1 << 20, 1 << 22, 1 << 24, 1 << 26]  # bytes of float32
A2A_SIZES = [1 << 10, 1 << 14, 1 << 17, 1 << 20, 1 << 22, 1 << 24]  # bytes each rank sends in all
SBN_SHAPES = [(8, 16, 8, 8), (32, 64, 16, 16)]  # each rank's batch for the SyncBatchNorm step


def uneven_splits(nelem, world, rank):
    """Elements rank sends each peer: weights rank + peer + 1, so every pair exchanges a different amount
    (sums to nelem; the receiver's splits are the transpose)."""
    w = [rank + p + 1 for p in range(world)]
    splits = [nelem * x // sum(w) for x in w]
    splits[-1] += nelem - sum(splits)
    return splits


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _time_iters(fn, sync, min_time):
    for _ in range(3):
        fn()
    sync()
    iters = 1
    while True:
        t0 = time.perf_counter()
        for _ in range(iters):
            fn()
        sync()
        t = time.perf_counter() - t0
        if t >= min_time or iters >= 4096:
            return t / iters
        iters *= 2


def worker(lib, repeats, min_time):
    """Runs in each rank: the median seconds per all_reduce per size, printed as JSON by rank 0."""
    if lib == "torch":
        import torch
        import torch.distributed as dist

        make = lambda n: torch.ones(n, dtype=torch.float32)
    else:
        import minitorch
        import minitorch.distributed as dist

        make = lambda n: minitorch.ones(n, dtype=minitorch.float32)
    dist.init_process_group("gloo")

    def slowest(body, iters):
        # every rank runs the same iteration counts: each trial's figure is the slowest rank's (all-reduced)
        dist.barrier()
        t0 = time.perf_counter()
        for _ in range(iters):
            body()
        s = make(1) * (time.perf_counter() - t0)
        dist.all_reduce(s, op=dist.ReduceOp.MAX)
        return float(s.item())

    def per_call(body):
        """The median seconds per call of body over `repeats` trials of a calibrated iteration count."""
        slowest(body, 3)
        iters = 1
        while slowest(body, iters) < min_time and iters < 4096:
            iters *= 2
        return statistics.median(slowest(body, iters) / iters for _ in range(repeats))

    out = {}
    for nbytes in SIZES:
        t = make(nbytes // 4)
        out[nbytes] = per_call(lambda t=t: dist.all_reduce(t))

    rank, world = dist.get_rank(), dist.get_world_size()
    a2a = {}
    for nbytes in A2A_SIZES:
        n = nbytes // 4
        ins = uneven_splits(n, world, rank)
        outs = [uneven_splits(n, world, s)[rank] for s in range(world)]
        src, dst = make(n), make(sum(outs))
        a2a[nbytes] = per_call(
            lambda src=src, dst=dst, ins=ins, outs=outs: dist.all_to_all_single(
                dst, src, output_split_sizes=outs, input_split_sizes=ins
            )
        )
    sbn = {}
    if lib == "minitorch":
        for shape in SBN_SHAPES:
            x = minitorch.randn(*shape, requires_grad=True)
            for name, layer in (
                ("sync", minitorch.nn.SyncBatchNorm(shape[1])),
                ("local", minitorch.nn.BatchNorm2d(shape[1])),
            ):
                key = f"{name} {'x'.join(map(str, shape))}"
                sbn[key] = per_call(lambda layer=layer, x=x: layer(x).sum().backward())
    if rank == 0:
        print("RESULT " + json.dumps({"all_reduce": out, "all_to_all": a2a, "sync_bn": sbn}), flush=True)
    dist.destroy_process_group()


def launch(lib, world, repeats, min_time, python=sys.executable):
    port = _free_port()
    procs = []
    for r in range(world):
        env = dict(
            os.environ, MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port), RANK=str(r), WORLD_SIZE=str(world)
        )
        env.setdefault("OMP_NUM_THREADS", "1")
        cmd = [
            python,
            __file__,
            "--worker",
            lib,
            "--repeats",
            str(repeats),
            "--min-time",
            str(min_time),
        ]
        procs.append(subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, text=True))
    outs = [p.communicate(timeout=1200)[0] for p in procs]
    for p in procs:
        if p.returncode != 0:
            raise SystemExit(f"{lib} worker failed with exit code {p.returncode}")
    line = next(x for x in outs[0].splitlines() if x.startswith("RESULT "))
    res = json.loads(line[7:])
    sync_bn = res.pop("sync_bn", {})
    out = {op: {int(k): v for k, v in d.items()} for op, d in res.items()}
    out["sync_bn"] = sync_bn
    return out


def numpy_floor(world, min_time):
    """The local part of an all-reduce: summing `world` buffers of each size."""
    out = {}
    for nbytes in SIZES:
        bufs = [np.ones(nbytes // 4, dtype=np.float32) for _ in range(world)]
        acc = np.empty_like(bufs[0])

        def fn(bufs=bufs, acc=acc):
            np.copyto(acc, bufs[0])
            for b in bufs[1:]:
                np.add(acc, b, out=acc)

        out[nbytes] = _time_iters(fn, lambda: None, min_time)
    return out


def numpy_a2a_floor(world, min_time):
    """The local part of an uneven all-to-all: regrouping every rank's blocks by destination (one copy)."""
    out = {}
    for nbytes in A2A_SIZES:
        n = nbytes // 4
        bufs = [np.ones(n, dtype=np.float32) for _ in range(world)]
        offs = [np.concatenate([[0], np.cumsum(uneven_splits(n, world, s))]) for s in range(world)]
        dst = np.empty(sum(uneven_splits(n, world, s)[0] for s in range(world)), dtype=np.float32)

        def fn(bufs=bufs, offs=offs, dst=dst):
            o = 0
            for s in range(world):  # what rank 0 receives: block 0 of every sender
                blk = bufs[s][offs[s][0] : offs[s][1]]
                dst[o : o + blk.size] = blk
                o += blk.size

        out[nbytes] = _time_iters(fn, lambda: None, min_time)
    return out


def fmt_size(n):
    return f"{n >> 20} MB" if n >= 1 << 20 else f"{n >> 10} KB"


def fmt_t(s):
    return f"{s * 1e6:.0f} us" if s < 1e-3 else f"{s * 1e3:.2f} ms"


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--world", type=int, default=2)
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--min-time", type=float, default=0.2)
    p.add_argument("--worker", choices=["minitorch", "torch"])
    p.add_argument("--torch-python", default=None, help="interpreter whose torch runs the PyTorch column")
    args = p.parse_args()
    if args.worker:
        worker(args.worker, args.repeats, args.min_time)
        return
    mt = launch("minitorch", args.world, args.repeats, args.min_time)
    th = None
    if args.torch_python:
        th = launch("torch", args.world, args.repeats, args.min_time, args.torch_python)
    else:
        try:
            import torch.distributed  # noqa: F401

            th = launch("torch", args.world, args.repeats, args.min_time)
        except ImportError:
            pass
    npf = numpy_floor(args.world, args.min_time)
    n = args.world
    print(
        f"all_reduce(SUM) float32, gloo on loopback, world {n}, {platform.machine()}, {os.cpu_count()} cores"
    )
    print("busbw = size * 2 (n-1)/n / time (nccl-tests' convention)\n")
    hdr = "| size | minitorch | busbw | numpy local sum (floor) |"
    sep = "|---|---|---|---|"
    if th:
        hdr += " torch | t_torch / t_minitorch |"
        sep += "---|---|"
    print(hdr)
    print(sep)
    ar = mt["all_reduce"]
    for nbytes in SIZES:
        bw = nbytes * 2 * (n - 1) / n / ar[nbytes] / 1e9
        row = f"| {fmt_size(nbytes)} | {fmt_t(ar[nbytes])} | {bw:.2f} GB/s | {fmt_t(npf[nbytes])} |"
        if th:
            t = th["all_reduce"][nbytes]
            row += f" {fmt_t(t)} | {t / ar[nbytes]:.2f} |"
        print(row)

    npa = numpy_a2a_floor(n, args.min_time)
    print(f"\nall_to_all_single float32, uneven splits (peer weights rank + peer + 1), gloo, world {n}")
    print("size = bytes each rank sends in all; the NumPy floor regroups one rank's share locally\n")
    hdr = "| size | minitorch | numpy regroup (floor) |"
    sep = "|---|---|---|"
    if th:
        hdr += " torch | t_torch / t_minitorch |"
        sep += "---|---|"
    print(hdr)
    print(sep)
    aa = mt["all_to_all"]
    for nbytes in A2A_SIZES:
        row = f"| {fmt_size(nbytes)} | {fmt_t(aa[nbytes])} | {fmt_t(npa[nbytes])} |"
        if th:
            t = th["all_to_all"][nbytes]
            row += f" {fmt_t(t)} | {t / aa[nbytes]:.2f} |"
        print(row)

    sb = mt["sync_bn"]
    print(
        f"\nnn.SyncBatchNorm forward+backward (training, float32) beside BatchNorm2d on each rank, gloo, world {n}\n"
    )
    print("| per-rank input | SyncBatchNorm | BatchNorm2d | sync / local |")
    print("|---|---|---|---|")
    for shape in SBN_SHAPES:
        key = "x".join(map(str, shape))
        ts, tl = sb[f"sync {key}"], sb[f"local {key}"]
        print(f"| {key} | {fmt_t(ts)} | {fmt_t(tl)} | {ts / tl:.2f} |")


if __name__ == "__main__":
    main()
