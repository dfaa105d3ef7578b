#!/usr/bin/env python3
"""Summarise bench/core.sh fio JSON: medians over repetitions, per row.

usage: summarize.py MANIFEST.tsv HEADER.md ROWS.tsv  (markdown on stdout)
MANIFEST columns: rep, row, system, ok|na, json path, reason
"""
import json
import os
import statistics
import sys
from collections import defaultdict

SYS_ORDER = ["raw", "passthrough_ll", "zfs", "arraysim", "arraysim_b",
             "arraysim_c"]
LABEL = {"raw": "raw", "passthrough_ll": "passthrough_ll", "zfs": "zfs-fuse", "arraysim": "arraysim",
         "arraysim_b": os.environ.get("ARRAYSIM_B_LABEL", "arraysim_b"),
         "arraysim_c": os.environ.get("ARRAYSIM_C_LABEL", "arraysim_c")}


def pct(clat, p):
    ps = clat.get("percentile") or {}
    for k, v in ps.items():
        if abs(float(k) - p) < 1e-6:
            return v / 1000.0  # ns -> us
    return None


def parse(path):
    with open(path) as f:
        txt = f.read()
    # fio may print warnings before the JSON object
    j = json.loads(txt[txt.index("{"):])
    job = j["jobs"][0]
    if job.get("error"):
        raise ValueError("fio job error %s" % job["error"])
    m = {}
    tot_iops = tot_bw = 0.0
    for d in ("read", "write"):
        x = job[d]
        tot_iops += x["iops"]
        tot_bw += x["bw_bytes"]
        if x["total_ios"] > 0:
            m[d + "_iops"] = x["iops"]
            m[d + "_p50"] = pct(x["clat_ns"], 50.0)
            m[d + "_p99"] = pct(x["clat_ns"], 99.0)
    m["iops"] = tot_iops
    m["mbs"] = tot_bw / 1e6
    return m


def med(vals):
    vals = [v for v in vals if v is not None]
    return statistics.median(vals) if vals else None


def fmt(v, nd=0):
    if v is None:
        return "-"
    if nd == 0:
        return f"{v:,.0f}"
    return f"{v:,.{nd}f}"


def ratio(a, b):
    if a is None or b is None or b == 0:
        return "-"
    return f"{a / b:.2f}x"


def main():
    manifest, header, rowsf = sys.argv[1:4]
    rows = []
    desc = {}
    with open(rowsf) as f:
        for line in f:
            p = line.rstrip("\n").split("\t")
            rows.append(p[0])
            desc[p[0]] = (p[3], p[2])
    runs = defaultdict(list)  # (row, sys) -> [metrics]
    na = defaultdict(list)    # (row, sys) -> [reason]
    with open(manifest) as f:
        for line in f:
            p = line.rstrip("\n").split("\t")
            if len(p) < 5:
                continue
            rep, row, s, st, path = p[:5]
            reason = p[5] if len(p) > 5 else ""
            if st == "ok":
                try:
                    runs[(row, s)].append(parse(path))
                except Exception as e:  # noqa: BLE001
                    na[(row, s)].append(f"unparsable JSON: {e}")
            else:
                na[(row, s)].append(reason or "failed")
    with open(header) as f:
        print(f.read().rstrip())
    print()
    print("Medians over repetitions. IOPS and MB/s are read+write totals; "
          "latencies are fio completion latency (clat) percentiles in microseconds. "
          "`n` = good repetitions; `IOPS range` = min-max over them.")
    for row in rows:
        present = [s for s in SYS_ORDER if (row, s) in runs or (row, s) in na]
        present += sorted({s for (r, s) in list(runs) + list(na) if r == row} - set(present))
        if not present:
            continue
        print()
        print(f"## {row}")
        print()
        print(f"{desc[row][0]}  (`{desc[row][1]}`)")
        print()
        print("| system | n | IOPS | IOPS range | MB/s | rd p50 us | rd p99 us | wr p50 us | wr p99 us |")
        print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
        medians = {}
        for s in present:
            ms = runs.get((row, s), [])
            if not ms:
                why = "; ".join(sorted(set(na.get((row, s), ["no data"]))))
                print(f"| {LABEL.get(s, s)} | 0 | n/a | | | | | | |  {why[:160]}")
                continue
            md = {k: med([m.get(k) for m in ms]) for k in
                  ("iops", "mbs", "read_p50", "read_p99", "write_p50", "write_p99")}
            medians[s] = md
            rng = f"{min(m['iops'] for m in ms):,.0f}-{max(m['iops'] for m in ms):,.0f}"
            extra = ""
            if na.get((row, s)):
                extra = f" ({len(na[(row, s)])} failed)"
            print(f"| {LABEL.get(s, s)} | {len(ms)}{extra} | {fmt(md['iops'])} | {rng} | {fmt(md['mbs'], 1)} | "
                  f"{fmt(md['read_p50'], 1)} | {fmt(md['read_p99'], 1)} | {fmt(md['write_p50'], 1)} | {fmt(md['write_p99'], 1)} |")
        a = medians.get("arraysim")
        for ref in ("passthrough_ll", "zfs", "arraysim_b", "arraysim_c"):
            b = medians.get(ref)
            if a and b:
                print()
                print(f"arraysim/{LABEL[ref]}: IOPS {ratio(a['iops'], b['iops'])}, MB/s {ratio(a['mbs'], b['mbs'])}, "
                      f"rd p99 {ratio(a['read_p99'], b['read_p99'])}, wr p99 {ratio(a['write_p99'], b['write_p99'])}")


if __name__ == "__main__":
    main()
