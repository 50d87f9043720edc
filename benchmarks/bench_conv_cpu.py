"""minitorch beside PyTorch on CPU convolution, pooling and conv-net steps (issue 15; 3-D layers, issue 33), one
process each.

A report, not a test. One worker process per library (minitorch under this interpreter, PyTorch under
--torch-python, default /tmp/tv/bin/python); the parent asks them in turn for one timed sample, after a pause
of --gap seconds (the other library's OpenMP threads go idle), so repeats interleave and machine load hits
both alike (the same sampling as bench_vs_torch_cpu.py, `_timing.interleaved_samples`). Each sample records
wall time and the process's CPU time (`time.process_time`, all threads): on a shared machine wall time swings
with other jobs, while at one thread the CPU time is the work itself, so `--clock cpu` (the default with
--threads 1) gives ratios that stay put under load. Prints a Markdown table: median per call and R = t_torch /
t_minitorch (> 1: minitorch is faster), with the geometric mean of R.

Usage: PYTHONPATH=python python benchmarks/bench_conv_cpu.py [--threads 1] [--repeats 5] [-k resnet]
"""

import argparse
import json
import os
import platform
import statistics
import sys
import time

import numpy as np
from _timing import (
    Worker,
    add_sampling_options,
    find_torch_python,
    fmt,
    interleaved_samples,
    loops_for,
    report,
)

CASES = {}


def case(name):
    def deco(f):
        CASES[name] = f
        return f

    return deco


