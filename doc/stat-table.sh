#!/bin/sh
# Prints the body of the STATS section of collectd-memcg_bpf(5) (roff with
# tbl tables) from the stat catalog as the built CLI prints it, so the man
# page never lists a stat the code does not have, nor misses one it has.
#   [CROSS_RUN=EMULATOR] stat-table.sh PATH/TO/memcg-bpf-sample
# Table 1: stat ('*' marks the default set), unit, scope, shipped
# metric name (the rule of plugin/series/metric_names.c: memcg_<stat>_bytes for
# byte gauges, memcg_<stat>_seconds_total for time counters,
# memcg_<stat>_total for other counters, memcg_<stat> otherwise).
# Then which file each stat comes from, and the cgroup v1 equivalents.
# Then the per-node stats (--list-stats after its blank line): memcg_numa_<stat>.
set -eu
cli=${1:?usage: stat-table.sh MEMCG_BPF_SAMPLE}
# CROSS_RUN (configure): the emulator that runs a cross-built CLI here
# shellcheck disable=SC2086 # CROSS_RUN may be a command with options
run() { ${CROSS_RUN:-} "$cli" "$@"; }
defaults=$(run --help | sed -n 's/.*(default: \([a-z0-9_,]*\)).*/\1/p' | head -n 1)
[ -n "$defaults" ] || { echo "stat-table.sh: no default stat list in $cli --help" >&2; exit 1; }
list=$(run --list-stats)
printf '%s\n' "$list" | awk -v defaults=",$defaults," '
NR == 1 {
	if ($1 != "STAT" || $2 != "UNIT" || $3 != "TYPE" || $4 != "SCOPE" || $5 != "FILE" || $6 != "V1") {
		print "stat-table.sh: unexpected --list-stats header: " $0 > "/dev/stderr"
		exit 1
	}
	next
}
NF == 0 { part = 2; next }
part == 2 && $1 == "Per" { next }
part == 2 && NF >= 6 {
	nn++
	nstat[nn] = $1; nunit[nn] = $2
	if ($6 != "-") nodev1 = nodev1 (nodev1 == "" ? "" : ", ") "\\fB" $1 "\\fR"
	nmetric[nn] = "memcg_numa_" $1 ($3 == "counter" ? "_total" : "_bytes")
	next
}
NF >= 6 {
	n++
	stat[n] = $1; unit[n] = $2; kind[n] = $3; scope[n] = $4; file[n] = $5; v1[n] = $6
	if ($3 == "counter" && $2 == "us") metric[n] = "memcg_" $1 "_seconds_total"
	else if ($3 == "counter") metric[n] = "memcg_" $1 "_total"
	else if ($2 == "bytes") metric[n] = "memcg_" $1 "_bytes"
	else metric[n] = "memcg_" $1
	if ($2 == "us") unit[n] = "s"
	if (!(($5) in seen)) { seen[$5] = 1; files[++nf] = $5 }
	of[$5] = of[$5] (of[$5] == "" ? "" : ", ") "\\fB" $1 "\\fR"
	nof[$5]++
	if ($6 != "-") nv1++
}
END {
	if (n == 0) { print "stat-table.sh: empty catalog" > "/dev/stderr"; exit 1 }
	printf ".PP\n%d stats; \\(lq*\\(rq marks the default set. Metric names ending in \\fB_total\\fR are\ncounters, the others gauges. Scope \\fIsubtree\\fR: the cgroup and all its descendants;\n\\fIlocal\\fR: the cgroup alone.\n", n
	print ".PP\n.in 2n\n.ne 8\n.TS\ntab(@);\nlb1 lb1 lb1 lb\nl1 l1 l1 l.\nstat@unit@scope@metric name\n_"
	for (i = 1; i <= n; i++) {
		# groff warns about a table that starts at a page end (.ne keeps its head
		# with its rows) and about long ones: one table per 30 rows
		if (i > 1 && i % 30 == 1)
			print ".TE\n.ne 8\n.TS\ntab(@);\nl1 l1 l1 l."
		printf "%s%s@%s@%s@%s\n", stat[i], index(defaults, "," stat[i] ",") ? "*" : "", unit[i], scope[i], metric[i]
	}
	print ".TE\n.in"
	for (f = 1; f <= nf; f++) {
		if (nof[files[f]] > 12)
			continue
		if (files[f] == "-")
			printf ".PP\nOn cgroup v1 only (see below): %s.\n", of[files[f]]
		else if (files[f] == "(derived)")
			printf ".PP\nDerived (computed from other stats): %s.\n", of[files[f]]
		else if (files[f] == "(bpf_oom_tracker)")
			printf ".PP\nCounted by the BPF OOM tracker (bpf and bpf-core backends; see \\fBOOM KILLS\\fR): %s.\n", of[files[f]]
		else
			printf ".PP\nFrom \\fI%s\\fR: %s.\n", files[f], of[files[f]]
	}
	printf ".PP\nEvery other stat comes from \\fImemory.stat\\fR.\n"
	printf ".PP\nOn cgroup v1 the text backend reads these %d stats, from the hierarchical\n\\fBtotal_\\fR\\fIname\\fR field of \\fImemory.stat\\fR or from the file named (\\fIfile\\fR:\\fIkey\\fR for\na line of a file); the others are not sampled there:\n", nv1
	print ".PP\n.in 2n\n.ne 8\n.TS\ntab(@);\nlb2 lb\nl2 l.\nstat@cgroup v1 source\n_"
	for (i = 1; i <= n; i++)
		if (v1[i] != "-")
			printf "%s@%s\n", stat[i], v1[i]
	print ".TE\n.in"
	if (nn == 0) { print "stat-table.sh: no per-node stats after the catalog" > "/dev/stderr"; exit 1 }
	printf ".PP\n\\fBPer NUMA node.\\fR %d stats of \\fImemory.numa_stat\\fR, selected with \\fBNumaStat\\fR (off by\ndefault), one series per node with memory, labelled \\fBnode\\fR. On cgroup v1 only\n%s have per-node values, from the file\x27s \\fBhierarchical_\\fR lines (pages of the LRU lists,\nshipped in bytes).\n", nn, nodev1
	print ".PP\n.in 2n\n.ne 8\n.TS\ntab(@);\nlb1 lb1 lb\nl1 l1 l.\nper-node stat@unit@metric name"
	print "_"
	for (i = 1; i <= nn; i++)
		printf "%s@%s@%s\n", nstat[i], nunit[i], nmetric[i]
	print ".TE\n.in"
}'
