#!/bin/bash
# OTLP from two hosts into one VictoriaMetrics (issue 13): two collectd
# daemons on this machine, Hostname otlp-host-a and otlp-host-b, both
# shipping OTLP (zstd) to /opentelemetry/v1/metrics of one VictoriaMetrics
# run with its defaults (no -opentelemetry.* flag). vmalert (same Debian
# package) evaluates a copy of packaging/dashboard/memcg_bpf.rules.yml every
# 2 s (the windows unchanged) against it and writes the recorded series back.
#  - while both run: the shipped dashboard's template variables list both
#    hosts, and every panel target, recording rule and alert input has data
#    for each host (tests/packaging/query-dashboard.py, as against
#    Prometheus with remote write); "Hosts reporting" counts 2;
#  - after both stopped: no merged series (two_hosts.py): each series names
#    one host in host, host.name and service.instance.id; each host's series
#    are exactly what its collectd sampled (csv), with its samples only.
. "$(dirname "$0")/lib.sh"
sender_setup
python3 -c 'import yaml' 2>/dev/null || skip_all "python3-yaml not installed"
VMALERT=$(dirname "$VICTORIA")/vmalert
[ -x "$VMALERT" ] || skip_all "no vmalert next to $VICTORIA"
SRC=$(cd "$SENDER_TESTS/../.." && pwd)
HOSTS=(otlp-host-a otlp-host-b)
pids=()
rcs=

stop_both() { # stops both daemons; their exit statuses in rcs ("0 0": clean)
	local p
	rcs=
	for p in "${pids[@]}"; do
		daemon_pid=$p
		stop_daemon
		rcs="$rcs${rcs:+ }$daemon_rc"
	done
	pids=()
}
trap 'stop_both; stop_receivers' EXIT
trap 'exit 1' INT TERM HUP PIPE # the EXIT trap stops the daemons and servers

start_vm vm || { not_ok "victoria-metrics starts"; finish; }
vm=http://127.0.0.1:$VM_PORT

# vmalert on the shipped rules, every 2 s instead of every minute
sed 's/^\(    interval: \)1m$/\12s/' "$SRC/packaging/dashboard/memcg_bpf.rules.yml" >"$T/rules.yml"
mkdir -p "$T/vmalert"
VMALERT_PORT=$(free_port)
"$VMALERT" -httpListenAddr="127.0.0.1:$VMALERT_PORT" -rule="$T/rules.yml" \
	-datasource.url="$vm" -remoteWrite.url="$vm" -remoteWrite.flushInterval=500ms \
	-notifier.blackhole -evaluationInterval=2s -loggerLevel=WARN >"$T/vmalert/receiver.log" 2>&1 &
receiver_pids+=($!)
wait_http "http://127.0.0.1:$VMALERT_PORT/health" $! || { cat "$T/vmalert/receiver.log"; not_ok "vmalert starts"; finish; }

dirs=()
for h in "${HOSTS[@]}"; do
	HOSTNAME_CD=$h
	dirs+=("$(write_conf "$h" 1 "" "URL \"$vm/opentelemetry/v1/metrics\"
  Format \"otlp\"
  Compression \"zstd\"
  DispatchValues true")")
	start_daemon "${dirs[-1]}"
	pids+=("$daemon_pid")
done
for i in 0 1; do
	HOSTNAME_CD=${HOSTS[i]}
	daemon_pid=${pids[i]}
	wait_rows "csv_file '${dirs[i]}' root bytes-anon" "$INTERVALS" 60 ||
		{ echo "# ${HOSTS[i]} did not sample:"; tail -5 "${dirs[i]}/collectd.log" | sed 's/^/#   /'; }
done
check "both collectd daemons run" kill -0 "${pids[0]}" "${pids[1]}"
# VictoriaMetrics lists a new series a while after ingestion: the
# dashboard's $host variable is read once (label_values through
# /api/v1/series, as query-dashboard.py does), so wait until both hosts are
# there
host_values() {
	curl -sf "$vm/api/v1/series" --data-urlencode 'match[]=memcg_anon_bytes' |
		python3 -c 'import json, sys; print(" ".join(sorted(set(s["host"] for s in json.load(sys.stdin)["data"]))))'
}
for _ in $(seq 120); do
	[ "$(host_values)" = "${HOSTS[*]}" ] && break
	sleep 0.5
done
check "label values of host: ${HOSTS[*]}" test "$(host_values)" = "${HOSTS[*]}"

# the stats this kernel lacks (cgroup v1: no v1 equivalent): query-dashboard.py
# lets a query be empty only where its EXEMPT table names it for such a stat
missing=
if [ "$CGV" = 1 ]; then
	missing=$("${MEMCG_BPF_SAMPLE:-$BUILDDIR/memcg-bpf-sample}" --list-stats |
		awk 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "V1") v1 = i; next }
		     v1 && $v1 == "-" { printf "%s,", $1 }')
fi
dashboard() { # dashboard HOST: every query of the dashboard and the rules for HOST
	python3 "$SRC/tests/packaging/query-dashboard.py" --prom "$vm" --host "$1" --missing "$missing" \
		--dashboard "$SRC/packaging/dashboard/memcg_bpf.grafana.json" --rules "$T/rules.yml" \
		--rate-interval 10s --range 1m --deadline 90 >"$T/dashboard-$1.txt" 2>&1
	local rc=$?
	sed 's/^/#   /' "$T/dashboard-$1.txt"
	return $rc
}
for h in "${HOSTS[@]}"; do
	check "$h: dashboard variables list it, every panel, recording rule and alert input has data" dashboard "$h"
done
hosts_reporting() {
	curl -sf "$vm/api/v1/query" --data-urlencode 'query=count(count by (host) (memcg_anon_bytes{host=~".*"}))' |
		python3 -c 'import json, sys; r = json.load(sys.stdin)["data"]["result"]; print(r[0]["value"][1] if r else 0)'
}
check "panel 'Hosts reporting' counts 2" test "$(hosts_reporting)" = 2

sleep 0.5 # let the senders ship the last interval
stop_both
check "both collectd daemons exit cleanly ($rcs)" [ "$rcs" = "0 0" ]
check "no errors logged (${HOSTS[0]})" log_clean "${dirs[0]}"
check "no errors logged (${HOSTS[1]})" log_clean "${dirs[1]}"

two_hosts() {
	local i
	# VictoriaMetrics makes rows searchable about a second after ingestion
	for ((i = 0; i < 10; i++)); do
		vm_dump "$VM_PORT" "$T/vm.jsonl"
		python3 "$SENDER_TESTS/two_hosts.py" --vm "$T/vm.jsonl" --host "${HOSTS[0]}" --csv "${dirs[0]}/csv" \
			--host "${HOSTS[1]}" --csv "${dirs[1]}/csv" >/dev/null && break
		sleep 0.5
	done
	python3 "$SENDER_TESTS/two_hosts.py" --vm "$T/vm.jsonl" --host "${HOSTS[0]}" --csv "${dirs[0]}/csv" \
		--host "${HOSTS[1]}" --csv "${dirs[1]}/csv" | sed 's/^/# /'
	return "${PIPESTATUS[0]}"
}
check "no merged series: each host's series complete and its own" two_hosts
finish
