"""CUDA graphs: a whole training step (forward, backward, SGD step) captured once and replayed, beside the same
step run eagerly, in minitorch and in PyTorch, in one process (GPU machine only; prints "no GPU" elsewhere).

Each library builds the same model with the same seed, warms the step up on a side stream, captures it with
torch.cuda.graph (PyTorch's whole-network recipe), and each timed step copies a batch into the static inputs and
replays. Steps/s are medians of interleaved repeats (benchmarks/README.md has the protocol); the ratio columns
compare within the run. Usage: python benchmarks/bench_cuda_graphs.py [--min-time S]
"""

import argparse
import statistics
import time

import numpy as np

import minitorch

try:
    import torch as real_torch
except ImportError:
    real_torch = None

# (model, batch): the seeds' SimpleNN (3-10-2) and an MNIST MLP, the tiny models whose steps are launch-bound
CASES = [("SimpleNN", 100), ("MLP", 64), ("MLP", 256)]


def build(lib, name, batch):
    nn = lib.nn
    lib.manual_seed(0)
    if name == "SimpleNN":
        model, shape, classes = nn.Sequential(nn.Linear(3, 10), nn.ReLU(), nn.Linear(10, 2)), (3,), 2
    else:
        model = nn.Sequential(nn.Flatten(), nn.Linear(784, 256), nn.ReLU(), nn.Linear(256, 10))
        shape, classes = (1, 28, 28), 10
    model = model.cuda()
    rng = np.random.default_rng(0)
    x = lib.from_numpy(rng.standard_normal((batch, *shape)).astype(np.float32)).cuda()
    y = lib.from_numpy(rng.integers(0, classes, size=batch).astype(np.int64)).cuda()
    opt = lib.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    crit = nn.CrossEntropyLoss()

    def eager():
        opt.zero_grad(set_to_none=True)
        crit(model(x), y).backward()
        opt.step()

    return model, opt, crit, x, y, eager


def captured_step(lib, name, batch):
    """The step as one graph replay (after copying the batch into the static inputs), or the capture's error."""
    model, opt, crit, x, y, eager = build(lib, name, batch)
    sx, sy = x.clone(), y.clone()
    s = lib.cuda.Stream()
    s.wait_stream(lib.cuda.current_stream())
    with lib.cuda.stream(s):
        for _ in range(3):
            eager()
    lib.cuda.current_stream().wait_stream(s)
    g = lib.cuda.CUDAGraph()
    opt.zero_grad(set_to_none=True)
    with lib.cuda.graph(g):
        loss = crit(model(sx), sy)
        loss.backward()
        opt.step()

    def step():
        sx.copy_(x)
        sy.copy_(y)
        g.replay()

    return step


def time_step(lib, step, min_time):
    """Median seconds per step over 5 batches of about min_time/5 each (synchronized per batch)."""
    for _ in range(5):
        step()
    lib.cuda.synchronize()
    n = 1
    while True:
        t0 = time.perf_counter()
        for _ in range(n):
            step()
        lib.cuda.synchronize()
        t = time.perf_counter() - t0
        if t > min_time / 5:
            break
        n *= 2
    loops = max(1, int(n * min_time / t))
    out = []
    for _ in range(5):
        t0 = time.perf_counter()
        for _ in range(loops):
            step()
        lib.cuda.synchronize()
        out.append((time.perf_counter() - t0) / loops)
    return statistics.median(out)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--min-time", type=float, default=0.2)
    args = ap.parse_args()
    if not minitorch.cuda.is_available():
        print("no GPU: CUDA graphs are measured on the GPU machine (scripts/gpu_check.sh bench)")
        return
    libs = {"minitorch": minitorch}
    if real_torch is not None and real_torch.cuda.is_available():
        libs["torch"] = real_torch
    print(
        f"GPU: {minitorch.cuda.get_device_name(0)}; steps/s (higher is better), median of interleaved repeats\n"
    )
    cols = [f"{k} {m}" for k in libs for m in ("eager", "graph")]
    print(
        "| model | batch | " + " | ".join(cols) + " | ours graph / torch eager | ours graph / torch graph |"
    )
    print("|---" * (len(cols) + 4) + "|")
    for name, batch in CASES:
        steps, errors = {}, {}
        for k, lib in libs.items():
            steps[f"{k} eager"] = build(lib, name, batch)[-1]
            try:
                steps[f"{k} graph"] = captured_step(lib, name, batch)
            except Exception as e:  # noqa: BLE001  (a failed capture is a result to report)
                errors[f"{k} graph"] = f"{type(e).__name__}: {str(e).splitlines()[0][:80]}"
        samples = {c: [] for c in steps}
        for _ in range(3):  # interleaved: drift hits every column alike
            for c, fn in steps.items():
                lib = libs[c.split()[0]]
                samples[c].append(time_step(lib, fn, args.min_time / 3))
        rate = {c: 1.0 / statistics.median(v) for c, v in samples.items()}
        cells = [f"{rate[c]:,.0f}" if c in rate else f"failed ({errors.get(c, '?')})" for c in cols]

        def ratio(a, b, rate=rate):
            return f"{rate[a] / rate[b]:.2f}x" if a in rate and b in rate else "-"

        print(
            f"| {name} | {batch} | "
            + " | ".join(cells)
            + f" | {ratio('minitorch graph', 'torch eager')} | {ratio('minitorch graph', 'torch graph')} |",
            flush=True,
        )


if __name__ == "__main__":
    main()
