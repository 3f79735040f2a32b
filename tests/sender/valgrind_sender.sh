#!/bin/bash
# valgrind memcheck on the real daemon with memcg_bpf AND its sender
# shipping to a loopback receiver (wire_receiver.py) for at least 20
# intervals, once per encoder family (remote write 1.0 + snappy, OTLP +
# gzip), then SIGTERM: nothing "definitely lost" and no invalid access from
# the plugin or the sender (their file names or memcg_bpf.so in the stack),
# and the receiver got every interval. Like tests/collectd/valgrind.sh.
set -u
. "$(dirname "$0")/lib.sh"
VALGRIND=${VALGRIND:-$(command -v valgrind)}
[ -n "$VALGRIND" ] || skip_all "valgrind not installed"
setup
command -v python3 >/dev/null || skip_all "python3 not installed"
trap 'stop_daemon; stop_receivers' EXIT
INTERVALS=${VALGRIND_INTERVALS:-22} # lib.sh set INTERVALS for the receiver tests

OURS='memcg_bpf\.so|\((memcg_bpf|sampler[a-z_]*|sample_table|cgroup_[a-z_]+|instance_name|plugin_config|stat_catalog|btf_enums|memory_stat_parse|sha256|log|sender[a-z_]*|metric_names|label_escape|snapshot|series_set|compress|batch_encode|remote_write[a-z0-9_]*|otlp|send_queue|http_sender)\.c:'

# one FORMAT COMPRESSION PATH
one() {
	local fmt=$1 comp=$2 path=$3 dir samples
	rm -f "$T/$fmt.port"
	python3 "$SENDER_TESTS/wire_receiver.py" --port-file "$T/$fmt.port" --log "$T/$fmt.jsonl" \
		2>"$T/$fmt.receiver.err" &
	receiver_pids+=($!)
	for ((i = 0; i < 100; i++)); do [ -f "$T/$fmt.port" ] && break; sleep 0.05; done
	dir=$(write_conf "vg-$fmt" 1 "" "
  Stat \"all\"
  URL \"http://127.0.0.1:$(cat "$T/$fmt.port")$path\"
  Format \"$fmt\"
  Compression \"$comp\"
  Label \"dc\" \"valgrind\"
  UnitLabel true
  ContainerIdLabel true
  MaxSamplesPerSend 500
")
	start_daemon "$dir" "$VALGRIND" --tool=memcheck --leak-check=full --show-leak-kinds=definite,indirect \
		--suppressions="$(dirname "$0")/../collectd/libbpf.supp" --errors-for-leak-kinds=definite --num-callers=30 --log-file="$dir/valgrind.log"
	check "$fmt: daemon under valgrind wrote $INTERVALS samples" \
		wait_rows "csv_file '$dir' self count-cgroups_seen" "$INTERVALS" $((INTERVALS * 4 + 30))
	samples=$(rows "$(csv_file "$dir" self count-cgroups_seen)")
	sleep 1 # the sender ships the last interval
	stop_daemon 60
	stop_receivers
	check "$fmt: daemon exited 0 on SIGTERM after $samples intervals (rc=$daemon_rc)" test "$daemon_rc" = 0
	check "$fmt: valgrind finished its report" grep -q 'ERROR SUMMARY' "$dir/valgrind.log"
	check "$fmt: no errors or sender warnings logged" log_clean "$dir"
	check "$fmt: the receiver got >= 20 intervals, all accepted, no wire errors" python3 - "$T/$fmt.jsonl" <<'PY'
import json, sys
reqs = [json.loads(l) for l in open(sys.argv[1])]
ts = {s[2] for r in reqs for s in r["series"]}
errs = [e for r in reqs for e in r["errors"]]
print("# %d requests, %d intervals, %d wire errors" % (len(reqs), len(ts), len(errs)))
sys.exit(0 if len(ts) >= 20 and not errs and all(r["status"] < 300 for r in reqs) else 1)
PY
	awk -v ours="$OURS" -v out="$T/ours-$fmt" '
		{ sub(/^==[0-9]+== ?/, "") }
		/^$/ { if (blk != "" && blk ~ ours && head ~ /definitely lost|Invalid|uninitialised|Mismatched|overlap/) { print blk > out; n++ } blk = ""; head = ""; next }
		{ if (blk == "") head = $0; blk = blk $0 "\n" }
		END { print n + 0 }
	' "$dir/valgrind.log" >"$T/count-$fmt"
	echo "# valgrind $fmt: $(grep -E 'definitely lost:|indirectly lost:|ERROR SUMMARY' "$dir/valgrind.log" | sed 's/^==[0-9]*== //' | tr '\n' ';')"
	check "$fmt: nothing definitely lost and no invalid access in the plugin or sender ($(cat "$T/count-$fmt") blocks)" \
		test "$(cat "$T/count-$fmt")" -eq 0
	[ -s "$T/ours-$fmt" ] && head -40 "$T/ours-$fmt" | sed 's/^/#   /'
	return 0
}

one remote_write snappy /api/v1/write
one otlp gzip /opentelemetry/v1/metrics
finish
