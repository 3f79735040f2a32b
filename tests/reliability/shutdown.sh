#!/bin/bash
# Shutdown while the collector hangs: collectd stops within the deadline (one
# request's Timeout + SENDER_SHUTDOWN_S), what it could not send is spooled,
# and the next start sends it: every interval arrives once.
. "$(dirname "$0")/lib.sh"
reliability_setup

dir=$(write_conf shutdown 1 "" "$(plugin_body "$T/shutdown")")
root_csv="csv_file '$dir' root bytes-usage"
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
check "collectd stops within the deadline (Timeout 2 + 5 s + 2 s slack)" \
	awk -v t="$took" 'BEGIN { exit !(t < 9) }'
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
finish
