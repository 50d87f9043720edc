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
        "sparse_csr_tensor(crow, col, values, size)": {
            "scipy": lambda: sp.csr_matrix((csr.data, csr.indices, csr.indptr), shape=shape)
        },
        "same, check_invariants=True": {},
        "CSR to_dense (2k x 2k part)": {},
        "dense 2k x 2k .to_sparse_csr()": {},
        "CSC @ X": {"scipy": lambda: csr.tocsc() @ x},
        "batched CSR (8 x 500 x 500) to_dense": {},
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

    # the compressed layouts: construction from arrays, to and from dense, a CSC product, a batched to_dense
    crow, col, cvals = (minitorch.from_numpy(a) for a in (csr.indptr.astype(np.int64), csr.indices.astype(np.int64),
                                                          csr.data))  # fmt: skip
    small_csr = sp.coo_matrix((vals, (idx[0] % 2000, idx[1] % 2000)), shape=(2000, 2000)).tocsr()
    small_dense = small_csr.toarray()
    SC = minitorch.from_numpy(small_dense).to_sparse_csr()
    SD = minitorch.from_numpy(small_dense)
    CSC = C.to_sparse_csc()
    mask = small_dense[:500, :500] != 0  # one pattern, other values per batch (PyTorch's batches share nnz)
    batched = np.where(mask, np.random.default_rng(1).random((8, 500, 500)) + 0.5, 0).astype(np.float32)
    BC = minitorch.from_numpy(batched).to_sparse_csr()
    out["sparse_csr_tensor(crow, col, values, size)"]["minitorch"] = lambda: minitorch.sparse_csr_tensor(
        crow, col, cvals, shape
    )
    out["same, check_invariants=True"]["minitorch"] = lambda: minitorch.sparse_csr_tensor(
        crow, col, cvals, shape, check_invariants=True
    )
    out["CSR to_dense (2k x 2k part)"]["minitorch"] = lambda: SC.to_dense()
    out["CSR to_dense (2k x 2k part)"]["scipy"] = lambda: small_csr.toarray()
    out["dense 2k x 2k .to_sparse_csr()"]["minitorch"] = lambda: SD.to_sparse_csr()
    out["dense 2k x 2k .to_sparse_csr()"]["scipy"] = lambda: sp.csr_matrix(small_dense)
    out["CSC @ X"]["minitorch"] = lambda: CSC @ X
    out["batched CSR (8 x 500 x 500) to_dense"]["minitorch"] = lambda: BC.to_dense()

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
        tcrow, tcol, tcvals = (real_torch.from_numpy(a) for a in (csr.indptr.astype(np.int64),
                                                                  csr.indices.astype(np.int64), csr.data))  # fmt: skip
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            tSC = real_torch.from_numpy(small_dense).to_sparse_csr()
            tCSC = tC.to_sparse_csc()
            tBC = real_torch.from_numpy(batched).to_sparse_csr()
        tSD = real_torch.from_numpy(small_dense)
        out["sparse_csr_tensor(crow, col, values, size)"]["torch"] = lambda: real_torch.sparse_csr_tensor(
            tcrow, tcol, tcvals, shape, check_invariants=False
        )
        out["same, check_invariants=True"]["torch"] = lambda: real_torch.sparse_csr_tensor(
            tcrow, tcol, tcvals, shape, check_invariants=True
        )
        out["CSR to_dense (2k x 2k part)"]["torch"] = lambda: tSC.to_dense()
        out["dense 2k x 2k .to_sparse_csr()"]["torch"] = lambda: tSD.to_sparse_csr()
        out["CSC @ X"]["torch"] = lambda: tCSC @ tX
        out["batched CSR (8 x 500 x 500) to_dense"]["torch"] = lambda: tBC.to_dense()
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
