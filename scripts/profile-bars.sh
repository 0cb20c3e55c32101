#!/usr/bin/env bash
# profile-bars.sh: Nsight Compute profiles of the bars issue 19 still misses, for the GPU machine.
#
# For each missed bar it runs gpuopt-bench under `ncu --clock-control none` on just the rows that
# bar reads (one suite, one dtype and size, the best own rung; the bench adds the vendor rows), and
# profiles the first launch of every distinct kernel (demangled name) of that run (--kernel-id
# :::1; at most 40 a job): the own rung's kernel, the vendor's (cuBLAS, cub, gdn composed) and,
# for the stencil, a streaming kernel at the copy roof (axpy vec4_blocktile). A compact metric
# set (duration, SM clock, SM / memory / DRAM / L2 / L1 throughput, DRAM bytes, occupancy,
# registers, shared memory, tensor / FMA / FP64 pipe utilisation, issue slots, the warp stall
# reasons) is asked for by name; the names `ncu --query-metrics` does not list are dropped first,
# and a job whose metric run fails is run again with the sections SpeedOfLight, Occupancy,
# LaunchStats, WarpStateStats, MemoryWorkloadAnalysis and ComputeWorkloadAnalysis.
# scripts/profile_bars.py turns the reports (ncu --csv --page raw)
# into one Markdown table per bar, own beside vendor.
#
# Jobs, most wanted first (a job that would start past the budget is skipped and listed so):
#   gemm-f64-4096 gemm-f32-4096 gemm-bf16-4096 stencil-3d roof-axpy gdn-sm90_wgmma_fused
#   gdn-sm90_onepass_fused gdn-sm80_mma_fused sort gemm-f64-8192 gemm-f32-8192
#
# Environment:
#   BUILD_DIR=DIR       build tree holding bench/gpuopt-bench (default build/bench)
#   BUILD=0             do not build: by default, when build/bench has no gpuopt-bench, the
#                       bench preset is configured and built first (64 s from scratch on 16
#                       cores, taken from the budget: the last jobs are skipped)
#   OUT=DIR             output (default ./profile-bars-out): profile-bars.md (the summary, also
#                       printed) and profile-bars.tar.gz (reports, CSVs, logs, the metric query)
#   BUDGET_S=S          wall seconds for all jobs (default 210)
#   JOB_TIMEOUT_S=S     seconds per job (default 60)
#   JOBS="a b"          run only these jobs (names above)
#   NCU=EXE             ncu (default: on PATH, else /usr/local/cuda/bin/ncu, else the newest
#                       /opt/nvidia/nsight-compute/*/ncu or /usr/local/cuda/nsight-compute*/ncu)
#   RESULTS=FILE        bench JSON whose bar values head the tables (default
#                       bench/results/nvidia-h100.json, or nvidia-h200.json on an H200)
#   METRICS_MODE=sections  skip the metric list and profile with the sections
#
# Exit status: 0 when every job that ran left a report, 1 otherwise, 2 on a setup error.
set -uo pipefail

case "${1:-}" in
  -h | --help)
    sed -n '2,/^set -uo/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//'
    exit 0
    ;;
  "") ;;
  *)
    echo "profile-bars: unknown option $1 (see --help)" >&2
    exit 2
    ;;
esac

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT" || exit 2
BUILD_DIR="${BUILD_DIR:-build/bench}"
OUT="${OUT:-$PWD/profile-bars-out}"
BUDGET_S="${BUDGET_S:-210}"
JOB_TIMEOUT_S="${JOB_TIMEOUT_S:-60}"
export NCCL_NVLS_ENABLE=0

find_ncu() {
  if [ -n "${NCU:-}" ]; then
    echo "$NCU"
    return
  fi
  if command -v ncu >/dev/null 2>&1; then
    command -v ncu
    return
  fi
  local c
  for c in /usr/local/cuda/bin/ncu $(ls -d /opt/nvidia/nsight-compute/*/ncu \
    /usr/local/cuda/nsight-compute*/ncu 2>/dev/null | sort -V -r); do
    if [ -x "$c" ]; then
      echo "$c"
      return
    fi
  done
}
NCU="$(find_ncu)"
if [ -z "$NCU" ]; then
  echo "profile-bars: ncu not found (PATH, /usr/local/cuda/bin, /opt/nvidia/nsight-compute)" >&2
  exit 2
