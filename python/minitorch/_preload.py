"""Loads the OpenBLAS that NumPy's scipy-openblas32 wheel ships, so minitorch._C finds it wherever pip put it."""

import ctypes
import os

try:
    import scipy_openblas32 as _ob

    _lib = os.path.join(_ob.get_lib_dir(), "libscipy_openblas.so")
    if os.path.exists(_lib):
        # RTLD_LOCAL is enough: the loader matches _C's DT_NEEDED by soname against objects already loaded, in
        # any scope. RTLD_GLOBAL would put OpenBLAS's unprefixed LAPACK helpers (dlaqz0_, ...) before every
        # later library's own definitions, PyTorch's included.
        ctypes.CDLL(_lib, mode=ctypes.RTLD_LOCAL)
except ImportError:  # the extension's RPATH may still find it
    pass
