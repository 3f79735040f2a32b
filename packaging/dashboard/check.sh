#!/bin/sh
# Checks the draft dashboard and rules with promtool (Debian's promtool
# package, e.g. unpacked from sid with dpkg-deb -x; PROMTOOL=PATH):
#  - promtool check rules memcg_bpf.rules.yml
#  - promtool test rules memcg_bpf.rules.test.yml (alerts fire as expected)
#  - the same for memcg_bpf.cadvisor.rules.yml (cAdvisor's names) and its
#    memcg_bpf.cadvisor.rules.test.yml (labels, values, "unlimited" as 0,
#    the queries cAdvisor dashboards and alerts run)
#  - every PromQL expression of memcg_bpf.grafana.json parses: they are put
#    into a rules file as recording rules (Grafana variables replaced by
#    $host/$cgroup -> .*, $depth -> 2, $__rate_interval -> 5m, $__range -> 1h)
#    and checked with promtool check rules;
#  - the dashboard's shape: every target has a legend, and none names
#    {{__name__}} after a function or aggregation has dropped it; every
#    variable a query uses is defined; every data source is the $datasource
#    variable, whose default is the import input DS_PROMETHEUS; __inputs
#    asks for that Prometheus data source and __requires lists Grafana, the
#    Prometheus data source and exactly the panel types used.
# That they return data is tested by make packagecheck against a Prometheus
# fed by the installed plugin (tests/packaging/query-dashboard.py).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
promtool=${PROMTOOL:-promtool}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$here"
"$promtool" check rules memcg_bpf.rules.yml
"$promtool" test rules memcg_bpf.rules.test.yml
"$promtool" check rules memcg_bpf.cadvisor.rules.yml
"$promtool" test rules memcg_bpf.cadvisor.rules.test.yml
python3 - memcg_bpf.grafana.json >"$tmp/panels.rules.yml" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
subst = {"$__rate_interval": "5m", "$__range": "1h", "$host": ".*", "$cgroup": ".*", "$depth": "2"}
print("groups:\n  - name: grafana_panels\n    rules:")
n = 0
def walk(panels):
    global n
    for p in panels:
        walk(p.get("panels", []))
        for t in p.get("targets", []):
            e = t["expr"]
            for k, v in sorted(subst.items(), key=lambda kv: -len(kv[0])):
                e = e.replace(k, v)
            n += 1
            print("      - record: panel_%d_%s" % (p["id"], t["refId"]))
            print("        expr: %s" % json.dumps(e))
walk(d["panels"])
for v in d["templating"]["list"]:
    q = v.get("definition", "")
    if q.startswith("label_values("):
        inner = q[len("label_values("):q.rindex(",")]
        for k, val in subst.items():
            inner = inner.replace(k, val)
        print("      - record: variable_%s\n        expr: %s" % (v["name"], json.dumps(inner)))
sys.stderr.write("grafana: %d panel queries\n" % n)
PY
"$promtool" check rules "$tmp/panels.rules.yml"
python3 - memcg_bpf.grafana.json <<'PY'
import json, re, sys
d = json.load(open(sys.argv[1]))
bad = []
panels = []
def walk(ps):
    for p in ps:
        panels.append(p)
        walk(p.get("panels", []))
walk(d["panels"])
variables = {v["name"]: v for v in d["templating"]["list"]}
ds_ref = {"type": "prometheus", "uid": "${datasource}"}
for p in panels:
    where = "panel %d %r" % (p["id"], p.get("title", ""))
    if p["type"] != "row" and p.get("datasource") != ds_ref:
        bad.append("%s: datasource is not the $datasource variable" % where)
    for t in p.get("targets", []):
        w = "%s target %s" % (where, t["refId"])
        legend = t.get("legendFormat", "")
        if not legend.strip():
            bad.append("%s: no legendFormat" % w)
        # rate(), sum() etc. drop the metric name: the legend would be empty
        if "{{__name__}}" in legend and "(" in t["expr"]:
            bad.append("%s: legend {{__name__}} on %r, which has no name" % (w, t["expr"]))
        if t.get("datasource") != ds_ref:
            bad.append("%s: datasource is not the $datasource variable" % w)
        for v in re.findall(r"\$([A-Za-z_]\w*)", t["expr"]):
            if not v.startswith("__") and v not in variables:
                bad.append("%s: uses $%s, which is not a variable" % (w, v))
for v in variables.values():
    if v["type"] == "query" and v.get("datasource") != ds_ref:
        bad.append("variable $%s: datasource is not the $datasource variable" % v["name"])
ds = variables.get("datasource", {})
if ds.get("type") != "datasource" or ds.get("query") != "prometheus" or \
        ds.get("current", {}).get("value") != "${DS_PROMETHEUS}":
    bad.append("variable $datasource: not a prometheus data source variable defaulting to ${DS_PROMETHEUS}")
inputs = d.get("__inputs", [])
if not any(i.get("name") == "DS_PROMETHEUS" and i.get("type") == "datasource" and
           i.get("pluginId") == "prometheus" for i in inputs):
    bad.append("__inputs: no DS_PROMETHEUS data source input (import would not ask for it)")
req = d.get("__requires", [])
req_ids = lambda kind: set(r["id"] for r in req if r.get("type") == kind)
if req_ids("grafana") != {"grafana"}:
    bad.append("__requires: no grafana entry")
if req_ids("datasource") != {"prometheus"}:
    bad.append("__requires: the data sources are %s, not prometheus" % sorted(req_ids("datasource")))
used = set(p["type"] for p in panels if p["type"] != "row")
if req_ids("panel") != used:
    bad.append("__requires: panels %s, used %s" % (sorted(req_ids("panel")), sorted(used)))
for b in bad:
    print("dashboard: " + b)
print("dashboard: %d panels, %d targets, %d problems" %
      (len(panels), sum(len(p.get("targets", [])) for p in panels), len(bad)))
sys.exit(1 if bad else 0)
PY
