"""F.linear_cross_entropy forward+backward, reference path and chunked path (LinearCrossEntropyOptions()),
beside PyTorch's same two paths and a NumPy forward (logits, logsumexp, pick) in one process; one thread, an
LLM-head shape (N rows, in_features D, C classes), timed in the thread's CPU time (min of repeats).

  PYTHONPATH=python /tmp/tv/bin/python benchmarks/bench_linear_cross_entropy.py [--shape 2048,256,8192]

The Python running this needs both minitorch and PyTorch importable (the oracle's venv with PYTHONPATH=python)."""

import argparse
import os
import time

os.environ.setdefault("OMP_NUM_THREADS", "1")


def cpu_time(fn, repeat):
    best = float("inf")
    for _ in range(repeat):
        t0 = time.thread_time()
        fn()
        best = min(best, time.thread_time() - t0)
    return best


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--shape", default="2048,256,8192")
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    N, D, C = map(int, args.shape.split(","))

    import numpy as np
    import torch as real

    import minitorch

    real.set_num_threads(1)
    minitorch.set_num_threads(1)
    rng = np.random.default_rng(0)
    xn = (rng.standard_normal((N, D)) / 16).astype(np.float32)
    wn = (rng.standard_normal((C, D)) / 16).astype(np.float32)
    tn = rng.integers(0, C, N)

    def numpy_forward():
        z = xn @ wn.T
        m = z.max(1, keepdims=True)
        lse = m[:, 0] + np.log(np.exp(z - m).sum(1))
        return (lse - z[np.arange(N), tn]).mean()

    rows = [("NumPy forward only", cpu_time(numpy_forward, args.repeat), None)]
    for chunked in (False, True):
        times = {}
        for lib in (minitorch, real):
            x = lib.tensor(xn, requires_grad=True)
            w = lib.tensor(wn, requires_grad=True)
            t = lib.tensor(tn)
            opts = lib.nn.LinearCrossEntropyOptions() if chunked else None

            def step(lib=lib, x=x, w=w, t=t, opts=opts):
                lib.nn.functional.linear_cross_entropy(x, w, t, options=opts).backward()

            step()
            times[lib.__name__] = cpu_time(step, args.repeat)
        rows.append(("chunked" if chunked else "reference", times["minitorch"], times["torch"]))
    print(
        f"linear_cross_entropy fwd+bwd, N={N} D={D} C={C}, float32, one thread, CPU ms (R = PyTorch / ours)"
    )
    for name, ours, theirs in rows:
        if theirs is None:
            print(f"  {name:20s} {ours * 1e3:8.2f}")
        else:
            print(f"  {name:20s} ours {ours * 1e3:8.2f}  PyTorch {theirs * 1e3:8.2f}  R {theirs / ours:5.2f}")


if __name__ == "__main__":
    main()
