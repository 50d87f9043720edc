#!/usr/bin/env bash
# Everything to run on the GPU machine in one command: build, full tests on CUDA, compute-sanitizer over the
# CUDA tests with caching off, and the benchmarks beside NumPy/PyTorch. Results land under $OUT (default ./gpu-out).
# usage: scripts/gpu_check.sh [all|build|tests|sanitizer|bench]...   (default: all)
# The GPU machine has no network: wheels it lacks (scipy-openblas32) travel in .whl/ (see docs/gpu-report.md).
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-$PWD/gpu-out}
mkdir -p "$out"
py=${PYTHON:-python3}
steps=${*:-all}
want() { [[ " $steps " == *" all "* || " $steps " == *" $1 "* ]]; }
export PYTHONUNBUFFERED=1 CMAKE_BUILD_PARALLEL_LEVEL=${CMAKE_BUILD_PARALLEL_LEVEL:-$(nproc)}

{
  date -u
  git rev-parse HEAD 2>/dev/null || echo "no git"
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.mem --format=csv || echo "nvidia-smi missing"
  $py --version; nvcc --version | tail -2; cmake --version | head -1
  $py -c "import torch; print('torch', torch.__version__, torch.version.cuda)" 2>&1
} > "$out/env.txt" 2>&1
cat "$out/env.txt"

if want build; then
  if ls .whl/*.whl > /dev/null 2>&1; then
    $py -m pip install -q --no-index --no-deps --no-compile .whl/*.whl > "$out/build.log" 2>&1
  fi
  t0=$(date +%s)
  # No network: build against what the machine has (pybind11, scikit-build-core, the carried OpenBLAS).
  $py -m pip install -v --no-build-isolation --no-index --no-deps . >> "$out/build.log" 2>&1 \
    || { echo "build failed"; grep -E "error|Error" "$out/build.log" | head -40; tail -30 "$out/build.log"; exit 1; }
  echo "build: $(($(date +%s) - t0)) s"
  grep -E "minitorch: |cuDNN|CUDA" "$out/build.log" | grep -v "^ *--.*Looking" | head -10
fi
cd /tmp  # import the installed package, not the source tree
repo=$OLDPWD
$py -c "import minitorch as t; print('cuda available:', t.cuda.is_available(), t.cuda.device_count(),
 t.cuda.get_device_name(0) if t.cuda.is_available() else '')" 2>&1 | tee "$out/smoke.txt"

if want tests; then
  t0=$(date +%s)
  (cd "$repo" && $py -m pytest -q tests -p no:cacheprovider -x -q --maxfail=30 -n 8 \
    --import-mode=append -o pythonpath=. ) > "$out/tests.txt" 2>&1
  echo "tests rc=$? ($(($(date +%s) - t0)) s)" | tee -a "$out/tests.txt"
  grep -E "^(FAILED|ERROR)" "$out/tests.txt" | head -40
  tail -3 "$out/tests.txt"
fi

if want sanitizer && command -v compute-sanitizer > /dev/null; then
  for tool in memcheck racecheck; do
    (cd "$repo" && MINITORCH_NO_CUDA_MEMORY_CACHING=1 compute-sanitizer --tool $tool --error-exitcode 9 \
      $py -m pytest -q -x -p no:cacheprovider -m cuda --import-mode=append -o pythonpath=. \
      tests/test_cuda.py) > "$out/sanitizer-$tool.txt" 2>&1
    echo "sanitizer $tool rc=$?" | tee -a "$out/sanitizer-$tool.txt"
    grep -E "ERROR SUMMARY|passed|failed" "$out/sanitizer-$tool.txt" | tail -3
  done
fi

if want bench; then
  for b in "$repo"/benchmarks/bench_*.py; do
    name=$(basename "$b" .py)
    timeout 300 $py "$b" > "$out/$name.md" 2>&1 || echo "$b failed rc=$?" | tee -a "$out/bench-errors.txt"
    cat "$out/$name.md"
  done
fi
echo "results in $out"
