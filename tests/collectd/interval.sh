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
check "memcg_bpf rows are 2 s apart (LoadPlugin Interval 2)" \
	awk -F, 'NR > 2 { d = $1 - prev; n++; if (d < 1.9 || d > 2.1) bad = 1 } NR > 1 { prev = $1 } END { exit bad || n < 3 }' "$memcg"
# (from its second gap: collectd times the first one from before the plugins'
# init, and bpf-core's takes a few tenths of a second: BPF load, start-up check)
check "load rows are 1 s apart (global Interval 1)" \
	awk -F, 'NR > 3 { d = $1 - prev; n++; if (d < 0.9 || d > 1.1) bad = 1 } NR > 1 { prev = $1 } END { exit bad || n < 6 }' "$load"
m=$(rows "$memcg") l=$(rows "$load")
check "over the same run memcg_bpf wrote about half the rows of load ($m vs $l)" \
	awk -v m="$m" -v l="$l" 'BEGIN { exit !(m > 0 && m * 2 >= l - 2 && m * 2 <= l + 2) }'
self=$(csv_file "$dir" self count-cgroups_seen)
echo "# self gaps:      $(gaps "$self")"
check "self values every other read (SelfInterval 4 at Interval 2), from the first" \
	awk -F, -v first="$(sed -n 2p "$memcg" | cut -d, -f1)" '
		NR == 2 && $1 != first { bad = 1 }
		NR > 2 { d = $1 - prev; n++; if (d < 3.9 || d > 4.1) bad = 1 }
		NR > 1 { prev = $1 }
		END { exit bad || n < 1 }' "$self"
check "the log says how often self values go" \
	grep -q 'self values go to collectd every 2 reads (4 s; SelfInterval 4)' "$dir/collectd.log"
finish
