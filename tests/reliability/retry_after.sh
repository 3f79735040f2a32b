#!/bin/bash
# Retry-After, with a SpoolDir:
#   1. 429 with Retry-After: 60 for 10 s: nothing is lost (the spool holds
#      the intervals), and delivery resumes once the 60 s have passed;
#   2. 429 with Retry-After: 0, then with a date in the past, 5 s each:
#      taken as 1 s, so the collector sees about a request a second, not a
#      storm.
. "$(dirname "$0")/lib.sh"
reliability_setup

dir=$(write_conf retry-after 1 "" "$(plugin_body "$T/retry-after")")
root_csv="csv_file '$dir' root bytes-anon"
from_ms=$(date +%s%3N)
start_daemon "$dir"
wait_rows "$root_csv" 2 30 || { not_ok "collectd samples"; finish; }
fault 429 retry_after=60
sleep 10
fault pass
t0=$(date +%s.%N)
check "the spool drained after Retry-After" wait_drained "$dir" 90
t1=$(date +%s.%N)
echo "# Retry-After 60: drained $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }') s after the collector took requests again"
for ra in 0 past; do
	before=$(proxy_stat requests | python3 -c "import ast,sys; print(ast.literal_eval(sys.stdin.read()).get('429', 0))")
	fault 429 "retry_after=$ra"
	sleep 5
	fault pass
	n=$(($(proxy_stat requests | python3 -c "import ast,sys; print(ast.literal_eval(sys.stdin.read()).get('429', 0))") - before))
	echo "# Retry-After $ra for 5 s: $n requests"
	check "Retry-After $ra: about one request a second ($n in 5 s)" [ "$n" -le 8 ]
	check "Retry-After $ra: the spool drains after" wait_drained "$dir" 30
done
sleep 2
stop_daemon
check "collectd exits cleanly" [ "$daemon_rc" = 0 ]
for r in queue_full rejected spool_full spool_error shutdown; do
	check "nothing dropped ($r)" [ "$(last_self "$dir" "derive-sender_dropped_batches-$r")" = 0 ]
done
check "every sample of every interval arrived, once" check_vm "$dir" --from-ms "$from_ms"
check "proxy saw no duplicate sample" [ "$(proxy_stat duplicates)" = 0 ]
finish
