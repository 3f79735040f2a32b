#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Checks that what a receiver stored is what collectd sampled.

The expected values come from collectd's csv plugin in the same daemon (one
directory per cgroup, named by the plugin_instance rule of
plugin/series/instance_name.h; one file per stat). The received series come from a
receiver's HTTP API, dumped to files:
  --prom FILE   Prometheus /api/v1/query of a range selector (matrix JSON)
  --vm FILE     VictoriaMetrics /api/v1/export (JSON lines); repeatable for
                sharded nodes, with --exclusive: each series on one node only
Every (cgroup, stat, timestamp) in the csv files must be in the receiver with
the same value (exact: the values are integers below 2^53); every received
cgroup must be a sampled one. Timestamps are compared in milliseconds: the
csv plugin prints them with %.3f and the sender rounds to the nearest ms.
"""
import argparse
import json
import math
import os
import re
import sys

PLAIN = re.compile(rb"[A-Za-z0-9.@-]")


# The plugin's own series: the sender's, the sampler's (the cgroup budget's
# counts, the sample's duration, CPU and errors) and the backend running.
SELF_PREFIXES = ("memcg_bpf_sender_", "memcg_bpf_cgroups_", "memcg_bpf_cgroup_parents_",
                 "memcg_bpf_sample_", "memcg_bpf_backend_info")


def is_self(name):
    return name.startswith(SELF_PREFIXES)


def instance_of(path):
    """The plugin_instance rule, for names up to 127 bytes (the host's are short)."""
    b = path.encode("utf-8", "surrogateescape").lstrip(b"/")
    if not b:
        return "root"

    def enc(data, escape_first):
        out = []
        for i, c in enumerate(data):
            ch = bytes([c])
            if escape_first and i == 0:
                out.append("+%02x" % c)
            elif ch == b"/":
                out.append("_")
            elif PLAIN.match(ch):
                out.append(ch.decode())
            else:
                out.append("+%02x" % c)
        return "".join(out)

    name = enc(b, False)
    if name in ("root", "self"):
        name = enc(b, True)
    if len(name) > 127:
        raise SystemExit("compare: cgroup path too long for this checker: %r" % path)
    return name


def unescape_label(v):
    """Inverse of plugin/series/label_escape.h for the host's paths (valid UTF-8: identity)."""
    return v


def stat_of(metric, csv_types):
    for prefix, suffix, typ in (("memcg_", "_bytes", "bytes"), ("memcg_", "_total", "derive"), ("memcg_", "", "gauge")):
        if metric.startswith(prefix) and metric.endswith(suffix):
            stat = metric[len(prefix):len(metric) - len(suffix)] if suffix else metric[len(prefix):]
            if (typ, stat) in csv_types:
                return typ, stat
    return None


def load_csv(root):
    expected = {}  # (instance, type, stat) -> {ts_ms: value}
    for host in os.listdir(root):
        for d in os.listdir(os.path.join(root, host)):
            if not d.startswith("memcg_bpf-") or d == "memcg_bpf-self":
                continue
            inst = d[len("memcg_bpf-"):]
            for f in os.listdir(os.path.join(root, host, d)):
                m = re.match(r"(bytes|derive|gauge)-(.+)-\d{4}-\d{2}-\d{2}$", f)
                if not m:
                    continue
                key = (inst, m.group(1), m.group(2))
                with open(os.path.join(root, host, d, f)) as fh:
                    next(fh)
                    for line in fh:
                        t, v = line.strip().split(",")[:2]
                        expected.setdefault(key, {})[int(round(float(t) * 1000))] = float(v)
    return expected


def load_prom(path):
    doc = json.load(open(path))
    if doc.get("status") != "success":
        raise SystemExit("compare: prometheus answered %s" % doc)
    for r in doc["data"]["result"]:
        yield r["metric"], [(int(round(float(t) * 1000)), float(v)) for t, v in r["values"]]


def load_vm(path):
    with open(path) as fh:
        for line in fh:
            if line.strip():
                r = json.loads(line)
                vals = [float("nan") if v is None else float(v) for v in r["values"]]
                yield r["metric"], list(zip(r["timestamps"], vals))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--csv", required=True)
    ap.add_argument("--prom", action="append", default=[])
    ap.add_argument("--vm", action="append", default=[])
    ap.add_argument("--exclusive", action="store_true")
    ap.add_argument("--host-label", default="host")
    ap.add_argument("--host", default="mbtest")
    ap.add_argument("--require-self", action="store_true")
    args = ap.parse_args()

    expected = load_csv(args.csv)
    csv_types = {(k[1], k[2]) for k in expected}
    got = {}       # (instance, type, stat) -> {ts: value}
    where = {}     # series key -> set of sources
    self_seen = set()
    cpu_stages = set()
    backends = set()  # (backend, reason) of memcg_bpf_backend_info
    stale = 0
    problems = []
    sources = [(p, load_prom(p)) for p in args.prom] + [(p, load_vm(p)) for p in args.vm]
    for src, series in sources:
        for labels, samples in series:
            name = labels.get("__name__", "")
            if is_self(name):
                self_seen.add(name)
                if name == "memcg_bpf_sender_cpu_seconds_total":
                    cpu_stages.add(labels.get("stage"))
                if name == "memcg_bpf_backend_info":
                    backends.add((labels.get("backend"), labels.get("reason")))
                continue
            if labels.get(args.host_label) != args.host:
                problems.append("series without %s=%s: %s" % (args.host_label, args.host, labels))
                continue
            ts = stat_of(name, csv_types)
            if ts is None or "cgroup" not in labels:
                problems.append("unexpected series %s" % labels)
                continue
            key = (instance_of(unescape_label(labels["cgroup"])),) + ts
            where.setdefault(tuple(sorted(labels.items())), set()).add(src)
            for t, v in samples:
                if math.isnan(v):
                    stale += 1
                    continue
                got.setdefault(key, {})[t] = v

    checked = missing = wrong = 0
    for key, vals in sorted(expected.items()):
        have = got.get(key, {})
        for t, v in sorted(vals.items()):
            checked += 1
            if t not in have:
                missing += 1
                if missing <= 10:
                    problems.append("missing %s @%d (value %r)" % ("/".join(key), t, v))
            elif have[t] != v:
                wrong += 1
                if wrong <= 10:
                    problems.append("wrong %s @%d: sampled %r, stored %r" % ("/".join(key), t, v, have[t]))
    for key in got:
        if key not in expected:
            problems.append("received a series collectd did not sample: %s" % "/".join(key))
    if args.exclusive:
        dup = [k for k, s in where.items() if len(s) > 1]
        if dup:
            problems.append("%d series on more than one node, e.g. %s" % (len(dup), dup[0]))
        per = {}
        for s in where.values():
            for src in s:
                per[src] = per.get(src, 0) + 1
        print("compare: series per node: %s" % ", ".join("%s=%d" % (os.path.basename(k), v) for k, v in sorted(per.items())))
        if len(per) < len(args.vm):
            problems.append("a node got no series at all")
    if args.require_self and "memcg_bpf_sender_samples_sent_total" not in self_seen:
        problems.append("self metric memcg_bpf_sender_samples_sent_total did not arrive")
    # the host's backend on the wire: one, with the reason it runs (the host's kernel lacks the kfuncs)
    if args.require_self and (len(backends) != 1 or None in next(iter(backends), (None,))):
        problems.append("memcg_bpf_backend_info came as %s, not one series with backend and reason labels"
                        % sorted(backends))
    elif args.require_self:
        print("compare: memcg_bpf_backend_info{backend=%r, reason=%r}" % next(iter(backends)))
    want_stages = {"series", "encode", "compress", "post"}
    if args.require_self and cpu_stages != want_stages:
        problems.append("memcg_bpf_sender_cpu_seconds_total came with stages %s, not %s"
                        % (sorted(s or "" for s in cpu_stages), sorted(want_stages)))
    print("compare: %d series sampled, %d values checked, %d missing, %d wrong, %d stale markers, %d self metrics"
          % (len(expected), checked, missing, wrong, stale, len(self_seen)))
    for p in problems[:30]:
        print("compare: " + p)
    if checked == 0:
        print("compare: nothing was sampled")
        return 1
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
