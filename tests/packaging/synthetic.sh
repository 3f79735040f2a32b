#!/bin/bash
# The dashboard, the rules and scripts/plot.py against a real Prometheus
# holding made-up data of the plugin's default stat set
# (synthetic_exporter.py: one host as cgroup v2, one as v1, one OOM kill in
# a leaf three levels deep on each). No collectd, no root, no cgroup is
# touched; ~30 s. Prometheus (Debian sid, cached by
# tests/sender/fetch-receivers.sh) scrapes the exporter every second and
# evaluates a copy of memcg_bpf.rules.yml every 2 s (the windows unchanged).
#  - query-dashboard.py for the v2 host: every panel target and recording
#    rule returns data and every alert's inputs exist, nothing exempt;
#  - query-dashboard.py for the v1 host: the same, except the targets named
#    in its EXEMPT table for the stats v1 lacks (kernel, memory_high, oom_kill,
#    pressure_*), each of which must then be reported exempt;
#  - MemcgOOMKill is pending or firing exactly once per host, in the
#    victim's cgroup, and host:memcg_oom_kills:increase5m reads 1;
#  - memcg_bpf.cadvisor.rules.yml, loaded too (query-dashboard.py reads
#    its recording rules for both hosts): the Kubernetes cgroups of the v2
#    host give cAdvisor's series with namespace/pod/container and id, the
#    queries cAdvisor dashboards and alerts run (memory per pod, working
#    set against the limit, OOM-killed containers) find the right
#    containers, an unlimited container's limit is 0, and the v1 host's
#    docker container outside Kubernetes has its name as "name";
#  - NUMA (the exporter ships NumaStat "anon" "file"): the NUMA panels and
#    cgroup:memcg_numa_remote_share:ratio have data on both hosts (none
#    "off"), the per-node panel one series per cgroup and node, and the
#    share is 1 - the largest node's part for each cgroup, identity labels
#    kept (0 everywhere on the one-node v1 host);
#  - AllocInfo (the exporter ships the kernel's allocation profile): its
#    panels, host:memcg_bpf_kernel_alloc_bytes:deriv6h and
#    MemcgBpfKernelAllocGrowing have data on both hosts (none "off"), the
#    top call sites table lists every site but "other" (bytes and calls),
#    the recorded slope is each site's (1 MiB/s for the growing xfs site,
#    no series for "other"), and that site ranks first in the fleet's
#    change over the range;
#  - scripts/plot.py draws a PNG (valid signature and IHDR, 1600x1000) with
#    series in each of its four panels for the v2 host, and for the v1 host
#    with the pressure panel empty.
# Exit 77 when Prometheus, gnuplot, python3-yaml or curl is missing.
set -u
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
# shellcheck source=../sender/lib.sh
. "$src/tests/sender/lib.sh"

command -v python3 >/dev/null || skip_all "python3 not installed"
command -v curl >/dev/null || skip_all "curl not installed"
command -v gnuplot >/dev/null || skip_all "gnuplot not installed (apt-get install gnuplot-nox)"
python3 -c 'import yaml' 2>/dev/null || skip_all "python3-yaml not installed"
T=$(mktemp -d "${TMPDIR:-/tmp}/memcg_bpf-synthetic.XXXXXX")
out=$("$src/tests/sender/fetch-receivers.sh" 2>"$T/fetch.log") ||
	skip_all "Prometheus not available (no network and no cache): $(tail -n 1 "$T/fetch.log")"
PROMETHEUS=$(echo "$out" | awk '$1 == "prometheus" { print $3 }')
trap 'stop_receivers' EXIT
trap 'exit 1' INT TERM HUP PIPE # the EXIT trap stops the servers

exporter_port=$(free_port)
python3 "$here/synthetic_exporter.py" --port "$exporter_port" --oom-after 5 &
receiver_pids+=($!)
wait_http "http://127.0.0.1:$exporter_port/metrics" $! || { not_ok "synthetic exporter starts"; finish; }

