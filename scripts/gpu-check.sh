#!/usr/bin/env bash
# gpu-check.sh: the one command for the GPU machine.
#
# Configures and builds gpuopt (Release, all cores), runs the unit, GPU and remaining tests, runs
# the GPU tests under compute-sanitizer, runs the language bindings' examples and their timing
# against C, runs gpuopt-bench, and writes logs and bench.json under $OUT. A failing step does
# not stop the later ones; the summary table (step, status, seconds) and the bench's ladder
# tables and bars are printed last, and the exit status is non-zero when any step failed.
#
# Environment:
#   OUT=DIR               where logs go (default ./gpu-check-out); at most 8 files are written
#   BENCH_PRESET=0|1      1 (default): first build the bench preset from scratch in build/bench,
#                         timed (the bar "build from scratch, bench preset, N cores: s"), then
#                         build everything else in that tree (native archs: its flags, so the
#                         library objects are reused); 0: one build in build-gpu for GPUOPT_ARCHS
#   BENCH_PRESET_SECONDS=S  that build's time from an earlier call (with SKIP_BUILD=1), for the
#                         bar in bench.json
#   GPUOPT_ARCHS=LIST     GPUOPT_CUDA_ARCHITECTURES (default native with BENCH_PRESET=1, else
#                         90a: H100/H200)
#   BUILD_DIR=DIR         build tree (default build/bench, or build-gpu with BENCH_PRESET=0)
#   SKIP_BUILD=1          use BUILD_DIR as it is (a second call on a machine that built it)
#   SKIP_BENCH=1          skip gpuopt-bench
#   SKIP_SANITIZER=1      skip compute-sanitizer
#   SKIP_TESTS=1          skip the ctest runs (e.g. a second call that only sanitizes)
#   SKIP_BINDINGS=1       skip the bindings step (C timing example, Python, Fortran, Rust examples)
#   BINDINGS_BIN=DIR      prebuilt binding examples (default ./bindings-bin):
#                         example_fortran_gemm_reduce, example_rust_gemm_reduce; each is run when
#                         present (plain, then --time), else reported as skipped
#   PYTHON=EXE            the Python that has PyTorch (default python3)
#   SANITIZER_TOOLS=LIST  compute-sanitizer tools, space separated (default "memcheck"; e.g.
#                         "memcheck racecheck synccheck")
#   BENCH_ARGS="..."      extra gpuopt-bench arguments (e.g. "--quick")
#   CMAKE_ARGS="..."      extra configure arguments (e.g. "-DGPUOPT_BUILD_EXAMPLES=OFF")
#   SANITIZER_GTEST_FILTER=PATTERN  gtest filter for the sanitizer run (default: every GPU test;
#                         memcheck: every one but Faults.Exhausted*, as with --sanitize)
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
#                         (SAN_OPS_FILTER); each tool's error count goes to the summary
#                         printed at the end (and the end of gpu.log). Each tool gets
#                         SANITIZER_TIMEOUT_FULL seconds (default 900), split into SAN_JOBS
#                         gtest shards run side by side (default 6). SAN_FULL_TOOLS picks
#                         some of the four (e.g. "racecheck synccheck" for a second call).
#
# Files in $OUT (at most 8 come back from the GPU machine): build.log (configure, build, unit
# tests) gpu.log (GPU tests, then the compute-sanitizer runs; with --sanitize their error counts
# at its end) other.log (remaining tests, then the bindings' examples) bindings.txt (the binding
# timing lines and each binding's ratio to C) bench.json bench.txt (the bench's stdout: ladder
# tables and bars) bench.log (its stderr: progress).
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
BENCH_PRESET="${BENCH_PRESET:-1}"
BENCH_PRESET_SECONDS="${BENCH_PRESET_SECONDS:-}"  # a figure from an earlier call (SKIP_BUILD=1)
if [ "$BENCH_PRESET" = 1 ]; then
  BUILD_DIR="${BUILD_DIR:-build/bench}"
  ARCHS="${GPUOPT_ARCHS:-native}"
else
  BUILD_DIR="${BUILD_DIR:-build-gpu}"
  ARCHS="${GPUOPT_ARCHS:-90a}"
