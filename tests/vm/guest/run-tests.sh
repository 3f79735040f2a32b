# SPDX-License-Identifier: GPL-2.0-only
# The guest's acceptance tests: run-tests.sh SET (the sets at the end)
#   kfunc, kfunc_oom, mixin  a kernel with the memcg kfuncs (Linux >= 7.0)
#   fallback  a kernel without them (6.12): bpf-core, and text
#   bookworm  Debian 12's kernel (6.1): bpf-core, and text
#   matrix    any kernel of a layout family (tests/vm/kernels.list): every
#             stat and per-node stat, bpf on 7.x and bpf-core before
#   v1        the memory controller on cgroup v1 (6.1: the later Debian
#             kernels have no CONFIG_MEMCG_V1): bpf-core against text
#   numa, numa_core  NUMA nodes (numa.sh): per-node stats on 7.x (bpf,
#             text, collectd into VictoriaMetrics) and on 6.x (bpf-core)
. /vmtest/lib.sh
. /vmtest/tree.sh
. /vmtest/receivers.sh
. /vmtest/rw_values.sh
. /vmtest/bench.sh
. /vmtest/oom.sh
. /vmtest/identity.sh
. /vmtest/kube_mixin.sh
. /vmtest/backends.sh
. /vmtest/hostile.sh
. /vmtest/budget.sh
. /vmtest/numa.sh
. /vmtest/allocinfo.sh


# ---------------------------------------------------------------- shared

t_tree_big() {
	build_tree 10 10 10 5 || return 1
	add_odd_names || return 1
	ncg=$(count_cgroups "$TREE")
	if [ "$ncg" -lt 1000 ]; then why "only $ncg cgroups below $TREE"; return 1; fi
	set_limits || return 1
	start_loads 2 1 || return 1
	if [ "$NLOADS" -lt 50 ]; then why "only $NLOADS loads"; return 1; fi
	stop_loads
	# Each load charged its leaf at least its 2 MiB of anon memory.
	low=0
	while IFS= read -r leaf; do
		cur=$(cat "$leaf/memory.current")
		if [ "$cur" -lt 2097152 ]; then low=$((low + 1)); echo "$leaf: memory.current $cur"; fi
	done < "$WORK/leaves"
	if [ $low -gt 0 ]; then why "$low load leaves have memory.current < 2 MiB"; return 1; fi
	info "$ncg cgroups below /vt (depth up to 9, a 255-byte name; $ODD_NOTE; $LIMITS_NOTE), $NLOADS loads stopped"
}

# tree_loaded N1 N2 N3 CHAINS MIN: build_tree N1 N2 N3 CHAINS with the odd
# names, at least MIN cgroups, limits set, loads run and stopped.
tree_loaded() {
	build_tree "$1" "$2" "$3" "$4" || return 1
	add_odd_names || return 1
	ncg=$(count_cgroups "$TREE")
	if [ "$ncg" -lt "$5" ]; then why "only $ncg cgroups below $TREE"; return 1; fi
	set_limits || return 1
	start_loads 2 1 || return 1
	stop_loads
	info "$(uname -m): $ncg cgroups below /vt ($ODD_NOTE; $LIMITS_NOTE), $NLOADS loads stopped"
}
t_tree_small() { tree_loaded 5 9 0 0 50; }

# checked MODE ARGS...: check_values MODE ARGS with its output shown, its
# summary line reported as INFO and, when it fails, its first complaints as
# the reason.
checked() {
	check_values "$@" > "$WORK/check" 2>&1
	rc=$?
	cat "$WORK/check"
	info "$(grep '^check_values [a-z]*:' "$WORK/check")"
	[ $rc -eq 0 ] && return 0
	why "$(grep -v "^check_values $1:" "$WORK/check" | head -n 3 | tr '\n' ' ' | cut -c 1-300)"
	return 1
}

# values BACKEND MIN: one sample of all stats against cgroupfs.
values() {
	sample --backend "$1" --stats all --format json --count 1
	rc=$?
	cp "$WORK/out" "$WORK/values-$1.json"
	if [ $rc -ne 0 ]; then why "exit $rc: $(first_line "$WORK/err")"; return 1; fi
	if ! grep -q "\"backend\":\"$1\"" "$WORK/out"; then
		why "records do not say backend $1"; return 1
	fi
	checked fs -n "$2" "$CG" "$WORK/out" || return 1
	# The paths as JSON, for the host's strict parser (tests/vm/check_json.py).
	memcg-bpf-sample --backend "$1" --stats anon --format json --count 1 > "$WORK/paths.json" 2>> "$WORK/err" ||
		{ why "paths sample failed: $(first_line "$WORK/err")"; return 1; }
	export_data "json-$1" "$WORK/paths.json"
}

# ---------------------------------------------------------------- kfunc set

t_values_bpf() { values bpf 1000; }
t_values_text() { values text 1000; }

# vs_text BACKEND: the values of BACKEND and text (the two tests before) agree.
vs_text() {
	for b in "$1" text; do
		if ! [ -s "$WORK/values-$b.json" ]; then why "values_$b left no output to compare"; return 1; fi
	done
	checked cmp "$WORK/values-$1.json" "$WORK/values-text.json"
}
t_values_bpf_vs_text() { vs_text bpf; }

# ---------------------------------------------------------------- collectd

COLLECTD=/usr/sbin/collectd
COLLECTD_PLUGINS=/usr/lib/collectd
CD_HOST=vmtest

# have_collectd: the daemon, the plugins and types.db are in the initramfs
# (tests/vm/run.sh puts them there when the host has them).
have_collectd() {
	for f in "$COLLECTD" "$COLLECTD_PLUGINS/memcg_bpf.so" "$COLLECTD_PLUGINS/csv.so" \
		"$COLLECTD_PLUGINS/logfile.so" /usr/share/collectd/types.db; do
		if [ ! -f "$f" ]; then
			why "$f is not in the initramfs (the host lacks collectd-core or the plugin was not built)"
			return 1
		fi
	done
}

# collectd_conf DIR INTERVAL WRITER PLUGIN_BODY [WRITER_BODY]: a foreground
# collectd configuration in DIR/collectd.conf with logfile
# (DIR/collectd.log), the write plugin WRITER (csv: into DIR/csv;
# bench_sink: marks in DIR/marks) with WRITER_BODY's lines added to its
# <Plugin> block, and memcg_bpf with PLUGIN_BODY in its <Plugin> block.
collectd_conf() {
	case $3 in
	csv) mkdir -p "$1/csv"; writer="<Plugin csv>
  DataDir \"$1/csv\"
  StoreRates false
</Plugin>" ;;
	bench_sink) writer="<Plugin bench_sink>
  File \"$1/marks\"
${5:-}
</Plugin>" ;;
	*) why "collectd_conf: unknown writer $3"; return 1 ;;
	esac
	cat > "$1/collectd.conf" <<EOF
Hostname "$CD_HOST"
FQDNLookup false
BaseDir "$1"
PIDFile "$1/collectd.pid"
PluginDir "$COLLECTD_PLUGINS"
TypesDB "/usr/share/collectd/types.db"
Interval $2
ReadThreads 2
WriteThreads 1
LoadPlugin logfile
<Plugin logfile>
  LogLevel info
  File "$1/collectd.log"
  Timestamp true
  PrintSeverity true
</Plugin>
LoadPlugin $3
$writer
LoadPlugin memcg_bpf
<Plugin memcg_bpf>
$4
</Plugin>
EOF
}

