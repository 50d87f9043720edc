#!/usr/bin/env bash
# Everything to run on the GPU machine in one command: build, full tests on CUDA, compute-sanitizer on a
# smoke script, and the benchmarks beside NumPy/PyTorch. Results land under $OUT (default ./gpu-out).
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-$PWD/gpu-out}
mkdir -p "$out"
{
  date -u
  git rev-parse HEAD 2>/dev/null || echo "no git"
  nvidia-smi || echo "nvidia-smi missing"
  python --version
} > "$out/env.txt" 2>&1

python -m venv --system-site-packages /tmp/mt-gpu-venv && source /tmp/mt-gpu-venv/bin/activate
pip install -q --no-build-isolation --no-index . > "$out/build.log" 2>&1 \
  || pip install -q . >> "$out/build.log" 2>&1 || { echo "build failed"; tail -50 "$out/build.log"; exit 1; }

python -c "import minitorch as t; print('cuda available:', t.cuda.is_available(), t.cuda.device_count())" | tee "$out/smoke.txt"
python -m pytest -q tests -p no:cacheprovider > "$out/tests.txt" 2>&1; echo "tests rc=$?" | tee -a "$out/tests.txt"
tail -3 "$out/tests.txt"

if command -v compute-sanitizer >/dev/null; then
  MINITORCH_NO_CUDA_MEMORY_CACHING=1 compute-sanitizer --error-exitcode 9 python examples/basics.py \
    > "$out/sanitizer.txt" 2>&1; echo "sanitizer rc=$?" | tee -a "$out/sanitizer.txt"
fi
for b in benchmarks/bench_*.py; do
  python "$b" > "$out/$(basename "$b" .py).md" 2>&1 || echo "$b failed" >> "$out/bench-errors.txt"
done
echo "results in $out"