fi
JOBS="$(nproc 2>/dev/null || echo 4)"
TEST_TIMEOUT="${TEST_TIMEOUT:-300}"
SANITIZER_TIMEOUT="${SANITIZER_TIMEOUT:-300}"
[ "$SANITIZE_FULL" -eq 1 ] && SANITIZER_TIMEOUT="${SANITIZER_TIMEOUT_FULL:-900}"  # per tool
BENCH_TIMEOUT="${BENCH_TIMEOUT:-300}"
SANITIZER_TOOLS="${SANITIZER_TOOLS:-memcheck}"
SAN_JOBS="${SAN_JOBS:-6}"
SAN_FULL_TOOLS="${SAN_FULL_TOOLS:-memcheck racecheck synccheck initcheck}"
# The CUDA toolkit may be installed without being on PATH.
if ! command -v nvcc >/dev/null 2>&1 && [ -x /usr/local/cuda/bin/nvcc ]; then
  export PATH="/usr/local/cuda/bin:$PATH"
fi
mkdir -p "$OUT" || { echo "gpu-check: cannot create $OUT" >&2; exit 2; }
# Logs start empty each run (steps append to them).
for f in build.log gpu.log other.log bindings.txt; do : >"$OUT/$f"; done

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
# With SKIP77="reason" set (SKIP77=... step ...), exit 77 records "skipped (reason)".
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
  elif [ "$rc" -eq 77 ] && [ -n "${SKIP77:-}" ]; then
    record "$name" "skipped ($SKIP77)" "$(elapsed "$t0")"
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
if [ "${SKIP_BUILD:-0}" = 1 ]; then
  if [ -d "$BUILD_DIR" ]; then
    record build "skipped (SKIP_BUILD=1: $BUILD_DIR as it is)" 0
    BUILT=1
  else
    record build "FAIL (SKIP_BUILD=1 but no $BUILD_DIR)" 0
  fi
elif [ "$BENCH_PRESET" = 1 ] && ! {
  # The bench preset from scratch, timed (a bar: at most 180 s on the 16-core GPU machine);
  # the full build below then reuses its objects in the same tree.
  rm -rf build/bench &&
    step "build bench preset from scratch" "$OUT/build.log" \
      bash -c 'cmake --preset bench && cmake --build --preset bench' &&
    BENCH_PRESET_SECONDS="${TIMES[${#TIMES[@]}-1]}"
}; then
  record build "not run (bench preset failed)" 0
elif step configure "$OUT/build.log" cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  "-DGPUOPT_CUDA_ARCHITECTURES=$ARCHS" -DGPUOPT_BUILD_DOCS=OFF -DGPUOPT_BUILD_TESTS=ON \
  -DGPUOPT_BUILD_EXAMPLES=ON -DGPUOPT_BUILD_BINDINGS=ON -DGPUOPT_BUILD_STATIC=ON \
  -DGPUOPT_BUILD_BENCH=ON ${CMAKE_ARGS:-}; then
  step build "$OUT/build.log" cmake --build "$BUILD_DIR" -j "$JOBS" && BUILT=1
else
  record build "not run (configure failed)" 0
fi

# --- tests -------------------------------------------------------------------------------
ctest_label() {  # ctest_label NAME LOG ARGS...
  local name="$1" log="$2"
  shift 2
  step "$name" "$log" ctest --test-dir "$BUILD_DIR" --output-on-failure --timeout "$TEST_TIMEOUT" "$@"
}
if [ "${SKIP_TESTS:-0}" = 1 ]; then
  record tests "skipped (SKIP_TESTS=1)" 0
elif [ "$BUILT" -eq 1 ]; then
  ctest_label "tests unit" "$OUT/build.log" -L unit --no-tests=error -j "$JOBS"
  ctest_label "tests gpu" "$OUT/gpu.log" -L gpu --no-tests=error -j 4
  ctest_label "tests other" "$OUT/other.log" -LE '^(unit|gpu|bench)$' --no-tests=ignore
else
  for s in "tests unit" "tests gpu" "tests other"; do record "$s" "not run (no build)" 0; done
fi

# --- compute-sanitizer -------------------------------------------------------------------
# --sanitize: which GPU tests each tool runs. Kernels with shared memory, barriers or clusters
# (racecheck, synccheck): every GEMM variant on one aligned 96x64x48 problem and in a graph, the
# reduce ladder (textbook trees, warp shuffles, the sm90 cluster rung, CUB) on small layouts, every
# stencil, transpose, GDN (both passes, both modes) and segmented-sort variant on small cases.
# New ops append the gtest patterns of their small cases here.
SAN_MEMCHECK_FILTER="${SAN_MEMCHECK_FILTER:-*-Faults.Exhausted*}"  # memcheck keeps its own memory
SAN_SMEM_FILTER="${SAN_SMEM_FILTER:-GemmVariants.EachRunsSomeTypeAndAutoRunsAll:GemmGraph.*:Reduce.RowsOfAMatrix:Reduce.OffsetSegmentsWithEmptyAndSingleElementSegments:Reduce.MisalignedInputs:Reduce.GraphCaptureAndReplay:Stencil.SanitizeSubset:Transpose.SmallLeading*:Transpose.SmallOddSizesEveryVariantAndType:Gdn.SmallEveryVariantOddShapes:Gdn.SmallBackwardMatchesFiniteDifferences:SegmentedSort.SmallEveryVariant}"
SAN_OPS_FILTER="${SAN_OPS_FILTER:-AxpyVariants*:AxpyBadInput.*:GemmVariants.*:GemmBadInput.*:Reduce.RowsOfAMatrix:Reduce.OffsetSegments*:Reduce.MisalignedInputs:ReduceBadInput.*:Stencil.Sanitize*:Transpose.Small*:Gdn.Small*:SegmentedSort.SmallEveryVariant:SegmentedSort.BadOffsetsAreClamped}"

