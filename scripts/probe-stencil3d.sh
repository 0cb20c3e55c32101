#!/usr/bin/env bash
# probe-stencil3d.sh: one GPU call that times the issue-19 candidates of the 3D stencil (3D r=4
# f32 512^3, zero boundary: auto >= 0.85 of the copy roof) against auto, then runs the stencil
# tests. Run from the repository root on the GPU machine.
#
# 1. Builds gpuopt-bench and gpuopt_gpu_tests in BUILD_DIR (configured first
#    when it has no CMakeCache.txt: Release, GPUOPT_CUDA_ARCHITECTURES=$ARCHS, no docs, bindings,
#    examples or static library).
# 2. ROUNDS runs of gpuopt-bench --op stencil with every candidate, the forced
#    sm90_zmarch_fwd_chunks row (auto's rung today) and auto on the same buffers: each
#    candidate's GB/s over the mean of its own run's two baseline rows (the first and the last
#    3D rows: drift cancels).
# 3. Head to head: for the PICK best candidates of step 2, PAIRS runs each of just the candidate
#    and auto, alternating the candidates.
# 4. ctest -R '^gpu[.]Stencil[.]' (the GPU stencil tests force every rung, the candidates
#    included; the host dispatch tests run in CI).
# The summary (scripts/probe_stencil3d.py) is printed last: GB/s, share of the copy roof, and the
# ratio to the baseline, medians over the runs.
#
# Environment:
#   BUILD_DIR=DIR      build tree (default build/probe); an existing one is only rebuilt (tests
#                      switched on first where its cache has them off, as the bench preset's)
#   ARCHS=LIST         GPUOPT_CUDA_ARCHITECTURES for a new tree (default 90a)
#   JOBS=N             build jobs (default: all cores)
#   ROUNDS=N           step 2 runs (default 3)
#   PICK=N PAIRS=N     step 3: N best candidates, N runs each (defaults 2 and 3; PICK=0 skips)
#   BENCH_REPEATS=N    timed samples per bench row (default 20)
#   CANDIDATES="..."   the variants of step 2 besides the baselines (default: the list below)
#   SKIP_BUILD=1       use BUILD_DIR as it is; SKIP_TESTS=1 skips step 4
#   OUT=DIR            where the bench JSON and logs go (default ./probe-out); at most 8 files
#                      are kept (probe.txt: the summary; bench.log; tests.log; build.log;
#                      rounds.tar.gz: the JSON files)
set -uo pipefail

BUILD_DIR="${BUILD_DIR:-build/probe}"
ARCHS="${ARCHS:-90a}"
JOBS="${JOBS:-$(nproc)}"
ROUNDS="${ROUNDS:-3}"
PICK="${PICK:-2}"
PAIRS="${PAIRS:-3}"
BENCH_REPEATS="${BENCH_REPEATS:-20}"
OUT="${OUT:-./probe-out}"
CANDIDATES="${CANDIDATES:-sm90_zmarch_fwd_chunks_c32 sm90_zmarch_fwd_chunks_c96 sm90_zmarch_fwd_chunks_c128 sm90_zmarch_fwd_chunks_s6 sm90_zmarch_fwd_chunks_s10 sm90_zmarch_fwd_chunks_v2 sm90_zmarch_fwd_chunks_pw sm90_zmarch_fwd_chunks_alt sm90_zmarch_fwd_chunks_pw_c128 sm90_zmarch_fwd_chunks_v2_c128}"
HERE="$(cd "$(dirname "$0")" && pwd)"
mkdir -p "$OUT" "$OUT/json"
START=$(date +%s)
elapsed() { echo "$(($(date +%s) - START)) s"; }

