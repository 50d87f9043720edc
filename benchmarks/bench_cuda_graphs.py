"""CUDA graphs: a whole training step (forward, backward, SGD step) captured once and replayed, beside the same
step run eagerly, in minitorch and in PyTorch, in one process (GPU machine only; prints "no GPU" elsewhere).

Each library builds the same model with the same seed, warms the step up on a side stream, captures it with
torch.cuda.graph (PyTorch's whole-network recipe), and each timed step copies a batch into the static inputs and
replays. The "compile" columns run the step with the model under torch.compile(mode="reduce-overhead") (forward
and backward replayed as CUDA graphs, the optimizer step eager; cudagraph_mark_step_begin before each step). Steps/s are medians of interleaved repeats (benchmarks/README.md has the protocol); the ratio columns
compare within the run. Usage: python benchmarks/bench_cuda_graphs.py [--min-time S] [--torch-compile]
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


def build(lib, name, batch, compiled=False):
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
    run = lib.compile(model, mode="reduce-overhead") if compiled else model

    def eager():
        if compiled:
            lib.compiler.cudagraph_mark_step_begin()
        opt.zero_grad(set_to_none=True)
        crit(run(x), y).backward()
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


def compiled_step(lib, name, batch):
    """The step with the model under torch.compile(mode="reduce-overhead"), after the calls that capture, warm up
    and record its graphs (so that their errors show here)."""
    step = build(lib, name, batch, compiled=True)[-1]
    for _ in range(4):
        step()
    lib.cuda.synchronize()
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
    # PyTorch's inductor compiles Triton kernels for each model (tens of seconds): off unless asked
    ap.add_argument("--torch-compile", action="store_true", help="also time PyTorch's torch.compile column")
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
    cols = [f"{k} {m}" for k in libs for m in ("eager", "graph", "compile")]
    print(
        "| model | batch | "
        + " | ".join(cols)
        + " | ours graph / torch eager | ours graph / torch graph | ours compile / torch compile |"
    )
    print("|---" * (len(cols) + 5) + "|")
    for name, batch in CASES:
        steps, errors = {}, {}
        for k, lib in libs.items():
            steps[f"{k} eager"] = build(lib, name, batch)[-1]
            for col, make in (("graph", captured_step), ("compile", compiled_step)):
                if lib is real_torch and col == "compile" and not args.torch_compile:
                    errors[f"{k} {col}"] = "not run: --torch-compile"
                    continue
                try:
                    steps[f"{k} {col}"] = make(lib, name, batch)
                except Exception as e:  # noqa: BLE001  (a failed capture or compile is a result to report)
                    errors[f"{k} {col}"] = f"{type(e).__name__}: {str(e).splitlines()[0][:80]}"
        samples = {c: [] for c in steps}
        for _ in range(3):  # interleaved: drift hits every column alike
            for c, fn in steps.items():
                lib = libs[c.split()[0]]
                samples[c].append(time_step(lib, fn, args.min_time / 3))
        rate = {c: 1.0 / statistics.median(v) for c, v in samples.items()}
        cells = [f"{rate[c]:,.0f}" if c in rate else f"({errors.get(c, '?')})" for c in cols]

        def ratio(a, b, rate=rate):
            return f"{rate[a] / rate[b]:.2f}x" if a in rate and b in rate else "-"

        print(
            f"| {name} | {batch} | "
            + " | ".join(cells)
            + f" | {ratio('minitorch graph', 'torch eager')} | {ratio('minitorch graph', 'torch graph')}"
            + f" | {ratio('minitorch compile', 'torch compile')} |",
            flush=True,
        )


if __name__ == "__main__":
    main()
