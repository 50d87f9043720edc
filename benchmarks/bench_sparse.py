"""Sparse @ dense as a graph network does it (a random graph's adjacency times node features) on the CPU beside
scipy.sparse and PyTorch when `import torch` works: COO and CSR products, the backward pass to the values and
the features, coalescing and to_dense. Printed as a Markdown table; ratios are other / minitorch (above 1:
minitorch is faster).

The products run minitorch's CSR kernels (ops/sparse.h); `--composed` times the path they replaced (gather the
feature rows at the column indices, scale by the values, index_add into the output rows, which moves an
nnz x features intermediate through memory), still taken by hybrid, batched and non-float operands.

A report, not a test. Usage: PYTHONPATH=python python benchmarks/bench_sparse.py
(PyTorch's column appears when run with a Python that has PyTorch, e.g. PYTHONPATH=python /tmp/tv/bin/python ...).
"""

import argparse
import platform
import warnings

import numpy as np
import scipy.sparse as sp
from _timing import bench, fmt

import minitorch
from minitorch import sparse as mtsparse

try:
    import torch as real_torch
except ImportError:
    real_torch = None


def graph(nodes, edges, features, seed=0):
    rng = np.random.default_rng(seed)
    rows = rng.integers(0, nodes, edges)
    cols = rng.integers(0, nodes, edges)
    vals = rng.random(edges).astype(np.float32)
    x = rng.standard_normal((nodes, features)).astype(np.float32)
    return np.stack([rows, cols]), vals, x


def cases(nodes, edges, features):
    idx, vals, x = graph(nodes, edges, features)
    shape = (nodes, nodes)
    csr = sp.coo_matrix((vals, (idx[0], idx[1])), shape=shape).tocsr()
    coo = csr.tocoo()
    out = {
        "COO @ X (coalesced)": {"scipy": lambda: coo @ x},
        "CSR @ X": {"scipy": lambda: csr @ x},
        "X^T @ COO": {"scipy": lambda: (coo.T @ x).T},
        "COO @ X, backward": {},
        "coalesce (with duplicates)": {
            "scipy": lambda: sp.coo_matrix((vals, (idx[0], idx[1])), shape=shape).tocsr()
        },
        "to_dense (2k x 2k part)": {},
    }

    # minitorch
    S = mtsparse.sparse_coo_tensor(minitorch.from_numpy(idx), minitorch.from_numpy(vals), shape).coalesce()
    C = S.to_sparse_csr()
    U = mtsparse.sparse_coo_tensor(minitorch.from_numpy(idx), minitorch.from_numpy(vals), shape)
    X = minitorch.from_numpy(x)
    Xt = X.t().contiguous()
    small = mtsparse.sparse_coo_tensor(
        minitorch.from_numpy(idx % 2000), minitorch.from_numpy(vals), (2000, 2000)
    )
    Xg = X.clone().requires_grad_()
    Vg = S.values().detach().requires_grad_()
    Sidx = S.indices()

    def mt_backward():
        out = mtsparse.mm(mtsparse.sparse_coo_tensor(Sidx, Vg, shape, is_coalesced=True), Xg)
        out.sum().backward()
        Xg.grad = None
        Vg.grad = None

    out["COO @ X (coalesced)"]["minitorch"] = lambda: mtsparse.mm(S, X)
    out["CSR @ X"]["minitorch"] = lambda: C @ X
    out["X^T @ COO"]["minitorch"] = lambda: Xt @ S
    out["COO @ X, backward"]["minitorch"] = mt_backward
    out["coalesce (with duplicates)"]["minitorch"] = lambda: U._coalesced_(False).coalesce()
    out["to_dense (2k x 2k part)"]["minitorch"] = lambda: small.to_dense()
    out["to_dense (2k x 2k part)"]["scipy"] = lambda: sp.coo_matrix(
        (vals, (idx[0] % 2000, idx[1] % 2000)), shape=(2000, 2000)
    ).toarray()

    if real_torch is not None:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # PyTorch's beta and invariant-check notices
            tS = real_torch.sparse_coo_tensor(
                real_torch.from_numpy(idx), real_torch.from_numpy(vals), shape
            ).coalesce()
            tC = tS.to_sparse_csr()
            tU = real_torch.sparse_coo_tensor(real_torch.from_numpy(idx), real_torch.from_numpy(vals), shape)
            tsmall = real_torch.sparse_coo_tensor(
                real_torch.from_numpy(idx % 2000), real_torch.from_numpy(vals), (2000, 2000)
            )
        tX = real_torch.from_numpy(x)
        tXt = tX.t().contiguous()
        tXg = tX.clone().requires_grad_()
        tVg = tS.values().detach().requires_grad_()
        tSidx = tS.indices()

        def torch_backward():
            out = real_torch.sparse.mm(
                real_torch.sparse_coo_tensor(tSidx, tVg, shape, is_coalesced=True, check_invariants=False),
                tXg,
            )
            out.sum().backward()
            tXg.grad = None
            tVg.grad = None

        out["COO @ X (coalesced)"]["torch"] = lambda: real_torch.sparse.mm(tS, tX)
        out["CSR @ X"]["torch"] = lambda: tC @ tX
        out["X^T @ COO"]["torch"] = lambda: tXt @ tS
        out["COO @ X, backward"]["torch"] = torch_backward
        out["coalesce (with duplicates)"]["torch"] = lambda: tU.coalesce()
        out["to_dense (2k x 2k part)"]["torch"] = lambda: tsmall.to_dense()
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--nodes", type=int, default=10_000)
    ap.add_argument("--edges", type=int, default=100_000)
    ap.add_argument("--features", type=int, default=64)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--min-time", type=float, default=0.2)
    ap.add_argument(
        "--composed", action="store_true", help="minitorch without its CSR kernels (the composed path)"
    )
    args = ap.parse_args()
    if args.composed:
        from minitorch.sparse import _ops

        _ops._native_devices = set()
    print(
        f"{platform.processor() or platform.machine()}, {minitorch.get_num_threads()} threads; random graph: "
        f"{args.nodes} nodes, {args.edges} edges, {args.features} float32 features"
    )
    print("median of interleaved repeats; ratio = other / minitorch\n")
    print("| case | minitorch | scipy | scipy/mt | PyTorch | torch/mt |")
    print("|---|---|---|---|---|---|")
    for case, fns in cases(args.nodes, args.edges, args.features).items():
        t = bench(fns, args.repeats, args.min_time)
        mt = t["minitorch"]
        cols = []
        for lib in ("scipy", "torch"):
            cols += [fmt(t[lib]), f"{t[lib] / mt:.2f}"] if lib in t else ["-", "-"]
        print(f"| {case} | {fmt(mt)} | " + " | ".join(cols) + " |")


if __name__ == "__main__":
    main()
