#!/bin/bash
# A collector slower than the interval (Interval 1), with a SpoolDir:
#   1. it answers 200 after 1.8 s, with Timeout 2;
#   2. it answers 200 after 3 s, with the default Timeout.
# The sender must keep up (intervals that wait together share requests):
# VictoriaMetrics holds every sample of every interval once, nothing is
# dropped, and the spool is never needed.
. "$(dirname "$0")/lib.sh"
reliability_setup
SLOW_S=${MEMCG_BPF_SLOW_SECONDS:-30}

# run NAME DELAY PLUGIN_BODY
run() {
	local name=$1 delay=$2 body=$3 dir from_ms reqs0 reqs
	dir=$(write_conf "$name" 1 "" "$body")
	root_csv="csv_file '$dir' root bytes-anon"
	fault slow "delay=$delay"
	reqs0=$(proxy_stat forwarded)
	from_ms=$(date +%s%3N)
	start_daemon "$dir"
	wait_rows "$root_csv" 2 30 || { not_ok "$name: collectd samples"; return; }
	sleep "$SLOW_S"
	fault pass
	sleep $((${delay%.*} + 4))
	stop_daemon 30
	reqs=$(($(proxy_stat forwarded) - reqs0))
	echo "# $name: collector answering in ${delay}s for ${SLOW_S}s: $(rows "$(eval "$root_csv")")" \
		"intervals in $reqs requests; spool files left $(spool_files "$dir")"
	check "$name: collectd exits cleanly" [ "$daemon_rc" = 0 ]
	for r in queue_full rejected spool_full spool_error shutdown; do
		check "$name: nothing dropped ($r)" [ "$(last_self "$dir" "derive-sender_dropped_batches-$r")" = 0 ]
	done
	check "$name: fewer requests than intervals (they share requests)" \
		[ "$reqs" -lt "$(rows "$(eval "$root_csv")")" ]
	check "$name: every sample of every interval arrived, once" check_vm "$dir" --from-ms "$from_ms"
}

run slow-timeout2 1.8 "$(plugin_body "$T/slow-timeout2")"
run slow-defaults 3 "$(printf '%s\n' "URL \"http://127.0.0.1:$PROXY_PORT/api/v1/write\"" \
	"SpoolDir \"$T/slow-defaults/spool\"" 'DispatchValues true')"
check "proxy saw no duplicate sample" [ "$(proxy_stat duplicates)" = 0 ]
finish