# wait_marks DIR N PID SECS WHO: waits up to SECS for collectd PID (run by
# collectd_conf DIR ... bench_sink) to write N marks; when it does not (or
# dies), shows its output, gives WHO's reason and kills it.
wait_marks() {
	t=0
	while [ "$(wc -l < "$1/marks" 2>/dev/null || echo 0)" -lt "$2" ]; do
		t=$((t + 1))
		if [ $t -gt $(($4 * 10)) ] || ! kill -0 "$3" 2>/dev/null; then
			cat "$1/stdout" "$1/collectd.log"
			why "$5: no $2 samples in $4 s ($(wc -l < "$1/marks" 2>/dev/null) marks)"
			kill -KILL "$3" 2>/dev/null
			return 1
		fi
		sleep 0.1
	done
}

# stop_checked PID DIR BACKEND WHO: stops collectd PID (configured by
# collectd_conf DIR) and shows its log; fails, giving WHO's reason, unless it
# exited 0, logged no error and said it ran backend BACKEND.
stop_checked() {
	stop_collectd "$1"
	echo "---- collectd.log"
	cat "$2/collectd.log" "$2/stdout"
	if [ "$CD_RC" != 0 ]; then why "$4: collectd exit status $CD_RC after SIGTERM"; return 1; fi
	err=$({ grep -i '\[error\]' "$2/collectd.log"; grep -i 'error' "$2/stdout"; } | head -n 1)
	if [ -n "$err" ]; then why "$4: $(echo "$err" | cut -c 1-200)"; return 1; fi
	if ! grep -q "memcg_bpf plugin: backend $3" "$2/collectd.log"; then
		why "$4: the log does not say backend $3"; return 1
	fi
}

# csv_rows FILE: data rows of a csv file (0 when missing).
csv_rows() {
	if [ -f "$1" ]; then echo $(($(wc -l < "$1") - 1)); else echo 0; fi
}
# csv_last DIR PLUGIN_INSTANCE TYPE-TYPE_INSTANCE: the last value written.
csv_last() {
	tail -n 1 "$1/csv/$CD_HOST/memcg_bpf-$2/$3"-* 2>/dev/null | cut -d, -f2
}

# stop_collectd PID: SIGTERM, then up to 30 s for it to exit; sets CD_RC to
# its exit status ("killed" when it had to be). Not in a subshell: only this
# shell can reap the daemon (a zombie still answers kill -0).
stop_collectd() {
	kill -TERM "$1"
	t=0
	while [ "$(cut -d' ' -f3 "/proc/$1/stat" 2>/dev/null)" != Z ] && kill -0 "$1" 2>/dev/null; do
		t=$((t + 1))
		if [ $t -gt 300 ]; then
			for task in /proc/"$1"/task/*; do
				echo "collectd thread ${task##*/} $(cat "$task/comm") state $(cut -d' ' -f3 "$task/stat") wchan $(cat "$task/wchan")"
				cat "$task/stack"
			done
			kill -KILL "$1"
			wait "$1"
			CD_RC=killed
			return
		fi
		sleep 0.1
	done
	wait "$1"
	CD_RC=$?
}

# collectd_values CONFIG_BACKEND BACKEND MIN: the real collectd daemon with
# Backend CONFIG_BACKEND on the tree of tree_1000 / tree_50 (their loads are
# stopped, so every page counter is idle); the log must say "backend
# BACKEND" and at least MIN cgroups be dispatched. After a few intervals it
# is stopped, and the last value csv wrote for every cgroup
# and stat must equal memory.stat / memory.current / memory.events read right
# after. check_values finds each cgroup's csv directory by the plugin's own
# plugin_instance rule (plugin/series/instance_name.c linked into it), for every
# cgroup including the ones whose names need escaping.
CD_STATS="anon file kernel shmem file_mapped file_dirty slab sock pgfault pgmajfault workingset_refault_file usage max oom oom_kill"
collectd_values() {
	have_collectd || return 77
	d=$WORK/collectd-$1
	rm -rf "$d"
	mkdir -p "$d"
	stats=$(for s in $CD_STATS; do printf '"%s" ' "$s"; done)
	collectd_conf "$d" 5 csv "  Backend \"$1\"
  CgroupRoot \"$CG\"
  Stat $stats
  SelfInterval 0" || { why "cannot write the configuration"; return 1; }
	ncg=$(count_cgroups "$CG")
	start=$(date +%s)
	"$COLLECTD" -f -C "$d/collectd.conf" > "$d/stdout" 2>&1 &
	cpid=$!
	# The first sample written whole: its self values (every read's:
	# SelfInterval 0) come after its cgroups' values, and one write thread
	# writes in order. Waiting for more samples measured the csv writer:
	# 17,000 values an interval, a file opened for each, which under TCG
	# with the host's other tests beside the VM falls behind for good. The
	# deadline only catches a hang; speed is make bench's.
	deadline=$((start + ${VMTEST_CD_SAMPLES_SECONDS:-360}))
	self_csv() { ls "$d/csv/$CD_HOST/memcg_bpf-self/count-cgroups_selected"-* 2>/dev/null | head -n 1; }
	while [ "$(csv_rows "$(self_csv)")" -lt 1 ]; do
		if ! kill -0 $cpid 2>/dev/null; then
			wait $cpid
			cdrc=$?
			cat "$d/stdout" "$d/collectd.log"
			dmesg | tail -n 20
			why "collectd died after $(($(date +%s) - start)) s (status $cdrc$(dmesg | grep -q 'Killed process.*collectd' && echo ', OOM-killed')) before its first sample was written ($(find "$d/csv" -type f | wc -l) csv files)"
			return 1
		fi
		if [ "$(date +%s)" -gt $deadline ]; then
			cat "$d/stdout" "$d/collectd.log"
			why "no sample written in $((deadline - start)) s ($(find "$d/csv" -type f | wc -l) csv files): $(grep -iE 'error' "$d/collectd.log" "$d/stdout" | head -n 1 | cut -c 1-200)"
			kill -KILL $cpid 2>/dev/null
			return 1
		fi
		sleep 0.5
	done
	stop_collectd $cpid
	rc=$CD_RC
	secs=$(($(date +%s) - start))
	check_values csv -n "$3" "$CG" "$d/csv/$CD_HOST" "$(echo "$CD_STATS" | tr ' ' ,)" > "$WORK/check" 2>&1
	crc=$?
	cat "$WORK/check"
	echo "---- collectd stdout/stderr"
	cat "$d/stdout"
	echo "---- collectd.log"
	cat "$d/collectd.log"
	info "collectd ran ${secs}s (Interval 5), exit $rc; $(grep '^check_values [a-z]*:' "$WORK/check")"
	backend=$(grep 'memcg_bpf plugin: backend ' "$d/collectd.log" | head -n 1 | sed 's/.*\] memcg_bpf/memcg_bpf/')
	info "log: ${backend:-no backend line}"
	selected=$(csv_last "$d" self count-cgroups_selected)
	selected=${selected%%.*}
	values=$(csv_last "$d" self count-values_dispatched)
	errors=$(cat "$d/csv/$CD_HOST/memcg_bpf-self/derive-sample_errors"-* 2>/dev/null |
		awk -F, 'NR > 1 && $2 != 0 { n++ } END { print n + 0 }')
	info "self: cgroups_selected=$selected (cgroup dirs: $ncg) values_dispatched=${values%%.*} duration_sample=$(csv_last "$d" self duration-sample)s"
	if [ "$rc" != 0 ]; then why "collectd exit status $rc after SIGTERM"; return 1; fi
	if [ $crc -ne 0 ]; then
		why "$(grep -v '^check_values csv:' "$WORK/check" | head -n 3 | tr '\n' ' ' | cut -c 1-300)"
		return 1
	fi
	case $backend in
	*"backend $2"*) ;;
	*) why "the log does not say backend $2: ${backend:-no backend line}"; return 1 ;;
	esac
	err=$({ grep -i '\[error\]' "$d/collectd.log"; grep -i 'error' "$d/stdout"; } | head -n 1)
	if [ -n "$err" ]; then why "error line: $(echo "$err" | cut -c 1-200)"; return 1; fi
	if [ "${selected:-0}" -lt "$3" ] || [ "$selected" -ne "$ncg" ]; then
		why "self: cgroups_selected=${selected:-none}, expected all $ncg cgroups (>= $3)"; return 1
	fi
	# the self gauge of backend bpf-core is backend-bpf_core: "gauge-backend-bpf-*" is bpf's file alone
	if [ "$(csv_last "$d" self "gauge-backend-$(echo "$2" | tr - _)")" != 1.000000 ]; then
		why "self: backend-$2 is not 1"; return 1
	fi
	if [ "$errors" -ne 0 ]; then why "self: $errors samples with sample_errors != 0"; return 1; fi
	rm -rf "$d/csv"
}

