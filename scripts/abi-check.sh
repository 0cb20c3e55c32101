#!/usr/bin/env bash
# abi-check.sh [--update] LIB: compares LIB (a libgpuopt.so with debug information) with the
# committed ABI baseline abi/libgpuopt.abi (see docs/abi.md).
#   exit 0: no change, or only compatible changes (additions), or an incompatible change together
#           with a new SONAME (the major version moved);
#   exit 1: an incompatible change under the same SONAME; exit 2: the check could not run.
# --update: rewrites the baseline from LIB first (after a deliberate change).
set -uo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BASELINE="${GPUOPT_ABI_BASELINE:-$ROOT/abi/libgpuopt.abi}"
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
  # Only what gpuopt.h exports; no paths, locations or DT_NEEDED (they differ between builds).
  abidw --headers-dir "$ROOT/include" --drop-private-types --exported-interfaces-only \
    --no-corpus-path --no-comp-dir-path --no-show-locs --no-elf-needed \
    --out-file "$BASELINE" "$LIB" || exit 2
  echo "abi-check: baseline rewritten from $LIB"
fi
[ -f "$BASELINE" ] || {
  echo "abi-check: no baseline $BASELINE (run with --update)" >&2
  exit 2
}

soname_of_baseline="$(sed -n "s/.*soname='\([^']*\)'.*/\1/p" "$BASELINE" | head -n 1)"
soname_of_lib="$(objdump -p "$LIB" 2>/dev/null | awk '$1 == "SONAME" { print $2 }')"

# Changed or removed interfaces (additions left out).
abidiff --exported-interfaces-only --no-added-syms "$BASELINE" "$LIB" \
  >/tmp/abi-check.$$ 2>&1
rc=$?
report="$(cat /tmp/abi-check.$$)"
rm -f /tmp/abi-check.$$
# Everything, additions included.
abidiff --exported-interfaces-only "$BASELINE" "$LIB" >/dev/null 2>&1
rc_all=$?

if [ $((rc & 3)) -ne 0 ] || [ $((rc_all & 3)) -ne 0 ]; then
  echo "abi-check: abidiff failed (exit $rc / $rc_all):"
  echo "$report"
  exit 2
fi
# abidiff sets bit 8 for changes it knows are incompatible (removals) and bit 4 for any other
# change, sub-type changes included: both fail. A struct grown at its end (allowed by the rules)
# is reported too: check it in review and commit the regenerated baseline with it.
if [ $((rc & 12)) -ne 0 ]; then
  echo "$report"
  if [ -n "$soname_of_baseline" ] && [ "$soname_of_baseline" != "$soname_of_lib" ]; then
    echo "abi-check: incompatible changes, allowed: the SONAME moved ($soname_of_baseline -> $soname_of_lib)"
    exit 0
  fi
  echo "abi-check: FAIL: incompatible ABI change under the same SONAME ($soname_of_lib)." \
    "Keep the ABI (docs/abi.md) or move GPUOPT_VERSION_MAJOR."
  exit 1
fi
if [ "$rc_all" -ne 0 ]; then
  echo "abi-check: compatible changes only (additions): pass; regenerate the baseline with" \
    "scripts/abi-check.sh --update $LIB"
  exit 0
fi
echo "abi-check: $LIB matches abi/libgpuopt.abi ($soname_of_lib)"
exit 0
