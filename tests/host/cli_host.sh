#!/bin/sh
# Host checks of memcg-bpf-sample against this machine's own cgroup tree.
# Read only: nothing here creates, moves or writes cgroups.
#  - auto picks a backend and says why in one line;
#  - --backend bpf on a kernel without the memcg kfuncs names the missing kfunc;
#  - the text backend's values equal memory.stat (v2 names mapped from v1's
#    hierarchical total_* fields when the host runs cgroup v1), and so do
#    bpf-core's where this kernel runs it (6.1-6.19; v1 since the cgroup
#    iterator walks v1 hierarchies);
#  - bpf-core gives the same values as text (the same stats of the same
#    cgroups, cgroup v1's root included);
#  - below a subtree root, with and without --max-depth, text and bpf-core
#    give each cgroup the same depth, the subtree root depth 0;
#  - an unknown stat is a usage error that lists the nearest names.
set -u
BIN=${MEMCG_BPF_SAMPLE:?set MEMCG_BPF_SAMPLE to the memcg-bpf-sample binary}
ROOT=${MEMCG_BPF_ROOT:-/sys/fs/cgroup}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0 skip=0

ok() { echo "ok - $*"; pass=$((pass + 1)); }
not_ok() { echo "not ok - $*"; fail=$((fail + 1)); }
skip() { echo "ok - # SKIP $*"; skip=$((skip + 1)); }

# Which hierarchy carries memory here (the same rule the sampler uses).
if [ -r "$ROOT/memory.stat" ] && [ -r "$ROOT/cgroup.controllers" ]; then
	mdir=$ROOT version=2
elif [ -r "$ROOT/memory/memory.stat" ]; then
	mdir=$ROOT/memory version=1
elif grep -qw memory "$ROOT/unified/cgroup.controllers" 2>/dev/null; then
	mdir=$ROOT/unified version=2
else
	skip "no memory controller under $ROOT"
	echo "$pass passed, $fail failed, $skip skipped"
	exit 77
fi
kfuncs=no
grep -q bpf_get_mem_cgroup /proc/kallsyms 2>/dev/null && kfuncs=yes

# 1. auto says which backend and why, in one line.
"$BIN" --backend auto --count 1 --format json >"$tmp/auto.json" 2>"$tmp/auto.err"
rc=$?
line=$(grep -c 'memcg_bpf plugin: backend ' "$tmp/auto.err")
if [ $rc -eq 0 ] && [ "$line" -eq 1 ]; then
	ok "auto: $(grep 'memcg_bpf plugin: backend ' "$tmp/auto.err")"
else
	not_ok "auto: exit $rc, $line backend lines: $(cat "$tmp/auto.err")"
fi
core=no
if [ $kfuncs = no ]; then
	if grep -qE 'backend (bpf-core|text): kernel lacks kfunc bpf_get_mem_cgroup' "$tmp/auto.err"; then
		ok "auto falls back to bpf-core or text on a kernel without the kfuncs"
	else
		not_ok "auto did not say it fell back for the missing kfunc: $(cat "$tmp/auto.err")"
	fi
	if grep -q 'backend bpf-core: ' "$tmp/auto.err"; then
		core=yes
		if grep -q '"backend":"bpf-core"' "$tmp/auto.json" && ! grep -q '"backend":"text"' "$tmp/auto.json"; then
			ok "auto picked bpf-core: its records say so"
		else
			not_ok "auto said bpf-core, the records say otherwise: $(head -c 300 "$tmp/auto.json")"
		fi
	fi

	# 2. forcing bpf names the missing kfunc and fails
	"$BIN" --backend bpf --count 1 >/dev/null 2>"$tmp/bpf.err"
	rc=$?
	if [ $rc -ne 0 ] && grep -q 'bpf_get_mem_cgroup' "$tmp/bpf.err"; then
		ok "--backend bpf fails naming the kfunc: $(head -1 "$tmp/bpf.err")"
	else
		not_ok "--backend bpf: exit $rc: $(cat "$tmp/bpf.err")"
	fi