t_collectd_bpf() { collectd_values bpf bpf 1000; }

t_auto_selects_bpf() {
	sample --backend auto --format json --count 1
	rc=$?
	if [ $rc -ne 0 ]; then why "exit $rc: $(first_line "$WORK/err")"; return 1; fi
	if ! grep -q 'backend bpf' "$WORK/err"; then
		why "no 'backend bpf' on stderr: $(first_line "$WORK/err")"; return 1
	fi
	if ! grep -q '"backend":"bpf"' "$WORK/out" || grep -q '"backend":"text"' "$WORK/out"; then
		why "records are not all from backend bpf"; return 1
	fi
	info "$(grep 'backend bpf' "$WORK/err" | head -n 1)"
}

# sample_cost STDERR: "MEAN MAX" of the duration_us of its sample lines.
sample_cost() {
	sed -n 's/^sample [0-9]*: .*duration_us=\([0-9]*\).*/\1/p' "$1" |
		awk '{ d += $1; if ($1 > m) m = $1 } END { printf "%.0f %.0f", NR ? d / NR : 0, m }'
}

# first_sample STDERR PID: waits up to 20 s for memcg-bpf-sample PID to
# log its sample 0 in STDERR.
first_sample() {
	t=0
	until grep -q '^sample 0:' "$1"; do
		t=$((t + 1))
		if [ $t -gt 200 ] || ! kill -0 "$2" 2>/dev/null; then
			why "no first sample: $(first_line "$1")"; return 1
		fi
		sleep 0.1
	done
}

# Rename: a cgroup renamed in place keeps its id (cgroup v1's rename(2);
# cgroup2 has no rename operation and refuses it with EPERM). Between two
# samples of BACKEND, /vren/old (with a child) is renamed to "/vren/new x":
# the second sample must show the id at its new path, the child's id below
# it and no record at an old path. Where the kernel refuses the rename, both
# ids must stay where they were.
t_rename() {
	r=$CG/vren
	{ mkdir "$r" && enable_memory "$r" && mkdir "$r/old" && enable_memory "$r/old" &&
		mkdir "$r/old/child"; } || { why "cannot create $r/old/child"; return 1; }
	id=$(stat -c %i "$r/old") cid=$(stat -c %i "$r/old/child")
	memcg-bpf-sample --backend "$1" --stats anon --format json --count 2 --interval 3 \
		> "$WORK/rename.json" 2> "$WORK/rename.err" &
	cpid=$!
	first_sample "$WORK/rename.err" $cpid || return 1
	if mv "$r/old" "$r/new x" 2> "$WORK/rename.mv"; then
		new="/vren/new x" how="renamed"
	else
		new=/vren/old how="the kernel refused the rename ($(first_line "$WORK/rename.mv"))"
	fi
	wait $cpid
	rc=$?
	if [ $rc -ne 0 ]; then why "exit $rc: $(grep -v '^sample' "$WORK/rename.err" | head -n 1)"; return 1; fi
	p=$(grep "^{\"sample\":1,.*\"cgroup_id\":$id," "$WORK/rename.json" | sed -n 's/.*"path":"\([^"]*\)".*/\1/p')
	c=$(grep "^{\"sample\":1,.*\"cgroup_id\":$cid," "$WORK/rename.json" | sed -n 's/.*"path":"\([^"]*\)".*/\1/p')
	info "$1: $how; sample 1: id $id at '$p', its child $cid at '$c'"
	if [ "$p" != "$new" ] || [ "$c" != "$new/child" ]; then
		why "sample 1: id $id at '$p', child at '$c'; expected '$new' and '$new/child'"; return 1
	fi
	if [ "$new" != /vren/old ] && grep -q '^{"sample":1,.*"path":"/vren/old' "$WORK/rename.json"; then
		why "sample 1 still has a record at /vren/old"; return 1
	fi
	rmdir "$CG$new/child" "$CG$new" "$r"
}
t_rename_bpf() { t_rename bpf; }
t_rename_text() { t_rename text; }

# proc_rss PID / proc_fds PID: VmRSS (kB) and the number of open fds of PID.
proc_rss() {
	r=$(sed -n 's/^VmRSS:[[:space:]]*\([0-9]*\).*/\1/p' "/proc/$1/status" 2>/dev/null)
	echo "${r:-0}"
}
proc_fds() { ls "/proc/$1/fd" 2>/dev/null | wc -l; }

