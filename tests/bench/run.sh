#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The benchmark (make bench): boots Debian's 7.x kernel under qemu and runs,
# in the guest (tests/vm/guest/run-tests.sh, set "bench", functions in
# tests/vm/guest/bench.sh):
#   bench           tests/bench/memcg-bench at 10, 100 and 1,000 cgroups: the
#                   cost of one whole-tree sample per cgroup, per backend;
#                   and tests/sender/encode-bench (the sender alone);
#   bench_collectd  the real collectd daemon with memcg_bpf.so at 1,000 and
#                   10,000 cgroups, Interval 1, bpf and text backends,
#                   shipping to a real receiver in the guest (VictoriaMetrics
#                   for remote write 1.0 and OTLP, Prometheus for 2.0): its
#                   CPU per interval broken down into sampling, the sender's
#                   stages (series, encode, compress, POST) and the rest
#                   (collectd's dispatch path, the read loop), with
#                   tests/bench/bench_sink.c (built here) as the write plugin; and
#                   the peer, Debian 12's netdata, over the same tree;
#   bench_soak      10,000 cgroups at Interval 1 for 10 minutes: the
#                   sender's queue and collectd's RSS each minute, shipping
#                   to VictoriaMetrics in the guest; bench_soak_sink the
#                   same into tests/bench/http_sink.c (keeps nothing: the agent's
#                   own cost, without a database on the same 2 vCPUs);
# then boots trixie's 6.12 and bookworm's 6.1 kernels (no kfuncs) for
#   bench_core      memcg-bench with bpf-core in the bpf columns.
# then boots the 7.x kernel once more for
#   bench_budget    50,000 cgroups with the default budgets and without,
#                   against 10,000 (issue 38);
# and twice more with NUMA nodes (tests/vm/run.sh), two and eight, for
#   numa_bench, numa_bench8  memcg-bench with per-node stats at 1,000 and
#                   10,000 cgroups, text (memory.numa_stat) against bpf, and
#                   one read of the root's memory.numa_stat (issues 32, 46);
# and the profiling kernel (Linux 7.3, built and cached by
# tests/vm/build-profiling-kernel.sh: ~15 min the first time) for
#   allocinfo_bench one read of /proc/allocinfo ranked to its top 50, text
#                   against the binary reader (issue 37);
# MEMCG_BPF_BENCH_KERNELS picks the boots (default "kfunc:bench
# kfunc:bench_budget kfunc:numa_bench kfunc:numa_bench8 fallback:bench_core_612
# bookworm:bench_core_61 profiling:allocinfo_bench"); "kfunc:numa_bench"
# numa_bench alone; "profiling:allocinfo_bench" allocinfo_bench alone; "kfunc:bench_agent" runs
# encode-bench (1,000 and 10,000 cgroups), bench_collectd and
# bench_soak_sink; "kfunc:bench_collectd" bench_collectd alone; "kfunc:bench_churn"
# bench_churn alone; "kfunc:bench_budget" bench_budget alone.
# Prints the tables, the main one also as Markdown, and draws it as a PNG
# (gnuplot) into $MEMCG_BPF_BUILDDIR/bench-logs/bench.png. Not a test: it
# only fails when it cannot run.
#   MEMCG_BPF_BUILDDIR=/abs/builddir tests/bench/run.sh
# Environment: CC; COLLECTD_CPPFLAGS (default: the build's, from its
# Makefile); MEMCG_BPF_VM_MEM (guest MiB, 8192 here: 50,000 memory cgroups
# and an uncapped collectd over them, 10,000 with the receivers and netdata,
# need more than the tests' 1024);
# MEMCG_BPF_VM_GUEST_ENV, e.g. "VMTEST_CD_RUNS=1000:1:bpf:rw1
# VMTEST_SOAK_SECONDS=120" (see bench.sh); MEMCG_BPF_VM_ONLY.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
: "${MEMCG_BPF_BUILDDIR:?set MEMCG_BPF_BUILDDIR to the build directory}"
B=$MEMCG_BPF_BUILDDIR
logs=$B/bench-logs
mkdir -p "$logs"

files=
if [ -f "$B/.libs/memcg_bpf.so" ]; then
	cflags=${COLLECTD_CPPFLAGS:-$(sed -n 's/^COLLECTD_CPPFLAGS = //p' "$B/Makefile" 2>/dev/null)}
	# shellcheck disable=SC2086 # $cflags is a list of words
	if ${CC:-gcc} -shared -fPIC -O2 -Wall -Wextra $cflags -I"$top/plugin" -I"$top" -o "$logs/bench_sink.so" \
		"$top/tests/bench/bench_sink.c" 2> "$logs/bench_sink.log"; then
		files="$logs/bench_sink.so=/usr/lib/collectd/bench_sink.so"
	else
		echo "bench: cannot build tests/bench/bench_sink.c (collectd-dev?):"
		sed 's/^/  /' "$logs/bench_sink.log"
	fi
fi

