#!/usr/bin/env bash
# multi-gpu-check.sh: the multi-GPU check for a machine with 2 or more GPUs (nvidia-h100-x2,
# nvidia-h100-x4). Builds only what it needs (libgpuopt, the multi-GPU tests, the one-process-
# per-GPU example, gpuopt-bench), then runs
#   1. gpuopt_multi_gpu_tests: every collective, checked mode, abort and rebuild, split, the
#      distributed GEMM and reduction, one process (tests/gpu/multi);
#   2. examples/c/dist_gemm.c as one process per GPU (2 processes): the hash of its C must equal
#      the one-process run's, bit for bit, and with --bad-rank 1 every rank must answer an error;
#   3. gpuopt-bench --op multi_gpu (allreduce sweep against NCCL, gemm_dist and its bars) into
#      $OUT/<device>-x<N>.json, to commit as bench/results/<device>-x<N>.json.
# Logs and JSON go to $OUT (default ./multi-gpu-out). A failing step does not stop the others;
# the exit status is non-zero when one failed.
#
#   OUT=DIR BUILD_DIR=DIR (default build-multi) GPUOPT_ARCHS (default 90a) SKIP_BUILD=1
#   SKIP_BENCH=1 BENCH_ARGS="..." GPUOPT_GIT=REV
set -u
# NVLink multicast must stay off on the shared GPU machines, in every process started here.
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUT=${OUT:-$PWD/multi-gpu-out}
BUILD_DIR=${BUILD_DIR:-$ROOT/build-multi}
mkdir -p "$OUT"
LOG=$OUT/multi-gpu.log
: >"$LOG"
failed=0
summary=""
step() {  # step NAME COMMAND...: runs it, logs it, records the outcome
  local name=$1
  shift
  local t0=$SECONDS
  echo "=== $name: $*" | tee -a "$LOG"
  if "$@" >>"$LOG" 2>&1; then
    summary+="$(printf '%-28s ok    %4ds' "$name" $((SECONDS - t0)))"$'\n'
  else
    local rc=$?
    failed=1
    summary+="$(printf '%-28s FAIL  %4ds (exit %d)' "$name" $((SECONDS - t0)) "$rc")"$'\n'
    tail -30 "$LOG"
  fi
}

nvidia-smi -L >>"$LOG" 2>&1
NGPU=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
# bench/results names: nvidia-h100-x2.json, nvidia-h200-x4.json, ...
GPU_NAME=$(nvidia-smi --query-gpu=name --format=csv,noheader -i 0 2>/dev/null)
case "$GPU_NAME" in
  *H100*) DEVICE=nvidia-h100 ;;
  *H200*) DEVICE=nvidia-h200 ;;
  *) DEVICE=$(echo "$GPU_NAME" | tr 'A-Z ' 'a-z-' | tr -cd 'a-z0-9_.-') ;;
esac
echo "GPUs: $NGPU ($DEVICE); NCCL_NVLS_ENABLE=$NCCL_NVLS_ENABLE" | tee -a "$LOG"
nvidia-smi topo -m >>"$LOG" 2>&1

if [ "${SKIP_BUILD:-0}" != 1 ]; then
  step configure cmake -S "$ROOT" -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DGPUOPT_CUDA_ARCHITECTURES="${GPUOPT_ARCHS:-90a}" -DGPUOPT_BUILD_DOCS=OFF \
    -DGPUOPT_BUILD_BINDINGS=OFF -DGPUOPT_NCCL=ON
  step build ninja -C "$BUILD_DIR" gpuopt gpuopt_multi_gpu_tests example_dist_gemm gpuopt-bench
fi

B=$BUILD_DIR
step multi_gpu_tests env GPUOPT_MULTI_GPU_HASH_FILE="$OUT/hash-one-process.txt" \
  "$B/tests/gpu/gpuopt_multi_gpu_tests" --gtest_output=xml:"$OUT/multi_gpu_tests.xml"

two_processes() {  # the example as 2 processes; args go to both
  local id=$OUT/comm-id.txt
  rm -f "$id"
  GPUOPT_COMM_ID_FILE=$id RANK=1 WORLD_SIZE=2 LOCAL_RANK=1 "$B/examples/example_dist_gemm" "$@" &
  local other=$!
  GPUOPT_COMM_ID_FILE=$id RANK=0 WORLD_SIZE=2 LOCAL_RANK=0 timeout 300 \
    "$B/examples/example_dist_gemm" "$@"
  local rc0=$?
  wait "$other"
  local rc1=$?
  [ $rc0 -eq 0 ] && [ $rc1 -eq 0 ]
}
step dist_gemm_2_processes two_processes --hash-file "$OUT/hash-two-processes.txt"
step checked_2_processes two_processes --bad-rank 1 --hash-file /dev/null
same_hash() {
  echo "one process:   $(cat "$OUT/hash-one-process.txt")"
  echo "two processes: $(cat "$OUT/hash-two-processes.txt")"
  cmp -s "$OUT/hash-one-process.txt" "$OUT/hash-two-processes.txt"
}
step bitwise_1_vs_2_processes same_hash
# Python: torch tensors of every GPU through gpuopt.Comm.create_local (77: no torch there).
python_torch() {
  local rc=0
  env PYTHONPATH="$ROOT/bindings/python" GPUOPT_LIBRARY="$B/src/libgpuopt.so" \
    "${PYTHON:-python3}" "$ROOT/bindings/python/tests/test_multi_gpu_torch.py" -v || rc=$?
  [ "$rc" -eq 77 ] && return 0
  return "$rc"
}
step python_torch_collectives python_torch

if [ "${SKIP_BENCH:-0}" != 1 ]; then
  step bench env GPUOPT_GIT="${GPUOPT_GIT:-unknown}" timeout 480 "$B/bench/gpuopt-bench" \
    --op multi_gpu --json "$OUT/${DEVICE}-x${NGPU}.json" ${BENCH_ARGS:-}
fi

echo
echo "$summary" | tee -a "$LOG"
exit $failed