sed 's/^\(    interval: \)1m$/\12s/' "$src/packaging/dashboard/memcg_bpf.rules.yml" >"$T/rules.yml"
# no group interval there: evaluated every evaluation_interval
cadvisor_rules=$src/packaging/dashboard/memcg_bpf.cadvisor.rules.yml
start_prometheus prom "global:
  scrape_interval: 1s
  evaluation_interval: 2s
rule_files:
  - $T/rules.yml
  - $cadvisor_rules
scrape_configs:
  - job_name: synthetic
    honor_labels: true
    static_configs:
      - targets: ['127.0.0.1:$exporter_port']" || { not_ok "Prometheus starts"; finish; }
prom=http://127.0.0.1:$PROM_PORT
echo "# Prometheus on $prom scraping the synthetic exporter on :$exporter_port"
t_start=$(date +%s)

query() { # query PROMQL: the instant result as "labels value" lines
	curl -sf "$prom/api/v1/query" --data-urlencode "query=$1" |
		python3 -c 'import json, sys
for s in json.load(sys.stdin)["data"]["result"]:
    print(s["metric"].get("cgroup", ""), s["value"][1])'
}
# until both hosts are scraped, the kill happened and the rules saw it
for _ in $(seq 60); do
	[ "$(query 'count(host:memcg_oom_kills:increase5m > 0)' | cut -d' ' -f2)" = 2 ] && break
	sleep 1
done

dashboard() { # dashboard HOST MISSING: query-dashboard.py, its lines as TAP comments
	python3 "$here/query-dashboard.py" --prom "$prom" --host "$1" --missing "$2" \
		--dashboard "$src/packaging/dashboard/memcg_bpf.grafana.json" --rules "$T/rules.yml" \
		--rules "$cadvisor_rules" --rate-interval 10s --range 1m --deadline 60 >"$T/dashboard-$1.txt" 2>&1
	local rc=$?
	sed 's/^/#   /' "$T/dashboard-$1.txt"
	return $rc
}

check "v2 host: every panel, recording rule and alert has data" dashboard synth-v2 ""
check "v2 host: nothing exempt" bash -c "! grep -q '^exempt' '$T/dashboard-synth-v2.txt'"
check "v1 host: every panel, recording rule and alert has data or is exempt" \
	dashboard synth-v1 kernel,memory_high,pressure_some,pressure_full,oom_kill,swap_current
