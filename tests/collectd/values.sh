#!/bin/bash
# (a) The real collectd daemon with memcg_bpf and the csv writer on this host:
# the values written equal what the kernel's own files say at the same moment.
#
# While the daemon runs, a reader loop snapshots, for every cgroup, the same
# files the text backend reads (memory.stat's hierarchical total_* fields on
# cgroup v1, memory.stat on v2, plus usage and the OOM-kill counter), each
# snapshot stamped with CLOCK_REALTIME. Each csv row (stamped with the time
# the sampler's walk started) is judged by the snapshots taken within
# WINDOW seconds of it, when there is one before it and one after it (else
# it is counted as unjudged: the reader loop did not pass that cgroup in
# time; so are the rows of cgroups created after the test listed the tree):
#  - idle: every snapshot in the window shows the same number; the row must
#    equal it exactly;
#  - live: the snapshots differ (the cgroup's processes allocate, fault, free
#    while we look); the row must lie in [min, max] of the window widened by a
#    slack (1% + 64 for counters, which only grow; for byte gauges, which
#    may swing up and back between two reads, 1% + 256 KiB plus the swing
#    seen in the window), because the reader loop reads memory.stat, the
#    usage file and memory.oom_control one after the other, not in the same
#    instant as the sampler. (A busy cgroup's file_dirty left the plain
#    [min, max] + 1% bracket once in a while.)
# Read only: nothing here writes to the host's cgroups.
set -u
. "$(dirname "$0")/lib.sh"
setup

WINDOW=${WINDOW:-0.3}
STATS="anon file shmem file_mapped file_dirty pgfault pgmajfault usage oom_kill_local"
if [ "$CGV" = 1 ]; then
	declare -A FIELD=([anon]=total_rss [file]=total_cache [shmem]=total_shmem
		[file_mapped]=total_mapped_file [file_dirty]=total_dirty
		[pgfault]=total_pgfault [pgmajfault]=total_pgmajfault)
	USAGE_FILE=memory.usage_in_bytes EVENTS_FILE=memory.oom_control
else
	declare -A FIELD=([anon]=anon [file]=file [shmem]=shmem [file_mapped]=file_mapped
		[file_dirty]=file_dirty [pgfault]=pgfault [pgmajfault]=pgmajfault)
	USAGE_FILE=memory.current EVENTS_FILE=memory.events.local
fi

