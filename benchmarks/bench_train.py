"""Training steps per second: the seeds' SimpleNN, an MNIST MLP and a LeNet CNN, one full step (zero_grad,
forward, loss, backward, SGD/Adam step) with the same code run by minitorch and by PyTorch, on the CPU and on
CUDA when present; a hand-written NumPy step as the CPU floor for the MLPs. With --amp (GPU): the same steps
in float32, TF32, float16 + GradScaler and bfloat16 autocast, and the AMP speedup of each library.

Each library runs in its own process: NumPy's OpenBLAS, our OpenBLAS and PyTorch's OpenMP pools each spin
while waiting for work, and sharing two cores made every column several times slower than it is alone.

A report, not a test. Usage: PYTHONPATH=python python benchmarks/bench_train.py [--amp] [--quick]
"""

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import time

import numpy as np

import minitorch

try:  # real PyTorch as a second column, only where it is installed
    import torch as real_torch
except ImportError:
    real_torch = None


def models(lib):
    nn = lib.nn

    class SimpleNN(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc1 = nn.Linear(3, 10)
            self.fc2 = nn.Linear(10, 2)

        def forward(self, x):
            return self.fc2(lib.relu(self.fc1(x)))

    def mlp():
        return nn.Sequential(nn.Flatten(), nn.Linear(784, 256), nn.ReLU(), nn.Linear(256, 10))

    def lenet():
        return nn.Sequential(
            nn.Conv2d(1, 6, 5, padding=2),
            nn.ReLU(),
            nn.MaxPool2d(2),
            nn.Conv2d(6, 16, 5),
            nn.ReLU(),
            nn.MaxPool2d(2),
            nn.Flatten(),
            nn.Linear(16 * 5 * 5, 120),
            nn.ReLU(),
            nn.Linear(120, 84),
            nn.ReLU(),
            nn.Linear(84, 10),
        )

    return {"SimpleNN": (SimpleNN, (3,), 2), "MLP": (mlp, (1, 28, 28), 10), "LeNet": (lenet, (1, 28, 28), 10)}


CASES = [
    ("SimpleNN", 100, "sgd"),
    ("MLP", 64, "sgd"),
    ("MLP", 256, "sgd"),
    ("LeNet", 32, "adam"),
    ("LeNet", 128, "adam"),
]


def make_step(lib, name, batch, opt_name, device, mode="fp32"):
    factory, shape, classes = models(lib)[name]
    lib.manual_seed(0)
    model = factory().to(device)
    rng = np.random.default_rng(0)
    x = lib.from_numpy(rng.standard_normal((batch, *shape)).astype(np.float32)).to(device)
    y = lib.from_numpy(rng.integers(0, classes, size=batch).astype(np.int64)).to(device)
    opt = (lib.optim.SGD(model.parameters(), lr=0.01, momentum=0.9) if opt_name == "sgd"
           else lib.optim.Adam(model.parameters(), lr=1e-3))  # fmt: skip
    crit = lib.nn.CrossEntropyLoss()
    amp_dtype = {"fp16": lib.float16, "bf16": lib.bfloat16}.get(mode)
    scaler = lib.amp.GradScaler("cuda") if mode == "fp16" else None
    sync = lib.cuda.synchronize if device == "cuda" else (lambda: None)

    def step():
        opt.zero_grad()
        if amp_dtype is not None:
            with lib.autocast(device_type=device, dtype=amp_dtype):
                loss = crit(model(x), y)
        else:
            loss = crit(model(x), y)
        if scaler is not None:
            scaler.scale(loss).backward()
            scaler.step(opt)
            scaler.update()
        else:
            loss.backward()
            opt.step()

    return step, sync


def numpy_step(name, batch):
    """SGD-momentum step of the MLPs in NumPy (float32): forward, softmax cross entropy, backward, update."""
    rng = np.random.default_rng(0)
    sizes = {"SimpleNN": [3, 10, 2], "MLP": [784, 256, 10]}[name]
    ws = [rng.standard_normal((o, i)).astype(np.float32) * 0.1 for i, o in zip(sizes, sizes[1:])]
    bs = [np.zeros(o, np.float32) for o in sizes[1:]]
    vel = [np.zeros_like(p) for p in ws + bs]
    x = rng.standard_normal((batch, sizes[0])).astype(np.float32)
    y = rng.integers(0, sizes[-1], size=batch)

    def step():
        h = x @ ws[0].T + bs[0]
        a = np.maximum(h, 0)
        z = a @ ws[1].T + bs[1]
        p = np.exp(z - z.max(1, keepdims=True))
        p /= p.sum(1, keepdims=True)
        p[np.arange(batch), y] -= 1
        dz = p / batch
        grads = [None, dz.T @ a, None, dz.sum(0)]
        dh = (dz @ ws[1]) * (h > 0)
        grads[0], grads[2] = dh.T @ x, dh.sum(0)
        for i, (prm, g) in enumerate(zip(ws + bs, grads)):
            vel[i] = 0.9 * vel[i] + g
            prm -= 0.01 * vel[i]

    return step


def time_step(step, sync, min_time):
    for _ in range(5):
        step()
    sync()
    n, t = 1, 0.0
    while True:
        t0 = time.perf_counter()
        for _ in range(n):
            step()
        sync()
        t = time.perf_counter() - t0
        if t > min_time / 5:
            break
        n *= 2
    loops = max(1, int(n * min_time / t))
    samples = []
    for _ in range(5):
        t0 = time.perf_counter()
        for _ in range(loops):
            step()
        sync()
        samples.append((time.perf_counter() - t0) / loops)
    return statistics.median(samples)


def worker(args):
    """One measurement in this process: prints seconds per step as JSON."""
    name, batch, opt_name = CASES[args.case] if args.case >= 0 else (args.model, args.batch, "sgd")
    if args.worker == "numpy":
        print(json.dumps(time_step(numpy_step(name, batch), lambda: None, args.min_time)))
        return
    lib = minitorch if args.worker == "minitorch" else real_torch
    if args.mode == "tf32":
        lib.backends.cuda.matmul.allow_tf32 = True
    lib.backends.cudnn.allow_tf32 = args.mode == "tf32"
    step, sync = make_step(lib, name, batch, opt_name, args.device, args.mode)
    print(json.dumps(time_step(step, sync, args.min_time)))


def measure(lib, device, min_time, case=-1, model=None, batch=None, mode="fp32"):
    cmd = [sys.executable, __file__, "--worker", lib, "--device", device, "--case", str(case),
           "--min-time", str(min_time), "--mode", mode]  # fmt: skip
    if model:
        cmd += ["--model", model, "--batch", str(batch)]
    out = subprocess.run(cmd, capture_output=True, text=True, check=True, env=os.environ)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--amp", action="store_true", help="also fp32/TF32/fp16/bf16 steps on CUDA")
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--worker", help=argparse.SUPPRESS)
    ap.add_argument("--device", default="cpu", help=argparse.SUPPRESS)
    ap.add_argument("--case", type=int, default=-1, help=argparse.SUPPRESS)
    ap.add_argument("--model", help=argparse.SUPPRESS)
    ap.add_argument("--batch", type=int, help=argparse.SUPPRESS)
    ap.add_argument("--mode", default="fp32", help=argparse.SUPPRESS)
    ap.add_argument("--min-time", type=float, default=0.3, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        worker(args)
        return
    min_time = 0.05 if args.quick else 0.3
    devices = ["cpu"] + (["cuda"] if minitorch.cuda.is_available() else [])
    libs = ["minitorch"] + (["torch"] if real_torch is not None else [])
    print(f"# training steps/s ({platform.processor() or platform.machine()}, {os.cpu_count()} cores,"
          f" minitorch {minitorch.__version__}{', torch ' + real_torch.__version__ if real_torch else ''})\n")  # fmt: skip
    print(
        "| device | model | batch | optimizer | numpy steps/s | minitorch steps/s | torch steps/s | minitorch/torch |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for device in devices:
        for i, (name, batch, opt_name) in enumerate(CASES):
            res = {lib: measure(lib, device, min_time, i) for lib in libs}
            if device == "cpu" and name in ("SimpleNN", "MLP") and opt_name == "sgd":
                res["numpy"] = measure("numpy", device, min_time, i)
            cell = {k: f"{1 / v:,.0f}" for k, v in res.items()}
            ratio = f"{res['torch'] / res['minitorch']:.2f}x" if "torch" in res else "-"
            print(f"| {device} | {name} | {batch} | {opt_name} | {cell.get('numpy', '-')} | {cell['minitorch']} |"
                  f" {cell.get('torch', '-')} | {ratio} |", flush=True)  # fmt: skip
    if args.amp and "cuda" in devices:
        print("\n# AMP on CUDA: steps/s per precision and the speedup over float32 (ratio of ratios)\n")
        print(
            "| model | batch | lib | fp32 | tf32 | fp16+GradScaler | bf16 autocast | fp16 speedup | bf16 speedup |"
        )
        print("|---|---|---|---|---|---|---|---|---|")
        for name, batch in [("MLP", 256), ("LeNet", 128)]:
            for lib in libs:
                res = {
                    m: measure(lib, "cuda", min_time, -1, name, batch, m)
                    for m in ("fp32", "tf32", "fp16", "bf16")
                }
                print(f"| {name} | {batch} | {lib} | " + " | ".join(f"{1 / res[m]:,.0f}" for m in res)
                      + f" | {res['fp32'] / res['fp16']:.2f}x | {res['fp32'] / res['bf16']:.2f}x |", flush=True)  # fmt: skip


if __name__ == "__main__":
    main()
