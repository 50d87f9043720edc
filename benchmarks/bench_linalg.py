"""torch.linalg's decompositions and solvers (LAPACK through scipy-openblas32) on the CPU beside NumPy/SciPy and
PyTorch when `import torch` works: small batched matrices (per-call overhead) and one large matrix (LAPACK's speed).
Printed as a Markdown table; ratios are other / minitorch (above 1: minitorch is faster).

A report, not a test. Usage: PYTHONPATH=python python benchmarks/bench_linalg.py
(PyTorch's column appears when run with a Python that has PyTorch, e.g. PYTHONPATH=python /tmp/tv/bin/python ...).
"""

import argparse
import platform

import numpy as np
from _timing import print_ratio_table

import minitorch

try:
    import torch as real_torch
except ImportError:
    real_torch = None


def cases(n, batch):
    rng = np.random.default_rng(0)
    big = rng.standard_normal((n, n)) + n * np.eye(n)
    spd = big @ big.T
    small = rng.standard_normal((batch, 8, 8)) + 8 * np.eye(8)
    small_spd = small @ np.swapaxes(small, -1, -2)
    rhs = rng.standard_normal((n, 16))
    # complex rows (issue 33): a complex64 solve and a complex128 SVD
    cbig = (big + 1j * rng.standard_normal((n, n))).astype(np.complex64)
    crhs = (rhs + 1j * rng.standard_normal((n, 16))).astype(np.complex64)
    cbig128 = big + 1j * rng.standard_normal((n, n))
    out = {
        f"inv {n}x{n}": {"numpy": lambda: np.linalg.inv(big)},
        f"solve {n}x{n}, 16 rhs": {"numpy": lambda: np.linalg.solve(big, rhs)},
        f"det {n}x{n}": {"numpy": lambda: np.linalg.det(big)},
        f"cholesky {n}x{n}": {"numpy": lambda: np.linalg.cholesky(spd)},
        f"qr {n}x{n}": {"numpy": lambda: np.linalg.qr(big)},
        f"eigh {n}x{n}": {"numpy": lambda: np.linalg.eigh(spd)},
        f"svd {n}x{n}": {"numpy": lambda: np.linalg.svd(big, full_matrices=False)},
        f"lstsq {n}x{n // 2}": {"numpy": lambda: np.linalg.lstsq(big[:, : n // 2], rhs, rcond=None)},
        f"inv {batch}x8x8": {"numpy": lambda: np.linalg.inv(small)},
        f"cholesky {batch}x8x8": {"numpy": lambda: np.linalg.cholesky(small_spd)},
        f"eigh {batch}x8x8": {"numpy": lambda: np.linalg.eigh(small_spd)},
        f"svd {batch}x8x8": {"numpy": lambda: np.linalg.svd(small)},
        f"solve {n}x{n} complex64, 16 rhs": {"numpy": lambda: np.linalg.solve(cbig, crhs)},
        f"svd {n}x{n} complex128": {"numpy": lambda: np.linalg.svd(cbig128, full_matrices=False)},
    }
    libs = [("minitorch", minitorch)] + ([("torch", real_torch)] if real_torch is not None else [])
    for name, lib in libs:
        for key, fn in zip(out, _calls(lib, big, spd, rhs, small, small_spd, cbig, crhs, cbig128)):
            out[key][name] = fn
    return out


def _calls(lib, big, spd, rhs, small, small_spd, cbig, crhs, cbig128):
    """The calls of cases()'s rows, in its order, on lib's tensors."""
    arrays = (big, spd, rhs, small, small_spd, cbig, crhs, cbig128)
    B, S, R, SM, SMS, CB, CR, CB128 = (lib.from_numpy(np.ascontiguousarray(a)) for a in arrays)
    LA = lib.linalg
    Bh = B[:, : B.shape[1] // 2].contiguous()
    return [
        lambda: LA.inv(B),
        lambda: LA.solve(B, R),
        lambda: LA.det(B),
        lambda: LA.cholesky(S),
        lambda: LA.qr(B),
        lambda: LA.eigh(S),
        lambda: LA.svd(B, full_matrices=False),
        lambda: LA.lstsq(Bh, R, driver="gelsd"),
        lambda: LA.inv(SM),
        lambda: LA.cholesky(SMS),
        lambda: LA.eigh(SMS),
        lambda: LA.svd(SM),
        lambda: LA.solve(CB, CR),
        lambda: LA.svd(CB128, full_matrices=False),
    ]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=256, help="size of the large matrix (float64)")
    ap.add_argument("--batch", type=int, default=256, help="how many 8x8 matrices in the batched rows")
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--min-time", type=float, default=0.1)
    args = ap.parse_args()
    print(
        f"{platform.processor() or platform.machine()}, {minitorch.get_num_threads()} threads, float64 (and the "
        "complex rows' dtypes)"
    )
    print_ratio_table(cases(args.n, args.batch), args.repeats, args.min_time)


if __name__ == "__main__":
    main()
