#!/usr/bin/env bash
# gpu-check.sh: the one command for the GPU machine.
#
# Configures and builds gpuopt (Release, all cores), runs the unit, GPU and remaining tests, runs
# the GPU tests under compute-sanitizer, runs gpuopt-bench, and writes logs and bench.json under
# $OUT. A failing step does not stop the later ones; the summary table (step, status, seconds)
# and the bench's ladder tables and bars are printed last, and the exit status is non-zero when
# any step failed.
#
# Environment:
#   OUT=DIR               where logs go (default ./gpu-check-out); at most 8 files are written
#   GPUOPT_ARCHS=LIST     GPUOPT_CUDA_ARCHITECTURES (default 90a: H100/H200)
#   BUILD_DIR=DIR         build tree (default build-gpu)
#   SKIP_BENCH=1          skip gpuopt-bench
#   SKIP_SANITIZER=1      skip compute-sanitizer
#   SANITIZER_TOOLS=LIST  compute-sanitizer tools, space separated (default "memcheck"; e.g.
#                         "memcheck racecheck synccheck")
#   BENCH_ARGS="..."      extra gpuopt-bench arguments (e.g. "--quick")
#   CMAKE_ARGS="..."      extra configure arguments (e.g. "-DGPUOPT_BUILD_EXAMPLES=OFF")
#   SANITIZER_GTEST_FILTER=PATTERN  gtest filter for the sanitizer run (default: every GPU test)
#   SANITIZE=full         the same as --sanitize (below)
#   GPUOPT_GIT=REV        the git revision recorded in bench.json (the device copy has no .git)
#   TEST_TIMEOUT, SANITIZER_TIMEOUT, BENCH_TIMEOUT   seconds per test / step (300 / 300 / 300)
#
# Options:
#   --sanitize            the full compute-sanitizer pass instead of the default memcheck step:
#                         memcheck (leak check on) over the whole GPU suite and over
#                         gpuopt_fault_trap (whose trap is the one expected report), racecheck
#                         and synccheck over every kernel with shared memory, barriers or clusters
#                         (small problems: SAN_SMEM_FILTER), initcheck over the op tests
#                         (SAN_OPS_FILTER); each tool's error count goes to sanitizer-summary.txt
#                         and the summary table. Each tool gets SANITIZER_TIMEOUT_FULL seconds
#                         (default 900).
#
# Files in $OUT: build.log unit.log gpu.log other.log sanitizer.log bench.json bench.txt
# (the bench's stdout: ladder tables and bars) bench.log (its stderr: progress);
# sanitizer-summary.txt with --sanitize.
set -uo pipefail

SANITIZE_FULL=0
[ "${SANITIZE:-}" = full ] && SANITIZE_FULL=1
for arg in "$@"; do
  case "$arg" in
    --sanitize) SANITIZE_FULL=1 ;;
    -h | --help)
      sed -n '2,/^set -uo/p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
      exit 0
      ;;
    *)
      echo "gpu-check: unknown option $arg (see --help)" >&2
      exit 2
      ;;
  esac
done

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT" || exit 2
OUT="${OUT:-$PWD/gpu-check-out}"
BUILD_DIR="${BUILD_DIR:-build-gpu}"
ARCHS="${GPUOPT_ARCHS:-90a}"
JOBS="$(nproc 2>/dev/null || echo 4)"
TEST_TIMEOUT="${TEST_TIMEOUT:-300}"
SANITIZER_TIMEOUT="${SANITIZER_TIMEOUT:-300}"
[ "$SANITIZE_FULL" -eq 1 ] && SANITIZER_TIMEOUT="${SANITIZER_TIMEOUT_FULL:-900}"  # per tool
BENCH_TIMEOUT="${BENCH_TIMEOUT:-300}"
SANITIZER_TOOLS="${SANITIZER_TOOLS:-memcheck}"
# The CUDA toolkit may be installed without being on PATH.
if ! command -v nvcc >/dev/null 2>&1 && [ -x /usr/local/cuda/bin/nvcc ]; then
  export PATH="/usr/local/cuda/bin:$PATH"