fi

mkdir -p "$OUT" || exit 2
WORK="$OUT/profile-bars"
rm -rf "$WORK"
mkdir -p "$WORK" || exit 2
START=$(date +%s)
elapsed() { echo $(($(date +%s) - START)); }

BENCH="$BUILD_DIR/bench/gpuopt-bench"
if [ ! -x "$BENCH" ] && [ "$BUILD_DIR" = build/bench ] && [ "${BUILD:-1}" = 1 ]; then
  echo "[profile-bars] no $BENCH: building the bench preset (about 1 min on 16 cores; the" \
    "budget pays for it)"
  { cmake --preset bench && cmake --build --preset bench -j "$(nproc)"; } >"$WORK/build.log" 2>&1
fi
if [ ! -x "$BENCH" ]; then
  echo "profile-bars: no $BENCH (build gpuopt-bench first, or set BUILD_DIR)" >&2
  tail -n 20 "$WORK/build.log" 2>/dev/null >&2
  exit 2
fi

"$NCU" --version 2>&1 | tail -n 1 >"$WORK/ncu-version.txt"
{ command -v nvidia-smi >/dev/null &&
  nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader; } \
  >"$WORK/device.txt" 2>&1 || true
if [ -z "${RESULTS:-}" ]; then
  RESULTS=bench/results/nvidia-h100.json
  grep -q H200 "$WORK/device.txt" 2>/dev/null && RESULTS=bench/results/nvidia-h200.json
fi
echo "[profile-bars] $(cat "$WORK/device.txt"); $(cat "$WORK/ncu-version.txt") ($NCU)"

METRICS=""
if [ "${METRICS_MODE:-}" != sections ]; then
  timeout -k 5 60 "$NCU" --query-metrics >"$WORK/query.txt" 2>&1
  METRICS="$(python3 scripts/profile_bars.py metrics --query "$WORK/query.txt")"
  [ -z "$METRICS" ] && echo "[profile-bars] ncu --query-metrics listed nothing: sections instead"
fi
SECTIONS=(--section SpeedOfLight --section Occupancy --section LaunchStats
  --section WarpStateStats --section MemoryWorkloadAnalysis --section ComputeWorkloadAnalysis)

COMMON=(--repeats 1 --warmup 0 --no-torch)
JOB_TABLE=(
  "gemm-f64-4096|--op gemm --dtype f64 --sizes 4096 --variants f64_tensorcore"
  "gemm-f32-4096|--op gemm --dtype f32 --sizes 4096 --variants warptiled_cpasync"
  "gemm-bf16-4096|--op gemm --dtype bf16 --sizes 4096 --variants sm90_tma_wgmma"
  "stencil-3d|--op stencil --variants sm90_zmarch_fwd_pairs"
  "roof-axpy|--op axpy --dtype f32 --sizes 2^27 --variants vec4_blocktile"
  "gdn-sm90_wgmma_fused|--op gdn --variants sm90_wgmma_fused"
  "gdn-sm90_onepass_fused|--op gdn --variants sm90_onepass_fused"
  "gdn-sm80_mma_fused|--op gdn --variants sm80_mma_fused"
  "sort|--op segmented_sort --variants warp_bitonic"
  "gemm-f64-8192|--op gemm --dtype f64 --sizes 8192 --variants f64_tensorcore"
  "gemm-f32-8192|--op gemm --dtype f32 --sizes 8192 --variants warptiled_cpasync"
)