# Churn soak: for VMTEST_SOAK_SECONDS (100) guest/churn.c makes and removes
# cgroups below /vsoak as fast as it can (VMTEST_SOAK_WORKERS processes, 48
# names each re-used over and over, 24 alive per worker at any moment; the
# names include odd bytes and a 255-byte one) while
#  - memcg-bpf-sample --backend bpf --count 0 --interval 0.1 samples the
#    whole tree; its JSON (anon only) streams through a fifo into
#    check_values ids, which holds no output: every (cgroup_id, path) must
#    be one that existed (the tree at the start, or a line churn logged
#    right after its mkdir), depth must match the path, no id twice in one
#    sample, no sample without records;
#  - collectd runs memcg_bpf (Backend bpf, Interval 1, 4 stats, SelfInterval
#    0: the self values, and so bench_sink's marks, with every read) with
#    bench_sink (tests/bench/bench_sink.c: counts values, no I/O; Heap true:
#    each mark has the heap collectd holds, mallinfo2()) as its writer.
#    Before the soak a warm-up churn of VMTEST_SOAK_WARMUP_SECONDS (20)
#    grows every table to its size; collectd then reads the quiet tree
#    until it has forgotten the churned cgroups (SETTLE_MARKS reads), and
#    again after the soak.
# Pass: both stay alive and exit 0 on SIGTERM, no error line from either,
# the checker finds nothing wrong, churn made >= VMTEST_SOAK_MIN_MADE (2000)
# cgroups, collectd sampled in >= half of its intervals, neither's fd count
# grew by more than 2 from minute 1 to the end (a walk in flight holds a
# directory open), and neither leaks:
#  - collectd's heap in the quiet tree after the soak is within
#    VMTEST_SOAK_CD_HEAP_KB (64) of its heap in the quiet tree before it
#    (the median of the last three marks of each quiet spell; collectd runs
#    without glibc's per-thread cache of freed chunks, which would count as
#    in use). The quiet tree holds the same cgroups both times, so every
#    cache and table is the same size: without a leak the two read the
#    same to the kB (846 and 846 in two runs). collectd sees the cgroups
#    alive at its reads, about 9,000 in a run at 600 made a second (most
#    live under a second); a malloc() of 24 bytes leaked for each cgroup
#    it sees grew it by 295 kB.
#  - collectd's VmRSS from minute 1 to the end grew by at most
#    VMTEST_SOAK_CD_RSS_B (512) bytes per cgroup made: a leak outside
#    malloc's heap (a mapping, a thread's stack) costs a page. VmRSS is the
#    heap's high-water mark, which creeps up as live cgroups come and go
#    (up to 27 bytes per cgroup made seen), so it is no measure of a
#    smaller leak: that is the heap's.
#  - the CLI's VmRSS over the readings from minute 1 on (every 5 s), fitted
#    as the median of the slopes between every two readings (Theil-Sen: one
#    step of the allocator's does not move it, a leak that grows with the
#    churn does), is at most VMTEST_SOAK_RSS_KB_H (2048 kB an hour); it
#    holds no cache and reads flat.
# The info lines give each figure, its bound and the bytes per cgroup made.
# slope_per_hour FILE TCOL VCOL FROM: the Theil-Sen slope of column VCOL
# (kB) against column TCOL (seconds) of FILE's lines from second FROM on, in
# kB an hour (rounded): the median of the slopes between every two of them.
slope_per_hour() {
	awk -v tc="$2" -v c="$3" -v from="$4" '$tc >= from { t[n] = $tc; v[n] = $c; n++ }
		END {
			m = 0
			for (i = 0; i < n; i++)
				for (j = i + 1; j < n; j++)
					if (t[j] != t[i]) s[m++] = (v[j] - v[i]) / (t[j] - t[i])
			for (i = 1; i < m; i++) { x = s[i]; for (j = i - 1; j >= 0 && s[j] > x; j--) s[j + 1] = s[j]; s[j + 1] = x }
			med = m == 0 ? 0 : m % 2 ? s[int(m / 2)] : (s[m / 2 - 1] + s[m / 2]) / 2
			printf "%d\n", med * 3600 + (med >= 0 ? 0.5 : -0.5)
		}' "$1"
}

# per_cgroup RSS1 RSS2 MADE: the growth from RSS1 to RSS2 kB in bytes per cgroup made, for the info line.
per_cgroup() {
	[ "$3" -gt 0 ] || { echo "no cgroup made"; return; }
	echo "$((($2 - $1) * 1024 / $3)) bytes per cgroup made"
}

SETTLE_MARKS=6
# quiet_heap DIR PID: collectd PID (run by collectd_conf DIR ... bench_sink
# with Heap true) reads SETTLE_MARKS more times; QUIET_HEAP is the median
# heap (kB) of the last three of those reads.
quiet_heap() {
	n=$(wc -l < "$1/marks")
	wait_marks "$1" $((n + SETTLE_MARKS)) "$2" 120 "collectd in the quiet tree" || return 1
	QUIET_HEAP=$(tail -n 3 "$1/marks" | awk '{ print $14 }' | sort -n | sed -n 2p)
}

