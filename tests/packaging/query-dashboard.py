#!/usr/bin/env python3
"""Runs every PromQL of the dashboard and every rule through a Prometheus
query API and expects data (a non-empty instant-query result).

  query-dashboard.py --prom URL --dashboard JSON --rules RULES.yml [--rules ...]
                     --host H [--cgroup C] [--rate-interval 30s] [--range 5m]
                     [--missing STAT,...] [--deadline SECONDS]

Grafana variables become concrete values the way Grafana would send them:
$host and $cgroup the given values (regex-escaped, as Grafana does for a
single selected value of a multi-value variable), $depth its default,
$__rate_interval and $__range the given windows. The template variables'
label_values() queries go through /api/v1/series and must list --host (and
--cgroup).

Panel targets must return data, and so must each recording rule of every
--rules file (the dashboard's, and memcg_bpf.cadvisor.rules.yml): the series
it recorded for --host. An alert stays silent
on a healthy host, so its expression must evaluate without error and every
series it reads (recording rules, raw metrics) must exist for the host.

Every query is retried until it returns data or the deadline passes
(recording rules need an evaluation or two before the panels built on them
have data). A query may stay empty only when it is named in EXEMPT below
with the stat it needs, that stat is in --missing (stats the running kernel
does not give, from memcg-bpf-sample --list-stats: on cgroup v1 those
without a v1 equivalent) and Prometheus indeed holds no series of that stat
for the host: it is then reported as exempt, with the reason. Any other
empty query fails, and so does an EXEMPT entry that names no query (the
list is kept by hand, one reason per entry).

Queries of series outside the default stat set, which a host ships only
when its configuration asks for them (OPT_IN below: NumaStat and
AllocInfo, off by default), may stay empty only while the host ships no series of one of the
metrics they read: they are then reported as "off", with the setting that
would give them data. A host that ships those metrics must give them data
like any other query.

Exit 0 when every query returned data or is exempt or off, 1 otherwise.
"""
import argparse
import glob
import json
import os
import re
import sys
import time
import urllib.parse
import urllib.request

import yaml

# Queries that may be empty, each with the stat whose absence makes it so and
# why the kernel lacks it. Only ever exempt when that stat is in --missing
# and no series of it exists for the host.
EXEMPT = {
    "panel 'anon / file / shmem / kernel by cgroup' D":
        ("kernel", "cgroup v1 memory.stat has no kernel field"),
    "panel 'Working set / memory.high, top 10' A":
        ("memory_high", "memory.high is cgroup v2 only"),
    "panel 'Against limits: usage and working set / memory.max, working set / memory.high' C":
        ("memory_high", "memory.high is cgroup v2 only"),
    "rule cgroup:memcg_usage_over_memory_high:ratio":
        ("memory_high", "memory.high is cgroup v2 only"),
    "rule cgroup:memcg_working_set_over_memory_high:ratio":
        ("memory_high", "memory.high is cgroup v2 only"),
    "alert MemcgNearMemoryHigh":
        ("memory_high", "memory.high is cgroup v2 only"),
    "panel 'Memory pressure (some), top 10' A":
        ("pressure_some", "memory.pressure is cgroup v2 only"),
    "panel 'Memory pressure (full), top 10' A":
        ("pressure_full", "memory.pressure is cgroup v2 only"),
    "panel 'Memory pressure by cgroup' A":
        ("pressure_some", "memory.pressure is cgroup v2 only"),
    "panel 'Memory pressure by cgroup' B":
        ("pressure_full", "memory.pressure is cgroup v2 only"),
    "rule cgroup:memcg_pressure_some:rate5m":
        ("pressure_some", "memory.pressure is cgroup v2 only"),
    "rule cgroup:memcg_pressure_full:rate5m":
        ("pressure_full", "memory.pressure is cgroup v2 only"),
    "alert MemcgMemoryPressure":
        ("pressure_some", "memory.pressure is cgroup v2 only"),
    "rule container_memory_kernel_usage":
        ("kernel", "cgroup v1 memory.stat has no kernel field"),
    "rule container_memory_swap":
        ("swap_current", "memory.swap.current is cgroup v2 only"),
    "rule container_pressure_memory_waiting_seconds_total":
        ("pressure_some", "memory.pressure is cgroup v2 only"),
    "rule container_pressure_memory_stalled_seconds_total":
        ("pressure_full", "memory.pressure is cgroup v2 only"),
    "rule cgroup:memcg_oom_kills_in_removed:increase5m":
        ("oom_kill", "cgroup v1 counts OOM kills per cgroup, not per subtree (memory.events is v2 only)"),
    "alert MemcgOOMKillInRemovedCgroup":
        ("oom_kill", "cgroup v1 counts OOM kills per cgroup, not per subtree (memory.events is v2 only)"),
}


