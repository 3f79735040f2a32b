#!/bin/bash
# A damaged spool and a messy SpoolDir: while the collector is down,
# collectd spools its requests; it is stopped, one bit of one spooled
# request is flipped on disk, and SpoolDir gains entries that are not the
# spool's (a directory, a dangling link, a file with an uppercase-hex
# segment name, one with a leading '+', a README). The next start must
# run (init not failed), warn once about the strays, lose exactly the
# damaged request (counted with its samples, reason spool_error) and
# deliver everything else once.
. "$(dirname "$0")/lib.sh"
reliability_setup
DOWN=${MEMCG_BPF_DAMAGE_DOWN_SECONDS:-8}

dir=$(write_conf damage 1 "" "$(plugin_body "$T/damage")")
root_csv="csv_file '$dir' root bytes-anon"
from_ms=$(date +%s%3N)
start_daemon "$dir"
wait_rows "$root_csv" 2 30 || { not_ok "collectd samples"; finish; }
fault refuse
sleep "$DOWN"
stop_daemon 30
check "the first run exits cleanly" [ "$daemon_rc" = 0 ]
segment=$(find "$dir/spool" -name '*.spool' | sort | head -n 1)
check "requests were spooled while the collector was down" [ -n "$segment" ]
samples=$(python3 "$RELIABILITY_TESTS/flip_bit.py" "$segment")
echo "# flipped a bit in a spooled request of $samples samples in $(basename "$segment")"
mkdir "$dir/spool/00000000000000ff.spool"
ln -s /nonexistent/memcg_bpf "$dir/spool/00000000000000fe.spool"
: >"$dir/spool/00000000000000AA.spool"
: >"$dir/spool/+000000000000001.spool"
echo "notes of an operator" >"$dir/spool/README"

fault pass
mv "$dir/collectd.log" "$dir/collectd-1.log"
start_daemon "$dir"
check "the second run starts and drains the spool" wait_drained "$dir" 60
sleep 3
stop_daemon
check "the second run exits cleanly" [ "$daemon_rc" = 0 ]
check "no init failure" bash -c "! grep -qi 'init.*failed\|Initialization of plugin .memcg_bpf. failed' '$dir/collectd.log'"
check "one warning names the stray entries" \
	[ "$(grep -c 'ignoring 5 entries that are not spool segments' "$dir/collectd.log")" = 1 ]
check "the damaged record is logged" grep -q 'CRC mismatch; 1 damaged record' "$dir/collectd.log"
dropped=$(last_self "$dir" derive-sender_dropped_batches-spool_error)
dropped_samples=$(last_self "$dir" derive-sender_dropped_samples-spool_error)
echo "# counted as dropped (spool_error): $dropped requests, $dropped_samples samples"
check "the damaged request is counted: 1 request" [ "${dropped%.*}" = 1 ]
check "the damaged request is counted: its $samples samples" [ "${dropped_samples%.*}" = "$samples" ]
check "the stray entries are left alone" [ -d "$dir/spool/00000000000000ff.spool" ] && [ -f "$dir/spool/README" ]
check "everything else arrived once; missing: exactly the damaged interval" \
	check_vm "$dir" --missing-intervals 1 --from-ms "$from_ms"
check "proxy saw no duplicate sample" [ "$(proxy_stat duplicates)" = 0 ]
finish
