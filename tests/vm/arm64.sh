#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# make vmcheck-arm64: the plugin's BPF programs on arm64 kernels.
#   MEMCG_BPF_BUILDDIR=/abs/builddir tests/vm/arm64.sh
#
# 1. Cross-builds the tree for aarch64-linux-gnu in $MEMCG_BPF_BUILDDIR/arm64
#    (configure --host=aarch64-linux-gnu: the BPF objects with
#    -D__TARGET_ARCH_arm64, the CLI and the plugin linked against Debian's
#    arm64 libraries through multiarch: scripts/deps.sh installs them).
#    vmlinux.h is the native build's: it gives types only, every kernel field
#    the programs read is CO-RE-relocated against the running kernel's BTF
#    and no architecture's pt_regs is used, so one header serves both.
# 2. Boots Debian's arm64 cloud kernels (tests/vm/fetch-kernels.sh with
#    MEMCG_BPF_VM_ARCH=arm64) under qemu-system-aarch64 (TCG) with the arm64
#    CLI, its libraries and bookworm's arm64 busybox-static in the initramfs
#    (tests/vm/run.sh, sets arm64 on 7.x and arm64_core on 6.12), and for the
#    collectd tests bookworm's arm64 collectd-core (with libcap2, which it
#    needs) with the cross-built plugin, and sid's arm64 victoria-metrics
#    (run.sh, tests/sender/fetch-receivers.sh): every package downloaded
#    and unpacked into the cache, none installed.
#
# Not in make vmcheck (CI): a cross build (~4 min) and two boots (~2 min).
# Environment: MEMCG_BPF_VM_* as for run.sh.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
: "${MEMCG_BPF_BUILDDIR:?set MEMCG_BPF_BUILDDIR to the (native) build directory}"
cross=$MEMCG_BPF_BUILDDIR/arm64
HOST=aarch64-linux-gnu
CACHE=${MEMCG_BPF_VM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/memcg_bpf/vm}

die() { echo "vm-arm64: $*" >&2; echo "0 passed, 1 failed"; exit 1; }

command -v $HOST-gcc > /dev/null ||
	die "$HOST-gcc not found (scripts/deps.sh installs crossbuild-essential-arm64 and the arm64 libraries)"
dpkg --print-foreign-architectures | grep -qx arm64 ||
	die "arm64 is not a foreign architecture of dpkg here (scripts/deps.sh adds it)"

# 1. the cross build, configured once, then kept up to date by make
mkdir -p "$cross"
if [ ! -f "$cross/Makefile" ]; then
	echo "vm-arm64: configure --host=$HOST in $cross"
	(cd "$cross" && "$top/configure" --host=$HOST > configure.log 2>&1) ||
		{ tail -n 20 "$cross/configure.log" >&2; die "configure --host=$HOST failed (log: $cross/configure.log)"; }
fi
echo "vm-arm64: make in $cross"
make -C "$cross" -j"$(nproc)" > "$cross/make.log" 2>&1 ||
	{ tail -n 20 "$cross/make.log" >&2; die "the arm64 build failed (log: $cross/make.log)"; }
for elf in "$cross/memcg-bpf-sample" "$cross/.libs/memcg_bpf.so"; do
	[ -f "$elf" ] || die "$elf not built (log: $cross/make.log; the plugin needs collectd-dev)"
	[ "$(LC_ALL=C readelf -h "$elf" | sed -n 's/^ *Machine: *//p')" = AArch64 ] || die "$elf is not AArch64 code"
done
grep -qx "BPF_TARGET_ARCH = arm64" "$cross/Makefile" || die "$cross/Makefile does not build the BPF objects for arm64"

# unpacked NAME PKG...: bookworm's arm64 PKGs (arm64 is a foreign
# architecture of dpkg here) downloaded and unpacked into $CACHE/NAME/root
# once; not installed.
unpacked() {
	name=$1
	shift
	[ -f "$CACHE/$name/unpacked" ] && return 0
	rm -rf "${CACHE:?}/$name"
	mkdir -p "$CACHE/$name/deb"
	(cd "$CACHE/$name/deb" && apt-get download -q "$@") > "$CACHE/$name.log" 2>&1 ||
		die "apt-get download $* failed (log: $CACHE/$name.log)"
	for deb in "$CACHE/$name"/deb/*.deb; do
		dpkg-deb -x "$deb" "$CACHE/$name/root"
	done
	echo "$*" > "$CACHE/$name/unpacked"
}

# 2. busybox, and collectd for the guest's collectd tests
unpacked busybox-arm64 busybox-static:arm64
unpacked collectd-arm64 collectd-core:arm64 libcap2:arm64
cdroot=$CACHE/collectd-arm64/root

logs=${MEMCG_BPF_VM_LOGDIR:-$cross/vm-logs}
MEMCG_BPF_VM_ARCH=arm64 BUSYBOX=$CACHE/busybox-arm64/root/bin/busybox MEMCG_BPF_BUILDDIR=$cross MEMCG_BPF_VM_LOGDIR=$logs \
	COLLECTD=$cdroot/usr/sbin/collectd COLLECTD_PLUGINS=$cdroot/usr/lib/collectd TYPESDB=$cdroot/usr/share/collectd/types.db \
	MEMCG_BPF_VM_LIBDIRS="$cdroot/lib/$HOST $cdroot/usr/lib/$HOST" exec "$here/run.sh"