t_churn_soak() {
	secs=${VMTEST_SOAK_SECONDS:-100}
	warmup=${VMTEST_SOAK_WARMUP_SECONDS:-20}
	workers=${VMTEST_SOAK_WORKERS:-4}
	# The churn must be real, whatever the host lends the guest: at least
	# this many cgroups made in the run (~250-600/s on an idle host, 55/s
	# seen on a loaded one; the rate is reported, not judged).
	min_made=${VMTEST_SOAK_MIN_MADE:-2000}
	rss_bound=${VMTEST_SOAK_RSS_KB_H:-2048}
	cd_heap_bound=${VMTEST_SOAK_CD_HEAP_KB:-64}
	cd_rss_bound=${VMTEST_SOAK_CD_RSS_B:-512}
	croot=$CG/vsoak
	enable_memory "$CG" && mkdir "$croot" && enable_memory "$croot" || return 1
	# churn's worker dirs, made before check_values walks the tree: made by
	# churn, they raced that walk and could be "never created"
	k=0
	while [ $k -lt "$workers" ]; do
		mkdir "$croot/w$k" && enable_memory "$croot/w$k" || return 1
		k=$((k + 1))
	done
	created=$WORK/soak.created
	: > "$created"
	cdpid=
	if ! have_collectd; then
		info "collectd part not run: $(cat "$WORK/reason")"
		rm -f "$WORK/reason"
	elif [ ! -f "$COLLECTD_PLUGINS/bench_sink.so" ]; then
		why "bench_sink.so is not in the initramfs (tests/vm/run.sh builds it with the plugin)"
		return 1
	else
		d=$WORK/soak-collectd
		rm -rf "$d"
		mkdir -p "$d"
		collectd_conf "$d" 1 bench_sink "  Backend \"bpf\"
  CgroupRoot \"$CG\"
  Stat \"anon\" \"usage\" \"pgfault\" \"oom_kill\"
  DispatchValues ${VMTEST_SOAK_DISPATCH:-true}
  SelfInterval 0" "  Heap true" || return 1
		# no per-thread cache of freed chunks: they would count as in use
		GLIBC_TUNABLES=glibc.malloc.tcache_count=0 "$COLLECTD" -f -C "$d/collectd.conf" > "$d/stdout" 2>&1 &
		cdpid=$!
		churn -w "$workers" -n 48 -k 24 "$croot" "$WORK/soak.warmup" "$warmup" > "$WORK/soak.churn" 2>&1 ||
			{ why "warm-up churn: $(first_line "$WORK/soak.churn")"; kill -KILL $cdpid; return 1; }
		quiet_heap "$d" $cdpid || return 1
		heap1=$QUIET_HEAP
	fi
	rm -f "$WORK/soak.fifo"
	mkfifo "$WORK/soak.fifo" || { why "mkfifo failed"; return 1; }
	check_values ids "$CG" "$created" - < "$WORK/soak.fifo" > "$WORK/soak.check" 2>&1 &
	ckpid=$!
	memcg-bpf-sample --backend bpf --stats anon --count 0 --interval "${VMTEST_SOAK_INTERVAL:-0.1}" \
		--format json > "$WORK/soak.fifo" 2> "$WORK/soak.err" &
	spid=$!
	churn -w "$workers" -n 48 -k 24 -N "${VMTEST_SOAK_NICE:-0}" "$croot" "$created" "$secs" > "$WORK/soak.churn" 2>&1 &
	chpid=$!
	start=$(date +%s)
	: > "$WORK/soak.procs"
	rss1= died=
	# every 5 s: both alive? VmRSS and fds of both; minute 1 is the baseline
	while kill -0 $chpid 2>/dev/null; do
		sleep 5
		t=$(($(date +%s) - start))
		for p in $spid $cdpid; do
			kill -0 "$p" 2>/dev/null || died="${died:+$died, }pid $p at ${t}s"
		done
		[ -z "$died" ] || break
		line="$t $(proc_rss $spid) $(proc_fds $spid) $(proc_rss "${cdpid:-0}") $(proc_fds "${cdpid:-0}") $(wc -l < "$created")"
		echo "$line" >> "$WORK/soak.procs"
		if [ -z "$rss1" ] && [ $t -ge 60 ]; then
			set -- $line
			rss1=$2 fd1=$3 cdrss1=$4 cdfd1=$5 made1=$6
		fi
	done
	set -- $(tail -n 1 "$WORK/soak.procs")
	rss2=$2 fd2=$3 cdrss2=$4 cdfd2=$5 made2=$6 t2=$1
	kill -TERM $chpid 2>/dev/null
	wait $chpid
	chrc=$?
	kill -TERM $spid 2>/dev/null
	wait $spid
	src=$?
	wait $ckpid
	ckrc=$?
	made=$(wc -l < "$created")
	cdrc=none
	if [ -n "$cdpid" ]; then
		heap2=
		if [ -z "$died" ]; then
			quiet_heap "$d" $cdpid || return 1
			heap2=$QUIET_HEAP
		fi
		stop_collectd $cdpid
		cdrc=$CD_RC
	fi
	rm -f "$WORK/soak.fifo"
	echo "---- t CLI_RSS_kB CLI_fds collectd_RSS_kB collectd_fds dirs_made"
	cat "$WORK/soak.procs"
	cat "$WORK/soak.churn" "$WORK/soak.check"
	head -n 3 "$WORK/soak.err"
	tail -n 2 "$WORK/soak.err"
	[ -z "$cdpid" ] || { echo "---- collectd"; cat "$d/stdout" "$d/collectd.log"; echo "---- collectd marks"; cat "$d/marks"; }

	churn_line=$(grep '^churn: ' "$WORK/soak.churn")
	rate=$(echo "$churn_line" | sed -n 's/.*made_per_s=\([0-9]*\).*/\1/p')
	nsamples=$(grep -c '^sample [0-9]*: ' "$WORK/soak.err")
	info "${churn_line:-churn printed nothing}"
	info "memcg-bpf-sample: $nsamples samples in ${t2}s, exit $src; $(sed -n 's/^sample [0-9]*: .*cgroups=\([0-9]*\) skipped=\([0-9]*\) duration_us=\([0-9]*\).*/\1 \2 \3/p' "$WORK/soak.err" |
		awk '{ c += $1; s += $2; d += $3; if ($3 > m) m = $3 } END { if (NR) printf "per sample: %.0f cgroups, %.1f skipped (vanished before their path was found), %.0f ms mean, %.0f ms max", c / NR, s / NR, d / NR / 1000, m / 1000 }')"
	info "$(grep '^check_values ids:' "$WORK/soak.check")"
	info "VmRSS kB every 10 s, CLI: $(awk 'NR % 2 == 0 { printf "%s ", $2 }' "$WORK/soak.procs")"
	[ -z "$cdpid" ] || info "VmRSS kB every 10 s, collectd: $(awk 'NR % 2 == 0 { printf "%s ", $4 }' "$WORK/soak.procs")"
	if [ -n "$rss1" ]; then
		slope=$(slope_per_hour "$WORK/soak.procs" 1 2 60)
		info "memcg-bpf-sample VmRSS slope from minute 1: $slope kB an hour (bound $rss_bound), ${rss1} -> ${rss2} kB, fds $fd1 -> $fd2; $((made2 - made1)) cgroups made in between ($(per_cgroup "$rss1" "$rss2" $((made2 - made1))))"
		[ -z "$cdpid" ] ||
			info "collectd VmRSS from minute 1: ${cdrss1} -> ${cdrss2} kB ($(per_cgroup "$cdrss1" "$cdrss2" $((made2 - made1))), bound $cd_rss_bound; Theil-Sen slope $(slope_per_hour "$WORK/soak.procs" 1 4 60) kB an hour), fds $cdfd1 -> $cdfd2; $(wc -l < "$d/marks") samples (bench_sink marks)"
	fi
	[ -z "$cdpid" ] || [ -z "$heap2" ] ||
		info "collectd heap in the quiet tree: $heap1 kB before the soak, $heap2 kB after it (bound +$cd_heap_bound kB; $(per_cgroup "$heap1" "$heap2" "$made")); kB every 5 marks: $(awk 'NR % 5 == 0 { printf "%d ", $14 }' "$d/marks")"
	if [ -n "$died" ]; then why "died during the soak: $died (CLI $spid, collectd ${cdpid:-none})"; return 1; fi
	if [ $chrc -ne 0 ] || [ -z "$churn_line" ]; then why "churn exit $chrc: $(first_line "$WORK/soak.churn")"; return 1; fi
	if [ "$made" -lt "$min_made" ]; then why "churn made only $made cgroups (< $min_made; ${rate:-0}/s)"; return 1; fi
	if [ $src -ne 0 ]; then why "memcg-bpf-sample exit $src: $(grep -v '^sample ' "$WORK/soak.err" | tail -n 1)"; return 1; fi
	other=$(grep -vE '^sample [0-9]+: |^memcg_bpf plugin: backend bpf' "$WORK/soak.err" | head -n 1)
	if [ -n "$other" ]; then why "memcg-bpf-sample stderr: $(echo "$other" | cut -c 1-200)"; return 1; fi
	if [ $ckrc -ne 0 ]; then
		why "$(grep -v '^check_values ids:' "$WORK/soak.check" | head -n 3 | tr '\n' ' ' | cut -c 1-300)"
		return 1
	fi
	if [ -z "$rss1" ]; then why "ran ${t2}s, too short for a minute-1 baseline"; return 1; fi
	if [ "$slope" -gt "$rss_bound" ] || [ $((fd2 - fd1)) -gt 2 ]; then
		why "memcg-bpf-sample grew: VmRSS slope $slope kB an hour (bound $rss_bound; $rss1 -> $rss2 kB), fds $fd1 -> $fd2"; return 1
	fi
	[ -n "$cdpid" ] || return 0
	if [ "$cdrc" != 0 ]; then why "collectd exit status $cdrc after SIGTERM"; return 1; fi
	err=$({ grep -i '\[error\]' "$d/collectd.log"; grep -i 'error' "$d/stdout"; } | head -n 1)
	if [ -n "$err" ]; then why "collectd: $(echo "$err" | cut -c 1-200)"; return 1; fi
	# Under TCG the churn starves both vCPUs and a read can take longer than
	# the interval (collectd then skips one): it must keep sampling, not keep time.
	marks=$(wc -l < "$d/marks")
	if [ "$marks" -lt $((t2 / 2)) ]; then why "collectd sampled only $marks times in ${t2}s (Interval 1)"; return 1; fi
	if [ $((heap2 - heap1)) -gt "$cd_heap_bound" ]; then
		why "collectd leaked: its heap in the quiet tree went from $heap1 kB before the soak to $heap2 kB after it (bound +$cd_heap_bound kB; $(per_cgroup "$heap1" "$heap2" "$made"))"; return 1
	fi
	if [ $(((cdrss2 - cdrss1) * 1024)) -gt $((cd_rss_bound * (made2 - made1))) ] || [ $((cdfd2 - cdfd1)) -gt 2 ]; then
		why "collectd grew: VmRSS $cdrss1 -> $cdrss2 kB from minute 1, $(per_cgroup "$cdrss1" "$cdrss2" $((made2 - made1))) (bound $cd_rss_bound), fds $cdfd1 -> $cdfd2"; return 1
	fi
}

t_unknown_stat() {
	sample --stats anonn --count 1
	rc=$?
	if [ $rc -ne 2 ]; then why "exit $rc, expected 2"; return 1; fi
	if ! grep -q "anonn" "$WORK/err"; then why "stderr does not name 'anonn': $(first_line "$WORK/err")"; return 1; fi
	# A suggestion: "anon" somewhere once 'anonn' itself is taken out.
	if ! sed 's/anonn//g' "$WORK/err" | grep -q 'anon'; then
		why "no nearest name containing 'anon': $(first_line "$WORK/err")"; return 1
	fi
	if [ -s "$WORK/out" ]; then why "printed data despite the usage error"; return 1; fi
	info "$(grep anonn "$WORK/err" | head -n 1 | cut -c 1-200)"
}