# Queries that read series only a configuration setting ships, each with
# the metrics they read and the setting. Only ever "off" when the host
# ships no series of one of those metrics.
NUMA_SERIES = ("memcg_numa_anon_bytes", "memcg_numa_file_bytes")
NUMA_SETTING = 'NumaStat "anon" "file"'
OPT_IN = {
    "panel 'NUMA: per-node memory of the top cgroups' A": (NUMA_SERIES, NUMA_SETTING),
    "panel 'NUMA: remote-node share of the top cgroups' A": (NUMA_SERIES, NUMA_SETTING),
    "rule cgroup:memcg_numa_remote_share:ratio": (NUMA_SERIES, NUMA_SETTING),
}
ALLOC_BYTES = ("memcg_bpf_kernel_alloc_bytes",)
ALLOC_SETTING = "AllocInfo true"
OPT_IN.update({
    "panel 'Kernel allocations: top call sites per host' A": (ALLOC_BYTES, ALLOC_SETTING),
    "panel 'Kernel allocations: top call sites per host' B":
        (ALLOC_BYTES + ("memcg_bpf_kernel_alloc_calls",), ALLOC_SETTING),
    "panel 'Kernel allocations per host: top call sites and the rest' A": (ALLOC_BYTES, ALLOC_SETTING),
    "panel 'Kernel allocations per host: top call sites and the rest' B": (ALLOC_BYTES, ALLOC_SETTING),
    "panel 'Kernel allocations: fleet-wide bytes of the top 10 call sites' A": (ALLOC_BYTES, ALLOC_SETTING),
    "panel 'Kernel allocations: largest fleet-wide change over the range' A": (ALLOC_BYTES, ALLOC_SETTING),
    "panel 'Kernel allocations: growth per 6 hours, top 10 (leak suspects)' A": (ALLOC_BYTES, ALLOC_SETTING),
    "rule host:memcg_bpf_kernel_alloc_bytes:deriv6h": (ALLOC_BYTES, ALLOC_SETTING),
    "alert MemcgBpfKernelAllocGrowing": (ALLOC_BYTES, ALLOC_SETTING),
})


def api(prom, path, params):
    url = prom.rstrip("/") + path + "?" + urllib.parse.urlencode(params, doseq=True)
    with urllib.request.urlopen(url, timeout=10) as r:
        body = json.load(r)
    if body.get("status") != "success":
        raise RuntimeError("%s: %s" % (path, body))
    return body["data"]


def grafana_regex_escape(v):
    # Grafana escapes a single selected value of a regex-matched variable,
    # with two backslashes: one for the PromQL string, one for the regex.
    return re.sub(r"([\\^$.|?*+()\[\]{}])", r"\\\\\1", v)


def substitute(expr, values):
    # longest names first: $__rate_interval before $__range
    for k in sorted(values, key=len, reverse=True):
        expr = expr.replace(k, values[k])
    return expr


def panel_queries(dashboard):
    out = []

    def walk(panels):
        for p in panels:
            walk(p.get("panels", []))
            for t in p.get("targets", []):
                out.append(("panel %r %s" % (p.get("title", ""), t["refId"]), t["expr"]))

    walk(dashboard["panels"])
    return out


def rule_queries(rules, host):
    # the series each recording rule wrote for the host: proves that
    # Prometheus loaded and evaluated the rule, and that its inputs exist
    out = []
    for g in rules["groups"]:
        for r in g["rules"]:
            if "record" in r:
                out.append(("rule %s" % r["record"], '%s{host="%s"}' % (r["record"], host)))
    return out


def alert_rules(rules):
    return [(r["alert"], r["expr"]) for g in rules["groups"] for r in g["rules"] if "alert" in r]