fi
mkdir -p "$OUT" || { echo "gpu-check: cannot create $OUT" >&2; exit 2; }

STEPS=()
STATUS=()
TIMES=()
FAILED=0

# record NAME STATUS SECONDS: STATUS other than ok / skipped counts as a failure.
record() {
  STEPS+=("$1")
  STATUS+=("$2")
  TIMES+=("$3")
  case "$2" in
    ok | skipped*) ;;
    *) FAILED=$((FAILED + 1)) ;;
  esac
}

now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }

# step NAME LOG CMD...: runs CMD with stdout and stderr appended to LOG, records ok / FAIL (rc).
step() {
  local name="$1" log="$2"
  shift 2
  echo "== $name: $*" | tee -a "$log"
  local t0 rc
  t0="$(now)"
  "$@" >>"$log" 2>&1
  rc=$?
  if [ "$rc" -eq 0 ]; then
    record "$name" ok "$(elapsed "$t0")"
  else
    record "$name" "FAIL (rc $rc, see $(basename "$log"))" "$(elapsed "$t0")"
    echo "   -> FAILED with rc $rc; last lines of $log:"
    tail -n 15 "$log" | sed 's/^/   | /'
  fi
  return "$rc"
}

: >"$OUT/build.log"
echo "gpu-check: $ROOT -> $OUT (archs $ARCHS, $JOBS jobs)"
{
  echo "== machine"
  uname -a
  command -v nvidia-smi >/dev/null &&
    nvidia-smi --query-gpu=index,name,driver_version,memory.total,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv
  command -v nvcc >/dev/null && nvcc --version | tail -n 2
  cmake --version | head -n 1
} 2>&1 | tee -a "$OUT/build.log"

# --- build -------------------------------------------------------------------------------
BUILT=0
if step configure "$OUT/build.log" cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  "-DGPUOPT_CUDA_ARCHITECTURES=$ARCHS" -DGPUOPT_BUILD_DOCS=OFF -DGPUOPT_BUILD_TESTS=ON \
  -DGPUOPT_BUILD_BENCH=ON ${CMAKE_ARGS:-}; then
  step build "$OUT/build.log" cmake --build "$BUILD_DIR" -j "$JOBS" && BUILT=1
else
  record build "not run (configure failed)" 0
fi

# --- tests -------------------------------------------------------------------------------
ctest_label() {  # ctest_label NAME LOG ARGS...
  local name="$1" log="$2"
  shift 2
  : >"$log"
  step "$name" "$log" ctest --test-dir "$BUILD_DIR" --output-on-failure --timeout "$TEST_TIMEOUT" "$@"
}
if [ "$BUILT" -eq 1 ]; then
  ctest_label "tests unit" "$OUT/unit.log" -L unit --no-tests=error
  ctest_label "tests gpu" "$OUT/gpu.log" -L gpu --no-tests=error -j 4
  ctest_label "tests other" "$OUT/other.log" -LE '^(unit|gpu|bench)$' --no-tests=ignore
else
  for s in "tests unit" "tests gpu" "tests other"; do record "$s" "not run (no build)" 0; done
fi

# --- compute-sanitizer -------------------------------------------------------------------
# --sanitize: which GPU tests each tool runs. Kernels with shared memory, barriers or clusters
# (racecheck, synccheck): every GEMM variant on one aligned 96x64x48 problem and in a graph, the
# reduce ladder (textbook trees, warp shuffles, the sm90 cluster rung, CUB) on small layouts.
# New ops append the gtest patterns of their small cases here.
SAN_MEMCHECK_FILTER="${SAN_MEMCHECK_FILTER:-*-Faults.Exhausted*}"  # memcheck keeps its own memory
SAN_SMEM_FILTER="${SAN_SMEM_FILTER:-GemmVariants.EachRunsSomeTypeAndAutoRunsAll:GemmGraph.*:Reduce.RowsOfAMatrix:Reduce.OffsetSegmentsWithEmptyAndSingleElementSegments:Reduce.MisalignedInputs:Reduce.GraphCaptureAndReplay}"
SAN_OPS_FILTER="${SAN_OPS_FILTER:-AxpyVariants*:AxpyBadInput.*:GemmVariants.*:GemmBadInput.*:Reduce.RowsOfAMatrix:Reduce.OffsetSegments*:Reduce.MisalignedInputs:ReduceBadInput.*}"

