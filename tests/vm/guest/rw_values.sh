# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=sh
# Remote write end to end, checked by value (the arm64 sets, issue 47):
# functions only, sourced by run-tests.sh after lib.sh, tree.sh and
# receivers.sh; they use run-tests.sh's collectd helpers (collectd_conf,
# stop_checked, checked, CD_STATS).
#   rw_values CONFIG_BACKEND BACKEND MIN
#       the real collectd with memcg_bpf (Backend CONFIG_BACKEND, the stats
#       of CD_STATS, the whole tree; its loads are stopped, so every page
#       counter is idle) ships remote write 1.0 into VictoriaMetrics in the
#       guest. Once two samples have arrived it is stopped: its log must say
#       "backend BACKEND" and no error. Then every series VictoriaMetrics
#       holds, at its last value, is written as a record of its cgroup
#       (rx_records) and check_values fs compares them with memory.stat /
#       memory.current / memory.events read right after: every memory
#       cgroup exactly once (at least MIN), nothing else, every value equal,
#       and each cgroup but the root with a series of every stat. A control
#       first: the export with one value changed must fail with exactly
#       that mismatch.

RW_RUN=rw # the static label run of these series

# rw_export FILE: the series of CD_STATS that VictoriaMetrics holds (label
# run=RW_RUN), as its /api/v1/export writes them (one JSON object a line).
rw_export() {
	m="{__name__=~\"memcg_($(echo "$CD_STATS" | tr ' ' '|'))(_bytes|_total)?\",run=\"$RW_RUN\"}"
	# what was ingested last is searchable once flushed
	wget -q -O /dev/null "$VM_URL/internal/force_flush" 2>/dev/null
	wget -q -O "$1" "$VM_URL/api/v1/export?match%5B%5D=$(urlenc "$m")" 2>/dev/null
}

rw_values() {
	have_collectd || return 77
	d=$WORK/rw-$1
	rm -rf "$d"
	mkdir -p "$d"
	vm_start || return 1
	stats=$(for s in $CD_STATS; do printf '"%s" ' "$s"; done)
	collectd_conf "$d" 2 csv "  Backend \"$1\"
  CgroupRoot \"$CG\"
  Stat $stats
  DispatchValues false
  SelfInterval 0
  Label \"run\" \"$RW_RUN\"
  URL \"$VM_URL/api/v1/write\"" || { receivers_stop; return 1; }
	ncg=$(count_cgroups "$CG")
	start=$(date +%s)
	"$COLLECTD" -f -C "$d/collectd.conf" > "$d/stdout" 2>&1 &
	cpid=$!
	# two samples' self values arrived: one sender ships in order, so the
	# first sample's series are all in
	t=0
	until [ "$(rx_query "$VM_URL" "count_over_time(memcg_bpf_cgroups_selected{run=\"$RW_RUN\"}[10m])" | cut -d' ' -f1)" -ge 2 ] 2>/dev/null; do
		t=$((t + 1))
		if [ $t -gt 180 ] || ! kill -0 $cpid 2>/dev/null; then
			stop_collectd $cpid
			cat "$d/stdout" "$d/collectd.log"
			why "no 2 samples in VictoriaMetrics after $(($(date +%s) - start)) s (collectd $CD_RC): $(grep -iE 'error' "$d/collectd.log" "$d/stdout" | head -n 1 | cut -c 1-200)"
			receivers_stop
			return 1
		fi
		sleep 1
	done
	secs=$(($(date +%s) - start))
	stop_checked $cpid "$d" "$2" collectd || { receivers_stop; return 1; }
	rw_export "$d/export.json" || { why "cannot export from VictoriaMetrics"; receivers_stop; return 1; }
	receivers_stop
	rx_records "$CG" "$d/export.json" > "$d/records.json" 2> "$d/rx_records.err"
	rc=$?
	cat "$d/rx_records.err"
	if [ $rc -ne 0 ]; then why "$(head -n 2 "$d/rx_records.err" | tr '\n' ' ' | cut -c 1-300)"; return 1; fi
	info "collectd (Backend $1) shipped 2 samples in ${secs}s; VictoriaMetrics: $(tail -n 1 "$d/rx_records.err" | sed 's/^rx_records: //; s/, 0 problems//') ($ncg cgroup dirs)"
	rw_control "$d" || return 1
	checked fs -n "$3" "$CG" "$d/records.json" || return 1
	values=$(sed -n 's/^check_values fs: .* values=\([0-9]*\) .*/\1/p' "$WORK/check")
	want=$(((ncg - 1) * $(echo "$CD_STATS" | wc -w)))
	[ "$values" = "$want" ] || { why "$values values compared, want $want: $((ncg - 1)) cgroups x $(echo "$CD_STATS" | wc -w) stats"; return 1; }
}

# rw_control DIR: DIR/export.json with every value of one series (/vt's
# usage) made 1 must fail check_values with that one mismatch.
rw_control() {
	# (the labels in the order VictoriaMetrics keeps them: each matched alone)
	awk 'index($0, "\"__name__\":\"memcg_usage_bytes\"") && index($0, "\"cgroup\":\"/vt\"") && !done {
		i = index($0, "\"values\":[") + 10; n = index(substr($0, i), "]") - 1
		v = substr($0, i, n); gsub(/[0-9]+/, "1", v)
		$0 = substr($0, 1, i - 1) v substr($0, i + n); done = 1 } 1' "$1/export.json" > "$1/control.json"
	rx_records "$CG" "$1/control.json" > "$1/control.records" 2>/dev/null &&
		! check_values fs "$CG" "$1/control.records" > "$1/control.out" 2>&1 &&
		grep -q '^check_values fs: .* mismatches=1 ' "$1/control.out" &&
		grep -q '^check_values: /vt: usage: reported 1, cgroupfs ' "$1/control.out" && return 0
	cat "$1/control.out"
	why "control: /vt's usage made 1 in the export, check_values did not find that one mismatch: $(grep '^check_values fs:' "$1/control.out")"
	return 1
}

t_rw_values_bpf() { rw_values auto bpf 200; }
t_rw_values_core() { rw_values auto bpf-core 200; }