t_unprivileged_bpf() {
	runas 65534 memcg-bpf-sample --backend bpf --format json --count 1 > "$WORK/out" 2> "$WORK/err"
	rc=$?
	cat "$WORK/err"
	if [ $rc -eq 0 ]; then why "exit 0 as uid 65534"; return 1; fi
	if [ $rc -ge 126 ]; then why "runas failed (exit $rc): $(first_line "$WORK/err")"; return 1; fi
	if ! grep -qE 'CAP_BPF|CAP_PERFMON|CAP_SYS_ADMIN' "$WORK/err"; then
		why "exit $rc but no capability named: $(first_line "$WORK/err")"; return 1
	fi
	info "exit $rc: $(grep -E 'CAP_' "$WORK/err" | head -n 1 | cut -c 1-200)"
}

# The tree outgrows what the BPF backend sized its output for (its backend
# line says "room for N cgroups") between two samples of one run: the second
# sample must still report every cgroup with the right values.
t_values_bpf_grow() {
	memcg-bpf-sample --backend bpf --stats all --format json --count 2 --interval 25 \
		> "$WORK/grow.json" 2> "$WORK/grow.err" &
	cpid=$!
	first_sample "$WORK/grow.err" $cpid || return 1
	before=$(count_cgroups "$CG")
	room=$(sed -n 's/.*room for \([0-9]*\) cgroups.*/\1/p' "$WORK/grow.err" | head -n 1)
	# Enough new cgroups to pass the room (2600 in all when it says nothing).
	want=${room:-2400}
	need=$((want - before + 200))
	[ $need -gt 0 ] || need=200
	mkdir "$CG/vt2" && enable_memory "$CG/vt2" || { why "cannot create $CG/vt2"; return 1; }
	a=0
	while [ $need -gt 0 ]; do
		d=$CG/vt2/g$a
		mkdir "$d" && enable_memory "$d" || { why "mkdir/enable $d failed"; return 1; }
		(cd "$d" && mkdir $(seq 0 69 | sed 's/^/h/')) || { why "mkdir below $d failed"; return 1; }
		need=$((need - 71))
		a=$((a + 1))
	done
	after=$(count_cgroups "$CG")
	info "sample 0: $before cgroups, room for ${room:-?}; sample 1: $after cgroups"
	wait $cpid
	rc=$?
	if [ $rc -ne 0 ]; then why "exit $rc: $(grep -v '^sample' "$WORK/grow.err" | tail -n 1)"; return 1; fi
	if [ "$(grep -c '^sample ' "$WORK/grow.err")" -ne 2 ]; then why "not 2 samples"; return 1; fi
	checked fs -n "$after" "$CG" "$WORK/grow.json"
}

# Memory: the steady RSS of the CLI and of collectd with each backend on the
# whole tree (tree_1000's, ~1,000 cgroups, default stats). The CLI samples
# every second and is measured after sample 5; collectd runs memcg_bpf with
# DispatchValues false (sampling only: no per-cgroup value lists in
# collectd's cache) and bench_sink (it only counts the plugin's self values,
# here with every read: SelfInterval 0; its marks say how many samples were
# taken), Interval 1, and is measured
# after 8 samples. Fails when collectd's VmRSS with the bpf backend exceeds
# the text backend's by more than VMTEST_RSS_MARGIN_KB (5120 kB).

# rss_line PID: "VmRSS VmHWM RssAnon RssFile RssShmem" of PID in kB.
rss_line() {
	for k in VmRSS VmHWM RssAnon RssFile RssShmem; do
		sed -n "s/^$k:[[:space:]]*\([0-9]*\).*/\1/p" "/proc/$1/status"
	done | tr '\n' ' '
}

# rss_cli BACKEND: the CLI's rss_line after its sample 5, into $WORK/rss-cli-BACKEND.
rss_cli() {
	memcg-bpf-sample --backend "$1" --count 8 --interval 1 > /dev/null 2> "$WORK/rss-cli.err" &
	cpid=$!
	t=0
	until grep -q '^sample 5:' "$WORK/rss-cli.err"; do
		t=$((t + 1))
		if [ $t -gt 600 ] || ! kill -0 $cpid 2>/dev/null; then
			why "CLI $1: no sample 5: $(first_line "$WORK/rss-cli.err")"; kill -KILL $cpid 2>/dev/null; return 1
		fi
		sleep 0.1
	done
	rss_line $cpid > "$WORK/rss-cli-$1"
	wait $cpid
	rc=$?
	if [ $rc -ne 0 ]; then why "CLI $1: exit $rc: $(grep -v '^sample' "$WORK/rss-cli.err" | head -n 1)"; return 1; fi
	grep -q "backend=$1 " "$WORK/rss-cli.err" || { why "CLI $1: samples not from backend $1"; return 1; }
}

# rss_collectd BACKEND: collectd's rss_line after 8 samples, into $WORK/rss-cd-BACKEND.
rss_collectd() {
	d=$WORK/rss-collectd-$1
	rm -rf "$d"
	mkdir -p "$d"
	collectd_conf "$d" 1 bench_sink "  Backend \"$1\"
  CgroupRoot \"$CG\"
  DispatchValues false
  SelfInterval 0" || return 1
	"$COLLECTD" -f -C "$d/collectd.conf" > "$d/stdout" 2>&1 &
	cpid=$!
	wait_marks "$d" 8 $cpid 60 "collectd $1" || return 1
	rss_line $cpid > "$WORK/rss-cd-$1"
	stop_checked $cpid "$d" "$1" "collectd $1" || return 1
	rm -rf "$d"
}

t_rss() {
	have_collectd || return 77
	if [ ! -f "$COLLECTD_PLUGINS/bench_sink.so" ]; then why "bench_sink.so is not in the initramfs"; return 1; fi
	margin=${VMTEST_RSS_MARGIN_KB:-5120}
	ncg=$(count_cgroups "$CG")
	for b in text bpf; do
		rss_cli $b || return 1
		rss_collectd $b || return 1
	done
	info "$ncg cgroups, default stats; kB: VmRSS VmHWM RssAnon RssFile RssShmem"
	for b in text bpf; do
		info "CLI $b (after sample 5, --interval 1): $(cat "$WORK/rss-cli-$b")"
		info "collectd $b (after 8 samples, DispatchValues false): $(cat "$WORK/rss-cd-$b")"
	done
	# shellcheck disable=SC2046 # the fields of rss_line
	set -- $(cat "$WORK/rss-cd-text")
	text=$1
	# shellcheck disable=SC2046
	set -- $(cat "$WORK/rss-cd-bpf")
	bpf=$1
	info "collectd steady VmRSS: bpf - text = $((bpf - text)) kB (bound $margin kB)"
	if [ $((bpf - text)) -gt "$margin" ]; then
		why "collectd's VmRSS with the bpf backend ($bpf kB) exceeds the text backend's ($text kB) by $((bpf - text)) kB (> $margin)"
		return 1
	fi
}

# ---------------------------------------------------------------- fallback set

