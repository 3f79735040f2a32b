#!/bin/bash
# Each fault of the collector, one after the other in one collectd run
# (Interval 1, Timeout 2, SpoolDir), with recovery in between:
#   refuse, 500, 503, 429 + Retry-After, hang past the timeout, reset mid-body
# For each: sampling stays on time (no gap between csv rows beyond 1.5
# intervals), the spool takes the requests, RSS stays within a bound, and
# after the fault the spool drains. At the end VictoriaMetrics holds every
# sampled value of every series once (proxy: 0 duplicate (series, ts)).
# Then 400, in a run of its own: the requests are dropped, counted
# (sender_dropped_*-rejected) and logged, never spooled.
. "$(dirname "$0")/lib.sh"
reliability_setup
FAULT_S=${MEMCG_BPF_FAULT_SECONDS:-6}
RSS_BOUND_KB=${MEMCG_BPF_RSS_BOUND_KB:-16384}

dir=$(write_conf faults 1 "" "$(plugin_body "$T/faults")")
start_daemon "$dir"
start_rss "$T/rss"
root_csv="csv_file '$dir' root bytes-anon"
wait_rows "$root_csv" 3 30 || { not_ok "collectd samples"; finish; }
sleep 2
base_kb=$(rss_max "$T/rss" 0 1e12)
echo "# baseline RSS ${base_kb} kB"
for f in ${MEMCG_BPF_FAULTS-refuse 500 503 429 hang reset}; do
	before=$(proxy_stat requests | python3 -c "import ast,sys; print(ast.literal_eval(sys.stdin.read()).get('$f', 0))")
	t0=$(date +%s.%N)
	case $f in
	429) fault 429 retry_after=2 ;;
	hang) fault hang hang=30 ;;
	*) fault "$f" ;;
	esac
	sleep "$FAULT_S"
	files=$(spool_files "$dir")
	fault pass
	if wait_drained "$dir" 60; then drained=yes; else drained=no; fi
	t1=$(date +%s.%N)
	sleep 1
	gap=$(max_gap "$(eval "$root_csv")" "$t0" "$t1")
	peak=$(rss_max "$T/rss" "$t0" "$t1")
	reqs=$(proxy_stat requests | python3 -c "import ast,sys; print(ast.literal_eval(sys.stdin.read()).get('$f', 0))")
	echo "# $f: ${FAULT_S}s fault, $((reqs - before)) requests hit it, spool files at its end $files," \
		"drained after $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }') s," \
		"max sampling gap ${gap}s, peak RSS ${peak} kB"
	check "$f: sampling stays on time (max gap $gap s)" awk -v g="$gap" 'BEGIN { exit !(g > 0 && g < 1.5) }'
	check "$f: requests went to the spool" [ "$files" -gt 0 ]
	check "$f: spool drained after the fault" [ "$drained" = yes ]
	check "$f: RSS bounded (peak $peak kB, baseline $base_kb kB)" [ $((peak - base_kb)) -lt "$RSS_BOUND_KB" ]
done
sleep 2
stop_rss
stop_daemon
check "collectd exits cleanly" [ "$daemon_rc" = 0 ]
echo "# retries $(last_self "$dir" derive-sender_retries)," \
	"dropped: $(for r in queue_full rejected spool_full spool_error shutdown; do
		printf '%s=%s ' "$r" "$(last_self "$dir" "derive-sender_dropped_batches-$r")"; done)"
for r in queue_full rejected spool_full spool_error shutdown; do
	check "nothing dropped ($r)" [ "$(last_self "$dir" "derive-sender_dropped_batches-$r")" = 0 ]
done
check "every interval of every series arrived once" check_vm "$dir"
dups=$(proxy_stat duplicates)
fwd=$(proxy_stat forwarded_samples)
echo "# proxy forwarded $fwd samples, $dups duplicate (series, timestamp), $(proxy_stat decode_errors) undecodable"
check "proxy saw no duplicate sample" [ "$dups" = 0 ]
check "proxy decoded every request" [ "$(proxy_stat decode_errors)" = 0 ]

# 400: dropped by design, counted, logged; nothing spooled
dir=$(write_conf bad-request 1 "" "$(plugin_body "$T/bad-request")")
fault pass
from_ms=$(date +%s%3N)
start_daemon "$dir"
root_csv="csv_file '$dir' root bytes-anon"
wait_rows "$root_csv" 2 30
fault 400
sleep 3
files=$(spool_files "$dir")
fault pass
sleep 3
stop_daemon
dropped=$(last_self "$dir" derive-sender_dropped_batches-rejected)
dropped_samples=$(last_self "$dir" derive-sender_dropped_samples-rejected)
echo "# 400: $dropped requests ($dropped_samples samples) dropped and counted"
check "400: requests dropped and counted" [ "${dropped%.*}" -gt 0 ]
check "400: not spooled" [ "$files" -eq 0 ]
check "400: status and body logged" grep -q 'HTTP 400, dropping a request.*fault proxy: bad request' "$dir/collectd.log"
check "400: everything else arrived; missing: exactly the $dropped dropped intervals" \
	check_vm "$dir" --missing-intervals "${dropped%.*}" --from-ms "$from_ms"
[ -n "${MEMCG_BPF_KEEP:-}" ] && fail=$((fail + 1))
finish
