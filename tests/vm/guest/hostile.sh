# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=sh
# Names a tenant picks: functions only, sourced by run-tests.sh after lib.sh,
# tree.sh, receivers.sh and oom.sh (mkpath); they use run-tests.sh's
# collectd helpers.
#   hostile_names  under a user's delegated slice, four cgroups that the
#                  series key and the label escaping of old merged: two
#                  names with one unkeyed hash, the text "x\xff" and "x"
#                  followed by the byte 0xff. Each runs a memload of its own
#                  size; the real collectd ships remote write to
#                  VictoriaMetrics, which must hold four series with four
#                  cgroup labels (the documented escaping), each with its
#                  cgroup's own anon from memory.stat.

HN_SLICE=user.slice/user-1000.slice/user@1000.service/app.slice

# hn_names: the four names, one per line (the last holds the byte 0xff).
hn_names() {
	printf '%s\n' '.<"C5OpC]];Y],(7' 'aF8w@(lW""D&"SWH' 'x\xff' "$(printf 'x\377')"
}

# hn_labels: the cgroup label of each name, in hn_names' order: printable
# ASCII as is; the byte 0xff as \xff; a backslash before "xff" doubled.
hn_labels() {
	printf "/$HN_SLICE/%s\n" '.<"C5OpC]];Y],(7' 'aF8w@(lW""D&"SWH' 'x\\xff' 'x\xff'
}

# promql_string TEXT: TEXT as a PromQL string literal's inside.
promql_string() { printf '%s' "$1" | sed 's/\\/\\\\/g; s/"/\\"/g'; }

hn_cleanup() {
	for pid in $hn_pids; do kill "$pid" 2>/dev/null; done
	for pid in $hn_pids; do wait "$pid" 2>/dev/null; done
	hn_names | while IFS= read -r n; do rmdir "$CG/$HN_SLICE/$n" 2>/dev/null; done
	receivers_stop
}

t_hostile_names() {
	have_collectd || return 77
	base=$CG/$HN_SLICE
	mkpath "$CG" $(echo "$HN_SLICE" | tr / " ") || return 1
	enable_memory "$base" || return 1
	hn_pids='' i=0
	hn_names > "$WORK/hn.names"
	while IFS= read -r n; do
		i=$((i + 1))
		mkdir "$base/$n" || { why "mkdir of the name $i failed"; hn_cleanup; return 1; }
		rm -f "$WORK/hn$i.ready"
		( echo 0 > "$base/$n/cgroup.procs" && exec memload -a $((2 * i)) -r "$WORK/hn$i.ready" ) &
		hn_pids="$hn_pids $!"
	done < "$WORK/hn.names"
	t=0
	until [ -f "$WORK/hn1.ready" ] && [ -f "$WORK/hn2.ready" ] && [ -f "$WORK/hn3.ready" ] && [ -f "$WORK/hn4.ready" ]; do
		t=$((t + 1))
		[ $t -le 300 ] || { why "the memloads were not ready in 30 s"; hn_cleanup; return 1; }
		sleep 0.1
	done
	vm_start || { hn_cleanup; return 1; }
	d=$WORK/hn-collectd
	rm -rf "$d"
	mkdir -p "$d"
	collectd_conf "$d" 1 csv "  Backend \"auto\"
  CgroupRoot \"$CG\"
  Cgroup \"/user.slice/*\"
  Stat \"anon\"
  URL \"$VM_URL/api/v1/write\"
  Format \"remote_write\"" || { hn_cleanup; return 1; }
	"$COLLECTD" -f -C "$d/collectd.conf" > "$d/stdout" 2>&1 &
	cpid=$!
	# until every label has arrived with its cgroup's anon (60 s at most)
	hn_labels > "$WORK/hn.labels"
	t=0
	while :; do
		bad=0 i=0
		: > "$WORK/hn.bad"
		while IFS= read -r label <&3 && IFS= read -r n <&4; do
			i=$((i + 1))
			want=$(awk '$1 == "anon" { print $2 }' "$base/$n/memory.stat")
			rx_query "$VM_URL" "memcg_anon_bytes{cgroup=\"$(promql_string "$label")\"}" > "$WORK/hn.q" 2>/dev/null
			got=$(cut -d' ' -f1 "$WORK/hn.q" | tr '\n' ' ')
			if [ "$got" != "$want " ]; then
				echo "name $i (label $label): got ${got:-nothing}, want anon $want (memory.stat)" >> "$WORK/hn.bad"
				bad=$((bad + 1))
			fi
		done 3< "$WORK/hn.labels" 4< "$WORK/hn.names"
		[ $bad -eq 0 ] && break
		t=$((t + 1))
		if [ $t -gt 60 ] || ! kill -0 $cpid 2>/dev/null; then
			stop_collectd $cpid
			cat "$WORK/hn.bad"
			why "$(head -n 1 "$WORK/hn.bad" | cut -c 1-250)"
			hn_cleanup
			return 1
		fi
		sleep 1
	done
	stop_collectd $cpid
	# four series under the slice, four labels, four values
	rx_query "$VM_URL" "memcg_anon_bytes{cgroup=~\"/user.slice/.+/app.slice/.+\"}" > "$WORK/hn.all"
	series=$(grep -c . "$WORK/hn.all")
	values=$(cut -d' ' -f1 "$WORK/hn.all" | sort -u | grep -c .)
	info "hostile_names: 4 cgroups (two keys of the old hash, the text x\\xff and x + byte 0xff), remote write into VictoriaMetrics: $series series, $values distinct anon values, each its cgroup's memory.stat anon"
	hn_cleanup
	if [ "$series" -ne 4 ] || [ "$values" -ne 4 ]; then
		why "VictoriaMetrics holds $series series with $values distinct values under /$HN_SLICE, want 4 and 4"
		return 1
	fi
}
