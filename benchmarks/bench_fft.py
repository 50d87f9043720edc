"""torch.fft on the CPU (pocketfft) beside numpy.fft and PyTorch when `import torch` works: batched 1-D, 2-D
and an FNO-like rfft2 batch, plus complex GEMM (cgemm/zgemm) beside NumPy and PyTorch. Printed as a Markdown
table; ratios are other / minitorch (above 1: minitorch is faster).

A report, not a test. Usage: PYTHONPATH=python python benchmarks/bench_fft.py
(PyTorch's column appears when run with a Python that has PyTorch, e.g. PYTHONPATH=python /tmp/tv/bin/python ...).
"""

import functools

import numpy as np
from _timing import ratio_table_main

import minitorch
import minitorch.fft

try:
    import torch as real_torch
except ImportError:
    real_torch = None


def _arrays(rng):
    return {
        "b1d": rng.standard_normal((64, 4096)).astype(np.float32),
        "c1d": (rng.standard_normal((64, 4096)) + 1j * rng.standard_normal((64, 4096))).astype(np.complex64),
        "c2d": (rng.standard_normal((256, 256)) + 1j * rng.standard_normal((256, 256))).astype(np.complex64),
        "fno": rng.standard_normal((20, 32, 64, 64)).astype(np.float32),
        "half": (rng.standard_normal((64, 2049)) + 1j * rng.standard_normal((64, 2049))).astype(np.complex64),
        "g64": (rng.standard_normal((256, 256)) + 1j * rng.standard_normal((256, 256))).astype(np.complex64),
        "g128": rng.standard_normal((256, 256)) + 1j * rng.standard_normal((256, 256)),
    }


ROWS = [
    ("rfft 64x4096 float32", "b1d", lambda L, x: L.fft.rfft(x), lambda x: np.fft.rfft(x)),
    ("fft 64x4096 complex64", "c1d", lambda L, x: L.fft.fft(x), lambda x: np.fft.fft(x)),
    ("irfft 64x2049 -> 4096", "half", lambda L, x: L.fft.irfft(x), lambda x: np.fft.irfft(x)),
    ("fft2 256x256 complex64", "c2d", lambda L, x: L.fft.fft2(x), lambda x: np.fft.fft2(x)),
    ("rfft2 20x32x64x64 (FNO)", "fno", lambda L, x: L.fft.rfft2(x), lambda x: np.fft.rfft2(x)),
    ("matmul 256x256 complex64", "g64", lambda L, x: x @ x, lambda x: x @ x),
    ("matmul 256x256 complex128", "g128", lambda L, x: x @ x, lambda x: x @ x),
]


def cases():
    arrays = _arrays(np.random.default_rng(0))
    out = {}
    for name, key, lib_fn, np_fn in ROWS:
        a = arrays[key]
        row = {"numpy": functools.partial(np_fn, a)}
        libs = [("minitorch", minitorch)] + ([("torch", real_torch)] if real_torch is not None else [])
        for lname, lib in libs:
            row[lname] = functools.partial(lib_fn, lib, lib.from_numpy(a))
        out[name] = row
    return out


def main():
    ratio_table_main(__doc__.splitlines()[0], cases, minitorch.get_num_threads())


if __name__ == "__main__":
    main()
