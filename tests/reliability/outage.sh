#!/bin/bash
# The outage test: the collector is down (connections refused) for
# more than 30 intervals (Interval 1) while collectd runs; midway collectd is
# killed with -9 and started again on the same SpoolDir. After the collector
# comes back, VictoriaMetrics must hold every sample of every interval that
# collectd sampled (count per series == csv rows == intervals it ran), with
# no duplicate (series, timestamp).
. "$(dirname "$0")/lib.sh"
reliability_setup
DOWN1=${MEMCG_BPF_OUTAGE_BEFORE_KILL:-17}
DOWN2=${MEMCG_BPF_OUTAGE_AFTER_KILL:-17}

dir=$(write_conf outage 1 "" "$(plugin_body "$T/outage")")
root_csv="csv_file '$dir' root bytes-anon"
start_daemon "$dir"
start_rss "$T/rss"
wait_rows "$root_csv" 3 30 || { not_ok "collectd samples"; finish; }
sleep 2
run1_start=$(head -n 2 "$(eval "$root_csv")" | tail -n 1 | cut -d, -f1)

fault refuse
t_down=$(date +%s.%N)
echo "# collector down (connections refused)"
sleep "$DOWN1"
# kill -9 half way through an interval (the interval's request is on disk by then)
n=$(rows "$(eval "$root_csv")")
wait_rows "$root_csv" $((n + 1)) 5
sleep 0.5
files_before=$(spool_files "$dir")
kill -KILL "$daemon_pid"
wait "$daemon_pid" 2>/dev/null
t_kill=$(date +%s.%N)
daemon_pid=
stop_rss
rows_at_kill=$(rows "$(eval "$root_csv")")
echo "# killed collectd with -9 after $rows_at_kill intervals; $files_before spool files on disk"
check "requests were spooled before the kill" [ "$files_before" -gt 0 ]

start_daemon "$dir"
start_rss "$T/rss"
t_restart=$(date +%s.%N)
wait_rows "$root_csv" $((rows_at_kill + 2)) 30 || not_ok "collectd samples after the restart"
sleep "$DOWN2"
fault pass
t_up=$(date +%s.%N)
down_rows=$(awk -F, -v a="$t_down" -v b="$t_up" 'NR > 1 && $1 >= a && $1 <= b' "$(eval "$root_csv")" | wc -l)
echo "# collector back after $(awk -v a="$t_down" -v b="$t_up" 'BEGIN { printf "%.1f", b - a }') s;" \
	"$down_rows intervals sampled while it was down"
check "the outage lasted at least 30 intervals" [ "$down_rows" -ge 30 ]
if wait_drained "$dir" 90; then drained=yes; else drained=no; fi
t_drained=$(date +%s.%N)
check "the spool drained after the outage" [ "$drained" = yes ]
echo "# spool drained $(awk -v a="$t_up" -v b="$t_drained" 'BEGIN { printf "%.1f", b - a }') s after the collector came back"
sleep 3
stop_rss
stop_daemon
check "collectd exits cleanly" [ "$daemon_rc" = 0 ]
check "the restart found the spool of the killed run" \
	grep -q 'batches (.* samples, .* bytes) from an earlier run wait to be sent' "$dir/collectd.log"

total=$(rows "$(eval "$root_csv")")
last=$(tail -n 1 "$(eval "$root_csv")" | cut -d, -f1)
elapsed=$(awk -v a="$run1_start" -v k="$t_kill" -v r="$t_restart" -v l="$last" \
	'BEGIN { printf "%d", (k - a) + (l - r) + 1.5 }')
echo "# collectd sampled $total intervals (about $elapsed s of running time, the restart gap excluded)"
check "an interval sampled every second while collectd ran" \
	awk -v n="$total" -v e="$elapsed" 'BEGIN { exit !(n >= e - 2 && n <= e + 1) }'
check "every sample of every interval arrived, once" check_vm "$dir"
echo "# proxy: $(proxy_stat forwarded_samples) samples forwarded, $(proxy_stat duplicates) duplicates;" \
	"peak RSS $(rss_max "$T/rss" 0 1e12) kB"
check "proxy saw no duplicate sample" [ "$(proxy_stat duplicates)" = 0 ]
for r in queue_full rejected spool_full spool_error shutdown; do
	check "nothing dropped ($r)" [ "$(last_self "$dir" "derive-sender_dropped_batches-$r")" = 0 ]
done
finish
