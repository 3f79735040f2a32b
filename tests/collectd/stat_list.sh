#!/bin/bash
# Stat lists as an operator writes them (issue 47):
#  - Stat "default" "anon_thp" keeps every series of the default set, for
#    the same cgroups, and adds anon_thp: the files it writes are the
#    default run's plus anon_thp's, and it warns about nothing the shipped
#    rules read;
#  - a list without working_set gets exactly one warning at start, naming
#    container_memory_working_set_bytes, and still samples what it names.
# Read only: nothing here writes to the host's cgroups.
set -u
. "$(dirname "$0")/lib.sh"
setup

ADVICE='leaves out'

# run NAME BODY: 3 samples of the top of the tree (MaxDepth 1)
run() {
	local dir
	dir=$(write_conf "$1" 1 "" "$2
  MaxDepth 1")
	start_daemon "$dir"
	wait_rows "csv_file '$dir' root bytes-anon" 3 20
	stop_daemon
	echo "$dir"
}
# files DIR: "instance/value" of every memcg_bpf cgroup csv file, sorted
files() {
	(cd "$1/csv/$HOSTNAME_CD" && for f in memcg_bpf-*/*; do
		case $f in memcg_bpf-self/*) continue ;; esac
		echo "${f%-[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]}"
	done) | LC_ALL=C sort -u
}
advice_lines() { grep -c "$ADVICE" "$1/collectd.log"; }

plain=$(run default '')
plus=$(run default-plus '  Stat "default" "anon_thp"')
files "$plain" >"$T/plain"
files "$plus" >"$T/plus"
# the instances both runs wrote (a cgroup may come or go between them)
comm -12 <(cut -d/ -f1 "$T/plain" | sort -u) <(cut -d/ -f1 "$T/plus" | sort -u) >"$T/both"
grep -F -f <(sed 's|$|/|' "$T/both") "$T/plain" >"$T/plain.both"
grep -F -f <(sed 's|$|/|' "$T/both") "$T/plus" >"$T/plus.both"
n=$(wc -l <"$T/both")
check "the two runs share cgroups to compare ($n)" test "$n" -ge 2
missing=$(comm -23 "$T/plain.both" "$T/plus.both" | head -n 5 | tr '\n' ' ')
check "Stat \"default\" \"anon_thp\" keeps every default series (missing: ${missing:-none})" test -z "$missing"
added=$(comm -13 "$T/plain.both" "$T/plus.both" | sed 's|.*/||' | sort -u | tr '\n' ' ')
check "and adds anon_thp alone (added: ${added:-nothing})" test "$added" = "bytes-anon_thp "
check "no warning about the shipped rules' stats with \"default\" in the list" \
	test "$(advice_lines "$plus")" = 0
check "none with the default set" test "$(advice_lines "$plain")" = 0

short=$(run short '  Stat "anon" "usage"')
check "a list without working_set: exactly one warning at start ($(advice_lines "$short"))" \
	test "$(advice_lines "$short")" = 1
line=$(grep "$ADVICE" "$short/collectd.log")
echo "# $line"
check "it is a warning and names container_memory_working_set_bytes" \
	bash -c 'case $1 in *"[warning]"*container_memory_working_set_bytes*) ;; *) exit 1 ;; esac' _ "$line"
check "and says how to keep the default set" bash -c 'case $1 in *"Stat \"default\""*) ;; *) exit 1 ;; esac' _ "$line"
check "the short list still samples what it names" test "$(rows "$(csv_file "$short" root bytes-usage)")" -ge 3
finish