# the receivers (tests/vm/run.sh puts them in: MEMCG_BPF_VM_RECEIVERS)
programs="$B/tests/bench/memcg-bench $B/tests/bench/allocinfo-bench"
[ -x "$B/tests/sender/encode-bench" ] && programs="$programs $B/tests/sender/encode-bench"
[ -x "$B/tests/bench/http-sink" ] && programs="$programs $B/tests/bench/http-sink"

# the peer: Debian 12's netdata
if peer=$("$top/tests/bench/netdata-files.sh" 2> "$logs/netdata-files.log"); then
	files="$files $peer"
else
	echo "bench: no netdata peer (tests/bench/netdata-files.sh: $(tail -n 1 "$logs/netdata-files.log"))"
fi

# shellcheck disable=SC2086 # lists of words
kernels=${MEMCG_BPF_BENCH_KERNELS:-kfunc:bench kfunc:bench_budget kfunc:numa_bench kfunc:numa_bench8 fallback:bench_core_612 bookworm:bench_core_61 profiling:allocinfo_bench}
# a new run's logs only: the tables below read them
for k in $kernels; do rm -f "$logs/${k#*:}.vmtest.log"; done
MEMCG_BPF_VM_KERNELS=$kernels \
	MEMCG_BPF_VM_LOGDIR=$logs \
	MEMCG_BPF_VM_PROGRAMS=$programs \
	MEMCG_BPF_VM_RECEIVERS="prometheus victoria-metrics" \
	MEMCG_BPF_VM_FILES="${MEMCG_BPF_VM_FILES:-} $files" \
	MEMCG_BPF_VM_MEM=${MEMCG_BPF_VM_MEM:-8192} \
	MEMCG_BPF_VM_TEST_TIMEOUT=${MEMCG_BPF_VM_TEST_TIMEOUT:-3600} \
	MEMCG_BPF_VM_TIMEOUT=${MEMCG_BPF_VM_TIMEOUT:-7200} \
	"$top/tests/vm/run.sh" > "$logs.out" 2>&1
rc=$?
# ran SET: whether this run booted SET (a log of an earlier run is not shown)
ran() { case " $kernels " in *":$1 "*) [ -s "$logs/$1.vmtest.log" ] ;; *) return 1 ;; esac; }
proto=
for set in bench bench_agent bench_collectd; do
	ran $set && { proto=$logs/$set.vmtest.log; break; }
done
kernel=$(tr -d '\r' < "${proto:-/dev/null}" 2>/dev/null | sed -n 's/^VMTEST KERNEL //p' | head -n 1)
info() { tr -d '\r' < "${2:-$proto}" 2>/dev/null | sed -n "s/^VMTEST INFO [^ ]* $1: //p"; }
for set in bench_core_612 bench_core_61; do
	p=$logs/$set.vmtest.log
	ran $set || continue
	echo "memcg-bench, bpf-core, on Linux $(tr -d '\r' < "$p" | sed -n 's/^VMTEST KERNEL //p' | head -n 1) (qemu TCG, 2 vCPUs):"
	info bench_core "$p"
	echo
done
# the sets of the first boot (bench, bench_agent, bench_collectd), when it ran
if [ -n "$proto" ]; then
	echo "memcg-bench on Linux ${kernel:-?} (qemu TCG, 2 vCPUs):"
	info bench
	info bench_encode
	echo
	echo "collectd on Linux ${kernel:-?} (qemu TCG, 2 vCPUs):"
	info bench_collectd > "$logs/collectd.txt"
	cat "$logs/collectd.txt"
	echo
	info bench_soak
	info bench_soak_sink
fi
p=$logs/bench_budget.vmtest.log
if ran bench_budget; then
	echo "the cgroup budget on Linux $(tr -d '\r' < "$p" | sed -n 's/^VMTEST KERNEL //p' | head -n 1) (qemu TCG, 2 vCPUs):"
	info bench_budget "$p"
	echo
fi
for set in numa_bench:2 numa_bench8:8; do
	p=$logs/${set%:*}.vmtest.log
	ran "${set%:*}" || continue
	echo "per-node stats on Linux $(tr -d '\r' < "$p" | sed -n 's/^VMTEST KERNEL //p' | head -n 1) (qemu TCG, 2 vCPUs, ${set#*:} NUMA nodes):"
	info numa_bench "$p"
	echo
done
p=$logs/allocinfo_bench.vmtest.log
if ran allocinfo_bench; then
	echo "the allocation profile on Linux $(tr -d '\r' < "$p" | sed -n 's/^VMTEST KERNEL //p' | head -n 1) (qemu TCG, 2 vCPUs; the profiling kernel):"
	info allocinfo_bench "$p"
	echo
fi
[ -z "$proto" ] || "$top/tests/bench/report.sh" "$logs/collectd.txt" "$logs" "${kernel:-?}"
for k in $kernels; do
	grep -h '^VMTEST FAIL' "$logs/${k#*:}.vmtest.log.clean" 2>/dev/null | sed 's/^/bench: /'
done
[ $rc -eq 0 ] || { echo "bench: the VM run failed; see $logs.out"; tail -n 20 "$logs.out"; }
exit $rc
