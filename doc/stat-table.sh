#!/bin/sh
# Prints the body of the STATS section of collectd-memcg_bpf(5) (roff with
# tbl tables) from the stat catalog as the built CLI prints it, so the man
# page never lists a stat the code does not have, nor misses one it has.
#   stat-table.sh PATH/TO/memcg-bpf-sample
# Table 1: stat ('*' marks the default set), unit, kind, shipped metric name
# (the rule of series/metric_names.c: memcg_<stat>_bytes for byte gauges,
# memcg_<stat>_total for counters, memcg_<stat> otherwise).
# Then which file each stat comes from, and the cgroup v1 equivalents.
set -eu
cli=${1:?usage: stat-table.sh MEMCG_BPF_SAMPLE}
defaults=$("$cli" --help | sed -n 's/.*(default: \([a-z0-9_,]*\)).*/\1/p' | head -n 1)
[ -n "$defaults" ] || { echo "stat-table.sh: no default stat list in $cli --help" >&2; exit 1; }
list=$("$cli" --list-stats)
printf '%s\n' "$list" | awk -v defaults=",$defaults," '
NR == 1 {
	if ($1 != "STAT" || $2 != "UNIT" || $3 != "TYPE" || $4 != "FILE" || $5 != "V1") {
		print "stat-table.sh: unexpected --list-stats header: " $0 > "/dev/stderr"
		exit 1
	}
	next
}
NF >= 5 {
	n++
	stat[n] = $1; unit[n] = $2; kind[n] = $3; file[n] = $4; v1[n] = $5
	if ($3 == "counter") metric[n] = "memcg_" $1 "_total"
	else if ($2 == "bytes") metric[n] = "memcg_" $1 "_bytes"
	else metric[n] = "memcg_" $1
	if (!(($4) in seen)) { seen[$4] = 1; files[++nf] = $4 }
	of[$4] = of[$4] (of[$4] == "" ? "" : ", ") "\\fB" $1 "\\fR"
	nof[$4]++
	if ($5 != "-") nv1++
}
END {
	if (n == 0) { print "stat-table.sh: empty catalog" > "/dev/stderr"; exit 1 }
	printf ".PP\n%d stats; \\(lq*\\(rq marks the default set.\n", n
	print ".PP\n.in 2n\n.TS\ntab(@);\nlb1 lb1 lb1 lb\nl1 l1 l1 l.\nstat@unit@kind@metric name\n_"
	for (i = 1; i <= n; i++)
		printf "%s%s@%s@%s@%s\n", stat[i], index(defaults, "," stat[i] ",") ? "*" : "", unit[i], kind[i], metric[i]
	print ".TE\n.in"
	for (f = 1; f <= nf; f++) {
		if (nof[files[f]] > 12)
			continue
		printf ".PP\nFrom \\fI%s\\fR: %s.\n", files[f], of[files[f]]
	}
	printf ".PP\nEvery other stat comes from \\fImemory.stat\\fR.\n"
	printf ".PP\nOn cgroup v1 the text backend reads these %d stats, each from the\nhierarchical \\fBtotal_\\fR\\fIname\\fR field of \\fImemory.stat\\fR where there is one\n", nv1
	print "(\\fIusage\\fR from \\fImemory.usage_in_bytes\\fR, \\fIoom_kill\\fR from \\fImemory.oom_control\\fR);"
	print "the others are reported as missing there:"
	print ".PP\n.in 2n\n.TS\ntab(@);\nlb2 lb\nl2 l.\nstat@cgroup v1 name\n_"
	for (i = 1; i <= n; i++)
		if (v1[i] != "-")
			printf "%s@%s\n", stat[i], v1[i]
	print ".TE\n.in"
}'
