#!/usr/bin/env bash
# Runs one reference BLAS tester (Debian's libblas-test) through gpuopt_blas and judges it: the
# testers exit 0 even when they fail, so the verdict is the count of PASSED lines (one per routine
# and, for the CBLAS testers, per layout and error-exit test) and no line with '*****'.
#
# run_tester.sh FORM LIB TESTER INPUT EXPECTED_PASSED
#   FORM     preload (LD_PRELOAD=LIB, the reference libblas.so.3 underneath) or
#            libblas (LD_LIBRARY_PATH=the directory of LIB, a libblas.so.3)
#   TESTER   path of xblat3d, xblat3s, xdcblat3 or xscblat3; INPUT its input file
# Environment: GPUOPT_BLAS_* pass through. BLAS_TESTER_DIR overrides where the reference
# libblas.so.3 is (default /usr/lib/x86_64-linux-gnu/blas). Unless GPUOPT_BLAS_LOG is set, stderr
# must stay empty. Exit 77 (skipped) when the tester is not installed.
set -uo pipefail
form=$1 lib=$2 tester=$3 input=$4 expected=$5
ref_dir=${BLAS_TESTER_DIR:-/usr/lib/x86_64-linux-gnu/blas}
if [[ -n ${BLAS_TESTER_NEEDS_GPU:-} ]] && ! nvidia-smi -L >/dev/null 2>&1; then
  echo "skipped: no GPU (nvidia-smi -L failed)"
  exit 77
fi
if [[ ! -x $tester || ! -r $input ]]; then
  echo "skipped: $tester or $input missing (apt-get install libblas-test)"
  exit 77
fi
input=$(realpath "$input")
tester=$(realpath "$tester")
lib=$(realpath "$lib")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
case $form in
  preload) env=(LD_LIBRARY_PATH="$ref_dir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" LD_PRELOAD="$lib") ;;
  libblas) env=(LD_LIBRARY_PATH="$(dirname "$lib")${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}") ;;
  *) echo "unknown form $form"; exit 2 ;;
esac
env "${env[@]}" "$tester" <"$input" >stdout.txt 2>stderr.txt
rc=$?
cat stdout.txt ./*.out 2>/dev/null >all.txt
passed=$(grep -c PASSED all.txt)
stars=$(grep -c '\*\*\*\*\*' all.txt)
echo "$(basename "$tester") ($form): exit $rc, $passed PASSED (expected $expected), $stars lines with *****"
ok=1
if [[ $rc -ne 0 || $passed -ne $expected || $stars -ne 0 ]]; then ok=0; fi
if [[ -z ${GPUOPT_BLAS_LOG:-} && -s stderr.txt ]]; then
  echo "stderr was not empty:"
  head -n 5 stderr.txt
  ok=0
fi
if [[ -n ${GPUOPT_BLAS_LOG:-} ]]; then
  echo "where the calls ran (GPUOPT_BLAS_LOG):"
  grep -o '\[[cg]pu\]' stderr.txt | sort | uniq -c
  if [[ ${GPUOPT_BLAS_FORCE:-} == gpu ]] && grep -q '\[cpu\]' stderr.txt; then
    echo "GPUOPT_BLAS_FORCE=gpu but some calls ran on the CPU:"
    grep '\[cpu\]' stderr.txt | sort | uniq -c | head -n 5
    ok=0
  fi
fi
if [[ $ok -ne 1 ]]; then
  grep -B2 -A8 '\*\*\*\*\*' all.txt | head -n 60
  if [[ $rc -ne 0 || $passed -ne $expected ]]; then
    # The tester stopped or skipped routines (a rejected input, a limit, a crash): its own words.
    echo "--- the tester's output (last 25 lines):"
    tail -n 25 all.txt
    echo "--- its stderr without gpuopt_blas's log lines (last 25 lines):"
    grep -Ev '^gpuopt_blas: [a-z0-9]+ [A-Z]+ [a-z]=' stderr.txt | tail -n 25
  fi
  exit 1
fi
