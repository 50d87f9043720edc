"""The special-function kernels (erfc, erfinv, lgamma, digamma, polygamma, asinh, i0, i1e, and the long tail's
bessel_j0, modified_bessel_k0, airy_ai, chebyshev_polynomial_t) on the CPU beside NumPy (SciPy for the long tail, where
it imports) where it has the function and PyTorch when `import torch` works. Printed as a Markdown table; ratios are
other / minitorch (above 1: minitorch is faster).

A report, not a test. Usage: PYTHONPATH=python python benchmarks/bench_special.py
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
try:
    import scipy.special as scipy_special
except ImportError:
    scipy_special = None


def cases(n):
    rng = np.random.default_rng(0)
    pos = (rng.random(n) * 10 + 0.1).astype(np.float32)  # lgamma, digamma, polygamma: away from the poles
    unit = (rng.random(n) * 1.98 - 0.99).astype(np.float32)  # erfinv's domain
    sym = rng.standard_normal(n).astype(np.float32)
    out = {
        "erfc": {},
        "erfinv": {},
        "lgamma": {},
        "digamma": {},
        "polygamma(1, x)": {},
        "asinh": {"numpy": lambda: np.arcsinh(sym)},
        "i0": {"numpy": lambda: np.i0(sym)},
        "special.i1e": {},
        "special.bessel_j0": {},
        "special.modified_bessel_k0": {},
        "special.airy_ai": {},
        "special.chebyshev_polynomial_t(x, 9)": {},
    }
    if scipy_special is not None:
        out["special.bessel_j0"]["numpy"] = lambda: scipy_special.j0(sym)
        out["special.modified_bessel_k0"]["numpy"] = lambda: scipy_special.k0(pos)
        out["special.airy_ai"]["numpy"] = lambda: scipy_special.airy(sym)[0]
        out["special.chebyshev_polynomial_t(x, 9)"]["numpy"] = lambda: scipy_special.eval_chebyt(9, unit)
    libs = [("minitorch", minitorch)] + ([("torch", real_torch)] if real_torch is not None else [])
    for name, lib in libs:
        P, U, S = lib.from_numpy(pos), lib.from_numpy(unit), lib.from_numpy(sym)
        out["erfc"][name] = lambda lib=lib, S=S: lib.erfc(S)
        out["erfinv"][name] = lambda lib=lib, U=U: lib.erfinv(U)
        out["lgamma"][name] = lambda lib=lib, P=P: lib.lgamma(P)
        out["digamma"][name] = lambda lib=lib, P=P: lib.digamma(P)
        out["polygamma(1, x)"][name] = lambda lib=lib, P=P: lib.polygamma(1, P)
        out["asinh"][name] = lambda lib=lib, S=S: lib.asinh(S)
        out["i0"][name] = lambda lib=lib, S=S: lib.i0(S)
        out["special.i1e"][name] = lambda lib=lib, S=S: lib.special.i1e(S)
        out["special.bessel_j0"][name] = lambda lib=lib, S=S: lib.special.bessel_j0(S)
        out["special.modified_bessel_k0"][name] = lambda lib=lib, P=P: lib.special.modified_bessel_k0(P)
        out["special.airy_ai"][name] = lambda lib=lib, S=S: lib.special.airy_ai(S)
        out["special.chebyshev_polynomial_t(x, 9)"][name] = lambda lib=lib, U=U: (
            lib.special.chebyshev_polynomial_t(U, 9)
        )
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=1 << 18, help="elements (float32)")
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--min-time", type=float, default=0.1)
    args = ap.parse_args()
    print(
        f"{platform.processor() or platform.machine()}, {minitorch.get_num_threads()} threads, n={args.n}, float32"
    )
    print_ratio_table(cases(args.n), args.repeats, args.min_time)


if __name__ == "__main__":
    main()