# Outside $OUT (at most 8 files come back): printed with the summary table at the end.
SAN_SUMMARY="${TMPDIR:-/tmp}/gpuopt-sanitizer-summary.$$"

# san_sharded TOOL FILTER EXTRA...: one compute-sanitizer tool over the GPU tests matching FILTER,
# split into SAN_JOBS gtest shards (GTEST_TOTAL_SHARDS / GTEST_SHARD_INDEX) run side by side: the
# tools' cost is mostly host-side instrumentation, so shards overlap on one GPU. Each shard logs
# to its own file, appended to gpu.log in shard order; the exit status is the worst shard's (124
# when one timed out).
san_sharded() {
  local tool="$1" filter="$2" dir="${TMPDIR:-/tmp}/gpuopt-san.$$" i rc worst=0
  shift 2
  mkdir -p "$dir"
  local pids=()
  for ((i = 0; i < SAN_JOBS; ++i)); do
    GTEST_TOTAL_SHARDS="$SAN_JOBS" GTEST_SHARD_INDEX="$i" timeout "$SANITIZER_TIMEOUT" \
      "$SAN" --tool "$tool" "$@" --report-api-errors no --error-exitcode 1 \
      "$GPU_TESTS" --gtest_filter="$filter" >"$dir/$tool.$i.log" 2>&1 &
    pids+=($!)
  done
  for ((i = 0; i < SAN_JOBS; ++i)); do
    wait "${pids[$i]}"
    rc=$?
    echo "-- shard $i of $SAN_JOBS: exit $rc"
    cat "$dir/$tool.$i.log"
    if [ "$rc" -eq 124 ] || { [ "$rc" -ne 0 ] && [ "$worst" -ne 124 ]; }; then worst=$rc; fi
  done
  rm -rf "$dir"
  return "$worst"
}

# sanitize_full: the four tools; "ERROR SUMMARY: N errors" (racecheck: "RACECHECK SUMMARY: ...
# (N errors, M warnings)") of each run summed per tool, and the GPU tests each shard ran.
sanitize_full() {
  local summary="$SAN_SUMMARY" plan tool filter extra log n tests
  : >"$summary"
  for plan in "memcheck|$SAN_MEMCHECK_FILTER" "racecheck|$SAN_SMEM_FILTER" \
    "synccheck|$SAN_SMEM_FILTER" "initcheck|$SAN_OPS_FILTER"; do
    tool="${plan%%|*}"
    filter="${plan#*|}"
    case " $SAN_FULL_TOOLS " in
      *" $tool "*) ;;
      *) continue ;;
    esac
    extra=()
    case "$tool" in
      memcheck) extra=(--leak-check full) ;;
      racecheck) extra=(--racecheck-report all) ;;
    esac
    log="$OUT/gpu.log"
    echo "== compute-sanitizer --tool $tool --gtest_filter=$filter ($SAN_JOBS shards)" >>"$log"
    local before
    before="$(wc -l <"$log")"
    step "sanitizer $tool" "$log" san_sharded "$tool" "$filter" ${extra[@]+"${extra[@]}"}
    local rc=$?
    n="$(tail -n +"$((before + 1))" "$log" | sed -n -e 's/.*ERROR SUMMARY: \([0-9]*\) error.*/\1/p' \
      -e 's/.*RACECHECK SUMMARY: .*(\([0-9]*\) error.*/\1/p' |
      awk '{ s += $1 } END { print s + 0 }')"
    tests="$(tail -n +"$((before + 1))" "$log" |
      sed -n 's/^\[==========\] \([0-9]*\) tests\{0,1\} from .* ran\..*/\1/p' |
      awk '{ s += $1 } END { print s + 0 }')"
    local note=""
    [ "$rc" -eq 124 ] && note=" INCOMPLETE: a shard timed out after ${SANITIZER_TIMEOUT}s"
    echo "$tool: $tests GPU tests, $n errors$note (exit $rc, filter $filter)" | tee -a "$summary"
  done
  # The fault-trap executable: memcheck must report the trap itself and nothing else.
  local trap_exe="$BUILD_DIR/tests/gpu/gpuopt_fault_trap"
  if [ -x "$trap_exe" ] && [[ " $SAN_FULL_TOOLS " == *" memcheck "* ]]; then
    echo "== compute-sanitizer --tool memcheck $trap_exe (expects the trap)" >>"$OUT/gpu.log"
    timeout "$SANITIZER_TIMEOUT" "$SAN" --tool memcheck --report-api-errors no "$trap_exe" \
      >>"$OUT/gpu.log" 2>&1
    echo "memcheck fault_trap: exit $? (the trap is the one expected error)" | tee -a "$summary"
  fi
}

