#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Checks that two hosts shipping OTLP into one receiver stayed apart.

  two_hosts.py --vm EXPORT.jsonl --host A --csv DIR_A --host B --csv DIR_B

EXPORT is VictoriaMetrics' /api/v1/export of every memcg_* series; DIR_X
the csv directory of host X's collectd (the reference, as in compare.py).
For every series:
  - it names exactly one of the hosts, the same one in host, host.name
    and service.instance.id, and service.name is memcg_bpf;
For each host:
  - its series are exactly the (cgroup, stat) pairs its collectd sampled
    (none missing, none extra: "complete");
  - each series holds the timestamps and values of that host's csv and no
    other sample up to its last csv row (stale markers aside): no sample of
    the other host was merged into it;
  - it has the sender's own metrics.
Exit 0 when all holds, 1 otherwise.
"""
import argparse
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import compare  # noqa: E402 (the csv reader and the name rules)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--vm", required=True)
    ap.add_argument("--host", action="append", required=True)
    ap.add_argument("--csv", action="append", required=True)
    a = ap.parse_args()
    if len(a.host) != len(a.csv):
        ap.error("one --csv per --host")

    expected = {h: compare.load_csv(d) for h, d in zip(a.host, a.csv)}
    got = {h: {} for h in a.host}  # host -> key -> {ts: value}
    nseries = {h: 0 for h in a.host}
    self_seen = {h: set() for h in a.host}
    problems = []
    for labels, samples in compare.load_vm(a.vm):
        ids = {k: labels.get(k) for k in ("host", "host.name", "service.instance.id")}
        host = ids["host"]
        if host not in got or set(ids.values()) != {host}:
            problems.append("series of no single host (%s): %s" % (ids, labels))
            continue
        if labels.get("service.name") != "memcg_bpf":
            problems.append("service.name is not memcg_bpf: %s" % labels)
        nseries[host] += 1
        name = labels.get("__name__", "")
        if compare.is_self(name):
            self_seen[host].add(name)
            continue
        csv_types = {(k[1], k[2]) for k in expected[host]}
        ts = compare.stat_of(name, csv_types)
        if ts is None or "cgroup" not in labels:
            problems.append("unexpected series %s" % labels)
            continue
        key = (compare.instance_of(compare.unescape_label(labels["cgroup"])),) + ts
        if key in got[host]:
            problems.append("two series of %s for %s" % (host, "/".join(key)))
        vals = got[host].setdefault(key, {})
        for t, v in samples:
            if not math.isnan(v):
                vals[t] = v

    for h in a.host:
        exp, have = expected[h], got[h]
        missing = sorted(set(exp) - set(have))
        extra = sorted(set(have) - set(exp))
        # the csv's samples, and no other but after its last row (an
        # interval shipped while collectd stopped, before its csv write)
        last = max((t for v in exp.values() for t in v), default=0)
        merged = [k for k in set(exp) & set(have)
                  if any(have[k].get(t) != v for t, v in exp[k].items()) or
                  any(t not in exp[k] and t <= last for t in have[k])]
        print("two_hosts: %s: %d series (%d sampled (cgroup, stat) pairs, %d self metrics), "
              "%d missing, %d extra, %d with samples not its own"
              % (h, nseries[h], len(exp), len(self_seen[h]), len(missing), len(extra), len(merged)))
        for k in missing[:5]:
            problems.append("%s: series missing: %s" % (h, "/".join(k)))
        for k in extra[:5]:
            problems.append("%s: series it never sampled: %s" % (h, "/".join(k)))
        for k in merged[:5]:
            e, g = exp[k], have[k]
            diff = sorted(set(e.items()) ^ set(g.items()))[:4]
            problems.append("%s: %s: samples differ from its csv: %s" % (h, "/".join(k), diff))
        if "memcg_bpf_sender_samples_sent_total" not in self_seen[h]:
            problems.append("%s: no memcg_bpf_sender_samples_sent_total" % h)
        if not exp:
            problems.append("%s: its collectd sampled nothing" % h)
    for p in problems[:30]:
        print("two_hosts: " + p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