fi

# 3. text values == memory.stat (v1: total_* fields under their v2 names).
# The host is live, so the files are read just before and just after the
# sample: a counter must lie between the two reads; a level is judged only
# where it did not move between them (a busy host's levels swing by MiBs
# and back within a second), then give or take 1% + 1 MiB (the sampler's
# own memory). A wrong field mapping is far outside that, on the counters
# and on the quiet cgroups alike.
# Limits print as "max" when unset (v1: the page counter's maximum in bytes,
# from 2^63 - one page up); working_set is usage - inactive_file.
stats=anon,file,shmem,file_mapped,file_dirty,inactive_file,active_file,unevictable,pgfault,pgmajfault,usage
stats=$stats,oom_kill_local,memory_max,memory_peak,working_set
[ $version = 1 ] && stats=$stats,soft_limit || stats=$stats,oom_kill,memory_high,memory_low,memory_min
unlimited_from=$(( (0x7fffffffffffffff / $(getconf PAGESIZE)) * $(getconf PAGESIZE) ))
number() { # number FILE: its value, "max" for no limit
	local v
	read -r v <"$1" || return 1
	if [ "$v" = max ] || { [ ${#v} -ge 19 ] && [ "$v" -ge "$unlimited_from" ] 2>/dev/null; }; then v=max; fi
	echo "$v"
}
# snapshot: "path stat value" for every cgroup below $mdir, v2 names.
snapshot() {
	find "$mdir" -type d | while IFS= read -r dir; do
		path=${dir#"$mdir"}
		[ -n "$path" ] || path=/
		[ -r "$dir/memory.stat" ] || continue
		if [ $version = 1 ]; then
			awk -v p="$path" 'BEGIN { m["rss"] = "anon"; m["cache"] = "file"; m["mapped_file"] = "file_mapped";
				m["dirty"] = "file_dirty"; m["writeback"] = "file_writeback"; m["rss_huge"] = "anon_thp" }
				/^total_/ { n = substr($1, 7); if (n in m) n = m[n]; print p, n, $2 }' "$dir/memory.stat"
			echo "$path usage $(cat "$dir/memory.usage_in_bytes")"
			awk -v p="$path" '$1 == "oom_kill" { print p, "oom_kill_local", $2 }' "$dir/memory.oom_control"
			echo "$path memory_max $(number "$dir/memory.limit_in_bytes")"
			echo "$path memory_peak $(number "$dir/memory.max_usage_in_bytes")"
			echo "$path soft_limit $(number "$dir/memory.soft_limit_in_bytes")"
			echo "$path working_set $(( $(cat "$dir/memory.usage_in_bytes") - \
				$(awk '$1 == "total_inactive_file" { print $2 }' "$dir/memory.stat") ))"
		elif [ -r "$dir/memory.current" ]; then # the v2 root has memory.stat only
			awk -v p="$path" '{ print p, $1, $2 }' "$dir/memory.stat"
			echo "$path usage $(cat "$dir/memory.current")"
			awk -v p="$path" '{ print p, $1, $2 }' "$dir/memory.events"
			awk -v p="$path" '{ print p, $1 "_local", $2 }' "$dir/memory.events.local"
			for f in max high low min peak; do echo "$path memory_$f $(number "$dir/memory.$f")"; done
			echo "$path working_set $(( $(cat "$dir/memory.current") - \
				$(awk '$1 == "inactive_file" { print $2 }' "$dir/memory.stat") ))"
		else
			awk -v p="$path" '{ print p, $1, $2 }' "$dir/memory.stat"
		fi
	done
}
# The sampler's own memory is charged to the cgroup it runs in (and, on v1's
# total_*, its ancestors): compare its second sample, taken while it is
# alive and settled, with reads taken between its samples.
wait_sample() { # wait_sample N: until stderr reports sample N (or the CLI exits)
	while ! grep -q "^sample $1:" "$tmp/text.err" 2>/dev/null && kill -0 "$cli" 2>/dev/null; do
		sleep 0.05
	done
}
# compare_once BACKEND: one sampler run checked against the files; sets $result.
compare_once() {
	backend=$1
	"$BIN" --backend "$backend" --stats "$stats" --count 3 --interval 2 --format json >"$tmp/all.json" 2>"$tmp/text.err" &
	cli=$!
	wait_sample 0
	snapshot >"$tmp/before"
	wait_sample 1
	snapshot >"$tmp/after"
	wait "$cli"
	rc=$?
	grep '"sample":1,' "$tmp/all.json" >"$tmp/text.json"
	rows=$(wc -l <"$tmp/text.json")
	if [ $rc -ne 0 ] || [ "$rows" -lt 1 ]; then
		result="$backend backend: exit $rc, $rows rows: $(cat "$tmp/text.err")"; return 1
	else
		# one "path stat value" line per sampled value (host paths have no spaces or quotes)
		sed -e 's/.*"path":"\([^"]*\)".*"values":{\(.*\)}}$/\1 \2/' "$tmp/text.json" |
			awk '{ n = split($2, kv, ","); for (i = 1; i <= n; i++) { split(kv[i], p, ":");
				gsub(/"/, "", p[1]); gsub(/"/, "", p[2]); print $1, p[1], p[2] } }' >"$tmp/sampled"
		awk -v fb="$tmp/before" -v fa="$tmp/after" '
			BEGIN { while ((getline l < fb) > 0) { split(l, f, " "); b[f[1] " " f[2]] = f[3]; bp[f[1]] = 1 }
				while ((getline l < fa) > 0) { split(l, f, " "); a[f[1] " " f[2]] = f[3]; ap[f[1]] = 1 } }
			# a cgroup that came or went between the reads (the host is live) is not judged
			!($1 in bp) || !($1 in ap) { next }
			{ k = $1 " " $2; checked++
			  if (!(k in b) || !(k in a)) { print "no", k, "in the files, sampled", $3; next }
			  if ($3 == "max" || b[k] == "max" || a[k] == "max") {
				  if ($3 != b[k] || $3 != a[k]) print k, "sampled", $3, "files said", b[k], "then", a[k]
				  next
			  }
			  lo = b[k] + 0 < a[k] + 0 ? b[k] : a[k]; hi = b[k] + 0 < a[k] + 0 ? a[k] : b[k]
			  if ($2 ~ /^(pg|oom)/) slack = 0; else slack = hi * 0.01 + 1048576
			  # a level that moved between the reads (a busy host: a build
			  # mapping and unmapping files) may have swung anywhere and back
			  # when sampled: not judged; the quiet cgroups judge the mapping
			  if (slack > 0 && hi != lo) { checked--; moving++; next }
			  if ($3 < lo - slack || $3 > hi + slack) print k, "sampled", $3, "files said", b[k], "then", a[k] }
			END { print checked + 0, moving + 0 > "/dev/stderr" }' "$tmp/sampled" >"$tmp/diff" 2>"$tmp/checked"
		read -r checked moving <"$tmp/checked"
		if [ ! -s "$tmp/diff" ] && [ "$checked" -gt 0 ]; then
			result="$backend backend (cgroup v$version): $checked values in $rows cgroups match memory.stat ($moving levels moved between the reads, not judged)"; return 0
		else
			result="$backend backend (cgroup v$version) differs from memory.stat: $(head -5 "$tmp/diff")"; return 1
		fi
	fi
}
# A wrong field mapping fails every attempt; the attempts only cover a level
# that swung and came back to the very same byte between the two reads.
backends=text
[ $core = yes ] && backends="text bpf-core"
for b in $backends; do
	for attempt in 1 2 3; do
		compare_once "$b" && break
		echo "# attempt $attempt: $result"
	done
	case $result in
	*" match memory.stat "*) ok "$result (attempt $attempt)" ;;
	*) not_ok "$result" ;;
	esac
