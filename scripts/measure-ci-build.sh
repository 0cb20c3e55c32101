#!/usr/bin/env bash
# measure-ci-build.sh [OUT_JSON]: times the CI test workflow from scratch the way CI runs it:
# a fresh clone of HEAD, `cmake --workflow --preset test` (configure, build everything with
# warnings as errors and the docs, run every test but the benchmarks), no compiler cache.
# Writes {"seconds", "cores", "git", "note"} to OUT_JSON (default
# bench/results/build/ci-build.json), which scripts/build_info.py merges into a device's bench JSON
# as the bar "build from scratch, test workflow, <cores> cores: s". Run it on a machine that
# is otherwise idle: the figure is wall time.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
OUT_JSON="${1:-$ROOT/bench/results/build/ci-build.json}"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
git clone -q "$ROOT" "$WORK/src"
cd "$WORK/src"
unset CMAKE_CUDA_COMPILER_LAUNCHER CMAKE_CXX_COMPILER_LAUNCHER CMAKE_C_COMPILER_LAUNCHER
export CCACHE_DISABLE=1
t0=$(date +%s.%N)
cmake --workflow --preset test >"$WORK/workflow.log" 2>&1 || {
  tail -n 40 "$WORK/workflow.log"
  echo "measure-ci-build: the test workflow failed" >&2
  exit 1
}
t1=$(date +%s.%N)
secs=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')
tests=$(grep -Eo '[0-9]+% tests passed, [0-9]+ tests failed out of [0-9]+' "$WORK/workflow.log" |
  tail -n 1)
cat >"$OUT_JSON" <<JSON
{
  "seconds": $secs,
  "cores": $(nproc),
  "git": "$(git rev-parse --short HEAD)",
  "note": "$(nproc) cores, $(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo), no GPU; ${tests}"
}
JSON
cat "$OUT_JSON"
