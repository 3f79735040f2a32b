#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The benchmark (make bench): boots Debian's 7.x kernel under qemu with
# bench/memcg-bench in the initramfs, runs it at 10, 100 and 1,000 cgroups
# and prints its table. Not a test: it only fails when it cannot run.
#   MEMCG_BPF_BUILDDIR=/abs/builddir bench/run.sh
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
: "${MEMCG_BPF_BUILDDIR:?set MEMCG_BPF_BUILDDIR to the build directory}"
logs=$MEMCG_BPF_BUILDDIR/bench-logs
MEMCG_BPF_VM_KERNELS=kfunc:bench MEMCG_BPF_VM_LOGDIR=$logs \
	MEMCG_BPF_VM_PROGRAMS=$MEMCG_BPF_BUILDDIR/bench/memcg-bench \
	"$top/tests/vm/run.sh" > "$logs.out" 2>&1
rc=$?
kernel=$(tr -d '\r' < "$logs/bench.vmtest.log" 2>/dev/null | sed -n 's/^VMTEST KERNEL //p' | head -n 1)
echo "memcg-bench on Linux ${kernel:-?} (qemu TCG, 2 vCPUs):"
tr -d '\r' < "$logs/bench.vmtest.log" 2>/dev/null | sed -n 's/^VMTEST INFO [^ ]* bench: //p'
[ $rc -eq 0 ] || { echo "bench: the VM run failed; see $logs.out"; tail -n 20 "$logs.out"; }
exit $rc
