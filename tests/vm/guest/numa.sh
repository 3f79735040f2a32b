# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=sh
# Per-NUMA-node stats (issue 32): functions only, sourced by run-tests.sh
# after lib.sh, tree.sh and receivers.sh; they use run-tests.sh's collectd
# helpers. The numa sets boot with two NUMA nodes (tests/vm/run.sh), one
# vCPU each: a task's memory lands on the node of the CPU it runs on, so
# taskset places it.
#   numa_values    a small tree with anon and file memory on node 0, on
#                  node 1 and on both; memcg-bpf-sample --numa --format json
#                  (all per-node stats) equals every cgroup's
#                  memory.numa_stat, node by node (check_values fs -N 2),
#                  with the bpf backend (numa set, 7.x; numa_values_core:
#                  bpf-core on the numa_core set, 6.12) and with text, and
#                  the two agree
#                  (check_values cmp)
#   numa_collectd  the real collectd with memcg_bpf (Backend auto,
#                  NumaStat "anon" "file" "shmem") ships to VictoriaMetrics:
#                  every cgroup's series with a node label equals its
#                  memory.numa_stat, stat by stat and node by node

NUMA_ROOT=$CG/numa
NUMA_CGROUPS="/n0 /n1 /both /both/a /both/b /empty"
# the stats of memory.numa_stat that memcg_bpf samples per node (stat_catalog.c)
NUMA_STATS="anon file kernel_stack pagetables shmem file_mapped file_dirty file_writeback swapcached anon_thp
file_thp shmem_thp inactive_anon active_anon inactive_file active_file unevictable slab_reclaimable
slab_unreclaimable workingset_refault_anon workingset_refault_file workingset_activate_anon
workingset_activate_file workingset_restore_anon workingset_restore_file workingset_nodereclaim"

# numa_load CGROUP CPU_MASK ANON_MIB FILE_MIB: memload in CGROUP on the CPUs of
# CPU_MASK (hex), anon and a tmpfs file of that size; waits until it is ready.
numa_load() {
	ready=$WORK/numa.ready.$(echo "$1$2" | tr '/' '_')
	( echo 0 > "$NUMA_ROOT$1/cgroup.procs" &&
		exec taskset "$2" memload -a "$3" -f "$WORK/numa.file.$(echo "$1$2" | tr '/' '_')" -s "$4" -r "$ready" ) &
	echo $! >> "$WORK/numa.pids"
	wait_ready "$ready" "memload in $1 (CPUs $2)"
}

# numa_of CGROUP STAT NODE: that value of CGROUP's memory.numa_stat.
numa_of() {
	sed -n "s/^$2 .* N$3=\([0-9]*\).*/\1/p; s/^$2 N$3=\([0-9]*\).*/\1/p" "$NUMA_ROOT$1/memory.numa_stat" | head -n 1
}

numa_setup() {
	have=$(cat /sys/devices/system/node/has_memory 2>/dev/null)
	[ "$have" = 0-1 ] || { why "the guest's nodes with memory are '${have:-none}', not 0-1 (tests/vm/run.sh: the numa sets)"; return 1; }
	# pages stay where they were put: no balancing moves them between samples
	echo 0 > /proc/sys/kernel/numa_balancing 2>/dev/null
	enable_memory "$CG" || return 1
	mkdir -p "$NUMA_ROOT" && enable_memory "$NUMA_ROOT" || return 1
	for c in $NUMA_CGROUPS; do mkdir -p "$NUMA_ROOT$c" || { why "cannot create $NUMA_ROOT$c"; return 1; }; done
	enable_memory "$NUMA_ROOT/both" || return 1
	: > "$WORK/numa.pids"
	numa_load /n0 1 16 4 && numa_load /n1 2 8 12 && numa_load /both/a 1 4 2 && numa_load /both/a 2 6 2 &&
		numa_load /both/b 2 10 1 || return 1
	# The placement the test relies on: n0's anon on node 0, n1's on node 1.
	# memory.numa_stat may show a part of a load just made until the kernel's
	# stats flush catches up (a CI run read /n0 N0 at 6 of 16 MiB once; the
	# periodic flush runs every 2 s), so this waits up to 20 s for it.
	tries=0
	until numa_placed; do
		tries=$((tries + 1))
		[ "$tries" -lt 40 ] || {
			why "memory did not land on the node of its CPU within 20 s: /n0 anon N0=$a0 N1=$a1, /n1 anon N0=$b0 N1=$b1"
			return 1
		}
		sleep 0.5
	done
	info "placed (after $tries waits of 0.5 s): /n0 anon N0=$a0 N1=$a1, /n1 anon N0=$b0 N1=$b1"
}

