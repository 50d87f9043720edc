#!/usr/bin/env bash
# AddressSanitizer + UndefinedBehaviorSanitizer run: a CPU-only build with MINITORCH_SANITIZE=ON in its own
# directory, a package tree of its own (the dev build's _C stays untouched), then pytest under it.
# usage: scripts/sanitize.sh [pytest args]     default: the whole suite (tests/); .ci/run passes a subset.
# Python itself is not instrumented: libasan is preloaded, and leak detection is off because CPython keeps
# interned objects alive until exit by design. allocator_may_return_null lets a huge request raise
# OutOfMemoryError as it does without ASan, instead of ASan aborting.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
build=${SANITIZE_BUILD_DIR:-build/asan}
py=${PYTHON:-python}
# Cache hits between checkouts in different folders (a session's tree and CI's fresh clone): paths under the
# checkout are hashed relative to it, the headers of the (temporary) venv are copied into the build tree
# (MINITORCH_STABLE_HEADERS), and the working directory is left out of the hash although -g1 records it (the
# debug info then names whichever checkout compiled the object first: harmless for symbolized reports).
export CCACHE_BASEDIR=$root CCACHE_NOHASHDIR=1
if [ ! -f "$build/build.ninja" ]; then
  cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1" \
    -DMINITORCH_CUDA=OFF -DMINITORCH_SANITIZE=ON -DMINITORCH_STABLE_HEADERS=ON \
    -DCMAKE_CXX_COMPILER=g++ -DPython_EXECUTABLE="$(command -v "$py")" \
    -Dpybind11_DIR="$("$py" -c 'import pybind11; print(pybind11.get_cmake_dir())')"
fi
cmake --build "$build" -j"${JOBS:-2}"

pkg=$build/pkg
rm -rf "$pkg" && mkdir -p "$pkg"
cp -r python/minitorch "$pkg/"
find "$pkg/minitorch" -name '_C*.so' -delete
cp "$build"/_C*.so "$pkg/minitorch/"

# libstdc++ preloaded too: python itself does not link it, and ASan's __cxa_throw interceptor must find the real
# one when ASan starts, else the first C++ exception aborts ("real___cxa_throw != 0" CHECK failure)
libasan=$(g++ -print-file-name=libasan.so)
libstdcxx=$(g++ -print-file-name=libstdc++.so.6)
export LD_PRELOAD="$libasan $libstdcxx${LD_PRELOAD:+ $LD_PRELOAD}"
export ASAN_OPTIONS=detect_leaks=0:allocator_may_return_null=1:abort_on_error=1:strict_init_order=1:${ASAN_OPTIONS:-}
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1:${UBSAN_OPTIONS:-}
export PYTHONPATH="$root/$pkg:$root"
export MINITORCH_SANITIZED=1  # tests whose measure ASan itself changes skip (test_leaks: RSS under quarantine)
export MINITORCH_FUZZ_EXAMPLES=${MINITORCH_FUZZ_EXAMPLES:-20}
# the sanitized build is 2-3x slower; pytest runs from the repository root so tests.utils imports
"$py" -c "import minitorch, numpy; print('sanitized minitorch from', minitorch.__file__); \
x = minitorch.randn(64, 64); print('OpenBLAS matmul ok:', float((x @ x).sum()) == float((x @ x).sum()))"
if [ $# -eq 0 ]; then set -- tests; fi
"$py" -m pytest -q -p no:cacheprovider "$@"
