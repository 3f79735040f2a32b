# SPDX-License-Identifier: GPL-2.0-only
# The backends agree on what a row is (issue 29, "one meaning per backend"):
#  - depth is relative to --root (CgroupRoot) in every backend, with and
#    without --max-depth: the root is the one row at depth 0, which is what
#    IncludeRoot false drops (plugin/memcg_bpf.c, row_selected());
#  - a cgroup without the memory controller is no row in any backend;
#  - cgroup v1 (the v1 set): bpf-core gives the root and every cgroup the
#    same values as text, soft_limit included.
# Sourced after lib.sh and tree.sh.

AGREE=$CG/agree

# agree_tree: AGREE/a/b/c with the memory controller all the way down, and
# AGREE/n/x/y below n, which does not enable it: x and y have memory.pressure
# (a core file) but no memory.stat, and are charged to n.
agree_tree() {
	enable_memory "$CG" || return 1
	mkdir -p "$AGREE/a/b/c" "$AGREE/n/x/y" || { why "cannot make $AGREE"; return 1; }
	for d in "$AGREE" "$AGREE/a" "$AGREE/a/b"; do enable_memory "$d" || return 1; done
	if [ -e "$AGREE/n/x/memory.stat" ] || [ ! -e "$AGREE/n/memory.stat" ]; then
		why "the memory controller is not on at $AGREE/n and off below it"; return 1
	fi
	if [ -e /proc/pressure/memory ] && [ ! -e "$AGREE/n/x/memory.pressure" ]; then
		why "$AGREE/n/x has no memory.pressure"; return 1
	fi
}

agree_cleanup() {
	for d in a/b/c a/b a n/x/y n/x n ""; do rmdir "$AGREE/$d" 2>/dev/null; done
}

# agree_root BACKEND ROOT LIMIT: one sample below ROOT, checked against the
# files (ids, depth from ROOT, values, every memory cgroup once and no other)
# and for its root row; the output stays in $WORK/agree-BACKEND.json.
agree_root() {
	# shellcheck disable=SC2086 # $3 is zero or two words
	sample --backend "$1" --root "$2" $3 --stats anon,usage,pressure_some --format json --count 1 ||
		{ why "$1 --root $2 $3: exit $?: $(first_line "$WORK/err")"; return 1; }
	cp "$WORK/out" "$WORK/agree-$1.json"
	checked fs -n 3 "$2" "$WORK/out" || { why "$1 --root $2 $3: $(cat "$WORK/reason")"; return 1; }
	roots=$(grep -c '"depth":0,' "$WORK/out")
	if [ "$roots" != 1 ] || ! grep -q '"path":"/","depth":0,' "$WORK/out"; then
		why "$1 --root $2 $3: $roots rows at depth 0, not only \"/\" (IncludeRoot false would drop the wrong rows)"
		return 1
	fi
}

# t_backends_agree BACKEND: BACKEND and text below two subtree roots, with
# and without --max-depth: the same rows at the same depths, no row for the
# cgroups without the memory controller.
backends_agree() {
	agree_tree || { agree_cleanup; return 1; }
	for root in "$AGREE" "$AGREE/a"; do
		for limit in "" "--max-depth 6"; do
			for b in "$1" text; do
				agree_root "$b" "$root" "$limit" || { agree_cleanup; return 1; }
			done
			checked cmp "$WORK/agree-$1.json" "$WORK/agree-text.json" ||
				{ why "$1 and text differ below $root $limit: $(cat "$WORK/reason")"; agree_cleanup; return 1; }
			info "--root $root ${limit:-(no --max-depth)}: $1 and text: $(wc -l < "$WORK/agree-text.json") rows, the same depths, root alone at 0"
		done
	done
	agree_cleanup
}
t_backends_agree_bpf() { backends_agree bpf; }
t_backends_agree_core() { backends_agree bpf-core; }

# ---------------------------------------------------------------- cgroup v1

V1=/mnt/v1mem
V1_STATS=anon,file,usage,working_set,memory_max,memory_peak,soft_limit,oom_kill_local

# pairs FILE: "path stat" for every value of the JSON lines in FILE, sorted
pairs() {
	sed -e 's/.*"path":"\([^"]*\)".*"values":{\(.*\)}}$/\1 \2/' "$1" |
		awk '{ n = split($2, kv, ","); for (i = 1; i <= n; i++) { split(kv[i], p, ":"); gsub(/"/, "", p[1]); print $1, p[1] } }' |
		sort
}
# root_value FILE STAT: the root row's value of STAT
root_value() { grep '"path":"/",' "$1" | sed -n "s/.*\"$2\":\"*\([0-9a-z]*\)\"*[,}].*/\1/p"; }

v1_cleanup() {
	[ -f "$WORK/load.pids" ] && kill -KILL $(cat "$WORK/load.pids") 2>/dev/null
	for try in 1 2 3 4 5 6 7 8 9 10; do
		rmdir "$V1/a/b" 2>/dev/null && break
		sleep 0.5
	done
	rmdir "$V1/a" 2>/dev/null
	umount "$V1" 2>/dev/null
}

