#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# tests/bench/report.sh TABLE OUTDIR KERNEL: turns the bench_collectd lines of a
# bench run (TABLE: the guest's INFO lines, see tests/vm/guest/bench.sh) into
# the Markdown table doc/benchmarks.md shows and OUTDIR/bench.png (gnuplot): CPU
# per interval, stacked by where it goes, one panel per tree size.
#
# A line of ours:  SIZE NCG BACKEND/VARIANT CD_MS SAMPLE_MS CD/SMP SERIES_MS
#                  ENC_MS COMP_MS POST_MS SND/SMP REST_MS WRITE_MS VALUES
#                  RECVD QUEUE IVAL_S PEAK_RSS_KB [behind]
# netdata's:       SIZE NCG netdata CPU_MS - ... - MONITORED (in VALUES) - -
#                  IVAL_S PEAK_RSS_KB
set -u
table=$1 out=$2 kernel=$3

grep -q '^ *[0-9]' "$table" 2>/dev/null || { echo "bench: no collectd figures in $table"; exit 0; }

echo
echo "As Markdown (Linux $kernel under qemu TCG, 2 vCPUs; CPU ms per interval, mean of the measured intervals):"
echo
echo "| cgroups | run | collectd CPU | sampling (walk) | collectd ÷ sampling | series | encode | compress | POST | sender ÷ sampling | rest: dispatch, read loop | peak RSS |"
echo "|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
awk '/^ *[0-9]/ {
	if ($3 == "netdata") {
		printf "| %d | netdata (peer; %s cgroups monitored) | %.1f ms | | | | | | | | | %d MiB |\n",
			$1, $14, $4, $NF / 1024
		next
	}
	printf "| %d | %s%s | %.1f ms | %.1f ms | %.2f | %.1f | %.1f | %.1f | %.1f | %.2f | %.1f ms | %d MiB |\n",
		$1, $3, ($NF == "behind" ? " (sender behind: partial)" : ""), $4, $5, $6, $7, $8, $9, $10, $11, $12, $18 / 1024
}' "$table"

# issue 48's goals, for the shipping runs: peak RSS at most 24 MiB at 1,000
# cgroups and 64 at 10,000; collectd ÷ sampling at most 1.5 for remote
# write (1.0 and 2.0), 2.0 for OTLP
echo
echo "Against the goals (peak RSS: 24 MiB at 1,000 cgroups, 64 at 10,000; collectd ÷ sampling: 1.5 for remote write, 2.0 for OTLP):"
echo
echo "| cgroups | run | Interval | peak RSS | goal | collectd ÷ sampling | goal |"
echo "|---:|---|---:|---:|---:|---:|---:|"
awk '/^ *[0-9]/ && ($1 == 1000 || $1 == 10000) && $3 ~ /^bpf\/(rw1|rw2|otlp)(sink)?$/ {
	rss = $18 / 1024; rss_goal = $1 == 1000 ? 24 : 64
	ratio_goal = $3 ~ /otlp/ ? 2.0 : 1.5
	printf "| %d | %s%s | %.0f | %.1f MiB | %d: %s | %.2f | %.1f: %s |\n", $1, substr($3, 5),
		($NF == "behind" ? " (sender behind: partial)" : ""), $17, rss, rss_goal,
		rss <= rss_goal ? "met" : "not met", $6, ratio_goal, $6 <= ratio_goal ? "met" : "not met"
}' "$table"

command -v gnuplot >/dev/null || { echo "bench: no gnuplot (apt-get install gnuplot-nox): no plot"; exit 0; }
# one data file per size: LABEL sampling series encode compress post rest
for size in $(awk '/^ *[0-9]/ { print $1 }' "$table" | sort -un); do
	awk -v size="$size" 'BEGIN { print "run sampling series encode compress POST rest" }
		/^ *[0-9]/ && $1 == size {
			if ($3 == "netdata") { printf "netdata 0 0 0 0 0 %s\n", $4; next }
			rest = $12 < 0 ? 0 : $12
			printf "%s%s %s %s %s %s %s %s\n", $3, ($NF == "behind" ? "(behind)" : ""), $5, $7, $8, $9, $10, rest
		}' "$table" > "$out/bench-$size.dat"
done
sizes=$(awk '/^ *[0-9]/ { print $1 }' "$table" | sort -un | tr '\n' ' ')
n=$(echo "$sizes" | wc -w)
{
	echo "set terminal pngcairo size $((560 * n)),520 font 'sans,10'"
	echo "set output '$out/bench.png'"
	echo "set style data histograms"
	echo "set style histogram rowstacked"
	echo "set style fill solid 0.85 border -1"
	echo "set boxwidth 0.7"
	echo "set key top left"
	echo "set grid ytics"
	echo "set ylabel 'CPU ms per interval (collectd process; netdata: its process tree)'"
	echo "set xtics rotate by -35 left"
	echo "set multiplot layout 1,$n title 'memcg_bpf in collectd, Linux $kernel, qemu TCG: where the CPU goes' noenhanced"
	for size in $sizes; do
		echo "set title '$size cgroups'"
		echo "plot for [i=2:7] '$out/bench-$size.dat' using i:xtic(1) title columnheader(i)"
	done
	echo "unset multiplot"
} > "$out/bench.gp"
if gnuplot "$out/bench.gp" 2> "$out/gnuplot.log"; then
	echo
	echo "plot: $out/bench.png"
else
	echo "bench: gnuplot failed: $(head -n 3 "$out/gnuplot.log")"
fi