def rand(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


def tensor(t, a, requires_grad=False):
    x = t.from_numpy(np.ascontiguousarray(a)).clone()
    return x.requires_grad_() if requires_grad else x


def _conv(n, c, o, hw, k, stride=1, padding=0, groups=1, backward=True):
    """conv2d forward (and .sum().backward() through input, weight and bias when `backward`)."""

    def make(t):
        t.manual_seed(0)
        conv = t.nn.Conv2d(c, o, k, stride=stride, padding=padding, groups=groups)
        x = tensor(t, rand(n, c, hw, hw), requires_grad=backward)
        if not backward:

            def fwd():
                with t.no_grad():
                    conv(x)

            return fwd
        return lambda: conv(x).sum().backward()

    return make


# LeNet-5 (MNIST 28x28) and the CIFAR CNN below, at the batch sizes of the issue
for _n in (64,):
    case(f"LeNet conv1 5x5 1->6 @28 pad 2, N={_n} fwd")(_conv(_n, 1, 6, 28, 5, padding=2, backward=False))
    case(f"LeNet conv1 5x5 1->6 @28 pad 2, N={_n} fwd+bwd")(_conv(_n, 1, 6, 28, 5, padding=2))
    case(f"LeNet conv2 5x5 6->16 @14, N={_n} fwd")(_conv(_n, 6, 16, 14, 5, backward=False))
    case(f"LeNet conv2 5x5 6->16 @14, N={_n} fwd+bwd")(_conv(_n, 6, 16, 14, 5))
case("CIFAR conv 3x3 3->32 @32, N=32 fwd+bwd")(_conv(32, 3, 32, 32, 3, padding=1))
case("CIFAR conv 3x3 32->64 @16, N=32 fwd+bwd")(_conv(32, 32, 64, 16, 3, padding=1))
case("CIFAR conv 3x3 64->128 @8, N=32 fwd+bwd")(_conv(32, 64, 128, 8, 3, padding=1))
# ResNet-18's layer shapes (224x224 input), batch 32
case("ResNet stem 7x7/2 3->64 @224, N=32 fwd")(_conv(32, 3, 64, 224, 7, stride=2, padding=3, backward=False))
case("ResNet 3x3 64->64 @56, N=32 fwd")(_conv(32, 64, 64, 56, 3, padding=1, backward=False))
case("ResNet 3x3 64->64 @56, N=32 fwd+bwd")(_conv(32, 64, 64, 56, 3, padding=1))
case("ResNet 3x3 128->128 @28, N=32 fwd+bwd")(_conv(32, 128, 128, 28, 3, padding=1))
case("ResNet 3x3/2 128->256 @28, N=32 fwd+bwd")(_conv(32, 128, 256, 28, 3, stride=2, padding=1))
case("ResNet 3x3 256->256 @14, N=32 fwd+bwd")(_conv(32, 256, 256, 14, 3, padding=1))
case("ResNet 3x3 512->512 @7, N=32 fwd+bwd")(_conv(32, 512, 512, 7, 3, padding=1))
case("ResNet 1x1/2 64->128 @56, N=32 fwd+bwd")(_conv(32, 64, 128, 56, 1, stride=2))
case("ResNet 1x1 256->64 @56, N=32 fwd+bwd")(_conv(32, 256, 64, 56, 1))
case("depthwise 3x3 128 ch @28, N=32 fwd+bwd")(_conv(32, 128, 128, 28, 3, padding=1, groups=128))


def _pool(n, c, hw, fn, backward):
    def make(t):
        x = tensor(t, rand(n, c, hw, hw), requires_grad=backward)
        f = fn(t.nn.functional)
        if backward:
            return lambda: f(x).sum().backward()

        def fwd():
            with t.no_grad():
                f(x)

        return fwd

    return make


for _bw in (False, True):
    _s = " fwd+bwd" if _bw else " fwd"
    case("max_pool2d 2x2, 32x64x32x32" + _s)(_pool(32, 64, 32, lambda F: lambda x: F.max_pool2d(x, 2), _bw))
    case("max_pool2d 3x3/2 pad 1, 32x64x112x112" + _s)(
        _pool(32, 64, 112, lambda F: lambda x: F.max_pool2d(x, 3, 2, 1), _bw)
    )
    case("avg_pool2d 2x2, 32x64x32x32" + _s)(_pool(32, 64, 32, lambda F: lambda x: F.avg_pool2d(x, 2), _bw))
    case("adaptive_avg_pool2d ->1, 32x512x7x7" + _s)(
        _pool(32, 512, 7, lambda F: lambda x: F.adaptive_avg_pool2d(x, 1), _bw)
    )


def _step(t, model, n, c, hw):
    x = tensor(t, rand(n, c, hw, hw))
    y = t.from_numpy(np.random.default_rng(3).integers(0, 10, n))
    opt = t.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    loss_fn = t.nn.CrossEntropyLoss()

    def f():
        opt.zero_grad()
        loss_fn(model(x), y).backward()
        opt.step()

    return f


def _lenet(n):
    def make(t):
        nn = t.nn
        t.manual_seed(0)
        m = nn.Sequential(
            nn.Conv2d(1, 6, 5, padding=2), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(6, 16, 5), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(),
            nn.Linear(400, 120), nn.ReLU(), nn.Linear(120, 84), nn.ReLU(), nn.Linear(84, 10),
        )  # fmt: skip
        return _step(t, m, n, 1, 28)

    return make


def _cifar(n):
    def make(t):
        nn = t.nn
        t.manual_seed(0)

        def block(i, o):
            return [nn.Conv2d(i, o, 3, padding=1, bias=False), nn.BatchNorm2d(o), nn.ReLU(), nn.MaxPool2d(2)]

        m = nn.Sequential(
            *block(3, 32), *block(32, 64), *block(64, 128), nn.Flatten(), nn.Linear(128 * 16, 10)
        )
        return _step(t, m, n, 3, 32)

    return make


case("LeNet train step, N=64")(_lenet(64))
case("LeNet train step, N=128")(_lenet(128))
case("CIFAR CNN train step (conv+BN+pool), N=32")(_cifar(32))
case("CIFAR CNN train step (conv+BN+pool), N=128")(_cifar(128))


# 3-D layers (issue 33): minitorch composes them from the 2-D kernels (nn/functional/_conv3d.py), PyTorch runs native 3-D
# kernels. Video-clip sizes of a small C3D: N x C x frames x H x W.
def _conv3d(n, c, o, d, hw, k, stride=1, padding=0, transposed=False):
    def make(t):
        t.manual_seed(0)
        cls = t.nn.ConvTranspose3d if transposed else t.nn.Conv3d
        conv = cls(c, o, k, stride=stride, padding=padding)
        x = tensor(t, rand(n, c, d, hw, hw), requires_grad=True)
        return lambda: conv(x).sum().backward()

    return make


def _pool3d(fn):
    def make(t):
        x = tensor(t, rand(8, 32, 8, 28, 28), requires_grad=True)
        f = fn(t.nn.functional)
        return lambda: f(x).sum().backward()

    return make


def _c3d(n):
    def make(t):
        nn = t.nn
        t.manual_seed(0)

        def block(i, o, pool):
            return [
                nn.Conv3d(i, o, 3, padding=1, bias=False),
                nn.BatchNorm3d(o),
                nn.ReLU(),
                nn.MaxPool3d(pool),
            ]

        m = nn.Sequential(
            *block(3, 16, (1, 2, 2)), *block(16, 32, 2), *block(32, 64, 2),
            nn.AdaptiveAvgPool3d(1), nn.Flatten(), nn.Linear(64, 10),
        )  # fmt: skip
        x = tensor(t, rand(n, 3, 8, 32, 32))
        y = t.from_numpy(np.random.default_rng(3).integers(0, 10, n))
        opt = t.optim.SGD(m.parameters(), lr=0.01, momentum=0.9)
        loss_fn = t.nn.CrossEntropyLoss()

        def f():
            opt.zero_grad()
            loss_fn(m(x), y).backward()
            opt.step()

        return f

    return make


case("conv3d 3x3x3 3->16 @8x56x56, N=4 fwd+bwd")(_conv3d(4, 3, 16, 8, 56, 3, padding=1))
case("conv3d 3x3x3 32->32 @8x28x28, N=4 fwd+bwd")(_conv3d(4, 32, 32, 8, 28, 3, padding=1))
case("conv3d 3x3x3/2 32->64 @8x28x28, N=4 fwd+bwd")(_conv3d(4, 32, 64, 8, 28, 3, stride=2, padding=1))
case("conv3d 1x3x3 32->32 @8x28x28, N=4 fwd+bwd")(_conv3d(4, 32, 32, 8, 28, (1, 3, 3), padding=(0, 1, 1)))
case("conv_transpose3d 2x2x2/2 32->16 @4x14x14, N=4 fwd+bwd")(
    _conv3d(4, 32, 16, 4, 14, 2, 2, transposed=True)
)
case("max_pool3d 2x2x2, 8x32x8x28x28 fwd+bwd")(_pool3d(lambda F: lambda x: F.max_pool3d(x, 2)))
case("avg_pool3d 3x3x3/2 pad 1, 8x32x8x28x28 fwd+bwd")(_pool3d(lambda F: lambda x: F.avg_pool3d(x, 3, 2, 1)))
case("adaptive_avg_pool3d ->1, 8x32x8x28x28 fwd+bwd")(
    _pool3d(lambda F: lambda x: F.adaptive_avg_pool3d(x, 1))
)
case("C3D-style train step (conv3d+BN3d+pool3d), N=8 3x8x32x32")(_c3d(8))


# ---- worker side (one library per process)


def worker(name):
    if name.startswith("minitorch"):
        import minitorch as t

        t.backends.mkldnn.enabled = name == "minitorch"  # "minitorch-im2col": oneDNN off
    else:
        import torch as t
    out = sys.stdout
    sys.stdout = sys.stderr  # stray prints must not break the protocol
    fns = {}
    for line in sys.stdin:
        cmd = json.loads(line)
        reply = None
        try:
            if cmd["op"] == "setup":
                fn = fns[cmd["case"]] = CASES[cmd["case"]](t)
                reply = loops_for(fn, cmd["min_time"], warmup=2, cap=1 << 16)
            elif cmd["op"] == "time":
                fn, n = fns[cmd["case"]], cmd["loops"]
                w0, c0 = time.perf_counter(), time.process_time()
                for _ in range(n):
                    fn()
                reply = [(time.perf_counter() - w0) / n, (time.process_time() - c0) / n]
            elif cmd["op"] == "drop":
                fns.pop(cmd["case"], None)
            elif cmd["op"] == "threads":
                t.set_num_threads(cmd["n"])
            elif cmd["op"] == "info":
                reply = {"version": t.__version__, "threads": t.get_num_threads()}
        except Exception as e:  # noqa: BLE001 (a missing op: report it, keep going)
            reply = {"error": f"{type(e).__name__}: {e}"[:200]}
        out.write(json.dumps(reply) + "\n")
        out.flush()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--worker")
    add_sampling_options(ap)
    ap.add_argument("--min-time", type=float, default=0.2)
    ap.add_argument(
        "-k", default="", help="only cases whose name contains this (case-insensitive; a,b: either)"
    )
    ap.add_argument("--torch-python", default=None)
    ap.add_argument("--threads", type=int, default=None, help="set_num_threads(N) in both")
    ap.add_argument("--clock", choices=["wall", "cpu"], default=None, help="default: cpu at 1 thread")
    ap.add_argument("--json", default=None, help="also write the results here")
    ap.add_argument("--im2col", action="store_true", help="add a column: minitorch with backends.mkldnn off")
    ap.add_argument(
        "--env",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="set in the minitorch workers only (e.g. GOMP_SPINCOUNT=300000); repeatable",
    )
    args = ap.parse_args()
    if args.worker:
        return worker(args.worker)
    clock = args.clock or ("cpu" if args.threads == 1 else "wall")

    env = dict(os.environ)
    here = os.path.dirname(os.path.abspath(__file__))
    env["PYTHONPATH"] = os.pathsep.join(
        p for p in [os.path.join(here, "..", "python"), env.get("PYTHONPATH")] if p
    )
    mt_env = dict(env, **dict(kv.split("=", 1) for kv in args.env))
    workers = [Worker("minitorch", sys.executable, mt_env, __file__)]
    if args.im2col:
        workers.append(Worker("minitorch-im2col", sys.executable, mt_env, __file__))
    tpy = find_torch_python(args.torch_python)
    if tpy:
        workers.append(Worker("torch", tpy, env, __file__))
    if args.threads:
        for w in workers:
            w.ask(op="threads", n=args.threads)
    info = {w.name: w.ask(op="info") for w in workers}
    print(
        f"# {platform.processor() or platform.machine()}, {os.cpu_count()} CPUs, "
        f"load {os.getloadavg()[0]:.1f} at start, {clock} time"
    )
    print("# " + ", ".join(f"{k} {v['version']} ({v['threads']} threads)" for k, v in info.items()))
    print()
    names = [w.name for w in workers]
    print("| case | " + " | ".join(names) + " | R = torch/minitorch |")
    print("|---|" + "---|" * len(names) + "---|")
    results, ratios = {}, []
    for name in CASES:
        if not any(k.strip() in name.lower() for k in args.k.lower().split(",")):
            continue
        loops = {w.name: w.ask(op="setup", case=name, min_time=args.min_time) for w in workers}
        live = [w for w in workers if isinstance(loops[w.name], int)]
        samples = interleaved_samples(live, name, loops, args.repeats, args.gap)
        for w in workers:
            w.ask(op="drop", case=name)
        ci = 1 if clock == "cpu" else 0
        med = {k: statistics.median(s[ci] for s in v) for k, v in samples.items()}
        r = med["torch"] / med["minitorch"] if "torch" in med and "minitorch" in med else None
        if r:
            ratios.append(r)
        results[name] = {"median_s": med, "R": r, "samples": samples}
        errors = {k: v for k, v in loops.items() if isinstance(v, dict)}
        flag = "" if r is None or r >= 1 else " **<1**"
        extra = f" ({errors})" if errors else ""
        cols = " | ".join(fmt(med.get(k)) for k in names)
        print(f"| {name} | {cols} | {f'{r:.2f}' if r else '-'}{flag} |{extra}", flush=True)
    for w in workers:
        w.close()
    report(ratios, results, args.json)


if __name__ == "__main__":
    main()
