# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=sh
# Per-NUMA-node stats (issue 32): functions only, sourced by run-tests.sh
# after lib.sh, tree.sh and receivers.sh; they use run-tests.sh's collectd
# helpers. tests/vm/run.sh boots the sets that call them with NUMA nodes
# (VMTEST_NUMA_NODES: the numa set 4, two of them without a CPU; the others
# 2); memload -n binds a load's memory to its node.
#   numa_values    a small tree with anon and file memory on each node
#                  alone and on two; memcg-bpf-sample --numa --format json
#                  (every per-node stat) equals every cgroup's
#                  memory.numa_stat, node by node (check_values fs -N NODES),
#                  every line of the file is there on every node, with the
#                  bpf backend (7.x; numa_values_core: bpf-core on 6.x) and
#                  with text, and the two agree (check_values cmp)
#   numa_collectd  the real collectd with memcg_bpf (Backend auto,
#                  NumaStat "anon" "file" "shmem") ships to VictoriaMetrics:
#                  every cgroup's series with a node label equals its
#                  memory.numa_stat, stat by stat and node by node

NUMA_ROOT=$CG/numa
# the guest's NUMA nodes (tests/vm/run.sh boots the numa sets with 2 or 4)
NUMA_NODES=${VMTEST_NUMA_NODES:-2}
# /nK: all of its memory on node K; /both/a on the first and last node, /both/b on node 1
numa_cgroups() {
	k=0
	while [ $k -lt "$NUMA_NODES" ]; do echo "/n$k"; k=$((k + 1)); done
	printf "%s\n" /both /both/a /both/b /empty
}

# numa_load CGROUP NODE ANON_MIB FILE_MIB: memload in CGROUP with its memory
# bound to NODE (set_mempolicy: CPU-less nodes too), anon and a tmpfs file of
# that size; waits until it is ready.
numa_load() {
	tag=$(echo "$1-$2" | tr '/' '_')
	( echo 0 > "$NUMA_ROOT$1/cgroup.procs" &&
		exec memload -n "$2" -a "$3" -f "$WORK/numa.file.$tag" -s "$4" -r "$WORK/numa.ready.$tag" ) &
	echo $! >> "$WORK/numa.pids"
	wait_ready "$WORK/numa.ready.$tag" "memload in $1 (node $2)"
}

# numa_of CGROUP STAT NODE: that value of CGROUP's memory.numa_stat.
numa_of() {
	sed -n "s/^$2 .* N$3=\([0-9]*\).*/\1/p; s/^$2 N$3=\([0-9]*\).*/\1/p" "$NUMA_ROOT$1/memory.numa_stat" | head -n 1
}

numa_setup() {
	have=$(cat /sys/devices/system/node/has_memory 2>/dev/null)
	[ "$have" = "0-$((NUMA_NODES - 1))" ] ||
		{ why "the guest's nodes with memory are '${have:-none}', not 0-$((NUMA_NODES - 1)) (tests/vm/run.sh: the numa sets)"; return 1; }
	# pages stay where they were put: no balancing moves them between samples
	echo 0 > /proc/sys/kernel/numa_balancing 2>/dev/null
	enable_memory "$CG" || return 1
	mkdir -p "$NUMA_ROOT" && enable_memory "$NUMA_ROOT" || return 1
	for c in $(numa_cgroups); do mkdir -p "$NUMA_ROOT$c" || { why "cannot create $NUMA_ROOT$c"; return 1; }; done
	enable_memory "$NUMA_ROOT/both" || return 1
	: > "$WORK/numa.pids"
	k=0
	while [ $k -lt "$NUMA_NODES" ]; do
		numa_load "/n$k" $k $((16 - 2 * k)) $((4 + 2 * k)) || return 1
		k=$((k + 1))
	done
	numa_load /both/a 0 4 2 && numa_load /both/a $((NUMA_NODES - 1)) 6 2 && numa_load /both/b 1 10 1 || return 1
	# The placement the test relies on: /nK's anon on node K. memory.numa_stat
	# may show a part of a load just made until the kernel's stats flush
	# catches up (a CI run read /n0 N0 at 6 of 16 MiB once; the periodic
	# flush runs every 2 s), so this waits up to 20 s for it.
	tries=0
	until numa_placed; do
		tries=$((tries + 1))
		[ "$tries" -lt 40 ] || { why "memory did not land on its node within 20 s: $placement"; return 1; }
		sleep 0.5
	done
	info "placed on $NUMA_NODES nodes (after $tries waits of 0.5 s): $placement"
}