# --- 1. build ----------------------------------------------------------------------------
if [ "${SKIP_BUILD:-0}" != 1 ]; then
  if [ ! -f "$BUILD_DIR/CMakeCache.txt" ]; then
    cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release \
      "-DGPUOPT_CUDA_ARCHITECTURES=$ARCHS" -DGPUOPT_BUILD_DOCS=OFF -DGPUOPT_BUILD_TESTS=ON \
      -DGPUOPT_BUILD_EXAMPLES=OFF -DGPUOPT_BUILD_BINDINGS=OFF -DGPUOPT_BUILD_STATIC=OFF \
      -DGPUOPT_BUILD_BENCH=ON >"$OUT/build.log" 2>&1 ||
      { tail -n 30 "$OUT/build.log"; echo "probe: configure failed"; exit 1; }
  elif grep -Eq '^GPUOPT_BUILD_(GPU_)?TESTS:BOOL=OFF' "$BUILD_DIR/CMakeCache.txt"; then
    # e.g. the bench preset's tree: the same flags, tests added (its objects are reused)
    cmake -S . -B "$BUILD_DIR" -DGPUOPT_BUILD_TESTS=ON -DGPUOPT_BUILD_GPU_TESTS=ON \
      >"$OUT/build.log" 2>&1 || { tail -n 30 "$OUT/build.log"; echo "probe: configure failed"; exit 1; }
  fi
  cmake --build "$BUILD_DIR" -j "$JOBS" --target gpuopt-bench gpuopt_gpu_tests \
    >>"$OUT/build.log" 2>&1 || { tail -n 40 "$OUT/build.log"; echo "probe: build failed"; exit 1; }
  echo "probe: built in $BUILD_DIR ($(elapsed))"
fi
BENCH="$(find "$BUILD_DIR" -name gpuopt-bench -type f -perm -u+x | head -n 1)"
[ -n "$BENCH" ] || { echo "probe: no gpuopt-bench under $BUILD_DIR"; exit 1; }
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv,noheader

bench() {  # bench JSON VARIANTS
  "$BENCH" --op stencil --dtype f32 --repeats "$BENCH_REPEATS" --variants "$2" --json "$1" \
    >>"$OUT/bench.log" 2>&1 || echo "probe: gpuopt-bench exited $? for $2 (see bench.log)"
}

# --- 2. every candidate in each run --------------------------------------------------------
ALL="sm90_zmarch_fwd_chunks,$(echo $CANDIDATES | tr ' ' ','),auto"
for r in $(seq 1 "$ROUNDS"); do
  bench "$OUT/json/round$r.json" "$ALL"
  echo "probe: round $r done ($(elapsed))"
done
ROUND_FILES=("$OUT"/json/round*.json)

# --- 3. head to head with auto ------------------------------------------------------------
PAIR_FILES=()
if [ "$PICK" -gt 0 ] && [ "$PAIRS" -gt 0 ]; then
  PICKED="$(python3 "$HERE/probe_stencil3d.py" --pick "$PICK" "${ROUND_FILES[@]}" |
    sed -n 's/^PICK //p')"
  for k in $(seq 1 "$PAIRS"); do
    for c in $PICKED; do
      f="$OUT/json/pair-$c-$k.json"
      bench "$f" "$c,auto"
      PAIR_FILES+=("$f")
    done
    echo "probe: head-to-head round $k of $PICKED done ($(elapsed))"
  done
fi

# --- 4. tests -----------------------------------------------------------------------------
if [ "${SKIP_TESTS:-0}" != 1 ]; then
  ctest --test-dir "$BUILD_DIR" -R '^gpu[.]Stencil[.]' --output-on-failure --timeout 300 -j 4 \
    >"$OUT/tests.log" 2>&1
  echo "probe: ctest -R '^gpu[.]Stencil[.]' exit $? ($(elapsed)):"
  grep -E "tests passed|tests failed|\(Failed\)|\(Timeout\)|Skipped" "$OUT/tests.log" | head -n 20
fi

# --- summary ------------------------------------------------------------------------------
{
  echo "probe-stencil3d: $(nvidia-smi --query-gpu=name --format=csv,noheader | head -n 1)"
  python3 "$HERE/probe_stencil3d.py" "${ROUND_FILES[@]}" --pairs "${PAIR_FILES[@]}"
} | tee "$OUT/probe.txt"
tar -czf "$OUT/rounds.tar.gz" -C "$OUT" json && rm -rf "$OUT/json"
echo "probe: done ($(elapsed))"