# numa_placed: reads a0 a1 b0 b1, /n0's and /n1's anon on nodes 0 and 1; true
# when they show n0's 16 MiB on node 0 and n1's 8 MiB on node 1.
numa_placed() {
	a0=$(numa_of /n0 anon 0) a1=$(numa_of /n0 anon 1) b0=$(numa_of /n1 anon 0) b1=$(numa_of /n1 anon 1)
	[ "${a0:-0}" -ge $((12 << 20)) ] && [ "${a1:-0}" -lt $((4 << 20)) ] &&
		[ "${b1:-0}" -ge $((6 << 20)) ] && [ "${b0:-0}" -lt $((4 << 20)) ]
}

numa_teardown() {
	# the loads only: the receivers are waited for by receivers_stop
	while read -r p; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done < "$WORK/numa.pids" 2>/dev/null
	rm -f "$WORK"/numa.file.*
	find "$NUMA_ROOT" -depth -type d -exec rmdir {} + 2>/dev/null
}

# numa_sample BACKEND: memcg-bpf-sample --numa over NUMA_ROOT into $WORK/numa.BACKEND.json,
# checked against the files; the backend must be the one asked for, and say nothing is missing.
numa_sample() {
	# the per-node stats, also as whole-cgroup stats (--numa takes those of --stats), and usage
	memcg-bpf-sample -r "$NUMA_ROOT" -b "$1" -s "usage,$(echo "$NUMA_STATS" | tr -s ' \n' ',')" --numa -f json -q \
		> "$WORK/numa.$1.json" 2> "$WORK/numa.$1.err" || { why "$1: exit $?: $(first_line "$WORK/numa.$1.err")"; return 1; }
	if grep -q 'not sampled\|not available' "$WORK/numa.$1.err"; then
		why "$1: $(grep 'not sampled\|not available' "$WORK/numa.$1.err" | head -n 1 | cut -c 1-200)"; return 1
	fi
	other=$(grep -v "\"backend\":\"$1\"" "$WORK/numa.$1.json" | head -n 1 | cut -c 1-120)
	[ -z "$other" ] || { why "$1: a row of another backend: $other"; return 1; }
	checked fs -N 2 -n 7 "$NUMA_ROOT" "$WORK/numa.$1.json" || return 1
	# every per-node stat the kernel prints is there, for each cgroup but the walk root
	want=0
	for s in $NUMA_STATS; do grep -q "^$s " "$NUMA_ROOT/n0/memory.numa_stat" && want=$((want + 1)); done
	got=$(sed -n 's/.* cgroups=\([0-9]*\) .* numa=\([0-9]*\) .*/\1 \2/p' "$WORK/check")
	[ "$got" = "7 $((6 * want * 2))" ] ||
		{ why "$1: cgroups and per-node values '$got', want 7 cgroups and $((6 * want * 2)) values ($want stats x 2 nodes x 6)"; return 1; }
	info "$1: $want per-node stats x 2 nodes for each of 6 cgroups equal memory.numa_stat"
}

# numa_values BPF_BACKEND: BPF_BACKEND and text equal the files, and each other.
numa_values() {
	numa_setup && numa_sample "$1" && numa_sample text &&
		checked cmp "$WORK/numa.$1.json" "$WORK/numa.text.json"
	rc=$?
	numa_teardown
	return $rc
}

t_numa_values() { numa_values bpf; }
t_numa_values_core() { numa_values bpf-core; }

