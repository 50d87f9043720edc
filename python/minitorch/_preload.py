"""Loads the shared libraries minitorch._C needs from where pip put them, before _C itself is loaded."""

import ctypes
import os
import sys

# RTLD_LOCAL throughout: the loader matches _C's DT_NEEDED by soname against objects already loaded, in any
# scope. RTLD_GLOBAL would put their symbols (OpenBLAS's unprefixed LAPACK helpers, dlaqz0_, ...) before every
# later library's own definitions, PyTorch's included.


def _load(path):
    try:
        ctypes.CDLL(path, mode=ctypes.RTLD_LOCAL)
    except OSError:  # _C's RUNPATH may still find one
        pass


# oneDNN (conv, sgemm) and our kernels (core/Parallel.cpp) thread through libgomp, whose idle threads spin for
# about 5 ms by default after each parallel region (300000 pauses): on a 2-core machine shared with other jobs
# that spin takes a core from them, and from our own next region whenever the scheduler moved a thread. 10000
# pauses (about 170 us here) span the gap between two ops of a training step (a LeNet step at two threads is
# as fast as with 100000 and more than twice as fast as with 1000; benchmarks/README.md). libgomp reads its
# environment once, when it is loaded: load it here with the setting, then put the environment back so that
# child processes (PyTorch's included) see the user's own. No effect where the user set either variable, or
# where libgomp was loaded before us.
if sys.platform.startswith("linux") and not {"GOMP_SPINCOUNT", "OMP_WAIT_POLICY"} & set(os.environ):
    os.environ["GOMP_SPINCOUNT"] = "10000"
    try:
        _load("libgomp.so.1")
    finally:
        del os.environ["GOMP_SPINCOUNT"]

try:
    import scipy_openblas32 as _ob

    _lib = os.path.join(_ob.get_lib_dir(), "libscipy_openblas.so")
    if os.path.exists(_lib):
        _load(_lib)
except ImportError:  # the extension's RPATH may still find it
    pass

# NVIDIA's wheels (PyTorch's dependencies) next to a build run from the source tree: installed, _C's RUNPATH
# ($ORIGIN/../nvidia/...) picks them first; from the source tree it would load the toolkit's copies, and a
# later `import torch` would then bind to an older NCCL or cuBLAS by soname and fail (undefined symbol
# ncclCommResume). Loading the wheels' copies first gives both libraries the same, newer one.
_NVIDIA_LIBS = (
    ("cu13", ("libcudart.so.13", "libcublasLt.so.13", "libcublas.so.13")),
    ("cudnn", ("libcudnn.so.9",)),
    ("nccl", ("libnccl.so.2",)),
)
if sys.platform.startswith("linux"):
    _here = os.path.dirname(os.path.abspath(__file__))
    if not os.path.isdir(os.path.join(_here, "..", "nvidia")):
        for _base in sys.path:
            _nv = os.path.join(_base or ".", "nvidia")
            if os.path.isdir(os.path.join(_nv, "cu13", "lib")):
                for _sub, _names in _NVIDIA_LIBS:
                    for _name in _names:
                        _path = os.path.join(_nv, _sub, "lib", _name)
                        if os.path.exists(_path):
                            _load(_path)
                break
