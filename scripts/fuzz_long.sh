#!/usr/bin/env bash
# The long fuzz run of docs/reliability.md: tests/ops/test_fuzz.py's properties in child processes, one chunk per
# seed, each chunk's call count, time, last case and log under $OUT_DIR.
# usage: scripts/fuzz_long.sh EXAMPLES_PER_PROPERTY SEED... (e.g. scripts/fuzz_long.sh 3600 1 2 3 4)
set -uo pipefail
cd "$(dirname "$0")/.."
examples=${1:?examples per property}
shift
out=${OUT_DIR:-/tmp/minitorch-fuzz}
mkdir -p "$out"
# a legal but huge result (arange(0, 2**31)) must not take the shared machine down: cap the address space
ulimit -v "${FUZZ_MEM_KB:-8000000}"
for seed in "$@"; do
  start=$(date +%s)
  MINITORCH_FUZZ_CHILD=1 MINITORCH_FUZZ_EXAMPLES="$examples" MINITORCH_FUZZ_SEED="$seed" \
    MINITORCH_FUZZ_COUNT="$out/count.$seed" MINITORCH_FUZZ_LAST_CASE="$out/last.$seed" \
    PYTHONPATH=python${PYTHONPATH:+:$PYTHONPATH} \
    timeout "${FUZZ_CHUNK_TIMEOUT:-7200}" python -X faulthandler -m pytest -q -p no:cacheprovider \
    tests/ops/test_fuzz.py -k "test_fuzz_ and not subprocess" >"$out/log.$seed" 2>&1
  rc=$?
  calls=$(awk '{s += $2} END {print s + 0}' "$out/count.$seed" 2>/dev/null || echo 0)
  echo "seed $seed: rc $rc, $calls calls, $(($(date +%s) - start)) s" | tee -a "$out/summary"
done
