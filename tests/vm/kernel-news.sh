#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# make kernel-news (not in CI): says which memcg layout family pinned in
# tests/vm/kernels.list has a newer build in Debian (its suite or sid), and
# boots the matrix set (every stat and per-node stat against the files,
# auto's choice, the verifier's cost) on each newer one. When it passes, move
# the pin in kernels.list and run make vmcheck.
#
#   MEMCG_BPF_BUILDDIR=/abs/builddir tests/vm/kernel-news.sh
#
# Environment: MEMCG_BPF_VM_* as for run.sh (MEMCG_BPF_VM_ARCH=arm64 looks at
# the arm64 pins). Exit 0 when nothing is newer or every newer kernel passed.
set -u
here=$(cd "$(dirname "$0")" && pwd)
: "${MEMCG_BPF_BUILDDIR:?set MEMCG_BPF_BUILDDIR to the build directory}"
logs=${MEMCG_BPF_VM_LOGDIR:-$MEMCG_BPF_BUILDDIR/vm-logs}/kernel-news
mkdir -p "$logs"
list=$logs/kernels.list

"$here/fetch-kernels.sh" --news > "$list" || { echo "kernel-news: cannot ask the archive (see above)"; exit 1; }
grep '^# ' "$list" | sed 's/^# /kernel-news: /'
newer=$(sed -n 's/^# newer: \([^ ]*\) .*/\1/p' "$list")
if [ -z "$newer" ]; then
	echo "kernel-news: every family's pin is its newest build"
	exit 0
fi
# the matrix set on each newer kernel (run.sh fetches them by the list, into
# a cache of their own: the pinned kernels stay where make vmcheck finds them)
cache=${MEMCG_BPF_VM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/memcg_bpf/vm}
specs=
for name in $newer; do specs="$specs $name:matrix"; done
MEMCG_BPF_VM_CACHE=$cache/news MEMCG_BPF_VM_KERNEL_LIST=$list MEMCG_BPF_VM_LOGDIR=$logs MEMCG_BPF_VM_RECEIVERS= MEMCG_BPF_VM_KERNELS="${specs# }" \
	"$here/run.sh"