# profile JOB MODE ARGS...: one ncu run of the bench (MODE metrics or sections); 0 when the
# report was written.
profile() {
  local job="$1" mode="$2" limit="$3"
  shift 3
  local what=(--metrics "$METRICS")
  [ "$mode" = sections ] && what=("${SECTIONS[@]}")
  rm -f "$WORK/$job.ncu-rep"
  # --kernel-id :::1: the first launch of each kernel (each template instance: demangled names).
  timeout -k 10 "$limit" "$NCU" --clock-control none --cache-control all --replay-mode kernel \
    --kernel-name-base demangled --kernel-id :::1 --launch-count 40 "${what[@]}" \
    -f -o "$WORK/$job" \
    "$BENCH" "$@" "${COMMON[@]}" >"$WORK/$job.$mode.log" 2>&1
  local rc=$?
  echo "rc=$rc" >>"$WORK/$job.$mode.log"
  [ -s "$WORK/$job.ncu-rep" ]
}

# export_csv JOB: the raw page of the job's report as CSV (base units, demangled names).
export_csv() {
  local job="$1"
  "$NCU" --import "$WORK/$job.ncu-rep" --csv --page raw --print-units base \
    --print-kernel-base demangled >"$WORK/$job.csv" 2>"$WORK/$job.import.err" ||
    "$NCU" --import "$WORK/$job.ncu-rep" --csv --page raw >"$WORK/$job.csv" \
      2>>"$WORK/$job.import.err"
}

: >"$WORK/jobs.tsv"
failed=0
for entry in "${JOB_TABLE[@]}"; do
  job="${entry%%|*}"
  read -r -a args <<<"${entry#*|}"
  if [ -n "${JOBS:-}" ] && [[ " $JOBS " != *" $job "* ]]; then continue; fi
  now=$(elapsed)
  left=$((BUDGET_S - now))
  if [ "$left" -lt 20 ]; then
    printf '%s\tskipped: budget (%ss used of %ss)\t0\t-\t%s\n' "$job" "$now" "$BUDGET_S" \
      "${args[*]}" >>"$WORK/jobs.tsv"
    echo "[profile-bars] $job skipped: ${now}s of the ${BUDGET_S}s budget used"
    continue
  fi
  limit=$((left < JOB_TIMEOUT_S ? left : JOB_TIMEOUT_S))
  t0=$(date +%s)
  mode=metrics
  [ -z "$METRICS" ] && mode=sections
  if ! profile "$job" "$mode" "$limit" "${args[@]}" && [ "$mode" = metrics ]; then
    # A metric ncu refuses fails every job alike: the later ones go straight to the sections.
    if grep -qi 'error.*metric' "$WORK/$job.metrics.log"; then
      echo "[profile-bars] ncu refused a metric ($job.metrics.log): sections from now on"
      METRICS=""
    fi
    left=$((BUDGET_S - $(elapsed)))
    if [ "$left" -ge 20 ]; then
      mode=sections
      limit=$((left < JOB_TIMEOUT_S ? left : JOB_TIMEOUT_S))
      profile "$job" sections "$limit" "${args[@]}"
    fi
  fi
  status="no report"
  if [ -s "$WORK/$job.ncu-rep" ]; then
    export_csv "$job"
    status="ok, $(grep -c '^"[0-9]' "$WORK/$job.csv") kernels"
  else
    failed=1
    grep -q ERR_NVGPUCTRPERM "$WORK/$job".*.log 2>/dev/null &&
      status="no report: no permission for the GPU counters (ERR_NVGPUCTRPERM)"
    grep -q '^rc=124' "$WORK/$job.$mode.log" 2>/dev/null && status="no report: timed out"
  fi
  secs=$(($(date +%s) - t0))
  printf '%s\t%s\t%s\t%s\t%s\n' "$job" "$status" "$secs" "$mode" "${args[*]}" >>"$WORK/jobs.tsv"
  echo "[profile-bars] $job: $status, ${secs}s ($mode)"
done

python3 scripts/profile_bars.py summarize --work "$WORK" --results "$RESULTS" \
  >"$OUT/profile-bars.md"
echo "[profile-bars] total $(elapsed)s; $OUT/profile-bars.md, $OUT/profile-bars.tar.gz"
tar -czf "$OUT/profile-bars.tar.gz" -C "$OUT" profile-bars && rm -rf "$WORK"
sed '/^## Every profiled kernel/,$d' "$OUT/profile-bars.md"  # the per-job lists: in the file
exit "$failed"
