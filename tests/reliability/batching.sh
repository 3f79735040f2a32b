#!/bin/bash
# BatchSendDeadline at Interval 1 without a SpoolDir (its default there,
# 5 s): the intervals of the small test tree share requests (the proxy
# forwards fewer requests than there were intervals), every interval
# arrives once, and the stop sends what waits. Then BatchSendDeadline 0:
# a request per interval again.
. "$(dirname "$0")/lib.sh"
reliability_setup

# run NAME [EXTRA KEY]: collectd for 12 intervals or more; sets $intervals and $requests
run() {
	local dir before from_ms
	dir=$(write_conf "$1" 1 "" "$(printf '%s\n' "URL \"http://127.0.0.1:$PROXY_PORT/api/v1/write\"" \
		'DispatchValues true' "${2:-}")")
	before=$(proxy_stat forwarded)
	from_ms=$(date +%s%3N)
	start_daemon "$dir"
	wait_rows "csv_file '$dir' root bytes-anon" 12 60 || not_ok "$1: collectd samples"
	stop_daemon 30
	intervals=$(rows "$(csv_file "$dir" root bytes-anon)")
	requests=$(($(proxy_stat forwarded) - before))
	echo "# $1: $intervals intervals, $requests requests"
	check "$1: collectd exits cleanly" [ "$daemon_rc" = 0 ]
	check "$1: every interval of every series arrived once" check_vm "$dir" --from-ms "$from_ms"
}

fault pass
run batched
check "batched: intervals share requests ($requests for $intervals)" [ $((requests * 2)) -le "$intervals" ]
check "batched: the log names the wait" grep -q 'BatchSendDeadline' "$T/batched/collectd.log"
run alone 'BatchSendDeadline 0'
check "alone: a request per interval ($requests for $intervals)" [ $((requests * 3)) -ge $((intervals * 2)) ]
check "proxy saw no duplicate sample" [ "$(proxy_stat duplicates)" = 0 ]
finish
