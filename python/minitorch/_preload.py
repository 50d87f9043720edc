"""Loads the OpenBLAS that NumPy's scipy-openblas32 wheel ships, so minitorch._C finds it wherever pip put it."""

import ctypes
import os

try:
    import scipy_openblas32 as _ob

    _lib = os.path.join(_ob.get_lib_dir(), "libscipy_openblas.so")
    if os.path.exists(_lib):
        ctypes.CDLL(_lib, mode=ctypes.RTLD_GLOBAL)
except ImportError:  # the extension's RPATH may still find it
    pass