if [ "${SKIP_SANITIZER:-0}" = 1 ]; then
  record sanitizer "skipped (SKIP_SANITIZER=1)" 0
elif [ "$BUILT" -ne 1 ]; then
  record sanitizer "not run (no build)" 0
else
  SAN="$(command -v compute-sanitizer || true)"
  [ -z "$SAN" ] && [ -x /usr/local/cuda/bin/compute-sanitizer ] && SAN=/usr/local/cuda/bin/compute-sanitizer
  GPU_TESTS="$BUILD_DIR/tests/gpu/gpuopt_gpu_tests"
  [ -x "$GPU_TESTS" ] || GPU_TESTS="$(find "$BUILD_DIR" -type f -name 'gpuopt_gpu_tests*' -perm -u+x 2>/dev/null | head -n 1)"
  if [ -z "$SAN" ]; then
    echo "compute-sanitizer not found" >>"$OUT/gpu.log"
    record sanitizer "FAIL (compute-sanitizer not found)" 0
  elif [ -z "$GPU_TESTS" ]; then
    echo "no gpuopt_gpu_tests executable under $BUILD_DIR" >>"$OUT/gpu.log"
    record sanitizer "FAIL (no gpuopt_gpu_tests)" 0
  else
    if [ "$SANITIZE_FULL" -eq 1 ]; then
      sanitize_full
    else
      for tool in $SANITIZER_TOOLS; do
        extra=()
        filter="${SANITIZER_GTEST_FILTER:-}"
        if [ "$tool" = memcheck ]; then
          extra=(--leak-check full)
          # the exhausted-memory test runs out of memory on purpose: cuBLAS's half-made handle
          # then leaks under memcheck (as --sanitize, which has always left it out)
          filter="${filter:-$SAN_MEMCHECK_FILTER}"
        fi
        step "sanitizer $tool" "$OUT/gpu.log" timeout "$SANITIZER_TIMEOUT" \
          "$SAN" --tool "$tool" ${extra[@]+"${extra[@]}"} --report-api-errors no --error-exitcode 1 \
          "$GPU_TESTS" ${filter:+--gtest_filter="$filter"}
      done
    fi
  fi
fi

# --- bindings ----------------------------------------------------------------------------
# The examples of every binding, for real, and the binding timing protocol
# (docs/integration-c.md): each binding's "gpuopt-binding-time" line against C's, bar 2%.
if [ "${SKIP_BINDINGS:-0}" = 1 ]; then
  record bindings "skipped (SKIP_BINDINGS=1)" 0
elif [ "$BUILT" -ne 1 ]; then
  record bindings "not run (no build)" 0