t_bpf_needs_kfunc() {
	sample --backend bpf --format json --count 1
	rc=$?
	if [ $rc -eq 0 ]; then why "exit 0 on a kernel without the memcg kfuncs"; return 1; fi
	if ! grep -q 'bpf_get_mem_cgroup' "$WORK/err"; then
		why "exit $rc, no kfunc named: $(first_line "$WORK/err")"; return 1
	fi
	info "exit $rc: $(grep bpf_get_mem_cgroup "$WORK/err" | head -n 1 | cut -c 1-200)"
}


# ---------------------------------------------------------------- bpf-core (fallback and bookworm sets)

# Without the kfuncs auto picks bpf-core, saying why: the missing kfunc, the
# counter layout it found and how it flushes.
t_auto_selects_core() {
	sample --backend auto --format json --count 1
	rc=$?
	if [ $rc -ne 0 ]; then why "exit $rc: $(first_line "$WORK/err")"; return 1; fi
	line=$(grep 'backend bpf-core' "$WORK/err" | head -n 1)
	if [ -z "$line" ]; then why "no 'backend bpf-core' on stderr: $(first_line "$WORK/err")"; return 1; fi
	for want in bpf_get_mem_cgroup memcg_vmstats flushed; do
		case $line in
		*"$want"*) ;;
		*) why "the backend line does not name $want: $line"; return 1 ;;
		esac
	done
	if ! grep -q '"backend":"bpf-core"' "$WORK/out" || grep -qE '"backend":"(bpf|text)"' "$WORK/out"; then
		why "records are not all from backend bpf-core"; return 1
	fi
	info "$line"
}

t_values_core() { values bpf-core 1000; }
t_values_core_vs_text() { vs_text bpf-core; }
t_collectd_auto_core() { collectd_values auto bpf-core 1000; }

# A kernel whose layout bpf-core gets wrong (a build with two slots of its map
# swapped): the start-up check names the stats, auto falls back to text and
# the values are right; configured explicitly, the two are left out.
t_core_corrupt() {
	bin=memcg-bpf-sample-corrupt
	if ! command -v $bin > /dev/null; then why "$bin is not in the initramfs"; return 1; fi
	$bin --backend auto --stats anon,file,shmem,pgfault --format json --count 1 > "$WORK/out" 2> "$WORK/err"
	rc=$?
	cat "$WORK/err"
	if [ $rc -ne 0 ]; then why "auto: exit $rc: $(first_line "$WORK/err")"; return 1; fi
	line=$(grep 'backend text' "$WORK/err" | head -n 1)
	case $line in
	*"disagree"*"(anon, file)"*) ;;
	*) why "auto did not fall back to text naming anon and file: ${line:-no backend text line}"; return 1 ;;
	esac
	if ! grep -q '"backend":"text"' "$WORK/out" || grep -q '"backend":"bpf-core"' "$WORK/out"; then
		why "auto: records are not all from backend text"; return 1
	fi
	checked fs -n 1000 "$CG" "$WORK/out" || return 1
	info "$line"
	$bin --backend bpf-core --stats anon,file,shmem,pgfault --format json --count 1 > "$WORK/out" 2> "$WORK/err"
	rc=$?
	cat "$WORK/err"
	if [ $rc -ne 0 ]; then why "bpf-core: exit $rc: $(first_line "$WORK/err")"; return 1; fi
	if ! grep -q 'disagree with memory.stat, not sampled: anon, file' "$WORK/err"; then
		why "bpf-core: no error naming anon and file: $(first_line "$WORK/err")"; return 1
	fi
	if grep -qE '"(anon|file)":' "$WORK/out"; then why "bpf-core: anon or file still sampled"; return 1; fi
	checked fs -n 1000 "$CG" "$WORK/out" || return 1
	info "bpf-core: $(grep 'not sampled: anon, file' "$WORK/err" | head -n 1 | cut -c 1-160)"
}

# ---------------------------------------------------------------- psi_off set

# psi_off BACKEND: booted with psi=0, the pressure stats are left out with
# a notice naming PSI, the rest is sampled and equals the files.
psi_off() {
	if [ -e /proc/pressure/memory ]; then why "psi=0 did not turn PSI off: /proc/pressure/memory exists"; return 1; fi
	sample --backend "$1" --stats pressure_some,pressure_full,usage,memory_max,oom_kill_local --format json --count 1
	rc=$?
	if [ $rc -ne 0 ]; then why "exit $rc: $(first_line "$WORK/err")"; return 1; fi
	for s in pressure_some pressure_full; do
		if ! grep -q "stat '$s' is not sampled: .*PSI is off" "$WORK/err"; then
			why "no notice that $s is left out because PSI is off: $(first_line "$WORK/err")"; return 1
		fi
	done
	if grep -q pressure "$WORK/out"; then why "pressure values in the output: $(grep -m 1 pressure "$WORK/out")"; return 1; fi
	checked fs -n 50 "$CG" "$WORK/out" || return 1
	# the default set (pressure_some and pressure_full are in it) still runs
	memcg-bpf-sample --backend "$1" --count 1 > /dev/null 2> "$WORK/err2"
	rc=$?
	if [ $rc -ne 0 ]; then why "default set: exit $rc: $(first_line "$WORK/err2")"; return 1; fi
}
t_psi_off_bpf() { psi_off bpf; }
t_psi_off_text() { psi_off text; }

# ---------------------------------------------------------------- arm64

# The arm64 sets (make vmcheck-arm64, tests/vm/arm64.sh): the cross-built CLI
# on Debian's arm64 cloud kernels, on a tree of over 200 cgroups with the
# odd and hostile names of add_odd_names; oom_storm then proves the OOM
# tracker's fentry/fexit programs (arm64's BPF trampoline) count every kill.
t_tree_200() { tree_loaded 10 3 6 2 200; }

t_values_bpf_200() { values bpf 200; }
t_values_core_200() { values bpf-core 200; }
t_values_text_200() { values text 200; }

# ---------------------------------------------------------------- the kernel matrix
# One kernel of each memcg layout family (tests/vm/kernels.list): the
# largest program (every stat, every per-node stat) loads, auto picks the
# BPF walk, and every value equals the files. bpf on 7.x, bpf-core before.
matrix_backend() {
	case $(uname -r) in
	[7-9].* | [1-9][0-9].*) echo bpf ;;
	*) echo bpf-core ;;
	esac
}

t_matrix_values() { values "$(matrix_backend)" 200; }
t_matrix_values_vs_text() { vs_text "$(matrix_backend)"; }
t_matrix_numa() { numa_values "$(matrix_backend)"; }

# auto, with every stat and every per-node stat, picks the BPF walk; the
# verifier's cost of the smallest (one stat) and the largest program, from
# the backend's start-up line (doc/benchmarks.md keeps the figures).
t_matrix_auto() {
	want=$(matrix_backend)
	sample --backend auto --stats all --numa --format json --count 1 || { why "auto, all stats: exit $?: $(first_line "$WORK/err")"; return 1; }
	line=$(grep "backend $want:" "$WORK/err" | head -n 1)
	[ -n "$line" ] || { why "auto did not pick $want: $(grep 'backend ' "$WORK/err" | head -n 1 | cut -c 1-200)"; return 1; }
	if grep -qv "\"backend\":\"$want\"" "$WORK/out"; then why "records not all from $want"; return 1; fi
	largest=$(echo "$line" | sed -n 's/.*; \([0-9]*\) values per cgroup.*the verifier checked \([0-9]*\) instructions.*/\1 values: \2/p')
	sample --backend "$want" --stats anon --count 1 || { why "$want, one stat: exit $?: $(first_line "$WORK/err")"; return 1; }
	smallest=$(sed -n 's/.*; \([0-9]*\) values per cgroup.*the verifier checked \([0-9]*\) instructions.*/\1 values: \2/p' "$WORK/err" | head -n 1)
	[ -n "$largest" ] && [ -n "$smallest" ] || { why "no verifier figures on the backend lines"; return 1; }
	info "verifier, $want: $smallest instructions (one stat); $largest instructions (every stat and per-node stat)"
}