dir=$(write_conf values 1 "" "
  Backend \"auto\"
  CgroupRoot \"$CGROUP_ROOT\"
  Stat $(for s in $STATS; do printf '"%s" ' "$s"; done)
  Stat \"kernel\"
")

# cgroups (relative paths) and their plugin_instance names
list_cgroups() {
	(cd "$MEMDIR" && find . -type d | sed -e 's|^\.||' -e 's|^$|/|' | LC_ALL=C sort)
}
mapfile -t CGROUPS < <(list_cgroups)
: >"$T/instances"
for p in "${CGROUPS[@]}"; do
	printf '%s\t%s\n' "$(instance_of "$p")" "$p" >>"$T/instances"
done

snapshot_loop() {
	local p k v ts line
	while [ ! -e "$T/stop-snapshots" ]; do
		for p in "${CGROUPS[@]}"; do
			local d=$MEMDIR${p%/}
			[ "$p" = / ] && d=$MEMDIR
			ts=$EPOCHREALTIME
			line=
			while read -r k v; do
				line+="$ts $p stat:$k $v"$'\n'
			done <"$d/memory.stat" 2>/dev/null
			read -r v <"$d/$USAGE_FILE" 2>/dev/null && line+="$ts $p usage $v"$'\n'
			while read -r k v; do
				[ "$k" = oom_kill ] && line+="$ts $p oom_kill_local $v"$'\n'
			done <"$d/$EVENTS_FILE" 2>/dev/null
			printf '%s' "$line"
		done
	done >"$T/snapshots"
}

snapshot_loop &
snap_pid=$!
start_daemon "$dir"
check "collectd wrote 5 samples of the root's anon" \
	wait_rows "csv_file '$dir' root bytes-anon" 5 20
sleep 0.5
touch "$T/stop-snapshots"
wait "$snap_pid"
stop_daemon
check "collectd exited 0 on SIGTERM (rc=$daemon_rc)" test "$daemon_rc" = 0
# The host's tree is live (a command may get a cgroup of its own, removed
# when it ends): the cgroups listed before the daemon started and still
# there after it stopped existed through every sample, so each must have
# been sampled; one that left between the two listings may have gone before
# the first sample.
list_cgroups | LC_ALL=C comm -12 <(printf '%s\n' "${CGROUPS[@]}") - >"$T/stayed"

# the log: backend chosen, nothing at error level from the plugin
check "log says which backend and why" grep -q '\[notice\] memcg_bpf plugin: backend ' "$dir/collectd.log"
check "no error lines from memcg_bpf" bash -c "! grep -q '\[error\] memcg_bpf' '$dir/collectd.log'"
if [ "$CGV" = 1 ]; then
	check "'kernel' (no v1 equivalent) is a warning, not an error" \
		grep -q "\[warning\] memcg_bpf plugin: stat 'kernel' is not sampled" "$dir/collectd.log"
fi

# csv rows: instance stat time value
: >"$T/rows"
for d in "$dir/csv/$HOSTNAME_CD"/memcg_bpf-*; do
	inst=${d##*/memcg_bpf-}
	[ "$inst" = self ] && continue
	for f in "$d"/*; do
		base=${f##*/}
		base=${base%-????-??-??}
		stat=${base#*-}
		tail -n +2 "$f" | awk -F, -v i="$inst" -v s="$stat" '{ print i, s, $1, $2 }' >>"$T/rows"
	done
done
stayed=$(wc -l <"$T/stayed")
check "every cgroup directory there through the run ($stayed of ${#CGROUPS[@]} listed) has a csv directory" bash -c '
	while IFS=$(printf "\t") read -r inst path; do
		grep -qxF -- "$path" "'"$T/stayed"'" || continue
		[ -d "'"$dir/csv/$HOSTNAME_CD"'/memcg_bpf-$inst" ] || { echo "# missing $inst ($path)"; exit 1; }
	done <"'"$T/instances"'"'

fields=$(for s in "${!FIELD[@]}"; do printf '%s=%s ' "$s" "${FIELD[$s]}"; done)
# compare ROWS REPORT [EXACT]: prints "exact live bad unjudged"; EXACT gets
# the line numbers of the rows judged exactly (idle)
compare() {
awk -v window="$WINDOW" -v fields="$fields" -v exactlist="${3:-/dev/null}" '
	BEGIN {
		n = split(fields, a, " ")
		for (i = 1; i <= n; i++) { split(a[i], kv, "="); field["stat:" kv[2]] = kv[1] }
	}
	FILENAME ~ /instances$/ { split($0, p, "\t"); path[p[1]] = p[2]; next }
	FILENAME ~ /snapshots$/ {
		s = $3
		if (s in field) s = field[s]
		else if (s != "usage" && s != "oom_kill_local") next
		k = $2 SUBSEP s
		cnt[k]++; ts[k, cnt[k]] = $1; val[k, cnt[k]] = $4
		next
	}
	{
		inst = $1; stat = $2; t = $3; v = $4 + 0
		# a cgroup made after the listing (the host is live: every command run
		# on it may get a cgroup of its own): nothing to judge it by. Naming is
		# checked on the listed ones ("every cgroup directory ... has a csv
		# directory"), so a wrong name cannot hide here.
		if (!(inst in path)) { unjudged++; next }
		k = path[inst] SUBSEP stat
		lo = ""; hi = ""; before = 0; after = 0
		for (i = 1; i <= cnt[k]; i++) {
			if (ts[k, i] < t - window || ts[k, i] > t + window) continue
			x = val[k, i] + 0
			if (ts[k, i] <= t) before = 1; else after = 1
			if (lo == "" || x < lo) lo = x
			if (hi == "" || x > hi) hi = x
		}
		if (!before || !after) { unjudged++; next }
		if (lo == hi) {
			if (v == lo) { exact++; print FNR > exactlist }
			else { printf "%s %s @%s: %.0f, kernel said %.0f (idle)\n", path[inst], stat, t, v, lo > report; bad++ }
			next
		}
		bytes = (stat == "pgfault" || stat == "pgmajfault" || stat == "oom_kill_local") ? 0 : 1
		slack = hi * 0.01 + (bytes ? 262144 + (hi - lo) : 64)
		if (v >= lo - slack && v <= hi + slack) live++
		else { printf "%s %s @%s: %.0f outside [%.0f, %.0f] +- %.0f (live)\n", path[inst], stat, t, v, lo, hi, slack > report; bad++ }
	}
	END { printf "%d %d %d %d\n", exact, live, bad, unjudged }
' report="$2" "$T/instances" "$T/snapshots" "$1"
}
read -r exact live bad unjudged < <(compare "$T/rows" "$T/report" "$T/exact-rows")
total=$((exact + live + bad))
echo "# compared $total csv values with $(wc -l <"$T/snapshots") kernel readings: $exact exact (idle), $live within the live range, $bad wrong; $unjudged without a reading before and after"
[ -s "$T/report" ] && sed 's/^/#   /' "$T/report" | head -20
check "at least $((${#CGROUPS[@]} * 4 * 4)) values compared ($total)" test "$total" -ge $((${#CGROUPS[@]} * 4 * 4))
check "no csv value disagrees with the kernel ($bad)" test "$bad" -eq 0
# the comparison can fail: the same rows with one value off by 64 MiB, one
# judged exactly (a busy cgroup's live range could take 64 MiB in its slack)
control=$(head -n 1 "$T/exact-rows")
awk -v n="${control:-1}" 'NR == n { $4 += 67108864 } { print }' "$T/rows" >"$T/rows-broken"
read -r _ _ bad_control _ < <(compare "$T/rows-broken" /dev/null)
check "control: one value off by 64 MiB is caught ($bad_control wrong)" test "$bad_control" -eq 1
check "some values are idle and compared exactly ($exact)" test "$exact" -gt 0

# self-observation
self=self
check "self: the backend's gauge is 1 (backend-text, backend-bpf_core or backend-bpf)" bash -c "
	tail -n 1 '$(csv_file "$dir" self gauge-backend-text)' | grep -q ',1\.0' ||
	tail -n 1 '$(csv_file "$dir" self gauge-backend-bpf_core)' | grep -q ',1\.0' ||
	tail -n 1 '$(csv_file "$dir" self gauge-backend-bpf)' | grep -q ',1\.0'"
# cgroups_seen of the last sample: at least the cgroups there through the
# run, and exactly the number of cgroups whose anon that sample dispatched
seen_row=$(tail -n 1 "$(csv_file "$dir" $self count-cgroups_seen)")
seen=$(printf '%s\n' "$seen_row" | cut -d, -f2)
dispatched=$(cat "$dir/csv/$HOSTNAME_CD"/memcg_bpf-*/bytes-anon-* |
	awk -F, -v t="${seen_row%%,*}" '$1 == t { n++ } END { print n + 0 }')
check "self: cgroups_seen ($seen) is the number of cgroups in its sample's rows ($dispatched), at least the $stayed there through the run" \
	awk -v a="${seen:-0}" -v d="$dispatched" -v s="$stayed" 'BEGIN { exit !(a == d && a >= s && a > 0) }'
check "self: sample duration is a positive number of seconds under 1" \
	awk -F, 'NR > 1 { if ($2 <= 0 || $2 >= 1) bad = 1; n++ } END { exit bad || !n }' \
	"$(csv_file "$dir" $self duration-sample)"
check "self: no sample errors" \
	awk -F, 'NR > 1 && $2 != 0 { bad = 1 } END { exit bad }' "$(csv_file "$dir" $self derive-sample_errors)"
# one row per interval: no gap missed or doubled, and N rows span N-1 s; a
# sample the scheduler started late (a busy CI host) moves one row, not the grid
check "rows are 1 s apart (global Interval 1)" \
	awk -F, 'NR > 2 { d = $1 - prev; if (d < 0.5 || d > 1.5) bad = 1 }
		NR == 2 { first = $1 } NR > 1 { prev = $1; n++ }
		END { exit bad || n < 2 || (prev - first) < n - 1.5 || (prev - first) > n - 0.5 }' \
	"$(csv_file "$dir" root bytes-anon)"
check "types: bytes-anon and derive-pgfault exist for the root" \
	test -f "$(csv_file "$dir" root bytes-anon)" -a -f "$(csv_file "$dir" root derive-pgfault)"

# ValuesPerCgroup: the same stats as one value list per cgroup (type
# "memcg_bpf", one data source per stat, registered at init). The csv
# plugin writes one file per cgroup whose header names the stats; every
# value is judged against the kernel's files as above. The text backend:
# the root's list is what is checked, and only text reads the v1 root's
# usage and oom_kill (bpf-core reads memory.stat alone at the hierarchy's
# root; a list missing a counter goes value by value).
rm -f "$T/stop-snapshots"
snapshot_loop &
snap_pid=$!
dir=$(write_conf per-cgroup 1 "" "
  Backend \"text\"
  CgroupRoot \"$CGROUP_ROOT\"
  Stat $(for s in $STATS; do printf '"%s" ' "$s"; done)
  ValuesPerCgroup true
")
start_daemon "$dir"
check "ValuesPerCgroup: collectd wrote 5 samples of the root" \
	wait_rows "csv_file '$dir' root memcg_bpf" 5 20
sleep 0.5
touch "$T/stop-snapshots"
wait "$snap_pid"
stop_daemon
check "ValuesPerCgroup: collectd exited 0 (rc=$daemon_rc)" test "$daemon_rc" = 0
check "ValuesPerCgroup: no error lines" bash -c "! grep -q '\[error\]' '$dir/collectd.log'"
root_list=$(csv_file "$dir" root memcg_bpf)
want_header="epoch$(for s in $STATS; do printf ',%s' "$s"; done)"
check "ValuesPerCgroup: the header names every stat in order" \
	test "$(head -n 1 "$root_list")" = "$want_header"
check "ValuesPerCgroup: no per-value files" test ! -e "$(csv_file "$dir" root bytes-anon)"
: >"$T/rows"
for d in "$dir/csv/$HOSTNAME_CD"/memcg_bpf-*; do
	inst=${d##*/memcg_bpf-}
	[ "$inst" = self ] && continue
	for f in "$d"/memcg_bpf-*; do
		awk -F, -v i="$inst" 'NR == 1 { for (c = 2; c <= NF; c++) name[c] = $c; next }
			{ for (c = 2; c <= NF; c++) if ($c != "nan") print i, name[c], $1, $c }' "$f" >>"$T/rows"
	done
done
read -r exact live bad unjudged < <(compare "$T/rows" "$T/report" "$T/exact-rows")
total=$((exact + live + bad))
echo "# ValuesPerCgroup: compared $total values: $exact exact (idle), $live within the live range, $bad wrong; $unjudged unjudged"
[ -s "$T/report" ] && sed 's/^/#   /' "$T/report" | head -20
check "ValuesPerCgroup: at least $((${#CGROUPS[@]} * 4 * 4)) values compared ($total)" \
	test "$total" -ge $((${#CGROUPS[@]} * 4 * 4))
check "ValuesPerCgroup: no value disagrees with the kernel ($bad)" test "$bad" -eq 0
finish
