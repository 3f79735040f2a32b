#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Counts per series in a VictoriaMetrics export against collectd's csv.

For every memcg series sampled (csv) the number of samples stored must equal
the number of rows collectd wrote for it (one per interval it ran), with no
(series, timestamp) twice and no timestamp collectd did not sample. Prints
one summary line; exit 1 on any difference.
--missing-intervals N expects exactly N whole intervals missing (the 400 test:
those were dropped by design).
--rejected FILE (the fault proxy's /rejected: every sample of a request it
answered with an error) expects exactly those samples missing and no other.
"""
import json
import argparse
import math
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "sender"))
import compare  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--csv", required=True)
    ap.add_argument("--vm", required=True)
    ap.add_argument("--missing-intervals", type=int, default=0,
                    help="exactly this many intervals are missing, each from every series (dropped by design)")
    ap.add_argument("--from-ms", type=int, default=0, help="ignore stored samples before this time")
    ap.add_argument("--rejected", help="exactly these (series, timestamp) are missing (JSON lines)")
    a = ap.parse_args()
    expected = compare.load_csv(a.csv)
    csv_types = {(k[1], k[2]) for k in expected}

    def key_of(labels):
        name = labels.get("__name__", "")
        if compare.is_self(name):
            return None
        ts = compare.stat_of(name, csv_types)
        if ts is None or "cgroup" not in labels:
            return None
        return (compare.instance_of(labels["cgroup"]),) + ts

    got, dups = {}, 0
    for labels, samples in compare.load_vm(a.vm):
        key = key_of(labels)
        if key is None:
            continue
        stamps = [t for t, v in samples if not math.isnan(v) and t >= a.from_ms]
        dups += len(stamps) - len(set(stamps))
        got.setdefault(key, []).extend(stamps)
    missing = extra = wrong_count = 0
    gone = {}  # timestamp -> series missing it
    counts = []
    for key, vals in expected.items():
        have = got.get(key, [])
        counts.append(len(have))
        if len(have) != len(vals):
            wrong_count += 1
        missing += len(set(vals) - set(have))
        for t in set(vals) - set(have):
            gone[t] = gone.get(t, 0) + 1
        extra += len(set(have) - set(vals))
    if gone:
        stamps = sorted({t for vals in expected.values() for t in vals})
        for t in sorted(gone)[:5]:
            print("check_vm: missing at %d ms (interval %d of %d): %d series" % (t, stamps.index(t) + 1, len(stamps), gone[t]))
    rows = [len(v) for v in expected.values()]
    print("check_vm: %d series; csv rows per series %d..%d; stored per series %d..%d; "
          "%d missing, %d not sampled, %d duplicates, %d series with a different count"
          % (len(expected), min(rows), max(rows), min(counts), max(counts), missing, extra, dups, wrong_count))
    if a.rejected:
        want_missing = set()
        with open(a.rejected) as f:
            for line in f:
                r = json.loads(line)
                key = key_of(r["labels"])
                if key is not None and key in expected and r["ts"] >= a.from_ms:
                    want_missing.add((key, r["ts"]))
        have_missing = {(key, t) for key, vals in expected.items()
                        for t in set(vals) - set(got.get(key, []))}
        print("check_vm: %d samples rejected by the collector, %d missing; %d missing that it did not reject, "
              "%d it rejected that arrived anyway" % (len(want_missing), len(have_missing),
                                                      len(have_missing - want_missing),
                                                      len(want_missing - have_missing)))
        return 0 if have_missing == want_missing and want_missing and not extra and not dups else 1
    if a.missing_intervals:
        sampled = {}
        for vals in expected.values():
            for t in vals:
                sampled[t] = sampled.get(t, 0) + 1
        whole = [t for t, n in gone.items() if n == sampled[t]]
        print("check_vm: %d intervals missing from every series, %d partly" % (len(whole), len(gone) - len(whole)))
        return 0 if len(whole) == len(gone) == a.missing_intervals and not extra and not dups else 1
    return 1 if missing or extra or dups or wrong_count or not expected else 0


if __name__ == "__main__":
    sys.exit(main())
