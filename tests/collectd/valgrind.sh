#!/bin/bash
# (d) valgrind memcheck on the real daemon with memcg_bpf for at least 20
# intervals, then SIGTERM: nothing "definitely lost" and no invalid access
# from the plugin (its file names or memcg_bpf.so in the stack). collectd's
# own leaks, if any, are listed but not counted against the plugin.
set -u
. "$(dirname "$0")/lib.sh"
VALGRIND=${VALGRIND:-$(command -v valgrind)}
[ -n "$VALGRIND" ] || skip_all "valgrind not installed"
setup
INTERVALS=${INTERVALS:-22}

dir=$(write_conf valgrind 1 "" '
  Stat "all"
  Cgroup "/^/.*/"
  Cgroup "/*"
')
start_daemon "$dir" "$VALGRIND" --tool=memcheck --leak-check=full --show-leak-kinds=definite,indirect \
	--suppressions="$(dirname "$0")/libbpf.supp" \
	--errors-for-leak-kinds=definite --num-callers=30 --log-file="$dir/valgrind.log"
check "daemon under valgrind wrote $INTERVALS samples" \
	wait_rows "csv_file '$dir' self count-cgroups_seen" "$INTERVALS" $((INTERVALS * 4 + 30))
samples=$(rows "$(csv_file "$dir" self count-cgroups_seen)")
stop_daemon 60
check "daemon exited 0 on SIGTERM after $samples intervals (rc=$daemon_rc)" test "$daemon_rc" = 0
check "valgrind finished its report" grep -q 'ERROR SUMMARY' "$dir/valgrind.log"
check "the plugin freed its instance at shutdown (no error from memcg_bpf in the log)" \
	bash -c "! grep -q '\[error\] memcg_bpf' '$dir/collectd.log'"

OURS='memcg_bpf\.so|\((memcg_bpf|sampler[a-z_]*|sample_table|cgroup_[a-z_]+|instance_name|plugin_config|stat_catalog|btf_enums|memory_stat_parse|sha256|log)\.c:'
# valgrind blocks: a header line, then "at"/"by" frames, then an empty line
awk -v ours="$OURS" -v out="$T/ours" '
	{ sub(/^==[0-9]+== ?/, "") }
	/^$/ { if (blk != "" && blk ~ ours && head ~ /definitely lost|Invalid|uninitialised|Mismatched|overlap/) { print blk > out; n++ } blk = ""; head = ""; next }
	{ if (blk == "") head = $0; blk = blk $0 "\n" }
	END { print n + 0 }
' "$dir/valgrind.log" >"$T/count"
echo "# valgrind: $(grep -E 'definitely lost:|indirectly lost:|ERROR SUMMARY' "$dir/valgrind.log" | sed 's/^==[0-9]*== //' | tr '\n' ';')"
check "nothing definitely lost and no invalid access in the plugin's code ($(cat "$T/count") blocks)" \
	test "$(cat "$T/count")" -eq 0
[ -s "$T/ours" ] && head -40 "$T/ours" | sed 's/^/#   /'
finish
