#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The benchmark (make bench): boots Debian's 7.x kernel under qemu and runs,
# in the guest (tests/vm/guest/run-tests.sh, set "bench"):
#   bench           bench/memcg-bench at 10, 100 and 1,000 cgroups: the
#                   cost of one whole-tree sample per cgroup, per backend;
#   bench_collectd  the real collectd daemon with memcg_bpf.so at 1,000 and
#                   10,000 cgroups, bpf and text backends: its CPU time per
#                   interval and the part of it spent outside sampling, with
#                   bench/bench_sink.c (built here) as the write plugin;
#   encode-bench    tests/sender/encode-bench: the sender's CPU per interval
#                   (series, encoding, compression; no HTTP) at 1,000
#                   cgroups and the default stats, per format.
# Prints both tables, the second also as Markdown. Not a test: it only
# fails when it cannot run.
#   MEMCG_BPF_BUILDDIR=/abs/builddir bench/run.sh
# Environment: CC; COLLECTD_CPPFLAGS (default: the build's, from its
# Makefile); MEMCG_BPF_VM_MEM (guest MiB, 2048 here: 10,000 memory cgroups
# and the daemon's write queue need more than the tests' 1024).
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
: "${MEMCG_BPF_BUILDDIR:?set MEMCG_BPF_BUILDDIR to the build directory}"
B=$MEMCG_BPF_BUILDDIR
logs=$B/bench-logs
mkdir -p "$logs"

files=
if [ -f "$B/.libs/memcg_bpf.so" ]; then
	cflags=${COLLECTD_CPPFLAGS:-$(sed -n 's/^COLLECTD_CPPFLAGS = //p' "$B/Makefile" 2>/dev/null)}
	# shellcheck disable=SC2086 # $cflags is a list of words
	if ${CC:-gcc} -shared -fPIC -O2 -Wall -Wextra $cflags -o "$logs/bench_sink.so" \
		"$top/bench/bench_sink.c" 2> "$logs/bench_sink.log"; then
		files="$logs/bench_sink.so=/usr/lib/collectd/bench_sink.so"
	else
		echo "bench: cannot build bench/bench_sink.c (collectd-dev?):"
		sed 's/^/  /' "$logs/bench_sink.log"
	fi
fi

# the sender's encoding CPU per interval, measured in the same guest
programs=$B/bench/memcg-bench
[ -x "$B/tests/sender/encode-bench" ] && programs="$programs $B/tests/sender/encode-bench"
MEMCG_BPF_VM_KERNELS=kfunc:bench MEMCG_BPF_VM_LOGDIR=$logs \
	MEMCG_BPF_VM_PROGRAMS=$programs \
	MEMCG_BPF_VM_FILES="${MEMCG_BPF_VM_FILES:-} $files" \
	MEMCG_BPF_VM_MEM=${MEMCG_BPF_VM_MEM:-2048} \
	MEMCG_BPF_VM_TEST_TIMEOUT=${MEMCG_BPF_VM_TEST_TIMEOUT:-600} \
	MEMCG_BPF_VM_TIMEOUT=${MEMCG_BPF_VM_TIMEOUT:-900} \
	"$top/tests/vm/run.sh" > "$logs.out" 2>&1
rc=$?
proto=$logs/bench.vmtest.log
kernel=$(tr -d '\r' < "$proto" 2>/dev/null | sed -n 's/^VMTEST KERNEL //p' | head -n 1)
echo "memcg-bench on Linux ${kernel:-?} (qemu TCG, 2 vCPUs):"
tr -d '\r' < "$proto" 2>/dev/null | sed -n 's/^VMTEST INFO [^ ]* bench: //p'
echo
echo "collectd on Linux ${kernel:-?} (qemu TCG, 2 vCPUs):"
tr -d '\r' < "$proto" 2>/dev/null | sed -n 's/^VMTEST INFO [^ ]* bench_collectd: //p' > "$logs/collectd.txt"
cat "$logs/collectd.txt"
if grep -q '^ *[0-9]' "$logs/collectd.txt"; then
	echo
	echo "As Markdown (CPU ms per interval, mean of the measured intervals):"
	echo
	echo "| cgroups | backend | interval | collectd CPU | sampling | outside sampling | outside / sampling | write thread | values | collectd peak RSS |"
	echo "|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|"
	awk '/^ *[0-9]/ {
		printf "| %s | %s | %.1f s | %.1f ms | %.1f ms | %.1f ms (%s) | %.2f | %.1f ms | %s | %d MiB |\n",
			$2, $3, $11, $4, $5, $6, $7, $8, $9, $10, $12 / 1024
	}' "$logs/collectd.txt"
fi
grep -h '^VMTEST FAIL' "$proto.clean" 2>/dev/null | sed 's/^/bench: /'
[ $rc -eq 0 ] || { echo "bench: the VM run failed; see $logs.out"; tail -n 20 "$logs.out"; }
exit $rc
