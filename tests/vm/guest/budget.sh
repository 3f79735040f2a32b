# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=sh
# The cgroup budget (issue 38): functions only, sourced by run-tests.sh after
# lib.sh, tree.sh and receivers.sh; they use run-tests.sh's collectd helpers.
#   budget  a tenant subtree of 3,000 cgroups beside 20 system services; the
#           real collectd with memcg_bpf ships to a real VictoriaMetrics,
#           with MaxChildren 100, with MaxCgroups 300 (Backend auto), and
#           with MaxChildren 100 on the text backend. Each time, over the
#           whole run: every service has its series; the tenant's parent
#           has no more children with series than the budget allows (a
#           cgroup that got a series once counts: no churn); its largest
#           cgroups are among them; the cut is counted on the wire and
#           named once in the log; every cgroup with a usage series has its
#           anon series too (a cut cgroup is read for usage alone: none of
#           those partial rows ships); and the CLI with the same budget
#           keeps the same set.

BT_SERVICES=20
BT_TENANT=3000
BT_LOADED="2990 2991 2992 2993 2994" # the tenant's largest: young ids, so only size keeps them
BT_PARENT=/user.slice/user-1000.slice
BT_SAMPLES=8 # samples each run waits for

budget_tree() {
	r=$CG/bt
	mkdir -p "$r/system.slice" "$r/user.slice/user-1000.slice" || { why "cannot create $r"; return 1; }
	for d in "$CG" "$r" "$r/system.slice" "$r/user.slice" "$r$BT_PARENT"; do
		enable_memory "$d" || return 1
	done
	# shellcheck disable=SC2046 # one word per directory
	(cd "$r/system.slice" && mkdir $(seq 0 $((BT_SERVICES - 1)) | sed 's/.*/svc&.service/')) ||
		{ why "cannot create the services"; return 1; }
	# shellcheck disable=SC2034 # grow_tree's count (bench.sh)
	have=0
	grow_tree "$r$BT_PARENT" $BT_TENANT || return 1
	# loads before the first sample: a budget's first choice is then its last
	: > "$WORK/bt.pids"
	for i in $BT_LOADED; do
		( echo 0 > "$r$BT_PARENT/c$i/cgroup.procs" && exec memload -a 8 -r "$WORK/bt.ready$i" ) &
		echo $! >> "$WORK/bt.pids"
	done
	for i in $BT_LOADED; do
		wait_ready "$WORK/bt.ready$i" "memload in c$i" || return 1
	done
}

# bt_value EXPR: the value of the query's one series ("" when none).
bt_value() { rx_query "$VM_URL" "$1" | head -n 1 | cut -d' ' -f1; }

