#!/bin/bash
# Which cgroups the daemon dispatches: MaxDepth, IncludeRoot, Cgroup patterns
# with IgnoreSelected, DispatchValues false, ReportSelf false.
set -u
. "$(dirname "$0")/lib.sh"
setup

mapfile -t LEVEL1 < <(cd "$MEMDIR" && find . -mindepth 1 -maxdepth 1 -type d | sed 's|^\.||' | LC_ALL=C sort)
mapfile -t ALL < <(cd "$MEMDIR" && find . -mindepth 1 -type d | sed 's|^\.||' | LC_ALL=C sort)

# instances DIR: the memcg_bpf plugin_instances written, sorted
instances() {
	(cd "$1/csv/$HOSTNAME_CD" 2>/dev/null && for d in memcg_bpf-*; do [ -d "$d" ] && echo "${d#memcg_bpf-}"; done) | LC_ALL=C sort
}
expect() { # expect NAME... : the sorted instance list
	local p
	for p in "$@"; do instance_of "$p"; done | LC_ALL=C sort
}
run() { # run NAME BODY: 3 samples
	local dir
	dir=$(write_conf "$1" 1 "" "$2")
	start_daemon "$dir"
	wait_rows "load_csv '$dir'" 3 15
	stop_daemon
	echo "$dir"
}
same() { # same DESCRIPTION GOT WANT
	if [ "$2" = "$3" ]; then ok "$1"; else not_ok "$1: got [$(echo $2)] want [$(echo $3)]"; fi
}

dir=$(run depth0 '  MaxDepth 0')
same "MaxDepth 0: the root and self only" "$(instances "$dir")" "$(printf '%s\n' root self | LC_ALL=C sort)"

dir=$(run depth1 '  MaxDepth 1
  IncludeRoot false
  ReportSelf false')
same "MaxDepth 1, IncludeRoot false, ReportSelf false: the first level only (${#LEVEL1[@]})" \
	"$(instances "$dir")" "$(expect "${LEVEL1[@]}")"

dir=$(run ignore '  Cgroup "/"
  IgnoreSelected true
  ReportSelf false')
same "Cgroup \"/\" with IgnoreSelected: every cgroup but the root (${#ALL[@]})" \
	"$(instances "$dir")" "$(expect "${ALL[@]}")"

if [ ${#LEVEL1[@]} -gt 0 ]; then
	first=${LEVEL1[0]}
	mapfile -t UNDER < <(printf '%s\n' "${ALL[@]}" | grep -F -- "$first/")
	dir=$(run glob "  Cgroup \"$first/*\"
  ReportSelf false")
	same "Cgroup \"$first/*\": the subtree below $first (${#UNDER[@]})" \
		"$(instances "$dir")" "$(if [ ${#UNDER[@]} -gt 0 ]; then expect "${UNDER[@]}"; fi)"
	dir=$(run regex "  Cgroup \"/^${first//./\\\\.}\$/\"
  ReportSelf false")
	same "Cgroup \"/^$first\$/\": $first alone" "$(instances "$dir")" "$(expect "$first")"
else
	skip_one "no first-level cgroups on this host"
fi

dir=$(run nodispatch '  DispatchValues false')
same "DispatchValues false: self only" "$(instances "$dir")" "self"
sel=$(tail -n 1 "$(csv_file "$dir" self count-cgroups_selected)" | cut -d, -f2)
vals=$(tail -n 1 "$(csv_file "$dir" self count-values_dispatched)" | cut -d, -f2)
check "DispatchValues false: still sampled and selected ($sel cgroups), 0 values dispatched ($vals)" \
	awk -v s="${sel:-0}" -v v="${vals:-x}" 'BEGIN { exit !(s >= 1 && v == 0) }'
finish
