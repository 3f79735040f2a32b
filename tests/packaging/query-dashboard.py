#!/usr/bin/env python3
"""Runs every PromQL of the dashboard and every recording rule through a
Prometheus query API and expects data (a non-empty instant-query result).

  query-dashboard.py --prom URL --dashboard JSON --rules RULES.yml --host H
                     [--cgroup C] [--rate-interval 30s] [--range 5m]
                     [--missing STAT,...] [--deadline SECONDS]

Grafana variables become concrete values the way Grafana would send them:
$host and $cgroup the given values (regex-escaped, as Grafana does for a
single selected value of a multi-value variable), $__rate_interval and
$__range the given windows. The template variables' label_values() queries
go through /api/v1/series and must list --host (and --cgroup).

Every query is retried until it returns data or the deadline passes
(recording rules need an evaluation or two before the panels built on them
have data). A query may stay empty only when it reads a stat named in
--missing (stats the running kernel does not give, e.g. "kernel" on cgroup
v1) and Prometheus indeed holds no series of that stat for the host: it is
then reported as exempt, with the reason, and does not fail.

Exit 0 when every query returned data or is exempt, 1 otherwise.
"""
import argparse
import json
import re
import sys
import time
import urllib.parse
import urllib.request

import yaml


def api(prom, path, params):
    url = prom.rstrip("/") + path + "?" + urllib.parse.urlencode(params, doseq=True)
    with urllib.request.urlopen(url, timeout=10) as r:
        body = json.load(r)
    if body.get("status") != "success":
        raise RuntimeError("%s: %s" % (path, body))
    return body["data"]


def grafana_regex_escape(v):
    # Grafana escapes a single selected value of a regex-matched variable.
    return re.sub(r"([\\^$.|?*+()\[\]{}])", r"\\\1", v)


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
                out.append(("panel %d/%s %r" % (p["id"], t["refId"], p.get("title", "")), t["expr"]))

    walk(dashboard["panels"])
    return out


def rule_queries(rules):
    out = []
    for g in rules["groups"]:
        for r in g["rules"]:
            if "record" in r:
                out.append(("rule %s" % r["record"], r["expr"]))
    return out


def stats_read(expr):
    return set(m.group(1) for m in re.finditer(r"\bmemcg_([a-z0-9_]+?)_(?:bytes|total)\b", expr))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--prom", required=True)
    ap.add_argument("--dashboard", required=True)
    ap.add_argument("--rules", required=True)
    ap.add_argument("--host", required=True)
    ap.add_argument("--cgroup")
    ap.add_argument("--rate-interval", default="30s")
    ap.add_argument("--range", default="5m")
    ap.add_argument("--missing", default="")
    ap.add_argument("--deadline", type=float, default=90)
    a = ap.parse_args()

    dashboard = json.load(open(a.dashboard))
    rules = yaml.safe_load(open(a.rules))
    missing = set(s for s in a.missing.split(",") if s)

    # template variables: label_values(METRIC{...}, LABEL)
    values = {"$__rate_interval": a.rate_interval, "$__range": a.range,
              "$host": grafana_regex_escape(a.host)}
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
            # the largest real cgroup below the root, as an operator would pick
            top = api(a.prom, "/api/v1/query",
                      {"query": 'topk(1, memcg_usage_bytes{host="%s", cgroup!="/"})' % a.host})["result"]
            a.cgroup = top[0]["metric"]["cgroup"] if top else "/"
        want = a.host if v["name"] == "host" else a.cgroup
        ok = want in got
        print("variable $%s: label_values -> %d values, %s %s" %
              (v["name"], len(got), want, "listed" if ok else "NOT LISTED"))
        fail |= not ok
        if v["name"] == "cgroup":
            values["$cgroup"] = grafana_regex_escape(a.cgroup)
    values.setdefault("$cgroup", grafana_regex_escape(a.cgroup or "/"))

    queries = [(n, substitute(e, values)) for n, e in panel_queries(dashboard) + rule_queries(rules)]
    leftover = [e for _, e in queries if "$" in e]
    if leftover:
        print("unsubstituted variables in: %s" % leftover)
        return 1
    result = {}
    deadline = time.monotonic() + a.deadline
    while True:
        for n, e in queries:
            if result.get(n):
                continue
            result[n] = api(a.prom, "/api/v1/query", {"query": e})["result"]
        # a query reading a stat the kernel does not give is not waited for
        if all(result[n] or stats_read(e) & missing for n, e in queries) or time.monotonic() > deadline:
            break
        time.sleep(1)

    exempt = 0
    for n, e in queries:
        r = result[n]
        if r:
            vals = [float(s["value"][1]) for s in r]
            print("ok      %-58s %3d series, values %g..%g" % (n, len(r), min(vals), max(vals)))
            continue
        lacking = stats_read(e) & missing
        held = [s for s in lacking
                if api(a.prom, "/api/v1/series",
                       {"match[]": '{__name__=~"memcg_%s_(bytes|total)", host="%s"}' % (s, a.host)})]
        if lacking and not held:
            print("exempt  %-58s no data: the kernel does not give %s (memcg-bpf-sample --list-stats), "
                  "and no host ships it" % (n, ", ".join(sorted(lacking))))
            exempt += 1
            continue
        print("EMPTY   %-58s %s" % (n, e))
        fail = 1
    print("%d queries (%d panel targets, %d recording rules): %d with data, %d exempt, %s" %
          (len(queries), len(panel_queries(dashboard)), len(rule_queries(rules)),
           sum(1 for v in result.values() if v), exempt, "FAIL" if fail else "ok"))
    return fail


if __name__ == "__main__":
    sys.exit(main())
