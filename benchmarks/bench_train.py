"""Training steps per second: the seeds' SimpleNN, an MNIST MLP, a LeNet CNN, a CIFAR CNN and (GPU only)
ResNet-18, one full step (zero_grad, forward, loss, backward, SGD/Adam step) with the same code run by
minitorch and by PyTorch, on the CPU and on CUDA when present; a hand-written NumPy step as the CPU floor for the MLPs. With --amp (GPU): the same steps
in float32, TF32, float16 + GradScaler and bfloat16 autocast, and the AMP speedup of each library.

Each library runs in its own process: NumPy's OpenBLAS, our OpenBLAS and PyTorch's OpenMP pools each spin
while waiting for work, and sharing two cores made every column several times slower than it is alone.

A report, not a test. Usage: PYTHONPATH=python python benchmarks/bench_train.py [--amp] [--quick] [--device cuda]
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

    def cifar_cnn():  # conv + BatchNorm + pool blocks on 3x32x32, the CIFAR-10 tutorials' shape
        def block(i, o):
            return [nn.Conv2d(i, o, 3, padding=1), nn.BatchNorm2d(o), nn.ReLU(), nn.MaxPool2d(2)]

        return nn.Sequential(
            *block(3, 32), *block(32, 64), *block(64, 128), nn.Flatten(), nn.Linear(128 * 16, 10)
        )

    class BasicBlock(nn.Module):
        def __init__(self, i, o, stride):
            super().__init__()
            self.conv1 = nn.Conv2d(i, o, 3, stride, 1, bias=False)
            self.bn1 = nn.BatchNorm2d(o)
            self.conv2 = nn.Conv2d(o, o, 3, 1, 1, bias=False)
            self.bn2 = nn.BatchNorm2d(o)
            self.down = None
            if stride != 1 or i != o:
                self.down = nn.Sequential(nn.Conv2d(i, o, 1, stride, bias=False), nn.BatchNorm2d(o))

        def forward(self, x):
            out = lib.relu(self.bn1(self.conv1(x)))
            out = self.bn2(self.conv2(out))
            return lib.relu(out + (x if self.down is None else self.down(x)))

    def resnet18():  # torchvision's layout (7x7 stem, four stages of two basic blocks), 1000 classes
        layers = [nn.Conv2d(3, 64, 7, 2, 3, bias=False), nn.BatchNorm2d(64), nn.ReLU(), nn.MaxPool2d(3, 2, 1)]
        chans = 64
        for o, stride in ((64, 1), (128, 2), (256, 2), (512, 2)):
            layers += [BasicBlock(chans, o, stride), BasicBlock(o, o, 1)]
            chans = o
        return nn.Sequential(*layers, nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(512, 1000))

    return {
        "SimpleNN": (SimpleNN, (3,), 2),
        "MLP": (mlp, (1, 28, 28), 10),
        "LeNet": (lenet, (1, 28, 28), 10),
        "CIFAR-CNN": (cifar_cnn, (3, 32, 32), 10),
        "ResNet-18": (resnet18, (3, 224, 224), 1000),
    }


# (model, batch, optimizer, devices): ResNet-18 at 224x224 takes seconds per step on two cores, so GPU only.
CASES = [
    ("SimpleNN", 100, "sgd", "cpu cuda"),
    ("MLP", 64, "sgd", "cpu cuda"),
    ("MLP", 256, "sgd", "cpu cuda"),
    ("LeNet", 32, "adam", "cpu cuda"),
    ("LeNet", 128, "adam", "cpu cuda"),
    ("CIFAR-CNN", 32, "sgd", "cpu cuda"),
    ("CIFAR-CNN", 128, "sgd", "cuda"),
    ("ResNet-18", 32, "sgd", "cuda"),
]
# The AMP table (CUDA): float32, TF32, float16 + GradScaler and bfloat16 autocast of each.
AMP_CASES = [("MLP", 256, "sgd"), ("LeNet", 128, "adam"), ("CIFAR-CNN", 128, "sgd"), ("ResNet-18", 32, "sgd")]
MODES = ("fp32", "tf32", "fp16", "bf16")


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
    """The measurements of one library on one device, in this process: prints seconds per step as JSON, one
    number per job of --jobs (a JSON list of [model, batch, optimizer, mode])."""
    out = []
    for name, batch, opt_name, mode in json.loads(args.jobs):
        if args.worker == "numpy":
            out.append(time_step(numpy_step(name, batch), lambda: None, args.min_time))
            continue
        lib = minitorch if args.worker == "minitorch" else real_torch
        if args.device == "cuda":
            lib.backends.cuda.matmul.allow_tf32 = mode == "tf32"
            lib.backends.cudnn.allow_tf32 = mode == "tf32"
        step, sync = make_step(lib, name, batch, opt_name, args.device, mode)
        out.append(time_step(step, sync, args.min_time))
        del step
        if args.device == "cuda":
            lib.cuda.empty_cache()
    print(json.dumps(out))


def measure(lib, device, min_time, jobs):
    """Seconds per step of each job, measured in a fresh process of its own per library (pools of several
    libraries sharing two cores make every column slower)."""
    cmd = [sys.executable, __file__, "--worker", lib, "--device", device, "--min-time", str(min_time),
           "--jobs", json.dumps(jobs)]  # fmt: skip
    out = subprocess.run(cmd, check=False, capture_output=True, text=True, env=os.environ)
    if out.returncode != 0:
        raise RuntimeError(f"{lib} worker failed:\n{out.stderr[-2000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--amp", action="store_true", help="also fp32/TF32/fp16/bf16 steps on CUDA")
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--device", default=None, help="cpu or cuda (default: both where present)")
    ap.add_argument("--worker", help=argparse.SUPPRESS)
    ap.add_argument("--jobs", help=argparse.SUPPRESS)
    ap.add_argument(
        "--min-time", type=float, default=None, help="seconds per sample (default 0.3, 0.05 quick)"
    )
    args = ap.parse_args()
    min_time = args.min_time or (0.05 if args.quick else 0.3)
    if args.worker:
        args.min_time = min_time
        worker(args)
        return
    devices = [args.device] if args.device else ["cpu"] + (["cuda"] if minitorch.cuda.is_available() else [])
    libs = ["minitorch"] + (["torch"] if real_torch is not None else [])
    print(f"# training steps/s ({platform.processor() or platform.machine()}, {os.cpu_count()} cores,"
          f" minitorch {minitorch.__version__}{', torch ' + real_torch.__version__ if real_torch else ''})\n")  # fmt: skip
    print(
        "| device | model | batch | optimizer | numpy steps/s | minitorch steps/s | torch steps/s | minitorch/torch |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for device in devices:
        cases = [c[:3] for c in CASES if device in c[3].split()]
        res = {lib: measure(lib, device, min_time, [[*c, "fp32"] for c in cases]) for lib in libs}
        floor = [c for c in cases if device == "cpu" and c[0] in ("SimpleNN", "MLP") and c[2] == "sgd"]
        np_res = (
            dict(zip(floor, measure("numpy", device, min_time, [[*c, "fp32"] for c in floor])))
            if floor
            else {}
        )
        for i, (name, batch, opt_name) in enumerate(cases):
            mt = res["minitorch"][i]
            th = res["torch"][i] if "torch" in res else None
            npc = f"{1 / np_res[(name, batch, opt_name)]:,.0f}" if (name, batch, opt_name) in np_res else "-"
            ratio = f"{th / mt:.2f}x" if th else "-"
            print(f"| {device} | {name} | {batch} | {opt_name} | {npc} | {1 / mt:,.0f} |"
                  f" {f'{1 / th:,.0f}' if th else '-'} | {ratio} |", flush=True)  # fmt: skip
    if args.amp and "cuda" in devices:
        print("\n# AMP on CUDA: steps/s per precision and the speedup over float32 (ratio of ratios)\n")
        print(
            "| model | batch | lib | fp32 | tf32 | fp16+GradScaler | bf16 autocast | fp16 speedup | bf16 speedup |"
        )
        print("|---|---|---|---|---|---|---|---|---|")
        jobs = [[*c, m] for c in AMP_CASES for m in MODES]
        res = {lib: measure(lib, "cuda", min_time, jobs) for lib in libs}
        for j, (name, batch, _) in enumerate(AMP_CASES):
            for lib in libs:
                t = dict(zip(MODES, res[lib][j * len(MODES) : (j + 1) * len(MODES)]))
                print(f"| {name} | {batch} | {lib} | " + " | ".join(f"{1 / t[m]:,.0f}" for m in MODES)
                      + f" | {t['fp32'] / t['fp16']:.2f}x | {t['fp32'] / t['bf16']:.2f}x |", flush=True)  # fmt: skip


if __name__ == "__main__":
    main()
