# SPDX-License-Identifier: GPL-2.0-only
# The guest's benchmark set (run-tests.sh bench; bench/run.sh, make bench):
# functions only, sourced by run-tests.sh after lib.sh and tree.sh; they use
# run-tests.sh's collectd helpers (collectd_conf, wait_marks, stop_checked).

# memcg-bench (bench/memcg_bench.c) at 10, 100 and 1,000 cgroups; each line
# of its table goes to the host as an INFO line.
t_bench() {
	command -v memcg-bench >/dev/null || { why "memcg-bench is not in the initramfs"; return 1; }
	memcg-bench --parent "$CG" --sizes "${VMTEST_BENCH_SIZES:-10,100,1000}" \
		--repeat "${VMTEST_BENCH_REPEAT:-30}" > "$WORK/bench.out" 2> "$WORK/bench.err"
	rc=$?
	# what one more stat costs: the bpf walk at 1,000 cgroups with 1 and all stats
	for stats in anon all; do
		[ $rc -eq 0 ] || break
		memcg-bench --parent "$CG" --sizes 1000 --stats $stats \
			--repeat "${VMTEST_BENCH_REPEAT:-30}" >> "$WORK/bench.out" 2>> "$WORK/bench.err"
		rc=$?
	done
	# the sender's CPU per interval next to the sampling figures above
	if [ $rc -eq 0 ] && command -v encode-bench >/dev/null; then
		echo "# encode-bench: the sender's CPU per interval at 1,000 cgroups, default stats" >> "$WORK/bench.out"
		encode-bench 1000 21 >> "$WORK/bench.out" 2>> "$WORK/bench.err"
		rc=$?
	fi
	while IFS= read -r line; do info "$line"; done < "$WORK/bench.out"
	if [ $rc -ne 0 ]; then
		head -n 40 "$WORK/bench.err" | while IFS= read -r line; do info "stderr: $line"; done
		why "exit $rc: $(first_line "$WORK/bench.err")"
		return 1
	fi
}

# collectd's CPU per interval with memcg_bpf (default stats) on flat trees
# below /cdbench, with bench_sink (bench/bench_sink.c) as the only write
# plugin. VMTEST_CD_RUNS lists SIZE:INTERVAL:BACKEND[:VARIANT] (sizes in
# increasing order; the tree only grows). VARIANT:
#   nodispatch  DispatchValues false: the plugin samples but dispatches only
#               its self values, which leaves the sampling and the read loop;
#   percgroup   ValuesPerCgroup true: one value list per cgroup (type
#               memcg_bpf, a data source per stat) instead of one per value;
#   nofile      collectd started with a soft fd limit of 65536 instead of
#               the inherited 1024 (the text backend keeps a cgroup's files
#               open only while the soft limit allows).
# 1,000 cgroups run at Interval 1; 10,000 at Interval 5, because under TCG
# one read of 10,000 cgroups (sampling and dispatching 140,000 values) takes
# about 2 s and the write thread falls further behind: at Interval 1 the
# write queue grew until the OOM killer stopped collectd (1.6 GB). The
# figures are per sample, so the interval does not enter them as long as the
# daemon keeps up (the interval_s column shows the mean spacing of samples).
bench_collectd_run() {
	size=$1 backend=$2 ncg=$3 ival=$4 variant=$5
	warm=${VMTEST_CD_WARMUP:-2} n=${VMTEST_CD_INTERVALS:-10}
	d=$WORK/cdbench-$backend-$size
	rm -rf "$d"
	mkdir -p "$d"
	extra='' nofile=$(ulimit -n) label=$backend
	case $variant in
	nodispatch) extra="  DispatchValues false" label=$backend/nodispatch ;;
	percgroup) extra="  ValuesPerCgroup true" label=$backend/percgroup ;;
	nofile) nofile=65536 label=$backend/nofile=65536 ;;
	"") ;;
	*) why "unknown variant $variant"; return 1 ;;
	esac
	collectd_conf "$d" "$ival" bench_sink "  Backend \"$backend\"
  CgroupRoot \"$CG\"