# budget_run NAME BACKEND BUDGET_LINE TENANT_MAX TOTAL CLI_FLAGS: collectd
# with memcg_bpf (BACKEND) and BUDGET_LINE (label run=NAME) for BT_SAMPLES
# samples into VictoriaMetrics; then the checks. TENANT_MAX: the most tenant
# children with series; TOTAL: the cgroups kept in all; CLI_FLAGS: the
# CLI's flags for the same budget.
budget_run() {
	name=$1 backend=$2 line=$3 tenant_max=$4 total=$5 cli_flags=$6
	d=$WORK/bt-$name
	rm -rf "$d"
	mkdir -p "$d"
	collectd_conf "$d" 1 csv "  Backend \"$backend\"
  CgroupRoot \"$CG/bt\"
  Stat \"usage\" \"anon\"
  $line
  Label \"run\" \"$name\"
  URL \"$VM_URL/api/v1/write\"" || return 1
	"$COLLECTD" -f -C "$d/collectd.conf" > "$d/stdout" 2>&1 &
	BT_CD=$!
	t=0
	until [ "$(bt_value "count_over_time(memcg_bpf_cgroups_kept{run=\"$name\"}[10m])")" -ge $BT_SAMPLES ] 2>/dev/null; do
		t=$((t + 1))
		if [ $t -gt 90 ] || ! kill -0 $BT_CD 2>/dev/null; then why "$name: no $BT_SAMPLES samples of memcg_bpf_cgroups_kept in VictoriaMetrics after 90 s"; return 1; fi
		sleep 1
	done
	stop_checked $BT_CD "$d" "" "$name" || { BT_CD=; return 1; }
	BT_CD=
	sel="run=\"$name\""
	# every cgroup that had a series at any time of the run
	rx_query "$VM_URL" "last_over_time(memcg_usage_bytes{$sel}[10m])" |
		sed -n 's/.*"cgroup":"\([^"]*\)".*/\1/p' | sort > "$WORK/bt.$name.got"
	# a cut cgroup is read for its rank (usage) alone: no row of one ships
	rx_query "$VM_URL" "last_over_time(memcg_anon_bytes{$sel}[10m])" |
		sed -n 's/.*"cgroup":"\([^"]*\)".*/\1/p' | sort > "$WORK/bt.$name.anon"
	services=$(grep -c '^/system.slice/svc[0-9]*.service$' "$WORK/bt.$name.got")
	tenant=$(grep -c "^$BT_PARENT/" "$WORK/bt.$name.got")
	all=$(wc -l < "$WORK/bt.$name.got")
	cut=$(bt_value "last_over_time(memcg_bpf_cgroups_cut{$sel}[10m])")
	kept=$(bt_value "last_over_time(memcg_bpf_cgroups_kept{$sel}[10m])")
	parents=$(bt_value "max_over_time(memcg_bpf_cgroup_parents_cut{$sel}[10m])")
	selected=$(bt_value "last_over_time(memcg_bpf_cgroups_selected{$sel}[10m])")
	warned=$(grep -c "cgroup \"$BT_PARENT\": [0-9]* of its children get no series of their own" "$d/collectd.log")
	info "$name: $all cgroups had series over the run ($services services, $tenant of the tenant's $BT_TENANT); on the wire selected $selected, kept $kept, cut $cut, parents cut $parents; the parent named $warned time(s) in the log"
	bad=
	cmp -s "$WORK/bt.$name.anon" "$WORK/bt.$name.got" ||
		bad="$bad; $(wc -l < "$WORK/bt.$name.anon") cgroups have anon series, $all usage series: a partial row shipped"
	[ "$services" -eq $BT_SERVICES ] || bad="$bad; $services of the $BT_SERVICES services had series"
	[ "$tenant" -le "$tenant_max" ] || bad="$bad; $tenant tenant cgroups had series over the run, more than $tenant_max"
	[ "$tenant" -gt 0 ] || bad="$bad; no tenant cgroup had a series"
	[ "$all" -eq "$total" ] || bad="$bad; $all cgroups had series, want $total"
	for i in $BT_LOADED; do
		grep -qx "$BT_PARENT/c$i" "$WORK/bt.$name.got" || bad="$bad; the loaded $BT_PARENT/c$i had no series"
	done
	[ "$kept" = "$total" ] || bad="$bad; memcg_bpf_cgroups_kept is ${kept:-missing}, want $total"
	[ "$cut" = "$((selected - total))" ] && [ "$cut" -gt 0 ] ||
		bad="$bad; memcg_bpf_cgroups_cut is ${cut:-missing}, want $((selected - total))"
	[ "${parents:-0}" -ge 1 ] || bad="$bad; memcg_bpf_cgroup_parents_cut is ${parents:-missing}"
	[ "$warned" -eq 1 ] || bad="$bad; the log names $BT_PARENT $warned times, want once"
	# the CLI with the same budget keeps the same set
	# shellcheck disable=SC2086 # the budget's flag and value
	memcg-bpf-sample -r "$CG/bt" -b "$backend" -s usage $cli_flags -f json -q 2> "$WORK/bt.$name.cli.err" |
		sed -n 's/.*"path":"\([^"]*\)".*/\1/p' | sort > "$WORK/bt.$name.cli"
	if ! cmp -s "$WORK/bt.$name.cli" "$WORK/bt.$name.got"; then
		bad="$bad; the CLI ($cli_flags) keeps $(wc -l < "$WORK/bt.$name.cli") cgroups, not the $all that had series (diff: $(diff "$WORK/bt.$name.cli" "$WORK/bt.$name.got" | head -n 4 | tr '\n' ' '))"
	fi
	if [ -n "$bad" ]; then why "$name: ${bad#; }"; return 1; fi
}

t_budget() {
	have_collectd || return 77
	BT_CD=
	budget_tree && vm_start &&
		budget_run children auto "MaxChildren 100" 100 $((1 + 2 + BT_SERVICES + 1 + 100)) "--max-children 100" &&
		budget_run cgroups auto "MaxCgroups 300" 300 300 "--max-cgroups 300" &&
		budget_run children-text text "MaxChildren 100" 100 $((1 + 2 + BT_SERVICES + 1 + 100)) "--max-children 100"
	rc=$?
	[ -z "$BT_CD" ] || { stop_collectd "$BT_CD"; cat "$WORK/bt-"*/collectd.log; }
	receivers_stop
	while read -r p; do kill "$p" 2>/dev/null; done < "$WORK/bt.pids" 2>/dev/null
	wait 2>/dev/null
	find "$CG/bt" -depth -type d -exec rmdir {} + 2>/dev/null
	return $rc
}
