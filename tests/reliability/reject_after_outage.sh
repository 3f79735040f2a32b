#!/bin/bash
# After a 30 s outage the collector comes back answering 404 for 40 s (past
# the longest backoff, so replay meets it), then takes requests again; later
# it answers 308 (a redirect, not followed) for 5 s. The backlog in the
# spool must survive: the only samples missing from VictoriaMetrics are
# those of the requests that got the 404 or the 308 (the proxy's
# /rejected), each such request is counted as dropped (rejected), and each
# status is logged once, not once per request.
. "$(dirname "$0")/lib.sh"
reliability_setup
DOWN=${MEMCG_BPF_REJECT_DOWN_SECONDS:-30}
REJECT=${MEMCG_BPF_REJECT_SECONDS:-40}

dir=$(write_conf reject 1 "" "$(plugin_body "$T/reject")")
root_csv="csv_file '$dir' root bytes-anon"
from_ms=$(date +%s%3N)
start_daemon "$dir"
wait_rows "$root_csv" 2 30 || { not_ok "collectd samples"; finish; }
fault refuse
sleep "$DOWN"
files=$(spool_files "$dir")
fault 404
sleep "$REJECT"
fault pass
check "the spool drained after the 404" wait_drained "$dir" 90
fault 308
sleep 5
fault pass
check "the spool drained after the 308" wait_drained "$dir" 60
sleep 3
stop_daemon
check "collectd exits cleanly" [ "$daemon_rc" = 0 ]
curl -sf "http://127.0.0.1:$CONTROL_PORT/rejected" >"$T/rejected.jsonl"
hit=$(proxy_stat requests | python3 -c "import ast,sys; r = ast.literal_eval(sys.stdin.read()); print(r.get('404', 0) + r.get('308', 0))")
dropped=$(last_self "$dir" derive-sender_dropped_batches-rejected)
echo "# ${DOWN}s down ($files spool files), ${REJECT}s of 404, 5s of 308: $hit requests rejected," \
	"$(wc -l <"$T/rejected.jsonl") samples in them; counted as dropped: ${dropped%.*} requests"
check "spooled while the collector was down" [ "$files" -gt 0 ]
check "some requests were rejected" [ "$hit" -gt 0 ]
check "every rejected request is counted, and no other" [ "${dropped%.*}" = "$hit" ]
check "the backlog survived: only the rejected samples are missing" \
	check_vm "$dir" --rejected "$T/rejected.jsonl" --from-ms "$from_ms"
check "404 logged once" [ "$(grep -c 'HTTP 404, dropping' "$dir/collectd.log")" = 1 ]
check "308 logged once, naming the redirect" \
	[ "$(grep -c 'HTTP 308, a redirect to http://127.0.0.1:9/elsewhere: redirects are not followed' "$dir/collectd.log")" = 1 ]
check "proxy saw no duplicate sample" [ "$(proxy_stat duplicates)" = 0 ]
finish