$extra" || return 1
	(ulimit -n "$nofile" && exec "$COLLECTD" -f -C "$d/collectd.conf") > "$d/stdout" 2>&1 &
	cpid=$!
	wait_marks "$d" $((warm + n)) $cpid $(((warm + n) * ival * 3)) "$backend at $size" || return 1
	rss=$(sed -n 's/^VmHWM:[[:space:]]*//p' "/proc/$cpid/status")
	echo "---- $backend $size: marks"
	cat "$d/marks"
	stop_checked $cpid "$d" "$backend" "$backend at $size" || return 1
	# marks: MARK TIME_S SAMPLE_S VALUES CPU_S WRITE_CPU_S
	line=$(awk -v w="$warm" -v n="$n" -v size="$size" -v b="$label" -v ncg="$ncg" -v rss="$rss" '
		$1 == w { t0 = $2; c0 = $5; w0 = $6 }
		$1 > w && $1 <= w + n { s += $3; v += $4 }
		$1 == w + n { t1 = $2; c1 = $5; w1 = $6 }
		END {
			cpu = (c1 - c0) * 1000 / n; samp = s * 1000 / n; out = cpu - samp
			printf "%7d %6d %-16s %9.1f %9.1f %9.1f %6.1f%% %7.2f %9.1f %8d %8.2f %s\n",
				size, ncg, b, cpu, samp, out, (cpu > 0 ? out * 100 / cpu : 0),
				(samp > 0 ? out / samp : 0), (w1 - w0) * 1000 / n, v / n, (t1 - t0) / n, rss
		}' "$d/marks")
	info "$line"
	rm -rf "$d"
}

t_bench_collectd() {
	have_collectd || return 77
	if [ ! -f "$COLLECTD_PLUGINS/bench_sink.so" ]; then why "bench_sink.so is not in the initramfs"; return 1; fi
	parent=$CG/cdbench
	enable_memory "$CG" || return 1
	mkdir -p "$parent" && enable_memory "$parent" || return 1
	info "# collectd $("$COLLECTD" -h 2>&1 | sed -n 's/^collectd \([0-9][0-9.]*[0-9]\).*/\1/p' | head -n 1) with memcg_bpf, default stats (14), write plugin bench_sink (counts values, no I/O); fd limit $(ulimit -n)/$(ulimit -Hn) inherited"
	info "# per interval, mean of ${VMTEST_CD_INTERVALS:-10} after ${VMTEST_CD_WARMUP:-2} warm-up samples; ms of CPU (user+system, all threads)"
	info "#  tree cgroups backend             cpu_ms sample_ms outside_ms outside out/smp  write_ms   values interval_s peak_rss"
	have=0
	runs=${VMTEST_CD_RUNS:-1000:1:bpf 1000:1:bpf:percgroup 1000:1:text 1000:1:bpf:nodispatch 1000:1:text:nodispatch 1000:1:text:nofile 10000:5:bpf 10000:5:bpf:percgroup 10000:5:text 10000:5:text:nofile}
	# (commas also separate runs: a kernel command line has no spaces in a value)
	for run in $(echo "$runs" | tr ',' ' '); do
		old_ifs=$IFS
		IFS=:
		# shellcheck disable=SC2086 # split at the colons
		set -- $run
		IFS=$old_ifs
		size=$1 ival=$2 backend=$3 variant=${4:-}
		start=$(date +%s)
		while [ $have -lt "$size" ]; do
			upto=$((have + 500))
			[ $upto -le "$size" ] || upto=$size
			# shellcheck disable=SC2046 # one word per directory
			(cd "$parent" && mkdir $(seq $have $((upto - 1)) | sed 's/^/c/')) ||
				{ why "mkdir below $parent failed at $have"; return 1; }
			have=$upto
		done
		ncg=$(count_cgroups "$CG")
		echo "tree of $size: $ncg cgroups in all, made in $(($(date +%s) - start))s; $(grep MemAvailable /proc/meminfo)"
		bench_collectd_run "$size" "$backend" "$ncg" "$ival" "$variant" || return 1
	done
}

