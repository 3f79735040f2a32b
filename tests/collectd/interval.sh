#!/bin/bash
# (c) An Interval in <LoadPlugin memcg_bpf> is honoured: the plugin registers
# its read callback with interval 0, so collectd applies the LoadPlugin
# Interval (2 s here) while the global Interval (1 s) still drives the load
# plugin in the same daemon. SelfInterval 4 sends the self values with
# every other read, starting with the first.
set -u
. "$(dirname "$0")/lib.sh"
setup

dir=$(write_conf interval 1 "  Interval 2" '  Stat "anon"
  SelfInterval 4')
start_daemon "$dir"
check "memcg_bpf wrote 5 samples" wait_rows "csv_file '$dir' root bytes-anon" 5 30
stop_daemon

memcg=$(csv_file "$dir" root bytes-anon)
load=$(load_csv "$dir")
gaps() { awk -F, 'NR > 2 { printf "%.2f ", $1 - prev } NR > 1 { prev = $1 }' "$1"; }
echo "# memcg_bpf gaps: $(gaps "$memcg")"
echo "# load gaps:      $(gaps "$load")"
# apart_ok EXPECTED SKIP FILE MIN: the rows after the first SKIP gaps are on
# average EXPECTED s apart (within 5%), each gap within half an interval of
# it: collectd schedules reads on absolute times, so a read that a busy
# machine delays comes late alone (2.10 then 1.90 s), and an interval of
# 1 or 4 s instead of 2 still fails
apart_ok() {
	awk -F, -v want="$1" -v skip="$2" -v min="$4" 'NR > 1 && NR <= skip + 1 { first = $1; prev = $1; next }
		NR > skip + 1 { d = $1 - prev; n++; if (d < want / 2 || d > want * 1.5) bad = 1; prev = $1 }
		END { exit bad || n < min || (prev - first) / n < want * 0.95 || (prev - first) / n > want * 1.05 }' "$3"
}
check "memcg_bpf rows are 2 s apart (LoadPlugin Interval 2)" apart_ok 2 1 "$memcg" 3
# (from its second gap: collectd times the first one from before the plugins'
# init, and bpf-core's takes a few tenths of a second: BPF load, start-up check)
check "load rows are 1 s apart (global Interval 1)" apart_ok 1 2 "$load" 6
m=$(rows "$memcg") l=$(rows "$load")
check "over the same run memcg_bpf wrote about half the rows of load ($m vs $l)" \
	awk -v m="$m" -v l="$l" 'BEGIN { exit !(m > 0 && m * 2 >= l - 2 && m * 2 <= l + 2) }'
self=$(csv_file "$dir" self count-cgroups_seen)
echo "# self gaps:      $(gaps "$self")"
# the first self row is the first read's, then every other read's
self_every_other() {
	[ "$(sed -n 2p "$self" | cut -d, -f1)" = "$(sed -n 2p "$memcg" | cut -d, -f1)" ] && apart_ok 4 1 "$self" 1
}
check "self values every other read (SelfInterval 4 at Interval 2), from the first" self_every_other
check "the log says how often self values go" \
	grep -q 'self values go to collectd every 2 reads (4 s; SelfInterval 4)' "$dir/collectd.log"
finish