# numa_placed: true when each /nK has at least 3/4 of its anon on node K and
# less than 4 MiB on any other; $placement says what each has where.
numa_placed() {
	placement= ok=true k=0
	while [ $k -lt "$NUMA_NODES" ]; do
		want=$(((16 - 2 * k) << 20)) n=0
		placement="$placement /n$k anon"
		while [ $n -lt "$NUMA_NODES" ]; do
			v=$(numa_of "/n$k" anon $n)
			placement="$placement N$n=${v:-none}"
			if [ $n -eq $k ]; then
				[ "${v:-0}" -ge $((want * 3 / 4)) ] || ok=false
			else
				[ "${v:-0}" -lt $((4 << 20)) ] || ok=false
			fi
			n=$((n + 1))
		done
		k=$((k + 1))
	done
	$ok
}

numa_teardown() {
	# the loads only: the receivers are waited for by receivers_stop
	while read -r p; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done < "$WORK/numa.pids" 2>/dev/null
	rm -f "$WORK"/numa.file.*
	find "$NUMA_ROOT" -depth -type d -exec rmdir {} + 2>/dev/null
}

# numa_sample BACKEND: memcg-bpf-sample --stats all --numa (every per-node stat) over
# NUMA_ROOT into $WORK/numa.BACKEND.json, checked against the files: every
# value equal, node by node, and every line of each cgroup's
# memory.numa_stat there on every node. The backend must be the one asked
# for and leave out nothing the kernel prints.
numa_sample() {
	memcg-bpf-sample -r "$NUMA_ROOT" -b "$1" -s all --numa -f json -q \
		> "$WORK/numa.$1.json" 2> "$WORK/numa.$1.err" || { why "$1: exit $?: $(first_line "$WORK/numa.$1.err")"; return 1; }
	if grep "is not sampled\|not available" "$WORK/numa.$1.err" | grep -q "'numa_"; then
		why "$1: $(grep "is not sampled\|not available" "$WORK/numa.$1.err" | grep "'numa_" | head -n 1 | cut -c 1-200)"; return 1
	fi
	other=$(grep -v "\"backend\":\"$1\"" "$WORK/numa.$1.json" | head -n 1 | cut -c 1-120)
	[ -z "$other" ] || { why "$1: a row of another backend: $other"; return 1; }
	ncg=$(($(numa_cgroups | wc -l) + 1))
	checked fs -N "$NUMA_NODES" -n "$ncg" "$NUMA_ROOT" "$WORK/numa.$1.json" || return 1
	# every line the kernel prints, for each cgroup but the walk root, on every node
	lines=$(wc -l < "$NUMA_ROOT/n0/memory.numa_stat")
	want=$(((ncg - 1) * lines * NUMA_NODES))
	got=$(sed -n 's/.* cgroups=\([0-9]*\) .* numa=\([0-9]*\) .*/\1 \2/p' "$WORK/check")
	[ "$got" = "$ncg $want" ] ||
		{ why "$1: cgroups and per-node values '$got', want $ncg cgroups and $want values ($lines lines x $NUMA_NODES nodes x $((ncg - 1)))"; return 1; }
	info "$1: all $lines lines of memory.numa_stat x $NUMA_NODES nodes for each of $((ncg - 1)) cgroups equal the files"
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
	for c in $(numa_cgroups); do
		for s in anon file shmem; do
			n=0
			while [ $n -lt "$NUMA_NODES" ]; do
				want=$(numa_of "$c" "$s" "$n")
				got=$(rx_query "$VM_URL" "last_over_time(memcg_numa_${s}_bytes{run=\"numa\",cgroup=\"$c\",node=\"$n\"}[10m])" | cut -d' ' -f1)
				compared=$((compared + 1))
				[ -n "$want" ] && [ "$got" = "$want" ] || bad="$bad; $c $s node $n: VictoriaMetrics ${got:-none}, memory.numa_stat ${want:-none}"
				n=$((n + 1))
			done
		done
	done
	# nothing but the guest's nodes, and every cgroup's series on each
	series=$(rx_query "$VM_URL" 'count(last_over_time({__name__=~"memcg_numa_.*",run="numa"}[10m]))' | cut -d' ' -f1)
	rows=$(rx_query "$VM_URL" 'count(last_over_time(memcg_usage_bytes{run="numa"}[10m]))' | cut -d' ' -f1)
	others=$(rx_query "$VM_URL" "count(last_over_time({__name__=~\"memcg_numa_.*\",run=\"numa\",node!~\"[0-$((NUMA_NODES - 1))]\"}[10m]))" | cut -d' ' -f1)
	[ "$series" = "$((rows * 3 * NUMA_NODES))" ] || bad="$bad; ${series:-no} per-node series for ${rows:-no} cgroups, want $((rows * 3 * NUMA_NODES))"
	[ -z "$others" ] || bad="$bad; $others series of a node the guest does not have"
	info "numa_collectd: $compared per-node values of $(numa_cgroups | wc -l) cgroups equal memory.numa_stat in VictoriaMetrics; $series per-node series for $rows cgroups"
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
	ncg=$(($(numa_cgroups | wc -l) + 1))
	# the per-node anon and file columns, as the check names them
	cols= sep=
	for st in anon file; do
		k=0
		while [ $k -lt "$NUMA_NODES" ]; do cols="$cols${sep}numa_${st}_N$k"; sep=", "; k=$((k + 1)); done
	done
	command -v $bin > /dev/null || { why "$bin is not in the initramfs"; return 1; }
	$bin -r "$NUMA_ROOT" -s anon,file --numa -f json -q > "$out" 2> "$err" ||
		{ why "auto: exit $?: $(first_line "$err")"; return 1; }
	cat "$err"
	line=$(grep 'backend text' "$err" | head -n 1)
	case $line in
	*"disagree with memory.numa_stat ($cols)"*) ;;
	*) why "auto did not fall back to text naming the per-node anon and file: ${line:-no backend text line}"; return 1 ;;
	esac
	if ! grep -q '"backend":"text"' "$out" || grep -q '"backend":"bpf' "$out"; then why "auto: rows not all from text"; return 1; fi
	checked fs -N "$NUMA_NODES" -n "$ncg" "$NUMA_ROOT" "$out" || return 1
	info "auto: $(echo "$line" | cut -c 1-200)"
	$bin -r "$NUMA_ROOT" -b bpf -s anon,file --numa -f json -q > "$out" 2> "$err" ||
		{ why "bpf: exit $?: $(first_line "$err")"; return 1; }
	cat "$err"
	grep -qF "bpf: the start-up check found these stats disagree with memory.numa_stat, not sampled: $cols" "$err" ||
		{ why "bpf: no error naming the per-node anon and file: $(first_line "$err")"; return 1; }
	if grep -q '"numa"' "$out"; then why "bpf: per-node values still sampled"; return 1; fi
	checked fs -n "$ncg" "$NUMA_ROOT" "$out"
}

t_numa_corrupt() {
	numa_setup && numa_corrupt_checks
	rc=$?
	numa_teardown
	return $rc
}
