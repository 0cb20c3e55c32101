#!/usr/bin/env python3
"""Compares two gpuopt-bench JSON files (a run before a change and one after, same device).

Prints a Markdown table of every bar present in both runs and of every `auto` row (the time a
user gets), with the change in the direction that matters: a bar with a lower bound (">= x")
is better higher, one with an upper bound ("<= x") better lower; an auto row is better faster.
Rows whose change is worse than --tolerance (default 2%) are marked "SLOWER" / "WORSE", and the
exit status is 1 when any is, 0 otherwise (2 on unusable input).

    python3 scripts/compare_bench.py before.json after.json [--tolerance 0.02] [--all]

--all also lists the rows that did not move beyond the tolerance (the default lists every bar
and only the auto rows that moved).
"""
import argparse
import json
import sys


def load(path):
    try:
        with open(path, encoding="utf-8") as f:
            d = json.load(f)
    except (OSError, ValueError) as e:
        sys.exit(f"compare_bench: {path}: {e}")
    if "bars" not in d or "results" not in d:
        sys.stderr.write(f"compare_bench: {path}: not a gpuopt-bench JSON (no bars/results)\n")
        sys.exit(2)
    return d


def row_key(r):
    return (r.get("op"), r.get("dtype"), r.get("shape"), r.get("memory"), r.get("data"))


def auto_rows(d):
    """Auto rows by key; a key seen twice keeps its first row (the suites list each once)."""
    out = {}
    for r in d["results"]:
        if r.get("variant") != "auto" or r.get("error") or r.get("skipped"):
            continue
        ms = r.get("ms")
        if isinstance(ms, (int, float)) and ms > 0:
            out.setdefault(row_key(r), r)
    return out


def bar_change(b0, b1):
    """Relative change of a bar, positive when it got better."""
    v0, v1 = b0.get("value"), b1.get("value")
    if not isinstance(v0, (int, float)) or not isinstance(v1, (int, float)) or v0 == 0:
        return None
    lower_is_better = b1.get("max") is not None and b1.get("min") is None
    change = (v1 - v0) / abs(v0)
    return -change if lower_is_better else change


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("before")
    ap.add_argument("after")
    ap.add_argument("--tolerance", type=float, default=0.02)
    ap.add_argument("--all", action="store_true")
    a = ap.parse_args(argv)
    d0, d1 = load(a.before), load(a.after)
    worse = 0
    print(f"before: {d0.get('git', '?')} on {d0['device'].get('name', '?')}; "
          f"after: {d1.get('git', '?')} on {d1['device'].get('name', '?')}; "
          f"tolerance {a.tolerance:.0%}\n")
    print("| bar | before | after | change | |\n| --- | --- | --- | --- | --- |")
    bars0 = {b["name"]: b for b in d0["bars"]}
    for b1 in d1["bars"]:
        b0 = bars0.get(b1["name"])
        if b0 is None:
            print(f"| {b1['name']} | (new) | {b1.get('value', float('nan')):.4g} | | |")
            continue
        c = bar_change(b0, b1)
        flag = ""
        if c is not None and c < -a.tolerance:
            flag, worse = "WORSE", worse + 1
        cs = "" if c is None else f"{c:+.1%}"
        print(f"| {b1['name']} | {b0.get('value', float('nan')):.4g} | "
              f"{b1.get('value', float('nan')):.4g} | {cs} | {flag} |")
    for name in bars0:
        if name not in {b["name"] for b in d1["bars"]}:
            print(f"| {name} | {bars0[name].get('value', float('nan')):.4g} | (gone) | | |")
    print("\n| auto row | before ms | after ms | speed change | |\n| --- | --- | --- | --- | --- |")
    r0, r1 = auto_rows(d0), auto_rows(d1)
    moved = 0
    for key, r in r1.items():
        if key not in r0:
            continue
        speed = r0[key]["ms"] / r["ms"] - 1.0
        flag = ""
        if speed < -a.tolerance:
            flag, worse = "SLOWER", worse + 1
        if flag or a.all or abs(speed) > a.tolerance:
            moved += 1
            name = " ".join(str(k) for k in key if k)
            print(f"| {name} (ran {r.get('ran_variant', '?')}) | {r0[key]['ms']:.4f} | "
                  f"{r['ms']:.4f} | {speed:+.1%} | {flag} |")
    print(f"\n{len(r1)} auto rows compared, {moved} listed; {worse} worse than the tolerance")
    return 1 if worse else 0


if __name__ == "__main__":
    sys.exit(main())
