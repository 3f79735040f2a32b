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
#    (tests/vm/run.sh, sets arm64 on 7.x and arm64_core on 6.12).
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
case $(LC_ALL=C readelf -h "$cross/memcg-bpf-sample" | sed -n 's/^ *Machine: *//p') in
AArch64) ;;
*) die "$cross/memcg-bpf-sample is not an AArch64 program" ;;
esac
grep -qx "BPF_TARGET_ARCH = arm64" "$cross/Makefile" || die "$cross/Makefile does not build the BPF objects for arm64"

# 2. bookworm's arm64 busybox-static, downloaded and unpacked (not installed)
bb=$CACHE/busybox-arm64/bin/busybox
if [ ! -x "$bb" ]; then
	rm -rf "$CACHE/busybox-arm64"
	mkdir -p "$CACHE/busybox-arm64/deb"
	(cd "$CACHE/busybox-arm64/deb" && apt-get download -q busybox-static:arm64) > "$CACHE/busybox-arm64.log" 2>&1 ||
		die "apt-get download busybox-static:arm64 failed (log: $CACHE/busybox-arm64.log)"
	dpkg-deb -x "$CACHE"/busybox-arm64/deb/*.deb "$CACHE/busybox-arm64/root"
	mkdir -p "$CACHE/busybox-arm64/bin"
	cp "$CACHE/busybox-arm64/root/bin/busybox" "$bb"
fi

logs=${MEMCG_BPF_VM_LOGDIR:-$cross/vm-logs}
MEMCG_BPF_VM_ARCH=arm64 BUSYBOX=$bb MEMCG_BPF_BUILDDIR=$cross MEMCG_BPF_VM_LOGDIR=$logs exec "$here/run.sh"