done

# pairs BACKEND ARGS...: "path stat" for every value the backend samples, sorted
pairs() {
	b=$1
	shift
	"$BIN" --backend "$b" --stats all --count 1 --format json "$@" 2>/dev/null |
		sed -e 's/.*"path":"\([^"]*\)".*"values":{\(.*\)}}$/\1 \2/' |
		awk '{ n = split($2, kv, ","); for (i = 1; i <= n; i++) { split(kv[i], p, ":"); gsub(/"/, "", p[1]); print $1, p[1] } }' |
		sort
}
# depths BACKEND ARGS...: "path depth" of every row, sorted
depths() {
	b=$1
	shift
	"$BIN" --backend "$b" --stats anon --count 1 --format json "$@" 2>/dev/null |
		sed -n 's/.*"path":"\([^"]*\)","depth":\([0-9]*\),.*/\1 \2/p' | sort
}
# only_common A B: the lines of A whose path (first field) is also in B (the host is live)
only_common() { awk 'NR == FNR { seen[$1] = 1; next } $1 in seen' "$2" "$1"; }

if [ $core = yes ]; then
	# 3b. the same stats of the same cgroups in bpf-core as in text
	pairs text --max-depth 2 >"$tmp/pairs.text"
	pairs bpf-core --max-depth 2 >"$tmp/pairs.core"
	only_common "$tmp/pairs.text" "$tmp/pairs.core" >"$tmp/pairs.text.c"
	only_common "$tmp/pairs.core" "$tmp/pairs.text" >"$tmp/pairs.core.c"
	n=$(wc -l <"$tmp/pairs.text.c")
	if [ "$n" -gt 0 ] && cmp -s "$tmp/pairs.text.c" "$tmp/pairs.core.c"; then
		ok "bpf-core samples the same $n (cgroup, stat) pairs as text (cgroup v$version, root included)"
	else
		not_ok "bpf-core and text sample different values: $(diff "$tmp/pairs.text.c" "$tmp/pairs.core.c" | grep '^[<>]' | head -5 | tr '\n' ' ')"
	fi

	# 3c. depth is relative to --root: a subtree root is depth 0 in both backends
	sub=
	for d in "$mdir"/*/; do
		[ -r "$d/memory.stat" ] && sub=${d%/} && break
	done
	if [ -z "$sub" ]; then
		skip "no cgroup below $mdir to use as a subtree root"
	else
		for limit in "" "--max-depth 8"; do
			# shellcheck disable=SC2086 # $limit is zero or two words
			depths text --root "$sub" $limit >"$tmp/depth.text"
			# shellcheck disable=SC2086
			depths bpf-core --root "$sub" $limit >"$tmp/depth.core"
			only_common "$tmp/depth.text" "$tmp/depth.core" >"$tmp/depth.text.c"
			only_common "$tmp/depth.core" "$tmp/depth.text" >"$tmp/depth.core.c"
			root=$(awk '$1 == "/" { print $2 }' "$tmp/depth.core.c")
			if [ "$root" = 0 ] && cmp -s "$tmp/depth.text.c" "$tmp/depth.core.c"; then
				ok "--root $sub ${limit:-(no --max-depth)}: $(wc -l <"$tmp/depth.core.c") rows, the same depths in text and bpf-core, the root at 0"
			else
				not_ok "--root $sub ${limit:-(no --max-depth)}: root depth '${root}' in bpf-core; $(diff "$tmp/depth.text.c" "$tmp/depth.core.c" | grep '^[<>]' | head -4 | tr '\n' ' ')"
			fi
		done
	fi
fi

# 4. an unknown stat is a usage error listing the nearest names
"$BIN" --stats anon,anonn --count 1 >/dev/null 2>"$tmp/unknown.err"
rc=$?
if [ $rc -eq 2 ] && grep -q "unknown stat 'anonn'; nearest valid names: anon" "$tmp/unknown.err"; then
	ok "unknown stat: $(cat "$tmp/unknown.err")"
else
	not_ok "unknown stat: exit $rc: $(cat "$tmp/unknown.err")"
fi

echo "$pass passed, $fail failed, $skip skipped"
[ $fail -eq 0 ]
