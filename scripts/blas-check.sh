#!/usr/bin/env bash
# The drop-in BLAS on a GPU machine (docs/blas.md): builds only what it needs, then
#   1. the GPU tests (ctest -L gpu -R '^blas\.': pipeline, entry points, OOM fallback, the
#      blocked out-of-core symm/syrk/syr2k/trmm/trsm: blas.gpu.blocked_out_of_core) and the
#      reference testers with GPUOPT_BLAS_FORCE=gpu and N up to 65, through both forms;
#   2. the unchanged C and Fortran programs (built with -lblas elsewhere, carried in
#      CARRY/bin) through LD_PRELOAD and LD_LIBRARY_PATH: GPUOPT_BLAS_LOG must show [gpu] and
#      the results equal the CPU BLAS's within 1e-12;
#   3. the bench: the CPU BLAS, NVBLAS (the toolkit's libnvblas.so, a generated nvblas.conf with
#      the same CPU BLAS and pinning on) and gpuopt_blas, dgemm_ on host arrays, n = 256..16384;
#      the out-of-core dgemm (three matrices larger than GPU 0's memory, checked on sampled
#      entries); with two GPUs, n = 32768 on one and on two (also with 3 and 4 workers per
#      GPU); then the bars.
# Usage: scripts/blas-check.sh [all|build|test|bench] (phases, so each fits a 10-minute command;
# the build directory is reused). $OUT (default ./blas-check-out) receives a few files only:
# summary.txt, bench.txt, blas-bench.json and blas-logs.tgz (every log); the work files stay in
# BUILD_DIR/check-work.
#
# CARRY (default .blas-carry) holds what the GPU machine lacks: debs/ (libblas-test, libblas3,
# libopenblas0-pthread, unpacked into BUILD_DIR/blas-pkgs) and bin/ (the unchanged programs).
# SKIP_TESTS=1 / SKIP_BENCH=1 / SKIP_OOC=1 leave steps out; MULTI_ONLY=1 benches only the 2-GPU
# rows (n = 32768 on one GPU and on two, with the default pipeline workers per GPU and with each
# of BENCH_STREAMS, default "3 4": GPUOPT_BLAS_STREAMS; BENCH_STREAMS= measures the default only).
# Exit: 0 all passed, 1 a test failed, 3 a bar was missed.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
root=$PWD
phase=${1:-all}
carry=$(realpath "${CARRY:-.blas-carry}")
final=${OUT:-$root/blas-check-out}
build=${BUILD_DIR:-build/blas-check}
out=$root/$build/check-work
mkdir -p "$final" "$out"
# summary.txt gathers the phases of one check: a build (or all) starts it afresh.
if [[ $phase == all || $phase == build ]]; then : >"$out/summary.txt"; fi
status=0
fail() {
  echo "FAILED: $*" | tee -a "$out/summary.txt"
  status=1
}
finish() {
  echo "blas-check $phase: exit $status" | tee -a "$out/summary.txt"
  cp "$out/summary.txt" "$final/summary.txt"
  [[ -f $out/bench.txt ]] && cp "$out/bench.txt" "$final/"
  [[ -f $out/blas-bench.json ]] && cp "$out/blas-bench.json" "$final/"
  tar -C "$out" --exclude='*.bin' -czf "$final/blas-logs.tgz" .
  exit $status
}