# sanitize_full: the four tools; "ERROR SUMMARY: N errors" (racecheck: "RACECHECK SUMMARY: ...
# (N errors, M warnings)") of each run summed per tool.
sanitize_full() {
  local summary="$OUT/sanitizer-summary.txt" plan tool filter extra log n tests
  : >"$summary"
  for plan in "memcheck|$SAN_MEMCHECK_FILTER" "racecheck|$SAN_SMEM_FILTER" \
    "synccheck|$SAN_SMEM_FILTER" "initcheck|$SAN_OPS_FILTER"; do
    tool="${plan%%|*}"
    filter="${plan#*|}"
    extra=()
    case "$tool" in
      memcheck) extra=(--leak-check full) ;;
      racecheck) extra=(--racecheck-report all) ;;
    esac
    log="$OUT/sanitizer.log"
    echo "== compute-sanitizer --tool $tool --gtest_filter=$filter" >>"$log"
    local before
    before="$(wc -l <"$log")"
    step "sanitizer $tool" "$log" timeout "$SANITIZER_TIMEOUT" \
      "$SAN" --tool "$tool" ${extra[@]+"${extra[@]}"} --report-api-errors no --error-exitcode 1 \
      "$GPU_TESTS" --gtest_filter="$filter"
    local rc=$?
    n="$(tail -n +"$((before + 1))" "$log" | sed -n -e 's/.*ERROR SUMMARY: \([0-9]*\) error.*/\1/p' \
      -e 's/.*RACECHECK SUMMARY: .*(\([0-9]*\) error.*/\1/p' |
      awk '{ s += $1 } END { print s + 0 }')"
    tests="$(tail -n +"$((before + 1))" "$log" | sed -n 's/^\[==========\] \([0-9]*\) tests\{0,1\} from .* ran\..*/\1/p' | tail -n 1)"
    local note=""
    [ "$rc" -eq 124 ] && note=" INCOMPLETE: timed out after ${SANITIZER_TIMEOUT}s"
    echo "$tool: ${tests:-?} GPU tests, $n errors$note (exit $rc, filter $filter)" | tee -a "$summary"
  done
  # The fault-trap executable: memcheck must report the trap itself and nothing else.
  local trap_exe="$BUILD_DIR/tests/gpu/gpuopt_fault_trap"
  if [ -x "$trap_exe" ]; then
    echo "== compute-sanitizer --tool memcheck $trap_exe (expects the trap)" >>"$OUT/sanitizer.log"
    timeout "$SANITIZER_TIMEOUT" "$SAN" --tool memcheck --report-api-errors no "$trap_exe" \
      >>"$OUT/sanitizer.log" 2>&1
    echo "memcheck fault_trap: exit $? (the trap is the one expected error)" | tee -a "$summary"
  fi
}

if [ "${SKIP_SANITIZER:-0}" = 1 ]; then
  record sanitizer "skipped (SKIP_SANITIZER=1)" 0
elif [ "$BUILT" -ne 1 ]; then
  record sanitizer "not run (no build)" 0