t_numa_collectd() {
	have_collectd || return 77
	d=$WORK/numa-cd
	rm -rf "$d"
	mkdir -p "$d"
	if ! numa_setup || ! vm_start; then numa_teardown; receivers_stop; return 1; fi
	collectd_conf "$d" 1 csv "  CgroupRoot \"$NUMA_ROOT\"
  Stat \"usage\"
  NumaStat \"anon\" \"file\"
  NumaStat \"shmem\"
  Label \"run\" \"numa\"
  URL \"$VM_URL/api/v1/write\"" || return 1
	"$COLLECTD" -f -C "$d/collectd.conf" > "$d/stdout" 2>&1 &
	cd_pid=$!
	t=0
	until [ "$(rx_query "$VM_URL" 'count_over_time(memcg_numa_anon_bytes{run="numa",cgroup="/n1",node="1"}[10m])' | cut -d' ' -f1)" -ge 3 ] 2>/dev/null; do
		t=$((t + 1))
		if [ $t -gt 90 ] || ! kill -0 $cd_pid 2>/dev/null; then
			why "no 3 samples of memcg_numa_anon_bytes{cgroup=\"/n1\",node=\"1\"} in VictoriaMetrics after 90 s"
			stop_collectd $cd_pid; cat "$d/collectd.log"; numa_teardown; receivers_stop; return 1
		fi
		sleep 1
	done
	stop_checked $cd_pid "$d" bpf numa || { numa_teardown; receivers_stop; return 1; }
	bad='' compared=0
	for c in $NUMA_CGROUPS; do
		for s in anon file shmem; do
			for n in 0 1; do
				want=$(numa_of "$c" "$s" "$n")
				got=$(rx_query "$VM_URL" "last_over_time(memcg_numa_${s}_bytes{run=\"numa\",cgroup=\"$c\",node=\"$n\"}[10m])" | cut -d' ' -f1)
				compared=$((compared + 1))
				[ -n "$want" ] && [ "$got" = "$want" ] || bad="$bad; $c $s node $n: VictoriaMetrics ${got:-none}, memory.numa_stat ${want:-none}"
			done
		done
	done
	# nothing but nodes 0 and 1, and every cgroup's series on both
	series=$(rx_query "$VM_URL" 'count(last_over_time({__name__=~"memcg_numa_.*",run="numa"}[10m]))' | cut -d' ' -f1)
	rows=$(rx_query "$VM_URL" 'count(last_over_time(memcg_usage_bytes{run="numa"}[10m]))' | cut -d' ' -f1)
	others=$(rx_query "$VM_URL" 'count(last_over_time({__name__=~"memcg_numa_.*",run="numa",node!~"0|1"}[10m]))' | cut -d' ' -f1)
	[ "$series" = "$((rows * 3 * 2))" ] || bad="$bad; ${series:-no} per-node series for ${rows:-no} cgroups, want $((rows * 3 * 2))"
	[ -z "$others" ] || bad="$bad; $others series of a node other than 0 and 1"
	info "numa_collectd: $compared per-node values of 6 cgroups equal memory.numa_stat in VictoriaMetrics; $series per-node series for $rows cgroups"
	numa_teardown
	receivers_stop
	if [ -n "$bad" ]; then why "$(echo "${bad#; }" | cut -c 1-400)"; return 1; fi
}

# numa_corrupt: the CLI built with a corrupted slot map (anon and file read
# each other's slot, per node too) on 7.x: the kfunc walk's start-up check
# names the per-node columns; auto then runs text, which is right; with
# Backend bpf they are left out, saying so, and the rest is right.
numa_corrupt_checks() {
	bin=memcg-bpf-sample-corrupt
	out=$WORK/numa.corrupt.json err=$WORK/numa.corrupt.err
	command -v $bin > /dev/null || { why "$bin is not in the initramfs"; return 1; }
	$bin -r "$NUMA_ROOT" -s anon,file --numa -f json -q > "$out" 2> "$err" ||
		{ why "auto: exit $?: $(first_line "$err")"; return 1; }
	cat "$err"
	line=$(grep 'backend text' "$err" | head -n 1)
	case $line in
	*"disagree with memory.numa_stat (numa_anon_N0, numa_anon_N1, numa_file_N0, numa_file_N1)"*) ;;
	*) why "auto did not fall back to text naming the per-node anon and file: ${line:-no backend text line}"; return 1 ;;
	esac
	if ! grep -q '"backend":"text"' "$out" || grep -q '"backend":"bpf' "$out"; then why "auto: rows not all from text"; return 1; fi
	checked fs -N 2 -n 7 "$NUMA_ROOT" "$out" || return 1
	info "auto: $(echo "$line" | cut -c 1-200)"
	$bin -r "$NUMA_ROOT" -b bpf -s anon,file --numa -f json -q > "$out" 2> "$err" ||
		{ why "bpf: exit $?: $(first_line "$err")"; return 1; }
	cat "$err"
	grep -q 'bpf: the start-up check found these stats disagree with memory.numa_stat, not sampled: numa_anon_N0, numa_anon_N1, numa_file_N0, numa_file_N1' "$err" ||
		{ why "bpf: no error naming the per-node anon and file: $(first_line "$err")"; return 1; }
	if grep -q '"numa"' "$out"; then why "bpf: per-node values still sampled"; return 1; fi
	checked fs -n 7 "$NUMA_ROOT" "$out"
}

t_numa_corrupt() {
	numa_setup && numa_corrupt_checks
	rc=$?
	numa_teardown
	return $rc
}
