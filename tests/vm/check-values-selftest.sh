#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# Host-side self-test of the guest comparator (guest/check_values.c): on a
# fake cgroupfs made of plain files it must accept correct JSON and reject
# each kind of wrong JSON. run.sh runs it before booting anything, so that a
# comparator that cannot fail never reports a VM run as passed.
#
#   tests/vm/check-values-selftest.sh [CHECK_VALUES_BINARY]
set -u

here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/memcg-check-values.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
if [ $# -ge 1 ]; then
	cv=$1
else
	cv=$tmp/check_values
	top=$(cd "$here/../.." && pwd)
	extra=
	for f in $(grep -v '^#' "$here/guest/check_values.sources"); do
		extra="$extra $top/$f -I$top/plugin -I$top"
	done
	# shellcheck disable=SC2086 # $extra is a list of words
	${CC:-gcc} -O2 -Wall -Wextra -o "$cv" "$here/guest/check_values.c" $extra || exit 1
fi

pass=0 fail=0
# expect RC NAME COMMAND...: the comparator must exit RC.
expect() {
	want=$1 name=$2
	shift 2
	"$@" > "$tmp/out" 2>&1
	rc=$?
	if [ "$rc" -eq "$want" ]; then
		pass=$((pass + 1))
	else
		fail=$((fail + 1))
		echo "check-values-selftest: FAIL $name: exit $rc, expected $want"
		sed 's/^/  | /' "$tmp/out"
	fi
}

# A fake cgroup tree: R, R/a, R/a/<tab and quote>, R/a/<0xE9 byte>,
# R/a/<newline>, R/a/<255-byte name>.
R=$tmp/root
TAB=$(printf '\t')
ODD="x${TAB}y\"z\\w"
RAW=$(printf 'r\351')
NL="new
line"
LONG=$(printf '%0255d' 0 | tr 0 L)
mkdir -p "$R/a/$ODD" "$R/a/$RAW" "$R/a/$NL" "$R/a/$LONG"
for d in "$R/a" "$R/a/$ODD" "$R/a/$RAW" "$R/a/$NL" "$R/a/$LONG"; do
	printf 'anon 4096\nfile 8192\nslab 100\ninactive_file 4096\n' > "$d/memory.stat"
	echo 12288 > "$d/memory.current"
	printf 'low 0\nhigh 1\nmax 2\noom 0\noom_kill 3\noom_group_kill 0\nsock_throttled 0\n' > "$d/memory.events"
	printf 'low 0\nhigh 0\nmax 0\noom 0\noom_kill 1\noom_group_kill 0\nsock_throttled 0\n' > "$d/memory.events.local"
	echo max > "$d/memory.max"
	echo 1048576 > "$d/memory.high"
	printf 'some avg10=0.00 avg60=0.00 avg300=0.00 total=5000000\nfull avg10=0.00 avg60=0.00 avg300=0.00 total=700\n' \
		> "$d/memory.pressure"
done
# R/a/nomem: a cgroup without the memory controller (memory.pressure, no memory.stat): no row
mkdir "$R/a/nomem"
cp "$R/a/memory.pressure" "$R/a/nomem/"
ino() { stat -c %i "$1"; }
iR=$(ino "$R") iA=$(ino "$R/a") iO=$(ino "$R/a/$ODD") iX=$(ino "$R/a/$RAW")
iN=$(ino "$R/a/$NL") iL=$(ino "$R/a/$LONG")

# rec ID PATH_JSON DEPTH VALUES_JSON [SAMPLE]
rec() {
	printf '{"sample":%s,"ts_ms":1,"backend":"bpf","cgroup_id":%s,"path":"%s","depth":%s,"values":{%s}}\n' \
		"${5:-0}" "$1" "$2" "$3" "$4"
}
V='"anon":4096,"file":8192,"slab":100,"usage":12288,"max":2,"oom_kill":3,"oom_kill_local":1'
V=$V',"memory_max":"max","memory_high":1048576,"working_set":8192,"pressure_some":4000000,"pressure_full":700'
good() {
	rec "$iR" / 0 '"anon":1'
	rec "$iA" /a 1 "$V"
	rec "$iO" '/a/x\ty\"z\\w' 2 "$V"
	rec "$iX" '/a/r\udce9' 2 "$V"
	rec "$iN" '/a/new\nline' 2 "$V"
	rec "$iL" "/a/$LONG" 2 "$V"
}
good > "$tmp/good.json"

expect 0 fs-good "$cv" fs -n 6 "$R" "$tmp/good.json"
expect 1 fs-too-few "$cv" fs -n 7 "$R" "$tmp/good.json"
sed 's/"anon":4096,"file"/"anon":4097,"file"/' "$tmp/good.json" > "$tmp/j"
expect 1 fs-value-off-by-one "$cv" fs "$R" "$tmp/j"
sed 's/"usage":12288/"usage":12287/' "$tmp/good.json" > "$tmp/j"
expect 1 fs-usage-differs "$cv" fs "$R" "$tmp/j"
sed 's/"oom_kill":3/"oom_kill":0/' "$tmp/good.json" > "$tmp/j"
expect 1 fs-event-differs "$cv" fs "$R" "$tmp/j"
sed 's/"oom_kill_local":1/"oom_kill_local":3/' "$tmp/good.json" > "$tmp/j"
expect 1 fs-local-event-is-not-subtree "$cv" fs "$R" "$tmp/j"
sed 's/"memory_max":"max"/"memory_max":9223372036854771712/' "$tmp/good.json" > "$tmp/j"
expect 1 fs-max-is-not-a-number "$cv" fs "$R" "$tmp/j"
sed 's/"memory_high":1048576/"memory_high":"max"/' "$tmp/good.json" > "$tmp/j"
expect 1 fs-limit-is-not-max "$cv" fs "$R" "$tmp/j"
sed 's/"working_set":8192/"working_set":12288/' "$tmp/good.json" > "$tmp/j"
expect 1 fs-working-set-is-usage-minus-inactive-file "$cv" fs "$R" "$tmp/j"
sed 's/"pressure_some":4000000/"pressure_some":5000001/' "$tmp/good.json" > "$tmp/j"
expect 1 fs-pressure-ahead-of-the-file "$cv" fs "$R" "$tmp/j"
sed 's/"pressure_some":4000000/"pressure_some":1000000/' "$tmp/good.json" > "$tmp/j"
expect 1 fs-pressure-too-far-behind "$cv" fs "$R" "$tmp/j"
sed 's/"slab":100/"slab":100,"nosuch":0/' "$tmp/good.json" > "$tmp/j"
expect 1 fs-unknown-value "$cv" fs "$R" "$tmp/j"
grep -v '"path":"/a/r' "$tmp/good.json" > "$tmp/j"
expect 1 fs-cgroup-missing "$cv" fs "$R" "$tmp/j"
{ good; rec "$iA" /a 1 "$V"; } > "$tmp/j"
expect 1 fs-cgroup-twice "$cv" fs "$R" "$tmp/j"
sed "s/\"cgroup_id\":$iA,/\"cgroup_id\":$((iA + 1000)),/" "$tmp/good.json" > "$tmp/j"
expect 1 fs-wrong-id "$cv" fs "$R" "$tmp/j"
sed 's/"path":"\/a","depth":1/"path":"\/a","depth":2/' "$tmp/good.json" > "$tmp/j"
expect 1 fs-wrong-depth "$cv" fs "$R" "$tmp/j"
sed 's/r\\udce9/r\\udce8/' "$tmp/good.json" > "$tmp/j"
expect 1 fs-wrong-escape "$cv" fs "$R" "$tmp/j"
# \u00e9 is the character U+00E9 (bytes c3 a9), not the byte 0xE9
sed 's/r\\udce9/r\\u00e9/' "$tmp/good.json" > "$tmp/j"
expect 1 fs-char-is-not-byte "$cv" fs "$R" "$tmp/j"
sed 's/new\\nline/new\\tline/' "$tmp/good.json" > "$tmp/j"
expect 1 fs-newline-as-tab "$cv" fs "$R" "$tmp/j"
sed 's/LLLL"/LLL"/' "$tmp/good.json" > "$tmp/j"
expect 1 fs-long-name-cut "$cv" fs "$R" "$tmp/j"
sed 's/"values":{"anon":4096,/"values":{/; s/}}$/}/' "$tmp/good.json" > "$tmp/j"
expect 1 fs-bad-json "$cv" fs "$R" "$tmp/j"
{ good; rec "$iA" /a 1 ''; } | sed '2d' > "$tmp/j"
expect 1 fs-no-values "$cv" fs "$R" "$tmp/j"
{ good; rec "$(ino "$R/a/nomem")" /a/nomem 2 '"pressure_some":4000000'; } > "$tmp/j"
expect 1 fs-row-without-memory-controller "$cv" fs "$R" "$tmp/j"

expect 0 cmp-same "$cv" cmp "$tmp/good.json" "$tmp/good.json"
sed 's/"slab":100/"slab":101/' "$tmp/good.json" > "$tmp/j"
expect 1 cmp-value-differs "$cv" cmp "$tmp/good.json" "$tmp/j"
sed 's/,"slab":100//' "$tmp/good.json" > "$tmp/j"
expect 1 cmp-value-one-side "$cv" cmp "$tmp/good.json" "$tmp/j"
expect 1 cmp-value-other-side "$cv" cmp "$tmp/j" "$tmp/good.json"
grep -v '"path":"/a/r' "$tmp/good.json" > "$tmp/j"
expect 1 cmp-cgroup-one-side "$cv" cmp "$tmp/good.json" "$tmp/j"

ids_stdin() { "$cv" ids "$R" "$tmp/created" - < "$1"; }
# ids: "gone" was created (inode 999999999) and removed meanwhile.
echo "999999999 /gone" > "$tmp/created"
{ good; rec 999999999 /gone 1 "$V" 1; rec "$iA" /a 1 "$V" 1; } > "$tmp/ids.json"
expect 0 ids-good "$cv" ids -c 2 "$R" "$tmp/created" "$tmp/ids.json"
expect 1 ids-missing-sample "$cv" ids -c 3 "$R" "$tmp/created" "$tmp/ids.json"
{ good; rec 999999999 /other 1 "$V" 1; } > "$tmp/j"
expect 1 ids-wrong-path "$cv" ids "$R" "$tmp/created" "$tmp/j"
{ good; rec 888888888 /gone 1 "$V" 1; } > "$tmp/j"
expect 1 ids-never-created "$cv" ids "$R" "$tmp/created" "$tmp/j"
{ good; rec "$iA" /a/renamed 2 "$V" 1; } > "$tmp/j"
expect 1 ids-two-paths "$cv" ids "$R" "$tmp/created" "$tmp/j"
# The JSON from stdin (how churn_soak streams it), a created path with an
# escaped newline, depth and duplicate checks, gaps between samples.
printf '999999998 /gone\\x0anl\n999999997 /half' >> "$tmp/created"
{ good; rec 999999998 '/gone\nnl' 1 "$V" 1; rec "$iN" '/a/new\nline' 2 "$V" 2; } > "$tmp/j"
expect 0 ids-stdin-escaped-log ids_stdin "$tmp/j"
{ good; rec 999999998 '/gone\tnl' 1 "$V" 1; } > "$tmp/j"
expect 1 ids-stdin-wrong-path ids_stdin "$tmp/j"
{ good; rec 999999997 /half 1 "$V" 1; } > "$tmp/j"
expect 1 ids-log-line-unfinished ids_stdin "$tmp/j"
{ good; rec "$iA" /a 2 "$V" 1; } > "$tmp/j"
expect 1 ids-wrong-depth ids_stdin "$tmp/j"
{ good; rec "$iA" /a 1 "$V" 0; } > "$tmp/j"
expect 1 ids-twice-in-sample ids_stdin "$tmp/j"
{ good; rec "$iA" /a 1 "$V" 2; } > "$tmp/j"
expect 1 ids-sample-gap ids_stdin "$tmp/j"

# csv: what collectd's csv plugin writes for memcg_bpf. The plugin_instance
# names are written out by hand from the rule in plugin/series/instance_name.h, so
# that the comparator's naming is checked too.
H=$tmp/csv/host
csv_good() {
	rm -rf "$H"
	for inst in root self a 'a_x+09y+22z+5cw' 'a_r+e9' 'a_new+0aline' "$LONG_INST"; do
		mkdir -p "$H/memcg_bpf-$inst"
		[ "$inst" = self ] && continue
		printf 'epoch,value\n1.000,4000.000000\n2.000,4096.000000\n' > "$H/memcg_bpf-$inst/bytes-anon-2026-01-01"
		printf 'epoch,value\n2.000,12288.000000\n' > "$H/memcg_bpf-$inst/bytes-usage-2026-01-01"
		printf 'epoch,value\n2.000,3\n' > "$H/memcg_bpf-$inst/derive-oom_kill-2026-01-01"
		printf 'epoch,value\n2.000,2\n' > "$H/memcg_bpf-$inst/derive-max-2026-01-01"
	done
}
# /a/<255 x L>: the first 101 bytes of its name, "+h", 24 hex digits of SHA-256 of the path
LONG_INST=$(printf '%s' "a_$LONG" | cut -c 1-101)+h$(printf '%s' "/a/$LONG" | sha256sum | cut -c 1-24)
S=anon,usage,oom_kill,max
csv_good
expect 0 csv-good "$cv" csv -n 5 "$R" "$H" "$S"
expect 1 csv-too-few "$cv" csv -n 6 "$R" "$H" "$S"
echo '3.000,4097.000000' >> "$H/memcg_bpf-a_x+09y+22z+5cw/bytes-anon-2026-01-01"
expect 1 csv-last-row-off "$cv" csv "$R" "$H" "$S"
csv_good
printf 'epoch,value\n3.000,1\n' > "$H/memcg_bpf-a/derive-oom_kill-2026-01-02"
expect 1 csv-newer-day-differs "$cv" csv "$R" "$H" "$S"
csv_good
echo '3.000,4096.500000' >> "$H/memcg_bpf-a/bytes-anon-2026-01-01"
expect 1 csv-not-whole "$cv" csv "$R" "$H" "$S"
csv_good
rm "$H/memcg_bpf-a_r+e9/bytes-usage-2026-01-01"
expect 1 csv-file-missing "$cv" csv "$R" "$H" "$S"
csv_good
mv "$H/memcg_bpf-a_r+e9" "$H/memcg_bpf-a_r+e8"
expect 1 csv-wrong-name "$cv" csv "$R" "$H" "$S"
csv_good
mkdir "$H/memcg_bpf-zzz"
expect 1 csv-unknown-dir "$cv" csv "$R" "$H" "$S"
csv_good
expect 1 csv-stat-not-in-cgroupfs "$cv" csv "$R" "$H" "$S,nosuch"

# Per-node values (memory.numa_stat): a tree of its own, two nodes.
NR=$tmp/numa
mkdir -p "$NR/n"
printf 'anon 4096\nnuma_pte_updates 5\n' > "$NR/n/memory.stat"
printf 'anon N0=4096 N1=8192\nfile N0=0 N1=12288\nworkingset_refault_file N0=3 N1=0\n' > "$NR/n/memory.numa_stat"
iNR=$(ino "$NR") iNN=$(ino "$NR/n")
numa_rec() {
	printf '{"sample":0,"ts_ms":1,"backend":"bpf","cgroup_id":%s,"path":"/","depth":0,"values":{"anon":1}}\n' "$iNR"
	printf '{"sample":0,"ts_ms":1,"backend":"bpf","cgroup_id":%s,"path":"/n","depth":1,"values":{"anon":4096,"numa_pte_updates":5},"numa":{%s}}\n' \
		"$iNN" "$1"
}
N='"anon":{"0":4096,"1":8192},"file":{"0":0,"1":12288},"workingset_refault_file":{"0":3,"1":0}'
numa_rec "$N" > "$tmp/j"
expect 0 numa-good "$cv" fs -N 2 "$NR" "$tmp/j"
sed 's/"numa_pte_updates":5/"numa_pte_updates":6/' "$tmp/j" > "$tmp/k"
expect 1 numa-named-memory-stat-value-is-memory-stat-s "$cv" fs "$NR" "$tmp/k"
numa_rec "$(echo "$N" | sed 's/"1":8192/"1":8193/')" > "$tmp/j"
expect 1 numa-value-off-by-one "$cv" fs "$NR" "$tmp/j"
numa_rec "$(echo "$N" | sed 's/"0":4096,"1":8192/"0":8192,"1":4096/')" > "$tmp/j"
expect 1 numa-nodes-swapped "$cv" fs "$NR" "$tmp/j"
numa_rec "$(echo "$N" | sed 's/"0":0,"1":12288/"0":0/')" > "$tmp/j"
expect 1 numa-node-missing "$cv" fs -N 2 "$NR" "$tmp/j"
numa_rec "$N"',"shmem":{"0":0,"1":0}' > "$tmp/j"
expect 1 numa-stat-not-in-file "$cv" fs "$NR" "$tmp/j"
numa_rec "$(echo "$N" | sed 's/"1":12288/"2":12288/')" > "$tmp/j"
expect 1 numa-no-such-node "$cv" fs "$NR" "$tmp/j"
printf '{"sample":0,"ts_ms":1,"backend":"bpf","cgroup_id":%s,"path":"/","depth":0,"values":{"anon":1}}\n{"sample":0,"ts_ms":1,"backend":"bpf","cgroup_id":%s,"path":"/n","depth":1,"values":{"anon":4096}}\n' \
	"$iNR" "$iNN" > "$tmp/j"
expect 1 numa-object-missing "$cv" fs -N 2 "$NR" "$tmp/j"
numa_rec "$N" > "$tmp/a"
numa_rec "$(echo "$N" | sed 's/"0":3/"0":4/')" > "$tmp/b"
expect 1 numa-cmp-differs "$cv" cmp "$tmp/a" "$tmp/b"
expect 0 numa-cmp-same "$cv" cmp "$tmp/a" "$tmp/a"

echo "check-values-selftest: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