else
  : >"$OUT/sanitizer.log"
  SAN="$(command -v compute-sanitizer || true)"
  [ -z "$SAN" ] && [ -x /usr/local/cuda/bin/compute-sanitizer ] && SAN=/usr/local/cuda/bin/compute-sanitizer
  GPU_TESTS="$BUILD_DIR/tests/gpu/gpuopt_gpu_tests"
  [ -x "$GPU_TESTS" ] || GPU_TESTS="$(find "$BUILD_DIR" -type f -name 'gpuopt_gpu_tests*' -perm -u+x 2>/dev/null | head -n 1)"
  if [ -z "$SAN" ]; then
    echo "compute-sanitizer not found" >>"$OUT/sanitizer.log"
    record sanitizer "FAIL (compute-sanitizer not found)" 0
  elif [ -z "$GPU_TESTS" ]; then
    echo "no gpuopt_gpu_tests executable under $BUILD_DIR" >>"$OUT/sanitizer.log"
    record sanitizer "FAIL (no gpuopt_gpu_tests)" 0
  else
    if [ "$SANITIZE_FULL" -eq 1 ]; then
      sanitize_full
    else
      for tool in $SANITIZER_TOOLS; do
        extra=()
        [ "$tool" = memcheck ] && extra=(--leak-check full)
        step "sanitizer $tool" "$OUT/sanitizer.log" timeout "$SANITIZER_TIMEOUT" \
          "$SAN" --tool "$tool" ${extra[@]+"${extra[@]}"} --report-api-errors no --error-exitcode 1 \
          "$GPU_TESTS" ${SANITIZER_GTEST_FILTER:+--gtest_filter="$SANITIZER_GTEST_FILTER"}
      done
    fi
  fi
fi

# --- bench -------------------------------------------------------------------------------
if [ "${SKIP_BENCH:-0}" = 1 ]; then
  record bench "skipped (SKIP_BENCH=1)" 0
elif [ "$BUILT" -ne 1 ]; then
  record bench "not run (no build)" 0
else
  BENCH="$BUILD_DIR/bench/gpuopt-bench"
  [ -x "$BENCH" ] || BENCH="$(find "$BUILD_DIR" -type f -name gpuopt-bench -perm -u+x 2>/dev/null | head -n 1)"
  : >"$OUT/bench.txt"
  : >"$OUT/bench.log"
  if [ -z "$BENCH" ]; then
    record bench "FAIL (no gpuopt-bench executable)" 0
  else
    echo "== bench: $BENCH --json $OUT/bench.json --require-bars ${BENCH_ARGS:-}"
    t0="$(now)"
    # shellcheck disable=SC2086  # BENCH_ARGS is a list of words
    timeout "$BENCH_TIMEOUT" "$BENCH" --json "$OUT/bench.json" --require-bars ${BENCH_ARGS:-} \
      >"$OUT/bench.txt" 2>"$OUT/bench.log"
    rc=$?
    case "$rc" in
      0) record bench ok "$(elapsed "$t0")" ;;
      3) record bench "FAIL (a bar was missed)" "$(elapsed "$t0")" ;;
      77) record bench "FAIL (no CUDA device; see bench.log)" "$(elapsed "$t0")" ;;
      124 | 137) record bench "FAIL (timed out after ${BENCH_TIMEOUT}s)" "$(elapsed "$t0")" ;;
      *) record bench "FAIL (rc $rc: a row failed or was wrong; see bench.txt, bench.log)" "$(elapsed "$t0")" ;;
    esac
  fi
fi

# --- summary -----------------------------------------------------------------------------
echo
echo "== summary ($OUT)"
printf '  %-20s %-62s %8s\n' step status seconds
for i in "${!STEPS[@]}"; do
  printf '  %-20s %-62s %8s\n' "${STEPS[$i]}" "${STATUS[$i]}" "${TIMES[$i]}"
done
if [ -s "$OUT/bench.txt" ]; then
  echo
  echo "== gpuopt-bench (bench.txt)"
  cat "$OUT/bench.txt"
fi
if [ -s "$OUT/bench.log" ] && grep -q -E 'FAILED|fatal|warning|ERROR|no CUDA device' "$OUT/bench.log"; then
  echo
  echo "== bench.log (problems)"
  grep -E 'FAILED|fatal|warning|ERROR|no CUDA device' "$OUT/bench.log" | tail -n 20
fi
echo
if [ "$FAILED" -eq 0 ]; then
  echo "gpu-check: all steps passed"
  exit 0
fi
echo "gpu-check: $FAILED step(s) failed"
exit 1