# ---------------------------------------------------------------- main

# run_test starts each test as "run-tests.sh --one FUNCTION" in its own session.
if [ "$1" = --one ]; then
	"$2"
	exit $?
fi

# The kernels without the kfuncs (fallback: 6.12, bookworm: 6.1): bpf-core.
core_set() {
	run_test tree_1000 t_tree_big
	run_test auto_selects_core t_auto_selects_core
	run_test bpf_needs_kfunc t_bpf_needs_kfunc
	run_test values_core t_values_core
	run_test values_text t_values_text
	run_test values_core_vs_text t_values_core_vs_text
	run_test backends_agree t_backends_agree_core
	run_test core_corrupt t_core_corrupt
	run_test collectd_auto_core t_collectd_auto_core
}

SET=$1
proto "KERNEL $KERNEL"
proto "INFO $KERNEL set: $SET, cpus $(nproc), fd limit $(ulimit -n)/$(ulimit -Hn), test timeout ${VMTEST_TIMEOUT}s"

case $SET in
kfunc) # the kfunc walk on the big tree: values, collectd, churn, memory
	run_test tree_1000 t_tree_big
	run_test values_bpf t_values_bpf
	run_test values_text t_values_text
	run_test values_bpf_vs_text t_values_bpf_vs_text
	run_test backends_agree t_backends_agree_bpf
	run_test rss t_rss
	run_test collectd_bpf t_collectd_bpf
	run_test auto_selects_bpf t_auto_selects_bpf
	run_test rename_bpf t_rename_bpf
	run_test churn_soak t_churn_soak
	run_test unknown_stat t_unknown_stat
	run_test unprivileged_bpf t_unprivileged_bpf
	run_test values_bpf_grow t_values_bpf_grow
	run_test matrix_auto t_matrix_auto
	;;
kfunc_oom) # the same kernel: OOM kills end to end, identity labels
	run_test oom_events_scope t_oom_events_scope
	run_test oom_alert t_oom_alert
	run_test oom_gone t_oom_gone
	run_test oom_storm t_oom_storm
	run_test identity t_identity
	;;
mixin) # the same kernel: the kubernetes-mixin's queries on the cAdvisor rules,
	# hostile names, the budget (its own boot: with kfunc_oom's it would take
	# more than half their timeout; hostile names and the budget moved here
	# when kfunc_oom took 610 s of 1,200 in a busy run)
	run_test kube_mixin t_kube_mixin
	run_test hostile_names t_hostile_names
	run_test budget t_budget
	;;
fallback) # 6.12, two NUMA nodes: bpf-core. The kfunc sets' identity, hostile
	# names, budget and OOM storm have no part that differs by kernel (the
	# walk's records and its rank-only map are the same code in every walk;
	# oom_gone proves the OOM tracker attaches here): not run twice.
	core_set
	run_test rename_text t_rename_text
	run_test unknown_stat t_unknown_stat
	run_test oom_events_scope t_oom_events_scope
	run_test oom_gone t_oom_gone
	run_test numa_values_core t_numa_values_core
	run_test matrix_auto t_matrix_auto
	;;
bookworm) # 6.1, two NUMA nodes: bpf-core with the counters indexed by enum value
	core_set
	run_test oom_gone t_oom_gone
	run_test numa_values_core t_numa_values_core
	run_test matrix_auto t_matrix_auto
	;;
matrix) # the other layout families (tests/vm/kernels.list), two NUMA nodes
	run_test tree_200 t_tree_200
	run_test matrix_auto t_matrix_auto
	run_test matrix_values t_matrix_values
	run_test values_text t_values_text_200
	run_test matrix_values_vs_text t_matrix_values_vs_text
	run_test matrix_numa t_matrix_numa
	;;
v1)
	run_test v1_core t_v1_core
	;;
psi_off)
	run_test tree_50 t_tree_small
	run_test psi_off_bpf t_psi_off_bpf
	run_test psi_off_text t_psi_off_text
	;;
bench)
	run_test bench t_bench
	run_test bench_churn t_bench_churn
	run_test bench_collectd t_bench_collectd
	run_test bench_soak t_bench_soak
	run_test bench_soak_sink t_bench_soak_sink
	;;
numa) # four NUMA nodes, two without a CPU, 7.x: per-node stats, bpf and text
	run_test numa_values t_numa_values
	run_test numa_corrupt t_numa_corrupt
	run_test numa_collectd t_numa_collectd
	;;
numa_core) # two NUMA nodes, 6.x: per-node stats, bpf-core and text
	run_test numa_values_core t_numa_values_core
	;;
numa_bench | numa_bench8) # per-node sampling at 1,000 and 10,000 cgroups (make bench), two and eight nodes
	run_test numa_bench t_numa_bench
	;;
bench_budget) # the cgroup budget at 50,000 cgroups (issue 38)
	run_test bench_budget t_bench_budget
	;;
bench_agent) # the agent's cost alone (the sender, bench_collectd, the soak into a sink)
	run_test bench_encode t_bench_encode
	run_test bench_collectd t_bench_collectd
	run_test bench_soak_sink t_bench_soak_sink
	;;
bench_collectd) # bench_collectd alone (VMTEST_CD_RUNS picks its rows)
	run_test bench_collectd t_bench_collectd
	;;
bench_churn) # bench_churn alone (a sample's cost under cgroup churn, its paths checked)
	run_test bench_churn t_bench_churn
	;;
bench_core*)
	run_test bench_core t_bench_core
	;;
arm64) # arm64, 7.x (issue 35): the kfunc walk
	run_test tree_200 t_tree_200
	run_test auto_selects_bpf t_auto_selects_bpf
	run_test values_bpf t_values_bpf_200
	run_test values_text t_values_text_200
	run_test values_bpf_vs_text t_values_bpf_vs_text
	run_test rw_values_bpf t_rw_values_bpf
	run_test oom_storm t_oom_storm
	;;
arm64_core) # arm64, 6.12 (issue 35): bpf-core
	run_test tree_200 t_tree_200
	run_test auto_selects_core t_auto_selects_core
	run_test bpf_needs_kfunc t_bpf_needs_kfunc
	run_test values_core t_values_core_200
	run_test values_text t_values_text_200
	run_test values_core_vs_text t_values_core_vs_text
	run_test rw_values_core t_rw_values_core
	run_test oom_storm t_oom_storm
	;;
allocinfo) # the allocation profiling kernel (issue 37; tests/vm/build-profiling-kernel.sh)
	run_test allocinfo_kernel t_allocinfo_kernel
	run_test allocinfo_collectd t_allocinfo_collectd
	run_test allocinfo_readers t_allocinfo_readers
	run_test allocinfo_twins t_allocinfo_twins
	run_test allocinfo_ship t_allocinfo_ship
	;;
allocinfo_bench) # text and binary reader of /proc/allocinfo (make bench, issue 37)
	run_test allocinfo_bench t_allocinfo_bench
	;;
*)
	proto "FAIL $KERNEL setup: unknown test set '$SET' (vmtest.set=kfunc|fallback|bookworm|v1|psi_off|bench|bench_agent|bench_collectd|bench_core*)"
	FAILED=$((FAILED + 1))
	;;
esac
done_tests