# t_v1_core: the memory controller on a cgroup v1 hierarchy (this set never
# enables it on v2): bpf-core gives the same values as text, the root's
# usage, limits, peak and soft limit included, and depths from --root.
t_v1_core() {
	mkdir -p "$V1"
	if ! mount -t cgroup -o memory memcg1 "$V1" 2> "$WORK/mount.err"; then
		why "cannot mount the memory controller as cgroup v1: $(first_line "$WORK/mount.err")"; return 1
	fi
	mkdir -p "$V1/a/b" || { why "mkdir $V1/a/b"; v1_cleanup; return 1; }
	echo $((64 << 20)) > "$V1/a/memory.soft_limit_in_bytes" &&
		echo $((512 << 20)) > "$V1/a/b/memory.limit_in_bytes" || { why "cannot set v1 limits"; v1_cleanup; return 1; }
	echo "$V1/a/b" > "$WORK/leaves"
	start_loads 4 1 || { v1_cleanup; return 1; }
	stop_loads
	for b in text bpf-core; do
		sample --backend "$b" --root "$V1" --stats "$V1_STATS" --format json --count 1 ||
			{ why "$b on v1: exit $?: $(first_line "$WORK/err")"; v1_cleanup; return 1; }
		cp "$WORK/out" "$WORK/v1-$b.json"
		grep -q "\"backend\":\"$b\"" "$WORK/out" || { why "records do not say backend $b"; v1_cleanup; return 1; }
		cat "$V1/memory.usage_in_bytes" >> "$WORK/v1-usage"
	done
	pairs "$WORK/v1-text.json" > "$WORK/v1-pairs.text"
	pairs "$WORK/v1-bpf-core.json" > "$WORK/v1-pairs.core"
	if ! cmp -s "$WORK/v1-pairs.text" "$WORK/v1-pairs.core"; then
		why "bpf-core and text give different values on v1 (- text only, + bpf-core only): $(diff -u "$WORK/v1-pairs.text" "$WORK/v1-pairs.core" | grep '^[-+]/' | head -6 | tr '\n' ' ')"
		v1_cleanup; return 1
	fi
	grep -q '^/ usage$' "$WORK/v1-pairs.core" && grep -q '^/a soft_limit$' "$WORK/v1-pairs.core" ||
		{ why "no root usage or soft_limit on v1 in either backend"; v1_cleanup; return 1; }
	# below the root the values are equal; the root's usage is from global counters that move
	checked cmp "$WORK/v1-bpf-core.json" "$WORK/v1-text.json" || { v1_cleanup; return 1; }
	# (the root's memory.stat counts the tasks in the root cgroup, this test's and the CLI's own)
	for s in memory_max memory_peak soft_limit; do
		t=$(root_value "$WORK/v1-text.json" $s) c=$(root_value "$WORK/v1-bpf-core.json" $s)
		[ -n "$t" ] && [ "$t" = "$c" ] || { why "root $s: text $t, bpf-core $c"; v1_cleanup; return 1; }
	done
	u=$(root_value "$WORK/v1-bpf-core.json" usage) lo=$(sort -n "$WORK/v1-usage" | head -n 1) hi=$(sort -n "$WORK/v1-usage" | tail -n 1)
	if [ "$u" -lt $((lo - (1 << 20))) ] || [ "$u" -gt $((hi + (1 << 20))) ]; then
		why "root usage: bpf-core $u, memory.usage_in_bytes $lo..$hi"; v1_cleanup; return 1
	fi
	info "v1: $(wc -l < "$WORK/v1-pairs.core") (cgroup, stat) pairs in both; root usage $u (file $lo..$hi), soft_limit of /a $(grep '"path":"/a",' "$WORK/v1-bpf-core.json" | sed -n 's/.*"soft_limit":\([0-9]*\).*/\1/p')"
	# per node (memory.numa_stat's hierarchical_ lines on v1): the BPF walk's
	# sums of the LRU lists equal what text reads from the file
	for b in text bpf-core; do
		sample --backend "$b" --root "$V1" --stats anon,file,unevictable --numa --format json --count 1 ||
			{ why "$b --numa on v1: exit $?: $(first_line "$WORK/err")"; v1_cleanup; return 1; }
		cp "$WORK/out" "$WORK/v1-numa-$b.json"
		if grep -q 'not sampled' "$WORK/err" || ! grep -q '"path":"/a/b".*"numa":{"anon":{"0":[1-9]' "$WORK/out"; then
			why "$b --numa on v1: no per-node anon of /a/b: $(grep 'not sampled' "$WORK/err" | head -n 1 | cut -c 1-160)"
			v1_cleanup; return 1
		fi
	done
	checked cmp "$WORK/v1-numa-bpf-core.json" "$WORK/v1-numa-text.json" || { v1_cleanup; return 1; }
	# depths from a subtree root
	for limit in "" "--max-depth 4"; do
		for b in text bpf-core; do
			# shellcheck disable=SC2086
			memcg-bpf-sample --backend $b --root "$V1/a" $limit --stats anon --format json 2> /dev/null |
				sed -n 's/.*"path":"\([^"]*\)","depth":\([0-9]*\),.*/\1 \2/p' | sort > "$WORK/v1-depth.$b"
		done
		if ! cmp -s "$WORK/v1-depth.text" "$WORK/v1-depth.bpf-core" || ! grep -qx '/ 0' "$WORK/v1-depth.bpf-core" ||
			[ "$(wc -l < "$WORK/v1-depth.text")" != 2 ]; then
			why "v1 --root $V1/a $limit: depths text [$(tr '\n' ' ' < "$WORK/v1-depth.text")] bpf-core [$(tr '\n' ' ' < "$WORK/v1-depth.bpf-core")]"
			v1_cleanup; return 1
		fi
	done
	v1_cleanup
}