n_exempt=$(grep -c '^exempt' "$T/dashboard-synth-v1.txt")
n_listed=$(PYTHONDONTWRITEBYTECODE=1 python3 -c 'import importlib.util, sys
spec = importlib.util.spec_from_file_location("q", sys.argv[1]); q = importlib.util.module_from_spec(spec)
spec.loader.exec_module(q); print(len(q.EXEMPT))' "$here/query-dashboard.py")
check "v1 host: each of the $n_listed EXEMPT entries is exempt ($n_exempt)" test "$n_exempt" = "$n_listed"

# one kill per host: one alert each, in the victim's cgroup; the host count is 1
alerts() {
	curl -sf "$prom/api/v1/alerts" | python3 -c 'import json, sys
for a in json.load(sys.stdin)["data"]["alerts"]:
    if a["labels"]["alertname"] == "MemcgOOMKill":
        print(a["labels"]["host"], a["labels"]["cgroup"], a["state"])' | sort
}
want="synth-v1 /docker/abc
synth-v2 /kubepods.slice/pod1.slice/c1.scope"
for _ in $(seq 30); do
	[ "$(alerts | cut -d' ' -f1,2)" = "$want" ] && break
	sleep 1
done
alerts | sed 's/^/#   MemcgOOMKill /'
check "MemcgOOMKill: exactly once per host, in the victim's cgroup" test "$(alerts | cut -d' ' -f1,2)" = "$want"
check "host:memcg_oom_kills:increase5m is 1 on each host" \
	test "$(query 'round(host:memcg_oom_kills:increase5m)' | cut -d' ' -f2 | sort -u)" = 1
check "the subtree counter would say 3 (why the rules read _local)" \
	test "$(query 'sum(round(increase(memcg_oom_kill_total{host="synth-v2"}[5m])))' | cut -d' ' -f2)" = 3

# cAdvisor's names (memcg_bpf.cadvisor.rules.yml)
qlabels() { # qlabels PROMQL LABEL...: "LABEL=value ... value" lines, sorted
	curl -sf "$prom/api/v1/query" --data-urlencode "query=$1" |
		python3 -c 'import json, sys
for s in json.load(sys.stdin)["data"]["result"]:
    print(" ".join(["%s=%s" % (l, s["metric"].get(l, "")) for l in sys.argv[1:]] + [s["value"][1]]))' "${@:2}" | sort
}
cad_check() { # cad_check NAME PROMQL WANT LABEL...
	local got
	got=$(qlabels "$2" "${@:4}")
	echo "$got" | sed 's/^/#   /'
	check "$1" test "$got" = "$3"
}
cad_check "cAdvisor: working set of each Kubernetes container, with namespace/pod/container and id" \
	'container_memory_working_set_bytes{host="synth-v2", container!=""} == bool ignoring (cgroup) label_replace(memcg_working_set_bytes, "id", "$1", "cgroup", "(.*)")' \
	"namespace=shop pod=web-0 container=app id=/kubepods.slice/pod1.slice/c1.scope 1
namespace=shop pod=web-0 container=sidecar id=/kubepods.slice/pod1.slice/c2.scope 1" namespace pod container id
cad_check "cAdvisor: memory per pod, as kubernetes-mixin sums it (containers only)" \
	'round(sum by (namespace, pod) (container_memory_working_set_bytes{container!=""}) / 2^20)' \
	"namespace=shop pod=web-0 1382" namespace pod
cad_check "cAdvisor: working set against the limit; the unlimited sidecar (limit 0) drops out" \
	'round(100 * container_memory_working_set_bytes{container!=""} / on (namespace, pod, container) (container_spec_memory_limit_bytes{container!=""} > 0))' \
	"namespace=shop pod=web-0 container=app 95" namespace pod container
cad_check "cAdvisor: the unlimited container's limit is 0" \
	'container_spec_memory_limit_bytes{container="sidecar"}' "container=sidecar 0" container
cad_check "cAdvisor: the OOM-killed container, once (its pod's cgroup does not count it again)" \
	'count by (host, namespace, pod, container) (increase(container_oom_events_total{host="synth-v2"}[5m]) > 0.5)' \
	"host=synth-v2 namespace=shop pod=web-0 container=app 1" host namespace pod container
cad_check "cAdvisor: a docker container outside Kubernetes has its name as name, no container" \
	'container_memory_working_set_bytes{host="synth-v1", id="/docker/abc"}' \
	"name=redis container= namespace= 503316480" name container namespace
cad_check "cAdvisor: every cgroup of the v2 host has a working set series" \
	'count(container_memory_working_set_bytes{host="synth-v2"}) == count(memcg_working_set_bytes{host="synth-v2"})' "6"

# NUMA (the exporter ships NumaStat "anon" "file"): the panels and the rule
# have data on both hosts, none "off"; the per-node panel one series per
# cgroup and node; the remote-node share by value, with identity labels
check "both hosts: the NUMA and AllocInfo panels and rules have data (none off)" \
	bash -c "! grep -q '^off' '$T/dashboard-synth-v2.txt' '$T/dashboard-synth-v1.txt'"
check "v2 host: per-node panel, 2 cgroups at depth 1 x 2 nodes" \
	grep -Eq "^ok +panel 'NUMA: per-node memory of the top cgroups' A +4 series" "$T/dashboard-synth-v2.txt"
check "v1 host: per-node panel, /docker on the one node" \
	grep -Eq "^ok +panel 'NUMA: per-node memory of the top cgroups' A +1 series" "$T/dashboard-synth-v1.txt"
cad_check "NUMA: remote-node share (per mille) of each v2 cgroup, identity labels kept, no node" \
	'round(1000 * cgroup:memcg_numa_remote_share:ratio{host="synth-v2"})' \
	"cgroup=/ container= node= 375
cgroup=/kubepods.slice container= node= 250
cgroup=/kubepods.slice/pod1.slice container= node= 125
cgroup=/kubepods.slice/pod1.slice/c1.scope container=app node= 0
cgroup=/kubepods.slice/pod1.slice/c2.scope container=sidecar node= 250
cgroup=/system.slice container= node= 500
cgroup=/system.slice/db.service container= node= 500" cgroup container node
cad_check "NUMA: every cgroup of the one-node v1 host has a share of 0" \
	'count(cgroup:memcg_numa_remote_share:ratio{host="synth-v1"} == 0)' "3"

# AllocInfo (the exporter ships the kernel's allocation profile): "none
# off" above covers its targets; every site but "other" in the table,
# the slope per site, the growing site first in the fleet's change
for hs in synth-v2:4 synth-v1:3; do
	for ref in A B; do
		check "${hs%:*}: top call sites table $ref, the ${hs#*:} sites without \"other\"" \
			grep -Eq "^ok +panel 'Kernel allocations: top call sites per host' $ref +${hs#*:} series" "$T/dashboard-${hs%:*}.txt"
	done
done
cad_check "AllocInfo: the recorded slope (MiB/s) of each v2 site, none for other" \
	'round(host:memcg_bpf_kernel_alloc_bytes:deriv6h{host="synth-v2"} / 2^20)' \
	"site=fs/kernfs/dir.c:665 module= 0
site=fs/xfs/xfs_icache.c:93 module=xfs 1
site=mm/percpu.c:512 module= 0
site=mm/slub.c:3347 module= 0" site module
cad_check "AllocInfo: the growing xfs site ranks first in the fleet's change over the range" \
	'topk(1, sum by (site, module, func) (delta(memcg_bpf_kernel_alloc_bytes{site!="other"}[1m]) and memcg_bpf_kernel_alloc_bytes)) > bool 0' \
	"site=fs/xfs/xfs_icache.c:93 module=xfs func=xfs_inode_alloc 1" site module func

png_ok() { # png_ok FILE: PNG signature, IHDR 1600x1000
	python3 -c 'import struct, sys
d = open(sys.argv[1], "rb").read()
assert d[:8] == b"\x89PNG\r\n\x1a\n" and d[12:16] == b"IHDR", "not a PNG"
w, h = struct.unpack(">II", d[16:24])
assert (w, h) == (1600, 1000), (w, h)
assert len(d) > 20000, "%d bytes: too small for four drawn panels" % len(d)' "$1"
}
plot() { # plot HOST: scripts/plot.py over the run so far
	python3 "$src/scripts/plot.py" --prom "$prom" --out "$T/$1.png" --host "$1" \
		--start "$t_start" --step 1 --rate-window 5 --depth 2 >"$T/plot-$1.txt" 2>&1
	local rc=$?
	sed 's/^/#   /' "$T/plot-$1.txt"
	return $rc
}
check "plot.py draws the v2 host" plot synth-v2
check "v2 PNG is a 1600x1000 PNG" png_ok "$T/synth-v2.png"
check "v2: series in all four panels" grep -Eq 'usage/limit [1-9].*working set [1-9].*pressure [1-9].*OOM kills [1-9]' "$T/plot-synth-v2.txt"
check "plot.py draws the v1 host" plot synth-v1
check "v1 PNG is a 1600x1000 PNG" png_ok "$T/synth-v1.png"
check "v1: pressure panel empty, the others drawn" grep -Eq 'usage/limit [1-9].*working set [1-9].*pressure 0, OOM kills [1-9]' "$T/plot-synth-v1.txt"
finish
