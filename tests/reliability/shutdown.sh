#!/bin/bash
# Shutdown while the collector hangs: collectd stops within the deadline
# (SENDER_SHUTDOWN_S, then running requests are cut off), what it could not
# send is spooled, and the next start sends it: every interval arrives once.
# Then the same without a spool, with the default Timeout and a full queue.
. "$(dirname "$0")/lib.sh"
reliability_setup

dir=$(write_conf shutdown 1 "" "$(plugin_body "$T/shutdown")")
root_csv="csv_file '$dir' root bytes-anon"
start_daemon "$dir"
wait_rows "$root_csv" 3 30 || { not_ok "collectd samples"; finish; }
fault hang hang=60
sleep 5
t0=$(date +%s.%N)
stop_daemon 30
t1=$(date +%s.%N)
took=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')
files=$(spool_files "$dir")
echo "# stop with a hanging collector took $took s; $files spool files left"
check "collectd stops within 10 s" \
	awk -v t="$took" 'BEGIN { exit !(t <= 10) }'
check "collectd exits cleanly" [ "$daemon_rc" = 0 ]
check "what was not sent is spooled" [ "$files" -gt 0 ]
check "the stop says what stays on disk" grep -q 'requests stay on disk for the next start' "$dir/collectd.log"

fault pass
start_daemon "$dir"
check "the next start drains the spool" wait_drained "$dir" 60
sleep 2
stop_daemon
check "every interval of both runs arrived once" check_vm "$dir"
check "proxy saw no duplicate sample" [ "$(proxy_stat duplicates)" = 0 ]

# No SpoolDir, the default Timeout (10 s) and a full queue behind a hung
# collector: the stop still ends within 10 s; what could not be sent is
# dropped and counted (shutdown, queue_full).
dir=$(write_conf shutdown-nospool 1 "" "$(printf '%s\n' "URL \"http://127.0.0.1:$PROXY_PORT/api/v1/write\"" 'DispatchValues true')")
root_csv="csv_file '$dir' root bytes-anon"
fault hang hang=120
start_daemon "$dir"
wait_rows "$root_csv" 3 30 || not_ok "collectd samples (no spool)"
sleep 20
t0=$(date +%s.%N)
stop_daemon 60
t1=$(date +%s.%N)
took=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')
echo "# no spool, Timeout 10, collector hung for 20 s: the stop took $took s;" \
	"dropped $(last_self "$dir" derive-sender_dropped_batches-shutdown) (shutdown)," \
	"$(last_self "$dir" derive-sender_dropped_batches-queue_full) (queue_full)"
check "no spool: collectd stops within 10 s whatever Timeout and the queue" \
	awk -v t="$took" 'BEGIN { exit !(t <= 10) }'
check "no spool: collectd exits cleanly" [ "$daemon_rc" = 0 ]
fault pass
finish