else
  BLOG="$OUT/other.log"
  : >"$OUT/bindings.txt"
  BIN_DIR="${BINDINGS_BIN:-$ROOT/bindings-bin}"
  LIBGPUOPT="$(cd "$BUILD_DIR/src" && pwd)/libgpuopt.so"
  start_line=$(($(wc -l <"$BLOG") + 1))
  BENV=(env "LD_LIBRARY_PATH=$(dirname "$LIBGPUOPT")${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
    "PYTHONPATH=$ROOT/bindings/python${PYTHONPATH:+:$PYTHONPATH}" "GPUOPT_LIBRARY=$LIBGPUOPT"
    PYTHONUNBUFFERED=1)
  CTIME="$BUILD_DIR/examples/example_gemm_timing"
  ctime() {  # ctime NAME: the C reference timing
    if [ -x "$CTIME" ]; then
      SKIP77="no device" step "$1" "$BLOG" "${BENV[@]}" "$CTIME"
    else
      record "$1" "skipped (no $CTIME: GPUOPT_BUILD_EXAMPLES=OFF?)" 0
    fi
  }
  ctime "bindings c time"
  SKIP77="no PyTorch or no device" step "bindings python" "$BLOG" \
    "${BENV[@]}" "${PYTHON:-python3}" examples/python/torch_gemm_sum_graph.py
  SKIP77="no PyTorch or no device" step "bindings python time" "$BLOG" \
    "${BENV[@]}" "${PYTHON:-python3}" examples/python/torch_gemm_sum_graph.py --time
  # gpuopt.torch (operators, current stream, torch.compile, GDN autograd) with the Python that
  # has PyTorch (ctest's python_torch_tests uses CMake's python3, which may lack it)
  SKIP77="no PyTorch or no device" step "bindings python torch" "$BLOG" \
    "${BENV[@]}" "${PYTHON:-python3}" bindings/python/tests/test_torch.py -v
  for lang in fortran rust; do
    exe="$BIN_DIR/example_${lang}_gemm_reduce"
    if [ -x "$exe" ]; then
      SKIP77="no device" step "bindings $lang" "$BLOG" "${BENV[@]}" "$exe"
      SKIP77="no device" step "bindings $lang time" "$BLOG" "${BENV[@]}" "$exe" --time
    else
      record "bindings $lang" "skipped (no $exe)" 0
    fi
  done
  ctime "bindings c time 2"
  tail -n "+$start_line" "$BLOG" | grep '^gpuopt-binding-time ' >>"$OUT/bindings.txt"
  # Each binding against the mean of the two C runs (bracketing the others against drift).
  verdict="$(awk '
    { for (i = 2; i <= NF; ++i) { split($i, kv, "="); f[kv[1]] = kv[2] } }
    f["lang"] == "c" { c += f["ms_per_call"]; nc += 1; next }
    { lang[++n] = f["lang"]; ms[n] = f["ms_per_call"] }
    END {
      if (nc == 0) { print "no C time"; exit }
      c /= nc; bad = ""
      printf "bindings: c %.4f ms per call (mean of %d runs)\n", c, nc
      for (i = 1; i <= n; ++i) {
        r = ms[i] / c; ok = (r <= 1.02)
        printf "bindings: %s %.4f ms per call = %.3fx C: %s\n", lang[i], ms[i], r, ok ? "within 2% (bar met)" : "OVER 2% (bar missed)"
        if (!ok) bad = bad " " lang[i]
      }
      if (bad != "") printf "MISSED:%s\n", bad
    }' "$OUT/bindings.txt")"
  echo "$verdict" | tee -a "$OUT/bindings.txt"
  if echo "$verdict" | grep -q '^MISSED:'; then
    record "bindings bar" "FAIL (over 2% of C:$(echo "$verdict" | sed -n 's/^MISSED://p'))" 0
  elif echo "$verdict" | grep -q 'no C time'; then
    record "bindings bar" "skipped (no C time)" 0
  else
    record "bindings bar" ok 0
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
    # Build figures as bars in the same JSON: this run's bench-preset build, the test workflow
    # measured on a 2-core machine (.ci/run writes it: build/ci-build.json) and the portable library's
    # size (scripts/build_info.py size), both committed beside the device results.
    if [ -s "$OUT/bench.json" ]; then
      merge_args=()
      [ -n "$BENCH_PRESET_SECONDS" ] &&
        merge_args+=(--bench-preset-seconds "$BENCH_PRESET_SECONDS" --cores "$JOBS")
      [ -s bench/results/build/ci-build.json ] && merge_args+=(--ci bench/results/build/ci-build.json)
      [ -s bench/results/build/library-size.json ] && merge_args+=(--size bench/results/build/library-size.json)
      ((${#merge_args[@]})) && python3 scripts/build_info.py merge "$OUT/bench.json" "${merge_args[@]}" >>"$OUT/bench.log" 2>&1
    fi
  fi
fi

# --- summary -----------------------------------------------------------------------------
echo
echo "== summary ($OUT)"
printf '  %-20s %-62s %8s\n' step status seconds
for i in "${!STEPS[@]}"; do
  printf '  %-20s %-62s %8s\n' "${STEPS[$i]}" "${STATUS[$i]}" "${TIMES[$i]}"
done
if [ -s "$SAN_SUMMARY" ]; then
  echo
  echo "== compute-sanitizer (--sanitize; logs in gpu.log)"
  cat "$SAN_SUMMARY"
  cat "$SAN_SUMMARY" >>"$OUT/gpu.log"
  rm -f "$SAN_SUMMARY"
fi
if [ -s "$OUT/bindings.txt" ]; then
  echo
  echo "== bindings (bindings.txt)"
  cat "$OUT/bindings.txt"
fi
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
