#!/usr/bin/env bash
# Developer build: incremental CMake+Ninja build that drops _C next to python/minitorch,
# so `PYTHONPATH=python pytest` runs against the tree. usage: scripts/dev_build.sh [BUILD_DIR] [-DMINITORCH_CUDA=OFF ...]
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build/dev}
shift || true
py=${PYTHON:-python}
if [ ! -f "$build/build.ninja" ]; then
  cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DMINITORCH_DEV_INPLACE=ON \
    -DPython_EXECUTABLE="$(command -v "$py")" \
    -Dpybind11_DIR="$("$py" -c 'import pybind11; print(pybind11.get_cmake_dir())')" "$@"
fi
cmake --build "$build" -j"${JOBS:-2}"
