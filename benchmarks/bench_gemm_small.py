"""Small and mid-size GEMMs on the CPU beside PyTorch: a process's first call, and the steady state per library.

oneDNN's sgemm generates its kernels on first use (~30 ms for the small-shape table), so minitorch runs a process's
float GEMMs on OpenBLAS until they add up to MINITORCH_SGEMM_ONEDNN_AFTER multiply-adds (kernels/cpu/BlasGemm.h),
then on oneDNN. Two tables, one thread, times in the calling thread's CPU time:
- first call: one fresh process per library and shape, the first product's time (PyTorch imported and warmed
  with one unrelated op, as minitorch is), then the second's;
- steady state: one process per minitorch library (MINITORCH_SGEMM_ONEDNN_AFTER=0: oneDNN from the start, what a
  process runs after the switch; a huge value: OpenBLAS, what it runs before), PyTorch in the same process, each
  row the best of --repeat batches. R = PyTorch's time / minitorch's (above 1: minitorch is faster).

A report, not a test. Usage (a Python with PyTorch, PYTHONPATH=python for minitorch):
  /tmp/tv/bin/python benchmarks/bench_gemm_small.py [--repeat 7] [-k 64x128] [--skip-first]
"""

import argparse
import json
import os
import subprocess
import sys

# (name, m, k, n, layout, dtype): layout "nn" is x @ w, "nt" x @ w.T (nn.Linear's), "tn" x.T @ w
SHAPES = [
    ("linear 64x128 -> 10", 64, 128, 10, "nt", "float32"),
    ("linear 64x784 -> 128", 64, 784, 128, "nt", "float32"),
    ("linear 64x128 -> 128", 64, 128, 128, "nt", "float32"),
    ("mm 64x128 @ 128x128", 64, 128, 128, "nn", "float32"),
    ("mm (128x64).T @ 128x128", 128, 64, 128, "tn", "float32"),
    ("mm 100x200 @ 200x50", 100, 200, 50, "nn", "float32"),
    ("linear 32x256 -> 256", 32, 256, 256, "nt", "float32"),
    ("mm 256^3", 256, 256, 256, "nn", "float32"),
    ("mm 64x512 @ 512x512", 64, 512, 512, "nn", "float32"),
    ("mm 64x576 @ 576x3136 (conv-shaped)", 64, 576, 3136, "nn", "float32"),
    ("mm 1024^3", 1024, 1024, 1024, "nn", "float32"),
    ("vec 1x1024 @ 1024x1024", 1, 1024, 1024, "nn", "float32"),
    ("mat 1024x1024 @ 1024x1", 1024, 1024, 1, "nn", "float32"),
    ("vec 1x1024 @ 1024x1024 f64", 1, 1024, 1024, "nn", "float64"),
    ("mat 1024x1024 @ 1024x1 f64", 1024, 1024, 1, "nn", "float64"),
    ("linear 64x128 -> 128 f64", 64, 128, 128, "nt", "float64"),
]

_CHILD = r"""
import json, sys, time, timeit
import numpy as np
lib, shapes, first, repeat = sys.argv[1], json.loads(sys.argv[2]), sys.argv[3] == "1", int(sys.argv[4])
libs = []
if lib in ("mt", "both"):
    import minitorch
    minitorch.set_num_threads(1)
    libs.append(("mt", minitorch))
if lib in ("torch", "both"):
    import torch
    torch.set_num_threads(1)
    libs.append(("torch", torch))
rng = np.random.default_rng(0)

def operands(L, m, k, n, layout, dtype):
    a = rng.standard_normal((k, m) if layout == "tn" else (m, k)).astype(dtype)
    b = rng.standard_normal((n, k) if layout == "nt" else (k, n)).astype(dtype)
    x, w = L.from_numpy(a), L.from_numpy(b)
    return (x.t() if layout == "tn" else x), (w.t() if layout == "nt" else w)

out = {}
for name, m, k, n, layout, dtype in shapes:
    row = {}
    for tag, L in libs:
        x, w = operands(L, m, k, n, layout, dtype)
        if first:  # warm the library with one unrelated op, then the first and the second product
            (x + 1).sum()
            t = time.thread_time(); x @ w; t1 = time.thread_time() - t
            t = time.thread_time(); x @ w; t2 = time.thread_time() - t
            row[tag] = [t1 * 1e6, t2 * 1e6]
        else:
            number = max(3, min(2000, int(2e7 / (2 * m * n * k))))
            x @ w
            row[tag] = min(timeit.repeat(lambda: x @ w, number=number, repeat=repeat, timer=time.thread_time))
            row[tag] *= 1e6 / number
    out[name] = row
print(json.dumps(out))
"""


def child(py, lib, shapes, first, repeat, env_extra):
    env = dict(os.environ, OMP_NUM_THREADS="1", MKL_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", **env_extra)
    cmd = [py, "-c", _CHILD, lib, json.dumps(shapes), "1" if first else "0", str(repeat)]
    return json.loads(subprocess.run(cmd, env=env, capture_output=True, text=True, check=True).stdout)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("-k", default="", help="only rows whose names contain one of these (comma separated)")
    ap.add_argument("--skip-first", action="store_true", help="only the steady-state table")
    args = ap.parse_args()
    only = [s for s in args.k.split(",") if s]
    shapes = [s for s in SHAPES if not only or any(k in s[0] for k in only)]
    py = sys.executable
    if not args.skip_first:
        print(
            "First product of a fresh process (us, thread CPU time): minitorch at its default, minitorch on"
        )
        print(
            "oneDNN from the first GEMM (MINITORCH_SGEMM_ONEDNN_AFTER=0, the dispatch before the switch), PyTorch"
        )
        print(
            "| shape | minitorch 1st | minitorch 2nd | oneDNN-first 1st | PyTorch 1st | PyTorch 2nd | R 1st |"
        )
        print("|---|---|---|---|---|---|---|")
        for s in shapes:
            ours = child(py, "mt", [s], True, 1, {})[s[0]]["mt"]
            old = child(py, "mt", [s], True, 1, {"MINITORCH_SGEMM_ONEDNN_AFTER": "0"})[s[0]]["mt"]
            theirs = child(py, "torch", [s], True, 1, {})[s[0]]["torch"]
            print(
                f"| {s[0]} | {ours[0]:.0f} | {ours[1]:.1f} | {old[0]:.0f} | {theirs[0]:.0f} | {theirs[1]:.1f} | "
                f"{theirs[0] / ours[0]:.2f} |",
                flush=True,
            )
        print()
    print("Steady state (us per product, best of the batches): minitorch on oneDNN (after the switch) and on")
    print("OpenBLAS (before it), PyTorch from the oneDNN run's process")
    res_dnnl = child(py, "both", shapes, False, args.repeat, {"MINITORCH_SGEMM_ONEDNN_AFTER": "0"})
    res_ob = child(py, "mt", shapes, False, args.repeat, {"MINITORCH_SGEMM_ONEDNN_AFTER": str(1 << 62)})
    print("| shape | PyTorch | minitorch oneDNN | R | minitorch OpenBLAS | R |")
    print("|---|---|---|---|---|---|")
    for s in shapes:
        t, d, o = res_dnnl[s[0]]["torch"], res_dnnl[s[0]]["mt"], res_ob[s[0]]["mt"]
        print(f"| {s[0]} | {t:.1f} | {d:.1f} | {t / d:.2f} | {o:.1f} | {t / o:.2f} |", flush=True)


if __name__ == "__main__":
    main()
