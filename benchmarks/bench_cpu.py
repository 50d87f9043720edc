"""CPU benchmarks of minitorch against NumPy (and PyTorch when installed), printed as a Markdown table.

A report, not a test: see benchmarks/README.md for the protocol. Usage: PYTHONPATH=python python benchmarks/bench_cpu.py
"""

import argparse
import os
import platform

import numpy as np
from _timing import bench, fmt

import minitorch

try:  # real PyTorch as a second column, only where it is installed
    import torch as real_torch
except ImportError:
    real_torch = None


def make_cases(sizes_gemm):
    """(name, work description, {library: fn}) for every case; inputs hold identical values."""
    rng = np.random.default_rng(0)
    cases = []

    def libs(np_fn, mt_fn, pt_fn=None):
        d = {"numpy": np_fn, "minitorch": mt_fn}
        if real_torch is not None and pt_fn is not None:
            d["torch"] = pt_fn
        return d

    def pair(shape):
        a = rng.standard_normal(shape).astype(np.float32)
        b = rng.standard_normal(shape).astype(np.float32)
        mt = (minitorch.tensor(a), minitorch.tensor(b))
        pt = (real_torch.tensor(a), real_torch.tensor(b)) if real_torch else (None, None)
        return (a, b), mt, pt

    def overhead(n):
        (a, b), (ma, mb), (pa, pb) = pair(n)
        return [(f"a + b, {n} el (overhead)", None, libs(lambda: a + b, lambda: ma + mb, lambda: pa + pb))]

    def elementwise(n, label):
        (a, b), (ma, mb), (pa, pb) = pair(n)
        out = [
            (f"add {label} f32", ("GB/s", 12 * n), libs(lambda: a + b, lambda: ma + mb, lambda: pa + pb)),
            (f"mul {label} f32", ("GB/s", 12 * n), libs(lambda: a * b, lambda: ma * mb, lambda: pa * pb)),
            (
                f"exp {label} f32",
                ("GB/s", 8 * n),
                libs(lambda: np.exp(a), lambda: minitorch.exp(ma), lambda: real_torch.exp(pa)),
            ),
        ]
        if hasattr(minitorch, "sum"):
            out.append(
                (
                    f"sum {label} f32",
                    ("GB/s", 4 * n),
                    libs(lambda: a.sum(), lambda: minitorch.sum(ma), lambda: real_torch.sum(pa)),
                )
            )
        return out

    def sgemm(n):
        (a, b), (ma, mb), (pa, pb) = pair((n, n))
        # correctness gate before timing
        np.testing.assert_allclose((ma @ mb).numpy(), a @ b, rtol=1e-3, atol=1e-2 * np.sqrt(n))
        return [
            (f"sgemm {n}x{n}", ("GFLOP/s", 2 * n**3), libs(lambda: a @ b, lambda: ma @ mb, lambda: pa @ pb))
        ]

    def indexing_and_rows():
        """x[i] overhead, a boolean mask, a labels gather and a row softmax (the training loop's shapes)."""
        (a, _), (ma, _), (pa, _) = pair((1000, 1000))
        mask = a > 0
        mmask, pmask = minitorch.tensor(mask), (real_torch.tensor(mask) if real_torch else None)
        labels = rng.integers(0, 1000, size=1000)
        mlab, plab = minitorch.tensor(labels), (real_torch.tensor(labels) if real_torch else None)
        rows = np.arange(1000)
        mrows = minitorch.arange(1000)
        prows = real_torch.arange(1000) if real_torch else None

        def np_softmax():
            e = np.exp(a - a.max(axis=1, keepdims=True))
            return e / e.sum(axis=1, keepdims=True)

        return [
            ("x[i] (overhead)", None, libs(lambda: a[5], lambda: ma[5], lambda: pa[5])),
            ("x[mask] 1e6 f32", None, libs(lambda: a[mask], lambda: ma[mmask], lambda: pa[pmask])),
            (
                "x[arange, labels] 1000",
                None,
                libs(lambda: a[rows, labels], lambda: ma[mrows, mlab], lambda: pa[prows, plab]),
            ),
            (
                "softmax 1000x1000 dim=1",
                ("GB/s", 8 * 10**6),
                libs(np_softmax, lambda: ma.softmax(1), lambda: pa.softmax(1)),
            ),
        ]

    for n in (1, 100):
        cases += overhead(n)
    cases += indexing_and_rows()
    for n, label in ((10**6, "1e6"), (16 * 10**6, "1.6e7")):
        cases += elementwise(n, label)
    for n in sizes_gemm:
        cases += sgemm(n)
    if not hasattr(minitorch, "sum"):
        print("(minitorch.sum is missing: sum cases skipped)\n")
    return cases


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--repeats", type=int, default=7)
    ap.add_argument("--min-time", type=float, default=0.2, help="seconds per repeat (approximately)")
    ap.add_argument("--gemm", type=int, nargs="*", default=[256, 1024, 2048])
    args = ap.parse_args()

    threads = os.environ.get("OPENBLAS_NUM_THREADS", "default")
    print(
        f"CPU: {platform.processor() or platform.machine()}, {os.cpu_count()} logical cores; "
        f"OPENBLAS_NUM_THREADS={threads}; minitorch threads={minitorch.get_num_threads()}"
        if hasattr(minitorch, "get_num_threads")
        else f"CPU: {platform.machine()}, {os.cpu_count()} logical cores; OPENBLAS_NUM_THREADS={threads}"
    )
    print(
        f"numpy {np.__version__}; minitorch {getattr(minitorch, '__version__', '?')}; "
        f"torch {real_torch.__version__ if real_torch else 'not installed'}"
    )
    print(
        f"median of {args.repeats} interleaved repeats, ~{args.min_time}s each; ratio = t_numpy / t_minitorch "
        "(> 1: minitorch faster)\n"
    )

    cases = make_cases(args.gemm)  # before the table, so its notes print above it
    has_torch = real_torch is not None
    head = "| case | numpy | minitorch | ratio | minitorch rate |"
    sep = "|---|---|---|---|---|"
    if has_torch:
        head += " torch | t_torch / t_minitorch |"
        sep += "---|---|"
    print(head)
    print(sep)
    for name, work, fns in cases:
        t = bench(fns, args.repeats, args.min_time)
        rate = ""
        if work:
            unit, amount = work
            rate = f"{amount / t['minitorch'] / 1e9:.1f} {unit}"
        row = f"| {name} | {fmt(t['numpy'])} | {fmt(t['minitorch'])} | {t['numpy'] / t['minitorch']:.2f} | {rate} |"
        if has_torch:
            row += f" {fmt(t['torch'])} | {t['torch'] / t['minitorch']:.2f} |"
        print(row, flush=True)


if __name__ == "__main__":
    main()