def series_names(expr):
    # metric names and recording rules an expression reads (not functions,
    # keywords or label names: those are followed by "(" or sit inside {})
    expr = re.sub(r'"[^"]*"', '""', expr)
    expr = re.sub(r"\{[^}]*\}", "{}", expr)
    return set(m.group(1) for m in re.finditer(r"\b([a-z_][a-z0-9_]*(?::[a-z0-9_]+)*)\b(?!\s*\()", expr)
               if m.group(1).startswith(("memcg_", "cgroup:", "host:")))


def largest_cgroup(prom, host, deadline):
    """The largest real cgroup below the root, as an operator would pick;
    "/" when the host has none by @deadline. Waited for like the panels: a
    receiver may list a host's series before its queries over them answer
    (otlp_two_hosts once picked "/" so, and every cgroup panel came out
    empty)."""
    query = 'topk(1, memcg_usage_bytes{host="%s", cgroup!="/"})' % host
    while True:
        top = api(prom, "/api/v1/query", {"query": query})["result"]
        if top:
            return top[0]["metric"]["cgroup"]
        if time.monotonic() > deadline:
            return "/"
        time.sleep(1)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--prom", required=True)
    ap.add_argument("--dashboard", required=True)
    ap.add_argument("--rules", required=True, action="append", help="a rules file; repeatable")
    ap.add_argument("--host", required=True)
    ap.add_argument("--cgroup")
    ap.add_argument("--rate-interval", default="30s")
    ap.add_argument("--range", default="5m")
    ap.add_argument("--missing", default="", help="stats the running kernel does not give, comma-separated")
    ap.add_argument("--deadline", type=float, default=90)
    a = ap.parse_args()

    dashboard = json.load(open(a.dashboard))
    rules = {"groups": [g for f in a.rules for g in yaml.safe_load(open(f))["groups"]]}
    missing = set(s for s in a.missing.split(",") if s)

    # template variables: label_values(METRIC{...}, LABEL); custom ones at
    # their default
    values = {"$__rate_interval": a.rate_interval, "$__range": a.range,
              "$host": grafana_regex_escape(a.host)}
    for v in dashboard["templating"]["list"]:
        if v["type"] == "custom":
            values["$" + v["name"]] = v["current"]["value"]
    fail = 0
    for v in dashboard["templating"]["list"]:
        q = v.get("definition", "")
        m = re.fullmatch(r"label_values\((.*),\s*([a-zA-Z_]+)\)", q)
        if not m:
            continue
        match = substitute(m.group(1), values)
        series = api(a.prom, "/api/v1/series", {"match[]": match})
        got = sorted(set(s.get(m.group(2), "") for s in series))
        if v["name"] == "cgroup" and not a.cgroup:
            a.cgroup = largest_cgroup(a.prom, a.host, time.monotonic() + a.deadline)
        want = a.host if v["name"] == "host" else a.cgroup
        ok = want in got
        print("variable $%s: label_values -> %d values, %s %s" %
              (v["name"], len(got), want, "listed" if ok else "NOT LISTED"))
        fail |= not ok
        if v["name"] == "cgroup":
            values["$cgroup"] = grafana_regex_escape(a.cgroup)
    values.setdefault("$cgroup", grafana_regex_escape(a.cgroup or "/"))

    queries = [(n, substitute(e, values)) for n, e in panel_queries(dashboard) + rule_queries(rules, a.host)]
    leftover = [e for _, e in queries if "$" in e]
    if leftover:
        print("unsubstituted variables in: %s" % leftover)
        return 1
    # an entry must name a query of the dashboard or of a shipped rules file
    # (those next to the dashboard), loaded here or not: one that names
    # none is stale
    shipped_rules = {"groups": [g for f in sorted(glob.glob(os.path.join(os.path.dirname(a.dashboard), "*.rules.yml")))
                                for g in yaml.safe_load(open(f))["groups"]]}
    names = set(n for n, _ in queries) | set("alert " + n for n, _ in alert_rules(rules))
    known = (names | set(n for n, _ in rule_queries(shipped_rules, a.host)) |
             set("alert " + n for n, _ in alert_rules(shipped_rules)))
    for table, entries in (("EXEMPT", EXEMPT), ("OPT_IN", OPT_IN)):
        for n in sorted(set(entries) - known):
            print("%-7s %s names no query of the dashboard or the rules" % (table, n))
            fail = 1

    shipped = {}

    def unshipped(n):
        # the OPT_IN metrics of query n that the host ships no series of
        if n not in OPT_IN:
            return []
        for s in OPT_IN[n][0]:
            if not shipped.get(s):
                shipped[s] = bool(api(a.prom, "/api/v1/series", {"match[]": '%s{host="%s"}' % (s, a.host)}))
        return [s for s in OPT_IN[n][0] if not shipped[s]]

    def may_be_empty(n):
        return (n in EXEMPT and EXEMPT[n][0] in missing) or bool(unshipped(n))

    # alerts: the expression evaluates; each series it reads exists for the host
    alerts = []
    for n, e in alert_rules(rules):
        api(a.prom, "/api/v1/query", {"query": e})  # raises on an evaluation error
        alerts.append(("alert " + n, sorted(series_names(e))))
    inputs = sorted(set(s for _, ss in alerts for s in ss))

    result, held_input = {}, {}
    deadline = time.monotonic() + a.deadline
    while True:
        for n, e in queries:
            if not result.get(n):
                result[n] = api(a.prom, "/api/v1/query", {"query": e})["result"]
        for s in inputs:
            if not held_input.get(s):
                held_input[s] = bool(api(a.prom, "/api/v1/query",
                                         {"query": 'group(%s{host="%s"})' % (s, a.host)})["result"])
        # a query allowed to be empty on this kernel is not waited for
        if (all(result[n] or may_be_empty(n) for n, _ in queries) and
                all(held_input[s] for n, ss in alerts if not may_be_empty(n) for s in ss)) or \
                time.monotonic() > deadline:
            break
        time.sleep(1)

    def exempt_reason(n):
        # EXEMPT names it, the kernel lacks its stat, and no series of it exists
        if n not in EXEMPT or not may_be_empty(n):
            return None
        stat, why = EXEMPT[n]
        if api(a.prom, "/api/v1/series",
               {"match[]": '{__name__=~"memcg_%s_(bytes|total|seconds_total)", host="%s"}' % (stat, a.host)}):
            return None
        return "no data: %s (%s; memcg-bpf-sample --list-stats), and the host ships no %s" % (why, stat, stat)

    def off_reason(n):
        # OPT_IN names it and the host does not ship what it reads
        lacking = unshipped(n)
        if not lacking:
            return None
        return "no data: the host ships no %s (%s not set)" % (", ".join(lacking), OPT_IN[n][1])

    exempt = ok = off = 0
    for n, e in queries:
        r = result[n]
        if r:
            vals = [float(s["value"][1]) for s in r]
            print("ok      %-62s %3d series, values %g..%g" % (n, len(r), min(vals), max(vals)))
            ok += 1
            continue
        why = exempt_reason(n)  # the kernel lacks it: said before what the configuration lacks
        if why:
            print("exempt  %-62s %s" % (n, why))
            exempt += 1
            continue
        why = off_reason(n)
        if why:
            print("off     %-62s %s" % (n, why))
            off += 1
            continue
        print("EMPTY   %-62s %s" % (n, e))
        fail = 1
    for n, ss in alerts:
        lacking = [s for s in ss if not held_input[s]]
        if not lacking:
            print("ok      %-62s evaluates; reads %s" % (n, ", ".join(ss)))
            ok += 1
            continue
        why = exempt_reason(n)  # the kernel lacks it: said before what the configuration lacks
        if why:
            print("exempt  %-62s %s" % (n, why))
            exempt += 1
            continue
        why = off_reason(n)
        if why:
            print("off     %-62s %s" % (n, why))
            off += 1
            continue
        print("EMPTY   %-62s no series of %s for the host" % (n, ", ".join(lacking)))
        fail = 1
    print("%d queries (%d panel targets, %d recording rules, %d alerts): %d with data, %d exempt, %d off, %s" %
          (len(queries) + len(alerts), len(panel_queries(dashboard)), len(rule_queries(rules, a.host)), len(alerts),
           ok, exempt, off, "FAIL" if fail else "ok"))
    return fail


if __name__ == "__main__":
    sys.exit(main())
