# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=sh
# The receivers of the guest tests and of the bench, on the guest's loopback:
# Prometheus and VictoriaMetrics from Debian sid, put into the initramfs by
# tests/vm/run.sh (MEMCG_BPF_VM_RECEIVERS). Functions only, sourced by
# run-tests.sh after lib.sh. Each receiver is started at its first use and
# keeps its data in $WORK until receivers_stop.
#   prom_start [RULES...]  Prometheus with the remote-write receiver (1.0
#                       and 2.0); with RULES, a copy of each rules file
#                       loaded and every group evaluated each second; with
#                       PROM_SCRAPE set, those lines under scrape_configs
#   vm_start            VictoriaMetrics
#   receivers_stop      stops both and drops what they stored
#   rx_query URL EXPR   an instant query at URL (either receiver): one
#                       "VALUE LABELS" line per series
#   prom_query EXPR     rx_query at Prometheus
#   prom_value EXPR     the value of a query's only series (nothing if none)
#   prom_alerts         the active alerts: "NAME STATE CGROUP" lines
VM_PID='' PROM_PID=''
VM_URL=http://127.0.0.1:8428 PROM_URL=http://127.0.0.1:9090

# wait_health URL PID WHO: up to 30 s for URL to answer while PID lives.
wait_health() {
	t=0
	until wget -q -O /dev/null "$1" 2>/dev/null; do
		t=$((t + 1))
		if [ $t -gt 300 ] || ! kill -0 "$2" 2>/dev/null; then
			why "$3 did not answer $1 in 30 s: $(tail -n 3 "$WORK/$3.log" | tr '\n' ' ' | cut -c 1-200)"
			return 1
		fi
		sleep 0.1
	done
}

prom_start() {
	[ -z "$PROM_PID" ] || return 0
	command -v prometheus >/dev/null || { why "prometheus is not in the initramfs (tests/vm/run.sh, MEMCG_BPF_VM_RECEIVERS)"; return 1; }
	pd=$WORK/prom # (not d: the callers' variable)
	mkdir -p "$pd"
	# Rule groups are evaluated every second instead of at the group's
	# interval (make packagecheck does the same, at 2 s); their [5m]
	# windows stay as shipped.
	if [ $# -gt 0 ]; then
		printf 'global:\n  scrape_interval: 1h\n  evaluation_interval: 1s\nrule_files:\n' > "$pd/prometheus.yml"
		pn=0 # (not n, f: the callers' variables)
		for pf in "$@"; do
			[ -f "$pf" ] || { why "no rules file $pf in the initramfs"; return 1; }
			pn=$((pn + 1))
			sed 's/^\([[:space:]]*interval:[[:space:]]*\).*$/\11s/' "$pf" > "$pd/rules$pn.yml"
			echo "  - $pd/rules$pn.yml" >> "$pd/prometheus.yml"
		done
	else
		printf 'global:\n  scrape_interval: 1h\n' > "$pd/prometheus.yml"
	fi
	[ -z "${PROM_SCRAPE:-}" ] || printf 'scrape_configs:\n%s\n' "$PROM_SCRAPE" >> "$pd/prometheus.yml"
	prometheus --config.file="$pd/prometheus.yml" --storage.tsdb.path="$pd/data" \
		--web.listen-address=127.0.0.1:9090 --web.enable-remote-write-receiver \
		--web.remote-write-receiver.accepted-protobuf-messages=prometheus.WriteRequest \
		--web.remote-write-receiver.accepted-protobuf-messages=io.prometheus.write.v2.Request \
		--log.level=warn > "$WORK/prometheus.log" 2>&1 &
	PROM_PID=$!
	wait_health "$PROM_URL/-/ready" "$PROM_PID" prometheus || return 1
	[ $# -eq 0 ] && return 0
	# the rules loaded: at least one group (a broken file stops Prometheus)
	wget -q -O - "$PROM_URL/api/v1/rules" > "$pd/rules.json" 2>/dev/null
	if ! grep -q '"groups":\[{' "$pd/rules.json"; then
		why "Prometheus loaded no rule group from $*: $(tail -n 3 "$WORK/prometheus.log" | tr '\n' ' ' | cut -c 1-200)"
		return 1
	fi
}

vm_start() {
	[ -z "$VM_PID" ] || return 0
	command -v victoria-metrics >/dev/null || { why "victoria-metrics is not in the initramfs (tests/vm/run.sh, MEMCG_BPF_VM_RECEIVERS)"; return 1; }
	victoria-metrics -httpListenAddr=127.0.0.1:8428 -storageDataPath="$WORK/vmdata" \
		-search.latencyOffset=1ms -search.disableCache -loggerLevel=WARN > "$WORK/victoria-metrics.log" 2>&1 &
	VM_PID=$!
	wait_health "$VM_URL/health" "$VM_PID" victoria-metrics
}

# Stops them and drops what they stored: each run starts with an empty
# receiver (memory for the next, and no series registration left behind).
receivers_stop() {
	for pid in $VM_PID $PROM_PID; do kill "$pid" 2>/dev/null; done
	for pid in $VM_PID $PROM_PID; do wait "$pid" 2>/dev/null; done
	VM_PID='' PROM_PID=''
	rm -rf "$WORK/vmdata" "$WORK/prom"
}

# urlenc TEXT: TEXT with every byte percent-encoded.
urlenc() { printf '%s' "$1" | od -An -tx1 -v | tr -d ' \n' | sed 's/../%&/g'; }

# rx_query URL EXPR: one line per series of the instant vector, "VALUE
# {LABELS}" (the Prometheus API's JSON, cut at each series); fails when the
# query does.
rx_query() {
	wget -q -O - "$1/api/v1/query?query=$(urlenc "$2")" > "$WORK/query.json" 2>/dev/null || return 1
	grep -q '"status":"success"' "$WORK/query.json" || return 1
	awk '{ n = split($0, a, /\{"metric":/); for (i = 2; i <= n; i++) print a[i] }' "$WORK/query.json" |
		sed -n 's/^\(.*\)},"value":\[[^,]*,"\([^"]*\)"\].*/\2 \1/p'
}

prom_query() { rx_query "$PROM_URL" "$1"; }

# prom_value EXPR: the value of the query's only series; nothing (and
# failure) when it has none or several.
prom_value() {
	prom_query "$1" > "$WORK/query.out" || return 1
	[ "$(wc -l < "$WORK/query.out")" -eq 1 ] || return 1
	cut -d' ' -f1 "$WORK/query.out"
}

# prom_alerts: the alerts Prometheus holds (pending or firing), one line
# each: "ALERTNAME STATE CGROUP" (CGROUP "-" without that label).
prom_alerts() {
	wget -q -O - "$PROM_URL/api/v1/alerts" > "$WORK/alerts.json" 2>/dev/null || return 1
	grep -q '"status":"success"' "$WORK/alerts.json" || return 1
	awk '{ n = split($0, a, /\{"labels":/); for (i = 2; i <= n; i++) print a[i] }' "$WORK/alerts.json" |
	while IFS= read -r a; do
		labels=${a%%\}*}
		name=$(echo "$labels" | sed -n 's/.*"alertname":"\([^"]*\)".*/\1/p')
		cgroup=$(echo "$labels" | sed -n 's/.*"cgroup":"\([^"]*\)".*/\1/p')
		state=$(echo "$a" | sed -n 's/.*"state":"\([^"]*\)".*/\1/p')
		echo "${name:--} ${state:--} ${cgroup:--}"
	done
}
