#!/bin/bash
# Which cgroups the daemon dispatches: MaxDepth, IncludeRoot, Cgroup patterns
# with IgnoreSelected, DispatchValues false, ReportSelf false.
set -u
. "$(dirname "$0")/lib.sh"
setup

# The host's tree is live (a command may get a cgroup of its own, removed
# when it ends), so each run is judged by two listings, one before the
# daemon starts and one after it stops: every cgroup the rule selects that
# was there in both must have been written, and anything else written must
# be a cgroup the rule selects that was there in one, or came and went in
# between (its name decoded back to its path).
list_cgroups() {
	(cd "$MEMDIR" && find . -mindepth 1 -type d | sed 's|^\.||' | LC_ALL=C sort)
}
mapfile -t LEVEL1 < <(list_cgroups | grep -E '^/[^/]+$')

# instances DIR: the memcg_bpf plugin_instances written, sorted
instances() {
	(cd "$1/csv/$HOSTNAME_CD" 2>/dev/null && for d in memcg_bpf-*; do [ -d "$d" ] && echo "${d#memcg_bpf-}"; done) | LC_ALL=C sort
}
expect() { # expect < PATHS: their sorted instance list
	local p
	while IFS= read -r p; do instance_of "$p"; done | LC_ALL=C sort
}
# path_of INSTANCE: instance_of's inverse ('_' is '/', +hh a byte)
path_of() {
	local in=$1 out=/ c i
	case $in in root) echo /; return ;; self) echo; return ;; esac
	for ((i = 0; i < ${#in}; i++)); do
		c=${in:i:1}
		case $c in
		_) out+=/ ;;
		+) printf -v c "\\x${in:i+1:2}"; out+=$c; i=$((i + 2)) ;;
		*) out+=$c ;;
		esac
	done
	echo "$out"
}
run() { # run NAME BODY: 3 samples; the listings in $T/before, $T/after
	local dir
	dir=$(write_conf "$1" 1 "" "$2")
	list_cgroups >"$T/before"
	start_daemon "$dir"
	wait_rows "load_csv '$dir'" 3 15
	stop_daemon
	list_cgroups >"$T/after"
	echo "$dir"
}
# selected_instances SELECTED [EXTRA...] < PATHS: the instances of the paths
# SELECTED passes, and EXTRA, sorted
selected_instances() {
	local selected=$1
	shift
	{ $selected | expect; printf '%s\n' "$@"; } | LC_ALL=C sort -u | sed '/^$/d'
}
# judge DESCRIPTION DIR SELECTED [EXTRA...]: SELECTED is a command that
# passes the paths the rule selects (stdin to stdout); EXTRA: instances
# always written (root, self)
judge() {
	local what=$1 dir=$2 selected=$3 inst missing= foreign=
	shift 3
	LC_ALL=C comm -12 "$T/before" "$T/after" | selected_instances "$selected" "$@" >"$T/must"
	LC_ALL=C sort -u "$T/before" "$T/after" | selected_instances "$selected" "$@" >"$T/may"
	instances "$dir" >"$T/got"
	missing=$(LC_ALL=C comm -23 "$T/must" "$T/got")
	for inst in $(LC_ALL=C comm -13 "$T/may" "$T/got"); do
		[ -n "$(path_of "$inst" | $selected)" ] || foreign+=" $inst"
	done
	if [ -z "$missing" ] && [ -z "$foreign" ]; then
		ok "$what ($(wc -l <"$T/must") there through the run, $(wc -l <"$T/got") written)"
	else
		not_ok "$what: missing [$(echo $missing)], not selected [${foreign# }]"
	fi
}
none() { :; }
level1() { grep -E '^/[^/]+$'; }
every() { grep -vxF /; }
below_first() { awk -v p="$first/" 'index($0, p) == 1'; }
just_first() { grep -xF -- "$first"; }

dir=$(run depth0 '  MaxDepth 0')
judge "MaxDepth 0: the root and self only" "$dir" none root self

dir=$(run depth1 '  MaxDepth 1
  IncludeRoot false
  ReportSelf false')
judge "MaxDepth 1, IncludeRoot false, ReportSelf false: the first level only" "$dir" level1

dir=$(run ignore '  Cgroup "/"
  IgnoreSelected true
  ReportSelf false')
judge "Cgroup \"/\" with IgnoreSelected: every cgroup but the root" "$dir" every

if [ ${#LEVEL1[@]} -gt 0 ]; then
	first=${LEVEL1[0]}
	dir=$(run glob "  Cgroup \"$first/*\"
  ReportSelf false")
	judge "Cgroup \"$first/*\": the subtree below $first" "$dir" below_first
	dir=$(run regex "  Cgroup \"/^${first//./\\\\.}\$/\"
  ReportSelf false")
	judge "Cgroup \"/^$first\$/\": $first alone" "$dir" just_first
else
	skip_one "no first-level cgroups on this host"
fi

dir=$(run nodispatch '  DispatchValues false')
judge "DispatchValues false: self only" "$dir" none self
sel=$(tail -n 1 "$(csv_file "$dir" self count-cgroups_selected)" | cut -d, -f2)
vals=$(tail -n 1 "$(csv_file "$dir" self count-values_dispatched)" | cut -d, -f2)
check "DispatchValues false: still sampled and selected ($sel cgroups), 0 values dispatched ($vals)" \
	awk -v s="${sel:-0}" -v v="${vals:-x}" 'BEGIN { exit !(s >= 1 && v == 0) }'
finish
