#!/bin/sh
# Makes the make dist tarball of this tree in a scratch build directory and
# prints its path. Used by build-deb.sh and build-rpm.sh.
#   dist-tarball.sh WORKDIR
# MEMCG_BPF_TARBALL=FILE: use that tarball instead (nothing is built).
# MEMCG_BPF_VMLINUX_H=generated|FILE: what configure takes for the dist's
#   bpf/vmlinux-dist.h (default generated, from /sys/kernel/btf/vmlinux).
set -eu
work=${1:?usage: dist-tarball.sh WORKDIR}
if [ -n "${MEMCG_BPF_TARBALL:-}" ]; then
	readlink -f "$MEMCG_BPF_TARBALL"
	exit 0
fi
src=$(cd "$(dirname "$0")/.." && pwd)
if [ ! -x "$src/configure" ]; then
	echo "dist-tarball: no configure in $src: running autoreconf -fi there" >&2
	(cd "$src" && autoreconf -fi) >&2
fi
rm -rf "$work/dist-build"
mkdir -p "$work/dist-build"
cd "$work/dist-build"
"$src/configure" --with-vmlinux-h="${MEMCG_BPF_VMLINUX_H:-generated}" >configure.log 2>&1 || {
	tail -n 20 configure.log >&2
	echo "dist-tarball: configure failed (log: $work/dist-build/configure.log)" >&2
	exit 1
}
make dist >dist.log 2>&1 || {
	tail -n 20 dist.log >&2
	echo "dist-tarball: make dist failed (log: $work/dist-build/dist.log)" >&2
	exit 1
}
ls "$PWD"/memcg_bpf-*.tar.gz