# --- what the machine lacks, unpacked from the carried packages
pkgroot=$root/$build/blas-pkgs
if [[ ! -x $pkgroot/usr/lib/x86_64-linux-gnu/blas/xblat3d ]]; then
  mkdir -p "$pkgroot"
  for d in "$carry"/debs/*.deb; do dpkg-deb -x "$d" "$pkgroot"; done
fi
testers=$pkgroot/usr/lib/x86_64-linux-gnu/blas  # testers, inputs and the reference libblas.so.3
openblas_dir=$pkgroot/usr/lib/x86_64-linux-gnu/openblas-pthread
# Without a carried libopenblas0-pthread, the machine's own OpenBLAS (Debian's path) serves.
[[ -f $openblas_dir/libblas.so.3 ]] || openblas_dir=/usr/lib/x86_64-linux-gnu/openblas-pthread
export GPUOPT_BLAS_CPU_LIB=$openblas_dir/libblas.so.3
echo "CPU BLAS: $GPUOPT_BLAS_CPU_LIB" | tee -a "$out/summary.txt"
nvidia-smi -L | tee -a "$out/summary.txt"
ngpu=$(nvidia-smi -L | grep -c '^GPU')

# --- build only what is needed (also for test/bench when the build is not there: a machine that
# went back between commands starts bare)
if [[ $phase == all || $phase == build || ! -x $build/bench/blas/gpuopt-blas-bench ]]; then
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DGPUOPT_CUDA_ARCHITECTURES=90a \
  -DGPUOPT_BUILD_DOCS=OFF -DGPUOPT_BUILD_BINDINGS=OFF -DGPUOPT_BUILD_EXAMPLES=OFF \
  -DGPUOPT_BUILD_STATIC=OFF -DGPUOPT_BUILD_RUST=OFF -DGPUOPT_BLAS_TESTER_DIR="$testers" >"$out/configure.log" 2>&1 ||
  { tail -n 30 "$out/configure.log"; exit 1; }
# tests/blas/all: every target tests/blas/CMakeLists.txt defines (test programs, the stand-in CPU
# BLAS of blas.ilp64.forward, the tile-plan tests ...), so no '^blas\.' test is "Not Run"; the
# libraries the tests name by file but do not depend on, and the bench.
ninja -C "$build" tests/blas/all gpuopt_blas gpuopt_libblas gpuopt_blas_gpu \
  gpuopt-blas-bench >"$out/build.log" 2>&1 ||
  { tail -n 40 "$out/build.log"; exit 1; }
echo "built" | tee -a "$out/summary.txt"
fi
preload=$build/src/blas/libgpuopt_blas.so  # its GPU half, libgpuopt_blas_gpu.so, beside it
libblas_dir=$build/src/blas/gpuopt-blas
bench=$build/bench/blas/gpuopt-blas-bench

# --- 1. tests
if [[ ${SKIP_TESTS:-0} != 1 && ($phase == all || $phase == test) ]]; then
  (cd "$build" && BLAS_TESTER_DIR=$testers ctest -R '^blas\.' --output-on-failure) \
    >"$out/ctest.log" 2>&1 || fail "ctest (see ctest.log)"
  grep -E "tests passed|tests failed|\(Failed\)|\(Skipped\)|Not Run" "$out/ctest.log" | tee -a "$out/summary.txt"

  # --- 2. the unchanged programs
  for prog in dgemm_c dgemm_f; do
    exe=$carry/bin/$prog
    LD_LIBRARY_PATH=$openblas_dir "$exe" "$out/$prog.cpu.bin" >/dev/null ||
      fail "$prog on the CPU BLAS"
    for form in preload libpath; do
      if [[ $form == preload ]]; then
        env=(LD_LIBRARY_PATH="$openblas_dir" LD_PRELOAD="$preload")
      else
        env=(LD_LIBRARY_PATH="$libblas_dir")
      fi
      env "${env[@]}" GPUOPT_BLAS_LOG=1 "$exe" "$out/$prog.$form.bin" >/dev/null \
        2>"$out/$prog.$form.log" || fail "$prog ($form)"
      grep -q '\[gpu\]' "$out/$prog.$form.log" || fail "$prog ($form): no call ran on the GPU"
      cmp=$(LD_LIBRARY_PATH=$openblas_dir "$carry/bin/dgemm_c" compare "$out/$prog.cpu.bin" "$out/$prog.$form.bin") ||
        fail "$prog ($form): results differ from the CPU BLAS: $cmp"
      echo "$prog ($form): $(grep -c '\[gpu\]' "$out/$prog.$form.log") calls on the GPU; $cmp" |
        tee -a "$out/summary.txt"
      rm -f "$out/$prog.$form.bin"
    done
    rm -f "$out/$prog.cpu.bin"
  done
fi

# --- 3. bench
if [[ ${SKIP_BENCH:-0} != 1 && ($phase == all || $phase == bench) ]]; then
  conf=$out/nvblas.conf
  cat >"$conf" <<EOF
NVBLAS_LOGFILE $out/nvblas.log
NVBLAS_CPU_BLAS_LIB $GPUOPT_BLAS_CPU_LIB
NVBLAS_GPU_LIST ALL
NVBLAS_TILE_DIM 2048
NVBLAS_AUTOPIN_MEM_ENABLED
EOF
  nvblas=${NVBLAS:-$(dirname "$(readlink -f "$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)")")/../lib64/libnvblas.so}
  sizes=256,1024,4096,8192,16384
  r=$out/bench-results
  mkdir -p "$r"
  if [[ ${MULTI_ONLY:-0} == 1 ]]; then
    SKIP_OOC=1  # only the 2-GPU rows below (a second call on a multi-GPU machine)
  else
  "$bench" measure --impl cpu --lib "$GPUOPT_BLAS_CPU_LIB" --sizes 256,1024,4096,8192 \
    >"$r/cpu.txt" 2>"$r/cpu.err" || fail "bench cpu"
  NVBLAS_CONFIG_FILE=$conf LD_PRELOAD=$nvblas LD_LIBRARY_PATH=$(dirname "$nvblas") \
    "$bench" measure --impl nvblas \
    --lib "$GPUOPT_BLAS_CPU_LIB" --sizes $sizes >"$r/nvblas.txt" 2>"$r/nvblas.err" ||
    fail "bench nvblas"
  LD_PRELOAD=$preload "$bench" measure --impl gpuopt --sizes $sizes \
    >"$r/gpuopt.txt" 2>"$r/gpuopt.err" || fail "bench gpuopt"
  # n = 256 (the "small calls never get slower" bar) moves by ~10% from one process to the next
  # (OpenBLAS's 16 threads on a 0.3 ms call): two more processes of each, alternating; the bars
  # take each impl's best.
  for round in 1 2; do
    "$bench" measure --impl cpu --lib "$GPUOPT_BLAS_CPU_LIB" --sizes 256 >>"$r/cpu.txt" \
      2>>"$r/cpu.err" || fail "bench cpu (n = 256, round $round)"
    LD_PRELOAD=$preload "$bench" measure --impl gpuopt --sizes 256 >>"$r/gpuopt.txt" \
      2>>"$r/gpuopt.err" || fail "bench gpuopt (n = 256, round $round)"
  done
  # Where each size ran and why (one call each, not timed).
  GPUOPT_BLAS_LOG=1 LD_PRELOAD=$preload "$bench" measure --impl gpuopt-log --sizes $sizes \
    --reps 1 --warmup 0 >/dev/null 2>"$r/gpuopt-route.log"
  fi
  if [[ ${SKIP_OOC:-0} != 1 ]]; then
    # Out of core: three n x n f64 matrices 3% larger than GPU 0's memory, if the host has room.
    mem_mib=$(nvidia-smi -i 0 --query-gpu=memory.total --format=csv,noheader,nounits | head -n1)
    n=$(awk -v m="$mem_mib" 'BEGIN { n = sqrt(m * 1048576 * 1.03 / 24); n = int((n + 255) / 256) * 256; print n }')
    need=$(awk -v n="$n" 'BEGIN { printf "%d", 3 * n * n * 8 * 1.05 }')
    have=$(awk '/MemAvailable/ { printf "%d", $2 * 1024 }' /proc/meminfo)
    if ((have > need)); then
      echo "out of core: n=$n ($((need / 1073741824)) GiB of host memory, GPU 0 has $mem_mib MiB)" |
        tee -a "$out/summary.txt"
      GPUOPT_BLAS_DEVICES=0 GPUOPT_BLAS_LOG=1 LD_PRELOAD=$preload "$bench" measure \
        --impl gpuopt-ooc --sizes 4096,$n --reps 1 --warmup 0 >"$r/ooc.txt" 2>"$r/ooc.err" ||
        fail "bench out of core"
      grep -q "n=$n .*ok=1" "$r/ooc.txt" || fail "out-of-core dgemm n=$n: wrong result"
    else
      echo "out of core: skipped (needs $need bytes of host memory, $have available)" |
        tee -a "$out/summary.txt"
    fi
  fi
  if ((ngpu >= 2)); then
    # With the call log: each call's line names the order it ran in (tiles or panels), its tiles,
    # the CPU's copy bytes and the model's time (docs/notes/blas.md, "Tile orders").
    GPUOPT_BLAS_LOG=1 GPUOPT_BLAS_DEVICES=0 LD_PRELOAD=$preload "$bench" measure \
      --impl gpuopt-1gpu --sizes 32768 >"$r/one.txt" 2>&1 || fail "bench 1 GPU"
    GPUOPT_BLAS_LOG=1 GPUOPT_BLAS_DEVICES=0,1 LD_PRELOAD=$preload "$bench" measure \
      --impl gpuopt-2gpu --sizes 32768 >"$r/two.txt" 2>&1 || fail "bench 2 GPUs"
    # The same rows with other numbers of pipeline workers per GPU (GPUOPT_BLAS_STREAMS; rows
    # gpuopt-1gpu-wN, gpuopt-2gpu-wN and the bench's workers table): whether the default (2)
    # should change. The bar keeps the default's rows. Each setting costs as long as those two.
    for w in ${BENCH_STREAMS-3 4}; do
      GPUOPT_BLAS_STREAMS=$w GPUOPT_BLAS_LOG=1 GPUOPT_BLAS_DEVICES=0 LD_PRELOAD=$preload "$bench" \
        measure --impl gpuopt-1gpu-w$w --sizes 32768 >"$r/one-w$w.txt" 2>&1 ||
        fail "bench 1 GPU, $w workers"
      GPUOPT_BLAS_STREAMS=$w GPUOPT_BLAS_LOG=1 GPUOPT_BLAS_DEVICES=0,1 LD_PRELOAD=$preload \
        "$bench" measure --impl gpuopt-2gpu-w$w --sizes 32768 >"$r/two-w$w.txt" 2>&1 ||
        fail "bench 2 GPUs, $w workers"
    done
  fi
  "$bench" bars $(ls "$r"/cpu.txt "$r"/nvblas.txt "$r"/gpuopt.txt "$r"/ooc.txt "$r"/one.txt \
    "$r"/two.txt "$r"/one-w*.txt "$r"/two-w*.txt 2>/dev/null) --json "$out/blas-bench.json" |
    tee "$out/bench.txt"
  rc=${PIPESTATUS[0]}
  if ((rc == 1)); then fail "bench: a wrong result"; elif ((rc == 3 && status == 0)); then status=3; fi
  [[ -f $r/gpuopt-route.log ]] && cat "$r/gpuopt-route.log" >>"$out/bench.txt"
  for f in ooc one two $(cd "$r" && ls one-w*.txt two-w*.txt 2>/dev/null | sed 's/\.txt$//'); do
    [[ -f $r/$f.txt ]] && grep -h '^gpuopt_blas: dgemm' "$r/$f.txt" "$r/$f.err" 2>/dev/null |
      sed "s/^/$f: /" >>"$out/bench.txt"
  done
fi
finish
