#!/usr/bin/env python3
"""Summarizes scripts/probe-stencil3d.sh: the issue-19 candidates of the 3D stencil against auto.

Usage: probe_stencil3d.py [--pick N] ROUND_JSON... [--pairs PAIR_JSON...]

ROUND_JSON: gpuopt-bench --op stencil JSON files that each hold every candidate, the forced
sm90_zmarch_fwd_chunks row and auto, all on the same buffers (one bench run per file). Per round,
a candidate's ratio is its GB/s over the mean of that round's two baseline rows
(sm90_zmarch_fwd_chunks, the table's first candidate-like row, and auto, the last row), so clock
drift between rounds cancels. PAIR_JSON: runs of one candidate and auto only, alternated by the
script; their ratio is candidate / auto of the same run.

Prints one table per problem (3D 512^3 r=4 f32: random on device memory, the bar's row; then the
smooth field on device and compressible memory), medians over the rounds, and, with --pick N,
the names of the N best candidates by median ratio on the bar's row (last line, "PICK ...") for
the script's head-to-head runs.
"""
import json
import statistics
import sys

BASELINES = ("sm90_zmarch_fwd_chunks", "auto")
BAR_SHARE = 0.85  # issue 19: 3D auto >= 0.85 of the copy roof


def load(path):
    with open(path) as f:
        d = json.load(f)
    roof = (d.get("roofs") or {}).get("copy_gbs") or float("nan")
    rows = {}
    for r in d.get("results", []):
        shape = r.get("shape", "")
        if r.get("op") != "stencil" or shape.split(" ")[0].count("x") != 2:
            continue  # the 3D groups only
        key = (r.get("memory"), r.get("data"))
        ok = r.get("correct") and not r.get("error") and r.get("gbs")
        rows.setdefault(key, {})[r["variant"]] = {
            "gbs": r["gbs"] if ok else None,
            "error": None if ok else (r.get("error") or r.get("mismatch") or "wrong result"),
            "ran": r.get("ran_variant"),
        }
    return roof, rows


def med(v):
    v = [x for x in v if x is not None]
    return statistics.median(v) if v else None


def fmt(x, spec):
    return format(x, spec) if x is not None else "-"


def summarize(rounds, pairs, pick):
    keys = [("device", "random"), ("device", "smooth"), ("compressible", "smooth")]
    print("copy roof per run (GB/s): " + " ".join(fmt(roof, ".0f") for roof, _ in rounds))
    best = []
    for key in keys:
        per = {}  # variant -> list of (gbs, share, ratio)
        errors = {}
        auto_ran = set()
        for roof, rows in rounds:
            g = rows.get(key)
            if not g:
                continue
            base = [g[b]["gbs"] for b in BASELINES if b in g and g[b]["gbs"]]
            base_gbs = sum(base) / len(base) if base else None
            if "auto" in g and g["auto"]["ran"]:
                auto_ran.add(g["auto"]["ran"])
            for v, x in g.items():
                if x["gbs"] is None:
                    errors.setdefault(v, x["error"])
                    continue
                ratio = x["gbs"] / base_gbs if base_gbs else None
                per.setdefault(v, []).append((x["gbs"], x["gbs"] / roof, ratio))
        if not per:
            continue
        print(f"\n3D 512^3 r=4 f32, {key[1]} field, {key[0]} memory "
              f"({len(rounds)} rounds; auto ran {', '.join(sorted(auto_ran)) or '?'})")
        print(f"{'variant':32} {'GB/s':>7} {'of copy':>8} {'vs base':>8} {'min':>6} {'max':>6}")
        order = sorted(per, key=lambda v: -(med([r for _, _, r in per[v]]) or 0))
        for v in order:
            gbs = med([a for a, _, _ in per[v]])
            share = med([s for _, s, _ in per[v]])
            ratios = [r for _, _, r in per[v] if r is not None]
            mark = " <- bar" if key == keys[0] and share is not None and share >= BAR_SHARE else ""
            print(f"{v:32} {fmt(gbs, '7.0f')} {fmt(share, '8.3f')} {fmt(med(ratios), '8.3f')} "
                  f"{fmt(min(ratios) if ratios else None, '6.3f')} "
                  f"{fmt(max(ratios) if ratios else None, '6.3f')}{mark}")
        for v, e in errors.items():
            print(f"{v:32} ERROR {e}")
        if key == keys[0]:
            best = [v for v in order if v not in BASELINES]
    if pairs:
        print("\nHead-to-head (each run: the candidate, then auto, same buffers; "
              "device memory, random field)")
        print(f"{'variant':32} {'runs':>4} {'GB/s':>7} {'of copy':>8} {'auto GB/s':>9} "
              f"{'cand/auto':>9} {'min':>6} {'max':>6}")
        per = {}
        for roof, rows in pairs:
            g = rows.get(keys[0]) or {}
            cands = [v for v in g if v != "auto"]
            if len(cands) != 1 or "auto" not in g:
                continue
            c, a = g[cands[0]]["gbs"], g["auto"]["gbs"]
            if c and a:
                per.setdefault(cands[0], []).append((c, c / roof, a, c / a))
        for v, xs in sorted(per.items(), key=lambda kv: -med([x[3] for x in kv[1]])):
            ratios = [x[3] for x in xs]
            print(f"{v:32} {len(xs):4d} {med([x[0] for x in xs]):7.0f} "
                  f"{med([x[1] for x in xs]):8.3f} {med([x[2] for x in xs]):9.0f} "
                  f"{med(ratios):9.3f} {min(ratios):6.3f} {max(ratios):6.3f}")
    if pick:
        print("PICK " + " ".join(best[:pick]))


def main(argv):
    pick = 0
    rounds, pairs, target = [], [], None
    it = iter(argv)
    for a in it:
        if a == "--pick":
            pick = int(next(it))
        elif a == "--pairs":
            target = pairs
        else:
            try:
                (pairs if target is pairs else rounds).append(load(a))
            except (OSError, ValueError) as e:
                print(f"skipping {a}: {e}", file=sys.stderr)
    summarize(rounds, pairs, pick)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
