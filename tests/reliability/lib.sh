# Shared by tests/reliability/*.sh: VictoriaMetrics behind the fault proxy
# (fault_proxy.py, loopback only), collectd with the built plugin shipping
# through it with a SpoolDir, and measurements of the run: sampling gaps
# from the csv plugin's rows, collectd's RSS, the proxy's counters.
# shellcheck shell=bash

RELIABILITY_TESTS=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=../sender/lib.sh
. "$RELIABILITY_TESTS/../sender/lib.sh"

proxy_pid=
rss_pid=

reliability_setup() {
	sender_setup
	trap 'stop_rss; stop_daemon; stop_proxy; stop_receivers' EXIT
	start_vm vm || { not_ok "victoria-metrics starts"; finish; }
	PROXY_PORT=$(free_port)
	CONTROL_PORT=$(free_port)
	python3 "$RELIABILITY_TESTS/fault_proxy.py" --upstream "http://127.0.0.1:$VM_PORT" \
		--port "$PROXY_PORT" --control-port "$CONTROL_PORT" >"$T/proxy.log" 2>&1 &
	proxy_pid=$!
	if ! wait_http "http://127.0.0.1:$CONTROL_PORT/stats" "$proxy_pid"; then
		not_ok "fault proxy starts on 127.0.0.1:$PROXY_PORT (control $CONTROL_PORT)"
		sed 's/^/#   /' "$T/proxy.log" | tail -20
		finish
	fi
}

stop_proxy() { [ -n "$proxy_pid" ] && stop_pid "$proxy_pid"; proxy_pid=; }

fault() { # fault MODE [QUERY]
	curl -sf "http://127.0.0.1:$CONTROL_PORT/mode/$1${2:+?$2}" >/dev/null
}

proxy_stat() { # proxy_stat KEY: a top-level counter of /stats
	curl -sf "http://127.0.0.1:$CONTROL_PORT/stats" | python3 -c "import json,sys; print(json.load(sys.stdin)['$1'])"
}

# The plugin block: ship through the proxy, spool in DIR/spool.
plugin_body() { # plugin_body DIR [EXTRA]
	printf '%s\n' "URL \"http://127.0.0.1:$PROXY_PORT/api/v1/write\"" 'Format "remote_write"' \
		'Timeout 2' 'ConnectTimeout 1' "SpoolDir \"$1/spool\"" 'DispatchValues true' "${2:-}"
}

# rss sampling of $daemon_pid into FILE, one "unix_time kB" line per 0.5 s
start_rss() {
	local pid=$daemon_pid file=$1
	(
		while kill -0 "$pid" 2>/dev/null; do
			awk -v t="$(date +%s.%N)" '/^VmRSS:/ { print t, $2 }' "/proc/$pid/status" 2>/dev/null
			sleep 0.5
		done
	) >>"$file" &
	rss_pid=$!
}
stop_rss() { [ -n "$rss_pid" ] && kill "$rss_pid" 2>/dev/null && wait "$rss_pid" 2>/dev/null; rss_pid=; }

# rss_max FILE FROM TO: the largest RSS (kB) sampled in [FROM, TO] (unix times)
rss_max() {
	awk -v a="$2" -v b="$3" '$1 >= a && $1 <= b && $2 > m { m = $2 } END { print m + 0 }' "$1"
}

# max_gap CSVFILE [FROM TO]: the longest time between consecutive rows (s),
# only rows with FROM <= time <= TO
max_gap() {
	awk -F, -v a="${2:-0}" -v b="${3:-1e12}" 'NR > 1 && $1 >= a && $1 <= b {
		if (p && $1 - p > m) m = $1 - p; p = $1 } END { printf "%.3f\n", m }' "$1"
}

# last_value DIR TYPE-INSTANCE: the last row's value of a "self" csv file
last_self() {
	local f
	f=$(csv_file "$1" self "$2")
	[ -f "$f" ] && tail -n 1 "$f" | cut -d, -f2 || echo 0
}

spool_files() { # spool_files DIR: segment files in DIR/spool (not strays named alike)
	find "$1/spool" -maxdepth 1 -type f -name '*.spool' 2>/dev/null | grep -cE '/[0-9a-f]{16}\.spool$'
}

wait_drained() { # wait_drained DIR TIMEOUT_S: no segment file left
	local i
	for ((i = 0; i < $2 * 10; i++)); do
		[ "$(spool_files "$1")" -eq 0 ] && return 0
		sleep 0.1
	done
	return 1
}

check_vm() { # check_vm DIR [ARGS]: counts per series in VictoriaMetrics vs the csv
	local i
	# up to 15 s for the last samples to become searchable on a loaded machine
	for ((i = 0; i < 30; i++)); do
		vm_dump "$VM_PORT" "$T/vm.jsonl"
		python3 "$RELIABILITY_TESTS/check_vm.py" --csv "$1/csv" --vm "$T/vm.jsonl" "${@:2}" >/dev/null && break
		sleep 0.5
	done
	python3 "$RELIABILITY_TESTS/check_vm.py" --csv "$1/csv" --vm "$T/vm.jsonl" "${@:2}" | sed 's/^/# /'
	return "${PIPESTATUS[0]}"
}
