#!/bin/sh
# Checks the draft dashboard and rules with promtool (Debian's promtool
# package, e.g. unpacked from sid with dpkg-deb -x; PROMTOOL=PATH):
#  - promtool check rules memcg_bpf.rules.yml
#  - promtool test rules memcg_bpf.rules.test.yml (alerts fire as expected)
#  - every PromQL expression of memcg_bpf.grafana.json parses: they are put
#    into a rules file as recording rules (Grafana variables replaced by
#    $host/$cgroup -> .*, $__rate_interval -> 5m, $__range -> 1h) and
#    checked with promtool check rules.
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
python3 - memcg_bpf.grafana.json >"$tmp/panels.rules.yml" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
subst = {"$__rate_interval": "5m", "$__range": "1h", "$host": ".*", "$cgroup": ".*"}
print("groups:\n  - name: grafana_panels\n    rules:")
n = 0
def walk(panels):
    global n
    for p in panels:
        walk(p.get("panels", []))
        for t in p.get("targets", []):
            e = t["expr"]
            for k, v in subst.items():
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
