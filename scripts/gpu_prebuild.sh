#!/usr/bin/env bash
# Builds, on this (GPU-less) machine, what scripts/gpu_check.sh installs on the GPU machine, so that none of its
# short device time goes to compiling: a wheel for the GPU machine's Python and sm_90 only, the Debian libraries
# _C links that its image lacks (Gloo and its dependencies, SLEEF), the runtime wheels, and the client scripts.
# usage: PY312=/path/to/python3.12 scripts/gpu_prebuild.sh      (writes .devbuild/ and .whl/, both git-ignored)
# The interpreter must be the GPU machine's minor version (3.12); docs/gpu-report.md says how one was built here.
set -euo pipefail
cd "$(dirname "$0")/.."
py=${PY312:?set PY312 to a python3.12 with scikit-build-core, pybind11, numpy, scipy-openblas32, onednn-devel-cpu-gomp}
export CCACHE_BASEDIR=$PWD CMAKE_BUILD_PARALLEL_LEVEL=${CMAKE_BUILD_PARALLEL_LEVEL:-2} CUDAARCHS=${CUDAARCHS:-90-real}
# Everything travels as one xz archive under the 64 MiB a device call carries: the onednn-cpu-gomp wheel alone is
# 38 MB (three copies of one library), so only libdnnl.so.3 goes, into lib/ with the Debian libraries.
stage=$(mktemp -d)
mkdir -p "$stage/wheels" "$stage/lib" .devbuild
"$py" -m pip wheel -v --no-build-isolation --no-deps -w "$stage/wheels" . > .devbuild/build.log 2>&1 ||
  { tail -30 .devbuild/build.log; exit 1; }
{
  git rev-parse HEAD
  git status --short | sed 's/^/dirty: /'
} > "$stage/COMMIT"
# The system libraries among _C's DT_NEEDED that the GPU machine's image does not have, with their own needs.
for lib in libgloo.so.0 libhiredis.so.0.14 libibverbs.so.1 libnl-3.so.200 libnl-route-3.so.200 libsleef.so.3; do
  # (awk reads to the end: an early exit would SIGPIPE ldconfig, which pipefail turns into the script's failure)
  src=$(ldconfig -p | awk -v l="$lib" '$1 == l && !found {print $NF; found = 1}')
  [ -n "$src" ] && cp -L "$src" "$stage/lib/"
done
cp -L "$("$py" -c 'import sys; print(sys.prefix)')/lib/libdnnl.so.3" "$stage/lib/"
cp -r "${SHARED_DIR:-../shared}/clients" "$stage/clients"
# Runtime wheels, and what tests/integration/test_notebooks.py needs beyond the machine's own packages (nbclient, ipykernel).
plat=(--only-binary=:all: --python-version 3.12 --implementation cp --platform manylinux_2_28_x86_64
  --platform manylinux_2_27_x86_64 --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64
  --platform manylinux1_x86_64)
python3 -m pip download -q --no-deps "${plat[@]}" -d "$stage/wheels" scipy-openblas32==0.3.34.481.3
python3 -m pip download -q "${plat[@]}" -d "$stage/nb" nbclient nbformat ipykernel
# the machine has these (KINDS.md's package list): one version of each, or pip stops
for have in attrs packaging psutil pygments python_dateutil typing_extensions tzdata six; do
  rm -f "$stage/nb/$have"-*.whl
done
mv "$stage"/nb/*.whl "$stage/wheels/"
rm -f .devbuild/payload.tar.xz
tar cf - -C "$stage" . | xz -T2 -6 > .devbuild/payload.tar.xz
rm -rf "$stage"
ls -la .devbuild/payload.tar.xz
