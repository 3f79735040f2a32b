# Shared by tests/sender/*.sh: real receivers (Prometheus, VictoriaMetrics,
# vmagent from Debian sid, unpacked by fetch-receivers.sh) on 127.0.0.1, each
# stopped by its own PID, and collectd with the built plugin shipping to them
# (tests/collectd/lib.sh). The host's cgroups are only read.
# shellcheck shell=bash

SENDER_TESTS=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=../collectd/lib.sh
. "$SENDER_TESTS/../collectd/lib.sh"

receiver_pids=()
INTERVALS=${MEMCG_BPF_SENDER_INTERVALS:-4}

stop_pid() { # stop_pid PID: TERM, then KILL after 10 s
	local pid=$1 i
	kill -TERM "$pid" 2>/dev/null || return 0
	for ((i = 0; i < 100; i++)); do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	kill -KILL "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	return 0
}

stop_receivers() {
	local pid
	for pid in "${receiver_pids[@]}"; do stop_pid "$pid"; done
	receiver_pids=()
}

sender_setup() {
	setup "$@"
	trap 'stop_daemon; stop_receivers' EXIT
	command -v python3 >/dev/null || skip_all "python3 not installed"
	command -v curl >/dev/null || skip_all "curl not installed"
	local out
	out=$("$SENDER_TESTS/fetch-receivers.sh" 2>"$T/fetch.log") ||
		skip_all "receivers not available (no network and no cache): $(tail -n 1 "$T/fetch.log")"
	PROMETHEUS=$(echo "$out" | awk '$1 == "prometheus" { print $3 }')
	VICTORIA=$(echo "$out" | awk '$1 == "victoria-metrics" { print $3 }')
	VMAGENT=$(echo "$out" | awk '$1 == "vmagent" { print $3 }')
	echo "# $(echo "$out" | awk '{ printf "%s %s; ", $1, $2 }')"
}

free_port() { # a loopback port outside the ephemeral range, held for this test ($$)
	python3 "$SENDER_TESTS/claim_port.py" "$$"
}

wait_http() { # wait_http URL PID: until URL answers 200, at most 30 s
	local i
	for ((i = 0; i < 300; i++)); do
		curl -sf -o /dev/null "$1" && return 0
		kill -0 "$2" 2>/dev/null || return 1
		sleep 0.1
	done
	return 1
}

# start_prometheus NAME [CONFIG]: sets PROM_PORT; logs in $T/NAME/receiver.log;
# CONFIG: the prometheus.yml to use (default: an empty one)
start_prometheus() {
	local dir=$T/$1
	mkdir -p "$dir"
	PROM_PORT=$(free_port)
	echo "${2:-global: {\}}" >"$dir/prometheus.yml"
	"$PROMETHEUS" --config.file="$dir/prometheus.yml" --storage.tsdb.path="$dir/data" \
		--web.listen-address="127.0.0.1:$PROM_PORT" \
		--web.enable-remote-write-receiver \
		--web.remote-write-receiver.accepted-protobuf-messages=prometheus.WriteRequest \
		--web.remote-write-receiver.accepted-protobuf-messages=io.prometheus.write.v2.Request \
		>"$dir/receiver.log" 2>&1 &
	receiver_pids+=($!)
	wait_http "http://127.0.0.1:$PROM_PORT/-/ready" $! || { cat "$dir/receiver.log"; return 1; }
}

# start_vm NAME: sets VM_PORT
start_vm() {
	local dir=$T/$1
	mkdir -p "$dir"
	VM_PORT=$(free_port)
	"$VICTORIA" -httpListenAddr="127.0.0.1:$VM_PORT" -storageDataPath="$dir/data" \
		-search.latencyOffset=1ms -loggerLevel=WARN >"$dir/receiver.log" 2>&1 &
	receiver_pids+=($!)
	wait_http "http://127.0.0.1:$VM_PORT/health" $! || { cat "$dir/receiver.log"; return 1; }
}

# start_vmagent NAME URL...: sets VMAGENT_PORT; shards series over the URLs
start_vmagent() {
	local dir=$T/$1 args=() u
	shift
	mkdir -p "$dir"
	VMAGENT_PORT=$(free_port)
	for u in "$@"; do args+=(-remoteWrite.url="$u"); done
	"$VMAGENT" -httpListenAddr="127.0.0.1:$VMAGENT_PORT" -remoteWrite.tmpDataPath="$dir/tmp" \
		-remoteWrite.shardByURL -remoteWrite.flushInterval=100ms -loggerLevel=WARN \
		"${args[@]}" >"$dir/receiver.log" 2>&1 &
	receiver_pids+=($!)
	wait_http "http://127.0.0.1:$VMAGENT_PORT/health" $! || { cat "$dir/receiver.log"; return 1; }
}

# run_collectd NAME PLUGIN_BODY: runs the daemon with Interval 1 until the root
# cgroup's usage has $INTERVALS rows, then stops it (the sender flushes its queue).
# (DispatchValues true: the csv rows are the reference the receiver is compared with)
run_collectd() {
	local name=$1 body=$2 dir
	dir=$(write_conf "$name" 1 "" "$body
  DispatchValues true")
	start_daemon "$dir"
	if ! wait_rows "csv_file '$dir' root bytes-anon" "$INTERVALS" 60; then
		echo "# collectd did not sample; log:"
		sed 's/^/#   /' "$dir/collectd.log" "$dir/stdout" 2>/dev/null | tail -20
	fi
	sleep 0.5 # let the sender ship the last interval
	stop_daemon
	RUN_DIR=$dir
}

# log_clean DIR: no errors and no sender warnings (retries, fallback) logged
log_clean() {
	local bad='\[error\]|\[warning\].*(http|retrying|falling back)'
	if grep -E "$bad" "$1/collectd.log" >/dev/null; then
		grep -E "$bad" "$1/collectd.log" | sed 's/^/#   /' | head -10
		return 1
	fi
	return 0
}

prom_dump() { # prom_dump PORT FILE
	curl -sf "http://127.0.0.1:$1/api/v1/query" --data-urlencode 'query={__name__=~"memcg_.+"}[1h]' >"$2"
}

vm_dump() { # vm_dump PORT FILE
	curl -sf "http://127.0.0.1:$1/internal/force_flush" >/dev/null || true
	curl -sf "http://127.0.0.1:$1/api/v1/export" --data-urlencode 'match[]={__name__=~"memcg_.+"}' >"$2"
}

compare() { # compare ARGS...: compare.py against the last run's csv
	python3 "$SENDER_TESTS/compare.py" --csv "$RUN_DIR/csv" "$@" | sed 's/^/# /'
	return "${PIPESTATUS[0]}"
}

# vm_compare "PORT FILE..." ARGS...: VictoriaMetrics makes rows searchable
# about a second after ingestion: dump and compare again for up to 5 s.
vm_compare() {
	local i p pairs=($1) args=()
	shift
	for ((i = 0; i < ${#pairs[@]}; i += 2)); do args+=(--vm "${pairs[i + 1]}"); done
	for ((i = 0; i < 10; i++)); do
		for ((p = 0; p < ${#pairs[@]}; p += 2)); do vm_dump "${pairs[p]}" "${pairs[p + 1]}"; done
		python3 "$SENDER_TESTS/compare.py" --csv "$RUN_DIR/csv" "${args[@]}" "$@" >/dev/null && break
		sleep 0.5
	done
	compare "${args[@]}" "$@"
}
