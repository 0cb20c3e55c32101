#!/usr/bin/env bash
# abi-check.sh [--update] LIB: compares LIB (a libgpuopt.so with debug information) with the
# committed ABI baseline abi/libgpuopt.abi (see docs/abi.md).
#   exit 0: no change, or only compatible changes (additions), or an incompatible change together
#           with a new SONAME (the major version moved);
#   exit 1: an incompatible change under the same SONAME; exit 2: the check could not run.
# --update: rewrites the baseline from LIB first (after a deliberate change).
set -uo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BASELINE="$ROOT/abi/libgpuopt.abi"
UPDATE=0
if [ "${1:-}" = --update ]; then
  UPDATE=1
  shift
fi
LIB="${1:-}"
if [ -z "$LIB" ] || [ ! -f "$LIB" ]; then
  echo "abi-check: usage: $0 [--update] path/to/libgpuopt.so" >&2
  exit 2
fi
for tool in abidw abidiff; do
  command -v "$tool" >/dev/null 2>&1 || {
    echo "abi-check: $tool not found (apt-get install abigail-tools)" >&2
    exit 2
  }
done
LIB="$(readlink -f "$LIB")"
if [ "$UPDATE" -eq 1 ]; then
  abidw --headers-dir "$ROOT/include" --drop-private-types --no-corpus-path \
    --out-file "$BASELINE" "$LIB" || exit 2
  echo "abi-check: baseline rewritten from $LIB"
fi
[ -f "$BASELINE" ] || {
  echo "abi-check: no baseline $BASELINE (run with --update)" >&2
  exit 2
}

soname_of_baseline="$(sed -n "s/.*soname='\([^']*\)'.*/\1/p" "$BASELINE" | head -n 1)"
soname_of_lib="$(objdump -p "$LIB" 2>/dev/null | awk '$1 == "SONAME" { print $2 }')"

abidiff --headers-dir2 "$ROOT/include" --drop-private-types --no-added-syms "$BASELINE" "$LIB" \
  >/tmp/abi-check.$$ 2>&1
rc=$?
report="$(cat /tmp/abi-check.$$)"
rm -f /tmp/abi-check.$$
abidiff --headers-dir2 "$ROOT/include" --drop-private-types "$BASELINE" "$LIB" >/dev/null 2>&1
rc_all=$?

if [ $((rc & 3)) -ne 0 ]; then
  echo "abi-check: abidiff failed (exit $rc):"
  echo "$report"
  exit 2
fi
if [ $((rc & 8)) -ne 0 ]; then
  echo "$report"
  if [ -n "$soname_of_baseline" ] && [ "$soname_of_baseline" != "$soname_of_lib" ]; then
    echo "abi-check: incompatible changes, allowed: the SONAME moved ($soname_of_baseline -> $soname_of_lib)"
    exit 0
  fi
  echo "abi-check: FAIL: incompatible ABI change under the same SONAME ($soname_of_lib)." \
    "Keep the ABI (docs/abi.md) or move GPUOPT_VERSION_MAJOR."
  exit 1
fi
if [ $((rc & 4)) -ne 0 ] || [ "$rc_all" -ne 0 ]; then
  echo "$report"
  echo "abi-check: compatible changes only (e.g. additions): pass; regenerate the baseline with" \
    "scripts/abi-check.sh --update $LIB"
  exit 0
fi
echo "abi-check: $LIB matches abi/libgpuopt.abi ($soname_of_lib)"
exit 0
