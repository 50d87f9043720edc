"""Building generated C++ into shared libraries: finding the compiler, the on-disk cache, loading with ctypes.

A library is cached under ``~/.cache/minitorch/compile/<hash>.so`` (``MINITORCH_COMPILE_CACHE_DIR`` overrides the
directory), the hash covering the source, the compiler's path and version, the flags and the CPU (for
-march=native), so a second process (or a second compile of the same graph) loads it without running the
compiler. The compiler writes into a temporary file in that directory which is then renamed over the final
name: rename is atomic, so processes compiling the same kernel at once never see a half-written library.
"""

import ctypes
import hashlib
import os
import platform
import shutil
import subprocess
import tempfile
import threading
import warnings

from minitorch._inductor.utils import user_stacklevel

__all__ = ["CompileFailed", "cache_dir", "compiler", "flags", "load", "stats"]

# -fno-math-errno/-fno-trapping-math let the loops over std::sqrt, selects and conversions vectorize without
# changing any result (errno is never read; no code here traps on purpose); -ffast-math is not used: it would
# drop NaN and infinity handling. -fopenmp-simd honours the `#pragma omp simd` in the loops without
# linking an OpenMP runtime; threads are std::thread (-pthread), which stays fork-safe.
_FLAGS = (
    "-O3",
    "-march=native",
    "-shared",
    "-fPIC",
    "-std=c++17",
    "-fno-math-errno",
    "-fno-trapping-math",
    "-fopenmp-simd",
    "-pthread",
)

_lock = threading.Lock()
_compiler_info = {}  # PATH -> (path, version) or None
_loaded = {}  # library path -> ctypes.CDLL
_warned_no_compiler = False
# what this process did: compiles run, disk cache hits, libraries loaded (for tests and debugging)
stats = {"compiled": 0, "disk_hits": 0}


class CompileFailed(RuntimeError):
    """The C++ compiler could not build a generated kernel (its message is attached)."""


def cache_dir():
    """Where compiled kernels are kept (created on first use)."""
    d = os.environ.get("MINITORCH_COMPILE_CACHE_DIR")
    if not d:
        d = os.path.join(os.path.expanduser("~"), ".cache", "minitorch", "compile")
    return d


def flags():
    """The compiler flags of every kernel library."""
    return _FLAGS


def compiler():
    """(path, version line) of the C++ compiler (``$CXX``, else c++, g++, clang++ on PATH), or None."""
    path_env = os.environ.get("PATH", "") + "\0" + os.environ.get("CXX", "")
    with _lock:
        if path_env in _compiler_info:
            return _compiler_info[path_env]
    found = None
    candidates = [os.environ["CXX"]] if os.environ.get("CXX") else []
    candidates += ["c++", "g++", "clang++"]
    for name in candidates:
        exe = shutil.which(name)
        if exe is None:
            continue
        try:
            out = subprocess.run([exe, "--version"], capture_output=True, text=True, timeout=30, check=False)
        except (OSError, subprocess.SubprocessError):
            continue
        if out.returncode == 0:
            found = (exe, (out.stdout.splitlines() or [""])[0])
            break
    with _lock:
        _compiler_info[path_env] = found
    return found


def warn_no_compiler_once():
    """The one warning a process gets when no C++ compiler is found."""
    global _warned_no_compiler
    if not _warned_no_compiler:
        _warned_no_compiler = True
        warnings.warn(
            "torch.compile: no C++ compiler found (set CXX or put c++/g++ on PATH); the inductor backend runs "
            "the captured graphs eagerly",
            UserWarning,
            stacklevel=user_stacklevel(),
        )


_cpu = None


def _cpu_identity():
    """What -march=native compiles for: the CPU's model and feature flags (a cache directory shared between
    machines must not hand one CPU's instructions to another)."""
    global _cpu
    if _cpu is None:
        ident = platform.machine() + " " + platform.processor()
        try:
            with open("/proc/cpuinfo") as f:
                lines = [ln for ln in f if ln.startswith(("model name", "flags", "Features", "CPU part"))]
            seen = []
            for ln in lines:
                if ln not in seen:
                    seen.append(ln)
            ident += "".join(seen)
        except OSError:
            pass
        _cpu = ident
    return _cpu


def source_hash(source, cxx):
    """The cache key: source, compiler path and version, flags, and the CPU -march=native targets."""
    h = hashlib.sha256()
    h.update(source.encode())
    h.update(b"\0" + cxx[0].encode() + b"\0" + cxx[1].encode() + b"\0" + " ".join(_FLAGS).encode())
    h.update(b"\0" + _cpu_identity().encode())
    return h.hexdigest()[:40]


def _build(source, so_path, cxx):
    """Compiles source into so_path through a temporary file renamed into place."""
    d = os.path.dirname(so_path)
    os.makedirs(d, exist_ok=True)
    base = os.path.basename(so_path)[: -len(".so")]
    fd, tmp_src = tempfile.mkstemp(prefix=base + ".", suffix=".cpp", dir=d)
    with os.fdopen(fd, "w") as f:
        f.write(source)
    fd, tmp_so = tempfile.mkstemp(prefix=base + ".", suffix=".so.tmp", dir=d)
    os.close(fd)
    try:
        cmd = [cxx[0], *_FLAGS, tmp_src, "-o", tmp_so]
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=600, check=False)
        if out.returncode != 0:
            raise CompileFailed(f"C++ compile failed ({' '.join(cmd)}):\n{out.stderr.strip()[-4000:]}")
        os.replace(tmp_so, so_path)
        # the source beside its library, for people reading what was generated
        os.replace(tmp_src, so_path[: -len(".so")] + ".cpp")
    finally:
        for p in (tmp_so, tmp_src):
            if os.path.exists(p):
                os.unlink(p)


def load(source):
    """(ctypes.CDLL, library path) for source, compiled now unless the cache has it. Raises CompileFailed
    when the compiler is missing or fails."""
    cxx = compiler()
    if cxx is None:
        raise CompileFailed("no C++ compiler on PATH")
    so_path = os.path.join(cache_dir(), source_hash(source, cxx) + ".so")
    with _lock:
        lib = _loaded.get(so_path)
        if lib is not None:
            return lib, so_path
        if os.path.exists(so_path):
            stats["disk_hits"] += 1
        else:
            _build(source, so_path, cxx)
            stats["compiled"] += 1
        lib = ctypes.CDLL(so_path)
        _loaded[so_path] = lib
        return lib, so_path
